//! What a search reports: one line per principal variation and iteration, and the result.

use crate::score::{shown, Score, Shown};
use shogilab_engine::{Move, Position};
use std::time::Duration;

/// One principal variation of a completed (or the last, partial) iteration.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// 1 for the best line.
    pub multipv: usize,
    pub depth: u32,
    pub seldepth: u32,
    pub score: Score,
    /// The score is a bound (an aspiration window failed): `Some(true)` a lower bound.
    pub lower_bound: Option<bool>,
    pub nodes: u64,
    pub time: Duration,
    pub hashfull: u32,
    pub pv: Vec<Move>,
}

impl Line {
    /// Nodes a second.
    pub fn nps(&self) -> u64 {
        let us = self.time.as_micros().max(1) as u64;
        self.nodes * 1_000_000 / us
    }

    /// The line as a USI `info` message (moves in USI notation from `root`).
    pub fn to_usi(&self, root: &Position) -> String {
        let score = match shown(self.score) {
            Shown::Centipawns(cp) => format!("cp {cp}"),
            Shown::Mate(n) => format!("mate {n}"),
        };
        let bound = match self.lower_bound {
            Some(true) => " lowerbound",
            Some(false) => " upperbound",
            None => "",
        };
        format!(
            "info depth {} seldepth {} multipv {} score {score}{bound} nodes {} nps {} time {} hashfull {} pv {}",
            self.depth,
            self.seldepth,
            self.multipv,
            self.nodes,
            self.nps(),
            self.time.as_millis(),
            self.hashfull,
            pv_usi(root, &self.pv)
        )
    }

    /// The line as an XBoard thinking line: `ply score time(centiseconds) nodes pv`.
    pub fn to_xboard(&self, root: &Position) -> String {
        let score = match shown(self.score) {
            Shown::Centipawns(cp) => cp,
            Shown::Mate(n) if n > 0 => 100_000 + n,
            Shown::Mate(n) => -100_000 + n,
        };
        format!(
            "{} {} {} {} {}",
            self.depth,
            score,
            self.time.as_millis() / 10,
            self.nodes,
            pv_usi(root, &self.pv)
        )
    }
}

/// Moves of a line in USI notation, played from `root`.
pub fn pv_usi(root: &Position, pv: &[Move]) -> String {
    let mut pos = root.clone();
    let mut out = Vec::with_capacity(pv.len());
    for &m in pv {
        out.push(pos.move_to_usi(m));
        pos.play(m);
    }
    out.join(" ")
}

/// What a search found.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub best: Move,
    pub score: Score,
    /// The last completed iteration (0 when none completed: the move is the first ordered one).
    pub depth: u32,
    pub nodes: u64,
    pub time: Duration,
    /// The principal variations of the last completed iteration, best first.
    pub lines: Vec<Line>,
}

impl Outcome {
    /// The move expected in reply (for pondering and the analysis), if the line has one.
    pub fn reply(&self) -> Option<Move> {
        self.lines.first().and_then(|l| l.pv.get(1).copied())
    }
}
