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
//!   kept in the structure.
//!
//! # Terms
//!
//! - **Registry**: per thread, the walks it has started and not ended, a
//!   stack of [`Walk`] records in thread-local storage (innermost on top).
//! - **Frame**: [`frame`], the one function every walk runs in.
//! - **Mark**: the address of a word in a walk's frame; the word holds the
//!   walk's **token**, a value drawn for that walk alone.
//! - **Asker**: the frame of `walking_slow`, below every frame of the call
//!   that asks whether a structure is walked.
//! - **Abandoned**: a walk whose frame was left without returning: a C
//!   callback left it with `longjmp`, which skips every Rust frame between
//!   the callback and the `setjmp` without running their code.
//!
//! # Abandoned walks
//!
//! C error handling leaves callbacks with `longjmp` (Lua, libpng and
//! libjpeg do), and the contract allows it: afterwards every call behaves
//! as if the walk had returned. So the registry cannot rely on the walk
//! removing its own record; it recognises abandoned records itself. On a
//! stack that grows down (every target's does), a running walk's frame is
//! an ancestor of every frame that asks from inside its callback:
//!
//! ```text
//!   high addresses   [ caller of slate_each   ]
//!                    [ frame: mark ──> token  ]   running: above the asker,
//!                    [ callback (C) ...       ]   holding its token, and
//!                    [ slate_set              ]   found by the unwinder on
//!   low addresses    [ walking_slow (asker)   ]   the asker's call chain
//! ```
//!
//! A record is judged in three steps, cheapest first:
//!
//! 1. **Position.** A mark at or below the asker lies in stack that has
//!    been left: abandoned.
//! 2. **Token.** A mark above the asker lies in live memory of the asker's
//!    own callers, so it may be read: if its word no longer holds the
//!    token, a frame reused that stack: abandoned. (Under Valgrind a word
//!    that is not defined cannot hold a token, which the walk wrote: it
//!    counts as abandoned without being read.)
//! 3. **Proof.** A word that still holds its token proves nothing: the
//!    frames that reused the stack may have left it unwritten. Only where
//!    the answer matters, for a record of the structure asked about, the
//!    unwinder walks the asker's call chain up to the frame that holds the
//!    mark ([`proof`]): the walk runs exactly when that frame is a
//!    [`frame`] call with the mark at its place in it.
//!
//! Every question to the registry drops the records steps 1 and 2 show
//! abandoned, and so do the start of a walk (which also drops records at
//! or below its own mark) and a thread's exit: the count of walks in
//! progress returns to zero once each abandoned walk's thread calls into
//! the library again, or ends. Tokens are drawn per walk from a counter
//! scrambled by an odd multiplier, so a stale token of another walk never
//! matches. The records are kept in the registry, never in the walks'
//! frames, so judging one never reads a frame that is gone.
//!
//! Where there is no unwinder (WebAssembly), step 3 cannot answer and a
//! record that passed step 2 counts as running: after a `longjmp`, writes
//! to the walked structure from frames deeper than the walk's are refused
//! until the stack there is reused or the thread calls from above it.
//!
//! A walk that allocated scratch memory for its own use (the slotmap's
//! `erase_if` and `sort`) hands it to its record; when the record is
//! dropped as abandoned, the scratch is released with the allocator that
//! gave it, so a `longjmp` leaks nothing.
//!
//! Walks are per thread and per stack: a callback that switches to another
//! stack (a fiber or coroutine) and calls into the library from there is
//! not supported.
//!
//! # Cost
//!
//! `walking(p)` is asked before every modification, so it must be cheap:
//! a process-wide count of the walks in progress on all threads comes
//! first. While it is 0, which is the common case, the answer is no
//! without touching thread-local storage. The count is relaxed: a thread
//! always sees its own increments, and only its own walks matter to it
//! (another thread walking a structure that this one modifies is a data
//! race the contract forbids anyway); other threads' walks only send it
//! to its registry, which then holds none of its own.
//!
//! # Nesting
//!
//! A callback may start another walk (of the same structure or another)
//! up to [`DEPTH`] walks deep on one thread; a walk beyond that is refused
//! with `Error::Full` before it visits anything, since the registry
//! allocates nothing.

use core::cell::{Cell, UnsafeCell};
use core::ptr;
use core::sync::atomic::{AtomicUsize, Ordering};

use crate::alloc::Allocator;
use crate::Error;

/// No scratch memory: for walks that allocate none.
pub const NO_SCRATCH: [Scratch; 2] = [Scratch::NONE; 2];

/// Walks one thread may have in progress at once.
pub const DEPTH: usize = 32;

/// Walks in progress on all threads (records in every registry).
static WALKS: AtomicUsize = AtomicUsize::new(0);

/// Scratch memory a walk owns: released if the walk is abandoned.
#[derive(Clone, Copy)]
pub struct Scratch {
    pub block: *mut u8,
    /// The block's size, as allocated.
    pub bytes: usize,
    pub alloc: Allocator,
}

impl Scratch {
    pub const NONE: Scratch = Scratch {
        block: ptr::null_mut(),
        bytes: 0,
        alloc: Allocator::C,
    };
}

/// One walk in progress.
#[derive(Clone, Copy)]
struct Walk {
    walked: *const (),
    mark: *const u64,
    token: u64,
    scratch: [Scratch; 2],
}

impl Walk {
    const NONE: Walk = Walk {
        walked: ptr::null(),
        mark: ptr::null(),
        token: 0,
        scratch: [Scratch::NONE; 2],
    };
}

/// A running walk, as its body sees it (see [`walk_marked`]): the address
/// of its frame's two words, the token and then the **given** key.
#[derive(Clone, Copy)]
pub struct Mark(*mut u64);

impl Mark {
    /// Records the key the walk's callback is about to get: the one
    /// modification [`erasable`] allows from it. One store into the walk's
    /// own frame.
    #[inline(always)]
    pub fn give(self, key: u64) {
        // SAFETY: the walk runs, so its frame and the word after the mark
        // live; the body holds no reference to them.
        unsafe { ptr::write_volatile(self.0.add(1), key) }
    }
}

/// Whether the calling thread, which walks the structure at `p`, may
/// erase `key` from it: every walk of `p` in progress on this thread gave
/// its callback `key` (a sparse set's walk allows erasing the key it
/// gave, and nothing else). Reads the given word of records that the
/// registry keeps as running, as it reads their tokens.
pub fn erasable(p: *const (), key: u64) -> bool {
    registered(p)
        && with(|r| {
            r.walks[..r.len].iter().filter(|w| w.walked == p).all(|w| {
                let given = w.mark.wrapping_add(1);
                // SAFETY: as in `holds`: a running walk's frame lies above
                // the asker, in live stack of this thread (`registered`
                // dropped the records shown abandoned).
                valgrind::defined(given) && unsafe { ptr::read_volatile(given) } == key
            })
        })
}

/// A thread's walks, innermost last; marks strictly decrease upwards.
struct Registry {
    walks: [Walk; DEPTH],
    len: usize,
    drawn: u64,
}

thread_local! {
    static REGISTRY: UnsafeCell<Registry> = const {
        UnsafeCell::new(Registry { walks: [Walk::NONE; DEPTH], len: 0, drawn: 0 })
    };
    /// Drops the thread's abandoned walks when it ends (registered by its
    /// first walk).
    static AT_EXIT: Exit = const { Exit(Cell::new(false)) };
}

struct Exit(Cell<bool>);

impl Drop for Exit {
    fn drop(&mut self) {
        // Every frame of the thread is gone: no walk is live.
        drop_where(|_, _| true);
    }
}

/// Runs `f` on this thread's registry. `f` calls nothing outside this
/// module, so the access is never re-entered.
fn with<R>(f: impl FnOnce(&mut Registry) -> R) -> R {
    // SAFETY: the registry is this thread's; `f` does not call back into
    // `with` (see above), so this is its only reference.
    REGISTRY.with(|r| f(unsafe { &mut *r.get() }))
}

/// Whether the calling thread is walking the structure at `p`.
pub fn walking(p: *const ()) -> bool {
    any() && walking_slow(p)
}

/// Whether any thread is walking anything: if not, no structure is walked
/// by this one (it sees its own walks' increments).
pub fn any() -> bool {
    WALKS.load(Ordering::Relaxed) != 0
}

/// The C layer asks this outside its unwinding guard (the hot paths
/// have none): a panic here, which nothing should raise, is caught and
/// answered "walking" (the call is refused), and the C ABI tells callers
/// that nothing unwinds out of it.
#[inline(never)]
extern "C" fn walking_slow(p: *const ()) -> bool {
    std::panic::catch_unwind(|| registered(p)).unwrap_or(true)
}

/// Whether a walk of `p` this thread registered still runs (see the
/// module docs).
fn registered(p: *const ()) -> bool {
    let here = 0u64;
    let here = core::hint::black_box(ptr::addr_of!(here)) as usize;
    drop_abandoned(here);
    // The innermost record of `p` decides; one that `proof` shows
    // abandoned goes, and the next one is asked.
    loop {
        let Some(mark) = with(|r| {
            r.walks[..r.len]
                .iter()
                .rev()
                .find(|w| w.walked == p)
                .map(|w| w.mark)
        }) else {
            return false;
        };
        if proof::live(mark) != Some(false) {
            return true;
        }
        drop_where(|w, _| w.mark == mark);
    }
}

/// Drops the records this thread's frame at `here` shows abandoned.
fn drop_abandoned(here: usize) {
    drop_where(|w, _| !above(w.mark, here) || !holds(w.mark, w.token));
}

/// Whether `mark` lies above (was pushed before) the frame at `here`.
/// Miri places every local in an allocation of its own, unordered, and
/// runs no `longjmp`: there every mark counts as above.
fn above(mark: *const u64, here: usize) -> bool {
    cfg!(miri) || mark as usize > here
}

/// Removes the records for which `gone(record, index)` holds and releases
/// their scratch. Records are judged innermost first.
fn drop_where(mut gone: impl FnMut(&Walk, usize) -> bool) {
    loop {
        // Find and unlink one record (innermost first), then release its
        // scratch outside the registry: a user's allocator may call into
        // the library.
        let found = with(|r| {
            let i = (0..r.len).rev().find(|&i| gone(&r.walks[i], i))?;
            let w = r.walks[i];
            r.walks.copy_within(i + 1..r.len, i);
            r.len -= 1;
            Some(w)
        });
        let Some(w) = found else { return };
        WALKS.fetch_sub(1, Ordering::Relaxed);
        for s in w.scratch {
            // SAFETY: the walk that owned the block was abandoned: nothing
            // uses it any more, and it came from `s.alloc`.
            unsafe { s.alloc.free(s.block, s.bytes) };
        }
    }
}

/// Whether the word at `mark` (above the caller's frame) holds `token`.
fn holds(mark: *const u64, token: u64) -> bool {
    if !valgrind::defined(mark) {
        return false;
    }
    // SAFETY: `mark` lies above the asking frame, in live stack of this
    // thread, and is 8-aligned (it was a `u64` local).
    unsafe { ptr::read_volatile(mark) == token }
}

/// Runs `body` as a walk of the structure at `p`: `walking(p)` holds
/// meanwhile, on this thread. `scratch` is released if the walk is
/// abandoned (left by `longjmp`) and belongs to the caller otherwise.
/// `Error::Full` when this thread already runs [`DEPTH`] walks.
pub fn walk<R>(p: *const (), scratch: [Scratch; 2], body: impl FnOnce() -> R) -> Result<R, Error> {
    walk_marked(p, scratch, |_| body())
}

/// [`walk`], its body given the walk's [`Mark`].
pub fn walk_marked<R>(
    p: *const (),
    scratch: [Scratch; 2],
    body: impl FnOnce(Mark) -> R,
) -> Result<R, Error> {
    let mut body = Some(body);
    let mut out = None;
    // Opaque, so that the optimizer keeps one `frame` for every body
    // instead of a copy specialised to each (`proof` knows one).
    let body: &mut dyn FnMut(Mark) = &mut |m| out = body.take().map(|b| b(m));
    if frame(p, scratch, core::hint::black_box(body)) {
        Ok(out.expect("the body ran"))
    } else {
        Err(Error::Full)
    }
}

/// The frame of every walk: holds the word the mark points to while
/// `body` runs; false (and `body` not run) when the registry is full.
///
/// One function for every walk, never inlined: the mark lies in a frame of
/// its own, below the frame of any walk this one is nested in (two inlined
/// walks would share one frame, in no order), and `proof` recognises the
/// frame by its return address and the mark's place in it (under LTO an
/// inlined `frame` let writes from a callback through unrefused).
#[inline(never)]
fn frame(p: *const (), scratch: [Scratch; 2], body: &mut dyn FnMut(Mark)) -> bool {
    /// Ends the walk, also when `body` unwinds: drops its record, which
    /// keeps no scratch (that stays with the caller), and any record above
    /// it: walks nested in this one that were left by `longjmp` to a point
    /// inside it, whose scratch is released.
    struct End(*const u64);
    impl Drop for End {
        fn drop(&mut self) {
            let mark = self.0;
            let own = with(|r| {
                let i = r.walks[..r.len].iter().position(|w| w.mark == mark)?;
                r.walks[i].scratch = [Scratch::NONE; 2];
                Some(i)
            });
            if let Some(i) = own {
                drop_where(|_, j| j >= i);
            }
        }
    }
    // Fails only while the thread ends, after its exit check ran.
    let _ = AT_EXIT.try_with(|e| e.0.set(true));
    let token = with(|r| {
        r.drawn = r.drawn.wrapping_add(1);
        r.drawn.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1
    });
    // The token, then the key the body last gave (`Mark::give`).
    let mut words = [token, 0u64];
    let own = ptr::addr_of_mut!(words).cast::<u64>();
    let mark = own.cast_const();
    // Records at or below this frame were abandoned.
    drop_where(|w, _| !above(w.mark, mark as usize));
    if with(|r| r.len) == DEPTH {
        drop_abandoned(mark as usize);
    }
    let pushed = with(|r| {
        if r.len == DEPTH {
            return false;
        }
        r.walks[r.len] = Walk {
            walked: p,
            mark,
            token,
            scratch,
        };
        r.len += 1;
        true
    });
    if !pushed {
        return false;
    }
    WALKS.fetch_add(1, Ordering::Relaxed);
    let _end = End(mark);
    body(Mark(own));
    // Keeps `words` in memory, holding the token, until the walk ends.
    core::hint::black_box(&words);
    true
}

/// Whether a walk still runs, proved from the call stack: the unwinder
/// walks this thread's frames up from the asker to the frame that holds
/// the walk's mark. The walk runs exactly when that frame is a [`frame`]
/// call, known by its return address and the mark's offset from the frame's
/// canonical frame address (both the same for every walk; learnt once, from
/// a walk known to run).
mod proof {
    /// `Some(true)` or `Some(false)`; `None` where the unwinder cannot tell
    /// (no unwinder on the target, or a frame without unwind tables).
    #[cfg(not(any(miri, target_family = "wasm")))]
    pub fn live(mark: *const u64) -> Option<bool> {
        let (ip, offset) = shape()?;
        let (held_ip, held_offset) = holder(mark as usize)?;
        Some(held_ip == ip && held_offset == offset)
    }

    #[cfg(any(miri, target_family = "wasm"))]
    pub fn live(_: *const u64) -> Option<bool> {
        None
    }

    #[cfg(not(any(miri, target_family = "wasm")))]
    use unwind::{holder, shape};

    #[cfg(not(any(miri, target_family = "wasm")))]
    mod unwind {
        use core::ffi::{c_int, c_void};
        use core::sync::atomic::{AtomicUsize, Ordering};

        use super::super::{frame, Mark, NO_SCRATCH};

        /// `struct _Unwind_Context`, opaque.
        type Context = c_void;
        type Trace = extern "C" fn(*mut Context, *mut c_void) -> c_int;

        extern "C" {
            fn _Unwind_Backtrace(trace: Trace, arg: *mut c_void) -> c_int;
            fn _Unwind_GetIP(context: *mut Context) -> usize;
            fn _Unwind_GetCFA(context: *mut Context) -> usize;
        }

        /// `_URC_NO_REASON`: go on; `_URC_NORMAL_STOP`: stop.
        const GO_ON: c_int = 0;
        const STOP: c_int = 4;

        /// The holding frame's return address and CFA − mark, as learnt;
        /// 0 before.
        static IP: AtomicUsize = AtomicUsize::new(0);
        static OFFSET: AtomicUsize = AtomicUsize::new(0);

        /// The frame that holds `mark` (the innermost whose CFA lies above
        /// it): the address its callee returns to, and its CFA − mark.
        ///
        /// The unwinder pairs each frame's CFA with the address that frame
        /// returns to, in its caller: the holder's own code address is the
        /// one paired with its callee's CFA, the step before.
        pub fn holder(mark: usize) -> Option<(usize, usize)> {
            struct Search {
                mark: usize,
                callee_returns_to: usize,
                found: Option<(usize, usize)>,
            }
            extern "C" fn step(context: *mut Context, arg: *mut c_void) -> c_int {
                // SAFETY: `arg` is the `Search` below, alive for the
                // backtrace; `context` is the unwinder's current frame.
                unsafe {
                    let s = &mut *arg.cast::<Search>();
                    let cfa = _Unwind_GetCFA(context);
                    if cfa > s.mark {
                        s.found = Some((s.callee_returns_to, cfa - s.mark));
                        return STOP;
                    }
                    s.callee_returns_to = _Unwind_GetIP(context);
                }
                GO_ON
            }
            let mut s = Search {
                mark,
                callee_returns_to: 0,
                found: None,
            };
            // SAFETY: `step` only reads the unwinder's context and writes
            // `s`, which outlives the call.
            unsafe { _Unwind_Backtrace(step, (&mut s as *mut Search).cast()) };
            s.found
        }

        /// The return address and offset of a running walk's frame.
        pub fn shape() -> Option<(usize, usize)> {
            let ip = IP.load(Ordering::Acquire);
            if ip != 0 {
                return Some((ip, OFFSET.load(Ordering::Relaxed)));
            }
            let mut found = None;
            // A walk of nothing, known to run while its body asks.
            let body: &mut dyn FnMut(Mark) = &mut |mark| found = holder(mark.0 as usize);
            frame(core::ptr::null(), NO_SCRATCH, core::hint::black_box(body));
            let (ip, offset) = found?;
            OFFSET.store(offset, Ordering::Relaxed);
            IP.store(ip, Ordering::Release);
            Some((ip, offset))
        }
    }
}

/// Memcheck's client requests, where Valgrind can run us (x86-64 Linux):
/// the magic instruction sequence is a no-op on a real CPU.
mod valgrind {
    /// Whether the 8 bytes at `p` are defined (always, outside Valgrind).
    #[cfg(all(target_arch = "x86_64", target_os = "linux", not(miri)))]
    pub fn defined(p: *const u64) -> bool {
        /// `VG_USERREQ_TOOL_BASE('M','C') + 8`: memcheck's GET_VBITS.
        const GET_VBITS: u64 = ((b'M' as u64) << 24 | (b'C' as u64) << 16) + 8;
        let mut vbits = 0u64;
        let args: [u64; 6] = [GET_VBITS, p as u64, ptr_u64(&mut vbits), 8, 0, 0];
        let mut result: u64 = 0;
        // SAFETY: the special sequence rotates rdi by 128 bits in all (no
        // change) and exchanges rbx with itself; under Valgrind it asks
        // memcheck to copy the validity bits of 8 bytes into `vbits`.
        unsafe {
            core::arch::asm!(
                "rol rdi, 3", "rol rdi, 13", "rol rdi, 61", "rol rdi, 51",
                "xchg rbx, rbx",
                inout("rdx") result,
                in("rax") args.as_ptr(),
                out("rdi") _,
                options(nostack),
            );
        }
        // 0: not under Valgrind; 1: `vbits` written (a set bit is an
        // undefined one); else the bytes are not addressable.
        match result {
            0 => true,
            1 => core::hint::black_box(vbits) == 0,
            _ => false,
        }
    }

    #[cfg(all(target_arch = "x86_64", target_os = "linux", not(miri)))]
    fn ptr_u64(p: &mut u64) -> u64 {
        p as *mut u64 as u64
    }

    #[cfg(not(all(target_arch = "x86_64", target_os = "linux", not(miri))))]
    pub fn defined(_: *const u64) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NO: [Scratch; 2] = NO_SCRATCH;

    #[test]
    fn walks_nest_and_end() {
        let (x, y) = (0u8, 0u8);
        let (a, b): (*const (), *const ()) = ((&x as *const u8).cast(), (&y as *const u8).cast());
        assert!(!walking(a));
        walk(a, NO, || {
            assert!(walking(a) && !walking(b));
            walk(b, NO, || assert!(walking(a) && walking(b))).unwrap();
            walk(a, NO, || assert!(walking(a))).unwrap();
            assert!(walking(a) && !walking(b));
        })
        .unwrap();
        assert!(!walking(a) && !walking(b));
    }

    fn nest(depth: usize, p: *const (), deepest: &mut Option<Result<(), Error>>) {
        if depth == 0 {
            *deepest = Some(walk(p, NO, || ()));
            return;
        }
        walk(p, NO, || nest(depth - 1, p, deepest)).unwrap();
    }

    #[test]
    fn walks_nest_to_their_depth() {
        let x = 0u8;
        let a: *const () = (&x as *const u8).cast();
        let mut deepest = None;
        nest(DEPTH - 1, a, &mut deepest);
        assert_eq!(deepest, Some(Ok(())));
        nest(DEPTH, a, &mut deepest);
        assert_eq!(deepest, Some(Err(Error::Full)));
        assert!(!walking(a));
        assert_eq!(with(|r| r.len), 0);
    }

    #[test]
    #[cfg_attr(miri, ignore = "Miri's locals are not ordered as a stack")]
    fn marks_fall_as_walks_nest() {
        let x = 0u8;
        let a: *const () = (&x as *const u8).cast();
        walk(a, NO, || {
            walk(a, NO, || {
                with(|r| {
                    assert_eq!(r.len, 2);
                    assert!((r.walks[1].mark as usize) < r.walks[0].mark as usize);
                })
            })
            .unwrap()
        })
        .unwrap();
    }

    #[test]
    #[cfg_attr(any(miri, target_family = "wasm"), ignore = "no unwinder")]
    fn the_unwinder_proves_running_walks_live() {
        let (x, y) = (0u8, 0u8);
        let (a, b): (*const (), *const ()) = ((&x as *const u8).cast(), (&y as *const u8).cast());
        let marks = || with(|r| r.walks[..r.len].iter().map(|w| w.mark).collect::<Vec<_>>());
        let outer = walk(a, NO, || {
            let inner = walk(b, NO, || {
                let m = marks();
                assert_eq!(m.len(), 2);
                m.iter().all(|&m| proof::live(m) == Some(true))
            });
            (inner, marks())
        })
        .unwrap();
        assert_eq!(outer.0, Ok(true));
        // A mark of a walk that has ended is not a running walk's.
        assert_eq!(proof::live(outer.1[0]), Some(false));
    }

    /// Registers a record as a walk would, without the walk: what a walk
    /// left by `longjmp` leaves behind.
    fn abandon(walked: *const (), mark: *const u64, token: u64) {
        with(|r| {
            r.walks[r.len] = Walk {
                walked,
                mark,
                token,
                scratch: NO,
            };
            r.len += 1;
        });
        WALKS.fetch_add(1, Ordering::Relaxed);
    }

    /// The address of a word in a frame that has returned.
    #[inline(never)]
    fn left_frame() -> *const u64 {
        let word = 5u64;
        core::hint::black_box(ptr::addr_of!(word))
    }

    #[test]
    #[cfg_attr(miri, ignore = "Miri's locals are not ordered as a stack")]
    fn a_record_below_the_asker_is_dropped() {
        let x = 0u8;
        let a: *const () = (&x as *const u8).cast();
        abandon(a, left_frame(), 5);
        // Asked from a frame as deep as `left_frame`'s was.
        assert!(!walking(a));
        assert_eq!(with(|r| r.len), 0);
    }

    #[test]
    fn a_record_whose_word_lost_its_token_is_dropped() {
        let (x, y) = (0u8, 0u8);
        let (a, b): (*const (), *const ()) = ((&x as *const u8).cast(), (&y as *const u8).cast());
        let word = core::hint::black_box(7u64);
        abandon(a, ptr::addr_of!(word), 8);
        // Any question drops it, also one about another structure.
        assert!(!walking(b));
        assert_eq!(with(|r| r.len), 0);
    }

    #[test]
    #[cfg_attr(any(miri, target_family = "wasm"), ignore = "no unwinder")]
    fn a_record_held_by_no_walk_frame_is_dropped_when_its_structure_is_asked() {
        let (x, y) = (0u8, 0u8);
        let (a, b): (*const (), *const ()) = ((&x as *const u8).cast(), (&y as *const u8).cast());
        // A word above the asker that holds the token: only the unwinder
        // can tell that no walk's frame holds it.
        let word = core::hint::black_box(9u64);
        abandon(a, ptr::addr_of!(word), 9);
        assert!(!walking(b));
        assert_eq!(with(|r| r.len), 1, "kept while nobody asks about a");
        assert!(!walking(a));
        assert_eq!(with(|r| r.len), 0);
        core::hint::black_box(&word);
    }

    #[test]
    #[cfg_attr(target_family = "wasm", ignore = "no threads on wasm32-wasip1")]
    fn another_threads_walk_is_not_this_threads() {
        let x = 0u8;
        let a = &x as *const u8 as usize;
        let (started, done) = (std::sync::Barrier::new(2), std::sync::Barrier::new(2));
        std::thread::scope(|s| {
            s.spawn(|| {
                walk(a as *const (), NO, || {
                    started.wait();
                    done.wait();
                })
                .unwrap()
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
        let r = std::panic::catch_unwind(|| walk(a, NO, || panic!("inside")));
        assert!(r.is_err());
        assert!(!walking(a));
    }
}
