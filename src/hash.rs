//! Hashing.
//!
//! A key's hash is XXH3-64 of its bytes, seeded with its map's seed (the
//! crate docs say why XXH3 rather than XXH64). The 64 bits split in two:
//!
//! ```text
//! 63                                   7 6      0
//! [ h1: directory index (top bits) ... ][ h2     ]
//! ```
//!
//! `h2` (7 bits) is the fingerprint stored in the control byte; `h1` picks the
//! table (its top `global_depth` bits), the split side (the next bit) and the
//! first group of the probe (its low bits).
//!
//! Each map's seed comes from [`crate::seed`].

use xxhash_rust::xxh3::xxh3_64_with_seed;

/// Keys up to this many bytes take XXH3's short paths (0–16, 17–128
/// bytes): straight-line code over the key that the compiler proves cannot
/// panic, so lookups of such keys need no unwinding guard.
pub const SHORT: usize = 128;

/// The hash of a key's bytes under `seed`.
#[inline]
pub fn hash(seed: u64, bytes: &[u8]) -> u64 {
    xxh3_64_with_seed(bytes, seed)
}

/// XXH3's default secret, words 24..32 ^ 32..40 and 40..48 ^ 48..56: what
/// its 9-to-16-byte path mixes into the key's first and last 8 bytes.
const FLIP1: u64 = 0x6782_737b_ea42_39b9;
const FLIP2: u64 = 0xaf56_bc3b_0996_523a;

/// The hash of an integer key's 10-byte encoding `[0x00, tag, v0 .. v7]`,
/// computed from `tag` and `v` without building the bytes: XXH3-64's path
/// for 9 to 16 bytes, which reads the first 8 bytes (`tag << 8 | v << 16`)
/// and the last 8 (`v`). Equal to `hash(seed, encoding)`; a test checks it.
#[inline]
pub fn hash_int(seed: u64, tag: u8, v: u64) -> u64 {
    let lo = (((tag as u64) << 8) | (v << 16)) ^ FLIP1.wrapping_add(seed);
    let hi = v ^ FLIP2.wrapping_sub(seed);
    let product = (lo as u128) * (hi as u128);
    let fold = (product as u64) ^ ((product >> 64) as u64);
    let mut acc = 10u64
        .wrapping_add(lo.swap_bytes())
        .wrapping_add(hi)
        .wrapping_add(fold);
    // XXH3's avalanche.
    acc ^= acc >> 37;
    acc = acc.wrapping_mul(0x1656_6791_9E37_79F9);
    acc ^ (acc >> 32)
}

/// The fingerprint kept in the control byte.
#[inline]
pub fn h2(hash: u64) -> u8 {
    (hash & 0x7F) as u8
}

/// Everything above the fingerprint.
#[inline]
pub fn h1(hash: u64) -> u64 {
    hash >> 7
}

#[cfg(test)]
mod tests {
    use super::*;

    /// splitmix64's step: the tests' source of varied values.
    const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;
    fn mix(mut z: u64) -> u64 {
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    #[test]
    fn hash_depends_on_seed_and_bytes() {
        assert_ne!(hash(1, b"abc"), hash(2, b"abc"));
        assert_ne!(hash(1, b"abc"), hash(1, b"abd"));
        assert_eq!(hash(7, b""), hash(7, b""));
        assert_eq!(h1(u64::MAX), u64::MAX >> 7);
        assert_eq!(h2(0xFF), 0x7F);
    }

    #[test]
    fn hash_int_is_xxh3_of_the_encoding() {
        let mut x = 7u64;
        let n = if cfg!(miri) { 200 } else { 200_000 };
        for i in 0..n {
            let (seed, v) = (mix(x), mix(x ^ 0xABCD));
            x = x.wrapping_add(GOLDEN);
            let v = match i % 4 {
                0 => v,
                1 => i as u64,
                2 => u64::MAX - i as u64,
                _ => (i as i64).wrapping_neg() as u64,
            };
            for tag in [1u8, 2] {
                let mut enc = vec![0u8, tag];
                enc.extend_from_slice(&v.to_le_bytes());
                assert_eq!(
                    hash_int(seed, tag, v),
                    hash(seed, &enc),
                    "seed {seed:#x} tag {tag} v {v:#x}"
                );
            }
        }
    }
}
