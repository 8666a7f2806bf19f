//! Point operations by key length, and where a caller's unwinding guard
//! goes.
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
//! Lookups take the two classes of up to 32 bytes apart (deletes take
//! every key of up to 32 bytes as `Short<32>`, inserts every key of up to
//! 128 bytes as `Short<128>`): the bounds drop from each class's code the
//! other's hash paths and compares, and from the class of 17 to 32 bytes
//! every branch of its key's first word.
//!
//! The C layer's `_bytes` lookups, deletes and takes send keys of more
//! than 32 bytes down a path of their own before anything else (`ffi/
//! map.rs`, `get_apart`): there keys of 33 to 128 bytes are
//! `Short<128, 33>`, compared in 16-byte pieces with no call and hashed by
//! [`crate::hash::hash_mid`], and longer ones come here.
//!
//! Keys of up to 32 bytes have a probe loop with no call in it (lookups
//! and deletes; inserts keep one loop for every short key). Only two
//! pieces of a point operation hold code that the compiler cannot prove
//! panic-free: hashing a key longer than [`crate::hash::SHORT`] (XXH3's
//! long-input path) and making room for an insert (allocation, growth,
//! drawing a seed). The `_guarded` operations run exactly those under the
//! caller's [`Guard`], and everything else bare: the C layer passes its
//! `catch_unwind`, and its hot paths keep no unwinding path (`make
//! symbols`).

use core::ffi::c_void;
use core::ptr;

use super::{Map, Pending, Tried, Upsert};
use crate::hash::SHORT;
use crate::key::{Key, Needle, Short};
use crate::layout::Uniform;
use crate::Error;

/// Runs code that might panic: the C layer's guard turns a panic into
/// `Err(Error::Invalid)`, so that no unwinding reaches C.
pub(crate) trait Guard {
    fn run(f: impl FnOnce() -> Result<(), Error>) -> Result<(), Error>;
}

/// Runs code bare: the Rust tests have no C boundary to guard.
#[cfg(test)]
pub(crate) struct Bare;

#[cfg(test)]
impl Guard for Bare {
    fn run(f: impl FnOnce() -> Result<(), Error>) -> Result<(), Error> {
        f()
    }
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
    /// Looks a byte key up, by its length (see the module docs), and gives
    /// its value to `found`. (Each path calls `found` itself, so the short
    /// keys' path does not wait on a merge of the paths' results.)
    #[inline(always)]
    pub fn get_bytes_guarded<G: Guard>(
        &self,
        n: Needle<'_>,
        found: impl FnOnce(*mut c_void),
    ) -> Result<(), Error> {
        if let Some(short) = Short::<16>::new(n) {
            self.get_then(&short, found)
        } else if let Some(short) = Short::<32, 17>::new(n) {
            self.get_then(&short, found)
        } else {
            self.get_longer::<G>(n.key(), found)
        }
    }

    /// `get`, giving the value to `found`. Through [`Map::look`], so that
    /// each of its paths ends in its own copy of this work rather than
    /// merging their results first.
    #[inline(always)]
    pub fn get_then(&self, n: &impl Key, found: impl FnOnce(*mut c_void)) -> Result<(), Error> {
        self.look(n, |value| {
            found(value.ok_or(Error::NotFound)?);
            Ok(())
        })
    }

    /// `get_bytes_guarded` for a key longer than 32 bytes, given its bytes.
    fn get_longer<G: Guard>(
        &self,
        key: &[u8],
        found: impl FnOnce(*mut c_void),
    ) -> Result<(), Error> {
        let n = Needle::bytes(key);
        match Short::<SHORT>::new(n) {
            Some(short) => self.get_then(&short, found),
            None => {
                found(self.get_long::<G>(key)?.ok_or(Error::NotFound)?);
                Ok(())
            }
        }
    }

    /// A lookup of a key longer than [`SHORT`], under the guard (single
    /// lookups and batches), given its bytes.
    pub(super) fn get_long<G: Guard>(&self, key: &[u8]) -> Result<Option<*mut c_void>, Error> {
        let mut value = None;
        G::run(|| {
            value = self.get(&Needle::bytes(key));
            Ok(())
        })?;
        Ok(value)
    }

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

    /// An insert of a key longer than [`SHORT`] (see `get_long`), under the
    /// guard. Its attribute: `make lto-test`.
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

    /// A take of a key longer than [`SHORT`] (see `get_long`).
    fn take_long<G: Guard>(&mut self, key: &[u8]) -> Result<*mut c_void, Error> {
        run_for::<G, _>(|| self.take(&Needle::bytes(key)))
    }
}
