//! Training: examples -> minibatches (shuffled, mirrored where the variant allows it) -> AdamW
//! on policy cross-entropy (over the legal moves) plus value cross-entropy (win/draw/loss
//! probabilities), under a learning-rate schedule; held-out figures without a gradient step.

use crate::batch::InputBatch;
use crate::examples::Example;
use crate::model::Net;
use crate::schedule::{LrSchedule, Schedule};
use rand::{rngs::SmallRng, seq::SliceRandom, Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use shogilab_selfplay::encode::Encoder;
use shogilab_selfplay::InvalidSetting;
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
    /// Share of the search value in the value target (the rest is the game result).
    pub value_mix: f64,
    /// Percent of games held out of training to measure the losses on.
    pub validation_percent: f64,
    /// Learning-rate schedule after the warm-up.
    pub lr_schedule: LrSchedule,
    /// Steps of linear warm-up at the start of each training job (with `schedule_steps`: of
    /// the network's training from step 0).
    pub warmup_steps: u64,
    /// The cosine's floor, as a share of the learning rate.
    pub min_lr_ratio: f64,
    /// Network step where the cosine reaches its floor (one curve over several chunks); 0: each
    /// training job warms up and decays on its own.
    pub schedule_steps: u64,
    /// Share of the window's positions read (a seeded sample of rows, filtered by the scan so
    /// that memory holds only the sample); 1 reads them all.
    pub sample_fraction: f64,
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
            value_mix: 0.0,
            validation_percent: 5.0,
            lr_schedule: LrSchedule::Constant,
            warmup_steps: 0,
            min_lr_ratio: 0.1,
            schedule_steps: 0,
            sample_fraction: 1.0,
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
        if !(0.0..=1.0).contains(&self.value_mix) {
            return bad("value_mix", &self.value_mix, "must be in [0, 1]");
        }
        if !(0.0..50.0).contains(&self.validation_percent) {
            return bad("validation_percent", &self.validation_percent, "must be in [0, 50)");
        }
        if !(0.0..=1.0).contains(&self.min_lr_ratio) {
            return bad("min_lr_ratio", &self.min_lr_ratio, "must be in [0, 1]");
        }
        if !(self.sample_fraction > 0.0 && self.sample_fraction <= 1.0) {
            return bad("sample_fraction", &self.sample_fraction, "must be in (0, 1]");
        }
        Ok(())
    }
}

/// Loss figures of one step.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct StepMetrics {
    pub policy_loss: f64,
    pub value_loss: f64,
    pub total_loss: f64,
    /// Share of samples whose most likely move is the target's (the search's choice).
    pub policy_accuracy: f64,
    pub samples: usize,
    /// Learning rate of the step (0 without a gradient step).
    pub lr: f64,
}

/// Held-out figures: sample-weighted means over every batch.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq)]
pub struct Validation {
    pub policy_loss: f64,
    pub value_loss: f64,
    pub policy_accuracy: f64,
    pub positions: usize,
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

    /// The schedule of a job that starts at the network's step `steps0` and runs `steps`.
    pub fn schedule(&self, steps0: u64, steps: u64) -> Schedule {
        Schedule {
            kind: self.cfg.lr_schedule,
            base: self.cfg.learning_rate,
            warmup_steps: self.cfg.warmup_steps,
            // 0: this job's own warm-up and decay; else one curve over chunks from step 0
            start: if self.cfg.schedule_steps == 0 { steps0 } else { 0 },
            horizon: match self.cfg.schedule_steps {
                0 => steps0 + steps,
                n => n,
            },
            min_lr_ratio: self.cfg.min_lr_ratio,
        }
    }

    /// Pack a batch into tensors: inputs, policy targets [B, M], value targets [B, 3].
    fn tensors(&mut self, batch: &[&Example], mirror_flags: &[bool]) -> BatchTensors {
        let dev = self.device();
        self.batch
            .fill_encoded(&self.enc, batch.iter().zip(mirror_flags).map(|(e, &m)| (&e.input, m)));
        let mm = self.batch.max_moves;
        let mut tgt = vec![0f32; batch.len() * mm];
        for (i, e) in batch.iter().enumerate() {
            tgt[i * mm..i * mm + e.target.len()].copy_from_slice(&e.target);
        }
        let (board, scalars, moves, mask) = self.batch.tensors(dev);
        let b = batch.len() as i64;
        let policy = Tensor::from_slice(&tgt).view([b, mm as i64]).to_device(dev);
        let v: Vec<f32> = batch.iter().flat_map(|e| e.value).collect();
        let value = Tensor::from_slice(&v).view([b, 3]).to_device(dev);
        BatchTensors { board, scalars, moves, mask, policy, value }
    }

    /// Losses of a batch of examples; a gradient step at learning rate `lr` when given.
    pub fn step(
        &mut self,
        batch: &[&Example],
        mirror_flags: &[bool],
        lr: Option<f64>,
    ) -> StepMetrics {
        let t = self.tensors(batch, mirror_flags);
        let learn = lr.is_some();
        let run = |net: &Net| {
            let trunk = net.trunk(&t.board, &t.scalars, learn);
            let logits = net.policy_logits(&trunk, &t.moves, &t.mask);
            let logp = logits.log_softmax(1, Kind::Float).masked_fill(&t.mask.logical_not(), 0.0);
            let pl = -(&t.policy * logp)
                .sum_dim_intlist(&[1i64][..], false, Kind::Float)
                .mean(Kind::Float);
            let vlogp = trunk.wdl.log_softmax(1, Kind::Float);
            let vl = -(&t.value * vlogp)
                .sum_dim_intlist(&[1i64][..], false, Kind::Float)
                .mean(Kind::Float);
            let hits = logits.argmax(1, false).eq_tensor(&t.policy.argmax(1, false));
            (pl, vl, hits.to_kind(Kind::Float).mean(Kind::Float))
        };
        let (pl, vl, acc) = if learn { run(&self.net) } else { tch::no_grad(|| run(&self.net)) };
        let total = &pl + &vl * self.cfg.value_weight;
        if let Some(lr) = lr {
            self.opt.set_lr(lr);
            self.opt.backward_step(&total);
            self.steps += 1;
        }
        let num = |x: &Tensor| f64::try_from(x).unwrap_or(f64::NAN);
        StepMetrics {
            policy_loss: num(&pl),
            value_loss: num(&vl),
            total_loss: num(&total),
            policy_accuracy: num(&acc),
            samples: batch.len(),
            lr: lr.unwrap_or(0.0),
        }
    }

    /// Held-out figures of `examples` (no gradient, no mirroring), in batches.
    pub fn evaluate(&mut self, examples: &[Example]) -> Validation {
        let mut v = Validation::default();
        for chunk in examples.chunks(self.cfg.batch_size.max(1)) {
            let refs: Vec<&Example> = chunk.iter().collect();
            let m = self.step(&refs, &vec![false; refs.len()], None);
            let n = refs.len() as f64;
            v.policy_loss += m.policy_loss * n;
            v.value_loss += m.value_loss * n;
            v.policy_accuracy += m.policy_accuracy * n;
            v.positions += refs.len();
        }
        let n = v.positions.max(1) as f64;
        v.policy_loss /= n;
        v.value_loss /= n;
        v.policy_accuracy /= n;
        v
    }

    /// Train for `steps` minibatches drawn from `examples` (shuffled epochs) under the schedule
    /// of a job starting at the network's step `steps0`, calling `on_step` after each.
    pub fn train(
        &mut self,
        examples: &[Example],
        steps: u64,
        steps0: u64,
        seed: u64,
        mut on_step: impl FnMut(u64, &StepMetrics),
    ) {
        if examples.is_empty() {
            return;
        }
        let schedule = self.schedule(steps0, steps);
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
            let m = self.step(&batch, &flags, Some(schedule.lr_at(steps0 + s)));
            on_step(s, &m);
        }
    }
}

/// One batch as tensors.
struct BatchTensors {
    board: Tensor,
    scalars: Tensor,
    moves: Tensor,
    mask: Tensor,
    policy: Tensor,
    value: Tensor,
}
