//! Material that makes the side ahead want exchanges: the root screen's evaluation with
//! `mcts:EVAL:screen=DEPTH:trade=W` ([`crate::root_screen::RootScreen::with_trade`]).
//!
//! The score is the material difference `d` (pawns, side to move) plus
//! `W * d * (1 - T / T0)`, where `T` is the material of both sides and `T0` that of the start
//! position: each piece off the board raises the lead's weight, so an even exchange gains the
//! side ahead `W * d * 2v / T0` for pieces worth `v`, and costs the side behind as much. With
//! `W = 0` it is the plain [`Material`] score. Where captured pieces go to the hand (shogi) they
//! stay in the material, and an exchange changes nothing.
//!
//! Scale: in tai (the screen's values, the Emperor 2,600 pawns, a prince 1,300, the median kind
//! 16; both sides 18,310 at the start) the side with the only Emperor leads by about 3,600
//! pawns, and with `W = 0.25` an even exchange of median kinds gains it about 1.6 pawns, three
//! times the screen's default margin; in chu, where no kind is worth a tenth of the material,
//! the same weight moves nothing but a large lead.
//!
//! Why: in tai the network's agent took `alphabeta:2`'s Emperor and led by 25 pieces for
//! thousands of plies without taking the last royal. Its screen scored every quiet move alike
//! (the lead stays the lead), so nothing pushed it to break the defender's camp; a prince whose
//! protectors are traded off falls to the Emperor, which may take an unprotected royal anywhere.
//! Chess engines have long scaled a material lead up as pieces come off for the same reason.
//!
//! With an approach weight ([`TradeDown::set_approach`]) each non-royal piece also counts for
//! how near it stands to the enemy's nearest royal (king distance), a side's sum less the
//! other's: the pieces of a side that leads and trades may still sit at home, as the network's
//! did in tai, and a prince is taken only by pieces that come near it.
//!
//! With a hunt weight ([`TradeDown::set_hunt`]) each square of the zone of the enemy's last
//! royal (its square and the eight around it) that a side attacks counts, a side's count less
//! the other's, leaving out a piece that may capture anywhere (it attacks every square): where
//! exchanges and nearness opened a tai camp without reaching its prince, pieces that bear on the
//! prince's own squares are what takes it.
//!
//! With a guard weight ([`TradeDown::set_guard`]) each piece that protects a side's last royal
//! (a piece of that side that could capture on the royal's square) counts against that side:
//! tai's Emperor may take a royal only where no piece protects it, so the attacker of a prince
//! gains by every protector it removes, lures away or exchanges, and the last one gone is the
//! prince taken.

use crate::alphabeta::Material;
use crate::search::Evaluation;
use shogilab_engine::variant::TYPE_MASK;
use shogilab_engine::{Color, Move, Position};
use shogilab_selfplay::PieceValues;

/// The largest exchange weight `W` that an agent spec accepts.
pub const MAX_TRADE_WEIGHT: f32 = 10.0;
/// The largest approach weight (centipawns per square per piece) that an agent spec accepts.
pub const MAX_APPROACH: f32 = 100.0;
/// The largest hunt weight (centipawns per attacked square of the last royal's zone) that an
/// agent spec accepts.
pub const MAX_HUNT: f32 = 10_000.0;
/// The largest guard weight (centipawns per protector of the last royal) that an agent spec
/// accepts.
pub const MAX_GUARD: f32 = 10_000.0;

/// [`Material`] with the lead weighted up as material leaves the board.
pub struct TradeDown {
    material: Material,
    /// Both sides' material at the start (pawns).
    start_total: f32,
    /// `W`: how much a lead gains per share of the start material that has left the board.
    weight: f32,
    /// Centipawns per square that a piece stands nearer the enemy's nearest royal
    /// ([`TradeDown::set_approach`]).
    approach: f32,
    /// Centipawns per square of the zone of the enemy's last royal that a side attacks
    /// ([`TradeDown::set_hunt`]).
    hunt: f32,
    /// Centipawns per piece that protects a side's last royal ([`TradeDown::set_guard`]).
    guard: f32,
}

impl TradeDown {
    /// The evaluation with piece values `values` and exchange weight `weight` (0: material).
    pub fn new(values: PieceValues, weight: f32) -> TradeDown {
        let start_total = 2.0 * values.total_start_material();
        TradeDown {
            material: Material(values),
            start_total,
            weight: weight.max(0.0),
            approach: 0.0,
            hunt: 0.0,
            guard: 0.0,
        }
    }

    /// Set the exchange weight `W` (0: material only).
    pub fn set_weight(&mut self, weight: f32) {
        self.weight = weight.max(0.0);
    }

    /// Make each non-royal piece worth `cp` centipawns more per square that it stands nearer
    /// the enemy's nearest royal (king distance; a side's sum less the other's): pieces that
    /// press on the enemy royals, which the material alone never asks for.
    pub fn set_approach(&mut self, cp: f32) {
        self.approach = cp.max(0.0);
    }

    /// Make each square of the zone of the enemy's last royal (its own square and the eight
    /// around it) that a side attacks worth `cp` centipawns, a side's count less the other's:
    /// pieces that bear on the one royal left, not only stand near it. A piece that may capture
    /// anywhere (tai's Emperor) is left out, since it would attack every square.
    pub fn set_hunt(&mut self, cp: f32) {
        self.hunt = cp.max(0.0);
    }

    /// Make each piece that protects a side's last royal (could capture on its square; a piece
    /// that may capture anywhere left out) cost that side `cp` centipawns: tai's Emperor takes
    /// a royal that nothing protects, so each protector removed brings the last royal nearer.
    pub fn set_guard(&mut self, cp: f32) {
        self.guard = cp.max(0.0);
    }

    /// The square of `side`'s royal when it has exactly one.
    fn last_royal(pos: &Position, side: Color) -> Option<u16> {
        let mut royals = pos.royal_squares(side);
        match (royals.next(), royals.next()) {
            (Some(royal), None) => Some(royal),
            _ => None,
        }
    }

    /// The pieces of `side` that protect its last royal (0 unless it has exactly one).
    fn royal_guards(pos: &Position, side: Color) -> f32 {
        Self::last_royal(pos, side)
            .map_or(0.0, |royal| pos.attackers_ov(royal, side, &pos.without_universal(side)) as f32)
    }

    /// The squares of the zone of `side`'s opponent's royal, when it has exactly one, that
    /// `side` attacks (its piece that may capture anywhere left out); 0 otherwise.
    fn zone_attacks(pos: &Position, side: Color) -> f32 {
        let Some(royal) = Self::last_royal(pos, side.flip()) else {
            return 0.0;
        };
        let v = pos.variant();
        let ov = pos.without_universal(side);
        let around = v.dirs8.iter().map(|&d| i32::from(royal) + i32::from(d));
        let zone = around.filter(|&s| v.on_board(s)).map(|s| s as u16).chain([royal]);
        zone.filter(|&s| pos.attacked_ov(s, side, &ov)).count() as f32
    }

    /// Over `side`'s non-royal pieces, the board's span less each one's king distance to the
    /// nearest royal of the other side (0 if it has none).
    fn nearness(pos: &Position, side: Color) -> f32 {
        let v = pos.variant();
        let mut targets = [(0i16, 0i16); 4];
        let mut n = 0;
        for sq in pos.royal_squares(side.flip()).take(targets.len()) {
            targets[n] = v.xy(sq);
            n += 1;
        }
        if n == 0 {
            return 0.0;
        }
        let span = i16::from(v.files.max(v.ranks)) - 1;
        let mut sum = 0i32;
        for &sq in pos.pieces(side) {
            if v.types[(pos.cell(sq) & TYPE_MASK) as usize].royal {
                continue;
            }
            let (x, y) = v.xy(sq);
            let d = targets[..n].iter().map(|&(tx, ty)| (tx - x).abs().max((ty - y).abs()));
            sum += i32::from(span - d.min().unwrap_or(span));
        }
        sum as f32
    }

    /// The score in pawns for the side to move.
    fn pawns(&self, pos: &Position) -> f32 {
        let us = pos.side_to_move();
        let values = &self.material.0;
        let (ours, theirs) = (values.material(pos, us), values.material(pos, us.flip()));
        let lead = ours - theirs;
        if self.weight == 0.0 || self.start_total <= 0.0 {
            return lead;
        }
        let gone = (1.0 - (ours + theirs) / self.start_total).max(0.0);
        lead * (1.0 + self.weight * gone)
    }
}

impl Evaluation for TradeDown {
    type Key = f32;

    fn eval(&self, pos: &Position) -> i32 {
        let us = pos.side_to_move();
        // a term weighted `w`: the side to move's count less the other's (skipped at weight 0)
        let term = |w: f32, count: fn(&Position, Color) -> f32| {
            if w > 0.0 {
                w * (count(pos, us) - count(pos, us.flip()))
            } else {
                0.0
            }
        };
        let mut cp = self.pawns(pos) * 100.0;
        cp += term(self.approach, Self::nearness);
        cp += term(self.hunt, Self::zone_attacks);
        cp += term(self.guard, Self::royal_guards);
        cp.round() as i32
    }

    fn key(&self, pos: &Position, m: Move) -> f32 {
        self.material.key(pos, m)
    }

    fn risks_more_than_it_takes(&self, pos: &Position, m: Move) -> bool {
        self.material.risks_more_than_it_takes(pos, m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::root_screen::RootScreen;
    use shogilab_engine::{Game, Variant};
    use std::sync::Arc;

    /// Chu (no drops: what is taken leaves the game), Black a rook ahead (king, two golds and
    /// two rooks against king, two golds and a rook); Black's rook on 7e, attacked by White's
    /// on 7a, may take it (a gold takes back), retreat or be guarded.
    const ROOK_AHEAD: &str = "k3grg5/12/12/12/5R6/12/12/12/12/12/12/4GKG4R b - 1";
    /// The same with a gold of each side off the board.
    const GOLDS_TRADED: &str = "k4rg5/12/12/12/5R6/12/12/12/12/12/12/5KG4R b - 1";

    /// An exchange weight at which taking the rook in [`ROOK_AHEAD`] gains Black less than the
    /// screen's default margin, and more than nothing (0.1 to 0.3 do; 0.5 gains more than 50).
    const WEIGHT_BELOW_MARGIN: f32 = 0.2;

    fn scores(weight: f32, side: &str) -> (i32, i32) {
        let v = Variant::builtin("chu").expect("chu is built in");
        let ev = TradeDown::new(PieceValues::mobility(Arc::clone(&v)), weight);
        let eval = |sfen: &str| {
            let sfen = sfen.replace(" b ", &format!(" {side} "));
            ev.eval(&Position::from_sfen(&v, &sfen).expect("a valid SFEN"))
        };
        (eval(ROOK_AHEAD), eval(GOLDS_TRADED))
    }

    #[test]
    fn without_a_weight_it_is_the_material_score() {
        let v = Variant::builtin("chu").expect("chu is built in");
        let pos = Position::from_sfen(&v, ROOK_AHEAD).expect("a valid SFEN");
        let values = PieceValues::mobility(Arc::clone(&v));
        let plain = TradeDown::new(values.clone(), 0.0).eval(&pos);
        assert_eq!(plain, Material(values).eval(&pos));
        assert!(plain > 0, "Black is ahead: {plain}");
        let (before, after) = scores(0.0, "b");
        assert_eq!(before, after, "an even exchange changes no material score");
    }

    #[test]
    fn an_even_exchange_gains_the_side_ahead_and_costs_the_side_behind() {
        let (before, after) = scores(1.0, "b");
        assert!(after > before, "Black, ahead, after the golds go: {after} against {before}");
        let (before, after) = scores(1.0, "w");
        assert!(after < before, "White, behind, after the golds go: {after} against {before}");
        assert!(before < 0, "White is behind: {before}");
    }

    #[test]
    fn a_screen_with_a_weight_keeps_only_the_exchange_for_the_side_ahead() {
        let v = Variant::builtin("chu").expect("chu is built in");
        let game = Game::new(Position::from_sfen(&v, ROOK_AHEAD).expect("a valid SFEN"));
        let takes_the_rook = |m: &Move| game.position().move_to_usi(*m).starts_with("7e7a");
        let plain = RootScreen::new(&v, 2, 50).allowed(&game, None);
        assert!(plain.iter().any(takes_the_rook), "the exchange holds the material");
        // and so do the moves that save the rook otherwise
        assert!(plain.iter().filter(|m| !takes_the_rook(m)).count() >= 2, "{plain:?}");
        let mut screen = RootScreen::new(&v, 2, 50).with_trade(1.0);
        assert_eq!(screen.trade(), 1.0);
        let traded = screen.allowed(&game, None);
        assert!(!traded.is_empty() && traded.iter().all(takes_the_rook), "{traded:?}");
    }

    #[test]
    fn a_decisive_lead_keeps_only_the_screens_best_moves() {
        let v = Variant::builtin("chu").expect("chu is built in");
        let game = Game::new(Position::from_sfen(&v, ROOK_AHEAD).expect("a valid SFEN"));
        let takes_the_rook = |m: &Move| game.position().move_to_usi(*m).starts_with("7e7a");
        let screen = |weight: f32, decisive: i32| {
            RootScreen::new(&v, 2, 50).with_trade(weight).with_decisive(decisive)
        };
        let lead = Material(PieceValues::mobility(Arc::clone(&v))).eval(game.position());
        // where Black's lead (a rook) is not decisive, the margin and the material alone: the
        // retreats and guards pass beside the exchange, even at a weight that alone passes the
        // exchange only (a_screen_with_a_weight_keeps_only_the_exchange_for_the_side_ahead)
        let mut not_decisive = screen(1.0, lead + 1);
        assert_eq!(not_decisive.margin_at(game.position()), 50);
        let wide = not_decisive.allowed(&game, None);
        assert!(wide.iter().any(takes_the_rook), "{wide:?}");
        assert!(wide.iter().filter(|m| !takes_the_rook(m)).count() >= 2, "{wide:?}");
        // where it is, at a weight whose gain lies within the margin, margin 0: the exchange only
        let mut decisive = screen(WEIGHT_BELOW_MARGIN, lead);
        assert!(decisive.is_decisive(game.position()));
        assert_eq!((decisive.decisive(), decisive.margin_at(game.position())), (Some(lead), 0));
        let best = decisive.allowed(&game, None);
        assert!(!best.is_empty() && best.iter().all(takes_the_rook), "{best:?}");
        // White, behind by the same rook, keeps the margin
        let white = Position::from_sfen(&v, &ROOK_AHEAD.replace(" b ", " w ")).expect("valid");
        assert_eq!(screen(0.0, 0).margin_at(&white), 50);
    }

    /// What moving from [`ROOK_AHEAD`] to `after` gains Black by the plain material and by the
    /// evaluation that `set` configures, with Black to move and with White to move.
    fn gains(after: &str, set: impl Fn(&mut TradeDown)) -> (i32, i32, i32) {
        let v = Variant::builtin("chu").expect("chu is built in");
        let values = PieceValues::mobility(Arc::clone(&v));
        let eval = |ev: &TradeDown, sfen: &str| {
            ev.eval(&Position::from_sfen(&v, sfen).expect("a valid SFEN"))
        };
        let plain = TradeDown::new(values.clone(), 0.0);
        let mut ev = TradeDown::new(values, 0.0);
        set(&mut ev);
        let white = |s: &str| s.replace(" b ", " w ");
        (
            eval(&plain, after) - eval(&plain, ROOK_AHEAD),
            eval(&ev, after) - eval(&ev, ROOK_AHEAD),
            eval(&ev, &white(after)) - eval(&ev, &white(ROOK_AHEAD)),
        )
    }

    #[test]
    fn each_attacked_square_of_the_last_royals_zone_is_worth_the_hunt_weight() {
        // Black's rook from 1l to 11l: up file 11 it bears on 11b and 11a, two of the four
        // squares of the zone of White's king in the corner (12a, 11a, 12b, 11b)
        let hunting = "k3grg5/12/12/12/5R6/12/12/12/12/12/12/1R2GKG5 b - 1";
        assert_eq!(gains(hunting, |ev| ev.set_hunt(100.0)), (0, 200, -200));
    }

    #[test]
    fn each_protector_of_the_last_royal_costs_its_side_the_guard_weight() {
        // White's gold from 8a to 11a, beside its king on 12a: one protector (Black's king has
        // two, its golds, before and after)
        let guarded = "kg3rg5/12/12/12/5R6/12/12/12/12/12/12/4GKG4R b - 1";
        assert_eq!(gains(guarded, |ev| ev.set_guard(100.0)), (0, -100, 100));
    }

    #[test]
    fn a_piece_nearer_the_enemy_royal_is_worth_the_approach_weight_per_square() {
        // Black's rook from 7e (5 squares from White's king on 12a) to 10c (2 squares)
        let near = "k3grg5/12/2R9/12/12/12/12/12/12/12/12/4GKG4R b - 1";
        assert_eq!(gains(near, |ev| ev.set_approach(10.0)), (0, 30, -30));
    }
}
