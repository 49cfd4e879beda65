//! `shogilab gauntlet`: a round robin (or, with `--gauntlet`, the first agent against each
//! other one) with one maximum-likelihood Elo table, the first agent at 0. With `--out URL` (a
//! folder or s3://bucket/prefix) it writes `games.txt`, `games.jsonl`, `elo.json` and `elo.md`.
//! With `--task-index I --task-count N` it plays only its share of every pairing and stores it
//! under `--out` (`shogilab_eval::gauntlet_tasks`); the same command without the task options
//! then merges the parts into the table and files of the whole gauntlet.

use super::matchcmd::{make_agent, match_json, print_game, OpeningsRecord, PlayArgs};
use super::VariantArgs;
use anyhow::{bail, Result};
use clap::Args;
use shogilab_cli::engine_cmds::task_args::{ResultArgs, TaskLine};
use shogilab_engine::Variant;
use shogilab_eval::agent::{check_limits, Agent, LimitSource, Limits};
use shogilab_eval::gauntlet::{plan, table_markdown};
use shogilab_eval::gauntlet_tasks::{self, pair_settings, pair_store, Merged};
use shogilab_eval::match_tasks;
use shogilab_eval::r#match::{run_match, MatchConfig};
use shogilab_eval::record::game_json;
use shogilab_eval::{run_gauntlet, GauntletConfig, GauntletMode, Openings};
use shogilab_store::{Store, Task};
use std::sync::Arc;

#[derive(Args)]
pub struct GauntletArgs {
    #[command(flatten)]
    pub variant: VariantArgs,
    /// An agent (repeat; at least two). The first is the anchor (Elo 0). A spec ending in
    /// @nodes=N,movetime=MS plays at those limits, so agents at different limits share a table.
    #[arg(long = "agent", value_name = "SPEC", required = true)]
    pub agents: Vec<String>,
    /// Games per pair.
    #[arg(long, default_value_t = 2)]
    pub games_per_pair: usize,
    /// Only the first agent against each other one (default: every pair).
    #[arg(long)]
    pub gauntlet: bool,
    #[command(flatten)]
    pub play: PlayArgs,
    #[command(flatten)]
    pub result: ResultArgs,
}

/// The settings that make two runs the same gauntlet (recorded in every part).
fn settings(a: &GauntletArgs, variant: &str, openings: OpeningsRecord) -> serde_json::Value {
    let mut s = serde_json::json!({
        "variant": variant, "agents": a.agents, "games_per_pair": a.games_per_pair,
        "gauntlet": a.gauntlet, "seed": a.play.seed, "max_plies": a.play.max_plies,
        "opening_plies": a.play.opening_plies, "nodes": a.play.nodes, "movetime": a.play.movetime,
    });
    super::matchcmd::add_options(&mut s, &a.variant.options);
    openings.add_to(&mut s);
    s
}

fn config(a: &GauntletArgs, openings: Openings) -> GauntletConfig {
    GauntletConfig {
        mode: if a.gauntlet { GauntletMode::Gauntlet } else { GauntletMode::RoundRobin },
        per_pair: MatchConfig {
            games: a.games_per_pair,
            max_plies: a.play.max_plies,
            limits: Limits { nodes: a.play.nodes, movetime_ms: a.play.movetime },
            openings,
            seed: a.play.seed,
            sprt: None,
            task: None,
        },
    }
}

fn agents(a: &GauntletArgs, v: &Arc<Variant>, limits: &Limits) -> Result<Vec<Box<dyn Agent>>> {
    let agents = (a.agents.iter().enumerate())
        .map(|(i, s)| make_agent(s, v, a.play.seed.wrapping_add(i as u64 * 101)))
        .collect::<Result<Vec<_>>>()?;
    for agent in &agents {
        check_limits(agent.as_ref(), limits, LimitSource::Match)?;
    }
    Ok(agents)
}

pub fn run(a: GauntletArgs) -> Result<()> {
    if a.agents.len() < 2 {
        bail!("a gauntlet needs at least two --agent");
    }
    let v = a.variant.load()?;
    let out = a.result.out.as_deref().map(Store::open).transpose()?;
    let (openings, recorded) = a.play.openings(&v)?;
    let (cfg, settings) = (config(&a, openings), settings(&a, &v.name, recorded));
    let pairs: Vec<(usize, usize)> =
        plan(a.agents.len(), &cfg).iter().map(|(i, j, _)| (*i, *j)).collect();
    match (a.result.task.task()?, &out) {
        (Some(_), None) => bail!("--task-index needs --out (where the task's parts go)"),
        (Some(task), Some(out)) => return play_task(&a, &v, &cfg, &settings, task, out),
        (None, Some(out)) => {
            if let Some(m) = gauntlet_tasks::merge(out, &a.agents, &pairs, &settings)? {
                return finish(&a, &v.name, out, merged_output(&a, m));
            }
        }
        (None, None) => {}
    }
    let mut agents = agents(&a, &v, &cfg.per_pair.limits)?;
    let (mut jl, mut lines) = (Vec::new(), Vec::new());
    let r = run_gauntlet(&mut agents, &v, &cfg, &mut |i, j, g| {
        print_game(g, &format!("[{i}-{j}] "));
        jl.push(game_json(g, Some((i, j))));
        lines.push(g.result.replay_line());
    })?;
    for (_, _, m) in &r.matches {
        println!("{}", m.describe());
    }
    let matches = r.matches.iter().map(|(i, j, m)| (*i, *j, match_json(m))).collect();
    let output =
        Output { md: r.markdown(), table: r.table, regularized: r.regularized, matches, jl, lines };
    match &out {
        Some(out) => finish(&a, &v.name, out, output),
        None => {
            print_output(&a, &v.name, &output);
            Ok(())
        }
    }
}

/// Task `task`'s share of every pairing, each stored as that pairing's part; pairings stored
/// by an earlier attempt are skipped. Prints the task's JSON line.
fn play_task(
    a: &GauntletArgs,
    v: &Arc<Variant>,
    cfg: &GauntletConfig,
    settings: &serde_json::Value,
    task: Task,
    out: &Store,
) -> Result<()> {
    let line = TaskLine::start(task);
    let mut agents = agents(a, v, &cfg.per_pair.limits)?;
    let (mut games, mut played) = (0, 0);
    for (k, (i, j, mut mc)) in plan(agents.len(), cfg).into_iter().enumerate() {
        let at = pair_store(out, k)?;
        let s = pair_settings(settings, k, &a.agents[i], &a.agents[j]);
        if let Some((_, part)) = match_tasks::stored(&at, task, &s)? {
            games += part.indices.len();
            continue;
        }
        mc.task = Some(task);
        let (lo, hi) = agents.split_at_mut(j);
        let prefix = format!("[{i}-{j}] ");
        let r = run_match(lo[i].as_mut(), hi[0].as_mut(), v, &mc, &mut |g| print_game(g, &prefix))?;
        match_tasks::write_part(&at, task, &s, &r)?;
        (games, played) = (games + r.games.len(), played + r.games.len());
    }
    line.print(games, played, ("object", out.url().into()));
    Ok(())
}

/// What a gauntlet writes and prints, played or merged.
struct Output {
    md: String,
    table: Vec<shogilab_eval::EloRow>,
    regularized: bool,
    /// Per pairing (i, j, its match record as JSON).
    matches: Vec<(usize, usize, serde_json::Value)>,
    /// Per game: its JSON object and its `replay` line.
    jl: Vec<serde_json::Value>,
    lines: Vec<String>,
}

fn merged_output(a: &GauntletArgs, m: Merged) -> Output {
    let md = table_markdown(&m.table, &a.agents[0], m.regularized);
    let (mut jl, mut lines, mut matches) = (Vec::new(), Vec::new(), Vec::new());
    for p in m.pairs {
        println!(
            "{} vs {}: {} (merged task parts)",
            p.record.a,
            p.record.b,
            p.record.summary_line()
        );
        matches.push((p.i, p.j, serde_json::to_value(&p.record).unwrap_or_default()));
        jl.extend(p.games.json);
        lines.extend(p.games.replay);
    }
    Output { md, table: m.table, regularized: m.regularized, matches, jl, lines }
}

fn summary_json(a: &GauntletArgs, variant: &str, o: &Output) -> serde_json::Value {
    serde_json::json!({
        "variant": variant,
        "anchor": a.agents[0],
        "regularized": o.regularized,
        "table": o.table,
        "matches": o.matches.iter().map(|(i, j, m)| serde_json::json!({
            "i": i, "j": j, "result": m })).collect::<Vec<_>>(),
    })
}

fn print_output(a: &GauntletArgs, variant: &str, o: &Output) {
    println!("\n{}", o.md);
    if a.result.json {
        println!("{}", summary_json(a, variant, o));
    }
}

/// Write the gauntlet's files to `out` (each object whole), then print.
fn finish(a: &GauntletArgs, variant: &str, out: &Store, o: Output) -> Result<()> {
    let lines = |v: &[String]| v.iter().map(|l| format!("{l}\n")).collect::<String>();
    out.put("games.txt", lines(&o.lines).into_bytes())?;
    let jl: String = o.jl.iter().map(|j| format!("{j}\n")).collect();
    out.put("games.jsonl", jl.into_bytes())?;
    let j = summary_json(a, variant, &o);
    out.put("elo.json", serde_json::to_string_pretty(&j)?.into_bytes())?;
    out.put("elo.md", o.md.as_bytes().to_vec())?;
    print_output(a, variant, &o);
    Ok(())
}
