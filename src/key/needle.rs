//! The lookup needles: what a table needs of a key being looked up or
//! inserted ([`Key`]), for byte keys ([`Needle`], [`Short`]) and integer
//! keys ([`IntKey`]). A needle is built from the caller's key without
//! copying its bytes and compared with stored keys (`key.rs`) word by word.

use core::marker::PhantomData;
use core::mem::MaybeUninit;

use super::int::{int_of_words, int_words, INT_LEN};
use super::{head_word, heap_repr, load_le, write_inline, KeyRepr, INLINE};
use crate::alloc::Allocator;
use crate::Error;

/// What a table needs of a key being looked up or inserted. Implemented by
/// [`Needle`] (any byte key) and [`IntKey`] (the integer fast path); the
/// map's operations are generic over it, so each kind gets its own probe.
/// A key is a few words, passed by value.
pub trait Key: Copy {
    /// Whether every key of this type is an integer key ([`IntKey`]), which
    /// picks the layout a key type usually meets: `Map::look` takes that
    /// layout's probe directly, any other through `look_other`.
    const INT: bool = false;

    /// The hash under `seed`.
    fn hash(&self, seed: u64) -> u64;

    /// Whether a stored key equals this one.
    ///
    /// # Safety
    /// `stored` is a live stored key (see [`KeyRepr::bytes`]).
    unsafe fn matches(&self, stored: &KeyRepr) -> bool;

    /// The repr to store: inline keys as they are, long keys copied.
    fn to_stored(&self, alloc: &Allocator) -> Result<KeyRepr, Error>;

    /// The integer key this is, `(tag, value)`, if it is the 10-byte
    /// encoding of one: integer tables keep only the value.
    fn int(&self) -> Option<(u8, u64)>;

    /// [`Key::to_stored`], written straight into a slot's key: a vacant
    /// slot's memory, which nothing reads until the slot is marked full.
    /// On failure nothing is allocated.
    ///
    /// # Safety
    /// `dst` is valid for writes of a `KeyRepr`.
    unsafe fn store(&self, dst: *mut KeyRepr, alloc: &Allocator) -> Result<(), Error> {
        let repr = self.to_stored(alloc)?;
        // SAFETY: the caller's guarantee.
        unsafe { dst.write(repr) };
        Ok(())
    }
}

/// An integer key (`tag` is [`super::TAG_I64`] or [`super::TAG_U64`]): hashed by
/// `hash_int`, compared as the slot's two words, never a byte pass.
#[derive(Clone, Copy)]
pub struct IntKey {
    tag: u8,
    value: u64,
}

impl IntKey {
    pub fn new(tag: u8, value: u64) -> IntKey {
        IntKey { tag, value }
    }
}

impl Key for IntKey {
    const INT: bool = true;

    fn hash(&self, seed: u64) -> u64 {
        crate::hash::hash_int(seed, self.tag, self.value)
    }

    unsafe fn matches(&self, stored: &KeyRepr) -> bool {
        let (w0, w1) = int_words(self.tag, self.value);
        stored.word0_le() == w0 && stored.word1_le() == w1
    }

    fn to_stored(&self, _alloc: &Allocator) -> Result<KeyRepr, Error> {
        Ok(KeyRepr::from_int(self.tag, self.value))
    }

    fn int(&self) -> Option<(u8, u64)> {
        Some((self.tag, self.value))
    }
}

/// A key being looked up: its bytes. The slot word it must match first is
/// built where the key's length class is known ([`Short`]), or by the
/// compare itself (a key over [`crate::hash::SHORT`] bytes).
///
/// Built without copying the key: lookups hash the caller's bytes where
/// they are and compare words.
#[derive(Clone, Copy)]
pub struct Needle<'a> {
    /// The key's bytes, kept as a pointer and a 32-bit length rather than
    /// a slice: a needle passed through memory has its length written and
    /// read back as one 4-byte field, so the read does not stall on store
    /// forwarding.
    ptr: *const u8,
    len: u32,
    _key: PhantomData<&'a [u8]>,
}

impl<'a> Needle<'a> {
    /// A byte key. The length must fit in `u32` (the C API guarantees it).
    pub fn bytes(key: &'a [u8]) -> Needle<'a> {
        Needle {
            ptr: key.as_ptr(),
            len: key.len() as u32,
            _key: PhantomData,
        }
    }

    /// The key's bytes.
    pub fn key(&self) -> &'a [u8] {
        // SAFETY: `ptr` and `len` are the slice `bytes` was given, borrowed
        // for `'a`.
        unsafe { core::slice::from_raw_parts(self.ptr, self.len as usize) }
    }

    fn is_inline(&self) -> bool {
        self.len as usize <= INLINE
    }
}

/// Whether the `key.len()` bytes at `p` equal `key`, given that their first
/// four bytes do (the slot's first word matched): up to 32 bytes by
/// overlapping loads from both ends, without a `memcmp` call.
///
/// # Safety
/// `p` points to `key.len()` readable bytes.
#[inline(always)]
unsafe fn eq_rest(p: *const u8, key: &[u8]) -> bool {
    let n = key.len();
    // SAFETY (the reads below): offsets stay below `n`, the length of both.
    let at = |q: *const u8, i: usize| unsafe { q.add(i).cast::<u64>().read_unaligned() };
    let at4 = |q: *const u8, i: usize| unsafe { q.add(i).cast::<u32>().read_unaligned() };
    let k = key.as_ptr();
    if n <= 4 {
        true
    } else if n <= 8 {
        at4(p, n - 4) == at4(k, n - 4)
    } else if n <= 16 {
        at(p, 0) == at(k, 0) && at(p, n - 8) == at(k, n - 8)
    } else if n <= 28 {
        // Bytes 0..4 are known equal: [4, 12) and [n - 16, n) cover the
        // rest, in three loads instead of four.
        at(p, 4) == at(k, 4) && at(p, n - 16) == at(k, n - 16) && at(p, n - 8) == at(k, n - 8)
    } else if n <= 32 {
        at(p, 0) == at(k, 0)
            && at(p, 8) == at(k, 8)
            && at(p, n - 16) == at(k, n - 16)
            && at(p, n - 8) == at(k, n - 8)
    } else {
        // SAFETY: the caller's guarantee.
        unsafe { core::slice::from_raw_parts(p, n) == key }
    }
}

/// Whether the `n` bytes at `p` equal the `n` at `k`, for `n` of 33 to 128
/// (the keys of `Short<SHORT, 33>`): their first and last 32 bytes, then
/// 16 more from either end for each further 32 bytes of length (as XXH3
/// reads them), in 16-byte SSE2 compares, with no `memcmp` call.
/// Elsewhere than on x86-64, `memcmp`.
///
/// # Safety
/// `p` and `k` point to `n` readable bytes; `32 < n <= 128`.
#[cfg(target_arch = "x86_64")]
unsafe fn eq_33_to_128(p: *const u8, k: *const u8, n: usize) -> bool {
    use core::arch::x86_64::{_mm_and_si128, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8};
    debug_assert!(n > 32 && n <= crate::hash::SHORT);
    // SAFETY (all the loads): 16 bytes at offsets `i` with
    // `0 <= i <= n - 16`, inside both keys; SSE2 is part of x86-64.
    let eq = |i: usize| unsafe {
        _mm_cmpeq_epi8(
            _mm_loadu_si128(p.add(i).cast()),
            _mm_loadu_si128(k.add(i).cast()),
        )
    };
    // SAFETY: SSE2 is part of x86-64.
    unsafe {
        let mut all = _mm_and_si128(
            _mm_and_si128(eq(0), eq(16)),
            _mm_and_si128(eq(n - 32), eq(n - 16)),
        );
        if n > 64 {
            all = _mm_and_si128(all, _mm_and_si128(eq(32), eq(n - 48)));
            if n > 96 {
                all = _mm_and_si128(all, _mm_and_si128(eq(48), eq(n - 64)));
            }
        }
        _mm_movemask_epi8(all) == 0xFFFF
    }
}

/// `eq_33_to_128` elsewhere than on x86-64.
///
/// # Safety
/// `p` and `k` point to `n` readable bytes.
#[cfg(not(target_arch = "x86_64"))]
unsafe fn eq_33_to_128(p: *const u8, k: *const u8, n: usize) -> bool {
    // SAFETY: the caller's guarantee.
    unsafe { core::slice::from_raw_parts(p, n) == core::slice::from_raw_parts(k, n) }
}

impl Key for Needle<'_> {
    fn hash(&self, seed: u64) -> u64 {
        crate::hash::hash(seed, self.key())
    }

    unsafe fn matches(&self, slot: &KeyRepr) -> bool {
        if slot.word0_le() != head_word(self.key()) {
            return false;
        }
        // SAFETY: equal first words: the slot holds a key of this length,
        // inline or (live by the caller's guarantee) on the heap.
        unsafe { eq_rest(slot.bytes_ptr(), self.key()) }
    }

    #[inline]
    fn to_stored(&self, alloc: &Allocator) -> Result<KeyRepr, Error> {
        if self.is_inline() {
            let mut repr = MaybeUninit::<KeyRepr>::uninit();
            // SAFETY: `repr` is writable; at most `INLINE` bytes. Once
            // written it is fully initialized.
            unsafe {
                write_inline(repr.as_mut_ptr(), self.key());
                Ok(repr.assume_init())
            }
        } else {
            heap_repr(self.key(), alloc)
        }
    }

    #[inline(always)]
    unsafe fn store(&self, dst: *mut KeyRepr, alloc: &Allocator) -> Result<(), Error> {
        if self.is_inline() {
            // SAFETY: the caller's guarantee; at most `INLINE` bytes.
            unsafe { write_inline(dst, self.key()) };
            Ok(())
        } else {
            let repr = heap_repr(self.key(), alloc)?;
            // SAFETY: the caller's guarantee.
            unsafe { dst.write(repr) };
            Ok(())
        }
    }

    fn int(&self) -> Option<(u8, u64)> {
        if self.len as usize != INT_LEN {
            return None;
        }
        let key = self.key();
        int_of_words(head_word(key), load_le(key.get(4..).unwrap_or(&[])))
    }
}

/// A byte key of `MIN` to `MAX` bytes, `MAX` no more than
/// [`crate::hash::SHORT`]: hashing it stays on XXH3's short-input paths,
/// which compile without any panic path, so a lookup of it needs no
/// unwinding guard. Lookups take keys of up to 32 bytes as `Short<16>` or
/// `Short<32, 17>` and deletes as `Short<32>`, whose comparison makes no
/// `memcmp` call (`eq_rest`). The C layer takes longer ones as
/// `Short<SHORT, 33>` on a path of their own, where the bounds drop the
/// code for shorter keys (XXH3's paths for up to 32 bytes, the inline
/// compares and the inline repr).
#[derive(Clone, Copy)]
pub struct Short<'a, const MAX: usize, const MIN: usize = 0> {
    n: Needle<'a>,
    /// The slot's first word: length, and the key's first four bytes.
    w0: u64,
}

impl<'a, const MAX: usize, const MIN: usize> Short<'a, MAX, MIN> {
    /// `None` for a key shorter than `MIN` or longer than `MAX`. The first
    /// word is built here, where the bounds are known: with `MIN >= 4`
    /// from one load, without the branches on the length.
    #[inline(always)]
    pub fn new(n: Needle<'a>) -> Option<Short<'a, MAX, MIN>> {
        const { assert!(MIN <= MAX && MAX <= crate::hash::SHORT) };
        if !(MIN..=MAX).contains(&n.key().len()) {
            return None;
        }
        let mut short = Short { n, w0: 0 };
        short.w0 = head_word(short.key());
        Some(short)
    }

    /// The key's bytes, of `MIN` to `MAX`: telling the compiler lets it
    /// drop the code for other lengths (XXH3's long-input path, `memcmp`
    /// for short keys; the straight-line compares for long ones).
    fn key(&self) -> &'a [u8] {
        let k = self.n.key();
        if k.len() > MAX || k.len() < MIN {
            // SAFETY: `new` checked the length.
            unsafe { core::hint::unreachable_unchecked() }
        }
        k
    }
}

impl<const MAX: usize, const MIN: usize> Key for Short<'_, MAX, MIN> {
    #[inline(always)]
    fn hash(&self, seed: u64) -> u64 {
        if MIN > 16 {
            crate::hash::hash_mid(seed, self.key())
        } else {
            crate::hash::hash(seed, self.key())
        }
    }

    unsafe fn matches(&self, slot: &KeyRepr) -> bool {
        if slot.word0_le() != self.w0 {
            return false;
        }
        let k = self.key();
        // SAFETY: as in `Needle::matches`; with `MIN > 32` and
        // `MAX <= SHORT` the key has 33 to 128 bytes.
        unsafe {
            if MIN > 32 && MAX <= crate::hash::SHORT {
                eq_33_to_128(slot.bytes_ptr(), k.as_ptr(), k.len())
            } else {
                eq_rest(slot.bytes_ptr(), k)
            }
        }
    }

    #[inline]
    fn to_stored(&self, alloc: &Allocator) -> Result<KeyRepr, Error> {
        self.n.to_stored(alloc)
    }

    #[inline(always)]
    unsafe fn store(&self, dst: *mut KeyRepr, alloc: &Allocator) -> Result<(), Error> {
        // SAFETY: the caller's guarantee.
        unsafe { self.n.store(dst, alloc) }
    }

    fn int(&self) -> Option<(u8, u64)> {
        self.n.int()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::{int_bytes, TAG_I64, TAG_U64};

    #[test]
    fn long_compare_reads_every_byte() {
        let a: Vec<u8> = (0..128u8).map(|i| i.wrapping_mul(37) ^ 0x5A).collect();
        for n in 33..=128 {
            let mut b = a[..n].to_vec();
            // SAFETY: both have `n` bytes; 32 < n <= 128.
            assert!(unsafe { eq_33_to_128(a.as_ptr(), b.as_ptr(), n) }, "n {n}");
            for j in 0..n {
                b[j] ^= 1;
                // SAFETY: as above.
                assert!(
                    !unsafe { eq_33_to_128(a.as_ptr(), b.as_ptr(), n) },
                    "n {n} j {j}"
                );
                b[j] ^= 1;
            }
        }
    }

    #[test]
    fn int_key_is_its_byte_encoding() {
        let alloc = Allocator::default();
        for (tag, v) in [
            (TAG_I64, -2i64 as u64),
            (TAG_I64, 0u64),
            (TAG_U64, u64::MAX),
            (TAG_I64, 0x0123_4567_89AB_CDEF),
        ] {
            let enc = int_bytes(tag, v);
            let (int, bytes) = (IntKey::new(tag, v), Needle::bytes(&enc));
            assert_eq!(int_words(tag, v).0, head_word(&enc));
            assert_eq!(int.hash(99), bytes.hash(99));
            let (a, b) = (
                int.to_stored(&alloc).unwrap(),
                bytes.to_stored(&alloc).unwrap(),
            );
            assert_eq!(a, b);
            // SAFETY: inline reprs own nothing.
            unsafe { assert!(int.matches(&b) && bytes.matches(&a)) };
            assert_eq!(
                (int.int(), bytes.int(), a.int()),
                (Some((tag, v)), Some((tag, v)), Some((tag, v)))
            );
            assert_eq!(KeyRepr::from_int(tag, v), a);
            let other = int_bytes(tag, v ^ 1);
            // SAFETY: as above.
            unsafe { assert!(!Needle::bytes(&other).matches(&a)) };
        }
    }
}
