//! The integer keys' encoding.
//!
//! Integer keys are the bytes `[0x00, tag, v0 .. v7]` (`tag` 0x01 for i64,
//! 0x02 for u64, the value little-endian), so they never meet a string key
//! by accident and `slate_each` can report them as bytes. This is the
//! general layout; a table that holds integer keys of one kind only keeps
//! just their 8-byte values (see `layout.rs`), and [`super::Key::int`] recognises
//! an integer key in any form, also as raw bytes.

/// Length of an encoded integer key.
pub const INT_LEN: usize = 10;
/// The second byte of an encoded `i64` key.
pub const TAG_I64: u8 = 0x01;
/// The second byte of an encoded `u64` key.
pub const TAG_U64: u8 = 0x02;

/// The two words a slot holds for an integer key (see the layout above):
/// `[10, 0, 0, 0, 0x00, tag, v0, v1]` and `[v2 .. v7, 0, 0]`, little-endian.
pub fn int_words(tag: u8, v: u64) -> (u64, u64) {
    (
        INT_LEN as u64 | (tag as u64) << 40 | (v & 0xFFFF) << 48,
        v >> 16,
    )
}

/// An integer key's 10-byte encoding `[0x00, tag, v0 .. v7]`.
pub fn int_bytes(tag: u8, v: u64) -> [u8; INT_LEN] {
    let mut b = [0u8; INT_LEN];
    b[1] = tag;
    b[2..].copy_from_slice(&v.to_le_bytes());
    b
}

/// The value whose encoding under `tag` is `bytes`, if it is one
/// (`int_bytes` reversed).
pub fn int_of_bytes(bytes: &[u8], tag: u8) -> Option<u64> {
    match bytes {
        [0x00, t, v @ ..] if *t == tag => Some(u64::from_le_bytes(v.try_into().ok()?)),
        _ => None,
    }
}

/// The integer key whose inline words these are, if they are one:
/// `w0 = [10, 0, 0, 0, 0x00, tag, v0, v1]` with `tag` 0x01 or 0x02, and
/// `w1 = [v2 .. v7, 0, 0]`.
pub(super) fn int_of_words(w0: u64, w1: u64) -> Option<(u8, u64)> {
    let tag = (w0 >> 40) as u8;
    if w0 as u32 == INT_LEN as u32 && (w0 >> 32) as u8 == 0 && (tag == TAG_I64 || tag == TAG_U64) {
        Some((tag, w0 >> 48 | w1 << 16))
    } else {
        None
    }
}
