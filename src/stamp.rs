//! Stamps: what a walk remembers of the structure it walks while a
//! callback runs, and how it tells what the callback changed.
//!
//! # Terms
//!
//! - **Epoch**: a structure's count of its changes, 64 bits wide, started
//!   for each structure at a point of its own (`seed::stamp`). A change is
//!   what makes a map cursor stale (SPEC §3b, §3c): a new key, a removal,
//!   `clear`, `compact`, a `reserve` that moves entries, a sort, a prune,
//!   `free`, re-initialisation. Replacing the value of a present key is
//!   none, nor is a call that changes nothing.
//! - **Stamp**: a structure's epoch and length, taken just before a
//!   callback runs.
//! - **Given entry**: the entry (key) the callback was just handed.
//!
//! # After a callback
//!
//! A walk keeps no state outside its own frame: a callback may call
//! anything on the walked structure, which does what it does outside a
//! walk. When the callback returns, the walk compares the structure's
//! header with its stamp, never reading memory the callback may have
//! freed:
//!
//! ```text
//!   epoch              length           given entry    what the walk does
//!   same               (same)           (there)        Same: goes on
//!   stamp + 1          stamp - 1        gone           Removed: goes on
//!   anything           0, was 1         (gone)         Removed: ends
//!   anything else                                      Changed: stops
//! ```
//!
//! One removal moves no other entry of a map and frees no memory of any
//! structure, and it is the only change that both bumps the epoch once
//! and lowers the length by one. So in the second row the structure's
//! memory is the memory the walk knew, and asking whether the given entry
//! is gone (a map's control byte, a slotmap's or set's index) is safe;
//! it is asked nowhere else.
//!
//! A walk over dense rows (a slotmap's, a set's) stays on the current row
//! after a removal: swap-and-pop moved the last row, not yet visited,
//! into it. A map's entries do not move: its walk goes on from its
//! position.

/// What a callback did to the structure a walk walks.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum After {
    /// Nothing, or values of present keys replaced.
    Same,
    /// The given entry removed, and nothing else.
    Removed,
    /// Anything else: the walk stops with `SLATE_ERROR_INVALID`.
    Changed,
}

/// What a stamp reads of a structure's header.
pub trait Header {
    fn epoch(&self) -> u64;
    fn count(&self) -> u64;
}

/// A structure's epoch and length before a callback.
#[derive(Clone, Copy)]
pub struct Stamp {
    epoch: u64,
    len: u64,
}

impl Stamp {
    /// A stamp no structure matches until it is taken.
    pub const NONE: Stamp = Stamp { epoch: 0, len: 0 };

    #[inline]
    pub fn of(h: &impl Header) -> Stamp {
        Stamp {
            epoch: h.epoch(),
            len: h.count(),
        }
    }

    /// Whether `h` is unchanged since the stamp was taken.
    #[inline]
    pub fn same(&self, h: &impl Header) -> bool {
        h.epoch() == self.epoch
    }

    /// What happened to `h` since the stamp was taken; `gone` tells
    /// whether the given entry is absent, and is asked only where the
    /// table above allows. On `Removed` the stamp becomes `h`'s.
    #[inline]
    pub fn after(&mut self, h: &impl Header, gone: impl FnOnce() -> bool) -> After {
        let epoch = h.epoch();
        if epoch == self.epoch {
            return After::Same;
        }
        let len = h.count();
        let removed = (len == 0 && self.len == 1)
            || (epoch == self.epoch.wrapping_add(1) && len.wrapping_add(1) == self.len && gone());
        if removed {
            *self = Stamp::of(h);
            After::Removed
        } else {
            After::Changed
        }
    }
}

/// Dense rows a walk visits in order: a slotmap's, a sparse set's.
pub trait Rows: Header {
    /// The key of row `r`, if `r` is below the length.
    fn key_at(&self, r: u32) -> Option<u64>;
    /// Column 0's element of row `r` (below the length); NULL where there
    /// is none.
    fn element(&self, r: u32) -> *mut u8;
    /// Whether `key` is present.
    fn has(&self, key: u64) -> bool;
    /// Removes row `r` (below the length) by swap-and-pop, as an erase of
    /// its key does.
    fn erase_row(&mut self, r: u32);
}

/// Walks the rows of `this` in dense order, calling `f(key, element)`
/// for each, as SPEC §3c says:
///
/// - `ERASE` false (`each`): a non-zero answer stops the walk and is its
///   result, whatever the callback changed;
/// - `ERASE` true (`erase_if`): a non-zero answer, given with no change,
///   erases the row (swap-and-pop), and the walk stays on the row; an
///   answer given with a change is not applied.
///
/// `Ok(0)` after the last row; `Err(Invalid)` when a callback changed the
/// structure otherwise than by removing its given key. Nothing is held
/// across `f`: no reference to the structure, nothing to drop.
///
/// # Safety
/// `this` points to a live structure, which only `f` (and, with `ERASE`,
/// this walk) modifies while the walk runs.
pub unsafe fn walk_rows<D: Rows, const ERASE: bool>(
    this: *mut D,
    mut f: impl FnMut(u64, *mut u8) -> i32,
) -> Result<i32, crate::Error> {
    let mut r = 0u32;
    loop {
        // SAFETY: `this` is live; the look ends before `f` runs.
        let (key, element, mut stamp) = unsafe {
            let d = &*this;
            match d.key_at(r) {
                Some(key) => (key, d.element(r), Stamp::of(d)),
                None => return Ok(0),
            }
        };
        let rc = f(key, element);
        // SAFETY: `this` is still live (a structure `f` freed or
        // re-initialised is an empty one); the look ends here.
        let after = unsafe {
            let d = &*this;
            stamp.after(d, || !d.has(key))
        };
        match after {
            After::Same if rc != 0 && ERASE => {
                // SAFETY: as above; row `r` is still below the length.
                unsafe { (*this).erase_row(r) }
            }
            After::Same if rc == 0 => r += 1,
            After::Removed if rc == 0 || ERASE => {}
            After::Changed if rc == 0 || ERASE => return Err(crate::Error::Invalid),
            _ => return Ok(rc),
        }
    }
}
