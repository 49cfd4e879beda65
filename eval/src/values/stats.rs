//! The statistics behind `shogilab values`: coefficient ratios with cluster-bootstrap
//! intervals (the regression itself is [`crate::logistic`]'s, re-exported here), percentile
//! intervals, and Spearman/Pearson correlation. The bootstrap refits run on rayon's pool; the
//! resamples are drawn in order from one seeded generator first, so the results do not depend
//! on the number of threads.

pub use crate::logistic::{logistic_fit, Design, Fit};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;

/// A value with its 95% interval: (value, low, high).
pub type WithInterval = (f64, f64, f64);

/// Multiplicities of `clusters` clusters drawn with replacement (a bootstrap resample).
pub fn bootstrap_multiplicities(clusters: usize, rng: &mut SmallRng) -> Vec<f64> {
    let mut m = vec![0.0; clusters];
    for _ in 0..clusters {
        m[rng.gen_range(0..clusters)] += 1.0;
    }
    m
}

/// Linear-interpolated quantile of sorted data (`q` in [0, 1]).
pub fn quantile_sorted(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    let (a, b) = (sorted[lo], sorted[hi]);
    if lo == hi || a == b {
        a
    } else {
        a + (b - a) * (pos - lo as f64)
    }
}

/// 95% percentile interval of a sample (NaNs dropped; infinities kept, so an unbounded
/// interval shows as one).
pub fn percentile_interval(samples: &[f64]) -> (f64, f64) {
    let mut s: Vec<f64> = samples.iter().copied().filter(|v| !v.is_nan()).collect();
    s.sort_by(f64::total_cmp);
    (quantile_sorted(&s, 0.025), quantile_sorted(&s, 0.975))
}

/// Ratio `num / den` as a value in units of `den`; a non-positive denominator makes the
/// ratio unbounded (signed by the numerator), which is what the percentile interval should see.
pub fn ratio(num: f64, den: f64) -> f64 {
    if den > 0.0 {
        num / den
    } else if num >= 0.0 {
        f64::INFINITY
    } else {
        f64::NEG_INFINITY
    }
}

/// Point estimates and bootstrap 95% intervals of `beta[j] / beta[unit]` for every column.
#[derive(Debug, Clone)]
pub struct RatioEstimates {
    pub fit: Fit,
    pub value: Vec<f64>,
    pub lo: Vec<f64>,
    pub hi: Vec<f64>,
    /// Bootstrap samples whose unit coefficient was not positive.
    pub bad_unit: usize,
    pub resamples: usize,
    /// The ratios of every bootstrap refit (one vector per resample, indexed like `value`).
    pub draws: Vec<Vec<f64>>,
    /// The coefficients of every bootstrap refit (indexed like `value`, NaN for columns left
    /// out): the unit-free effects, defined whatever the sign of the unit's coefficient.
    pub coef_draws: Vec<Vec<f64>>,
}

impl RatioEstimates {
    /// Every number NaN, no resample: nothing measured.
    fn undefined(p: usize) -> RatioEstimates {
        let nan = vec![f64::NAN; p];
        RatioEstimates {
            fit: Fit { beta: nan.clone(), iterations: 0, converged: false },
            value: nan.clone(),
            lo: nan.clone(),
            hi: nan,
            bad_unit: 0,
            resamples: 0,
            draws: Vec::new(),
            coef_draws: Vec::new(),
        }
    }
}

/// The columns of a design that a ratio fit keeps (the active ones and the unit), and the way
/// back from the kept columns' coefficients to all columns.
struct KeptColumns {
    p: usize,
    unit: usize,
    active: Vec<bool>,
    keep: Vec<usize>,
    /// The unit's index among the kept columns.
    unit_k: usize,
}

impl KeptColumns {
    fn of(d: &Design, unit: usize) -> KeptColumns {
        let active = d.active_columns();
        let keep: Vec<usize> = (0..d.p).filter(|&j| active[j] || j == unit).collect();
        let unit_k = keep.iter().position(|&j| j == unit).unwrap_or(0);
        KeptColumns { p: d.p, unit, active, keep, unit_k }
    }

    /// `d` with the kept columns only.
    fn design(&self, d: &Design) -> Design {
        let mut sub = Design::new(self.keep.len());
        let mut row = vec![0.0; self.keep.len()];
        for r in 0..d.rows() {
            for (k, &j) in self.keep.iter().enumerate() {
                row[k] = d.x[r * d.p + j];
            }
            sub.push(&row, d.y[r], d.w[r], d.cluster[r]);
        }
        sub.clusters = d.clusters;
        sub
    }

    /// Every column's coefficient ratio to the unit's (1 for the unit, NaN for inactive ones).
    fn ratios(&self, f: &Fit) -> Vec<f64> {
        let mut v = vec![f64::NAN; self.p];
        for (k, &j) in self.keep.iter().enumerate() {
            v[j] = if j == self.unit {
                1.0
            } else if self.active[j] {
                ratio(f.beta[k], f.beta[self.unit_k])
            } else {
                f64::NAN
            };
        }
        v
    }

    /// Every column's coefficient (NaN for the columns left out, and with `active_only` for
    /// an inactive unit).
    fn coefficients(&self, f: &Fit, active_only: bool) -> Vec<f64> {
        let mut c = vec![f64::NAN; self.p];
        for (k, &j) in self.keep.iter().enumerate() {
            if self.active[j] || !active_only {
                c[j] = f.beta[k];
            }
        }
        c
    }

    /// 95% percentile intervals of every active column over the resamples' ratios.
    fn intervals(&self, draws: &[Vec<f64>]) -> (Vec<f64>, Vec<f64>) {
        let (mut lo, mut hi) = (vec![f64::NAN; self.p], vec![f64::NAN; self.p]);
        for j in (0..self.p).filter(|&j| self.active[j] && !draws.is_empty()) {
            let samples: Vec<f64> = draws.iter().map(|v| v[j]).collect();
            (lo[j], hi[j]) = percentile_interval(&samples);
        }
        (lo, hi)
    }
}

/// Fit, then `resamples` cluster-bootstrap refits; values are coefficient ratios to column
/// `unit`. Inactive columns (all zero) are left out of the fit and get NaN;
/// so does every column when all the results are the same (the ridge alone would fit zeros,
/// and every resample would repeat them: a precise-looking zero that measures nothing).
pub fn ratio_bootstrap(
    d: &Design,
    unit: usize,
    ridge: f64,
    resamples: usize,
    seed: u64,
) -> RatioEstimates {
    if d.y.iter().all(|&y| y == d.y[0]) {
        return RatioEstimates::undefined(d.p);
    }
    let cols = KeptColumns::of(d, unit);
    let sub = cols.design(d);
    let fit_k = logistic_fit(&sub, None, ridge);
    let mut value = cols.ratios(&fit_k);
    if !positive(fit_k.beta[cols.unit_k]) {
        // no positive unit: the values are undefined, not infinite
        for (j, x) in value.iter_mut().enumerate() {
            if j != unit {
                *x = f64::NAN;
            }
        }
    }
    let fit = Fit { beta: cols.coefficients(&fit_k, false), ..fit_k.clone() };
    let mut rng = SmallRng::seed_from_u64(seed ^ 0x626f_6f74);
    // resamples drawn in order (reproducible), fitted on every core (rayon keeps the order)
    let mults: Vec<Vec<f64>> =
        (0..resamples).map(|_| bootstrap_multiplicities(d.clusters.max(1), &mut rng)).collect();
    let fits: Vec<Fit> = mults.par_iter().map(|m| logistic_fit(&sub, Some(m), ridge)).collect();
    let bad_unit = fits.iter().filter(|f| f.beta[cols.unit_k] <= 0.0).count();
    let coef_draws = fits.iter().map(|f| cols.coefficients(f, true)).collect();
    let draws: Vec<Vec<f64>> = fits.iter().map(|f| cols.ratios(f)).collect();
    let (lo, hi) = cols.intervals(&draws);
    RatioEstimates { fit, value, lo, hi, bad_unit, resamples: fits.len(), draws, coef_draws }
}

/// Pearson correlation of paired finite values (NaN with fewer than 3 pairs or no spread).
pub fn pearson(a: &[f64], b: &[f64]) -> f64 {
    let pairs: Vec<(f64, f64)> = a
        .iter()
        .zip(b)
        .filter(|(x, y)| x.is_finite() && y.is_finite())
        .map(|(x, y)| (*x, *y))
        .collect();
    let n = pairs.len() as f64;
    if pairs.len() < 3 {
        return f64::NAN;
    }
    let ma = pairs.iter().map(|p| p.0).sum::<f64>() / n;
    let mb = pairs.iter().map(|p| p.1).sum::<f64>() / n;
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for (x, y) in &pairs {
        sab += (x - ma) * (y - mb);
        saa += (x - ma) * (x - ma);
        sbb += (y - mb) * (y - mb);
    }
    if saa <= 0.0 || sbb <= 0.0 {
        return f64::NAN;
    }
    sab / (saa * sbb).sqrt()
}

/// Ranks (1-based) with ties given their average rank.
pub fn ranks(v: &[f64]) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..v.len()).collect();
    idx.sort_by(|&i, &j| v[i].total_cmp(&v[j]));
    let mut r = vec![0.0; v.len()];
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && v[idx[j + 1]] == v[idx[i]] {
            j += 1;
        }
        let avg = (i + j) as f64 / 2.0 + 1.0;
        for &k in &idx[i..=j] {
            r[k] = avg;
        }
        i = j + 1;
    }
    r
}

/// Spearman rank correlation (Pearson on average ranks) of paired finite values.
pub fn spearman(a: &[f64], b: &[f64]) -> f64 {
    let (fa, fb): (Vec<f64>, Vec<f64>) = a
        .iter()
        .zip(b)
        .filter(|(x, y)| x.is_finite() && y.is_finite())
        .map(|(x, y)| (*x, *y))
        .unzip();
    pearson(&ranks(&fa), &ranks(&fb))
}

/// `x > 0`, false for NaN (a coefficient that can serve as a unit).
pub fn positive(x: f64) -> bool {
    matches!(x.partial_cmp(&0.0), Some(std::cmp::Ordering::Greater))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::logistic::sigmoid;

    /// Synthetic games: y ~ Bernoulli(sigmoid(b0 + x.beta)), some draws.
    pub(crate) fn synthetic(beta: &[f64], b0: f64, n: usize, seed: u64) -> Design {
        let p = beta.len() + 1;
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut d = Design::new(p);
        for i in 0..n {
            let mut x = vec![1.0];
            for _ in beta {
                x.push(rng.gen_range(-2i32..=2) as f64);
            }
            let z = b0 + x[1..].iter().zip(beta).map(|(a, b)| a * b).sum::<f64>();
            let pw = sigmoid(z);
            // a third of the would-be results are draws, symmetric: expected score stays pw
            let u: f64 = rng.gen();
            let y = if rng.gen::<f64>() < 0.3 {
                0.5
            } else if u < pw {
                1.0
            } else {
                0.0
            };
            d.push(&x, y, 1.0, i);
        }
        d
    }

    #[test]
    fn recovers_known_coefficients() {
        let beta = [0.3, 0.9, -0.6, 0.0];
        let d = synthetic(&beta, 0.2, 20_000, 1);
        let f = logistic_fit(&d, None, 1e-6);
        assert!(f.converged);
        // draws shrink the expected score towards 0.5 by 30%: coefficients shrink too, but
        // their ratios are unchanged
        let r: Vec<f64> = f.beta[1..].iter().map(|b| b / f.beta[1]).collect();
        assert!((r[1] - 3.0).abs() < 0.25, "{r:?}");
        assert!((r[2] + 2.0).abs() < 0.2, "{r:?}");
        assert!(r[3].abs() < 0.15, "{r:?}");
        // without draws the coefficients themselves come back
        let mut d2 = d.clone();
        let mut rng = SmallRng::seed_from_u64(9);
        for r in 0..d2.rows() {
            let x = &d2.x[r * d2.p..(r + 1) * d2.p];
            let z = 0.2 + x[1..].iter().zip(&beta).map(|(a, b)| a * b).sum::<f64>();
            d2.y[r] = if rng.gen::<f64>() < sigmoid(z) { 1.0 } else { 0.0 };
        }
        let f2 = logistic_fit(&d2, None, 1e-6);
        for (got, want) in f2.beta.iter().zip([0.2, 0.3, 0.9, -0.6, 0.0]) {
            assert!((got - want).abs() < 0.06, "{:?}", f2.beta);
        }
    }

    #[test]
    fn bootstrap_intervals_cover_the_truth_and_shrink() {
        let beta = [0.25, 1.0, 0.5];
        let small = synthetic(&beta, 0.0, 1500, 2);
        let big = synthetic(&beta, 0.0, 12_000, 3);
        let es = ratio_bootstrap(&small, 1, 1e-6, 200, 5);
        let eb = ratio_bootstrap(&big, 1, 1e-6, 200, 5);
        for (j, truth) in [(2usize, 4.0), (3, 2.0)] {
            assert!(es.lo[j] <= truth && truth <= es.hi[j], "{j}: {:?} {:?}", es.lo, es.hi);
            assert!(eb.lo[j] <= truth && truth <= eb.hi[j], "{j}: {:?} {:?}", eb.lo, eb.hi);
            let ws = es.hi[j] - es.lo[j];
            let wb = eb.hi[j] - eb.lo[j];
            assert!(wb < ws * 0.6, "{j}: {ws} -> {wb}");
        }
        assert_eq!(es.value[1], 1.0);
    }

    #[test]
    fn bootstrap_draws_do_not_depend_on_the_thread_count() {
        let d = synthetic(&[0.4, 0.8], 0.1, 800, 8);
        let on = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| ratio_bootstrap(&d, 1, 1e-6, 40, 3))
        };
        let (one, three) = (on(1), on(3));
        assert_eq!(one.resamples, 40);
        assert_eq!(one.coef_draws.len(), 40);
        for (a, b) in one.coef_draws.iter().zip(&three.coef_draws) {
            assert_eq!(
                a.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                b.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
            );
        }
        assert_eq!(one.lo[2].to_bits(), three.lo[2].to_bits());
        // the draws differ from one resample to the next: each got its own multiplicities
        assert_ne!(one.coef_draws[0][2].to_bits(), one.coef_draws[1][2].to_bits());
    }

    #[test]
    fn identical_results_measure_nothing() {
        let mut d = synthetic(&[0.5, 0.5], 0.0, 300, 6);
        d.y.iter_mut().for_each(|y| *y = 0.5);
        let est = ratio_bootstrap(&d, 1, 1e-3, 20, 1);
        assert!(est.value.iter().chain(&est.lo).chain(&est.hi).all(|x| x.is_nan()));
        assert!(est.fit.beta.iter().all(|b| b.is_nan()) && est.coef_draws.is_empty());
    }

    #[test]
    fn inactive_columns_are_nan_not_zero() {
        let mut d = synthetic(&[0.5, 0.5], 0.0, 500, 4);
        // add an all-zero column by rebuilding
        let mut e = Design::new(4);
        for r in 0..d.rows() {
            let mut x = d.x[r * 3..r * 3 + 3].to_vec();
            x.push(0.0);
            e.push(&x, d.y[r], 1.0, r);
        }
        d = e;
        let est = ratio_bootstrap(&d, 1, 1e-6, 20, 1);
        assert!(est.value[3].is_nan() && est.lo[3].is_nan());
        assert!(est.value[2].is_finite());
    }

    #[test]
    fn separation_stays_finite() {
        let mut d = Design::new(2);
        for i in 0..50 {
            let x = if i % 2 == 0 { 1.0 } else { -1.0 };
            d.push(&[1.0, x], if x > 0.0 { 1.0 } else { 0.0 }, 1.0, i);
        }
        let f = logistic_fit(&d, None, 1e-2);
        assert!(f.beta.iter().all(|b| b.is_finite()), "{:?}", f.beta);
    }

    #[test]
    fn correlations() {
        let a = [1.0, 2.0, 3.0, 4.0, 5.0];
        let b = [2.0, 4.0, 6.0, 8.0, 10.0];
        assert!((pearson(&a, &b) - 1.0).abs() < 1e-12);
        let c = [1.0, 4.0, 9.0, 16.0, 100.0];
        assert!((spearman(&a, &c) - 1.0).abs() < 1e-12);
        assert!(pearson(&a, &c) < 0.95);
        let rev = [5.0, 4.0, 3.0, 2.0, 1.0];
        assert!((spearman(&a, &rev) + 1.0).abs() < 1e-12);
        assert_eq!(ranks(&[3.0, 1.0, 3.0, 2.0]), vec![3.5, 1.0, 3.5, 2.0]);
        // NaN pairs are ignored
        assert!((spearman(&[1.0, f64::NAN, 2.0, 3.0], &[1.0, 5.0, 2.0, 3.0]) - 1.0).abs() < 1e-12);
        assert!(spearman(&[1.0], &[1.0]).is_nan());
    }
}
