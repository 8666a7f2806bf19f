//! slate: Go 1.24's Swiss-table map behind a C ABI, with a slotmap and
//! sparse sets beside it.
//!
//! This is the design: what holds, and why, in the order of Go's
//! `internal/runtime/maps`. Each section names the modules that implement
//! it; their own docs hold the details. The user's manual is `README.md`;
//! measurements are in `BENCHMARKS.md`.
//!
//! # Terms
//!
//! - **slot**: one entry: a key (see [`key`]) and a `void*` value.
//! - **group**: 8 slots and one 64-bit **control word**, a byte per slot:
//!   `0x80` empty, `0xFE` deleted (a **tombstone**), or `0x00..0x7F` the
//!   slot's **h2**, the low 7 bits of its key's hash (see [`group`]).
//! - **h1**: the other 57 bits of the hash. Its top bits pick the table,
//!   its low bits the first group to probe.
//! - **table**: a power of two of groups, 8 to 1024 slots, filled to at
//!   most 7/8; `growth_left` counts the slots an insert may still take.
//!   One allocation: a header, the control words as one array, then the
//!   slots (see [`table`]).
//! - **kind** ([`layout::Kind`]): a table's slot layout, general (any key)
//!   or integer (only `u64` keys, or only `i64` keys). The layout is a
//!   type (see [`layout`]), chosen once per operation from the kind.
//! - **probe**: the walk over a table's groups that finds a key or the
//!   slot it would take (see [`table::Typed`]).
//! - **directory**: `1 << global_depth` table pointers indexed by the top
//!   `global_depth` bits of h1; a table of **local depth** `d` fills
//!   `1 << (global_depth - d)` neighbouring entries (see [`directory`]).
//! - **epoch**: a structure's 64-bit count of its changes, which cursors
//!   and walks compare (see [`stamp`]).
//!
//! Every key is a byte string; integer keys are their 10-byte encoding
//! `[0x00, tag, v0 .. v7]`, so the four keyspaces (strings, bytes, `i64`,
//! `u64`) never meet by accident. A general slot is 40 bytes (320 a
//! group): a 32-byte key repr, which holds keys of up to 28 bytes in
//! place and a longer key's length, first 4 bytes and copy, then the
//! value pointer (see [`key`]).
//!
//! A table whose keys are all `u64` (or all `i64`) keeps each key as its
//! 8-byte value beside the value pointer: 16-byte slots, 128 bytes a
//! group, so a hit touches fewer cache lines, the map takes less memory
//! and a key compares in one word; the tag is the table's kind. A table
//! takes the kind of the first key its map holds and keeps it through
//! growth and splits. A key of another kind is absent from an integer
//! table by construction; inserting one first rebuilds that table at its
//! size in the general layout (at most 1024 entries move, as in any
//! rebuild). A walk shows an integer table's key as its 10 bytes.
//!
//! # Hashing
//!
//! A key's hash is XXH3-64 of its bytes under the map's seed (see
//! [`hash`]). The contract allows XXH64 or XXH3-64; XXH3-64 is the faster
//! of the two at every key length the benchmarks try, and hash values were
//! never specified. An integer key's encoding is never built to be
//! hashed: its hash is computed from the tag and the value, and a test
//! checks that it equals XXH3 of the bytes.
//!
//! Seeds are SipHash-2-4 of a process-wide counter under a key from one OS
//! entropy read (see [`seed`]): a seed costs no system call, and the seeds
//! one can see (`slate_info` reports them) tell nothing about any other.
//! A map takes a fresh seed whenever it becomes empty (a delete of its
//! last entry, `slate_clear`) unless `slate_pin_seed` pinned it. A seed is
//! never 0: 0 marks a zero-filled `slate_s`, which draws its seed when it
//! first gets tables, so no map hashes with seed 0.
//!
//! # Lookup
//!
//! Hash the key, take its directory entry, probe groups from
//! `h1 & (groups - 1)` with triangular steps (+1, +2, +3, ...), which visit
//! every group once. In each group, the SWAR match of h2 against the
//! control word gives the candidate slots (one false candidate in 128,
//! rejected by comparing the key); a group with an empty slot ends the
//! probe: the key is absent. A single lookup reads top-down in the C shim
//! (`ffi/map.rs`), the map (`Map::look`, `get_in`, [`map`]) and the table's
//! probe (`Typed::get`, [`table::Typed`]); a set, get-or-insert, delete or
//! take in the C shim, the map's writes (`map/write.rs`) and the same
//! probe. Every point operation takes `find` or `find_or_vacant` (which
//! notes the first tombstone it passes), one loop over one group step
//! (`Typed::search`), specialised only by constants: layout, `USUAL` (all
//! tables of the key's usual layout), `PREFETCH`, and `PEEL` (an integer
//! key's probe split after one group).
//!
//! With the control words apart from the slots, a probe reads control
//! words only until a fingerprint matches, so every miss, and a hit up to
//! its match, touches 8 bytes a group rather than a group's stretch of
//! slots, and a table's control words (1 KiB at 1024 slots) stay in the
//! caches while its slots do not.
//!
//! Each directory entry carries its table's groups' address, group mask
//! and kind, so a probe goes from the entry to its first control word
//! without loading the table's header: one dependent cache miss less.
//!
//! A map's first 8 entries live in one bare group with no directory (a
//! small map), filled to all 8 slots. Being one group, it is never
//! probed past, so a delete there always empties its slot: no tombstones.
//! Its table's header opens with the three fields of a directory entry
//! and its global depth is 0, so the table reads as a directory of one
//! entry: lookups, inserts and deletes find their table the same way in
//! both modes, with no branch on the mode. The ninth entry turns it into
//! a table of 16 slots.
//!
//! The map keeps in one byte (`layout::Uniform`) the kind that all its
//! tables have, when they have one, and whether it is past the caches. A
//! lookup compares it once with its key's own kind, and then reads no
//! table's kind and tests neither for an empty map nor for prefetching;
//! every other case (no tables, tables of several kinds, a key of another
//! kind, a map past the caches) takes the same probe in `look_other`. From
//! global depth 9 (about 210,000 entries, when the slots outgrow the L2
//! caches) lookups and deletes request a group's slots with its control
//! word (a [`prefetch`], on x86-64), so the two misses of a hit overlap;
//! inserts and smaller maps do not, where the extra loads cost more than
//! they hide.
//!
//! `slate_get_many_*` take many keys a chunk at a time, in stages that put
//! the chunk's cache misses in flight together (see `map/batch.rs`).
//!
//! # Insert and growth
//!
//! An insert of an absent key takes the first tombstone its probe passed,
//! else the empty slot that ended it, spending one unit of `growth_left`.
//! Sets and get-or-inserts take one path (`Map::upsert_then`): the key is
//! hashed once and tried in place; a table with no room, or that cannot
//! hold or should take the key's kind, is changed first (`make_room`,
//! where the layout rule lives) and the insert made.
//!
//! When an insert finds `growth_left == 0`, only that table is rebuilt: in
//! place at its size when a tenth of it is tombstones (so a map under
//! insert/delete churn does not grow), doubled while below 1024 slots,
//! else split into two tables of 1024 slots by the next hash bit, as Go
//! does (doubling the directory first, a copy of pointers, when the
//! table's local depth equals the global depth). So no insert moves more
//! than 1024 entries, whatever the map's size: there is no whole-map
//! rehash to wait for. `slate_reserve` and `slate_compact` rebuild the
//! whole map once, on request, to a planned shape (see `map/plan.rs`).
//!
//! Every byte comes from the structure's [`alloc::Allocator`] (the C
//! library's by default), and every allocation is fallible: an operation
//! allocates everything it needs before it changes anything, so a call
//! that cannot allocate returns `SLATE_ERROR_ALLOC` and leaves the
//! structure as it was.
//!
//! # Deletion
//!
//! A delete empties its slot when the slot's group still has an empty slot
//! (no probe ever passed that group), giving back growth; else it leaves a
//! tombstone, which a later insert of an absent key may take and a rebuild
//! drops. `slate_take` is a delete that hands back the value it found.
//! Deletion returns no memory; `slate_compact` and `slate_free` do.
//!
//! # Iteration and walks
//!
//! Iteration visits distinct tables in directory order, groups in order,
//! full slots in order. The order depends on the seed, so it differs
//! between maps and runs, but a clone (which copies tables byte for byte)
//! walks in its source's order. The order is documented, so a tool can
//! find the k-th entry of a walk as the k-th full slot of the control
//! words (`cli-test` does). A cursor (`slate_iter*`, the caller's memory)
//! holds a position and a stamp of the map's epoch, and no pointer, so map
//! and cursor may move between calls; any change not made through the
//! cursor makes it stale for good (see `map/cursor.rs`).
//!
//! A walk (`slate_each`, `delete_if`, the slotmap's and sparse sets'
//! `each`, `erase_if`, `sort`, `join`) runs a caller's callback and keeps
//! no state outside its own stack frame: nothing in the structure,
//! nothing per thread, nothing process-wide, and a write asks nothing
//! about walks. A callback may call anything, on the walked structure
//! too. After each callback the walk compares the structure's epoch and
//! length with the stamp it took before: unchanged (or only values
//! replaced), the walk goes on; the given entry removed and nothing else,
//! it goes on without skipping or repeating an entry; any other change
//! stops it with `SLATE_ERROR_INVALID` (see [`stamp`]; a sort stops at any
//! change, see `slotmap/scratch.rs`). Every frame between the caller and
//! a callback is a plain frame (no destructor, no `catch_unwind`), so a
//! callback may leave by `longjmp` or end its thread.
//!
//! No structure is safe for concurrent writers, but every read-only call
//! may run on several threads at once on a structure nobody modifies: no
//! read writes into the structure, walks and cursors included. Seed
//! generation is one atomic counter and thread-safe.
//!
//! # The slotmap
//!
//! A generational arena with dense rows (see [`slotmap`]): a sparse index
//! of slots that never move, each a version and the row of its record;
//! rows packed in columns (structure of arrays, 16-byte aligned); and a
//! reverse map from row to slot, so an erase moves the last row into the
//! hole (swap-and-pop) and repairs that row's slot in O(1). Keys are
//! `version << 32 | slot`; versions of occupied slots are odd and of
//! vacant ones even, so key 0 is never valid and an erase makes every key
//! to its row stale. A slot whose version would leave the range its
//! slotmap hands out is retired, never reused. Versions start at a random
//! odd number from a seed stream of their own, so slotmap keys reveal no
//! map seed, and after `free` a slotmap hands out only versions it never
//! issued, so old keys stay stale.
//!
//! # Sparse sets
//!
//! An entity's optional parts live in sparse sets keyed by the slotmap's
//! keys (see [`sparse`]): dense rows in the slotmap's columns (its row
//! code, [`slotmap::columns`]), each row's full key after them, and an
//! index from slot index to row in pages of 1024, so a set takes memory
//! only for the slot indices it has seen. An index entry holds its key's
//! version beside the row, so a lookup checks the key with the entry
//! alone, and a reissued slot never finds the old entity's row. A join
//! walks the smallest of several sets and tests the others (and the
//! owner slotmap).
//!
//! # Snapshots
//!
//! A snapshot is a byte image of one structure's logical state, never of
//! its memory: a slotmap's rows, slots, free list and version state; a
//! set's keys and rows (see [`snapshot`]; the format is
//! `SNAPSHOT-FORMAT.md`). A load validates every byte before the
//! destination takes anything, so any input loads into a structure its
//! checker accepts, or is refused with the destination unchanged.
//!
//! # The C boundary
//!
//! The C ABI is in [`ffi`]; `include/slate.h` is generated from it. No
//! unwinding crosses into C: what could panic runs under [`guard`], the
//! rest cannot panic, and `make symbols` checks the compiled library.

#![deny(unsafe_op_in_unsafe_fn)]
// The Rust API is the C ABI in `ffi`; every other module is the crate's
// own. These docs are the design document, read with private items
// (`make doc`), so they link to them.
#![allow(rustdoc::private_intra_doc_links)]

pub(crate) mod alloc;
pub(crate) mod directory;
mod error;
pub mod ffi;
pub(crate) mod group;
pub(crate) mod guard;
pub(crate) mod hash;
pub(crate) mod key;
pub(crate) mod layout;
pub(crate) mod map;
pub(crate) mod prefetch;
// Proptest models: too slow for Miri, which runs the unit tests.
#[cfg(all(test, not(miri)))]
mod model_tests;
pub(crate) mod seed;
pub(crate) mod slotmap;
pub(crate) mod snapshot;
pub(crate) mod sparse;
pub(crate) mod stamp;
pub(crate) mod table;

pub use error::Error;
