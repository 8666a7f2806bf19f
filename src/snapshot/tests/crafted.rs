//! Crafted and failing inputs: slot arrays, version states, envelopes,
//! huge counts, failed allocations and writes; sets; save files.

use super::*;

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
    // 2^32 - 2 slots or keys cannot be addressed on a 32-bit target: the
    // header says so (`Full`) before the short body is read (`Corrupt`).
    let unaddressable = if cfg!(target_pointer_width = "32") {
        Error::Full
    } else {
        Error::Corrupt
    };
    for (len, slots) in [(TOP - 1, TOP - 1), (0, TOP - 1), (1000, 1000)] {
        let mut h = vec![1, len, slots, NONE, 0];
        h.extend_from_slice(&FIRST);
        h.extend_from_slice(&[0, 8]);
        let bytes = build(KIND_SLOTMAP, &[(SLTH, words(&h)), (SLTS, vec![0; 16])]);
        assert!(bytes.len() < 200);
        let mut m = SlotMap::new(&[8], counting()).unwrap();
        reset(u64::MAX);
        let want = if slots == TOP - 1 {
            unaddressable
        } else {
            Error::Corrupt
        };
        assert_eq!(snap_sm::load(&mut m, &bytes), Err(want));
        assert_eq!(ALLOCS.with(Cell::get), 0);
    }
    // A set claiming 2^32 - 2 keys.
    let bytes = build(
        KIND_SPARSE,
        &[(SPSH, words(&[0, TOP - 1])), (SPSK, vec![1; 16])],
    );
    let mut s = Sparse::new(&[], counting()).unwrap();
    reset(u64::MAX);
    assert_eq!(snap_sp::load(&mut s, &bytes), Err(unaddressable));
    assert_eq!(ALLOCS.with(Cell::get), 0);
}

#[test]
#[cfg_attr(miri, ignore = "long under Miri: make miri-snapshot")]
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
#[cfg_attr(miri, ignore = "long under Miri: make miri-snapshot")]
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

pub(super) fn set_state(name: &str) -> (Sparse, Vec<u64>) {
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
#[cfg_attr(miri, ignore = "long under Miri: make miri-snapshot")]
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

/// A slotmap whose free list is long enough for a load to follow it in a
/// copy of its own (3,000 vacant slots), loaded as saved, and with its
/// list broken each way the checker refuses: a cycle, a link to an
/// occupied slot, a link past the slots, a head on an occupied slot, a
/// list cut short, and a vacant slot off the list.
#[test]
fn long_free_lists_are_followed_and_checked() {
    let n = if cfg!(miri) { 600 } else { 6000 };
    let mut m = fresh(&[4]);
    let keys: Vec<u64> = (0..n).map(|i| insert(&mut m, i).unwrap()).collect();
    // Erase every other key, in an order that is not the slots'.
    let mut order: Vec<usize> = (0..n as usize / 2).map(|i| i * 2).collect();
    let mut rng = Rng(7);
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i + 1));
    }
    for &i in &order {
        m.erase(keys[i]).unwrap();
    }
    let bytes = save_sm(&m);
    let mut l = load_sm(&[4], &bytes).unwrap();
    same_state(&m, &l);
    l.free();
    let pairs = m.slot_pairs().to_vec();
    let head = m.head();
    let (first, second) = (head.free_head, pairs[head.free_head as usize][1]);
    let occupied = keys[1] as u32;
    // Each: the slot to change, its new link; or the head's new value.
    let broken: [(Option<u32>, u32); 6] = [
        (Some(second), first),
        (Some(second), occupied),
        (Some(second), pairs.len() as u32 + 5),
        (None, occupied),
        (Some(first), NONE),
        (None, second),
    ];
    for (slot, link) in broken {
        let mut s = split(&bytes);
        match slot {
            Some(i) => {
                s[1].1[i as usize * 8 + 4..i as usize * 8 + 8].copy_from_slice(&link.to_le_bytes())
            }
            None => s[0].1[12..16].copy_from_slice(&link.to_le_bytes()),
        }
        let b = build(KIND_SLOTMAP, &s);
        assert_eq!(
            load_err(&[4], &b),
            Some(Error::Corrupt),
            "{slot:?} -> {link}"
        );
    }
    m.free();
}
