//! What ends a search, and the settings of the engine.

use crate::time::TimeControl;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// What ends one search: the first limit reached, or the stop flag.
#[derive(Debug, Clone, Default)]
pub struct Limits {
    /// Deepest iteration (plies); `None`: no limit.
    pub depth: Option<u32>,
    /// Most nodes; `None`: no limit.
    pub nodes: Option<u64>,
    pub time: TimeControl,
    /// Raised by another thread to end the search (USI `stop`, XBoard `?`); the search answers
    /// with what it found.
    pub stop: Option<Arc<AtomicBool>>,
}

/// The engine's settings. Each search feature can be turned off, so that what it is worth can
/// be measured (an SPRT of the engine with against without it).
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Transposition table size (MiB).
    pub hash_mb: usize,
    /// Principal variations reported (and searched exactly) per iteration.
    pub multipv: usize,
    pub null_move: bool,
    pub late_move_reductions: bool,
    /// Reverse futility pruning and late-move pruning near the leaves.
    pub futility: bool,
    pub aspiration: bool,
    /// Captures that lose material by the exchange estimate are not searched in quiescence.
    pub see_pruning: bool,
    /// A side whose single royal is attacked is searched a ply deeper.
    pub check_extension: bool,
    /// What a draw inside the tree costs the side to move at the root (centipawns): above 0
    /// the engine plays on rather than repeat in a position it sees as level.
    pub contempt: i32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            hash_mb: 64,
            multipv: 1,
            null_move: true,
            late_move_reductions: true,
            futility: true,
            aspiration: true,
            see_pruning: true,
            check_extension: true,
            contempt: 30,
        }
    }
}
