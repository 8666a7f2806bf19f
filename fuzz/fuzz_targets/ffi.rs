//! The C API as a C program sees it: the structs as opaque blocks of the
//! header's sizes, the functions as `extern "C"` declarations that the
//! linked library (the `slate` rlib) provides. Shared by the fuzz targets.
#![allow(dead_code, non_camel_case_types)]

use core::ffi::{c_char, c_int, c_void};

extern crate slate as _;

pub const OK: c_int = 0;
pub const NOT_FOUND: c_int = 1;
pub const INVALID: c_int = -1;
pub const ALLOC: c_int = -2;
pub const FULL: c_int = -3;
pub const CORRUPT: c_int = -4;
pub const UNSUPPORTED: c_int = -5;

#[repr(C, align(8))]
pub struct slate_s(pub [u64; 8]);
#[repr(C, align(8))]
pub struct slotmap_s(pub [u64; 24]);
#[repr(C, align(8))]
#[derive(Clone, Copy)]
pub struct slate_iter_s(pub [u64; 8]);
pub type slotmap_key = u64;
#[repr(C, align(8))]
pub struct slotmap_sparse_s(pub [u64; 24]);
pub type slotmap_join_f =
    Option<unsafe extern "C" fn(slotmap_key, *const u32, *const *mut c_void, *mut c_void) -> c_int>;

#[repr(C)]
#[derive(Default, Clone, Copy, PartialEq, Eq, Debug)]
pub struct slate_info_s {
    pub length: u64,
    pub seed: u64,
    pub capacity: u64,
    pub tombstones: u64,
    pub memory: u64,
    pub global_depth: u32,
    pub tables: u32,
    pub directory: u32,
    pub small: u32,
}

pub type each_f =
    Option<unsafe extern "C" fn(*const c_char, u32, *mut c_void, *mut c_void) -> c_int>;
pub type slotmap_each_f =
    Option<unsafe extern "C" fn(slotmap_key, *mut c_void, *mut c_void) -> c_int>;
pub type less_f = Option<unsafe extern "C" fn(*const c_void, *const c_void, *mut c_void) -> c_int>;
pub type malloc_f = Option<unsafe extern "C" fn(usize) -> *mut c_void>;

#[repr(C)]
pub struct slate_allocator_s {
    pub allocate: Option<unsafe extern "C" fn(*mut c_void, usize) -> *mut c_void>,
    pub release: Option<unsafe extern "C" fn(*mut c_void, *mut c_void, usize)>,
    pub context: *mut c_void,
}
pub type calloc_f = Option<unsafe extern "C" fn(usize, usize) -> *mut c_void>;
pub type free_f = Option<unsafe extern "C" fn(*mut c_void)>;

extern "C" {
    pub fn slate(map: *mut slate_s) -> c_int;
    pub fn slate_reserve(map: *mut slate_s, n: u64) -> c_int;
    pub fn slate_set(map: *mut slate_s, key: *const c_char, value: *mut c_void) -> c_int;
    pub fn slate_get(map: *const slate_s, key: *const c_char, value: *mut *mut c_void) -> c_int;
    pub fn slate_delete(map: *mut slate_s, key: *const c_char) -> c_int;
    pub fn slate_set_bytes(
        map: *mut slate_s,
        key: *const c_void,
        len: u32,
        value: *mut c_void,
    ) -> c_int;
    pub fn slate_get_bytes(
        map: *const slate_s,
        key: *const c_void,
        len: u32,
        value: *mut *mut c_void,
    ) -> c_int;
    pub fn slate_delete_bytes(map: *mut slate_s, key: *const c_void, len: u32) -> c_int;
    pub fn slate_set_u64(map: *mut slate_s, key: u64, value: *mut c_void) -> c_int;
    pub fn slate_get_u64(map: *const slate_s, key: u64, value: *mut *mut c_void) -> c_int;
    pub fn slate_delete_u64(map: *mut slate_s, key: u64) -> c_int;
    pub fn slate_set_i64(map: *mut slate_s, key: i64, value: *mut c_void) -> c_int;
    pub fn slate_get_i64(map: *const slate_s, key: i64, value: *mut *mut c_void) -> c_int;
    pub fn slate_delete_i64(map: *mut slate_s, key: i64) -> c_int;
    pub fn slate_take(map: *mut slate_s, key: *const c_char, value: *mut *mut c_void) -> c_int;
    pub fn slate_entry(
        map: *mut slate_s,
        key: *const c_char,
        value: *mut *mut *mut c_void,
        inserted: *mut c_int,
    ) -> c_int;
    pub fn slate_entry_bytes(
        map: *mut slate_s,
        key: *const c_void,
        len: u32,
        value: *mut *mut *mut c_void,
        inserted: *mut c_int,
    ) -> c_int;
    pub fn slate_entry_u64(
        map: *mut slate_s,
        key: u64,
        value: *mut *mut *mut c_void,
        inserted: *mut c_int,
    ) -> c_int;
    pub fn slate_entry_i64(
        map: *mut slate_s,
        key: i64,
        value: *mut *mut *mut c_void,
        inserted: *mut c_int,
    ) -> c_int;
    pub fn slate_take_bytes(
        map: *mut slate_s,
        key: *const c_void,
        len: u32,
        value: *mut *mut c_void,
    ) -> c_int;
    pub fn slate_take_u64(map: *mut slate_s, key: u64, value: *mut *mut c_void) -> c_int;
    pub fn slate_take_i64(map: *mut slate_s, key: i64, value: *mut *mut c_void) -> c_int;
    pub fn slate_get_many_u64(
        map: *const slate_s,
        keys: *const u64,
        count: usize,
        values: *mut *mut c_void,
        found: *mut u8,
    ) -> c_int;
    pub fn slate_get_many_i64(
        map: *const slate_s,
        keys: *const i64,
        count: usize,
        values: *mut *mut c_void,
        found: *mut u8,
    ) -> c_int;
    pub fn slate_get_many_bytes(
        map: *const slate_s,
        keys: *const *const c_void,
        key_lengths: *const u32,
        count: usize,
        values: *mut *mut c_void,
        found: *mut u8,
    ) -> c_int;
    pub fn slate_get_many(
        map: *const slate_s,
        keys: *const *const c_char,
        count: usize,
        values: *mut *mut c_void,
        found: *mut u8,
    ) -> c_int;
    pub fn slate_each(map: *const slate_s, f: each_f, data: *mut c_void) -> c_int;
    pub fn slate_delete_if(map: *mut slate_s, f: each_f, data: *mut c_void) -> c_int;
    pub fn slate_iter(it: *mut slate_iter_s, map: *const slate_s) -> c_int;
    pub fn slate_iter_next(
        it: *mut slate_iter_s,
        map: *const slate_s,
        key: *mut *const c_char,
        key_length: *mut u32,
        value: *mut *mut c_void,
    ) -> c_int;
    pub fn slate_iter_delete(it: *mut slate_iter_s, map: *mut slate_s) -> c_int;
    pub fn slate_equal(a: *const slate_s, b: *const slate_s) -> c_int;
    pub fn slate_length(map: *const slate_s) -> u64;
    pub fn slate_clear(map: *mut slate_s) -> c_int;
    pub fn slate_compact(map: *mut slate_s) -> c_int;
    pub fn slate_clone(copy: *mut slate_s, map: *const slate_s) -> c_int;
    pub fn slate_free(map: *mut slate_s);
    pub fn slate_use_allocator(m: malloc_f, c: calloc_f, f: free_f) -> c_int;
    pub fn slate_set_allocator(map: *mut slate_s, allocator: *const slate_allocator_s) -> c_int;
    pub fn slotmap_set_allocator(sm: *mut slotmap_s, allocator: *const slate_allocator_s) -> c_int;
    pub fn slate_pin_seed(map: *mut slate_s, seed: u64) -> c_int;
    pub fn slate_key_to_u64(key: *const c_char, key_length: u32, out: *mut u64) -> c_int;
    pub fn slate_info(map: *const slate_s, info: *mut slate_info_s) -> c_int;
    pub fn slate_check(map: *const slate_s, message: *mut c_char, capacity: u32) -> c_int;

    pub fn slotmap(sm: *mut slotmap_s, element_size: u32) -> c_int;
    pub fn slotmap_columns(sm: *mut slotmap_s, sizes: *const u32, count: u32) -> c_int;
    pub fn slotmap_reserve(sm: *mut slotmap_s, n: u32) -> c_int;
    pub fn slotmap_limit(sm: *mut slotmap_s, max_rows: u32) -> c_int;
    pub fn slotmap_insert(sm: *mut slotmap_s, row: *const c_void, key: *mut slotmap_key) -> c_int;
    pub fn slotmap_get(sm: *const slotmap_s, key: slotmap_key, element: *mut *mut c_void) -> c_int;
    pub fn slotmap_get_many(
        sm: *const slotmap_s,
        keys: *const slotmap_key,
        count: usize,
        elements: *mut *mut c_void,
    ) -> c_int;
    pub fn slotmap_row(sm: *const slotmap_s, key: slotmap_key, row: *mut u32) -> c_int;
    pub fn slotmap_column(sm: *const slotmap_s, column: u32) -> *mut c_void;
    pub fn slotmap_key_at(sm: *const slotmap_s, row: u32) -> slotmap_key;
    pub fn slotmap_contains(sm: *const slotmap_s, key: slotmap_key) -> c_int;
    pub fn slotmap_erase(sm: *mut slotmap_s, key: slotmap_key) -> c_int;
    pub fn slotmap_erase_if(sm: *mut slotmap_s, f: slotmap_each_f, data: *mut c_void) -> c_int;
    pub fn slotmap_sort(sm: *mut slotmap_s, less: less_f, data: *mut c_void) -> c_int;
    pub fn slotmap_each(sm: *const slotmap_s, f: slotmap_each_f, data: *mut c_void) -> c_int;
    pub fn slotmap_length(sm: *const slotmap_s) -> u32;
    pub fn slotmap_clear(sm: *mut slotmap_s) -> c_int;
    pub fn slotmap_clone(copy: *mut slotmap_s, sm: *const slotmap_s) -> c_int;
    pub fn slotmap_free(sm: *mut slotmap_s);

    pub fn slotmap_sparse(sp: *mut slotmap_sparse_s, element_size: u32) -> c_int;
    pub fn slotmap_sparse_columns(
        sp: *mut slotmap_sparse_s,
        sizes: *const u32,
        count: u32,
    ) -> c_int;
    pub fn slotmap_sparse_set_allocator(
        sp: *mut slotmap_sparse_s,
        allocator: *const slate_allocator_s,
    ) -> c_int;
    pub fn slotmap_sparse_reserve(sp: *mut slotmap_sparse_s, n: u32) -> c_int;
    pub fn slotmap_sparse_set(
        sp: *mut slotmap_sparse_s,
        owner: *const slotmap_s,
        key: slotmap_key,
        row: *const c_void,
    ) -> c_int;
    pub fn slotmap_sparse_get(
        sp: *const slotmap_sparse_s,
        key: slotmap_key,
        element: *mut *mut c_void,
    ) -> c_int;
    pub fn slotmap_sparse_get_many(
        sp: *const slotmap_sparse_s,
        keys: *const slotmap_key,
        count: usize,
        elements: *mut *mut c_void,
        found: *mut u8,
    ) -> c_int;
    pub fn slotmap_sparse_contains(sp: *const slotmap_sparse_s, key: slotmap_key) -> c_int;
    pub fn slotmap_sparse_row(
        sp: *const slotmap_sparse_s,
        key: slotmap_key,
        row: *mut u32,
    ) -> c_int;
    pub fn slotmap_sparse_erase(sp: *mut slotmap_sparse_s, key: slotmap_key) -> c_int;
    pub fn slotmap_sparse_erase_if(
        sp: *mut slotmap_sparse_s,
        f: slotmap_each_f,
        data: *mut c_void,
    ) -> c_int;
    pub fn slotmap_sparse_prune(sp: *mut slotmap_sparse_s, owner: *const slotmap_s) -> c_int;
    pub fn slotmap_sparse_length(sp: *const slotmap_sparse_s) -> u32;
    pub fn slotmap_sparse_column(sp: *const slotmap_sparse_s, column: u32) -> *mut c_void;
    pub fn slotmap_sparse_key_at(sp: *const slotmap_sparse_s, row: u32) -> slotmap_key;
    pub fn slotmap_sparse_keys(sp: *const slotmap_sparse_s) -> *const slotmap_key;
    pub fn slotmap_sparse_each(
        sp: *const slotmap_sparse_s,
        f: slotmap_each_f,
        data: *mut c_void,
    ) -> c_int;
    pub fn slotmap_sparse_sort(sp: *mut slotmap_sparse_s, less: less_f, data: *mut c_void)
        -> c_int;
    pub fn slotmap_sparse_clear(sp: *mut slotmap_sparse_s) -> c_int;
    pub fn slotmap_sparse_clone(copy: *mut slotmap_sparse_s, sp: *const slotmap_sparse_s) -> c_int;
    pub fn slotmap_sparse_free(sp: *mut slotmap_sparse_s);
    pub fn slotmap_join(
        owner: *const slotmap_s,
        sets: *const *mut slotmap_sparse_s,
        count: u32,
        f: slotmap_join_f,
        data: *mut c_void,
    ) -> c_int;
}

/// Snapshots (SPEC §6c): the header's types.
pub type slate_write_f = Option<unsafe extern "C" fn(*mut c_void, *const c_void, usize) -> c_int>;

#[repr(C)]
pub struct slate_value_codec_s {
    pub encode:
        Option<unsafe extern "C" fn(*mut c_void, *mut c_void, *mut c_void, u32, *mut u32) -> c_int>,
    pub decode:
        Option<unsafe extern "C" fn(*mut c_void, *const c_void, u32, *mut *mut c_void) -> c_int>,
    pub discard: Option<unsafe extern "C" fn(*mut c_void, *mut c_void)>,
    pub context: *mut c_void,
}

#[repr(C)]
pub struct slate_buffer_s {
    pub bytes: *mut c_void,
    pub capacity: usize,
    pub length: usize,
}

#[repr(C)]
#[derive(Default, Clone, Copy, PartialEq, Eq, Debug)]
pub struct slate_snapshot_info_s {
    pub length: u64,
    pub count: u64,
    pub kind: u32,
    pub format_major: u32,
    pub format_minor: u32,
    pub notes: u32,
    pub values: u32,
    pub columns: u32,
    pub sizes: [u32; 16],
    pub slots: u32,
}

extern "C" {
    pub fn slate_save(
        map: *const slate_s,
        codec: *const slate_value_codec_s,
        write: slate_write_f,
        context: *mut c_void,
    ) -> c_int;
    pub fn slate_save_size(
        map: *const slate_s,
        codec: *const slate_value_codec_s,
        size: *mut u64,
    ) -> c_int;
    pub fn slate_load(
        map: *mut slate_s,
        bytes: *const c_void,
        length: usize,
        codec: *const slate_value_codec_s,
    ) -> c_int;
    pub fn slotmap_save(sm: *const slotmap_s, write: slate_write_f, context: *mut c_void) -> c_int;
    pub fn slotmap_save_size(sm: *const slotmap_s) -> u64;
    pub fn slotmap_load(sm: *mut slotmap_s, bytes: *const c_void, length: usize) -> c_int;
    pub fn slotmap_check(sm: *const slotmap_s, message: *mut c_char, capacity: u32) -> c_int;
    pub fn slotmap_sparse_save(
        sp: *const slotmap_sparse_s,
        write: slate_write_f,
        context: *mut c_void,
    ) -> c_int;
    pub fn slotmap_sparse_save_size(sp: *const slotmap_sparse_s) -> u64;
    pub fn slotmap_sparse_load(
        sp: *mut slotmap_sparse_s,
        bytes: *const c_void,
        length: usize,
    ) -> c_int;
    pub fn slotmap_sparse_check(
        sp: *const slotmap_sparse_s,
        message: *mut c_char,
        capacity: u32,
    ) -> c_int;
    pub fn slate_buffer_write(buffer: *mut c_void, bytes: *const c_void, length: usize) -> c_int;
    pub fn slate_snapshot_info(
        bytes: *const c_void,
        length: usize,
        info: *mut slate_snapshot_info_s,
    ) -> c_int;
}

/// What a callback's write did to the structure a walk walks, as SPEC
/// §3c sorts it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Effect {
    /// Nothing, or values of present keys replaced: the walk goes on.
    Same,
    /// Only the given key removed: the walk goes on.
    Removed,
    /// Anything else: the walk stops with `SLATE_ERROR_INVALID`.
    Changed,
}

impl Effect {
    /// The effect of a write that removed the keys `removed` and made
    /// `other` changes besides (new keys, moved memory), on a walk given
    /// `given`.
    pub fn of<K: PartialEq>(given: &K, removed: &[K], other: bool) -> Effect {
        match removed {
            _ if other => Effect::Changed,
            [] => Effect::Same,
            [k] if k == given => Effect::Removed,
            _ => Effect::Changed,
        }
    }

    /// The effect of two writes on one walked structure.
    pub fn and(self, other: Effect) -> Effect {
        match (self, other) {
            (Effect::Same, e) | (e, Effect::Same) => e,
            _ => Effect::Changed,
        }
    }
}

/// The walks `walk` runs (`jump.c` numbers them the same way).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(C)]
pub enum WalkKind {
    MapEach,
    MapDeleteIf,
    SlotmapEach,
    SlotmapEraseIf,
    SlotmapSort,
    SparseEach,
    SparseEraseIf,
    SparseSort,
    Join,
}

/// `jump.c`'s description of a walk to run (its `fuzz_walk_s`).
#[repr(C)]
pub struct fuzz_walk_s {
    pub kind: WalkKind,
    pub structure: *mut c_void,
    pub owner: *const slotmap_s,
    pub sets: *const *mut slotmap_sparse_s,
    pub count: u32,
    pub map: each_f,
    pub rows: slotmap_each_f,
    pub less: less_f,
    pub join: slotmap_join_f,
    pub data: *mut c_void,
    pub at: u32,
    pub visits: u32,
    pub rc: c_int,
    pub nested: c_int,
    pub nested_at: u32,
    pub nested_data: *mut c_void,
    pub nested_visits: u32,
}

extern "C" {
    /// Runs the walk; the callback call numbered `at` leaves it by
    /// `longjmp` (1), or the walk returns first (0, its code in `rc`).
    /// With `nested`, that call first runs the walk again (callback data
    /// `nested_data`), whose call numbered `nested_at` jumps out of both.
    fn fuzz_walk_and_jump(walk: *mut fuzz_walk_s) -> c_int;
}

/// How a walk ended.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Walked {
    /// It returned this code.
    Returned(c_int),
    /// Its callback call number `n` (from 0) left it by `longjmp`.
    Jumped(u32),
}

/// A walk of `structure` (for a join: of `sets`, with `owner`), with the
/// callback of its kind (`map`, `rows`, `less` or `join`) and `data`.
/// With `jump`, the walk runs from `jump.c`, whose trampoline leaves it by
/// `longjmp` at callback call number `jump` instead of calling the
/// callback; without, the walk is called directly.
pub struct Walk {
    pub kind: WalkKind,
    pub structure: *mut c_void,
    pub owner: *const slotmap_s,
    pub sets: *const *mut slotmap_sparse_s,
    pub count: u32,
    pub map: each_f,
    pub rows: slotmap_each_f,
    pub less: less_f,
    pub join: slotmap_join_f,
}

impl Walk {
    pub fn new(kind: WalkKind, structure: *mut c_void) -> Walk {
        Walk {
            kind,
            structure,
            owner: core::ptr::null(),
            sets: core::ptr::null(),
            count: 0,
            map: None,
            rows: None,
            less: None,
            join: None,
        }
    }

    /// # Safety
    /// The structures are live and of the kind's types; the callback of
    /// the kind is set and `data` is what it expects.
    pub unsafe fn run(&self, data: *mut c_void, jump: Option<u32>) -> Walked {
        let Some(at) = jump else {
            // SAFETY: the caller's guarantee.
            return Walked::Returned(unsafe {
                match self.kind {
                    WalkKind::MapEach => slate_each(self.structure.cast(), self.map, data),
                    WalkKind::MapDeleteIf => slate_delete_if(self.structure.cast(), self.map, data),
                    WalkKind::SlotmapEach => slotmap_each(self.structure.cast(), self.rows, data),
                    WalkKind::SlotmapEraseIf => {
                        slotmap_erase_if(self.structure.cast(), self.rows, data)
                    }
                    WalkKind::SlotmapSort => slotmap_sort(self.structure.cast(), self.less, data),
                    WalkKind::SparseEach => {
                        slotmap_sparse_each(self.structure.cast(), self.rows, data)
                    }
                    WalkKind::SparseEraseIf => {
                        slotmap_sparse_erase_if(self.structure.cast(), self.rows, data)
                    }
                    WalkKind::SparseSort => {
                        slotmap_sparse_sort(self.structure.cast(), self.less, data)
                    }
                    WalkKind::Join => {
                        slotmap_join(self.owner, self.sets, self.count, self.join, data)
                    }
                }
            });
        };
        // SAFETY: the caller's guarantee.
        unsafe { self.jump(data, at, None).0 }
    }

    /// The walk from `jump.c`, left at callback call number `at`; with
    /// `nested`, that call runs the walk again (its callback given the
    /// data `nested.1`) and leaves both at the inner walk's call number
    /// `nested.0` (or after the inner walk returns). Returns how the
    /// outer walk ended and the inner walk's callback calls, the jumping
    /// one included.
    ///
    /// # Safety
    /// As for `run`; the callback also expects `nested.1`.
    pub unsafe fn jump(
        &self,
        data: *mut c_void,
        at: u32,
        nested: Option<(u32, *mut c_void)>,
    ) -> (Walked, u32) {
        let (nested_at, nested_data) = nested.unwrap_or((0, core::ptr::null_mut()));
        let mut w = fuzz_walk_s {
            kind: self.kind,
            structure: self.structure,
            owner: self.owner,
            sets: self.sets,
            count: self.count,
            map: self.map,
            rows: self.rows,
            less: self.less,
            join: self.join,
            data,
            at,
            visits: 0,
            rc: 0,
            nested: nested.is_some() as c_int,
            nested_at,
            nested_data,
            nested_visits: 0,
        };
        // SAFETY: the caller's guarantee; the trampoline calls the
        // callback with `data` (the inner walk's with `nested_data`) for
        // every visit but the jumping one.
        if unsafe { fuzz_walk_and_jump(&mut w) } != 0 {
            assert_eq!(w.visits, at + 1, "jumped at another visit");
            assert!(w.nested_visits <= nested_at + 1, "the inner walk went on");
            (Walked::Jumped(at), w.nested_visits)
        } else {
            assert!(w.visits <= at, "the walk went on past its jump");
            assert_eq!(w.nested_visits, 0);
            (Walked::Returned(w.rc), 0)
        }
    }
}

/// The invariant checker's verdict, with its reason.
pub fn check(map: &slate_s) -> Result<(), String> {
    let mut message = [0u8; 256];
    // SAFETY: an initialized map; the buffer has its size.
    let rc = unsafe { slate_check(map, message.as_mut_ptr().cast(), message.len() as u32) };
    if rc == OK {
        return Ok(());
    }
    let end = message
        .iter()
        .position(|&b| b == 0)
        .unwrap_or(message.len());
    Err(String::from_utf8_lossy(&message[..end]).into_owned())
}

pub fn info(map: &slate_s) -> slate_info_s {
    let mut out = slate_info_s::default();
    // SAFETY: an initialized map; `out` is writable.
    assert_eq!(unsafe { slate_info(map, &mut out) }, OK);
    out
}

/// Bytes from the fuzzer's input, read front to back; zeros once it ends.
pub struct Input<'a> {
    data: &'a [u8],
}

impl<'a> Input<'a> {
    pub fn new(data: &'a [u8]) -> Input<'a> {
        Input { data }
    }
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
    pub fn byte(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&b, rest)) => {
                self.data = rest;
                b
            }
            None => 0,
        }
    }
    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }
    pub fn u64(&mut self) -> u64 {
        self.u32() as u64 | (self.u32() as u64) << 32
    }
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.byte()).collect()
    }
}

/// An allocator that can be told to fail: `FAIL_IN` counts allocations
/// down, and the one that brings it to zero returns NULL. Every map and
/// slotmap a target creates takes it (`install_failing_allocator`).
pub mod failing {
    use core::ffi::c_void;
    use core::sync::atomic::{AtomicU64, Ordering};

    pub static FAIL_IN: AtomicU64 = AtomicU64::new(0);
    pub static FAILED: AtomicU64 = AtomicU64::new(0);
    pub static LIVE: AtomicU64 = AtomicU64::new(0);
    /// Allocations made so far.
    pub static ALLOCS: AtomicU64 = AtomicU64::new(0);

    extern "C" {
        fn malloc(size: usize) -> *mut c_void;
        fn calloc(count: usize, size: usize) -> *mut c_void;
        fn free(p: *mut c_void);
    }

    fn fail_now() -> bool {
        let left = FAIL_IN.load(Ordering::Relaxed);
        if left == 0 {
            return false;
        }
        FAIL_IN.store(left - 1, Ordering::Relaxed);
        if left == 1 {
            FAILED.fetch_add(1, Ordering::Relaxed);
            return true;
        }
        false
    }

    pub unsafe extern "C" fn f_malloc(size: usize) -> *mut c_void {
        if fail_now() {
            return core::ptr::null_mut();
        }
        // SAFETY: the C library's allocator.
        let p = unsafe { malloc(size) };
        if !p.is_null() {
            LIVE.fetch_add(1, Ordering::Relaxed);
            ALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        p
    }
    pub unsafe extern "C" fn f_calloc(count: usize, size: usize) -> *mut c_void {
        if fail_now() {
            return core::ptr::null_mut();
        }
        // SAFETY: as above.
        let p = unsafe { calloc(count, size) };
        if !p.is_null() {
            LIVE.fetch_add(1, Ordering::Relaxed);
            ALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        p
    }
    pub unsafe extern "C" fn f_free(p: *mut c_void) {
        LIVE.fetch_sub(1, Ordering::Relaxed);
        // SAFETY: `p` came from `f_malloc` or `f_calloc`.
        unsafe { free(p) }
    }

    /// Fails one of the next `within` allocations (at least the next).
    pub fn arm(within: u64) {
        FAIL_IN.store(1 + within, Ordering::Relaxed);
    }

    /// Allocations made so far.
    pub fn allocations() -> u64 {
        ALLOCS.load(Ordering::Relaxed)
    }

    /// Failures injected so far.
    pub fn failures() -> u64 {
        FAILED.load(Ordering::Relaxed)
    }

    /// The check of `check_surfaced` for a call made inside a walk: `rc`
    /// is `SLATE_ERROR_ALLOC` exactly when an injected failure met the
    /// call (whatever happened since `failures_before`). True for ALLOC.
    pub fn failed(rc: i32, failures_before: u64) -> bool {
        assert_eq!(
            rc == super::ALLOC,
            failures() > failures_before,
            "a call from a callback: rc {rc}"
        );
        rc == super::ALLOC
    }

    /// A call's result must say whether an injected failure met it:
    /// `SLATE_ERROR_ALLOC` exactly when one did (none swallowed, none made
    /// up).
    pub fn check_surfaced(op: u8, rc: i32, failures_before: u64) {
        let failed = failures() > failures_before;
        assert_eq!(
            rc == super::ALLOC,
            failed,
            "op {op}: rc {rc}, an allocation failed: {failed}"
        );
    }

    pub fn install() {
        // SAFETY: three matching functions.
        let rc =
            unsafe { super::slate_use_allocator(Some(f_malloc), Some(f_calloc), Some(f_free)) };
        assert_eq!(rc, super::OK);
    }

    /// The context of `own`'s functions, checked on every call.
    static CONTEXT: u8 = 0;

    fn context() -> *mut c_void {
        (&raw const CONTEXT).cast_mut().cast()
    }

    /// As `f_malloc`, as a structure's own allocator: each block carries
    /// its size, which its release must pass back.
    unsafe extern "C" fn f_allocate(ctx: *mut c_void, size: usize) -> *mut c_void {
        assert_eq!(ctx, context());
        assert!(size > 0);
        // SAFETY: `f_malloc`'s contract; 16 bytes in front hold the size.
        unsafe {
            let p = f_malloc(size + 16).cast::<u8>();
            if p.is_null() {
                return p.cast();
            }
            p.cast::<usize>().write(size);
            p.add(16).cast()
        }
    }

    unsafe extern "C" fn f_release(ctx: *mut c_void, p: *mut c_void, size: usize) {
        assert_eq!(ctx, context());
        // SAFETY: `p` came from `f_allocate`, 16 bytes into its block.
        unsafe {
            let block = p.cast::<u8>().sub(16);
            assert_eq!(
                block.cast::<usize>().read(),
                size,
                "released with another size"
            );
            f_free(block.cast());
        }
    }

    /// The failing allocator as a structure's own (`slate_set_allocator`).
    pub fn own() -> super::slate_allocator_s {
        super::slate_allocator_s {
            allocate: Some(f_allocate),
            release: Some(f_release),
            context: context(),
        }
    }
}
