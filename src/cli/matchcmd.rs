//! `shogilab match` (two agents, paired openings, score/Elo with 95% intervals, optional SPRT)
//! and what `shogilab gauntlet` (`gauntlet_cmd`) shares with it. Agents
//! are spec strings (`random`, `greedy`, `alphabeta:3`, `mcts:material:64`, `usi:PATH`,
//! `xboard:/usr/games/hachu`; any of them with its own limits: `...@movetime=500`; limits an
//! agent cannot play at are refused before the first game). With `--out DIR`, games are written
//! as `replay` lines (`games.txt`), per-game JSON lines (`games.jsonl`), per-game lines for
//! people (`games.log`) and the result as JSON and Markdown (`shogilab_eval::record`), each
//! file atomically.

use super::openings::read_openings;
use super::VariantArgs;
use anyhow::{bail, Context, Result};
use clap::Args;
use shogilab_cli::engine_cmds::task_args::{ResultArgs, TaskLine};
use shogilab_engine::Variant;
use shogilab_eval::agent::{check_limits, Agent, LimitSource, Limits};
use shogilab_eval::match_tasks;
use shogilab_eval::r#match::{GameRecord, MatchConfig, MatchResult};
use shogilab_eval::record::{game_line, write_match_files, GameLines, MatchRecord};
use shogilab_eval::{parse_agent_spec, run_match, Openings, Sprt};
use shogilab_pipeline::checkpoint_for_spec;
use shogilab_store::Store;
use std::sync::Arc;

#[derive(Args)]
pub struct MatchArgs {
    #[command(flatten)]
    pub variant: VariantArgs,
    /// First agent (results are from its side): random, greedy, alphabeta[:DEPTH][:noq],
    /// imbalance[:DEPTH][:each] (the engine of the piece-value games),
    /// mcts:EVAL[:SIMS][:q=SCALE][:batch=K], usi:PATH[|NAME=VALUE...], xboard:PATH[|sd=N][|memory=MB]; any spec
    /// may end in @nodes=N,movetime=MS, the agent's own limits (replacing --nodes/--movetime).
    #[arg(long = "a", value_name = "SPEC")]
    pub a: String,
    /// Second agent.
    #[arg(long = "b", value_name = "SPEC")]
    pub b: String,
    /// Number of games (openings are played twice with colours swapped).
    #[arg(long, default_value_t = 2)]
    pub games: usize,
    #[command(flatten)]
    pub play: PlayArgs,
    /// Stop early by SPRT: ELO0,ELO1 (alpha = beta = 0.05).
    #[arg(long, value_name = "ELO0,ELO1")]
    pub sprt: Option<String>,
    #[command(flatten)]
    pub result: ResultArgs,
}

/// Game settings shared by `match` and `gauntlet`.
#[derive(Args)]
pub struct PlayArgs {
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Ply cap per game (a draw when reached); 0 = none.
    #[arg(long, default_value_t = 400)]
    pub max_plies: u32,
    /// Random plies of each opening.
    #[arg(long, default_value_t = 4)]
    pub opening_plies: usize,
    /// Play these openings instead of random ones: a file (or `s3://` object) with one per
    /// line, `startpos [moves ...]` or `sfen SFEN [moves ...]` (blank lines and `#` comments
    /// skipped). Each is played twice with the colours swapped, in file order, cycling when
    /// there are more games than twice the openings.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["opening_plies", "still_royals"])]
    pub openings: Option<String>,
    /// Random opening plies never move a royal piece. For tai: its Emperor, which may go to any
    /// empty square, has most of the legal moves, so random plies scatter both Emperors and
    /// the first mover takes the other's at ply 5.
    #[arg(long)]
    pub still_royals: bool,
    /// Nodes / simulations per move (agents whose spec ends in @LIMITS keep their own).
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Milliseconds per move (agents whose spec ends in @LIMITS keep their own).
    #[arg(long)]
    pub movetime: Option<u64>,
}

/// What a run's settings record of its openings besides the random plies.
pub enum OpeningsRecord {
    /// Random plies, royals free to move: nothing more (as before the other two existed, so
    /// that earlier runs' parts still match).
    Random,
    /// Random plies that move no royal: `"still_royals": true`.
    StillRoyals,
    /// A file's openings: `"openings": {"file", "sha256", "count"}` in place of the random
    /// plies, which were not played.
    File(serde_json::Value),
}

impl OpeningsRecord {
    /// Add this record to a run's settings.
    pub fn add_to(self, settings: &mut serde_json::Value) {
        let Some(map) = settings.as_object_mut() else { return };
        match self {
            OpeningsRecord::Random => {}
            OpeningsRecord::StillRoyals => {
                map.insert("still_royals".into(), true.into());
            }
            OpeningsRecord::File(file) => {
                map.remove("opening_plies");
                map.insert("openings".into(), file);
            }
        }
    }
}

impl PlayArgs {
    /// The openings to play, and what the settings record of them.
    pub fn openings(&self, v: &Arc<Variant>) -> Result<(Openings, OpeningsRecord)> {
        let (plies, still_royals) = (self.opening_plies, self.still_royals);
        Ok(match &self.openings {
            Some(url) => {
                let file = read_openings(v, url)?;
                (Openings::Listed(file.list), OpeningsRecord::File(file.settings))
            }
            None if still_royals => {
                (Openings::Random { plies, still_royals }, OpeningsRecord::StillRoyals)
            }
            None => (Openings::random(plies), OpeningsRecord::Random),
        })
    }
}

fn parse_sprt(s: &str) -> Result<Sprt> {
    let (a, b) = s.split_once(',').context("--sprt: expected ELO0,ELO1")?;
    let e0: f64 = a.trim().parse().with_context(|| format!("--sprt: {a:?} is not a number"))?;
    let e1: f64 = b.trim().parse().with_context(|| format!("--sprt: {b:?} is not a number"))?;
    if !(e0.is_finite() && e1.is_finite()) || e0 == e1 {
        bail!("--sprt: ELO0 and ELO1 must be two different numbers");
    }
    Ok(Sprt::new(e0, e1, 0.05, 0.05))
}

pub(super) fn match_json(r: &MatchResult) -> serde_json::Value {
    serde_json::to_value(MatchRecord::of(r)).unwrap_or(serde_json::Value::Null)
}

pub(super) fn make_agent(spec: &str, v: &Arc<Variant>, seed: u64) -> Result<Box<dyn Agent>> {
    Ok(parse_agent_spec(spec, v, seed, &checkpoint_for_spec)?)
}

pub(super) fn print_game(g: &GameRecord, prefix: &str) {
    eprintln!("{prefix}{}", game_line(g));
}

/// The settings that make two runs the same match (recorded in every task's part).
fn match_settings(a: &MatchArgs, v: &str, openings: OpeningsRecord) -> serde_json::Value {
    let mut s = serde_json::json!({
        "variant": v, "a": a.a, "b": a.b, "games": a.games, "seed": a.play.seed,
        "max_plies": a.play.max_plies, "opening_plies": a.play.opening_plies,
        "nodes": a.play.nodes, "movetime": a.play.movetime,
    });
    add_options(&mut s, &a.variant.options);
    openings.add_to(&mut s);
    s
}

/// Record the variant options in a run's settings (none: no key, as before options existed, so
/// that the parts such runs stored still match).
pub(super) fn add_options(settings: &mut serde_json::Value, options: &[String]) {
    if !options.is_empty() {
        settings["options"] = serde_json::json!(options);
    }
}

/// Without task options, a folder that holds the task parts of this match gets their merged
/// record and games (nothing is played); false when it holds none.
fn merge_parts(
    out: &Store,
    settings: &serde_json::Value,
    variant: &str,
    json: bool,
) -> Result<bool> {
    let Some((record, games)) = match_tasks::merge(out, settings)? else {
        return Ok(false);
    };
    let record = record.with_settings(settings.clone());
    write_match_files(out, &record, &games, variant)?;
    println!("{} vs {}: {} (merged task parts)", record.a, record.b, record.summary_line());
    if json {
        println!("{}", serde_json::to_value(&record)?);
    }
    Ok(true)
}

/// `shogilab match`: merge stored task parts, replay a stored task, or play the match (a whole
/// one or one task's share) and report it.
pub fn run_match_cmd(a: MatchArgs) -> Result<()> {
    let v = a.variant.load()?;
    let out = a.result.out.as_deref().map(Store::open).transpose()?;
    let (openings, recorded) = a.play.openings(&v)?;
    let settings = match_settings(&a, &v.name, recorded);
    let task = a.result.task.task()?;
    if task.is_some() && (out.is_none() || a.sprt.is_some()) {
        bail!("--task-index needs --out (where the task's part goes) and no --sprt");
    }
    if let (Some(out), None) = (&out, task) {
        if merge_parts(out, &settings, &v.name, a.result.json)? {
            return Ok(());
        }
    }
    let line = task.map(TaskLine::start);
    if let (Some(out), Some(task), Some(line)) = (&out, task, &line) {
        if let Some((url, part)) = match_tasks::stored(out, task, &settings)? {
            line.print(part.indices.len(), 0, ("object", url.into()));
            return Ok(());
        }
    }
    let mut pa = make_agent(&a.a, &v, a.play.seed)?;
    let mut pb = make_agent(&a.b, &v, a.play.seed.wrapping_add(1))?;
    let cfg = MatchConfig {
        games: a.games,
        max_plies: a.play.max_plies,
        limits: Limits { nodes: a.play.nodes, movetime_ms: a.play.movetime },
        openings,
        seed: a.play.seed,
        sprt: a.sprt.as_deref().map(parse_sprt).transpose()?,
        task,
    };
    for agent in [&pa, &pb] {
        check_limits(agent.as_ref(), &cfg.limits, LimitSource::Match)?;
    }
    let r = run_match(pa.as_mut(), pb.as_mut(), &v, &cfg, &mut |g| print_game(g, ""))?;
    match (&out, task, &line) {
        (Some(out), Some(task), Some(line)) => {
            let url = match_tasks::write_part(out, task, &settings, &r)?;
            line.print(r.games.len(), r.games.len(), ("object", url.into()));
            Ok(())
        }
        _ => report_whole_match(&r, out.as_ref(), settings, &v.name, a.result.json),
    }
}

/// A whole match's result: printed, written under `--out` with its settings, and as JSON when
/// asked.
fn report_whole_match(
    r: &MatchResult,
    out: Option<&Store>,
    settings: serde_json::Value,
    variant: &str,
    json: bool,
) -> Result<()> {
    println!("{}", r.describe());
    if let Some(out) = out {
        let record = MatchRecord::of(r).with_settings(settings);
        write_match_files(out, &record, &GameLines::of(r), variant)?;
    }
    if json {
        println!("{}", match_json(r));
    }
    Ok(())
}
