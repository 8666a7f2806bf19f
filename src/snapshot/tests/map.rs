//! Map snapshots: round trips across map states, keys and values (as
//! integers and through a codec), truncations, bit flips, crafted
//! images, failed allocations, failing and changing callbacks.

use core::ffi::c_void;
use std::cell::Cell;
use std::collections::{HashMap, HashSet};

use super::super::map::{self as snap_map, Codec};
use super::{build, counting, fix, reset, split, Rng, LIVE};
use crate::alloc::Allocator;
use crate::key::{int_bytes, IntKey, Needle, TAG_I64, TAG_U64};
use crate::map::Map;
use crate::snapshot::envelope::*;
use crate::Error;

// ---- a codec over a table of byte strings ---------------------------------------

/// Values are `1 + index` into `store`; `decode` appends, `discard`
/// retires. Calls can be made to fail at a given count.
#[derive(Default)]
struct Table {
    store: Vec<Vec<u8>>,
    /// Values `decode` made and `discard` has not undone.
    decoded: HashSet<usize>,
    discards: usize,
    encodes: usize,
    decodes: usize,
    fail_encode_at: Option<usize>,
    fail_decode_at: Option<usize>,
    /// Called from `encode` at the given call, with the map.
    change_at: Option<(usize, *mut Map)>,
}

impl Table {
    fn value(&mut self, bytes: Vec<u8>) -> *mut c_void {
        self.store.push(bytes);
        core::ptr::without_provenance_mut(self.store.len())
    }

    fn bytes(&self, v: *mut c_void) -> &[u8] {
        &self.store[v as usize - 1]
    }
}

impl Codec for Table {
    fn encode(&mut self, v: *mut c_void, buffer: *mut u8, capacity: u32, length: &mut u32) -> i32 {
        self.encodes += 1;
        if self.fail_encode_at == Some(self.encodes) {
            return 77;
        }
        if let Some((at, m)) = self.change_at {
            if at == self.encodes {
                // SAFETY: the save reads the map through this pointer only
                // until it sees the change.
                unsafe { (*m).set(&Needle::bytes(b"changed"), core::ptr::null_mut()) }.unwrap();
            }
        }
        let b = &self.store[v as usize - 1];
        *length = b.len() as u32;
        if !b.is_empty() && b.len() <= capacity as usize {
            // SAFETY: `buffer` has `capacity` writable bytes.
            unsafe { core::ptr::copy_nonoverlapping(b.as_ptr(), buffer, b.len()) };
        }
        0
    }

    fn decode(&mut self, bytes: &[u8], value: &mut *mut c_void) -> i32 {
        self.decodes += 1;
        if self.fail_decode_at == Some(self.decodes) {
            return 55;
        }
        *value = self.value(bytes.to_vec());
        self.decoded.insert(*value as usize);
        0
    }

    fn discard(&mut self, v: *mut c_void) {
        assert!(
            self.decoded.remove(&(v as usize)),
            "discarded twice or never decoded"
        );
        self.discards += 1;
    }
}

// ---- helpers ------------------------------------------------------------------

fn dc(t: &mut Table) -> Option<&mut dyn Codec> {
    Some(t)
}

fn sink(out: &mut Vec<u8>) -> impl FnMut(*const u8, usize) -> i32 + '_ {
    |p, n| {
        assert!(n > 0);
        // SAFETY: the writer hands out `n` readable bytes.
        out.extend_from_slice(unsafe { core::slice::from_raw_parts(p, n) });
        0
    }
}

fn save(m: &Map, mut codec: Option<&mut Table>) -> Vec<u8> {
    let mut out = Vec::new();
    // SAFETY: a live map nothing changes.
    unsafe { snap_map::save(m, codec.as_deref_mut(), &mut sink(&mut out)) }.unwrap();
    // SAFETY: as above.
    let size = unsafe { snap_map::save_size(m, codec) };
    assert_eq!(size, Ok(out.len() as u64));
    out
}

/// The records of a snapshot, as a sorted list (a map's image is
/// canonical up to their order).
fn records(bytes: &[u8], codec: bool) -> Vec<(Vec<u8>, Vec<u8>)> {
    let s = split(bytes);
    assert_eq!(s[1].0, MAPE);
    let mut f = Fields::new(&s[1].1);
    let mut out = vec![];
    while !f.is_empty() {
        let n = f.u32().unwrap();
        let k = f.take(n as usize).unwrap().to_vec();
        let v = if codec {
            let n = f.u32().unwrap();
            f.take(n as usize).unwrap().to_vec()
        } else {
            f.take(8).unwrap().to_vec()
        };
        out.push((k, v));
    }
    out.sort();
    out
}

/// Loads into a fresh map of `alloc`; on failure checks that it holds
/// nothing still and that every decoded value was discarded.
fn load(bytes: &[u8], codec: Option<&mut Table>, alloc: Allocator) -> Result<Map, i32> {
    let mut m = Map::new(alloc);
    let mut c = codec;
    let before = c.as_ref().map(|t| t.decoded.len());
    let r = snap_map::load(&mut m, bytes, c.as_deref_mut().map(|c| c as &mut dyn Codec));
    match r {
        Ok(()) => {
            m.check().unwrap();
            Ok(m)
        }
        Err(e) => {
            assert!(m.holds_nothing() && m.is_empty());
            if let Some(t) = c {
                assert_eq!(Some(t.decoded.len()), before, "a decoded value was kept");
            }
            Err(e)
        }
    }
}

fn set(m: &mut Map, k: &[u8], v: usize) {
    m.set(&Needle::bytes(k), core::ptr::without_provenance_mut(v))
        .unwrap();
}

/// A map in a named state.
fn state(name: &str, codec: Option<&mut Table>) -> Map {
    let mut m = Map::new(Allocator::default());
    let mut rng = Rng(0x9e3779b97f4a7c15);
    let mut c = codec;
    let mut value = |i: usize| match c.as_deref_mut() {
        None => i,
        Some(t) => {
            let len = if i == 4 {
                BIG
            } else {
                [0, 1, 7, 300, 20][i % 5]
            };
            t.value((0..len).map(|j| (i + j) as u8).collect()) as usize
        }
    };
    match name {
        "empty" => {}
        "small" => (0..6).for_each(|i| set(&mut m, format!("k{i}").as_bytes(), value(i))),
        "cleared" | "freed" => {
            (0..40).for_each(|i| set(&mut m, format!("k{i}").as_bytes(), value(i)));
            if name == "cleared" {
                m.clear();
            } else {
                m.free();
            }
        }
        "dir" | "deleted" => {
            let n = super::scale(3000);
            (0..n).for_each(|i| set(&mut m, &(i as u64 * 7919).to_le_bytes(), value(i)));
            if name == "deleted" {
                for i in 0..n {
                    if i % 10 != 0 {
                        m.delete(&Needle::bytes(&(i as u64 * 7919).to_le_bytes()))
                            .unwrap();
                    }
                }
            }
        }
        "ints" => {
            for i in 0..super::scale(200) {
                let v = rng.next();
                set(&mut m, &int_bytes(TAG_I64, v), value(i));
            }
            set(&mut m, &int_bytes(TAG_U64, u64::MAX), value(0));
        }
        "mixed" => {
            set(&mut m, b"", value(0));
            set(&mut m, b"a\0b", value(1));
            set(&mut m, &[0; 29], value(2));
            set(&mut m, &vec![0xab; BIG], value(3));
            set(&mut m, &int_bytes(TAG_I64, (-5i64) as u64), value(4));
            set(&mut m, &int_bytes(TAG_U64, 5), value(5));
            for i in 0..40 {
                set(&mut m, format!("name {i}").as_bytes(), value(6 + i));
            }
            if c.is_none() {
                set(&mut m, b"zero", 0);
                set(&mut m, b"top", usize::MAX);
            }
        }
        _ => unreachable!("{name}"),
    }
    m
}

/// The largest key and value: 64 KiB, and 4 KiB under Miri (still past
/// every short-key path and the scratch buffer's first size).
const BIG: usize = if cfg!(miri) { 4096 } else { 65536 };

const STATES: [&str; 8] = [
    "empty", "small", "cleared", "freed", "dir", "deleted", "ints", "mixed",
];

/// `a` and `b` hold the same keys; values equal, or (a codec) of equal bytes.
fn same(a: &Map, b: &Map, codec: Option<&Table>) {
    assert_eq!(a.len(), b.len());
    let r = a.visit(|k, v| {
        let w = b.get(&Needle::bytes(k)).expect("key lost");
        let equal = match codec {
            None => v == w,
            Some(t) => t.bytes(v) == t.bytes(w),
        };
        (!equal) as i32
    });
    assert_eq!(r, 0);
}

// ---- round trips ------------------------------------------------------------------

/// The calls a program makes after a load, on `a` (the saved map) and `b`
/// (its loaded copy) alike, `steps` of them: both give the same results,
/// and stay the same map.
fn same_future(a: &mut Map, b: &mut Map, steps: usize, seed: u64) {
    let mut rng = Rng(seed | 1);
    for step in 0..steps {
        let x = rng.below(1000);
        let key = format!("key:{}", rng.below(2000));
        let n = Needle::bytes(key.as_bytes());
        let int = IntKey::new(TAG_U64, rng.below(2000) as u64);
        let v = core::ptr::without_provenance_mut(step + 1);
        match x {
            0 => {
                a.clear();
                b.clear();
            }
            1 => {
                a.free();
                b.free();
            }
            2..=399 => {
                assert_eq!(a.set(&n, v), b.set(&n, v), "step {step}: set");
                assert_eq!(a.set(&int, v), b.set(&int, v), "step {step}: set");
            }
            400..=599 => {
                assert_eq!(a.remove(&n), b.remove(&n), "step {step}: remove");
                assert_eq!(a.remove(&int), b.remove(&int), "step {step}: remove");
            }
            _ => {
                assert_eq!(a.get(&n), b.get(&n), "step {step}: get");
                assert_eq!(a.get(&int), b.get(&int), "step {step}: get");
            }
        }
        assert_eq!(a.len(), b.len(), "step {step}: length");
    }
    a.check().unwrap();
    b.check().unwrap();
    same(a, b, None);
}

#[test]
#[cfg_attr(miri, ignore = "long under Miri: make miri-snapshot")]
fn integer_values_round_trip_in_every_state() {
    for name in STATES {
        let mut m = state(name, None);
        let bytes = save(&m, None);
        assert_eq!(save(&m, None), bytes, "{name}: saving twice");
        let mut l = load(&bytes, None, Allocator::default()).unwrap();
        same(&m, &l, None);
        let again = save(&l, None);
        assert_eq!(records(&again, false), records(&bytes, false), "{name}");
        assert_eq!(again.len(), bytes.len());
        let i = super::info(&bytes).unwrap();
        assert_eq!((i.kind, i.count, i.values), (KIND_MAP, m.len(), 1));
        same_future(&mut m, &mut l, super::future_steps(), name.len() as u64);
        m.free();
        l.free();
    }
}

#[test]
#[cfg_attr(miri, ignore = "long under Miri: make miri-snapshot")]
fn codec_values_round_trip_in_every_state() {
    for name in STATES {
        let mut t = Table::default();
        let mut m = state(name, Some(&mut t));
        let bytes = save(&m, Some(&mut t));
        assert_eq!(save(&m, Some(&mut t)), bytes, "{name}: saving twice");
        let mut l = load(&bytes, Some(&mut t), Allocator::default()).unwrap();
        same(&m, &l, Some(&t));
        let again = save(&l, Some(&mut t));
        assert_eq!(records(&again, true), records(&bytes, true), "{name}");
        assert_eq!(super::info(&bytes).unwrap().values, 2);
        // The wrong kind of codec argument.
        assert_eq!(
            load(&bytes, None, Allocator::default()).err(),
            Some(Error::Unsupported as i32)
        );
        let ints = save(&m, None);
        assert_eq!(
            load(&ints, Some(&mut t), Allocator::default()).err(),
            Some(Error::Unsupported as i32)
        );
        m.free();
        l.free();
    }
}

#[test]
fn a_load_takes_the_destinations_seed_and_allocator() {
    let mut m = state("dir", None);
    let bytes = save(&m, None);
    // A pinned seed stays pinned, and rebuilds the tables the same way.
    let mut a = Map::new(Allocator::default());
    a.pin_seed(42).unwrap();
    snap_map::load(&mut a, &bytes, None).unwrap();
    let mut b = Map::new(Allocator::default());
    b.pin_seed(42).unwrap();
    snap_map::load(&mut b, &bytes, None).unwrap();
    assert_eq!(save(&a, None), save(&b, None));
    a.free();
    assert!(a.pin_seed(42).is_ok());
    // A destination of its own allocator: every block from it.
    reset(u64::MAX);
    let live = LIVE.with(Cell::get);
    let mut c = load(&bytes, None, counting()).unwrap();
    assert!(LIVE.with(Cell::get) > live);
    same(&m, &c, None);
    c.free();
    assert_eq!(LIVE.with(Cell::get), live);
    m.free();
    b.free();
}

#[test]
fn a_load_needs_a_map_that_holds_nothing() {
    let mut m = state("small", None);
    let bytes = save(&m, None);
    let mut d = state("cleared", None);
    assert_eq!(
        snap_map::load(&mut d, &bytes, None),
        Err(Error::Invalid as i32)
    );
    d.compact().unwrap();
    assert!(d.holds_nothing());
    snap_map::load(&mut d, &bytes, None).unwrap();
    same(&m, &d, None);
    assert_eq!(
        snap_map::load(&mut d, &bytes, None),
        Err(Error::Invalid as i32)
    );
    d.free();
    m.free();
}

// ---- damage -------------------------------------------------------------------

#[test]
#[cfg_attr(miri, ignore = "long under Miri: make miri-snapshot")]
fn every_truncation_is_corrupt() {
    for codec in [false, true] {
        let mut t = Table::default();
        let mut m = state("mixed", codec.then_some(&mut t));
        m.delete(&Needle::bytes(&vec![0xab; BIG])).unwrap();
        let bytes = save(&m, codec.then_some(&mut t));
        let step = if cfg!(miri) { 17 } else { 1 };
        for n in (0..bytes.len()).step_by(step) {
            let r = load(&bytes[..n], codec.then_some(&mut t), Allocator::default());
            assert_eq!(r.err(), Some(Error::Corrupt as i32), "{n}");
        }
        m.free();
    }
}

#[test]
#[cfg_attr(miri, ignore = "long under Miri: make miri-snapshot")]
fn every_bit_flip_is_rejected_or_loads_a_checked_map() {
    for codec in [false, true] {
        let mut t = Table::default();
        let mut m = Map::new(Allocator::default());
        for i in 0..5usize {
            let v = if codec {
                t.value(vec![i as u8; i]) as usize
            } else {
                i * 3
            };
            set(&mut m, format!("key{i}").as_bytes(), v);
        }
        let bytes = save(&m, codec.then_some(&mut t));
        let step = if cfg!(miri) { 13 } else { 1 };
        let mut accepted = 0;
        for bit in (0..bytes.len() * 8).step_by(step) {
            let mut b = bytes.clone();
            b[bit / 8] ^= 1 << (bit % 8);
            let r = load(&b, codec.then_some(&mut t), Allocator::default());
            assert!(r.is_err(), "bit {bit} passed the checksum");
            fix(&mut b);
            if let Ok(mut l) = load(&b, codec.then_some(&mut t), Allocator::default()) {
                accepted += 1;
                let again = save(&l, codec.then_some(&mut t));
                assert_eq!(records(&again, codec), records(&b, codec), "bit {bit}");
                l.free();
            }
        }
        assert!(accepted > 0, "key and value bytes can flip");
        m.free();
    }
}

// ---- crafted images -------------------------------------------------------------

fn maph(count: u64, values: u32) -> Vec<u8> {
    let mut b = count.to_le_bytes().to_vec();
    b.extend_from_slice(&values.to_le_bytes());
    b.extend_from_slice(&[0; 4]);
    b
}

fn record(key: &[u8], value: u64) -> Vec<u8> {
    let mut b = (key.len() as u32).to_le_bytes().to_vec();
    b.extend_from_slice(key);
    b.extend_from_slice(&value.to_le_bytes());
    b
}

fn crafted(count: u64, records: &[Vec<u8>]) -> Vec<u8> {
    build(
        KIND_MAP,
        &[(MAPH, maph(count, 1)), (MAPE, records.concat())],
    )
}

fn load_err(bytes: &[u8]) -> Option<i32> {
    reset(u64::MAX);
    let r = load(bytes, None, counting());
    let peak = super::PEAK.with(Cell::get) - LIVE.with(Cell::get);
    match r {
        Ok(mut m) => {
            m.free();
            None
        }
        Err(e) => {
            assert!(
                peak <= 4 * bytes.len() + 4096,
                "allocated {peak} for a rejected input"
            );
            Some(e)
        }
    }
}

#[test]
fn crafted_maps_are_rejected_in_order() {
    let corrupt = Some(Error::Corrupt as i32);
    let ok = crafted(2, &[record(b"a", 1), record(b"b", 2)]);
    assert_eq!(load_err(&ok), None);
    // A huge count in a tiny snapshot allocates nothing large.
    assert_eq!(load_err(&crafted(u64::MAX, &[record(b"a", 1)])), corrupt);
    assert_eq!(load_err(&crafted(1 << 40, &[record(b"a", 1)])), corrupt);
    assert_eq!(
        load_err(&crafted(3, &[record(b"a", 1), record(b"b", 2)])),
        corrupt
    );
    // Records must fill MAPE exactly.
    assert_eq!(
        load_err(&crafted(1, &[record(b"a", 1), record(b"b", 2)])),
        corrupt
    );
    // A key twice, as bytes or as an integer key's encoding.
    assert_eq!(
        load_err(&crafted(2, &[record(b"a", 1), record(b"a", 2)])),
        corrupt
    );
    let k = int_bytes(TAG_I64, 9);
    assert_eq!(
        load_err(&crafted(2, &[record(&k, 1), record(&k, 1)])),
        corrupt
    );
    // A key length past what remains.
    let mut over = record(b"abc", 1);
    over[0] = 200;
    assert_eq!(load_err(&crafted(1, &[over.clone(), vec![0; 4]])), corrupt);
    over[..4].copy_from_slice(&u32::MAX.to_le_bytes());
    assert_eq!(load_err(&crafted(1, &[over])), corrupt);
    // The header: its length, reserved word, value encoding.
    let body = (MAPE, record(b"a", 1));
    let mut long = maph(1, 1);
    long.push(0);
    for head in [long, maph(1, 0), maph(1, 3), {
        let mut r = maph(1, 1);
        r[12] = 1;
        r
    }] {
        let b = build(KIND_MAP, &[(MAPH, head), body.clone()]);
        assert_eq!(load_err(&b), corrupt);
    }
    // Sections: missing, twice, out of order, another kind's, unknown.
    let h = (MAPH, maph(1, 1));
    assert_eq!(
        load_err(&build(KIND_MAP, core::slice::from_ref(&h))),
        corrupt
    );
    assert_eq!(
        load_err(&build(KIND_MAP, &[body.clone(), h.clone()])),
        corrupt
    );
    assert_eq!(
        load_err(&build(KIND_MAP, &[h.clone(), body.clone(), body.clone()])),
        corrupt
    );
    assert_eq!(
        load_err(&build(KIND_MAP, &[h.clone(), body.clone(), (SLTS, vec![])])),
        corrupt
    );
    let unknown = build(KIND_MAP, &[h.clone(), body.clone(), (*b"ZZZZ", vec![])]);
    assert_eq!(load_err(&unknown), Some(Error::Unsupported as i32));
    let skipped = build(KIND_MAP, &[h.clone(), (*b"zzzz", vec![1]), body.clone()]);
    assert_eq!(load_err(&skipped), None);
    // Another kind of snapshot.
    let other = build(KIND_SPARSE, &[(SPSH, vec![0; 8]), (SPSK, vec![])]);
    assert_eq!(load_err(&other), Some(Error::Unsupported as i32));
    // Arguments.
    let mut d = Map::new(Allocator::default());
    assert_eq!(
        snap_map::load(&mut d, &[], None),
        Err(Error::Corrupt as i32)
    );
}

#[test]
fn integer_values_past_the_pointer_width_are_unsupported() {
    let b = crafted(1, &[record(b"a", u64::MAX)]);
    let want = if usize::BITS < 64 {
        Some(Error::Unsupported as i32)
    } else {
        None
    };
    assert_eq!(load_err(&b), want);
}

#[test]
fn codec_records_are_bounded_and_decode_may_reject() {
    let rec = |k: &[u8], v: &[u8]| {
        let mut b = (k.len() as u32).to_le_bytes().to_vec();
        b.extend_from_slice(k);
        b.extend_from_slice(&(v.len() as u32).to_le_bytes());
        b.extend_from_slice(v);
        b
    };
    let img =
        |count: u64, r: &[Vec<u8>]| build(KIND_MAP, &[(MAPH, maph(count, 2)), (MAPE, r.concat())]);
    let mut t = Table::default();
    let corrupt = Some(Error::Corrupt as i32);
    let try_load = |t: &mut Table, b: &[u8]| match load(b, Some(t), Allocator::default()) {
        Ok(mut m) => {
            m.free();
            None
        }
        Err(e) => Some(e),
    };
    assert_eq!(
        try_load(&mut t, &img(2, &[rec(b"a", b""), rec(b"b", b"xy")])),
        None
    );
    assert_eq!(
        try_load(&mut t, &img(u64::MAX / 8, &[rec(b"a", b"")])),
        corrupt
    );
    let mut over = rec(b"a", b"xyz");
    over[5..9].copy_from_slice(&9u32.to_le_bytes());
    assert_eq!(try_load(&mut t, &img(1, &[over])), corrupt);
    // A key twice: both values decoded, both discarded.
    t.discards = 0;
    let twice = img(3, &[rec(b"a", b"1"), rec(b"b", b"2"), rec(b"a", b"3")]);
    assert_eq!(try_load(&mut t, &twice), corrupt);
    assert_eq!(t.discards, 3);
    // `decode`'s non-zero return, at each call, is the load's.
    for at in 1..=3 {
        t.decodes = 0;
        t.discards = 0;
        t.fail_decode_at = Some(at);
        let ok = img(3, &[rec(b"a", b"1"), rec(b"b", b"2"), rec(b"c", b"3")]);
        assert_eq!(try_load(&mut t, &ok), Some(55));
        assert_eq!(t.discards, at - 1);
    }
}

// ---- failures ----------------------------------------------------------------------

#[test]
#[cfg_attr(miri, ignore = "long under Miri: make miri-snapshot")]
fn every_failed_allocation_leaves_the_destination_unchanged() {
    for codec in [false, true] {
        let mut t = Table::default();
        let mut m = state("mixed", codec.then_some(&mut t));
        let bytes = save(&m, codec.then_some(&mut t));
        reset(u64::MAX);
        let live = LIVE.with(Cell::get);
        let mut l = load(&bytes, codec.then_some(&mut t), counting()).unwrap();
        let allocs = super::ALLOCS.with(Cell::get);
        l.free();
        assert!(allocs > 2);
        for at in 1..=allocs {
            reset(at);
            t.discards = 0;
            t.decodes = 0;
            let r = load(&bytes, codec.then_some(&mut t), counting());
            assert_eq!(r.err(), Some(Error::Alloc as i32), "allocation {at}");
            assert_eq!(LIVE.with(Cell::get), live, "leak at {at}");
            assert_eq!(t.discards, if codec { t.decodes } else { 0 });
        }
        reset(u64::MAX);
        m.free();
    }
}

#[test]
fn a_codec_save_allocates_only_for_a_record_past_the_stage() {
    let mut t = Table::default();
    let mut m = Map::new(counting());
    let lengths = [0usize, 10, 300, 4086, 5000, BIG, 3];
    for (i, len) in lengths.into_iter().enumerate() {
        if i == 4 {
            // Records of up to 4 KiB (8 bytes, key, value): none.
            reset(u64::MAX);
            let small = save(&m, Some(&mut t));
            assert_eq!(super::ALLOCS.with(Cell::get), 0);
            let mut l = load(&small, Some(&mut t), Allocator::default()).unwrap();
            same(&m, &l, Some(&t));
            l.free();
        }
        let v = t.value(vec![i as u8; len]) as usize;
        set(&mut m, format!("v{i}").as_bytes(), v);
    }
    let live = LIVE.with(Cell::get);
    reset(u64::MAX);
    let bytes = save(&m, Some(&mut t));
    assert_eq!(LIVE.with(Cell::get), live, "the scratch buffer is freed");
    let n = super::ALLOCS.with(Cell::get);
    assert!(n >= 1, "each fails in turn below: ALLOC, nothing leaked");
    for at in 1..=n {
        reset(at);
        let mut out = vec![];
        // SAFETY: a live map nothing changes.
        let r = unsafe { snap_map::save(&m, dc(&mut t), &mut sink(&mut out)) };
        assert_eq!(r, Err(Error::Alloc as i32));
        assert_eq!(LIVE.with(Cell::get), live);
    }
    reset(u64::MAX);
    let mut l = load(&bytes, Some(&mut t), Allocator::default()).unwrap();
    same(&m, &l, Some(&t));
    l.free();
    m.free();
}

#[test]
#[cfg_attr(miri, ignore = "long under Miri: make miri-snapshot")]
fn a_save_stops_at_a_failing_or_changing_callback() {
    for codec in [false, true] {
        let mut t = Table::default();
        let mut m = state("mixed", codec.then_some(&mut t));
        m.delete(&Needle::bytes(&vec![0xab; BIG])).unwrap();
        let mut calls = 0;
        let mut count = |_: *const u8, _: usize| {
            calls += 1;
            0
        };
        // SAFETY: a live map.
        unsafe { snap_map::save(&m, if codec { dc(&mut t) } else { None }, &mut count) }.unwrap();
        for k in 1..=calls {
            let mut n = 0;
            let mut fail = |_: *const u8, _: usize| {
                n += 1;
                if n == k {
                    42
                } else {
                    0
                }
            };
            // SAFETY: as above.
            let r = unsafe { snap_map::save(&m, if codec { dc(&mut t) } else { None }, &mut fail) };
            assert_eq!(r, Err(42));
        }
        let p: *mut Map = &mut m;
        for k in 1..=calls {
            let mut n = 0;
            let mut change = |_: *const u8, _: usize| {
                n += 1;
                if n == k {
                    // SAFETY: the save reads the map through `p` only
                    // until it sees the change.
                    unsafe { (*p).set(&Needle::bytes(b"new"), core::ptr::null_mut()) }.unwrap();
                    // SAFETY: as above.
                    unsafe { (*p).delete(&Needle::bytes(b"new")) }.unwrap();
                }
                0
            };
            // SAFETY: a live map; the sink changes it through `p`.
            let r =
                unsafe { snap_map::save(p, if codec { dc(&mut t) } else { None }, &mut change) };
            assert_eq!(r, Err(Error::Invalid as i32), "at call {k}");
        }
        if codec {
            // SAFETY: `p` is the map.
            let len = unsafe { (*p).len() } as usize;
            // `encode` failing, or changing the map, at each call of the
            // size pass and of the save.
            for at in 1..=2 * len {
                t.encodes = 0;
                t.fail_encode_at = Some(at);
                let mut out = vec![];
                // SAFETY: as above.
                let r = unsafe { snap_map::save(p, dc(&mut t), &mut sink(&mut out)) };
                assert_eq!(r, Err(77), "encode {at}");
            }
            t.fail_encode_at = None;
            for at in 1..=2 * len {
                t.encodes = 0;
                t.change_at = Some((at, p));
                let mut out = vec![];
                // SAFETY: as above; `encode` changes the map through `p`.
                let r = unsafe { snap_map::save(p, dc(&mut t), &mut sink(&mut out)) };
                assert_eq!(r, Err(Error::Invalid as i32), "encode {at}");
                // SAFETY: as above.
                unsafe { (*p).delete(&Needle::bytes(b"changed")) }.unwrap();
            }
            t.change_at = None;
            t.encodes = 0;
            t.fail_encode_at = Some(1);
            // SAFETY: as above.
            assert_eq!(unsafe { snap_map::save_size(p, dc(&mut t)) }, Err(77));
            t.fail_encode_at = None;
        }
        m.free();
    }
}

#[test]
#[cfg_attr(miri, ignore = "long under Miri: make miri-snapshot")]
fn random_maps_round_trip() {
    let mut rng = Rng(12345);
    let mut model: HashMap<Vec<u8>, usize> = HashMap::new();
    let mut m = Map::new(Allocator::default());
    for round in 0..super::scale(40) {
        for _ in 0..rng.below(200) {
            let k: Vec<u8> = (0..rng.below(40)).map(|_| rng.below(4) as u8).collect();
            if rng.below(3) == 0 {
                if model.remove(&k).is_some() {
                    m.delete(&Needle::bytes(&k)).unwrap();
                }
            } else {
                let v = rng.next() as usize;
                model.insert(k.clone(), v);
                set(&mut m, &k, v);
            }
        }
        let bytes = save(&m, None);
        let mut l = load(&bytes, None, Allocator::default()).unwrap();
        assert_eq!(l.len() as usize, model.len(), "round {round}");
        for (k, &v) in &model {
            assert_eq!(
                l.get(&Needle::bytes(k)),
                Some(core::ptr::without_provenance_mut(v))
            );
        }
        l.free();
    }
    m.free();
}
