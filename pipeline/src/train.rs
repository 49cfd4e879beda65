//! The training stage: a network trained on self-play shards, written as a checkpoint (`.ot`
//! with its `.json` sidecar) with a metrics CSV and a loss chart (PNG) beside it. The
//! checkpoint is written last, so its presence marks the stage complete.

use crate::error::PipelineError;
use indicatif::{ProgressBar, ProgressStyle};
use shogilab_engine::Variant;
use shogilab_fsio::write_atomic;
use shogilab_plot::{Labels, Series};
use shogilab_selfplay::dataset::{self, Sampling};
use shogilab_selfplay::encode::Encoder;
use shogilab_train::checkpoint::{self, CheckpointMeta};
use shogilab_train::examples::{decode, split_by_game, Example};
use shogilab_train::trainer::{StepMetrics, TrainConfig, Trainer, Validation};
use shogilab_train::{Net, NetConfig};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;
use tch::nn;

/// One training job: what `shogilab train` runs, and what the pipeline runs per generation.
#[derive(Debug, Clone)]
pub struct TrainJob {
    /// Folders, files or bucket locations (`s3://...`) of `positions-*.parquet` shards.
    pub data: Vec<String>,
    /// The checkpoint to write (`.ot`).
    pub out: PathBuf,
    /// Continue from this checkpoint instead of a fresh network.
    pub init: Option<PathBuf>,
    /// Network preset of a fresh network.
    pub preset: String,
    pub steps: u64,
    pub seed: u64,
    pub cfg: TrainConfig,
}

/// What a training stage wrote and how the training went.
#[derive(Debug, Clone, PartialEq)]
pub struct TrainSummary {
    pub checkpoint: PathBuf,
    pub metrics_csv: PathBuf,
    pub chart: PathBuf,
    /// Steps of this stage, and of the network in total (with its `--init` history).
    pub steps: u64,
    pub total_steps: u64,
    pub positions: usize,
    pub files: usize,
    /// Losses of the last step.
    pub last: Losses,
    pub samples_per_second: f64,
    pub device: String,
    /// Figures on the held-out games (none when nothing was held out).
    pub validation: Option<Validation>,
}

/// Losses of one step.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Losses {
    pub policy: f64,
    pub value: f64,
    pub total: f64,
}

/// The `positions-*.parquet` shards of the window: those of each folder (sorted), files given
/// directly, and the objects of each bucket location (`s3://bucket/run/selfplay/gen-0003`:
/// listed, not downloaded; training scans them where they are). Objects still being written
/// (temporary names) are not listed.
pub fn window_sources(data: &[String]) -> Result<Vec<String>, PipelineError> {
    let mut sources = Vec::new();
    for d in data {
        if d.contains("://") {
            sources.extend(bucket_shards(d)?);
        } else {
            sources.extend(local_shards(Path::new(d))?);
        }
    }
    if sources.is_empty() {
        return Err(PipelineError::Empty(format!("no positions-*.parquet files under {data:?}")));
    }
    Ok(sources)
}

/// The shards of a folder (sorted), or the file itself.
fn local_shards(p: &Path) -> Result<Vec<String>, PipelineError> {
    if p.is_dir() {
        let mut fs: Vec<String> = std::fs::read_dir(p)
            .map_err(PipelineError::io(p))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|f| {
                f.file_name().and_then(|n| n.to_str()).is_some_and(dataset::is_positions_file)
            })
            .map(|f| f.display().to_string())
            .collect();
        fs.sort();
        Ok(fs)
    } else if p.exists() {
        Ok(vec![p.display().to_string()])
    } else {
        let e = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file or folder");
        Err(PipelineError::io(p)(e))
    }
}

/// The shard objects of a location (a `file://` location is a folder).
fn bucket_shards(url: &str) -> Result<Vec<String>, PipelineError> {
    let store = shogilab_store::Store::open(url)?;
    if let Some(dir) = store.local_dir() {
        return local_shards(dir);
    }
    let mut names: Vec<String> =
        store.list()?.into_iter().filter(|n| dataset::is_positions_file(n)).collect();
    names.sort();
    Ok(names.iter().map(|n| store.url_of(n)).collect())
}

/// The network to train: from `init`, or a fresh one of the preset. Returns the steps it had.
fn network(
    job: &TrainJob,
    enc: &Encoder,
    device: tch::Device,
) -> Result<(nn::VarStore, Net, NetConfig, u64), PipelineError> {
    if let Some(p) = &job.init {
        let (vs, net, meta) = checkpoint::load(p, enc, device)?;
        return Ok((vs, net, meta.net.clone(), meta.steps));
    }
    let nc = NetConfig::preset(&job.preset).ok_or_else(|| PipelineError::Train {
        out: job.out.clone(),
        reason: format!("--preset {:?}: expected tiny, small, medium or large", job.preset),
    })?;
    let vs = nn::VarStore::new(device);
    let net = Net::new(&vs.root(), enc, &nc);
    Ok((vs, net, nc, 0))
}

fn check_job(job: &TrainJob) -> Result<(), PipelineError> {
    let refuse = |reason: String| PipelineError::Train { out: job.out.clone(), reason };
    job.cfg.validate().map_err(|e| refuse(e.to_string()))?;
    if job.steps == 0 {
        return Err(refuse("--steps must be at least 1".into()));
    }
    Ok(())
}

/// What the optimisation steps produced: the metrics CSV text, the last losses and the speed.
struct StepsRun {
    csv: String,
    last: Losses,
    samples_per_second: f64,
}

/// Run the job's steps with a progress bar; steps are numbered after the network's `steps0`.
fn train_steps(t: &mut Trainer, examples: &[Example], job: &TrainJob, steps0: u64) -> StepsRun {
    let bar = ProgressBar::new(job.steps);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} steps {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut csv = String::from(
        "step,policy_loss,value_loss,total_loss,policy_accuracy,lr,samples_per_second\n",
    );
    let t0 = Instant::now();
    let (mut seen, mut last) = (0usize, Losses::default());
    t.train(examples, job.steps, steps0, job.seed, |s, m: &StepMetrics| {
        seen += m.samples;
        let sps = seen as f64 / t0.elapsed().as_secs_f64().max(1e-9);
        last = Losses { policy: m.policy_loss, value: m.value_loss, total: m.total_loss };
        csv.push_str(&format!(
            "{},{:.5},{:.5},{:.5},{:.4},{:.3e},{sps:.1}\n",
            steps0 + s + 1,
            m.policy_loss,
            m.value_loss,
            m.total_loss,
            m.policy_accuracy,
            m.lr
        ));
        bar.inc(1);
        let msg = format!(
            "loss {:.3} (policy {:.3}, value {:.3}, accuracy {:.3}), {sps:.0} samples/s",
            m.total_loss, m.policy_loss, m.value_loss, m.policy_accuracy
        );
        // without a terminal (a log file) the bar is hidden: a line every 500 steps instead
        if bar.is_hidden() && (s + 1) % 500 == 0 {
            eprintln!("step {}/{}: {msg}", s + 1, job.steps);
        }
        bar.set_message(msg);
    });
    bar.finish_and_clear();
    StepsRun { csv, last, samples_per_second: seen as f64 / t0.elapsed().as_secs_f64().max(1e-9) }
}

/// Train, then write the metrics CSV, its loss chart and the checkpoint (last).
pub fn run_train(v: &Arc<Variant>, job: &TrainJob) -> Result<TrainSummary, PipelineError> {
    check_job(job)?;
    let enc = Encoder::new(v.clone());
    let files = window_sources(&job.data)?;
    let sampling = (job.cfg.sample_fraction < 1.0)
        .then_some(Sampling { fraction: job.cfg.sample_fraction, seed: job.seed });
    let samples = dataset::read_window(&files, &v.name, sampling)?;
    let (train, held) = split_by_game(samples, job.cfg.validation_percent);
    let mix = job.cfg.value_mix as f32;
    let refuse = |e: shogilab_train::examples::DecodeError| PipelineError::Train {
        out: job.out.clone(),
        reason: e.to_string(),
    };
    let examples = decode(&enc, &train, mix).map_err(refuse)?;
    let held = decode(&enc, &held, mix).map_err(refuse)?;
    if examples.is_empty() {
        let reason = format!("no trainable positions in {} file(s)", files.len());
        return Err(PipelineError::Train { out: job.out.clone(), reason });
    }
    tch::manual_seed(job.seed as i64);
    let device = shogilab_train::default_device();
    let (vs, net, net_cfg, steps0) = network(job, &enc, device)?;
    let mut t = Trainer::new(enc.clone(), vs, net, job.cfg.clone()).map_err(|e| {
        PipelineError::Train { out: job.out.clone(), reason: format!("optimizer: {e}") }
    })?;
    let run = train_steps(&mut t, &examples, job, steps0);
    let validation = (!held.is_empty()).then(|| t.evaluate(&held));
    let stem = job.out.file_stem().and_then(|s| s.to_str()).unwrap_or("model");
    let mut meta =
        CheckpointMeta::for_net(&enc, &net_cfg, steps0 + job.steps, &format!("{}-{stem}", v.name));
    meta.validation = validation;
    let (csv_path, chart) = (job.out.with_extension("csv"), job.out.with_extension("png"));
    write_atomic(&csv_path, run.csv.as_bytes())?;
    loss_chart(std::slice::from_ref(&csv_path), &chart)?;
    checkpoint::save(&t.vs, &meta, &job.out)?;
    Ok(TrainSummary {
        checkpoint: job.out.clone(),
        metrics_csv: csv_path,
        chart,
        steps: job.steps,
        total_steps: steps0 + job.steps,
        positions: examples.len(),
        files: files.len(),
        last: run.last,
        samples_per_second: run.samples_per_second,
        device: format!("{device:?}"),
        validation,
    })
}

/// Draw the loss curves of one or more metrics CSVs (consecutive runs; steps are cumulative).
/// Missing files are skipped (a stage that has not run yet).
pub fn loss_chart(csvs: &[PathBuf], png: &Path) -> Result<(), PipelineError> {
    let names = ["policy_loss", "value_loss", "total_loss"];
    let mut series: Vec<Series> = names
        .iter()
        .map(|n| Series { name: n.replace('_', " "), points: Vec::new(), bars: Vec::new() })
        .collect();
    for csv in csvs.iter().filter(|c| c.exists()) {
        let text = std::fs::read_to_string(csv).map_err(PipelineError::io(csv))?;
        let bad = |reason: String| PipelineError::BadRecord { path: csv.clone(), reason };
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
        let col = |n: &str| header.iter().position(|h| *h == n);
        let (Some(step), Some(cols)) =
            (col("step"), names.iter().map(|n| col(n)).collect::<Option<Vec<_>>>())
        else {
            return Err(bad(format!("not a training metrics CSV (header {header:?})")));
        };
        for (i, line) in lines.enumerate() {
            let f: Vec<&str> = line.split(',').collect();
            let num = |c: usize| f.get(c).and_then(|x| x.parse::<f64>().ok());
            let Some(x) = num(step) else {
                return Err(bad(format!("line {}: no step number", i + 2)));
            };
            for (s, &c) in series.iter_mut().zip(&cols) {
                if let Some(y) = num(c) {
                    s.points.push((x, y));
                }
            }
        }
    }
    // The checkpoint's name, not the folder it was written in (which differs between machines).
    let name =
        png.file_stem().map_or_else(|| png.display().to_string(), |n| n.to_string_lossy().into());
    let title = format!("training loss: {name}");
    shogilab_plot::line_chart(png, Labels { title: &title, x: "step", y: "loss" }, &series)?;
    Ok(())
}
