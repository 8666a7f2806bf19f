//! The map against a model: the input is decoded into operations on every
//! key kind (strings, byte keys of lengths around every inline and hashing
//! limit, `u64` and `i64` keys, integer encodings written as bytes, which
//! must reach the integer entries), layout switches, clear, compact,
//! clone, reserve, delete_if, entry (get-or-insert), take, free, cursors
//! (iterating, deleting through them, going stale, given the other map),
//! and allocations that fail on demand (through the hooks, or the map's
//! own allocator).
//! After every step the invariant checker must pass and the map must hold
//! what the model holds; a call that fails with `SLATE_ERROR_ALLOC` must
//! leave the map exactly as it was (shape, memory, tombstones, seed).
#![no_main]

use core::ffi::c_void;
use core::sync::atomic::Ordering;
use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;

#[path = "ffi.rs"]
mod ffi;
use ffi::*;

/// Byte-key lengths around the slot's inline limit (28), the short-key
/// probe (32), XXH3's paths (16, 128) and the integer encoding (10).
const LENGTHS: [usize; 22] = [
    0, 1, 3, 4, 5, 8, 9, 10, 11, 16, 17, 24, 27, 28, 29, 31, 32, 33, 64, 128, 129, 300,
];

#[derive(Clone, Debug)]
enum Key {
    Str(Vec<u8>),
    Bytes(Vec<u8>),
    U64(u64),
    I64(i64),
}

impl Key {
    fn decode(input: &mut Input) -> Key {
        let kind = input.byte();
        let n = LENGTHS[input.byte() as usize % LENGTHS.len()];
        let s = input.byte();
        // A small universe per length, so that keys repeat.
        let bytes = |nul_free: bool| -> Vec<u8> {
            (0..n)
                .map(|i| {
                    let b = (s as usize % 16).wrapping_mul(31).wrapping_add(i * 7) as u8;
                    if nul_free && b == 0 {
                        b'a'
                    } else {
                        b
                    }
                })
                .collect()
        };
        // Small values, and some with high bits set.
        let small = (s as u64 % 64) | ((kind as u64 >> 3) << 59);
        let negative = (small as i64).wrapping_neg().wrapping_sub(1);
        match kind % 6 {
            0 => Key::Str(bytes(true)),
            1 => Key::Bytes(bytes(false)),
            2 => Key::U64(small),
            3 => Key::I64(negative),
            // Integer keys written as their 10-byte encodings.
            4 => Key::Bytes(encoding(0x02, small)),
            _ => Key::Bytes(encoding(0x01, negative as u64)),
        }
    }

    /// The key's bytes as the map stores them (the model's key).
    fn stored(&self) -> Vec<u8> {
        match self {
            Key::Str(b) | Key::Bytes(b) => b.clone(),
            Key::U64(v) => encoding(0x02, *v),
            Key::I64(v) => encoding(0x01, *v as u64),
        }
    }
}

fn encoding(tag: u8, v: u64) -> Vec<u8> {
    let mut e = vec![0x00, tag];
    e.extend_from_slice(&v.to_le_bytes());
    e
}

fn cstr(b: &[u8]) -> Vec<u8> {
    let mut s = b.to_vec();
    s.push(0);
    s
}

fn value(v: usize) -> *mut c_void {
    v as *mut c_void
}

unsafe fn set(m: &mut slate_s, k: &Key, v: usize) -> i32 {
    unsafe {
        match k {
            Key::Str(b) => slate_set(m, cstr(b).as_ptr().cast(), value(v)),
            Key::Bytes(b) => slate_set_bytes(m, b.as_ptr().cast(), b.len() as u32, value(v)),
            Key::U64(x) => slate_set_u64(m, *x, value(v)),
            Key::I64(x) => slate_set_i64(m, *x, value(v)),
        }
    }
}

unsafe fn get(m: &slate_s, k: &Key) -> Option<usize> {
    let mut out: *mut c_void = value(0xDEAD);
    let rc = unsafe {
        match k {
            Key::Str(b) => slate_get(m, cstr(b).as_ptr().cast(), &mut out),
            Key::Bytes(b) => slate_get_bytes(m, b.as_ptr().cast(), b.len() as u32, &mut out),
            Key::U64(x) => slate_get_u64(m, *x, &mut out),
            Key::I64(x) => slate_get_i64(m, *x, &mut out),
        }
    };
    let single = match rc {
        OK => Some(out as usize),
        NOT_FOUND => {
            assert_eq!(out as usize, 0xDEAD, "a miss wrote the value");
            None
        }
        rc => panic!("get returned {rc}"),
    };
    // SAFETY: an initialized map.
    assert_eq!(
        unsafe { get_in_batch(m, k) },
        single,
        "the batch lookup disagrees"
    );
    single
}

/// `k` looked up by the batch call of its kind, at a random place in a
/// batch of absent keys of the same kind (one per key length class).
unsafe fn get_in_batch(m: &slate_s, k: &Key) -> Option<usize> {
    let count = 3;
    let at = match k {
        Key::Str(b) | Key::Bytes(b) => b.len() % count,
        Key::U64(x) => *x as usize % count,
        Key::I64(x) => *x as usize % count,
    };
    let mut values = vec![value(0xDEAD); count];
    let mut found = vec![2u8; count];
    let (v, f) = (values.as_mut_ptr(), found.as_mut_ptr());
    // Absent keys: no decoded key is this long or this large.
    let absent: [&[u8]; 3] = [&[0xAB; 400], &[0xAB; 30], &[0xAB; 130]];
    let rc = unsafe {
        match k {
            Key::Str(b) => {
                let c = cstr(b);
                let filler: Vec<_> = absent.iter().map(|a| cstr(a)).collect();
                let mut keys: Vec<_> = filler.iter().map(|c| c.as_ptr()).collect();
                keys[at] = c.as_ptr();
                slate_get_many(m, keys.as_ptr().cast(), count, v, f)
            }
            Key::Bytes(b) => {
                let mut keys: Vec<*const c_void> =
                    absent.iter().map(|a| a.as_ptr().cast()).collect();
                let mut lens: Vec<u32> = absent.iter().map(|a| a.len() as u32).collect();
                keys[at] = b.as_ptr().cast();
                lens[at] = b.len() as u32;
                slate_get_many_bytes(m, keys.as_ptr(), lens.as_ptr(), count, v, f)
            }
            Key::U64(x) => {
                // Decoded u64 keys have bits 6..58 all zero.
                let mut keys = [u64::MAX - 1; 3];
                keys[at] = *x;
                slate_get_many_u64(m, keys.as_ptr(), count, v, f)
            }
            Key::I64(x) => {
                // Decoded i64 keys are `!small`, whose bits 6..58 are all
                // ones: this value has zeros there.
                let mut keys = [0x1234_5678_9ABC_DEF0; 3];
                keys[at] = *x;
                slate_get_many_i64(m, keys.as_ptr(), count, v, f)
            }
        }
    };
    assert_eq!(rc, OK, "the batch lookup failed");
    for i in 0..count {
        assert!(found[i] <= 1, "found[{i}] = {}", found[i]);
        if i != at {
            assert_eq!(
                (found[i], values[i] as usize),
                (0, 0xDEAD),
                "an absent key found"
            );
        } else if found[i] == 0 {
            assert_eq!(values[i] as usize, 0xDEAD, "a miss wrote the value");
        }
    }
    (found[at] == 1).then_some(values[at] as usize)
}

unsafe fn delete(m: &mut slate_s, k: &Key) -> i32 {
    unsafe {
        match k {
            Key::Str(b) => slate_delete(m, cstr(b).as_ptr().cast()),
            Key::Bytes(b) => slate_delete_bytes(m, b.as_ptr().cast(), b.len() as u32),
            Key::U64(x) => slate_delete_u64(m, *x),
            Key::I64(x) => slate_delete_i64(m, *x),
        }
    }
}

/// `slate_entry*` of the key's kind: the code, the value it found (0 for
/// a new key) and whether the key was new; on `SLATE_OK` writes `value`
/// through the pointer it handed back.
unsafe fn entry(m: &mut slate_s, k: &Key, value: usize) -> (i32, usize, i32) {
    let mut slot: *mut *mut c_void = core::ptr::null_mut();
    let mut inserted: i32 = 7;
    let rc = unsafe {
        match k {
            Key::Str(b) => slate_entry(m, cstr(b).as_ptr().cast(), &mut slot, &mut inserted),
            Key::Bytes(b) => slate_entry_bytes(
                m,
                b.as_ptr().cast(),
                b.len() as u32,
                &mut slot,
                &mut inserted,
            ),
            Key::U64(x) => slate_entry_u64(m, *x, &mut slot, &mut inserted),
            Key::I64(x) => slate_entry_i64(m, *x, &mut slot, &mut inserted),
        }
    };
    if rc != OK {
        assert!(
            slot.is_null() && inserted == 7,
            "a failed entry wrote its out-pointers"
        );
        return (rc, 0, inserted);
    }
    // SAFETY: the map's value slot for the key, valid until the next call.
    let found = unsafe {
        let found = *slot as usize;
        *slot = value as *mut c_void;
        found
    };
    (rc, found, inserted)
}

/// `slate_take*` of the key's kind: the code and the value it handed back
/// (`untouched` where it wrote none).
unsafe fn take(m: &mut slate_s, k: &Key, untouched: usize) -> (i32, usize) {
    let mut v = untouched as *mut c_void;
    let rc = unsafe {
        match k {
            Key::Str(b) => slate_take(m, cstr(b).as_ptr().cast(), &mut v),
            Key::Bytes(b) => slate_take_bytes(m, b.as_ptr().cast(), b.len() as u32, &mut v),
            Key::U64(x) => slate_take_u64(m, *x, &mut v),
            Key::I64(x) => slate_take_i64(m, *x, &mut v),
        }
    };
    (rc, v as usize)
}

type Model = BTreeMap<Vec<u8>, usize>;

unsafe extern "C" fn collect(
    key: *const core::ffi::c_char,
    len: u32,
    v: *mut c_void,
    data: *mut c_void,
) -> i32 {
    // SAFETY: `data` is the Vec below; the key lives for this call.
    unsafe {
        let out = &mut *data.cast::<Vec<(Vec<u8>, usize)>>();
        out.push((
            core::slice::from_raw_parts(key.cast::<u8>(), len as usize).to_vec(),
            v as usize,
        ));
    }
    0
}

/// Deletes keys whose first byte (or length, for the empty key) has the bit.
unsafe extern "C" fn doomed(
    key: *const core::ffi::c_char,
    len: u32,
    _v: *mut c_void,
    data: *mut c_void,
) -> i32 {
    // SAFETY: `data` points to the bit; the key lives for this call.
    unsafe {
        let bit = *data.cast::<u8>();
        let first = if len == 0 { 0 } else { *key.cast::<u8>() };
        ((first ^ len as u8) & bit != 0) as i32
    }
}

fn doomed_model(k: &[u8], bit: u8) -> bool {
    let first = k.first().copied().unwrap_or(0);
    (first ^ k.len() as u8) & bit != 0
}

fn walk(m: &slate_s) -> Vec<(Vec<u8>, usize)> {
    let mut out = Vec::new();
    // SAFETY: an initialized map; `collect` fills `out`.
    assert_eq!(
        unsafe { slate_each(m, Some(collect), (&mut out as *mut Vec<_>).cast()) },
        OK
    );
    out
}

fn verify(m: &slate_s, model: &Model) {
    let mut seen = walk(m);
    assert_eq!(seen.len(), model.len());
    seen.sort();
    let want: Vec<(Vec<u8>, usize)> = model.iter().map(|(k, v)| (k.clone(), *v)).collect();
    assert_eq!(seen, want);
    for (k, v) in model {
        // SAFETY: an initialized map.
        assert_eq!(unsafe { get(m, &Key::Bytes(k.clone())) }, Some(*v));
    }
}

/// What a failed call must not change.
#[derive(PartialEq, Eq, Debug)]
struct Shape {
    info: slate_info_s,
    order: Vec<(Vec<u8>, usize)>,
}

fn shape(m: &slate_s) -> Shape {
    let mut info = info(m);
    if info.length == 0 {
        info.seed = 0; // an empty map may draw a fresh seed
    }
    Shape {
        info,
        order: if info.length <= 64 {
            walk(m)
        } else {
            Vec::new()
        },
    }
}

/// A cursor and what the model expects of it.
struct Cur {
    it: slate_iter_s,
    /// The map it was placed on: 0 `m`, 1 `copy` (a swap swaps them).
    on: usize,
    /// Not stale: no change to its map but its own deletes since `slate_iter`.
    valid: bool,
    /// The walk order when it was placed, and how many entries it gave.
    order: Vec<Vec<u8>>,
    given: usize,
    /// The key it gave last, until it deletes it.
    current: Option<Vec<u8>>,
}

impl Cur {
    fn new() -> Cur {
        Cur {
            it: slate_iter_s([0; 8]),
            on: 0,
            valid: false,
            order: Vec::new(),
            given: 0,
            current: None,
        }
    }
}

/// A cursor's step on map `map` (its own, or the other one): checks the
/// code and what it gave against the model and the cursor's expectations.
fn cursor_next(c: &mut Cur, map: &slate_s, own: bool, model: &Model) {
    let mut key: *const core::ffi::c_char = 0xDEAD as *const _;
    let mut len = 0xDEADu32;
    let mut v = value(0xDEAD);
    // SAFETY: an initialized map, a cursor's memory, writable outputs.
    let rc = unsafe { slate_iter_next(&mut c.it, map, &mut key, &mut len, &mut v) };
    if !(c.valid && own) {
        assert_eq!(rc, INVALID, "a stale cursor, or another map's, went on");
        assert_eq!((key as usize, len, v as usize), (0xDEAD, 0xDEAD, 0xDEAD));
        c.valid = false;
        return;
    }
    if c.given == c.order.len() {
        assert_eq!(rc, NOT_FOUND, "a cursor gave more than its map held");
        c.current = None;
        return;
    }
    assert_eq!(rc, OK, "a cursor ended early");
    // SAFETY: the key lives until the next call on the cursor or the map.
    let k = unsafe { core::slice::from_raw_parts(key.cast::<u8>(), len as usize) }.to_vec();
    assert_eq!(k, c.order[c.given], "a cursor left slate_each's order");
    assert_eq!(
        model.get(&k),
        Some(&(v as usize)),
        "a cursor gave a wrong value"
    );
    c.given += 1;
    c.current = Some(k);
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input::new(data);
    failing::install();
    let live = failing::LIVE.load(Ordering::Relaxed);
    let mut m = slate_s([0; 8]);
    let mut copy = slate_s([0; 8]);
    // SAFETY (every call below): the maps are initialized here.
    unsafe {
        assert_eq!(slate(&mut m), OK);
        assert_eq!(slate(&mut copy), OK);
        // Inputs of odd length give `m` the failing allocator as its own
        // (its clones inherit it), which checks the size of every release.
        if data.len() % 2 == 1 {
            assert_eq!(slate_set_allocator(&mut m, &failing::own()), OK);
        }
    }
    let mut model = Model::new();
    let mut copy_model = Model::new();
    let mut cursors = [Cur::new(), Cur::new()];
    let mut next = 1usize;
    for step in 0.. {
        if input.is_empty() || step > 4000 {
            break;
        }
        let op = input.byte();
        let before = shape(&m);
        let failed_before = failing::failures();
        // Which maps this step changes in a way that makes cursors stale.
        let mut stale = [false; 2];
        let rc = unsafe {
            match op % 21 {
                0..=3 => {
                    let k = Key::decode(&mut input);
                    next += 1;
                    let rc = set(&mut m, &k, next);
                    if rc == OK {
                        stale[0] = model.insert(k.stored(), next).is_none();
                    }
                    rc
                }
                4 => {
                    let k = Key::decode(&mut input);
                    next += 1;
                    let (rc, found, inserted) = entry(&mut m, &k, next);
                    if rc == OK {
                        match model.insert(k.stored(), next) {
                            Some(had) => assert_eq!((inserted, found), (0, had), "entry {k:?}"),
                            None => {
                                assert_eq!((inserted, found), (1, 0), "entry {k:?}");
                                stale[0] = true;
                            }
                        }
                    }
                    rc
                }
                5 => {
                    let k = Key::decode(&mut input);
                    assert_eq!(get(&m, &k), model.get(&k.stored()).copied());
                    OK
                }
                6 => {
                    let k = Key::decode(&mut input);
                    let rc = delete(&mut m, &k);
                    let had = model.remove(&k.stored()).is_some();
                    assert_eq!(rc, if had { OK } else { NOT_FOUND }, "delete {k:?}");
                    stale[0] = had;
                    rc
                }
                7 => {
                    let k = Key::decode(&mut input);
                    let (rc, v) = take(&mut m, &k, 0xDEAD);
                    match model.remove(&k.stored()) {
                        Some(had) => assert_eq!((rc, v), (OK, had), "take {k:?}"),
                        None => assert_eq!((rc, v), (NOT_FOUND, 0xDEAD), "take {k:?}"),
                    }
                    stale[0] = rc == OK;
                    rc
                }
                8 => {
                    let mut bit = 1u8 << (input.byte() % 8);
                    let rc = slate_delete_if(&mut m, Some(doomed), (&mut bit as *mut u8).cast());
                    assert_eq!(rc, OK);
                    let had = model.len();
                    model.retain(|k, _| !doomed_model(k, bit));
                    stale[0] = model.len() < had;
                    rc
                }
                9 => {
                    assert_eq!(slate_clear(&mut m), OK);
                    model.clear();
                    stale[0] = true;
                    OK
                }
                10 => {
                    let rc = slate_compact(&mut m);
                    assert!(rc == OK || rc == ALLOC);
                    stale[0] = rc == OK;
                    rc
                }
                11 => {
                    let n = input.u32() as u64 % 6000;
                    let capacity = info(&m).capacity;
                    let rc = slate_reserve(&mut m, n);
                    assert!(rc == OK || rc == ALLOC);
                    // A reserve that rebuilds grows the capacity.
                    stale[0] = rc == OK && info(&m).capacity != capacity;
                    rc
                }
                12 => {
                    stale[1] = true;
                    slate_free(&mut copy);
                    let rc = slate_clone(&mut copy, &m);
                    if rc == OK {
                        copy_model = model.clone();
                        assert_eq!(slate_equal(&copy, &m), 1);
                        assert_eq!(walk(&copy), walk(&m), "a clone walks in its source's order");
                    } else {
                        assert_eq!(rc, ALLOC);
                        assert_eq!(info(&copy).memory, 0, "a failed clone leaves an empty copy");
                        copy_model.clear();
                    }
                    rc
                }
                13 => {
                    // Swap the map and its copy (a memcpy move, allowed
                    // between calls).
                    core::mem::swap(&mut m, &mut copy);
                    core::mem::swap(&mut model, &mut copy_model);
                    for c in cursors.iter_mut() {
                        c.on ^= 1;
                    }
                    OK
                }
                14 => {
                    slate_free(&mut m);
                    model.clear();
                    stale[0] = true;
                    OK
                }
                16 => {
                    // Place a cursor on either map.
                    let b = input.byte();
                    let c = &mut cursors[b as usize % 2];
                    c.on = (b as usize >> 1) % 2;
                    let map = if c.on == 0 { &m } else { &copy };
                    assert_eq!(slate_iter(&mut c.it, map), OK);
                    c.valid = true;
                    c.order = walk(map).into_iter().map(|(k, _)| k).collect();
                    c.given = 0;
                    c.current = None;
                    OK
                }
                17 | 18 => {
                    // Steps of a cursor; now and then given the other map.
                    let b = input.byte();
                    let c = &mut cursors[b as usize % 2];
                    let own = b & 0x70 != 0;
                    let on = if own { c.on } else { c.on ^ 1 };
                    let (map, mdl) = if on == 0 {
                        (&m, &model)
                    } else {
                        (&copy, &copy_model)
                    };
                    for _ in 0..1 + (b as usize >> 2) % 4 {
                        cursor_next(c, map, own, mdl);
                    }
                    OK
                }
                19 => {
                    // A delete through a cursor.
                    let b = input.byte();
                    let j = b as usize % 2;
                    let c = &mut cursors[j];
                    let (map, mdl) = if c.on == 0 {
                        (&mut m, &mut model)
                    } else {
                        (&mut copy, &mut copy_model)
                    };
                    let rc = slate_iter_delete(&mut c.it, map);
                    if !c.valid {
                        assert_eq!(rc, INVALID, "a stale cursor deleted");
                    } else if let Some(k) = c.current.take() {
                        assert_eq!(rc, OK, "a cursor's delete failed");
                        assert!(mdl.remove(&k).is_some());
                        let on = c.on;
                        let other = &mut cursors[j ^ 1];
                        if other.on == on {
                            other.valid = false;
                        }
                    } else {
                        assert_eq!(rc, NOT_FOUND, "a cursor deleted twice, or nothing");
                    }
                    OK
                }
                20 => {
                    // A cursor's walk to its end, deleting by a bit.
                    let b = input.byte();
                    let j = b as usize % 2;
                    let bit = 1u8 << (b >> 5);
                    let on = cursors[j].on;
                    let deleted_any = {
                        let c = &mut cursors[j];
                        let (map, mdl) = if on == 0 {
                            (&mut m, &mut model)
                        } else {
                            (&mut copy, &mut copy_model)
                        };
                        let mut deleted_any = false;
                        while c.valid && c.given < c.order.len() {
                            cursor_next(c, map, true, mdl);
                            let k = c.current.clone().unwrap_or_default();
                            if doomed_model(&k, bit) {
                                assert_eq!(slate_iter_delete(&mut c.it, map), OK);
                                mdl.remove(&k);
                                c.current = None;
                                deleted_any = true;
                            }
                        }
                        cursor_next(c, map, true, mdl);
                        deleted_any
                    };
                    if deleted_any && cursors[j ^ 1].on == on {
                        cursors[j ^ 1].valid = false;
                    }
                    OK
                }
                _ => {
                    // Fail one of the next few allocations.
                    failing::arm(input.byte() as u64 % 6);
                    OK
                }
            }
        };
        for c in cursors.iter_mut() {
            if stale[c.on] {
                c.valid = false;
            }
        }
        failing::check_surfaced(op, rc, failed_before);
        if rc == ALLOC {
            assert_eq!(shape(&m), before, "a failed call changed the map");
        } else {
            assert!(rc == OK || rc == NOT_FOUND, "op {op}: rc {rc}");
        }
        // The checker walks the whole map: after every step while it is
        // small, every 16th once it is not.
        if model.len() <= 256 || step % 16 == 0 {
            if let Err(why) = check(&m) {
                panic!("invariant broken after op {op}: {why}");
            }
        }
        // SAFETY: initialized maps.
        unsafe {
            assert_eq!(slate_length(&m), model.len() as u64);
            assert_eq!(slate_length(&copy), copy_model.len() as u64);
        }
        if step % 32 == 31 {
            verify(&m, &model);
        }
    }
    failing::FAIL_IN.store(0, Ordering::Relaxed);
    verify(&m, &model);
    verify(&copy, &copy_model);
    // SAFETY: initialized maps, not used again.
    unsafe {
        slate_free(&mut m);
        slate_free(&mut copy);
    }
    assert_eq!(failing::LIVE.load(Ordering::Relaxed), live, "memory leaked");
});
