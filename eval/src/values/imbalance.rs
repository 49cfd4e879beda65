//! Imbalance matches (H.G. Muller's method): an engine plays itself from start positions with a
//! few random pieces removed or promoted in place; every setup is played twice, the second time
//! mirrored (rotated 180 degrees, colours swapped) so that the side with the extra material
//! moves second; the games go to an append-only Parquet log ([`super::log`]), so runs resume
//! and extend.
//!
//! The engine is [`Searcher`] (its own module). Games that reach the ply cap are draws: there
//! is no adjudication.

use super::log::{GameLog, LogError};
use super::odds;
use super::searcher::{EngineSettings, Searcher};
use super::stats::{ratio_bootstrap, Design};
use super::{estimates_from, positions_fit_notes, unit_notes, width_curve, Kinds, MethodResult};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use shogilab_engine::variant::TYPE_MASK;
use shogilab_engine::{Color, EngineError, Game, Move, MoveList, Position, Variant};
use shogilab_selfplay::worker::game_seed as mix;
use shogilab_store::Task;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Instant;

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
    /// Odds games instead of random imbalances: every setup is the start array less one
    /// piece of this kind (English name, e.g. `pawn`, `gold general`) on one side, drawn at
    /// random among that side's pieces of the kind ([`super::odds`]). The setup fields above
    /// are then unused; `safe_royals` still applies.
    pub odds: Option<String>,
    pub seed: u64,
}

/// The engine part of the settings (what [`Searcher`] needs).
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

/// Draws before [`make_setup`] gives up looking for a setup that no first move wins.
const SAFE_ROYAL_DRAWS: usize = 1000;

/// The two start positions of setup `index` (as drawn, and mirrored with colours swapped).
/// With [`ImbalanceConfig::safe_royals`], setups whose first mover (in either colour order)
/// could capture the other side's last royal at once are drawn again, from the same random stream; if none of
/// `SAFE_ROYAL_DRAWS` draws is safe, the last is kept.
pub fn make_setup(
    v: &Arc<Variant>,
    kinds: &Kinds,
    cfg: &ImbalanceConfig,
    index: usize,
) -> [Position; 2] {
    let mut rng = SmallRng::seed_from_u64(mix(cfg.seed ^ cfg.setup_salt(), index as u64 + 1));
    let mut setup = draw_setup(v, kinds, cfg, &mut rng);
    if cfg.safe_royals {
        let mut moves = MoveList::with_capacity(256);
        for _ in 1..SAFE_ROYAL_DRAWS {
            if !setup.iter().any(|p| wins_at_once(p, &mut moves)) {
                break;
            }
            setup = draw_setup(v, kinds, cfg, &mut rng);
        }
    }
    setup
}

/// Whether the side to move can capture the other side's last royal with its first move (a
/// game lost before it starts).
pub fn wins_at_once(pos: &Position, moves: &mut MoveList) -> bool {
    let them = pos.side_to_move().flip();
    let mut p = pos.clone();
    moves.clear();
    p.legal_captures(moves);
    moves.iter().any(|&m| {
        let u = p.play(m);
        let bare = p.royal_count(them) == 0;
        p.unplay(&u);
        bare
    })
}

/// A piece of the start array in a setup being drawn: (square, colour, type, present).
pub(super) type SetupPiece = (u16, Color, u16, bool);

/// The pieces of the start array, all present.
pub(super) fn start_pieces(v: &Arc<Variant>) -> Vec<SetupPiece> {
    let start = Position::start(v);
    let mut pieces = Vec::new();
    for &sq in &v.squares {
        let c = start.cell(sq);
        if c != 0 && c & 0x8000 == 0 {
            let col = if c & Color::Black.bit() != 0 { Color::Black } else { Color::White };
            pieces.push((sq, col, c & TYPE_MASK, true));
        }
    }
    pieces
}

/// The two start positions of a drawn setup: as drawn, and rotated 180° with the colours
/// swapped (so that each side of the imbalance moves first once).
pub(super) fn setup_pair(v: &Arc<Variant>, pieces: &[SetupPiece]) -> [Position; 2] {
    let build = |mirror: bool| -> Position {
        let mut pos = Position::empty(Arc::clone(v));
        for &(sq, col, t, present) in pieces {
            if !present {
                continue;
            }
            let (sq, col) = if mirror {
                let (x, y) = v.xy(sq);
                (v.sq(v.files as i16 - 1 - x, v.ranks as i16 - 1 - y), col.flip())
            } else {
                (sq, col)
            };
            pos.place(sq, col, t);
        }
        // through SFEN, so that the game starts from exactly the logged position
        Position::from_sfen(v, &pos.to_sfen()).unwrap_or(pos)
    };
    [build(false), build(true)]
}

/// One draw of the setup rules from `rng`: the position as drawn and its mirror.
fn draw_setup(
    v: &Arc<Variant>,
    kinds: &Kinds,
    cfg: &ImbalanceConfig,
    rng: &mut SmallRng,
) -> [Position; 2] {
    if let Some(kind) = &cfg.odds {
        return odds::draw(v, kinds, kind, rng);
    }
    let mut pieces = start_pieces(v);
    let pawn = kinds.pawn;
    for col in [Color::Black, Color::White] {
        let pick_kind = |pieces: &Vec<SetupPiece>,
                         rng: &mut SmallRng,
                         ok: &dyn Fn(u16) -> bool|
         -> Option<usize> {
            let mut by_kind: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
            for (i, p) in pieces.iter().enumerate() {
                if p.1 == col && p.3 && ok(p.2) {
                    by_kind.entry(kinds.of_type[p.2 as usize]).or_default().push(i);
                }
            }
            if by_kind.is_empty() {
                return None;
            }
            let ks: Vec<&Vec<usize>> = by_kind.values().collect();
            let list = ks[rng.gen_range(0..ks.len())];
            Some(list[rng.gen_range(0..list.len())])
        };
        let types = &v.types;
        let n_remove = rng.gen_range(0..=cfg.max_removals);
        for _ in 0..n_remove {
            let ok = |t: u16| !types[t as usize].royal && Some(kinds.of_type[t as usize]) != pawn;
            if let Some(i) = pick_kind(&pieces, rng, &ok) {
                pieces[i].3 = false;
            }
        }
        let n_pawns = rng.gen_range(0..=cfg.max_pawns);
        for _ in 0..n_pawns {
            let ok =
                |t: u16| Some(kinds.of_type[t as usize]) == pawn && !types[t as usize].promoted;
            if let Some(i) = pick_kind(&pieces, rng, &ok) {
                pieces[i].3 = false;
            }
        }
        let mut promote = |rng: &mut SmallRng| {
            let ok = |t: u16| types[t as usize].promotes_to.is_some();
            if let Some(i) = pick_kind(&pieces, rng, &ok) {
                if let Some(p) = types[pieces[i].2 as usize].promotes_to {
                    pieces[i].2 = p;
                }
            }
        };
        for _ in 0..cfg.min_promotions {
            promote(rng);
        }
        let mut prob = cfg.promote_prob;
        while rng.gen::<f64>() < prob {
            promote(rng);
            prob /= 2.0;
        }
        // a side with a second royal (a promoted prince) may lose its king
        let royals: Vec<usize> = (0..pieces.len())
            .filter(|&i| pieces[i].1 == col && pieces[i].3 && types[pieces[i].2 as usize].royal)
            .collect();
        if royals.len() >= 2 && rng.gen::<f64>() < cfg.royal_drop {
            let unpromoted: Vec<usize> =
                royals.iter().copied().filter(|&i| !types[pieces[i].2 as usize].promoted).collect();
            if let Some(&i) = unpromoted.first() {
                pieces[i].3 = false;
            }
        }
    }
    setup_pair(v, &pieces)
}

/// Play one game of a setup.
pub fn play_one(
    v: &Arc<Variant>,
    kinds: &Kinds,
    cfg: &ImbalanceConfig,
    searcher: &mut Searcher,
    setup: usize,
    swap: u8,
) -> GameLine {
    let t0 = Instant::now();
    let pos = make_setup(v, kinds, cfg, setup)[swap as usize & 1].clone();
    let sfen = pos.to_sfen();
    let d = kinds.diff(&pos, Color::Black);
    let diff: BTreeMap<String, i32> = kinds
        .names
        .iter()
        .zip(&d)
        .filter(|(_, x)| **x != 0.0)
        .map(|(n, x)| (n.clone(), *x as i32))
        .collect();
    let seed = mix(cfg.seed ^ 0x6761_6d65 ^ cfg.setup_salt(), (setup as u64) * 2 + swap as u64);
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut game = Game::new(pos);
    if cfg.max_plies > 0 {
        game.set_max_plies(cfg.max_plies);
    }
    let mut seen: HashSet<u64> = HashSet::new();
    seen.insert(game.position().hash());
    let mut moves = String::new();
    while !game.status().is_over() {
        let Some(m) = searcher.choose(&game, &seen, cfg.noise_cp, cfg.repeat_penalty_cp, &mut rng)
        else {
            break;
        };
        if !moves.is_empty() {
            moves.push(' ');
        }
        moves.push_str(&game.position().move_to_usi(m));
        game.play(m);
        seen.insert(game.position().hash());
    }
    let status = game.status();
    GameLine {
        setup,
        swap,
        agent: cfg.agent_id(),
        seed,
        sfen,
        diff,
        result: (status.score_for(Color::Black) as f64 + 1.0) / 2.0,
        plies: game.plies() as u32,
        termination: status.termination().map_or("none", |t| t.as_str()).to_string(),
        ms: t0.elapsed().as_millis() as u64,
        moves,
    }
}

/// How many games to play, on how many threads, and how many games go to one part of the log.
#[derive(Debug, Clone, Copy)]
pub struct RunPlan {
    /// Games of these setup rules the log should hold.
    pub target: usize,
    pub threads: usize,
    /// Games per part file: finished games are appended every `part_games` games and at the
    /// end, so a run killed outright loses at most the games of the part not yet written.
    pub part_games: usize,
}

/// The (setup, colour) pairs of `agent`'s games in `games`.
fn done_of(games: &[GameLine], agent: &str) -> HashSet<(usize, u8)> {
    games.iter().filter(|g| g.agent == agent).map(|g| (g.setup, g.swap)).collect()
}

/// The (setup, colour) pairs still to play for `plan.target` games of `agent`.
fn jobs_for(games: &[GameLine], agent: &str, target: usize) -> Vec<(usize, u8)> {
    let done = done_of(games, agent);
    (0..target.div_ceil(2))
        .flat_map(|s| [(s, 0u8), (s, 1u8)])
        .filter(|j| !done.contains(j))
        .take(target.saturating_sub(done.len()))
        .collect()
}

/// Play `jobs` on `threads` threads; `take` sees each game as it finishes and returns false
/// to start no new game (the games in flight still finish and are seen). `stop` is checked
/// before each game.
fn play_jobs(
    v: &Arc<Variant>,
    cfg: &ImbalanceConfig,
    jobs: &[(usize, u8)],
    threads: usize,
    stop: &(dyn Fn() -> bool + Sync),
    take: &mut dyn FnMut(GameLine) -> bool,
) {
    let kinds = Kinds::new(v);
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<GameLine>();
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            let tx = tx.clone();
            let (next, kinds) = (&next, &kinds);
            scope.spawn(move || {
                let mut searcher = Searcher::new(v, cfg);
                while !stop() {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&(setup, swap)) = jobs.get(i) else { break };
                    let g = play_one(v, kinds, cfg, &mut searcher, setup, swap);
                    if tx.send(g).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for g in rx {
            if !take(g) {
                next.store(usize::MAX / 2, Ordering::Relaxed);
            }
        }
    });
}

/// Play games until the log holds `plan.target` games of these setup rules (setups
/// `0..target/2`, both colours), or until `stop` says so (checked before each game). Games
/// are appended to `log` in parts of `plan.part_games` (`on_game` sees each one as it
/// finishes). A log may pool several setup rules of one engine; another engine's log is
/// refused. Returns every game in the log, in log order.
pub fn run_games(
    v: &Arc<Variant>,
    cfg: &ImbalanceConfig,
    log: &GameLog,
    plan: RunPlan,
    stop: &(dyn Fn() -> bool + Sync),
    on_game: &mut dyn FnMut(&GameLine, usize),
) -> Result<Vec<GameLine>, ImbalanceError> {
    let mut games = log.read_games()?;
    check_engine(log, &games, cfg)?;
    let jobs = jobs_for(&games, &cfg.agent_id(), plan.target);
    let mut written = games.len();
    let mut write_err: Option<LogError> = None;
    play_jobs(v, cfg, &jobs, plan.threads, stop, &mut |g| {
        on_game(&g, games.len() + 1);
        games.push(g);
        if write_err.is_none() && games.len() - written >= plan.part_games.max(1) {
            write_err = log.append_games(&games[written..]).err();
            written = games.len();
        }
        // after a failed write, no new games: the ones in flight finish and are dropped
        write_err.is_none()
    });
    if let Some(e) = write_err {
        return Err(e.into());
    }
    log.append_games(&games[written..])?;
    Ok(games)
}

/// What one task of a split job did ([`run_task`]).
#[derive(Debug, Clone, PartialEq)]
pub struct TaskOutcome {
    /// The games of the task's part.
    pub games: usize,
    /// Games played by this call (0 when the part was already stored).
    pub played: usize,
    /// The part's URL.
    pub url: String,
}

/// The (setup, colour) pairs of the first `target` games (setups `0..target/2`, both colours)
/// that `task` owns (by setup) and the log's other parts do not hold.
fn task_jobs(games: &[GameLine], agent: &str, target: usize, task: Task) -> Vec<(usize, u8)> {
    let done = done_of(games, agent);
    (0..target)
        .map(|i| (i / 2, (i % 2) as u8))
        .filter(|&(s, w)| task.owns(s as u64) && !done.contains(&(s, w)))
        .collect()
}

/// Play `task`'s share of the first `target` games of these setup rules and store them as
/// the task's one part ([`GameLog::write_task`]), whole, once every game is played: a task
/// stopped by `stop` stores nothing and says so. A task whose part exists plays nothing. A log
/// that holds these setup rules' games split into another number of tasks is refused.
pub fn run_task(
    v: &Arc<Variant>,
    cfg: &ImbalanceConfig,
    log: &GameLog,
    (task, target, threads): (Task, usize, usize),
    stop: &(dyn Fn() -> bool + Sync),
    on_game: &mut dyn FnMut(&GameLine, usize),
) -> Result<TaskOutcome, ImbalanceError> {
    let parts = log.task_parts()?;
    if let Some((t, name)) = parts.iter().find(|(t, _)| t.count != task.count) {
        let url = format!("{}/{name}", log.url());
        return Err(ImbalanceError::TaskCount { url, found: t.count, asked: task.count });
    }
    if let Some(games) = log.read_task(task)? {
        return Ok(TaskOutcome { games: games.len(), played: 0, url: log.task_url(task) });
    }
    // the numbered parts, and one other task's part for the engine check (tasks own disjoint
    // setups: the others need not be read)
    let numbered = log.read_numbered_games()?;
    let sample = match parts.first() {
        Some((t, _)) => log.read_task(*t)?.unwrap_or_default(),
        None => Vec::new(),
    };
    check_engine(log, &[&numbered[..], &sample[..]].concat(), cfg)?;
    let jobs = task_jobs(&numbered, &cfg.agent_id(), target, task);
    let mut games = Vec::with_capacity(jobs.len());
    play_jobs(v, cfg, &jobs, threads, stop, &mut |g| {
        on_game(&g, games.len() + 1);
        games.push(g);
        true
    });
    if games.len() < jobs.len() {
        return Err(ImbalanceError::TaskStopped { task, played: games.len(), of: jobs.len() });
    }
    games.sort_by_key(|g| (g.setup, g.swap));
    let url = log.write_task(task, &games)?;
    Ok(TaskOutcome { games: games.len(), played: games.len(), url })
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

/// The games of the setups that the first move wins (in either colour order, see
/// [`wins_at_once`]) left out: the same selection as [`ImbalanceConfig::safe_royals`] makes
/// before playing (rejection sampling keeps the other setups' distribution), applied to a log
/// played without it. Returns the games kept and how many setups were left out.
pub fn drop_won_setups(
    v: &Arc<Variant>,
    games: Vec<GameLine>,
) -> Result<(Vec<GameLine>, usize), ImbalanceError> {
    let mut moves = MoveList::with_capacity(256);
    let mut won: HashSet<(&str, usize)> = HashSet::new();
    for g in &games {
        let pos = start_of(v, g)?;
        if wins_at_once(&pos, &mut moves) {
            won.insert((g.agent.as_str(), g.setup));
        }
    }
    let keep: Vec<bool> =
        games.iter().map(|g| !won.contains(&(g.agent.as_str(), g.setup))).collect();
    let n = won.len();
    Ok((games.into_iter().zip(keep).filter(|(_, k)| *k).map(|(g, _)| g).collect(), n))
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

/// Games in a stable order: setup rules in the order they first appear in the log, then setup
/// and colour; the cluster key of a game is (setup rules, setup).
fn ordered(games: &[GameLine]) -> Vec<(usize, &GameLine)> {
    let agents = agents_in(games);
    let mut out: Vec<(usize, &GameLine)> =
        games.iter().map(|g| (agents.iter().position(|a| *a == g.agent).unwrap_or(0), g)).collect();
    out.sort_by_key(|(r, g)| (*r, g.setup, g.swap));
    out
}

/// The regression rows of a set of games: intercept (Black moves first) + per-kind differences;
/// clusters are setups (both colours of a setup resampled together), numbered by setup order.
pub fn design(kinds: &Kinds, games: &[GameLine]) -> Result<Design, ImbalanceError> {
    let mut d = Design::new(1 + kinds.len());
    let mut cluster_of: HashMap<(usize, usize), usize> = HashMap::new();
    for (r, g) in ordered(games) {
        let mut x = vec![0.0; 1 + kinds.len()];
        x[0] = 1.0;
        for (name, n) in &g.diff {
            let k = kinds.index(name).ok_or_else(|| ImbalanceError::UnknownKind {
                setup: g.setup,
                swap: g.swap,
                kind: name.clone(),
            })?;
            x[1 + k] = *n as f64;
        }
        let next = cluster_of.len();
        let c = *cluster_of.entry((r, g.setup)).or_insert(next);
        d.push(&x, g.result.clamp(0.0, 1.0), 1.0, c);
    }
    Ok(d)
}

/// When the games come from several setup rules: each rule set fitted alone (point estimates),
/// so that a reader sees whether pooling them is sound (the model is the same for all rules;
/// a pawn coefficient that differs between them shows where it is not quite).
fn per_rules_note(kinds: &Kinds, games: &[GameLine], unit: usize, ridge: f64) -> Option<String> {
    let rules = agents_in(games);
    if rules.len() < 2 {
        return None;
    }
    let mut parts = Vec::new();
    let mut values: Vec<Vec<f64>> = Vec::new();
    for r in &rules {
        let own: Vec<GameLine> = games.iter().filter(|g| g.agent == *r).cloned().collect();
        let d = design(kinds, &own).ok()?;
        let fit = super::stats::logistic_fit(&d, None, ridge);
        let coef = fit.beta[1 + unit];
        parts.push(format!(
            "`{}` ({} games) {} coefficient {coef:.4}",
            rules_of(r),
            own.len(),
            kinds.unit_name()
        ));
        values.push((0..kinds.len()).map(|k| super::stats::ratio(fit.beta[1 + k], coef)).collect());
    }
    let (a, b): (Vec<f64>, Vec<f64>) = values[0]
        .iter()
        .zip(&values[values.len() - 1])
        .enumerate()
        .filter(|(k, (x, y))| *k != unit && x.is_finite() && y.is_finite())
        .map(|(_, (x, y))| (*x, *y))
        .unzip();
    if a.len() < 3 {
        return Some(format!(
            "setup rules fitted alone: {}; no comparison of their values (a rule set without a positive {name} coefficient has none in {name} units)",
            parts.join(", "),
            name = kinds.unit_name()
        ));
    }
    let mut ratios: Vec<f64> =
        a.iter().zip(&b).filter(|(x, _)| **x > 0.5).map(|(x, y)| y / x).collect();
    ratios.sort_by(|x, y| x.total_cmp(y));
    let median = ratios.get(ratios.len() / 2).copied().unwrap_or(f64::NAN);
    Some(format!(
        "setup rules fitted alone: {}; the first and last rules' values correlate at Pearson {:.2} (Spearman {:.2}) over {} kinds, the last's are {:.2} times the first's (median ratio over kinds worth more than half a {})",
        parts.join(", "),
        super::stats::pearson(&a, &b),
        super::stats::spearman(&a, &b),
        a.len(),
        median,
        kinds.unit_name()
    ))
}

/// Fit the imbalance games.
pub fn fit(
    kinds: &Kinds,
    games: &[GameLine],
    resamples: usize,
    seed: u64,
    description: String,
) -> Result<MethodResult, ImbalanceError> {
    let unit = kinds.unit.ok_or(ImbalanceError::NoUnit)?;
    let d = design(kinds, games)?;
    if d.rows() == 0 {
        return Err(ImbalanceError::NoGames);
    }
    let ridge = 1e-3;
    let r = ratio_bootstrap(&d, 1 + unit, ridge, resamples, seed);
    let mut estimates = estimates_from(kinds, &r, 1);
    let (curve, effect_curve) =
        width_curve(&d, 1 + unit, 1, kinds.len(), ridge, (resamples / 2).max(50), seed, &|s| {
            s.rows() as f64
        });
    let mut notes = Vec::new();
    let decisive = games.iter().filter(|g| g.result != 0.5).count();
    notes.push(format!(
        "{} games from {} setups, {} decisive ({:.0}%), first-move coefficient {:.3} (logit), {} coefficient {:.4}",
        games.len(),
        d.clusters,
        decisive,
        100.0 * decisive as f64 / games.len().max(1) as f64,
        r.fit.beta[0],
        kinds.unit_name(),
        r.fit.beta[1 + unit]
    ));
    notes.extend(unit_notes(kinds, &r, 1));
    if let Some(n) = per_rules_note(kinds, games, unit, ridge) {
        notes.push(n);
    }
    for (k, e) in estimates.iter_mut().enumerate() {
        if e.value.is_nan() && kinds.royal[k] {
            notes.push(format!("{}: never differs between the sides (royal)", e.piece));
        }
    }
    Ok(MethodResult {
        method: "imbalance".into(),
        description,
        estimates,
        games: games.len(),
        samples: d.rows(),
        curve,
        effect_curve,
        notes,
        ..Default::default()
    }
    .with_draws(kinds, &r, 1))
}

/// Texel-style rows from the positions of the logged games (those that record their moves):
/// Black's result regressed on the material difference of every quiet position (the move
/// played from it changes no material), with a constant and a side-to-move term; identical
/// rows of a game are merged; clusters are setups, as for [`design`].
pub fn position_design(
    v: &Arc<Variant>,
    kinds: &Kinds,
    games: &[GameLine],
) -> Result<(Design, usize), ImbalanceError> {
    let p = 2 + kinds.len();
    let mut d = Design::new(p);
    let mut cluster_of: HashMap<(usize, usize), usize> = HashMap::new();
    let mut quiet = 0;
    for (r, g) in ordered(games).into_iter().filter(|(_, g)| !g.moves.is_empty()) {
        let next = cluster_of.len();
        let cluster = *cluster_of.entry((r, g.setup)).or_insert(next);
        let mut pos = start_of(v, g)?;
        let mut rows: Vec<Vec<f64>> = Vec::new();
        let row = |pos: &Position| -> Vec<f64> {
            let mut x = Vec::with_capacity(p);
            x.push(1.0);
            x.push(if pos.side_to_move() == Color::Black { 1.0 } else { -1.0 });
            x.extend(kinds.diff(pos, Color::Black));
            x
        };
        rows.push(row(&pos));
        for (i, mv) in g.moves.split_whitespace().enumerate() {
            let m = logged_move(&pos, g, i, mv)?;
            pos.play(m);
            rows.push(row(&pos));
        }
        let mut index: HashMap<Vec<i64>, usize> = HashMap::new();
        let y = g.result.clamp(0.0, 1.0);
        for i in 0..rows.len() {
            if i + 1 < rows.len() && rows[i][2..] != rows[i + 1][2..] {
                continue;
            }
            quiet += 1;
            let key: Vec<i64> = rows[i].iter().map(|x| *x as i64).collect();
            match index.get(&key) {
                Some(&r) => d.w[r] += 1.0,
                None => {
                    index.insert(key, d.rows());
                    d.push(&rows[i], y, 1.0, cluster);
                }
            }
        }
    }
    d.clusters = cluster_of.len();
    Ok((d, quiet))
}

/// Fit the positions of the logged games ([`position_design`]); `None` when no game records
/// its moves.
pub fn fit_positions(
    v: &Arc<Variant>,
    kinds: &Kinds,
    games: &[GameLine],
    resamples: usize,
    seed: u64,
    description: String,
) -> Result<Option<MethodResult>, ImbalanceError> {
    let unit = kinds.unit.ok_or(ImbalanceError::NoUnit)?;
    let (d, quiet) = position_design(v, kinds, games)?;
    if d.rows() == 0 {
        return Ok(None);
    }
    let with_moves = games.iter().filter(|g| !g.moves.is_empty()).count();
    let ridge = 1e-3;
    let r = ratio_bootstrap(&d, 2 + unit, ridge, resamples, seed);
    let estimates = estimates_from(kinds, &r, 2);
    let (curve, effect_curve) =
        width_curve(&d, 2 + unit, 2, kinds.len(), ridge, (resamples / 2).max(50), seed, &|s| {
            // clusters are setups of (up to) two games
            (s.clusters as f64) * with_moves as f64 / d.clusters.max(1) as f64
        });
    let head = format!(
        "{with_moves} games ({} setups) with recorded moves, {quiet} quiet positions ({} weighted rows)",
        d.clusters,
        d.rows()
    );
    let notes = positions_fit_notes(head, kinds, &r, &estimates, "");
    Ok(Some(
        MethodResult {
            method: "imbalance-positions".into(),
            description,
            estimates,
            games: with_moves,
            samples: quiet,
            curve,
            effect_curve,
            notes,
            ..Default::default()
        }
        .with_draws(kinds, &r, 2),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// The committed log of a variant (reports/piece-values/games/<name>/).
    fn committed_log(name: &str) -> GameLog {
        GameLog::new(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../reports/piece-values/games").join(name),
        )
    }

    #[test]
    fn setups_are_mirrored_and_deterministic() {
        let v = Variant::builtin("chu").unwrap();
        let kinds = Kinds::new(&v);
        let cfg = ImbalanceConfig::default();
        for i in 0..20 {
            let [a, b] = make_setup(&v, &kinds, &cfg, i);
            let da = kinds.diff(&a, Color::Black);
            let db = kinds.diff(&b, Color::Black);
            for (x, y) in da.iter().zip(&db) {
                assert_eq!(*x, -*y, "setup {i}");
            }
            assert_eq!(a.to_sfen(), make_setup(&v, &kinds, &cfg, i)[0].to_sfen());
            assert!(a.royal_count(Color::Black) >= 1 && a.royal_count(Color::White) >= 1);
        }
        // some setups differ from the start position, some promote
        let promoted = (0..50).any(|i| {
            let [a, _] = make_setup(&v, &kinds, &cfg, i);
            a.pieces(Color::Black)
                .iter()
                .any(|&s| v.types[(a.cell(s) & TYPE_MASK) as usize].promoted)
        });
        assert!(promoted);
    }

    #[test]
    fn safe_royal_setups_leave_no_wins_at_once() {
        let v = Variant::builtin("tenjiku").unwrap();
        let kinds = Kinds::new(&v);
        let rules = ImbalanceConfig { max_pawns: 12, min_promotions: 3, ..Default::default() };
        let safe = ImbalanceConfig { safe_royals: true, ..rules.clone() };
        assert_eq!(safe.setup_id(), format!("{}s", rules.setup_id()));
        let mut moves = MoveList::with_capacity(256);
        let mut won = 0;
        for i in 0..150 {
            let b = make_setup(&v, &kinds, &safe, i);
            assert!(!b.iter().any(|p| wins_at_once(p, &mut moves)), "setup {i}");
            if make_setup(&v, &kinds, &rules, i).iter().any(|p| wins_at_once(p, &mut moves)) {
                won += 1;
            }
        }
        // the plain rules do draw such setups (about one in ten tenjiku setups: 14 of these 150)
        assert!(won > 0, "no setup of the plain rules was won by the first move");
    }

    #[test]
    fn won_setups_leave_the_fit_with_both_their_games() {
        let v = Variant::builtin("tenjiku").unwrap();
        let kinds = Kinds::new(&v);
        let rules = ImbalanceConfig { max_pawns: 12, min_promotions: 3, ..Default::default() };
        let mut moves = MoveList::with_capacity(256);
        let line = |setup: usize, swap: u8, pos: &Position| GameLine {
            setup,
            swap,
            agent: rules.agent_id(),
            seed: 0,
            sfen: pos.to_sfen(),
            diff: BTreeMap::new(),
            result: 0.5,
            plies: 1,
            termination: "none".into(),
            ms: 0,
            moves: String::new(),
        };
        let (mut games, mut won) = (Vec::new(), 0);
        for i in 0..60 {
            let pair = make_setup(&v, &kinds, &rules, i);
            won += pair.iter().any(|p| wins_at_once(p, &mut moves)) as usize;
            games.extend(pair.iter().enumerate().map(|(swap, p)| line(i, swap as u8, p)));
        }
        assert!(won > 0);
        let (kept, dropped) = drop_won_setups(&v, games.clone()).unwrap();
        assert_eq!(dropped, won);
        assert_eq!(kept.len(), games.len() - 2 * won);
        for g in &kept {
            let p = Position::from_sfen(&v, &g.sfen).unwrap();
            assert!(!wins_at_once(&p, &mut moves));
            assert_eq!(kept.iter().filter(|h| h.setup == g.setup).count(), 2);
        }
        games[3].sfen = "not a position".into();
        let e = drop_won_setups(&v, games).unwrap_err().to_string();
        assert!(e.starts_with("game 1/1: start position"), "{e}");
    }

    #[test]
    fn a_game_finishes_and_round_trips_through_json() {
        let v = Variant::builtin("shogi").unwrap();
        let kinds = Kinds::new(&v);
        let cfg = ImbalanceConfig { max_plies: 60, node_budget: 5_000, ..Default::default() };
        let mut s = Searcher::new(&v, &cfg);
        let g = play_one(&v, &kinds, &cfg, &mut s, 3, 1);
        assert!(g.plies <= 60 && g.plies > 0);
        let line = serde_json::to_string(&g).unwrap();
        let back: GameLine = serde_json::from_str(&line).unwrap();
        assert_eq!(back.sfen, g.sfen);
        let g2 = play_one(&v, &kinds, &cfg, &mut s, 3, 1);
        assert_eq!(g2.result, g.result);
        assert_eq!(g2.plies, g.plies);
    }

    #[test]
    fn the_committed_log_setups_are_unchanged() {
        // the first logs' setup rules must keep drawing the same setups, or a run that extends
        // them would pool games whose recorded setup index means another position
        let games = committed_log("chu").read_games().unwrap();
        let first = games.first().expect("games in the committed chu log");
        let cfg = ImbalanceConfig { max_plies: 500, ..Default::default() };
        assert_eq!(first.agent, cfg.agent_id());
        let v = Variant::builtin("chu").unwrap();
        let kinds = Kinds::new(&v);
        let pos = &make_setup(&v, &kinds, &cfg, first.setup)[first.swap as usize];
        assert_eq!(pos.to_sfen(), first.sfen);
    }

    #[test]
    fn committed_games_replay_move_for_move() {
        // the games in the committed logs must be what the engine plays today: a change to
        // the search or the move generator that alters them would pool games of two engines
        // under one engine id
        for (name, cap) in [("chu", 500), ("tenjiku", 400), ("tai", 300)] {
            let games = committed_log(name).read_games().unwrap();
            assert!(!games.is_empty(), "no games in the committed {name} log");
            let cfg = ImbalanceConfig { max_plies: cap, ..Default::default() };
            let mut ours: Vec<&GameLine> =
                games.iter().filter(|g| g.agent == cfg.agent_id() && !g.moves.is_empty()).collect();
            // the shortest two, and one that reached the ply cap or came near it
            ours.sort_by_key(|g| g.plies);
            let mut pick = ours[..2].to_vec();
            if name != "tai" {
                let near_cap = ours.iter().rev().find(|g| g.plies <= cap * 3 / 4);
                pick.extend(near_cap);
            }
            let v = Variant::builtin(name).unwrap();
            let kinds = Kinds::new(&v);
            let mut searcher = Searcher::new(&v, &cfg);
            for g in pick {
                let again = play_one(&v, &kinds, &cfg, &mut searcher, g.setup, g.swap);
                assert_eq!(again.sfen, g.sfen, "{name} setup {} swap {}", g.setup, g.swap);
                assert_eq!(again.moves, g.moves, "{name} setup {} swap {}", g.setup, g.swap);
                assert_eq!((again.result, again.plies), (g.result, g.plies));
            }
        }
    }

    #[test]
    fn more_promotions_promote_distinct_pieces_on_both_sides() {
        let v = Variant::builtin("chu").unwrap();
        let kinds = Kinds::new(&v);
        let cfg = ImbalanceConfig { min_promotions: 4, max_pawns: 8, ..Default::default() };
        assert_eq!(engine_of(&cfg.agent_id()), ImbalanceConfig::default().engine_id());
        assert!(cfg.agent_id().ends_with("-rm3p8pr0.6m4"), "{}", cfg.agent_id());
        let mut pawns_gone = 0;
        for i in 0..30 {
            let [a, _] = make_setup(&v, &kinds, &cfg, i);
            for c in [Color::Black, Color::White] {
                let promoted = a
                    .pieces(c)
                    .iter()
                    .filter(|&&s| v.types[(a.cell(s) & TYPE_MASK) as usize].promoted)
                    .count();
                assert!(promoted >= 4, "setup {i}: {promoted} promoted pieces");
            }
            let d = kinds.diff(&a, Color::Black);
            pawns_gone = pawns_gone.max(d[kinds.pawn.unwrap()].abs() as i32);
        }
        assert!(pawns_gone > 3, "pawn differences beyond the default's 3: {pawns_gone}");
    }

    #[test]
    fn one_log_pools_setup_rules_of_one_engine_and_refuses_another_engine() {
        let v = Variant::builtin("shogi").unwrap();
        let kinds = Kinds::new(&v);
        let dir = std::env::temp_dir().join(format!("shogilab-pool-{}", std::process::id()));
        let log = GameLog::new(dir.join("shogi"));
        let a = ImbalanceConfig { max_plies: 40, node_budget: 2_000, ..Default::default() };
        let b = ImbalanceConfig { min_promotions: 1, ..a.clone() };
        let plan = |target, threads| RunPlan { target, threads, part_games: 4 };
        run_games(&v, &a, &log, plan(4, 2), &|| false, &mut |_, _| {}).unwrap();
        let games = run_games(&v, &b, &log, plan(6, 2), &|| false, &mut |_, _| {}).unwrap();
        assert_eq!(count_of(&games, &a.agent_id()), 4);
        assert_eq!(count_of(&games, &b.agent_id()), 6);
        // parts of at most 4 games: 4, then 4 + 2
        assert_eq!(log.parts(super::super::log::Table::Games).unwrap().len(), 3);
        assert_eq!(log.read_games().unwrap(), games);
        // asking again plays nothing
        let again = run_games(&v, &b, &log, plan(6, 1), &|| false, &mut |_, _| {}).unwrap();
        assert_eq!(again.len(), 10);
        // setup 0 of each rule set is its own cluster
        assert_eq!(design(&kinds, &games).unwrap().clusters, 2 + 3);
        let summary = setup_summary(&games);
        assert!(
            summary.contains("`rm3p3pr0.6` 4 games") && summary.contains("m1` 6 games"),
            "{summary}"
        );
        let other = ImbalanceConfig { max_plies: 41, ..a.clone() };
        let err = run_games(&v, &other, &log, plan(8, 1), &|| false, &mut |_, _| {})
            .unwrap_err()
            .to_string();
        assert!(err.contains("holds games of engine") && err.contains("cap40"), "{err}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
