//! Joins: every key present in all of several sets (and valid in an owner
//! slotmap), each once.
//!
//! The join walks the set with the fewest rows in row order and tests each
//! key in the others (and the owner): O(smallest set) lookups. The walk is
//! a walk of every set at once (one walk record each, nested), so a
//! callback may erase the key it was given from any of them and nothing
//! else; the owner, not walked, may change freely.

use core::ffi::c_void;

use super::Sparse;
use crate::slotmap::SlotMap;
use crate::walk::{self, Mark, DEPTH};
use crate::Error;

/// Sets a join may take: one walk record each, within one thread's
/// registry.
pub const MAX_SETS: usize = DEPTH;

/// What a join's callback gets: the key, then per set (and the owner, last,
/// when there is one) its row and column-0 element.
pub type Visit<'a> = dyn FnMut(u64, &[u32], &[*mut c_void]) -> i32 + 'a;

/// Visits every key present in each of `sets` and, with an `owner`, valid
/// in it at the moment the key is reached, calling `visit`; a non-zero
/// return stops the join and becomes its result. `Error::Invalid` for no
/// sets; `Error::Full` for more than the walk registry holds.
///
/// # Safety
/// Every set and the owner are live (a set may appear more than once).
pub unsafe fn join(
    owner: Option<*const SlotMap>,
    sets: &[*const Sparse],
    visit: &mut Visit<'_>,
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
        // SAFETY: the caller's guarantee.
        unsafe { run(owner, sets, lead, marks, visit) }
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

/// The join's loop, inside the walks.
///
/// # Safety
/// As for [`join`].
unsafe fn run(
    owner: Option<*const SlotMap>,
    sets: &[*const Sparse],
    lead: usize,
    marks: &[Option<Mark>; MAX_SETS],
    visit: &mut Visit<'_>,
) -> i32 {
    let count = sets.len();
    let mut rows = [0u32; MAX_SETS + 1];
    let mut elements = [core::ptr::null_mut::<c_void>(); MAX_SETS + 1];
    let width = count + owner.is_some() as usize;
    let mut r = 0u32;
    // SAFETY (every look at a set or the owner): they are live, and each
    // look ends before `visit` runs, which may erase from the sets and
    // modify the owner.
    while let Some(key) = unsafe { (*sets[lead]).key_at(r) } {
        let mut present = true;
        for (i, &s) in sets.iter().enumerate() {
            let row = if i == lead {
                Some(r)
            } else {
                unsafe { (*s).row_of(key) }
            };
            match row {
                Some(row) => {
                    rows[i] = row;
                    elements[i] = unsafe { (*s).element(row) }.cast();
                }
                None => {
                    present = false;
                    break;
                }
            }
        }
        if present {
            if let Some(o) = owner {
                match unsafe { (*o).row_of(key) } {
                    Some(row) => {
                        rows[count] = row;
                        elements[count] = unsafe { (*o).get(key) }.expect("a valid key").cast();
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
        if unsafe { (*sets[lead]).key_at(r) } == Some(key) {
            r += 1;
        }
    }
    0
}
