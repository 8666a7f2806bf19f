//! slate: Go 1.24's Swiss-table map, behind a C ABI.
//!
//! # Terms
//!
//! - **slot**: one entry: a key (see [`key`]) and a `void*` value.
//! - **group**: 8 slots and one 64-bit **control word**, a byte per slot
//!   (a table keeps its control words in one array, its slots in another):
//!   `0x80` empty, `0xFE` deleted (a **tombstone**), or `0x00..0x7F` the
//!   slot's **h2**, the low 7 bits of its key's hash (see [`group`]).
//! - **h1**: the other 57 bits of the hash. Its top bits pick the table,
//!   its low bits the first group to probe.
//! - **table**: a power of two of groups, 8 to 1024 slots, filled to at
//!   most 7/8; `growth_left` counts the slots an insert may still take
//!   (see [`table`]). Its **kind** is its slot layout: general (any key,
//!   40-byte slots) or integer (only `u64` keys, or only `i64` keys, kept
//!   as 8-byte values in 16-byte slots).
//! - **directory**: `1 << global_depth` table pointers indexed by the top
//!   `global_depth` bits of h1; a table of **local depth** `d` fills
//!   `1 << (global_depth - d)` neighbouring entries (see [`directory`]).
//! - **seed**: a per-map hash seed, drawn from one OS entropy read per
//!   process stretched by a keyed permutation (see [`seed`]).
//!
//! # Lookup
//!
//! Hash the key, take the table from the directory, probe groups from
//! `h1 & (groups - 1)` with triangular steps (+1, +2, +3, ...). In each
//! group, the SWAR match of h2 against the control word gives the
//! candidate slots (one false candidate in 128, rejected by comparing the
//! key); a group with an empty slot ends the probe: the key is absent.
//!
//! # Insert and deletion
//!
//! An insert of an absent key takes the first tombstone its probe passed,
//! else the empty slot that ended it, spending one unit of `growth_left`.
//! A delete empties the slot when its group still has an empty slot (no
//! probe ever passed that group) and giving back growth, else leaves a
//! tombstone. A map whose length drops to zero takes a fresh seed.
//!
//! # Growth
//!
//! A map that never held more than 8 entries is one bare group. After
//! that, when an insert finds `growth_left == 0`, only that table is
//! rebuilt: in place when a tenth of it is tombstones, doubled while below
//! 1024 slots, else split in two tables by the next hash bit (doubling the
//! directory, a pointer copy, when the table's local depth equals the
//! global depth). A key that an integer table cannot hold rebuilds that
//! table at its size in the general layout. No insert moves more than 1024
//! entries, so there is no latency spike however large the map grows. Deletion returns no memory;
//! `slate_compact` and `slate_free` do.
//!
//! # Iteration
//!
//! Walks distinct tables in directory order, groups in order, full slots in
//! order. The order depends on the seed, so it differs between maps and
//! runs, but a clone (which copies tables byte for byte) walks in its
//! source's order.
//!
//! # Memory and failure
//!
//! Every byte comes from the map's [`alloc::Allocator`] (the C library's by
//! default), and every allocation is fallible: a call that cannot allocate
//! returns `SLATE_ERROR_ALLOC` and leaves the map as it was, because each
//! operation allocates everything it needs before it changes anything.
//!
//! The C ABI is in [`ffi`]; `include/slate.h` is generated from it.

#![deny(unsafe_op_in_unsafe_fn)]
// The Rust API is the C ABI in `ffi`; every other module is the crate's
// own. These docs are the design document, read with private items
// (`make doc`), so they link to them.
#![allow(rustdoc::private_intra_doc_links)]

pub(crate) mod alloc;

pub(crate) mod directory;
pub mod ffi;
pub(crate) mod group;
pub(crate) mod hash;
pub(crate) mod key;
pub(crate) mod map;
// Proptest models: too slow for Miri, which runs the unit tests.
#[cfg(all(test, not(miri)))]
mod model_tests;
pub(crate) mod seed;
pub(crate) mod slotmap;
pub(crate) mod table;
mod walk;

/// Why a call failed; the values are the C error codes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(i32)]
pub enum Error {
    /// The key is not there.
    NotFound = 1,
    /// A NULL or bad argument, or a modification during a walk.
    Invalid = -1,
    /// The allocator returned NULL.
    Alloc = -2,
    /// A size limit would be passed.
    Full = -3,
}
