//! `shogilab train`: train a network on self-play Parquet shards and write a checkpoint
//! (`.ot` + `.json`), a metrics CSV and a loss chart beside it (`shogilab_pipeline::train`).
//! `--init` continues from a checkpoint.

use super::VariantArgs;
use anyhow::Result;
use clap::Args;
use shogilab_pipeline::{run_train, TrainJob};
use shogilab_store::{cache, Store};
use shogilab_train::schedule::LrSchedule;
use shogilab_train::trainer::TrainConfig;
use std::path::PathBuf;

#[derive(Args)]
pub struct TrainArgs {
    #[command(flatten)]
    pub variant: VariantArgs,
    /// Folders (or files) of positions-*.parquet shards, or bucket locations
    /// (s3://bucket/run/selfplay/gen-0003) whose shards are scanned where they are stored (no
    /// local copy).
    #[arg(long, required = true, num_args = 1..)]
    pub data: Vec<String>,
    /// Checkpoint to write (.ot; a .json sidecar and a .csv of metrics go beside it).
    #[arg(long)]
    pub out: PathBuf,
    /// Start from this checkpoint instead of a fresh network (a path, or the URL of a
    /// published checkpoint, fetched once per machine).
    #[arg(long)]
    pub init: Option<String>,
    /// Also store the new checkpoint in this location under its content hash
    /// (<sha256>.ot + .json) and print its URL, for workers to fetch.
    #[arg(long, value_name = "URL")]
    pub publish: Option<String>,
    /// Network preset for a fresh network: tiny, small, medium, large.
    #[arg(long, default_value = "tiny")]
    pub preset: String,
    /// Optimisation steps.
    #[arg(long, default_value_t = 200)]
    pub steps: u64,
    #[arg(long, default_value_t = 128)]
    pub batch_size: usize,
    #[arg(long, default_value_t = 0.002)]
    pub learning_rate: f64,
    /// Learning-rate schedule after the warm-up: constant or cosine.
    #[arg(long, default_value = "constant")]
    pub lr_schedule: LrSchedule,
    /// Steps of linear warm-up (in the network's total steps).
    #[arg(long, default_value_t = 0)]
    pub warmup_steps: u64,
    /// Network step where the cosine reaches its floor (a run trained in chunks with --init
    /// gives its total here); 0: the end of this run.
    #[arg(long, default_value_t = 0)]
    pub schedule_steps: u64,
    /// Share of the search value in the value target (the rest is the game result).
    #[arg(long, default_value_t = 0.0)]
    pub value_mix: f64,
    /// Percent of games held out to measure the losses and the policy accuracy on.
    #[arg(long, default_value_t = 5.0)]
    pub validation_percent: f64,
    /// Share of the positions read from the shards, in (0, 1]: a sample of rows drawn with
    /// --seed, filtered while scanning so that memory holds only the sample.
    #[arg(long, default_value_t = 1.0)]
    pub sample_fraction: f64,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

pub fn run(a: TrainArgs) -> Result<()> {
    let v = a.variant.load()?;
    let cfg = TrainConfig {
        batch_size: a.batch_size,
        learning_rate: a.learning_rate,
        lr_schedule: a.lr_schedule,
        warmup_steps: a.warmup_steps,
        schedule_steps: a.schedule_steps,
        value_mix: a.value_mix,
        validation_percent: a.validation_percent,
        sample_fraction: a.sample_fraction,
        ..Default::default()
    };
    let publish = a.publish.as_deref().map(Store::open).transpose()?;
    let init = a.init.as_deref().map(|u| cache::fetch(u, "json")).transpose()?;
    let job = TrainJob {
        data: a.data,
        out: a.out,
        init,
        preset: a.preset,
        steps: a.steps,
        seed: a.seed,
        cfg,
    };
    let s = run_train(&v, &job)?;
    println!(
        "trained {} steps on {} positions ({} files) on {}: {} (loss {:.3}, {:.0} samples/s)",
        s.steps,
        s.positions,
        s.files,
        s.device,
        s.checkpoint.display(),
        s.last.total,
        s.samples_per_second
    );
    if let Some(h) = s.validation {
        println!(
            "held out {} positions: policy loss {:.3}, value loss {:.3}, policy accuracy {:.3}",
            h.positions, h.policy_loss, h.value_loss, h.policy_accuracy
        );
    }
    if let Some(to) = &publish {
        println!("published {}", cache::publish(&s.checkpoint, "json", to)?);
    }
    Ok(())
}
