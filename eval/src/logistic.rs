//! The crate's one set of fitting helpers: weighted logistic regression (Newton/IRLS with an
//! optional ridge) on fractional targets (draws are 0.5), its Fisher information, the logistic
//! function, and the dense linear algebra they need (Cholesky solve and inverse of a symmetric
//! positive definite matrix). The Elo ratings ([`crate::elo`], a Bradley-Terry model: a
//! logistic regression on the players' rating differences) and the piece values
//! ([`crate::values::stats`]) are both fitted here. No dependency: the matrices are small
//! (players, piece kinds), and a linear-algebra crate would change the last bits of the
//! committed reports' numbers.

/// A design matrix stored row by row, with a target in [0, 1], a base weight and a cluster id
/// per row (rows of one cluster are resampled together by a cluster bootstrap).
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

/// The logistic function `1 / (1 + e^-z)`, without overflow for large `|z|`.
pub fn sigmoid(z: f64) -> f64 {
    if z >= 0.0 {
        1.0 / (1.0 + (-z).exp())
    } else {
        let e = z.exp();
        e / (1.0 + e)
    }
}

/// Lower-triangular Cholesky factor (row-major) of a symmetric positive definite `a`
/// (n x n, row-major); `None` when `a` is not positive definite.
fn cholesky(a: &[f64], n: usize) -> Option<Vec<f64>> {
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
    Some(l)
}

/// Solve `l lᵀ x = b` by forward and back substitution.
fn substitute(l: &[f64], b: &[f64], n: usize) -> Vec<f64> {
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
    x
}

/// Solve `a x = b` for a symmetric positive definite `a` (n x n, row-major) by Cholesky;
/// `None` when `a` is not positive definite.
pub fn solve_spd(a: &[f64], b: &[f64], n: usize) -> Option<Vec<f64>> {
    Some(substitute(&cholesky(a, n)?, b, n))
}

/// The inverse (row-major) of a symmetric positive definite `a` (n x n, row-major); `None`
/// when `a` is not positive definite.
pub fn inverse_spd(a: &[f64], n: usize) -> Option<Vec<f64>> {
    let l = cholesky(a, n)?;
    let mut inv = vec![0.0; n * n];
    let mut e = vec![0.0; n];
    for c in 0..n {
        e.iter_mut().enumerate().for_each(|(i, v)| *v = if i == c { 1.0 } else { 0.0 });
        for (r, x) in substitute(&l, &e, n).into_iter().enumerate() {
            inv[r * n + c] = x;
        }
    }
    Some(inv)
}

/// The gradient `g` of the log-likelihood at `beta` and the lower triangle of the Fisher
/// information `h` (`Xᵀ W X`), each row weighted by its base weight times its cluster's
/// multiplicity. `h` and `g` are overwritten.
fn score_and_information(
    d: &Design,
    mult: Option<&[f64]>,
    beta: &[f64],
    h: &mut [f64],
    g: &mut [f64],
) {
    let p = d.p;
    h.iter_mut().for_each(|v| *v = 0.0);
    g.iter_mut().for_each(|v| *v = 0.0);
    for r in 0..d.rows() {
        let w = d.w[r] * mult.map_or(1.0, |m| m[d.cluster[r]]);
        if w == 0.0 {
            continue;
        }
        let xr = &d.x[r * p..(r + 1) * p];
        let z: f64 = xr.iter().zip(beta).map(|(a, b)| a * b).sum();
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
}

/// Copy the lower triangle of `h` (p x p, row-major) to the upper one.
fn symmetrize(h: &mut [f64], p: usize) {
    for i in 0..p {
        for j in 0..i {
            h[j * p + i] = h[i * p + j];
        }
    }
}

/// The Fisher information `Xᵀ W X` (p x p, row-major, no ridge) of the model `beta` on `d`:
/// the negative Hessian of the log-likelihood, whose inverse is the coefficients' covariance.
pub fn information(d: &Design, beta: &[f64]) -> Vec<f64> {
    let mut h = vec![0.0; d.p * d.p];
    let mut g = vec![0.0; d.p];
    score_and_information(d, None, beta, &mut h, &mut g);
    symmetrize(&mut h, d.p);
    h
}

/// Weighted logistic regression by Newton's method (IRLS) maximising
/// `sum_r m_r w_r [y_r log p_r + (1 - y_r) log(1 - p_r)] - ridge/2 |beta|^2`, where `m` are
/// the optional per-cluster multiplicities (bootstrap). Fractional targets (0.5 for a draw)
/// are allowed: the quasi-likelihood has the same score equations. At most 50 iterations,
/// each coefficient's step damped to ±5 (separation); converged when every step is below
/// 1e-9.
pub fn logistic_fit(d: &Design, mult: Option<&[f64]>, ridge: f64) -> Fit {
    let p = d.p;
    let mut beta = vec![0.0; p];
    let mut h = vec![0.0; p * p];
    let mut g = vec![0.0; p];
    let mut converged = false;
    let mut it = 0;
    while it < 50 {
        it += 1;
        score_and_information(d, mult, &beta, &mut h, &mut g);
        symmetrize(&mut h, p);
        for i in 0..p {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cholesky_solves_and_inverts() {
        let a = [4.0, 2.0, 2.0, 3.0];
        let x = solve_spd(&a, &[2.0, 1.0], 2).unwrap();
        assert!((4.0 * x[0] + 2.0 * x[1] - 2.0).abs() < 1e-12);
        assert!((2.0 * x[0] + 3.0 * x[1] - 1.0).abs() < 1e-12);
        assert!(solve_spd(&[1.0, 2.0, 2.0, 1.0], &[1.0, 1.0], 2).is_none());
        // [[4, 2], [2, 3]]^-1 = [[3, -2], [-2, 4]] / 8
        let inv = inverse_spd(&a, 2).unwrap();
        for (got, want) in inv.iter().zip([3.0 / 8.0, -0.25, -0.25, 0.5]) {
            assert!((got - want).abs() < 1e-12, "{inv:?}");
        }
    }

    #[test]
    fn sigmoid_is_symmetric_and_finite_at_the_extremes() {
        for z in [0.0, 0.3, 2.0, 30.0, 800.0] {
            assert!((sigmoid(z) + sigmoid(-z) - 1.0).abs() < 1e-15, "{z}");
        }
        assert_eq!(sigmoid(0.0), 0.5);
        assert!(sigmoid(-800.0) == 0.0 && sigmoid(800.0) == 1.0);
    }

    #[test]
    fn information_of_one_binary_column_is_n_p_q() {
        // 10 rows of x = 1 at beta = ln 3: p = 3/4, information 10 * 3/16
        let mut d = Design::new(1);
        for r in 0..10 {
            d.push(&[1.0], 1.0, 1.0, r);
        }
        let h = information(&d, &[3f64.ln()]);
        assert!((h[0] - 10.0 * 3.0 / 16.0).abs() < 1e-12, "{h:?}");
    }
}
