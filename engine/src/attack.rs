//! Attack detection: "could a piece of colour `by` capture on `target`?"
//!
//! Simple moves are looked up backwards from the target: along each of the eight lines the
//! first piece met is asked how far it captures in that direction (`cap_range`), and every leap
//! vector of the variant is checked once (`leap_attacks`). Pieces with complex captures (hook,
//! area, range jump, skip slides, capture-then-step, emperor) are asked one by one.
//!
//! An overlay lets callers ask hypothetical questions without touching the board: squares to
//! treat as empty, and a square whose piece does not count as an attacker.

use crate::position::Position;
use crate::variant::{cell_color, cell_type, Cell, Color, Ride, Special, EMPTY, WALL};

/// Hypothetical changes for an attack query.
#[derive(Clone, Copy, Default)]
pub struct Overlay {
    /// Squares treated as empty (0 = unused).
    pub empty: [u16; 2],
    /// A square whose piece is ignored as an attacker (0 = unused).
    pub exclude: u16,
}

impl Overlay {
    pub const NONE: Overlay = Overlay { empty: [0, 0], exclude: 0 };
}

impl Position {
    #[inline(always)]
    fn cell_ov(&self, s: u16, ov: &Overlay) -> Cell {
        if s == ov.empty[0] || s == ov.empty[1] {
            EMPTY
        } else {
            self.board[s as usize]
        }
    }

    /// Is `target` attacked by a piece of colour `by`?
    #[inline]
    pub fn attacked_by(&self, target: u16, by: Color) -> bool {
        self.attacked_ov(target, by, &Overlay::NONE)
    }

    /// The overlay that leaves out colour `c`'s piece that may capture anywhere on the board
    /// (tai's Emperor), if it has one: an attacker of every square, which attack counts usually
    /// leave out.
    pub fn without_universal(&self, c: Color) -> Overlay {
        let universal = self.plist[c.idx()].iter().copied().find(|&s| {
            self.v.types[cell_type(self.board[s as usize]) as usize].captures_anywhere()
        });
        Overlay { exclude: universal.unwrap_or(0), ..Overlay::NONE }
    }

    /// The squares of colour `c`'s pieces that the opponent attacks, leaving out the captures
    /// of a piece that may capture anywhere on the board (tai's Emperor), under which every
    /// piece would count: the pieces under a threat that a move of theirs may answer.
    pub fn threatened(&self, c: Color) -> Vec<u16> {
        let by = c.flip();
        let ov = self.without_universal(by);
        self.plist[c.idx()].iter().copied().filter(|&s| self.attacked_ov(s, by, &ov)).collect()
    }

    /// Is colour `c`'s single royal in check (check-rule variants)?
    #[inline]
    pub fn in_check_of(&self, c: Color) -> bool {
        let k = self.king[c.idx()];
        k != 0 && self.attacked_by(k, c.flip())
    }

    /// Is the side to move in check?
    #[inline]
    pub fn in_check(&self) -> bool {
        self.v.rules.check && self.in_check_of(self.side)
    }

    /// Attack query with an overlay.
    pub fn attacked_ov(&self, target: u16, by: Color, ov: &Overlay) -> bool {
        self.visit_attackers(target, by, ov, |_| true)
    }

    /// How many pieces of colour `by` could capture on `target` (with an overlay), each counted
    /// once, up to 32: the protectors of a piece of `by` standing there. A piece behind another
    /// on the same line (an x-ray) does not count.
    pub fn attackers_ov(&self, target: u16, by: Color, ov: &Overlay) -> usize {
        let mut seen = [0u16; 32];
        let mut n = 0;
        self.visit_attackers(target, by, ov, |s| {
            if n < seen.len() && !seen[..n].contains(&s) {
                seen[n] = s;
                n += 1;
            }
            false
        });
        n
    }

    /// Calls `found` with the square of each piece of colour `by` that could capture on
    /// `target` (a piece may be reported more than once), until it returns true; returns
    /// whether it did.
    #[inline(always)]
    fn visit_attackers(
        &self,
        target: u16,
        by: Color,
        ov: &Overlay,
        mut found: impl FnMut(u16) -> bool,
    ) -> bool {
        let v = &*self.v;
        let bi = by.idx();
        let by_bit = by.bit();
        // Lines: the first piece met backwards along each direction.
        for (di, &d) in v.dirs8.iter().enumerate() {
            let mut s = target as i16;
            let mut k: u8 = 0;
            loop {
                s -= d;
                k = k.saturating_add(1);
                let c = self.cell_ov(s as u16, ov);
                if c == EMPTY {
                    continue;
                }
                if c == WALL {
                    break;
                }
                if c & by_bit != 0 && s as u16 != ov.exclude {
                    let t = &v.types[cell_type(c) as usize];
                    if t.cap_range[bi][di] >= k && found(s as u16) {
                        return true;
                    }
                }
                break;
            }
        }
        // Leaps.
        for (d, types) in &v.leap_attacks[bi] {
            let s = target as i32 - *d as i32;
            if s < 0 || s as usize >= v.size {
                continue;
            }
            let c = self.cell_ov(s as u16, ov);
            if c != EMPTY
                && c != WALL
                && c & by_bit != 0
                && s as u16 != ov.exclude
                && types[cell_type(c) as usize]
                && found(s as u16)
            {
                return true;
            }
        }
        if v.any_complex {
            for &s in &self.plist[bi] {
                if s == ov.exclude || s == ov.empty[0] || s == ov.empty[1] {
                    continue;
                }
                let t = &v.types[cell_type(self.board[s as usize]) as usize];
                if t.complex && self.complex_reaches(s, by, target, ov) && found(s) {
                    return true;
                }
            }
        }
        false
    }

    /// Can the complex atoms of the piece on `from` (colour `by`) capture on `target`?
    fn complex_reaches(&self, from: u16, by: Color, target: u16, ov: &Overlay) -> bool {
        let v = &*self.v;
        let t = &v.types[cell_type(self.board[from as usize]) as usize];
        let g = &t.gen[by.idx()];
        let mut rides = g.rides.iter().filter(|r| r.min > 1 && r.mode.can_capture());
        if rides.any(|r| self.ride_reaches(from, r, target, ov)) {
            return true;
        }
        g.special.iter().any(|sp| match sp {
            Special::DblCap { d, second } => {
                let m = (from as i16 + d) as u16;
                let c = self.cell_ov(m, ov);
                let enemy = c != EMPTY && c != WALL && cell_color(c) != by;
                enemy && second.iter().any(|&d2| (m as i16 + d2) as u16 == target)
            }
            Special::RangeJump { d } => self.range_jump_reaches(from, *d, t.jump_rank, target, ov),
            Special::Area { steps } => self.area_reaches(from, *steps, target, ov),
            Special::Hook { d, turns } => self.hook_reaches(from, *d, turns, target, ov),
            Special::Emperor => true,
            _ => false,
        })
    }

    /// Does a ride with a minimum distance (skip slide) from `from` capture on `target`?
    #[inline]
    fn ride_reaches(&self, from: u16, r: &Ride, target: u16, ov: &Overlay) -> bool {
        let mut s = from as i16;
        for k in 1..=r.max {
            s += r.d;
            let c = self.cell_ov(s as u16, ov);
            if c == WALL {
                return false;
            }
            if k < r.min {
                continue;
            }
            if s as u16 == target {
                return true;
            }
            if c != EMPTY {
                return false;
            }
        }
        false
    }

    /// Does a range jump along `d` by a piece of jump rank `rank` reach `target` (it passes over
    /// pieces of lower rank)?
    #[inline]
    fn range_jump_reaches(&self, from: u16, d: i16, rank: u8, target: u16, ov: &Overlay) -> bool {
        let mut s = from as i16;
        loop {
            s += d;
            let c = self.cell_ov(s as u16, ov);
            if c == WALL {
                return false;
            }
            if s as u16 == target {
                return true;
            }
            if c != EMPTY && self.v.types[cell_type(c) as usize].jump_rank >= rank {
                return false;
            }
        }
    }

    /// Does a slide along `d` from `from`, or one that turns once into a direction of `turns`
    /// at an empty square of it (the hook mover), end on `target`?
    #[inline]
    fn hook_reaches(&self, from: u16, d: i16, turns: &[i16; 2], target: u16, ov: &Overlay) -> bool {
        self.slide(from as i16, d, ov).any(|(s, c)| {
            s == target
                || (c == EMPTY
                    && turns.iter().any(|&p| self.slide_reaches(s as i16, p, target, ov)))
        })
    }

    /// Does a slide along `d` that starts beyond `from` end on `target`?
    #[inline]
    fn slide_reaches(&self, from: i16, d: i16, target: u16, ov: &Overlay) -> bool {
        self.slide(from, d, ov).any(|(s, _)| s == target)
    }

    /// The squares of a slide along `d` beyond `from` with their cells: the empty ones, then
    /// the first piece met (which it may capture), never the board's edge.
    #[inline]
    fn slide(&self, from: i16, d: i16, ov: &Overlay) -> impl Iterator<Item = (u16, Cell)> + '_ {
        let (ov, mut s, mut blocked) = (*ov, from, false);
        std::iter::from_fn(move || {
            if blocked {
                return None;
            }
            s += d;
            let c = self.cell_ov(s as u16, &ov);
            blocked = c != EMPTY;
            (c != WALL).then_some((s as u16, c))
        })
    }

    /// Can an area move of up to `steps` king steps from `from` end on `target`?
    fn area_reaches(&self, from: u16, steps: u8, target: u16, ov: &Overlay) -> bool {
        let v = &*self.v;
        let mut frontier: [u16; 64] = [0; 64];
        let mut nf = 1;
        frontier[0] = from;
        let mut seen: [u16; 64] = [0; 64];
        let mut ns = 0;
        for _ in 0..steps {
            let mut next: [u16; 64] = [0; 64];
            let mut nn = 0;
            for &p in &frontier[..nf] {
                for &d in &v.dirs8 {
                    let s = (p as i16 + d) as u16;
                    if s == target {
                        return true;
                    }
                    let c = self.cell_ov(s, ov);
                    if (c == EMPTY || s == from) && !seen[..ns].contains(&s) && ns < 64 && nn < 64 {
                        seen[ns] = s;
                        ns += 1;
                        next[nn] = s;
                        nn += 1;
                    }
                }
            }
            frontier = next;
            nf = nn;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::Overlay;
    use crate::{Color, Position, Variant};

    #[test]
    fn a_rook_attacked_by_a_pawn_is_the_one_threatened_piece() {
        let v = Variant::builtin("shogi").expect("shogi is built in");
        let sfen = "lnsgkgsnl/1r5b1/ppppppppp/4R4/9/9/PPPPPPPPP/1B7/LNSGKGSNL b - 1";
        let pos = Position::from_sfen(&v, sfen).expect("a valid SFEN");
        let rook = v.parse_square("5d").expect("a square");
        assert_eq!(pos.threatened(Color::Black), [rook]);
        // the rook attacks the 5c pawn in turn
        let pawn = v.parse_square("5c").expect("a square");
        assert_eq!(pos.threatened(Color::White), [pawn]);
    }

    #[test]
    fn protectors_are_counted_once_each() {
        let v = Variant::builtin("shogi").expect("shogi is built in");
        let pos = Position::start(&v);
        let king = v.parse_square("5a").expect("a square");
        // the two golds beside it; the silvers and the rook do not reach 5a
        assert_eq!(pos.attackers_ov(king, Color::White, &Overlay::NONE), 2);
        assert_eq!(pos.attackers_ov(king, Color::Black, &Overlay::NONE), 0);
        // chu: a lion two squares below a pawn reaches it by its line and by its leap, and
        // counts once; the gold diagonally below it counts too
        let v = Variant::builtin("chu").expect("chu is built in");
        let sfen = "k11/12/12/12/12/5p6/6G5/5N6/12/12/12/11K b - 1";
        let pos = Position::from_sfen(&v, sfen).expect("a valid SFEN");
        let pawn = v.parse_square("7f").expect("a square");
        assert_eq!(pos.attackers_ov(pawn, Color::Black, &Overlay::NONE), 2);
        let gold = Overlay { exclude: v.parse_square("6g").expect("a square"), ..Overlay::NONE };
        assert_eq!(pos.attackers_ov(pawn, Color::Black, &gold), 1);
    }

    #[test]
    fn tai_emperor_captures_anywhere_but_threatens_nothing_at_the_start() {
        let v = Variant::builtin("tai").expect("tai is built in");
        let pos = Position::start(&v);
        let black = pos.pieces(Color::Black);
        // the Emperor may take any piece but a protected royal: nearly every piece is attacked
        let attacked = black.iter().filter(|&&s| pos.attacked_by(s, Color::White)).count();
        assert!(attacked + 2 >= black.len(), "{attacked} of {}", black.len());
        let threatened = pos.threatened(Color::Black);
        assert!(threatened.len() * 10 < black.len(), "{} of {}", threatened.len(), black.len());
    }
}
