//! The statistics behind `shogilab values`: weighted logistic regression (Newton/IRLS with a
//! small ridge) on fractional targets (draws are 0.5), cluster bootstrap weights, percentile
//! intervals, and Spearman/Pearson correlation. No dependency beyond `rand`.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// A design matrix stored row by row, with a target in [0, 1] and a cluster id per row
/// (rows of one cluster are resampled together by the bootstrap) and a base weight.
#[derive(Debug, Clone, Default)]
pub struct Design {
    /// Number of columns.
    pub p: usize,
    /// Row-major features, `rows * p` numbers.
    pub x: Vec<f64>,
    pub y: Vec<f64>,
    /// Base weight of each row (e.g. how many identical rows it stands for).
    pub w: Vec<f64>,
    /// Cluster (game, game pair) of each row: `0..clusters`.
    pub cluster: Vec<usize>,
    pub clusters: usize,
}

impl Design {
    pub fn new(p: usize) -> Design {
        Design { p, ..Default::default() }
    }

    pub fn rows(&self) -> usize {
        self.y.len()
    }

    /// Add a row; `cluster` must be below `clusters` once all rows are in (it grows it).
    pub fn push(&mut self, features: &[f64], y: f64, w: f64, cluster: usize) {
        debug_assert_eq!(features.len(), self.p);
        self.x.extend_from_slice(features);
        self.y.push(y);
        self.w.push(w);
        self.cluster.push(cluster);
        self.clusters = self.clusters.max(cluster + 1);
    }

    /// Columns that are not constant zero over the rows with positive weight.
    pub fn active_columns(&self) -> Vec<bool> {
        let mut active = vec![false; self.p];
        for r in 0..self.rows() {
            if self.w[r] <= 0.0 {
                continue;
            }
            for (j, a) in active.iter_mut().enumerate() {
                if self.x[r * self.p + j] != 0.0 {
                    *a = true;
                }
            }
        }
        active
    }

    /// The rows of the first `n` clusters only (clusters are numbered in the order they were
    /// collected, so this is "the first n games").
    pub fn first_clusters(&self, n: usize) -> Design {
        let mut d = Design::new(self.p);
        for r in 0..self.rows() {
            if self.cluster[r] < n {
                d.push(
                    &self.x[r * self.p..(r + 1) * self.p],
                    self.y[r],
                    self.w[r],
                    self.cluster[r],
                );
            }
        }
        d.clusters = n.min(self.clusters);
        d
    }
}

/// A fitted logistic model.
#[derive(Debug, Clone)]
pub struct Fit {
    pub beta: Vec<f64>,
    pub iterations: usize,
    pub converged: bool,
}

fn sigmoid(z: f64) -> f64 {
    if z >= 0.0 {
        1.0 / (1.0 + (-z).exp())
    } else {
        let e = z.exp();
        e / (1.0 + e)
    }
}

/// Solve `a x = b` for a symmetric positive definite `a` (n x n, row-major) by Cholesky;
/// `None` when `a` is not positive definite.
pub fn solve_spd(a: &[f64], b: &[f64], n: usize) -> Option<Vec<f64>> {
    let mut l = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            let mut s = a[i * n + j];
            for k in 0..j {
                s -= l[i * n + k] * l[j * n + k];
            }
            if i == j {
                if s <= 0.0 || !s.is_finite() {
                    return None;
                }
                l[i * n + i] = s.sqrt();
            } else {
                l[i * n + j] = s / l[j * n + j];
            }
        }
    }
    let mut z = vec![0.0; n];
    for i in 0..n {
        let mut s = b[i];
        for k in 0..i {
            s -= l[i * n + k] * z[k];
        }
        z[i] = s / l[i * n + i];
    }
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        let mut s = z[i];
        for k in i + 1..n {
            s -= l[k * n + i] * x[k];
        }
        x[i] = s / l[i * n + i];
    }
    Some(x)
}

/// Weighted logistic regression by Newton's method (IRLS) maximising
/// `sum_r m_r w_r [y_r log p_r + (1 - y_r) log(1 - p_r)] - ridge/2 |beta|^2`, where `m` are
/// the optional per-cluster multiplicities (bootstrap). Fractional targets (0.5 for a draw)
/// are allowed: the quasi-likelihood has the same score equations.
pub fn logistic_fit(d: &Design, mult: Option<&[f64]>, ridge: f64) -> Fit {
    let p = d.p;
    let mut beta = vec![0.0; p];
    let mut h = vec![0.0; p * p];
    let mut g = vec![0.0; p];
    let mut converged = false;
    let mut it = 0;
    while it < 50 {
        it += 1;
        h.iter_mut().for_each(|v| *v = 0.0);
        g.iter_mut().for_each(|v| *v = 0.0);
        for r in 0..d.rows() {
            let w = d.w[r] * mult.map_or(1.0, |m| m[d.cluster[r]]);
            if w == 0.0 {
                continue;
            }
            let xr = &d.x[r * p..(r + 1) * p];
            let z: f64 = xr.iter().zip(&beta).map(|(a, b)| a * b).sum();
            let pr = sigmoid(z);
            let res = w * (d.y[r] - pr);
            let wt = w * pr * (1.0 - pr);
            for i in 0..p {
                let xi = xr[i];
                if xi == 0.0 {
                    continue;
                }
                g[i] += res * xi;
                let wxi = wt * xi;
                for j in 0..=i {
                    h[i * p + j] += wxi * xr[j];
                }
            }
        }
        for i in 0..p {
            for j in 0..i {
                h[j * p + i] = h[i * p + j];
            }
            h[i * p + i] += ridge;
            g[i] -= ridge * beta[i];
        }
        let Some(step) = solve_spd(&h, &g, p) else { break };
        let mut max_step = 0.0f64;
        for (b, s) in beta.iter_mut().zip(&step) {
            // damp huge steps (separation) so the iteration stays finite
            let s = s.clamp(-5.0, 5.0);
            *b += s;
            max_step = max_step.max(s.abs());
        }
        if max_step < 1e-9 {
            converged = true;
            break;
        }
    }
    Fit { beta, iterations: it, converged }
}

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
    s.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
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
        let nan = vec![f64::NAN; d.p];
        return RatioEstimates {
            fit: Fit { beta: nan.clone(), iterations: 0, converged: false },
            value: nan.clone(),
            lo: nan.clone(),
            hi: nan,
            bad_unit: 0,
            resamples: 0,
            draws: Vec::new(),
            coef_draws: Vec::new(),
        };
    }
    let active = d.active_columns();
    let keep: Vec<usize> = (0..d.p).filter(|&j| active[j] || j == unit).collect();
    let mut sub = Design::new(keep.len());
    let mut row = vec![0.0; keep.len()];
    for r in 0..d.rows() {
        for (k, &j) in keep.iter().enumerate() {
            row[k] = d.x[r * d.p + j];
        }
        sub.push(&row, d.y[r], d.w[r], d.cluster[r]);
    }
    sub.clusters = d.clusters;
    let unit_k = keep.iter().position(|&j| j == unit).unwrap_or(0);
    let expand = |f: &Fit| -> Vec<f64> {
        let mut v = vec![f64::NAN; d.p];
        for (k, &j) in keep.iter().enumerate() {
            v[j] = if j == unit {
                1.0
            } else if active[j] {
                ratio(f.beta[k], f.beta[unit_k])
            } else {
                f64::NAN
            };
        }
        v
    };
    let fit_k = logistic_fit(&sub, None, ridge);
    let mut value = expand(&fit_k);
    if !positive(fit_k.beta[unit_k]) {
        // no positive unit: the values are undefined, not infinite
        for (j, x) in value.iter_mut().enumerate() {
            if j != unit {
                *x = f64::NAN;
            }
        }
    }
    let mut fit = Fit { beta: vec![f64::NAN; d.p], ..fit_k.clone() };
    for (k, &j) in keep.iter().enumerate() {
        fit.beta[j] = fit_k.beta[k];
    }
    let mut rng = SmallRng::seed_from_u64(seed ^ 0x626f_6f74);
    // resamples drawn in order (reproducible), fitted on every core
    let mults: Vec<Vec<f64>> =
        (0..resamples).map(|_| bootstrap_multiplicities(d.clusters.max(1), &mut rng)).collect();
    let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1).clamp(1, 16);
    let chunk = resamples.div_ceil(threads).max(1);
    let fits: Vec<Fit> = std::thread::scope(|scope| {
        let handles: Vec<_> = mults
            .chunks(chunk)
            .map(|ms| {
                let sub = &sub;
                scope.spawn(move || {
                    ms.iter().map(|m| logistic_fit(sub, Some(m), ridge)).collect::<Vec<Fit>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
    });
    let mut samples: Vec<Vec<f64>> = vec![Vec::with_capacity(resamples); d.p];
    let mut bad_unit = 0;
    let mut draws = Vec::with_capacity(fits.len());
    let mut coef_draws = Vec::with_capacity(fits.len());
    for f in &fits {
        if f.beta[unit_k] <= 0.0 {
            bad_unit += 1;
        }
        let mut c = vec![f64::NAN; d.p];
        for (k, &j) in keep.iter().enumerate() {
            if active[j] {
                c[j] = f.beta[k];
            }
        }
        coef_draws.push(c);
        let v = expand(f);
        for (j, x) in v.iter().enumerate() {
            samples[j].push(*x);
        }
        draws.push(v);
    }
    let resamples = fits.len();
    let (mut lo, mut hi) = (vec![f64::NAN; d.p], vec![f64::NAN; d.p]);
    for j in 0..d.p {
        if active[j] && resamples > 0 {
            let (a, b) = percentile_interval(&samples[j]);
            lo[j] = a;
            hi[j] = b;
        }
    }
    RatioEstimates { fit, value, lo, hi, bad_unit, resamples, draws, coef_draws }
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
    idx.sort_by(|&i, &j| v[i].partial_cmp(&v[j]).unwrap_or(std::cmp::Ordering::Equal));
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

    #[test]
    fn cholesky_solves() {
        let a = [4.0, 2.0, 2.0, 3.0];
        let x = solve_spd(&a, &[2.0, 1.0], 2).unwrap();
        assert!((4.0 * x[0] + 2.0 * x[1] - 2.0).abs() < 1e-12);
        assert!((2.0 * x[0] + 3.0 * x[1] - 1.0).abs() < 1e-12);
        assert!(solve_spd(&[1.0, 2.0, 2.0, 1.0], &[1.0, 1.0], 2).is_none());
    }
}
