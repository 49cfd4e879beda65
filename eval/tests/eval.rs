//! Integration tests: games and matches between built-in agents, WinBoard notation, fake
//! external engines that misbehave (forfeits within the timeout), and one short game against
//! HaChu when `/usr/games/hachu` is installed (else a `SKIPPED` line, counted by scripts/test).

use shogilab_engine::{Color, Game, Move, Position, Status, Variant};
use shogilab_eval::agent::{Agent, Choice, Limits};
use shogilab_eval::winboard::{
    move_to_wb, parse_wb_move, parse_wb_square, square_to_wb, wb_to_usi,
};
use shogilab_eval::{
    parse_agent_spec, play_game, run_gauntlet, run_match, GauntletConfig, GauntletMode,
    GreedyAgent, MatchConfig, Openings, RandomAgent, UsiAgent, UsiConfig, XBoardAgent,
    XBoardConfig,
};
use shogilab_selfplay::PieceValues;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn none(
    _: &str,
) -> Option<Result<Arc<dyn shogilab_selfplay::Evaluator>, shogilab_eval::ExtraError>> {
    None
}

#[test]
fn random_vs_greedy_in_chu_finishes_and_colours_alternate() {
    let v = Variant::builtin("chu").unwrap();
    let mut a = RandomAgent::new(1);
    let mut b = GreedyAgent::new(PieceValues::mobility(Arc::clone(&v)), 2);
    let cfg = MatchConfig {
        games: 4,
        max_plies: 300,
        openings: Openings::random(2),
        seed: 7,
        ..Default::default()
    };
    let mut seen = 0;
    let r = run_match(&mut a, &mut b, &v, &cfg, &mut |_| seen += 1).unwrap();
    assert_eq!(seen, 4);
    assert_eq!(r.games.len(), 4);
    assert_eq!(r.tally.wins + r.tally.draws + r.tally.losses, 4);
    for (i, g) in r.games.iter().enumerate() {
        assert_eq!(g.a_black, i % 2 == 0, "colours alternate");
        assert_eq!(g.opening, i / 2, "each opening twice");
        assert_eq!(g.black, if g.a_black { "random" } else { "greedy" });
        assert!(g.result.status.is_over());
        assert!(g.result.plies <= 300);
        assert!(g.result.forfeit.is_none());
        // the record replays
        let mut game = Game::new(Position::from_sfen(&v, &g.result.start_sfen).unwrap());
        for m in &g.result.moves {
            let mv = game.parse_usi(m).unwrap();
            game.play(mv);
        }
    }
    // the two games of an opening start with the same moves
    assert_eq!(r.games[0].result.moves[..2], r.games[1].result.moves[..2]);
    println!("{}", r.describe());
}

#[test]
fn searching_agents_beat_random_in_shogi() {
    let v = Variant::builtin("shogi").unwrap();
    let mut ab = parse_agent_spec("alphabeta:2", &v, 1, &none).unwrap();
    let mut mc = parse_agent_spec("mcts:material:16", &v, 1, &none).unwrap();
    let mut rnd = RandomAgent::new(3);
    let cfg = MatchConfig { games: 2, max_plies: 160, ..Default::default() };
    let r = run_match(ab.as_mut(), &mut rnd, &v, &cfg, &mut |_| {}).unwrap();
    assert!(r.tally.wins >= 1, "{}", r.describe());
    let r = run_match(mc.as_mut(), &mut rnd, &v, &cfg, &mut |_| {}).unwrap();
    assert_eq!(r.games.len(), 2, "{}", r.describe());
}

#[test]
fn alphabeta_captures_a_hanging_king_in_chu() {
    // royal capture variant: a lone king next to an enemy gold must be taken
    let v = Variant::builtin("chu").unwrap();
    let t = |name: &str| v.types.iter().find(|t| t.name == name && !t.promoted).unwrap().id;
    let mut pos = Position::empty(Arc::clone(&v));
    pos.place(v.parse_square("6f").unwrap(), Color::Black, t("gold general"));
    pos.place(v.parse_square("6e").unwrap(), Color::White, t("king"));
    pos.place(v.parse_square("1l").unwrap(), Color::Black, t("king"));
    pos.place(v.parse_square("1a").unwrap(), Color::White, t("pawn"));
    let game = Game::new(pos);
    let mut ab = parse_agent_spec("alphabeta:2", &v, 1, &none).unwrap();
    ab.new_game(&game).unwrap();
    match ab.choose(&game, &Limits::default()).unwrap() {
        Choice::Move(m) => assert_eq!(game.position().move_to_usi(m), "6f6e"),
        c => panic!("{c:?}"),
    }
}

#[test]
fn gauntlet_gives_one_table() {
    let v = Variant::builtin("shogi").unwrap();
    let mut agents: Vec<Box<dyn Agent>> = ["random", "greedy", "alphabeta:1"]
        .iter()
        .enumerate()
        .map(|(i, s)| parse_agent_spec(s, &v, i as u64, &none).unwrap())
        .collect();
    let cfg = GauntletConfig {
        mode: GauntletMode::RoundRobin,
        per_pair: MatchConfig { games: 2, max_plies: 120, ..Default::default() },
    };
    let r = run_gauntlet(&mut agents, &v, &cfg, &mut |_, _, _| {}).unwrap();
    assert_eq!(r.matches.len(), 3);
    assert_eq!(r.table.len(), 3);
    assert_eq!(r.table[0].elo, 0.0);
    for row in &r.table {
        assert_eq!(row.games, 4.0);
        assert!(row.ci_low <= row.elo && row.elo <= row.ci_high);
    }
    println!("{}", r.markdown());
}

#[test]
fn winboard_squares_round_trip_on_every_chu_square() {
    let v = Variant::builtin("chu").unwrap();
    assert_eq!(v.num_squares(), 144);
    for &sq in &v.squares {
        let wb = square_to_wb(&v, sq);
        assert_eq!(parse_wb_square(&v, &wb), Some(sq), "{wb}");
        // chu.md 8.2: WinBoard file index i -> file 12 - i, rank n -> rank letter 13 - n
        let i = (wb.as_bytes()[0] - b'a') as i32;
        let n: i32 = wb[1..].parse().unwrap();
        let usi = v.square_name(sq);
        let want = format!("{}{}", 12 - i, (b'a' + (13 - n - 1) as u8) as char);
        assert_eq!(usi, want, "{wb}");
    }
    assert_eq!(square_to_wb(&v, v.parse_square("7l").unwrap()), "f1");
    assert_eq!(square_to_wb(&v, v.parse_square("6a").unwrap()), "g12");
}

#[test]
fn winboard_moves_round_trip_including_lion_double_moves() {
    let v = Variant::builtin("chu").unwrap();
    // every legal move of the start position
    let pos = Position::start(&v);
    let mut list = Vec::new();
    pos.legal_moves(&mut list);
    for &m in &list {
        let wb = move_to_wb(&pos, m);
        assert_eq!(parse_wb_move(&pos, &wb).unwrap(), m, "{wb}");
    }
    // a lion among enemies: double captures, hit and run, igui, passes
    let t = |name: &str| v.types.iter().find(|t| t.name == name && !t.promoted).unwrap().id;
    let mut pos = Position::empty(Arc::clone(&v));
    pos.place(v.parse_square("7g").unwrap(), Color::Black, t("lion"));
    pos.place(v.parse_square("7f").unwrap(), Color::White, t("pawn"));
    pos.place(v.parse_square("6f").unwrap(), Color::White, t("pawn"));
    pos.place(v.parse_square("8e").unwrap(), Color::White, t("gold general"));
    pos.place(v.parse_square("1l").unwrap(), Color::Black, t("king"));
    pos.place(v.parse_square("1a").unwrap(), Color::White, t("king"));
    let mut list = Vec::new();
    pos.legal_moves(&mut list);
    let doubles: Vec<Move> = list.iter().copied().filter(|m| m.mids().count() > 0).collect();
    assert!(doubles.len() > 10, "{} double moves", doubles.len());
    let mut passes = 0;
    for &m in &doubles {
        let wb = move_to_wb(&pos, m);
        let back = parse_wb_move(&pos, &wb).unwrap();
        if m.returns() && m.mids().all(|s| pos.cell(s) == 0) {
            // A pass goes out as WinBoard's null move, as HaChu expects, and comes back a pass.
            passes += 1;
            assert_eq!(wb, "@@@@");
            assert!(back.returns() && back.from == m.from, "{wb}");
        } else {
            assert!(wb.contains(','), "{wb}");
            assert_eq!(back, m, "{wb}");
        }
    }
    assert!(passes > 0, "the lion can pass");
    // hand-checked: lion on 7g (WinBoard f6) takes 7f (f7) then 6f (g7)
    let usi = wb_to_usi(&v, "f6f7,f7g7").unwrap();
    assert_eq!(usi, "7g7f6f");
    let m = parse_wb_move(&pos, "f6f7,f7g7").unwrap();
    assert_eq!(pos.move_to_usi(m), "7g7f6f");
    assert_eq!(move_to_wb(&pos, m), "f6f7,f7g7");
    // igui on 7f: out and back
    let m = parse_wb_move(&pos, "f6f7,f7f6").unwrap();
    assert_eq!(pos.move_to_usi(m), "7g7f7g");
    // HaChu's split form (first leg on its own line ending in ',') parses once joined
    assert_eq!(wb_to_usi(&v, "f6f7,f7g7").unwrap(), wb_to_usi(&v, "f6f7,f7g7,").unwrap());
    // a promotion mark in any leg promotes the move; `=` and a piece suffix are skipped
    assert_eq!(wb_to_usi(&v, "f6f7+").unwrap(), "7g7f+");
    assert_eq!(wb_to_usi(&v, "f6f7+,f7g7").unwrap(), "7g7f6f+");
    assert_eq!(wb_to_usi(&v, "f6f7=").unwrap(), "7g7f");
    assert_eq!(wb_to_usi(&v, "f6f7n").unwrap(), "7g7f");
    // a pass
    assert!(parse_wb_move(&pos, "@@@@").unwrap().returns());
    // malformed text is an error, not a panic
    for bad in ["", "f6", "z1a1", "f6f7,g7g8", "a13a1", "f6f7#", ",", "@", "++", "xf6f7"] {
        assert!(parse_wb_move(&pos, bad).is_err(), "{bad:?}");
    }
}

fn script(name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(format!("shogilab-eval-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, format!("#!/bin/bash\n{body}\n")).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p
}

fn fake_usi(name: &str, on_go: &str) -> UsiAgent {
    let body = format!(
        r#"while read -r line; do
  case "$line" in
    usi) echo "id name fake"; echo "usiok";;
    isready) echo "readyok";;
    go*) {on_go};;
    quit) exit 0;;
  esac
done"#
    );
    let p = script(name, &body);
    let mut cfg = UsiConfig::new(p.to_str().unwrap());
    cfg.init_timeout = Duration::from_secs(5);
    cfg.move_margin = Duration::from_millis(700);
    UsiAgent::new(cfg, Variant::builtin("shogi").unwrap())
}

fn forfeit_of(agent: &mut dyn Agent) -> (String, Duration) {
    let v = Variant::builtin("shogi").unwrap();
    let mut rnd = RandomAgent::new(1);
    let limits = Limits { nodes: None, movetime_ms: Some(100) };
    let t0 = Instant::now();
    let r = play_game([agent, &mut rnd], Position::start(&v), &[], 50, &limits).unwrap();
    let (c, why) = r.forfeit.clone().expect("a forfeit");
    assert_eq!(c, Color::Black);
    assert!(matches!(r.status, Status::Win(Color::White, _)));
    (why, t0.elapsed())
}

#[test]
fn misbehaving_usi_engines_forfeit_with_a_reason() {
    let (why, t) = forfeit_of(&mut fake_usi("garbage.sh", "echo 'bestmove zz99'"));
    assert!(why.contains("illegal move") && why.contains("zz99"), "{why}");
    assert!(t < Duration::from_secs(5));
    let (why, t) = forfeit_of(&mut fake_usi("illegal.sh", "echo 'bestmove 5a5b'"));
    assert!(why.contains("illegal move"), "{why}");
    assert!(t < Duration::from_secs(5));
    let (why, t) = forfeit_of(&mut fake_usi("hang.sh", "sleep 0"));
    assert!(why.contains("no answer"), "{why}");
    assert!(t < Duration::from_secs(5), "{t:?}");
    let (why, t) = forfeit_of(&mut fake_usi("crash.sh", "exit 3"));
    assert!(why.contains("ended"), "{why}");
    assert!(t < Duration::from_secs(5));
    let (why, _) = forfeit_of(&mut fake_usi("nomove.sh", "echo bestmove"));
    assert!(why.contains("bestmove without a move"), "{why}");
    let (why, _) = forfeit_of(&mut UsiAgent::new(
        UsiConfig::new("/nonexistent/engine"),
        Variant::builtin("shogi").unwrap(),
    ));
    assert!(why.contains("cannot start"), "{why}");
    // an engine that never says usiok
    let p = script("silent.sh", "while read -r line; do :; done");
    let mut cfg = UsiConfig::new(p.to_str().unwrap());
    cfg.init_timeout = Duration::from_millis(500);
    let t0 = Instant::now();
    let (why, _) = forfeit_of(&mut UsiAgent::new(cfg, Variant::builtin("shogi").unwrap()));
    assert!(why.contains("no answer to usi"), "{why}");
    assert!(t0.elapsed() < Duration::from_secs(5));
    // resignation is a loss, not a forfeit
    let v = Variant::builtin("shogi").unwrap();
    let mut resigner = fake_usi("resign.sh", "echo 'bestmove resign'");
    let mut rnd = RandomAgent::new(1);
    let r = play_game([&mut rnd, &mut resigner], Position::start(&v), &[], 50, &Limits::default())
        .unwrap();
    assert!(r.forfeit.is_none());
    assert_eq!(r.status.score_for(Color::Black), 1);
    assert_eq!(r.plies, 1);
}

#[test]
fn an_engine_plays_at_its_own_limits_in_a_match_with_other_limits() {
    // the fake engine logs every `go` it receives and resigns
    let log = std::env::temp_dir().join(format!("shogilab-go-{}.txt", std::process::id()));
    let body = format!(
        r#"while read -r line; do
  case "$line" in
    usi) echo "id name fake"; echo "usiok";;
    isready) echo "readyok";;
    go*) echo "$line" >> {log}; echo "bestmove resign";;
    quit) exit 0;;
  esac
done"#,
        log = log.display()
    );
    let p = script("limits.sh", &body);
    let v = Variant::builtin("shogi").unwrap();
    let spec = format!("usi:{}@movetime=250", p.display());
    let mut engine = parse_agent_spec(&spec, &v, 1, &none).unwrap();
    assert!(engine.name().ends_with("@movetime=250"), "{}", engine.name());
    let mut rnd = RandomAgent::new(1);
    let match_limits = Limits { nodes: Some(5000), movetime_ms: None };
    let r = play_game([&mut rnd, engine.as_mut()], Position::start(&v), &[], 10, &match_limits)
        .unwrap();
    assert!(r.forfeit.is_none());
    let gos = std::fs::read_to_string(&log).unwrap();
    std::fs::remove_file(&log).ok();
    assert_eq!(gos.trim(), "go btime 0 wtime 0 byoyomi 250", "{gos}");
}

#[test]
fn hanging_xboard_engine_forfeits() {
    let p = script(
        "xb-hang.sh",
        r#"while read -r line; do
  case "$line" in
    protover*) echo 'feature usermove=1 ping=1 variants="chu" done=1';;
    ping*) echo "pong ${line#ping }";;
    quit) exit 0;;
  esac
done"#,
    );
    let mut cfg = XBoardConfig::new(p.to_str().unwrap());
    cfg.move_margin = Duration::from_millis(500);
    let v = Variant::builtin("chu").unwrap();
    let mut xb = XBoardAgent::new(cfg, Arc::clone(&v));
    let mut rnd = RandomAgent::new(1);
    let limits = Limits { nodes: None, movetime_ms: Some(100) };
    let t0 = Instant::now();
    let r = play_game([&mut rnd, &mut xb], Position::start(&v), &[], 50, &limits).unwrap();
    let (c, why) = r.forfeit.expect("forfeit");
    assert_eq!(c, Color::White);
    assert!(why.contains("no answer to go"), "{why}");
    assert!(t0.elapsed() < Duration::from_secs(5));
}

#[test]
fn short_game_against_hachu() {
    let path = "/usr/games/hachu";
    if !shogilab_eval::engine_proc::installed_or_skip("short_game_against_hachu", path, "hachu") {
        return;
    }
    let v = Variant::builtin("chu").unwrap();
    let mut xb = XBoardAgent::new(XBoardConfig::new(path), Arc::clone(&v));
    let mut rnd = RandomAgent::new(5);
    let limits = Limits { nodes: None, movetime_ms: Some(200) };
    for hachu_black in [true, false] {
        let r = if hachu_black {
            play_game([&mut xb, &mut rnd], Position::start(&v), &[], 24, &limits).unwrap()
        } else {
            play_game([&mut rnd, &mut xb], Position::start(&v), &[], 24, &limits).unwrap()
        };
        println!(
            "HaChu {}: {} after {} plies: {}",
            if hachu_black { "black" } else { "white" },
            r.describe(),
            r.plies,
            r.moves.join(" ")
        );
        assert!(r.forfeit.is_none(), "{}", r.describe());
        assert!(r.plies >= 10, "{}", r.describe());
    }
}
