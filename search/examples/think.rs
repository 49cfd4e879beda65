//! Search one position and print the engine's lines: `think VARIANT MS [SFEN]` (material from
//! mobility as the evaluator).
use shogilab_engine::{Game, Position, Variant};
use shogilab_search::evaluator::Psq;
use shogilab_search::{Engine, Limits, Options, TimeControl};
use std::sync::Arc;
use std::time::Duration;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let v = Variant::builtin(&args[1]).expect("a built-in variant");
    let ms: u64 = args[2].parse().expect("milliseconds");
    let pos = match args.get(3) {
        Some(s) => Position::from_sfen(&v, s).expect("a position"),
        None => Position::start(&v),
    };
    let mut values = shogilab_engine::material::mobility(&v);
    shogilab_engine::material::royal_floor(&v, &mut values);
    let psq = Arc::new(Psq::from_values(Arc::clone(&v), &values, 600.0));
    let mut e = Engine::new(psq, Options::default());
    let game = Game::new(pos);
    let limits =
        Limits { time: TimeControl::MoveTime(Duration::from_millis(ms)), ..Limits::default() };
    let out = e.search(&game, limits, &mut |l| println!("{}", l.to_usi(game.position()))).unwrap();
    println!(
        "bestmove {} depth {} nodes {} time {:?}",
        game.position().move_to_usi(out.best),
        out.depth,
        out.nodes,
        out.time
    );
}
