//! Batch lookups: many keys per call, their cache misses overlapped.
//!
//! A single lookup in a map larger than the caches waits on its misses one
//! after another: the directory entry, then the first group's control word,
//! then the slot it matches. A batch goes through its keys in chunks of
//! [`CHUNK`], each in stages, every stage over the whole chunk before the
//! next begins:
//!
//! ```text
//! stage 1  hash every key                request its directory entry
//!                                        (a directory past the L1 cache)
//! stage 2  read the entries              request each first control word
//! stage 3  read the control words        request each first candidate's slot
//! stage 4  probe every key, as a single lookup does
//! ```
//!
//! So a chunk's misses of one kind are in flight together, and by the time
//! stage 4 reads a line it has usually arrived. A hit whose slot is not
//! its first group's first candidate (a fingerprint collision, a key
//! probed past its first group) waits for that line in stage 4, as a
//! single lookup does. The requests are hints (prefetches): they change
//! no state, so stage 4 is exactly the single lookup's probe, and a batch
//! finds what the single calls would.
//!
//! A map that fits in the caches (below [`PREFETCH_DEPTH`]) has nothing to
//! wait for, and the stages' bookkeeping would cost more than it hides:
//! there a batch hashes and probes key by key, saving the call per key,
//! and the processor overlaps consecutive keys, which do not depend on each
//! other.
//!
//! Keys too long for a panic-free hash (over [`SHORT`] bytes) are looked
//! up alone, under the caller's [`Guard`], in their place in the batch.

use core::ffi::c_void;
use core::mem::MaybeUninit;

use super::{get_in, Map, Mode};
use crate::directory::Entry;
use crate::guard::Guard;
use crate::hash::SHORT;
use crate::key::{IntKey, Key, Needle, Short};
use crate::layout::{on_layout, Uniform};
use crate::prefetch::prefetch;
use crate::table::Typed;
use crate::Error;

/// Keys per chunk: enough misses in flight to keep the memory system
/// busy, few enough that they do not queue for its line buffers (the
/// choice's measurements are in BENCHMARKS.md).
const CHUNK: usize = 16;
const _: () = assert!(CHUNK <= 32);

/// Global depth from which a batch runs in stages: 128 tables, about
/// 60,000 entries, when the tables outgrow the L1 and L2 caches (see
/// BENCHMARKS.md).
const PREFETCH_DEPTH: u8 = 7;

/// Global depth from which stage 1 requests the directory entries: a
/// directory of 16 KiB, a third of a 48 KiB L1 cache, which the chunk's
/// other lines would evict.
const DIRECTORY_DEPTH: u8 = 10;

/// A key type that a batch looks up.
pub(crate) trait BatchKey: Copy {
    /// Whether the stages keep the key made in the first rather than make
    /// it again in the last (a C string's key measures its length).
    const KEEP: bool;

    /// The hash under `seed`, or `None` for a key to look up alone.
    fn batch_hash(&self, seed: u64) -> Option<u64>;

    /// The lookup of a hashed key in the table of entry `e` (`USUAL`: of
    /// the key's usual layout, see [`get_in`]).
    ///
    /// # Safety
    /// `e` is a live table's entry (of the layout `usual` names if
    /// `USUAL`); `h` is this key's hash.
    unsafe fn probe<const USUAL: bool>(&self, e: Entry, h: u64) -> Option<*mut c_void>;

    /// The `uniform` of a map whose tables have this key's usual layout,
    /// within the caches ([`Uniform::usual`]).
    fn usual(&self) -> Uniform;

    /// The lookup of a key whose `batch_hash` is `None`.
    fn alone<G: Guard>(&self, m: &Map) -> Result<Option<*mut c_void>, Error>;
}

impl BatchKey for IntKey {
    const KEEP: bool = false;

    fn batch_hash(&self, seed: u64) -> Option<u64> {
        Some(self.hash(seed))
    }

    unsafe fn probe<const USUAL: bool>(&self, e: Entry, h: u64) -> Option<*mut c_void> {
        // SAFETY: the caller's guarantee.
        unsafe { get_in::<USUAL, false, false, _, _>(e, h, self, |found| found) }
    }

    fn usual(&self) -> Uniform {
        Uniform::usual(self)
    }

    /// Never called: every integer key has a hash.
    #[inline(always)]
    fn alone<G: Guard>(&self, m: &Map) -> Result<Option<*mut c_void>, Error> {
        Ok(m.get(self))
    }
}

impl BatchKey for Needle<'_> {
    const KEEP: bool = true;

    #[inline(always)]
    fn batch_hash(&self, seed: u64) -> Option<u64> {
        // By the length classes of a single lookup (`Map::get_bytes_guarded`):
        // each takes only its own XXH3 paths.
        if let Some(short) = Short::<16>::new(*self) {
            Some(short.hash(seed))
        } else if let Some(short) = Short::<32, 17>::new(*self) {
            Some(short.hash(seed))
        } else {
            Short::<SHORT>::new(*self).map(|s| s.hash(seed))
        }
    }

    /// Keys of up to 32 bytes take their own probe loops, by the length
    /// classes of a single lookup; longer ones `probe_longer`'s.
    #[inline(always)]
    unsafe fn probe<const USUAL: bool>(&self, e: Entry, h: u64) -> Option<*mut c_void> {
        // SAFETY (all three): the caller's guarantee.
        if let Some(short) = Short::<16>::new(*self) {
            unsafe { get_in::<USUAL, false, false, _, _>(e, h, &short, |found| found) }
        } else if let Some(short) = Short::<32, 17>::new(*self) {
            unsafe { get_in::<USUAL, false, false, _, _>(e, h, &short, |found| found) }
        } else {
            unsafe { probe_longer::<USUAL>(e, h, self) }
        }
    }

    fn usual(&self) -> Uniform {
        Uniform::usual(self)
    }

    /// A key over [`SHORT`] bytes: the single lookup's, under the guard.
    fn alone<G: Guard>(&self, m: &Map) -> Result<Option<*mut c_void>, Error> {
        m.get_long::<G>(self.key())
    }
}

/// A key that may be one no map can hold (`None`: a C string of 4 GiB or
/// more, which no insert takes): absent.
impl<K: BatchKey> BatchKey for Option<K> {
    const KEEP: bool = K::KEEP;

    #[inline(always)]
    fn batch_hash(&self, seed: u64) -> Option<u64> {
        self.as_ref()?.batch_hash(seed)
    }

    #[inline(always)]
    unsafe fn probe<const USUAL: bool>(&self, e: Entry, h: u64) -> Option<*mut c_void> {
        // SAFETY: the caller's guarantee (a key with a hash is `Some`).
        unsafe { self.as_ref()?.probe::<USUAL>(e, h) }
    }

    /// (Unknown for `None`, which has no table.)
    #[inline(always)]
    fn usual(&self) -> Uniform {
        self.as_ref().map_or(Uniform::UNKNOWN, K::usual)
    }

    fn alone<G: Guard>(&self, m: &Map) -> Result<Option<*mut c_void>, Error> {
        self.as_ref().map_or(Ok(None), |k| k.alone::<G>(m))
    }
}

/// `Needle::probe` for a key of 33 to [`SHORT`] bytes.
///
/// # Safety
/// As for [`BatchKey::probe`].
unsafe fn probe_longer<const USUAL: bool>(e: Entry, h: u64, n: &Needle<'_>) -> Option<*mut c_void> {
    let short = Short::<SHORT>::new(*n)?;
    // SAFETY: the caller's guarantee.
    unsafe { get_in::<USUAL, false, false, _, _>(e, h, &short, |found| found) }
}

impl Map {
    /// Looks up `count` keys, `key(i)` for `i < count`, and tells `found`
    /// each one's value (`None`: absent), in order. Equal to `count` single
    /// lookups; allocates nothing. `Err` only if a key looked up alone
    /// panicked under the guard (a bug): the keys before it were told.
    pub fn get_many<G: Guard, K: BatchKey>(
        &self,
        count: usize,
        key: impl Fn(usize) -> K,
        mut found: impl FnMut(usize, Option<*mut c_void>),
    ) -> Result<(), Error> {
        if self.mode == Mode::Empty {
            (0..count).for_each(|i| found(i, None));
            Ok(())
        } else if self.global_depth() >= PREFETCH_DEPTH {
            self.stages::<G, K>(count, key, found)
        } else {
            self.one_by_one::<G, K>(count, key, found)
        }
    }

    /// A map in the caches: each key hashed and probed in turn, as a single
    /// lookup does, without the call. Consecutive keys do not depend on
    /// each other, so the processor overlaps them.
    pub(super) fn one_by_one<G: Guard, K: BatchKey>(
        &self,
        count: usize,
        key: impl Fn(usize) -> K,
        mut found: impl FnMut(usize, Option<*mut c_void>),
    ) -> Result<(), Error> {
        let dir = self.dir();
        let near = self.uniform.far(false);
        for i in 0..count {
            let k = key(i);
            let v = match k.batch_hash(self.seed.get()) {
                // SAFETY (both): the entry of a live table of this map, for
                // this key's hash; of the key's usual layout in the first.
                Some(h) if k.usual() == near => unsafe {
                    k.probe::<true>(dir.entry(self.index(h)), h)
                },
                Some(h) => unsafe { k.probe::<false>(dir.entry(self.index(h)), h) },
                None => k.alone::<G>(self)?,
            };
            found(i, v);
        }
        Ok(())
    }

    /// The chunks and their stages (see the module docs).
    pub(super) fn stages<G: Guard, K: BatchKey>(
        &self,
        count: usize,
        key: impl Fn(usize) -> K,
        mut found: impl FnMut(usize, Option<*mut c_void>),
    ) -> Result<(), Error> {
        let dir = self.dir();
        let near = self.uniform.far(false);
        let far = self.global_depth() >= DIRECTORY_DEPTH;
        let mut start = 0;
        while start < count {
            let n = (count - start).min(CHUNK);
            // Stage 1's keys, for the keys that cost more to make again
            // than to keep (`BatchKey::KEEP`).
            let mut keys = [const { MaybeUninit::<K>::uninit() }; CHUNK];
            let mut hashes = [0u64; CHUNK];
            let mut entries = [Entry::NONE; CHUNK];
            // Bit i: key `start + i` has a hash; the others are looked up
            // alone.
            let mut hashed = 0u32;
            // `% CHUNK` (here and below): `i < n <= CHUNK` already; the
            // mask lets the compiler drop the bounds checks, and with them
            // a panic path.
            for i in 0..n {
                let k = key(start + i);
                if K::KEEP {
                    keys[i % CHUNK].write(k);
                }
                if let Some(h) = k.batch_hash(self.seed.get()) {
                    hashes[i % CHUNK] = h;
                    hashed |= 1 << i;
                    if far {
                        prefetch(dir.array.wrapping_add(self.index(h)).cast());
                    }
                }
            }
            for i in Bits(hashed) {
                let h = hashes[i % CHUNK];
                let e = dir.entry(self.index(h));
                entries[i % CHUNK] = e;
                // SAFETY: the entry of a live table; only prefetched.
                on_layout!(e.kind, L => unsafe {
                    Typed::<L>::from_groups(e.groups, e.mask).prefetch_ctrl(h)
                });
            }
            for i in Bits(hashed) {
                let e = entries[i % CHUNK];
                // SAFETY: the entry of a live table, read only.
                on_layout!(e.kind, L => unsafe {
                    Typed::<L>::from_groups(e.groups, e.mask).prefetch_candidate(hashes[i % CHUNK])
                });
            }
            for i in 0..n {
                let k = if K::KEEP {
                    // SAFETY: stage 1 wrote keys `0 .. n`.
                    unsafe { keys[i % CHUNK].assume_init() }
                } else {
                    key(start + i)
                };
                let v = if hashed & (1 << i) != 0 {
                    let (e, h) = (entries[i % CHUNK], hashes[i % CHUNK]);
                    // SAFETY (both): the entry of a live table of this map,
                    // for this key's hash; of the key's usual layout in the
                    // first.
                    if k.usual() == near {
                        unsafe { k.probe::<true>(e, h) }
                    } else {
                        unsafe { k.probe::<false>(e, h) }
                    }
                } else {
                    k.alone::<G>(self)?
                };
                found(start + i, v);
            }
            start += n;
        }
        Ok(())
    }
}

/// The indices of a bitset's set bits, lowest first.
struct Bits(u32);

impl Iterator for Bits {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let i = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(i)
    }
}
