//! `shogilab bench-selfplay`: the pipeline's speed figures for one variant and network, on the
//! device libtorch picks (CUDA when present):
//!
//! * self-play: games/hour, positions/s, network evaluations/s and the mean batch size, with
//!   the batched MCTS workers and the network as `shogilab selfplay` runs them;
//! * raw forward throughput: evaluations/s of the same network on ready-made input tensors of
//!   the self-play mean batch size, built from positions the self-play games reached (no
//!   search, no encoding);
//! * inference efficiency = self-play evaluations/s / raw forward evaluations/s (how much of
//!   the network's speed the self-play loop keeps);
//! * training samples/s on the positions just played (`Trainer`, as `shogilab train`).

use super::VariantArgs;
use anyhow::{bail, Context, Result};
use clap::Args;
use shogilab_engine::Position;
use shogilab_pipeline::make_evaluator;
use shogilab_selfplay::encode::Encoder;
use shogilab_selfplay::{dataset, play_games, GameRecord, Progress, SelfplayConfig};
use shogilab_train::batch::InputBatch;
use shogilab_train::checkpoint::{self, CheckpointMeta};
use shogilab_train::examples::decode;
use shogilab_train::tch_eval::forward;
use shogilab_train::trainer::{TrainConfig, Trainer};
use shogilab_train::{Net, NetConfig};
use std::path::PathBuf;
use std::time::Instant;
use tch::nn;

#[derive(Args)]
pub struct BenchSelfplayArgs {
    #[command(flatten)]
    pub variant: VariantArgs,
    /// Network: a preset name for a fresh network (tiny, small, medium, large) or a checkpoint
    /// path (.ot).
    #[arg(long, default_value = "small")]
    pub net: String,
    /// Self-play games to play.
    #[arg(long, default_value_t = 64)]
    pub games: u64,
    /// Games in flight (the batch size the search aims at).
    #[arg(long, default_value_t = 64)]
    pub concurrent: usize,
    #[arg(long, default_value_t = 32)]
    pub simulations: u32,
    #[arg(long, default_value_t = 300)]
    pub max_plies: u32,
    /// Training steps for the samples/s figure (0 skips it).
    #[arg(long, default_value_t = 100)]
    pub train_steps: u64,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Also print the figures as one JSON line.
    #[arg(long)]
    pub json: bool,
}

/// A network to measure: a checkpoint, or a fresh preset saved to a scratch checkpoint so that
/// self-play loads it exactly as it loads a trained one.
fn network(a: &BenchSelfplayArgs, enc: &Encoder, scratch: &std::path::Path) -> Result<PathBuf> {
    if a.net.ends_with(".ot") {
        return Ok(PathBuf::from(&a.net));
    }
    let Some(cfg) = NetConfig::preset(&a.net) else {
        bail!("--net {:?}: expected tiny, small, medium, large or a checkpoint path (.ot)", a.net);
    };
    tch::manual_seed(a.seed as i64);
    let vs = nn::VarStore::new(shogilab_train::default_device());
    let _net = Net::new(&vs.root(), enc, &cfg);
    let path = scratch.join(format!("{}.ot", a.net));
    let meta = CheckpointMeta::for_net(enc, &cfg, 0, &format!("bench-{}", a.net));
    checkpoint::save(&vs, &meta, &path)?;
    Ok(path)
}

/// `n` positions spread evenly over the positions the self-play games recorded, with their
/// legal moves: the raw timing sees the same inputs as self-play.
fn played_positions(
    v: &std::sync::Arc<shogilab_engine::Variant>,
    games: &[GameRecord],
    n: usize,
) -> Result<Vec<(Position, Vec<shogilab_engine::Move>, u32)>> {
    let all: Vec<_> = games.iter().flat_map(|g| g.positions.iter()).collect();
    if all.is_empty() {
        bail!("self-play recorded no positions");
    }
    let mut out = Vec::with_capacity(n);
    for k in 0..n {
        let p = all[k * all.len() / n];
        let pos = Position::from_sfen(v, &p.sfen)?;
        let mut moves = shogilab_engine::MoveList::new();
        pos.legal_moves(&mut moves);
        out.push((pos, moves.to_vec(), p.ply));
    }
    Ok(out)
}

pub fn run(a: BenchSelfplayArgs) -> Result<()> {
    let v = a.variant.load()?;
    if a.games == 0 || a.concurrent == 0 {
        bail!("--games and --concurrent must be at least 1");
    }
    let enc = Encoder::new(v.clone());
    let device = shogilab_train::default_device();
    let scratch = std::env::temp_dir().join(format!("shogilab-bench-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).with_context(|| format!("creating {}", scratch.display()))?;
    let result = measure(&a, &v, &enc, device, &scratch);
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

/// Evaluations per second of forward passes at batch size `bsz` on positions of `games`;
/// also the number of passes.
fn raw_forward(
    net_path: &std::path::Path,
    v: &std::sync::Arc<shogilab_engine::Variant>,
    enc: &Encoder,
    device: tch::Device,
    games: &[GameRecord],
    bsz: usize,
) -> Result<(f64, u64)> {
    let (_vs, net, _meta) = checkpoint::load(net_path, enc, device)?;
    let samples = played_positions(v, games, bsz)?;
    let mut batch = InputBatch::default();
    batch.fill(enc, samples.iter().map(|(p, m, n)| (p, m.as_slice(), *n)), false);
    let (board, scalars, moves, mask) = batch.tensors(device);
    let _ = forward(&net, &board, &scalars, &moves, &mask); // warm-up
    let (mut passes, t1) = (0u64, Instant::now());
    while t1.elapsed().as_secs_f64() < 3.0 || passes < 10 {
        let _ = forward(&net, &board, &scalars, &moves, &mask);
        passes += 1;
    }
    Ok(((passes as usize * bsz) as f64 / t1.elapsed().as_secs_f64(), passes))
}

/// Training samples per second on the positions of `games` (written to a scratch shard).
fn training_speed(
    a: &BenchSelfplayArgs,
    v: &std::sync::Arc<shogilab_engine::Variant>,
    enc: &Encoder,
    device: tch::Device,
    (net_path, scratch): (&std::path::Path, &std::path::Path),
    games: &mut [GameRecord],
    model_id: &str,
) -> Result<f64> {
    games.sort_by_key(|g| g.game_index);
    let dir = scratch.join("shards");
    dataset::write_shard(&dir, 0, games, &v.name, 0, model_id, a.simulations)?;
    let samples = dataset::read_samples(&[dir.join("positions-00000.parquet")], &v.name)?;
    let examples = decode(enc, &samples, 0.0)?;
    let (tvs, tnet, _) = checkpoint::load(net_path, enc, device)?;
    let mut t = Trainer::new(enc.clone(), tvs, tnet, TrainConfig::default())?;
    let (mut seen, t2) = (0usize, Instant::now());
    t.train(&examples, a.train_steps, 0, a.seed, |_, m| seen += m.samples);
    Ok(seen as f64 / t2.elapsed().as_secs_f64())
}

/// What one benchmark run measured.
struct Measured {
    /// Self-play wall time in seconds.
    sp_secs: f64,
    /// The self-play counters at the end.
    progress: Progress,
    /// Raw forward evaluations per second at the self-play mean batch, with its batch size and
    /// the number of passes timed.
    raw: (f64, usize, u64),
    train_sps: Option<f64>,
}

fn measure(
    a: &BenchSelfplayArgs,
    v: &std::sync::Arc<shogilab_engine::Variant>,
    enc: &Encoder,
    device: tch::Device,
    scratch: &std::path::Path,
) -> Result<()> {
    let net_path = network(a, enc, scratch)?;
    let ev = make_evaluator(&net_path.display().to_string(), v)?;
    // 1. Self-play as the pipeline runs it.
    let mut cfg =
        SelfplayConfig { concurrent: a.concurrent, max_plies: a.max_plies, ..Default::default() };
    cfg.search.simulations = a.simulations;
    cfg.validate()?;
    let mut games = Vec::new();
    let mut last = None;
    eprintln!("self-play: {} games of {} on {device:?} ...", a.games, v.name);
    let t0 = Instant::now();
    play_games(
        v,
        &cfg,
        ev.as_ref(),
        a.seed,
        0,
        a.games,
        |g| games.push(g),
        |p: &Progress| last = Some(p.clone()),
    );
    let sp_secs = t0.elapsed().as_secs_f64();
    let progress = last.unwrap_or_default();
    // 2. Raw forward passes of the same network at the self-play mean batch size.
    let bsz = (progress.mean_batch().round() as usize).max(1);
    let (raw_eps, passes) = raw_forward(&net_path, v, enc, device, &games, bsz)?;
    // 3. Training samples/s on the positions just played.
    let train_sps = match a.train_steps {
        0 => None,
        _ => Some(training_speed(a, v, enc, device, (&net_path, scratch), &mut games, &ev.id())?),
    };
    let m = Measured { sp_secs, progress, raw: (raw_eps, bsz, passes), train_sps };
    report(a, &v.name, device, &net_path, &m);
    Ok(())
}

/// Print the figures of a run (and one JSON line with `--json`).
fn report(
    a: &BenchSelfplayArgs,
    variant: &str,
    device: tch::Device,
    net_path: &std::path::Path,
    m: &Measured,
) {
    let (raw_eps, bsz, passes) = m.raw;
    let mean_batch = m.progress.mean_batch();
    let sp_eps = m.progress.evals as f64 / m.sp_secs;
    let efficiency = sp_eps / raw_eps;
    let games_per_hour = a.games as f64 / m.sp_secs * 3600.0;
    let positions_per_s = m.progress.plies as f64 / m.sp_secs;
    let (sp_secs, batches) = (m.sp_secs, m.progress.batches);
    println!("variant            {variant}");
    println!("device             {device:?} ({} CPU threads for libtorch)", tch::get_num_threads());
    println!("network            {} ({})", a.net, net_path.display());
    println!("simulations        {}", a.simulations);
    println!("games              {} in {sp_secs:.1} s = {games_per_hour:.0} games/hour", a.games);
    println!("positions/s        {positions_per_s:.1}");
    println!("self-play evals/s  {sp_eps:.0} (mean batch {mean_batch:.1}, {batches} batches)");
    println!("raw forward/s      {raw_eps:.0} (batch {bsz}, {passes} passes)");
    println!("efficiency         {efficiency:.3}");
    match m.train_sps {
        Some(sps) => println!("training samples/s {sps:.0}"),
        None => println!("training samples/s not measured (--train-steps 0)"),
    }
    if a.json {
        println!(
            "{}",
            serde_json::json!({"variant": variant, "device": format!("{device:?}"), "net": a.net,
                "simulations": a.simulations, "games": a.games, "seconds": sp_secs,
                "games_per_hour": games_per_hour, "positions_per_second": positions_per_s,
                "selfplay_evals_per_second": sp_eps, "mean_batch": mean_batch,
                "raw_forward_evals_per_second": raw_eps, "efficiency": efficiency,
                "train_samples_per_second": m.train_sps})
        );
    }
}
