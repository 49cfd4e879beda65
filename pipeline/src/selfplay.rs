//! The self-play stage: games of one evaluator written as Parquet shards in one location (a
//! folder or a bucket prefix), with the settings saved as `selfplay.toml` (and the variant as
//! `variant.toml`). A shard counts as done when its `positions-*.parquet` exists, so running
//! the same job again continues where it stopped; a location whose saved settings differ in
//! anything that changes the data is refused, naming the setting and both values. Only `games`
//! may grow (from a whole number of shards).
//!
//! A job split into tasks ([`Task`]): task I plays the shards s with s % N == I. A shard's
//! games are seeded by the run seed and their game index only, so a retried or duplicated
//! task writes the same shard again (whole objects replacing identical ones), and the job
//! without a task plays nothing that the tasks stored.

use crate::error::PipelineError;
use crate::evaluators::make_evaluator;
use crate::settings::{diff_tables, read_table_at, to_table};
use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};
use shogilab_engine::Variant;
use shogilab_selfplay::{dataset, play_games, Evaluator, GameRecord, Progress, SelfplayConfig};
use shogilab_store::{Store, Task};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;
use toml::Table;

/// One self-play job: what `shogilab selfplay` runs, and what the pipeline runs per generation.
#[derive(Debug, Clone)]
pub struct SelfplayJob {
    /// Output location (one generation of shards).
    pub out: Store,
    pub games: u64,
    /// Games per shard (the unit of resumption).
    pub shard_games: u64,
    pub seed: u64,
    /// Evaluator name (see [`crate::evaluators::make_evaluator`]).
    pub evaluator: String,
    /// Generation number recorded in the data.
    pub generation: u32,
    pub cfg: SelfplayConfig,
    /// Play only this task's shards.
    pub task: Option<Task>,
}

/// What a self-play stage left in its folder.
#[derive(Debug, Clone, PartialEq)]
pub struct SelfplaySummary {
    /// The location's URL.
    pub out: String,
    /// Games in the shards of the location (a task: in the task's shards).
    pub games: u64,
    /// Games played by this call (0 when every shard already existed).
    pub games_played: u64,
    /// Positions in those shards.
    pub positions: u64,
    /// The URLs of their positions objects (local paths in a folder), in shard order.
    pub shards: Vec<String>,
    /// The evaluator's id, as the data records it.
    pub evaluator: String,
}

/// The settings saved as `selfplay.toml`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct SelfplayRecord {
    variant: String,
    seed: u64,
    games: u64,
    shard_games: u64,
    evaluator: String,
    generation: u32,
    selfplay: SelfplayConfig,
}

/// Settings that do not change the data: the number of games (checked apart) and the games in
/// flight (every game has its own random stream, so scheduling does not change the games).
const NOT_DATA: [&str; 2] = ["games", "selfplay.concurrent"];

const HINT: &str = "continue with the same settings (only --games may grow) or choose a new --out";

/// Refuse a location whose saved settings or variant differ from the job's.
fn check_saved(out: &Store, record: &SelfplayRecord, v: &Variant) -> Result<(), PipelineError> {
    let path = PathBuf::from(out.url_of("selfplay.toml"));
    if let Some(saved) = read_table_at(out, "selfplay.toml")? {
        let diffs = diff_tables(&saved, &to_table(&path, record)?, &NOT_DATA);
        if !diffs.is_empty() {
            return Err(PipelineError::SettingsDiffer { path, diffs, hint: HINT });
        }
        let before = saved.get("games").and_then(|g| g.as_integer()).unwrap_or(0) as u64;
        if record.games < before {
            return Err(PipelineError::FewerGames { path, saved: before, now: record.games });
        }
        if record.games > before && !before.is_multiple_of(record.shard_games) {
            let shard_games = record.shard_games;
            return Err(PipelineError::PartialShard { path, saved: before, shard_games });
        }
    }
    let vpath = PathBuf::from(out.url_of("variant.toml"));
    if let Some(saved) = read_table_at(out, "variant.toml")? {
        let now: Table = toml::from_str(&v.spec_toml()).map_err(|e| PipelineError::BadRecord {
            path: vpath.clone(),
            reason: format!("the variant's own spec: {e}"),
        })?;
        let diffs = diff_tables(&saved, &now, &[]);
        if !diffs.is_empty() {
            return Err(PipelineError::SettingsDiffer { path: vpath, diffs, hint: HINT });
        }
    }
    Ok(())
}

fn check_job(job: &SelfplayJob) -> Result<(), PipelineError> {
    if job.games == 0 || job.shard_games == 0 {
        return Err(PipelineError::Empty("--games and --shard-games must be at least 1".into()));
    }
    job.cfg.validate()?;
    Ok(())
}

/// Play the job's games shard by shard; complete shards on disk are kept and skipped.
pub fn run_selfplay(v: &Arc<Variant>, job: &SelfplayJob) -> Result<SelfplaySummary, PipelineError> {
    check_job(job)?;
    let ev = make_evaluator(&job.evaluator, v)?;
    let record = SelfplayRecord {
        variant: v.name.clone(),
        seed: job.seed,
        games: job.games,
        shard_games: job.shard_games,
        evaluator: ev.id(),
        generation: job.generation,
        selfplay: job.cfg.clone(),
    };
    check_saved(&job.out, &record, v)?;
    let text = format!(
        "# shogilab selfplay: the settings of every shard in this location\n{}",
        toml::to_string(&record).map_err(|e| PipelineError::BadRecord {
            path: job.out.url_of("selfplay.toml").into(),
            reason: e.to_string()
        })?
    );
    job.out.put("selfplay.toml", text.into_bytes())?;
    job.out.put("variant.toml", v.spec_toml().into_bytes())?;
    play_shards(v, job, ev.as_ref())
}

fn progress_bar(len: u64, unit: &str) -> ProgressBar {
    let bar = ProgressBar::new(len);
    let template = format!("{{bar:30}} {{pos}}/{{len}} {unit} {{msg}}");
    bar.set_style(
        ProgressStyle::with_template(&template).unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}

/// Speed over the shards played by one call, for the progress bar.
struct Speed {
    t0: Instant,
    plies: u64,
    evals: u64,
}

/// Play one shard's games (in game order), moving the bar.
fn play_shard(
    v: &Arc<Variant>,
    job: &SelfplayJob,
    ev: &dyn Evaluator,
    (first, count): (u64, u64),
    bar: &ProgressBar,
    speed: &mut Speed,
) -> Vec<GameRecord> {
    let mut games = Vec::new();
    let done_before = bar.position();
    let on_progress = |p: &Progress| {
        bar.set_position(done_before + p.games_done as u64);
        let s = speed.t0.elapsed().as_secs_f64().max(1e-9);
        bar.set_message(format!(
            "{:.0} plies/s, {:.0} evals/s, batch {:.1}",
            (speed.plies + p.plies) as f64 / s,
            (speed.evals + p.evals) as f64 / s,
            p.mean_batch()
        ));
        if p.games_done == p.games_total {
            speed.plies += p.plies;
            speed.evals += p.evals;
        }
    };
    play_games(v, &job.cfg, ev, job.seed, first, count, |g| games.push(g), on_progress);
    games.sort_by_key(|g| g.game_index);
    games
}

/// Play the missing shards (of the task, if any) and count what they hold.
fn play_shards(
    v: &Arc<Variant>,
    job: &SelfplayJob,
    ev: &dyn Evaluator,
) -> Result<SelfplaySummary, PipelineError> {
    let shards: Vec<u64> = (0..job.games.div_ceil(job.shard_games))
        .filter(|&s| job.task.is_none_or(|t| t.owns(s)))
        .collect();
    let count_of = |shard: u64| job.shard_games.min(job.games - shard * job.shard_games);
    let bar = progress_bar(shards.iter().map(|&s| count_of(s)).sum(), "games");
    let mut speed = Speed { t0: Instant::now(), plies: 0, evals: 0 };
    let mut summary = SelfplaySummary {
        out: job.out.url().to_string(),
        games: 0,
        games_played: 0,
        positions: 0,
        shards: Vec::new(),
        evaluator: ev.id(),
    };
    for shard in shards {
        let count = count_of(shard);
        summary.games += count;
        let (pp, _) = dataset::shard_names(shard as u32);
        if let Some(rows) = dataset::count_rows_at(&job.out, &pp)? {
            bar.inc(count);
            summary.positions += rows as u64;
            summary.shards.push(job.out.url_of(&pp));
            continue;
        }
        let games = play_shard(v, job, ev, (shard * job.shard_games, count), &bar, &mut speed);
        let data = (job.generation, ev.id(), job.cfg.search.simulations);
        let (pp, _) = dataset::write_shard_to(
            &job.out,
            shard as u32,
            &games,
            &v.name,
            (data.0, &data.1, data.2),
        )?;
        summary.games_played += games.len() as u64;
        summary.positions += games.iter().map(|g| g.positions.len() as u64).sum::<u64>();
        summary.shards.push(pp);
    }
    bar.finish_and_clear();
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(games: u64, shard_games: u64) -> SelfplayRecord {
        SelfplayRecord {
            variant: "shogi".into(),
            seed: 1,
            games,
            shard_games,
            evaluator: "uniform".into(),
            generation: 0,
            selfplay: SelfplayConfig::default(),
        }
    }

    #[test]
    fn a_saved_folder_continues_only_with_the_same_data_settings() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::folder(dir.path());
        let v = Variant::builtin("shogi").unwrap();
        let saved = toml::to_string(&record(3, 2)).unwrap();
        std::fs::write(dir.path().join("selfplay.toml"), saved).unwrap();
        assert!(check_saved(&store, &record(3, 2), &v).is_ok());
        let mut wider = record(3, 2);
        wider.selfplay.concurrent += 7;
        assert!(check_saved(&store, &wider, &v).is_ok(), "games in flight change no data");
        let mut other = record(3, 2);
        other.selfplay.search.c_puct = 2.0;
        other.generation = 4;
        let e = check_saved(&store, &other, &v).unwrap_err();
        let PipelineError::SettingsDiffer { diffs, .. } = &e else { panic!("{e}") };
        let keys: Vec<&str> = diffs.iter().map(|d| d.key.as_str()).collect();
        assert_eq!(keys, ["generation", "selfplay.search.c_puct"], "{e}");
        // the last of 3 games sits alone in a shard of 2: growing would skip game 4
        let e = check_saved(&store, &record(4, 2), &v).unwrap_err();
        assert!(matches!(e, PipelineError::PartialShard { saved: 3, shard_games: 2, .. }), "{e}");
        let e = check_saved(&store, &record(2, 2), &v).unwrap_err();
        assert!(matches!(e, PipelineError::FewerGames { saved: 3, now: 2, .. }), "{e}");
    }

    #[test]
    fn another_variant_spec_in_the_folder_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::folder(dir.path());
        let chu = Variant::builtin("chu").unwrap();
        std::fs::write(dir.path().join("variant.toml"), chu.spec_toml()).unwrap();
        let shogi = Variant::builtin("shogi").unwrap();
        let e = check_saved(&store, &record(3, 2), &shogi).unwrap_err();
        assert!(e.to_string().contains("variant.toml"), "{e}");
        assert!(check_saved(&store, &record(3, 2), &chu).is_ok());
    }
}
