//! `shogilab perft`: count the legal-move tree.

use super::VariantArgs;
use anyhow::{bail, Result};
use clap::Args;
use shogilab_engine::{Convention, Perft, Position};
use std::time::Instant;

#[derive(Args)]
pub struct PerftArgs {
    #[command(flatten)]
    pub variant: VariantArgs,
    /// Start from this SFEN instead of the start position.
    #[arg(long)]
    pub sfen: Option<String>,
    /// Depth in plies.
    #[arg(long, short = 'd')]
    pub depth: u32,
    /// Print the count below each root move.
    #[arg(long)]
    pub divide: bool,
    /// Counting convention: distinct (one move per outcome) or lishogi (every path and pass
    /// written as its own USI move, as lishogi counts chushogi).
    #[arg(long, default_value = "distinct")]
    pub convention: String,
    /// Print a JSON object as the last line.
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: PerftArgs) -> Result<()> {
    let v = a.variant.load()?;
    let conv = match a.convention.as_str() {
        "distinct" | "default" => Convention::Distinct,
        "lishogi" => Convention::Lishogi,
        o => bail!("--convention {o:?}: expected distinct or lishogi"),
    };
    let sfen = a.sfen.clone().unwrap_or_else(|| v.spec.start.clone());
    let mut pos = Position::from_sfen(&v, &sfen)?;
    let mut p = Perft::new(conv);
    let t0 = Instant::now();
    let nodes = if a.divide {
        let rows = p.divide(&mut pos, a.depth);
        for (m, n) in &rows {
            println!("{m}: {n}");
        }
        rows.iter().map(|r| r.1).sum()
    } else {
        p.count(&mut pos, a.depth)
    };
    let secs = t0.elapsed().as_secs_f64();
    let nps = nodes as f64 / secs.max(1e-9);
    if a.json {
        println!(
            "{}",
            serde_json::json!({
                "variant": v.name, "sfen": sfen, "depth": a.depth, "convention": a.convention,
                "nodes": nodes, "seconds": secs, "nps": nps.round(),
            })
        );
    } else {
        println!("perft({}) = {nodes}  [{:.3} s, {:.0} nodes/s]", a.depth, secs, nps);
    }
    Ok(())
}
