//! The `Agent` trait: something that picks a move for the side to move of a [`Game`], plus the
//! two agents that need no search: [`RandomAgent`] and [`GreedyAgent`] (both seeded, so a match
//! is reproducible).
//!
//! Per-move limits ([`Limits`]: nodes, move time) are honoured only by agents that declare them
//! ([`Agent::limit_support`]); [`check_limits`] refuses the others before a game starts, so that
//! no result is recorded at a limit an agent did not play at. Random and greedy do not search:
//! a match-wide limit is harmless for them, their own `@` limit is refused.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use shogilab_engine::{Game, Move, Position};
use shogilab_selfplay::PieceValues;
use thiserror::Error;

/// What an agent decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    Move(Move),
    Resign,
    /// A win claim (USI `bestmove win`: impasse declaration). Checked by the referee.
    DeclareWin,
}

/// Per-move search limits. `None` everywhere means the agent's own default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Limits {
    /// Nodes (alpha-beta), simulations (MCTS), `go nodes` (USI).
    pub nodes: Option<u64>,
    /// Thinking time per move in milliseconds.
    pub movetime_ms: Option<u64>,
}

/// Why an agent could not produce a move. For external engines every variant is a forfeit.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum AgentError {
    /// A malformed or unknown agent spec.
    #[error("agent spec {spec:?}: {reason}")]
    Spec { spec: String, reason: String },
    /// The engine did not answer in time.
    #[error("{engine}: no answer to {what} within {ms} ms")]
    Timeout { engine: String, what: String, ms: u64 },
    /// The engine process exited or closed its output.
    #[error("{engine}: engine process ended ({detail})")]
    Crashed { engine: String, detail: String },
    /// The engine could not be started.
    #[error("{engine}: cannot start: {detail}")]
    Spawn { engine: String, detail: String },
    /// The engine said something we could not use.
    #[error("{engine}: protocol error: {reason} (line {line:?})")]
    Protocol { engine: String, line: String, reason: String },
    /// An unparsable or illegal move.
    #[error("illegal move {mv:?}: {reason}")]
    IllegalMove { mv: String, reason: String },
    /// Asked to move in a position without legal moves.
    #[error("no legal move in this position")]
    NoLegalMove,
    /// Something this agent cannot do (a variant, a start position).
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// A per-move limit the agent cannot play at (refused before any game starts).
    #[error("agent {agent:?} cannot play at {limit}: {reason}")]
    Limit { agent: String, limit: String, reason: String },
}

/// How an agent treats one kind of per-move limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitUse {
    /// The agent searches up to the limit: the limit changes how it plays.
    Honoured,
    /// The agent does not search and moves at once whatever the limit: a limit shared by a
    /// match is harmless (it is never exceeded), but the agent's own `@` limit is refused,
    /// since its name would then state a setting that has no effect.
    NoSearch,
    /// The agent cannot play at this kind of limit: refused.
    Unsupported,
}

/// Which per-move limits an agent plays at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LimitSupport {
    pub nodes: LimitUse,
    pub movetime: LimitUse,
}

impl LimitSupport {
    /// Every limit honoured.
    pub const ALL: LimitSupport =
        LimitSupport { nodes: LimitUse::Honoured, movetime: LimitUse::Honoured };
    /// No limit can be honoured (the default of the trait: an agent must opt in).
    pub const NONE: LimitSupport =
        LimitSupport { nodes: LimitUse::Unsupported, movetime: LimitUse::Unsupported };
    /// An agent without search.
    pub const NO_SEARCH: LimitSupport =
        LimitSupport { nodes: LimitUse::NoSearch, movetime: LimitUse::NoSearch };
}

/// Whether the limits come with the agent's own spec (`@...`) or are shared by a match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitSource {
    /// The agent's own `@nodes=N,movetime=MS`: part of its name.
    Own,
    /// The match's `--nodes`/`--movetime`, or a GUI's time control.
    Match,
}

/// Refuse limits `agent` cannot play at, naming the agent and the limit.
pub fn check_limits(
    agent: &dyn Agent,
    limits: &Limits,
    source: LimitSource,
) -> Result<(), AgentError> {
    let support = agent.limit_support();
    let given = [
        ("nodes", limits.nodes.map(|n| format!("nodes={n}")), support.nodes),
        ("movetime", limits.movetime_ms.map(|ms| format!("movetime={ms}")), support.movetime),
    ];
    for (kind, value, usage) in given {
        let Some(value) = value else { continue };
        let reason = match (usage, source) {
            (LimitUse::Honoured, _) | (LimitUse::NoSearch, LimitSource::Match) => continue,
            (LimitUse::NoSearch, LimitSource::Own) => format!(
                "it does not search, so a {kind} limit would not change its play; leave it out"
            ),
            (LimitUse::Unsupported, _) => format!("it has no {kind} limit"),
        };
        return Err(AgentError::Limit { agent: agent.name(), limit: value, reason });
    }
    Ok(())
}

/// A player. `new_game` is called once before the first `choose` of every game.
pub trait Agent: Send {
    /// A short name for tables and logs (normally the spec string).
    fn name(&self) -> String;
    /// Prepare for a new game (the game is at its start position); nothing by default, for
    /// agents that keep no state between games.
    fn new_game(&mut self, _game: &Game) -> Result<(), AgentError> {
        Ok(())
    }
    /// Restart the agent's random stream from `seed` (a match calls it before each game with
    /// a seed of the match seed and the game index, so that a game does not depend on the
    /// games played before it by the same agent); nothing for agents without randomness.
    fn reseed(&mut self, _seed: u64) {}
    /// Pick a move for the side to move. The game is not over.
    fn choose(&mut self, game: &Game, limits: &Limits) -> Result<Choice, AgentError>;
    /// The limits this agent plays at; by default none, so that an agent must declare each
    /// limit it honours (see [`check_limits`]).
    fn limit_support(&self) -> LimitSupport {
        LimitSupport::NONE
    }
    /// Nodes (alpha-beta) or simulations (MCTS) of the last `choose`, for the records; `None`
    /// for agents that do not search or do not say.
    fn last_nodes(&self) -> Option<u64> {
        None
    }
    /// Whether [`Agent::think`] is supported: a search under a GUI's clock or analysis limits
    /// that reports its lines and can be stopped.
    fn can_think(&self) -> bool {
        false
    }
    /// Search `game` as a GUI asks (clock, depth, nodes, infinite until stopped, several lines),
    /// sending each line to `info`; `None` for agents that cannot ([`Agent::can_think`]).
    fn think(
        &mut self,
        _game: &Game,
        _request: ThinkRequest,
        _info: &mut dyn FnMut(&shogilab_search::Line),
    ) -> Option<Result<shogilab_search::Outcome, AgentError>> {
        None
    }
}

/// What a GUI asks of a searching agent ([`Agent::think`]).
#[derive(Debug, Clone, Default)]
pub struct ThinkRequest {
    pub limits: shogilab_search::Limits,
    /// Principal variations to report (at least 1).
    pub multipv: usize,
}

/// The start position of a game and the moves played since (clones and rewinds the game).
pub fn start_and_moves(game: &Game) -> (Position, Vec<Move>) {
    let moves: Vec<Move> = game.moves().collect();
    let mut g = game.clone();
    while g.unplay().is_some() {}
    (g.position().clone(), moves)
}

/// The start position of a game and the moves played since, in USI.
pub fn start_and_usi_moves(game: &Game) -> (Position, Vec<String>) {
    let (start, moves) = start_and_moves(game);
    let mut p = start.clone();
    let usi = moves
        .iter()
        .map(|&m| {
            let s = p.move_to_usi(m);
            p.play(m);
            s
        })
        .collect();
    (start, usi)
}

/// Uniformly random legal moves.
pub struct RandomAgent {
    rng: SmallRng,
    name: String,
}

impl RandomAgent {
    pub fn new(seed: u64) -> RandomAgent {
        RandomAgent { rng: SmallRng::seed_from_u64(seed), name: "random".into() }
    }
}

impl Agent for RandomAgent {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn reseed(&mut self, seed: u64) {
        self.rng = SmallRng::seed_from_u64(seed);
    }
    fn choose(&mut self, game: &Game, _limits: &Limits) -> Result<Choice, AgentError> {
        let legal = game.legal();
        if legal.is_empty() {
            return Err(AgentError::NoLegalMove);
        }
        Ok(Choice::Move(legal[self.rng.gen_range(0..legal.len())]))
    }
    fn limit_support(&self) -> LimitSupport {
        LimitSupport::NO_SEARCH
    }
}

/// Value of the pieces a move captures (stops and destination); a royal counts as 1000.
pub fn captured_value(values: &PieceValues, pos: &Position, m: Move) -> f32 {
    if m.is_drop() {
        return 0.0;
    }
    let us = pos.side_to_move();
    let v = pos.variant();
    let mut g = 0.0;
    for s in m.mids().chain((m.to != m.from).then_some(m.to)) {
        let c = pos.cell(s);
        if c != 0 && (c & us.bit()) == 0 {
            let t = c & shogilab_engine::variant::TYPE_MASK;
            g += if v.types[t as usize].royal { 1000.0 } else { values.of(t) };
        }
    }
    g
}

/// Captures the most valuable material it can; otherwise (and among equal captures) random.
pub struct GreedyAgent {
    values: PieceValues,
    rng: SmallRng,
}

impl GreedyAgent {
    pub fn new(values: PieceValues, seed: u64) -> GreedyAgent {
        GreedyAgent { values, rng: SmallRng::seed_from_u64(seed) }
    }
}

impl Agent for GreedyAgent {
    fn name(&self) -> String {
        "greedy".into()
    }
    fn reseed(&mut self, seed: u64) {
        self.rng = SmallRng::seed_from_u64(seed);
    }
    fn choose(&mut self, game: &Game, _limits: &Limits) -> Result<Choice, AgentError> {
        let legal = game.legal();
        if legal.is_empty() {
            return Err(AgentError::NoLegalMove);
        }
        let pos = game.position();
        let gains: Vec<f32> = legal.iter().map(|&m| captured_value(&self.values, pos, m)).collect();
        let best = gains.iter().copied().fold(0.0f32, f32::max);
        let pool: Vec<Move> = if best > 0.0 {
            legal.iter().zip(&gains).filter(|(_, &g)| g >= best).map(|(m, _)| *m).collect()
        } else {
            legal.to_vec()
        };
        Ok(Choice::Move(pool[self.rng.gen_range(0..pool.len())]))
    }
    fn limit_support(&self) -> LimitSupport {
        LimitSupport::NO_SEARCH
    }
}
