//! A sparse set's snapshot (kind 3): `SPSH` (columns, length, sizes),
//! `SPSK` (the keys in dense order), one `SPSC` per column.
//!
//! The index is never saved: a load rebuilds it from the keys, which
//! is also where it finds a key 0 or two keys of one slot index.

use crate::slotmap::columns::shape;
use crate::slotmap::{MAX_COLUMNS, MAX_ROWS};
use crate::sparse::Sparse;
use crate::Error;

use super::envelope::{
    load_checked, section_size, Fields, KIND_SPARSE, SMALLEST, SPSC, SPSH, SPSK,
};
use super::writer::{Saved, Sink, Writer};

fn head_bytes(columns: u32) -> u64 {
    8 + 4 * columns as u64
}

/// The exact bytes `save` writes.
pub(crate) fn save_size(sp: &Sparse) -> u64 {
    let sizes = sp.sizes();
    let len = sp.len() as u64;
    let mut total =
        SMALLEST as u64 + section_size(head_bytes(sizes.len() as u32)) + section_size(len * 8);
    for &size in sizes {
        total += section_size(len * size as u64);
    }
    total
}

/// Writes the snapshot of the set at `this` through `sink`.
///
/// # Safety
/// `this` points to a live set; `sink` may change it (the save then
/// stops with `Error::Invalid`).
pub(crate) unsafe fn save(this: *const Sparse, sink: &mut (impl Sink + ?Sized)) -> Saved {
    // SAFETY: the caller's guarantee; nothing has been written yet.
    let sp = unsafe { &*this };
    let sizes = sp.sizes();
    let columns = sizes.len();
    let mut fixed = [0u32; MAX_COLUMNS];
    for (f, &size) in fixed.iter_mut().zip(sizes) {
        *f = size;
    }
    let len = sp.len();
    let keys = sp.keys().as_ptr();
    let mut parts = [(core::ptr::null::<u8>(), 0usize); MAX_COLUMNS];
    for (c, part) in parts.iter_mut().enumerate().take(columns) {
        let b = sp.column_bytes(c);
        *part = (b.as_ptr(), b.len());
    }
    let total = save_size(sp);
    // SAFETY: the caller's guarantee; the writer checks the set after
    // every call to `write`, and the pointers above are used only while
    // it is unchanged.
    let mut w = unsafe { Writer::new(this, sink, KIND_SPARSE, total) };
    let n = head_bytes(columns as u32);
    w.section(SPSH, n)?;
    w.u32(columns as u32)?;
    w.u32(len)?;
    for &size in fixed.iter().take(columns) {
        w.u32(size)?;
    }
    w.pad(n)?;
    let n = len as u64 * 8;
    w.section(SPSK, n)?;
    if cfg!(target_endian = "little") {
        // SAFETY: `len` keys, in memory as the format's little-endian ones.
        unsafe { w.direct(keys.cast(), len as usize * 8)? };
    } else {
        for r in 0..len as usize {
            // SAFETY: `r < len`; the set is unchanged (else the writer
            // stopped).
            w.u64(unsafe { *keys.add(r) })?;
        }
    }
    w.pad(n)?;
    for &(p, bytes) in parts.iter().take(columns) {
        w.section(SPSC, bytes as u64)?;
        // SAFETY: the column's rows, while the set is unchanged.
        unsafe { w.direct(p, bytes)? };
        w.pad(bytes as u64)?;
    }
    w.finish()
}

/// Loads a snapshot into `dest`, which must hold no memory; on any
/// error `dest` is unchanged. The checksum is computed as the sections
/// are read (`envelope::load_checked`).
pub(crate) fn load(dest: &mut Sparse, bytes: &[u8]) -> Result<(), Error> {
    if !dest.holds_nothing() {
        return Err(Error::Invalid);
    }
    let loaded = load_checked(
        bytes,
        KIND_SPARSE,
        |env, sum| {
            let mut sections = env.sections();
            let spsh = sections.expect(SPSH)?;
            let mut f = Fields::new(spsh);
            let columns = f.u32()?;
            if columns > MAX_COLUMNS as u32 || spsh.len() as u64 != head_bytes(columns) {
                return Err(Error::Corrupt);
            }
            let len = f.u32()?;
            let mut sizes = [0u32; MAX_COLUMNS];
            for s in &mut sizes[..columns as usize] {
                *s = f.u32()?;
                if *s == 0 {
                    return Err(Error::Corrupt);
                }
            }
            if &sizes[..columns as usize] != dest.sizes() {
                return Err(Error::Unsupported);
            }
            if len > MAX_ROWS {
                return Err(Error::Corrupt);
            }
            if shape(dest.sizes(), len, 8).is_none() {
                return Err(Error::Full);
            }
            let spsk = sections.expect(SPSK)?;
            if spsk.len() as u64 != len as u64 * 8 {
                return Err(Error::Corrupt);
            }
            let row_bytes = dest
                .sizes()
                .iter()
                .map(|&s| s as u64 * len as u64)
                .sum::<u64>();
            if row_bytes > sections.remaining() {
                return Err(Error::Corrupt);
            }
            let mut c = dest.candidate();
            let mut fill = || -> Result<(), Error> {
                c.reserve(len)?;
                c.load_keys(spsk, |piece| sum.through(piece))?;
                for col in 0..columns as usize {
                    let bytes = sections.expect(SPSC)?;
                    let (to, n) = c.column_room(col);
                    if bytes.len() != n {
                        return Err(Error::Corrupt);
                    }
                    // SAFETY: room for the column's `n` bytes in the
                    // candidate's block, which is not the input.
                    unsafe { sum.copy_through(bytes, to) };
                }
                sections.finish()
            };
            match fill() {
                Ok(()) => Ok(c),
                Err(e) => {
                    c.free();
                    Err(e)
                }
            }
        },
        |mut c| c.free(),
    )?;
    dest.adopt(loaded);
    Ok(())
}
