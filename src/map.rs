//! The map: a small-map fast path, then a directory of tables.
//!
//! A map is in one of three modes:
//!
//! - **empty**: nothing allocated (a fresh, cleared-by-compact or freed map);
//! - **small**: one table of a single group, no directory, used until a
//!   ninth entry arrives. A single group is never probed past, so it holds
//!   all eight slots and never needs a tombstone;
//! - **directory**: a directory of tables (see `directory.rs`), from the
//!   ninth entry on, starting with one table of 16 slots.
//!
//! `Map` is the body of the C `slate_s` (it fits in its 64 bytes). It holds
//! no pointer into itself, so C code may move it with `memcpy` between
//! calls. `walkers` counts the `slate_each`/`slate_delete_if` walks in
//! progress; the C layer refuses to modify a map while it is non-zero.

use core::cell::Cell;
use core::ffi::c_void;
use core::ptr;

use crate::alloc::Allocator;
use crate::directory::{Directory, Tables, MAX_DEPTH};
use crate::group::SLOTS;
use crate::hash::{self, fresh_seed};
use crate::key::{Key, KeyRepr};
use crate::table::{find_in, max_load, Lookup, Slot, Table, FIRST_CAPACITY, MAX_CAPACITY};
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
    _pad: u16,
    pub(crate) walkers: Cell<u32>,
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

/// Marks a map as walked for as long as it lives.
struct Walk<'a>(&'a Cell<u32>);

impl<'a> Walk<'a> {
    fn new(walkers: &'a Cell<u32>) -> Walk<'a> {
        walkers.set(walkers.get() + 1);
        Walk(walkers)
    }
}

impl Drop for Walk<'_> {
    fn drop(&mut self) {
        self.0.set(self.0.get() - 1);
    }
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
        // near the limit).
        Table::bytes(MAX_CAPACITY)
            .checked_mul(1usize << depth)
            .ok_or(Error::Full)?;
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

/// Global depth from which lookups prefetch a group's slots.
const PREFETCH_DEPTH: u8 = 10;

impl Map {
    /// An empty map with a fresh seed, allocating through `alloc`.
    pub fn new(alloc: Allocator) -> Map {
        Map {
            len: 0,
            seed: fresh_seed(),
            root: ptr::null_mut(),
            global_depth: 0,
            mode: MODE_EMPTY,
            _pad: 0,
            walkers: Cell::new(0),
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

    #[inline]
    pub fn walking(&self) -> bool {
        self.walkers.get() != 0
    }

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

    /// The table a hash belongs to (not in empty mode).
    #[inline]
    fn table_for(&self, hash: u64) -> *mut Table {
        debug_assert!(self.mode != MODE_EMPTY);
        if self.mode == MODE_SMALL {
            self.root.cast()
        } else {
            self.dir().table_for(hash)
        }
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
        // header is not loaded (one dependent cache miss less).
        let (groups, mask) = if self.mode == MODE_SMALL {
            // SAFETY: in small mode the root is a live table of one group.
            (unsafe { (*self.root.cast::<Table>()).groups_ptr() }, 0)
        } else {
            let dir = self.dir();
            let e = dir.entry(dir.index(h));
            (e.groups, e.mask)
        };
        // SAFETY: the groups and mask of a live table; the slot is full.
        // Prefetching slots pays once the map outgrows the caches: from
        // 2^PREFETCH_DEPTH tables (about 650,000 entries, 27 MB) on.
        let found = if self.global_depth >= PREFETCH_DEPTH {
            unsafe { find_in::<true>(groups, mask, h, n) }
        } else {
            unsafe { find_in::<false>(groups, mask, h, n) }
        };
        // SAFETY: a found slot is full and live.
        found.map(|(g, i)| unsafe { (*groups.add(g)).slots[i].value })
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
        // SAFETY: a live table of this map; `self` is borrowed uniquely.
        let t = unsafe { &mut *self.table_for(h) };
        match t.lookup(h, n) {
            Lookup::Found(g, i) => t.slot_mut(g, i).value = value,
            Lookup::Vacant { group, slot, reuse } => {
                let key = match n.to_stored(&self.alloc) {
                    Ok(key) => key,
                    Err(e) => return Some(Err(e)),
                };
                t.occupy(group, slot, reuse, h, key, value);
                self.len += 1;
            }
            Lookup::NoRoom => return None,
        }
        Some(Ok(()))
    }

    /// Inserts or replaces. On error the map is unchanged.
    pub fn set(&mut self, n: &impl Key, value: *mut c_void) -> Result<(), Error> {
        let mut owned: Option<KeyRepr> = None;
        if self.mode == MODE_EMPTY {
            let key = n.to_stored(&self.alloc)?;
            match Table::new(&self.alloc, SLOTS, 0) {
                Ok(t) => {
                    self.root = t.cast();
                    self.mode = MODE_SMALL;
                    if self.seed == 0 {
                        // A zero-initialized `slate_s` never had `slate()`.
                        self.seed = fresh_seed();
                    }
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
        loop {
            let tp = self.table_for(h);
            // SAFETY: a live table of this map; `self` is borrowed uniquely.
            let t = unsafe { &mut *tp };
            match t.lookup(h, n) {
                Lookup::Found(g, i) => {
                    t.slot_mut(g, i).value = value;
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
                Lookup::NoRoom => {
                    let key = match owned {
                        Some(key) => key,
                        None => n.to_stored(&self.alloc)?,
                    };
                    owned = Some(key);
                    if let Err(e) = self.make_room(tp) {
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
        // SAFETY: a live table of this map; `self` is borrowed uniquely.
        let t = unsafe { &mut *self.table_for(h) };
        let (g, i) = t.find(h, n).ok_or(Error::NotFound)?;
        let key = t.erase(g, i);
        // SAFETY: the erased slot owned the key.
        unsafe { key.release(&self.alloc) };
        self.len -= 1;
        Ok(())
    }

    /// Makes room in the full table `tp` by rebuilding it (moving at most
    /// 1024 entries).
    fn make_room(&mut self, tp: *mut Table) -> Result<(), Error> {
        if self.mode == MODE_SMALL {
            return self.small_to_directory();
        }
        // SAFETY: `tp` is a live table of this map.
        let t = unsafe { &*tp };
        let capacity = t.capacity as usize;
        if t.tombstones() * 10 >= capacity {
            self.rebuild_table(tp, capacity)
        } else if capacity < MAX_CAPACITY {
            self.rebuild_table(tp, capacity * 2)
        } else {
            self.split(tp)
        }
    }

    /// Replaces table `tp` by one of `capacity` slots holding its entries.
    fn rebuild_table(&mut self, tp: *mut Table, capacity: usize) -> Result<(), Error> {
        // SAFETY: `tp` is a live table of this map.
        let t = unsafe { &*tp };
        let new = Table::new(&self.alloc, capacity, t.local_depth)?;
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

    /// The ninth entry: the single group becomes a table in a directory.
    fn small_to_directory(&mut self) -> Result<(), Error> {
        let tp: *mut Table = self.root.cast();
        let new = Table::new(&self.alloc, FIRST_CAPACITY, 0)?;
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

    /// Splits a full 1024-slot table in two by the next hash bit.
    fn split(&mut self, tp: *mut Table) -> Result<(), Error> {
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
        let left = Table::new(&self.alloc, MAX_CAPACITY, depth + 1)?;
        let right = match Table::new(&self.alloc, MAX_CAPACITY, depth + 1) {
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
                let full = t.group(c.group).ctrl.match_full();
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
        let _walk = Walk::new(&self.walkers);
        for tp in self.tables() {
            // SAFETY: a live table; `f` cannot modify the map (walkers).
            let t = unsafe { &*tp };
            for g in 0..t.group_count() {
                let group = t.group(g);
                for i in group.ctrl.match_full() {
                    let slot = &group.slots[i];
                    // SAFETY: full slots hold live keys.
                    let r = f(unsafe { slot.key.bytes() }, slot.value);
                    if r != 0 {
                        return r;
                    }
                }
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
    pub unsafe fn delete_if(this: *mut Map, mut pred: impl FnMut(&[u8], *mut c_void) -> i32) {
        // SAFETY: `this` is live; the walkers counter is a `Cell`.
        let walkers = unsafe { &(*this).walkers };
        let _walk = Walk::new(walkers);
        let mut c = Cursor::default();
        let mut deleted = false;
        // SAFETY: a shared look, released before `pred` runs.
        while let Some(e) = unsafe { (*this).next_entry(&mut c) } {
            // SAFETY: a full slot of a live table; erasing other slots does
            // not move it.
            let slot = unsafe { *(*e.table).slot(e.group, e.slot) };
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
            _pad: 0,
            walkers: Cell::new(0),
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
        let mut fresh = Map {
            len: 0,
            seed: self.seed,
            root: ptr::null_mut(),
            global_depth: 0,
            mode: MODE_EMPTY,
            _pad: 0,
            walkers: Cell::new(0),
            alloc: self.alloc,
        };
        fresh.shape(plan)?;
        for tp in self.tables() {
            // SAFETY: live tables of the old structure.
            let t = unsafe { &*tp };
            for (g, i) in t.full_slots() {
                let entry = *t.slot(g, i);
                // SAFETY: full slots hold live keys.
                let h = hash::hash(self.seed, unsafe { entry.key.bytes() });
                if let Err(e) = fresh.insert_moved(h, entry) {
                    // SAFETY: the keys still belong to the old structure.
                    unsafe { fresh.free_structure(false) };
                    return Err(e);
                }
            }
        }
        // SAFETY: every key now belongs to `fresh`.
        unsafe { self.free_structure(false) };
        self.root = fresh.root;
        self.mode = fresh.mode;
        self.global_depth = fresh.global_depth;
        Ok(())
    }

    /// Allocates an empty structure of `plan` (the map must be empty mode).
    fn shape(&mut self, plan: Plan) -> Result<(), Error> {
        debug_assert_eq!(self.mode, MODE_EMPTY);
        match plan {
            Plan::Empty => {}
            Plan::Small => {
                self.root = Table::new(&self.alloc, SLOTS, 0)?.cast();
                self.mode = MODE_SMALL;
            }
            Plan::Tables { depth, capacity } => {
                let mut dir = Directory::new(&self.alloc, depth)?;
                self.root = dir.array.cast();
                self.global_depth = depth as u8;
                self.mode = MODE_DIR;
                for j in 0..dir.entries() {
                    match Table::new(&self.alloc, capacity, depth) {
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
            self.make_room(tp)?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::{IntKey, Needle, TAG_U64};

    /// A value that is a number, not an address (no provenance for Miri).
    fn v(i: u64) -> *mut c_void {
        ptr::without_provenance_mut(i as usize)
    }

    fn long(i: u64) -> Vec<u8> {
        format!("a key longer than twelve bytes: {i}").into_bytes()
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
        unsafe { Map::delete_if(this, |k, _| (k.len() > 12) as i32) };
        m.check().unwrap();
        assert_eq!(m.len(), n - n.div_ceil(3));
        c.clear();
        c.check().unwrap();
        assert_eq!(c.len(), 0);
        c.free();
        m.free();
        assert_eq!(m.capacity(), 0);
    }

    /// A map large enough that lookups take the prefetching probe finds
    /// every key and no absent one. (Too large for Miri, which runs the
    /// same probe without the prefetch in `lifecycle`.)
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
        m.free();
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
    }
}
