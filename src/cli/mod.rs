//! Subcommand definitions and dispatch.

mod bench;
mod bench_selfplay;
mod check_variant;
mod config;
mod ladder;
mod matchcmd;
mod perft;
mod pipeline;
mod playout;
mod protocol;
mod replay;
mod selfplay_cmd;
mod sfen;
mod train_cmd;
mod values_cmd;

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};
use shogilab_engine::Variant;
use std::sync::Arc;

#[derive(Parser)]
#[command(name = "shogilab", version, about = "Self-play training and analysis for shogi variants")]
pub struct Cli {
    #[command(subcommand)]
    pub cmd: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Count the move tree from a position (perft).
    Perft(perft::PerftArgs),
    /// Check game records move by move and report their final state.
    Replay(replay::ReplayArgs),
    /// Seeded random playouts to the end of the game (or a ply cap).
    Playout(playout::PlayoutArgs),
    /// Print the start position (or a given one) as SFEN, optionally as a diagram.
    Sfen(sfen::SfenArgs),
    /// Validate a variant spec (TOML) and list every error.
    CheckVariant(check_variant::CheckArgs),
    /// Measure perft node rates and random-playout speed for the built-in variants.
    Bench(bench::BenchArgs),
    /// Measure self-play speed, raw network throughput, inference efficiency, training speed.
    BenchSelfplay(bench_selfplay::BenchSelfplayArgs),
    /// Play self-play games and write Parquet shards (resumable).
    Selfplay(selfplay_cmd::SelfplayArgs),
    /// Train a network on self-play shards and write a checkpoint.
    Train(train_cmd::TrainArgs),
    /// Generations of self-play -> training -> evaluation in one resumable run directory.
    Pipeline(pipeline::PipelineArgs),
    /// Play a match between two agents: W/D/L, score and Elo with 95% intervals, optional SPRT.
    Match(matchcmd::MatchArgs),
    /// Round robin (or --gauntlet) among several agents with one maximum-likelihood Elo table.
    Gauntlet(matchcmd::GauntletArgs),
    /// Serve an agent over USI (shogi; chushogi via --variant chu or UCI_Variant).
    Usi(protocol::UsiArgs),
    /// Serve an agent over the XBoard protocol (chu, tenjiku; WinBoard coordinates).
    Xboard(protocol::XBoardArgs),
    /// Piece values with 95% intervals: imbalance matches, dataset regression, network probing.
    Values(values_cmd::ValuesArgs),
    /// Strength ladder from a TOML config: round robin, Elo table, head-to-head, report.
    Ladder(ladder::LadderArgs),
}

/// Variant selection shared by the subcommands.
#[derive(Args, Clone)]
pub struct VariantArgs {
    /// Variant: shogi (standard), chu (chushogi), tenjiku, tai, or a path to a TOML spec.
    #[arg(long, short = 'v', default_value = "shogi")]
    pub variant: String,
    /// Variant option, NAME=VALUE (repeatable); see the variant's [options].
    #[arg(long = "option", value_name = "NAME=VALUE")]
    pub options: Vec<String>,
}

impl VariantArgs {
    pub fn load(&self) -> Result<Arc<Variant>> {
        let opts = parse_options(&self.options)?;
        Variant::load(&self.variant, &opts)
            .with_context(|| format!("loading variant {:?}", self.variant))
    }
}

pub fn parse_options(raw: &[String]) -> Result<Vec<(String, String)>> {
    raw.iter()
        .map(|o| {
            o.split_once('=')
                .map(|(a, b)| (a.trim().to_string(), b.trim().to_string()))
                .with_context(|| format!("option {o:?}: expected NAME=VALUE"))
        })
        .collect()
}

pub fn run(cli: Cli) -> Result<()> {
    match cli.cmd {
        Command::Perft(a) => perft::run(a),
        Command::Replay(a) => replay::run(a),
        Command::Playout(a) => playout::run(a),
        Command::Sfen(a) => sfen::run(a),
        Command::CheckVariant(a) => check_variant::run(a),
        Command::Bench(a) => bench::run(a),
        Command::BenchSelfplay(a) => bench_selfplay::run(a),
        Command::Selfplay(a) => selfplay_cmd::run(a),
        Command::Train(a) => train_cmd::run(a),
        Command::Pipeline(a) => pipeline::run(a),
        Command::Match(a) => matchcmd::run_match_cmd(a),
        Command::Gauntlet(a) => matchcmd::run_gauntlet_cmd(a),
        Command::Usi(a) => protocol::run_usi(a),
        Command::Xboard(a) => protocol::run_xboard(a),
        Command::Values(a) => values_cmd::run(a),
        Command::Ladder(a) => ladder::run(a),
    }
}

/// Write `contents` to `path` atomically: a temporary file in the same folder, then rename.
pub fn write_atomic(path: &std::path::Path, contents: &[u8]) -> Result<()> {
    let dir =
        path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let res = std::fs::write(&tmp, contents)
        .with_context(|| format!("writing {}", path.display()))
        .and_then(|()| {
            std::fs::rename(&tmp, path)
                .with_context(|| format!("renaming {} to {}", tmp.display(), path.display()))
        });
    if res.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    res
}
