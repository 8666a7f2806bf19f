//! The slotmap's invariant checker: the index against the rows, the free
//! list, and the version state (`Versions`).
//!
//! It is what `slotmap_check` reports and what a snapshot load must make
//! true before it accepts an image (SPEC §6c): the version rules here are
//! the states `Versions` can reach, and `SNAPSHOT-FORMAT.md` writes them
//! down. It reads each slot and row a bounded number of times and
//! allocates nothing.

use super::{SlotMap, Versions, NONE};

/// The highest version there is, and `Versions::new`'s `retire_at`.
const TOP: u32 = u32::MAX;

impl Versions {
    /// Whether the fields are a state that `Versions::new` (from any odd
    /// start) and `next_era` can reach. Three kinds of era, and the state
    /// after the last:
    ///
    /// - first: `highest == 0`, `next == lowest` (odd),
    ///   `retire_at == u32::MAX - 1`;
    /// - above an earlier one: `lowest <= highest <= u32::MAX - 2`,
    ///   `next == (highest + 1) | 1`, `retire_at == u32::MAX - 1`;
    /// - below every earlier one: `next == lowest == 1`, `highest` is
    ///   `u32::MAX - 1` or `u32::MAX`, `retire_at` even with
    ///   `retire_at + 3 <= highest` (it is the old `lowest` minus 3);
    /// - none left: `next == retire_at == 0`, `lowest == 1`, `highest` is
    ///   `u32::MAX - 1` or `u32::MAX`, `retired == 0`.
    ///
    /// In every case `retired` is 0 or 1 and `lowest` is odd.
    pub(crate) fn check(&self) -> Result<(), &'static str> {
        let v = self;
        if v.retired > 1 {
            return Err("versions: retired is neither 0 nor 1");
        }
        if v.lowest & 1 == 0 {
            return Err("versions: lowest is even");
        }
        let ok = if v.next == 0 {
            v.retire_at == 0 && v.lowest == 1 && v.highest >= TOP - 1 && v.retired == 0
        } else if v.highest == 0 {
            v.next == v.lowest && v.retire_at == TOP - 1
        } else if v.retire_at == TOP - 1 {
            v.lowest <= v.highest && v.highest <= TOP - 2 && v.next == (v.highest + 1) | 1
        } else {
            v.next == 1
                && v.lowest == 1
                && v.highest >= TOP - 1
                && v.retire_at & 1 == 0
                && v.retire_at <= v.highest - 3
        };
        if ok {
            Ok(())
        } else {
            Err("versions: not a state the slotmap can reach")
        }
    }

    /// Whether a slot of this era may carry `version`: an occupied one
    /// (odd) from `next` to `last`, a vacant one (even) from `next + 1`
    /// to `retire_at`, a retired one 0. Nothing when no era is open.
    pub(crate) fn admits(&self, version: u32) -> bool {
        if self.next == 0 {
            return false;
        }
        version == 0 || (self.next <= version && version <= self.last())
    }
}

impl SlotMap {
    /// Checks the index against the rows: every row's slot points back at
    /// it with an odd version; every slot is occupied (odd), vacant (even,
    /// non-zero; linked to a slot or the end) or retired (0, linked to
    /// nothing), with a version its era admits; the free list from
    /// `free_head` visits exactly the vacant slots, `free_len` of them,
    /// each once; `retired` says whether a slot is retired; and the
    /// version state is reachable (`Versions::check`).
    pub fn check(&self) -> Result<(), &'static str> {
        if self.len > self.cap || self.slots > self.slot_cap || self.len > self.limit {
            return Err("counts beyond capacity");
        }
        if self.len > self.slots {
            return Err("more rows than slots");
        }
        self.versions.check()?;
        if self.versions.next == 0 && self.slots != 0 {
            return Err("slots in a slotmap whose versions are used up");
        }
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
        }
        let (mut occupied, mut vacant, mut retired) = (0u32, 0u32, 0u32);
        for i in 0..self.slots {
            let s = self.slot(i);
            if !self.versions.admits(s.version) {
                return Err("a slot's version is outside its era");
            }
            if s.version == 0 {
                if s.link != NONE {
                    return Err("a retired slot has a link");
                }
                retired += 1;
            } else if s.version & 1 == 1 {
                if s.link >= self.len {
                    return Err("an occupied slot names a row beyond the rows");
                }
                occupied += 1;
            } else {
                if s.link != NONE && s.link >= self.slots {
                    return Err("a vacant slot links beyond the index");
                }
                vacant += 1;
            }
        }
        // Each row's slot points back at that row alone, so `len`
        // distinct occupied slots are the rows'; no other may be.
        if occupied != self.len {
            return Err("occupied slots that no row owns");
        }
        if vacant != self.free_len {
            return Err("free list length is wrong");
        }
        if (retired != 0) != (self.versions.retired != 0) {
            return Err("versions: retired does not match the slots");
        }
        // `free_len` steps over vacant slots, then the end: a cycle never
        // ends, so it fails here; with no repeat the steps visit
        // `free_len` distinct vacant slots, which are all of them.
        let mut at = self.free_head;
        for _ in 0..self.free_len {
            if at >= self.slots {
                return Err("free list is broken");
            }
            let s = self.slot(at);
            if s.version == 0 || s.version & 1 == 1 {
                return Err("free list names a slot that is not vacant");
            }
            at = s.link;
        }
        if at != NONE {
            return Err("free list does not end after free_len slots");
        }
        Ok(())
    }
}
