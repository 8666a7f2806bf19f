//! The slotmap's C API: `slotmap_*`.

use core::ffi::{c_int, c_void};
use core::mem::{align_of, size_of};
use core::ptr;

use crate::alloc::Allocator;
use crate::slotmap::{Grow, SlotMap};
use crate::Error;

use super::{
    code, fresh, guard, own_allocator, read, slate_allocator_s, walk_code, write, Guarded, Shell,
    SLATE_OK,
};

/// A slotmap key: the low 32 bits name a slot, the high 32 bits its
/// generation. 0 is never a valid key. A key stays valid until its row is
/// erased (or the slotmap cleared or freed); after that it never validates
/// again.
pub type slotmap_key = u64;

/// A slotmap: a generational arena with dense rows. A
/// complete type, caller-allocated like `slate_s`: initialize it with
/// `slotmap()` or `slotmap_columns()`, release it with `slotmap_free()`. It
/// may be moved with `memcpy` while no call on it is in progress. Its fields
/// are private.
#[repr(C)]
pub struct slotmap_s {
    pub _private: [u64; 24],
}

const _: () = assert!(size_of::<SlotMap>() <= size_of::<slotmap_s>());
const _: () = assert!(align_of::<SlotMap>() <= align_of::<slotmap_s>());

// SAFETY: the two assertions above.
unsafe impl Shell for slotmap_s {
    type Body = SlotMap;
}

/// Called by `slotmap_each` and `slotmap_erase_if` once per row: the row's
/// key, its column-0 element, and the caller's `data`. Return 0 to go on.
pub type slotmap_each_f =
    Option<unsafe extern "C" fn(key: slotmap_key, row: *mut c_void, data: *mut c_void) -> c_int>;

/// # Safety
/// `sm` is NULL or writable; `sizes` holds `count` column sizes.
unsafe fn init(sm: *mut slotmap_s, sizes: &[u32]) -> c_int {
    guard(|| {
        let at = fresh(sm)?;
        let body = SlotMap::new(sizes, Allocator::current())?;
        // SAFETY: `sm` is writable (its old contents are not read).
        unsafe { at.write(body) };
        Ok(())
    })
}

/// Initializes `sm` as an empty slotmap of one column of `element_size`-byte
/// elements. Allocates nothing. Takes the allocator in force (see
/// `slate_use_allocator`; the `SLATE_MALLOC` hooks serve slotmaps too).
///
/// Returns `SLATE_OK`, or `SLATE_ERROR_INVALID` for a NULL `sm` or a zero
/// size.
///
/// # Safety
/// `sm` is NULL or points to writable memory for a `slotmap_s`.
#[no_mangle]
pub unsafe extern "C" fn slotmap(sm: *mut slotmap_s, element_size: u32) -> c_int {
    // SAFETY: the caller's guarantee.
    unsafe { init(sm, &[element_size]) }
}

/// Initializes `sm` with `count` columns (structure of arrays): column `c`
/// holds `sizes[c]`-byte elements, each column 16-byte aligned, row `r` of
/// every column belonging to the same record. A packed row (for
/// `slotmap_insert`) is the columns' fields back to back, no padding.
/// Allocates nothing.
///
/// Returns `SLATE_OK`; `SLATE_ERROR_INVALID` for a NULL `sm` or `sizes`,
/// `count == 0` or a zero size; `SLATE_ERROR_FULL` for more than 16
/// columns or rows of 4 GiB.
///
/// # Safety
/// `sm` is NULL or writable; `sizes` is NULL or holds `count` sizes.
#[no_mangle]
pub unsafe extern "C" fn slotmap_columns(
    sm: *mut slotmap_s,
    sizes: *const u32,
    count: u32,
) -> c_int {
    if sizes.is_null() || count == 0 {
        return Error::Invalid as c_int;
    }
    // SAFETY: the caller's guarantee.
    unsafe { init(sm, core::slice::from_raw_parts(sizes, count as usize)) }
}

/// Makes room for `n` rows in all, so that inserts up to `n` rows allocate
/// nothing. Growing moves the columns: pointers from `slotmap_get` and
/// `slotmap_column` taken before a `slotmap_reserve` are not valid after it.
///
/// Returns `SLATE_OK`; `SLATE_ERROR_FULL` beyond the limit
/// (`slotmap_limit`); `SLATE_ERROR_ALLOC` (nothing changed);
/// `SLATE_ERROR_INVALID` for a NULL `sm`.
///
/// # Safety
/// `sm` is NULL or an initialized slotmap.
#[no_mangle]
pub unsafe extern "C" fn slotmap_reserve(sm: *mut slotmap_s, n: u32) -> c_int {
    // SAFETY: the caller's guarantee.
    guard(|| unsafe { write(sm)? }.reserve(n))
}

/// Gives the slotmap its own allocator (arenas, pools, accounting), or
/// with a NULL `allocator` the process default back (`slate_use_allocator`,
/// or the C library's). `*allocator` is copied: the caller's struct may go
/// away, but its `context` must stay valid while the slotmap holds memory.
/// Every byte the slotmap allocates from then on (its columns and its
/// index) comes from `allocate` and goes back through `release` with the
/// same context and size. `slotmap_free` keeps the allocator, `slotmap()`
/// and `slotmap_columns()` drop it; a clone uses it too (a clone of a
/// slotmap without one uses the process default in force). Besides the
/// calls that grow the slotmap (insert, reserve, clone), `slotmap_erase_if`
/// and `slotmap_sort` allocate temporary memory and release it before they
/// return.
///
/// Allowed while the slotmap holds no memory: after `slotmap()` or
/// `slotmap_columns()`, or after `slotmap_free` (not after `slotmap_clear`
/// or erasing every row, which keep the capacity).
///
/// Returns `SLATE_OK`, or `SLATE_ERROR_INVALID` for a NULL `sm`, a NULL
/// `allocate` or `release`, a slotmap that holds memory (nothing
/// changed; a slotmap being walked holds memory).
///
/// # Safety
/// `sm` is NULL or an initialized slotmap; `allocator` is NULL or
/// readable.
#[no_mangle]
pub unsafe extern "C" fn slotmap_set_allocator(
    sm: *mut slotmap_s,
    allocator: *const slate_allocator_s,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's guarantee.
        let m = unsafe { write(sm)? };
        // SAFETY: the caller's guarantee.
        m.set_allocator(unsafe { own_allocator(allocator)? })
    })
}

/// Gives the slotmap a fixed capacity: an insert beyond `max_rows` rows
/// fails with `SLATE_ERROR_FULL` and changes nothing. Allocates nothing.
///
/// `UINT32_MAX` means no limit.
///
/// Returns `SLATE_OK`, or `SLATE_ERROR_INVALID` for a NULL `sm`, a limit
/// below the current length.
///
/// # Safety
/// `sm` is NULL or an initialized slotmap.
#[no_mangle]
pub unsafe extern "C" fn slotmap_limit(sm: *mut slotmap_s, max_rows: u32) -> c_int {
    // SAFETY: the caller's guarantee.
    guard(|| unsafe { write(sm)? }.set_limit(max_rows))
}

/// Copies one row in (NULL inserts a zeroed row) and stores its new key in
/// `*key`. The row is `row_size` bytes: a one-column slotmap's element,
/// which may be any struct (`slotmap(&sm, sizeof(struct particle))` takes
/// `&p`, padding and all); or, with several columns, the columns' fields
/// packed back to back with no padding, which a padded C struct is NOT:
///
/// ```c
/// uint32_t sizes[] = {sizeof(float), sizeof(double)};  // 4 + 8: rows of 12 bytes
/// slotmap_columns(&sm, sizes, 2);
/// struct { float hp; double t; } wrong = {1, 2};  // 16 bytes: 4 of padding after hp
/// slotmap_insert(&sm, &wrong, &k);                // t's column gets padding and half of t
/// unsigned char row[12];                          // right: the fields back to back
/// memcpy(row, &wrong.hp, 4);
/// memcpy(row + 4, &wrong.t, 8);
/// slotmap_insert(&sm, row, &k);
/// ```
///
/// or insert NULL and write each field through `slotmap_column` at
/// `slotmap_row`. The pointer is read during the call only.
///
/// Returns `SLATE_OK`; `SLATE_ERROR_FULL` at the limit; `SLATE_ERROR_ALLOC`
/// (nothing changed); `SLATE_ERROR_INVALID` for a NULL `sm` or `key`.
///
/// # Safety
/// `sm` is NULL or an initialized slotmap; `row` is NULL or holds a packed
/// row; `key` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slotmap_insert(
    sm: *mut slotmap_s,
    row: *const c_void,
    key: *mut slotmap_key,
) -> c_int {
    // SAFETY: the caller's guarantees.
    unsafe { insert(sm, row, key) }
}

/// # Safety
/// As for `slotmap_insert`; the calling thread does not walk `sm`.
#[inline(always)]
unsafe fn insert(sm: *mut slotmap_s, row: *const c_void, key: *mut slotmap_key) -> c_int {
    // SAFETY: the caller's guarantees.
    let m = match unsafe { write(sm) } {
        Ok(m) if !key.is_null() => m,
        _ => return Error::Invalid as c_int,
    };
    // SAFETY: `row` is NULL or a packed row.
    unsafe {
        m.try_insert(row.cast(), move |m, r| match r {
            Ok(Ok(k)) => {
                // SAFETY: `key` is writable.
                key.write(k);
                SLATE_OK
            }
            Ok(Err(e)) => e as c_int,
            // SAFETY: as above.
            Err(grow) => insert_growing(m, grow, row, key),
        })
    }
}

/// `slotmap_insert` once the slotmap must grow. Growing
/// allocates and may panic (a bug): under `guard`.
///
/// # Safety
/// As for `slotmap_insert`, with `key` writable.
unsafe fn insert_growing(
    m: &mut SlotMap,
    grow: Grow,
    row: *const c_void,
    key: *mut slotmap_key,
) -> c_int {
    // SAFETY: `row` is NULL or a packed row; `key` is writable.
    guard(|| unsafe { m.insert_growing(grow, row.cast()) }.map(|k| unsafe { key.write(k) }))
}

/// Finds `key`. On `SLATE_OK` stores a pointer to its column-0 element in
/// `*element` unless `element` is NULL (a presence test). The pointer is
/// valid until the next call that inserts, erases, sorts, reserves, clears
/// or frees (`slotmap_reserve` may move the columns); calls that fail or are
/// refused change nothing and keep it valid.
/// On `SLATE_ERROR_NOT_FOUND` (a stale, forged or foreign key, or 0)
/// leaves `*element` as it was. Allocates nothing.
///
/// # Safety
/// `sm` is NULL or an initialized slotmap; `element` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slotmap_get(
    sm: *const slotmap_s,
    key: slotmap_key,
    element: *mut *mut c_void,
) -> c_int {
    // No `guard` here or in the other lookups: they run no user code,
    // allocate nothing and cannot panic (`make symbols` checks that no
    // exported function has an unwind path).
    // SAFETY: the caller's guarantee.
    let p = match unsafe { read(sm) } {
        Ok(m) => m.get(key),
        Err(e) => return e as c_int,
    };
    match p {
        Some(p) => {
            if !element.is_null() {
                // SAFETY: a non-NULL `element` is writable.
                unsafe { element.write(p.cast()) };
            }
            SLATE_OK
        }
        None => Error::NotFound as c_int,
    }
}

/// Looks up `count` keys at once: for each `i < count`, `elements[i]`
/// becomes the key's column-0 element, as `slotmap_get` gives it, or NULL
/// for a stale, forged or foreign key (or key 0). The results equal those
/// of `count` calls of `slotmap_get`; the call is faster because it
/// overlaps the keys' cache misses, and it starts loading each element
/// for the caller. The pointers stay valid as `slotmap_get`'s do. Allocates
/// nothing; allowed inside `slotmap_each` callbacks.
///
/// Returns `SLATE_OK` (also for `count == 0`), or `SLATE_ERROR_INVALID`
/// with nothing written for a NULL slotmap, or a NULL `keys` or `elements`
/// when `count > 0`.
///
/// # Safety
/// `sm` is NULL or an initialized slotmap; `keys` has `count` readable
/// keys and `elements` room for `count` pointers.
#[no_mangle]
pub unsafe extern "C" fn slotmap_get_many(
    sm: *const slotmap_s,
    keys: *const slotmap_key,
    count: usize,
    elements: *mut *mut c_void,
) -> c_int {
    // SAFETY: the caller's guarantee.
    let m = match unsafe { read(sm) } {
        Ok(m) => m,
        Err(e) => return e as c_int,
    };
    if count > 0 && (keys.is_null() || elements.is_null()) {
        return Error::Invalid as c_int;
    }
    // SAFETY (both): `keys` has `count` keys and `elements` room for
    // `count` pointers; `i < count`.
    let key = |i| unsafe { *keys.add(i) };
    m.get_many(count, key, |i, p| unsafe {
        elements.add(i).write(p.cast())
    });
    SLATE_OK
}

/// Stores `key`'s dense row index in `*row` (valid until the next insert,
/// erase, sort, clear or free).
///
/// Returns `SLATE_OK`, `SLATE_ERROR_NOT_FOUND`, or `SLATE_ERROR_INVALID` for
/// a NULL `sm` or `row`.
///
/// # Safety
/// `sm` is NULL or an initialized slotmap; `row` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slotmap_row(
    sm: *const slotmap_s,
    key: slotmap_key,
    row: *mut u32,
) -> c_int {
    // SAFETY: the caller's guarantee.
    let m = match unsafe { read(sm) } {
        Ok(m) if !row.is_null() => m,
        _ => return Error::Invalid as c_int,
    };
    match m.row_of(key) {
        Some(r) => {
            // SAFETY: `row` is writable.
            unsafe { row.write(r) };
            SLATE_OK
        }
        None => Error::NotFound as c_int,
    }
}

/// The base of dense column `column`: rows `0 .. slotmap_length-1`, each
/// `sizes[column]` bytes, 16-byte aligned. Valid until the next insert,
/// erase, sort, reserve, clear or free. NULL for a NULL `sm`, a column out of range,
/// or while the slotmap has never held a row (nothing is allocated).
///
/// # Safety
/// `sm` is NULL or an initialized slotmap.
#[no_mangle]
pub unsafe extern "C" fn slotmap_column(sm: *const slotmap_s, column: u32) -> *mut c_void {
    // SAFETY: the caller's guarantee.
    match unsafe { read(sm) } {
        Ok(m) if column < m.column_count() => m.column(column as usize).cast(),
        _ => ptr::null_mut(),
    }
}

/// The key that owns dense row `row`; 0 for a row at or past the length
/// or a NULL `sm`.
///
/// # Safety
/// `sm` is NULL or an initialized slotmap.
#[no_mangle]
pub unsafe extern "C" fn slotmap_key_at(sm: *const slotmap_s, row: u32) -> slotmap_key {
    // SAFETY: the caller's guarantee.
    unsafe { read(sm) }
        .ok()
        .and_then(|m| m.key_at(row))
        .unwrap_or(0)
}

/// 1 when `key` is valid in `sm`, else 0 (also for NULL).
///
/// # Safety
/// `sm` is NULL or an initialized slotmap.
#[no_mangle]
pub unsafe extern "C" fn slotmap_contains(sm: *const slotmap_s, key: slotmap_key) -> c_int {
    // SAFETY: the caller's guarantee.
    unsafe { read(sm) }.is_ok_and(|m| m.row_of(key).is_some()) as c_int
}

/// Erases `key`'s row: the last row moves into its place (swap-and-pop), so
/// rows stay packed and every other key stays valid. `key` becomes stale
/// for good.
///
/// Returns `SLATE_OK`; `SLATE_ERROR_NOT_FOUND` for a stale, forged or
/// foreign key; `SLATE_ERROR_INVALID` for a NULL `sm`.
///
/// # Safety
/// `sm` is NULL or an initialized slotmap.
#[no_mangle]
pub unsafe extern "C" fn slotmap_erase(sm: *mut slotmap_s, key: slotmap_key) -> c_int {
    // Allocates nothing and cannot panic: no `guard`.
    // SAFETY: the caller's guarantee.
    code(unsafe { write(sm) }.and_then(|m| m.erase(key)))
}

/// Erases every row for which `predicate(key, row, data)` returns non-zero,
/// as the walk goes, in one pass over the rows in dense order: an erased
/// row is refilled by the last one (swap-and-pop), which is asked next,
/// so survivors may change order. The predicate may call anything, as
/// `slotmap_each`'s callback: after a change to this slotmap other than
/// erasing its own key, the walk stops with `SLATE_ERROR_INVALID`, and an
/// answer that came with a change is not applied. Rows erased before the
/// walk stopped, or before a predicate left it with `longjmp`, stay
/// erased.
///
/// Returns `SLATE_OK` (not a count), or `SLATE_ERROR_INVALID` for a NULL
/// `sm` or predicate, or as above. Allocates nothing.
///
/// # Safety
/// `sm` is NULL or an initialized slotmap; the predicate must not unwind.
#[no_mangle]
pub unsafe extern "C" fn slotmap_erase_if(
    sm: *mut slotmap_s,
    predicate: slotmap_each_f,
    data: *mut c_void,
) -> c_int {
    let Some(f) = predicate else {
        return Error::Invalid as c_int;
    };
    if sm.is_null() {
        return Error::Invalid as c_int;
    }
    // SAFETY: an initialized slotmap, the caller's guarantee.
    code(unsafe { SlotMap::erase_if(sm.cast(), |k, row| f(k, row.cast(), data)) })
}

/// Reorders the rows by column 0 so that rows for which `less(a, b, data)`
/// is non-zero come first (`a`, `b`: column-0 elements); every key stays
/// valid. Not stable. Needs a `uint32_t` per row of temporary memory,
/// which the slotmap keeps until the sort ends.
///
/// A sort is a change: it makes walks of this slotmap in progress stop.
/// The comparator may call anything, on this slotmap too; if it changes
/// the slotmap, the sort stops at once, applies no order and returns
/// `SLATE_ERROR_INVALID`. A comparator that leaves the sort with
/// `longjmp` leaves the rows as they were; the sort's memory stays with
/// the slotmap until its next sort or `slotmap_free`.
///
/// Returns `SLATE_OK`; `SLATE_ERROR_ALLOC` (nothing changed);
/// `SLATE_ERROR_INVALID` for a NULL `sm` or `less`, or as above.
///
/// # Safety
/// `sm` is NULL or an initialized slotmap; `less` must not unwind.
#[no_mangle]
pub unsafe extern "C" fn slotmap_sort(
    sm: *mut slotmap_s,
    less: Option<
        unsafe extern "C" fn(a: *const c_void, b: *const c_void, data: *mut c_void) -> c_int,
    >,
    data: *mut c_void,
) -> c_int {
    let Some(f) = less else {
        return Error::Invalid as c_int;
    };
    if sm.is_null() {
        return Error::Invalid as c_int;
    }
    // SAFETY: an initialized slotmap, the caller's guarantee; the
    // comparator's contract is the caller's.
    code(unsafe { SlotMap::sort::<Guarded>(sm.cast(), |a, b| f(a.cast(), b.cast(), data) != 0) })
}

/// Calls `callback(key, row, data)` for every row in dense order (`row` is
/// the column-0 element). A non-zero return stops the walk and becomes the
/// result.
///
/// The callback may call anything, on this slotmap too, and such a call
/// does what it does outside a walk. After each callback the walk goes on
/// if the slotmap is unchanged (rows written through their pointers
/// included), or if the only change was the erase of the key the callback
/// was given: the walk then stays on that row, which swap-and-pop refilled,
/// so every other row is still visited once. After any other change (an
/// insert, another erase, sort, reserve, clear, free) it visits nothing
/// more and returns `SLATE_ERROR_INVALID`, unless the callback returned
/// non-zero, which stands. The callback may leave the walk with
/// `longjmp` or end its thread; the slotmap stays usable.
///
/// Returns `SLATE_OK`, the callback's non-zero value, or
/// `SLATE_ERROR_INVALID` for a NULL `sm` or callback, or as above.
/// Allocates nothing.
///
/// # Safety
/// `sm` is NULL or an initialized slotmap; the callback must not unwind.
#[no_mangle]
pub unsafe extern "C" fn slotmap_each(
    sm: *const slotmap_s,
    callback: slotmap_each_f,
    data: *mut c_void,
) -> c_int {
    let Some(f) = callback else {
        return Error::Invalid as c_int;
    };
    if sm.is_null() {
        return Error::Invalid as c_int;
    }
    // SAFETY: an initialized slotmap, the caller's guarantee; the
    // callback's contract is the caller's.
    walk_code(unsafe { SlotMap::each(sm.cast(), |k, row| f(k, row.cast(), data)) })
}

/// The number of rows; 0 for NULL.
///
/// # Safety
/// `sm` is NULL or an initialized slotmap.
#[no_mangle]
pub unsafe extern "C" fn slotmap_length(sm: *const slotmap_s) -> u32 {
    // SAFETY: the caller's guarantee.
    unsafe { read(sm) }.map_or(0, |m| m.len())
}

/// Removes every row; every old key becomes stale. Keeps the capacity.
///
/// Returns `SLATE_OK`, or `SLATE_ERROR_INVALID` for a NULL `sm`.
///
/// # Safety
/// `sm` is NULL or an initialized slotmap.
#[no_mangle]
pub unsafe extern "C" fn slotmap_clear(sm: *mut slotmap_s) -> c_int {
    guard(|| {
        // SAFETY: the caller's guarantee.
        unsafe { write(sm)? }.clear();
        Ok(())
    })
}

/// Initializes `copy` as an independent copy of `sm`: same columns, rows,
/// keys and limit. `copy` must be uninitialized or freed (its contents are
/// not read) and not `sm`; it takes the allocator in force.
///
/// Returns `SLATE_OK`; `SLATE_ERROR_ALLOC` (then `copy` is an empty slotmap
/// of the same columns); `SLATE_ERROR_INVALID` for a NULL argument or
/// `copy == sm`.
///
/// # Safety
/// `copy` is NULL or writable; `sm` is NULL or an initialized slotmap.
#[no_mangle]
pub unsafe extern "C" fn slotmap_clone(copy: *mut slotmap_s, sm: *const slotmap_s) -> c_int {
    guard(|| {
        // SAFETY: the caller's guarantee.
        let m = unsafe { read(sm)? };
        let at = fresh(copy)?;
        if ptr::eq(copy.cast_const(), sm) {
            return Err(Error::Invalid);
        }
        let alloc = m.clone_allocator();
        let (result, body) = match m.try_clone(alloc) {
            Ok(c) => (Ok(()), c),
            Err(e) => (Err(e), m.empty_like(alloc)),
        };
        // SAFETY: `copy` is writable; its old contents are not read.
        unsafe { at.write(body) };
        result
    })
}

/// Releases everything. The slotmap stays usable (same columns, length 0),
/// every old key stays stale, freeing twice is harmless. Does nothing for
/// NULL.
///
/// # Safety
/// `sm` is NULL or an initialized slotmap.
#[no_mangle]
pub unsafe extern "C" fn slotmap_free(sm: *mut slotmap_s) {
    guard(|| {
        // SAFETY: the caller's guarantee.
        unsafe { write(sm)? }.free();
        Ok(())
    });
}
