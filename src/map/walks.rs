//! Walks: the entries in table, group and slot order, with a cursor that
//! survives deletions (`delete_if`).

use core::ffi::c_void;

use crate::layout::{on_layout, Layout};
use crate::probe::Typed;
use crate::table::Table;
use crate::walk;
use crate::Error;

use super::{Map, Mode};

/// A full slot, as a walk finds it.
#[derive(Clone, Copy)]
pub struct Full {
    pub table: *mut Table,
    pub group: usize,
    pub slot: usize,
}

/// A walk's position: the directory entry, group and slot to look at next.
/// Any value is safe to walk from: each is checked against the map.
/// (Group and slot are `u32`: a cursor of `slate_iter_s` holds one.)
#[derive(Default, Clone, Copy)]
#[repr(C)]
pub struct Cursor {
    entry: usize,
    group: u32,
    slot: u32,
}

impl Cursor {
    /// The position of the full slot that `next_full` gave last, which is
    /// just before `self`: `(directory entry, group, slot)`.
    pub fn last(&self) -> (usize, usize, usize) {
        (
            self.entry,
            self.group as usize,
            (self.slot as usize).wrapping_sub(1),
        )
    }
}

impl Map {
    /// Erases the full slot `e` that a walk found, releasing its key: one
    /// entry fewer, and cursors go stale. (The caller reseeds a map left
    /// empty when its walk is over.)
    ///
    /// # Safety
    /// `e` is a full slot of a live table of this map.
    pub(super) unsafe fn erase_full(&mut self, e: Full) {
        // SAFETY: the caller's guarantee; the slot owns its key.
        unsafe { (*e.table).erase_and_release(e.group, e.slot, &self.alloc) };
        self.len -= 1;
        self.bump_epoch();
    }

    /// The table at directory entry `entry` (a small map's at 0), if any.
    pub(super) fn table_at(&self, entry: usize) -> Option<*mut Table> {
        match self.mode {
            Mode::Small if entry == 0 => Some(self.root.cast::<Table>()),
            Mode::Dir if entry < self.dir().entries() => Some(self.dir().get(entry)),
            _ => None,
        }
    }

    /// The next full slot at or after `c`.
    pub fn next_full(&self, c: &mut Cursor) -> Option<Full> {
        loop {
            let tp = self.table_at(c.entry)?;
            // SAFETY: a live table of this map.
            let t = unsafe { &*tp };
            while (c.group as usize) < t.group_count() {
                let g = c.group as usize;
                let full = t.ctrl(g).match_full();
                if let Some(i) = full.into_iter().find(|&i| i >= c.slot as usize) {
                    c.slot = i as u32 + 1;
                    return Some(Full {
                        table: tp,
                        group: g,
                        slot: i,
                    });
                }
                c.group += 1;
                c.slot = 0;
            }
            c.group = 0;
            c.slot = 0;
            c.entry += if self.mode == Mode::Small {
                1
            } else {
                self.dir().span(t.local_depth())
            };
        }
    }

    /// Calls `f` with every entry until it returns non-zero; returns that
    /// value, or 0, as a walk of the map (`f` may call into the library).
    /// `Error::Full` when this thread is nested too deep in walks.
    pub fn each(&self, f: impl FnMut(&[u8], *mut c_void) -> i32) -> Result<i32, Error> {
        walk::walk((self as *const Map).cast(), walk::NO_SCRATCH, || {
            self.visit(f)
        })
    }

    /// `each` for an `f` that does not call into the library: no walk is
    /// registered. Walks tables in directory order, then groups, then the
    /// full slots of each control word (the order `next_full` follows).
    pub fn visit(&self, mut f: impl FnMut(&[u8], *mut c_void) -> i32) -> i32 {
        for tp in self.tables() {
            // SAFETY: a live table; `f` cannot modify the map (the C
            // layer refuses while this thread walks it, and `visit`'s
            // own callers call nothing that could).
            let kind = unsafe { (*tp).kind() };
            // SAFETY: a live table in its kind's layout, only read; full
            // slots hold live keys. An integer key is shown as its
            // encoding, from a buffer that lives for the call.
            let r = on_layout!(kind, L => unsafe {
                Typed::<L>::of(tp).walk(|s| L::with_bytes(kind, s, |key| f(key, L::value(s))))
            });
            if r != 0 {
                return r;
            }
        }
        0
    }

    /// Deletes every entry for which `pred` returns non-zero.
    ///
    /// Takes a raw pointer because `pred` may read the map (through the C
    /// API) while the walk is in progress: no reference to the map is held
    /// across a call of `pred`.
    ///
    /// # Safety
    /// `this` points to a live map.
    pub unsafe fn delete_if(
        this: *mut Map,
        mut pred: impl FnMut(&[u8], *mut c_void) -> i32,
    ) -> Result<(), Error> {
        let mut c = Cursor::default();
        let mut deleted = false;
        walk::walk(this.cast_const().cast(), walk::NO_SCRATCH, || {
            // SAFETY: a shared look, released before `pred` runs.
            while let Some(e) = unsafe { (*this).next_full(&mut c) } {
                // SAFETY: a full slot of a live table; erasing other slots does
                // not move it.
                // Full slots hold live keys.
                let hit = unsafe { (*e.table).with_entry(e.group, e.slot, &mut pred) } != 0;
                if hit {
                    // SAFETY: `pred` returned; nothing else refers to the map.
                    // A full slot of a live table of this map.
                    unsafe { (*this).erase_full(e) };
                    deleted = true;
                }
            }
        })?;
        // SAFETY: no walk callback is running any more.
        unsafe {
            if deleted && (*this).len == 0 {
                (*this).reseed();
            }
        }
        Ok(())
    }
}
