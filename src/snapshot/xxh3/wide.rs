//! XXH3-64's long-input path with AVX2: the eight accumulators as two
//! 256-bit registers (see the parent module for the algorithm). Built on
//! x86-64 only, and not under Miri; `has_avx2` asks the processor.

use core::ptr;

use xxhash_rust::xxh3::xxh3_64;

/// Whether the processor has AVX2 and the system saves its registers:
/// asked of the processor once (`cpuid`, `xgetbv`), without the standard
/// library's detection, which reads the environment (a save allocates
/// nothing and keeps no unwinding path).
pub(super) fn has_avx2() -> bool {
    use core::sync::atomic::{AtomicU8, Ordering};
    /// 0: not asked yet; 1: no; 2: yes.
    static FOUND: AtomicU8 = AtomicU8::new(0);
    match FOUND.load(Ordering::Relaxed) {
        1 => false,
        2 => true,
        _ => {
            let yes = ask_avx2();
            FOUND.store(if yes { 2 } else { 1 }, Ordering::Relaxed);
            yes
        }
    }
}

fn ask_avx2() -> bool {
    use core::arch::x86_64::{__cpuid, __cpuid_count};
    // (`cpuid` exists on every x86-64 processor.)
    let leaf1 = __cpuid(1);
    // OSXSAVE (the system enabled `xgetbv`) and AVX.
    if leaf1.ecx & (1 << 27) == 0 || leaf1.ecx & (1 << 28) == 0 || __cpuid(0).eax < 7 {
        return false;
    }
    // SAFETY: OSXSAVE: `xgetbv` is enabled.
    let xcr0 = unsafe { xcr0() };
    // The system saves the SSE and AVX registers; the processor has AVX2.
    xcr0 & 0b110 == 0b110 && __cpuid_count(7, 0).ebx & (1 << 5) != 0
}

/// The extended control register 0 (which register states the system
/// saves).
///
/// # Safety
/// The processor has `xgetbv` and the system enabled it (OSXSAVE).
#[target_feature(enable = "xsave")]
unsafe fn xcr0() -> u64 {
    // SAFETY: the caller's guarantee.
    unsafe { core::arch::x86_64::_xgetbv(0) }
}

/// Bytes of a stripe.
const STRIPE: usize = 64;
/// Stripes of a block, between two scrambles.
const BLOCK_STRIPES: usize = (SECRET.len() - STRIPE) / 8;
/// Bytes held back from the accumulators: input comes in and is buffered
/// here until more follows it (the input's end must stay unaccumulated).
const BUFFER: usize = 256;
/// The longest input the short paths hash (`xxhash-rust`'s one-shot).
const SHORT: u64 = 240;

/// XXH3's default secret.
const SECRET: [u8; 192] = [
    0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
    0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
    0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
    0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
    0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
    0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
    0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
    0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
    0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
    0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
    0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
    0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
];

const PRIME32_1: u64 = 0x9E37_79B1;
const PRIME32_2: u64 = 0x85EB_CA77;
const PRIME32_3: u64 = 0xC2B2_AE3D;
const PRIME64_1: u64 = 0x9E37_79B1_85EB_CA87;
const PRIME64_2: u64 = 0xC2B2_AE3D_27D4_EB4F;
const PRIME64_3: u64 = 0x1656_67B1_9E37_79F9;
const PRIME64_4: u64 = 0x85EB_CA77_C2B2_AE63;
const PRIME64_5: u64 = 0x27D4_EB2F_1656_67C5;

/// The accumulators' start.
const START: [u64; 8] = [
    PRIME32_3, PRIME64_1, PRIME64_2, PRIME64_3, PRIME64_4, PRIME32_2, PRIME64_5, PRIME32_1,
];

/// The little-endian `u64` at `at` of the secret.
fn secret_word(at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&SECRET[at..at + 8]);
    u64::from_le_bytes(w)
}

/// The state of a hash accumulated with AVX2.
pub(crate) struct Wide {
    acc: [u64; 8],
    /// Stripes of the current block accumulated.
    stripes: usize,
    /// Bytes given so far.
    total: u64,
    /// Bytes given and not accumulated: `buffer[..held]`.
    buffer: [u8; BUFFER],
    held: usize,
    /// The last 64 bytes accumulated (what precedes `buffer`).
    tail: [u8; STRIPE],
}

impl Wide {
    pub(super) fn new() -> Wide {
        Wide {
            acc: START,
            stripes: 0,
            total: 0,
            buffer: [0; BUFFER],
            held: 0,
            tail: [0; STRIPE],
        }
    }

    pub(super) fn update(&mut self, input: &[u8]) {
        // SAFETY: no copy is asked for.
        unsafe { self.update_copy_to(input, None) }
    }

    /// # Safety
    /// As for `Hasher::update_copy`.
    pub(super) unsafe fn update_copy(&mut self, input: &[u8], to: *mut u8) {
        // SAFETY: the caller's guarantee.
        unsafe { self.update_copy_to(input, Some(to)) }
    }

    /// `update`, copying `input` to `to` on the way when given: the
    /// stripes accumulated straight from `input` are copied by the same
    /// loads.
    ///
    /// # Safety
    /// `to` is `None` or as for `Hasher::update_copy`.
    unsafe fn update_copy_to(&mut self, mut input: &[u8], mut to: Option<*mut u8>) {
        // Copies `part` (the next bytes of `input`) to where `to` is, and
        // moves `to` past them.
        let copy = |part: &[u8], to: &mut Option<*mut u8>| {
            if let (Some(p), false) = (to, part.is_empty()) {
                // SAFETY: the caller's guarantee: room for all of
                // `input`, of which `part` is the next piece.
                unsafe {
                    ptr::copy_nonoverlapping(part.as_ptr(), *p, part.len());
                    *p = p.add(part.len());
                }
            }
        };
        self.total += input.len() as u64;
        if input.len() <= BUFFER - self.held {
            copy(input, &mut to);
            self.buffer[self.held..self.held + input.len()].copy_from_slice(input);
            self.held += input.len();
            return;
        }
        // More follows what the buffer holds: it can be accumulated whole.
        if self.held > 0 {
            let fill = BUFFER - self.held;
            copy(&input[..fill], &mut to);
            self.buffer[self.held..].copy_from_slice(&input[..fill]);
            input = &input[fill..];
            let full = self.buffer;
            // SAFETY: `Wide` is only made where the processor has AVX2.
            unsafe { accumulate(&mut self.acc, &mut self.stripes, &full, None) };
            self.tail.copy_from_slice(&full[BUFFER - STRIPE..]);
            self.held = 0;
        }
        // All the stripes of `input` but its last 1 to 64 bytes.
        let n = (input.len() - 1) / STRIPE * STRIPE;
        if n > 0 {
            // SAFETY: as above; `to` has room for `input`.
            unsafe { accumulate(&mut self.acc, &mut self.stripes, &input[..n], to) };
            to = to.map(|p| p.wrapping_add(n));
            self.tail.copy_from_slice(&input[n - STRIPE..n]);
        }
        let rest = &input[n..];
        copy(rest, &mut to);
        self.buffer[..rest.len()].copy_from_slice(rest);
        self.held = rest.len();
    }

    pub(super) fn digest(&self) -> u64 {
        if self.total <= SHORT {
            return xxh3_64(&self.buffer[..self.held]);
        }
        let (mut acc, mut stripes) = (self.acc, self.stripes);
        let held = &self.buffer[..self.held];
        let mut last = [0u8; STRIPE];
        if held.len() >= STRIPE {
            let n = (held.len() - 1) / STRIPE * STRIPE;
            // SAFETY: `Wide` is only made where the processor has AVX2.
            unsafe { accumulate(&mut acc, &mut stripes, &held[..n], None) };
            last.copy_from_slice(&held[held.len() - STRIPE..]);
        } else {
            let (before, now) = last.split_at_mut(STRIPE - held.len());
            before.copy_from_slice(&self.tail[held.len()..]);
            now.copy_from_slice(held);
        }
        // SAFETY: as above.
        unsafe { accumulate_last(&mut acc, &last) };
        let mut h = self.total.wrapping_mul(PRIME64_1);
        for i in 0..4 {
            let m = (acc[2 * i] ^ secret_word(11 + 16 * i)) as u128
                * (acc[2 * i + 1] ^ secret_word(11 + 16 * i + 8)) as u128;
            h = h.wrapping_add(m as u64 ^ (m >> 64) as u64);
        }
        h ^= h >> 37;
        h = h.wrapping_mul(0x1656_6791_9E37_79F9);
        h ^ (h >> 32)
    }
}

use core::arch::x86_64::{
    __m256i, _mm256_add_epi64, _mm256_loadu_si256, _mm256_mul_epu32, _mm256_set1_epi32,
    _mm256_shuffle_epi32, _mm256_slli_epi64, _mm256_srli_epi64, _mm256_storeu_si256,
    _mm256_xor_si256,
};

/// One stripe at `input` into the accumulators, with the secret at
/// `key`: each lane takes the stripe's word (from its neighbour) and the
/// product of the halves of the word mixed with the secret. The stripe,
/// as loaded.
///
/// # Safety
/// AVX2; `input` and `key` have 64 readable bytes.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn stripe(acc: &mut [__m256i; 2], input: *const u8, key: *const u8) -> [__m256i; 2] {
    // SAFETY: the caller's guarantee; unaligned loads.
    let d = unsafe {
        [
            _mm256_loadu_si256(input.cast()),
            _mm256_loadu_si256(input.add(32).cast()),
        ]
    };
    for (i, a) in acc.iter_mut().enumerate() {
        // SAFETY: as above.
        let k = unsafe { _mm256_loadu_si256(key.add(32 * i).cast()) };
        let dk = _mm256_xor_si256(d[i], k);
        let product = _mm256_mul_epu32(dk, _mm256_shuffle_epi32::<0b00_11_00_01>(dk));
        let swapped = _mm256_shuffle_epi32::<0b01_00_11_10>(d[i]);
        *a = _mm256_add_epi64(product, _mm256_add_epi64(*a, swapped));
    }
    d
}

/// The scramble after a block, with the secret's last 64 bytes.
///
/// # Safety
/// AVX2.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn scramble(acc: &mut [__m256i; 2]) {
    let prime = _mm256_set1_epi32(PRIME32_1 as i32);
    for (i, a) in acc.iter_mut().enumerate() {
        // SAFETY: the secret's last 64 bytes, unaligned loads.
        unsafe {
            let d = _mm256_xor_si256(*a, _mm256_srli_epi64::<47>(*a));
            let k = _mm256_loadu_si256(SECRET.as_ptr().add(SECRET.len() - STRIPE + 32 * i).cast());
            let dk = _mm256_xor_si256(d, k);
            let low = _mm256_mul_epu32(dk, prime);
            let high = _mm256_mul_epu32(_mm256_shuffle_epi32::<0b00_11_00_01>(dk), prime);
            *a = _mm256_add_epi64(low, _mm256_slli_epi64::<32>(high));
        }
    }
}

/// The accumulators as two vectors of four lanes, and back.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn load(acc: &[u64; 8]) -> [__m256i; 2] {
    // SAFETY: eight `u64`s, unaligned loads.
    unsafe {
        [
            _mm256_loadu_si256(acc.as_ptr().cast()),
            _mm256_loadu_si256(acc.as_ptr().add(4).cast()),
        ]
    }
}

#[target_feature(enable = "avx2")]
#[inline]
unsafe fn store(v: [__m256i; 2], acc: &mut [u64; 8]) {
    // SAFETY: eight `u64`s, unaligned stores.
    unsafe {
        _mm256_storeu_si256(acc.as_mut_ptr().cast(), v[0]);
        _mm256_storeu_si256(acc.as_mut_ptr().add(4).cast(), v[1]);
    }
}

/// Accumulates `data` (whole stripes), `stripes` of whose block are
/// done, scrambling after every 16th; with `to`, copies `data` there
/// from the same loads.
///
/// # Safety
/// AVX2; `to` is `None` or has room for `data.len()` bytes that do not
/// overlap it.
#[target_feature(enable = "avx2")]
unsafe fn accumulate(acc: &mut [u64; 8], stripes: &mut usize, data: &[u8], to: Option<*mut u8>) {
    // SAFETY (all): AVX2, the caller's guarantee; each stripe is 64 bytes
    // of `data` (and of `to`'s room), each key 64 bytes of the secret (at
    // most 8 * 15 + 64).
    unsafe {
        let mut v = load(acc);
        for (k, s) in data.chunks_exact(STRIPE).enumerate() {
            let lanes = stripe(&mut v, s.as_ptr(), SECRET.as_ptr().add(*stripes * 8));
            if let Some(to) = to {
                let at = to.add(k * STRIPE);
                _mm256_storeu_si256(at.cast(), lanes[0]);
                _mm256_storeu_si256(at.add(32).cast(), lanes[1]);
            }
            *stripes += 1;
            if *stripes == BLOCK_STRIPES {
                scramble(&mut v);
                *stripes = 0;
            }
        }
        store(v, acc);
    }
}

/// The last stripe of the input, with its own part of the secret.
///
/// # Safety
/// AVX2.
#[target_feature(enable = "avx2")]
unsafe fn accumulate_last(acc: &mut [u64; 8], last: &[u8; STRIPE]) {
    // SAFETY: AVX2; 64 bytes of `last`, and of the secret from 121.
    unsafe {
        let mut v = load(acc);
        stripe(
            &mut v,
            last.as_ptr(),
            SECRET.as_ptr().add(SECRET.len() - STRIPE - 7),
        );
        store(v, acc);
    }
}
