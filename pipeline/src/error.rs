//! The error of the pipeline's stages: each variant names the file, setting or agent at fault.

use crate::config::ConfigError;
use crate::evaluators::EvaluatorError;
use crate::settings::{describe, SettingDiff};
use shogilab_eval::play::PlayError;
use shogilab_eval::record::RecordError;
use shogilab_eval::AgentError;
use shogilab_fsio::FsioError;
use shogilab_plot::PlotError;
use shogilab_selfplay::dataset::DatasetError;
use shogilab_selfplay::InvalidSetting;
use shogilab_train::checkpoint::CheckpointError;
use std::path::PathBuf;

/// Why a stage or the generation loop stopped.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Store(#[from] shogilab_store::StoreError),
    /// A setting of a stage out of range.
    #[error(transparent)]
    Setting(#[from] InvalidSetting),
    /// A folder holds the outputs of other settings.
    #[error("{path} records other settings: {}; {hint}", describe(.diffs))]
    SettingsDiffer { path: PathBuf, diffs: Vec<SettingDiff>, hint: &'static str },
    /// `--games` of a continued self-play folder would change its last shard.
    #[error(
        "{path}: {saved} games were played in shards of {shard_games}; continuing with more \
         games needs a multiple of shard_games to start from (the last shard is partial)"
    )]
    PartialShard { path: PathBuf, saved: u64, shard_games: u64 },
    /// Fewer games than the folder already records.
    #[error(
        "{path} records {saved} games; --games {now} would leave shards beyond it in the dataset"
    )]
    FewerGames { path: PathBuf, saved: u64, now: u64 },
    #[error(transparent)]
    Evaluator(#[from] EvaluatorError),
    #[error(transparent)]
    Dataset(#[from] DatasetError),
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    #[error(transparent)]
    Write(#[from] FsioError),
    #[error(transparent)]
    Plot(#[from] PlotError),
    #[error(transparent)]
    Agent(#[from] AgentError),
    #[error(transparent)]
    Play(#[from] PlayError),
    #[error(transparent)]
    Record(#[from] RecordError),
    /// Reading or creating a file or folder.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A saved record that is not what this version writes.
    #[error("{path}: {reason}")]
    BadRecord { path: PathBuf, reason: String },
    /// Training could not start (the training crate reports these as text).
    #[error("training {out}: {reason}")]
    Train { out: PathBuf, reason: String },
    /// A stage given nothing to do.
    #[error("{0}")]
    Empty(String),
}

impl PipelineError {
    /// An I/O error on `path`.
    pub fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> PipelineError + '_ {
        move |source| PipelineError::Io { path: path.to_path_buf(), source }
    }
}
