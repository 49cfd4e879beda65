//! Piece values that need no games: each kind's mobility on the empty board, and the floor that
//! keeps royals above every other kind. The starting point of the engine's evaluator and of
//! the agents that must not see a published value table.

use crate::cell::Color;
use crate::movegen::Convention;
use crate::moves::MoveList;
use crate::position::Position;
use crate::variant::{PieceType, Variant};
use std::sync::Arc;

/// Per type and square (the variant's square order): the number of moves of a lone Black piece
/// there on the empty board, scaled so that the pawn's mean (or the least mobile kind's) is 1.
pub fn mobility_by_square(variant: &Arc<Variant>) -> Vec<Vec<f32>> {
    let mut list = MoveList::new();
    let table: Vec<Vec<f32>> = variant
        .types
        .iter()
        .map(|t| {
            let mut moves_at = |s: u16| {
                let mut pos = Position::empty(Arc::clone(variant));
                pos.place(s, Color::Black, t.id);
                list.clear();
                pos.pseudo_moves(&mut list, Convention::Distinct);
                // count destinations, not promotion variants
                list.sort_by_key(|m| (m.from, m.to, m.mid));
                list.dedup_by_key(|m| (m.from, m.to, m.mid));
                list.len() as f32
            };
            variant.squares.iter().map(|&s| moves_at(s)).collect()
        })
        .collect();
    let mean = |row: &Vec<f32>| row.iter().sum::<f32>() / row.len() as f32;
    let pawn = variant
        .types
        .iter()
        .find(|t| t.name == "pawn" && !t.promoted)
        .map(|t| mean(&table[t.id as usize]))
        .filter(|&m| m > 0.0)
        .unwrap_or_else(|| table.iter().map(mean).filter(|&m| m > 0.0).fold(f32::MAX, f32::min));
    table.into_iter().map(|row| row.into_iter().map(|m| m / pawn).collect()).collect()
}

/// Per type: the mean number of moves of a lone piece over every square of the empty board,
/// scaled so that the pawn (or the least mobile kind) is 1.
pub fn mobility(variant: &Arc<Variant>) -> Vec<f32> {
    mobility_by_square(variant)
        .iter()
        .map(|row| row.iter().sum::<f32>() / row.len() as f32)
        .collect()
}

/// Raise every royal kind to at least twice the most valuable non-royal kind, and a royal that
/// may capture anywhere (tai's Emperor) to twice every other royal (see
/// `PieceValues::with_royal_floor` in the self-play crate for why).
pub fn royal_floor(variant: &Variant, values: &mut [f32]) {
    let most = |values: &[f32], kinds: &dyn Fn(&PieceType) -> bool| {
        variant.types.iter().filter(|t| kinds(t)).map(|t| values[t.id as usize]).fold(0.0, f32::max)
    };
    let raise = |values: &mut [f32], kinds: &dyn Fn(&PieceType) -> bool, floor: f32| {
        for t in variant.types.iter().filter(|t| kinds(t)) {
            let v = &mut values[t.id as usize];
            *v = v.max(floor);
        }
    };
    let other_kinds = most(values, &|t| !t.royal);
    raise(values, &|t| t.royal, 2.0 * other_kinds);
    let other_royals = most(values, &|t| t.royal && !t.captures_anywhere());
    raise(values, &|t| t.royal && t.captures_anywhere(), 2.0 * other_royals);
}
