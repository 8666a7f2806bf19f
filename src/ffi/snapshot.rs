//! The C ABI of snapshots (SPEC §6c) for maps, slotmaps and sparse sets, over
//! [`crate::snapshot`]: the shims check and convert their arguments only.
//!
//! A save is a walk (SPEC §3c): it calls `write` from a plain frame, with
//! no guard around it; what it runs between the calls (hashing, copying
//! small fields) cannot panic in practice. A slotmap or set load calls
//! no callback and runs under `guard`; a map load runs under `guard` too,
//! calling the codec's `decode` and `discard` from inside it.

use core::ffi::{c_char, c_int, c_void};
use core::ptr;

use crate::map::Map;
use crate::slotmap::SlotMap;
use crate::snapshot::info::info as read_info;
use crate::snapshot::map::Codec;
use crate::snapshot::writer::Sink;
use crate::snapshot::{map as snap_map, slotmap as snap_sm, sparse as snap_sp};
use crate::sparse::Sparse;
use crate::Error;

use super::map::slate_s;
use super::slotmap::slotmap_s;
use super::sparse::slotmap_sparse_s;
use super::{guard, read, write};

/// Receives a snapshot's bytes in order, in pieces of at least one byte
/// (valid during the call only); returns 0, or non-zero to stop the save
/// (which then returns that value).
pub type slate_write_f = Option<
    unsafe extern "C" fn(context: *mut c_void, bytes: *const c_void, length: usize) -> c_int,
>;

/// How a map's values are saved and loaded when they are not integers
/// (SPEC §6c). `encode(context, value, buffer, capacity, &length)` sets
/// `*length` to the bytes the value needs (`< 2^32`) and writes them into
/// `buffer` only when they fit in `capacity` (else the library grows its
/// buffer and calls again for the same value, as `snprintf`); returns 0 or
/// non-zero to stop the save. `decode(context, bytes, length, &value)`
/// makes a value from exactly those bytes (valid during the call only, not
/// aligned); returns 0 or non-zero to reject them. `discard(context,
/// value)` undoes one successful `decode` when the load fails later; NULL
/// when values own nothing.
#[repr(C)]
pub struct slate_value_codec_s {
    pub encode: Option<
        unsafe extern "C" fn(
            context: *mut c_void,
            value: *mut c_void,
            buffer: *mut c_void,
            capacity: u32,
            length: *mut u32,
        ) -> c_int,
    >,
    pub decode: Option<
        unsafe extern "C" fn(
            context: *mut c_void,
            bytes: *const c_void,
            length: u32,
            value: *mut *mut c_void,
        ) -> c_int,
    >,
    pub discard: Option<unsafe extern "C" fn(context: *mut c_void, value: *mut c_void)>,
    pub context: *mut c_void,
}

/// A C codec, as the snapshot code calls it. Only built when the needed
/// functions are there (`encode` to save, `decode` to load).
struct CCodec<'a>(&'a slate_value_codec_s);

impl Codec for CCodec<'_> {
    fn encode(
        &mut self,
        value: *mut c_void,
        buffer: *mut u8,
        capacity: u32,
        length: &mut u32,
    ) -> i32 {
        match self.0.encode {
            // SAFETY: the caller of the save vouches for the codec.
            Some(f) => unsafe { f(self.0.context, value, buffer.cast(), capacity, length) },
            None => Error::Invalid as i32,
        }
    }

    fn decode(&mut self, bytes: &[u8], value: &mut *mut c_void) -> i32 {
        match self.0.decode {
            // SAFETY: the caller of the load vouches for the codec; the
            // bytes are a slice of the input.
            Some(f) => unsafe {
                f(
                    self.0.context,
                    bytes.as_ptr().cast(),
                    bytes.len() as u32,
                    value,
                )
            },
            None => Error::Invalid as i32,
        }
    }

    fn discard(&mut self, value: *mut c_void) {
        if let Some(f) = self.0.discard {
            // SAFETY: as for `decode`; `value` came from it.
            unsafe { f(self.0.context, value) }
        }
    }
}

/// The codec argument: NULL (integers), or one with `encode` (a save)
/// or `decode` (a load); `Err` for one without.
unsafe fn codec_of<'a>(
    codec: *const slate_value_codec_s,
    load: bool,
) -> Result<Option<CCodec<'a>>, Error> {
    match unsafe { codec.as_ref() } {
        None => Ok(None),
        Some(c) if (load && c.decode.is_some()) || (!load && c.encode.is_some()) => {
            Ok(Some(CCodec(c)))
        }
        Some(_) => Err(Error::Invalid),
    }
}

/// A memory buffer that `slate_buffer_write` appends to: `bytes` has
/// `capacity` bytes, of which `length` are written.
#[repr(C)]
pub struct slate_buffer_s {
    pub bytes: *mut c_void,
    pub capacity: usize,
    pub length: usize,
}

/// What `slate_snapshot_info` reads of a snapshot.
#[repr(C)]
pub struct slate_snapshot_info_s {
    /// Bytes of this snapshot (others may follow it).
    pub length: u64,
    /// Map entries, slotmap rows, set keys.
    pub count: u64,
    /// SLATE_SNAPSHOT_MAP, _SLOTMAP or _SPARSE.
    pub kind: u32,
    pub format_major: u32,
    pub format_minor: u32,
    /// SLATE_SNAPSHOT_BIG_ENDIAN | SLATE_SNAPSHOT_POINTERS_32: the writer's.
    pub notes: u32,
    /// Map: SLATE_SNAPSHOT_VALUES_*; else 0.
    pub values: u32,
    /// Slotmap: 1..16; sparse set: 0 (membership) .. 16; map: 0.
    pub columns: u32,
    /// Column sizes, `columns` of them.
    pub sizes: [u32; 16],
    /// Slotmap: slots in its index; else 0.
    pub slots: u32,
}

/// Runs `$save(&mut sink)`, the sink calling `write(context, ..)`:
/// `SLATE_ERROR_INVALID` for a NULL `write`, else the save's result. A
/// macro, so that the sink's type stays concrete and every call between
/// the export and `write` is a plain one (no dynamic call that could
/// unwind: `make symbols`).
///
/// Safety, at the call: `write` is a valid callback for `context`.
macro_rules! save_with {
    ($write:expr, $context:expr, |$s:ident| $save:expr) => {{
        let (write, context): (slate_write_f, *mut c_void) = ($write, $context);
        match write {
            None => Error::Invalid as c_int,
            // `slate_buffer_write` itself: the writer copies into the
            // buffer as `slate_buffer_write` would (`BufferSink`).
            Some(f) if f as *const () == slate_buffer_write as *const () => {
                let mut sink = BufferSink(context);
                let $s = &mut sink;
                match $save {
                    Ok(()) => 0,
                    Err(rc) => rc,
                }
            }
            Some(f) => {
                // The caller's guarantee for `write` and `context`; the
                // macro runs inside the export's `unsafe` block.
                let mut sink = move |p: *const u8, n: usize| f(context, p.cast(), n);
                let $s = &mut sink;
                match $save {
                    Ok(()) => 0,
                    Err(rc) => rc,
                }
            }
        }
    }};
}

/// A save whose `write` is `slate_buffer_write`, to the `slate_buffer_s`
/// at its context: a piece that fits is copied into the buffer by the
/// writer as it hashes it (in one pass over the piece), and `length`
/// advanced, as `slate_buffer_write` does; any other piece goes to
/// `slate_buffer_write`, which refuses it as it would.
struct BufferSink(*mut c_void);

impl Sink for BufferSink {
    fn write(&mut self, p: *const u8, len: usize) -> i32 {
        // SAFETY: the save's caller vouches for `write` with this context.
        unsafe { slate_buffer_write(self.0, p.cast(), len) }
    }

    fn room(&mut self, len: usize) -> Option<*mut u8> {
        // SAFETY: as for `write`: NULL or a buffer whose `bytes` has
        // `capacity` writable bytes.
        let b = unsafe { self.0.cast::<slate_buffer_s>().as_mut()? };
        let fits = !b.bytes.is_null() && b.length <= b.capacity && len <= b.capacity - b.length;
        // SAFETY: `length + len <= capacity`: inside the buffer.
        (fits && len > 0).then(|| unsafe { b.bytes.cast::<u8>().add(b.length) })
    }

    fn wrote(&mut self, len: usize) {
        // SAFETY: as for `room`, which found room for `len` more bytes.
        if let Some(b) = unsafe { self.0.cast::<slate_buffer_s>().as_mut() } {
            b.length += len;
        }
    }
}

/// The bytes `bytes, length` as a slice: NULL only with `length` 0.
unsafe fn input<'a>(bytes: *const c_void, length: usize) -> Result<&'a [u8], Error> {
    if bytes.is_null() {
        return if length == 0 {
            Ok(&[])
        } else {
            Err(Error::Invalid)
        };
    }
    Ok(unsafe { core::slice::from_raw_parts(bytes.cast(), length) })
}

/// Writes a one-line message into `message` (NUL-terminated, cut to
/// `capacity` bytes).
unsafe fn report(text: &str, message: *mut c_char, capacity: u32) {
    if message.is_null() || capacity == 0 {
        return;
    }
    let n = text.len().min(capacity as usize - 1);
    unsafe {
        ptr::copy_nonoverlapping(text.as_ptr(), message.cast::<u8>(), n);
        *message.add(n) = 0;
    }
}

/// Writes the map's snapshot (SPEC §6c) through `write(context, ..)`:
/// every entry, in iteration order, its key's bytes (integer keys as
/// their 10-byte encodings) and its value: with a NULL `codec` the value
/// itself as an integer (right for counts, indices, handles and slotmap
/// keys; a pointer saved so means nothing in another process), else the
/// bytes `codec->encode` makes. Never the seed nor the tables. A save
/// with a codec encodes each value into a 4 KiB buffer on its stack; only
/// when a record (the key's and the value's bytes, and 8) is longer does
/// it allocate one scratch buffer through the map's allocator (saves of
/// one map on several threads then call it concurrently). It may call
/// `encode` more than once for a value. Returns `SLATE_OK`,
/// `write`'s or `encode`'s non-zero return, `SLATE_ERROR_ALLOC`, or
/// `SLATE_ERROR_INVALID` for a NULL argument, a codec without `encode`,
/// or when `write` or `encode` changed the map (what was written is then
/// no snapshot).
#[no_mangle]
pub unsafe extern "C" fn slate_save(
    map: *const slate_s,
    codec: *const slate_value_codec_s,
    write: slate_write_f,
    context: *mut c_void,
) -> c_int {
    if map.is_null() {
        return Error::Invalid as c_int;
    }
    let mut c = match unsafe { codec_of(codec, false) } {
        Ok(c) => c,
        Err(e) => return e as c_int,
    };
    // SAFETY: the caller's guarantee; the save reads the map through the
    // pointer and stops when `write` or `encode` changed it.
    unsafe {
        save_with!(write, context, |s| snap_map::save(
            map.cast::<Map>(),
            c.as_mut(),
            s
        ))
    }
}

/// Sets `*size` to the exact number of bytes `slate_save` writes with
/// this `codec`. O(n): with a codec, asks `encode` every value's length
/// (capacity 0, NULL buffer). Returns `SLATE_OK`, the codec's non-zero
/// return, or `SLATE_ERROR_INVALID` for a NULL map or `size`, a codec
/// without `encode`, or when `encode` changed the map.
#[no_mangle]
pub unsafe extern "C" fn slate_save_size(
    map: *const slate_s,
    codec: *const slate_value_codec_s,
    size: *mut u64,
) -> c_int {
    if map.is_null() || size.is_null() {
        return Error::Invalid as c_int;
    }
    let mut c = match unsafe { codec_of(codec, false) } {
        Ok(c) => c,
        Err(e) => return e as c_int,
    };
    // SAFETY: the caller's guarantee; the walk stops when `encode`
    // changed the map.
    match unsafe { snap_map::save_size(map.cast::<Map>(), c.as_mut()) } {
        Ok(n) => {
            unsafe { *size = n };
            0
        }
        Err(rc) => rc,
    }
}

/// Loads a map snapshot from exactly `length` bytes (any alignment;
/// NULL only with `length` 0) into `map`, which must be initialized and
/// hold no memory (fresh, after `slate_free`, or after a
/// `slate_compact` that left it empty). The tables are rebuilt with
/// `map`'s seed (its pinned one, if pinned) and allocator. `codec` must
/// match how the snapshot was saved (NULL for integer values, else a
/// codec with `decode`). Checks everything (SPEC §6c); on any error
/// `map` is unchanged and every value `decode` made has gone to
/// `discard` once. Returns `SLATE_OK`, `SLATE_ERROR_INVALID`
/// (arguments, destination), `SLATE_ERROR_CORRUPT`,
/// `SLATE_ERROR_UNSUPPORTED` (a newer format, another kind, the other
/// value encoding, an integer value this platform's pointers cannot
/// hold), `SLATE_ERROR_FULL`, `SLATE_ERROR_ALLOC`, or `decode`'s
/// non-zero return.
#[no_mangle]
pub unsafe extern "C" fn slate_load(
    map: *mut slate_s,
    bytes: *const c_void,
    length: usize,
    codec: *const slate_value_codec_s,
) -> c_int {
    let mut rc = 0;
    let guarded = guard(|| {
        let (m, b) = unsafe { (write(map)?, input(bytes, length)?) };
        let mut c = unsafe { codec_of(codec, true)? };
        if let Err(e) = snap_map::load(m, b, c.as_mut().map(|c| c as &mut dyn Codec)) {
            rc = e;
        }
        Ok(())
    });
    if guarded != 0 {
        guarded
    } else {
        rc
    }
}

/// Writes the slotmap's snapshot (SPEC §6c) through `write(context, ..)`:
/// every live row, every slot's generation, the free list and the version
/// state, so that every key means after a load what it meant here.
/// Allocates nothing. Returns `SLATE_OK`, `write`'s non-zero return, or
/// `SLATE_ERROR_INVALID` for a NULL argument or when `write` changed the
/// slotmap (what was written is then no snapshot).
#[no_mangle]
pub unsafe extern "C" fn slotmap_save(
    sm: *const slotmap_s,
    write: slate_write_f,
    context: *mut c_void,
) -> c_int {
    if sm.is_null() {
        return Error::Invalid as c_int;
    }
    // SAFETY: the caller's guarantee; the save reads the slotmap through
    // the pointer and stops when `write` changed it.
    unsafe { save_with!(write, context, |s| snap_sm::save(sm.cast::<SlotMap>(), s)) }
}

/// The exact number of bytes `slotmap_save` writes; 0 for NULL. O(1).
#[no_mangle]
pub unsafe extern "C" fn slotmap_save_size(sm: *const slotmap_s) -> u64 {
    unsafe { read(sm) }.map_or(0, snap_sm::save_size)
}

/// Loads a slotmap snapshot from exactly `length` bytes (any alignment;
/// NULL only with `length` 0) into `sm`, which must be initialized with
/// the snapshot's columns and never have issued a key. Checks
/// everything (SPEC §6c); on any error `sm` is unchanged. Returns
/// `SLATE_OK`, `SLATE_ERROR_INVALID` (arguments, destination),
/// `SLATE_ERROR_CORRUPT`, `SLATE_ERROR_UNSUPPORTED` (a newer format,
/// another kind or layout), `SLATE_ERROR_FULL` (the limit) or
/// `SLATE_ERROR_ALLOC`.
#[no_mangle]
pub unsafe extern "C" fn slotmap_load(
    sm: *mut slotmap_s,
    bytes: *const c_void,
    length: usize,
) -> c_int {
    guard(|| {
        let (m, b) = unsafe { (write(sm)?, input(bytes, length)?) };
        snap_sm::load(m, b)
    })
}

/// Runs the slotmap's invariant checker: rows against slots, the free
/// list, retired slots and the version state. On failure writes a
/// one-line description into `message` (NUL-terminated, cut to
/// `message_capacity` bytes; may be NULL when `message_capacity` is 0).
/// Allocates nothing. Returns `SLATE_OK`, or `SLATE_ERROR_INVALID` for a
/// broken invariant or a NULL slotmap.
#[no_mangle]
pub unsafe extern "C" fn slotmap_check(
    sm: *const slotmap_s,
    message: *mut c_char,
    message_capacity: u32,
) -> c_int {
    guard(|| {
        let m = unsafe { read(sm)? };
        m.check().map_err(|text| {
            unsafe { report(text, message, message_capacity) };
            Error::Invalid
        })
    })
}

/// Writes the set's snapshot (its keys in dense order and its rows)
/// through `write(context, ..)`; as `slotmap_save`.
#[no_mangle]
pub unsafe extern "C" fn slotmap_sparse_save(
    sp: *const slotmap_sparse_s,
    write: slate_write_f,
    context: *mut c_void,
) -> c_int {
    if sp.is_null() {
        return Error::Invalid as c_int;
    }
    // SAFETY: as in `slotmap_save`.
    unsafe { save_with!(write, context, |s| snap_sp::save(sp.cast::<Sparse>(), s)) }
}

/// The exact number of bytes `slotmap_sparse_save` writes; 0 for NULL.
#[no_mangle]
pub unsafe extern "C" fn slotmap_sparse_save_size(sp: *const slotmap_sparse_s) -> u64 {
    unsafe { read(sp) }.map_or(0, snap_sp::save_size)
}

/// Loads a set snapshot into `sp`, which must be initialized with the
/// snapshot's columns and hold no memory (fresh, or after free); as
/// `slotmap_load`.
#[no_mangle]
pub unsafe extern "C" fn slotmap_sparse_load(
    sp: *mut slotmap_sparse_s,
    bytes: *const c_void,
    length: usize,
) -> c_int {
    guard(|| {
        let (s, b) = unsafe { (write(sp)?, input(bytes, length)?) };
        snap_sp::load(s, b)
    })
}

/// Runs the set's invariant checker (every row's key finds its row, no
/// other index entry); as `slotmap_check`.
#[no_mangle]
pub unsafe extern "C" fn slotmap_sparse_check(
    sp: *const slotmap_sparse_s,
    message: *mut c_char,
    message_capacity: u32,
) -> c_int {
    guard(|| {
        let s = unsafe { read(sp)? };
        s.check().map_err(|text| {
            unsafe { report(text, message, message_capacity) };
            Error::Invalid
        })
    })
}

/// A ready-made `slate_write_f` whose context is a `slate_buffer_s`:
/// appends the piece at `bytes + length` and advances `length`;
/// `SLATE_ERROR_FULL`, writing nothing, when it would pass `capacity`;
/// `SLATE_ERROR_INVALID` for a NULL buffer. The buffer's `bytes` must have
/// `capacity` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn slate_buffer_write(
    buffer: *mut c_void,
    bytes: *const c_void,
    length: usize,
) -> c_int {
    // SAFETY: `buffer` is NULL or a `slate_buffer_s`, as this function asks.
    let Some(b) = (unsafe { buffer.cast::<slate_buffer_s>().as_mut() }) else {
        return Error::Invalid as c_int;
    };
    if length == 0 {
        return 0;
    }
    if bytes.is_null()
        || b.bytes.is_null()
        || b.length > b.capacity
        || length > b.capacity - b.length
    {
        return if bytes.is_null() || b.bytes.is_null() {
            Error::Invalid as c_int
        } else {
            Error::Full as c_int
        };
    }
    // SAFETY: `b.bytes` has `b.capacity` bytes, and the piece fits after `length`.
    unsafe {
        ptr::copy_nonoverlapping(
            bytes.cast::<u8>(),
            b.bytes.cast::<u8>().add(b.length),
            length,
        )
    };
    b.length += length;
    0
}

/// Reads the envelope and header section of the snapshot that starts at
/// `bytes` (NULL only with `length` 0; `length` may run past it:
/// several snapshots in one buffer are walked with `info->length`),
/// checks the envelope and the checksum, and fills `info`. Does not
/// check the body: `SLATE_OK` here does not promise that a load
/// succeeds. Returns `SLATE_OK`, or the load's codes for those checks
/// (`info` left as it was). Allocates nothing.
#[no_mangle]
pub unsafe extern "C" fn slate_snapshot_info(
    bytes: *const c_void,
    length: usize,
    info: *mut slate_snapshot_info_s,
) -> c_int {
    guard(|| {
        let out = unsafe { info.as_mut() }.ok_or(Error::Invalid)?;
        let i = read_info(unsafe { input(bytes, length)? })?;
        *out = slate_snapshot_info_s {
            length: i.length,
            count: i.count,
            kind: i.kind,
            format_major: i.format_major,
            format_minor: i.format_minor,
            notes: i.notes,
            values: i.values,
            columns: i.columns,
            sizes: i.sizes,
            slots: i.slots,
        };
        Ok(())
    })
}
