//! The networks of `shogilab-full`: the [`Networks`] that the engine-only commands name
//! (agents over USI/XBoard, probed checkpoints), loaded with libtorch.

use anyhow::Result;
use shogilab_cli::engine_cmds::Networks;
use shogilab_engine::Variant;
use shogilab_eval::ExtraError;
use shogilab_selfplay::Evaluator;
use std::sync::Arc;

/// Checkpoints loaded with libtorch.
pub struct TorchNetworks;

impl Networks for TorchNetworks {
    fn for_spec(&self, name: &str) -> Option<Result<Arc<dyn Evaluator>, ExtraError>> {
        shogilab_pipeline::checkpoint_for_spec(name)
    }

    /// Loading checks that the checkpoint fits the variant (`checkpoint::load`).
    fn load(&self, path: &str, variant: &Arc<Variant>) -> Result<Arc<dyn Evaluator>> {
        Ok(shogilab_pipeline::make_evaluator(path, variant)?)
    }
}
