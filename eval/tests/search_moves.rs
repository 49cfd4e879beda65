//! The moves both alpha-beta engines play on fixed positions, recorded with the code of commit
//! 183046f, before the two engines were merged into one search core (`shogilab_eval::search`):
//! the `alphabeta` match agent (with and without quiescence, and with a node limit that aborts
//! its iterative deepening) and the imbalance engine of `shogilab values` (one shared budget or
//! one per root move, depth 1 and 2, budgets small enough to run out). A change in the core that
//! alters a single move fails here, beside the replay of the committed imbalance logs (which
//! covers only the depth-1 engine of the logs).

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use shogilab_engine::{Game, Position, Variant};
use shogilab_eval::agent::{Agent, Choice, Limits};
use shogilab_eval::values::searcher::{EngineSettings, Searcher};
use shogilab_eval::AlphaBetaAgent;
use shogilab_selfplay::PieceValues;
use std::collections::HashSet;
use std::sync::Arc;

/// Start positions, then positions reached by seeded random walks of a few lengths.
fn positions(variant: &str) -> Vec<Game> {
    let v = Variant::builtin(variant).unwrap();
    let mut out = Vec::new();
    for (seed, plies) in [
        (0u64, 0usize),
        (1, 7),
        (2, 16),
        (3, 30),
        (4, 55),
        (5, 11),
        (6, 24),
        (7, 40),
        (8, 70),
        (9, 90),
    ] {
        let mut game = Game::new(Position::start(&v));
        let mut rng = SmallRng::seed_from_u64(seed);
        for _ in 0..plies {
            if game.status().is_over() {
                break;
            }
            let legal = game.legal().to_vec();
            game.play(legal[rng.gen_range(0..legal.len())]);
        }
        out.push(game);
    }
    out
}

/// The match agent's move on every position, as USI.
fn alphabeta_moves(variant: &str, depth: u32, quiescence: bool, nodes: Option<u64>) -> String {
    let v = Variant::builtin(variant).unwrap();
    let mut agent = AlphaBetaAgent::new(PieceValues::mobility(Arc::clone(&v)), depth, quiescence);
    let limits = Limits { nodes, movetime_ms: None };
    let mut moves = Vec::new();
    for game in positions(variant) {
        match agent.choose(&game, &limits).unwrap() {
            Choice::Move(m) => moves.push(game.position().move_to_usi(m)),
            other => panic!("{variant}: not a move: {other:?}"),
        }
    }
    moves.join(" ")
}

/// The imbalance engine's move on every position (the game's positions count as seen, jitter
/// seeded per position), as USI.
fn imbalance_moves(variant: &str, depth: u32, root_budget: bool, node_budget: u64) -> String {
    let v = Variant::builtin(variant).unwrap();
    // the defaults of the imbalance games: advance bonus 3, jitter ±30, repeat penalty 500
    let settings = EngineSettings { depth, node_budget, root_budget, advance_cp: 3 };
    let mut searcher = Searcher::new(&v, settings);
    let mut moves = Vec::new();
    for (i, game) in positions(variant).into_iter().enumerate() {
        let mut seen: HashSet<u64> = game.position_hashes().collect();
        seen.insert(game.position().hash());
        let mut rng = SmallRng::seed_from_u64(100 + i as u64);
        let m = searcher.choose(&game, &seen, 30, 500, &mut rng).expect("a legal move");
        moves.push(game.position().move_to_usi(m));
    }
    moves.join(" ")
}

/// The moves of [`positions`] per variant and engine, recorded before the merge: `variant
/// engine moves...`, the engine as `ab-DEPTH{q,noq}[-nNODES]` (the match agent, its node limit)
/// or `imbalance-dDEPTH-{shared,each}[-nBUDGET]` (budget 20,000 unless given).
const RECORDED: &str = "\
shogi ab-2q 9g9f 9a9b 1e1f 7g5e 2b3c 9a9b 9g9f 1e1d P*5c 8e7c
shogi ab-2noq 9g9f 9a9b 1e1f 5f5e 2b3c 9a9b 9g9f 1e1d 5e6e 8e7c
shogi ab-3q-n3000 9g9f 9a9b 1e1f 7g5e 2b3c 9a9b 9g9f 1e1d P*5c 8e7c
shogi imbalance-d1-shared 3i4h 8a7c 1e2f 7g5e 2b3c 7d7e 3g3f 1e1d P*5c 8e7c
shogi imbalance-d1-shared-n300 3i4h 8a7c 1e2f 7g5e 2b3c 7d7e 3g3f 1e1d 5e5d 3d3b+
shogi imbalance-d1-each 3i4h 8a7c 1e2f 7g5e 2b3c 7d7e 3g3f 1e1d P*5c 8e7c
shogi imbalance-d2-each 3i4h 8a7c 1e2f 7g5e 2b3c 7d7e 3g3f 1e1d P*5c 8e7c
shogi imbalance-d2-each-n500 3i4h 8a7c 1e2f 7g5e 2b3c 7d7e 3g3f 1e1d P*5c 8e7c
chu ab-2q 9h9g 8f8g 6h6g 11e12d11d 2i3h 8f8g 4g4f 11j11k 9j9k 1g3g
chu ab-2noq 9h9g 8f8e 6h6g 11e12d12c 2i3h 11a11b 4g4h 11j11k 9j9k 8j7j
chu ab-3q-n3000 9h9g 8f8g 6h6g 11e12d11d 2i3h 8f8g 4g4f 11j11k 9j9k 1g3g
chu imbalance-d1-shared 7j8h 8f9f 6h6g 11e12d11d 2i3h 9c6f 7j5i 10l11k 9l9k 1g3g
chu imbalance-d1-shared-n300 7j8h 8f9f 6h6g 11e12d12c 10e10f 9c6f 7j5i 10l11k 4j5k 8j7j
chu imbalance-d1-each 7j8h 8f9f 6h6g 11e12d11d 2i3h 9c6f 7j5i 10l11k 9l9k 1g3g
chu imbalance-d2-each 7j8h 8f8g 6h6g 11e12d11d 2i3h 8f8g 7j5i 10l11k 9l9k 1g3g
chu imbalance-d2-each-n500 7j8h 8f9f 6h6g 11e12d11d 2i3h 9c6f 7j5i 10l11k 9l9k 1g3g
tenjiku ab-2q 11m1c 11d3l+ 3e2g 9m8n 1e1f 3l4m 16m14m 10m3f 1k4k 1j4k
tenjiku ab-2noq 11m1c+ 11d3l+ 2p3n 3c4d 1e1f 3l4m+ 16m14m 1c2d+ 1k4k 4l4k
tenjiku ab-3q-n3000 9m9c 11d3l+ 9m9c 3c4d 1e1f 3l4m 9m9c 10m3f 1k4k 1j4k
tenjiku imbalance-d1-shared 6m16c+ 11d3l+ 4o3n 3c4d 8b8c 3l4m+ 9m14m 1c2d+ 4m4k 1j4k
tenjiku imbalance-d1-shared-n300 6m16c+ 11d3l+ 4o3n 3c4d 1e1f 3l4m+ 9m14m 1c2d+ 5e3e+ 16e13c
tenjiku imbalance-d1-each 6m16c 11d3l+ 3e4d 14m14d+ 8b8c 3l4m+ 3e4d 10m3f 4m4k 1j4k
tenjiku imbalance-d2-each 6m16c 8d2d 3e1h 9m8n 8b8c 3l4m+ 9m14m 10m3f 4m4k 1j4k
tenjiku imbalance-d2-each-n500 6m16c+ 11d3l+ 3e1h 9m8n 8b8c 3l4m+ 9m14m 1c2d+ 4m4k 1j4k
";

/// The moves `engine` (named as in [`RECORDED`]) plays on the positions of `variant`.
fn moves_of(variant: &str, engine: &str) -> String {
    let parts: Vec<&str> = engine.split('-').collect();
    let nodes = parts.iter().find_map(|p| p.strip_prefix('n')?.parse::<u64>().ok());
    match parts[0] {
        "ab" => {
            let (depth, q) = parts[1].split_at(1);
            alphabeta_moves(variant, depth.parse().unwrap(), q == "q", nodes)
        }
        "imbalance" => {
            let depth = parts[1].trim_start_matches('d').parse().unwrap();
            imbalance_moves(variant, depth, parts[2] == "each", nodes.unwrap_or(20_000))
        }
        other => panic!("unknown engine {other}"),
    }
}

#[test]
fn both_engines_play_the_moves_recorded_before_the_merge() {
    let mut cases = 0;
    for line in RECORDED.lines() {
        let [variant, engine, moves] = line.splitn(3, ' ').collect::<Vec<_>>()[..] else {
            panic!("bad line {line:?}")
        };
        assert_eq!(moves_of(variant, engine), moves, "{variant} {engine}");
        cases += 1;
    }
    assert_eq!(cases, 24);
}
