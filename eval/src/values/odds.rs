//! Odds games and the unit's calibration (H.G. Muller's way of giving a unit a meaning).
//!
//! An odds setup is the start array less one piece of one kind on one side (which piece of
//! the kind is drawn at random per setup), played twice like every imbalance setup: as drawn
//! and rotated with the colours swapped, so the side without the piece moves first once. The
//! games go to the same log as the imbalance games, under setup rules `odds-<kind>`
//! (`shogilab values --odds KIND`).
//!
//! The score that the side with the piece makes over these games, as a logit, is what one
//! piece of the kind is worth between these engines, measured directly. The imbalance
//! regression measures the same quantity as the kind's coefficient (the change in the log-odds
//! of the score per extra piece) from other games, so the two can be set side by side, and a
//! value in units of the kind can be divided by the odds logit instead of the coefficient: "as
//! much as that many pieces of the kind between these engines".

use super::imbalance::{rules_of, setup_pair, start_pieces, GameLine, ImbalanceError};
use super::stats::{bootstrap_multiplicities, percentile_interval, WithInterval};
use super::Kinds;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use shogilab_engine::{Color, Position, Variant};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The start of the setup-rules id of odds games (`odds-gold-general`).
pub const RULES_PREFIX: &str = "odds-";

/// Whether a logged game's `agent` string is that of an odds game.
pub fn is_odds(agent: &str) -> bool {
    rules_of(agent).starts_with(RULES_PREFIX)
}

/// The kinds that odds games can take away: non-royal kinds that Black has in the start array.
pub fn kinds_available(v: &Arc<Variant>, kinds: &Kinds) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (_, col, t, _) in start_pieces(v) {
        let k = kinds.of_type[t as usize];
        if col == Color::Black && !kinds.royal[k] && !out.contains(&kinds.names[k]) {
            out.push(kinds.names[k].clone());
        }
    }
    out
}

/// Refuse odds of a kind that the start array does not give Black, or a royal kind.
pub fn check(v: &Arc<Variant>, kinds: &Kinds, kind: &str) -> Result<(), ImbalanceError> {
    let available = kinds_available(v, kinds);
    if available.iter().any(|k| k == kind) {
        return Ok(());
    }
    Err(ImbalanceError::OddsKind { kind: kind.into(), available: available.join(", ") })
}

/// One odds setup: Black loses one piece of `kind`, drawn from `rng` among its pieces of the
/// kind; the start array unchanged if it has none (refused before by [`check`]).
pub(super) fn draw(
    v: &Arc<Variant>,
    kinds: &Kinds,
    kind: &str,
    rng: &mut SmallRng,
) -> [Position; 2] {
    let mut pieces = start_pieces(v);
    let of_kind: Vec<usize> = (0..pieces.len())
        .filter(|&i| {
            let (_, col, t, _) = pieces[i];
            col == Color::Black && kinds.names[kinds.of_type[t as usize]] == kind
        })
        .collect();
    if !of_kind.is_empty() {
        pieces[of_kind[rng.gen_range(0..of_kind.len())]].3 = false;
    }
    setup_pair(v, &pieces)
}

/// The odds games of one kind, summed up.
#[derive(Debug, Clone)]
pub struct Calibration {
    /// The kind given as odds.
    pub kind: String,
    pub games: usize,
    pub setups: usize,
    /// Games that ended in a win for either side.
    pub decisive: usize,
    /// Mean score of the side with the piece, with its 95% bootstrap interval (over setups).
    pub score: WithInterval,
    /// The same as the log-odds of the score: one piece of the kind in logit units.
    pub logit: WithInterval,
    /// Bootstrap draws of `logit`, one per resample (paired with a regression's draws of the
    /// same index when the two are combined).
    pub draws: Vec<f64>,
}

/// Log-odds of a score (infinite at 0 and 1).
pub fn logit(score: f64) -> f64 {
    (score / (1.0 - score)).ln()
}

/// Per odds game: the kind taken away and the score of the side that has it. A game whose
/// setup differs by other than one piece of one kind is refused (not an odds game).
fn outcomes(games: &[&GameLine]) -> Result<Vec<(String, usize, f64)>, ImbalanceError> {
    games
        .iter()
        .map(|g| {
            let mut diff = g.diff.iter().filter(|(_, n)| **n != 0);
            match (diff.next(), diff.next()) {
                (Some((kind, &n)), None) if n.abs() == 1 => {
                    let score = if n > 0 { g.result } else { 1.0 - g.result };
                    Ok((kind.clone(), g.setup, score))
                }
                _ => Err(ImbalanceError::NotOdds { setup: g.setup, swap: g.swap }),
            }
        })
        .collect()
}

/// Calibrations from every odds game of a log (other games are passed over), one per kind
/// given as odds, in name order; `resamples` bootstrap resamples of setups, seeded by `seed`.
pub fn calibrate(
    games: &[GameLine],
    resamples: usize,
    seed: u64,
) -> Result<Vec<Calibration>, ImbalanceError> {
    let odds: Vec<&GameLine> = games.iter().filter(|g| is_odds(&g.agent)).collect();
    // kind -> setup -> (score sum, games)
    let mut by_kind: BTreeMap<String, BTreeMap<usize, (f64, f64)>> = BTreeMap::new();
    let mut decisive: BTreeMap<String, usize> = BTreeMap::new();
    for (kind, setup, score) in outcomes(&odds)? {
        *decisive.entry(kind.clone()).or_default() += usize::from(score != 0.5);
        let cell = by_kind.entry(kind).or_default().entry(setup).or_default();
        cell.0 += score;
        cell.1 += 1.0;
    }
    Ok(by_kind
        .into_iter()
        .map(|(kind, setups)| {
            let cells: Vec<(f64, f64)> = setups.into_values().collect();
            let (score, draws) = bootstrap_score(&cells, resamples, seed);
            let games = cells.iter().map(|c| c.1).sum::<f64>() as usize;
            let decisive = decisive.get(&kind).copied().unwrap_or(0);
            let logits: Vec<f64> = draws.iter().map(|&s| logit(s)).collect();
            let (lo, hi) = percentile_interval(&draws);
            Calibration {
                score: (score, lo, hi),
                logit: (logit(score), logit(lo), logit(hi)),
                draws: logits,
                kind,
                games,
                setups: cells.len(),
                decisive,
            }
        })
        .collect())
}

/// Mean score over setup cells (score sum, games), and its bootstrap draws over setups.
fn bootstrap_score(cells: &[(f64, f64)], resamples: usize, seed: u64) -> (f64, Vec<f64>) {
    let mean = |w: &dyn Fn(usize) -> f64| {
        let (s, n) = cells
            .iter()
            .enumerate()
            .fold((0.0, 0.0), |(s, n), (i, c)| (s + w(i) * c.0, n + w(i) * c.1));
        if n > 0.0 {
            s / n
        } else {
            f64::NAN
        }
    };
    let mut rng = SmallRng::seed_from_u64(seed ^ 0x6f64_6473);
    let draws = (0..resamples)
        .map(|_| {
            let m = bootstrap_multiplicities(cells.len(), &mut rng);
            mean(&|i| m[i])
        })
        .collect();
    (mean(&|_| 1.0), draws)
}

/// `effect` draws (a regression's coefficient of every kind, per resample) divided by the
/// paired odds-logit draws: values in units of the odds kind, each with its 95% interval;
/// NaN where a kind has no effect. Pairs run to the shorter of the two lists.
pub fn calibrated_values(
    effects: &[f64],
    effect_draws: &[Vec<f64>],
    cal: &Calibration,
) -> Vec<WithInterval> {
    (0..effects.len())
        .map(|k| {
            let draws: Vec<f64> = effect_draws
                .iter()
                .zip(&cal.draws)
                .map(|(e, &u)| if u > 0.0 { e[k] / u } else { f64::NAN })
                .filter(|x| x.is_finite())
                .collect();
            let value = if cal.logit.0 > 0.0 { effects[k] / cal.logit.0 } else { f64::NAN };
            let (lo, hi) = if draws.len() * 20 < cal.draws.len() * 19 {
                (f64::NAN, f64::NAN) // over 5% of the unit draws not positive: unbounded
            } else {
                percentile_interval(&draws)
            };
            (value, lo, hi)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(agent: &str, setup: usize, swap: u8, diff: &[(&str, i32)], result: f64) -> GameLine {
        GameLine {
            setup,
            swap,
            agent: agent.into(),
            seed: 0,
            sfen: String::new(),
            diff: diff.iter().map(|(k, n)| (k.to_string(), *n)).collect(),
            result,
            plies: 10,
            termination: "checkmate".into(),
            ms: 1,
            moves: String::new(),
        }
    }

    #[test]
    fn an_odds_setup_is_the_start_array_less_one_piece_of_the_kind_on_each_side_in_turn() {
        let v = Variant::builtin("chu").unwrap();
        let kinds = Kinds::new(&v);
        let mut rng = SmallRng::seed_from_u64(5);
        let [drawn, mirrored] = draw(&v, &kinds, "gold general", &mut rng);
        let gold = kinds.index("gold general").unwrap();
        let d = kinds.diff(&drawn, Color::Black);
        assert_eq!(d[gold], -1.0);
        assert_eq!(d.iter().filter(|x| **x != 0.0).count(), 1, "one piece of one kind less");
        assert_eq!(kinds.diff(&mirrored, Color::Black)[gold], 1.0, "mirrored: White lacks it");
        assert!(check(&v, &kinds, "gold general").is_ok());
        let err = check(&v, &kinds, "king").unwrap_err().to_string();
        assert!(err.contains("\"king\"") && err.contains("gold general"), "{err}");
        assert!(check(&v, &kinds, "prince").is_err(), "not in the start array");
    }

    #[test]
    fn calibration_scores_the_side_with_the_piece_and_passes_over_other_games() {
        let odds = "ab1q-x-odds-pawn";
        let games = vec![
            // setup 0: the side with the pawn wins both colours
            game(odds, 0, 0, &[("pawn", -1)], 0.0),
            game(odds, 0, 1, &[("pawn", 1)], 1.0),
            // setup 1: a draw and a loss for the side with the pawn
            game(odds, 1, 0, &[("pawn", -1)], 0.5),
            game(odds, 1, 1, &[("pawn", 1)], 0.0),
            // an imbalance game: not an odds game
            game("ab1q-x-rm3p3pr0.6", 0, 0, &[("rook", 2)], 0.0),
        ];
        let cal = calibrate(&games, 200, 1).unwrap();
        assert_eq!(cal.len(), 1);
        let c = &cal[0];
        assert_eq!((c.kind.as_str(), c.games, c.setups, c.decisive), ("pawn", 4, 2, 3));
        assert!((c.score.0 - 2.5 / 4.0).abs() < 1e-12);
        assert!((c.logit.0 - (2.5f64 / 1.5).ln()).abs() < 1e-12);
        assert!(c.score.1 <= c.score.0 && c.score.0 <= c.score.2);
        assert_eq!(c.draws.len(), 200);
        let bad = vec![game(odds, 0, 0, &[("pawn", -1), ("rook", 1)], 0.0)];
        assert!(calibrate(&bad, 10, 1).is_err(), "two kinds differ: not an odds game");
    }

    #[test]
    fn calibrated_values_divide_the_effects_by_the_odds_logit() {
        let cal = Calibration {
            kind: "pawn".into(),
            games: 100,
            setups: 50,
            decisive: 100,
            score: (0.6, 0.5, 0.7),
            logit: (0.5, 0.1, 0.9),
            draws: vec![0.4, 0.5, 0.6],
        };
        let draws = vec![vec![0.4, 4.0], vec![0.5, 5.0], vec![0.6, 6.0]];
        let out = calibrated_values(&[0.5, 5.0], &draws, &cal);
        assert!((out[1].0 - 10.0).abs() < 1e-12);
        assert!((out[0].1 - 1.0).abs() < 1e-12 && (out[0].2 - 1.0).abs() < 1e-12);
        let unbounded = Calibration { draws: vec![0.5, -0.1, 0.5], ..cal };
        assert!(calibrated_values(&[0.5, 5.0], &draws, &unbounded)[1].1.is_nan());
    }
}
