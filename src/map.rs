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

use core::ffi::c_void;
use core::ptr;

use crate::alloc::Allocator;
use crate::directory::{self, Directory, Tables, MAX_DEPTH};
use crate::group::SLOTS;
use crate::key::{int_bytes, Key, KeyRepr};
use crate::seed::map_seed as fresh_seed;
use crate::table::{
    get_in, int_in, kind_of, max_load, IntSlot, Lookup, Slot, Table, FIRST_CAPACITY, KIND_BYTES,
    MAX_CAPACITY,
};
use crate::walk;
use crate::Error;

pub const MODE_EMPTY: u8 = 0;
pub const MODE_SMALL: u8 = 1;
pub const MODE_DIR: u8 = 2;

/// Entries a table is planned for when a map is sized in advance
/// (`reserve`, `compact`): below its 896-entry limit, so that the uneven
/// spread of hashes over tables rarely forces a split.
const PLANNED_LOAD: u64 = 768;

#[repr(C)]
pub struct Map {
    pub(crate) len: u64,
    pub(crate) seed: u64,
    /// Small: the table. Directory: the array of table pointers.
    pub(crate) root: *mut u8,
    pub(crate) global_depth: u8,
    pub(crate) mode: u8,
    /// Explicit, so that the struct has no padding (whose bytes would be
    /// uninitialized in a `slate_s` the caller inspects or copies).
    _pad: [u8; 6],
    pub(crate) alloc: Allocator,
}

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

/// The shape `reserve` and `compact` build for `n` entries.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Plan {
    Empty,
    Small,
    /// `1 << depth` tables of `capacity` slots, each at local depth `depth`.
    Tables {
        depth: u32,
        capacity: usize,
    },
}

impl Plan {
    fn for_entries(n: u64) -> Result<Plan, Error> {
        if n == 0 {
            return Ok(Plan::Empty);
        }
        if n <= SLOTS as u64 {
            return Ok(Plan::Small);
        }
        if n <= max_load(MAX_CAPACITY) as u64 {
            let mut capacity = FIRST_CAPACITY;
            while (max_load(capacity) as u64) < n {
                capacity *= 2;
            }
            return Ok(Plan::Tables { depth: 0, capacity });
        }
        let depth = n
            .div_ceil(PLANNED_LOAD)
            .next_power_of_two()
            .trailing_zeros();
        if depth > MAX_DEPTH {
            return Err(Error::Full);
        }
        // The whole shape must be addressable (it never is on 32-bit targets
        // near the limit), and fit in the machine's memory where that is
        // known: refused before anything is allocated.
        let bytes = Table::bytes(MAX_CAPACITY, KIND_BYTES)
            .checked_mul(1usize << depth)
            .and_then(|b| b.checked_add(Directory::bytes(depth)))
            .ok_or(Error::Full)?;
        if crate::alloc::physical_memory().is_some_and(|memory| bytes as u64 > memory) {
            return Err(Error::Full);
        }
        Ok(Plan::Tables {
            depth,
            capacity: MAX_CAPACITY,
        })
    }

    fn capacity(self) -> u64 {
        match self {
            Plan::Empty => 0,
            Plan::Small => SLOTS as u64,
            Plan::Tables { depth, capacity } => (capacity as u64) << depth,
        }
    }
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
/// reached at about 210,000 entries (u64 keys from splitmix64), when the
/// slots (5 MB of `u64` slots, 13 MB of general ones) are past the L2
/// caches. Below it the prefetch costs misses more than it saves hits; at
/// 300,000 entries it takes hits from 30-50 to 27-34 ns (`u64`) and from
/// 92 to 58-64 ns (strings), misses losing 1-3 ns.
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

    /// Whether the calling thread is walking this map.
    #[inline]
    pub fn walking(&self) -> bool {
        walk::walking((self as *const Map).cast())
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
        // Large maps prefetch a group's slots, as lookups do (`get`):
        // deletes at 10M u64 keys 117-132 -> 99 ns. (Inserts lost by it.)
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

    /// Makes room in table `tp` for a key of kind `key_kind`, in one
    /// rebuild (moving at most 1024 entries): the table gets the layout that
    /// holds the key (an integer table of another kind turns general) and,
    /// when it is full, the room too: it is pruned of tombstones, doubled or
    /// split. Everything is allocated before anything changes, so a failure
    /// leaves the map as it was, layout included.
    fn make_room(&mut self, tp: *mut Table, key_kind: u32) -> Result<(), Error> {
        // SAFETY: `tp` is a live table of this map.
        let t = unsafe { &*tp };
        let kind = if t.kind == KIND_BYTES || t.kind == key_kind {
            t.kind
        } else {
            KIND_BYTES
        };
        let capacity = t.capacity as usize;
        let full = t.growth_left == 0;
        if self.mode == MODE_SMALL {
            return if full {
                self.small_to_directory(kind)
            } else {
                self.rebuild_small(tp, kind)
            };
        }
        if !full || t.tombstones() * 10 >= capacity {
            self.rebuild_table(tp, capacity, kind)
        } else if capacity < MAX_CAPACITY {
            self.rebuild_table(tp, capacity * 2, kind)
        } else {
            self.split(tp, kind)
        }
    }

    /// Switches the empty table `tp` to `kind`'s layout, which it has room
    /// for (see [`Table::rekind`]).
    fn rekind(&mut self, tp: *mut Table, kind: u32) {
        // SAFETY: `tp` is a live table of this map; no reference to it is
        // held.
        unsafe { (*tp).rekind(kind) };
        if self.mode == MODE_DIR {
            let mut dir = self.dir();
            // SAFETY: as above; its entries now carry the new kind.
            unsafe {
                let (first, depth) = ((*tp).index as usize, (*tp).local_depth);
                dir.fill(first, dir.span(depth), tp);
            }
        }
    }

    /// Rebuilds a small map's table, which has room, in the layout `kind`.
    fn rebuild_small(&mut self, tp: *mut Table, kind: u32) -> Result<(), Error> {
        let new = Table::new(&self.alloc, SLOTS, 0, kind)?;
        // SAFETY: both tables are live; `tp` is freed once its entries moved.
        unsafe {
            (*tp).move_into(self.seed, |_| new);
            Table::free(tp, &self.alloc);
        }
        self.root = new.cast();
        Ok(())
    }

    /// Replaces table `tp` by one of `capacity` slots of `kind` holding its
    /// entries.
    fn rebuild_table(&mut self, tp: *mut Table, capacity: usize, kind: u32) -> Result<(), Error> {
        // SAFETY: `tp` is a live table of this map.
        let t = unsafe { &*tp };
        let new = Table::new(&self.alloc, capacity, t.local_depth, kind)?;
        let mut dir = self.dir();
        // SAFETY: `new` is live and sized for `t`'s entries; after the
        // move, `tp` is no longer referenced by the directory.
        unsafe {
            t.move_into(self.seed, |_| new);
            dir.replace(tp, new);
            Table::free(tp, &self.alloc);
        }
        Ok(())
    }

    /// The ninth entry: the single group becomes a table of `kind` in a
    /// directory.
    fn small_to_directory(&mut self, kind: u32) -> Result<(), Error> {
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
            (*tp).move_into(self.seed, |_| new);
            Table::free(tp, &self.alloc);
        }
        // SAFETY: `new` is live.
        unsafe { dir.fill(0, 1, new) };
        self.root = dir.array.cast();
        self.mode = MODE_DIR;
        self.global_depth = 0;
        Ok(())
    }

    /// Splits a full 1024-slot table in two tables of `kind` by the next
    /// hash bit.
    fn split(&mut self, tp: *mut Table, kind: u32) -> Result<(), Error> {
        // `tp` is read through the raw pointer throughout: doubling the
        // directory writes its `index`, so no reference to it may live
        // across that.
        // SAFETY: `tp` is a live table of this map.
        let depth = unsafe { (*tp).local_depth };
        let global = self.global_depth as u32;
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
        unsafe { (*tp).move_into(self.seed, |h| if h & bit == 0 { left } else { right }) };
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
            self.global_depth += 1;
        }
        // SAFETY: `tp` is still live (freed below).
        let first = unsafe { (*tp).index } as usize;
        let half = dir.span(depth + 1);
        // SAFETY: the halves are live; `tp` is unreferenced once replaced.
        unsafe {
            (*left).index = first as u32;
            (*right).index = (first + half) as u32;
            dir.fill(first, half, left);
            dir.fill(first + half, half, right);
            Table::free(tp, &self.alloc);
        }
        Ok(())
    }

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

    /// Removes every entry, keeping the capacity; takes a fresh seed.
    pub fn clear(&mut self) {
        for tp in self.tables() {
            // SAFETY: live tables owning their keys.
            unsafe {
                (*tp).release_keys(&self.alloc);
                (*tp).reset();
            }
        }
        self.len = 0;
        self.seed = fresh_seed();
    }

    /// Frees the tables and the directory, and the keys if `keys`.
    ///
    /// # Safety
    /// The structure is not used afterwards (the caller resets the fields).
    unsafe fn free_structure(&mut self, keys: bool) {
        for tp in self.tables() {
            // SAFETY: live tables owning their keys, freed once.
            unsafe {
                if keys {
                    (*tp).release_keys(&self.alloc);
                }
                Table::free(tp, &self.alloc);
            }
        }
        if self.mode == MODE_DIR {
            // SAFETY: the directory came from this allocator.
            unsafe { self.dir().free(&self.alloc) };
        }
        self.root = ptr::null_mut();
        self.mode = MODE_EMPTY;
        self.global_depth = 0;
    }

    /// Releases everything; the map is empty and usable afterwards.
    pub fn free(&mut self) {
        // SAFETY: the fields are reset below.
        unsafe { self.free_structure(true) };
        self.len = 0;
        self.seed = fresh_seed();
    }

    /// An independent copy allocating through `alloc`: same seed and
    /// tables, copied byte for byte (so the same iteration order), long keys
    /// duplicated. On failure nothing is left allocated.
    pub fn try_clone(&self, alloc: Allocator) -> Result<Map, Error> {
        let mut copy = Map {
            len: self.len,
            seed: self.seed,
            root: ptr::null_mut(),
            global_depth: self.global_depth,
            mode: self.mode,
            _pad: [0; 6],
            alloc,
        };
        match self.mode {
            MODE_SMALL => {
                // SAFETY: the small table is live with live keys.
                copy.root = unsafe { (*self.root.cast::<Table>()).duplicate(&alloc)? }.cast();
            }
            MODE_DIR => {
                let src = self.dir();
                let mut dir = Directory::new(&alloc, src.depth)?;
                for tp in src.tables() {
                    // SAFETY: live tables with live keys.
                    match unsafe { (*tp).duplicate(&alloc) } {
                        Ok(t) => {
                            // SAFETY: `t` is a copy of a live table.
                            unsafe {
                                let (first, depth) = ((*t).index as usize, (*t).local_depth);
                                dir.fill(first, dir.span(depth), t);
                            }
                        }
                        Err(e) => {
                            // The copies made so far fill a prefix of `dir`.
                            let mut j = 0;
                            while j < dir.entries() && !dir.entry(j).groups.is_null() {
                                let t = dir.get(j);
                                // SAFETY: copies made above, owning their keys.
                                unsafe {
                                    j += dir.span((*t).local_depth);
                                    (*t).release_keys(&alloc);
                                    Table::free(t, &alloc);
                                }
                            }
                            // SAFETY: the directory is unused.
                            unsafe { dir.free(&alloc) };
                            return Err(e);
                        }
                    }
                }
                copy.root = dir.array.cast();
            }
            _ => {}
        }
        Ok(copy)
    }

    /// Sizes the map so that `n` entries fit without growing (a hint).
    pub fn reserve(&mut self, n: u64) -> Result<(), Error> {
        let plan = Plan::for_entries(n)?;
        if n <= self.len || self.capacity() >= plan.capacity() {
            return Ok(());
        }
        self.rebuild(plan)
    }

    /// Rebuilds at the current size, dropping tombstones and capacity left
    /// by deletions.
    pub fn compact(&mut self) -> Result<(), Error> {
        let plan = Plan::for_entries(self.len)?;
        self.rebuild(plan)
    }

    /// Moves every entry into a freshly allocated structure of `plan`
    /// (growing it where the spread of hashes asks for it), then frees the
    /// old one. On failure the old structure is untouched.
    fn rebuild(&mut self, plan: Plan) -> Result<(), Error> {
        // An unseeded map is empty: seeding it changes no entry's hash. The
        // seed is kept only if the rebuild succeeds.
        let seed = if self.seed == 0 {
            fresh_seed()
        } else {
            self.seed
        };
        let mut fresh = Map {
            len: 0,
            seed,
            root: ptr::null_mut(),
            global_depth: 0,
            mode: MODE_EMPTY,
            _pad: [0; 6],
            alloc: self.alloc,
        };
        fresh.shape(plan, self.common_kind())?;
        for tp in self.tables() {
            // SAFETY: live tables of the old structure.
            let t = unsafe { &*tp };
            for (g, i) in t.full_slots() {
                // SAFETY: full slots hold live keys.
                let h = unsafe { t.hash_at(self.seed, g, i) };
                if let Err(e) = fresh.insert_moved(h, t.entry(g, i)) {
                    // SAFETY: the keys still belong to the old structure.
                    unsafe { fresh.free_structure(false) };
                    return Err(e);
                }
            }
        }
        // SAFETY: every key now belongs to `fresh`.
        unsafe { self.free_structure(false) };
        self.seed = seed;
        self.root = fresh.root;
        self.mode = fresh.mode;
        self.global_depth = fresh.global_depth;
        Ok(())
    }

    /// The kind of table that holds every key of the map: an integer kind
    /// when all keys are integer keys of that kind, else the general one
    /// (also for an empty map, whose next keys are unknown).
    fn common_kind(&self) -> u32 {
        let mut common = None;
        // Whether key kind `k` leaves the keys seen so far of one integer kind.
        let mut agree = |k: u32| {
            let one = k != KIND_BYTES && common.is_none_or(|c| c == k);
            common = Some(k);
            one
        };
        for tp in self.tables() {
            // SAFETY: live tables of this map.
            let t = unsafe { &*tp };
            if t.kind != KIND_BYTES {
                // An integer table's keys are all of its kind.
                if t.used > 0 && !agree(t.kind) {
                    return KIND_BYTES;
                }
                continue;
            }
            for (g, i) in t.full_slots() {
                let k = t
                    .entry(g, i)
                    .key
                    .int()
                    .map_or(KIND_BYTES, |(tag, _)| tag as u32);
                if !agree(k) {
                    return KIND_BYTES;
                }
            }
        }
        common.unwrap_or(KIND_BYTES)
    }

    /// Allocates an empty structure of `plan` with tables of `kind` (the
    /// map must be empty mode).
    fn shape(&mut self, plan: Plan, kind: u32) -> Result<(), Error> {
        debug_assert_eq!(self.mode, MODE_EMPTY);
        match plan {
            Plan::Empty => {}
            Plan::Small => {
                self.root = Table::new(&self.alloc, SLOTS, 0, kind)?.cast();
                self.mode = MODE_SMALL;
            }
            Plan::Tables { depth, capacity } => {
                let mut dir = Directory::new(&self.alloc, depth)?;
                self.root = dir.array.cast();
                self.global_depth = depth as u8;
                self.mode = MODE_DIR;
                for j in 0..dir.entries() {
                    match Table::new(&self.alloc, capacity, depth, kind) {
                        Ok(t) => {
                            // SAFETY: `t` is live.
                            unsafe {
                                (*t).index = j as u32;
                                dir.fill(j, 1, t);
                            }
                        }
                        Err(e) => {
                            // Free the tables made so far, then the rest.
                            for k in 0..j {
                                // SAFETY: tables made above, holding nothing.
                                unsafe { Table::free(dir.get(k), &self.alloc) };
                            }
                            // SAFETY: the directory is unused.
                            unsafe { dir.free(&self.alloc) };
                            self.root = ptr::null_mut();
                            self.mode = MODE_EMPTY;
                            self.global_depth = 0;
                            return Err(e);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Adds an entry known to be absent, whose key this map now owns.
    fn insert_moved(&mut self, h: u64, entry: Slot) -> Result<(), Error> {
        loop {
            let tp = self.table_for(h);
            // SAFETY: a live table of this map.
            if unsafe { (*tp).place(h, entry) } {
                self.len += 1;
                return Ok(());
            }
            // SAFETY: a live table of this map.
            let kind = unsafe { (*tp).kind };
            self.make_room(tp, kind)?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::{IntKey, Needle, TAG_I64, TAG_U64};

    /// A value that is a number, not an address (no provenance for Miri).
    fn v(i: u64) -> *mut c_void {
        ptr::without_provenance_mut(i as usize)
    }

    fn long(i: u64) -> Vec<u8> {
        format!("a key longer than the 28 bytes a slot holds: {i}").into_bytes()
    }

    /// Every path that moves memory, small enough for Miri: the small map,
    /// its move into a directory, doublings, a split with a directory
    /// doubling, tombstones, clone, compact, reserve, delete_if, clear, free.
    #[test]
    fn lifecycle() {
        let n = if cfg!(miri) { 1_000 } else { 5_000 };
        let mut m = Map::new(Allocator::default());
        for i in 0..n {
            m.set(&IntKey::new(TAG_U64, i), v(i)).unwrap();
            if i % 4 == 0 {
                m.set(&Needle::bytes(&long(i)), v(i + 1)).unwrap();
            }
        }
        m.check().unwrap();
        assert!(m.global_depth >= 1, "no split happened");
        for i in (0..n).step_by(3) {
            m.delete(&IntKey::new(TAG_U64, i)).unwrap();
        }
        let mut c = m.try_clone(Allocator::default()).unwrap();
        c.check().unwrap();
        m.compact().unwrap();
        m.check().unwrap();
        for i in 0..n {
            let want = (i % 3 != 0).then_some(v(i));
            assert_eq!(m.get(&IntKey::new(TAG_U64, i)), want);
            assert_eq!(c.get(&IntKey::new(TAG_U64, i)), want);
            if i % 4 == 0 {
                assert_eq!(m.get(&Needle::bytes(&long(i))), Some(v(i + 1)));
            }
        }
        m.reserve(4 * n).unwrap();
        m.check().unwrap();
        let this: *mut Map = &mut m;
        // SAFETY: `m` is live and not otherwise borrowed.
        unsafe { Map::delete_if(this, |k, _| (k.len() > crate::key::INLINE) as i32) };
        m.check().unwrap();
        assert_eq!(m.len(), n - n.div_ceil(3));
        c.clear();
        c.check().unwrap();
        assert_eq!(c.len(), 0);
        c.free();
        m.free();
        assert_eq!(m.capacity(), 0);
    }

    fn kinds(m: &Map) -> Vec<u32> {
        // SAFETY: the map's tables are live.
        m.tables().map(|t| unsafe { (*t).kind }).collect()
    }

    /// Tables take the layout of their keys: integer tables for one integer
    /// kind, turned general one table at a time when another key arrives;
    /// an empty general table (after `reserve`, or emptied) turns integer
    /// in place; `compact` picks the layout from the keys.
    #[test]
    fn tables_take_the_layout_of_their_keys() {
        let n = if cfg!(miri) { 2_000 } else { 10_000 };
        let mut m = Map::new(Allocator::default());
        m.set(&IntKey::new(TAG_U64, 0), v(1)).unwrap();
        assert_eq!(kinds(&m), [TAG_U64 as u32]);
        // Small mode: a string turns the single group general.
        m.set(&Needle::bytes(b"text"), v(2)).unwrap();
        assert_eq!(kinds(&m), [KIND_BYTES]);
        assert_eq!(m.get(&IntKey::new(TAG_U64, 0)), Some(v(1)));
        m.free();

        for i in 0..n {
            m.set(&IntKey::new(TAG_U64, i), v(i)).unwrap();
        }
        let tables = kinds(&m).len();
        assert!(tables >= 2 && kinds(&m).iter().all(|&k| k == TAG_U64 as u32));
        // An i64 key turns exactly its own table general.
        m.set(&IntKey::new(TAG_I64, 7), v(7)).unwrap();
        let general = kinds(&m).iter().filter(|&&k| k == KIND_BYTES).count();
        assert_eq!((kinds(&m).len(), general), (tables, 1));
        m.check().unwrap();
        for i in 0..n {
            assert_eq!(m.get(&IntKey::new(TAG_U64, i)), Some(v(i)));
        }
        assert_eq!(m.get(&IntKey::new(TAG_I64, 7)), Some(v(7)));
        // Without the i64 key, compact goes back to integer tables only.
        m.delete(&IntKey::new(TAG_I64, 7)).unwrap();
        m.compact().unwrap();
        m.check().unwrap();
        assert!(kinds(&m).iter().all(|&k| k == TAG_U64 as u32));
        // An emptied integer table takes a string by turning general.
        m.clear();
        m.set(&Needle::bytes(b"text"), v(2)).unwrap();
        assert_eq!(kinds(&m).iter().filter(|&&k| k == KIND_BYTES).count(), 1);
        m.check().unwrap();
        m.free();

        // `reserve` on an empty map makes general tables; integer keys
        // turn each one integer in place as it takes its first key.
        m.reserve(n).unwrap();
        assert!(kinds(&m).iter().all(|&k| k == KIND_BYTES));
        let before = m.tables().collect::<Vec<_>>();
        for i in 0..n {
            m.set(&IntKey::new(TAG_I64, i), v(i)).unwrap();
        }
        assert_eq!(
            m.tables().collect::<Vec<_>>(),
            before,
            "reserve did not hold"
        );
        assert!(kinds(&m).iter().all(|&k| k == TAG_I64 as u32));
        m.check().unwrap();
        // Emptied, those tables take strings in place too (their memory
        // was sized for the general layout). One key stays, so the map
        // keeps its seed; only its table must be rebuilt.
        for i in 1..n {
            m.delete(&IntKey::new(TAG_I64, i)).unwrap();
        }
        for i in 0..n {
            m.set(&Needle::bytes(format!("s{i}").as_bytes()), v(i))
                .unwrap();
        }
        assert!(kinds(&m).iter().all(|&k| k == KIND_BYTES));
        let after = m.tables().collect::<Vec<_>>();
        let moved = before.iter().zip(&after).filter(|(a, b)| a != b).count();
        assert!(moved <= 1, "{moved} tables reallocated");
        assert_eq!(m.get(&IntKey::new(TAG_I64, 0)), Some(v(0)));
        m.check().unwrap();
        m.free();
    }

    /// A map large enough that lookups and deletes take the prefetching
    /// probe finds every key and no absent one, and deletes exactly the
    /// keys asked for. (Too large for Miri, which runs the same probe
    /// without the prefetch in `lifecycle`.)
    #[test]
    #[cfg_attr(miri, ignore)]
    fn large_map_lookups_prefetch() {
        let mut m = Map::new(Allocator::default());
        let mut n = 0u64;
        while m.global_depth < PREFETCH_DEPTH {
            m.set(&IntKey::new(TAG_U64, n), v(n + 1)).unwrap();
            n += 1;
        }
        assert!(n > 100_000, "depth {PREFETCH_DEPTH} after only {n} keys");
        for i in 0..n {
            assert_eq!(m.get(&IntKey::new(TAG_U64, i)), Some(v(i + 1)));
            assert_eq!(m.get(&IntKey::new(TAG_U64, n + i)), None);
        }
        for i in (0..n).step_by(2) {
            assert_eq!(m.remove(&IntKey::new(TAG_U64, i)), Ok(()));
            assert_eq!(m.remove(&IntKey::new(TAG_U64, n + i)), Err(Error::NotFound));
        }
        assert!(m.global_depth >= PREFETCH_DEPTH);
        assert_eq!(m.len, n / 2);
        for i in 0..n {
            let want = (i % 2 == 1).then(|| v(i + 1));
            assert_eq!(m.get(&IntKey::new(TAG_U64, i)), want);
        }
        m.check().unwrap();
        m.free();
    }

    /// Mean probe steps to each key's group past its first one.
    fn mean_probe(m: &Map, keys: &[Vec<u8>]) -> f64 {
        let mut total = 0;
        for k in keys {
            let n = Needle::bytes(k);
            let h = n.hash(m.seed);
            // SAFETY: a live table of the map.
            let t = unsafe { &*m.table_for(h) };
            let (g, _) = t.find(h, &n).expect("the key is in the map");
            let groups = t.group_count();
            let home = crate::hash::h1(h) as usize & (groups - 1);
            let steps = (0..groups)
                .find(|&s| (home + s * (s + 1) / 2) & (groups - 1) == g)
                .expect("on the probe sequence");
            total += steps;
        }
        total as f64 / keys.len() as f64
    }

    /// Hash flooding: keys built to collide under one seed (each one's
    /// probe starts at group 0 of its table: hash bits 7..13 zero, found by
    /// brute force, 128 tries a key) make the map with that seed probe
    /// long; a map with its own random seed never sees the collision.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn flooding_keys_hurt_only_the_seed_they_were_made_for() {
        const SEED: u64 = 0x0000_5EED_F100_D000;
        let mut keys = vec![];
        let mut i = 0u64;
        while keys.len() < 700 {
            let k = format!("flood-{i}").into_bytes();
            if crate::hash::h1(crate::hash::hash(SEED, &k)) & 127 == 0 {
                keys.push(k);
            }
            i += 1;
        }
        let mut attacked = Map::new(Allocator::default());
        attacked.seed = SEED;
        let mut own = Map::new(Allocator::default());
        for k in &keys {
            attacked.set(&Needle::bytes(k), v(1)).unwrap();
            own.set(&Needle::bytes(k), v(1)).unwrap();
        }
        attacked.check().unwrap();
        // 700 keys in one table of 128 groups, all probing from group 0:
        // the k-th one sits k / 8 steps down the sequence.
        let slow = mean_probe(&attacked, &keys);
        let fast = mean_probe(&own, &keys);
        assert!(slow > 30.0, "flooded map: mean probe {slow}");
        assert!(fast < 1.0, "own seed: mean probe {fast}");
        attacked.free();
        own.free();
    }

    #[test]
    fn plans() {
        assert_eq!(Plan::for_entries(0), Ok(Plan::Empty));
        assert_eq!(Plan::for_entries(8), Ok(Plan::Small));
        assert_eq!(
            Plan::for_entries(9),
            Ok(Plan::Tables {
                depth: 0,
                capacity: 16
            })
        );
        assert_eq!(
            Plan::for_entries(15),
            Ok(Plan::Tables {
                depth: 0,
                capacity: 32
            })
        );
        assert_eq!(
            Plan::for_entries(896),
            Ok(Plan::Tables {
                depth: 0,
                capacity: 1024
            })
        );
        assert_eq!(
            Plan::for_entries(897),
            Ok(Plan::Tables {
                depth: 1,
                capacity: 1024
            })
        );
        assert_eq!(Plan::for_entries(u64::MAX), Err(Error::Full));
        // Larger than the machine's memory: refused, not attempted.
        if cfg!(target_os = "linux") && !cfg!(miri) {
            assert_eq!(Plan::for_entries(1 << 41), Err(Error::Full));
        }
    }
}
