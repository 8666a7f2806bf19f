//! The invariant checker: recomputes everything a map keeps in counters and
//! finds every entry again, trusting nothing but the control bytes and keys.
//!
//! For each table: the capacity is a power of two between 8 and 1024 (8
//! only for the small map); every control byte is empty, deleted or a
//! fingerprint; `used` equals the full bytes counted; `growth_left` equals
//! `max_load(capacity) - used - tombstones`; a table of several groups keeps
//! an empty slot; every stored key hashes to its slot's fingerprint, to a
//! directory entry of its own table, and is found again by a lookup at that
//! exact slot. For the directory: every entry is a table whose local depth
//! is at most the global depth, which fills exactly its aligned span of
//! entries and records its first one in `index`. The tables' counts add up
//! to the map's length.
//!
//! The checker allocates nothing: its report is written into a fixed
//! buffer, so `slate_check` can run on a map under allocation-failure tests.

// The checker reports through a fixed buffer rather than a `String` so that
// it never allocates; the large error variant is the price of that.
#![allow(clippy::result_large_err)]

use core::fmt::{self, Write};

use crate::directory::{Directory, MAX_DEPTH};
use crate::group::{DELETED, EMPTY, SLOTS};
use crate::hash::{self, h2};
use crate::key::Needle;
use crate::layout::{slot_bytes, Kind, Uniform};
use crate::map::{Map, Mode};
use crate::table::{max_load, Table, MAX_CAPACITY};

/// A report of the first broken invariant, without allocation.
pub struct Message {
    buf: [u8; 200],
    len: usize,
}

impl Message {
    fn new() -> Message {
        Message {
            buf: [0; 200],
            len: 0,
        }
    }

    pub fn as_str(&self) -> &str {
        // Truncation in `write_str` keeps whole characters.
        core::str::from_utf8(&self.buf[..self.len]).unwrap_or("invariant broken")
    }
}

impl Write for Message {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for c in s.chars() {
            let mut tmp = [0u8; 4];
            let bytes = c.encode_utf8(&mut tmp).as_bytes();
            if self.len + bytes.len() > self.buf.len() {
                break;
            }
            self.buf[self.len..self.len + bytes.len()].copy_from_slice(bytes);
            self.len += bytes.len();
        }
        Ok(())
    }
}

impl fmt::Debug for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

macro_rules! fail {
    ($($arg:tt)*) => {{
        let mut m = Message::new();
        let _ = write!(m, $($arg)*);
        return Err(m);
    }};
}

impl Map {
    /// Checks every invariant; the first one broken is described.
    pub fn check(&self) -> Result<(), Message> {
        let used = match self.mode {
            Mode::Empty => {
                if !self.root.is_null() {
                    fail!("empty map holds memory");
                }
                0
            }
            Mode::Small => {
                // SAFETY: in small mode the root is the one live table.
                let t = unsafe { &*self.root.cast::<Table>() };
                if t.capacity() as usize != SLOTS {
                    fail!("small map: capacity {} is not one group", t.capacity());
                }
                // Lookups read the table as a directory of depth 0.
                if self.shift != 63 {
                    fail!("small map: shift {}", self.shift);
                }
                check_table(self, 0, t, None)?
            }
            Mode::Dir => self.check_directory()?,
        };
        // Lookups that find their key's kind in `uniform` read no table's,
        // and prefetch as it says.
        if let Some(uniform) = self.uniform.kind() {
            if self.mode == Mode::Empty {
                fail!("empty map with tables of kind {:?}", self.uniform);
            }
            for tp in self.tables() {
                // SAFETY: a live table of this map.
                let kind = unsafe { (*tp).kind() };
                if kind != uniform {
                    fail!("a table of kind {kind:?} in a map of {:?}", self.uniform);
                }
            }
            if self.uniform.is_far() != self.prefetches() {
                fail!("{:?} at depth {}", self.uniform, self.global_depth());
            }
        } else if self.uniform != Uniform::UNKNOWN {
            fail!("{:?}", self.uniform);
        }
        if self.kinds != self.uniform.far(false) {
            fail!("writes see {:?} in a map of {:?}", self.kinds, self.uniform);
        }
        if used != self.len {
            fail!("map length {} but tables hold {}", self.len, used);
        }
        Ok(())
    }

    fn check_directory(&self) -> Result<u64, Message> {
        let dir = self.dir();
        if dir.depth > MAX_DEPTH {
            fail!("global depth {} beyond {}", dir.depth, MAX_DEPTH);
        }
        if dir.array.is_null() {
            fail!("directory mode without a directory");
        }
        let (mut j, mut n, mut used) = (0usize, 0usize, 0u64);
        while j < dir.entries() {
            let e = dir.entry(j);
            if e.groups.is_null() {
                fail!("directory entry {j} is NULL");
            }
            let tp = e.table();
            // SAFETY: non-NULL entries are live tables.
            let t = unsafe { &*tp };
            if t.local_depth() > dir.depth {
                fail!(
                    "table {n}: local depth {} above global depth {}",
                    t.local_depth(),
                    dir.depth
                );
            }
            let span = dir.span(t.local_depth());
            if j % span != 0 || t.index() as usize != j {
                fail!(
                    "table {n}: index {} but first entry {j} (span {span})",
                    t.index()
                );
            }
            for k in j..j + span {
                let ek = dir.entry(k);
                if ek.groups != t.groups_ptr()
                    || ek.mask as usize != t.group_count() - 1
                    || ek.kind != t.kind()
                {
                    fail!("table {n}: directory entry {k} points elsewhere or has a stale mask or kind");
                }
            }
            if (t.capacity() as usize) < 2 * SLOTS {
                fail!("table {n}: capacity {} below two groups", t.capacity());
            }
            used += check_table(self, n, t, Some(&dir))?;
            j += span;
            n += 1;
        }
        Ok(used)
    }
}

fn check_table(map: &Map, n: usize, t: &Table, dir: Option<&Directory>) -> Result<u64, Message> {
    let capacity = t.capacity() as usize;
    if !capacity.is_power_of_two() || !(SLOTS..=MAX_CAPACITY).contains(&capacity) {
        fail!("table {n}: capacity {capacity} not a power of two in 8..=1024");
    }
    // Lookups read the header's group mask as a directory entry's.
    if t.mask() as usize != capacity / SLOTS - 1 {
        fail!("table {n}: group mask {} for {capacity} slots", t.mask());
    }
    // The slots must fit the memory: an integer-sized allocation cannot
    // hold the general layout (either integer kind fits the other's).
    if slot_bytes(t.kind()) > slot_bytes(t.room()) {
        fail!(
            "table {n}: kind {:?} in memory sized for kind {:?}",
            t.kind(),
            t.room()
        );
    }
    let (mut used, mut tombstones, mut empty) = (0usize, 0usize, 0usize);
    for g in 0..t.group_count() {
        let ctrl = t.ctrl(g);
        for i in 0..SLOTS {
            match ctrl.get(i) {
                EMPTY => empty += 1,
                DELETED => tombstones += 1,
                b if b < 0x80 => used += 1,
                b => fail!("table {n}: group {g} slot {i}: control byte {b:#04x}"),
            }
        }
    }
    if used != t.used() as usize {
        fail!(
            "table {n}: used is {} but control bytes show {used}",
            t.used()
        );
    }
    if capacity == SLOTS && tombstones != 0 {
        fail!("table {n}: a single group holds {tombstones} tombstones");
    }
    let budget = max_load(capacity);
    if used + tombstones > budget {
        fail!("table {n}: {used} used + {tombstones} tombstones over the limit {budget}");
    }
    if t.growth_left() as usize != budget - used - tombstones {
        fail!(
            "table {n}: growth_left is {} but should be {} ({budget} - {used} used - {tombstones} tombstones)",
            t.growth_left(),
            budget - used - tombstones
        );
    }
    if capacity > SLOTS && empty == 0 {
        fail!("table {n}: no empty slot left, probes would not end");
    }
    for (g, i) in t.full_slots() {
        let slot = t.entry(g, i);
        if t.kind() != Kind::Bytes
            && slot.key.int().map(|(tag, _)| Kind::of_tag(tag)) != Some(t.kind())
        {
            fail!("table {n}: group {g} slot {i}: an integer table holds another key");
        }
        let len = slot.key.key_len() as usize;
        if !slot.key.is_inline() && slot.key.bytes_ptr().is_null() {
            fail!("table {n}: group {g} slot {i}: key of {len} bytes has no copy");
        }
        // SAFETY: full slots hold live keys (what this checks is their
        // placement, not their memory).
        let bytes = unsafe { slot.key.bytes() };
        let h = hash::hash(map.seed.get(), bytes);
        // SAFETY: as above.
        if unsafe { t.hash_at(map.seed.get(), g, i) } != h {
            fail!("table {n}: group {g} slot {i}: the table hashes its key differently");
        }
        if h2(h) != t.ctrl(g).get(i) {
            fail!(
                "table {n}: group {g} slot {i}: fingerprint {:#04x} but key hashes to {:#04x}",
                t.ctrl(g).get(i),
                h2(h)
            );
        }
        if let Some(dir) = dir {
            let j = dir.index(h);
            let first = t.index() as usize;
            if j < first || j >= first + dir.span(t.local_depth()) {
                fail!("table {n}: group {g} slot {i}: key belongs to directory entry {j}");
            }
        }
        if t.find_key(h, &Needle::bytes(bytes)) != Some((g, i)) {
            fail!("table {n}: group {g} slot {i}: a lookup of its key does not reach it");
        }
    }
    Ok(used as u64)
}
