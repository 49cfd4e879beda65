//! A match between two agents: openings ([`crate::openings`]: a few random plies without
//! captures, so material stays level, or the user's list), each played twice with the colours
//! swapped, W/D/L from the first agent's side (wins and losses by forfeit counted apart,
//! [`Tally`]), the score and Elo difference with 95% intervals, and an optional SPRT that stops
//! the match early.

use crate::agent::{Agent, Limits};
use crate::elo::{score_summary, ScoreSummary};
use crate::openings::{Opening, Openings};
use crate::play::{play_game, GameResult, PlayError};
use crate::sprt::{Sprt, SprtDecision, SprtStatus};
use serde::{Deserialize, Serialize};
use shogilab_engine::{Color, Variant};
use shogilab_selfplay::worker::game_seed;
use shogilab_store::Task;
use std::sync::Arc;

/// Match settings.
#[derive(Debug, Clone)]
pub struct MatchConfig {
    pub games: usize,
    /// Ply cap per game (a draw when reached); 0 = none.
    pub max_plies: u32,
    pub limits: Limits,
    /// Where the games start.
    pub openings: Openings,
    pub seed: u64,
    /// Stop when the test decides.
    pub sprt: Option<Sprt>,
    /// Play only this task's games: the openings (each played twice) it owns.
    pub task: Option<Task>,
}

impl Default for MatchConfig {
    fn default() -> Self {
        MatchConfig {
            games: 2,
            max_plies: 400,
            limits: Limits::default(),
            openings: Openings::default(),
            seed: 1,
            sprt: None,
            task: None,
        }
    }
}

/// One game of a match.
#[derive(Debug, Clone)]
pub struct GameRecord {
    pub index: usize,
    pub opening: usize,
    /// Agent A had Black (moved first).
    pub a_black: bool,
    pub black: String,
    pub white: String,
    pub result: GameResult,
}

impl GameRecord {
    /// A's score in this game.
    pub fn score_a(&self) -> f64 {
        self.result.score_for(if self.a_black { Color::Black } else { Color::White })
    }
}

/// W/D/L from one side, with the wins and losses that came by forfeit (a crash, a hang, an
/// illegal move, an engine refusing a legal move) counted apart: `forfeit_wins <= wins` and
/// `forfeit_losses <= losses`, and the rest were decided over the board.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// Wins by the opponent's forfeit (part of `wins`).
    pub forfeit_wins: u64,
    /// Losses by this side's forfeit (part of `losses`).
    pub forfeit_losses: u64,
}

impl Tally {
    /// Count one game of `rec` from A's side.
    pub fn add_game(&mut self, rec: &GameRecord) {
        let s = rec.score_a();
        let forfeit = rec.result.forfeit.is_some();
        if s > 0.75 {
            self.wins += 1;
            self.forfeit_wins += u64::from(forfeit);
        } else if s < 0.25 {
            self.losses += 1;
            self.forfeit_losses += u64::from(forfeit);
        } else {
            self.draws += 1;
        }
    }

    /// The same games from the other side.
    pub fn flipped(&self) -> Tally {
        Tally {
            wins: self.losses,
            draws: self.draws,
            losses: self.wins,
            forfeit_wins: self.forfeit_losses,
            forfeit_losses: self.forfeit_wins,
        }
    }

    /// Sum of two tallies of the same side.
    pub fn plus(&self, o: &Tally) -> Tally {
        Tally {
            wins: self.wins + o.wins,
            draws: self.draws + o.draws,
            losses: self.losses + o.losses,
            forfeit_wins: self.forfeit_wins + o.forfeit_wins,
            forfeit_losses: self.forfeit_losses + o.forfeit_losses,
        }
    }

    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// The wins and the losses decided over the board (the forfeits taken out).
    pub fn over_the_board(&self) -> (u64, u64) {
        (
            self.wins.saturating_sub(self.forfeit_wins),
            self.losses.saturating_sub(self.forfeit_losses),
        )
    }

    /// Points (win 1, draw 1/2).
    pub fn points(&self) -> f64 {
        self.wins as f64 + 0.5 * self.draws as f64
    }

    /// `+W =D -L`, each forfeit part in brackets when there is one: `+7 (2 by forfeit) =3 -4`.
    pub fn describe(&self) -> String {
        let part = |n: u64| if n > 0 { format!(" ({n} by forfeit)") } else { String::new() };
        format!(
            "+{}{} ={} -{}{}",
            self.wins,
            part(self.forfeit_wins),
            self.draws,
            self.losses,
            part(self.forfeit_losses)
        )
    }
}

/// `, nodes per move A / B` (`-` for an agent that did not report), or nothing when neither did.
pub fn nodes_note(per_move: [Option<f64>; 2]) -> String {
    if per_move.iter().all(Option::is_none) {
        return String::new();
    }
    let [a, b] = per_move.map(|n| n.map_or("-".to_string(), |n| format!("{n:.0}")));
    format!(", nodes per move {a} / {b}")
}

/// Mean nodes per move of each agent from its (moves, nodes) sums; `None` where it reported
/// no search size.
pub fn nodes_per_move(searched: [[u64; 2]; 2]) -> [Option<f64>; 2] {
    searched.map(|[moves, nodes]| (moves > 0).then(|| nodes as f64 / moves as f64))
}

/// A finished (or stopped) match.
#[derive(Debug, Clone)]
pub struct MatchResult {
    pub a: String,
    pub b: String,
    /// From A's side, the forfeits apart.
    pub tally: Tally,
    pub summary: ScoreSummary,
    pub games: Vec<GameRecord>,
    pub sprt: Option<SprtStatus>,
}

impl MatchResult {
    /// Mean nodes (or simulations) per move of A and of B over the moves whose search size they
    /// reported; `None` for an agent that reported none.
    pub fn nodes_per_move(&self) -> [Option<f64>; 2] {
        nodes_per_move(self.searched())
    }

    /// Per agent (A, B): moves whose search size was reported, and their nodes in all.
    pub fn searched(&self) -> [[u64; 2]; 2] {
        let mut sums = [[0u64; 2]; 2];
        for g in &self.games {
            let (a, b) = if g.a_black { (0, 1) } else { (1, 0) };
            for (agent, colour) in [(0, a), (1, b)] {
                sums[agent][0] += g.result.searched[colour].0;
                sums[agent][1] += g.result.searched[colour].1;
            }
        }
        sums
    }

    /// Games that ended by a forfeit of either side.
    pub fn forfeits(&self) -> usize {
        self.games.iter().filter(|g| g.result.forfeit.is_some()).count()
    }

    /// One line for humans.
    pub fn describe(&self) -> String {
        let s = &self.summary;
        let mut out = format!(
            "{} vs {}: {} ({} games), score {:.3} [{:.3}, {:.3}], Elo {:+.1} [{:+.1}, {:+.1}]",
            self.a,
            self.b,
            self.tally.describe(),
            s.games,
            s.score,
            s.score_ci.0,
            s.score_ci.1,
            s.elo,
            s.elo_ci.0,
            s.elo_ci.1
        );
        if let Some(t) = &self.sprt {
            out.push_str(&format!(
                ", SPRT LLR {:.2} [{:.2}, {:.2}] {}",
                t.llr,
                t.lower,
                t.upper,
                t.decision.as_str()
            ));
        }
        out.push_str(&nodes_note(self.nodes_per_move()));
        out
    }
}

/// Play a match. `on_game` sees every game as it finishes (for progress and streaming output).
pub fn run_match(
    a: &mut dyn Agent,
    b: &mut dyn Agent,
    variant: &Arc<Variant>,
    cfg: &MatchConfig,
    on_game: &mut dyn FnMut(&GameRecord),
) -> Result<MatchResult, PlayError> {
    let openings = cfg.openings.for_match(variant, cfg.games, cfg.seed);
    let (an, bn) = (a.name(), b.name());
    let mut res = MatchResult {
        a: an.clone(),
        b: bn.clone(),
        tally: Tally::default(),
        summary: score_summary(0, 0, 0),
        games: Vec::with_capacity(cfg.games),
        sprt: None,
    };
    for i in 0..cfg.games {
        let opening = i / 2;
        if cfg.task.is_some_and(|t| !t.owns(opening as u64)) {
            continue;
        }
        let a_black = i % 2 == 0;
        // each game's random streams come from the match seed and the game alone, so that a
        // match split into tasks plays the games of one process
        a.reseed(game_seed(cfg.seed, 2 * i as u64));
        b.reseed(game_seed(cfg.seed, 2 * i as u64 + 1));
        let Opening { start, moves } = openings[opening % openings.len()].clone();
        let result = if a_black {
            play_game([&mut *a, &mut *b], start, &moves, cfg.max_plies, &cfg.limits)?
        } else {
            play_game([&mut *b, &mut *a], start, &moves, cfg.max_plies, &cfg.limits)?
        };
        let (black, white) =
            if a_black { (an.clone(), bn.clone()) } else { (bn.clone(), an.clone()) };
        let rec = GameRecord { index: i, opening, a_black, black, white, result };
        res.tally.add_game(&rec);
        on_game(&rec);
        res.games.push(rec);
        if let Some(t) = &cfg.sprt {
            let st = t.status(res.tally.wins, res.tally.draws, res.tally.losses);
            res.sprt = Some(st);
            if st.decision != SprtDecision::Continue {
                break;
            }
        }
    }
    res.summary = score_summary(res.tally.wins, res.tally.draws, res.tally.losses);
    Ok(res)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::GameResult;
    use shogilab_engine::{Status, Termination};

    fn record(a_black: bool, status: Status, forfeit: Option<Color>) -> GameRecord {
        let result = GameResult {
            status,
            start_sfen: String::new(),
            moves: Vec::new(),
            plies: 0,
            opening_plies: 0,
            forfeit: forfeit.map(|c| (c, "why".to_string())),
            searched: [(0, 0); 2],
        };
        GameRecord { index: 0, opening: 0, a_black, black: "x".into(), white: "y".into(), result }
    }

    #[test]
    fn a_tally_keeps_forfeits_apart() {
        let mut t = Tally::default();
        // A (White) wins because Black forfeits; A (Black) wins over the board; A (Black)
        // forfeits; a draw
        t.add_game(&record(
            false,
            Status::Win(Color::White, Termination::IllegalMove),
            Some(Color::Black),
        ));
        t.add_game(&record(true, Status::Win(Color::Black, Termination::RoyalCaptured), None));
        t.add_game(&record(
            true,
            Status::Win(Color::White, Termination::Resignation),
            Some(Color::Black),
        ));
        t.add_game(&record(true, Status::Draw(Termination::PlyLimit), None));
        let want = Tally { wins: 2, draws: 1, losses: 1, forfeit_wins: 1, forfeit_losses: 1 };
        assert_eq!(t, want);
        assert_eq!(t.describe(), "+2 (1 by forfeit) =1 -1 (1 by forfeit)");
        assert_eq!(t.flipped().describe(), "+1 (1 by forfeit) =1 -2 (1 by forfeit)");
        assert_eq!((t.games(), t.points()), (4, 2.5));
        assert_eq!(t.plus(&t.flipped()).wins, 3);
    }
}
