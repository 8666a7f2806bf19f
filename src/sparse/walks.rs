//! Walks over a set's rows (`each`, `erase_if`, `sort`) and its batch
//! lookup.
//!
//! Walks take a raw pointer: a callback may read the set through the C API,
//! and `each`'s may erase the key it was given, so no reference to the set
//! is held across a callback. Each row's fields are read afresh after one.

use core::ptr;

use super::{Sparse, View, KEY};
use crate::prefetch::prefetch;
use crate::slotmap::columns::{base_of, gather_rows};
use crate::slotmap::scratch::{Marks, Sorted};
use crate::walk;
use crate::Error;

/// Keys per chunk of a batch lookup.
const CHUNK: usize = 16;

impl Sparse {
    /// Calls `f(key, element)` for every row in dense order until it
    /// returns non-zero; returns that value or 0. `f` may erase the key it
    /// was given: the walk then stays on the row that swap-and-pop
    /// refilled. `Error::Full` when this thread is nested too deep in
    /// walks.
    ///
    /// # Safety
    /// `this` points to a live set.
    pub unsafe fn each(
        this: *const Sparse,
        mut f: impl FnMut(u64, *mut u8) -> i32,
    ) -> Result<i32, Error> {
        walk::walk_marked(this.cast(), walk::NO_SCRATCH, |mark| {
            let mut r = 0u32;
            loop {
                // SAFETY: `this` is live; this look ends before `f` runs.
                let (key, element) = unsafe {
                    let s = &*this;
                    match s.key_at(r) {
                        Some(key) => (key, s.element(r)),
                        None => return 0,
                    }
                };
                mark.give(key);
                let rc = f(key, element);
                if rc != 0 {
                    return rc;
                }
                // SAFETY: as above.
                if unsafe { (*this).key_at(r) } == Some(key) {
                    r += 1;
                }
            }
        })
    }

    /// Asks `pred(key, element)` about every row (in dense order), then
    /// erases the rows it answered non-zero for, in one pass. The
    /// predicate may not modify the set.
    ///
    /// # Safety
    /// `this` points to a live set.
    pub unsafe fn erase_if(
        this: *mut Sparse,
        mut pred: impl FnMut(u64, *mut u8) -> i32,
    ) -> Result<(), Error> {
        // SAFETY: `this` is live; shared looks end before each `pred` call.
        let (n, alloc) = unsafe { ((*this).len, (*this).alloc) };
        if n == 0 {
            return Ok(());
        }
        let marks = Marks::pick(this.cast_const().cast(), alloc, n, |row| {
            // SAFETY: a short shared look; `pred` cannot modify the set.
            let (key, element) = unsafe {
                let s = &*this;
                (s.key_at(row).expect("row below len"), s.element(row))
            };
            pred(key, element) != 0
        })?;
        if let Some(marks) = marks {
            // SAFETY: no callback runs any more; `this` is live.
            unsafe { (*this).retain(|row, _| !marks.has(row)) };
        }
        Ok(())
    }

    /// Reorders rows by column 0 so that `less(a, b)` rows come first;
    /// every key stays. `Error::Invalid` for a membership set (no column
    /// 0). Needs one new block (all or nothing).
    ///
    /// # Safety
    /// `this` points to a live set.
    pub unsafe fn sort(
        this: *mut Sparse,
        less: impl FnMut(*const u8, *const u8) -> bool,
    ) -> Result<(), Error> {
        // SAFETY: `this` is live; this shared look ends before `less` runs.
        let (n, cap, alloc, size0, col0, membership) = unsafe {
            let s = &*this;
            (
                s.len,
                s.cap,
                s.alloc,
                s.sizes[0] as usize,
                s.col0,
                s.is_membership(),
            )
        };
        if membership {
            return Err(Error::Invalid);
        }
        if n < 2 {
            return Ok(());
        }
        // SAFETY: as above.
        let shape = unsafe { (*this).shape(cap) }.expect("allocated shape");
        let walked = this.cast_const().cast();
        let mut sorted = Sorted::sort(walked, alloc, n, (col0, size0), shape.bytes, less)?;
        // SAFETY: no callback runs any more; `this` is live.
        let s = unsafe { &mut *this };
        let block = sorted.take_block();
        let order = sorted.order();
        // SAFETY: rows below `len` in blocks of the same shape.
        unsafe {
            gather_rows(
                base_of(s.block),
                base_of(block),
                &shape,
                s.sizes(),
                KEY,
                order,
            )
        };
        let old = s.block;
        s.adopt_block(block, cap, &shape);
        for r in 0..n {
            // SAFETY: the new block holds `n` keys.
            let key = unsafe { *s.keys.add(r as usize) };
            s.point(key, Some(r));
        }
        // SAFETY: the old block is no longer used.
        unsafe { alloc.free(old, shape.bytes) };
        Ok(())
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
    #[inline(always)]
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
