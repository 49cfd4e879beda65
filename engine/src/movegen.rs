//! Move generation: pseudo-legal moves per atom, promotion choices, drops, then the variant's
//! legality filters (king safety and drop rules with the check rule; chu's lion-trading rules;
//! the tai emperor's capture restriction).
//!
//! Generation appends to a caller-owned [`MoveList`] and does not allocate once the list has
//! grown.

use crate::attack::Overlay;
use crate::moves::{Move, MoveList};
use crate::position::Position;
use crate::variant::{
    cell_color, cell_type, Cell, Color, PieceType, PromotionRule, Special, StuckRule, EMPTY, WALL,
};

/// How multi-leg moves are listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Convention {
    /// One move per distinct outcome (the default): lion double moves only through a capture,
    /// one pass per piece.
    #[default]
    Distinct,
    /// As lishogi writes them for chushogi: every (from, mid, to) path of the lion, horned
    /// falcon and soaring eagle, including those through an empty mid-square and every pass.
    Lishogi,
}

/// Generation context for one piece.
struct Gen<'a> {
    pos: &'a Position,
    us: Color,
    own: Cell,
    conv: Convention,
    out: &'a mut MoveList,
    /// Apply chu's lion-trading rules (off only to explain illegal moves).
    lion_rules: bool,
    /// Index in `out` where this piece's moves start (for de-duplication).
    piece_start: usize,
    dedupe: bool,
    passed: bool,
    /// Emit only moves that capture (an enemy piece on a mid-square or on a destination other
    /// than the start square), in the order the full generation emits them.
    captures_only: bool,
}

#[inline(always)]
fn is_enemy(c: Cell, own: Cell) -> bool {
    c != EMPTY && c != WALL && c & own == 0
}

impl<'a> Gen<'a> {
    /// Push a move with its promotion choices. `capture`: the move captures something.
    #[inline]
    fn emit(&mut self, t: &PieceType, m: Move, capture: bool) {
        if self.captures_only && !capture {
            return;
        }
        let Some(_) = t.promotes_to else {
            self.push(m);
            return;
        };
        let v = &*self.pos.v;
        let ci = self.us.idx();
        let zf = v.zone[ci][m.from as usize];
        let zt = v.zone[ci][m.to as usize];
        let stuck = t.stuck[ci][m.to as usize];
        let (mut can, mut must) = match v.rules.promotion {
            PromotionRule::StartOrEnd => (zf || zt, false),
            PromotionRule::EnterOrCapture => (if capture { zf || zt } else { zt && !zf }, false),
            PromotionRule::OnCapture => (capture, capture),
            PromotionRule::None => (false, false),
        };
        if stuck {
            match v.rules.stuck {
                StuckRule::Forced => {
                    can = true;
                    must = true;
                }
                StuckRule::Optional => can = true,
                StuckRule::None => {}
            }
        }
        if !must {
            self.push(m);
        }
        if can {
            self.push(m.promoted());
        }
    }

    #[inline]
    fn push(&mut self, m: Move) {
        if self.dedupe && self.out[self.piece_start..].contains(&m) {
            return;
        }
        self.out.push(m);
    }

    #[inline]
    fn cell(&self, s: i16) -> Cell {
        self.pos.board[s as usize]
    }

    /// Emit a multi-stop move; the capture flag comes from the board.
    #[inline]
    fn emit_path(&mut self, t: &PieceType, from: u16, mids: [u16; 2], to: u16) {
        let mut capture = false;
        for s in mids {
            if s != 0 && is_enemy(self.cell(s as i16), self.own) {
                capture = true;
            }
        }
        if to != from && is_enemy(self.cell(to as i16), self.own) {
            capture = true;
        }
        let m = Move { from, to, mid: mids, flags: 0 };
        if self.lion_rules && !self.pos.lion_rules_ok(t, &m) {
            return;
        }
        self.emit(t, m, capture);
    }

    fn emit_pass(&mut self, t: &PieceType, from: u16, mid: u16) {
        if self.conv == Convention::Lishogi || !self.passed {
            self.passed = true;
            self.emit(t, Move::with_mid(from, mid, from), false);
        }
    }

    fn piece(&mut self, from: u16) {
        let pos = self.pos;
        let v = &*pos.v;
        let cell = pos.board[from as usize];
        let t = &v.types[cell_type(cell) as usize];
        let g = &t.gen[self.us.idx()];
        let lion_rules = self.lion_rules && (pos.lion_sq != 0 || t.lion);
        self.piece_start = self.out.len();
        self.dedupe =
            !g.special.is_empty() && (g.special.len() + g.rides.len() + g.leaps.len() > 1);
        self.passed = false;
        for &(d, mode) in &g.leaps {
            let to = (from as i16 + d) as u16;
            let c = pos.board[to as usize];
            if c == EMPTY {
                if mode.can_move() && !self.captures_only {
                    self.emit(t, Move::new(from, to), false);
                }
            } else if is_enemy(c, self.own) && mode.can_capture() {
                if lion_rules {
                    self.emit_path(t, from, [0, 0], to);
                } else {
                    self.emit(t, Move::new(from, to), true);
                }
            }
        }
        for r in &g.rides {
            let mut s = from as i16;
            for k in 1..=r.max {
                s += r.d;
                let c = pos.board[s as usize];
                if c == WALL {
                    break;
                }
                if k < r.min {
                    continue;
                }
                if c == EMPTY {
                    if r.mode.can_move() && !self.captures_only {
                        self.emit(t, Move::new(from, s as u16), false);
                    }
                    continue;
                }
                if is_enemy(c, self.own) && r.mode.can_capture() {
                    if lion_rules {
                        self.emit_path(t, from, [0, 0], s as u16);
                    } else {
                        self.emit(t, Move::new(from, s as u16), true);
                    }
                }
                break;
            }
        }
        for sp in &g.special {
            self.special(t, from, sp);
        }
    }

    /// Generates the moves of one special mechanism of the piece on `from`.
    #[inline]
    fn special(&mut self, t: &PieceType, from: u16, sp: &Special) {
        match sp {
            Special::Lion => self.lion(t, from),
            Special::LionLine { d, len: 2 } => self.lion_line_two(t, from, *d),
            Special::LionLine { d, len } => self.lion_line_long(t, from, *d, *len),
            Special::DblCap { d, second } => self.double_capture(t, from, *d, second),
            Special::Area { steps } => self.area(t, from, *steps),
            Special::RangeJump { d } => self.range_jump(t, from, *d),
            Special::Hook { d, turns } => self.hook(t, from, *d, turns),
            Special::Igui { d } => self.igui(t, from, *d),
            Special::Emperor => self.emperor(t, from),
        }
    }

    /// Lion power: one or two king steps (the ring at distance two), and the double moves
    /// through an adjacent square (igui, pass, capture on the way).
    #[inline]
    fn lion(&mut self, t: &PieceType, from: u16) {
        let v = &*self.pos.v;
        let own = self.own;
        let f = from as i16;
        for &d in v.dirs8.iter().chain(v.ring2.iter()) {
            let s = f + d;
            let c = self.cell(s);
            if c == EMPTY || is_enemy(c, own) {
                self.emit_path(t, from, [0, 0], s as u16);
            }
        }
        for &d1 in &v.dirs8 {
            let m = f + d1;
            let cm = self.cell(m);
            let enemy = is_enemy(cm, own);
            if !(enemy || cm == EMPTY) {
                continue;
            }
            if !enemy && self.conv == Convention::Distinct {
                self.emit_pass(t, from, m as u16);
                continue;
            }
            self.second_legs(t, from, m, enemy, &v.dirs8);
        }
    }

    /// Linear lion power of two squares along `d` (horned falcon, soaring eagle).
    #[inline]
    fn lion_line_two(&mut self, t: &PieceType, from: u16, d: i16) {
        let own = self.own;
        let s1 = from as i16 + d;
        let c1 = self.cell(s1);
        if c1 == WALL {
            return;
        }
        let s2 = s1 + d;
        let c2 = self.cell(s2);
        let s2_ok = c2 == EMPTY || is_enemy(c2, own);
        if c1 == EMPTY {
            self.emit_path(t, from, [0, 0], s1 as u16);
            self.emit_pass(t, from, s1 as u16);
            if s2_ok {
                self.emit_path(t, from, [0, 0], s2 as u16);
                if self.conv == Convention::Lishogi {
                    self.emit_path(t, from, [s1 as u16, 0], s2 as u16);
                }
            }
        } else if is_enemy(c1, own) {
            self.emit_path(t, from, [0, 0], s1 as u16);
            self.emit_path(t, from, [s1 as u16, 0], from);
            if s2_ok {
                self.emit_path(t, from, [0, 0], s2 as u16);
                self.emit_path(t, from, [s1 as u16, 0], s2 as u16);
            }
        } else if s2_ok {
            self.emit_path(t, from, [0, 0], s2 as u16);
        }
    }

    /// Double capture: capture on `from + d`, then step on by one of `second` (back to the
    /// start included) to an empty or enemy square.
    #[inline]
    fn double_capture(&mut self, t: &PieceType, from: u16, d: i16, second: &[i16]) {
        let m = from as i16 + d;
        if is_enemy(self.cell(m), self.own) {
            self.second_legs(t, from, m, true, second);
        }
    }

    /// The second legs of a double move through `m` (`mid_enemy`: an enemy there is captured
    /// on the way), by each of `seconds`: back to the start (igui, or a pass through an empty
    /// `m`) or on to an empty or enemy square.
    #[inline]
    fn second_legs(&mut self, t: &PieceType, from: u16, m: i16, mid_enemy: bool, seconds: &[i16]) {
        for &d2 in seconds {
            let s = m + d2;
            if s == from as i16 {
                if mid_enemy {
                    self.emit_path(t, from, [m as u16, 0], from);
                } else {
                    self.emit_pass(t, from, m as u16);
                }
                continue;
            }
            let c = self.cell(s);
            if c == EMPTY || is_enemy(c, self.own) {
                self.emit_path(t, from, [m as u16, 0], s as u16);
            }
        }
    }

    /// Range jump along `d`: over any number of pieces of lower jump rank, capturing only
    /// after a jump.
    #[inline]
    fn range_jump(&mut self, t: &PieceType, from: u16, d: i16) {
        let v = &*self.pos.v;
        let own = self.own;
        let mut s = from as i16;
        let mut jumped = false;
        loop {
            s += d;
            let c = self.cell(s);
            if c == WALL {
                break;
            }
            if c == EMPTY {
                continue;
            }
            if jumped && is_enemy(c, own) {
                self.emit(t, Move::new(from, s as u16), true);
            }
            if v.types[cell_type(c) as usize].jump_rank >= t.jump_rank {
                break;
            }
            jumped = true;
        }
    }

    /// Hook move: slide along `d`, and from each empty square on the way slide on along one
    /// of the two perpendicular `turns`.
    #[inline]
    fn hook(&mut self, t: &PieceType, from: u16, d: i16, turns: &[i16; 2]) {
        let own = self.own;
        let mut e = from as i16;
        loop {
            e += d;
            let c = self.cell(e);
            if c == WALL {
                break;
            }
            if c != EMPTY {
                if is_enemy(c, own) {
                    self.emit(t, Move::new(from, e as u16), true);
                }
                break;
            }
            self.emit(t, Move::new(from, e as u16), false);
            for &p in turns {
                self.hook_turn(t, from, e, p);
            }
        }
    }

    /// The second leg of a hook move: slide from the corner `e` along `p`.
    #[inline]
    fn hook_turn(&mut self, t: &PieceType, from: u16, e: i16, p: i16) {
        let mut s = e;
        loop {
            s += p;
            let c = self.cell(s);
            if c == EMPTY {
                self.emit(t, Move::new(from, s as u16), false);
                continue;
            }
            if is_enemy(c, self.own) {
                self.emit(t, Move::new(from, s as u16), true);
            }
            break;
        }
    }

    /// Igui: capture on `from + d` without moving.
    #[inline]
    fn igui(&mut self, t: &PieceType, from: u16, d: i16) {
        let s = from as i16 + d;
        if is_enemy(self.cell(s), self.own) {
            self.emit_path(t, from, [s as u16, 0], from);
        }
    }

    /// Lion-dog style linear lion power of 3 (or more) squares.
    fn lion_line_long(&mut self, t: &PieceType, from: u16, d: i16, len: u8) {
        let own = self.own;
        let f = from as i16;
        let mut sq = [0i16; 4];
        let mut cs = [WALL; 4];
        let mut n = 0;
        for k in 1..=len.min(4) as i16 {
            let s = f + d * k;
            let c = self.cell(s);
            if c == WALL {
                break;
            }
            sq[n] = s;
            cs[n] = c;
            n += 1;
        }
        // End on s_k with any subset of the enemy intermediates captured.
        for k in 0..n {
            if !(cs[k] == EMPTY || is_enemy(cs[k], own)) {
                continue;
            }
            let enemies: Vec<u16> =
                (0..k).filter(|&j| is_enemy(cs[j], own)).map(|j| sq[j] as u16).collect();
            let subsets = 1u32 << enemies.len();
            for mask in 0..subsets {
                let mut mids = [0u16; 2];
                let mut nm = 0;
                for (b, &e) in enemies.iter().enumerate() {
                    if mask & (1 << b) != 0 && nm < 2 {
                        mids[nm] = e;
                        nm += 1;
                    }
                }
                self.emit_path(t, from, mids, sq[k] as u16);
            }
        }
        if n >= 1 {
            // Back to the start after s1: igui or pass.
            if is_enemy(cs[0], own) {
                self.emit_path(t, from, [sq[0] as u16, 0], from);
            } else if cs[0] == EMPTY {
                self.emit_pass(t, from, sq[0] as u16);
            }
        }
        if n >= 2 && is_enemy(cs[1], own) {
            // Out to s2 (capturing there) and back to s1.
            if cs[0] == EMPTY {
                self.emit_path(t, from, [sq[1] as u16, 0], sq[0] as u16);
            } else if is_enemy(cs[0], own) {
                self.emit_path(t, from, [sq[0] as u16, sq[1] as u16], sq[0] as u16);
            }
        }
    }

    /// Area move: every square reachable in up to `steps` king steps through empty squares.
    fn area(&mut self, t: &PieceType, from: u16, steps: u8) {
        let v = &*self.pos.v;
        let own = self.own;
        let mut seen: [u16; 64] = [0; 64];
        let mut ns = 0usize;
        let mut frontier: [u16; 64] = [0; 64];
        let mut nf = 1usize;
        frontier[0] = from;
        let mut pass_mid = 0u16;
        for _ in 0..steps {
            let mut next: [u16; 64] = [0; 64];
            let mut nn = 0usize;
            for &p in &frontier[..nf] {
                for &d in &v.dirs8 {
                    let s = (p as i16 + d) as u16;
                    if s == from {
                        continue;
                    }
                    if seen[..ns].contains(&s) || ns >= 64 {
                        continue;
                    }
                    let c = self.pos.board[s as usize];
                    if c == EMPTY {
                        seen[ns] = s;
                        ns += 1;
                        if p == from && pass_mid == 0 {
                            pass_mid = s;
                        }
                        self.emit(t, Move::new(from, s), false);
                        if nn < 64 {
                            next[nn] = s;
                            nn += 1;
                        }
                    } else if is_enemy(c, own) {
                        seen[ns] = s;
                        ns += 1;
                        self.emit(t, Move::new(from, s), true);
                    }
                }
            }
            frontier = next;
            nf = nn;
        }
        if steps >= 2 && pass_mid != 0 {
            self.emit_pass(t, from, pass_mid);
        }
    }

    /// Emperor: to any empty square; captures anywhere, royals (or, by option, any piece) only
    /// when unprotected.
    fn emperor(&mut self, t: &PieceType, from: u16) {
        let pos = self.pos;
        let v = &*pos.v;
        for &s in &v.squares {
            if s == from {
                continue;
            }
            let c = pos.board[s as usize];
            if c == EMPTY {
                if !self.captures_only {
                    self.emit(t, Move::new(from, s), false);
                }
            } else if is_enemy(c, self.own) {
                let vt = &v.types[cell_type(c) as usize];
                if (vt.royal || v.rules.emperor_any_protected)
                    && pos.emperor_capture_protected(from, s, self.us)
                {
                    continue;
                }
                self.emit(t, Move::new(from, s), true);
            }
        }
    }
}

impl Position {
    /// All legal moves (default convention) appended to `out`.
    pub fn legal_moves(&self, out: &mut MoveList) {
        self.legal_moves_conv(out, Convention::Distinct);
    }

    /// All legal moves in the given convention, appended to `out`.
    pub fn legal_moves_conv(&self, out: &mut MoveList, conv: Convention) {
        let start = out.len();
        self.pseudo_moves(out, conv);
        if self.v.rules.check {
            self.filter_check_rule(out, start);
        } else if self.v.rules.drops {
            self.filter_drop_mate(out, start);
        }
    }

    /// Number of legal moves (default convention).
    pub fn count_legal(&self, scratch: &mut MoveList) -> usize {
        scratch.clear();
        self.legal_moves(scratch);
        scratch.len()
    }

    /// Pseudo-legal moves: piece moves and drops, with promotion choices and the move-shape
    /// rules (lion trading, emperor), but without the check rule and the pawn-drop-mate rule.
    pub fn pseudo_moves(&self, out: &mut MoveList, conv: Convention) {
        self.pseudo_moves_opts(out, conv, true);
    }

    /// Pseudo-legal moves, optionally without the lion-trading rules.
    pub fn pseudo_moves_opts(&self, out: &mut MoveList, conv: Convention, lion_rules: bool) {
        self.generate(out, conv, lion_rules, false);
    }

    /// The legal moves that capture (an enemy piece on a mid-square, or on a destination other
    /// than the start square; burns do not count), appended to `out` in the order
    /// [`legal_moves`](Self::legal_moves) lists them: that list with the other moves left out,
    /// generated without them (a quiescence search's move generator).
    pub fn legal_captures(&self, out: &mut MoveList) {
        let start = out.len();
        self.generate(out, Convention::Distinct, true, true);
        if self.v.rules.check {
            self.filter_check_rule(out, start);
        }
    }

    /// Whether the side to move has a legal move, with `scratch` as working space (overwritten).
    /// Without the check rule and drops every pseudo-legal move is legal, so generation stops at
    /// the first piece that has a move; otherwise the legal moves are generated.
    pub fn has_legal_move_in(&self, scratch: &mut MoveList) -> bool {
        scratch.clear();
        if self.v.rules.check || self.v.rules.drops {
            self.legal_moves(scratch);
            return !scratch.is_empty();
        }
        let mut g = self.gen_context(scratch, Convention::Distinct, true, false);
        for &from in &self.plist[self.side.idx()] {
            g.piece(from);
            if !g.out.is_empty() {
                return true;
            }
        }
        false
    }

    fn gen_context<'a>(
        &'a self,
        out: &'a mut MoveList,
        conv: Convention,
        lion_rules: bool,
        captures_only: bool,
    ) -> Gen<'a> {
        let us = self.side;
        Gen {
            pos: self,
            us,
            own: us.bit(),
            conv,
            out,
            lion_rules: lion_rules && self.v.rules.lion_trading,
            piece_start: 0,
            dedupe: false,
            passed: false,
            captures_only,
        }
    }

    fn generate(
        &self,
        out: &mut MoveList,
        conv: Convention,
        lion_rules: bool,
        captures_only: bool,
    ) {
        let mut g = self.gen_context(out, conv, lion_rules, captures_only);
        for &from in &self.plist[self.side.idx()] {
            g.piece(from);
        }
        if self.v.rules.drops && !captures_only {
            self.drops(out);
        }
    }

    fn drops(&self, out: &mut MoveList) {
        let v = &*self.v;
        let us = self.side;
        let ci = us.idx();
        for (h, &t) in v.hand_types.iter().enumerate() {
            if self.hands[ci][h] == 0 {
                continue;
            }
            let pt = &v.types[t as usize];
            let stuck = &pt.stuck[ci];
            for &s in &v.squares {
                if self.board[s as usize] != EMPTY || stuck[s as usize] {
                    continue;
                }
                if pt.nifu {
                    let (x, _) = v.xy(s);
                    if self.nifu_files[ci][x as usize] > 0 {
                        continue;
                    }
                }
                out.push(Move::drop(t, s));
            }
        }
    }

    /// Keep only the moves that do not leave the own king attacked, and no pawn-drop mates.
    /// A side without a king (a tsume-shogi attacker) has no king to leave attacked, but its
    /// pawn drops still may not mate.
    fn filter_check_rule(&self, out: &mut MoveList, start: usize) {
        let us = self.side;
        let them = us.flip();
        let king = self.king[us.idx()];
        if king == 0 {
            self.filter_drop_mate(out, start);
            return;
        }
        let in_check = self.attacked_by(king, them);
        let pins = self.pins(king, us);
        let mut w = start;
        let mut scratch = self.clone();
        for r in start..out.len() {
            let m = out[r];
            let ok = if in_check {
                scratch.leaves_king_safe(m)
            } else if m.is_drop() {
                true
            } else if m.from == king {
                !self.attacked_ov(m.to, them, &Overlay { empty: [king, 0], exclude: 0 })
            } else {
                match pins.iter().find(|p| p.0 == m.from) {
                    None => true,
                    Some(&(_, d)) => self.on_line(king, d, m.to),
                }
            };
            let ok = ok
                && !(m.is_drop()
                    && self.v.types[m.drop_type() as usize].no_drop_mate
                    && scratch.is_drop_mate(m));
            if ok {
                out[w] = m;
                w += 1;
            }
        }
        out.truncate(w);
    }

    fn filter_drop_mate(&self, out: &mut MoveList, start: usize) {
        let mut scratch = self.clone();
        let mut w = start;
        for r in start..out.len() {
            let m = out[r];
            if !(m.is_drop()
                && self.v.types[m.drop_type() as usize].no_drop_mate
                && scratch.is_drop_mate(m))
            {
                out[w] = m;
                w += 1;
            }
        }
        out.truncate(w);
    }

    /// Does playing `m` leave the mover's king safe? (plays and unplays on self)
    fn leaves_king_safe(&mut self, m: Move) -> bool {
        let us = self.side;
        let u = self.play(m);
        let safe = !self.in_check_of(us);
        self.unplay(&u);
        safe
    }

    /// Is the drop `m` a drop mate (gives check and the opponent has no legal reply)?
    fn is_drop_mate(&mut self, m: Move) -> bool {
        let them = self.side.flip();
        let k = self.king[them.idx()];
        if k == 0 {
            return false;
        }
        let (kx, ky) = self.v.xy(k);
        let (tx, ty) = self.v.xy(m.to);
        if (kx - tx).abs() > 2 || (ky - ty).abs() > 2 {
            return false;
        }
        let u = self.play(m);
        let mate = self.in_check_of(them) && !self.has_legal_move();
        self.unplay(&u);
        mate
    }

    /// Does the side to move have at least one legal move?
    pub fn has_legal_move(&self) -> bool {
        self.has_legal_move_in(&mut MoveList::with_capacity(128))
    }

    /// Pinned pieces of colour `us` relative to its king: (square, board delta of the line).
    fn pins(&self, king: u16, us: Color) -> [(u16, i16); 8] {
        let v = &*self.v;
        let mut pins = [(0u16, 0i16); 8];
        let mut n = 0;
        let them = us.flip();
        for (di, &d) in v.dirs8.iter().enumerate() {
            let mut s = king as i16;
            let mut first: u16 = 0;
            let mut dist: u8 = 0;
            loop {
                s += d;
                dist = dist.saturating_add(1);
                let c = self.board[s as usize];
                if c == EMPTY {
                    continue;
                }
                if c == WALL || (first == 0 && cell_color(c) != us) {
                    break;
                }
                if first == 0 {
                    first = s as u16;
                    continue;
                }
                // second piece: an enemy capturing back along the line (direction -d) pins `first`
                if cell_color(c) == them
                    && v.types[cell_type(c) as usize].cap_range[them.idx()][(di + 4) % 8] >= dist
                {
                    pins[n] = (first, d);
                    n += 1;
                }
                break;
            }
        }
        pins
    }

    /// Is `s` on the line through `king` with direction `d` (either way)?
    fn on_line(&self, king: u16, d: i16, s: u16) -> bool {
        let (kx, ky) = self.v.xy(king);
        let (sx, sy) = self.v.xy(s);
        let (dx, dy) = self.v.xy_delta(d);
        let (rx, ry) = (sx - kx, sy - ky);
        rx * dy == ry * dx
    }

    /// Chu lion-trading rules for a move of a piece of type `t`.
    pub(crate) fn lion_rules_ok(&self, t: &PieceType, m: &Move) -> bool {
        let v = &*self.v;
        let us = self.side;
        let stops = [m.mid[0], m.mid[1], if m.to != m.from { m.to } else { 0 }];
        for (i, &s) in stops.iter().enumerate() {
            if s == 0 {
                continue;
            }
            let c = self.board[s as usize];
            if !is_enemy(c, us.bit()) || !v.types[cell_type(c) as usize].lion {
                continue;
            }
            if !t.lion {
                // Rule C: after a lion was taken by a non-lion, no non-lion takes a lion,
                // except on the square of that capture.
                if self.lion_sq != 0 && s != self.lion_sq {
                    return false;
                }
                continue;
            }
            // Rules A and B: a lion taking a lion.
            let (fx, fy) = v.xy(m.from);
            let (sx, sy) = v.xy(s);
            if (fx - sx).abs().max((fy - sy).abs()) <= 1 {
                continue;
            }
            // Bridge: an earlier stop captured a piece that is not minor (pawn, go-between).
            let bridge = stops[..i].iter().any(|&b| {
                b != 0 && {
                    let bc = self.board[b as usize];
                    is_enemy(bc, us.bit()) && !v.types[cell_type(bc) as usize].minor
                }
            });
            if bridge {
                continue;
            }
            if self.lion_protected(s, m.from, if i > 0 { m.mid[0] } else { 0 }) {
                return false;
            }
        }
        true
    }

    /// Is the enemy lion on `target` protected, judged with the attacking lion removed from
    /// `from` and the first-leg square `mid` treated as empty for lines of sight; a piece
    /// captured on `mid` still counts as a protector (JCSA/lishogi).
    fn lion_protected(&self, target: u16, from: u16, mid: u16) -> bool {
        let them = self.side.flip();
        let ov = Overlay { empty: [from, mid], exclude: 0 };
        if self.attacked_ov(target, them, &ov) {
            return true;
        }
        if mid != 0 {
            let c = self.board[mid as usize];
            if c != EMPTY && c != WALL && cell_color(c) == them {
                return self.piece_attacks_from(mid, c, target, &ov);
            }
        }
        false
    }

    /// Would the piece `cell` standing on `from` capture on `target` (overlay applied)?
    pub(crate) fn piece_attacks_from(
        &self,
        from: u16,
        cell: Cell,
        target: u16,
        ov: &Overlay,
    ) -> bool {
        let v = &*self.v;
        let c = cell_color(cell);
        let t = &v.types[cell_type(cell) as usize];
        let d = target as i16 - from as i16;
        if let Some(di) = v.dir_index_of_delta(d) {
            if t.cap_range[c.idx()][di.0] >= di.1 {
                // path must be clear up to the target
                let step = v.dirs8[di.0];
                let mut s = from as i16 + step;
                let mut clear = true;
                while s as u16 != target {
                    let cc = if s as u16 == ov.empty[0] || s as u16 == ov.empty[1] {
                        EMPTY
                    } else {
                        self.board[s as usize]
                    };
                    if cc != EMPTY {
                        clear = false;
                        break;
                    }
                    s += step;
                }
                if clear {
                    return true;
                }
            }
        }
        v.leap_attacks[c.idx()].iter().any(|(ld, types)| *ld == d && types[t.id as usize])
    }

    /// Tai emperor: is the enemy piece on `s` protected against our emperor coming from
    /// `from` (shared/rules/tai.md 2.3.1)?
    pub(crate) fn emperor_capture_protected(&self, from: u16, s: u16, us: Color) -> bool {
        let v = &*self.v;
        let them = us.flip();
        // Enemy emperors (their squares) other than the victim.
        let mut enemy_emperor = 0u16;
        for &p in &self.plist[them.idx()] {
            if p != s && v.types[cell_type(self.board[p as usize]) as usize].captures_anywhere() {
                enemy_emperor = p;
            }
        }
        let ov = Overlay { empty: [from, s], exclude: enemy_emperor };
        if self.attacked_ov(s, them, &ov) {
            return true;
        }
        if enemy_emperor == 0 {
            return false;
        }
        if v.rules.emperor_any_protected {
            return true;
        }
        // The enemy emperor may recapture only if our emperor on `s` is unprotected.
        let ours = Overlay { empty: [from, s], exclude: 0 };
        !self.attacked_ov(s, us, &ours)
    }
}
