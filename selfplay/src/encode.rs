//! Network input and move encoding, shared by self-play inference and training.
//!
//! The board is seen from the side to move (rotated 180 degrees when White is to move), as a
//! grid of piece codes for a learned embedding: `0` empty, `1 + t` own piece of type `t`,
//! `1 + T + t` opponent piece. Scalars: own and opponent hand counts (scaled), whether White is
//! to move, the counter-strike flag, the repetition count and the game length.
//!
//! A move is encoded as indices into the network's slot features — `H*W` squares, then one
//! "none" slot (`H*W`), then one slot per hand kind (`H*W + 1 + h`): `from` (a square or a hand
//! slot for a drop), `to`, the first and second intermediate stops (`H*W` = none) and the
//! promotion flag.

use shogilab_engine::{Color, Move, Position, Variant};
use std::sync::Arc;

/// Encoding parameters of one variant.
#[derive(Debug, Clone)]
pub struct Encoder {
    pub variant: Arc<Variant>,
    pub height: usize,
    pub width: usize,
    /// Number of piece types (the embedding has `1 + 2 * types` rows).
    pub types: usize,
    /// Number of hand piece kinds (drops).
    pub hand_kinds: usize,
    /// Can the board be mirrored left-right without changing the game?
    pub mirror_ok: bool,
}

/// One encoded position.
#[derive(Debug, Clone, PartialEq)]
pub struct EncodedPosition {
    pub board: Vec<i64>,
    pub scalars: Vec<f32>,
}

/// One encoded move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EncodedMove {
    pub from: i64,
    pub to: i64,
    pub mid1: i64,
    pub mid2: i64,
    pub promote: i64,
}

impl Encoder {
    pub fn new(variant: Arc<Variant>) -> Encoder {
        let mirror_ok = mirror_symmetric(&variant);
        Encoder {
            height: variant.ranks as usize,
            width: variant.files as usize,
            types: variant.types.len(),
            hand_kinds: variant.hand_types.len(),
            mirror_ok,
            variant,
        }
    }

    /// Squares on the board (`H*W`).
    pub fn squares(&self) -> usize {
        self.height * self.width
    }
    /// Rows of the piece embedding.
    pub fn vocab(&self) -> usize {
        1 + 2 * self.types
    }
    /// Length of the scalar feature vector.
    pub fn num_scalars(&self) -> usize {
        2 * self.hand_kinds + 4
    }
    /// Number of slots (squares, the "none" slot, hand kinds).
    pub fn slots(&self) -> usize {
        self.squares() + 1 + self.hand_kinds
    }

    /// Oriented index of a padded square for the side to move `c`.
    #[inline]
    pub fn square_index(&self, sq: u16, c: Color) -> i64 {
        let (x, y) = self.variant.xy(sq);
        let (x, y) = (x as usize, y as usize);
        let (x, y) =
            if c == Color::Black { (x, y) } else { (self.width - 1 - x, self.height - 1 - y) };
        (y * self.width + x) as i64
    }

    /// Encode a position; `repetitions` = earlier occurrences of it in the game.
    pub fn encode_position(&self, pos: &Position, repetitions: u32, plies: u32) -> EncodedPosition {
        let mut board = vec![0i64; self.squares()];
        self.encode_board_into(pos, &mut board);
        let mut scalars = Vec::with_capacity(self.num_scalars());
        self.encode_scalars_into(pos, repetitions, plies, &mut scalars);
        EncodedPosition { board, scalars }
    }

    /// Write the board codes into `out` (length `H*W`).
    pub fn encode_board_into(&self, pos: &Position, out: &mut [i64]) {
        let us = pos.side_to_move();
        out.iter_mut().for_each(|c| *c = 0);
        for c in [Color::Black, Color::White] {
            let base = if c == us { 1 } else { 1 + self.types as i64 };
            for &s in pos.pieces(c) {
                let t = (pos.cell(s) & 0x1fff) as i64;
                out[self.square_index(s, us) as usize] = base + t;
            }
        }
    }

    /// Append the scalar features to `out`.
    pub fn encode_scalars_into(
        &self,
        pos: &Position,
        repetitions: u32,
        plies: u32,
        out: &mut Vec<f32>,
    ) {
        let us = pos.side_to_move();
        for c in [us, us.flip()] {
            for h in 0..self.hand_kinds {
                out.push(pos.hand(c, h) as f32 / 4.0);
            }
        }
        out.push(if us == Color::White { 1.0 } else { 0.0 });
        out.push(if pos.lion_capture_square().is_some() { 1.0 } else { 0.0 });
        out.push(repetitions.min(3) as f32 / 3.0);
        out.push((plies as f32 / 512.0).min(2.0));
    }

    /// Encode a move of `pos`.
    #[inline]
    pub fn encode_move(&self, pos: &Position, m: Move) -> EncodedMove {
        let us = pos.side_to_move();
        let none = self.squares() as i64;
        if m.is_drop() {
            let h = self.variant.types[m.drop_type() as usize].hand.unwrap_or(0) as i64;
            return EncodedMove {
                from: none + 1 + h,
                to: self.square_index(m.to, us),
                mid1: none,
                mid2: none,
                promote: 0,
            };
        }
        let mid = |s: u16| if s == 0 { none } else { self.square_index(s, us) };
        EncodedMove {
            from: self.square_index(m.from, us),
            to: self.square_index(m.to, us),
            mid1: mid(m.mid[0]),
            mid2: mid(m.mid[1]),
            promote: m.promotes() as i64,
        }
    }

    /// Left-right mirror of a slot index (the "none" and hand slots map to themselves).
    #[inline]
    pub fn mirror_index(&self, i: i64) -> i64 {
        let n = self.squares() as i64;
        if i >= n {
            return i;
        }
        let (y, x) = (i / self.width as i64, i % self.width as i64);
        y * self.width as i64 + (self.width as i64 - 1 - x)
    }
}

/// Is the variant left-right symmetric (every piece's moves)?
fn mirror_symmetric(v: &Arc<Variant>) -> bool {
    use shogilab_engine::betza::{parse, Atom};
    let mirror = |a: &Atom| -> Atom {
        let m = |(x, y): (i8, i8)| (-x, y);
        match a.clone() {
            Atom::Leap { v, mode } => Atom::Leap { v: m(v), mode },
            Atom::Ride { v, min, max, mode } => Atom::Ride { v: m(v), min, max, mode },
            Atom::LionLine { v, len } => Atom::LionLine { v: m(v), len },
            Atom::DblCap { v, second } => {
                Atom::DblCap { v: m(v), second: second.into_iter().map(m).collect() }
            }
            Atom::RangeJump { v } => Atom::RangeJump { v: m(v) },
            Atom::Hook { v } => Atom::Hook { v: m(v) },
            Atom::Igui { v } => Atom::Igui { v: m(v) },
            other => other,
        }
    };
    for p in &v.spec.pieces {
        let Ok(atoms) = parse(&p.moves) else { return false };
        for a in &atoms {
            let ma = mirror(a);
            if !atoms.iter().any(|b| *b == ma || matches!((&ma, b), (Atom::DblCap { v: x, .. }, Atom::DblCap { v: y, .. }) if x == y)) {
                return false;
            }
        }
    }
    // The start position need not be symmetric: a mirrored position has the mirrored value
    // whenever every piece moves symmetrically.
    true
}
