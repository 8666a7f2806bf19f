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
//! - **erase_if** asks the predicate about every row first (so the
//!   predicate sees a consistent slotmap), then compresses every column in
//!   one pass and rewrites the index for the survivors as it goes.
//! - **sort** computes a permutation (heapsort over row numbers, by column
//!   0), gathers every column into a new block in that order, and rewrites
//!   the index from the permutation in one pass.
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

use core::mem::size_of;
use core::ptr;

use crate::alloc::Allocator;
use crate::seed::slotmap_generation;
use crate::walk;
use crate::Error;

/// Columns a slotmap may have.
pub const MAX_COLUMNS: usize = 16;
/// Alignment of every column.
pub const COLUMN_ALIGN: usize = 16;
/// No slot (the end of the free list).
const NONE: u32 = u32::MAX;
/// Rows (and slots) a slotmap can ever hold; `NONE` stays free as a marker.
pub const MAX_ROWS: u32 = u32::MAX - 1;

/// One entry of the sparse index.
#[repr(C)]
#[derive(Clone, Copy)]
struct Slot {
    version: u32,
    /// Occupied: the row. Vacant: the next vacant slot, or `NONE`.
    link: u32,
}

/// Which versions a slotmap hands out, so that no key it ever issued
/// validates again, however often its slots are reused or the slotmap is
/// cleared or freed.
///
/// An **epoch** runs from the slotmap's creation, or from a `free`, to the
/// next `free`. New slots start at `next`; a slot's version grows by 2 per
/// reuse and the slot retires rather than pass the epoch's last version. Every version
/// issued so far lies in `lowest ..= highest`, where `highest` is the
/// epoch's top when a `free` ends it: its last version if a slot retired
/// (it got there), else the highest version a slot carries. The next epoch starts
/// above `highest`, or when no room is left there, below `lowest`:
///
/// ```text
/// epoch 0     [ start ............................ u32::MAX ]   a slot retired
/// epoch 1     [ 1 ...... start - 2 ]                               below the first
/// epoch 2     none left: inserts that need a new slot are Full
/// ```
///
/// Versions are odd while their slot is occupied and even while it is
/// vacant; 0 marks a retired slot (no key has version 0).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Versions {
    /// The version a new slot starts at (odd); 0 when none is left.
    next: u32,
    /// One below the highest version a slot may take in this epoch (that
    /// is odd): a slot erased at this version or above retires. Kept so,
    /// rather than as the highest, so that the erase path compares once.
    retire_at: u32,
    /// The lowest version any epoch handed out.
    lowest: u32,
    /// The highest version an earlier epoch handed out (0: none).
    highest: u32,
    /// Whether a slot retired in this epoch (so that it reached `last`).
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
    /// version, `v + 2`, is still in the epoch.
    #[inline(always)]
    fn reusable(&self, v: u32) -> bool {
        v < self.retire_at
    }

    /// The highest version a slot may take in this epoch.
    fn last(&self) -> u32 {
        self.retire_at + 1
    }

    /// Ends the epoch whose slots carried at most `top` (with `retired`
    /// accounted for) and starts the next one, above or below every
    /// version handed out.
    fn next_epoch(&mut self, top: u32) {
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
    sparse: *mut Slot,
    /// The dense block as allocated (columns are aligned inside it).
    block: *mut u8,
    /// Column 0's first element (the hot path of `get`).
    col0: *mut u8,
    /// The reverse map (row -> slot), after the columns in the block.
    rev: *mut u32,
    alloc: Allocator,
}

/// An insert that found no room: the dense block or the sparse index must
/// grow first (see [`SlotMap::try_insert`]).
#[derive(Clone, Copy, Debug)]
pub struct Grow;

/// Allocations replaced by a growth, freed once nothing reads them.
struct Retired {
    block: *mut u8,
    sparse: *mut u8,
}

impl Default for Retired {
    fn default() -> Retired {
        Retired {
            block: ptr::null_mut(),
            sparse: ptr::null_mut(),
        }
    }
}

/// The layout of a dense block of `cap` rows: each column's offset from the
/// aligned base, the reverse map's, and the bytes to allocate.
#[derive(Clone, Copy)]
struct Layout {
    offsets: [usize; MAX_COLUMNS],
    reverse: usize,
    bytes: usize,
}

/// The offset of the column after one at `off` of `size`-byte elements, in
/// a block of `cap` rows: `layout`'s arithmetic, unchecked (`layout`
/// checked it when the block was allocated).
#[inline(always)]
fn next_column(off: usize, size: usize, cap: usize) -> usize {
    (off + size * cap + (COLUMN_ALIGN - 1)) & !(COLUMN_ALIGN - 1)
}

/// Copies one `size`-byte element; the common sizes without a `memcpy` call.
///
/// # Safety
/// As `ptr::copy_nonoverlapping(src, dst, size)`.
#[inline(always)]
unsafe fn copy_element(src: *const u8, dst: *mut u8, size: usize) {
    // SAFETY: the caller's guarantee; unaligned accesses of `size` bytes.
    unsafe {
        match size {
            4 => dst
                .cast::<u32>()
                .write_unaligned(src.cast::<u32>().read_unaligned()),
            8 => dst
                .cast::<u64>()
                .write_unaligned(src.cast::<u64>().read_unaligned()),
            16 => dst
                .cast::<[u64; 2]>()
                .write_unaligned(src.cast::<[u64; 2]>().read_unaligned()),
            _ => ptr::copy_nonoverlapping(src, dst, size),
        }
    }
}

/// Copies one `size`-byte element in from the caller's row: the common
/// sizes in 4-byte pieces.
///
/// The caller has usually just built the row on its stack, field by field,
/// with stores of 4 or 8 bytes (gcc merges two adjacent `float`s into one
/// 8-byte store, clang does not). A load that spans two stores cannot take
/// its data from the store buffer and waits for them to reach the cache: a
/// store-forwarding stall, which made a 16-byte insert copied as one 16-byte
/// load cost three times its instructions, and 8-byte pieces 20% more
/// behind clang. A 4-byte load sits inside one store for any row of 4- and
/// 8-byte fields.
///
/// # Safety
/// As `ptr::copy_nonoverlapping(src, dst, size)`.
#[inline(always)]
unsafe fn copy_in(src: *const u8, dst: *mut u8, size: usize) {
    // SAFETY (all arms): the caller's guarantee.
    unsafe {
        match size {
            4 | 8 | 12 | 16 => copy_simple(src, dst, size),
            24 => copy_words::<6>(src, dst),
            32 => copy_words::<8>(src, dst),
            _ => ptr::copy_nonoverlapping(src, dst, size),
        }
    }
}

/// Copies an element of 4, 8, 12 or 16 bytes (the sizes of `simple_rows`;
/// any other size is copied as 16) in 4-byte pieces, as `copy_in` explains:
/// straight-line code without calls, for the fast insert.
///
/// # Safety
/// As `ptr::copy_nonoverlapping(src, dst, size)`, `size` one of the four.
#[inline(always)]
unsafe fn copy_simple(src: *const u8, dst: *mut u8, size: usize) {
    // SAFETY (all arms): the caller's guarantee.
    unsafe {
        match size {
            4 => copy_words::<1>(src, dst),
            8 => copy_words::<2>(src, dst),
            12 => copy_words::<3>(src, dst),
            _ => copy_words::<4>(src, dst),
        }
    }
}

/// Copies `W` 4-byte words: straight-line code for `copy_in`.
///
/// # Safety
/// `src` and `dst` have `4 * W` bytes and do not overlap.
#[inline(always)]
unsafe fn copy_words<const W: usize>(src: *const u8, dst: *mut u8) {
    for i in 0..W {
        // SAFETY: the caller's guarantee; unaligned 4-byte accesses.
        unsafe {
            let (s, d) = (src.add(4 * i).cast::<u32>(), dst.add(4 * i).cast::<u32>());
            d.write_unaligned(s.read_unaligned());
        }
    }
}

fn align_up(n: usize, a: usize) -> Option<usize> {
    Some(n.checked_add(a - 1)? & !(a - 1))
}

/// Aligns a raw allocation for the columns.
fn base_of(block: *mut u8) -> *mut u8 {
    let addr = block as usize;
    let pad = (COLUMN_ALIGN - addr % COLUMN_ALIGN) % COLUMN_ALIGN;
    block.wrapping_add(pad)
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
        })
    }

    #[inline]
    pub fn len(&self) -> u32 {
        self.len
    }

    /// Whether the calling thread is walking this slotmap.
    #[cfg(test)]
    pub fn walking(&self) -> bool {
        walk::walking((self as *const SlotMap).cast())
    }

    pub fn column_count(&self) -> u32 {
        self.columns
    }

    fn layout(&self, cap: u32) -> Option<Layout> {
        let mut offsets = [0usize; MAX_COLUMNS];
        let mut at = 0usize;
        for (c, off) in offsets.iter_mut().enumerate().take(self.columns as usize) {
            *off = at;
            at = align_up(
                at.checked_add((self.sizes[c] as usize).checked_mul(cap as usize)?)?,
                COLUMN_ALIGN,
            )?;
        }
        let reverse = at;
        let end = reverse.checked_add((cap as usize).checked_mul(size_of::<u32>())?)?;
        let bytes = end.checked_add(COLUMN_ALIGN - 1)?;
        if bytes > isize::MAX as usize {
            return None;
        }
        Some(Layout {
            offsets,
            reverse,
            bytes,
        })
    }

    #[inline]
    fn base(&self) -> *mut u8 {
        base_of(self.block)
    }

    /// Column `c`'s first element, or NULL while nothing is allocated.
    pub fn column(&self, c: usize) -> *mut u8 {
        if self.block.is_null() {
            return ptr::null_mut();
        }
        let cap = self.cap as usize;
        let off = self
            .sizes
            .iter()
            .take(c)
            .fold(0, |off, &size| next_column(off, size as usize, cap));
        self.base().wrapping_add(off)
    }

    #[inline]
    fn reverse(&self) -> *mut u32 {
        self.rev
    }

    #[inline]
    fn slot(&self, i: u32) -> Slot {
        debug_assert!(i < self.slots);
        // SAFETY: `i` is below `slots`, all of which are initialized.
        unsafe { *self.sparse.add(i as usize) }
    }

    #[inline]
    fn slot_mut(&mut self, i: u32) -> &mut Slot {
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
        let row = self.row_of(key)?;
        Some(
            self.col0
                .wrapping_add(row as usize * self.sizes[0] as usize),
        )
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

    /// Grows the dense block to at least `rows` and the sparse index so that
    /// `new_slots` more slots fit; all or nothing. The replaced allocations
    /// are handed back, not freed: `insert` may still be reading a row that
    /// lives in the old block (a copy of one of our own elements).
    #[cold]
    #[inline(never)]
    fn grow(&mut self, rows: u32, new_slots: u32) -> Result<Retired, Error> {
        let mut retired = Retired::default();
        let want_slots = self.slots.checked_add(new_slots).ok_or(Error::Full)?;
        if rows > MAX_ROWS || want_slots > MAX_ROWS {
            return Err(Error::Full);
        }
        let mut block = None;
        if rows > self.cap {
            let cap = rows.max(self.cap.saturating_mul(2)).clamp(8, MAX_ROWS);
            let layout = self.layout(cap).ok_or(Error::Full)?;
            block = Some((cap, layout, self.alloc.alloc(layout.bytes)?));
        }
        let mut sparse = None;
        if want_slots > self.slot_cap {
            let cap = want_slots
                .max(self.slot_cap.saturating_mul(2))
                .clamp(8, MAX_ROWS);
            let bytes = (cap as usize)
                .checked_mul(size_of::<Slot>())
                .ok_or(Error::Full);
            match bytes.and_then(|b| self.alloc.alloc(b)) {
                Ok(p) => sparse = Some((cap, p.cast::<Slot>())),
                Err(e) => {
                    if let Some((_, _, p)) = block {
                        // SAFETY: allocated above, unused.
                        unsafe { self.alloc.free(p) };
                    }
                    return Err(e);
                }
            }
        }
        if let Some((cap, layout, p)) = block {
            let new_base = base_of(p);
            if !self.block.is_null() {
                let old = self.layout(self.cap).expect("allocated layout");
                for c in 0..self.columns as usize {
                    let size = self.sizes[c] as usize;
                    // SAFETY: both blocks hold `len` rows of each column.
                    unsafe {
                        ptr::copy_nonoverlapping(
                            self.base().add(old.offsets[c]),
                            new_base.add(layout.offsets[c]),
                            self.len as usize * size,
                        );
                    }
                }
                // SAFETY: as above, for the reverse map.
                unsafe {
                    ptr::copy_nonoverlapping(
                        self.base().add(old.reverse),
                        new_base.add(layout.reverse),
                        self.len as usize * size_of::<u32>(),
                    );
                }
                retired.block = self.block;
            }
            self.block = p;
            self.cap = cap;
            self.col0 = new_base.wrapping_add(layout.offsets[0]);
            self.rev = new_base.wrapping_add(layout.reverse).cast();
        }
        if let Some((cap, p)) = sparse {
            if !self.sparse.is_null() {
                // SAFETY: the old index holds `slots` initialized slots.
                unsafe { ptr::copy_nonoverlapping(self.sparse, p, self.slots as usize) };
                retired.sparse = self.sparse.cast();
            }
            self.sparse = p;
            self.slot_cap = cap;
        }
        Ok(retired)
    }

    /// Frees allocations that `grow` replaced.
    fn release(&self, retired: Retired) {
        // SAFETY: both are NULL or old allocations of this slotmap that
        // nothing refers to any more.
        unsafe {
            self.alloc.free(retired.block);
            self.alloc.free(retired.sparse);
        }
    }

    /// Room for `n` rows in all (inserts up to `n` rows allocate nothing).
    pub fn reserve(&mut self, n: u32) -> Result<(), Error> {
        if n > self.limit {
            return Err(Error::Full);
        }
        // Slots that new rows would take beyond the free list.
        let new_slots = n.saturating_sub(self.len).saturating_sub(self.free_len);
        let retired = self.grow(n.max(self.len), new_slots)?;
        self.release(retired);
        Ok(())
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
    /// slot) is straight-line code without calls; the others are out of
    /// line and call `then` themselves, so that `slotmap_insert` keeps
    /// nothing live across a call and needs no stack frame.
    ///
    /// # Safety
    /// As for `insert`.
    #[inline(always)]
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
    #[inline(always)]
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
    #[inline(always)]
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
        *self.slot_mut(index) = Slot { version, link: r };
        fill(self, r);
        // SAFETY: the reverse map has `cap > r` entries.
        unsafe { *self.rev.add(r as usize) = index };
        self.len += 1;
        ((version as u64) << 32) | index as u64
    }

    /// `place`'s copy for several columns (kept out of the hot path).
    ///
    /// # Safety
    /// As for `place`; `r < cap`.
    #[inline(never)]
    unsafe fn copy_in_columns(&mut self, row: *const u8, r: u32) {
        let (base, cap) = (self.base(), self.cap as usize);
        let (mut off, mut src) = (0usize, row);
        for &size in self.sizes.iter().take(self.columns as usize) {
            let size = size as usize;
            // SAFETY: row `r` is inside the block (`r < cap`); `src` has
            // `row_size` bytes when not NULL.
            unsafe {
                let dst = base.add(off + r as usize * size);
                if src.is_null() {
                    ptr::write_bytes(dst, 0, size);
                } else {
                    copy_in(src, dst, size);
                    src = src.add(size);
                }
            }
            off = next_column(off, size, cap);
        }
    }

    /// Marks a slot vacant (stale keys) and frees it for reuse, unless its
    /// version is used up.
    fn vacate(&mut self, index: u32) {
        let head = self.free_head;
        let reusable = self.versions.reusable(self.slot(index).version);
        if !reusable {
            // Retired: version 0 is vacant and never handed out again.
            *self.slot_mut(index) = Slot {
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

    /// Copies row `from` over row `to` in every column and the reverse map,
    /// and points the moved row's slot at `to`.
    #[inline]
    fn move_row(&mut self, from: u32, to: u32) {
        if self.columns == 1 {
            let size = self.sizes[0] as usize;
            // SAFETY: both rows are below `len`, inside the block; distinct.
            unsafe {
                copy_element(
                    self.col0.add(from as usize * size),
                    self.col0.add(to as usize * size),
                    size,
                )
            };
        } else {
            self.move_columns(from, to);
        }
        self.move_index(from, to);
    }

    /// Whether rows are one column of 4, 8, 12 or 16 bytes: the case that
    /// `move_row_fast` and `try_insert` handle.
    #[inline(always)]
    fn simple_rows(&self) -> bool {
        self.columns == 1 && matches!(self.sizes[0], 4 | 8 | 12 | 16)
    }

    /// `move_row` for `simple_rows`: straight-line code without calls.
    #[inline(always)]
    fn move_row_fast(&mut self, from: u32, to: u32) {
        let size = self.sizes[0] as usize;
        // SAFETY: both rows are below `len`, inside the block; distinct;
        // `size` is one of the four.
        // Not `copy_simple`: these rows were written long ago, so a 16-byte
        // row moves as one wide load and store (in 4-byte pieces the copy
        // needed more registers and `slotmap_erase` a stack frame again).
        unsafe {
            let src = self.col0.add(from as usize * size);
            let dst = self.col0.add(to as usize * size);
            match size {
                4 => copy_words::<1>(src, dst),
                8 => copy_words::<2>(src, dst),
                12 => copy_words::<3>(src, dst),
                _ => dst
                    .cast::<[u64; 2]>()
                    .write_unaligned(src.cast::<[u64; 2]>().read_unaligned()),
            }
        }
        self.move_index(from, to);
    }

    /// The reverse map and the moved row's slot, after a row move.
    #[inline(always)]
    fn move_index(&mut self, from: u32, to: u32) {
        // SAFETY: both rows have reverse entries.
        let slot = unsafe {
            let slot = *self.rev.add(from as usize);
            *self.rev.add(to as usize) = slot;
            slot
        };
        self.slot_mut(slot).link = to;
    }

    /// `move_row`'s copy for several columns, or one of an uncommon size
    /// (kept out of the hot path).
    #[inline(never)]
    fn move_columns(&mut self, from: u32, to: u32) {
        let (base, cap) = (self.base(), self.cap as usize);
        let mut off = 0usize;
        for &size in self.sizes.iter().take(self.columns as usize) {
            let size = size as usize;
            // SAFETY: both rows are below `len`, inside the block; distinct.
            unsafe {
                copy_element(
                    base.add(off + from as usize * size),
                    base.add(off + to as usize * size),
                    size,
                )
            };
            off = next_column(off, size, cap);
        }
    }

    /// Swap-and-pop erase. Simple rows take a path without calls (so
    /// that `slotmap_erase` needs no stack frame); others go out of line.
    #[inline(always)]
    pub fn erase(&mut self, key: u64) -> Result<(), Error> {
        if self.simple_rows() {
            self.erase_with::<true>(key)
        } else {
            self.erase_general(key)
        }
    }

    #[inline(never)]
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
        Ok(())
    }

    /// Removes every row for which `pred(key, row)` is non-zero: first every
    /// predicate runs on the slotmap as it stands (so a predicate that reads
    /// it sees a consistent state), the decisions kept in a bitmap; then one
    /// pass compacts every column and rewrites the index for the survivors.
    /// Fails only if the bitmap cannot be allocated, before any change.
    ///
    /// Takes a raw pointer: `pred` may read the slotmap through the C API,
    /// so no reference is held across its calls.
    ///
    /// # Safety
    /// `this` points to a live slotmap.
    pub unsafe fn erase_if(
        this: *mut SlotMap,
        mut pred: impl FnMut(u64, *mut u8) -> i32,
    ) -> Result<(), Error> {
        // SAFETY: `this` is live; shared looks end before each `pred` call.
        let (n, alloc) = unsafe { ((*this).len as usize, (*this).alloc) };
        if n == 0 {
            return Ok(());
        }
        let words = n.div_ceil(64);
        let marks = alloc.alloc_zeroed(words, size_of::<u64>())?.cast::<u64>();
        let mut any = false;
        walk::walk(this.cast_const().cast(), || {
            for row in 0..n as u32 {
                // SAFETY: a short shared look; `pred` cannot modify the slotmap.
                let (key, element) = unsafe {
                    let m = &*this;
                    (
                        m.key_at(row).expect("row below len"),
                        m.col0.wrapping_add(row as usize * m.sizes[0] as usize),
                    )
                };
                if pred(key, element) != 0 {
                    // SAFETY: `row / 64` is below `words`.
                    unsafe { *marks.add(row as usize / 64) |= 1 << (row % 64) };
                    any = true;
                }
            }
        });
        if any {
            // SAFETY: no callback runs any more; `this` is live.
            let m = unsafe { &mut *this };
            let mut write = 0u32;
            for read in 0..n as u32 {
                // SAFETY: as above.
                let doomed = unsafe { *marks.add(read as usize / 64) } >> (read % 64) & 1 == 1;
                if doomed {
                    // SAFETY: rows below `len` have a reverse entry.
                    let slot = unsafe { *m.reverse().add(read as usize) };
                    m.vacate(slot);
                } else {
                    if write != read {
                        m.move_row(read, write);
                    }
                    write += 1;
                }
            }
            m.len = write;
        }
        // SAFETY: allocated above from this allocator.
        unsafe { alloc.free(marks.cast()) };
        Ok(())
    }

    /// Calls `f(key, row)` for every row in dense order until it returns
    /// non-zero; returns that value or 0.
    pub fn each(&self, mut f: impl FnMut(u64, *mut u8) -> i32) -> i32 {
        walk::walk((self as *const SlotMap).cast(), || {
            for row in 0..self.len {
                let key = self.key_at(row).expect("row below len");
                let r = f(
                    key,
                    self.col0
                        .wrapping_add(row as usize * self.sizes[0] as usize),
                );
                if r != 0 {
                    return r;
                }
            }
            0
        })
    }

    /// Reorders rows by column 0 so that `less(a, b)` rows come first;
    /// every key stays valid. Needs one new block (all or nothing).
    ///
    /// Takes a raw pointer, as `erase_if` does: `less` may read the
    /// slotmap through the C API, so no reference to it is held across
    /// its calls. (A `&mut self` held across them let the compiler assume
    /// nobody reads the slotmap meanwhile: it dropped the increment of the
    /// walk counter the slotmap then kept, and a comparator's
    /// `slotmap_sort` of the same slotmap ran inside the sort.)
    ///
    /// # Safety
    /// `this` points to a live slotmap.
    pub unsafe fn sort(
        this: *mut SlotMap,
        mut less: impl FnMut(*const u8, *const u8) -> bool,
    ) -> Result<(), Error> {
        // SAFETY: `this` is live; this shared look ends before `less` runs.
        let (n, cap, alloc, size0, col0) = unsafe {
            let m = &*this;
            (m.len as usize, m.cap, m.alloc, m.sizes[0] as usize, m.col0)
        };
        if n < 2 {
            return Ok(());
        }
        // SAFETY: as above.
        let layout = unsafe { (*this).layout(cap) }.expect("allocated layout");
        let perm_bytes = n.checked_mul(size_of::<u32>()).ok_or(Error::Full)?;
        let perm = alloc.alloc(perm_bytes)?.cast::<u32>();
        let block = match alloc.alloc(layout.bytes) {
            Ok(b) => b,
            Err(e) => {
                // SAFETY: allocated above, unused.
                unsafe { alloc.free(perm.cast()) };
                return Err(e);
            }
        };
        // SAFETY: `perm` holds `n` u32s, initialized here before use.
        let order = unsafe {
            for i in 0..n {
                perm.add(i).write(i as u32);
            }
            core::slice::from_raw_parts_mut(perm, n)
        };
        walk::walk(this.cast_const().cast(), || {
            heapsort(order, |a, b| {
                less(
                    col0.wrapping_add(a as usize * size0),
                    col0.wrapping_add(b as usize * size0),
                )
            })
        });
        // SAFETY: no callback runs any more; `this` is live.
        let m = unsafe { &mut *this };
        // Gather every column (and the reverse map) in the new order.
        let (old, new) = (m.base(), base_of(block));
        for c in 0..m.columns as usize {
            let size = m.sizes[c] as usize;
            for (to, &from) in order.iter().enumerate() {
                // SAFETY: rows below `len` in blocks of the same layout.
                unsafe {
                    ptr::copy_nonoverlapping(
                        old.add(layout.offsets[c] + from as usize * size),
                        new.add(layout.offsets[c] + to * size),
                        size,
                    );
                }
            }
        }
        for (to, &from) in order.iter().enumerate() {
            // SAFETY: as above, for the reverse map; then the slot of the
            // row that moved learns its new row.
            let slot = unsafe {
                let slot = *old.add(layout.reverse).cast::<u32>().add(from as usize);
                *new.add(layout.reverse).cast::<u32>().add(to) = slot;
                slot
            };
            m.slot_mut(slot).link = to as u32;
        }
        // SAFETY: the old block and the permutation are no longer used.
        unsafe {
            alloc.free(m.block);
            alloc.free(perm.cast());
        }
        m.block = block;
        m.col0 = new.wrapping_add(layout.offsets[0]);
        m.rev = new.wrapping_add(layout.reverse).cast();
        Ok(())
    }

    /// Removes every row; every old key becomes stale; capacity stays.
    pub fn clear(&mut self) {
        for row in (0..self.len).rev() {
            // SAFETY: rows below `len` have a reverse entry.
            let slot = unsafe { *self.reverse().add(row as usize) };
            self.vacate(slot);
        }
        self.len = 0;
    }

    /// The highest version any slot carries.
    fn max_version(&self) -> u32 {
        (0..self.slots)
            .map(|i| self.slot(i).version)
            .max()
            .unwrap_or(0)
    }

    /// Releases everything; the slotmap stays usable and old keys stale.
    pub fn free(&mut self) {
        if self.slots > 0 {
            // New slots take versions this slotmap never handed out; if
            // none is left, inserts that need a new slot report `Full`.
            self.versions.next_epoch(self.max_version());
        }
        // SAFETY: both came from this allocator and are dropped here.
        unsafe {
            self.alloc.free(self.block);
            self.alloc.free(self.sparse.cast());
        }
        self.block = ptr::null_mut();
        self.col0 = ptr::null_mut();
        self.rev = ptr::null_mut();
        self.sparse = ptr::null_mut();
        self.len = 0;
        self.cap = 0;
        self.slots = 0;
        self.slot_cap = 0;
        self.free_head = NONE;
        self.free_len = 0;
    }

    /// An empty slotmap of the same columns, allocating through `alloc`.
    pub fn empty_like(&self, alloc: Allocator) -> SlotMap {
        SlotMap::new(&self.sizes[..self.columns as usize], alloc)
            .expect("columns already validated")
    }

    /// An independent copy (same keys, same rows) allocating through `alloc`.
    pub fn try_clone(&self, alloc: Allocator) -> Result<SlotMap, Error> {
        let mut copy = SlotMap {
            len: 0,
            cap: 0,
            slots: 0,
            slot_cap: 0,
            free_head: self.free_head,
            free_len: self.free_len,
            limit: self.limit,
            columns: self.columns,
            row_size: self.row_size,
            versions: self.versions,
            sizes: self.sizes,
            sparse: ptr::null_mut(),
            block: ptr::null_mut(),
            col0: ptr::null_mut(),
            rev: ptr::null_mut(),
            alloc,
        };
        if !self.block.is_null() {
            let layout = self.layout(self.cap).expect("allocated layout");
            let block = alloc.alloc(layout.bytes)?;
            // SAFETY: same layout; the aligned bases keep the same offsets.
            unsafe {
                ptr::copy_nonoverlapping(
                    self.base(),
                    base_of(block),
                    layout.bytes - (COLUMN_ALIGN - 1),
                )
            };
            copy.block = block;
            copy.cap = self.cap;
            copy.len = self.len;
            copy.col0 = base_of(block).wrapping_add(layout.offsets[0]);
            copy.rev = base_of(block).wrapping_add(layout.reverse).cast();
        }
        if !self.sparse.is_null() {
            let bytes = self.slot_cap as usize * size_of::<Slot>();
            let sparse = match alloc.alloc(bytes) {
                Ok(p) => p.cast::<Slot>(),
                Err(e) => {
                    // SAFETY: allocated above, unused.
                    unsafe { alloc.free(copy.block) };
                    return Err(e);
                }
            };
            // SAFETY: `slots` initialized slots fit in both.
            unsafe { ptr::copy_nonoverlapping(self.sparse, sparse, self.slots as usize) };
            copy.sparse = sparse;
            copy.slot_cap = self.slot_cap;
            copy.slots = self.slots;
        }
        Ok(copy)
    }

    /// Checks the index against the rows: every row's slot points back at
    /// it with an odd version, every other slot is vacant (even) and on the
    /// free list or retired, and the free list has `free_len` slots.
    #[cfg(test)]
    pub fn check(&self) -> Result<(), &'static str> {
        if self.len > self.cap || self.slots > self.slot_cap || self.len > self.limit {
            return Err("counts beyond capacity");
        }
        let mut occupied = 0u32;
        for row in 0..self.len {
            // SAFETY: rows below `len` have a reverse entry.
            let slot = unsafe { *self.reverse().add(row as usize) };
            if slot >= self.slots {
                return Err("reverse map names a slot beyond the index");
            }
            let s = self.slot(slot);
            if s.version & 1 == 0 || s.link != row {
                return Err("a row's slot does not point back at it");
            }
            occupied += 1;
        }
        let (mut free, mut at) = (0u32, self.free_head);
        while at != NONE {
            if at >= self.slots || self.slot(at).version & 1 == 1 || free > self.slots {
                return Err("free list is broken");
            }
            free += 1;
            at = self.slot(at).link;
        }
        if free != self.free_len {
            return Err("free list length is wrong");
        }
        let retired = (0..self.slots)
            .filter(|&i| self.slot(i).version == 0)
            .count() as u32;
        if occupied + free + retired != self.slots {
            return Err("slots are neither occupied, free nor retired");
        }
        Ok(())
    }
}

/// Sorts `v` in place by `less` (heapsort: no allocation, O(n log n), and
/// no panic even if `less` is not a consistent order).
fn heapsort(v: &mut [u32], mut less: impl FnMut(u32, u32) -> bool) {
    fn sift(v: &mut [u32], mut root: usize, end: usize, less: &mut impl FnMut(u32, u32) -> bool) {
        loop {
            let mut child = 2 * root + 1;
            if child >= end {
                return;
            }
            if child + 1 < end && less(v[child], v[child + 1]) {
                child += 1;
            }
            if !less(v[root], v[child]) {
                return;
            }
            v.swap(root, child);
            root = child;
        }
    }
    let n = v.len();
    for i in (0..n / 2).rev() {
        sift(v, i, n, &mut less);
    }
    for end in (1..n).rev() {
        v.swap(0, end);
        sift(v, 0, end, &mut less);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn sm(sizes: &[u32]) -> SlotMap {
        SlotMap::new(sizes, Allocator::default()).unwrap()
    }

    fn put(m: &mut SlotMap, v: u32) -> u64 {
        // SAFETY: a 4-byte row for a one-column u32 slotmap.
        unsafe { m.insert(v.to_ne_bytes().as_ptr()).unwrap() }
    }

    fn read(m: &SlotMap, key: u64) -> Option<u32> {
        // SAFETY: column 0 holds u32s.
        m.get(key)
            .map(|p| unsafe { p.cast::<u32>().read_unaligned() })
    }

    #[test]
    fn heapsort_sorts() {
        let mut v: Vec<u32> = (0..1000).map(|i| (i * 7919) % 1000).collect();
        heapsort(&mut v, |a, b| a < b);
        assert!(v.windows(2).all(|w| w[0] <= w[1]));
        // An inconsistent order must not panic.
        heapsort(&mut v, |_, _| true);
    }

    #[test]
    fn keys_survive_churn_and_go_stale() {
        let mut m = sm(&[4]);
        let mut live: HashMap<u64, u32> = HashMap::new();
        let mut dead = vec![];
        let mut x = 12345u64;
        let steps = if cfg!(miri) { 600 } else { 20_000 };
        for step in 0..steps {
            // xorshift64: varied steps.
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if !x.is_multiple_of(3) || live.is_empty() {
                let k = put(&mut m, step);
                assert_ne!(k, 0);
                live.insert(k, step);
            } else {
                let k = *live.keys().nth((x >> 32) as usize % live.len()).unwrap();
                m.erase(k).unwrap();
                live.remove(&k);
                dead.push(k);
            }
            if step % 1000 == 0 {
                m.check().unwrap();
                for r in 0..m.len() {
                    assert_eq!(m.row_of(m.key_at(r).unwrap()), Some(r));
                }
            }
        }
        m.check().unwrap();
        for (&k, &v) in &live {
            assert_eq!(read(&m, k), Some(v));
        }
        for &k in &dead {
            assert_eq!(m.get(k), None);
        }
        assert_eq!(m.get(0), None);
        m.free();
        for &k in live.keys() {
            assert_eq!(m.get(k), None);
        }
    }

    #[test]
    fn a_slot_retires_when_its_version_is_used_up() {
        let mut m = sm(&[4]);
        m.versions = Versions::new(u32::MAX - 4);
        let a = put(&mut m, 1);
        let index = a as u32;
        m.erase(a).unwrap();
        let b = put(&mut m, 2);
        assert_eq!(b as u32, index, "most recently freed slot reused");
        m.erase(b).unwrap();
        let c = put(&mut m, 3);
        assert_eq!((c >> 32) as u32, u32::MAX);
        m.erase(c).unwrap();
        // The slot's version wrapped: it is retired, a new slot is used.
        let d = put(&mut m, 4);
        assert_ne!(d as u32, index);
        for k in [a, b, c] {
            assert_eq!(m.get(k), None);
        }
        m.check().unwrap();
        m.free();
    }

    /// Cycles slot `index`'s row until the slot retires; returns every key
    /// it was issued.
    fn cycle_until_retired(m: &mut SlotMap) -> Vec<u64> {
        let mut keys = vec![];
        loop {
            let k = put(m, 9);
            keys.push(k);
            m.erase(k).unwrap();
            if m.slot(k as u32).version == 0 {
                return keys;
            }
        }
    }

    /// Defect: a freed slotmap restarted its versions above the highest
    /// version a slot still carried, and a retired slot carries none, so
    /// after a retirement `free` reissued keys of the retired slot.
    #[test]
    fn free_after_a_retirement_reissues_no_key() {
        let mut m = sm(&[4]);
        m.versions = Versions::new(u32::MAX - 10);
        let first = put(&mut m, 1); // slot 0 keeps its first key; slot 1 cycles
        let old = cycle_until_retired(&mut m);
        assert_eq!(old.len(), 6);
        assert_eq!(old.last().map(|k| k >> 32), Some(u32::MAX as u64));
        m.check().unwrap();
        let mut issued: Vec<u64> = old.clone();
        issued.push(first);
        m.free();
        // No room above: the next epoch lies below everything issued.
        let mut later = vec![];
        for i in 0..20 {
            later.push(put(&mut m, i));
        }
        for k in &later {
            assert!(!issued.contains(k), "reissued {k:#x}");
            assert!((*k >> 32) < (u32::MAX - 10) as u64);
        }
        for &k in &issued {
            assert_eq!(m.get(k), None, "stale {k:#x} validates");
        }
        m.check().unwrap();
        m.free();
    }

    /// Retirement at the end of the version space, then `clear`, `clone`
    /// and `free`, in milliseconds: the slotmap starts its versions near
    /// the end instead of cycling a slot 1.5 * 10^9 times (`make soak`
    /// does that through the C API).
    #[test]
    fn versions_at_the_wrap_through_clear_clone_and_free() {
        let mut m = sm(&[4]);
        m.versions = Versions::new(u32::MAX - 20);
        let keys: Vec<u64> = (0..4).map(|i| put(&mut m, i)).collect();
        m.clear(); // every slot one reuse further
        let copy = m.try_clone(Allocator::default()).unwrap();
        let mut issued = keys.clone();
        for _ in 0..4 {
            issued.extend(cycle_until_retired(&mut m));
        }
        // The clone goes on from the same versions, independently.
        let mut c = copy;
        for &k in &issued {
            assert_eq!(m.get(k), None);
            assert_eq!(c.get(k), None);
        }
        c.check().unwrap();
        c.free();
        m.check().unwrap();
        // Free: the next epoch is below the first start; exhaust it too
        // and the slotmap has no version left for a new slot.
        m.free();
        m.versions.next = m.versions.last().saturating_sub(6) | 1;
        let below = cycle_until_retired(&mut m);
        for k in &below {
            assert!(!issued.contains(k));
        }
        issued.extend(below);
        m.free();
        let mut row = 0u32;
        // SAFETY: a 4-byte row.
        let r = unsafe { m.insert((&mut row as *mut u32).cast()) };
        assert_eq!(r, Err(Error::Full));
        for &k in &issued {
            assert_eq!(m.get(k), None);
        }
        m.check().unwrap();
        m.free();
    }

    /// A comparator may read the slotmap it sorts, as the C API allows,
    /// and sees it walked. (With `&mut self` held across the comparator,
    /// this read was undefined behaviour, which Miri reports, and a release
    /// build for wasm32 dropped the walk mark: a nested sort ran inside.)
    #[test]
    fn sort_comparator_may_read_the_slotmap() {
        let mut m = sm(&[4]);
        let keys: Vec<u64> = (0..50u32).map(|i| put(&mut m, (i * 7) % 50)).collect();
        let this: *mut SlotMap = &mut m;
        let mut reads = 0;
        // SAFETY: `m` is live; the comparator only reads through `this`.
        unsafe {
            SlotMap::sort(this, |a, b| {
                let seen = &*this;
                assert!(seen.walking());
                assert_eq!(seen.len(), 50);
                reads += seen.get(keys[reads % 50]).is_some() as usize;
                a.cast::<u32>().read_unaligned() < b.cast::<u32>().read_unaligned()
            })
            .unwrap();
        }
        assert!(reads > 0);
        assert!(!m.walking());
        m.check().unwrap();
        for (i, &k) in keys.iter().enumerate() {
            assert_eq!(read(&m, k), Some((i as u32 * 7) % 50));
        }
        m.free();
    }

    #[test]
    fn sort_and_erase_if_keep_keys() {
        let mut m = sm(&[4, 8]);
        let mut keys = vec![];
        for i in 0..500u32 {
            let mut row = [0u8; 12];
            row[..4].copy_from_slice(&((i * 37) % 500).to_ne_bytes());
            row[4..].copy_from_slice(&(i as u64).to_ne_bytes());
            // SAFETY: a 12-byte packed row.
            keys.push((i, unsafe { m.insert(row.as_ptr()).unwrap() }));
        }
        // SAFETY: column 0 holds u32s.
        // SAFETY: `m` is live; column 0 holds u32s.
        unsafe {
            SlotMap::sort(&mut m, |a, b| {
                a.cast::<u32>().read_unaligned() < b.cast::<u32>().read_unaligned()
            })
            .unwrap()
        };
        m.check().unwrap();
        let col0 = m.column(0).cast::<u32>();
        let col1 = m.column(1).cast::<u64>();
        assert_eq!(col0 as usize % COLUMN_ALIGN, 0);
        assert_eq!(col1 as usize % COLUMN_ALIGN, 0);
        for r in 0..m.len() as usize {
            // SAFETY: rows below len.
            unsafe { assert_eq!(*col0.add(r), r as u32) };
        }
        for &(i, k) in &keys {
            let r = m.row_of(k).unwrap() as usize;
            // SAFETY: as above.
            unsafe { assert_eq!(*col1.add(r), i as u64) };
        }
        let this: *mut SlotMap = &mut m;
        // SAFETY: `m` is live.
        unsafe {
            SlotMap::erase_if(this, |_, row| {
                (row.cast::<u32>().read_unaligned() % 2) as i32
            })
            .unwrap()
        };
        m.check().unwrap();
        assert_eq!(m.len(), 250);
        let col1 = m.column(1).cast::<u64>();
        for &(i, k) in &keys {
            let odd = ((i * 37) % 500) % 2 == 1;
            assert_eq!(m.get(k).is_none(), odd);
            if let Some(r) = m.row_of(k) {
                // SAFETY: as above.
                unsafe { assert_eq!(*col1.add(r as usize), i as u64) };
            }
        }
        m.free();
    }
}
