//! Where a match's games start: random openings of a few quiet plies from the start position
//! (the default), or a list of openings that the user gives (`shogilab match --openings FILE`:
//! set positions, book lines, the middle of an earlier game). Each opening is played twice,
//! with the colours swapped; a listed opening is a start position and the moves played from it
//! before the agents are asked.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use shogilab_engine::cell::cell_type;
use shogilab_engine::{Game, Move, Position, Variant};
use std::sync::Arc;

/// One opening: the position a game starts from and the moves played for both sides first.
#[derive(Clone)]
pub struct Opening {
    pub start: Position,
    pub moves: Vec<Move>,
}

/// A match's openings.
#[derive(Clone)]
pub enum Openings {
    /// `plies` random plies without captures or promotions from the start position, drawn
    /// from the match seed; with `still_royals`, no ply moves a royal piece.
    Random { plies: usize, still_royals: bool },
    /// These openings, in order; a match of more than twice as many games cycles through them.
    Listed(OpeningList),
}

/// A list of at least one opening.
#[derive(Clone)]
pub struct OpeningList(Arc<[Opening]>);

impl OpeningList {
    /// The list, or `None` when it is empty.
    pub fn new(openings: Vec<Opening>) -> Option<OpeningList> {
        (!openings.is_empty()).then(|| OpeningList(openings.into()))
    }
}

impl Default for Openings {
    fn default() -> Self {
        Openings::random(4)
    }
}

impl std::fmt::Debug for Openings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Openings::Random { plies, still_royals } => {
                write!(f, "Random {{ plies: {plies}, still_royals: {still_royals} }}")
            }
            Openings::Listed(list) => write!(f, "Listed({} openings)", list.0.len()),
        }
    }
}

impl Openings {
    /// `plies` random plies, royals free to move.
    pub fn random(plies: usize) -> Openings {
        Openings::Random { plies, still_royals: false }
    }

    /// The openings of a match of `games` games (one per pair of games, never empty): the
    /// listed ones, or `games / 2` (rounded up) random ones drawn from `seed`.
    pub fn for_match(&self, v: &Arc<Variant>, games: usize, seed: u64) -> Vec<Opening> {
        match self {
            Openings::Listed(list) => list.0.to_vec(),
            Openings::Random { plies, still_royals } => {
                random_openings(v, games.div_ceil(2).max(1), *plies, *still_royals, seed)
                    .into_iter()
                    .map(|moves| Opening { start: Position::start(v), moves })
                    .collect()
            }
        }
    }
}

/// `n` openings of `plies` random legal plies from the start position, without captures (so
/// both sides keep equal material) and not ending the game; with `still_royals`, without moves
/// of a royal piece (tai's Emperor, which may go to any empty square, has most of the legal
/// moves, so random plies scatter both Emperors over the board and the first mover takes the
/// other's at ply 5). Deterministic for a seed.
pub fn random_openings(
    v: &Arc<Variant>,
    n: usize,
    plies: usize,
    still_royals: bool,
    seed: u64,
) -> Vec<Vec<Move>> {
    let mut rng = SmallRng::seed_from_u64(seed ^ 0x6f70_656e_696e_6773);
    let start = Position::start(v);
    let mut out = Vec::with_capacity(n);
    let mut attempts = 0;
    while out.len() < n {
        attempts += 1;
        let mut g = Game::new(start.clone());
        let mut line = Vec::with_capacity(plies);
        let mut ok = true;
        for _ in 0..plies {
            let pos = g.position();
            let quiet: Vec<Move> = g
                .legal()
                .iter()
                .copied()
                .filter(|m| {
                    m.is_drop()
                        || (m.mids().chain([m.to]).all(|s| s == m.from || pos.cell(s) == 0)
                            && !m.promotes()
                            && !(still_royals && moves_royal(v, pos, *m)))
                })
                .collect();
            if quiet.is_empty() {
                ok = false;
                break;
            }
            let m = quiet[rng.gen_range(0..quiet.len())];
            g.play(m);
            line.push(m);
            if g.status().is_over() {
                ok = false;
                break;
            }
        }
        if ok || attempts > 100 * (n + 1) {
            out.push(if ok { line } else { Vec::new() });
        }
    }
    out
}

/// Whether `m` (not a drop) moves a royal piece of `pos`.
fn moves_royal(v: &Variant, pos: &Position, m: Move) -> bool {
    v.types[cell_type(pos.cell(m.from)) as usize].royal
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How many plies of tai openings move a royal piece.
    fn royal_plies(still_royals: bool) -> usize {
        let v = Variant::builtin("tai").unwrap();
        let openings = random_openings(&v, 10, 4, still_royals, 5);
        assert_eq!(openings.len(), 10);
        let mut royal = 0;
        for line in &openings {
            assert_eq!(line.len(), 4, "an opening that could not be completed");
            let mut g = Game::new(Position::start(&v));
            for &m in line {
                royal += usize::from(moves_royal(&v, g.position(), m));
                g.play(m);
            }
        }
        royal
    }

    #[test]
    fn still_royals_keep_tais_royals_home_where_random_plies_move_them() {
        assert_eq!(royal_plies(true), 0);
        // the Emperor has most of tai's legal moves: random plies move it more often than not
        assert!(royal_plies(false) > 20, "{}", royal_plies(false));
    }
}
