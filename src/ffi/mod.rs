//! The C ABI: thin `extern "C"` shims over [`crate::map::Map`] (`map.rs`) and
//! [`crate::slotmap::SlotMap`] (`slotmap.rs`).
//!
//! Every shim checks its pointers and converts its arguments, and no Rust panic ever unwinds into
//! C. Shims that allocate run their body under `guard` (`catch_unwind`; a panic would be a bug in
//! this crate, and the call then reports `SLATE_ERROR_INVALID`). The hot paths (lookups, and the
//! slotmap's insert without growth and erase) allocate nothing, call nothing that could panic and
//! skip the guard, which would cost a closure call.
//!
//! The walks (SPEC §3c) run their callbacks from **plain frames**: no destructor pending and no
//! `catch_unwind` live across a callback, so that a callback may leave by `longjmp` or end its
//! thread (a forced unwind). Their loops call nothing that could panic; what could (a sort's or
//! clone's allocation) runs under `guard` before or after the callbacks, never around them.
//!
//! `make symbols` checks the compiled library (`scripts/check-unwind.py`): no exported function
//! keeps an unwinding path, and no walk export has a landing pad at all. On WebAssembly a panic
//! aborts.
//!
//! The doc comments here are the header's: cbindgen copies them into `include/slate.h`, and those
//! of `introspect.rs` into `include/slate-introspect.h` (`cbindgen-introspect.toml`). An operation
//! that several key families or structures share (`slate_get`, `slate_get_bytes`, ...;
//! `slotmap_get`, `slotmap_sparse_get`) has one body, generic over what differs, and one full doc,
//! on its first export; the others point to it. Each export that only passes its arguments on is
//! one line, its C signature and the generic it calls, which rustfmt leaves as written
//! (`#[rustfmt::skip]`): cbindgen reads the exports from the source, so they cannot come out of a
//! macro.
//!
//! **Pointers.** Every export takes its pointers under one rule, which the header's preamble states
//! for C ("Pointers in one paragraph", `cbindgen.toml`) and no export's doc repeats: a pointer may
//! be NULL (the export says what that does); any other is good for what the call does with it. A
//! structure pointer points to a structure its initializer set up, or to writable memory for one
//! (an initializer, `slate_iter`, a clone's `copy`); an out-pointer is writable; an array or buffer
//! with a count, length or capacity holds, or has room for, that many items; a string is
//! NUL-terminated; a struct passed by pointer is readable; a function pointer takes the data or
//! context that goes with it and does not unwind. An export's doc says only what it needs beyond
//! this. The crate's `unsafe fn`s here take pointers on the same terms unless their docs say more,
//! and an `unsafe` block that relies on those terms alone needs no `SAFETY` comment.

#![allow(non_camel_case_types)]
// The exports' safety rule is stated once, in the module doc above and the header's preamble.
#![allow(clippy::missing_safety_doc)]

use core::ffi::{c_char, c_int, c_void};
use core::ptr;

use crate::alloc::Allocator;
pub(crate) use crate::guard::{guard, Guarded};
use crate::Error;

// In the header's order (one block each, which rustfmt would sort): the
// map's point calls, its batch lookups, its walks and cursors, the
// slotmap, the sparse sets; then the calls for tools only.
pub mod map;
// (The map's other calls.)
pub mod batch;
pub mod iter;
// (The slotmap and its sparse sets.)
pub mod slotmap;
pub mod snapshot;
pub mod sparse;
// (`include/slate-introspect.h`.)
pub mod introspect;

/// The body of an export that passes its arguments on to the generic that does its work.
macro_rules! call {
    ($e:expr) => {
        // SAFETY: the caller's guarantees, passed on as they are.
        unsafe { $e }
    };
}
pub(crate) use call;

/// Result codes. Every function that can fail returns one of these as an `int`; a call that fails
/// leaves its map exactly as it was.
#[repr(C)]
pub enum slate_error_e {
    /// Success.
    SLATE_OK = 0,
    /// The key is not in the map (not an error in the usual sense).
    SLATE_ERROR_NOT_FOUND = 1,
    /// A NULL map, key or out-pointer, an argument out of range, or a walk stopped by its
    /// callback's change to the walked structure.
    SLATE_ERROR_INVALID = -1,
    /// The allocator returned NULL.
    SLATE_ERROR_ALLOC = -2,
    /// A size limit would be passed.
    SLATE_ERROR_FULL = -3,
    /// Snapshot calls only: the bytes are not a valid snapshot.
    SLATE_ERROR_CORRUPT = -4,
    /// Snapshot calls only: a valid snapshot that this build, platform or destination cannot take.
    SLATE_ERROR_UNSUPPORTED = -5,
}

/// A static, NUL-terminated English sentence that names `code` and says what it means, for example
/// `"SLATE_ERROR_NOT_FOUND: the key is not there"`; `"unknown slate error code"` for any value that
/// is not a `slate_error_e`. Never NULL, never to be freed; allocates nothing and may be called
/// from any thread at any time, as `strerror` without its buffer.
#[no_mangle]
pub extern "C" fn slate_strerror(code: c_int) -> *const c_char {
    const ALLOC: c_int = slate_error_e::SLATE_ERROR_ALLOC as c_int;
    const FULL: c_int = slate_error_e::SLATE_ERROR_FULL as c_int;
    const CORRUPT: c_int = slate_error_e::SLATE_ERROR_CORRUPT as c_int;
    const UNSUPPORTED: c_int = slate_error_e::SLATE_ERROR_UNSUPPORTED as c_int;
    let sentence = match code {
        SLATE_OK => "SLATE_OK: success\0",
        NOT_FOUND => "SLATE_ERROR_NOT_FOUND: the key is not there\0",
        INVALID => "SLATE_ERROR_INVALID: a NULL or bad argument, or a walk stopped by its callback's change to the walked structure\0",
        ALLOC => "SLATE_ERROR_ALLOC: the allocator returned NULL; nothing changed\0",
        FULL => "SLATE_ERROR_FULL: a size limit would be passed; nothing changed\0",
        CORRUPT => "SLATE_ERROR_CORRUPT: the bytes are not a valid snapshot\0",
        UNSUPPORTED => "SLATE_ERROR_UNSUPPORTED: a valid snapshot that this build, platform or destination cannot take\0",
        _ => "unknown slate error code\0",
    };
    sentence.as_ptr().cast()
}

/// A structure's own allocator: `slate_set_allocator`, `slotmap_set_allocator`. `allocate` returns
/// `size` bytes aligned to at least 8, or NULL when it cannot (the call then fails with
/// `SLATE_ERROR_ALLOC` and changes nothing); `release` takes back a block that `allocate` gave,
/// with the `size` it was allocated with. Both get `context` as given; `size` is never 0. Both run
/// on the thread that calls into the structure, and must not call into the structure they serve.
#[repr(C)]
pub struct slate_allocator_s {
    pub allocate: Option<unsafe extern "C" fn(context: *mut c_void, size: usize) -> *mut c_void>,
    pub release:
        Option<unsafe extern "C" fn(context: *mut c_void, pointer: *mut c_void, size: usize)>,
    pub context: *mut c_void,
}

/// `SLATE_OK`, `SLATE_ERROR_NOT_FOUND` and `SLATE_ERROR_INVALID` as `int`s.
pub(crate) const SLATE_OK: c_int = slate_error_e::SLATE_OK as c_int;
pub(crate) const NOT_FOUND: c_int = Error::NotFound as c_int;
pub(crate) const INVALID: c_int = Error::Invalid as c_int;

/// Stores `v` in `*out` unless `out` is NULL (an optional out-parameter).
pub(crate) unsafe fn put<T>(out: *mut T, v: T) {
    if !out.is_null() {
        unsafe { out.write(v) };
    }
}

/// A lookup's answer: `SLATE_OK` after `put(out, v)`, or `SLATE_ERROR_NOT_FOUND` for `None` (`*out`
/// left as it was).
pub(crate) unsafe fn found<T>(v: Option<T>, out: *mut T) -> c_int {
    match v {
        Some(v) => {
            unsafe { put(out, v) };
            SLATE_OK
        }
        None => NOT_FOUND,
    }
}

/// A result as a C code.
pub(crate) fn code(r: Result<(), Error>) -> c_int {
    match r {
        Ok(()) => SLATE_OK,
        Err(e) => e as c_int,
    }
}

/// A walk's result as a C code: the callback's stopping value (0 after a full walk), or the error.
pub(crate) fn walk_code(r: Result<c_int, Error>) -> c_int {
    r.unwrap_or_else(|e| e as c_int)
}

/// A caller-allocated C struct (`slate_s`, `slotmap_s`) and the Rust body that lives in its bytes.
///
/// # Safety
/// `Body` fits in `Self` and needs no stricter alignment.
pub(crate) unsafe trait Shell {
    type Body: Body;
}

/// What every structure's C calls ask of it alike: the bodies of its `clear`, `free`,
/// `set_allocator` and `clone`.
pub(crate) trait Body: Sized {
    fn clear(&mut self);
    fn free(&mut self);
    fn set_allocator(&mut self, alloc: Allocator) -> Result<(), Error>;
    /// A copy with the allocator a clone takes, or the error and the empty structure to leave in
    /// the copy's place.
    fn copy(&self) -> (Result<(), Error>, Self);
}

/// `Body` for a structure type, by its inherent methods; `$empty` makes the empty structure of a
/// failed copy from the source and allocator.
macro_rules! body {
    ($t:ty, |$m:ident, $a:ident| $empty:expr) => {
        impl $crate::ffi::Body for $t {
            fn clear(&mut self) {
                <$t>::clear(self)
            }
            fn free(&mut self) {
                <$t>::free(self)
            }
            fn set_allocator(&mut self, a: Allocator) -> Result<(), Error> {
                <$t>::set_allocator(self, a)
            }
            fn copy(&self) -> (Result<(), Error>, Self) {
                let ($m, $a) = (self, self.clone_allocator());
                match $m.try_clone($a) {
                    Ok(c) => (Ok(()), c),
                    Err(e) => (Err(e), $empty),
                }
            }
        }
    };
}
pub(crate) use body;

/// The body to read.
pub(crate) unsafe fn read<'a, S: Shell>(p: *const S) -> Result<&'a S::Body, Error> {
    // SAFETY: the caller's guarantee; `Shell` guarantees size and alignment.
    unsafe { p.cast::<S::Body>().as_ref() }.ok_or(Error::Invalid)
}

/// The body to modify.
#[inline]
pub(crate) unsafe fn write<'a, S: Shell>(p: *mut S) -> Result<&'a mut S::Body, Error> {
    // SAFETY: the caller's guarantee; `Shell` guarantees size and
    // alignment. A walk of it in progress holds no reference to it across
    // its callback (SPEC §3c), and other threads may not touch a
    // structure that one thread modifies.
    unsafe { p.cast::<S::Body>().as_mut() }.ok_or(Error::Invalid)
}

/// The memory of a struct to initialize (`slate()`, `slotmap()`, the copy of a clone).
#[inline]
pub(crate) fn fresh<S: Shell>(p: *mut S) -> Result<*mut S::Body, Error> {
    if p.is_null() {
        return Err(Error::Invalid);
    }
    Ok(p.cast())
}

// The bodies every structure's exports share.

/// `slate_clear`, `slotmap_clear`, `slotmap_sparse_clear`.
pub(crate) unsafe fn clear<S: Shell>(p: *mut S) -> c_int {
    guard(|| unsafe { write(p) }.map(|b| b.clear()))
}

/// `slate_free`, `slotmap_free`, `slotmap_sparse_free`.
pub(crate) unsafe fn free<S: Shell>(p: *mut S) {
    guard(|| unsafe { write(p) }.map(|b| b.free()));
}

/// `slate_set_allocator` and its kin: `*a`'s functions, or the process default for NULL.
pub(crate) unsafe fn set_allocator<S: Shell>(p: *mut S, a: *const slate_allocator_s) -> c_int {
    guard(|| {
        let body = unsafe { write(p)? };
        body.set_allocator(match unsafe { a.as_ref() } {
            None => Allocator::current(),
            Some(a) => Allocator::own(a.allocate, a.release, a.context)?,
        })
    })
}

/// `slate_clone` and its kin: `copy` (NULL or writable) becomes a copy of `p`, or on failure the
/// empty structure `Body::copy` gives.
pub(crate) unsafe fn clone<S: Shell>(copy: *mut S, p: *const S) -> c_int {
    guard(|| {
        let from = unsafe { read(p)? };
        let at = fresh(copy)?;
        if ptr::eq(copy.cast_const(), p) {
            return Err(Error::Invalid);
        }
        let (result, body) = from.copy();
        // SAFETY: `copy` is writable; its old contents are not read.
        unsafe { at.write(body) };
        result
    })
}

/// A walk's callback, `None` for a NULL one or a NULL structure (the walk's `SLATE_ERROR_INVALID`).
pub(crate) fn armed<F, S>(f: Option<F>, p: *const S) -> Option<F> {
    f.filter(|_| !p.is_null())
}

/// The library's version: `"MAJOR.MINOR.PATCH"`, the crate version it was built from. A program
/// built against this header and linked with this library sees `SLATE_VERSION_STRING`; a program
/// run against another build of the shared library sees that library's version. The string is
/// static: never free it.
#[no_mangle] #[rustfmt::skip]
pub extern "C" fn slate_version() -> *const c_char { VERSION.as_ptr().cast() }

/// The crate version, NUL-terminated for C.
const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "\0");
