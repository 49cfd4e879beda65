//! USI move notation, as lishogi writes it: `7g7f`, `8h2b+`, `P*5e`; lion-power moves with
//! their stops, `7g6f5e` (hit and run / double capture), `8i8j8i` (igui), `3i4i3i` (pass); lion
//! dog three-stop moves `o s1 s2 s1`. Squares are file number + rank letter, files 1..25,
//! ranks a..y. Burns and suicides are consequences, never written.

use crate::error::{EngineError, Result};
use crate::movegen::Convention;
use crate::moves::{Move, MoveList};
use crate::position::Position;
use crate::variant::{cell_color, cell_type, Variant, EMPTY};

/// A syntactically valid USI move, before legality.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsiMove {
    pub squares: Vec<u16>,
    pub promote: bool,
    pub drop: Option<u16>,
}

/// Parse the syntax of a USI move for a variant (no legality check).
pub fn parse_syntax(v: &Variant, s: &str) -> Result<UsiMove> {
    if s.is_empty() {
        return Err(EngineError::usi(s, "empty move"));
    }
    if !s.is_ascii() {
        return Err(EngineError::usi(s, "non-ASCII characters"));
    }
    if let Some((piece, sq)) = s.split_once('*') {
        if !v.rules.drops {
            return Err(EngineError::usi(s, format!("{} has no drops", v.name)));
        }
        let code = piece.trim_start_matches('{').trim_end_matches('}');
        let t = v.token_type(code).filter(|&t| v.types[t as usize].hand.is_some()).ok_or_else(
            || EngineError::usi(s, format!("{piece:?} is not a piece that can be dropped")),
        )?;
        let to = v.parse_square(sq).ok_or_else(|| {
            EngineError::usi(
                s,
                format!("{sq:?} is not a square of the {}x{} board", v.files, v.ranks),
            )
        })?;
        return Ok(UsiMove { squares: vec![to], promote: false, drop: Some(t) });
    }
    let (body, promote) = match s.as_bytes()[s.len() - 1] {
        b'+' => (&s[..s.len() - 1], true),
        b'=' | b'?' => (&s[..s.len() - 1], false),
        _ => (s, false),
    };
    let b = body.as_bytes();
    let mut squares = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start || i - start > 2 || i >= b.len() || !b[i].is_ascii_lowercase() {
            return Err(EngineError::usi(s, "expected squares like 7g or 12l"));
        }
        i += 1;
        let name = &body[start..i];
        let sq = v.parse_square(name).ok_or_else(|| {
            EngineError::usi(
                s,
                format!("{name:?} is not a square of the {}x{} board", v.files, v.ranks),
            )
        })?;
        squares.push(sq);
    }
    if squares.len() < 2 || squares.len() > 4 {
        return Err(EngineError::usi(s, "a move has 2 to 4 squares"));
    }
    if squares.len() == 2 && squares[0] == squares[1] {
        return Err(EngineError::usi(
            s,
            "a move must leave its square (a pass names its mid-square)",
        ));
    }
    Ok(UsiMove { squares, promote, drop: None })
}

impl Position {
    /// Write a move in USI notation.
    pub fn move_to_usi(&self, m: Move) -> String {
        move_to_usi(&self.v, m)
    }

    /// Parse a USI move and return the legal move it denotes (in the default convention), or an
    /// error saying why it is malformed or illegal.
    pub fn parse_usi(&self, s: &str) -> Result<Move> {
        let u = parse_syntax(&self.v, s)?;
        let cand = match u.drop {
            Some(t) => Move::drop(t, u.squares[0]),
            None => {
                let n = u.squares.len();
                let mut mid = [0u16; 2];
                for (k, &m) in u.squares[1..n - 1].iter().enumerate() {
                    mid[k] = m;
                }
                Move {
                    from: u.squares[0],
                    to: u.squares[n - 1],
                    mid,
                    flags: if u.promote { Move::PROMOTE } else { 0 },
                }
            }
        };
        let mut all = MoveList::with_capacity(256);
        self.legal_moves_conv(&mut all, Convention::Lishogi);
        let mut distinct = MoveList::with_capacity(256);
        self.legal_moves(&mut distinct);
        if all.contains(&cand) || distinct.contains(&self.canonical(cand)) {
            let c = self.canonical(cand);
            if c.returns() && c.mids().all(|s| self.board[s as usize] == EMPTY) {
                if let Some(p) = distinct.iter().find(|m| {
                    m.returns()
                        && m.from == c.from
                        && m.mids().all(|s| self.board[s as usize] == EMPTY)
                }) {
                    if all.contains(&cand) || self.is_adjacent(c.from, c.mid[0]) {
                        return Ok(*p);
                    }
                }
            } else if distinct.contains(&c) {
                return Ok(c);
            }
        }
        Err(EngineError::Illegal { input: s.to_string(), reason: self.illegal_reason(cand) })
    }

    fn is_adjacent(&self, a: u16, b: u16) -> bool {
        let (ax, ay) = self.v.xy(a);
        let (bx, by) = self.v.xy(b);
        (ax - bx).abs().max((ay - by).abs()) == 1
    }

    /// The default-convention form of a move: intermediate stops on empty squares dropped
    /// (except the mid-square of a pass).
    pub fn canonical(&self, m: Move) -> Move {
        if m.is_drop() || m.returns() {
            return m;
        }
        let mut out = m;
        let mut k = 0;
        out.mid = [0, 0];
        for s in m.mids() {
            if self.board[s as usize] != EMPTY {
                out.mid[k] = s;
                k += 1;
            }
        }
        out
    }

    /// Why the drop `m` is not legal here.
    fn illegal_drop_reason(&self, m: Move) -> String {
        let v = &*self.v;
        let us = self.side;
        let sq = |s: u16| v.square_name(s);
        let t = &v.types[m.drop_type() as usize];
        let h = t.hand.unwrap_or(0) as usize;
        if self.hands[us.idx()][h] == 0 {
            return format!("no {} in hand", t.name);
        }
        if self.board[m.to as usize] != EMPTY {
            return format!("{} is occupied", sq(m.to));
        }
        if t.stuck[us.idx()][m.to as usize] {
            return format!("a {} dropped on {} could never move", t.name, sq(m.to));
        }
        if t.nifu && self.nifu_files[us.idx()][v.xy(m.to).0 as usize] > 0 {
            return format!("nifu: an unpromoted {} already stands on this file", t.name);
        }
        let mut p = MoveList::new();
        self.pseudo_moves(&mut p, Convention::Distinct);
        if p.contains(&m) && self.in_check() {
            return "the king is in check and the drop does not parry it".into();
        }
        if t.no_drop_mate {
            return format!("uchifuzume: a {} drop may not give mate", t.name);
        }
        "illegal drop".into()
    }

    /// A human-readable reason why `m` is not legal here.
    pub fn illegal_reason(&self, m: Move) -> String {
        let v = &*self.v;
        let us = self.side;
        let sq = |s: u16| v.square_name(s);
        if m.is_drop() {
            return self.illegal_drop_reason(m);
        }
        let c = self.board[m.from as usize];
        if c == EMPTY {
            return format!("no piece on {}", sq(m.from));
        }
        if cell_color(c) != us {
            return format!("the piece on {} belongs to the opponent", sq(m.from));
        }
        let t = &v.types[cell_type(c) as usize];
        let mut p = MoveList::new();
        self.pseudo_moves_opts(&mut p, Convention::Lishogi, false);
        let cm = self.canonical(m);
        let in_pseudo = p.contains(&m) || p.contains(&cm);
        let mut legal = MoveList::new();
        self.pseudo_moves(&mut legal, Convention::Lishogi);
        let in_shape = legal.contains(&m) || legal.contains(&cm);
        if in_pseudo && !in_shape {
            return format!("the {} may not capture that lion (lion-trading rules)", t.name);
        }
        if in_shape {
            if v.rules.check {
                return "leaves the own king in check".into();
            }
            return "forbidden here".into();
        }
        let flipped = Move { flags: m.flags ^ Move::PROMOTE, ..cm };
        if p.contains(&flipped) {
            return if m.promotes() {
                format!("the {} may not promote on this move", t.name)
            } else {
                format!("the {} must promote on this move", t.name)
            };
        }
        format!("the {} on {} cannot move like that", t.name, sq(m.from))
    }
}

/// Write a move in USI notation.
pub fn move_to_usi(v: &Variant, m: Move) -> String {
    if m.is_drop() {
        let t = &v.types[m.drop_type() as usize];
        return format!("{}*{}", t.token, v.square_name(m.to));
    }
    let mut s = v.square_name(m.from);
    for mid in m.mids() {
        s.push_str(&v.square_name(mid));
    }
    s.push_str(&v.square_name(m.to));
    if m.promotes() {
        s.push('+');
    }
    s
}

/// Play a whole USI move list on a position, returning the first error with its ply (1-based).
pub fn play_usi_line(
    pos: &mut Position,
    moves: &[&str],
) -> std::result::Result<(), (usize, EngineError)> {
    for (i, mv) in moves.iter().enumerate() {
        let m = pos.parse_usi(mv).map_err(|e| (i + 1, e))?;
        pos.play(m);
    }
    Ok(())
}
