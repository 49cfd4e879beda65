//! A tactical screen of the root moves: the `alphabeta` agent's material search (mobility piece
//! values, royals above every other kind where a side starts with several: [`screen_values`];
//! quiescence over captures) to a fixed depth, which keeps the root moves whose score
//! comes within a margin of the best one. The MCTS agent (`mcts:EVAL:screen=DEPTH`) lets its
//! network choose among those only ([`shogilab_selfplay::Search::screen_root`]). Its quiescence
//! search takes the captures from the capture generator ([`QuiescenceMoves::Captures`]) rather
//! than from every legal move: the same tree in about two thirds of the time in chu
//! (`eval/examples/screen_depth.rs` compares the two); where a kind may capture anywhere (tai's
//! Emperor) it leaves out the losing captures ([`screen_quiescence`]). Its material may weigh a
//! lead up as pieces leave the board and count pieces near the enemy royals
//! ([`RootScreen::with_trade`], [`RootScreen::with_approach`]; [`crate::trade_down`]).
//!
//! A decisive lead (`mcts:EVAL:screen=DEPTH:decisive=CP`, [`RootScreen::with_decisive`]): where
//! the side to move leads the screen's material by CP centipawns or more, the margin is 0 and the
//! exchange and approach terms count, so the screen's own best moves pass and the network only
//! breaks their ties; elsewhere the screen is the plain material at its margin, and the network
//! chooses among every move within it. Measured in tai, where the side with the only Emperor
//! leads by thousands of pawns: the network's choice drew such positions for thousands of plies,
//! the screen's own move with both terms took the last royal; from a position where the network
//! was behind, the screen's own move lost where the network's choice had held. Outside a decisive
//! lead the agent is the one whose whole games were measured.
//!
//! Why: on a CPU a network's search reaches a few hundred simulations a move, and its root
//! samples 16 candidates by the policy. Where a variant has hundreds of legal moves (tai: about
//! 250) the replies to most candidates are never searched, and a policy that misses a threat
//! loses material that a depth-2 alpha-beta, tens of thousands of nodes a move, never loses.
//! The screen gives the network what the alpha-beta sees (every reply, and the captures after
//! it) and leaves it the judgement among the moves that hold the material.
//!
//! Time: with a move time the screen searches at most [`SCREEN_SHARE`] of it (iterative
//! deepening: the last depth completed decides) and the MCTS gets the rest; with a node limit
//! it completes its depth.
//!
//! Candidates (`mcts:EVAL:screen=DEPTH:top=K`, [`RootScreen::with_top`]): where a variant has
//! too many root moves for the screen to reach its depth in time (tai: about 500 in the
//! opening), it screens only the [`candidates`]: the network's K most probable moves, every
//! capture, and every move of a piece that the opponent attacks. The others are not played,
//! unless every candidate loses within the screen's depth: then the screen searches every move
//! (a piece stepping between a royal and its attacker is no candidate). The MCTS samples its
//! root candidates by the policy anyway, so the moves left out are those it would seldom search.

use crate::alphabeta::Material;
use crate::search::{
    AlphaBeta, Evaluation, NodeLimits, QuiescenceMoves, RootRules, SearchOptions, DECIDED_SCORE,
};
use crate::trade_down::TradeDown;
use shogilab_engine::{Color, Game, Move, MoveList, Position, Variant};
use shogilab_selfplay::PieceValues;
use std::sync::Arc;
use std::time::Instant;

/// The share of a move time that the screen may use.
pub const SCREEN_SHARE: f64 = 0.5;
/// Default margin in centipawns (the pawn, or the least mobile kind, is 100): half a pawn.
pub const DEFAULT_MARGIN: i32 = 50;
/// The deepest screen.
pub const MAX_SCREEN_DEPTH: u32 = 8;
/// The most policy moves among the candidates (`top=K`).
pub const MAX_TOP: usize = 256;

/// The screen: a material alpha-beta and its margin.
pub struct RootScreen {
    /// The screen's search; its evaluation is the material, with the exchange and approach
    /// weights of [`RootScreen::with_trade`] and [`RootScreen::with_approach`] where they count
    /// ([`RootScreen::settle`]).
    search: AlphaBeta<TradeDown>,
    /// The exchange weight ([`RootScreen::with_trade`]; 0: none).
    trade: f32,
    /// The approach weight ([`RootScreen::with_approach`]; 0: none).
    approach: f32,
    /// The hunt weight ([`RootScreen::with_hunt`]; 0: none).
    hunt: f32,
    /// The guard weight ([`RootScreen::with_guard`]; 0: none).
    guard: f32,
    /// The same search to depth 1, which finds the moves that hold the material for a screen of
    /// candidates ([`RootScreen::allowed_among`]).
    shallow: AlphaBeta<Material>,
    margin: i32,
    /// The material lead (centipawns, side to move) from which the margin is 0
    /// ([`RootScreen::with_decisive`]); `None`: never.
    decisive: Option<i32>,
    /// Screen only the [`candidates`] with this many policy moves; `None`: every legal move.
    top: Option<usize>,
}

impl RootScreen {
    /// A screen searching `depth` plies (1..=[`MAX_SCREEN_DEPTH`]) with quiescence, keeping the
    /// moves within `margin` centipawns of the best.
    pub fn new(variant: &Arc<Variant>, depth: u32, margin: i32) -> RootScreen {
        RootScreen::with_quiescence(variant, depth, margin, screen_quiescence(variant))
    }

    /// The same screen with the quiescence moves taken from `moves` (to compare generators).
    pub fn with_quiescence(
        variant: &Arc<Variant>,
        depth: u32,
        margin: i32,
        moves: QuiescenceMoves,
    ) -> RootScreen {
        let opts = SearchOptions {
            depth: depth.clamp(1, MAX_SCREEN_DEPTH),
            max_ply: 128,
            quiescence: Some(moves),
            iterative: true,
            root_window: true,
            budget_per_root_move: false,
        };
        let values = screen_values(variant);
        let shallow = SearchOptions { depth: 1, ..opts };
        RootScreen {
            search: AlphaBeta::new(TradeDown::new(values.clone(), 0.0), opts),
            shallow: AlphaBeta::new(Material(values), shallow),
            margin: margin.max(0),
            decisive: None,
            trade: 0.0,
            approach: 0.0,
            hunt: 0.0,
            guard: 0.0,
            top: None,
        }
    }

    /// Screen only the [`candidates`] with the policy's `k` most probable moves (clamped to
    /// 1..=[`MAX_TOP`]).
    pub fn with_top(mut self, k: usize) -> RootScreen {
        self.top = Some(k.clamp(1, MAX_TOP));
        self
    }

    /// The screen's material with the exchange weight `weight` ([`crate::trade_down`]): the
    /// side ahead prefers even exchanges, by more than the margin where its lead is large.
    pub fn with_trade(mut self, weight: f32) -> RootScreen {
        self.trade = weight.max(0.0);
        self
    }

    /// The screen's material with each non-royal piece worth `cp` centipawns more per square
    /// nearer the enemy's nearest royal ([`TradeDown::set_approach`]).
    pub fn with_approach(mut self, cp: f32) -> RootScreen {
        self.approach = cp.max(0.0);
        self
    }

    /// The screen's material with each attacked square of the zone of the enemy's last royal
    /// worth `cp` centipawns ([`TradeDown::set_hunt`]); it counts where the other terms do.
    pub fn with_hunt(mut self, cp: f32) -> RootScreen {
        self.hunt = cp.max(0.0);
        self
    }

    /// The screen's material with each protector of a side's last royal costing that side `cp`
    /// centipawns ([`TradeDown::set_guard`]); it counts where the other terms do.
    pub fn with_guard(mut self, cp: f32) -> RootScreen {
        self.guard = cp.max(0.0);
        self
    }

    /// Keep only the screen's best moves (margin 0), scored with the exchange and approach
    /// terms, where the side to move leads the screen's material (without those terms) by `cp`
    /// centipawns or more; elsewhere the margin, with the material alone. Without it the terms
    /// count everywhere.
    pub fn with_decisive(mut self, cp: i32) -> RootScreen {
        self.decisive = Some(cp.max(0));
        self
    }

    /// The lead from which the margin is 0, if any.
    pub fn decisive(&self) -> Option<i32> {
        self.decisive
    }

    /// Whether the side to move's lead in `pos` is decisive ([`RootScreen::with_decisive`]).
    pub fn is_decisive(&self, pos: &Position) -> bool {
        self.decisive.is_some_and(|cp| self.shallow.evaluation().eval(pos) >= cp)
    }

    /// The margin in `pos`: 0 where the side to move's lead is decisive, else the screen's.
    pub fn margin_at(&self, pos: &Position) -> i32 {
        self.margin_where(self.is_decisive(pos))
    }

    /// The margin where the lead is `decisive` (0) or not (the screen's).
    fn margin_where(&self, decisive: bool) -> i32 {
        if decisive {
            0
        } else {
            self.margin
        }
    }

    /// The margin in `pos`, with the screen's evaluation set for it: the exchange and approach
    /// terms where the lead is decisive or no decisive lead is set, the material alone elsewhere.
    fn settle(&mut self, pos: &Position) -> i32 {
        let decisive = self.is_decisive(pos);
        let terms = decisive || self.decisive.is_none();
        let keep = |w: f32| if terms { w } else { 0.0 };
        let evaluation = self.search.evaluation_mut();
        evaluation.set_weight(keep(self.trade));
        evaluation.set_approach(keep(self.approach));
        evaluation.set_hunt(keep(self.hunt));
        evaluation.set_guard(keep(self.guard));
        self.margin_where(decisive)
    }

    /// The exchange weight (0: material only).
    pub fn trade(&self) -> f32 {
        self.trade
    }

    /// The approach weight (0: none).
    pub fn approach(&self) -> f32 {
        self.approach
    }

    /// The policy moves among the candidates, if the screen takes candidates.
    pub fn top(&self) -> Option<usize> {
        self.top
    }

    /// Nodes of the last screen.
    pub fn nodes(&self) -> u64 {
        self.search.nodes()
    }

    /// The depth that the last screen completed (0: none, and nothing was screened out).
    pub fn depth_completed(&self) -> u32 {
        self.search.depth_completed()
    }

    /// The game's legal moves that score more than the best less the margin, at the deepest
    /// depth completed by `deadline`; empty when the game has no legal move or no depth
    /// completed (then nothing is screened out).
    pub fn allowed(&mut self, game: &Game, deadline: Option<Instant>) -> Vec<Move> {
        self.allowed_among(game, &[], deadline)
    }

    /// [`RootScreen::allowed`] among the legal moves of `among` only (empty: all of them) and as
    /// many more as the policy moves of the candidates ([`RootScreen::with_top`]) that hold the
    /// material at depth 1 (`holding_moves`). When every move of `among` loses (a royal taken,
    /// or no legal move, within the screen's depth), the screen searches every legal move in the
    /// time left: the candidates leave out quiet moves such as a piece stepping between a royal
    /// and its attacker, and a candidate list that holds no defence says nothing about the moves
    /// outside it.
    pub fn allowed_among(
        &mut self,
        game: &Game,
        among: &[Move],
        deadline: Option<Instant>,
    ) -> Vec<Move> {
        let margin = self.settle(game.position());
        let among = self.holding_moves(game, among, deadline, margin);
        let among = among.as_slice();
        let screen = |s: &mut AlphaBeta<TradeDown>, among: &[Move]| {
            search_within(s, game, among, deadline, margin).unwrap_or_default()
        };
        let allowed = screen(&mut self.search, among);
        let lost = |scores: &[(Move, i64)]| scores.iter().all(|s| s.1 < -DECIDED_SCORE);
        if among.is_empty() || allowed.is_empty() || !lost(self.search.root_scores()) {
            return allowed;
        }
        let everything = screen(&mut self.search, &[]);
        if everything.is_empty() {
            allowed
        } else {
            everything
        }
    }

    /// `among` (if not empty) and up to [`RootScreen::top`] more legal moves that score within
    /// `margin` of the best at depth 1, in the depth-1 search's order (captures first, then
    /// generation order). The candidates are what the policy likes and what is attacked; where a
    /// threat lies two or three plies ahead and every candidate walks into it, the quiet move
    /// that avoids it is no candidate. Found in a tai game at ply 149: the policy's moves were
    /// the Emperor's captures, each of which lost the Emperor at depth 4; the depth-4 screen kept
    /// the least bad of them while hundreds of quiet moves held the material. Depth 1 over every
    /// move costs tens of milliseconds in tai's middle game.
    fn holding_moves(
        &mut self,
        game: &Game,
        among: &[Move],
        deadline: Option<Instant>,
        margin: i32,
    ) -> Vec<Move> {
        let mut out = among.to_vec();
        let Some(k) = self.top.filter(|_| !among.is_empty()) else { return out };
        let Some(holding) = search_within(&mut self.shallow, game, &[], deadline, margin) else {
            return out;
        };
        out.extend(holding.into_iter().filter(|m| !among.contains(m)).take(k));
        out
    }
}

/// One search by `search` of the root moves of `among` (empty: all) until `deadline`, and the
/// moves within `margin` of the best; `None` if no depth completed.
fn search_within<E: Evaluation>(
    search: &mut AlphaBeta<E>,
    game: &Game,
    among: &[Move],
    deadline: Option<Instant>,
    margin: i32,
) -> Option<Vec<Move>> {
    let limits = NodeLimits { deadline, ..NodeLimits::default() };
    let mut rules = RootRules { margin: window(margin), only: among, ..RootRules::default() };
    search.search(game, limits, &mut rules)?;
    Some(within_margin(search.root_scores(), margin))
}

/// How far below the best score the root window opens for `margin`: one centipawn below the
/// margin's floor, so that a move that fails low gets a bound under it. At margin 0 a window at
/// the best score gave every move searched after the best a bound equal to it, which passed as a
/// tie: the screen let every such move through (a tai game gave its Emperor so).
fn window(margin: i32) -> i32 {
    margin.saturating_add(1)
}

/// The screen's piece values: the mobility values, with every royal above the other kinds
/// ([`PieceValues::with_royal_floor`]) where a side starts with several royals (tai's Emperor
/// and prince). Where it starts with one (shogi, chu, tenjiku) its loss ends the game, a second
/// royal comes only by promotion, and the screens measured in those variants keep the mobility
/// values.
pub fn screen_values(variant: &Arc<Variant>) -> PieceValues {
    let values = PieceValues::mobility(Arc::clone(variant));
    if Position::start(variant).royal_count(Color::Black) > 1 {
        values.with_royal_floor()
    } else {
        values
    }
}

/// The screen's quiescence moves: [`QuiescenceMoves::SafeCaptures`] where a kind may capture
/// anywhere on the board (tai's Emperor), whose captures of protected pieces would otherwise be
/// tried at every node; elsewhere [`QuiescenceMoves::Captures`], as the screens measured in
/// shogi, chu and tenjiku searched.
pub fn screen_quiescence(variant: &Variant) -> QuiescenceMoves {
    if variant.types.iter().any(|t| t.captures_anywhere()) {
        QuiescenceMoves::SafeCaptures
    } else {
        QuiescenceMoves::Captures
    }
}

/// The root moves worth screening when not all are: the `top` moves of `legal` with the highest
/// `policy` (its probabilities, in the order of `legal`), then every other capture, then every
/// other move of a piece that the opponent attacks where it stands ([`Position::threatened`]:
/// tai's Emperor, which may capture anywhere, does not count); in that order, each once.
pub fn candidates(pos: &Position, legal: &[Move], policy: &[f32], top: usize) -> Vec<Move> {
    let mut ranked: Vec<(f32, Move)> = policy.iter().copied().zip(legal.iter().copied()).collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut out: Vec<Move> = ranked.iter().take(top).map(|r| r.1).collect();
    let mut captures = MoveList::new();
    pos.legal_captures(&mut captures);
    let threatened = pos.threatened(pos.side_to_move());
    let escapes = legal.iter().filter(|m| !m.is_drop() && threatened.contains(&m.from));
    for &m in captures.iter().filter(|m| legal.contains(m)).chain(escapes) {
        if !out.contains(&m) {
            out.push(m);
        }
    }
    out
}

/// The moves of `scores` above the best score less `margin`; where the best score is a decided
/// game (a royal taken or no legal move within the horizon) only the moves with that score: the
/// quickest win, or the longest defence. The iterative search stops at the first depth that sees
/// a decided game, so its wins are mostly equally quick, but a margin would still pass a slower
/// one found by the quiescence search and, when every move loses, any of them.
fn within_margin(scores: &[(Move, i64)], margin: i32) -> Vec<Move> {
    let Some(best) = scores.iter().map(|s| s.1).max() else { return Vec::new() };
    let margin = if best.abs() > DECIDED_SCORE { 0 } else { margin.max(0) };
    let floor = best - margin as i64;
    scores.iter().filter(|s| s.1 > floor || s.1 == best).map(|s| s.0).collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::search::{Evaluation, MATE};
    use shogilab_engine::Position;

    /// Black's rook on 5d, attacked by the 5c pawn, which it takes for free: every move that
    /// leaves it there loses it.
    pub(crate) const ATTACKED_ROOK: &str =
        "lnsgkgsnl/1r5b1/ppppppppp/4R4/9/9/PPPPPPPPP/1B7/LNSGKGSNL b - 1";

    fn game(sfen: &str) -> Game {
        let v = Variant::builtin("shogi").expect("shogi is built in");
        Game::new(Position::from_sfen(&v, sfen).expect("a valid SFEN"))
    }

    /// Tai and a game from `sfen` (surrounding whitespace ignored).
    fn tai_game(sfen: &str) -> (Arc<Variant>, Game) {
        let v = Variant::builtin("tai").expect("tai is built in");
        let g = Game::new(Position::from_sfen(&v, sfen.trim()).expect("a valid SFEN"));
        (v, g)
    }

    /// The legal move of `g` written `usi`.
    fn usi_move(g: &Game, usi: &str) -> Option<Move> {
        g.legal().iter().copied().find(|&m| g.position().move_to_usi(m) == usi)
    }

    /// How many moves a screen of `depth` plies keeps in the tai position `sfen`, and whether
    /// the legal move written `usi` is among them.
    fn tai_screen_keeps(sfen: &str, depth: u32, usi: &str) -> (usize, bool) {
        let (v, g) = tai_game(sfen);
        let m = usi_move(&g, usi).unwrap_or_else(|| panic!("{usi} is legal"));
        let allowed = RootScreen::new(&v, depth, DEFAULT_MARGIN).allowed(&g, None);
        (allowed.len(), allowed.contains(&m))
    }

    #[test]
    fn a_free_rook_is_the_only_move_that_passes() {
        // a white rook on 5f that the 5g pawn takes for nothing
        let g = game("lnsgkgsnl/7b1/ppppppppp/9/9/4r4/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
        let mut screen = RootScreen::new(g.position().variant(), 2, DEFAULT_MARGIN);
        let allowed = screen.allowed(&g, None);
        let usi: Vec<String> = allowed.iter().map(|&m| g.position().move_to_usi(m)).collect();
        assert_eq!(usi, ["5g5f"]);
    }

    #[test]
    fn at_margin_0_only_the_best_move_passes() {
        // the same free rook: at margin 0 the capture alone, as at 50; every other move fails
        // low against it, and a bound equal to the best score is no tie
        let g = game("lnsgkgsnl/7b1/ppppppppp/9/9/4r4/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
        let mut screen = RootScreen::new(g.position().variant(), 2, 0);
        let allowed = screen.allowed(&g, None);
        let usi: Vec<String> = allowed.iter().map(|&m| g.position().move_to_usi(m)).collect();
        assert_eq!(usi, ["5g5f"]);
    }

    /// Tai: White's prince (13a), gold (13b), dragon king (13c) and hook mover (13d), each
    /// protected by the one above; Black's Emperor (1y) and prince (25y), each behind golds. By
    /// mobility the Emperor and the hook mover weigh the same, so the Emperor taking the hook
    /// mover and falling to the dragon king (which does not promote) scores like a quiet move; a
    /// tai game lost its Emperor that way at ply 117.
    const EMPEROR_FOR_HOOK: &str = concat!(
        "12{cp}12/12g12/12{dk}12/12{hm}12/",
        "25/25/25/25/25/25/25/25/25/25/25/25/25/25/25/25/25/25/25/",
        "GG21GG/{CP}G21GE b - 1"
    );

    #[test]
    fn the_screen_does_not_give_a_royal_for_a_piece() {
        let (kept, trade) = tai_screen_keeps(EMPEROR_FOR_HOOK, 2, "1y13d");
        assert!(kept > 1, "quiet moves pass: {kept}");
        assert!(!trade, "the Emperor was given for a hook mover");
    }

    /// Tai before ply 605 of a game against `alphabeta:2` (`tai-network.md`, "All three
    /// changes"): White's capricorn on 15p threatens Black's prince (a promoted drunk elephant on
    /// 14u), and Black's Emperor on 8g may take a promoted piece on 22i that the capricorn takes
    /// back. With every royal at the same floor, losing the Emperor with a piece gained scored
    /// above losing the prince, and the network played 8g22i.
    const EMPEROR_OR_PRINCE: &str = include_str!("testdata/tai-emperor-or-prince.sfen");

    #[test]
    fn the_screen_keeps_the_emperor_rather_than_a_prince() {
        // depth 3, as the agent's screen completed it here: the capricorn's threat to the prince
        // is played out after every quiet move
        let (kept, trade) = tai_screen_keeps(EMPEROR_OR_PRINCE, 3, "8g22i");
        assert!(kept > 0);
        assert!(!trade, "the Emperor was given for a piece and a prince");
    }

    /// Tai after ply 148 of a game against `alphabeta:2` (`tai-network.md`, "Royals above every
    /// other kind"): Black's Emperor on 1j, White's gone. The network's policy liked the
    /// Emperor's captures, each of which loses the Emperor within 4 plies, and quiet moves hold.
    const EMPEROR_CAPTURES: &str = include_str!("testdata/tai-emperor-captures.sfen");

    #[test]
    fn a_screen_of_candidates_that_all_lose_material_keeps_a_move_that_holds_it() {
        let (v, g) = tai_game(EMPEROR_CAPTURES);
        let mut captures = MoveList::new();
        g.position().legal_captures(&mut captures);
        let policy: Vec<f32> =
            g.legal().iter().map(|m| if captures.contains(m) { 1.0 } else { 0.0 }).collect();
        let among = candidates(g.position(), g.legal(), &policy, 16);
        let mut screen = RootScreen::new(&v, 2, DEFAULT_MARGIN).with_top(16);
        let allowed = screen.allowed_among(&g, &among, None);
        let emperor = v.parse_square("1j").expect("a square");
        let stays = allowed.iter().filter(|m| m.from != emperor || !captures.contains(m)).count();
        assert!(stays > 0, "only the Emperor's captures pass: {} moves", allowed.len());
        let best = screen.search.root_scores().iter().map(|s| s.1).max().expect("scores");
        let stand = screen.search.evaluation().eval(g.position()) as i64;
        assert!(best >= stand - DEFAULT_MARGIN as i64, "best {best}, standing {stand}");
    }

    #[test]
    fn royals_rise_only_where_a_side_starts_with_several() {
        for (name, raised) in [("tai", true), ("chu", false), ("tenjiku", false), ("shogi", false)]
        {
            let v = Variant::builtin(name).expect("built in");
            let plain = PieceValues::mobility(Arc::clone(&v));
            let screen = screen_values(&v);
            let moved = v.types.iter().filter(|t| screen.of(t.id) != plain.of(t.id)).count();
            assert_eq!(moved > 0, raised, "{name}: {moved} kinds changed");
        }
    }

    #[test]
    fn only_the_moves_that_save_an_attacked_rook_pass() {
        let g = game(ATTACKED_ROOK);
        let rook = g.position().variant().parse_square("5d").expect("a square");
        let mut screen = RootScreen::new(g.position().variant(), 2, DEFAULT_MARGIN);
        let allowed = screen.allowed(&g, None);
        assert!(!allowed.is_empty());
        assert!(allowed.iter().all(|m| m.from == rook), "{allowed:?}");
        assert!(allowed.len() < g.legal().len() / 4, "{} of {}", allowed.len(), g.legal().len());
    }

    #[test]
    fn at_the_start_nothing_hangs_and_most_moves_pass() {
        let g = game("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
        let mut screen = RootScreen::new(g.position().variant(), 2, DEFAULT_MARGIN);
        let allowed = screen.allowed(&g, None);
        assert!(
            allowed.len() * 4 >= g.legal().len() * 3,
            "{} of {}",
            allowed.len(),
            g.legal().len()
        );
    }

    #[test]
    fn a_screen_out_of_time_screens_nothing() {
        // tai's start has about 500 legal moves: depth 1 alone needs more nodes than the
        // search counts before it first looks at the clock
        let v = Variant::builtin("tai").expect("tai is built in");
        let g = Game::new(Position::start(&v));
        let mut screen = RootScreen::new(&v, 2, DEFAULT_MARGIN);
        assert!(screen.allowed(&g, Some(Instant::now())).is_empty());
        assert_eq!(screen.depth_completed(), 0);
        assert!(screen.nodes() >= 1024, "{}", screen.nodes());
    }

    #[test]
    fn candidates_are_the_policy_top_then_captures_then_moves_of_attacked_pieces() {
        let g = game(ATTACKED_ROOK);
        let pos = g.position();
        let legal = g.legal();
        let rook = pos.variant().parse_square("5d").expect("a square");
        // a policy that prefers three quiet moves of other pieces, the last legal ones most
        let quiet: Vec<usize> = (0..legal.len())
            .filter(|&i| legal[i].from != rook && !legal[i].is_drop())
            .rev()
            .take(3)
            .collect();
        let mut policy = vec![0.001f32; legal.len()];
        for (rank, &i) in quiet.iter().enumerate() {
            policy[i] = 0.5 - 0.1 * rank as f32;
        }
        let c = candidates(pos, legal, &policy, 3);
        let top: Vec<Move> = quiet.iter().map(|&i| legal[i]).collect();
        assert_eq!(c[..3], top[..]);
        let mut captures = MoveList::new();
        pos.legal_captures(&mut captures);
        assert!(!captures.is_empty());
        assert!(captures.iter().all(|m| c.contains(m)));
        let rook_moves: Vec<Move> = legal.iter().copied().filter(|m| m.from == rook).collect();
        assert!(rook_moves.iter().all(|m| c.contains(m)));
        // nothing else: no other piece is attacked, and each move comes once
        assert_eq!(c.len(), 3 + rook_moves.len(), "{c:?}");
        assert!(c.iter().all(|m| legal.contains(m)));
    }

    #[test]
    fn a_screen_among_candidates_keeps_only_candidates_that_hold_the_material() {
        let g = game(ATTACKED_ROOK);
        let rook = g.position().variant().parse_square("5d").expect("a square");
        let uniform = vec![1.0 / g.legal().len() as f32; g.legal().len()];
        let among = candidates(g.position(), g.legal(), &uniform, 2);
        let mut screen = RootScreen::new(g.position().variant(), 2, DEFAULT_MARGIN).with_top(2);
        assert_eq!(screen.top(), Some(2));
        let allowed = screen.allowed_among(&g, &among, None);
        assert!(!allowed.is_empty());
        assert!(allowed.iter().all(|m| m.from == rook && among.contains(m)), "{allowed:?}");
        assert_eq!(screen.allowed(&g, None).len(), allowed.len());
    }

    #[test]
    fn candidates_that_all_lose_widen_the_screen_to_every_move() {
        // chu: black's king on 1l, hemmed in by its silver and gold, faces white's rook down
        // file 1; a policy that prefers a pawn move gives candidates (that move and the king's
        // only step, 1k) that all lose the king, and only the gold or the silver stepping
        // between (1k) saves it
        let v = Variant::builtin("chu").expect("chu is built in");
        let sfen = "k10r/12/12/12/12/6P5/12/12/12/12/10G1/10SK b - 1";
        let Ok(pos) = Position::from_sfen(&v, sfen) else { panic!("a valid chu SFEN: {sfen}") };
        let g = Game::new(pos);
        let pawn = g.legal().iter().position(|m| g.position().move_to_usi(*m) == "6f6e");
        let Some(pawn) = pawn else { panic!("6f6e is legal") };
        let mut policy = vec![0.0f32; g.legal().len()];
        policy[pawn] = 1.0;
        let among = candidates(g.position(), g.legal(), &policy, 1);
        let mut screen = RootScreen::new(&v, 2, DEFAULT_MARGIN).with_top(1);
        let allowed = screen.allowed_among(&g, &among, None);
        assert!(!allowed.is_empty());
        for &m in &allowed {
            let usi = g.position().move_to_usi(m);
            assert!(!among.contains(&m), "{usi} is a candidate");
            let mut after = g.clone();
            after.play(m);
            for &reply in after.legal() {
                let mut then = after.clone();
                then.play(reply);
                assert!(
                    !then.status().is_over(),
                    "{usi} loses to {}",
                    after.position().move_to_usi(reply)
                );
            }
        }
    }

    #[test]
    fn within_margin_keeps_the_best_and_those_close_to_it() {
        let m = |i: u16| Move::new(i, i + 1);
        let scores = [(m(1), 0), (m(2), -60), (m(3), 120), (m(4), 80), (m(5), 70)];
        assert_eq!(within_margin(&scores, 50), vec![m(3), m(4)]);
        assert_eq!(within_margin(&scores, 0), vec![m(3)]);
        assert!(within_margin(&[], 50).is_empty());
    }

    #[test]
    fn a_decided_root_keeps_only_the_quickest_win_or_the_longest_defence() {
        let m = |i: u16| Move::new(i, i + 1);
        let win = |plies: i64| (MATE as i64) - plies;
        let scores = [(m(1), win(5)), (m(2), win(3)), (m(3), win(3)), (m(4), 40), (m(5), win(9))];
        assert_eq!(within_margin(&scores, 50), vec![m(2), m(3)]);
        let lost = [(m(1), -win(2)), (m(2), -win(6)), (m(3), -win(4))];
        assert_eq!(within_margin(&lost, 50), vec![m(2)]);
    }

    #[test]
    fn a_screen_that_sees_a_mate_keeps_only_the_mating_moves() {
        // shogi: white's king on 1a, black's pawn on 1c and a gold in hand: G*1b mates at once,
        // and every move that passes the screen must end the game
        let g = game("8k/9/8P/9/9/9/9/9/4K4 b G 1");
        let mut screen = RootScreen::new(g.position().variant(), 3, DEFAULT_MARGIN);
        let allowed = screen.allowed(&g, None);
        assert!(!allowed.is_empty());
        for &m in &allowed {
            let mut after = g.clone();
            after.play(m);
            let usi = g.position().move_to_usi(m);
            assert!(after.status().is_over(), "{usi} does not end the game");
        }
    }
}
