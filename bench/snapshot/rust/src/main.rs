//! The Rust peer of the snapshot benchmark: the `slotmap` crate's
//! `SlotMap` and `DenseSlotMap`, saved with serde + bincode 2
//! (`bincode::serde::encode_into_slice`) into a buffer allocated and
//! touched before, and loaded with `bincode::serde::decode_from_slice`
//! into a new slotmap (its allocations included; the drop after it is
//! not timed). Two bincode configurations: `standard()` (variable-length
//! integers, bincode 2's default) and `standard().with_fixed_int_encoding()`.
//!
//! The workloads are ../snapshot_slate.c's slotmap ones, with the same
//! rows and the same churn (the same shuffle picks the erased keys):
//! slotmap-r16-fresh, slotmap-r16-churn, slotmap-r64-fresh,
//! slotmap-r64-churn. A 64-byte row is one struct here (the crate has no
//! columns), with the fields of the C program's three columns.
//!
//! The repetitions are ../common.h's: a warm-up run of each operation
//! (with the full checks), then as many runs as fit the budget, the
//! operations taking turns; the median ns of the timed runs is printed:
//!
//!     <impl> <workload> <save|load> <N> <rows> <ns> <bytes>
//!
//! (bytes: bincode's output). Checks: every save's length (the warm-up's
//! bytes against the first save's); every load's length and consumed
//! bytes, and on the warm-up run every live key's row, every erased key
//! absent, and the loaded slotmap's save equal to the snapshot.
//!
//! Usage: snapshot_bench --impl slotmap|dense [--config standard|fixint]
//!                       [--clock cpu|wall] [--budget-ms MS] [--min-reps K]
//!                       [--max-reps K] [--workloads W,W,...] N ...

use serde::{de::DeserializeOwned, Deserialize, Serialize};
use slotmap::{DefaultKey, DenseSlotMap, SlotMap};

/// `struct timespec` on 64-bit Linux.
#[repr(C)]
struct Timespec {
    tv_sec: i64,
    tv_nsec: i64,
}

extern "C" {
    // From the C library the standard library already links.
    fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
}

const CLOCK_MONOTONIC: i32 = 1;
const CLOCK_PROCESS_CPUTIME_ID: i32 = 2;

/// ../common.h's clock: process CPU time or wall time, less one reading.
struct Clock {
    id: i32,
    cost: u64,
}

impl Clock {
    fn new(wall: bool) -> Clock {
        let mut c = Clock {
            id: if wall {
                CLOCK_MONOTONIC
            } else {
                CLOCK_PROCESS_CPUTIME_ID
            },
            cost: 0,
        };
        let mut d: Vec<u64> = (0..201)
            .map(|_| {
                let a = c.now();
                c.now() - a
            })
            .collect();
        d.sort_unstable();
        c.cost = d[100];
        c
    }

    #[inline]
    fn now(&self) -> u64 {
        let mut ts = Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid timespec to write.
        unsafe { clock_gettime(self.id, &mut ts) };
        ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
    }

    #[inline]
    fn since(&self, t0: u64) -> u64 {
        (self.now() - t0).saturating_sub(self.cost)
    }
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// ../common.h's shuffle: a permutation of 0..n, Fisher-Yates.
fn shuffle(n: u32, seed: u64) -> Vec<u32> {
    let mut s = seed;
    let mut p: Vec<u32> = (0..n).collect();
    for i in (2..=n).rev() {
        let j = (splitmix64(&mut s) % i as u64) as usize;
        p.swap(i as usize - 1, j);
    }
    p
}

const SEED_CHURN: u64 = 0xC4;

/// Column 0: ../common.h's elem16.
#[derive(Clone, Copy, PartialEq, Debug, Serialize, Deserialize)]
struct Elem16 {
    id: u64,
    x: f32,
    y: f32,
}

/// Column 1 of a 64-byte row: vel16.
#[derive(Clone, Copy, PartialEq, Debug, Serialize, Deserialize)]
struct Vel16 {
    vx: f32,
    vy: f32,
    vz: f32,
    flags: u32,
}

/// A 64-byte row: row64.
#[derive(Clone, Copy, PartialEq, Debug, Serialize, Deserialize)]
struct Row64 {
    e: Elem16,
    v: Vel16,
    a: [u64; 4],
}

const _: () = assert!(core::mem::size_of::<Elem16>() == 16 && core::mem::size_of::<Row64>() == 64);

/// Row number `i`, as ../common.h makes it.
trait Row: Copy + PartialEq + core::fmt::Debug + Serialize + DeserializeOwned {
    fn make(i: u64) -> Self;
}

impl Row for Elem16 {
    fn make(i: u64) -> Self {
        Elem16 {
            id: i + 1,
            x: i as f32,
            y: (2 * i) as f32,
        }
    }
}

impl Row for Row64 {
    fn make(i: u64) -> Self {
        Row64 {
            e: Elem16::make(i),
            v: Vel16 {
                vx: i as f32 * 0.5,
                vy: -(i as f32),
                vz: i as f32 * 0.25,
                flags: (i * 7) as u32,
            },
            a: [i, i * 3, i ^ 0xA5A5_A5A5_A5A5_A5A5, !i],
        }
    }
}

/// What the benchmark asks of `SlotMap` and `DenseSlotMap`.
trait Store<V>: Serialize + DeserializeOwned {
    fn make() -> Self;
    fn put(&mut self, v: V) -> DefaultKey;
    fn take(&mut self, k: DefaultKey) -> bool;
    fn count(&self) -> usize;
    fn find(&self, k: DefaultKey) -> Option<&V>;
    fn pairs(&self) -> Vec<(DefaultKey, V)>;
}

macro_rules! store {
    ($t:ident) => {
        impl<V: Row> Store<V> for $t<DefaultKey, V> {
            fn make() -> Self {
                $t::new()
            }
            fn put(&mut self, v: V) -> DefaultKey {
                self.insert(v)
            }
            fn take(&mut self, k: DefaultKey) -> bool {
                self.remove(k).is_some()
            }
            fn count(&self) -> usize {
                self.len()
            }
            fn find(&self, k: DefaultKey) -> Option<&V> {
                self.get(k)
            }
            fn pairs(&self) -> Vec<(DefaultKey, V)> {
                self.iter().map(|(k, v)| (k, *v)).collect()
            }
        }
    };
}
store!(SlotMap);
store!(DenseSlotMap);

struct Opts {
    label: String,
    fixint: bool,
    clock: Clock,
    budget_ns: u64,
    min_reps: u64,
    max_reps: u64,
}

fn fail(what: &str, n: u64) -> ! {
    eprintln!("snapshot_bench: N={n}: {what}");
    std::process::exit(1);
}

fn encode<T: Serialize>(
    o: &Opts,
    v: &T,
    out: &mut [u8],
) -> Result<usize, bincode::error::EncodeError> {
    if o.fixint {
        bincode::serde::encode_into_slice(
            v,
            out,
            bincode::config::standard().with_fixed_int_encoding(),
        )
    } else {
        bincode::serde::encode_into_slice(v, out, bincode::config::standard())
    }
}

fn decode<T: DeserializeOwned>(
    o: &Opts,
    bytes: &[u8],
) -> Result<(T, usize), bincode::error::DecodeError> {
    if o.fixint {
        bincode::serde::decode_from_slice(
            bytes,
            bincode::config::standard().with_fixed_int_encoding(),
        )
    } else {
        bincode::serde::decode_from_slice(bytes, bincode::config::standard())
    }
}

/// One workload: build, then time save and load in turns.
fn run<V: Row, M: Store<V>>(o: &Opts, workload: &str, n: u64, churn: bool) {
    let mut sm = M::make();
    let mut next = 0u64;
    let keys: Vec<DefaultKey> = (0..n)
        .map(|_| {
            next += 1;
            sm.put(V::make(next - 1))
        })
        .collect();
    let mut stale = Vec::new();
    if churn {
        let perm = shuffle(n as u32, SEED_CHURN);
        for &p in &perm[..(n / 5) as usize] {
            let k = keys[p as usize];
            if !sm.take(k) {
                fail("remove", n);
            }
            stale.push(k);
        }
        for _ in 0..n / 10 {
            sm.put(V::make(next));
            next += 1;
        }
    }
    drop(keys);
    let rows = sm.count();
    let pairs = sm.pairs();

    // The snapshot: bincode's bytes, in a buffer grown until they fit.
    let mut cap = 64 + rows * core::mem::size_of::<V>() * 2;
    let snap = loop {
        let mut b = vec![0u8; cap];
        match encode(o, &sm, &mut b) {
            Ok(len) => {
                b.truncate(len);
                break b;
            }
            Err(bincode::error::EncodeError::UnexpectedEnd) => cap *= 2,
            Err(e) => fail(&format!("encode: {e}"), n),
        }
    };
    let size = snap.len();
    let mut out = vec![0xEEu8; size];

    let mut save = |full: bool| -> u64 {
        let t0 = o.clock.now();
        let r = encode(o, &sm, &mut out);
        let t = o.clock.since(t0);
        if r.ok() != Some(size) {
            fail("save", n);
        }
        if full && out != snap {
            fail("two saves differ", n);
        }
        t
    };
    let load = |full: bool| -> u64 {
        let t0 = o.clock.now();
        let r = decode::<M>(o, &snap);
        let t = o.clock.since(t0);
        let (l, used) = match r {
            Ok(x) => x,
            Err(e) => fail(&format!("load: {e}"), n),
        };
        if used != size || l.count() != rows {
            fail("load: length", n);
        }
        if full {
            for (k, v) in &pairs {
                if l.find(*k) != Some(v) {
                    fail("loaded: a row differs", n);
                }
            }
            if stale.iter().any(|k| l.find(*k).is_some()) {
                fail("loaded: an erased key is live", n);
            }
            let mut again = vec![0u8; size];
            if encode(o, &l, &mut again).ok() != Some(size) || again != snap {
                fail("loaded: its save differs from the snapshot", n);
            }
        }
        drop(l);
        t
    };

    let warm = save(true) + load(true);
    let reps = o
        .budget_ns
        .checked_div(warm)
        .unwrap_or(o.max_reps)
        .clamp(o.min_reps, o.max_reps);
    let mut ts = [Vec::new(), Vec::new()];
    for _ in 0..reps {
        ts[0].push(save(false));
        ts[1].push(load(false));
    }
    for (name, t) in ["save", "load"].iter().zip(ts.iter_mut()) {
        t.sort_unstable();
        let m = t.len();
        let med = if m % 2 == 1 {
            t[m / 2]
        } else {
            (t[m / 2 - 1] + t[m / 2]) / 2
        };
        println!("{} {workload} {name} {n} {rows} {med} {size}", o.label);
    }
}

const WORKLOADS: [&str; 4] = [
    "slotmap-r16-fresh",
    "slotmap-r16-churn",
    "slotmap-r64-fresh",
    "slotmap-r64-churn",
];

fn usage() -> ! {
    eprintln!(
        "usage: snapshot_bench --impl slotmap|dense [--config standard|fixint] [--clock cpu|wall]\n\
         \x20                     [--budget-ms MS] [--min-reps K] [--max-reps K] [--workloads W,W,...] N ..."
    );
    std::process::exit(2);
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut dense, mut fixint, mut wall) = (None, false, false);
    let (mut budget_ms, mut min_reps, mut max_reps) = (1500u64, 5u64, 101u64);
    let mut list: Option<Vec<String>> = None;
    let mut sizes = Vec::new();
    while let Some(a) = args.next() {
        let mut val = || args.next().unwrap_or_else(|| usage());
        match a.as_str() {
            "--impl" => match val().as_str() {
                "slotmap" => dense = Some(false),
                "dense" => dense = Some(true),
                _ => usage(),
            },
            "--config" => match val().as_str() {
                "standard" => fixint = false,
                "fixint" => fixint = true,
                _ => usage(),
            },
            "--clock" => match val().as_str() {
                "cpu" => wall = false,
                "wall" => wall = true,
                _ => usage(),
            },
            "--budget-ms" => budget_ms = val().parse().unwrap_or_else(|_| usage()),
            "--min-reps" => min_reps = val().parse().unwrap_or_else(|_| usage()),
            "--max-reps" => max_reps = val().parse().unwrap_or_else(|_| usage()),
            "--workloads" => {
                let v: Vec<String> = val().split(',').map(str::to_owned).collect();
                // Other programs' workloads are skipped; an unknown slotmap one is refused.
                if v.iter()
                    .any(|w| w.starts_with("slotmap-") && !WORKLOADS.contains(&w.as_str()))
                {
                    usage();
                }
                list = Some(v);
            }
            _ => match a.parse::<u64>() {
                Ok(v) if (10..=100_000_000).contains(&v) => sizes.push(v),
                _ => usage(),
            },
        }
    }
    let Some(dense) = dense else { usage() };
    if sizes.is_empty() || min_reps == 0 || max_reps < min_reps {
        usage();
    }
    let o = Opts {
        label: format!(
            "{}+bincode{}",
            if dense { "DenseSlotMap" } else { "SlotMap" },
            if fixint { "-fixint" } else { "" }
        ),
        fixint,
        clock: Clock::new(wall),
        budget_ns: budget_ms * 1_000_000,
        min_reps,
        max_reps,
    };
    let wanted = |w: &str| list.as_ref().is_none_or(|l| l.iter().any(|x| x == w));
    for &n in &sizes {
        for w in WORKLOADS {
            if !wanted(w) {
                continue;
            }
            let churn = w.ends_with("churn");
            match (w.contains("r64"), dense) {
                (false, false) => run::<Elem16, SlotMap<DefaultKey, Elem16>>(&o, w, n, churn),
                (false, true) => run::<Elem16, DenseSlotMap<DefaultKey, Elem16>>(&o, w, n, churn),
                (true, false) => run::<Row64, SlotMap<DefaultKey, Row64>>(&o, w, n, churn),
                (true, true) => run::<Row64, DenseSlotMap<DefaultKey, Row64>>(&o, w, n, churn),
            }
        }
    }
}
