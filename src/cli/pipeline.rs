//! `shogilab pipeline`: generations of self-play -> training -> evaluation of the new network
//! against the previous one, in one run directory. Every stage writes its outputs atomically and
//! is skipped when they exist, so re-running the same command continues where it stopped.
//!
//! Layout: `selfplay/gen-G/` (Parquet shards), `models/gen-G.ot` (+ `.json`, `.csv`),
//! `eval/gen-G/` (match against the previous generation), `run.toml` (the resolved settings,
//! see `config.rs`), `loss.png` (training loss over all generations),
//! `report.md`.

use super::config::{self, Layer, PipelineConfig};
use super::matchcmd::{run_match_cmd, MatchArgs, PlayArgs};
use super::selfplay_cmd::{self, SelfplayJob};
use super::train_cmd::{self, TrainJob};
use super::{write_atomic, VariantArgs};
use anyhow::{bail, Context, Result};
use clap::Args;
use std::path::{Path, PathBuf};

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

impl PipelineArgs {
    /// Defaults < --config file < shortcuts < --set.
    pub fn resolve(&self) -> Result<PipelineConfig> {
        let mut layers = Vec::new();
        if let Some(f) = &self.config {
            layers.push(Layer::file(f)?);
        }
        let mut shortcuts = Vec::new();
        let mut short = |key: &str, v: Option<String>| {
            if let Some(v) = v {
                shortcuts.push(format!("{key}={v}"));
            }
        };
        short("generations", self.generations.map(|x| x.to_string()));
        short("games", self.games.map(|x| x.to_string()));
        short("selfplay.search.simulations", self.simulations.map(|x| x.to_string()));
        short("steps", self.steps.map(|x| x.to_string()));
        short("preset", self.preset.as_ref().map(|x| format!("{x:?}")));
        short("eval.games", self.eval_games.map(|x| x.to_string()));
        short("seed", self.seed.map(|x| x.to_string()));
        layers.push(Layer::assignments("command-line option", &shortcuts)?);
        layers.push(Layer::assignments("--set", &self.set)?);
        config::resolve(&layers)
    }
}

/// The resolved settings of a run, as `run.toml` records them.
fn run_toml(variant: &str, options: &[String], cfg: &PipelineConfig) -> String {
    format!(
        "# shogilab pipeline: the fully resolved settings of this run (re-running with other\n\
         # settings is refused, except a larger `generations`).\n\
         variant = {variant:?}\noptions = {options:?}\n\n{}",
        cfg.to_toml()
    )
}

/// Refuse to continue a run that was started with different settings.
fn check_resume(path: &Path, fresh: &str) -> Result<()> {
    let Ok(old) = std::fs::read_to_string(path) else { return Ok(()) };
    let parse = |t: &str| -> Result<toml::Table> {
        let mut t: toml::Table =
            toml::from_str(t).with_context(|| format!("{}: not valid TOML", path.display()))?;
        t.remove("generations");
        Ok(t)
    };
    let (old_t, new_t) = (parse(&old)?, parse(fresh)?);
    if old_t != new_t {
        let diff: Vec<String> = new_t
            .iter()
            .filter(|(k, v)| old_t.get(*k) != Some(*v))
            .map(|(k, _)| k.clone())
            .chain(old_t.keys().filter(|k| !new_t.contains_key(*k)).cloned())
            .collect();
        bail!(
            "{} records other settings (differing: {}); continue with the same settings \
             (only `generations` may grow) or choose a new --out",
            path.display(),
            diff.join(", ")
        );
    }
    Ok(())
}

pub fn run(a: PipelineArgs) -> Result<()> {
    let cfg = a.resolve()?;
    let v = a.variant.load()?;
    std::fs::create_dir_all(&a.out).with_context(|| format!("creating {}", a.out.display()))?;
    let settings = run_toml(&v.name, &a.variant.options, &cfg);
    check_resume(&a.out.join("run.toml"), &settings)?;
    write_atomic(&a.out.join("run.toml"), settings.as_bytes())?;
    let model = |g: u32| a.out.join(format!("models/gen-{g:04}.ot"));
    let mut report = format!("# Pipeline run: {}\n\n| generation | self-play evaluator | new model | vs previous |\n|---|---|---|---|\n", v.name);
    for g in 0..cfg.generations {
        let evaluator = if g == 0 { "uniform".to_string() } else { model(g).display().to_string() };
        eprintln!("== generation {g}: self-play with {evaluator}");
        selfplay_cmd::run_job(
            &v,
            &SelfplayJob {
                out: a.out.join(format!("selfplay/gen-{g:04}")),
                games: cfg.games,
                shard_games: cfg.shard_games,
                seed: cfg.seed.wrapping_add(g as u64 * 1_000_003),
                evaluator: evaluator.clone(),
                generation: g,
                cfg: cfg.selfplay.clone(),
            },
        )?;
        let next = model(g + 1);
        if !next.exists() {
            eprintln!("== generation {g}: training {}", next.display());
            let first = (g + 1).saturating_sub(cfg.train.window);
            train_cmd::run_job(
                &v,
                TrainJob {
                    data: (first..=g).map(|k| a.out.join(format!("selfplay/gen-{k:04}"))).collect(),
                    out: next.clone(),
                    init: (g > 0).then(|| model(g)),
                    preset: cfg.preset.clone(),
                    steps: cfg.steps,
                    seed: cfg.seed.wrapping_add(g as u64),
                    cfg: cfg.train.clone(),
                },
            )?;
        }
        let csvs: Vec<PathBuf> = (1..=g + 1).map(|k| model(k).with_extension("csv")).collect();
        train_cmd::loss_chart(&csvs, &a.out.join("loss.png"))?;
        let eval_dir = a.out.join(format!("eval/gen-{:04}", g + 1));
        let prev = if g == 0 { "uniform".to_string() } else { model(g).display().to_string() };
        let sims = cfg.eval_simulations();
        if cfg.eval.games > 0 && !eval_dir.join("match.md").exists() {
            eprintln!("== generation {g}: new network against {prev}");
            run_match_cmd(MatchArgs {
                variant: a.variant.clone(),
                a: format!("mcts:{}:{sims}", next.display()),
                b: format!("mcts:{prev}:{sims}"),
                games: cfg.eval.games,
                play: PlayArgs {
                    seed: cfg.seed,
                    max_plies: cfg.selfplay.max_plies,
                    opening_plies: cfg.eval.opening_plies,
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
    report.push_str("\nTraining loss over all generations: loss.png. Settings: run.toml.\n");
    write_atomic(&a.out.join("report.md"), report.as_bytes())?;
    println!("{}", report);
    Ok(())
}
