//! The compiled variant: `Variant::compile_tables` turns a resolved [`VariantSpec`] into
//! immutable tables used by move generation: board geometry (padded mailbox), piece types (every kind, plus a distinct type
//! for each promoted side), per-colour move tables with mailbox deltas, attack tables, zones,
//! "stuck" squares and Zobrist keys.

use crate::betza::{self, Atom, Mode};
use crate::error::{EngineError, Result};
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

/// Deterministic 64-bit generator for Zobrist keys.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

const MAX_HAND_COUNT: usize = 40;

fn token_for(code: &str) -> String {
    if code.chars().count() == 1 {
        code.to_string()
    } else {
        format!("{{{code}}}")
    }
}

impl Variant {
    /// Compile a resolved spec into tables; `source` names it in error messages. Every fault
    /// found is listed. The start position is checked by [`Variant::compile`]
    /// (`crate::load`), which needs a position and so cannot live here.
    pub(crate) fn compile_tables(source: &str, spec: VariantSpec) -> Result<Variant> {
        let mut errors: Vec<String> = Vec::new();
        let files = spec.files;
        let ranks = spec.ranks;
        if !(1..=32).contains(&files) || !(1..=32).contains(&ranks) {
            errors.push(format!("board {files}x{ranks}: files and ranks must be 1..32"));
        }
        // Parse every move string.
        let mut atoms: Vec<Vec<Atom>> = Vec::new();
        for p in &spec.pieces {
            match betza::parse(&p.moves) {
                Ok(a) => atoms.push(a),
                Err(e) => {
                    errors.push(format!("piece {} ({}): moves {:?}: {e}", p.code, p.name, p.moves));
                    atoms.push(Vec::new());
                }
            }
        }
        // Codes.
        let mut kind_of: HashMap<String, usize> = HashMap::new();
        for (i, p) in spec.pieces.iter().enumerate() {
            if p.code.is_empty()
                || !p.code.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
            {
                errors.push(format!(
                    "piece {:?} ({}): code must be upper-case letters/digits",
                    p.code, p.name
                ));
            } else if !p.code.starts_with(|c: char| c.is_ascii_uppercase()) {
                errors.push(format!("piece {:?}: code must start with a letter", p.code));
            }
            if kind_of.insert(p.code.clone(), i).is_some() {
                errors.push(format!("piece code {:?} is defined twice", p.code));
            }
        }
        for p in &spec.pieces {
            if let Some(to) = &p.promotes {
                match kind_of.get(to) {
                    None => errors.push(format!(
                        "piece {} ({}): promotes to {:?}, which is not a piece of this variant",
                        p.code, p.name, to
                    )),
                    Some(&k) if spec.pieces[k].promotes.is_some() && to != &p.code => {}
                    _ => {}
                }
            }
            if p.contagious && p.promotes.is_none() {
                errors.push(format!(
                    "piece {} ({}): contagious pieces need `promotes` (the capturer becomes its promoted side)",
                    p.code, p.name
                ));
            }
            let has_jump = atoms[kind_of.get(&p.code).copied().unwrap_or(0)]
                .iter()
                .any(|a| matches!(a, Atom::RangeJump { .. }));
            if has_jump && p.jump_rank == 0 {
                errors.push(format!(
                    "piece {} ({}): `jump:` atoms need jump_rank >= 1",
                    p.code, p.name
                ));
            }
        }
        for p in &spec.pieces {
            if p.promoted_only
                && !spec.pieces.iter().any(|q| q.promotes.as_deref() == Some(&p.code))
            {
                errors.push(format!(
                    "piece {} ({}) is promoted_only but no piece promotes to it",
                    p.code, p.name
                ));
            }
        }
        let rules = parse_rules(&spec, &mut errors);
        if spec.pieces.is_empty() {
            errors.push("no [[piece]] defined".into());
        }
        if !errors.is_empty() {
            return Err(EngineError::Spec { origin: source.into(), errors });
        }

        // Geometry.
        let mut maxleap = 2i32;
        for a in atoms.iter().flatten() {
            if let Atom::Leap { v, .. } = a {
                maxleap = maxleap.max((v.0 as i32).abs()).max((v.1 as i32).abs());
            }
        }
        let pad = maxleap as u8;
        let stride = files as i16 + 2 * pad as i16;
        let size = stride as usize * (ranks as usize + 2 * pad as usize);
        if size >= 4096 {
            return Err(EngineError::Spec {
                origin: source.into(),
                errors: vec!["board plus leap padding is too large (at most 4096 cells)".into()],
            });
        }
        let sq_at = |x: i16, y: i16| -> u16 { ((y + pad as i16) * stride + x + pad as i16) as u16 };
        let mut squares = Vec::new();
        let mut index_of = vec![u16::MAX; size];
        for y in 0..ranks as i16 {
            for x in 0..files as i16 {
                let s = sq_at(x, y);
                index_of[s as usize] = squares.len() as u16;
                squares.push(s);
            }
        }
        // Black: forward = up (y decreasing), right = x increasing (towards file 1).
        let delta = |c: Color, v: (i8, i8)| -> i16 {
            let d = v.0 as i16 - v.1 as i16 * stride;
            if c == Color::Black {
                d
            } else {
                -d
            }
        };
        let dirs8: [i16; 8] =
            [-stride, -stride + 1, 1, stride + 1, stride, stride - 1, -1, -stride - 1];
        let mut ring2 = [0i16; 16];
        let mut k = 0;
        for dy in -2i16..=2 {
            for dx in -2i16..=2 {
                if dx.abs().max(dy.abs()) == 2 {
                    ring2[k] = dy * stride + dx;
                    k += 1;
                }
            }
        }
        let dir_index = |d: i16| dirs8.iter().position(|&x| x == d);

        // Types: every kind that is not promoted_only gets a front type; each promotable kind
        // gets a promoted type.
        let mut types: Vec<PieceType> = Vec::new();
        let mut front_type: HashMap<usize, TypeId> = HashMap::new();
        let mk = |kind: usize, front: usize, promoted: bool, id: TypeId| -> PieceType {
            let p = &spec.pieces[kind];
            let f = &spec.pieces[front];
            let token =
                if promoted { format!("+{}", token_for(&f.code)) } else { token_for(&p.code) };
            PieceType {
                id,
                name: p.name.clone(),
                code: p.code.clone(),
                token,
                promoted,
                demoted: id,
                promotes_to: None,
                royal: p.royal,
                lion: p.lion,
                minor: p.minor,
                burns: p.burns,
                jump_rank: if p.royal { 255 } else { p.jump_rank },
                contagion: None,
                contagion_immune: false,
                nifu: p.nifu && !promoted,
                no_drop_mate: p.no_drop_mate && !promoted,
                impasse_points: f.impasse_points.unwrap_or(0),
                hand: None,
                gen: [Gen::default(), Gen::default()],
                stuck: [Vec::new(), Vec::new()],
                cap_range: [[0; 8]; 2],
                complex: false,
                can_pass: false,
            }
        };
        // kind index of the moving kind per type, to compile moves later.
        let mut type_kind: Vec<usize> = Vec::new();
        for (i, p) in spec.pieces.iter().enumerate() {
            if !p.promoted_only {
                let id = types.len() as TypeId;
                types.push(mk(i, i, false, id));
                type_kind.push(i);
                front_type.insert(i, id);
            }
        }
        for (i, p) in spec.pieces.iter().enumerate() {
            if p.promoted_only {
                continue;
            }
            if let Some(to) = &p.promotes {
                let k = kind_of[to];
                let id = types.len() as TypeId;
                let mut t = mk(k, i, true, id);
                t.demoted = front_type[&i];
                types.push(t);
                type_kind.push(k);
                let f = front_type[&i] as usize;
                types[f].promotes_to = Some(id);
            }
        }
        // Contagion: capturing a contagious piece (either side) yields its promoted side.
        for i in 0..types.len() {
            let front_kind = type_kind[types[i].demoted as usize];
            if spec.pieces[front_kind].contagious {
                let prom = types[types[i].demoted as usize].promotes_to;
                types[i].contagion = prom;
            }
        }
        for i in 0..types.len() {
            let pr = types[i].promotes_to.map(|p| types[p as usize].royal).unwrap_or(false);
            types[i].contagion_immune = types[i].royal || pr;
        }
        // Hands.
        let mut hand_types = Vec::new();
        if rules.drops {
            for t in types.iter_mut() {
                if !t.promoted && !t.royal {
                    t.hand = Some(hand_types.len() as u8);
                    hand_types.push(t.id);
                }
            }
        }
        let max_hand = hand_types.len();
        // Compile moves.
        let on_board =
            |s: i32| -> bool { s >= 0 && (s as usize) < size && index_of[s as usize] != u16::MAX };
        let mut any_complex = false;
        let mut any_burner = false;
        let mut leap_attacks: [Vec<(i16, Vec<bool>)>; 2] = [Vec::new(), Vec::new()];
        let ntypes = types.len();
        for t in types.iter_mut() {
            let kind = type_kind[t.id as usize];
            any_burner |= t.burns;
            for c in [Color::Black, Color::White] {
                let ci = c.idx();
                let mut g = Gen::default();
                let mut cap = [0u8; 8];
                let mut leaps_cap: Vec<i16> = Vec::new();
                let mut complex = false;
                let mut can_pass = false;
                for a in &atoms[kind] {
                    match a {
                        Atom::Leap { v, mode } => {
                            let d = delta(c, *v);
                            g.leaps.push((d, *mode));
                            if mode.can_capture() {
                                leaps_cap.push(d);
                            }
                        }
                        Atom::Ride { v, min, max, mode } => {
                            let d = delta(c, *v);
                            g.rides.push(Ride { d, min: *min, max: *max, mode: *mode });
                            if mode.can_capture() {
                                if *min > 1 {
                                    complex = true;
                                } else if v.0.abs() <= 1 && v.1.abs() <= 1 {
                                    if let Some(di) = dir_index(d) {
                                        cap[di] = cap[di].max(*max);
                                    }
                                } else {
                                    // riders of oblique leaps (e.g. NN) are not in the tables
                                    complex = true;
                                }
                            }
                        }
                        Atom::Lion => {
                            g.special.push(Special::Lion);
                            can_pass = true;
                            for &d in dirs8.iter().chain(ring2.iter()) {
                                leaps_cap.push(d);
                            }
                        }
                        Atom::LionLine { v, len } => {
                            let d = delta(c, *v);
                            g.special.push(Special::LionLine { d, len: *len });
                            can_pass = true;
                            for k in 1..=*len as i16 {
                                leaps_cap.push(d * k);
                            }
                        }
                        Atom::DblCap { v, second } => {
                            let d = delta(c, *v);
                            let sec = second.iter().map(|s| delta(c, *s)).collect();
                            g.special.push(Special::DblCap { d, second: sec });
                            complex = true;
                        }
                        Atom::Area { steps } => {
                            g.special.push(Special::Area { steps: *steps });
                            can_pass = true;
                            complex = true;
                        }
                        Atom::RangeJump { v } => {
                            g.special.push(Special::RangeJump { d: delta(c, *v) });
                            complex = true;
                        }
                        Atom::Hook { v } => {
                            let d = delta(c, *v);
                            // perpendicular directions in the owner's frame
                            let p1 = delta(c, (v.1, -v.0));
                            let p2 = delta(c, (-v.1, v.0));
                            g.special.push(Special::Hook { d, turns: [p1, p2] });
                            complex = true;
                        }
                        Atom::Igui { v } => {
                            let d = delta(c, *v);
                            g.special.push(Special::Igui { d });
                            leaps_cap.push(d);
                        }
                        Atom::Emperor => {
                            g.special.push(Special::Emperor);
                            complex = true;
                        }
                    }
                }
                // Leaps of distance one are ordinary steps in the attack tables.
                let mut far: Vec<i16> = Vec::new();
                for d in leaps_cap {
                    if let Some(di) = dir_index(d) {
                        cap[di] = cap[di].max(1);
                    } else if !far.contains(&d) {
                        far.push(d);
                    }
                }
                for d in far {
                    let entry = match leap_attacks[ci].iter_mut().find(|(x, _)| *x == d) {
                        Some(e) => e,
                        None => {
                            leap_attacks[ci].push((d, vec![false; ntypes]));
                            leap_attacks[ci].last_mut().expect("just pushed")
                        }
                    };
                    entry.1[t.id as usize] = true;
                }
                // Stuck squares: no move at all from there on an empty board.
                let mut stuck = vec![false; size];
                for &s in &squares {
                    let s32 = s as i32;
                    let mut moves = !g.special.is_empty();
                    moves |= g.leaps.iter().any(|(d, _)| on_board(s32 + *d as i32));
                    moves |= g.rides.iter().any(|r| on_board(s32 + r.d as i32 * r.min as i32));
                    stuck[s as usize] = !moves;
                }
                t.gen[ci] = g;
                t.cap_range[ci] = cap;
                t.stuck[ci] = stuck;
                t.complex |= complex;
                t.can_pass |= can_pass;
            }
            any_complex |= t.complex;
        }
        // Zones.
        let mut zone = [vec![false; size], vec![false; size]];
        let zd = rules.zone_depth as i16;
        for y in 0..ranks as i16 {
            for x in 0..files as i16 {
                let s = sq_at(x, y) as usize;
                zone[0][s] = y < zd;
                zone[1][s] = y >= ranks as i16 - zd;
            }
        }
        // Tokens.
        let mut tokens = HashMap::new();
        for t in types.iter().filter(|t| !t.promoted) {
            tokens.insert(t.code.clone(), t.id);
        }
        let mut alias_errors = Vec::new();
        for (i, p) in spec.pieces.iter().enumerate() {
            for a in &p.aliases {
                if let Some(&id) = front_type.get(&i) {
                    if tokens.insert(a.to_ascii_uppercase(), id).is_some() {
                        alias_errors
                            .push(format!("alias {a:?} of {} clashes with another code", p.code));
                    }
                }
            }
        }
        if !alias_errors.is_empty() {
            return Err(EngineError::Spec { origin: source.into(), errors: alias_errors });
        }
        // Zobrist.
        let mut st = 0x5348_4f47_494c_4142u64;
        let zob_piece = (0..2 * ntypes * size).map(|_| splitmix(&mut st)).collect();
        let zob_hand =
            (0..2 * max_hand.max(1) * (MAX_HAND_COUNT + 1)).map(|_| splitmix(&mut st)).collect();
        let zob_side = splitmix(&mut st);
        let zob_lion = (0..size).map(|_| splitmix(&mut st)).collect();
        Ok(Variant {
            name: spec.name.clone(),
            files,
            ranks,
            pad,
            stride,
            size,
            rules,
            types,
            tokens,
            hand_types,
            squares,
            index_of,
            dirs8,
            ring2,
            leap_attacks,
            any_complex,
            any_burner,
            zone,
            zob_piece,
            zob_hand,
            zob_side,
            zob_lion,
            max_hand,
            spec,
        })
    }

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

fn parse_rules(spec: &VariantSpec, errors: &mut Vec<String>) -> Rules {
    let r = &spec.rules;
    let promotion = match r.promotion.as_str() {
        "start-or-end" => PromotionRule::StartOrEnd,
        "enter-or-capture" => PromotionRule::EnterOrCapture,
        "on-capture" => PromotionRule::OnCapture,
        "none" => PromotionRule::None,
        o => {
            errors.push(format!(
                "rules.promotion = {o:?}: expected start-or-end, enter-or-capture, on-capture or none"
            ));
            PromotionRule::None
        }
    };
    let stuck = match r.stuck_promotion.as_str() {
        "forced" => StuckRule::Forced,
        "optional" => StuckRule::Optional,
        "none" => StuckRule::None,
        o => {
            errors
                .push(format!("rules.stuck_promotion = {o:?}: expected forced, optional or none"));
            StuckRule::None
        }
    };
    let repetition = match r.repetition.as_str() {
        "perpetual-check-loses" => RepetitionRule::PerpetualCheckLoses,
        "attacker-loses" => RepetitionRule::AttackerLoses,
        "forbidden" => RepetitionRule::Forbidden,
        "draw" => RepetitionRule::Draw,
        o => {
            errors.push(format!(
                "rules.repetition = {o:?}: expected perpetual-check-loses, attacker-loses, forbidden or draw"
            ));
            RepetitionRule::Draw
        }
    };
    let impasse = match r.impasse.as_str() {
        "none" => ImpasseRule::None,
        "27-point" => ImpasseRule::Declaration27,
        "24-point" => ImpasseRule::Points24,
        o => {
            errors.push(format!("rules.impasse = {o:?}: expected none, 27-point or 24-point"));
            ImpasseRule::None
        }
    };
    let emperor_any_protected = match r.emperor_capture.as_str() {
        "royal-unprotected" => false,
        "any-unprotected" => true,
        o => {
            errors.push(format!(
                "rules.emperor_capture = {o:?}: expected royal-unprotected or any-unprotected"
            ));
            false
        }
    };
    let minside = spec.ranks.min(spec.files);
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
    let _ = minside;
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
