//! `shogilab usi` and `shogilab xboard`: serve an agent (`--agent`, see `shogilab_eval::spec`)
//! to a GUI or tournament manager over stdin/stdout. The servers themselves are
//! `shogilab_eval::server`; this module builds the agent and connects the standard streams.

use super::{Networks, VariantArgs};
use anyhow::Result;
use clap::Args;
use shogilab_engine::Variant;
use shogilab_eval::server::{serve, AgentFactory, UsiServer, XBoardServer};
use shogilab_eval::{parse_agent_spec, ExtraEvaluators};
use std::sync::{Arc, Mutex};

#[derive(Args)]
pub struct UsiArgs {
    #[command(flatten)]
    pub variant: VariantArgs,
    /// Agent to serve: random, greedy, alphabeta[:DEPTH], mcts:EVAL[:SIMS][:q=SCALE], usi:PATH, xboard:PATH.
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
    /// Agent to serve: random, greedy, alphabeta[:DEPTH], mcts:EVAL[:SIMS][:q=SCALE], usi:PATH, xboard:PATH.
    #[arg(long, default_value = "alphabeta:2")]
    pub agent: String,
    /// Seed of the agent's random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// The agent of `spec`, built again for each variant the GUI selects; `networks` supplies
/// the evaluators that are networks.
fn factory(spec: String, seed: u64, networks: Arc<dyn Networks>) -> AgentFactory {
    Box::new(move |v| parse_agent_spec(&spec, v, seed, &|name| networks.for_spec(name)))
}

/// Whether building the agent of `spec` asks for an evaluator beyond the built-in ones (a
/// network), i.e. whether serving it needs libtorch. A spec that does not parse asks for none
/// (the server reports its fault).
pub fn spec_needs_network(spec: &str, variant: &Arc<Variant>) -> bool {
    !checkpoint_names(spec, variant).is_empty()
}

/// The evaluators beyond the built-in ones (networks) that building the agent of `spec` asks
/// for, by name, in order; none for a spec that does not parse.
pub fn checkpoint_names(spec: &str, variant: &Arc<Variant>) -> Vec<String> {
    let asked = Mutex::new(Vec::new());
    let probe: ExtraEvaluators<'_> = &|name| {
        asked.lock().unwrap_or_else(|e| e.into_inner()).push(name.to_string());
        None
    };
    let _ = parse_agent_spec(spec, variant, 0, probe);
    asked.into_inner().unwrap_or_else(|e| e.into_inner())
}

impl UsiArgs {
    /// Whether the served agent is a network.
    pub fn needs_network(&self) -> bool {
        self.variant.load().map(|v| spec_needs_network(&self.agent, &v)).unwrap_or(false)
    }
}

impl XBoardArgs {
    /// Whether the served agent is a network.
    pub fn needs_network(&self) -> bool {
        Variant::load(&self.variant, &[])
            .map(|v| spec_needs_network(&self.agent, &v))
            .unwrap_or(false)
    }
}

pub fn run_usi(a: UsiArgs, networks: Arc<dyn Networks>) -> Result<()> {
    let v = a.variant.load()?;
    let mut s = UsiServer::new(v, a.agent.clone(), factory(a.agent, a.seed, networks))?;
    Ok(serve(&mut s, std::io::stdin().lock(), std::io::stdout())?)
}

pub fn run_xboard(a: XBoardArgs, networks: Arc<dyn Networks>) -> Result<()> {
    let v = Variant::load(&a.variant, &[])?;
    let mut s = XBoardServer::new(v, a.agent.clone(), factory(a.agent, a.seed, networks))?;
    Ok(serve(&mut s, std::io::stdin().lock(), std::io::stdout())?)
}
