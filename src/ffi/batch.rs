//! The map's batch lookups: `slate_get_many*`, one body over the key families.

use core::ffi::{c_char, c_int, c_void};

use crate::key::{IntKey, Needle};
use crate::map::Map;
use crate::Error;

use super::map::{bytes_key, i64_key, slate_s, string_key, u64_key};
use super::{call, code, read, Guarded};

/// The map of a batch lookup of `count` keys, once its arrays pass: a non-NULL `found` and the
/// family's `check` (its own arrays, NULL keys).
unsafe fn batch<'m>(
    map: *const slate_s,
    count: usize,
    found: *mut u8,
    check: impl FnOnce() -> bool,
) -> Result<&'m Map, Error> {
    let m = unsafe { read(map)? };
    if count > 0 && (found.is_null() || !check()) {
        return Err(Error::Invalid);
    }
    Ok(m)
}

/// What a batch lookup tells about key `i`, written out: `found[i]`, and `values[i]` for a key
/// found (unless `values` is NULL). Safety: both have room for every key's answer.
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

/// The body of every `slate_get_many*`: `Map::get_many` of `key(i)` for `i < count` once `batch`
/// passed (a macro: the key types' bound is the map's own).
macro_rules! get_many {
    ($map:ident, $count:ident, $values:ident, $found:ident, $check:expr, $key:expr) => {
        // SAFETY: the export's guarantees.
        code(
            unsafe { batch($map, $count, $found, $check) }.and_then(|m| {
                // SAFETY: as above.
                m.get_many::<Guarded, _>($count, $key, unsafe { answer($values, $found) })
            }),
        )
    };
}

/// A batch lookup of integer keys, `int(keys[i])`.
unsafe fn get_many_ints<T: Copy>(
    map: *const slate_s,
    keys: *const T,
    count: usize,
    values: *mut *mut c_void,
    found: *mut u8,
    int: impl Fn(T) -> IntKey,
) -> c_int {
    // SAFETY: `keys` has `count` keys, `i < count`.
    let key = |i| int(unsafe { *keys.add(i) });
    get_many!(map, count, values, found, || !keys.is_null(), key)
}

/// Looks up `count` `uint64_t` keys at once: for each `i < count`, `found[i]` becomes 1 when
/// `keys[i]` is in the map, and then `values[i]` its value (`values` may be NULL: presence tests),
/// else `found[i]` becomes 0 and `values[i]` is left as it was. The results equal those of `count`
/// calls of `slate_get_u64`, duplicates included; the call is faster because it overlaps the keys'
/// cache misses (it hashes a chunk of keys, then requests their tables' lines, then probes).
/// Allocates nothing; allowed inside `slate_each` callbacks, like `slate_get`.
/// Returns `SLATE_OK` (also for `count == 0`), or `SLATE_ERROR_INVALID` with nothing written for a
/// NULL map, or a NULL `keys` or `found` when `count > 0`.
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slate_get_many_u64(map: *const slate_s, keys: *const u64, count: usize, values: *mut *mut c_void, found: *mut u8) -> c_int { call!(get_many_ints(map, keys, count, values, found, u64_key)) }

/// `slate_get_many_u64` for `int64_t` keys (see `slate_get_i64`).
#[no_mangle] #[rustfmt::skip]
pub unsafe extern "C" fn slate_get_many_i64(map: *const slate_s, keys: *const i64, count: usize, values: *mut *mut c_void, found: *mut u8) -> c_int { call!(get_many_ints(map, keys, count, values, found, i64_key)) }

/// `slate_get_many_u64` for byte keys: key `i` is the `key_lengths[i]` bytes at `keys[i]` (see
/// `slate_get_bytes`; `keys[i]` may be NULL only when `key_lengths[i]` is 0). `SLATE_ERROR_INVALID`
/// also for a NULL `key_lengths` when `count > 0`, or a NULL `keys[i]` with a non-zero length.
#[no_mangle]
pub unsafe extern "C" fn slate_get_many_bytes(
    map: *const slate_s,
    keys: *const *const c_void,
    key_lengths: *const u32,
    count: usize,
    values: *mut *mut c_void,
    found: *mut u8,
) -> c_int {
    // SAFETY: `keys` and `key_lengths` have `count` entries, `i < count`.
    let key = |i| unsafe { (*keys.add(i), *key_lengths.add(i)) };
    let check = || {
        let arrays = !keys.is_null() && !key_lengths.is_null();
        arrays && !(0..count).any(|i| matches!(key(i), (k, len) if k.is_null() && len > 0))
    };
    // SAFETY: each key's bytes are readable; `check` passed.
    let needle = |i| unsafe { bytes_key(key(i).0, key(i).1) }.unwrap_or(Needle::bytes(&[]));
    get_many!(map, count, values, found, check, needle)
}

/// `slate_get_many_u64` for NUL-terminated string keys (see `slate_get`). A string of 4 GiB or
/// more, which no map can hold, is not found. `SLATE_ERROR_INVALID` also for a NULL `keys[i]`.
#[no_mangle]
pub unsafe extern "C" fn slate_get_many(
    map: *const slate_s,
    keys: *const *const c_char,
    count: usize,
    values: *mut *mut c_void,
    found: *mut u8,
) -> c_int {
    // SAFETY: `keys` has `count` entries, `i < count`.
    let key = |i| unsafe { *keys.add(i) };
    let check = || !keys.is_null() && !(0..count).any(|i| key(i).is_null());
    // SAFETY: each key is a string (`check` passed).
    let needle = |i| unsafe { string_key(key(i)) }.ok();
    get_many!(map, count, values, found, check, needle)
}
