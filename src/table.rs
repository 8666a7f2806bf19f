//! A table: an open-addressed array of groups, at most 1024 slots.
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
//! A probe reads control words only, until a fingerprint matches; so a
//! miss touches one 8-byte word per group, and the control words of a
//! table (1 KiB at 1024 slots) stay in the caches while the slots do not.
//!
//! Probing starts at group `h1 & group_mask` and moves triangularly:
//! `offset = (offset + i) & group_mask` for `i = 1, 2, 3, ...`, which visits
//! every group once when the group count is a power of two. A lookup stops
//! at the first group with an empty slot: an insert would have used it.
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
//! # Two slot layouts
//!
//! A table's `kind` says which keys it holds, and so how its slots look:
//!
//! ```text
//! kind        holds                 slot                         a group's slots
//! KIND_BYTES  any key               [key repr 32][value 8]  40 B  8 * 40 = 320 B
//! TAG_U64     u64 keys only         [u64 key   8][value 8]  16 B  8 * 16 = 128 B
//! TAG_I64     i64 keys only         [i64 key   8][value 8]  16 B  128 B
//! ```
//!
//! (Sizes on 64-bit targets. With 4-byte pointers a general slot keeps its
//! 40 bytes, the key repr being 8-aligned, and an integer slot is 16 bytes
//! where a `u64` is 8-aligned (wasm32) and 12 where it is 4-aligned (i686).)
//!
//! Integer tables keep the key's value, not its 10-byte encoding: the tag is
//! the table's. Their slots take 128 bytes a group, not 320 (a hit touches
//! fewer cache lines, a map takes less memory) and a key compares in one
//! word.
//! A table takes the kind of the first key a map ever holds, and its halves
//! and rebuilds keep it. A key of another kind cannot be stored in an
//! integer table, so it is absent there; inserting it first rebuilds that
//! one table at the same size in the general layout ([`Lookup::Foreign`]),
//! which moves at most 1024 entries like any rebuild. A byte key that is the
//! encoding of an integer key is that integer key (see [`Key::int`]), so it
//! finds and stores it in either layout.

use core::ffi::c_void;
use core::mem::size_of;
use core::ptr;

use crate::alloc::Allocator;
use crate::directory::Entry;
use crate::group::{Ctrl, DELETED, EMPTY, SLOTS};
use crate::hash::{h1, h2};
#[cfg(test)]
use crate::key::IntKey;
use crate::key::{Key, KeyRepr, TAG_I64, TAG_U64};
use crate::Error;

/// Slots in the largest table; a full one splits instead of doubling.
pub const MAX_CAPACITY: usize = 1024;
/// Slots in the table a small map turns into.
pub const FIRST_CAPACITY: usize = 16;

/// The kind of a table that holds any key, in [`Slot`]s. (The integer
/// kinds are the integer keys' tags, [`TAG_I64`] and [`TAG_U64`].)
pub const KIND_BYTES: u32 = 0;

/// The kind of table a key calls for: its tag if it is an integer key.
#[inline(always)]
pub fn kind_of(n: &impl Key) -> u32 {
    n.int().map_or(KIND_BYTES, |(tag, _)| tag as u32)
}

/// One stored entry of a general table.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Slot {
    pub key: KeyRepr,
    pub value: *mut c_void,
}

/// One stored entry of an integer table: the key's value (its tag is the
/// table's kind).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct IntSlot {
    pub key: u64,
    pub value: *mut c_void,
}

/// Bytes of one slot of a table of `kind`.
#[inline]
pub fn slot_bytes(kind: u32) -> usize {
    if kind == KIND_BYTES {
        size_of::<Slot>()
    } else {
        size_of::<IntSlot>()
    }
}

/// Bytes of one group (its control word and its eight slots) of a table
/// of `kind`.
#[inline]
pub fn group_bytes(kind: u32) -> usize {
    size_of::<Ctrl>() + SLOTS * slot_bytes(kind)
}

const _: () = assert!(core::mem::align_of::<IntSlot>() <= core::mem::align_of::<Slot>());
const _: () = assert!(core::mem::align_of::<Slot>() <= size_of::<Ctrl>());

/// The slots of group `g` of a table whose groups start at `groups` with
/// `mask + 1` of them: the slot array follows the control words.
///
/// # Safety
/// `groups` and `mask` are a live table's, laid out in `S` slots; `g <= mask`.
#[inline(always)]
unsafe fn slots_of<S>(groups: *const u8, mask: usize, g: usize) -> *const [S; SLOTS] {
    // SAFETY: the caller's guarantee: the slot array starts after the
    // `mask + 1` control words, and group `g`'s slots are inside it.
    unsafe {
        groups
            .add((mask + 1) * size_of::<Ctrl>())
            .cast::<[S; SLOTS]>()
            .add(g)
    }
}

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
/// The header opens with the fields of a directory [`Entry`] (groups, group
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
    /// [`KIND_BYTES`], [`TAG_I64`] or [`TAG_U64`]: the slot layout.
    pub kind: u32,
    pub used: u32,
    pub capacity: u32,
    pub growth_left: u32,
    /// Hash bits (from the top) that every key of this table shares.
    pub local_depth: u32,
    /// First directory entry that points here (kept by the directory).
    pub index: u32,
    /// The kind the allocation was sized for: a general-sized table has
    /// room for either layout, and the two integer kinds share a slot size
    /// (see [`Table::rekind`]).
    pub room: u32,
}

// A table header reads as a directory entry.
const _: () = {
    assert!(core::mem::offset_of!(Table, groups) == core::mem::offset_of!(Entry, groups));
    assert!(core::mem::offset_of!(Table, mask) == core::mem::offset_of!(Entry, mask));
    assert!(core::mem::offset_of!(Table, kind) == core::mem::offset_of!(Entry, kind));
};
const _: () = assert!(size_of::<Table>().is_multiple_of(core::mem::align_of::<Slot>()));

/// Finds the slot that `eq` accepts among the groups `groups[0 ..= mask]`
/// of a table laid out in `S` slots, probing from `hash`: the lookup path,
/// which needs nothing of the table's header (the directory entry carries
/// `groups`, `mask` and the kind). `PREFETCH`: start loading each group's
/// slots with its control word (see `prefetch_slots`); a constant, so that
/// the small maps' probe carries no trace of it.
///
/// # Safety
/// `groups` and `mask` are a live table's, whose slots are `S`.
#[inline(always)]
pub unsafe fn find_in<S, const PREFETCH: bool>(
    groups: *const u8,
    mask: usize,
    hash: u64,
    eq: impl Fn(&S) -> bool,
) -> Option<(usize, usize)> {
    let mut p = Probe::new(hash, mask);
    let h2 = h2(hash);
    loop {
        // SAFETY: `p.offset <= mask`: a group of the table, whose control
        // word is initialized.
        let (ctrl, slots) = unsafe {
            (
                *groups.cast::<Ctrl>().add(p.offset),
                slots_of::<S>(groups, mask, p.offset),
            )
        };
        if PREFETCH {
            prefetch_slots(slots);
        }
        for i in ctrl.match_h2(h2) {
            // SAFETY: `match_h2` only reports full slots, whose keys live.
            if eq(unsafe { &(*slots)[i % SLOTS] }) {
                return Some((p.offset, i));
            }
        }
        if ctrl.match_empty().any() || !p.next() {
            return None;
        }
    }
}

/// The value of `n` if it is an integer key of `kind`: the only keys an
/// integer table of that kind holds, and the form it holds them in.
#[inline(always)]
pub fn int_in(kind: u32, n: &impl Key) -> Option<u64> {
    match n.int() {
        Some((tag, v)) if tag as u32 == kind => Some(v),
        _ => None,
    }
}

/// A slot layout's value, for the lookups.
pub trait Valued {
    fn value(&self) -> *mut c_void;
}

impl Valued for Slot {
    #[inline(always)]
    fn value(&self) -> *mut c_void {
        self.value
    }
}

impl Valued for IntSlot {
    #[inline(always)]
    fn value(&self) -> *mut c_void {
        self.value
    }
}

/// Looks `n` up in a table given by its groups, mask and kind (a directory
/// entry's fields): the value stored for it, if any.
///
/// # Safety
/// `groups`, `mask` and `kind` are a live table's.
#[inline(always)]
pub unsafe fn get_in<const PREFETCH: bool, K: Key>(
    groups: *const u8,
    mask: usize,
    kind: u32,
    hash: u64,
    n: &K,
) -> Option<*mut c_void> {
    // The layout a key type usually meets is probed inline; the other
    // (an integer key in a general table, a byte key that encodes an
    // integer in an integer table) out of line, so that each lookup keeps
    // one probe loop's worth of registers.
    // SAFETY (all four calls): the caller's guarantee, with the layout
    // `kind` names; full slots hold live keys.
    unsafe {
        if kind == KIND_BYTES {
            let eq = move |s: &Slot| n.matches(&s.key);
            if K::INT {
                get_cold::<Slot, PREFETCH>(groups, mask, hash, eq)
            } else {
                get_slot::<Slot, PREFETCH>(groups, mask, hash, eq)
            }
        } else {
            // An integer table holds no other key.
            let v = int_in(kind, n)?;
            let eq = move |s: &IntSlot| s.key == v;
            if K::INT {
                get_slot::<IntSlot, PREFETCH>(groups, mask, hash, eq)
            } else {
                get_cold::<IntSlot, PREFETCH>(groups, mask, hash, eq)
            }
        }
    }
}

/// [`get_in`] in a table laid out in `S`: the value of the slot `eq`
/// accepts.
///
/// # Safety
/// As for [`find_in`].
#[inline(always)]
unsafe fn get_slot<S: Valued, const PREFETCH: bool>(
    groups: *const u8,
    mask: usize,
    hash: u64,
    eq: impl Fn(&S) -> bool,
) -> Option<*mut c_void> {
    // SAFETY: the caller's guarantee.
    let found = unsafe { find_in::<S, PREFETCH>(groups, mask, hash, eq) };
    // SAFETY: a found slot is a full slot of the table.
    found.map(|(g, i)| unsafe { slot_at::<S>(groups, mask, g, i).value() })
}

/// [`get_slot`], out of line.
///
/// # Safety
/// As for [`get_slot`].
#[inline(never)]
unsafe fn get_cold<S: Valued, const PREFETCH: bool>(
    groups: *const u8,
    mask: usize,
    hash: u64,
    eq: impl Fn(&S) -> bool,
) -> Option<*mut c_void> {
    // SAFETY: the caller's guarantee.
    unsafe { get_slot::<S, PREFETCH>(groups, mask, hash, eq) }
}

/// Slot `i` of group `g`.
///
/// # Safety
/// As for [`slots_of`].
#[inline(always)]
unsafe fn slot_at<'a, S>(groups: *const u8, mask: usize, g: usize, i: usize) -> &'a S {
    // SAFETY: the caller's guarantee.
    unsafe { &(*slots_of::<S>(groups, mask, g))[i % SLOTS] }
}

/// Starts loading a group's slots while its control word is still on its
/// way: the slots are in the slot array, away from the control words, so
/// without this the two misses of a large map's lookup come one after the
/// other. Three lines: an integer group's 128 bytes of slots wherever they
/// start (slots are 8-aligned, not 64), and a general group's first five
/// slots of eight. Maps that fit in the caches lose by it, so only large
/// maps prefetch (see `Map::get`).
#[inline(always)]
fn prefetch_slots<S>(slots: *const [S; SLOTS]) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = slots.cast::<i8>();
        // SAFETY: a prefetch never faults.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(p);
            _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(64));
            _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(127));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = slots;
}

/// Where a key is, or where it would go.
pub enum Lookup {
    /// The key is stored in this slot.
    Found(usize, usize),
    /// The key is absent; this slot may take it (`reuse`: a tombstone).
    Vacant {
        group: usize,
        slot: usize,
        reuse: bool,
    },
    /// The key is absent and the table has no room: rebuild it first.
    NoRoom,
    /// The key is absent and an integer table cannot hold it: rebuild the
    /// table in the general layout first.
    Foreign,
}

struct Probe {
    offset: usize,
    step: usize,
    mask: usize,
}

impl Probe {
    #[inline]
    fn new(hash: u64, mask: usize) -> Probe {
        Probe {
            offset: h1(hash) as usize & mask,
            step: 0,
            mask,
        }
    }

    /// Advances; false once every group has been visited.
    #[inline]
    fn next(&mut self) -> bool {
        self.step += 1;
        self.offset = (self.offset + self.step) & self.mask;
        self.step <= self.mask
    }
}

impl Table {
    /// Bytes of one table allocation of `capacity` slots of `kind`.
    pub fn bytes(capacity: usize, kind: u32) -> usize {
        size_of::<Table>() + capacity / SLOTS * group_bytes(kind)
    }

    /// A new empty table.
    pub fn new(
        alloc: &Allocator,
        capacity: usize,
        local_depth: u32,
        kind: u32,
    ) -> Result<*mut Table, Error> {
        debug_assert!(capacity.is_power_of_two() && (SLOTS..=MAX_CAPACITY).contains(&capacity));
        debug_assert!(matches!(kind as u8, 0 | TAG_I64 | TAG_U64) && kind < 256);
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
        // SAFETY: the caller's guarantee.
        unsafe { alloc.free(t.cast()) }
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

    #[inline]
    pub fn group_count(&self) -> usize {
        self.capacity as usize / SLOTS
    }

    #[inline]
    fn is_int(&self) -> bool {
        self.kind != KIND_BYTES
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

    /// Group `g`'s slots in layout `S`, which must be the table's.
    #[inline(always)]
    fn slots_as<S>(&self, g: usize) -> &[S; SLOTS] {
        debug_assert!(g < self.group_count());
        debug_assert_eq!(size_of::<S>(), slot_bytes(self.kind));
        // SAFETY: `g` is a group of this table, laid out in `S` slots.
        unsafe { &*slots_of::<S>(self.groups, self.mask as usize, g) }
    }

    #[inline(always)]
    fn slots_as_mut<S>(&mut self, g: usize) -> &mut [S; SLOTS] {
        debug_assert!(g < self.group_count());
        debug_assert_eq!(size_of::<S>(), slot_bytes(self.kind));
        // SAFETY: as in `slots_as`; `&mut self` makes the access unique.
        unsafe { &mut *slots_of::<S>(self.groups, self.mask as usize, g).cast_mut() }
    }

    /// Whether the table's memory has room for `kind`'s layout.
    #[inline]
    pub fn fits(&self, kind: u32) -> bool {
        kind != KIND_BYTES || self.room == KIND_BYTES
    }

    /// Switches an empty table to `kind`'s layout in place, dropping its
    /// tombstones: a map sized by `reserve` (general tables, as its keys
    /// are unknown) or emptied takes the layout of the keys that arrive.
    /// The directory entries that cache the kind must be refilled.
    pub fn rekind(&mut self, kind: u32) {
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

    /// Finds `needle`'s slot.
    #[inline(always)]
    pub fn find(&self, hash: u64, n: &impl Key) -> Option<(usize, usize)> {
        if !self.is_int() {
            // SAFETY: full slots hold live keys.
            return self.find_slot::<Slot>(false, hash, |s| unsafe { n.matches(&s.key) });
        }
        let v = int_in(self.kind, n)?;
        self.find_slot::<IntSlot>(false, hash, |s| s.key == v)
    }

    /// Finds the slot `eq` accepts; `S` is the table's layout. `prefetch`:
    /// as `PREFETCH` for [`find_in`] (large maps).
    #[inline(always)]
    pub fn find_slot<S>(
        &self,
        prefetch: bool,
        hash: u64,
        eq: impl Fn(&S) -> bool,
    ) -> Option<(usize, usize)> {
        // SAFETY: the table's own groups and mask.
        unsafe { self.find_at(prefetch, self.groups, self.mask as usize, hash, eq) }
    }

    /// [`Table::find_slot`] given the table's groups and mask as its
    /// directory entry has them (see [`Table::lookup_at`]).
    ///
    /// # Safety
    /// `groups` and `mask` are this table's.
    #[inline(always)]
    pub unsafe fn find_at<S>(
        &self,
        prefetch: bool,
        groups: *const u8,
        mask: usize,
        hash: u64,
        eq: impl Fn(&S) -> bool,
    ) -> Option<(usize, usize)> {
        debug_assert!(groups == self.groups.cast_const() && mask == self.mask as usize);
        debug_assert_eq!(size_of::<S>(), slot_bytes(self.kind));
        // SAFETY: the table's own groups and mask (the caller's guarantee),
        // in its layout (the caller's word); both checked in debug builds.
        unsafe {
            if prefetch {
                find_in::<S, true>(groups, mask, hash, eq)
            } else {
                find_in::<S, false>(groups, mask, hash, eq)
            }
        }
    }

    /// Slot `i` of group `g`; `S` is the table's layout.
    #[inline(always)]
    pub fn slot_in<S>(&mut self, group: usize, slot: usize) -> &mut S {
        &mut self.slots_as_mut::<S>(group)[slot % SLOTS]
    }

    /// Finds `needle`, or the slot an insert of it should take.
    #[inline]
    pub fn lookup(&self, hash: u64, n: &impl Key) -> Lookup {
        if !self.is_int() {
            // SAFETY: full slots hold live keys.
            return self.lookup_in::<Slot>(hash, |s| unsafe { n.matches(&s.key) });
        }
        match int_in(self.kind, n) {
            Some(v) => self.lookup_in::<IntSlot>(hash, |s| s.key == v),
            None => Lookup::Foreign,
        }
    }

    /// [`Table::lookup`] with the key compare `eq`; `S` is the table's
    /// layout.
    ///
    /// Two passes: the lookup's own probe, then (the key being absent) the
    /// first empty or deleted slot along the same probe. A group never
    /// holds both kinds (deleting leaves a tombstone only in a group with
    /// no empty slot, and nothing but a rebuild empties one again), so that
    /// slot is the first tombstone before the probe's end if there is one,
    /// else the empty slot that ended it. Each pass keeps few values live;
    /// one pass that tracked the first tombstone while comparing keys
    /// spilled registers on every insert.
    #[inline(always)]
    pub fn lookup_in<S>(&self, hash: u64, eq: impl Fn(&S) -> bool) -> Lookup {
        // SAFETY: the table's own groups and mask.
        unsafe { self.lookup_at(self.groups, self.mask as usize, hash, eq) }
    }

    /// [`Table::lookup_in`] given the table's groups and mask as its
    /// directory entry has them: the probe's addresses then do not wait
    /// for the header's cache line, which only a vacant slot needs (for
    /// `growth_left`). In a large map the two misses overlap.
    ///
    /// # Safety
    /// `groups` and `mask` are this table's.
    #[inline(always)]
    pub unsafe fn lookup_at<S>(
        &self,
        groups: *const u8,
        mask: usize,
        hash: u64,
        eq: impl Fn(&S) -> bool,
    ) -> Lookup {
        debug_assert!(groups == self.groups.cast_const() && mask == self.mask as usize);
        debug_assert_eq!(size_of::<S>(), slot_bytes(self.kind));
        // SAFETY: the table's own groups and mask (the caller's guarantee,
        // checked in debug builds), in its layout.
        if let Some((g, i)) = unsafe { find_in::<S, false>(groups, mask, hash, eq) } {
            return Lookup::Found(g, i);
        }
        let mut p = Probe::new(hash, mask);
        loop {
            // SAFETY: `p.offset <= mask`, a group of the table.
            let ctrl = unsafe { *groups.cast::<Ctrl>().add(p.offset) };
            if let Some(slot) = ctrl.match_empty_or_deleted().first() {
                let reuse = ctrl.get(slot) == DELETED;
                if !reuse && self.growth_left == 0 {
                    return Lookup::NoRoom;
                }
                return Lookup::Vacant {
                    group: p.offset,
                    slot,
                    reuse,
                };
            }
            if !p.next() {
                return Lookup::NoRoom;
            }
        }
    }

    /// Stores a new entry in a slot that [`Table::lookup`] returned (so the
    /// key suits the table's layout).
    #[inline]
    pub fn occupy(
        &mut self,
        group: usize,
        slot: usize,
        reuse: bool,
        hash: u64,
        key: KeyRepr,
        value: *mut c_void,
    ) {
        self.claim(group, slot, reuse, hash);
        self.put(group, slot, Slot { key, value });
    }

    /// [`Table::occupy`] in layout `S`, the table's.
    #[inline(always)]
    pub fn occupy_in<S>(&mut self, group: usize, slot: usize, reuse: bool, hash: u64, entry: S) {
        self.slots_as_mut::<S>(group)[slot % SLOTS] = entry;
        self.claim(group, slot, reuse, hash);
    }

    /// A vacant slot's memory, for writing an entry in place before
    /// [`Table::claim_in`] marks it full; `S` is the table's layout.
    #[inline(always)]
    pub fn vacant_slot<S>(&mut self, group: usize, slot: usize) -> *mut S {
        debug_assert!(self.ctrl(group).get(slot) >= 0x80);
        &mut self.slots_as_mut::<S>(group)[slot % SLOTS]
    }

    /// Marks a vacant slot whose entry was written in place full, and
    /// counts it; `S` is the table's layout.
    #[inline(always)]
    pub fn claim_in<S>(&mut self, group: usize, slot: usize, reuse: bool, hash: u64) {
        debug_assert_eq!(size_of::<S>(), slot_bytes(self.kind));
        self.claim(group, slot, reuse, hash);
    }

    /// Marks a vacant slot full and counts it.
    #[inline(always)]
    fn claim(&mut self, group: usize, slot: usize, reuse: bool, hash: u64) {
        debug_assert!(self.ctrl(group).get(slot) == if reuse { DELETED } else { EMPTY });
        self.ctrl_mut(group).set(slot, h2(hash));
        self.count_claim(reuse);
    }

    /// Counts a slot just filled.
    #[inline(always)]
    fn count_claim(&mut self, reuse: bool) {
        self.used += 1;
        if !reuse {
            self.growth_left -= 1;
        }
    }

    /// Writes an entry into a slot, in the table's layout.
    #[inline(always)]
    fn put(&mut self, group: usize, slot: usize, entry: Slot) {
        // `% SLOTS` (here and below): slot indices come from a control
        // word's bitset, so they are below 8 already; the mask lets the
        // compiler drop the bounds check, and with it a panic path of the
        // C API's insert.
        if self.is_int() {
            debug_assert_eq!(entry.key.int().map(|(t, _)| t as u32), Some(self.kind));
            let key = entry.key.int().map_or(0, |(_, v)| v);
            self.slots_as_mut::<IntSlot>(group)[slot % SLOTS] = IntSlot {
                key,
                value: entry.value,
            };
        } else {
            self.slots_as_mut::<Slot>(group)[slot % SLOTS] = entry;
        }
    }

    /// The entry in a full slot, in the general form (an integer table's
    /// key as its inline repr).
    #[inline]
    pub fn entry(&self, group: usize, slot: usize) -> Slot {
        if self.is_int() {
            let s = self.slots_as::<IntSlot>(group)[slot % SLOTS];
            Slot {
                key: KeyRepr::from_int(self.kind as u8, s.key),
                value: s.value,
            }
        } else {
            self.slots_as::<Slot>(group)[slot % SLOTS]
        }
    }

    /// Replaces the value of a full slot.
    #[inline(always)]
    pub fn set_value(&mut self, group: usize, slot: usize, value: *mut c_void) {
        if self.is_int() {
            self.slots_as_mut::<IntSlot>(group)[slot % SLOTS].value = value;
        } else {
            self.slots_as_mut::<Slot>(group)[slot % SLOTS].value = value;
        }
    }

    /// Removes the entry in a full slot and hands back its key, which the
    /// caller releases.
    pub fn erase(&mut self, group: usize, slot: usize) -> KeyRepr {
        let key = self.entry(group, slot).key;
        self.vacate(group, slot);
        key
    }

    /// Empties a full slot (or leaves a tombstone) and counts it; the key
    /// is the caller's to release.
    #[inline(always)]
    pub fn vacate(&mut self, group: usize, slot: usize) {
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

    /// Adds an entry known to be absent to a table without tombstones
    /// (one being rebuilt into): no key comparisons. False when the growth
    /// budget is spent.
    pub fn place(&mut self, hash: u64, entry: Slot) -> bool {
        if self.is_int() {
            debug_assert_eq!(entry.key.int().map(|(t, _)| t as u32), Some(self.kind));
            let key = entry.key.int().map_or(0, |(_, v)| v);
            self.place_in(
                hash,
                IntSlot {
                    key,
                    value: entry.value,
                },
            )
        } else {
            self.place_in(hash, entry)
        }
    }

    /// [`Table::place`] in layout `S`, the table's.
    #[inline(always)]
    fn place_in<S>(&mut self, hash: u64, entry: S) -> bool {
        if self.growth_left == 0 {
            return false;
        }
        let mut p = Probe::new(hash, self.mask as usize);
        loop {
            if let Some(i) = self.ctrl(p.offset).match_empty().first() {
                self.occupy_in(p.offset, i, false, hash, entry);
                return true;
            }
            // Growth budget left means an empty slot exists.
            if !p.next() {
                debug_assert!(false, "growth budget left but no empty slot");
                return false;
            }
        }
    }

    /// Every full slot: `(group, slot)`.
    pub fn full_slots(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        (0..self.group_count()).flat_map(move |g| self.ctrl(g).match_full().map(move |i| (g, i)))
    }

    /// The hash under `seed` of the key in a full slot.
    ///
    /// # Safety
    /// The slot's key is live.
    #[inline]
    pub unsafe fn hash_at(&self, seed: u64, group: usize, slot: usize) -> u64 {
        if self.is_int() {
            let v = self.slots_as::<IntSlot>(group)[slot % SLOTS].key;
            crate::hash::hash_int(seed, self.kind as u8, v)
        } else {
            let key = &self.slots_as::<Slot>(group)[slot % SLOTS].key;
            // SAFETY: the caller's guarantee.
            crate::hash::hash(seed, unsafe { key.bytes() })
        }
    }

    /// Moves every entry of `self` into `targets`, choosing the target of
    /// each entry by its hash. The entries' keys move (no copies); `self`
    /// is left as it was and is freed by the caller once the new tables are
    /// installed. A target may have the general layout where `self` has an
    /// integer one, not the other way round.
    ///
    /// # Safety
    /// Every full slot's key is live; the targets have room for the entries.
    pub unsafe fn move_into(&self, seed: u64, mut target: impl FnMut(u64) -> *mut Table) {
        // One loop per layout: a rebuild moves up to 1024 entries, and
        // growing a map moves each entry a few times.
        if self.is_int() {
            let tag = self.kind as u8;
            self.walk::<IntSlot>(|s| {
                let hash = crate::hash::hash_int(seed, tag, s.key);
                // SAFETY: the target pointers are live, distinct from `self`.
                let t = unsafe { &mut *target(hash) };
                let placed = if t.kind == self.kind {
                    t.place_in(hash, *s)
                } else {
                    // Turning general.
                    let key = KeyRepr::from_int(tag, s.key);
                    t.place_in(
                        hash,
                        Slot {
                            key,
                            value: s.value,
                        },
                    )
                };
                debug_assert!(placed, "rebuild target without room");
                0
            });
        } else {
            self.walk::<Slot>(|s| {
                // SAFETY: full slots hold live keys (the caller's guarantee).
                let hash = crate::hash::hash(seed, unsafe { s.key.bytes() });
                // SAFETY: as above; a general table's entries only move into
                // general tables.
                let t = unsafe { &mut *target(hash) };
                debug_assert_eq!(t.kind, KIND_BYTES);
                let placed = t.place_in(hash, *s);
                debug_assert!(placed, "rebuild target without room");
                0
            });
        }
    }

    /// Calls `f` with every full slot until it returns non-zero; returns
    /// that value, or 0. `S` is the table's layout.
    #[inline(always)]
    pub fn walk<S>(&self, mut f: impl FnMut(&S) -> i32) -> i32 {
        for g in 0..self.group_count() {
            let slots = self.slots_as::<S>(g);
            for i in self.ctrl(g).match_full() {
                let r = f(&slots[i % SLOTS]);
                if r != 0 {
                    return r;
                }
            }
        }
        0
    }

    /// Releases the keys of every full slot (before freeing the table).
    ///
    /// # Safety
    /// The keys are owned by this table and came from `alloc`.
    pub unsafe fn release_keys(&self, alloc: &Allocator) {
        if self.is_int() {
            return;
        }
        for (g, i) in self.full_slots() {
            // SAFETY: the caller guarantees ownership.
            unsafe { self.slots_as::<Slot>(g)[i % SLOTS].key.release(alloc) };
        }
    }

    /// Bytes the keys hold outside the table.
    pub fn heap_bytes(&self) -> usize {
        if self.is_int() {
            return 0;
        }
        self.full_slots()
            .map(|(g, i)| self.slots_as::<Slot>(g)[i % SLOTS].key.heap_bytes())
            .sum()
    }

    /// Empties every slot, keeping the capacity. Keys are not released.
    pub fn reset(&mut self) {
        for g in 0..self.group_count() {
            *self.ctrl_mut(g) = Ctrl::EMPTY;
        }
        self.used = 0;
        self.growth_left = max_load(self.capacity as usize) as u32;
    }

    /// An independent copy: same groups (so the same iteration order), long
    /// keys copied. On failure nothing is left allocated.
    ///
    /// # Safety
    /// Every full slot's key is live.
    pub unsafe fn duplicate(&self, alloc: &Allocator) -> Result<*mut Table, Error> {
        let bytes = Table::bytes(self.capacity as usize, self.kind);
        let copy = alloc.alloc(bytes)?.cast::<Table>();
        // SAFETY: `copy` has room for `bytes`, as does `self`'s allocation;
        // slots that are not full may be uninitialized, but copying them as
        // bytes is fine and they are never read as entries.
        unsafe {
            copy.write(Table {
                groups: copy.add(1).cast::<u8>(),
                room: self.kind,
                ..*self
            });
            ptr::copy_nonoverlapping(self.groups, (*copy).groups, bytes - size_of::<Table>());
        }
        if self.is_int() {
            // Integer keys own nothing.
            return Ok(copy);
        }
        let mut done = 0usize;
        let mut failed = None;
        for (g, i) in self.full_slots() {
            // SAFETY: full slots hold live keys.
            match unsafe { self.slots_as::<Slot>(g)[i % SLOTS].key.duplicate(alloc) } {
                Ok(k) => {
                    // SAFETY: `copy` is a live table of the same shape.
                    unsafe { (*copy).slots_as_mut::<Slot>(g)[i % SLOTS].key = k };
                    done += 1;
                }
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
        if let Some(e) = failed {
            // SAFETY: the first `done` full slots of `copy` own fresh copies.
            unsafe {
                for (g, i) in (*copy).full_slots().take(done) {
                    (*copy).slots_as::<Slot>(g)[i % SLOTS].key.release(alloc);
                }
                Table::free(copy, alloc);
            }
            return Err(e);
        }
        Ok(copy)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_visits_every_group_once() {
        for groups in [1usize, 2, 4, 8, 16, 128] {
            for start in 0..groups as u64 {
                let mut p = Probe::new(start << 7, groups - 1);
                let mut seen = vec![false; groups];
                loop {
                    assert!(!seen[p.offset]);
                    seen[p.offset] = true;
                    if !p.next() {
                        break;
                    }
                }
                assert!(seen.iter().all(|&s| s));
            }
        }
    }

    /// Inserts `keys` with hashes chosen to start in group 0.
    fn filled(alloc: &Allocator, capacity: usize, keys: u64, kind: u32) -> *mut Table {
        let t = Table::new(alloc, capacity, 0, kind).unwrap();
        for k in 0..keys {
            let n = IntKey::new(2, k);
            // SAFETY: `t` is live.
            let Lookup::Vacant { group, slot, reuse } = (unsafe { &*t }).lookup(k << 8, &n) else {
                panic!("no room for {k}")
            };
            // SAFETY: as above.
            unsafe { &mut *t }.occupy(
                group,
                slot,
                reuse,
                k << 8,
                n.to_stored(alloc).unwrap(),
                ptr::null_mut(),
            );
        }
        t
    }

    #[test]
    fn erase_in_a_full_group_leaves_a_tombstone() {
        let alloc = Allocator::default();
        // Both layouts behave alike.
        for kind in [KIND_BYTES, TAG_U64 as u32] {
            // SAFETY: the table is live until freed at the end; keys are
            // inline.
            unsafe { erase_in_a_full_group(&alloc, kind) };
        }
    }

    unsafe fn erase_in_a_full_group(alloc: &Allocator, kind: u32) {
        // SAFETY: the caller's guarantee.
        unsafe {
            let tp = filled(alloc, 16, 8, kind);
            let t = &mut *tp;
            assert_eq!(t.ctrl(0).match_full().count(), 8);
            let (g, i) = t.find(3 << 8, &IntKey::new(2, 3)).unwrap();
            t.erase(g, i);
            assert_eq!(t.ctrl(0).get(i), DELETED);
            assert_eq!((t.used, t.growth_left, t.tombstones()), (7, 6, 1));
            // The tombstone is reused by the next absent key on that probe.
            let n = IntKey::new(2, 100);
            let Lookup::Vacant { group, slot, reuse } = t.lookup(100 << 8, &n) else {
                panic!()
            };
            assert_eq!((group, slot, reuse), (0, i, true));
            t.occupy(
                group,
                slot,
                reuse,
                100 << 8,
                n.to_stored(alloc).unwrap(),
                ptr::null_mut(),
            );
            assert_eq!((t.used, t.growth_left, t.tombstones()), (8, 6, 0));
            // Tombstones do not count as empty: the group still has none.
            let (g, i) = t.find(5 << 8, &IntKey::new(2, 5)).unwrap();
            t.erase(g, i);
            let (g, j) = t.find(6 << 8, &IntKey::new(2, 6)).unwrap();
            t.erase(g, j);
            assert_eq!((t.ctrl(0).get(i), t.ctrl(0).get(j)), (DELETED, DELETED));
            // A group with an empty slot gets its slot emptied again.
            let n = IntKey::new(2, 200);
            let Lookup::Vacant { group, slot, reuse } = t.lookup(201, &n) else {
                panic!()
            };
            assert_eq!((group, reuse), (1, false));
            t.occupy(
                group,
                slot,
                reuse,
                201,
                n.to_stored(alloc).unwrap(),
                ptr::null_mut(),
            );
            let left = t.growth_left;
            t.erase(group, slot);
            assert_eq!(t.ctrl(1).get(slot), EMPTY);
            assert_eq!(t.growth_left, left + 1);
            Table::free(tp, alloc);
        }
    }

    #[test]
    fn a_single_group_fills_up_and_never_tombstones() {
        let alloc = Allocator::default();
        for kind in [KIND_BYTES, TAG_U64 as u32] {
            // SAFETY: as above.
            unsafe {
                let tp = filled(&alloc, 8, 8, kind);
                let t = &mut *tp;
                assert_eq!(t.growth_left, 0);
                assert!(matches!(
                    t.lookup(99 << 8, &IntKey::new(2, 99)),
                    Lookup::NoRoom
                ));
                assert!(t.find(99 << 8, &IntKey::new(2, 99)).is_none());
                let (g, i) = t.find(3 << 8, &IntKey::new(2, 3)).unwrap();
                t.erase(g, i);
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
            let tp = filled(&alloc, 16, 4, TAG_U64 as u32);
            let t = &mut *tp;
            let i64_key = IntKey::new(TAG_I64, 2);
            assert!(t.find(2 << 8, &i64_key).is_none());
            assert!(matches!(t.lookup(2 << 8, &i64_key), Lookup::Foreign));
            let text = Needle::bytes(b"a string");
            assert!(matches!(t.lookup(2 << 8, &text), Lookup::Foreign));
            let mut enc = vec![0x00, TAG_U64];
            enc.extend_from_slice(&2u64.to_le_bytes());
            let (g, i) = t.find(2 << 8, &Needle::bytes(&enc)).unwrap();
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
                Table::bytes(16, TAG_U64 as u32),
                size_of::<Table>() + 2 * (8 + 8 * int_slot)
            );
            assert_eq!(Table::bytes(16, KIND_BYTES), size_of::<Table>() + 2 * 328);
            Table::free(tp, &alloc);
        }
    }
}
