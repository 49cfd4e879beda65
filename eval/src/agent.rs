//! The `Agent` trait: something that picks a move for the side to move of a [`Game`], plus the
//! two agents that need no search: [`RandomAgent`] and [`GreedyAgent`] (both seeded, so a match
//! is reproducible).

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
}

/// A player. `new_game` is called once before the first `choose` of every game.
pub trait Agent: Send {
    /// A short name for tables and logs (normally the spec string).
    fn name(&self) -> String;
    /// Prepare for a new game (the game is at its start position).
    fn new_game(&mut self, game: &Game) -> Result<(), AgentError>;
    /// Pick a move for the side to move. The game is not over.
    fn choose(&mut self, game: &Game, limits: &Limits) -> Result<Choice, AgentError>;
}

/// The start position of a game and the moves played since (clones and rewinds the game).
pub fn start_and_moves(game: &Game) -> (Position, Vec<Move>) {
    let moves: Vec<Move> = game.moves().collect();
    let mut g = game.clone();
    while g.unplay().is_some() {}
    (g.position().clone(), moves)
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
    fn new_game(&mut self, _game: &Game) -> Result<(), AgentError> {
        Ok(())
    }
    fn choose(&mut self, game: &Game, _limits: &Limits) -> Result<Choice, AgentError> {
        let legal = game.legal();
        if legal.is_empty() {
            return Err(AgentError::NoLegalMove);
        }
        Ok(Choice::Move(legal[self.rng.gen_range(0..legal.len())]))
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
    fn new_game(&mut self, _game: &Game) -> Result<(), AgentError> {
        Ok(())
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
}
