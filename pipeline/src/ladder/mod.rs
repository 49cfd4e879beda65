//! Strength ladders: a TOML list of agents at stated limits ([`LadderConfig`]), played as a
//! round robin with a maximum-likelihood Elo table and head-to-head matches ([`run_ladder`]),
//! written as a Markdown report ([`report::write_report`]).
//!
//! * [`config`]: the configuration and its checks (errors name the file and the key);
//! * [`limits`]: which limits each agent kind honours, and the limits in words;
//! * [`work`]: the work folder, its recorded settings and the saved pairings (resumption);
//! * [`record`]: the typed results (games, pairings, forfeits) the report is written from;
//! * [`run`]: playing the pairings;
//! * [`report`]: the Markdown report.
//!
//! Checkpoint evaluators come through the `extra` callback of the agent specs, supplied by the
//! caller, so that this module does not load networks itself.

pub mod config;
pub mod limits;
pub mod record;
pub mod report;
pub mod run;
pub mod work;

pub use config::{default_paths, AgentConfig, External, H2hConfig, LadderConfig};
pub use record::{ForfeitKind, GameLog, LadderResult, PairLog};
pub use report::{write_report, ReportMeta};
pub use run::{run_ladder, RunOptions};

use std::path::PathBuf;

/// Why a ladder could not be run or reported.
#[derive(Debug, thiserror::Error)]
pub enum LadderError {
    #[error("reading {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("{path}: `{key}`: {reason}")]
    Invalid { path: PathBuf, key: String, reason: String },
    #[error("encoding {path}: {message}")]
    Encode { path: PathBuf, message: String },
    #[error(
        "{dir} holds a ladder played with other settings (`{key}` differs: {all}); use another \
         --out folder, or remove {dir} to play again"
    )]
    SettingsChanged { dir: PathBuf, key: String, all: String },
    #[error("loading variant {variant:?}: {source}")]
    Variant {
        variant: String,
        #[source]
        source: shogilab_engine::EngineError,
    },
    #[error("{left} of the ladder's agents are on it; at least two are needed ({missing})")]
    TooFewAgents { left: usize, missing: String },
    #[error("saved pairing {path} is {found}, expected {expected}")]
    SavedMismatch { path: PathBuf, found: String, expected: String },
    #[error(transparent)]
    Play(#[from] shogilab_eval::play::PlayError),
    #[error(transparent)]
    Gauntlet(#[from] shogilab_eval::gauntlet::GauntletError),
    #[error(transparent)]
    Write(#[from] shogilab_fsio::FsioError),
}
