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
//! calls. A walk (`slate_each`, `slate_delete_if`) keeps nothing in it: it
//! compares the map's epoch and length before and after each callback
//! (see `crate::stamp`).

mod batch;
mod check;
mod cursor;
mod growth;
mod image;
mod keys;
mod lifecycle;
mod plan;
mod report;
#[cfg(test)]
mod tests;
mod walks;

pub use cursor::Iter;
pub(crate) use image::LoadKey;
#[cfg(test)]
pub(crate) use keys::Bare;
pub(crate) use keys::Guard;

use core::ffi::c_void;
use core::ptr;

use crate::alloc::Allocator;
use crate::directory::{self, Directory, Tables};
use crate::hash::Seed;
use crate::key::{Key, KeyRepr};
use crate::layout::{kind_of, on_layout, General, Int, Kind, Layout, Uniform};
use crate::table::Table;
use crate::table::{Lookup, Search, Typed, Vacancy};
use crate::Error;

/// Which of the three modes (see the module docs) a map is in. A
/// zero-filled `slate_s` is an empty map.
#[repr(u8)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    Empty = 0,
    Small = 1,
    Dir = 2,
}

#[repr(C)]
pub struct Map {
    len: u64,
    seed: Seed,
    /// Small: the table. Directory: the array of table pointers.
    root: *mut u8,
    /// The kind of every table, where known, and whether lookups
    /// prefetch: what a lookup checks instead of the map's mode, its
    /// table's kind and its depth. Set by `set_uniform` and `set_depth`.
    uniform: Uniform,
    /// `uniform` without its far bit: what a write checks, since a map
    /// past the caches writes as one within them. Set with `uniform`.
    kinds: Uniform,
    mode: Mode,
    /// 1 when the seed is the caller's (`slate_pin_seed`): kept when the
    /// map empties, clears or is freed.
    pinned: u8,
    /// `63 - global_depth` (0 in a zero-filled, empty map), which it
    /// holds: how far a lookup shifts `hash >> 1` for its directory index
    /// (see `index`). Set by `set_depth`.
    shift: u8,
    /// Counts the changes that make cursors stale, from a start drawn
    /// for this map (see `cursor.rs`); 0 until a zero-filled map first
    /// gets tables.
    epoch: u64,
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

/// An insert that [`Map::try_set`] could not do in place: the key's hash,
/// unless the map had no table to hash it for.
#[derive(Clone, Copy)]
pub struct Pending {
    hash: Option<u64>,
}

/// What an insert tried in place ([`Map::try_set`]) came to.
pub enum Tried<T> {
    /// Nothing done: the key's table must change first.
    Pending(Pending),
    /// Done: the key was found or stored; what the upsert hands back.
    Done(T),
    /// Failed with nothing changed (a long key's copy could not be made).
    Failed(Error),
}

/// Where a get-or-insert left the key: the address of its stored value,
/// and whether the key was new.
#[derive(Clone, Copy)]
pub struct Placed {
    pub value: *mut *mut c_void,
    pub inserted: bool,
}

/// What the one insert does with a key it finds, and what it hands back:
/// a set replaces the value and hands back nothing; a get-or-insert keeps
/// it and hands back where it is ([`Placed`]).
pub trait Upsert {
    type Out;
    /// Whether a found key keeps its value.
    const KEEP: bool;
    fn placed(value: *mut *mut c_void, inserted: bool) -> Self::Out;
}

/// `slate_set`: insert or replace.
pub enum Set {}

impl Upsert for Set {
    type Out = ();
    const KEEP: bool = false;
    fn placed(_: *mut *mut c_void, _: bool) {}
}

/// `slate_entry`: get or insert.
pub enum GetOrInsert {}

impl Upsert for GetOrInsert {
    type Out = Placed;
    const KEEP: bool = true;
    fn placed(value: *mut *mut c_void, inserted: bool) -> Placed {
        Placed { value, inserted }
    }
}

/// The lookup of `n`, of hash `h`, in the table of directory entry `e`:
/// the one lookup, which single lookups, batches and every other case
/// take, specialised by three constants:
///
/// - `USUAL`: the caller found the map's tables all of the key's usual
///   layout (`Uniform`: an integer key's own kind, or general tables for
///   a byte key), so the entry's kind is not read; else the probe runs in
///   whatever layout the entry has.
/// - `PREFETCH`: each group's slots are requested with its control word
///   (maps past the caches, see [`Typed::get`]).
/// - `PEEL`: an integer key's probe searches its first group in
///   [`Typed::get`] and the rest in `get_further` (single lookups; a
///   batch runs the whole probe in its loop).
///
/// # Safety
/// `e` is a live table's entry (of the key's usual layout if `USUAL`).
#[inline(always)]
pub(super) unsafe fn get_in<
    const USUAL: bool,
    const PREFETCH: bool,
    const PEEL: bool,
    K: Key,
    R,
>(
    e: directory::Entry,
    h: u64,
    n: &K,
    done: impl FnOnce(Option<*mut c_void>) -> R,
) -> R {
    // SAFETY (all): the caller's guarantee, in the layout the kind names;
    // only read. In the usual layout the matcher always takes the key.
    unsafe {
        if USUAL && K::INT {
            debug_assert_eq!(Some(e.kind), Uniform::usual(n).kind());
            match Int::matcher(kind_of(n), n) {
                Some(eq) => Typed::<Int>::from_groups(e.groups, e.mask)
                    .get::<PREFETCH, PEEL, _>(h, eq, done),
                None => done(None),
            }
        } else if USUAL {
            debug_assert_eq!(e.kind, Kind::Bytes);
            match General::matcher(Kind::Bytes, n) {
                Some(eq) => Typed::<General>::from_groups(e.groups, e.mask)
                    .get::<PREFETCH, false, _>(h, eq, done),
                None => done(None),
            }
        } else {
            on_layout!(e.kind, L => match L::matcher(e.kind, n) {
                Some(eq) => Typed::<L>::from_groups(e.groups, e.mask)
                    .get::<PREFETCH, false, _>(h, eq, done),
                None => done(None),
            })
        }
    }
}

/// [`Map::look`] where the map is not within the caches with all its
/// tables of the key's usual layout: an empty map; a map past the caches,
/// whose lookups prefetch; tables of another or several kinds. Its
/// attribute: `make lto-test`.
#[inline(never)]
fn look_other<K: Key, R>(m: &Map, n: K, done: impl FnOnce(Option<*mut c_void>) -> R) -> R {
    if !m.is_tabled() {
        return done(None);
    }
    let h = m.hash(&n);
    let e = m.entry_for(h);
    // SAFETY (both): the entry of a live table, of the key's usual layout
    // where `uniform` says so.
    unsafe {
        if m.uniform == Uniform::usual::<K>(&n).far(true) {
            get_in::<true, true, true, K, R>(e, h, &n, done)
        } else {
            get_in::<false, false, false, K, R>(e, h, &n, done)
        }
    }
}

/// What a set or get-or-insert does with a key it found in slot `s`.
fn found<L: Layout, U: Upsert>(s: *mut L::Slot, value: *mut c_void) -> U::Out {
    if !U::KEEP {
        // SAFETY: a full slot of a table the caller modifies.
        L::set_value(unsafe { &mut *s }, value);
    }
    U::placed(L::value_ptr(s), false)
}

impl Map {
    /// An empty map with a fresh seed, allocating through `alloc`.
    pub fn new(alloc: Allocator) -> Map {
        Map {
            len: 0,
            seed: Seed::drawn(),
            root: ptr::null_mut(),
            uniform: Uniform::UNKNOWN,
            kinds: Uniform::UNKNOWN,
            mode: Mode::Empty,
            pinned: 0,
            shift: 63,
            epoch: crate::seed::stamp(),
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

    /// Whether the map has tables (is not in empty mode).
    #[inline]
    pub(super) fn is_tabled(&self) -> bool {
        self.mode != Mode::Empty
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
            // `global_depth`, read as a lookup reads it.
            depth: (63 - self.shift) as u32,
        }
    }

    #[inline]
    fn hash(&self, n: &impl Key) -> u64 {
        n.hash(self.seed.get())
    }

    /// The global depth: 0 in small and empty mode.
    pub(crate) fn global_depth(&self) -> u8 {
        if self.mode == Mode::Empty {
            0
        } else {
            63 - self.shift
        }
    }

    /// Sets the global depth (and with it whether lookups prefetch).
    fn set_depth(&mut self, depth: u8) {
        debug_assert!(depth as u32 <= directory::MAX_DEPTH);
        self.shift = 63 - depth;
        self.set_uniform(self.uniform);
    }

    /// Sets the kind every table has (`Uniform::UNKNOWN`: not known), for
    /// a map of the depth it has.
    pub(super) fn set_uniform(&mut self, u: Uniform) {
        self.uniform = u.far(self.prefetches());
        self.kinds = u.far(false);
    }

    /// Whether maps of this depth prefetch slots (`PREFETCH_DEPTH`); read
    /// from the shift, as a lookup reads the depth (any answer in empty
    /// mode).
    fn prefetches(&self) -> bool {
        self.shift <= 63 - PREFETCH_DEPTH
    }

    /// Keeps `uniform` true after a table of the map took `kind`'s layout.
    /// Growth keeps a table's kind, and costs one compare here; a table
    /// that changed kind has the directory read, in order, up to the
    /// first entry of another kind: the whole of it only when every table
    /// now has `kind` (so a map whose tables turn integer one by one, as
    /// after a `reserve`, ends uniform again).
    pub(super) fn took_kind(&mut self, kind: Kind) {
        if self.uniform.far(false) == Uniform::of(kind) {
            return;
        }
        let dir = self.dir();
        let one = self.mode == Mode::Small || (0..dir.entries()).all(|j| dir.entry(j).kind == kind);
        self.set_uniform(if one {
            Uniform::of(kind)
        } else {
            Uniform::UNKNOWN
        });
    }

    /// The directory index of a hash (not in empty mode): `Directory::index`
    /// with the shift kept beside the depth.
    #[inline]
    fn index(&self, hash: u64) -> usize {
        debug_assert!(self.mode != Mode::Empty);
        let j = ((hash >> 1) >> self.shift) as usize;
        debug_assert_eq!(j, self.dir().index(hash));
        j
    }

    /// The directory entry a hash belongs to (not in empty mode; small mode
    /// too, see `dir`).
    #[inline]
    fn entry_for(&self, hash: u64) -> directory::Entry {
        self.dir().entry(self.index(hash))
    }

    /// The table a hash belongs to (not in empty mode).
    #[inline]
    fn table_for(&self, hash: u64) -> *mut Table {
        self.entry_for(hash).table()
    }

    /// The distinct tables, in walk order.
    pub fn tables(&self) -> MapTables {
        match self.mode {
            Mode::Small => MapTables::One(Some(self.root.cast())),
            Mode::Dir => MapTables::Dir(self.dir().tables()),
            _ => MapTables::None,
        }
    }

    /// Total slots.
    pub fn capacity(&self) -> u64 {
        // SAFETY: the map's tables are live.
        self.tables()
            .map(|t| unsafe { (*t).capacity() as u64 })
            .sum()
    }

    /// Looks a key up.
    pub fn get(&self, n: &impl Key) -> Option<*mut c_void> {
        self.look(n, |found| found)
    }

    /// Looks a key up and hands `done` its value, or `None`. Every path of
    /// the lookup calls `done` itself, those in other functions too (a
    /// probe past the first group, a table of another layout, an empty
    /// map).
    #[inline(always)]
    pub fn look<K: Key, R>(&self, n: &K, done: impl FnOnce(Option<*mut c_void>) -> R) -> R {
        // One compare tells that the map has tables, that they all have
        // the key's usual layout, and that the map is within the caches
        // (`PREFETCH_DEPTH`).
        if self.uniform != Uniform::usual::<K>(n) {
            return look_other(self, *n, done);
        }
        let h = self.hash(n);
        // From the directory entry straight to the groups: the table's
        // header is not loaded. In small mode the entry is the table's
        // header (see `dir`).
        let e = self.entry_for(h);
        // SAFETY: the entry of a live table, of the key's usual layout.
        unsafe { get_in::<true, false, true, K, R>(e, h, n, done) }
    }

    /// Inserts or replaces. On error the map is unchanged.
    #[cfg(test)]
    pub fn set(&mut self, n: &impl Key, value: *mut c_void) -> Result<(), Error> {
        self.upsert::<Set>(n, value)
    }

    /// A set, or a get-or-insert (a present key keeps its value, a new one
    /// is stored with `value`), as `U` says. On error the map is unchanged.
    pub fn upsert<U: Upsert>(&mut self, n: &impl Key, value: *mut c_void) -> Result<U::Out, Error> {
        match self.try_set::<U>(n, value) {
            Tried::Done(r) => Ok(r),
            Tried::Failed(e) => Err(e),
            Tried::Pending(pending) => self.set_pending::<U>(pending, n, value),
        }
    }

    /// `set` when no table must be made, grown or switched to another
    /// layout: [`Tried::Pending`] (nothing done) otherwise, for
    /// [`Map::set_pending`] to finish. Allocates at most a long key's copy
    /// and cannot panic: the hot path of the C API's inserts, which then
    /// needs no guard.
    pub fn try_set<U: Upsert>(&mut self, n: &impl Key, value: *mut c_void) -> Tried<U::Out> {
        if self.mode == Mode::Empty {
            return Tried::Pending(Pending { hash: None });
        }
        let h = self.hash(n);
        self.insert::<false, false, U, _>(h, n, value, &mut None)
    }

    /// Finishes a `set` that [`Map::try_set`] left pending: makes room for
    /// the key (a first table, a rebuild or split, a layout switch) and
    /// inserts it, hashed once. The key's copy is made first, so that a
    /// failure to make it changes nothing.
    pub fn set_pending<U: Upsert>(
        &mut self,
        pending: Pending,
        n: &impl Key,
        value: *mut c_void,
    ) -> Result<U::Out, Error> {
        self.adopt_allocator();
        let want = kind_of(n);
        // Integer keys own nothing; other keys are stored as a general
        // table keeps them.
        let mut owned = match want {
            Kind::Bytes => Some(n.to_stored(&self.alloc)?),
            _ => None,
        };
        let done = self.make_room_and_insert::<U>(pending, n, value, want, &mut owned);
        if let Some(key) = owned {
            // SAFETY: made above from this allocator, not stored.
            unsafe { key.release(&self.alloc) };
        }
        done
    }

    /// The loop of `set_pending`: room, then the insert, until it is done.
    fn make_room_and_insert<U: Upsert>(
        &mut self,
        pending: Pending,
        n: &impl Key,
        value: *mut c_void,
        want: Kind,
        owned: &mut Option<KeyRepr>,
    ) -> Result<U::Out, Error> {
        let h = match pending.hash {
            Some(h) => h,
            None => {
                self.first_table(want)?;
                self.hash(n)
            }
        };
        loop {
            match self.insert::<true, false, U, _>(h, n, value, owned) {
                Tried::Done(r) => return Ok(r),
                Tried::Failed(e) => return Err(e),
                Tried::Pending(_) => {}
            }
            self.make_room(self.table_for(h), want)?;
        }
    }

    /// The one insert: into the table `h` belongs to, in place, or
    /// [`Tried::Pending`] when that table must change first (it has no room,
    /// cannot hold the key's kind, or is empty and should take the key's
    /// layout). `owned`: the key's stored copy, if one was made; taken when
    /// the key is stored, left for the caller otherwise. `OWNED`: whether
    /// `owned` may hold one; the fast path has none and says so as a
    /// constant. `USUAL`: the caller found the map's tables all of the
    /// key's usual layout (as for [`get_in`]), so the entry's kind is not
    /// read. `U`: what a found key's value becomes, and what the insert
    /// hands back.
    #[inline(always)]
    pub(super) fn insert<const OWNED: bool, const USUAL: bool, U: Upsert, K: Key>(
        &mut self,
        h: u64,
        n: &K,
        value: *mut c_void,
        owned: &mut Option<KeyRepr>,
    ) -> Tried<U::Out> {
        // The probe takes the groups, mask and kind from the directory
        // entry, as lookups do, so it need not wait for the table's header.
        let e = self.entry_for(h);
        if USUAL && K::INT {
            self.insert_in::<Int, OWNED, true, U, K>(e, kind_of(n), h, n, value, owned)
        } else if USUAL {
            self.insert_in::<General, OWNED, false, U, K>(e, Kind::Bytes, h, n, value, owned)
        } else {
            on_layout!(e.kind, L => self.insert_in::<L, OWNED, false, U, K>(e, e.kind, h, n, value, owned))
        }
    }

    /// [`Map::insert`] into the table of entry `e`, of kind `kind`, laid
    /// out in `L`.
    #[inline(always)]
    fn insert_in<L: Layout, const OWNED: bool, const PEEL: bool, U: Upsert, K: Key>(
        &mut self,
        e: directory::Entry,
        kind: Kind,
        h: u64,
        n: &K,
        value: *mut c_void,
        owned: &mut Option<KeyRepr>,
    ) -> Tried<U::Out> {
        debug_assert_eq!(e.kind, kind);
        let pending = Pending { hash: Some(h) };
        // SAFETY: the entry of a live table of this map, of kind `kind`,
        // laid out in `L`; `self` is borrowed uniquely.
        let mut t = unsafe { Typed::<L>::from_groups(e.groups, e.mask) };
        let Some(eq) = L::matcher(kind, n) else {
            return Tried::Pending(pending);
        };
        match t.find_or_vacant::<PEEL>(h, eq) {
            Lookup::Found(s) => Tried::Done(found::<L, U>(s, value)),
            // An empty general table takes an integer key's layout
            // (`make_room`); an integer table's matcher only takes keys of
            // its kind.
            Lookup::Vacant(_) if !L::INT && t.table().used() == 0 && n.int().is_some() => {
                Tried::Pending(pending)
            }
            Lookup::Vacant(v) => {
                let key = if OWNED { owned.take() } else { None };
                self.fill::<L, U>(&mut t, kind, v, h, n, key, value)
            }
            Lookup::NoRoom => Tried::Pending(pending),
        }
    }

    /// Stores `n` (or `key`, its stored copy) with `value` in vacancy `v`
    /// of `t`, a table of this map of kind `kind`, and counts it.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn fill<L: Layout, U: Upsert>(
        &mut self,
        t: &mut Typed<'_, L>,
        kind: Kind,
        v: Vacancy,
        h: u64,
        n: &impl Key,
        key: Option<KeyRepr>,
        value: *mut c_void,
    ) -> Tried<U::Out> {
        let alloc = &self.alloc;
        let at = t.vacant_slot(&v);
        let stored = t.insert_at(v, h, move |dst| {
            // SAFETY: a vacant slot's memory.
            unsafe { L::store(kind, dst, n, key, value, alloc) }
        });
        match stored {
            Ok(()) => {
                self.len += 1;
                self.bump_epoch();
                Tried::Done(U::placed(L::value_ptr(at), true))
            }
            Err(e) => Tried::Failed(e),
        }
    }

    /// Removes a key and returns its value.
    pub fn take(&mut self, n: &impl Key) -> Result<*mut c_void, Error> {
        let value = self.remove(n)?;
        if self.len == 0 {
            self.reseed();
        }
        Ok(value)
    }

    /// Draws a seed for a map that has none: a zero-filled `slate_s`, which
    /// never had `slate()`, has seed 0. Every path that gives a map tables
    /// calls it first.
    fn ensure_seed(&mut self) {
        if self.unseeded() {
            self.seed = Seed::drawn();
        }
        self.ensure_epoch();
    }

    /// A zero-filled map, never given to `slate()` (its epoch is 0), takes
    /// the allocator in force before it allocates, as `slate()` would have
    /// given it; from its first tables on (when it gets its epoch) it keeps
    /// that one. Called first by every path that may allocate for a map
    /// without tables.
    pub(super) fn adopt_allocator(&mut self) {
        if self.epoch == 0 {
            self.alloc = Allocator::current();
        }
    }

    /// Whether the map has no seed yet (a pinned seed may be 0).
    pub(super) fn unseeded(&self) -> bool {
        self.seed.is_none() && self.pinned == 0
    }

    /// A map left empty takes a fresh seed, unless its seed is pinned
    /// (drawing the first seed of the process reads OS entropy).
    pub fn reseed(&mut self) {
        if self.pinned == 0 {
            self.seed = Seed::drawn();
        }
    }

    /// Removes a key.
    #[cfg(test)]
    pub fn delete(&mut self, n: &impl Key) -> Result<(), Error> {
        self.take(n).map(|_| ())
    }

    /// `take` without the fresh seed of a map left empty: the caller
    /// calls `reseed` then. Allocates nothing and cannot panic.
    pub fn remove(&mut self, n: &impl Key) -> Result<*mut c_void, Error> {
        if self.mode == Mode::Empty {
            return Err(Error::NotFound);
        }
        self.remove_hashed::<false, _>(self.hash(n), n)
            .unwrap_or(Err(Error::NotFound))
    }

    /// [`Map::remove`] of the key of hash `h` (not in empty mode).
    /// `USUAL`: as for [`Map::insert`]; then an integer key's probe is
    /// peeled (see [`Typed::find_or_vacant`]): `None` when its first group
    /// is full and the removal is left to the unpeeled probe. Always
    /// `Some` otherwise.
    #[inline(always)]
    pub(super) fn remove_hashed<const USUAL: bool, K: Key>(
        &mut self,
        h: u64,
        n: &K,
    ) -> Option<Result<*mut c_void, Error>> {
        // From the directory entry, as in `insert`. Large maps prefetch a
        // group's slots, as lookups do; a map whose `uniform` names the
        // key's usual layout is within the caches.
        let e = self.entry_for(h);
        if USUAL && K::INT {
            self.remove_in::<Int, false, true, K>(e, kind_of(n), h, n)
        } else if USUAL {
            self.remove_in::<General, false, false, K>(e, Kind::Bytes, h, n)
        } else if self.prefetches() {
            on_layout!(e.kind, L => self.remove_in::<L, true, false, K>(e, e.kind, h, n))
        } else {
            on_layout!(e.kind, L => self.remove_in::<L, false, false, K>(e, e.kind, h, n))
        }
    }

    /// [`Map::remove_hashed`] from the table of entry `e`, of kind `kind`,
    /// laid out in `L`.
    #[inline(always)]
    fn remove_in<L: Layout, const PREFETCH: bool, const PEEL: bool, K: Key>(
        &mut self,
        e: directory::Entry,
        kind: Kind,
        h: u64,
        n: &K,
    ) -> Option<Result<*mut c_void, Error>> {
        debug_assert_eq!(e.kind, kind);
        // SAFETY: the entry of a live table of this map, of kind `kind`,
        // laid out in `L`; `self` is borrowed uniquely.
        let mut t = unsafe { Typed::<L>::from_groups(e.groups, e.mask) };
        let Some(eq) = L::matcher(kind, n) else {
            return Some(Err(Error::NotFound));
        };
        let found = if PEEL {
            match t.search_first::<PREFETCH>(h, &eq) {
                (g, Search::Found(i, s)) => Some((g, i, s)),
                (_, Search::Absent(_)) => None,
                (_, Search::Further) => return None,
            }
        } else {
            t.find::<PREFETCH>(h, eq)
        };
        let Some((g, i, s)) = found else {
            return Some(Err(Error::NotFound));
        };
        // SAFETY: a full slot of the table, whose key is live, owned by
        // the table and made by this map's allocator. Erasing marks the
        // slot in its control word only.
        let value = unsafe {
            L::release(&*s, &self.alloc);
            L::value(&*s)
        };
        t.table().erase_at(g, i);
        self.len -= 1;
        self.bump_epoch();
        Some(Ok(value))
    }
}
