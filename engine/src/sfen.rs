//! SFEN reading and writing, as lishogi writes it for shogi and chushogi, extended for the
//! large variants: one-letter codes bare, longer codes in braces (`{LGN}`), `+` before the code
//! of the front side for promoted pieces, extra aliases (HaChu tokens such as `C!`) on input.
//!
//! Fields: `<board> <side> <third> <move number>`. The third field holds the hands in variants
//! with drops, the counter-strike square in chu (lion trading), and `-` otherwise. The move
//! number may be omitted (1), and so may the third field. A side may have no royal piece
//! (tsume-shogi problems); with the check rule a side may not have more than one.

use crate::error::{EngineError, Result};
use crate::position::Position;
use crate::variant::{cell_color, cell_type, piece_cell, Color, StuckRule, TypeId, Variant, EMPTY};
use std::sync::Arc;

impl Position {
    /// Parse an SFEN string for variant `v`.
    pub fn from_sfen(v: &Arc<Variant>, sfen: &str) -> Result<Position> {
        parse(Arc::clone(v), sfen)
    }

    /// The start position of a variant. Every loaded variant's start SFEN parses
    /// ([`Variant::compile`] checks it), so the empty board returned otherwise is never seen.
    pub fn start(v: &Arc<Variant>) -> Position {
        Position::from_sfen(v, &v.spec.start).unwrap_or_else(|_| Position::empty(Arc::clone(v)))
    }

    /// Write the position as SFEN.
    pub fn to_sfen(&self) -> String {
        let v = &self.v;
        let mut out = String::new();
        for y in 0..v.ranks as i16 {
            if y > 0 {
                out.push('/');
            }
            let mut empty = 0;
            for x in 0..v.files as i16 {
                let c = self.board[v.sq(x, y) as usize];
                if c == EMPTY {
                    empty += 1;
                    continue;
                }
                if empty > 0 {
                    out.push_str(&empty.to_string());
                    empty = 0;
                }
                let tok = &v.types[cell_type(c) as usize].token;
                if cell_color(c) == Color::White {
                    out.push_str(&tok.to_ascii_lowercase());
                } else {
                    out.push_str(tok);
                }
            }
            if empty > 0 {
                out.push_str(&empty.to_string());
            }
        }
        out.push(' ');
        out.push(if self.side == Color::Black { 'b' } else { 'w' });
        out.push(' ');
        out.push_str(&self.third_field());
        out.push(' ');
        out.push_str(&self.ply.to_string());
        out
    }

    fn third_field(&self) -> String {
        let v = &self.v;
        if v.rules.drops {
            let mut s = String::new();
            for c in [Color::Black, Color::White] {
                for (h, &t) in v.hand_types.iter().enumerate() {
                    let n = self.hands[c.idx()][h];
                    if n == 0 {
                        continue;
                    }
                    if n > 1 {
                        s.push_str(&n.to_string());
                    }
                    let tok = &v.types[t as usize].token;
                    s.push_str(&if c == Color::White {
                        tok.to_ascii_lowercase()
                    } else {
                        tok.clone()
                    });
                }
            }
            if s.is_empty() {
                "-".into()
            } else {
                s
            }
        } else if self.lion_sq != 0 {
            v.square_name(self.lion_sq)
        } else {
            "-".into()
        }
    }
}

/// Board tokens of one rank: (x, cell) pairs; errors name the rank.
fn parse_rank(v: &Variant, input: &str, rank: &str, y: usize) -> Result<Vec<(i16, u16)>> {
    let rank_name = (b'a' + y as u8) as char;
    let bad = |msg: String| EngineError::sfen(input, format!("rank {rank_name} ({rank:?}): {msg}"));
    let cs: Vec<char> = rank.chars().collect();
    let mut i = 0;
    let mut x: i16 = 0;
    let mut out = Vec::new();
    while i < cs.len() {
        if cs[i].is_ascii_digit() {
            x += empty_run(&cs, &mut i).map_err(bad)?;
            continue;
        }
        let promoted = cs[i] == '+';
        if promoted {
            i += 1;
        }
        let (code, white) = piece_code(&cs, &mut i).map_err(bad)?;
        let t = piece_type(v, &code, promoted).map_err(bad)?;
        if x >= v.files as i16 {
            return Err(bad(format!("more than {} files", v.files)));
        }
        let col = if white { Color::White } else { Color::Black };
        out.push((x, piece_cell(col, t)));
        x += 1;
    }
    if x != v.files as i16 {
        return Err(bad(format!("{x} files instead of {}", v.files)));
    }
    Ok(out)
}

/// A run of empty squares (`12`) from `cs[*i]` on: its length, 1 to 64.
fn empty_run(cs: &[char], i: &mut usize) -> std::result::Result<i16, String> {
    let mut n = 0u32;
    while *i < cs.len() && cs[*i].is_ascii_digit() {
        n = n * 10 + cs[*i].to_digit(10).unwrap_or(0);
        *i += 1;
        if n > 64 {
            return Err("run of empty squares is too long".into());
        }
    }
    if n == 0 {
        return Err("empty-square count 0".into());
    }
    Ok(n as i16)
}

/// A piece code from `cs[*i]` on (`P`, `n'`, `C!`, `{LGN}`) and whether it is White's.
fn piece_code(cs: &[char], i: &mut usize) -> std::result::Result<(String, bool), String> {
    match cs.get(*i) {
        Some('{') => braced_code(cs, i),
        Some(c) if c.is_ascii_alphabetic() => {
            let mut code = c.to_string();
            *i += 1;
            if let Some(&mark @ ('\'' | '!')) = cs.get(*i) {
                code.push(mark);
                *i += 1;
            }
            let white = c.is_ascii_lowercase();
            Ok((code, white))
        }
        Some(c) => Err(format!("unexpected character {c:?}")),
        None => Err("'+' at the end of the rank".into()),
    }
}

/// A code in braces (`{LGN}`, `{lgn}`) from the `{` at `cs[*i]`: one case throughout.
fn braced_code(cs: &[char], i: &mut usize) -> std::result::Result<(String, bool), String> {
    let end = cs[*i..].iter().position(|&c| c == '}').map(|p| p + *i);
    let end = end.ok_or("unclosed '{'")?;
    let code: String = cs[*i + 1..end].iter().collect();
    *i = end + 1;
    if code.is_empty() || !code.chars().all(|c| c.is_ascii_alphanumeric()) {
        return Err(format!("bad piece code {{{code}}}"));
    }
    let lower = code.chars().any(|c| c.is_ascii_lowercase());
    let upper = code.chars().any(|c| c.is_ascii_uppercase());
    if lower && upper {
        return Err(format!("piece code {{{code}}} mixes upper and lower case"));
    }
    Ok((code, lower))
}

/// The piece type of a code, promoted when the code followed a `+`.
fn piece_type(v: &Variant, code: &str, promoted: bool) -> std::result::Result<TypeId, String> {
    let t =
        v.token_type(code).ok_or_else(|| format!("unknown piece code {code:?} in {}", v.name))?;
    if !promoted {
        return Ok(t);
    }
    let kind = &v.types[t as usize];
    kind.promotes_to.ok_or_else(|| format!("piece {code:?} ({}) cannot be promoted", kind.name))
}

/// Parse and check the board field; returns the pieces as (x, y, cell).
fn check_board(v: &Variant, input: &str) -> Result<Vec<(i16, i16, u16)>> {
    let board = input.split_whitespace().next().ok_or_else(|| EngineError::sfen(input, "empty"))?;
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != v.ranks as usize {
        return Err(EngineError::sfen(
            input,
            format!("{} ranks instead of {} for {}", ranks.len(), v.ranks, v.name),
        ));
    }
    let mut pieces = Vec::new();
    for (y, r) in ranks.iter().enumerate() {
        for (x, cell) in parse_rank(v, input, r, y)? {
            pieces.push((x, y as i16, cell));
        }
    }
    let mut royals = [0, 0];
    let mut nifu = [[0u8; 32]; 2];
    for &(x, y, cell) in &pieces {
        let t = &v.types[cell_type(cell) as usize];
        let c = cell_color(cell);
        royals[c.idx()] += t.royal as usize;
        if t.nifu {
            nifu[c.idx()][x as usize] += 1;
            if nifu[c.idx()][x as usize] > 1 && v.rules.drops {
                return Err(EngineError::sfen(
                    input,
                    format!(
                        "two unpromoted {}s of one side on file {} (nifu)",
                        t.name,
                        v.files as i16 - x
                    ),
                ));
            }
        }
        let strict = v.rules.drops || v.rules.stuck == StuckRule::Forced;
        if strict && !t.promoted && t.stuck[c.idx()][v.sq(x, y) as usize] {
            return Err(EngineError::sfen(
                input,
                format!(
                    "{} {} on {} can never move (a last-rank piece must have promoted)",
                    if c == Color::Black { "Black" } else { "White" },
                    t.name,
                    v.square_name(v.sq(x, y))
                ),
            ));
        }
    }
    if v.rules.check {
        check_royal_counts(v, input, royals)?;
    }
    Ok(pieces)
}

/// The check rule needs at most one royal a side. A side without one is allowed (tsume-shogi
/// problems give the attacker no king): it can never be in check or be mated.
fn check_royal_counts(v: &Variant, input: &str, royals: [usize; 2]) -> Result<()> {
    for c in [Color::Black, Color::White] {
        let n = royals[c.idx()];
        if n > 1 {
            let side = if c == Color::Black { "Black" } else { "White" };
            let msg = format!("{side} has {n} kings; {} allows at most one", v.name);
            return Err(EngineError::sfen(input, msg));
        }
    }
    Ok(())
}

fn parse(v: Arc<Variant>, input: &str) -> Result<Position> {
    let fields: Vec<&str> = input.split_whitespace().collect();
    if fields.is_empty() {
        return Err(EngineError::sfen(input, "empty string"));
    }
    if fields.len() > 4 {
        return Err(EngineError::sfen(
            input,
            format!("{} fields; at most 4 expected", fields.len()),
        ));
    }
    let pieces = check_board(&v, input)?;
    let mut pos = Position::empty(Arc::clone(&v));
    for (x, y, cell) in pieces {
        pos.put(v.sq(x, y), cell);
    }
    let side = match fields.get(1).copied().unwrap_or("b") {
        "b" => Color::Black,
        "w" => Color::White,
        o => return Err(EngineError::sfen(input, format!("side to move {o:?}: expected b or w"))),
    };
    pos.set_side(side);
    if let Some(&third) = fields.get(2) {
        if v.rules.drops {
            parse_hands(&mut pos, input, third)?;
        } else if third != "-" {
            if !v.rules.lion_trading {
                return Err(EngineError::sfen(
                    input,
                    format!("third field {third:?}: {} has no hands; expected -", v.name),
                ));
            }
            let sq = v.parse_square(third).ok_or_else(|| {
                EngineError::sfen(input, format!("third field {third:?}: expected - or a square"))
            })?;
            pos.set_lion_square(sq);
        }
    }
    if let Some(&n) = fields.get(3) {
        let n: u32 = n.parse().ok().filter(|&n| n >= 1).ok_or_else(|| {
            EngineError::sfen(input, format!("move number {n:?}: expected a positive integer"))
        })?;
        pos.ply = n;
    }
    if v.rules.check && pos.in_check_of(side.flip()) {
        return Err(EngineError::sfen(input, "the side not to move is in check"));
    }
    Ok(pos)
}

fn parse_hands(pos: &mut Position, input: &str, s: &str) -> Result<()> {
    if s == "-" {
        return Ok(());
    }
    let v = Arc::clone(&pos.v);
    let cs: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < cs.len() {
        let mut n: u32 = 0;
        let mut has_n = false;
        while i < cs.len() && cs[i].is_ascii_digit() {
            n = n * 10 + cs[i].to_digit(10).unwrap_or(0);
            has_n = true;
            i += 1;
            if n > 40 {
                return Err(EngineError::sfen(input, format!("hands {s:?}: count too large")));
            }
        }
        if has_n && n == 0 {
            return Err(EngineError::sfen(input, format!("hands {s:?}: count 0")));
        }
        let n = if has_n { n } else { 1 };
        let Some(&c) = cs.get(i) else {
            return Err(EngineError::sfen(input, format!("hands {s:?}: count without a piece")));
        };
        i += 1;
        let t = v.token_type(&c.to_string()).filter(|&t| v.types[t as usize].hand.is_some());
        let Some(t) = t else {
            return Err(EngineError::sfen(
                input,
                format!("hands {s:?}: {c:?} is not a piece that can be in hand"),
            ));
        };
        let col = if c.is_ascii_lowercase() { Color::White } else { Color::Black };
        let h = v.types[t as usize].hand.unwrap_or(0) as usize;
        let total = pos.hands[col.idx()][h] as u32 + n;
        pos.set_hand_count(col, h, total.min(40) as u8);
    }
    Ok(())
}

impl Position {
    /// A text diagram of the board (files high to low, ranks a.. top to bottom), White in
    /// lower case, as in the rules references.
    pub fn diagram(&self) -> String {
        let v = &self.v;
        let w = v.types.iter().map(|t| t.token.len()).max().unwrap_or(1).max(2) + 1;
        let mut s = String::new();
        s.push_str("   ");
        for x in 0..v.files as i16 {
            s.push_str(&format!("{:>w$}", v.files as i16 - x));
        }
        s.push('\n');
        for y in 0..v.ranks as i16 {
            s.push_str(&format!("{:>3}", (b'a' + y as u8) as char));
            for x in 0..v.files as i16 {
                let c = self.board[v.sq(x, y) as usize];
                let tok = if c == EMPTY {
                    ".".to_string()
                } else {
                    let t = &v.types[cell_type(c) as usize].token;
                    if cell_color(c) == Color::White {
                        t.to_ascii_lowercase()
                    } else {
                        t.clone()
                    }
                };
                s.push_str(&format!("{tok:>w$}"));
            }
            s.push('\n');
        }
        s.push_str(&format!(
            "side to move: {}\n",
            if self.side == Color::Black { "black" } else { "white" }
        ));
        s
    }
}
