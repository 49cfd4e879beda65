//! The engine of the imbalance games: the crate's alpha-beta core ([`crate::search`]) at a
//! fixed depth plus a captures-only quiescence search, material evaluation from
//! [`PieceValues::mobility`] (never a published table) plus a bonus per rank advanced, a random
//! jitter of the root scores (so that equal moves are chosen at random) and a penalty for moves
//! that repeat an earlier position (so that the games go somewhere).
//!
//! Every logged game must replay move for move with the engine of its id, so a change here or
//! in the core that alters a single move needs a new engine id (the imbalance settings'
//! `engine_id`).

use crate::search::{
    AlphaBeta, Evaluation, Jitter, NodeLimits, QuiescenceMoves, RootRules, SearchOptions,
};
use rand::rngs::SmallRng;
use shogilab_engine::variant::TYPE_MASK;
use shogilab_engine::{Color, Game, Move, Position, Variant};
use shogilab_selfplay::PieceValues;
use std::collections::HashSet;
use std::sync::Arc;

/// The engine part of the imbalance games' settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineSettings {
    /// Full-width search depth (plies) before the quiescence search.
    pub depth: u32,
    /// Nodes per move (or per root move, with `root_budget`) before the search falls back to
    /// the static evaluation.
    pub node_budget: u64,
    /// Each root move gets its own `node_budget`, and the root searches with a window (a move
    /// that cannot beat the best so far even with the most favourable jitter is only bounded;
    /// the move chosen is the same). Off, one budget is shared by all the root moves.
    pub root_budget: bool,
    /// Evaluation bonus (centipawns) per rank a non-royal piece stands from its own back rank.
    pub advance_cp: i32,
}

/// Material (centipawns from [`PieceValues::mobility`]) plus the advance bonus; moves keyed by
/// the value they capture (a royal counts as a mate score) plus their promotion gain.
pub struct ImbalanceEval {
    cp: Vec<i32>,
    royal: Vec<bool>,
    /// Per colour and padded square: the advance bonus of a non-royal piece there (centipawns
    /// per rank from the colour's back rank).
    adv: [Vec<i32>; 2],
}

impl ImbalanceEval {
    pub fn new(v: &Arc<Variant>, advance_cp: i32) -> ImbalanceEval {
        let values = PieceValues::mobility(Arc::clone(v));
        ImbalanceEval {
            cp: values.per_type.iter().map(|x| (x * 100.0).round() as i32).collect(),
            royal: v.types.iter().map(|t| t.royal).collect(),
            adv: [Color::Black, Color::White].map(|c| {
                let mut t = vec![0; v.size];
                for &sq in &v.squares {
                    // y counts from rank a (White's back rank)
                    let y = v.xy(sq).1;
                    let ranks = if c == Color::Black { v.ranks as i16 - 1 - y } else { y };
                    t[sq as usize] = advance_cp * ranks as i32;
                }
                t
            }),
        }
    }
}

impl Evaluation for ImbalanceEval {
    type Key = i32;

    fn eval(&self, pos: &Position) -> i32 {
        let us = pos.side_to_move();
        let v = pos.variant();
        let mut s = 0;
        for (c, sign) in [(us, 1), (us.flip(), -1)] {
            let adv = &self.adv[c.idx()];
            for &sq in pos.pieces(c) {
                let t = (pos.cell(sq) & TYPE_MASK) as usize;
                s += sign * self.cp[t];
                if !self.royal[t] {
                    s += sign * adv[sq as usize];
                }
            }
            for (h, &t) in v.hand_types.iter().enumerate() {
                s += sign * pos.hand(c, h) as i32 * self.cp[t as usize];
            }
        }
        s
    }

    fn key(&self, pos: &Position, m: Move) -> i32 {
        if m.is_drop() {
            return 0;
        }
        let us = pos.side_to_move();
        let mut g = 0;
        for s in m.mids().chain((m.to != m.from).then_some(m.to)) {
            let c = pos.cell(s);
            if c != 0 && (c & us.bit()) == 0 {
                let t = (c & TYPE_MASK) as usize;
                g += if self.royal[t] { 100_000 } else { self.cp[t].max(1) };
            }
        }
        let mut promo = 0;
        if m.promotes() {
            let t = (pos.cell(m.from) & TYPE_MASK) as usize;
            if let Some(p) = pos.variant().types[t].promotes_to {
                promo = self.cp[p as usize] - self.cp[t];
            }
        }
        g + promo.max(0)
    }
}

/// The alpha-beta engine of the imbalance games.
pub struct Searcher {
    search: AlphaBeta<ImbalanceEval>,
    budget: u64,
}

impl Searcher {
    pub fn new(v: &Arc<Variant>, settings: impl Into<EngineSettings>) -> Searcher {
        let s: EngineSettings = settings.into();
        let opts = SearchOptions {
            depth: s.depth,
            max_ply: 64,
            quiescence: Some(QuiescenceMoves::Captures),
            iterative: false,
            root_window: s.root_budget,
            budget_per_root_move: s.root_budget,
        };
        Searcher {
            search: AlphaBeta::new(ImbalanceEval::new(v, s.advance_cp), opts),
            budget: s.node_budget,
        }
    }

    /// Pick a move: every legal move searched (with a full window, or with the root window of
    /// [`EngineSettings::root_budget`]), plus jitter, minus the repeat penalty for moves to a
    /// position in `seen`. `None` when the game has no legal move.
    pub fn choose(
        &mut self,
        game: &Game,
        seen: &HashSet<u64>,
        noise: i32,
        repeat_penalty: i32,
        rng: &mut SmallRng,
    ) -> Option<Move> {
        let limits = NodeLimits { soft: self.budget, ..NodeLimits::default() };
        let mut rules = RootRules {
            seen: Some((seen, repeat_penalty)),
            jitter: Some(Jitter { noise, rng }),
            ..RootRules::default()
        };
        self.search.search(game, limits, &mut rules).map(|(m, _)| m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn the_root_window_picks_the_move_of_the_full_search() {
        // with a budget that never runs out, the shared-budget engine searches every root move
        // fully; the per-root-move engine's window must not change the move it picks, nor the
        // jitter draws
        for (name, depth, plies) in [("shogi", 2, 24), ("chu", 1, 40)] {
            let v = Variant::builtin(name).unwrap();
            let full =
                EngineSettings { depth, node_budget: u64::MAX, root_budget: false, advance_cp: 3 };
            let windowed = EngineSettings { root_budget: true, ..full };
            let (mut a, mut b) = (Searcher::new(&v, full), Searcher::new(&v, windowed));
            let mut game = Game::new(Position::start(&v));
            let mut pick = SmallRng::seed_from_u64(7);
            let seen = HashSet::new();
            let mut compared = 0;
            for ply in 0..plies {
                if game.status().is_over() {
                    break;
                }
                let (mut ra, mut rb) = (SmallRng::seed_from_u64(ply), SmallRng::seed_from_u64(ply));
                let ma = a.choose(&game, &seen, 30, 500, &mut ra);
                let mb = b.choose(&game, &seen, 30, 500, &mut rb);
                assert_eq!(ma, mb, "{name} ply {ply}");
                assert_eq!(ra.gen::<u64>(), rb.gen::<u64>());
                compared += 1;
                // walk on by a random legal move, so the positions are not the engine's own line
                let legal = game.legal().to_vec();
                game.play(legal[pick.gen_range(0..legal.len())]);
            }
            assert!(compared >= 10, "{name}: {compared}");
        }
    }
}
