//! Walks: the entries in table, group and slot order, with a cursor that
//! survives deletions (`delete_if`).

use super::{Map, MODE_DIR, MODE_SMALL};
use core::ffi::c_void;

use crate::key::int_bytes;
use crate::seed::map_seed as fresh_seed;
use crate::table::{IntSlot, Slot, Table, KIND_BYTES};
use crate::walk;

/// A full slot, as a walk finds it.
#[derive(Clone, Copy)]
pub struct Entry {
    pub table: *mut Table,
    pub group: usize,
    pub slot: usize,
}

/// A walk's position: the directory entry, group and slot to look at next.
#[derive(Default)]
pub struct Cursor {
    entry: usize,
    group: usize,
    slot: usize,
}

impl Map {
    /// The next full slot at or after `c`.
    pub fn next_entry(&self, c: &mut Cursor) -> Option<Entry> {
        loop {
            let tp = match self.mode {
                MODE_SMALL if c.entry == 0 => self.root.cast::<Table>(),
                MODE_DIR if c.entry < self.dir().entries() => self.dir().get(c.entry),
                _ => return None,
            };
            // SAFETY: a live table of this map.
            let t = unsafe { &*tp };
            while c.group < t.group_count() {
                let full = t.ctrl(c.group).match_full();
                if let Some(i) = full.into_iter().find(|&i| i >= c.slot) {
                    c.slot = i + 1;
                    return Some(Entry {
                        table: tp,
                        group: c.group,
                        slot: i,
                    });
                }
                c.group += 1;
                c.slot = 0;
            }
            c.group = 0;
            c.slot = 0;
            c.entry += if self.mode == MODE_SMALL {
                1
            } else {
                self.dir().span(t.local_depth)
            };
        }
    }

    /// Calls `f` with every entry until it returns non-zero; returns that
    /// value, or 0. Walks tables in directory order, then groups, then the
    /// full slots of each control word (the order `next_entry` follows).
    pub fn each(&self, mut f: impl FnMut(&[u8], *mut c_void) -> i32) -> i32 {
        walk::walk((self as *const Map).cast(), || {
            for tp in self.tables() {
                // SAFETY: a live table; `f` cannot modify the map (the C
                // layer refuses while this thread walks it).
                let t = unsafe { &*tp };
                let r = if t.kind == KIND_BYTES {
                    // SAFETY: full slots hold live keys.
                    t.walk::<Slot>(|s| f(unsafe { s.key.bytes() }, s.value))
                } else {
                    // An integer key is shown as its encoding, from a buffer
                    // that lives for the call.
                    let tag = t.kind as u8;
                    t.walk::<IntSlot>(|s| f(&int_bytes(tag, s.key), s.value))
                };
                if r != 0 {
                    return r;
                }
            }
            0
        })
    }

    /// Deletes every entry for which `pred` returns non-zero.
    ///
    /// Takes a raw pointer because `pred` may read the map (through the C
    /// API) while the walk is in progress: no reference to the map is held
    /// across a call of `pred`.
    ///
    /// # Safety
    /// `this` points to a live map.
    pub unsafe fn delete_if(this: *mut Map, mut pred: impl FnMut(&[u8], *mut c_void) -> i32) {
        let mut c = Cursor::default();
        let mut deleted = false;
        walk::walk(this.cast_const().cast(), || {
            // SAFETY: a shared look, released before `pred` runs.
            while let Some(e) = unsafe { (*this).next_entry(&mut c) } {
                // SAFETY: a full slot of a live table; erasing other slots does
                // not move it.
                let slot = unsafe { (*e.table).entry(e.group, e.slot) };
                // SAFETY: full slots hold live keys.
                if pred(unsafe { slot.key.bytes() }, slot.value) != 0 {
                    // SAFETY: `pred` returned; nothing else refers to the map.
                    // The erased slot owned its key.
                    unsafe {
                        let key = (*e.table).erase(e.group, e.slot);
                        key.release(&(*this).alloc);
                        (*this).len -= 1;
                    }
                    deleted = true;
                }
            }
        });
        // SAFETY: no walk callback is running any more.
        unsafe {
            if deleted && (*this).len == 0 {
                (*this).seed = fresh_seed();
            }
        }
    }
}
