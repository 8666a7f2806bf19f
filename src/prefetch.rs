//! The prefetch hint: a request for a cache line that changes nothing but
//! timing. The map's probe and batches and the slotmap's batches use it.

/// Starts loading the cache line at `p`. A hint: it never faults and
/// changes nothing but timing (no-op where no prefetch instruction is
/// used).
pub(crate) fn prefetch(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch never faults, whatever the address.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
