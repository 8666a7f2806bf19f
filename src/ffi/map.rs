//! The map's C API: `slate_*`, its point calls. Each operation of the four key families
//! (`slate_get`, `_bytes`, `_i64`, `_u64`) is one generic body, a method of [`Arg`], and each
//! export is one line that passes it its key (see `mod.rs` on the export lines).

use core::ffi::{c_char, c_int, c_void, CStr};
use core::mem::{align_of, size_of};
use core::ptr;

use crate::alloc::Allocator;
use crate::hash::SHORT;
use crate::key::{int_of_bytes, IntKey, Key, Needle, Short, INT_LEN, TAG_I64, TAG_U64};
use crate::map::{GetOrInsert, Map, Placed, Set, Upsert};
use crate::Error;

use super::{
    body, call, code, found, fresh, guard, put, read, slate_allocator_s, write, Guarded, Shell,
    INVALID,
};

/// A map. A complete type: put it on the stack, in a struct or in an array, initialize it with
/// `slate()`, release it with `slate_free()`. It holds no pointer into itself, so it may be moved
/// with `memcpy` while no call on it is in progress. Its fields are private.
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

body!(Map, |_m, a| Map::new(a));

/// An allocation function with `malloc`'s contract (memory aligned for any object of 8 bytes or
/// more; NULL when out of memory).
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
    /// Bytes currently held from the allocator (tables, directory, copies of keys longer than 28
    /// bytes).
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

/// A NUL-terminated string's bytes (of any length).
#[inline]
unsafe fn string_bytes<'a>(key: *const c_char) -> Result<&'a [u8], Error> {
    if key.is_null() {
        return Err(Error::Invalid);
    }
    Ok(unsafe { CStr::from_ptr(key) }.to_bytes())
}

/// A NUL-terminated string key.
#[inline]
pub(super) unsafe fn string_key<'a>(key: *const c_char) -> Result<Needle<'a>, Error> {
    let bytes = unsafe { string_bytes(key)? };
    if u32::try_from(bytes.len()).is_err() {
        return Err(Error::Full);
    }
    Ok(Needle::bytes(bytes))
}

/// A byte key: the `len` bytes at `key`, which may be NULL only when `len` is 0.
#[inline]
pub(super) unsafe fn bytes_key<'a>(key: *const c_void, len: u32) -> Result<Needle<'a>, Error> {
    match key.is_null() {
        true if len == 0 => Ok(Needle::bytes(&[])),
        true => Err(Error::Invalid),
        false => Ok(Needle::bytes(unsafe {
            core::slice::from_raw_parts(key.cast::<u8>(), len as usize)
        })),
    }
}

/// The key of the `_i64` calls.
pub(super) fn i64_key(key: i64) -> IntKey {
    IntKey::new(TAG_I64, key as u64)
}

/// The key of the `_u64` calls.
pub(super) fn u64_key(key: u64) -> IntKey {
    IntKey::new(TAG_U64, key)
}

/// A string key as `slate_get` takes it.
struct Str(*const c_char);

/// A byte key as `slate_get_bytes` takes it: `key`, `key_length`.
struct Bytes(*const c_void, u32);

/// A key as one family of calls takes it (`Str`, `Bytes`, or a [`Key`]: the integer keys'), with
/// the family's body of each operation. A key's own error (NULL, 4 GiB or more) is reported before
/// the map's.
///
/// No body needs a guard of its own: a lookup runs no user code and allocates nothing, and the
/// parts of lookups, inserts and deletes that might panic (a long key's hash, making room, a fresh
/// seed) run under `Guarded` inside the `Map` methods (see `crate::map::write`); `make symbols`
/// checks that the compiled exports keep no unwinding path.
trait Arg: Sized {
    /// A lookup: `SLATE_OK` after storing the value in `*value` unless `value` is NULL,
    /// `SLATE_ERROR_NOT_FOUND`, or the error.
    unsafe fn get(self, map: *const slate_s, value: *mut *mut c_void) -> c_int;

    /// A set or a get-or-insert, as `U` says, handing what it hands back to `placed` when it
    /// succeeded.
    unsafe fn upsert<U: Upsert>(
        self,
        map: *mut slate_s,
        value: *mut c_void,
        placed: impl FnOnce(U::Out),
    ) -> c_int;

    /// Removes the key, storing its value in `*value` unless `value` is NULL (the deletes pass
    /// NULL).
    unsafe fn take(self, map: *mut slate_s, value: *mut *mut c_void) -> c_int;
}

impl<K: Key> Arg for K {
    #[inline(always)]
    unsafe fn get(self, map: *const slate_s, value: *mut *mut c_void) -> c_int {
        match unsafe { read(map) } {
            Ok(m) => m.look(&self, move |v| unsafe { found(v, value) }),
            Err(e) => e as c_int,
        }
    }

    #[inline(always)]
    unsafe fn upsert<U: Upsert>(
        self,
        map: *mut slate_s,
        value: *mut c_void,
        placed: impl FnOnce(U::Out),
    ) -> c_int {
        match unsafe { write(map) } {
            Ok(m) => m.upsert_then::<Guarded, U, _, _>(&self, value, |r| code(r.map(placed))),
            Err(e) => e as c_int,
        }
    }

    #[inline(always)]
    unsafe fn take(self, map: *mut slate_s, value: *mut *mut c_void) -> c_int {
        match unsafe { write(map) } {
            Ok(m) => m.take_then::<Guarded, _, _>(&self, move |r| unsafe { give(value, r) }),
            Err(e) => e as c_int,
        }
    }
}

impl Arg for Str {
    #[inline(always)]
    unsafe fn get(self, map: *const slate_s, value: *mut *mut c_void) -> c_int {
        let bytes = match unsafe { string_bytes(self.0) } {
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
            return unsafe { get_apart(map, bytes.as_ptr().cast(), len, value) };
        }
        unsafe { get_bytes(map, Ok(Needle::bytes(bytes)), value) }
    }

    unsafe fn upsert<U: Upsert>(
        self,
        map: *mut slate_s,
        value: *mut c_void,
        placed: impl FnOnce(U::Out),
    ) -> c_int {
        unsafe { set_bytes::<U>(map, string_key(self.0), value, placed) }
    }

    #[inline(always)]
    unsafe fn take(self, map: *mut slate_s, value: *mut *mut c_void) -> c_int {
        unsafe { take_bytes(map, string_key(self.0), value) }
    }
}

impl Arg for Bytes {
    #[inline(always)]
    unsafe fn get(self, map: *const slate_s, value: *mut *mut c_void) -> c_int {
        if self.1 > LONGER as u32 {
            return unsafe { get_apart(map, self.0, self.1, value) };
        }
        unsafe { get_bytes(map, bytes_key(self.0, self.1), value) }
    }

    unsafe fn upsert<U: Upsert>(
        self,
        map: *mut slate_s,
        value: *mut c_void,
        placed: impl FnOnce(U::Out),
    ) -> c_int {
        unsafe { set_bytes::<U>(map, bytes_key(self.0, self.1), value, placed) }
    }

    #[inline(always)]
    unsafe fn take(self, map: *mut slate_s, value: *mut *mut c_void) -> c_int {
        if self.1 > LONGER as u32 {
            return unsafe { take_apart(map, self.0, self.1, value) };
        }
        unsafe { take_bytes(map, bytes_key(self.0, self.1), value) }
    }
}

/// Byte keys longer than this leave the `_bytes` shims first thing, for a path of their own (see
/// `get_apart`).
const LONGER: usize = 32;

/// `Arg::get` for a byte key.
#[inline(always)]
unsafe fn get_bytes(
    map: *const slate_s,
    key: Result<Needle, Error>,
    value: *mut *mut c_void,
) -> c_int {
    let n = match key {
        Ok(n) => n,
        Err(e) => return e as c_int,
    };
    // SAFETY: the caller's guarantees (`value` is NULL or writable).
    let store = move |v| unsafe { put(value, v) };
    match unsafe { read(map) } {
        Ok(m) => code(m.get_bytes_guarded::<Guarded>(n, store)),
        Err(e) => e as c_int,
    }
}

/// `slate_get_bytes` (and `slate_get`) for a key longer than [`LONGER`] bytes, apart from the
/// shim: a key of up to [`SHORT`] bytes is looked up as `Short<SHORT, 33>`, whose bounds drop every
/// short-key branch from the hash and the compare; a longer one is hashed under the guard. Its
/// attribute: `make lto-test`.
#[inline(never)]
unsafe fn get_apart(
    map: *const slate_s,
    key: *const c_void,
    len: u32,
    value: *mut *mut c_void,
) -> c_int {
    let n = match unsafe { bytes_key(key, len) } {
        Ok(n) => n,
        Err(e) => return e as c_int,
    };
    match Short::<SHORT, { LONGER + 1 }>::new(n) {
        Some(longer) => unsafe { longer.get(map, value) },
        None => match unsafe { read(map) } {
            Ok(m) => code(
                m.get_long::<Guarded>(n.key())
                    .and_then(|v| v.ok_or(Error::NotFound))
                    .map(|v| unsafe { put(value, v) }),
            ),
            Err(e) => e as c_int,
        },
    }
}

/// `slate_take_bytes` (and `slate_delete_bytes`, with a NULL `value`) for a key longer than
/// [`LONGER`] bytes, as `get_apart` is for lookups.
unsafe fn take_apart(
    map: *mut slate_s,
    key: *const c_void,
    len: u32,
    value: *mut *mut c_void,
) -> c_int {
    match unsafe { bytes_key(key, len) }.map(Short::<SHORT, { LONGER + 1 }>::new) {
        Ok(Some(longer)) => unsafe { longer.take(map, value) },
        _ => unsafe { take_bytes(map, bytes_key(key, len), value) },
    }
}

/// The map to modify and the key, or the error to return.
unsafe fn target<'m, K>(
    map: *mut slate_s,
    key: Result<K, Error>,
) -> Result<(&'m mut Map, K), Error> {
    let key = key?;
    Ok((unsafe { write(map)? }, key))
}

/// `Arg::upsert` for a byte key.
unsafe fn set_bytes<U: Upsert>(
    map: *mut slate_s,
    key: Result<Needle<'_>, Error>,
    value: *mut c_void,
    placed: impl FnOnce(U::Out),
) -> c_int {
    match unsafe { target(map, key) } {
        Ok((m, n)) => code(m.upsert_bytes_guarded::<Guarded, U>(n, value).map(placed)),
        Err(e) => e as c_int,
    }
}

/// `Arg::take` for a byte key.
#[inline(always)]
unsafe fn take_bytes(
    map: *mut slate_s,
    key: Result<Needle, Error>,
    value: *mut *mut c_void,
) -> c_int {
    match unsafe { target(map, key) } {
        Ok((m, n)) => unsafe { give(value, m.take_bytes_guarded::<Guarded>(n)) },
        Err(e) => e as c_int,
    }
}

/// A taken value into `*value` unless `value` is NULL (which is NULL or writable).
unsafe fn give(value: *mut *mut c_void, taken: Result<*mut c_void, Error>) -> c_int {
    code(taken.map(|v| unsafe { put(value, v) }))
}

/// `slate_set` of any key family.
unsafe fn set(map: *mut slate_s, key: impl Arg, value: *mut c_void) -> c_int {
    unsafe { key.upsert::<Set>(map, value, |()| ()) }
}

/// `slate_entry` of any key family (`value` and `inserted` are NULL or writable).
unsafe fn entry(
    map: *mut slate_s,
    key: impl Arg,
    value: *mut *mut *mut c_void,
    inserted: *mut c_int,
) -> c_int {
    if value.is_null() {
        return INVALID;
    }
    let placed = move |p: Placed| unsafe {
        value.write(p.value);
        put(inserted, p.inserted as c_int);
    };
    unsafe { key.upsert::<GetOrInsert>(map, ptr::null_mut(), placed) }
}

/// Initializes `map` as an empty map. Allocates nothing (the first insert does). The map takes the
/// allocator in force now (see `slate_use_allocator`). Calling it on a map that holds entries
/// forgets them without freeing: call `slate_free` first.
/// Returns `SLATE_OK`, or `SLATE_ERROR_INVALID` if `map` is NULL.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slate(map: *mut slate_s) -> c_int { call!(guard(|| fresh(map).map(|b| b.write(Map::new(Allocator::current()))))) }

/// Sizes the map so that `n` entries fit without growing. A hint: it never removes entries and does
/// nothing when the map is already that large. May rebuild the whole map (every entry moves once).
/// Returns `SLATE_OK`; `SLATE_ERROR_FULL` for a size no map can reach (such as `UINT64_MAX`);
/// `SLATE_ERROR_ALLOC`; `SLATE_ERROR_INVALID` for a NULL map. On error nothing changed.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slate_reserve(map: *mut slate_s, n: u64) -> c_int { call!(guard(|| write(map)?.reserve(n))) }

/// Inserts `key` (a NUL-terminated string; the key is its bytes without the NUL) with `value`, or
/// replaces the value of an existing key. The map copies the key; `value` is stored as given, never
/// dereferenced or freed.
/// Returns `SLATE_OK`; `SLATE_ERROR_ALLOC` (nothing changed); `SLATE_ERROR_INVALID` for a NULL map
/// or key; `SLATE_ERROR_FULL` for a key of 4 GiB or more.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slate_set(map: *mut slate_s, key: *const c_char, value: *mut c_void) -> c_int { call!(set(map, Str(key), value)) }

/// `slate_set` for a key of `key_length` arbitrary bytes (embedded NULs allowed). `key` may be NULL
/// only when `key_length` is 0: the empty key.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slate_set_bytes(map: *mut slate_s, key: *const c_void, key_length: u32, value: *mut c_void) -> c_int { call!(set(map, Bytes(key, key_length), value)) }

/// `slate_set` for an `int64_t` key, stored as `SLATE_INT_KEY_LENGTH` describes (no string or
/// `uint64_t` key meets it; never allocated).
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slate_set_i64(map: *mut slate_s, key: i64, value: *mut c_void) -> c_int { call!(set(map, i64_key(key), value)) }

/// `slate_set` for a `uint64_t` key (as `slate_set_i64`).
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slate_set_u64(map: *mut slate_s, key: u64, value: *mut c_void) -> c_int { call!(set(map, u64_key(key), value)) }

/// Looks `key` up. On `SLATE_OK` stores its value in `*value` unless `value` is NULL (a presence
/// test). On `SLATE_ERROR_NOT_FOUND` leaves `*value` as it was. Allocates nothing.
/// Returns `SLATE_OK`, `SLATE_ERROR_NOT_FOUND`, or `SLATE_ERROR_INVALID` for a NULL map or key.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slate_get(map: *const slate_s, key: *const c_char, value: *mut *mut c_void) -> c_int { call!(Str(key).get(map, value)) }

/// `slate_get` for a byte key (see `slate_set_bytes`).
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slate_get_bytes(map: *const slate_s, key: *const c_void, key_length: u32, value: *mut *mut c_void) -> c_int { call!(Bytes(key, key_length).get(map, value)) }

/// `slate_get` for an `int64_t` key.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slate_get_i64(map: *const slate_s, key: i64, value: *mut *mut c_void) -> c_int { call!(i64_key(key).get(map, value)) }

/// `slate_get` for a `uint64_t` key.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slate_get_u64(map: *const slate_s, key: u64, value: *mut *mut c_void) -> c_int { call!(u64_key(key).get(map, value)) }

/// Removes `key` and frees the map's copy of it. Memory of the table is kept (see `slate_compact`).
/// A map left empty takes a fresh seed (unless pinned).
/// Returns `SLATE_OK`, `SLATE_ERROR_NOT_FOUND`, or `SLATE_ERROR_INVALID` for a NULL map or key.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slate_delete(map: *mut slate_s, key: *const c_char) -> c_int { call!(Str(key).take(map, ptr::null_mut())) }

/// `slate_delete` for a byte key (see `slate_set_bytes`).
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slate_delete_bytes(map: *mut slate_s, key: *const c_void, key_length: u32) -> c_int { call!(Bytes(key, key_length).take(map, ptr::null_mut())) }

/// `slate_delete` for an `int64_t` key.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slate_delete_i64(map: *mut slate_s, key: i64) -> c_int { call!(i64_key(key).take(map, ptr::null_mut())) }

/// `slate_delete` for a `uint64_t` key.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slate_delete_u64(map: *mut slate_s, key: u64) -> c_int { call!(u64_key(key).take(map, ptr::null_mut())) }

/// Gets or inserts `key` (a string, as for `slate_set`) with one hash and one probe: on `SLATE_OK`
/// stores in `*value` the address of the map's value for the key (read it, write it), and in
/// `*inserted` (unless `inserted` is NULL) 1 if the key was new, stored with the value NULL, or 0
/// if it was present, its value untouched. So
/// `if (slate_entry(m, w, &v, NULL) == SLATE_OK) *v = (void*)((uintptr_t)*v + 1);`
/// counts a word with one lookup.
///
/// `*value` stays valid until the next call that adds or removes a key or changes the map's memory
/// (a set or entry of a new key, delete, take, `slate_iter_delete`, clear, compact, reserve,
/// delete_if, free); reads, and a set of a present key, leave it valid.
/// Returns `SLATE_OK`; `SLATE_ERROR_ALLOC` or `SLATE_ERROR_FULL` (a key of 4 GiB or more) with
/// nothing inserted and the out-pointers untouched; `SLATE_ERROR_INVALID` for a NULL map, key or
/// `value`.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slate_entry(map: *mut slate_s, key: *const c_char, value: *mut *mut *mut c_void, inserted: *mut c_int) -> c_int { call!(entry(map, Str(key), value, inserted)) }

/// `slate_entry` for a byte key (see `slate_set_bytes`).
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slate_entry_bytes(map: *mut slate_s, key: *const c_void, key_length: u32, value: *mut *mut *mut c_void, inserted: *mut c_int) -> c_int { call!(entry(map, Bytes(key, key_length), value, inserted)) }

/// `slate_entry` for an `int64_t` key.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slate_entry_i64(map: *mut slate_s, key: i64, value: *mut *mut *mut c_void, inserted: *mut c_int) -> c_int { call!(entry(map, i64_key(key), value, inserted)) }

/// `slate_entry` for a `uint64_t` key.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slate_entry_u64(map: *mut slate_s, key: u64, value: *mut *mut *mut c_void, inserted: *mut c_int) -> c_int { call!(entry(map, u64_key(key), value, inserted)) }

/// Removes `key` (a string, as for `slate_delete`) and hands back its value: on `SLATE_OK` stores
/// the removed entry's value in `*value` unless `value` is NULL, so the caller can free what it
/// pointed to. One lookup. On `SLATE_ERROR_NOT_FOUND` leaves `*value` as it was. A map left empty
/// takes a fresh seed (unless pinned).
/// Returns `SLATE_OK`, `SLATE_ERROR_NOT_FOUND`, or `SLATE_ERROR_INVALID` for a NULL map or key
/// (nothing removed).
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slate_take(map: *mut slate_s, key: *const c_char, value: *mut *mut c_void) -> c_int { call!(Str(key).take(map, value)) }

/// `slate_take` for a byte key (see `slate_set_bytes`).
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slate_take_bytes(map: *mut slate_s, key: *const c_void, key_length: u32, value: *mut *mut c_void) -> c_int { call!(Bytes(key, key_length).take(map, value)) }

/// `slate_take` for an `int64_t` key.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slate_take_i64(map: *mut slate_s, key: i64, value: *mut *mut c_void) -> c_int { call!(i64_key(key).take(map, value)) }

/// `slate_take` for a `uint64_t` key.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slate_take_u64(map: *mut slate_s, key: u64, value: *mut *mut c_void) -> c_int { call!(u64_key(key).take(map, value)) }

/// `SLATE_INT_KEY_LENGTH` in the header.
const _: () = assert!(INT_LEN == 10);

/// Decodes key bytes (as a walk shows them) that encode an `int64_t` key: on `SLATE_OK` stores the
/// key in `*out`.
/// Returns `SLATE_OK`; `SLATE_ERROR_NOT_FOUND` when the bytes are not an `int64_t` key's encoding
/// (another kind of key), leaving `*out` as it was; `SLATE_ERROR_INVALID` for a NULL `out`, or a
/// NULL `key` with a non-zero length.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slate_key_to_i64(key: *const c_char, key_length: u32, out: *mut i64) -> c_int { call!(decode(key, key_length, TAG_I64, out.cast())) }

/// `slate_key_to_i64` for a `uint64_t` key's encoding.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slate_key_to_u64(key: *const c_char, key_length: u32, out: *mut u64) -> c_int { call!(decode(key, key_length, TAG_U64, out)) }

/// The integer of kind `tag` that `key_length` bytes at `key` encode, into `*out`.
unsafe fn decode(key: *const c_char, key_length: u32, tag: u8, out: *mut u64) -> c_int {
    guard(|| {
        if out.is_null() {
            return Err(Error::Invalid);
        }
        let bytes = unsafe { bytes_key(key.cast(), key_length) }?;
        let v = int_of_bytes(bytes.key(), tag).ok_or(Error::NotFound)?;
        // SAFETY: checked non-NULL; the caller's guarantee.
        unsafe { *out = v };
        Ok(())
    })
}

/// Gives the map its own allocator (arenas, pools, accounting), or with a NULL `allocator` the
/// process default back (`slate_use_allocator`, or the C library's). `*allocator` is copied: the
/// caller's struct may go away, but its `context` must stay valid while the map holds memory. Every
/// byte the map allocates from then on (tables, directory, copies of long keys) comes from
/// `allocate` and goes back through `release` with the same context and size. `slate_free` keeps
/// the allocator, `slate()` drops it; a clone of the map uses it too (a clone of a map without one
/// uses the process default in force). No map call allocates memory it does not keep: `allocate`
/// runs only where the map grows (set, entry, reserve, compact, clone).
///
/// Allowed while the map holds no memory: after `slate()`, after `slate_free`, or after a
/// `slate_compact` that left it empty (not after `slate_clear` or deleting every entry, which keep
/// its tables).
/// Returns `SLATE_OK`, or `SLATE_ERROR_INVALID` for a NULL map, a NULL `allocate` or `release`, a
/// map that holds memory (nothing changed; a map being walked holds memory).
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slate_set_allocator(map: *mut slate_s, allocator: *const slate_allocator_s) -> c_int { call!(super::set_allocator(map, allocator)) }

/// Pins the map's hash seed to `seed`, so that the same calls in the same order give the same
/// iteration order (for tests and golden files), for this library version and byte order. Allowed
/// when `slate_set_allocator` is: while the map holds no memory. The pin survives the map emptying,
/// `slate_clear` and `slate_free`; a clone keeps it; `slate()` drops it.
///
/// A pinned seed that an attacker can learn or choose gives up this map's protection against hash
/// flooding (keys chosen to collide).
/// Returns `SLATE_OK`, or `SLATE_ERROR_INVALID` for a NULL map, a map that holds memory (nothing
/// changed; a map being walked holds memory).
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slate_pin_seed(map: *mut slate_s, seed: u64) -> c_int { call!(guard(|| write(map)?.pin_seed(seed))) }

/// 1 when `a` and `b` hold the same keys, each with the same (pointer-equal) value; else 0. 0 when
/// either is NULL. Allocates nothing.
#[no_mangle]
pub unsafe extern "C" fn slate_equal(a: *const slate_s, b: *const slate_s) -> c_int {
    let mut equal = 0;
    guard(|| {
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
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slate_length(map: *const slate_s) -> u64 { call!(read(map).map_or(0, |m| m.len())) }

/// Removes every entry (freeing the map's key copies) and keeps the capacity, so refilling
/// allocates less. Takes a fresh seed.
/// Returns `SLATE_OK`, or `SLATE_ERROR_INVALID` for a NULL map.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slate_clear(map: *mut slate_s) -> c_int { call!(super::clear(map)) }

/// Rebuilds the map at its current size, releasing capacity left by deletions and dropping
/// tombstones. Every entry moves once.
/// Returns `SLATE_OK`; `SLATE_ERROR_ALLOC` (nothing changed); `SLATE_ERROR_INVALID` for a NULL map.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slate_compact(map: *mut slate_s) -> c_int { call!(guard(|| write(map)?.compact())) }

/// Initializes `copy` as an independent copy of `map`: the same entries, seed and tables (no
/// rehash, so it iterates in `map`'s order), with its own copies of the keys; values are copied as
/// pointers. `copy` must be uninitialized or freed (its contents are not read) and must not be
/// `map`. Like a map from `slate()`, it takes the allocator in force now.
/// Returns `SLATE_OK`; `SLATE_ERROR_ALLOC` (then `copy` is an empty map and nothing leaked);
/// `SLATE_ERROR_INVALID` for a NULL argument or `copy == map`.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slate_clone(copy: *mut slate_s, map: *const slate_s) -> c_int { call!(super::clone(copy, map)) }

/// Releases everything the map holds. The map stays usable as an empty map (freeing twice is
/// harmless). Does nothing for NULL.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slate_free(map: *mut slate_s) { call!(super::free(map)) }

/// Sets the process default allocator: the one that maps and slotmaps initialized from now on (by
/// `slate()`, `slotmap()`, or a clone of a structure without an allocator of its own) take. Pass
/// all three functions, or all NULL to go back to the C library's `malloc`, `calloc` and `free`.
/// Structures keep the allocator they were initialized with; `slate_set_allocator` gives one
/// structure its own. Thread-safe. The header's `SLATE_MALLOC`/`SLATE_CALLOC`/`SLATE_FREE` hooks
/// call this before `main`.
/// Returns `SLATE_OK`; `SLATE_ERROR_INVALID` when some but not all are NULL; `SLATE_ERROR_ALLOC`
/// when the library cannot record a set of functions it has not been given before (a few bytes from
/// the C library's `malloc`, once per set, kept for the life of the process).
#[no_mangle] #[rustfmt::skip]
pub extern "C" fn slate_use_allocator(malloc_fn: slate_malloc_f, calloc_fn: slate_calloc_f, free_fn: slate_free_f) -> c_int { guard(|| Allocator::install(malloc_fn, calloc_fn, free_fn)) }

/// Fills `*info` with the map's shape (introspection for tests and tools). Visits every table, and
/// every slot of the tables that hold string or byte keys (to count the bytes of long keys'
/// copies); allocates nothing.
/// Returns `SLATE_OK`, or `SLATE_ERROR_INVALID` for a NULL argument.
#[no_mangle]
pub unsafe extern "C" fn slate_info(map: *const slate_s, info: *mut slate_info_s) -> c_int {
    guard(|| {
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

/// Runs the library's invariant checker over the whole map: recounts every table's counters from
/// its control bytes, finds every entry again from its own hash, and checks the directory against
/// the tables' depths. On failure writes a one-line description of the first broken invariant into
/// `message` (NUL-terminated, cut to `message_capacity` bytes; may be NULL when `message_capacity`
/// is 0). Allocates nothing.
/// Returns `SLATE_OK`, or `SLATE_ERROR_INVALID` for a broken invariant or a NULL map.
#[no_mangle]
pub unsafe extern "C" fn slate_check(
    map: *const slate_s,
    message: *mut c_char,
    message_capacity: u32,
) -> c_int {
    guard(|| {
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
