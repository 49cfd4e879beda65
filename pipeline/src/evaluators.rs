//! Evaluators by name, the one place where a checkpoint becomes an [`Evaluator`]: `uniform`,
//! `material` (mobility values), `material=TABLE.toml` (a value table) or a checkpoint path
//! ending in `.ot`, also as a URL (`s3://bucket/run/checkpoints/<sha256>.ot`: fetched once per
//! machine, [`shogilab_store::cache`]). Every command that takes an evaluator or an `mcts:`
//! agent spec comes here.

use shogilab_engine::Variant;
use shogilab_eval::spec::ExtraError;
use shogilab_selfplay::encode::Encoder;
use shogilab_selfplay::{Evaluator, Material, Uniform, ValueTableError};
use shogilab_store::cache;
use shogilab_train::checkpoint::{self, CheckpointError};
use shogilab_train::TchEvaluator;
use std::path::Path;
use std::sync::Arc;

/// Why an evaluator name could not be turned into an evaluator.
#[derive(Debug, thiserror::Error)]
pub enum EvaluatorError {
    /// Neither a known evaluator nor a checkpoint path.
    #[error(
        "evaluator {0:?}: expected uniform, material, material=TABLE.toml or a checkpoint path \
         ending in .ot"
    )]
    Unknown(String),
    /// The value table of `material=TABLE.toml`.
    #[error("evaluator {name:?}: {source}")]
    Table {
        name: String,
        #[source]
        source: ValueTableError,
    },
    /// The checkpoint (missing, of another variant, unreadable weights).
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// A checkpoint at a URL that could not be fetched.
    #[error(transparent)]
    Fetch(#[from] shogilab_store::StoreError),
    /// The checkpoint names a variant that is not built in (for agent specs without a variant).
    #[error("checkpoint {path}: variant {variant:?}: {reason}")]
    Variant { path: String, variant: String, reason: String },
}

/// Load a checkpoint as an evaluator for `variant` on libtorch's default device; a checkpoint
/// trained for another board or piece set is refused, naming the file and the field.
pub fn load_checkpoint_evaluator(
    path: &Path,
    variant: &Arc<Variant>,
) -> Result<Arc<dyn Evaluator>, EvaluatorError> {
    let enc = Encoder::new(Arc::clone(variant));
    let (vs, net, meta) = checkpoint::load(path, &enc, shogilab_train::default_device())?;
    Ok(Arc::new(TchEvaluator::new(vs, net, enc, meta.model_id)))
}

/// The evaluator a name asks for (see the module documentation).
pub fn make_evaluator(
    name: &str,
    variant: &Arc<Variant>,
) -> Result<Arc<dyn Evaluator>, EvaluatorError> {
    if let Some(m) = Material::from_name(variant, name) {
        let m = m.map_err(|source| EvaluatorError::Table { name: name.to_string(), source })?;
        return Ok(Arc::new(m));
    }
    match name {
        "uniform" => Ok(Arc::new(Uniform)),
        path if path.ends_with(".ot") => {
            load_checkpoint_evaluator(&cache::fetch(path, "json")?, variant)
        }
        other => Err(EvaluatorError::Unknown(other.to_string())),
    }
}

/// A checkpoint evaluator for an `mcts:PATH.ot` agent spec, in the variant the checkpoint was
/// trained for: the `extra` argument of [`shogilab_eval::parse_agent_spec`]. `None` for names
/// that are not checkpoints; an unusable checkpoint is an error naming the file.
pub fn checkpoint_for_spec(name: &str) -> Option<Result<Arc<dyn Evaluator>, ExtraError>> {
    if !name.ends_with(".ot") {
        return None;
    }
    let load = || {
        let path = &cache::fetch(name, "json").map_err(EvaluatorError::from)?;
        let meta = checkpoint::read_meta(path)?;
        let v = Variant::builtin(&meta.variant).map_err(|e| EvaluatorError::Variant {
            path: name.to_string(),
            variant: meta.variant.clone(),
            reason: e.to_string(),
        })?;
        load_checkpoint_evaluator(path, &v)
    };
    Some(load().map_err(ExtraError::from))
}
