//! What a ladder keeps of its games: one [`PairLog`] per pairing (the round robin's and the
//! head-to-head matches'), saved as JSON in the work folder and read back when a run resumes,
//! and the [`LadderResult`] the report is written from. Nothing here is parsed from Markdown.

use serde::{Deserialize, Serialize};
use shogilab_eval::elo::{score_summary, ScoreSummary};
use shogilab_eval::gauntlet::EloRow;
use shogilab_eval::play::side_name;
use shogilab_eval::r#match::{MatchResult, Tally};
use shogilab_eval::xboard_client::{REFUSED_LEGAL, REFUSED_REPETITION};

/// A forfeit: who forfeited and why (the referee's words).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ForfeitLog {
    /// `black` or `white`.
    pub side: String,
    /// The agent that forfeited (its ladder name).
    pub agent: String,
    pub reason: String,
}

/// One game.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct GameLog {
    pub black: String,
    pub white: String,
    /// `1-0` (Black won), `0-1`, `1/2-1/2`.
    pub result: String,
    /// How it ended (`royal-captured`, `ply-limit`, `illegal-move`, ...).
    pub termination: Option<String>,
    pub plies: usize,
    pub forfeit: Option<ForfeitLog>,
    /// The game as a `shogilab replay` line.
    pub line: String,
}

/// One pairing: every game, the tally from A's side and the wall time it took.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct PairLog {
    pub a: String,
    pub b: String,
    pub tally: Tally,
    pub games: Vec<GameLog>,
    pub wall_seconds: f64,
}

impl PairLog {
    /// The games of `r`, whose agents are named `a` and `b` on the ladder.
    pub fn from_match(r: &MatchResult, a: &str, b: &str, wall_seconds: f64) -> PairLog {
        let games = r
            .games
            .iter()
            .map(|g| {
                let (black, white) = if g.a_black { (a, b) } else { (b, a) };
                let forfeit = g.result.forfeit.as_ref().map(|(c, reason)| ForfeitLog {
                    side: side_name(*c).to_string(),
                    agent: if side_name(*c) == "black" { black } else { white }.to_string(),
                    reason: reason.clone(),
                });
                GameLog {
                    black: black.to_string(),
                    white: white.to_string(),
                    result: g.result.result_str().to_string(),
                    termination: g.result.status.termination().map(|t| t.as_str().to_string()),
                    plies: g.result.plies,
                    forfeit,
                    line: g.result.replay_line(),
                }
            })
            .collect();
        PairLog { a: a.into(), b: b.into(), tally: r.tally, games, wall_seconds }
    }

    /// Score and Elo difference of A with 95% intervals.
    pub fn summary(&self) -> ScoreSummary {
        score_summary(self.tally.wins, self.tally.draws, self.tally.losses)
    }
}

/// Kinds of forfeit, for the report's counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ForfeitKind {
    /// An engine refused a legal move that repeats an earlier position (stricter rules).
    RefusedRepetition,
    /// An engine refused another legal move of its opponent.
    RefusedLegal,
    /// No answer in time.
    Timeout,
    /// The engine process ended or could not start.
    Crash,
    /// An illegal or unparsable move of the agent itself, or a false win claim.
    IllegalMove,
    /// Anything else the agent failed at.
    Other,
}

impl ForfeitKind {
    /// The kind of a referee's forfeit reason.
    pub fn of(reason: &str) -> ForfeitKind {
        if reason.contains(REFUSED_REPETITION) {
            ForfeitKind::RefusedRepetition
        } else if reason.contains(REFUSED_LEGAL) {
            ForfeitKind::RefusedLegal
        } else if reason.contains("no answer to") {
            ForfeitKind::Timeout
        } else if reason.contains("engine process ended") || reason.contains("cannot start") {
            ForfeitKind::Crash
        } else if reason.starts_with("illegal move") || reason.contains("false win") {
            ForfeitKind::IllegalMove
        } else {
            ForfeitKind::Other
        }
    }

    /// What the kind means, for the report.
    pub fn explain(self) -> &'static str {
        match self {
            ForfeitKind::RefusedRepetition => {
                "refused a legal move of its opponent that recreates an earlier position: the \
                 engine's repetition rule is stricter than this variant's (HaChu forbids every \
                 repetition); scored as the engine's forfeit, not a loss over the board"
            }
            ForfeitKind::RefusedLegal => "refused a legal move of its opponent",
            ForfeitKind::Timeout => "no answer within the time allowed",
            ForfeitKind::Crash => "the engine process ended or could not start",
            ForfeitKind::IllegalMove => {
                "played an illegal or unparsable move, or claimed a win falsely"
            }
            ForfeitKind::Other => "another failure (see the reason)",
        }
    }
}

/// An agent of the ladder as it played.
#[derive(Debug, Clone, PartialEq)]
pub struct LadderAgent {
    pub name: String,
    pub spec: String,
    /// The limits in words, as played.
    pub limits: String,
    pub note: String,
}

/// An agent left out, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct LeftOut {
    pub name: String,
    /// The missing file and how to get it.
    pub reason: String,
}

/// Everything the report is written from.
#[derive(Debug, Clone)]
pub struct LadderResult {
    pub variant: String,
    /// The agent at Elo 0.
    pub anchor: String,
    pub agents: Vec<LadderAgent>,
    pub left_out: Vec<LeftOut>,
    /// Best first.
    pub table: Vec<EloRow>,
    pub regularized: bool,
    /// The round robin's pairings, in playing order.
    pub pairs: Vec<PairLog>,
    pub h2h: Vec<PairLog>,
    /// Pairings (round robin and head-to-head) read back from the work folder.
    pub reused: usize,
    /// Pairings played by this run.
    pub played: usize,
    /// External things used, with the version of their Debian package when known.
    pub externals: Vec<(String, String)>,
}

impl LadderResult {
    /// Every game of the round robin.
    pub fn round_robin_games(&self) -> impl Iterator<Item = &GameLog> {
        self.pairs.iter().flat_map(|p| p.games.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forfeit_reasons_are_classified() {
        let rep = format!("hachu: protocol error: {REFUSED_REPETITION}: ply 3 `a1a2`");
        assert_eq!(ForfeitKind::of(&rep), ForfeitKind::RefusedRepetition);
        let legal = format!("hachu: protocol error: {REFUSED_LEGAL}: ply 3 `a1a2`");
        assert_eq!(ForfeitKind::of(&legal), ForfeitKind::RefusedLegal);
        assert_eq!(
            ForfeitKind::of("x: no answer to go (move) within 1000 ms"),
            ForfeitKind::Timeout
        );
        assert_eq!(ForfeitKind::of("x: engine process ended (exited)"), ForfeitKind::Crash);
        assert_eq!(ForfeitKind::of("illegal move \"f2f3\": no piece"), ForfeitKind::IllegalMove);
        assert_eq!(ForfeitKind::of("something new"), ForfeitKind::Other);
    }
}
