//! A table: an open-addressed array of groups, at most 1024 slots: its
//! header, its allocation and its counters.
//!
//! One allocation holds the header and the groups right after it, so a
//! table is one pointer in the directory. A table's capacity is a power of
//! two number of slots, at least 8 (one group) and at most [`MAX_CAPACITY`].
//!
//! A group is one control word and the eight slots it describes, but the
//! two are kept apart: the table's control words come first, one dense
//! array, then its slots, group by group:
//!
//! ```text
//! [header][ctrl 0][ctrl 1] ... [ctrl n-1][slots of group 0][slots of group 1] ...
//! ```
//!
//! How keys are found in it is the probe's (`table/probe.rs`, a child
//! module: the header knows nothing of the probe).
//!
//! `growth_left` is the number of empty slots an insert may still take
//! before the table must be rebuilt: `capacity * 7/8 - used - tombstones`.
//! Keeping one slot in eight empty keeps probe sequences short and
//! guarantees every probe ends. Deleting from a group that still has an
//! empty slot empties the slot again (a probe would stop at that group
//! anyway) and gives back growth; deleting from a full group leaves a
//! tombstone, which inserts reuse once the key is known absent.
//!
//! When an insert finds `growth_left == 0` the table is rebuilt, moving at
//! most 1024 entries: in place at the same size when tombstones are at least
//! a tenth of the slots, else doubled, and at 1024 slots split in two by the
//! next hash bit (the directory's part, see `directory.rs`).
//!
//! # Layouts
//!
//! A table's `kind` names its slot layout (see [`crate::layout`]). A table
//! takes the kind of the first key a map ever holds, and its halves and
//! rebuilds keep it. A key of another kind cannot be stored in an integer
//! table, so it is absent there; inserting it first rebuilds that one table
//! at the same size in the general layout, which moves at most 1024 entries
//! like any rebuild.
//!
//! The header's operations do not depend on the layout (control words and
//! counters); [`Typed`] (`table/probe.rs`), a table seen in its layout, has the
//! ones that read or write slots. The table's remaining whole-table
//! operations match its kind once and run the typed code.

use core::mem::size_of;

use crate::alloc::Allocator;
use crate::group::{Ctrl, DELETED, EMPTY, SLOTS};
use crate::layout::{slot_bytes, Kind, Slot};
use crate::Error;

mod probe;
#[cfg(test)]
mod tests;
pub(crate) use probe::Search;
pub use probe::{Lookup, Typed, Vacancy};

/// Slots in the largest table; a full one splits instead of doubling.
pub const MAX_CAPACITY: usize = 1024;
/// Slots in the table a small map turns into.
pub const FIRST_CAPACITY: usize = 16;

/// Bytes of one group (its control word and its eight slots) of a table
/// of `kind`.
#[inline]
fn group_bytes(kind: Kind) -> usize {
    size_of::<Ctrl>() + SLOTS * slot_bytes(kind)
}

const _: () = assert!(core::mem::align_of::<Slot>() <= size_of::<Ctrl>());

/// Entries a table of `capacity` slots may hold: 7/8 of them, except that
/// a single group (a small map) may fill up: no probe ever passes it, so it
/// needs no empty slot to end one.
#[inline]
pub fn max_load(capacity: usize) -> usize {
    if capacity == SLOTS {
        SLOTS
    } else {
        capacity - capacity / 8
    }
}

/// The header of a table; its groups follow it in the same allocation.
/// Aligned to 8 so the groups right after it are aligned on 32-bit targets
/// too, where the header is 36 bytes of fields.
///
/// The header opens with the fields of a directory entry (groups, group
/// mask, kind), in its layout: a small map's one table is also its own
/// directory of one entry (`Map::dir`), so lookups take one path in both
/// modes.
#[repr(C, align(8))]
#[derive(Clone, Copy)]
pub struct Table {
    /// The groups, right after the header in the same allocation. Kept as
    /// a pointer (rather than computed from `&self`) so that it carries the
    /// whole allocation's provenance, not just the header's.
    groups: *mut u8,
    /// Groups minus one: `capacity / 8 - 1`.
    mask: u32,
    /// The slot layout.
    kind: Kind,
    used: u32,
    capacity: u32,
    growth_left: u32,
    /// Hash bits (from the top) that every key of this table shares.
    local_depth: u32,
    /// First directory entry that points here (kept by the directory).
    index: u32,
    /// The kind the allocation was sized for: a general-sized table has
    /// room for either layout, and the two integer kinds share a slot size
    /// (see [`Table::rekind`]).
    room: Kind,
}

const _: () = assert!(size_of::<Table>().is_multiple_of(core::mem::align_of::<Slot>()));

impl Table {
    /// Offsets of the groups, group mask and kind: a directory entry's
    /// fields, at the same offsets (the directory asserts it).
    pub const ENTRY_OFFSETS: (usize, usize, usize) = (
        core::mem::offset_of!(Table, groups),
        core::mem::offset_of!(Table, mask),
        core::mem::offset_of!(Table, kind),
    );

    /// The table as [`Typed::of`] takes it, for reading only.
    fn ptr(&self) -> *mut Table {
        (self as *const Table).cast_mut()
    }

    /// Bytes of one table allocation of `capacity` slots of `kind`.
    pub fn bytes(capacity: usize, kind: Kind) -> usize {
        size_of::<Table>() + capacity / SLOTS * group_bytes(kind)
    }

    /// A new empty table.
    pub fn new(
        alloc: &Allocator,
        capacity: usize,
        local_depth: u32,
        kind: Kind,
    ) -> Result<*mut Table, Error> {
        debug_assert!(capacity.is_power_of_two() && (SLOTS..=MAX_CAPACITY).contains(&capacity));
        debug_assert!(kind == Kind::Bytes || kind == Kind::I64 || kind == Kind::U64);
        let p = alloc.alloc(Table::bytes(capacity, kind))?.cast::<Table>();
        // SAFETY: `p` is a fresh allocation of header plus groups, aligned
        // as malloc aligns (8), which suits `Table` and both group types.
        unsafe {
            let groups = p.add(1).cast::<u8>();
            p.write(Table {
                groups,
                mask: (capacity / SLOTS - 1) as u32,
                used: 0,
                capacity: capacity as u32,
                growth_left: max_load(capacity) as u32,
                local_depth,
                index: 0,
                kind,
                room: kind,
            });
            for g in 0..capacity / SLOTS {
                groups.cast::<Ctrl>().add(g).write(Ctrl::EMPTY);
            }
        }
        Ok(p)
    }

    /// Returns the table's memory (not its keys) to `alloc`.
    ///
    /// # Safety
    /// `t` came from [`Table::new`] with `alloc` and is not used afterwards.
    pub unsafe fn free(t: *mut Table, alloc: &Allocator) {
        // SAFETY: the caller's guarantee; the header is read before the
        // table is released.
        unsafe { alloc.free(t.cast(), (*t).memory()) }
    }

    #[inline]
    pub(crate) fn groups_ptr(&self) -> *mut u8 {
        self.groups
    }

    /// Groups minus one.
    #[inline]
    pub fn mask(&self) -> u32 {
        self.mask
    }

    /// The slot layout.
    #[inline]
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The kind the memory was sized for.
    #[inline]
    pub fn room(&self) -> Kind {
        self.room
    }

    /// Full slots.
    #[inline]
    pub fn used(&self) -> u32 {
        self.used
    }

    /// Slots.
    #[inline]
    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// Empty slots an insert may still take before a rebuild.
    #[inline]
    pub fn growth_left(&self) -> u32 {
        self.growth_left
    }

    #[inline]
    pub fn local_depth(&self) -> u32 {
        self.local_depth
    }

    /// First directory entry that points here.
    #[inline]
    pub fn index(&self) -> u32 {
        self.index
    }

    /// Records the first directory entry that points here (the directory's
    /// to keep).
    #[inline]
    pub fn set_index(&mut self, index: u32) {
        self.index = index;
    }

    #[inline]
    pub fn group_count(&self) -> usize {
        self.capacity as usize / SLOTS
    }

    /// Group `g`'s control word.
    #[inline]
    pub fn ctrl(&self, g: usize) -> Ctrl {
        debug_assert!(g < self.group_count());
        // SAFETY: `g` is below the group count: one of the control words at
        // the start of the groups, which are always initialized.
        unsafe { *self.groups.cast::<Ctrl>().add(g) }
    }

    #[inline]
    fn ctrl_mut(&mut self, g: usize) -> &mut Ctrl {
        debug_assert!(g < self.group_count());
        // SAFETY: as in `ctrl`; `&mut self` makes the access unique.
        unsafe { &mut *self.groups.cast::<Ctrl>().add(g) }
    }

    /// Whether the table's memory has room for `kind`'s layout.
    #[inline]
    pub fn fits(&self, kind: Kind) -> bool {
        kind != Kind::Bytes || self.room == Kind::Bytes
    }

    /// Switches an empty table to `kind`'s layout in place, dropping its
    /// tombstones: a map sized by `reserve` (general tables, as its keys
    /// are unknown) or emptied takes the layout of the keys that arrive.
    /// The directory entries that cache the kind must be refilled.
    pub fn rekind(&mut self, kind: Kind) {
        debug_assert!(self.used == 0 && self.fits(kind));
        self.kind = kind;
        self.reset();
    }

    /// Bytes of the table's allocation.
    pub fn memory(&self) -> usize {
        Table::bytes(self.capacity as usize, self.room)
    }

    /// Tombstones, from the counters (the checker recounts them).
    #[inline]
    pub fn tombstones(&self) -> usize {
        max_load(self.capacity as usize) - self.used as usize - self.growth_left as usize
    }

    /// Every full slot: `(group, slot)`.
    pub fn full_slots(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        (0..self.group_count()).flat_map(move |g| self.ctrl(g).match_full().map(move |i| (g, i)))
    }

    /// Empties a full slot (or leaves a tombstone) and counts it; what its
    /// key owns is the caller's to release, read before.
    pub fn erase_at(&mut self, group: usize, slot: usize) {
        // A single group is never probed past, so it never needs a tombstone.
        let single = self.capacity as usize == SLOTS;
        let ctrl = self.ctrl(group);
        debug_assert!(ctrl.get(slot) < 0x80);
        let tombstone = !single && !ctrl.match_empty().any();
        self.ctrl_mut(group)
            .set(slot, if tombstone { DELETED } else { EMPTY });
        self.used -= 1;
        if !tombstone {
            self.growth_left += 1;
        }
    }

    /// Marks a vacant slot full with fingerprint `h2` and counts it
    /// (`reuse`: it was a tombstone, so no growth is spent). Its entry is
    /// written first.
    pub fn occupy(&mut self, group: usize, slot: usize, h2: u8, reuse: bool) {
        self.ctrl_mut(group).set(slot, h2);
        self.used += 1;
        if !reuse {
            self.growth_left -= 1;
        }
    }

    /// Empties every slot, keeping the capacity. Keys are not released.
    pub fn reset(&mut self) {
        for g in 0..self.group_count() {
            *self.ctrl_mut(g) = Ctrl::EMPTY;
        }
        self.used = 0;
        self.growth_left = max_load(self.capacity as usize) as u32;
    }
}
