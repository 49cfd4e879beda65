//! The configuration layers of `shogilab pipeline` from its arguments, in order: the built-in
//! defaults, `--config FILE`, the shortcuts (`--games`, `--generations`, ...), then `--set`
//! (`shogilab_pipeline::config` merges and checks them).

use anyhow::Result;
use shogilab_pipeline::config::{self, Layer, PipelineConfig};
use std::path::Path;

/// Resolve `file`, then the shortcuts given (dotted key, TOML value), then the `--set` pairs.
pub fn resolve(
    file: Option<&Path>,
    shortcuts: &[(&str, Option<String>)],
    set: &[String],
) -> Result<PipelineConfig> {
    let mut layers = Vec::new();
    if let Some(f) = file {
        layers.push(Layer::file(f)?);
    }
    let given: Vec<String> =
        shortcuts.iter().filter_map(|(key, v)| v.as_ref().map(|v| format!("{key}={v}"))).collect();
    layers.push(Layer::assignments("command-line option", &given)?);
    layers.push(Layer::assignments("--set", set)?);
    Ok(config::resolve(&layers)?)
}
