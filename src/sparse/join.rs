//! Joins: every key present in all of several sets (and valid in an owner
//! slotmap), each once.
//!
//! The join walks the set with the fewest rows in row order and tests each
//! key in the others (and the owner): O(smallest set) lookups. The walk is
//! a walk of every set at once (one walk record each, nested), so a
//! callback may erase the key it was given from any of them and nothing
//! else; the owner, not walked, may change freely.

use core::ffi::c_void;

use super::{Sparse, View};
use crate::slotmap::SlotMap;
use crate::walk::{self, Mark, DEPTH};
use crate::Error;

/// Sets a join may take: one walk record each, within one thread's
/// registry.
pub const MAX_SETS: usize = DEPTH;

/// Visits every key present in each of `sets` and, with an `owner`, valid
/// in it at the moment the key is reached, calling `visit(key, rows,
/// elements)`: per set (and the owner, last, when there is one) the key's
/// row and column-0 element. A non-zero return stops the join and becomes
/// its result. `Error::Invalid` for no sets; `Error::Full` for more than
/// the walk registry holds.
///
/// # Safety
/// Every set and the owner are live (a set may appear more than once).
pub unsafe fn join(
    owner: Option<*const SlotMap>,
    sets: &[*const Sparse],
    mut visit: impl FnMut(u64, &[u32], &[*mut c_void]) -> i32,
) -> Result<i32, Error> {
    if sets.is_empty() {
        return Err(Error::Invalid);
    }
    if sets.len() > MAX_SETS {
        return Err(Error::Full);
    }
    // The set with the fewest rows, the first such on a tie.
    // SAFETY: the sets are live.
    let lead = (0..sets.len())
        .min_by_key(|&i| unsafe { (*sets[i]).len })
        .expect("a set");
    let mut marks = [None; MAX_SETS];
    nest(sets, 0, &mut marks, &mut |marks| {
        // SAFETY (each): the caller's guarantee. The common shapes get a
        // loop of their own, the set count a constant.
        unsafe {
            match (sets.len(), owner) {
                (2, None) => run(None, sets, 2, lead, marks, &mut visit),
                (2, Some(_)) => run(owner, sets, 2, lead, marks, &mut visit),
                (n, _) => run(owner, sets, n, lead, marks, &mut visit),
            }
        }
    })
}

/// Runs `body` inside a walk of each of `sets[at..]`, their marks recorded.
fn nest(
    sets: &[*const Sparse],
    at: usize,
    marks: &mut [Option<Mark>; MAX_SETS],
    body: &mut dyn FnMut(&[Option<Mark>; MAX_SETS]) -> i32,
) -> Result<i32, Error> {
    if at == sets.len() {
        return Ok(body(marks));
    }
    walk::walk_marked(sets[at].cast(), walk::NO_SCRATCH, |mark| {
        marks[at] = Some(mark);
        nest(sets, at + 1, marks, body)
    })?
}

/// The join's loop over `count` sets (`sets.len()`), inside the walks.
///
/// The sets' views are taken once: the walks keep every set's block and
/// index top in place (a callback may only erase its key), so only the
/// walked set's length and keys, and the entries, are read afresh after a
/// callback. The owner is not walked: it is asked afresh for every key.
///
/// # Safety
/// As for [`join`].
#[inline(always)]
unsafe fn run(
    owner: Option<*const SlotMap>,
    sets: &[*const Sparse],
    count: usize,
    lead: usize,
    marks: &[Option<Mark>; MAX_SETS],
    visit: &mut impl FnMut(u64, &[u32], &[*mut c_void]) -> i32,
) -> i32 {
    // The sets other than the walked one, the ones to test, as views.
    let mut others = [(0usize, View::NONE); MAX_SETS];
    for (o, i) in others.iter_mut().zip((0..count).filter(|&i| i != lead)) {
        // SAFETY: the set is live.
        *o = (i, unsafe { (*sets[i]).view() });
    }
    let others = &others[..count - 1];
    // SAFETY: the walked set is live; its view as the others'.
    let (walked, lead_view) = (sets[lead], unsafe { (*sets[lead]).view() });
    let mut rows = [0u32; MAX_SETS + 1];
    let mut elements = [core::ptr::null_mut::<c_void>(); MAX_SETS + 1];
    let width = count + owner.is_some() as usize;
    let mut r = 0u32;
    // SAFETY (every look at a set or the owner): they are live, and each
    // look ends before `visit` runs, which may erase from the sets and
    // modify the owner.
    while let Some(key) = unsafe { (*walked).key_at(r) } {
        // The next key's entries, while this one's are read.
        if let Some(next) = unsafe { (*walked).key_at(r + 1) } {
            for (_, v) in others {
                v.prefetch(next);
            }
        }
        rows[lead] = r;
        elements[lead] = lead_view.element(r).cast();
        let mut present = true;
        for &(i, v) in others {
            let Some(row) = v.row_of(key) else {
                present = false;
                break;
            };
            rows[i] = row;
            elements[i] = v.element(row).cast();
        }
        if present {
            if let Some(o) = owner {
                let o = unsafe { &*o };
                match o.row_of(key) {
                    Some(row) => {
                        rows[count] = row;
                        elements[count] = o.element(row).cast();
                    }
                    None => present = false,
                }
            }
        }
        if present {
            for m in marks.iter().take(count).flatten() {
                m.give(key);
            }
            let rc = visit(key, &rows[..width], &elements[..width]);
            if rc != 0 {
                return rc;
            }
        }
        // Erased from the lead set (by the callback): its row now holds
        // another key, or none.
        if unsafe { (*walked).key_at(r) } == Some(key) {
            r += 1;
        }
    }
    0
}
