//! Sparse sets keyed by slotmap keys: an entity's optional parts.
//!
//! # Why
//!
//! A slotmap gives every entity a stable key and packs the columns every
//! entity has. The parts only some entities have (a velocity, a target, a
//! "hungry" tag) live beside it in sparse sets: each maps slotmap keys to
//! dense rows of its own columns, or holds bare membership, with O(1) add,
//! test and remove and iteration over packed memory. Systems that walk
//! "every entity that has A and B" join sets: walk the smallest, test the
//! others.
//!
//! # Terms
//!
//! - **key**: a slotmap key, `version << 32 | slot`; the full key is what
//!   a set stores, so a key whose slot the owner reissued never finds the
//!   old entity's row.
//! - **row**, **column**, **trailer**: the slotmap's dense rows
//!   ([`crate::slotmap::columns`]); a set's trailer is its keys, row `r`'s
//!   key at `keys[r]`, so the keys are themselves a dense array.
//! - **index**: slot index -> row, in three levels of pages, so that only
//!   the slot indices a set has seen take memory:
//!
//! ```text
//!  slot index (32 bits):  top (12) | mid (10) | entry (10)
//!
//!  top: grows to the highest   mid: 1024 page         page: 1024 entries
//!  top index seen (at most     pointers (8 KiB)       (8 KiB)
//!  4096 mid pointers)
//! ```
//!
//!   A top entry or mid entry that has no mid array or page of its own
//!   points at a shared static one that holds no key ([`ABSENT_MID`],
//!   [`ABSENT_PAGE`]), so a lookup follows pointers without testing them.
//!
//!   An **entry** is `version << 32 | row + 1` of the key its slot index
//!   holds, 0 when it holds none: the high half always equals the high
//!   half of `keys[row]`, so the entry alone tells whether the set holds
//!   exactly a given key.
//!
//! # Operations
//!
//! - **get**: the key's entry (its page is found through two small,
//!   usually cached arrays) gives the row and the key check at once; the
//!   caller's read of the element is the only other one, as in a
//!   `SecondaryMap` plus the index. The keys array is not read.
//! - **set** of a new key appends a row and points the key's entry at it;
//!   a key whose slot holds another generation (a dead entity's) takes
//!   over that row. Every allocation it needs (a bigger block, the index's
//!   pages) is made first, so a failure changes nothing.
//! - **erase**: swap-and-pop; the moved row's key has its entry repointed.
//! - **walks** (`each`, `erase_if`, `join`) go through rows in dense
//!   order as `crate::stamp` says; after a callback erased the key it was
//!   given, the walk stays on the row that swap-and-pop refilled.
//! - **sort** orders the rows (heapsort over row numbers, by column 0) and
//!   applies the order in place (`slotmap::scratch`).
//!
//! # Memory
//!
//! Per row: the columns' sizes and 8 bytes of key. The index: 8 bytes per
//! slot index in touched pages of 1024, an 8 KiB array per touched
//! range of 2^20 slot indices, and 8 bytes per such range up to the
//! highest. Every allocation goes through the set's allocator.

mod check;
pub(crate) mod image;
pub mod join;
mod set;
#[cfg(test)]
mod tests;
mod walks;

pub use join::join;
use set::Room;

use core::mem::size_of;
use core::ptr;

use crate::alloc::Allocator;
use crate::prefetch::prefetch;
use crate::slotmap::columns::{
    base_of, copy_in_columns, copy_rows, move_columns, next_column, shape, Shape,
};
use crate::slotmap::scratch::Scratch;
use crate::slotmap::{SlotMap, MAX_COLUMNS, MAX_ROWS};
use crate::Error;

/// Bits of a slot index resolved by a page, and by a mid array.
const PAGE_BITS: u32 = 10;
const MID_BITS: u32 = 10;
/// Entries of a page; page pointers in a mid array.
const PAGE: usize = 1 << PAGE_BITS;
const MID: usize = 1 << MID_BITS;
/// Top entries that cover every slot index.
const TOP_MAX: u32 = 1 << (32 - PAGE_BITS - MID_BITS);
/// Bytes of a row's key (the trailer).
const KEY: usize = size_of::<u64>();

/// A page of the index: an entry per slot index (`version << 32 | row +
/// 1`, 0 when absent).
type Page = *mut u64;
/// Bytes of a page.
const PAGE_BYTES: usize = PAGE * size_of::<u64>();
/// The entry of every slot index beyond the top: absent.
static ABSENT: u64 = 0;

/// A page or mid array of the index that is shared, static and never
/// written: an entry is written only for a key the set holds, whose page
/// is its own.
#[repr(C, align(64))]
pub struct Shared<T>(T);

// SAFETY: never written; the pointers it holds lead to `ABSENT_PAGE`,
// itself never written.
unsafe impl<T> Sync for Shared<T> {}

/// The page of every slot-index range that has none: every entry absent.
static ABSENT_PAGE: Shared<[u64; PAGE]> = Shared([0; PAGE]);
/// The mid array of every top entry that has none: every page absent.
static ABSENT_MID: Shared<[Page; MID]> = Shared([absent_page(); MID]);

/// [`ABSENT_PAGE`] as a page pointer (to compare with, never to write).
const fn absent_page() -> Page {
    ptr::addr_of!(ABSENT_PAGE).cast::<u64>().cast_mut()
}

/// [`ABSENT_MID`] as a mid pointer (to compare with, never to write).
fn absent_mid() -> Mid {
    ptr::addr_of!(ABSENT_MID).cast::<Page>().cast_mut()
}

/// `n` fresh `T`s from `alloc`, each `value`, released with `n *
/// size_of::<T>()` bytes.
fn filled<T: Copy>(alloc: Allocator, n: usize, value: T) -> Result<*mut T, Error> {
    let bytes = n.checked_mul(size_of::<T>()).ok_or(Error::Full)?;
    let p = alloc.alloc(bytes)?.cast::<T>();
    for j in 0..n {
        // SAFETY: `p` has room for `n` 8-aligned `T`s (pointers here).
        unsafe { p.add(j).write(value) };
    }
    Ok(p)
}
/// The version half of a key or an entry.
const VERSION: u64 = !0 << 32;
/// A mid array: `MID` page pointers.
type Mid = *mut Page;

/// A sparse set; the body of the C `slotmap_sparse_s`.
#[repr(C)]
pub struct Sparse {
    len: u32,
    /// Rows the dense block holds.
    cap: u32,
    /// Columns (0: a membership set).
    columns: u32,
    /// Entries of `top`.
    top_len: u32,
    sizes: [u32; MAX_COLUMNS],
    /// The dense block as allocated (NULL: none).
    block: *mut u8,
    /// Column 0's first element (NULL for a membership set or no block).
    col0: *mut u8,
    /// The keys of rows `0 .. len` (the trailer).
    keys: *mut u64,
    /// The index's top level: `top_len` mid pointers, [`ABSENT_MID`]
    /// where none (NULL: no top yet).
    top: *mut Mid,
    alloc: Allocator,
    /// Counts the changes (see `crate::stamp`), from a start of its own.
    epoch: u64,
    /// A sort's order, kept by the set (see `slotmap/scratch.rs`).
    scratch: Scratch,
}

/// What a lookup reads of a set (its index's top, column 0's base and
/// stride), copied out once for a loop of lookups. It stays right until
/// the set's block or index top is replaced, which only
/// setting a new key, `reserve`, `sort` and the calls that empty or
/// re-initialise the set do. A walk of the set that goes on after a
/// callback saw at most an erase of the given key, which moves rows and
/// rewrites entries inside the same block and pages (`crate::stamp`).
#[derive(Clone, Copy)]
pub struct View {
    top: *const Mid,
    top_len: u32,
    col0: *mut u8,
    size0: usize,
}

impl View {
    /// The view of no set (no index, no column): finds nothing.
    pub const NONE: View = View {
        top: ptr::null(),
        top_len: 0,
        col0: ptr::null_mut(),
        size0: 0,
    };

    /// The index entry of slot index `i`, if its page exists.
    fn entry(self, i: u32) -> Option<*mut u64> {
        let t = i >> (PAGE_BITS + MID_BITS);
        if t >= self.top_len {
            return None;
        }
        // SAFETY: `t < top_len`; mid arrays (the shared absent one
        // too) hold `MID` page pointers and pages `PAGE` entries.
        unsafe {
            let mid = *self.top.add(t as usize);
            let page = *mid.add((i >> PAGE_BITS) as usize & (MID - 1));
            Some(page.add(i as usize & (PAGE - 1)))
        }
    }

    /// The row of `key`, when the set holds exactly that key.
    pub fn row_of(self, key: u64) -> Option<u32> {
        // SAFETY: an entry of an allocated page.
        Sparse::row_in(unsafe { *self.entry(key as u32)? }, key)
    }

    /// Column 0's element of `row` (NULL for a membership set).
    pub fn element(self, row: u32) -> *mut u8 {
        self.col0.wrapping_add(row as usize * self.size0)
    }

    /// The entry of slot index `i`, or [`ABSENT`]'s when its page does not
    /// exist: to read, never to write. Where it points stays right while
    /// no page is added or released: in a walk of the set that goes on,
    /// for the walk.
    pub fn entry_or_absent(self, i: u32) -> *const u64 {
        self.entry(i).map_or(&ABSENT, |e| e.cast_const())
    }

    /// Asks for the cache line of `key`'s index entry.
    pub fn prefetch(self, key: u64) {
        if let Some(e) = self.entry(key as u32) {
            prefetch(e.cast());
        }
    }

    /// The row of `key` that `entry` (its [`View::entry_or_absent`]) gives.
    ///
    /// # Safety
    /// `entry` is one that `entry_or_absent` gave for `key`'s slot index
    /// and that is still right.
    pub unsafe fn row_at(entry: *const u64, key: u64) -> Option<u32> {
        // SAFETY: the caller's guarantee.
        Sparse::row_in(unsafe { *entry }, key)
    }
}

impl Sparse {
    /// An empty set of columns `sizes` (none: a membership set), validated
    /// here: each column at least one byte, at most `MAX_COLUMNS`.
    pub fn new(sizes: &[u32], alloc: Allocator) -> Result<Sparse, Error> {
        if sizes.contains(&0) {
            return Err(Error::Invalid);
        }
        if sizes.len() > MAX_COLUMNS {
            return Err(Error::Full);
        }
        sizes
            .iter()
            .try_fold(0u32, |a, &s| a.checked_add(s))
            .ok_or(Error::Full)?;
        let mut fixed = [0u32; MAX_COLUMNS];
        fixed[..sizes.len()].copy_from_slice(sizes);
        Ok(Sparse {
            len: 0,
            cap: 0,
            columns: sizes.len() as u32,
            top_len: 0,
            sizes: fixed,
            block: ptr::null_mut(),
            col0: ptr::null_mut(),
            keys: ptr::null_mut(),
            top: ptr::null_mut(),
            alloc,
            epoch: crate::seed::stamp(),
            scratch: Scratch::NONE,
        })
    }

    /// A change (see `crate::stamp`).
    #[inline]
    pub(crate) fn bump_epoch(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
    }

    /// An empty set of the same columns, allocating through `alloc`.
    pub fn empty_like(&self, alloc: Allocator) -> Sparse {
        Sparse::new(self.sizes(), alloc).expect("valid columns")
    }

    #[inline]
    pub fn len(&self) -> u32 {
        self.len
    }

    /// The columns' sizes (the bound spares a check that could panic).
    pub fn sizes(&self) -> &[u32] {
        &self.sizes[..(self.columns as usize).min(MAX_COLUMNS)]
    }

    pub fn is_membership(&self) -> bool {
        self.columns == 0
    }

    /// The key of every row, in row order.
    pub fn keys(&self) -> &[u64] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: `keys` holds `len` initialized keys.
        unsafe { core::slice::from_raw_parts(self.keys, self.len as usize) }
    }

    /// The dense key array (NULL when empty).
    pub fn keys_ptr(&self) -> *const u64 {
        if self.len == 0 {
            ptr::null()
        } else {
            self.keys
        }
    }

    pub fn key_at(&self, row: u32) -> Option<u64> {
        self.keys().get(row as usize).copied()
    }

    // ---- the index --------------------------------------------------------

    /// The index entry of slot index `i`, if its page exists.
    fn entry(&self, i: u32) -> Option<*mut u64> {
        self.view().entry(i)
    }

    /// The row that slot index `i` holds (of whatever generation).
    fn slot_row(&self, i: u32) -> Option<u32> {
        // SAFETY: an entry of an allocated page.
        let e = unsafe { *self.entry(i)? };
        (e as u32).checked_sub(1)
    }

    /// Points `key`'s entry (its page exists) at `row`, or marks it absent
    /// (`None`).
    fn point(&mut self, key: u64, row: Option<u32>) {
        if let Some(e) = self.entry(key as u32) {
            // SAFETY: an entry of an allocated page.
            unsafe { *e = row.map_or(0, |r| key & VERSION | (r as u64 + 1)) };
        }
    }

    /// The row that `entry` gives `key`, when it is `key`'s: with the same
    /// version, the xor leaves `row + 1`, which is at most `MAX_ROWS`;
    /// any other version, or an absent entry (0), leaves a value whose
    /// decrement is `u32::MAX` or more.
    fn row_in(entry: u64, key: u64) -> Option<u32> {
        let r = (entry ^ key & VERSION).wrapping_sub(1);
        (r < u32::MAX as u64).then_some(r as u32)
    }

    /// The row of `key`, when the set holds exactly that key (the entry
    /// alone tells: see the module docs).
    pub fn row_of(&self, key: u64) -> Option<u32> {
        self.view().row_of(key)
    }

    /// Column 0's element of `row` (NULL for a membership set).
    pub fn element(&self, row: u32) -> *mut u8 {
        self.view().element(row)
    }

    /// What a lookup reads of the set, copied out.
    pub fn view(&self) -> View {
        View {
            top: self.top,
            top_len: self.top_len,
            col0: self.col0,
            size0: self.sizes[0] as usize,
        }
    }

    /// Column 0's element of `key`: `Some(NULL)` for a present key of a
    /// membership set.
    pub fn get(&self, key: u64) -> Option<*mut u8> {
        self.row_of(key).map(|r| self.element(r))
    }

    /// Column `c`'s first element, or NULL (no block, no such column).
    pub fn column(&self, c: usize) -> *mut u8 {
        if self.block.is_null() || c >= self.columns as usize {
            return ptr::null_mut();
        }
        let cap = self.cap as usize;
        let off = self
            .sizes
            .iter()
            .take(c)
            .fold(0, |off, &size| next_column(off, size as usize, cap));
        base_of(self.block).wrapping_add(off)
    }

    fn shape(&self, cap: u32) -> Option<Shape> {
        shape(self.sizes(), cap, KEY)
    }

    fn block_bytes(&self) -> usize {
        if self.block.is_null() {
            0
        } else {
            self.shape(self.cap).expect("allocated shape").bytes
        }
    }

    /// Points the set at a dense block of `cap` rows laid out as `l`.
    fn adopt_block(&mut self, block: *mut u8, cap: u32, l: &Shape) {
        let base = base_of(block);
        self.block = block;
        self.cap = cap;
        self.col0 = if self.columns == 0 {
            ptr::null_mut()
        } else {
            base.wrapping_add(l.offsets[0])
        };
        self.keys = base.wrapping_add(l.trailer).cast();
    }
}

impl Sparse {
    // ---- erase -------------------------------------------------------------

    /// Swap-and-pop: the last row fills the hole.
    pub fn erase(&mut self, key: u64) -> Result<(), Error> {
        // The last row's key is the one swap-and-pop repoints: its entry
        // is requested first, so that its cache miss overlaps the key's.
        if let Some(last) = self.keys().last() {
            self.view().prefetch(*last);
        }
        let r = self.row_of(key).ok_or(Error::NotFound)?;
        self.remove_row(r);
        Ok(())
    }

    /// Removes row `r` (below `len`) by swap-and-pop.
    fn remove_row(&mut self, r: u32) {
        let last = self.len - 1;
        // SAFETY: `r` and `last` are below `len`.
        let key = unsafe { *self.keys.add(r as usize) };
        if r != last {
            // SAFETY: both rows are below `len`, distinct.
            let moved = unsafe {
                move_columns(
                    base_of(self.block),
                    self.cap as usize,
                    self.sizes(),
                    last,
                    r,
                );
                let moved = *self.keys.add(last as usize);
                *self.keys.add(r as usize) = moved;
                moved
            };
            self.point(moved, Some(r));
        }
        self.point(key, None);
        self.len = last;
        self.bump_epoch();
    }

    /// Keeps the rows for which `keep(row, key)` holds, in order, and
    /// removes the others, in one pass.
    pub(super) fn retain(&mut self, mut keep: impl FnMut(u32, u64) -> bool) {
        let n = self.len;
        let mut write = 0u32;
        for read in 0..n {
            // SAFETY: `read < len`.
            let key = unsafe { *self.keys.add(read as usize) };
            if keep(read, key) {
                if write != read {
                    // SAFETY: rows below `len`, `write < read`.
                    unsafe {
                        move_columns(
                            base_of(self.block),
                            self.cap as usize,
                            self.sizes(),
                            read,
                            write,
                        );
                        *self.keys.add(write as usize) = key;
                    }
                    self.point(key, Some(write));
                }
                write += 1;
            } else {
                self.point(key, None);
            }
        }
        if write != n {
            self.len = write;
            self.bump_epoch();
        }
    }

    /// Erases every row whose key `owner` no longer accepts.
    pub fn prune(&mut self, owner: &SlotMap) {
        self.retain(|_, key| owner.row_of(key).is_some());
    }

    // ---- capacity and lifetime ---------------------------------------------

    /// Room for `n` more rows (the next `n` new keys allocate nothing for
    /// their rows).
    pub fn reserve(&mut self, n: u32) -> Result<(), Error> {
        let rows = self.len.checked_add(n).ok_or(Error::Full)?;
        if rows > MAX_ROWS {
            return Err(Error::Full);
        }
        if rows <= self.cap {
            return Ok(());
        }
        let l = self.shape(rows).ok_or(Error::Full)?;
        let p = self.alloc.alloc(l.bytes)?;
        let room = Room {
            block: Some((rows, l, p)),
            ..Room::default()
        };
        if let Some((block, bytes)) = self.install(room, 0) {
            // SAFETY: the old block, no longer used.
            unsafe { self.alloc.free(block, bytes) };
            self.bump_epoch();
        }
        Ok(())
    }

    /// Removes every row; the block and the index's pages stay.
    pub fn clear(&mut self) {
        for r in 0..self.len {
            // SAFETY: `r < len`.
            let key = unsafe { *self.keys.add(r as usize) };
            self.point(key, None);
        }
        self.len = 0;
        self.bump_epoch();
    }

    /// Gives the set its own allocator (or the default back): only while it
    /// holds no memory.
    pub fn set_allocator(&mut self, alloc: Allocator) -> Result<(), Error> {
        if !self.block.is_null() || !self.top.is_null() || !self.scratch.is_none() {
            return Err(Error::Invalid);
        }
        self.alloc = alloc;
        Ok(())
    }

    /// The allocator a clone of this set takes.
    pub fn clone_allocator(&self) -> Allocator {
        self.alloc.for_clone()
    }

    /// Every mid array and page of the index, with their top positions.
    fn mids(&self) -> impl Iterator<Item = (usize, Mid)> + '_ {
        (0..self.top_len as usize).filter_map(|t| {
            // SAFETY: `t < top_len`.
            let m = unsafe { *self.top.add(t) };
            (m != absent_mid()).then_some((t, m))
        })
    }

    /// Releases everything; the set stays usable (same columns, empty).
    pub fn free(&mut self) {
        let alloc = self.alloc;
        for (_, m) in self.mids() {
            for j in 0..MID {
                // SAFETY: a live mid array; its pages, but the absent
                // one, came from `alloc`.
                unsafe {
                    let p = *m.add(j);
                    if p != absent_page() {
                        alloc.free(p.cast(), PAGE_BYTES);
                    }
                }
            }
            // SAFETY: as above.
            unsafe { alloc.free(m.cast(), MID * size_of::<Page>()) };
        }
        // SAFETY: the top and the block came from `alloc`; nothing uses
        // them any more.
        unsafe {
            alloc.free(self.top.cast(), self.top_len as usize * size_of::<Mid>());
            alloc.free(self.block, self.block_bytes());
        }
        self.scratch.release(&alloc);
        let epoch = self.epoch;
        *self = self.empty_like(alloc);
        self.epoch = epoch.wrapping_add(1);
    }

    /// An independent copy allocating through `alloc`; on failure nothing
    /// is left allocated.
    pub fn try_clone(&self, alloc: Allocator) -> Result<Sparse, Error> {
        let mut copy = self.empty_like(alloc);
        let result = self.fill_clone(&mut copy);
        if result.is_err() {
            copy.free();
        }
        result.map(|()| copy)
    }

    fn fill_clone(&self, copy: &mut Sparse) -> Result<(), Error> {
        let alloc = copy.alloc;
        if !self.block.is_null() {
            let l = self.shape(self.cap).expect("allocated shape");
            let p = alloc.alloc(l.bytes)?;
            // SAFETY: same shape; rows `0 .. len` are initialized.
            unsafe {
                copy_rows(
                    (base_of(self.block), &l),
                    (base_of(p), &l),
                    self.sizes(),
                    KEY,
                    self.len as usize,
                )
            };
            copy.adopt_block(p, self.cap, &l);
            copy.len = self.len;
        }
        if !self.top.is_null() {
            copy.top = filled(alloc, self.top_len as usize, absent_mid())?;
            copy.top_len = self.top_len;
            for (t, m) in self.mids() {
                let mid = filled(alloc, MID, absent_page())?;
                // SAFETY: `t < top_len` of the copy's top too.
                unsafe { *copy.top.add(t) = mid };
                for j in 0..MID {
                    // SAFETY: a live mid array of `MID` entries.
                    let page = unsafe { *m.add(j) };
                    if page == absent_page() {
                        continue;
                    }
                    let to = alloc.alloc(PAGE_BYTES)?.cast::<u64>();
                    // SAFETY: both pages hold `PAGE` entries.
                    unsafe {
                        ptr::copy_nonoverlapping(page, to, PAGE);
                        *mid.add(j) = to;
                    }
                }
            }
        }
        Ok(())
    }
}
