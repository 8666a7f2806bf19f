//! The envelope every snapshot shares: the 32-byte header, the sections
//! (tag, length, payload, zero padding to 16 bytes) and the XXH3-64
//! checksum; and the validating reader ([`open`], [`Sections`]). The
//! streaming writer is `writer.rs`.
//!
//! The reader never reads outside the buffer it is given, never assumes
//! its alignment (every field is assembled from bytes), and applies the
//! rules in SPEC §6c's order, so the first rule broken gives the code.

use core::mem::size_of;
use core::ptr;

use super::xxh3::Hasher;
use crate::Error;

/// The first 8 bytes of every snapshot (PNG's pattern: a non-ASCII byte,
/// the name, a CR LF, a DOS end-of-file, an LF).
pub(crate) const MAGIC: [u8; 8] = *b"\x89SLT\r\n\x1a\n";
pub(crate) const MAJOR: u16 = 1;
pub(crate) const MINOR: u16 = 0;
/// Header bytes before the first section.
pub(crate) const HEADER: usize = 32;
/// The checksum after the last section.
pub(crate) const TRAILER: usize = 8;
/// The smallest snapshot: a header and a checksum.
pub(crate) const SMALLEST: usize = HEADER + TRAILER;
/// Every section starts, and every payload is padded, to this.
pub(crate) const ALIGN: usize = 16;
/// A section's tag, reserved word and payload length.
pub(crate) const SECTION_HEAD: usize = 16;

pub(crate) const KIND_MAP: u32 = 1;
pub(crate) const KIND_SLOTMAP: u32 = 2;
pub(crate) const KIND_SPARSE: u32 = 3;

/// Notes: the writer is big-endian; the writer's pointers are 32-bit.
pub(crate) const NOTE_BIG_ENDIAN: u32 = 1;
pub(crate) const NOTE_POINTERS_32: u32 = 2;

pub(crate) type Tag = [u8; 4];
pub(crate) const MAPH: Tag = *b"MAPH";
pub(crate) const MAPE: Tag = *b"MAPE";
pub(crate) const SLTH: Tag = *b"SLTH";
pub(crate) const SLTS: Tag = *b"SLTS";
pub(crate) const SLTC: Tag = *b"SLTC";
pub(crate) const SPSH: Tag = *b"SPSH";
pub(crate) const SPSK: Tag = *b"SPSK";
pub(crate) const SPSC: Tag = *b"SPSC";

/// The critical tags of each kind (index `kind - 1`).
const KNOWN: [[Tag; 3]; 3] = [[MAPH, MAPE, MAPE], [SLTH, SLTS, SLTC], [SPSH, SPSK, SPSC]];

/// This build's notes.
pub(crate) fn writer_notes() -> u32 {
    let big = if cfg!(target_endian = "big") {
        NOTE_BIG_ENDIAN
    } else {
        0
    };
    let narrow = if size_of::<usize>() == 4 {
        NOTE_POINTERS_32
    } else {
        0
    };
    big | narrow
}

/// Bytes a section of an `n`-byte payload takes, padding included.
pub(crate) fn section_size(n: u64) -> u64 {
    SECTION_HEAD as u64 + n.div_ceil(ALIGN as u64) * ALIGN as u64
}

/// Zero bytes after an `n`-byte payload.
pub(crate) fn padding(n: u64) -> usize {
    (n.wrapping_neg() % ALIGN as u64) as usize
}

/// Reads little-endian fields from a payload, in order.
pub(crate) struct Fields<'a> {
    bytes: &'a [u8],
}

impl<'a> Fields<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Fields<'a> {
        Fields { bytes }
    }

    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        if n > self.bytes.len() {
            return Err(Error::Corrupt);
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }

    pub(crate) fn u32(&mut self) -> Result<u32, Error> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub(crate) fn u64(&mut self) -> Result<u64, Error> {
        Ok(u64_at(self.take(8)?, 0))
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Bytes not yet read.
    pub(crate) fn len(&self) -> usize {
        self.bytes.len()
    }
}

/// The little-endian `u64` at `at` of `b` (which has 8 bytes there).
fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut v = [0u8; 8];
    v.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(v)
}

/// What the header says, once checked.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Envelope<'a> {
    pub(crate) kind: u32,
    pub(crate) minor: u16,
    pub(crate) notes: u32,
    /// The snapshot's bytes, header to checksum inclusive.
    pub(crate) bytes: &'a [u8],
}

/// The header fields read before the checksum is: what the checks that
/// follow it need.
struct Head {
    found: u32,
    minor: u16,
    features: u32,
    notes: u32,
}

/// The checks before the checksum (SPEC 6c's order: length and magic,
/// major version, total length) of the snapshot at the start of
/// `bytes`: its bytes, header to checksum inclusive, and its header.
/// `exact`: it must be all of `bytes` (a load); else it may be followed
/// by more (`slate_snapshot_info`).
fn head(bytes: &[u8], exact: bool) -> Result<(&[u8], Head), Error> {
    if bytes.len() < SMALLEST || bytes[..8] != MAGIC {
        return Err(Error::Corrupt);
    }
    let major = u16::from_le_bytes([bytes[8], bytes[9]]);
    let minor = u16::from_le_bytes([bytes[10], bytes[11]]);
    if major > MAJOR {
        return Err(Error::Unsupported);
    }
    if major == 0 {
        return Err(Error::Corrupt);
    }
    let mut f = Fields::new(&bytes[12..HEADER]);
    let found = f.u32()?;
    let total = f.u64()?;
    let features = f.u32()?;
    let notes = f.u32()?;
    let fits = if exact {
        total == bytes.len() as u64
    } else {
        total <= bytes.len() as u64
    };
    if !fits || total < SMALLEST as u64 {
        return Err(Error::Corrupt);
    }
    // `total` is at most `bytes.len()`: it fits a `usize`.
    let head = Head {
        found,
        minor,
        features,
        notes,
    };
    Ok((&bytes[..total as usize], head))
}

impl Head {
    /// The checks after the checksum (features, kind, notes): the
    /// envelope of the snapshot `bytes`. `kind`: the kind a load wants
    /// (`None`: any this build knows).
    fn envelope(self, bytes: &[u8], kind: Option<u32>) -> Result<Envelope<'_>, Error> {
        if self.features != 0 {
            return Err(Error::Unsupported);
        }
        let known = (KIND_MAP..=KIND_SPARSE).contains(&self.found);
        if !known || kind.is_some_and(|k| k != self.found) {
            return Err(Error::Unsupported);
        }
        if self.notes & !(NOTE_BIG_ENDIAN | NOTE_POINTERS_32) != 0 {
            return Err(Error::Corrupt);
        }
        Ok(Envelope {
            kind: self.found,
            minor: self.minor,
            notes: self.notes,
            bytes,
        })
    }
}

/// Checks the header and the checksum of the snapshot at the start of
/// `bytes`: `exact`, it must be all of `bytes` (a load); else it may be
/// followed by more (`slate_snapshot_info`). `kind`: the kind a load
/// wants (`None`: any this build knows).
pub(crate) fn open(bytes: &[u8], exact: bool, kind: Option<u32>) -> Result<Envelope<'_>, Error> {
    let (bytes, head) = head(bytes, exact)?;
    let end = bytes.len() - TRAILER;
    if Hasher::of(&bytes[..end]) != u64_at(bytes, end) {
        return Err(Error::Corrupt);
    }
    head.envelope(bytes, kind)
}

/// Loads the snapshot that is all of `bytes`, of kind `kind`, with its
/// checksum computed as the load reads it rather than in a pass of its
/// own: `load` gets the envelope and a [`Checksum`], to which it shows
/// each large piece just before it reads it (so the hash reads the piece
/// from memory and the load from the cache); the rest is hashed after.
/// The result is what SPEC 6c's order of checks gives: the checks before
/// the checksum first; then, when the checksum is wrong, `Corrupt`
/// whatever `load` found (what it built goes to `undo`); else `load`'s
/// result, the checks after the checksum (features, kind, notes) first.
/// So `load` may build before the checksum is known, from bytes that
/// prove wrong: it only builds beside the destination, bounded by the
/// bytes present, and changes nothing else.
pub(crate) fn load_checked<'a, T>(
    bytes: &'a [u8],
    kind: u32,
    load: impl FnOnce(Envelope<'a>, &mut Checksum<'a>) -> Result<T, Error>,
    undo: impl FnOnce(T),
) -> Result<T, Error> {
    let (bytes, head) = head(bytes, true)?;
    let mut sum = Checksum {
        bytes: &bytes[..bytes.len() - TRAILER],
        sum: u64_at(bytes, bytes.len() - TRAILER),
        hash: Hasher::new(),
        done: 0,
    };
    let loaded = head
        .envelope(bytes, Some(kind))
        .and_then(|env| load(env, &mut sum));
    if sum.holds() {
        return loaded;
    }
    if let Ok(built) = loaded {
        undo(built);
    }
    Err(Error::Corrupt)
}

/// A snapshot's checksum, computed as a load reads the snapshot: the
/// bytes before `done` are hashed.
pub(crate) struct Checksum<'a> {
    /// Header and sections (no checksum).
    bytes: &'a [u8],
    /// The checksum the snapshot holds.
    sum: u64,
    hash: Hasher,
    done: usize,
}

impl Checksum<'_> {
    /// Hashes the snapshot up to the end of `part` (a piece of it), what
    /// of it is not hashed yet.
    pub(crate) fn through(&mut self, part: &[u8]) {
        let end = (part.as_ptr() as usize)
            .wrapping_sub(self.bytes.as_ptr() as usize)
            .saturating_add(part.len())
            .min(self.bytes.len());
        if let Some(rest) = self.bytes.get(self.done..end) {
            self.hash.update(rest);
            self.done = end;
        }
    }

    /// `through` for `part` (a piece of the snapshot), copying it to `to`
    /// in the same pass over it.
    ///
    /// # Safety
    /// `to` has room for `part.len()` bytes, which do not overlap it (it
    /// may be NULL when there are none).
    pub(crate) unsafe fn copy_through(&mut self, part: &[u8], to: *mut u8) {
        if part.is_empty() {
            return;
        }
        let start = (part.as_ptr() as usize).wrapping_sub(self.bytes.as_ptr() as usize);
        if start >= self.done && start <= self.bytes.len() && part.len() <= self.bytes.len() - start
        {
            self.hash.update(&self.bytes[self.done..start]);
            // SAFETY: the caller's guarantee.
            unsafe { self.hash.update_copy(part, to) };
            self.done = start + part.len();
        } else {
            // SAFETY: the caller's guarantee.
            unsafe { ptr::copy_nonoverlapping(part.as_ptr(), to, part.len()) };
            self.through(part);
        }
    }

    /// Whether the snapshot's checksum is right, once the rest is hashed.
    fn holds(&mut self) -> bool {
        if let Some(rest) = self.bytes.get(self.done..) {
            self.hash.update(rest);
            self.done = self.bytes.len();
        }
        self.hash.digest() == self.sum
    }
}

impl<'a> Envelope<'a> {
    pub(crate) fn sections(&self) -> Sections<'a> {
        Sections {
            bytes: &self.bytes[..self.bytes.len() - TRAILER],
            at: HEADER,
            kind: self.kind,
        }
    }
}

/// The sections of a checked envelope, in byte order: the kind's
/// critical ones are handed out, ancillary ones skipped.
pub(crate) struct Sections<'a> {
    /// Header and sections (no checksum).
    bytes: &'a [u8],
    at: usize,
    kind: u32,
}

impl<'a> Sections<'a> {
    /// The next critical section (tag and payload), or `None` at the end.
    pub(crate) fn next_critical(&mut self) -> Result<Option<(Tag, &'a [u8])>, Error> {
        loop {
            let rest = &self.bytes[self.at..];
            if rest.is_empty() {
                return Ok(None);
            }
            if rest.len() < SECTION_HEAD {
                return Err(Error::Corrupt);
            }
            let tag: Tag = [rest[0], rest[1], rest[2], rest[3]];
            if !tag[0].is_ascii_alphabetic() || rest[4..8] != [0; 4] {
                return Err(Error::Corrupt);
            }
            let len = u64_at(rest, 8);
            let room = (rest.len() - SECTION_HEAD) as u64;
            if len > room || len + padding(len) as u64 > room {
                return Err(Error::Corrupt);
            }
            // Both fit in `rest`, a slice: they fit a `usize`.
            let (len, pad) = (len as usize, padding(len));
            let payload = &rest[SECTION_HEAD..SECTION_HEAD + len];
            let zeros = &rest[SECTION_HEAD + len..SECTION_HEAD + len + pad];
            if zeros.iter().any(|&b| b != 0) {
                return Err(Error::Corrupt);
            }
            self.at += SECTION_HEAD + len + pad;
            let ours = &KNOWN[(self.kind - 1) as usize];
            if ours.contains(&tag) {
                return Ok(Some((tag, payload)));
            }
            if KNOWN.iter().flatten().any(|t| *t == tag) {
                return Err(Error::Corrupt);
            }
            if tag[0].is_ascii_uppercase() {
                return Err(Error::Unsupported);
            }
        }
    }

    /// The next critical section, which must be `tag`'s: its payload.
    pub(crate) fn expect(&mut self, tag: Tag) -> Result<&'a [u8], Error> {
        match self.next_critical()? {
            Some((t, payload)) if t == tag => Ok(payload),
            _ => Err(Error::Corrupt),
        }
    }

    /// No critical section may follow.
    pub(crate) fn finish(&mut self) -> Result<(), Error> {
        match self.next_critical()? {
            None => Ok(()),
            Some(_) => Err(Error::Corrupt),
        }
    }

    /// Bytes after the current section, up to the checksum.
    pub(crate) fn remaining(&self) -> u64 {
        (self.bytes.len() - self.at) as u64
    }
}
