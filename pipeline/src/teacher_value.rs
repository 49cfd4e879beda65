//! Search values for teacher positions: the score of an alpha-beta search (depth `D` plus the
//! captures-only quiescence search, the mobility piece values of the `alphabeta` agent) for the
//! side to move, turned into a value in [-1, 1] by a logistic scale fitted to the games'
//! results: `q = tanh(score / (2 k))`, where `k` maximises the likelihood of the decisive
//! results under `P(win) = 1 / (1 + exp(-score / k))`.

use shogilab_engine::{Game, Position, Variant};
use shogilab_eval::agent::Limits;
use shogilab_eval::alphabeta::AlphaBetaAgent;
/// The value of a score under scale `k` (shared with the MCTS agent's leaf correction).
pub use shogilab_eval::leaf_quiescence::squash;
use shogilab_eval::leaf_quiescence::DECIDED;
use shogilab_selfplay::PieceValues;
use std::sync::Arc;

/// The largest scale the fit considers: a fit that runs to it found no link between the scores
/// and the results (every value would be about 0).
pub const MAX_SCALE: f64 = 1e6;

/// Why no scale could be fitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScaleFit {
    /// Fewer than 10 positions of decisive games (their count).
    TooFew(usize),
    /// The scores do not predict the results of these many decisive positions: the fit runs
    /// to [`MAX_SCALE`].
    NoSignal(usize),
}

/// Nodes of one labelling search at most (bounds the time of a quiescence explosion).
pub const NODE_LIMIT: u64 = 20_000;

/// One searcher per thread.
pub struct Labeller {
    agent: AlphaBetaAgent,
    limits: Limits,
}

impl Labeller {
    pub fn new(v: &Arc<Variant>, depth: u32) -> Labeller {
        let values = PieceValues::mobility(Arc::clone(v));
        let limits = Limits { nodes: Some(NODE_LIMIT), ..Limits::default() };
        Labeller { agent: AlphaBetaAgent::new(values, depth.max(1), true), limits }
    }

    /// The search score for the side to move; `None` without a legal move.
    pub fn score(&mut self, pos: &Position) -> Option<i32> {
        let game = Game::new(pos.clone());
        self.agent.search(&game, &self.limits).ok().map(|(_, s)| s)
    }
}

/// Negative log-likelihood of decisive results (`y` = ±1) under scale `k`.
fn nll(pairs: &[(i32, i8)], k: f64) -> f64 {
    pairs.iter().map(|&(s, y)| (-(y as f64) * s as f64 / k).exp().ln_1p()).sum()
}

/// The pairs a fit uses: decisive results whose score does not already decide the game.
fn usable(pairs: &[(i32, i8)]) -> Vec<(i32, i8)> {
    pairs.iter().copied().filter(|&(s, y)| y != 0 && s.abs() < DECIDED).collect()
}

/// The scale that best predicts the decisive results from the scores (golden-section search
/// over log k in [1, 10^6]); `None` with fewer than 10 decisive, undecided-by-score pairs.
pub fn fit_scale(pairs: &[(i32, i8)]) -> Option<f64> {
    fit_usable(&usable(pairs))
}

/// [`fit_scale`] over pairs already filtered by [`usable`].
fn fit_usable(usable: &[(i32, i8)]) -> Option<f64> {
    if usable.len() < 10 {
        return None;
    }
    let log_k =
        shogilab_train::golden::minimise(|lk| nll(usable, lk.exp()), 0.0, MAX_SCALE.ln(), 100);
    Some(log_k.exp())
}

/// [`fit_scale`], refusing a fit without enough decisive positions or one that runs to
/// [`MAX_SCALE`] (scores that say nothing about the results).
pub fn fitted_scale(pairs: &[(i32, i8)]) -> Result<f64, ScaleFit> {
    let usable = usable(pairs);
    match fit_usable(&usable) {
        None => Err(ScaleFit::TooFew(usable.len())),
        Some(k) if k >= 0.99 * MAX_SCALE => Err(ScaleFit::NoSignal(usable.len())),
        Some(k) => Ok(k),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fitted_scale_recovers_the_scale_of_the_results() {
        // results drawn from P(win) = 1 / (1 + exp(-s / 300)) by a fixed pseudo-random sequence
        let mut x = 12345u64;
        let mut pairs = Vec::new();
        for i in 0..20_000i32 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let u = (x >> 11) as f64 / (1u64 << 53) as f64;
            let s = i % 2001 - 1000;
            let p = 1.0 / (1.0 + (-(s as f64) / 300.0).exp());
            pairs.push((s, if u < p { 1 } else { -1 }));
        }
        let k = fit_scale(&pairs).expect("enough pairs");
        assert!((k - 300.0).abs() < 30.0, "fitted {k}");
        assert!(fit_scale(&pairs[..5]).is_none());
        assert_eq!(fitted_scale(&pairs[..5]), Err(ScaleFit::TooFew(5)));
        assert!((fitted_scale(&pairs).expect("a signal") - k).abs() < 1e-9);
        // results that go against the scores: the fit runs to its bound and is refused
        let against: Vec<(i32, i8)> = pairs.iter().map(|&(s, y)| (s, -y)).collect();
        assert_eq!(fitted_scale(&against), Err(ScaleFit::NoSignal(against.len())));
        assert_eq!(squash(DECIDED, k), 1.0);
        assert!((squash(300, 150.0) - 1f32.tanh()).abs() < 1e-6);
    }
}
