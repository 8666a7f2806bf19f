//! The allocator: every byte the library holds comes from here.
//!
//! A structure (map, slotmap) records its allocator when it is
//! initialized, so memory always goes back to the functions that gave it.
//! An [`Allocator`] is one of three:
//!
//! - **the C library's** `malloc`/`calloc`/`free`, the process default
//!   until a program says otherwise;
//! - **hooks**: three functions with the C library's contracts, installed
//!   as the process default by `slate_use_allocator` (or the header's
//!   `SLATE_MALLOC`/`SLATE_CALLOC`/`SLATE_FREE`, which call it from a
//!   constructor) for structures initialized afterwards;
//! - **the structure's own** (`slate_set_allocator`,
//!   `slotmap_set_allocator`): `allocate` and `release` with the user's
//!   context, `release` told the size that was allocated.
//!
//! All three fit in three words, the size of the user's
//! `slate_allocator_s`, so a structure holds one without growing: hooks are
//! kept once, for the life of the process, in a list of records (a program
//! installs few), and a structure's allocator points to its record.
//!
//! Every release passes the size of the allocation, so every owner knows
//! the size of each block it holds. Every allocation is fallible: a NULL
//! from the allocator becomes [`Error::Alloc`], never an abort. Sizes are
//! computed with checked arithmetic; a size that cannot exist is
//! [`Error::Full`]. No size passed to an allocator is 0.
//!
//! The C contract guarantees nothing beyond 8-byte alignment, so callers
//! needing more must align by hand (the slotmap does).

use core::ffi::c_void;
use core::ptr;
use std::sync::Mutex;

use crate::Error;

pub type MallocFn = unsafe extern "C" fn(size: usize) -> *mut c_void;
pub type CallocFn = unsafe extern "C" fn(count: usize, size: usize) -> *mut c_void;
pub type FreeFn = unsafe extern "C" fn(pointer: *mut c_void);
pub type AllocateFn = unsafe extern "C" fn(context: *mut c_void, size: usize) -> *mut c_void;
pub type ReleaseFn = unsafe extern "C" fn(context: *mut c_void, pointer: *mut c_void, size: usize);

extern "C" {
    fn malloc(size: usize) -> *mut c_void;
    fn calloc(count: usize, size: usize) -> *mut c_void;
    fn free(pointer: *mut c_void);
}

/// Installed hooks, kept for the life of the process.
struct Hooks {
    malloc: MallocFn,
    calloc: CallocFn,
    free: FreeFn,
    /// The hooks installed before (the list of every triple ever installed).
    older: Option<&'static Hooks>,
}

/// The process default: `None` is the C library's.
struct Installed {
    current: Option<&'static Hooks>,
    /// Every triple installed so far, newest first.
    known: Option<&'static Hooks>,
}

static DEFAULT: Mutex<Installed> = Mutex::new(Installed {
    current: None,
    known: None,
});

/// One of the three kinds of allocator (see the module docs). All-zero
/// bytes are the C library's, so a zero-filled structure has a valid one.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Allocator {
    /// The structure's own functions; `None` for the process default.
    allocate: Option<AllocateFn>,
    release: Option<ReleaseFn>,
    /// With own functions, their context. Without, a `&'static Hooks`, or
    /// NULL for the C library's functions.
    context: *mut c_void,
}

impl Default for Allocator {
    fn default() -> Allocator {
        Allocator::C
    }
}

impl Allocator {
    /// The C library's functions.
    pub const C: Allocator = Allocator {
        allocate: None,
        release: None,
        context: ptr::null_mut(),
    };

    /// The structure's own allocator: both functions, or `Error::Invalid`.
    pub fn own(
        allocate: Option<AllocateFn>,
        release: Option<ReleaseFn>,
        context: *mut c_void,
    ) -> Result<Allocator, Error> {
        match (allocate, release) {
            (Some(_), Some(_)) => Ok(Allocator {
                allocate,
                release,
                context,
            }),
            _ => Err(Error::Invalid),
        }
    }

    /// Whether this is a structure's own allocator (kept by its clones),
    /// not the process default it was given.
    pub fn is_own(&self) -> bool {
        self.allocate.is_some()
    }

    /// The allocator for a clone of a structure that has `self`: its own
    /// allocator is inherited; otherwise the default in force now.
    pub fn for_clone(&self) -> Allocator {
        if self.is_own() {
            *self
        } else {
            Allocator::current()
        }
    }

    /// The allocator new structures take: the process default.
    pub fn current() -> Allocator {
        // A poisoned lock still holds a whole value (it is `Copy`).
        let hooks = DEFAULT.lock().unwrap_or_else(|e| e.into_inner()).current;
        Allocator {
            allocate: None,
            release: None,
            context: hooks.map_or(ptr::null_mut(), |h| ptr::from_ref(h).cast_mut().cast()),
        }
    }

    /// Makes the hooks (all three, or none for the C library's) the
    /// default of structures initialized from now on. `Error::Invalid` for
    /// a partial set; `Error::Alloc` if the record of a triple never
    /// installed before cannot be allocated.
    pub fn install(
        malloc_fn: Option<MallocFn>,
        calloc_fn: Option<CallocFn>,
        free_fn: Option<FreeFn>,
    ) -> Result<(), Error> {
        let mut d = DEFAULT.lock().unwrap_or_else(|e| e.into_inner());
        d.current = match (malloc_fn, calloc_fn, free_fn) {
            (None, None, None) => None,
            (Some(m), Some(c), Some(f)) => Some(d.record(m, c, f)?),
            _ => return Err(Error::Invalid),
        };
        Ok(())
    }

    fn hooks(&self) -> Option<&'static Hooks> {
        // SAFETY: without own functions, a non-NULL context is a
        // `&'static Hooks` made by `current`.
        unsafe { self.context.cast::<Hooks>().cast_const().as_ref() }
    }

    /// `size` bytes, 8-aligned, or `Error::Alloc`.
    pub fn alloc(&self, size: usize) -> Result<*mut u8, Error> {
        let size = size.max(1);
        // SAFETY: calling an allocation function with a non-zero size is
        // always sound; NULL only means failure.
        let p = unsafe {
            match (self.allocate, self.hooks()) {
                (Some(f), _) => f(self.context, size),
                (None, Some(h)) => (h.malloc)(size),
                (None, None) => {
                    let p = malloc(size);
                    if !p.is_null() {
                        advise_huge(p.cast(), size);
                    }
                    p
                }
            }
        };
        if p.is_null() {
            Err(Error::Alloc)
        } else {
            Ok(p.cast())
        }
    }

    /// `count * size` zeroed bytes, or `Error::Alloc`. Released with the
    /// size `count * size`.
    pub fn alloc_zeroed(&self, count: usize, size: usize) -> Result<*mut u8, Error> {
        let bytes = count.checked_mul(size).ok_or(Error::Full)?;
        // SAFETY: as in `alloc`; the product was checked above.
        let p = unsafe {
            match (self.allocate, self.hooks()) {
                (Some(_), _) => {
                    let p = self.alloc(bytes)?;
                    ptr::write_bytes(p, 0, bytes);
                    return Ok(p);
                }
                (None, Some(h)) => (h.calloc)(count.max(1), size.max(1)),
                (None, None) => calloc(count.max(1), size.max(1)),
            }
        };
        if p.is_null() {
            Err(Error::Alloc)
        } else {
            Ok(p.cast())
        }
    }

    /// Returns memory from `alloc`/`alloc_zeroed` of this same allocator;
    /// `size` is the size it was allocated with. NULL does nothing.
    ///
    /// # Safety
    /// `p` is NULL or came from this allocator with `size` bytes and is not
    /// used afterwards.
    pub unsafe fn free(&self, p: *mut u8, size: usize) {
        if p.is_null() {
            return;
        }
        // SAFETY: the caller guarantees `p` came from this allocator.
        unsafe {
            match (self.release, self.hooks()) {
                (Some(f), _) => f(self.context, p.cast(), size.max(1)),
                (None, Some(h)) => (h.free)(p.cast()),
                (None, None) => free(p.cast()),
            }
        }
    }
}

impl Installed {
    /// The record of a triple, made on its first install.
    fn record(
        &mut self,
        malloc_fn: MallocFn,
        calloc_fn: CallocFn,
        free_fn: FreeFn,
    ) -> Result<&'static Hooks, Error> {
        let mut at = self.known;
        while let Some(h) = at {
            if ptr::fn_addr_eq(h.malloc, malloc_fn)
                && ptr::fn_addr_eq(h.calloc, calloc_fn)
                && ptr::fn_addr_eq(h.free, free_fn)
            {
                return Ok(h);
            }
            at = h.older;
        }
        // SAFETY: a fresh allocation for one `Hooks`, written before it is
        // read and never freed (structures keep pointing to it).
        let h = unsafe {
            let p = malloc(size_of::<Hooks>()).cast::<Hooks>();
            if p.is_null() {
                return Err(Error::Alloc);
            }
            p.write(Hooks {
                malloc: malloc_fn,
                calloc: calloc_fn,
                free: free_fn,
                older: self.known,
            });
            &*p
        };
        self.known = Some(h);
        Ok(h)
    }
}

/// Bytes of physical memory, where the platform tells it (Linux: its
/// pages times the page size). A plan larger than this cannot be met: an
/// overcommitting system would grant the allocations and then kill the
/// process when it touched them, instead of failing one.
#[cfg(all(target_os = "linux", not(miri)))]
pub fn physical_memory() -> Option<u64> {
    // sysconf's names on Linux (glibc, musl and bionic agree).
    const SC_PAGESIZE: core::ffi::c_int = 30;
    const SC_PHYS_PAGES: core::ffi::c_int = 85;
    extern "C" {
        fn sysconf(name: core::ffi::c_int) -> core::ffi::c_long;
    }
    // SAFETY: sysconf reads a system setting; no memory is involved.
    let (pages, size) = unsafe { (sysconf(SC_PHYS_PAGES), sysconf(SC_PAGESIZE)) };
    if pages <= 0 || size <= 0 {
        return None;
    }
    (pages as u64).checked_mul(size as u64)
}

/// Elsewhere (and under Miri) the address space is the only bound known.
#[cfg(not(all(target_os = "linux", not(miri))))]
pub fn physical_memory() -> Option<u64> {
    None
}

/// Asks Linux to back the 2 MiB-aligned interior of a large allocation of
/// the C library's `malloc` with transparent huge pages (where the system
/// leaves that to programs: `madvise` mode). A random lookup in a slotmap
/// of a million rows touches two blocks of 8 and 16 MiB; in 4 KiB pages
/// nearly every such access also misses the TLB. Advice only: a refusal
/// changes nothing, and memory of a user's allocator is left alone.
#[cfg(target_os = "linux")]
fn advise_huge(p: *mut u8, size: usize) {
    const MADV_HUGEPAGE: core::ffi::c_int = 14;
    /// Allocations from this size up ask for transparent huge pages.
    const HUGE: usize = 4 << 20;
    /// The huge page size on x86-64 and arm64 (4 KiB base pages).
    const HUGE_PAGE: usize = 2 << 20;
    extern "C" {
        fn madvise(addr: *mut c_void, len: usize, advice: core::ffi::c_int) -> core::ffi::c_int;
    }
    if size < HUGE {
        return;
    }
    let start = (p as usize).next_multiple_of(HUGE_PAGE);
    let end = (p as usize + size) & !(HUGE_PAGE - 1);
    if end > start {
        // SAFETY: the range lies inside an allocation we own; the advice
        // does not change its contents.
        unsafe { madvise(start as *mut c_void, end - start, MADV_HUGEPAGE) };
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge(_p: *mut u8, _size: usize) {}
