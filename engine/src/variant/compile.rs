//! Compiling a resolved [`VariantSpec`] into a [`Variant`]'s tables: the spec's checks, the
//! padded-mailbox geometry, the piece types (front and promoted sides, contagion, hands), the
//! per-colour move and attack tables, zones, tokens and Zobrist keys.

use super::{parse_rules, Gen, PieceType, Ride, Special, Variant, MAX_HAND_COUNT};
use crate::betza::{self, Atom};
use crate::cell::{Color, TypeId};
use crate::error::{EngineError, Result};
use crate::spec::VariantSpec;
use std::collections::HashMap;

/// Board geometry of the padded mailbox: padding, stride and the real squares.
struct Geometry {
    pad: u8,
    stride: i16,
    size: usize,
    squares: Vec<u16>,
    index_of: Vec<u16>,
    dirs8: [i16; 8],
    ring2: [i16; 16],
}

impl Geometry {
    /// Lays out a `files` x `ranks` board padded by the longest leap of `atoms`; `None` when
    /// the padded board would exceed 4096 cells.
    fn new(files: u8, ranks: u8, atoms: &[Vec<Atom>]) -> Option<Geometry> {
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
            return None;
        }
        let mut geo = Geometry {
            pad,
            stride,
            size,
            squares: Vec::new(),
            index_of: vec![u16::MAX; size],
            dirs8: [-stride, -stride + 1, 1, stride + 1, stride, stride - 1, -1, -stride - 1],
            ring2: [0; 16],
        };
        for y in 0..ranks as i16 {
            for x in 0..files as i16 {
                let s = geo.sq_at(x, y);
                geo.index_of[s as usize] = geo.squares.len() as u16;
                geo.squares.push(s);
            }
        }
        let mut k = 0;
        for dy in -2i16..=2 {
            for dx in -2i16..=2 {
                if dx.abs().max(dy.abs()) == 2 {
                    geo.ring2[k] = dy * stride + dx;
                    k += 1;
                }
            }
        }
        Some(geo)
    }

    /// Padded square of board coordinates (file index `x`, rank index `y`, both from 0).
    fn sq_at(&self, x: i16, y: i16) -> u16 {
        ((y + self.pad as i16) * self.stride + x + self.pad as i16) as u16
    }

    /// Mailbox delta of a Betza vector for colour `c`. Black: forward = up (y decreasing),
    /// right = x increasing (towards file 1); White mirrors it.
    fn delta(&self, c: Color, v: (i8, i8)) -> i16 {
        let d = v.0 as i16 - v.1 as i16 * self.stride;
        if c == Color::Black {
            d
        } else {
            -d
        }
    }

    /// Index of `d` among the eight king directions.
    fn dir_index(&self, d: i16) -> Option<usize> {
        self.dirs8.iter().position(|&x| x == d)
    }

    /// Whether padded index `s` is a real square.
    fn on_board(&self, s: i32) -> bool {
        s >= 0 && (s as usize) < self.size && self.index_of[s as usize] != u16::MAX
    }
}

/// Deterministic 64-bit generator for Zobrist keys.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// SFEN token of a piece code: the letter itself, or `{CODE}` for longer codes.
fn token_for(code: &str) -> String {
    if code.chars().count() == 1 {
        code.to_string()
    } else {
        format!("{{{code}}}")
    }
}

/// Parses every piece's move string; a piece whose string fails gets no atoms and an error.
fn parse_atoms(spec: &VariantSpec, errors: &mut Vec<String>) -> Vec<Vec<Atom>> {
    let mut atoms = Vec::new();
    for p in &spec.pieces {
        match betza::parse(&p.moves) {
            Ok(a) => atoms.push(a),
            Err(e) => {
                errors.push(format!("piece {} ({}): moves {:?}: {e}", p.code, p.name, p.moves));
                atoms.push(Vec::new());
            }
        }
    }
    atoms
}

/// Checks the piece codes (form and uniqueness) and maps each code to its kind index.
fn check_codes(spec: &VariantSpec, errors: &mut Vec<String>) -> HashMap<String, usize> {
    let mut kind_of = HashMap::new();
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
    kind_of
}

/// Checks what pieces say about each other: promotion targets exist, contagious pieces
/// promote, range jumpers have a jump rank, promoted-only kinds are promoted to.
fn check_piece_links(
    spec: &VariantSpec,
    atoms: &[Vec<Atom>],
    kind_of: &HashMap<String, usize>,
    errors: &mut Vec<String>,
) {
    for p in &spec.pieces {
        if let Some(to) = &p.promotes {
            if !kind_of.contains_key(to) {
                errors.push(format!(
                    "piece {} ({}): promotes to {:?}, which is not a piece of this variant",
                    p.code, p.name, to
                ));
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
            errors
                .push(format!("piece {} ({}): `jump:` atoms need jump_rank >= 1", p.code, p.name));
        }
    }
    for p in &spec.pieces {
        if p.promoted_only && !spec.pieces.iter().any(|q| q.promotes.as_deref() == Some(&p.code)) {
            errors.push(format!(
                "piece {} ({}) is promoted_only but no piece promotes to it",
                p.code, p.name
            ));
        }
    }
}

/// A new piece type `id` moving as kind `kind`, on its promoted side of kind `front` when
/// `promoted`; links, hands and move tables are filled in later.
fn new_type(
    spec: &VariantSpec,
    kind: usize,
    front: usize,
    promoted: bool,
    id: TypeId,
) -> PieceType {
    let p = &spec.pieces[kind];
    let f = &spec.pieces[front];
    let token = if promoted { format!("+{}", token_for(&f.code)) } else { token_for(&p.code) };
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
}

/// The piece types with, per type, the kind it moves as, and the front type of each kind.
struct Types {
    types: Vec<PieceType>,
    type_kind: Vec<usize>,
    front_type: HashMap<usize, TypeId>,
}

/// Every kind that is not promoted_only gets a front type; each promotable kind then gets a
/// promoted type, linked both ways; contagion and its immunity are set last.
fn build_types(spec: &VariantSpec, kind_of: &HashMap<String, usize>) -> Types {
    let mut ts = Types { types: Vec::new(), type_kind: Vec::new(), front_type: HashMap::new() };
    for (i, p) in spec.pieces.iter().enumerate() {
        if !p.promoted_only {
            let id = ts.types.len() as TypeId;
            ts.types.push(new_type(spec, i, i, false, id));
            ts.type_kind.push(i);
            ts.front_type.insert(i, id);
        }
    }
    for (i, p) in spec.pieces.iter().enumerate() {
        if p.promoted_only {
            continue;
        }
        let Some(to) = &p.promotes else { continue };
        let k = kind_of[to];
        let id = ts.types.len() as TypeId;
        let front = ts.front_type[&i];
        let mut t = new_type(spec, k, i, true, id);
        t.demoted = front;
        ts.types.push(t);
        ts.type_kind.push(k);
        ts.types[front as usize].promotes_to = Some(id);
    }
    link_contagion(spec, &mut ts);
    ts
}

/// Capturing a contagious piece (either side) yields its promoted side; royals and pieces
/// that promote to a royal are immune.
fn link_contagion(spec: &VariantSpec, ts: &mut Types) {
    let types = &mut ts.types;
    for i in 0..types.len() {
        let front_kind = ts.type_kind[types[i].demoted as usize];
        if spec.pieces[front_kind].contagious {
            types[i].contagion = types[types[i].demoted as usize].promotes_to;
        }
    }
    for i in 0..types.len() {
        let pr = types[i].promotes_to.map(|p| types[p as usize].royal).unwrap_or(false);
        types[i].contagion_immune = types[i].royal || pr;
    }
}

/// With drops, every unpromoted non-royal type gets a hand index; returns them in order.
fn assign_hands(types: &mut [PieceType], drops: bool) -> Vec<TypeId> {
    let mut hand_types = Vec::new();
    if drops {
        for t in types.iter_mut() {
            if !t.promoted && !t.royal {
                t.hand = Some(hand_types.len() as u8);
                hand_types.push(t.id);
            }
        }
    }
    hand_types
}

/// One piece type's moves for one colour, as compiled from its atoms.
#[derive(Default)]
struct ColourMoves {
    gen: Gen,
    /// Capture range per king direction for the simple attack tables.
    cap: [u8; 8],
    /// Deltas the piece captures by leaping (or lion power) to.
    leaps_cap: Vec<i16>,
    complex: bool,
    can_pass: bool,
}

/// Compiles `atoms` for colour `c` into move tables and attack information.
fn compile_atoms(geo: &Geometry, c: Color, atoms: &[Atom]) -> ColourMoves {
    let mut cm = ColourMoves::default();
    for a in atoms {
        match a {
            Atom::Leap { v, mode } => {
                let d = geo.delta(c, *v);
                cm.gen.leaps.push((d, *mode));
                if mode.can_capture() {
                    cm.leaps_cap.push(d);
                }
            }
            Atom::Ride { v, min, max, mode } => {
                let d = geo.delta(c, *v);
                cm.gen.rides.push(Ride { d, min: *min, max: *max, mode: *mode });
                let step = v.0.abs() <= 1 && v.1.abs() <= 1;
                if mode.can_capture() && (*min > 1 || !step) {
                    // jumping riders and riders of oblique leaps (e.g. NN) are not in the
                    // attack tables
                    cm.complex = true;
                } else if mode.can_capture() {
                    if let Some(di) = geo.dir_index(d) {
                        cm.cap[di] = cm.cap[di].max(*max);
                    }
                }
            }
            _ => compile_special(geo, c, a, &mut cm),
        }
    }
    cm
}

/// Compiles one special atom (lion powers, double captures, area, jumps, hooks, igui,
/// emperor) into `cm`.
fn compile_special(geo: &Geometry, c: Color, a: &Atom, cm: &mut ColourMoves) {
    let special = match a {
        Atom::Leap { .. } | Atom::Ride { .. } => return,
        Atom::Lion => {
            cm.can_pass = true;
            cm.leaps_cap.extend(geo.dirs8.iter().chain(geo.ring2.iter()));
            Special::Lion
        }
        Atom::LionLine { v, len } => {
            let d = geo.delta(c, *v);
            cm.can_pass = true;
            cm.leaps_cap.extend((1..=*len as i16).map(|k| d * k));
            Special::LionLine { d, len: *len }
        }
        Atom::DblCap { v, second } => {
            cm.complex = true;
            let second = second.iter().map(|s| geo.delta(c, *s)).collect();
            Special::DblCap { d: geo.delta(c, *v), second }
        }
        Atom::Area { steps } => {
            cm.can_pass = true;
            cm.complex = true;
            Special::Area { steps: *steps }
        }
        Atom::RangeJump { v } => {
            cm.complex = true;
            Special::RangeJump { d: geo.delta(c, *v) }
        }
        Atom::Hook { v } => {
            cm.complex = true;
            // perpendicular directions in the owner's frame
            let turns = [geo.delta(c, (v.1, -v.0)), geo.delta(c, (-v.1, v.0))];
            Special::Hook { d: geo.delta(c, *v), turns }
        }
        Atom::Igui { v } => {
            let d = geo.delta(c, *v);
            cm.leaps_cap.push(d);
            Special::Igui { d }
        }
        Atom::Emperor => {
            cm.complex = true;
            Special::Emperor
        }
    };
    cm.gen.special.push(special);
}

/// Records the leap captures of type `id`: distance-one leaps are ordinary steps in `cap`,
/// longer ones go into `leap_attacks` (one row per delta, `ntypes` flags each).
fn record_leap_attacks(
    geo: &Geometry,
    cm: &mut ColourMoves,
    id: TypeId,
    ntypes: usize,
    leap_attacks: &mut Vec<(i16, Vec<bool>)>,
) {
    let mut far: Vec<i16> = Vec::new();
    for &d in &cm.leaps_cap {
        if let Some(di) = geo.dir_index(d) {
            cm.cap[di] = cm.cap[di].max(1);
        } else if !far.contains(&d) {
            far.push(d);
        }
    }
    for d in far {
        let entry = match leap_attacks.iter_mut().position(|(x, _)| *x == d) {
            Some(i) => &mut leap_attacks[i],
            None => {
                leap_attacks.push((d, vec![false; ntypes]));
                leap_attacks.last_mut().expect("just pushed")
            }
        };
        entry.1[id as usize] = true;
    }
}

/// Per padded square: a piece with these moves has no move at all from there on an empty
/// board.
fn stuck_squares(geo: &Geometry, g: &Gen) -> Vec<bool> {
    let mut stuck = vec![false; geo.size];
    for &s in &geo.squares {
        let s32 = s as i32;
        let mut moves = !g.special.is_empty();
        moves |= g.leaps.iter().any(|(d, _)| geo.on_board(s32 + *d as i32));
        moves |= g.rides.iter().any(|r| geo.on_board(s32 + r.d as i32 * r.min as i32));
        stuck[s as usize] = !moves;
    }
    stuck
}

/// Fills every type's move tables for both colours and returns the per-colour leap-attack
/// table.
fn compile_moves(
    geo: &Geometry,
    atoms: &[Vec<Atom>],
    ts: &mut Types,
) -> [Vec<(i16, Vec<bool>)>; 2] {
    let mut leap_attacks: [Vec<(i16, Vec<bool>)>; 2] = [Vec::new(), Vec::new()];
    let ntypes = ts.types.len();
    for t in ts.types.iter_mut() {
        let kind = ts.type_kind[t.id as usize];
        for c in [Color::Black, Color::White] {
            let ci = c.idx();
            let mut cm = compile_atoms(geo, c, &atoms[kind]);
            record_leap_attacks(geo, &mut cm, t.id, ntypes, &mut leap_attacks[ci]);
            t.stuck[ci] = stuck_squares(geo, &cm.gen);
            t.gen[ci] = cm.gen;
            t.cap_range[ci] = cm.cap;
            t.complex |= cm.complex;
            t.can_pass |= cm.can_pass;
        }
    }
    leap_attacks
}

/// Per colour, per padded square: in that colour's promotion zone of depth `zd`.
fn zones(geo: &Geometry, files: u8, ranks: u8, zd: u8) -> [Vec<bool>; 2] {
    let mut zone = [vec![false; geo.size], vec![false; geo.size]];
    let zd = zd as i16;
    for y in 0..ranks as i16 {
        for x in 0..files as i16 {
            let s = geo.sq_at(x, y) as usize;
            zone[0][s] = y < zd;
            zone[1][s] = y >= ranks as i16 - zd;
        }
    }
    zone
}

/// Upper-case token -> unpromoted type: every code and every alias; an alias that clashes
/// with another code is an error.
fn tokens(
    spec: &VariantSpec,
    ts: &Types,
) -> std::result::Result<HashMap<String, TypeId>, Vec<String>> {
    let mut tokens = HashMap::new();
    for t in ts.types.iter().filter(|t| !t.promoted) {
        tokens.insert(t.code.clone(), t.id);
    }
    let mut errors = Vec::new();
    for (i, p) in spec.pieces.iter().enumerate() {
        let Some(&id) = ts.front_type.get(&i) else { continue };
        for a in &p.aliases {
            if tokens.insert(a.to_ascii_uppercase(), id).is_some() {
                errors.push(format!("alias {a:?} of {} clashes with another code", p.code));
            }
        }
    }
    if errors.is_empty() {
        Ok(tokens)
    } else {
        Err(errors)
    }
}

/// Zobrist keys, drawn in a fixed order from a fixed seed.
struct Zobrist {
    piece: Vec<u64>,
    hand: Vec<u64>,
    side: u64,
    lion: Vec<u64>,
}

impl Zobrist {
    /// Keys for `ntypes` types on `size` cells and `max_hand` hand types.
    fn new(ntypes: usize, size: usize, max_hand: usize) -> Zobrist {
        let mut st = 0x5348_4f47_494c_4142u64;
        let piece = (0..2 * ntypes * size).map(|_| splitmix(&mut st)).collect();
        let hand =
            (0..2 * max_hand.max(1) * (MAX_HAND_COUNT + 1)).map(|_| splitmix(&mut st)).collect();
        let side = splitmix(&mut st);
        let lion = (0..size).map(|_| splitmix(&mut st)).collect();
        Zobrist { piece, hand, side, lion }
    }
}

impl Variant {
    /// Compile a resolved spec into tables; `source` names it in error messages. Every fault
    /// found is listed. The start position is checked by [`Variant::compile`]
    /// (`crate::load`), which needs a position and so cannot live here.
    pub(crate) fn compile_tables(source: &str, spec: VariantSpec) -> Result<Variant> {
        let spec_error = |errors| EngineError::Spec { origin: source.into(), errors };
        let mut errors: Vec<String> = Vec::new();
        let (files, ranks) = (spec.files, spec.ranks);
        if !(1..=32).contains(&files) || !(1..=32).contains(&ranks) {
            errors.push(format!("board {files}x{ranks}: files and ranks must be 1..32"));
        }
        let atoms = parse_atoms(&spec, &mut errors);
        let kind_of = check_codes(&spec, &mut errors);
        check_piece_links(&spec, &atoms, &kind_of, &mut errors);
        let rules = parse_rules(&spec, &mut errors);
        if spec.pieces.is_empty() {
            errors.push("no [[piece]] defined".into());
        }
        if !errors.is_empty() {
            return Err(spec_error(errors));
        }
        let geo = Geometry::new(files, ranks, &atoms).ok_or_else(|| {
            spec_error(vec!["board plus leap padding is too large (at most 4096 cells)".into()])
        })?;
        let mut ts = build_types(&spec, &kind_of);
        let hand_types = assign_hands(&mut ts.types, rules.drops);
        let leap_attacks = compile_moves(&geo, &atoms, &mut ts);
        let zone = zones(&geo, files, ranks, rules.zone_depth);
        let tokens = tokens(&spec, &ts).map_err(spec_error)?;
        let max_hand = hand_types.len();
        let zob = Zobrist::new(ts.types.len(), geo.size, max_hand);
        Ok(Variant {
            name: spec.name.clone(),
            files,
            ranks,
            pad: geo.pad,
            stride: geo.stride,
            size: geo.size,
            rules,
            any_complex: ts.types.iter().any(|t| t.complex),
            any_burner: ts.types.iter().any(|t| t.burns),
            types: ts.types,
            tokens,
            hand_types,
            squares: geo.squares,
            index_of: geo.index_of,
            dirs8: geo.dirs8,
            ring2: geo.ring2,
            leap_attacks,
            zone,
            zob_piece: zob.piece,
            zob_hand: zob.hand,
            zob_side: zob.side,
            zob_lion: zob.lion,
            max_hand,
            spec,
        })
    }
}
