//! Agent spec strings, shared by `shogilab match`, `gauntlet`, `usi` and `xboard`:
//!
//! | spec | agent |
//! |---|---|
//! | `random` | uniformly random legal moves |
//! | `greedy` | captures the most valuable piece (mobility piece values), else random |
//! | `alphabeta[:DEPTH][:noq]` | negamax alpha-beta, depth 2 by default, quiescence unless `noq` |
//! | `mcts:EVAL[:SIMS]` | MCTS with `uniform`, `material` (mobility values), `material=TABLE.toml` or a checkpoint, 64 simulations by default |
//! | `usi:PATH[\|NAME=VALUE...]` | an external USI engine (`setoption` for each pair) |
//! | `xboard:PATH[\|sd=N][\|memory=MB]` | an external XBoard engine (HaChu: `/usr/games/hachu`) |
//!
//! Piece values are derived from mobility ([`PieceValues::mobility`]).

use crate::agent::{Agent, AgentError, GreedyAgent, RandomAgent};
use crate::alphabeta::AlphaBetaAgent;
use crate::mcts_agent::MctsAgent;
use crate::usi_client::{UsiAgent, UsiConfig};
use crate::xboard_client::{XBoardAgent, XBoardConfig};
use shogilab_engine::Variant;
use shogilab_selfplay::{Evaluator, Material, PieceValues, Uniform};
use std::sync::Arc;

/// Help text listing the accepted specs.
pub const AGENT_SPEC_HELP: &str = "random | greedy | alphabeta[:DEPTH][:noq] | \
mcts:EVAL[:SIMS] (EVAL: uniform, material, or a checkpoint) | usi:PATH[|NAME=VALUE...] | \
xboard:PATH[|sd=N][|memory=MB]";

fn bad(spec: &str, reason: impl Into<String>) -> AgentError {
    AgentError::Spec { spec: spec.to_string(), reason: reason.into() }
}

fn parse_num<T: std::str::FromStr>(spec: &str, what: &str, s: &str) -> Result<T, AgentError> {
    s.parse().map_err(|_| bad(spec, format!("{what} {s:?} is not a number")))
}

/// Build an agent from a spec. `extra(name)` supplies evaluators beyond `uniform` and
/// `material` (checkpoints) for `mcts:NAME`.
pub fn parse_agent_spec(
    spec: &str,
    variant: &Arc<Variant>,
    seed: u64,
    extra: &dyn Fn(&str) -> Option<Arc<dyn Evaluator>>,
) -> Result<Box<dyn Agent>, AgentError> {
    let spec = spec.trim();
    let (kind, rest) = match spec.split_once(':') {
        Some((k, r)) => (k, Some(r)),
        None => (spec, None),
    };
    match kind {
        "random" => {
            if rest.is_some() {
                return Err(bad(spec, "`random` takes no arguments"));
            }
            Ok(Box::new(RandomAgent::new(seed)))
        }
        "greedy" => {
            if rest.is_some() {
                return Err(bad(spec, "`greedy` takes no arguments"));
            }
            Ok(Box::new(GreedyAgent::new(PieceValues::mobility(Arc::clone(variant)), seed)))
        }
        "alphabeta" | "ab" => {
            let mut depth = 2u32;
            let mut quiescence = true;
            for part in rest.into_iter().flat_map(|r| r.split(':')) {
                match part {
                    "noq" => quiescence = false,
                    "q" => quiescence = true,
                    d => depth = parse_num(spec, "depth", d)?,
                }
            }
            if !(1..=64).contains(&depth) {
                return Err(bad(spec, format!("depth {depth} must be 1..64")));
            }
            let values = PieceValues::mobility(Arc::clone(variant));
            Ok(Box::new(AlphaBetaAgent::new(values, depth, quiescence)))
        }
        "mcts" => {
            let rest = rest.ok_or_else(|| bad(spec, "expected mcts:EVAL[:SIMS]"))?;
            let (ev, sims) = match rest.rsplit_once(':') {
                Some((e, n)) if n.chars().all(|c| c.is_ascii_digit()) && !n.is_empty() => {
                    (e, parse_num::<u32>(spec, "simulations", n)?)
                }
                _ => (rest, 64),
            };
            if !(1..=100_000).contains(&sims) {
                return Err(bad(spec, format!("simulations {sims} must be 1..100000")));
            }
            let evaluator: Arc<dyn Evaluator> = if ev == "uniform" {
                Arc::new(Uniform)
            } else if let Some(m) = Material::from_name(variant, ev) {
                Arc::new(m.map_err(|e| bad(spec, e))?)
            } else {
                extra(ev).ok_or_else(|| {
                    bad(
                        spec,
                        format!("unknown evaluator {ev:?} (uniform, material, material=TABLE.toml, or a checkpoint)"),
                    )
                })?
            };
            Ok(Box::new(MctsAgent::new(evaluator, sims, seed).with_name(spec.to_string())))
        }
        "usi" => {
            let rest =
                rest.filter(|r| !r.is_empty()).ok_or_else(|| bad(spec, "expected usi:PATH"))?;
            let mut parts = rest.split('|');
            let path = parts.next().unwrap_or_default();
            let mut cfg = UsiConfig::new(path);
            for p in parts {
                let (k, v) = p
                    .split_once('=')
                    .ok_or_else(|| bad(spec, format!("option {p:?}: expected NAME=VALUE")))?;
                cfg.options.push((k.to_string(), v.to_string()));
            }
            Ok(Box::new(UsiAgent::new(cfg, Arc::clone(variant))))
        }
        "xboard" => {
            let rest =
                rest.filter(|r| !r.is_empty()).ok_or_else(|| bad(spec, "expected xboard:PATH"))?;
            let mut parts = rest.split('|');
            let path = parts.next().unwrap_or_default();
            let mut cfg = XBoardConfig::new(path);
            for p in parts {
                match p.split_once('=') {
                    Some(("sd", n)) => cfg.depth = Some(parse_num(spec, "sd", n)?),
                    Some(("memory", n)) => cfg.memory_mb = parse_num(spec, "memory", n)?,
                    _ => return Err(bad(spec, format!("unknown setting {p:?} (sd=N, memory=MB)"))),
                }
            }
            Ok(Box::new(XBoardAgent::new(cfg, Arc::clone(variant))))
        }
        other => Err(bad(spec, format!("unknown agent {other:?}; expected {AGENT_SPEC_HELP}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs() {
        let v = Variant::builtin("shogi").unwrap();
        let none = |_: &str| None;
        for s in ["random", "greedy", "alphabeta:3", "alphabeta", "mcts:uniform:8", "mcts:material"]
        {
            assert!(parse_agent_spec(s, &v, 1, &none).is_ok(), "{s}");
        }
        assert_eq!(parse_agent_spec("alphabeta:3", &v, 1, &none).unwrap().name(), "alphabeta:3");
        for s in
            ["rand", "alphabeta:x", "mcts", "mcts:net:4", "usi:", "xboard:/x|foo=1", "random:1"]
        {
            let e = parse_agent_spec(s, &v, 1, &none).err().expect(s);
            assert!(matches!(e, AgentError::Spec { .. }), "{s}: {e}");
        }
        let e = parse_agent_spec("stockfish", &v, 1, &none).err().unwrap().to_string();
        assert!(e.contains("unknown agent"), "{e}");
    }

    #[test]
    fn material_tables_by_path() {
        let chu = Variant::builtin("chu").unwrap();
        let none = |_: &str| None;
        let table = concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/values/chu-gcsa.toml");
        let spec = format!("mcts:material={table}:8");
        assert!(parse_agent_spec(&spec, &chu, 1, &none).is_ok(), "{spec}");
        // a table for another variant lacks values for some of shogi's pieces
        let shogi = Variant::builtin("shogi").unwrap();
        let e = parse_agent_spec(&spec, &shogi, 1, &none).err().unwrap().to_string();
        assert!(e.contains("chu-gcsa.toml") && e.contains("no value for"), "{e}");
        let e = parse_agent_spec("mcts:material=no/such.toml", &chu, 1, &none).err().unwrap();
        assert!(e.to_string().contains("no/such.toml"), "{e}");
    }
}
