//! Bulk operations: walks, erase_if, sort, clear, free and clone.

use core::ptr;

use crate::alloc::Allocator;
use crate::walk;
use crate::Error;

use super::columns::{base_of, gather_rows};
use super::scratch::{Marks, Sorted};
use super::{Link, SlotMap, COLUMN_ALIGN, NONE};

impl SlotMap {
    /// Removes every row for which `pred(key, row)` is non-zero: first every
    /// predicate runs on the slotmap as it stands (so a predicate that reads
    /// it sees a consistent state), the decisions kept in a bitmap; then one
    /// pass compacts every column and rewrites the index for the survivors.
    /// Fails only if the bitmap cannot be allocated, before any change.
    ///
    /// Takes a raw pointer: `pred` may read the slotmap through the C API,
    /// so no reference is held across its calls.
    ///
    /// # Safety
    /// `this` points to a live slotmap.
    pub unsafe fn erase_if(
        this: *mut SlotMap,
        mut pred: impl FnMut(u64, *mut u8) -> i32,
    ) -> Result<(), Error> {
        // SAFETY: `this` is live; shared looks end before each `pred` call.
        let (n, alloc) = unsafe { ((*this).len, (*this).alloc) };
        if n == 0 {
            return Ok(());
        }
        let marks = Marks::pick(this.cast_const().cast(), alloc, n, |row| {
            // SAFETY: a short shared look; `pred` cannot modify the slotmap.
            let (key, element) = unsafe {
                let m = &*this;
                (
                    m.key_at(row).expect("row below len"),
                    m.col0.wrapping_add(row as usize * m.sizes[0] as usize),
                )
            };
            pred(key, element) != 0
        })?;
        if let Some(marks) = marks {
            // SAFETY: no callback runs any more; `this` is live.
            let m = unsafe { &mut *this };
            let mut write = 0u32;
            for read in 0..n {
                if marks.has(read) {
                    // SAFETY: rows below `len` have a reverse entry.
                    let slot = unsafe { *m.reverse().add(read as usize) };
                    m.vacate(slot);
                } else {
                    if write != read {
                        m.move_row(read, write);
                    }
                    write += 1;
                }
            }
            m.len = write;
        }
        Ok(())
    }

    /// Calls `f(key, row)` for every row in dense order until it returns
    /// non-zero; returns that value or 0. `Error::Full` when this thread is
    /// nested too deep in walks.
    pub fn each(&self, mut f: impl FnMut(u64, *mut u8) -> i32) -> Result<i32, Error> {
        walk::walk((self as *const SlotMap).cast(), walk::NO_SCRATCH, || {
            for row in 0..self.len {
                let key = self.key_at(row).expect("row below len");
                let r = f(
                    key,
                    self.col0
                        .wrapping_add(row as usize * self.sizes[0] as usize),
                );
                if r != 0 {
                    return r;
                }
            }
            0
        })
    }

    /// Reorders rows by column 0 so that `less(a, b)` rows come first;
    /// every key stays valid. Needs one new block (all or nothing).
    ///
    /// Takes a raw pointer, as `erase_if` does: `less` may read the
    /// slotmap through the C API, so no reference to it is held across
    /// its calls. (A `&mut self` held across them let the compiler assume
    /// nobody reads the slotmap meanwhile: it dropped the increment of the
    /// walk counter the slotmap then kept, and a comparator's
    /// `slotmap_sort` of the same slotmap ran inside the sort.)
    ///
    /// # Safety
    /// `this` points to a live slotmap.
    pub unsafe fn sort(
        this: *mut SlotMap,
        less: impl FnMut(*const u8, *const u8) -> bool,
    ) -> Result<(), Error> {
        // SAFETY: `this` is live; this shared look ends before `less` runs.
        let (n, cap, alloc, size0, col0) = unsafe {
            let m = &*this;
            (m.len, m.cap, m.alloc, m.sizes[0] as usize, m.col0)
        };
        if n < 2 {
            return Ok(());
        }
        // SAFETY: as above.
        let shape = unsafe { (*this).shape(cap) }.expect("allocated shape");
        let walked = this.cast_const().cast();
        let mut sorted = Sorted::sort(walked, alloc, n, (col0, size0), shape.bytes, less)?;
        // SAFETY: no callback runs any more; `this` is live.
        let m = unsafe { &mut *this };
        let block = sorted.take_block();
        // Gather every column (and the reverse map) in the new order.
        let new = base_of(block);
        // SAFETY: rows below `len` in blocks of the same shape.
        unsafe {
            gather_rows(
                m.base(),
                new,
                &shape,
                m.sizes(),
                size_of::<u32>(),
                sorted.order(),
            )
        };
        for to in 0..n {
            // SAFETY: the new reverse map holds `n` entries: the slot of
            // each row that moved learns its new row.
            let slot = unsafe { *new.add(shape.trailer).cast::<u32>().add(to as usize) };
            m.slot_mut(slot).link = to;
        }
        // SAFETY: the old block is no longer used.
        unsafe { alloc.free(m.block, shape.bytes) };
        m.block = block;
        m.col0 = new.wrapping_add(shape.offsets[0]);
        m.rev = new.wrapping_add(shape.trailer).cast();
        Ok(())
    }

    /// Removes every row; every old key becomes stale; capacity stays.
    pub fn clear(&mut self) {
        for row in (0..self.len).rev() {
            // SAFETY: rows below `len` have a reverse entry.
            let slot = unsafe { *self.reverse().add(row as usize) };
            self.vacate(slot);
        }
        self.len = 0;
    }

    /// The highest version any slot carries.
    pub(super) fn max_version(&self) -> u32 {
        (0..self.slots)
            .map(|i| self.slot(i).version)
            .max()
            .unwrap_or(0)
    }

    /// Releases everything; the slotmap stays usable and old keys stale.
    pub fn free(&mut self) {
        if self.slots > 0 {
            // New slots take versions this slotmap never handed out; if
            // none is left, inserts that need a new slot report `Full`.
            self.versions.next_epoch(self.max_version());
        }
        // SAFETY: both came from this allocator and are dropped here.
        unsafe {
            self.alloc.free(self.block, self.block_bytes());
            self.alloc.free(self.sparse.cast(), self.sparse_bytes());
        }
        self.block = ptr::null_mut();
        self.col0 = ptr::null_mut();
        self.rev = ptr::null_mut();
        self.sparse = ptr::null_mut();
        self.len = 0;
        self.cap = 0;
        self.slots = 0;
        self.slot_cap = 0;
        self.free_head = NONE;
        self.free_len = 0;
    }

    /// Gives the slotmap its own allocator (or, with
    /// [`Allocator::current`], the process default back): only while it
    /// holds no memory, since every block must go back to the allocator
    /// that gave it.
    pub fn set_allocator(&mut self, alloc: Allocator) -> Result<(), Error> {
        if !self.block.is_null() || !self.sparse.is_null() {
            return Err(Error::Invalid);
        }
        self.alloc = alloc;
        Ok(())
    }

    /// The allocator a clone of this slotmap takes.
    pub fn clone_allocator(&self) -> Allocator {
        self.alloc.for_clone()
    }

    /// An empty slotmap of the same columns, allocating through `alloc`.
    pub fn empty_like(&self, alloc: Allocator) -> SlotMap {
        SlotMap::new(&self.sizes[..self.columns as usize], alloc)
            .expect("columns already validated")
    }

    /// An independent copy (same keys, same rows) allocating through `alloc`.
    pub fn try_clone(&self, alloc: Allocator) -> Result<SlotMap, Error> {
        let mut copy = SlotMap {
            len: 0,
            cap: 0,
            slots: 0,
            slot_cap: 0,
            free_head: self.free_head,
            free_len: self.free_len,
            limit: self.limit,
            columns: self.columns,
            row_size: self.row_size,
            versions: self.versions,
            sizes: self.sizes,
            sparse: ptr::null_mut(),
            block: ptr::null_mut(),
            col0: ptr::null_mut(),
            rev: ptr::null_mut(),
            alloc,
        };
        if !self.block.is_null() {
            let shape = self.shape(self.cap).expect("allocated shape");
            let block = alloc.alloc(shape.bytes)?;
            // SAFETY: same shape; the aligned bases keep the same offsets.
            unsafe {
                ptr::copy_nonoverlapping(
                    self.base(),
                    base_of(block),
                    shape.bytes - (COLUMN_ALIGN - 1),
                )
            };
            copy.block = block;
            copy.cap = self.cap;
            copy.len = self.len;
            copy.col0 = base_of(block).wrapping_add(shape.offsets[0]);
            copy.rev = base_of(block).wrapping_add(shape.trailer).cast();
        }
        if !self.sparse.is_null() {
            let bytes = self.slot_cap as usize * size_of::<Link>();
            let sparse = match alloc.alloc(bytes) {
                Ok(p) => p.cast::<Link>(),
                Err(e) => {
                    // SAFETY: allocated above, unused.
                    unsafe { alloc.free(copy.block, copy.block_bytes()) };
                    return Err(e);
                }
            };
            // SAFETY: `slots` initialized slots fit in both.
            unsafe { ptr::copy_nonoverlapping(self.sparse, sparse, self.slots as usize) };
            copy.sparse = sparse;
            copy.slot_cap = self.slot_cap;
            copy.slots = self.slots;
        }
        Ok(copy)
    }
}

/// Sorts `v` in place by `less` (heapsort: no allocation, O(n log n), and
/// no panic even if `less` is not a consistent order).
pub(crate) fn heapsort(v: &mut [u32], mut less: impl FnMut(u32, u32) -> bool) {
    pub(super) fn sift(
        v: &mut [u32],
        mut root: usize,
        end: usize,
        less: &mut impl FnMut(u32, u32) -> bool,
    ) {
        loop {
            let mut child = 2 * root + 1;
            if child >= end {
                return;
            }
            if child + 1 < end && less(v[child], v[child + 1]) {
                child += 1;
            }
            if !less(v[root], v[child]) {
                return;
            }
            v.swap(root, child);
            root = child;
        }
    }
    let n = v.len();
    for i in (0..n / 2).rev() {
        sift(v, i, n, &mut less);
    }
    for end in (1..n).rev() {
        v.swap(0, end);
        sift(v, 0, end, &mut less);
    }
}
