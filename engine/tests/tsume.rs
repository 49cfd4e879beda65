//! Positions where a side has no royal piece (tsume-shogi problems give the attacker no king):
//! such a side can neither be in check nor be mated nor lose a royal, but its pawn drops still
//! may not mate, and it loses when it has no move. Perft counts against cshogi and
//! python-shogi are in `fixtures.rs` (`perft/shogi-tsume.perft`).

use shogilab_engine::{Color, EngineError, Game, MoveList, Position, Status, Termination, Variant};

fn shogi(sfen: &str) -> Position {
    let v = Variant::builtin("shogi").unwrap();
    Position::from_sfen(&v, sfen).unwrap_or_else(|e| panic!("{sfen}: {e}"))
}

fn legal_usi(pos: &Position) -> Vec<String> {
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    list.iter().map(|&m| pos.move_to_usi(m)).collect()
}

fn play(g: &mut Game, moves: &str) {
    for m in moves.split_whitespace() {
        let mv = g.parse_usi(m).unwrap_or_else(|e| panic!("{m}: {e}"));
        g.play(mv);
    }
}

#[test]
fn a_side_without_a_king_is_accepted_and_written_back() {
    for sfen in [
        "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1",
        "9/9/9/9/9/9/4p4/9/4K4 w 2R2B3G4S4N4L17Pg 1",
        "9/9/9/9/9/9/9/9/9 b P 1",
    ] {
        assert_eq!(shogi(sfen).to_sfen(), sfen);
    }
}

#[test]
fn two_kings_of_one_side_are_still_refused() {
    let v = Variant::builtin("shogi").unwrap();
    let sfen = "4k4/9/9/9/9/9/9/9/3KK4 b - 1";
    match Position::from_sfen(&v, sfen) {
        Err(EngineError::Sfen { input, msg }) => {
            assert_eq!(input, sfen);
            assert!(msg.contains("Black has 2 kings"), "{msg}");
        }
        other => panic!("expected an SFEN error, got {:?}", other.map(|p| p.to_sfen())),
    }
}

#[test]
fn the_kingless_attacker_may_not_mate_by_dropping_a_pawn() {
    // P*1b: the gold on 2c guards 1b and 2b, White's own knight blocks 2a.
    let mate = shogi("7nk/9/7G1/9/9/9/9/9/9 b P2r2b3g4s3n4l17p 1");
    let moves = legal_usi(&mate);
    assert!(!moves.contains(&"P*1b".to_string()), "drop-pawn mate allowed");
    assert!(moves.contains(&"P*1c".to_string()));
    // with 2a free the same drop is only check, and legal
    let check = shogi("8k/9/7G1/9/9/9/9/9/9 b P2r2b3g4s4n4l17p 1");
    assert!(legal_usi(&check).contains(&"P*1b".to_string()));
}

#[test]
fn the_kingless_side_is_never_in_check() {
    // White's rook looks at the Black gold on 5e; Black has no king to expose.
    let pos = shogi("4k4/4r4/9/9/4G4/9/9/9/9 b - 1");
    assert!(!pos.in_check());
    let moves = legal_usi(&pos);
    assert!(moves.contains(&"5e4e".to_string()), "a piece in front of no king is not pinned");
}

#[test]
fn the_defender_can_be_mated() {
    let mut g = Game::new(shogi("4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1"));
    assert_eq!(g.status(), Status::Ongoing);
    play(&mut g, "G*5b");
    assert_eq!(g.status(), Status::Win(Color::Black, Termination::Checkmate));
}

#[test]
fn the_attacker_without_a_move_loses() {
    let g = Game::new(shogi("4k4/9/9/9/9/9/9/9/9 b 2r2b4g4s4n4l18p 1"));
    assert_eq!(g.status(), Status::Win(Color::White, Termination::Stalemate));
}

#[test]
fn a_lone_piece_against_a_lone_king_is_not_bare_kings() {
    let g = Game::new(shogi("4k4/9/9/9/9/9/9/9/4G4 w - 1"));
    assert_eq!(g.status(), Status::Ongoing);
    // the bare-kings draw itself is unchanged
    let g = Game::new(shogi("4k4/9/9/9/9/9/9/9/4K4 b - 1"));
    assert_eq!(g.status(), Status::Draw(Termination::InsufficientMaterial));
}

#[test]
fn chu_side_without_a_king_plays_on_and_can_still_capture_one() {
    let v = Variant::builtin("chu").unwrap();
    let pos = Position::from_sfen(&v, "12/12/12/12/12/5k6/5R6/12/12/12/12/12 b - 1").unwrap();
    let mut g = Game::new(pos);
    assert_eq!(g.status(), Status::Ongoing, "Black has no king to lose");
    play(&mut g, "7g7f");
    assert_eq!(g.status(), Status::Win(Color::Black, Termination::RoyalCaptured));
    g.unplay();
    assert_eq!(g.status(), Status::Ongoing);
}
