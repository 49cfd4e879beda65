//! The compiled variant: [`Variant`] holds the immutable tables used by move generation,
//! compiled from a resolved [`VariantSpec`] by the `compile` submodule: board geometry
//! (padded mailbox), piece types (every kind, plus a distinct type for each promoted side),
//! per-colour move tables with mailbox deltas, attack tables, zones, "stuck" squares and
//! Zobrist keys. The rules are parsed here (`parse_rules`).

mod compile;

use crate::betza::Mode;
use crate::spec::VariantSpec;
use std::collections::HashMap;

pub use crate::cell::{
    cell_color, cell_type, piece_cell, Cell, Color, TypeId, EMPTY, TYPE_MASK, WALL,
};

/// A ride (step when `max == 1`): mailbox delta, squares closer than `min` are jumped.
#[derive(Debug, Clone, Copy)]
pub struct Ride {
    pub d: i16,
    pub min: u8,
    pub max: u8,
    pub mode: Mode,
}

/// Special move mechanisms, compiled to mailbox deltas.
#[derive(Debug, Clone)]
pub enum Special {
    Lion,
    LionLine { d: i16, len: u8 },
    DblCap { d: i16, second: Vec<i16> },
    Area { steps: u8 },
    RangeJump { d: i16 },
    Hook { d: i16, turns: [i16; 2] },
    Igui { d: i16 },
    Emperor,
}

/// Compiled moves of one piece type for one colour.
#[derive(Debug, Clone, Default)]
pub struct Gen {
    pub leaps: Vec<(i16, Mode)>,
    pub rides: Vec<Ride>,
    pub special: Vec<Special>,
}

/// A piece type: a kind on its front side, or the promoted side of a kind.
#[derive(Debug, Clone)]
pub struct PieceType {
    pub id: TypeId,
    /// English name of the kind it moves as (e.g. "dragon king" for a promoted rook).
    pub name: String,
    /// Code of the kind it moves as.
    pub code: String,
    /// SFEN token for Black (upper case), e.g. `N`, `+O`, `{LGN}`, `+{DV}`.
    pub token: String,
    pub promoted: bool,
    /// The unpromoted type of the same physical piece (itself when unpromoted).
    pub demoted: TypeId,
    pub promotes_to: Option<TypeId>,
    pub royal: bool,
    pub lion: bool,
    pub minor: bool,
    pub burns: bool,
    /// 255 for royals (never jumped).
    pub jump_rank: u8,
    /// Capturing this piece turns the capturer into this type.
    pub contagion: Option<TypeId>,
    /// Royal or potentially royal: immune to contagion.
    pub contagion_immune: bool,
    pub nifu: bool,
    pub no_drop_mate: bool,
    pub impasse_points: u8,
    /// Index in the hand arrays, for types that can be held in hand.
    pub hand: Option<u8>,
    pub gen: [Gen; 2],
    /// Per colour and padded square: the piece could never move from there.
    pub stuck: [Vec<bool>; 2],
    /// Per colour and absolute direction: how far the piece captures along it with a
    /// clear path (0 = not at all, 255 = unlimited).
    pub cap_range: [[u8; 8]; 2],
    /// Has captures the simple attack tables do not describe (hook, area, range jump, ...).
    pub complex: bool,
    /// Can pass (lion power, area move).
    pub can_pass: bool,
}

impl PieceType {
    /// Whether it may capture anywhere on the board (tai's Emperor, [`Special::Emperor`]).
    #[inline]
    pub fn captures_anywhere(&self) -> bool {
        self.gen[0].special.iter().any(|s| matches!(s, Special::Emperor))
    }
}

/// Promotion rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromotionRule {
    StartOrEnd,
    EnterOrCapture,
    OnCapture,
    None,
}

/// Treatment of moves that would leave a piece unable to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StuckRule {
    Forced,
    Optional,
    None,
}

/// Repetition rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RepetitionRule {
    PerpetualCheckLoses,
    AttackerLoses,
    Forbidden,
    Draw,
}

/// Impasse rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImpasseRule {
    None,
    Declaration27,
    Points24,
}

/// Compiled game rules.
#[derive(Debug, Clone)]
pub struct Rules {
    pub drops: bool,
    pub check: bool,
    pub promotion: PromotionRule,
    pub zone_depth: u8,
    pub stuck: StuckRule,
    pub lion_trading: bool,
    pub bare_king: bool,
    pub repetition: RepetitionRule,
    pub repetition_count: u8,
    pub impasse: ImpasseRule,
    /// Emperor may capture no protected piece at all (tai alternative D1b).
    pub emperor_any_protected: bool,
    pub promotion_burns: bool,
}

/// The eight king directions in board terms, clockwise from "up" (towards rank a).
pub const DIR_NAMES: [&str; 8] = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"];

/// A compiled variant.
#[derive(Debug)]
pub struct Variant {
    pub name: String,
    pub spec: VariantSpec,
    pub files: u8,
    pub ranks: u8,
    pub pad: u8,
    pub stride: i16,
    /// Length of the padded board array.
    pub size: usize,
    pub rules: Rules,
    pub types: Vec<PieceType>,
    /// Upper-case token (without `+`) -> unpromoted type; promoted tokens map via `promoted`.
    tokens: HashMap<String, TypeId>,
    /// Types that can be held in hand, in SFEN order.
    pub hand_types: Vec<TypeId>,
    /// Padded squares of the real board, in index order (rank a first, file high to low).
    pub squares: Vec<u16>,
    /// Padded square -> real index (u16::MAX off board).
    pub index_of: Vec<u16>,
    /// Board deltas of the eight king directions (see [`DIR_NAMES`]).
    pub dirs8: [i16; 8],
    /// Board deltas of the 16 squares at king distance 2.
    pub ring2: [i16; 16],
    /// Per attacking colour: (delta from attacker to target, types that leap it).
    pub leap_attacks: [Vec<(i16, Vec<bool>)>; 2],
    pub any_complex: bool,
    pub any_burner: bool,
    /// Per colour, per padded square: in that colour's promotion zone.
    pub zone: [Vec<bool>; 2],
    zob_piece: Vec<u64>,
    zob_hand: Vec<u64>,
    pub zob_side: u64,
    zob_lion: Vec<u64>,
    pub max_hand: usize,
}

/// Most pieces of one type a hand can hold (the Zobrist hand keys cover 0..=this).
const MAX_HAND_COUNT: usize = 40;

impl Variant {
    /// Zobrist key of a piece on a square.
    #[inline]
    pub fn zob_piece(&self, cell: Cell, sq: u16) -> u64 {
        let c = cell_color(cell).idx();
        let t = cell_type(cell) as usize;
        self.zob_piece[(c * self.types.len() + t) * self.size + sq as usize]
    }
    /// Zobrist key of holding `n` pieces of hand index `h`.
    #[inline]
    pub fn zob_hand(&self, c: Color, h: usize, n: u8) -> u64 {
        let n = (n as usize).min(MAX_HAND_COUNT);
        self.zob_hand[(c.idx() * self.max_hand.max(1) + h) * (MAX_HAND_COUNT + 1) + n]
    }
    /// Zobrist key of the counter-strike square.
    #[inline]
    pub fn zob_lion(&self, sq: u16) -> u64 {
        self.zob_lion[sq as usize]
    }

    /// Look up an SFEN token (without `+`, case-insensitive) -> unpromoted type.
    pub fn token_type(&self, code: &str) -> Option<TypeId> {
        self.tokens.get(&code.to_ascii_uppercase()).copied()
    }

    /// Number of real squares.
    pub fn num_squares(&self) -> usize {
        self.squares.len()
    }

    /// (x, y) of a padded square: x from the left edge (Black's view), y from rank a.
    #[inline]
    pub fn xy(&self, sq: u16) -> (i16, i16) {
        let s = sq as i16;
        (s % self.stride - self.pad as i16, s / self.stride - self.pad as i16)
    }
    /// Padded square of (x, y).
    #[inline]
    pub fn sq(&self, x: i16, y: i16) -> u16 {
        ((y + self.pad as i16) * self.stride + x + self.pad as i16) as u16
    }
    /// Is a padded square on the board?
    #[inline]
    pub fn on_board(&self, sq: i32) -> bool {
        sq >= 0 && (sq as usize) < self.size && self.index_of[sq as usize] != u16::MAX
    }
    /// Square name in USI style: file number then rank letter (`7g`, `12l`).
    pub fn square_name(&self, sq: u16) -> String {
        let (x, y) = self.xy(sq);
        format!("{}{}", self.files as i16 - x, (b'a' + y as u8) as char)
    }
    /// Parse a square name.
    pub fn parse_square(&self, s: &str) -> Option<u16> {
        let digits: String = s.chars().take_while(|c| c.is_ascii_digit()).collect();
        let rest = &s[digits.len()..];
        let file: i16 = digits.parse().ok()?;
        let mut rc = rest.chars();
        let r = rc.next()?;
        if rc.next().is_some() || !r.is_ascii_lowercase() {
            return None;
        }
        let y = (r as u8 - b'a') as i16;
        if file < 1 || file > self.files as i16 || y >= self.ranks as i16 {
            return None;
        }
        Some(self.sq(self.files as i16 - file, y))
    }
    /// Type by kind code and promotion state.
    pub fn type_by_token(&self, token: &str) -> Option<TypeId> {
        self.types.iter().find(|t| t.token.eq_ignore_ascii_case(token)).map(|t| t.id)
    }
    /// Absolute direction index (0..8) of a unit delta.
    pub fn dir_index(&self, d: i16) -> Option<usize> {
        self.dirs8.iter().position(|&x| x == d)
    }
    /// (dx, dy) of a board delta of king-step size or any small offset.
    pub fn xy_delta(&self, d: i16) -> (i16, i16) {
        let st = self.stride;
        let mut dy = d / st;
        let mut dx = d - dy * st;
        if dx > st / 2 {
            dx -= st;
            dy += 1;
        } else if dx < -st / 2 {
            dx += st;
            dy -= 1;
        }
        (dx, dy)
    }
    /// If `d` is `k` steps along one of the eight king directions: (direction index, k).
    pub fn dir_index_of_delta(&self, d: i16) -> Option<(usize, u8)> {
        let (dx, dy) = self.xy_delta(d);
        if (dx == 0 && dy == 0) || !(dx == 0 || dy == 0 || dx.abs() == dy.abs()) {
            return None;
        }
        let k = dx.abs().max(dy.abs());
        let unit = (dx / k) + (dy / k) * self.stride;
        self.dir_index(unit).map(|i| (i, k as u8))
    }
    /// Serialise the resolved spec as TOML (for saving next to run outputs).
    pub fn spec_toml(&self) -> String {
        toml::to_string(&self.spec).unwrap_or_default()
    }
}

/// The game rules of `spec`; each unknown or out-of-range setting is added to `errors`.
fn parse_rules(spec: &VariantSpec, errors: &mut Vec<String>) -> Rules {
    use PromotionRule as P;
    let r = &spec.rules;
    let promotion = choice(
        ("promotion", &r.promotion),
        &[
            ("start-or-end", P::StartOrEnd),
            ("enter-or-capture", P::EnterOrCapture),
            ("on-capture", P::OnCapture),
            ("none", P::None),
        ],
        errors,
    );
    let stuck = choice(
        ("stuck_promotion", &r.stuck_promotion),
        &[
            ("forced", StuckRule::Forced),
            ("optional", StuckRule::Optional),
            ("none", StuckRule::None),
        ],
        errors,
    );
    let repetition = choice(
        ("repetition", &r.repetition),
        &[
            ("perpetual-check-loses", RepetitionRule::PerpetualCheckLoses),
            ("attacker-loses", RepetitionRule::AttackerLoses),
            ("forbidden", RepetitionRule::Forbidden),
            ("draw", RepetitionRule::Draw),
        ],
        errors,
    );
    let impasse = choice(
        ("impasse", &r.impasse),
        &[
            ("none", ImpasseRule::None),
            ("27-point", ImpasseRule::Declaration27),
            ("24-point", ImpasseRule::Points24),
        ],
        errors,
    );
    let emperor_any_protected = choice(
        ("emperor_capture", &r.emperor_capture),
        &[("royal-unprotected", false), ("any-unprotected", true)],
        errors,
    );
    check_rule_numbers(spec, promotion, errors);
    Rules {
        drops: r.drops,
        check: r.check,
        promotion,
        zone_depth: r.promotion_zone,
        stuck,
        lion_trading: r.lion_trading,
        bare_king: r.bare_king,
        repetition,
        repetition_count: r.repetition_count,
        impasse,
        emperor_any_protected,
        promotion_burns: r.promotion_burns,
    }
}

/// The numeric and cross-field checks of `rules` (zone depth, repetition count, the royal
/// that the check rule needs, the lion that lion trading needs).
fn check_rule_numbers(spec: &VariantSpec, promotion: PromotionRule, errors: &mut Vec<String>) {
    let r = &spec.rules;
    if promotion != PromotionRule::None
        && promotion != PromotionRule::OnCapture
        && (r.promotion_zone == 0 || r.promotion_zone > spec.ranks / 2)
    {
        errors.push(format!(
            "rules.promotion_zone = {}: must be 1..{} for this board",
            r.promotion_zone,
            spec.ranks / 2
        ));
    }
    if r.repetition_count < 2 || r.repetition_count > 10 {
        errors.push(format!("rules.repetition_count = {}: must be 2..10", r.repetition_count));
    }
    if r.check && spec.pieces.iter().filter(|p| p.royal).count() != 1 {
        errors.push("rules.check needs exactly one royal piece kind".into());
    }
    if r.lion_trading && !spec.pieces.iter().any(|p| p.lion) {
        errors.push("rules.lion_trading is on but no piece has lion = true".into());
    }
}

/// The option of `rules.<field>` named `value`; an unknown name adds an error listing the
/// options and gives the first (unused: a spec with errors does not load).
fn choice<T: Copy>(
    (field, value): (&str, &str),
    options: &[(&str, T)],
    errors: &mut Vec<String>,
) -> T {
    if let Some(&(_, v)) = options.iter().find(|(name, _)| *name == value) {
        return v;
    }
    let names: Vec<&str> = options.iter().map(|(name, _)| *name).collect();
    let expected = match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => names.join(""),
    };
    errors.push(format!("rules.{field} = {value:?}: expected {expected}"));
    options[0].1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shogi's spec with lines of its rules replaced.
    fn shogi_with(edits: &[(&str, &str)]) -> crate::Result<std::sync::Arc<Variant>> {
        let mut text = crate::resolve::builtin_text("shogi").unwrap().to_string();
        for (from, to) in edits {
            assert!(text.contains(from), "{from}");
            text = text.replacen(from, to, 1);
        }
        Variant::compile("test", crate::resolve::resolve("test", &text, &[])?)
    }

    #[test]
    fn unknown_rule_names_list_every_option_in_one_error() {
        let err = shogi_with(&[
            ("impasse = \"27-point\"", "impasse = \"36-point\""),
            ("stuck_promotion = \"forced\"", "stuck_promotion = \"x\""),
        ])
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("rules.impasse = \"36-point\": expected none, 27-point or 24-point"),
            "{err}"
        );
        assert!(
            err.contains("rules.stuck_promotion = \"x\": expected forced, optional or none"),
            "{err}"
        );
        let v = shogi_with(&[("impasse = \"27-point\"", "impasse = \"24-point\"")]).unwrap();
        assert_eq!(v.rules.impasse, ImpasseRule::Points24);
    }
}
