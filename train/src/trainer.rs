//! Training: samples from self-play Parquet files -> minibatches (shuffled, mirrored where the
//! variant allows it) -> AdamW on policy cross-entropy (over the legal moves) plus value
//! cross-entropy (win/draw/loss).

use crate::batch::InputBatch;
use crate::model::Net;
use rand::{rngs::SmallRng, seq::SliceRandom, Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use shogilab_engine::{Move, MoveList, Position};
use shogilab_selfplay::dataset::Sample;
use shogilab_selfplay::encode::Encoder;
use shogilab_selfplay::InvalidSetting;
use std::collections::HashMap;
use tch::{nn, nn::OptimizerConfig, Device, Kind, Tensor};

/// Training settings.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TrainConfig {
    pub batch_size: usize,
    pub learning_rate: f64,
    pub weight_decay: f64,
    /// Generations of self-play data to train on (the most recent ones).
    pub window: u32,
    /// Weight of the value loss.
    pub value_weight: f64,
    /// Mirror samples left-right at random when the variant is mirror-symmetric.
    pub mirror: bool,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            batch_size: 128,
            learning_rate: 1e-3,
            weight_decay: 1e-4,
            window: 4,
            value_weight: 1.0,
            mirror: true,
        }
    }
}

impl TrainConfig {
    /// Check every setting against its range; the error names the `train.*` key.
    pub fn validate(&self) -> Result<(), InvalidSetting> {
        let bad = |k: &str, v: &dyn std::fmt::Display, expected: &str| {
            Err(InvalidSetting::new(k, v, expected).within("train"))
        };
        if self.batch_size == 0 || self.batch_size > 65536 {
            return bad("batch_size", &self.batch_size, "must be 1..65536");
        }
        if !(self.learning_rate > 0.0 && self.learning_rate < 10.0) {
            return bad("learning_rate", &self.learning_rate, "must be in (0, 10)");
        }
        if !(self.weight_decay >= 0.0 && self.weight_decay < 1.0) {
            return bad("weight_decay", &self.weight_decay, "must be in [0, 1)");
        }
        if self.window == 0 {
            return bad("window", &self.window, "must be at least 1");
        }
        if !(self.value_weight >= 0.0 && self.value_weight <= 100.0) {
            return bad("value_weight", &self.value_weight, "must be in [0, 100]");
        }
        Ok(())
    }
}

/// A stored sample that cannot become a training example.
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    /// The sample's SFEN does not parse for the variant.
    #[error("sample {index}: {source}")]
    Sfen {
        /// Row of the sample.
        index: usize,
        /// What the SFEN parser said.
        #[source]
        source: shogilab_engine::EngineError,
    },
    /// None of the moves of the stored search policy is legal in the position.
    #[error("sample {index} ({sfen}): no stored policy move is legal")]
    NoLegalPolicyMove {
        /// Row of the sample.
        index: usize,
        /// Its position.
        sfen: String,
    },
}

/// A decoded training example.
pub struct Example {
    pub pos: Position,
    pub moves: Vec<Move>,
    pub target: Vec<f32>,
    /// 0 win, 1 draw, 2 loss (side to move).
    pub value_class: i64,
    pub ply: u32,
}

/// Decode samples: positions from SFEN, every legal move with its target probability (moves
/// absent from the stored policy get 0). Errors name the sample.
pub fn decode(enc: &Encoder, samples: &[Sample]) -> Result<Vec<Example>, DecodeError> {
    let mut out = Vec::with_capacity(samples.len());
    let mut legal = MoveList::new();
    for (i, s) in samples.iter().enumerate() {
        let pos = Position::from_sfen(&enc.variant, &s.sfen)
            .map_err(|source| DecodeError::Sfen { index: i, source })?;
        legal.clear();
        pos.legal_moves(&mut legal);
        if legal.is_empty() {
            continue;
        }
        let probs: HashMap<&str, f32> =
            s.policy_moves.iter().map(String::as_str).zip(s.policy_probs.iter().copied()).collect();
        let mut target: Vec<f32> = legal
            .iter()
            .map(|m| probs.get(pos.move_to_usi(*m).as_str()).copied().unwrap_or(0.0))
            .collect();
        let sum: f32 = target.iter().sum();
        if sum <= 0.0 {
            return Err(DecodeError::NoLegalPolicyMove { index: i, sfen: s.sfen.clone() });
        }
        target.iter_mut().for_each(|p| *p /= sum);
        let value_class = match s.result {
            1 => 0,
            0 => 1,
            _ => 2,
        };
        out.push(Example { pos, moves: legal.clone(), target, value_class, ply: s.ply });
    }
    Ok(out)
}

/// Loss figures of one step.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct StepMetrics {
    pub policy_loss: f64,
    pub value_loss: f64,
    pub total_loss: f64,
    pub samples: usize,
}

/// A network plus its optimizer.
pub struct Trainer {
    pub enc: Encoder,
    pub vs: nn::VarStore,
    pub net: Net,
    opt: nn::Optimizer,
    batch: InputBatch,
    pub cfg: TrainConfig,
    pub steps: u64,
}

impl Trainer {
    pub fn new(
        enc: Encoder,
        vs: nn::VarStore,
        net: Net,
        cfg: TrainConfig,
    ) -> Result<Trainer, tch::TchError> {
        let opt = nn::AdamW { wd: cfg.weight_decay, ..Default::default() }
            .build(&vs, cfg.learning_rate)?;
        Ok(Trainer { enc, vs, net, opt, batch: InputBatch::default(), cfg, steps: 0 })
    }

    pub fn device(&self) -> Device {
        self.vs.device()
    }

    /// Losses of a batch of examples (no gradient step when `learn` is false).
    pub fn step(&mut self, batch: &[&Example], mirror_flags: &[bool], learn: bool) -> StepMetrics {
        let dev = self.device();
        self.batch.fill_with(
            &self.enc,
            batch.iter().zip(mirror_flags).map(|(e, &m)| (&e.pos, e.moves.as_slice(), e.ply, m)),
        );
        let mm = self.batch.max_moves;
        let mut tgt = vec![0f32; batch.len() * mm];
        for (i, e) in batch.iter().enumerate() {
            tgt[i * mm..i * mm + e.target.len()].copy_from_slice(&e.target);
        }
        let (board, scalars, moves, mask) = self.batch.tensors(dev);
        let target = Tensor::from_slice(&tgt).view([batch.len() as i64, mm as i64]).to_device(dev);
        let vclass: Vec<i64> = batch.iter().map(|e| e.value_class).collect();
        let vclass = Tensor::from_slice(&vclass).to_device(dev);
        let run = |net: &Net| {
            let t = net.trunk(&board, &scalars, learn);
            let logits = net.policy_logits(&t, &moves, &mask);
            let logp = logits.log_softmax(1, Kind::Float).masked_fill(&mask.logical_not(), 0.0);
            let pl = -(target.shallow_clone() * logp)
                .sum_dim_intlist(&[1i64][..], false, Kind::Float)
                .mean(Kind::Float);
            let vl = t.wdl.cross_entropy_for_logits(&vclass);
            (pl, vl)
        };
        let (pl, vl) = if learn { run(&self.net) } else { tch::no_grad(|| run(&self.net)) };
        let total = &pl + &vl * self.cfg.value_weight;
        if learn {
            self.opt.backward_step(&total);
            self.steps += 1;
        }
        StepMetrics {
            policy_loss: f64::try_from(&pl).unwrap_or(f64::NAN),
            value_loss: f64::try_from(&vl).unwrap_or(f64::NAN),
            total_loss: f64::try_from(&total).unwrap_or(f64::NAN),
            samples: batch.len(),
        }
    }

    /// Train for `steps` minibatches drawn from `examples` (shuffled epochs), calling `on_step`
    /// after each.
    pub fn train(
        &mut self,
        examples: &[Example],
        steps: u64,
        seed: u64,
        mut on_step: impl FnMut(u64, &StepMetrics),
    ) {
        if examples.is_empty() {
            return;
        }
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut order: Vec<usize> = (0..examples.len()).collect();
        order.shuffle(&mut rng);
        let mut cursor = 0;
        let bs = self.cfg.batch_size.min(examples.len());
        let mirror_ok = self.cfg.mirror && self.enc.mirror_ok;
        for s in 0..steps {
            if cursor + bs > order.len() {
                order.shuffle(&mut rng);
                cursor = 0;
            }
            let idx = &order[cursor..cursor + bs];
            cursor += bs;
            let batch: Vec<&Example> = idx.iter().map(|&i| &examples[i]).collect();
            let flags: Vec<bool> = (0..bs).map(|_| mirror_ok && rng.gen::<bool>()).collect();
            let m = self.step(&batch, &flags, true);
            on_step(s, &m);
        }
    }
}
