//! How deep the root screen's search gets in a time budget: for every SFEN of a file, the depth
//! completed and the nodes searched by the screen's material alpha-beta (as `mcts:EVAL:screen=3`
//! runs it) with the quiescence moves taken from every legal move (`PositiveKey`), from the
//! capture generator (`Captures`, what the screen uses in shogi, chu and tenjiku) and from it less
//! the losing captures (`SafeCaptures`, what it uses in tai); with a fourth argument K, also the
//! screen of candidates (`screen=3:top=K`) over the [`candidates`] it would search, with the
//! variant's quiescence moves ([`screen_quiescence`]); a fifth argument sets the screen's depth
//! instead of 3.
//!
//! ```sh
//! cargo run --release -p shogilab-eval --example screen_depth -- VARIANT MILLISECONDS FILE_OF_SFENS [K [DEPTH]]
//! ```
//! (`shogilab replay --final-sfen` cuts game records into such a file.) Where both generators
//! complete the same depth, equal node counts show that they search the same tree. The
//! candidates' policy moves are the first K legal moves here (a uniform policy: the example
//! has no network); what the screen's time depends on is how many moves it searches.

use shogilab_engine::{Game, Move, Position, Variant};
use shogilab_eval::root_screen::{candidates, screen_quiescence, RootScreen, DEFAULT_MARGIN};
use shogilab_eval::search::QuiescenceMoves;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |s: &String| s.parse::<usize>().map_err(|e| format!("{s}: {e}"));
    let (variant, ms, file, top, depth) = match args.as_slice() {
        [v, ms, f] => (v, ms, f, None, 3),
        [v, ms, f, k] => (v, ms, f, Some(number(k)?), 3),
        [v, ms, f, k, d] => (v, ms, f, Some(number(k)?), number(d)? as u32),
        _ => {
            return Err("usage: screen_depth VARIANT MILLISECONDS FILE_OF_SFENS [K [DEPTH]]".into())
        }
    };
    let v = Variant::builtin(variant).map_err(|e| format!("{variant}: {e}"))?;
    let ms: u64 = ms.parse().map_err(|e| format!("{ms}: not a number of milliseconds: {e}"))?;
    let budget = Duration::from_millis(ms);
    let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
    for (i, sfen) in text.lines().enumerate() {
        let pos = Position::from_sfen(&v, sfen).map_err(|e| format!("{file}:{}: {e}", i + 1))?;
        let game = Game::new(pos);
        let mut row = format!("position {}: {} moves", i + 1, game.legal().len());
        let every = [
            QuiescenceMoves::PositiveKey,
            QuiescenceMoves::Captures,
            QuiescenceMoves::SafeCaptures,
        ];
        for moves in every {
            let (done, nodes, took) = screen(&v, &game, (moves, depth), &[], budget);
            row += &format!(" | {moves:?}: depth {done}, {nodes} nodes, {} ms", took.as_millis());
        }
        if let Some(k) = top {
            let uniform = vec![1.0 / game.legal().len() as f32; game.legal().len()];
            let among = candidates(game.position(), game.legal(), &uniform, k);
            let captures = (screen_quiescence(&v), depth);
            let (done, nodes, took) = screen(&v, &game, captures, &among, budget);
            row += &format!(
                " | {} candidates: depth {done}, {nodes} nodes, {} ms",
                among.len(),
                took.as_millis()
            );
        }
        println!("{row}");
    }
    Ok(())
}

/// The depth completed, the nodes and the time of a screen (its quiescence moves, its depth) of
/// the moves `among` (empty: all) within `budget`.
fn screen(
    v: &Arc<Variant>,
    game: &Game,
    (moves, depth): (QuiescenceMoves, u32),
    among: &[Move],
    budget: Duration,
) -> (u32, u64, Duration) {
    let mut screen = RootScreen::with_quiescence(v, depth, DEFAULT_MARGIN, moves);
    let t0 = Instant::now();
    screen.allowed_among(game, among, Some(t0 + budget));
    (screen.depth_completed(), screen.nodes(), t0.elapsed())
}
