//! The map's C API: `slate_*`.

use core::ffi::{c_char, c_int, c_void, CStr};
use core::mem::{align_of, size_of};
use core::ptr;

use crate::alloc::Allocator;
use crate::hash::SHORT;
use crate::key::{int_of_bytes, IntKey, Key, Needle, Short, INT_LEN, TAG_I64, TAG_U64};
use crate::map::{GetOrInsert, Iter, Map, Placed, Set, Upsert};
use crate::Error;

use super::{
    code, fresh, guard, own_allocator, read, slate_allocator_s, walk_code, write, Guarded, Shell,
};

/// A map. A complete type: put it on the stack, in a struct or in an array,
/// initialize it with `slate()`, release it with `slate_free()`. It holds no
/// pointer into itself, so it may be moved with `memcpy` while no call on
/// it is in progress. Its fields are private.
#[repr(C)]
pub struct slate_s {
    pub _private: [u64; 8],
}

const _: () = assert!(size_of::<Map>() <= size_of::<slate_s>());
const _: () = assert!(align_of::<Map>() <= align_of::<slate_s>());

// SAFETY: the two assertions above.
unsafe impl Shell for slate_s {
    type Body = Map;
}

/// Called by `slate_each` and `slate_delete_if` once per entry. `key` is the
/// map's own copy of the key's bytes (not NUL-terminated; an integer key is
/// its 10-byte encoding), valid during this call only. `data` is the
/// caller's pointer, passed through. Return 0 to go on.
pub type slate_each_f = Option<
    unsafe extern "C" fn(
        key: *const c_char,
        key_length: u32,
        value: *mut c_void,
        data: *mut c_void,
    ) -> c_int,
>;

/// An allocation function with `malloc`'s contract (memory aligned for any
/// object of 8 bytes or more; NULL when out of memory).
pub type slate_malloc_f = Option<unsafe extern "C" fn(size: usize) -> *mut c_void>;
/// An allocation function with `calloc`'s contract.
pub type slate_calloc_f = Option<unsafe extern "C" fn(count: usize, size: usize) -> *mut c_void>;
/// A release function with `free`'s contract (NULL is never passed).
pub type slate_free_f = Option<unsafe extern "C" fn(pointer: *mut c_void)>;

/// What `slate_info` reports about a map's shape.
#[repr(C)]
#[derive(Default)]
pub struct slate_info_s {
    /// Entries.
    pub length: u64,
    /// The map's hash seed.
    pub seed: u64,
    /// Slots in all tables (a small map: 8; nothing allocated: 0).
    pub capacity: u64,
    /// Deleted slots not yet reclaimed.
    pub tombstones: u64,
    /// Bytes currently held from the allocator (tables, directory, copies
    /// of keys longer than 28 bytes).
    pub memory: u64,
    /// Hash bits that index the directory.
    pub global_depth: u32,
    /// Distinct tables (a small map's single group counts as 1).
    pub tables: u32,
    /// Directory entries (`1 << global_depth`), 0 without a directory.
    pub directory: u32,
    /// 1 when the map is one bare group of 8 slots.
    pub small: u32,
}

/// What `slate_table_info` reports about one table.
#[repr(C)]
#[derive(Default)]
pub struct slate_table_info_s {
    /// First directory entry that points at the table (0 for a small map).
    pub directory_first: u32,
    /// Directory entries that point at it: `1 << (global_depth -
    /// local_depth)` (0 for a small map, which has no directory).
    pub directory_count: u32,
    /// Hash bits all its keys share.
    pub local_depth: u32,
    /// Slots.
    pub capacity: u32,
    /// Entries.
    pub used: u32,
    /// Deleted slots.
    pub tombstones: u32,
    /// Empty slots inserts may still take before the table is rebuilt.
    pub growth_left: u32,
    /// Groups of 8 slots (`capacity / 8`).
    pub groups: u32,
    /// Its slot layout: 0 for any key (40-byte slots), or `0x01` / `0x02`
    /// when it holds only `i64` / only `u64` keys, kept as 8-byte values
    /// in 16-byte slots (a table takes the kind of the first key it holds
    /// and turns general when a key of another kind arrives).
    pub int_keys: u32,
}

/// A NUL-terminated string's bytes (of any length).
///
/// # Safety
/// `key` is NULL or a NUL-terminated string.
#[inline]
unsafe fn string_bytes<'a>(key: *const c_char) -> Result<&'a [u8], Error> {
    if key.is_null() {
        return Err(Error::Invalid);
    }
    // SAFETY: the caller's guarantee.
    Ok(unsafe { CStr::from_ptr(key) }.to_bytes())
}

/// A NUL-terminated string key.
///
/// # Safety
/// `key` is NULL or a NUL-terminated string.
#[inline]
unsafe fn string_key<'a>(key: *const c_char) -> Result<Needle<'a>, Error> {
    // SAFETY: the caller's guarantee.
    let bytes = unsafe { string_bytes(key)? };
    if u32::try_from(bytes.len()).is_err() {
        return Err(Error::Full);
    }
    Ok(Needle::bytes(bytes))
}

/// A byte key.
///
/// # Safety
/// `key` is NULL with `len == 0`, or points to `len` readable bytes.
#[inline]
unsafe fn bytes_key<'a>(key: *const c_void, len: u32) -> Result<Needle<'a>, Error> {
    if key.is_null() {
        return if len == 0 {
            Ok(Needle::bytes(&[]))
        } else {
            Err(Error::Invalid)
        };
    }
    // SAFETY: the caller's guarantee.
    Ok(Needle::bytes(unsafe {
        core::slice::from_raw_parts(key.cast::<u8>(), len as usize)
    }))
}

/// A lookup: `SLATE_OK` after storing the value in `*value` unless
/// `value` is NULL, `SLATE_ERROR_NOT_FOUND`, or the map's error.
///
/// # Safety
/// As for `read`; `value` is NULL or writable.
#[inline(always)]
unsafe fn lookup(map: *const slate_s, key: impl Key, value: *mut *mut c_void) -> c_int {
    // SAFETY: the caller's guarantees.
    let m = match unsafe { read(map) } {
        Ok(m) => m,
        Err(e) => return e as c_int,
    };
    m.look(&key, move |found| match found {
        Some(found) => {
            if !value.is_null() {
                // SAFETY: a non-NULL `value` is writable.
                unsafe { *value = found };
            }
            code(Ok(()))
        }
        None => Error::NotFound as c_int,
    })
}

// The shims below take the map, then the key; a byte key's error (NULL,
// 4 GiB or more) is reported before the map's. None of them needs a guard
// of its own: a lookup runs no user code, allocates nothing and has no
// panicking operation, and the parts of inserts and deletes that might
// panic run under `Guarded` inside the `Map` methods (see
// `crate::map::keys`). `make symbols` checks that the compiled functions
// keep no unwinding path.

/// # Safety
/// As for `lookup`.
#[inline(always)]
unsafe fn get(map: *const slate_s, key: impl Key, value: *mut *mut c_void) -> c_int {
    // SAFETY: the caller's guarantees.
    unsafe { lookup(map, key, value) }
}

/// `get` for a byte key.
///
/// # Safety
/// As for `get`.
#[inline(always)]
unsafe fn get_bytes(
    map: *const slate_s,
    key: Result<Needle<'_>, Error>,
    value: *mut *mut c_void,
) -> c_int {
    let n = match key {
        Ok(n) => n,
        Err(e) => return e as c_int,
    };
    let store = move |found| {
        if !value.is_null() {
            // SAFETY: the caller's guarantee: a non-NULL `value` is
            // writable.
            unsafe { *value = found };
        }
    };
    // SAFETY: the caller's guarantees.
    match unsafe { read(map) } {
        Ok(m) => code(m.get_bytes_guarded::<Guarded>(n, store)),
        Err(e) => e as c_int,
    }
}

/// Byte keys longer than this leave the `_bytes` shims first thing, for
/// an out-of-line path of their own (see `get_longer`).
const LONGER: usize = 32;

/// `slate_get_bytes` (and `slate_get`) for a key longer than [`LONGER`]
/// bytes, called by the shim before it saves any register (`slate_get`:
/// once it has the length): the key's pointer and length arrive in
/// registers and the call is the shim's last, so short keys keep their own
/// small shim and long keys pay for one function's entry and exit. A key of
/// up to [`SHORT`] bytes is looked up as `Short<SHORT, 33>`, whose bounds
/// drop every short-key branch from the hash and the compare; a longer one
/// takes `get_bytes` (hashed under the guard). Kept out of line, so that
/// `slate_get_bytes` stays small enough to inline under cross-language
/// LTO (`make lto-test`).
///
/// # Safety
/// As for `slate_get_bytes`.
#[inline(never)]
unsafe fn get_longer(
    map: *const slate_s,
    key: *const c_void,
    len: u32,
    value: *mut *mut c_void,
) -> c_int {
    // SAFETY: the caller's guarantees.
    let n = match unsafe { bytes_key(key, len) } {
        Ok(n) => n,
        Err(e) => return e as c_int,
    };
    match Short::<SHORT, { LONGER + 1 }>::new(n) {
        // SAFETY: the caller's guarantees.
        Some(longer) => unsafe { lookup(map, longer, value) },
        // SAFETY: the caller's guarantees.
        None => unsafe { get_bytes(map, Ok(n), value) },
    }
}

/// `slate_take_bytes` (and `slate_delete_bytes`, with a NULL `value`) for
/// a key longer than [`LONGER`] bytes, as `get_longer` is for lookups.
///
/// # Safety
/// As for `slate_take_bytes`.
unsafe fn take_longer(
    map: *mut slate_s,
    key: *const c_void,
    len: u32,
    value: *mut *mut c_void,
) -> c_int {
    // SAFETY: the caller's guarantees.
    match unsafe { bytes_key(key, len) }.map(Short::<SHORT, { LONGER + 1 }>::new) {
        // SAFETY: the caller's guarantees.
        Ok(Some(longer)) => unsafe { take(map, longer, value) },
        // SAFETY: the caller's guarantees.
        _ => unsafe { take_bytes(map, bytes_key(key, len), value) },
    }
}

/// The map to modify and the key, or the error to return.
///
/// # Safety
/// As for `write`.
unsafe fn target<'m, K>(
    map: *mut slate_s,
    key: Result<K, Error>,
) -> Result<(&'m mut Map, K), Error> {
    let key = key?;
    // SAFETY: the caller's guarantee.
    Ok((unsafe { write(map)? }, key))
}

/// A set or a get-or-insert, as `U` says, handing what it hands back to
/// `placed` when it succeeded.
///
/// # Safety
/// As for `write`.
#[inline(always)]
unsafe fn set<U: Upsert>(
    map: *mut slate_s,
    key: impl Key,
    value: *mut c_void,
    placed: impl FnOnce(U::Out),
) -> c_int {
    // SAFETY: the caller's guarantee.
    match unsafe { target(map, Ok(key)) } {
        Ok((m, key)) => m.upsert_then::<Guarded, U, _, _>(&key, value, |r| code(r.map(placed))),
        Err(e) => e as c_int,
    }
}

/// `set` for a byte key.
///
/// # Safety
/// As for `set`.
#[inline(always)]
unsafe fn set_bytes<U: Upsert>(
    map: *mut slate_s,
    key: Result<Needle<'_>, Error>,
    value: *mut c_void,
    placed: impl FnOnce(U::Out),
) -> c_int {
    // SAFETY: the caller's guarantee.
    match unsafe { target(map, key) } {
        Ok((m, n)) => code(m.upsert_bytes_guarded::<Guarded, U>(n, value).map(placed)),
        Err(e) => e as c_int,
    }
}

/// A plain set's `placed`: nothing to hand back.
fn nowhere(_: ()) {}

/// A get-or-insert's `placed`: the value's address into `*value`, and
/// whether the key was new into `*inserted` unless it is NULL.
///
/// # Safety
/// `value` is writable; `inserted` is NULL or writable.
unsafe fn give_place(value: *mut *mut *mut c_void, inserted: *mut c_int) -> impl FnOnce(Placed) {
    move |p: Placed| {
        // SAFETY: the caller's guarantees.
        unsafe {
            *value = p.value;
            if !inserted.is_null() {
                *inserted = p.inserted as c_int;
            }
        }
    }
}

/// Stores a taken value in `*value` unless `value` is NULL.
///
/// # Safety
/// `value` is NULL or writable.
unsafe fn give(value: *mut *mut c_void, taken: Result<*mut c_void, Error>) -> c_int {
    code(taken.map(|v| {
        if !value.is_null() {
            // SAFETY: the caller's guarantee.
            unsafe { *value = v };
        }
    }))
}

/// Removes `key`, storing its value in `*value` unless `value` is NULL
/// (the deletes pass NULL).
///
/// # Safety
/// As for `write`; `value`
/// is NULL or writable.
#[inline(always)]
unsafe fn take(map: *mut slate_s, key: impl Key, value: *mut *mut c_void) -> c_int {
    // SAFETY: the caller's guarantees.
    match unsafe { target(map, Ok(key)) } {
        // SAFETY: the caller's guarantee.
        Ok((m, key)) => m.take_then::<Guarded, _, _>(&key, move |r| unsafe { give(value, r) }),
        Err(e) => e as c_int,
    }
}

/// `take` for a byte key.
///
/// # Safety
/// As for `take`.
#[inline(always)]
unsafe fn take_bytes(
    map: *mut slate_s,
    key: Result<Needle<'_>, Error>,
    value: *mut *mut c_void,
) -> c_int {
    // SAFETY: the caller's guarantees.
    match unsafe { target(map, key) } {
        Ok((m, n)) => unsafe { give(value, m.take_bytes_guarded::<Guarded>(n)) },
        Err(e) => e as c_int,
    }
}

/// Initializes `map` as an empty map. Allocates nothing (the first insert
/// does). The map takes the allocator in force now (see
/// `slate_use_allocator`). Calling it on a map that holds entries forgets
/// them without freeing: call `slate_free` first.
///
/// Returns `SLATE_OK`, or `SLATE_ERROR_INVALID` if `map` is NULL.
///
/// # Safety
/// `map` is NULL or points to writable memory for a `slate_s`.
#[no_mangle]
pub unsafe extern "C" fn slate(map: *mut slate_s) -> c_int {
    guard(|| {
        let body = fresh(map)?;
        // SAFETY: `map` is writable (its old contents are not read).
        unsafe { body.write(Map::new(Allocator::current())) };
        Ok(())
    })
}

/// Sizes the map so that `n` entries fit without growing. A hint: it never
/// removes entries and does nothing when the map is already that large.
/// May rebuild the whole map (every entry moves once).
///
/// Returns `SLATE_OK`; `SLATE_ERROR_FULL` for a size no map can reach (such
/// as `UINT64_MAX`); `SLATE_ERROR_ALLOC`; `SLATE_ERROR_INVALID` for a NULL
/// map. On error nothing changed.
///
/// # Safety
/// `map` is NULL or an initialized map.
#[no_mangle]
pub unsafe extern "C" fn slate_reserve(map: *mut slate_s, n: u64) -> c_int {
    // SAFETY: the caller's guarantee.
    guard(|| unsafe { write(map)? }.reserve(n))
}

/// Inserts `key` (a NUL-terminated string; the key is its bytes without the
/// NUL) with `value`, or replaces the value of an existing key. The map
/// copies the key; `value` is stored as given, never dereferenced or freed.
///
/// Returns `SLATE_OK`; `SLATE_ERROR_ALLOC` (nothing changed);
/// `SLATE_ERROR_INVALID` for a NULL map or key; `SLATE_ERROR_FULL` for a key of 4 GiB or more.
///
/// # Safety
/// `map` is NULL or an initialized map; `key` is NULL or a string.
#[no_mangle]
pub unsafe extern "C" fn slate_set(
    map: *mut slate_s,
    key: *const c_char,
    value: *mut c_void,
) -> c_int {
    // SAFETY: the caller's guarantees.
    unsafe { set_bytes::<Set>(map, string_key(key), value, nowhere) }
}

/// Looks `key` up. On `SLATE_OK` stores its value in `*value` unless
/// `value` is NULL (a presence test). On `SLATE_ERROR_NOT_FOUND` leaves
/// `*value` as it was. Allocates nothing.
///
/// Returns `SLATE_OK`, `SLATE_ERROR_NOT_FOUND`, or `SLATE_ERROR_INVALID`
/// for a NULL map or key.
///
/// # Safety
/// `map` is NULL or an initialized map; `key` is NULL or a string; `value`
/// is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slate_get(
    map: *const slate_s,
    key: *const c_char,
    value: *mut *mut c_void,
) -> c_int {
    // SAFETY: the caller's guarantees.
    let bytes = match unsafe { string_bytes(key) } {
        Ok(bytes) => bytes,
        Err(e) => return e as c_int,
    };
    if bytes.len() > LONGER {
        // A string of 4 GiB or more is found on this path only, so the
        // short keys' path has no test for it.
        let Ok(len) = u32::try_from(bytes.len()) else {
            return Error::Full as c_int;
        };
        // SAFETY: the caller's guarantees; `bytes` is the key's.
        return unsafe { get_longer(map, bytes.as_ptr().cast(), len, value) };
    }
    // SAFETY: the caller's guarantees.
    unsafe { get_bytes(map, Ok(Needle::bytes(bytes)), value) }
}

/// Removes `key` and frees the map's copy of it. Memory of the table is
/// kept (see `slate_compact`). A map left empty takes a fresh seed.
///
/// Returns `SLATE_OK`, `SLATE_ERROR_NOT_FOUND`, or `SLATE_ERROR_INVALID`
/// for a NULL map or key.
///
/// # Safety
/// `map` is NULL or an initialized map; `key` is NULL or a string.
#[no_mangle]
pub unsafe extern "C" fn slate_delete(map: *mut slate_s, key: *const c_char) -> c_int {
    // SAFETY: the caller's guarantees.
    unsafe { take_bytes(map, string_key(key), ptr::null_mut()) }
}

/// `slate_set` for a key of `key_length` arbitrary bytes (embedded NULs
/// allowed). `key` may be NULL only when `key_length` is 0: the empty key.
///
/// # Safety
/// `map` is NULL or an initialized map; `key` points to `key_length`
/// readable bytes or is NULL.
#[no_mangle]
pub unsafe extern "C" fn slate_set_bytes(
    map: *mut slate_s,
    key: *const c_void,
    key_length: u32,
    value: *mut c_void,
) -> c_int {
    // SAFETY: the caller's guarantees.
    unsafe { set_bytes::<Set>(map, bytes_key(key, key_length), value, nowhere) }
}

/// `slate_get` for a byte key (see `slate_set_bytes`).
///
/// # Safety
/// As for `slate_set_bytes`; `value` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slate_get_bytes(
    map: *const slate_s,
    key: *const c_void,
    key_length: u32,
    value: *mut *mut c_void,
) -> c_int {
    if key_length > LONGER as u32 {
        // SAFETY: the caller's guarantees.
        return unsafe { get_longer(map, key, key_length, value) };
    }
    // SAFETY: the caller's guarantees.
    unsafe { get_bytes(map, bytes_key(key, key_length), value) }
}

/// `slate_delete` for a byte key (see `slate_set_bytes`).
///
/// # Safety
/// As for `slate_set_bytes`.
#[no_mangle]
pub unsafe extern "C" fn slate_delete_bytes(
    map: *mut slate_s,
    key: *const c_void,
    key_length: u32,
) -> c_int {
    if key_length > LONGER as u32 {
        // SAFETY: the caller's guarantees.
        return unsafe { take_longer(map, key, key_length, ptr::null_mut()) };
    }
    // SAFETY: the caller's guarantees.
    unsafe { take_bytes(map, bytes_key(key, key_length), ptr::null_mut()) }
}

/// `slate_set` for an `int64_t` key. The key is stored as 10 bytes:
/// `0x00 0x01` then the value little-endian (two's complement), so it meets
/// no string or `uint64_t` key. Never allocates for the key.
///
/// # Safety
/// `map` is NULL or an initialized map.
#[no_mangle]
pub unsafe extern "C" fn slate_set_i64(map: *mut slate_s, key: i64, value: *mut c_void) -> c_int {
    // SAFETY: the caller's guarantees.
    unsafe { set::<Set>(map, IntKey::new(TAG_I64, key as u64), value, nowhere) }
}

/// `slate_get` for an `int64_t` key.
///
/// # Safety
/// `map` is NULL or an initialized map; `value` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slate_get_i64(
    map: *const slate_s,
    key: i64,
    value: *mut *mut c_void,
) -> c_int {
    // SAFETY: the caller's guarantees.
    unsafe { get(map, IntKey::new(TAG_I64, key as u64), value) }
}

/// `slate_delete` for an `int64_t` key.
///
/// # Safety
/// `map` is NULL or an initialized map.
#[no_mangle]
pub unsafe extern "C" fn slate_delete_i64(map: *mut slate_s, key: i64) -> c_int {
    // SAFETY: the caller's guarantees.
    unsafe { take(map, IntKey::new(TAG_I64, key as u64), ptr::null_mut()) }
}

/// `slate_set` for a `uint64_t` key, stored as `0x00 0x02` then the value
/// little-endian.
///
/// # Safety
/// `map` is NULL or an initialized map.
#[no_mangle]
pub unsafe extern "C" fn slate_set_u64(map: *mut slate_s, key: u64, value: *mut c_void) -> c_int {
    // SAFETY: the caller's guarantees.
    unsafe { set::<Set>(map, IntKey::new(TAG_U64, key), value, nowhere) }
}

/// `slate_get` for a `uint64_t` key.
///
/// # Safety
/// `map` is NULL or an initialized map; `value` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slate_get_u64(
    map: *const slate_s,
    key: u64,
    value: *mut *mut c_void,
) -> c_int {
    // SAFETY: the caller's guarantees.
    unsafe { get(map, IntKey::new(TAG_U64, key), value) }
}

/// `slate_delete` for a `uint64_t` key.
///
/// # Safety
/// `map` is NULL or an initialized map.
#[no_mangle]
pub unsafe extern "C" fn slate_delete_u64(map: *mut slate_s, key: u64) -> c_int {
    // SAFETY: the caller's guarantees.
    unsafe { take(map, IntKey::new(TAG_U64, key), ptr::null_mut()) }
}

/// Gets or inserts `key` (a string, as for `slate_set`) with one hash and
/// one probe: on `SLATE_OK` stores in `*value` the address of the map's
/// value for the key (read it, write it), and in `*inserted` (unless
/// `inserted` is NULL) 1 if the key was new, stored with the value NULL,
/// or 0 if it was present, its value untouched. So
/// `if (slate_entry(m, w, &v, NULL) == SLATE_OK) *v = (void*)((uintptr_t)*v + 1);`
/// counts a word with one lookup.
///
/// `*value` stays valid until the next call that adds or removes a key or
/// changes the map's memory (a set or entry of a new key, delete, take,
/// `slate_iter_delete`, clear, compact, reserve, delete_if, free); reads,
/// and a set of a present key, leave it valid.
///
/// Returns `SLATE_OK`; `SLATE_ERROR_ALLOC` or `SLATE_ERROR_FULL` (a key of
/// 4 GiB or more) with nothing inserted and the out-pointers untouched;
/// `SLATE_ERROR_INVALID` for a NULL map, key or `value`.
///
/// # Safety
/// `map` is NULL or an initialized map; `key` is NULL or a string; `value`
/// is NULL or writable; `inserted` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slate_entry(
    map: *mut slate_s,
    key: *const c_char,
    value: *mut *mut *mut c_void,
    inserted: *mut c_int,
) -> c_int {
    if value.is_null() {
        return Error::Invalid as c_int;
    }
    // SAFETY: the caller's guarantees.
    unsafe {
        set_bytes::<GetOrInsert>(
            map,
            string_key(key),
            ptr::null_mut(),
            give_place(value, inserted),
        )
    }
}

/// `slate_entry` for a byte key (see `slate_set_bytes`).
///
/// # Safety
/// As for `slate_set_bytes`; `value` is NULL or writable; `inserted` is
/// NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slate_entry_bytes(
    map: *mut slate_s,
    key: *const c_void,
    key_length: u32,
    value: *mut *mut *mut c_void,
    inserted: *mut c_int,
) -> c_int {
    if value.is_null() {
        return Error::Invalid as c_int;
    }
    // SAFETY: the caller's guarantees.
    unsafe {
        set_bytes::<GetOrInsert>(
            map,
            bytes_key(key, key_length),
            ptr::null_mut(),
            give_place(value, inserted),
        )
    }
}

/// `slate_entry` for an `int64_t` key.
///
/// # Safety
/// `map` is NULL or an initialized map; `value` is NULL or writable;
/// `inserted` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slate_entry_i64(
    map: *mut slate_s,
    key: i64,
    value: *mut *mut *mut c_void,
    inserted: *mut c_int,
) -> c_int {
    if value.is_null() {
        return Error::Invalid as c_int;
    }
    // SAFETY: the caller's guarantees.
    unsafe {
        set::<GetOrInsert>(
            map,
            IntKey::new(TAG_I64, key as u64),
            ptr::null_mut(),
            give_place(value, inserted),
        )
    }
}

/// `slate_entry` for a `uint64_t` key.
///
/// # Safety
/// `map` is NULL or an initialized map; `value` is NULL or writable;
/// `inserted` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slate_entry_u64(
    map: *mut slate_s,
    key: u64,
    value: *mut *mut *mut c_void,
    inserted: *mut c_int,
) -> c_int {
    if value.is_null() {
        return Error::Invalid as c_int;
    }
    // SAFETY: the caller's guarantees.
    unsafe {
        set::<GetOrInsert>(
            map,
            IntKey::new(TAG_U64, key),
            ptr::null_mut(),
            give_place(value, inserted),
        )
    }
}

/// Removes `key` (a string, as for `slate_delete`) and hands back its
/// value: on `SLATE_OK` stores the removed entry's value in `*value`
/// unless `value` is NULL, so the caller can free what it pointed to. One
/// lookup. On `SLATE_ERROR_NOT_FOUND` leaves `*value` as it was. A map
/// left empty takes a fresh seed (unless pinned).
///
/// Returns `SLATE_OK`, `SLATE_ERROR_NOT_FOUND`, or `SLATE_ERROR_INVALID`
/// for a NULL map or key (nothing
/// removed).
///
/// # Safety
/// `map` is NULL or an initialized map; `key` is NULL or a string; `value`
/// is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slate_take(
    map: *mut slate_s,
    key: *const c_char,
    value: *mut *mut c_void,
) -> c_int {
    // SAFETY: the caller's guarantees.
    unsafe { take_bytes(map, string_key(key), value) }
}

/// `slate_take` for a byte key (see `slate_set_bytes`).
///
/// # Safety
/// As for `slate_set_bytes`; `value` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slate_take_bytes(
    map: *mut slate_s,
    key: *const c_void,
    key_length: u32,
    value: *mut *mut c_void,
) -> c_int {
    if key_length > LONGER as u32 {
        // SAFETY: the caller's guarantees.
        return unsafe { take_longer(map, key, key_length, value) };
    }
    // SAFETY: the caller's guarantees.
    unsafe { take_bytes(map, bytes_key(key, key_length), value) }
}

/// `slate_take` for an `int64_t` key.
///
/// # Safety
/// `map` is NULL or an initialized map; `value` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slate_take_i64(
    map: *mut slate_s,
    key: i64,
    value: *mut *mut c_void,
) -> c_int {
    // SAFETY: the caller's guarantees.
    unsafe { take(map, IntKey::new(TAG_I64, key as u64), value) }
}

/// `slate_take` for a `uint64_t` key.
///
/// # Safety
/// `map` is NULL or an initialized map; `value` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slate_take_u64(
    map: *mut slate_s,
    key: u64,
    value: *mut *mut c_void,
) -> c_int {
    // SAFETY: the caller's guarantees.
    unsafe { take(map, IntKey::new(TAG_U64, key), value) }
}

/// `SLATE_INT_KEY_LENGTH` in the header.
const _: () = assert!(INT_LEN == 10);

/// Decodes key bytes (as a walk shows them) that encode an `int64_t`
/// key: on `SLATE_OK` stores the key in `*out`.
///
/// Returns `SLATE_OK`; `SLATE_ERROR_NOT_FOUND` when the bytes are not an
/// `int64_t` key's encoding (another kind of key), leaving `*out` as it
/// was; `SLATE_ERROR_INVALID` for a NULL `out`, or a NULL `key` with a
/// non-zero length.
///
/// # Safety
/// `key` points to `key_length` readable bytes or is NULL; `out` is NULL
/// or writable.
#[no_mangle]
pub unsafe extern "C" fn slate_key_to_i64(
    key: *const c_char,
    key_length: u32,
    out: *mut i64,
) -> c_int {
    // SAFETY: the caller's guarantees.
    unsafe { decode(key, key_length, TAG_I64, out.cast()) }
}

/// `slate_key_to_i64` for a `uint64_t` key's encoding.
///
/// # Safety
/// As for `slate_key_to_i64`.
#[no_mangle]
pub unsafe extern "C" fn slate_key_to_u64(
    key: *const c_char,
    key_length: u32,
    out: *mut u64,
) -> c_int {
    // SAFETY: the caller's guarantees.
    unsafe { decode(key, key_length, TAG_U64, out) }
}

/// The integer of kind `tag` that `key_length` bytes at `key` encode, into
/// `*out`.
///
/// # Safety
/// As for `slate_key_to_i64`.
unsafe fn decode(key: *const c_char, key_length: u32, tag: u8, out: *mut u64) -> c_int {
    guard(|| {
        if out.is_null() {
            return Err(Error::Invalid);
        }
        // SAFETY: the caller's guarantees.
        let bytes = unsafe { bytes_key(key.cast(), key_length) }?;
        let v = int_of_bytes(bytes.key(), tag).ok_or(Error::NotFound)?;
        // SAFETY: checked non-NULL; the caller's guarantee.
        unsafe { *out = v };
        Ok(())
    })
}

/// Gives the map its own allocator (arenas, pools, accounting), or with a
/// NULL `allocator` the process default back (`slate_use_allocator`, or
/// the C library's). `*allocator` is copied: the caller's struct may go
/// away, but its `context` must stay valid while the map holds memory.
/// Every byte the map allocates from then on (tables, directory, copies of
/// long keys) comes from `allocate` and goes back through `release` with
/// the same context and size. `slate_free` keeps the allocator, `slate()`
/// drops it; a clone of the map uses it too (a clone of a map without one
/// uses the process default in force). No map call allocates memory it
/// does not keep: `allocate` runs only where the map grows (set, entry,
/// reserve, compact, clone).
///
/// Allowed while the map holds no memory: after `slate()`, after
/// `slate_free`, or after a `slate_compact` that left it empty (not after
/// `slate_clear` or deleting every entry, which keep its tables).
///
/// Returns `SLATE_OK`, or `SLATE_ERROR_INVALID` for a NULL map, a NULL
/// `allocate` or `release`, a map that holds memory (nothing
/// changed; a map being walked holds memory).
///
/// # Safety
/// `map` is NULL or an initialized map; `allocator` is NULL or readable.
#[no_mangle]
pub unsafe extern "C" fn slate_set_allocator(
    map: *mut slate_s,
    allocator: *const slate_allocator_s,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's guarantee.
        let m = unsafe { write(map)? };
        // SAFETY: the caller's guarantee.
        m.set_allocator(unsafe { own_allocator(allocator)? })
    })
}

/// Pins the map's hash seed to `seed`, so that the same calls in the same
/// order give the same iteration order (for tests and golden files), for
/// this library version and byte order. Allowed while the map holds no
/// memory: after `slate()`, after `slate_free`, or after a `slate_compact`
/// that left it empty (not after `slate_clear` or deleting every entry,
/// which keep its tables). The pin survives the map emptying,
/// `slate_clear` and `slate_free`; a clone keeps it; `slate()` drops it.
///
/// A pinned seed that an attacker can learn or choose gives up this map's
/// protection against hash flooding (keys chosen to collide).
///
/// Returns `SLATE_OK`, or `SLATE_ERROR_INVALID` for a NULL map, a map that
/// holds memory (nothing changed; a map being walked holds memory).
///
/// # Safety
/// `map` is NULL or an initialized map.
#[no_mangle]
pub unsafe extern "C" fn slate_pin_seed(map: *mut slate_s, seed: u64) -> c_int {
    // SAFETY: the caller's guarantee.
    guard(|| unsafe { write(map)? }.pin_seed(seed))
}

/// The map of a batch lookup, once its arrays are checked: `count` keys
/// need `keys` and `found` (and `lengths`, for byte keys).
///
/// # Safety
/// As for `read`.
unsafe fn batch<'m>(map: *const slate_s, count: usize, arrays: &[bool]) -> Result<&'m Map, Error> {
    // SAFETY: the caller's guarantee.
    let m = unsafe { read(map)? };
    if count > 0 && arrays.iter().any(|&null| null) {
        return Err(Error::Invalid);
    }
    Ok(m)
}

/// What a batch lookup tells about key `i`, written out: `found[i]`, and
/// `values[i]` for a key found (unless `values` is NULL).
///
/// # Safety
/// `found` has room for every key's byte; `values` is NULL or has room for
/// every key's value.
unsafe fn answer(
    values: *mut *mut c_void,
    found: *mut u8,
) -> impl FnMut(usize, Option<*mut c_void>) {
    move |i, v| {
        // SAFETY (both): the caller's guarantee, `i < count`.
        unsafe { found.add(i).write(v.is_some() as u8) };
        if let (Some(v), false) = (v, values.is_null()) {
            // SAFETY: as above.
            unsafe { values.add(i).write(v) };
        }
    }
}

/// A batch lookup of integer keys, `int(keys[i])`.
///
/// # Safety
/// As for `slate_get_many_u64`.
unsafe fn get_many_ints<T: Copy>(
    map: *const slate_s,
    keys: *const T,
    count: usize,
    values: *mut *mut c_void,
    found: *mut u8,
    int: impl Fn(T) -> IntKey,
) -> c_int {
    // SAFETY: the caller's guarantees.
    code(
        unsafe { batch(map, count, &[keys.is_null(), found.is_null()]) }.and_then(|m| {
            // SAFETY: `keys` has `count` keys, `i < count`.
            let key = |i| int(unsafe { *keys.add(i) });
            // SAFETY: the caller's guarantees.
            m.get_many::<Guarded, _>(count, key, unsafe { answer(values, found) })
        }),
    )
}

/// Looks up `count` `uint64_t` keys at once: for each `i < count`,
/// `found[i]` becomes 1 when `keys[i]` is in the map, and then `values[i]`
/// its value (`values` may be NULL: presence tests), else `found[i]`
/// becomes 0 and `values[i]` is left as it was. The results equal those of
/// `count` calls of `slate_get_u64`, duplicates included; the call is
/// faster because it overlaps the keys' cache misses (it hashes a chunk of
/// keys, then requests their tables' lines, then probes). Allocates
/// nothing; allowed inside `slate_each` callbacks, like `slate_get`.
///
/// Returns `SLATE_OK` (also for `count == 0`), or `SLATE_ERROR_INVALID`
/// with nothing written for a NULL map, or a NULL `keys` or `found` when
/// `count > 0`.
///
/// # Safety
/// `map` is NULL or an initialized map; `keys` has `count` readable keys,
/// `found` room for `count` bytes, `values` is NULL or has room for
/// `count` pointers.
#[no_mangle]
pub unsafe extern "C" fn slate_get_many_u64(
    map: *const slate_s,
    keys: *const u64,
    count: usize,
    values: *mut *mut c_void,
    found: *mut u8,
) -> c_int {
    // SAFETY: the caller's guarantees.
    unsafe { get_many_ints(map, keys, count, values, found, |k| IntKey::new(TAG_U64, k)) }
}

/// `slate_get_many_u64` for `int64_t` keys (see `slate_get_i64`).
///
/// # Safety
/// As for `slate_get_many_u64`.
#[no_mangle]
pub unsafe extern "C" fn slate_get_many_i64(
    map: *const slate_s,
    keys: *const i64,
    count: usize,
    values: *mut *mut c_void,
    found: *mut u8,
) -> c_int {
    // SAFETY: the caller's guarantees.
    unsafe {
        get_many_ints(map, keys, count, values, found, |k| {
            IntKey::new(TAG_I64, k as u64)
        })
    }
}

/// `slate_get_many_u64` for byte keys: key `i` is the `key_lengths[i]`
/// bytes at `keys[i]` (see `slate_get_bytes`; `keys[i]` may be NULL only
/// when `key_lengths[i]` is 0).
///
/// Returns `SLATE_OK`, or `SLATE_ERROR_INVALID` with nothing written for a
/// NULL map, a NULL `keys`, `key_lengths` or `found` when `count > 0`, or
/// a NULL `keys[i]` with a non-zero length.
///
/// # Safety
/// As for `slate_get_many_u64`; `key_lengths` has `count` lengths and each
/// `keys[i]` points to `key_lengths[i]` readable bytes or is NULL.
#[no_mangle]
pub unsafe extern "C" fn slate_get_many_bytes(
    map: *const slate_s,
    keys: *const *const c_void,
    key_lengths: *const u32,
    count: usize,
    values: *mut *mut c_void,
    found: *mut u8,
) -> c_int {
    let arrays = [keys.is_null(), key_lengths.is_null(), found.is_null()];
    // SAFETY: the caller's guarantees.
    code(unsafe { batch(map, count, &arrays) }.and_then(|m| {
        // SAFETY: `keys` and `key_lengths` have `count` entries, `i < count`.
        let key = |i| unsafe { (*keys.add(i), *key_lengths.add(i)) };
        if (0..count).any(|i| matches!(key(i), (k, len) if k.is_null() && len > 0)) {
            return Err(Error::Invalid);
        }
        // SAFETY: each key's bytes are readable; checked above.
        let needle = |i| unsafe { bytes_key(key(i).0, key(i).1) }.unwrap_or(Needle::bytes(&[]));
        // SAFETY: the caller's guarantees.
        m.get_many::<Guarded, _>(count, needle, unsafe { answer(values, found) })
    }))
}

/// `slate_get_many_u64` for NUL-terminated string keys (see `slate_get`).
/// A string of 4 GiB or more, which no map can hold, is not found.
///
/// Returns `SLATE_OK`, or `SLATE_ERROR_INVALID` with nothing written for a
/// NULL map, a NULL `keys` or `found` when `count > 0`, or a NULL
/// `keys[i]`.
///
/// # Safety
/// As for `slate_get_many_u64`; each `keys[i]` is a string or NULL.
#[no_mangle]
pub unsafe extern "C" fn slate_get_many(
    map: *const slate_s,
    keys: *const *const c_char,
    count: usize,
    values: *mut *mut c_void,
    found: *mut u8,
) -> c_int {
    // SAFETY: the caller's guarantees.
    code(
        unsafe { batch(map, count, &[keys.is_null(), found.is_null()]) }.and_then(|m| {
            // SAFETY: `keys` has `count` entries, `i < count`.
            let key = |i| unsafe { *keys.add(i) };
            if (0..count).any(|i| key(i).is_null()) {
                return Err(Error::Invalid);
            }
            // SAFETY: each key is a string (checked non-NULL above).
            let needle = |i| unsafe { string_key(key(i)) }.ok();
            // SAFETY: the caller's guarantees.
            m.get_many::<Guarded, _>(count, needle, unsafe { answer(values, found) })
        }),
    )
}

/// Calls `callback(key, key_length, value, data)` once for every entry. A
/// non-zero return stops the walk and becomes `slate_each`'s result.
///
/// The order is the map's layout: tables in directory order (as
/// `slate_table_info` numbers them), then groups, then slots. It depends on
/// the map's seed, so it differs between maps and runs; a clone walks in
/// its source's order. Tools may rely on this to map entries to slots.
///
/// The callback may call anything, on this map too, and such a call does
/// what it does outside a walk. After each callback the walk goes on if
/// the map is unchanged, if only values of present keys were replaced, or
/// if the only change was the removal of the entry the callback was given
/// (every other entry is still visited once); after any other change
/// (a new key, another removal, clear, compact, reserve, free) it visits
/// nothing more and returns `SLATE_ERROR_INVALID`, unless the callback
/// returned non-zero, which stands. The `key` pointer is valid during
/// the call, until the callback's own write.
///
/// The callback may leave the walk with `longjmp` or end its thread: the
/// walk keeps no state outside its own frame, so the map stays usable.
///
/// Returns `SLATE_OK` after a full walk, the callback's non-zero value,
/// or `SLATE_ERROR_INVALID` for a NULL map or callback, or as above.
/// Allocates nothing.
///
/// # Safety
/// `map` is NULL or an initialized map; `callback` must not unwind (no C++
/// exception may leave it).
#[no_mangle]
pub unsafe extern "C" fn slate_each(
    map: *const slate_s,
    callback: slate_each_f,
    data: *mut c_void,
) -> c_int {
    let Some(f) = callback else {
        return Error::Invalid as c_int;
    };
    if map.is_null() {
        return Error::Invalid as c_int;
    }
    // SAFETY: an initialized map, the caller's guarantee; the callback's
    // contract is the caller's.
    walk_code(unsafe { Map::each(map.cast(), |k, n, v| f(k.cast(), n, v, data)) })
}

/// Deletes every entry for which `predicate(key, key_length, value, data)`
/// returns non-zero, as the walk goes. The predicate sees keys as
/// `slate_each` does and may call anything, as there: after a change to
/// this map other than deleting its own key, the walk stops with
/// `SLATE_ERROR_INVALID`, and an answer that came with a change is not
/// applied. Entries deleted before the walk stopped, or before a
/// predicate left it with `longjmp`, stay deleted.
///
/// Returns `SLATE_OK` (not a count), or `SLATE_ERROR_INVALID` for a NULL
/// map or predicate, or as above. Allocates nothing.
///
/// # Safety
/// As for `slate_each`.
#[no_mangle]
pub unsafe extern "C" fn slate_delete_if(
    map: *mut slate_s,
    predicate: slate_each_f,
    data: *mut c_void,
) -> c_int {
    let Some(f) = predicate else {
        return Error::Invalid as c_int;
    };
    if map.is_null() {
        return Error::Invalid as c_int;
    }
    // SAFETY: an initialized map, the caller's guarantee.
    code(unsafe { Map::delete_if::<Guarded>(map.cast(), |k, n, v| f(k.cast(), n, v, data)) })
}

/// A cursor over a map: a position, not a reference. A complete type: put
/// it on the stack or anywhere, place it with `slate_iter`. It holds no
/// memory and needs no release; its fields are private. It holds no
/// pointer either, so every call takes the map, and a map may move
/// (`memcpy`, an array that grows) between calls: its cursors follow it.
///
/// A cursor is stale after any other change to its map: a new key, a
/// delete not made through this cursor (another cursor's included), a
/// `slate_delete_if` from its first deletion on, a `slate_reserve` that
/// allocates or moves entries, and every `slate_clear`, `slate_compact`
/// and `slate_free` carried out (even on an empty map); also once it is given a map other than the one
/// `slate_iter` was given (a clone included). A stale cursor stays stale:
/// its `slate_iter_next` and `slate_iter_delete` return
/// `SLATE_ERROR_INVALID` and change nothing. Replacing the value of a
/// present key, and a call that changes nothing (a failed or refused call,
/// a delete or take of an absent key), leave cursors valid. (A map from
/// zero-filled memory that never had `slate()` has no identity until its
/// first insert or `slate_reserve`: until then a cursor cannot tell it
/// from another such map, all of them empty.)
///
/// The loop, with its final check:
///
/// ```c
/// slate_iter_s it; const char* k; uint32_t n; void* v; int rc;
/// slate_iter(&it, &map);
/// while ((rc = slate_iter_next(&it, &map, &k, &n, &v)) == SLATE_OK) {
///     // ... maybe slate_iter_delete(&it, &map) ...
/// }
/// if (rc < 0) { // the map changed under the cursor
/// }
/// ```
#[repr(C)]
pub struct slate_iter_s {
    pub _private: [u64; 8],
}

const _: () = assert!(size_of::<Iter>() <= size_of::<slate_iter_s>());
const _: () = assert!(align_of::<Iter>() <= align_of::<slate_iter_s>());

/// The body of a cursor. Every bit pattern is a valid `Iter` (a cursor
/// that `slate_iter` never placed is stale).
///
/// # Safety
/// `it` is NULL or points to a `slate_iter_s`.
unsafe fn cursor<'a>(it: *mut slate_iter_s) -> Result<&'a mut Iter, Error> {
    // SAFETY: the caller's guarantee; the assertions above.
    unsafe { it.cast::<Iter>().as_mut() }.ok_or(Error::Invalid)
}

/// Places `it` before the first entry of `map`, stamped with the map as it
/// is now. Only reads the map: any number of cursors may read one map
/// that nobody modifies, on several threads. Allowed inside the map's own
/// `slate_each` callback. Allocates nothing.
///
/// Returns `SLATE_OK`, or `SLATE_ERROR_INVALID` for a NULL argument.
///
/// # Safety
/// `it` is NULL or writable; `map` is NULL or an initialized map.
#[no_mangle]
pub unsafe extern "C" fn slate_iter(it: *mut slate_iter_s, map: *const slate_s) -> c_int {
    guard(|| {
        // SAFETY: the caller's guarantees.
        let m = unsafe { read(map)? };
        if it.is_null() {
            return Err(Error::Invalid);
        }
        // SAFETY: `it` is writable; its old contents are not read.
        unsafe { it.cast::<Iter>().write(Iter::new(m)) };
        Ok(())
    })
}

/// Moves `it` to the next entry of `map` and gives it: stores its key's
/// address in `*key`, the key's length in `*key_length` and its value in
/// `*value`, each unless NULL. On a map that does not change, entries come
/// in `slate_each`'s order, and a cursor gives every entry present from
/// `slate_iter` to its end exactly once, also while it deletes through
/// `slate_iter_delete`.
///
/// The key bytes (not NUL-terminated) are the map's own copy (an integer
/// key as its 10-byte encoding, which for a table of integer keys is in a
/// buffer inside the cursor): valid until the next call on this cursor,
/// the next modification of the map, or a move of the cursor, whichever
/// comes first. The caller owns neither: never free them. Only reads the
/// map (see `slate_iter`).
///
/// Returns `SLATE_OK`; `SLATE_ERROR_NOT_FOUND` once every entry has been
/// given (and again on later calls); `SLATE_ERROR_INVALID` for a NULL `it`
/// or `map`, or a stale cursor (see `slate_iter_s`). On an error nothing is
/// stored.
///
/// # Safety
/// `it` is NULL or a cursor; `map` is NULL or an initialized map; `key`,
/// `key_length` and `value` are each NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slate_iter_next(
    it: *mut slate_iter_s,
    map: *const slate_s,
    key: *mut *const c_char,
    key_length: *mut u32,
    value: *mut *mut c_void,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's guarantees.
        let (it, m) = unsafe { (cursor(it)?, read(map)?) };
        let (k, n, v) = m.iter_next(it)?;
        // SAFETY: each non-NULL out-parameter is writable.
        unsafe {
            if !key.is_null() {
                *key = k.cast();
            }
            if !key_length.is_null() {
                *key_length = n;
            }
            if !value.is_null() {
                *value = v;
            }
        }
        Ok(())
    })
}

/// Deletes the entry that this cursor's last `slate_iter_next` gave, and
/// frees the map's copy of its key; `it` stays valid and goes on from
/// there (the map's other cursors are stale). A map left empty takes a
/// fresh seed unless it is pinned, as with `slate_delete`.
///
/// Returns `SLATE_OK`; `SLATE_ERROR_NOT_FOUND` when there is no such entry
/// (before the first `slate_iter_next`, after it returned
/// `SLATE_ERROR_NOT_FOUND`, or after this cursor already deleted it);
/// `SLATE_ERROR_INVALID` for a NULL argument, from inside the map's own
/// walk (`slate_each`, `slate_delete_if`), or for a stale cursor. On an
/// error nothing changed.
///
/// # Safety
/// `it` is NULL or a cursor; `map` is NULL or an initialized map.
#[no_mangle]
pub unsafe extern "C" fn slate_iter_delete(it: *mut slate_iter_s, map: *mut slate_s) -> c_int {
    guard(|| {
        // SAFETY: the caller's guarantees.
        let m = unsafe { write(map)? };
        // SAFETY: as above.
        m.iter_delete(unsafe { cursor(it)? })
    })
}

/// 1 when `a` and `b` hold the same keys, each with the same (pointer-
/// equal) value; else 0. 0 when either is NULL. Allocates nothing.
///
/// # Safety
/// `a` and `b` are NULL or initialized maps.
#[no_mangle]
pub unsafe extern "C" fn slate_equal(a: *const slate_s, b: *const slate_s) -> c_int {
    let mut equal = 0;
    guard(|| {
        // SAFETY: the caller's guarantees.
        let (ma, mb) = unsafe { (read(a)?, read(b)?) };
        equal = (ptr::eq(ma, mb)
            || (ma.len() == mb.len()
                && ma.visit(|k, v| (mb.get(&Needle::bytes(k)) != Some(v)) as i32) == 0))
            as c_int;
        Ok(())
    });
    equal
}

/// The number of entries; 0 for NULL.
///
/// # Safety
/// `map` is NULL or an initialized map.
#[no_mangle]
pub unsafe extern "C" fn slate_length(map: *const slate_s) -> u64 {
    // SAFETY: the caller's guarantee.
    unsafe { read(map) }.map_or(0, |m| m.len())
}

/// Removes every entry (freeing the map's key copies) and keeps the
/// capacity, so refilling allocates less. Takes a fresh seed.
///
/// Returns `SLATE_OK`, or `SLATE_ERROR_INVALID` for a NULL map.
///
/// # Safety
/// `map` is NULL or an initialized map.
#[no_mangle]
pub unsafe extern "C" fn slate_clear(map: *mut slate_s) -> c_int {
    guard(|| {
        // SAFETY: the caller's guarantee.
        unsafe { write(map)? }.clear();
        Ok(())
    })
}

/// Rebuilds the map at its current size, releasing capacity left by
/// deletions and dropping tombstones. Every entry moves once.
///
/// Returns `SLATE_OK`; `SLATE_ERROR_ALLOC` (nothing changed);
/// `SLATE_ERROR_INVALID` for a NULL map.
///
/// # Safety
/// `map` is NULL or an initialized map.
#[no_mangle]
pub unsafe extern "C" fn slate_compact(map: *mut slate_s) -> c_int {
    // SAFETY: the caller's guarantee.
    guard(|| unsafe { write(map)? }.compact())
}

/// Initializes `copy` as an independent copy of `map`: the same entries,
/// seed and tables (no rehash, so it iterates in `map`'s order), with its
/// own copies of the keys; values are copied as pointers. `copy` must be
/// uninitialized or freed (its contents are not read) and must not be
/// `map`. Like a map from `slate()`, it takes the allocator in force now.
///
/// Returns `SLATE_OK`; `SLATE_ERROR_ALLOC` (then `copy` is an empty map and
/// nothing leaked); `SLATE_ERROR_INVALID` for a NULL argument or
/// `copy == map`.
///
/// # Safety
/// `copy` is NULL or writable; `map` is NULL or an initialized map.
#[no_mangle]
pub unsafe extern "C" fn slate_clone(copy: *mut slate_s, map: *const slate_s) -> c_int {
    guard(|| {
        // SAFETY: the caller's guarantee.
        let m = unsafe { read(map)? };
        let body = fresh(copy)?;
        if ptr::eq(copy.cast_const(), map) {
            return Err(Error::Invalid);
        }
        let alloc = m.clone_allocator();
        let (result, cloned) = match m.try_clone(alloc) {
            Ok(c) => (Ok(()), c),
            Err(e) => (Err(e), Map::new(alloc)),
        };
        // SAFETY: `copy` is writable; its old contents are not read.
        unsafe { body.write(cloned) };
        result
    })
}

/// Releases everything the map holds. The map stays usable as an empty map
/// (freeing twice is harmless). Does nothing for NULL.
///
/// # Safety
/// `map` is NULL or an initialized map.
#[no_mangle]
pub unsafe extern "C" fn slate_free(map: *mut slate_s) {
    guard(|| {
        // SAFETY: the caller's guarantee.
        unsafe { write(map)? }.free();
        Ok(())
    });
}

/// Sets the process default allocator: the one that maps and slotmaps
/// initialized from now on (by `slate()`, `slotmap()`, or a clone of a
/// structure without an allocator of its own) take. Pass all three
/// functions, or all NULL to go back to the C library's `malloc`, `calloc`
/// and `free`. Structures keep the allocator they were initialized with;
/// `slate_set_allocator` gives one structure its own. Thread-safe. The
/// header's `SLATE_MALLOC`/`SLATE_CALLOC`/`SLATE_FREE` hooks call this
/// before `main`.
///
/// Returns `SLATE_OK`; `SLATE_ERROR_INVALID` when some but not all are
/// NULL; `SLATE_ERROR_ALLOC` when the library cannot record a set of
/// functions it has not been given before (a few bytes from the C
/// library's `malloc`, once per set, kept for the life of the process).
#[no_mangle]
pub extern "C" fn slate_use_allocator(
    malloc_fn: slate_malloc_f,
    calloc_fn: slate_calloc_f,
    free_fn: slate_free_f,
) -> c_int {
    guard(|| Allocator::install(malloc_fn, calloc_fn, free_fn))
}

/// Fills `*info` with the map's shape (introspection for tests and tools).
/// Walks every table; allocates nothing.
///
/// Returns `SLATE_OK`, or `SLATE_ERROR_INVALID` for a NULL argument.
///
/// # Safety
/// `map` is NULL or an initialized map; `info` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slate_info(map: *const slate_s, info: *mut slate_info_s) -> c_int {
    guard(|| {
        // SAFETY: the caller's guarantee.
        let m = unsafe { read(map)? };
        if info.is_null() {
            return Err(Error::Invalid);
        }
        let i = m.info();
        let out = slate_info_s {
            length: i.length,
            seed: i.seed,
            capacity: i.capacity,
            tombstones: i.tombstones,
            memory: i.memory,
            global_depth: i.global_depth,
            tables: i.tables,
            directory: i.directory,
            small: i.small as u32,
        };
        // SAFETY: `info` is writable.
        unsafe { info.write(out) };
        Ok(())
    })
}

/// Fills `*info` for table number `table` (0 .. tables-1, in directory
/// order; a small map's group is table 0).
///
/// Returns `SLATE_OK`; `SLATE_ERROR_NOT_FOUND` past the last table;
/// `SLATE_ERROR_INVALID` for a NULL argument.
///
/// # Safety
/// `map` is NULL or an initialized map; `info` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slate_table_info(
    map: *const slate_s,
    table: u32,
    info: *mut slate_table_info_s,
) -> c_int {
    guard(|| {
        if info.is_null() {
            return Err(Error::Invalid);
        }
        // SAFETY: the caller's guarantee.
        let t = unsafe { read(map)? }
            .table_info(table)
            .ok_or(Error::NotFound)?;
        let out = slate_table_info_s {
            directory_first: t.directory_first,
            directory_count: t.directory_count,
            local_depth: t.local_depth,
            capacity: t.capacity,
            used: t.used,
            tombstones: t.tombstones,
            growth_left: t.growth_left,
            groups: t.groups,
            int_keys: t.int_keys,
        };
        // SAFETY: `info` is writable.
        unsafe { info.write(out) };
        Ok(())
    })
}

/// Stores in `*ctrl` the raw control word of group `group` of table
/// `table`: byte `i` (bits `8i .. 8i+7`) describes slot `i`: `0x80` empty,
/// `0xFE` deleted, `0x00 .. 0x7F` the 7-bit fingerprint of a full slot.
///
/// Returns `SLATE_OK`; `SLATE_ERROR_NOT_FOUND` for a table or group out of
/// range; `SLATE_ERROR_INVALID` for a NULL argument.
///
/// # Safety
/// `map` is NULL or an initialized map; `ctrl` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slate_table_ctrl(
    map: *const slate_s,
    table: u32,
    group: u32,
    ctrl: *mut u64,
) -> c_int {
    guard(|| {
        if ctrl.is_null() {
            return Err(Error::Invalid);
        }
        // SAFETY: the caller's guarantee.
        let mut ctrls = unsafe { read(map)? }
            .table_ctrls(table)
            .ok_or(Error::NotFound)?;
        let word = ctrls.nth(group as usize).ok_or(Error::NotFound)?;
        // SAFETY: `ctrl` is writable.
        unsafe { ctrl.write(word.0) };
        Ok(())
    })
}

/// Stores in `ctrl[0 .. count]` the control words of groups `0 .. count` of
/// table `table` (as `slate_table_ctrl` does one at a time): one walk to the
/// table instead of one per group. `count` is at most the table's group
/// count (`slate_table_info`'s `groups`).
///
/// Returns `SLATE_OK`; `SLATE_ERROR_NOT_FOUND` for a table out of range;
/// `SLATE_ERROR_INVALID` for a NULL argument or `count` above the table's
/// group count.
///
/// # Safety
/// `map` is NULL or an initialized map; `ctrl` is NULL or has room for
/// `count` words.
#[no_mangle]
pub unsafe extern "C" fn slate_table_ctrls(
    map: *const slate_s,
    table: u32,
    ctrl: *mut u64,
    count: u32,
) -> c_int {
    guard(|| {
        if ctrl.is_null() {
            return Err(Error::Invalid);
        }
        // SAFETY: the caller's guarantee.
        let ctrls = unsafe { read(map)? }
            .table_ctrls(table)
            .ok_or(Error::NotFound)?;
        if count as usize > ctrls.len() {
            return Err(Error::Invalid);
        }
        for (g, word) in ctrls.take(count as usize).enumerate() {
            // SAFETY: `ctrl` has room for `count` words.
            unsafe { ctrl.add(g).write(word.0) };
        }
        Ok(())
    })
}

/// Runs the library's invariant checker over the whole map: recounts every
/// table's counters from its control bytes, finds every entry again from
/// its own hash, and checks the directory against the tables' depths.
/// On failure writes a one-line description of the first broken invariant
/// into `message` (NUL-terminated, cut to `message_capacity` bytes; may be
/// NULL when `message_capacity` is 0). Allocates nothing.
///
/// Returns `SLATE_OK`, or `SLATE_ERROR_INVALID` for a broken invariant or a
/// NULL map.
///
/// # Safety
/// `map` is NULL or an initialized map; `message` is NULL or has
/// `message_capacity` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn slate_check(
    map: *const slate_s,
    message: *mut c_char,
    message_capacity: u32,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's guarantee.
        let m = unsafe { read(map)? };
        let Err(report) = m.check() else {
            return Ok(());
        };
        if !message.is_null() && message_capacity > 0 {
            let text = report.as_str().as_bytes();
            let n = text.len().min(message_capacity as usize - 1);
            // SAFETY: `message` has `message_capacity` writable bytes.
            unsafe {
                ptr::copy_nonoverlapping(text.as_ptr(), message.cast::<u8>(), n);
                *message.add(n) = 0;
            }
        }
        Err(Error::Invalid)
    })
}
