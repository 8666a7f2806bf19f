//! slate: Go 1.24's Swiss-table map, behind a C ABI.
//!
//! This is the design walk-through: what holds, and why. Each section
//! names the module that implements it. The user's manual is
//! `README.md`; measurements are in `BENCHMARKS.md`.
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
//!   (see [`table`]). Its **kind** ([`layout::Kind`]) is its slot layout:
//!   general (any key, 40-byte slots) or integer (only `u64` keys, or only
//!   `i64` keys, kept as 8-byte values in 16-byte slots); the layout is a
//!   type (see [`layout`]), chosen once per operation from the kind.
//! - **probe**: the walk over a table's groups that finds a key or the
//!   slot it would take (see [`probe`]).
//! - **directory**: `1 << global_depth` table pointers indexed by the top
//!   `global_depth` bits of h1; a table of **local depth** `d` fills
//!   `1 << (global_depth - d)` neighbouring entries (see [`directory`]).
//! - **seed**: a per-map hash seed, drawn from one OS entropy read per
//!   process stretched by a keyed permutation (see [`seed`]).
//!
//! # Hashing
//!
//! A key's hash is XXH3-64 of its bytes under the map's seed (see
//! [`hash`]). The contract allows XXH64 or XXH3-64; XXH3-64 is the faster
//! of the two at every key length the benchmarks try, and no user can see
//! the difference: hash values were never specified.
//!
//! An integer key's 10-byte encoding `[0x00, tag, v0 .. v7]` is never
//! built to be hashed. XXH3's path for inputs of 9 to 16 bytes reads the
//! first and the last 8 bytes, which for this encoding are
//! `tag << 8 | v << 16` and `v`, so the hash is computed from the tag and
//! the value directly (a test checks that it equals XXH3 of the encoding;
//! the encoding is in `key/int.rs`).
//!
//! # Seeds
//!
//! `seed(n)` is SipHash-2-4 of a process-wide counter under a 128-bit key
//! from one OS entropy read: a pseudo-random function, so the seeds one
//! can see (`slate_info` reports them) tell nothing about any other, and
//! a seed costs no system call. Slotmap generations come from a second
//! stream with its own key, so slotmap keys reveal no map seed. A map takes
//! a fresh seed whenever it becomes empty (a delete of its last entry,
//! `slate_clear`). A seed is never 0: 0 marks a zero-filled `slate_s`,
//! which draws its seed on whichever path first gives it tables (an insert
//! or `slate_reserve`), so no map hashes with seed 0. See [`seed`].
//!
//! # Keys and slot layouts
//!
//! Every key is a byte string; integer keys are their 10-byte encoding, so
//! the four keyspaces (strings, bytes, `i64`, `u64`) never meet by
//! accident. A general slot keeps 32 bytes of key repr and the value
//! pointer (40 bytes, 320 a group). Keys of up to 28 bytes live in the
//! repr (its first word is the length and the first 4 bytes), so names,
//! ids, short paths and every integer key need no allocation, and
//! comparing one reads nothing but the slot. A longer key is copied once
//! into memory from the map's allocator; the repr keeps its length and
//! first 4 bytes beside the pointer, so most mismatches never touch the
//! copy. See [`key`] (the stored key), `key/needle.rs` (the lookup
//! needle) and `key/int.rs` (the integer encoding).
//!
//! A table whose keys are all `u64` (or all `i64`) keeps each key as its
//! 8-byte value beside the value pointer: 16-byte slots, 128 bytes a
//! group, so a hit touches fewer cache lines, the map takes less memory
//! and a key compares in one word. The tag is the table's. A table takes
//! the kind of the first key its map holds and keeps it through growth and
//! splits. A key of another kind is absent from an integer table by
//! construction; inserting it first rebuilds that one table at its size in
//! the general layout (at most 1024 entries move, as in any rebuild). An
//! emptied table takes the layout of its next key, in place when its
//! memory allows. `slate_reserve` on an empty map cannot know the keys, so
//! it sizes general tables, and each turns integer in place when its first
//! integer key arrives. `slate_compact` picks each layout from the keys
//! the map holds. The map keeps the kind that all its tables have, when
//! they have one, and whether it is past the caches, in one byte
//! (`layout::Uniform`; unknown while it has no tables): a lookup compares
//! it with its key's once, and then reads no table's kind, needs no test
//! for an empty map and none for the prefetch. Growth keeps a table's kind; a
//! table that changes kind has the directory read up to its first entry
//! of another kind. A walk shows a key of an integer table as its 10 bytes,
//! from a buffer that lives for the callback's call. See [`layout`] and
//! [`table`].
//!
//! # Lookup
//!
//! Hash the key, take the table from the directory, probe groups from
//! `h1 & (groups - 1)` with triangular steps (+1, +2, +3, ...), which visit
//! every group once. In each group, the SWAR match of h2 against the
//! control word gives the candidate slots (one false candidate in 128,
//! rejected by comparing the key; in an integer table each candidate is
//! compared before it is cleared from the set, in a general table after);
//! a group with an empty slot ends the probe: the key is absent.
//!
//! The path of `slate_get_u64` reads top-down in three files: the C shim
//! (`ffi/map.rs`: the map pointer checked, the key built, and the closure
//! that stores the value and makes the return code), the map's lookup
//! (`map/mod.rs`: `Map::look` checks the map's uniform byte, hashes the
//! key and reads the directory entry, `look_in` takes the key's layout),
//! and the probe (`probe.rs`: `Typed::get`). There is one text of the
//! probe: `Typed::search`, one group's step (found, absent, or go on),
//! which the probe loop (`Typed::probe_from`) runs for
//! inserts, deletes, takes, batches and string lookups, and which a
//! single integer-key lookup (and set or get-or-insert) runs inline for
//! the first group only. The constants `PREFETCH` (request the slots with
//! the control word) and `PEEL` (first group inline, the rest out of line)
//! specialise it where the machine code must differ. A lookup hands its
//! result to the caller's closure, and every path that leaves the inlined
//! code (a probe past the first group, a map whose tables are not all of
//! the key's layout, a map past the caches, an empty map) calls the closure
//! itself, so that it is a tail call and the common path keeps few values
//! in registers.
//!
//! A table stores its control words as one dense array, its slots after
//! them. A probe reads control words only until a fingerprint matches, so
//! every miss, and a hit up to its match, touches 8 bytes a group rather
//! than a group's whole stretch of slots; a table's control words (1 KiB
//! at 1024 slots) stay in the caches while its slots do not.
//!
//! A lookup never copies its key: it builds the repr's first word (length
//! and first 4 bytes) from the caller's bytes, hashes the bytes in place,
//! and compares the rest by overlapping loads from both ends rather than
//! by `memcmp`. Keys of up to 16 and of 17 to 32 bytes each have a probe
//! loop of their own with no call in it, so its state stays in registers,
//! and neither carries the other's hash paths or compares; the first word
//! of a key of 17 to 32 bytes is one load. An inline key of 17 to 28 bytes
//! compares in three 8-byte loads, its first 4 bytes having been matched
//! with the first word.
//!
//! Each directory entry carries its table's group count, group mask and
//! slot layout, so a probe starts from the entry and the cache misses on
//! the table's header and on its first control word overlap. From global
//! depth 9 (about 210,000 entries, when the slots outgrow the L2 caches)
//! lookups and deletes on x86-64 also prefetch the first 128 bytes of the
//! group's slots (all of an integer group's) while its control word is
//! still on the way, so the two misses of a hit overlap. Inserts and
//! smaller maps do not prefetch: there the extra loads cost more than they
//! hide (BENCHMARKS.md has the measurements). The uniform byte tells the
//! two apart, so the inline lookup of a map in the caches carries no test
//! for the prefetch: a larger map's lookup takes the same text with
//! `PREFETCH` out of line (`look_other`), and its integer sets, deletes
//! and takes the general paths, which prefetch as they should; those
//! lookups wait on memory, beside which the call costs little.
//!
//! # Batch lookups
//!
//! `slate_get_many_*` look many keys up in one call. The answer for each
//! key is the single lookup's; what changes is the order of the work. A
//! large map's lookup waits on its misses one after another (the
//! directory entry, the control word, the slot), and one lookup at a time
//! leaves the memory system mostly idle. A batch takes its keys a chunk at
//! a time: it hashes the whole chunk and requests each key's directory
//! entry, then reads the entries and requests each first control word,
//! then reads those and requests the slot of each first candidate, and
//! only then probes, as a single lookup does. So the misses of a chunk are
//! in flight together. The requests are prefetches, which change nothing
//! but timing. A map that fits in the caches has nothing to wait for:
//! there the batch hashes and probes key by key, which still saves a C
//! call per key. `slotmap_get_many` does the same with the sparse index's
//! slots and then the rows' elements (`map/batch.rs`,
//! `slotmap/batch.rs`). The requests are the one prefetch hint
//! ([`prefetch`]); the last stage is `get_in`, the whole probe inline
//! (`Typed::get` with `PEEL` false), in the key's usual layout without a
//! test of the entry's kind where the uniform byte names that layout.
//!
//! # Small maps
//!
//! A map that never held more than 8 entries is one bare group with no
//! directory, filled to all 8 slots. Being one group, it is never probed
//! past, so a delete there always empties its slot: no tombstones. Its
//! table's header opens with the three fields of a directory entry, so at
//! global depth 0 the table reads as a directory of one entry: lookups,
//! inserts and deletes take one path in both modes, with no branch on the
//! mode. The ninth entry turns it into a table of 16 slots. The mode is
//! an enum (`map::Mode`: empty, small, directory; a zero-filled `slate_s`
//! is empty). See [`map`].
//!
//! # Insert and deletion
//!
//! An insert of an absent key takes the first tombstone its probe passed,
//! else the empty slot that ended it, spending one unit of `growth_left`.
//! A delete empties the slot when its group still has an empty slot (no
//! probe ever passed that group) and giving back growth, else leaves a
//! tombstone. A map whose length drops to zero takes a fresh seed (unless
//! `slate_pin_seed` pinned it). `slate_take` is a delete that hands back
//! the value it found.
//!
//! Every insert takes one path (`Map::upsert`): the key is hashed once and
//! tried in place (`Map::try_set`, whose outcome, `map::Tried`, is done,
//! failed or pending); when its table has no room, cannot hold the key's
//! kind, or is empty and should take the key's layout (pending), the table
//! is changed first (`make_room`, the one place that states the layout
//! rule) and the insert is tried again. The in-place attempt allocates at most a long
//! key's copy and cannot panic, so the C layer runs only the rest under its
//! unwinding guard. The path is specialised by a type (`Upsert`): a set
//! replaces a found key's value; a get-or-insert (`slate_entry`) keeps it
//! and hands back the address of the key's value, stored as NULL for a
//! new key. One text serves both; the set's machine code does not carry
//! the entry's work.
//!
//! The map keeps its seed plus the constant that XXH3 adds to it for the
//! first word of a 9-to-16-byte input (`hash::Seed`): an integer key's
//! hash then spends no instruction on it, and the other inputs' constants
//! absorb the difference.
//!
//! # Growth
//!
//! When an insert finds `growth_left == 0`, only that table is rebuilt: in
//! place at its size when a tenth of it is tombstones (so a map under
//! insert/delete churn does not grow), doubled while below 1024 slots,
//! else split into two tables of 1024 slots by the next hash bit, as Go
//! does (doubling the directory first, a pointer copy, when the table's
//! local depth equals the global depth). A key that an integer table
//! cannot hold rebuilds that table at its size in the general layout.
//!
//! So no insert moves more than 1024 entries, and a split at most 896 (7/8
//! of 1024), whatever the map's size: there is no whole-map rehash to wait
//! for. The one piece of per-insert work that grows with the map is a
//! directory doubling, a copy of pointers, as in Go. A split of string keys
//! costs more than one of integer keys: each key's bytes are read again to
//! rehash it. Deletion returns no memory; `slate_compact` and `slate_free`
//! do.
//!
//! `slate_reserve(n)` plans tables for 768 entries each, below their limit
//! of 896, so that the uneven spread of hashes over tables rarely forces a
//! split during the fill. When `n` is not above the length, or the map is
//! already that large, it does nothing; otherwise it rebuilds the whole
//! map once (every entry moves: a pause the caller asked for). Its plan is
//! checked first: more than 2^32 tables, or more memory than the machine
//! has (Linux) or than the address space holds, is `SLATE_ERROR_FULL`
//! before anything is allocated. `slate_compact` rebuilds at the current
//! size with the same planned load; on an empty map it releases
//! everything (the map keeps its seed), and with at most 8 entries it
//! makes a small map again.
//!
//! # Iteration
//!
//! Walks distinct tables in directory order, groups in order, full slots in
//! order. The order depends on the seed, so it differs between maps and
//! runs, but a clone (which copies tables byte for byte) walks in its
//! source's order. The order is documented, so a tool can find the k-th
//! entry of a walk as the k-th full slot of the control words
//! (`cli-test` does).
//!
//! # Cursors
//!
//! `slate_iter*` walk in the same order one entry a call, without a
//! callback. A cursor (`slate_iter_s`, the caller's memory) holds a walk
//! position (directory entry, group, slot) and a stamp, and no pointer, so
//! map and cursor may move between calls. The stamp is the map's `epoch`,
//! a 64-bit count of its changes (a new key, a delete, a rebuild, `clear`,
//! `free`: one instruction on the write paths) started for each map at a
//! point of its own below 2^62, so it never wraps back to a value it held
//! and a stamp of one map does not match another. A value replace and a
//! call that changes nothing leave it. A cursor whose stamp no longer
//! matches is stale for good (`SLATE_ERROR_INVALID`). A delete through the
//! cursor bumps the epoch and stamps the cursor anew: deleting moves no
//! other entry, so its position stays good, and it visits every entry
//! once. Every call also checks the position against the map's tables
//! before reading, since a cursor's bytes are the caller's. Reading
//! cursors write nothing into the map. See `map/cursor.rs`.
//!
//! # Memory and failure
//!
//! Every byte comes from the map's [`alloc::Allocator`] (the C library's by
//! default), and every allocation is fallible: a call that cannot allocate
//! returns `SLATE_ERROR_ALLOC` and leaves the map as it was, because each
//! operation allocates everything it needs before it changes anything.
//!
//! On Linux, allocations of 4 MiB or more from the default allocator are
//! advised to use transparent huge pages on their 2 MiB-aligned interior
//! (`madvise(MADV_HUGEPAGE)`, advice only). Those are a large slotmap's
//! dense block and sparse index, where random lookups would otherwise miss
//! the TLB nearly every time; a map's tables are far smaller. Memory from
//! a user's allocator is left alone.
//!
//! # Walks and threads
//!
//! A walk (`slate_each`, `delete_if`, the slotmap's and sparse sets'
//! `each`, `erase_if`, `sort`, `join`) runs a caller's callback and keeps
//! no state outside its own stack frame: nothing in the structure,
//! nothing per thread, nothing process-wide, and a write asks nothing
//! about walks. A callback may call anything, on the walked structure
//! too. Before each callback the walk takes a stamp of the structure (its
//! epoch and length); after it, it reads the header again: unchanged (or
//! only values replaced), the walk goes on; the given entry removed and
//! nothing else, it goes on without skipping or repeating an entry; any
//! other change stops it with `SLATE_ERROR_INVALID` (see [`stamp`]). Every
//! frame between the caller and a callback is a plain frame (no
//! destructor, no `catch_unwind`), so a callback may leave by `longjmp`
//! or end its thread. A sort's scratch (its order of rows) belongs to the
//! structure, which releases it at its next sort or `free`.
//!
//! A map or slotmap is not safe for concurrent writers, but every
//! read-only call may run on several threads at once on a structure
//! nobody modifies, so no read writes into the structure, walks included.
//! Seed generation is one atomic counter and thread-safe.
//!
//! # Panics and the C boundary
//!
//! The core is written not to panic, and no unwinding ever crosses into C.
//! Entry points that allocate run their body under `catch_unwind`; should
//! a bug make one panic, the call returns `SLATE_ERROR_INVALID`. The walks
//! run their callbacks outside it (they must be plain frames), and what
//! could panic runs under it before or after a callback. The hot paths (`slate_get*` for keys of up to
//! 128 bytes, and the slotmap's `get`, `row`, `contains`, `erase`, and
//! `insert` without growth) allocate nothing, call no user code and hold
//! no panicking operation, so they skip the guard, whose closure call
//! would also keep them from inlining under cross-language LTO. That is
//! checked, not trusted: rustc gives an `extern "C"` function that could
//! unwind a landing pad that aborts, and LLVM removes it only when it
//! proves the body cannot unwind; `make symbols` fails if any export of
//! `libslate.so` keeps one, or if any frame from a walk export to its
//! callback has a landing pad at all. On WebAssembly a panic aborts. See [`ffi`].
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
//! to its row stale. A slot whose version would wrap is retired, never
//! reused, and erased slots are otherwise reused most recently freed
//! first, so the index does not grow under churn. Each slotmap starts its
//! versions at a random odd number from its own seed stream; after `free`
//! it hands out versions above (or, once the top is used up, below) every
//! one it issued, so old keys stay stale.
//!
//! An insert copies the caller's row in 4-byte pieces: a caller builds the
//! row on its stack field by field, and a wider load spanning two of those
//! stores would wait for them to reach the cache (store forwarding fails).
//! A one-column slotmap of 4, 8, 12 or 16-byte elements takes a
//! straight-line path with no calls.
//!
//! # Sparse sets
//!
//! An entity's optional parts live in sparse sets keyed by the slotmap's
//! keys (see [`sparse`]): dense rows in the slotmap's columns (its row
//! code, [`slotmap::columns`]), each row's full key after them, and an
//! index from slot index to row in pages of 1024, so a set takes memory
//! only for the slot indices it has seen. A lookup reads the index and then
//! the row's key, which must equal the key asked for: a reissued slot never
//! finds the old entity's row. A join walks the smallest of several sets
//! and tests the others (and the owner slotmap).
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
pub(crate) mod layout;
pub(crate) mod map;
pub(crate) mod prefetch;
pub(crate) mod probe;
// Proptest models: too slow for Miri, which runs the unit tests.
#[cfg(all(test, not(miri)))]
mod model_tests;
pub(crate) mod seed;
pub(crate) mod slotmap;
pub(crate) mod sparse;
pub(crate) mod stamp;
pub(crate) mod table;

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
