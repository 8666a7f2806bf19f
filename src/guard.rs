//! Where a panic stops: no Rust panic unwinds into C.
//!
//! [`guard`] runs Rust code that might panic (an allocation's layout, a
//! bug in this crate) and turns a panic into `SLATE_ERROR_INVALID`. The
//! `catch_unwind` sits in `guarded`, a function of its own behind an
//! `extern "C"` call, which Rust treats as unable to unwind: so a caller of
//! `guard` keeps no unwinding path of its own. `make symbols`
//! (scripts/check-unwind.py) checks the compiled library: no exported
//! function has one, which proves every panic site of an export lies
//! inside a guard.
//!
//! Structures take the guard as a type, [`Guard`]: [`Guarded`] from the C
//! layer, [`Bare`] for the Rust tests and for walks that erase nothing.
//! A panic inside a guard prints nothing (the library never prints); any
//! other still reaches the panic hook that was in force.

use core::cell::Cell;
use core::ffi::{c_int, c_void};
use std::panic::{catch_unwind, set_hook, take_hook, AssertUnwindSafe, PanicHookInfo};
use std::sync::OnceLock;

use crate::Error;

/// Runs code that might panic: the C layer's guard turns a panic into
/// `Err(Error::Invalid)`, so that no unwinding reaches C.
pub(crate) trait Guard {
    fn run(f: impl FnOnce() -> Result<(), Error>) -> Result<(), Error>;
}

/// Runs code bare: for the Rust tests, which have no C boundary to
/// guard, and walks that erase nothing.
pub(crate) struct Bare;

impl Guard for Bare {
    fn run(f: impl FnOnce() -> Result<(), Error>) -> Result<(), Error> {
        f()
    }
}

/// Runs `f`: `SLATE_OK` (0), `f`'s error as its code, or `SLATE_ERROR_INVALID` after a panic.
pub(crate) fn guard<F: FnOnce() -> Result<(), Error>>(f: F) -> c_int {
    let mut f = Some(f);
    // SAFETY: `f` is a live `Option<F>` that `guarded::<F>` reads once.
    unsafe { guarded::<F>((&mut f as *mut Option<F>).cast()) }
}

/// The C layer's [`Guard`] for the parts of `Map` operations that might panic (see
/// `crate::map::write`): `guard`, as a `Result`.
pub(crate) struct Guarded;

impl Guard for Guarded {
    fn run(f: impl FnOnce() -> Result<(), Error>) -> Result<(), Error> {
        match guard(f) {
            0 => Ok(()),
            // SAFETY: `guarded` returns 0 or an `Error`'s value
            // (`f`'s error, or `Error::Invalid`), and `Error`
            // is `repr(i32)`: the code is the error's own value.
            e => Err(unsafe { core::mem::transmute::<c_int, Error>(e) }),
        }
    }
}

/// Safety: `f` points to a `Some` `Option<F>`, taken here.
#[inline(never)]
unsafe extern "C" fn guarded<F: FnOnce() -> Result<(), Error>>(f: *mut c_void) -> c_int {
    // SAFETY: the caller's guarantee.
    let f = unsafe { &mut *f.cast::<Option<F>>() };
    GUARDED.with(|g| g.set(g.get() + 1));
    let result = catch_unwind(AssertUnwindSafe(|| {
        quiet_panics();
        f.take().map_or(Err(Error::Invalid), |f| f())
    }));
    GUARDED.with(|g| g.set(g.get() - 1));
    match result {
        Ok(r) => r.map_or_else(|e| e as c_int, |()| 0),
        Err(payload) => {
            // Dropping a payload runs its destructor, which could panic in
            // turn; leaking it keeps the guard itself from unwinding.
            core::mem::forget(payload);
            Error::Invalid as c_int
        }
    }
}

thread_local! {
    /// Guarded calls in progress on this thread.
    static GUARDED: Cell<u32> = const { Cell::new(0) };
}

/// The panic hook in force before slate's: it still reports every panic outside a guarded call.
static OUTER_HOOK: OnceLock<PanicHook> = OnceLock::new();

type PanicHook = Box<dyn Fn(&PanicHookInfo<'_>) + Sync + Send>;

/// Keeps a panic inside a guarded call off stderr (the library prints nothing; the call reports
/// `SLATE_ERROR_INVALID`): the first guarded call installs a hook that is silent while the thread
/// is inside one and passes any other panic to the hook that was in force. The hook captures
/// nothing, so boxing it allocates nothing.
fn quiet_panics() {
    OUTER_HOOK.get_or_init(|| {
        let outer = take_hook();
        set_hook(Box::new(|info| {
            if GUARDED.with(Cell::get) == 0 {
                if let Some(outer) = OUTER_HOOK.get() {
                    outer(info);
                }
            }
        }));
        outer
    });
}
