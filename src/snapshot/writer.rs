//! The streaming writer of every snapshot ([`Writer`]): the envelope's
//! header, sections and checksum (`envelope.rs`), around the pieces each
//! structure's save hands it.
//!
//! The writer hashes each piece just before it hands it to `write`, so
//! the checksum costs no second pass and no piece is read after a
//! callback could have changed the structure it came from. Small fields
//! and records are gathered in a 4 KiB stack buffer, the stage (a codec
//! encodes a map's values straight into it); large pieces (columns, slot
//! arrays, long keys and values) go out straight from where they are in
//! chunks small enough that the hash and the callback read them from
//! cache.

use core::mem::size_of;
use core::ptr;

use super::envelope::{padding, writer_notes, Tag, ALIGN, HEADER, MAGIC, MAJOR, MINOR};
use super::xxh3::Hasher;
use crate::stamp::{Header, Stamp};
use crate::Error;

/// Why a save stopped: `write`'s non-zero return, or an `Error` code.
pub(crate) type Saved = Result<(), i32>;

/// Bytes gathered before a call to `write`, and the longest piece the
/// writer hashes and hands out at once.
const STAGE: usize = 4096;
const CHUNK: usize = 16 * 1024;

/// Where a save's bytes go: a `write` function, or memory the writer
/// copies into itself.
pub(crate) trait Sink {
    /// Hands out `len` bytes at `p` (`write`'s contract): 0, or non-zero
    /// to stop the save.
    fn write(&mut self, p: *const u8, len: usize) -> i32;

    /// Where the next `len` bytes may be copied, when this sink is memory
    /// with room for them: the writer then copies them there as it hashes
    /// them, and calls `wrote`. `None`: they go to `write`.
    fn room(&mut self, _len: usize) -> Option<*mut u8> {
        None
    }

    /// The `len` bytes at what `room` gave are written.
    fn wrote(&mut self, _len: usize) {}
}

impl<F: FnMut(*const u8, usize) -> i32 + ?Sized> Sink for F {
    fn write(&mut self, p: *const u8, len: usize) -> i32 {
        self(p, len)
    }
}

/// A save in progress: hashes and hands out bytes in order, and after
/// every call to `write` makes sure the structure `H` did not change.
pub(crate) struct Writer<'w, H: Header, S: Sink + ?Sized> {
    sink: &'w mut S,
    hash: Hasher,
    stage: [u8; STAGE],
    used: usize,
    watched: *const H,
    stamp: Stamp,
}

impl<'w, H: Header, S: Sink + ?Sized> Writer<'w, H, S> {
    /// A writer for a snapshot of the structure at `watched`, whose
    /// header is written first.
    ///
    /// # Safety
    /// `watched` points to a live structure for as long as the writer is
    /// used, unless a call to `sink` changes it (which the writer notices
    /// and then stops).
    pub(crate) unsafe fn new(
        watched: *const H,
        sink: &'w mut S,
        kind: u32,
        total: u64,
    ) -> Writer<'w, H, S> {
        // SAFETY: the caller's guarantee.
        let stamp = Stamp::of(unsafe { &*watched });
        // Finding out what the processor has (the first time) runs under
        // the C layer's guard, as the hash's updates do (see `emit`).
        let mut hash = Hasher::portable();
        if crate::guard::guard(|| {
            hash = Hasher::new();
            Ok(())
        }) != 0
        {
            hash = Hasher::portable();
        }
        let mut w = Writer {
            sink,
            hash,
            stage: [0; STAGE],
            used: 0,
            watched,
            stamp,
        };
        w.stage[..8].copy_from_slice(&MAGIC);
        w.stage[8..10].copy_from_slice(&MAJOR.to_le_bytes());
        w.stage[10..12].copy_from_slice(&MINOR.to_le_bytes());
        w.stage[12..16].copy_from_slice(&kind.to_le_bytes());
        w.stage[16..24].copy_from_slice(&total.to_le_bytes());
        w.stage[24..28].copy_from_slice(&0u32.to_le_bytes());
        w.stage[28..32].copy_from_slice(&writer_notes().to_le_bytes());
        w.used = HEADER;
        w
    }

    /// Hands `len` bytes at `p` to `write`, after hashing them; then
    /// checks the structure.
    ///
    /// # Safety
    /// `p` has `len` readable bytes (until `write` is called).
    unsafe fn emit(&mut self, p: *const u8, len: usize) -> Saved {
        // SAFETY: the caller's guarantee.
        unsafe { emit(&mut self.hash, self.sink, self.watched, &self.stamp, p, len) }
    }

    fn flush(&mut self) -> Saved {
        let n = core::mem::replace(&mut self.used, 0);
        // SAFETY: the stage's first `n` bytes, borrowed apart from the
        // fields `emit` uses; the stage is not written while `write` runs.
        unsafe {
            emit(
                &mut self.hash,
                self.sink,
                self.watched,
                &self.stamp,
                self.stage.as_ptr(),
                n,
            )
        }
    }

    /// Adds small bytes (fields, padding) to the stage.
    pub(crate) fn put(&mut self, bytes: &[u8]) -> Saved {
        let (mut from, mut left) = (bytes.as_ptr(), bytes.len());
        while left > 0 {
            if self.used >= STAGE {
                self.flush()?;
            }
            let n = left.min(STAGE - self.used);
            // SAFETY: `used < STAGE`, so the stage has `n` bytes of room
            // from `used`; `from` has `left >= n` bytes of `bytes`.
            unsafe {
                ptr::copy_nonoverlapping(from, self.stage.as_mut_ptr().add(self.used), n);
                from = from.add(n);
            }
            self.used += n;
            left -= n;
        }
        Ok(())
    }

    /// A record of a length (`u32`), `len` bytes at `p` and a `u64`, in
    /// one piece of the stage when it fits there.
    ///
    /// # Safety
    /// `p` has `len` readable bytes as long as the structure is unchanged.
    #[inline]
    pub(crate) unsafe fn record(&mut self, p: *const u8, len: u32, tail: u64) -> Saved {
        let n = len as usize;
        if n > STAGE - 12 {
            self.u32(len)?;
            // SAFETY: the caller's guarantee.
            unsafe { self.direct(p, n)? };
            return self.u64(tail);
        }
        if n + 12 > STAGE - self.used {
            self.flush()?;
        }
        // SAFETY: the stage has `n + 12` bytes of room from `used`; `p`
        // is readable, as the structure is unchanged (else `flush`
        // stopped the save).
        unsafe {
            let at = self.stage.as_mut_ptr().add(self.used);
            at.cast::<[u8; 4]>().write_unaligned(len.to_le_bytes());
            copy_small(p, at.add(4), n);
            at.add(4 + n)
                .cast::<[u8; 8]>()
                .write_unaligned(tail.to_le_bytes());
        }
        self.used += n + 12;
        Ok(())
    }

    /// A record of a length (`u32`) and `n` bytes at `key`, then a
    /// length (`u32`) and `len` bytes at `value`, each piece through the
    /// stage or, when long, straight from where it is: for a record that
    /// [`Writer::record_encoded`] could not take.
    ///
    /// # Safety
    /// `key` has `n` and `value` `len` readable bytes as long as the
    /// structure is unchanged.
    pub(crate) unsafe fn record_apart(
        &mut self,
        key: *const u8,
        n: u32,
        value: *const u8,
        len: u32,
    ) -> Saved {
        self.u32(n)?;
        // SAFETY (both): the caller's guarantee (no bytes are read from a
        // pointer with none to give, which may be NULL).
        if n > 0 {
            unsafe { self.direct(key, n as usize)? };
        }
        self.u32(len)?;
        if len > 0 {
            unsafe { self.direct(value, len as usize)? };
        }
        Ok(())
    }

    /// A record of a length (`u32`) and `n` bytes at `key`, then a length
    /// (`u32`) and the bytes `encode(buffer, capacity)` writes straight
    /// into the stage (it returns their length, and writes them only when
    /// they fit): `Some` of that length once the record is in the stage;
    /// `None`, with nothing added, when it cannot fit there even after a
    /// flush. `Error::Invalid` when `encode` changed the structure.
    ///
    /// # Safety
    /// `key` has `n` readable bytes as long as the structure is unchanged.
    pub(crate) unsafe fn record_encoded(
        &mut self,
        key: *const u8,
        n: u32,
        mut encode: impl FnMut(*mut u8, u32) -> Result<u32, i32>,
    ) -> Result<Option<u32>, i32> {
        let n = n as usize;
        if n > STAGE / 2 - 8 {
            return Ok(None);
        }
        if n + 8 >= STAGE - self.used {
            self.flush()?;
        }
        loop {
            let at = self.used + 8 + n;
            let room = STAGE - at;
            // SAFETY: `at < STAGE`, so the stage has `room` bytes from `at`,
            // past the bytes it holds.
            let len = encode(unsafe { self.stage.as_mut_ptr().add(at) }, room as u32)?;
            self.unchanged()?;
            let m = len as usize;
            if m <= room {
                // SAFETY: the stage has `n + 8` bytes from `used` before
                // `at`; `key` is readable, as the structure is unchanged.
                unsafe {
                    let p = self.stage.as_mut_ptr().add(self.used);
                    p.cast::<[u8; 4]>()
                        .write_unaligned((n as u32).to_le_bytes());
                    copy_small(key, p.add(4), n);
                    p.add(4 + n)
                        .cast::<[u8; 4]>()
                        .write_unaligned(len.to_le_bytes());
                }
                self.used = at + m;
                return Ok(Some(len));
            }
            if self.used == 0 || m > STAGE - 8 - n {
                return Ok(None);
            }
            self.flush()?;
        }
    }

    pub(crate) fn u32(&mut self, v: u32) -> Saved {
        self.put(&v.to_le_bytes())
    }

    pub(crate) fn u64(&mut self, v: u64) -> Saved {
        self.put(&v.to_le_bytes())
    }

    /// A section's head: its tag, the reserved zero word, its length.
    pub(crate) fn section(&mut self, tag: Tag, len: u64) -> Saved {
        self.put(&tag)?;
        self.u32(0)?;
        self.u64(len)
    }

    /// The zero bytes after an `n`-byte payload.
    pub(crate) fn pad(&mut self, n: u64) -> Saved {
        self.put([0u8; ALIGN].get(..padding(n)).unwrap_or(&[]))
    }

    /// Hands out `len` bytes at `p` straight from the structure, in chunks.
    ///
    /// # Safety
    /// `p` has `len` readable bytes as long as the structure is unchanged.
    pub(crate) unsafe fn direct(&mut self, p: *const u8, len: usize) -> Saved {
        if len <= STAGE - self.used {
            // SAFETY: the caller's guarantee; copied before any callback.
            return self.put(unsafe { core::slice::from_raw_parts(p, len) });
        }
        self.flush()?;
        let mut at = 0usize;
        while at < len {
            let n = (len - at).min(CHUNK);
            // SAFETY: the caller's guarantee: every call to `write` so far
            // left the structure unchanged (else `emit` stopped).
            unsafe { self.emit(p.add(at), n)? };
            at += n;
        }
        Ok(())
    }

    /// `Error::Invalid` when a callback other than `write` (a codec's
    /// `encode`) changed the structure.
    pub(crate) fn unchanged(&self) -> Saved {
        // SAFETY: as in `emit`: live unless a callback changed it, which
        // the stamp tells from its header.
        if self.stamp.same(unsafe { &*self.watched }) {
            Ok(())
        } else {
            Err(Error::Invalid as i32)
        }
    }

    /// The checksum, and the last call to `write`.
    pub(crate) fn finish(mut self) -> Saved {
        self.flush()?;
        let mut sum = 0u64;
        // Under the guard, as the hash's updates are (see `emit`).
        if crate::guard::guard(|| {
            sum = self.hash.digest();
            Ok(())
        }) != 0
        {
            return Err(Error::Invalid as i32);
        }
        let sum = sum.to_le_bytes();
        // SAFETY: a local array, which `write` cannot change.
        unsafe { self.emit(sum.as_ptr(), sum.len()) }
    }
}

/// Copies `n` bytes, those of a key or a value, without a call when
/// there are at most 32 (in two overlapping pieces of a power of two).
///
/// # Safety
/// As `ptr::copy_nonoverlapping(src, dst, n)`.
#[inline(always)]
unsafe fn copy_small(src: *const u8, dst: *mut u8, n: usize) {
    /// Two `T`s, at the start and at the end of the `n` bytes, which
    /// cover them when `n` is from one to two `T`s long.
    ///
    /// # Safety
    /// As `copy_small`, with `size_of::<T>() <= n`.
    #[inline(always)]
    unsafe fn ends<T>(src: *const u8, dst: *mut u8, n: usize) {
        let k = size_of::<T>();
        // SAFETY: the caller's guarantee; both pieces lie within the `n`
        // bytes.
        unsafe {
            let (a, b) = (
                src.cast::<T>().read_unaligned(),
                src.add(n - k).cast::<T>().read_unaligned(),
            );
            dst.cast::<T>().write_unaligned(a);
            dst.add(n - k).cast::<T>().write_unaligned(b);
        }
    }
    // SAFETY (all): the caller's guarantee, each piece no longer than `n`.
    unsafe {
        match n {
            0 => {}
            1..=3 => {
                for i in 0..n {
                    *dst.add(i) = *src.add(i);
                }
            }
            4..=7 => ends::<u32>(src, dst, n),
            8..=16 => ends::<u64>(src, dst, n),
            17..=32 => ends::<[u64; 2]>(src, dst, n),
            _ => ptr::copy_nonoverlapping(src, dst, n),
        }
    }
}

/// `Writer::emit`, on the writer's fields, so that the stage can be
/// borrowed beside them.
///
/// # Safety
/// `p` has `len` readable bytes (until `write` is called); `watched` as
/// for `Writer::new`.
unsafe fn emit<H: Header, S: Sink + ?Sized>(
    hash: &mut Hasher,
    sink: &mut S,
    watched: *const H,
    stamp: &Stamp,
    p: *const u8,
    len: usize,
) -> Saved {
    if len == 0 {
        return Ok(());
    }
    // SAFETY: the caller's guarantee; nothing has run since.
    let bytes = unsafe { core::slice::from_raw_parts(p, len) };
    let room = sink.room(len);
    // The hash (and the copy into memory the sink gave) runs under the C
    // layer's guard, which is not on the stack while `write` runs: a
    // save's frames stay plain (SPEC 3c).
    if crate::guard::guard(|| {
        match room {
            // SAFETY: `room` gave room for `len` bytes, memory of the
            // sink's, not the structure's.
            Some(to) => unsafe { hash.update_copy(bytes, to) },
            None => hash.update(bytes),
        }
        Ok(())
    }) != 0
    {
        return Err(Error::Invalid as i32);
    }
    if room.is_some() {
        sink.wrote(len);
    } else {
        let rc = sink.write(p, len);
        if rc != 0 {
            return Err(rc);
        }
    }
    // SAFETY: the structure is live unless `write` changed it, which a
    // changed stamp tells; its header is read, nothing behind it.
    if !stamp.same(unsafe { &*watched }) {
        return Err(Error::Invalid as i32);
    }
    Ok(())
}
