//! Sequential probability ratio test on W/D/L counts (a GSPRT): H0 "Elo = elo0" against
//! H1 "Elo = elo1" (logistic Elo: expected score `1 / (1 + 10^(-elo/400))`). The outcomes are
//! trinomial; under each hypothesis the W/D/L probabilities are the maximum-likelihood ones
//! whose expected score equals the hypothesis' score, `p_i = f_i / (1 + λ (a_i - s))` with
//! `a = (1, 1/2, 0)` and λ solved so that they sum to one (Van den Bergh's GSPRT). The
//! log-likelihood ratio is compared with Wald's bounds `ln(β / (1 - α))` and `ln((1 - β) / α)`.

use crate::elo::{score_from_elo, score_mean_variance};

/// Test settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

/// The decision so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SprtDecision {
    AcceptH0,
    AcceptH1,
    Continue,
}

impl SprtDecision {
    pub fn as_str(&self) -> &'static str {
        match self {
            SprtDecision::AcceptH0 => "H0 accepted",
            SprtDecision::AcceptH1 => "H1 accepted",
            SprtDecision::Continue => "continue",
        }
    }
}

/// LLR, bounds and decision.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SprtStatus {
    pub llr: f64,
    pub lower: f64,
    pub upper: f64,
    pub decision: SprtDecision,
}

const A: [f64; 3] = [1.0, 0.5, 0.0];

/// Maximum-likelihood trinomial probabilities with expected score `s` given frequencies `f`.
fn mle_probs(f: [f64; 3], s: f64) -> [f64; 3] {
    // sum f_i / (1 + λ (a_i - s)) = 1; valid λ keep every denominator positive.
    let d = A.map(|a| a - s);
    let mut lo = f64::NEG_INFINITY;
    let mut hi = f64::INFINITY;
    for (i, &di) in d.iter().enumerate() {
        if f[i] <= 0.0 || di == 0.0 {
            continue;
        }
        let bound = -1.0 / di;
        if di > 0.0 {
            lo = lo.max(bound);
        } else {
            hi = hi.min(bound);
        }
    }
    // g(λ) = sum f_i d_i / (1 + λ d_i) is decreasing in λ; its root is the solution
    let g = |l: f64| -> f64 {
        (0..3).filter(|&i| f[i] > 0.0).map(|i| f[i] * d[i] / (1.0 + l * d[i])).sum()
    };
    let (mut a, mut b) =
        (if lo.is_finite() { lo } else { -1e6 }, if hi.is_finite() { hi } else { 1e6 });
    let eps = 1e-12 * (b - a).abs().max(1.0);
    a += eps;
    b -= eps;
    for _ in 0..200 {
        let m = 0.5 * (a + b);
        if g(m) > 0.0 {
            a = m;
        } else {
            b = m;
        }
    }
    let l = 0.5 * (a + b);
    let mut p = [0.0; 3];
    for i in 0..3 {
        p[i] = if f[i] > 0.0 { f[i] / (1.0 + l * d[i]) } else { 0.0 };
    }
    let sum: f64 = p.iter().sum();
    p.map(|x| x / sum)
}

impl Sprt {
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Sprt {
        Sprt { elo0, elo1, alpha, beta }
    }

    /// `ln(β / (1 - α))` and `ln((1 - β) / α)`.
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// Log-likelihood ratio of H1 against H0 for W/D/L counts.
    pub fn llr(&self, wins: u64, draws: u64, losses: u64) -> f64 {
        let n = (wins + draws + losses) as f64;
        if n == 0.0 {
            return 0.0;
        }
        let counts = [wins as f64, draws as f64, losses as f64];
        // an outcome kind never observed keeps probability 0 in the fits, so a hypothesis score
        // that the observed kinds reach only at an end of their range (0.5 with wins and draws
        // but no loss) or not at all makes the ratio unbounded: regularize every count then
        let s0 = score_from_elo(self.elo0);
        let s1 = score_from_elo(self.elo1);
        let seen = [1.0, 0.5, 0.0].into_iter().zip(counts).filter(|&(_, c)| c > 0.0);
        let (lo, hi) = seen.fold((1.0f64, 0.0f64), |(lo, hi), (x, _)| (lo.min(x), hi.max(x)));
        let inside = |s: f64| lo < s && s < hi;
        let counts = if inside(s0) && inside(s1) { counts } else { counts.map(|c| c + 0.5) };
        let total: f64 = counts.iter().sum();
        let f = counts.map(|c| c / total);
        let p0 = mle_probs(f, s0);
        let p1 = mle_probs(f, s1);
        (0..3).filter(|&i| counts[i] > 0.0).map(|i| counts[i] * (p1[i] / p0[i]).ln()).sum::<f64>()
            * (n / total)
    }

    /// Normal approximation of the LLR (for comparison).
    pub fn llr_normal(&self, wins: u64, draws: u64, losses: u64) -> f64 {
        let n = (wins + draws + losses) as f64;
        if n == 0.0 {
            return 0.0;
        }
        let (s, var) = score_mean_variance(wins as f64, draws as f64, losses as f64);
        if var <= 0.0 {
            return 0.0;
        }
        let (s0, s1) = (score_from_elo(self.elo0), score_from_elo(self.elo1));
        n * (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * var)
    }

    pub fn status(&self, wins: u64, draws: u64, losses: u64) -> SprtStatus {
        let llr = self.llr(wins, draws, losses);
        let (lower, upper) = self.bounds();
        let decision = if llr >= upper {
            SprtDecision::AcceptH1
        } else if llr <= lower {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        };
        SprtStatus { llr, lower, upper, decision }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One win and two draws (no loss) said nothing decisive, but gave an LLR of 11 against
    /// bounds of ±2.94 before every count was regularized while an outcome was missing.
    #[test]
    fn a_few_games_without_a_loss_decide_nothing() {
        let t = Sprt::new(0.0, 30.0, 0.05, 0.05);
        for (w, d) in [(1, 2), (2, 1), (0, 3), (3, 0), (1, 5)] {
            let s = t.status(w, d, 0);
            assert_eq!(s.decision, SprtDecision::Continue, "+{w} ={d} -0: {s:?}");
            assert!(s.llr.abs() < 2.0, "+{w} ={d} -0: {s:?}");
        }
    }

    #[test]
    fn bounds_for_five_percent() {
        let t = Sprt::new(0.0, 10.0, 0.05, 0.05);
        let (lo, hi) = t.bounds();
        assert!((lo + 2.944_438_979).abs() < 1e-8);
        assert!((hi - 2.944_438_979).abs() < 1e-8);
    }

    #[test]
    fn no_draws_reduces_to_binomial() {
        // without draws p_W = s exactly: LLR = W ln(s1/s0) + L ln((1-s1)/(1-s0))
        let t = Sprt::new(0.0, 20.0, 0.05, 0.05);
        let s1 = score_from_elo(20.0);
        assert!((s1 - 0.528_750_564).abs() < 1e-8);
        let want = 60.0 * (s1 / 0.5).ln() + 40.0 * ((1.0 - s1) / 0.5).ln();
        assert!((t.llr(60, 0, 40) - want).abs() < 1e-9, "{} vs {want}", t.llr(60, 0, 40));
        // W = L = 50: 50 ln(4 s1 (1 - s1))
        let want = 50.0 * (4.0 * s1 * (1.0 - s1)).ln();
        assert!((t.llr(50, 0, 50) - want).abs() < 1e-9);
    }

    #[test]
    fn decisions() {
        let t = Sprt::new(0.0, 10.0, 0.05, 0.05);
        assert_eq!(t.status(600, 300, 100).decision, SprtDecision::AcceptH1);
        assert_eq!(t.status(100, 300, 600).decision, SprtDecision::AcceptH0);
        assert_eq!(t.status(3, 4, 3).decision, SprtDecision::Continue);
        assert_eq!(t.status(0, 0, 0).llr, 0.0);
        // the trinomial LLR and its normal approximation agree for many games near H0/H1
        let (e, n) = (t.llr(2100, 3900, 2000), t.llr_normal(2100, 3900, 2000));
        assert!((e - n).abs() < 0.05 * n.abs().max(1.0), "{e} vs {n}");
        // a single kind of outcome still gives a finite LLR
        assert!(t.llr(0, 20, 0).is_finite());
        assert!(t.llr(20, 0, 0) > 0.0);
    }
}
