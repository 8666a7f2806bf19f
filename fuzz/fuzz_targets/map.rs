//! The map against a model: the input is decoded into operations on every
//! key kind (strings, byte keys of lengths around every inline and hashing
//! limit, `u64` and `i64` keys, integer encodings written as bytes, which
//! must reach the integer entries), layout switches, clear, compact,
//! clone, reserve, delete_if, entry (get-or-insert), take, free, cursors
//! (iterating, deleting through them, going stale, given the other map),
//! and allocations that fail on demand (through the hooks, or the map's
//! own allocator); walks (`slate_each`, `slate_delete_if`) whose callback
//! writes to the walked map at a chosen visit (deletes or takes its given
//! key, sets it, sets, deletes or gets-or-inserts another key, clears,
//! frees, compacts, reserves, walks it again, writes another map) or
//! deletes its given key at many visits, some left by `longjmp` at a chosen
//! visit, checked against SPEC §3c.
//! After every step the invariant checker must pass and the map must hold
//! what the model holds; a call that fails with `SLATE_ERROR_ALLOC` must
//! leave the map exactly as it was (shape, memory, tombstones, seed).
#![no_main]

use core::ffi::c_void;
use core::sync::atomic::Ordering;
use std::collections::{BTreeMap, BTreeSet};

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

/// The key kind whose calls reach the stored key `k`: integer keys by
/// their own calls, others as strings where they hold no NUL; with `raw`,
/// always as bytes (which reach integer keys too).
fn key_of(k: &[u8], raw: bool) -> Key {
    let int = |b: &[u8]| u64::from_le_bytes(b[2..10].try_into().unwrap());
    match k {
        _ if raw => Key::Bytes(k.to_vec()),
        [0, 2, ..] if k.len() == 10 => Key::U64(int(k)),
        [0, 1, ..] if k.len() == 10 => Key::I64(int(k) as i64),
        _ if !k.contains(&0) => Key::Str(k.to_vec()),
        _ => Key::Bytes(k.to_vec()),
    }
}

/// Operation bytes from this one on are walks with a write
/// (`walk_with_write`); the others are `op % 21`.
const WALK_OPS: u8 = 208;

/// Writes a walk's callback makes to the walked map, at one visit.
const MAP_WRITES: u8 = 17;

/// A walk of `m` (`slate_each` or `slate_delete_if`) whose callback, at
/// visit `at`, makes the write `write`, and at other visits deletes its
/// given key when `coin` says so. The model follows every call as it is
/// made, and every visit is checked against it.
struct MapWalk {
    map: *mut slate_s,
    copy: *mut slate_s,
    model: *mut Model,
    copy_model: *mut Model,
    next: *mut usize,
    delete_if: bool,
    raw: bool,
    at: usize,
    write: u8,
    key: Key,
    /// `slate_delete_if`'s answers at other visits (`doomed_model`), and a
    /// nested `slate_delete_if`'s.
    bit: u8,
    coin: Option<u8>,
    /// The answer at visit `at`.
    ret: i32,
    reserve: u64,
    start: BTreeSet<Vec<u8>>,
    seen: BTreeSet<Vec<u8>>,
    visits: usize,
    /// The write's effect, once made.
    effect: Option<Effect>,
    /// The maps changed (cursors go stale).
    changed: bool,
    copy_changed: bool,
}

/// A walk inside a walk: what it is given, and what its callback does.
struct Nest {
    map: *mut slate_s,
    model: *const Model,
    given: Vec<u8>,
    /// `slate_each`: delete `given` when visited. `slate_delete_if`:
    /// answer for `given` only, else by `bit`.
    given_only: bool,
    bit: u8,
    raw: bool,
    seen: BTreeSet<Vec<u8>>,
}

unsafe extern "C" fn nest_each(
    key: *const core::ffi::c_char,
    len: u32,
    v: *mut c_void,
    data: *mut c_void,
) -> i32 {
    // SAFETY: `data` is a live `Nest`; the key lives for this call.
    unsafe {
        let n = &mut *data.cast::<Nest>();
        let k = core::slice::from_raw_parts(key.cast::<u8>(), len as usize).to_vec();
        assert_eq!((*n.model).get(&k), Some(&(v as usize)), "nested walk");
        assert!(
            n.seen.insert(k.clone()),
            "a nested walk visited a key twice"
        );
        if n.given_only && k == n.given {
            assert_eq!(delete(&mut *n.map, &key_of(&k, n.raw)), OK);
        }
    }
    0
}

unsafe extern "C" fn nest_pred(
    key: *const core::ffi::c_char,
    len: u32,
    v: *mut c_void,
    data: *mut c_void,
) -> i32 {
    // SAFETY: as above.
    unsafe {
        let n = &mut *data.cast::<Nest>();
        let k = core::slice::from_raw_parts(key.cast::<u8>(), len as usize).to_vec();
        assert_eq!((*n.model).get(&k), Some(&(v as usize)), "nested delete_if");
        assert!(
            n.seen.insert(k.clone()),
            "a nested walk visited a key twice"
        );
        (if n.given_only {
            k == n.given
        } else {
            doomed_model(&k, n.bit)
        }) as i32
    }
}

/// The write `w.write` on the walked map, from the callback given `g`;
/// the model follows it. Returns what it did to the map.
///
/// # Safety
/// `w`'s pointers are live; called from a callback of a walk of `w.map`.
unsafe fn map_write(w: &mut MapWalk, g: &[u8]) -> Effect {
    // SAFETY (all): the caller's guarantee; each reference lives for one
    // call.
    unsafe {
        let map = w.map;
        let model = &mut *w.model;
        let given = key_of(g, w.raw);
        let failed_before = failing::failures();
        // A call that allocates fails with ALLOC exactly when an injected
        // failure met it, and then changes nothing.
        let failed = |rc: i32| {
            assert_eq!(
                rc == ALLOC,
                failing::failures() > failed_before,
                "a write from a walk: rc {rc}"
            );
            rc == ALLOC
        };
        match w.write % MAP_WRITES {
            0 => Effect::Same,
            1 => {
                assert_eq!(delete(&mut *map, &given), OK, "delete the given key");
                model.remove(g);
                Effect::Removed
            }
            2 => {
                let (rc, v) = take(&mut *map, &given, 0xDEAD);
                assert_eq!((rc, Some(v)), (OK, model.remove(g)), "take the given key");
                Effect::Removed
            }
            3 => {
                *w.next += 1;
                assert_eq!(set(&mut *map, &given, *w.next), OK, "set the given key");
                model.insert(g.to_vec(), *w.next);
                Effect::Same
            }
            4 => {
                *w.next += 1;
                let rc = set(&mut *map, &w.key, *w.next);
                if failed(rc) {
                    return Effect::Same;
                }
                assert_eq!(rc, OK);
                let had = model.insert(w.key.stored(), *w.next).is_some();
                Effect::of(&(), &[], !had)
            }
            5 => {
                let rc = delete(&mut *map, &w.key);
                let k = w.key.stored();
                let had = model.remove(&k).is_some();
                assert_eq!(rc, if had { OK } else { NOT_FOUND }, "delete {:?}", w.key);
                let removed = if had { vec![k] } else { vec![] };
                Effect::of(&g.to_vec(), &removed, false)
            }
            6 => {
                *w.next += 1;
                let (rc, found, inserted) = entry(&mut *map, &w.key, *w.next);
                if failed(rc) {
                    return Effect::Same;
                }
                assert_eq!(rc, OK);
                match model.insert(w.key.stored(), *w.next) {
                    Some(had) => {
                        assert_eq!((inserted, found), (0, had), "entry {:?}", w.key);
                        Effect::Same
                    }
                    None => {
                        assert_eq!((inserted, found), (1, 0), "entry {:?}", w.key);
                        Effect::Changed
                    }
                }
            }
            7 | 8 => {
                if w.write % MAP_WRITES == 7 {
                    assert_eq!(slate_clear(map), OK);
                } else {
                    slate_free(map);
                }
                // With the given entry the last, the whole effect is its
                // removal.
                let removed: Vec<Vec<u8>> = model.keys().cloned().collect();
                model.clear();
                Effect::of(&g.to_vec(), &removed, false)
            }
            9 => {
                let rc = slate_compact(map);
                if failed(rc) {
                    return Effect::Same;
                }
                assert_eq!(rc, OK);
                Effect::Changed
            }
            10 => {
                let capacity = info(&*map).capacity;
                let rc = slate_reserve(map, w.reserve);
                if failed(rc) {
                    return Effect::Same;
                }
                assert_eq!(rc, OK);
                // A reserve that rebuilds grows the capacity.
                Effect::of(&(), &[], info(&*map).capacity != capacity)
            }
            11 => {
                // A nested walk of the map, deleting the outer walk's
                // given key when it meets it (then its given key too).
                let mut n = Nest {
                    map,
                    model,
                    given: g.to_vec(),
                    given_only: w.bit & 1 != 0,
                    bit: w.bit,
                    raw: w.raw,
                    seen: BTreeSet::new(),
                };
                let want: BTreeSet<Vec<u8>> = model.keys().cloned().collect();
                let rc = slate_each(map, Some(nest_each), (&mut n as *mut Nest).cast());
                assert_eq!(rc, OK, "a nested walk");
                assert_eq!(n.seen, want, "a nested walk's visits");
                if n.given_only {
                    model.remove(g);
                    Effect::Removed
                } else {
                    Effect::Same
                }
            }
            12 => {
                // A nested delete_if: of the given key alone, or by a bit.
                let mut n = Nest {
                    map,
                    model,
                    given: g.to_vec(),
                    given_only: w.bit & 1 != 0,
                    bit: w.bit,
                    raw: w.raw,
                    seen: BTreeSet::new(),
                };
                let want: BTreeSet<Vec<u8>> = model.keys().cloned().collect();
                let rc = slate_delete_if(map, Some(nest_pred), (&mut n as *mut Nest).cast());
                assert_eq!(rc, OK, "a nested delete_if");
                assert_eq!(n.seen, want, "a nested delete_if's visits");
                let removed: Vec<Vec<u8>> = want
                    .into_iter()
                    .filter(|k| {
                        if n.given_only {
                            k == g
                        } else {
                            doomed_model(k, n.bit)
                        }
                    })
                    .collect();
                for k in &removed {
                    model.remove(k);
                }
                Effect::of(&g.to_vec(), &removed, false)
            }
            13 => {
                // Only on a map that holds no memory: not inside its walk.
                assert_eq!(slate_set_allocator(map, &failing::own()), INVALID);
                assert_eq!(slate_pin_seed(map, 7), INVALID);
                Effect::Same
            }
            14 => {
                // Another map: anything goes.
                *w.next += 1;
                let rc = set(&mut *w.copy, &w.key, *w.next);
                if !failed(rc) {
                    assert_eq!(rc, OK);
                    let new = (*w.copy_model).insert(w.key.stored(), *w.next).is_none();
                    w.copy_changed |= new;
                }
                Effect::Same
            }
            15 => {
                // Reads of the walked map: a lookup, a clone, a compare.
                assert_eq!(get(&*map, &given), model.get(g).copied());
                let mut c = slate_s([0; 8]);
                let rc = slate_clone(&mut c, map);
                if !failed(rc) {
                    assert_eq!(rc, OK);
                    assert_eq!(slate_equal(&c, map), 1);
                    assert_eq!(slate_length(&c), model.len() as u64);
                }
                slate_free(&mut c);
                Effect::Same
            }
            _ => {
                // A cursor over the walked map, to its end.
                let mut it = slate_iter_s([0; 8]);
                assert_eq!(slate_iter(&mut it, map), OK);
                let mut n = 0;
                let (mut k, mut len, mut v) = (core::ptr::null(), 0u32, value(0));
                while slate_iter_next(&mut it, map, &mut k, &mut len, &mut v) == OK {
                    let key = core::slice::from_raw_parts(k.cast::<u8>(), len as usize);
                    assert_eq!(model.get(key), Some(&(v as usize)), "a cursor in a walk");
                    n += 1;
                }
                assert_eq!(n, model.len(), "a cursor in a walk");
                Effect::Same
            }
        }
    }
}

unsafe extern "C" fn map_walk_cb(
    key: *const core::ffi::c_char,
    len: u32,
    v: *mut c_void,
    data: *mut c_void,
) -> i32 {
    // SAFETY: `data` is a live `MapWalk`, its pointers live; the key lives
    // until the callback's own write.
    unsafe {
        let w = &mut *data.cast::<MapWalk>();
        let g = core::slice::from_raw_parts(key.cast::<u8>(), len as usize).to_vec();
        assert!(
            w.start.contains(&g),
            "a walk visited a key it did not start with"
        );
        assert!(w.seen.insert(g.clone()), "a walk visited a key twice");
        assert_eq!(
            (*w.model).get(&g),
            Some(&(v as usize)),
            "a walk visited a key the model does not hold"
        );
        let i = w.visits;
        w.visits += 1;
        let mut answer = (w.delete_if && doomed_model(&g, w.bit)) as i32;
        let effect = if i == w.at {
            answer = w.ret;
            let e = map_write(w, &g);
            w.effect = Some(e);
            e
        } else if w.coin.is_some_and(|c| doomed_model(&g, c)) {
            assert_eq!(delete(&mut *w.map, &key_of(&g, w.raw)), OK);
            (*w.model).remove(&g);
            Effect::Removed
        } else {
            Effect::Same
        };
        w.changed |= effect != Effect::Same;
        if w.delete_if && effect == Effect::Same && answer != 0 {
            // The walk deletes it once the predicate returns.
            (*w.model).remove(&g);
            w.changed = true;
        }
        answer
    }
}

/// A walk with a write from its callback (and perhaps left by `longjmp`),
/// checked against SPEC §3c: its code, its visits, and the map and the
/// model equal afterwards. Returns whether `m` and `copy` changed.
///
/// # Safety
/// `m` and `copy` are initialized maps.
unsafe fn walk_with_write(
    input: &mut Input,
    m: &mut slate_s,
    copy: &mut slate_s,
    model: &mut Model,
    copy_model: &mut Model,
    next: &mut usize,
) -> [bool; 2] {
    let mode = input.byte();
    let write = input.byte();
    let ret = [0, 0, 1, -9, 77][input.byte() as usize % 5];
    let n = model.len() + 1;
    let at = input.byte() as usize % n;
    let jump = (mode & 2 != 0).then(|| (input.byte() as usize % n) as u32);
    let key = Key::decode(input);
    let bit = 1u8 << (input.byte() % 8);
    let reserve = input.u32() as u64 % 6000;
    let delete_if = mode & 1 != 0;
    let start = model.keys().cloned().collect();
    let mut w = MapWalk {
        map: m,
        copy,
        model,
        copy_model,
        next,
        delete_if,
        raw: mode & 8 != 0,
        at,
        write,
        key,
        bit,
        coin: (mode & 4 != 0).then_some(1u8 << (mode >> 5)),
        ret: if delete_if { (ret != 0) as i32 } else { ret },
        reserve,
        start,
        seen: BTreeSet::new(),
        visits: 0,
        effect: None,
        changed: false,
        copy_changed: false,
    };
    let kind = if delete_if {
        WalkKind::MapDeleteIf
    } else {
        WalkKind::MapEach
    };
    let walk = Walk {
        map: Some(map_walk_cb),
        ..Walk::new(kind, w.map.cast())
    };
    // SAFETY: the caller's guarantee; `w` outlives the walk.
    let walked = unsafe { walk.run((&mut w as *mut MapWalk).cast(), jump) };
    // Whether the write stops the walk, and with what.
    let stop = match w.effect {
        Some(_) if !delete_if && w.ret != 0 => Some(w.ret),
        Some(Effect::Changed) => Some(INVALID),
        _ => None,
    };
    let desc = format!(
        "{kind:?} write {} at {at} (effect {:?}, ret {}), jump {jump:?}",
        write % MAP_WRITES,
        w.effect,
        w.ret
    );
    match walked {
        Walked::Returned(rc) => {
            assert_eq!(rc, stop.unwrap_or(OK), "{desc}: the walk's code");
            if stop.is_some() {
                assert_eq!(w.visits, at + 1, "{desc}: visits after a stop");
            } else {
                assert_eq!(w.seen, w.start, "{desc}: not every key visited once");
            }
        }
        Walked::Jumped(j) => {
            assert!(stop.is_none(), "{desc}: the walk went on after a stop");
            assert_eq!(w.visits, j as usize, "{desc}: visits before the jump");
        }
    }
    // SAFETY: `m` is initialized; no walk runs.
    if let Err(why) = check(unsafe { &*w.map }) {
        panic!("{desc}: invariant broken: {why}");
    }
    // SAFETY: as above.
    verify(unsafe { &*w.map }, unsafe { &*w.model });
    [w.changed, w.copy_changed]
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
        let mut failed_before = failing::failures();
        // Which maps this step changes in a way that makes cursors stale.
        let mut stale = [false; 2];
        let rc = unsafe {
            match op % 21 {
                // A walk whose callback writes to the map.
                _ if op >= WALK_OPS => {
                    stale = walk_with_write(
                        &mut input,
                        &mut m,
                        &mut copy,
                        &mut model,
                        &mut copy_model,
                        &mut next,
                    );
                    // Injected failures that met a write in the walk
                    // were checked there.
                    failed_before = failing::failures();
                    OK
                }
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
