//! Maximum-likelihood Elo ratings over all games of many players: the Bradley-Terry (logistic)
//! model with draws counted as half a win, `E(i beats j) = 1 / (1 + 10^((r_j - r_i) / 400))`,
//! fitted by Newton's method with one player anchored at 0. The 95% intervals come from the
//! inverse of the observed Fisher information (the negative Hessian of the log-likelihood).
//!
//! When the maximum does not exist (a player, or a group of players, won or lost every game)
//! the fit is repeated with one virtual draw added to every pair that played, and the result is
//! marked `regularized`.

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

#[derive(Debug, Error, PartialEq)]
pub enum EloError {
    #[error("player index {0} out of range")]
    BadIndex(usize),
    #[error("players {0:?} played no games connected to the anchor")]
    Disconnected(Vec<usize>),
    #[error("invalid result: {0}")]
    BadResult(String),
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

/// Solve `a x = b` (symmetric positive definite in practice) by Gaussian elimination with
/// partial pivoting. Returns None for a singular matrix.
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    for c in 0..n {
        let p = (c..n).max_by(|&i, &j| a[i][c].abs().total_cmp(&a[j][c].abs()))?;
        if a[p][c].abs() < 1e-300 {
            return None;
        }
        a.swap(c, p);
        b.swap(c, p);
        let (top, rest) = a.split_at_mut(c + 1);
        let pivot = &top[c];
        for (k, row) in rest.iter_mut().enumerate() {
            let f = row[c] / pivot[c];
            for (x, p) in row[c..].iter_mut().zip(&pivot[c..]) {
                *x -= f * p;
            }
            b[c + 1 + k] -= f * b[c];
        }
    }
    let mut x = vec![0.0; n];
    for r in (0..n).rev() {
        let s: f64 = (r + 1..n).map(|k| a[r][k] * x[k]).sum();
        x[r] = (b[r] - s) / a[r][r];
    }
    Some(x)
}

fn invert(a: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    let mut cols = Vec::with_capacity(n);
    for i in 0..n {
        let mut e = vec![0.0; n];
        e[i] = 1.0;
        cols.push(solve(a.to_vec(), e)?);
    }
    Some((0..n).map(|r| (0..n).map(|c| cols[c][r]).collect()).collect())
}

struct Totals {
    s: Vec<Vec<f64>>,
    n: Vec<Vec<f64>>,
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

fn loglik(t: &Totals, th: &[f64]) -> f64 {
    let k = th.len();
    let mut l = 0.0;
    for i in 0..k {
        for j in 0..k {
            if t.n[i][j] > 0.0 {
                let e = sigmoid(th[i] - th[j]).clamp(1e-300, 1.0);
                l += t.s[i][j] * e.ln();
            }
        }
    }
    l
}

/// Newton iterations; None when they do not converge (no finite maximum).
fn newton(t: &Totals, anchor: usize) -> Option<(Vec<f64>, Vec<Vec<f64>>, u32)> {
    let k = t.n.len();
    let free: Vec<usize> = (0..k).filter(|&i| i != anchor).collect();
    let mut th = vec![0.0; k];
    for it in 1..=200u32 {
        let mut g = vec![0.0; free.len()];
        let mut h = vec![vec![0.0; free.len()]; free.len()];
        let pos_of = |i: usize| free.iter().position(|&f| f == i);
        for (fi, &i) in free.iter().enumerate() {
            for j in 0..k {
                if j == i || t.n[i][j] <= 0.0 {
                    continue;
                }
                let e = sigmoid(th[i] - th[j]);
                g[fi] += t.s[i][j] - t.n[i][j] * e;
                let w = t.n[i][j] * e * (1.0 - e);
                h[fi][fi] += w;
                if let Some(fj) = pos_of(j) {
                    h[fi][fj] -= w;
                }
            }
        }
        // h is the negative Hessian (Fisher information)
        let step = solve(h.clone(), g.clone())?;
        let l0 = loglik(t, &th);
        let mut alpha = 1.0;
        let mut next = th.clone();
        loop {
            for (fi, &i) in free.iter().enumerate() {
                next[i] = th[i] + alpha * step[fi];
            }
            if loglik(t, &next) >= l0 - 1e-12 || alpha < 1e-6 {
                break;
            }
            alpha /= 2.0;
        }
        let delta = step.iter().map(|s| (s * alpha).abs()).fold(0.0, f64::max);
        th = next;
        if th.iter().any(|x| x.abs() > 40.0) {
            return None; // beyond ±7000 Elo: the maximum is at infinity
        }
        if delta < 1e-10 {
            let mut hf = vec![vec![0.0; free.len()]; free.len()];
            for (fi, &i) in free.iter().enumerate() {
                for j in 0..k {
                    if j == i || t.n[i][j] <= 0.0 {
                        continue;
                    }
                    let e = sigmoid(th[i] - th[j]);
                    let w = t.n[i][j] * e * (1.0 - e);
                    hf[fi][fi] += w;
                    if let Some(fj) = pos_of(j) {
                        hf[fi][fj] -= w;
                    }
                }
            }
            return Some((th, hf, it));
        }
    }
    None
}

/// Fit ratings for `players` players from pairwise results; `anchor` is fixed at 0.
pub fn fit(players: usize, results: &[PairResult], anchor: usize) -> Result<EloFit, EloError> {
    if anchor >= players {
        return Err(EloError::BadIndex(anchor));
    }
    let mut t =
        Totals { s: vec![vec![0.0; players]; players], n: vec![vec![0.0; players]; players] };
    let mut games = vec![0.0; players];
    let mut points = vec![0.0; players];
    for r in results {
        if r.a >= players || r.b >= players {
            return Err(EloError::BadIndex(r.a.max(r.b)));
        }
        if r.a == r.b || r.games.is_nan() || r.games < 0.0 || !(0.0..=r.games).contains(&r.score_a)
        {
            return Err(EloError::BadResult(format!("{r:?}")));
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
    // connectivity from the anchor
    let mut seen = vec![false; players];
    let mut stack = vec![anchor];
    seen[anchor] = true;
    while let Some(i) = stack.pop() {
        for (j, s) in seen.iter_mut().enumerate() {
            if !*s && t.n[i][j] > 0.0 {
                *s = true;
                stack.push(j);
            }
        }
    }
    let lost: Vec<usize> = (0..players).filter(|&i| !seen[i]).collect();
    if !lost.is_empty() {
        return Err(EloError::Disconnected(lost));
    }
    let mut regularized = false;
    let solved = match newton(&t, anchor) {
        Some(x) => Some(x),
        None => {
            regularized = true;
            for i in 0..players {
                for j in 0..players {
                    if i != j && t.n[i][j] > 0.0 {
                        t.s[i][j] += 0.5;
                        t.n[i][j] += 1.0;
                    }
                }
            }
            newton(&t, anchor)
        }
    };
    let (th, info, iterations) =
        solved.ok_or_else(|| EloError::BadResult("the fit did not converge".into()))?;
    let cov = invert(&info).ok_or_else(|| EloError::BadResult("singular information".into()))?;
    let free: Vec<usize> = (0..players).filter(|&i| i != anchor).collect();
    let mut stderr = vec![0.0; players];
    for (fi, &i) in free.iter().enumerate() {
        stderr[i] = cov[fi][fi].max(0.0).sqrt() / LN10_400;
    }
    let ratings: Vec<f64> = th.iter().map(|x| x / LN10_400).collect();
    let ci95 = ratings.iter().zip(&stderr).map(|(r, s)| (r - Z95 * s, r + Z95 * s)).collect();
    Ok(EloFit { ratings, stderr, ci95, games, points, anchor, regularized, iterations })
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
    let (w, d, l) = (wins as f64 + 1.0, draws as f64, losses as f64 + 1.0);
    let na = nf + 2.0;
    let sa = (w + 0.5 * d) / na;
    let var = (w * (1.0 - sa).powi(2) + d * (0.5 - sa).powi(2) + l * sa.powi(2)) / na;
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
