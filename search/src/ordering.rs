//! Move ordering and exchange evaluation: what a capture wins (most valuable victim, least
//! valuable attacker), a static exchange estimate, killer moves and the history table.
//!
//! The exchange estimate looks two plies deep: a capture wins what it takes, less the capturing
//! piece when the opponent can take it back on its square (from the position with the mover's
//! squares empty, so sliders behind it count). It does not play out longer exchanges.

use crate::evaluator::Psq;
use shogilab_engine::cell::{cell_color, cell_type, EMPTY};
use shogilab_engine::{Move, Position};

/// Most plies a search goes below its root.
pub const MAX_PLY: usize = 128;

/// Sort keys of the move classes, highest first.
pub const KEY_TABLE_MOVE: i32 = 1 << 30;
pub const KEY_GOOD_CAPTURE: i32 = 1 << 28;
pub const KEY_PROMOTION: i32 = 1 << 27;
pub const KEY_KILLER: i32 = 1 << 26;
pub const KEY_BAD_CAPTURE: i32 = -(1 << 26);

/// The type a move moves (drops: the dropped type).
#[inline]
pub fn mover_type(pos: &Position, m: Move) -> u16 {
    if m.is_drop() {
        m.drop_type()
    } else {
        cell_type(pos.cell(m.from))
    }
}

/// What a move takes, in the evaluator's values: the enemy pieces on its stops (burns aside).
#[inline]
pub fn victims(psq: &Psq, pos: &Position, m: Move) -> i32 {
    if m.is_drop() {
        return 0;
    }
    let us = pos.side_to_move();
    let mut v = 0;
    for s in m.mids().chain((m.to != m.from).then_some(m.to)) {
        let c = pos.cell(s);
        if c != EMPTY && cell_color(c) != us {
            v += psq.value(cell_type(c));
        }
    }
    v
}

/// What the move's promotion adds (0 without one).
#[inline]
pub fn promotion_gain(psq: &Psq, pos: &Position, m: Move) -> i32 {
    if !m.promotes() {
        return 0;
    }
    let t = mover_type(pos, m);
    match pos.variant().types[t as usize].promotes_to {
        Some(p) => psq.value(p) - psq.value(t),
        None => 0,
    }
}

/// Whether the capture `m` keeps at least `threshold` centipawns after the opponent's best
/// recapture on its square (see the module's note on depth).
pub fn see_at_least(psq: &Psq, pos: &Position, m: Move, threshold: i32) -> bool {
    let gain = victims(psq, pos, m) + promotion_gain(psq, pos, m);
    if gain < threshold {
        return false;
    }
    let mover = psq.value(if m.is_drop() { m.drop_type() } else { promoted_type(pos, m) });
    if gain - mover >= threshold {
        return true;
    }
    let them = pos.side_to_move().flip();
    let mut ov = pos.without_universal(them);
    ov.empty = [if m.is_drop() { 0 } else { m.from }, m.mid[0]];
    !pos.attacked_ov(m.to, them, &ov)
}

fn promoted_type(pos: &Position, m: Move) -> u16 {
    let t = cell_type(pos.cell(m.from));
    if m.promotes() {
        pos.variant().types[t as usize].promotes_to.unwrap_or(t)
    } else {
        t
    }
}

/// Killer moves (quiet moves that refuted a sibling) and the history of quiet moves that cut
/// off, by colour, moving type and destination.
pub struct Heuristics {
    killers: Vec<[Move; 2]>,
    history: Vec<i32>,
    types: usize,
    squares: usize,
}

/// The history's bound: scores stay within ±this.
const HISTORY_MAX: i32 = 16_384;

impl Heuristics {
    pub fn new(types: usize, squares: usize) -> Heuristics {
        Heuristics {
            killers: vec![[Move::default(); 2]; MAX_PLY + 2],
            history: vec![0; 2 * types * squares],
            types,
            squares,
        }
    }

    /// Forget the history (a new game).
    pub fn clear(&mut self) {
        self.killers.fill([Move::default(); 2]);
        self.history.fill(0);
    }

    /// Age the history between searches and forget the killers.
    pub fn new_search(&mut self) {
        self.killers.fill([Move::default(); 2]);
        self.history.iter_mut().for_each(|h| *h /= 2);
    }

    #[inline]
    fn index(&self, pos: &Position, m: Move) -> usize {
        let c = pos.side_to_move().idx();
        let sq = pos.variant().index_of[m.to as usize] as usize;
        (c * self.types + mover_type(pos, m) as usize) * self.squares + sq
    }

    #[inline]
    pub fn killers(&self, ply: usize) -> [Move; 2] {
        self.killers[ply]
    }

    #[inline]
    pub fn history(&self, pos: &Position, m: Move) -> i32 {
        self.history[self.index(pos, m)]
    }

    /// A quiet move cut off at `depth`: it becomes a killer and gains history; the quiet
    /// moves tried before it lose history.
    pub fn reward(&mut self, pos: &Position, m: Move, ply: usize, depth: i32, tried: &[Move]) {
        let k = &mut self.killers[ply];
        if k[0] != m {
            k[1] = k[0];
            k[0] = m;
        }
        let bonus = (depth * depth).min(400) * 16;
        self.update(pos, m, bonus);
        for &q in tried {
            self.update(pos, q, -bonus);
        }
    }

    fn update(&mut self, pos: &Position, m: Move, bonus: i32) {
        let i = self.index(pos, m);
        let h = &mut self.history[i];
        // gravity: the bonus shrinks as the score nears the bound
        *h += bonus - *h * bonus.abs() / HISTORY_MAX;
    }
}

/// Late-move reductions, in plies, by depth and move number.
pub struct Reductions(Vec<[u8; 64]>);

impl Reductions {
    pub fn new() -> Reductions {
        Reductions(
            (0..64)
                .map(|d| {
                    let mut row = [0u8; 64];
                    for (i, r) in row.iter_mut().enumerate().skip(1) {
                        if d > 0 {
                            *r = (0.5 + (d as f64).ln() * (i as f64).ln() / 2.25) as u8;
                        }
                    }
                    row
                })
                .collect(),
        )
    }

    #[inline]
    pub fn of(&self, depth: i32, number: usize) -> i32 {
        self.0[depth.clamp(0, 63) as usize][number.min(63)] as i32
    }
}

impl Default for Reductions {
    fn default() -> Self {
        Reductions::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shogilab_engine::Variant;
    use std::sync::Arc;

    /// Black's rook on 5h can take a white pawn on 5f that a white gold on 5e defends.
    const DEFENDED_PAWN: &str = "lnsgkgsnl/9/pppp1pppp/9/4g4/4p4/PPPP1PPPP/4R4/LNSGKGSNL b - 1";

    fn shogi_psq() -> (Arc<Variant>, Psq) {
        let v = Variant::builtin("shogi").unwrap();
        let values: Vec<f32> = v
            .types
            .iter()
            .map(|t| match t.name.as_str() {
                "pawn" => 1.0,
                "rook" => 10.0,
                "gold general" => 6.0,
                "king" => 100.0,
                _ => 5.0,
            })
            .collect();
        (Arc::clone(&v), Psq::from_values(v, &values, 600.0))
    }

    #[test]
    fn a_rook_taking_a_defended_pawn_loses_the_exchange() {
        let (v, psq) = shogi_psq();
        let pos = Position::from_sfen(&v, DEFENDED_PAWN).unwrap();
        let m = pos.parse_usi("5h5f").unwrap();
        assert_eq!(victims(&psq, &pos, m), 100);
        assert!(see_at_least(&psq, &pos, m, 0 - 10_000));
        assert!(!see_at_least(&psq, &pos, m, 0), "the gold takes the rook back");
    }

    #[test]
    fn the_history_rewards_a_cut_and_punishes_the_moves_before_it() {
        let (v, _) = shogi_psq();
        let pos = Position::start(&v);
        let mut h = Heuristics::new(v.types.len(), v.squares.len());
        let good = pos.parse_usi("7g7f").unwrap();
        let bad = pos.parse_usi("2g2f").unwrap();
        h.reward(&pos, good, 3, 4, &[bad]);
        assert!(h.history(&pos, good) > 0 && h.history(&pos, bad) < 0);
        assert_eq!(h.killers(3)[0], good);
        for _ in 0..1000 {
            h.reward(&pos, good, 3, 20, &[]);
        }
        assert!(h.history(&pos, good) <= HISTORY_MAX);
    }

    #[test]
    fn reductions_grow_with_depth_and_move_number() {
        let r = Reductions::new();
        assert_eq!(r.of(1, 1), 0);
        assert!(r.of(10, 30) > r.of(3, 4));
        assert!(r.of(63, 63) >= r.of(20, 20));
    }
}
