//! The sparse set's side of a snapshot (`crate::snapshot::sparse`): its
//! keys and columns read out, and a loaded set built key by key.
//!
//! A load builds a separate set with the destination's allocator and
//! columns ([`Sparse::candidate`]): room for every row first, then each
//! key through [`Sparse::push_key`], which allocates the index pages the
//! public `set` would and refuses key 0 and a second key of one slot
//! index. The columns are filled afterwards, the set is checked, and only
//! then does it replace the destination ([`Sparse::adopt`]); on any error
//! it is freed, and the destination never changed.

use core::ptr;

use crate::Error;

use super::Sparse;

impl Sparse {
    /// Whether the set holds no memory (a load's destination).
    pub(crate) fn holds_nothing(&self) -> bool {
        self.block.is_null() && self.top.is_null() && self.scratch.is_none()
    }

    /// Rows `0 .. len` of column `c` (below `columns`).
    pub(crate) fn column_bytes(&self, c: usize) -> &[u8] {
        let size = self.sizes().get(c).copied().unwrap_or(0);
        let n = self.len as usize * size as usize;
        if n == 0 {
            return &[];
        }
        // SAFETY: the block holds `cap >= len` rows of column `c`,
        // initialized below `len`.
        unsafe { core::slice::from_raw_parts(self.column(c), n) }
    }

    /// An empty set like this one, with this one's allocator.
    pub(crate) fn candidate(&self) -> Sparse {
        self.empty_like(self.alloc)
    }

    /// Appends row `len` for `key` without writing its columns (the
    /// caller fills them before anything reads them). `Corrupt` for key
    /// 0 or a slot index already held; `Alloc`/`Full` as `set`.
    pub(crate) fn push_key(&mut self, key: u64) -> Result<(), Error> {
        if key == 0 || self.slot_row(key as u32).is_some() {
            return Err(Error::Corrupt);
        }
        let room = self.room_for(key as u32, 1)?;
        let old = self.install(room, key as u32);
        debug_assert!(old.is_none(), "rows were reserved");
        if let Some((block, bytes)) = old {
            // SAFETY: a replaced block, no longer used.
            unsafe { self.alloc.free(block, bytes) };
        }
        let r = self.len;
        // SAFETY: `r < cap` after `install`.
        unsafe { *self.keys.add(r as usize) = key };
        self.point(key, Some(r));
        self.len += 1;
        Ok(())
    }

    /// Fills rows `0 .. len` of column `c` from `bytes`, which must be
    /// exactly that long (else nothing is written and false returned).
    pub(crate) fn fill_column(&mut self, c: usize, bytes: &[u8]) -> bool {
        let size = self.sizes().get(c).copied().unwrap_or(0);
        let n = self.len as usize * size as usize;
        if bytes.len() != n {
            return false;
        }
        if n > 0 {
            // SAFETY: the block holds `cap >= len` rows of column `c`;
            // `bytes` is input, not this block.
            unsafe { ptr::copy_nonoverlapping(bytes.as_ptr(), self.column(c), n) };
        }
        true
    }

    /// Takes a loaded set's state (this set holds no memory).
    pub(crate) fn adopt(&mut self, mut loaded: Sparse) {
        debug_assert!(self.holds_nothing());
        loaded.epoch = self.epoch.wrapping_add(1);
        // `Sparse` has no destructor, and this one holds nothing.
        *self = loaded;
    }
}
