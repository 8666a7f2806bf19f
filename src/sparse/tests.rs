//! Unit tests of sparse sets (small enough for Miri); the C suites test
//! every call against a model.

use std::collections::HashMap;

use super::Sparse;
use crate::alloc::Allocator;

fn key(slot: u32, version: u32) -> u64 {
    (version as u64) << 32 | slot as u64
}

fn set(s: &mut Sparse, k: u64, v: u32) {
    // SAFETY: a 4-byte row.
    unsafe { s.set(None, k, (&raw const v).cast()) }.unwrap();
}

fn value(s: &Sparse, k: u64) -> Option<u32> {
    // SAFETY: a present key's element is a 4-byte row.
    s.get(k)
        .map(|p| unsafe { p.cast::<u32>().read_unaligned() })
}

/// Every key of `model` is found with its value, and nothing else.
fn agrees(s: &Sparse, model: &HashMap<u64, u32>) {
    assert_eq!(s.len() as usize, model.len());
    for (&k, &v) in model {
        assert_eq!(value(s, k), Some(v), "key {k:#x}");
    }
    for (r, &k) in s.keys().iter().enumerate() {
        assert_eq!(s.row_of(k), Some(r as u32));
        assert!(model.contains_key(&k));
    }
}

#[test]
fn set_get_erase_against_a_model() {
    let mut s = Sparse::new(&[4], Allocator::default()).unwrap();
    let mut model = HashMap::new();
    let slots = [0u32, 1, 2, 1023, 1024, 5000, (1 << 20) + 3, u32::MAX - 1];
    for (i, &slot) in slots.iter().enumerate() {
        set(&mut s, key(slot, 1), i as u32);
        model.insert(key(slot, 1), i as u32);
    }
    agrees(&s, &model);
    // Another generation of a slot replaces the old one's row.
    set(&mut s, key(1024, 3), 77);
    model.remove(&key(1024, 1));
    model.insert(key(1024, 3), 77);
    agrees(&s, &model);
    assert_eq!(s.get(key(1024, 1)), None);
    assert_eq!(s.get(key(9, 1)), None);
    assert_eq!(s.get(0), None);
    // Swap-and-pop erases, from the front, the middle and the back.
    for k in [key(0, 1), key(5000, 1), key(u32::MAX - 1, 1)] {
        s.erase(k).unwrap();
        model.remove(&k);
        agrees(&s, &model);
        assert!(s.erase(k).is_err());
    }
    s.clear();
    model.clear();
    agrees(&s, &model);
    set(&mut s, key(2, 5), 9);
    model.insert(key(2, 5), 9);
    agrees(&s, &model);
    let c = s.try_clone(Allocator::default()).unwrap();
    agrees(&c, &model);
    let mut c = c;
    c.free();
    s.free();
    assert_eq!(s.len(), 0);
    assert_eq!(s.get(key(2, 5)), None);
}

#[test]
fn retain_keeps_order_and_index() {
    let mut s = Sparse::new(&[4, 8], Allocator::default()).unwrap();
    for i in 0..100u32 {
        // SAFETY: a 12-byte row.
        unsafe { s.set(None, key(i * 7, 1), [i; 3].as_ptr().cast()) }.unwrap();
    }
    s.retain(|_, k| !(k as u32 / 7).is_multiple_of(3));
    assert_eq!(s.len(), 66);
    for (r, &k) in s.keys().iter().enumerate() {
        assert_eq!(s.row_of(k), Some(r as u32));
        assert!(!(k as u32 / 7).is_multiple_of(3));
        assert_eq!(value(&s, k), Some(k as u32 / 7));
    }
    s.free();
}

#[test]
fn membership_sets_have_no_elements() {
    let mut s = Sparse::new(&[], Allocator::default()).unwrap();
    // SAFETY: no columns: the row is not read.
    unsafe { s.set(None, key(3, 1), core::ptr::null()) }.unwrap();
    assert_eq!(s.get(key(3, 1)), Some(core::ptr::null_mut()));
    assert!(s.column(0).is_null());
    // SAFETY: `s` is live.
    assert!(unsafe { Sparse::sort::<crate::guard::Bare>(&raw mut s, |_, _| true) }.is_err());
    s.free();
}

/// The index entry alone decides a lookup (its version half against the
/// key's): keys of version 0 and of the highest version, of a present
/// slot, of an absent slot in a page the set has, in a page it does not
/// have (under a mid array it has and under one it has not), and beyond
/// its top.
#[test]
fn entries_tell_present_keys_from_every_other() {
    let mut s = Sparse::new(&[4], Allocator::default()).unwrap();
    let present = [key(5, 0), key(6, u32::MAX), key(2000, 7), key(3 << 20, 1)];
    for (i, &k) in present.iter().enumerate() {
        set(&mut s, k, i as u32);
    }
    let absent = [
        key(5, 1),
        key(5, u32::MAX),
        key(6, 0),
        key(6, u32::MAX - 1),
        key(7, 0),
        key(7, 1),
        key(2000, 0),
        key(2000, 6),
        key(1 << 15, 0),
        key((3 << 20) + (5 << 10), 0),
        key(1 << 20, 0),
        key(u32::MAX, 0),
        key(u32::MAX, u32::MAX),
    ];
    let c = s.try_clone(Allocator::default()).unwrap();
    for t in [&s, &c] {
        for (i, &k) in present.iter().enumerate() {
            assert_eq!(value(t, k), Some(i as u32), "key {k:#x}");
        }
        for &k in &absent {
            assert_eq!(t.row_of(k), None, "key {k:#x}");
        }
        let mut got = Vec::new();
        t.get_many(
            present.len() + absent.len(),
            |i| present.iter().chain(&absent).nth(i).copied().unwrap(),
            |_, p| got.push(p.is_some()),
        );
        assert_eq!(got.iter().filter(|&&f| f).count(), present.len());
        assert!(got[..present.len()].iter().all(|&f| f));
    }
    let mut c = c;
    c.free();
    s.free();
}

/// SPEC §3c on sparse sets: `each` and a join whose callback erases the
/// key it was given, from the walked set or another, see every key once;
/// a callback's new key, or a set of another generation of a present
/// slot, stops them with `Invalid`; a replaced row goes on.
#[test]
fn walks_follow_their_callbacks_writes() {
    let mut a = Sparse::new(&[4], Allocator::default()).unwrap();
    let mut b = Sparse::new(&[], Allocator::default()).unwrap();
    for i in 0..200 {
        set(&mut a, key(i, 1), i);
        if i % 2 == 0 {
            // SAFETY: no columns: the row is not read.
            unsafe { b.set(None, key(i, 1), core::ptr::null()) }.unwrap();
        }
    }
    let (pa, pb): (*mut Sparse, *mut Sparse) = (&mut a, &mut b);
    let mut seen = std::collections::HashSet::new();
    // SAFETY: both sets are live; the callback reaches them only through
    // the pointers. The join walks `b` (fewer rows) and erases from
    // either set.
    let rc = unsafe {
        super::join(None, &[pa.cast_const(), pb.cast_const()], |k, rows, _| {
            assert!(seen.insert(k));
            assert_eq!((*pa).row_of(k), Some(rows[0]));
            if k % 4 == 0 {
                (*pb).erase(k).unwrap();
            } else {
                (*pa).erase(k).unwrap();
            }
            0
        })
    };
    assert_eq!(rc, Ok(0));
    assert_eq!((seen.len(), a.len(), b.len()), (100, 150, 50));
    let mut seen = std::collections::HashSet::new();
    // SAFETY: as above.
    let rc = unsafe {
        Sparse::each(pa, |k, _| {
            assert!(seen.insert(k));
            set(&mut *pa, k, 9);
            if k % 3 == 0 {
                (*pa).erase(k).unwrap();
            }
            0
        })
    };
    assert_eq!((rc, seen.len()), (Ok(0), 150));
    for &k in a.keys() {
        assert_eq!(value(&a, k), Some(9));
    }
    // SAFETY: as above.
    let rc = unsafe {
        Sparse::each(pa, |k, _| {
            set(&mut *pa, key(k as u32, 3), 1);
            0
        })
    };
    assert_eq!(rc, Err(crate::Error::Invalid));
    // SAFETY: as above.
    let rc = unsafe {
        Sparse::each(pa, |_, _| {
            set(&mut *pa, key(100_000, 1), 1);
            0
        })
    };
    assert_eq!(rc, Err(crate::Error::Invalid));
    a.free();
    b.free();
}
