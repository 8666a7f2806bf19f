//! The sparse set's side of a snapshot (`crate::snapshot::sparse`): its
//! keys and columns read out, and a loaded set built key by key.
//!
//! A load builds a separate set with the destination's allocator and
//! columns ([`Sparse::candidate`]): room for every row first, then the
//! keys in one pass ([`Sparse::load_keys`]), which allocates the index
//! pages the public `set` would and refuses key 0 and a second key of
//! one slot index. That pass leaves what the checker asks for: every
//! row's key non-zero and its entry naming it, and no other entry (each
//! key set one entry that was empty). The columns are filled afterwards,
//! and only then does the set replace the destination
//! ([`Sparse::adopt`]); on any error it is freed, and the destination
//! never changed.

use crate::slotmap::image::PIECE;
use crate::Error;

use super::{absent_page, Sparse, KEY, MID, MID_BITS, PAGE, PAGE_BITS, VERSION};

/// Rows a load looks ahead to request their index entries.
const LOAD_AHEAD: usize = 16;

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

    /// Takes the keys in `bytes` (little-endian `u64`s, in dense order)
    /// as rows `0 .. n` of this set, which holds no row and has room for
    /// them, without writing their columns (the caller fills them before
    /// anything reads them): copies them to the rows and points each
    /// key's index entry at its row, in one pass in row order, allocating
    /// the index's pages as `set` would. `Corrupt` for a key 0 or a
    /// second key of one slot index (found as an entry already set), in
    /// row order; `Alloc` or `Full` as `set`. On error the set holds what
    /// it allocated, for `free`. `seen` is shown each piece of `bytes` (of
    /// `PIECE` bytes at most, in order) just before it is read.
    pub(crate) fn load_keys(
        &mut self,
        bytes: &[u8],
        mut seen: impl FnMut(&[u8]),
    ) -> Result<(), Error> {
        let n = bytes.len() / KEY;
        if self.len != 0 || n > self.cap as usize {
            return Err(Error::Invalid);
        }
        let key_at = |r: usize| {
            let mut b = [0u8; KEY];
            b.copy_from_slice(&bytes[r * KEY..r * KEY + KEY]);
            u64::from_le_bytes(b)
        };
        let mut r = 0;
        for piece in bytes[..n * KEY].chunks(PIECE) {
            seen(piece);
            let end = r + piece.len() / KEY;
            while r < end {
                // The entry a few rows on is requested now (where its page
                // exists), so that the entries' misses overlap.
                if r + LOAD_AHEAD < n {
                    self.view().prefetch(key_at(r + LOAD_AHEAD));
                }
                let key = key_at(r);
                if key == 0 {
                    return Err(Error::Corrupt);
                }
                let e = self.own_entry(key as u32)?;
                // SAFETY: an entry of a page this set allocated; row `r`
                // of the block's `cap > r` keys.
                unsafe {
                    if *e != 0 {
                        return Err(Error::Corrupt);
                    }
                    *e = key & VERSION | (r as u64 + 1);
                    *self.keys.add(r) = key;
                }
                r += 1;
            }
        }
        self.len = n as u32;
        Ok(())
    }

    /// The index entry of slot index `i`, in a page of this set's own,
    /// allocated (with its mid array and a longer top) when missing.
    fn own_entry(&mut self, i: u32) -> Result<*mut u64, Error> {
        let t = i >> (PAGE_BITS + MID_BITS);
        if t < self.top_len {
            // SAFETY: `t < top_len`; a mid array (the absent one too)
            // holds `MID` page pointers.
            let page =
                unsafe { *(*self.top.add(t as usize)).add((i >> PAGE_BITS) as usize & (MID - 1)) };
            if page != absent_page() {
                // SAFETY: a page of `PAGE` entries.
                return Ok(unsafe { page.add(i as usize & (PAGE - 1)) });
            }
        }
        let room = self.room_for(i, 0)?;
        let old = self.install(room, i);
        debug_assert!(old.is_none(), "no rows were added");
        // `install` completed the path to `i`'s page.
        self.entry(i).ok_or(Error::Invalid)
    }

    /// Where rows `0 .. len` of column `c` (below `columns`) go (the
    /// block's, not yet written by a load), and their bytes: for a load
    /// to fill.
    pub(crate) fn column_room(&mut self, c: usize) -> (*mut u8, usize) {
        let size = self.sizes().get(c).copied().unwrap_or(0);
        (self.column(c), self.len as usize * size as usize)
    }

    /// Takes a loaded set's state (this set holds no memory).
    pub(crate) fn adopt(&mut self, mut loaded: Sparse) {
        debug_assert!(self.holds_nothing());
        loaded.epoch = self.epoch.wrapping_add(1);
        // `Sparse` has no destructor, and this one holds nothing.
        *self = loaded;
    }
}

#[cfg(test)]
mod tests {
    use core::ptr;

    use super::*;
    use crate::alloc::Allocator;

    fn bytes(keys: &[u64]) -> Vec<u8> {
        keys.iter().flat_map(|k| k.to_le_bytes()).collect()
    }

    /// Index pages a set holds.
    fn pages(s: &Sparse) -> usize {
        s.mids()
            .map(|(_, m)| {
                (0..MID)
                    // SAFETY: a live mid array of `MID` pages.
                    .filter(|&j| unsafe { *m.add(j) } != absent_page())
                    .count()
            })
            .sum()
    }

    #[test]
    fn loaded_keys_index_as_set_does() {
        // Slot indices across pages, mid arrays and top entries, in an
        // order that is not theirs; versions of every kind.
        let mut seen = std::collections::HashSet::new();
        let n: u32 = if cfg!(miri) { 100 } else { 3000 };
        let keys: Vec<u64> = (0..n)
            .map(|i| i.wrapping_mul(2_654_435_761) % (3 << 20))
            .filter(|&s| seen.insert(s))
            .map(|s| (s as u64 % 7 * 2 + 1) << 32 | s as u64)
            .collect();
        let mut built = Sparse::new(&[], Allocator::default()).unwrap();
        for &k in &keys {
            // SAFETY: no owner, no row bytes (a membership set).
            unsafe { built.set(None, k, ptr::null()) }.unwrap();
        }
        let mut loaded = Sparse::new(&[], Allocator::default()).unwrap();
        loaded.reserve(keys.len() as u32).unwrap();
        loaded.load_keys(&bytes(&keys), |_| {}).unwrap();
        loaded.check().unwrap();
        assert_eq!(loaded.keys(), &keys[..]);
        for (r, &k) in keys.iter().enumerate() {
            assert_eq!(loaded.row_of(k), Some(r as u32));
            assert_eq!(loaded.row_of(k ^ 2 << 32), None, "another version");
        }
        assert_eq!(pages(&loaded), pages(&built));
        assert!(loaded.top_len <= built.top_len);
        built.free();
        loaded.free();
    }

    #[test]
    fn loaded_keys_refuse_key_0_and_a_slot_twice() {
        for keys in [
            vec![1 << 32 | 5, 0, 3 << 32 | 6],
            vec![1 << 32 | 5, 3 << 32 | 7, 3 << 32 | 5],
            vec![1 << 32 | 5, 1 << 32 | 5],
        ] {
            let mut s = Sparse::new(&[4], Allocator::default()).unwrap();
            s.reserve(keys.len() as u32).unwrap();
            assert_eq!(s.load_keys(&bytes(&keys), |_| {}), Err(Error::Corrupt));
            s.free();
        }
        // Room for fewer rows than keys, or rows already there.
        let mut s = Sparse::new(&[], Allocator::default()).unwrap();
        s.reserve(1).unwrap();
        let cap = s.cap as usize;
        let keys: Vec<u64> = (1..=cap as u64 + 1).map(|i| 1 << 32 | i).collect();
        assert_eq!(s.load_keys(&bytes(&keys), |_| {}), Err(Error::Invalid));
        s.load_keys(&bytes(&keys[..1]), |_| {}).unwrap();
        assert_eq!(
            s.load_keys(&bytes(&keys[1..2]), |_| {}),
            Err(Error::Invalid)
        );
        s.free();
    }
}
