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

/// What the playouts added up to: results, terminations, plies and the replay lines.
#[derive(Default)]
struct Tally {
    results: BTreeMap<String, usize>,
    terminations: BTreeMap<String, usize>,
    plies: usize,
    lines: String,
}

impl Tally {
    /// Count a finished game; its moves (USI) become a `startpos moves ...` line when kept.
    fn add(&mut self, game: &Game, moves: &[String], keep_line: bool) {
        self.plies += game.plies();
        let st = game.status();
        let res = match st {
            Status::Win(c, _) => format!("{c:?}").to_lowercase(),
            _ => "draw".into(),
        };
        *self.results.entry(res).or_default() += 1;
        let term = st.termination().map(|t| t.as_str()).unwrap_or("?").to_string();
        *self.terminations.entry(term).or_default() += 1;
        if keep_line {
            self.lines.push_str("startpos moves");
            for m in moves {
                self.lines.push(' ');
                self.lines.push_str(m);
            }
            self.lines.push('\n');
        }
    }

    /// The summary: a JSON line (`json`) or three lines for a person.
    fn print(&self, a: &PlayoutArgs, variant: &str, secs: f64) {
        let (plies, results, terms) = (self.plies, &self.results, &self.terminations);
        let pps = plies as f64 / secs.max(1e-9);
        if a.json {
            println!(
                "{}",
                serde_json::json!({
                    "variant": variant, "games": a.games, "seed": a.seed, "plies": plies,
                    "mean_plies": plies as f64 / a.games.max(1) as f64,
                    "seconds": secs, "plies_per_second": pps.round(),
                    "results": results, "terminations": terms,
                })
            );
        } else {
            println!("{} games, {plies} plies in {secs:.2} s ({pps:.0} plies/s)", a.games);
            println!("results: {results:?}");
            println!("terminations: {terms:?}");
        }
    }
}

/// Play the games, write their lines where asked, and print the summary.
pub fn run(a: PlayoutArgs) -> Result<()> {
    let v = a.variant.load()?;
    let mut rng = SmallRng::seed_from_u64(a.seed);
    let mut tally = Tally::default();
    let t0 = Instant::now();
    for _ in 0..a.games {
        let mut moves = Vec::new();
        let game = random_game(&v, &mut rng, a.max_plies, |pos, m| {
            if a.out.is_some() {
                moves.push(pos.move_to_usi(m));
            }
        });
        tally.add(&game, &moves, a.out.is_some());
    }
    let secs = t0.elapsed().as_secs_f64();
    if let Some(p) = &a.out {
        write_atomic(p, tally.lines.as_bytes())?;
    }
    tally.print(&a, &v.name, secs);
    Ok(())
}
