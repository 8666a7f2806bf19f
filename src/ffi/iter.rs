//! The map's walks (`slate_each`, `slate_delete_if`) and cursors (`slate_iter*`).

use core::ffi::{c_char, c_int, c_void};
use core::mem::{align_of, size_of};

use crate::map::{Iter, Map};
use crate::Error;

use super::map::slate_s;
use super::{armed, code, guard, put, read, walk_code, write, Guarded, INVALID};

/// Called by `slate_each` and `slate_delete_if` once per entry. `key` is the map's own copy of the
/// key's bytes (not NUL-terminated; an integer key is its 10-byte encoding), valid during this call
/// only. `data` is the caller's pointer, passed through. Return 0 to go on.
pub type slate_each_f = Option<
    unsafe extern "C" fn(
        key: *const c_char,
        key_length: u32,
        value: *mut c_void,
        data: *mut c_void,
    ) -> c_int,
>;

/// Calls `callback(key, key_length, value, data)` once for every entry. A non-zero return stops the
/// walk and becomes `slate_each`'s result.
///
/// The order is the map's layout: tables in directory order (as `slate_table_info` of
/// `slate-introspect.h` numbers them), then groups, then slots. It depends on the map's seed, so it
/// differs between maps and runs; a clone walks in its source's order. Tools may rely on this to
/// map entries to slots.
///
/// The callback may call anything, on this map too, by the walk rules at the top of this header: a
/// change other than replacing values of present keys or removing the entry it was given (a new
/// key, another removal, clear, compact, reserve, free) stops the walk with `SLATE_ERROR_INVALID`.
/// The `key` pointer is valid during the call, until the callback's own write.
/// Returns `SLATE_OK` after a full walk, the callback's non-zero value, or `SLATE_ERROR_INVALID`
/// for a NULL map or callback, or as above. Allocates nothing.
#[no_mangle]
pub unsafe extern "C" fn slate_each(
    map: *const slate_s,
    callback: slate_each_f,
    data: *mut c_void,
) -> c_int {
    let Some(f) = armed(callback, map) else {
        return INVALID;
    };
    walk_code(unsafe { Map::each(map.cast(), |k, n, v| f(k.cast(), n, v, data)) })
}

/// Deletes every entry for which `predicate(key, key_length, value, data)` returns non-zero, as the
/// walk goes. The predicate sees keys as `slate_each` does and may call anything, as there: after a
/// change to this map other than deleting its own key, the walk stops with `SLATE_ERROR_INVALID`,
/// and an answer that came with a change is not applied. Entries deleted before the walk stopped,
/// or before a predicate left it with `longjmp`, stay deleted.
/// Returns `SLATE_OK` (not a count), or `SLATE_ERROR_INVALID` for a NULL map or predicate, or as
/// above. Allocates nothing.
#[no_mangle]
pub unsafe extern "C" fn slate_delete_if(
    map: *mut slate_s,
    predicate: slate_each_f,
    data: *mut c_void,
) -> c_int {
    let Some(f) = armed(predicate, map) else {
        return INVALID;
    };
    code(unsafe { Map::delete_if::<Guarded>(map.cast(), |k, n, v| f(k.cast(), n, v, data)) })
}

/// A cursor over a map: a position, not a reference. A complete type: put it on the stack or
/// anywhere, place it with `slate_iter`. It holds no memory and needs no release; its fields are
/// private. It holds no pointer either, so every call takes the map, and a map may move (`memcpy`,
/// an array that grows) between calls: its cursors follow it.
///
/// A cursor is stale after any other change to its map: a new key, a delete not made through this
/// cursor (another cursor's included), a `slate_delete_if` from its first deletion on, a
/// `slate_reserve` that allocates or moves entries, and every `slate_clear`, `slate_compact` and
/// `slate_free` carried out (even on an empty map); also once it is given a map other than the one
/// `slate_iter` was given (a clone included). A stale cursor stays stale: its `slate_iter_next` and
/// `slate_iter_delete` return `SLATE_ERROR_INVALID` and change nothing. Replacing the value of a
/// present key, and a call that changes nothing (a failed or refused call, a delete or take of an
/// absent key), leave cursors valid. (A map from zero-filled memory that never had `slate()` has no
/// identity until its first insert or `slate_reserve`: until then a cursor cannot tell it from
/// another such map, all of them empty.)
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

/// The body of a cursor. Every bit pattern is a valid `Iter` (a cursor that `slate_iter` never
/// placed is stale), so `it` need only be NULL or point to a `slate_iter_s`.
unsafe fn cursor<'a>(it: *mut slate_iter_s) -> Result<&'a mut Iter, Error> {
    // SAFETY: the caller's guarantee; the assertions above.
    unsafe { it.cast::<Iter>().as_mut() }.ok_or(Error::Invalid)
}

/// Places `it` before the first entry of `map`, stamped with the map as it is now. Only reads the
/// map: any number of cursors may read one map that nobody modifies, on several threads. Allowed
/// inside the map's own `slate_each` callback. Allocates nothing.
/// Returns `SLATE_OK`, or `SLATE_ERROR_INVALID` for a NULL argument.
#[no_mangle]
pub unsafe extern "C" fn slate_iter(it: *mut slate_iter_s, map: *const slate_s) -> c_int {
    guard(|| {
        let m = unsafe { read(map)? };
        if it.is_null() {
            return Err(Error::Invalid);
        }
        // SAFETY: `it` is writable; its old contents are not read.
        unsafe { it.cast::<Iter>().write(Iter::new(m)) };
        Ok(())
    })
}

/// Moves `it` to the next entry of `map` and gives it: stores its key's address in `*key`, the
/// key's length in `*key_length` and its value in `*value`, each unless NULL. On a map that does
/// not change, entries come in `slate_each`'s order, and a cursor gives every entry present from
/// `slate_iter` to its end exactly once, also while it deletes through `slate_iter_delete`.
///
/// The key bytes (not NUL-terminated) are the map's own copy (an integer key as its 10-byte
/// encoding, which for a table of integer keys is in a buffer inside the cursor): valid until the
/// next call on this cursor, the next modification of the map, or a move of the cursor, whichever
/// comes first. The caller owns neither: never free them. Only reads the map (see `slate_iter`).
/// Returns `SLATE_OK`; `SLATE_ERROR_NOT_FOUND` once every entry has been given (and again on later
/// calls); `SLATE_ERROR_INVALID` for a NULL `it` or `map`, or a stale cursor (see `slate_iter_s`).
/// On an error nothing is stored.
#[no_mangle]
pub unsafe extern "C" fn slate_iter_next(
    it: *mut slate_iter_s,
    map: *const slate_s,
    key: *mut *const c_char,
    key_length: *mut u32,
    value: *mut *mut c_void,
) -> c_int {
    guard(|| {
        let (it, m) = unsafe { (cursor(it)?, read(map)?) };
        let (k, n, v) = m.iter_next(it)?;
        unsafe { (put(key, k.cast()), put(key_length, n), put(value, v)) };
        Ok(())
    })
}

/// Deletes the entry that this cursor's last `slate_iter_next` gave, and frees the map's copy of
/// its key; `it` stays valid and goes on from there (the map's other cursors are stale). A map left
/// empty takes a fresh seed unless it is pinned, as with `slate_delete`.
/// Returns `SLATE_OK`; `SLATE_ERROR_NOT_FOUND` when there is no such entry (before the first
/// `slate_iter_next`, after it returned `SLATE_ERROR_NOT_FOUND`, or after this cursor already
/// deleted it); `SLATE_ERROR_INVALID` for a NULL argument, from inside the map's own walk
/// (`slate_each`, `slate_delete_if`), or for a stale cursor. On an error nothing changed.
#[no_mangle]
pub unsafe extern "C" fn slate_iter_delete(it: *mut slate_iter_s, map: *mut slate_s) -> c_int {
    guard(|| {
        let m = unsafe { write(map)? };
        m.iter_delete(unsafe { cursor(it)? })
    })
}
