//! Unit tests of snapshots: round trips across slotmap and set states,
//! every truncation, every single-bit flip, crafted inputs, failed
//! allocations and writes.

use core::ffi::c_void;
use std::alloc::{alloc, dealloc, Layout};
use std::cell::Cell;

use super::envelope::*;
use super::info::info;
use super::{slotmap as snap_sm, sparse as snap_sp};
use crate::alloc::Allocator;
use crate::guard::Bare;
use crate::slotmap::SlotMap;
use crate::sparse::Sparse;
use crate::Error;

const NONE: u32 = u32::MAX;
const TOP: u32 = u32::MAX;

/// How many calls after a load a round trip compares (SPEC §6c: the
/// loaded copy behaves as the original under every later sequence).
fn future_steps() -> usize {
    if cfg!(miri) {
        300
    } else {
        100_000
    }
}

/// Smaller workloads under Miri.
fn scale(n: usize) -> usize {
    if cfg!(miri) {
        (n / 10).max(2)
    } else {
        n
    }
}

// ---- a counting allocator ---------------------------------------------------

thread_local! {
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
    static FAIL_AT: Cell<u64> = const { Cell::new(u64::MAX) };
}

unsafe extern "C" fn count_alloc(_: *mut c_void, size: usize) -> *mut c_void {
    let n = ALLOCS.with(|a| {
        a.set(a.get() + 1);
        a.get()
    });
    if n == FAIL_AT.with(Cell::get) {
        return core::ptr::null_mut();
    }
    LIVE.with(|l| l.set(l.get() + size));
    PEAK.with(|p| p.set(p.get().max(LIVE.with(Cell::get))));
    // SAFETY: a non-zero size (the allocator asks for at least 1).
    unsafe { alloc(Layout::from_size_align(size, 16).unwrap()).cast() }
}

unsafe extern "C" fn count_release(_: *mut c_void, p: *mut c_void, size: usize) {
    LIVE.with(|l| l.set(l.get() - size));
    // SAFETY: allocated by `count_alloc` with this size.
    unsafe { dealloc(p.cast(), Layout::from_size_align(size, 16).unwrap()) }
}

fn counting() -> Allocator {
    Allocator::own(
        Some(count_alloc),
        Some(count_release),
        core::ptr::null_mut(),
    )
    .unwrap()
}

/// Resets the counters; the `fail_at`-th allocation from now fails.
fn reset(fail_at: u64) {
    ALLOCS.with(|a| a.set(0));
    PEAK.with(|p| p.set(LIVE.with(Cell::get)));
    FAIL_AT.with(|f| f.set(fail_at));
}

// ---- helpers ------------------------------------------------------------------

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn row_size(m: &SlotMap) -> usize {
    m.sizes_of().iter().map(|&s| s as usize).sum()
}

fn insert(m: &mut SlotMap, tag: u64) -> Result<u64, Error> {
    let row: Vec<u8> = (0..row_size(m))
        .map(|i| (tag.wrapping_mul(31).wrapping_add(i as u64) % 251) as u8)
        .collect();
    // SAFETY: a row of the slotmap's size.
    unsafe { m.insert(row.as_ptr()) }
}

fn save_sm(m: &SlotMap) -> Vec<u8> {
    let mut out = Vec::new();
    let mut sink = |p: *const u8, n: usize| {
        assert!(n > 0);
        // SAFETY: the writer hands out `n` readable bytes.
        out.extend_from_slice(unsafe { core::slice::from_raw_parts(p, n) });
        0
    };
    // SAFETY: a live slotmap the sink does not touch.
    unsafe { snap_sm::save(m, &mut sink) }.unwrap();
    assert_eq!(out.len() as u64, snap_sm::save_size(m));
    out
}

fn save_sp(s: &Sparse) -> Vec<u8> {
    let mut out = Vec::new();
    let mut sink = |p: *const u8, n: usize| {
        // SAFETY: the writer hands out `n` readable bytes.
        out.extend_from_slice(unsafe { core::slice::from_raw_parts(p, n) });
        0
    };
    // SAFETY: a live set the sink does not touch.
    unsafe { snap_sp::save(s, &mut sink) }.unwrap();
    assert_eq!(out.len() as u64, snap_sp::save_size(s));
    out
}

/// Everything a slotmap's snapshot holds, compared.
fn same_state(a: &SlotMap, b: &SlotMap) {
    assert_eq!(a.head(), b.head());
    assert_eq!(a.slot_pairs(), b.slot_pairs());
    for c in 0..a.sizes_of().len() {
        assert_eq!(a.column_bytes(c), b.column_bytes(c));
    }
}

/// Runs the same random calls on both and compares every result.
fn same_future(a: &mut SlotMap, b: &mut SlotMap, issued: &mut Vec<u64>, steps: usize, seed: u64) {
    let mut rng = Rng(seed | 1);
    for k in issued.iter() {
        assert_eq!(a.row_of(*k), b.row_of(*k));
    }
    for step in 0..steps {
        let x = rng.below(1000);
        if x < 550 || issued.is_empty() {
            let (ra, rb) = (insert(a, step as u64), insert(b, step as u64));
            assert_eq!(ra, rb);
            if let Ok(k) = ra {
                issued.push(k);
            }
        } else if x < 990 {
            let k = issued[rng.below(issued.len())];
            assert_eq!(a.erase(k), b.erase(k));
        } else if x < 997 {
            a.clear();
            b.clear();
        } else {
            a.free();
            b.free();
        }
        assert_eq!(a.len(), b.len());
    }
    a.check().unwrap();
    b.check().unwrap();
    same_state(a, b);
    for k in issued.iter() {
        assert_eq!(a.row_of(*k), b.row_of(*k));
    }
}

/// Sets `total` and the checksum to match the bytes.
fn fix(bytes: &mut [u8]) {
    let n = bytes.len();
    bytes[16..24].copy_from_slice(&(n as u64).to_le_bytes());
    let sum = xxhash_rust::xxh3::xxh3_64(&bytes[..n - 8]);
    bytes[n - 8..].copy_from_slice(&sum.to_le_bytes());
}

/// A snapshot of `kind` holding `sections`, with a right envelope.
fn build(kind: u32, sections: &[(Tag, Vec<u8>)]) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(&MAGIC);
    b.extend_from_slice(&1u16.to_le_bytes());
    b.extend_from_slice(&0u16.to_le_bytes());
    b.extend_from_slice(&kind.to_le_bytes());
    b.extend_from_slice(&[0; 8]);
    b.extend_from_slice(&0u32.to_le_bytes());
    b.extend_from_slice(&writer_notes().to_le_bytes());
    for (tag, payload) in sections {
        b.extend_from_slice(tag);
        b.extend_from_slice(&[0; 4]);
        b.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        b.extend_from_slice(payload);
        b.resize(b.len().div_ceil(16) * 16, 0);
    }
    b.extend_from_slice(&[0; 8]);
    fix(&mut b);
    b
}

/// The sections of a snapshot, as `build` takes them.
fn split(bytes: &[u8]) -> Vec<(Tag, Vec<u8>)> {
    let mut out = vec![];
    let mut at = HEADER;
    while at < bytes.len() - TRAILER {
        let tag = [bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]];
        let len = u64::from_le_bytes(bytes[at + 8..at + 16].try_into().unwrap()) as usize;
        out.push((tag, bytes[at + 16..at + 16 + len].to_vec()));
        at += 16 + len.div_ceil(16) * 16;
    }
    out
}

fn words(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn fresh(sizes: &[u32]) -> SlotMap {
    SlotMap::new(sizes, Allocator::default()).unwrap()
}

/// Loads into a fresh slotmap of `sizes`; on failure checks that the
/// destination is as it was.
fn load_sm(sizes: &[u32], bytes: &[u8]) -> Result<SlotMap, Error> {
    let mut m = fresh(sizes);
    let before = m.head();
    match snap_sm::load(&mut m, bytes) {
        Ok(()) => {
            m.check().unwrap();
            Ok(m)
        }
        Err(e) => {
            assert_eq!(m.head(), before);
            assert!(m.never_issued());
            Err(e)
        }
    }
}

/// `load_sm`'s error, freeing what it loaded.
fn load_err(sizes: &[u32], bytes: &[u8]) -> Option<Error> {
    match load_sm(sizes, bytes) {
        Ok(mut m) => {
            m.free();
            None
        }
        Err(e) => Some(e),
    }
}

// ---- slotmap states -----------------------------------------------------------

/// A slotmap in a named state, and every key it issued.
fn state(name: &str, sizes: &[u32]) -> (SlotMap, Vec<u64>) {
    let mut m = fresh(sizes);
    let mut keys = vec![];
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let put = |m: &mut SlotMap, keys: &mut Vec<u64>, n: usize| {
        for _ in 0..n {
            if let Ok(k) = insert(m, keys.len() as u64) {
                keys.push(k);
            }
        }
    };
    let mut erase_some = |m: &mut SlotMap, keys: &[u64], n: usize| {
        for _ in 0..n {
            let _ = m.erase(keys[rng.below(keys.len())]);
        }
    };
    match name {
        "fresh" => {}
        "one" => put(&mut m, &mut keys, 1),
        "filled" => put(&mut m, &mut keys, scale(100)),
        "churn" => {
            put(&mut m, &mut keys, scale(300));
            let all = keys.clone();
            for &k in &all[..all.len() * 4 / 5] {
                m.erase(k).unwrap();
            }
            put(&mut m, &mut keys, 3);
        }
        "churn_no_free" => {
            put(&mut m, &mut keys, scale(50));
            erase_some(&mut m, &keys.clone(), scale(20));
            let free = m.head().free_len as usize;
            put(&mut m, &mut keys, free);
        }
        "cleared" => {
            put(&mut m, &mut keys, scale(50));
            m.clear();
        }
        "freed" => {
            put(&mut m, &mut keys, scale(50));
            erase_some(&mut m, &keys.clone(), 5);
            m.free();
            put(&mut m, &mut keys, scale(10));
        }
        "freed_empty" => {
            put(&mut m, &mut keys, 5);
            m.free();
        }
        "sorted" => {
            put(&mut m, &mut keys, scale(60));
            erase_some(&mut m, &keys.clone(), 10);
            // SAFETY: a live slotmap; the comparator reads column 0's
            // elements, at least a byte each.
            unsafe { SlotMap::sort::<Bare>(&mut m, |a, b| *a > *b) }.unwrap();
        }
        "retired" => {
            m.start_versions_at(TOP - 12);
            put(&mut m, &mut keys, 3);
            for _ in 0..10 {
                put(&mut m, &mut keys, 1);
                let k = *keys.last().unwrap();
                m.erase(k).unwrap();
            }
            put(&mut m, &mut keys, 2);
        }
        "below" => {
            m.start_versions_at(TOP - 8);
            put(&mut m, &mut keys, 2);
            for _ in 0..6 {
                put(&mut m, &mut keys, 1);
                m.erase(*keys.last().unwrap()).unwrap();
            }
            m.free();
            put(&mut m, &mut keys, 4);
            m.erase(keys[keys.len() - 2]).unwrap();
        }
        "exhausted" => {
            m.start_versions_at(TOP - 2);
            for _ in 0..3 {
                put(&mut m, &mut keys, 1);
                m.free();
            }
        }
        "limit" => {
            m.set_limit(scale(40) as u32).unwrap();
            put(&mut m, &mut keys, scale(40));
            assert_eq!(insert(&mut m, 0), Err(Error::Full));
        }
        _ => unreachable!("{name}"),
    }
    m.check().unwrap();
    (m, keys)
}

const STATES: &[&str] = &[
    "fresh",
    "one",
    "filled",
    "churn",
    "churn_no_free",
    "cleared",
    "freed",
    "freed_empty",
    "sorted",
    "retired",
    "below",
    "exhausted",
    "limit",
];

const LAYOUTS: &[&[u32]] = &[&[8], &[1, 3, 16, 255]];

#[test]
#[cfg_attr(miri, ignore = "long under Miri: make miri-snapshot")]
fn slotmap_round_trips_in_every_state() {
    // Under Miri, the layout of several columns only.
    let layouts = if cfg!(miri) { &LAYOUTS[1..] } else { LAYOUTS };
    for &sizes in layouts {
        for &name in STATES {
            let (mut m, mut keys) = state(name, sizes);
            let bytes = save_sm(&m);
            assert_eq!(save_sm(&m), bytes, "{name}: saving twice");
            let mut l = load_sm(sizes, &bytes).unwrap_or_else(|e| panic!("{name}: {e:?}"));
            same_state(&m, &l);
            assert_eq!(save_sm(&l), bytes, "{name}: re-save");
            let i = info(&bytes).unwrap();
            assert_eq!(
                (i.kind, i.count, i.slots, i.columns, i.length),
                (
                    2,
                    m.len() as u64,
                    m.head().slots,
                    sizes.len() as u32,
                    bytes.len() as u64
                )
            );
            if name == "limit" {
                l.set_limit(m.limit()).unwrap();
            }
            same_future(&mut m, &mut l, &mut keys, future_steps(), name.len() as u64);
            m.free();
            l.free();
        }
    }
}

#[test]
fn the_checker_sees_each_version_state() {
    // The states above reach each kind of era; their version fields.
    let v = |name| {
        let (mut m, _) = state(name, &[8]);
        let v = m.head().versions;
        m.free();
        v
    };
    assert_eq!(v("fresh")[3], 0, "first era");
    let freed = v("freed");
    assert!(freed[3] != 0 && freed[1] == TOP - 1, "an era above");
    let below = v("below");
    assert_eq!((below[0], below[2]), (1, 1), "an era below");
    let exhausted = v("exhausted");
    assert_eq!((exhausted[0], exhausted[1]), (0, 0), "none left");
    assert_eq!(v("retired")[4], 1, "a slot retired");
}

#[test]
fn a_load_needs_a_slotmap_that_never_issued_a_key() {
    let (m, _) = state("filled", &[8]);
    let bytes = save_sm(&m);
    let mut used = fresh(&[8]);
    let k = insert(&mut used, 1).unwrap();
    used.erase(k).unwrap();
    assert_eq!(snap_sm::load(&mut used, &bytes), Err(Error::Invalid));
    used.free();
    assert_eq!(snap_sm::load(&mut used, &bytes), Err(Error::Invalid));
    // Reserved and limited, but unused: a destination; both are kept.
    let mut d = fresh(&[8]);
    d.set_limit(1000).unwrap();
    d.reserve(500).unwrap();
    snap_sm::load(&mut d, &bytes).unwrap();
    assert_eq!(d.limit(), 1000);
    d.check().unwrap();
    for _ in m.len()..500 {
        insert(&mut d, 0).unwrap();
    }
    // Too small a limit: Full; another layout: Unsupported.
    let mut small = fresh(&[8]);
    small.set_limit(m.len() - 1).unwrap();
    assert_eq!(snap_sm::load(&mut small, &bytes), Err(Error::Full));
    assert_eq!(load_err(&[4], &bytes), Some(Error::Unsupported));
    assert_eq!(load_err(&[8, 8], &bytes), Some(Error::Unsupported));
    let (mut m, _) = (m, ());
    m.free();
    d.free();
}

#[test]
#[cfg_attr(miri, ignore = "long under Miri: make miri-snapshot")]
fn every_truncation_is_corrupt() {
    for &name in &["fresh", "churn", "retired", "sorted"] {
        let (mut m, _) = state(name, &[4, 3]);
        let bytes = save_sm(&m);
        m.free();
        if bytes.len() > 4096 {
            continue;
        }
        let step = if cfg!(miri) { 7 } else { 1 };
        for n in (0..bytes.len()).step_by(step) {
            assert_eq!(
                load_err(&[4, 3], &bytes[..n]),
                Some(Error::Corrupt),
                "{name} {n}"
            );
            if n >= SMALLEST {
                assert!(info(&bytes[..n]).is_err());
            }
        }
    }
}

/// The bytes a re-save gives for an accepted image: the writer's minor
/// version and notes, a new checksum.
fn as_rewritten(bytes: &[u8]) -> Vec<u8> {
    let mut b = bytes.to_vec();
    b[10..12].copy_from_slice(&MINOR.to_le_bytes());
    b[28..32].copy_from_slice(&writer_notes().to_le_bytes());
    fix(&mut b);
    b
}

#[test]
#[cfg_attr(miri, ignore = "long under Miri: make miri-snapshot")]
fn every_bit_flip_is_rejected_or_loads_a_checked_state() {
    let (mut m, _) = state("retired", &[2]);
    // A little churn so the image has vacant, occupied and retired slots.
    let k = insert(&mut m, 7).unwrap();
    m.erase(k).unwrap();
    let bytes = save_sm(&m);
    let step = if cfg!(miri) { 13 } else { 1 };
    let mut accepted = 0;
    for bit in (0..bytes.len() * 8).step_by(step) {
        let mut b = bytes.clone();
        b[bit / 8] ^= 1 << (bit % 8);
        assert!(
            load_err(&[2], &b).is_some(),
            "bit {bit} passed the checksum"
        );
        fix(&mut b);
        if let Ok(mut l) = load_sm(&[2], &b) {
            accepted += 1;
            assert_eq!(save_sm(&l), as_rewritten(&b), "bit {bit}");
            l.free();
        }
    }
    assert!(accepted > 0, "row bytes and free versions can flip");
    m.free();
}

#[test]
#[cfg_attr(miri, ignore = "long under Miri: make miri-snapshot")]
fn every_bit_flip_of_a_set_is_rejected_or_loads_a_checked_set() {
    let (mut s, _) = set_state("columns");
    let bytes = save_sp(&s);
    let sizes = s.sizes().to_vec();
    s.free();
    let step = if cfg!(miri) { 13 } else { 1 };
    for bit in (0..bytes.len() * 8).step_by(step) {
        let mut b = bytes.clone();
        b[bit / 8] ^= 1 << (bit % 8);
        fix(&mut b);
        let mut d = Sparse::new(&sizes, Allocator::default()).unwrap();
        if snap_sp::load(&mut d, &b).is_ok() {
            d.check().unwrap();
            assert_eq!(save_sp(&d), as_rewritten(&b), "bit {bit}");
        } else {
            assert!(d.holds_nothing());
        }
        d.free();
    }
}

// ---- crafted slotmap images ----------------------------------------------------

mod crafted;
use crafted::set_state;
mod map;
