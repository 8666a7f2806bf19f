//! The slotmap: a generational arena with dense rows.
//!
//! # Why
//!
//! An entity table wants three things at once: keys that stay valid however
//! many other rows come and go, rows packed without holes so a loop over
//! them streams memory, and stale keys caught rather than silently reading a
//! newer row. A hash map gives the first, a vector the second, neither the
//! third. The slotmap gives all three, each operation O(1).
//!
//! # Terms
//!
//! - **row**: one record, stored at a dense index `0 .. length`; rows move
//!   (erase fills a hole with the last row, `sort` reorders them).
//! - **column**: one field of every row, stored as its own array (structure
//!   of arrays) of `size`-byte elements, 16-byte aligned. A slotmap has one
//!   to [`MAX_COLUMNS`] columns; row `r` of each column belongs to the same
//!   record.
//! - **slot**: an entry of the sparse index, which never moves: a
//!   **version** and, while occupied, the row of its record (while vacant,
//!   the next vacant slot: the free list).
//! - **key**: `version << 32 | slot`. Versions of occupied slots are odd,
//!   of vacant ones even, so the key `0` (slot 0, version 0) is never
//!   valid, and erasing a row (version + 1) makes every key to it stale.
//!
//! ```text
//!  key (v7, slot 2)      sparse index            dense rows      reverse
//!        |               slot v   row/next       row  column 0   row -> slot
//!        +-------------> 0   v3   row 1          0    [..]       0 -> 3
//!                        1   v4   next: -        1    [..]       1 -> 0
//!                        2   v7   row 2   -----> 2    [..]       2 -> 2
//!                        3   v1   row 0          (free list head: slot 1)
//! ```
//!
//! # Operations
//!
//! - **insert** pops the most recently freed slot (or appends one), makes
//!   its version odd, appends the row, records `reverse[row] = slot`.
//! - **get** checks the key's version against its slot's: one load, one
//!   compare, then the row.
//! - **erase** moves the last row into the hole (swap-and-pop) and repairs
//!   the moved row's slot through `reverse`: O(1), rows stay packed.
//! - **each** and **erase_if** walk the rows in dense order as
//!   `crate::stamp` says: a callback may call anything, and after it
//!   erased the key it was given (or `erase_if` erased a row it chose) the
//!   walk stays on the row that swap-and-pop refilled.
//! - **sort** computes a permutation (heapsort over row numbers, by column
//!   0) in scratch the slotmap keeps, applies it in place (cycle by cycle,
//!   swapping rows), and rewrites the index in one pass (`scratch`).
//!
//! A slot's version only grows. One whose version would leave the
//! versions its slotmap may hand out is retired (never reused), so a stale
//! key never validates again. Each slotmap starts its versions at a random
//! odd number (from its own stream, see [`crate::seed`]), so a key from
//! another slotmap is almost never valid here either (it would have to
//! name an occupied slot with the same version). After `free`, new slots
//! take versions the slotmap never handed out, above or below all of them
//! (`Versions`), so old keys stay stale however their slots retired.
//!
//! # Memory
//!
//! Per row: the columns' sizes, plus 4 bytes of reverse map; per slot, 8
//! bytes of sparse index. One allocation holds all columns and the reverse
//! map; it doubles when full, as does the sparse index. Every allocation is
//! fallible and goes through the slotmap's allocator; a failed call changes
//! nothing.
//!
//! # When to choose what
//!
//! Choose the slotmap when records are created and destroyed often, are
//! referred to from elsewhere by key, and are processed in bulk (systems
//! loops over columns). Choose the map (`slate_s`) to find records by a
//! natural key (a name, an id from outside). A plain array is enough when
//! nothing refers to rows by a lasting key.

mod batch;
mod bulk;
mod check;
pub(crate) mod columns;
pub(crate) mod image;
pub(crate) mod scratch;
#[cfg(test)]
mod tests;

use core::ptr;

use crate::alloc::Allocator;
use crate::seed::slotmap_generation;
use crate::Error;
use scratch::Scratch;

use columns::{copy_in, copy_simple};

/// Columns a slotmap may have.
pub const MAX_COLUMNS: usize = 16;
/// Alignment of every column.
pub const COLUMN_ALIGN: usize = 16;
/// No slot (the end of the free list).
const NONE: u32 = u32::MAX;
/// Rows (and slots) a slotmap can ever hold; `NONE` stays free as a marker.
pub const MAX_ROWS: u32 = u32::MAX - 1;

/// What the sparse index records for one slot: the slot's version, and
/// the row it holds or the vacant slot after it.
#[repr(C)]
#[derive(Clone, Copy)]
struct Link {
    version: u32,
    /// Occupied: the row. Vacant: the next vacant slot, or `NONE`.
    link: u32,
}

/// Which versions a slotmap hands out, so that no key it ever issued
/// validates again, however often its slots are reused or the slotmap is
/// cleared or freed.
///
/// An **era** runs from the slotmap's creation, or from a `free`, to the
/// next `free`. New slots start at `next`; a slot's version grows by 2 per
/// reuse and the slot retires rather than pass the era's last version. Every version
/// issued so far lies in `lowest ..= highest`, where `highest` is the
/// era's top when a `free` ends it: its last version if a slot retired
/// (it got there), else the highest version a slot carries. The next era starts
/// above `highest`, or when no room is left there, below `lowest`:
///
/// ```text
/// era 0     [ start ............................ u32::MAX ]   a slot retired
/// era 1     [ 1 ...... start - 2 ]                               below the first
/// era 2     none left: inserts that need a new slot are Full
/// ```
///
/// Versions are odd while their slot is occupied and even while it is
/// vacant; 0 marks a retired slot (no key has version 0).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Versions {
    /// The version a new slot starts at (odd); 0 when none is left.
    next: u32,
    /// One below the highest version a slot may take in this era (that
    /// is odd): a slot erased at this version or above retires. Kept so,
    /// rather than as the highest, so that the erase path compares once.
    retire_at: u32,
    /// The lowest version any era handed out.
    lowest: u32,
    /// The highest version an earlier era handed out (0: none).
    highest: u32,
    /// Whether a slot retired in this era (so that it reached `last`).
    retired: u32,
}

impl Versions {
    /// A new slotmap's: a random start (odd, below 2^30) and all the room
    /// above it.
    fn new(start: u32) -> Versions {
        Versions {
            next: start,
            retire_at: u32::MAX - 1,
            lowest: start,
            highest: 0,
            retired: 0,
        }
    }

    /// Whether a slot whose (odd) version is `v` may be reused: its next
    /// version, `v + 2`, is still in the era.
    fn reusable(&self, v: u32) -> bool {
        v < self.retire_at
    }

    /// The highest version a slot may take in this era.
    fn last(&self) -> u32 {
        self.retire_at + 1
    }

    /// Ends the era whose slots carried at most `top` (with `retired`
    /// accounted for) and starts the next one, above or below every
    /// version handed out.
    fn next_era(&mut self, top: u32) {
        let top = if self.retired != 0 { self.last() } else { top }.max(self.highest);
        self.highest = top;
        self.retired = 0;
        if self.next == 0 {
            return;
        }
        if top <= u32::MAX - 2 {
            self.next = (top + 1) | 1;
            self.retire_at = u32::MAX - 1;
        } else if self.lowest >= 3 {
            self.next = 1;
            self.retire_at = (self.lowest - 2) | 1;
            self.retire_at -= 1;
            self.lowest = 1;
        } else {
            self.next = 0;
            self.retire_at = 0;
        }
    }
}

/// A slotmap; the body of the C `slotmap_s`.
#[repr(C)]
pub struct SlotMap {
    len: u32,
    /// Rows the dense block holds.
    cap: u32,
    /// Slots in use in the sparse index (occupied, vacant or retired).
    slots: u32,
    /// Slots the sparse index has room for.
    slot_cap: u32,
    free_head: u32,
    /// Vacant slots on the free list.
    free_len: u32,
    limit: u32,
    columns: u32,
    /// Sum of the column sizes: a packed row.
    row_size: u32,
    /// The versions this slotmap may still hand out (see [`Versions`]).
    versions: Versions,
    sizes: [u32; MAX_COLUMNS],
    sparse: *mut Link,
    /// The dense block as allocated (columns are aligned inside it).
    block: *mut u8,
    /// Column 0's first element (the hot path of `get`).
    col0: *mut u8,
    /// The reverse map (row -> slot), after the columns in the block.
    rev: *mut u32,
    alloc: Allocator,
    /// Counts the changes (see `crate::stamp`), from a start of its own.
    epoch: u64,
    /// A sort's order, kept by the slotmap (see `scratch.rs`).
    scratch: Scratch,
}

/// An insert that found no room: the dense block or the sparse index must
/// grow first (see [`SlotMap::try_insert`]).
#[derive(Clone, Copy, Debug)]
pub struct Grow;

/// Allocations replaced by a growth, freed once nothing reads them.
struct Retired {
    block: *mut u8,
    block_bytes: usize,
    sparse: *mut u8,
    sparse_bytes: usize,
}

impl Default for Retired {
    fn default() -> Retired {
        Retired {
            block: ptr::null_mut(),
            block_bytes: 0,
            sparse: ptr::null_mut(),
            sparse_bytes: 0,
        }
    }
}

/// A version to start from: random, odd, far enough from wrapping that a
/// slot can be reused about a billion times.
fn start_version() -> u32 {
    slotmap_generation()
}

impl SlotMap {
    /// An empty slotmap of the given column sizes (validated by the caller:
    /// 1 to `MAX_COLUMNS` columns, each of at least one byte).
    pub fn new(sizes: &[u32], alloc: Allocator) -> Result<SlotMap, Error> {
        if sizes.is_empty() || sizes.contains(&0) {
            return Err(Error::Invalid);
        }
        if sizes.len() > MAX_COLUMNS {
            return Err(Error::Full);
        }
        let row_size = sizes
            .iter()
            .try_fold(0u32, |a, &s| a.checked_add(s))
            .ok_or(Error::Full)?;
        let mut fixed = [0u32; MAX_COLUMNS];
        fixed[..sizes.len()].copy_from_slice(sizes);
        Ok(SlotMap {
            len: 0,
            cap: 0,
            slots: 0,
            slot_cap: 0,
            free_head: NONE,
            free_len: 0,
            limit: MAX_ROWS,
            columns: sizes.len() as u32,
            row_size,
            versions: Versions::new(start_version()),
            sizes: fixed,
            sparse: ptr::null_mut(),
            block: ptr::null_mut(),
            col0: ptr::null_mut(),
            rev: ptr::null_mut(),
            alloc,
            epoch: crate::seed::stamp(),
            scratch: Scratch::NONE,
        })
    }

    #[inline]
    pub fn len(&self) -> u32 {
        self.len
    }

    /// A change (see `crate::stamp`).
    #[inline]
    pub(crate) fn bump_epoch(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
    }

    pub fn column_count(&self) -> u32 {
        self.columns
    }

    #[inline]
    fn slot(&self, i: u32) -> Link {
        debug_assert!(i < self.slots);
        // SAFETY: `i` is below `slots`, all of which are initialized.
        unsafe { *self.sparse.add(i as usize) }
    }

    #[inline]
    fn slot_mut(&mut self, i: u32) -> &mut Link {
        debug_assert!(i < self.slots);
        // SAFETY: as in `slot`; `&mut self` makes the access unique.
        unsafe { &mut *self.sparse.add(i as usize) }
    }

    /// The row of a valid key.
    #[inline]
    pub fn row_of(&self, key: u64) -> Option<u32> {
        let index = key as u32;
        let version = (key >> 32) as u32;
        if index >= self.slots {
            return None;
        }
        let s = self.slot(index);
        // Vacant slots have even versions; valid keys odd ones.
        if s.version == version && version & 1 == 1 {
            Some(s.link)
        } else {
            None
        }
    }

    /// Column 0's element of a valid key.
    #[inline]
    pub fn get(&self, key: u64) -> Option<*mut u8> {
        self.row_of(key).map(|row| self.element(row))
    }

    /// Column 0's element of `row`.
    #[inline]
    pub fn element(&self, row: u32) -> *mut u8 {
        self.col0
            .wrapping_add(row as usize * self.sizes[0] as usize)
    }

    /// The key that owns `row`.
    pub fn key_at(&self, row: u32) -> Option<u64> {
        if row >= self.len {
            return None;
        }
        // SAFETY: rows below `len` have a reverse entry.
        let slot = unsafe { *self.reverse().add(row as usize) };
        Some(((self.slot(slot).version as u64) << 32) | slot as u64)
    }

    /// A fixed capacity: inserts beyond `max_rows` fail with `Full`.
    /// `u32::MAX` (or anything above `MAX_ROWS`) means no limit.
    pub fn set_limit(&mut self, max_rows: u32) -> Result<(), Error> {
        if max_rows < self.len {
            return Err(Error::Invalid);
        }
        self.limit = max_rows.min(MAX_ROWS);
        Ok(())
    }

    /// Copies one packed row in (NULL: zeroes) and returns its key.
    ///
    /// # Safety
    /// `row` is NULL or points to `row_size` readable bytes.
    #[cfg(test)]
    pub unsafe fn insert(&mut self, row: *const u8) -> Result<u64, Error> {
        // SAFETY: the caller's guarantee.
        unsafe {
            self.try_insert(row, |m, r| match r {
                Ok(r) => r,
                Err(grow) => m.insert_growing(grow, row),
            })
        }
    }

    /// The one insert, without growing: hands `then` the key, an error, or
    /// `Err(Grow)` (nothing done) when the dense block or the sparse index
    /// must grow first, for [`SlotMap::insert_growing`] to finish. Nothing
    /// here allocates or can panic.
    ///
    /// The commonest case (`simple_rows`, a row given, room for it and its
    /// slot) is handled here; the others in `try_insert_other`, which calls
    /// `then` itself.
    ///
    /// # Safety
    /// As for `insert`.
    pub unsafe fn try_insert<R>(
        &mut self,
        row: *const u8,
        then: impl FnOnce(&mut Self, Result<Result<u64, Error>, Grow>) -> R,
    ) -> R {
        if self.simple_rows() && !row.is_null() && self.room() == Ok(true) {
            let size = self.sizes[0] as usize;
            let key = self.take_slot(|m, r| {
                // SAFETY: row `r` of the one column is inside the block
                // (`r < cap`); `row` has `size` bytes.
                let dst = unsafe { m.col0.add(r as usize * size) };
                // SAFETY: as above; `simple_rows` checked the size.
                unsafe { copy_simple(row, dst, size) }
            });
            return then(self, Ok(Ok(key)));
        }
        // SAFETY: the caller's guarantee.
        unsafe { self.try_insert_other(row, then) }
    }

    /// `try_insert` for every case but the commonest.
    ///
    /// # Safety
    /// As for `insert`.
    #[inline(never)]
    unsafe fn try_insert_other<R>(
        &mut self,
        row: *const u8,
        then: impl FnOnce(&mut Self, Result<Result<u64, Error>, Grow>) -> R,
    ) -> R {
        let r = match self.room() {
            Err(e) => Ok(Err(e)),
            Ok(false) => Err(Grow),
            // SAFETY: the caller's guarantee; there is room for a row and a
            // slot.
            Ok(true) => Ok(Ok(unsafe { self.place(row) })),
        };
        then(self, r)
    }

    /// Finishes an insert that `try_insert` left to it: grows, then places.
    ///
    /// # Safety
    /// As for `insert`.
    pub unsafe fn insert_growing(&mut self, _: Grow, row: *const u8) -> Result<u64, Error> {
        let new_slot = (self.free_head == NONE) as u32;
        let retired = self.grow(self.len + 1, new_slot)?;
        // SAFETY: the caller's guarantee; `grow` made room for a row and a
        // slot.
        let key = unsafe { self.place(row) };
        // Only now: `row` may have pointed into the old block.
        self.release(retired);
        Ok(key)
    }

    /// Whether an insert fits without allocating: `Err(Full)` at the limit
    /// (or with versions used up), `Ok(false)` when the dense block or the
    /// sparse index must grow first.
    #[inline(always)]
    fn room(&self) -> Result<bool, Error> {
        if self.len >= self.limit {
            return Err(Error::Full);
        }
        if self.free_head != NONE {
            return Ok(self.len < self.cap);
        }
        if self.versions.next == 0 {
            // Every version was used up by slots created before a `free`.
            return Err(Error::Full);
        }
        Ok(self.len < self.cap && self.slots < self.slot_cap)
    }

    /// Takes a slot (from the free list, else a new one), copies `row` into
    /// dense row `len` and returns the key.
    ///
    /// # Safety
    /// `row` as for `insert`; `len < cap`, and a free slot or
    /// `slots < slot_cap`.
    unsafe fn place(&mut self, row: *const u8) -> u64 {
        self.take_slot(|m, r| {
            if m.columns == 1 {
                let size = m.sizes[0] as usize;
                // SAFETY: row `r` of column 0 is inside the block
                // (`r < cap`); `row` has `size` bytes when not NULL.
                unsafe {
                    let dst = m.col0.add(r as usize * size);
                    if row.is_null() {
                        ptr::write_bytes(dst, 0, size);
                    } else {
                        copy_in(row, dst, size);
                    }
                }
            } else {
                // SAFETY: as above.
                unsafe { m.copy_in_columns(row, r) };
            }
        })
    }

    /// Takes a slot (from the free list, else a new one) for dense row
    /// `len`, has `fill(self, len)` write the row, and returns the key.
    /// Needs `len < cap`, and a free slot or `slots < slot_cap`.
    fn take_slot(&mut self, fill: impl FnOnce(&mut Self, u32)) -> u64 {
        let r = self.len;
        let (index, version) = if self.free_head == NONE {
            let i = self.slots;
            self.slots += 1;
            (i, self.versions.next)
        } else {
            let i = self.free_head;
            self.free_head = self.slot(i).link;
            self.free_len -= 1;
            // Vacant versions are even: the next odd one occupies it.
            (i, self.slot(i).version + 1)
        };
        *self.slot_mut(index) = Link { version, link: r };
        fill(self, r);
        // SAFETY: the reverse map has `cap > r` entries.
        unsafe { *self.rev.add(r as usize) = index };
        self.len += 1;
        self.bump_epoch();
        ((version as u64) << 32) | index as u64
    }

    /// Marks a slot vacant (stale keys) and frees it for reuse, unless its
    /// version is used up.
    fn vacate(&mut self, index: u32) {
        let head = self.free_head;
        let reusable = self.versions.reusable(self.slot(index).version);
        if !reusable {
            // Retired: version 0 is vacant and never handed out again.
            *self.slot_mut(index) = Link {
                version: 0,
                link: NONE,
            };
            self.versions.retired = 1;
            return;
        }
        let s = self.slot_mut(index);
        s.version += 1;
        s.link = head;
        self.free_head = index;
        self.free_len += 1;
    }

    /// The reverse map and the moved row's slot, after a row move.
    fn move_index(&mut self, from: u32, to: u32) {
        // SAFETY: both rows have reverse entries.
        let slot = unsafe {
            let slot = *self.rev.add(from as usize);
            *self.rev.add(to as usize) = slot;
            slot
        };
        self.slot_mut(slot).link = to;
    }

    /// Swap-and-pop erase. Simple rows move with `move_row_fast`; others
    /// take `erase_general`.
    #[inline(always)]
    pub fn erase(&mut self, key: u64) -> Result<(), Error> {
        if self.simple_rows() {
            self.erase_with::<true>(key)
        } else {
            self.erase_general(key)
        }
    }

    fn erase_general(&mut self, key: u64) -> Result<(), Error> {
        self.erase_with::<false>(key)
    }

    /// The erase itself; `SIMPLE`: the rows are `simple_rows`.
    #[inline(always)]
    fn erase_with<const SIMPLE: bool>(&mut self, key: u64) -> Result<(), Error> {
        let row = self.row_of(key).ok_or(Error::NotFound)?;
        let last = self.len - 1;
        if row != last {
            if SIMPLE {
                self.move_row_fast(last, row);
            } else {
                self.move_row(last, row);
            }
        }
        self.vacate(key as u32);
        self.len -= 1;
        self.bump_epoch();
        Ok(())
    }
}
