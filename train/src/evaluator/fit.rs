//! Fitting the piece-square table with tch.
//!
//! 1. The positions are split by game: a game's positions all go to training or all to the
//!    held-out set (`holdout` of the games, chosen by a hash of the game id).
//! 2. The logistic scale `K` (centipawns per logit) is fitted first: the `K` that makes
//!    `sigmoid(score / K)` the best predictor of the training games' results (cross-entropy,
//!    golden-section search).
//! 3. The target of a position mixes its search score and its game's result:
//!    `lambda * sigmoid(score / K) + (1 - lambda) * result`, result 1, 0.5 or 0.
//! 4. The table is fitted as the starting table plus a correction with few parameters: per
//!    type a value, a term per rank and a term per file (`types × (1 + ranks + files)` instead of
//!    `types × squares`: games are few and a position's neighbours in its game share its
//!    result, so a full table overfits at once), with the hand values and the tempo. Adam on
//!    minibatches minimises the cross-entropy of `sigmoid(eval / K)` against the target plus
//!    an L2 penalty on the rank and file terms; the weights of the epoch with the lowest
//!    held-out loss are kept, and the correction is expanded into the engine's full table.
//!
//! Features are the ones the engine computes ([`Psq`]): one per (type, relative square) of
//! each piece, +1 for the side to move's pieces and -1 for the other side's, one per hand kind
//! (the count, signed the same way) and a constant for the side to move.

use super::data::Sample;
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use shogilab_engine::{Color, Position, Variant};
use shogilab_search::evaluator::Psq;
use std::sync::Arc;
use tch::{nn, nn::OptimizerConfig, Device, Kind, Reduction, Tensor};

/// How the table is fitted (the `[fit]` table of a loop config).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FitConfig {
    pub epochs: usize,
    pub batch: usize,
    /// Adam's learning rate (pawns a step).
    pub lr: f64,
    /// Weight of the search score in the target (the rest: the game's result).
    pub lambda: f64,
    /// Share of the games held out.
    pub holdout: f64,
    /// L2 penalty on the rank and file terms (per pawn squared).
    pub l2: f64,
}

/// What a fit found.
#[derive(Debug, Clone)]
pub struct FitReport {
    pub train_positions: usize,
    pub holdout_positions: usize,
    pub scale: f64,
    /// Held-out loss of the starting table (with the fitted scale), then after each epoch.
    pub holdout_loss: Vec<f64>,
    pub train_loss: Vec<f64>,
    pub best_epoch: usize,
}

/// Sparse features of positions: `rows × width` indices and values (padding: index 0, value 0).
struct Features {
    idx: Vec<i64>,
    val: Vec<f32>,
    width: usize,
    target: Vec<f32>,
}

/// The index of the tempo feature, and the number of features.
fn layout(v: &Variant) -> (usize, usize) {
    let board = v.types.len() * v.squares.len();
    let tempo = board + v.hand_types.len();
    (tempo, tempo + 1)
}

/// Features of one position for its side to move: (index, value) pairs.
fn features(psq: &Psq, pos: &Position, out: &mut Vec<(i64, f32)>) {
    let v = pos.variant();
    let squares = v.squares.len();
    let us = pos.side_to_move();
    out.clear();
    for c in [Color::Black, Color::White] {
        let sign = if c == us { 1.0 } else { -1.0 };
        for &sq in pos.pieces(c) {
            let t = shogilab_engine::cell::cell_type(pos.cell(sq)) as usize;
            out.push(((t * squares + psq.relative(c, sq)) as i64, sign));
        }
        for h in 0..v.hand_types.len() {
            let n = pos.hand(c, h);
            if n > 0 {
                out.push(((v.types.len() * squares + h) as i64, sign * n as f32));
            }
        }
    }
    out.push((layout(v).0 as i64, 1.0));
}

fn build(psq: &Psq, samples: &[&Sample], scale: f64, lambda: f64) -> Result<Features, String> {
    let v = psq.variant();
    let mut rows = Vec::with_capacity(samples.len());
    let mut buf = Vec::new();
    let mut width = 1;
    for s in samples {
        let pos = Position::from_sfen(v, &s.sfen)
            .map_err(|e| format!("game {} position {:?}: {e}", s.game_id, s.sfen))?;
        features(psq, &pos, &mut buf);
        width = width.max(buf.len());
        rows.push(buf.clone());
    }
    let mut f = Features {
        idx: vec![0; rows.len() * width],
        val: vec![0.0; rows.len() * width],
        width,
        target: Vec::with_capacity(rows.len()),
    };
    for (r, row) in rows.iter().enumerate() {
        for (k, &(i, x)) in row.iter().enumerate() {
            f.idx[r * width + k] = i;
            f.val[r * width + k] = x;
        }
    }
    for s in samples {
        let by_score = sigmoid(s.score as f64 / scale);
        let by_result = (s.result as f64 + 1.0) / 2.0;
        f.target.push((lambda * by_score + (1.0 - lambda) * by_result) as f32);
    }
    Ok(f)
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Mean cross-entropy of `sigmoid(score / k)` against the results.
fn result_loss(samples: &[&Sample], k: f64) -> f64 {
    let eps = 1e-9;
    let total: f64 = samples
        .iter()
        .map(|s| {
            let p = sigmoid(s.score as f64 / k).clamp(eps, 1.0 - eps);
            let y = (s.result as f64 + 1.0) / 2.0;
            -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())
        })
        .sum();
    total / samples.len().max(1) as f64
}

/// The logistic scale that best predicts the results from the scores (golden-section search
/// of the log-scale over 10..100,000 centipawns a logit).
pub fn fit_scale(samples: &[&Sample]) -> f64 {
    let log_k =
        crate::golden::minimise(|x| result_loss(samples, x.exp()), 10f64.ln(), 100_000f64.ln(), 60);
    log_k.exp()
}

/// Whether a game is held out (a hash of its id, so the split does not depend on order).
fn held_out(game_id: &str, share: f64, seed: u64) -> bool {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ seed;
    for b in game_id.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
    }
    (h % 10_000) as f64 / 10_000.0 < share
}

/// Fit the table to `samples`, starting from `start` (`seed`: the held-out split and the
/// minibatch order); the fitted evaluator and what the fit
/// found. `progress` gets each epoch's (train, held-out) loss.
pub fn fit(
    start: &Psq,
    samples: &[Sample],
    cfg: &FitConfig,
    seed: u64,
    progress: &mut dyn FnMut(usize, f64, f64),
) -> Result<(Psq, FitReport), String> {
    let (train, hold): (Vec<&Sample>, Vec<&Sample>) =
        samples.iter().partition(|s| !held_out(&s.game_id, cfg.holdout, seed));
    if train.is_empty() || hold.is_empty() {
        return Err(format!("{} training and {} held-out positions: both sets need positions (more games, or another holdout share)", train.len(), hold.len()));
    }
    let scale = fit_scale(&train);
    let tr = build(start, &train, scale, cfg.lambda)?;
    let ho = build(start, &hold, scale, cfg.lambda)?;
    let v = Arc::clone(start.variant());
    let (_, n) = layout(&v);
    let vs = nn::VarStore::new(Device::Cpu);
    let mut start_w: Vec<f32> = start
        .board_weights()
        .iter()
        .chain(start.hand_weights())
        .map(|&w| w as f32 / 100.0)
        .collect();
    start_w.push(start.tempo() as f32 / 100.0);
    debug_assert_eq!(start_w.len(), n);
    let (types, files, ranks) = (v.types.len() as i64, v.files as i64, v.ranks as i64);
    let squares = v.squares.len() as i64;
    // per board feature: its type, its type's rank term and its type's file term
    let (mut t_of, mut r_of, mut f_of) = (Vec::new(), Vec::new(), Vec::new());
    for t in 0..types {
        for i in 0..squares {
            t_of.push(t);
            r_of.push(t * ranks + i / files);
            f_of.push(t * files + i % files);
        }
    }
    let (t_of, r_of, f_of) =
        (Tensor::from_slice(&t_of), Tensor::from_slice(&r_of), Tensor::from_slice(&f_of));
    let start_t = Tensor::from_slice(&start_w);
    let root = vs.root();
    let base = root.zeros("base", &[types]);
    let rank = root.zeros("rank", &[types * ranks]);
    let file = root.zeros("file", &[types * files]);
    let rest = root.zeros("hand_and_tempo", &[n as i64 - types * squares]);
    let weights = || {
        let board =
            base.index_select(0, &t_of) + rank.index_select(0, &r_of) + file.index_select(0, &f_of);
        &start_t + Tensor::cat(&[board, rest.shallow_clone()], 0)
    };
    let penalty = || {
        (rank.pow_tensor_scalar(2).sum(Kind::Float) + file.pow_tensor_scalar(2).sum(Kind::Float))
            * cfg.l2
    };
    let mut opt = nn::Adam::default().build(&vs, cfg.lr).map_err(|e| e.to_string())?;
    let to_logit = 100.0 / scale;
    let loss_of = |w: &Tensor, f: &Features, rows: &[usize]| -> Tensor {
        let b = rows.len() as i64;
        let width = f.width as i64;
        let mut idx = Vec::with_capacity(rows.len() * f.width);
        let mut val = Vec::with_capacity(rows.len() * f.width);
        let mut tgt = Vec::with_capacity(rows.len());
        for &r in rows {
            idx.extend_from_slice(&f.idx[r * f.width..(r + 1) * f.width]);
            val.extend_from_slice(&f.val[r * f.width..(r + 1) * f.width]);
            tgt.push(f.target[r]);
        }
        let idx = Tensor::from_slice(&idx);
        let val = Tensor::from_slice(&val).view([b, width]);
        let eval = (w.index_select(0, &idx).view([b, width]) * val).sum_dim_intlist(
            &[1i64][..],
            false,
            Kind::Float,
        );
        let logits = eval * to_logit;
        logits.binary_cross_entropy_with_logits::<Tensor>(
            &Tensor::from_slice(&tgt),
            None,
            None,
            Reduction::Mean,
        )
    };
    let holdout_loss = |f: &Features| -> f64 {
        tch::no_grad(|| {
            let all: Vec<usize> = (0..f.target.len()).collect();
            let mut total = 0.0;
            let w = weights();
            for chunk in all.chunks(8192) {
                total += loss_of(&w, f, chunk).double_value(&[]) * chunk.len() as f64;
            }
            total / f.target.len() as f64
        })
    };
    let mut report = FitReport {
        train_positions: train.len(),
        holdout_positions: hold.len(),
        scale,
        holdout_loss: vec![holdout_loss(&ho)],
        train_loss: Vec::new(),
        best_epoch: 0,
    };
    let mut best = (report.holdout_loss[0], tch::no_grad(weights));
    let mut order: Vec<usize> = (0..tr.target.len()).collect();
    let mut rng = SmallRng::seed_from_u64(seed);
    for epoch in 1..=cfg.epochs {
        order.shuffle(&mut rng);
        let (mut sum, mut count) = (0.0, 0usize);
        for chunk in order.chunks(cfg.batch.max(1)) {
            let loss = loss_of(&weights(), &tr, chunk);
            opt.backward_step(&(&loss + penalty()));
            sum += loss.double_value(&[]) * chunk.len() as f64;
            count += chunk.len();
        }
        let (t, h) = (sum / count as f64, holdout_loss(&ho));
        report.train_loss.push(t);
        report.holdout_loss.push(h);
        progress(epoch, t, h);
        if h < best.0 {
            best = (h, tch::no_grad(weights));
            report.best_epoch = epoch;
        }
    }
    let weights: Vec<f32> = Vec::<f32>::try_from(&best.1).map_err(|e| e.to_string())?;
    let cp = |x: f32| (x * 100.0).round() as i32;
    let board_len = start.board_weights().len();
    let hands = start.hand_weights().len();
    let board = weights[..board_len].iter().map(|&x| cp(x)).collect();
    let hand = weights[board_len..board_len + hands].iter().map(|&x| cp(x)).collect();
    let tempo = cp(weights[board_len + hands]);
    let psq = Psq::new(v, board, hand, tempo, scale as f32).map_err(|e| e.to_string())?;
    Ok((psq, report))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(id: &str, score: i32, result: i8) -> Sample {
        Sample { game_id: id.into(), sfen: String::new(), score, result }
    }

    #[test]
    fn the_scale_is_found_from_scores_that_predict_results() {
        // results drawn so that P(win) = sigmoid(score / 400): the fit finds about 400
        let mut samples = Vec::new();
        for i in 0..4000 {
            let score = (i % 81) * 25 - 1000;
            let p = sigmoid(score as f64 / 400.0);
            // a deterministic stand-in for drawing: the share p of the samples at this score win
            let win = ((i / 81) as f64 + 0.5) / (4000.0 / 81.0) < p;
            samples.push(sample("g", score, if win { 1 } else { -1 }));
        }
        let refs: Vec<&Sample> = samples.iter().collect();
        let k = fit_scale(&refs);
        assert!((k - 400.0).abs() < 40.0, "{k}");
    }

    #[test]
    fn the_split_keeps_each_game_on_one_side() {
        let ids: Vec<String> = (0..1000).map(|i| format!("1-{i}")).collect();
        let held = ids.iter().filter(|id| held_out(id, 0.1, 7)).count();
        assert!((50..150).contains(&held), "{held}");
        assert_eq!(held_out("1-5", 0.1, 7), held_out("1-5", 0.1, 7));
    }

    #[test]
    fn features_sum_to_the_engines_evaluation() {
        let v = Variant::builtin("shogi").unwrap();
        let values: Vec<f32> = (0..v.types.len()).map(|i| 1.0 + i as f32).collect();
        let psq = Psq::from_values(Arc::clone(&v), &values, 500.0);
        let pos = Position::from_sfen(
            &v,
            "lnsgkgsnl/7b1/ppppppppp/9/9/4r4/PPPPPPPPP/1B5R1/LNSGK1SNL w Gp 1",
        )
        .unwrap();
        let mut f = Vec::new();
        features(&psq, &pos, &mut f);
        let mut w: Vec<i32> =
            psq.board_weights().iter().chain(psq.hand_weights()).copied().collect();
        w.push(psq.tempo());
        let sum: f32 = f.iter().map(|&(i, x)| w[i as usize] as f32 * x).sum();
        assert_eq!(sum as i32, psq.for_side(psq.full(&pos), pos.side_to_move()));
    }
}
