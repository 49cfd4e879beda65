//! Per-move limits: every agent plays at the limits it declares and refuses the others with an
//! error naming the agent and the limit, at spec-parse time (`@nodes`/`@movetime`) and at the
//! start of a game (a match's `--nodes`/`--movetime`); the MCTS agent searches for its move
//! time, with `nodes` as a simulation cap.

use shogilab_engine::{Game, Position, Variant};
use shogilab_eval::agent::{check_limits, Agent, AgentError, Choice, LimitSource, Limits};
use shogilab_eval::mcts_agent::MAX_SIMULATIONS;
use shogilab_eval::play::PlayError;
use shogilab_eval::{parse_agent_spec, play_game, ExtraError, MctsAgent, RandomAgent};
use shogilab_selfplay::{Evaluator, Uniform};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn none(_: &str) -> Option<Result<Arc<dyn Evaluator>, ExtraError>> {
    None
}

fn spec_error(spec: &str) -> String {
    let v = Variant::builtin("chu").unwrap();
    match parse_agent_spec(spec, &v, 1, &none) {
        Ok(a) => panic!("{spec} accepted as {}", a.name()),
        Err(e) => {
            assert!(matches!(e, AgentError::Spec { .. }), "{spec}: {e:?}");
            e.to_string()
        }
    }
}

#[test]
fn own_limits_an_agent_cannot_play_at_are_refused_naming_agent_and_limit() {
    for (spec, limit) in [
        ("imbalance@movetime=100", "movetime=100"),
        ("imbalance:2:each@nodes=500", "nodes=500"),
        ("xboard:/usr/games/hachu@nodes=1000", "nodes=1000"),
        ("random@movetime=50", "movetime=50"),
        ("greedy@nodes=10", "nodes=10"),
    ] {
        let e = spec_error(spec);
        assert!(e.contains(spec) && e.contains(limit), "{spec}: {e}");
    }
    let e = spec_error("random@movetime=50");
    assert!(e.contains("does not search"), "{e}");
}

#[test]
fn own_limits_an_agent_honours_are_accepted_and_named() {
    let v = Variant::builtin("shogi").unwrap();
    for spec in [
        "alphabeta:3@nodes=500,movetime=20",
        "mcts:uniform@movetime=30",
        "mcts:material:16@nodes=8",
        "usi:/bin/true@nodes=50,movetime=100",
        "xboard:/usr/games/hachu@movetime=100",
    ] {
        let a = parse_agent_spec(spec, &v, 1, &none).unwrap_or_else(|e| panic!("{spec}: {e}"));
        assert_eq!(a.name(), spec);
    }
}

#[test]
fn match_limits_are_checked_before_the_first_move() {
    let v = Variant::builtin("chu").unwrap();
    let mut imb = parse_agent_spec("imbalance", &v, 1, &none).unwrap();
    let mut rnd = RandomAgent::new(2);
    let limits = Limits { nodes: None, movetime_ms: Some(100) };
    let Err(e) = play_game([imb.as_mut(), &mut rnd], Position::start(&v), &[], 10, &limits) else {
        panic!("the imbalance engine has no move time, yet the game was played")
    };
    let PlayError::Limit(AgentError::Limit { agent, limit, .. }) = &e else { panic!("{e:?}") };
    assert_eq!((agent.as_str(), limit.as_str()), ("imbalance", "movetime=100"));
    // random does not search: a match-wide limit is harmless, its own is not
    assert!(check_limits(&rnd, &limits, LimitSource::Match).is_ok());
    assert!(check_limits(&rnd, &limits, LimitSource::Own).is_err());
    // an agent with its own limits accepts any match limits (they are replaced)
    let own = parse_agent_spec("alphabeta:2@nodes=100", &v, 1, &none).unwrap();
    assert!(check_limits(own.as_ref(), &limits, LimitSource::Match).is_ok());
    let r = play_game([&mut RandomAgent::new(1), &mut rnd], Position::start(&v), &[], 4, &limits);
    assert_eq!(r.unwrap().plies, 4);
}

/// Time one move of `agent` in the shogi start position.
fn timed_move(agent: &mut MctsAgent, limits: &Limits) -> Duration {
    let v = Variant::builtin("shogi").unwrap();
    let game = Game::new(Position::start(&v));
    let t0 = Instant::now();
    let c = agent.choose(&game, limits).unwrap();
    let t = t0.elapsed();
    let Choice::Move(m) = c else { panic!("{c:?}") };
    assert!(game.legal().contains(&m));
    t
}

#[test]
fn mcts_searches_for_its_move_time() {
    let mut a = MctsAgent::timed(Arc::new(Uniform), 1);
    let fixed = timed_move(&mut a, &Limits::default());
    assert_eq!(a.last_simulations(), 64, "the default count without limits");
    // 150 ms: with the uniform evaluator an idle machine reaches MAX_SIMULATIONS in about
    // 250 ms, where the search rightly stops before its time is spent
    let limits = Limits { nodes: None, movetime_ms: Some(150) };
    for _ in 0..2 {
        let t = timed_move(&mut a, &limits);
        let sims = a.last_simulations();
        // the whole time is used (the budget grows while time remains) unless the cap is
        // reached first, and not overrun by more than one evaluation's worth plus scheduling
        // noise
        assert!(
            t >= Duration::from_millis(125) || sims == MAX_SIMULATIONS,
            "stopped early: {t:?}, {sims} simulations"
        );
        assert!(t < Duration::from_millis(300), "overran: {t:?}");
        assert!(sims > 64, "{sims} simulations in {t:?}");
    }
    println!("64 simulations: {fixed:?}; 150 ms: {} simulations", a.last_simulations());
}

#[test]
fn mcts_nodes_cap_a_timed_search() {
    let mut a = MctsAgent::timed(Arc::new(Uniform), 1);
    let limits = Limits { nodes: Some(40), movetime_ms: Some(2000) };
    let t = timed_move(&mut a, &limits);
    assert_eq!(a.last_simulations(), 40);
    assert!(t < Duration::from_millis(1000), "{t:?}");
    // the spec's own count is the cap as well
    let mut b = MctsAgent::new(Arc::new(Uniform), 24, 1);
    timed_move(&mut b, &Limits { nodes: None, movetime_ms: Some(2000) });
    assert_eq!(b.last_simulations(), 24);
    timed_move(&mut b, &Limits { nodes: Some(12), movetime_ms: None });
    assert_eq!(b.last_simulations(), 12);
}
