//! The networks of `shogilab-full`: the [`Networks`] that the engine-only commands name
//! (agents over USI/XBoard, probed checkpoints), loaded with libtorch.

use anyhow::{bail, Result};
use shogilab_cli::engine_cmds::Networks;
use shogilab_engine::Variant;
use shogilab_eval::ExtraError;
use shogilab_selfplay::Evaluator;
use std::path::Path;
use std::sync::Arc;

/// Checkpoints loaded with libtorch.
pub struct TorchNetworks;

impl Networks for TorchNetworks {
    fn for_spec(&self, name: &str) -> Option<Result<Arc<dyn Evaluator>, ExtraError>> {
        shogilab_pipeline::checkpoint_for_spec(name)
    }

    fn load(&self, path: &str, variant: &Arc<Variant>) -> Result<Arc<dyn Evaluator>> {
        let meta = shogilab_train::checkpoint::read_meta(Path::new(path))
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        if meta.variant != variant.name {
            bail!("checkpoint is for {:?}, not {:?}", meta.variant, variant.name);
        }
        Ok(shogilab_pipeline::make_evaluator(path, variant)?)
    }
}
