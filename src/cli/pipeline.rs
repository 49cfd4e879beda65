//! `shogilab pipeline`: generations of self-play -> training -> evaluation of the new network
//! against the previous one, in one resumable run directory (`shogilab_pipeline::run` has the
//! layout and the resume rules; `config.rs` the configuration layers).

use super::VariantArgs;
use anyhow::Result;
use clap::Args;
use shogilab_pipeline::run_pipeline;
use std::path::PathBuf;

#[derive(Args, Clone)]
pub struct PipelineArgs {
    #[command(flatten)]
    pub variant: VariantArgs,
    /// Run directory.
    #[arg(long)]
    pub out: PathBuf,
    /// Commented TOML configuration (e.g. configs/pipeline/quickstart.toml); built-in defaults
    /// otherwise.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Override one configuration key, KEY=VALUE with a dotted key (repeatable), e.g.
    /// `--set selfplay.search.simulations=64 --set train.learning_rate=0.001`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Shortcut for `--set generations=G`.
    #[arg(long)]
    pub generations: Option<u32>,
    /// Shortcut for `--set games=N` (self-play games per generation).
    #[arg(long)]
    pub games: Option<u64>,
    /// Shortcut for `--set selfplay.search.simulations=N`.
    #[arg(long)]
    pub simulations: Option<u32>,
    /// Shortcut for `--set steps=N` (training steps per generation).
    #[arg(long)]
    pub steps: Option<u64>,
    /// Shortcut for `--set preset=NAME`.
    #[arg(long)]
    pub preset: Option<String>,
    /// Shortcut for `--set eval.games=N`.
    #[arg(long)]
    pub eval_games: Option<usize>,
    /// Shortcut for `--set seed=S`.
    #[arg(long)]
    pub seed: Option<u64>,
}

pub fn run(a: PipelineArgs) -> Result<()> {
    let cfg = super::config::resolve(
        a.config.as_deref(),
        &[
            ("generations", a.generations.map(|x| x.to_string())),
            ("games", a.games.map(|x| x.to_string())),
            ("selfplay.search.simulations", a.simulations.map(|x| x.to_string())),
            ("steps", a.steps.map(|x| x.to_string())),
            ("preset", a.preset.as_ref().map(|x| format!("{x:?}"))),
            ("eval.games", a.eval_games.map(|x| x.to_string())),
            ("seed", a.seed.map(|x| x.to_string())),
        ],
        &a.set,
    )?;
    let v = a.variant.load()?;
    let report = run_pipeline(&v, &a.variant.options, &cfg, &a.out)?;
    println!("{}", report.markdown());
    Ok(())
}
