//! The map: a small-map fast path, then a directory of tables.
//!
//! A map is in one of three modes:
//!
//! - **empty**: nothing allocated (a fresh, cleared-by-compact or freed map);
//! - **small**: one table of a single group, no directory, used until a
//!   ninth entry arrives. A single group is never probed past, so it holds
//!   all eight slots and never needs a tombstone. The table's header opens
//!   like a directory entry and the global depth is 0, so lookups read the
//!   table as a directory of one entry, with no branch on the mode;
//! - **directory**: a directory of tables (see `directory.rs`), from the
//!   ninth entry on, starting with one table of 16 slots.
//!
//! `Map` is the body of the C `slate_s` (it fits in its 64 bytes). It holds
//! no pointer into itself, so C code may move it with `memcpy` between
//! calls. The walks in progress (`slate_each`, `slate_delete_if`) are
//! kept apart from it, per thread (see `walk.rs`): the C layer refuses to
//! modify a map that the calling thread is walking.

mod check;
mod growth;
mod lifecycle;
mod plan;
mod report;
#[cfg(test)]
mod tests;
mod walks;

use core::ffi::c_void;
use core::ptr;

use crate::alloc::Allocator;
use crate::directory::{self, Directory, Tables};
use crate::group::SLOTS;
use crate::key::{Key, KeyRepr};
use crate::seed::map_seed as fresh_seed;
use crate::table::{get_in, int_in, kind_of, IntSlot, Lookup, Slot, Table, KIND_BYTES};
use crate::Error;

const MODE_EMPTY: u8 = 0;
const MODE_SMALL: u8 = 1;
const MODE_DIR: u8 = 2;

#[repr(C)]
pub struct Map {
    len: u64,
    seed: u64,
    /// Small: the table. Directory: the array of table pointers.
    root: *mut u8,
    global_depth: u8,
    mode: u8,
    /// Explicit, so that the struct has no padding (whose bytes would be
    /// uninitialized in a `slate_s` the caller inspects or copies).
    _pad: [u8; 6],
    alloc: Allocator,
}

/// Distinct tables of a map in walk order.
pub enum MapTables {
    None,
    One(Option<*mut Table>),
    Dir(Tables),
}

impl Iterator for MapTables {
    type Item = *mut Table;

    fn next(&mut self) -> Option<*mut Table> {
        match self {
            MapTables::None => None,
            MapTables::One(t) => t.take(),
            MapTables::Dir(tables) => tables.next(),
        }
    }
}

/// Global depth from which lookups and deletes prefetch a group's slots:
/// 512 tables, about 210,000 entries, when the slots (5 MB of `u64`
/// slots, 13 MB of general ones) are past the L2 caches. Below it the
/// slots are usually cached and the prefetch only adds loads.
const PREFETCH_DEPTH: u8 = 9;

impl Map {
    /// An empty map with a fresh seed, allocating through `alloc`.
    pub fn new(alloc: Allocator) -> Map {
        Map {
            len: 0,
            seed: fresh_seed(),
            root: ptr::null_mut(),
            global_depth: 0,
            mode: MODE_EMPTY,
            _pad: [0; 6],
            alloc,
        }
    }

    #[inline]
    pub fn len(&self) -> u64 {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The directory. In small mode too: the global depth is 0 and the
    /// root is the one table, whose header opens with a directory entry's
    /// fields (see `Table`), so it reads as a directory of one entry that
    /// names itself. Only lookups use it so (`entry`, `table_for`); walks,
    /// growth and freeing tell the modes apart.
    #[inline]
    pub(crate) fn dir(&self) -> Directory {
        Directory {
            array: self.root.cast(),
            depth: self.global_depth as u32,
        }
    }

    #[inline]
    fn hash(&self, n: &impl Key) -> u64 {
        n.hash(self.seed)
    }

    /// The directory entry a hash belongs to (not in empty mode; small mode
    /// too, see `dir`).
    #[inline]
    fn entry_for(&self, hash: u64) -> directory::Entry {
        debug_assert!(self.mode != MODE_EMPTY);
        let dir = self.dir();
        dir.entry(dir.index(hash))
    }

    /// The table a hash belongs to (not in empty mode).
    #[inline]
    fn table_for(&self, hash: u64) -> *mut Table {
        self.entry_for(hash).table()
    }

    /// The distinct tables, in walk order.
    pub fn tables(&self) -> MapTables {
        match self.mode {
            MODE_SMALL => MapTables::One(Some(self.root.cast())),
            MODE_DIR => MapTables::Dir(self.dir().tables()),
            _ => MapTables::None,
        }
    }

    /// Total slots.
    pub fn capacity(&self) -> u64 {
        // SAFETY: the map's tables are live.
        self.tables().map(|t| unsafe { (*t).capacity as u64 }).sum()
    }

    /// Looks a key up.
    #[inline(always)]
    pub fn get(&self, n: &impl Key) -> Option<*mut c_void> {
        if self.mode == MODE_EMPTY {
            return None;
        }
        let h = self.hash(n);
        // From the directory entry straight to the groups: the table's
        // header is not loaded (one dependent cache miss less). In small
        // mode the entry is the table's header (see `dir`).
        let e = self.entry_for(h);
        let (groups, mask, kind) = (e.groups, e.mask as usize, e.kind);
        // SAFETY: the groups, mask and kind of a live table. Prefetching
        // slots pays once the map outgrows the caches (`PREFETCH_DEPTH`).
        if self.global_depth >= PREFETCH_DEPTH {
            unsafe { get_in::<true, _>(groups, mask, kind, h, n) }
        } else {
            unsafe { get_in::<false, _>(groups, mask, kind, h, n) }
        }
    }

    /// `set` when no table must be made or grown: `None` (nothing done)
    /// otherwise. Allocates at most a long key's copy and cannot panic: the
    /// hot path of the C API's inserts, which then needs no guard.
    #[inline(always)]
    pub fn set_in_place(&mut self, n: &impl Key, value: *mut c_void) -> Option<Result<(), Error>> {
        if self.mode == MODE_EMPTY {
            return None;
        }
        let h = self.hash(n);
        // The probe takes the groups, mask and kind from the directory
        // entry, as lookups do, so it need not wait for the table's header
        // (see `Table::lookup_at`).
        let e = self.entry_for(h);
        let (groups, mask) = (e.groups.cast_const(), e.mask as usize);
        // SAFETY: a live table of this map; `self` is borrowed uniquely.
        let t = unsafe { &mut *e.table() };
        // One branch on the layout, then a probe for it.
        // SAFETY (both probes): `groups` and `mask` are `t`'s, from its
        // directory entry; full slots hold live keys.
        if e.kind == KIND_BYTES {
            match unsafe { t.lookup_at::<Slot>(groups, mask, h, |s| n.matches(&s.key)) } {
                Lookup::Found(g, i) => t.slot_in::<Slot>(g, i).value = value,
                // An empty table takes the layout of the key (`set`).
                Lookup::Vacant { .. } if t.used == 0 && n.int().is_some() => return None,
                Lookup::Vacant { group, slot, reuse } => {
                    // The key goes straight into the slot, which stays
                    // vacant (and unread) if that fails.
                    let s = t.vacant_slot::<Slot>(group, slot);
                    // SAFETY: `s` is a vacant slot of `t`, ours to write.
                    unsafe {
                        if let Err(e) = n.store(ptr::addr_of_mut!((*s).key), &self.alloc) {
                            return Some(Err(e));
                        }
                        (*s).value = value;
                    }
                    t.claim_in::<Slot>(group, slot, reuse, h);
                    self.len += 1;
                }
                Lookup::NoRoom | Lookup::Foreign => return None,
            }
        } else {
            let v = int_in(e.kind, n)?;
            match unsafe { t.lookup_at::<IntSlot>(groups, mask, h, |s| s.key == v) } {
                Lookup::Found(g, i) => t.slot_in::<IntSlot>(g, i).value = value,
                Lookup::Vacant { group, slot, reuse } => {
                    t.occupy_in(group, slot, reuse, h, IntSlot { key: v, value });
                    self.len += 1;
                }
                Lookup::NoRoom | Lookup::Foreign => return None,
            }
        }
        Some(Ok(()))
    }

    /// Inserts or replaces. On error the map is unchanged.
    pub fn set(&mut self, n: &impl Key, value: *mut c_void) -> Result<(), Error> {
        let mut owned: Option<KeyRepr> = None;
        if self.mode == MODE_EMPTY {
            let key = n.to_stored(&self.alloc)?;
            match Table::new(&self.alloc, SLOTS, 0, kind_of(n)) {
                Ok(t) => {
                    self.root = t.cast();
                    self.mode = MODE_SMALL;
                    self.ensure_seed();
                    owned = Some(key);
                }
                Err(e) => {
                    // SAFETY: `key` was just made from this allocator.
                    unsafe { key.release(&self.alloc) };
                    return Err(e);
                }
            }
        }
        let h = self.hash(n);
        let want = kind_of(n);
        loop {
            let tp = self.table_for(h);
            // SAFETY: a live table of this map.
            let (used, kind, fits) = unsafe { ((*tp).used, (*tp).kind, (*tp).fits(want)) };
            if used == 0 && kind != want && fits {
                // An empty table takes the key's layout in place. The key's
                // copy comes first: if it cannot be made, the table must
                // keep its layout.
                if owned.is_none() {
                    owned = Some(n.to_stored(&self.alloc)?);
                }
                self.rekind(tp, want);
            }
            // SAFETY: a live table of this map; `self` is borrowed uniquely.
            let t = unsafe { &mut *tp };
            match t.lookup(h, n) {
                Lookup::Found(g, i) => {
                    t.set_value(g, i, value);
                    if let Some(key) = owned {
                        // SAFETY: made above from this allocator, unused.
                        unsafe { key.release(&self.alloc) };
                    }
                    return Ok(());
                }
                Lookup::Vacant { group, slot, reuse } => {
                    let key = match owned {
                        Some(key) => key,
                        None => n.to_stored(&self.alloc)?,
                    };
                    t.occupy(group, slot, reuse, h, key, value);
                    self.len += 1;
                    return Ok(());
                }
                Lookup::NoRoom | Lookup::Foreign => {
                    let key = match owned {
                        Some(key) => key,
                        None => n.to_stored(&self.alloc)?,
                    };
                    owned = Some(key);
                    if let Err(e) = self.make_room(tp, want) {
                        // SAFETY: as above.
                        unsafe { key.release(&self.alloc) };
                        return Err(e);
                    }
                }
            }
        }
    }

    /// Removes a key.
    pub fn delete(&mut self, n: &impl Key) -> Result<(), Error> {
        self.remove(n)?;
        if self.len == 0 {
            self.reseed();
        }
        Ok(())
    }

    /// Draws a seed for a map that has none: a zero-filled `slate_s`, which
    /// never had `slate()`, has seed 0. Every path that gives a map tables
    /// calls it first.
    fn ensure_seed(&mut self) {
        if self.seed == 0 {
            self.seed = fresh_seed();
        }
    }

    /// A map left empty takes a fresh seed (out of line: drawing the first
    /// seed of the process reads OS entropy).
    #[inline(never)]
    pub fn reseed(&mut self) {
        self.seed = fresh_seed();
    }

    /// `delete` without the fresh seed of a map left empty: the caller
    /// calls `reseed` then. Allocates nothing and cannot panic.
    #[inline(always)]
    pub fn remove(&mut self, n: &impl Key) -> Result<(), Error> {
        if self.mode == MODE_EMPTY {
            return Err(Error::NotFound);
        }
        let h = self.hash(n);
        // From the directory entry, as in `set_in_place`.
        let e = self.entry_for(h);
        let (groups, mask) = (e.groups.cast_const(), e.mask as usize);
        // SAFETY: a live table of this map; `self` is borrowed uniquely.
        let t = unsafe { &mut *e.table() };
        // Large maps prefetch a group's slots, as lookups do (`get`).
        // Inserts do not: there the prefetch measured slower.
        let pf = self.global_depth >= PREFETCH_DEPTH;
        // SAFETY (both probes): `groups` and `mask` are `t`'s, from its
        // directory entry; full slots hold live keys.
        if e.kind == KIND_BYTES {
            let (g, i) = unsafe { t.find_at::<Slot>(pf, groups, mask, h, |s| n.matches(&s.key)) }
                .ok_or(Error::NotFound)?;
            let key = t.slot_in::<Slot>(g, i).key;
            t.vacate(g, i);
            // SAFETY: the vacated slot owned the key.
            unsafe { key.release(&self.alloc) };
        } else {
            let v = int_in(e.kind, n).ok_or(Error::NotFound)?;
            let (g, i) = unsafe { t.find_at::<IntSlot>(pf, groups, mask, h, |s| s.key == v) }
                .ok_or(Error::NotFound)?;
            t.vacate(g, i);
        }
        self.len -= 1;
        Ok(())
    }
}
