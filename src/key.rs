//! The stored key: how a slot holds its key.
//!
//! Every key is a byte string. A general slot keeps it in 32 bytes, the
//! first word of which is compared before anything else:
//!
//! ```text
//! bytes  0..4     4..8          8..24                     24..32
//! inline [len   ][key 0..4    ][key 4..28, zero padded ........]   len <= 28
//! heap   [len   ][key 0..4    ][zero                  ][pointer]   len > 28
//! ```
//!
//! Keys of up to 28 bytes, which covers the 10-byte integer encoding and
//! most names, ids and paths' last parts, live in the slot and cost no
//! allocation, and comparing one reads no memory but the slot. Longer keys
//! are copied once into memory from the map's allocator; the slot keeps the
//! length and first four bytes beside the pointer, so most mismatches are
//! rejected without touching the copy.
//!
//! # Byte order
//!
//! A repr is bytes, the same on every host. Where code reads it as words
//! (the length and head word, the integer key's two words), it reads them
//! little-endian ([`KeyRepr::word0_le`], [`KeyRepr::word1_le`],
//! `load_le`), and where it writes the length it writes it little-endian
//! (`write_inline`), so that a needle's words, built from the caller's
//! bytes, match the stored key on big-endian hosts too. Comparisons of the
//! key's own bytes load both sides in the host's order, which is the same
//! on both sides.
//!
//! The lookup needles are in `needle.rs`, the integer keys' encoding in
//! `int.rs`.

mod int;
mod needle;

pub use int::{int_bytes, int_of_bytes, int_words, INT_LEN, TAG_I64, TAG_U64};
pub use needle::{IntKey, Key, Needle, Short};

use core::mem::MaybeUninit;
use core::ptr;

use crate::alloc::Allocator;
use crate::Error;
use int::int_of_words;

/// Longest key kept inside the slot.
pub const INLINE: usize = 28;
/// Bytes of a key repr.
const REPR: usize = 32;
/// Where a heap key's pointer sits in its repr.
const PTR_AT: usize = 24;

/// A key as a slot stores it (see the module docs for the layout).
///
/// The 32 bytes are always initialized; they are kept as `MaybeUninit` only
/// because a copy of a `MaybeUninit` keeps the provenance of a heap key's
/// pointer bytes, where a copy of a `[u8; 32]` would strip it.
#[repr(C, align(8))]
#[derive(Clone, Copy)]
pub struct KeyRepr {
    raw: MaybeUninit<[u8; REPR]>,
}

impl PartialEq for KeyRepr {
    fn eq(&self, other: &KeyRepr) -> bool {
        self.all_bytes() == other.all_bytes()
    }
}

impl Eq for KeyRepr {}

impl core::fmt::Debug for KeyRepr {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "KeyRepr({:02x?})", self.all_bytes())
    }
}

impl KeyRepr {
    /// A repr from its four words, little-endian.
    fn from_words(w: [u64; 4]) -> KeyRepr {
        let mut raw = [0u8; REPR];
        for (chunk, w) in raw.chunks_exact_mut(8).zip(w) {
            chunk.copy_from_slice(&w.to_le_bytes());
        }
        KeyRepr {
            raw: MaybeUninit::new(raw),
        }
    }

    #[inline]
    fn all_bytes(&self) -> &[u8; REPR] {
        // SAFETY: every constructor initializes all 32 bytes.
        unsafe { self.raw.assume_init_ref() }
    }

    /// Bytes 0..8 as a little-endian word, on every host: the length in
    /// the low half, the key's first four bytes in the high half (see the
    /// module docs on byte order).
    #[inline]
    pub(crate) fn word0_le(&self) -> u64 {
        u64::from_le_bytes(self.all_bytes()[0..8].try_into().unwrap())
    }

    /// Bytes 8..16 as a little-endian word.
    #[inline]
    pub(crate) fn word1_le(&self) -> u64 {
        u64::from_le_bytes(self.all_bytes()[8..16].try_into().unwrap())
    }

    /// An integer key's inline repr.
    pub fn from_int(tag: u8, v: u64) -> KeyRepr {
        let (w0, w1) = int_words(tag, v);
        KeyRepr::from_words([w0, w1, 0, 0])
    }

    /// The integer key this repr holds, if it holds one: `(tag, value)`.
    pub fn int(&self) -> Option<(u8, u64)> {
        int_of_words(self.word0_le(), self.word1_le())
    }

    #[inline]
    pub fn key_len(&self) -> u32 {
        self.word0_le() as u32
    }

    #[inline]
    pub fn is_inline(&self) -> bool {
        self.key_len() as usize <= INLINE
    }

    fn heap_ptr(&self) -> *mut u8 {
        // SAFETY: bytes 24.. hold a pointer written by `heap_repr` (read
        // unaligned: the array is only 8-aligned as a whole, which is
        // enough, but this keeps the read independent of that).
        unsafe { ptr::read_unaligned(self.raw.as_ptr().cast::<u8>().add(PTR_AT).cast::<*mut u8>()) }
    }

    /// Address of the key's bytes: in the slot itself, or the heap copy.
    pub fn bytes_ptr(&self) -> *const u8 {
        if self.is_inline() {
            // SAFETY: byte 4 is inside the repr.
            unsafe { self.raw.as_ptr().cast::<u8>().add(4) }
        } else {
            self.heap_ptr()
        }
    }

    /// The key's bytes.
    ///
    /// # Safety
    /// A heap key's copy must still be allocated (the repr was made by
    /// [`Key::to_stored`] or [`KeyRepr::duplicate`] and not released).
    #[inline]
    pub unsafe fn bytes(&self) -> &[u8] {
        // SAFETY: inline bytes are part of `self`; a heap copy holds exactly
        // `len` bytes and lives until released (the caller's guarantee).
        unsafe { core::slice::from_raw_parts(self.bytes_ptr(), self.key_len() as usize) }
    }

    /// Bytes this key holds outside its slot.
    pub fn heap_bytes(&self) -> usize {
        if self.is_inline() {
            0
        } else {
            self.key_len() as usize
        }
    }

    /// An independent copy (a new heap copy for long keys).
    ///
    /// # Safety
    /// As for [`KeyRepr::bytes`].
    pub unsafe fn duplicate(&self, alloc: &Allocator) -> Result<KeyRepr, Error> {
        if self.is_inline() {
            return Ok(*self);
        }
        // SAFETY: the caller guarantees the heap copy is live.
        let bytes = unsafe { self.bytes() };
        heap_repr(bytes, alloc)
    }

    /// Frees a heap key's copy; inline keys own nothing.
    ///
    /// # Safety
    /// The repr owns its copy, the copy came from `alloc`, and the repr is
    /// not used again.
    pub unsafe fn release(self, alloc: &Allocator) {
        if !self.is_inline() {
            // SAFETY: the caller guarantees ownership and origin.
            unsafe { alloc.free(self.heap_ptr(), self.heap_bytes()) }
        }
    }
}

pub(super) fn heap_repr(bytes: &[u8], alloc: &Allocator) -> Result<KeyRepr, Error> {
    let copy = alloc.alloc(bytes.len())?;
    // SAFETY: `copy` is a fresh allocation of `bytes.len()` bytes.
    unsafe { ptr::copy_nonoverlapping(bytes.as_ptr(), copy, bytes.len()) };
    let mut repr = KeyRepr::from_words([head_word(bytes), 0, 0, 0]);
    // Stored as a pointer, not an integer, so it keeps its provenance.
    // SAFETY: bytes 24..32 have room for a pointer on every target.
    unsafe {
        ptr::write_unaligned(
            repr.raw
                .as_mut_ptr()
                .cast::<u8>()
                .add(PTR_AT)
                .cast::<*mut u8>(),
            copy,
        )
    };
    Ok(repr)
}

/// A repr's first word: the length and the first four bytes (read without
/// a bounds check, so that inserting a key cannot panic).
#[inline(always)]
pub(super) fn head_word(key: &[u8]) -> u64 {
    let head = load_le(key.get(..key.len().min(4)).unwrap_or(&[]));
    key.len() as u64 | head << 32
}

/// Writes the inline repr of `key` (at most [`INLINE`] bytes) to `dst`:
/// zeros, the length, then the bytes in overlapping pieces. Only stores,
/// none of which is read back soon, so nothing waits on them.
///
/// # Safety
/// `dst` is valid for writes of a `KeyRepr`; `key.len() <= INLINE`.
#[inline(always)]
pub(super) unsafe fn write_inline(dst: *mut KeyRepr, key: &[u8]) {
    let n = key.len();
    let d = dst.cast::<u8>();
    let k = key.as_ptr();
    // SAFETY (all the accesses below): `d` has `REPR` writable bytes and
    // every piece lands inside them (`4 + n <= REPR`); the pieces read from
    // `k` stay below `n`.
    unsafe {
        for i in 0..REPR / 8 {
            d.add(8 * i).cast::<u64>().write_unaligned(0);
        }
        // Little-endian, as `word0_le` reads it back (a native store
        // would put the length in the word's high half on big-endian
        // hosts, where no lookup would find the key again).
        d.cast::<u32>().write_unaligned((n as u32).to_le());
        let d = d.add(4);
        let copy8 = |at: usize| {
            d.add(at)
                .cast::<u64>()
                .write_unaligned(k.add(at).cast::<u64>().read_unaligned())
        };
        let copy4 = |at: usize| {
            d.add(at)
                .cast::<u32>()
                .write_unaligned(k.add(at).cast::<u32>().read_unaligned())
        };
        if n >= 8 {
            let mut at = 0;
            while at + 8 < n {
                copy8(at);
                at += 8;
            }
            copy8(n - 8);
        } else if n >= 4 {
            copy4(0);
            copy4(n - 4);
        } else {
            for i in 0..n {
                *d.add(i) = *k.add(i);
            }
        }
    }
}

/// Up to 8 bytes as a little-endian word, zero above; without a call or a
/// loop (overlapping loads, as XXH3 reads short keys). Bytes past 8 are
/// ignored.
#[inline(always)]
pub(super) fn load_le(p: &[u8]) -> u64 {
    let n = p.len();
    if n >= 8 {
        le(p, 0, 8)
    } else if n >= 4 {
        // The two 4-byte reads overlap; shared bytes land on themselves.
        le(p, 0, 4) | le(p, n - 4, 4) << (8 * (n - 4))
    } else if n > 0 {
        // Bytes 0, n/2 and n-1 cover every byte of a 1-3 byte key.
        let at = |i: usize| (p.get(i).copied().unwrap_or(0) as u64) << (8 * i);
        at(0) | at(n / 2) | at(n - 1)
    } else {
        0
    }
}

/// `w` (4 or 8) bytes of `p` from `at`, little-endian; 0 out of bounds
/// (never, for the callers here: the check only keeps panics off the path).
fn le(p: &[u8], at: usize, w: usize) -> u64 {
    match p.get(at..at + w) {
        Some(b) if w == 8 => u64::from_le_bytes(b.try_into().unwrap_or([0; 8])),
        Some(b) => u32::from_le_bytes(b.try_into().unwrap_or([0; 4])) as u64,
        None => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoding(tag: u8, v: u64) -> Vec<u8> {
        let mut enc = vec![0x00, tag];
        enc.extend_from_slice(&v.to_le_bytes());
        assert_eq!(enc, int_bytes(tag, v));
        enc
    }

    /// Only the exact 10-byte encodings are integer keys.
    #[test]
    fn near_encodings_are_not_integer_keys() {
        let alloc = Allocator::default();
        let mut cases = vec![encoding(0x03, 5), encoding(0x00, 5), b"0123456789".to_vec()];
        let mut first = encoding(TAG_U64, 5);
        first[0] = 1;
        cases.push(first);
        let mut long = encoding(TAG_U64, 5);
        long.push(0);
        cases.push(long);
        cases.push(encoding(TAG_U64, 5)[..9].to_vec());
        for key in cases {
            let n = Needle::bytes(&key);
            assert_eq!(n.int(), None, "{key:02x?}");
            let stored = n.to_stored(&alloc).unwrap();
            assert_eq!(stored.int(), None, "{key:02x?}");
            // SAFETY: made above, not used again.
            unsafe { stored.release(&alloc) };
        }
    }

    /// Writing a key into a slot gives the repr `to_stored` builds.
    #[test]
    fn store_writes_what_to_stored_builds() {
        let alloc = Allocator::default();
        for len in 0..=40usize {
            let key: Vec<u8> = (0..len as u8).map(|b| b.wrapping_mul(29) ^ 0x5A).collect();
            let n = Needle::bytes(&key);
            let built = n.to_stored(&alloc).unwrap();
            let mut slot = MaybeUninit::<KeyRepr>::new(KeyRepr::from_words([!0; 4]));
            // SAFETY: `slot` is writable; both reprs are released below.
            unsafe {
                n.store(slot.as_mut_ptr(), &alloc).unwrap();
                let stored = slot.assume_init();
                assert_eq!(stored.bytes(), &key[..], "len {len}");
                if len <= INLINE {
                    assert_eq!(stored, built, "len {len}");
                }
                stored.release(&alloc);
                built.release(&alloc);
            }
        }
    }

    /// A repr is the same bytes on every host: the length little-endian,
    /// then the key (big-endian hosts once stored the length in native
    /// order, and no lookup found a string key again).
    #[test]
    fn repr_bytes_are_host_independent() {
        let alloc = Allocator::default();
        for len in [0usize, 1, 3, 4, 5, 8, 10, 17, 28] {
            let key: Vec<u8> = (0..len as u8).map(|b| b ^ 0xA5).collect();
            let stored = Needle::bytes(&key).to_stored(&alloc).unwrap();
            let bytes = stored.all_bytes();
            assert_eq!(bytes[..4], (len as u32).to_le_bytes(), "len {len}");
            assert_eq!(&bytes[4..4 + len], &key[..], "len {len}");
            assert!(bytes[4 + len..].iter().all(|&b| b == 0), "len {len}");
            assert_eq!(stored.word0_le(), head_word(&key), "len {len}");
        }
    }

    #[test]
    fn load_le_reads_every_short_length() {
        let bytes: Vec<u8> = (1..=8).collect();
        for n in 0..=8 {
            let mut want = [0u8; 8];
            want[..n].copy_from_slice(&bytes[..n]);
            assert_eq!(load_le(&bytes[..n]), u64::from_le_bytes(want), "n = {n}");
        }
    }

    #[test]
    fn inline_and_heap_round_trip() {
        let alloc = Allocator::default();
        for len in 0..70usize {
            let key: Vec<u8> = (0..len as u8).map(|b| b.wrapping_mul(37)).collect();
            let n = Needle::bytes(&key);
            let stored = n.to_stored(&alloc).unwrap();
            assert_eq!(stored.is_inline(), len <= INLINE);
            // SAFETY: `stored` was just made and is released below.
            unsafe {
                assert_eq!(stored.bytes(), &key[..]);
                assert!(n.matches(&stored));
                // A change at any byte is seen (the heap compare reads from
                // both ends; inline keys compare words).
                for at in 0..len {
                    let mut other = key.clone();
                    other[at] ^= 1;
                    assert!(!Needle::bytes(&other).matches(&stored), "len {len} at {at}");
                }
                let shorter = &key[..len.saturating_sub(1)];
                assert_eq!(Needle::bytes(shorter).matches(&stored), len == 0);
                let dup = stored.duplicate(&alloc).unwrap();
                assert_eq!(dup.bytes(), &key[..]);
                dup.release(&alloc);
                stored.release(&alloc);
            }
        }
    }
}
