//! The two passes that bulk operations run as walks, shared by the
//! slotmap and the sparse sets: `erase_if`'s picking of rows and `sort`'s
//! ordering of them. Each asks the user's function about the rows while
//! the structure is walked (so it may read the structure, not modify it),
//! in scratch memory of the structure's allocator that the walk registry
//! releases if the walk is left by `longjmp`, and that is released here
//! otherwise (on drop).

use core::mem::size_of;
use core::ptr;

use crate::alloc::Allocator;
use crate::walk::{self, Scratch};
use crate::Error;

use super::heapsort;

/// The rows a predicate picked, one bit each.
pub(crate) struct Marks {
    words: *mut u64,
    bytes: usize,
    alloc: Allocator,
}

impl Marks {
    /// Asks `pick(row)` about rows `0 .. n` inside a walk of the structure
    /// at `walked`; `None` when it picked none. Fails before asking if the
    /// bitmap cannot be allocated or the walk cannot start.
    pub(crate) fn pick(
        walked: *const (),
        alloc: Allocator,
        n: u32,
        mut pick: impl FnMut(u32) -> bool,
    ) -> Result<Option<Marks>, Error> {
        let words = (n as usize).div_ceil(64).max(1);
        let bytes = words * size_of::<u64>();
        let marks = Marks {
            words: alloc.alloc_zeroed(words, size_of::<u64>())?.cast(),
            bytes,
            alloc,
        };
        let scratch = [marks.scratch(), Scratch::NONE];
        let mut any = false;
        walk::walk(walked, scratch, || {
            for row in 0..n {
                if pick(row) {
                    // SAFETY: `row / 64` is below `words`.
                    unsafe { *marks.words.add(row as usize / 64) |= 1 << (row % 64) };
                    any = true;
                }
            }
        })?;
        Ok(any.then_some(marks))
    }

    /// Whether `row` was picked.
    pub(crate) fn has(&self, row: u32) -> bool {
        // SAFETY: rows asked about are below `n`: `row / 64` below `words`.
        unsafe { *self.words.add(row as usize / 64) >> (row % 64) & 1 == 1 }
    }

    fn scratch(&self) -> Scratch {
        Scratch {
            block: self.words.cast(),
            bytes: self.bytes,
            alloc: self.alloc,
        }
    }
}

impl Drop for Marks {
    fn drop(&mut self) {
        // SAFETY: allocated in `pick` from this allocator; no walk holds it.
        unsafe { self.alloc.free(self.words.cast(), self.bytes) }
    }
}

/// A sort's scratch: the order of rows `0 .. n`, and a new block to
/// gather them into.
pub(crate) struct Sorted {
    perm: *mut u32,
    n: usize,
    block: *mut u8,
    block_bytes: usize,
    alloc: Allocator,
}

impl Sorted {
    /// Orders rows `0 .. n` (`n >= 2`) by `less` over their column-0
    /// elements (`size0` bytes each from `col0`) inside a walk of the
    /// structure at `walked`, and allocates a block of `block_bytes` for
    /// the caller to gather the rows into; all or nothing.
    pub(crate) fn sort(
        walked: *const (),
        alloc: Allocator,
        n: u32,
        (col0, size0): (*const u8, usize),
        block_bytes: usize,
        mut less: impl FnMut(*const u8, *const u8) -> bool,
    ) -> Result<Sorted, Error> {
        let n = n as usize;
        let perm = alloc.alloc(n * size_of::<u32>())?.cast::<u32>();
        let mut sorted = Sorted {
            perm,
            n,
            block: ptr::null_mut(),
            block_bytes,
            alloc,
        };
        sorted.block = alloc.alloc(block_bytes)?;
        // SAFETY: `perm` holds `n` u32s, initialized here before use.
        let order = unsafe {
            for i in 0..n {
                perm.add(i).write(i as u32);
            }
            core::slice::from_raw_parts_mut(perm, n)
        };
        let scratch = [
            Scratch {
                block: perm.cast(),
                bytes: n * size_of::<u32>(),
                alloc,
            },
            Scratch {
                block: sorted.block,
                bytes: block_bytes,
                alloc,
            },
        ];
        walk::walk(walked, scratch, || {
            heapsort(order, |a, b| {
                less(
                    col0.wrapping_add(a as usize * size0),
                    col0.wrapping_add(b as usize * size0),
                )
            })
        })?;
        Ok(sorted)
    }

    /// New row `i` is old row `order()[i]`.
    pub(crate) fn order(&self) -> &[u32] {
        // SAFETY: `perm` holds `n` initialized u32s.
        unsafe { core::slice::from_raw_parts(self.perm, self.n) }
    }

    /// The new block, which the caller now owns.
    pub(crate) fn take_block(&mut self) -> *mut u8 {
        core::mem::replace(&mut self.block, ptr::null_mut())
    }
}

impl Drop for Sorted {
    fn drop(&mut self) {
        // SAFETY: allocated in `sort` from this allocator; the block only
        // if the caller did not take it; no walk holds either.
        unsafe {
            self.alloc.free(self.perm.cast(), self.n * size_of::<u32>());
            self.alloc.free(self.block, self.block_bytes);
        }
    }
}
