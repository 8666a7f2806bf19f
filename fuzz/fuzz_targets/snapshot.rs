//! Snapshots (SPEC §6c) through the C API, in three modes picked by the
//! first input byte (`byte % 3`):
//!
//! - **raw**: the rest of the input, after an options byte, goes as it is
//!   to `slate_snapshot_info` and to every loader (`slate_load` with
//!   integer values and with a codec, `slotmap_load`,
//!   `slotmap_sparse_load`);
//! - **repaired**: the same, after the envelope is made right (magic,
//!   major version, total length, checksum), so that mutations reach the
//!   sections' rules rather than stop at the checksum;
//! - **structured**: a structure (`byte / 3 % 4`: a map with integer
//!   values, a map with codec values, a slotmap, a sparse set) is built by
//!   an operation sequence checked against a model, saved, mutated,
//!   repaired and loaded. Unmutated, the load must succeed and the loaded
//!   structure must behave as the original under the same calls.
//!
//! `SNAPSHOT_FUZZ_MODE=0`, `1` or `2` runs every input in that mode.
//!
//! Every input a loader accepts must pass the structure's checker, agree
//! with `slate_snapshot_info`, hold what its bytes say (read back through
//! the API), save back to the same bytes (a map: the same records, in any
//! order; ancillary sections dropped, minor 0 and this build's notes), and
//! take a few calls checked against a model (stale keys stay stale) before
//! it is freed. Every load that fails leaves its destination as it was.
//! The codec's `decode` rejects some values; on a failed load every value
//! it made must have gone to `discard` exactly once, and on a successful
//! one none. Allocations fail on demand (`failing`): a load returns
//! `SLATE_ERROR_ALLOC` exactly when one did, unless the snapshot's
//! checksum is wrong (then `SLATE_ERROR_CORRUPT`, whatever it met).
//! Nothing may leak.
#![no_main]

use core::cell::RefCell;
use core::ffi::c_void;
use core::ptr::{null, null_mut};
use core::sync::atomic::Ordering;
use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};

use libfuzzer_sys::fuzz_target;
use xxhash_rust::xxh3::{xxh3_64, xxh3_64_with_seed};

#[path = "ffi.rs"]
mod ffi;
use ffi::*;

const MAGIC: [u8; 8] = *b"\x89SLT\r\n\x1a\n";
const KIND_MAP: u32 = 1;
const KIND_SLOTMAP: u32 = 2;
const KIND_SPARSE: u32 = 3;
/// The notes this build writes.
const NOTES: u32 = (cfg!(target_endian = "big") as u32) | ((usize::BITS == 32) as u32) << 1;
/// No slot, no row (`0xFFFFFFFF`).
const NONE: u32 = u32::MAX;

/// Slotmap layouts; a set's are these and membership (no column).
const LAYOUTS: [&[u32]; 6] = [
    &[4],
    &[8],
    &[1, 3, 16, 255],
    &[12],
    &[3, 8, 1],
    &[4, 16, 24, 7],
];
const SET_LAYOUTS: [&[u32]; 6] = [&[], &[1], &[8], &[16], &[3, 8, 1], &[4, 16, 24, 7]];

/// Rows wider than this are inserted as zeroes (`NULL`), unchecked.
const WIDE_ROW: usize = 1 << 16;

// ---- bytes -------------------------------------------------------------------

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

/// Sets the total length and the checksum to match the bytes.
fn seal(b: &mut [u8]) {
    let n = b.len();
    b[16..24].copy_from_slice(&(n as u64).to_le_bytes());
    let sum = xxh3_64(&b[..n - 8]);
    b[n - 8..].copy_from_slice(&sum.to_le_bytes());
}

/// The envelope made right: at least 40 bytes, the magic, major 1, the
/// total length and the checksum (the rest of the header as given).
fn repair(b: &mut Vec<u8>) {
    if b.len() < 40 {
        b.resize(40, 0);
    }
    b[..8].copy_from_slice(&MAGIC);
    b[8..10].copy_from_slice(&1u16.to_le_bytes());
    seal(b);
}

type Section<'a> = ([u8; 4], &'a [u8], &'a [u8]);

/// The sections whose frames fit, in order: tag, the section's bytes
/// (head, payload, padding), payload; and whether they tile the bytes
/// between header and checksum.
fn frames(b: &[u8]) -> (Vec<Section<'_>>, bool) {
    let mut out = vec![];
    let (mut at, end) = (32, b.len().saturating_sub(8));
    while at + 16 <= end {
        let n = u64_at(b, at + 8);
        let size = n.div_ceil(16).saturating_mul(16).saturating_add(16);
        if size > (end - at) as u64 {
            break;
        }
        let (n, size) = (n as usize, size as usize);
        let tag = [b[at], b[at + 1], b[at + 2], b[at + 3]];
        out.push((tag, &b[at..at + size], &b[at + 16..at + 16 + n]));
        at += size;
    }
    (out, at == end)
}

/// The sections of a snapshot whose framing a loader accepted.
fn sections(b: &[u8]) -> Vec<Section<'_>> {
    let (s, tiled) = frames(b);
    assert!(tiled, "accepted sections do not tile the snapshot");
    s
}

/// The critical sections' payloads, in order.
fn critical(b: &[u8]) -> Vec<([u8; 4], &[u8])> {
    sections(b)
        .into_iter()
        .filter(|(t, _, _)| t[0].is_ascii_uppercase())
        .map(|(t, _, p)| (t, p))
        .collect()
}

/// The image the library writes of what an accepted snapshot holds:
/// minor 0, this build's notes, the critical sections only.
fn canonical(b: &[u8]) -> Vec<u8> {
    let mut out = b[..32].to_vec();
    out[10..12].copy_from_slice(&0u16.to_le_bytes());
    out[28..32].copy_from_slice(&NOTES.to_le_bytes());
    for (tag, whole, _) in sections(b) {
        if tag[0].is_ascii_uppercase() {
            out.extend_from_slice(whole);
        }
    }
    out.extend_from_slice(&[0; 8]);
    seal(&mut out);
    out
}

/// A map record: key bytes and value bytes (an integer value's 8).
type Record<'a> = (&'a [u8], &'a [u8]);

/// A map's records.
fn records(mape: &[u8], codec: bool) -> Vec<Record<'_>> {
    try_records(mape, codec).expect("accepted records that do not parse")
}

/// `n` bytes of `b` from `*at`, if it has them.
fn take<'a>(b: &'a [u8], at: &mut usize, n: usize) -> Option<&'a [u8]> {
    let end = at.checked_add(n)?;
    let s = b.get(*at..end)?;
    *at = end;
    Some(s)
}

fn take_len(b: &[u8], at: &mut usize) -> Option<usize> {
    Some(u32::from_le_bytes(take(b, at, 4)?.try_into().ok()?) as usize)
}

/// A map's records, if they fill `MAPE` exactly.
fn try_records(mape: &[u8], codec: bool) -> Option<Vec<Record<'_>>> {
    let mut out = vec![];
    let mut at = 0usize;
    while at < mape.len() {
        let n = take_len(mape, &mut at)?;
        let key = take(mape, &mut at, n)?;
        let value = if codec {
            let v = take_len(mape, &mut at)?;
            take(mape, &mut at, v)?
        } else {
            take(mape, &mut at, 8)?
        };
        out.push((key, value));
    }
    Some(out)
}

/// One record's digest: maps are compared as sorted digests, their
/// records being in any order.
fn digest(key: &[u8], value: &[u8]) -> u64 {
    xxh3_64_with_seed(value, xxh3_64(key))
}

fn digests<'a>(records: impl Iterator<Item = Record<'a>>) -> Vec<u64> {
    let mut d: Vec<u64> = records.map(|(k, v)| digest(k, v)).collect();
    d.sort_unstable();
    d
}

/// A slotmap snapshot as its fields.
struct SlotImage<'a> {
    sizes: Vec<u32>,
    len: u32,
    slots: Vec<(u32, u32)>,
    columns: Vec<&'a [u8]>,
}

impl SlotImage<'_> {
    fn parse(b: &[u8]) -> SlotImage<'_> {
        let c = critical(b);
        let h = c[0].1;
        let columns = u32_at(h, 0) as usize;
        SlotImage {
            sizes: (0..columns).map(|i| u32_at(h, 44 + 4 * i)).collect(),
            len: u32_at(h, 4),
            slots: c[1]
                .1
                .chunks(8)
                .map(|p| (u32_at(p, 0), u32_at(p, 4)))
                .collect(),
            columns: c[2..].iter().map(|&(_, p)| p).collect(),
        }
    }

    /// Each row's key and digest, in dense order.
    fn rows(&self) -> Vec<(u64, u64)> {
        let mut keys = vec![0u64; self.len as usize];
        for (s, &(v, link)) in self.slots.iter().enumerate() {
            if v & 1 == 1 {
                keys[link as usize] = (v as u64) << 32 | s as u64;
            }
        }
        keys.into_iter()
            .enumerate()
            .map(|(r, k)| (k, row_of(&self.sizes, &self.columns, r)))
            .collect()
    }

    /// Keys issued before the save and erased since: a vacant slot's
    /// version less one.
    fn stale(&self) -> Vec<u64> {
        self.slots
            .iter()
            .enumerate()
            .filter(|(_, &(v, _))| v != 0 && v & 1 == 0)
            .map(|(s, &(v, _))| ((v - 1) as u64) << 32 | s as u64)
            .collect()
    }
}

/// A row's digest, from its fields in column order. Rows are compared
/// by digest, as map entries are: two rows that differ have the same
/// digest with odds of 2^-64.
fn row_digest<'a>(fields: impl Iterator<Item = &'a [u8]>) -> u64 {
    fields.fold(0, |d, f| xxh3_64_with_seed(f, d))
}

/// Row `r`'s digest, from per-column bytes.
fn row_of(sizes: &[u32], columns: &[&[u8]], r: usize) -> u64 {
    row_digest(sizes.iter().enumerate().map(|(c, &size)| {
        let size = size as usize;
        &columns[c][r * size..(r + 1) * size]
    }))
}

/// A packed row's digest (its fields back to back).
fn packed_digest(sizes: &[u32], row: &[u8]) -> u64 {
    let mut at = 0;
    row_digest(sizes.iter().map(|&size| {
        let field = &row[at..at + size as usize];
        at += size as usize;
        field
    }))
}

/// A sparse set snapshot: its sizes and its rows (key, digest) in order.
fn set_image(b: &[u8]) -> (Vec<u32>, Vec<(u64, u64)>) {
    let c = critical(b);
    let h = c[0].1;
    let columns = u32_at(h, 0) as usize;
    let sizes: Vec<u32> = (0..columns).map(|i| u32_at(h, 8 + 4 * i)).collect();
    let cols: Vec<&[u8]> = c[2..].iter().map(|&(_, p)| p).collect();
    let rows = c[1]
        .1
        .chunks(8)
        .enumerate()
        .map(|(r, k)| (u64_at(k, 0), row_of(&sizes, &cols, r)))
        .collect();
    (sizes, rows)
}

// ---- the codec: values in an arena -------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Made {
    /// By the target, for a map it builds.
    Target,
    /// By `decode`, during the current load or an earlier one.
    Decoded,
    Discarded,
}

struct Arena {
    values: Vec<(Vec<u8>, Made)>,
    /// Values from this index on were made by the load under way.
    mark: usize,
}

thread_local! {
    static ARENA: RefCell<Arena> = const { RefCell::new(Arena { values: Vec::new(), mark: 0 }) };
}

/// The codec's context, checked on every call.
static CODEC_CONTEXT: u8 = 0;

fn codec_context() -> *mut c_void {
    (&raw const CODEC_CONTEXT).cast_mut().cast()
}

/// `decode` refuses values that start with these bytes, with `REJECT`.
const REFUSED: [u8; 2] = [0xDE, 0xC0];
const REJECT: i32 = 77;

fn value_ptr(i: usize) -> *mut c_void {
    ((i + 1) * 16) as *mut c_void
}

fn value_index(v: *mut c_void) -> usize {
    let p = v as usize;
    let i = (p / 16).wrapping_sub(1);
    let n = ARENA.with(|a| a.borrow().values.len());
    assert!(
        p.is_multiple_of(16) && i < n,
        "not a value of the arena: {p:#x}"
    );
    i
}

fn new_value(bytes: Vec<u8>, made: Made) -> *mut c_void {
    ARENA.with(|a| {
        let mut a = a.borrow_mut();
        a.values.push((bytes, made));
        value_ptr(a.values.len() - 1)
    })
}

/// `f` of a live value's bytes.
fn with_value<R>(v: *mut c_void, f: impl FnOnce(&[u8]) -> R) -> R {
    let i = value_index(v);
    ARENA.with(|a| {
        let a = a.borrow();
        assert_ne!(a.values[i].1, Made::Discarded, "a discarded value used");
        f(&a.values[i].0)
    })
}

unsafe extern "C" fn encode(
    ctx: *mut c_void,
    value: *mut c_void,
    buffer: *mut c_void,
    capacity: u32,
    length: *mut u32,
) -> i32 {
    assert_eq!(ctx, codec_context());
    // SAFETY: the library passes a writable length, and `capacity`
    // writable bytes at `buffer` when it is not NULL.
    with_value(value, |bytes| unsafe {
        *length = bytes.len() as u32;
        if bytes.len() <= capacity as usize {
            assert!(!buffer.is_null() || bytes.is_empty());
            if !bytes.is_empty() {
                core::ptr::copy_nonoverlapping(bytes.as_ptr(), buffer.cast(), bytes.len());
            }
        }
    });
    0
}

unsafe extern "C" fn decode(
    ctx: *mut c_void,
    bytes: *const c_void,
    length: u32,
    value: *mut *mut c_void,
) -> i32 {
    assert_eq!(ctx, codec_context());
    let b = if length == 0 {
        Vec::new()
    } else {
        // SAFETY: the library passes `length` readable bytes.
        unsafe { core::slice::from_raw_parts(bytes.cast::<u8>(), length as usize) }.to_vec()
    };
    if b.starts_with(&REFUSED) {
        return REJECT;
    }
    // SAFETY: the library passes a writable value.
    unsafe { *value = new_value(b, Made::Decoded) };
    0
}

unsafe extern "C" fn discard(ctx: *mut c_void, value: *mut c_void) {
    assert_eq!(ctx, codec_context());
    let i = value_index(value);
    ARENA.with(|a| {
        let mut a = a.borrow_mut();
        assert!(i >= a.mark, "discarded a value of another load");
        assert_eq!(a.values[i].1, Made::Decoded, "discarded twice");
        a.values[i].1 = Made::Discarded;
    });
}

fn codec() -> slate_value_codec_s {
    slate_value_codec_s {
        encode: Some(encode),
        decode: Some(decode),
        discard: Some(discard),
        context: codec_context(),
    }
}

/// The values the load under way made, and whether each was discarded.
fn load_made() -> Vec<(usize, Made)> {
    ARENA.with(|a| {
        let a = a.borrow();
        (a.mark..a.values.len())
            .map(|i| (i, a.values[i].1))
            .collect()
    })
}

fn begin_load() {
    ARENA.with(|a| {
        let mut a = a.borrow_mut();
        a.mark = a.values.len();
    });
}

// ---- structures --------------------------------------------------------------

/// What a destination gets before a load, from the options byte.
#[derive(Clone, Copy)]
struct Options {
    /// Raw modes: 0..=3 take a slotmap's or set's layout from
    /// `slate_snapshot_info` when it has one; the low two bits pick a
    /// fixed layout.
    layout: u8,
    /// The failing allocator as the destination's own; a map's seed pinned.
    own: bool,
    /// Fail the `fail`-th allocation of the load (0: none).
    fail: u8,
}

impl Options {
    fn new(b: u8) -> Options {
        Options {
            layout: b & 7,
            own: b & 8 != 0,
            fail: b >> 4,
        }
    }
}

fn new_slotmap(sizes: &[u32], own: bool) -> Option<slotmap_s> {
    let mut sm = slotmap_s([0; 24]);
    // SAFETY: writable memory for a slotmap; `sizes` has its length.
    unsafe {
        if slotmap_columns(&mut sm, sizes.as_ptr(), sizes.len() as u32) != OK {
            return None;
        }
        if own {
            assert_eq!(slotmap_set_allocator(&mut sm, &failing::own()), OK);
        }
    }
    Some(sm)
}

fn new_set(sizes: &[u32], own: bool) -> Option<slotmap_sparse_s> {
    let mut sp = slotmap_sparse_s([0; 24]);
    // SAFETY: as above.
    unsafe {
        let rc = match sizes.len() {
            0 => slotmap_sparse(&mut sp, 0),
            n => slotmap_sparse_columns(&mut sp, sizes.as_ptr(), n as u32),
        };
        if rc != OK {
            return None;
        }
        if own {
            assert_eq!(slotmap_sparse_set_allocator(&mut sp, &failing::own()), OK);
        }
    }
    Some(sp)
}

fn new_map(own: bool) -> slate_s {
    let mut m = slate_s([0; 8]);
    // SAFETY: writable memory for a map.
    unsafe {
        assert_eq!(slate(&mut m), OK);
        if own {
            assert_eq!(slate_set_allocator(&mut m, &failing::own()), OK);
            assert_eq!(slate_pin_seed(&mut m, 0x005E_ED0F_5A7E), OK);
        }
    }
    m
}

/// Saves through `slate_buffer_write` into a buffer of exactly the size
/// `size` promised.
fn save_into(size: u64, save: impl FnOnce(*mut c_void) -> i32) -> Vec<u8> {
    let mut out = vec![0u8; size as usize];
    let mut buf = slate_buffer_s {
        bytes: out.as_mut_ptr().cast(),
        capacity: out.len(),
        length: 0,
    };
    let rc = save((&mut buf as *mut slate_buffer_s).cast());
    assert_eq!(rc, OK, "save");
    assert_eq!(buf.length, out.len(), "the save wrote other than its size");
    out
}

fn save_slotmap(sm: &slotmap_s) -> Vec<u8> {
    // SAFETY: an initialized slotmap; the buffer's context.
    unsafe {
        save_into(slotmap_save_size(sm), |b| {
            slotmap_save(sm, Some(slate_buffer_write), b)
        })
    }
}

fn save_set(sp: &slotmap_sparse_s) -> Vec<u8> {
    // SAFETY: as above.
    unsafe {
        save_into(slotmap_sparse_save_size(sp), |b| {
            slotmap_sparse_save(sp, Some(slate_buffer_write), b)
        })
    }
}

fn save_map(m: &slate_s, with_codec: bool) -> Vec<u8> {
    let c = codec();
    let c: *const slate_value_codec_s = if with_codec { &c } else { null() };
    let mut size = 0u64;
    // SAFETY: an initialized map, a codec over the arena, the buffer's
    // context.
    unsafe {
        assert_eq!(slate_save_size(m, c, &mut size), OK);
        save_into(size, |b| slate_save(m, c, Some(slate_buffer_write), b))
    }
}

fn message(m: &[u8]) -> String {
    let end = m.iter().position(|&b| b == 0).unwrap_or(m.len());
    String::from_utf8_lossy(&m[..end]).into_owned()
}

fn check_slotmap(sm: &slotmap_s) {
    let mut m = [0u8; 256];
    // SAFETY: an initialized slotmap; the buffer has its size.
    let rc = unsafe { slotmap_check(sm, m.as_mut_ptr().cast(), 256) };
    assert_eq!(rc, OK, "slotmap_check: {}", message(&m));
}

fn check_set(sp: &slotmap_sparse_s) {
    let mut m = [0u8; 256];
    // SAFETY: as above.
    let rc = unsafe { slotmap_sparse_check(sp, m.as_mut_ptr().cast(), 256) };
    assert_eq!(rc, OK, "slotmap_sparse_check: {}", message(&m));
}

fn check_map(m: &slate_s) {
    if let Err(e) = check(m) {
        panic!("slate_check: {e}");
    }
}

fn snapshot_info(b: &[u8]) -> Result<slate_snapshot_info_s, i32> {
    let mut info = slate_snapshot_info_s::default();
    // SAFETY: `b` has its length; `info` is writable.
    let rc = unsafe { slate_snapshot_info(b.as_ptr().cast(), b.len(), &mut info) };
    if rc == OK {
        Ok(info)
    } else {
        assert_eq!(
            info,
            slate_snapshot_info_s::default(),
            "info changed on error"
        );
        Err(rc)
    }
}

/// A slotmap's rows through the API, in dense order: key and digest.
fn slotmap_rows(sm: &slotmap_s, sizes: &[u32]) -> Vec<(u64, u64)> {
    // SAFETY: an initialized slotmap; its columns have `len` rows.
    unsafe {
        let len = slotmap_length(sm);
        let cols: Vec<&[u8]> = sizes
            .iter()
            .enumerate()
            .map(|(c, &s)| {
                let n = s as usize * len as usize;
                let p = slotmap_column(sm, c as u32);
                if n == 0 {
                    &[][..]
                } else {
                    core::slice::from_raw_parts(p.cast::<u8>(), n)
                }
            })
            .collect();
        (0..len)
            .map(|r| {
                let k = slotmap_key_at(sm, r);
                let mut row = NONE;
                assert_eq!(slotmap_row(sm, k, &mut row), OK, "row {r}'s key");
                assert_eq!(row, r, "key {k:#x} names another row");
                (k, row_of(sizes, &cols, r as usize))
            })
            .collect()
    }
}

/// A set's rows through the API, in dense order: key and digest.
fn set_rows(sp: &slotmap_sparse_s, sizes: &[u32]) -> Vec<(u64, u64)> {
    // SAFETY: an initialized set; its columns have `len` rows.
    unsafe {
        let len = slotmap_sparse_length(sp);
        let cols: Vec<&[u8]> = sizes
            .iter()
            .enumerate()
            .map(|(c, &s)| {
                let n = s as usize * len as usize;
                let p = slotmap_sparse_column(sp, c as u32);
                if n == 0 {
                    &[][..]
                } else {
                    core::slice::from_raw_parts(p.cast::<u8>(), n)
                }
            })
            .collect();
        (0..len)
            .map(|r| {
                let k = slotmap_sparse_key_at(sp, r);
                let mut row = NONE;
                assert_eq!(slotmap_sparse_row(sp, k, &mut row), OK, "row {r}'s key");
                assert_eq!(row, r, "key {k:#x} names another row");
                (k, row_of(sizes, &cols, r as usize))
            })
            .collect()
    }
}

/// The digests of a map's entries (value bytes: an integer's 8, or a
/// codec value's), sorted.
fn map_digests(m: &slate_s, with_codec: bool) -> Vec<u64> {
    let mut out = vec![];
    let mut it = slate_iter_s([0; 8]);
    // SAFETY: an initialized map, not changed during the walk; the key
    // is valid until the map changes.
    unsafe {
        assert_eq!(slate_iter(&mut it, m), OK);
        loop {
            let (mut k, mut n, mut v) = (null(), 0u32, null_mut());
            let rc = slate_iter_next(&mut it, m, &mut k, &mut n, &mut v);
            if rc != OK {
                assert_eq!(rc, NOT_FOUND);
                break;
            }
            let key: &[u8] = if n == 0 {
                &[]
            } else {
                core::slice::from_raw_parts(k.cast::<u8>(), n as usize)
            };
            let d = if with_codec {
                let i = value_index(v);
                ARENA.with(|a| {
                    let a = a.borrow();
                    assert_ne!(a.values[i].1, Made::Discarded, "a discarded value held");
                    digest(key, &a.values[i].0)
                })
            } else {
                digest(key, &(v as usize as u64).to_le_bytes())
            };
            out.push(d);
        }
    }
    out.sort_unstable();
    out
}

/// A map's entries as the target expects them: key bytes to value bytes.
type Model = HashMap<Vec<u8>, Vec<u8>, BuildHasherDefault<ModelHasher>>;

/// The models' hasher: cheap, and the same in every run, so that an
/// input makes the same calls each time it runs.
#[derive(Default)]
struct ModelHasher(u64);

impl Hasher for ModelHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7C_C1_B7_27_22_0A_95);
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

/// The digests of a model's entries, sorted.
fn model_digests(model: &Model) -> Vec<u64> {
    digests(model.iter().map(|(k, v)| (&k[..], &v[..])))
}

/// Every value of the map, through `slate_iter_next`.
fn values(m: &slate_s) -> Vec<usize> {
    let mut out = vec![];
    let mut it = slate_iter_s([0; 8]);
    // SAFETY: an initialized map, not changed during the walk.
    unsafe {
        assert_eq!(slate_iter(&mut it, m), OK);
        loop {
            let (mut k, mut n, mut v) = (null(), 0u32, null_mut());
            let rc = slate_iter_next(&mut it, m, &mut k, &mut n, &mut v);
            if rc != OK {
                assert_eq!(rc, NOT_FOUND);
                break;
            }
            out.push(v as usize);
        }
    }
    out
}

fn map_get(m: &slate_s, k: &[u8]) -> Option<*mut c_void> {
    let mut v = null_mut();
    // SAFETY: an initialized map; the key has its length.
    let rc = unsafe { slate_get_bytes(m, k.as_ptr().cast(), k.len() as u32, &mut v) };
    match rc {
        OK => Some(v),
        NOT_FOUND => None,
        _ => panic!("slate_get_bytes: {rc}"),
    }
}

// ---- what a load must leave --------------------------------------------------

/// Whether `b` passes the checks a load makes before the checksum
/// (length, magic, major, total length) and has a wrong checksum.
fn bad_checksum(b: &[u8]) -> bool {
    let n = b.len();
    n >= 40
        && b[..8] == MAGIC
        && b[8..10] == 1u16.to_le_bytes()
        && u64_at(b, 16) == n as u64
        && xxh3_64(&b[..n - 8]) != u64_at(b, n - 8)
}

/// Runs a load with the options' allocation failure armed. For bytes
/// with a wrong checksum (`bad`, from `bad_checksum`) the result is
/// `SLATE_ERROR_CORRUPT` whatever the load met while it read the
/// sections, a failed allocation included (SPEC §6c checks the checksum
/// first; a load may allocate before it knows it); otherwise it is
/// `SLATE_ERROR_ALLOC` exactly when an allocation failed.
fn load_with(fail: u8, bad: bool, load: impl FnOnce() -> i32) -> i32 {
    let before = failing::failures();
    if fail > 0 {
        failing::arm(fail as u64 - 1);
    }
    let rc = load();
    failing::FAIL_IN.store(0, Ordering::Relaxed);
    if bad {
        assert_eq!(rc, CORRUPT, "a load with a wrong checksum");
    } else {
        failing::check_surfaced(0, rc, before);
    }
    rc
}

/// The values a map load made: none discarded after a success (and the
/// map holds each once), each discarded once after a failure.
fn check_made(rc: i32, m: &slate_s, with_codec: bool) {
    let made = load_made();
    if !with_codec {
        assert!(made.is_empty(), "decode called for integer values");
        return;
    }
    if rc != OK {
        for (i, st) in made {
            assert_eq!(st, Made::Discarded, "value {i} not discarded after rc {rc}");
        }
        return;
    }
    let mut held: Vec<usize> = values(m)
        .into_iter()
        .map(|v| value_index(v as *mut c_void))
        .collect();
    held.sort();
    let all: Vec<usize> = made.iter().map(|&(i, _)| i).collect();
    assert_eq!(
        held, all,
        "the loaded map holds other values than decode made"
    );
    assert!(made.iter().all(|&(_, st)| st == Made::Decoded));
}

/// `slate_snapshot_info` on an accepted snapshot, alone and followed by
/// more bytes: what the loader saw.
fn check_info(b: &[u8], kind: u32) -> slate_snapshot_info_s {
    let info = snapshot_info(b).expect("a loader accepted what info rejects");
    let mut more = b.to_vec();
    more.extend_from_slice(&b[..b.len().min(48)]);
    assert_eq!(
        snapshot_info(&more),
        Ok(info),
        "info of a snapshot and more"
    );
    assert_eq!(info.length, b.len() as u64);
    assert_eq!(info.kind, kind);
    assert_eq!(info.format_major, 1);
    assert_eq!(info.format_minor, u16::from_le_bytes([b[10], b[11]]) as u32);
    assert_eq!(info.notes, u32_at(b, 28));
    info
}

/// Bytes for the calls made on an accepted structure: the input's rest
/// in the structured mode, else bytes derived from the snapshot.
fn derived(b: &[u8]) -> Vec<u8> {
    (0..4)
        .flat_map(|i| xxh3_64_with_seed(b, i).to_le_bytes())
        .collect()
}

/// `SEVENS[j]` is `7 * j` (mod 256): any 256 in a row from `j < 256`
/// are one period.
const SEVENS: [u8; 512] = {
    let mut t = [0u8; 512];
    let mut j = 0;
    while j < 512 {
        t[j] = (j * 7) as u8;
        j += 1;
    }
    t
};

/// Fills `buf` with the packed row of `sizes` made from `tag` (byte `i`
/// is `157 * tag + 7 * i`, mod 256); its digest. `buf` is allocated to
/// exactly the row, so that ASan reports a read past it.
fn fill_row(buf: &mut Vec<u8>, sizes: &[u32], tag: u32) -> u64 {
    let row: usize = sizes.iter().map(|&s| s as usize).sum();
    if buf.capacity() != row {
        *buf = Vec::with_capacity(row);
    }
    buf.clear();
    // 157 * tag = 7 * (183 * 157 * tag), as 7 * 183 = 1 (mod 256).
    let start = (tag as usize).wrapping_mul(183 * 157) % 256;
    while buf.len() < row {
        let n = (row - buf.len()).min(256);
        buf.extend_from_slice(&SEVENS[start..start + n]);
    }
    packed_digest(sizes, buf)
}

/// An accepted slotmap's checks: checker, info, content read back
/// through the API, re-save. Its rows by key, and keys that must stay
/// stale.
fn verify_slotmap(sm: &slotmap_s, b: &[u8], sizes: &[u32]) -> (BTreeMap<u64, u64>, Vec<u64>) {
    check_slotmap(sm);
    let info = check_info(b, KIND_SLOTMAP);
    let img = SlotImage::parse(b);
    assert_eq!(info.count, img.len as u64);
    assert_eq!(info.slots, img.slots.len() as u32);
    assert_eq!(&info.sizes[..info.columns as usize], sizes);
    assert_eq!(img.sizes, sizes);
    assert_eq!(save_slotmap(sm), canonical(b), "re-save differs");
    let rows = img.rows();
    assert_eq!(slotmap_rows(sm, sizes), rows, "loaded rows");
    let stale = img.stale();
    for &k in &stale {
        // SAFETY: an initialized slotmap.
        assert_eq!(
            unsafe { slotmap_contains(sm, k) },
            0,
            "stale key {k:#x} validates"
        );
    }
    (rows.into_iter().collect(), stale)
}

/// A few calls on an accepted slotmap, checked against its rows and
/// stale keys; then `free`.
fn calls_slotmap(
    mut sm: slotmap_s,
    sizes: &[u32],
    mut live: BTreeMap<u64, u64>,
    mut stale: Vec<u64>,
    input: &mut Input,
) {
    let row: usize = sizes.iter().map(|&s| s as usize).sum();
    let mut bytes = vec![];
    // SAFETY (every call below): an initialized slotmap.
    unsafe {
        for step in 0..6u32 {
            match input.byte() % 4 {
                0 | 1 if row <= WIDE_ROW => {
                    let digest = fill_row(&mut bytes, sizes, step);
                    let mut k = 0;
                    let rc = slotmap_insert(&mut sm, bytes.as_ptr().cast(), &mut k);
                    if rc == OK {
                        assert!(!stale.contains(&k), "reissued {k:#x}");
                        assert!(live.insert(k, digest).is_none(), "issued twice {k:#x}");
                    } else {
                        assert!(rc == FULL || rc == ALLOC, "insert: {rc}");
                    }
                }
                2 if !live.is_empty() => {
                    let i = input.byte() as usize % live.len();
                    let k = *live.keys().nth(i).unwrap();
                    assert_eq!(slotmap_erase(&mut sm, k), OK);
                    live.remove(&k);
                    stale.push(k);
                }
                _ => {
                    if let Some(&k) = stale.last() {
                        assert_eq!(slotmap_erase(&mut sm, k), NOT_FOUND);
                    }
                }
            }
        }
        check_slotmap(&sm);
        let now: BTreeMap<u64, u64> = slotmap_rows(&sm, sizes).into_iter().collect();
        assert_eq!(now, live, "rows after the calls");
        for &k in &stale {
            assert_eq!(slotmap_contains(&sm, k), 0, "stale key {k:#x} validates");
        }
        slotmap_free(&mut sm);
    }
}

/// An accepted set's checks: checker, info, content, re-save. Its rows
/// by slot index.
fn verify_set(sp: &slotmap_sparse_s, b: &[u8], sizes: &[u32]) -> BTreeMap<u32, (u64, u64)> {
    check_set(sp);
    let info = check_info(b, KIND_SPARSE);
    let (img_sizes, rows) = set_image(b);
    assert_eq!(img_sizes, sizes);
    assert_eq!(info.count, rows.len() as u64);
    assert_eq!(&info.sizes[..info.columns as usize], sizes);
    assert_eq!(save_set(sp), canonical(b), "re-save differs");
    assert_eq!(set_rows(sp, sizes), rows, "loaded rows");
    rows.into_iter().map(|(k, r)| (k as u32, (k, r))).collect()
}

/// A few calls on an accepted set, checked against its rows; then
/// `free`.
fn calls_set(
    mut sp: slotmap_sparse_s,
    sizes: &[u32],
    mut model: BTreeMap<u32, (u64, u64)>,
    input: &mut Input,
) {
    let row: usize = sizes.iter().map(|&s| s as usize).sum();
    let mut bytes = vec![];
    // SAFETY (every call below): an initialized set.
    unsafe {
        for step in 0..6u32 {
            match input.byte() % 3 {
                0 if row <= WIDE_ROW => {
                    // A new key, or another generation of a held slot
                    // (which takes its row over).
                    let slot = match (input.byte(), model.keys().next()) {
                        (x, Some(&s)) if x % 2 == 0 => s,
                        (x, _) => x as u32 * 0x0101_0101,
                    };
                    let key = (input.byte() as u64 | 1) << 32 | slot as u64;
                    let digest = fill_row(&mut bytes, sizes, step);
                    let p = if row == 0 { null() } else { bytes.as_ptr() };
                    let rc = slotmap_sparse_set(&mut sp, null(), key, p.cast());
                    if rc == OK {
                        model.insert(slot, (key, digest));
                    } else {
                        assert!(rc == ALLOC || rc == FULL, "set: {rc}");
                    }
                }
                1 if !model.is_empty() => {
                    let i = input.byte() as usize % model.len();
                    let (&slot, &(k, _)) = model.iter().nth(i).unwrap();
                    assert_eq!(slotmap_sparse_erase(&mut sp, k), OK);
                    model.remove(&slot);
                    assert_eq!(slotmap_sparse_contains(&sp, k), 0);
                }
                _ => {
                    if let Some((_, &(k, _))) = model.iter().next() {
                        // Another generation of a held key is not held.
                        assert_eq!(slotmap_sparse_contains(&sp, k ^ 2 << 32), 0);
                        assert_ne!(slotmap_sparse_contains(&sp, k), 0);
                    }
                }
            }
        }
        check_set(&sp);
        let now: BTreeMap<u32, (u64, u64)> = set_rows(&sp, sizes)
            .into_iter()
            .map(|(k, r)| (k as u32, (k, r)))
            .collect();
        assert_eq!(now, model, "rows after the calls");
        slotmap_sparse_free(&mut sp);
    }
}

/// An accepted map's checks: checker, info, content, re-save (the same
/// records, in any order). Its entries.
fn verify_map(m: &slate_s, b: &[u8], with_codec: bool) -> Model {
    check_map(m);
    let info = check_info(b, KIND_MAP);
    let c = critical(b);
    let recs = records(c[1].1, with_codec);
    assert_eq!(info.count, recs.len() as u64);
    assert_eq!(info.values, if with_codec { 2 } else { 1 });
    // SAFETY: an initialized map.
    assert_eq!(unsafe { slate_length(m) }, recs.len() as u64);
    let want = digests(recs.iter().copied());
    assert_eq!(map_digests(m, with_codec), want, "loaded entries");
    let (canon, got) = (canonical(b), save_map(m, with_codec));
    assert_eq!(canon.len(), got.len(), "re-save's size");
    assert_eq!(canon[..32], got[..32], "re-save's header");
    let (wc, gc) = (critical(&canon), critical(&got));
    assert_eq!(wc[0], gc[0], "re-save's MAPH");
    let again = digests(records(gc[1].1, with_codec).into_iter());
    assert_eq!(again, want, "re-saved records");
    recs.into_iter()
        .map(|(k, v)| (k.to_vec(), v.to_vec()))
        .collect()
}

/// A few calls on an accepted map, checked against its entries; then
/// `free`.
fn calls_map(mut m: slate_s, with_codec: bool, mut model: Model, input: &mut Input) {
    // SAFETY (every call below): an initialized map.
    unsafe {
        for step in 0..6u8 {
            match input.byte() % 3 {
                0 => {
                    let n = input.byte() as usize % 12;
                    let key = input.bytes(n);
                    let v = if with_codec {
                        let bytes = vec![step; step as usize];
                        (new_value(bytes.clone(), Made::Target), bytes)
                    } else {
                        let v = input.u32() as usize;
                        (v as *mut c_void, (v as u64).to_le_bytes().to_vec())
                    };
                    let rc = slate_set_bytes(&mut m, key.as_ptr().cast(), key.len() as u32, v.0);
                    if rc == OK {
                        model.insert(key, v.1);
                    } else {
                        assert_eq!(rc, ALLOC, "set");
                    }
                }
                1 if !model.is_empty() => {
                    let i = input.byte() as usize % model.len();
                    let k = model.keys().nth(i).unwrap().clone();
                    let rc = slate_delete_bytes(&mut m, k.as_ptr().cast(), k.len() as u32);
                    assert_eq!(rc, OK);
                    model.remove(&k);
                    assert!(map_get(&m, &k).is_none());
                }
                _ => {
                    let k = input.bytes(10);
                    assert_eq!(map_get(&m, &k).is_some(), model.contains_key(&k));
                }
            }
        }
        check_map(&m);
        assert_eq!(
            map_digests(&m, with_codec),
            model_digests(&model),
            "entries after the calls"
        );
        slate_free(&mut m);
    }
}

// ---- the raw modes -----------------------------------------------------------

/// A slotmap's or set's layout for a load of `b`: the snapshot's own
/// (from `slate_snapshot_info`) or a fixed one.
fn layout_for(opts: Options, info: Option<&slate_snapshot_info_s>, kind: u32) -> Vec<u32> {
    let fixed = if kind == KIND_SLOTMAP {
        LAYOUTS[opts.layout as usize % 4]
    } else {
        SET_LAYOUTS[opts.layout as usize % 4]
    };
    match info {
        Some(i) if opts.layout < 4 && i.kind == kind => i.sizes[..i.columns as usize].to_vec(),
        _ => fixed.to_vec(),
    }
}

fn raw(b: &[u8], opts: Options) {
    let info = snapshot_info(b);
    if let Ok(i) = &info {
        assert!(i.length >= 40 && i.length <= b.len() as u64);
        assert!((1..=3).contains(&i.kind) && i.format_major == 1);
        assert!(i.columns <= 16);
    }
    let info = info.ok();
    let bad = bad_checksum(b);
    let mut accepted = 0;
    // Maps, with integer values and with the codec.
    for with_codec in [false, true] {
        let mut m = new_map(opts.own);
        let before = info_of(&m);
        let c = codec();
        let c: *const slate_value_codec_s = if with_codec { &c } else { null() };
        begin_load();
        // SAFETY: an initialized map; `b` has its length.
        let rc = load_with(opts.fail, bad, || unsafe {
            slate_load(&mut m, b.as_ptr().cast(), b.len(), c)
        });
        check_made(rc, &m, with_codec);
        if rc == OK {
            accepted += 1;
            let model = verify_map(&m, b, with_codec);
            calls_map(m, with_codec, model, &mut Input::new(&derived(b)));
        } else {
            assert!(rc < 0 || rc == REJECT, "slate_load: {rc}");
            assert_eq!(info_of(&m), before, "a failed load changed the map");
            // SAFETY: an initialized map.
            unsafe { slate_free(&mut m) };
        }
    }
    let sizes = layout_for(opts, info.as_ref(), KIND_SLOTMAP);
    let (sizes, mut sm) = match new_slotmap(&sizes, opts.own) {
        Some(sm) => (sizes, sm),
        None => {
            let s = LAYOUTS[opts.layout as usize % 4].to_vec();
            let sm = new_slotmap(&s, opts.own).unwrap();
            (s, sm)
        }
    };
    let before = save_slotmap(&sm);
    // SAFETY: an initialized slotmap; `b` has its length.
    let rc = load_with(opts.fail, bad, || unsafe {
        slotmap_load(&mut sm, b.as_ptr().cast(), b.len())
    });
    if rc == OK {
        accepted += 1;
        let (live, stale) = verify_slotmap(&sm, b, &sizes);
        calls_slotmap(sm, &sizes, live, stale, &mut Input::new(&derived(b)));
    } else {
        assert!(rc < 0, "slotmap_load: {rc}");
        assert_eq!(
            save_slotmap(&sm),
            before,
            "a failed load changed the slotmap"
        );
        // SAFETY: an initialized slotmap.
        unsafe { slotmap_free(&mut sm) };
    }
    let sizes = layout_for(opts, info.as_ref(), KIND_SPARSE);
    let (sizes, mut sp) = match new_set(&sizes, opts.own) {
        Some(sp) => (sizes, sp),
        None => {
            let s = SET_LAYOUTS[opts.layout as usize % 4].to_vec();
            let sp = new_set(&s, opts.own).unwrap();
            (s, sp)
        }
    };
    let before = save_set(&sp);
    // SAFETY: an initialized set; `b` has its length.
    let rc = load_with(opts.fail, bad, || unsafe {
        slotmap_sparse_load(&mut sp, b.as_ptr().cast(), b.len())
    });
    if rc == OK {
        accepted += 1;
        let model = verify_set(&sp, b, &sizes);
        calls_set(sp, &sizes, model, &mut Input::new(&derived(b)));
    } else {
        assert!(rc < 0, "slotmap_sparse_load: {rc}");
        assert_eq!(save_set(&sp), before, "a failed load changed the set");
        // SAFETY: an initialized set.
        unsafe { slotmap_sparse_free(&mut sp) };
    }
    assert!(accepted <= 1, "two loaders accepted one snapshot");
}

fn info_of(m: &slate_s) -> slate_info_s {
    info(m)
}

// ---- the structured mode -----------------------------------------------------

/// A map key as the target makes it: an integer key's 10-byte encoding,
/// or bytes.
fn map_key(input: &mut Input) -> Vec<u8> {
    match input.byte() % 4 {
        0 => {
            let mut k = vec![0, 2];
            k.extend_from_slice(&(input.byte() as u64 * 0x9E37).to_le_bytes());
            k
        }
        1 => {
            let mut k = vec![0, 1];
            k.extend_from_slice(&(-(input.byte() as i64)).to_le_bytes());
            k
        }
        2 => {
            let n = input.byte() as usize % 6;
            input.bytes(n)
        }
        _ => {
            let n = input.byte() as usize % 40;
            let c = input.byte();
            vec![c; n]
        }
    }
}

/// A map built by operations, and what it holds (key -> value bytes).
struct MapBuild {
    m: slate_s,
    codec: bool,
    model: Model,
}

impl MapBuild {
    fn value(&self, input: &mut Input, n: u64) -> (*mut c_void, Vec<u8>) {
        if self.codec {
            // (Not 0 for `REFUSED`: an input that ran out reads zeroes.)
            let bytes = match input.byte() {
                0xDE => REFUSED.to_vec(),
                0xDF => vec![n as u8; 300],
                x => input.bytes(x as usize % 8 * 3),
            };
            (new_value(bytes.clone(), Made::Target), bytes)
        } else {
            let v = match input.byte() % 3 {
                0 => n,
                1 => u64::MAX - n,
                _ => input.u64(),
            } as usize;
            (v as *mut c_void, (v as u64).to_le_bytes().to_vec())
        }
    }

    fn set(&mut self, k: Vec<u8>, v: (*mut c_void, Vec<u8>)) {
        // SAFETY: an initialized map; the key has its length.
        let rc = unsafe { slate_set_bytes(&mut self.m, k.as_ptr().cast(), k.len() as u32, v.0) };
        assert_eq!(rc, OK);
        self.model.insert(k, v.1);
    }

    fn op(&mut self, input: &mut Input, n: u64) {
        // SAFETY (every call): an initialized map.
        unsafe {
            match input.byte() % 16 {
                // Snapshots stay small: the calls on them are what counts.
                0..=9 if self.model.len() >= BIG => {}
                0..=7 => {
                    let k = map_key(input);
                    let v = self.value(input, n);
                    self.set(k, v);
                }
                8 | 9 => {
                    for i in 0..input.byte() as u64 % 32 {
                        let mut k = vec![0, 2];
                        k.extend_from_slice(&(n << 8 | i).to_le_bytes());
                        let v = self.value(input, n + i);
                        self.set(k, v);
                    }
                }
                10 | 11 => {
                    let k = map_key(input);
                    let rc = slate_delete_bytes(&mut self.m, k.as_ptr().cast(), k.len() as u32);
                    let had = self.model.remove(&k).is_some();
                    assert_eq!(rc, if had { OK } else { NOT_FOUND });
                }
                // Clears and frees are rarer, for larger states.
                12 if input.byte() < 64 => {
                    assert_eq!(slate_clear(&mut self.m), OK);
                    self.model.clear();
                }
                13 | 14 => assert_eq!(slate_compact(&mut self.m), OK),
                15 if input.byte() < 64 => {
                    slate_free(&mut self.m);
                    self.model.clear();
                }
                _ => {}
            }
        }
    }
}

/// A slotmap built by operations: its live keys and rows, keys erased.
struct SlotBuild {
    sm: slotmap_s,
    sizes: &'static [u32],
    live: BTreeMap<u64, u64>,
    stale: Vec<u64>,
    /// Rows sorted so far (see `SORTED`).
    sorted: usize,
    /// The row being inserted.
    buf: Vec<u8>,
}

unsafe extern "C" fn less_first(a: *const c_void, b: *const c_void, _: *mut c_void) -> i32 {
    // SAFETY: column 0 has at least one byte.
    unsafe { (*a.cast::<u8>() < *b.cast::<u8>()) as i32 }
}

impl SlotBuild {
    fn insert(&mut self, tag: u32) {
        let digest = fill_row(&mut self.buf, self.sizes, tag);
        let mut k = 0;
        // SAFETY: an initialized slotmap; a packed row.
        let rc = unsafe { slotmap_insert(&mut self.sm, self.buf.as_ptr().cast(), &mut k) };
        if rc == OK {
            assert!(!self.stale.contains(&k), "reissued {k:#x}");
            assert!(self.live.insert(k, digest).is_none());
        } else {
            // Only when no era is left.
            assert_eq!(rc, FULL);
        }
    }

    fn all_stale(&mut self) {
        let keys: Vec<u64> = self.live.keys().copied().collect();
        self.stale.extend(keys);
        self.live.clear();
    }

    fn op(&mut self, input: &mut Input, n: u32) {
        // SAFETY (every call): an initialized slotmap.
        unsafe {
            match input.byte() % 16 {
                0..=7 if self.live.len() >= BIG => {}
                0..=5 => self.insert(n),
                6 | 7 => {
                    for i in 0..input.byte() as u32 % 32 {
                        self.insert(n << 8 | i);
                    }
                }
                8..=11 if !self.live.is_empty() => {
                    let i = input.byte() as usize % self.live.len();
                    let k = *self.live.keys().nth(i).unwrap();
                    assert_eq!(slotmap_erase(&mut self.sm, k), OK);
                    self.live.remove(&k);
                    self.stale.push(k);
                }
                // Clears and frees are rarer, for larger states.
                12 if input.byte() < 64 => {
                    assert_eq!(slotmap_clear(&mut self.sm), OK);
                    self.all_stale();
                }
                13 if input.byte() < 64 => {
                    slotmap_free(&mut self.sm);
                    self.all_stale();
                }
                _ => {
                    if sort_within(&mut self.sorted, slotmap_length(&self.sm)) {
                        let rc = slotmap_sort(&mut self.sm, Some(less_first), null_mut());
                        assert_eq!(rc, OK);
                    }
                }
            }
        }
    }

    /// A first era that starts near the top of the versions, through a
    /// crafted snapshot of an empty slotmap: so that few operations reach
    /// retired slots and the later eras.
    fn start_high(&mut self, below_top: u8) {
        let next = (u32::MAX - 2 * (below_top as u32 % 24)) | 1;
        let mut head = vec![];
        let columns = self.sizes.len() as u32;
        for v in [columns, 0, 0, NONE, 0, next, u32::MAX - 1, next, 0, 0, 0] {
            head.extend_from_slice(&v.to_le_bytes());
        }
        for &s in self.sizes {
            head.extend_from_slice(&s.to_le_bytes());
        }
        let mut b = vec![];
        b.extend_from_slice(&MAGIC);
        b.extend_from_slice(&1u16.to_le_bytes());
        b.extend_from_slice(&0u16.to_le_bytes());
        b.extend_from_slice(&KIND_SLOTMAP.to_le_bytes());
        b.extend_from_slice(&[0; 8]);
        b.extend_from_slice(&0u32.to_le_bytes());
        b.extend_from_slice(&NOTES.to_le_bytes());
        let mut section = |tag: &[u8; 4], payload: &[u8]| {
            b.extend_from_slice(tag);
            b.extend_from_slice(&[0; 4]);
            b.extend_from_slice(&(payload.len() as u64).to_le_bytes());
            b.extend_from_slice(payload);
            b.resize(b.len().div_ceil(16) * 16, 0);
        };
        section(b"SLTH", &head);
        section(b"SLTS", &[]);
        for _ in self.sizes {
            section(b"SLTC", &[]);
        }
        b.extend_from_slice(&[0; 8]);
        seal(&mut b);
        // SAFETY: an initialized slotmap that never issued a key.
        let rc = unsafe { slotmap_load(&mut self.sm, b.as_ptr().cast(), b.len()) };
        assert_eq!(rc, OK, "a crafted first era near the top");
    }
}

/// A set built by operations: slot index -> key and row.
struct SetBuild {
    sp: slotmap_sparse_s,
    sizes: &'static [u32],
    model: BTreeMap<u32, (u64, u64)>,
    /// Rows sorted so far (see `SORTED`).
    sorted: usize,
    /// The row being set.
    buf: Vec<u8>,
}

impl SetBuild {
    /// The packed row made from `tag` in `buf` (NULL if it has no
    /// bytes), and its digest.
    fn fill(&mut self, tag: u32) -> (*const u8, u64) {
        let digest = fill_row(&mut self.buf, self.sizes, tag);
        let p = if self.buf.is_empty() {
            null()
        } else {
            self.buf.as_ptr()
        };
        (p, digest)
    }

    fn set(&mut self, key: u64, tag: u32) {
        let (p, digest) = self.fill(tag);
        // SAFETY: an initialized set; a packed row.
        let rc = unsafe { slotmap_sparse_set(&mut self.sp, null(), key, p.cast()) };
        assert_eq!(rc, OK);
        self.model.insert(key as u32, (key, digest));
    }

    fn op(&mut self, input: &mut Input, n: u32) {
        // SAFETY (every call): an initialized set.
        unsafe {
            match input.byte() % 16 {
                0..=8 if self.model.len() >= BIG => {}
                0..=6 => {
                    let slot = match input.byte() {
                        x if x < 200 => x as u32 % 64,
                        x => (x as u32) << 24 | input.u32() >> 8,
                    };
                    let version = (input.byte() as u64 % 8) * 2 + 1;
                    self.set(version << 32 | slot as u64, n);
                }
                7 | 8 => {
                    for i in 0..input.byte() as u32 % 32 {
                        self.set((1 << 32) | ((n * 64 + i) as u64 % 4096), n + i);
                    }
                }
                9..=11 if !self.model.is_empty() => {
                    let i = input.byte() as usize % self.model.len();
                    let (&slot, &(k, _)) = self.model.iter().nth(i).unwrap();
                    assert_eq!(slotmap_sparse_erase(&mut self.sp, k), OK);
                    self.model.remove(&slot);
                }
                // Clears and frees are rarer, for larger states.
                12 if input.byte() < 64 => {
                    assert_eq!(slotmap_sparse_clear(&mut self.sp), OK);
                    self.model.clear();
                }
                13 if input.byte() < 64 => {
                    slotmap_sparse_free(&mut self.sp);
                    self.model.clear();
                }
                _ if !self.sizes.is_empty()
                    && sort_within(&mut self.sorted, slotmap_sparse_length(&self.sp)) =>
                {
                    let rc = slotmap_sparse_sort(&mut self.sp, Some(less_first), null_mut());
                    assert_eq!(rc, OK);
                }
                _ => {}
            }
        }
    }
}

/// Entries or rows past which the structured mode adds none (a batch
/// may pass it by up to 31). Larger structures take no other path
/// through the library, only longer loops (no table reaches the largest
/// size, 1024 slots, either way; a set's pages follow its keys, not its
/// count), and every input's checks cost in proportion to its size.
const BIG: usize = 128;

/// Rows the structured mode sorts per input, past which a sort call is
/// skipped (on both structures, where two are compared). A sort makes
/// O(n log n) comparator calls through the C ABI, by far the costliest
/// operation of a build; a sort of any size up to this still runs, and
/// more sorts of the same rows reach no other state (a permutation of
/// the rows, the scratch released).
const SORTED: usize = 2 * BIG;

/// Whether a sort of `rows` rows fits in what is left of `SORTED`; if it
/// does, it is counted.
fn sort_within(sorted: &mut usize, rows: u32) -> bool {
    let total = *sorted + rows as usize;
    if total > SORTED {
        return false;
    }
    *sorted = total;
    true
}

/// Mutations of a saved snapshot, before the envelope is repaired.
fn mutate(b: &mut Vec<u8>, input: &mut Input, kind: u32, with_codec: bool) {
    let pos = |input: &mut Input| (input.byte() as usize) << 8 | input.byte() as usize;
    match input.byte() % 10 {
        0 => {
            let at = pos(input) % b.len();
            b[at] ^= 1 << (input.byte() % 8);
        }
        1 => {
            let at = pos(input) % b.len();
            b[at] = input.byte();
        }
        2 => {
            let at = (pos(input) % b.len()) & !3;
            let v = match input.byte() % 6 {
                0 => 0,
                1 => 1,
                2 => u32::MAX,
                3 => u32::MAX - 1,
                4 => 0x8000_0000,
                _ => input.u32(),
            };
            if at + 4 <= b.len() {
                b[at..at + 4].copy_from_slice(&v.to_le_bytes());
            }
        }
        3 => {
            let at = (pos(input) % b.len()) & !7;
            let v = match input.byte() % 4 {
                0 => u64::MAX,
                1 => 1 << 32,
                2 => b.len() as u64,
                _ => input.u64(),
            };
            if at + 8 <= b.len() {
                b[at..at + 8].copy_from_slice(&v.to_le_bytes());
            }
        }
        4 => {
            let at = pos(input) % b.len();
            b.truncate(at);
        }
        5 => {
            let at = pos(input) % (b.len() + 1);
            let n = input.byte() as usize % 17 + 1;
            let fill = input.bytes(n);
            b.splice(at..at, fill);
        }
        6 => {
            let at = pos(input) % b.len();
            let n = (input.byte() as usize % 17 + 1).min(b.len() - at);
            b.drain(at..at + n);
        }
        7 => {
            // A section between two others: ancillary, unknown critical,
            // another kind's, or a copy of one of this kind's.
            let (s, _) = frames(b);
            let mut starts: Vec<usize> = vec![32];
            let mut at = 32;
            for (_, whole, _) in &s {
                at += whole.len();
                starts.push(at);
            }
            let where_ = starts[input.byte() as usize % starts.len()];
            let pick = input.byte();
            let tag: [u8; 4] = match pick % 5 {
                0 => *b"note",
                1 => *b"Zzzz",
                2 => *[b"MAPE", b"SLTS", b"SPSK"][pick as usize / 5 % 3],
                3 => [
                    b'a' + input.byte() % 26,
                    input.byte(),
                    input.byte(),
                    input.byte(),
                ],
                _ => s
                    .get(pick as usize / 5 % s.len().max(1))
                    .map_or(*b"note", |x| x.0),
            };
            let n = input.byte() as usize % 40;
            let payload = input.bytes(n);
            let mut sec = tag.to_vec();
            sec.extend_from_slice(&[0; 4]);
            sec.extend_from_slice(&(payload.len() as u64).to_le_bytes());
            sec.extend_from_slice(&payload);
            sec.resize(sec.len().div_ceil(16) * 16, 0);
            b.splice(where_..where_, sec);
        }
        8 if kind == KIND_MAP => {
            // The records in another order (any order loads), or one
            // record twice (with the count raised to match).
            let (fs, tiled) = frames(b);
            if !tiled || fs.len() != 2 || fs[0].2.len() < 8 {
                return;
            }
            let (maph, mape) = (fs[0].2.to_vec(), fs[1].2.to_vec());
            let Some(mut recs) = try_records(&mape, with_codec) else {
                return;
            };
            let count = recs.len();
            match input.byte() % 3 {
                0 => recs.reverse(),
                1 if count > 0 => {
                    let r = input.byte() as usize % count;
                    recs.rotate_left(r)
                }
                _ if count > 0 => {
                    let r = recs[input.byte() as usize % count];
                    recs.push(r);
                }
                _ => {}
            }
            let mut mape = vec![];
            for (k, v) in &recs {
                mape.extend_from_slice(&(k.len() as u32).to_le_bytes());
                mape.extend_from_slice(k);
                if with_codec {
                    mape.extend_from_slice(&(v.len() as u32).to_le_bytes());
                }
                mape.extend_from_slice(v);
            }
            let mut out = b[..32].to_vec();
            let mut maph = maph;
            maph[..8].copy_from_slice(&(recs.len() as u64).to_le_bytes());
            for (tag, payload) in [(*b"MAPH", &maph), (*b"MAPE", &mape)] {
                out.extend_from_slice(&tag);
                out.extend_from_slice(&[0; 4]);
                out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
                out.extend_from_slice(payload);
                out.resize(out.len().div_ceil(16) * 16, 0);
            }
            out.extend_from_slice(&[0; 8]);
            *b = out;
        }
        _ => {
            // A header field: minor, kind, features, notes.
            let (at, v) = match input.byte() % 4 {
                0 => (10, input.byte() as u32 % 3),
                1 => (12, input.byte() as u32 % 5),
                2 => (24, 1 << (input.byte() % 32)),
                _ => (28, input.byte() as u32 % 8),
            };
            if at == 10 {
                b[10..12].copy_from_slice(&(v as u16).to_le_bytes());
            } else {
                b[at..at + 4].copy_from_slice(&v.to_le_bytes());
            }
        }
    }
    if b.len() < 40 {
        b.resize(40, 0);
    }
}

/// The structured mode: build, save, mutate, repair, load.
fn structured(kind: u8, opts: Options, input: &mut Input) {
    match kind {
        0 | 1 => structured_map(kind == 1, opts, input),
        2 => structured_slotmap(opts, input),
        _ => structured_set(opts, input),
    }
}

/// How many operations build the structure, and how many mutations
/// follow the save (0: the load must succeed).
fn counts(input: &mut Input) -> (usize, usize) {
    let ops = input.byte() as usize % 64;
    let m = input.byte() as usize % 6;
    (ops, m)
}

/// The saved bytes, mutated `m` times and repaired; and whether they are
/// still the save's.
fn mutated(saved: &[u8], m: usize, input: &mut Input, kind: u32, codec: bool) -> (Vec<u8>, bool) {
    let mut b = saved.to_vec();
    for _ in 0..m {
        mutate(&mut b, input, kind, codec);
        repair(&mut b);
    }
    let same = b == saved;
    (b, same)
}

fn structured_map(with_codec: bool, opts: Options, input: &mut Input) {
    let (ops, m) = counts(input);
    let mut w = MapBuild {
        m: new_map(false),
        codec: with_codec,
        model: Model::default(),
    };
    for n in 0..ops {
        w.op(input, n as u64);
    }
    check_map(&w.m);
    assert_eq!(map_digests(&w.m, with_codec), model_digests(&w.model));
    let saved = save_map(&w.m, with_codec);
    assert_eq!(save_map(&w.m, with_codec), saved, "two saves differ");
    let (b, same) = mutated(&saved, m, input, KIND_MAP, with_codec);
    let refused = with_codec && w.model.values().any(|v| v.starts_with(&REFUSED));
    let mut d = new_map(opts.own);
    let before = info_of(&d);
    let c = codec();
    let cp: *const slate_value_codec_s = if with_codec { &c } else { null() };
    begin_load();
    // SAFETY: an initialized map; `b` has its length.
    let rc = load_with(opts.fail, bad_checksum(&b), || unsafe {
        slate_load(&mut d, b.as_ptr().cast(), b.len(), cp)
    });
    check_made(rc, &d, with_codec);
    if same && rc != ALLOC {
        assert_eq!(
            rc,
            if refused { REJECT } else { OK },
            "an unchanged save loads"
        );
    }
    if rc != OK {
        assert_eq!(info_of(&d), before, "a failed load changed the map");
        // SAFETY: initialized maps.
        unsafe {
            slate_free(&mut d);
            slate_free(&mut w.m);
        }
        return;
    }
    let model = verify_map(&d, &b, with_codec);
    if same {
        // The same entries, and the same answers to the same calls.
        assert_eq!(
            model_digests(&model),
            model_digests(&w.model),
            "loaded entries"
        );
        for n in 0..4u64 {
            let k = map_key(input);
            assert_eq!(map_get(&d, &k).is_some(), map_get(&w.m, &k).is_some());
            let v = w.value(input, 1000 + n);
            // SAFETY: initialized maps.
            unsafe {
                let rd = slate_set_bytes(&mut d, k.as_ptr().cast(), k.len() as u32, v.0);
                let rw = slate_set_bytes(&mut w.m, k.as_ptr().cast(), k.len() as u32, v.0);
                assert_eq!((rd, rw), (OK, OK));
                let k = map_key(input);
                let rd = slate_delete_bytes(&mut d, k.as_ptr().cast(), k.len() as u32);
                let rw = slate_delete_bytes(&mut w.m, k.as_ptr().cast(), k.len() as u32);
                assert_eq!(rd, rw, "delete");
            }
        }
        assert_eq!(map_digests(&d, with_codec), map_digests(&w.m, with_codec));
        check_map(&d);
        // SAFETY: an initialized map.
        unsafe { slate_free(&mut d) };
    } else {
        calls_map(d, with_codec, model, input);
    }
    // SAFETY: an initialized map.
    unsafe { slate_free(&mut w.m) };
}

fn structured_slotmap(opts: Options, input: &mut Input) {
    let (ops, m) = counts(input);
    let sizes = LAYOUTS[opts.layout as usize % LAYOUTS.len()];
    let mut w = SlotBuild {
        sm: new_slotmap(sizes, false).unwrap(),
        sizes,
        live: BTreeMap::new(),
        stale: Vec::new(),
        sorted: 0,
        buf: Vec::new(),
    };
    let high = input.byte();
    if high.is_multiple_of(4) {
        w.start_high(high / 4);
    }
    for n in 0..ops {
        w.op(input, n as u32);
    }
    check_slotmap(&w.sm);
    let rows: BTreeMap<u64, u64> = slotmap_rows(&w.sm, sizes).into_iter().collect();
    assert_eq!(rows, w.live, "built rows");
    let saved = save_slotmap(&w.sm);
    assert_eq!(save_slotmap(&w.sm), saved, "two saves differ");
    let (b, same) = mutated(&saved, m, input, KIND_SLOTMAP, false);
    let mut d = new_slotmap(sizes, opts.own).unwrap();
    // A limit below the rows: `SLATE_ERROR_FULL`.
    let limit = match input.byte() {
        x if x < 16 => Some(x as u32 * 8),
        _ => None,
    };
    if let Some(l) = limit {
        // SAFETY: an initialized slotmap.
        assert_eq!(unsafe { slotmap_limit(&mut d, l) }, OK);
    }
    let before = save_slotmap(&d);
    // SAFETY: an initialized slotmap; `b` has its length.
    let rc = load_with(opts.fail, bad_checksum(&b), || unsafe {
        slotmap_load(&mut d, b.as_ptr().cast(), b.len())
    });
    if same && rc != ALLOC {
        let over = limit.is_some_and(|l| (w.live.len() as u32) > l);
        assert_eq!(rc, if over { FULL } else { OK }, "an unchanged save loads");
    }
    if rc != OK {
        assert_eq!(
            save_slotmap(&d),
            before,
            "a failed load changed the slotmap"
        );
        // SAFETY: initialized slotmaps.
        unsafe {
            slotmap_free(&mut d);
            slotmap_free(&mut w.sm);
        }
        return;
    }
    let (live, stale) = verify_slotmap(&d, &b, sizes);
    if same {
        assert_eq!(live, w.live, "loaded rows");
        // The same future: every call answers as on the original, and
        // both then save the same bytes.
        // SAFETY (every call): initialized slotmaps.
        unsafe {
            assert_eq!(slotmap_limit(&mut d, u32::MAX), OK);
            for k in w.live.keys().chain(&w.stale) {
                assert_eq!(slotmap_contains(&d, *k), slotmap_contains(&w.sm, *k));
            }
            for step in 0..8u32 {
                match input.byte() % 6 {
                    0..=2 => {
                        let digest = fill_row(&mut w.buf, sizes, step);
                        let (mut kd, mut kw) = (0, 0);
                        let rd = slotmap_insert(&mut d, w.buf.as_ptr().cast(), &mut kd);
                        let rw = slotmap_insert(&mut w.sm, w.buf.as_ptr().cast(), &mut kw);
                        assert_eq!((rd, kd), (rw, kw), "inserts differ");
                        if rw == OK {
                            assert!(!w.stale.contains(&kw), "reissued {kw:#x}");
                            w.live.insert(kw, digest);
                        }
                    }
                    3 | 4 if !w.live.is_empty() => {
                        let i = input.byte() as usize % w.live.len();
                        let k = *w.live.keys().nth(i).unwrap();
                        assert_eq!(slotmap_erase(&mut d, k), OK);
                        assert_eq!(slotmap_erase(&mut w.sm, k), OK);
                        w.live.remove(&k);
                        w.stale.push(k);
                    }
                    _ => {
                        slotmap_free(&mut d);
                        slotmap_free(&mut w.sm);
                        w.all_stale();
                    }
                }
            }
            assert_eq!(save_slotmap(&d), save_slotmap(&w.sm), "futures differ");
            slotmap_free(&mut d);
            slotmap_free(&mut w.sm);
        }
        return;
    }
    calls_slotmap(d, sizes, live, stale, input);
    // SAFETY: an initialized slotmap.
    unsafe { slotmap_free(&mut w.sm) };
}

fn structured_set(opts: Options, input: &mut Input) {
    let (ops, m) = counts(input);
    let sizes = SET_LAYOUTS[opts.layout as usize % SET_LAYOUTS.len()];
    let mut w = SetBuild {
        sp: new_set(sizes, false).unwrap(),
        sizes,
        model: BTreeMap::new(),
        sorted: 0,
        buf: Vec::new(),
    };
    for n in 0..ops {
        w.op(input, n as u32);
    }
    check_set(&w.sp);
    let rows: BTreeMap<u32, (u64, u64)> = set_rows(&w.sp, sizes)
        .into_iter()
        .map(|(k, r)| (k as u32, (k, r)))
        .collect();
    assert_eq!(rows, w.model, "built rows");
    let saved = save_set(&w.sp);
    assert_eq!(save_set(&w.sp), saved, "two saves differ");
    let (b, same) = mutated(&saved, m, input, KIND_SPARSE, false);
    let mut d = new_set(sizes, opts.own).unwrap();
    let before = save_set(&d);
    // SAFETY: an initialized set; `b` has its length.
    let rc = load_with(opts.fail, bad_checksum(&b), || unsafe {
        slotmap_sparse_load(&mut d, b.as_ptr().cast(), b.len())
    });
    if same && rc != ALLOC {
        assert_eq!(rc, OK, "an unchanged save loads");
    }
    if rc != OK {
        assert_eq!(save_set(&d), before, "a failed load changed the set");
        // SAFETY: initialized sets.
        unsafe {
            slotmap_sparse_free(&mut d);
            slotmap_sparse_free(&mut w.sp);
        }
        return;
    }
    let model = verify_set(&d, &b, sizes);
    if same {
        assert_eq!(model, w.model, "loaded rows");
        // SAFETY (every call): initialized sets.
        unsafe {
            for n in 0..6u32 {
                match input.byte() % 3 {
                    0 => {
                        let key = (input.byte() as u64 | 1) << 32 | input.byte() as u64;
                        let (p, _) = w.fill(n);
                        let rd = slotmap_sparse_set(&mut d, null(), key, p.cast());
                        let rw = slotmap_sparse_set(&mut w.sp, null(), key, p.cast());
                        assert_eq!(rd, rw, "set");
                    }
                    1 => {
                        let key = (input.byte() as u64 | 1) << 32 | input.byte() as u64;
                        let rd = slotmap_sparse_erase(&mut d, key);
                        let rw = slotmap_sparse_erase(&mut w.sp, key);
                        assert_eq!(rd, rw, "erase");
                    }
                    _ => {
                        let rows = slotmap_sparse_length(&d);
                        if !sizes.is_empty() && sort_within(&mut w.sorted, rows) {
                            let rd = slotmap_sparse_sort(&mut d, Some(less_first), null_mut());
                            let rw = slotmap_sparse_sort(&mut w.sp, Some(less_first), null_mut());
                            assert_eq!((rd, rw), (OK, OK));
                        }
                    }
                }
            }
            assert_eq!(save_set(&d), save_set(&w.sp), "futures differ");
            slotmap_sparse_free(&mut d);
            slotmap_sparse_free(&mut w.sp);
        }
        return;
    }
    calls_set(d, sizes, model, input);
    // SAFETY: an initialized set.
    unsafe { slotmap_sparse_free(&mut w.sp) };
}

/// `SNAPSHOT_FUZZ_MODE` (0 raw, 1 repaired, 2 structured) runs every
/// input in one mode, so that each mode's executions can be counted.
fn forced_mode() -> Option<u8> {
    static MODE: std::sync::OnceLock<Option<u8>> = std::sync::OnceLock::new();
    *MODE.get_or_init(|| {
        let m = std::env::var("SNAPSHOT_FUZZ_MODE").ok()?;
        Some(m.parse::<u8>().expect("SNAPSHOT_FUZZ_MODE: 0, 1 or 2") % 3)
    })
}

fuzz_target!(|data: &[u8]| {
    failing::install();
    let live_blocks = failing::LIVE.load(Ordering::Relaxed);
    let mut input = Input::new(data);
    let first = input.byte();
    let opts = Options::new(input.byte());
    match forced_mode().unwrap_or(first % 3) {
        0 => raw(data.get(2..).unwrap_or(&[]), opts),
        1 => {
            let mut b = data.get(2..).unwrap_or(&[]).to_vec();
            repair(&mut b);
            raw(&b, opts)
        }
        _ => structured(first / 3 % 4, opts, &mut input),
    }
    ARENA.with(|a| {
        let mut a = a.borrow_mut();
        a.values.clear();
        a.mark = 0;
    });
    assert_eq!(
        failing::LIVE.load(Ordering::Relaxed),
        live_blocks,
        "memory leaked"
    );
});
