//! Error types of the engine. Every error names the input it came from and the fault.

use crate::cell::Color;
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

/// A position whose incremental state (piece lists, counters, hash) disagrees with its board:
/// a fault of the engine, never of its input. Found by [`crate::Position::validate`].
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ConsistencyError {
    /// The piece list of `color` names `square`, which does not hold a piece of that colour.
    #[error("piece list of {color:?} holds {square} without its piece")]
    StalePieceList { color: Color, square: String },
    /// The index kept for `square` does not point at its slot in the piece list.
    #[error("piece index of {square} is {recorded}, its slot is {actual}")]
    PieceIndex { square: String, recorded: u16, actual: usize },
    /// The royal counter of `color` differs from the royals on the board.
    #[error("royal count of {color:?} is {recorded}, the board has {counted}")]
    RoyalCount { color: Color, recorded: u16, counted: u16 },
    /// The board and the piece lists hold different numbers of pieces.
    #[error("board holds {board} pieces, the piece lists {lists}")]
    PieceCount { board: usize, lists: usize },
    /// The incremental Zobrist hash differs from one computed from scratch.
    #[error("incremental hash {incremental:#018x} differs from a fresh one {fresh:#018x}")]
    Hash { incremental: u64, fresh: u64 },
}
