//! Batch lookups: many keys per call, their cache misses overlapped.
//!
//! A single `get` in a slotmap larger than the caches waits on one miss,
//! the key's slot in the sparse index, and its caller then on a second,
//! the element in the dense rows. A batch goes through its keys in chunks
//! of [`CHUNK`], in two stages:
//!
//! ```text
//! stage 1  request every key's slot
//! stage 2  validate every key, as `get` does   request its element
//! ```
//!
//! so a chunk's slot misses are in flight together, and the elements are
//! on their way by the time the caller reads them. The requests are hints
//! (prefetches) that change no state: stage 2 is `get` itself. Below
//! [`PREFETCH_SLOTS`] the index is cached and the stages issue none.

use super::SlotMap;
use crate::prefetch::prefetch;

/// Keys per chunk (see BENCHMARKS.md).
const CHUNK: usize = 16;

/// Slots from which the stages request lines ahead: a 256 KiB index,
/// past the L1 and L2 caches.
const PREFETCH_SLOTS: u32 = 1 << 15;

impl SlotMap {
    /// Looks up `count` keys, `key(i)` for `i < count`, and tells `found`
    /// each one's column-0 element (NULL: a stale, forged or foreign key),
    /// in order. Equal to `count` calls of [`SlotMap::get`]; allocates
    /// nothing.
    pub fn get_many(
        &self,
        count: usize,
        key: impl Fn(usize) -> u64,
        found: impl FnMut(usize, *mut u8),
    ) {
        if self.slots >= PREFETCH_SLOTS {
            self.stages::<true>(count, key, found)
        } else {
            self.stages::<false>(count, key, found)
        }
    }

    pub(super) fn stages<const PREFETCH: bool>(
        &self,
        count: usize,
        key: impl Fn(usize) -> u64,
        mut found: impl FnMut(usize, *mut u8),
    ) {
        let mut start = 0;
        while start < count {
            let n = (count - start).min(CHUNK);
            if PREFETCH {
                for i in start..start + n {
                    let index = key(i) as u32;
                    if index < self.slots {
                        // Only the address is taken: `index` is in the
                        // index.
                        prefetch(self.sparse.wrapping_add(index as usize).cast());
                    }
                }
            }
            // The chunk's elements go to a local array first, and reach
            // `found` after the lookups: the lookup loop stores only to
            // memory that cannot alias this slotmap (the caller's might).
            let mut elements = [core::ptr::null_mut::<u8>(); CHUNK];
            for (j, e) in elements.iter_mut().enumerate().take(n) {
                let p = self.get(key(start + j)).unwrap_or(core::ptr::null_mut());
                if PREFETCH && !p.is_null() {
                    prefetch(p);
                }
                *e = p;
            }
            for (j, &p) in elements.iter().enumerate().take(n) {
                found(start + j, p);
            }
            start += n;
        }
    }
}
