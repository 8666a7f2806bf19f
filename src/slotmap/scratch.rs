//! Sorting dense rows, shared by the slotmap and the sparse sets: the
//! comparator's walk over an order of the rows, then the order applied in
//! place.
//!
//! A sort needs one array beside the rows while the comparator runs: the
//! order, a `u32` per row. It is **scratch** that belongs to the
//! structure, not to the sort's frame, so that a comparator that leaves
//! the sort with `longjmp` (or ends its thread) leaks nothing: the
//! structure keeps it, takes it back at its next sort, and releases it at
//! `free`. A sort that runs to its end releases it at once.
//!
//! A sort is a change (SPEC §3c): it bumps the structure's epoch before
//! the comparator first runs, so that any walk of the structure that
//! holds the scratch from an earlier sort (left by `longjmp`, or
//! suspended on another fiber) sees the change and stops without touching
//! it again, and the scratch may be released. The comparator may call
//! anything; after each of its answers the sort compares the epoch, and
//! stops with nothing reordered if it moved.

use core::mem::size_of;
use core::ptr;

use crate::alloc::Allocator;
use crate::guard::Guard;
use crate::stamp::Header;
use crate::Error;

use super::MAX_COLUMNS;

/// A structure's scratch block (none: NULL). The block's first word is
/// its size in bytes, as allocated; the data follows.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct Scratch {
    block: *mut u8,
}

/// The block's header: its size.
const HEADER: usize = size_of::<usize>();

impl Scratch {
    pub(crate) const NONE: Scratch = Scratch {
        block: ptr::null_mut(),
    };

    pub(crate) fn is_none(&self) -> bool {
        self.block.is_null()
    }

    /// A new block with room for `bytes` of data, from `alloc`.
    fn new(alloc: &Allocator, bytes: usize) -> Result<Scratch, Error> {
        let size = bytes.checked_add(HEADER).ok_or(Error::Full)?;
        let block = alloc.alloc(size)?;
        // SAFETY: the block has room for its header, aligned to 8.
        unsafe { block.cast::<usize>().write(size) };
        Ok(Scratch { block })
    }

    /// The data after the header.
    fn data(&self) -> *mut u8 {
        self.block.wrapping_add(HEADER)
    }

    /// Releases the block, if any, to `alloc`, which gave it.
    pub(crate) fn release(&mut self, alloc: &Allocator) {
        if self.block.is_null() {
            return;
        }
        // SAFETY: the block came from `alloc`, with the size its header
        // holds; nothing reads it any more (see the module docs).
        unsafe { alloc.free(self.block, self.block.cast::<usize>().read()) };
        *self = Scratch::NONE;
    }
}

/// What a row is made of: each column's base and element size, then the
/// trailer's (the slotmap's reverse map, a set's keys); `.1` of them.
pub(crate) type Parts = ([(*mut u8, usize); MAX_COLUMNS + 1], usize);

/// `Parts` of `columns` and the trailer.
pub(crate) fn parts(
    columns: impl Iterator<Item = (*mut u8, usize)>,
    trailer: (*mut u8, usize),
) -> Parts {
    let mut parts = [(ptr::null_mut(), 0); MAX_COLUMNS + 1];
    let mut n = 0;
    for (p, c) in parts
        .iter_mut()
        .zip(columns.take(MAX_COLUMNS).chain([trailer]))
    {
        *p = c;
        n += 1;
    }
    (parts, n)
}

/// What a sort needs of the structure it sorts (its length and epoch
/// come from its `Header`).
pub(crate) trait Sortable: Header {
    fn bump_epoch(&mut self);
    fn allocator(&self) -> Allocator;
    fn scratch(&mut self) -> &mut Scratch;
    /// Column 0's base and element size.
    fn column0(&self) -> (*const u8, usize);
    /// The rows' parts, to move rows by.
    fn parts(&self) -> Parts;
    /// Points every key at its row, after the rows moved.
    fn repoint(&mut self);
}

/// Reorders the rows of `this` by column 0 so that rows for which
/// `less(a, b)` holds come first. `Ok` with nothing done below two rows;
/// `Err(Alloc)` with nothing changed; `Err(Invalid)` when the comparator
/// changed the structure (the rows then keep the order they had). What
/// could panic (the allocation, moving the rows) runs under `G`, before
/// and after the comparator runs, never around it.
///
/// # Safety
/// `this` points to a live structure, which only `less` modifies while
/// the sort runs.
pub(crate) unsafe fn sort<G: Guard, S: Sortable>(
    this: *mut S,
    mut less: impl FnMut(*const u8, *const u8) -> bool,
) -> Result<(), Error> {
    // SAFETY: `this` is live; this look ends before `less` first runs.
    let n = unsafe { (*this).count() } as usize;
    if n < 2 {
        return Ok(());
    }
    let mut order = ptr::null_mut::<u32>();
    G::run(|| {
        // SAFETY: as above.
        let s = unsafe { &mut *this };
        let alloc = s.allocator();
        let new = Scratch::new(&alloc, n * size_of::<u32>())?;
        order = new.data().cast::<u32>();
        for i in 0..n {
            // SAFETY: the block holds `n` u32s.
            unsafe { order.add(i).write(i as u32) };
        }
        let mut old = core::mem::replace(s.scratch(), new);
        old.release(&alloc);
        s.bump_epoch();
        Ok(())
    })?;
    // SAFETY: as above.
    let (stamp, (col0, size0)) = unsafe { ((*this).epoch(), (*this).column0()) };
    // SAFETY: the block holds the `n` u32s, which only the sort uses
    // until the structure changes.
    let sorted = unsafe {
        heapsort(order, n, |a, b| {
            let answer = less(
                col0.wrapping_add(a as usize * size0),
                col0.wrapping_add(b as usize * size0),
            );
            // SAFETY: `this` is live; the look ends here.
            ((*this).epoch() == stamp).then_some(answer)
        })
    };
    if !sorted {
        // The comparator changed the structure: the scratch may be
        // another sort's now; the next sort or `free` releases it.
        return Err(Error::Invalid);
    }
    G::run(|| {
        // SAFETY: unchanged since the sort began: the scratch is this
        // sort's, holding the permutation of `0 .. n`.
        unsafe {
            let s = &mut *this;
            let (parts, count) = s.parts();
            permute(
                &parts[..count.min(MAX_COLUMNS + 1)],
                core::slice::from_raw_parts_mut(order, n),
            );
            s.repoint();
            let alloc = s.allocator();
            s.scratch().release(&alloc);
        }
        Ok(())
    })
}

/// Sorts `v[0 .. n]` in place by `less` (heapsort: no allocation,
/// O(n log n) comparisons, no panic even if `less` is not a consistent
/// order). `less` answers `None` to stop at once: the sort then returns
/// false without touching `v` again.
///
/// # Safety
/// `v` holds `n` initialized u32s that nothing else accesses during the
/// sort, except after `less` answered `None`.
pub(crate) unsafe fn heapsort(
    v: *mut u32,
    n: usize,
    mut less: impl FnMut(u32, u32) -> Option<bool>,
) -> bool {
    // SAFETY (every `v.add(i)`): `i < n`, as `sift`'s bounds keep it.
    let mut sift = |root: usize, end: usize| -> bool {
        let mut root = root;
        loop {
            let mut child = 2 * root + 1;
            if child >= end {
                return true;
            }
            unsafe {
                if child + 1 < end {
                    match less(*v.add(child), *v.add(child + 1)) {
                        None => return false,
                        Some(true) => child += 1,
                        Some(false) => {}
                    }
                }
                match less(*v.add(root), *v.add(child)) {
                    None => return false,
                    Some(false) => return true,
                    Some(true) => ptr::swap(v.add(root), v.add(child)),
                }
            }
            root = child;
        }
    };
    for i in (0..n / 2).rev() {
        if !sift(i, n) {
            return false;
        }
    }
    for end in (1..n).rev() {
        // SAFETY: `end < n`.
        unsafe { ptr::swap(v, v.add(end)) };
        if !sift(0, end) {
            return false;
        }
    }
    true
}

/// Applies `order` in place to rows of `width` bytes a row in each of
/// `parts` (a column or a trailer: its base and element size), so that new
/// row `i` is old row `order[i]`: each cycle of the permutation is
/// followed with swaps, and `order[i]` set to `i` once row `i` holds its
/// row, which marks it done.
///
/// # Safety
/// Each part holds at least `order.len()` elements; `order` is a
/// permutation of `0 .. order.len()`.
unsafe fn permute(parts: &[(*mut u8, usize)], order: &mut [u32]) {
    let (n, order) = (order.len(), order.as_mut_ptr());
    for i in 0..n {
        let mut cur = i;
        loop {
            // SAFETY: `cur < n`: `i` is, and so is every entry.
            let next = unsafe { core::mem::replace(&mut *order.add(cur), cur as u32) } as usize;
            if next == i {
                break;
            }
            for &(base, size) in parts {
                // SAFETY: `cur` and `next` are distinct rows below `n`.
                unsafe {
                    ptr::swap_nonoverlapping(base.add(cur * size), base.add(next * size), size)
                };
            }
            cur = next;
        }
    }
}
