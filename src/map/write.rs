//! Writes: sets and get-or-inserts (the one insert, [`Map::insert`]) and
//! removals (the one removal, [`Map::remove_hashed`]), by key length, and
//! where a caller's unwinding guard goes. Lookups are in `mod.rs`.
//!
//! A byte key takes the probe loop that suits its length:
//!
//! ```text
//! length        as              compare                 hash
//! 0 ..= 16      Short<16>       straight-line loads     XXH3's 0-16 byte paths
//! 17 ..= 32     Short<32, 17>   straight-line loads     XXH3's 17-128 byte path
//! 33 ..= 128    Short<128>      may call memcmp         XXH3 short paths
//! 129 ..        Needle          may call memcmp         XXH3 long path
//! ```
//!
//! Lookups ([`Map::get_bytes_guarded`]) take the two classes of up to 32
//! bytes apart (deletes take every key of up to 32 bytes as `Short<32>`,
//! inserts every key of up to 128 bytes as `Short<128>`): the bounds drop
//! from each class's code the other's hash paths and compares, and from
//! the class of 17 to 32 bytes every branch of its key's first word.
//!
//! The C layer's `_bytes` lookups, deletes and takes send keys of more
//! than 32 bytes down a path of their own before anything else (`ffi/
//! map.rs`, `get_apart`): there keys of 33 to 128 bytes are
//! `Short<128, 33>`, compared in 16-byte pieces with no call and hashed by
//! [`crate::hash::hash_mid`]; longer lookups go to [`Map::get_long`] and
//! longer takes to [`Map::take_bytes_guarded`].
//!
//! Keys of up to 32 bytes have a probe loop with no call in it (lookups
//! and deletes; inserts keep one loop for every short key). Only two
//! pieces of a point operation hold code that the compiler cannot prove
//! panic-free: hashing a key longer than [`crate::hash::SHORT`] (XXH3's
//! long-input path) and making room for an insert (allocation, growth,
//! drawing a seed). The `_guarded` operations (the writes here, the byte
//! keys' lookup in `mod.rs`) run exactly those under the caller's
//! [`Guard`], and everything else bare: the C layer passes its
//! `catch_unwind`, and its hot paths keep no unwinding path (`make
//! symbols`).

use core::ffi::c_void;
use core::ptr;

use super::{Map, Mode};
use crate::directory;
use crate::guard::Guard;
use crate::hash::SHORT;
use crate::key::{Key, KeyRepr, Needle, Short};
use crate::layout::{kind_of, on_layout, General, Int, Kind, Layout, Uniform};
use crate::table::{Lookup, Search, Typed, Vacancy};
use crate::Error;

/// An insert that [`Map::try_set`] could not do in place: the key's hash,
/// unless the map had no table to hash it for.
#[derive(Clone, Copy)]
pub struct Pending {
    hash: Option<u64>,
}

/// What an insert tried in place ([`Map::try_set`]) came to.
pub enum Tried<T> {
    /// Nothing done: the key's table must change first.
    Pending(Pending),
    /// Done: the key was found or stored; what the upsert hands back.
    Done(T),
    /// Failed with nothing changed (a long key's copy could not be made).
    Failed(Error),
}

/// Where a get-or-insert left the key: the address of its stored value,
/// and whether the key was new.
#[derive(Clone, Copy)]
pub struct Placed {
    pub value: *mut *mut c_void,
    pub inserted: bool,
}

/// What the one insert does with a key it finds, and what it hands back:
/// a set replaces the value and hands back nothing; a get-or-insert keeps
/// it and hands back where it is ([`Placed`]).
pub trait Upsert {
    type Out;
    /// Whether a found key keeps its value.
    const KEEP: bool;
    fn placed(value: *mut *mut c_void, inserted: bool) -> Self::Out;
}

/// `slate_set`: insert or replace.
pub enum Set {}

impl Upsert for Set {
    type Out = ();
    const KEEP: bool = false;
    fn placed(_: *mut *mut c_void, _: bool) {}
}

/// `slate_entry`: get or insert.
pub enum GetOrInsert {}

impl Upsert for GetOrInsert {
    type Out = Placed;
    const KEEP: bool = true;
    fn placed(value: *mut *mut c_void, inserted: bool) -> Placed {
        Placed { value, inserted }
    }
}

/// What a set or get-or-insert does with a key it found in slot `s`.
fn found<L: Layout, U: Upsert>(s: *mut L::Slot, value: *mut c_void) -> U::Out {
    if !U::KEEP {
        // SAFETY: a full slot of a table the caller modifies.
        L::set_value(unsafe { &mut *s }, value);
    }
    U::placed(L::value_ptr(s), false)
}

/// [`Map::upsert_then`] where the insert in place could not do it: the
/// insert of the key of hash `h` (the map has tables), with the whole
/// probe, finished under the guard. A get-or-insert stores a new key with
/// the value NULL whatever `value` says, so that its instance has no use
/// for the argument.
fn upsert_rest<G: Guard, U: Upsert, K: Key, R>(
    m: &mut Map,
    n: K,
    value: *mut c_void,
    h: u64,
    done: impl FnOnce(Result<U::Out, Error>) -> R,
) -> R {
    let value = if U::KEEP { ptr::null_mut() } else { value };
    let tried = m.insert::<false, false, U, K>(h, &n, value, &mut None);
    done(m.finish_guarded::<G, U>(tried, &n, value))
}

/// [`Map::upsert_then`] in a map whose tables are not all of the key's
/// usual layout, or which has none. Its attribute: `make lto-test`.
#[inline(never)]
fn upsert_other<G: Guard, U: Upsert, K: Key, R>(
    m: &mut Map,
    n: K,
    value: *mut c_void,
    done: impl FnOnce(Result<U::Out, Error>) -> R,
) -> R {
    if m.is_tabled() {
        let h = m.hash(&n);
        return upsert_rest::<G, U, K, R>(m, n, value, h, done);
    }
    let tried = Tried::Pending(Pending { hash: None });
    done(m.finish_guarded::<G, U>(tried, &n, value))
}

/// [`Map::take_then`] where the removal in place could not do it: the
/// map's tables are not all of the key's usual layout (or it has none),
/// the key's peeled probe (of hash `hash`) found its first group full, or
/// the map has one entry. Its attribute: `make lto-test`.
#[inline(never)]
fn take_rest<G: Guard, K: Key, R>(
    m: &mut Map,
    n: K,
    hash: Option<u64>,
    done: impl FnOnce(Result<*mut c_void, Error>) -> R,
) -> R {
    let removed = if m.is_tabled() {
        let h = hash.unwrap_or_else(|| m.hash(&n));
        m.remove_hashed::<false, K>(h, &n)
            .unwrap_or(Err(Error::NotFound))
    } else {
        Err(Error::NotFound)
    };
    done(m.reseed_guarded::<G>(removed))
}

/// `G::run` for code that hands back a value.
fn run_for<G: Guard, R>(f: impl FnOnce() -> Result<R, Error>) -> Result<R, Error> {
    let mut out = None;
    G::run(|| {
        out = Some(f()?);
        Ok(())
    })?;
    // `run` returned Ok, so `f` ran and returned Ok.
    out.ok_or(Error::Invalid)
}

impl Map {
    /// A set or a get-or-insert, as `U` says (see [`Map::upsert`]), handing
    /// `done` the result. In a map whose tables all have the key's usual
    /// layout (`USUAL` of [`super::get_in`]) the insert is tried in place;
    /// any other case, and making room, goes to [`upsert_rest`] or
    /// [`upsert_other`], which call `done` themselves and make room under
    /// the guard.
    #[inline(always)]
    pub fn upsert_then<G: Guard, U: Upsert, K: Key, R>(
        &mut self,
        n: &K,
        value: *mut c_void,
        done: impl FnOnce(Result<U::Out, Error>) -> R,
    ) -> R {
        if self.kinds != Uniform::usual::<K>(n) {
            return upsert_other::<G, U, K, R>(self, *n, value, done);
        }
        let h = self.hash(n);
        match self.insert::<false, true, U, K>(h, n, value, &mut None) {
            Tried::Done(out) => done(Ok(out)),
            Tried::Failed(e) => done(Err(e)),
            Tried::Pending(_) => upsert_rest::<G, U, K, R>(self, *n, value, h, done),
        }
    }

    /// What an insert tried in place came to, finished: a pending insert
    /// makes room under the guard.
    fn finish_guarded<G: Guard, U: Upsert>(
        &mut self,
        tried: Tried<U::Out>,
        n: &impl Key,
        value: *mut c_void,
    ) -> Result<U::Out, Error> {
        match tried {
            Tried::Done(r) => Ok(r),
            Tried::Failed(e) => Err(e),
            Tried::Pending(pending) => self.set_pending_guarded::<G, U>(pending, n, value),
        }
    }

    /// `set_pending` under the guard.
    fn set_pending_guarded<G: Guard, U: Upsert>(
        &mut self,
        pending: Pending,
        n: &impl Key,
        value: *mut c_void,
    ) -> Result<U::Out, Error> {
        run_for::<G, _>(|| self.set_pending::<U>(pending, n, value))
    }

    /// [`Map::upsert_then`] for a byte key: one probe loop for every short key,
    /// a long key (hashed by XXH3's long path) wholly under the guard.
    #[inline(always)]
    pub fn upsert_bytes_guarded<G: Guard, U: Upsert>(
        &mut self,
        n: Needle<'_>,
        value: *mut c_void,
    ) -> Result<U::Out, Error> {
        match Short::<SHORT>::new(n) {
            Some(short) => self.upsert_then::<G, U, _, _>(&short, value, |r| r),
            None => self.upsert_long::<G, U>(n.key(), value),
        }
    }

    /// An insert of a key longer than [`SHORT`] (see `Map::get_long`),
    /// under the guard. Its attribute: `make lto-test`.
    #[inline(never)]
    fn upsert_long<G: Guard, U: Upsert>(
        &mut self,
        key: &[u8],
        value: *mut c_void,
    ) -> Result<U::Out, Error> {
        run_for::<G, _>(|| self.upsert::<U>(&Needle::bytes(key), value))
    }

    /// Removes a key, handing `done` its value. Removing cannot panic; a
    /// map left empty draws a fresh seed, which may read OS entropy: under
    /// the guard, in [`take_rest`]. In a map whose tables all have the
    /// key's usual layout the removal is made in place; any other case, and
    /// taking the last entry, goes to [`take_rest`].
    #[inline(always)]
    pub fn take_then<G: Guard, K: Key, R>(
        &mut self,
        n: &K,
        done: impl FnOnce(Result<*mut c_void, Error>) -> R,
    ) -> R {
        // Taking the map's last entry reseeds the map: `take_rest`.
        if self.uniform != Uniform::usual::<K>(n) || self.len == 1 {
            return take_rest::<G, K, R>(self, *n, None, done);
        }
        let h = self.hash(n);
        match self.remove_hashed::<true, K>(h, n) {
            Some(removed) => done(removed),
            None => take_rest::<G, K, R>(self, *n, Some(h), done),
        }
    }

    /// A removal's result, with a map it left empty reseeded under the
    /// guard.
    fn reseed_guarded<G: Guard>(
        &mut self,
        removed: Result<*mut c_void, Error>,
    ) -> Result<*mut c_void, Error> {
        let value = removed?;
        if self.is_empty() {
            G::run(|| {
                self.reseed();
                Ok(())
            })?;
        }
        Ok(value)
    }

    /// [`Map::take_then`] for a byte key, by its length.
    #[inline(always)]
    pub fn take_bytes_guarded<G: Guard>(&mut self, n: Needle<'_>) -> Result<*mut c_void, Error> {
        if let Some(short) = Short::<32>::new(n) {
            self.take_then::<G, _, _>(&short, |r| r)
        } else if let Some(short) = Short::<SHORT>::new(n) {
            self.take_then::<G, _, _>(&short, |r| r)
        } else {
            self.take_long::<G>(n.key())
        }
    }

    /// A take of a key longer than [`SHORT`] (see `Map::get_long`).
    fn take_long<G: Guard>(&mut self, key: &[u8]) -> Result<*mut c_void, Error> {
        run_for::<G, _>(|| self.take(&Needle::bytes(key)))
    }

    /// Inserts or replaces. On error the map is unchanged.
    #[cfg(test)]
    pub fn set(&mut self, n: &impl Key, value: *mut c_void) -> Result<(), Error> {
        self.upsert::<Set>(n, value)
    }

    /// A set, or a get-or-insert (a present key keeps its value, a new one
    /// is stored with `value`), as `U` says. On error the map is unchanged.
    pub fn upsert<U: Upsert>(&mut self, n: &impl Key, value: *mut c_void) -> Result<U::Out, Error> {
        match self.try_set::<U>(n, value) {
            Tried::Done(r) => Ok(r),
            Tried::Failed(e) => Err(e),
            Tried::Pending(pending) => self.set_pending::<U>(pending, n, value),
        }
    }

    /// `set` when no table must be made, grown or switched to another
    /// layout: [`Tried::Pending`] (nothing done) otherwise, for
    /// [`Map::set_pending`] to finish. Allocates at most a long key's copy
    /// and cannot panic: the hot path of the C API's inserts, which then
    /// needs no guard.
    pub fn try_set<U: Upsert>(&mut self, n: &impl Key, value: *mut c_void) -> Tried<U::Out> {
        if self.mode == Mode::Empty {
            return Tried::Pending(Pending { hash: None });
        }
        let h = self.hash(n);
        self.insert::<false, false, U, _>(h, n, value, &mut None)
    }

    /// Finishes a `set` that [`Map::try_set`] left pending: makes room for
    /// the key (a first table, a rebuild or split, a layout switch) and
    /// inserts it, hashed once. The key's copy is made first, so that a
    /// failure to make it changes nothing.
    pub fn set_pending<U: Upsert>(
        &mut self,
        pending: Pending,
        n: &impl Key,
        value: *mut c_void,
    ) -> Result<U::Out, Error> {
        self.adopt_allocator();
        let want = kind_of(n);
        // Integer keys own nothing; other keys are stored as a general
        // table keeps them.
        let mut owned = match want {
            Kind::Bytes => Some(n.to_stored(&self.alloc)?),
            _ => None,
        };
        let done = self.make_room_and_insert::<U>(pending, n, value, want, &mut owned);
        if let Some(key) = owned {
            // SAFETY: made above from this allocator, not stored.
            unsafe { key.release(&self.alloc) };
        }
        done
    }

    /// The loop of `set_pending`: room, then the insert, until it is done.
    fn make_room_and_insert<U: Upsert>(
        &mut self,
        pending: Pending,
        n: &impl Key,
        value: *mut c_void,
        want: Kind,
        owned: &mut Option<KeyRepr>,
    ) -> Result<U::Out, Error> {
        let h = match pending.hash {
            Some(h) => h,
            None => {
                self.first_table(want)?;
                self.hash(n)
            }
        };
        loop {
            match self.insert::<true, false, U, _>(h, n, value, owned) {
                Tried::Done(r) => return Ok(r),
                Tried::Failed(e) => return Err(e),
                Tried::Pending(_) => {}
            }
            self.make_room(self.table_for(h), want)?;
        }
    }

    /// The one insert: into the table `h` belongs to, in place, or
    /// [`Tried::Pending`] when that table must change first (it has no room,
    /// cannot hold the key's kind, or is empty and should take the key's
    /// layout). `owned`: the key's stored copy, if one was made; taken when
    /// the key is stored, left for the caller otherwise. `OWNED`: whether
    /// `owned` may hold one; the fast path has none and says so as a
    /// constant. `USUAL`: the caller found the map's tables all of the
    /// key's usual layout (as for [`super::get_in`]), so the entry's kind
    /// is not read. `U`: what a found key's value becomes, and what the insert
    /// hands back.
    #[inline(always)]
    pub(super) fn insert<const OWNED: bool, const USUAL: bool, U: Upsert, K: Key>(
        &mut self,
        h: u64,
        n: &K,
        value: *mut c_void,
        owned: &mut Option<KeyRepr>,
    ) -> Tried<U::Out> {
        // The probe takes the groups, mask and kind from the directory
        // entry, as lookups do, so it need not wait for the table's header.
        let e = self.entry_for(h);
        if USUAL && K::INT {
            self.insert_in::<Int, OWNED, true, U, K>(e, kind_of(n), h, n, value, owned)
        } else if USUAL {
            self.insert_in::<General, OWNED, false, U, K>(e, Kind::Bytes, h, n, value, owned)
        } else {
            on_layout!(e.kind, L => self.insert_in::<L, OWNED, false, U, K>(e, e.kind, h, n, value, owned))
        }
    }

    /// [`Map::insert`] into the table of entry `e`, of kind `kind`, laid
    /// out in `L`.
    #[inline(always)]
    fn insert_in<L: Layout, const OWNED: bool, const PEEL: bool, U: Upsert, K: Key>(
        &mut self,
        e: directory::Entry,
        kind: Kind,
        h: u64,
        n: &K,
        value: *mut c_void,
        owned: &mut Option<KeyRepr>,
    ) -> Tried<U::Out> {
        debug_assert_eq!(e.kind, kind);
        let pending = Pending { hash: Some(h) };
        // SAFETY: the entry of a live table of this map, of kind `kind`,
        // laid out in `L`; `self` is borrowed uniquely.
        let mut t = unsafe { Typed::<L>::from_groups(e.groups, e.mask) };
        let Some(eq) = L::matcher(kind, n) else {
            return Tried::Pending(pending);
        };
        match t.find_or_vacant::<PEEL>(h, eq) {
            Lookup::Found(s) => Tried::Done(found::<L, U>(s, value)),
            // An empty general table takes an integer key's layout
            // (`make_room`); an integer table's matcher only takes keys of
            // its kind.
            Lookup::Vacant(_) if !L::INT && t.table().used() == 0 && n.int().is_some() => {
                Tried::Pending(pending)
            }
            Lookup::Vacant(v) => {
                let key = if OWNED { owned.take() } else { None };
                self.fill::<L, U>(&mut t, kind, v, h, n, key, value)
            }
            Lookup::NoRoom => Tried::Pending(pending),
        }
    }

    /// Stores `n` (or `key`, its stored copy) with `value` in vacancy `v`
    /// of `t`, a table of this map of kind `kind`, and counts it.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn fill<L: Layout, U: Upsert>(
        &mut self,
        t: &mut Typed<'_, L>,
        kind: Kind,
        v: Vacancy,
        h: u64,
        n: &impl Key,
        key: Option<KeyRepr>,
        value: *mut c_void,
    ) -> Tried<U::Out> {
        let alloc = &self.alloc;
        let at = t.vacant_slot(&v);
        let stored = t.insert_at(v, h, move |dst| {
            // SAFETY: a vacant slot's memory.
            unsafe { L::store(kind, dst, n, key, value, alloc) }
        });
        match stored {
            Ok(()) => {
                self.len += 1;
                self.bump_epoch();
                Tried::Done(U::placed(L::value_ptr(at), true))
            }
            Err(e) => Tried::Failed(e),
        }
    }

    /// Removes a key and returns its value.
    pub fn take(&mut self, n: &impl Key) -> Result<*mut c_void, Error> {
        let value = self.remove(n)?;
        if self.len == 0 {
            self.reseed();
        }
        Ok(value)
    }

    /// Removes a key.
    #[cfg(test)]
    pub fn delete(&mut self, n: &impl Key) -> Result<(), Error> {
        self.take(n).map(|_| ())
    }

    /// `take` without the fresh seed of a map left empty: the caller
    /// calls `reseed` then. Allocates nothing and cannot panic.
    pub fn remove(&mut self, n: &impl Key) -> Result<*mut c_void, Error> {
        if self.mode == Mode::Empty {
            return Err(Error::NotFound);
        }
        self.remove_hashed::<false, _>(self.hash(n), n)
            .unwrap_or(Err(Error::NotFound))
    }

    /// [`Map::remove`] of the key of hash `h` (not in empty mode).
    /// `USUAL`: as for [`Map::insert`]; then an integer key's probe is
    /// peeled (see [`Typed::find_or_vacant`]): `None` when its first group
    /// is full and the removal is left to the unpeeled probe. Always
    /// `Some` otherwise.
    #[inline(always)]
    pub(super) fn remove_hashed<const USUAL: bool, K: Key>(
        &mut self,
        h: u64,
        n: &K,
    ) -> Option<Result<*mut c_void, Error>> {
        // From the directory entry, as in `insert`. Large maps prefetch a
        // group's slots, as lookups do; a map whose `uniform` names the
        // key's usual layout is within the caches.
        let e = self.entry_for(h);
        if USUAL && K::INT {
            self.remove_in::<Int, false, true, K>(e, kind_of(n), h, n)
        } else if USUAL {
            self.remove_in::<General, false, false, K>(e, Kind::Bytes, h, n)
        } else if self.prefetches() {
            on_layout!(e.kind, L => self.remove_in::<L, true, false, K>(e, e.kind, h, n))
        } else {
            on_layout!(e.kind, L => self.remove_in::<L, false, false, K>(e, e.kind, h, n))
        }
    }

    /// [`Map::remove_hashed`] from the table of entry `e`, of kind `kind`,
    /// laid out in `L`.
    #[inline(always)]
    fn remove_in<L: Layout, const PREFETCH: bool, const PEEL: bool, K: Key>(
        &mut self,
        e: directory::Entry,
        kind: Kind,
        h: u64,
        n: &K,
    ) -> Option<Result<*mut c_void, Error>> {
        debug_assert_eq!(e.kind, kind);
        // SAFETY: the entry of a live table of this map, of kind `kind`,
        // laid out in `L`; `self` is borrowed uniquely.
        let mut t = unsafe { Typed::<L>::from_groups(e.groups, e.mask) };
        let Some(eq) = L::matcher(kind, n) else {
            return Some(Err(Error::NotFound));
        };
        let found = if PEEL {
            match t.search_first::<PREFETCH>(h, &eq) {
                (g, Search::Found(i, s)) => Some((g, i, s)),
                (_, Search::Absent(_)) => None,
                (_, Search::Further) => return None,
            }
        } else {
            t.find::<PREFETCH>(h, eq)
        };
        let Some((g, i, s)) = found else {
            return Some(Err(Error::NotFound));
        };
        // SAFETY: a full slot of the table, whose key is live, owned by
        // the table and made by this map's allocator. Erasing marks the
        // slot in its control word only.
        let value = unsafe {
            L::release(&*s, &self.alloc);
            L::value(&*s)
        };
        t.table().erase_at(g, i);
        self.len -= 1;
        self.bump_epoch();
        Some(Ok(value))
    }
}
