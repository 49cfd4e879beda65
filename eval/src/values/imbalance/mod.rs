//! Imbalance matches (H.G. Muller's method): an engine plays itself from start positions with a
//! few random pieces removed or promoted in place; every setup is played twice, the second time
//! mirrored (rotated 180 degrees, colours swapped) so that the side with the extra material
//! moves second; the games go to an append-only Parquet log ([`super::log`]), so runs resume
//! and extend.
//!
//! The engine is [`super::searcher::Searcher`] (its own module). The setups are drawn in
//! `setup.rs`, played in `play.rs` and fitted in `fit.rs`; this module holds the settings, the
//! logged game and the checks on a log. Games that reach the ply cap are draws: there
//! is no adjudication.

use super::log::{GameLog, LogError};
use super::odds;
use super::searcher::EngineSettings;
use serde::{Deserialize, Serialize};
use shogilab_engine::{EngineError, Move, Position, Variant};
use shogilab_store::Task;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

mod fit;
mod play;
mod players;
mod setup;

pub use fit::{design, fit, fit_positions, position_design};
pub use play::{play_one, run_games, run_task, RunPlan, TaskOutcome};
pub use players::{AgentEngine, BuildAgent, Players};
pub use setup::{drop_won_setups, make_setup, wins_at_once};
pub(in crate::values) use setup::{setup_pair, start_pieces};

/// What can go wrong with imbalance settings, logs and fits.
#[derive(Debug, thiserror::Error)]
pub enum ImbalanceError {
    /// Depth 2 or more with one node budget shared by all the root moves.
    #[error("depth {depth} needs a node budget per root move (with one budget shared by all the root moves, about a quarter of the moves of a depth-2 chu search get only the static evaluation)")]
    SharedRootBudget { depth: u32 },
    /// The log holds games of another engine.
    #[error("{log}: holds games of engine {found:?}, these settings give engine {expected:?}; use the same engine settings or another --out")]
    OtherEngine { log: PathBuf, found: String, expected: String },
    #[error("game {setup}/{swap}: start position: {source}")]
    StartPosition {
        setup: usize,
        swap: u8,
        #[source]
        source: EngineError,
    },
    #[error("game {setup}/{swap}: move {index} {mv:?}: {source}")]
    Move {
        setup: usize,
        swap: u8,
        index: usize,
        mv: String,
        #[source]
        source: EngineError,
    },
    #[error("game {setup}/{swap}: unknown piece kind {kind:?}")]
    UnknownKind { setup: usize, swap: u8, kind: String },
    #[error("the variant has no pawn and no other unit was chosen: no unit for the values")]
    NoUnit,
    #[error("--odds {kind:?}: not a non-royal kind of the start array (odds can take away: {available})")]
    OddsKind { kind: String, available: String },
    #[error(
        "game {setup}/{swap}: an odds game whose sides differ by other than one piece of one kind"
    )]
    NotOdds { setup: usize, swap: u8 },
    #[error("no imbalance games to fit")]
    NoGames,
    #[error("{url}: a part of this log split into {found} tasks; --task-count {asked} would split it otherwise (use the same task count, or another --log)")]
    TaskCount { url: String, found: u32, asked: u32 },
    #[error("{task}: stopped after {played} of its {of} games; nothing stored (the task plays them again when rerun)")]
    TaskStopped { task: Task, played: usize, of: usize },
    /// The agent engine could not be built.
    #[error("--engine {spec:?}: {source}")]
    Agent {
        spec: String,
        #[source]
        source: crate::agent::AgentError,
    },
    /// An agent engine lost a game by forfeit (an agent error, an illegal move): the game is
    /// not logged, since it measures the agent's failure, not the material.
    #[error("game {setup}/{swap}: the engine forfeited ({why}); the games before it are kept")]
    Forfeit { setup: usize, swap: u8, why: String },
    /// An agent spec that the log's game ids cannot hold.
    #[error("--engine {spec:?}: contains {part:?}, which the log's game ids reserve for the setup rules")]
    AgentSpecId { spec: String, part: String },
    #[error(transparent)]
    Log(#[from] LogError),
}

/// Settings of the imbalance games.
#[derive(Debug, Clone)]
pub struct ImbalanceConfig {
    /// Full-width search depth (plies) before the quiescence search.
    pub depth: u32,
    /// Root jitter: uniform in +-noise centipawns.
    pub noise_cp: i32,
    /// Penalty (centipawns) for a move to a position that occurred before.
    pub repeat_penalty_cp: i32,
    /// Nodes per move before the search falls back to the static evaluation.
    pub node_budget: u64,
    /// Each root move gets its own `node_budget`, and the root searches with a window (a move
    /// that cannot beat the best so far even with the most favourable jitter is only bounded;
    /// the move chosen is the same). Off, one budget is shared by all the root moves, so the
    /// moves searched after it runs out get the static evaluation: rare at depth 1 (1.3% of
    /// chu moves), a broken engine at depth 2 (25%). The committed logs were played with it
    /// off (their engine ids keep the old form); depth 2 and more require it.
    pub root_budget: bool,
    /// Evaluation bonus (centipawns) per rank a non-royal piece stands from its own back rank,
    /// so that the engine brings its pieces into contact instead of shuffling.
    pub advance_cp: i32,
    /// Ply cap: a draw when reached.
    pub max_plies: u32,
    /// Up to this many non-pawn pieces removed per side.
    pub max_removals: usize,
    /// Up to this many pawns removed per side.
    pub max_pawns: usize,
    /// Chance that a side gets one piece promoted in place (half of it again for a second).
    pub promote_prob: f64,
    /// Pieces of each side promoted in place before the chance above is drawn: more variation
    /// in the kinds that exist only by promotion (their intervals are the widest otherwise).
    pub min_promotions: usize,
    /// Chance that a side with a second royal (a promoted prince) loses its king.
    pub royal_drop: f64,
    /// Redraw setups in which the side to move (as drawn or mirrored) can capture the other
    /// side's last royal with its first move (in tenjiku a removed general can leave a king open to a jumping
    /// general across the board): such games measure the start array's geometry, not the
    /// material.
    pub safe_royals: bool,
    /// Any match agent plays the games instead of the imbalance engine (`--engine SPEC`): the
    /// engine settings above (depth, budget, jitter, repeat penalty, advance bonus) are then
    /// unused; the ply cap and the setup rules apply.
    pub agent: Option<AgentEngine>,
    /// Odds games instead of random imbalances: every setup is the start array less one
    /// piece of this kind (English name, e.g. `pawn`, `gold general`) on one side, drawn at
    /// random among that side's pieces of the kind ([`super::odds`]). The setup fields above
    /// are then unused; `safe_royals` still applies.
    pub odds: Option<String>,
    pub seed: u64,
}

/// The engine part of the settings (what [`super::searcher::Searcher`] needs).
impl From<&ImbalanceConfig> for EngineSettings {
    fn from(c: &ImbalanceConfig) -> EngineSettings {
        EngineSettings {
            depth: c.depth,
            node_budget: c.node_budget,
            root_budget: c.root_budget,
            advance_cp: c.advance_cp,
        }
    }
}

impl Default for ImbalanceConfig {
    fn default() -> Self {
        ImbalanceConfig {
            depth: 1,
            noise_cp: 30,
            repeat_penalty_cp: 500,
            node_budget: 20_000,
            root_budget: false,
            advance_cp: 3,
            max_plies: 400,
            max_removals: 3,
            max_pawns: 3,
            promote_prob: 0.6,
            min_promotions: 0,
            royal_drop: 0.5,
            safe_royals: false,
            agent: None,
            odds: None,
            seed: 1,
        }
    }
}

impl ImbalanceConfig {
    /// The engine and the setup rules as one string, recorded with every game: the engine
    /// ([`Self::engine_id`]) followed by the setup rules ([`Self::setup_id`]).
    pub fn agent_id(&self) -> String {
        format!("{}-{}", self.engine_id(), self.setup_id())
    }

    /// The engine alone: a log only pools games of one engine (setup rules may differ, since
    /// the regression does not depend on how the imbalances were drawn).
    pub fn engine_id(&self) -> String {
        if let Some(a) = &self.agent {
            return format!("{}-cap{}", a.id(), self.max_plies);
        }
        format!(
            "ab{}q-mobility-adv{}-noise{}-rep{}-nodes{}{}-cap{}",
            self.depth,
            self.advance_cp,
            self.noise_cp,
            self.repeat_penalty_cp,
            self.node_budget,
            if self.root_budget { "each" } else { "" },
            self.max_plies,
        )
    }

    /// The engine settings that make no sense: depth 2 or more with one node budget shared by
    /// all the root moves (see [`Self::root_budget`]).
    pub fn check(&self) -> Result<(), ImbalanceError> {
        if let Some(a) = &self.agent {
            let spec = &a.spec;
            let marks = ["-rm".to_string(), format!("-{}", odds::RULES_PREFIX)];
            if let Some(part) = marks.into_iter().find(|p| spec.contains(p.as_str())) {
                return Err(ImbalanceError::AgentSpecId { spec: spec.clone(), part });
            }
            return Ok(());
        }
        if self.depth >= 2 && !self.root_budget {
            return Err(ImbalanceError::SharedRootBudget { depth: self.depth });
        }
        Ok(())
    }

    /// The setup rules alone (the defaults of the first logs keep their short form; odds
    /// games are `odds-<kind>`, the kind's name with hyphens for spaces).
    pub fn setup_id(&self) -> String {
        if let Some(kind) = &self.odds {
            let safe = if self.safe_royals { "-s" } else { "" };
            return format!("{}{}{safe}", odds::RULES_PREFIX, kind.replace(' ', "-"));
        }
        let mut s = format!("rm{}p{}pr{}", self.max_removals, self.max_pawns, self.promote_prob);
        if self.min_promotions > 0 {
            s += &format!("m{}", self.min_promotions);
        }
        if self.royal_drop != 0.5 {
            s += &format!("k{}", self.royal_drop);
        }
        if self.safe_royals {
            s += "s";
        }
        s
    }

    /// Seed salt of the setup rules: 0 for the first logs' rules, so their setups are
    /// unchanged; other rules draw setups independent of them.
    fn setup_salt(&self) -> u64 {
        let id = self.setup_id();
        if id == ImbalanceConfig::default().setup_id() {
            return 0;
        }
        id.bytes()
            .fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
    }
}

/// Where the setup rules start in a logged game's `agent` string (at the hyphen before them).
fn rules_start(agent: &str) -> Option<usize> {
    agent.find(&format!("-{}", odds::RULES_PREFIX)).or_else(|| agent.rfind("-rm"))
}

/// The engine part of a logged game's `agent` string (see [`ImbalanceConfig::agent_id`]).
pub fn engine_of(agent: &str) -> &str {
    rules_start(agent).map_or(agent, |i| &agent[..i])
}

/// The setup-rules part of a logged game's `agent` string (empty if it has none).
pub fn rules_of(agent: &str) -> &str {
    rules_start(agent).map_or("", |i| &agent[i + 1..])
}

/// The distinct `agent` strings (engine + setup rules) of a log, in order of first appearance.
fn agents_in(games: &[GameLine]) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for g in games {
        if !out.contains(&g.agent.as_str()) {
            out.push(&g.agent);
        }
    }
    out
}

/// One imbalance game as logged (a row of the log's games table, see [`super::log`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameLine {
    pub setup: usize,
    /// 0: the setup as drawn; 1: mirrored (colours swapped).
    pub swap: u8,
    pub agent: String,
    pub seed: u64,
    pub sfen: String,
    /// Per kind: Black's count minus White's (zeros left out).
    pub diff: BTreeMap<String, i32>,
    /// Black's score: 1, 0.5, 0.
    pub result: f64,
    pub plies: u32,
    pub termination: String,
    pub ms: u64,
    /// The moves (USI, space-separated), for the regression on the games' positions. Older
    /// logs may lack them.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub moves: String,
}

/// Refuse a log that holds games of another engine than `cfg`'s.
pub fn check_engine(
    log: &GameLog,
    games: &[GameLine],
    cfg: &ImbalanceConfig,
) -> Result<(), ImbalanceError> {
    let engine = cfg.engine_id();
    match games.iter().find(|g| engine_of(&g.agent) != engine) {
        Some(g) => Err(ImbalanceError::OtherEngine {
            log: log.url().into(),
            found: engine_of(&g.agent).into(),
            expected: engine,
        }),
        None => Ok(()),
    }
}

/// The start position of a logged game.
pub(crate) fn start_of(v: &Arc<Variant>, g: &GameLine) -> Result<Position, ImbalanceError> {
    Position::from_sfen(v, &g.sfen).map_err(|source| ImbalanceError::StartPosition {
        setup: g.setup,
        swap: g.swap,
        source,
    })
}

/// Move `i` (from 0) of logged game `g`, `mv` in USI, parsed in `pos`.
pub(crate) fn logged_move(
    pos: &Position,
    g: &GameLine,
    i: usize,
    mv: &str,
) -> Result<Move, ImbalanceError> {
    pos.parse_usi(mv).map_err(|source| ImbalanceError::Move {
        setup: g.setup,
        swap: g.swap,
        index: i + 1,
        mv: mv.to_string(),
        source,
    })
}

/// Games of `agent` (engine + setup rules) in a log.
pub fn count_of(games: &[GameLine], agent: &str) -> usize {
    games.iter().filter(|g| g.agent == agent).count()
}

/// The setup rules of a log with their game counts, in order of first appearance, e.g.
/// "`rm3p3pr0.6` 19573 games, `rm3p3pr0.6m2k1` 8000 games" (rmRpPprX: up to R pieces and P
/// pawns removed per side, a chance X of a promotion in place, halved for each further one;
/// mM: M promotions for certain first; kK: chance K that a side with a prince loses its king).
pub fn setup_summary(games: &[GameLine]) -> String {
    agents_in(games)
        .iter()
        .map(|a| format!("`{}` {} games", rules_of(a), count_of(games, a)))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests;
