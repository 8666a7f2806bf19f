//! Introspection for tools (the visualizer in `cli/`, tests): the calls of
//! `include/slate-introspect.h`, generated from this file alone by `cbindgen-introspect.toml`.
//! Exported from the library like every other call, but outside `slate.h` and its ABI promise.

use core::ffi::c_int;

use crate::Error;

use super::map::slate_s;
use super::{guard, read};

/// What `slate_table_info` reports about one table.
#[repr(C)]
#[derive(Default)]
pub struct slate_table_info_s {
    /// First directory entry that points at the table (0 for a small map).
    pub directory_first: u32,
    /// Directory entries that point at it: `1 << (global_depth - local_depth)` (0 for a small map,
    /// which has no directory).
    pub directory_count: u32,
    /// Hash bits all its keys share.
    pub local_depth: u32,
    /// Slots.
    pub capacity: u32,
    /// Entries.
    pub used: u32,
    /// Deleted slots.
    pub tombstones: u32,
    /// Empty slots inserts may still take before the table is rebuilt.
    pub growth_left: u32,
    /// Groups of 8 slots (`capacity / 8`).
    pub groups: u32,
    /// Its slot layout: 0 for any key (40-byte slots), or `0x01` / `0x02` when it holds only `i64`
    /// / only `u64` keys, kept as 8-byte values in 16-byte slots (a table takes the kind of the
    /// first key it holds and turns general when a key of another kind arrives).
    pub int_keys: u32,
}

/// Fills `*info` for table number `table` (0 .. tables-1, in directory order; a small map's group
/// is table 0).
/// Returns `SLATE_OK`; `SLATE_ERROR_NOT_FOUND` past the last table; `SLATE_ERROR_INVALID` for a
/// NULL argument.
#[no_mangle]
pub unsafe extern "C" fn slate_table_info(
    map: *const slate_s,
    table: u32,
    info: *mut slate_table_info_s,
) -> c_int {
    guard(|| {
        if info.is_null() {
            return Err(Error::Invalid);
        }
        let t = unsafe { read(map)? }
            .table_info(table)
            .ok_or(Error::NotFound)?;
        let out = slate_table_info_s {
            directory_first: t.directory_first,
            directory_count: t.directory_count,
            local_depth: t.local_depth,
            capacity: t.capacity,
            used: t.used,
            tombstones: t.tombstones,
            growth_left: t.growth_left,
            groups: t.groups,
            int_keys: t.int_keys,
        };
        // SAFETY: `info` is writable.
        unsafe { info.write(out) };
        Ok(())
    })
}

/// Stores in `*ctrl` the raw control word of group `group` of table `table`: byte `i` (bits `8i ..
/// 8i+7`) describes slot `i`: `0x80` empty, `0xFE` deleted, `0x00 .. 0x7F` the 7-bit fingerprint of
/// a full slot.
/// Returns `SLATE_OK`; `SLATE_ERROR_NOT_FOUND` for a table or group out of range;
/// `SLATE_ERROR_INVALID` for a NULL argument.
#[no_mangle]
pub unsafe extern "C" fn slate_table_ctrl(
    map: *const slate_s,
    table: u32,
    group: u32,
    ctrl: *mut u64,
) -> c_int {
    guard(|| {
        if ctrl.is_null() {
            return Err(Error::Invalid);
        }
        let mut ctrls = unsafe { read(map)? }
            .table_ctrls(table)
            .ok_or(Error::NotFound)?;
        let word = ctrls.nth(group as usize).ok_or(Error::NotFound)?;
        // SAFETY: `ctrl` is writable.
        unsafe { ctrl.write(word.0) };
        Ok(())
    })
}

/// Stores in `ctrl[0 .. count]` the control words of groups `0 .. count` of table `table` (as
/// `slate_table_ctrl` does one at a time): one walk to the table instead of one per group. `count`
/// is at most the table's group count (`slate_table_info`'s `groups`).
/// Returns `SLATE_OK`; `SLATE_ERROR_NOT_FOUND` for a table out of range; `SLATE_ERROR_INVALID` for
/// a NULL argument or `count` above the table's group count.
#[no_mangle]
pub unsafe extern "C" fn slate_table_ctrls(
    map: *const slate_s,
    table: u32,
    ctrl: *mut u64,
    count: u32,
) -> c_int {
    guard(|| {
        if ctrl.is_null() {
            return Err(Error::Invalid);
        }
        let ctrls = unsafe { read(map)? }
            .table_ctrls(table)
            .ok_or(Error::NotFound)?;
        if count as usize > ctrls.len() {
            return Err(Error::Invalid);
        }
        for (g, word) in ctrls.take(count as usize).enumerate() {
            // SAFETY: `ctrl` has room for `count` words.
            unsafe { ctrl.add(g).write(word.0) };
        }
        Ok(())
    })
}
