//! Leaf values corrected by a capture search: an [`Evaluator`] around another (a network) whose
//! value of each position moves by what the captures-only quiescence search finds there.
//!
//! A network judges a position as it stands; a leaf of the MCTS is often not quiet (a piece
//! hangs, an exchange is under way), and a small network misjudges such positions more than
//! quiet ones. The correction is the value of the material the capture sequence wins:
//! `v = clamp(v_net + squash(q, k) - squash(s, k), -1, 1)`, with `s` the static material score
//! of the position and `q` its quiescence score (the `alphabeta` agent's material and capture
//! search, in centipawns), both turned into values by the same logistic scale `k` that turns
//! the teacher's search scores into value targets ([`squash`]). A quiet position keeps the
//! network's value; the policy is the network's.

use crate::alphabeta::Material;
use crate::search::{AlphaBeta, Evaluation, QuiescenceMoves, SearchOptions, MATE};
use shogilab_engine::Variant;
use shogilab_selfplay::{EvalOutput, EvalRequest, Evaluator, PieceValues};
use std::sync::{Arc, Mutex};

/// Scores at or beyond this are won or lost positions (the search's mate scores).
pub const DECIDED: i32 = MATE;
/// Nodes of one leaf's capture search at most (beyond: the static score, no correction).
pub const LEAF_NODES: u64 = 4_000;

/// The value of a search score (centipawns, side to move) under the logistic scale `k`:
/// `tanh(score / (2 k))`, i.e. `2 P(win) - 1` for `P(win) = 1 / (1 + exp(-score / k))`.
pub fn squash(score: i32, k: f64) -> f32 {
    if score.abs() >= DECIDED {
        return score.signum() as f32;
    }
    (score as f64 / (2.0 * k)).tanh() as f32
}

/// An evaluator whose values carry the leaf's capture search ([module docs](self)).
pub struct QuiescenceCorrected {
    inner: Arc<dyn Evaluator>,
    scale: f64,
    search: Mutex<AlphaBeta<Material>>,
}

impl QuiescenceCorrected {
    /// `inner`'s policy and values, the values corrected at scale `scale` (centipawns).
    pub fn new(inner: Arc<dyn Evaluator>, variant: &Arc<Variant>, scale: f64) -> Self {
        let opts = SearchOptions {
            depth: 1,
            max_ply: 1,
            quiescence: Some(QuiescenceMoves::PositiveKey),
            iterative: false,
            root_window: false,
            budget_per_root_move: false,
        };
        let material = Material(PieceValues::mobility(Arc::clone(variant)));
        QuiescenceCorrected { inner, scale, search: Mutex::new(AlphaBeta::new(material, opts)) }
    }

    /// What the captures change in the position's value: `squash(q) - squash(s)`.
    fn correction(&self, search: &mut AlphaBeta<Material>, r: &EvalRequest<'_>) -> f32 {
        let mut pos = r.pos.clone();
        let stand = search.evaluation().eval(&pos);
        let q = search.quiescence(&mut pos, LEAF_NODES);
        squash(q, self.scale) - squash(stand, self.scale)
    }
}

/// `o`'s win/draw/loss moved to the value `v` (the draw probability kept where it fits).
fn with_value(o: &mut EvalOutput, v: f32) {
    let v = v.clamp(-1.0, 1.0);
    let draw = o.wdl[1].min(1.0 - v.abs());
    o.wdl = [(1.0 - draw + v) / 2.0, draw, (1.0 - draw - v) / 2.0];
}

impl Evaluator for QuiescenceCorrected {
    fn id(&self) -> String {
        format!("{}+q{}", self.inner.id(), self.scale)
    }

    fn evaluate(&self, batch: &[EvalRequest<'_>], out: &mut Vec<EvalOutput>) {
        self.inner.evaluate(batch, out);
        let mut search = self.search.lock().unwrap_or_else(|e| e.into_inner());
        for (r, o) in batch.iter().zip(out.iter_mut()) {
            let c = self.correction(&mut search, r);
            if c != 0.0 {
                with_value(o, o.value() + c);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shogilab_engine::{MoveList, Position};
    use shogilab_selfplay::Uniform;

    /// Shogi start with a white rook left on 5f, where Black's 5g pawn takes it for nothing.
    const FREE_ROOK: &str = "lnsgkgsnl/7b1/ppppppppp/9/9/4r4/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";

    fn value_of(ev: &dyn Evaluator, pos: &Position) -> f32 {
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        let req = EvalRequest { pos, moves: &moves, repetitions: 0, plies: 0 };
        let mut out = Vec::new();
        ev.evaluate(&[req], &mut out);
        assert!((out[0].wdl.iter().sum::<f32>() - 1.0).abs() < 1e-5, "{:?}", out[0].wdl);
        out[0].value()
    }

    #[test]
    fn a_hanging_piece_moves_the_value_and_a_quiet_position_keeps_it() {
        let v = Variant::builtin("shogi").expect("built-in variant");
        let ev = QuiescenceCorrected::new(Arc::new(Uniform), &v, 300.0);
        let start = Position::start(&v);
        assert_eq!(value_of(&ev, &start), 0.0, "nothing to take at the start");
        let free = Position::from_sfen(&v, FREE_ROOK).expect("valid sfen");
        let gained = value_of(&ev, &free);
        assert!(gained > 0.3, "the side that takes the rook for nothing: {gained}");
        // at a larger scale the same capture moves the value less
        let wide = QuiescenceCorrected::new(Arc::new(Uniform), &v, 3000.0);
        let less = value_of(&wide, &free);
        assert!(0.0 < less && less < gained, "{less} against {gained}");
        assert_eq!(squash(DECIDED, 300.0), 1.0);
        assert!((squash(300, 150.0) - 1f32.tanh()).abs() < 1e-6);
    }
}
