//! The `alphabeta[:DEPTH]` match agent: the crate's alpha-beta core ([`crate::search`]) with
//! material evaluation from a [`PieceValues`] table, captures ordered first (most valuable
//! victim), iterative deepening to a fixed depth or until a node limit (or move time) runs
//! out, and an optional captures-only quiescence search.

use crate::agent::{captured_value, Agent, AgentError, Choice, Limits};
use crate::search::{AlphaBeta, Evaluation, NodeLimits, QuiescenceMoves, RootRules, SearchOptions};
use shogilab_engine::{Game, Move, Position};
use shogilab_selfplay::PieceValues;
use std::time::{Duration, Instant};

/// Material balance in centipawns; moves keyed by the value they capture.
pub struct Material(pub PieceValues);

impl Evaluation for Material {
    type Key = f32;

    fn eval(&self, pos: &Position) -> i32 {
        let us = pos.side_to_move();
        let d = self.0.material(pos, us) - self.0.material(pos, us.flip());
        (d * 100.0).round() as i32
    }

    fn key(&self, pos: &Position, m: Move) -> f32 {
        captured_value(&self.0, pos, m)
    }

    fn risks_more_than_it_takes(&self, pos: &Position, m: Move) -> bool {
        if m.is_drop() {
            return false;
        }
        let mover = pos.cell(m.from) & shogilab_engine::variant::TYPE_MASK;
        self.0.of(mover) > self.0.capture_gain(pos, m)
    }
}

/// Negamax alpha-beta agent.
pub struct AlphaBetaAgent {
    search: AlphaBeta<Material>,
    name: String,
}

impl AlphaBetaAgent {
    /// `depth` plies (at least 1), with or without the quiescence search at the leaves.
    pub fn new(values: PieceValues, depth: u32, quiescence: bool) -> AlphaBetaAgent {
        let opts = SearchOptions {
            depth,
            max_ply: 128,
            quiescence: quiescence.then_some(QuiescenceMoves::PositiveKey),
            iterative: true,
            root_window: true,
            budget_per_root_move: false,
        };
        let search = AlphaBeta::new(Material(values), opts);
        let name = format!("alphabeta:{}", search.options().depth);
        AlphaBetaAgent { search, name }
    }

    /// Maximum depth in plies.
    pub fn depth(&self) -> u32 {
        self.search.options().depth
    }

    /// Nodes searched by the last `choose`.
    pub fn nodes(&self) -> u64 {
        self.search.nodes()
    }

    /// Search the root (the game's legal moves) and return the best move and its score.
    pub fn search(&mut self, game: &Game, limits: &Limits) -> Result<(Move, i32), AgentError> {
        let limits = NodeLimits {
            hard: limits.nodes.unwrap_or(u64::MAX).max(1),
            deadline: limits.movetime_ms.map(|ms| Instant::now() + Duration::from_millis(ms)),
            ..NodeLimits::default()
        };
        let (m, score) = self
            .search
            .search(game, limits, &mut RootRules::default())
            .ok_or(AgentError::NoLegalMove)?;
        // without penalty or jitter the root score is a tree score, within ±INF
        Ok((m, score as i32))
    }
}

impl Agent for AlphaBetaAgent {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn choose(&mut self, game: &Game, limits: &Limits) -> Result<Choice, AgentError> {
        let (m, _) = self.search(game, limits)?;
        Ok(Choice::Move(m))
    }
    /// Nodes: a budget; move time: iterative deepening stops at the deadline.
    fn last_nodes(&self) -> Option<u64> {
        Some(self.nodes())
    }
    fn limit_support(&self) -> crate::agent::LimitSupport {
        crate::agent::LimitSupport::ALL
    }
}
