//! Teacher data: the games of a searching engine turned into training positions in the
//! self-play Parquet schema, so that a network can start from what the engine knows before it
//! improves by self-play.
//!
//! The source is an imbalance game log of `shogilab values` (`reports/piece-values/games/<v>/`,
//! or the depth-2 log): every game whose moves are recorded is replayed, and every `every`-th
//! position (from an offset drawn from the run seed and the game) becomes one row:
//!
//! * `move`, `policy_moves` = `[move]`, `policy_probs` = `[1.0]`: the policy target is the
//!   engine's move (one-hot; a self-play row lists every legal move instead);
//! * `result`: the game's result for the side to move;
//! * `root_value`: with `value_depth` D > 0, the score of an alpha-beta search of depth D (plus
//!   quiescence, the `alphabeta` agent's piece values) squashed by a logistic scale fitted to the
//!   results of the first shard's games ([`crate::teacher_value`]; a fit that finds no link
//!   between the scores and the results is refused) or given (`value_scale`); with D = 0 it
//!   repeats the result (the log keeps no search score);
//! * `visits` and `simulations` 0, `generation` 0, `model_id` `teacher:<engine id>`,
//!   `game_id` `0-<row of the game in the log>`, `seed` the game's seed.
//!
//! Shards of `games_per_shard` games are written whole (games file, then positions file), so a
//! killed export continues where it stopped; the settings are saved as `teacher.toml` and a
//! rerun with other settings is refused, naming them.

use crate::error::PipelineError;
use crate::settings::{diff_tables, read_table, to_table};
use crate::teacher_value::{fitted_scale, squash, Labeller, ScaleFit, MAX_SCALE};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use shogilab_engine::{Color, Position, Status, Termination, Variant};
use shogilab_eval::values::imbalance::GameLine;
use shogilab_eval::values::log::GameLog;
use shogilab_fsio::write_atomic;
use shogilab_selfplay::worker::game_seed;
use shogilab_selfplay::{dataset, GameRecord, PositionRecord};
use std::path::PathBuf;
use std::sync::Arc;

/// One export: what `shogilab teacher` runs.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TeacherJob {
    /// The imbalance game log folder (`games-*.parquet` parts).
    pub log: PathBuf,
    /// The dataset folder to write.
    pub out: PathBuf,
    /// Keep one position in `every` of each game.
    pub every: u32,
    /// Use at most this many games (the first ones of the log); 0: all.
    pub max_games: u64,
    pub games_per_shard: u64,
    pub seed: u64,
    /// Depth of the search that labels the values (0: the values repeat the results).
    pub value_depth: u32,
    /// The logistic scale of the search scores; `None`: fitted to the first shard's results.
    pub value_scale: Option<f64>,
}

/// What an export wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct TeacherSummary {
    pub games: u64,
    pub positions: u64,
    pub shards: u32,
    /// Shards already complete on disk (skipped).
    pub kept: u32,
    /// Games of the log without recorded moves (not usable).
    pub without_moves: u64,
    /// The fitted logistic scale of the search scores (with `value_depth` > 0).
    pub value_scale: Option<f64>,
}

/// The settings saved as `teacher.toml`.
#[derive(Debug, Serialize)]
struct TeacherRecord<'a> {
    variant: &'a str,
    log: String,
    every: u32,
    max_games: u64,
    games_per_shard: u64,
    seed: u64,
    value_depth: u32,
    /// Given, or fitted from the first shard (the same on every run of the same settings).
    value_scale: Option<f64>,
}

fn check_job(job: &TeacherJob) -> Result<(), PipelineError> {
    if job.every == 0 || job.games_per_shard == 0 {
        return Err(PipelineError::Empty(
            "--every and --games-per-shard must be at least 1".into(),
        ));
    }
    match job.value_scale {
        Some(k) if !(k.is_finite() && k > 0.0) => Err(PipelineError::Empty(format!(
            "--value-scale {k}: the scale must be a positive number of centipawns"
        ))),
        Some(_) if job.value_depth == 0 => Err(PipelineError::Empty(
            "--value-scale needs --value-depth 1 or more (with depth 0 the values are the \
             results)"
                .into(),
        )),
        _ => Ok(()),
    }
}

fn save_settings(v: &Variant, job: &TeacherJob, scale: Option<f64>) -> Result<(), PipelineError> {
    let path = job.out.join("teacher.toml");
    let record = TeacherRecord {
        variant: &v.name,
        log: job.log.display().to_string(),
        every: job.every,
        max_games: job.max_games,
        games_per_shard: job.games_per_shard,
        seed: job.seed,
        value_depth: job.value_depth,
        value_scale: scale,
    };
    let now = to_table(&path, &record)?;
    if let Some(saved) = read_table(&path)? {
        let diffs = diff_tables(&saved, &now, &[]);
        if !diffs.is_empty() {
            let hint = "rerun with the same settings to continue, or choose a new --out";
            return Err(PipelineError::SettingsDiffer { path, diffs, hint });
        }
    }
    std::fs::create_dir_all(&job.out).map_err(PipelineError::io(&job.out))?;
    let text = format!("# shogilab teacher: the settings of every shard in this folder\n{now}");
    write_atomic(&path, text.as_bytes())?;
    Ok(())
}

/// The game's status from Black's score and the logged termination.
fn status(g: &GameLine) -> Status {
    let t = Termination::from_name(&g.termination).unwrap_or(Termination::PlyLimit);
    match g.result {
        r if r > 0.75 => Status::Win(Color::Black, t),
        r if r < 0.25 => Status::Win(Color::White, t),
        _ => Status::Draw(t),
    }
}

/// A replayed game with the search score of each kept position (with a labeller).
struct Replayed {
    record: GameRecord,
    scores: Vec<Option<i32>>,
}

/// Replay one logged game into a record with every `every`-th position, scored by the labeller
/// if there is one. Errors name the log, the game's row and the move.
fn replay(
    v: &Arc<Variant>,
    job: &TeacherJob,
    (row, g): (u64, &GameLine),
    mut labeller: Option<&mut Labeller>,
) -> Result<Replayed, PipelineError> {
    let bad = |reason: String| PipelineError::BadRecord {
        path: job.log.clone(),
        reason: format!("game {row} (setup {}/{}): {reason}", g.setup, g.swap),
    };
    let mut pos =
        Position::from_sfen(v, &g.sfen).map_err(|e| bad(format!("start position: {e}")))?;
    let moves: Vec<String> = g.moves.split_whitespace().map(str::to_string).collect();
    // the same mixing of (run seed, game) as self-play's game seeds
    let offset = game_seed(job.seed, g.seed) % job.every as u64;
    let status = status(g);
    let (mut positions, mut scores) = (Vec::new(), Vec::new());
    for (i, mv) in moves.iter().enumerate() {
        let m = pos.parse_usi(mv).map_err(|e| bad(format!("move {} {mv:?}: {e}", i + 1)))?;
        if (i as u64) % job.every as u64 == offset {
            let side = pos.side_to_move();
            let result = f32::from(status.score_for(side));
            positions.push(PositionRecord {
                ply: i as u32,
                sfen: pos.to_sfen(),
                side,
                mv: mv.clone(),
                policy_moves: vec![mv.clone()],
                policy_probs: vec![1.0],
                root_value: result,
                visits: 0,
            });
            scores.push(labeller.as_deref_mut().and_then(|l| l.score(&pos)));
        }
        pos.play(m);
    }
    let record = GameRecord {
        game_index: row,
        seed: g.seed,
        start_sfen: g.sfen.clone(),
        moves,
        status,
        positions,
        no_resign: true,
        would_resign: None,
    };
    Ok(Replayed { record, scores })
}

/// Replay a shard's games on every core, one labeller per thread when values are searched.
fn replay_all(
    v: &Arc<Variant>,
    job: &TeacherJob,
    games: &[(u64, &GameLine)],
) -> Result<Vec<Replayed>, PipelineError> {
    games
        .par_iter()
        .map_init(
            || (job.value_depth > 0).then(|| Labeller::new(v, job.value_depth)),
            |lab, &(row, g)| replay(v, job, (row, g), lab.as_mut()),
        )
        .collect()
}

/// The scale that turns the first shard's scores into values (`None` without value search):
/// the job's own, or fitted to the first shard's decisive results.
fn value_scale(job: &TeacherJob, first: &[Replayed]) -> Result<Option<f64>, PipelineError> {
    if job.value_depth == 0 {
        return Ok(None);
    }
    if let Some(k) = job.value_scale {
        return Ok(Some(k));
    }
    let pairs: Vec<(i32, i8)> = first
        .iter()
        .flat_map(|r| {
            r.record
                .positions
                .iter()
                .zip(&r.scores)
                .filter_map(|(p, s)| s.map(|s| (s, r.record.result_for(p.side))))
        })
        .collect();
    let log = job.log.display();
    fitted_scale(&pairs).map(Some).map_err(|e| {
        PipelineError::Empty(match e {
            ScaleFit::TooFew(n) => format!(
                "{log}: too few decisive games in the first shard to fit the value scale ({n} \
                 positions of decisive games; at least 10)"
            ),
            ScaleFit::NoSignal(n) => format!(
                "{log}: the depth-{} search scores do not predict the results of the first \
                 shard's {n} positions of decisive games (the fitted scale runs to its bound, \
                 {MAX_SCALE:.0}, and every value would be about 0): use --value-depth 0 (the \
                 values repeat the results) or --value-scale K (a scale fitted elsewhere)",
                job.value_depth
            ),
        })
    })
}

/// Records with their values: the search's squashed scores, or the results.
fn with_values(replayed: Vec<Replayed>, scale: Option<f64>) -> Vec<GameRecord> {
    replayed
        .into_iter()
        .map(|mut r| {
            if let Some(k) = scale {
                for (p, s) in r.record.positions.iter_mut().zip(&r.scores) {
                    if let Some(s) = s {
                        p.root_value = squash(*s, k);
                    }
                }
            }
            r.record
        })
        .collect()
}

fn progress_bar(len: u64) -> ProgressBar {
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} games, {per_sec}, eta {eta} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}

/// The log's games with recorded moves, numbered by their row, up to `max_games`; every start
/// position must parse.
fn select_games<'a>(
    v: &Arc<Variant>,
    job: &TeacherJob,
    all: &'a [GameLine],
) -> Result<Vec<(u64, &'a GameLine)>, PipelineError> {
    let limit = if job.max_games == 0 { u64::MAX } else { job.max_games };
    let games: Vec<(u64, &GameLine)> = (0u64..)
        .zip(all)
        .filter(|(_, g)| !g.moves.is_empty())
        .take(limit.min(usize::MAX as u64) as usize)
        .collect();
    if games.is_empty() {
        let what = format!("{}: no game with recorded moves", job.log.display());
        return Err(PipelineError::Empty(what));
    }
    for (row, g) in &games {
        Position::from_sfen(v, &g.sfen).map_err(|e| PipelineError::BadRecord {
            path: job.log.clone(),
            reason: format!("game {row} (setup {}/{}): start position: {e}", g.setup, g.swap),
        })?;
    }
    Ok(games)
}

/// Export the log's games shard by shard; complete shards on disk are kept and skipped.
pub fn run_teacher(v: &Arc<Variant>, job: &TeacherJob) -> Result<TeacherSummary, PipelineError> {
    check_job(job)?;
    let all = GameLog::new(&job.log)
        .read_games()
        .map_err(|e| PipelineError::BadRecord { path: job.log.clone(), reason: e.to_string() })?;
    let without_moves = all.iter().filter(|g| g.moves.is_empty()).count() as u64;
    let games = select_games(v, job, &all)?;
    let shards: Vec<&[(u64, &GameLine)]> = games.chunks(job.games_per_shard as usize).collect();
    // the first shard is replayed first: its scores fit the value scale
    let first = replay_all(v, job, shards[0])?;
    let scale = value_scale(job, &first)?;
    save_settings(v, job, scale)?;
    let mut summary = TeacherSummary {
        games: games.len() as u64,
        positions: 0,
        shards: shards.len() as u32,
        kept: 0,
        without_moves,
        value_scale: scale,
    };
    let bar = progress_bar(games.len() as u64);
    let mut first = Some(first);
    for (shard, chunk) in shards.iter().enumerate() {
        let shard = shard as u32;
        let done = job.out.join(format!("positions-{shard:05}.parquet"));
        if done.exists() {
            summary.positions += dataset::count_rows(&done)? as u64;
            summary.kept += 1;
            bar.inc(chunk.len() as u64);
            continue;
        }
        let replayed = match first.take() {
            Some(f) if shard == 0 => f,
            _ => replay_all(v, job, chunk)?,
        };
        let records = with_values(replayed, scale);
        summary.positions += records.iter().map(|r| r.positions.len() as u64).sum::<u64>();
        let mut agents: Vec<&str> = chunk.iter().map(|(_, g)| g.agent.as_str()).collect();
        agents.dedup();
        let model_id = format!("teacher:{}", agents.join("+"));
        dataset::write_shard(&job.out, shard, &records, &v.name, 0, &model_id, 0)?;
        bar.inc(chunk.len() as u64);
    }
    bar.finish_and_clear();
    Ok(summary)
}
