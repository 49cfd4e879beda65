//! shogilab-selfplay: batched MCTS self-play.
//!
//! * [`encode`]: network input and move encoding shared with training;
//! * [`evaluator`]: the `Evaluator` trait and the `uniform` / `material` backends;
//! * [`values`]: piece-value tables (from a file, or from mobility);
//! * [`invalid`]: the error of a setting outside its range;
//! * [`mcts`]: Gumbel-root / PUCT search as a state machine for batching;
//! * [`worker`]: many concurrent games around one evaluator.

pub mod dataset;
pub mod encode;
pub mod evaluator;
pub mod invalid;
pub mod mcts;
pub mod values;
pub mod worker;

pub use evaluator::{EvalOutput, EvalRequest, Evaluator, Material, Uniform};
pub use invalid::InvalidSetting;
pub use mcts::{Search, SearchConfig, SearchResult};
pub use values::{PieceValues, ValueTableError};
pub use worker::{play_games, GameRecord, PositionRecord, Progress, SelfplayConfig};
