//! The engine of the imbalance games: a small alpha-beta at a fixed depth plus a captures-only
//! quiescence search, material evaluation from [`PieceValues::mobility`] (never a published
//! table) plus a bonus per rank advanced, a random jitter of the root scores (so that equal
//! moves are chosen at random) and a penalty for moves that repeat an earlier position (so that
//! the games go somewhere). No allocation per node: move lists and sort buffers are reused.
//!
//! Every logged game must replay move for move with the engine of its id, so a change here that
//! alters a single move needs a new engine id ([`ImbalanceConfig::engine_id`]).

use super::imbalance::ImbalanceConfig;
use rand::rngs::SmallRng;
use rand::Rng;
use shogilab_engine::variant::TYPE_MASK;
use shogilab_engine::{Color, Game, Move, MoveList, Position, Variant};
use shogilab_selfplay::PieceValues;
use std::collections::HashSet;
use std::sync::Arc;

const MATE: i32 = 1_000_000;
const INF: i32 = 2_000_000;
const QDEPTH: u32 = 4;
const MAX_PLY: usize = 64;

/// The alpha-beta engine of the imbalance games.
pub struct Searcher {
    cp: Vec<i32>,
    royal: Vec<bool>,
    depth: u32,
    budget: u64,
    /// See [`ImbalanceConfig::root_budget`].
    root_budget: bool,
    /// Per colour and padded square: the advance bonus of a non-royal piece there (centipawns
    /// per rank from the colour's back rank).
    adv: [Vec<i32>; 2],
    nodes: u64,
    lists: Vec<MoveList>,
    /// Reused buffers of [`Searcher::gen`] (no allocation per node).
    keyed: Vec<(i32, i32, Move)>,
    scratch: MoveList,
}

impl Searcher {
    pub fn new(v: &Arc<Variant>, cfg: &ImbalanceConfig) -> Searcher {
        let advance_cp = cfg.advance_cp;
        let values = PieceValues::mobility(Arc::clone(v));
        let cp = values.per_type.iter().map(|x| (x * 100.0).round() as i32).collect();
        let royal = v.types.iter().map(|t| t.royal).collect();
        Searcher {
            cp,
            royal,
            depth: cfg.depth.max(1),
            budget: cfg.node_budget,
            root_budget: cfg.root_budget,
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
            nodes: 0,
            lists: (0..MAX_PLY + QDEPTH as usize + 2)
                .map(|_| MoveList::with_capacity(256))
                .collect(),
            keyed: Vec::with_capacity(256),
            scratch: MoveList::with_capacity(256),
        }
    }

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

    fn lost(pos: &Position) -> bool {
        !pos.variant().rules.check && pos.royal_count(pos.side_to_move()) == 0
    }

    /// Captured value of a move (royals count as a mate score) and its promotion gain.
    fn gain(&self, pos: &Position, m: Move) -> (i32, i32) {
        if m.is_drop() {
            return (0, 0);
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
        (g, promo.max(0))
    }

    /// The moves at `ply`, best gain first (a stable sort: ties keep the generation order).
    /// `captures_only`: the captures alone, and whether the side to move has any legal move
    /// (checked only when it has no capture). Returns whether it has a legal move.
    fn gen(&mut self, pos: &Position, ply: usize, captures_only: bool) -> bool {
        let mut list = std::mem::take(&mut self.lists[ply]);
        list.clear();
        let any = if captures_only {
            // exactly the moves with a positive gain, in generation order
            pos.legal_captures(&mut list);
            !list.is_empty() || pos.has_legal_move_in(&mut self.scratch)
        } else {
            pos.legal_moves(&mut list);
            !list.is_empty()
        };
        let mut keyed = std::mem::take(&mut self.keyed);
        keyed.clear();
        keyed.extend(list.iter().map(|&m| {
            let (g, p) = self.gain(pos, m);
            (g, p, m)
        }));
        keyed.sort_by_key(|k| std::cmp::Reverse(k.0 + k.1));
        list.clear();
        list.extend(keyed.iter().map(|k| k.2));
        self.keyed = keyed;
        self.lists[ply] = list;
        any
    }

    fn qsearch(
        &mut self,
        pos: &mut Position,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        q: u32,
    ) -> i32 {
        self.nodes += 1;
        if Self::lost(pos) {
            return -MATE + ply as i32;
        }
        let stand = self.eval(pos);
        if stand >= beta || q == 0 || ply >= self.lists.len() - 1 || self.nodes >= self.budget {
            return stand;
        }
        alpha = alpha.max(stand);
        if !self.gen(pos, ply, true) {
            return -MATE + ply as i32;
        }
        for i in 0..self.lists[ply].len() {
            let m = self.lists[ply][i];
            let u = pos.play(m);
            let s = -self.qsearch(pos, -beta, -alpha, ply + 1, q - 1);
            pos.unplay(&u);
            if s >= beta {
                return s;
            }
            alpha = alpha.max(s);
        }
        alpha
    }

    fn negamax(
        &mut self,
        pos: &mut Position,
        depth: u32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
        self.nodes += 1;
        if Self::lost(pos) {
            return -MATE + ply as i32;
        }
        if depth == 0 || ply >= MAX_PLY || self.nodes >= self.budget {
            return self.qsearch(pos, alpha, beta, ply, QDEPTH);
        }
        if !self.gen(pos, ply, false) {
            return -MATE + ply as i32;
        }
        let mut best = -INF;
        for i in 0..self.lists[ply].len() {
            let m = self.lists[ply][i];
            let u = pos.play(m);
            let s = -self.negamax(pos, depth - 1, -beta, -alpha, ply + 1);
            pos.unplay(&u);
            best = best.max(s);
            alpha = alpha.max(s);
            if alpha >= beta {
                break;
            }
        }
        best
    }

    /// Pick a move: every legal move searched (with a full window, or with the root window of
    /// [`ImbalanceConfig::root_budget`]), plus jitter, minus the repeat penalty for moves to a
    /// position in `seen`.
    pub fn choose(
        &mut self,
        game: &Game,
        seen: &HashSet<u64>,
        noise: i32,
        repeat_penalty: i32,
        rng: &mut SmallRng,
    ) -> Option<Move> {
        let legal: Vec<Move> = game.legal().to_vec();
        let mut pos = game.position().clone();
        self.nodes = 0;
        let mut best: Option<(i64, Move)> = None;
        for m in legal {
            // with a root window: a move that cannot beat the best so far, `b`, even with the
            // most favourable jitter (a repeat penalty only lowers it) is searched for a bound
            let alpha = match best {
                Some((b, _)) if self.root_budget => {
                    (b - noise as i64).clamp(-INF as i64, INF as i64) as i32
                }
                _ => -INF,
            };
            if self.root_budget {
                self.nodes = 0;
            }
            let u = pos.play(m);
            let mut s = -self.negamax(&mut pos, self.depth - 1, -INF, -alpha, 1) as i64;
            if seen.contains(&pos.hash()) {
                s -= repeat_penalty as i64;
            }
            pos.unplay(&u);
            if noise > 0 {
                s += rng.gen_range(-noise..=noise) as i64;
            }
            if best.is_none_or(|(b, _)| s > b) {
                best = Some((s, m));
            }
        }
        best.map(|(_, m)| m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn the_root_window_picks_the_move_of_the_full_search() {
        // with a budget that never runs out, the shared-budget engine searches every root move
        // fully; the per-root-move engine's window must not change the move it picks, nor the
        // jitter draws
        for (name, depth, plies) in [("shogi", 2, 24), ("chu", 1, 40)] {
            let v = Variant::builtin(name).unwrap();
            let full = ImbalanceConfig { depth, node_budget: u64::MAX, ..Default::default() };
            let windowed = ImbalanceConfig { root_budget: true, ..full.clone() };
            assert_ne!(full.engine_id(), windowed.engine_id());
            let (mut a, mut b) = (Searcher::new(&v, &full), Searcher::new(&v, &windowed));
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
