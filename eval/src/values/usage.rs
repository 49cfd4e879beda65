//! How the imbalance engine used each kind in its logged games: the facts behind the report's
//! explanations of where a measured value and the reference table disagree.
//!
//! Every ply of a sample of the logged games (those that record their moves) is replayed. From
//! the side to move's view, per kind: how many of its pieces stood on the board (piece-turns),
//! how many legal moves they had and how many of those were multi-step (lion double moves, igui,
//! area moves: a move with intermediate stops), and, for the move played, which kind made it,
//! whether it had intermediate stops, whether it promoted and how many enemy pieces it removed
//! (captures and burns). Pieces removed by the opponent's moves count as lost.
//!
//! From these: a kind's *activity* (moves per piece-turn, relative to the average piece), the
//! share of its played moves that were multi-step against that share among its legal moves, its
//! promotions and losses per piece at the start, and its captures per 100 moves.

use super::imbalance::{logged_move, start_of, GameLine, ImbalanceError};
use super::Kinds;
use shogilab_engine::cell::cell_color;
use shogilab_engine::{Color, MoveList, Position, Variant};
use std::sync::Arc;

/// What the engine did with one kind over the sampled games.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct KindUsage {
    /// Pieces of the kind at the games' starts (both sides).
    pub at_start: u64,
    /// Σ over plies of the side to move's pieces of the kind on the board.
    pub piece_turns: u64,
    /// Legal moves of those pieces, and how many had intermediate stops.
    pub legal: u64,
    pub legal_multi: u64,
    /// Moves played by the kind, with intermediate stops, promoting.
    pub moves: u64,
    pub moves_multi: u64,
    pub promotions: u64,
    /// Enemy pieces removed by the kind's moves (captures and burns).
    pub removed: u64,
    /// Pieces of the kind removed by the opponent's moves.
    pub lost: u64,
}

impl KindUsage {
    fn add(&mut self, o: &KindUsage) {
        self.at_start += o.at_start;
        self.piece_turns += o.piece_turns;
        self.legal += o.legal;
        self.legal_multi += o.legal_multi;
        self.moves += o.moves;
        self.moves_multi += o.moves_multi;
        self.promotions += o.promotions;
        self.removed += o.removed;
        self.lost += o.lost;
    }
}

/// The usage of every kind, with the games and plies it was counted over.
#[derive(Debug, Clone, Default)]
pub struct Usage {
    pub kinds: Vec<KindUsage>,
    pub games: usize,
    pub plies: u64,
}

fn ratio(a: u64, b: u64) -> Option<f64> {
    (b > 0).then(|| a as f64 / b as f64)
}

impl Usage {
    /// Every kind together.
    pub fn total(&self) -> KindUsage {
        let mut t = KindUsage::default();
        self.kinds.iter().for_each(|k| t.add(k));
        t
    }

    /// Moves per piece-turn of kind `k` relative to the average piece (1 = as often).
    pub fn activity(&self, k: usize) -> Option<f64> {
        let (u, t) = (&self.kinds[k], self.total());
        Some(ratio(u.moves, u.piece_turns)? / ratio(t.moves, t.piece_turns)?)
    }

    /// Share of kind `k`'s played moves that had intermediate stops, and that share among its
    /// legal moves; None where it never had such a move.
    pub fn multi_step(&self, k: usize) -> Option<(f64, f64)> {
        let u = &self.kinds[k];
        if u.legal_multi == 0 {
            return None;
        }
        Some((ratio(u.moves_multi, u.moves).unwrap_or(0.0), ratio(u.legal_multi, u.legal)?))
    }

    /// Promotions per piece of the kind at the start.
    pub fn promotion_rate(&self, k: usize) -> Option<f64> {
        ratio(self.kinds[k].promotions, self.kinds[k].at_start)
    }

    /// Enemy pieces removed per 100 moves of the kind, and of the average move.
    pub fn captures_per_100(&self, k: usize) -> Option<(f64, f64)> {
        let (u, t) = (&self.kinds[k], self.total());
        Some((100.0 * ratio(u.removed, u.moves)?, 100.0 * ratio(t.removed, t.moves)?))
    }
}

/// Replay up to `max_games` of the games that record their moves (evenly spaced through the
/// log, so every setup rule and session is represented) and count what each kind did.
pub fn usage(
    v: &Arc<Variant>,
    kinds: &Kinds,
    games: &[GameLine],
    max_games: usize,
) -> Result<Usage, ImbalanceError> {
    let with_moves: Vec<&GameLine> = games.iter().filter(|g| !g.moves.is_empty()).collect();
    let step = with_moves.len().div_ceil(max_games.max(1)).max(1);
    let mut out = Usage { kinds: vec![KindUsage::default(); kinds.len()], ..Usage::default() };
    let mut scratch = MoveList::new();
    for g in with_moves.iter().step_by(step) {
        out.plies += replay(v, kinds, g, &mut out.kinds, &mut scratch)?;
        out.games += 1;
    }
    Ok(out)
}

/// One game: the start's pieces, then every ply. Returns the plies replayed.
fn replay(
    v: &Arc<Variant>,
    kinds: &Kinds,
    g: &GameLine,
    acc: &mut [KindUsage],
    scratch: &mut MoveList,
) -> Result<u64, ImbalanceError> {
    let mut pos = start_of(v, g)?;
    for c in [Color::Black, Color::White] {
        for &sq in pos.pieces(c) {
            acc[kinds.of_cell(pos.cell(sq))].at_start += 1;
        }
    }
    let mut plies = 0;
    for (i, mv) in g.moves.split_whitespace().enumerate() {
        let m = logged_move(&pos, g, i, mv)?;
        count_position(kinds, &pos, acc, scratch);
        let us = pos.side_to_move();
        let mover = (!m.is_drop()).then(|| kinds.of_cell(pos.cell(m.from)));
        let undo = pos.play(m);
        for (_, cell) in undo.removed() {
            let k = kinds.of_cell(cell);
            if cell_color(cell) == us {
                continue; // the mover burned itself: not a capture
            }
            acc[k].lost += 1;
            if let Some(mk) = mover {
                acc[mk].removed += 1;
            }
        }
        if let Some(k) = mover {
            acc[k].moves += 1;
            acc[k].moves_multi += u64::from(m.mids().next().is_some());
            acc[k].promotions += u64::from(m.promotes());
        }
        plies += 1;
    }
    Ok(plies)
}

/// The side to move's pieces and their legal moves, by kind.
fn count_position(kinds: &Kinds, pos: &Position, acc: &mut [KindUsage], scratch: &mut MoveList) {
    for &sq in pos.pieces(pos.side_to_move()) {
        acc[kinds.of_cell(pos.cell(sq))].piece_turns += 1;
    }
    scratch.clear();
    pos.legal_moves(scratch);
    for m in scratch.iter().filter(|m| !m.is_drop()) {
        let k = kinds.of_cell(pos.cell(m.from));
        acc[k].legal += 1;
        acc[k].legal_multi += u64::from(m.mids().next().is_some());
    }
}

/// One clause for the report: what the games show about kind `k` (activity, multi-step moves,
/// promotion, captures), the facts most likely to explain a gap, in that order of relevance.
pub fn clause(u: &Usage, k: usize, promotes: bool) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(a) = u.activity(k) {
        parts.push(format!("moved {a:.2}× as often as the average piece"));
    }
    if let Some((played, legal)) = u.multi_step(k) {
        parts.push(format!(
            "{:.1}% of its moves multi-step against {:.1}% of its legal moves",
            100.0 * played,
            100.0 * legal
        ));
    }
    if promotes {
        if let Some(p) = u.promotion_rate(k) {
            parts.push(format!("promoted {:.1}% of its pieces", 100.0 * p));
        }
    }
    if let Some((c, avg)) = u.captures_per_100(k) {
        parts.push(format!("{c:.0} captures per 100 moves (average {avg:.0})"));
    }
    (!parts.is_empty()).then(|| format!("in {} games: {}", u.games, parts.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn line(sfen: &str, moves: &str) -> GameLine {
        GameLine {
            setup: 0,
            swap: 0,
            agent: "ab1q-test".into(),
            seed: 0,
            sfen: sfen.into(),
            diff: BTreeMap::new(),
            result: 0.5,
            plies: moves.split_whitespace().count() as u32,
            termination: "max-plies".into(),
            ms: 0,
            moves: moves.into(),
        }
    }

    /// A Black lion beside a White pawn: its igui (capture and return) is a multi-step move.
    const LION_BY_PAWN: &str = "12/12/12/5k6/12/12/12/5pN5/12/12/12/5K6 b - 1";

    #[test]
    fn counts_the_pieces_the_moves_and_what_they_remove() {
        let v = Arc::new(Variant::load("chu", &[]).unwrap());
        let kinds = Kinds::new(&v);
        let (pawn, lion) = (kinds.index("pawn").unwrap(), kinds.index("lion").unwrap());
        let pos = Position::from_sfen(&v, LION_BY_PAWN).unwrap();
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        let lion_moves: Vec<_> =
            list.iter().filter(|m| kinds.of_cell(pos.cell(m.from)) == lion).collect();
        let multi = lion_moves.iter().filter(|m| m.mids().next().is_some()).count() as u64;
        let pawn_sq = *pos
            .pieces(shogilab_engine::Color::White)
            .iter()
            .find(|&&q| kinds.of_cell(pos.cell(q)) == pawn)
            .unwrap();
        // igui: capture the pawn and return (not a pass, which returns over an empty square)
        let igui =
            **lion_moves.iter().find(|m| m.from == m.to && m.mids().any(|q| q == pawn_sq)).unwrap();
        let game = line(LION_BY_PAWN, &pos.move_to_usi(igui));
        let silent = line(LION_BY_PAWN, "");
        let u = usage(&v, &kinds, &[silent, game], 10).unwrap();
        assert_eq!((u.games, u.plies), (1, 1), "a game without moves is not replayed");
        let (l, p) = (u.kinds[lion], u.kinds[pawn]);
        assert_eq!((l.at_start, p.at_start), (1, 1));
        assert_eq!((l.piece_turns, p.piece_turns), (1, 0), "Black to move, before the one ply");
        assert_eq!((l.legal, l.legal_multi), (lion_moves.len() as u64, multi));
        assert!(multi > 0 && multi < l.legal);
        assert_eq!((l.moves, l.moves_multi, l.removed, l.lost), (1, 1, 1, 0));
        assert_eq!((p.moves, p.lost), (0, 1));
        let (played, legal) = u.multi_step(lion).unwrap();
        assert_eq!(played, 1.0);
        assert!((legal - multi as f64 / l.legal as f64).abs() < 1e-12);
        assert!(u.multi_step(pawn).is_none(), "the pawn has no multi-step move");
        assert_eq!(u.captures_per_100(lion).unwrap().0, 100.0);
    }
}
