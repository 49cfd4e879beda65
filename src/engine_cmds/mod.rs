//! The commands that need only the rules engine and the engine agents: `perft`, `replay`,
//! `playout`, `sfen`, `check-variant`, and the `usi`/`xboard` servers. They live in the
//! `shogilab_cli` library so that the `shogilab` front binary runs them without loading libtorch
//! (a few milliseconds to start instead of a quarter of a second); `shogilab-full` flattens the
//! same [`EngineCommand`] into its full command set.

pub mod check_variant;
pub mod perft;
pub mod playout;
pub mod protocol;
pub mod replay;
pub mod sfen;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use shogilab_engine::Variant;
use std::sync::Arc;

pub use protocol::Checkpoints;

/// The engine-only subcommands.
#[derive(Subcommand)]
pub enum EngineCommand {
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
    /// Serve an agent over USI (shogi; chushogi via --variant chu or UCI_Variant).
    Usi(protocol::UsiArgs),
    /// Serve an agent over the XBoard protocol (chu, tenjiku; WinBoard coordinates).
    Xboard(protocol::XBoardArgs),
}

impl EngineCommand {
    /// Whether the command needs a network (a served `mcts:` agent on a checkpoint), and so
    /// libtorch: the front binary hands such commands to `shogilab-full`.
    pub fn needs_network(&self) -> bool {
        match self {
            EngineCommand::Usi(a) => a.needs_network(),
            EngineCommand::Xboard(a) => a.needs_network(),
            _ => false,
        }
    }

    /// Run the command; `checkpoints` loads the networks that served agents name.
    pub fn run(self, checkpoints: Checkpoints) -> Result<()> {
        match self {
            EngineCommand::Perft(a) => perft::run(a),
            EngineCommand::Replay(a) => replay::run(a),
            EngineCommand::Playout(a) => playout::run(a),
            EngineCommand::Sfen(a) => sfen::run(a),
            EngineCommand::CheckVariant(a) => check_variant::run(a),
            EngineCommand::Usi(a) => protocol::run_usi(a, checkpoints),
            EngineCommand::Xboard(a) => protocol::run_xboard(a, checkpoints),
        }
    }
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
    /// The variant with its options applied.
    pub fn load(&self) -> Result<Arc<Variant>> {
        let opts = parse_options(&self.options)?;
        Variant::load(&self.variant, &opts)
            .with_context(|| format!("loading variant {:?}", self.variant))
    }
}

/// `NAME=VALUE` pairs of `--option`.
pub fn parse_options(raw: &[String]) -> Result<Vec<(String, String)>> {
    raw.iter()
        .map(|o| {
            o.split_once('=')
                .map(|(a, b)| (a.trim().to_string(), b.trim().to_string()))
                .with_context(|| format!("option {o:?}: expected NAME=VALUE"))
        })
        .collect()
}
