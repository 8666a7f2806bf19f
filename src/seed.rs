//! Seeds: a distinct, unpredictable hash seed for every map, and a random
//! starting generation for every slotmap, with no system call per map.
//!
//! # Terms
//!
//! - **key**: 128 bits of OS entropy (`getrandom`), drawn once per process
//!   the first time a seed is needed. There are two, one per stream.
//! - **stream**: a process-wide atomic counter `n` and the keyed function
//!   (SipHash-2-4) that turns it into values. Map seeds and slotmap
//!   generations come from two streams with independent keys, so nothing
//!   one reveals says anything about the other.
//!
//! # Map seeds
//!
//! `seed(n) = SipHash-2-4_k(n)`: a pseudo-random function of the counter
//! under a 128-bit key. Without the key, the seeds seen (`slate_info`
//! reports them) tell nothing about any other seed, earlier or later. (The
//! splitmix64 stretch this replaces was invertible without a key: one seed
//! gave the counter's offset, and with it every other seed.) Distinct
//! counters give distinct seeds except by a collision of the function,
//! which a process of a million maps meets with probability about 2^-25;
//! two maps sharing a seed only hash alike. A seed costs one SipHash of
//! one block and no system call. A seed is never 0, which marks a
//! zero-filled map that has no seed yet. (A map keeps the value drawn as
//! its `hash::Seed` word: the XXH3 seed is that word less a constant.)
//!
//! # Slotmap generations
//!
//! `generation(n) = (low32(SipHash_k'(n)) & 0x3FFF_FFFF) | 1`: odd, below
//! 2^30 so that a slot has more than 1.5 * 10^9 reuses before it retires.
//! Keys of a slotmap carry it in their high half, so it must not reveal
//! map seeds (another key) nor other slotmaps' generations (a PRF).
//!
//! Without an entropy source (`getrandom` failing, which it does not on
//! the platforms slate supports), the keys come from addresses: seeds stay
//! varied, but are no longer unpredictable.

use core::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// The two streams' keys: map seeds, then slotmap generations.
static KEYS: OnceLock<[[u64; 2]; 2]> = OnceLock::new();
static MAP_COUNTER: AtomicU64 = AtomicU64::new(0);
static SLOTMAP_COUNTER: AtomicU64 = AtomicU64::new(0);
static STAMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// SipHash-2-4 of one 8-byte message `m` (its bytes little-endian) under the
/// key `(k0, k1)`.
pub fn siphash24(k0: u64, k1: u64, m: u64) -> u64 {
    let mut v = [
        k0 ^ 0x736f_6d65_7073_6575,
        k1 ^ 0x646f_7261_6e64_6f6d,
        k0 ^ 0x6c79_6765_6e65_7261,
        k1 ^ 0x7465_6462_7974_6573,
    ];
    let round = |v: &mut [u64; 4]| {
        v[0] = v[0].wrapping_add(v[1]);
        v[1] = v[1].rotate_left(13) ^ v[0];
        v[0] = v[0].rotate_left(32);
        v[2] = v[2].wrapping_add(v[3]);
        v[3] = v[3].rotate_left(16) ^ v[2];
        v[0] = v[0].wrapping_add(v[3]);
        v[3] = v[3].rotate_left(21) ^ v[0];
        v[2] = v[2].wrapping_add(v[1]);
        v[1] = v[1].rotate_left(17) ^ v[2];
        v[2] = v[2].rotate_left(32);
    };
    // The message block, then the final block: the length (8) in the top
    // byte, no bytes left over.
    for block in [m, 8 << 56] {
        v[3] ^= block;
        round(&mut v);
        round(&mut v);
        v[0] ^= block;
    }
    v[2] ^= 0xFF;
    for _ in 0..4 {
        round(&mut v);
    }
    v[0] ^ v[1] ^ v[2] ^ v[3]
}

fn keys() -> &'static [[u64; 2]; 2] {
    KEYS.get_or_init(|| {
        let mut bytes = [0u8; 32];
        let mut words = [0u64; 4];
        if getrandom::fill(&mut bytes).is_ok() {
            for (w, b) in words.iter_mut().zip(bytes.chunks_exact(8)) {
                *w = u64::from_le_bytes(b.try_into().unwrap_or([0; 8]));
            }
        } else {
            // No entropy source: addresses, which differ between runs where
            // the OS randomizes the layout.
            let local = 0u8;
            let a = &local as *const u8 as usize as u64;
            let b = keys as fn() -> &'static [[u64; 2]; 2] as usize as u64;
            for (i, w) in words.iter_mut().enumerate() {
                *w = siphash24(a, b, i as u64);
            }
        }
        [[words[0], words[1]], [words[2], words[3]]]
    })
}

/// A new seed for one map (see the module docs); never 0, the seed of a
/// zero-filled `slate_s` that has no tables yet.
pub fn map_seed() -> u64 {
    let key = keys()[0];
    loop {
        let seed = siphash24(key[0], key[1], MAP_COUNTER.fetch_add(1, Ordering::Relaxed));
        if seed != 0 {
            return seed;
        }
    }
}

/// A structure's first epoch (see `map/cursor.rs`): in `1 .. 2^62`, so
/// that no number of changes a program can make wraps it to 0 (a
/// zero-filled map's) or back to a value it held; drawn from the slotmap
/// stream's key with a counter of its own, so that the epochs of distinct
/// structures start at unrelated points and a stamp taken on one does not
/// match another.
pub fn stamp() -> u64 {
    let key = keys()[1];
    let x = siphash24(
        key[0],
        key[1],
        STAMP_COUNTER.fetch_add(1, Ordering::Relaxed) | 1 << 63,
    );
    (x >> 2) | 1
}

/// A slotmap's first generation: odd, below 2^30.
pub fn slotmap_generation() -> u32 {
    let key = keys()[1];
    let x = siphash24(
        key[0],
        key[1],
        SLOTMAP_COUNTER.fetch_add(1, Ordering::Relaxed),
    );
    (x as u32 & 0x3FFF_FFFF) | 1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference implementation's test vector for the 8-byte message
    /// 00 01 .. 07 under the key 00 01 .. 0f, and std's own SipHash-2-4.
    #[test]
    fn siphash_is_siphash24() {
        let (k0, k1) = (0x0706_0504_0302_0100, 0x0f0e_0d0c_0b0a_0908);
        assert_eq!(
            siphash24(k0, k1, 0x0706_0504_0302_0100),
            0x93f5_f579_9a93_2462
        );
        let n: u64 = if cfg!(miri) { 50 } else { 2_000 };
        for i in 0..n {
            let m = i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            #[allow(deprecated)]
            let mut std = core::hash::SipHasher::new_with_keys(k0 ^ i, k1);
            core::hash::Hasher::write(&mut std, &m.to_le_bytes());
            assert_eq!(siphash24(k0 ^ i, k1, m), core::hash::Hasher::finish(&std));
        }
    }

    #[test]
    fn seeds_are_distinct_and_never_zero() {
        let n = if cfg!(miri) { 200 } else { 10_000 };
        let mut seen: Vec<u64> = (0..n).map(|_| map_seed()).collect();
        assert!(seen.iter().all(|&s| s != 0));
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), n);
        assert!((0..100).all(|_| slotmap_generation() % 2 == 1 && slotmap_generation() < 1 << 30));
    }

    #[test]
    #[cfg_attr(target_family = "wasm", ignore = "no threads on wasm32-wasip1")]
    fn seeds_are_distinct_across_threads() {
        let handles: Vec<_> = (0..4)
            .map(|_| {
                std::thread::spawn(|| {
                    (0..if cfg!(miri) { 50 } else { 2_000 })
                        .map(|_| map_seed())
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let mut all: Vec<u64> = handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect();
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n);
    }
}
