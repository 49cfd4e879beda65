//! A match between two agents: openings of a few random plies (no captures, so material stays
//! level), each played twice with the colours swapped, W/D/L from the first agent's side, the
//! score and Elo difference with 95% intervals, and an optional SPRT that stops the match early.

use crate::agent::{Agent, Limits};
use crate::elo::{score_summary, ScoreSummary};
use crate::play::{play_game, GameResult, PlayError};
use crate::sprt::{Sprt, SprtDecision, SprtStatus};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use shogilab_engine::{Color, Game, Move, Position, Variant};
use std::sync::Arc;

/// Match settings.
#[derive(Debug, Clone)]
pub struct MatchConfig {
    pub games: usize,
    /// Ply cap per game (a draw when reached); 0 = none.
    pub max_plies: u32,
    pub limits: Limits,
    /// Random plies of each opening.
    pub opening_plies: usize,
    pub seed: u64,
    /// Stop when the test decides.
    pub sprt: Option<Sprt>,
}

impl Default for MatchConfig {
    fn default() -> Self {
        MatchConfig {
            games: 2,
            max_plies: 400,
            limits: Limits::default(),
            opening_plies: 4,
            seed: 1,
            sprt: None,
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

/// A finished (or stopped) match.
#[derive(Debug, Clone)]
pub struct MatchResult {
    pub a: String,
    pub b: String,
    /// From A's side.
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    pub summary: ScoreSummary,
    pub games: Vec<GameRecord>,
    pub sprt: Option<SprtStatus>,
}

impl MatchResult {
    pub fn forfeits(&self) -> usize {
        self.games.iter().filter(|g| g.result.forfeit.is_some()).count()
    }

    /// One line for humans.
    pub fn describe(&self) -> String {
        let s = &self.summary;
        let mut out = format!(
            "{} vs {}: +{} ={} -{} ({} games), score {:.3} [{:.3}, {:.3}], Elo {:+.1} [{:+.1}, {:+.1}]",
            self.a, self.b, self.wins, self.draws, self.losses, s.games, s.score, s.score_ci.0,
            s.score_ci.1, s.elo, s.elo_ci.0, s.elo_ci.1
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
        out
    }
}

/// `n` openings of `plies` random legal plies from the start position, without captures (so
/// both sides keep equal material) and not ending the game. Deterministic for a seed.
pub fn random_openings(v: &Arc<Variant>, n: usize, plies: usize, seed: u64) -> Vec<Vec<Move>> {
    let mut rng = SmallRng::seed_from_u64(seed ^ 0x6f70_656e_696e_6773);
    let start = Position::start(v);
    let mut out = Vec::with_capacity(n);
    let mut attempts = 0;
    while out.len() < n {
        attempts += 1;
        let mut g = Game::new(start.clone());
        let mut line = Vec::with_capacity(plies);
        let mut ok = true;
        for _ in 0..plies {
            let pos = g.position();
            let quiet: Vec<Move> = g
                .legal()
                .iter()
                .copied()
                .filter(|m| {
                    m.is_drop()
                        || (m.mids().chain([m.to]).all(|s| s == m.from || pos.cell(s) == 0)
                            && !m.promotes())
                })
                .collect();
            if quiet.is_empty() {
                ok = false;
                break;
            }
            let m = quiet[rng.gen_range(0..quiet.len())];
            g.play(m);
            line.push(m);
            if g.status().is_over() {
                ok = false;
                break;
            }
        }
        if ok || attempts > 100 * (n + 1) {
            out.push(if ok { line } else { Vec::new() });
        }
    }
    out
}

/// Play a match. `on_game` sees every game as it finishes (for progress and streaming output).
pub fn run_match(
    a: &mut dyn Agent,
    b: &mut dyn Agent,
    variant: &Arc<Variant>,
    cfg: &MatchConfig,
    on_game: &mut dyn FnMut(&GameRecord),
) -> Result<MatchResult, PlayError> {
    let openings =
        random_openings(variant, cfg.games.div_ceil(2).max(1), cfg.opening_plies, cfg.seed);
    let (an, bn) = (a.name(), b.name());
    let mut res = MatchResult {
        a: an.clone(),
        b: bn.clone(),
        wins: 0,
        draws: 0,
        losses: 0,
        summary: score_summary(0, 0, 0),
        games: Vec::with_capacity(cfg.games),
        sprt: None,
    };
    for i in 0..cfg.games {
        let opening = i / 2;
        let a_black = i % 2 == 0;
        let start = Position::start(variant);
        let moves = &openings[opening.min(openings.len() - 1)];
        let result = if a_black {
            play_game([&mut *a, &mut *b], start, moves, cfg.max_plies, &cfg.limits)?
        } else {
            play_game([&mut *b, &mut *a], start, moves, cfg.max_plies, &cfg.limits)?
        };
        let (black, white) =
            if a_black { (an.clone(), bn.clone()) } else { (bn.clone(), an.clone()) };
        let rec = GameRecord { index: i, opening, a_black, black, white, result };
        let s = rec.score_a();
        if s > 0.75 {
            res.wins += 1;
        } else if s < 0.25 {
            res.losses += 1;
        } else {
            res.draws += 1;
        }
        on_game(&rec);
        res.games.push(rec);
        if let Some(t) = &cfg.sprt {
            let st = t.status(res.wins, res.draws, res.losses);
            res.sprt = Some(st);
            if st.decision != SprtDecision::Continue {
                break;
            }
        }
    }
    res.summary = score_summary(res.wins, res.draws, res.losses);
    Ok(res)
}
