//! The board vocabulary every module shares: the two colours, piece-type ids and the cell
//! encoding of the mailbox (empty, off-board wall, or a colour bit plus a type id).

/// Index of a piece type (kind + promoted flag) in [`crate::variant::Variant::types`].
pub type TypeId = u16;

/// Board cell encoding: `0` empty, [`WALL`] off-board, else a colour bit and a type id.
pub type Cell = u16;
pub const EMPTY: Cell = 0;
pub const WALL: Cell = 0x8000;
pub const TYPE_MASK: Cell = 0x1fff;

/// The two sides. Black (sente) moves first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    Black = 0,
    White = 1,
}

impl Color {
    #[inline]
    pub fn flip(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }
    #[inline]
    pub fn idx(self) -> usize {
        self as usize
    }
    /// The cell bit marking a piece of this colour.
    #[inline]
    pub fn bit(self) -> Cell {
        0x2000 << (self as u16)
    }
    pub fn from_idx(i: usize) -> Color {
        if i == 0 {
            Color::Black
        } else {
            Color::White
        }
    }
}

/// Make a cell for a piece.
#[inline]
pub fn piece_cell(c: Color, t: TypeId) -> Cell {
    c.bit() | t
}
/// Type of an occupied cell.
#[inline]
pub fn cell_type(cell: Cell) -> TypeId {
    cell & TYPE_MASK
}
/// Colour of an occupied cell.
#[inline]
pub fn cell_color(cell: Cell) -> Color {
    if cell & 0x4000 != 0 {
        Color::White
    } else {
        Color::Black
    }
}
