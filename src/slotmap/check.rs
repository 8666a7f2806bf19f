//! The slotmap's invariant checker (tests).

use super::{SlotMap, NONE};

impl SlotMap {
    /// Checks the index against the rows: every row's slot points back at
    /// it with an odd version, every other slot is vacant (even) and on the
    /// free list or retired, and the free list has `free_len` slots.
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
