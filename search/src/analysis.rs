//! Game annotation: every position of a game searched, and each move set beside the engine's
//! choice. A move's evaluation before is the search score of the position it was played in;
//! its evaluation after is the score of the next position, from the same mover's view (a game
//! that the move ended scores as won, drawn or lost); the difference is what the move cost by
//! the engine's judgement.

use crate::limits::Limits;
use crate::report::pv_usi;
use crate::score::{Score, DRAW, MATE};
use crate::searcher::Engine;
use shogilab_engine::{Game, Move, Status};

/// One move of a game, analysed.
#[derive(Debug, Clone, PartialEq)]
pub struct MoveAnalysis {
    /// 1-based ply of the move.
    pub ply: usize,
    /// The move played (USI).
    pub played: String,
    /// The side that played it: `b` or `w`.
    pub side: char,
    /// Search score before the move, for the mover (centipawns; mate scores beyond ±990,000).
    pub before: Score,
    /// Score after the move, for the mover.
    pub after: Score,
    /// The engine's move in the position (USI) and its principal variation.
    pub best: String,
    pub pv: String,
    /// Depth completed in the position before the move.
    pub depth: u32,
}

impl MoveAnalysis {
    /// What the move cost against the engine's best (never negative).
    pub fn loss(&self) -> Score {
        (self.before - self.after).max(0)
    }
}

/// The score of a finished game for the side to move.
fn final_score(status: Status, game: &Game) -> Option<Score> {
    match status {
        Status::Ongoing => None,
        Status::Draw(_) => Some(DRAW),
        Status::Win(c, _) if c == game.position().side_to_move() => Some(MATE),
        Status::Win(..) => Some(-MATE),
    }
}

/// Analyse `moves` played from `start` (each must be legal: check the game first), each
/// position searched under `limits` (with a fresh stop flag, if any). `progress` is called
/// after each position.
pub fn analyse_game(
    engine: &mut Engine,
    start: Game,
    moves: &[Move],
    limits: &Limits,
    progress: &mut dyn FnMut(usize),
) -> Vec<MoveAnalysis> {
    let mut game = start;
    engine.clear();
    // (score, best, pv, depth) of each position, the last one after every move
    let mut searched: Vec<(Score, String, String, u32)> = Vec::with_capacity(moves.len() + 1);
    for i in 0..=moves.len() {
        let entry = match final_score(game.status(), &game) {
            Some(s) => (s, String::new(), String::new(), 0),
            None => match engine.search(&game, limits.clone(), &mut |_| {}) {
                Some(o) => {
                    let pv =
                        o.lines.first().map(|l| pv_usi(game.position(), &l.pv)).unwrap_or_default();
                    (o.score, game.position().move_to_usi(o.best), pv, o.depth)
                }
                None => (-MATE, String::new(), String::new(), 0),
            },
        };
        searched.push(entry);
        progress(i);
        if let Some(&m) = moves.get(i) {
            game.play(m);
        }
    }
    let mut replay = game;
    for _ in 0..moves.len() {
        replay.unplay();
    }
    moves
        .iter()
        .enumerate()
        .map(|(i, &m)| {
            let side = match replay.position().side_to_move() {
                shogilab_engine::Color::Black => 'b',
                shogilab_engine::Color::White => 'w',
            };
            let played = replay.position().move_to_usi(m);
            replay.play(m);
            let (before, best, pv, depth) = searched[i].clone();
            MoveAnalysis {
                ply: i + 1,
                played,
                side,
                before,
                after: -searched[i + 1].0,
                best,
                pv,
                depth,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluator::Psq;
    use crate::Options;
    use shogilab_engine::{Position, Variant};
    use std::sync::Arc;

    /// 5g5f wins the rook that White left on 5f; any other move leaves Black a rook's worth
    /// behind what it could have had.
    #[test]
    fn a_move_that_misses_a_free_rook_loses_what_the_capture_would_win() {
        let v = Variant::builtin("shogi").unwrap();
        let values = shogilab_engine::material::mobility(&v);
        let mut e = Engine::new(
            Arc::new(Psq::from_values(Arc::clone(&v), &values, 600.0)),
            Options::default(),
        );
        let start = Position::from_sfen(
            &v,
            "lnsgkgsnl/7b1/ppppppppp/9/9/4r4/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
        )
        .unwrap();
        let game = Game::new(start);
        let moves = [game.parse_usi("2g2f").unwrap()];
        let limits = Limits { depth: Some(3), ..Limits::default() };
        let a = analyse_game(&mut e, game, &moves, &limits, &mut |_| {});
        assert_eq!(a.len(), 1);
        assert_eq!(
            (a[0].ply, a[0].played.as_str(), a[0].side, a[0].best.as_str()),
            (1, "2g2f", 'b', "5g5f")
        );
        assert!(a[0].pv.starts_with("5g5f"), "{}", a[0].pv);
        assert!(a[0].loss() > 500, "{a:?}");
    }
}
