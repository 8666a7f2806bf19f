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
//!
//! This file holds the map's state and its single lookups: [`Map::look`]
//! (through [`get_in`], the one lookup, and `look_other`) and the byte
//! keys' [`Map::get_bytes_guarded`] and [`Map::get_long`], so that a
//! lookup reads top-down in `ffi/map.rs`, this file and `table/probe.rs`.
//! Sets, get-or-inserts, deletes and takes are in `write.rs` (the one
//! insert and the one removal, by key length, and where the caller's
//! [`Guard`] goes), batch lookups in `batch.rs`, making room in
//! `growth.rs`, `reserve` and `compact` in `plan.rs`, walks in `walks.rs`
//! and `cursor.rs`.

mod batch;
mod check;
mod cursor;
mod growth;
mod image;
mod lifecycle;
mod plan;
mod report;
#[cfg(test)]
mod tests;
mod walks;
mod write;

pub use cursor::Iter;
pub(crate) use image::LoadKey;
pub use write::{GetOrInsert, Placed, Set, Upsert};

use core::ffi::c_void;
use core::ptr;

use crate::alloc::Allocator;
use crate::directory::{self, Directory, Tables};
use crate::guard::Guard;
use crate::hash::Seed;
use crate::key::{Key, Needle, Short};
use crate::layout::{kind_of, on_layout, General, Int, Kind, Layout, Uniform};
use crate::table::Table;
use crate::table::Typed;
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

    /// Looks a byte key up, by its length (the classes of `write.rs`'s
    /// module docs), and gives its value to `found`. (Each path calls
    /// `found` itself, so the short keys' path does not wait on a merge of
    /// the paths' results.)
    #[inline(always)]
    pub fn get_bytes_guarded<G: Guard>(
        &self,
        n: Needle<'_>,
        found: impl FnOnce(*mut c_void),
    ) -> Result<(), Error> {
        if let Some(short) = Short::<16>::new(n) {
            self.get_then(&short, found)
        } else if let Some(short) = Short::<32, 17>::new(n) {
            self.get_then(&short, found)
        } else {
            // Longer keys (the C layer takes them apart before this:
            // `ffi/map.rs`, `get_apart`).
            found(self.get_long::<G>(n.key())?.ok_or(Error::NotFound)?);
            Ok(())
        }
    }

    /// `get`, giving the value to `found`. Through [`Map::look`], so that
    /// each of its paths ends in its own copy of this work rather than
    /// merging their results first.
    #[inline(always)]
    pub fn get_then(&self, n: &impl Key, found: impl FnOnce(*mut c_void)) -> Result<(), Error> {
        self.look(n, |value| {
            found(value.ok_or(Error::NotFound)?);
            Ok(())
        })
    }

    /// A lookup of a key longer than [`crate::hash::SHORT`], under the
    /// guard (single lookups, the C layer's `get_apart`, and batches),
    /// given its bytes.
    pub fn get_long<G: Guard>(&self, key: &[u8]) -> Result<Option<*mut c_void>, Error> {
        let mut value = None;
        G::run(|| {
            value = self.get(&Needle::bytes(key));
            Ok(())
        })?;
        Ok(value)
    }
}
