//! A deliberately naive reference move generator, for differential testing of [`crate::movegen`].
//!
//! It shares no code with the fast generator: it copies the position onto a plain 2D array of
//! `Option<(Color, TypeId)>`, re-parses every piece's move string with [`betza::parse`] and
//! walks each atom directly with bounds checks. Legality is decided by making each candidate on
//! a copy of the array and generating the opponent's pseudo moves in full (no attack tables).
//! Speed is not a goal; clarity and independence are.
//!
//! Output: the legal moves as sorted USI strings in the default ("distinct") convention: one
//! move per distinct outcome (from, to, captured set, promotion), intermediate squares written
//! only where something is captured, and at most one pass per piece, written
//! `from mid from` with the first empty neighbour in the board order N, NE, E, SE, S, SW, W, NW
//! (lion, area move) or the first square of the lion line (horned falcon, soaring eagle, lion
//! dog), whichever special atom comes first in the move string.

use crate::betza::{self, Atom, Mode};
use crate::position::Position;
use crate::variant::{
    cell_color, cell_type, Color, PromotionRule, StuckRule, TypeId, Variant, EMPTY,
};

/// (x, y): x from Black's left (file `files`), y from rank `a`.
type Sq = (i32, i32);
type Piece = (Color, TypeId);

/// The eight king directions in board terms: N (towards rank a), NE, E, SE, S, SW, W, NW.
const DIRS8: [Sq; 8] = [(0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1)];

/// A plain copy of the position.
#[derive(Clone)]
struct Board {
    w: i32,
    h: i32,
    cells: Vec<Option<Piece>>,
    hands: [Vec<u8>; 2],
    side: Color,
    lion_sq: Option<Sq>,
}

impl Board {
    fn on(&self, s: Sq) -> bool {
        s.0 >= 0 && s.1 >= 0 && s.0 < self.w && s.1 < self.h
    }
    fn index(&self, s: Sq) -> usize {
        (s.1 * self.w + s.0) as usize
    }
    fn get(&self, s: Sq) -> Option<Piece> {
        self.cells[self.index(s)]
    }
    fn set(&mut self, s: Sq, p: Option<Piece>) {
        let i = self.index(s);
        self.cells[i] = p;
    }
    fn all_squares(&self) -> impl Iterator<Item = Sq> {
        let (w, h) = (self.w, self.h);
        (0..h).flat_map(move |y| (0..w).map(move |x| (x, y)))
    }
}

/// A candidate move. Board moves list their stops in path order (`captured` marks the stops
/// where a piece is removed); the last stop is the destination. A pass has the single stop
/// `from` and `pass_mid` set.
#[derive(Clone, Copy, Debug)]
struct Cand {
    drop: Option<TypeId>,
    from: Sq,
    stops: [(Sq, bool); 4],
    n: usize,
    pass_mid: Option<Sq>,
    promote: bool,
}

impl Cand {
    fn new(from: Sq, path: &[(Sq, bool)]) -> Cand {
        let mut stops = [((0, 0), false); 4];
        stops[..path.len()].copy_from_slice(path);
        Cand { drop: None, from, stops, n: path.len(), pass_mid: None, promote: false }
    }
    fn to(&self) -> Sq {
        self.stops[self.n - 1].0
    }
    fn captured(&self) -> impl Iterator<Item = Sq> + '_ {
        self.stops[..self.n].iter().filter(|s| s.1).map(|s| s.0)
    }
    fn captures_on(&self, s: Sq) -> bool {
        self.captured().any(|c| c == s)
    }
    fn any_capture(&self) -> bool {
        self.captured().next().is_some()
    }
    /// Identity of the outcome, for de-duplication.
    fn key(&self) -> (Option<TypeId>, Sq, Sq, Vec<Sq>, bool, bool) {
        let mut caps: Vec<Sq> = self.captured().collect();
        caps.sort();
        (self.drop, self.from, self.to(), caps, self.promote, self.pass_mid.is_some())
    }
}

/// The reference generator for one variant.
struct Ref<'a> {
    v: &'a Variant,
    /// Atoms of each type (the kind it moves as), re-parsed from the spec.
    atoms: Vec<Vec<Atom>>,
    is_emperor: Vec<bool>,
    /// stuck[type][colour][y * w + x]: the piece could never move from there on an empty board.
    stuck: Vec<[Vec<bool>; 2]>,
}

fn board_dir(c: Color, v: (i8, i8)) -> Sq {
    match c {
        Color::Black => (v.0 as i32, -(v.1 as i32)),
        Color::White => (-(v.0 as i32), v.1 as i32),
    }
}

fn add(a: Sq, d: Sq) -> Sq {
    (a.0 + d.0, a.1 + d.1)
}

fn kdist(a: Sq, b: Sq) -> i32 {
    (a.0 - b.0).abs().max((a.1 - b.1).abs())
}

/// The piece whose moves are generated: the board, its square `o` and its colour `c`, with
/// one method per kind of atom, each pushing its candidates.
struct Mover<'b> {
    b: &'b Board,
    o: Sq,
    c: Color,
}

impl Mover<'_> {
    /// `s` is on the board and holds an enemy piece.
    fn enemy(&self, s: Sq) -> bool {
        self.b.on(s) && matches!(self.b.get(s), Some((pc, _)) if pc != self.c)
    }
    /// `s` is on the board and empty.
    fn empty(&self, s: Sq) -> bool {
        self.b.on(s) && self.b.get(s).is_none()
    }
    /// `s` is empty or holds an enemy piece.
    fn free(&self, s: Sq) -> bool {
        self.empty(s) || self.enemy(s)
    }
    /// The board delta of the piece's move vector `v`.
    fn dir(&self, v: (i8, i8)) -> Sq {
        board_dir(self.c, v)
    }
    /// Pushes a pass through `mid`.
    fn pass(&self, out: &mut Vec<Cand>, mid: Sq) {
        let mut m = Cand::new(self.o, &[(self.o, false)]);
        m.pass_mid = Some(mid);
        out.push(m);
    }
    /// The first empty king neighbour in the order of [`DIRS8`] (where a pass is written).
    fn first_empty_neighbour(&self) -> Option<Sq> {
        DIRS8.iter().map(|&d| add(self.o, d)).find(|&s| self.empty(s))
    }

    /// A leap to `o + v`.
    fn leap(&self, v: (i8, i8), mode: Mode, out: &mut Vec<Cand>) {
        let s = add(self.o, self.dir(v));
        if self.empty(s) && mode.can_move() {
            out.push(Cand::new(self.o, &[(s, false)]));
        } else if self.enemy(s) && mode.can_capture() {
            out.push(Cand::new(self.o, &[(s, true)]));
        }
    }

    /// A ride along `v` of `min..=max` steps (the squares before `min` are jumped).
    fn ride(&self, v: (i8, i8), min: u8, max: u8, mode: Mode, out: &mut Vec<Cand>) {
        let d = self.dir(v);
        let mut s = self.o;
        for k in 1..=(max as u32) {
            s = add(s, d);
            if !self.b.on(s) {
                break;
            }
            if k < min as u32 {
                continue; // jumped
            }
            if self.empty(s) {
                if mode.can_move() {
                    out.push(Cand::new(self.o, &[(s, false)]));
                }
                continue;
            }
            if self.enemy(s) && mode.can_capture() {
                out.push(Cand::new(self.o, &[(s, true)]));
            }
            break;
        }
    }

    /// Lion power: any square within king distance two, one pass, and the double moves that
    /// capture on an adjacent square first.
    fn lion(&self, out: &mut Vec<Cand>) {
        let o = self.o;
        for dy in -2..=2 {
            for dx in -2..=2 {
                let s = (o.0 + dx, o.1 + dy);
                if (dx, dy) != (0, 0) && self.free(s) {
                    out.push(Cand::new(o, &[(s, self.enemy(s))]));
                }
            }
        }
        if let Some(m) = self.first_empty_neighbour() {
            self.pass(out, m);
        }
        for d1 in DIRS8 {
            let m = add(o, d1);
            if !self.enemy(m) {
                continue; // through an empty square: same outcome as a plain step/jump
            }
            self.after_capture(m, DIRS8.iter().copied(), out);
        }
    }

    /// Second legs after capturing on `m`: by each of `seconds` to a free square or back to
    /// the start.
    fn after_capture(&self, m: Sq, seconds: impl Iterator<Item = Sq>, out: &mut Vec<Cand>) {
        let o = self.o;
        for d2 in seconds {
            let s = add(m, d2);
            if s == o {
                out.push(Cand::new(o, &[(m, true), (o, false)]));
            } else if self.free(s) {
                out.push(Cand::new(o, &[(m, true), (s, self.enemy(s))]));
            }
        }
    }

    /// Linear lion power of `len` squares along `v`.
    fn lion_line(&self, v: (i8, i8), len: u8, out: &mut Vec<Cand>) {
        let d = self.dir(v);
        let o = self.o;
        let line: Vec<Sq> = (1..=len as i32)
            .map(|k| (o.0 + d.0 * k, o.1 + d.1 * k))
            .take_while(|&s| self.b.on(s))
            .collect();
        if line.is_empty() {
            return;
        }
        if len == 2 {
            self.falcon_line(&line, out);
        } else {
            self.lion_dog_line(&line, out);
        }
    }

    /// Horned falcon / soaring eagle line of two (chu 3.2, tai 2.3.3).
    fn falcon_line(&self, line: &[Sq], out: &mut Vec<Cand>) {
        let o = self.o;
        let s1 = line[0];
        if self.free(s1) {
            out.push(Cand::new(o, &[(s1, self.enemy(s1))]));
        }
        if line.len() == 2 && self.free(line[1]) {
            let s2 = line[1];
            out.push(Cand::new(o, &[(s2, self.enemy(s2))]));
            if self.enemy(s1) {
                out.push(Cand::new(o, &[(s1, true), (s2, self.enemy(s2))]));
            }
        }
        if self.enemy(s1) {
            out.push(Cand::new(o, &[(s1, true), (o, false)]));
        }
        if self.empty(s1) {
            self.pass(out, s1);
        }
    }

    /// Lion dog line of three (tai 2.3.4): end on any square of the line with any subset of
    /// the enemies before it captured, igui or pass on the first, out and back to the first.
    fn lion_dog_line(&self, line: &[Sq], out: &mut Vec<Cand>) {
        let o = self.o;
        for k in 0..line.len() {
            let sk = line[k];
            if !self.free(sk) {
                continue;
            }
            let enemies: Vec<Sq> = line[..k].iter().copied().filter(|&s| self.enemy(s)).collect();
            for mask in 0..(1u32 << enemies.len()) {
                let mut path: Vec<(Sq, bool)> = Vec::new();
                for (i, &e) in enemies.iter().enumerate() {
                    if mask & (1 << i) != 0 {
                        path.push((e, true));
                    }
                }
                path.push((sk, self.enemy(sk)));
                out.push(Cand::new(o, &path));
            }
        }
        let s1 = line[0];
        if self.enemy(s1) {
            out.push(Cand::new(o, &[(s1, true), (o, false)]));
        } else if self.empty(s1) {
            self.pass(out, s1);
        }
        if line.len() >= 2 {
            let s2 = line[1];
            // out to s2 (empty, or its enemy captured), back to s1, which must be empty by
            // then (it was empty, or its enemy was captured on the way)
            if self.free(s2) && self.free(s1) {
                let path = [(s1, self.enemy(s1)), (s2, self.enemy(s2)), (s1, false)];
                out.push(Cand::new(o, &path));
            }
        }
    }

    /// Double capture: capture on `o + v`, then go on by one of `second`.
    fn double_capture(&self, v: (i8, i8), second: &[(i8, i8)], out: &mut Vec<Cand>) {
        let m = add(self.o, self.dir(v));
        if self.enemy(m) {
            self.after_capture(m, second.iter().map(|&v2| self.dir(v2)), out);
        }
    }

    /// Area move: every path of 1..=steps king steps through empty squares (the vacated start
    /// counts as empty), ending on an empty or enemy square, or back on the start (a pass).
    fn area(&self, steps: u8, out: &mut Vec<Cand>) {
        let o = self.o;
        let mut dests: Vec<Sq> = Vec::new();
        let mut back = false;
        let mut stack: Vec<(Sq, u8)> = vec![(o, 0)];
        while let Some((p, k)) = stack.pop() {
            if k == steps {
                continue;
            }
            for d in DIRS8 {
                let s = add(p, d);
                if s == o {
                    back = true;
                    stack.push((s, k + 1));
                    continue;
                }
                if !self.b.on(s) {
                    continue;
                }
                if self.empty(s) {
                    if !dests.contains(&s) {
                        dests.push(s);
                    }
                    stack.push((s, k + 1));
                } else if self.enemy(s) && !dests.contains(&s) {
                    dests.push(s);
                }
            }
        }
        for s in dests {
            out.push(Cand::new(o, &[(s, self.enemy(s))]));
        }
        if back {
            if let Some(m) = self.first_empty_neighbour() {
                self.pass(out, m);
            }
        }
    }

    /// Range jump along `v` by a piece of type `t`: over pieces of lower jump rank,
    /// capturing only after at least one jump.
    fn range_jump(&self, var: &Variant, t: TypeId, v: (i8, i8), out: &mut Vec<Cand>) {
        let d = self.dir(v);
        let rank = var.types[t as usize].jump_rank;
        let mut s = self.o;
        let mut jumped = 0;
        loop {
            s = add(s, d);
            if !self.b.on(s) {
                break;
            }
            let Some((_, vt)) = self.b.get(s) else { continue };
            if jumped >= 1 && self.enemy(s) {
                out.push(Cand::new(self.o, &[(s, true)]));
            }
            if var.types[vt as usize].jump_rank >= rank {
                break;
            }
            jumped += 1;
        }
    }

    /// Hook move along `v`, turning once by a right angle at any empty square on the way.
    fn hook(&self, v: (i8, i8), out: &mut Vec<Cand>) {
        let d = self.dir(v);
        let perp = [(d.1, -d.0), (-d.1, d.0)];
        let mut e = self.o;
        loop {
            e = add(e, d);
            if !self.b.on(e) {
                break;
            }
            if !self.empty(e) {
                if self.enemy(e) {
                    out.push(Cand::new(self.o, &[(e, true)]));
                }
                break;
            }
            out.push(Cand::new(self.o, &[(e, false)]));
            for p in perp {
                self.slide_from(e, p, out);
            }
        }
    }

    /// Slide from `e` (exclusive) along `d` to every empty square and the first enemy.
    fn slide_from(&self, e: Sq, d: Sq, out: &mut Vec<Cand>) {
        let mut s = e;
        loop {
            s = add(s, d);
            if self.empty(s) {
                out.push(Cand::new(self.o, &[(s, false)]));
                continue;
            }
            if self.enemy(s) {
                out.push(Cand::new(self.o, &[(s, true)]));
            }
            break;
        }
    }

    /// Igui: capture on `o + v` without moving.
    fn igui(&self, v: (i8, i8), out: &mut Vec<Cand>) {
        let s = add(self.o, self.dir(v));
        if self.enemy(s) {
            out.push(Cand::new(self.o, &[(s, true), (self.o, false)]));
        }
    }
}

impl<'a> Ref<'a> {
    fn new(v: &'a Variant) -> Ref<'a> {
        let atoms: Vec<Vec<Atom>> =
            v.types
                .iter()
                .map(|t| {
                    let p =
                        v.spec.pieces.iter().find(|p| p.code == t.code).unwrap_or_else(|| {
                            panic!("reference: no spec piece with code {}", t.code)
                        });
                    betza::parse(&p.moves).unwrap_or_else(|e| panic!("reference: {e}"))
                })
                .collect();
        let is_emperor =
            atoms.iter().map(|a| a.iter().any(|x| matches!(x, Atom::Emperor))).collect();
        let (w, h) = (v.files as i32, v.ranks as i32);
        let on = |s: Sq| s.0 >= 0 && s.1 >= 0 && s.0 < w && s.1 < h;
        let mut stuck = Vec::new();
        for a in &atoms {
            let mut per = [vec![false; (w * h) as usize], vec![false; (w * h) as usize]];
            for c in [Color::Black, Color::White] {
                for y in 0..h {
                    for x in 0..w {
                        let o = (x, y);
                        let can = a.iter().any(|atom| match atom {
                            Atom::Leap { v, .. } => on(add(o, board_dir(c, *v))),
                            Atom::Ride { v, min, .. } => {
                                let d = board_dir(c, *v);
                                on((o.0 + d.0 * *min as i32, o.1 + d.1 * *min as i32))
                            }
                            Atom::Lion | Atom::Area { .. } => (-2..=2).any(|dy| {
                                (-2..=2).any(|dx| (dx, dy) != (0, 0) && on((x + dx, y + dy)))
                            }),
                            Atom::LionLine { v, .. }
                            | Atom::DblCap { v, .. }
                            | Atom::Hook { v }
                            | Atom::Igui { v } => on(add(o, board_dir(c, *v))),
                            Atom::RangeJump { v } => {
                                let d = board_dir(c, *v);
                                on((o.0 + 2 * d.0, o.1 + 2 * d.1))
                            }
                            Atom::Emperor => w * h > 1,
                        });
                        per[c.idx()][(y * w + x) as usize] = !can;
                    }
                }
            }
            stuck.push(per);
        }
        Ref { v, atoms, is_emperor, stuck }
    }

    fn board_of(&self, pos: &Position) -> Board {
        let v = self.v;
        let (w, h) = (v.files as i32, v.ranks as i32);
        let mut cells = vec![None; (w * h) as usize];
        for y in 0..h {
            for x in 0..w {
                let c = pos.cell(v.sq(x as i16, y as i16));
                if c != EMPTY {
                    cells[(y * w + x) as usize] = Some((cell_color(c), cell_type(c)));
                }
            }
        }
        let nh = v.hand_types.len();
        let hands = [
            (0..nh).map(|i| pos.hand(Color::Black, i)).collect(),
            (0..nh).map(|i| pos.hand(Color::White, i)).collect(),
        ];
        let lion_sq = pos.lion_capture_square().map(|s| {
            let (x, y) = v.xy(s);
            (x as i32, y as i32)
        });
        Board { w, h, cells, hands, side: pos.side_to_move(), lion_sq }
    }

    fn name(&self, s: Sq) -> String {
        format!("{}{}", self.v.files as i32 - s.0, (b'a' + s.1 as u8) as char)
    }

    fn usi(&self, m: &Cand) -> String {
        if let Some(t) = m.drop {
            return format!("{}*{}", self.v.types[t as usize].token, self.name(m.to()));
        }
        let mut s = self.name(m.from);
        if let Some(p) = m.pass_mid {
            s.push_str(&self.name(p));
        } else {
            for st in &m.stops[..m.n - 1] {
                if st.1 {
                    s.push_str(&self.name(st.0));
                }
            }
        }
        s.push_str(&self.name(m.to()));
        if m.promote {
            s.push('+');
        }
        s
    }

    // ------------------------------------------------------------------ piece moves

    /// All moves of the piece on `o` (shape only). `raw`: for attack questions, ignore the
    /// emperor's capture restriction. Passes: every candidate is produced; the caller keeps the
    /// first.
    fn piece_moves(&self, b: &Board, o: Sq, raw: bool, out: &mut Vec<Cand>) {
        let (c, t) = b.get(o).expect("piece");
        let atoms = &self.atoms[t as usize];
        let p = Mover { b, o, c };
        // 1. leaps, 2. rides, 3. specials, each in move-string order
        for a in atoms {
            if let Atom::Leap { v, mode } = a {
                p.leap(*v, *mode, out);
            }
        }
        for a in atoms {
            if let Atom::Ride { v, min, max, mode } = a {
                p.ride(*v, *min, *max, *mode, out);
            }
        }
        for a in atoms {
            match a {
                Atom::Leap { .. } | Atom::Ride { .. } => {}
                Atom::Lion => p.lion(out),
                Atom::LionLine { v, len } => p.lion_line(*v, *len, out),
                Atom::DblCap { v, second } => p.double_capture(*v, second, out),
                Atom::Area { steps } => p.area(*steps, out),
                Atom::RangeJump { v } => p.range_jump(self.v, t, *v, out),
                Atom::Hook { v } => p.hook(*v, out),
                Atom::Igui { v } => p.igui(*v, out),
                Atom::Emperor => self.emperor_moves(&p, raw, out),
            }
        }
    }

    /// The emperor's moves: to every empty square, and onto every enemy unless the capture
    /// restriction forbids it (`raw` ignores the restriction).
    fn emperor_moves(&self, p: &Mover, raw: bool, out: &mut Vec<Cand>) {
        let (b, o) = (p.b, p.o);
        for s in b.all_squares() {
            if s == o {
                continue;
            }
            if p.empty(s) {
                out.push(Cand::new(o, &[(s, false)]));
            } else if p.enemy(s) {
                let (_, vt) = b.get(s).expect("enemy");
                let restricted =
                    self.v.types[vt as usize].royal || self.v.rules.emperor_any_protected;
                if !raw && restricted && self.emperor_victim_protected(b, o, s) {
                    continue;
                }
                out.push(Cand::new(o, &[(s, true)]));
            }
        }
    }

    /// Could some piece of colour `by` capture on `target` (any pseudo move of any kind),
    /// optionally ignoring the pieces for which `skip` says so?
    fn attacks(&self, b: &Board, by: Color, target: Sq, skip: &dyn Fn(Sq, TypeId) -> bool) -> bool {
        let mut buf = Vec::new();
        for s in b.all_squares() {
            let Some((c, t)) = b.get(s) else { continue };
            if c != by || skip(s, t) {
                continue;
            }
            buf.clear();
            self.piece_moves(b, s, true, &mut buf);
            if buf.iter().any(|m| m.captures_on(target)) {
                return true;
            }
        }
        false
    }

    /// Tai 2.3.1: is the enemy piece on `s` protected against our emperor coming from `o`?
    fn emperor_victim_protected(&self, b: &Board, o: Sq, s: Sq) -> bool {
        let (us, et) = b.get(o).expect("emperor");
        let them = us.flip();
        let mut after = b.clone();
        after.set(o, None);
        after.set(s, Some((us, et)));
        // Any enemy piece other than an emperor that could capture our emperor on s.
        if self.attacks(&after, them, s, &|_, t| self.is_emperor[t as usize]) {
            return true;
        }
        let enemy_emperor = after.all_squares().any(
            |q| matches!(after.get(q), Some((c, t)) if c == them && self.is_emperor[t as usize]),
        );
        if !enemy_emperor {
            return false;
        }
        if self.v.rules.emperor_any_protected {
            return true;
        }
        // Their emperor may recapture only if our emperor on s is unprotected: does any other
        // piece of ours attack s (with an enemy standing there)?
        let mut probe = after.clone();
        probe.set(s, b.get(s));
        !self.attacks(&probe, us, s, &|_, _| false)
    }

    // ------------------------------------------------------------------ legality

    /// Chu lion-trading rules (chu.md section 6) for a move of the piece on `m.from`.
    fn lion_rules_ok(&self, b: &Board, m: &Cand) -> bool {
        let (us, t) = b.get(m.from).expect("mover");
        let mover_lion = self.v.types[t as usize].lion;
        let caps: Vec<Sq> = m.captured().collect();
        for (i, &s) in caps.iter().enumerate() {
            let Some((vc, vt)) = b.get(s) else { continue };
            if vc == us || !self.v.types[vt as usize].lion {
                continue;
            }
            if !mover_lion {
                // rule C
                if let Some(ls) = b.lion_sq {
                    if ls != s {
                        return false;
                    }
                }
                continue;
            }
            if kdist(m.from, s) <= 1 {
                continue; // rule A
            }
            // rule B: bridge capture on an earlier leg?
            let bridge = caps[..i].iter().any(|&p| {
                let (_, pt) = b.get(p).expect("captured");
                !self.v.types[pt as usize].minor
            });
            if bridge {
                continue;
            }
            let mid = if i > 0 { Some(caps[0]) } else { None };
            if self.lion_protected(b, m.from, mid, s) {
                return false;
            }
        }
        true
    }

    /// Is the enemy lion on `s` protected: attacked by its owner's pieces with the attacking lion
    /// removed from `o` and the first-leg square `mid` empty for lines of sight, the piece on
    /// `mid` still counting as a protector?
    fn lion_protected(&self, b: &Board, o: Sq, mid: Option<Sq>, s: Sq) -> bool {
        let (us, lt) = b.get(o).expect("lion");
        let them = us.flip();
        let mut b2 = b.clone();
        b2.set(o, None);
        b2.set(s, Some((us, lt)));
        let mut b3 = b2.clone();
        if let Some(m) = mid {
            b3.set(m, None);
        }
        if self.attacks(&b3, them, s, &|_, _| false) {
            return true;
        }
        if let Some(m) = mid {
            if let Some((c, _)) = b2.get(m) {
                if c == them {
                    let mut buf = Vec::new();
                    self.piece_moves(&b2, m, true, &mut buf);
                    return buf.iter().any(|x| x.captures_on(s));
                }
            }
        }
        false
    }

    /// The position after a move (captures go to hand where there are drops).
    fn apply(&self, b: &Board, m: &Cand) -> Board {
        let mut a = b.clone();
        let us = b.side;
        if let Some(t) = m.drop {
            let h = self.v.types[t as usize].hand.expect("hand") as usize;
            a.hands[us.idx()][h] -= 1;
            a.set(m.to(), Some((us, t)));
        } else {
            let (_, t) = b.get(m.from).expect("mover");
            for s in m.captured() {
                if let Some((_, vt)) = a.get(s) {
                    let d = self.v.types[vt as usize].demoted;
                    if let Some(h) = self.v.types[d as usize].hand {
                        a.hands[us.idx()][h as usize] += 1;
                    }
                }
                a.set(s, None);
            }
            let nt = if m.promote {
                self.v.types[t as usize].promotes_to.expect("promotable")
            } else {
                t
            };
            a.set(m.from, None);
            a.set(m.to(), Some((us, nt)));
        }
        a.side = us.flip();
        a.lion_sq = None;
        a
    }

    fn royals(&self, b: &Board, c: Color) -> Vec<Sq> {
        b.all_squares()
            .filter(
                |&s| matches!(b.get(s), Some((pc, t)) if pc == c && self.v.types[t as usize].royal),
            )
            .collect()
    }

    /// Is colour `c`'s single royal attacked? (false unless exactly one royal)
    fn in_check(&self, b: &Board, c: Color) -> bool {
        let r = self.royals(b, c);
        r.len() == 1 && self.attacks(b, c.flip(), r[0], &|_, _| false)
    }

    fn in_zone(&self, c: Color, s: Sq) -> bool {
        let zd = self.v.rules.zone_depth as i32;
        match c {
            Color::Black => s.1 < zd,
            Color::White => s.1 >= self.v.ranks as i32 - zd,
        }
    }

    /// Legal moves of the side to move.
    fn legal(&self, b: &Board) -> Vec<Cand> {
        let mut pseudo: Vec<Cand> = Vec::new();
        for o in b.all_squares() {
            if let Some((c, t)) = b.get(o) {
                if c == b.side {
                    self.board_moves_of(b, o, t, &mut pseudo);
                }
            }
        }
        if self.v.rules.drops {
            self.drops(b, &mut pseudo);
        }
        pseudo.into_iter().filter(|m| self.is_legal(b, m)).collect()
    }

    /// The moves of the piece of type `t` on `o`, with their promotion choices: one pass per
    /// piece, one move per outcome.
    fn board_moves_of(&self, b: &Board, o: Sq, t: TypeId, pseudo: &mut Vec<Cand>) {
        let mut buf = Vec::new();
        self.piece_moves(b, o, false, &mut buf);
        let mut seen_pass = false;
        let mut keys = Vec::new();
        for m in &buf {
            if m.pass_mid.is_some() {
                if seen_pass {
                    continue;
                }
                seen_pass = true;
            }
            for p in self.promotion_choices(b, o, t, m) {
                let mut mm = *m;
                mm.promote = p;
                let k = mm.key();
                if !keys.contains(&k) {
                    keys.push(k);
                    pseudo.push(mm);
                }
            }
        }
    }

    /// Whether move `m` of the piece of type `t` from `o` may stay unpromoted (`false` in the
    /// list) and may promote (`true`).
    // the rule as the rules text states it (enter the zone, or capture in or into it)
    #[allow(clippy::nonminimal_bool)]
    fn promotion_choices(&self, b: &Board, o: Sq, t: TypeId, m: &Cand) -> Vec<bool> {
        let (v, us) = (self.v, b.side);
        if v.types[t as usize].promotes_to.is_none() {
            return vec![false];
        }
        let to = m.to();
        let zf = self.in_zone(us, o);
        let zt = self.in_zone(us, to);
        let cap = m.any_capture();
        let (mut can, mut must) = match v.rules.promotion {
            PromotionRule::StartOrEnd => (zf || zt, false),
            PromotionRule::EnterOrCapture => ((!zf && zt) || (cap && (zf || zt)), false),
            PromotionRule::OnCapture => (cap, cap),
            PromotionRule::None => (false, false),
        };
        if self.stuck[t as usize][us.idx()][b.index(to)] {
            match v.rules.stuck {
                StuckRule::Forced => {
                    can = true;
                    must = true;
                }
                StuckRule::Optional => can = true,
                StuckRule::None => {}
            }
        }
        let mut opts = Vec::new();
        if !must {
            opts.push(false);
        }
        if can {
            opts.push(true);
        }
        opts
    }

    /// The drops of the side to move: every empty square where the piece could move again
    /// later, and no second unpromoted pawn on a file where `nifu` holds.
    fn drops(&self, b: &Board, pseudo: &mut Vec<Cand>) {
        let us = b.side;
        for (h, &t) in self.v.hand_types.iter().enumerate() {
            if b.hands[us.idx()][h] == 0 {
                continue;
            }
            let pt = &self.v.types[t as usize];
            for s in b.all_squares() {
                if b.get(s).is_some() || self.stuck[t as usize][us.idx()][b.index(s)] {
                    continue;
                }
                if pt.nifu && (0..b.h).any(|y| b.get((s.0, y)) == Some((us, t))) {
                    continue;
                }
                let mut m = Cand::new(s, &[(s, false)]);
                m.drop = Some(t);
                pseudo.push(m);
            }
        }
    }

    /// Whether the pseudo-legal `m` is legal: the lion-trading rules, no own royal left in
    /// check, no pawn-drop mate (uchifuzume).
    fn is_legal(&self, b: &Board, m: &Cand) -> bool {
        let (v, us) = (self.v, b.side);
        if m.drop.is_none() && v.rules.lion_trading && !self.lion_rules_ok(b, m) {
            return false;
        }
        if !v.rules.check && m.drop.is_none() {
            return true;
        }
        let after = self.apply(b, m);
        if v.rules.check && self.in_check(&after, us) {
            return false;
        }
        let drop_mate = |t: TypeId| {
            v.types[t as usize].no_drop_mate
                && self.in_check(&after, us.flip())
                && self.legal(&after).is_empty()
        };
        !m.drop.is_some_and(drop_mate)
    }
}

/// The legal moves of `pos` as sorted USI strings, default ("distinct") convention, computed
/// naively and independently of [`crate::movegen`].
pub fn reference_moves(pos: &Position) -> Vec<String> {
    let r = Ref::new(pos.variant());
    let b = r.board_of(pos);
    let mut out: Vec<String> = r.legal(&b).iter().map(|m| r.usi(m)).collect();
    out.sort();
    out
}
