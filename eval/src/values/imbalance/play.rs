//! Playing the imbalance games: one game of a setup, the games still missing from a log played
//! on threads and appended in parts, and one task's share of a split job stored whole.

use super::players::{self, Players};
use super::{check_engine, make_setup, GameLine, ImbalanceConfig, ImbalanceError};
use crate::values::log::{GameLog, LogError};
use crate::values::Kinds;
use shogilab_engine::{Color, Variant};
use shogilab_selfplay::worker::game_seed as mix;
use shogilab_store::Task;
use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Instant;

/// Play one game of a setup.
pub fn play_one(
    v: &Arc<Variant>,
    kinds: &Kinds,
    cfg: &ImbalanceConfig,
    players: &mut Players,
    setup: usize,
    swap: u8,
) -> Result<GameLine, ImbalanceError> {
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
    let game = players::play(players, cfg, pos, (setup, swap, seed))?;
    Ok(GameLine {
        setup,
        swap,
        agent: cfg.agent_id(),
        seed,
        sfen,
        diff,
        result: (game.status.score_for(Color::Black) as f64 + 1.0) / 2.0,
        plies: game.plies,
        termination: game.status.termination().map_or("none", |t| t.as_str()).to_string(),
        ms: t0.elapsed().as_millis() as u64,
        moves: game.moves,
    })
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
/// before each game. A player that cannot be built or a game that fails (an agent's forfeit)
/// starts no new game either, and is the error returned once the games in flight are seen.
fn play_jobs(
    v: &Arc<Variant>,
    cfg: &ImbalanceConfig,
    jobs: &[(usize, u8)],
    threads: usize,
    stop: &(dyn Fn() -> bool + Sync),
    take: &mut dyn FnMut(GameLine) -> bool,
) -> Result<(), ImbalanceError> {
    let kinds = Kinds::new(v);
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<Result<GameLine, ImbalanceError>>();
    let mut failed = None;
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            let tx = tx.clone();
            let (next, kinds) = (&next, &kinds);
            scope.spawn(move || {
                let mut players = match Players::new(v, cfg) {
                    Ok(p) => p,
                    Err(e) => return drop(tx.send(Err(e))),
                };
                while !stop() {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&(setup, swap)) = jobs.get(i) else { break };
                    if tx.send(play_one(v, kinds, cfg, &mut players, setup, swap)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for g in rx {
            let go_on = match g {
                Ok(g) => take(g),
                Err(e) => {
                    failed.get_or_insert(e);
                    false
                }
            };
            if !go_on {
                next.store(usize::MAX / 2, Ordering::Relaxed);
            }
        }
    });
    failed.map_or(Ok(()), Err)
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
    let played = play_jobs(v, cfg, &jobs, plan.threads, stop, &mut |g| {
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
    // the games played before a failed game are kept
    log.append_games(&games[written..])?;
    played?;
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
    })?;
    if games.len() < jobs.len() {
        return Err(ImbalanceError::TaskStopped { task, played: games.len(), of: jobs.len() });
    }
    games.sort_by_key(|g| (g.setup, g.swap));
    let url = log.write_task(task, &games)?;
    Ok(TaskOutcome { games: games.len(), played: games.len(), url })
}
