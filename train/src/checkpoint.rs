//! Checkpoints: the network weights (`<name>.ot`, libtorch's format) and a JSON sidecar
//! (`<name>.json`) with everything needed to rebuild the network and to refuse a checkpoint
//! that belongs to another variant or network size with a precise message. Both are written
//! to temporary names and renamed.

use crate::model::{Net, NetConfig};
use serde::{Deserialize, Serialize};
use shogilab_selfplay::encode::Encoder;
use std::path::{Path, PathBuf};
use tch::{nn, Device};

/// Checkpoint metadata.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CheckpointMeta {
    pub format: u32,
    pub variant: String,
    pub files: usize,
    pub ranks: usize,
    pub piece_types: usize,
    pub hand_kinds: usize,
    pub scalars: usize,
    pub net: NetConfig,
    /// Training steps that produced these weights.
    pub steps: u64,
    /// Identifier recorded in datasets.
    pub model_id: String,
    /// Losses and policy accuracy on the games held out of the training that wrote it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validation: Option<crate::trainer::Validation>,
}

pub const FORMAT: u32 = 1;

/// Errors reading or writing checkpoints.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    #[error("checkpoint {path}: {msg}")]
    Invalid { path: String, msg: String },
    #[error("checkpoint {path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("checkpoint {path}: libtorch: {msg}")]
    Torch { path: String, msg: String },
    #[error("checkpoint {path}: {source}")]
    Write { path: String, source: shogilab_fsio::FsioError },
}

fn sidecar(path: &Path) -> PathBuf {
    path.with_extension("json")
}

impl CheckpointMeta {
    pub fn for_net(enc: &Encoder, net: &NetConfig, steps: u64, model_id: &str) -> CheckpointMeta {
        CheckpointMeta {
            format: FORMAT,
            variant: enc.variant.name.clone(),
            files: enc.width,
            ranks: enc.height,
            piece_types: enc.types,
            hand_kinds: enc.hand_kinds,
            scalars: enc.num_scalars(),
            net: net.clone(),
            steps,
            model_id: model_id.to_string(),
            validation: None,
        }
    }

    /// Check that this checkpoint fits a variant's encoder.
    pub fn check(&self, enc: &Encoder, path: &Path) -> Result<(), CheckpointError> {
        let bad = |msg: String| CheckpointError::Invalid { path: path.display().to_string(), msg };
        if self.format != FORMAT {
            return Err(bad(format!("format {} (this build reads {FORMAT})", self.format)));
        }
        if self.variant != enc.variant.name {
            return Err(bad(format!(
                "trained for variant {:?}, not {:?}",
                self.variant, enc.variant.name
            )));
        }
        if (self.files, self.ranks, self.piece_types, self.hand_kinds, self.scalars)
            != (enc.width, enc.height, enc.types, enc.hand_kinds, enc.num_scalars())
        {
            return Err(bad(format!(
                "input shape {}x{} board, {} piece types, {} hand kinds does not match this variant spec ({}x{}, {}, {})",
                self.files, self.ranks, self.piece_types, self.hand_kinds, enc.width, enc.height, enc.types, enc.hand_kinds
            )));
        }
        Ok(())
    }
}

/// Read a checkpoint's metadata.
pub fn read_meta(path: &Path) -> Result<CheckpointMeta, CheckpointError> {
    let sc = sidecar(path);
    let text = std::fs::read_to_string(&sc)
        .map_err(|e| CheckpointError::Io { path: sc.display().to_string(), source: e })?;
    serde_json::from_str(&text).map_err(|e| CheckpointError::Invalid {
        path: sc.display().to_string(),
        msg: e.to_string(),
    })
}

/// Save weights and metadata, each written whole (`shogilab_fsio`). The sidecar lands first:
/// a checkpoint file never exists without its metadata. The same weights give the same bytes
/// (variables in name order, the archive named after the checkpoint), so a checkpoint's
/// content hash names its weights.
pub fn save(vs: &nn::VarStore, meta: &CheckpointMeta, path: &Path) -> Result<(), CheckpointError> {
    let ps = path.display().to_string();
    let json = serde_json::to_string_pretty(meta)
        .map_err(|e| CheckpointError::Invalid { path: ps.clone(), msg: e.to_string() })?;
    let sc = sidecar(path);
    shogilab_fsio::write_atomic(&sc, json.as_bytes())
        .map_err(|e| CheckpointError::Write { path: sc.display().to_string(), source: e })?;
    let mut named: Vec<(String, tch::Tensor)> = vs.variables().into_iter().collect();
    named.sort_by(|a, b| a.0.cmp(&b.0));
    shogilab_fsio::write_atomic_with(path, |tmp| tch::Tensor::save_multi(&named, tmp))
        .map_err(|e| CheckpointError::Write { path: ps.clone(), source: e })?
        .map_err(|e| CheckpointError::Torch { path: ps, msg: e.to_string() })
}

/// Load a checkpoint for a variant: rebuilds the network from the metadata, checks that it fits
/// the variant, and loads the weights.
pub fn load(
    path: &Path,
    enc: &Encoder,
    device: Device,
) -> Result<(nn::VarStore, Net, CheckpointMeta), CheckpointError> {
    let meta = read_meta(path)?;
    meta.check(enc, path)?;
    meta.net.validate().map_err(|e| CheckpointError::Invalid {
        path: path.display().to_string(),
        msg: e.to_string(),
    })?;
    let mut vs = nn::VarStore::new(device);
    let net = Net::new(&vs.root(), enc, &meta.net);
    vs.load(path).map_err(|e| CheckpointError::Torch {
        path: path.display().to_string(),
        msg: e.to_string(),
    })?;
    Ok((vs, net, meta))
}
