//! The C ABI of sparse sets (`slotmap_sparse_s`) and joins, over
//! [`crate::sparse::Sparse`].

use core::ffi::{c_int, c_void};
use core::mem::{align_of, size_of};
use core::ptr;

use crate::alloc::Allocator;
use crate::slotmap::SlotMap;
use crate::sparse::{self, Sparse};
use crate::Error;

use super::slotmap::{slotmap_each_f, slotmap_key, slotmap_s};
use super::{
    code, fresh, guard, own_allocator, read, slate_allocator_s, walk_code, write, Guarded, Shell,
    SLATE_OK,
};

/// A sparse set keyed by slotmap keys: an entity's optional part (a
/// velocity, a tag) beside the slotmap that issues the keys. It maps
/// slotmap keys to dense rows of its own columns, or holds bare membership.
/// A complete type, caller-allocated like `slotmap_s`: initialize it with
/// `slotmap_sparse()` or `slotmap_sparse_columns()`, release it with
/// `slotmap_sparse_free()`. It may be moved with `memcpy` while no call on
/// it is in progress. Its fields are private.
///
/// Keys are full generational keys: a key whose slot the owner reissued
/// for a new entity never finds the old entity's row. A set holds at most
/// one key per slot index (the key's low 32 bits).
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

/// Called by `slotmap_join` once per key present in every set: `rows[i]`
/// is the key's dense row in `sets[i]` and `elements[i]` its column-0
/// element there (NULL for a membership set); with an owner, `rows[count]`
/// and `elements[count]` are the key's row and column-0 element in the
/// owner. Both arrays are valid during the call only. Return 0 to go on.
pub type slotmap_join_f = Option<
    unsafe extern "C" fn(
        key: slotmap_key,
        rows: *const u32,
        elements: *const *mut c_void,
        data: *mut c_void,
    ) -> c_int,
>;

/// # Safety
/// `sp` is NULL or writable.
unsafe fn init(sp: *mut slotmap_sparse_s, sizes: &[u32]) -> c_int {
    guard(|| {
        let at = fresh(sp)?;
        let body = Sparse::new(sizes, Allocator::current())?;
        // SAFETY: `sp` is writable (its old contents are not read).
        unsafe { at.write(body) };
        Ok(())
    })
}

/// Initializes `sp` as an empty set of one column of `element_size`-byte
/// elements, or, with `element_size` 0, as a **membership set** (keys
/// only: `get` gives NULL elements for present keys, `column` is NULL, a
/// walk's `row` pointer is NULL, `sort` is `SLATE_ERROR_INVALID`).
/// Allocates nothing. Calling it on a set that holds rows forgets them
/// without freeing: call `slotmap_sparse_free` first.
///
/// Returns `SLATE_OK`, or `SLATE_ERROR_INVALID` for a NULL `sp`.
///
/// # Safety
/// `sp` is NULL or points to writable memory for a `slotmap_sparse_s`.
#[no_mangle]
pub unsafe extern "C" fn slotmap_sparse(sp: *mut slotmap_sparse_s, element_size: u32) -> c_int {
    let sizes: &[u32] = if element_size == 0 {
        &[]
    } else {
        &[element_size]
    };
    // SAFETY: the caller's guarantee.
    unsafe { init(sp, sizes) }
}

/// Initializes `sp` as an empty set of `count` columns (structure of
/// arrays) of `sizes[i]`-byte elements, as `slotmap_columns` does.
/// Allocates nothing.
///
/// Returns `SLATE_OK`; `SLATE_ERROR_INVALID` for a NULL `sp` or `sizes`,
/// `count` 0 or a zero size; `SLATE_ERROR_FULL` for more than 16 columns.
///
/// # Safety
/// `sp` is NULL or writable; `sizes` is NULL or holds `count` sizes.
#[no_mangle]
pub unsafe extern "C" fn slotmap_sparse_columns(
    sp: *mut slotmap_sparse_s,
    sizes: *const u32,
    count: u32,
) -> c_int {
    if sizes.is_null() || count == 0 {
        return Error::Invalid as c_int;
    }
    // SAFETY: `sizes` holds `count` sizes.
    let sizes = unsafe { core::slice::from_raw_parts(sizes, count as usize) };
    // SAFETY: the caller's guarantee.
    unsafe { init(sp, sizes) }
}

/// Gives the set its own allocator, as `slotmap_set_allocator` does for a
/// slotmap: while it holds no memory (after `slotmap_sparse()`,
/// `slotmap_sparse_columns()` or `slotmap_sparse_free`); copied; kept by
/// `free`, dropped by re-initialisation, inherited by clones; NULL goes
/// back to the process default. Every byte the set allocates (its rows,
/// keys and index pages) comes from it; `slotmap_sparse_erase_if` and
/// `slotmap_sparse_sort` also take temporary memory from it and give it
/// back before they return.
///
/// Returns `SLATE_OK`, or `SLATE_ERROR_INVALID` for a NULL `sp`, a NULL
/// `allocate` or `release`, a set that holds memory, or from inside its
/// walk.
///
/// # Safety
/// `sp` is NULL or an initialized set; `allocator` is NULL or readable.
#[no_mangle]
pub unsafe extern "C" fn slotmap_sparse_set_allocator(
    sp: *mut slotmap_sparse_s,
    allocator: *const slate_allocator_s,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's guarantee.
        let s = unsafe { write(sp)? };
        // SAFETY: the caller's guarantee.
        s.set_allocator(unsafe { own_allocator(allocator)? })
    })
}

/// Makes room for `n` more rows: the next `n` new keys allocate nothing
/// for their rows (the index may still allocate pages for slot indices it
/// has not seen). May move the columns.
///
/// Returns `SLATE_OK`; `SLATE_ERROR_FULL` beyond 2^32 - 2 rows;
/// `SLATE_ERROR_ALLOC` (nothing changed); `SLATE_ERROR_INVALID` for a NULL
/// `sp`.
///
/// # Safety
/// `sp` is NULL or an initialized set.
#[no_mangle]
pub unsafe extern "C" fn slotmap_sparse_reserve(sp: *mut slotmap_sparse_s, n: u32) -> c_int {
    // SAFETY: the caller's guarantee.
    guard(|| unsafe { write(sp)? }.reserve(n))
}

/// Sets `key`'s row to a copy of `row` (the columns' fields back to back;
/// NULL: zeroes): inserts the key, or overwrites the row of a present key
/// (which moves nothing). A key of the same slot index but another
/// generation (with an owner, always a dead entity's) has its row taken
/// over: that counts as setting a new key.
///
/// With a non-NULL `owner`, a key the owner does not accept
/// (`slotmap_contains(owner, key) == 0`: a dead entity's, a forged one) is
/// `SLATE_ERROR_NOT_FOUND` and changes nothing, so a stale handle never
/// writes a live entity's row; with a NULL `owner` any non-zero key is
/// taken as given.
///
/// Returns `SLATE_OK`; `SLATE_ERROR_NOT_FOUND` (above);
/// `SLATE_ERROR_INVALID` for a NULL `sp`, key 0, or from inside a walk of
/// `sp`; `SLATE_ERROR_ALLOC` or `SLATE_ERROR_FULL` (nothing changed).
///
/// # Safety
/// `sp` is NULL or an initialized set; `owner` is NULL or an initialized
/// slotmap; `row` is NULL or holds the columns' sizes in bytes.
#[no_mangle]
pub unsafe extern "C" fn slotmap_sparse_set(
    sp: *mut slotmap_sparse_s,
    owner: *const slotmap_s,
    key: slotmap_key,
    row: *const c_void,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's guarantee.
        let s = unsafe { write(sp)? };
        // SAFETY: the caller's guarantee.
        let owner = unsafe { owner.cast::<SlotMap>().as_ref() };
        // SAFETY: the caller's guarantee.
        unsafe { s.set(owner, key, row.cast()) }
    })
}

/// Finds `key`. On `SLATE_OK` stores a pointer to its column-0 element in
/// `*element` unless `element` is NULL (a presence test); for a membership
/// set the element is NULL. On `SLATE_ERROR_NOT_FOUND` (a key not present:
/// 0, forged, stale, another generation of a present slot) leaves
/// `*element` as it was. The pointer is valid until the next call that
/// sets a new key, erases, prunes, sorts, reserves, clears or frees the
/// set. Allocates nothing.
///
/// # Safety
/// `sp` is NULL or an initialized set; `element` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slotmap_sparse_get(
    sp: *const slotmap_sparse_s,
    key: slotmap_key,
    element: *mut *mut c_void,
) -> c_int {
    // No `guard` in the lookups: they run no user code, allocate nothing
    // and cannot panic (`make symbols` checks for unwind paths).
    // SAFETY: the caller's guarantee.
    let p = match unsafe { read(sp) } {
        Ok(s) => s.get(key),
        Err(e) => return e as c_int,
    };
    match p {
        Some(p) => {
            if !element.is_null() {
                // SAFETY: `element` is writable.
                unsafe { element.write(p.cast()) };
            }
            SLATE_OK
        }
        None => Error::NotFound as c_int,
    }
}

/// Looks up `count` keys at once, `slate_get_many`'s shape: for each
/// `i < count`, `found[i]` becomes 1 and `elements[i]` the key's column-0
/// element (NULL for a membership set), or `found[i]` 0 with `elements[i]`
/// left as it was. `elements` may be NULL (a presence test). The results
/// equal those of `count` calls of `slotmap_sparse_get`, faster for large
/// sets (the keys' cache misses overlap). Allocates nothing.
///
/// Returns `SLATE_OK` (also for `count == 0`), or `SLATE_ERROR_INVALID`
/// with nothing written for a NULL set, or a NULL `keys` or `found` when
/// `count > 0`.
///
/// # Safety
/// `sp` is NULL or an initialized set; `keys` has `count` keys, `found`
/// room for `count` bytes, and `elements` is NULL or has room for `count`
/// pointers.
#[no_mangle]
pub unsafe extern "C" fn slotmap_sparse_get_many(
    sp: *const slotmap_sparse_s,
    keys: *const slotmap_key,
    count: usize,
    elements: *mut *mut c_void,
    found: *mut u8,
) -> c_int {
    // SAFETY: the caller's guarantee.
    let s = match unsafe { read(sp) } {
        Ok(s) => s,
        Err(e) => return e as c_int,
    };
    if count > 0 && (keys.is_null() || found.is_null()) {
        return Error::Invalid as c_int;
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

/// 1 if the set holds exactly `key`, else 0 (also for NULL). Allocates
/// nothing.
///
/// # Safety
/// `sp` is NULL or an initialized set.
#[no_mangle]
pub unsafe extern "C" fn slotmap_sparse_contains(
    sp: *const slotmap_sparse_s,
    key: slotmap_key,
) -> c_int {
    // SAFETY: the caller's guarantee.
    unsafe { read(sp) }.is_ok_and(|s| s.row_of(key).is_some()) as c_int
}

/// Stores `key`'s dense row in `*row` (valid until the next call that
/// sets a new key, erases, prunes, sorts, clears or frees the set).
///
/// Returns `SLATE_OK`, `SLATE_ERROR_NOT_FOUND`, or `SLATE_ERROR_INVALID`
/// for a NULL `sp` or `row`.
///
/// # Safety
/// `sp` is NULL or an initialized set; `row` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slotmap_sparse_row(
    sp: *const slotmap_sparse_s,
    key: slotmap_key,
    row: *mut u32,
) -> c_int {
    // SAFETY: the caller's guarantee.
    let s = match unsafe { read(sp) } {
        Ok(s) => s,
        Err(e) => return e as c_int,
    };
    if row.is_null() {
        return Error::Invalid as c_int;
    }
    match s.row_of(key) {
        Some(r) => {
            // SAFETY: `row` is writable.
            unsafe { row.write(r) };
            SLATE_OK
        }
        None => Error::NotFound as c_int,
    }
}

/// Erases `key`'s row by swap-and-pop: the last row moves into its place,
/// so rows stay packed.
///
/// Returns `SLATE_OK`, `SLATE_ERROR_NOT_FOUND` (a key not present), or
/// `SLATE_ERROR_INVALID` for a NULL `sp`.
///
/// # Safety
/// `sp` is NULL or an initialized set.
#[no_mangle]
pub unsafe extern "C" fn slotmap_sparse_erase(
    sp: *mut slotmap_sparse_s,
    key: slotmap_key,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's guarantee.
        unsafe { write(sp)? }.erase(key)
    })
}

/// Erases every row for which `predicate(key, element, data)` returns
/// non-zero (`element`: the row's column-0 element; NULL for a membership
/// set), as the walk goes, in one pass: an erased row is refilled by the
/// last one (swap-and-pop), which is asked next. The predicate may call
/// anything, as `slotmap_sparse_each`'s callback: after a change to this
/// set other than erasing its own key, the walk stops with
/// `SLATE_ERROR_INVALID`, and an answer that came with a change is not
/// applied. Rows erased before the walk stopped, or before a predicate
/// left it with `longjmp`, stay erased.
///
/// Returns `SLATE_OK`, or `SLATE_ERROR_INVALID` for a NULL `sp` or
/// `predicate`, or as above. Allocates nothing.
///
/// # Safety
/// `sp` is NULL or an initialized set; the predicate must not unwind.
#[no_mangle]
pub unsafe extern "C" fn slotmap_sparse_erase_if(
    sp: *mut slotmap_sparse_s,
    predicate: slotmap_each_f,
    data: *mut c_void,
) -> c_int {
    let Some(f) = predicate else {
        return Error::Invalid as c_int;
    };
    if sp.is_null() {
        return Error::Invalid as c_int;
    }
    // SAFETY: an initialized set, the caller's guarantee.
    code(unsafe { Sparse::erase_if(sp.cast(), |k, e| f(k, e.cast(), data)) })
}

/// Erases, in one pass, every row whose key `owner` no longer accepts
/// (`slotmap_contains(owner, key) == 0`): the bulk cleanup after entities
/// die. Allocates nothing.
///
/// Returns `SLATE_OK`, or `SLATE_ERROR_INVALID` for a NULL `sp` or
/// `owner`.
///
/// # Safety
/// `sp` is NULL or an initialized set; `owner` is NULL or an initialized
/// slotmap.
#[no_mangle]
pub unsafe extern "C" fn slotmap_sparse_prune(
    sp: *mut slotmap_sparse_s,
    owner: *const slotmap_s,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's guarantee.
        let s = unsafe { write(sp)? };
        // SAFETY: the caller's guarantee.
        let owner = unsafe { read(owner)? };
        s.prune(owner);
        Ok(())
    })
}

/// The number of rows; 0 for NULL.
///
/// # Safety
/// `sp` is NULL or an initialized set.
#[no_mangle]
pub unsafe extern "C" fn slotmap_sparse_length(sp: *const slotmap_sparse_s) -> u32 {
    // SAFETY: the caller's guarantee.
    unsafe { read(sp) }.map_or(0, |s| s.len())
}

/// The base of dense column `column` (rows `0 .. length - 1`), aligned to
/// 16 bytes; NULL for a NULL set, a column out of range, a membership set,
/// or a set that never held a row. Valid as `slotmap_sparse_get`'s
/// pointers.
///
/// # Safety
/// `sp` is NULL or an initialized set.
#[no_mangle]
pub unsafe extern "C" fn slotmap_sparse_column(
    sp: *const slotmap_sparse_s,
    column: u32,
) -> *mut c_void {
    // SAFETY: the caller's guarantee.
    unsafe { read(sp) }.map_or(ptr::null_mut(), |s| s.column(column as usize).cast())
}

/// The key of dense row `row`; 0 for `row >= length` or a NULL set.
///
/// # Safety
/// `sp` is NULL or an initialized set.
#[no_mangle]
pub unsafe extern "C" fn slotmap_sparse_key_at(
    sp: *const slotmap_sparse_s,
    row: u32,
) -> slotmap_key {
    // SAFETY: the caller's guarantee.
    unsafe { read(sp) }
        .ok()
        .and_then(|s| s.key_at(row))
        .unwrap_or(0)
}

/// The set's keys as a dense array (row `i`'s key at index `i`, `length`
/// of them), to pass straight to `slotmap_get_many` or another set's
/// `get_many`; NULL for a NULL or empty set. Valid as
/// `slotmap_sparse_get`'s pointers.
///
/// # Safety
/// `sp` is NULL or an initialized set.
#[no_mangle]
pub unsafe extern "C" fn slotmap_sparse_keys(sp: *const slotmap_sparse_s) -> *const slotmap_key {
    // SAFETY: the caller's guarantee.
    unsafe { read(sp) }.map_or(ptr::null(), |s| s.keys_ptr())
}

/// Calls `callback(key, element, data)` for every row in dense order, row
/// 0 first (`element`: the column-0 element; NULL for a membership set). A
/// non-zero return stops the walk and becomes the result.
///
/// The callback may call anything, on this set too, and such a call does
/// what it does outside a walk. After each callback the walk goes on if
/// the set is unchanged (rows written in place included), or if the only
/// change was the erase of the key the callback was given (the way a
/// system drops a tag it has handled): the walk then stays on that row,
/// which swap-and-pop refilled, so every other row is still visited once.
/// After any other change (a new key, another erase, sort, prune,
/// reserve, clear, free) it visits nothing more and returns
/// `SLATE_ERROR_INVALID`, unless the callback returned non-zero, which
/// stands. The callback may leave the walk with `longjmp` or end its
/// thread; the set stays usable.
///
/// Returns `SLATE_OK`, the callback's non-zero value, or
/// `SLATE_ERROR_INVALID` for a NULL `sp` or callback, or as above.
/// Allocates nothing.
///
/// # Safety
/// `sp` is NULL or an initialized set; the callback must not unwind.
#[no_mangle]
pub unsafe extern "C" fn slotmap_sparse_each(
    sp: *const slotmap_sparse_s,
    callback: slotmap_each_f,
    data: *mut c_void,
) -> c_int {
    let Some(f) = callback else {
        return Error::Invalid as c_int;
    };
    if sp.is_null() {
        return Error::Invalid as c_int;
    }
    // SAFETY: an initialized set, the caller's guarantee; the callback's
    // contract is the caller's.
    walk_code(unsafe { Sparse::each(sp.cast(), |k, e| f(k, e.cast(), data)) })
}

/// Reorders the rows by column 0 so that rows for which `less(a, b, data)`
/// is non-zero come first (`a`, `b`: column-0 elements); every key stays.
/// Not stable. Needs a `uint32_t` per row of temporary memory, which the
/// set keeps until the sort ends.
///
/// A sort is a change: it makes walks of this set in progress stop. The
/// comparator may call anything, on this set too; if it changes the set,
/// the sort stops at once, applies no order and returns
/// `SLATE_ERROR_INVALID`. A comparator that leaves the sort with
/// `longjmp` leaves the rows as they were; the sort's memory stays with
/// the set until its next sort or `slotmap_sparse_free`.
///
/// Returns `SLATE_OK`; `SLATE_ERROR_ALLOC` (nothing changed);
/// `SLATE_ERROR_INVALID` for a NULL `sp` or `less`, a membership set, or
/// as above.
///
/// # Safety
/// `sp` is NULL or an initialized set; `less` must not unwind.
#[no_mangle]
pub unsafe extern "C" fn slotmap_sparse_sort(
    sp: *mut slotmap_sparse_s,
    less: Option<
        unsafe extern "C" fn(a: *const c_void, b: *const c_void, data: *mut c_void) -> c_int,
    >,
    data: *mut c_void,
) -> c_int {
    let Some(f) = less else {
        return Error::Invalid as c_int;
    };
    if sp.is_null() {
        return Error::Invalid as c_int;
    }
    // SAFETY: an initialized set, the caller's guarantee; the comparator's
    // contract is the caller's.
    code(unsafe { Sparse::sort::<Guarded>(sp.cast(), |a, b| f(a.cast(), b.cast(), data) != 0) })
}

/// Removes every row (their keys are no longer present); keeps the
/// capacity and the index's pages.
///
/// Returns `SLATE_OK`, or `SLATE_ERROR_INVALID` for a NULL `sp`.
///
/// # Safety
/// `sp` is NULL or an initialized set.
#[no_mangle]
pub unsafe extern "C" fn slotmap_sparse_clear(sp: *mut slotmap_sparse_s) -> c_int {
    guard(|| {
        // SAFETY: the caller's guarantee.
        unsafe { write(sp)? }.clear();
        Ok(())
    })
}

/// Initializes `copy` as an independent copy of `sp` (same columns, keys
/// and rows; row order not kept necessarily). `copy` is overwritten, not
/// freed. A copy of a set with its own allocator uses it; otherwise the
/// process default in force.
///
/// Returns `SLATE_OK`; `SLATE_ERROR_ALLOC` (then `copy` is an empty set of
/// the same columns); `SLATE_ERROR_INVALID` for NULL arguments or `copy ==
/// sp`.
///
/// # Safety
/// `copy` is NULL or writable; `sp` is NULL or an initialized set.
#[no_mangle]
pub unsafe extern "C" fn slotmap_sparse_clone(
    copy: *mut slotmap_sparse_s,
    sp: *const slotmap_sparse_s,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's guarantee.
        let s = unsafe { read(sp)? };
        let at = fresh(copy)?;
        if ptr::eq(copy.cast_const(), sp) {
            return Err(Error::Invalid);
        }
        let alloc = s.clone_allocator();
        let (result, body) = match s.try_clone(alloc) {
            Ok(c) => (Ok(()), c),
            Err(e) => (Err(e), s.empty_like(alloc)),
        };
        // SAFETY: `copy` is writable; its old contents are not read.
        unsafe { at.write(body) };
        result
    })
}

/// Releases everything. The set stays usable (same columns, empty);
/// freeing twice is harmless. Does nothing for NULL, or from inside a walk
/// of the set.
///
/// # Safety
/// `sp` is NULL or an initialized set.
#[no_mangle]
pub unsafe extern "C" fn slotmap_sparse_free(sp: *mut slotmap_sparse_s) {
    guard(|| {
        // SAFETY: the caller's guarantee.
        unsafe { write(sp)? }.free();
        Ok(())
    });
}

/// Visits every key present in all `count` sets (and, with a non-NULL
/// `owner`, valid in `owner` at the moment it is reached), each once:
/// walks the set with the fewest rows (the first such in `sets` on a tie)
/// in row order and tests the others. Calls `callback(key, rows,
/// elements, data)`: see `slotmap_join_f`. A non-zero return stops the
/// join and becomes its result. The join itself modifies nothing.
///
/// The join is a walk of every one of the sets: the callback may call
/// anything, and may erase the key it was given from any of the sets (the
/// walk then stays on the row that swap-and-pop refilled); after any other
/// change to one of the sets it visits nothing more and returns
/// `SLATE_ERROR_INVALID`, unless the callback returned non-zero. The owner
/// and every other structure may be modified freely.
///
/// Returns 0 (`SLATE_OK`) or the callback's stopping value;
/// `SLATE_ERROR_INVALID` for `count` 0, a NULL `sets`, set or callback, or
/// as above; `SLATE_ERROR_FULL` for more than 32 sets. Allocates nothing.
///
/// # Safety
/// `owner` is NULL or an initialized slotmap; `sets` holds `count`
/// pointers to initialized sets; the callback must not unwind.
#[no_mangle]
pub unsafe extern "C" fn slotmap_join(
    owner: *const slotmap_s,
    sets: *const *mut slotmap_sparse_s,
    count: u32,
    callback: slotmap_join_f,
    data: *mut c_void,
) -> c_int {
    let Some(f) = callback else {
        return Error::Invalid as c_int;
    };
    if sets.is_null() || count == 0 {
        return Error::Invalid as c_int;
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
            return Error::Invalid as c_int;
        }
        *l = s.cast_const().cast();
    }
    let owner = (!owner.is_null()).then_some(owner.cast::<SlotMap>());
    // SAFETY: the callback's contract is the caller's; the arrays live
    // during the call.
    let visit = |key, rows: &[u32], elements: &[*mut c_void]| unsafe {
        f(key, rows.as_ptr(), elements.as_ptr(), data)
    };
    // SAFETY: the caller's guarantee.
    walk_code(unsafe { sparse::join(owner, &list[..count.min(sparse::join::MAX_SETS)], visit) })
}
