//! Walks in progress: which structures the calling thread is walking.
//!
//! A callback of `slate_each`, `slate_delete_if`, `slotmap_each`,
//! `slotmap_erase_if` or `slotmap_sort` may read the structure it walks
//! but not modify it; the C layer refuses such calls. The walk mark lives
//! here, not in the structure, for two reasons:
//!
//! - **Concurrent readers.** A walk is a read. Several threads may walk one
//!   structure that nobody modifies; a mark written into it would be a
//!   data race.
//! - **Re-initialisation.** `slate()` or `slotmap()` from inside a walk of
//!   the same structure must be refused too, and it would overwrite a mark
//!   kept in the structure (its counter then underflowed).
//!
//! # How
//!
//! Each thread keeps a stack of the addresses it is walking, as a linked
//! list of frames on its own call stack (a walk's frame lives in the
//! function running the walk; nothing is allocated, nesting is unbounded):
//!
//! ```text
//! TOP ──> [ B | outer ] ──> [ A | outer ] ──> null
//!          a walk of B, run by a callback of the walk of A
//! ```
//!
//! `walking(p)` is asked before every modification, so it must be cheap:
//! a process-wide count of the walks in progress on all threads comes
//! first. While it is 0, which is the common case, the answer is no
//! without touching thread-local storage. The count is relaxed: a thread
//! always sees its own increments, and only its own walks matter to it
//! (another thread walking a structure that this one modifies is a data
//! race the contract forbids anyway); other threads' walks only send it
//! down the list, which then holds none of its own.

use core::cell::Cell;
use core::ptr;
use core::sync::atomic::{AtomicUsize, Ordering};

/// Walks in progress on all threads.
static WALKS: AtomicUsize = AtomicUsize::new(0);

/// One walk: the structure's address and the walk around it.
struct Frame {
    walked: *const (),
    outer: *const Frame,
}

thread_local! {
    /// The innermost walk of this thread.
    static TOP: Cell<*const Frame> = const { Cell::new(ptr::null()) };
}

/// Whether this thread is walking the structure at `p`.
#[inline(always)]
pub fn walking(p: *const ()) -> bool {
    any() && walking_slow(p)
}

/// Whether any thread is walking anything: if not, no structure is walked
/// by this one (it sees its own walks' increments).
#[inline(always)]
pub fn any() -> bool {
    WALKS.load(Ordering::Relaxed) != 0
}

#[inline(never)]
fn walking_slow(p: *const ()) -> bool {
    let mut f = TOP.with(Cell::get);
    while !f.is_null() {
        // SAFETY: frames on the list are live: each is popped (by `Pop`)
        // before the function holding it returns or unwinds.
        let frame = unsafe { &*f };
        if frame.walked == p {
            return true;
        }
        f = frame.outer;
    }
    false
}

/// Runs `body` as a walk of the structure at `p`: `walking(p)` holds
/// meanwhile, on this thread.
pub fn walk<R>(p: *const (), body: impl FnOnce() -> R) -> R {
    /// Pops the frame, also when `body` unwinds.
    struct Pop(*const Frame);
    impl Drop for Pop {
        fn drop(&mut self) {
            // SAFETY: the frame is still live (it is popped first).
            let outer = unsafe { (*self.0).outer };
            TOP.with(|t| t.set(outer));
            WALKS.fetch_sub(1, Ordering::Relaxed);
        }
    }
    let frame = Frame {
        walked: p,
        outer: TOP.with(Cell::get),
    };
    TOP.with(|t| t.set(&frame));
    WALKS.fetch_add(1, Ordering::Relaxed);
    let _pop = Pop(&frame);
    body()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_nest_and_end() {
        let (x, y) = (0u8, 0u8);
        let (a, b): (*const (), *const ()) = ((&x as *const u8).cast(), (&y as *const u8).cast());
        assert!(!walking(a));
        walk(a, || {
            assert!(walking(a) && !walking(b));
            walk(b, || assert!(walking(a) && walking(b)));
            walk(a, || assert!(walking(a)));
            assert!(walking(a) && !walking(b));
        });
        assert!(!walking(a) && !walking(b));
    }

    #[test]
    #[cfg_attr(target_family = "wasm", ignore = "no threads on wasm32-wasip1")]
    fn another_threads_walk_is_not_this_threads() {
        let x = 0u8;
        let a = &x as *const u8 as usize;
        let (started, done) = (std::sync::Barrier::new(2), std::sync::Barrier::new(2));
        std::thread::scope(|s| {
            s.spawn(|| {
                walk(a as *const (), || {
                    started.wait();
                    done.wait();
                })
            });
            started.wait();
            assert!(!walking(a as *const ()));
            done.wait();
        });
    }

    #[test]
    #[cfg_attr(panic = "abort", ignore = "panics abort here (wasm)")]
    fn a_panic_inside_a_walk_ends_it() {
        let x = 0u8;
        let a: *const () = (&x as *const u8).cast();
        let r = std::panic::catch_unwind(|| walk(a, || panic!("inside")));
        assert!(r.is_err());
        assert!(!walking(a));
    }
}
