//! Joins: every key present in all of several sets (and valid in an owner
//! slotmap), each once.
//!
//! The join walks the set with the fewest rows in row order and tests each
//! key in the others (and the owner): O(smallest set) lookups. It is a
//! walk of every set at once (SPEC §3c): after each callback every set is
//! compared with its stamp, and the callback may erase the key it was
//! given from any of them; any other change to one of them stops the
//! join. The owner is not walked: it may change freely, and is asked
//! afresh for every key.

use core::ffi::c_void;

use super::{Sparse, View};
use crate::slotmap::SlotMap;
use crate::stamp::{After, Stamp};
use crate::Error;

/// Sets a join may take (its rows and elements live in its frame).
pub const MAX_SETS: usize = 32;

/// Visits every key present in each of `sets` and, with an `owner`, valid
/// in it at the moment the key is reached, calling `visit(key, rows,
/// elements)`: per set (and the owner, last, when there is one) the key's
/// row and column-0 element. A non-zero return stops the join and becomes
/// its result. `Error::Invalid` for no sets, or when a callback changed a
/// set otherwise than by erasing its key; `Error::Full` for more than
/// `MAX_SETS` sets.
///
/// # Safety
/// Every set and the owner are live (a set may appear more than once).
pub unsafe fn join(
    owner: Option<*const SlotMap>,
    sets: &[*const Sparse],
    mut visit: impl FnMut(u64, &[u32], &[*mut c_void]) -> i32,
) -> Result<i32, Error> {
    let count = sets.len();
    if count == 0 {
        return Err(Error::Invalid);
    }
    if count > MAX_SETS {
        return Err(Error::Full);
    }
    // The set with the fewest rows, the first such on a tie.
    let (mut lead, mut fewest) = (0, u32::MAX);
    for (i, &s) in sets.iter().enumerate() {
        // SAFETY: the sets are live.
        let len = unsafe { (*s).len };
        if len < fewest {
            (lead, fewest) = (i, len);
        }
    }
    // SAFETY (each): the caller's guarantee. The common shapes get a
    // loop of their own, the set count a constant.
    unsafe {
        match (count, owner) {
            (2, None) => run::<2>(None, sets, lead, &mut visit),
            (2, Some(_)) => run::<2>(owner, sets, lead, &mut visit),
            _ => run::<0>(owner, sets, lead, &mut visit),
        }
    }
}

/// The join's loop over the sets: `N` of them, or any number for `N` 0.
///
/// The sets' views are taken once: while the join goes on, every set's
/// block and index top stay in place (a callback may only erase its key,
/// which moves rows inside the block), so only the walked set's length
/// and keys, and the entries, are read afresh after a callback. So are
/// the stamps: the join changes nothing itself, so a set's stamp after
/// one callback is its stamp before the next.
///
/// # Safety
/// As for [`join`]; `lead < sets.len() <= MAX_SETS`, and `sets.len()`
/// is `N` unless `N` is 0.
#[inline(always)]
unsafe fn run<const N: usize>(
    owner: Option<*const SlotMap>,
    sets: &[*const Sparse],
    lead: usize,
    visit: &mut impl FnMut(u64, &[u32], &[*mut c_void]) -> i32,
) -> Result<i32, Error> {
    let count = if N > 0 { N } else { sets.len().min(MAX_SETS) };
    let Some(&walked) = sets.get(lead) else {
        return Err(Error::Invalid);
    };
    // SAFETY (every look at a set or the owner): they are live, and each
    // look ends before `visit` runs, which may erase from the sets and
    // modify the owner.
    let lead_view = unsafe { (*walked).view() };
    // The sets other than the walked one, the ones to test, as views.
    let mut others = [(0usize, View::NONE); MAX_SETS];
    for (o, (i, &s)) in others.iter_mut().zip(
        sets.iter()
            .enumerate()
            .take(count)
            .filter(|&(i, _)| i != lead),
    ) {
        *o = (i, unsafe { (*s).view() });
    }
    let others = &others[..count.saturating_sub(1)];
    let mut stamps = [Stamp::NONE; MAX_SETS];
    for (stamp, &s) in stamps.iter_mut().zip(sets.iter().take(count)) {
        *stamp = Stamp::of(unsafe { &*s });
    }
    let mut rows = [0u32; MAX_SETS + 1];
    let mut elements = [core::ptr::null_mut::<c_void>(); MAX_SETS + 1];
    let width = (count + owner.is_some() as usize).min(MAX_SETS + 1);
    let mut r = 0u32;
    // The walked set's keys and length: its keys stay in place, and its
    // length changes only with a removal, after which it is read again.
    let (keys, mut len) = unsafe { ((*walked).keys_ptr(), (*walked).len) };
    while r < len {
        // SAFETY: rows below the length have keys.
        let key = unsafe { *keys.add(r as usize) };
        // The next key's entries, while this one's are read.
        if r + 1 < len {
            // SAFETY: as above.
            let next = unsafe { *keys.add(r as usize + 1) };
            for (_, v) in others {
                v.prefetch(next);
            }
        }
        // SAFETY (each write to `rows` and `elements`): a set's index is
        // below `count`, and the owner's is `count`, at most `MAX_SETS`.
        unsafe {
            *rows.as_mut_ptr().add(lead) = r;
            *elements.as_mut_ptr().add(lead) = lead_view.element(r).cast();
        }
        let mut present = true;
        for &(i, v) in others {
            let Some(row) = v.row_of(key) else {
                present = false;
                break;
            };
            unsafe {
                *rows.as_mut_ptr().add(i) = row;
                *elements.as_mut_ptr().add(i) = v.element(row).cast();
            }
        }
        if present {
            if let Some(o) = owner {
                let o = unsafe { &*o };
                match o.row_of(key) {
                    Some(row) => unsafe {
                        *rows.as_mut_ptr().add(count) = row;
                        *elements.as_mut_ptr().add(count) = o.element(row).cast();
                    },
                    None => present = false,
                }
            }
        }
        if !present {
            r += 1;
            continue;
        }
        let rc = visit(
            key,
            rows.get(..width).unwrap_or(&[]),
            elements.get(..width).unwrap_or(&[]),
        );
        if rc != 0 {
            return Ok(rc);
        }
        // SAFETY (each look at `sets` and `stamps`): `i < count`, at most
        // `sets.len()` and `MAX_SETS`.
        let set = |i: usize| unsafe { &**sets.as_ptr().add(i) };
        let mut same = true;
        for i in 0..count {
            same &= unsafe { (*stamps.as_ptr().add(i)).same(set(i)) };
        }
        let mut stay = false;
        if !same {
            for i in 0..count {
                let (s, stamp) = (set(i), unsafe { &mut *stamps.as_mut_ptr().add(i) });
                match stamp.after(s, || s.row_of(key).is_none()) {
                    After::Same => {}
                    After::Removed => stay |= i == lead,
                    After::Changed => return Err(Error::Invalid),
                }
            }
        }
        if stay {
            len = unsafe { (*walked).len };
        }
        // Erased from the walked set: its row now holds another key, or
        // none.
        if !stay {
            r += 1;
        }
    }
    Ok(0)
}
