//! The `slotmap` crate's `SlotMap` and `DenseSlotMap`, called natively (and
//! inlined: release profile with LTO, one codegen unit), doing the same work
//! as `../slotmap_slate.c` (see there for the phases, the data, the shuffles
//! and the checks): setup (untimed: `with_capacity(N)`), insert, get in
//! shuffled order, iterate (`values()`), each (`iter()`: key and value),
//! erase in shuffled order (`remove`).
//!
//! Output, one line per implementation, phase and N (median over the
//! repetitions):
//!
//! ```text
//! SlotMap <phase> <N> <ns_per_op> <checksum>
//! DenseSlotMap <phase> <N> <ns_per_op> <checksum>
//! ```
//!
//! Usage: `slotmap_bench [--impl slotmap|dense|both] [--reps K] [N ...]`

use std::hint::black_box;
use std::process::exit;
use std::time::Instant;

use slotmap::{DefaultKey, DenseSlotMap, Key, SlotMap};

#[derive(Clone, Copy)]
#[repr(C)]
struct Elem {
    id: u64,
    x: f32,
    y: f32,
}

const _: () = assert!(std::mem::size_of::<Elem>() == 16);

const PHASES: [&str; 5] = ["insert", "get", "iterate", "each", "erase"];

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A permutation of `0..n`, Fisher-Yates, as in the C programs.
fn shuffle(n: u32, seed: u64) -> Vec<u32> {
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

#[inline(always)]
fn elem(i: u32) -> Elem {
    Elem {
        id: i as u64 + 1,
        x: i as f32,
        y: (2 * i) as f32,
    }
}

#[inline(always)]
fn weigh(e: &Elem) -> u64 {
    e.id.wrapping_add(e.x.to_bits() as u64)
}

fn median(mut v: Vec<u64>) -> u64 {
    v.sort_unstable();
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2
    }
}

fn fail(name: &str, what: &str, n: u32) -> ! {
    eprintln!("slotmap_bench: {name} N={n}: {what}");
    exit(1);
}

fn ns(t0: Instant) -> u64 {
    t0.elapsed().as_nanos() as u64
}

/// The same benchmark for both maps (their APIs match).
macro_rules! bench {
    ($fn_name:ident, $map:ident, $label:literal) => {
        fn $fn_name(n: u32, reps: u32) {
            let get_perm = shuffle(n, 0x5EED_0001 ^ n as u64);
            let erase_perm = shuffle(n, 0x5EED_0002 ^ n as u64);
            let expect = (0..n).fold(0u64, |a, i| a.wrapping_add(weigh(&elem(i))));
            let mut times: [Vec<u64>; 5] = Default::default();
            let mut checks = [0u64; 5];
            let mut keys: Vec<DefaultKey> = Vec::with_capacity(n as usize);
            let mut get_keys: Vec<DefaultKey> = Vec::with_capacity(n as usize);
            let mut erase_keys: Vec<DefaultKey> = Vec::with_capacity(n as usize);

            for _ in 0..reps {
                let mut sm: $map<DefaultKey, Elem> = $map::with_capacity(n as usize);
                keys.clear();
                black_box(&mut sm);
                black_box(&mut keys);

                // insert
                let t0 = Instant::now();
                for i in 0..n {
                    keys.push(sm.insert(elem(i)));
                }
                black_box(&mut sm);
                black_box(&mut keys);
                times[0].push(ns(t0));
                if sm.len() != n as usize || keys.len() != n as usize {
                    fail($label, "insert", n);
                }
                checks[0] = sm.len() as u64;

                get_keys.clear();
                erase_keys.clear();
                let mut key_xor = 0u64;
                for i in 0..n as usize {
                    get_keys.push(keys[get_perm[i] as usize]);
                    erase_keys.push(keys[erase_perm[i] as usize]);
                    key_xor ^= keys[i].data().as_ffi();
                }
                black_box(&mut get_keys);
                black_box(&mut erase_keys);

                // get
                let t0 = Instant::now();
                let mut sum = 0u64;
                let mut bad = 0u32;
                for &k in &get_keys {
                    match sm.get(k) {
                        Some(e) => sum = sum.wrapping_add(weigh(e)),
                        None => bad += 1,
                    }
                }
                black_box((sum, bad));
                times[1].push(ns(t0));
                if bad != 0 || sum != expect {
                    fail($label, "get", n);
                }
                checks[1] = sum;
                black_box(&mut sm);

                // iterate
                let t0 = Instant::now();
                let sum = sm.values().fold(0u64, |a, e| a.wrapping_add(weigh(e)));
                black_box(sum);
                times[2].push(ns(t0));
                if sum != expect {
                    fail($label, "iterate", n);
                }
                checks[2] = sum;
                black_box(&mut sm);

                // each: keys and values
                let t0 = Instant::now();
                let (sum, kx) = sm.iter().fold((0u64, 0u64), |(a, x), (k, e)| {
                    (a.wrapping_add(weigh(e)), x ^ k.data().as_ffi())
                });
                black_box((sum, kx));
                times[3].push(ns(t0));
                if sum != expect || kx != key_xor {
                    fail($label, "each", n);
                }
                checks[3] = sum;
                black_box(&mut sm);

                // erase
                let t0 = Instant::now();
                let mut erased = 0u32;
                for &k in &erase_keys {
                    erased += sm.remove(k).is_some() as u32;
                }
                black_box(erased);
                black_box(&mut sm);
                times[4].push(ns(t0));
                if erased != n || !sm.is_empty() {
                    fail($label, "erase", n);
                }
                checks[4] = erased as u64;
            }

            for (p, t) in times.into_iter().enumerate() {
                println!(
                    "{} {} {} {:.3} {}",
                    $label,
                    PHASES[p],
                    n,
                    median(t) as f64 / n as f64,
                    checks[p]
                );
            }
        }
    };
}

bench!(run_slotmap, SlotMap, "SlotMap");
bench!(run_dense, DenseSlotMap, "DenseSlotMap");

fn default_reps(n: u32) -> u32 {
    (4_000_000 / n).clamp(7, 301)
}

fn usage() -> ! {
    eprintln!("usage: slotmap_bench [--impl slotmap|dense|both] [--reps K] [N ...]");
    exit(2);
}

fn main() {
    let mut which = String::from("both");
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
    let (sm, dense) = match which.as_str() {
        "slotmap" => (true, false),
        "dense" => (false, true),
        "both" => (true, true),
        _ => usage(),
    };
    for n in sizes {
        let r = if reps > 0 { reps } else { default_reps(n) };
        if sm {
            run_slotmap(n, r);
        }
        if dense {
            run_dense(n, r);
        }
    }
}
