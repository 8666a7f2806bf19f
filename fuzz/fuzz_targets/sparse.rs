//! Sparse sets against a model: two sets (one of the column shapes below,
//! and a membership set or one column) keyed by the keys of an owner
//! slotmap under churn (entities born and dying, slots reissued), with
//! sets checked against the owner or not, erases, erase_if, prune, sort,
//! reserve, clear, clone, free, walks that erase their current key, joins
//! of the sets with and without the owner, and allocations that fail on
//! demand. The model is a map from key to row bytes per set, with at most
//! one key per slot index.
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

/// What a walk's callback works with.
struct Walk {
    sets: [*mut slotmap_sparse_s; 4],
    which: [usize; 4],
    count: usize,
    owner: *const slotmap_s,
    seen: Vec<u64>,
    /// Erase the current key from this position of `sets` when the key's
    /// bit `coin` is set.
    erase_from: Option<usize>,
    coin: u32,
    erased: Vec<(usize, u64)>,
}

unsafe extern "C" fn each_cb(key: slotmap_key, element: *mut c_void, data: *mut c_void) -> i32 {
    // SAFETY: `data` is a live `Walk`; its set is live.
    unsafe {
        let w = &mut *data.cast::<Walk>();
        let sp = w.sets[0];
        w.seen.push(key);
        let mut e = null_mut();
        assert_eq!(slotmap_sparse_get(sp, key, &mut e), OK);
        assert_eq!(e, element);
        // Refused: a set of the given key, an erase of another.
        assert_eq!(slotmap_sparse_set(sp, null(), key, null()), INVALID);
        let other = slotmap_sparse_key_at(sp, 0);
        if other != key {
            assert_eq!(slotmap_sparse_erase(sp, other), INVALID);
        }
        assert_eq!(slotmap_sparse_reserve(sp, 1), INVALID);
        if w.erase_from.is_some() && key >> (w.coin % 64) & 1 == 1 {
            assert_eq!(slotmap_sparse_erase(sp, key), OK);
            w.erased.push((w.which[0], key));
        }
    }
    0
}

unsafe extern "C" fn join_cb(
    key: slotmap_key,
    rows: *const u32,
    elements: *const *mut c_void,
    data: *mut c_void,
) -> i32 {
    // SAFETY: `data` is a live `Walk`; the arrays have `count` (+ 1 with an
    // owner) entries.
    unsafe {
        let w = &mut *data.cast::<Walk>();
        w.seen.push(key);
        for i in 0..w.count {
            let (mut r, mut e) = (u32::MAX, null_mut());
            assert_eq!(slotmap_sparse_row(w.sets[i], key, &mut r), OK);
            assert_eq!(slotmap_sparse_get(w.sets[i], key, &mut e), OK);
            assert_eq!(*rows.add(i), r);
            assert_eq!(*elements.add(i), e);
            assert_eq!(slotmap_sparse_set(w.sets[i], null(), key, null()), INVALID);
        }
        if !w.owner.is_null() {
            let (mut r, mut e) = (u32::MAX, null_mut());
            assert_eq!(slotmap_row(w.owner, key, &mut r), OK);
            assert_eq!(slotmap_get(w.owner, key, &mut e), OK);
            assert_eq!(*rows.add(w.count), r);
            assert_eq!(*elements.add(w.count), e);
        }
        if let Some(i) = w.erase_from {
            if key >> (w.coin % 64) & 1 == 1 {
                let rc = slotmap_sparse_erase(w.sets[i], key);
                // The same set twice in a join: erased once.
                if !w.erased.contains(&(w.which[i], key)) {
                    assert_eq!(rc, OK);
                    w.erased.push((w.which[i], key));
                } else {
                    assert_eq!(rc, NOT_FOUND);
                }
            }
        }
    }
    0
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
        let failed_before = failing::failures();
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
                12 => {
                    // each, erasing the current key on a coin
                    let set = &mut w.sets[s];
                    let start: BTreeSet<u64> = set.rows.keys().copied().collect();
                    let sp: *mut slotmap_sparse_s = &mut set.sp;
                    let mut walk = Walk {
                        sets: [sp, null_mut(), null_mut(), null_mut()],
                        which: [s, 0, 0, 0],
                        count: 1,
                        owner: null(),
                        seen: Vec::new(),
                        erase_from: input.byte().is_multiple_of(2).then_some(0),
                        coin: input.byte() as u32,
                        erased: Vec::new(),
                    };
                    let rc =
                        slotmap_sparse_each(sp, Some(each_cb), (&mut walk as *mut Walk).cast());
                    assert_eq!(rc, OK);
                    let seen: BTreeSet<u64> = walk.seen.iter().copied().collect();
                    assert_eq!(seen.len(), walk.seen.len(), "a key visited twice");
                    assert_eq!(seen, start);
                    for (_, k) in walk.erased {
                        set.rows.remove(&k);
                    }
                    OK
                }
                13 => {
                    // join of 1-4 sets (repeats allowed), with or without owner
                    let count = 1 + input.byte() as usize % 4;
                    let with_owner = input.byte().is_multiple_of(2);
                    let mut which = [0usize; 4];
                    for x in which.iter_mut().take(count) {
                        *x = input.byte() as usize % 2;
                    }
                    let base: *mut Set = w.sets.as_mut_ptr();
                    let mut sets = [null_mut::<slotmap_sparse_s>(); 4];
                    for i in 0..count {
                        sets[i] = &raw mut (*base.add(which[i])).sp;
                    }
                    let owner: *const slotmap_s = if with_owner { &w.owner } else { null() };
                    // brute force: the smallest set (first on a tie), row order
                    let lens: Vec<usize> =
                        (0..count).map(|i| w.sets[which[i]].rows.len()).collect();
                    let lead = (0..count).min_by_key(|&i| lens[i]).unwrap();
                    let mut want = Vec::new();
                    for r in 0..slotmap_sparse_length(sets[lead]) {
                        let k = slotmap_sparse_key_at(sets[lead], r);
                        let inall = (0..count).all(|i| w.sets[which[i]].rows.contains_key(&k));
                        if inall && (!with_owner || slotmap_contains(&w.owner, k) != 0) {
                            want.push(k);
                        }
                    }
                    let erase_from = input
                        .byte()
                        .is_multiple_of(3)
                        .then(|| input.byte() as usize % count);
                    let mut walk = Walk {
                        sets,
                        which,
                        count,
                        owner,
                        seen: Vec::new(),
                        erase_from,
                        coin: input.byte() as u32,
                        erased: Vec::new(),
                    };
                    let rc = slotmap_join(
                        owner,
                        sets.as_ptr(),
                        count as u32,
                        Some(join_cb),
                        (&mut walk as *mut Walk).cast(),
                    );
                    assert_eq!(rc, OK);
                    if erase_from.is_some_and(|i| which[i] == which[lead]) {
                        // swap-and-pop brings later rows forward
                        let mut seen = walk.seen.clone();
                        seen.sort_unstable();
                        want.sort_unstable();
                        assert_eq!(seen, want);
                    } else {
                        assert_eq!(walk.seen, want);
                    }
                    for (i, k) in walk.erased {
                        w.sets[i].rows.remove(&k);
                    }
                    OK
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
