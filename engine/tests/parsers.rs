//! The SFEN, USI and variant-spec parsers never panic, and reject malformed input with an
//! error that names the fault.

use proptest::prelude::*;
use shogilab_engine::{EngineError, Position, Variant};

fn sfen_err(variant: &str, s: &str) -> String {
    let v = Variant::builtin(variant).unwrap();
    match Position::from_sfen(&v, s) {
        Err(EngineError::Sfen { msg, .. }) => msg,
        Err(e) => panic!("unexpected error kind for {s:?}: {e}"),
        Ok(_) => panic!("accepted malformed SFEN {s:?}"),
    }
}

#[test]
fn malformed_sfen_is_rejected_with_a_reason() {
    let start = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";
    assert!(sfen_err("shogi", "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSN b - 1")
        .contains("8 files"));
    assert!(sfen_err("shogi", "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNLL b - 1")
        .contains("files"));
    assert!(sfen_err("shogi", "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1 b - 1")
        .contains("ranks"));
    assert!(sfen_err("shogi", &start.replace("1r5b1", "1r5z1")).contains("unknown piece code"));
    assert!(sfen_err("shogi", &start.replace("1B5R1", "1B2K2R1")).contains("2 kings"));
    assert!(sfen_err("shogi", "lnsgkgsnP/1r5b1/ppppppp1p/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1")
        .contains("can never move"));
    assert!(sfen_err("shogi", &start.replace(" - ", " 3Z ")).contains("hands"));
    assert!(sfen_err("shogi", &start.replace(" - ", " K ")).contains("hands"));
    assert!(sfen_err("shogi", &start.replace(" b ", " x ")).contains("side to move"));
    assert!(sfen_err("shogi", &start.replace(" 1", " 0")).contains("move number"));
    assert!(sfen_err("shogi", "lnsgkgsnl/1r5b1/pppp1pppp/9/9/4P4/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1")
        .contains("nifu"));
    assert!(sfen_err("shogi", "4k4/9/9/9/9/9/9/4r4/4K4 w - 1").contains("not to move is in check"));
    assert!(sfen_err("chu", "12/12/12 b - 1").contains("ranks"));
    assert!(sfen_err("chu", "lfcsgekgscfl/a1b1txot1b1a/mvrhdqndhrvm/pppppppppppp/3i4i3/12/12/3I4I3/PPPPPPPPPPPP/MVRHDNQDHRVM/A1B1TOXT1B1A/LFCSGKEGSCFL b 13z 1").contains("third field"));
    assert!(sfen_err("chu", "+k11/12/12/12/12/12/12/12/12/12/12/11K b - 1")
        .contains("cannot be promoted"));
}

#[test]
fn a_bad_token_of_a_rank_is_named_with_its_rank() {
    let chu = |first_rank: &str| format!("{first_rank}/12/12/12/12/12/12/12/12/12/12/11K b - 1");
    for (rank, want) in [
        ("k0", "empty-square count 0"),
        ("k99", "run of empty squares is too long"),
        ("k10+", "'+' at the end of the rank"),
        ("k10+1", "unexpected character '1'"),
        ("k10#", "unexpected character '#'"),
        ("k{ln", "unclosed '{'"),
        ("k{}10", "bad piece code {}"),
        ("k{Ln}10", "mixes upper and lower case"),
        ("k{zz}10", "unknown piece code \"zz\""),
        ("12k", "more than 12 files"),
        ("k12", "13 files instead of 12"),
        ("k10", "11 files instead of 12"),
    ] {
        let msg = sfen_err("chu", &chu(rank));
        assert!(msg.contains("rank a") && msg.contains(want), "{rank}: {msg}");
    }
    // tokens of the same shapes that parse: a braced code, a promoted piece
    let v = Variant::builtin("chu").unwrap();
    for rank in ["k{e}10", "k+p10"] {
        assert!(Position::from_sfen(&v, &chu(rank)).is_ok(), "{rank}");
    }
    // HaChu's `C!` for tenjiku's chariot soldier `{CS}`: the same position
    let v = Variant::builtin("tenjiku").unwrap();
    let start = Position::start(&v).to_sfen();
    let hachu = start.replacen("{CS}", "C!", 1);
    assert_ne!(hachu, start);
    assert_eq!(Position::from_sfen(&v, &hachu).unwrap().to_sfen(), start);
}

#[test]
fn a_bad_move_string_is_named_with_its_fault() {
    for (moves, want) in [
        ("fR]", "unknown modifier ']'"),
        ("[fr", "unclosed '['"),
        ("[fx]R", "bad direction group [fx]"),
        ("fs", "modifiers without an atom letter"),
        ("R0", "bad range"),
        ("N2", "atom 'N' takes no range"),
        ("ffF", "select no direction of 'F'"),
        ("lion2:N", "needs king-step lines"),
        ("skip:W", "skip needs a riding atom"),
        ("skip:R1", "skip range must be at least 2"),
        ("warp:R", "unknown special atom 'warp'"),
        ("area5", "area needs a step count"),
    ] {
        let msg = shogilab_engine::betza::parse(moves).unwrap_err().to_string();
        assert!(msg.contains(want), "{moves}: {msg}");
    }
}

#[test]
fn malformed_usi_is_rejected_with_a_reason() {
    let v = Variant::builtin("shogi").unwrap();
    let pos = Position::start(&v);
    for (m, want) in [
        ("", "empty"),
        ("7g", "2 to 4 squares"),
        ("7g7g", "must leave"),
        ("0a1b", "not a square"),
        ("7z7f", "not a square"),
        ("7g-7f", "expected squares"),
        ("Z*5e", "can be dropped"),
        ("K*5e", "can be dropped"),
        ("P*5e", "no pawn in hand"),
        ("7g7e", "cannot move"),
        ("3c3d", "belongs to the opponent"),
        ("5e5d", "no piece"),
        ("7g7f+", "may not promote"),
    ] {
        let e = pos.parse_usi(m).expect_err(m).to_string();
        assert!(e.contains(want), "{m:?}: {e:?} should mention {want:?}");
    }
}

#[test]
fn broken_variant_specs_list_every_error() {
    let bad = r#"
name = "broken"
files = 9
ranks = 9
start = "4k4/9/9/9/9/9/9/9/4K4 b - 1"
[rules]
promotion = "sometimes"
check = true
[[piece]]
code = "K"
name = "king"
moves = "K"
royal = true
[[piece]]
code = "X"
name = "bad mover"
moves = "Yq2"
promotes = "NOPE"
"#;
    let path = std::env::temp_dir().join(format!("shogilab-broken-{}.toml", std::process::id()));
    std::fs::write(&path, bad).unwrap();
    let e = Variant::load(path.to_str().unwrap(), &[]).unwrap_err().to_string();
    std::fs::remove_file(&path).ok();
    assert!(e.contains("rules.promotion"), "{e}");
    assert!(e.contains("Yq2"), "{e}");
    assert!(e.contains("NOPE"), "{e}");
    assert!(e.contains(path.to_str().unwrap()), "error names the file: {e}");
}

#[test]
fn variant_extends_a_builtin() {
    let text = r#"
extends = "chu"
name = "chu-no-bare-king"
[rules]
bare_king = false
[[piece]]
code = "I"
name = "go-between"
moves = "vW"
promotes = "E"
minor = true
"#;
    let path = std::env::temp_dir().join(format!("shogilab-ext-{}.toml", std::process::id()));
    std::fs::write(&path, text).unwrap();
    let v = Variant::load(path.to_str().unwrap(), &[]).unwrap();
    std::fs::remove_file(&path).ok();
    assert_eq!(v.name, "chu-no-bare-king");
    assert!(!v.rules.bare_king);
    assert_eq!(v.files, 12);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn sfen_parser_never_panics(s in "[ -~]{0,120}") {
        for name in ["shogi", "chu"] {
            let v = Variant::builtin(name).unwrap();
            let _ = Position::from_sfen(&v, &s);
        }
    }

    #[test]
    fn mutated_sfen_never_panics(pos in 0usize..90, c in "[ -~]") {
        let v = Variant::builtin("chu").unwrap();
        let mut s: Vec<char> = v.spec.start.chars().collect();
        let p = pos % s.len();
        s[p] = c.chars().next().unwrap_or('x');
        let s: String = s.into_iter().collect();
        if let Ok(p) = Position::from_sfen(&v, &s) {
            // anything accepted must round-trip
            let again = Position::from_sfen(&v, &p.to_sfen()).unwrap();
            prop_assert!(again.same_as(&p));
        }
    }

    #[test]
    fn usi_parser_never_panics(s in "[0-9a-z+*=?PLNSGBRK{}]{0,12}") {
        for name in ["shogi", "chu"] {
            let v = Variant::builtin(name).unwrap();
            let pos = Position::start(&v);
            let _ = pos.parse_usi(&s);
        }
    }

    #[test]
    fn spec_parser_never_panics(s in "[ -~\n]{0,200}") {
        let _ = shogilab_engine::resolve::resolve("fuzz", &s, &[]);
        let _ = shogilab_engine::betza::parse(&s);
    }
}
