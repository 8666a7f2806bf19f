//! The map's side of a snapshot (`crate::snapshot::map`): its entries
//! read straight from the tables in walk order, the bytes their keys
//! take, and a loaded entry put in.
//!
//! A save reads each table in place rather than through `each`: the
//! entries come in the same order (tables in directory order, then
//! groups, then the full slots of each control word), with no stamp per
//! entry, since the save's own writer looks at the map after every call
//! out and stops at the first change. A general slot is copied out before
//! anything is called, so what the callee sees is the copy's key (inline)
//! or the key's own heap copy (long), never a reference into the table.

use core::ffi::c_void;

use crate::hash::SHORT;
use crate::key::{int_bytes, IntKey, Key, Needle, Short, INT_LEN};
use crate::layout::{kind_of, on_layout, General, Int, Kind, Uniform};
use crate::table::{Table, Typed};
use crate::Error;

use super::plan::Plan;
use super::write::{GetOrInsert, Placed, Tried};
use super::Map;
use crate::guard::Guard;

impl Map {
    /// The sum over every entry of `fixed` plus its key's bytes as a
    /// snapshot holds them (an integer key: its 10-byte encoding). An
    /// integer table's share comes from its count; a general table's from
    /// the key lengths its full slots hold (no key's own bytes are read).
    pub(crate) fn key_bytes_plus(&self, fixed: u64) -> u64 {
        let mut total = 0u64;
        for tp in self.tables() {
            // SAFETY: a live table of this map, only read.
            let t = unsafe { &*tp };
            if t.kind() != Kind::Bytes {
                total += t.used() as u64 * (fixed + INT_LEN as u64);
                continue;
            }
            // SAFETY: a general table, laid out so, only read.
            let typed = unsafe { Typed::<General>::of(tp) };
            for g in 0..t.group_count() {
                for i in t.ctrl(g).match_full() {
                    total += fixed + typed.slot(g, i).key.key_len() as u64;
                }
            }
        }
        total
    }

    /// Calls `f(key, key_length, value)` for every entry, in walk order;
    /// an integer key as its 10-byte encoding. Each slot is read just
    /// before its call, and `key` points into a copy on this frame (an
    /// inline key, an encoding) or to a long key's heap copy.
    ///
    /// # Safety
    /// `this` points to a live map. `f` may call out, but returns `Err`
    /// whenever the map has changed since the walk began (it looks after
    /// every call that could change it), so the walk reads the map again
    /// only while it is unchanged.
    pub(crate) unsafe fn each_entry<E>(
        this: *const Map,
        mut f: impl FnMut(*const u8, u32, *mut c_void) -> Result<(), E>,
    ) -> Result<(), E> {
        // SAFETY: the caller's guarantee. The iterator keeps the
        // directory's address and depth, which it reads on while the map
        // is unchanged.
        let tables = unsafe { (*this).tables() };
        for tp in tables {
            // SAFETY (both): a live table of the unchanged map.
            let kind = unsafe { (*tp).kind() };
            unsafe {
                if kind == Kind::Bytes {
                    each_general(tp, &mut f)?
                } else {
                    each_int(tp, kind, &mut f)?
                }
            }
        }
        Ok(())
    }

    /// Sizes this map, which holds nothing (a load's, made beside its
    /// destination), for `n` entries in tables of `kind`: the kind the
    /// load's first key asks for. (`reserve` makes general tables, not
    /// knowing the keys; integer keys then turn them integer one by one,
    /// in memory sized for general slots.) A key of another kind turns its
    /// table general, as any insert does.
    pub(crate) fn reserve_for(&mut self, n: u64, kind: Kind) -> Result<(), Error> {
        if !self.holds_nothing() {
            return self.reserve(n);
        }
        let plan = Plan::for_entries(n)?;
        self.adopt_allocator();
        self.ensure_seed();
        self.shape(plan, kind)?;
        self.bump_epoch();
        Ok(())
    }

    /// The hash the insert of loaded key `k` will use (0 for a key too
    /// long to hash without a guard, which its insert hashes), with a
    /// request for the first line that insert reads: its first group's
    /// control word. A load asks this some keys ahead of each insert,
    /// then [`Map::load_near`] a few keys ahead, so that the cache misses
    /// of several inserts overlap.
    pub(crate) fn load_ahead(&self, k: &LoadKey<'_>) -> u64 {
        let h = match k {
            LoadKey::Int(n) => self.hash(n),
            LoadKey::Short(n) => self.hash(n),
            LoadKey::Long(_) => return 0,
        };
        if self.is_tabled() {
            let e = self.entry_for(h);
            // SAFETY: the entry of a live table; only prefetched.
            on_layout!(e.kind, L => unsafe {
                Typed::<L>::from_groups(e.groups, e.mask).prefetch_ctrl(h)
            });
        }
        h
    }

    /// A request for the slots the insert of a loaded key of hash `h`
    /// (from [`Map::load_ahead`]) compares and writes in its first group;
    /// reads that group's control word. (For a long key, whose hash is
    /// 0 here, the request is only a useless one.)
    pub(crate) fn load_near(&self, h: u64) {
        if !self.is_tabled() {
            return;
        }
        let e = self.entry_for(h);
        // SAFETY: the entry of a live table, only read.
        on_layout!(e.kind, L => unsafe {
            Typed::<L>::from_groups(e.groups, e.mask).prefetch_vacancy(h)
        });
    }

    /// Inserts a loaded entry into this map (a map a load builds beside
    /// its destination, which only the load's inserts change): `Ok(true)`
    /// when `k` was new and now holds `value`, `Ok(false)` when it is
    /// present (nothing changes). `h` is what [`Map::load_ahead`] gave
    /// for `k` on this map. `G` guards what might panic (making room,
    /// hashing a long key), as in the C layer's inserts.
    pub(crate) fn load_entry<G: Guard>(
        &mut self,
        k: LoadKey<'_>,
        h: u64,
        value: *mut c_void,
    ) -> Result<bool, Error> {
        let placed = match k {
            LoadKey::Int(n) => self.load_hashed::<G, _>(&n, h, value),
            LoadKey::Short(n) => self.load_hashed::<G, _>(&n, h, value),
            LoadKey::Long(n) => self.upsert_bytes_guarded::<G, GetOrInsert>(n, value),
        }?;
        if placed.inserted {
            // SAFETY: where the map keeps the new key's value (a
            // get-or-insert may have stored NULL there).
            unsafe { *placed.value = value };
        }
        Ok(placed.inserted)
    }

    /// A get-or-insert of `n`, of hash `h` under this map's seed: in
    /// place where the map's tables all have the key's usual layout and
    /// the key's table has room, else as `upsert_then` (which hashes
    /// again).
    #[inline(always)]
    fn load_hashed<G: Guard, K: Key>(
        &mut self,
        n: &K,
        h: u64,
        value: *mut c_void,
    ) -> Result<Placed, Error> {
        if self.kinds == Uniform::usual::<K>(n) {
            debug_assert_eq!(h, self.hash(n));
            match self.insert::<false, true, GetOrInsert, K>(h, n, value, &mut None) {
                Tried::Done(p) => return Ok(p),
                Tried::Failed(e) => return Err(e),
                Tried::Pending(_) => {}
            }
        }
        self.upsert_then::<G, GetOrInsert, K, _>(n, value, |r| r)
    }
}

/// A key read from a snapshot, as an insert takes it: an integer key's
/// encoding as that integer key (which finds and stores the same entry
/// as its bytes), a byte key of up to [`SHORT`] bytes (hashed on XXH3's
/// short paths), or a longer one.
#[derive(Clone, Copy)]
pub(crate) enum LoadKey<'a> {
    Int(IntKey),
    Short(Short<'a, SHORT>),
    Long(Needle<'a>),
}

impl<'a> LoadKey<'a> {
    /// The kind of table that holds this key as it is.
    pub(crate) fn kind(&self) -> Kind {
        match self {
            LoadKey::Int(n) => kind_of(n),
            _ => Kind::Bytes,
        }
    }

    pub(crate) fn of(key: &'a [u8]) -> LoadKey<'a> {
        let n = Needle::bytes(key);
        if let Some((tag, v)) = n.int() {
            return LoadKey::Int(IntKey::new(tag, v));
        }
        match Short::new(n) {
            Some(short) => LoadKey::Short(short),
            None => LoadKey::Long(n),
        }
    }
}

/// [`Map::each_entry`] over a general table.
///
/// # Safety
/// As for `each_entry`; `tp` is a live general table of the map.
unsafe fn each_general<E>(
    tp: *mut Table,
    f: &mut impl FnMut(*const u8, u32, *mut c_void) -> Result<(), E>,
) -> Result<(), E> {
    // SAFETY: the caller's guarantee; the view holds the table's groups
    // and mask, read only while the map is unchanged.
    let (t, groups) = unsafe { (Typed::<General>::of(tp), (*tp).group_count()) };
    for g in 0..groups {
        // SAFETY: the map is unchanged since the walk began (else `f`
        // returned `Err` and the walk ended): `tp` is live.
        let full = unsafe { (*tp).ctrl(g) }.match_full();
        for i in full {
            let s = *t.slot(g, i);
            f(s.key.bytes_ptr(), s.key.key_len(), s.value)?;
        }
    }
    Ok(())
}

/// [`Map::each_entry`] over an integer table of `kind`.
///
/// # Safety
/// As for `each_entry`; `tp` is a live integer table of the map.
unsafe fn each_int<E>(
    tp: *mut Table,
    kind: Kind,
    f: &mut impl FnMut(*const u8, u32, *mut c_void) -> Result<(), E>,
) -> Result<(), E> {
    // SAFETY: as in `each_general`.
    let (t, groups) = unsafe { (Typed::<Int>::of(tp), (*tp).group_count()) };
    for g in 0..groups {
        // SAFETY: as in `each_general`.
        let full = unsafe { (*tp).ctrl(g) }.match_full();
        for i in full {
            let s = *t.slot(g, i);
            let key = int_bytes(kind as u8, s.key);
            f(key.as_ptr(), INT_LEN as u32, s.value)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alloc::Allocator;
    use crate::guard::Bare;
    use crate::key::{int_bytes, TAG_I64, TAG_U64};

    /// A value that is a number, not an address (no provenance for Miri).
    fn v(i: u64) -> *mut c_void {
        core::ptr::without_provenance_mut(i as usize)
    }

    /// Keys of every form a load meets: integer encodings of both kinds,
    /// short byte keys (the empty one too), keys past the inline 28 bytes
    /// and past the 128 bytes of the short path.
    fn keys(n: u64) -> Vec<Vec<u8>> {
        (0..n)
            .map(|i| match i % 5 {
                0 => int_bytes(TAG_U64, i).to_vec(),
                1 => int_bytes(TAG_I64, i).to_vec(),
                2 => format!("k{i:>6}").into_bytes()[..(i % 7) as usize].to_vec(),
                3 => format!("{i:>40}").into_bytes(),
                _ => format!("{i:>200}").into_bytes(),
            })
            .collect()
    }

    /// Loads `keys` as a load does: `load_ahead` some keys before each
    /// `load_entry`; what each `load_entry` answered.
    fn load(m: &mut Map, keys: &[Vec<u8>]) -> Vec<bool> {
        let hashes: Vec<u64> = keys.iter().map(|k| m.load_ahead(&LoadKey::of(k))).collect();
        keys.iter()
            .zip(&hashes)
            .enumerate()
            .map(|(i, (k, &h))| {
                m.load_near(h);
                m.load_entry::<Bare>(LoadKey::of(k), h, v(i as u64 + 1))
                    .unwrap()
            })
            .collect()
    }

    #[test]
    fn loaded_entries_are_found_and_duplicates_refused() {
        let n = if cfg!(miri) { 300 } else { 3_000 };
        let ks = keys(n);
        let mut m = Map::new(Allocator::default());
        m.reserve(n).unwrap();
        // The empty key comes twice (i % 5 == 2, i % 7 == 0): the second
        // is refused, as every key's second load below.
        let fresh = load(&mut m, &ks);
        let distinct: std::collections::HashSet<&Vec<u8>> = ks.iter().collect();
        assert_eq!(fresh.iter().filter(|&&f| f).count(), distinct.len());
        assert_eq!(m.len(), distinct.len() as u64);
        m.check().unwrap();
        for (i, k) in ks.iter().enumerate() {
            let first = ks.iter().position(|x| x == k).unwrap();
            assert_eq!(fresh[i], first == i);
            assert_eq!(m.get(&Needle::bytes(k)), Some(v(first as u64 + 1)));
        }
        assert!(load(&mut m, &ks).iter().all(|&f| !f));
        assert_eq!(m.len(), distinct.len() as u64);
        // An integer key's encoding found as the integer key.
        assert_eq!(m.get(&IntKey::new(TAG_U64, 5)), Some(v(6)));
        m.check().unwrap();
        m.free();
    }

    #[test]
    fn reserve_for_makes_tables_of_the_kind_and_takes_any_key() {
        let n = if cfg!(miri) { 300 } else { 3_000 };
        for kind in [Kind::U64, Kind::I64, Kind::Bytes] {
            let mut m = Map::new(Allocator::default());
            m.reserve_for(n, kind).unwrap();
            // SAFETY: live tables of `m`.
            assert!(m.tables().all(|t| unsafe { (*t).kind() } == kind));
            assert_eq!(m.uniform.kind(), Some(kind));
            let before = m.capacity();
            assert!(before >= n);
            // Keys of every kind (`keys` mixes them): integer tables turn
            // general where another key arrives.
            let ks = keys(n);
            load(&mut m, &ks);
            m.check().unwrap();
            for k in &ks {
                assert!(m.get(&Needle::bytes(k)).is_some());
            }
            m.free();
        }
        // A map that holds something is only reserved.
        let mut m = Map::new(Allocator::default());
        m.set(&IntKey::new(TAG_U64, 1), v(1)).unwrap();
        m.reserve_for(n, Kind::I64).unwrap();
        assert_eq!(m.get(&IntKey::new(TAG_U64, 1)), Some(v(1)));
        m.check().unwrap();
        m.free();
    }

    #[test]
    fn each_entry_walks_as_visit_and_key_bytes_add_up() {
        let n = if cfg!(miri) { 300 } else { 3_000 };
        let ks = keys(n);
        let mut m = Map::new(Allocator::default());
        for (i, k) in ks.iter().enumerate() {
            m.set(&Needle::bytes(k), v(i as u64)).unwrap();
        }
        // Integer tables alone, general ones, and both at once.
        let mut ints = Map::new(Allocator::default());
        for i in 0..n {
            ints.set(&IntKey::new(TAG_I64, i), v(i)).unwrap();
        }
        for map in [&m, &ints] {
            let mut visited = vec![];
            map.visit(|k, v| {
                visited.push((k.to_vec(), v));
                0
            });
            let mut walked = vec![];
            // SAFETY: a live map, which `f` does not change.
            unsafe {
                Map::each_entry::<()>(map, |k, n, v| {
                    walked.push((core::slice::from_raw_parts(k, n as usize).to_vec(), v));
                    Ok(())
                })
            }
            .unwrap();
            assert_eq!(walked, visited);
            let bytes: u64 = visited.iter().map(|(k, _)| 3 + k.len() as u64).sum();
            assert_eq!(map.key_bytes_plus(3), bytes);
        }
        // A walk stops at the first `Err`.
        let mut seen = 0;
        // SAFETY: as above.
        let r = unsafe {
            Map::each_entry::<u32>(&m, |_, _, _| {
                seen += 1;
                if seen == 7 {
                    Err(7)
                } else {
                    Ok(())
                }
            })
        };
        assert_eq!((r, seen), (Err(7), 7));
        m.free();
        ints.free();
    }
}
