//! Perft speed check: counts the move tree of a built-in variant's start position several
//! times and prints nodes and the best and median nodes/s, so that a change to move
//! generation can be timed back to back without the `shogilab` binary.
//!
//! `cargo run --release -p shogilab-engine --example perft_speed -- <variant> <depth> [repeats]`

use shogilab_engine::{Convention, Perft, Position, Variant};
use std::process::ExitCode;
use std::time::Instant;

/// Parses the arguments, runs the repeats and prints one line per variant.
fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(name), Some(depth)) = (args.first(), args.get(1)) else {
        eprintln!("usage: perft_speed <variant> <depth> [repeats]");
        return ExitCode::FAILURE;
    };
    let Ok(depth) = depth.parse::<u32>() else {
        eprintln!("depth {depth:?}: expected a non-negative integer");
        return ExitCode::FAILURE;
    };
    let repeats = match args.get(2).map(|r| r.parse::<usize>()) {
        None => 3,
        Some(Ok(r)) if r > 0 => r,
        Some(_) => {
            eprintln!("repeats {:?}: expected a positive integer", args[2]);
            return ExitCode::FAILURE;
        }
    };
    let v = match Variant::builtin(name) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("variant {name:?}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut pos = Position::start(&v);
    let mut rates = Vec::with_capacity(repeats);
    let mut nodes = 0;
    for _ in 0..repeats {
        let t0 = Instant::now();
        nodes = Perft::new(Convention::Distinct).count(&mut pos, depth);
        rates.push(nodes as f64 / t0.elapsed().as_secs_f64().max(1e-9));
    }
    rates.sort_by(f64::total_cmp);
    let median = rates[rates.len() / 2];
    let best = rates[rates.len() - 1];
    println!("{name} d{depth}: {nodes} nodes, best {best:.0} nodes/s, median {median:.0} nodes/s");
    ExitCode::SUCCESS
}
