//! Slot layouts: how a table's slots hold their entries.
//!
//! A table's **kind** names its layout and the keys it may hold:
//!
//! ```text
//! Kind        layout    holds             slot                         a group's slots
//! Kind::Bytes General   any key           [key repr 32][value 8]  40 B  8 * 40 = 320 B
//! Kind::U64   Int       u64 keys only     [u64 key   8][value 8]  16 B  8 * 16 = 128 B
//! Kind::I64   Int       i64 keys only     [i64 key   8][value 8]  16 B  128 B
//! ```
//!
//! (Sizes on 64-bit targets. With 4-byte pointers a general slot keeps its
//! 40 bytes, the key repr being 8-aligned, and an integer slot is 16 bytes
//! where a `u64` is 8-aligned (wasm32) and 12 where it is 4-aligned (i686).)
//!
//! Integer tables keep the key's value, not its 10-byte encoding: the tag
//! is the table's kind. Their groups are smaller (a hit touches fewer cache
//! lines, a map takes less memory) and a key compares in one word. A byte
//! key that is the encoding of an integer key is that integer key (see
//! [`Key::int`]), so it finds and stores it in either layout.
//!
//! The kind is a runtime value (a table turns general when a key of another
//! kind arrives); the layout is a type. Each operation matches the kind
//! once, with [`on_layout!`], and runs code generic over [`Layout`] from
//! there on, monomorphised for each layout.

use core::ffi::c_void;

use crate::alloc::Allocator;
use crate::hash::{hash, hash_int};
use crate::key::{int_bytes, Key, KeyRepr, TAG_I64, TAG_U64};
use crate::Error;

/// A table's kind: its slot layout, and the keys it may hold. The
/// integer kinds' values are the integer keys' tags.
#[repr(u32)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// Any key, in [`Slot`]s.
    Bytes = 0,
    /// `i64` keys only, in [`IntSlot`]s.
    I64 = TAG_I64 as u32,
    /// `u64` keys only, in [`IntSlot`]s.
    U64 = TAG_U64 as u32,
}

impl Kind {
    /// The integer kind of an integer key's tag ([`TAG_I64`] or
    /// [`TAG_U64`]).
    pub fn of_tag(tag: u8) -> Kind {
        if tag == TAG_I64 {
            Kind::I64
        } else {
            Kind::U64
        }
    }
}

/// What a lookup reads first, in one byte: the kind every table of a map
/// has, where the map knows it, and whether the map is past the caches.
/// One compare tells a lookup that the map has tables, that they all have
/// the key's layout (so it takes the groups from the directory entry
/// without reading a table's kind) and whether it prefetches slots:
///
/// ```text
/// 0000_0000  unknown: no tables (as in a zero-filled map), or tables of
///            several kinds
/// 0000_00kk  every table has kind kk (01 i64, 10 u64, 11 bytes)
/// 1000_00kk  the same, in a map whose lookups prefetch slots
///            (`Map::prefetches`)
/// ```
///
/// The kind stays unknown once a table of a map of several tables took
/// another kind, until the map is rebuilt whole or emptied (see
/// `Map::took_kind`).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Uniform(u8);

impl Uniform {
    pub const UNKNOWN: Uniform = Uniform(0);
    const FAR: u8 = 0b1000_0000;
    const BYTES: u8 = 0b11;

    /// The tables whose probe `Map::look` takes directly for `n`, in a map
    /// within the caches: an integer key's own kind's; general ones for a
    /// byte key (which they hold whatever it encodes).
    pub fn usual<K: Key>(n: &K) -> Uniform {
        if K::INT {
            Uniform::of(kind_of(n))
        } else {
            Uniform(Uniform::BYTES)
        }
    }

    /// Every table has `kind`, in a map within the caches.
    pub fn of(kind: Kind) -> Uniform {
        match kind {
            Kind::Bytes => Uniform(Uniform::BYTES),
            Kind::I64 => Uniform(TAG_I64),
            Kind::U64 => Uniform(TAG_U64),
        }
    }

    /// The same kind in a map past the caches (`far`) or within them;
    /// unknown stays unknown.
    pub fn far(self, far: bool) -> Uniform {
        if far && self != Uniform::UNKNOWN {
            Uniform(self.0 | Uniform::FAR)
        } else {
            Uniform(self.0 & !Uniform::FAR)
        }
    }

    /// Whether the map's lookups prefetch (never while the kind is
    /// unknown).
    #[inline]
    pub fn is_far(self) -> bool {
        self.0 & Uniform::FAR != 0
    }

    /// The kind, where known.
    pub fn kind(self) -> Option<Kind> {
        match self.0 & !Uniform::FAR {
            Uniform::BYTES => Some(Kind::Bytes),
            TAG_I64 => Some(Kind::I64),
            TAG_U64 => Some(Kind::U64),
            _ => None,
        }
    }
}

impl core::fmt::Debug for Uniform {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.kind() {
            None => write!(f, "Uniform(unknown)"),
            Some(k) if self.is_far() => write!(f, "Uniform({k:?}, far)"),
            Some(k) => write!(f, "Uniform({k:?})"),
        }
    }
}

/// The kind of table a key calls for: its tag if it is an integer key.
pub fn kind_of(n: &impl Key) -> Kind {
    n.int().map_or(Kind::Bytes, |(tag, _)| Kind::of_tag(tag))
}

/// One entry of a general table.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Slot {
    pub key: KeyRepr,
    pub value: *mut c_void,
}

/// One entry of an integer table: the key's value (its tag is the table's
/// kind).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct IntSlot {
    pub key: u64,
    pub value: *mut c_void,
}

const _: () = assert!(core::mem::align_of::<IntSlot>() <= core::mem::align_of::<Slot>());

/// Bytes of one slot of a table of `kind`.
#[inline]
pub fn slot_bytes(kind: Kind) -> usize {
    if kind == Kind::Bytes {
        size_of::<Slot>()
    } else {
        size_of::<IntSlot>()
    }
}

/// `on_layout!(kind, L => body)`: `body` with `L` the [`Layout`] of tables
/// of `kind`, [`General`] or [`Int`]. The one place a kind becomes a type.
macro_rules! on_layout {
    ($kind:expr, $L:ident => $body:expr) => {
        if $kind == $crate::layout::Kind::Bytes {
            #[allow(dead_code)]
            type $L = $crate::layout::General;
            $body
        } else {
            #[allow(dead_code)]
            type $L = $crate::layout::Int;
            $body
        }
    };
}
pub(crate) use on_layout;

/// A slot layout: its slot type, its key compare, its hash, and what its
/// slots own. `kind` arguments are the table's kind, which for [`Int`]
/// says which integer keys it holds.
pub trait Layout: 'static {
    type Slot: Copy;

    /// Whether this is the integer layout, the one integer keys usually
    /// meet (see [`Key::INT`]).
    const INT: bool;

    /// The compare for `n` in a table of `kind`: `None` when such a table
    /// cannot hold `n` (it is absent there, and inserting it needs the
    /// general layout).
    ///
    /// The compare may only be given full slots, whose keys are live.
    fn matcher<'k, K: Key>(kind: Kind, n: &'k K) -> Option<impl Fn(&Self::Slot) -> bool + 'k>;

    fn value(s: &Self::Slot) -> *mut c_void;

    fn set_value(s: &mut Self::Slot, value: *mut c_void);

    /// Where slot `s` keeps its value.
    fn value_ptr(s: *mut Self::Slot) -> *mut *mut c_void;

    /// Writes the entry of `n`, a key that [`Layout::matcher`] accepted, into
    /// vacant slot memory `dst`: `owned` if given (a stored copy of `n`
    /// made earlier), else a new one. On failure nothing is allocated and
    /// `dst` stays unused.
    ///
    /// # Safety
    /// `dst` is valid for writes of a slot.
    unsafe fn store<K: Key>(
        kind: Kind,
        dst: *mut Self::Slot,
        n: &K,
        owned: Option<KeyRepr>,
        value: *mut c_void,
        alloc: &Allocator,
    ) -> Result<(), Error>;

    /// The hash under `seed` of a full slot's key.
    ///
    /// # Safety
    /// The slot's key is live.
    unsafe fn hash(seed: u64, kind: Kind, s: &Self::Slot) -> u64;

    /// Calls `f` with a full slot's key as bytes (an integer key as its
    /// encoding, from a buffer that lives for the call).
    ///
    /// # Safety
    /// The slot's key is live.
    unsafe fn with_bytes<R>(kind: Kind, s: &Self::Slot, f: impl FnOnce(&[u8]) -> R) -> R;

    /// The slot's key as a general table would keep it.
    fn repr(kind: Kind, s: &Self::Slot) -> KeyRepr;

    /// The slot's key as an integer table keeps it: its value, if it is an
    /// integer key.
    fn int(s: &Self::Slot) -> Option<u64>;

    /// This layout's slot for an entry that moves in from a slot `s` of
    /// layout `F` and kind `from` (its key moves, it is not copied). An
    /// integer layout only takes integer keys of its kind.
    fn moved<F: Layout>(from: Kind, s: &F::Slot) -> Self::Slot;

    /// Frees what a full slot's key owns.
    ///
    /// # Safety
    /// The key is live, came from `alloc`, and is not used again.
    unsafe fn release(s: &Self::Slot, alloc: &Allocator);

    /// Bytes a full slot's key holds outside the table.
    fn heap_bytes(s: &Self::Slot) -> usize;

    /// An independent copy of a full slot (its key copied where it owns
    /// memory).
    ///
    /// # Safety
    /// The key is live.
    unsafe fn duplicate(s: &Self::Slot, alloc: &Allocator) -> Result<Self::Slot, Error>;
}

/// The general layout: any key, as its 32-byte repr.
pub enum General {}

/// The integer layout: integer keys of the table's kind, as their values.
pub enum Int {}

impl Layout for General {
    type Slot = Slot;
    const INT: bool = false;

    fn matcher<'k, K: Key>(_: Kind, n: &'k K) -> Option<impl Fn(&Slot) -> bool + 'k> {
        // SAFETY: the compare is only given full slots, whose keys live.
        Some(move |s: &Slot| unsafe { n.matches(&s.key) })
    }

    fn value(s: &Slot) -> *mut c_void {
        s.value
    }

    fn set_value(s: &mut Slot, value: *mut c_void) {
        s.value = value;
    }

    fn value_ptr(s: *mut Slot) -> *mut *mut c_void {
        // SAFETY: a place expression only: nothing is read.
        unsafe { &raw mut (*s).value }
    }

    unsafe fn store<K: Key>(
        _: Kind,
        dst: *mut Slot,
        n: &K,
        owned: Option<KeyRepr>,
        value: *mut c_void,
        alloc: &Allocator,
    ) -> Result<(), Error> {
        // SAFETY: the caller's guarantee; the key goes straight into the
        // slot's memory.
        unsafe {
            match owned {
                Some(key) => core::ptr::addr_of_mut!((*dst).key).write(key),
                None => n.store(core::ptr::addr_of_mut!((*dst).key), alloc)?,
            }
            core::ptr::addr_of_mut!((*dst).value).write(value);
        }
        Ok(())
    }

    #[inline(always)]
    unsafe fn hash(seed: u64, _: Kind, s: &Slot) -> u64 {
        // SAFETY: the caller's guarantee.
        hash(seed, unsafe { s.key.bytes() })
    }

    #[inline]
    unsafe fn with_bytes<R>(_: Kind, s: &Slot, f: impl FnOnce(&[u8]) -> R) -> R {
        // SAFETY: the caller's guarantee.
        f(unsafe { s.key.bytes() })
    }

    #[inline]
    fn repr(_: Kind, s: &Slot) -> KeyRepr {
        s.key
    }

    #[inline]
    fn int(s: &Slot) -> Option<u64> {
        s.key.int().map(|(_, v)| v)
    }

    fn moved<F: Layout>(from: Kind, s: &F::Slot) -> Slot {
        Slot {
            key: F::repr(from, s),
            value: F::value(s),
        }
    }

    #[inline]
    unsafe fn release(s: &Slot, alloc: &Allocator) {
        // SAFETY: the caller's guarantee.
        unsafe { s.key.release(alloc) }
    }

    #[inline]
    fn heap_bytes(s: &Slot) -> usize {
        s.key.heap_bytes()
    }

    #[inline]
    unsafe fn duplicate(s: &Slot, alloc: &Allocator) -> Result<Slot, Error> {
        Ok(Slot {
            // SAFETY: the caller's guarantee.
            key: unsafe { s.key.duplicate(alloc)? },
            value: s.value,
        })
    }
}

/// The value of `n` if it is an integer key of `kind`: the only keys an
/// integer table of that kind holds, and the form it holds them in.
fn int_in(kind: Kind, n: &impl Key) -> Option<u64> {
    match n.int() {
        Some((tag, v)) if tag as u32 == kind as u32 => Some(v),
        _ => None,
    }
}

impl Layout for Int {
    type Slot = IntSlot;
    const INT: bool = true;

    fn matcher<'k, K: Key>(kind: Kind, n: &'k K) -> Option<impl Fn(&IntSlot) -> bool + 'k> {
        let v = int_in(kind, n)?;
        Some(move |s: &IntSlot| s.key == v)
    }

    fn value(s: &IntSlot) -> *mut c_void {
        s.value
    }

    fn set_value(s: &mut IntSlot, value: *mut c_void) {
        s.value = value;
    }

    fn value_ptr(s: *mut IntSlot) -> *mut *mut c_void {
        // SAFETY: a place expression only: nothing is read.
        unsafe { &raw mut (*s).value }
    }

    unsafe fn store<K: Key>(
        kind: Kind,
        dst: *mut IntSlot,
        n: &K,
        owned: Option<KeyRepr>,
        value: *mut c_void,
        _: &Allocator,
    ) -> Result<(), Error> {
        // An integer key owns nothing, so it never has a stored copy.
        debug_assert!(owned.is_none());
        let key = int_in(kind, n).unwrap_or_default();
        // SAFETY: the caller's guarantee.
        unsafe { dst.write(IntSlot { key, value }) };
        Ok(())
    }

    #[inline]
    unsafe fn hash(seed: u64, kind: Kind, s: &IntSlot) -> u64 {
        hash_int(seed, kind as u8, s.key)
    }

    #[inline]
    unsafe fn with_bytes<R>(kind: Kind, s: &IntSlot, f: impl FnOnce(&[u8]) -> R) -> R {
        f(&int_bytes(kind as u8, s.key))
    }

    #[inline]
    fn repr(kind: Kind, s: &IntSlot) -> KeyRepr {
        KeyRepr::from_int(kind as u8, s.key)
    }

    #[inline]
    fn int(s: &IntSlot) -> Option<u64> {
        Some(s.key)
    }

    fn moved<F: Layout>(_: Kind, s: &F::Slot) -> IntSlot {
        let key = F::int(s);
        debug_assert!(
            key.is_some(),
            "a key that is no integer key moves into an integer table"
        );
        IntSlot {
            key: key.unwrap_or_default(),
            value: F::value(s),
        }
    }

    #[inline]
    unsafe fn release(_: &IntSlot, _: &Allocator) {}

    #[inline]
    fn heap_bytes(_: &IntSlot) -> usize {
        0
    }

    #[inline]
    unsafe fn duplicate(s: &IntSlot, _: &Allocator) -> Result<IntSlot, Error> {
        Ok(*s)
    }
}
