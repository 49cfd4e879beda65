//! `shogilab playout`: seeded uniformly random playouts to the end of the game.

use super::VariantArgs;
use anyhow::Result;
use clap::Args;
use rand::{rngs::SmallRng, Rng, SeedableRng};
use shogilab_engine::{Game, Move, Position, Status, Variant};
use shogilab_fsio::write_atomic;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

#[derive(Args)]
pub struct PlayoutArgs {
    #[command(flatten)]
    pub variant: VariantArgs,
    /// Number of games.
    #[arg(long, short = 'n', default_value_t = 10)]
    pub games: usize,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Ply cap (a draw when reached); 0 = none.
    #[arg(long, default_value_t = 2000)]
    pub max_plies: u32,
    /// Write each game as one line in the `replay` syntax.
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
    /// Print a JSON summary as the last line.
    #[arg(long)]
    pub json: bool,
}

/// One uniformly random game from the start of `v`, capped at `max_plies` (0: no cap);
/// `on_move` sees each position and the move drawn in it before the move is played.
pub fn random_game(
    v: &Arc<Variant>,
    rng: &mut SmallRng,
    max_plies: u32,
    mut on_move: impl FnMut(&Position, Move),
) -> Game {
    let mut game = Game::new(Position::start(v));
    game.set_max_plies(max_plies);
    while !game.status().is_over() {
        let legal = game.legal();
        let m = legal[rng.gen_range(0..legal.len())];
        on_move(game.position(), m);
        game.play(m);
    }
    game
}

pub fn run(a: PlayoutArgs) -> Result<()> {
    let v = a.variant.load()?;
    let mut rng = SmallRng::seed_from_u64(a.seed);
    let mut results: BTreeMap<String, usize> = BTreeMap::new();
    let mut terms: BTreeMap<String, usize> = BTreeMap::new();
    let mut lines = String::new();
    let mut total_plies = 0usize;
    let t0 = Instant::now();
    for _ in 0..a.games {
        let mut moves = Vec::new();
        let game = random_game(&v, &mut rng, a.max_plies, |pos, m| {
            if a.out.is_some() {
                moves.push(pos.move_to_usi(m));
            }
        });
        total_plies += game.plies();
        let st = game.status();
        let res = match st {
            Status::Win(c, _) => format!("{c:?}").to_lowercase(),
            _ => "draw".into(),
        };
        *results.entry(res).or_default() += 1;
        *terms
            .entry(st.termination().map(|t| t.as_str()).unwrap_or("?").to_string())
            .or_default() += 1;
        if a.out.is_some() {
            lines.push_str("startpos moves");
            for m in &moves {
                lines.push(' ');
                lines.push_str(m);
            }
            lines.push('\n');
        }
    }
    let secs = t0.elapsed().as_secs_f64();
    if let Some(p) = &a.out {
        write_atomic(p, lines.as_bytes())?;
    }
    let pps = total_plies as f64 / secs.max(1e-9);
    if a.json {
        println!(
            "{}",
            serde_json::json!({
                "variant": v.name, "games": a.games, "seed": a.seed, "plies": total_plies,
                "mean_plies": total_plies as f64 / a.games.max(1) as f64,
                "seconds": secs, "plies_per_second": pps.round(),
                "results": results, "terminations": terms,
            })
        );
    } else {
        println!("{} games, {total_plies} plies in {secs:.2} s ({pps:.0} plies/s)", a.games);
        println!("results: {results:?}");
        println!("terminations: {terms:?}");
    }
    Ok(())
}
