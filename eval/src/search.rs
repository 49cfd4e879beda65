//! The one alpha-beta core of the crate: negamax with alpha-beta pruning, an optional
//! captures-only quiescence search, moves ordered by an [`Evaluation`]'s key (a stable sort:
//! ties keep the generation order), node limits, and a root driver with optional iterative
//! deepening, root window, repeat penalty and root jitter. Two engines are configurations of it:
//! the `alphabeta` match agent ([`crate::alphabeta`]) and the imbalance engine of
//! `shogilab values` ([`crate::values::searcher`]).
//!
//! Game ends inside the tree: no legal move is a loss (checkmate and stalemate both lose in the
//! built-in variants), and in royal-capture variants (no check rule) a side without a royal has
//! lost. Repetition is only applied at the root (the game's legal moves, and the optional
//! repeat penalty). No allocation per node: move lists and sort buffers are reused.

use rand::rngs::SmallRng;
use rand::Rng;
use shogilab_engine::{Game, Move, MoveList, Position};
use std::cmp::Ordering;
use std::collections::HashSet;
use std::time::Instant;

/// Score of a side that has lost at the root (less the plies to the loss).
pub const MATE: i32 = 1_000_000;
/// Root scores beyond this (in absolute value) are decided games: a mate score less the plies.
pub const DECIDED_SCORE: i64 = (MATE - 1000) as i64;
/// Beyond every score.
pub const INF: i32 = 2_000_000;
/// Deepest quiescence extension (plies).
pub const QDEPTH: u32 = 4;

/// What an engine knows about positions: its static evaluation and its move ordering.
pub trait Evaluation {
    /// Ordering key of a move, highest first; positive for the moves that
    /// [`QuiescenceMoves::PositiveKey`] searches.
    type Key: PartialOrd + Copy + Default;
    /// Static score for the side to move (centipawns).
    fn eval(&self, pos: &Position) -> i32;
    /// Ordering key of the legal move `m` in `pos`.
    fn key(&self, pos: &Position, m: Move) -> Self::Key;
    /// Whether the capture `m` puts a piece worth more than what it takes (in this evaluation's
    /// values) on its square: a losing capture if the opponent can take it back
    /// ([`QuiescenceMoves::SafeCaptures`]). None by default.
    fn risks_more_than_it_takes(&self, _pos: &Position, _m: Move) -> bool {
        false
    }
}

/// The moves of the quiescence search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuiescenceMoves {
    /// The legal moves with a positive key; a side without one stands pat (even with no legal
    /// move at all).
    PositiveKey,
    /// [`Position::legal_captures`]; a side with no legal move at all has lost.
    Captures,
    /// [`QuiescenceMoves::Captures`] less the losing ones: a capture by a piece worth more than
    /// what it takes ([`Evaluation::risks_more_than_it_takes`]) onto a square that the opponent
    /// attacks is not searched. Tai's Emperor may take any piece anywhere, and a quiescence
    /// search that tries each of its captures of a protected piece at every node did not
    /// complete depth 1 of the root screen in 500 ms in a tai middle game.
    SafeCaptures,
}

/// How an engine searches (fixed for its lifetime).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchOptions {
    /// Full-width depth in plies (at least 1).
    pub depth: u32,
    /// Deepest ply of the full-width search.
    pub max_ply: usize,
    /// Quiescence search at the leaves; `None`: the static evaluation.
    pub quiescence: Option<QuiescenceMoves>,
    /// Iterative deepening from depth 1 over the root moves ordered by key, the best move of
    /// each iteration first in the next, stopping at a mate score; off: one iteration at
    /// `depth` over the root moves in generation order.
    pub iterative: bool,
    /// Root window: once a root move has a score, the next ones are searched with alpha at
    /// that score less the jitter's range, so a move that cannot beat it is only bounded (the
    /// move chosen is the same); off: every root move gets the full window.
    pub root_window: bool,
    /// The node count restarts at every root move (a budget per root move); off: one count
    /// for the whole search.
    pub budget_per_root_move: bool,
}

/// Node limits of one search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeLimits {
    /// Past this count the full-width search stops expanding and the quiescence search stands
    /// pat: the search goes on with the static evaluation.
    pub soft: u64,
    /// At this count the search is abandoned; the root keeps what completed iterations found.
    pub hard: u64,
    /// Like `hard`, a moment (checked every 1024 nodes).
    pub deadline: Option<Instant>,
}

impl Default for NodeLimits {
    fn default() -> Self {
        NodeLimits { soft: u64::MAX, hard: u64::MAX, deadline: None }
    }
}

/// Root jitter: a uniform draw in `-noise..=noise` added to every root score.
pub struct Jitter<'a> {
    pub noise: i32,
    pub rng: &'a mut SmallRng,
}

/// What the root adds to the searched scores.
#[derive(Default)]
pub struct RootRules<'a> {
    /// Positions that a root move should not repeat, and what repeating one costs.
    pub seen: Option<(&'a HashSet<u64>, i32)>,
    pub jitter: Option<Jitter<'a>>,
    /// With the root window: every root move scoring more than the best less this margin
    /// gets an exact score ([`AlphaBeta::root_scores`]); 0: only the best move's is exact.
    pub margin: i32,
    /// The root moves to search, if not all: the legal moves among these (in the order of the
    /// legal moves); empty: every legal move.
    pub only: &'a [Move],
}

impl RootRules<'_> {
    /// How far below the best score the root window opens.
    fn slack(&self) -> i64 {
        self.jitter.as_ref().map_or(0, |j| j.noise) as i64 + self.margin.max(0) as i64
    }

    fn penalty(&self, pos: &Position) -> i64 {
        match self.seen {
            Some((seen, penalty)) if seen.contains(&pos.hash()) => penalty as i64,
            _ => 0,
        }
    }

    fn draw(&mut self) -> i64 {
        match &mut self.jitter {
            Some(j) if j.noise > 0 => j.rng.gen_range(-j.noise..=j.noise) as i64,
            _ => 0,
        }
    }
}

/// A node of the tree: full width with that many plies left, or quiescence (captures only)
/// with that many plies left.
#[derive(Debug, Clone, Copy)]
enum Node {
    Full(u32),
    Quiet(u32, QuiescenceMoves),
}

/// A negamax alpha-beta engine over an [`Evaluation`].
pub struct AlphaBeta<E: Evaluation> {
    evaluation: E,
    opts: SearchOptions,
    limits: NodeLimits,
    nodes: u64,
    aborted: bool,
    lists: Vec<MoveList>,
    keyed: Vec<(E::Key, Move)>,
    scratch: MoveList,
    /// Every root move's score in the last completed iteration, and in the one under way.
    root_scores: Vec<(Move, i64)>,
    iteration_scores: Vec<(Move, i64)>,
    /// The depth of the last iteration completed (0: none).
    completed: u32,
}

impl<E: Evaluation> AlphaBeta<E> {
    pub fn new(evaluation: E, opts: SearchOptions) -> AlphaBeta<E> {
        let opts = SearchOptions { depth: opts.depth.max(1), ..opts };
        AlphaBeta {
            evaluation,
            lists: (0..opts.max_ply + QDEPTH as usize + 2)
                .map(|_| MoveList::with_capacity(256))
                .collect(),
            opts,
            limits: NodeLimits::default(),
            nodes: 0,
            aborted: false,
            keyed: Vec::with_capacity(256),
            scratch: MoveList::with_capacity(256),
            root_scores: Vec::new(),
            iteration_scores: Vec::new(),
            completed: 0,
        }
    }

    /// What the engine knows about positions.
    pub fn evaluation(&self) -> &E {
        &self.evaluation
    }

    /// The evaluation, to change its settings between searches.
    pub fn evaluation_mut(&mut self) -> &mut E {
        &mut self.evaluation
    }

    pub fn options(&self) -> &SearchOptions {
        &self.opts
    }

    /// Nodes searched by the last [`AlphaBeta::search`] (with a budget per root move: by its
    /// last root move).
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Each root move with its score in the last iteration that the last
    /// [`AlphaBeta::search`] completed (with the root rules' penalty and jitter), in search
    /// order; empty when none completed. With the root window, a score at or below the best
    /// less [`RootRules::margin`] (and the jitter's range) is an upper bound, the others exact.
    pub fn root_scores(&self) -> &[(Move, i64)] {
        &self.root_scores
    }

    /// The depth of the last iteration that the last [`AlphaBeta::search`] completed (0: none).
    pub fn depth_completed(&self) -> u32 {
        self.completed
    }

    /// The best root move and its score (with the root rules' penalty and jitter); `None` when
    /// the game has no legal move, or none of [`RootRules::only`].
    pub fn search(
        &mut self,
        game: &Game,
        limits: NodeLimits,
        rules: &mut RootRules,
    ) -> Option<(Move, i64)> {
        let mut order: MoveList = game.legal().to_vec();
        if !rules.only.is_empty() {
            order.retain(|m| rules.only.contains(m));
        }
        if order.is_empty() {
            return None;
        }
        self.nodes = 0;
        self.aborted = false;
        self.limits = limits;
        self.root_scores.clear();
        self.completed = 0;
        let mut pos = game.position().clone();
        let start = if self.opts.iterative {
            self.order(&pos, &mut order, false);
            1
        } else {
            self.opts.depth
        };
        let mut best = (order[0], -INF as i64);
        for depth in start..=self.opts.depth {
            if let Some(found) = self.root_iteration(&mut pos, &order, depth, rules) {
                if !self.aborted || found.1 > best.1 {
                    best = found;
                }
            }
            if self.aborted {
                break;
            }
            std::mem::swap(&mut self.root_scores, &mut self.iteration_scores);
            self.completed = depth;
            // principal move first in the next iteration
            if let Some(i) = order.iter().position(|&m| m == best.0) {
                let m = order.remove(i);
                order.insert(0, m);
            }
            if best.1.abs() > DECIDED_SCORE {
                break;
            }
        }
        Some(best)
    }

    /// The quiescence score of `pos` for the side to move (the static evaluation when the
    /// engine has no quiescence search, or when `max_nodes` runs out first); the position is
    /// left as it was.
    pub fn quiescence(&mut self, pos: &mut Position, max_nodes: u64) -> i32 {
        let Some(moves) = self.opts.quiescence else {
            return self.evaluation.eval(pos);
        };
        self.nodes = 0;
        self.aborted = false;
        self.limits = NodeLimits { hard: max_nodes, ..NodeLimits::default() };
        let s = self.node(pos, Node::Quiet(QDEPTH, moves), -INF, INF, 0);
        if self.aborted {
            return self.evaluation.eval(pos);
        }
        s
    }

    /// One pass over the root moves at `depth`: the best (move, score) of the moves completed.
    fn root_iteration(
        &mut self,
        pos: &mut Position,
        order: &[Move],
        depth: u32,
        rules: &mut RootRules,
    ) -> Option<(Move, i64)> {
        let mut best: Option<(Move, i64)> = None;
        self.iteration_scores.clear();
        for &m in order {
            // a move that cannot come within the margin of the best so far even with the most
            // favourable jitter (a repeat penalty only lowers it) is searched for a bound
            let alpha = match best {
                Some((_, b)) if self.opts.root_window => {
                    (b - rules.slack()).clamp(-INF as i64, INF as i64) as i32
                }
                _ => -INF,
            };
            if self.opts.budget_per_root_move {
                self.nodes = 0;
            }
            let u = pos.play(m);
            let mut s = -self.node(pos, Node::Full(depth - 1), -INF, -alpha, 1) as i64;
            s -= rules.penalty(pos);
            pos.unplay(&u);
            if self.aborted {
                break;
            }
            s += rules.draw();
            self.iteration_scores.push((m, s));
            if best.is_none_or(|(_, b)| s > b) {
                best = Some((m, s));
            }
        }
        best
    }

    /// Count a node; whether the search is abandoned.
    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes >= self.limits.hard {
            self.aborted = true;
        }
        if self.nodes & 1023 == 0 && self.limits.deadline.is_some_and(|d| Instant::now() >= d) {
            self.aborted = true;
        }
        self.aborted
    }

    /// Loss for the side to move without search (royal gone), if so.
    fn lost(pos: &Position) -> bool {
        !pos.variant().rules.check && pos.royal_count(pos.side_to_move()) == 0
    }

    /// Sort `list` by key, highest first (stable); `positive_only` drops the moves whose key
    /// is not positive.
    fn order(&mut self, pos: &Position, list: &mut MoveList, positive_only: bool) {
        let mut keyed = std::mem::take(&mut self.keyed);
        keyed.clear();
        keyed.extend(list.iter().map(|&m| (self.evaluation.key(pos, m), m)));
        if positive_only {
            keyed.retain(|(k, _)| *k > E::Key::default());
        }
        keyed.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(Ordering::Equal));
        list.clear();
        list.extend(keyed.iter().map(|k| k.1));
        self.keyed = keyed;
    }

    /// Fill `self.lists[ply]` with the ordered moves (all, or the quiescence moves); returns
    /// whether the side to move has a legal move (always true for
    /// [`QuiescenceMoves::PositiveKey`]).
    fn gen(&mut self, pos: &Position, ply: usize, quiescence: Option<QuiescenceMoves>) -> bool {
        let mut list = std::mem::take(&mut self.lists[ply]);
        list.clear();
        let any = match quiescence {
            None | Some(QuiescenceMoves::PositiveKey) => {
                pos.legal_moves(&mut list);
                quiescence.is_some() || !list.is_empty()
            }
            Some(QuiescenceMoves::Captures | QuiescenceMoves::SafeCaptures) => {
                pos.legal_captures(&mut list);
                !list.is_empty() || pos.has_legal_move_in(&mut self.scratch)
            }
        };
        self.order(pos, &mut list, quiescence == Some(QuiescenceMoves::PositiveKey));
        self.lists[ply] = list;
        any
    }

    /// Negamax score of `pos` for the side to move, within the window `alpha..beta`.
    fn node(
        &mut self,
        pos: &mut Position,
        kind: Node,
        mut alpha: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
        if self.tick() {
            return 0;
        }
        if Self::lost(pos) {
            return -MATE + ply as i32;
        }
        let exhausted = self.nodes >= self.limits.soft;
        // the children's kind, and the score to beat: none in the full-width search, the
        // stand-pat score in the quiescence search
        let (child, mut best) = match kind {
            Node::Full(depth) => {
                if depth == 0 || ply >= self.opts.max_ply || exhausted {
                    return match self.opts.quiescence {
                        Some(moves) => self.node(pos, Node::Quiet(QDEPTH, moves), alpha, beta, ply),
                        None => self.evaluation.eval(pos),
                    };
                }
                (Node::Full(depth - 1), -INF)
            }
            Node::Quiet(q, moves) => {
                let stand = self.evaluation.eval(pos);
                if stand >= beta || q == 0 || ply >= self.lists.len() - 1 || exhausted {
                    return stand;
                }
                alpha = alpha.max(stand);
                (Node::Quiet(q - 1, moves), alpha)
            }
        };
        let quiescence = match kind {
            Node::Full(_) => None,
            Node::Quiet(_, moves) => Some(moves),
        };
        if !self.gen(pos, ply, quiescence) {
            return -MATE + ply as i32;
        }
        let safe_only = quiescence == Some(QuiescenceMoves::SafeCaptures);
        for i in 0..self.lists[ply].len() {
            let m = self.lists[ply][i];
            let risky = safe_only && self.evaluation.risks_more_than_it_takes(pos, m);
            let u = pos.play(m);
            if risky && pos.attacked_by(m.to, pos.side_to_move()) {
                pos.unplay(&u);
                continue;
            }
            let s = -self.node(pos, child, -beta, -alpha, ply + 1);
            pos.unplay(&u);
            if self.aborted {
                return 0;
            }
            best = best.max(s);
            alpha = alpha.max(s);
            if alpha >= beta {
                break;
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alphabeta::Material;
    use shogilab_engine::Variant;
    use shogilab_selfplay::PieceValues;
    use std::collections::HashMap;
    use std::sync::Arc;

    /// Shogi start with a white rook left on 5f, where Black's 5g pawn takes it for nothing.
    const FREE_ROOK: &str = "lnsgkgsnl/7b1/ppppppppp/9/9/4r4/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";

    fn engine(opts: SearchOptions) -> (AlphaBeta<Material>, Game) {
        let v = Variant::builtin("shogi").unwrap();
        let pos = Position::from_sfen(&v, FREE_ROOK).unwrap();
        (AlphaBeta::new(Material(PieceValues::mobility(Arc::clone(&v))), opts), Game::new(pos))
    }

    fn options(depth: u32, iterative: bool, per_move: bool) -> SearchOptions {
        SearchOptions {
            depth,
            max_ply: 64,
            quiescence: Some(QuiescenceMoves::Captures),
            iterative,
            root_window: per_move,
            budget_per_root_move: per_move,
        }
    }

    /// Black's rook on 5h can take a white pawn on 5f that a white gold on 5e defends.
    const DEFENDED_PAWN: &str = "lnsgkgsnl/9/pppp1pppp/9/4g4/4p4/PPPP1PPPP/4R4/LNSGKGSNL b - 1";

    #[test]
    fn safe_captures_leave_out_a_rook_taking_a_defended_pawn() {
        let v = Variant::builtin("shogi").unwrap();
        let pos = Position::from_sfen(&v, DEFENDED_PAWN).unwrap();
        let mut found = Vec::new();
        for moves in [QuiescenceMoves::Captures, QuiescenceMoves::SafeCaptures] {
            let opts = SearchOptions { quiescence: Some(moves), ..options(1, false, false) };
            let mut e = AlphaBeta::new(Material(PieceValues::mobility(Arc::clone(&v))), opts);
            let score = e.quiescence(&mut pos.clone(), u64::MAX);
            found.push((score, e.nodes()));
        }
        // the same score (taking the pawn loses the rook), from fewer nodes
        assert_eq!(found[0].0, found[1].0, "{found:?}");
        assert!(found[1].1 < found[0].1, "{found:?}");
    }

    #[test]
    fn every_configuration_takes_a_free_rook() {
        for (depth, iterative, per_move) in [(1, true, false), (2, true, false), (2, false, true)] {
            let (mut e, game) = engine(options(depth, iterative, per_move));
            let (m, score) =
                e.search(&game, NodeLimits::default(), &mut RootRules::default()).unwrap();
            assert_eq!(game.position().move_to_usi(m), "5g5f", "{depth} {iterative} {per_move}");
            // a rook's worth (mobility table) up, in centipawns
            assert!(score > 500, "{score}");
        }
    }

    #[test]
    fn root_scores_within_the_margin_are_exact() {
        // reference: every root move searched with the full window
        let (mut full, game) = engine(options(2, true, false));
        full.search(&game, NodeLimits::default(), &mut RootRules::default()).unwrap();
        let exact: HashMap<Move, i64> = full.root_scores().iter().copied().collect();
        assert_eq!(exact.len(), game.legal().len());
        assert_eq!(full.depth_completed(), 2);
        let best = exact.values().copied().max().unwrap();
        for margin in [0, 50, 700, 100_000] {
            let (mut e, _) = engine(options(2, true, true));
            let mut rules = RootRules { margin, ..RootRules::default() };
            e.search(&game, NodeLimits::default(), &mut rules).unwrap();
            for &(m, s) in e.root_scores() {
                if s > best - margin as i64 {
                    assert_eq!(s, exact[&m], "margin {margin}");
                } else {
                    assert!(exact[&m] <= best - margin as i64, "margin {margin}: {s}");
                }
            }
        }
    }

    #[test]
    fn only_the_listed_root_moves_are_searched_with_their_full_scores() {
        let (mut full, game) = engine(options(2, true, false));
        full.search(&game, NodeLimits::default(), &mut RootRules::default()).unwrap();
        let exact: HashMap<Move, i64> = full.root_scores().iter().copied().collect();
        // every legal move but the rook capture, and a move that is not legal here
        let not_legal = Move::new(0, 1);
        let mut only: Vec<Move> = game
            .legal()
            .iter()
            .copied()
            .filter(|&m| game.position().move_to_usi(m) != "5g5f")
            .collect();
        only.push(not_legal);
        let (mut e, _) = engine(options(2, true, false));
        let mut rules = RootRules { only: &only, ..RootRules::default() };
        let (m, _) = e.search(&game, NodeLimits::default(), &mut rules).unwrap();
        assert_ne!(game.position().move_to_usi(m), "5g5f");
        assert_eq!(e.root_scores().len(), game.legal().len() - 1);
        for &(m, s) in e.root_scores() {
            assert_eq!(s, exact[&m], "{}", game.position().move_to_usi(m));
        }
        // a list with no legal move: nothing to search
        let mut none = RootRules { only: &[not_legal], ..RootRules::default() };
        assert!(e.search(&game, NodeLimits::default(), &mut none).is_none());
    }

    #[test]
    fn a_hard_limit_stops_at_that_node_and_still_answers() {
        let (mut e, game) = engine(options(4, true, false));
        let limits = NodeLimits { hard: 300, ..NodeLimits::default() };
        let (m, _) = e.search(&game, limits, &mut RootRules::default()).unwrap();
        assert_eq!(e.nodes(), 300);
        // depth 1 completed within the limit: its best move stands
        assert_eq!(game.position().move_to_usi(m), "5g5f");
    }

    #[test]
    fn a_soft_limit_only_cuts_the_tree_and_a_per_root_move_one_restarts() {
        let (mut full, game) = engine(options(3, false, false));
        full.search(&game, NodeLimits::default(), &mut RootRules::default()).unwrap();
        // past the soft limit every node stands pat (two counts: the node and its quiescence
        // search), and the search goes on to every root move
        let shared = NodeLimits { soft: 50, ..NodeLimits::default() };
        let (mut e, _) = engine(options(3, false, false));
        let (m, _) = e.search(&game, shared, &mut RootRules::default()).unwrap();
        assert_eq!(game.position().move_to_usi(m), "5g5f");
        let legal = game.legal().len() as u64;
        assert!(e.nodes() >= 50 + 2 * (legal - 1), "{}", e.nodes());
        assert!(e.nodes() * 20 < full.nodes(), "{} of {}", e.nodes(), full.nodes());
        // with a budget per root move, the count restarts at each: the last one's is small
        let (mut each, _) = engine(options(3, false, true));
        each.search(&game, shared, &mut RootRules::default()).unwrap();
        assert!(each.nodes() < e.nodes() - 2 * (legal - 1), "{}", each.nodes());
    }
}
