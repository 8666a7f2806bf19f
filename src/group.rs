//! The control word: eight one-byte slot states packed into a `u64`.
//!
//! Byte `i` of the word (bits `8i .. 8i+7`, counted from the least
//! significant end, so the layout is the same on every host) describes slot
//! `i` of the group:
//!
//! ```text
//! empty    1000_0000  0x80
//! deleted  1111_1110  0xFE
//! full     0hhh_hhhh  the slot's h2 (the low 7 bits of the key's hash)
//! ```
//!
//! All eight bytes are matched at once with integer arithmetic (SWAR), so a
//! probe costs the same on every target and needs no SIMD.

/// Slots in a group.
pub const SLOTS: usize = 8;
/// Control byte of an empty slot.
pub const EMPTY: u8 = 0x80;
/// Control byte of a deleted slot (a tombstone).
pub const DELETED: u8 = 0xFE;

const LSB: u64 = 0x0101_0101_0101_0101;
const MSB: u64 = 0x8080_8080_8080_8080;

/// One group's control word.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(transparent)]
pub struct Ctrl(pub u64);

impl Ctrl {
    /// Every slot empty.
    pub const EMPTY: Ctrl = Ctrl(LSB * EMPTY as u64);

    #[inline]
    pub fn get(self, i: usize) -> u8 {
        (self.0 >> (8 * i)) as u8
    }

    #[inline]
    pub fn set(&mut self, i: usize, byte: u8) {
        let shift = 8 * i;
        self.0 = (self.0 & !(0xFF << shift)) | ((byte as u64) << shift);
    }

    /// Slots whose byte equals `h2`.
    ///
    /// `v = ctrl ^ (h2 * 0x0101..01)` has a zero byte where the slot matches;
    /// `(v - 0x0101..01) & !v & 0x8080..80` marks zero bytes. The borrow can
    /// also mark a byte `0x01` that sits above a true match (a full slot
    /// whose h2 differs from ours in the lowest bit only): a false positive
    /// on a full slot, which the key comparison rejects. Empty and deleted
    /// bytes have the top bit set and are never marked.
    #[inline]
    pub fn match_h2(self, h2: u8) -> Bitset {
        let v = self.0 ^ (LSB * h2 as u64);
        Bitset(v.wrapping_sub(LSB) & !v & MSB)
    }

    /// Slots that are empty: `1000_0000`. Deleted (`1111_1110`) shares the
    /// top bit, so clear every byte whose bit 1 is set: `v & !(v << 6)`
    /// moves bit 1 of each byte under its bit 7.
    #[inline]
    pub fn match_empty(self) -> Bitset {
        let v = self.0;
        Bitset(v & !(v << 6) & MSB)
    }

    /// Slots that are deleted: `1111_1110`, the top bit and bit 1 set.
    #[cfg(test)]
    #[inline]
    pub fn match_deleted(self) -> Bitset {
        let v = self.0;
        Bitset(v & (v << 6) & MSB)
    }

    /// Slots that are empty or deleted: the top bit of the byte is set.
    #[inline]
    pub fn match_empty_or_deleted(self) -> Bitset {
        Bitset(self.0 & MSB)
    }

    /// Slots that hold an entry: the top bit of the byte is clear.
    #[inline]
    pub fn match_full(self) -> Bitset {
        Bitset(!self.0 & MSB)
    }
}

/// A set of slots, one marker bit (bit 7 of the slot's byte) per slot.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Bitset(u64);

impl Bitset {
    #[inline]
    pub fn any(self) -> bool {
        self.0 != 0
    }

    /// The lowest slot in the set.
    #[inline]
    pub fn first(self) -> Option<usize> {
        if self.0 == 0 {
            None
        } else {
            Some((self.0.trailing_zeros() / 8) as usize)
        }
    }

    /// The lowest slot in the set as the position of its marker bit:
    /// `8i + 7` for slot `i` (`0b00ii_i111`), from which a slot's address
    /// scales without the shift that [`Bitset::first`] takes (see
    /// `probe::slot_at`).
    #[inline]
    pub fn first_bit(self) -> Option<u32> {
        if self.0 == 0 {
            None
        } else {
            Some(self.0.trailing_zeros())
        }
    }
}

impl Bitset {
    /// The slots of the set from slot `i` (0 to 8) on: the bits from slot
    /// `i`'s byte up kept, for `i = 3` the mask `0xFFFF_FFFF_FF00_0000`.
    #[inline]
    pub fn from(self, i: usize) -> Bitset {
        Bitset(self.0 & u64::MAX.checked_shl(8 * i as u32).unwrap_or(0))
    }

    /// The set without its lowest slot.
    #[inline]
    pub fn rest(self) -> Bitset {
        Bitset(self.0 & self.0.wrapping_sub(1))
    }
}

impl Iterator for Bitset {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        let i = self.first()?;
        self.0 &= self.0 - 1;
        Some(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctrl(bytes: [u8; 8]) -> Ctrl {
        Ctrl(u64::from_le_bytes(bytes))
    }

    #[test]
    fn from_keeps_the_later_slots() {
        let full = ctrl([0x00; 8]).match_full();
        for i in 0..=8 {
            assert_eq!(full.from(i).collect::<Vec<_>>(), (i..8).collect::<Vec<_>>());
        }
        let c = ctrl([0x80, 0x12, 0xFE, 0x12, 0x7F, 0x80, 0x00, 0xFE]).match_full();
        assert_eq!(c.from(2).collect::<Vec<_>>(), [3, 4, 6]);
        assert_eq!(c.from(7).collect::<Vec<_>>(), [] as [usize; 0]);
    }

    #[test]
    fn matches_by_kind() {
        let c = ctrl([0x80, 0x12, 0xFE, 0x12, 0x7F, 0x80, 0x00, 0xFE]);
        assert_eq!(c.match_empty().collect::<Vec<_>>(), [0, 5]);
        assert_eq!(c.match_empty_or_deleted().collect::<Vec<_>>(), [0, 2, 5, 7]);
        assert_eq!(c.match_full().collect::<Vec<_>>(), [1, 3, 4, 6]);
        assert_eq!(c.match_deleted().collect::<Vec<_>>(), [2, 7]);
        assert_eq!(c.match_h2(0x12).collect::<Vec<_>>(), [1, 3]);
        assert_eq!(c.match_h2(0x00).collect::<Vec<_>>(), [6]);
        assert!(!c.match_h2(0x55).any());
    }

    #[test]
    fn false_positives_only_hit_full_slots() {
        // Every h2 against every mix of states: anything reported beyond the
        // exact matches must be a full slot.
        // Under Miri (slow) a sample; natively every case.
        let step = if cfg!(miri) { 37 } else { 1 };
        for h2 in (0u8..0x80).step_by(step) {
            for pattern in (0u32..512).step_by(step) {
                let mut bytes = [EMPTY; 8];
                for (i, b) in bytes.iter_mut().enumerate() {
                    *b = match (pattern >> i) & 3 {
                        0 => h2,
                        1 => h2 ^ 1,
                        2 => DELETED,
                        _ => EMPTY,
                    };
                }
                let c = ctrl(bytes);
                for i in c.match_h2(h2) {
                    assert!(bytes[i] < 0x80, "h2 {h2:#x} marked non-full slot {i}");
                }
                for (i, &b) in bytes.iter().enumerate() {
                    if b == h2 {
                        assert!(c.match_h2(h2).any_at(i), "missed exact match {i}");
                    }
                }
            }
        }
    }

    #[test]
    fn first_bit_is_the_first_slots_marker() {
        // Every set of slots: the lowest slot's marker bit, 8i + 7.
        for set in (0u32..256).step_by(if cfg!(miri) { 7 } else { 1 }) {
            let mut bytes = [0u8; 8];
            for (i, b) in bytes.iter_mut().enumerate() {
                if set >> i & 1 == 1 {
                    *b = EMPTY;
                }
            }
            let b = ctrl(bytes).match_empty();
            assert_eq!(b.first_bit(), b.first().map(|i| 8 * i as u32 + 7));
        }
    }

    #[test]
    fn set_and_get() {
        let mut c = Ctrl::EMPTY;
        c.set(3, 0x42);
        c.set(7, DELETED);
        assert_eq!(c.get(3), 0x42);
        assert_eq!(c.get(7), DELETED);
        assert_eq!(c.get(0), EMPTY);
        assert_eq!(c.match_full().count(), 1);
    }

    impl Bitset {
        fn any_at(self, i: usize) -> bool {
            self.0 & (0x80 << (8 * i)) != 0
        }
    }
}
