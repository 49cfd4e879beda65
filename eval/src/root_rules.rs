//! What the game's own rules decide at the root that a search tree does not see. The MCTS tree
//! scores a repeated position as a draw (or, where repeating is forbidden, as lost), while a
//! variant's rules may give such a game to one side: in chu the side whose every move of the
//! cycle attacked loses, in shogi perpetual check loses, whichever side completes the
//! repetition. Once a position of the game is one occurrence short of such a repetition,
//! [`RuleVerdicts::of`] plays each root move on a copy of the game, and each reply to it that
//! reaches such a position, and reads the game's status (before that, only the captures, which
//! may end the game otherwise: a king bared): a move that wins at once is played without a
//! search, and the moves that lose at once, or after which the opponent can complete a
//! repetition that the rules give to it, are kept out of the search while another move
//! remains.

use shogilab_engine::position::Undo;
use shogilab_engine::variant::RepetitionRule;
use shogilab_engine::{Game, Move, Position, Status};
use std::collections::{HashMap, HashSet};

/// The root moves that the game's rules decide within a move and its reply.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuleVerdicts {
    /// A move after which the side to move has won (the first in move order).
    pub win: Option<Move>,
    /// The moves after which the side to move has lost, or after which the opponent has a
    /// reply that wins.
    pub losses: Vec<Move>,
}

impl RuleVerdicts {
    /// The verdicts on `game`'s legal moves; none where the variant's repetitions are draws
    /// or forbidden (the legal moves already leave those out). A capture is played on a copy
    /// of the game (it may end the game at once: a royal taken, a king bared); once a position
    /// of the game is one occurrence short of a repetition that the rules count, so is every
    /// move, and every reply to it that reaches such a position.
    pub fn of(game: &Game) -> RuleVerdicts {
        let mut out = RuleVerdicts::default();
        let rules = &game.position().variant().rules;
        if !matches!(
            rules.repetition,
            RepetitionRule::AttackerLoses | RepetitionRule::PerpetualCheckLoses
        ) {
            return out;
        }
        let near = one_short(game, rules.repetition_count);
        let us = game.position().side_to_move();
        let mut pos = game.position().clone();
        for &m in game.legal() {
            if near.is_empty() && !peek(&mut pos, m, |_, undo| undo.captured_any()) {
                continue;
            }
            let after = played(game, m);
            match after.status() {
                Status::Win(c, _) if c == us => {
                    out.win.get_or_insert(m);
                }
                Status::Win(..) => out.losses.push(m),
                _ if !near.is_empty() && reply_wins(&after, &near) => out.losses.push(m),
                _ => {}
            }
        }
        out
    }

    /// The moves a search may choose: `allowed` (empty: every legal move) less the losing
    /// moves; where none of `allowed` is left, the legal moves less the losing ones (losing the
    /// material a screen protects is better than losing the game); where every legal move
    /// loses, `allowed` unchanged.
    pub fn restrict(&self, legal: &[Move], allowed: Vec<Move>) -> Vec<Move> {
        if self.losses.is_empty() {
            return allowed;
        }
        let keep = |moves: &[Move]| -> Vec<Move> {
            moves.iter().copied().filter(|m| !self.losses.contains(m)).collect()
        };
        let kept = keep(&allowed);
        if !kept.is_empty() {
            return kept;
        }
        let rest = keep(legal);
        if rest.is_empty() {
            allowed
        } else {
            rest
        }
    }
}

/// The positions of the game so far (the current one included) that one more occurrence makes
/// a repetition the rules count: those seen `count - 1` times or more.
fn one_short(game: &Game, count: u8) -> HashSet<u64> {
    let mut seen: HashMap<u64, u32> = HashMap::new();
    for h in game.position_hashes().chain([game.position().hash()]) {
        *seen.entry(h).or_default() += 1;
    }
    seen.into_iter().filter(|&(_, n)| n + 1 >= u32::from(count)).map(|(h, _)| h).collect()
}

/// Whether the side to move in `game` has a move that wins by the rules on repetition (one
/// that reaches a position of `near`).
fn reply_wins(game: &Game, near: &HashSet<u64>) -> bool {
    let them = game.position().side_to_move();
    let mut pos = game.position().clone();
    game.legal().iter().any(|&r| {
        near.contains(&peek(&mut pos, r, |after, _| after.hash()))
            && matches!(played(game, r).status(), Status::Win(c, _) if c == them)
    })
}

/// `f` of the position after `m` and its undo record, `pos` left as it was.
fn peek<T>(pos: &mut Position, m: Move, f: impl FnOnce(&Position, &Undo) -> T) -> T {
    let undo = pos.play(m);
    let out = f(pos, &undo);
    pos.unplay(&undo);
    out
}

/// A copy of `game` with `m` played (its status applies the rules).
fn played(game: &Game, m: Move) -> Game {
    let mut after = game.clone();
    after.play(m);
    after
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use shogilab_engine::{Position, Variant};

    /// A chu game of two kings, a Black pawn on 9f and a White gold that steps between 9e and
    /// 10e, attacking the pawn each time, while Black's king steps between 6l and 7l and attacks
    /// nothing: `plies` plies of that cycle, `first` to move first. A second Black pawn on 1k
    /// keeps Black from being bared when the gold takes the first.
    pub(crate) fn chase(first: &str, plies: usize) -> Game {
        let v = Variant::builtin("chu").unwrap();
        let sfen = format!("6k5/12/12/12/3g8/3P8/12/12/12/12/11P/6K5 {first} - 1");
        let mut game = Game::new(Position::from_sfen(&v, &sfen).unwrap());
        let white = ["9e10e", "10e9e"];
        let black = ["6l7l", "7l6l"];
        for ply in 0..plies {
            let side = if game.position().side_to_move().idx() == 0 { &black } else { &white };
            let m = game.position().parse_usi(side[(ply / 2) % 2]).unwrap();
            game.play(m);
        }
        game
    }

    /// The side to move loses (`false`) or wins (`true`) after `mv`, by the game's own status.
    fn decided_for_mover(game: &Game, mv: Move) -> Option<bool> {
        let us = game.position().side_to_move();
        let mut after = game.clone();
        after.play(mv);
        match after.status() {
            Status::Win(c, _) => Some(c == us),
            _ => None,
        }
    }

    #[test]
    fn the_attacker_that_completes_the_fourth_repetition_loses_and_is_kept_out() {
        // Black first: the start position's fourth occurrence comes with White's 12th ply,
        // an attacking move like all of White's in the cycle, so the game gives it to Black
        let game = chase("b", 11);
        let repeat = game.position().parse_usi("10e9e").unwrap();
        assert_eq!(decided_for_mover(&game, repeat), Some(false));
        let v = RuleVerdicts::of(&game);
        assert_eq!(v, RuleVerdicts { win: None, losses: vec![repeat] });
        // kept out of the moves searched, whether the screen allowed everything or only it
        let legal = game.legal();
        let all = v.restrict(legal, Vec::new());
        assert_eq!(all.len(), legal.len() - 1);
        assert!(!all.contains(&repeat));
        assert_eq!(v.restrict(legal, vec![repeat]), all, "the screen's only move loses");
        let other = all[0];
        assert_eq!(v.restrict(legal, vec![repeat, other]), vec![other]);
        // one ply earlier nothing is decided, nor in a fresh game
        assert_eq!(RuleVerdicts::of(&chase("b", 10)), RuleVerdicts::default());
        assert_eq!(RuleVerdicts::of(&chase("b", 0)), RuleVerdicts::default());
    }

    #[test]
    fn the_side_attacked_wins_by_completing_the_repetition() {
        // White first: Black's 12th ply (its king, attacking nothing) completes the fourth
        // occurrence, and the attacker loses
        let game = chase("w", 11);
        let repeat = game.position().parse_usi("7l6l").unwrap();
        assert_eq!(decided_for_mover(&game, repeat), Some(true));
        assert_eq!(RuleVerdicts::of(&game), RuleVerdicts { win: Some(repeat), losses: vec![] });
        // one ply earlier, White's move back to 9e decides nothing itself but lets Black
        // complete the repetition: a loss for White within its reply
        let before = chase("w", 10);
        let back = before.position().parse_usi("10e9e").unwrap();
        assert_eq!(decided_for_mover(&before, back), None);
        let mut after = before.clone();
        after.play(back);
        assert_eq!(decided_for_mover(&after, repeat), Some(true));
        assert_eq!(RuleVerdicts::of(&before), RuleVerdicts { win: None, losses: vec![back] });
    }

    #[test]
    fn a_capture_that_bares_the_king_wins_outside_any_cycle() {
        // without the second Black pawn, the gold that takes the first bares Black's king
        let v = Variant::builtin("chu").unwrap();
        let sfen = "6k5/12/12/12/3g8/3P8/12/12/12/12/12/6K5 w - 1";
        let game = Game::new(Position::from_sfen(&v, sfen).unwrap());
        let take = game.position().parse_usi("9e9f").unwrap();
        assert_eq!(decided_for_mover(&game, take), Some(true));
        assert_eq!(RuleVerdicts::of(&game), RuleVerdicts { win: Some(take), losses: vec![] });
    }

    #[test]
    fn a_variant_that_forbids_repetitions_has_no_verdicts() {
        // tai: a move that would repeat is not legal, so no legal move repeats
        for name in ["tai"] {
            let v = Variant::builtin(name).unwrap();
            let mut game = Game::new(Position::start(&v));
            let mut moves = 0;
            while moves < 12 && !game.status().is_over() {
                let m = game.legal()[moves % game.legal().len()];
                game.play(m);
                moves += 1;
            }
            assert_eq!(RuleVerdicts::of(&game), RuleVerdicts::default(), "{name}");
        }
    }
}
