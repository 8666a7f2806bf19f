//! Growth: making room in a table for one more key, in one rebuild of at
//! most 1024 entries (prune, double, split, or switch the layout).
//!
//! A rebuild rehashes every entry it moves (a general table's keys are
//! read again); a split moves at most 896 (7/8 of 1024). The one piece of
//! an insert's work that grows with the map is a directory doubling, a
//! copy of pointers, as in Go.

use crate::directory::{Directory, MAX_DEPTH};
use crate::group::SLOTS;
use crate::layout::Kind;
use crate::table::{Table, FIRST_CAPACITY, MAX_CAPACITY};
use crate::Error;

use super::{Map, Mode};

impl Map {
    /// The first table of a map in empty mode: a small map's single group,
    /// in the layout of its first key. A zero-filled map, which never had
    /// `slate()`, draws its seed now.
    pub(super) fn first_table(&mut self, kind: Kind) -> Result<(), Error> {
        debug_assert_eq!(self.mode, Mode::Empty);
        self.root = Table::new(&self.alloc, SLOTS, 0, kind)?.cast();
        self.mode = Mode::Small;
        self.set_depth(0);
        self.took_kind(kind);
        self.ensure_seed();
        Ok(())
    }

    /// Makes room in table `tp` for a key of kind `key_kind`. This is where
    /// the layout rule lives: an empty table takes the layout of the key
    /// that arrives, in place when its memory allows. Otherwise one rebuild
    /// (moving at most 1024 entries) gives the table the layout that holds
    /// the key (an integer table of another kind turns general) and, when
    /// it is full, the room too: it is pruned of tombstones, doubled or
    /// split. Everything is allocated before anything changes, so a failure
    /// leaves the map as it was, layout included.
    pub(super) fn make_room(&mut self, tp: *mut Table, key_kind: Kind) -> Result<(), Error> {
        let kind = self.change_table(tp, key_kind)?;
        self.took_kind(kind);
        // Entries may have moved (even if the insert fails after this):
        // cursors are stale.
        self.bump_epoch();
        Ok(())
    }

    /// `make_room`, but for telling cursors and `uniform`: the kind the
    /// table (or the tables replacing it) now has.
    fn change_table(&mut self, tp: *mut Table, key_kind: Kind) -> Result<Kind, Error> {
        // SAFETY: `tp` is a live table of this map.
        let t = unsafe { &*tp };
        if t.used() == 0 && t.kind() != key_kind && t.fits(key_kind) {
            self.rekind(tp, key_kind);
            return Ok(key_kind);
        }
        let kind = if t.kind() == Kind::Bytes || t.kind() == key_kind {
            t.kind()
        } else {
            Kind::Bytes
        };
        let capacity = t.capacity() as usize;
        let full = t.growth_left() == 0;
        let made = if self.mode == Mode::Small {
            if full {
                self.small_to_directory(kind)
            } else {
                self.rebuild_small(tp, kind)
            }
        } else if !full || t.tombstones() * 10 >= capacity {
            self.rebuild_table(tp, capacity, kind)
        } else if capacity < MAX_CAPACITY {
            self.rebuild_table(tp, capacity * 2, kind)
        } else {
            self.split(tp, kind)
        };
        made.map(|()| kind)
    }

    /// Switches the empty table `tp` to `kind`'s layout, which it has room
    /// for (see [`Table::rekind`]).
    fn rekind(&mut self, tp: *mut Table, kind: Kind) {
        // SAFETY: `tp` is a live table of this map; no reference to it is
        // held.
        unsafe { (*tp).rekind(kind) };
        if self.mode == Mode::Dir {
            let mut dir = self.dir();
            // SAFETY: as above; its entries now carry the new kind.
            unsafe {
                let (first, depth) = ((*tp).index() as usize, (*tp).local_depth());
                dir.fill(first, dir.span(depth), tp);
            }
        }
    }

    /// Rebuilds a small map's table, which has room, in the layout `kind`.
    pub(super) fn rebuild_small(&mut self, tp: *mut Table, kind: Kind) -> Result<(), Error> {
        let new = Table::new(&self.alloc, SLOTS, 0, kind)?;
        // SAFETY: both tables are live; `tp` is freed once its entries moved.
        unsafe {
            (*tp).move_into(self.seed.get(), |_| new);
            Table::free(tp, &self.alloc);
        }
        self.root = new.cast();
        Ok(())
    }

    /// Replaces table `tp` by one of `capacity` slots of `kind` holding its
    /// entries.
    pub(super) fn rebuild_table(
        &mut self,
        tp: *mut Table,
        capacity: usize,
        kind: Kind,
    ) -> Result<(), Error> {
        // SAFETY: `tp` is a live table of this map.
        let t = unsafe { &*tp };
        let new = Table::new(&self.alloc, capacity, t.local_depth(), kind)?;
        let mut dir = self.dir();
        // SAFETY: `new` is live and sized for `t`'s entries; after the
        // move, `tp` is no longer referenced by the directory.
        unsafe {
            t.move_into(self.seed.get(), |_| new);
            dir.replace(tp, new);
            Table::free(tp, &self.alloc);
        }
        Ok(())
    }

    /// The ninth entry: the single group becomes a table of `kind` in a
    /// directory.
    pub(super) fn small_to_directory(&mut self, kind: Kind) -> Result<(), Error> {
        let tp: *mut Table = self.root.cast();
        let new = Table::new(&self.alloc, FIRST_CAPACITY, 0, kind)?;
        let mut dir = match Directory::new(&self.alloc, 0) {
            Ok(dir) => dir,
            Err(e) => {
                // SAFETY: `new` was just allocated and is unused.
                unsafe { Table::free(new, &self.alloc) };
                return Err(e);
            }
        };
        // SAFETY: both tables are live; `tp` is freed once its entries moved.
        unsafe {
            (*tp).move_into(self.seed.get(), |_| new);
            Table::free(tp, &self.alloc);
        }
        // SAFETY: `new` is live.
        unsafe { dir.fill(0, 1, new) };
        self.root = dir.array.cast();
        self.mode = Mode::Dir;
        self.set_depth(0);
        Ok(())
    }

    /// Splits a full 1024-slot table in two tables of `kind` by the next
    /// hash bit.
    pub(super) fn split(&mut self, tp: *mut Table, kind: Kind) -> Result<(), Error> {
        // `tp` is read through the raw pointer throughout: doubling the
        // directory writes its `index`, so no reference to it may live
        // across that.
        // SAFETY: `tp` is a live table of this map.
        let depth = unsafe { (*tp).local_depth() };
        let global = self.global_depth() as u32;
        if depth == global && global >= MAX_DEPTH {
            return Err(Error::Full);
        }
        // Allocate everything first: a failure changes nothing.
        let left = Table::new(&self.alloc, MAX_CAPACITY, depth + 1, kind)?;
        let right = match Table::new(&self.alloc, MAX_CAPACITY, depth + 1, kind) {
            Ok(t) => t,
            Err(e) => {
                // SAFETY: `left` is unused.
                unsafe { Table::free(left, &self.alloc) };
                return Err(e);
            }
        };
        let bigger = if depth == global {
            match Directory::new(&self.alloc, global + 1) {
                Ok(d) => Some(d),
                Err(e) => {
                    // SAFETY: both are unused.
                    unsafe {
                        Table::free(left, &self.alloc);
                        Table::free(right, &self.alloc);
                    }
                    return Err(e);
                }
            }
        } else {
            None
        };
        let bit = 1u64 << (63 - depth);
        // SAFETY: `left` and `right` are live, each with room for all of
        // `t`'s entries.
        unsafe { (*tp).move_into(self.seed.get(), |h| if h & bit == 0 { left } else { right }) };
        let mut dir = self.dir();
        if let Some(mut bigger) = bigger {
            // SAFETY: every entry of the old directory is a live table; the
            // old directory is freed once copied.
            unsafe {
                dir.double_into(&mut bigger);
                dir.free(&self.alloc);
            }
            dir = bigger;
            self.root = dir.array.cast();
            self.set_depth(self.global_depth() + 1);
        }
        // SAFETY: `tp` is still live (freed below).
        let first = unsafe { (*tp).index() } as usize;
        let half = dir.span(depth + 1);
        // SAFETY: the halves are live; `tp` is unreferenced once replaced.
        unsafe {
            (*left).set_index(first as u32);
            (*right).set_index((first + half) as u32);
            dir.fill(first, half, left);
            dir.fill(first + half, half, right);
            Table::free(tp, &self.alloc);
        }
        Ok(())
    }
}
