//! The `Evaluator` trait (policy over the legal moves + win/draw/loss value for the side to
//! move, for a whole batch at once) and the two built-in backends that need no network:
//! `uniform` and `material`. The `tch` backend lives in the `train` crate.

use crate::values::{PieceValues, ValueTableError};
use shogilab_engine::{Move, Position};

/// One position to evaluate, with its legal moves (in the order the policy must follow).
pub struct EvalRequest<'a> {
    pub pos: &'a Position,
    pub moves: &'a [Move],
    /// Earlier occurrences of this position in the game.
    pub repetitions: u32,
    /// Plies played so far.
    pub plies: u32,
}

/// Evaluation of one position.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EvalOutput {
    /// Probabilities over the request's moves (sums to 1; empty when there are no moves).
    pub policy: Vec<f32>,
    /// Win, draw, loss probabilities for the side to move.
    pub wdl: [f32; 3],
}

impl EvalOutput {
    /// Expected score in [-1, 1] for the side to move.
    pub fn value(&self) -> f32 {
        self.wdl[0] - self.wdl[2]
    }
}

/// Something that scores positions in batches. Implementations must be deterministic for a
/// given input (reproducible runs).
pub trait Evaluator: Send + Sync {
    /// A short identifier recorded in datasets (`model_id`).
    fn id(&self) -> String;
    /// Evaluate a batch; `out` is resized to the batch and its vectors reused.
    fn evaluate(&self, batch: &[EvalRequest<'_>], out: &mut Vec<EvalOutput>);
    /// The variant the evaluator was made for, where it was made for one (a network); `None`
    /// for evaluators that serve any variant.
    fn variant(&self) -> Option<&str> {
        None
    }
}

fn uniform_into(n: usize, policy: &mut Vec<f32>) {
    policy.clear();
    if n > 0 {
        policy.resize(n, 1.0 / n as f32);
    }
}

/// Uniform policy, value 0 (draw-ish): search guided by nothing but the game's end.
#[derive(Debug, Default, Clone)]
pub struct Uniform;

impl Evaluator for Uniform {
    fn id(&self) -> String {
        "uniform".into()
    }
    fn evaluate(&self, batch: &[EvalRequest<'_>], out: &mut Vec<EvalOutput>) {
        out.resize_with(batch.len(), EvalOutput::default);
        for (r, o) in batch.iter().zip(out.iter_mut()) {
            uniform_into(r.moves.len(), &mut o.policy);
            o.wdl = [0.0, 1.0, 0.0];
        }
    }
}

/// Material evaluator: value from the material balance (piece values in pawn units), policy
/// that prefers captures of valuable pieces.
#[derive(Debug, Clone)]
pub struct Material {
    pub values: PieceValues,
    /// Pawns of material advantage that map to a value of tanh(1) ≈ 0.76.
    pub scale: f32,
    /// Policy temperature on the captured value (0 = uniform policy).
    pub capture_bias: f32,
}

impl Material {
    /// The material evaluator an evaluator name asks for: `material` (values from mobility) or
    /// `material=TABLE.toml` (a value table, e.g. `configs/values/chu-gcsa.toml`); `None` when
    /// the name is not a material evaluator.
    pub fn from_name(
        variant: &std::sync::Arc<shogilab_engine::Variant>,
        name: &str,
    ) -> Option<Result<Material, ValueTableError>> {
        if name == "material" {
            return Some(Ok(Material::new(PieceValues::mobility(variant.clone()))));
        }
        let path = name.strip_prefix("material=")?;
        Some(PieceValues::from_file(variant.clone(), std::path::Path::new(path)).map(Material::new))
    }

    pub fn new(values: PieceValues) -> Material {
        let scale = (values.total_start_material() / 8.0).max(2.0);
        Material { values, scale, capture_bias: 0.5 }
    }

    /// Material balance for the side to move, in pawns.
    pub fn balance(&self, pos: &Position) -> f32 {
        let us = pos.side_to_move();
        self.values.material(pos, us) - self.values.material(pos, us.flip())
    }
}

impl Evaluator for Material {
    fn id(&self) -> String {
        format!("material:{}", self.values.source)
    }
    fn evaluate(&self, batch: &[EvalRequest<'_>], out: &mut Vec<EvalOutput>) {
        out.resize_with(batch.len(), EvalOutput::default);
        for (r, o) in batch.iter().zip(out.iter_mut()) {
            let v = (self.balance(r.pos) / self.scale).tanh();
            o.wdl = [(1.0 + v) / 2.0, 0.0, (1.0 - v) / 2.0];
            if self.capture_bias <= 0.0 {
                uniform_into(r.moves.len(), &mut o.policy);
                continue;
            }
            o.policy.clear();
            let mut sum = 0.0;
            for &m in r.moves {
                let gain = self.values.capture_gain(r.pos, m);
                let w = (self.capture_bias * gain).min(30.0).exp();
                o.policy.push(w);
                sum += w;
            }
            if sum > 0.0 {
                o.policy.iter_mut().for_each(|p| *p /= sum);
            }
        }
    }
}
