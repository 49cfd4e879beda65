//! How deep the root screen's search gets in a time budget, with each quiescence move generator:
//! for every SFEN of a file, the depth completed and the nodes searched by the screen's material
//! alpha-beta (as `mcts:EVAL:screen=3` runs it) with the quiescence moves taken from every legal
//! move (`PositiveKey`) and from the capture generator (`Captures`, what the screen uses).
//!
//! ```sh
//! cargo run --release -p shogilab-eval --example screen_depth -- VARIANT MILLISECONDS FILE_OF_SFENS
//! ```
//! (`shogilab replay --final-sfen` cuts game records into such a file.) Where both complete the
//! same depth, equal node counts show that the two generators search the same tree.

use shogilab_engine::{Game, Position, Variant};
use shogilab_eval::root_screen::{RootScreen, DEFAULT_MARGIN};
use shogilab_eval::search::QuiescenceMoves;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [variant, ms, file] = args.as_slice() else {
        return Err("usage: screen_depth VARIANT MILLISECONDS FILE_OF_SFENS".into());
    };
    let v = Variant::builtin(variant).map_err(|e| format!("{variant}: {e}"))?;
    let ms: u64 = ms.parse().map_err(|e| format!("{ms}: not a number of milliseconds: {e}"))?;
    let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
    for (i, sfen) in text.lines().enumerate() {
        let pos = Position::from_sfen(&v, sfen).map_err(|e| format!("{file}:{}: {e}", i + 1))?;
        let game = Game::new(pos);
        let mut row = format!("position {}: {} moves", i + 1, game.legal().len());
        for moves in [QuiescenceMoves::PositiveKey, QuiescenceMoves::Captures] {
            let (depth, nodes, took) = screen(&v, &game, moves, Duration::from_millis(ms));
            row += &format!(" | {moves:?}: depth {depth}, {nodes} nodes, {} ms", took.as_millis());
        }
        println!("{row}");
    }
    Ok(())
}

/// The depth completed, the nodes and the time of a depth-3 screen within `budget`.
fn screen(
    v: &Arc<Variant>,
    game: &Game,
    moves: QuiescenceMoves,
    budget: Duration,
) -> (u32, u64, Duration) {
    let mut screen = RootScreen::with_quiescence(v, 3, DEFAULT_MARGIN, moves);
    let t0 = Instant::now();
    screen.allowed(game, Some(t0 + budget));
    (screen.depth_completed(), screen.nodes(), t0.elapsed())
}
