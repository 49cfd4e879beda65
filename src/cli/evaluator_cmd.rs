//! `shogilab evaluator`: the searching engine's evaluator, trained as a loop.
//! * `init`: the starting table (material from mobility) as a `.psq` file;
//! * `datagen`: the engine plays itself with an evaluator and writes each position with its
//!   search score and the game's result (Parquet, resumable by shard);
//! * `fit`: tch fits the table to that data (held-out split by game, fitted logistic scale,
//!   target mixing score and result) and writes the next `.psq`.

use super::VariantArgs;
use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use shogilab_eval::search_agent::{load_evaluator, material};
use shogilab_pipeline::evaluator_loop::{run_loop, LoopConfig};
use shogilab_search::evaluator::file;
use shogilab_train::evaluator::data::{self, DataConfig, PlaySettings};
use shogilab_train::evaluator::fit::{self, FitConfig};
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Args)]
pub struct EvaluatorArgs {
    #[command(subcommand)]
    pub cmd: EvaluatorCmd,
}

#[derive(Subcommand)]
pub enum EvaluatorCmd {
    /// Write the starting evaluator: material from mobility, no positional terms.
    Init {
        #[command(flatten)]
        variant: VariantArgs,
        #[arg(long)]
        out: PathBuf,
    },
    /// Play the engine against itself and write positions scored by its search.
    Datagen(DatagenArgs),
    /// Fit the evaluator to scored positions with tch and write the next evaluator file.
    Fit(FitArgs),
    /// The whole loop from a config (datagen, fit, SPRT gate, generation after generation;
    /// resumes after a kill).
    Loop {
        /// The loop's TOML config (configs/evaluator/*.toml).
        #[arg(long)]
        config: PathBuf,
        /// The run folder.
        #[arg(long)]
        out: PathBuf,
        /// Worker threads of the data generation (default: every core).
        #[arg(long)]
        threads: Option<usize>,
    },
}

#[derive(Args)]
pub struct DatagenArgs {
    #[command(flatten)]
    pub variant: VariantArgs,
    /// Evaluator that searches: a .psq file, or `material`.
    #[arg(long, default_value = "material")]
    pub eval: String,
    /// Output folder (evaldata-*.parquet; shards already there are kept).
    #[arg(long)]
    pub out: PathBuf,
    #[arg(long, default_value_t = 200)]
    pub games: usize,
    #[arg(long, default_value_t = 20)]
    pub games_per_shard: usize,
    /// Nodes searched a move.
    #[arg(long, default_value_t = 5000)]
    pub nodes: u64,
    /// Uniformly random moves at the start of each game (opening variety).
    #[arg(long, default_value_t = 8)]
    pub random_plies: u32,
    #[arg(long, default_value_t = 500)]
    pub max_plies: u32,
    /// Adjudicate a win once the searches agree that one side is this far ahead (centipawns)...
    #[arg(long, default_value_t = 1000)]
    pub adjudicate_cp: i32,
    /// ... in this many consecutive plies.
    #[arg(long, default_value_t = 8)]
    pub adjudicate_plies: u32,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads (default: every core).
    #[arg(long)]
    pub threads: Option<usize>,
}

#[derive(Args)]
pub struct FitArgs {
    #[command(flatten)]
    pub variant: VariantArgs,
    /// Folders of evaldata-*.parquet files.
    #[arg(long, required = true, num_args = 1..)]
    pub data: Vec<PathBuf>,
    /// Starting weights: a .psq file, or `material`.
    #[arg(long, default_value = "material")]
    pub init: String,
    /// Evaluator file to write.
    #[arg(long)]
    pub out: PathBuf,
    #[arg(long, default_value_t = 30)]
    pub epochs: usize,
    #[arg(long, default_value_t = 1024)]
    pub batch: usize,
    /// Adam's learning rate, pawns a step.
    #[arg(long, default_value_t = 0.005)]
    pub lr: f64,
    /// Share of the search score in the target (the rest: the game's result).
    #[arg(long, default_value_t = 0.5)]
    pub lambda: f64,
    /// Share of the games held out.
    #[arg(long, default_value_t = 0.1)]
    pub holdout: f64,
    /// L2 penalty on the fitted rank and file terms (per pawn squared).
    #[arg(long, default_value_t = 1e-4)]
    pub l2: f64,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

pub fn run(a: EvaluatorArgs) -> Result<()> {
    match a.cmd {
        EvaluatorCmd::Init { variant, out } => {
            let v = variant.load()?;
            file::save(&material(&v), &out, "material: mobility values, royals floored")?;
            println!("wrote {}", out.display());
            Ok(())
        }
        EvaluatorCmd::Datagen(d) => datagen(d),
        EvaluatorCmd::Fit(f) => fit_cmd(f),
        EvaluatorCmd::Loop { config, out, threads } => {
            let text = std::fs::read_to_string(&config)
                .with_context(|| format!("reading {}", config.display()))?;
            let cfg: LoopConfig =
                toml::from_str(&text).with_context(|| format!("{}", config.display()))?;
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads.unwrap_or(0)).build()?;
            pool.install(|| run_loop(&cfg, &out, &mut |l| println!("{l}")))
                .map_err(|e| anyhow::anyhow!("{e}"))
        }
    }
}

fn datagen(a: DatagenArgs) -> Result<()> {
    let v = a.variant.load()?;
    let psq = load_evaluator(&v, &a.eval).map_err(anyhow::Error::msg)?;
    if a.games == 0 || a.nodes == 0 {
        bail!("--games and --nodes must be at least 1");
    }
    let cfg = DataConfig {
        variant: v.name.clone(),
        evaluator: a.eval.clone(),
        play: PlaySettings {
            games: a.games,
            games_per_shard: a.games_per_shard.max(1),
            nodes: a.nodes,
            random_plies: a.random_plies,
            max_plies: a.max_plies,
            adjudicate_cp: a.adjudicate_cp,
            adjudicate_plies: a.adjudicate_plies,
        },
        seed: a.seed,
    };
    let bar = ProgressBar::new(a.games as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games {elapsed} eta {eta}")
            .expect("a template"),
    );
    let pool = rayon::ThreadPoolBuilder::new().num_threads(a.threads.unwrap_or(0)).build()?;
    let written =
        pool.install(|| data::generate(&v, Arc::new(psq), &cfg, &a.out, &|n| bar.inc(n as u64)))?;
    bar.finish();
    println!("{} new files in {}", written.len(), a.out.display());
    Ok(())
}

fn fit_cmd(a: FitArgs) -> Result<()> {
    let v = a.variant.load()?;
    let start = load_evaluator(&v, &a.init).map_err(anyhow::Error::msg)?;
    if !(0.0..=1.0).contains(&a.lambda) || !(0.0..1.0).contains(&a.holdout) {
        bail!("--lambda must be in [0, 1] and --holdout in [0, 1)");
    }
    let mut samples = Vec::new();
    for d in &a.data {
        samples.extend(data::read(d, &v).with_context(|| format!("reading {}", d.display()))?);
    }
    let cfg = FitConfig {
        epochs: a.epochs,
        batch: a.batch,
        lr: a.lr,
        lambda: a.lambda,
        holdout: a.holdout,
        l2: a.l2,
    };
    println!("{} positions", samples.len());
    let (psq, report) = fit::fit(&start, &samples, &cfg, a.seed, &mut |e, t, h| {
        println!("epoch {e:3}  train {t:.5}  held-out {h:.5}")
    })
    .map_err(anyhow::Error::msg)?;
    let dirs: Vec<String> = a.data.iter().map(|d| d.display().to_string()).collect();
    let source = format!(
        "fit to {} positions of {} from {} (lambda {}, scale {:.0} cp/logit, held-out loss {:.5} -> {:.5} at epoch {})",
        report.train_positions, dirs.join(" "), a.init, a.lambda, report.scale, report.holdout_loss[0], report.holdout_loss[report.best_epoch], report.best_epoch
    );
    file::save(&psq, &a.out, &source)?;
    println!(
        "scale {:.0} cp/logit; held-out loss {:.5} (start) -> {:.5} (epoch {})",
        report.scale,
        report.holdout_loss[0],
        report.holdout_loss[report.best_epoch],
        report.best_epoch
    );
    println!("wrote {}", a.out.display());
    Ok(())
}
