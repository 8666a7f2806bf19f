//! Writes the `snapshot` fuzz target's seeds: valid snapshots of
//! slotmaps, sparse sets and maps (integer and codec values) in many
//! states, made through the C API, each behind the target's mode and
//! options bytes; and a few operation sequences for its structured mode.
//!
//! Every structure starts from a fixed point (a map's pinned seed, a
//! slotmap's first era loaded from a crafted snapshot), so the seeds are
//! the same on every run:
//!
//! ```text
//! cargo run --release --manifest-path fuzz/Cargo.toml --example snapshot_seeds -- fuzz/seeds/snapshot
//! ```
use core::ffi::c_void;
use core::ptr::null;
use std::path::{Path, PathBuf};

#[path = "../fuzz_targets/ffi.rs"]
mod ffi;
use ffi::*;

const MAGIC: [u8; 8] = *b"\x89SLT\r\n\x1a\n";
const TOP: u32 = u32::MAX;
/// The first version of every slotmap here (odd, as a first era's is).
const FIRST: u32 = 0x0123_4567;

/// The target's first byte: mode (`% 3`) and, in the structured mode,
/// the kind (`/ 3 % 4`).
const RAW: u8 = 0;
const REPAIRED: u8 = 1;
fn structured(kind: u8) -> u8 {
    2 + 3 * kind
}

struct Out {
    dir: PathBuf,
    bytes: usize,
    files: usize,
}

impl Out {
    fn write(&mut self, name: &str, mode: u8, options: u8, body: &[u8]) {
        let mut b = vec![mode, options];
        b.extend_from_slice(body);
        std::fs::write(self.dir.join(name), &b).unwrap();
        self.bytes += b.len();
        self.files += 1;
    }

    /// A snapshot as a seed of the repaired mode, and of the raw mode
    /// when it is small.
    fn snapshot(&mut self, name: &str, b: &[u8]) {
        self.write(&format!("{name}.repaired"), REPAIRED, 0, b);
        if b.len() <= 512 {
            self.write(&format!("{name}.raw"), RAW, 0, b);
        }
    }
}

fn seal(b: &mut [u8]) {
    let n = b.len();
    b[16..24].copy_from_slice(&(n as u64).to_le_bytes());
    let sum = xxhash_rust::xxh3::xxh3_64(&b[..n - 8]);
    b[n - 8..].copy_from_slice(&sum.to_le_bytes());
}

fn save_into(size: u64, save: impl FnOnce(*mut c_void) -> i32) -> Vec<u8> {
    let mut out = vec![0u8; size as usize];
    let mut buf = slate_buffer_s {
        bytes: out.as_mut_ptr().cast(),
        capacity: out.len(),
        length: 0,
    };
    assert_eq!(save((&mut buf as *mut slate_buffer_s).cast()), OK);
    assert_eq!(buf.length, out.len());
    out
}

// ---- slotmaps ----------------------------------------------------------------

/// An empty slotmap of `sizes` whose first era starts at `first`.
fn slotmap_at(sizes: &[u32], first: u32) -> slotmap_s {
    let mut sm = slotmap_s([0; 24]);
    let mut head = vec![];
    for v in [
        sizes.len() as u32,
        0,
        0,
        TOP,
        0,
        first,
        TOP - 1,
        first,
        0,
        0,
        0,
    ] {
        head.extend_from_slice(&v.to_le_bytes());
    }
    for &s in sizes {
        head.extend_from_slice(&s.to_le_bytes());
    }
    let mut b = MAGIC.to_vec();
    b.extend_from_slice(&1u16.to_le_bytes());
    b.extend_from_slice(&0u16.to_le_bytes());
    b.extend_from_slice(&2u32.to_le_bytes());
    b.extend_from_slice(&[0; 16]);
    let mut section = |tag: &[u8; 4], payload: &[u8]| {
        b.extend_from_slice(tag);
        b.extend_from_slice(&[0; 4]);
        b.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        b.extend_from_slice(payload);
        b.resize(b.len().div_ceil(16) * 16, 0);
    };
    section(b"SLTH", &head);
    section(b"SLTS", &[]);
    for _ in sizes {
        section(b"SLTC", &[]);
    }
    b.extend_from_slice(&[0; 8]);
    seal(&mut b);
    // SAFETY: writable memory; the crafted snapshot has its length.
    unsafe {
        assert_eq!(
            slotmap_columns(&mut sm, sizes.as_ptr(), sizes.len() as u32),
            OK
        );
        assert_eq!(slotmap_load(&mut sm, b.as_ptr().cast(), b.len()), OK);
    }
    sm
}

struct Slots {
    sm: slotmap_s,
    row: usize,
    keys: Vec<u64>,
    rng: u64,
}

impl Slots {
    fn new(sizes: &[u32], first: u32) -> Slots {
        Slots {
            sm: slotmap_at(sizes, first),
            row: sizes.iter().map(|&s| s as usize).sum(),
            keys: vec![],
            rng: 0x9E37_79B9_7F4A_7C15,
        }
    }

    fn next(&mut self) -> usize {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng as usize
    }

    fn put(&mut self, n: usize) {
        for _ in 0..n {
            let tag = self.keys.len();
            let row: Vec<u8> = (0..self.row).map(|i| (tag * 31 + i) as u8).collect();
            let mut k = 0;
            // SAFETY: an initialized slotmap; a packed row.
            if unsafe { slotmap_insert(&mut self.sm, row.as_ptr().cast(), &mut k) } == OK {
                self.keys.push(k);
            }
        }
    }

    fn erase_some(&mut self, n: usize) {
        for _ in 0..n {
            let i = self.next() % self.keys.len();
            let k = self.keys[i];
            // SAFETY: an initialized slotmap.
            unsafe { slotmap_erase(&mut self.sm, k) };
        }
    }

    fn erase_last(&mut self) {
        let k = *self.keys.last().unwrap();
        // SAFETY: an initialized slotmap.
        assert_eq!(unsafe { slotmap_erase(&mut self.sm, k) }, OK);
    }

    fn free(&mut self) {
        // SAFETY: an initialized slotmap.
        unsafe { slotmap_free(&mut self.sm) };
    }

    fn save(mut self) -> Vec<u8> {
        // SAFETY: an initialized slotmap; the buffer's context.
        unsafe {
            let b = save_into(slotmap_save_size(&self.sm), |c| {
                slotmap_save(&self.sm, Some(slate_buffer_write), c)
            });
            slotmap_free(&mut self.sm);
            b
        }
    }
}

unsafe extern "C" fn greater(a: *const c_void, b: *const c_void, _: *mut c_void) -> i32 {
    // SAFETY: column 0 has at least one byte.
    unsafe { (*a.cast::<u8>() > *b.cast::<u8>()) as i32 }
}

/// The slotmap states of the snapshot tests, through the C API.
fn slotmap_state(name: &str, sizes: &[u32], scale: usize) -> Vec<u8> {
    let mut s = Slots::new(sizes, FIRST);
    match name {
        "fresh" => {}
        "one" => s.put(1),
        "filled" => s.put(scale),
        "churn" => {
            s.put(3 * scale);
            let all = s.keys.clone();
            for &k in &all[..all.len() * 4 / 5] {
                // SAFETY: an initialized slotmap.
                assert_eq!(unsafe { slotmap_erase(&mut s.sm, k) }, OK);
            }
            s.put(3);
        }
        "churn_no_free" => {
            s.put(scale / 2);
            s.erase_some(scale / 5);
            s.put(scale / 5);
        }
        "cleared" => {
            s.put(scale / 2);
            // SAFETY: an initialized slotmap.
            assert_eq!(unsafe { slotmap_clear(&mut s.sm) }, OK);
        }
        "freed" => {
            s.put(scale / 2);
            s.erase_some(5);
            s.free();
            s.put(scale / 10);
        }
        "freed_empty" => {
            s.put(5);
            s.free();
        }
        "sorted" => {
            s.put(scale * 3 / 5);
            s.erase_some(10);
            // SAFETY: an initialized slotmap; column 0 has a byte a row.
            assert_eq!(
                unsafe { slotmap_sort(&mut s.sm, Some(greater), core::ptr::null_mut()) },
                OK
            );
        }
        "retired" => {
            s = Slots::new(sizes, TOP - 12);
            s.put(3);
            for _ in 0..10 {
                s.put(1);
                s.erase_last();
            }
            s.put(2);
        }
        "below" => {
            s = Slots::new(sizes, TOP - 8);
            s.put(2);
            for _ in 0..6 {
                s.put(1);
                s.erase_last();
            }
            s.free();
            s.put(4);
            let k = s.keys[s.keys.len() - 2];
            // SAFETY: an initialized slotmap.
            assert_eq!(unsafe { slotmap_erase(&mut s.sm, k) }, OK);
        }
        "exhausted" => {
            s = Slots::new(sizes, TOP - 2);
            for _ in 0..3 {
                s.put(1);
                s.free();
            }
        }
        _ => unreachable!("{name}"),
    }
    s.save()
}

const SLOTMAP_STATES: &[&str] = &[
    "fresh",
    "one",
    "filled",
    "churn",
    "churn_no_free",
    "cleared",
    "freed",
    "freed_empty",
    "sorted",
    "retired",
    "below",
    "exhausted",
];

// ---- sparse sets ---------------------------------------------------------------

fn set_state(name: &str, sizes: &[u32]) -> Vec<u8> {
    let mut sp = slotmap_sparse_s([0; 24]);
    let row: usize = sizes.iter().map(|&s| s as usize).sum();
    // SAFETY (every call): the set is initialized here; rows are packed.
    unsafe {
        let rc = match sizes.len() {
            0 => slotmap_sparse(&mut sp, 0),
            n => slotmap_sparse_columns(&mut sp, sizes.as_ptr(), n as u32),
        };
        assert_eq!(rc, OK);
        let set = |sp: &mut slotmap_sparse_s, key: u64| {
            let bytes: Vec<u8> = (0..row).map(|i| (key as usize * 13 + i) as u8).collect();
            let p = if row == 0 { null() } else { bytes.as_ptr() };
            assert_eq!(slotmap_sparse_set(sp, null(), key, p.cast()), OK);
        };
        match name {
            "empty" => {}
            "one" => set(&mut sp, 1 << 32 | 7),
            "dense" => {
                for i in 0..60 {
                    set(&mut sp, (2 * i + 1) << 32 | i);
                }
            }
            "far" => {
                // Slot indices in distinct pages and mid arrays, the
                // highest one included.
                for (i, slot) in [0u64, 1023, 1024, 1 << 20, 0xFFFF_FFFE, 0xFFFF_FFFF]
                    .into_iter()
                    .enumerate()
                {
                    set(&mut sp, (i as u64 * 2 + 1) << 32 | slot);
                }
            }
            "churn" => {
                for i in 0..80 {
                    set(&mut sp, 1 << 32 | i);
                }
                for i in (0..80).step_by(3) {
                    assert_eq!(slotmap_sparse_erase(&mut sp, 1 << 32 | i), OK);
                }
                // Other generations of held slots take their rows over.
                for i in (1..80).step_by(7) {
                    set(&mut sp, 3 << 32 | i);
                }
            }
            "sorted" => {
                for i in 0..40 {
                    set(&mut sp, 1 << 32 | (i * 37 % 101));
                }
                if !sizes.is_empty() {
                    assert_eq!(
                        slotmap_sparse_sort(&mut sp, Some(greater), core::ptr::null_mut()),
                        OK
                    );
                }
            }
            "cleared" => {
                for i in 0..20 {
                    set(&mut sp, 1 << 32 | i);
                }
                assert_eq!(slotmap_sparse_clear(&mut sp), OK);
                set(&mut sp, 5 << 32 | 3);
            }
            _ => unreachable!("{name}"),
        }
        let b = save_into(slotmap_sparse_save_size(&sp), |c| {
            slotmap_sparse_save(&sp, Some(slate_buffer_write), c)
        });
        slotmap_sparse_free(&mut sp);
        b
    }
}

const SET_STATES: &[&str] = &["empty", "one", "dense", "far", "churn", "sorted", "cleared"];

// ---- maps ----------------------------------------------------------------------

thread_local! {
    /// Codec values; a value is its index here plus one (never NULL).
    static VALUES: core::cell::RefCell<Vec<Vec<u8>>> = const { core::cell::RefCell::new(Vec::new()) };
}

fn value(bytes: Vec<u8>) -> *mut c_void {
    VALUES.with(|v| {
        let mut v = v.borrow_mut();
        v.push(bytes);
        v.len() as *mut c_void
    })
}

unsafe extern "C" fn encode(
    _: *mut c_void,
    v: *mut c_void,
    buffer: *mut c_void,
    capacity: u32,
    length: *mut u32,
) -> i32 {
    let b = VALUES.with(|values| values.borrow()[v as usize - 1].clone());
    // SAFETY: the library's length, and buffer of `capacity` bytes.
    unsafe {
        *length = b.len() as u32;
        if b.len() <= capacity as usize && !b.is_empty() {
            core::ptr::copy_nonoverlapping(b.as_ptr(), buffer.cast(), b.len());
        }
    }
    0
}

fn map_state(name: &str, codec: bool) -> Vec<u8> {
    let mut m = slate_s([0; 8]);
    let mut n = 0usize;
    let val = |n: &mut usize| -> *mut c_void {
        *n += 1;
        if codec {
            let len = [0, 1, 3, 8, 17, 40][*n % 6];
            value((0..len).map(|i| (*n * 7 + i) as u8).collect())
        } else {
            [*n, usize::MAX - *n, *n << 40][*n % 3] as *mut c_void
        }
    };
    // SAFETY (every call): the map is initialized here.
    unsafe {
        assert_eq!(slate(&mut m), OK);
        assert_eq!(slate_pin_seed(&mut m, 0x0005_EED5), OK);
        let bytes = |m: &mut slate_s, k: &[u8], v| {
            assert_eq!(slate_set_bytes(m, k.as_ptr().cast(), k.len() as u32, v), OK);
        };
        match name {
            "empty" => {}
            "one" => assert_eq!(slate_set_u64(&mut m, 42, val(&mut n)), OK),
            "small" => {
                for i in 0..6u64 {
                    assert_eq!(slate_set_u64(&mut m, i * 1000, val(&mut n)), OK);
                }
                assert_eq!(slate_set_i64(&mut m, -5, val(&mut n)), OK);
                bytes(&mut m, b"", val(&mut n));
            }
            "mixed" => {
                for i in 0..40u64 {
                    assert_eq!(
                        slate_set_u64(&mut m, i.wrapping_mul(0x9E37_79B9), val(&mut n)),
                        OK
                    );
                    assert_eq!(slate_set_i64(&mut m, -(i as i64), val(&mut n)), OK);
                    let s = format!("key-{i}");
                    bytes(&mut m, s.as_bytes(), val(&mut n));
                }
                bytes(&mut m, &[0u8, 0, 0], val(&mut n));
                bytes(&mut m, &[7u8; 29], val(&mut n));
                bytes(&mut m, &[9u8; 300], val(&mut n));
            }
            "deleted" => {
                for i in 0..200u64 {
                    assert_eq!(slate_set_u64(&mut m, i, val(&mut n)), OK);
                }
                for i in (0..200u64).step_by(3) {
                    assert_eq!(slate_delete_u64(&mut m, i), OK);
                }
            }
            "cleared" => {
                for i in 0..30u64 {
                    assert_eq!(slate_set_u64(&mut m, i, val(&mut n)), OK);
                }
                assert_eq!(slate_clear(&mut m), OK);
                bytes(&mut m, b"after", val(&mut n));
            }
            "large" => {
                for i in 0..500u64 {
                    assert_eq!(slate_set_u64(&mut m, i * 7919, val(&mut n)), OK);
                }
            }
            "refused" if codec => {
                bytes(&mut m, b"a", val(&mut n));
                bytes(&mut m, b"b", value(vec![0xDE, 0xC0, 1]));
                bytes(&mut m, b"c", val(&mut n));
            }
            _ => unreachable!("{name}"),
        };
        let c = slate_value_codec_s {
            encode: Some(encode),
            decode: None,
            discard: None,
            context: core::ptr::null_mut(),
        };
        let c: *const slate_value_codec_s = if codec { &c } else { null() };
        let mut size = 0;
        assert_eq!(slate_save_size(&m, c, &mut size), OK);
        let b = save_into(size, |ctx| slate_save(&m, c, Some(slate_buffer_write), ctx));
        slate_free(&mut m);
        b
    }
}

const MAP_STATES: &[&str] = &[
    "empty", "one", "small", "mixed", "deleted", "cleared", "large",
];

/// Bytes for the structured mode: an operation count, a mutation count,
/// then bytes the operations read.
fn ops(seed: u64, ops: u8, mutations: u8, len: usize) -> Vec<u8> {
    let mut x = seed | 1;
    let mut b = vec![ops, mutations, 1];
    b.extend((0..len).map(|_| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x as u8
    }));
    b
}

fn main() {
    let dir = std::env::args().nth(1).expect("usage: snapshot_seeds DIR");
    let dir = Path::new(&dir).to_path_buf();
    std::fs::create_dir_all(&dir).unwrap();
    let mut out = Out {
        dir,
        bytes: 0,
        files: 0,
    };
    for (l, sizes, scale) in [(0, &[8u32][..], 100), (1, &[1, 3, 16, 255], 12)] {
        for name in SLOTMAP_STATES {
            out.snapshot(
                &format!("slotmap-{l}-{name}"),
                &slotmap_state(name, sizes, scale),
            );
        }
    }
    for (l, sizes) in [(0, &[][..]), (1, &[8u32]), (2, &[3, 8, 1])] {
        for name in SET_STATES {
            out.snapshot(&format!("set-{l}-{name}"), &set_state(name, sizes));
        }
    }
    for codec in [false, true] {
        let v = if codec { "codec" } else { "integers" };
        for name in MAP_STATES {
            out.snapshot(&format!("map-{v}-{name}"), &map_state(name, codec));
        }
    }
    out.snapshot("map-codec-refused", &map_state("refused", true));
    // Raw mode with fixed layouts and a failing allocation.
    let b = slotmap_state("churn", &[8], 20);
    out.write("slotmap-0-churn.fail", REPAIRED, 0x38, &b);
    let b = set_state("far", &[8]);
    out.write("set-1-far.fail", REPAIRED, 0x28, &b);
    let b = map_state("mixed", true);
    out.write("map-codec-mixed.fail", REPAIRED, 0x58, &b);
    // The structured mode: each kind, unmutated and mutated; a slotmap's
    // third byte 0 starts its versions near the top.
    for kind in 0..4u8 {
        for (m, mutations) in [(0u8, 0u8), (1, 2), (2, 5)] {
            let mut b = ops(kind as u64 * 16 + m as u64, 40, mutations, 1500);
            if kind == 2 && m == 2 {
                b[2] = 0;
            }
            out.write(&format!("ops-{kind}-{m}"), structured(kind), m, &b);
        }
    }
    println!(
        "{} seeds, {} bytes in {}",
        out.files,
        out.bytes,
        out.dir.display()
    );
}
