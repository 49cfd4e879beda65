//! `shogilab usi` and `shogilab xboard`: serve an agent (`--agent`, see `shogilab_eval::spec`)
//! to a GUI or tournament manager over stdin/stdout. The servers themselves are
//! `shogilab_eval::server`; this module builds the agent and connects the standard streams.

use super::VariantArgs;
use anyhow::Result;
use clap::Args;
use shogilab_engine::Variant;
use shogilab_eval::parse_agent_spec;
use shogilab_eval::server::{serve, AgentFactory, UsiServer, XBoardServer};
use shogilab_pipeline::checkpoint_for_spec;

#[derive(Args)]
pub struct UsiArgs {
    #[command(flatten)]
    pub variant: VariantArgs,
    /// Agent to serve: random, greedy, alphabeta[:DEPTH], mcts:EVAL[:SIMS], usi:PATH, xboard:PATH.
    #[arg(long, default_value = "alphabeta:3")]
    pub agent: String,
    /// Seed of the agent's random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

#[derive(Args)]
pub struct XBoardArgs {
    /// Variant until the GUI sends `variant`: chu, tenjiku, shogi, or a TOML spec.
    #[arg(long, short = 'v', default_value = "chu")]
    pub variant: String,
    /// Agent to serve: random, greedy, alphabeta[:DEPTH], mcts:EVAL[:SIMS], usi:PATH, xboard:PATH.
    #[arg(long, default_value = "alphabeta:2")]
    pub agent: String,
    /// Seed of the agent's random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// The agent of `spec`, built again for each variant the GUI selects.
fn factory(spec: String, seed: u64) -> AgentFactory {
    Box::new(move |v| parse_agent_spec(&spec, v, seed, &checkpoint_for_spec))
}

pub fn run_usi(a: UsiArgs) -> Result<()> {
    let v = a.variant.load()?;
    let mut s = UsiServer::new(v, a.agent.clone(), factory(a.agent, a.seed))?;
    Ok(serve(&mut s, std::io::stdin().lock(), std::io::stdout().lock())?)
}

pub fn run_xboard(a: XBoardArgs) -> Result<()> {
    let v = Variant::load(&a.variant, &[])?;
    let mut s = XBoardServer::new(v, a.agent.clone(), factory(a.agent, a.seed))?;
    Ok(serve(&mut s, std::io::stdin().lock(), std::io::stdout().lock())?)
}
