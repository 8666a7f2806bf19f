//! The slotmap's C API: `slotmap_*`. The calls a sparse set shares with it (`sparse.rs`) are one
//! generic body each, over [`Rows`].

use core::ffi::{c_int, c_void};
use core::mem::{align_of, size_of};
use core::ptr;

use crate::alloc::Allocator;
use crate::guard::Guard;
use crate::slotmap::{Grow, SlotMap};
use crate::Error;

use super::{
    armed, body, call, code, found, fresh, guard, read, slate_allocator_s, walk_code, write,
    Guarded, Shell, INVALID, SLATE_OK,
};

/// A slotmap key: the low 32 bits name a slot, the high 32 bits its generation. 0 is never a valid
/// key. A key stays valid until its row is erased (or the slotmap cleared or freed); after that it
/// never validates again.
pub type slotmap_key = u64;

/// A slotmap: a generational arena with dense rows. A complete type, caller-allocated, movable and
/// private like `slate_s`: initialize it with `slotmap()` or `slotmap_columns()`, release it with
/// `slotmap_free()`.
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

body!(SlotMap, |m, a| m.empty_like(a));

/// Called by `slotmap_each` and `slotmap_erase_if` once per row: the row's key, its column-0
/// element, and the caller's `data`. Return 0 to go on.
pub type slotmap_each_f =
    Option<unsafe extern "C" fn(key: slotmap_key, row: *mut c_void, data: *mut c_void) -> c_int>;

/// What a slotmap and a sparse set do alike, by their inherent methods of the same names: the
/// bodies of the calls they share.
pub(super) trait Rows: Sized {
    fn new(sizes: &[u32], alloc: Allocator) -> Result<Self, Error>;
    fn get(&self, key: u64) -> Option<*mut u8>;
    fn row_of(&self, key: u64) -> Option<u32>;
    fn key_at(&self, row: u32) -> Option<u64>;
    fn len(&self) -> u32;
    fn reserve(&mut self, n: u32) -> Result<(), Error>;
    unsafe fn each(this: *const Self, f: impl FnMut(u64, *mut u8) -> i32) -> Result<i32, Error>;
    unsafe fn erase_if(this: *mut Self, f: impl FnMut(u64, *mut u8) -> i32) -> Result<(), Error>;
    unsafe fn sort<G: Guard>(
        this: *mut Self,
        less: impl FnMut(*const u8, *const u8) -> bool,
    ) -> Result<(), Error>;
}

/// `Rows` for a structure type, by its inherent methods.
macro_rules! rows {
    ($t:ty) => {
        impl $crate::ffi::slotmap::Rows for $t {
            fn new(sizes: &[u32], alloc: Allocator) -> Result<Self, Error> {
                <$t>::new(sizes, alloc)
            }
            fn get(&self, key: u64) -> Option<*mut u8> {
                <$t>::get(self, key)
            }
            fn row_of(&self, key: u64) -> Option<u32> {
                <$t>::row_of(self, key)
            }
            fn key_at(&self, row: u32) -> Option<u64> {
                <$t>::key_at(self, row)
            }
            fn len(&self) -> u32 {
                <$t>::len(self)
            }
            fn reserve(&mut self, n: u32) -> Result<(), Error> {
                <$t>::reserve(self, n)
            }
            unsafe fn each(
                this: *const Self,
                f: impl FnMut(u64, *mut u8) -> i32,
            ) -> Result<i32, Error> {
                unsafe { <$t>::each(this, f) }
            }
            unsafe fn erase_if(
                this: *mut Self,
                f: impl FnMut(u64, *mut u8) -> i32,
            ) -> Result<(), Error> {
                unsafe { <$t>::erase_if(this, f) }
            }
            unsafe fn sort<G: $crate::guard::Guard>(
                this: *mut Self,
                less: impl FnMut(*const u8, *const u8) -> bool,
            ) -> Result<(), Error> {
                unsafe { <$t>::sort::<G>(this, less) }
            }
        }
    };
}
pub(super) use rows;

/// The C structs of a slotmap and a sparse set.
pub(super) trait Table: Shell<Body: Rows> {}
impl<S: Shell<Body: Rows>> Table for S {}

rows!(SlotMap);

/// The comparator of `slotmap_sort` and `slotmap_sparse_sort`.
pub(super) type Less =
    Option<unsafe extern "C" fn(a: *const c_void, b: *const c_void, data: *mut c_void) -> c_int>;

// The shared bodies.

/// `slotmap`, `slotmap_sparse`: `p` initialized with columns of `sizes`.
pub(super) unsafe fn init<S: Table>(p: *mut S, sizes: &[u32]) -> c_int {
    guard(|| {
        let at = fresh(p)?;
        let body = S::Body::new(sizes, Allocator::current())?;
        // SAFETY: `p` is writable (its old contents are not read).
        unsafe { at.write(body) };
        Ok(())
    })
}

/// `slotmap_columns`, `slotmap_sparse_columns`.
pub(super) unsafe fn columns<S: Table>(p: *mut S, sizes: *const u32, count: u32) -> c_int {
    if sizes.is_null() || count == 0 {
        return INVALID;
    }
    unsafe { init(p, core::slice::from_raw_parts(sizes, count as usize)) }
}

/// `slotmap_reserve`, `slotmap_sparse_reserve`.
pub(super) unsafe fn reserve<S: Table>(p: *mut S, n: u32) -> c_int {
    guard(|| unsafe { write(p)? }.reserve(n))
}

/// `slotmap_get`, `slotmap_sparse_get`: unguarded, as every lookup (see the module doc of `ffi`).
pub(super) unsafe fn get<S: Table>(p: *const S, key: u64, element: *mut *mut c_void) -> c_int {
    match unsafe { read(p) } {
        Ok(m) => unsafe { found(m.get(key).map(<*mut u8>::cast), element) },
        Err(e) => e as c_int,
    }
}

/// `slotmap_row`, `slotmap_sparse_row`.
pub(super) unsafe fn row_of<S: Table>(p: *const S, key: u64, row: *mut u32) -> c_int {
    match unsafe { read(p) } {
        Ok(m) if !row.is_null() => unsafe { found(m.row_of(key), row) },
        _ => INVALID,
    }
}

/// `slotmap_contains`, `slotmap_sparse_contains`.
pub(super) unsafe fn contains<S: Table>(p: *const S, key: u64) -> c_int {
    unsafe { read(p) }.is_ok_and(|m| m.row_of(key).is_some()) as c_int
}

/// `slotmap_key_at`, `slotmap_sparse_key_at`.
pub(super) unsafe fn key_at<S: Table>(p: *const S, row: u32) -> u64 {
    unsafe { read(p) }
        .ok()
        .and_then(|m| m.key_at(row))
        .unwrap_or(0)
}

/// `slotmap_length`, `slotmap_sparse_length`.
pub(super) unsafe fn length<S: Table>(p: *const S) -> u32 {
    unsafe { read(p) }.map_or(0, |m| m.len())
}

/// `slotmap_each`, `slotmap_sparse_each`.
pub(super) unsafe fn each<S: Table>(
    p: *const S,
    callback: slotmap_each_f,
    data: *mut c_void,
) -> c_int {
    let Some(f) = armed(callback, p) else {
        return INVALID;
    };
    walk_code(unsafe { S::Body::each(p.cast(), |k, row| f(k, row.cast(), data)) })
}

/// `slotmap_erase_if`, `slotmap_sparse_erase_if`.
pub(super) unsafe fn erase_if<S: Table>(
    p: *mut S,
    predicate: slotmap_each_f,
    data: *mut c_void,
) -> c_int {
    let Some(f) = armed(predicate, p) else {
        return INVALID;
    };
    code(unsafe { S::Body::erase_if(p.cast(), |k, row| f(k, row.cast(), data)) })
}

/// `slotmap_sort`, `slotmap_sparse_sort`.
pub(super) unsafe fn sort<S: Table>(p: *mut S, less: Less, data: *mut c_void) -> c_int {
    let Some(f) = armed(less, p) else {
        return INVALID;
    };
    code(unsafe { S::Body::sort::<Guarded>(p.cast(), |a, b| f(a.cast(), b.cast(), data) != 0) })
}

/// `slotmap_insert`; the calling thread does not walk `sm`.
unsafe fn insert(sm: *mut slotmap_s, row: *const c_void, key: *mut slotmap_key) -> c_int {
    let m = match unsafe { write(sm) } {
        Ok(m) if !key.is_null() => m,
        _ => return INVALID,
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

/// `slotmap_insert` once the slotmap must grow (with `key` writable). Growing allocates and may
/// panic (a bug): under `guard`.
unsafe fn insert_growing(
    m: &mut SlotMap,
    grow: Grow,
    row: *const c_void,
    key: *mut slotmap_key,
) -> c_int {
    // SAFETY: `row` is NULL or a packed row; `key` is writable.
    guard(|| unsafe { m.insert_growing(grow, row.cast()) }.map(|k| unsafe { key.write(k) }))
}

/// `slotmap_get_many`.
unsafe fn get_many(
    sm: *const slotmap_s,
    keys: *const slotmap_key,
    count: usize,
    elements: *mut *mut c_void,
) -> c_int {
    let m = match unsafe { read(sm) } {
        Ok(m) => m,
        Err(e) => return e as c_int,
    };
    if count > 0 && (keys.is_null() || elements.is_null()) {
        return INVALID;
    }
    // SAFETY (both): `keys` has `count` keys and `elements` room for
    // `count` pointers; `i < count`.
    let key = |i| unsafe { *keys.add(i) };
    m.get_many(count, key, |i, p| unsafe {
        elements.add(i).write(p.cast())
    });
    SLATE_OK
}

/// Initializes `sm` as an empty slotmap of one column of `element_size`-byte elements. Allocates
/// nothing. Takes the allocator in force (see `slate_use_allocator`; the `SLATE_MALLOC` hooks serve
/// slotmaps too).
/// Returns `SLATE_OK`, or `SLATE_ERROR_INVALID` for a NULL `sm` or a zero size.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap(sm: *mut slotmap_s, element_size: u32) -> c_int { call!(init(sm, &[element_size])) }

/// Initializes `sm` with `count` columns (structure of arrays): column `c` holds `sizes[c]`-byte
/// elements, each column 16-byte aligned, row `r` of every column belonging to the same record. A
/// packed row (for `slotmap_insert`) is the columns' fields back to back, no padding. Allocates
/// nothing.
/// Returns `SLATE_OK`; `SLATE_ERROR_INVALID` for a NULL `sm` or `sizes`, `count == 0` or a zero
/// size; `SLATE_ERROR_FULL` for more than 16 columns or rows of 4 GiB.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_columns(sm: *mut slotmap_s, sizes: *const u32, count: u32) -> c_int { call!(columns(sm, sizes, count)) }

/// Makes room for `n` rows in all, so that inserts up to `n` rows allocate nothing. Growing moves
/// the columns: pointers from `slotmap_get` and `slotmap_column` taken before a `slotmap_reserve`
/// are not valid after it.
/// Returns `SLATE_OK`; `SLATE_ERROR_FULL` beyond the limit (`slotmap_limit`); `SLATE_ERROR_ALLOC`
/// (nothing changed); `SLATE_ERROR_INVALID` for a NULL `sm`.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_reserve(sm: *mut slotmap_s, n: u32) -> c_int { call!(reserve(sm, n)) }

/// Gives the slotmap its own allocator, as `slate_set_allocator` does for a map: for every byte the
/// slotmap allocates from then on (its columns and its index). `slotmap_free` keeps the allocator,
/// `slotmap()` and `slotmap_columns()` drop it; a clone uses it too. Besides the calls that grow
/// the slotmap (insert, reserve, clone), `slotmap_erase_if` and `slotmap_sort` allocate temporary
/// memory and release it before they return. Allowed while the slotmap holds no memory: after
/// `slotmap()` or `slotmap_columns()`, or after `slotmap_free` (not after `slotmap_clear` or
/// erasing every row, which keep the capacity).
/// Returns `SLATE_OK`, or `SLATE_ERROR_INVALID` for a NULL `sm`, a NULL `allocate` or `release`, a
/// slotmap that holds memory (nothing changed; a slotmap being walked holds memory).
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_set_allocator(sm: *mut slotmap_s, allocator: *const slate_allocator_s) -> c_int { call!(super::set_allocator(sm, allocator)) }

/// Gives the slotmap a fixed capacity: an insert beyond `max_rows` rows fails with
/// `SLATE_ERROR_FULL` and changes nothing. Allocates nothing. `UINT32_MAX` means no limit.
/// Returns `SLATE_OK`, or `SLATE_ERROR_INVALID` for a NULL `sm`, a limit below the current length.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_limit(sm: *mut slotmap_s, max_rows: u32) -> c_int { call!(guard(|| write(sm)?.set_limit(max_rows))) }

/// Copies one row in (NULL inserts a zeroed row) and stores its new key in `*key`. The row is
/// `row_size` bytes: a one-column slotmap's element, which may be any struct (`slotmap(&sm,
/// sizeof(struct particle))` takes `&p`, padding and all); or, with several columns, the columns'
/// fields packed back to back with no padding, which a padded C struct is NOT:
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
/// or insert NULL and write each field through `slotmap_column` at `slotmap_row`.
/// Returns `SLATE_OK`; `SLATE_ERROR_FULL` at the limit; `SLATE_ERROR_ALLOC` (nothing changed);
/// `SLATE_ERROR_INVALID` for a NULL `sm` or `key`.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_insert(sm: *mut slotmap_s, row: *const c_void, key: *mut slotmap_key) -> c_int { call!(insert(sm, row, key)) }

/// Finds `key`. On `SLATE_OK` stores a pointer to its column-0 element in `*element` unless
/// `element` is NULL (a presence test). The pointer is valid until the next call that inserts,
/// erases, sorts, reserves, clears or frees (`slotmap_reserve` may move the columns); calls that
/// fail or are refused change nothing and keep it valid. On `SLATE_ERROR_NOT_FOUND` (a stale,
/// forged or foreign key, or 0) leaves `*element` as it was. Allocates nothing.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_get(sm: *const slotmap_s, key: slotmap_key, element: *mut *mut c_void) -> c_int { call!(get(sm, key, element)) }

/// Looks up `count` keys at once: for each `i < count`, `elements[i]` becomes the key's column-0
/// element, as `slotmap_get` gives it, or NULL for a stale, forged or foreign key (or key 0). The
/// results equal those of `count` calls of `slotmap_get`; the call is faster because it overlaps
/// the keys' cache misses, and it starts loading each element for the caller. The pointers stay
/// valid as `slotmap_get`'s do. Allocates nothing; allowed inside `slotmap_each` callbacks.
/// Returns `SLATE_OK` (also for `count == 0`), or `SLATE_ERROR_INVALID` with nothing written for a
/// NULL slotmap, or a NULL `keys` or `elements` when `count > 0`.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_get_many(sm: *const slotmap_s, keys: *const slotmap_key, count: usize, elements: *mut *mut c_void) -> c_int { call!(get_many(sm, keys, count, elements)) }

/// Stores `key`'s dense row index in `*row` (valid until the next insert, erase, sort, clear or
/// free).
/// Returns `SLATE_OK`, `SLATE_ERROR_NOT_FOUND`, or `SLATE_ERROR_INVALID` for a NULL `sm` or `row`.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_row(sm: *const slotmap_s, key: slotmap_key, row: *mut u32) -> c_int { call!(row_of(sm, key, row)) }

/// The base of dense column `column`: rows `0 .. slotmap_length-1`, each `sizes[column]` bytes,
/// 16-byte aligned. Valid until the next insert, erase, sort, reserve, clear or free. NULL for a
/// NULL `sm`, a column out of range, or while the slotmap has never held a row (nothing is
/// allocated).
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_column(sm: *const slotmap_s, column: u32) -> *mut c_void { call!(read(sm).ok().filter(|m| column < m.column_count()).map_or(ptr::null_mut(), |m| m.column(column as usize).cast())) }

/// The key that owns dense row `row`; 0 for a row at or past the length or a NULL `sm`.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_key_at(sm: *const slotmap_s, row: u32) -> slotmap_key { call!(key_at(sm, row)) }

/// 1 when `key` is valid in `sm`, else 0 (also for NULL).
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_contains(sm: *const slotmap_s, key: slotmap_key) -> c_int { call!(contains(sm, key)) }

/// Erases `key`'s row: the last row moves into its place (swap-and-pop), so rows stay packed and
/// every other key stays valid. `key` becomes stale for good.
/// Returns `SLATE_OK`; `SLATE_ERROR_NOT_FOUND` for a stale, forged or foreign key;
/// `SLATE_ERROR_INVALID` for a NULL `sm`.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_erase(sm: *mut slotmap_s, key: slotmap_key) -> c_int { call!(code(write(sm).and_then(|m| m.erase(key)))) }

/// Erases every row for which `predicate(key, row, data)` returns non-zero, as the walk goes, in
/// one pass over the rows in dense order: an erased row is refilled by the last one (swap-and-pop),
/// which is asked next, so survivors may change order. The predicate may call anything, as
/// `slotmap_each`'s callback: after a change to this slotmap other than erasing its own key, the
/// walk stops with `SLATE_ERROR_INVALID`, and an answer that came with a change is not applied.
/// Rows erased before the walk stopped, or before a predicate left it with `longjmp`, stay erased.
/// Returns `SLATE_OK` (not a count), or `SLATE_ERROR_INVALID` for a NULL `sm` or predicate, or as
/// above. Allocates nothing.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_erase_if(sm: *mut slotmap_s, predicate: slotmap_each_f, data: *mut c_void) -> c_int { call!(erase_if(sm, predicate, data)) }

/// Reorders the rows by column 0 so that rows for which `less(a, b, data)` is non-zero come first
/// (`a`, `b`: column-0 elements); every key stays valid. Not stable. Needs a `uint32_t` per row of
/// temporary memory, which the slotmap keeps until the sort ends.
///
/// A sort is a change: it makes walks of this slotmap in progress stop. The comparator may call
/// anything, on this slotmap too; if it changes the slotmap, the sort stops at once, applies no
/// order and returns `SLATE_ERROR_INVALID`. A comparator that leaves the sort with `longjmp` leaves
/// the rows as they were; the sort's memory stays with the slotmap until its next sort or
/// `slotmap_free`.
/// Returns `SLATE_OK`; `SLATE_ERROR_ALLOC` (nothing changed); `SLATE_ERROR_INVALID` for a NULL `sm`
/// or `less`, or as above.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_sort(sm: *mut slotmap_s, less: Option<unsafe extern "C" fn(a: *const c_void, b: *const c_void, data: *mut c_void) -> c_int>, data: *mut c_void) -> c_int { call!(sort(sm, less, data)) }

/// Calls `callback(key, row, data)` for every row in dense order (`row` is the column-0 element). A
/// non-zero return stops the walk and becomes the result. The callback may call anything, on this
/// slotmap too, by the walk rules at the top of this header: rows written through their pointers
/// are no change, and after the erase of the key it was given the walk stays on that row, which
/// swap-and-pop refilled; any other change (an insert, another erase, sort, reserve, clear, free)
/// stops the walk with `SLATE_ERROR_INVALID`.
/// Returns `SLATE_OK`, the callback's non-zero value, or `SLATE_ERROR_INVALID` for a NULL `sm` or
/// callback, or as above. Allocates nothing.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_each(sm: *const slotmap_s, callback: slotmap_each_f, data: *mut c_void) -> c_int { call!(each(sm, callback, data)) }

/// The number of rows; 0 for NULL.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_length(sm: *const slotmap_s) -> u32 { call!(length(sm)) }

/// Removes every row; every old key becomes stale. Keeps the capacity.
/// Returns `SLATE_OK`, or `SLATE_ERROR_INVALID` for a NULL `sm`.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_clear(sm: *mut slotmap_s) -> c_int { call!(super::clear(sm)) }

/// Initializes `copy` as an independent copy of `sm`: same columns, rows, keys and limit. `copy`
/// must be uninitialized or freed (its contents are not read) and not `sm`; it takes the allocator
/// in force.
/// Returns `SLATE_OK`; `SLATE_ERROR_ALLOC` (then `copy` is an empty slotmap of the same columns);
/// `SLATE_ERROR_INVALID` for a NULL argument or `copy == sm`.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_clone(copy: *mut slotmap_s, sm: *const slotmap_s) -> c_int { call!(super::clone(copy, sm)) }

/// Releases everything. The slotmap stays usable (same columns, length 0), every old key stays
/// stale, freeing twice is harmless. Does nothing for NULL.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slotmap_free(sm: *mut slotmap_s) { call!(super::free(sm)) }
