//! The slotmap against a model: inserts, erases, erase_if, sort, clear,
//! clone, free, limit and reserve on one- and several-column slotmaps,
//! with allocations that fail on demand. Every key ever issued is kept:
//! live keys must find their row, and a key once erased (or cleared, or
//! freed) must never validate again, however its slot is reused.
#![no_main]

use core::ffi::c_void;
use core::sync::atomic::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use libfuzzer_sys::fuzz_target;

#[path = "ffi.rs"]
mod ffi;
use ffi::*;

/// Column sets: element sizes the fast paths special-case (4, 8, 12, 16)
/// and others, one column or several.
const COLUMNS: [&[u32]; 6] = [&[4], &[8], &[12], &[16], &[3, 8, 1], &[4, 16, 24, 7]];

struct State {
    sm: slotmap_s,
    sizes: &'static [u32],
    row: usize,
    live: BTreeMap<u64, u32>,
    stale: BTreeSet<u64>,
}

impl State {
    fn row_bytes(&self, tag: u32) -> Vec<u8> {
        (0..self.row)
            .map(|i| (tag as usize).wrapping_mul(131).wrapping_add(i) as u8)
            .collect()
    }

    /// The key's column-0 element: its first 4 bytes (or fewer) are the tag.
    fn tag_of(&self, key: u64) -> Option<u32> {
        let mut element: *mut c_void = core::ptr::null_mut();
        // SAFETY: an initialized slotmap.
        let rc = unsafe { slotmap_get(&self.sm, key, &mut element) };
        if rc != OK {
            assert_eq!(rc, NOT_FOUND);
            return None;
        }
        let n = self.sizes[0].min(4) as usize;
        let mut b = [0u8; 4];
        // SAFETY: column 0 has `sizes[0]` bytes at `element`.
        unsafe { core::ptr::copy_nonoverlapping(element.cast::<u8>(), b.as_mut_ptr(), n) };
        Some(u32::from_le_bytes(b))
    }

    fn expected_tag(&self, tag: u32) -> u32 {
        let bytes = self.row_bytes(tag);
        let n = self.sizes[0].min(4) as usize;
        let mut b = [0u8; 4];
        b[..n].copy_from_slice(&bytes[..n]);
        u32::from_le_bytes(b)
    }

    fn verify(&self) {
        // SAFETY: an initialized slotmap.
        assert_eq!(unsafe { slotmap_length(&self.sm) }, self.live.len() as u32);
        for (&k, &tag) in &self.live {
            assert_eq!(
                self.tag_of(k),
                Some(self.expected_tag(tag)),
                "live key {k:#x}"
            );
        }
        for &k in &self.stale {
            // SAFETY: as above.
            assert_eq!(
                unsafe { slotmap_contains(&self.sm, k) },
                0,
                "stale key {k:#x} validates"
            );
        }
        // Dense rows: each row's key names it.
        for r in 0..self.live.len() as u32 {
            // SAFETY: as above.
            let k = unsafe { slotmap_key_at(&self.sm, r) };
            let mut row = u32::MAX;
            assert_eq!(unsafe { slotmap_row(&self.sm, k, &mut row) }, OK);
            assert_eq!(row, r);
        }
    }
}

unsafe extern "C" fn odd_tag(_key: slotmap_key, row: *mut c_void, data: *mut c_void) -> i32 {
    // SAFETY: column 0 has at least one byte; `data` is the bit.
    unsafe { (*row.cast::<u8>() & *data.cast::<u8>() != 0) as i32 }
}

unsafe extern "C" fn less(a: *const c_void, b: *const c_void, _data: *mut c_void) -> i32 {
    // SAFETY: column 0 has at least one byte.
    unsafe { (*a.cast::<u8>() < *b.cast::<u8>()) as i32 }
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input::new(data);
    failing::install();
    let live_blocks = failing::LIVE.load(Ordering::Relaxed);
    let sizes = COLUMNS[input.byte() as usize % COLUMNS.len()];
    let mut s = State {
        sm: slotmap_s([0; 24]),
        sizes,
        row: sizes.iter().sum::<u32>() as usize,
        live: BTreeMap::new(),
        stale: BTreeSet::new(),
    };
    let mut copy = slotmap_s([0; 24]);
    // SAFETY (every call below): the slotmaps are initialized here.
    unsafe {
        assert_eq!(
            slotmap_columns(&mut s.sm, sizes.as_ptr(), sizes.len() as u32),
            OK
        );
        assert_eq!(slotmap(&mut copy, 4), OK);
        // Inputs of odd length give the slotmap the failing allocator as
        // its own, which checks the size of every release.
        if data.len() % 2 == 1 {
            assert_eq!(slotmap_set_allocator(&mut s.sm, &failing::own()), OK);
        }
    }
    let mut tag = 0u32;
    for step in 0.. {
        if input.is_empty() || step > 5000 {
            break;
        }
        let op = input.byte();
        let failed_before = failing::failures();
        let len_before = s.live.len();
        let rc = unsafe {
            match op % 12 {
                0..=3 => {
                    tag += 1;
                    let bytes = s.row_bytes(tag);
                    let mut key = 0;
                    let rc = slotmap_insert(&mut s.sm, bytes.as_ptr().cast(), &mut key);
                    if rc == OK {
                        assert!(!s.stale.contains(&key), "reissued key {key:#x}");
                        assert!(s.live.insert(key, tag).is_none(), "issued twice: {key:#x}");
                    } else {
                        assert_eq!(key, 0);
                    }
                    rc
                }
                4 | 5 => {
                    // Erase a live key (by position), or a stale or forged one.
                    let pick = input.byte() as usize;
                    let key = match (pick % 4, s.live.keys().nth(pick / 4 % s.live.len().max(1))) {
                        (0, _) => s.stale.iter().next().copied().unwrap_or(pick as u64),
                        (1, _) => input.u64(),
                        (_, Some(&k)) => k,
                        _ => 0,
                    };
                    let rc = slotmap_erase(&mut s.sm, key);
                    if s.live.remove(&key).is_some() {
                        assert_eq!(rc, OK);
                        s.stale.insert(key);
                    } else {
                        assert_eq!(rc, NOT_FOUND);
                    }
                    rc
                }
                6 => {
                    let mut bit = 1u8 << (input.byte() % 8);
                    let rc =
                        slotmap_erase_if(&mut s.sm, Some(odd_tag), (&mut bit as *mut u8).cast());
                    if rc == OK {
                        let doomed: Vec<u64> = s
                            .live
                            .iter()
                            .filter(|(_, &t)| s.row_bytes(t)[0] & bit != 0)
                            .map(|(&k, _)| k)
                            .collect();
                        for k in doomed {
                            s.live.remove(&k);
                            s.stale.insert(k);
                        }
                    }
                    rc
                }
                7 => slotmap_sort(&mut s.sm, Some(less), core::ptr::null_mut()),
                8 => {
                    let rc = slotmap_clear(&mut s.sm);
                    s.stale.extend(s.live.keys());
                    s.live.clear();
                    rc
                }
                9 => {
                    // Clone, then make the clone the slotmap: the keys go on.
                    slotmap_free(&mut copy);
                    let rc = slotmap_clone(&mut copy, &s.sm);
                    if rc == OK {
                        slotmap_free(&mut s.sm);
                        core::mem::swap(&mut s.sm, &mut copy);
                    }
                    rc
                }
                10 => {
                    match input.byte() % 3 {
                        0 => {
                            slotmap_free(&mut s.sm);
                            s.stale.extend(s.live.keys());
                            s.live.clear();
                            OK
                        }
                        1 => {
                            let rc = slotmap_reserve(&mut s.sm, input.u32() % 4096);
                            assert!(rc == OK || rc == ALLOC || rc == FULL);
                            if rc == FULL {
                                OK
                            } else {
                                rc
                            }
                        }
                        _ => {
                            let limit = input.u32() % 512;
                            let rc = slotmap_limit(&mut s.sm, limit);
                            let want = if (limit as usize) < s.live.len() {
                                INVALID
                            } else {
                                OK
                            };
                            assert_eq!(rc, want);
                            // Off again, so that the run goes on.
                            assert_eq!(slotmap_limit(&mut s.sm, u32::MAX), OK);
                            OK
                        }
                    }
                }
                _ => {
                    failing::arm(input.byte() as u64 % 4);
                    OK
                }
            }
        };
        failing::check_surfaced(op, rc, failed_before);
        if rc == ALLOC {
            assert_eq!(s.live.len(), len_before);
        } else {
            assert!(rc == OK || rc == NOT_FOUND, "op {op}: rc {rc}");
        }
        if step % 16 == 15 {
            s.verify();
        }
        // Keep the stale set bounded.
        while s.stale.len() > 4096 {
            let k = *s.stale.iter().next().unwrap();
            s.stale.remove(&k);
        }
    }
    failing::FAIL_IN.store(0, Ordering::Relaxed);
    s.verify();
    // SAFETY: initialized slotmaps, not used again.
    unsafe {
        slotmap_free(&mut s.sm);
        slotmap_free(&mut copy);
    }
    for &k in s.live.keys().chain(s.stale.iter()) {
        // SAFETY: a freed slotmap is a valid, empty one.
        assert_eq!(unsafe { slotmap_contains(&s.sm, k) }, 0);
    }
    assert_eq!(
        failing::LIVE.load(Ordering::Relaxed),
        live_blocks,
        "memory leaked"
    );
});
