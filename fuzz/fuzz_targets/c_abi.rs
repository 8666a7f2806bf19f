//! The C ABI under hostile use: NULL for every pointer argument, sizes that
//! cannot exist, forged and foreign keys, out-of-range rows and columns,
//! and walks of every kind (each, delete_if and erase_if, sorts, joins)
//! whose callbacks call back in: removing their given key, adding keys,
//! replacing values, clearing or freeing the walked structure, walking it
//! again and leaving that walk by `longjmp`, writing other structures;
//! walks left by `longjmp` at a chosen visit, alone or together with a
//! walk nested in them. Each walk's code and visits follow SPEC §3c, the
//! structures then hold what the models say and take writes again, and
//! nothing may crash, leak or break an invariant.
#![no_main]

use core::ffi::{c_char, c_void};
use core::ptr::{null, null_mut};
use std::collections::{BTreeMap, BTreeSet};

use libfuzzer_sys::fuzz_target;

#[path = "ffi.rs"]
mod ffi;
use ffi::*;

/// The structures the walks walk, moved here (a `memcpy`, allowed between
/// calls), and what they hold.
struct Abi {
    map: slate_s,
    other: slate_s,
    sm: slotmap_s,
    sp: slotmap_sparse_s,
    /// The map's `u64` keys and their values.
    map_model: BTreeMap<u64, usize>,
    /// The slotmap's live keys, and keys it erased.
    live: BTreeSet<u64>,
    stale: Vec<u64>,
    /// The set's keys (its rows are not followed).
    set: BTreeSet<u64>,
    membership: bool,
    next: u64,
}

/// Writes a walk's callback makes to the walked structure.
const ABI_WRITES: u8 = 9;

/// A walk's callback data: the write it makes at visit `at`.
struct Ctx {
    abi: *mut Abi,
    kind: WalkKind,
    at: usize,
    write: u8,
    /// The answer at visit `at`.
    ret: i32,
    /// A predicate's answer at other visits.
    answer: i32,
    /// Where the nested walk of writes 6 and 7 jumps.
    nested_at: u32,
    /// The join's owner, or NULL.
    owner: *const slotmap_s,
    seen: Vec<u64>,
    visits: usize,
    effect: Option<Effect>,
}

impl Ctx {
    fn new(abi: *mut Abi, kind: WalkKind) -> Ctx {
        Ctx {
            abi,
            kind,
            at: usize::MAX,
            write: 0,
            ret: 0,
            answer: 0,
            nested_at: 0,
            owner: null(),
            seen: Vec::new(),
            visits: 0,
            effect: None,
        }
    }

    fn abi(&mut self) -> &mut Abi {
        // SAFETY: a live `Abi`; each reference lives for one call.
        unsafe { &mut *self.abi }
    }

    /// The walked structure lost `key` (and the model with it).
    fn removed(&mut self, key: u64) {
        let kind = self.kind;
        let a = self.abi();
        let had = match kind {
            WalkKind::MapEach | WalkKind::MapDeleteIf => a.map_model.remove(&key).is_some(),
            WalkKind::SlotmapEach | WalkKind::SlotmapEraseIf | WalkKind::SlotmapSort => {
                a.stale.push(key);
                a.live.remove(&key)
            }
            _ => a.set.remove(&key),
        };
        assert!(had, "{kind:?}: removed {key:#x}, not there");
    }

    /// The walked structure's keys.
    fn keys(&mut self) -> Vec<u64> {
        let kind = self.kind;
        let a = self.abi();
        match kind {
            WalkKind::MapEach | WalkKind::MapDeleteIf => a.map_model.keys().copied().collect(),
            WalkKind::SlotmapEach | WalkKind::SlotmapEraseIf | WalkKind::SlotmapSort => {
                a.live.iter().copied().collect()
            }
            _ => a.set.iter().copied().collect(),
        }
    }
}

/// The walk of `kind` over `a`'s structures, with `ctx_cb`'s callbacks.
fn walk_of(
    a: *mut Abi,
    kind: WalkKind,
    owner: *const slotmap_s,
    sets: *const *mut slotmap_sparse_s,
    count: u32,
) -> Walk {
    // SAFETY: a live `Abi`; only addresses are taken.
    let structure: *mut c_void = unsafe {
        match kind {
            WalkKind::MapEach | WalkKind::MapDeleteIf => (&raw mut (*a).map).cast(),
            WalkKind::SlotmapEach | WalkKind::SlotmapEraseIf | WalkKind::SlotmapSort => {
                (&raw mut (*a).sm).cast()
            }
            _ => (&raw mut (*a).sp).cast(),
        }
    };
    Walk {
        owner,
        sets,
        count,
        map: Some(map_cb),
        rows: Some(rows_cb),
        less: Some(less_cb),
        join: Some(join_cb),
        ..Walk::new(kind, structure)
    }
}

/// The `each` walk and the erasing walk of the structure `kind` walks.
fn kinds_of(kind: WalkKind) -> (WalkKind, WalkKind) {
    match kind {
        WalkKind::MapEach | WalkKind::MapDeleteIf => (WalkKind::MapEach, WalkKind::MapDeleteIf),
        WalkKind::SlotmapEach | WalkKind::SlotmapEraseIf | WalkKind::SlotmapSort => {
            (WalkKind::SlotmapEach, WalkKind::SlotmapEraseIf)
        }
        _ => (WalkKind::SparseEach, WalkKind::SparseEraseIf),
    }
}

/// The write `c.write` from a callback given `g`; the model follows it.
///
/// # Safety
/// `c.abi` is live; called from a walk's callback.
unsafe fn abi_write(c: &mut Ctx, g: u64) -> Effect {
    let kind = c.kind;
    let a = c.abi;
    let keys = c.keys();
    // SAFETY (all): the caller's guarantee.
    unsafe {
        let map = &raw mut (*a).map;
        let sm = &raw mut (*a).sm;
        let sp = &raw mut (*a).sp;
        let on_map = matches!(kind, WalkKind::MapEach | WalkKind::MapDeleteIf);
        let on_slotmap = matches!(
            kind,
            WalkKind::SlotmapEach | WalkKind::SlotmapEraseIf | WalkKind::SlotmapSort
        );
        match c.write % ABI_WRITES {
            0 => Effect::Same,
            1 => {
                let rc = if on_map {
                    slate_delete_u64(map, g)
                } else if on_slotmap {
                    slotmap_erase(sm, g)
                } else {
                    slotmap_sparse_erase(sp, g)
                };
                assert_eq!(rc, OK, "{kind:?}: remove the given key {g:#x}");
                c.removed(g);
                Effect::Removed
            }
            2 => {
                if on_map {
                    let k = (*a).next;
                    (*a).next += 1;
                    assert_eq!(slate_set_u64(map, k, value(k)), OK);
                    (*a).map_model.insert(k, k as usize);
                } else if on_slotmap {
                    let mut k = 0;
                    assert_eq!(slotmap_insert(sm, null(), &mut k), OK);
                    (*a).live.insert(k);
                } else {
                    let Some(&k) = (*a).live.iter().find(|k| !(*a).set.contains(k)) else {
                        return Effect::Same;
                    };
                    assert_eq!(slotmap_sparse_set(sp, sm, k, null()), OK);
                    // It takes the place of a dead key of its slot.
                    (*a).set.retain(|&o| o as u32 != k as u32);
                    (*a).set.insert(k);
                }
                Effect::Changed
            }
            3 => {
                // The given key's value replaced.
                if on_map {
                    assert_eq!(slate_set_u64(map, g, value(g + 1)), OK);
                    (*a).map_model.insert(g, g as usize + 1);
                } else if on_slotmap {
                    let mut e: *mut c_void = null_mut();
                    assert_eq!(slotmap_get(sm, g, &mut e), OK);
                    *e.cast::<u8>() ^= 1;
                } else {
                    let rc = slotmap_sparse_set(sp, sm, g, null());
                    assert_eq!(
                        rc,
                        if (*a).live.contains(&g) {
                            OK
                        } else {
                            NOT_FOUND
                        }
                    );
                }
                Effect::Same
            }
            4 | 5 => {
                let clear = c.write % ABI_WRITES == 4;
                match (on_map, on_slotmap, clear) {
                    (true, _, true) => assert_eq!(slate_clear(map), OK),
                    (true, _, false) => slate_free(map),
                    (_, true, true) => assert_eq!(slotmap_clear(sm), OK),
                    (_, true, false) => slotmap_free(sm),
                    (_, _, true) => assert_eq!(slotmap_sparse_clear(sp), OK),
                    _ => slotmap_sparse_free(sp),
                }
                for &k in &keys {
                    c.removed(k);
                }
                Effect::of(&g, &keys, false)
            }
            6 | 7 => {
                // The walked structure walked again, left by `longjmp`
                // at the nested walk's visit `nested_at`: an `each`, or an
                // erasing walk that erases every key it visits.
                let (each, erase) = kinds_of(kind);
                let erasing = c.write % ABI_WRITES == 7;
                let inner = if erasing { erase } else { each };
                let mut n = Ctx::new(a, inner);
                n.answer = 1;
                let nested = walk_of(a, inner, null(), null(), 0);
                let walked = nested.run((&mut n as *mut Ctx).cast(), Some(c.nested_at));
                let visited = keys.len().min(c.nested_at as usize);
                match walked {
                    Walked::Jumped(j) => assert_eq!(n.visits, j as usize),
                    Walked::Returned(rc) => {
                        assert_eq!(rc, OK, "{inner:?} nested");
                        assert_eq!(n.visits, keys.len(), "{inner:?} nested");
                    }
                }
                assert_eq!(n.visits, visited, "{inner:?} nested: its visits");
                if erasing {
                    Effect::of(&g, &n.seen, false)
                } else {
                    Effect::Same
                }
            }
            _ => {
                // Another map: anything goes.
                let k = (*a).next;
                (*a).next += 1;
                assert_eq!(slate_set_u64(&raw mut (*a).other, k, null_mut()), OK);
                Effect::Same
            }
        }
    }
}

/// A visit of key `g`, checked: the write or the predicate's answer, and
/// the model following it.
///
/// # Safety
/// `c.abi` is live; called from a walk's callback.
unsafe fn abi_visit(c: &mut Ctx, g: u64) -> i32 {
    assert!(!c.seen.contains(&g), "{:?}: visited {g:#x} twice", c.kind);
    c.seen.push(g);
    let i = c.visits;
    c.visits += 1;
    let erasing = matches!(
        c.kind,
        WalkKind::MapDeleteIf | WalkKind::SlotmapEraseIf | WalkKind::SparseEraseIf
    );
    let (answer, effect) = if i == c.at {
        // SAFETY: the caller's guarantee.
        let e = unsafe { abi_write(c, g) };
        c.effect = Some(e);
        (c.ret, e)
    } else {
        // A predicate's answer; an `each` goes on.
        (if erasing { c.answer } else { 0 }, Effect::Same)
    };
    if erasing && effect == Effect::Same && answer != 0 {
        // The walk removes it once the predicate returns.
        c.removed(g);
    }
    answer
}

unsafe extern "C" fn map_cb(k: *const c_char, n: u32, v: *mut c_void, data: *mut c_void) -> i32 {
    // SAFETY: `data` is a live `Ctx`; the key lives for this call.
    unsafe {
        let c = &mut *data.cast::<Ctx>();
        let mut key = 0u64;
        assert_eq!(slate_key_to_u64(k, n, &mut key), OK, "a key not set");
        assert_eq!(
            c.abi().map_model.get(&key),
            Some(&(v as usize)),
            "visited {key} with another value"
        );
        abi_visit(c, key)
    }
}

unsafe extern "C" fn rows_cb(key: slotmap_key, row: *mut c_void, data: *mut c_void) -> i32 {
    // SAFETY: `data` is a live `Ctx`.
    unsafe {
        let c = &mut *data.cast::<Ctx>();
        let mut e: *mut c_void = null_mut();
        if matches!(c.kind, WalkKind::SlotmapEach | WalkKind::SlotmapEraseIf) {
            assert!(c.abi().live.contains(&key), "visited {key:#x}, not live");
            assert_eq!(slotmap_get(&c.abi().sm, key, &mut e), OK);
        } else {
            assert!(
                c.abi().set.contains(&key),
                "visited {key:#x}, not in the set"
            );
            assert_eq!(slotmap_sparse_get(&c.abi().sp, key, &mut e), OK);
        }
        assert_eq!(e, row, "visited {key:#x} with another row");
        abi_visit(c, key)
    }
}

unsafe extern "C" fn less_cb(a: *const c_void, b: *const c_void, data: *mut c_void) -> i32 {
    // SAFETY: `data` is a live `Ctx`; column 0 has at least a byte.
    unsafe {
        let c = &mut *data.cast::<Ctx>();
        let answer = (*a.cast::<u8>() < *b.cast::<u8>()) as i32;
        let i = c.visits;
        c.visits += 1;
        if i == c.at {
            let g = if c.kind == WalkKind::SlotmapSort {
                slotmap_key_at(&c.abi().sm, 0)
            } else {
                slotmap_sparse_key_at(&c.abi().sp, 0)
            };
            c.effect = Some(abi_write(c, g));
        }
        answer
    }
}

unsafe extern "C" fn join_cb(
    key: slotmap_key,
    rows: *const u32,
    elements: *const *mut c_void,
    data: *mut c_void,
) -> i32 {
    // SAFETY: `data` is a live `Ctx`; the arrays hold the set's entry (and
    // the owner's).
    unsafe {
        let c = &mut *data.cast::<Ctx>();
        assert!(
            c.abi().set.contains(&key),
            "joined {key:#x}, not in the set"
        );
        let (mut r, mut e) = (u32::MAX, null_mut());
        assert_eq!(slotmap_sparse_row(&c.abi().sp, key, &mut r), OK);
        assert_eq!(slotmap_sparse_get(&c.abi().sp, key, &mut e), OK);
        assert_eq!((*rows, *elements), (r, e));
        if !c.owner.is_null() {
            assert!(c.abi().live.contains(&key), "joined {key:#x}, dead");
        }
        abi_visit(c, key)
    }
}

/// Every structure as its model says, and each still takes writes from
/// this (shallower) frame.
fn verify(a: &mut Abi) {
    // SAFETY (all): initialized structures.
    unsafe {
        assert_eq!(slate_length(&a.map), a.map_model.len() as u64);
        for (&k, &v) in &a.map_model {
            let mut got = null_mut();
            assert_eq!(slate_get_u64(&a.map, k, &mut got), OK, "map key {k}");
            assert_eq!(got as usize, v);
        }
        if let Err(why) = check(&a.map) {
            panic!("invariant broken: {why}");
        }
        assert_eq!(slotmap_length(&a.sm), a.live.len() as u32);
        for r in 0..slotmap_length(&a.sm) {
            let k = slotmap_key_at(&a.sm, r);
            assert!(a.live.contains(&k), "row {r}: key {k:#x}");
            let mut row = u32::MAX;
            assert_eq!(slotmap_row(&a.sm, k, &mut row), OK);
            assert_eq!(row, r);
        }
        for &k in &a.stale {
            assert_eq!(slotmap_contains(&a.sm, k), 0, "stale key {k:#x}");
        }
        assert_eq!(slotmap_sparse_length(&a.sp), a.set.len() as u32);
        for r in 0..slotmap_sparse_length(&a.sp) {
            let k = slotmap_sparse_key_at(&a.sp, r);
            assert!(a.set.contains(&k), "set row {r}: key {k:#x}");
        }
        // Writes from here: nothing is left of an abandoned walk.
        let k = a.next;
        a.next += 1;
        assert_eq!(slate_set_u64(&mut a.map, k, value(k)), OK);
        assert_eq!(slate_delete_u64(&mut a.map, k), OK);
        let mut key = 0;
        assert_eq!(slotmap_insert(&mut a.sm, null(), &mut key), OK);
        assert_eq!(slotmap_sparse_set(&mut a.sp, &a.sm, key, null()), OK);
        assert_eq!(slotmap_sparse_erase(&mut a.sp, key), OK);
        // The new key took the place of a dead key of its slot.
        a.set.retain(|&o| o as u32 != key as u32);
        assert_eq!(slotmap_erase(&mut a.sm, key), OK);
        a.stale.push(key);
    }
}

fn value(k: u64) -> *mut c_void {
    k as usize as *mut c_void
}

/// Walks of every kind with a write from the callback, left by `longjmp`
/// at a chosen visit (from the walk alone, or from a walk nested in it,
/// leaving both), or by returning, checked against SPEC §3c and the
/// models; the structures are then used again.
fn walks(input: &mut Input, a: &mut Abi) {
    const KINDS: [WalkKind; 9] = [
        WalkKind::MapEach,
        WalkKind::MapDeleteIf,
        WalkKind::SlotmapEach,
        WalkKind::SlotmapEraseIf,
        WalkKind::SlotmapSort,
        WalkKind::SparseEach,
        WalkKind::SparseEraseIf,
        WalkKind::SparseSort,
        WalkKind::Join,
    ];
    for _ in 0..8 {
        if input.is_empty() {
            break;
        }
        let kind = KINDS[input.byte() as usize % KINDS.len()];
        let mode = input.byte();
        let write = input.byte();
        let at = input.byte() as usize % 64;
        let jump = input.byte() as u32 % 64;
        let nested_at = input.byte() as u32 % 64;
        let sort = matches!(kind, WalkKind::SlotmapSort | WalkKind::SparseSort);
        let a: *mut Abi = a;
        // SAFETY: a live `Abi`.
        let sp = unsafe { &raw mut (*a).sp };
        let sets = [sp, sp];
        let owner: *const slotmap_s = if mode & 16 != 0 {
            // SAFETY: as above.
            unsafe { &raw const (*a).sm }
        } else {
            null()
        };
        let walk = walk_of(a, kind, owner, sets.as_ptr(), 1 + (mode >> 5 & 1) as u32);
        let mut c = Ctx::new(a, kind);
        c.at = at;
        c.write = write;
        c.ret = [0, 1, -5][mode as usize % 3];
        c.answer = (mode >> 2 & 1) as i32;
        c.nested_at = nested_at;
        c.owner = owner;
        let start = c.keys();
        // The keys a join visits.
        let want: BTreeSet<u64> = start
            .iter()
            .copied()
            // SAFETY: as above.
            .filter(|k| owner.is_null() || unsafe { (*a).live.contains(k) })
            .collect();
        let data = (&mut c as *mut Ctx).cast();
        // Jump: from the walk (mode bit 3), or from a walk nested in it
        // (bit 6) with its own callback data.
        let mut inner = Ctx::new(a, kind);
        inner.answer = 1;
        // SAFETY: live structures of the kind; `c` and `inner` outlive
        // the walk.
        let (walked, inner_visits) = unsafe {
            match (mode & 8 != 0, mode & 64 != 0) {
                (false, _) => (walk.run(data, None), 0),
                (true, false) => walk.jump(data, jump, None),
                (true, true) => walk.jump(
                    data,
                    jump,
                    Some((nested_at, (&mut inner as *mut Ctx).cast())),
                ),
            }
        };
        let erasing = matches!(
            kind,
            WalkKind::MapDeleteIf | WalkKind::SlotmapEraseIf | WalkKind::SparseEraseIf
        );
        let stop = match c.effect {
            Some(_) if !erasing && !sort && c.ret != 0 => Some(c.ret),
            Some(Effect::Changed) => Some(INVALID),
            Some(Effect::Removed) if sort => Some(INVALID),
            _ => None,
        };
        let desc = format!(
            "{kind:?} write {} at {at} (effect {:?}, ret {}), {walked:?}",
            write % ABI_WRITES,
            c.effect,
            c.ret
        );
        // SAFETY: as above.
        let membership = unsafe { (*a).membership };
        match walked {
            Walked::Returned(INVALID) if kind == WalkKind::SparseSort && membership => {
                assert_eq!(c.visits, 0, "{desc}");
            }
            Walked::Returned(rc) => {
                assert_eq!(rc, stop.unwrap_or(OK), "{desc}: the walk's code");
                if stop.is_some() {
                    assert_eq!(c.visits, at + 1, "{desc}: visits after a stop");
                } else if kind == WalkKind::Join {
                    let seen: BTreeSet<u64> = c.seen.iter().copied().collect();
                    assert_eq!(seen, want, "{desc}: the join's visits");
                } else if !sort {
                    let seen: BTreeSet<u64> = c.seen.iter().copied().collect();
                    let start: BTreeSet<u64> = start.iter().copied().collect();
                    assert_eq!(seen, start, "{desc}: not every key visited once");
                }
            }
            Walked::Jumped(j) => {
                assert!(stop.is_none(), "{desc}: the walk went on after a stop");
                assert_eq!(c.visits, j as usize, "{desc}: visits before the jump");
                if mode & 64 != 0 {
                    // The inner walk's calls, but the jumping one.
                    assert_eq!(inner.visits, inner_visits.min(nested_at) as usize, "{desc}");
                }
            }
        }
        // SAFETY: a live `Abi`; no walk runs.
        verify(unsafe { &mut *a });
    }
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input::new(data);
    let mut map = slate_s([0; 8]);
    let mut other = slate_s([0; 8]);
    let mut sm = slotmap_s([0; 24]);
    // SAFETY (every call below): structures initialized here; the hostile
    // arguments are NULLs, sizes and keys, never dangling pointers.
    unsafe {
        assert_eq!(slate(&mut map), OK);
        assert_eq!(slate(&mut other), OK);
        let n = input.byte() as u64 * 7;
        for k in 0..n {
            assert_eq!(slate_set_u64(&mut map, k, k as *mut c_void), OK);
        }
        let sizes: Vec<u32> = (0..1 + input.byte() % 18)
            .map(|_| input.u32() % 64)
            .collect();
        let rc = slotmap_columns(&mut sm, sizes.as_ptr(), sizes.len() as u32);
        let valid = sizes.len() <= 16 && sizes.iter().all(|&s| s > 0);
        if valid {
            assert_eq!(rc, OK);
        } else {
            assert!(rc == INVALID || rc == FULL, "columns {sizes:?}: {rc}");
            assert_eq!(slotmap(&mut sm, 1 + input.byte() as u32), OK);
        }
        let mut keys = vec![];
        for _ in 0..input.byte() % 40 {
            let mut k = 0;
            assert_eq!(slotmap_insert(&mut sm, null(), &mut k), OK);
            keys.push(k);
        }

        // NULL in every pointer position: INVALID (or its documented value).
        let mut v: *mut c_void = null_mut();
        assert_eq!(slate_set(null_mut(), c"k".as_ptr(), null_mut()), INVALID);
        assert_eq!(slate_set(&mut map, null(), null_mut()), INVALID);
        assert_eq!(slate_get(null(), c"k".as_ptr(), &mut v), INVALID);
        assert_eq!(slate_get(&map, null(), &mut v), INVALID);
        assert_eq!(slate_set_bytes(&mut map, null(), 5, null_mut()), INVALID);
        assert_eq!(slate_get_bytes(&map, null(), 0, null_mut()), NOT_FOUND);
        assert_eq!(slate_each(&map, None, null_mut()), INVALID);
        assert_eq!(slate_delete_if(&mut map, None, null_mut()), INVALID);
        assert_eq!(slate_equal(null(), &map), 0);
        assert_eq!(slate_length(null()), 0);
        assert_eq!(slate_clone(null_mut(), &map), INVALID);
        assert_eq!(slate_clone(&mut map, &map), INVALID);
        assert_eq!(slate_info(&map, null_mut()), INVALID);
        assert_eq!(slotmap_insert(&mut sm, null(), null_mut()), INVALID);
        assert_eq!(slotmap_row(&sm, 0, null_mut()), INVALID);
        assert_eq!(slotmap_sort(&mut sm, None, null_mut()), INVALID);
        assert_eq!(slotmap_each(&sm, None, null_mut()), INVALID);
        assert_eq!(slotmap_length(null()), 0);
        assert_eq!(slotmap_contains(null(), 1), 0);
        assert!(slotmap_column(null(), 0).is_null());
        slate_free(null_mut());
        slotmap_free(null_mut());
        assert_eq!(
            slate_use_allocator(None, Some(failing::f_calloc), None),
            INVALID
        );

        // Hostile numbers.
        let big = input.u64();
        let rc = slate_reserve(&mut map, big | 1 << 40);
        assert!(rc == FULL || rc == ALLOC, "reserve {big:#x}: {rc}");
        // Beyond the rows a slotmap can have, and beyond its limit: FULL,
        // before anything is allocated.
        assert_eq!(slotmap_reserve(&mut sm, u32::MAX), FULL);
        let limit = slotmap_length(&sm) + input.byte() as u32;
        assert_eq!(slotmap_limit(&mut sm, limit), OK);
        assert_eq!(
            slotmap_reserve(&mut sm, limit + 1 + input.u32() % (u32::MAX - limit - 1)),
            FULL
        );
        assert_eq!(slotmap_limit(&mut sm, u32::MAX), OK);
        for _ in 0..8 {
            let forged = input.u64();
            let live = keys.contains(&forged);
            assert_eq!(slotmap_contains(&sm, forged), live as i32);
            if !live {
                assert_eq!(slotmap_get(&sm, forged, &mut v), NOT_FOUND);
                assert_eq!(slotmap_erase(&mut sm, forged), NOT_FOUND);
            }
            let row = input.u32();
            if row >= slotmap_length(&sm) {
                assert_eq!(slotmap_key_at(&sm, row), 0);
            }
            let column = input.u32();
            if column as usize >= 16 {
                assert!(slotmap_column(&sm, column).is_null());
            }
        }
        let limit = input.u32() % 64;
        let rc = slotmap_limit(&mut sm, limit);
        assert_eq!(
            rc,
            if limit < slotmap_length(&sm) {
                INVALID
            } else {
                OK
            }
        );
        assert_eq!(slotmap_limit(&mut sm, u32::MAX), OK);

        // A set keyed by the slotmap's keys: membership, or a 4-byte
        // column holding the key's low bytes.
        let mut sp = slotmap_sparse_s([0; 24]);
        let membership = input.byte() & 1 == 0;
        assert_eq!(slotmap_sparse(&mut sp, if membership { 0 } else { 4 }), OK);
        let every = 1 + input.byte() as usize % 3;
        let mut set = BTreeSet::new();
        for &k in keys.iter().step_by(every) {
            let row = (k as u32).to_le_bytes();
            assert_eq!(slotmap_sparse_set(&mut sp, &sm, k, row.as_ptr().cast()), OK);
            set.insert(k);
        }

        // Walks whose callbacks write, left by longjmp or not.
        let mut a = Abi {
            map,
            other,
            sm,
            sp,
            map_model: (0..n).map(|k| (k, k as usize)).collect(),
            live: keys.iter().copied().collect(),
            stale: Vec::new(),
            set,
            membership,
            next: n,
        };
        walks(&mut input, &mut a);
        slate_free(&mut a.map);
        slate_free(&mut a.map);
        slate_free(&mut a.other);
        slotmap_free(&mut a.sm);
        slotmap_free(&mut a.sm);
        slotmap_sparse_free(&mut a.sp);
        assert_eq!(slate_length(&a.map), 0);
    }
});
