//! Setting a key: the room a new key needs (a larger block, index top,
//! mid array or page), allocated before anything changes, then installed.

use core::mem::size_of;
use core::ptr;

use super::*;

/// What a new key needs allocated before it is placed: each part `None`
/// when it is there already.
#[derive(Default)]
pub(super) struct Room {
    pub(super) block: Option<(u32, Shape, *mut u8)>,
    pub(super) top: Option<(u32, *mut Mid)>,
    pub(super) mid: Option<Mid>,
    pub(super) page: Option<Page>,
}

impl Sparse {
    /// Inserts `key` with a copy of `row` (NULL: zeroes), or overwrites the
    /// row of a present key; a key holding another generation of the same
    /// slot takes over that row. With an `owner`, a key it does not accept
    /// is `NotFound` and changes nothing.
    ///
    /// # Safety
    /// `row` is NULL or has the columns' sizes in readable bytes; `owner`
    /// is a live slotmap.
    pub unsafe fn set(
        &mut self,
        owner: Option<&SlotMap>,
        key: u64,
        row: *const u8,
    ) -> Result<(), Error> {
        if key == 0 {
            return Err(Error::Invalid);
        }
        if owner.is_some_and(|o| o.row_of(key).is_none()) {
            return Err(Error::NotFound);
        }
        if let Some(r) = self.slot_row(key as u32) {
            // SAFETY: row `r` is below `len`; the caller's guarantee.
            unsafe { self.overwrite(r, row) };
            // SAFETY: as above, for its key.
            let old = unsafe { core::mem::replace(&mut *self.keys.add(r as usize), key) };
            self.point(key, Some(r));
            if old != key {
                // Another generation's row, taken over: a new key.
                self.bump_epoch();
            }
            return Ok(());
        }
        let room = self.room_for(key as u32, 1)?;
        let old_block = self.install(room, key as u32);
        let r = self.len;
        // SAFETY: `r < cap` after `install`; `row` may lie in the old
        // block, which is released only below.
        unsafe {
            copy_in_columns(base_of(self.block), self.cap as usize, self.sizes(), row, r);
            *self.keys.add(r as usize) = key;
        }
        self.point(key, Some(r));
        self.len += 1;
        self.bump_epoch();
        if let Some((block, bytes)) = old_block {
            // SAFETY: the old block, no longer used.
            unsafe { self.alloc.free(block, bytes) };
        }
        Ok(())
    }

    /// Copies `row` (NULL: zeroes) over row `r`; `row` may be one of this
    /// set's own rows, `r` included.
    ///
    /// # Safety
    /// `r < len`; `row` as for `set`.
    unsafe fn overwrite(&mut self, r: u32, row: *const u8) {
        let (base, cap) = (base_of(self.block), self.cap as usize);
        let (mut off, mut src) = (0usize, row);
        for &size in self.sizes() {
            let size = size as usize;
            // SAFETY: row `r` lies in the block; `src` has the row's bytes;
            // `copy` allows the source to be the destination.
            unsafe {
                let dst = base.add(off + r as usize * size);
                if src.is_null() {
                    ptr::write_bytes(dst, 0, size);
                } else {
                    ptr::copy(src, dst, size);
                    src = src.add(size);
                }
            }
            off = next_column(off, size, cap);
        }
    }

    /// Allocates what `new` more rows and slot index `i`'s page need; all
    /// or nothing.
    pub(super) fn room_for(&self, i: u32, new: u32) -> Result<Room, Error> {
        let mut room = Room::default();
        match self.allocate_room(i, new, &mut room) {
            Ok(()) => Ok(room),
            Err(e) => {
                self.release_room(room);
                Err(e)
            }
        }
    }

    pub(super) fn allocate_room(&self, i: u32, new: u32, room: &mut Room) -> Result<(), Error> {
        let rows = self.len.checked_add(new).ok_or(Error::Full)?;
        if rows > MAX_ROWS {
            return Err(Error::Full);
        }
        if rows > self.cap {
            let cap = rows.max(self.cap.saturating_mul(2)).clamp(8, MAX_ROWS);
            let l = self.shape(cap).ok_or(Error::Full)?;
            room.block = Some((cap, l, self.alloc.alloc(l.bytes)?));
        }
        let t = i >> (PAGE_BITS + MID_BITS);
        if t >= self.top_len {
            let len = (t + 1).max(self.top_len.saturating_mul(2)).min(TOP_MAX);
            room.top = Some((len, filled(self.alloc, len as usize, absent_mid())?));
        }
        let mid = if t < self.top_len {
            // SAFETY: `t < top_len`.
            unsafe { *self.top.add(t as usize) }
        } else {
            absent_mid()
        };
        if mid == absent_mid() {
            room.mid = Some(filled(self.alloc, MID, absent_page())?);
        }
        // SAFETY: a mid array (the absent one too) has `MID` entries.
        let page = unsafe { *mid.add((i >> PAGE_BITS) as usize & (MID - 1)) };
        if page == absent_page() {
            room.page = Some(self.alloc.alloc_zeroed(PAGE, size_of::<u64>())?.cast());
        }
        Ok(())
    }

    pub(super) fn release_room(&self, room: Room) {
        // SAFETY: each was allocated by `allocate_room` and is unused.
        unsafe {
            if let Some((_, l, p)) = room.block {
                self.alloc.free(p, l.bytes);
            }
            if let Some((len, p)) = room.top {
                self.alloc.free(p.cast(), len as usize * size_of::<Mid>());
            }
            if let Some(p) = room.mid {
                self.alloc.free(p.cast(), MID * size_of::<Page>());
            }
            if let Some(p) = room.page {
                self.alloc.free(p.cast(), PAGE_BYTES);
            }
        }
    }

    /// Puts what `room_for` allocated in place (completing slot index
    /// `i`'s path through the index with its mid array and page, where
    /// `room` has them). Returns the replaced block and its size, for the
    /// caller to release once it has read its row.
    pub(super) fn install(&mut self, room: Room, i: u32) -> Option<(*mut u8, usize)> {
        let mut old_block = None;
        if let Some((cap, l, p)) = room.block {
            if !self.block.is_null() {
                let old = self.shape(self.cap).expect("allocated shape");
                // SAFETY: both blocks hold `len` rows in their shapes.
                unsafe {
                    copy_rows(
                        (base_of(self.block), &old),
                        (base_of(p), &l),
                        self.sizes(),
                        KEY,
                        self.len as usize,
                    )
                };
                old_block = Some((self.block, old.bytes));
            }
            self.adopt_block(p, cap, &l);
        }
        if let Some((len, top)) = room.top {
            if !self.top.is_null() {
                // SAFETY: the old top has `top_len` entries, the new more.
                unsafe {
                    ptr::copy_nonoverlapping(self.top, top, self.top_len as usize);
                    self.alloc
                        .free(self.top.cast(), self.top_len as usize * size_of::<Mid>());
                }
            }
            self.top = top;
            self.top_len = len;
        }
        let t = (i >> (PAGE_BITS + MID_BITS)) as usize;
        // SAFETY: with a mid array or a page, `room_for` saw to a top
        // past `t`; mid arrays have `MID` entries.
        unsafe {
            if let Some(m) = room.mid {
                *self.top.add(t) = m;
            }
            if let Some(p) = room.page {
                *(*self.top.add(t)).add((i >> PAGE_BITS) as usize & (MID - 1)) = p;
            }
        }
        old_block
    }
}
