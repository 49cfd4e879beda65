//! A small negamax alpha-beta searcher: iterative deepening to a fixed depth or until a node
//! budget (or move time) runs out, material evaluation from a [`PieceValues`] table, captures
//! ordered first (most valuable victim), and an optional captures-only quiescence search.
//!
//! Game ends inside the tree: no legal move is a loss (checkmate and stalemate both lose in the
//! built-in variants), and in royal-capture variants (no check rule) a side without a royal has
//! lost. Repetition is only applied at the root (the game's legal moves).

use crate::agent::{captured_value, Agent, AgentError, Choice, Limits};
use shogilab_engine::{Game, Move, MoveList, Position};
use shogilab_selfplay::PieceValues;
use std::time::Instant;

const MATE: i32 = 1_000_000;
const INF: i32 = 2_000_000;
/// Deepest quiescence extension.
const QDEPTH: u32 = 4;
const MAX_PLY: usize = 128;

/// Negamax alpha-beta agent.
pub struct AlphaBetaAgent {
    values: PieceValues,
    /// Maximum depth in plies.
    pub depth: u32,
    /// Captures-only search at the leaves.
    pub quiescence: bool,
    name: String,
    nodes: u64,
    budget: u64,
    deadline: Option<Instant>,
    aborted: bool,
    lists: Vec<MoveList>,
}

impl AlphaBetaAgent {
    pub fn new(values: PieceValues, depth: u32, quiescence: bool) -> AlphaBetaAgent {
        AlphaBetaAgent {
            values,
            depth: depth.max(1),
            quiescence,
            name: format!("alphabeta:{}", depth.max(1)),
            nodes: 0,
            budget: u64::MAX,
            deadline: None,
            aborted: false,
            lists: (0..MAX_PLY + QDEPTH as usize + 2)
                .map(|_| MoveList::with_capacity(256))
                .collect(),
        }
    }

    /// Nodes searched by the last `choose`.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    fn eval(&self, pos: &Position) -> i32 {
        let us = pos.side_to_move();
        let d = self.values.material(pos, us) - self.values.material(pos, us.flip());
        (d * 100.0).round() as i32
    }

    /// Loss for the side to move without search (royal gone), if so.
    fn lost(pos: &Position) -> bool {
        !pos.variant().rules.check && pos.royal_count(pos.side_to_move()) == 0
    }

    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes >= self.budget {
            self.aborted = true;
        }
        if self.nodes & 1023 == 0 {
            if let Some(d) = self.deadline {
                if Instant::now() >= d {
                    self.aborted = true;
                }
            }
        }
        self.aborted
    }

    /// Fill `self.lists[ply]` with ordered moves (captures first by victim value).
    fn gen(&mut self, pos: &Position, ply: usize, captures_only: bool) {
        let mut list = std::mem::take(&mut self.lists[ply]);
        list.clear();
        pos.legal_moves(&mut list);
        let mut keyed: Vec<(f32, Move)> =
            list.iter().map(|&m| (captured_value(&self.values, pos, m), m)).collect();
        if captures_only {
            keyed.retain(|(g, _)| *g > 0.0);
        }
        keyed.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal));
        list.clear();
        list.extend(keyed.into_iter().map(|(_, m)| m));
        self.lists[ply] = list;
    }

    fn qsearch(
        &mut self,
        pos: &mut Position,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        q: u32,
    ) -> i32 {
        if self.tick() {
            return 0;
        }
        if Self::lost(pos) {
            return -MATE + ply as i32;
        }
        let stand = self.eval(pos);
        if stand >= beta || q == 0 || ply >= self.lists.len() - 1 {
            return stand;
        }
        alpha = alpha.max(stand);
        self.gen(pos, ply, true);
        let n = self.lists[ply].len();
        for i in 0..n {
            let m = self.lists[ply][i];
            let u = pos.play(m);
            let s = -self.qsearch(pos, -beta, -alpha, ply + 1, q - 1);
            pos.unplay(&u);
            if self.aborted {
                return 0;
            }
            if s >= beta {
                return s;
            }
            alpha = alpha.max(s);
        }
        alpha
    }

    fn negamax(
        &mut self,
        pos: &mut Position,
        depth: u32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
        if self.tick() {
            return 0;
        }
        if Self::lost(pos) {
            return -MATE + ply as i32;
        }
        if depth == 0 || ply >= MAX_PLY {
            return if self.quiescence {
                self.qsearch(pos, alpha, beta, ply, QDEPTH)
            } else {
                self.eval(pos)
            };
        }
        self.gen(pos, ply, false);
        let n = self.lists[ply].len();
        if n == 0 {
            return -MATE + ply as i32;
        }
        let mut best = -INF;
        for i in 0..n {
            let m = self.lists[ply][i];
            let u = pos.play(m);
            let s = -self.negamax(pos, depth - 1, -beta, -alpha, ply + 1);
            pos.unplay(&u);
            if self.aborted {
                return 0;
            }
            if s > best {
                best = s;
            }
            if s > alpha {
                alpha = s;
            }
            if alpha >= beta {
                break;
            }
        }
        best
    }

    /// Search the root (the game's legal moves) and return the best move and its score.
    pub fn search(&mut self, game: &Game, limits: &Limits) -> Result<(Move, i32), AgentError> {
        let legal = game.legal();
        if legal.is_empty() {
            return Err(AgentError::NoLegalMove);
        }
        self.nodes = 0;
        self.aborted = false;
        self.budget = limits.nodes.unwrap_or(u64::MAX).max(1);
        self.deadline =
            limits.movetime_ms.map(|ms| Instant::now() + std::time::Duration::from_millis(ms));
        let mut pos = game.position().clone();
        let mut root: Vec<(f32, Move)> =
            legal.iter().map(|&m| (captured_value(&self.values, &pos, m), m)).collect();
        root.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal));
        let mut order: Vec<Move> = root.into_iter().map(|(_, m)| m).collect();
        let mut best = (order[0], -INF);
        for depth in 1..=self.depth {
            let mut alpha = -INF;
            let mut iter_best: Option<(Move, i32)> = None;
            for &m in &order {
                let u = pos.play(m);
                let s = -self.negamax(&mut pos, depth - 1, -INF, -alpha, 1);
                pos.unplay(&u);
                if self.aborted {
                    break;
                }
                if !matches!(iter_best, Some((_, b)) if s <= b) {
                    iter_best = Some((m, s));
                }
                alpha = alpha.max(s);
            }
            if let Some(ib) = iter_best {
                if !self.aborted || ib.1 > best.1 {
                    best = ib;
                }
            }
            if self.aborted {
                break;
            }
            // principal move first in the next iteration
            if let Some(i) = order.iter().position(|&m| m == best.0) {
                let m = order.remove(i);
                order.insert(0, m);
            }
            if best.1.abs() > MATE - 1000 {
                break;
            }
        }
        Ok(best)
    }
}

impl Agent for AlphaBetaAgent {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn new_game(&mut self, _game: &Game) -> Result<(), AgentError> {
        Ok(())
    }
    fn choose(&mut self, game: &Game, limits: &Limits) -> Result<Choice, AgentError> {
        let (m, _) = self.search(game, limits)?;
        Ok(Choice::Move(m))
    }
}
