//! Handles: dense 32-bit atom numbers.

use std::fmt;

/// Bits of a handle that name its shard.
pub(crate) const SHARD_BITS: u32 = 5;
/// Shards per space.
pub(crate) const SHARDS: usize = 1 << SHARD_BITS;
/// Largest shard-local slot number plus one.
pub(crate) const LOCAL_LIMIT: u32 = 1 << (32 - SHARD_BITS);

/// An atom in a space: a 32-bit number, not a pointer.
///
/// The low bits name the shard that owns the atom, the rest its slot there.
/// A space never hands out the same number twice, so a handle kept after its
/// atom was extracted keeps naming nothing; it never aliases a later atom.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(transparent)]
pub struct Handle(pub(crate) u32);

impl Handle {
    #[inline]
    pub(crate) fn new(shard: usize, local: u32) -> Handle {
        debug_assert!(shard < SHARDS && local < LOCAL_LIMIT);
        Handle((local << SHARD_BITS) | shard as u32)
    }

    #[inline]
    pub(crate) fn shard(self) -> usize {
        (self.0 as usize) & (SHARDS - 1)
    }

    #[inline]
    pub(crate) fn local(self) -> u32 {
        self.0 >> SHARD_BITS
    }

    /// The raw number, for storage layers and foreign-function interfaces.
    #[inline]
    pub fn to_u32(self) -> u32 {
        self.0
    }

    /// A handle from its raw number. A number the space never handed out
    /// names no atom: every operation reports it as invalid.
    #[inline]
    pub fn from_u32(raw: u32) -> Handle {
        Handle(raw)
    }
}

impl fmt::Debug for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

impl fmt::Display for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}
