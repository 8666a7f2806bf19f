//! Clearing, freeing and cloning a whole map.

use core::ptr;

use crate::alloc::Allocator;
use crate::directory::Directory;
use crate::hash::Seed;
use crate::layout::Uniform;
use crate::table::Table;
use crate::Error;

use super::{Map, Mode};

impl Map {
    /// Removes every entry, keeping the capacity; takes a fresh seed unless
    /// the seed is pinned.
    pub fn clear(&mut self) {
        for tp in self.tables() {
            // SAFETY: live tables owning their keys.
            unsafe {
                (*tp).release_keys(&self.alloc);
                (*tp).reset();
            }
        }
        self.len = 0;
        self.bump_epoch();
        self.reseed();
    }

    /// Frees the tables and the directory, and the keys if `keys`.
    ///
    /// # Safety
    /// The structure is not used afterwards (the caller resets the fields).
    pub(super) unsafe fn free_structure(&mut self, keys: bool) {
        for tp in self.tables() {
            // SAFETY: live tables owning their keys, freed once.
            unsafe {
                if keys {
                    (*tp).release_keys(&self.alloc);
                }
                Table::free(tp, &self.alloc);
            }
        }
        if self.mode == Mode::Dir {
            // SAFETY: the directory came from this allocator.
            unsafe { self.dir().free(&self.alloc) };
        }
        self.root = ptr::null_mut();
        self.mode = Mode::Empty;
        self.set_uniform(Uniform::UNKNOWN);
        self.set_depth(0);
    }

    /// Releases everything; the map is empty and usable afterwards (with
    /// its pinned seed, if it has one).
    pub fn free(&mut self) {
        // SAFETY: the fields are reset below.
        unsafe { self.free_structure(true) };
        self.len = 0;
        self.bump_epoch();
        self.reseed();
    }

    /// Pins the seed (for reproducible iteration order): only while the
    /// map holds no memory, since entries already placed would be lost.
    pub fn pin_seed(&mut self, seed: u64) -> Result<(), Error> {
        if self.mode != Mode::Empty {
            return Err(Error::Invalid);
        }
        self.seed = Seed::pinned(seed);
        self.pinned = 1;
        Ok(())
    }

    /// Gives the map its own allocator (or, with [`Allocator::current`],
    /// the process default back): only while it holds no memory, since
    /// every block must go back to the allocator that gave it.
    pub fn set_allocator(&mut self, alloc: Allocator) -> Result<(), Error> {
        if self.mode != Mode::Empty {
            return Err(Error::Invalid);
        }
        self.alloc = alloc;
        // A zero-filled map adopts the default when it first allocates
        // (`adopt_allocator`) unless it has an epoch: give it one.
        self.ensure_epoch();
        Ok(())
    }

    /// The allocator a clone of this map takes.
    pub fn clone_allocator(&self) -> Allocator {
        self.alloc.for_clone()
    }

    /// An independent copy allocating through `alloc`: same seed and
    /// tables, copied byte for byte (so the same iteration order), long keys
    /// duplicated. On failure nothing is left allocated.
    pub fn try_clone(&self, alloc: Allocator) -> Result<Map, Error> {
        let mut copy = Map {
            len: self.len,
            seed: self.seed,
            root: ptr::null_mut(),
            uniform: self.uniform,
            kinds: self.kinds,
            mode: self.mode,
            pinned: self.pinned,
            shift: self.shift,
            // An epoch of its own tells it apart from its source.
            epoch: crate::seed::stamp(),
            alloc,
        };
        match self.mode {
            Mode::Small => {
                // SAFETY: the small table is live with live keys.
                copy.root = unsafe { (*self.root.cast::<Table>()).duplicate(&alloc)? }.cast();
            }
            Mode::Dir => {
                let src = self.dir();
                let mut dir = Directory::new(&alloc, src.depth)?;
                for tp in src.tables() {
                    // SAFETY: live tables with live keys.
                    match unsafe { (*tp).duplicate(&alloc) } {
                        Ok(t) => {
                            // SAFETY: `t` is a copy of a live table.
                            unsafe {
                                let (first, depth) = ((*t).index() as usize, (*t).local_depth());
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
                                    j += dir.span((*t).local_depth());
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
}

/// A snapshot's side of the map (`crate::snapshot::map`): a load builds
/// the entries in a map beside the destination and hands it over only
/// when all of it is accepted.
impl Map {
    /// Whether the map holds no memory: a load's destination.
    pub(crate) fn holds_nothing(&self) -> bool {
        self.mode == Mode::Empty
    }

    /// The allocator the map's next block comes from (a zero-filled map
    /// takes the default in force, see `adopt_allocator`).
    /// The allocator as the map holds it, read without a lock: a
    /// zero-filled map's takes effect when it first allocates (see
    /// `allocator`), and such a map has no entry for a save to encode.
    pub(crate) fn held_allocator(&self) -> Allocator {
        self.alloc
    }

    pub(crate) fn allocator(&self) -> Allocator {
        if self.epoch == 0 {
            Allocator::current()
        } else {
            self.alloc
        }
    }

    /// An empty map beside this one, which holds nothing: its allocator,
    /// its seed if pinned (pinned still), else a fresh one.
    pub(crate) fn beside(&self) -> Map {
        let seed = if self.pinned != 0 {
            self.seed
        } else {
            Seed::drawn()
        };
        Map {
            len: 0,
            seed,
            root: ptr::null_mut(),
            uniform: Uniform::UNKNOWN,
            kinds: Uniform::UNKNOWN,
            mode: Mode::Empty,
            pinned: self.pinned,
            shift: 63,
            epoch: crate::seed::stamp(),
            alloc: self.allocator(),
        }
    }

    /// Takes the structure of `built`, a map `beside` made from this one,
    /// which still holds nothing. Cursors of this map go stale.
    pub(crate) fn adopt(&mut self, built: Map) {
        debug_assert!(self.holds_nothing());
        self.len = built.len;
        self.seed = built.seed;
        self.root = built.root;
        self.mode = built.mode;
        self.uniform = built.uniform;
        self.kinds = built.kinds;
        self.shift = built.shift;
        self.alloc = built.alloc;
        self.ensure_epoch();
        self.bump_epoch();
    }
}
