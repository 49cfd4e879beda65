//! `shogilab bench`: the engine's speed figures (perft node rates, random-playout plies/s, and
//! the imbalance engine of `shogilab values`: fixed games, so before/after comparisons play the
//! same moves) for every built-in variant, printed as a table and as JSON lines. Release builds
//! only give meaningful numbers.

use anyhow::{Context, Result};
use clap::Args;
use rand::{rngs::SmallRng, SeedableRng};
use shogilab_cli::engine_cmds::playout::random_game;
use shogilab_engine::{Convention, Perft, Position, Variant};
use shogilab_eval::values::imbalance::{play_one, ImbalanceConfig, Players};
use shogilab_eval::values::Kinds;
use std::sync::Arc;
use std::time::Instant;

#[derive(Args)]
pub struct BenchArgs {
    /// `search`: the searching engine's speed and depth at fixed move times (with HaChu's beside
    /// it for chu); without it, the rules engine's speed.
    pub what: Option<String>,
    /// Move times of `bench search` (milliseconds).
    #[arg(long, value_delimiter = ',', default_value = "100,300,1000")]
    pub movetimes: Vec<u64>,
    /// HaChu for `bench search` on chu (an XBoard engine); `none` to leave it out.
    #[arg(long, default_value = "/usr/games/hachu")]
    pub hachu: String,
    /// Evaluator of `bench search` (default: models/<variant>.psq where it exists, else material).
    #[arg(long)]
    pub eval: Option<String>,
    /// Built-in variants to measure (default: all four).
    #[arg(long = "variant", short = 'v')]
    pub variants: Vec<String>,
    /// Random playouts per variant.
    #[arg(long, default_value_t = 20)]
    pub games: usize,
    /// Ply cap for the playouts.
    #[arg(long, default_value_t = 1000)]
    pub max_plies: u32,
    /// Repetitions of each perft (the fastest is reported).
    #[arg(long, default_value_t = 3)]
    pub repeat: usize,
    /// Imbalance games per variant (`shogilab values`' engine: setups 0, 0, 1, 1, ... of the
    /// first setup rules, seed 1, ply cap chu 500, tai 300, others 400, as the committed logs;
    /// one thread); 0 skips them.
    #[arg(long, default_value_t = 6)]
    pub imbalance_games: usize,
}

/// Play the first `games` imbalance games of `v` on this thread: (plies, seconds).
fn imbalance_bench(v: &Arc<Variant>, games: usize) -> Result<(usize, f64)> {
    let cap = match v.name.as_str() {
        "chu" => 500,
        "tai" => 300,
        _ => 400,
    };
    let cfg = ImbalanceConfig { max_plies: cap, ..ImbalanceConfig::default() };
    let kinds = Kinds::new(v);
    let mut players = Players::new(v, &cfg)?;
    let t0 = Instant::now();
    let mut plies = 0;
    for i in 0..games {
        plies += play_one(v, &kinds, &cfg, &mut players, i / 2, (i % 2) as u8)?.plies as usize;
    }
    Ok((plies, t0.elapsed().as_secs_f64()))
}

fn perft_depth(name: &str) -> u32 {
    match name {
        "shogi" => 5,
        "chu" => 4,
        _ => 3,
    }
}

/// Perft of the start position to `depth`, `repeat` times: the node count and the best time.
fn perft_best(v: &Arc<Variant>, depth: u32, repeat: usize) -> (u64, f64) {
    let mut best = f64::MAX;
    let mut nodes = 0;
    for _ in 0..repeat {
        let mut pos = Position::start(v);
        let mut p = Perft::new(Convention::Distinct);
        let t0 = Instant::now();
        nodes = p.count(&mut pos, depth);
        best = best.min(t0.elapsed().as_secs_f64());
    }
    (nodes, best)
}

/// `games` uniformly random games from the start (seed 1), capped at `max_plies`: the plies
/// played and the seconds they took.
fn random_playouts(v: &Arc<Variant>, games: usize, max_plies: u32) -> (usize, f64) {
    let mut rng = SmallRng::seed_from_u64(1);
    let t0 = Instant::now();
    let mut plies = 0usize;
    for _ in 0..games {
        plies += random_game(v, &mut rng, max_plies, |_, _| ()).plies();
    }
    (plies, t0.elapsed().as_secs_f64())
}

pub fn run(a: BenchArgs) -> Result<()> {
    match a.what.as_deref() {
        None => {}
        Some("search") => {
            let hachu = (a.hachu != "none").then_some(a.hachu.as_str());
            return super::bench_search::run(&a.variants, &a.movetimes, hachu, a.eval.as_deref());
        }
        Some(other) => {
            anyhow::bail!("bench: unknown benchmark {other:?}; expected `search` or nothing")
        }
    }
    let names: Vec<String> = if a.variants.is_empty() {
        ["shogi", "chu", "tenjiku", "tai"].iter().map(|s| s.to_string()).collect()
    } else {
        a.variants.clone()
    };
    // every variant loads before anything is measured: a bad name prints nothing else
    let variants = names
        .iter()
        .map(|name| Variant::builtin(name).with_context(|| format!("bench: variant {name:?}")))
        .collect::<Result<Vec<_>>>()?;
    println!(
        "{:<10} {:>6} {:>14} {:>9} {:>14} {:>12} {:>13} {:>12}",
        "variant",
        "depth",
        "perft nodes",
        "seconds",
        "nodes/s",
        "playout p/s",
        "imbalance g/h",
        "imbalance p/s"
    );
    for v in variants {
        let depth = perft_depth(&v.name);
        let (nodes, best) = perft_best(&v, depth, a.repeat.max(1));
        let (plies, ps) = random_playouts(&v, a.games, a.max_plies);
        let nps = nodes as f64 / best;
        let pps = plies as f64 / ps;
        let (iplies, isecs) = imbalance_bench(&v, a.imbalance_games)?;
        let per_hour = a.imbalance_games as f64 / isecs.max(1e-9) * 3600.0;
        let iplies_s = iplies as f64 / isecs.max(1e-9);
        println!(
            "{:<10} {:>6} {:>14} {:>9.3} {:>14.0} {:>12.0} {:>13.0} {:>12.0}",
            v.name, depth, nodes, best, nps, pps, per_hour, iplies_s
        );
        println!(
            "{}",
            serde_json::json!({"variant": v.name, "perft_depth": depth, "perft_nodes": nodes,
                "perft_seconds": best, "perft_nps": nps.round(), "playout_games": a.games,
                "playout_plies": plies, "playout_plies_per_second": pps.round(),
                "imbalance_games": a.imbalance_games, "imbalance_plies": iplies,
                "imbalance_seconds": isecs, "imbalance_games_per_hour": per_hour.round()})
        );
    }
    Ok(())
}
