//! The engine's evaluator: a learned piece-square table run as integer arithmetic, updated
//! incrementally as moves are made and unmade.
//!
//! Feature set `psq-v1`: one weight per (piece type, square seen from the piece's owner) and one
//! per piece type in hand, plus a bonus for the side to move. Both colours share the weights:
//! White's pieces are looked up on the board turned half a turn, so the table is learnt from
//! both sides' positions. The score is linear in the features, so the accumulator is one
//! integer (Black's view) and a move changes it by the pieces it moves, removes and promotes:
//! [`Psq::delta`] reads exactly that from the move's undo record.
//!
//! Files: [`mod@file`] (the format, with the variant, the feature set and a checksum).

pub mod file;

use shogilab_engine::cell::{cell_color, cell_type, Cell};
use shogilab_engine::position::Undo;
use shogilab_engine::{Color, Position, Variant};
use std::sync::Arc;

/// The name of the feature set this module computes.
pub const FEATURE_SET: &str = "psq-v1";

/// A piece-square evaluator of one variant. Weights are centipawns.
#[derive(Debug, Clone)]
pub struct Psq {
    variant: Arc<Variant>,
    squares: usize,
    /// `board[type * squares + relative square]`.
    board: Vec<i32>,
    /// Per hand index: the value of one piece in hand.
    hand: Vec<i32>,
    /// Added for the side to move.
    tempo: i32,
    /// Centipawns per logit of the winning chance (`P(win) = 1 / (1 + exp(-score / scale))`).
    scale: f32,
    /// Per type: the mean board weight (the value that captures are ordered and pruned by).
    values: Vec<i32>,
}

/// Why weights do not fit a variant.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ShapeError {
    #[error("{what}: {found} weights, the variant {variant} needs {expected}")]
    Length { what: &'static str, found: usize, expected: usize, variant: String },
}

impl Psq {
    /// An evaluator from its weights: `board` per type and relative square (the variant's
    /// square order), `hand` per hand index.
    pub fn new(
        variant: Arc<Variant>,
        board: Vec<i32>,
        hand: Vec<i32>,
        tempo: i32,
        scale: f32,
    ) -> Result<Psq, ShapeError> {
        let squares = variant.squares.len();
        let expect = |what, found: usize, expected: usize| {
            if found == expected {
                Ok(())
            } else {
                Err(ShapeError::Length { what, found, expected, variant: variant.name.clone() })
            }
        };
        expect("board", board.len(), variant.types.len() * squares)?;
        expect("hand", hand.len(), variant.hand_types.len())?;
        let values = board
            .chunks(squares)
            .map(|w| (w.iter().map(|&x| x as i64).sum::<i64>() / squares as i64) as i32)
            .collect();
        Ok(Psq { variant, squares, board, hand, tempo, scale, values })
    }

    /// Material only: every square of a type weighs its value, a piece in hand the value of its
    /// kind (`values` in pawns per type; a pawn is 100).
    pub fn from_values(variant: Arc<Variant>, values: &[f32], scale: f32) -> Psq {
        let squares = variant.squares.len();
        let cp = |v: f32| (v * 100.0).round() as i32;
        let board = values.iter().flat_map(|&v| std::iter::repeat_n(cp(v), squares)).collect();
        let hand = variant.hand_types.iter().map(|&t| cp(values[t as usize])).collect();
        Psq::new(variant, board, hand, 0, scale).expect("shapes built from the variant")
    }

    pub fn variant(&self) -> &Arc<Variant> {
        &self.variant
    }
    pub fn board_weights(&self) -> &[i32] {
        &self.board
    }
    pub fn hand_weights(&self) -> &[i32] {
        &self.hand
    }
    pub fn tempo(&self) -> i32 {
        self.tempo
    }
    pub fn scale(&self) -> f32 {
        self.scale
    }

    /// The mean board weight of a type (centipawns).
    #[inline]
    pub fn value(&self, t: u16) -> i32 {
        self.values[t as usize]
    }

    /// The square index a colour's piece on padded square `sq` is looked up at.
    #[inline]
    pub fn relative(&self, c: Color, sq: u16) -> usize {
        let i = self.variant.index_of[sq as usize] as usize;
        match c {
            Color::Black => i,
            Color::White => self.squares - 1 - i,
        }
    }

    /// What a piece adds to Black's score.
    #[inline]
    fn piece(&self, cell: Cell, sq: u16) -> i32 {
        let c = cell_color(cell);
        let w = self.board[cell_type(cell) as usize * self.squares + self.relative(c, sq)];
        sign(c) * w
    }

    /// Black's score of a position, from scratch.
    pub fn full(&self, pos: &Position) -> i32 {
        let mut s = 0;
        for c in [Color::Black, Color::White] {
            for &sq in pos.pieces(c) {
                s += self.piece(pos.cell(sq), sq);
            }
            for (h, &w) in self.hand.iter().enumerate() {
                s += sign(c) * w * pos.hand(c, h) as i32;
            }
        }
        s
    }

    /// How Black's score changed by the move of `u`, with `pos` the position after it.
    #[inline]
    pub fn delta(&self, pos: &Position, u: &Undo) -> i32 {
        let m = u.mv;
        let us = cell_color(u.moved);
        let v = &self.variant;
        if m.is_drop() {
            let h = v.types[m.drop_type() as usize].hand.unwrap_or(0) as usize;
            return self.piece(u.moved, m.to) - sign(us) * self.hand[h];
        }
        let mut d = -self.piece(u.moved, m.from);
        if !u.suicide {
            d += self.piece(pos.cell(m.to), m.to);
        }
        for (s, c) in u.removed() {
            if cell_color(c) == us {
                continue; // the mover itself, burnt: already taken off at its start
            }
            d -= self.piece(c, s);
            let kind = v.types[cell_type(c) as usize].demoted;
            if let Some(h) = v.types[kind as usize].hand {
                d += sign(us) * self.hand[h as usize];
            }
        }
        d
    }

    /// The score for the side to move, from Black's score.
    #[inline]
    pub fn for_side(&self, black: i32, side: Color) -> i32 {
        sign(side) * black + self.tempo
    }
}

#[inline]
fn sign(c: Color) -> i32 {
    match c {
        Color::Black => 1,
        Color::White => -1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    use shogilab_engine::MoveList;

    /// Weights that differ by type and square, so a wrong square or colour shows.
    fn scrambled(v: &Arc<Variant>, seed: u64) -> Psq {
        let mut rng = SmallRng::seed_from_u64(seed);
        let board =
            (0..v.types.len() * v.squares.len()).map(|_| rng.gen_range(-500..500)).collect();
        let hand = (0..v.hand_types.len()).map(|_| rng.gen_range(0..900)).collect();
        Psq::new(Arc::clone(v), board, hand, 7, 600.0).unwrap()
    }

    /// The incremental score equals the full one after every move of random games, and after
    /// every unmade move (the accumulator is restored from the stack, so only play counts).
    #[test]
    fn the_incremental_score_equals_the_full_score_in_every_variant() {
        for name in ["shogi", "chu", "tenjiku", "tai"] {
            let v = Variant::builtin(name).unwrap();
            let psq = scrambled(&v, 3);
            let mut rng = SmallRng::seed_from_u64(11);
            for _ in 0..3 {
                let mut pos = Position::start(&v);
                let mut acc = psq.full(&pos);
                let mut list = MoveList::new();
                for ply in 0..300 {
                    list.clear();
                    pos.legal_moves(&mut list);
                    if list.is_empty() || pos.royal_count(pos.side_to_move()) == 0 {
                        break;
                    }
                    // captures more often than chance, so that captures, burns and promotions occur
                    let caps: Vec<_> = list
                        .iter()
                        .copied()
                        .filter(|m| !m.is_drop() && pos.cell(m.to) != 0)
                        .collect();
                    let m = if !caps.is_empty() && rng.gen_bool(0.5) {
                        caps[rng.gen_range(0..caps.len())]
                    } else {
                        list[rng.gen_range(0..list.len())]
                    };
                    let u = pos.play(m);
                    acc += psq.delta(&pos, &u);
                    assert_eq!(acc, psq.full(&pos), "{name} ply {ply}: {}", pos.to_sfen());
                }
            }
        }
    }

    #[test]
    fn the_score_is_symmetric_between_the_colours() {
        let v = Variant::builtin("chu").unwrap();
        let psq = scrambled(&v, 5);
        let pos = Position::start(&v);
        // the start is symmetric: both sides score the same, so Black's view is zero
        assert_eq!(psq.full(&pos), 0);
        assert_eq!(psq.for_side(0, Color::White), psq.tempo());
    }

    #[test]
    fn weights_of_the_wrong_shape_are_refused() {
        let v = Variant::builtin("shogi").unwrap();
        let err =
            Psq::new(Arc::clone(&v), vec![0; 3], vec![0; v.hand_types.len()], 0, 1.0).unwrap_err();
        assert!(err.to_string().contains("board: 3 weights"), "{err}");
    }
}
