//! Model tests: the map against `std::collections::HashMap`, with the
//! invariant checker after every step, and allocation-failure injection.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::ffi::c_void;

use crate::alloc::Allocator;
use crate::key::{IntKey, KeyRepr, Needle, TAG_I64, TAG_U64};
use crate::map::Map;
use crate::Error;
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Key {
    Bytes(Vec<u8>),
    I64(i64),
    U64(u64),
}

/// A key as the map takes it: integers through `IntKey` (their fast
/// path), bytes through `Needle`. Both paths must agree on the 10-byte
/// encoding, which the byte keys below also produce.
#[derive(Clone, Copy)]
enum Probe<'a> {
    Bytes(Needle<'a>),
    Int(IntKey),
}

impl crate::key::Key for Probe<'_> {
    fn hash(&self, seed: u64) -> u64 {
        match self {
            Probe::Bytes(n) => n.hash(seed),
            Probe::Int(k) => k.hash(seed),
        }
    }

    unsafe fn matches(&self, stored: &KeyRepr) -> bool {
        // SAFETY: the caller's guarantee, passed on.
        unsafe {
            match self {
                Probe::Bytes(n) => n.matches(stored),
                Probe::Int(k) => k.matches(stored),
            }
        }
    }

    fn to_stored(&self, alloc: &Allocator) -> Result<KeyRepr, Error> {
        match self {
            Probe::Bytes(n) => n.to_stored(alloc),
            Probe::Int(k) => k.to_stored(alloc),
        }
    }

    fn int(&self) -> Option<(u8, u64)> {
        match self {
            Probe::Bytes(n) => n.int(),
            Probe::Int(k) => k.int(),
        }
    }
}

impl Key {
    fn needle(&self) -> Probe<'_> {
        match self {
            Key::Bytes(b) => Probe::Bytes(Needle::bytes(b)),
            Key::I64(v) => Probe::Int(IntKey::new(TAG_I64, *v as u64)),
            Key::U64(v) => Probe::Int(IntKey::new(TAG_U64, *v)),
        }
    }

    /// The bytes the map stores (the 10-byte encoding for integers).
    fn encoded(&self) -> Vec<u8> {
        let (tag, v) = match self {
            Key::Bytes(b) => return b.clone(),
            Key::I64(v) => (TAG_I64, *v as u64),
            Key::U64(v) => (TAG_U64, *v),
        };
        let mut enc = vec![0, tag];
        enc.extend_from_slice(&v.to_le_bytes());
        enc
    }
}

#[derive(Clone, Debug)]
enum Op {
    Set(Key, usize),
    Delete(Key),
    Get(Key),
    DeleteIf(u8),
    Clear,
    Compact,
    Reserve(u16),
    Clone,
}

fn key() -> impl Strategy<Value = Key> {
    prop_oneof![
        // Small spaces so that keys repeat: replaces and deletes that hit.
        (0u64..400).prop_map(Key::U64),
        (-200i64..200).prop_map(Key::I64),
        proptest::collection::vec(0u8..4, 0..40).prop_map(Key::Bytes),
    ]
}

/// Mostly `u64` keys, enough of them to split tables, with now and then
/// a byte key that is a `u64` key's encoding (the same key), an `i64` key
/// or a string: integer tables, and their turn to the general layout.
fn mostly_u64_key() -> impl Strategy<Value = Key> {
    prop_oneof![
        90 => (0u64..3000).prop_map(Key::U64),
        6 => (0u64..3000).prop_map(|v| Key::Bytes(Key::U64(v).encoded())),
        2 => (-50i64..50).prop_map(Key::I64),
        2 => proptest::collection::vec(0u8..4, 0..40).prop_map(Key::Bytes),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    op_with(key().boxed())
}

fn op_with(key: BoxedStrategy<Key>) -> impl Strategy<Value = Op> {
    prop_oneof![
        40 => (key.clone(), any::<usize>()).prop_map(|(k, v)| Op::Set(k, v)),
        20 => key.clone().prop_map(Op::Delete),
        15 => key.prop_map(Op::Get),
        2 => any::<u8>().prop_map(Op::DeleteIf),
        1 => Just(Op::Clear),
        2 => Just(Op::Compact),
        2 => (0u16..3000).prop_map(Op::Reserve),
        2 => Just(Op::Clone),
    ]
}

fn contents(m: &Map) -> HashMap<Vec<u8>, usize> {
    let mut out = HashMap::new();
    m.visit(|k, v| {
        assert!(
            out.insert(k.to_vec(), v as usize).is_none(),
            "key walked twice"
        );
        0
    });
    out
}

fn check(m: &Map, model: &HashMap<Vec<u8>, usize>) {
    if let Err(e) = m.check() {
        panic!("invariant: {e:?}");
    }
    assert_eq!(m.len(), model.len() as u64);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn behaves_like_a_hashmap(ops in proptest::collection::vec(op(), 1..1500)) {
        run(ops)?;
    }

    #[test]
    fn integer_tables_behave_like_a_hashmap(
        ops in proptest::collection::vec(op_with(mostly_u64_key().boxed()), 1..4000)
    ) {
        run(ops)?;
    }
}

fn run(ops: Vec<Op>) -> Result<(), TestCaseError> {
    let mut m = Map::new(Allocator::default());
    let mut model: HashMap<Vec<u8>, usize> = HashMap::new();
    for op in ops {
        match op {
            Op::Set(k, v) => {
                m.set(&k.needle(), v as *mut c_void).unwrap();
                model.insert(k.encoded(), v);
            }
            Op::Delete(k) => {
                let r = m.delete(&k.needle());
                let expected = model.remove(&k.encoded());
                prop_assert_eq!(r.is_ok(), expected.is_some());
                if r.is_err() {
                    prop_assert_eq!(r, Err(Error::NotFound));
                }
            }
            Op::Get(k) => {
                let got = m.get(&k.needle()).map(|v| v as usize);
                prop_assert_eq!(got, model.get(&k.encoded()).copied());
            }
            Op::DeleteIf(b) => {
                // Delete entries whose value's low byte is below b.
                let this: *mut Map = &mut m;
                unsafe {
                    Map::delete_if::<crate::guard::Bare>(this, |_, _, v| {
                        ((v as usize as u8) < b) as i32
                    })
                }
                .unwrap();
                model.retain(|_, v| (*v as u8) >= b);
            }
            Op::Clear => {
                let cap = m.capacity();
                m.clear();
                model.clear();
                prop_assert_eq!(m.capacity(), cap);
            }
            Op::Compact => m.compact().unwrap(),
            Op::Reserve(n) => {
                m.reserve(n as u64).unwrap();
                prop_assert!(m.capacity() >= (n as u64).min(m.len()));
            }
            Op::Clone => {
                let mut c = m.try_clone(Allocator::default()).unwrap();
                check(&c, &model);
                prop_assert_eq!(contents(&c), contents(&m));
                // Same order: tables are copied, not rehashed.
                let mut a = vec![];
                m.visit(|k, _| {
                    a.push(k.to_vec());
                    0
                });
                let mut b = vec![];
                c.visit(|k, _| {
                    b.push(k.to_vec());
                    0
                });
                prop_assert_eq!(a, b);
                // Independent: changing the copy leaves the source alone
                // (long keys included: they must be copies, not shared).
                let probe = b"a key only the clone ever holds".to_vec();
                c.set(&Needle::bytes(&probe), std::ptr::null_mut()).unwrap();
                let mut c_keys = vec![];
                c.visit(|k, _| {
                    c_keys.push(k.to_vec());
                    0
                });
                for k in c_keys
                    .iter()
                    .filter(|k| k.len() > crate::key::INLINE)
                    .take(5)
                {
                    c.delete(&Needle::bytes(k)).unwrap();
                }
                c.free();
                prop_assert_eq!(m.get(&Needle::bytes(&probe)), None);
                prop_assert_eq!(contents(&m), model.clone());
            }
        }
        check(&m, &model);
    }
    prop_assert_eq!(contents(&m), model);
    m.free();
    prop_assert_eq!(m.len(), 0);
    Ok(())
}

#[test]
fn growth_splits_and_finds_everything() {
    let mut m = Map::new(Allocator::default());
    for i in 0..200_000u64 {
        m.set(&IntKey::new(TAG_U64, i), (i + 1) as *mut c_void)
            .unwrap();
        if i % 20_000 == 0 {
            m.check().unwrap();
        }
    }
    m.check().unwrap();
    for i in 0..200_000u64 {
        assert_eq!(
            m.get(&IntKey::new(TAG_U64, i)),
            Some((i + 1) as *mut c_void)
        );
    }
    assert_eq!(m.get(&IntKey::new(TAG_I64, 5)), None);
    m.free();
}

#[test]
fn tombstones_are_reused_and_pruned() {
    let mut m = Map::new(Allocator::default());
    // Churn: the key set stays small while tombstones come and go.
    for round in 0..50u64 {
        for i in 0..600u64 {
            m.set(
                &IntKey::new(TAG_U64, round * 1000 + i),
                std::ptr::null_mut(),
            )
            .unwrap();
        }
        for i in 0..600u64 {
            m.delete(&IntKey::new(TAG_U64, round * 1000 + i)).unwrap();
        }
        m.check().unwrap();
    }
    // A churning map of at most 600 keys must not have grown past what
    // 600 keys need (prunes in place instead of growing).
    assert!(m.capacity() <= 2048, "capacity {}", m.capacity());
    m.free();
}

// --- Allocation failure injection -------------------------------------

thread_local! {
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
    static FREES: Cell<u64> = const { Cell::new(0) };
    static FAIL_AT: Cell<u64> = const { Cell::new(u64::MAX) };
}

extern "C" {
    fn malloc(size: usize) -> *mut c_void;
    fn free(p: *mut c_void);
}

thread_local! {
    /// The sizes of the live blocks of `test_allocate`, by address.
    static LIVE: RefCell<HashMap<usize, usize>> = RefCell::new(HashMap::new());
}

/// The context the test allocator is given, checked on every call.
static CONTEXT: u8 = 0;

fn context() -> *mut c_void {
    (&raw const CONTEXT).cast_mut().cast()
}

fn next_fails() -> bool {
    ALLOCS.with(|a| {
        a.set(a.get() + 1);
        a.get() == FAIL_AT.with(|f| f.get())
    })
}

/// Allocates through `malloc`, failing where the test says, and records
/// each block's size.
unsafe extern "C" fn test_allocate(ctx: *mut c_void, size: usize) -> *mut c_void {
    assert_eq!(ctx, context());
    assert!(size > 0);
    if next_fails() {
        return std::ptr::null_mut();
    }
    let p = unsafe { malloc(size) };
    assert_eq!(p as usize % 8, 0);
    LIVE.with(|l| l.borrow_mut().insert(p as usize, size));
    p
}

/// Checks that a block comes back with its context and size.
unsafe extern "C" fn test_release(ctx: *mut c_void, p: *mut c_void, size: usize) {
    assert_eq!(ctx, context());
    let had = LIVE.with(|l| l.borrow_mut().remove(&(p as usize)));
    assert_eq!(had, Some(size), "released with another size");
    FREES.with(|f| f.set(f.get() + 1));
    unsafe { free(p) }
}

fn test_allocator() -> Allocator {
    Allocator::own(Some(test_allocate), Some(test_release), context()).unwrap()
}

fn long_key(i: u64) -> Vec<u8> {
    format!("a long key, past the inline limit, number {i:>8}").into_bytes()
}

fn m_alloc(m: &Map) -> Allocator {
    m.clone_allocator()
}

#[test]
fn every_failed_allocation_changes_nothing() {
    let alloc = test_allocator();
    // Count the allocations of a clean run.
    ALLOCS.with(|a| a.set(0));
    FAIL_AT.with(|f| f.set(u64::MAX));
    let mut m = Map::new(alloc);
    workload_checked(&mut m).unwrap();
    m.free();
    let total = ALLOCS.with(|a| a.get());
    assert!(total > 1000, "workload allocated only {total} times");

    // Fail each allocation in turn.
    let mut n = 1;
    while n <= total {
        ALLOCS.with(|a| a.set(0));
        FREES.with(|f| f.set(0));
        FAIL_AT.with(|f| f.set(n));
        let mut m = Map::new(alloc);
        let err = workload_checked(&mut m);
        assert_eq!(err, Err(Error::Alloc), "allocation {n} did not surface");
        m.check().unwrap();
        // The map still works after the failure.
        FAIL_AT.with(|f| f.set(u64::MAX));
        m.set(
            &Needle::bytes(b"after the failure, a long key"),
            7 as *mut c_void,
        )
        .unwrap();
        assert_eq!(
            m.get(&Needle::bytes(b"after the failure, a long key")),
            Some(7 as *mut c_void)
        );
        m.free();
        let (allocs, frees) = (ALLOCS.with(|a| a.get()), FREES.with(|f| f.get()));
        assert_eq!(allocs - 1, frees, "leak after failing allocation {n}");
        assert!(LIVE.with(|l| l.borrow().is_empty()));
        n += 1;
    }
}

/// A workload that passes every allocating path (growth, splits,
/// directory doublings, integer tables turning general, key copies, clone,
/// compact, reserve), with a model of what the map must hold: a call that
/// fails must leave the map equal to the model (which only records calls
/// that succeeded), checked once, at the failure.
fn workload_checked(m: &mut Map) -> Result<(), Error> {
    let mut model: HashMap<Vec<u8>, usize> = HashMap::new();
    let fail = |m: &Map, model: &HashMap<Vec<u8>, usize>, e: Error| {
        assert_eq!(&contents(m), model, "a failed call changed the map");
        e
    };
    // Integer tables first (growth and splits), then long keys that turn
    // each of them general.
    for i in 0..3000u64 {
        let k = IntKey::new(TAG_U64, i);
        m.set(&k, i as *mut c_void)
            .map_err(|e| fail(m, &model, e))?;
        model.insert(Key::U64(i).encoded(), i as usize);
    }
    for i in (0..3000u64).step_by(3) {
        let key = long_key(i);
        m.set(&Needle::bytes(&key), i as *mut c_void)
            .map_err(|e| fail(m, &model, e))?;
        model.insert(key, i as usize);
    }
    let mut c = m.try_clone(m_alloc(m)).map_err(|e| fail(m, &model, e))?;
    assert_eq!(contents(&c), model);
    c.free();
    for i in 0..2000u64 {
        let k = IntKey::new(TAG_U64, i);
        m.delete(&k).map_err(|e| fail(m, &model, e))?;
        model.remove(&Key::U64(i).encoded());
    }
    m.compact().map_err(|e| fail(m, &model, e))?;
    m.reserve(8000).map_err(|e| fail(m, &model, e))?;
    assert_eq!(contents(m), model);
    Ok(())
}
