//! A map's snapshot (kind 1): `MAPH` (count, value encoding), `MAPE`
//! (the records: key length, key bytes, then the value as a `u64` or as
//! a codec's length and bytes), records in the map's iteration order.
//!
//! Neither the seed nor a table is ever saved: a load inserts every key
//! into a map built beside the destination, with the destination's
//! allocator and seed (its pinned one, else a fresh one), so no input
//! byte ever becomes a control byte, and no snapshot chooses the seed
//! that hashes its keys. The built map is checked by the map's checker,
//! then handed over; any error frees it, passes every value `decode`
//! made to `discard`, and leaves the destination as it was.
//!
//! A save is a walk (SPEC §3c): the writer checks the map after every
//! `write`, and the save after every `encode`, and stops with
//! `Error::Invalid` when it changed. With a codec the save encodes each
//! value straight into the writer's 4 KiB stage, behind its key; a
//! record that does not fit there even after a flush goes through one
//! scratch buffer from the map's allocator, grown when a value does not
//! fit (`encode` is then called again, as `snprintf` is).

use core::ffi::c_void;
use core::ptr;

use crate::alloc::Allocator;
use crate::guard::Guard;
use crate::layout::Kind;
use crate::map::{LoadKey, Map};
use crate::stamp::Stamp;
use crate::Error;

use super::envelope::{open, section_size, Fields, KIND_MAP, MAPE, MAPH, SMALLEST};
use super::writer::{Saved, Sink, Writer};

/// `MAPH`'s bytes: the count, the value encoding, a reserved word.
const HEAD: u64 = 16;
/// `MAPH`'s value encodings.
pub(crate) const VALUES_INTEGERS: u32 = 1;
pub(crate) const VALUES_CODEC: u32 = 2;

/// How a map's values become bytes and back (`slate_value_codec_s`).
pub(crate) trait Codec {
    /// Sets `*length` to the bytes `value` needs and writes them to
    /// `buffer` when they fit in `capacity`; 0, or non-zero to stop.
    fn encode(
        &mut self,
        value: *mut c_void,
        buffer: *mut u8,
        capacity: u32,
        length: &mut u32,
    ) -> i32;
    /// Makes a value from exactly `bytes`; 0, or non-zero to reject them.
    fn decode(&mut self, bytes: &[u8], value: &mut *mut c_void) -> i32;
    /// Undoes one successful `decode`.
    fn discard(&mut self, value: *mut c_void);
}

/// `MAPE`'s bytes: every record; with a codec, the values' lengths
/// asked of it (capacity 0, no buffer). The codec's non-zero return, or
/// `Error::Invalid` when `encode` changed the map.
///
/// # Safety
/// `this` points to a live map; `encode` may change it.
unsafe fn records_size(
    this: *const Map,
    codec: Option<&mut (impl Codec + ?Sized)>,
) -> Result<u64, i32> {
    let Some(c) = codec else {
        // A key's length and its value: 12 bytes besides the key.
        // SAFETY: the caller's guarantee; nothing is called out.
        return Ok(unsafe { (*this).key_bytes_plus(12) });
    };
    // SAFETY: the caller's guarantee.
    let stamp = Stamp::of(unsafe { &*this });
    let mut total = 0u64;
    // SAFETY: the caller's guarantee; the walk goes on only while the
    // stamp finds the map unchanged after `encode`.
    unsafe {
        Map::each_entry::<i32>(this, |_, n, v| {
            let mut len = 0u32;
            let rc = c.encode(v, ptr::null_mut(), 0, &mut len);
            if rc != 0 {
                return Err(rc);
            }
            // SAFETY: live unless `encode` changed it, which the stamp
            // tells from its header.
            if !stamp.same(&*this) {
                return Err(Error::Invalid as i32);
            }
            // A key's length and a value's length besides their bytes.
            total += 8 + n as u64 + len as u64;
            Ok(())
        })?
    };
    Ok(total)
}

/// The exact bytes `save` writes (with a codec, `encode` is asked every
/// value's length).
///
/// # Safety
/// As for `save`.
pub(crate) unsafe fn save_size(
    this: *const Map,
    codec: Option<&mut (impl Codec + ?Sized)>,
) -> Result<u64, i32> {
    // SAFETY: the caller's guarantee.
    let records = unsafe { records_size(this, codec)? };
    Ok(SMALLEST as u64 + section_size(HEAD) + section_size(records))
}

/// The save's scratch buffer, from the map's allocator.
struct Scratch {
    alloc: Allocator,
    bytes: *mut u8,
    capacity: usize,
}

impl Scratch {
    /// Room for `n` bytes at least (nothing kept: `encode` writes again).
    fn grow(&mut self, n: usize) -> Result<(), i32> {
        let want = n.max(256).max(self.capacity.saturating_mul(2));
        let p = self.alloc.alloc(want).map_err(|e| e as i32)?;
        self.release();
        self.bytes = p;
        self.capacity = want;
        Ok(())
    }

    fn release(&mut self) {
        if !self.bytes.is_null() {
            // SAFETY: allocated by `grow` from this allocator, this size.
            unsafe { self.alloc.free(self.bytes, self.capacity) };
            self.bytes = ptr::null_mut();
            self.capacity = 0;
        }
    }
}

/// Writes the snapshot of the map at `this` through `sink`, its values
/// as integers (`codec` `None`) or through `codec`.
///
/// # Safety
/// `this` points to a live map; `sink` and `encode` may change it (the
/// save then stops with `Error::Invalid`).
pub(crate) unsafe fn save(
    this: *const Map,
    mut codec: Option<&mut (impl Codec + ?Sized)>,
    sink: &mut (impl Sink + ?Sized),
) -> Saved {
    // SAFETY: the caller's guarantee; nothing has been written yet.
    let records = unsafe { records_size(this, codec.as_deref_mut())? };
    // SAFETY: as above; `records_size` stopped if the map changed.
    let (count, alloc) = unsafe { ((*this).len(), (*this).held_allocator()) };
    let total = SMALLEST as u64 + section_size(HEAD) + section_size(records);
    let values = if codec.is_some() {
        VALUES_CODEC
    } else {
        VALUES_INTEGERS
    };
    // SAFETY: the caller's guarantee; the writer checks the map after
    // every call to `write`.
    let mut w = unsafe { Writer::new(this, sink, KIND_MAP, total) };
    w.section(MAPH, HEAD)?;
    w.u64(count)?;
    w.u32(values)?;
    w.u32(0)?;
    w.section(MAPE, records)?;
    // No destructor: every frame between the export and a callback is a
    // plain frame (SPEC 3c). The buffer is released below; a callback
    // that leaves by `longjmp` leaves it allocated.
    let mut scratch = Scratch {
        alloc,
        bytes: ptr::null_mut(),
        capacity: 0,
    };
    // SAFETY: the caller's guarantee.
    let saved = unsafe { records_into(&mut w, codec, &mut scratch, this, records) };
    scratch.release();
    saved?;
    w.pad(records)?;
    w.finish()
}

/// The records of the map at `this` (`records` bytes), through `w`.
///
/// # Safety
/// As for [`save`].
unsafe fn records_into<H: crate::stamp::Header, S: Sink + ?Sized>(
    w: &mut Writer<'_, H, S>,
    codec: Option<&mut (impl Codec + ?Sized)>,
    scratch: &mut Scratch,
    this: *const Map,
    records: u64,
) -> Saved {
    let mut written = 0u64;
    // SAFETY (both walks): the caller's guarantee; every call out is
    // `write`, after which the writer looks at the map, or `encode`, after
    // which `unchanged` does, so a record ends the walk with `Err` once
    // the map changed, and reads the entry only while it is unchanged.
    match codec {
        None => unsafe {
            Map::each_entry::<i32>(this, |k, n, v| {
                w.record(k, n, v as usize as u64)?;
                written += 12 + n as u64;
                Ok(())
            })?
        },
        Some(c) => unsafe {
            Map::each_entry::<i32>(this, |k, n, v| {
                // Into the writer's stage, or, for a record too long for
                // it, through the scratch buffer.
                let staged = w.record_encoded(k, n, |buffer, capacity| {
                    let mut len = 0u32;
                    match c.encode(v, buffer, capacity, &mut len) {
                        0 => Ok(len),
                        rc => Err(rc),
                    }
                })?;
                let len = match staged {
                    Some(len) => len,
                    None => encode(c, scratch, v, w)?,
                };
                if written + 8 + n as u64 + len as u64 > records {
                    return Err(Error::Invalid as i32);
                }
                if staged.is_none() {
                    // `encode` wrote `len` bytes into the scratch buffer,
                    // which only `encode` writes.
                    w.record_apart(k, n, scratch.bytes, len)?;
                }
                written += 8 + n as u64 + len as u64;
                Ok(())
            })?
        },
    }
    if written != records {
        return Err(Error::Invalid as i32);
    }
    Ok(())
}

/// One value's bytes in the scratch buffer, growing it once when they do
/// not fit: their length.
fn encode<H: crate::stamp::Header, S: Sink + ?Sized>(
    c: &mut (impl Codec + ?Sized),
    scratch: &mut Scratch,
    v: *mut c_void,
    w: &Writer<'_, H, S>,
) -> Result<u32, i32> {
    for _ in 0..2 {
        let mut len = 0u32;
        let cap = scratch.capacity.min(u32::MAX as usize) as u32;
        let rc = c.encode(v, scratch.bytes, cap, &mut len);
        if rc != 0 {
            return Err(rc);
        }
        w.unchanged()?;
        if len <= cap {
            return Ok(len);
        }
        scratch.grow(len as usize)?;
    }
    // The value asked for more room twice: its bytes are not a function
    // of the value.
    Err(Error::Invalid as i32)
}

/// Loads a snapshot into `dest`, which must hold no memory; values as
/// integers (`codec` `None`) or through `codec`. On any error `dest` is
/// unchanged, and every value `decode` made has gone to `discard`.
/// The error: an `Error` code, or `decode`'s non-zero return.
pub(crate) fn load(
    dest: &mut Map,
    bytes: &[u8],
    mut codec: Option<&mut dyn Codec>,
) -> Result<(), i32> {
    if !dest.holds_nothing() {
        return Err(Error::Invalid as i32);
    }
    let env = open(bytes, true, Some(KIND_MAP)).map_err(|e| e as i32)?;
    let mut sections = env.sections();
    let maph = sections.expect(MAPH).map_err(|e| e as i32)?;
    let (count, values) = read_head(maph).map_err(|e| e as i32)?;
    if (values == VALUES_CODEC) != codec.is_some() {
        return Err(Error::Unsupported as i32);
    }
    let mape = sections.expect(MAPE).map_err(|e| e as i32)?;
    // Every record has at least its key length and its value (or value
    // length): bound the count before anything is sized by it.
    let least = if codec.is_some() { 8 } else { 12 };
    if count
        .checked_mul(least)
        .is_none_or(|b| b > mape.len() as u64)
    {
        return Err(Error::Corrupt as i32);
    }
    let mut built = dest.beside();
    let mut fill = || -> Result<(), i32> {
        // The tables take the first key's kind (`Map::reserve_for`).
        let mut first = Fields::new(mape);
        let kind = first
            .u32()
            .and_then(|n| first.take(n as usize))
            .map_or(Kind::Bytes, |key| LoadKey::of(key).kind());
        built.reserve_for(count, kind).map_err(|e| e as i32)?;
        if records(&mut built, mape, count, codec.as_deref_mut())? != 0 {
            return Err(Error::Corrupt as i32);
        }
        sections.finish().map_err(|e| e as i32)
    };
    match fill() {
        Ok(()) => {
            dest.adopt(built);
            Ok(())
        }
        Err(e) => {
            if let Some(c) = codec {
                built.visit(|_, v| {
                    c.discard(v);
                    0
                });
            }
            built.free();
            Err(e)
        }
    }
}

/// The map's points that might panic, in a load: run bare, since
/// `slate_load` runs the whole load under the C layer's guard.
struct Within;

impl Guard for Within {
    #[inline(never)]
    fn run(f: impl FnOnce() -> Result<(), Error>) -> Result<(), Error> {
        f()
    }
}

/// Records a load frames this far ahead of their inserts, requesting
/// each one's first control word (`Map::load_ahead`), and then `NEAR`
/// records ahead the slots it will read and write (`Map::load_near`):
/// so the cache misses of that many inserts overlap.
const AHEAD: u64 = 16;
const NEAR: u64 = 8;

/// `count` records of `mape` into `built`, values as integers (`codec`
/// `None`) or through `codec`. A leading cursor frames each record (its
/// lengths checked) and hashes its key [`AHEAD`] records before a
/// trailing one reads it again, makes its value and inserts it; a
/// framing error first inserts the records framed before it, so the
/// first rule broken, in record order, gives the code, as if each record
/// were read and inserted in turn. The rest of `mape` after the records:
/// its length.
fn records<'c>(
    built: &mut Map,
    mape: &[u8],
    count: u64,
    mut codec: Option<&mut (dyn Codec + 'c)>,
) -> Result<usize, i32> {
    let (mut lead, mut trail) = (Fields::new(mape), Fields::new(mape));
    let mut hashes = [0u64; AHEAD as usize];
    let (mut framed, mut placed) = (0u64, 0u64);
    let with_codec = codec.is_some();
    // `% AHEAD` of a `u64` below: an index below `AHEAD`.
    let at = |i: u64| (i % AHEAD) as usize;
    while framed < count {
        if framed - placed == AHEAD {
            place(built, &mut trail, hashes[at(placed)], codec.as_deref_mut())?;
            placed += 1;
        }
        let key = match frame(&mut lead, with_codec) {
            Ok(key) => key,
            Err(e) => {
                while placed < framed {
                    place(built, &mut trail, hashes[at(placed)], codec.as_deref_mut())?;
                    placed += 1;
                }
                return Err(e as i32);
            }
        };
        hashes[at(framed)] = built.load_ahead(&LoadKey::of(key));
        if framed - placed >= NEAR {
            built.load_near(hashes[at(framed - NEAR)]);
        }
        framed += 1;
    }
    while placed < framed {
        place(built, &mut trail, hashes[at(placed)], codec.as_deref_mut())?;
        placed += 1;
    }
    Ok(lead.len())
}

/// The next record's lengths checked: its key.
fn frame<'a>(f: &mut Fields<'a>, codec: bool) -> Result<&'a [u8], Error> {
    let n = f.u32()?;
    let key = f.take(n as usize)?;
    if codec {
        let len = f.u32()?;
        f.take(len as usize)?;
    } else {
        f.u64()?;
    }
    Ok(key)
}

/// The next record of `f` (framed before), its key of hash `h` (what
/// `Map::load_ahead` gave): its value made (an integer a pointer here can
/// hold, else `Unsupported`; a codec's `decode`) and the record inserted:
/// its key must be new (else `Corrupt`). A decoded value not stored goes
/// to `discard` at once (those stored are the caller's to discard).
fn place<'c>(
    built: &mut Map,
    f: &mut Fields<'_>,
    h: u64,
    codec: Option<&mut (dyn Codec + 'c)>,
) -> Result<(), i32> {
    let n = f.u32().map_err(|e| e as i32)?;
    let key = LoadKey::of(f.take(n as usize).map_err(|e| e as i32)?);
    let (value, c) = match codec {
        None => {
            let v = f.u64().map_err(|e| e as i32)?;
            if v > usize::MAX as u64 {
                return Err(Error::Unsupported as i32);
            }
            (v as usize as *mut c_void, None)
        }
        Some(c) => {
            let len = f.u32().map_err(|e| e as i32)?;
            let b = f.take(len as usize).map_err(|e| e as i32)?;
            let mut value = ptr::null_mut();
            let rc = c.decode(b, &mut value);
            if rc != 0 {
                return Err(rc);
            }
            (value, Some(c))
        }
    };
    match built.load_entry::<Within>(key, h, value) {
        Ok(true) => Ok(()),
        other => {
            if let Some(c) = c {
                c.discard(value);
            }
            Err(other.err().unwrap_or(Error::Corrupt) as i32)
        }
    }
}

/// `MAPH`: the count and the value encoding.
fn read_head(payload: &[u8]) -> Result<(u64, u32), Error> {
    let mut f = Fields::new(payload);
    let count = f.u64()?;
    let values = f.u32()?;
    let reserved = f.u32()?;
    if payload.len() as u64 != HEAD || reserved != 0 {
        return Err(Error::Corrupt);
    }
    if values != VALUES_INTEGERS && values != VALUES_CODEC {
        return Err(Error::Corrupt);
    }
    Ok((count, values))
}
