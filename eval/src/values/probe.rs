//! Probing an evaluator: how much its value for the side to move drops (in logit units of the
//! expected score) when one of that side's pieces is taken off the board, relative to a pawn's
//! drop. Kinds that exist only by promotion are measured as "promoted piece against no piece":
//! a promotable piece is promoted in place and compared with the position without it. Royal
//! pieces are not removed (that ends the game); a prince comes from a promoted drunk elephant.
//! Intervals: bootstrap over positions.

use super::stats::{percentile_interval, ratio};
use super::{Kinds, MethodResult, ValueEstimate};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use shogilab_engine::variant::TYPE_MASK;
use shogilab_engine::{Color, MoveList, Position, Variant};
use shogilab_selfplay::{EvalOutput, EvalRequest, Evaluator};
use std::sync::Arc;

/// A probe that cannot measure.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error("the variant has no pawn and no other unit was chosen: no unit for the values")]
    NoUnit,
    #[error("evaluator {evaluator} returned {got} outputs for {asked}")]
    Outputs { evaluator: String, got: usize, asked: usize },
}

fn logit_score(o: &EvalOutput) -> f64 {
    let s = (o.wdl[0] as f64 + 0.5 * o.wdl[1] as f64).clamp(0.002, 0.998);
    (s / (1.0 - s)).ln()
}

/// `pos` with the piece on `sq` removed (`None`) or replaced by type `t`, same side to move and
/// move number. `None` when the position has pieces in hand (not rebuilt here).
fn edited(pos: &Position, sq: u16, t: Option<u16>) -> Option<Position> {
    let v = pos.variant();
    for c in [Color::Black, Color::White] {
        if (0..v.hand_types.len()).any(|h| pos.hand(c, h) > 0) {
            return None;
        }
    }
    let mut e = Position::empty(Arc::clone(v));
    for c in [Color::Black, Color::White] {
        for &s in pos.pieces(c) {
            let ty = pos.cell(s) & TYPE_MASK;
            if s == sq {
                if let Some(t) = t {
                    e.place(s, c, t);
                }
            } else {
                e.place(s, c, ty);
            }
        }
    }
    let sfen = e.to_sfen();
    let mut f: Vec<&str> = sfen.split_whitespace().collect();
    let side = if pos.side_to_move() == Color::Black { "b" } else { "w" };
    let num = pos.move_number().to_string();
    if f.len() >= 4 {
        f[1] = side;
        f[3] = &num;
    }
    Position::from_sfen(v, &f.join(" ")).ok()
}

/// The pieces to edit and the evaluator that judges the edits.
struct Prober<'a> {
    v: &'a Arc<Variant>,
    kinds: &'a Kinds,
    evaluator: &'a dyn Evaluator,
    per_position: usize,
}

impl Prober<'_> {
    /// One position: up to `per_position` non-royal pieces of the side to move (chosen at
    /// random) removed, and promoted in place where they promote; per kind (sum of the value
    /// drops, count), and the number of probes.
    fn position(
        &self,
        pos: &Position,
        plies: u32,
        rng: &mut SmallRng,
        list: &mut MoveList,
    ) -> Result<(Vec<(f64, f64)>, usize), ProbeError> {
        let (v, kinds) = (self.v, self.kinds);
        let us = pos.side_to_move();
        let mut sqs: Vec<u16> = pos
            .pieces(us)
            .iter()
            .copied()
            .filter(|&s| !v.types[(pos.cell(s) & TYPE_MASK) as usize].royal)
            .collect();
        sqs.sort_unstable();
        // random subset
        for i in (1..sqs.len()).rev() {
            sqs.swap(i, rng.gen_range(0..=i));
        }
        sqs.truncate(self.per_position);
        // variants: (kind, index of "with" position, index of "without" position)
        let mut variants: Vec<Position> = vec![pos.clone()];
        let mut pairs: Vec<(usize, usize, usize)> = Vec::new();
        for &s in &sqs {
            let t = (pos.cell(s) & TYPE_MASK) as usize;
            let ty = &v.types[t];
            let Some(without) = edited(pos, s, None) else { continue };
            let wi = variants.len();
            variants.push(without);
            pairs.push((kinds.of_type[t], 0, wi));
            if let Some(p) = ty.promotes_to {
                if let Some(prom) = edited(pos, s, Some(p)) {
                    variants.push(prom);
                    pairs.push((kinds.of_type[p as usize], variants.len() - 1, wi));
                }
            }
        }
        let l = self.logits(&variants, plies, list)?;
        let mut acc = vec![(0.0, 0.0); kinds.len()];
        for &(k, with, without) in &pairs {
            acc[k].0 += l[with] - l[without];
            acc[k].1 += 1.0;
        }
        Ok((acc, pairs.len()))
    }

    /// The evaluator's logit of the expected score of each position, in one batch.
    fn logits(
        &self,
        positions: &[Position],
        plies: u32,
        list: &mut MoveList,
    ) -> Result<Vec<f64>, ProbeError> {
        let moves: Vec<Vec<shogilab_engine::Move>> = positions
            .iter()
            .map(|p| {
                list.clear();
                p.legal_moves(list);
                list.to_vec()
            })
            .collect();
        let batch: Vec<EvalRequest> = positions
            .iter()
            .zip(&moves)
            .map(|(p, m)| EvalRequest { pos: p, moves: m, repetitions: 0, plies })
            .collect();
        let mut out = Vec::new();
        self.evaluator.evaluate(&batch, &mut out);
        if out.len() != batch.len() {
            return Err(ProbeError::Outputs {
                evaluator: self.evaluator.id(),
                got: out.len(),
                asked: batch.len(),
            });
        }
        Ok(out.iter().map(logit_score).collect())
    }
}

/// Per position, per kind: (sum of value drops, count).
struct Drops {
    per_pos: Vec<Vec<(f64, f64)>>,
    kinds: usize,
    unit: usize,
}

impl Drops {
    /// Mean drop per kind relative to the unit kind's, the positions weighted by `mult`.
    fn values(&self, mult: &[f64]) -> Vec<f64> {
        let mut s = vec![(0.0, 0.0); self.kinds];
        for (acc, m) in self.per_pos.iter().zip(mult) {
            for k in 0..self.kinds {
                s[k].0 += m * acc[k].0;
                s[k].1 += m * acc[k].1;
            }
        }
        let mean: Vec<f64> =
            s.iter().map(|(a, n)| if *n > 0.0 { a / n } else { f64::NAN }).collect();
        mean.iter().map(|&m| if m.is_nan() { m } else { ratio(m, mean[self.unit]) }).collect()
    }

    /// The values with 95% bootstrap intervals over positions, and the bootstrap draws (one
    /// vector of values per resample, for the interval of the rank correlation).
    fn estimates(
        &self,
        names: &[String],
        resamples: usize,
        brng: &mut SmallRng,
    ) -> (Vec<ValueEstimate>, Vec<Vec<f64>>) {
        let n = self.per_pos.len();
        let value = self.values(&vec![1.0; n]);
        let draws: Vec<Vec<f64>> = (0..resamples)
            .map(|_| {
                let m = super::stats::bootstrap_multiplicities(n.max(1), brng);
                self.values(&m[..n])
            })
            .collect();
        let estimates = (0..self.kinds)
            .map(|k| {
                let (lo, hi) = if value[k].is_nan() {
                    (f64::NAN, f64::NAN)
                } else {
                    percentile_interval(&draws.iter().map(|d| d[k]).collect::<Vec<f64>>())
                };
                ValueEstimate { piece: names[k].clone(), value: value[k], lo, hi }
            })
            .collect();
        (estimates, draws)
    }

    /// Mean finite half-width (the pawn left out) against positions used, resampling the
    /// first n positions for eight n up to all of them (none below 8 positions).
    fn width_curve(&self, resamples: usize, brng: &mut SmallRng) -> Vec<(f64, f64)> {
        let n = self.per_pos.len();
        let mut curve = Vec::new();
        if n < 8 {
            return curve;
        }
        for i in 1..=8 {
            let used = (n * i / 8).max(2);
            let mut ss: Vec<Vec<f64>> = vec![Vec::new(); self.kinds];
            for _ in 0..(resamples / 2).max(50) {
                let mut m = vec![0.0; n];
                for _ in 0..used {
                    m[brng.gen_range(0..used)] += 1.0;
                }
                for (k, x) in self.values(&m).into_iter().enumerate() {
                    ss[k].push(x);
                }
            }
            let hw: Vec<f64> = ss
                .iter()
                .enumerate()
                .filter(|(k, _)| *k != self.unit)
                .map(|(_, s)| {
                    let (a, b) = percentile_interval(s);
                    (b - a) / 2.0
                })
                .filter(|w| w.is_finite())
                .collect();
            if !hw.is_empty() {
                curve.push((used as f64, hw.iter().sum::<f64>() / hw.len() as f64));
            }
        }
        curve
    }
}

/// Probe `evaluator` on `positions` (with the plies played before each). At most
/// `per_position` pieces of the side to move are edited per position (chosen at random).
pub fn probe(
    v: &Arc<Variant>,
    kinds: &Kinds,
    evaluator: &dyn Evaluator,
    positions: &[(Position, u32)],
    per_position: usize,
    resamples: usize,
    seed: u64,
    description: String,
    on_position: &mut dyn FnMut(usize),
) -> Result<MethodResult, ProbeError> {
    let unit = kinds.unit.ok_or(ProbeError::NoUnit)?;
    let prober = Prober { v, kinds, evaluator, per_position };
    let mut drops =
        Drops { per_pos: Vec::with_capacity(positions.len()), kinds: kinds.len(), unit };
    let mut rng = SmallRng::seed_from_u64(seed ^ 0x7072_6f62);
    let mut list = MoveList::new();
    let mut probes = 0usize;
    for (pi, (pos, plies)) in positions.iter().enumerate() {
        let (acc, n) = prober.position(pos, *plies, &mut rng, &mut list)?;
        drops.per_pos.push(acc);
        probes += n;
        on_position(pi + 1);
    }
    let mut brng = SmallRng::seed_from_u64(seed ^ 0x626f_6f74);
    let (estimates, draws) = drops.estimates(&kinds.names, resamples, &mut brng);
    let curve = drops.width_curve(resamples, &mut brng);
    let n = drops.per_pos.len();
    let mut notes = vec![format!(
        "{} positions, {} probes (removals and in-place promotions), evaluator {}",
        n,
        probes,
        evaluator.id()
    )];
    let missing: Vec<&str> =
        estimates.iter().filter(|e| e.value.is_nan()).map(|e| e.piece.as_str()).collect();
    if !missing.is_empty() {
        notes.push(format!("not measured (royal, or never on the board): {}", missing.join(", ")));
    }
    Ok(MethodResult {
        method: "probe".into(),
        description,
        estimates,
        games: n,
        samples: probes,
        curve,
        notes,
        draws,
        ..Default::default()
    })
}
