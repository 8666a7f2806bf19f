//! The directory: extendible hashing over tables.
//!
//! The directory is an array of `1 << global_depth` table pointers, indexed
//! by the top `global_depth` bits of a key's hash. A table of local depth
//! `d <= global_depth` owns every key whose top `d` bits are its own, so it
//! fills `1 << (global_depth - d)` consecutive entries, starting at a
//! multiple of that span (its `index`):
//!
//! ```text
//! global_depth 2      entry 00 01 10 11
//!                           A  A  B  C      A: local depth 1, index 0
//!                                           B, C: local depth 2
//! ```
//!
//! Splitting a table of local depth `d` sends each key by hash bit
//! `63 - d` (the next one below the shared prefix) to a left or a right
//! table of depth `d + 1`, which take the two halves of its entries. A
//! table whose local depth already equals the global depth has one entry;
//! the directory first doubles (every entry copied twice: pointers only, no
//! rehash) so that the halves exist. Growth therefore never touches more
//! than one table's entries, however large the map.

use core::mem::size_of;

use crate::alloc::Allocator;
use crate::layout::Kind;
use crate::table::Table;
use crate::Error;

/// Deepest directory: a limit on the index, well past any memory.
pub const MAX_DEPTH: u32 = if usize::BITS >= 64 {
    32
} else {
    usize::BITS - 6
};

/// One directory entry: a table, named by its groups (the header sits
/// right before them), its group mask and its slot layout, so a lookup goes
/// from the entry straight to a group without loading the table's header
/// first.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Entry {
    pub groups: *mut u8,
    pub mask: u32,
    pub kind: Kind,
}

// A table's header reads as its directory entry (see `Table`): the
// fields a lookup takes from an entry sit at the same offsets.
const _: () = {
    let (groups, mask, kind) = Table::ENTRY_OFFSETS;
    assert!(groups == core::mem::offset_of!(Entry, groups));
    assert!(mask == core::mem::offset_of!(Entry, mask));
    assert!(kind == core::mem::offset_of!(Entry, kind));
};

impl Entry {
    /// No table (a placeholder; a directory's entries are all set).
    pub const NONE: Entry = Entry {
        groups: core::ptr::null_mut(),
        mask: 0,
        kind: Kind::Bytes,
    };

    /// The entry for table `t`.
    ///
    /// # Safety
    /// `t` is a live table.
    #[inline]
    unsafe fn of(t: *mut Table) -> Entry {
        // SAFETY: the caller's guarantee.
        unsafe {
            Entry {
                groups: (*t).groups_ptr(),
                mask: (*t).mask(),
                kind: (*t).kind(),
            }
        }
    }

    /// The table: its header precedes its groups in one allocation.
    #[inline]
    pub fn table(self) -> *mut Table {
        if self.groups.is_null() {
            return core::ptr::null_mut();
        }
        self.groups.cast::<Table>().wrapping_sub(1)
    }
}

/// A view of a map's directory.
#[derive(Clone, Copy)]
pub struct Directory {
    pub array: *mut Entry,
    pub depth: u32,
}

impl Directory {
    /// Bytes of a directory of `depth`.
    pub fn bytes(depth: u32) -> usize {
        size_of::<Entry>() << depth
    }

    /// Allocates a directory of `depth`, entries NULL.
    pub fn new(alloc: &Allocator, depth: u32) -> Result<Directory, Error> {
        if depth > MAX_DEPTH {
            return Err(Error::Full);
        }
        let array = alloc.alloc_zeroed(1usize << depth, size_of::<Entry>())?;
        Ok(Directory {
            array: array.cast(),
            depth,
        })
    }

    /// # Safety
    /// The directory came from `alloc` and is not used afterwards (its
    /// tables are freed separately).
    pub unsafe fn free(self, alloc: &Allocator) {
        // SAFETY: the caller's guarantee.
        unsafe { alloc.free(self.array.cast(), Directory::bytes(self.depth)) }
    }

    #[inline]
    pub fn entries(&self) -> usize {
        1usize << self.depth
    }

    /// The entry for a hash: its top `depth` bits. (`>> 1 >> (63 - d)` is
    /// `>> (64 - d)` without the undefined shift by 64 at depth 0.)
    #[inline]
    pub fn index(&self, hash: u64) -> usize {
        ((hash >> 1) >> (63 - self.depth)) as usize
    }

    /// Entry `j`.
    #[inline]
    pub fn entry(&self, j: usize) -> Entry {
        debug_assert!(j < self.entries());
        // SAFETY: `j` is inside the directory.
        unsafe { *self.array.add(j) }
    }

    /// The table of entry `j` (NULL while the entry is unset).
    #[inline]
    pub fn get(&self, j: usize) -> *mut Table {
        self.entry(j).table()
    }

    /// Points entries `first .. first + count` at `t`.
    ///
    /// # Safety
    /// `t` is a live table.
    pub unsafe fn fill(&mut self, first: usize, count: usize, t: *mut Table) {
        debug_assert!(first + count <= self.entries());
        // SAFETY: the caller's guarantee.
        let e = unsafe { Entry::of(t) };
        for j in first..first + count {
            // SAFETY: `j` is inside the directory.
            unsafe { *self.array.add(j) = e };
        }
    }

    /// Entries a table of `local_depth` spans.
    #[inline]
    pub fn span(&self, local_depth: u32) -> usize {
        1usize << (self.depth - local_depth)
    }

    /// Installs `new` wherever `old` was (a rebuilt table of the same depth).
    ///
    /// # Safety
    /// `old` is a live table of this directory; `new` is live.
    pub unsafe fn replace(&mut self, old: *mut Table, new: *mut Table) {
        // SAFETY: the caller guarantees both tables are live.
        let (first, depth) = unsafe { ((*old).index() as usize, (*old).local_depth()) };
        let span = self.span(depth);
        // SAFETY: as above.
        unsafe {
            (*new).set_index(first as u32);
            self.fill(first, span, new);
        }
    }

    /// A directory twice as large, every entry doubled; the tables'
    /// `index` fields are updated. `self` must be freed by the caller.
    ///
    /// `bigger` is a fresh directory of `self.depth + 1`.
    ///
    /// # Safety
    /// Every entry of `self` is a live table.
    pub unsafe fn double_into(&self, bigger: &mut Directory) {
        debug_assert_eq!(bigger.depth, self.depth + 1);
        for j in 0..bigger.entries() {
            // SAFETY: `j` is inside `bigger`, `j / 2` inside `self`.
            unsafe { *bigger.array.add(j) = self.entry(j >> 1) };
        }
        let mut j = 0;
        while j < bigger.entries() {
            let t = bigger.get(j);
            // SAFETY: every entry is a live table (the caller's guarantee).
            unsafe {
                (*t).set_index(j as u32);
                j += bigger.span((*t).local_depth());
            }
        }
    }

    /// The distinct tables, in directory order.
    pub fn tables(&self) -> Tables {
        Tables {
            dir: *self,
            next: 0,
        }
    }
}

/// Iterator over a directory's distinct tables.
pub struct Tables {
    dir: Directory,
    next: usize,
}

impl Iterator for Tables {
    type Item = *mut Table;

    fn next(&mut self) -> Option<*mut Table> {
        if self.next >= self.dir.entries() {
            return None;
        }
        let t = self.dir.get(self.next);
        // SAFETY: directory entries are live tables whose depth is at most
        // the directory's (a map invariant the checker verifies).
        self.next += self.dir.span(unsafe { (*t).local_depth() });
        Some(t)
    }
}
