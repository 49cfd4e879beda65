//! `shogilab selfplay`: play self-play games with a chosen evaluator and write Parquet shards.
//! Re-running the same command resumes: complete shards are kept and skipped.

use super::{write_atomic, VariantArgs};
use anyhow::{bail, Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use shogilab_engine::Variant;
use shogilab_selfplay::encode::Encoder;
use shogilab_selfplay::{dataset, play_games, Evaluator, Material, SelfplayConfig, Uniform};
use shogilab_train::{checkpoint, TchEvaluator};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

#[derive(Args)]
pub struct SelfplayArgs {
    #[command(flatten)]
    pub variant: VariantArgs,
    /// Output folder (one generation of shards).
    #[arg(long)]
    pub out: PathBuf,
    /// Number of games.
    #[arg(long, default_value_t = 32)]
    pub games: u64,
    /// Games per shard (the unit of resumption).
    #[arg(long, default_value_t = 16)]
    pub shard_games: u64,
    /// Run seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Evaluator: uniform, material (mobility values), material=TABLE.toml (a value table such
    /// as configs/values/chu-gcsa.toml), or a checkpoint path (.ot).
    #[arg(long, default_value = "uniform")]
    pub evaluator: String,
    /// Simulations per move.
    #[arg(long, default_value_t = 16)]
    pub simulations: u32,
    /// Games in flight (batch size).
    #[arg(long, default_value_t = 32)]
    pub concurrent: usize,
    /// Ply cap.
    #[arg(long, default_value_t = 300)]
    pub max_plies: u32,
    /// Generation number recorded in the data.
    #[arg(long, default_value_t = 0)]
    pub generation: u32,
}

/// Build an evaluator from its name.
pub fn make_evaluator(name: &str, v: &Arc<shogilab_engine::Variant>) -> Result<Box<dyn Evaluator>> {
    if let Some(m) = Material::from_name(v, name) {
        return Ok(Box::new(m.map_err(|e| anyhow::anyhow!("--evaluator {name:?}: {e}"))?));
    }
    Ok(match name {
        "uniform" => Box::new(Uniform),
        path if path.ends_with(".ot") => {
            let enc = Encoder::new(v.clone());
            let (vs, net, meta) =
                checkpoint::load(Path::new(path), &enc, shogilab_train::default_device())?;
            Box::new(TchEvaluator::new(vs, net, enc, meta.model_id))
        }
        o => bail!(
            "--evaluator {o:?}: expected uniform, material, material=TABLE.toml or a checkpoint \
             path ending in .ot"
        ),
    })
}

/// One self-play stage: what `shogilab selfplay` runs, and what the pipeline runs per generation.
pub struct SelfplayJob {
    pub out: PathBuf,
    pub games: u64,
    pub shard_games: u64,
    pub seed: u64,
    pub evaluator: String,
    pub generation: u32,
    pub cfg: SelfplayConfig,
}

pub fn run(a: SelfplayArgs) -> Result<()> {
    let v = a.variant.load()?;
    let mut cfg =
        SelfplayConfig { concurrent: a.concurrent, max_plies: a.max_plies, ..Default::default() };
    cfg.search.simulations = a.simulations;
    run_job(
        &v,
        &SelfplayJob {
            out: a.out,
            games: a.games,
            shard_games: a.shard_games,
            seed: a.seed,
            evaluator: a.evaluator,
            generation: a.generation,
            cfg,
        },
    )
}

/// Play the job's games shard by shard; complete shards on disk are kept and skipped.
pub fn run_job(v: &Arc<Variant>, a: &SelfplayJob) -> Result<()> {
    if a.games == 0 || a.shard_games == 0 {
        bail!("--games and --shard-games must be at least 1");
    }
    let cfg = &a.cfg;
    cfg.validate().map_err(anyhow::Error::msg)?;
    let ev = make_evaluator(&a.evaluator, v)?;
    std::fs::create_dir_all(&a.out).with_context(|| format!("creating {}", a.out.display()))?;
    let resolved = format!(
        "# shogilab selfplay, fully resolved\nvariant = {:?}\nseed = {}\ngames = {}\nshard_games = {}\nevaluator = {:?}\ngeneration = {}\n\n[selfplay]\n{}",
        v.name,
        a.seed,
        a.games,
        a.shard_games,
        ev.id(),
        a.generation,
        toml::to_string(cfg).unwrap_or_default()
    );
    write_atomic(&a.out.join("selfplay.toml"), resolved.as_bytes())?;
    write_atomic(&a.out.join("variant.toml"), v.spec_toml().as_bytes())?;
    let shards = a.games.div_ceil(a.shard_games);
    let bar = ProgressBar::new(a.games);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} games {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let t0 = Instant::now();
    let (mut plies, mut evals) = (0u64, 0u64);
    for shard in 0..shards {
        let first = shard * a.shard_games;
        let count = a.shard_games.min(a.games - first);
        if a.out.join(format!("positions-{shard:05}.parquet")).exists() {
            bar.inc(count);
            continue;
        }
        let mut games = Vec::new();
        let done_before = bar.position();
        play_games(
            v,
            cfg,
            ev.as_ref(),
            a.seed,
            first,
            count,
            |g| games.push(g),
            |p| {
                bar.set_position(done_before + p.games_done as u64);
                let s = t0.elapsed().as_secs_f64().max(1e-9);
                bar.set_message(format!(
                    "{:.0} plies/s, {:.0} evals/s, batch {:.1}",
                    (plies + p.plies) as f64 / s,
                    (evals + p.evals) as f64 / s,
                    p.mean_batch()
                ));
                if p.games_done == p.games_total {
                    plies += p.plies;
                    evals += p.evals;
                }
            },
        );
        games.sort_by_key(|g| g.game_index);
        dataset::write_shard(
            &a.out,
            shard as u32,
            &games,
            &v.name,
            a.generation,
            &ev.id(),
            cfg.search.simulations,
        )?;
    }
    bar.finish();
    println!("{} games in {} shards under {}", a.games, shards, a.out.display());
    Ok(())
}
