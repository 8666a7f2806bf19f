//! Planning: the shape `reserve` and `compact` build for a number of
//! entries, and the rebuild into it.
//!
//! A plan sizes its tables for [`PLANNED_LOAD`] entries each, below their
//! limit of 896, so that the uneven spread of hashes over tables rarely forces a
//! split during the fill. `reserve(n)` does nothing when `n` is not above
//! the length or the map already has room for `n`; otherwise it rebuilds
//! the whole map once (every entry moves: a pause the caller asked for).
//! The plan is checked first: a directory deeper than [`MAX_DEPTH`], or
//! more memory than the machine has (Linux) or than the address space
//! holds, is `SLATE_ERROR_FULL` before anything is allocated. `compact`
//! rebuilds for the current length with the same planned load; an empty
//! map releases everything (keeping its seed), and one of at most 8
//! entries becomes a small map again. A rebuild gives every table one
//! kind ([`Map::common_kind`]).

use core::ptr;

use crate::directory::{Directory, MAX_DEPTH};
use crate::group::SLOTS;
use crate::hash::Seed;
use crate::layout::{on_layout, Kind, Layout, Uniform};
use crate::table::Typed;
use crate::table::{max_load, Table, FIRST_CAPACITY, MAX_CAPACITY};
use crate::Error;

use super::{Map, Mode};

/// Entries a table is planned for when a map is sized in advance
/// (`reserve`, `compact`): below its 896-entry limit, so that the uneven
/// spread of hashes over tables rarely forces a split.
const PLANNED_LOAD: u64 = 768;

/// The shape `reserve` and `compact` build for `n` entries.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Plan {
    Empty,
    Small,
    /// `1 << depth` tables of `capacity` slots, each at local depth `depth`.
    Tables {
        depth: u32,
        capacity: usize,
    },
}

impl Plan {
    pub(super) fn for_entries(n: u64) -> Result<Plan, Error> {
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
        let bytes = Table::bytes(MAX_CAPACITY, Kind::Bytes)
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

    pub(super) fn capacity(self) -> u64 {
        match self {
            Plan::Empty => 0,
            Plan::Small => SLOTS as u64,
            Plan::Tables { depth, capacity } => (capacity as u64) << depth,
        }
    }
}

impl Map {
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
    pub(super) fn rebuild(&mut self, plan: Plan) -> Result<(), Error> {
        self.adopt_allocator();
        // An unseeded map is empty: seeding it changes no entry's hash. The
        // seed is kept only if the rebuild succeeds.
        let seed = if self.unseeded() {
            Seed::drawn()
        } else {
            self.seed
        };
        let mut fresh = Map {
            len: 0,
            seed,
            root: ptr::null_mut(),
            uniform: Uniform::UNKNOWN,
            kinds: Uniform::UNKNOWN,
            mode: Mode::Empty,
            pinned: self.pinned,
            shift: 63,
            epoch: 0,
            alloc: self.alloc,
        };
        fresh.shape(plan, self.common_kind())?;
        for tp in self.tables() {
            // SAFETY: live tables of the old structure.
            let (kind, seed) = (unsafe { (*tp).kind() }, self.seed.get());
            let mut failed = None;
            // SAFETY: a live table in its kind's layout, only read; full
            // slots hold live keys.
            on_layout!(kind, L => unsafe {
                Typed::<L>::of(tp).walk(|s| {
                    let h = L::hash(seed, kind, s);
                    match fresh.insert_moved::<L>(h, kind, s) {
                        Ok(()) => 0,
                        Err(e) => {
                            failed = Some(e);
                            1
                        }
                    }
                })
            });
            if let Some(e) = failed {
                // SAFETY: the keys still belong to the old structure.
                unsafe { fresh.free_structure(false) };
                return Err(e);
            }
        }
        // SAFETY: every key now belongs to `fresh`.
        unsafe { self.free_structure(false) };
        self.seed = seed;
        self.root = fresh.root;
        self.mode = fresh.mode;
        self.uniform = fresh.uniform;
        self.set_depth(fresh.global_depth());
        self.ensure_epoch();
        self.bump_epoch();
        Ok(())
    }

    /// The kind of table that holds every key of the map: an integer kind
    /// when all keys are integer keys of that kind, else the general one
    /// (also for an empty map, whose next keys are unknown).
    pub(super) fn common_kind(&self) -> Kind {
        let mut common = None;
        // Whether key kind `k` leaves the keys seen so far of one integer kind.
        let mut agree = |k: Kind| {
            let one = k != Kind::Bytes && common.is_none_or(|c| c == k);
            common = Some(k);
            one
        };
        for tp in self.tables() {
            // SAFETY: live tables of this map.
            let t = unsafe { &*tp };
            if t.kind() != Kind::Bytes {
                // An integer table's keys are all of its kind.
                if t.used() > 0 && !agree(t.kind()) {
                    return Kind::Bytes;
                }
                continue;
            }
            for (g, i) in t.full_slots() {
                let k = t
                    .entry(g, i)
                    .key
                    .int()
                    .map_or(Kind::Bytes, |(tag, _)| Kind::of_tag(tag));
                if !agree(k) {
                    return Kind::Bytes;
                }
            }
        }
        common.unwrap_or(Kind::Bytes)
    }

    /// Allocates an empty structure of `plan` with tables of `kind` (the
    /// map must be empty mode).
    pub(super) fn shape(&mut self, plan: Plan, kind: Kind) -> Result<(), Error> {
        debug_assert_eq!(self.mode, Mode::Empty);
        match plan {
            Plan::Empty => {}
            Plan::Small => {
                self.root = Table::new(&self.alloc, SLOTS, 0, kind)?.cast();
                self.mode = Mode::Small;
                self.set_depth(0);
                self.set_uniform(Uniform::of(kind));
            }
            Plan::Tables { depth, capacity } => {
                let mut dir = Directory::new(&self.alloc, depth)?;
                self.root = dir.array.cast();
                self.set_depth(depth as u8);
                self.mode = Mode::Dir;
                self.set_uniform(Uniform::of(kind));
                for j in 0..dir.entries() {
                    match Table::new(&self.alloc, capacity, depth, kind) {
                        Ok(t) => {
                            // SAFETY: `t` is live.
                            unsafe {
                                (*t).set_index(j as u32);
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
                            self.mode = Mode::Empty;
                            self.uniform = Uniform::UNKNOWN;
                            self.set_depth(0);
                            return Err(e);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Adds an entry known to be absent, moving in from slot `s` of a table
    /// of kind `from`, laid out in `F`: this map owns its key now.
    fn insert_moved<F: Layout>(&mut self, h: u64, from: Kind, s: &F::Slot) -> Result<(), Error> {
        loop {
            let tp = self.table_for(h);
            // SAFETY: a live table of this map, in its kind's layout.
            let placed = on_layout!(unsafe { (*tp).kind() }, T => unsafe {
                Typed::<T>::of(tp).place(h, T::moved::<F>(from, s))
            });
            if placed {
                self.len += 1;
                return Ok(());
            }
            // SAFETY: a live table of this map.
            let kind = unsafe { (*tp).kind() };
            self.make_room(tp, kind)?;
        }
    }
}
