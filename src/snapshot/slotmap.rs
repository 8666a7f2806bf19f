//! A slotmap's snapshot (kind 2): `SLTH` (counts, free list, version
//! state, layout), `SLTS` (every slot's version and link), one `SLTC` per
//! column (rows in dense order).
//!
//! The save reads the slotmap's own arrays and streams them; it allocates
//! nothing, and its size is a formula of the counts. The load bounds every
//! count by the bytes present before it allocates, builds a candidate
//! state beside the destination (`crate::slotmap::image`), checking its
//! slots as the slotmap's checker would while it fills them, before the
//! destination takes it.

use core::mem::size_of;

use crate::slotmap::image::{rows_fit, Head};
use crate::slotmap::{SlotMap, MAX_COLUMNS, MAX_ROWS};
use crate::Error;

use super::envelope::{
    load_checked, section_size, Fields, KIND_SLOTMAP, SLTC, SLTH, SLTS, SMALLEST,
};
use super::writer::{Saved, Sink, Writer};

/// `SLTH`'s fixed fields: ten counts and the reserved word.
const HEAD_FIELDS: u64 = 11 * 4;

fn head_bytes(columns: u32) -> u64 {
    HEAD_FIELDS + 4 * columns as u64
}

/// The exact bytes `save` writes.
pub(crate) fn save_size(sm: &SlotMap) -> u64 {
    let h = sm.head();
    let mut total =
        SMALLEST as u64 + section_size(head_bytes(h.columns)) + section_size(h.slots as u64 * 8);
    for &size in sm.sizes_of() {
        total += section_size(h.len as u64 * size as u64);
    }
    total
}

/// Writes the snapshot of the slotmap at `this` through `sink`.
///
/// # Safety
/// `this` points to a live slotmap; `sink` may change it (the save then
/// stops with `Error::Invalid`).
pub(crate) unsafe fn save(this: *const SlotMap, sink: &mut (impl Sink + ?Sized)) -> Saved {
    // SAFETY: the caller's guarantee; nothing has been written yet.
    let sm = unsafe { &*this };
    let h = sm.head();
    let total = save_size(sm);
    let slots = sm.slot_pairs().as_ptr();
    let mut columns = [(core::ptr::null::<u8>(), 0usize); MAX_COLUMNS];
    for (c, col) in columns.iter_mut().enumerate().take(h.columns as usize) {
        let b = sm.column_bytes(c);
        *col = (b.as_ptr(), b.len());
    }
    // SAFETY: the caller's guarantee; the writer checks the slotmap after
    // every call to `write`, and the pointers above are used only while
    // it is unchanged.
    let mut w = unsafe { Writer::new(this, sink, KIND_SLOTMAP, total) };
    let n = head_bytes(h.columns);
    w.section(SLTH, n)?;
    for v in [h.columns, h.len, h.slots, h.free_head, h.free_len] {
        w.u32(v)?;
    }
    for v in h.versions {
        w.u32(v)?;
    }
    w.u32(0)?;
    for &size in h.sizes.iter().take(h.columns as usize) {
        w.u32(size)?;
    }
    w.pad(n)?;
    let n = h.slots as u64 * 8;
    w.section(SLTS, n)?;
    if cfg!(target_endian = "little") {
        // SAFETY: `slots` (version, link) pairs of `u32`s, in memory as
        // the format's little-endian pairs.
        unsafe { w.direct(slots.cast(), h.slots as usize * 8)? };
    } else {
        for i in 0..h.slots as usize {
            // SAFETY: `i < slots`; the slotmap is unchanged (the writer
            // stops otherwise).
            let [version, link] = unsafe { *slots.add(i) };
            w.u32(version)?;
            w.u32(link)?;
        }
    }
    w.pad(n)?;
    for &(p, len) in columns.iter().take(h.columns as usize) {
        w.section(SLTC, len as u64)?;
        // SAFETY: column `c`'s rows, while the slotmap is unchanged.
        unsafe { w.direct(p, len)? };
        w.pad(len as u64)?;
    }
    w.finish()
}

/// Loads a snapshot into `dest`, which must never have issued a key;
/// on any error `dest` is unchanged. The checksum is computed as the
/// sections are read (`envelope::load_checked`).
pub(crate) fn load(dest: &mut SlotMap, bytes: &[u8]) -> Result<(), Error> {
    if !dest.never_issued() {
        return Err(Error::Invalid);
    }
    let c = load_checked(
        bytes,
        KIND_SLOTMAP,
        |env, sum| {
            let mut sections = env.sections();
            let head = read_head(dest, sections.expect(SLTH)?)?;
            let slts = sections.expect(SLTS)?;
            if slts.len() as u64 != head.slots as u64 * 8 {
                return Err(Error::Corrupt);
            }
            // The rows must fit in what follows before a block for them
            // exists.
            let row_bytes = dest
                .sizes_of()
                .iter()
                .map(|&s| s as u64 * head.len as u64)
                .sum::<u64>();
            if row_bytes > sections.remaining() {
                return Err(Error::Corrupt);
            }
            let mut c = dest.candidate(&head)?;
            let mut fill = || -> Result<(), Error> {
                c.load_slots(slts, |piece| sum.through(piece))?;
                for col in 0..head.columns as usize {
                    let bytes = sections.expect(SLTC)?;
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
                    c.release();
                    Err(e)
                }
            }
        },
        |c| c.release(),
    )?;
    dest.adopt(c);
    Ok(())
}

/// `SLTH`, checked against itself and the destination.
fn read_head(dest: &SlotMap, payload: &[u8]) -> Result<Head, Error> {
    let mut f = Fields::new(payload);
    let columns = f.u32()?;
    if !(1..=MAX_COLUMNS as u32).contains(&columns) || payload.len() as u64 != head_bytes(columns) {
        return Err(Error::Corrupt);
    }
    let (len, slots, free_head, free_len) = (f.u32()?, f.u32()?, f.u32()?, f.u32()?);
    let mut versions = [0u32; 5];
    for v in &mut versions {
        *v = f.u32()?;
    }
    if f.u32()? != 0 {
        return Err(Error::Corrupt);
    }
    let mut sizes = [0u32; MAX_COLUMNS];
    for s in &mut sizes[..columns as usize] {
        *s = f.u32()?;
        if *s == 0 {
            return Err(Error::Corrupt);
        }
    }
    if !f.is_empty() {
        return Err(Error::Corrupt);
    }
    if &sizes[..columns as usize] != dest.sizes_of() {
        return Err(Error::Unsupported);
    }
    if len > slots || slots > MAX_ROWS {
        return Err(Error::Corrupt);
    }
    if len > dest.limit() {
        return Err(Error::Full);
    }
    let slot_bytes = (slots as usize).checked_mul(2 * size_of::<u32>());
    if !rows_fit(dest.sizes_of(), len) || slot_bytes.is_none_or(|b| b > isize::MAX as usize) {
        return Err(Error::Full);
    }
    Ok(Head {
        columns,
        sizes,
        len,
        slots,
        free_head,
        free_len,
        versions,
    })
}
