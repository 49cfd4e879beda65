//! Error types of the engine. Every error names the input it came from and the fault.

use thiserror::Error;

/// Errors produced while loading, compiling or using a variant and its notations.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum EngineError {
    /// A variant specification (TOML) that cannot be used. `source` names the file or the
    /// built-in variant; `errors` lists every fault found.
    #[error("invalid variant spec {origin}:\n{}", .errors.iter().map(|e| format!("  - {e}")).collect::<Vec<_>>().join("\n"))]
    Spec { origin: String, errors: Vec<String> },
    /// A malformed or impossible SFEN string.
    #[error("invalid SFEN {input:?}: {msg}")]
    Sfen { input: String, msg: String },
    /// A malformed USI move string.
    #[error("invalid USI move {input:?}: {msg}")]
    Usi { input: String, msg: String },
    /// A well-formed move that is not legal in the position.
    #[error("illegal move {input}: {reason}")]
    Illegal { input: String, reason: String },
    /// An unknown variant name.
    #[error("unknown variant {0:?} (built-in: shogi/standard, chu/chushogi, tenjiku, tai)")]
    UnknownVariant(String),
}

impl EngineError {
    pub(crate) fn sfen(input: &str, msg: impl Into<String>) -> Self {
        EngineError::Sfen { input: input.to_string(), msg: msg.into() }
    }
    pub(crate) fn usi(input: &str, msg: impl Into<String>) -> Self {
        EngineError::Usi { input: input.to_string(), msg: msg.into() }
    }
}

pub type Result<T> = std::result::Result<T, EngineError>;
