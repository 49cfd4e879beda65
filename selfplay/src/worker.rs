//! Many concurrent self-play games sharing one batched evaluator.
//!
//! Each round, every game runs its search until a leaf needs an evaluation (rayon over the
//! games); the leaves of all games go to the evaluator as one batch; the results are delivered
//! back (rayon again). A game that finishes its move plays it and starts the next search; a
//! finished game is replaced by the next one until the requested number has been played.
//! Every game has its own random generator seeded from (run seed, game index), so results do
//! not depend on scheduling.

use crate::evaluator::{EvalOutput, EvalRequest, Evaluator};
use crate::invalid::InvalidSetting;
use crate::mcts::{Search, SearchConfig, SearchResult, Step};
use rand::{rngs::SmallRng, Rng, SeedableRng};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use shogilab_engine::{Color, Game, Move, Position, Status, Termination, Variant};
use std::sync::Arc;

/// Self-play settings.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SelfplayConfig {
    /// Games in flight at once (the evaluator's batch size).
    pub concurrent: usize,
    /// Draw by ply cap after this many plies.
    pub max_plies: u32,
    /// Resign when the root value stays below this for `resign_consecutive` own moves
    /// (-1 disables resignation).
    pub resign_threshold: f32,
    pub resign_consecutive: u32,
    /// Fraction of games in which nobody resigns, to measure false resignations.
    pub no_resign_fraction: f32,
    /// For this many plies the played move is sampled from the improved policy (opening
    /// diversity); afterwards the search's choice is played.
    pub sample_plies: u32,
    /// Playout-cap randomisation (KataGo): the share of moves searched with the full
    /// `search.simulations`; the others get `fast_simulations` and are played but not recorded
    /// as training positions. 1 records every move.
    pub full_search_fraction: f32,
    /// Simulations of the fast searches (with `full_search_fraction` < 1).
    pub fast_simulations: u32,
    pub search: SearchConfig,
}

impl Default for SelfplayConfig {
    fn default() -> Self {
        SelfplayConfig {
            concurrent: 64,
            max_plies: 400,
            resign_threshold: -0.95,
            resign_consecutive: 3,
            no_resign_fraction: 0.2,
            sample_plies: 16,
            full_search_fraction: 1.0,
            fast_simulations: 8,
            search: SearchConfig::default(),
        }
    }
}

impl SelfplayConfig {
    /// Check ranges; the error names the dotted key (`selfplay.concurrent`, ...).
    pub fn validate(&self) -> Result<(), InvalidSetting> {
        if self.concurrent == 0 || self.concurrent > 65536 {
            return Err(InvalidSetting::new(
                "selfplay.concurrent",
                self.concurrent,
                "must be 1..65536",
            ));
        }
        if self.max_plies == 0 {
            return Err(InvalidSetting::new("selfplay.max_plies", 0, "must be at least 1"));
        }
        if !(-1.0..=0.0).contains(&self.resign_threshold) {
            let t = self.resign_threshold;
            return Err(InvalidSetting::new("selfplay.resign_threshold", t, "must be in [-1, 0]"));
        }
        if !(0.0..=1.0).contains(&self.no_resign_fraction) {
            let f = self.no_resign_fraction;
            return Err(InvalidSetting::new("selfplay.no_resign_fraction", f, "must be in [0, 1]"));
        }
        if !(self.full_search_fraction > 0.0 && self.full_search_fraction <= 1.0) {
            let f = self.full_search_fraction;
            return Err(InvalidSetting::new(
                "selfplay.full_search_fraction",
                f,
                "must be in (0, 1]",
            ));
        }
        let fast_used = self.full_search_fraction < 1.0;
        if self.fast_simulations == 0
            || (fast_used && self.fast_simulations > self.search.simulations)
        {
            let n = self.fast_simulations;
            let expected = format!("must be 1..search.simulations ({})", self.search.simulations);
            return Err(InvalidSetting::new("selfplay.fast_simulations", n, &expected));
        }
        self.search.validate().map_err(|e| e.within("selfplay"))
    }
}

/// One recorded position of a self-play game.
#[derive(Debug, Clone)]
pub struct PositionRecord {
    pub ply: u32,
    pub sfen: String,
    pub side: Color,
    pub mv: String,
    pub policy_moves: Vec<String>,
    pub policy_probs: Vec<f32>,
    pub root_value: f32,
    pub visits: u32,
}

/// A finished game.
#[derive(Debug, Clone)]
pub struct GameRecord {
    pub game_index: u64,
    pub seed: u64,
    pub start_sfen: String,
    pub moves: Vec<String>,
    pub status: Status,
    pub positions: Vec<PositionRecord>,
    /// Resignations were disabled in this game.
    pub no_resign: bool,
    /// In a no-resign game: the side that would have resigned first, if any.
    pub would_resign: Option<Color>,
}

impl GameRecord {
    /// Result from `c`'s point of view.
    pub fn result_for(&self, c: Color) -> i8 {
        self.status.score_for(c)
    }
}

struct Slot {
    index: u64,
    seed: u64,
    rng: SmallRng,
    game: Game,
    search: Search,
    searching: bool,
    /// The move being searched gets the full simulations (and is recorded).
    full: bool,
    positions: Vec<PositionRecord>,
    moves: Vec<String>,
    low: [u32; 2],
    no_resign: bool,
    would_resign: Option<Color>,
    waiting: bool,
}

/// Counters for progress reports.
#[derive(Debug, Clone, Default)]
pub struct Progress {
    pub games_done: usize,
    pub games_total: usize,
    pub plies: u64,
    pub evals: u64,
    pub batches: u64,
}

impl Progress {
    pub fn mean_batch(&self) -> f64 {
        self.evals as f64 / self.batches.max(1) as f64
    }
}

/// Per-game seed from the run seed (splitmix).
pub fn game_seed(run_seed: u64, index: u64) -> u64 {
    let mut z = run_seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Slot {
    fn new(v: &Arc<Variant>, cfg: &SelfplayConfig, run_seed: u64, index: u64) -> Slot {
        let seed = game_seed(run_seed, index);
        let mut rng = SmallRng::seed_from_u64(seed);
        let no_resign = rng.gen::<f32>() < cfg.no_resign_fraction;
        let start = Position::start(v);
        let mut game = Game::new(start.clone());
        game.set_max_plies(cfg.max_plies);
        Slot {
            index,
            seed,
            rng,
            game,
            search: Search::new(cfg.search.clone(), start),
            searching: false,
            full: true,
            positions: Vec::new(),
            moves: Vec::new(),
            low: [0, 0],
            no_resign,
            would_resign: None,
            waiting: false,
        }
    }

    /// Run until an evaluation is needed or the game is over. Returns plies played.
    fn advance(&mut self, cfg: &SelfplayConfig) -> u64 {
        let mut plies = 0;
        loop {
            if self.game.status().is_over() {
                return plies;
            }
            if !self.searching {
                self.full = cfg.full_search_fraction >= 1.0
                    || self.rng.gen::<f32>() < cfg.full_search_fraction;
                self.search.cfg.simulations =
                    if self.full { cfg.search.simulations } else { cfg.fast_simulations };
                self.search.reset(self.game.position());
                self.search.set_history(self.game.position_hashes());
                self.searching = true;
            }
            match self.search.advance(&mut self.rng) {
                Step::NeedEval => {
                    self.waiting = true;
                    return plies;
                }
                Step::Done => {
                    self.searching = false;
                    self.finish_move(cfg);
                    plies += 1;
                }
            }
        }
    }

    fn finish_move(&mut self, cfg: &SelfplayConfig) {
        let r = self.search.result();
        let pos = self.game.position();
        let us = pos.side_to_move();
        if r.moves.is_empty() {
            // no legal move: the game status already says so; nothing to play
            return;
        }
        let ply = self.game.plies() as u32;
        let mut chosen = r.best;
        if ply < cfg.sample_plies {
            let x: f32 = self.rng.gen();
            let mut acc = 0.0;
            for (m, p) in r.moves.iter().zip(&r.policy) {
                acc += p;
                if x < acc {
                    chosen = *m;
                    break;
                }
            }
        }
        let usi = pos.move_to_usi(chosen);
        if self.full {
            let rec = position_record(pos, ply, &usi, &r);
            self.positions.push(rec);
        }
        self.resign_or_play(cfg, us, r.value, usi, chosen);
    }

    /// Resign (or note who would have) when the value stayed low; else play the move.
    fn resign_or_play(
        &mut self,
        cfg: &SelfplayConfig,
        us: Color,
        value: f32,
        usi: String,
        chosen: Move,
    ) {
        if cfg.resign_threshold > -1.0 {
            let i = us.idx();
            if value < cfg.resign_threshold {
                self.low[i] += 1;
            } else {
                self.low[i] = 0;
            }
            if self.low[i] >= cfg.resign_consecutive {
                if self.no_resign {
                    self.would_resign.get_or_insert(us);
                } else {
                    self.game.resign(us);
                    return;
                }
            }
        }
        self.moves.push(usi);
        self.game.play(chosen);
    }

    fn record(&self) -> GameRecord {
        GameRecord {
            game_index: self.index,
            seed: self.seed,
            start_sfen: self.game.position().variant().spec.start.clone(),
            moves: self.moves.clone(),
            status: self.game.status(),
            positions: self.positions.clone(),
            no_resign: self.no_resign,
            would_resign: self.would_resign,
        }
    }
}

/// The training record of a searched position.
fn position_record(pos: &Position, ply: u32, usi: &str, r: &SearchResult) -> PositionRecord {
    PositionRecord {
        ply,
        sfen: pos.to_sfen(),
        side: pos.side_to_move(),
        mv: usi.to_string(),
        policy_moves: r.moves.iter().map(|m| pos.move_to_usi(*m)).collect(),
        policy_probs: r.policy.clone(),
        root_value: r.value,
        visits: r.visits.iter().sum(),
    }
}

/// Play games `first..first+count` of a run with seed `run_seed`; `on_game` receives every
/// finished game (in completion order), `on_progress` the counters after every batch.
pub fn play_games(
    v: &Arc<Variant>,
    cfg: &SelfplayConfig,
    evaluator: &dyn Evaluator,
    run_seed: u64,
    first: u64,
    count: u64,
    mut on_game: impl FnMut(GameRecord),
    mut on_progress: impl FnMut(&Progress),
) {
    let new_slot = |index| Slot::new(v, cfg, run_seed, index);
    let mut queue = first..first + count;
    let mut slots: Vec<Slot> = queue.by_ref().take(cfg.concurrent).map(&new_slot).collect();
    let mut prog = Progress { games_total: count as usize, ..Default::default() };
    let mut outputs: Vec<EvalOutput> = Vec::new();
    while !slots.is_empty() {
        let plies: u64 = slots.par_iter_mut().filter(|s| !s.waiting).map(|s| s.advance(cfg)).sum();
        prog.plies += plies;
        replace_finished(&mut slots, |record| {
            on_game(record);
            prog.games_done += 1;
            let mut slot = new_slot(queue.next()?);
            prog.plies += slot.advance(cfg);
            Some(slot)
        });
        evaluate_waiting(&mut slots, evaluator, &mut outputs, &mut prog);
        on_progress(&prog);
    }
}

/// Hand every finished game (one not waiting for an evaluation) to `replace`, and put the slot
/// it returns, the next game, in the finished one's place.
fn replace_finished(slots: &mut Vec<Slot>, mut replace: impl FnMut(GameRecord) -> Option<Slot>) {
    let mut i = 0;
    while i < slots.len() {
        if slots[i].game.status().is_over() && !slots[i].waiting {
            let record = slots.swap_remove(i).record();
            slots.extend(replace(record));
        } else {
            i += 1;
        }
    }
}

/// Evaluate, in one batch, the leaves at which the waiting searches stopped, and deliver each
/// evaluation to its search.
fn evaluate_waiting(
    slots: &mut [Slot],
    evaluator: &dyn Evaluator,
    outputs: &mut Vec<EvalOutput>,
    prog: &mut Progress,
) {
    let waiting: Vec<usize> = (0..slots.len()).filter(|&i| slots[i].waiting).collect();
    if waiting.is_empty() {
        return;
    }
    let reqs: Vec<EvalRequest> = waiting
        .iter()
        .map(|&i| EvalRequest {
            pos: slots[i].search.position(),
            moves: &slots[i].search.leaf_moves,
            repetitions: 0,
            plies: slots[i].game.plies() as u32,
        })
        .collect();
    evaluator.evaluate(&reqs, outputs);
    prog.evals += waiting.len() as u64;
    prog.batches += 1;
    // `waiting` is sorted: the j-th output belongs to slot waiting[j].
    let outs = &*outputs;
    slots.par_iter_mut().enumerate().for_each(|(i, s)| {
        if let Ok(j) = waiting.binary_search(&i) {
            s.search.deliver(&outs[j]);
            s.waiting = false;
        }
    });
}

/// Result label from Black's point of view: "1-0", "0-1", "1/2-1/2".
pub fn result_label(s: &Status) -> &'static str {
    match s {
        Status::Win(Color::Black, _) => "1-0",
        Status::Win(Color::White, _) => "0-1",
        _ => "1/2-1/2",
    }
}

/// Termination label.
pub fn termination_label(s: &Status) -> &'static str {
    s.termination().map(|t: Termination| t.as_str()).unwrap_or("ongoing")
}
