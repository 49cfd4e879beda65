//! `shogilab bench search`: the searching engine's speed on fixed positions of every variant
//! (the start, and the positions after 20 and 40 plies of the engine's own game at 20,000
//! nodes a move with the material evaluator): nodes a second, the depth completed at each move time, and the time
//! each depth was completed at. For chu, HaChu searches the same positions in the same run
//! (its `post` lines give its depth, nodes and time), so both figures come from one machine
//! state.

use anyhow::{Context, Result};
use shogilab_engine::{Game, Position, Variant};
use shogilab_eval::agent::{Agent, Limits as AgentLimits};
use shogilab_eval::search_agent::load_evaluator;
use shogilab_eval::{XBoardAgent, XBoardConfig};
use shogilab_search::{Engine, Limits, Options, TimeControl};
use std::sync::Arc;
use std::time::Duration;

/// One measured search.
struct Measure {
    depth: u32,
    nodes: u64,
    ms: f64,
    /// Milliseconds at which each depth was completed.
    depth_ms: Vec<(u32, f64)>,
}

impl Measure {
    fn nps(&self) -> f64 {
        self.nodes as f64 / (self.ms / 1000.0).max(1e-6)
    }
}

/// The benchmark's games: the start and the positions after 20 and 40 plies of a game at 20,000
/// nodes a move.
fn positions(v: &Arc<Variant>) -> Vec<(String, Game)> {
    let psq = Arc::new(shogilab_eval::search_agent::material(v));
    let mut engine = Engine::new(psq, Options { hash_mb: 16, ..Options::default() });
    let mut game = Game::new(Position::start(v));
    let mut out = vec![("start".to_string(), game.clone())];
    for ply in 1..=40 {
        let limits = Limits { nodes: Some(20_000), ..Limits::default() };
        let Some(o) = engine.search(&game, limits, &mut |_| {}) else { break };
        game.play(o.best);
        if game.status().is_over() {
            break;
        }
        if ply % 20 == 0 {
            out.push((format!("ply {ply}"), game.clone()));
        }
    }
    out
}

fn ours(engine: &mut Engine, game: &Game, ms: u64) -> Measure {
    engine.clear();
    let mut depth_ms = Vec::new();
    let limits =
        Limits { time: TimeControl::MoveTime(Duration::from_millis(ms)), ..Limits::default() };
    let o = engine
        .search(game, limits, &mut |l| {
            if l.lower_bound.is_none() && l.multipv == 1 {
                depth_ms.push((l.depth, l.time.as_secs_f64() * 1000.0));
            }
        })
        .expect("a benchmark position has moves");
    Measure { depth: o.depth, nodes: o.nodes, ms: o.time.as_secs_f64() * 1000.0, depth_ms }
}

fn hachu(path: &str, v: &Arc<Variant>, game: &Game, ms: u64) -> Result<Measure> {
    let mut cfg = XBoardConfig::new(path);
    cfg.memory_mb = 64;
    let mut agent = XBoardAgent::new(cfg, Arc::clone(v));
    agent.new_game(game).context("starting HaChu")?;
    agent
        .choose(game, &AgentLimits { movetime_ms: Some(ms), nodes: None })
        .context("HaChu's search")?;
    let t = agent.thinking();
    let last = t.last().copied().context("HaChu printed no thinking line")?;
    let mut depth_ms: Vec<(u32, f64)> = Vec::new();
    for w in t.windows(2) {
        if w[1].depth > w[0].depth {
            depth_ms.push((w[0].depth, w[0].centis as f64 * 10.0));
        }
    }
    Ok(Measure {
        depth: last.depth,
        nodes: last.nodes,
        ms: (last.centis as f64 * 10.0).max(1.0),
        depth_ms,
    })
}

fn depths(m: &Measure) -> String {
    m.depth_ms.iter().map(|(d, t)| format!("{d}:{t:.0}")).collect::<Vec<_>>().join(" ")
}

/// Run the benchmark: `variants` (default all four), each position at each move time.
pub fn run(
    variants: &[String],
    movetimes: &[u64],
    hachu_path: Option<&str>,
    eval: Option<&str>,
) -> Result<()> {
    let names: Vec<String> = if variants.is_empty() {
        ["shogi", "chu", "tenjiku", "tai"].map(String::from).to_vec()
    } else {
        variants.to_vec()
    };
    println!(
        "{:<8} {:<8} {:<9} {:>6} {:>6} {:>10} {:>8} {:>10}  time to depth (depth:ms)",
        "variant", "position", "engine", "ms", "depth", "nodes", "ms used", "nodes/s"
    );
    for name in names {
        let v =
            Variant::builtin(&name).with_context(|| format!("bench search: variant {name:?}"))?;
        let default = format!("models/{name}.psq");
        let eval = eval.map(String::from).unwrap_or(if std::path::Path::new(&default).exists() {
            default
        } else {
            "material".into()
        });
        let psq = load_evaluator(&v, &eval).map_err(anyhow::Error::msg)?;
        let mut engine = Engine::new(Arc::new(psq), Options::default());
        for (label, game) in positions(&v) {
            for &ms in movetimes {
                let mut rows = vec![("shogilab", ours(&mut engine, &game, ms))];
                if let (Some(path), "chu") = (hachu_path, name.as_str()) {
                    rows.push(("HaChu", hachu(path, &v, &game, ms)?));
                }
                for (who, m) in rows {
                    println!(
                        "{:<8} {:<8} {:<9} {:>6} {:>6} {:>10} {:>8.0} {:>10.0}  {}",
                        name,
                        label,
                        who,
                        ms,
                        m.depth,
                        m.nodes,
                        m.ms,
                        m.nps(),
                        depths(&m)
                    );
                    println!(
                        "{}",
                        serde_json::json!({"variant": name, "position": label, "engine": who, "evaluator": if who == "HaChu" { "" } else { eval.as_str() }, "movetime_ms": ms, "depth": m.depth, "nodes": m.nodes, "ms": m.ms, "nps": m.nps().round(), "depth_ms": m.depth_ms})
                    );
                }
            }
        }
    }
    Ok(())
}
