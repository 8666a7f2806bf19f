//! Introspection: what a map reports of its shape (`slate_info`,
//! `slate_table_info`, `slate_table_ctrl`). Read-only; allocates nothing.

use crate::directory::Directory;
use crate::group::Ctrl;
use crate::table::Table;

use super::{Map, Mode};

/// A whole map's shape.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub(crate) struct Info {
    pub length: u64,
    pub seed: u64,
    /// Slots in all tables.
    pub capacity: u64,
    pub tombstones: u64,
    /// Bytes: tables, directory and long keys' copies.
    pub memory: u64,
    /// 0 without a directory.
    pub global_depth: u32,
    pub tables: u32,
    /// Directory entries, 0 without a directory.
    pub directory: u32,
    /// One bare group, no directory.
    pub small: bool,
}

/// One table's shape.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub(crate) struct TableInfo {
    /// The first directory entry that points at it, and how many do.
    pub directory_first: u32,
    pub directory_count: u32,
    pub local_depth: u32,
    pub capacity: u32,
    pub used: u32,
    pub tombstones: u32,
    pub growth_left: u32,
    pub groups: u32,
    /// Its layout: 0 for any key, else the tag of the integer keys it
    /// holds as 8-byte values.
    pub int_keys: u32,
}

impl Map {
    /// The map's shape: counts summed over its tables.
    pub fn info(&self) -> Info {
        let mut out = Info {
            length: self.len,
            // 0 for a map that has no seed yet (a zero-filled one).
            seed: if self.unseeded() { 0 } else { self.seed.get() },
            small: self.mode == Mode::Small,
            ..Info::default()
        };
        for tp in self.tables() {
            // SAFETY: a live table of the map.
            let t = unsafe { &*tp };
            out.tables += 1;
            out.capacity += t.capacity() as u64;
            out.tombstones += t.tombstones() as u64;
            out.memory += (t.memory() + t.heap_bytes()) as u64;
        }
        if self.mode == Mode::Dir {
            out.global_depth = self.global_depth() as u32;
            out.directory = 1 << self.global_depth();
            out.memory += Directory::bytes(self.global_depth() as u32) as u64;
        }
        out
    }

    /// Table number `n` in walk order (a small map's group is table 0).
    fn nth_table(&self, n: u32) -> Option<&Table> {
        let tp = self.tables().nth(n as usize)?;
        // SAFETY: a live table of the map, borrowed with it.
        Some(unsafe { &*tp })
    }

    /// Table number `n`'s shape, `None` past the last table.
    pub fn table_info(&self, n: u32) -> Option<TableInfo> {
        let t = self.nth_table(n)?;
        let directory_count = if self.mode == Mode::Dir {
            self.dir().span(t.local_depth()) as u32
        } else {
            0
        };
        Some(TableInfo {
            directory_first: t.index(),
            directory_count,
            local_depth: t.local_depth(),
            capacity: t.capacity(),
            used: t.used(),
            tombstones: t.tombstones() as u32,
            growth_left: t.growth_left(),
            groups: t.group_count() as u32,
            int_keys: t.kind() as u32,
        })
    }

    /// The control words of table number `n`'s groups, in order; `None`
    /// past the last table.
    pub fn table_ctrls(&self, n: u32) -> Option<impl ExactSizeIterator<Item = Ctrl> + '_> {
        let t = self.nth_table(n)?;
        Some((0..t.group_count()).map(move |g| t.ctrl(g)))
    }
}
