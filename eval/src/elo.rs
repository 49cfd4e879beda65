//! Maximum-likelihood Elo ratings over all games of many players: the Bradley-Terry (logistic)
//! model with draws counted as half a win, `E(i beats j) = 1 / (1 + 10^((r_j - r_i) / 400))`,
//! fitted as a logistic regression on the rating differences ([`crate::logistic`]) with one
//! player anchored at 0. The 95% intervals come from the inverse of the observed Fisher
//! information (the negative Hessian of the log-likelihood).
//!
//! When the maximum does not exist (a player, or a group of players, won or lost every game)
//! the fit is repeated with one virtual draw added to every pair that played, and the result is
//! marked `regularized`.

use crate::logistic::{information, inverse_spd, logistic_fit, Design, Fit};
use thiserror::Error;

/// Natural log-odds per Elo point.
pub const LN10_400: f64 = std::f64::consts::LN_10 / 400.0;
/// Two-sided 95% normal quantile.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Expected score for a rating difference.
pub fn score_from_elo(diff: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-diff / 400.0))
}

/// Rating difference for an expected score (±infinity at 1 and 0).
pub fn elo_from_score(s: f64) -> f64 {
    if s <= 0.0 {
        f64::NEG_INFINITY
    } else if s >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / s - 1.0).log10()
    }
}

/// Games between two players: `score_a` points for `a` out of `games`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairResult {
    pub a: usize,
    pub b: usize,
    pub score_a: f64,
    pub games: f64,
}

/// Why ratings could not be fitted.
#[derive(Debug, Error, PartialEq)]
pub enum EloError {
    #[error("player index {0} out of range")]
    BadIndex(usize),
    #[error("players {0:?} played no games connected to the anchor")]
    Disconnected(Vec<usize>),
    #[error("invalid result {0:?}: a player against itself, or a score outside 0..=games")]
    BadResult(PairResult),
    #[error("the rating fit did not converge, even with a virtual draw added to every pair")]
    NoConvergence,
    #[error("the ratings' information matrix is singular: no intervals")]
    SingularInformation,
}

/// A fitted rating list.
#[derive(Debug, Clone, PartialEq)]
pub struct EloFit {
    pub ratings: Vec<f64>,
    /// Standard errors in Elo (0 for the anchor).
    pub stderr: Vec<f64>,
    /// 95% intervals.
    pub ci95: Vec<(f64, f64)>,
    /// Games and points per player.
    pub games: Vec<f64>,
    pub points: Vec<f64>,
    pub anchor: usize,
    pub regularized: bool,
    pub iterations: u32,
}

/// Points scored by `i` against `j` (`s[i][j]`) and games between them (`n[i][j]`).
struct Totals {
    s: Vec<Vec<f64>>,
    n: Vec<Vec<f64>>,
}

impl Totals {
    /// The totals of valid results, and the games and points per player.
    fn collect(
        players: usize,
        results: &[PairResult],
    ) -> Result<(Totals, Vec<f64>, Vec<f64>), EloError> {
        let mut t =
            Totals { s: vec![vec![0.0; players]; players], n: vec![vec![0.0; players]; players] };
        let mut games = vec![0.0; players];
        let mut points = vec![0.0; players];
        for r in results {
            if r.a >= players || r.b >= players {
                return Err(EloError::BadIndex(r.a.max(r.b)));
            }
            if r.a == r.b
                || r.games.is_nan()
                || r.games < 0.0
                || !(0.0..=r.games).contains(&r.score_a)
            {
                return Err(EloError::BadResult(*r));
            }
            t.s[r.a][r.b] += r.score_a;
            t.s[r.b][r.a] += r.games - r.score_a;
            t.n[r.a][r.b] += r.games;
            t.n[r.b][r.a] += r.games;
            games[r.a] += r.games;
            games[r.b] += r.games;
            points[r.a] += r.score_a;
            points[r.b] += r.games - r.score_a;
        }
        Ok((t, games, points))
    }

    /// The players without a chain of games to the anchor, as an error.
    fn check_connected(&self, anchor: usize) -> Result<(), EloError> {
        let players = self.n.len();
        let mut seen = vec![false; players];
        let mut stack = vec![anchor];
        seen[anchor] = true;
        while let Some(i) = stack.pop() {
            for (j, s) in seen.iter_mut().enumerate() {
                if !*s && self.n[i][j] > 0.0 {
                    *s = true;
                    stack.push(j);
                }
            }
        }
        let lost: Vec<usize> = (0..players).filter(|&i| !seen[i]).collect();
        if lost.is_empty() {
            Ok(())
        } else {
            Err(EloError::Disconnected(lost))
        }
    }

    /// The Bradley-Terry model as a logistic regression: one row per pair that played, with
    /// +1 in the column of the first player and -1 in the second's (the anchor has no column),
    /// target the first player's score, weight the games; `virtual_draws` adds that many
    /// drawn games to every such pair.
    fn design(&self, anchor: usize, virtual_draws: f64) -> Design {
        let players = self.n.len();
        let col = |i: usize| (i != anchor).then(|| if i < anchor { i } else { i - 1 });
        let mut d = Design::new(players - 1);
        let mut x = vec![0.0; players - 1];
        for i in 0..players {
            for j in i + 1..players {
                if self.n[i][j] <= 0.0 {
                    continue;
                }
                x.iter_mut().for_each(|v| *v = 0.0);
                if let Some(c) = col(i) {
                    x[c] = 1.0;
                }
                if let Some(c) = col(j) {
                    x[c] = -1.0;
                }
                let games = self.n[i][j] + virtual_draws;
                let y = (self.s[i][j] + 0.5 * virtual_draws) / games;
                d.push(&x, y, games, d.rows());
            }
        }
        d
    }
}

/// The maximum-likelihood coefficients (natural log-odds units, the anchor left out), if the
/// maximum exists (not beyond ±40, about ±7000 Elo: the maximum is at infinity).
fn maximum(d: &Design) -> Option<Fit> {
    let f = logistic_fit(d, None, 0.0);
    (f.converged && f.beta.iter().all(|b| b.abs() <= 40.0)).then_some(f)
}

/// Fit ratings for `players` players from pairwise results; `anchor` is fixed at 0.
pub fn fit(players: usize, results: &[PairResult], anchor: usize) -> Result<EloFit, EloError> {
    if anchor >= players {
        return Err(EloError::BadIndex(anchor));
    }
    let (t, games, points) = Totals::collect(players, results)?;
    t.check_connected(anchor)?;
    let mut design = t.design(anchor, 0.0);
    let mut regularized = false;
    let solved = match maximum(&design) {
        Some(f) => f,
        None => {
            regularized = true;
            design = t.design(anchor, 1.0);
            maximum(&design).ok_or(EloError::NoConvergence)?
        }
    };
    let p = players - 1;
    let cov =
        inverse_spd(&information(&design, &solved.beta), p).ok_or(EloError::SingularInformation)?;
    let free: Vec<usize> = (0..players).filter(|&i| i != anchor).collect();
    let mut ratings = vec![0.0; players];
    let mut stderr = vec![0.0; players];
    for (c, &i) in free.iter().enumerate() {
        ratings[i] = solved.beta[c] / LN10_400;
        stderr[i] = cov[c * p + c].max(0.0).sqrt() / LN10_400;
    }
    let ci95 = ratings.iter().zip(&stderr).map(|(r, s)| (r - Z95 * s, r + Z95 * s)).collect();
    Ok(EloFit {
        ratings,
        stderr,
        ci95,
        games,
        points,
        anchor,
        regularized,
        iterations: solved.iterations as u32,
    })
}

/// Score, its 95% interval and the Elo difference with its interval, from W/D/L counts.
///
/// The interval is the normal approximation on the per-game scores (win 1, draw 1/2, loss 0),
/// computed Agresti-Coull style with one pseudo-win and one pseudo-loss added: for large samples
/// it is the plain interval, and it does not collapse to a point when every game had the same
/// result (all losses give [0, ~3/n], not [0, 0]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoreSummary {
    pub games: u64,
    pub score: f64,
    pub score_ci: (f64, f64),
    pub elo: f64,
    pub elo_ci: (f64, f64),
}

/// Mean and variance of the per-game score (win 1, draw 1/2, loss 0) over W/D/L counts (not
/// all zero).
pub fn score_mean_variance(wins: f64, draws: f64, losses: f64) -> (f64, f64) {
    let n = wins + draws + losses;
    let s = (wins + 0.5 * draws) / n;
    let var = (wins * (1.0 - s).powi(2) + draws * (0.5 - s).powi(2) + losses * s.powi(2)) / n;
    (s, var)
}

pub fn score_summary(wins: u64, draws: u64, losses: u64) -> ScoreSummary {
    let n = wins + draws + losses;
    if n == 0 {
        return ScoreSummary {
            games: 0,
            score: 0.5,
            score_ci: (0.0, 1.0),
            elo: 0.0,
            elo_ci: (f64::NEG_INFINITY, f64::INFINITY),
        };
    }
    let nf = n as f64;
    let s = (wins as f64 + 0.5 * draws as f64) / nf;
    let (sa, var) = score_mean_variance(wins as f64 + 1.0, draws as f64, losses as f64 + 1.0);
    let se = (var / nf).sqrt();
    let lo = (sa - Z95 * se).clamp(0.0, 1.0);
    let hi = (sa + Z95 * se).clamp(0.0, 1.0);
    ScoreSummary {
        games: n,
        score: s,
        score_ci: (lo, hi),
        elo: elo_from_score(s),
        elo_ci: (elo_from_score(lo), elo_from_score(hi)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_form_two_players() {
        // A vs B: 30 wins, 20 draws, 10 losses: s = 40/60 = 2/3, Elo = -400 log10(0.5) = 120.41
        let r = [PairResult { a: 0, b: 1, score_a: 40.0, games: 60.0 }];
        let f = fit(2, &r, 1).unwrap();
        assert!((f.ratings[0] - 120.411_998).abs() < 1e-4, "{:?}", f.ratings);
        assert_eq!(f.ratings[1], 0.0);
        assert!(!f.regularized);
        // var(theta) = 1 / (N s (1 - s)) = 1 / (60 * 2/9) = 0.075; se = sqrt(0.075) * 400 / ln 10
        let se = 0.075f64.sqrt() * 400.0 / std::f64::consts::LN_10;
        assert!((f.stderr[0] - se).abs() < 1e-6, "{} vs {se}", f.stderr[0]);
        assert!((se - 47.574).abs() < 1e-2);
        assert!((elo_from_score(2.0 / 3.0) - 120.412).abs() < 1e-3);
        assert!((score_from_elo(120.411_998) - 2.0 / 3.0).abs() < 1e-9);
    }

    #[test]
    fn three_players_fit_is_stationary() {
        let r = [
            PairResult { a: 0, b: 1, score_a: 12.0, games: 20.0 },
            PairResult { a: 1, b: 2, score_a: 13.5, games: 20.0 },
            PairResult { a: 0, b: 2, score_a: 15.0, games: 20.0 },
        ];
        let f = fit(3, &r, 2).unwrap();
        // at the maximum every player's points equal the expected points
        for i in 0..3 {
            let mut exp = 0.0;
            for p in &r {
                let (x, y, s) = if p.a == i {
                    (p.a, p.b, 1.0)
                } else if p.b == i {
                    (p.b, p.a, 1.0)
                } else {
                    continue;
                };
                exp += s * p.games * score_from_elo(f.ratings[x] - f.ratings[y]);
            }
            assert!((exp - f.points[i]).abs() < 1e-6, "player {i}: {exp} vs {}", f.points[i]);
        }
        assert!(f.ratings[0] > f.ratings[1] && f.ratings[1] > f.ratings[2]);
        // anchoring elsewhere shifts every rating by the same amount
        let g = fit(3, &r, 0).unwrap();
        for i in 0..3 {
            assert!((g.ratings[i] - (f.ratings[i] - f.ratings[0])).abs() < 1e-6);
        }
    }

    #[test]
    fn perfect_score_is_regularized() {
        let r = [PairResult { a: 0, b: 1, score_a: 10.0, games: 10.0 }];
        let f = fit(2, &r, 1).unwrap();
        assert!(f.regularized);
        // one virtual draw: 10.5 / 11
        assert!((f.ratings[0] - elo_from_score(10.5 / 11.0)).abs() < 1e-6);
    }

    #[test]
    fn disconnected_players_are_reported() {
        let r = [PairResult { a: 0, b: 1, score_a: 1.0, games: 2.0 }];
        assert_eq!(fit(3, &r, 0), Err(EloError::Disconnected(vec![2])));
    }

    #[test]
    fn match_summary_matches_hand_numbers() {
        // 6 W, 2 D, 2 L: s = 0.7. With a pseudo-win and a pseudo-loss: 7 W 2 D 3 L over 12,
        // s' = 8/12, var = (7/9 + 2/36 + 12/9) / 12 = 13/72, se = sqrt(var / 10).
        let s = score_summary(6, 2, 2);
        assert!((s.score - 0.7).abs() < 1e-12);
        let sa: f64 = 8.0 / 12.0;
        let var =
            (7.0 * (1.0 - sa) * (1.0 - sa) + 2.0 * (0.5 - sa) * (0.5 - sa) + 3.0 * sa * sa) / 12.0;
        assert!((var - 13.0 / 72.0).abs() < 1e-12);
        let se = (var / 10.0).sqrt();
        assert!((s.score_ci.0 - (sa - Z95 * se)).abs() < 1e-12);
        assert!((s.elo - 147.19).abs() < 0.01);
    }

    #[test]
    fn one_sided_results_keep_an_interval() {
        let all_lost = score_summary(0, 0, 60);
        assert_eq!(all_lost.score, 0.0);
        assert!(all_lost.score_ci.0 == 0.0 && all_lost.score_ci.1 > 0.01);
        let all_drawn = score_summary(0, 60, 0);
        assert!(all_drawn.score_ci.0 < 0.5 && all_drawn.score_ci.1 > 0.5);
        let big = score_summary(600, 200, 200);
        assert!((big.score_ci.1 - big.score_ci.0) < 0.06, "large samples stay tight");
    }
}
