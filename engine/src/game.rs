//! A game: a position plus its history, and the variant's game-end rules: checkmate and
//! stalemate, loss of every royal, bare king, repetition (with perpetual check or attacking
//! side), impasse declaration, and an optional ply cap. A side without a royal piece (a
//! tsume-shogi attacker) can be neither mated nor lose one; it still loses when it has no move.

use crate::movegen::Convention;
use crate::moves::{Move, MoveList};
use crate::position::{Position, Undo};
use crate::variant::{cell_color, cell_type, Color, ImpasseRule, RepetitionRule, EMPTY};
use std::fmt;

/// Declares [`Termination`] with its names, its list and the conversions, from one table.
macro_rules! terminations {
    ($($variant:ident => $name:literal,)*) => {
        /// How a game ended.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Termination {
            $($variant,)*
        }

        impl Termination {
            /// Every termination, in declaration order.
            pub const ALL: &'static [Termination] = &[$(Termination::$variant,)*];

            /// The name written in records (`royal-captured`, `ply-limit`, ...).
            pub fn as_str(&self) -> &'static str {
                match self {
                    $(Termination::$variant => $name,)*
                }
            }
        }
    };
}

terminations! {
    Checkmate => "checkmate",
    Stalemate => "stalemate",
    RoyalCaptured => "royal-captured",
    BareKing => "bare-king",
    Repetition => "repetition",
    PerpetualCheck => "perpetual-check",
    PerpetualAttack => "perpetual-attack",
    Impasse => "impasse",
    InsufficientMaterial => "insufficient-material",
    PlyLimit => "ply-limit",
    Resignation => "resignation",
    IllegalMove => "illegal-move",
}

impl Termination {
    /// The termination of a name written by [`Termination::as_str`].
    pub fn from_name(name: &str) -> Option<Termination> {
        Termination::ALL.iter().copied().find(|t| t.as_str() == name)
    }
}

/// Game state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Ongoing,
    Win(Color, Termination),
    Draw(Termination),
}

impl Status {
    pub fn is_over(&self) -> bool {
        *self != Status::Ongoing
    }
    /// Result from `c`'s point of view: 1 win, 0 draw, -1 loss (0 while ongoing).
    pub fn score_for(&self, c: Color) -> i8 {
        match self {
            Status::Win(w, _) if *w == c => 1,
            Status::Win(..) => -1,
            _ => 0,
        }
    }
    pub fn termination(&self) -> Option<Termination> {
        match self {
            Status::Ongoing => None,
            Status::Win(_, t) | Status::Draw(t) => Some(*t),
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = |c: &Color| if *c == Color::Black { "black" } else { "white" };
        match self {
            Status::Ongoing => write!(f, "ongoing"),
            Status::Win(c, t) => write!(f, "{} wins by {}", side(c), t.as_str()),
            Status::Draw(t) => write!(f, "draw by {}", t.as_str()),
        }
    }
}

/// One ply of history.
#[derive(Clone, Copy, Debug)]
struct Ply {
    /// Hash of the position before the move.
    hash_before: u64,
    undo: Undo,
    /// The move gave check (check-rule variants) or attacked a royal.
    check: bool,
    /// The move was "attacking" (lishogi chu rule).
    attacking: bool,
}

/// A game in progress.
#[derive(Clone)]
pub struct Game {
    pos: Position,
    history: Vec<Ply>,
    /// Occurrences of each position hash before the current one (history), for repetition.
    seen_counts: std::collections::HashMap<u64, u32>,
    status: Status,
    /// Draw when this many plies have been played (0 = no cap).
    pub max_plies: u32,
    /// Legal moves of the current position (game rules applied).
    legal: MoveList,
    scratch: MoveList,
}

impl Game {
    pub fn new(pos: Position) -> Game {
        let mut g = Game {
            pos,
            history: Vec::new(),
            seen_counts: std::collections::HashMap::new(),
            status: Status::Ongoing,
            max_plies: 0,
            legal: MoveList::with_capacity(256),
            scratch: MoveList::with_capacity(256),
        };
        g.refresh();
        g
    }

    #[inline]
    pub fn position(&self) -> &Position {
        &self.pos
    }
    #[inline]
    pub fn status(&self) -> Status {
        self.status
    }
    /// Plies played in this game.
    pub fn plies(&self) -> usize {
        self.history.len()
    }
    /// Moves played so far.
    pub fn moves(&self) -> impl Iterator<Item = Move> + '_ {
        self.history.iter().map(|p| p.undo.mv)
    }
    /// Hashes of the positions before the current one, oldest first (for searches that must
    /// recognise repetitions).
    pub fn position_hashes(&self) -> impl Iterator<Item = u64> + '_ {
        self.history.iter().map(|p| p.hash_before)
    }

    /// Legal moves of the current position under the game rules (cached; empty once over
    /// by royal capture).
    pub fn legal(&self) -> &[Move] {
        &self.legal
    }

    /// Set the ply cap (draw when reached) and re-evaluate the status.
    pub fn set_max_plies(&mut self, n: u32) {
        self.max_plies = n;
        self.refresh();
    }

    /// Parse a USI move and check it against the game rules (repetition included).
    pub fn parse_usi(&self, s: &str) -> crate::Result<Move> {
        if self.status.is_over() {
            return Err(crate::EngineError::Illegal {
                input: s.to_string(),
                reason: format!("the game is already over ({})", self.status),
            });
        }
        let m = self.pos.parse_usi(s)?;
        if !self.legal.contains(&m) {
            return Err(crate::EngineError::Illegal {
                input: s.to_string(),
                reason: "it would repeat an earlier position, which this variant forbids".into(),
            });
        }
        Ok(m)
    }

    /// Legal moves in this game (the position's, minus repetitions the variant forbids).
    pub fn legal_moves(&mut self, out: &mut MoveList) {
        self.legal_moves_conv(out, Convention::Distinct);
    }

    pub fn legal_moves_conv(&mut self, out: &mut MoveList, conv: Convention) {
        let start = out.len();
        self.pos.legal_moves_conv(out, conv);
        if self.pos.v.rules.repetition == RepetitionRule::Forbidden && !self.history.is_empty() {
            let mut w = start;
            for r in start..out.len() {
                let m = out[r];
                let u = self.pos.play(m);
                let h = self.pos.hash();
                self.pos.unplay(&u);
                if !self.seen(h) {
                    out[w] = m;
                    w += 1;
                }
            }
            out.truncate(w);
        }
    }

    fn seen(&self, h: u64) -> bool {
        self.seen_counts.contains_key(&h) || self.pos.hash() == h
    }

    /// Play a legal move (not checked here; use `Position::parse_usi` or `legal_moves`).
    pub fn play(&mut self, m: Move) {
        let hash_before = self.pos.hash();
        let mover = self.pos.side_to_move();
        let undo = self.pos.play(m);
        let track_check = self.pos.v.rules.repetition == RepetitionRule::PerpetualCheckLoses;
        let track_attack = self.pos.v.rules.repetition == RepetitionRule::AttackerLoses;
        let check = track_check && self.gives_check(mover);
        let attacking =
            track_attack && (self.gives_check(mover) || self.moved_piece_attacks(&undo, mover));
        self.history.push(Ply { hash_before, undo, check, attacking });
        *self.seen_counts.entry(hash_before).or_insert(0) += 1;
        self.refresh();
    }

    fn refresh(&mut self) {
        self.status = self.compute_status();
        if self.status.is_over() {
            self.legal.clear();
        }
    }

    /// Undo the last move.
    pub fn unplay(&mut self) -> Option<Move> {
        let p = self.history.pop()?;
        if let Some(c) = self.seen_counts.get_mut(&p.hash_before) {
            *c -= 1;
            if *c == 0 {
                self.seen_counts.remove(&p.hash_before);
            }
        }
        self.pos.unplay(&p.undo);
        self.refresh();
        Some(p.undo.mv)
    }

    /// End the game by resignation of `loser`.
    pub fn resign(&mut self, loser: Color) {
        self.status = Status::Win(loser.flip(), Termination::Resignation);
    }

    /// Any royal of `mover`'s opponent attacked?
    fn gives_check(&self, mover: Color) -> bool {
        let them = mover.flip();
        self.pos.royal_squares(them).any(|s| self.pos.attacked_by(s, mover))
    }

    /// Does the piece that moved attack an enemy piece from its new square?
    fn moved_piece_attacks(&mut self, u: &Undo, mover: Color) -> bool {
        let m = u.mv;
        let sq = m.to;
        let c = self.pos.cell(sq);
        if c == EMPTY || cell_color(c) != mover {
            return false;
        }
        let them = mover.flip();
        let pos = &self.pos;
        pos.pieces(them)
            .iter()
            .any(|&t| pos.piece_attacks_from(sq, c, t, &crate::attack::Overlay::NONE))
            || {
                // complex movers: ask the generator
                let v = pos.variant();
                v.types[cell_type(c) as usize].complex && {
                    let mut tmp = pos.clone();
                    tmp.set_side(mover);
                    self.scratch.clear();
                    tmp.pseudo_moves(&mut self.scratch, Convention::Distinct);
                    self.scratch.iter().any(|mm| {
                        !mm.is_drop()
                            && mm.from == sq
                            && (mm.mids().chain(std::iter::once(mm.to)).any(|s| {
                                let cc = tmp.cell(s);
                                cc != EMPTY && cell_color(cc) == them
                            }))
                    })
                }
            }
    }

    fn compute_status(&mut self) -> Status {
        let v = std::sync::Arc::clone(self.pos.variant());
        let us = self.pos.side_to_move();
        let them = us.flip();
        let mut list = std::mem::take(&mut self.legal);
        list.clear();
        self.legal_moves(&mut list);
        let no_moves = list.is_empty();
        self.legal = list;
        if !v.rules.check {
            if let Some(s) = self.royal_capture_status() {
                return s;
            }
            if v.rules.bare_king {
                if self.bared(us) {
                    return Status::Win(them, Termination::BareKing);
                }
                if self.bared(them) {
                    return Status::Win(us, Termination::BareKing);
                }
            }
        }
        if no_moves {
            let t =
                if self.pos.in_check() { Termination::Checkmate } else { Termination::Stalemate };
            return Status::Win(them, t);
        }
        if let Some(s) = self.repetition_status() {
            return s;
        }
        if v.rules.impasse == ImpasseRule::Declaration27 && self.impasse_declaration(us) {
            return Status::Win(us, Termination::Impasse);
        }
        if v.rules.bare_king && self.two_bare_royals() {
            return Status::Draw(Termination::InsufficientMaterial);
        }
        if v.rules.check && self.only_kings() {
            return Status::Draw(Termination::InsufficientMaterial);
        }
        if self.max_plies > 0 && self.history.len() as u32 >= self.max_plies {
            return Status::Draw(Termination::PlyLimit);
        }
        Status::Ongoing
    }

    /// Royal capture (variants without the check rule): a side loses when the last move
    /// removed its last royal piece. The mover wins if the side to move lost its last royal,
    /// even if the mover lost its own on the same move (burned). A side that has no royal
    /// without having lost one on the last move (a tsume attacker) has nothing to lose.
    fn royal_capture_status(&self) -> Option<Status> {
        let last = &self.history.last()?.undo;
        let types = &self.pos.v.types;
        let lost = |c: Color| {
            self.pos.royal_count(c) == 0
                && last
                    .removed()
                    .any(|(_, cell)| cell_color(cell) == c && types[cell_type(cell) as usize].royal)
        };
        let us = self.pos.side_to_move();
        if lost(us) {
            Some(Status::Win(us.flip(), Termination::RoyalCaptured))
        } else if lost(us.flip()) {
            Some(Status::Win(us, Termination::RoyalCaptured))
        } else {
            None
        }
    }

    fn repetition_status(&self) -> Option<Status> {
        let rule = self.pos.v.rules.repetition;
        if rule == RepetitionRule::Forbidden {
            return None;
        }
        let h = self.pos.hash();
        let count = 1 + self.seen_counts.get(&h).copied().unwrap_or(0) as usize;
        if count < self.pos.v.rules.repetition_count as usize {
            return None;
        }
        // The cycle: from the first occurrence of this position to now.
        let first = self.history.iter().position(|p| p.hash_before == h).unwrap_or(0);
        let cycle = &self.history[first..];
        let n = self.history.len();
        // Ply i (0-based in history) was played by the side to move at game start if i is even
        // relative to the current side: the last ply was played by the opponent of `us`.
        let us = self.pos.side_to_move();
        let by = |i: usize| if (n - 1 - i).is_multiple_of(2) { us.flip() } else { us };
        let all_of = |c: Color, f: &dyn Fn(&Ply) -> bool| {
            let mut any = false;
            for (k, p) in cycle.iter().enumerate() {
                if by(first + k) == c {
                    any = true;
                    if !f(p) {
                        return false;
                    }
                }
            }
            any
        };
        match rule {
            RepetitionRule::PerpetualCheckLoses => {
                for c in [us.flip(), us] {
                    if all_of(c, &|p: &Ply| p.check) {
                        return Some(Status::Win(c.flip(), Termination::PerpetualCheck));
                    }
                }
                Some(Status::Draw(Termination::Repetition))
            }
            RepetitionRule::AttackerLoses => {
                let a = all_of(us, &|p: &Ply| p.attacking);
                let b = all_of(us.flip(), &|p: &Ply| p.attacking);
                if a && !b {
                    Some(Status::Win(us.flip(), Termination::PerpetualAttack))
                } else if b && !a {
                    Some(Status::Win(us, Termination::PerpetualAttack))
                } else {
                    Some(Status::Draw(Termination::Repetition))
                }
            }
            _ => Some(Status::Draw(Termination::Repetition)),
        }
    }

    /// A dead piece: unpromoted and unable to ever move from where it stands.
    fn is_dead(&self, sq: u16) -> bool {
        let c = self.pos.cell(sq);
        let t = &self.pos.v.types[cell_type(c) as usize];
        !t.promoted && t.stuck[cell_color(c).idx()][sq as usize]
    }

    /// Chu bare-king rule (shared/rules/chu.md 7, item 2): is `c` bared?
    fn bared(&self, c: Color) -> bool {
        let pos = &self.pos;
        let v = &pos.v;
        let o = c.flip();
        let live: Vec<u16> = pos.pieces(c).iter().copied().filter(|&s| !self.is_dead(s)).collect();
        if live.len() != 1 || !v.types[cell_type(pos.cell(live[0])) as usize].royal {
            return false;
        }
        let lone = live[0];
        if pos.royal_count(o) == 0 {
            return false;
        }
        let countable: Vec<u16> = pos
            .pieces(o)
            .iter()
            .copied()
            .filter(|&s| !v.types[cell_type(pos.cell(s)) as usize].minor && !self.is_dead(s))
            .collect();
        if countable.len() <= 1 {
            return false;
        }
        if pos.royal_squares(o).any(|s| pos.attacked_by(s, c)) {
            return false;
        }
        if countable.len() > 2 {
            return true;
        }
        let (lx, ly) = v.xy(lone);
        !countable.iter().any(|&s| {
            let (x, y) = v.xy(s);
            (x - lx).abs().max((y - ly).abs()) == 1
        })
    }

    /// Exactly two live pieces, one royal each, neither attacked.
    fn two_bare_royals(&self) -> bool {
        let pos = &self.pos;
        let v = &pos.v;
        for c in [Color::Black, Color::White] {
            let live: Vec<u16> =
                pos.pieces(c).iter().copied().filter(|&s| !self.is_dead(s)).collect();
            if live.len() != 1 || !v.types[cell_type(pos.cell(live[0])) as usize].royal {
                return false;
            }
            if pos.attacked_by(live[0], c.flip()) {
                return false;
            }
        }
        true
    }

    /// Each side has exactly one piece on the board, its king, and nothing in hand (a lone
    /// king against a lone other piece is not this: a side without a king may still mate).
    fn only_kings(&self) -> bool {
        let pos = &self.pos;
        pos.pieces(Color::Black).len() == 1
            && pos.pieces(Color::White).len() == 1
            && pos.royal_count(Color::Black) == 1
            && pos.royal_count(Color::White) == 1
            && (0..pos.v.max_hand)
                .all(|h| pos.hand(Color::Black, h) == 0 && pos.hand(Color::White, h) == 0)
    }

    /// 27-point declaration (shared/rules/shogi.md 7.2): does `c` satisfy it now?
    pub fn impasse_declaration(&self, c: Color) -> bool {
        let pos = &self.pos;
        let v = &pos.v;
        let k = pos.king[c.idx()];
        if k == 0 || !v.zone[c.idx()][k as usize] || pos.in_check_of(c) {
            return false;
        }
        let mut in_zone = 0;
        let mut points = 0u32;
        for &s in pos.pieces(c) {
            if s == k || !v.zone[c.idx()][s as usize] {
                continue;
            }
            in_zone += 1;
            points += v.types[cell_type(pos.cell(s)) as usize].impasse_points as u32;
        }
        for (h, &t) in v.hand_types.iter().enumerate() {
            points += pos.hand(c, h) as u32 * v.types[t as usize].impasse_points as u32;
        }
        let need = if c == Color::Black { 28 } else { 27 };
        in_zone >= 10 && points >= need
    }
}

#[cfg(test)]
mod tests {
    use super::Termination;

    #[test]
    fn every_termination_reads_back_from_its_name() {
        for &t in Termination::ALL {
            assert_eq!(Termination::from_name(t.as_str()), Some(t));
        }
        assert_eq!(Termination::from_name("none"), None);
    }
}
