//! The table's tests: tombstones, a single group and layouts, seen
//! through the probe.

use super::probe::{Lookup, Typed, Vacancy};
use super::*;
use crate::alloc::Allocator;
use crate::group::{DELETED, EMPTY};
use crate::key::Key;
use crate::key::{IntKey, TAG_I64, TAG_U64};
use crate::layout::{on_layout, Layout, Slot};
use crate::layout::{IntSlot, Kind};
use core::mem::size_of;
use core::ptr;

/// [`Typed::find_or_vacant`] in the table's layout; `None` for a key
/// the table cannot hold.
///
/// # Safety
/// `t` is live.
unsafe fn lookup(t: *mut Table, hash: u64, n: &impl Key) -> Option<Lookup<()>> {
    // SAFETY: the caller's guarantee; the table's own layout.
    unsafe {
        let kind = (*t).kind;
        on_layout!(kind, L => L::matcher(kind, n).map(|eq| {
            match Typed::<L>::of(t).find_or_vacant::<false>(hash, eq) {
                Lookup::Found(s) => Lookup::Found(s.cast()),
                Lookup::Vacant(v) => Lookup::Vacant(v),
                Lookup::NoRoom => Lookup::NoRoom,
            }
        }))
    }
}

/// Stores `n` (an inline key) in a vacant slot `lookup` returned.
///
/// # Safety
/// As for `lookup`.
unsafe fn occupy(t: *mut Table, v: Vacancy, hash: u64, n: &impl Key, alloc: &Allocator) {
    // SAFETY: the caller's guarantee; the table's own layout.
    unsafe {
        let kind = (*t).kind;
        on_layout!(kind, L => Typed::<L>::of(t)
            .insert_at(v, hash, |dst| L::store(kind, dst, n, None, ptr::null_mut(), alloc))
            .unwrap())
    }
}

/// Inserts `keys` with hashes chosen to start in group 0.
fn filled(alloc: &Allocator, capacity: usize, keys: u64, kind: Kind) -> *mut Table {
    let t = Table::new(alloc, capacity, 0, kind).unwrap();
    for k in 0..keys {
        let n = IntKey::new(2, k);
        // SAFETY: `t` is live.
        let Some(Lookup::Vacant(v)) = (unsafe { lookup(t, k << 8, &n) }) else {
            panic!("no room for {k}")
        };
        // SAFETY: as above.
        unsafe { occupy(t, v, k << 8, &n, alloc) };
    }
    t
}

#[test]
fn erase_in_a_full_group_leaves_a_tombstone() {
    let alloc = Allocator::default();
    // Both layouts behave alike.
    for kind in [Kind::Bytes, Kind::U64] {
        // SAFETY: the table is live until freed at the end; keys are
        // inline.
        unsafe { erase_in_a_full_group(&alloc, kind) };
    }
}

unsafe fn erase_in_a_full_group(alloc: &Allocator, kind: Kind) {
    // SAFETY: the caller's guarantee.
    unsafe {
        let tp = filled(alloc, 16, 8, kind);
        let t = &mut *tp;
        assert_eq!(t.ctrl(0).match_full().count(), 8);
        let (g, i) = t.find_key(3 << 8, &IntKey::new(2, 3)).unwrap();
        t.erase_at(g, i);
        assert_eq!(t.ctrl(0).get(i), DELETED);
        assert_eq!((t.used, t.growth_left, t.tombstones()), (7, 6, 1));
        // The tombstone is reused by the next absent key on that probe.
        let n = IntKey::new(2, 100);
        let Some(Lookup::Vacant(Vacancy { group, slot, reuse })) = lookup(t, 100 << 8, &n) else {
            panic!()
        };
        assert_eq!((group, slot, reuse), (0, i, true));
        occupy(t, Vacancy { group, slot, reuse }, 100 << 8, &n, alloc);
        assert_eq!((t.used, t.growth_left, t.tombstones()), (8, 6, 0));
        // Tombstones do not count as empty: the group still has none.
        let (g, i) = t.find_key(5 << 8, &IntKey::new(2, 5)).unwrap();
        t.erase_at(g, i);
        let (g, j) = t.find_key(6 << 8, &IntKey::new(2, 6)).unwrap();
        t.erase_at(g, j);
        assert_eq!((t.ctrl(0).get(i), t.ctrl(0).get(j)), (DELETED, DELETED));
        // A group with an empty slot gets its slot emptied again.
        let n = IntKey::new(2, 200);
        let Some(Lookup::Vacant(Vacancy { group, slot, reuse })) = lookup(t, 201, &n) else {
            panic!()
        };
        assert_eq!((group, reuse), (1, false));
        occupy(t, Vacancy { group, slot, reuse }, 201, &n, alloc);
        let left = t.growth_left;
        t.erase_at(group, slot);
        assert_eq!(t.ctrl(1).get(slot), EMPTY);
        assert_eq!(t.growth_left, left + 1);
        Table::free(tp, alloc);
    }
}

#[test]
fn a_single_group_fills_up_and_never_tombstones() {
    let alloc = Allocator::default();
    for kind in [Kind::Bytes, Kind::U64] {
        // SAFETY: as above.
        unsafe {
            let tp = filled(&alloc, 8, 8, kind);
            let t = &mut *tp;
            assert_eq!(t.growth_left, 0);
            assert!(matches!(
                lookup(t, 99 << 8, &IntKey::new(2, 99)),
                Some(Lookup::NoRoom)
            ));
            assert!(t.find_key(99 << 8, &IntKey::new(2, 99)).is_none());
            let (g, i) = t.find_key(3 << 8, &IntKey::new(2, 3)).unwrap();
            t.erase_at(g, i);
            assert_eq!(t.ctrl(0).get(i), EMPTY);
            assert_eq!(t.growth_left, 1);
            Table::free(tp, &alloc);
        }
    }
}

/// An integer table holds no other key: looking one up finds nothing,
/// inserting one asks for the general layout, and a byte key that
/// encodes the table's integer key is that key.
#[test]
fn an_integer_table_refuses_other_keys() {
    use crate::key::Needle;
    let alloc = Allocator::default();
    // SAFETY: as above.
    unsafe {
        let tp = filled(&alloc, 16, 4, Kind::U64);
        let t = &mut *tp;
        let i64_key = IntKey::new(TAG_I64, 2);
        assert!(t.find_key(2 << 8, &i64_key).is_none());
        assert!(lookup(t, 2 << 8, &i64_key).is_none());
        let text = Needle::bytes(b"a string");
        assert!(lookup(t, 2 << 8, &text).is_none());
        let mut enc = vec![0x00, TAG_U64];
        enc.extend_from_slice(&2u64.to_le_bytes());
        let (g, i) = t.find_key(2 << 8, &Needle::bytes(&enc)).unwrap();
        assert_eq!(t.entry(g, i).key.bytes(), &enc[..]);
        // Sixteen bytes a slot on 64-bit targets (twelve on i686, where
        // a u64 is 4-aligned), against 40 in the general layout.
        let int_slot = if cfg!(target_pointer_width = "64") {
            16
        } else {
            size_of::<IntSlot>()
        };
        assert_eq!(size_of::<IntSlot>(), int_slot);
        assert_eq!(size_of::<Slot>(), 40);
        assert_eq!(
            Table::bytes(16, Kind::U64),
            size_of::<Table>() + 2 * (8 + 8 * int_slot)
        );
        assert_eq!(Table::bytes(16, Kind::Bytes), size_of::<Table>() + 2 * 328);
        Table::free(tp, &alloc);
    }
}
