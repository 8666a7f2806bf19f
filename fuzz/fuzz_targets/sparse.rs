//! Sparse sets against a model: two sets (one of the column shapes below,
//! and a membership set or one column) keyed by the keys of an owner
//! slotmap under churn (entities born and dying, slots reissued), with
//! sets checked against the owner or not, erases, erase_if, prune, sort,
//! reserve, clear, clone, free, and allocations that fail on demand; walks
//! (`each`, `erase_if`, `sort`'s comparator, joins of the sets with and
//! without the owner) whose callback, at a chosen visit, writes to one of
//! the walk's sets or another (erases or sets its given key or another,
//! clears, frees, reserves, sorts, prunes, walks it again, writes an
//! element), or to the owner, and erases its given key at many visits,
//! some left by `longjmp` at a chosen visit, checked against SPEC §3c.
//! The model is a map from key to row bytes per set, with at most one key
//! per slot index.
#![no_main]

use core::ffi::c_void;
use core::ptr::{null, null_mut};
use core::sync::atomic::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use libfuzzer_sys::fuzz_target;

#[path = "ffi.rs"]
mod ffi;
use ffi::*;

/// Column shapes of the first set (none: membership).
const SHAPES: [&[u32]; 6] = [&[], &[1], &[8], &[16], &[3, 8, 1], &[4, 16, 24, 7]];

struct Set {
    sp: slotmap_sparse_s,
    sizes: &'static [u32],
    row: usize,
    /// key -> row bytes.
    rows: BTreeMap<u64, Vec<u8>>,
}

impl Set {
    fn new(sizes: &'static [u32]) -> Set {
        let mut sp = slotmap_sparse_s([0; 24]);
        // SAFETY: writable memory for a set.
        let rc = unsafe {
            match sizes.len() {
                0 => slotmap_sparse(&mut sp, 0),
                1 => slotmap_sparse(&mut sp, sizes[0]),
                n => slotmap_sparse_columns(&mut sp, sizes.as_ptr(), n as u32),
            }
        };
        assert_eq!(rc, OK);
        Set {
            sp,
            sizes,
            row: sizes.iter().sum::<u32>() as usize,
            rows: BTreeMap::new(),
        }
    }

    /// The model's key of slot index `slot`.
    fn key_of_slot(&self, slot: u32) -> Option<u64> {
        self.rows.keys().find(|&&k| k as u32 == slot).copied()
    }

    fn model_set(&mut self, key: u64, row: Option<&[u8]>) {
        if let Some(old) = self.key_of_slot(key as u32) {
            self.rows.remove(&old);
        }
        let bytes = row.map_or(vec![0; self.row], |r| r.to_vec());
        self.rows.insert(key, bytes);
    }

    /// Row `r`'s bytes, the columns back to back.
    fn read_row(&self, r: u32) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.row);
        for (c, &size) in self.sizes.iter().enumerate() {
            // SAFETY: an initialized set; row `r` is below its length.
            unsafe {
                let base = slotmap_sparse_column(&self.sp, c as u32).cast::<u8>();
                assert!(!base.is_null() && (base as usize).is_multiple_of(16));
                let p = base.add(r as usize * size as usize);
                out.extend_from_slice(core::slice::from_raw_parts(p, size as usize));
            }
        }
        out
    }

    /// Key `key` as every lookup sees it: its row, or absent.
    fn lookup(&self, key: u64) -> Option<u32> {
        let mut element: *mut c_void = 0x5EED as *mut c_void;
        let mut row = u32::MAX;
        // SAFETY: an initialized set.
        unsafe {
            let rc = slotmap_sparse_row(&self.sp, key, &mut row);
            let contains = slotmap_sparse_contains(&self.sp, key);
            let got = slotmap_sparse_get(&self.sp, key, &mut element);
            if rc != OK {
                assert_eq!(rc, NOT_FOUND);
                assert_eq!(got, NOT_FOUND);
                assert_eq!(contains, 0);
                assert_eq!(row, u32::MAX);
                assert_eq!(element, 0x5EED as *mut c_void);
                return None;
            }
            assert_eq!(got, OK);
            assert_eq!(contains, 1);
            assert_eq!(slotmap_sparse_key_at(&self.sp, row), key);
            if self.sizes.is_empty() {
                assert!(element.is_null());
            } else {
                let base = slotmap_sparse_column(&self.sp, 0).cast::<u8>();
                assert_eq!(
                    element.cast::<u8>(),
                    base.add(row as usize * self.sizes[0] as usize)
                );
            }
        }
        Some(row)
    }

    fn check_key(&self, key: u64) {
        match (self.rows.get(&key), self.lookup(key)) {
            (Some(bytes), Some(r)) => assert_eq!(&self.read_row(r), bytes, "key {key:#x}"),
            (None, None) => {}
            (m, s) => panic!("key {key:#x}: model {:?}, set row {s:?}", m.is_some()),
        }
    }

    fn verify(&self) {
        // SAFETY (all): an initialized set.
        let n = unsafe { slotmap_sparse_length(&self.sp) };
        assert_eq!(n as usize, self.rows.len());
        let keys = unsafe { slotmap_sparse_keys(&self.sp) };
        assert_eq!(keys.is_null(), n == 0);
        assert_eq!(unsafe { slotmap_sparse_key_at(&self.sp, n) }, 0);
        for r in 0..n {
            let k = unsafe { slotmap_sparse_key_at(&self.sp, r) };
            assert_eq!(unsafe { *keys.add(r as usize) }, k);
            let bytes = self.rows.get(&k).expect("a row's key is in the model");
            assert_eq!(self.lookup(k), Some(r));
            assert_eq!(&self.read_row(r), bytes);
        }
    }
}

struct World {
    owner: slotmap_s,
    live: Vec<u64>,
    dead: Vec<u64>,
    sets: [Set; 2],
}

impl World {
    fn pick_key(&self, input: &mut Input, s: usize) -> u64 {
        let b = input.byte();
        let nth = |v: &Vec<u64>, i: u8| v.get(i as usize % v.len().max(1)).copied();
        match b % 8 {
            0..=2 => nth(&self.live, input.byte()).unwrap_or(1),
            3 => nth(&self.dead, input.byte()).unwrap_or(3),
            4 => {
                let present: Vec<u64> = self.sets[s].rows.keys().copied().collect();
                nth(&present, input.byte()).unwrap_or(5)
            }
            5 => input.u64(),
            // High slot indices, near 2^31 and at the top.
            6 => (u64::from(input.byte() | 1) << 32) | u64::from(0x7FFF_FF00 + input.u32() % 0x200),
            _ => 0,
        }
    }
}

unsafe extern "C" fn bit_of_key(key: slotmap_key, _row: *mut c_void, data: *mut c_void) -> i32 {
    // SAFETY: `data` is the bit.
    unsafe { (key.rotate_right(3) & *data.cast::<u64>() != 0) as i32 }
}

unsafe extern "C" fn less_first(a: *const c_void, b: *const c_void, _data: *mut c_void) -> i32 {
    // SAFETY: column 0 has at least one byte.
    unsafe { (*a.cast::<u8>() < *b.cast::<u8>()) as i32 }
}

/// Writes a walk's callback makes, at one visit.
const SP_WRITES: u8 = 16;

/// A walk (`slotmap_sparse_each`, `slotmap_sparse_erase_if`,
/// `slotmap_sparse_sort`'s comparator calls, or `slotmap_join`) whose
/// callback, at visit `at`, makes the write `write` to set `target` (one
/// of the walk's sets or not) or to the owner, and at other visits erases
/// its given key from the walk's set `coin_from` when `coin` says so. The
/// model follows every call as it is made.
struct SpWalk {
    w: *mut World,
    kind: WalkKind,
    /// The walk's sets, by index into `World::sets` (a join may take one
    /// twice).
    which: Vec<usize>,
    sets: [*mut slotmap_sparse_s; 4],
    /// The join's owner, or NULL.
    owner: *const slotmap_s,
    /// The position in `which` of the set the walk goes through.
    lead: usize,
    tag: *mut u32,
    at: usize,
    write: u8,
    target: usize,
    /// The key a write sets or erases.
    key: u64,
    with_owner: bool,
    /// erase_if's answers at other visits (`bit_of_key`), and a nested
    /// one's.
    bit: u64,
    coin: Option<u32>,
    coin_from: usize,
    ret: i32,
    pick: usize,
    seen: Vec<u64>,
    visits: usize,
    effect: Option<Effect>,
    /// Keys erased from the owner before the join reached them.
    skipped: BTreeSet<u64>,
    /// The lead set's dense order as the writes leave it: unknown after a
    /// write that reorders it otherwise than swap-and-pop.
    order: Option<Vec<u64>>,
    /// A key was erased from the lead set (the visits leave row order).
    lead_erased: bool,
    sorted: bool,
    rewritten: bool,
}

impl SpWalk {
    fn world(&mut self) -> &mut World {
        // SAFETY: a live world; each reference lives for one call.
        unsafe { &mut *self.w }
    }

    /// Set `set`'s model lost `key`, which a call erased.
    fn erased(&mut self, set: usize, key: u64) {
        assert!(
            self.world().sets[set].rows.remove(&key).is_some(),
            "erased a key not present"
        );
        if set == self.which[self.lead] {
            self.lead_erased = true;
            if let Some(order) = self.order.as_mut() {
                let p = order.iter().position(|&k| k == key).unwrap();
                order.swap_remove(p);
            }
        }
    }

    /// What a change of `set` that removed `removed` (and made `other`
    /// changes) does to the walk, given `g`.
    fn effect_on(&mut self, set: usize, g: u64, removed: &[u64], other: bool) -> Effect {
        if set == self.which[self.lead] && other {
            // The lead set's rows are now in an order the model does not
            // follow.
            self.order = None;
        }
        if self.which.contains(&set) {
            Effect::of(&g, removed, other)
        } else {
            Effect::Same
        }
    }
}

/// A walk of set `set` inside a walk.
struct SpNest {
    w: *mut World,
    set: usize,
    given: u64,
    /// `slotmap_sparse_each`: erase `given` when visited.
    /// `slotmap_sparse_erase_if`: answer for `given` only, else by `bit`.
    given_only: bool,
    bit: u64,
    seen: BTreeSet<u64>,
}

unsafe extern "C" fn nest_each(key: slotmap_key, _e: *mut c_void, data: *mut c_void) -> i32 {
    // SAFETY: `data` is a live `SpNest`, its world live.
    unsafe {
        let n = &mut *data.cast::<SpNest>();
        let set = &mut (*n.w).sets[n.set];
        assert!(
            set.rows.contains_key(&key),
            "a nested walk visited {key:#x}"
        );
        assert!(n.seen.insert(key), "a nested walk visited {key:#x} twice");
        if n.given_only && key == n.given {
            assert_eq!(slotmap_sparse_erase(&mut set.sp, key), OK);
        }
    }
    0
}

unsafe extern "C" fn nest_pred(key: slotmap_key, _e: *mut c_void, data: *mut c_void) -> i32 {
    // SAFETY: as above.
    unsafe {
        let n = &mut *data.cast::<SpNest>();
        assert!(
            (*n.w).sets[n.set].rows.contains_key(&key),
            "a nested erase_if"
        );
        assert!(
            n.seen.insert(key),
            "a nested erase_if visited {key:#x} twice"
        );
        (if n.given_only {
            key == n.given
        } else {
            key.rotate_right(3) & n.bit != 0
        }) as i32
    }
}

/// The write `sw.write` from a callback given `g` (for a sort: row 0's
/// key); the model follows it. Returns what it did to the walk's sets.
///
/// # Safety
/// `sw`'s pointers are live; called from a walk's callback.
unsafe fn sp_write(sw: &mut SpWalk, g: u64) -> Effect {
    let x = sw.target;
    let failed_before = failing::failures();
    // SAFETY (all): the caller's guarantee; each reference lives for one
    // call.
    unsafe {
        let w = &mut *sw.w;
        let sp: *mut slotmap_sparse_s = &mut w.sets[x].sp;
        let owner: *const slotmap_s = &w.owner;
        let keys: Vec<u64> = w.sets[x].rows.keys().copied().collect();
        match sw.write % SP_WRITES {
            0 => Effect::Same,
            1 | 4 => {
                let k = if sw.write % SP_WRITES == 1 { g } else { sw.key };
                let rc = slotmap_sparse_erase(sp, k);
                if keys.contains(&k) {
                    assert_eq!(rc, OK, "erase {k:#x}");
                    sw.erased(x, k);
                    sw.effect_on(x, g, &[k], false)
                } else {
                    assert_eq!(rc, NOT_FOUND, "erase {k:#x}");
                    Effect::Same
                }
            }
            2 | 3 => {
                let k = if sw.write % SP_WRITES == 2 { g } else { sw.key };
                *sw.tag = (*sw.tag).wrapping_add(1);
                let tag = *sw.tag;
                let bytes: Vec<u8> = (0..w.sets[x].row)
                    .map(|i| (tag as usize * 131 + i) as u8)
                    .collect();
                let row = (!tag.is_multiple_of(7)).then_some(bytes.as_slice());
                let by = if sw.with_owner { owner } else { null() };
                let rc = slotmap_sparse_set(sp, by, k, row.map_or(null(), |r| r.as_ptr().cast()));
                let want = if k == 0 {
                    INVALID
                } else if sw.with_owner && slotmap_contains(owner, k) == 0 {
                    NOT_FOUND
                } else {
                    OK
                };
                if failing::failed(rc, failed_before) {
                    return Effect::Same;
                }
                assert_eq!(rc, want, "set {k:#x}");
                if rc != OK {
                    return Effect::Same;
                }
                let present = keys.contains(&k);
                // Another generation of the slot goes with a new key.
                let replaced: Vec<u64> = keys
                    .iter()
                    .copied()
                    .filter(|&o| o as u32 == k as u32 && o != k)
                    .collect();
                for &o in &replaced {
                    sw.erased(x, o);
                }
                (*sw.w).sets[x].model_set(k, row);
                sw.rewritten |= present && x == sw.which[sw.lead];
                sw.effect_on(x, g, &replaced, !present)
            }
            5 | 6 => {
                if sw.write % SP_WRITES == 5 {
                    assert_eq!(slotmap_sparse_clear(sp), OK);
                } else {
                    slotmap_sparse_free(sp);
                }
                for &k in &keys {
                    sw.erased(x, k);
                }
                sw.effect_on(x, g, &keys, false)
            }
            7 => {
                let n = if sw.pick & 1 != 0 { 65536 } else { 0 };
                let allocations = failing::allocations();
                let rc = slotmap_sparse_reserve(sp, n);
                if failing::failed(rc, failed_before) {
                    return Effect::Same;
                }
                assert_eq!(rc, OK);
                // A set that holds rows holds memory: an allocation
                // replaces it.
                let moved = !keys.is_empty() && failing::allocations() != allocations;
                sw.effect_on(x, g, &[], moved)
            }
            8 => {
                let rc = slotmap_sparse_sort(sp, Some(less_first), null_mut());
                if w.sets[x].sizes.is_empty() {
                    assert_eq!(rc, INVALID, "sort of a membership set");
                    return Effect::Same;
                }
                if failing::failed(rc, failed_before) {
                    return Effect::Same;
                }
                assert_eq!(rc, OK);
                if keys.len() < 2 {
                    return Effect::Same;
                }
                sw.sorted |= x == sw.which[sw.lead];
                sw.effect_on(x, g, &[], true)
            }
            9 => {
                assert_eq!(slotmap_sparse_prune(sp, owner), OK);
                let dead: Vec<u64> = keys
                    .iter()
                    .copied()
                    .filter(|&k| slotmap_contains(owner, k) == 0)
                    .collect();
                for &k in &dead {
                    sw.erased(x, k);
                }
                // Prune's row order is not the contract's.
                let e = sw.effect_on(x, g, &dead, false);
                if !dead.is_empty() && x == sw.which[sw.lead] {
                    sw.order = None;
                }
                e
            }
            10 | 11 => {
                let each = sw.write % SP_WRITES == 10;
                let mut n = SpNest {
                    w: sw.w,
                    set: x,
                    given: g,
                    given_only: sw.pick & 2 != 0,
                    bit: sw.bit,
                    seen: BTreeSet::new(),
                };
                let data = (&mut n as *mut SpNest).cast();
                let rc = if each {
                    slotmap_sparse_each(sp, Some(nest_each), data)
                } else {
                    slotmap_sparse_erase_if(sp, Some(nest_pred), data)
                };
                assert_eq!(rc, OK, "a nested walk");
                assert_eq!(n.seen.len(), keys.len(), "a nested walk's visits");
                let removed: Vec<u64> = keys
                    .iter()
                    .copied()
                    .filter(|&k| {
                        if n.given_only {
                            k == g
                        } else {
                            !each && k.rotate_right(3) & n.bit != 0
                        }
                    })
                    .collect();
                for &k in &removed {
                    sw.erased(x, k);
                }
                if !each && !removed.is_empty() && x == sw.which[sw.lead] {
                    // erase_if's row order is not the contract's.
                    sw.order = None;
                }
                sw.effect_on(x, g, &removed, false)
            }
            12 => {
                // The owner is not walked: an entity dies.
                if !w.live.is_empty() {
                    let k = w.live.swap_remove(sw.pick % w.live.len());
                    assert_eq!(slotmap_erase(&mut w.owner, k), OK);
                    w.dead.push(k);
                    if !sw.owner.is_null() && !sw.seen.contains(&k) {
                        sw.skipped.insert(k);
                    }
                }
                Effect::Same
            }
            13 => {
                // An entity is born.
                *sw.tag = (*sw.tag).wrapping_add(1);
                let mut k = 0;
                let rc = slotmap_insert(&mut w.owner, (sw.tag as *const u32).cast(), &mut k);
                if !failing::failed(rc, failed_before) {
                    assert_eq!(rc, OK);
                    assert!(!w.dead.contains(&k));
                    w.live.push(k);
                }
                Effect::Same
            }
            14 => {
                // Only on a set that holds no memory.
                let set = &mut w.sets[sw.which[sw.lead]].sp;
                assert_eq!(slotmap_sparse_set_allocator(set, &failing::own()), INVALID);
                Effect::Same
            }
            _ => {
                // A new column-0 element through the pointer `get` gives.
                let mut e: *mut c_void = null_mut();
                if slotmap_sparse_get(sp, g, &mut e) != OK || e.is_null() {
                    return Effect::Same;
                }
                *sw.tag = (*sw.tag).wrapping_add(1);
                let size = w.sets[x].sizes[0] as usize;
                let bytes: Vec<u8> = (0..size).map(|i| (*sw.tag as usize + i) as u8).collect();
                core::ptr::copy_nonoverlapping(bytes.as_ptr(), e.cast::<u8>(), size);
                w.sets[x].rows.get_mut(&g).unwrap()[..size].copy_from_slice(&bytes);
                sw.rewritten |= x == sw.which[sw.lead];
                Effect::Same
            }
        }
    }
}

/// After visit `i`'s checks: the write, or the coin's erase of the given
/// key; what it did to the walk.
///
/// # Safety
/// As for `sp_write`.
unsafe fn sp_visit(sw: &mut SpWalk, i: usize, g: u64) -> Effect {
    if i == sw.at {
        // SAFETY: the caller's guarantee.
        let e = unsafe { sp_write(sw, g) };
        sw.effect = Some(e);
        e
    } else if sw.coin.is_some_and(|c| g >> c & 1 == 1) {
        let set = sw.which[sw.coin_from];
        // SAFETY: the caller's guarantee.
        let rc = unsafe { slotmap_sparse_erase(sw.sets[sw.coin_from], g) };
        assert_eq!(rc, OK, "erase the given key {g:#x}");
        sw.erased(set, g);
        Effect::Removed
    } else {
        Effect::Same
    }
}

/// The callback of `slotmap_sparse_each` and `slotmap_sparse_erase_if`.
unsafe extern "C" fn sp_walk_cb(key: slotmap_key, element: *mut c_void, data: *mut c_void) -> i32 {
    // SAFETY: `data` is a live `SpWalk`, its world live.
    unsafe {
        let sw = &mut *data.cast::<SpWalk>();
        let s = sw.which[0];
        assert!(!sw.seen.contains(&key), "a walk visited {key:#x} twice");
        sw.seen.push(key);
        assert!(
            sw.world().sets[s].rows.contains_key(&key),
            "a walk visited {key:#x}, not in the set"
        );
        let mut e = null_mut();
        assert_eq!(slotmap_sparse_get(sw.sets[0], key, &mut e), OK);
        assert_eq!(e, element, "a walk gave another element");
        let erase_if = sw.kind == WalkKind::SparseEraseIf;
        let i = sw.visits;
        sw.visits += 1;
        let answer = if i == sw.at {
            sw.ret
        } else {
            (erase_if && key.rotate_right(3) & sw.bit != 0) as i32
        };
        let effect = sp_visit(sw, i, key);
        if erase_if && effect == Effect::Same && answer != 0 {
            // The walk erases it once the predicate returns; erase_if's
            // order is not the contract's.
            sw.erased(s, key);
            sw.order = None;
        }
        answer
    }
}

/// The callback of `slotmap_join`.
unsafe extern "C" fn sp_join_cb(
    key: slotmap_key,
    rows: *const u32,
    elements: *const *mut c_void,
    data: *mut c_void,
) -> i32 {
    // SAFETY: `data` is a live `SpWalk`; the arrays have an entry per set
    // (and one more with an owner).
    unsafe {
        let sw = &mut *data.cast::<SpWalk>();
        assert!(!sw.seen.contains(&key), "a join visited {key:#x} twice");
        sw.seen.push(key);
        for (i, &s) in sw.which.iter().enumerate() {
            assert!(
                (*sw.w).sets[s].rows.contains_key(&key),
                "a join visited {key:#x}, not in set {s}"
            );
            let (mut r, mut e) = (u32::MAX, null_mut());
            assert_eq!(slotmap_sparse_row(sw.sets[i], key, &mut r), OK);
            assert_eq!(slotmap_sparse_get(sw.sets[i], key, &mut e), OK);
            assert_eq!(*rows.add(i), r);
            assert_eq!(*elements.add(i), e);
        }
        if !sw.owner.is_null() {
            let count = sw.which.len();
            let (mut r, mut e) = (u32::MAX, null_mut());
            assert_eq!(slotmap_row(sw.owner, key, &mut r), OK);
            assert_eq!(slotmap_get(sw.owner, key, &mut e), OK);
            assert_eq!(*rows.add(count), r);
            assert_eq!(*elements.add(count), e);
        }
        let i = sw.visits;
        sw.visits += 1;
        sp_visit(sw, i, key);
        if i == sw.at {
            sw.ret
        } else {
            0
        }
    }
}

/// The comparator of `slotmap_sparse_sort`.
unsafe extern "C" fn sp_less(a: *const c_void, b: *const c_void, data: *mut c_void) -> i32 {
    // SAFETY: `data` is a live `SpWalk`; `a` and `b` are column-0
    // elements until the callback's own write.
    unsafe {
        let sw = &mut *data.cast::<SpWalk>();
        let answer = (*a.cast::<u8>() < *b.cast::<u8>()) as i32;
        let i = sw.visits;
        sw.visits += 1;
        if i == sw.at {
            let g = slotmap_sparse_key_at(sw.sets[0], 0);
            sw.effect = Some(sp_write(sw, g));
        }
        answer
    }
}

/// The set's dense order.
fn dense_order(sp: &slotmap_sparse_s) -> Vec<u64> {
    // SAFETY: an initialized set.
    unsafe {
        (0..slotmap_sparse_length(sp))
            .map(|r| slotmap_sparse_key_at(sp, r))
            .collect()
    }
}

/// Whether column 0's first bytes ascend row by row.
fn ascending(sp: &slotmap_sparse_s, size: usize) -> bool {
    // SAFETY: an initialized set with a column 0 of `size` bytes.
    unsafe {
        let n = slotmap_sparse_length(sp) as usize;
        let c0 = slotmap_sparse_column(sp, 0).cast::<u8>();
        (1..n).all(|r| *c0.add((r - 1) * size) <= *c0.add(r * size))
    }
}

/// A walk with a write from its callback (and perhaps left by `longjmp`):
/// `join` false walks set `s` (`each`, `erase_if` or `sort`), true joins
/// sets chosen by the input. Checked against SPEC §3c: its code, its
/// visits, the rows' order, and the sets and the model equal afterwards.
/// `SLATE_ERROR_ALLOC` when a sort could not allocate, else `SLATE_OK`.
///
/// # Safety
/// The world's structures are initialized.
unsafe fn walk_with_write(
    input: &mut Input,
    w: &mut World,
    s: usize,
    join: bool,
    tag: &mut u32,
) -> i32 {
    let mode = input.byte();
    let (kind, count, join_owner) = if join {
        (
            WalkKind::Join,
            1 + input.byte() as usize % 4,
            input.byte().is_multiple_of(2),
        )
    } else {
        let kinds = [
            WalkKind::SparseEach,
            WalkKind::SparseEraseIf,
            WalkKind::SparseSort,
        ];
        (kinds[mode as usize % 3], 1, false)
    };
    let sort = kind == WalkKind::SparseSort;
    let mut which = vec![s];
    if join {
        which = (0..count).map(|_| input.byte() as usize % 2).collect();
    }
    let base: *mut Set = w.sets.as_mut_ptr();
    let mut sets = [null_mut::<slotmap_sparse_s>(); 4];
    for i in 0..count {
        // SAFETY: `which[i]` is 0 or 1.
        sets[i] = unsafe { &raw mut (*base.add(which[i])).sp };
    }
    let owner: *const slotmap_s = if join_owner { &w.owner } else { null() };
    // The set the walk goes through: for a join, the one with the fewest
    // rows (the first on a tie).
    let lead = (0..count)
        .min_by_key(|&i| w.sets[which[i]].rows.len())
        .unwrap();
    let before = dense_order(&w.sets[which[lead]].sp);
    // What the walk visits if nothing changes.
    let want: Vec<u64> = before
        .iter()
        .copied()
        .filter(|&k| {
            which.iter().all(|&i| w.sets[i].rows.contains_key(&k))
                // SAFETY: an initialized owner.
                && (owner.is_null() || unsafe { slotmap_contains(owner, k) } != 0)
        })
        .collect();
    let write = input.byte();
    let ret = [0, 0, 1, -9, 77][input.byte() as usize % 5];
    // A sort calls its comparator more often than it has rows.
    let n = want.len() * if sort { 4 } else { 1 } + 1;
    let at = input.byte() as usize % n;
    let jump = (mode & 4 != 0).then(|| (input.byte() as usize % n) as u32);
    let target = match input.byte() % 3 {
        0 => 0,
        1 => 1,
        _ => which[lead],
    };
    let key = w.pick_key(input, target);
    let with_owner = !input.byte().is_multiple_of(3);
    let bit = 1u64 << (input.byte() % 64);
    let coin = (mode & 8 != 0 && !sort).then(|| input.byte() as u32 % 64);
    let coin_from = input.byte() as usize % count;
    let pick = input.byte() as usize;
    let mut sw = SpWalk {
        w,
        kind,
        which,
        sets,
        owner,
        lead,
        tag,
        at,
        write,
        target,
        key,
        with_owner,
        bit,
        coin,
        coin_from,
        ret: if matches!(kind, WalkKind::SparseEraseIf | WalkKind::SparseSort) {
            (ret != 0) as i32
        } else {
            ret
        },
        pick,
        seen: Vec::new(),
        visits: 0,
        effect: None,
        skipped: BTreeSet::new(),
        order: Some(before.clone()),
        lead_erased: false,
        sorted: false,
        rewritten: false,
    };
    let walk = Walk {
        owner,
        sets: sets.as_ptr(),
        count: count as u32,
        rows: Some(sp_walk_cb),
        less: Some(sp_less),
        join: Some(sp_join_cb),
        ..Walk::new(kind, sets[0].cast())
    };
    // SAFETY: the caller's guarantee; `sw` outlives the walk.
    let walked = unsafe { walk.run((&mut sw as *mut SpWalk).cast(), jump) };
    // Whether the write stops the walk, and with what: a sort stops at
    // any change.
    let stop = match sw.effect {
        Some(_) if matches!(kind, WalkKind::SparseEach | WalkKind::Join) && sw.ret != 0 => {
            Some(sw.ret)
        }
        Some(Effect::Changed) => Some(INVALID),
        Some(Effect::Removed) if sort => Some(INVALID),
        _ => None,
    };
    let desc = format!(
        "{kind:?} of {:?} write {} to {target} at {at} (effect {:?}, ret {}), jump {jump:?}",
        sw.which,
        write % SP_WRITES,
        sw.effect,
        sw.ret
    );
    let lead_set = sw.which[lead];
    // SAFETY: a live world; no walk runs.
    let w = unsafe { &mut *sw.w };
    let sizes = w.sets[lead_set].sizes;
    match walked {
        Walked::Returned(INVALID) if sort && sizes.is_empty() => {
            assert_eq!(sw.visits, 0, "{desc}: a membership set sorted");
        }
        Walked::Returned(ALLOC) if sort && sw.visits == 0 => {
            assert_eq!(dense_order(&w.sets[lead_set].sp), before, "{desc}");
            return ALLOC;
        }
        Walked::Returned(rc) => {
            assert_eq!(rc, stop.unwrap_or(OK), "{desc}: the walk's code");
            if stop.is_some() {
                assert_eq!(sw.visits, at + 1, "{desc}: visits after a stop");
            } else if !sort {
                let expected: Vec<u64> = want
                    .iter()
                    .copied()
                    .filter(|k| !sw.skipped.contains(k))
                    .collect();
                if sw.lead_erased {
                    let mut seen = sw.seen.clone();
                    seen.sort_unstable();
                    let mut expected = expected;
                    expected.sort_unstable();
                    assert_eq!(seen, expected, "{desc}: not every key visited once");
                } else {
                    assert_eq!(sw.seen, expected, "{desc}: visits in row order");
                }
            }
        }
        Walked::Jumped(j) => {
            assert!(stop.is_none(), "{desc}: the walk went on after a stop");
            assert_eq!(sw.visits, j as usize, "{desc}: visits before the jump");
        }
    }
    let rows = dense_order(&w.sets[lead_set].sp);
    match walked {
        // A sort that ran to its end orders the rows, unless a write
        // replaced elements while it compared them.
        Walked::Returned(OK) if sort => {
            if !sw.rewritten && before.len() >= 2 {
                assert!(ascending(&w.sets[lead_set].sp, sizes[0] as usize), "{desc}");
            }
        }
        // Any other walk, and a sort that stopped or was left, keeps the
        // order the writes left.
        _ => {
            if let Some(order) = &sw.order {
                assert_eq!(&rows, order, "{desc}: the rows' order");
            } else if sw.sorted && !sw.rewritten {
                assert!(ascending(&w.sets[lead_set].sp, sizes[0] as usize), "{desc}");
            }
        }
    }
    w.sets[0].verify();
    w.sets[1].verify();
    OK
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input::new(data);
    failing::install();
    let live_blocks = failing::LIVE.load(Ordering::Relaxed);
    let shape = SHAPES[input.byte() as usize % SHAPES.len()];
    let second: &'static [u32] = if input.byte().is_multiple_of(2) {
        &[]
    } else {
        &[4]
    };
    let mut w = World {
        owner: slotmap_s([0; 24]),
        live: Vec::new(),
        dead: Vec::new(),
        sets: [Set::new(shape), Set::new(second)],
    };
    let mut copy = slotmap_sparse_s([0; 24]);
    // SAFETY (every call below): the structures are initialized here.
    unsafe {
        assert_eq!(slotmap(&mut w.owner, 4), OK);
        assert_eq!(slotmap_sparse(&mut copy, 0), OK);
        // Inputs of odd length give the sets the failing allocator as their
        // own, which checks the size of every release.
        if data.len() % 2 == 1 {
            for s in &mut w.sets {
                assert_eq!(slotmap_sparse_set_allocator(&mut s.sp, &failing::own()), OK);
            }
        }
    }
    let mut tag = 0u32;
    for step in 0.. {
        if input.is_empty() || step > 3000 {
            break;
        }
        let op = input.byte();
        let s = (op / 32 % 2) as usize;
        let mut failed_before = failing::failures();
        let rc = unsafe {
            match op % 16 {
                0..=3 => {
                    let key = w.pick_key(&mut input, s);
                    let with_owner = !input.byte().is_multiple_of(3);
                    tag = tag.wrapping_add(1);
                    let set = &mut w.sets[s];
                    let bytes: Vec<u8> = (0..set.row)
                        .map(|i| (tag as usize * 131 + i) as u8)
                        .collect();
                    let row = (!tag.is_multiple_of(7)).then_some(bytes.as_slice());
                    let owner: *const slotmap_s = if with_owner { &w.owner } else { null() };
                    let rc = slotmap_sparse_set(
                        &mut set.sp,
                        owner,
                        key,
                        row.map_or(null(), |r| r.as_ptr().cast()),
                    );
                    let want = if key == 0 {
                        INVALID
                    } else if with_owner && slotmap_contains(&w.owner, key) == 0 {
                        NOT_FOUND
                    } else {
                        OK
                    };
                    if rc != ALLOC {
                        assert_eq!(rc, want, "set {key:#x}");
                    }
                    if rc == OK {
                        set.model_set(key, row);
                    }
                    set.check_key(key);
                    if rc == INVALID {
                        OK
                    } else {
                        rc
                    }
                }
                4 | 5 => {
                    let key = w.pick_key(&mut input, s);
                    let set = &mut w.sets[s];
                    let rc = slotmap_sparse_erase(&mut set.sp, key);
                    let present = set.rows.remove(&key).is_some();
                    assert_eq!(rc, if present { OK } else { NOT_FOUND });
                    set.check_key(key);
                    rc
                }
                6 => {
                    let keys: Vec<u64> = (0..input.byte() % 40)
                        .map(|_| w.pick_key(&mut input, s))
                        .collect();
                    let set = &w.sets[s];
                    let mut found = vec![7u8; keys.len()];
                    let mut elements = vec![0x5EED as *mut c_void; keys.len()];
                    assert_eq!(
                        slotmap_sparse_get_many(
                            &set.sp,
                            keys.as_ptr(),
                            keys.len(),
                            elements.as_mut_ptr(),
                            found.as_mut_ptr()
                        ),
                        OK
                    );
                    for (i, &k) in keys.iter().enumerate() {
                        set.check_key(k);
                        let mut e = 0x5EED as *mut c_void;
                        let rc = slotmap_sparse_get(&set.sp, k, &mut e);
                        assert_eq!(found[i], set.rows.contains_key(&k) as u8);
                        assert_eq!(found[i] == 1, rc == OK);
                        assert_eq!(elements[i], e);
                    }
                    OK
                }
                7 => {
                    let mut bit = 1u64 << (input.byte() % 64);
                    let set = &mut w.sets[s];
                    let rc = slotmap_sparse_erase_if(
                        &mut set.sp,
                        Some(bit_of_key),
                        (&mut bit as *mut u64).cast(),
                    );
                    if rc == OK {
                        set.rows.retain(|&k, _| k.rotate_right(3) & bit == 0);
                    }
                    rc
                }
                8 => {
                    let set = &mut w.sets[s];
                    assert_eq!(slotmap_sparse_prune(&mut set.sp, &w.owner), OK);
                    set.rows.retain(|&k, _| slotmap_contains(&w.owner, k) != 0);
                    OK
                }
                9 => {
                    let set = &mut w.sets[s];
                    let rc = slotmap_sparse_sort(&mut set.sp, Some(less_first), null_mut());
                    if set.sizes.is_empty() {
                        assert_eq!(rc, INVALID);
                        OK
                    } else {
                        if rc == OK {
                            let n = slotmap_sparse_length(&set.sp);
                            let c0 = slotmap_sparse_column(&set.sp, 0).cast::<u8>();
                            let size = set.sizes[0] as usize;
                            for r in 1..n as usize {
                                assert!(*c0.add((r - 1) * size) <= *c0.add(r * size));
                            }
                        }
                        rc
                    }
                }
                10 => {
                    let rc = slotmap_sparse_reserve(&mut w.sets[s].sp, input.u32() % 4096);
                    assert!(rc == OK || rc == ALLOC);
                    rc
                }
                11 => match input.byte() % 3 {
                    0 => {
                        assert_eq!(slotmap_sparse_clear(&mut w.sets[s].sp), OK);
                        for k in w.sets[s].rows.keys() {
                            assert_eq!(slotmap_sparse_contains(&w.sets[s].sp, *k), 0);
                        }
                        w.sets[s].rows.clear();
                        OK
                    }
                    1 => {
                        slotmap_sparse_free(&mut w.sets[s].sp);
                        w.sets[s].rows.clear();
                        OK
                    }
                    _ => {
                        // Clone, then make the clone the set.
                        slotmap_sparse_free(&mut copy);
                        let rc = slotmap_sparse_clone(&mut copy, &w.sets[s].sp);
                        if rc == OK {
                            slotmap_sparse_free(&mut w.sets[s].sp);
                            core::mem::swap(&mut w.sets[s].sp, &mut copy);
                        } else {
                            assert_eq!(slotmap_sparse_length(&copy), 0);
                        }
                        rc
                    }
                },
                // A walk of one set whose callback writes, and a join of
                // the sets whose callback writes.
                12 | 13 => {
                    let rc = walk_with_write(&mut input, &mut w, s, op % 16 == 13, &mut tag);
                    // Injected failures that met a write in the walk
                    // were checked there.
                    if rc == OK {
                        failed_before = failing::failures();
                    }
                    rc
                }
                14 => {
                    if !input.byte().is_multiple_of(3) || w.live.is_empty() {
                        tag = tag.wrapping_add(1);
                        let mut key = 0;
                        let rc =
                            slotmap_insert(&mut w.owner, (&tag as *const u32).cast(), &mut key);
                        if rc == OK {
                            assert!(!w.dead.contains(&key));
                            w.live.push(key);
                        }
                        rc
                    } else {
                        let i = input.byte() as usize % w.live.len();
                        let key = w.live.swap_remove(i);
                        assert_eq!(slotmap_erase(&mut w.owner, key), OK);
                        w.dead.push(key);
                        if w.dead.len() > 256 {
                            w.dead.remove(0);
                        }
                        OK
                    }
                }
                _ => {
                    failing::arm(input.byte() as u64 % 6);
                    OK
                }
            }
        };
        failing::check_surfaced(op, rc, failed_before);
        if rc == ALLOC {
            // Nothing changed: the set is as the model, which only follows
            // calls that succeeded.
            w.sets[s].verify();
        } else {
            assert!(rc == OK || rc == NOT_FOUND, "op {op}: rc {rc}");
        }
        if step % 16 == 15 {
            w.sets[0].verify();
            w.sets[1].verify();
        }
    }
    failing::FAIL_IN.store(0, Ordering::Relaxed);
    for s in &mut w.sets {
        s.verify();
        // SAFETY: an initialized set, freed (twice) and still usable.
        unsafe {
            slotmap_sparse_free(&mut s.sp);
            slotmap_sparse_free(&mut s.sp);
            assert_eq!(slotmap_sparse_length(&s.sp), 0);
        }
        for &k in s.rows.keys() {
            // SAFETY: as above.
            assert_eq!(unsafe { slotmap_sparse_contains(&s.sp, k) }, 0);
        }
    }
    // SAFETY: initialized structures, not used again.
    unsafe {
        slotmap_sparse_free(&mut copy);
        slotmap_free(&mut w.owner);
    }
    assert_eq!(
        failing::LIVE.load(Ordering::Relaxed),
        live_blocks,
        "memory leaked"
    );
});
