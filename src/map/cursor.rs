//! Cursors (`slate_iter*`): a walk the caller drives, one entry a call,
//! deleting as it goes.
//!
//! A cursor is a position (a walk's [`Cursor`]: directory entry, group,
//! slot) and a stamp: its map's `epoch` when it last looked. It holds no
//! pointer, so both the map and the cursor may move between calls.
//!
//! - `epoch` counts the changes that may move, remove or add entries: a new
//!   key, a delete (also by `delete_if`, and through another cursor), a
//!   rebuild (`reserve`, `compact`, and making room for an insert), every
//!   `clear` and `free`. Replacing a value, a refused or failed call, and a
//!   delete of an absent key leave it. It is 64 bits wide and starts, for
//!   each map (`slate()`, a clone, a zero-filled map's first tables), at a
//!   point drawn for that map below 2^62: counting never brings it back
//!   to a value it held, and a stamp taken on one map does not match
//!   another map's epoch except by a 2^-64 chance.
//!
//! A cursor whose stamp differs from its map's epoch is stale, and stays
//! so (its tag is cleared): every later call on it is `Error::Invalid`. A
//! delete through the cursor bumps the epoch, so that other cursors go
//! stale, and stamps the cursor anew: deleting leaves every other slot
//! where it was, so the position stays good. Positions are checked against
//! the map on every call as well, so that a cursor can never reach outside
//! the map's tables, whatever its bytes.
//!
//! `slate_iter` and `slate_iter_next` only read the map: cursors may read
//! one unmodified map on several threads. The walks (`walks.rs`) stamp the
//! same way.

use core::ffi::c_void;

use crate::group::SLOTS;
use crate::Error;

use super::walks::{Cursor, Full};
use super::Map;

/// `Iter::state` of a cursor that `slate_iter` placed and that is not stale.
const LIVE: u32 = 0x5354_4900;
/// `Iter::state` bit: the entry the last `next` gave is still there for
/// `delete`.
const CURRENT: u32 = 1;

/// The body of the C `slate_iter_s`. Every bit pattern is a valid value
/// (a cursor that `slate_iter` never placed is stale).
#[repr(C)]
pub struct Iter {
    /// The map's `epoch` when the cursor last looked at it.
    epoch: u64,
    /// `LIVE`, with `CURRENT` or not; anything else is stale.
    state: u32,
    pos: Cursor,
    /// An integer table's key, as its 10-byte encoding.
    key: [u8; 16],
}

impl Iter {
    /// A cursor before the first entry of `m`.
    pub fn new(m: &Map) -> Iter {
        Iter {
            epoch: m.epoch,
            state: LIVE,
            pos: Cursor::default(),
            key: [0; 16],
        }
    }

    /// Checks the stamp against `m`; a stale cursor stays stale.
    fn check(&mut self, m: &Map) -> Result<(), Error> {
        if self.state & !CURRENT == LIVE && self.epoch == m.epoch {
            return Ok(());
        }
        self.state = 0;
        Err(Error::Invalid)
    }
}

impl Map {
    /// Gives the epoch a zero-filled map lacks (on the paths that give a
    /// map tables).
    pub(super) fn ensure_epoch(&mut self) {
        if self.epoch == 0 {
            self.epoch = crate::seed::stamp();
        }
    }

    /// A change that makes cursors stale.
    #[inline]
    pub(super) fn bump_epoch(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
    }

    /// The next entry of cursor `it`: its key's address and length and its
    /// value. `Error::NotFound` past the last entry; `Error::Invalid` for a
    /// stale cursor. The key bytes are the map's, or (a key of an integer
    /// table) in the cursor's buffer.
    pub fn iter_next(&self, it: &mut Iter) -> Result<(*const u8, u32, *mut c_void), Error> {
        it.check(self)?;
        it.state = LIVE;
        let e = self.next_full(&mut it.pos).ok_or(Error::NotFound)?;
        it.state = LIVE | CURRENT;
        // SAFETY: a full slot of a live table of this map.
        Ok(unsafe { Map::entry_of(e, &mut it.key) })
    }

    /// Deletes the entry that cursor `it` gave last (`Error::NotFound` when
    /// there is none), keeping `it` valid and making every other cursor
    /// stale. A map left empty takes a fresh seed unless it is pinned.
    pub fn iter_delete(&mut self, it: &mut Iter) -> Result<(), Error> {
        it.check(self)?;
        if it.state & CURRENT == 0 {
            return Err(Error::NotFound);
        }
        // The slot must be a full slot of a table of this map: a cursor's
        // bytes may have been forged, and must not erase anything else.
        let (entry, group, slot) = it.pos.last();
        let tp = self.table_at(entry).ok_or(Error::Invalid)?;
        // SAFETY: a live table of this map; no reference to it is held.
        let t = unsafe { &mut *tp };
        if group >= t.group_count() || slot >= SLOTS || t.ctrl(group).get(slot) & 0x80 != 0 {
            return Err(Error::Invalid);
        }
        // SAFETY: a full slot of a live table of this map.
        unsafe {
            self.erase_full(Full {
                table: tp,
                group,
                slot,
            })
        };
        it.epoch = self.epoch;
        it.state = LIVE;
        if self.len == 0 {
            self.reseed();
        }
        Ok(())
    }
}
