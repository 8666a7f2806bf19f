//! The probe: where a key is in a table, or where it would go.
//!
//! Probing starts at group `h1 & group_mask` and moves triangularly:
//! `offset = (offset + i) & group_mask` for `i = 1, 2, 3, ...`, which visits
//! every group once when the group count is a power of two. A lookup stops
//! at the first group with an empty slot: an insert would have used it.
//!
//! A probe reads control words only, until a fingerprint matches; so a
//! miss touches one 8-byte word per group, and the control words of a
//! table (1 KiB at 1024 slots) stay in the caches while the slots do not.
//!
//! [`Typed`], a table seen in its slot layout, holds the one step of every
//! probe ([`Typed::search`]: one group), the one probe loop that runs it
//! (`Typed::probe_from`), and the two probes every point operation takes:
//! `find` (lookups, deletes, takes, batches) and `find_or_vacant` (sets and
//! get-or-inserts), each specialised by constants only: `PREFETCH` (maps
//! past the caches) and `PEEL` (an integer key's first group searched
//! apart from the rest of its probe). It also holds the operations that
//! read or write slots (`insert_at`, `place`, `walk`, `move_into`) and
//! the table's whole-table operations that do (`impl Table` here). The
//! header (`table/mod.rs`) keeps the counters and the control words.

use core::ffi::c_void;
use core::marker::PhantomData;
use core::mem::size_of;
use core::ptr;

use super::Table;
use crate::alloc::Allocator;
use crate::group::{Ctrl, DELETED, EMPTY, SLOTS};
use crate::hash::{h1, h2};
use crate::key::Key;
use crate::layout::Slot;
use crate::layout::{on_layout, slot_bytes, Layout};
use crate::prefetch::prefetch;
use crate::Error;

/// A vacant slot an insert may take (`reuse`: a tombstone).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Vacancy {
    pub group: usize,
    pub slot: usize,
    pub reuse: bool,
}

/// Where a key is, or where it would go.
pub enum Lookup<S> {
    /// The key is stored in this slot (full, in the table's layout).
    Found(*mut S),
    /// The key is absent; this slot may take it.
    Vacant(Vacancy),
    /// The key is absent and the table has no room: rebuild it first.
    NoRoom,
}

/// What one group of a probe says about a key.
pub(crate) enum Search<S> {
    /// Stored in slot `.0` of the group, at `.1`.
    Found(usize, *mut S),
    /// Absent: the group has an empty slot (the first is `.0`), so the
    /// probe ends.
    Absent(usize),
    /// Not in the group, which is full: the probe goes on.
    Further,
}

pub(crate) struct Probe {
    pub(crate) offset: usize,
    step: usize,
    mask: usize,
}

impl Probe {
    #[inline]
    pub(crate) fn new(hash: u64, mask: usize) -> Probe {
        Probe {
            offset: h1(hash) as usize & mask,
            step: 0,
            mask,
        }
    }

    /// Advances; false once every group has been visited.
    #[inline]
    pub(crate) fn next(&mut self) -> bool {
        self.step += 1;
        self.offset = (self.offset + self.step) & self.mask;
        self.step <= self.mask
    }
}

/// The slots of group `g` of a table whose groups start at `groups` with
/// `mask + 1` of them: the slot array follows the control words.
///
/// # Safety
/// `groups` and `mask` are a live table's, laid out in `S` slots; `g <= mask`.
unsafe fn slots_of<S>(groups: *const u8, mask: usize, g: usize) -> *mut [S; SLOTS] {
    // SAFETY: the caller's guarantee: the slot array starts after the
    // `mask + 1` control words, and group `g`'s slots are inside it.
    unsafe {
        groups
            .add((mask + 1) * size_of::<Ctrl>())
            .cast::<[S; SLOTS]>()
            .add(g)
            .cast_mut()
    }
}

/// The slot of a group whose marker bit (see
/// [`crate::group::Bitset::first_bit`]) is `bit`: slot `i = bit / 8`, at
/// byte `i * size`. Where `size` is a multiple of 8 (every slot on 64-bit
/// targets) that is `bit * size / 8 - 7 * size / 8`, since `bit = 8i + 7`:
/// one scaled address, no shift. Elsewhere (32-bit targets, whose values
/// are 4 bytes) the index is formed first.
///
/// # Safety
/// `slots` is a group's slots and `bit` a marker bit (`bit % 8 == 7`,
/// `bit < 64`).
unsafe fn slot_at<S>(slots: *mut [S; SLOTS], bit: u32) -> *mut S {
    debug_assert_eq!(bit % 8, 7);
    let size = size_of::<S>();
    if !size.is_multiple_of(8) {
        // SAFETY: the caller's guarantee: slot `bit / 8 < 8` of the group.
        return unsafe { slots.cast::<S>().add(bit as usize / 8) };
    }
    let unit = size / 8;
    // SAFETY: the caller's guarantee: `bit * unit - 7 * unit = (bit / 8) *
    // size`, a slot of the group; the intermediate offset, `bit * unit`,
    // is inside the group's `8 * size` bytes too.
    unsafe {
        slots
            .cast::<u8>()
            .add(bit as usize * unit)
            .sub(7 * unit)
            .cast()
    }
}

/// Starts loading a group's slots while its control word is still on its
/// way: the slots are in the slot array, away from the control words, so
/// without this the two misses of a large map's lookup come one after the
/// other. Three lines: an integer group's 128 bytes of slots wherever they
/// start (slots are 8-aligned, not 64), and a general group's first five
/// slots of eight. Only maps past the caches prefetch (see `Map::get`).
fn prefetch_slots<S>(slots: *const [S; SLOTS]) {
    let p = slots.cast::<u8>();
    prefetch(p);
    prefetch(p.wrapping_add(64));
    prefetch(p.wrapping_add(127));
}

/// A live table seen in its layout `L`: made only where the table's kind
/// was matched to `L` (with [`on_layout!`]), so its slots are `L::Slot`s.
/// It holds the groups and group mask as the directory entry has them, so
/// a probe need not wait for the header's cache line (which only counting
/// a change needs). Borrows the table for `'a`.
pub struct Typed<'a, L: Layout> {
    table: *mut Table,
    groups: *mut u8,
    mask: usize,
    _borrow: PhantomData<(&'a mut Table, L)>,
}

impl<'a, L: Layout> Typed<'a, L> {
    /// The table whose groups and group mask a directory entry holds.
    ///
    /// # Safety
    /// `groups` and `mask` are those of a live table of a kind laid out in
    /// `L`, which nothing else modifies during `'a` (nothing else reads it
    /// during `'a` if the typed table modifies it).
    pub unsafe fn from_groups(groups: *mut u8, mask: u32) -> Typed<'a, L> {
        Typed {
            // The header precedes the groups; nothing loads it here.
            table: groups.cast::<Table>().wrapping_sub(1),
            groups,
            mask: mask as usize,
            _borrow: PhantomData,
        }
    }

    /// Table `t`.
    ///
    /// # Safety
    /// As for [`Typed::from_groups`], for the table `t`.
    pub unsafe fn of(t: *mut Table) -> Typed<'a, L> {
        // SAFETY: the caller's guarantee.
        unsafe {
            debug_assert_eq!(slot_bytes((*t).kind()), size_of::<L::Slot>());
            Typed {
                table: t,
                groups: (*t).groups_ptr(),
                mask: (*t).mask() as usize,
                _borrow: PhantomData,
            }
        }
    }

    /// The header.
    pub fn table(&mut self) -> &mut Table {
        // SAFETY: a live table, borrowed for `'a` (see `from_groups`).
        unsafe { &mut *self.table }
    }

    fn ctrl(&self, g: usize) -> Ctrl {
        debug_assert!(g <= self.mask);
        // SAFETY: `g <= mask`: a group of the table, whose control word is
        // initialized.
        unsafe { *self.groups.cast::<Ctrl>().add(g) }
    }

    fn slots(&self, g: usize) -> *mut [L::Slot; SLOTS] {
        debug_assert!(g <= self.mask);
        // SAFETY: the table's groups and mask, laid out in `L`; `g <= mask`.
        unsafe { slots_of::<L::Slot>(self.groups, self.mask, g) }
    }

    /// Slot `i` of group `g`.
    pub fn slot(&self, g: usize, i: usize) -> &L::Slot {
        // `% SLOTS` (here and below): slot indices come from a control
        // word's bitset, so they are below 8 already; the mask lets the
        // compiler drop the bounds check, and with it a panic path.
        // SAFETY: a slot of the table.
        unsafe { &(*self.slots(g))[i % SLOTS] }
    }

    pub fn slot_mut(&mut self, g: usize, i: usize) -> &mut L::Slot {
        // SAFETY: a slot of the table, borrowed uniquely with `self`.
        unsafe { &mut (*self.slots(g))[i % SLOTS] }
    }

    /// Finds the full slot that `eq` accepts, probing from `hash`:
    /// `(group, slot, its address)`. `PREFETCH`: start loading each
    /// group's slots with its control word (see `prefetch_slots`); a
    /// constant, so that the small maps' probe carries no trace of it.
    #[inline(always)]
    pub fn find<const PREFETCH: bool>(
        &self,
        hash: u64,
        eq: impl Fn(&L::Slot) -> bool,
    ) -> Option<(usize, usize, *mut L::Slot)> {
        self.probe_from::<PREFETCH>(Probe::new(hash, self.mask), h2(hash), &eq)
    }

    /// The one probe loop: a [`Typed::search`] of each group from where
    /// `p` stands to the end of the probe, for the key whose fingerprint
    /// is `h2`.
    #[inline(always)]
    fn probe_from<const PREFETCH: bool>(
        &self,
        mut p: Probe,
        h2: u8,
        eq: &impl Fn(&L::Slot) -> bool,
    ) -> Option<(usize, usize, *mut L::Slot)> {
        loop {
            match self.search::<PREFETCH>(p.offset, h2, eq) {
                Search::Found(i, s) => return Some((p.offset, i, s)),
                Search::Absent(_) => return None,
                Search::Further => {}
            }
            if !p.next() {
                return None;
            }
        }
    }

    /// Looks for the key in group `g`: the step of every probe. In an
    /// integer table (a compare of one word) each candidate is compared
    /// before it is cleared from the set, so a hit does not wait on that;
    /// a general table's longer compare clears it first (a shorter loop,
    /// needed by `make lto-test`).
    #[inline(always)]
    fn search<const PREFETCH: bool>(
        &self,
        g: usize,
        h2: u8,
        eq: &impl Fn(&L::Slot) -> bool,
    ) -> Search<L::Slot> {
        let (ctrl, slots) = (self.ctrl(g), self.slots(g));
        if PREFETCH {
            prefetch_slots(slots);
        }
        let mut candidates = ctrl.match_h2(h2);
        while let Some(bit) = candidates.first_bit() {
            if !L::INT {
                candidates = candidates.rest();
            }
            // SAFETY: `match_h2` only reports full slots, whose keys live;
            // its bits are marker bits.
            let s = unsafe { slot_at(slots, bit) };
            // SAFETY: as above.
            if eq(unsafe { &*s }) {
                return Search::Found(bit as usize / 8, s);
            }
            if L::INT {
                candidates = candidates.rest();
            }
        }
        match ctrl.match_empty().first() {
            Some(i) => Search::Absent(i),
            None => Search::Further,
        }
    }

    /// Starts loading what a probe for `hash` reads first: its first
    /// group's control word. Batch lookups call this a stage ahead of
    /// [`Typed::prefetch_candidate`], and that a stage ahead of the probe
    /// (see `crate::map::batch`).
    pub fn prefetch_ctrl(&self, hash: u64) {
        let g = Probe::new(hash, self.mask).offset;
        // SAFETY: `g <= mask`: an address inside the table; a prefetch
        // reads nothing.
        prefetch(unsafe { self.groups.cast::<Ctrl>().add(g) }.cast());
    }

    /// Starts loading the slots an insert of a new key of hash `hash`
    /// reads and writes in its first group, if it ends there: its first
    /// candidate (which the key is compared with) and its first empty
    /// slot (which the key takes). Reads the group's control word. For
    /// inserts that know their keys ahead (a snapshot's load), a stage
    /// after [`Typed::prefetch_ctrl`].
    pub fn prefetch_vacancy(&self, hash: u64) {
        let g = Probe::new(hash, self.mask).offset;
        let ctrl = self.ctrl(g);
        let first = [ctrl.match_h2(h2(hash)).first(), ctrl.match_empty().first()];
        for i in first.into_iter().flatten() {
            // SAFETY: a slot of group `g`, `i < SLOTS`; only its address
            // is taken.
            let s = unsafe { &raw const (*self.slots(g))[i % SLOTS] }.cast::<u8>();
            prefetch(s);
            // A slot may straddle two lines.
            prefetch(s.wrapping_add(size_of::<L::Slot>() - 1));
        }
    }

    /// Starts loading the slot of the first candidate for `hash` in its
    /// first group, if there is one: the line a hit (or a fingerprint
    /// collision) compares. Reads the group's control word.
    pub fn prefetch_candidate(&self, hash: u64) {
        let g = Probe::new(hash, self.mask).offset;
        if let Some(i) = self.ctrl(g).match_h2(h2(hash)).first() {
            // SAFETY: a slot of group `g`, `i < SLOTS`; only its address
            // is taken.
            let s = unsafe { &raw const (*self.slots(g))[i % SLOTS] }.cast::<u8>();
            prefetch(s);
            // A slot may straddle two lines.
            prefetch(s.wrapping_add(size_of::<L::Slot>() - 1));
        }
    }

    /// Hands `done` the value of the full slot `eq` accepts, or `None`.
    /// `PEEL`: the first group is searched here, and a probe that goes on
    /// to further groups does so in [`get_further`], which calls `done`
    /// itself. Otherwise the whole probe runs here (a batch stage, or a
    /// key in a general table).
    #[inline(always)]
    pub fn get<const PREFETCH: bool, const PEEL: bool, R>(
        &self,
        hash: u64,
        eq: impl Fn(&L::Slot) -> bool,
        done: impl FnOnce(Option<*mut c_void>) -> R,
    ) -> R {
        if !PEEL {
            return done(
                self.find::<PREFETCH>(hash, eq)
                    .map(|(_, _, s)| value_of::<L>(s)),
            );
        }
        match self.search_first::<PREFETCH>(hash, &eq).1 {
            Search::Found(_, s) => done(Some(value_of::<L>(s))),
            Search::Absent(_) => done(None),
            Search::Further => get_further::<L, PREFETCH, R>(self.groups, hash, eq, done),
        }
    }

    /// [`Typed::search`] of the first group of the probe for `hash`, and
    /// that group.
    pub fn search_first<const PREFETCH: bool>(
        &self,
        hash: u64,
        eq: impl Fn(&L::Slot) -> bool,
    ) -> (usize, Search<L::Slot>) {
        let g = Probe::new(hash, self.mask).offset;
        (g, self.search::<PREFETCH>(g, h2(hash), &eq))
    }

    /// Finds the slot `eq` accepts, or the slot an insert of that key
    /// should take: the lookup's own probe, which notes the first
    /// tombstone it passes. The key being absent, that tombstone is the
    /// slot, else the first empty slot of the group that ended the probe.
    /// (A group that ends a probe has an empty slot, and so no tombstone:
    /// deleting leaves one only in a group with no empty slot, and nothing
    /// but a rebuild empties a slot again.)
    /// `PEEL`: only the first group is searched, and a probe that would go
    /// on (the group is full) returns [`Lookup::NoRoom`] at once, for the
    /// caller to repeat unpeeled.
    #[inline(always)]
    pub fn find_or_vacant<const PEEL: bool>(
        &mut self,
        hash: u64,
        eq: impl Fn(&L::Slot) -> bool,
    ) -> Lookup<L::Slot> {
        if PEEL {
            return match self.search_first::<false>(hash, &eq) {
                (_, Search::Found(_, s)) => Lookup::Found(s),
                (_, Search::Absent(_)) if self.table().growth_left() == 0 => Lookup::NoRoom,
                (group, Search::Absent(slot)) => Lookup::Vacant(Vacancy {
                    group,
                    slot,
                    reuse: false,
                }),
                (_, Search::Further) => Lookup::NoRoom,
            };
        }
        let mut p = Probe::new(hash, self.mask);
        // The first tombstone passed, as `group * SLOTS + slot`; `NONE`
        // until one is.
        const NONE: usize = usize::MAX;
        let mut tombstone = NONE;
        loop {
            match self.search::<false>(p.offset, h2(hash), &eq) {
                Search::Found(_, s) => return Lookup::Found(s),
                Search::Absent(slot) if tombstone == NONE => {
                    if self.table().growth_left() == 0 {
                        return Lookup::NoRoom;
                    }
                    let (group, reuse) = (p.offset, false);
                    return Lookup::Vacant(Vacancy { group, slot, reuse });
                }
                Search::Absent(_) => break,
                Search::Further if tombstone == NONE => {
                    // A group with no empty slot: its non-full slots are
                    // tombstones.
                    if let Some(slot) = self.ctrl(p.offset).match_empty_or_deleted().first() {
                        tombstone = p.offset * SLOTS + slot;
                    }
                }
                Search::Further => {}
            }
            if !p.next() {
                break;
            }
        }
        if tombstone == NONE {
            return Lookup::NoRoom;
        }
        let (group, slot) = (tombstone / SLOTS, tombstone % SLOTS);
        Lookup::Vacant(Vacancy {
            group,
            slot,
            reuse: true,
        })
    }

    /// Fills a vacant slot that [`Typed::find_or_vacant`] returned: `write`
    /// writes the entry into the slot's memory, which stays vacant (and
    /// unread) if it fails; then the slot is marked full and counted.
    #[inline(always)]
    pub fn insert_at(
        &mut self,
        v: Vacancy,
        hash: u64,
        write: impl FnOnce(*mut L::Slot) -> Result<(), Error>,
    ) -> Result<(), Error> {
        debug_assert!(self.ctrl(v.group).get(v.slot) == if v.reuse { DELETED } else { EMPTY });
        write(self.vacant_slot(&v))?;
        self.table().occupy(v.group, v.slot, h2(hash), v.reuse);
        Ok(())
    }

    /// The slot memory of vacancy `v` (where `insert_at` writes).
    pub fn vacant_slot(&mut self, v: &Vacancy) -> *mut L::Slot {
        // SAFETY: a slot of the table.
        unsafe { &raw mut (*self.slots(v.group))[v.slot % SLOTS] }
    }

    /// Adds an entry known to be absent to a table without tombstones (one
    /// being rebuilt into): no key comparisons. False when the growth
    /// budget is spent.
    pub fn place(&mut self, hash: u64, entry: L::Slot) -> bool {
        if self.table().growth_left() == 0 {
            return false;
        }
        let mut p = Probe::new(hash, self.mask);
        loop {
            if let Some(slot) = self.ctrl(p.offset).match_empty().first() {
                let v = Vacancy {
                    group: p.offset,
                    slot,
                    reuse: false,
                };
                let stored = self.insert_at(v, hash, |dst| {
                    // SAFETY: a vacant slot's memory.
                    unsafe { dst.write(entry) };
                    Ok(())
                });
                return stored.is_ok();
            }
            // Growth budget left means an empty slot exists.
            if !p.next() {
                debug_assert!(false, "growth budget left but no empty slot");
                return false;
            }
        }
    }

    /// Calls `f` with every full slot until it returns non-zero; returns
    /// that value, or 0.
    pub fn walk(&self, mut f: impl FnMut(&L::Slot) -> i32) -> i32 {
        for g in 0..=self.mask {
            let slots = self.slots(g);
            for i in self.ctrl(g).match_full() {
                // SAFETY: a full slot of the table.
                let r = f(unsafe { &(*slots)[i % SLOTS] });
                if r != 0 {
                    return r;
                }
            }
        }
        0
    }

    /// Moves every entry into the table `target(hash)` gives for it: its
    /// key moves (no copy); `self` is left as it was and is freed by the
    /// caller once the new tables are installed. A target may have the
    /// general layout where `self` has an integer one, not the other way
    /// round.
    ///
    /// # Safety
    /// Every full slot's key is live; the targets are live, distinct from
    /// `self`, and have room for the entries.
    pub unsafe fn move_into(&self, seed: u64, mut target: impl FnMut(u64) -> *mut Table) {
        // SAFETY: `self` is live.
        let kind = unsafe { (*self.table).kind() };
        self.walk(|s| {
            // SAFETY: full slots hold live keys (the caller's guarantee).
            let hash = unsafe { L::hash(seed, kind, s) };
            let tp = target(hash);
            // SAFETY: the caller's guarantee; the target's layout is its
            // kind's.
            let placed = unsafe {
                on_layout!((*tp).kind(), T => Typed::<T>::of(tp).place(hash, T::moved::<L>(kind, s)))
            };
            debug_assert!(placed, "rebuild target without room");
            0
        });
    }
}

/// The value of `s`, a full slot that a search found.
fn value_of<L: Layout>(s: *mut L::Slot) -> *mut c_void {
    // SAFETY: searches hand out full slots of a live table.
    L::value(unsafe { &*s })
}

/// [`Typed::get`] past the first group: the rest of the probe for `hash`
/// in the table whose groups start at `groups`. (It reads the group mask
/// from the table's header: the caller passes only the groups.)
#[inline(never)]
fn get_further<L: Layout, const PREFETCH: bool, R>(
    groups: *mut u8,
    hash: u64,
    eq: impl Fn(&L::Slot) -> bool,
    done: impl FnOnce(Option<*mut c_void>) -> R,
) -> R {
    // SAFETY: the groups of the live table `Typed::get` was called on, in
    // its layout; its header precedes them.
    let t = unsafe {
        let mask = (*groups.cast::<Table>().wrapping_sub(1)).mask();
        Typed::<L>::from_groups(groups, mask)
    };
    let mut p = Probe::new(hash, t.mask);
    let found = if p.next() {
        t.probe_from::<PREFETCH>(p, h2(hash), &eq)
    } else {
        None
    };
    done(found.map(|(_, _, s)| value_of::<L>(s)))
}

/// The table's whole-table operations that read or write slots: each
/// matches the table's kind once and runs the typed code.
impl Table {
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

    /// Bytes the keys hold outside the table: none in an integer table,
    /// whose slots are not visited.
    pub fn heap_bytes(&self) -> usize {
        let mut bytes = 0;
        // SAFETY: the layout is the table's kind's.
        on_layout!(self.kind, L => unsafe {
            if L::INT {
                return 0;
            }
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

    /// `slot_at` from a marker bit names the slot `[i]` names, for every
    /// slot size the layouts use.
    fn slot_at_is_indexing<L: Layout>() {
        let mut group = [const { core::mem::MaybeUninit::<L::Slot>::uninit() }; SLOTS];
        let slots = group.as_mut_ptr().cast::<[L::Slot; SLOTS]>();
        for (i, slot) in group.iter_mut().enumerate() {
            // SAFETY: a group's slots and a marker bit; only addresses.
            let at = unsafe { slot_at(slots, 8 * i as u32 + 7) };
            assert_eq!(at, slot.as_mut_ptr());
        }
    }

    #[test]
    fn slot_at_names_the_slot() {
        slot_at_is_indexing::<crate::layout::Int>();
        slot_at_is_indexing::<crate::layout::General>();
    }

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
}
