//! WinBoard/XBoard coordinates (rules/chu.md 8.2): files `a`.. from Black's left, ranks `1`..
//! from Black's side, so WinBoard file index i is USI file `files - i` and WinBoard rank n is
//! rank letter number `ranks + 1 - n` (chu: `a1` = `12l`, `l12` = `1a`). WinBoard calls the
//! first mover "white".
//!
//! Moves: `f5f6`, `+` for promotion (`=` or nothing: no promotion), drops `P@e5`, lion double
//! moves as legs separated by commas (`f5e6,e6d7`; igui `f5e6,e6f5`; HaChu also prints the legs
//! on separate `move` lines ending in `,`), a null move `@@@@` (a lion's pass). Parsing goes
//! through USI so that legality and the lion conventions are the engine's.

use shogilab_engine::{EngineError, Move, Position, Variant};

/// WinBoard name of a padded square.
pub fn square_to_wb(v: &Variant, sq: u16) -> String {
    let (x, y) = v.xy(sq);
    format!("{}{}", (b'a' + x as u8) as char, v.ranks as i16 - y)
}

/// Parse a WinBoard square (`a1`, `l12`).
pub fn parse_wb_square(v: &Variant, s: &str) -> Option<u16> {
    let b = s.as_bytes();
    if b.len() < 2 || !b[0].is_ascii_lowercase() || !b[1..].iter().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let x = (b[0] - b'a') as i16;
    let n: i16 = s[1..].parse().ok()?;
    if x >= v.files as i16 || n < 1 || n > v.ranks as i16 || s[1..].starts_with('0') {
        return None;
    }
    Some(v.sq(x, v.ranks as i16 - n))
}

/// Is `m` a pass of `pos`: back to its start square without capturing on the way?
pub fn is_pass(pos: &Position, m: Move) -> bool {
    !m.is_drop() && m.from == m.to && m.mids().all(|s| pos.cell(s) == 0)
}

/// Write a move in WinBoard notation (legs joined by `,`); a pass is the null move `@@@@`,
/// which WinBoard engines (HaChu) expect rather than the two legs.
pub fn move_to_wb(pos: &Position, m: Move) -> String {
    if is_pass(pos, m) {
        return "@@@@".into();
    }
    move_to_wb_legs(pos, m)
}

/// Write a move in WinBoard notation with every leg spelled out, a pass included
/// (`f3g4,g4f3`): the form some engines want instead of `@@@@`.
pub fn move_to_wb_legs(pos: &Position, m: Move) -> String {
    let v = pos.variant();
    if m.is_drop() {
        let t = &v.types[m.drop_type() as usize];
        return format!("{}@{}", t.token.to_ascii_uppercase(), square_to_wb(v, m.to));
    }
    let stops: Vec<u16> = std::iter::once(m.from).chain(m.mids()).chain([m.to]).collect();
    let legs: Vec<String> = stops
        .windows(2)
        .map(|w| format!("{}{}", square_to_wb(v, w[0]), square_to_wb(v, w[1])))
        .collect();
    let mut s = legs.join(",");
    if m.promotes() {
        s.push('+');
    }
    s
}

/// Translate WinBoard move text to USI text (no legality check; `@@@@` is returned as is).
pub fn wb_to_usi(v: &Variant, text: &str) -> Result<String, String> {
    let t = text.trim().trim_end_matches(',');
    if t == "@@@@" {
        return Ok(t.to_string());
    }
    if let Some((piece, sq)) = t.split_once('@') {
        let to = parse_wb_square(v, sq).ok_or_else(|| format!("{sq:?} is not a square"))?;
        return Ok(format!("{}*{}", piece.to_ascii_uppercase(), v.square_name(to)));
    }
    let mut promote = false;
    let mut squares: Vec<u16> = Vec::new();
    for (k, leg) in t.split(',').enumerate() {
        let (leg_sq, leg_promotes) = leg_squares(v, text, leg)?;
        promote |= leg_promotes;
        if leg_sq.len() < 2 {
            return Err(format!("leg {} of {text:?} has fewer than two squares", k + 1));
        }
        if squares.is_empty() {
            squares.extend(leg_sq);
        } else {
            if squares.last() != leg_sq.first() {
                return Err(format!(
                    "leg {} of {text:?} does not start where the last ended",
                    k + 1
                ));
            }
            squares.extend(&leg_sq[1..]);
        }
    }
    let mut s: String = squares.iter().map(|&q| v.square_name(q)).collect();
    if promote {
        s.push('+');
    }
    Ok(s)
}

/// The squares of one leg of a WinBoard move (`h8h6`, `e5e4+`) and whether it promotes; `=`
/// is skipped, and a letter without a rank at the end (a piece suffix some engines append) too.
fn leg_squares(v: &Variant, text: &str, leg: &str) -> Result<(Vec<u16>, bool), String> {
    let b = leg.as_bytes();
    let mut i = 0;
    let mut promote = false;
    let mut leg_sq = Vec::new();
    while i < b.len() {
        let c = b[i];
        if c == b'+' || c == b'=' {
            promote |= c == b'+';
            i += 1;
            continue;
        }
        if !c.is_ascii_lowercase() {
            return Err(format!("unexpected {:?} in {text:?}", c as char));
        }
        let start = i;
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start + 1 {
            if i == b.len() && leg_sq.len() >= 2 {
                continue;
            }
            return Err(format!("expected a square at {:?} in {text:?}", &leg[start..]));
        }
        let name = &leg[start..i];
        leg_sq.push(parse_wb_square(v, name).ok_or_else(|| {
            format!("{name:?} is not a square of the {}x{} board", v.files, v.ranks)
        })?);
    }
    Ok((leg_sq, promote))
}

/// Parse a WinBoard move into a legal move of `pos` (position rules; the caller checks the
/// game's repetition rule).
pub fn parse_wb_move(pos: &Position, text: &str) -> Result<Move, EngineError> {
    let v = pos.variant();
    let usi =
        wb_to_usi(v, text).map_err(|r| EngineError::Illegal { input: text.into(), reason: r })?;
    if usi == "@@@@" {
        let mut list = Vec::new();
        pos.legal_moves(&mut list);
        return list
            .into_iter()
            .find(|m| m.returns() && m.mids().all(|s| pos.cell(s) == 0))
            .ok_or_else(|| EngineError::Illegal {
                input: text.into(),
                reason: "no piece here can pass".into(),
            });
    }
    pos.parse_usi(&usi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chu_corners() {
        let v = Variant::builtin("chu").unwrap();
        assert_eq!(wb_to_usi(&v, "a1l12").unwrap(), "12l1a");
        let k = v.parse_square("7l").unwrap();
        assert_eq!(square_to_wb(&v, k), "f1");
        assert_eq!(square_to_wb(&v, v.parse_square("6a").unwrap()), "g12");
        assert!(parse_wb_square(&v, "m1").is_none());
        assert!(parse_wb_square(&v, "a13").is_none());
        assert!(parse_wb_square(&v, "a0").is_none());
        assert!(parse_wb_square(&v, "a01").is_none());
    }
}
