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
//! How keys are found in it is the probe's (`probe.rs`).
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
//! counters); [`Typed`] (`probe.rs`), a table seen in its layout, has the
//! ones that read or write slots. The table's remaining whole-table
//! operations match its kind once and run the typed code.

use core::mem::size_of;
use core::ptr;

use crate::alloc::Allocator;
use crate::group::{Ctrl, DELETED, EMPTY, SLOTS};
use crate::key::Key;
use crate::layout::{on_layout, slot_bytes, Kind, Layout, Slot};
use crate::probe::Typed;
use crate::Error;

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

    /// Finds `n`'s slot, whatever the table's layout.
    pub fn find_key(&self, hash: u64, n: &impl Key) -> Option<(usize, usize)> {
        // SAFETY (both): the layout is the table's kind's.
        on_layout!(self.kind, L => unsafe {
            let t = Typed::<L>::of(self.ptr());
            t.find::<false>(hash, L::matcher(self.kind, n)?).map(|(g, i, _)| (g, i))
        })
    }

    /// The entry in a full slot, in the general form (an integer key as its
    /// inline repr).
    pub fn entry(&self, group: usize, slot: usize) -> Slot {
        let kind = self.kind;
        // SAFETY: the layout is the table's kind's.
        on_layout!(kind, L => {
            let t = unsafe { Typed::<L>::of(self.ptr()) };
            crate::layout::General::moved::<L>(kind, t.slot(group, slot))
        })
    }

    /// The hash under `seed` of the key in a full slot.
    ///
    /// # Safety
    /// The slot's key is live.
    pub unsafe fn hash_at(&self, seed: u64, group: usize, slot: usize) -> u64 {
        let kind = self.kind;
        // SAFETY: the layout is the table's kind's; the caller's guarantee.
        on_layout!(kind, L => unsafe {
            L::hash(seed, kind, Typed::<L>::of(self.ptr()).slot(group, slot))
        })
    }

    /// Erases a full slot and releases what its key owns.
    ///
    /// # Safety
    /// The slot's key is live and came from `alloc`.
    pub unsafe fn erase_and_release(&mut self, group: usize, slot: usize, alloc: &Allocator) {
        // SAFETY: the layout is the table's kind's; the caller's guarantee.
        on_layout!(self.kind, L => unsafe {
            let s = *Typed::<L>::of(self.ptr()).slot(group, slot);
            self.erase_at(group, slot);
            L::release(&s, alloc);
        })
    }

    /// Releases the keys of every full slot (before freeing the table).
    ///
    /// # Safety
    /// The keys are owned by this table and came from `alloc`.
    pub unsafe fn release_keys(&self, alloc: &Allocator) {
        // SAFETY: the layout is the table's kind's; the caller's guarantee.
        on_layout!(self.kind, L => unsafe {
            Typed::<L>::of(self.ptr()).walk(|s| {
                L::release(s, alloc);
                0
            });
        })
    }

    /// Bytes the keys hold outside the table.
    pub fn heap_bytes(&self) -> usize {
        let mut bytes = 0;
        // SAFETY: the layout is the table's kind's.
        on_layout!(self.kind, L => unsafe {
            Typed::<L>::of(self.ptr()).walk(|s| {
                bytes += L::heap_bytes(s);
                0
            });
        });
        bytes
    }

    /// Moves every entry into `target(hash)`'s table (see
    /// [`Typed::move_into`]).
    ///
    /// # Safety
    /// As for [`Typed::move_into`].
    pub unsafe fn move_into(&self, seed: u64, target: impl FnMut(u64) -> *mut Table) {
        // SAFETY: the layout is the table's kind's; the caller's guarantee.
        on_layout!(self.kind, L => unsafe { Typed::<L>::of(self.ptr()).move_into(seed, target) })
    }

    /// An independent copy: same groups (so the same iteration order), long
    /// keys copied. On failure nothing is left allocated.
    ///
    /// # Safety
    /// Every full slot's key is live.
    pub unsafe fn duplicate(&self, alloc: &Allocator) -> Result<*mut Table, Error> {
        // SAFETY: the layout is the table's kind's; the caller's guarantee.
        on_layout!(self.kind, L => unsafe { duplicate::<L>(self, alloc) })
    }
}

/// [`Table::duplicate`] in layout `L`.
///
/// # Safety
/// `t` is laid out in `L`; every full slot's key is live.
unsafe fn duplicate<L: Layout>(t: &Table, alloc: &Allocator) -> Result<*mut Table, Error> {
    let bytes = Table::bytes(t.capacity as usize, t.kind);
    let copy = alloc.alloc(bytes)?.cast::<Table>();
    // SAFETY: `copy` has room for `bytes`, as does `t`'s allocation; slots
    // that are not full may be uninitialized, but copying them as bytes is
    // fine and they are never read as entries.
    unsafe {
        copy.write(Table {
            groups: copy.add(1).cast::<u8>(),
            room: t.kind,
            ..*t
        });
        ptr::copy_nonoverlapping(t.groups, (*copy).groups, bytes - size_of::<Table>());
    }
    // SAFETY: both are live tables laid out in `L`.
    let (from, mut to) = unsafe { (Typed::<L>::of(t.ptr()), Typed::<L>::of(copy)) };
    let mut done = 0usize;
    let mut failed = None;
    for (g, i) in t.full_slots() {
        // SAFETY: full slots hold live keys.
        match unsafe { L::duplicate(from.slot(g, i), alloc) } {
            Ok(s) => {
                *to.slot_mut(g, i) = s;
                done += 1;
            }
            Err(e) => {
                failed = Some(e);
                break;
            }
        }
    }
    if let Some(e) = failed {
        // SAFETY: the first `done` full slots of `copy` hold keys copied
        // above; the rest still share `t`'s and must not be released.
        unsafe {
            for (g, i) in t.full_slots().take(done) {
                L::release(to.slot(g, i), alloc);
            }
            Table::free(copy, alloc);
        }
        return Err(e);
    }
    Ok(copy)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::{IntKey, TAG_I64, TAG_U64};
    use crate::layout::IntSlot;
    use crate::probe::{Lookup, Vacancy};

    /// [`Typed::find_or_vacant`] in the table's layout; `None` for a key
    /// the table cannot hold.
    ///
    /// # Safety
    /// `t` is live.
    unsafe fn lookup(t: *mut Table, hash: u64, n: &impl Key) -> Option<Lookup<()>> {
        // SAFETY: the caller's guarantee; the table's own layout.
        unsafe {
            let kind = (*t).kind;
            on_layout!(kind, L => L::matcher(kind, n).map(|eq| {
                match Typed::<L>::of(t).find_or_vacant(hash, eq) {
                    Lookup::Found(s) => Lookup::Found(s.cast()),
                    Lookup::Vacant(v) => Lookup::Vacant(v),
                    Lookup::NoRoom => Lookup::NoRoom,
                }
            }))
        }
    }

    /// Stores `n` (an inline key) in a vacant slot `lookup` returned.
    ///
    /// # Safety
    /// As for `lookup`.
    unsafe fn occupy(t: *mut Table, v: Vacancy, hash: u64, n: &impl Key, alloc: &Allocator) {
        // SAFETY: the caller's guarantee; the table's own layout.
        unsafe {
            let kind = (*t).kind;
            on_layout!(kind, L => Typed::<L>::of(t)
                .insert_at(v, hash, |dst| L::store(kind, dst, n, None, ptr::null_mut(), alloc))
                .unwrap())
        }
    }

    /// Inserts `keys` with hashes chosen to start in group 0.
    fn filled(alloc: &Allocator, capacity: usize, keys: u64, kind: Kind) -> *mut Table {
        let t = Table::new(alloc, capacity, 0, kind).unwrap();
        for k in 0..keys {
            let n = IntKey::new(2, k);
            // SAFETY: `t` is live.
            let Some(Lookup::Vacant(v)) = (unsafe { lookup(t, k << 8, &n) }) else {
                panic!("no room for {k}")
            };
            // SAFETY: as above.
            unsafe { occupy(t, v, k << 8, &n, alloc) };
        }
        t
    }

    #[test]
    fn erase_in_a_full_group_leaves_a_tombstone() {
        let alloc = Allocator::default();
        // Both layouts behave alike.
        for kind in [Kind::Bytes, Kind::U64] {
            // SAFETY: the table is live until freed at the end; keys are
            // inline.
            unsafe { erase_in_a_full_group(&alloc, kind) };
        }
    }

    unsafe fn erase_in_a_full_group(alloc: &Allocator, kind: Kind) {
        // SAFETY: the caller's guarantee.
        unsafe {
            let tp = filled(alloc, 16, 8, kind);
            let t = &mut *tp;
            assert_eq!(t.ctrl(0).match_full().count(), 8);
            let (g, i) = t.find_key(3 << 8, &IntKey::new(2, 3)).unwrap();
            t.erase_at(g, i);
            assert_eq!(t.ctrl(0).get(i), DELETED);
            assert_eq!((t.used, t.growth_left, t.tombstones()), (7, 6, 1));
            // The tombstone is reused by the next absent key on that probe.
            let n = IntKey::new(2, 100);
            let Some(Lookup::Vacant(Vacancy { group, slot, reuse })) = lookup(t, 100 << 8, &n)
            else {
                panic!()
            };
            assert_eq!((group, slot, reuse), (0, i, true));
            occupy(t, Vacancy { group, slot, reuse }, 100 << 8, &n, alloc);
            assert_eq!((t.used, t.growth_left, t.tombstones()), (8, 6, 0));
            // Tombstones do not count as empty: the group still has none.
            let (g, i) = t.find_key(5 << 8, &IntKey::new(2, 5)).unwrap();
            t.erase_at(g, i);
            let (g, j) = t.find_key(6 << 8, &IntKey::new(2, 6)).unwrap();
            t.erase_at(g, j);
            assert_eq!((t.ctrl(0).get(i), t.ctrl(0).get(j)), (DELETED, DELETED));
            // A group with an empty slot gets its slot emptied again.
            let n = IntKey::new(2, 200);
            let Some(Lookup::Vacant(Vacancy { group, slot, reuse })) = lookup(t, 201, &n) else {
                panic!()
            };
            assert_eq!((group, reuse), (1, false));
            occupy(t, Vacancy { group, slot, reuse }, 201, &n, alloc);
            let left = t.growth_left;
            t.erase_at(group, slot);
            assert_eq!(t.ctrl(1).get(slot), EMPTY);
            assert_eq!(t.growth_left, left + 1);
            Table::free(tp, alloc);
        }
    }

    #[test]
    fn a_single_group_fills_up_and_never_tombstones() {
        let alloc = Allocator::default();
        for kind in [Kind::Bytes, Kind::U64] {
            // SAFETY: as above.
            unsafe {
                let tp = filled(&alloc, 8, 8, kind);
                let t = &mut *tp;
                assert_eq!(t.growth_left, 0);
                assert!(matches!(
                    lookup(t, 99 << 8, &IntKey::new(2, 99)),
                    Some(Lookup::NoRoom)
                ));
                assert!(t.find_key(99 << 8, &IntKey::new(2, 99)).is_none());
                let (g, i) = t.find_key(3 << 8, &IntKey::new(2, 3)).unwrap();
                t.erase_at(g, i);
                assert_eq!(t.ctrl(0).get(i), EMPTY);
                assert_eq!(t.growth_left, 1);
                Table::free(tp, &alloc);
            }
        }
    }

    /// An integer table holds no other key: looking one up finds nothing,
    /// inserting one asks for the general layout, and a byte key that
    /// encodes the table's integer key is that key.
    #[test]
    fn an_integer_table_refuses_other_keys() {
        use crate::key::Needle;
        let alloc = Allocator::default();
        // SAFETY: as above.
        unsafe {
            let tp = filled(&alloc, 16, 4, Kind::U64);
            let t = &mut *tp;
            let i64_key = IntKey::new(TAG_I64, 2);
            assert!(t.find_key(2 << 8, &i64_key).is_none());
            assert!(lookup(t, 2 << 8, &i64_key).is_none());
            let text = Needle::bytes(b"a string");
            assert!(lookup(t, 2 << 8, &text).is_none());
            let mut enc = vec![0x00, TAG_U64];
            enc.extend_from_slice(&2u64.to_le_bytes());
            let (g, i) = t.find_key(2 << 8, &Needle::bytes(&enc)).unwrap();
            assert_eq!(t.entry(g, i).key.bytes(), &enc[..]);
            // Sixteen bytes a slot on 64-bit targets (twelve on i686, where
            // a u64 is 4-aligned), against 40 in the general layout.
            let int_slot = if cfg!(target_pointer_width = "64") {
                16
            } else {
                size_of::<IntSlot>()
            };
            assert_eq!(size_of::<IntSlot>(), int_slot);
            assert_eq!(size_of::<Slot>(), 40);
            assert_eq!(
                Table::bytes(16, Kind::U64),
                size_of::<Table>() + 2 * (8 + 8 * int_slot)
            );
            assert_eq!(Table::bytes(16, Kind::Bytes), size_of::<Table>() + 2 * 328);
            Table::free(tp, &alloc);
        }
    }
}
