//! The USI and XBoard servers over in-memory input and output: a session from the handshake to
//! a move, and malformed input answered with an error line, never a panic.

use shogilab_engine::{Game, Position, Variant};
use shogilab_eval::parse_agent_spec;
use shogilab_eval::server::{serve, AgentFactory, UsiServer, XBoardServer};
use shogilab_eval::winboard::parse_wb_move;
use std::io::Cursor;

fn factory(spec: &'static str) -> AgentFactory {
    Box::new(move |v| parse_agent_spec(spec, v, 1, &|_| None))
}

/// Feed `lines` to a server, return what it wrote, line by line.
fn session(server: &mut dyn shogilab_eval::server::LineServer, lines: &[&str]) -> Vec<String> {
    let input = lines.join("\n") + "\n";
    let mut out = Vec::new();
    serve(server, Cursor::new(input.into_bytes()), &mut out).unwrap();
    String::from_utf8(out).unwrap().lines().map(str::to_string).collect()
}

#[test]
fn usi_session_and_bad_input() {
    let v = Variant::builtin("shogi").unwrap();
    let mut s = UsiServer::new(v.clone(), "random".into(), factory("random")).unwrap();
    let out = session(
        &mut s,
        &[
            "usi",
            "isready",
            "usinewgame",
            "position startpos moves 7g7f",
            "go btime 1000 wtime 1000 byoyomi 100",
        ],
    );
    assert!(out.contains(&"usiok".to_string()) && out.contains(&"readyok".to_string()), "{out:?}");
    let best = out.last().unwrap().strip_prefix("bestmove ").expect("a bestmove");
    let mut g = Game::new(Position::start(&v));
    g.play(g.parse_usi("7g7f").unwrap());
    assert!(g.parse_usi(best).is_ok(), "{best}");
    let bad = session(
        &mut s,
        &[
            "position startpos moves 7g7x",
            "go",
            "frobnicate",
            "position sfen",
            "setoption",
            "setoption value 3 name x",
            "quit",
            "usi",
        ],
    );
    let errors = bad.iter().filter(|l| l.starts_with("info string error")).count();
    assert_eq!(errors, 6, "{bad:?}");
    assert!(bad.contains(&"bestmove resign".to_string()));
    assert!(!bad.contains(&"usiok".to_string()), "input after quit was read: {bad:?}");
}

#[test]
fn usi_chushogi_by_option_and_limits_the_agent_lacks_are_left_out() {
    let v = Variant::builtin("shogi").unwrap();
    // the imbalance engine has no move time: the GUI's clock must not make it resign
    let mut s = UsiServer::new(v, "imbalance".into(), factory("imbalance")).unwrap();
    let out = session(
        &mut s,
        &[
            "usi",
            "setoption name UCI_Variant value chushogi",
            "isready",
            "position startpos",
            "go byoyomi 100 nodes 5",
        ],
    );
    let mv = out.last().unwrap().strip_prefix("bestmove ").expect("a bestmove");
    let g = Game::new(Position::start(&Variant::builtin("chu").unwrap()));
    assert!(g.parse_usi(mv).is_ok(), "{out:?}");
}

#[test]
fn unreadable_input_is_answered() {
    let v = Variant::builtin("shogi").unwrap();
    let mut s = UsiServer::new(v, "random".into(), factory("random")).unwrap();
    let mut out = Vec::new();
    serve(&mut s, Cursor::new(b"\xff\xfe\nisready\n".to_vec()), &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.starts_with("info string error unreadable input"), "{text}");
    assert!(text.ends_with("readyok\n"), "{text}");
}

#[test]
fn xboard_session_and_bad_input() {
    let v = Variant::builtin("chu").unwrap();
    let mut s = XBoardServer::new(v, "random".into(), factory("random")).unwrap();
    let out = session(
        &mut s,
        &[
            "xboard",
            "protover 2",
            "variant chu",
            "memory 16",
            "new",
            "force",
            "usermove h4h5",
            "go",
        ],
    );
    assert!(out[0].contains("done=1"), "{out:?}");
    let mv = out.iter().find_map(|l| l.strip_prefix("move ")).expect("a move");
    assert_eq!(s.game().plies(), 2, "the user's move and the engine's");
    let mut g = s.game().clone();
    g.unplay();
    assert!(parse_wb_move(g.position(), mv).is_ok(), "{mv}");
    let bad = session(&mut s, &["usermove z9z9", "frob", "setboard nonsense", "time x", "ping 7"]);
    assert!(bad[0].starts_with("Illegal move"), "{bad:?}");
    assert!(bad[1].starts_with("Error (unknown command)"), "{bad:?}");
    assert!(bad[2].starts_with("tellusererror"), "{bad:?}");
    assert!(bad[3].starts_with("Error (bad number)"), "{bad:?}");
    assert_eq!(bad[4], "pong 7");
}

#[test]
fn a_bad_agent_spec_fails_before_serving() {
    let v = Variant::builtin("shogi").unwrap();
    assert!(UsiServer::new(v.clone(), "rand".into(), factory("rand")).is_err());
    assert!(XBoardServer::new(v, "imbalance@movetime=5".into(), factory("imbalance@movetime=5"))
        .is_err());
}

/// The searching agent over USI: `go infinite` searches in the background and reports its
/// lines until `stop` (here the end of the input stops it), then answers with the move of
/// its last line; `go depth` stops at that depth; MultiPV lines are numbered.
#[test]
fn usi_search_reports_lines_and_stops() {
    let v = Variant::builtin("shogi").unwrap();
    let mut s = UsiServer::new(v.clone(), "search".into(), factory("search")).unwrap();
    let out = session(
        &mut s,
        &["usi", "setoption name MultiPV value 2", "isready", "position startpos", "go depth 3"],
    );
    assert!(out.iter().any(|l| l.starts_with("option name MultiPV")), "{out:?}");
    let infos: Vec<&String> =
        out.iter().filter(|l| l.starts_with("info depth") && !l.contains("bound")).collect();
    // depths 1..3, two lines each
    assert_eq!(infos.len(), 6, "{out:?}");
    assert!(infos.iter().all(|l| l.contains(" nps ") && l.contains(" pv ")), "{infos:?}");
    assert!(infos[4].starts_with("info depth 3 ") && infos[5].contains("multipv 2"), "{infos:?}");
    let best = out.last().unwrap().strip_prefix("bestmove ").expect("a bestmove");
    let first = best.split_whitespace().next().unwrap();
    assert!(infos[4].contains(&format!(" pv {first}")), "{best} vs {infos:?}");
    let infinite = session(&mut s, &["position startpos moves 7g7f", "go infinite", "stop"]);
    let best = infinite.last().unwrap().strip_prefix("bestmove ").expect("a bestmove");
    let mut g = Game::new(Position::start(&v));
    g.play(g.parse_usi("7g7f").unwrap());
    assert!(g.parse_usi(best.split_whitespace().next().unwrap()).is_ok(), "{infinite:?}");
    // a clock the agent cannot play at: an error line and no move
    let bad = session(&mut s, &["position startpos", "go btime 0 wtime 0"]);
    assert!(bad.iter().any(|l| l.starts_with("info string error")), "{bad:?}");
    assert_eq!(bad.last().unwrap(), "bestmove resign");
}

/// The searching agent over XBoard: `sd` bounds the depth and `post` prints one thinking line
/// per completed depth before the move.
#[test]
fn xboard_search_posts_thinking_lines() {
    let v = Variant::builtin("chu").unwrap();
    let mut s = XBoardServer::new(v, "search".into(), factory("search")).unwrap();
    let out = session(&mut s, &["xboard", "protover 2", "new", "sd 2", "post", "go"]);
    let thinking: Vec<&String> =
        out.iter().filter(|l| l.starts_with(|c: char| c.is_ascii_digit())).collect();
    assert_eq!(thinking.len(), 2, "{out:?}");
    assert!(thinking[1].starts_with("2 "), "{thinking:?}");
    assert!(out.last().unwrap().starts_with("move "), "{out:?}");
    let bad = session(&mut s, &["level 40 x"]);
    assert!(bad[0].starts_with("Error (bad level"), "{bad:?}");
}
