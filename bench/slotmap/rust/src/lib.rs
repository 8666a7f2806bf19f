//! What the slotmap benchmark's Rust programs share (`src/main.rs`: the
//! slotmap section; `src/bin/sparse_bench.rs`: the sparse-set section):
//! the element, its checksum weight, the shuffles, the medians and the
//! command line. The C programs (`../slotmap_slate.c`, `../sparse_slate.c`,
//! through `../common.h`) do the same.

use std::process::exit;
use std::time::Instant;

/// The 16-byte element of every phase.
#[derive(Clone, Copy)]
#[repr(C)]
pub struct Elem {
    pub id: u64,
    pub x: f32,
    pub y: f32,
}

const _: () = assert!(std::mem::size_of::<Elem>() == 16);

pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A permutation of `0..n`, Fisher-Yates, as in the C programs.
pub fn shuffle(n: u32, seed: u64) -> Vec<u32> {
    let mut s = seed;
    let mut perm: Vec<u32> = (0..n).collect();
    let mut i = n;
    while i > 1 {
        let j = (splitmix64(&mut s) % i as u64) as usize;
        perm.swap(i as usize - 1, j);
        i -= 1;
    }
    perm
}

/// Row `i`: `{ i + 1, i, 2 i }`.
#[inline(always)]
pub fn elem(i: u32) -> Elem {
    Elem {
        id: i as u64 + 1,
        x: i as f32,
        y: (2 * i) as f32,
    }
}

/// What a phase sums over the elements it finds: `id + bits(x)`.
#[inline(always)]
pub fn weigh(e: &Elem) -> u64 {
    e.id.wrapping_add(e.x.to_bits() as u64)
}

pub fn median(mut v: Vec<u64>) -> u64 {
    v.sort_unstable();
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2
    }
}

/// A failed check: prints `<program>: <name> N=<n>: <what>` and exits 1.
pub fn fail(name: &str, what: &str, n: u32) -> ! {
    let program = std::env::args()
        .next()
        .and_then(|p| p.rsplit('/').next().map(str::to_owned))
        .unwrap_or_default();
    eprintln!("{program}: {name} N={n}: {what}");
    exit(1);
}

/// Nanoseconds since `t0`.
pub fn ns(t0: Instant) -> u64 {
    t0.elapsed().as_nanos() as u64
}

/// Repetitions per N unless `--reps` says: 4,000,000 / N, within 7 .. 301.
pub fn default_reps(n: u32) -> u32 {
    (4_000_000 / n).clamp(7, 301)
}

/// The command line, `[--impl NAME] [--reps K] [N ...]`: the implementation
/// (`default_impl` unless given), the repetitions (0: `default_reps`) and
/// the sizes (default 1,000, 100,000 and 1,000,000). Anything else prints
/// `usage` and exits 2.
pub fn parse_args(default_impl: &str, usage: &str) -> (String, u32, Vec<u32>) {
    let usage = || -> ! {
        eprintln!("usage: {usage}");
        exit(2)
    };
    let mut which = String::from(default_impl);
    let mut reps = 0u32;
    let mut sizes: Vec<u32> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--impl" => which = args.next().unwrap_or_else(|| usage()),
            "--reps" => {
                reps = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or_else(|| usage())
            }
            _ => match a.parse::<u32>() {
                Ok(v) if v > 0 && v <= 100_000_000 => sizes.push(v),
                _ => usage(),
            },
        }
    }
    if sizes.is_empty() {
        sizes = vec![1000, 100_000, 1_000_000];
    }
    (which, reps, sizes)
}
