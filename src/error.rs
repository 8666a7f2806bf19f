//! The error codes.

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
    /// Snapshot calls only: the bytes are not a valid snapshot.
    Corrupt = -4,
    /// Snapshot calls only: a valid snapshot this build, platform or
    /// destination cannot take.
    Unsupported = -5,
}
