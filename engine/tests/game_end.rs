//! Game-end rules: checkmate, fourfold repetition (draw, perpetual check loses), the 27-point
//! impasse declaration, royal capture, chu's bare king, tai's forbidden repetition and chu's
//! strict repetition option.

use shogilab_engine::{Color, Game, Position, Status, Termination, Variant};

fn game(v: &str, sfen: &str) -> Game {
    let v = Variant::builtin(v).unwrap();
    Game::new(Position::from_sfen(&v, sfen).unwrap())
}

fn play(g: &mut Game, moves: &str) {
    for m in moves.split_whitespace() {
        let mv = g.parse_usi(m).unwrap_or_else(|e| panic!("{m}: {e}"));
        g.play(mv);
    }
}

#[test]
fn shogi_checkmate() {
    let mut g = game("shogi", "4k4/9/4P4/9/9/9/9/9/4K4 b G 1");
    play(&mut g, "G*5b");
    assert_eq!(g.status(), Status::Win(Color::Black, Termination::Checkmate));
}

#[test]
fn shogi_fourfold_repetition_is_a_draw() {
    let mut g = game("shogi", "4k4/9/9/9/9/9/9/9/4K4 b Gg 1");
    for _ in 0..3 {
        assert!(!g.status().is_over());
        play(&mut g, "5i5h 5a5b 5h5i 5b5a");
    }
    // the start position has now occurred four times; nobody gave check
    assert_eq!(g.status(), Status::Draw(Termination::Repetition));
}

#[test]
fn shogi_perpetual_check_loses() {
    let mut g = game("shogi", "3k5/9/9/9/9/9/9/9/8K b R 1");
    play(&mut g, "R*6i");
    for _ in 0..3 {
        play(&mut g, "6a5a 6i5i 5a6a 5i6i");
    }
    assert_eq!(g.status(), Status::Win(Color::White, Termination::PerpetualCheck));
}

#[test]
fn shogi_impasse_declaration() {
    // Black king in the zone with 10+ pieces there and 28+ points (board + hand)
    let mut g = game("shogi", "K1GGGG3/PPPPPPPPP/9/9/9/9/9/9/4k4 w RB2S2N2L 1");
    play(&mut g, "5i5h");
    assert_eq!(g.status(), Status::Win(Color::Black, Termination::Impasse));
}

#[test]
fn chu_royal_capture_and_bare_king() {
    let mut g = game("chu", "12/12/12/12/12/5k6/5R6/12/12/12/12/K11 b - 1");
    play(&mut g, "7g7f");
    assert_eq!(g.status(), Status::Win(Color::Black, Termination::RoyalCaptured));
    // White is bared: a lone king against king + two pieces not adjacent to it
    let g = game("chu", "k11/12/12/12/12/12/12/12/12/12/5G6/K4R6 w - 1");
    assert_eq!(g.status(), Status::Win(Color::Black, Termination::BareKing));
    // king + unpromoted pawn against a lone king is not yet a win
    let g = game("chu", "k11/12/12/12/12/12/5P6/12/12/12/12/K11 w - 1");
    assert_eq!(g.status(), Status::Ongoing);
}

#[test]
fn tai_forbids_repeating_a_position() {
    let v = Variant::builtin("tai").unwrap();
    let mut g = Game::new(Position::start(&v));
    play(&mut g, "13t13r 13f13h");
    // both lion dogs stepping back would recreate the start position
    play(&mut g, "13r13t");
    let err = g.parse_usi("13h13f").unwrap_err().to_string();
    assert!(err.contains("repeat"), "{err}");
}

#[test]
fn chu_repetition_option_forbids_what_the_default_allows() {
    // the go-betweens step out and back: the fourth ply would recreate the start position
    let moves = "9h9g 9e9f 9g9h";
    let mut lishogi = Game::new(Position::start(&Variant::builtin("chu").unwrap()));
    play(&mut lishogi, moves);
    assert!(lishogi.parse_usi("9f9e").is_ok(), "the default (fourfold) rule allows a repeat");
    let strict = [("repetition".to_string(), "forbidden".to_string())];
    let v = Variant::builtin_with("chu", &strict).unwrap();
    let mut g = Game::new(Position::start(&v));
    play(&mut g, moves);
    let err = g.parse_usi("9f9e").unwrap_err().to_string();
    assert!(err.contains("repeat"), "{err}");
    assert!(!g.legal().iter().any(|m| g.position().move_to_usi(*m) == "9f9e"));
}

/// lishogi's own game-end cases (tests/data/outcomes/*.txt, see tests/data/SOURCES.md): each
/// line is a position with moves and the outcome shogiops' tests assert for it.
fn run_outcomes(variant: &str, file: &str) -> usize {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/outcomes").join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let v = Variant::builtin(variant).unwrap();
    let mut n = 0;
    for (i, line) in
        text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
    {
        let at = format!("{file}:{}", i + 1);
        let (pos, expect) = line.split_once('|').unwrap_or_else(|| panic!("{at}: no '|'"));
        let pos = pos.trim();
        let (sfen, moves) = match pos.split_once(" moves ") {
            Some((s, m)) => (s, m),
            None => (pos, ""),
        };
        let start = match sfen.strip_prefix("sfen ") {
            Some(s) => Position::from_sfen(&v, s).unwrap_or_else(|e| panic!("{at}: {e}")),
            None => Position::start(&v),
        };
        let mut g = Game::new(start);
        for m in moves.split_whitespace() {
            let mv = g.parse_usi(m).unwrap_or_else(|e| panic!("{at}: {m}: {e}"));
            g.play(mv);
        }
        let status = g.status();
        let mut words = expect.split_whitespace();
        match words.next() {
            Some("none") => assert!(!status.is_over(), "{at}: expected no outcome, got {status:?}"),
            Some("not") => assert!(!matches!(status, Status::Draw(_)), "{at}: a draw: {status:?}"),
            Some(r) => {
                let result = r.strip_prefix("result=").unwrap_or_else(|| panic!("{at}: {r}"));
                let winner = words.next().and_then(|w| w.strip_prefix("winner="));
                let (term, win) = match status {
                    Status::Win(c, t) => (t, Some(c)),
                    Status::Draw(t) => (t, None),
                    Status::Ongoing => panic!("{at}: expected {result}, game not over"),
                };
                match result {
                    "draw" => assert_eq!(win, None, "{at}: expected a draw, got {status:?}"),
                    "checkmate" => assert_eq!(term, Termination::Checkmate, "{at}"),
                    "bareKing" => assert_eq!(term, Termination::BareKing, "{at}: {status:?}"),
                    other => panic!("{at}: unknown result {other}"),
                }
                if let Some(w) = winner {
                    let c = if w == "sente" { Color::Black } else { Color::White };
                    assert_eq!(win, Some(c), "{at}: winner");
                }
            }
            None => panic!("{at}: no outcome"),
        }
        n += 1;
    }
    n
}

#[test]
fn lishogi_outcome_cases() {
    assert_eq!(run_outcomes("shogi", "shogi.txt"), 4);
    assert_eq!(run_outcomes("chu", "chu.txt"), 13);
}
