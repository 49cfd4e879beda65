//! The games behind a disagreement between a measured value and a reference table.
//!
//! A logged imbalance game is predicted by the material balance of its setup: the sum, over
//! the kinds whose counts differ, of count difference times value. For one kind, the games
//! that *decide* between two values of it are those whose predicted winner changes when that
//! kind alone takes the other value (every other kind keeps its measured value). How the side
//! that the measured value favours scored in exactly those games says which of the two values
//! the engine's games support, and the shortest decisive ones are games a reader can replay
//! (`shogilab replay`) to see it.

use super::imbalance::GameLine;
use super::odds;
use super::report::short;
use crate::elo::{score_summary, ScoreSummary};
use std::collections::BTreeMap;

/// The games that decide between a kind's measured value and another value of it.
#[derive(Debug, Clone)]
pub struct Deciding {
    pub kind: String,
    /// The kind's measured value and the value it is compared with.
    pub measured: f64,
    pub other: f64,
    /// Wins, draws and losses of the side that the measured value favours.
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// Their score with its 95% interval.
    pub summary: ScoreSummary,
    /// The decisive games that agree with the majority (at most the number asked for), the
    /// easiest to read first: fewest pieces in the difference, then fewest plies.
    pub examples: Vec<GameLine>,
}

impl Deciding {
    /// The side the games support, in words: the measurement, the other value, or neither
    /// (the interval contains one half).
    pub fn verdict(&self) -> Verdict {
        let (lo, hi) = self.summary.score_ci;
        if self.summary.games == 0 {
            Verdict::NoGames
        } else if lo > 0.5 {
            Verdict::Measured
        } else if hi < 0.5 {
            Verdict::Other
        } else {
            Verdict::Undecided
        }
    }
}

/// Which value the deciding games support.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    NoGames,
    Measured,
    Other,
    Undecided,
}

/// Black's material balance of a game under `values` (per kind name); None when a kind of the
/// game's difference has no finite value.
fn balance(g: &GameLine, values: &BTreeMap<String, f64>) -> Option<f64> {
    let mut sum = 0.0;
    for (kind, n) in &g.diff {
        let v = values.get(kind).copied().filter(|v| v.is_finite())?;
        sum += f64::from(*n) * v;
    }
    Some(sum)
}

/// The games of `games` (odds games left out) whose predicted winner under `values` changes
/// when `kind` alone is worth `other`, scored from the side that `values` favours; up to
/// `examples` of the decisive ones that agree with the majority of the results, those with the
/// fewest pieces in the difference first, then the shortest.
pub fn deciding_games(
    games: &[GameLine],
    values: &BTreeMap<String, f64>,
    kind: &str,
    other: f64,
    examples: usize,
) -> Deciding {
    let measured = values.get(kind).copied().unwrap_or(f64::NAN);
    let (mut w, mut d, mut l) = (0u64, 0u64, 0u64);
    let mut won_by = (Vec::new(), Vec::new()); // (favoured side won, other side won)
    for g in games.iter().filter(|g| !odds::is_odds(&g.agent)) {
        let Some(&n) = g.diff.get(kind) else { continue };
        let Some(m) = balance(g, values) else { continue };
        let alt = m + f64::from(n) * (other - measured);
        if m * alt >= 0.0 {
            continue;
        }
        let score = if m > 0.0 { g.result } else { 1.0 - g.result };
        match score {
            s if s > 0.75 => {
                w += 1;
                won_by.0.push(g)
            }
            s if s < 0.25 => {
                l += 1;
                won_by.1.push(g)
            }
            _ => d += 1,
        }
    }
    let summary = score_summary(w, d, l);
    let mut shown = if summary.score >= 0.5 { won_by.0 } else { won_by.1 };
    shown.retain(|g| !g.moves.is_empty());
    shown.sort_by_key(|g| {
        (g.diff.values().map(|n| n.unsigned_abs()).sum::<u32>(), g.plies, g.setup, g.swap)
    });
    let examples = shown.into_iter().take(examples).cloned().collect();
    Deciding { kind: kind.into(), measured, other, wins: w, draws: d, losses: l, summary, examples }
}

/// One game as a line that `shogilab replay --file` reads.
pub fn replay_line(g: &GameLine) -> String {
    format!("sfen {} moves {}", g.sfen, g.moves)
}

/// The example games of `deciding`, one [`replay_line`] each, in the order given: the file
/// whose lines a report cites as `line N`.
pub fn replay_file<'a>(deciding: impl IntoIterator<Item = &'a Deciding>) -> String {
    let mut s = String::new();
    for game in deciding.into_iter().flat_map(|d| &d.examples) {
        s.push_str(&replay_line(game));
        s.push('\n');
    }
    s
}

/// The material difference of a game in words, from the side with more of the kind: `lion
/// vs dragon king, 2 rook` (counts above one written before the name).
pub fn difference_words(g: &GameLine, kind: &str) -> String {
    let sign = g.diff.get(kind).map_or(1, |n| n.signum());
    let side = |want: i32| {
        let words: Vec<String> = (g.diff.iter())
            .filter(|(_, n)| n.signum() == want)
            .map(|(k, n)| if n.abs() == 1 { k.clone() } else { format!("{} {k}", n.abs()) })
            .collect();
        if words.is_empty() {
            "nothing".to_string()
        } else {
            words.join(", ")
        }
    };
    format!("{} vs {}", side(sign), side(-sign))
}

/// Whether the side with more pieces of `kind` won the game.
fn kind_side_won(g: &GameLine, kind: &str) -> bool {
    g.diff.get(kind).is_some_and(|&n| (n > 0) == (g.result > 0.5))
}

/// The deciding games of one kind in words, from `; N games decide between its value X and Y`
/// to the easiest of them to read, each cited as `line N` of an evidence file (one
/// [`replay_line`] per example, in the order cited); advances `line_no` over the games cited.
pub fn games_words(d: &Deciding, line_no: &mut usize) -> String {
    let count = format!(
        "{} games decide between its value {} and {}",
        d.summary.games,
        short(d.measured),
        short(d.other)
    );
    if d.verdict() == Verdict::NoGames {
        return format!("; {count}: none");
    }
    let (lo, hi) = d.summary.score_ci;
    let verdict = match d.verdict() {
        Verdict::Measured => "the games support the engine's value",
        Verdict::Other => "the games support the scaled reference",
        _ => "the games do not decide",
    };
    let cited: Vec<String> = (d.examples.iter())
        .map(|g| {
            *line_no += 1;
            format!(
                "line {} (setup {}/{}: {}, the {} side {} in {} plies)",
                *line_no,
                g.setup,
                g.swap,
                difference_words(g, &d.kind),
                d.kind,
                if kind_side_won(g, &d.kind) { "won" } else { "lost" },
                g.plies
            )
        })
        .collect();
    let shown =
        if cited.is_empty() { String::new() } else { format!("; e.g. {}", cited.join(", ")) };
    format!(
        "; {count}: the side its value favours scored +{} ={} -{}, {:.3} [{:.3}, {:.3}]: {verdict}{shown}",
        d.wins, d.draws, d.losses, d.summary.score, lo, hi
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(setup: usize, diff: &[(&str, i32)], result: f64, plies: u32) -> GameLine {
        GameLine {
            setup,
            swap: 0,
            agent: "ab1q-test".into(),
            seed: 0,
            sfen: "9/9/9/9/9/9/9/9/9 b - 1".into(),
            diff: diff.iter().map(|(k, n)| (k.to_string(), *n)).collect(),
            result,
            plies,
            termination: "royal-captured".into(),
            ms: 0,
            moves: "7g7f".into(),
        }
    }

    #[test]
    fn only_games_whose_predicted_winner_flips_are_counted_from_the_favoured_side() {
        let values: BTreeMap<String, f64> =
            [("lion", 8.0), ("rook", 3.0), ("pawn", 1.0)].map(|(k, v)| (k.into(), v)).into();
        let games = vec![
            // lion vs 2 rooks: +2 with the measured 8, -? with 5: flips; Black (lion) wins
            game(0, &[("lion", 1), ("rook", -2)], 1.0, 90),
            // the same the other way round: White has the lion and wins
            game(1, &[("lion", -1), ("rook", 2)], 0.0, 40),
            // lion side loses once, in a longer game
            game(2, &[("lion", 1), ("rook", -2)], 0.0, 120),
            // lion vs 3 rooks: -1 measured, -4 at 5: no flip
            game(3, &[("lion", 1), ("rook", -3)], 1.0, 10),
            // no lion: never counted
            game(4, &[("rook", 1), ("pawn", -3)], 1.0, 10),
            // a kind without a value: left out
            game(5, &[("lion", 1), ("rook", -2), ("queen", 1)], 1.0, 10),
            // a draw that flips
            game(6, &[("lion", 1), ("rook", -2)], 0.5, 300),
        ];
        let d = deciding_games(&games, &values, "lion", 5.0, 2);
        assert_eq!((d.wins, d.draws, d.losses), (2, 1, 1));
        assert!((d.summary.score - 2.5 / 4.0).abs() < 1e-12);
        let shown: Vec<usize> = d.examples.iter().map(|g| g.setup).collect();
        assert_eq!(shown, vec![1, 0], "the favoured side's wins, shortest first");
        assert_eq!(d.verdict(), Verdict::Undecided);
        assert_eq!(difference_words(&games[1], "lion"), "lion vs 2 rook");
        assert_eq!(difference_words(&games[4], "lion"), "rook vs 3 pawn");
        assert!(replay_line(&games[0]).ends_with("b - 1 moves 7g7f"));
    }

    #[test]
    fn a_clear_majority_gives_a_verdict_and_no_games_say_so() {
        let values: BTreeMap<String, f64> =
            [("lion", 8.0), ("rook", 3.0)].map(|(k, v)| (k.into(), v)).into();
        let games: Vec<GameLine> =
            (0..60).map(|i| game(i, &[("lion", 1), ("rook", -2)], 0.0, 50)).collect();
        let d = deciding_games(&games, &values, "lion", 5.0, 3);
        assert_eq!(d.verdict(), Verdict::Other);
        assert_eq!(d.examples.len(), 3);
        let none = deciding_games(&games, &values, "lion", 7.0, 3);
        assert_eq!(none.verdict(), Verdict::NoGames);
        assert!(none.examples.is_empty());
    }
}
