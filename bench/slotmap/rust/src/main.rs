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
use slotmap_bench::{default_reps, elem, fail, median, ns, parse_args, shuffle, weigh, Elem};

const PHASES: [&str; 5] = ["insert", "get", "iterate", "each", "erase"];

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

const USAGE: &str = "slotmap_bench [--impl slotmap|dense|both] [--reps K] [N ...]";

fn main() {
    let (which, reps, sizes) = parse_args("both", USAGE);
    let (sm, dense) = match which.as_str() {
        "slotmap" => (true, false),
        "dense" => (false, true),
        "both" => (true, true),
        _ => {
            eprintln!("usage: {USAGE}");
            exit(2)
        }
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
