//! The variant specification language: what a `configs/variants/*.toml` file holds.
//!
//! A spec is plain data (serde). [`crate::resolve::resolve`] applies `extends` (inherit a
//! built-in or another file) and selected `[options]`, giving a self-contained spec that
//! [`crate::variant::Variant::compile`] turns into fast tables. The move strings are parsed by
//! [`crate::betza`].

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A piece kind as written in a spec.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PieceSpec {
    /// Code used in SFEN (one letter bare, longer codes in braces) and notation.
    pub code: String,
    /// English name, lower case (as in shared/rules/values.md).
    pub name: String,
    /// Move string (Betza atoms plus the named special atoms, see `betza`).
    pub moves: String,
    /// Code of the kind this piece moves as after promotion.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub promotes: Option<String>,
    /// The kind exists only on the back of a promoted piece (never written bare in SFEN).
    #[serde(default, skip_serializing_if = "is_false")]
    pub promoted_only: bool,
    /// Losing every royal piece loses the game.
    #[serde(default, skip_serializing_if = "is_false")]
    pub royal: bool,
    /// Counts as a lion for chu's lion-trading rules.
    #[serde(default, skip_serializing_if = "is_false")]
    pub lion: bool,
    /// A "minor" piece: not a valid bridge for lion trading, and not counted by the bare-king rule
    /// (chu: unpromoted pawn and go-between).
    #[serde(default, skip_serializing_if = "is_false")]
    pub minor: bool,
    /// Burns adjacent enemies after moving; enemies ending next to it are burned (tenjiku fire demon).
    #[serde(default, skip_serializing_if = "is_false")]
    pub burns: bool,
    /// Rank for range-jumping captures (`jump:` atoms): may jump only strictly lower ranks.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub jump_rank: u8,
    /// A piece that captures this one turns into this kind's promoted side (tai deva, dark spirit).
    #[serde(default, skip_serializing_if = "is_false")]
    pub contagious: bool,
    /// Nifu: at most one unpromoted piece of this kind per file and side (shogi pawn).
    #[serde(default, skip_serializing_if = "is_false")]
    pub nifu: bool,
    /// A drop of this piece may not give immediate mate (uchifuzume, shogi pawn).
    #[serde(default, skip_serializing_if = "is_false")]
    pub no_drop_mate: bool,
    /// Points for the impasse (jishogi) count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub impasse_points: Option<u8>,
    /// Other accepted SFEN spellings (e.g. HaChu tokens like `C!`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
}

fn is_false(b: &bool) -> bool {
    !*b
}
fn is_zero(v: &u8) -> bool {
    *v == 0
}

/// Game rules of a variant.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RulesSpec {
    /// Captured pieces go to the captor's hand and can be dropped.
    pub drops: bool,
    /// Check rule: a move may not leave the (single) royal attacked; no legal move loses.
    /// Without it the game is won by capturing every enemy royal.
    pub check: bool,
    /// Promotion rule: `start-or-end` (shogi), `enter-or-capture` (chu, tenjiku),
    /// `on-capture` (tai: compulsory on capture, no zone), `none`.
    pub promotion: String,
    /// Depth of the promotion zone in ranks.
    pub promotion_zone: u8,
    /// What happens when a promotable piece lands where it could never move again:
    /// `forced` (must promote), `optional` (may promote even where the rule would not allow it),
    /// `none` (no special treatment).
    pub stuck_promotion: String,
    /// Chu lion-trading rules (adjacent / protected lion, counter-strike).
    pub lion_trading: bool,
    /// Chu bare-king rule.
    pub bare_king: bool,
    /// Repetition rule: `perpetual-check-loses` (shogi), `attacker-loses` (lishogi chu),
    /// `forbidden` (a move may not recreate an earlier position), `draw`.
    pub repetition: String,
    /// Occurrence count that ends the game (for all but `forbidden`).
    pub repetition_count: u8,
    /// Impasse rule: `none`, `27-point` (declaration, shogi default), `24-point`.
    pub impasse: String,
    /// Emperor capture restriction: `royal-unprotected` (default) or `any-unprotected`.
    pub emperor_capture: String,
    /// The burning piece's promotion move also burns (tenjiku alternative).
    pub promotion_burns: bool,
}

impl Default for RulesSpec {
    fn default() -> Self {
        RulesSpec {
            drops: false,
            check: false,
            promotion: "none".into(),
            promotion_zone: 0,
            stuck_promotion: "none".into(),
            lion_trading: false,
            bare_king: false,
            repetition: "draw".into(),
            repetition_count: 4,
            impasse: "none".into(),
            emperor_capture: "royal-unprotected".into(),
            promotion_burns: false,
        }
    }
}

/// A named alternative rule set: choosing `value` applies `patch` to the spec.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct OptionSpec {
    /// What the option is about, and its sources.
    #[serde(default)]
    pub doc: String,
    /// The value used when the option is not set.
    pub default: String,
    /// value name -> patch applied when chosen.
    pub values: BTreeMap<String, PatchSpec>,
}

/// A partial spec: rule changes and piece replacements (matched by code).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PatchSpec {
    #[serde(default)]
    pub rules: Option<toml::Table>,
    #[serde(default)]
    pub pieces: Vec<toml::Table>,
}

/// A whole variant file.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct VariantSpec {
    pub name: String,
    #[serde(default)]
    pub aliases: Vec<String>,
    #[serde(default)]
    pub description: String,
    /// Name of a built-in variant (or a path) this spec starts from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extends: Option<String>,
    pub files: u8,
    pub ranks: u8,
    /// Start position (SFEN).
    pub start: String,
    #[serde(default)]
    pub rules: RulesSpec,
    #[serde(default, rename = "piece")]
    pub pieces: Vec<PieceSpec>,
    #[serde(default)]
    pub options: BTreeMap<String, OptionSpec>,
    /// The option values this spec was resolved with (written by `resolve`).
    #[serde(default)]
    pub selected: BTreeMap<String, String>,
}
