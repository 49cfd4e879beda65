//! The compact move record and the caller-owned move list.

use crate::cell::TypeId;

/// A move. Squares are padded-board indices; `0` means "none" (square 0 is never on the board).
///
/// * board move: `from` -> `to`, with up to two intermediate stops in `mid` (lion-power moves:
///   in the default convention every listed stop is a capture, except the mid-square of a pass
///   `from mid from`);
/// * drop: `flags & DROP`, `from` holds the dropped piece type;
/// * `flags & PROMOTE`: the piece promotes at the end of the move.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, PartialOrd, Ord)]
pub struct Move {
    pub from: u16,
    pub to: u16,
    pub mid: [u16; 2],
    pub flags: u8,
}

impl Move {
    pub const PROMOTE: u8 = 1;
    pub const DROP: u8 = 2;

    #[inline]
    pub fn new(from: u16, to: u16) -> Move {
        Move { from, to, mid: [0, 0], flags: 0 }
    }
    #[inline]
    pub fn with_mid(from: u16, mid: u16, to: u16) -> Move {
        Move { from, to, mid: [mid, 0], flags: 0 }
    }
    #[inline]
    pub fn drop(t: TypeId, to: u16) -> Move {
        Move { from: t, to, mid: [0, 0], flags: Move::DROP }
    }
    #[inline]
    pub fn is_drop(&self) -> bool {
        self.flags & Move::DROP != 0
    }
    #[inline]
    pub fn promotes(&self) -> bool {
        self.flags & Move::PROMOTE != 0
    }
    #[inline]
    pub fn promoted(mut self) -> Move {
        self.flags |= Move::PROMOTE;
        self
    }
    /// The dropped piece type (drops only).
    #[inline]
    pub fn drop_type(&self) -> TypeId {
        self.from
    }
    /// Intermediate stops, in order.
    #[inline]
    pub fn mids(&self) -> impl Iterator<Item = u16> + '_ {
        self.mid.iter().copied().filter(|&m| m != 0)
    }
    /// A pass (or a burn in place): returns to its square without capturing on the way.
    #[inline]
    pub fn returns(&self) -> bool {
        !self.is_drop() && self.from == self.to
    }
}

/// A reusable move list. Generation appends to it; callers `clear` it between positions so that
/// no allocation happens once it has grown.
pub type MoveList = Vec<Move>;
