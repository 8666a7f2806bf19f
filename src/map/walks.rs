//! Walks: the entries in table, group and slot order, from a position
//! that survives deletions, stamped as `crate::stamp` says.

use core::ffi::c_void;

use crate::key::INT_LEN;
use crate::layout::{on_layout, Layout};
use crate::stamp::{After, Header, Stamp};
use crate::table::Table;
use crate::table::Typed;
use crate::Error;

use super::{Guard, Map, Mode};

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

    /// The key bytes, length and value of full slot `e`: the map's own
    /// bytes, or an integer key's 10-byte encoding written to `buffer`.
    ///
    /// # Safety
    /// `e` is a full slot of a live table of this map.
    pub(super) unsafe fn entry_of(e: Full, buffer: &mut [u8; 16]) -> (*const u8, u32, *mut c_void) {
        // SAFETY: the caller's guarantee: the table's kind names its
        // layout and the slot's key is live. A general slot's key bytes
        // are in the table (or its heap copy), which outlive this call.
        let kind = unsafe { (*e.table).kind() };
        on_layout!(kind, L => unsafe {
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
        })
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
        mut f: impl FnMut(*const u8, u32, *mut c_void) -> i32,
    ) -> Result<i32, Error> {
        let mut w = Walk::default();
        // SAFETY (each look): `this` is live; no look lasts across `f`.
        while let Some((k, n, v)) = w.next(unsafe { &*this }) {
            let rc = f(k, n, v);
            if rc != 0 {
                return Ok(rc);
            }
            if w.after(unsafe { &*this }) == After::Changed {
                return Err(Error::Invalid);
            }
        }
        Ok(0)
    }

    /// Deletes every entry for which `pred` returns non-zero, as the walk
    /// goes (a walk as `each` is: `pred` may call anything on this map; an
    /// answer that came with a change is not applied).
    ///
    /// # Safety
    /// `this` points to a live map.
    /// The erase runs under `G` (it may reseed the map, which could
    /// panic), never around `pred`.
    ///
    /// # Safety
    /// `this` points to a live map.
    pub unsafe fn delete_if<G: Guard>(
        this: *mut Map,
        mut pred: impl FnMut(*const u8, u32, *mut c_void) -> i32,
    ) -> Result<(), Error> {
        let mut w = Walk::default();
        // SAFETY (each look): `this` is live; no look lasts across `pred`.
        while let Some((k, n, v)) = w.next(unsafe { &*this }) {
            let rc = pred(k, n, v);
            match w.after(unsafe { &*this }) {
                After::Same if rc != 0 => {
                    // SAFETY: the map is unchanged since `next`.
                    G::run(|| unsafe { w.erase_given(&mut *this) })?
                }
                After::Same | After::Removed => {}
                After::Changed => return Err(Error::Invalid),
            }
        }
        Ok(())
    }
}

/// A walk of a map in progress: its position, its stamp, and the slot of
/// the entry it gave last. It lives in the walk's frame and holds nothing
/// to release.
#[derive(Default)]
pub struct Walk {
    pos: Cursor,
    stamp: Option<Stamp>,
    given: Option<Full>,
    /// An integer key's encoding, for the callback.
    key: [u8; 16],
}

impl Walk {
    /// The next entry (`Map::entry_of`), stamping the map.
    #[inline]
    pub fn next(&mut self, m: &Map) -> Option<(*const u8, u32, *mut c_void)> {
        let e = m.next_full(&mut self.pos)?;
        self.given = Some(e);
        self.stamp = Some(Stamp::of(m));
        // SAFETY: a full slot of a live table of `m`.
        Some(unsafe { Map::entry_of(e, &mut self.key) })
    }

    /// What the callback did to `m` (see `crate::stamp`).
    #[inline]
    pub fn after(&mut self, m: &Map) -> After {
        let (Some(stamp), Some(e)) = (self.stamp.as_mut(), self.given) else {
            return After::Same;
        };
        // SAFETY: asked only after one removal, which frees no table: the
        // given slot's table is still live.
        stamp.after(
            m,
            || unsafe { (*e.table).ctrl(e.group).get(e.slot) } & 0x80 != 0,
        )
    }

    /// Deletes the entry `next` gave (unchanged since), reseeding a map
    /// left empty.
    ///
    /// # Safety
    /// `m` is the walked map, unchanged since `next`.
    pub unsafe fn erase_given(&mut self, m: &mut Map) -> Result<(), Error> {
        if let Some(e) = self.given.take() {
            // SAFETY: the caller's guarantee: a full slot of a live table.
            unsafe { m.erase_full(e) };
            if m.len == 0 {
                m.reseed();
            }
        }
        Ok(())
    }
}

impl Header for Map {
    fn epoch(&self) -> u64 {
        self.epoch
    }

    fn count(&self) -> u64 {
        self.len
    }
}
