//! The snapshot checksum, XXH3-64 with seed 0 (SPEC 6c), streamed: a
//! save hashes its pieces as they go out, a load as it reads them.
//!
//! On x86-64 processors with AVX2 (found at run time) the long input's
//! stripes are accumulated here, four 64-bit lanes at a time: about twice
//! the speed of `xxhash-rust`'s SSE2 code, which a build for the x86-64
//! baseline gets, and with the checksum beside a copy of the same bytes
//! that is most of what a save or a load costs beyond the copy. Everywhere
//! else `xxhash-rust`'s streaming hasher does the work. Both give
//! `xxh3_64` of the bytes (the tests compare them over lengths and
//! splits).
//!
//! The algorithm (XXH3's long-input path, for more than 240 bytes): eight
//! 64-bit accumulators take the input in stripes of 64 bytes, each with
//! its part of the secret (8 bytes further for each stripe of a block);
//! after a block of 16 stripes they are scrambled. The stripes that end
//! the input are held back: the last one is taken from the input's last
//! 64 bytes with a secret of its own, and then the accumulators are
//! merged with the length. Inputs of up to 240 bytes (never streamed
//! past the buffer here) go to `xxhash-rust`'s one-shot function.

use core::ptr;

use xxhash_rust::xxh3::Xxh3Default;

/// A streaming XXH3-64 of seed 0 (held in place: a save allocates
/// nothing).
pub(crate) enum Hasher {
    /// Accumulated here (AVX2).
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    Wide(Wide),
    /// `xxhash-rust`'s.
    Portable(Xxh3Default),
}

impl Hasher {
    pub(crate) fn new() -> Hasher {
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        if has_avx2() {
            return Hasher::Wide(Wide::new());
        }
        Hasher::portable()
    }

    pub(crate) fn update(&mut self, input: &[u8]) {
        match self {
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            Hasher::Wide(w) => w.update(input),
            Hasher::Portable(h) => h.update(input),
        }
    }

    /// `update`, and a copy of `input` to `to`, in one pass over it where
    /// the hash is accumulated here.
    ///
    /// # Safety
    /// `to` has room for `input.len()` bytes and does not overlap them (it
    /// may be NULL when there are none).
    pub(crate) unsafe fn update_copy(&mut self, input: &[u8], to: *mut u8) {
        if input.is_empty() {
            return;
        }
        match self {
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            // SAFETY: the caller's guarantee.
            Hasher::Wide(w) => unsafe { w.update_copy(input, to) },
            Hasher::Portable(h) => {
                // SAFETY: the caller's guarantee.
                unsafe { ptr::copy_nonoverlapping(input.as_ptr(), to, input.len()) };
                h.update(input);
            }
        }
    }

    pub(crate) fn digest(&self) -> u64 {
        match self {
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            Hasher::Wide(w) => w.digest(),
            Hasher::Portable(h) => h.digest(),
        }
    }

    /// `xxhash-rust`'s hasher, whatever the processor has.
    pub(crate) fn portable() -> Hasher {
        Hasher::Portable(Xxh3Default::new())
    }

    /// The checksum of `bytes`.
    pub(crate) fn of(bytes: &[u8]) -> u64 {
        let mut h = Hasher::new();
        h.update(bytes);
        h.digest()
    }
}

#[cfg(all(target_arch = "x86_64", not(miri)))]
mod wide;
#[cfg(all(target_arch = "x86_64", not(miri)))]
use wide::{has_avx2, Wide};

#[cfg(test)]
mod tests {
    use super::*;
    use xxhash_rust::xxh3::xxh3_64;

    fn input(n: usize) -> Vec<u8> {
        (0..n)
            .map(|i| {
                (i as u64)
                    .wrapping_mul(0x9E37_79B9_7F4A_7C15)
                    .rotate_left(17) as u8
            })
            .collect()
    }

    /// Every length up to a few blocks, and long ones, in one piece and
    /// in pieces of every shape: `xxh3_64` of the whole.
    #[test]
    fn streams_give_xxh3_64() {
        let long = input(if cfg!(miri) { 2200 } else { 70_000 });
        let mut lens: Vec<usize> = (0..=2200).collect();
        lens.extend([4095, 4096, 4097, 16_383, 16_384, 16_385, 65_536, 70_000]);
        if cfg!(miri) {
            // XXH3's boundaries: its input classes (1-3, 4-8, 9-16, 17-128,
            // 129-240 and longer bytes), a stripe (64) and a block (1024).
            lens = vec![
                0, 1, 3, 4, 8, 9, 16, 17, 128, 129, 240, 241, 255, 256, 1023, 1024, 1025, 2200,
            ];
        }
        let pieces: [&[usize]; 6] = [
            &[1],
            &[7],
            &[64],
            &[63, 65, 1],
            &[256, 255, 257],
            &[1000, 3, 4096],
        ];
        for &n in &lens {
            let bytes = &long[..n];
            let want = xxh3_64(bytes);
            assert_eq!(Hasher::of(bytes), want, "length {n}");
            for shape in pieces {
                // Pieces hashed, and pieces hashed and copied (every other
                // one copied, so both paths meet in one stream).
                for copied in [false, true] {
                    let mut h = Hasher::new();
                    let mut out = vec![0u8; n];
                    let (mut at, mut k) = (0, 0);
                    while at < n {
                        let m = shape[k % shape.len()].min(n - at);
                        if copied && k % 2 == 0 {
                            // SAFETY: `out` has room for the piece.
                            unsafe { h.update_copy(&bytes[at..at + m], out.as_mut_ptr().add(at)) };
                        } else {
                            h.update(&bytes[at..at + m]);
                            out[at..at + m].copy_from_slice(&bytes[at..at + m]);
                        }
                        at += m;
                        k += 1;
                    }
                    assert_eq!(h.digest(), want, "length {n}, pieces {shape:?}");
                    assert!(out == bytes, "length {n}, pieces {shape:?}: the copy");
                }
            }
        }
    }

    #[test]
    fn the_portable_hasher_agrees() {
        let bytes = input(5000);
        let mut p = Hasher::portable();
        p.update(&bytes);
        assert_eq!(p.digest(), Hasher::of(&bytes));
    }
}
