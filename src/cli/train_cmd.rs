//! `shogilab train`: train a network on self-play Parquet shards and write a checkpoint
//! (`.ot` + `.json`) and a metrics CSV beside it. `--init` continues from a checkpoint.

use super::{write_atomic, VariantArgs};
use anyhow::{bail, Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use shogilab_engine::Variant;
use shogilab_plot::{Labels, Series};
use shogilab_selfplay::dataset;
use shogilab_selfplay::encode::Encoder;
use shogilab_train::checkpoint::{self, CheckpointMeta};
use shogilab_train::trainer::{decode, TrainConfig, Trainer};
use shogilab_train::{Net, NetConfig};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;
use tch::nn;

#[derive(Args)]
pub struct TrainArgs {
    #[command(flatten)]
    pub variant: VariantArgs,
    /// Folders (or files) of positions-*.parquet shards.
    #[arg(long, required = true, num_args = 1..)]
    pub data: Vec<PathBuf>,
    /// Checkpoint to write (.ot; a .json sidecar and a .csv of metrics go beside it).
    #[arg(long)]
    pub out: PathBuf,
    /// Start from this checkpoint instead of a fresh network.
    #[arg(long)]
    pub init: Option<PathBuf>,
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
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

fn shard_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut fs: Vec<PathBuf> = std::fs::read_dir(p)
                .with_context(|| format!("reading {}", p.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| {
                    f.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("positions-") && n.ends_with(".parquet"))
                })
                .collect();
            fs.sort();
            files.extend(fs);
        } else if p.exists() {
            files.push(p.clone());
        } else {
            bail!("{}: no such file or folder", p.display());
        }
    }
    if files.is_empty() {
        bail!("no positions-*.parquet files under {:?}", paths);
    }
    Ok(files)
}

/// One training stage: what `shogilab train` runs, and what the pipeline runs per generation.
pub struct TrainJob {
    pub data: Vec<PathBuf>,
    pub out: PathBuf,
    pub init: Option<PathBuf>,
    pub preset: String,
    pub steps: u64,
    pub seed: u64,
    pub cfg: TrainConfig,
}

pub fn run(a: TrainArgs) -> Result<()> {
    let v = a.variant.load()?;
    let cfg = TrainConfig {
        batch_size: a.batch_size,
        learning_rate: a.learning_rate,
        ..Default::default()
    };
    run_job(
        &v,
        TrainJob {
            data: a.data,
            out: a.out,
            init: a.init,
            preset: a.preset,
            steps: a.steps,
            seed: a.seed,
            cfg,
        },
    )
}

/// Train, then write the checkpoint, its metrics CSV and its loss chart (PNG) beside it.
pub fn run_job(v: &Arc<Variant>, a: TrainJob) -> Result<()> {
    let enc = Encoder::new(v.clone());
    let cfg = a.cfg.clone();
    cfg.validate().map_err(anyhow::Error::msg)?;
    if a.steps == 0 {
        bail!("--steps must be at least 1");
    }
    let files = shard_files(&a.data)?;
    let samples = dataset::read_samples(&files, &v.name)?;
    let examples = decode(&enc, &samples).map_err(anyhow::Error::msg)?;
    if examples.is_empty() {
        bail!("no trainable positions in {} file(s)", files.len());
    }
    tch::manual_seed(a.seed as i64);
    let device = shogilab_train::default_device();
    let (vs, net, net_cfg, steps0) = match &a.init {
        Some(p) => {
            let (vs, net, meta) = checkpoint::load(p, &enc, device)?;
            (vs, net, meta.net.clone(), meta.steps)
        }
        None => {
            let nc = NetConfig::preset(&a.preset).with_context(|| {
                format!("--preset {:?}: expected tiny, small, medium or large", a.preset)
            })?;
            let vs = nn::VarStore::new(device);
            let net = Net::new(&vs.root(), &enc, &nc);
            (vs, net, nc, 0)
        }
    };
    let mut t = Trainer::new(enc.clone(), vs, net, cfg).map_err(anyhow::Error::msg)?;
    let bar = ProgressBar::new(a.steps);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} steps {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut csv = String::from("step,policy_loss,value_loss,total_loss,samples_per_second\n");
    let t0 = Instant::now();
    let mut seen = 0usize;
    t.train(&examples, a.steps, a.seed, |s, m| {
        seen += m.samples;
        let sps = seen as f64 / t0.elapsed().as_secs_f64().max(1e-9);
        csv.push_str(&format!(
            "{},{:.5},{:.5},{:.5},{:.1}\n",
            steps0 + s + 1,
            m.policy_loss,
            m.value_loss,
            m.total_loss,
            sps
        ));
        bar.inc(1);
        bar.set_message(format!(
            "loss {:.3} (policy {:.3}, value {:.3}), {sps:.0} samples/s",
            m.total_loss, m.policy_loss, m.value_loss
        ));
    });
    bar.finish();
    let id =
        format!("{}-{}", v.name, a.out.file_stem().and_then(|s| s.to_str()).unwrap_or("model"));
    let meta = CheckpointMeta::for_net(&enc, &net_cfg, steps0 + a.steps, &id);
    // The checkpoint lands last: its presence marks the stage complete (pipeline resumption).
    write_atomic(&a.out.with_extension("csv"), csv.as_bytes())?;
    loss_chart(&[a.out.with_extension("csv")], &a.out.with_extension("png"))?;
    checkpoint::save(&t.vs, &meta, &a.out)?;
    println!(
        "trained {} steps on {} positions ({} files) on {:?}: {} ({:.0} samples/s)",
        a.steps,
        examples.len(),
        files.len(),
        device,
        a.out.display(),
        seen as f64 / t0.elapsed().as_secs_f64().max(1e-9)
    );
    Ok(())
}

/// Draw the loss curves of one or more metrics CSVs (consecutive runs; steps are cumulative).
/// Missing files are skipped (a stage that has not run yet).
pub fn loss_chart(csvs: &[PathBuf], png: &Path) -> Result<()> {
    let names = ["policy_loss", "value_loss", "total_loss"];
    let mut series: Vec<Series> =
        names.iter().map(|n| Series { name: n.replace('_', " "), points: Vec::new() }).collect();
    for csv in csvs.iter().filter(|c| c.exists()) {
        let text =
            std::fs::read_to_string(csv).with_context(|| format!("reading {}", csv.display()))?;
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
        let col = |n: &str| header.iter().position(|h| *h == n);
        let (Some(step), Some(cols)) =
            (col("step"), names.iter().map(|n| col(n)).collect::<Option<Vec<_>>>())
        else {
            bail!("{}: not a training metrics CSV (header {:?})", csv.display(), header);
        };
        for (i, line) in lines.enumerate() {
            let f: Vec<&str> = line.split(',').collect();
            let num = |c: usize| f.get(c).and_then(|x| x.parse::<f64>().ok());
            let Some(x) = num(step) else {
                bail!("{}: line {}: no step number", csv.display(), i + 2);
            };
            for (s, &c) in series.iter_mut().zip(&cols) {
                if let Some(y) = num(c) {
                    s.points.push((x, y));
                }
            }
        }
    }
    let title = format!("training loss: {}", png.display());
    shogilab_plot::line_chart(png, Labels { title: &title, x: "step", y: "loss" }, &series)?;
    Ok(())
}
