//! Unit tests of the slotmap: churn, retirement at the wrap, sort.

use super::scratch::heapsort;
use super::*;
use crate::guard::Bare;
use std::collections::HashMap;

fn sm(sizes: &[u32]) -> SlotMap {
    SlotMap::new(sizes, Allocator::default()).unwrap()
}

fn put(m: &mut SlotMap, v: u32) -> u64 {
    // SAFETY: a 4-byte row for a one-column u32 slotmap.
    unsafe { m.insert(v.to_ne_bytes().as_ptr()).unwrap() }
}

fn read(m: &SlotMap, key: u64) -> Option<u32> {
    // SAFETY: column 0 holds u32s.
    m.get(key)
        .map(|p| unsafe { p.cast::<u32>().read_unaligned() })
}

#[test]
fn heapsort_sorts() {
    let mut v: Vec<u32> = (0..1000).map(|i| (i * 7919) % 1000).collect();
    // SAFETY: `v` holds its length in u32s.
    assert!(unsafe { heapsort(v.as_mut_ptr(), v.len(), |a, b| Some(a < b)) });
    assert!(v.windows(2).all(|w| w[0] <= w[1]));
    // An inconsistent order must not panic.
    // SAFETY: as above.
    assert!(unsafe { heapsort(v.as_mut_ptr(), v.len(), |_, _| Some(true)) });
    let mut sorted: Vec<u32> = v.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..1000).collect::<Vec<_>>());
    // A comparator that stops it: the sort ends at once, asking no more.
    let mut asked = 0;
    // SAFETY: as above.
    let done = unsafe {
        heapsort(v.as_mut_ptr(), v.len(), |a, b| {
            asked += 1;
            (asked < 10).then_some(a < b)
        })
    };
    assert!(!done);
    assert_eq!(asked, 10);
}

#[test]
fn keys_survive_churn_and_go_stale() {
    let mut m = sm(&[4]);
    let mut live: HashMap<u64, u32> = HashMap::new();
    let mut dead = vec![];
    let mut x = 12345u64;
    let steps = if cfg!(miri) { 600 } else { 20_000 };
    for step in 0..steps {
        // xorshift64: varied steps.
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if !x.is_multiple_of(3) || live.is_empty() {
            let k = put(&mut m, step);
            assert_ne!(k, 0);
            live.insert(k, step);
        } else {
            let k = *live.keys().nth((x >> 32) as usize % live.len()).unwrap();
            m.erase(k).unwrap();
            live.remove(&k);
            dead.push(k);
        }
        if step % 1000 == 0 {
            m.check().unwrap();
            for r in 0..m.len() {
                assert_eq!(m.row_of(m.key_at(r).unwrap()), Some(r));
            }
        }
    }
    m.check().unwrap();
    for (&k, &v) in &live {
        assert_eq!(read(&m, k), Some(v));
    }
    for &k in &dead {
        assert_eq!(m.get(k), None);
    }
    assert_eq!(m.get(0), None);
    m.free();
    for &k in live.keys() {
        assert_eq!(m.get(k), None);
    }
}

#[test]
fn a_slot_retires_when_its_version_is_used_up() {
    let mut m = sm(&[4]);
    m.versions = Versions::new(u32::MAX - 4);
    let a = put(&mut m, 1);
    let index = a as u32;
    m.erase(a).unwrap();
    let b = put(&mut m, 2);
    assert_eq!(b as u32, index, "most recently freed slot reused");
    m.erase(b).unwrap();
    let c = put(&mut m, 3);
    assert_eq!((c >> 32) as u32, u32::MAX);
    m.erase(c).unwrap();
    // The slot's version wrapped: it is retired, a new slot is used.
    let d = put(&mut m, 4);
    assert_ne!(d as u32, index);
    for k in [a, b, c] {
        assert_eq!(m.get(k), None);
    }
    m.check().unwrap();
    m.free();
}

/// Cycles slot `index`'s row until the slot retires; returns every key
/// it was issued.
fn cycle_until_retired(m: &mut SlotMap) -> Vec<u64> {
    let mut keys = vec![];
    loop {
        let k = put(m, 9);
        keys.push(k);
        m.erase(k).unwrap();
        if m.slot(k as u32).version == 0 {
            return keys;
        }
    }
}

/// Defect: a freed slotmap restarted its versions above the highest
/// version a slot still carried, and a retired slot carries none, so
/// after a retirement `free` reissued keys of the retired slot.
#[test]
fn free_after_a_retirement_reissues_no_key() {
    let mut m = sm(&[4]);
    m.versions = Versions::new(u32::MAX - 10);
    let first = put(&mut m, 1); // slot 0 keeps its first key; slot 1 cycles
    let old = cycle_until_retired(&mut m);
    assert_eq!(old.len(), 6);
    assert_eq!(old.last().map(|k| k >> 32), Some(u32::MAX as u64));
    m.check().unwrap();
    let mut issued: Vec<u64> = old.clone();
    issued.push(first);
    m.free();
    // No room above: the next era lies below everything issued.
    let mut later = vec![];
    for i in 0..20 {
        later.push(put(&mut m, i));
    }
    for k in &later {
        assert!(!issued.contains(k), "reissued {k:#x}");
        assert!((*k >> 32) < (u32::MAX - 10) as u64);
    }
    for &k in &issued {
        assert_eq!(m.get(k), None, "stale {k:#x} validates");
    }
    m.check().unwrap();
    m.free();
}

/// Retirement at the end of the version space, then `clear`, `clone`
/// and `free`, in milliseconds: the slotmap starts its versions near
/// the end instead of cycling a slot 1.5 * 10^9 times (`make soak`
/// does that through the C API).
#[test]
fn versions_at_the_wrap_through_clear_clone_and_free() {
    let mut m = sm(&[4]);
    m.versions = Versions::new(u32::MAX - 20);
    let keys: Vec<u64> = (0..4).map(|i| put(&mut m, i)).collect();
    m.clear(); // every slot one reuse further
    let copy = m.try_clone(Allocator::default()).unwrap();
    let mut issued = keys.clone();
    for _ in 0..4 {
        issued.extend(cycle_until_retired(&mut m));
    }
    // The clone goes on from the same versions, independently.
    let mut c = copy;
    for &k in &issued {
        assert_eq!(m.get(k), None);
        assert_eq!(c.get(k), None);
    }
    c.check().unwrap();
    c.free();
    m.check().unwrap();
    // Free: the next era is below the first start; exhaust it too
    // and the slotmap has no version left for a new slot.
    m.free();
    m.versions.next = m.versions.last().saturating_sub(6) | 1;
    let below = cycle_until_retired(&mut m);
    for k in &below {
        assert!(!issued.contains(k));
    }
    issued.extend(below);
    m.free();
    let mut row = 0u32;
    // SAFETY: a 4-byte row.
    let r = unsafe { m.insert((&mut row as *mut u32).cast()) };
    assert_eq!(r, Err(Error::Full));
    for &k in &issued {
        assert_eq!(m.get(k), None);
    }
    m.check().unwrap();
    m.free();
}

/// A comparator may read the slotmap it sorts, as the C API allows.
/// (With `&mut self` held across the comparator, this read was undefined
/// behaviour, which Miri reports.)
#[test]
fn sort_comparator_may_read_the_slotmap() {
    let mut m = sm(&[4]);
    let keys: Vec<u64> = (0..50u32).map(|i| put(&mut m, (i * 7) % 50)).collect();
    let this: *mut SlotMap = &mut m;
    let mut reads = 0;
    // SAFETY: `m` is live; the comparator only reads through `this`.
    unsafe {
        SlotMap::sort::<Bare>(this, |a, b| {
            let seen = &*this;
            assert_eq!(seen.len(), 50);
            reads += seen.get(keys[reads % 50]).is_some() as usize;
            a.cast::<u32>().read_unaligned() < b.cast::<u32>().read_unaligned()
        })
        .unwrap();
    }
    assert!(reads > 0);
    assert!(m.scratch.is_none());
    m.check().unwrap();
    for (i, &k) in keys.iter().enumerate() {
        assert_eq!(read(&m, k), Some((i as u32 * 7) % 50));
    }
    m.free();
}

#[test]
fn sort_and_erase_if_keep_keys() {
    let mut m = sm(&[4, 8]);
    let mut keys = vec![];
    for i in 0..500u32 {
        let mut row = [0u8; 12];
        row[..4].copy_from_slice(&((i * 37) % 500).to_ne_bytes());
        row[4..].copy_from_slice(&(i as u64).to_ne_bytes());
        // SAFETY: a 12-byte packed row.
        keys.push((i, unsafe { m.insert(row.as_ptr()).unwrap() }));
    }
    // SAFETY: column 0 holds u32s.
    // SAFETY: `m` is live; column 0 holds u32s.
    unsafe {
        SlotMap::sort::<Bare>(&mut m, |a, b| {
            a.cast::<u32>().read_unaligned() < b.cast::<u32>().read_unaligned()
        })
        .unwrap()
    };
    m.check().unwrap();
    let col0 = m.column(0).cast::<u32>();
    let col1 = m.column(1).cast::<u64>();
    assert_eq!(col0 as usize % COLUMN_ALIGN, 0);
    assert_eq!(col1 as usize % COLUMN_ALIGN, 0);
    for r in 0..m.len() as usize {
        // SAFETY: rows below len.
        unsafe { assert_eq!(*col0.add(r), r as u32) };
    }
    for &(i, k) in &keys {
        let r = m.row_of(k).unwrap() as usize;
        // SAFETY: as above.
        unsafe { assert_eq!(*col1.add(r), i as u64) };
    }
    let this: *mut SlotMap = &mut m;
    // SAFETY: `m` is live.
    unsafe {
        SlotMap::erase_if(this, |_, row| {
            (row.cast::<u32>().read_unaligned() % 2) as i32
        })
        .unwrap()
    };
    m.check().unwrap();
    assert_eq!(m.len(), 250);
    let col1 = m.column(1).cast::<u64>();
    for &(i, k) in &keys {
        let odd = ((i * 37) % 500) % 2 == 1;
        assert_eq!(m.get(k).is_none(), odd);
        if let Some(r) = m.row_of(k) {
            // SAFETY: as above.
            unsafe { assert_eq!(*col1.add(r as usize), i as u64) };
        }
    }
    m.free();
}

/// A batch `get` finds what single `get`s find, both ways it runs (with
/// and without requesting lines ahead): live, stale, forged and repeated
/// keys, and key 0.
#[test]
fn batch_gets_equal_single_gets() {
    let mut m = sm(&[4]);
    let n = if cfg!(miri) { 200 } else { 5_000 };
    let mut keys: Vec<u64> = (0..n).map(|i| put(&mut m, i)).collect();
    for k in keys.iter().step_by(3) {
        m.erase(*k).unwrap();
    }
    // Stale keys, their slots reused, forged keys and key 0.
    keys.extend((0..n / 4).map(|i| put(&mut m, i)));
    keys.extend([0, u64::MAX, 1 << 32, keys[1] + (2 << 32), keys[2] ^ 1]);
    let queries: Vec<u64> = (0..keys.len() * 2)
        .map(|i| keys[i * 7 % keys.len()])
        .collect();
    for count in [0, 1, 16, 17, queries.len()] {
        for prefetch in [false, true] {
            let mut got = vec![core::ptr::dangling_mut::<u8>(); count];
            let found = |i, p| got[i] = p;
            if prefetch {
                m.stages::<true>(count, |i| queries[i], found);
            } else {
                m.stages::<false>(count, |i| queries[i], found);
            }
            for (i, p) in got.iter().enumerate() {
                assert_eq!(
                    *p,
                    m.get(queries[i]).unwrap_or(core::ptr::null_mut()),
                    "key {i}"
                );
            }
        }
    }
    m.free();
}

/// SPEC §3c on the slotmap: an `each` whose callback erases its own key
/// visits every row once; an `erase_if` whose predicate erases its own
/// key (some rows) or answers (others) erases both; a callback's insert
/// stops either walk with `Invalid`, the insert carried out.
#[test]
fn walks_follow_their_callbacks_writes() {
    let mut m = sm(&[4, 8]);
    let keys: Vec<u64> = (0..300u32).map(|i| put2(&mut m, i)).collect();
    let this: *mut SlotMap = &mut m;
    let mut seen = std::collections::HashSet::new();
    // SAFETY: `m` is live; the callback reaches it only through `this`.
    let rc = unsafe {
        SlotMap::each(this, |k, _| {
            assert!(seen.insert(k));
            if k % 2 == 0 {
                (*this).erase(k).unwrap();
            }
            0
        })
    };
    assert_eq!(rc, Ok(0));
    assert_eq!(seen.len(), 300);
    m.check().unwrap();
    let left: Vec<u64> = keys.iter().copied().filter(|k| k % 2 == 1).collect();
    assert_eq!(m.len() as usize, left.len());
    let this: *mut SlotMap = &mut m;
    let mut asked = 0;
    // SAFETY: as above.
    unsafe {
        SlotMap::erase_if(this, |k, _| {
            asked += 1;
            if k % 3 == 0 {
                (*this).erase(k).unwrap();
                1 // given with a change: not applied (already erased)
            } else {
                (k % 3 == 1) as i32
            }
        })
    }
    .unwrap();
    assert_eq!(asked, left.len());
    m.check().unwrap();
    for &k in &left {
        assert_eq!(m.get(k).is_some(), k % 3 == 2);
    }
    let this: *mut SlotMap = &mut m;
    let mut calls = 0;
    // SAFETY: as above.
    let rc = unsafe {
        SlotMap::each(this, |_, _| {
            calls += 1;
            put2(&mut *this, 7);
            0
        })
    };
    assert_eq!((rc, calls), (Err(Error::Invalid), 1));
    let before = m.len();
    let this: *mut SlotMap = &mut m;
    // SAFETY: as above.
    let r = unsafe {
        SlotMap::erase_if(this, |_, _| {
            put2(&mut *this, 8);
            0
        })
    };
    assert_eq!(r, Err(Error::Invalid));
    assert_eq!(m.len(), before + 1);
    m.check().unwrap();
    m.free();
}

/// A comparator that changes the slotmap stops the sort: no order is
/// applied, the change stays, and the sort's scratch stays with the
/// slotmap until its next sort (or `free`) takes it back.
#[test]
fn a_sort_stops_when_its_comparator_writes() {
    let mut m = sm(&[4]);
    let keys: Vec<u64> = (0..64u32).map(|i| put(&mut m, 63 - i)).collect();
    let rows: Vec<u32> = keys.iter().map(|&k| m.row_of(k).unwrap()).collect();
    let this: *mut SlotMap = &mut m;
    let mut calls = 0;
    // SAFETY: `m` is live; the comparator reaches it only through `this`.
    let r = unsafe {
        SlotMap::sort::<Bare>(this, |a, b| {
            calls += 1;
            // Read first: the insert below may move the rows.
            let less = a.cast::<u32>().read_unaligned() < b.cast::<u32>().read_unaligned();
            if calls == 5 {
                put(&mut *this, 1000);
            }
            less
        })
    };
    assert_eq!((r, calls), (Err(Error::Invalid), 5));
    assert_eq!(m.len(), 65);
    for (k, r) in keys.iter().zip(&rows) {
        assert_eq!(m.row_of(*k), Some(*r), "a row moved");
    }
    assert!(!m.scratch.is_none());
    m.check().unwrap();
    // SAFETY: `m` is live.
    unsafe {
        SlotMap::sort::<Bare>(&mut m, |a, b| {
            a.cast::<u32>().read_unaligned() < b.cast::<u32>().read_unaligned()
        })
    }
    .unwrap();
    assert!(m.scratch.is_none());
    for r in 1..m.len() {
        // SAFETY: rows below len hold u32s.
        let (a, b) = unsafe {
            (
                m.element(r - 1).cast::<u32>().read(),
                m.element(r).cast::<u32>().read(),
            )
        };
        assert!(a <= b);
    }
    m.check().unwrap();
    m.free();
}

fn put2(m: &mut SlotMap, v: u32) -> u64 {
    let mut row = [0u8; 12];
    row[..4].copy_from_slice(&v.to_ne_bytes());
    // SAFETY: a 12-byte packed row for columns of 4 and 8 bytes.
    unsafe { m.insert(row.as_ptr()).unwrap() }
}
