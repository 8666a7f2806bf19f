//! Bulk operations: walks, erase_if, sort, clear, free and clone.

use core::ptr;

use crate::alloc::Allocator;
use crate::guard::Guard;
use crate::stamp::{walk_rows, Header, Rows};
use crate::Error;

use super::columns::base_of;
use super::scratch::{self, Parts, Scratch, Sortable};
use super::{Link, SlotMap, COLUMN_ALIGN, NONE};

impl SlotMap {
    /// Calls `f(key, row)` for every row in dense order until it returns
    /// non-zero, as a walk (SPEC §3c, `crate::stamp::walk_rows`): `f` may
    /// call anything on this slotmap. The non-zero value, `Ok(0)` after
    /// the last row, or `Err(Invalid)` when `f` changed the slotmap
    /// otherwise than by erasing the key it was given.
    ///
    /// # Safety
    /// `this` points to a live slotmap.
    pub unsafe fn each(
        this: *const SlotMap,
        f: impl FnMut(u64, *mut u8) -> i32,
    ) -> Result<i32, Error> {
        // SAFETY: the caller's guarantee; a walk without `ERASE` writes
        // nothing.
        unsafe { walk_rows::<SlotMap, false>(this.cast_mut(), f) }
    }

    /// Erases every row for which `pred(key, row)` is non-zero, as the walk
    /// goes (swap-and-pop: the walk stays on the row, which now holds the
    /// last one). A walk as `each` is.
    ///
    /// # Safety
    /// `this` points to a live slotmap.
    pub unsafe fn erase_if(
        this: *mut SlotMap,
        pred: impl FnMut(u64, *mut u8) -> i32,
    ) -> Result<(), Error> {
        // SAFETY: the caller's guarantee.
        unsafe { walk_rows::<SlotMap, true>(this, pred) }.map(|_| ())
    }

    /// Reorders rows by column 0 so that `less(a, b)` rows come first;
    /// every key stays valid (`scratch::sort`).
    ///
    /// # Safety
    /// `this` points to a live slotmap.
    pub unsafe fn sort<G: Guard>(
        this: *mut SlotMap,
        less: impl FnMut(*const u8, *const u8) -> bool,
    ) -> Result<(), Error> {
        // SAFETY: the caller's guarantee.
        unsafe { scratch::sort::<G, _>(this, less) }
    }

    /// Removes every row; every old key becomes stale; capacity stays.
    pub fn clear(&mut self) {
        for row in (0..self.len).rev() {
            // SAFETY: rows below `len` have a reverse entry.
            let slot = unsafe { *self.reverse().add(row as usize) };
            self.vacate(slot);
        }
        self.len = 0;
        self.bump_epoch();
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
            self.versions.next_era(self.max_version());
        }
        // SAFETY: both came from this allocator and are dropped here.
        unsafe {
            self.alloc.free(self.block, self.block_bytes());
            self.alloc.free(self.sparse.cast(), self.sparse_bytes());
        }
        let alloc = self.alloc;
        self.scratch.release(&alloc);
        self.bump_epoch();
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
        if !self.block.is_null() || !self.sparse.is_null() || !self.scratch.is_none() {
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
            epoch: crate::seed::stamp(),
            scratch: Scratch::NONE,
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

impl Header for SlotMap {
    fn epoch(&self) -> u64 {
        self.epoch
    }

    fn count(&self) -> u64 {
        self.len as u64
    }
}

impl Rows for SlotMap {
    fn key_at(&self, r: u32) -> Option<u64> {
        SlotMap::key_at(self, r)
    }

    fn element(&self, r: u32) -> *mut u8 {
        SlotMap::element(self, r)
    }

    fn has(&self, key: u64) -> bool {
        self.row_of(key).is_some()
    }

    fn erase_row(&mut self, r: u32) {
        if let Some(key) = SlotMap::key_at(self, r) {
            // A row's key is valid: the erase cannot fail.
            let _ = self.erase(key);
        }
    }
}

impl Sortable for SlotMap {
    fn bump_epoch(&mut self) {
        SlotMap::bump_epoch(self)
    }

    fn allocator(&self) -> Allocator {
        self.alloc
    }

    fn scratch(&mut self) -> &mut Scratch {
        &mut self.scratch
    }

    fn column0(&self) -> (*const u8, usize) {
        (self.col0, self.sizes[0] as usize)
    }

    fn parts(&self) -> Parts {
        let columns = self.sizes().iter().enumerate();
        scratch::parts(
            columns.map(|(c, &size)| (self.column(c), size as usize)),
            (self.rev.cast(), size_of::<u32>()),
        )
    }

    fn repoint(&mut self) {
        for to in 0..self.len {
            // SAFETY: the reverse map holds `len` entries: the slot of
            // each row learns its row.
            let slot = unsafe { *self.rev.add(to as usize) };
            self.slot_mut(slot).link = to;
        }
    }
}
