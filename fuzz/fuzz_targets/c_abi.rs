//! The C ABI under hostile use: NULL for every pointer argument, sizes that
//! cannot exist, forged and foreign keys, out-of-range rows and columns,
//! and callbacks that call back in: reading the walked structure (allowed),
//! modifying or re-initializing it (refused with `SLATE_ERROR_INVALID`),
//! walking it again, writing other structures. Nothing may crash, leak or
//! break an invariant, and every refusal must leave the structure as it
//! was.
#![no_main]

use core::ffi::{c_char, c_void};
use core::ptr::{null, null_mut};

use libfuzzer_sys::fuzz_target;

#[path = "ffi.rs"]
mod ffi;
use ffi::*;

/// What a callback does, chosen by the input.
struct Plan {
    map: *mut slate_s,
    other: *mut slate_s,
    sm: *mut slotmap_s,
    action: u8,
    depth: u32,
    calls: u32,
    refused: u32,
    bad: u32,
}

/// Inside a walk of `map` (or of `sm`): the action the input chose.
unsafe fn act(p: &mut Plan) {
    p.calls += 1;
    if p.calls > 3 {
        return;
    }
    // SAFETY: the plan's pointers are live, initialized structures.
    unsafe {
        let key = c"inside".as_ptr();
        let refused = |rc: i32| rc == INVALID;
        let ok = match p.action % 12 {
            0 => refused(slate_set(p.map, key, null_mut())),
            1 => refused(slate_delete(p.map, key)),
            2 => refused(slate_clear(p.map)),
            3 => refused(slate_compact(p.map)) && refused(slate_reserve(p.map, 1 << 20)),
            4 => refused(slate(p.map)) && refused(slate_clone(p.map, p.other)),
            5 => {
                slate_free(p.map); // does nothing inside the walk
                slate_length(p.map) > 0 || slate_get(p.map, key, null_mut()) == NOT_FOUND
            }
            // The slotmap is not walked here: it may change.
            6 => {
                let mut k = 0;
                slotmap_insert(p.sm, null(), &mut k) == OK && slotmap_erase(p.sm, k) == OK
            }
            7 => slotmap_reserve(p.sm, slotmap_length(p.sm) + 10) == OK,
            8 => {
                // A nested walk of the same map: reads are allowed.
                if p.depth < 2 {
                    p.depth += 1;
                    let rc = slate_each(p.map, Some(map_cb), (p as *mut Plan).cast());
                    p.depth -= 1;
                    rc == OK
                } else {
                    true
                }
            }
            9 => slate_set(p.other, key, null_mut()) == OK, // another map: allowed
            10 => {
                let mut copy = slate_s([0; 8]);
                let rc = slate_clone(&mut copy, p.map);
                let equal = slate_equal(&copy, p.map);
                slate_free(&mut copy);
                rc == OK && equal == 1
            }
            _ => slate_get(p.map, key, null_mut()) == NOT_FOUND || slate_length(p.map) > 0,
        };
        if ok {
            p.refused += 1;
        } else {
            p.bad += 1;
        }
    }
}

unsafe extern "C" fn map_cb(_k: *const c_char, _n: u32, _v: *mut c_void, data: *mut c_void) -> i32 {
    // SAFETY: `data` is the plan.
    unsafe { act(&mut *data.cast::<Plan>()) };
    0
}

unsafe extern "C" fn slotmap_cb(_k: slotmap_key, _row: *mut c_void, data: *mut c_void) -> i32 {
    // SAFETY: as above.
    let p = unsafe { &mut *data.cast::<Plan>() };
    // In a slotmap walk, the slotmap's own modifications are the refused ones.
    p.calls += 1;
    if p.calls <= 3 {
        // SAFETY: live structures.
        unsafe {
            let ok = match p.action % 4 {
                0 => slotmap_insert(p.sm, null(), &mut 0) == INVALID,
                1 => slotmap_erase(p.sm, slotmap_key_at(p.sm, 0)) == INVALID,
                2 => {
                    slotmap(p.sm, 8) == INVALID
                        && slotmap_columns(p.sm, [4u32, 4].as_ptr(), 2) == INVALID
                }
                _ => {
                    slotmap_sort(p.sm, Some(less), null_mut()) == INVALID
                        && slotmap_clear(p.sm) == INVALID
                }
            };
            if ok {
                p.refused += 1;
            } else {
                p.bad += 1;
            }
        }
    }
    0
}

unsafe extern "C" fn less(a: *const c_void, b: *const c_void, _d: *mut c_void) -> i32 {
    // SAFETY: column 0 has at least a byte.
    unsafe { (*a.cast::<u8>() < *b.cast::<u8>()) as i32 }
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

        // Callbacks that call back in.
        let length = slate_length(&map);
        let rows = slotmap_length(&sm);
        for _ in 0..4 {
            let mut plan = Plan {
                map: &mut map,
                other: &mut other,
                sm: &mut sm,
                action: input.byte(),
                depth: 0,
                calls: 0,
                refused: 0,
                bad: 0,
            };
            let p = (&mut plan as *mut Plan).cast::<c_void>();
            let walk = input.byte() % 3;
            match walk {
                0 => assert_eq!(slate_each(&map, Some(map_cb), p), OK),
                1 => assert_eq!(slate_delete_if(&mut map, Some(map_cb), p), OK),
                _ => assert_eq!(slotmap_each(&sm, Some(slotmap_cb), p), OK),
            }
            assert_eq!(
                plan.bad, 0,
                "walk {walk}, action {}: a call from a callback did what it must not",
                plan.action
            );
            assert_eq!(slate_length(&map), length);
            assert_eq!(slotmap_length(&sm), rows);
            if let Err(why) = check(&map) {
                panic!("invariant broken: {why}");
            }
        }
        slate_free(&mut map);
        slate_free(&mut map);
        slate_free(&mut other);
        slotmap_free(&mut sm);
        slotmap_free(&mut sm);
        assert_eq!(slate_length(&map), 0);
    }
});
