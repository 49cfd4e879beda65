//! `shogilab pipeline`: generations of self-play -> training -> evaluation of the new network
//! against the previous one, in one run directory. Every stage writes its outputs atomically and
//! is skipped when they exist, so re-running the same command continues where it stopped.
//!
//! Layout: `selfplay/gen-G/` (Parquet shards), `models/gen-G.ot` (+ `.json`, `.csv`),
//! `eval/gen-G/` (match against the previous generation), `run.toml` (the resolved settings),
//! `report.md`.

use super::matchcmd::{run_match_cmd, MatchArgs, PlayArgs};
use super::selfplay_cmd::{self, SelfplayArgs};
use super::train_cmd::{self, TrainArgs};
use super::{write_atomic, VariantArgs};
use anyhow::{bail, Result};
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Clone)]
pub struct PipelineArgs {
    #[command(flatten)]
    pub variant: VariantArgs,
    /// Run directory.
    #[arg(long)]
    pub out: PathBuf,
    #[arg(long, default_value_t = 3)]
    pub generations: u32,
    /// Self-play games per generation.
    #[arg(long, default_value_t = 48)]
    pub games: u64,
    #[arg(long, default_value_t = 16)]
    pub shard_games: u64,
    #[arg(long, default_value_t = 16)]
    pub simulations: u32,
    #[arg(long, default_value_t = 32)]
    pub concurrent: usize,
    #[arg(long, default_value_t = 300)]
    pub max_plies: u32,
    /// Training steps per generation.
    #[arg(long, default_value_t = 200)]
    pub steps: u64,
    #[arg(long, default_value_t = 128)]
    pub batch_size: usize,
    /// Generations of data trained on.
    #[arg(long, default_value_t = 3)]
    pub window: u32,
    /// Network preset.
    #[arg(long, default_value = "tiny")]
    pub preset: String,
    /// Evaluation games of each new network against the previous one.
    #[arg(long, default_value_t = 10)]
    pub eval_games: usize,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

pub fn run(a: PipelineArgs) -> Result<()> {
    if a.generations == 0 || a.window == 0 {
        bail!("--generations and --window must be at least 1");
    }
    let v = a.variant.load()?;
    std::fs::create_dir_all(&a.out)?;
    let settings = format!(
        "# shogilab pipeline, resolved settings\nvariant = {:?}\noptions = {:?}\nseed = {}\ngenerations = {}\ngames = {}\nshard_games = {}\nsimulations = {}\nconcurrent = {}\nmax_plies = {}\nsteps = {}\nbatch_size = {}\nwindow = {}\npreset = {:?}\neval_games = {}\n",
        v.name, a.variant.options, a.seed, a.generations, a.games, a.shard_games, a.simulations, a.concurrent,
        a.max_plies, a.steps, a.batch_size, a.window, a.preset, a.eval_games
    );
    write_atomic(&a.out.join("run.toml"), settings.as_bytes())?;
    let model = |g: u32| a.out.join(format!("models/gen-{g:04}.ot"));
    let mut report = format!("# Pipeline run: {}\n\n| generation | self-play evaluator | new model | vs previous |\n|---|---|---|---|\n", v.name);
    for g in 0..a.generations {
        let evaluator = if g == 0 { "uniform".to_string() } else { model(g).display().to_string() };
        eprintln!("== generation {g}: self-play with {evaluator}");
        selfplay_cmd::run(SelfplayArgs {
            variant: a.variant.clone(),
            out: a.out.join(format!("selfplay/gen-{g:04}")),
            games: a.games,
            shard_games: a.shard_games,
            seed: a.seed.wrapping_add(g as u64 * 1_000_003),
            evaluator: evaluator.clone(),
            simulations: a.simulations,
            concurrent: a.concurrent,
            max_plies: a.max_plies,
            generation: g,
        })?;
        let next = model(g + 1);
        if !next.exists() {
            eprintln!("== generation {g}: training {}", next.display());
            let first = (g + 1).saturating_sub(a.window);
            train_cmd::run(TrainArgs {
                variant: a.variant.clone(),
                data: (first..=g).map(|k| a.out.join(format!("selfplay/gen-{k:04}"))).collect(),
                out: next.clone(),
                init: (g > 0).then(|| model(g)),
                preset: a.preset.clone(),
                steps: a.steps,
                batch_size: a.batch_size,
                learning_rate: 0.002,
                seed: a.seed.wrapping_add(g as u64),
            })?;
        }
        let eval_dir = a.out.join(format!("eval/gen-{:04}", g + 1));
        let prev = if g == 0 { "uniform".to_string() } else { model(g).display().to_string() };
        if a.eval_games > 0 && !eval_dir.join("match.md").exists() {
            eprintln!("== generation {g}: new network against {prev}");
            run_match_cmd(MatchArgs {
                variant: a.variant.clone(),
                a: format!("mcts:{}:{}", next.display(), a.simulations),
                b: format!("mcts:{prev}:{}", a.simulations),
                games: a.eval_games,
                play: PlayArgs {
                    seed: a.seed,
                    max_plies: a.max_plies,
                    opening_plies: 4,
                    nodes: None,
                    movetime: None,
                },
                sprt: None,
                out: Some(eval_dir.clone()),
                json: false,
            })?;
        }
        let summary = std::fs::read_to_string(eval_dir.join("match.md"))
            .ok()
            .and_then(|t| t.lines().find(|l| l.contains("score")).map(str::to_string))
            .unwrap_or_default();
        report.push_str(&format!(
            "| {g} | {evaluator} | {} | {} |\n",
            next.display(),
            summary.replace('|', "/")
        ));
    }
    write_atomic(&a.out.join("report.md"), report.as_bytes())?;
    println!("{}", report);
    Ok(())
}
