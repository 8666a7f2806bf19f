//! Columns: the dense block's shape (every column aligned, a per-row
//! array after them), its growth, and copying rows in and moving them.
//!
//! The free functions here are the row code that the slotmap and the
//! sparse sets (`crate::sparse`) share: a dense block of `cap` rows holds
//! each column (`sizes`, 16-byte aligned) and then a **trailer**, one
//! fixed-size entry per row (the slotmap's reverse map, a `u32` slot per
//! row; a sparse set's keys, a `u64` per row).

use core::ptr;

use crate::Error;

use super::{Link, Retired, SlotMap, COLUMN_ALIGN, MAX_COLUMNS, MAX_ROWS};

/// The shape of a dense block of `cap` rows: each column's offset from the
/// aligned base, the trailer's, and the bytes to allocate.
#[derive(Clone, Copy)]
pub(crate) struct Shape {
    pub(crate) offsets: [usize; MAX_COLUMNS],
    pub(crate) trailer: usize,
    pub(crate) bytes: usize,
}

/// The shape of a block of `cap` rows of columns `sizes` and a trailer of
/// `trailer`-byte entries; `None` for a size that cannot exist.
pub(crate) fn shape(sizes: &[u32], cap: u32, trailer: usize) -> Option<Shape> {
    let mut offsets = [0usize; MAX_COLUMNS];
    let mut at = 0usize;
    for (off, &size) in offsets.iter_mut().zip(sizes) {
        *off = at;
        at = align_up(
            at.checked_add((size as usize).checked_mul(cap as usize)?)?,
            COLUMN_ALIGN,
        )?;
    }
    let end = at.checked_add((cap as usize).checked_mul(trailer)?)?;
    let bytes = end.checked_add(COLUMN_ALIGN - 1)?;
    if bytes > isize::MAX as usize {
        return None;
    }
    Some(Shape {
        offsets,
        trailer: at,
        bytes,
    })
}

/// Copies one packed row (the columns' fields back to back; NULL: zeroes)
/// into row `r` of the block at `base` of `cap` rows.
///
/// # Safety
/// `r < cap`; `row` is NULL or has the sum of `sizes` readable bytes.
pub(crate) unsafe fn copy_in_columns(
    base: *mut u8,
    cap: usize,
    sizes: &[u32],
    row: *const u8,
    r: u32,
) {
    let (mut off, mut src) = (0usize, row);
    for &size in sizes {
        let size = size as usize;
        // SAFETY: row `r` is inside the block (`r < cap`); `src` has the
        // row's bytes when not NULL.
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

/// Copies row `from` over row `to` in every column of the block at `base`
/// of `cap` rows (not the trailer).
///
/// # Safety
/// Both rows are below `cap`, initialized, and distinct.
pub(crate) unsafe fn move_columns(base: *mut u8, cap: usize, sizes: &[u32], from: u32, to: u32) {
    let mut off = 0usize;
    for &size in sizes {
        let size = size as usize;
        // SAFETY: the caller's guarantee.
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

/// Copies rows `0 .. len` of every column and the trailer from the block
/// at `old` (laid out as `from`) to the block at `new` (laid out as `to`).
///
/// # Safety
/// Both blocks hold at least `len` rows in their shapes of `sizes` and
/// `trailer`-byte entries; they do not overlap.
pub(crate) unsafe fn copy_rows(
    (old, from): (*const u8, &Shape),
    (new, to): (*mut u8, &Shape),
    sizes: &[u32],
    trailer: usize,
    len: usize,
) {
    for (c, &size) in sizes.iter().enumerate() {
        // SAFETY: the caller's guarantee.
        unsafe {
            ptr::copy_nonoverlapping(
                old.add(from.offsets[c]),
                new.add(to.offsets[c]),
                len * size as usize,
            )
        };
    }
    // SAFETY: as above, for the trailer.
    unsafe { ptr::copy_nonoverlapping(old.add(from.trailer), new.add(to.trailer), len * trailer) };
}

/// The offset of the column after one at `off` of `size`-byte elements, in
/// a block of `cap` rows: `shape`'s arithmetic, unchecked (`shape`
/// checked it when the block was allocated).
pub(crate) fn next_column(off: usize, size: usize, cap: usize) -> usize {
    (off + size * cap + (COLUMN_ALIGN - 1)) & !(COLUMN_ALIGN - 1)
}

/// Copies one `size`-byte element; the common sizes without a `memcpy` call.
///
/// # Safety
/// As `ptr::copy_nonoverlapping(src, dst, size)`.
pub(super) unsafe fn copy_element(src: *const u8, dst: *mut u8, size: usize) {
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
/// store-forwarding stall (BENCHMARKS.md has what it cost). A 4-byte load
/// sits inside one store for any row of 4- and 8-byte fields.
///
/// # Safety
/// As `ptr::copy_nonoverlapping(src, dst, size)`.
pub(super) unsafe fn copy_in(src: *const u8, dst: *mut u8, size: usize) {
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
/// any other size is copied as 16) in 4-byte pieces, as `copy_in` explains,
/// for the fast insert.
///
/// # Safety
/// As `ptr::copy_nonoverlapping(src, dst, size)`, `size` one of the four.
pub(super) unsafe fn copy_simple(src: *const u8, dst: *mut u8, size: usize) {
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

/// Copies `W` 4-byte words, each one unaligned load and store, for `copy_in`.
///
/// # Safety
/// `src` and `dst` have `4 * W` bytes and do not overlap.
pub(super) unsafe fn copy_words<const W: usize>(src: *const u8, dst: *mut u8) {
    for i in 0..W {
        // SAFETY: the caller's guarantee; unaligned 4-byte accesses.
        unsafe {
            let (s, d) = (src.add(4 * i).cast::<u32>(), dst.add(4 * i).cast::<u32>());
            d.write_unaligned(s.read_unaligned());
        }
    }
}

pub(super) fn align_up(n: usize, a: usize) -> Option<usize> {
    Some(n.checked_add(a - 1)? & !(a - 1))
}

/// Aligns a raw allocation for the columns.
pub(crate) fn base_of(block: *mut u8) -> *mut u8 {
    let addr = block as usize;
    let pad = (COLUMN_ALIGN - addr % COLUMN_ALIGN) % COLUMN_ALIGN;
    block.wrapping_add(pad)
}

impl SlotMap {
    /// Bytes of the dense block as allocated (0 when there is none).
    pub(super) fn block_bytes(&self) -> usize {
        if self.block.is_null() {
            0
        } else {
            self.shape(self.cap).expect("allocated shape").bytes
        }
    }

    /// Bytes of the sparse index as allocated.
    pub(super) fn sparse_bytes(&self) -> usize {
        self.slot_cap as usize * size_of::<Link>()
    }

    /// The columns' sizes (the bound spares hot paths a check that could
    /// panic).
    pub(super) fn sizes(&self) -> &[u32] {
        &self.sizes[..(self.columns as usize).min(MAX_COLUMNS)]
    }

    pub(super) fn shape(&self, cap: u32) -> Option<Shape> {
        shape(self.sizes(), cap, size_of::<u32>())
    }

    #[inline]
    pub(super) fn base(&self) -> *mut u8 {
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
    pub(super) fn reverse(&self) -> *mut u32 {
        self.rev
    }

    /// Grows the dense block to at least `rows` and the sparse index so that
    /// `new_slots` more slots fit; all or nothing. The replaced allocations
    /// are handed back, not freed: `insert` may still be reading a row that
    /// lives in the old block (a copy of one of our own elements).
    pub(super) fn grow(&mut self, rows: u32, new_slots: u32) -> Result<Retired, Error> {
        let mut retired = Retired::default();
        let want_slots = self.slots.checked_add(new_slots).ok_or(Error::Full)?;
        if rows > MAX_ROWS || want_slots > MAX_ROWS {
            return Err(Error::Full);
        }
        let mut block = None;
        if rows > self.cap {
            let cap = rows.max(self.cap.saturating_mul(2)).clamp(8, MAX_ROWS);
            let shape = self.shape(cap).ok_or(Error::Full)?;
            block = Some((cap, shape, self.alloc.alloc(shape.bytes)?));
        }
        let mut sparse = None;
        if want_slots > self.slot_cap {
            let cap = want_slots
                .max(self.slot_cap.saturating_mul(2))
                .clamp(8, MAX_ROWS);
            let bytes = (cap as usize)
                .checked_mul(size_of::<Link>())
                .ok_or(Error::Full);
            match bytes.and_then(|b| self.alloc.alloc(b)) {
                Ok(p) => sparse = Some((cap, p.cast::<Link>())),
                Err(e) => {
                    if let Some((_, shape, p)) = block {
                        // SAFETY: allocated above, unused.
                        unsafe { self.alloc.free(p, shape.bytes) };
                    }
                    return Err(e);
                }
            }
        }
        if let Some((cap, shape, p)) = block {
            let new_base = base_of(p);
            if !self.block.is_null() {
                let old = self.shape(self.cap).expect("allocated shape");
                // SAFETY: both blocks hold `len` rows in their shapes.
                unsafe {
                    copy_rows(
                        (self.base(), &old),
                        (new_base, &shape),
                        self.sizes(),
                        size_of::<u32>(),
                        self.len as usize,
                    )
                };
                retired.block = self.block;
                retired.block_bytes = self.block_bytes();
            }
            self.block = p;
            self.cap = cap;
            self.col0 = new_base.wrapping_add(shape.offsets[0]);
            self.rev = new_base.wrapping_add(shape.trailer).cast();
        }
        if let Some((cap, p)) = sparse {
            if !self.sparse.is_null() {
                // SAFETY: the old index holds `slots` initialized slots.
                unsafe { ptr::copy_nonoverlapping(self.sparse, p, self.slots as usize) };
                retired.sparse = self.sparse.cast();
                retired.sparse_bytes = self.sparse_bytes();
            }
            self.sparse = p;
            self.slot_cap = cap;
        }
        if !retired.block.is_null() || !retired.sparse.is_null() {
            // Rows or slots moved (a block's first allocation moves none).
            self.bump_epoch();
        }
        Ok(retired)
    }

    /// Frees allocations that `grow` replaced.
    pub(super) fn release(&self, retired: Retired) {
        // SAFETY: both are NULL or old allocations of this slotmap that
        // nothing refers to any more.
        unsafe {
            self.alloc.free(retired.block, retired.block_bytes);
            self.alloc.free(retired.sparse, retired.sparse_bytes);
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

    /// `place`'s copy for several columns.
    ///
    /// # Safety
    /// As for `place`; `r < cap`.
    pub(super) unsafe fn copy_in_columns(&mut self, row: *const u8, r: u32) {
        // SAFETY: the caller's guarantee.
        unsafe { copy_in_columns(self.base(), self.cap as usize, self.sizes(), row, r) }
    }

    /// Copies row `from` over row `to` in every column and the reverse map,
    /// and points the moved row's slot at `to`.
    #[inline]
    pub(super) fn move_row(&mut self, from: u32, to: u32) {
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
    pub(super) fn simple_rows(&self) -> bool {
        self.columns == 1 && matches!(self.sizes[0], 4 | 8 | 12 | 16)
    }

    /// `move_row` for `simple_rows`: one column of one of four sizes.
    #[inline(always)]
    pub(super) fn move_row_fast(&mut self, from: u32, to: u32) {
        let size = self.sizes[0] as usize;
        // SAFETY: both rows are below `len`, inside the block; distinct;
        // `size` is one of the four.
        // Not `copy_simple`: these rows were written long ago (no stores
        // to wait on, see `copy_in`), so a 16-byte row moves as one wide
        // load and store.
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

    /// `move_row`'s copy for several columns, or one of an uncommon size.
    pub(super) fn move_columns(&mut self, from: u32, to: u32) {
        // SAFETY: both rows are below `len`, inside the block; distinct.
        unsafe { move_columns(self.base(), self.cap as usize, self.sizes(), from, to) }
    }
}
