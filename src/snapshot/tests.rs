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
use crate::map::Bare;
use crate::slotmap::SlotMap;
use crate::sparse::Sparse;
use crate::Error;

const NONE: u32 = u32::MAX;
const TOP: u32 = u32::MAX;

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
fn slotmap_round_trips_in_every_state() {
    for &sizes in LAYOUTS {
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
            same_future(&mut m, &mut l, &mut keys, scale(3000), name.len() as u64);
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

/// The sections of a one-column slotmap of 8-byte rows: `slots` as
/// (version, link) pairs, versions of a first era starting at 11.
fn crafted(len: u32, slots: &[(u32, u32)], free: (u32, u32), versions: [u32; 5]) -> Vec<u8> {
    let mut h = vec![1, len, slots.len() as u32, free.0, free.1];
    h.extend_from_slice(&versions);
    h.extend_from_slice(&[0, 8]);
    let s: Vec<u32> = slots.iter().flat_map(|&(v, l)| [v, l]).collect();
    build(
        KIND_SLOTMAP,
        &[
            (SLTH, words(&h)),
            (SLTS, words(&s)),
            (SLTC, (0..len as u8 * 8).collect()),
        ],
    )
}

const FIRST: [u32; 5] = [11, TOP - 1, 11, 0, 0];

fn crafted_err(len: u32, slots: &[(u32, u32)], free: (u32, u32), versions: [u32; 5]) -> Error {
    load_err(&[8], &crafted(len, slots, free, versions)).unwrap_or(Error::NotFound)
}

#[test]
fn crafted_slot_arrays() {
    // The well-formed one: row 0 in slot 0; slots 1 -> 2 free.
    let good = [(11, 0), (12, 2), (14, NONE)];
    let mut m = load_sm(&[8], &crafted(1, &good, (1, 2), FIRST)).unwrap();
    assert_eq!(m.row_of(11 << 32), Some(0));
    assert_eq!(
        insert(&mut m, 0).unwrap(),
        13 << 32 | 1,
        "the free list's head first"
    );
    m.free();
    let c = Error::Corrupt;
    // A cycle, a skipped vacant slot, a link to an occupied slot.
    assert_eq!(
        crafted_err(1, &[(11, 0), (12, 2), (14, 1)], (1, 2), FIRST),
        c
    );
    assert_eq!(
        crafted_err(1, &[(11, 0), (12, NONE), (14, NONE)], (1, 1), FIRST),
        c
    );
    assert_eq!(
        crafted_err(1, &[(11, 0), (12, 0), (14, NONE)], (1, 2), FIRST),
        c
    );
    assert_eq!(crafted_err(1, &good, (1, 3), FIRST), c);
    assert_eq!(crafted_err(1, &good, (2, 2), FIRST), c);
    assert_eq!(crafted_err(1, &good, (NONE, 0), FIRST), c);
    // A vacant link beyond the index.
    assert_eq!(
        crafted_err(1, &[(11, 0), (12, 2), (14, 3)], (1, 2), FIRST),
        c
    );
    // Two rows naming one slot; a slot naming no row; an odd version
    // on a slot of the free list.
    assert_eq!(
        crafted_err(2, &[(11, 0), (13, 0), (14, NONE)], (2, 1), FIRST),
        c
    );
    assert_eq!(
        crafted_err(1, &[(11, 0), (13, 1), (14, NONE)], (2, 1), FIRST),
        c
    );
    assert_eq!(
        crafted_err(1, &[(11, 0), (12, 2), (15, NONE)], (1, 2), FIRST),
        c
    );
    // Retired slots: with a link; `retired` not saying so, or saying so
    // with none retired.
    let retired = [11, TOP - 1, 11, 0, 1];
    assert_eq!(
        load_err(
            &[8],
            &crafted(1, &[(11, 0), (12, NONE), (0, NONE)], (1, 1), retired)
        ),
        None
    );
    assert_eq!(
        crafted_err(1, &[(11, 0), (12, NONE), (0, 1)], (1, 1), retired),
        c
    );
    assert_eq!(
        crafted_err(1, &[(11, 0), (12, NONE), (0, NONE)], (1, 1), FIRST),
        c
    );
    assert_eq!(crafted_err(1, &good, (1, 2), retired), c);
    // Versions outside the era.
    assert_eq!(
        crafted_err(1, &[(9, 0), (12, 2), (14, NONE)], (1, 2), FIRST),
        c
    );
    assert_eq!(
        crafted_err(1, &[(11, 0), (10, 2), (14, NONE)], (1, 2), FIRST),
        c
    );
    // More rows than slots, a row beyond the rows.
    assert_eq!(crafted_err(4, &good, (1, 2), FIRST), c);
    assert_eq!(
        crafted_err(1, &[(11, 1), (12, 2), (14, NONE)], (1, 2), FIRST),
        c
    );
}

#[test]
fn crafted_version_states() {
    let c = Error::Corrupt;
    let empty = |v| load_err(&[8], &crafted(0, &[], (NONE, 0), v));
    // Reachable: each kind of era, and none left.
    for v in [
        FIRST,
        [TOP, TOP - 1, TOP, 0, 0],
        [101, TOP - 1, 11, 100, 0],
        [101, TOP - 1, 11, 99, 0],
        [1, 8, 1, TOP, 0],
        [1, 0, 1, TOP - 1, 0],
        [0, 0, 1, TOP, 0],
        [0, 0, 1, TOP - 1, 0],
    ] {
        assert_eq!(empty(v), None, "{v:?}");
    }
    for v in [
        [12, TOP - 1, 12, 0, 0],     // even
        [13, TOP - 1, 11, 0, 0],     // first era: next is lowest
        [11, TOP - 3, 11, 0, 0],     // first era's retire_at
        [11, TOP - 1, 11, 0, 2],     // retired neither 0 nor 1
        [103, TOP - 1, 11, 100, 0],  // next is not above highest
        [101, TOP - 1, 11, 7, 0],    // highest below lowest
        [1, 7, 1, TOP, 0],           // odd retire_at
        [1, TOP - 2, 1, TOP - 1, 0], // retire_at above highest - 3
        [3, 8, 1, TOP, 0],           // next below is 1
        [1, 8, 1, TOP - 2, 0],       // highest below the top
        [0, 2, 1, TOP, 0],           // none left: retire_at 0
        [0, 0, 3, TOP, 0],           // none left: lowest 1
        [0, 0, 1, TOP - 2, 0],       // none left: highest at the top
    ] {
        assert_eq!(empty(v), Some(c), "{v:?}");
    }
    // None left and slots: no slot can exist.
    assert_eq!(crafted_err(0, &[(2, NONE)], (0, 1), [0, 0, 1, TOP, 0]), c);
}

#[test]
fn crafted_envelopes() {
    let good = crafted(1, &[(11, 0), (12, 2), (14, NONE)], (1, 2), FIRST);
    assert_eq!(load_err(&[8], &good), None);
    let with = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut b = good.clone();
        f(&mut b);
        fix(&mut b);
        load_err(&[8], &b)
    };
    let (c, u) = (Some(Error::Corrupt), Some(Error::Unsupported));
    assert_eq!(with(&|b| b[0] = 0x88), c, "magic");
    assert_eq!(with(&|b| b[8] = 2), u, "major 2");
    assert_eq!(with(&|b| b[8] = 0), c, "major 0");
    assert_eq!(with(&|b| b[10] = 7), None, "any minor");
    assert_eq!(with(&|b| b[12] = 3), u, "another kind");
    assert_eq!(with(&|b| b[12] = 9), u, "an unknown kind");
    assert_eq!(with(&|b| b[24] = 1), u, "a required feature");
    assert_eq!(with(&|b| b[28] = 4), c, "an undefined note");
    assert_eq!(with(&|b| b[36] = 1), c, "a section's reserved word");
    assert_eq!(with(&|b| b[32] = b'1'), c, "a tag that is no letter");
    // Padding after the 8-byte column.
    let last_pad = good.len() - TRAILER - 1;
    assert_eq!(with(&|b| b[last_pad] = 1), c, "padding");
    // The total length: one byte more, or one less, than the buffer.
    let mut longer = good.clone();
    longer.push(0);
    assert_eq!(load_err(&[8], &longer), c);
    let mut b = good.clone();
    b[16] += 1;
    let n = b.len();
    let sum = xxhash_rust::xxh3::xxh3_64(&b[..n - 8]);
    b[n - 8..].copy_from_slice(&sum.to_le_bytes());
    assert_eq!(load_err(&[8], &b), c);
    // Sections: unknown critical, unknown ancillary, another kind's,
    // twice, missing, out of order, reserved word in SLTH.
    let s = split(&good);
    let mut extra = s.clone();
    extra.insert(1, (*b"XTRA", vec![1, 2, 3]));
    assert_eq!(load_err(&[8], &build(2, &extra)), u);
    extra[1].0 = *b"xtra";
    extra.push((*b"zzzz", vec![]));
    let mut l = load_sm(&[8], &build(2, &extra)).unwrap();
    assert_eq!(
        save_sm(&l),
        good,
        "ancillary sections are skipped, not kept"
    );
    l.free();
    let mut other = s.clone();
    other[1].0 = SPSK;
    assert_eq!(load_err(&[8], &build(2, &other)), c);
    let mut twice = s.clone();
    twice.push(s[2].clone());
    assert_eq!(load_err(&[8], &build(2, &twice)), c);
    assert_eq!(load_err(&[8], &build(2, &s[..2])), c);
    let swapped = vec![s[1].clone(), s[0].clone(), s[2].clone()];
    assert_eq!(load_err(&[8], &build(2, &swapped)), c);
    let mut reserved = s.clone();
    reserved[0].1[40] = 1;
    assert_eq!(load_err(&[8], &build(2, &reserved)), c);
    let mut columns = s.clone();
    columns[0].1[0] = 17;
    assert_eq!(load_err(&[8], &build(2, &columns)), c);
}

#[test]
fn huge_counts_in_a_tiny_snapshot_allocate_nothing_large() {
    for (len, slots) in [(TOP - 1, TOP - 1), (0, TOP - 1), (1000, 1000)] {
        let mut h = vec![1, len, slots, NONE, 0];
        h.extend_from_slice(&FIRST);
        h.extend_from_slice(&[0, 8]);
        let bytes = build(KIND_SLOTMAP, &[(SLTH, words(&h)), (SLTS, vec![0; 16])]);
        assert!(bytes.len() < 200);
        let mut m = SlotMap::new(&[8], counting()).unwrap();
        reset(u64::MAX);
        assert_eq!(snap_sm::load(&mut m, &bytes), Err(Error::Corrupt));
        assert_eq!(ALLOCS.with(Cell::get), 0);
    }
    // A set claiming 2^32 - 2 keys.
    let bytes = build(
        KIND_SPARSE,
        &[(SPSH, words(&[0, TOP - 1])), (SPSK, vec![1; 16])],
    );
    let mut s = Sparse::new(&[], counting()).unwrap();
    reset(u64::MAX);
    assert_eq!(snap_sp::load(&mut s, &bytes), Err(Error::Corrupt));
    assert_eq!(ALLOCS.with(Cell::get), 0);
}

#[test]
fn every_failed_allocation_changes_nothing() {
    for name in ["filled", "churn"] {
        let (mut m, _) = state(name, &[8, 4]);
        let bytes = save_sm(&m);
        let mut d = SlotMap::new(&[8, 4], counting()).unwrap();
        d.reserve(3).unwrap();
        let held = LIVE.with(Cell::get);
        reset(u64::MAX);
        let mut ok = SlotMap::new(&[8, 4], counting()).unwrap();
        snap_sm::load(&mut ok, &bytes).unwrap();
        let n = ALLOCS.with(Cell::get);
        ok.free();
        for k in 1..=n {
            reset(k);
            let before = d.head();
            assert_eq!(snap_sm::load(&mut d, &bytes), Err(Error::Alloc));
            assert_eq!(d.head(), before);
            assert_eq!(LIVE.with(Cell::get), held, "leaked at allocation {k}");
        }
        reset(u64::MAX);
        snap_sm::load(&mut d, &bytes).unwrap();
        same_state(&m, &d);
        d.free();
        m.free();
    }
    let (mut s, _) = set_state("columns");
    let bytes = save_sp(&s);
    let sizes = s.sizes().to_vec();
    s.free();
    let mut k = 1;
    loop {
        let mut d = Sparse::new(&sizes, counting()).unwrap();
        reset(k);
        let r = snap_sp::load(&mut d, &bytes);
        if r.is_ok() {
            d.free();
            break;
        }
        assert_eq!(r, Err(Error::Alloc));
        assert_eq!(LIVE.with(Cell::get), 0, "leaked at allocation {k}");
        k += 1;
    }
    FAIL_AT.with(|f| f.set(u64::MAX));
}

#[test]
fn a_save_stops_at_a_failed_write_or_a_change() {
    let (mut m, keys) = state("churn", &[8]);
    let mut calls = 0;
    let mut count = |_: *const u8, _: usize| {
        calls += 1;
        0
    };
    // SAFETY: a live slotmap.
    unsafe { snap_sm::save(&m, &mut count) }.unwrap();
    assert!(calls >= 2);
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
        assert_eq!(unsafe { snap_sm::save(&m, &mut fail) }, Err(42));
    }
    // A change from `write`, at each call, the last one too.
    let live = *keys.iter().find(|&&k| m.row_of(k).is_some()).unwrap();
    for k in 1..=calls {
        let p: *mut SlotMap = &mut m;
        let key = insert(
            // SAFETY: `p` is the slotmap, not borrowed elsewhere now.
            unsafe { &mut *p },
            0,
        )
        .unwrap();
        let mut n = 0;
        let mut change = |_: *const u8, _: usize| {
            n += 1;
            if n == k {
                // SAFETY: the save reads the slotmap through `p` only
                // until it sees the change.
                unsafe { (*p).erase(key).unwrap() };
            }
            0
        };
        // SAFETY: a live slotmap; the sink changes it through `p`.
        let r = unsafe { snap_sm::save(p, &mut change) };
        assert_eq!(r, Err(Error::Invalid as i32), "at call {k}");
    }
    assert!(m.row_of(live).is_some());
    m.free();
}

// ---- sparse sets ----------------------------------------------------------------

fn set_state(name: &str) -> (Sparse, Vec<u64>) {
    let sizes: &[u32] = match name {
        "membership" | "high" => &[],
        _ => &[4, 12],
    };
    let mut s = Sparse::new(sizes, Allocator::default()).unwrap();
    let mut keys = vec![];
    let mut rng = Rng(77);
    let row = [0x5Au8; 16];
    let n = scale(200) as u64;
    for i in 0..n {
        let key = match name {
            "high" => (3 << 32) | (0x7FFF_FFF0 + i * 977 % 0x1_0000),
            _ => ((2 * i + 1) << 32) | (i * 7 % 1000),
        };
        let mut r = row;
        r[0] = i as u8;
        // SAFETY: a row of the set's size (16 bytes suffice).
        unsafe { s.set(None, key, r.as_ptr()) }.unwrap();
        keys.push(key);
    }
    if name != "fresh" {
        for _ in 0..n / 3 {
            let _ = s.erase(keys[rng.below(keys.len())]);
        }
    } else {
        s.free();
    }
    if name == "sorted" {
        // SAFETY: a live set with a column; the comparator reads column
        // 0's elements, at least a byte each.
        unsafe { Sparse::sort::<Bare>(&mut s, |a, b| *a < *b) }.unwrap();
    }
    s.check().unwrap();
    (s, keys)
}

#[test]
fn sets_round_trip() {
    for name in ["fresh", "columns", "membership", "high", "sorted"] {
        let (mut s, keys) = set_state(name);
        let bytes = save_sp(&s);
        let mut d = Sparse::new(s.sizes(), Allocator::default()).unwrap();
        snap_sp::load(&mut d, &bytes).unwrap();
        d.check().unwrap();
        assert_eq!(s.keys(), d.keys());
        for c in 0..s.sizes().len() {
            assert_eq!(s.column_bytes(c), d.column_bytes(c));
        }
        for &k in &keys {
            assert_eq!(s.row_of(k), d.row_of(k));
        }
        assert_eq!(save_sp(&d), bytes);
        let i = info(&bytes).unwrap();
        assert_eq!(
            (i.kind, i.count, i.columns),
            (3, s.len() as u64, s.sizes().len() as u32)
        );
        // Not a destination once it holds memory.
        if d.len() > 0 {
            assert_eq!(snap_sp::load(&mut d, &bytes), Err(Error::Invalid));
        }
        // Another layout.
        let mut other = Sparse::new(&[4], Allocator::default()).unwrap();
        assert_eq!(snap_sp::load(&mut other, &bytes), Err(Error::Unsupported));
        for n in (0..bytes.len().min(4096)).step_by(if cfg!(miri) { 11 } else { 1 }) {
            let mut t = Sparse::new(s.sizes(), Allocator::default()).unwrap();
            assert_eq!(snap_sp::load(&mut t, &bytes[..n]), Err(Error::Corrupt));
        }
        s.free();
        d.free();
    }
}

#[test]
fn crafted_sets() {
    let load = |keys: &[u64]| {
        let k: Vec<u8> = keys.iter().flat_map(|k| k.to_le_bytes()).collect();
        let b = build(
            KIND_SPARSE,
            &[(SPSH, words(&[0, keys.len() as u32])), (SPSK, k)],
        );
        let mut s = Sparse::new(&[], counting()).unwrap();
        reset(u64::MAX);
        let r = snap_sp::load(&mut s, &b);
        if r.is_err() {
            assert_eq!(LIVE.with(Cell::get), 0);
        }
        s.free();
        r
    };
    assert_eq!(load(&[1 << 32 | 5, 3 << 32 | 9]), Ok(()));
    assert_eq!(load(&[1 << 32 | 5, 0]), Err(Error::Corrupt), "key 0");
    assert_eq!(
        load(&[1 << 32 | 5, 3 << 32 | 5]),
        Err(Error::Corrupt),
        "one slot twice"
    );
    assert_eq!(
        load(&[7 << 32 | 5, 7 << 32 | 5]),
        Err(Error::Corrupt),
        "one key twice"
    );
}

#[test]
fn info_walks_a_save_file() {
    let (mut m, _) = state("churn", &[8, 4]);
    let (mut s, _) = set_state("columns");
    let mut file = save_sm(&m);
    let first = file.len();
    file.extend(save_sp(&s));
    let a = info(&file).unwrap();
    assert_eq!(a.length, first as u64);
    assert_eq!((a.kind, a.columns, &a.sizes[..2]), (2, 2, &[8u32, 4][..]));
    assert_eq!(a.notes, writer_notes());
    let b = info(&file[first..]).unwrap();
    assert_eq!((b.kind, b.count, b.columns), (3, s.len() as u64, 2));
    assert_eq!(
        snap_sm::load(&mut fresh(&[8, 4]), &file),
        Err(Error::Corrupt)
    );
    assert_eq!(load_err(&[8, 4], &file[..first]), None);
    assert_eq!(info(&file[..first - 1]), Err(Error::Corrupt));
    m.free();
    s.free();
}
