//! The search on positions whose answer is known independently of the engine: mates, free
//! material, and the properties every search result must have (limits, distinct lines).

use shogilab_engine::{Game, Position, Variant};
use shogilab_search::evaluator::Psq;
use shogilab_search::score::{shown, Shown};
use shogilab_search::{Engine, Limits, Options};
use std::sync::Arc;

fn engine(v: &Arc<Variant>, options: Options) -> Engine {
    let mut values = shogilab_engine::material::mobility(v);
    shogilab_engine::material::royal_floor(v, &mut values);
    Engine::new(Arc::new(Psq::from_values(Arc::clone(v), &values, 600.0)), options)
}

fn search(
    v: &Arc<Variant>,
    sfen: &str,
    limits: Limits,
    options: Options,
) -> (Game, shogilab_search::Outcome) {
    let game = Game::new(Position::from_sfen(v, sfen).unwrap());
    let out = engine(v, options).search(&game, limits, &mut |_| {}).unwrap();
    (game, out)
}

fn depth(d: u32) -> Limits {
    Limits { depth: Some(d), ..Limits::default() }
}

/// A gold dropped on 5b in front of the pawn on 5c mates the bare king on 5a (the README's
/// perft example position; the mate is the only winning drop).
#[test]
fn a_drop_mate_in_one_is_found_and_shown_as_mate_1() {
    let v = Variant::builtin("shogi").unwrap();
    let (game, out) = search(&v, "4k4/9/4P4/9/9/9/9/9/4K4 b G 1", depth(3), Options::default());
    assert_eq!(game.position().move_to_usi(out.best), "G*5b");
    assert_eq!(shown(out.score), Shown::Mate(1));
}

/// Chu has no check rule: a king left where it can be taken is taken. White's king on 7f stands
/// in front of Black's dragon king on 7g (a pawn each keeps the bare-king rule out).
#[test]
fn in_chu_a_royal_that_can_be_taken_is_taken() {
    let v = Variant::builtin("chu").unwrap();
    let sfen = "p11/12/12/12/12/5k6/5D6/12/12/12/12/P5K5 b - 1";
    let (game, out) = search(&v, sfen, depth(2), Options::default());
    assert_eq!(game.position().move_to_usi(out.best), "7g7f");
    assert_eq!(shown(out.score), Shown::Mate(1));
}

#[test]
fn a_node_limit_is_kept_and_the_answer_is_a_legal_move() {
    let v = Variant::builtin("chu").unwrap();
    let game = Game::new(Position::start(&v));
    let mut e = engine(&v, Options::default());
    let out =
        e.search(&game, Limits { nodes: Some(5_000), ..Limits::default() }, &mut |_| {}).unwrap();
    assert!(out.nodes <= 5_000, "{}", out.nodes);
    assert!(game.legal().contains(&out.best));
}

#[test]
fn several_principal_variations_start_with_distinct_moves_best_first() {
    let v = Variant::builtin("shogi").unwrap();
    let options = Options { multipv: 3, ..Options::default() };
    let sfen = "lnsgkgsnl/7b1/ppppppppp/9/9/4r4/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";
    let (game, out) = search(&v, sfen, depth(4), options);
    assert_eq!(out.lines.len(), 3);
    let firsts: Vec<_> = out.lines.iter().map(|l| l.pv[0]).collect();
    assert!(firsts[0] != firsts[1] && firsts[1] != firsts[2] && firsts[0] != firsts[2]);
    assert!(out.lines.windows(2).all(|w| w[0].score >= w[1].score));
    // the free rook is taken by the pawn
    assert_eq!(game.position().move_to_usi(out.best), "5g5f");
    assert_eq!(out.lines[0].pv[0], out.best);
}

/// Every feature off gives the same best move on a tactical position as every feature on: the
/// pruning changes the tree, not the answer to a one-move question.
#[test]
fn pruning_does_not_change_a_clear_answer() {
    let v = Variant::builtin("shogi").unwrap();
    let off = Options {
        null_move: false,
        late_move_reductions: false,
        futility: false,
        aspiration: false,
        see_pruning: false,
        check_extension: false,
        ..Options::default()
    };
    let sfen = "lnsgkgsnl/7b1/ppppppppp/9/9/4r4/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";
    let (g1, a) = search(&v, sfen, depth(4), off);
    let (_, b) = search(&v, sfen, depth(4), Options::default());
    assert_eq!(g1.position().move_to_usi(a.best), g1.position().move_to_usi(b.best));
}
