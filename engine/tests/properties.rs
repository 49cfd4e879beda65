//! Property tests on random playouts: play/unplay restores position and hash, the incremental
//! hash equals a fresh one, SFEN round-trips, USI round-trips, and perft is independent of the
//! move-list convention where it must be, and the capture generator lists exactly the captures
//! among the legal moves, in their order.

use rand::{rngs::SmallRng, Rng, SeedableRng};
use shogilab_engine::{Convention, Game, MoveList, Position, Variant};

fn variants() -> Vec<&'static str> {
    let mut v = vec!["shogi", "chu"];
    for n in ["tenjiku", "tai"] {
        if Variant::builtin(n).is_ok() {
            v.push(n);
        }
    }
    v
}

/// Check every legal move of `pos` for play/unplay, hash and notation invariants.
fn check_position(pos: &mut Position, list: &mut MoveList) {
    let before_sfen = pos.to_sfen();
    let before_hash = pos.hash();
    pos.validate().unwrap_or_else(|e| panic!("{before_sfen}: {e}"));
    // SFEN round trip.
    let back = Position::from_sfen(pos.variant(), &before_sfen).unwrap_or_else(|e| panic!("{e}"));
    assert!(back.same_as(pos), "SFEN round trip changed {before_sfen}");
    assert_eq!(back.hash(), before_hash, "SFEN round trip changed the hash of {before_sfen}");
    list.clear();
    pos.legal_moves(list);
    let moves: Vec<_> = list.clone();
    let mut seen = std::collections::HashSet::new();
    for m in moves {
        let usi = pos.move_to_usi(m);
        assert!(seen.insert(usi.clone()), "duplicate move {usi} in {before_sfen}");
        // USI round trip.
        let parsed = pos.parse_usi(&usi).unwrap_or_else(|e| panic!("{before_sfen}: {usi}: {e}"));
        assert_eq!(parsed, m, "USI round trip of {usi} in {before_sfen}");
        let u = pos.play(m);
        pos.validate().unwrap_or_else(|e| panic!("{before_sfen} after {usi}: {e}"));
        pos.unplay(&u);
        assert_eq!(pos.hash(), before_hash, "unplay({usi}) changed the hash of {before_sfen}");
        assert_eq!(pos.to_sfen(), before_sfen, "unplay({usi}) changed {before_sfen}");
    }
}

#[test]
fn random_playouts_keep_invariants() {
    for name in variants() {
        let v = Variant::builtin(name).unwrap();
        let (games, plies) = match name {
            "shogi" | "chu" => (12, 160),
            _ => (2, 40),
        };
        let mut rng = SmallRng::seed_from_u64(7);
        let mut list = MoveList::new();
        for _ in 0..games {
            let mut game = Game::new(Position::start(&v));
            for _ in 0..plies {
                if game.status().is_over() {
                    break;
                }
                let mut pos = game.position().clone();
                check_position(&mut pos, &mut list);
                let legal = game.legal();
                let m = legal[rng.gen_range(0..legal.len())];
                game.play(m);
            }
        }
    }
}

#[test]
fn lishogi_convention_is_a_superset_with_the_same_outcomes() {
    let v = Variant::builtin("chu").unwrap();
    let mut rng = SmallRng::seed_from_u64(11);
    let mut game = Game::new(Position::start(&v));
    let (mut a, mut b) = (MoveList::new(), MoveList::new());
    for _ in 0..200 {
        if game.status().is_over() {
            break;
        }
        let pos = game.position().clone();
        a.clear();
        b.clear();
        pos.legal_moves(&mut a);
        pos.legal_moves_conv(&mut b, Convention::Lishogi);
        assert!(b.len() >= a.len());
        for m in &a {
            assert!(
                b.contains(m) || m.returns(),
                "{} missing from lishogi list",
                pos.move_to_usi(*m)
            );
        }
        // every lishogi-convention move maps to a distinct-convention move with the same result
        for m in &b {
            let usi = pos.move_to_usi(*m);
            let canon = pos.parse_usi(&usi).unwrap_or_else(|e| panic!("{usi}: {e}"));
            let mut p1 = pos.clone();
            let mut p2 = pos.clone();
            p1.play(*m);
            p2.play(canon);
            assert!(p1.same_as(&p2), "{usi} and its canonical form differ");
        }
        let legal = game.legal();
        let m = legal[rng.gen_range(0..legal.len())];
        game.play(m);
    }
}

#[test]
fn start_positions_are_symmetric() {
    for name in variants() {
        let v = Variant::builtin(name).unwrap();
        let pos = Position::start(&v);
        for &s in &v.squares {
            let (x, y) = v.xy(s);
            let r = v.sq(v.files as i16 - 1 - x, v.ranks as i16 - 1 - y);
            let (a, b) = (pos.cell(s), pos.cell(r));
            assert_eq!(a == 0, b == 0, "{name}: symmetry at {}", v.square_name(s));
            if a != 0 {
                assert_eq!(a & 0x1fff, b & 0x1fff, "{name}: piece types at {}", v.square_name(s));
                assert_ne!(a & 0x6000, b & 0x6000, "{name}: colours at {}", v.square_name(s));
            }
        }
    }
}

/// The moves of `list` that capture: an enemy piece on a mid-square or on a destination other
/// than the start square (the definition `legal_captures` documents), in list order.
fn captures_of(pos: &Position, list: &[shogilab_engine::Move]) -> Vec<shogilab_engine::Move> {
    let us = pos.side_to_move().bit();
    let enemy = |s: u16| pos.cell(s) != 0 && pos.cell(s) & us == 0;
    list.iter()
        .copied()
        .filter(|m| !m.is_drop() && (m.mids().any(enemy) || (m.to != m.from && enemy(m.to))))
        .collect()
}

#[test]
fn capture_generation_is_the_capture_subsequence_of_the_legal_moves() {
    for name in variants() {
        let v = Variant::builtin(name).unwrap();
        let (games, plies) = match name {
            "shogi" | "chu" => (8, 300),
            _ => (2, 200),
        };
        let mut rng = SmallRng::seed_from_u64(11);
        let (mut all, mut caps, mut scratch) = (MoveList::new(), MoveList::new(), MoveList::new());
        let mut with_captures = 0;
        for _ in 0..games {
            let mut game = Game::new(Position::start(&v));
            for _ in 0..plies {
                if game.status().is_over() {
                    break;
                }
                let pos = game.position();
                all.clear();
                pos.legal_moves(&mut all);
                caps.clear();
                pos.legal_captures(&mut caps);
                assert_eq!(caps, captures_of(pos, &all), "{name}: {}", pos.to_sfen());
                with_captures += usize::from(!caps.is_empty());
                assert_eq!(pos.has_legal_move_in(&mut scratch), !all.is_empty());
                let legal = game.legal();
                // captures more often than chance, so the boards thin out and trades happen
                let m = if !caps.is_empty() && rng.gen_bool(0.5) {
                    caps[rng.gen_range(0..caps.len())]
                } else {
                    legal[rng.gen_range(0..legal.len())]
                };
                if !legal.contains(&m) {
                    continue;
                }
                game.play(m);
            }
        }
        assert!(with_captures > 20, "{name}: only {with_captures} positions with captures");
    }
}
