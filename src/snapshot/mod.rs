//! Snapshots: a byte image of one slotmap, one sparse set or one map,
//! written through a callback and loaded back from a buffer (SPEC §6c;
//! the byte-level format is `SNAPSHOT-FORMAT.md`).
//!
//! # What a snapshot holds
//!
//! **State, never environment.** A slotmap's snapshot holds its rows in
//! dense order, every slot (version, and row or free-list link), the free
//! list's head and length, and the version state (`Versions`: which
//! versions it may still hand out), so every key ever issued means after
//! a load what it meant at the save, and the next inserts issue the same
//! keys. A set's holds its keys in dense order and its rows; its index is
//! rebuilt. A map's holds its entries (key bytes, and values as integers
//! or a codec's bytes); its tables are rebuilt with the destination's
//! seed, so no seed is ever saved or read. Allocator, capacity, limit and column layout are the
//! destination's: the layout is declared by the destination and must
//! match the snapshot's.
//!
//! # The rules
//!
//! - **Canonical.** One state has one image (for a byte order and pointer
//!   width; a map's, up to the order of its records): reserved fields and
//!   padding are zero, a retired slot's link is `0xFFFFFFFF`, and no spare
//!   capacity, erased row or uninitialized byte is ever written. Saving
//!   twice gives the same bytes, and so does saving what a load accepted
//!   (a map: the same records).
//! - **Saving streams.** Fields go out through a small stack buffer,
//!   columns and slot arrays straight from the structure, each piece
//!   hashed just before `write` sees it (`writer::Writer`). A save
//!   allocates nothing (but a map's codec save with a record past 4 KiB,
//!   one scratch buffer) and is a walk: a change to the structure from `write` (or `encode`)
//!   stops it with `Error::Invalid`.
//! - **Loading validates everything**, on every load, in SPEC §6c's
//!   order: the envelope (`envelope::open`, `envelope::Sections`), then
//!   each section where its bytes are read. Every count is multiplied out
//!   in 64-bit arithmetic and compared with the bytes present before
//!   anything sized by it is allocated. The new state is built beside the
//!   destination, checked by the structure's own checker (so that
//!   "accepted" means "the checker passes"), and only then taken by the
//!   destination; any error frees it, and the destination is unchanged.
//! - **Never trusted.** The checksum (XXH3-64, seed 0) catches damage,
//!   not malice: every rule holds against input whose checksum is right.
//!
//! # Files
//!
//! - `envelope.rs`: header, sections, checksum, and the reader.
//! - `writer.rs`: the streaming writer.
//! - `slotmap.rs`, `sparse.rs`: each structure's sections, save and load
//!   (the structures' own sides are `crate::slotmap::image` and
//!   `crate::sparse::image`).
//! - `info.rs`: `slate_snapshot_info`'s reading.
//!
//! - `map.rs`: a map's sections, save and load (values as integers or
//!   through a codec); the map's own side is in `crate::map::lifecycle`.

pub(crate) mod envelope;
pub(crate) mod info;
pub(crate) mod map;
pub(crate) mod slotmap;
pub(crate) mod sparse;
#[cfg(test)]
mod tests;
pub(crate) mod writer;
pub(crate) mod xxh3;
