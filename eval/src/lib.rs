//! shogilab-eval: playing strength measurement.
//!
//! * [`agent`]: the [`Agent`] trait (one move at a time) and the simple agents (random, greedy);
//!   [`alphabeta`] and [`mcts_agent`] are the searching ones; [`spec`] turns strings such as
//!   `alphabeta:3` or `usi:/path/to/engine` into agents;
//! * [`search`]: the one alpha-beta core, configured by the `alphabeta` agent and by the
//!   imbalance engine of [`values`];
//! * [`engine_proc`], [`usi_client`], [`xboard_client`], [`winboard`]: external engines over a
//!   child process, with a timeout on every read; [`server`]: an agent served over USI or
//!   XBoard to a GUI (any reader and writer);
//! * [`play`]: one game between two agents, with forfeits for crashes, hangs and illegal moves;
//! * `match`: a match between two agents with paired openings, score and Elo intervals;
//!   [`record`]: a match written to a folder and read back as data;
//! * [`elo`], [`sprt`]: maximum-likelihood Elo over many players, and the sequential test;
//!   [`logistic`]: the logistic regression and linear algebra behind Elo and the piece values;
//! * [`gauntlet`]: round robins and gauntlets with one Elo table.

pub mod agent;
pub mod alphabeta;
pub mod elo;
pub mod engine_proc;
pub mod gauntlet;
pub mod gauntlet_tasks;
pub mod leaf_quiescence;
pub mod logistic;
pub mod r#match;
pub mod match_tasks;
pub mod mcts_agent;
pub mod openings;
pub mod play;
pub mod record;
pub mod root_rules;
pub mod root_screen;
pub mod search;
pub mod search_agent;
pub mod server;
pub mod spec;
pub mod sprt;
pub mod trade_down;
pub mod usi_client;
pub mod values;
pub mod winboard;
pub mod xboard_client;

pub use agent::{
    check_limits, Agent, AgentError, Choice, GreedyAgent, LimitSource, LimitSupport, LimitUse,
    Limits, RandomAgent, ThinkRequest,
};
pub use alphabeta::AlphaBetaAgent;
pub use elo::{EloError, EloFit, PairResult};
pub use gauntlet::{run_gauntlet, EloRow, GauntletConfig, GauntletMode, GauntletResult};
pub use mcts_agent::MctsAgent;
pub use openings::{random_openings, Opening, OpeningList, Openings};
pub use play::{play_game, GameResult};
pub use r#match::{run_match, GameRecord, MatchConfig, MatchResult};
pub use spec::{parse_agent_spec, ExtraError, ExtraEvaluators, WithLimits, AGENT_SPEC_HELP};
pub use sprt::{Sprt, SprtDecision, SprtStatus};
pub use usi_client::{UsiAgent, UsiConfig};
pub use xboard_client::{XBoardAgent, XBoardConfig};

/// The self-play crate, re-exported so that front ends can name `Evaluator` and friends.
pub use shogilab_selfplay as selfplay;
