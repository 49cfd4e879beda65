//! Subcommand definitions and dispatch of `shogilab-full`: the engine-only commands of
//! `shogilab_cli::engine_cmds`, flattened (with the networks they may name, [`networks`]), and
//! the commands that need more (networks, matches, pipelines, trends of piece values, ladders),
//! one module each.

mod bench;
mod bench_search;
mod bench_selfplay;
mod config;
mod evaluator_cmd;
mod gauntlet_cmd;
mod ladder;
mod matchcmd;
mod networks;
mod openings;
mod pipeline;
mod selfplay_cmd;
mod teacher_cmd;
mod train_cmd;
mod values_trend_cmd;

use anyhow::Result;
use clap::{Parser, Subcommand};
pub use shogilab_cli::engine_cmds::{EngineCommand, VariantArgs};
use std::sync::Arc;

#[derive(Parser)]
#[command(name = "shogilab", version, about = "Self-play training and analysis for shogi variants")]
pub struct Cli {
    #[command(subcommand)]
    pub cmd: Command,
}

#[derive(Subcommand)]
pub enum Command {
    #[command(flatten)]
    Engine(EngineCommand),
    /// Measure perft node rates and random-playout speed for the built-in variants.
    Bench(bench::BenchArgs),
    /// Measure self-play speed, raw network throughput, inference efficiency, training speed.
    BenchSelfplay(bench_selfplay::BenchSelfplayArgs),
    /// Play self-play games and write Parquet shards (resumable).
    Selfplay(selfplay_cmd::SelfplayArgs),
    /// Turn an engine's logged games into training positions (teacher data, same schema).
    Teacher(teacher_cmd::TeacherArgs),
    /// Train a network on self-play shards and write a checkpoint.
    Train(train_cmd::TrainArgs),
    /// Generations of self-play -> training -> evaluation in one resumable run directory.
    Pipeline(pipeline::PipelineArgs),
    /// Play a match between two agents: W/D/L, score and Elo with 95% intervals, optional SPRT.
    Match(matchcmd::MatchArgs),
    /// Round robin (or --gauntlet) among several agents with one maximum-likelihood Elo table.
    Gauntlet(gauntlet_cmd::GauntletArgs),
    /// Piece values against the strength of the engines that measured them (chart, table).
    ValuesTrend(values_trend_cmd::TrendArgs),
    /// Strength ladder from a TOML config: round robin, Elo table, head-to-head, report.
    Ladder(ladder::LadderArgs),
    /// The searching engine's evaluator: init, datagen (positions scored by its search), fit (tch).
    Evaluator(evaluator_cmd::EvaluatorArgs),
}

pub fn run(cli: Cli) -> Result<()> {
    match cli.cmd {
        Command::Engine(c) => c.run(Arc::new(networks::TorchNetworks)),
        Command::Bench(a) => bench::run(a),
        Command::BenchSelfplay(a) => bench_selfplay::run(a),
        Command::Selfplay(a) => selfplay_cmd::run(a),
        Command::Teacher(a) => teacher_cmd::run(a),
        Command::Train(a) => train_cmd::run(a),
        Command::Pipeline(a) => pipeline::run(a),
        Command::Match(a) => matchcmd::run_match_cmd(a),
        Command::Gauntlet(a) => gauntlet_cmd::run(a),
        Command::ValuesTrend(a) => values_trend_cmd::run(a),
        Command::Ladder(a) => ladder::run(a),
        Command::Evaluator(a) => evaluator_cmd::run(a),
    }
}
