//! Scores: centipawns for the side to move, and mate scores counted in plies from the root.

/// A search score in centipawns, from the side to move's view.
pub type Score = i32;

/// The score of a side that has lost now (its royal taken, or no legal move left).
pub const MATE: Score = 1_000_000;
/// Scores beyond this in absolute value are decided games (a mate score less the plies).
pub const MATE_BOUND: Score = MATE - 10_000;
/// Beyond every score.
pub const INFINITE: Score = 2_000_000;
/// The score of a drawn line (repetition, ply cap).
pub const DRAW: Score = 0;

/// The score of losing at `ply` plies from the root.
pub fn mated_in(ply: usize) -> Score {
    -MATE + ply as Score
}

/// Whether `s` is a decided game rather than an evaluation.
pub fn is_decided(s: Score) -> bool {
    s.abs() >= MATE_BOUND
}

/// A score as the transposition table keeps it: mate scores counted from the node, not the root.
pub fn to_table(s: Score, ply: usize) -> Score {
    if s >= MATE_BOUND {
        s + ply as Score
    } else if s <= -MATE_BOUND {
        s - ply as Score
    } else {
        s
    }
}

/// A table score brought back to a node `ply` plies from the root.
pub fn from_table(s: Score, ply: usize) -> Score {
    if s >= MATE_BOUND {
        s - ply as Score
    } else if s <= -MATE_BOUND {
        s + ply as Score
    } else {
        s
    }
}

/// How a score is written over USI and XBoard: centipawns, or moves to mate (negative: mated).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    Centipawns(i32),
    /// Moves (not plies) to the end: positive when the side to move wins.
    Mate(i32),
}

/// A root score as a reader sees it.
pub fn shown(s: Score) -> Shown {
    if s >= MATE_BOUND {
        Shown::Mate((MATE - s + 1) / 2)
    } else if s <= -MATE_BOUND {
        Shown::Mate(-(MATE + s) / 2)
    } else {
        Shown::Centipawns(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_scores_survive_the_table_at_any_ply() {
        for ply in [0, 3, 17] {
            for s in [mated_in(5), -mated_in(9), 123, -40] {
                assert_eq!(from_table(to_table(s, ply), ply), s);
            }
        }
        // a mate found 5 plies below a node 3 plies deep is 8 plies from the root
        assert_eq!(from_table(to_table(-mated_in(5), 0), 3), -mated_in(8));
    }

    #[test]
    fn mates_are_shown_in_moves() {
        assert_eq!(shown(-mated_in(1)), Shown::Mate(1));
        assert_eq!(shown(-mated_in(3)), Shown::Mate(2));
        assert_eq!(shown(mated_in(2)), Shown::Mate(-1));
        assert_eq!(shown(57), Shown::Centipawns(57));
    }
}
