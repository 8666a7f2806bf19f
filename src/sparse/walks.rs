//! Walks over a set's rows (`each`, `erase_if`, `sort`) and its batch
//! lookup.
//!
//! The walks are the slotmap's (`crate::stamp::walk_rows`,
//! `slotmap::scratch::sort`): a callback may call anything on the set,
//! and no reference to it is held across a callback.

use core::ptr;

use super::{Sparse, View, KEY};
use crate::alloc::Allocator;
use crate::guard::Guard;
use crate::prefetch::prefetch;
use crate::slotmap::scratch::{self, Parts, Scratch, Sortable};
use crate::stamp::{walk_rows, Header, Rows};
use crate::Error;

/// Keys per chunk of a batch lookup.
const CHUNK: usize = 16;

impl Sparse {
    /// Calls `f(key, element)` for every row in dense order until it
    /// returns non-zero, as a walk (SPEC §3c): the non-zero value, `Ok(0)`
    /// after the last row, or `Err(Invalid)` when `f` changed the set
    /// otherwise than by erasing the key it was given (the walk then stays
    /// on the row that swap-and-pop refilled).
    ///
    /// # Safety
    /// `this` points to a live set.
    pub unsafe fn each(
        this: *const Sparse,
        f: impl FnMut(u64, *mut u8) -> i32,
    ) -> Result<i32, Error> {
        // SAFETY: the caller's guarantee; a walk without `ERASE` writes
        // nothing.
        unsafe { walk_rows::<Sparse, false>(this.cast_mut(), f) }
    }

    /// Erases every row for which `pred(key, element)` is non-zero, as the
    /// walk goes (swap-and-pop); a walk as `each` is.
    ///
    /// # Safety
    /// `this` points to a live set.
    pub unsafe fn erase_if(
        this: *mut Sparse,
        pred: impl FnMut(u64, *mut u8) -> i32,
    ) -> Result<(), Error> {
        // SAFETY: the caller's guarantee.
        unsafe { walk_rows::<Sparse, true>(this, pred) }.map(|_| ())
    }

    /// Reorders rows by column 0 so that `less(a, b)` rows come first;
    /// every key stays. `Error::Invalid` for a membership set (no column
    /// 0).
    ///
    /// # Safety
    /// `this` points to a live set.
    pub unsafe fn sort<G: Guard>(
        this: *mut Sparse,
        less: impl FnMut(*const u8, *const u8) -> bool,
    ) -> Result<(), Error> {
        // SAFETY: the caller's guarantee.
        if unsafe { (*this).is_membership() } {
            return Err(Error::Invalid);
        }
        // SAFETY: the caller's guarantee.
        unsafe { scratch::sort::<G, _>(this, less) }
    }

    /// Looks up `count` keys, `key(i)` for `i < count`, and tells `found`
    /// each one's column-0 element (`None`: absent), in order: the results
    /// of `count` calls of [`Sparse::get`]. A chunk of keys goes through
    /// the lookup's dependent reads one stage at a time, each stage
    /// requesting the lines the next one reads, so that the chunk's cache
    /// misses overlap:
    ///
    /// ```text
    /// stage 1  find each key's index entry      request it
    /// stage 2  read the entry: row and check    request the element
    /// ```
    ///
    /// Allocates nothing.
    pub fn get_many(
        &self,
        count: usize,
        key: impl Fn(usize) -> u64,
        mut found: impl FnMut(usize, Option<*mut u8>),
    ) {
        let mut start = 0;
        while start < count {
            let n = (count - start).min(CHUNK);
            let mut entries = [ptr::null::<u64>(); CHUNK];
            let view = self.view();
            for (j, e) in entries.iter_mut().enumerate().take(n) {
                *e = view.entry_or_absent(key(start + j) as u32);
                prefetch(e.cast());
            }
            for (j, &e) in entries.iter().enumerate().take(n) {
                let k = key(start + j);
                // SAFETY: `k`'s entry, just found.
                let element = unsafe { View::row_at(e, k) }.map(|r| view.element(r));
                if let Some(p) = element {
                    prefetch(p);
                }
                found(start + j, element);
            }
            start += n;
        }
    }
}

impl Header for Sparse {
    fn epoch(&self) -> u64 {
        self.epoch
    }

    fn count(&self) -> u64 {
        self.len as u64
    }
}

impl Rows for Sparse {
    fn key_at(&self, r: u32) -> Option<u64> {
        Sparse::key_at(self, r)
    }

    fn element(&self, r: u32) -> *mut u8 {
        Sparse::element(self, r)
    }

    fn has(&self, key: u64) -> bool {
        self.row_of(key).is_some()
    }

    fn erase_row(&mut self, r: u32) {
        if r < self.len {
            self.remove_row(r);
        }
    }
}

impl Sortable for Sparse {
    fn bump_epoch(&mut self) {
        Sparse::bump_epoch(self)
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
            (self.keys.cast(), KEY),
        )
    }

    fn repoint(&mut self) {
        for r in 0..self.len {
            // SAFETY: the block holds `len` keys.
            let key = unsafe { *self.keys.add(r as usize) };
            self.point(key, Some(r));
        }
    }
}
