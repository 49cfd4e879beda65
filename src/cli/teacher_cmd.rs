//! `shogilab teacher`: turn a searching engine's logged games into training positions in the
//! self-play Parquet schema (`shogilab_pipeline::teacher`), for a supervised start.

use super::VariantArgs;
use anyhow::Result;
use clap::Args;
use shogilab_pipeline::{run_teacher, TeacherJob};
use std::path::PathBuf;

#[derive(Args)]
pub struct TeacherArgs {
    #[command(flatten)]
    pub variant: VariantArgs,
    /// Imbalance game log folder of `shogilab values` (games-*.parquet parts), e.g.
    /// reports/piece-values/depth2/games/chu.
    #[arg(long)]
    pub log: PathBuf,
    /// Dataset folder to write (positions-*.parquet and games-*.parquet shards).
    #[arg(long)]
    pub out: PathBuf,
    /// Keep one position in EVERY of each game.
    #[arg(long, default_value_t = 4)]
    pub every: u32,
    /// Use at most this many games (the first of the log); 0: all.
    #[arg(long, default_value_t = 0)]
    pub max_games: u64,
    /// Games per shard.
    #[arg(long, default_value_t = 500)]
    pub games_per_shard: u64,
    /// Seed of the positions' offsets.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Depth of the alpha-beta search (plus quiescence) whose score, squashed by a scale fitted
    /// to the results, is each position's root_value; 0: root_value repeats the result.
    #[arg(long, default_value_t = 1)]
    pub value_depth: u32,
    /// Logistic scale (centipawns) of the search scores instead of the one fitted to the first
    /// shard's results: for logs whose results the scores cannot predict (mostly draws).
    #[arg(long)]
    pub value_scale: Option<f64>,
}

pub fn run(a: TeacherArgs) -> Result<()> {
    let v = a.variant.load()?;
    let job = TeacherJob {
        log: a.log,
        out: a.out,
        every: a.every,
        max_games: a.max_games,
        games_per_shard: a.games_per_shard,
        seed: a.seed,
        value_depth: a.value_depth,
        value_scale: a.value_scale,
    };
    let s = run_teacher(&v, &job)?;
    println!(
        "{} games -> {} positions in {} shards ({} kept from an earlier run) in {}; {} games of \
         the log have no recorded moves",
        s.games,
        s.positions,
        s.shards,
        s.kept,
        job.out.display(),
        s.without_moves
    );
    if let Some(k) = s.value_scale {
        println!(
            "values: depth-{} search scores, logistic scale {k:.1} ({})",
            job.value_depth,
            if job.value_scale.is_some() { "given" } else { "fitted on the first shard" }
        );
    }
    Ok(())
}
