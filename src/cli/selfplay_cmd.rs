//! `shogilab selfplay`: play self-play games with a chosen evaluator and write Parquet shards
//! (`shogilab_pipeline::selfplay`) into a folder or a bucket prefix. Re-running the same
//! command resumes: complete shards are kept and skipped; other settings in the same location
//! are refused, naming the setting. `--task-index I --task-count N` plays only task I's shards
//! and prints one JSON line for a scheduler.

use super::VariantArgs;
use anyhow::Result;
use clap::Args;
use shogilab_cli::engine_cmds::task_args::{TaskArgs, TaskLine};
use shogilab_pipeline::{run_selfplay, SelfplayJob};
use shogilab_selfplay::SelfplayConfig;
use shogilab_store::Store;

#[derive(Args)]
pub struct SelfplayArgs {
    #[command(flatten)]
    pub variant: VariantArgs,
    /// Output location (one generation of shards): a folder or s3://bucket/prefix (S3 settings
    /// from the AWS_* environment variables).
    #[arg(long, value_name = "URL")]
    pub out: String,
    /// Number of games (a continued folder may grow from a whole number of shards).
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
    #[command(flatten)]
    pub task: TaskArgs,
}

pub fn run(a: SelfplayArgs) -> Result<()> {
    let v = a.variant.load()?;
    let mut cfg =
        SelfplayConfig { concurrent: a.concurrent, max_plies: a.max_plies, ..Default::default() };
    cfg.search.simulations = a.simulations;
    let task = a.task.task()?;
    let line = task.map(TaskLine::start);
    let job = SelfplayJob {
        out: Store::open(&a.out)?,
        games: a.games,
        shard_games: a.shard_games,
        seed: a.seed,
        evaluator: a.evaluator,
        generation: a.generation,
        cfg,
        task,
    };
    let s = run_selfplay(&v, &job)?;
    if let Some(line) = line {
        line.print(s.games as usize, s.games_played as usize, ("shards", s.shards.into()));
        return Ok(());
    }
    println!(
        "{} games ({} played now), {} positions in {} shards under {}",
        s.games,
        s.games_played,
        s.positions,
        s.shards.len(),
        s.out
    );
    Ok(())
}
