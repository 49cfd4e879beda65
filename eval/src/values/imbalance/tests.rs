//! The imbalance games: setups, play, the log's engine check and the fits, against the
//! committed logs.

use super::*;
use crate::agent::{Agent, AgentError, Choice, GreedyAgent, Limits};
use crate::values::Kinds;
use shogilab_engine::variant::TYPE_MASK;
use shogilab_engine::{Color, Game, MoveList};
use shogilab_selfplay::PieceValues;
use std::path::Path;

/// A fresh shogi log in a temporary folder named after `name` (the folder, to remove, and
/// the log).
fn temp_shogi_log(name: &str) -> (std::path::PathBuf, GameLog) {
    let dir = std::env::temp_dir().join(format!("shogilab-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let log = GameLog::new(dir.join("shogi"));
    (dir, log)
}

/// The committed log of a variant (reports/piece-values/games/<name>/).
fn committed_log(name: &str) -> GameLog {
    GameLog::new(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../reports/piece-values/games").join(name),
    )
}

#[test]
fn setups_are_mirrored_and_deterministic() {
    let v = Variant::builtin("chu").unwrap();
    let kinds = Kinds::new(&v);
    let cfg = ImbalanceConfig::default();
    for i in 0..20 {
        let [a, b] = make_setup(&v, &kinds, &cfg, i);
        let da = kinds.diff(&a, Color::Black);
        let db = kinds.diff(&b, Color::Black);
        for (x, y) in da.iter().zip(&db) {
            assert_eq!(*x, -*y, "setup {i}");
        }
        assert_eq!(a.to_sfen(), make_setup(&v, &kinds, &cfg, i)[0].to_sfen());
        assert!(a.royal_count(Color::Black) >= 1 && a.royal_count(Color::White) >= 1);
    }
    // some setups differ from the start position, some promote
    let promoted = (0..50).any(|i| {
        let [a, _] = make_setup(&v, &kinds, &cfg, i);
        a.pieces(Color::Black).iter().any(|&s| v.types[(a.cell(s) & TYPE_MASK) as usize].promoted)
    });
    assert!(promoted);
}

#[test]
fn safe_royal_setups_leave_no_wins_at_once() {
    let v = Variant::builtin("tenjiku").unwrap();
    let kinds = Kinds::new(&v);
    let rules = ImbalanceConfig { max_pawns: 12, min_promotions: 3, ..Default::default() };
    let safe = ImbalanceConfig { safe_royals: true, ..rules.clone() };
    assert_eq!(safe.setup_id(), format!("{}s", rules.setup_id()));
    let mut moves = MoveList::with_capacity(256);
    let mut won = 0;
    for i in 0..150 {
        let b = make_setup(&v, &kinds, &safe, i);
        assert!(!b.iter().any(|p| wins_at_once(p, &mut moves)), "setup {i}");
        if make_setup(&v, &kinds, &rules, i).iter().any(|p| wins_at_once(p, &mut moves)) {
            won += 1;
        }
    }
    // the plain rules do draw such setups (about one in ten tenjiku setups: 14 of these 150)
    assert!(won > 0, "no setup of the plain rules was won by the first move");
}

#[test]
fn won_setups_leave_the_fit_with_both_their_games() {
    let v = Variant::builtin("tenjiku").unwrap();
    let kinds = Kinds::new(&v);
    let rules = ImbalanceConfig { max_pawns: 12, min_promotions: 3, ..Default::default() };
    let mut moves = MoveList::with_capacity(256);
    let line = |setup: usize, swap: u8, pos: &Position| GameLine {
        setup,
        swap,
        agent: rules.agent_id(),
        seed: 0,
        sfen: pos.to_sfen(),
        diff: BTreeMap::new(),
        result: 0.5,
        plies: 1,
        termination: "none".into(),
        ms: 0,
        moves: String::new(),
    };
    let (mut games, mut won) = (Vec::new(), 0);
    for i in 0..60 {
        let pair = make_setup(&v, &kinds, &rules, i);
        won += pair.iter().any(|p| wins_at_once(p, &mut moves)) as usize;
        games.extend(pair.iter().enumerate().map(|(swap, p)| line(i, swap as u8, p)));
    }
    assert!(won > 0);
    let (kept, dropped) = drop_won_setups(&v, games.clone()).unwrap();
    assert_eq!(dropped, won);
    assert_eq!(kept.len(), games.len() - 2 * won);
    for g in &kept {
        let p = Position::from_sfen(&v, &g.sfen).unwrap();
        assert!(!wins_at_once(&p, &mut moves));
        assert_eq!(kept.iter().filter(|h| h.setup == g.setup).count(), 2);
    }
    games[3].sfen = "not a position".into();
    let e = drop_won_setups(&v, games).unwrap_err().to_string();
    assert!(e.starts_with("game 1/1: start position"), "{e}");
}

#[test]
fn a_game_finishes_and_round_trips_through_json() {
    let v = Variant::builtin("shogi").unwrap();
    let kinds = Kinds::new(&v);
    let cfg = ImbalanceConfig { max_plies: 60, node_budget: 5_000, ..Default::default() };
    let mut s = Players::new(&v, &cfg).unwrap();
    let g = play_one(&v, &kinds, &cfg, &mut s, 3, 1).unwrap();
    assert!(g.plies <= 60 && g.plies > 0);
    let line = serde_json::to_string(&g).unwrap();
    let back: GameLine = serde_json::from_str(&line).unwrap();
    assert_eq!(back.sfen, g.sfen);
    let g2 = play_one(&v, &kinds, &cfg, &mut s, 3, 1).unwrap();
    assert_eq!(g2.result, g.result);
    assert_eq!(g2.plies, g.plies);
}

#[test]
fn the_committed_log_setups_are_unchanged() {
    // the first logs' setup rules must keep drawing the same setups, or a run that extends
    // them would pool games whose recorded setup index means another position
    let games = committed_log("chu").read_games().unwrap();
    let first = games.first().expect("games in the committed chu log");
    let cfg = ImbalanceConfig { max_plies: 500, ..Default::default() };
    assert_eq!(first.agent, cfg.agent_id());
    let v = Variant::builtin("chu").unwrap();
    let kinds = Kinds::new(&v);
    let pos = &make_setup(&v, &kinds, &cfg, first.setup)[first.swap as usize];
    assert_eq!(pos.to_sfen(), first.sfen);
}

#[test]
fn committed_games_replay_move_for_move() {
    // the games in the committed logs must be what the engine plays today: a change to
    // the search or the move generator that alters them would pool games of two engines
    // under one engine id
    for (name, cap) in [("chu", 500), ("tenjiku", 400), ("tai", 300)] {
        let games = committed_log(name).read_games().unwrap();
        assert!(!games.is_empty(), "no games in the committed {name} log");
        let cfg = ImbalanceConfig { max_plies: cap, ..Default::default() };
        let mut ours: Vec<&GameLine> =
            games.iter().filter(|g| g.agent == cfg.agent_id() && !g.moves.is_empty()).collect();
        // the shortest two, and one that reached the ply cap or came near it
        ours.sort_by_key(|g| g.plies);
        let mut pick = ours[..2].to_vec();
        if name != "tai" {
            let near_cap = ours.iter().rev().find(|g| g.plies <= cap * 3 / 4);
            pick.extend(near_cap);
        }
        let v = Variant::builtin(name).unwrap();
        let kinds = Kinds::new(&v);
        let mut players = Players::new(&v, &cfg).unwrap();
        for g in pick {
            let again = play_one(&v, &kinds, &cfg, &mut players, g.setup, g.swap).unwrap();
            assert_eq!(again.sfen, g.sfen, "{name} setup {} swap {}", g.setup, g.swap);
            assert_eq!(again.moves, g.moves, "{name} setup {} swap {}", g.setup, g.swap);
            assert_eq!((again.result, again.plies), (g.result, g.plies));
        }
    }
}

#[test]
fn more_promotions_promote_distinct_pieces_on_both_sides() {
    let v = Variant::builtin("chu").unwrap();
    let kinds = Kinds::new(&v);
    let cfg = ImbalanceConfig { min_promotions: 4, max_pawns: 8, ..Default::default() };
    assert_eq!(engine_of(&cfg.agent_id()), ImbalanceConfig::default().engine_id());
    assert!(cfg.agent_id().ends_with("-rm3p8pr0.6m4"), "{}", cfg.agent_id());
    let mut pawns_gone = 0;
    for i in 0..30 {
        let [a, _] = make_setup(&v, &kinds, &cfg, i);
        for c in [Color::Black, Color::White] {
            let promoted = a
                .pieces(c)
                .iter()
                .filter(|&&s| v.types[(a.cell(s) & TYPE_MASK) as usize].promoted)
                .count();
            assert!(promoted >= 4, "setup {i}: {promoted} promoted pieces");
        }
        let d = kinds.diff(&a, Color::Black);
        pawns_gone = pawns_gone.max(d[kinds.pawn.unwrap()].abs() as i32);
    }
    assert!(pawns_gone > 3, "pawn differences beyond the default's 3: {pawns_gone}");
}

#[test]
fn one_log_pools_setup_rules_of_one_engine_and_refuses_another_engine() {
    let v = Variant::builtin("shogi").unwrap();
    let kinds = Kinds::new(&v);
    let (dir, log) = temp_shogi_log("pool");
    let a = ImbalanceConfig { max_plies: 40, node_budget: 2_000, ..Default::default() };
    let b = ImbalanceConfig { min_promotions: 1, ..a.clone() };
    let plan = |target, threads| RunPlan { target, threads, part_games: 4 };
    run_games(&v, &a, &log, plan(4, 2), &|| false, &mut |_, _| {}).unwrap();
    let games = run_games(&v, &b, &log, plan(6, 2), &|| false, &mut |_, _| {}).unwrap();
    assert_eq!(count_of(&games, &a.agent_id()), 4);
    assert_eq!(count_of(&games, &b.agent_id()), 6);
    // parts of at most 4 games: 4, then 4 + 2
    assert_eq!(log.parts(super::super::log::Table::Games).unwrap().len(), 3);
    assert_eq!(log.read_games().unwrap(), games);
    // asking again plays nothing
    let again = run_games(&v, &b, &log, plan(6, 1), &|| false, &mut |_, _| {}).unwrap();
    assert_eq!(again.len(), 10);
    // setup 0 of each rule set is its own cluster
    assert_eq!(design(&kinds, &games).unwrap().clusters, 2 + 3);
    let summary = setup_summary(&games);
    assert!(
        summary.contains("`rm3p3pr0.6` 4 games") && summary.contains("m1` 6 games"),
        "{summary}"
    );
    let other = ImbalanceConfig { max_plies: 41, ..a.clone() };
    let err =
        run_games(&v, &other, &log, plan(8, 1), &|| false, &mut |_, _| {}).unwrap_err().to_string();
    assert!(err.contains("holds games of engine") && err.contains("cap40"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `spec` as an agent engine that builds `make(seed)`.
fn agent_engine(
    spec: &str,
    make: impl Fn(u64) -> Box<dyn Agent> + Send + Sync + 'static,
) -> AgentEngine {
    AgentEngine {
        spec: spec.into(),
        fingerprint: String::new(),
        build: Arc::new(move |s| Ok(make(s))),
    }
}

fn greedy(v: &Arc<Variant>) -> AgentEngine {
    let v = Arc::clone(v);
    agent_engine("greedy", move |seed| {
        let values = PieceValues::mobility(Arc::clone(&v));
        Box::new(GreedyAgent::new(values, seed))
    })
}

#[test]
fn an_agent_engine_plays_the_setups_under_its_own_id() {
    let v = Variant::builtin("shogi").unwrap();
    let kinds = Kinds::new(&v);
    let (dir, log) = temp_shogi_log("agent-engine");
    let cfg = ImbalanceConfig { max_plies: 40, agent: Some(greedy(&v)), ..Default::default() };
    assert_eq!(engine_of(&cfg.agent_id()), "agent[greedy]-cap40");
    assert_eq!(rules_of(&cfg.agent_id()), ImbalanceConfig::default().setup_id());
    let plan = RunPlan { target: 4, threads: 2, part_games: 4 };
    let games = run_games(&v, &cfg, &log, plan, &|| false, &mut |_, _| {}).unwrap();
    assert_eq!(count_of(&games, &cfg.agent_id()), 4);
    // the setups are those of the imbalance engine's games; the moves are the agent's own and
    // repeat with the game's seed
    let engine = ImbalanceConfig { max_plies: 40, ..Default::default() };
    let mut players = Players::new(&v, &cfg).unwrap();
    for g in &games {
        assert_eq!(g.sfen, make_setup(&v, &kinds, &engine, g.setup)[g.swap as usize].to_sfen());
        let again = play_one(&v, &kinds, &cfg, &mut players, g.setup, g.swap).unwrap();
        assert_eq!((&again.moves, again.result), (&g.moves, g.result));
        assert!(g.plies > 0 && g.plies <= 40 && !g.moves.is_empty());
    }
    // the imbalance engine's settings on the same log are another engine
    let err = run_games(&v, &engine, &log, plan, &|| false, &mut |_, _| {}).unwrap_err();
    assert!(err.to_string().contains("agent[greedy]-cap40"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// An agent that fails every move.
struct Failing;

impl Agent for Failing {
    fn name(&self) -> String {
        "failing".into()
    }
    fn choose(&mut self, _: &Game, _: &Limits) -> Result<Choice, AgentError> {
        Err(AgentError::Unsupported("no moves today".into()))
    }
}

#[test]
fn an_agent_engine_that_fails_logs_nothing_and_says_why() {
    let v = Variant::builtin("shogi").unwrap();
    let (dir, log) = temp_shogi_log("agent-fails");
    let failing = agent_engine("failing", |_| Box::new(Failing));
    let cfg = ImbalanceConfig { max_plies: 40, agent: Some(failing), ..Default::default() };
    let plan = RunPlan { target: 2, threads: 1, part_games: 4 };
    let err = run_games(&v, &cfg, &log, plan, &|| false, &mut |_, _| {}).unwrap_err().to_string();
    assert!(err.contains("game 0/0") && err.contains("no moves today"), "{err}");
    assert!(log.read_games().unwrap().is_empty());
    // an agent that cannot be built
    let unbuilt = AgentEngine {
        build: Arc::new(|_| Err(AgentError::Unsupported("no network".into()))),
        ..agent_engine("nothing", |_| Box::new(Failing))
    };
    let cfg = ImbalanceConfig { agent: Some(unbuilt), ..cfg };
    let err = run_games(&v, &cfg, &log, plan, &|| false, &mut |_, _| {}).unwrap_err().to_string();
    assert!(err.contains("--engine \"nothing\"") && err.contains("no network"), "{err}");
    // a spec that would read as setup rules in the log's ids
    let odd =
        ImbalanceConfig { agent: Some(agent_engine("mcts:a-rm.ot", |_| Box::new(Failing))), ..cfg };
    assert!(odd.check().unwrap_err().to_string().contains("\"-rm\""));
    std::fs::remove_dir_all(&dir).ok();
}
