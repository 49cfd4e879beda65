//! `shogilab bench`: the engine's speed figures (perft node rates, random-playout plies/s) for
//! every built-in variant, printed as a table and as JSON lines. Release builds only give
//! meaningful numbers.

use anyhow::Result;
use clap::Args;
use rand::{rngs::SmallRng, Rng, SeedableRng};
use shogilab_engine::{Convention, Game, Perft, Position, Variant};
use std::time::Instant;

#[derive(Args)]
pub struct BenchArgs {
    /// Variants to measure (default: all built-in ones that load).
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
}

fn perft_depth(name: &str) -> u32 {
    match name {
        "shogi" => 5,
        "chu" => 4,
        _ => 3,
    }
}

pub fn run(a: BenchArgs) -> Result<()> {
    let names: Vec<String> = if a.variants.is_empty() {
        ["shogi", "chu", "tenjiku", "tai"].iter().map(|s| s.to_string()).collect()
    } else {
        a.variants.clone()
    };
    println!(
        "{:<10} {:>6} {:>14} {:>9} {:>14} {:>12}",
        "variant", "depth", "perft nodes", "seconds", "nodes/s", "playout p/s"
    );
    for name in names {
        let v = match Variant::builtin(&name) {
            Ok(v) => v,
            Err(e) => {
                eprintln!("skipping {name}: {e}");
                continue;
            }
        };
        let depth = perft_depth(&v.name);
        let mut best = f64::MAX;
        let mut nodes = 0;
        for _ in 0..a.repeat.max(1) {
            let mut pos = Position::start(&v);
            let mut p = Perft::new(Convention::Distinct);
            let t0 = Instant::now();
            nodes = p.count(&mut pos, depth);
            best = best.min(t0.elapsed().as_secs_f64());
        }
        let mut rng = SmallRng::seed_from_u64(1);
        let t0 = Instant::now();
        let mut plies = 0usize;
        for _ in 0..a.games {
            let mut g = Game::new(Position::start(&v));
            g.set_max_plies(a.max_plies);
            while !g.status().is_over() {
                let l = g.legal();
                let m = l[rng.gen_range(0..l.len())];
                g.play(m);
            }
            plies += g.plies();
        }
        let ps = t0.elapsed().as_secs_f64();
        let nps = nodes as f64 / best;
        let pps = plies as f64 / ps;
        println!(
            "{:<10} {:>6} {:>14} {:>9.3} {:>14.0} {:>12.0}",
            v.name, depth, nodes, best, nps, pps
        );
        println!(
            "{}",
            serde_json::json!({"variant": v.name, "perft_depth": depth, "perft_nodes": nodes,
                "perft_seconds": best, "perft_nps": nps.round(), "playout_games": a.games,
                "playout_plies": plies, "playout_plies_per_second": pps.round()})
        );
    }
    Ok(())
}
