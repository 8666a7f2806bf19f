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

/// XXH3's default secret, its first 128 bytes as little-endian words: what
/// its path for 17 to 128 bytes mixes into the key, two words per 16 bytes.
const SECRET: [u64; 16] = [
    0xbe4b_a423_396c_feb8,
    0x1cad_21f7_2c81_017c,
    0xdb97_9083_e96d_d4de,
    0x1f67_b3b7_a4a4_4072,
    0x78e5_c0cc_4ee6_79cb,
    0x2172_ffcc_7dd0_5a82,
    0x8e24_43f7_7446_08b8,
    0x4c26_3a81_e690_35e0,
    0xcb00_c391_bb52_283c,
    0xa32e_531b_8b65_d088,
    0x4ef9_0da2_9748_6471,
    0xd8ac_dea9_46ef_1938,
    0x3f34_9ce3_3f76_faa8,
    0x1d4f_0bc7_c7bb_dcf9,
    0x3159_b4cd_4be0_518a,
    0x6473_78d9_c97e_9fc8,
];

/// XXH64's first prime, by which XXH3 scales a 17-to-128-byte key's length.
const PRIME64_1: u64 = 0x9E37_79B1_85EB_CA87;

/// The hash of a key of 17 to 128 bytes: XXH3-64's path for those lengths,
/// equal to [`hash`] (a test checks every length). XXH3 mixes the key's
/// first and last 16 bytes, then for each further 32 bytes of length the
/// next 16 from either end; this is that sum as a loop over the rounds
/// rather than XXH3's nested tests, so every length runs the same round.
/// Any other length takes [`hash`].
#[inline(always)]
pub fn hash_mid(seed: u64, key: &[u8]) -> u64 {
    let n = key.len();
    if !(17..=128).contains(&n) {
        return hash(seed, key);
    }
    let p = key.as_ptr();
    // SAFETY: callers read 8 bytes at offsets up to `n - 8`.
    let at = |i: usize| unsafe { p.add(i).cast::<u64>().read_unaligned() }.to_le();
    let mix = |i: usize, s: usize| {
        let lo = at(i) ^ SECRET[s % 16].wrapping_add(seed);
        let hi = at(i + 8) ^ SECRET[(s + 1) % 16].wrapping_sub(seed);
        let product = (lo as u128) * (hi as u128);
        (product as u64) ^ ((product >> 64) as u64)
    };
    let mut acc = (n as u64).wrapping_mul(PRIME64_1);
    // Rounds: 1 for 17..=32 bytes, up to 4 for 97..=128. Round `r` mixes
    // bytes `16r..16r + 16` and `n - 16r - 16..n - 16r`, both inside the
    // key: `16r + 16 <= 16 * rounds <= n` for `n >= 17`.
    let rounds = n.div_ceil(32);
    let mut r = 0;
    while r < rounds {
        acc = acc
            .wrapping_add(mix(16 * r, 4 * r))
            .wrapping_add(mix(n - 16 * r - 16, 4 * r + 2));
        r += 1;
    }
    avalanche(acc)
}

/// XXH3's avalanche.
fn avalanche(mut acc: u64) -> u64 {
    acc ^= acc >> 37;
    acc = acc.wrapping_mul(0x1656_6791_9E37_79F9);
    acc ^ (acc >> 32)
}

/// XXH3's default secret, words 24..32 ^ 32..40 and 40..48 ^ 48..56: what
/// its 9-to-16-byte path mixes into the key's first and last 8 bytes.
const FLIP1: u64 = 0x6782_737b_ea42_39b9;
const FLIP2: u64 = 0xaf56_bc3b_0996_523a;

/// A map's hash seed as the map keeps it: the XXH3 seed plus [`FLIP1`],
/// the sum the integer hash mixes into a key's first word, so that hashing
/// an integer adds no constant for it (every other use of the seed adds a
/// constant anyway, which absorbs the offset). 0 in a zero-filled map,
/// which has no seed yet; a drawn seed is never that.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Seed(u64);

impl Seed {
    /// A fresh, unpredictable seed (see `crate::seed`).
    pub fn drawn() -> Seed {
        Seed(crate::seed::map_seed())
    }

    /// The XXH3 seed `seed`, as a caller pins it.
    pub fn pinned(seed: u64) -> Seed {
        Seed(seed.wrapping_add(FLIP1))
    }

    /// The XXH3 seed.
    pub fn get(self) -> u64 {
        self.0.wrapping_sub(FLIP1)
    }

    /// Whether this is a zero-filled map's (no seed yet).
    pub fn is_none(self) -> bool {
        self.0 == 0
    }
}

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
    let acc = 10u64
        .wrapping_add(lo.swap_bytes())
        .wrapping_add(hi)
        .wrapping_add(fold);
    avalanche(acc)
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
    fn hash_mid_is_xxh3() {
        let bytes: Vec<u8> = (0..200u64).map(|i| mix(i) as u8).collect();
        let mut x = 11u64;
        let seeds = if cfg!(miri) { 2 } else { 200 };
        for _ in 0..seeds {
            let seed = mix(x);
            x = x.wrapping_add(GOLDEN);
            for start in [0, 3] {
                for n in 0..=160 {
                    let key = &bytes[start..start + n];
                    assert_eq!(hash_mid(seed, key), hash(seed, key), "seed {seed:#x} n {n}");
                }
            }
        }
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
