//! A table: an open-addressed array of groups, at most 1024 slots.
//!
//! One allocation holds the header and the groups right after it, so a
//! table is one pointer in the directory. A table's capacity is a power of
//! two number of slots, at least 8 (one group) and at most [`MAX_CAPACITY`].
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

use core::ffi::c_void;
use core::mem::size_of;
use core::ptr;

use crate::alloc::Allocator;
use crate::group::{Ctrl, DELETED, EMPTY, SLOTS};
use crate::hash::{h1, h2};
#[cfg(test)]
use crate::key::IntKey;
use crate::key::{Key, KeyRepr};
use crate::Error;

/// Slots in the largest table; a full one splits instead of doubling.
pub const MAX_CAPACITY: usize = 1024;
/// Slots in the table a small map turns into.
pub const FIRST_CAPACITY: usize = 16;

/// One stored entry.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Slot {
    pub key: KeyRepr,
    pub value: *mut c_void,
}

/// A control word and the eight slots it describes.
#[repr(C)]
pub struct Group {
    pub ctrl: Ctrl,
    pub slots: [Slot; SLOTS],
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
/// too, where the header is 28 bytes of fields.
#[repr(C, align(8))]
#[derive(Clone, Copy)]
pub struct Table {
    pub used: u32,
    pub capacity: u32,
    pub growth_left: u32,
    /// Hash bits (from the top) that every key of this table shares.
    pub local_depth: u32,
    /// First directory entry that points here (kept by the directory).
    pub index: u32,
    _pad: u32,
    /// The groups, right after the header in the same allocation. Kept as
    /// a pointer (rather than computed from `&self`) so that it carries the
    /// whole allocation's provenance, not just the header's.
    groups: *mut Group,
}

const _: () = assert!(size_of::<Table>().is_multiple_of(core::mem::align_of::<Group>()));

/// Finds `needle` among the groups `groups[0 ..= mask]` of a table, probing
/// from `hash`: the lookup path, which needs nothing of the table's header
/// (the directory entry carries `groups` and `mask`). `PREFETCH`: start
/// loading each group's slots with its control word (see `prefetch_slots`);
/// a constant, so that the small maps' probe carries no trace of it.
///
/// # Safety
/// `groups` and `mask` are a live table's.
#[inline(always)]
pub unsafe fn find_in<const PREFETCH: bool>(
    groups: *const Group,
    mask: usize,
    hash: u64,
    needle: &impl Key,
) -> Option<(usize, usize)> {
    let mut p = Probe::new(hash, mask);
    let h2 = h2(hash);
    loop {
        // SAFETY: `p.offset <= mask`: a group of the table.
        let g = unsafe { &*groups.add(p.offset) };
        if PREFETCH {
            prefetch_slots(g);
        }
        for i in g.ctrl.match_h2(h2) {
            // SAFETY: `match_h2` only reports full slots, whose keys live.
            if unsafe { needle.matches(&g.slots[i].key) } {
                return Some((p.offset, i));
            }
        }
        if g.ctrl.match_empty().any() || !p.next() {
            return None;
        }
    }
}

/// Starts loading a group's slots while its control word is still on its
/// way: a group spans 200 bytes, so the slot a lookup compares is usually
/// on another cache line than the control word, and without this the two
/// misses of a large map's lookup come one after the other. Measured at 10M
/// u64 keys: hits 92 -> 77 ns, misses unchanged. Maps that fit in the
/// caches lose by it (misses 8% slower at 100K keys, which need no slot),
/// so only large maps prefetch (see `Map::get`).
#[inline(always)]
fn prefetch_slots(g: &Group) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = (g as *const Group).cast::<i8>();
        // SAFETY: a prefetch never faults; the addresses are inside the
        // group.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(64));
            _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(128));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = g;
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
    /// Bytes of one table allocation of `capacity` slots.
    pub fn bytes(capacity: usize) -> usize {
        size_of::<Table>() + capacity / SLOTS * size_of::<Group>()
    }

    /// A new empty table.
    pub fn new(alloc: &Allocator, capacity: usize, local_depth: u32) -> Result<*mut Table, Error> {
        debug_assert!(capacity.is_power_of_two() && (SLOTS..=MAX_CAPACITY).contains(&capacity));
        let p = alloc.alloc(Table::bytes(capacity))?.cast::<Table>();
        // SAFETY: `p` is a fresh allocation of header plus groups, aligned
        // as malloc aligns (8), which suits `Table` and `Group`.
        unsafe {
            let groups = p.add(1).cast::<Group>();
            p.write(Table {
                used: 0,
                capacity: capacity as u32,
                growth_left: max_load(capacity) as u32,
                local_depth,
                index: 0,
                _pad: 0,
                groups,
            });
            for g in 0..capacity / SLOTS {
                ptr::addr_of_mut!((*groups.add(g)).ctrl).write(Ctrl::EMPTY);
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
    pub(crate) fn groups_ptr(&self) -> *mut Group {
        self.groups
    }

    #[inline]
    pub fn group_count(&self) -> usize {
        self.capacity as usize / SLOTS
    }

    #[inline]
    pub fn group(&self, g: usize) -> &Group {
        debug_assert!(g < self.group_count());
        // SAFETY: `g` is below the group count, so the group is inside the
        // allocation, and its control word is always initialized.
        unsafe { &*self.groups_ptr().add(g) }
    }

    #[inline]
    fn group_mut(&mut self, g: usize) -> &mut Group {
        debug_assert!(g < self.group_count());
        // SAFETY: as in `group`; `&mut self` makes the access unique.
        unsafe { &mut *self.groups_ptr().add(g) }
    }

    /// Tombstones, from the counters (the checker recounts them).
    #[inline]
    pub fn tombstones(&self) -> usize {
        max_load(self.capacity as usize) - self.used as usize - self.growth_left as usize
    }

    /// Finds `needle`'s slot.
    #[inline(always)]
    pub fn find(&self, hash: u64, needle: &impl Key) -> Option<(usize, usize)> {
        // SAFETY: a table's own groups and mask.
        unsafe { find_in::<false>(self.groups, self.group_count() - 1, hash, needle) }
    }

    /// Finds `needle`, or the slot an insert of it should take.
    #[inline]
    pub fn lookup(&self, hash: u64, needle: &impl Key) -> Lookup {
        let mut p = Probe::new(hash, self.group_count() - 1);
        let h2 = h2(hash);
        let mut tombstone = None;
        loop {
            let g = self.group(p.offset);
            for i in g.ctrl.match_h2(h2) {
                // SAFETY: `match_h2` only reports full slots, whose keys live.
                if unsafe { needle.matches(&g.slots[i].key) } {
                    return Lookup::Found(p.offset, i);
                }
            }
            if tombstone.is_none() {
                if let Some(i) = g.ctrl.match_deleted().first() {
                    tombstone = Some((p.offset, i));
                }
            }
            let empty = g.ctrl.match_empty().first();
            if empty.is_some() || !p.next() {
                // The key is absent: reuse the first tombstone, else take
                // the empty slot if the growth budget allows.
                return match (tombstone, empty) {
                    (Some((group, slot)), _) => Lookup::Vacant {
                        group,
                        slot,
                        reuse: true,
                    },
                    (None, Some(slot)) if self.growth_left > 0 => Lookup::Vacant {
                        group: p.offset,
                        slot,
                        reuse: false,
                    },
                    _ => Lookup::NoRoom,
                };
            }
        }
    }

    /// Stores a new entry in a slot that [`Table::lookup`] returned.
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
        let g = self.group_mut(group);
        debug_assert!(g.ctrl.get(slot) == if reuse { DELETED } else { EMPTY });
        g.ctrl.set(slot, h2(hash));
        // `% SLOTS` (here and below): slot indices come from a control
        // word's bitset, so they are below 8 already; the mask lets the
        // compiler drop the bounds check, and with it a panic path of the
        // C API's insert.
        g.slots[slot % SLOTS] = Slot { key, value };
        self.used += 1;
        if !reuse {
            self.growth_left -= 1;
        }
    }

    /// Removes the entry in a full slot and hands back its key, which the
    /// caller releases.
    pub fn erase(&mut self, group: usize, slot: usize) -> KeyRepr {
        // A single group is never probed past, so it never needs a tombstone.
        let single = self.capacity as usize == SLOTS;
        let g = self.group_mut(group);
        debug_assert!(g.ctrl.get(slot) < 0x80);
        let key = g.slots[slot % SLOTS].key;
        let tombstone = !single && !g.ctrl.match_empty().any();
        g.ctrl.set(slot, if tombstone { DELETED } else { EMPTY });
        self.used -= 1;
        if !tombstone {
            self.growth_left += 1;
        }
        key
    }

    #[inline]
    pub fn slot(&self, group: usize, slot: usize) -> &Slot {
        &self.group(group).slots[slot % SLOTS]
    }

    #[inline]
    pub fn slot_mut(&mut self, group: usize, slot: usize) -> &mut Slot {
        &mut self.group_mut(group).slots[slot % SLOTS]
    }

    /// Adds an entry known to be absent to a table without tombstones
    /// (one being rebuilt into): no key comparisons. False when the growth
    /// budget is spent.
    pub fn place(&mut self, hash: u64, entry: Slot) -> bool {
        if self.growth_left == 0 {
            return false;
        }
        let mut p = Probe::new(hash, self.group_count() - 1);
        loop {
            if let Some(i) = self.group(p.offset).ctrl.match_empty().first() {
                let g = self.group_mut(p.offset);
                g.ctrl.set(i, h2(hash));
                g.slots[i % SLOTS] = entry;
                self.used += 1;
                self.growth_left -= 1;
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
        (0..self.group_count())
            .flat_map(move |g| self.group(g).ctrl.match_full().map(move |i| (g, i)))
    }

    /// Moves every entry of `self` into `targets`, choosing the target of
    /// each entry by its hash. The entries' keys move (no copies); `self`
    /// is left as it was and is freed by the caller once the new tables are
    /// installed.
    ///
    /// # Safety
    /// Every full slot's key is live; the targets have room for the entries.
    pub unsafe fn move_into(&self, seed: u64, mut target: impl FnMut(u64) -> *mut Table) {
        for (g, i) in self.full_slots() {
            let entry = *self.slot(g, i);
            // SAFETY: full slots hold live keys (the caller's guarantee).
            let hash = crate::hash::hash(seed, unsafe { entry.key.bytes() });
            // SAFETY: the target pointers are live, distinct from `self`.
            let placed = unsafe { (*target(hash)).place(hash, entry) };
            debug_assert!(placed, "rebuild target without room");
        }
    }

    /// Releases the keys of every full slot (before freeing the table).
    ///
    /// # Safety
    /// The keys are owned by this table and came from `alloc`.
    pub unsafe fn release_keys(&self, alloc: &Allocator) {
        for (g, i) in self.full_slots() {
            // SAFETY: the caller guarantees ownership.
            unsafe { self.slot(g, i).key.release(alloc) };
        }
    }

    /// Empties every slot, keeping the capacity. Keys are not released.
    pub fn reset(&mut self) {
        for g in 0..self.group_count() {
            self.group_mut(g).ctrl = Ctrl::EMPTY;
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
        let bytes = Table::bytes(self.capacity as usize);
        let copy = alloc.alloc(bytes)?.cast::<Table>();
        // SAFETY: `copy` has room for `bytes`, as does `self`'s allocation;
        // slots that are not full may be uninitialized, but copying them as
        // bytes is fine and they are never read as entries.
        unsafe {
            copy.write(Table {
                groups: copy.add(1).cast::<Group>(),
                ..*self
            });
            ptr::copy_nonoverlapping(
                self.groups.cast::<u8>(),
                (*copy).groups.cast::<u8>(),
                bytes - size_of::<Table>(),
            );
        }
        let mut done = 0usize;
        let mut failed = None;
        for (g, i) in self.full_slots() {
            // SAFETY: full slots hold live keys.
            match unsafe { self.slot(g, i).key.duplicate(alloc) } {
                Ok(k) => {
                    // SAFETY: `copy` is a live table of the same shape.
                    unsafe { (*copy).slot_mut(g, i).key = k };
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
                    (*copy).slot(g, i).key.release(alloc);
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
    fn filled(alloc: &Allocator, capacity: usize, keys: u64) -> *mut Table {
        let t = Table::new(alloc, capacity, 0).unwrap();
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
        // SAFETY: the table is live until freed at the end; keys are inline.
        unsafe {
            let tp = filled(&alloc, 16, 8);
            let t = &mut *tp;
            assert_eq!(t.group(0).ctrl.match_full().count(), 8);
            let (g, i) = t.find(3 << 8, &IntKey::new(2, 3)).unwrap();
            t.erase(g, i);
            assert_eq!(t.group(0).ctrl.get(i), DELETED);
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
                n.to_stored(&alloc).unwrap(),
                ptr::null_mut(),
            );
            assert_eq!((t.used, t.growth_left, t.tombstones()), (8, 6, 0));
            // Tombstones do not count as empty: the group still has none.
            let (g, i) = t.find(5 << 8, &IntKey::new(2, 5)).unwrap();
            t.erase(g, i);
            let (g, j) = t.find(6 << 8, &IntKey::new(2, 6)).unwrap();
            t.erase(g, j);
            assert_eq!(
                (t.group(0).ctrl.get(i), t.group(0).ctrl.get(j)),
                (DELETED, DELETED)
            );
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
                n.to_stored(&alloc).unwrap(),
                ptr::null_mut(),
            );
            let left = t.growth_left;
            t.erase(group, slot);
            assert_eq!(t.group(1).ctrl.get(slot), EMPTY);
            assert_eq!(t.growth_left, left + 1);
            Table::free(tp, &alloc);
        }
    }

    #[test]
    fn a_single_group_fills_up_and_never_tombstones() {
        let alloc = Allocator::default();
        // SAFETY: as above.
        unsafe {
            let tp = filled(&alloc, 8, 8);
            let t = &mut *tp;
            assert_eq!(t.growth_left, 0);
            assert!(matches!(
                t.lookup(99 << 8, &IntKey::new(2, 99)),
                Lookup::NoRoom
            ));
            assert!(t.find(99 << 8, &IntKey::new(2, 99)).is_none());
            let (g, i) = t.find(3 << 8, &IntKey::new(2, 3)).unwrap();
            t.erase(g, i);
            assert_eq!(t.group(0).ctrl.get(i), EMPTY);
            assert_eq!(t.growth_left, 1);
            Table::free(tp, &alloc);
        }
    }
}
