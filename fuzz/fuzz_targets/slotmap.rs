//! The slotmap against a model: inserts, erases, erase_if, sort, clear,
//! clone, free, limit and reserve on one- and several-column slotmaps,
//! with allocations that fail on demand; walks (`slotmap_each`,
//! `slotmap_erase_if`, `slotmap_sort`'s comparator) whose callback writes
//! to the walked slotmap at a chosen visit (erases its given key or
//! another, inserts, writes an element, clears, frees, reserves, sorts,
//! walks it again, writes another slotmap) or erases its given key at many
//! visits, some left by `longjmp` at a chosen visit, checked against SPEC
//! §3c. Every key ever issued is kept:
//! live keys must find their row, and a key once erased (or cleared, or
//! freed) must never validate again, however its slot is reused.
#![no_main]

use core::ffi::c_void;
use core::sync::atomic::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use libfuzzer_sys::fuzz_target;

#[path = "ffi.rs"]
mod ffi;
use ffi::*;

/// Column sets: element sizes the fast paths special-case (4, 8, 12, 16)
/// and others, one column or several.
const COLUMNS: [&[u32]; 6] = [&[4], &[8], &[12], &[16], &[3, 8, 1], &[4, 16, 24, 7]];

struct State {
    sm: slotmap_s,
    sizes: &'static [u32],
    row: usize,
    live: BTreeMap<u64, u32>,
    stale: BTreeSet<u64>,
}

impl State {
    fn row_bytes(&self, tag: u32) -> Vec<u8> {
        (0..self.row)
            .map(|i| (tag as usize).wrapping_mul(131).wrapping_add(i) as u8)
            .collect()
    }

    /// The key's column-0 element: its first 4 bytes (or fewer) are the tag.
    fn tag_of(&self, key: u64) -> Option<u32> {
        let mut element: *mut c_void = core::ptr::null_mut();
        // SAFETY: an initialized slotmap.
        let rc = unsafe { slotmap_get(&self.sm, key, &mut element) };
        if rc != OK {
            assert_eq!(rc, NOT_FOUND);
            return None;
        }
        let n = self.sizes[0].min(4) as usize;
        let mut b = [0u8; 4];
        // SAFETY: column 0 has `sizes[0]` bytes at `element`.
        unsafe { core::ptr::copy_nonoverlapping(element.cast::<u8>(), b.as_mut_ptr(), n) };
        Some(u32::from_le_bytes(b))
    }

    fn expected_tag(&self, tag: u32) -> u32 {
        let bytes = self.row_bytes(tag);
        let n = self.sizes[0].min(4) as usize;
        let mut b = [0u8; 4];
        b[..n].copy_from_slice(&bytes[..n]);
        u32::from_le_bytes(b)
    }

    fn verify(&self) {
        // SAFETY: an initialized slotmap.
        assert_eq!(unsafe { slotmap_length(&self.sm) }, self.live.len() as u32);
        for (&k, &tag) in &self.live {
            assert_eq!(
                self.tag_of(k),
                Some(self.expected_tag(tag)),
                "live key {k:#x}"
            );
        }
        for &k in &self.stale {
            // SAFETY: as above.
            assert_eq!(
                unsafe { slotmap_contains(&self.sm, k) },
                0,
                "stale key {k:#x} validates"
            );
        }
        // Dense rows: each row's key names it.
        for r in 0..self.live.len() as u32 {
            // SAFETY: as above.
            let k = unsafe { slotmap_key_at(&self.sm, r) };
            let mut row = u32::MAX;
            assert_eq!(unsafe { slotmap_row(&self.sm, k, &mut row) }, OK);
            assert_eq!(row, r);
        }
    }
}

unsafe extern "C" fn odd_tag(_key: slotmap_key, row: *mut c_void, data: *mut c_void) -> i32 {
    // SAFETY: column 0 has at least one byte; `data` is the bit.
    unsafe { (*row.cast::<u8>() & *data.cast::<u8>() != 0) as i32 }
}

unsafe extern "C" fn less(a: *const c_void, b: *const c_void, _data: *mut c_void) -> i32 {
    // SAFETY: column 0 has at least one byte.
    unsafe { (*a.cast::<u8>() < *b.cast::<u8>()) as i32 }
}

/// Operation bytes from this one on are walks with a write
/// (`walk_with_write`); the others are `op % 12`.
const WALK_OPS: u8 = 208;

/// Writes a walk's callback makes to the walked slotmap, at one visit.
const SLOT_WRITES: u8 = 14;

/// A walk of the slotmap (`slotmap_each`, `slotmap_erase_if`, or
/// `slotmap_sort`'s comparator calls) whose callback, at visit `at`, makes
/// the write `write`, and at other visits erases its given key when
/// `coin` says so. The model follows every call as it is made.
struct SlotWalk {
    s: *mut State,
    copy: *mut slotmap_s,
    tag: *mut u32,
    kind: WalkKind,
    at: usize,
    write: u8,
    /// Which live key (by position) a write picks.
    pick: usize,
    /// `slotmap_erase_if`'s answers at other visits (`odd_tag`), and a
    /// nested one's.
    bit: u8,
    /// Erase the given key at other visits when its bit `coin` is set.
    coin: Option<u32>,
    /// The answer at visit `at`.
    ret: i32,
    big: bool,
    start: BTreeSet<u64>,
    seen: BTreeSet<u64>,
    visits: usize,
    effect: Option<Effect>,
    /// The dense order the writes leave (swap-and-pop erases, appended
    /// inserts): unknown after a sort or an erase_if that erased.
    order: Option<Vec<u64>>,
    /// A write sorted the slotmap.
    sorted: bool,
    /// A write replaced an element (a sort may then end unordered).
    rewritten: bool,
}

impl SlotWalk {
    fn erased(&mut self, key: u64) {
        // SAFETY: a live state.
        let s = unsafe { &mut *self.s };
        assert!(s.live.remove(&key).is_some(), "erased a key not live");
        s.stale.insert(key);
        if let Some(order) = self.order.as_mut() {
            let p = order.iter().position(|&k| k == key).unwrap();
            order.swap_remove(p);
        }
    }
}

/// The slotmap's dense order.
fn dense_order(sm: &slotmap_s) -> Vec<u64> {
    // SAFETY: an initialized slotmap.
    unsafe {
        (0..slotmap_length(sm))
            .map(|r| slotmap_key_at(sm, r))
            .collect()
    }
}

/// Whether column 0's first bytes ascend row by row.
fn ascending(sm: &slotmap_s) -> bool {
    // SAFETY: an initialized slotmap; rows below its length.
    unsafe {
        let n = slotmap_length(sm);
        let firsts: Vec<u8> = (0..n)
            .map(|r| {
                let mut e: *mut c_void = core::ptr::null_mut();
                assert_eq!(slotmap_get(sm, slotmap_key_at(sm, r), &mut e), OK);
                *e.cast::<u8>()
            })
            .collect();
        firsts.windows(2).all(|p| p[0] <= p[1])
    }
}

/// A walk inside a walk: what it is given and what its callback does.
struct SlotNest {
    s: *mut State,
    given: u64,
    /// `slotmap_each`: erase `given` when visited. `slotmap_erase_if`:
    /// answer for `given` only, else by `bit`.
    given_only: bool,
    bit: u8,
    seen: BTreeSet<u64>,
}

unsafe extern "C" fn nest_cb(key: slotmap_key, _row: *mut c_void, data: *mut c_void) -> i32 {
    // SAFETY: `data` is a live `SlotNest`, its state live.
    unsafe {
        let n = &mut *data.cast::<SlotNest>();
        let s = &mut *n.s;
        assert!(s.live.contains_key(&key), "a nested walk visited {key:#x}");
        assert!(n.seen.insert(key), "a nested walk visited {key:#x} twice");
        if n.given_only && key == n.given {
            assert_eq!(slotmap_erase(&mut s.sm, key), OK);
        }
    }
    0
}

unsafe extern "C" fn nest_pred(key: slotmap_key, row: *mut c_void, data: *mut c_void) -> i32 {
    // SAFETY: as above.
    unsafe {
        let n = &mut *data.cast::<SlotNest>();
        assert!((*n.s).live.contains_key(&key), "a nested erase_if");
        assert!(
            n.seen.insert(key),
            "a nested erase_if visited {key:#x} twice"
        );
        (if n.given_only {
            key == n.given
        } else {
            *row.cast::<u8>() & n.bit != 0
        }) as i32
    }
}

/// The write `w.write` on the walked slotmap from a callback given `g`
/// (for a sort: row 0's key); the model follows it. Returns what it did
/// to the slotmap.
///
/// # Safety
/// `w`'s pointers are live; called from a callback of a walk of the
/// slotmap.
unsafe fn slot_write(w: &mut SlotWalk, g: u64) -> Effect {
    // SAFETY (all): the caller's guarantee; each reference lives for one
    // call.
    unsafe {
        let sm: *mut slotmap_s = &mut (*w.s).sm;
        let failed_before = failing::failures();
        let live: Vec<u64> = (*w.s).live.keys().copied().collect();
        let picked = live[w.pick % live.len()];
        match w.write % SLOT_WRITES {
            0 => Effect::Same,
            1 | 2 => {
                let k = if w.write % SLOT_WRITES == 1 {
                    g
                } else {
                    picked
                };
                assert_eq!(slotmap_erase(sm, k), OK, "erase {k:#x}");
                w.erased(k);
                Effect::of(&g, &[k], false)
            }
            3 => {
                // A stale key, and another generation of the given slot.
                let stale = (*w.s).stale.iter().next().copied().unwrap_or(0);
                assert_eq!(slotmap_erase(sm, stale), NOT_FOUND);
                assert_eq!(slotmap_erase(sm, g.wrapping_add(1 << 32)), NOT_FOUND);
                Effect::Same
            }
            4 => {
                *w.tag += 1;
                let bytes = (*w.s).row_bytes(*w.tag);
                let mut key = 0;
                let rc = slotmap_insert(sm, bytes.as_ptr().cast(), &mut key);
                if failing::failed(rc, failed_before) || rc == FULL {
                    return Effect::Same;
                }
                assert_eq!(rc, OK);
                assert!(!(*w.s).stale.contains(&key), "reissued key {key:#x}");
                (*w.s).live.insert(key, *w.tag);
                if let Some(order) = w.order.as_mut() {
                    order.push(key);
                }
                Effect::Changed
            }
            5 => {
                // A new element through the pointer `slotmap_get` gives:
                // a value replaced.
                let k = if w.pick & 1 == 0 { g } else { picked };
                *w.tag += 1;
                let bytes = (*w.s).row_bytes(*w.tag);
                let mut e: *mut c_void = core::ptr::null_mut();
                assert_eq!(slotmap_get(sm, k, &mut e), OK);
                let size = (*w.s).sizes[0] as usize;
                core::ptr::copy_nonoverlapping(bytes.as_ptr(), e.cast::<u8>(), size);
                (*w.s).live.insert(k, *w.tag);
                w.rewritten = true;
                Effect::Same
            }
            6 | 7 => {
                if w.write % SLOT_WRITES == 6 {
                    assert_eq!(slotmap_clear(sm), OK);
                } else {
                    slotmap_free(sm);
                }
                for &k in &live {
                    w.erased(k);
                }
                Effect::of(&g, &live, false)
            }
            8 => {
                let n = slotmap_length(sm) + if w.big { 65536 } else { 0 };
                let allocations = failing::allocations();
                let rc = slotmap_reserve(sm, n);
                if failing::failed(rc, failed_before) {
                    return Effect::Same;
                }
                assert_eq!(rc, OK);
                // The slotmap holds memory: an allocation replaces some.
                Effect::of(&(), &[], failing::allocations() != allocations)
            }
            9 => {
                let n = slotmap_length(sm);
                let rc = slotmap_sort(sm, Some(less), core::ptr::null_mut());
                if failing::failed(rc, failed_before) {
                    return Effect::Same;
                }
                assert_eq!(rc, OK);
                if n < 2 {
                    return Effect::Same;
                }
                w.order = None;
                w.sorted = true;
                Effect::Changed
            }
            10 => {
                let mut n = SlotNest {
                    s: w.s,
                    given: g,
                    given_only: w.bit & 1 != 0,
                    bit: w.bit,
                    seen: BTreeSet::new(),
                };
                let rc = slotmap_each(sm, Some(nest_cb), (&mut n as *mut SlotNest).cast());
                assert_eq!(rc, OK, "a nested walk");
                assert_eq!(n.seen.len(), live.len(), "a nested walk's visits");
                if n.given_only {
                    w.erased(g);
                    Effect::Removed
                } else {
                    Effect::Same
                }
            }
            11 => {
                let mut n = SlotNest {
                    s: w.s,
                    given: g,
                    given_only: w.bit & 1 != 0,
                    bit: w.bit,
                    seen: BTreeSet::new(),
                };
                let rc = slotmap_erase_if(sm, Some(nest_pred), (&mut n as *mut SlotNest).cast());
                assert_eq!(rc, OK, "a nested erase_if");
                assert_eq!(n.seen.len(), live.len(), "a nested erase_if's visits");
                let removed: Vec<u64> = live
                    .iter()
                    .copied()
                    .filter(|&k| {
                        if n.given_only {
                            k == g
                        } else {
                            let tag = (&(*w.s).live)[&k];
                            (*w.s).row_bytes(tag)[0] & n.bit != 0
                        }
                    })
                    .collect();
                let order = w.order.take();
                for &k in &removed {
                    w.erased(k);
                }
                // erase_if's own order is not the contract's.
                w.order = order.filter(|_| removed.is_empty());
                Effect::of(&g, &removed, false)
            }
            12 => {
                // Only on a slotmap that holds no memory.
                assert_eq!(slotmap_set_allocator(sm, &failing::own()), INVALID);
                Effect::Same
            }
            _ => {
                // Another slotmap: anything goes.
                let mut k = 0;
                let rc = slotmap_insert(w.copy, core::ptr::null(), &mut k);
                if !failing::failed(rc, failed_before) {
                    assert_eq!(rc, OK);
                }
                Effect::Same
            }
        }
    }
}

/// The callback of `slotmap_each` and `slotmap_erase_if`.
unsafe extern "C" fn slot_walk_cb(key: slotmap_key, row: *mut c_void, data: *mut c_void) -> i32 {
    // SAFETY: `data` is a live `SlotWalk`, its pointers live; `row` is
    // the key's column-0 element until the callback's own write.
    unsafe {
        let w = &mut *data.cast::<SlotWalk>();
        assert!(
            w.start.contains(&key),
            "a walk visited {key:#x}, not there at its start"
        );
        assert!(w.seen.insert(key), "a walk visited {key:#x} twice");
        let tag = *(*w.s)
            .live
            .get(&key)
            .expect("a walk visited a key not live");
        let mut e: *mut c_void = core::ptr::null_mut();
        assert_eq!(slotmap_get(&(*w.s).sm, key, &mut e), OK);
        assert_eq!(e, row, "a walk gave another row");
        let i = w.visits;
        w.visits += 1;
        let erase_if = w.kind == WalkKind::SlotmapEraseIf;
        let first = *row.cast::<u8>();
        assert_eq!(first, (*w.s).row_bytes(tag)[0]);
        let mut answer = (erase_if && first & w.bit != 0) as i32;
        let effect = if i == w.at {
            answer = w.ret;
            let e = slot_write(w, key);
            w.effect = Some(e);
            e
        } else if w.coin.is_some_and(|c| key >> c & 1 == 1) {
            assert_eq!(slotmap_erase(&mut (*w.s).sm, key), OK);
            w.erased(key);
            Effect::Removed
        } else {
            Effect::Same
        };
        if erase_if && effect == Effect::Same && answer != 0 {
            // The walk erases it once the predicate returns; erase_if's
            // order is not the contract's.
            w.erased(key);
            w.order = None;
        }
        answer
    }
}

/// The comparator of `slotmap_sort`.
unsafe extern "C" fn slot_less(a: *const c_void, b: *const c_void, data: *mut c_void) -> i32 {
    // SAFETY: `data` is a live `SlotWalk`; `a` and `b` are column-0
    // elements until the callback's own write.
    unsafe {
        let w = &mut *data.cast::<SlotWalk>();
        let answer = (*a.cast::<u8>() < *b.cast::<u8>()) as i32;
        let i = w.visits;
        w.visits += 1;
        if i == w.at {
            let g = slotmap_key_at(&(*w.s).sm, 0);
            w.effect = Some(slot_write(w, g));
        }
        answer
    }
}

/// A walk with a write from its callback (and perhaps left by `longjmp`),
/// checked against SPEC §3c: its code, its visits, the rows' order, and
/// the slotmap and the model equal afterwards. `SLATE_ERROR_ALLOC` when
/// the sort could not allocate, else `SLATE_OK`.
///
/// # Safety
/// The slotmaps are initialized.
unsafe fn walk_with_write(
    input: &mut Input,
    s: &mut State,
    copy: &mut slotmap_s,
    tag: &mut u32,
) -> i32 {
    let mode = input.byte();
    let kind = [
        WalkKind::SlotmapEach,
        WalkKind::SlotmapEraseIf,
        WalkKind::SlotmapSort,
    ][mode as usize % 3];
    let sort = kind == WalkKind::SlotmapSort;
    let write = input.byte();
    let ret = [0, 0, 1, -9, 77][input.byte() as usize % 5];
    // A sort calls its comparator more often than it has rows.
    let n = s.live.len() * if sort { 4 } else { 1 } + 1;
    let at = input.byte() as usize % n;
    let jump = (mode & 4 != 0).then(|| (input.byte() as usize % n) as u32);
    let pick = input.byte() as usize;
    let bit = 1u8 << (input.byte() % 8);
    let start: BTreeSet<u64> = s.live.keys().copied().collect();
    let before = dense_order(&s.sm);
    let mut w = SlotWalk {
        s,
        copy,
        tag,
        kind,
        at,
        write,
        pick,
        bit,
        coin: (mode & 8 != 0 && !sort).then_some((mode >> 4) as u32),
        ret: if kind == WalkKind::SlotmapEach {
            ret
        } else {
            (ret != 0) as i32
        },
        big: pick & 2 != 0,
        start,
        seen: BTreeSet::new(),
        visits: 0,
        effect: None,
        order: Some(before.clone()),
        sorted: false,
        rewritten: false,
    };
    let walk = Walk {
        rows: Some(slot_walk_cb),
        less: Some(slot_less),
        // SAFETY: a live state.
        ..Walk::new(kind, unsafe { (&raw mut (*w.s).sm).cast() })
    };
    // SAFETY: the caller's guarantee; `w` outlives the walk.
    let walked = unsafe { walk.run((&mut w as *mut SlotWalk).cast(), jump) };
    // Whether the write stops the walk, and with what: a sort stops at
    // any change.
    let stop = match w.effect {
        Some(_) if kind == WalkKind::SlotmapEach && w.ret != 0 => Some(w.ret),
        Some(Effect::Changed) => Some(INVALID),
        Some(Effect::Removed) if sort => Some(INVALID),
        _ => None,
    };
    let desc = format!(
        "{kind:?} write {} at {at} (effect {:?}, ret {}), jump {jump:?}",
        write % SLOT_WRITES,
        w.effect,
        w.ret
    );
    // SAFETY: a live state; no walk runs.
    let sm = unsafe { &(*w.s).sm };
    match walked {
        Walked::Returned(ALLOC) if sort && w.visits == 0 => {
            assert_eq!(dense_order(sm), before, "{desc}: a failed sort moved rows");
            return ALLOC;
        }
        Walked::Returned(rc) => {
            assert_eq!(rc, stop.unwrap_or(OK), "{desc}: the walk's code");
            if stop.is_some() {
                assert_eq!(w.visits, at + 1, "{desc}: visits after a stop");
            } else if !sort {
                assert_eq!(w.seen, w.start, "{desc}: not every key visited once");
            }
        }
        Walked::Jumped(j) => {
            assert!(stop.is_none(), "{desc}: the walk went on after a stop");
            assert_eq!(w.visits, j as usize, "{desc}: visits before the jump");
        }
    }
    let rows = dense_order(sm);
    match walked {
        // A sort that ran to its end orders the rows, unless a write
        // replaced elements while it compared them.
        Walked::Returned(OK) if sort => {
            if !w.rewritten && before.len() >= 2 {
                assert!(ascending(sm), "{desc}: not sorted");
            }
        }
        // Any other walk, and a sort that stopped or was left, keeps the
        // order the writes left.
        _ => {
            if let Some(order) = &w.order {
                assert_eq!(&rows, order, "{desc}: the rows' order");
            } else if w.sorted && !w.rewritten {
                assert!(ascending(sm), "{desc}: not sorted by the nested sort");
            }
        }
    }
    // SAFETY: a live state.
    unsafe { (*w.s).verify() };
    OK
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input::new(data);
    failing::install();
    let live_blocks = failing::LIVE.load(Ordering::Relaxed);
    let sizes = COLUMNS[input.byte() as usize % COLUMNS.len()];
    let mut s = State {
        sm: slotmap_s([0; 24]),
        sizes,
        row: sizes.iter().sum::<u32>() as usize,
        live: BTreeMap::new(),
        stale: BTreeSet::new(),
    };
    let mut copy = slotmap_s([0; 24]);
    // SAFETY (every call below): the slotmaps are initialized here.
    unsafe {
        assert_eq!(
            slotmap_columns(&mut s.sm, sizes.as_ptr(), sizes.len() as u32),
            OK
        );
        assert_eq!(slotmap(&mut copy, 4), OK);
        // Inputs of odd length give the slotmap the failing allocator as
        // its own, which checks the size of every release.
        if data.len() % 2 == 1 {
            assert_eq!(slotmap_set_allocator(&mut s.sm, &failing::own()), OK);
        }
    }
    let mut tag = 0u32;
    for step in 0.. {
        if input.is_empty() || step > 5000 {
            break;
        }
        let op = input.byte();
        let mut failed_before = failing::failures();
        let len_before = s.live.len();
        let rc = unsafe {
            match op % 12 {
                // A walk whose callback writes to the slotmap.
                _ if op >= WALK_OPS => {
                    let rc = walk_with_write(&mut input, &mut s, &mut copy, &mut tag);
                    // Injected failures that met a write in the walk
                    // were checked there.
                    if rc == OK {
                        failed_before = failing::failures();
                    }
                    rc
                }
                0..=3 => {
                    tag += 1;
                    let bytes = s.row_bytes(tag);
                    let mut key = 0;
                    let rc = slotmap_insert(&mut s.sm, bytes.as_ptr().cast(), &mut key);
                    if rc == OK {
                        assert!(!s.stale.contains(&key), "reissued key {key:#x}");
                        assert!(s.live.insert(key, tag).is_none(), "issued twice: {key:#x}");
                    } else {
                        assert_eq!(key, 0);
                    }
                    rc
                }
                4 | 5 => {
                    // Erase a live key (by position), or a stale or forged one.
                    let pick = input.byte() as usize;
                    let key = match (pick % 4, s.live.keys().nth(pick / 4 % s.live.len().max(1))) {
                        (0, _) => s.stale.iter().next().copied().unwrap_or(pick as u64),
                        (1, _) => input.u64(),
                        (_, Some(&k)) => k,
                        _ => 0,
                    };
                    let rc = slotmap_erase(&mut s.sm, key);
                    if s.live.remove(&key).is_some() {
                        assert_eq!(rc, OK);
                        s.stale.insert(key);
                    } else {
                        assert_eq!(rc, NOT_FOUND);
                    }
                    rc
                }
                6 => {
                    let mut bit = 1u8 << (input.byte() % 8);
                    let rc =
                        slotmap_erase_if(&mut s.sm, Some(odd_tag), (&mut bit as *mut u8).cast());
                    if rc == OK {
                        let doomed: Vec<u64> = s
                            .live
                            .iter()
                            .filter(|(_, &t)| s.row_bytes(t)[0] & bit != 0)
                            .map(|(&k, _)| k)
                            .collect();
                        for k in doomed {
                            s.live.remove(&k);
                            s.stale.insert(k);
                        }
                    }
                    rc
                }
                7 => slotmap_sort(&mut s.sm, Some(less), core::ptr::null_mut()),
                8 => {
                    let rc = slotmap_clear(&mut s.sm);
                    s.stale.extend(s.live.keys());
                    s.live.clear();
                    rc
                }
                9 => {
                    // Clone, then make the clone the slotmap: the keys go on.
                    slotmap_free(&mut copy);
                    let rc = slotmap_clone(&mut copy, &s.sm);
                    if rc == OK {
                        slotmap_free(&mut s.sm);
                        core::mem::swap(&mut s.sm, &mut copy);
                    }
                    rc
                }
                10 => {
                    match input.byte() % 3 {
                        0 => {
                            slotmap_free(&mut s.sm);
                            s.stale.extend(s.live.keys());
                            s.live.clear();
                            OK
                        }
                        1 => {
                            let rc = slotmap_reserve(&mut s.sm, input.u32() % 4096);
                            assert!(rc == OK || rc == ALLOC || rc == FULL);
                            if rc == FULL {
                                OK
                            } else {
                                rc
                            }
                        }
                        _ => {
                            let limit = input.u32() % 512;
                            let rc = slotmap_limit(&mut s.sm, limit);
                            let want = if (limit as usize) < s.live.len() {
                                INVALID
                            } else {
                                OK
                            };
                            assert_eq!(rc, want);
                            // Off again, so that the run goes on.
                            assert_eq!(slotmap_limit(&mut s.sm, u32::MAX), OK);
                            OK
                        }
                    }
                }
                _ => {
                    failing::arm(input.byte() as u64 % 4);
                    OK
                }
            }
        };
        failing::check_surfaced(op, rc, failed_before);
        if rc == ALLOC {
            assert_eq!(s.live.len(), len_before);
        } else {
            assert!(rc == OK || rc == NOT_FOUND, "op {op}: rc {rc}");
        }
        if step % 16 == 15 {
            s.verify();
        }
        // Keep the stale set bounded.
        while s.stale.len() > 4096 {
            let k = *s.stale.iter().next().unwrap();
            s.stale.remove(&k);
        }
    }
    failing::FAIL_IN.store(0, Ordering::Relaxed);
    s.verify();
    // SAFETY: initialized slotmaps, not used again.
    unsafe {
        slotmap_free(&mut s.sm);
        slotmap_free(&mut copy);
    }
    for &k in s.live.keys().chain(s.stale.iter()) {
        // SAFETY: a freed slotmap is a valid, empty one.
        assert_eq!(unsafe { slotmap_contains(&s.sm, k) }, 0);
    }
    assert_eq!(
        failing::LIVE.load(Ordering::Relaxed),
        live_blocks,
        "memory leaked"
    );
});
