//! The C ABI of sparse sets (`slotmap_sparse_s`) and joins, over [`crate::sparse::Sparse`]. The
//! calls a slotmap has too are the slotmap's generic bodies (`slotmap.rs`), and their docs say what
//! a set does otherwise.

use core::ffi::{c_int, c_void};
use core::mem::{align_of, size_of};
use core::ptr;

use crate::alloc::Allocator;
use crate::slotmap::SlotMap;
use crate::sparse::{self, Sparse};
use crate::Error;

use super::slotmap::{
    columns, contains, each, erase_if, get, init, key_at, length, reserve, row_of, rows,
    slotmap_each_f, slotmap_key, slotmap_s, sort,
};
use super::{
    body, call, guard, read, slate_allocator_s, walk_code, write, Shell, INVALID, SLATE_OK,
};

/// A sparse set keyed by slotmap keys: an entity's optional part (a velocity, a tag) beside the
/// slotmap that issues the keys. It maps slotmap keys to dense rows of its own columns, or holds
/// bare membership. A complete type, caller-allocated, movable and private like `slate_s`:
/// initialize it with `slotmap_sparse()` or `slotmap_sparse_columns()`, release it with
/// `slotmap_sparse_free()`.
///
/// Keys are full generational keys: a key whose slot the owner reissued for a new entity never
/// finds the old entity's row. A set holds at most one key per slot index (the key's low 32 bits).
#[repr(C)]
pub struct slotmap_sparse_s {
    pub _private: [u64; 24],
}

const _: () = assert!(size_of::<Sparse>() <= size_of::<slotmap_sparse_s>());
const _: () = assert!(align_of::<Sparse>() <= align_of::<slotmap_sparse_s>());

// SAFETY: the two assertions above.
unsafe impl Shell for slotmap_sparse_s {
    type Body = Sparse;
}

body!(Sparse, |m, a| m.empty_like(a));
rows!(Sparse);

/// Called by `slotmap_join` once per key present in every set: `rows[i]` is the key's dense row in
/// `sets[i]` and `elements[i]` its column-0 element there (NULL for a membership set); with an
/// owner, `rows[count]` and `elements[count]` are the key's row and column-0 element in the owner.
/// Both arrays are valid during the call only. Return 0 to go on.
pub type slotmap_join_f = Option<
    unsafe extern "C" fn(
        key: slotmap_key,
        rows: *const u32,
        elements: *const *mut c_void,
        data: *mut c_void,
    ) -> c_int,
>;

/// `slotmap_sparse_set`: as its export says.
unsafe fn set(
    sp: *mut slotmap_sparse_s,
    owner: *const slotmap_s,
    key: u64,
    row: *const c_void,
) -> c_int {
    guard(|| {
        let s = unsafe { write(sp)? };
        unsafe { s.set(owner.cast::<SlotMap>().as_ref(), key, row.cast()) }
    })
}

/// `slotmap_sparse_get_many`: as its export says.
unsafe fn get_many(
    sp: *const slotmap_sparse_s,
    keys: *const slotmap_key,
    count: usize,
    elements: *mut *mut c_void,
    found: *mut u8,
) -> c_int {
    let s = match unsafe { read(sp) } {
        Ok(s) => s,
        Err(e) => return e as c_int,
    };
    if count > 0 && (keys.is_null() || found.is_null()) {
        return INVALID;
    }
    // SAFETY (all): the arrays have `count` entries; `i < count`. A
    // loop for each of `elements`' two cases.
    let key = |i| unsafe { *keys.add(i) };
    if elements.is_null() {
        s.get_many(count, key, |i, p| unsafe {
            found.add(i).write(p.is_some() as u8);
        });
    } else {
        s.get_many(count, key, |i, p| unsafe {
            found.add(i).write(p.is_some() as u8);
            if let Some(p) = p {
                elements.add(i).write(p.cast());
            }
        });
    }
    SLATE_OK
}

/// `slotmap_sparse_prune`: as its export says.
unsafe fn prune(sp: *mut slotmap_sparse_s, owner: *const slotmap_s) -> c_int {
    guard(|| {
        let (s, owner) = unsafe { (write(sp)?, read(owner)?) };
        s.prune(owner);
        Ok(())
    })
}

/// `slotmap_join`: as its export says.
unsafe fn join(
    owner: *const slotmap_s,
    sets: *const *mut slotmap_sparse_s,
    count: u32,
    callback: slotmap_join_f,
    data: *mut c_void,
) -> c_int {
    let Some(f) = callback else {
        return INVALID;
    };
    if sets.is_null() || count == 0 {
        return INVALID;
    }
    let count = count as usize;
    if count > sparse::join::MAX_SETS {
        return Error::Full as c_int;
    }
    let mut list = [ptr::null::<Sparse>(); sparse::join::MAX_SETS];
    for (i, l) in list.iter_mut().enumerate().take(count) {
        // SAFETY: `sets` holds `count` pointers.
        let s = unsafe { *sets.add(i) };
        if s.is_null() {
            return INVALID;
        }
        *l = s.cast_const().cast();
    }
    let owner = (!owner.is_null()).then_some(owner.cast::<SlotMap>());
    // SAFETY: the callback's contract is the caller's; the arrays live
    // during the call.
    let visit = |key, rows: &[u32], elements: &[*mut c_void]| unsafe {
        f(key, rows.as_ptr(), elements.as_ptr(), data)
    };
    walk_code(unsafe { sparse::join(owner, &list[..count.min(sparse::join::MAX_SETS)], visit) })
}

/// Initializes `sp` as an empty set of one column of `element_size`-byte elements, or, with
/// `element_size` 0, as a **membership set** (keys only: `get` gives NULL elements for present
/// keys, `column` is NULL, a walk's `row` pointer is NULL, `sort` is `SLATE_ERROR_INVALID`).
/// Allocates nothing. Calling it on a set that holds rows forgets them without freeing: call
/// `slotmap_sparse_free` first.
/// Returns `SLATE_OK`, or `SLATE_ERROR_INVALID` for a NULL `sp`.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_sparse(sp: *mut slotmap_sparse_s, element_size: u32) -> c_int { call!(init(sp, &[element_size][..(element_size != 0) as usize])) }

/// `slotmap_columns` for a set (`SLATE_ERROR_FULL` for more than 16 columns).
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_sparse_columns(sp: *mut slotmap_sparse_s, sizes: *const u32, count: u32) -> c_int { call!(columns(sp, sizes, count)) }

/// `slotmap_set_allocator` for a set: every byte it allocates (its rows, keys and index pages), and
/// the temporary memory of `slotmap_sparse_erase_if` and `slotmap_sparse_sort`. Allowed while the
/// set holds no memory (after `slotmap_sparse()`, `slotmap_sparse_columns()` or
/// `slotmap_sparse_free`); kept by `free`, dropped by re-initialisation, inherited by clones.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_sparse_set_allocator(sp: *mut slotmap_sparse_s, allocator: *const slate_allocator_s) -> c_int { call!(super::set_allocator(sp, allocator)) }

/// Makes room for `n` more rows: the next `n` new keys allocate nothing for their rows (the index
/// may still allocate pages for slot indices it has not seen). May move the columns.
/// Returns `SLATE_OK`; `SLATE_ERROR_FULL` beyond 2^32 - 2 rows; `SLATE_ERROR_ALLOC` (nothing
/// changed); `SLATE_ERROR_INVALID` for a NULL `sp`.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_sparse_reserve(sp: *mut slotmap_sparse_s, n: u32) -> c_int { call!(reserve(sp, n)) }

/// Sets `key`'s row to a copy of `row` (the columns' fields back to back; NULL: zeroes): inserts
/// the key, or overwrites the row of a present key (which moves nothing). A key of the same slot
/// index but another generation (with an owner, always a dead entity's) has its row taken over:
/// that counts as setting a new key.
///
/// With a non-NULL `owner`, a key the owner does not accept (`slotmap_contains(owner, key) == 0`: a
/// dead entity's, a forged one) is `SLATE_ERROR_NOT_FOUND` and changes nothing, so a stale handle
/// never writes a live entity's row; with a NULL `owner` any non-zero key is taken as given.
/// Returns `SLATE_OK`; `SLATE_ERROR_NOT_FOUND` (above); `SLATE_ERROR_INVALID` for a NULL `sp` or key
/// 0; `SLATE_ERROR_ALLOC` or `SLATE_ERROR_FULL` (nothing changed).
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_sparse_set(sp: *mut slotmap_sparse_s, owner: *const slotmap_s, key: slotmap_key, row: *const c_void) -> c_int { call!(set(sp, owner, key, row)) }

/// `slotmap_get` for a set: a key not present (0, forged, stale, another generation of a present
/// slot) is `SLATE_ERROR_NOT_FOUND`; a membership set's element is NULL. The pointer is valid until
/// the next call that sets a new key, erases, prunes, sorts, reserves, clears or frees the set.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_sparse_get(sp: *const slotmap_sparse_s, key: slotmap_key, element: *mut *mut c_void) -> c_int { call!(get(sp, key, element)) }

/// Looks up `count` keys at once, `slate_get_many`'s shape: for each `i < count`, `found[i]`
/// becomes 1 and `elements[i]` the key's column-0 element (NULL for a membership set), or
/// `found[i]` 0 with `elements[i]` left as it was. `elements` may be NULL (a presence test). The
/// results equal those of `count` calls of `slotmap_sparse_get`, faster for large sets (the keys'
/// cache misses overlap). Allocates nothing.
/// Returns `SLATE_OK` (also for `count == 0`), or `SLATE_ERROR_INVALID` with nothing written for a
/// NULL set, or a NULL `keys` or `found` when `count > 0`.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_sparse_get_many(sp: *const slotmap_sparse_s, keys: *const slotmap_key, count: usize, elements: *mut *mut c_void, found: *mut u8) -> c_int { call!(get_many(sp, keys, count, elements, found)) }

/// 1 if the set holds exactly `key`, else 0 (also for NULL). Allocates nothing.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_sparse_contains(sp: *const slotmap_sparse_s, key: slotmap_key) -> c_int { call!(contains(sp, key)) }

/// `slotmap_row` for a set (the row is valid until the next call that sets a new key, erases,
/// prunes, sorts, clears or frees the set).
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_sparse_row(sp: *const slotmap_sparse_s, key: slotmap_key, row: *mut u32) -> c_int { call!(row_of(sp, key, row)) }

/// Erases `key`'s row by swap-and-pop: the last row moves into its place, so rows stay packed.
/// Returns `SLATE_OK`, `SLATE_ERROR_NOT_FOUND` (a key not present), or `SLATE_ERROR_INVALID` for a
/// NULL `sp`.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_sparse_erase(sp: *mut slotmap_sparse_s, key: slotmap_key) -> c_int { call!(guard(|| write(sp)?.erase(key))) }

/// `slotmap_erase_if` for a set (`element`: the row's column-0 element; NULL for a membership set).
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_sparse_erase_if(sp: *mut slotmap_sparse_s, predicate: slotmap_each_f, data: *mut c_void) -> c_int { call!(erase_if(sp, predicate, data)) }

/// Erases, in one pass, every row whose key `owner` no longer accepts (`slotmap_contains(owner,
/// key) == 0`): the bulk cleanup after entities die. Allocates nothing.
/// Returns `SLATE_OK`, or `SLATE_ERROR_INVALID` for a NULL `sp` or `owner`.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_sparse_prune(sp: *mut slotmap_sparse_s, owner: *const slotmap_s) -> c_int { call!(prune(sp, owner)) }

/// The number of rows; 0 for NULL.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_sparse_length(sp: *const slotmap_sparse_s) -> u32 { call!(length(sp)) }

/// The base of dense column `column` (rows `0 .. length - 1`), aligned to 16 bytes; NULL for a NULL
/// set, a column out of range, a membership set, or a set that never held a row. Valid as
/// `slotmap_sparse_get`'s pointers.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_sparse_column(sp: *const slotmap_sparse_s, column: u32) -> *mut c_void { call!(read(sp).map_or(ptr::null_mut(), |s| s.column(column as usize).cast())) }

/// The key of dense row `row`; 0 for `row >= length` or a NULL set.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_sparse_key_at(sp: *const slotmap_sparse_s, row: u32) -> slotmap_key { call!(key_at(sp, row)) }

/// The set's keys as a dense array (row `i`'s key at index `i`, `length` of them), to pass straight
/// to `slotmap_get_many` or another set's `get_many`; NULL for a NULL or empty set. Valid as
/// `slotmap_sparse_get`'s pointers.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_sparse_keys(sp: *const slotmap_sparse_s) -> *const slotmap_key { call!(read(sp).map_or(ptr::null(), |s| s.keys_ptr())) }

/// `slotmap_each` for a set, row 0 first (`element`: the row's column-0 element; NULL for a
/// membership set). The walk also stays on the row of a key the callback erased (the way a system
/// drops a tag it has handled); a prune, like any other change, stops it.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_sparse_each(sp: *const slotmap_sparse_s, callback: slotmap_each_f, data: *mut c_void) -> c_int { call!(each(sp, callback, data)) }

/// `slotmap_sort` for a set (`SLATE_ERROR_INVALID` also for a membership set; the sort's memory
/// stays with the set until its next sort or `slotmap_sparse_free`).
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_sparse_sort(sp: *mut slotmap_sparse_s, less: Option<unsafe extern "C" fn(a: *const c_void, b: *const c_void, data: *mut c_void) -> c_int>, data: *mut c_void) -> c_int { call!(sort(sp, less, data)) }

/// Removes every row (their keys are no longer present); keeps the capacity and the index's pages.
/// Returns `SLATE_OK`, or `SLATE_ERROR_INVALID` for a NULL `sp`.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_sparse_clear(sp: *mut slotmap_sparse_s) -> c_int { call!(super::clear(sp)) }

/// `slotmap_clone` for a set (row order not kept necessarily; after `SLATE_ERROR_ALLOC`, `copy` is
/// an empty set of the same columns).
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_sparse_clone(copy: *mut slotmap_sparse_s, sp: *const slotmap_sparse_s) -> c_int { call!(super::clone(copy, sp)) }

/// Releases everything. The set stays usable (same columns, empty); freeing twice is harmless. Does
/// nothing for NULL.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_sparse_free(sp: *mut slotmap_sparse_s) { call!(super::free(sp)) }

/// Visits every key present in all `count` sets (and, with a non-NULL `owner`, valid in `owner` at
/// the moment it is reached), each once: walks the set with the fewest rows (the first such in
/// `sets` on a tie) in row order and tests the others. Calls `callback(key, rows, elements, data)`:
/// see `slotmap_join_f`. A non-zero return stops the join and becomes its result. The join itself
/// modifies nothing.
///
/// The join is a walk of every one of the sets: the callback may call anything, and may erase the
/// key it was given from any of the sets (the walk then stays on the row that swap-and-pop
/// refilled); after any other change to one of the sets it visits nothing more and returns
/// `SLATE_ERROR_INVALID`, unless the callback returned non-zero. The owner and every other
/// structure may be modified freely.
/// Returns 0 (`SLATE_OK`) or the callback's stopping value; `SLATE_ERROR_INVALID` for `count` 0, a
/// NULL `sets`, set or callback, or as above; `SLATE_ERROR_FULL` for more than 32 sets. Allocates
/// nothing.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_join(owner: *const slotmap_s, sets: *const *mut slotmap_sparse_s, count: u32, callback: slotmap_join_f, data: *mut c_void) -> c_int { call!(join(owner, sets, count, callback, data)) }
