//! The allocator: every byte the library holds comes from here.
//!
//! A map (and a slotmap) records its allocator when it is initialized, so
//! memory is always returned to the functions that gave it. The process-wide
//! default is the C library's `malloc`/`calloc`/`free`; `slate_use_allocator`
//! (or the header's `SLATE_MALLOC`/`SLATE_CALLOC`/`SLATE_FREE` hooks, which
//! call it from a constructor) replaces it for structures initialized
//! afterwards.
//!
//! Every allocation is fallible: a NULL from the allocator becomes
//! [`Error::Alloc`], never an abort. Sizes are computed with checked
//! arithmetic; a size that cannot exist is [`Error::Full`].
//!
//! The C contract guarantees nothing beyond `malloc`'s alignment, so callers
//! needing more than 8 bytes must align by hand (the slotmap does).

use core::ffi::c_void;
use std::sync::Mutex;

use crate::Error;

pub type MallocFn = unsafe extern "C" fn(size: usize) -> *mut c_void;
pub type CallocFn = unsafe extern "C" fn(count: usize, size: usize) -> *mut c_void;
pub type FreeFn = unsafe extern "C" fn(pointer: *mut c_void);

extern "C" {
    fn malloc(size: usize) -> *mut c_void;
    fn calloc(count: usize, size: usize) -> *mut c_void;
    fn free(pointer: *mut c_void);
}

/// Three C allocation functions; `None` everywhere means the C library's.
/// All-zero bytes are the default allocator, so a zeroed struct is valid.
#[repr(C)]
#[derive(Clone, Copy, Default, Debug)]
pub struct Allocator {
    malloc: Option<MallocFn>,
    calloc: Option<CallocFn>,
    free: Option<FreeFn>,
}

static DEFAULT: Mutex<Allocator> = Mutex::new(Allocator::C);

impl Allocator {
    /// The C library's functions.
    pub const C: Allocator = Allocator {
        malloc: None,
        calloc: None,
        free: None,
    };

    /// Builds an allocator from user functions: all three or none.
    pub fn new(
        malloc: Option<MallocFn>,
        calloc: Option<CallocFn>,
        free: Option<FreeFn>,
    ) -> Result<Allocator, Error> {
        match (malloc.is_some(), calloc.is_some(), free.is_some()) {
            (true, true, true) | (false, false, false) => Ok(Allocator {
                malloc,
                calloc,
                free,
            }),
            _ => Err(Error::Invalid),
        }
    }

    /// The allocator new structures take.
    pub fn current() -> Allocator {
        // A poisoned lock still holds a whole value (it is `Copy`).
        *DEFAULT.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Makes `self` the allocator of structures initialized from now on.
    pub fn install(self) {
        *DEFAULT.lock().unwrap_or_else(|e| e.into_inner()) = self;
    }

    /// `size` bytes, aligned as `malloc` aligns (at least 8 on every target
    /// we build for), or `Error::Alloc`.
    pub fn alloc(&self, size: usize) -> Result<*mut u8, Error> {
        // SAFETY: calling a C allocation function with a size is always
        // sound; a zero size is bumped to 1 so NULL only means failure.
        let p = unsafe {
            match self.malloc {
                Some(f) => f(size.max(1)),
                None => malloc(size.max(1)),
            }
        };
        if p.is_null() {
            return Err(Error::Alloc);
        }
        if self.malloc.is_none() {
            advise_huge(p.cast(), size);
        }
        Ok(p.cast())
    }

    /// `count * size` zeroed bytes, or `Error::Alloc`.
    pub fn alloc_zeroed(&self, count: usize, size: usize) -> Result<*mut u8, Error> {
        if count.checked_mul(size).is_none() {
            return Err(Error::Full);
        }
        // SAFETY: as in `alloc`; the product was checked above.
        let p = unsafe {
            match self.calloc {
                Some(f) => f(count.max(1), size.max(1)),
                None => calloc(count.max(1), size.max(1)),
            }
        };
        if p.is_null() {
            Err(Error::Alloc)
        } else {
            Ok(p.cast())
        }
    }

    /// Returns memory from `alloc`/`alloc_zeroed` of this same allocator.
    ///
    /// # Safety
    /// `p` is NULL or came from this allocator and is not used afterwards.
    pub unsafe fn free(&self, p: *mut u8) {
        if p.is_null() {
            return;
        }
        // SAFETY: the caller guarantees `p` came from this allocator.
        unsafe {
            match self.free {
                Some(f) => f(p.cast()),
                None => free(p.cast()),
            }
        }
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
