//! The slotmap's side of a snapshot (`crate::snapshot::slotmap`): its
//! logical state read out as the format holds it, and a loaded state put
//! in.
//!
//! Reading gives slices straight into the structure (the slot array and
//! each column's rows), so a save copies nothing it need not. Loading
//! builds a [`Candidate`]: a slotmap value that owns fresh allocations of
//! the destination's allocator and is filled from the bytes, its slots
//! checked as they are filled ([`Candidate::load_slots`] checks what
//! [`SlotMap::check`] checks, once); only then does it replace the
//! destination's state ([`SlotMap::adopt`]); dropped unchecked,
//! [`Candidate::release`] returns its memory, and the destination never
//! changed.

use core::ptr;

use crate::alloc::Allocator;
use crate::Error;

use super::columns::{base_of, shape};
use super::scratch::Scratch;
use super::{Link, SlotMap, Versions, MAX_COLUMNS, NONE};

/// What a slotmap snapshot's header section holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Head {
    pub(crate) columns: u32,
    pub(crate) sizes: [u32; MAX_COLUMNS],
    pub(crate) len: u32,
    pub(crate) slots: u32,
    pub(crate) free_head: u32,
    pub(crate) free_len: u32,
    /// `next, retire_at, lowest, highest, retired`.
    pub(crate) versions: [u32; 5],
}

impl Versions {
    fn to_array(self) -> [u32; 5] {
        [
            self.next,
            self.retire_at,
            self.lowest,
            self.highest,
            self.retired,
        ]
    }

    fn from_array(v: [u32; 5]) -> Versions {
        Versions {
            next: v[0],
            retire_at: v[1],
            lowest: v[2],
            highest: v[3],
            retired: v[4],
        }
    }
}

impl SlotMap {
    /// The header of this slotmap's snapshot.
    pub(crate) fn head(&self) -> Head {
        Head {
            columns: self.columns,
            sizes: self.sizes,
            len: self.len,
            slots: self.slots,
            free_head: self.free_head,
            free_len: self.free_len,
            versions: self.versions.to_array(),
        }
    }

    /// The slot array, `slots` pairs of (version, link) in memory order.
    pub(crate) fn slot_pairs(&self) -> &[[u32; 2]] {
        if self.slots == 0 {
            return &[];
        }
        // SAFETY: `sparse` holds `slots` initialized `Link`s, each two
        // `u32`s (`repr(C)`, no padding), the layout of `[u32; 2]`.
        unsafe { core::slice::from_raw_parts(self.sparse.cast(), self.slots as usize) }
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

    pub(crate) fn limit(&self) -> u32 {
        self.limit
    }

    pub(crate) fn sizes_of(&self) -> &[u32] {
        self.sizes()
    }

    /// Whether this slotmap never issued a key: no slot now, and no era
    /// ended (an era ends only at a `free` of a slotmap that had slots).
    pub(crate) fn never_issued(&self) -> bool {
        self.slots == 0 && self.versions.highest == 0
    }

    /// A candidate for this slotmap's state: `slots` slots and `len` rows
    /// (room for at least what this slotmap reserved), allocated from its
    /// allocator, the reverse map filled with `NONE`. `head`'s counts and
    /// versions are taken as they are: [`SlotMap::check`] judges them.
    pub(crate) fn candidate(&self, head: &Head) -> Result<Candidate, Error> {
        let mut c = Candidate(SlotMap {
            len: 0,
            cap: 0,
            slots: 0,
            slot_cap: 0,
            free_head: head.free_head,
            free_len: head.free_len,
            limit: self.limit,
            columns: self.columns,
            row_size: self.row_size,
            versions: Versions::from_array(head.versions),
            sizes: self.sizes,
            sparse: ptr::null_mut(),
            block: ptr::null_mut(),
            col0: ptr::null_mut(),
            rev: ptr::null_mut(),
            alloc: self.alloc,
            epoch: 0,
            scratch: Scratch::NONE,
        });
        let cap = head.len.max(self.cap);
        if cap > 0 {
            let l = self.shape(cap).ok_or(Error::Full)?;
            let block = self.alloc.alloc(l.bytes)?;
            let base = base_of(block);
            c.0.block = block;
            c.0.cap = cap;
            c.0.col0 = base.wrapping_add(l.offsets[0]);
            c.0.rev = base.wrapping_add(l.trailer).cast();
            for r in 0..head.len as usize {
                // SAFETY: the reverse map has `cap >= len` entries.
                unsafe { c.0.rev.add(r).write(NONE) };
            }
        }
        let slot_cap = head.slots.max(self.slot_cap);
        if slot_cap > 0 {
            let bytes = (slot_cap as usize)
                .checked_mul(size_of::<Link>())
                .ok_or(Error::Full);
            match bytes.and_then(|b| self.alloc.alloc(b)) {
                Ok(p) => c.0.sparse = p.cast(),
                Err(e) => {
                    c.release();
                    return Err(e);
                }
            }
            c.0.slot_cap = slot_cap;
        }
        c.0.len = head.len;
        Ok(c)
    }

    /// Takes the candidate's state, releasing what this slotmap held;
    /// keeps its allocator, limit, layout and scratch.
    pub(crate) fn adopt(&mut self, c: Candidate) {
        let mut c = c.0;
        // SAFETY: both came from this slotmap's allocator (the candidate's
        // is a copy of it) and nothing refers to them any more.
        unsafe {
            self.alloc.free(self.block, self.block_bytes());
            self.alloc.free(self.sparse.cast(), self.sparse_bytes());
        }
        c.epoch = self.epoch.wrapping_add(1);
        c.scratch = core::mem::replace(&mut self.scratch, Scratch::NONE);
        // `SlotMap` has no destructor: the old value needs none.
        *self = c;
    }
}

/// A slotmap state being loaded (see the module docs).
pub(crate) struct Candidate(SlotMap);

impl Candidate {
    /// Takes `bytes` (`SLTS`: little-endian pairs of a version and a
    /// link, one per slot) as the candidate's slots, checking in the same
    /// pass what [`SlotMap::check`] checks of them against the header's
    /// counts and versions, which the candidate holds: the version state;
    /// each slot's version admitted by its era; a retired slot (0)
    /// linked to nothing; an occupied slot (odd) naming a row below `len`
    /// that no other slot names (recorded in the reverse map); a vacant
    /// slot (even) linking to a slot or to nothing; as many occupied
    /// slots as rows and vacant ones as `free_len`; `retired` saying
    /// whether a slot is retired; and the free list, from `free_head`,
    /// visiting `free_len` vacant slots and ending. So an `Ok` candidate
    /// passes the checker. `Corrupt` for any other. `seen` is shown each
    /// piece of `bytes` (of [`PIECE`] bytes at most, in order) just
    /// before it is read.
    pub(crate) fn load_slots(
        &mut self,
        bytes: &[u8],
        seen: impl FnMut(&[u8]),
    ) -> Result<(), Error> {
        let m = &self.0;
        // A long free list is followed in a copy of its own (see
        // `FreeCopy`), made in the pass, which the second-level cache
        // holds where the slot array would not fit.
        let copy = if m.free_len >= FREE_COPY_MIN && m.free_len as usize <= bytes.len() / 8 {
            Some(FreeCopy::new(&m.alloc, bytes.len() / 8, m.free_len)?)
        } else {
            None
        };
        let loaded = self.fill_slots(bytes, seen, copy.as_ref());
        if let Some(c) = copy {
            c.release(&self.0.alloc);
        }
        loaded?;
        debug_assert!(self.0.check().is_ok());
        Ok(())
    }

    /// `load_slots`, with the free list's copy (if any) to fill and follow.
    fn fill_slots(
        &mut self,
        bytes: &[u8],
        mut seen: impl FnMut(&[u8]),
        copy: Option<&FreeCopy>,
    ) -> Result<(), Error> {
        let m = &mut self.0;
        let n = bytes.len() / 8;
        if n > m.slot_cap as usize || m.len as usize > n || m.len > m.cap {
            return Err(Error::Corrupt);
        }
        let v = m.versions;
        v.check().map_err(|_| Error::Corrupt)?;
        if v.next == 0 && n != 0 {
            return Err(Error::Corrupt);
        }
        let (len, slots, last) = (m.len, n as u32, v.last());
        let (mut occupied, mut vacant, mut retired) = (0u32, 0u32, 0u32);
        let mut i = 0usize;
        for piece in bytes.chunks(PIECE) {
            seen(piece);
            for pair in piece.chunks_exact(8) {
                let (version, link) = pair_at(pair);
                if version == 0 {
                    if link != NONE {
                        return Err(Error::Corrupt);
                    }
                    retired += 1;
                } else if version < v.next || version > last {
                    return Err(Error::Corrupt);
                } else if version & 1 == 1 {
                    if link >= len {
                        return Err(Error::Corrupt);
                    }
                    // SAFETY: the reverse map has `len` entries, initialized.
                    let r = unsafe { &mut *m.rev.add(link as usize) };
                    if *r != NONE {
                        return Err(Error::Corrupt);
                    }
                    *r = i as u32;
                    occupied += 1;
                } else {
                    if link != NONE && link >= slots {
                        return Err(Error::Corrupt);
                    }
                    if let Some(c) = copy {
                        c.mark(i, vacant, link);
                    }
                    vacant += 1;
                }
                // SAFETY: `i < n <= slot_cap`, the index's room.
                unsafe { m.sparse.add(i).write(Link { version, link }) };
                i += 1;
            }
        }
        m.slots = slots;
        // Each row was claimed by one occupied slot at most, so `len`
        // occupied slots claimed every row.
        if occupied != len || vacant != m.free_len || (retired != 0) != (v.retired != 0) {
            return Err(Error::Corrupt);
        }
        // `free_len` steps over vacant slots, then the end: a cycle never
        // ends, so it fails here; with no repeat the steps visit
        // `free_len` distinct vacant slots, which are all of them.
        let mut at = m.free_head;
        match copy {
            Some(c) => {
                c.count();
                for _ in 0..m.free_len {
                    at = c.next(at, slots).ok_or(Error::Corrupt)?;
                }
            }
            None => {
                for _ in 0..m.free_len {
                    if at >= slots {
                        return Err(Error::Corrupt);
                    }
                    let s = m.slot(at);
                    if s.version == 0 || s.version & 1 == 1 {
                        return Err(Error::Corrupt);
                    }
                    at = s.link;
                }
            }
        }
        if at != NONE {
            return Err(Error::Corrupt);
        }
        Ok(())
    }

    /// Where rows `0 .. len` of column `c` go (the candidate's block,
    /// not yet written), and their bytes: for the load to fill.
    pub(crate) fn column_room(&mut self, c: usize) -> (*mut u8, usize) {
        let n = self.0.len as usize * self.0.sizes()[c] as usize;
        (self.0.column(c), n)
    }

    /// Returns the candidate's memory to its allocator.
    pub(crate) fn release(self) {
        let c = self.0;
        let alloc: Allocator = c.alloc;
        // SAFETY: allocated by `candidate` with these sizes; unused.
        unsafe {
            alloc.free(c.block, c.block_bytes());
            alloc.free(c.sparse.cast(), c.sparse_bytes());
        }
    }
}

/// The version and link of an `SLTS` pair.
fn pair_at(pair: &[u8]) -> (u32, u32) {
    let word = |k: usize| u32::from_le_bytes([pair[k], pair[k + 1], pair[k + 2], pair[k + 3]]);
    (word(0), word(4))
}

/// The free lists a load follows in a copy of their own (`FreeCopy`):
/// shorter ones are followed in the slot array itself.
const FREE_COPY_MIN: u32 = 1024;

/// A loaded free list's copy, small enough for the second-level cache
/// where the slot array is past it: the vacant slots as a bitmap, 64
/// slots a word, each word with the count of vacant slots before it
/// (`marks`), which give a vacant slot's rank among them in slot order;
/// and each vacant slot's link by its rank (`links`). Following the list
/// then reads two small arrays a step rather than the slot array. Memory
/// of the load's own (the destination's allocator), released by the
/// load: at most `slots / 4 + 4 * free_len` bytes, less than the input's
/// 8 bytes a slot.
struct FreeCopy {
    /// `[bits, vacant slots before]` per 64 slots.
    marks: *mut [u64; 2],
    words: usize,
    links: *mut u32,
    /// Links the copy has room for: `free_len`.
    room: u32,
}

impl FreeCopy {
    fn new(alloc: &Allocator, slots: usize, free_len: u32) -> Result<FreeCopy, Error> {
        let words = slots.div_ceil(64);
        let p = alloc.alloc_zeroed(1, FreeCopy::bytes(words, free_len))?;
        Ok(FreeCopy {
            marks: p.cast(),
            words,
            // 16-byte marks, then 4-byte links: aligned.
            links: p.wrapping_add(words * 16).cast(),
            room: free_len,
        })
    }

    fn bytes(words: usize, room: u32) -> usize {
        words * 16 + room as usize * 4
    }

    /// Slot `i` is vacant, the `rank`th in slot order, linked to `link`
    /// (ranks past the room are not kept: the counts refuse such a list).
    fn mark(&self, i: usize, rank: u32, link: u32) {
        if i / 64 < self.words {
            // SAFETY: word `i / 64` of `words`.
            unsafe { (*self.marks.add(i / 64))[0] |= 1 << (i % 64) };
        }
        if rank < self.room {
            // SAFETY: `rank < room` links.
            unsafe { *self.links.add(rank as usize) = link };
        }
    }

    /// Fills in the counts before each word, once every slot is marked.
    fn count(&self) {
        let mut before = 0u64;
        for w in 0..self.words {
            // SAFETY: `w < words`.
            let m = unsafe { &mut *self.marks.add(w) };
            m[1] = before;
            before += m[0].count_ones() as u64;
        }
    }

    /// The link of vacant slot `at` (below `slots`); `None` when it is
    /// not one.
    fn next(&self, at: u32, slots: u32) -> Option<u32> {
        let i = at as usize;
        if at >= slots || i / 64 >= self.words {
            return None;
        }
        // SAFETY: `i / 64 < words`.
        let [bits, before] = unsafe { *self.marks.add(i / 64) };
        if bits >> (i % 64) & 1 == 0 {
            return None;
        }
        let rank = before + (bits & ((1u64 << (i % 64)) - 1)).count_ones() as u64;
        // A vacant slot's rank is below the vacant slots' count, which
        // the caller found equal to the room.
        (rank < self.room as u64)
            // SAFETY: `rank < room` links.
            .then(|| unsafe { *self.links.add(rank as usize) })
    }

    fn release(self, alloc: &Allocator) {
        // SAFETY: allocated by `new` with this size; no longer used.
        unsafe { alloc.free(self.marks.cast(), FreeCopy::bytes(self.words, self.room)) };
    }
}

/// The most bytes a load reads between two looks of its `seen` (see
/// `crate::snapshot::envelope::Checksum`): small enough that the piece
/// the checksum has just read is still in the first-level cache.
pub(crate) const PIECE: usize = 16 * 1024;

/// The shape check a load makes before it allocates a block: whether
/// `len` rows of `sizes` (and their reverse entries) can exist here.
pub(crate) fn rows_fit(sizes: &[u32], len: u32) -> bool {
    shape(sizes, len, size_of::<u32>()).is_some()
}

#[cfg(test)]
impl SlotMap {
    /// Starts this (fresh) slotmap's versions at `start` (odd), as a new
    /// slotmap whose random start fell there.
    pub(crate) fn start_versions_at(&mut self, start: u32) {
        assert!(self.never_issued() && start & 1 == 1);
        self.versions = Versions::new(start);
    }
}
