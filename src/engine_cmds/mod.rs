//! The commands that need only the rules engine and the engine agents: `perft`, `replay`,
//! `playout`, `sfen`, `check-variant`, the `usi`/`xboard` servers and `values` (the imbalance
//! games and fits; probing a network is the exception). They live in the `shogilab_cli` library
//! so that the `shogilab` front binary runs them without loading libtorch (a few milliseconds to
//! start instead of about half a second, which every task of a cluster job pays);
//! `shogilab-full` flattens the same [`EngineCommand`] into its full command set and supplies
//! the networks ([`Networks`]).

pub mod analyse;
pub mod check_variant;
pub mod perft;
pub mod playout;
pub mod protocol;
pub mod replay;
pub mod sfen;
pub mod task_args;
pub mod values;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use shogilab_engine::Variant;
use shogilab_eval::ExtraError;
use shogilab_selfplay::Evaluator;
use std::sync::Arc;

/// The networks (libtorch) that some engine-only commands may name: `shogilab-full` supplies
/// them; the front binary supplies none, as it hands such commands to `shogilab-full`
/// ([`EngineCommand::needs_network`]).
pub trait Networks: Send + Sync {
    /// The evaluator an `mcts:` agent spec names beyond `uniform` and `material`, in the
    /// checkpoint's own variant; `None` for a name that is not a checkpoint.
    fn for_spec(&self, name: &str) -> Option<Result<Arc<dyn Evaluator>, ExtraError>>;
    /// The checkpoint `path` as an evaluator of `variant` (an error naming the file when it
    /// was trained for another variant).
    fn load(&self, path: &str, variant: &Arc<Variant>) -> Result<Arc<dyn Evaluator>>;
}

/// No networks: the front binary's [`Networks`].
pub struct NoNetworks;

impl Networks for NoNetworks {
    fn for_spec(&self, _: &str) -> Option<Result<Arc<dyn Evaluator>, ExtraError>> {
        None
    }

    fn load(&self, path: &str, _: &Arc<Variant>) -> Result<Arc<dyn Evaluator>> {
        anyhow::bail!("{path}: networks are loaded by shogilab-full, not by this binary")
    }
}

/// The engine-only subcommands.
#[derive(Subcommand)]
pub enum EngineCommand {
    /// Count the move tree from a position (perft).
    Perft(perft::PerftArgs),
    /// Check game records move by move and report their final state.
    Replay(replay::ReplayArgs),
    /// Annotate games with the searching engine: evaluation before and after each move, best move, PV.
    Analyse(analyse::AnalyseArgs),
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
    /// Piece values with 95% intervals: imbalance matches, dataset regression, network probing.
    Values(Box<values::ValuesArgs>),
}

impl EngineCommand {
    /// Whether the command needs a network (a served `mcts:` agent on a checkpoint, a probed
    /// checkpoint), and so libtorch: the front binary hands such commands to `shogilab-full`.
    pub fn needs_network(&self) -> bool {
        match self {
            EngineCommand::Usi(a) => a.needs_network(),
            EngineCommand::Xboard(a) => a.needs_network(),
            EngineCommand::Values(a) => a.needs_network(),
            _ => false,
        }
    }

    /// Run the command; `networks` loads the networks that it names.
    pub fn run(self, networks: Arc<dyn Networks>) -> Result<()> {
        match self {
            EngineCommand::Perft(a) => perft::run(a),
            EngineCommand::Replay(a) => replay::run(a),
            EngineCommand::Analyse(a) => analyse::run(a),
            EngineCommand::Playout(a) => playout::run(a),
            EngineCommand::Sfen(a) => sfen::run(a),
            EngineCommand::CheckVariant(a) => check_variant::run(a),
            EngineCommand::Usi(a) => protocol::run_usi(a, networks),
            EngineCommand::Xboard(a) => protocol::run_xboard(a, networks),
            EngineCommand::Values(a) => values::run(*a, networks),
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
