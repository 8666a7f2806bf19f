//! The sparse set's invariant checker (`slotmap_sparse_check`, and what a
//! snapshot load must make true before it accepts an image). It reads
//! each row and each index page once and allocates nothing.

use super::{absent_page, Sparse, MID, PAGE, VERSION};
use crate::slotmap::MAX_COLUMNS;

impl Sparse {
    /// Checks the rows against the index: every row's key is non-zero
    /// and its slot index's entry names exactly that key and row; no
    /// other entry is present (so no two rows share a slot index).
    pub fn check(&self) -> Result<(), &'static str> {
        if self.len > self.cap || self.columns as usize > MAX_COLUMNS {
            return Err("counts beyond capacity");
        }
        for (r, &key) in self.keys().iter().enumerate() {
            if key == 0 {
                return Err("a row's key is 0");
            }
            let want = key & VERSION | (r as u64 + 1);
            // SAFETY: an entry of an allocated page.
            match self.entry(key as u32).map(|e| unsafe { *e }) {
                Some(e) if e == want => {}
                _ => return Err("a row's key does not find its row"),
            }
        }
        let mut present = 0u64;
        for (_, m) in self.mids() {
            for j in 0..MID {
                // SAFETY: a live mid array of `MID` pages (the absent one
                // too), each of `PAGE` entries.
                let page = unsafe { *m.add(j) };
                if page == absent_page() {
                    continue;
                }
                for k in 0..PAGE {
                    // SAFETY: as above.
                    present += (unsafe { *page.add(k) } != 0) as u64;
                }
            }
        }
        if present != self.len as u64 {
            return Err("index entries that no row owns");
        }
        Ok(())
    }
}
