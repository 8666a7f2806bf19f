//! The Rust peers of the map benchmark: `hashbrown::HashMap` with its
//! default hasher (foldhash) and with XXH3 from the `xxhash-rust` crate,
//! the hash slate-rs uses.
//!
//!   --impl hashbrown        HashMap<K, u64> (hashbrown's DefaultHashBuilder)
//!   --impl hashbrown-xxh3   HashMap<K, u64, Xxh3DefaultBuilder>: the crate's
//!                           BuildHasher for maps (streaming XXH3, default
//!                           secret; what a user plugging XXH3 in would take)
//!
//! u64 keys: `HashMap<u64, u64>`; string and path keys: `HashMap<String, u64>` (each
//! insert clones the key's `String`: one allocation, as slate's copy of a
//! key longer than 12 bytes); lookups and deletes pass `&str`.
//!
//! Upsert (one lookup an op): `*m.entry(k).or_insert(0) += 1` for u64 keys;
//! `*m.entry_ref(k.as_str()).or_insert(0) += 1` for strings, which makes
//! the key's `String` only when the key is new (`entry` would take an owned
//! `String`, a clone on every op).
//!
//! The workload, the modes and the output are those of `../common.h`:
//! same keys (splitmix64 from 42; "key:" + decimal; path keys as
//! `../keys.h` makes them), same shuffles (state 7 for hits, 8 for deletes),
//! same checksums, and the same lines:
//!   <impl> <u64|str|path> <phase> <N> <ns_per_op> <checksum>
//!
//! Usage: maps_bench [--impl NAME] [--keys u64|str|path] [--mode bench|tail|mem]
//!                   [--clock cpu|wall] [--phases P,P,...] [--ops K] [N ...]

use std::hash::BuildHasher;
use std::hint::black_box;
use std::time::Instant;

use hashbrown::HashMap;
use xxhash_rust::xxh3::{xxh3_64_with_seed, Xxh3DefaultBuilder};

/// XXH3 as slate-rs calls it: one `xxh3_64_with_seed` over the key's bytes
/// (8 bytes for a u64; the string's bytes for a `str`, whose `Hash` then
/// writes a 0xFF terminator, folded in with a rotate and an XOR).
#[derive(Clone, Copy, Default)]
struct Xxh3OneShot;

struct Xxh3OneShotHasher(u64);

impl BuildHasher for Xxh3OneShot {
    type Hasher = Xxh3OneShotHasher;
    #[inline]
    fn build_hasher(&self) -> Xxh3OneShotHasher {
        Xxh3OneShotHasher(0x243F_6A88_85A3_08D3)
    }
}

impl std::hash::Hasher for Xxh3OneShotHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        self.0 = xxh3_64_with_seed(bytes, self.0);
    }
    #[inline]
    fn write_u8(&mut self, b: u8) {
        self.0 = self.0.rotate_left(8) ^ b as u64;
    }
    #[inline]
    fn write_u64(&mut self, v: u64) {
        self.0 = xxh3_64_with_seed(&v.to_le_bytes(), self.0);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

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

/// The phase clock of common.h: process CPU time, or wall time with
/// `--clock wall`, and the cost of one reading (subtracted per phase).
#[derive(Clone, Copy)]
struct PhaseClock {
    id: i32,
    cost: u64,
}

impl PhaseClock {
    fn new(wall: bool) -> PhaseClock {
        let mut c = PhaseClock {
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

fn shuffle(n: usize, seed: u64) -> Vec<usize> {
    let mut perm: Vec<usize> = (0..n).collect();
    let mut s = seed;
    for i in (2..=n).rev() {
        let j = (splitmix64(&mut s) % i as u64) as usize;
        perm.swap(i - 1, j);
    }
    perm
}

fn die(what: &str, n: usize) -> ! {
    eprintln!("maps_bench: N={n}: {what}");
    std::process::exit(1);
}

const PATH_PREFIXES: [&str; 8] = [
    "/tmp/",
    "/home/alice/",
    "/usr/share/doc/",
    "/var/log/nginx/",
    "s3://assets-eu-west-1/",
    "file:///opt/app/releases/",
    "https://example.org/api/v2/",
    "https://cdn.example.net/media/",
];
const PATH_WORDS: [&str; 16] = [
    "src",
    "lib",
    "include",
    "docs",
    "images",
    "assets",
    "config",
    "users",
    "2024",
    "reports",
    "build",
    "cache",
    "thumbnails",
    "v1",
    "data",
    "archive",
];

/// The path key of `k` (the recipe of `../keys.h`): a prefix, words and
/// '/' while shorter than a target of 44-74 bytes, then k's 16 hex digits.
fn format_path(k: u64) -> String {
    let mut s = k;
    let mut out = String::with_capacity(100);
    out.push_str(PATH_PREFIXES[(splitmix64(&mut s) % 8) as usize]);
    let target = 44 + (splitmix64(&mut s) % 31) as usize;
    while out.len() < target {
        out.push_str(PATH_WORDS[(splitmix64(&mut s) % 16) as usize]);
        out.push('/');
    }
    out.push_str(&format!("{k:016x}"));
    out
}

fn format_key(k: u64) -> String {
    format!("key:{k}")
}

/// The key types of `--keys`.
#[derive(Clone, Copy, PartialEq)]
enum Keys {
    U64,
    Str,
    Path,
}

impl Keys {
    fn name(self) -> &'static str {
        match self {
            Keys::U64 => "u64",
            Keys::Str => "str",
            Keys::Path => "path",
        }
    }
}

struct Workload {
    n: usize,
    keys: Vec<u64>,
    hit: Vec<u64>,
    del: Vec<u64>,
    miss: Vec<u64>,
    ups: Vec<u64>,
    s_keys: Vec<String>,
    s_hit: Vec<String>,
    s_del: Vec<String>,
    s_miss: Vec<String>,
    s_ups: Vec<String>,
    want_hit: u64,
    want_sum: u64,
    want_ups: u64,
}

impl Workload {
    fn new(n: usize, kind: Keys, lookups: bool) -> Workload {
        let mut s = 42u64;
        let keys: Vec<u64> = (0..n).map(|_| splitmix64(&mut s)).collect();
        let mut w = Workload {
            n,
            keys,
            hit: Vec::new(),
            del: Vec::new(),
            miss: Vec::new(),
            ups: Vec::new(),
            s_keys: Vec::new(),
            s_hit: Vec::new(),
            s_del: Vec::new(),
            s_miss: Vec::new(),
            s_ups: Vec::new(),
            want_hit: 0,
            want_sum: (n as u64) * (n as u64 + 1) / 2,
            want_ups: 0,
        };
        if lookups {
            w.miss = (0..n).map(|_| splitmix64(&mut s)).collect();
            let perm = shuffle(n, 7);
            w.hit = perm.iter().map(|&p| w.keys[p]).collect();
            w.want_hit = perm
                .iter()
                .map(|&p| w.keys[p] ^ (p as u64 + 1))
                .fold(0u64, u64::wrapping_add);
            let perm = shuffle(n, 8);
            w.del = perm.iter().map(|&p| w.keys[p]).collect();
            // upserts: op j counts key p[j] mod N, p a permutation of 0..2N-1
            w.ups = shuffle(2 * n, 9).iter().map(|&p| w.keys[p % n]).collect();
            w.want_ups = w.keys.iter().map(|&k| k ^ 2).fold(0u64, u64::wrapping_add);
        }
        if kind != Keys::U64 {
            let format = if kind == Keys::Path {
                format_path
            } else {
                format_key
            };
            let f = |v: &Vec<u64>| v.iter().map(|&k| format(k)).collect::<Vec<String>>();
            w.s_keys = f(&w.keys);
            w.s_hit = f(&w.hit);
            w.s_del = f(&w.del);
            w.s_miss = f(&w.miss);
            w.s_ups = f(&w.ups);
        }
        w
    }
}

/// One map type under the workload: phase-level loops, like `impl_ops` in
/// common.h.
trait Bench {
    fn create() -> Self;
    fn len(&self) -> usize;
    fn insert(&mut self, w: &Workload) -> u64;
    fn tail(&mut self, w: &Workload, lat: &mut [u32]);
    fn hit(&self, w: &Workload) -> u64;
    fn miss(&self, w: &Workload) -> u64;
    fn iterate(&self, w: &Workload) -> u64;
    fn del(&mut self, w: &Workload) -> u64;
    /// The 2N ops of the upsert stream, one lookup each; the length after.
    fn upsert(&mut self, w: &Workload) -> u64;
}

struct U64Map<S: BuildHasher + Default>(HashMap<u64, u64, S>);
struct StrMap<S: BuildHasher + Default>(HashMap<String, u64, S>);

impl<S: BuildHasher + Default> Bench for U64Map<S> {
    fn create() -> Self {
        U64Map(HashMap::with_hasher(S::default()))
    }
    fn len(&self) -> usize {
        self.0.len()
    }
    fn insert(&mut self, w: &Workload) -> u64 {
        for (i, &k) in w.keys.iter().enumerate() {
            self.0.insert(k, i as u64 + 1);
        }
        self.0.len() as u64
    }
    fn tail(&mut self, w: &Workload, lat: &mut [u32]) {
        for (i, &k) in w.keys.iter().enumerate() {
            let t0 = Instant::now();
            self.0.insert(k, i as u64 + 1);
            lat[i] = t0.elapsed().as_nanos() as u32;
        }
    }
    fn hit(&self, w: &Workload) -> u64 {
        let (mut sum, mut found) = (0u64, 0usize);
        for &k in &w.hit {
            if let Some(&v) = self.0.get(&k) {
                sum = sum.wrapping_add(k ^ v);
                found += 1;
            }
        }
        if found != w.n {
            die("hit: key not found", w.n);
        }
        sum
    }
    fn miss(&self, w: &Workload) -> u64 {
        w.miss.iter().filter(|k| self.0.get(*k).is_none()).count() as u64
    }
    fn iterate(&self, w: &Workload) -> u64 {
        let (mut sum, mut count) = (0u64, 0usize);
        for (_, &v) in self.0.iter() {
            sum = sum.wrapping_add(v);
            count += 1;
        }
        if count != w.n {
            die("iterate: wrong count", w.n);
        }
        sum
    }
    fn del(&mut self, w: &Workload) -> u64 {
        let mut deleted = 0u64;
        for k in &w.del {
            deleted += self.0.remove(k).is_some() as u64;
        }
        deleted
    }
    fn upsert(&mut self, w: &Workload) -> u64 {
        for &k in &w.ups {
            *self.0.entry(k).or_insert(0) += 1;
        }
        self.0.len() as u64
    }
}

impl<S: BuildHasher + Default> Bench for StrMap<S> {
    fn create() -> Self {
        StrMap(HashMap::with_hasher(S::default()))
    }
    fn len(&self) -> usize {
        self.0.len()
    }
    fn insert(&mut self, w: &Workload) -> u64 {
        for (i, k) in w.s_keys.iter().enumerate() {
            self.0.insert(k.clone(), i as u64 + 1);
        }
        self.0.len() as u64
    }
    fn tail(&mut self, w: &Workload, lat: &mut [u32]) {
        for (i, k) in w.s_keys.iter().enumerate() {
            let t0 = Instant::now();
            self.0.insert(k.clone(), i as u64 + 1);
            lat[i] = t0.elapsed().as_nanos() as u32;
        }
    }
    fn hit(&self, w: &Workload) -> u64 {
        let (mut sum, mut found) = (0u64, 0usize);
        for (k, &u) in w.s_hit.iter().zip(&w.hit) {
            if let Some(&v) = self.0.get(k.as_str()) {
                sum = sum.wrapping_add(u ^ v);
                found += 1;
            }
        }
        if found != w.n {
            die("hit: key not found", w.n);
        }
        sum
    }
    fn miss(&self, w: &Workload) -> u64 {
        w.s_miss
            .iter()
            .filter(|k| self.0.get(k.as_str()).is_none())
            .count() as u64
    }
    fn iterate(&self, w: &Workload) -> u64 {
        let (mut sum, mut count) = (0u64, 0usize);
        for (_, &v) in self.0.iter() {
            sum = sum.wrapping_add(v);
            count += 1;
        }
        if count != w.n {
            die("iterate: wrong count", w.n);
        }
        sum
    }
    fn del(&mut self, w: &Workload) -> u64 {
        let mut deleted = 0u64;
        for k in &w.s_del {
            deleted += self.0.remove(k.as_str()).is_some() as u64;
        }
        deleted
    }
    fn upsert(&mut self, w: &Workload) -> u64 {
        for k in &w.s_ups {
            *self.0.entry_ref(k.as_str()).or_insert(0) += 1;
        }
        self.0.len() as u64
    }
}

const PHASES: [&str; 6] = ["insert", "hit", "miss", "iterate", "delete", "upsert"];
const UPSERT: usize = 5;

struct Options {
    impl_name: String,
    keys: Keys,
    mode: u8, // 0 bench, 1 tail, 2 mem
    wall: bool,
    phases: [bool; 6], // PHASES asked for (--phases; default all)
    ops: u64,
    sizes: Vec<usize>,
}

fn parse() -> Options {
    let mut o = Options {
        impl_name: "hashbrown".into(),
        keys: Keys::U64,
        mode: 0,
        wall: false,
        phases: [true; 6],
        ops: 1_000_000,
        sizes: Vec::new(),
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    let usage = |a: &str| -> ! {
        eprintln!("maps_bench: bad argument {a}");
        std::process::exit(2)
    };
    while i < args.len() {
        let a = args[i].as_str();
        let next = |i: &mut usize| -> String {
            *i += 1;
            args.get(*i).cloned().unwrap_or_else(|| usage(a))
        };
        match a {
            "--impl" => o.impl_name = next(&mut i),
            "--keys" => {
                o.keys = match next(&mut i).as_str() {
                    "u64" => Keys::U64,
                    "str" => Keys::Str,
                    "path" => Keys::Path,
                    _ => usage(a),
                }
            }
            "--mode" => {
                o.mode = match next(&mut i).as_str() {
                    "bench" => 0,
                    "tail" => 1,
                    "mem" => 2,
                    _ => usage(a),
                }
            }
            "--clock" => {
                o.wall = match next(&mut i).as_str() {
                    "cpu" => false,
                    "wall" => true,
                    _ => usage(a),
                }
            }
            "--phases" => {
                o.phases = [false; 6];
                for name in next(&mut i).split(',').filter(|s| !s.is_empty()) {
                    match PHASES.iter().position(|p| *p == name) {
                        Some(p) => o.phases[p] = true,
                        None => usage(a),
                    }
                }
                if !o.phases.contains(&true) {
                    usage(a);
                }
            }
            "--ops" => {
                o.ops = next(&mut i)
                    .parse::<u64>()
                    .unwrap_or_else(|_| usage(a))
                    .max(1)
            }
            _ => o.sizes.push(a.parse().unwrap_or_else(|_| usage(a))),
        }
        i += 1;
    }
    if o.sizes.is_empty() {
        o.sizes = if o.mode == 0 {
            vec![1000, 100_000, 10_000_000]
        } else {
            vec![10_000_000]
        };
    }
    o
}

fn now_ns(t: Instant) -> u64 {
    t.elapsed().as_nanos() as u64
}

fn maxrss() -> u64 {
    // ru_maxrss (KiB) from /proc/self/status's VmHWM, as getrusage reports it.
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    for line in s.lines() {
        if let Some(rest) = line.strip_prefix("VmHWM:") {
            let kib: u64 = rest
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse()
                .unwrap_or(0);
            return kib * 1024;
        }
    }
    0
}

fn nivcsw() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    for line in s.lines() {
        if let Some(rest) = line.strip_prefix("nonvoluntary_ctxt_switches:") {
            return rest.trim().parse().unwrap_or(0);
        }
    }
    0
}

fn median(v: &mut [u64]) -> f64 {
    v.sort_unstable();
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2] as f64
    } else {
        (v[n / 2 - 1] as f64 + v[n / 2] as f64) / 2.0
    }
}

fn run<B: Bench>(o: &Options) {
    let kt = o.keys.name();
    let line = |phase: &str, n: usize, ns: f64, ck: u64| {
        println!("{} {} {} {} {:.3} {}", o.impl_name, kt, phase, n, ns, ck);
    };
    match o.mode {
        1 => {
            let n = o.sizes[0];
            let w = Workload::new(n, o.keys, false);
            let mut lat = vec![0u32; n];
            let mut m = B::create();
            let csw = nivcsw();
            let t0 = Instant::now();
            m.tail(&w, &mut lat);
            let total = now_ns(t0);
            let csw = nivcsw() - csw;
            let len = m.len() as u64;
            if len != n as u64 {
                die("tail: wrong length", n);
            }
            lat.sort_unstable();
            line("tail_mean", n, total as f64 / n as f64, len);
            for (name, q) in [
                ("tail_p50", 0.5),
                ("tail_p99", 0.99),
                ("tail_p999", 0.999),
                ("tail_p9999", 0.9999),
            ] {
                let idx = ((q * n as f64) as usize).min(n - 1);
                line(name, n, lat[idx] as f64, len);
            }
            line("tail_max", n, lat[n - 1] as f64, len);
            line("tail_nivcsw", n, csw as f64, len);
        }
        2 => {
            let n = o.sizes[0];
            let w = Workload::new(n, o.keys, false);
            let base = maxrss();
            let mut m = B::create();
            let len = m.insert(&w);
            let peak = maxrss();
            if len != n as u64 || m.len() != n {
                die("mem: wrong length", n);
            }
            line(
                "mem_bytes_per_entry",
                n,
                (peak - base) as f64 / n as f64,
                len,
            );
            line("mem_peak_mib", n, peak as f64 / (1024.0 * 1024.0), len);
            black_box(&m);
        }
        _ => {
            for &n in &o.sizes {
                let w = Workload::new(n, o.keys, true);
                let reps = (o.ops / n as u64).clamp(1, 1000) as usize;
                let core = o.phases[..UPSERT].contains(&true);
                let mut t = vec![Vec::with_capacity(reps); PHASES.len()];
                let mut ck = [0u64; 6];
                let clock = PhaseClock::new(o.wall);
                for _ in 0..reps {
                    let mut c = [0u64; 6];
                    // phase p: c[p] = its checksum, its time into t[p]
                    macro_rules! timed {
                        ($p:expr, $call:expr) => {{
                            let t0 = clock.now();
                            c[$p] = black_box($call);
                            t[$p].push(clock.since(t0));
                        }};
                    }
                    if core {
                        let mut m = B::create();
                        timed!(0, m.insert(&w));
                        timed!(1, m.hit(&w));
                        timed!(2, m.miss(&w));
                        timed!(3, m.iterate(&w));
                        timed!(4, m.del(&w));
                        if c[0] != n as u64 {
                            die("insert: wrong length", n);
                        }
                        if c[1] != w.want_hit {
                            die("hit: wrong checksum", n);
                        }
                        if c[2] != n as u64 {
                            die("miss: a miss key was found", n);
                        }
                        if c[3] != w.want_sum {
                            die("iterate: wrong sum", n);
                        }
                        if c[4] != n as u64 || m.len() != 0 {
                            die("delete: map not emptied", n);
                        }
                    }
                    if o.phases[UPSERT] {
                        let mut m = B::create();
                        timed!(UPSERT, m.upsert(&w));
                        if c[UPSERT] != n as u64 || m.len() != n {
                            die("upsert: wrong length", n);
                        }
                        // the checksum: hit's sum(k ^ value) over the counts, untimed
                        c[UPSERT] = m.hit(&w);
                        if c[UPSERT] != w.want_ups {
                            die("upsert: wrong counts", n);
                        }
                    }
                    ck = c;
                }
                for (p, name) in PHASES.iter().enumerate() {
                    if o.phases[p] {
                        // upsert: 2N ops
                        let ops = if p == UPSERT { 2 * n } else { n };
                        line(name, n, median(&mut t[p]) / ops as f64, ck[p]);
                    }
                }
            }
        }
    }
}

fn main() {
    let o = parse();
    type Foldhash = hashbrown::DefaultHashBuilder;
    let strings = o.keys != Keys::U64; // str and path keys: StrMap
    match (o.impl_name.as_str(), strings) {
        ("hashbrown", false) => run::<U64Map<Foldhash>>(&o),
        ("hashbrown", true) => run::<StrMap<Foldhash>>(&o),
        ("hashbrown-xxh3", false) => run::<U64Map<Xxh3DefaultBuilder>>(&o),
        ("hashbrown-xxh3", true) => run::<StrMap<Xxh3DefaultBuilder>>(&o),
        ("hashbrown-xxh3os", false) => run::<U64Map<Xxh3OneShot>>(&o),
        ("hashbrown-xxh3os", true) => run::<StrMap<Xxh3OneShot>>(&o),
        (other, _) => {
            eprintln!("maps_bench: unknown --impl {other} (hashbrown, hashbrown-xxh3)");
            std::process::exit(2);
        }
    }
}
