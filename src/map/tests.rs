//! Unit tests of the map: lifecycle, layouts, plans, flooding.

use super::plan::Plan;
use super::*;
use crate::guard::Bare;
use crate::key::{IntKey, Needle, TAG_I64, TAG_U64};
use crate::layout::{Kind, Uniform};

/// A value that is a number, not an address (no provenance for Miri).
fn v(i: u64) -> *mut c_void {
    ptr::without_provenance_mut(i as usize)
}

fn long(i: u64) -> Vec<u8> {
    format!("a key longer than the 28 bytes a slot holds: {i}").into_bytes()
}

/// Every path that moves memory, small enough for Miri: the small map,
/// its move into a directory, doublings, a split with a directory
/// doubling, tombstones, clone, compact, reserve, delete_if, clear, free.
#[test]
fn lifecycle() {
    let n = if cfg!(miri) { 1_000 } else { 5_000 };
    let mut m = Map::new(Allocator::default());
    for i in 0..n {
        m.set(&IntKey::new(TAG_U64, i), v(i)).unwrap();
        if i % 4 == 0 {
            m.set(&Needle::bytes(&long(i)), v(i + 1)).unwrap();
        }
    }
    m.check().unwrap();
    assert!(m.global_depth() >= 1, "no split happened");
    for i in (0..n).step_by(3) {
        m.delete(&IntKey::new(TAG_U64, i)).unwrap();
    }
    let mut c = m.try_clone(Allocator::default()).unwrap();
    c.check().unwrap();
    m.compact().unwrap();
    m.check().unwrap();
    for i in 0..n {
        let want = (i % 3 != 0).then_some(v(i));
        assert_eq!(m.get(&IntKey::new(TAG_U64, i)), want);
        assert_eq!(c.get(&IntKey::new(TAG_U64, i)), want);
        if i % 4 == 0 {
            assert_eq!(m.get(&Needle::bytes(&long(i))), Some(v(i + 1)));
        }
    }
    m.reserve(4 * n).unwrap();
    m.check().unwrap();
    let this: *mut Map = &mut m;
    // SAFETY: `m` is live and not otherwise borrowed.
    unsafe { Map::delete_if::<Bare>(this, |_, n, _| (n as usize > crate::key::INLINE) as i32) }
        .unwrap();
    m.check().unwrap();
    assert_eq!(m.len(), n - n.div_ceil(3));
    c.clear();
    c.check().unwrap();
    assert_eq!(c.len(), 0);
    c.free();
    m.free();
    assert_eq!(m.capacity(), 0);
}

fn kinds(m: &Map) -> Vec<Kind> {
    // SAFETY: the map's tables are live.
    m.tables().map(|t| unsafe { (*t).kind() }).collect()
}

/// Tables take the layout of their keys: integer tables for one integer
/// kind, turned general one table at a time when another key arrives;
/// an empty general table (after `reserve`, or emptied) turns integer
/// in place; `compact` picks the layout from the keys. The map knows
/// when every table has one kind (`uniform`), also once tables turned one
/// by one.
#[test]
fn tables_take_the_layout_of_their_keys() {
    let n = if cfg!(miri) { 2_000 } else { 10_000 };
    let mut m = Map::new(Allocator::default());
    assert_eq!(m.uniform, Uniform::UNKNOWN);
    m.set(&IntKey::new(TAG_U64, 0), v(1)).unwrap();
    assert_eq!(kinds(&m), [Kind::U64]);
    assert_eq!(m.uniform, Uniform::of(Kind::U64));
    // Small mode: a string turns the single group general.
    m.set(&Needle::bytes(b"text"), v(2)).unwrap();
    assert_eq!(kinds(&m), [Kind::Bytes]);
    assert_eq!(m.uniform, Uniform::of(Kind::Bytes));
    assert_eq!(m.get(&IntKey::new(TAG_U64, 0)), Some(v(1)));
    m.free();
    assert_eq!(m.uniform, Uniform::UNKNOWN);

    for i in 0..n {
        m.set(&IntKey::new(TAG_U64, i), v(i)).unwrap();
    }
    let tables = kinds(&m).len();
    assert!(tables >= 2 && kinds(&m).iter().all(|&k| k == Kind::U64));
    assert_eq!(m.uniform, Uniform::of(Kind::U64));
    // An i64 key turns exactly its own table general.
    m.set(&IntKey::new(TAG_I64, 7), v(7)).unwrap();
    let general = kinds(&m).iter().filter(|&&k| k == Kind::Bytes).count();
    assert_eq!((kinds(&m).len(), general), (tables, 1));
    assert_eq!(m.uniform, Uniform::UNKNOWN);
    m.check().unwrap();
    for i in 0..n {
        assert_eq!(m.get(&IntKey::new(TAG_U64, i)), Some(v(i)));
    }
    assert_eq!(m.get(&IntKey::new(TAG_I64, 7)), Some(v(7)));
    // Without the i64 key, compact goes back to integer tables only.
    m.delete(&IntKey::new(TAG_I64, 7)).unwrap();
    m.compact().unwrap();
    m.check().unwrap();
    assert!(kinds(&m).iter().all(|&k| k == Kind::U64));
    assert_eq!(m.uniform, Uniform::of(Kind::U64));
    // An emptied integer table takes a string by turning general.
    m.clear();
    m.set(&Needle::bytes(b"text"), v(2)).unwrap();
    assert_eq!(kinds(&m).iter().filter(|&&k| k == Kind::Bytes).count(), 1);
    m.check().unwrap();
    m.free();

    // `reserve` on an empty map makes general tables; integer keys
    // turn each one integer in place as it takes its first key.
    m.reserve(n).unwrap();
    assert!(kinds(&m).iter().all(|&k| k == Kind::Bytes));
    assert_eq!(m.uniform, Uniform::of(Kind::Bytes));
    let before = m.tables().collect::<Vec<_>>();
    for i in 0..n {
        m.set(&IntKey::new(TAG_I64, i), v(i)).unwrap();
    }
    assert_eq!(
        m.tables().collect::<Vec<_>>(),
        before,
        "reserve did not hold"
    );
    assert!(kinds(&m).iter().all(|&k| k == Kind::I64));
    assert_eq!(m.uniform, Uniform::of(Kind::I64));
    m.check().unwrap();
    // Emptied, those tables take strings in place too (their memory
    // was sized for the general layout). One key stays, so the map
    // keeps its seed; only its table must be rebuilt.
    for i in 1..n {
        m.delete(&IntKey::new(TAG_I64, i)).unwrap();
    }
    for i in 0..n {
        m.set(&Needle::bytes(format!("s{i}").as_bytes()), v(i))
            .unwrap();
    }
    assert!(kinds(&m).iter().all(|&k| k == Kind::Bytes));
    let after = m.tables().collect::<Vec<_>>();
    let moved = before.iter().zip(&after).filter(|(a, b)| a != b).count();
    assert!(moved <= 1, "{moved} tables reallocated");
    assert_eq!(m.uniform, Uniform::of(Kind::Bytes));
    assert_eq!(m.get(&IntKey::new(TAG_I64, 0)), Some(v(0)));
    m.check().unwrap();
    m.free();
}

/// A map large enough that lookups and deletes take the prefetching
/// probe finds every key and no absent one, and deletes exactly the
/// keys asked for. (Too large for Miri, which runs the same probe
/// without the prefetch in `lifecycle`.)
#[test]
#[cfg_attr(miri, ignore)]
fn large_map_lookups_prefetch() {
    let mut m = Map::new(Allocator::default());
    let mut n = 0u64;
    while m.global_depth() < PREFETCH_DEPTH {
        m.set(&IntKey::new(TAG_U64, n), v(n + 1)).unwrap();
        n += 1;
    }
    assert!(n > 100_000, "depth {PREFETCH_DEPTH} after only {n} keys");
    // The one byte a lookup tests says so (`check` verifies it below).
    assert_eq!(m.uniform, Uniform::of(Kind::U64).far(true));
    assert!(m.uniform.is_far());
    for i in 0..n {
        assert_eq!(m.get(&IntKey::new(TAG_U64, i)), Some(v(i + 1)));
        assert_eq!(m.get(&IntKey::new(TAG_U64, n + i)), None);
    }
    for i in (0..n).step_by(2) {
        assert!(m.remove(&IntKey::new(TAG_U64, i)).is_ok());
        assert_eq!(m.remove(&IntKey::new(TAG_U64, n + i)), Err(Error::NotFound));
    }
    assert!(m.global_depth() >= PREFETCH_DEPTH);
    assert_eq!(m.len, n / 2);
    for i in 0..n {
        let want = (i % 2 == 1).then(|| v(i + 1));
        assert_eq!(m.get(&IntKey::new(TAG_U64, i)), want);
    }
    m.check().unwrap();
    // Emptied by `clear` (which keeps the tables), the map is as far;
    // freed, it knows nothing.
    m.clear();
    assert!(m.uniform.is_far());
    m.check().unwrap();
    m.free();
    assert_eq!(m.uniform, Uniform::UNKNOWN);
}

/// Mean probe steps to each key's group past its first one.
fn mean_probe(m: &Map, keys: &[Vec<u8>]) -> f64 {
    let mut total = 0;
    for k in keys {
        let n = Needle::bytes(k);
        let h = n.hash(m.seed.get());
        // SAFETY: a live table of the map.
        let t = unsafe { &*m.table_for(h) };
        let (g, _) = t.find_key(h, &n).expect("the key is in the map");
        let groups = t.group_count();
        let home = crate::hash::h1(h) as usize & (groups - 1);
        let steps = (0..groups)
            .find(|&s| (home + s * (s + 1) / 2) & (groups - 1) == g)
            .expect("on the probe sequence");
        total += steps;
    }
    total as f64 / keys.len() as f64
}

/// Hash flooding: keys built to collide under one seed (each one's
/// probe starts at group 0 of its table: hash bits 7..13 zero, found by
/// brute force, 128 tries a key) make the map with that seed probe
/// long; a map with its own random seed never sees the collision.
#[test]
#[cfg_attr(miri, ignore)]
fn flooding_keys_hurt_only_the_seed_they_were_made_for() {
    const SEED: u64 = 0x0000_5EED_F100_D000;
    let mut keys = vec![];
    let mut i = 0u64;
    while keys.len() < 700 {
        let k = format!("flood-{i}").into_bytes();
        if crate::hash::h1(crate::hash::hash(SEED, &k)) & 127 == 0 {
            keys.push(k);
        }
        i += 1;
    }
    let mut attacked = Map::new(Allocator::default());
    attacked.seed = crate::hash::Seed::pinned(SEED);
    let mut own = Map::new(Allocator::default());
    for k in &keys {
        attacked.set(&Needle::bytes(k), v(1)).unwrap();
        own.set(&Needle::bytes(k), v(1)).unwrap();
    }
    attacked.check().unwrap();
    // 700 keys in one table of 128 groups, all probing from group 0:
    // the k-th one sits k / 8 steps down the sequence.
    let slow = mean_probe(&attacked, &keys);
    let fast = mean_probe(&own, &keys);
    assert!(slow > 30.0, "flooded map: mean probe {slow}");
    assert!(fast < 1.0, "own seed: mean probe {fast}");
    attacked.free();
    own.free();
}

#[test]
fn plans() {
    assert_eq!(Plan::for_entries(0), Ok(Plan::Empty));
    assert_eq!(Plan::for_entries(8), Ok(Plan::Small));
    assert_eq!(
        Plan::for_entries(9),
        Ok(Plan::Tables {
            depth: 0,
            capacity: 16
        })
    );
    assert_eq!(
        Plan::for_entries(15),
        Ok(Plan::Tables {
            depth: 0,
            capacity: 32
        })
    );
    assert_eq!(
        Plan::for_entries(896),
        Ok(Plan::Tables {
            depth: 0,
            capacity: 1024
        })
    );
    assert_eq!(
        Plan::for_entries(897),
        Ok(Plan::Tables {
            depth: 1,
            capacity: 1024
        })
    );
    assert_eq!(Plan::for_entries(u64::MAX), Err(Error::Full));
    // Larger than the machine's memory: refused, not attempted.
    if cfg!(target_os = "linux") && !cfg!(miri) {
        assert_eq!(Plan::for_entries(1 << 41), Err(Error::Full));
    }
}

/// Batch lookups find what single lookups find, both ways a batch runs
/// (one by one, and in stages with prefetching), for every key kind and
/// length class, present, absent and repeated keys, in a map of mixed
/// layouts with tombstones.
#[test]
fn batch_lookups_equal_single_lookups() {
    let n = if cfg!(miri) { 300 } else { 3_000 };
    let text = |i: u64| -> Vec<u8> {
        // Lengths 0 to 199: inline, 29-32, 33-128 and longer keys.
        let len = (i * 37 % 200) as usize;
        let mut k = format!("{i}:").into_bytes();
        k.resize(len.max(k.len()), b'x');
        k
    };
    let mut m = Map::new(Allocator::default());
    let mut empty = Map::new(Allocator::default());
    for i in 0..n {
        m.set(&IntKey::new(TAG_U64, i), v(i + 1)).unwrap();
        if i % 3 == 0 {
            m.set(&Needle::bytes(&text(i)), v(i + 2)).unwrap();
        }
    }
    for i in (0..n).step_by(5) {
        m.delete(&IntKey::new(TAG_U64, i)).unwrap();
    }
    // An absent, present or repeated key of each kind, in a mixed order.
    let ints: Vec<IntKey> = (0..2 * n)
        .map(|i| {
            IntKey::new(
                if i % 7 == 0 { TAG_I64 } else { TAG_U64 },
                i * 13 % (n + 50),
            )
        })
        .collect();
    let texts: Vec<Vec<u8>> = (0..2 * n).map(|i| text(i * 11 % (n + 50))).collect();
    let needles: Vec<Needle<'_>> = texts.iter().map(|t| Needle::bytes(t)).collect();
    for map in [&m, &mut empty as &Map] {
        for count in [0, 1, 15, 16, 17, ints.len()] {
            let check = |got: &[Option<*mut c_void>],
                         want: &dyn Fn(usize) -> Option<*mut c_void>| {
                for (i, g) in got.iter().enumerate() {
                    assert_eq!(*g, want(i), "key {i} of {count}");
                }
            };
            let mut got = vec![None; count];
            map.get_many::<Bare, _>(count, |i| ints[i], |i, v| got[i] = v)
                .unwrap();
            check(&got, &|i| map.get(&ints[i]));
            // Both ways, whatever the map's size (they need a table).
            if map.mode != Mode::Empty {
                got.fill(None);
                map.one_by_one::<Bare, _>(count, |i| ints[i], |i, v| got[i] = v)
                    .unwrap();
                check(&got, &|i| map.get(&ints[i]));
                got.fill(None);
                map.stages::<Bare, _>(count, |i| ints[i], |i, v| got[i] = v)
                    .unwrap();
                check(&got, &|i| map.get(&ints[i]));
                got.fill(None);
                map.stages::<Bare, _>(count, |i| needles[i], |i, v| got[i] = v)
                    .unwrap();
                check(&got, &|i| map.get(&needles[i]));
            }
            got.fill(None);
            map.get_many::<Bare, _>(count, |i| Some(needles[i]), |i, v| got[i] = v)
                .unwrap();
            check(&got, &|i| map.get(&needles[i]));
            got.fill(None);
            map.get_many::<Bare, _>(count, |_| None::<Needle<'_>>, |i, v| got[i] = v)
                .unwrap();
            check(&got, &|_| None);
        }
    }
    m.free();
}

/// Cursors, small enough for Miri: the order of `visit`, keys read
/// through the pointers they give (general slots, heap copies, an integer
/// table's key in the cursor), deleting through them, staleness.
#[test]
fn cursors() {
    let n = if cfg!(miri) { 200 } else { 3_000 };
    for general in [false, true] {
        let mut m = Map::new(Allocator::default());
        for i in 0..n {
            m.set(&IntKey::new(TAG_I64, i), v(i)).unwrap();
            if general && i % 3 == 0 {
                m.set(&Needle::bytes(&long(i)), v(i + n)).unwrap();
            }
        }
        let mut order = Vec::new();
        m.visit(|k, val| {
            order.push((k.to_vec(), val));
            0
        });
        // Delete every other entry through the cursor: each entry is
        // still given once, in order.
        let mut it = Iter::new(&m);
        let mut given = Vec::new();
        while let Ok((k, len, val)) = m.iter_next(&mut it) {
            // SAFETY: valid until the next call on the cursor or the map.
            given.push((
                unsafe { core::slice::from_raw_parts(k, len as usize) }.to_vec(),
                val,
            ));
            if given.len() % 2 == 1 {
                m.iter_delete(&mut it).unwrap();
                assert_eq!(m.iter_delete(&mut it), Err(Error::NotFound));
            }
        }
        assert_eq!(m.iter_next(&mut it), Err(Error::NotFound));
        assert_eq!(given, order);
        assert_eq!(m.len(), (order.len() / 2) as u64);
        m.check().unwrap();
        // Any other change makes it stale, for good.
        let mut it = Iter::new(&m);
        let mut other = Iter::new(&m);
        m.iter_next(&mut it).unwrap();
        m.iter_next(&mut other).unwrap();
        m.iter_delete(&mut other).unwrap();
        assert_eq!(m.iter_next(&mut it), Err(Error::Invalid));
        assert!(m.iter_next(&mut other).is_ok());
        m.set(&IntKey::new(TAG_U64, 1), v(1)).unwrap();
        assert_eq!(m.iter_next(&mut other), Err(Error::Invalid));
        assert_eq!(m.iter_delete(&mut other), Err(Error::Invalid));
        m.free();
    }
}

/// SPEC §3c on the map: a callback that deletes the entry it was given
/// sees every entry once (small map and directory, integer and byte
/// keys); one that replaces a value goes on; one that adds a key or
/// deletes another stops the walk with `Invalid`, its write carried out.
#[test]
fn walks_follow_their_callbacks_writes() {
    for n in [5u64, if cfg!(miri) { 100 } else { 2_000 }] {
        for bytes in [false, true] {
            let key = |i: u64| -> Vec<u8> {
                if bytes {
                    long(i)
                } else {
                    let mut k = vec![0, 2];
                    k.extend_from_slice(&i.to_le_bytes());
                    k
                }
            };
            let mut m = Map::new(Allocator::default());
            for i in 0..n {
                m.set(&Needle::bytes(&key(i)), v(i)).unwrap();
            }
            let this: *mut Map = &mut m;
            let mut seen = std::collections::HashSet::new();
            // SAFETY: `m` is live; the callback reaches it only through
            // `this`, between the walk's own looks.
            let rc = unsafe {
                Map::each(this, |k, len, value| {
                    let k = core::slice::from_raw_parts(k, len as usize).to_vec();
                    assert!(seen.insert(k.clone()), "visited twice");
                    assert_eq!((*this).get(&Needle::bytes(&k)), Some(value));
                    (*this).delete(&Needle::bytes(&k)).unwrap();
                    0
                })
            };
            assert_eq!(rc, Ok(0));
            assert_eq!(seen.len() as u64, n);
            assert_eq!(m.len(), 0);
            m.check().unwrap();

            for i in 0..n {
                m.set(&Needle::bytes(&key(i)), v(i)).unwrap();
            }
            let this: *mut Map = &mut m;
            let mut calls = 0;
            // SAFETY: as above.
            let rc = unsafe {
                Map::each(this, |k, len, _| {
                    calls += 1;
                    let k = core::slice::from_raw_parts(k, len as usize).to_vec();
                    (*this).set(&Needle::bytes(&k), v(7)).unwrap();
                    0
                })
            };
            assert_eq!((rc, calls), (Ok(0), n));
            // SAFETY: as above.
            let rc = unsafe {
                Map::each(this, |_, _, _| {
                    (*this).set(&Needle::bytes(b"a new key"), v(1)).unwrap();
                    0
                })
            };
            assert_eq!(rc, Err(Error::Invalid));
            assert_eq!(m.get(&Needle::bytes(b"a new key")), Some(v(1)));
            let this: *mut Map = &mut m;
            let mut calls = 0;
            // SAFETY: as above; the key deleted is never the given one.
            let rc = unsafe {
                Map::each(this, |k, len, _| {
                    calls += 1;
                    let given = core::slice::from_raw_parts(k, len as usize);
                    let other = if given == b"a new key" {
                        key(0)
                    } else {
                        b"a new key".to_vec()
                    };
                    (*this).delete(&Needle::bytes(&other)).unwrap();
                    0
                })
            };
            assert_eq!((rc, calls), (Err(Error::Invalid), 1));
            assert_eq!(m.len(), n);
            m.check().unwrap();
            m.free();
        }
    }
}

/// Epochs are 64 bits wide: a cursor stamped just below 2^32 is still
/// stale after 2^32 more changes (with a 32-bit epoch it validated again,
/// and its delete removed an entry it never returned).
#[test]
fn a_stale_cursor_stays_stale_past_2_pow_32_changes() {
    let mut m = Map::new(Allocator::default());
    for i in 0..10 {
        m.set(&IntKey::new(TAG_U64, i), v(i)).unwrap();
    }
    m.epoch = (1 << 32) - 1;
    let mut it = Iter::new(&m);
    m.set(&IntKey::new(TAG_U64, 10), v(10)).unwrap();
    // 2^32 changes in all since the stamp, the last one just made: the
    // low 32 bits are the stamp's again.
    m.epoch += (1 << 32) - 1;
    assert_eq!(m.epoch as u32, u32::MAX);
    assert!(matches!(m.iter_next(&mut it), Err(Error::Invalid)));
    assert!(matches!(m.iter_delete(&mut it), Err(Error::Invalid)));
    assert_eq!(m.len(), 11);
    m.free();
}

/// Every length class of the byte keys' lookup and take (`write.rs`'s
/// table), their edges included, as the Rust side calls them: the C layer
/// sends keys of more than 32 bytes elsewhere first, so its suites do not
/// reach the longer classes here.
#[test]
fn byte_key_classes_find_and_take_their_keys() {
    let lens = [0, 1, 15, 16, 17, 31, 32, 33, 64, 127, 128, 129, 200, 1000];
    let keys: Vec<Vec<u8>> = lens
        .iter()
        .map(|&l| (0..l).map(|i| (i * 7 + l) as u8).collect())
        .collect();
    let mut m = Map::new(Allocator::default());
    for (i, k) in keys.iter().enumerate() {
        m.set(&Needle::bytes(k), v(i as u64 + 1)).unwrap();
    }
    for (i, k) in keys.iter().enumerate() {
        let mut got = None;
        m.get_bytes_guarded::<Bare>(Needle::bytes(k), |x| got = Some(x))
            .unwrap();
        assert_eq!(got, Some(v(i as u64 + 1)), "length {}", k.len());
        let mut other = k.clone();
        other.push(0xAB);
        let missing = m.get_bytes_guarded::<Bare>(Needle::bytes(&other), |_| panic!("found"));
        assert_eq!(missing, Err(Error::NotFound), "length {}", other.len());
    }
    for (i, k) in keys.iter().enumerate() {
        assert_eq!(
            m.take_bytes_guarded::<Bare>(Needle::bytes(k)),
            Ok(v(i as u64 + 1))
        );
        assert_eq!(
            m.take_bytes_guarded::<Bare>(Needle::bytes(k)),
            Err(Error::NotFound)
        );
    }
    assert_eq!(m.len(), 0);
    m.free();
}
