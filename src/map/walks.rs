//! Walks: the entries in table, group and slot order. `each` and
//! `delete_if` are one walk (`walk`), typed per table, stamped as
//! `crate::stamp` says; cursors (`cursor.rs`) go from a position that
//! survives deletions (`next_full`).

use core::ffi::c_void;

use crate::key::INT_LEN;
use crate::layout::{on_layout, Kind, Layout};
use crate::stamp::{After, Header, Stamp};
use crate::table::Table;
use crate::table::Typed;
use crate::Error;

use super::{Map, Mode};
use crate::guard::{Bare, Guard};

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
                if let Some(i) = t.ctrl(g).match_full().from(c.slot as usize).first() {
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

    /// The key bytes, length and value of full slot `e`: the map's own
    /// bytes, or an integer key's 10-byte encoding written to `buffer`.
    ///
    /// # Safety
    /// `e` is a full slot of a live table of this map.
    pub(super) unsafe fn entry_of(e: Full, buffer: &mut [u8; 16]) -> (*const u8, u32, *mut c_void) {
        // SAFETY: the caller's guarantee: the table's kind names its
        // layout.
        let kind = unsafe { (*e.table).kind() };
        on_layout!(kind, L => unsafe { slot_entry::<L>(e, kind, buffer) })
    }

    /// `each` for an `f` that does not call into the library (equality,
    /// the tests): tables in directory order, then groups, then the full
    /// slots of each control word (the order `next_full` follows).
    pub fn visit(&self, mut f: impl FnMut(&[u8], *mut c_void) -> i32) -> i32 {
        for tp in self.tables() {
            // SAFETY: a live table; `f` does not modify the map.
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

    /// Calls `f(key, key_length, value)` for every entry until it returns
    /// non-zero, as a walk (SPEC §3c): `f` may call anything on this map.
    /// The callback's non-zero value, `Ok(0)` after the last entry, or
    /// `Err(Invalid)` when `f` changed the map otherwise than by removing
    /// the entry it was given.
    ///
    /// # Safety
    /// `this` points to a live map.
    pub unsafe fn each(
        this: *const Map,
        f: impl FnMut(*const u8, u32, *mut c_void) -> i32,
    ) -> Result<i32, Error> {
        // SAFETY: the caller's guarantee; a walk that erases nothing does
        // not write to the map.
        unsafe { walk::<Bare, false>(this.cast_mut(), f) }
    }

    /// Deletes every entry for which `pred` returns non-zero, as the walk
    /// goes (a walk as `each` is: `pred` may call anything on this map; an
    /// answer that came with a change is not applied). The erase runs
    /// under `G` (it may reseed the map, which could panic), never around
    /// `pred`.
    ///
    /// # Safety
    /// `this` points to a live map.
    pub unsafe fn delete_if<G: Guard>(
        this: *mut Map,
        pred: impl FnMut(*const u8, u32, *mut c_void) -> i32,
    ) -> Result<(), Error> {
        // SAFETY: the caller's guarantee.
        unsafe { walk::<G, true>(this, pred) }.map(|_| ())
    }
}

/// The key bytes, length and value of full slot `e`, of a table of `kind`
/// laid out in `L` (see [`Map::entry_of`]).
///
/// # Safety
/// `e` is a full slot of a live table of `kind`, laid out in `L`.
unsafe fn slot_entry<L: Layout>(
    e: Full,
    kind: Kind,
    buffer: &mut [u8; 16],
) -> (*const u8, u32, *mut c_void) {
    // SAFETY: the caller's guarantee; the slot's key is live. A general
    // slot's key bytes are in the table (or its heap copy), which outlive
    // this call.
    unsafe {
        let t = Typed::<L>::of(e.table);
        let s = t.slot(e.group, e.slot);
        L::with_bytes(kind, s, |bytes| {
            let at = if L::INT {
                let n = bytes.len().min(INT_LEN);
                buffer[..n].copy_from_slice(&bytes[..n]);
                buffer.as_ptr()
            } else {
                bytes.as_ptr()
            };
            (at, bytes.len() as u32, L::value(s))
        })
    }
}

/// The one walk of a map (SPEC §3c): `f(key, key_length, value)` for
/// every entry, in table, group and slot order, with nothing kept outside
/// this frame. After each callback the map's stamp tells what it did
/// (`crate::stamp`). `ERASE` false (`each`): a non-zero answer stops the
/// walk and is its result; `ERASE` true (`delete_if`): a non-zero answer
/// given with no change erases the entry (under `G`), one given with a
/// change is not applied. `Ok(0)` after the last entry, `Err(Invalid)`
/// after a change other than the given entry's removal.
///
/// # Safety
/// `this` points to a live map, which only `f` (and, with `ERASE`, this
/// walk) modifies while the walk runs.
unsafe fn walk<G: Guard, const ERASE: bool>(
    this: *mut Map,
    mut f: impl FnMut(*const u8, u32, *mut c_void) -> i32,
) -> Result<i32, Error> {
    let mut entry = 0;
    // The map as the next callback will find it: unchanged after a
    // callback that changed nothing (`After::Same`), taken anew after a
    // removal (`Stamp::after`, and after the walk's own erase).
    // SAFETY (each look): `this` is live; no look lasts across `f`.
    let mut stamp = Stamp::of(unsafe { &*this });
    while let Some(t) = unsafe { (*this).table_at(entry) } {
        // SAFETY: a live table of the map, in its kind's layout; the walk
        // comes back here only when the table is still live.
        let kind = unsafe { (*t).kind() };
        if let Some(r) = on_layout!(kind, L => unsafe {
            walk_table::<L, G, ERASE>(this, t, kind, &mut stamp, &mut f)
        }) {
            return r;
        }
        let m = unsafe { &*this };
        entry += match m.mode {
            Mode::Small => 1,
            _ => m.dir().span(unsafe { (*t).local_depth() }),
        };
    }
    Ok(0)
}

/// `walk` over table `t`, of `kind` laid out in `L`, from the map's
/// `stamp`: the walk's result, or `None` to go on to the next table. A
/// map's entries do not move, and the walk goes on only after no change
/// or the given entry's removal: the full slots of a group, read before
/// its first callback, stay exactly the ones to visit.
///
/// # Safety
/// As [`walk`]'s; `t` is a live table of the map.
unsafe fn walk_table<L: Layout, G: Guard, const ERASE: bool>(
    this: *mut Map,
    t: *mut Table,
    kind: Kind,
    stamp: &mut Stamp,
    f: &mut impl FnMut(*const u8, u32, *mut c_void) -> i32,
) -> Option<Result<i32, Error>> {
    let mut key = [0u8; 16];
    // SAFETY (each look): the caller's guarantee; the table stays live
    // while the walk goes on, and no look lasts across `f`.
    for group in 0..unsafe { (*t).group_count() } {
        for slot in unsafe { (*t).ctrl(group) }.match_full() {
            let e = Full {
                table: t,
                group,
                slot,
            };
            let (k, n, v) = unsafe { slot_entry::<L>(e, kind, &mut key) };
            let rc = f(k, n, v);
            let m = unsafe { &*this };
            // SAFETY: asked only after one removal, which frees no table.
            let gone = || unsafe { (*t).ctrl(group).get(slot) } & 0x80 != 0;
            match stamp.after(m, gone) {
                After::Same if rc != 0 && ERASE => {
                    // SAFETY: the map is unchanged since the slot was read.
                    let erased = G::run(|| unsafe {
                        (*this).erase_full(e);
                        if (*this).len == 0 {
                            (*this).reseed();
                        }
                        Ok(())
                    });
                    if erased.is_err() {
                        return Some(erased.map(|()| 0));
                    }
                    *stamp = Stamp::of(unsafe { &*this });
                }
                After::Same if rc == 0 => {}
                // A map left empty may have been freed (a `free` counts as
                // the last entry's removal): the walk ends.
                After::Removed if rc == 0 || ERASE => {
                    if m.len == 0 {
                        return Some(Ok(0));
                    }
                }
                After::Changed if rc == 0 || ERASE => return Some(Err(Error::Invalid)),
                _ => return Some(Ok(rc)),
            }
        }
    }
    None
}

impl Header for Map {
    fn epoch(&self) -> u64 {
        self.epoch
    }

    fn count(&self) -> u64 {
        self.len
    }
}
