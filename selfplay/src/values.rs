//! Piece values in pawn units, per piece type: loaded from a table (`configs/values/*.toml`,
//! by the English piece name a type moves as) or derived from mobility on an empty board.
//!
//! Mobility values are the default for agents that must not see the German Chu Shogi
//! Association table (piece-value estimation would otherwise only give it back).

use serde::Deserialize;
use shogilab_engine::{Color, Move, Position, Variant};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A value table file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValueFile {
    /// Where the numbers come from.
    pub source: String,
    /// Variant the table is for.
    pub variant: String,
    /// English piece name -> value in pawns.
    pub values: BTreeMap<String, f32>,
}

/// Values per piece type of one variant.
#[derive(Debug, Clone)]
pub struct PieceValues {
    pub source: String,
    pub variant: Arc<Variant>,
    pub per_type: Vec<f32>,
}

/// Why a value table could not be used; each names the table.
#[derive(Debug, thiserror::Error)]
pub enum ValueTableError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// Not a value table (bad TOML, unknown or missing fields).
    #[error("{origin}: {source}")]
    Parse {
        origin: String,
        #[source]
        source: Box<toml::de::Error>,
    },
    /// Piece types of the variant without a finite value.
    #[error("{origin}: no value for {}", .missing.join(", "))]
    Missing { origin: String, missing: Vec<String> },
}

impl PieceValues {
    /// Load a table; every piece type of the variant must have a value (by the name it moves as).
    pub fn from_file(
        variant: Arc<Variant>,
        path: &std::path::Path,
    ) -> Result<PieceValues, ValueTableError> {
        let text = std::fs::read_to_string(path)
            .map_err(|source| ValueTableError::Read { path: path.display().to_string(), source })?;
        Self::from_toml(variant, &text, &path.display().to_string())
    }

    /// Read a table from TOML text; `origin` names it in errors.
    pub fn from_toml(
        variant: Arc<Variant>,
        text: &str,
        origin: &str,
    ) -> Result<PieceValues, ValueTableError> {
        let f: ValueFile = toml::from_str(text).map_err(|source| ValueTableError::Parse {
            origin: origin.to_string(),
            source: Box::new(source),
        })?;
        let mut per_type = Vec::with_capacity(variant.types.len());
        let mut missing = Vec::new();
        for t in &variant.types {
            match f.values.get(&t.name) {
                Some(&v) if v.is_finite() => per_type.push(v),
                Some(_) => missing.push(format!("{} (not a finite number)", t.name)),
                None => missing.push(t.name.clone()),
            }
        }
        if !missing.is_empty() {
            missing.dedup();
            return Err(ValueTableError::Missing { origin: origin.to_string(), missing });
        }
        Ok(PieceValues { source: f.source, variant, per_type })
    }

    /// Values from mobility: the mean number of moves of a lone piece over every square of the
    /// empty board, scaled so that the pawn (or the least mobile kind) is 1.
    pub fn mobility(variant: Arc<Variant>) -> PieceValues {
        let per_type = shogilab_engine::material::mobility(&variant);
        PieceValues { source: "mobility".into(), variant, per_type }
    }

    /// The same values with every royal kind worth at least twice the most valuable non-royal
    /// kind, so that a search never gives a royal for any one piece. Where a side has several
    /// royals (tai's Emperor and prince, a chu crown prince) losing one does not end the game,
    /// and a value from mobility alone trades it like any piece: tai's Emperor and hook mover
    /// both reach every square of the empty board and weigh the same 650 pawns, and searches
    /// that saw them as equal gave an Emperor for a hook mover, the Emperor that decides a tai
    /// game against a side without one. Where a side has one royal its loss ends the game before
    /// its value counts. A royal that may capture anywhere (tai's Emperor) is worth at least
    /// twice every other royal: with the floor alone the Emperor weighed the same as a prince,
    /// and a search that had to lose one of them gave the Emperor and took a piece with it.
    pub fn with_royal_floor(mut self) -> PieceValues {
        shogilab_engine::material::royal_floor(&self.variant, &mut self.per_type);
        self.source = format!(
            "{}, royals at least twice the most valuable other kind, an Emperor twice any other royal",
            self.source
        );
        self
    }

    /// Value of a type.
    #[inline]
    pub fn of(&self, t: u16) -> f32 {
        self.per_type[t as usize]
    }

    /// Material of colour `c`: pieces on the board and in hand.
    pub fn material(&self, pos: &Position, c: Color) -> f32 {
        let mut s = 0.0;
        for &sq in pos.pieces(c) {
            s += self.of(pos.cell(sq) & 0x1fff);
        }
        for (h, &t) in self.variant.hand_types.iter().enumerate() {
            s += pos.hand(c, h) as f32 * self.of(t);
        }
        s
    }

    /// Sum of the start position's material of one side.
    pub fn total_start_material(&self) -> f32 {
        self.material(&Position::start(&self.variant), Color::Black)
    }

    /// Material gained by a move: captured pieces (stops and destination) and promotion.
    pub fn capture_gain(&self, pos: &Position, m: Move) -> f32 {
        if m.is_drop() {
            return 0.0;
        }
        let us = pos.side_to_move();
        let mut g = 0.0;
        for s in m.mids().chain((m.to != m.from).then_some(m.to)) {
            let c = pos.cell(s);
            if c != 0 && (c & us.bit()) == 0 {
                g += self.of(c & 0x1fff);
            }
        }
        if m.promotes() {
            let t = pos.cell(m.from) & 0x1fff;
            if let Some(p) = self.variant.types[t as usize].promotes_to {
                g += self.of(p) - self.of(t);
            }
        }
        g
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(v: &Variant, name: &str) -> u16 {
        v.types.iter().find(|t| t.name == name && !t.promoted).map(|t| t.id).expect("a kind")
    }

    #[test]
    fn royals_rise_above_every_other_kind_and_nothing_else_moves() {
        let v = Arc::new(Variant::builtin("tai").expect("tai is built in"));
        let plain = PieceValues::mobility(Arc::clone(&v));
        let (emperor, hook) = (kind(&v, "emperor"), kind(&v, "hook mover"));
        // why the floor exists: mobility weighs tai's Emperor like a hook mover
        assert_eq!(plain.of(emperor), plain.of(hook));
        let floored = plain.clone().with_royal_floor();
        let top = v.types.iter().filter(|t| !t.royal).map(|t| plain.of(t.id)).fold(0.0, f32::max);
        for t in &v.types {
            if t.royal {
                assert!(floored.of(t.id) >= 2.0 * top, "{}: {}", t.name, floored.of(t.id));
            } else {
                assert_eq!(floored.of(t.id), plain.of(t.id), "{}", t.name);
            }
        }
        assert!(floored.of(emperor) > floored.of(hook));
        for t in v.types.iter().filter(|t| t.royal && t.id != emperor) {
            assert!(floored.of(emperor) >= 2.0 * floored.of(t.id), "{}", t.name);
        }
    }
}
