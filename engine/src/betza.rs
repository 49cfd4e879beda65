//! Move strings: Betza notation for ordinary pieces plus named atoms for the special mechanics
//! of the large variants. Directions are in the owner's frame: `dx > 0` is the owner's right,
//! `dy > 0` is forward.
//!
//! Grammar (atoms are separated by white space; a Betza group may hold several atoms):
//! * Betza: modifiers then an atom letter then an optional range, repeated: `FfsW`, `sRvW`,
//!   `fRfBrlR2bR2bB2`, `[fr]B`, `ffN`, `mR`, `cK`. Letters `W F K` step (a range makes them
//!   ride: `W2` = `R2`), `R B Q` ride (`R5` = up to 5 squares), `D A N H C Z G` leap.
//!   Direction modifiers `f b l r s v`, pairs (`fl`, `[br]`) and doubles (`ffN`) as in Betza;
//!   mode modifiers `m` (move only) and `c` (capture only).
//! * `lion`: the chu lion (all 24 squares of the 5x5 area, double king step with igui,
//!   double capture and pass).
//! * `lion2:<betza>` / `lion3:<betza>`: linear lion power along the given lines (horned falcon
//!   `lion2:fW`, soaring eagle `lion2:fF`, lion dog `lion3:K`).
//! * `dblcap:<betza>`: capture on the first square of the given lines, then one more step of the
//!   same kind in any direction (tenjiku free eagle `dblcap:F`, Betza `cF-aF`).
//! * `area<k>`: up to k king steps through empty squares, one capture at the end (fire demon,
//!   vice general: `area3`); returning to the start square is allowed (a pass, or a burn in place).
//! * `jump:<betza>`: range-jumping capture along the given lines over pieces of lower
//!   `jump_rank` (tenjiku generals).
//! * `hook:<betza>`: slide along the given lines, optionally turn 90 degrees once on an empty
//!   square and slide on (tai hook mover `hook:R`, capricorn `hook:B`, peacock `hook:fB`).
//! * `skip:<betza>`: slides that ignore (jump) the first square: `skip:B` starts at distance 2,
//!   `skip:sR3` reaches distance 2 or 3 (heavenly tetrarch).
//! * `igui:<betza>`: capture an adjacent enemy without moving.
//! * `emperor`: to any empty square, or capture anywhere (royal victims only if unprotected).

use std::fmt;

/// Whether an atom may move, capture, or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    Both,
    MoveOnly,
    CaptureOnly,
}

impl Mode {
    pub fn can_move(self) -> bool {
        self != Mode::CaptureOnly
    }
    pub fn can_capture(self) -> bool {
        self != Mode::MoveOnly
    }
}

/// One move mechanism with its directions, in the owner's frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Atom {
    /// Leaps to `(dx, dy)`, ignoring what lies between.
    Leap { v: (i8, i8), mode: Mode },
    /// Steps along `v` up to `max` squares (255 = unlimited); squares closer than `min` are jumped.
    Ride { v: (i8, i8), min: u8, max: u8, mode: Mode },
    /// Full chu lion power.
    Lion,
    /// Linear lion power of `len` squares along `v`.
    LionLine { v: (i8, i8), len: u8 },
    /// Capture on `v` then one step of the same kind (all directions in `second`).
    DblCap { v: (i8, i8), second: Vec<(i8, i8)> },
    /// Area move of up to `steps` king steps.
    Area { steps: u8 },
    /// Range-jumping capture along `v`.
    RangeJump { v: (i8, i8) },
    /// Hook move: slide along `v`, optionally turn 90 degrees once.
    Hook { v: (i8, i8) },
    /// Capture the adjacent enemy on `v` without moving.
    Igui { v: (i8, i8) },
    /// Universal leaper.
    Emperor,
}

/// A move-string parse error, with the offending fragment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BetzaError {
    pub fragment: String,
    pub msg: String,
}

impl fmt::Display for BetzaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot parse move fragment {:?}: {}", self.fragment, self.msg)
    }
}

fn err(fragment: &str, msg: impl Into<String>) -> BetzaError {
    BetzaError { fragment: fragment.to_string(), msg: msg.into() }
}

/// Base geometry of a Betza letter.
fn letter_base(c: char) -> Option<((i8, i8), bool, bool)> {
    // (base vector, rides by default, may take a range)
    Some(match c {
        'W' => ((0, 1), false, true),
        'F' => ((1, 1), false, true),
        'R' => ((0, 1), true, true),
        'B' => ((1, 1), true, true),
        'D' => ((0, 2), false, false),
        'A' => ((2, 2), false, false),
        'N' => ((1, 2), false, false),
        'H' => ((0, 3), false, false),
        'C' => ((1, 3), false, false),
        'Z' => ((2, 3), false, false),
        'G' => ((3, 3), false, false),
        _ => return None,
    })
}

/// All vectors symmetric to `(a, b)`.
fn symmetric(v: (i8, i8)) -> Vec<(i8, i8)> {
    let (a, b) = v;
    let mut out = Vec::new();
    for (x, y) in [(a, b), (b, a)] {
        for sx in [1, -1] {
            for sy in [1, -1] {
                let w = (x * sx, y * sy);
                if !out.contains(&w) {
                    out.push(w);
                }
            }
        }
    }
    out
}

/// A direction group: a predicate on vectors.
#[derive(Debug, Clone)]
struct Group(String);

impl Group {
    fn matches(&self, v: (i8, i8)) -> bool {
        let (dx, dy) = (v.0 as i32, v.1 as i32);
        let one = |c: char| match c {
            'f' => dy > 0,
            'b' => dy < 0,
            'l' => dx < 0,
            'r' => dx > 0,
            's' => dx != 0,
            'v' => dy != 0,
            _ => false,
        };
        let g: Vec<char> = self.0.chars().collect();
        match g.as_slice() {
            [c] => one(*c),
            [a, b] if a == b => {
                // doubled: the moves most in that direction
                one(*a)
                    && match a {
                        'f' | 'b' => dy.abs() > dx.abs(),
                        _ => dx.abs() > dy.abs(),
                    }
            }
            [a, b] => {
                let wide = |p: char, q: char| {
                    // "fs": forward and wide
                    matches!(p, 'f' | 'b') && q == 's'
                };
                if wide(*a, *b) {
                    one(*a) && dx.abs() > dy.abs()
                } else if wide(*b, *a) {
                    one(*b) && dx.abs() > dy.abs()
                } else {
                    one(*a) && one(*b)
                }
            }
            _ => false,
        }
    }
}

/// Split a modifier string into direction groups, for an atom whose vectors are `vs`.
fn groups(mods: &str, orth: bool) -> Vec<Group> {
    let mut out = Vec::new();
    let cs: Vec<char> = mods.chars().collect();
    let mut i = 0;
    while i < cs.len() {
        if cs[i] == '[' {
            let end = cs[i..].iter().position(|&c| c == ']').map(|p| p + i).unwrap_or(cs.len());
            out.push(Group(cs[i + 1..end].iter().collect()));
            i = end + 1;
            continue;
        }
        if !orth && i + 1 < cs.len() {
            let (a, b) = (cs[i], cs[i + 1]);
            let fb = |c: char| c == 'f' || c == 'b';
            let lr = |c: char| c == 'l' || c == 'r';
            if (fb(a) && lr(b)) || (lr(a) && fb(b)) || (a == b) || (fb(a) && b == 's') {
                out.push(Group([a, b].iter().collect()));
                i += 2;
                continue;
            }
        }
        out.push(Group(cs[i].to_string()));
        i += 1;
    }
    out
}

/// One parsed Betza atom before it is expanded into vectors.
struct Simple {
    vectors: Vec<(i8, i8)>,
    ride: bool,
    range: u8,
    mode: Mode,
}

/// Parse a Betza group such as `FfsW` or `fRfBrlR2` into simple atoms.
fn parse_betza(s: &str) -> Result<Vec<Simple>, BetzaError> {
    let cs: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < cs.len() {
        let (mods, mode) = modifiers(s, &cs, &mut i)?;
        let letter = *cs.get(i).ok_or_else(|| err(s, "modifiers without an atom letter"))?;
        i += 1;
        let range = atom_range(s, &cs, &mut i)?;
        expand_atom(s, letter, &mods, mode, range, &mut out)?;
    }
    if out.iter().all(|a| a.vectors.is_empty()) {
        return Err(err(s, "selects no direction"));
    }
    Ok(out)
}

/// The modifiers before an atom letter, from `cs[*i]` on: the direction modifiers as written
/// (bracket groups kept) and the mode; `*i` ends on the letter.
fn modifiers(s: &str, cs: &[char], i: &mut usize) -> Result<(String, Mode), BetzaError> {
    let mut mods = String::new();
    let mut mode = Mode::Both;
    while *i < cs.len() && !cs[*i].is_ascii_uppercase() {
        match cs[*i] {
            'm' => mode = Mode::MoveOnly,
            'c' => mode = Mode::CaptureOnly,
            c @ ('f' | 'b' | 'l' | 'r' | 's' | 'v') => mods.push(c),
            '[' => *i = bracket_group(s, cs, *i, &mut mods)?,
            c => return Err(err(s, format!("unknown modifier '{c}'"))),
        }
        *i += 1;
    }
    Ok((mods, mode))
}

/// Append the direction group `[..]` that opens at `cs[open]` to `mods`; the index of its `]`.
fn bracket_group(
    s: &str,
    cs: &[char],
    open: usize,
    mods: &mut String,
) -> Result<usize, BetzaError> {
    let end = cs[open..]
        .iter()
        .position(|&c| c == ']')
        .map(|p| p + open)
        .ok_or_else(|| err(s, "unclosed '['"))?;
    let inner: String = cs[open + 1..end].iter().collect();
    if inner.is_empty() || !inner.chars().all(|c| "fblr".contains(c)) {
        return Err(err(s, format!("bad direction group [{inner}]")));
    }
    mods.push('[');
    mods.push_str(&inner);
    mods.push(']');
    Ok(end)
}

/// The optional range after an atom letter (`R5`), from `cs[*i]` on; at least 1.
fn atom_range(s: &str, cs: &[char], i: &mut usize) -> Result<Option<u8>, BetzaError> {
    let mut digits = String::new();
    while *i < cs.len() && cs[*i].is_ascii_digit() {
        digits.push(cs[*i]);
        *i += 1;
    }
    if digits.is_empty() {
        return Ok(None);
    }
    let range = digits.parse::<u8>().ok().filter(|&r| r >= 1);
    range.map(Some).ok_or_else(|| err(s, "bad range"))
}

/// The simple atoms of one atom letter with its modifiers and range (`K` and `Q` give two).
fn expand_atom(
    s: &str,
    letter: char,
    mods: &str,
    mode: Mode,
    range: Option<u8>,
    out: &mut Vec<Simple>,
) -> Result<(), BetzaError> {
    let parts: Vec<((i8, i8), bool, bool)> = match letter {
        'K' => vec![letter_base('W').unwrap_or(((0, 1), false, true)), ((1, 1), false, true)],
        'Q' => vec![((0, 1), true, true), ((1, 1), true, true)],
        c => vec![letter_base(c).ok_or_else(|| err(s, format!("unknown atom letter '{c}'")))?],
    };
    for (base, rides, rangeable) in parts {
        if range.is_some() && !rangeable {
            return Err(err(s, format!("atom '{letter}' takes no range")));
        }
        let all = symmetric(base);
        let vectors: Vec<(i8, i8)> = if mods.is_empty() {
            all
        } else {
            let gs = groups(mods, base.0 == 0 || base.1 == 0);
            all.into_iter().filter(|v| gs.iter().any(|g| g.matches(*v))).collect()
        };
        if vectors.is_empty() && letter != 'K' && letter != 'Q' {
            return Err(err(s, format!("modifiers '{mods}' select no direction of '{letter}'")));
        }
        let ride = rides || range.is_some();
        let range = range.unwrap_or(if rides { 255 } else { 1 });
        out.push(Simple { vectors, ride, range, mode });
    }
    Ok(())
}

fn unit_lines(frag: &str, arg: &str) -> Result<Vec<(i8, i8)>, BetzaError> {
    let simples = parse_betza(arg)?;
    let mut v = Vec::new();
    for s in simples {
        for d in s.vectors {
            if d.0.abs() > 1 || d.1.abs() > 1 {
                return Err(err(frag, "needs king-step lines (W, F, K, R, B, Q)"));
            }
            v.push(d);
        }
    }
    Ok(v)
}

/// Parse a whole move string into atoms.
pub fn parse(moves: &str) -> Result<Vec<Atom>, BetzaError> {
    if moves.trim().is_empty() {
        return Err(err(moves, "empty move string"));
    }
    let mut atoms = Vec::new();
    for tok in moves.split_whitespace() {
        match tok.split_once(':') {
            Some((name, arg)) => special_atoms(tok, name, arg, &mut atoms)?,
            None => plain_atoms(tok, &mut atoms)?,
        }
    }
    Ok(atoms)
}

/// The atoms of a named atom with a Betza argument (`lion2:fW`, `skip:B`, ...).
fn special_atoms(
    tok: &str,
    name: &str,
    arg: &str,
    atoms: &mut Vec<Atom>,
) -> Result<(), BetzaError> {
    if name == "skip" {
        return skip_atoms(tok, arg, atoms);
    }
    let make: fn((i8, i8)) -> Atom = match name {
        "lion2" => |v| Atom::LionLine { v, len: 2 },
        "lion3" => |v| Atom::LionLine { v, len: 3 },
        "dblcap" => |v| {
            let diagonal = v.0 != 0 && v.1 != 0;
            Atom::DblCap { v, second: symmetric(if diagonal { (1, 1) } else { (0, 1) }) }
        },
        "jump" => |v| Atom::RangeJump { v },
        "hook" => |v| Atom::Hook { v },
        "igui" => |v| Atom::Igui { v },
        _ => return Err(err(tok, format!("unknown special atom '{name}'"))),
    };
    atoms.extend(unit_lines(tok, arg)?.into_iter().map(make));
    Ok(())
}

/// `skip:<betza>`: rides that start at distance 2.
fn skip_atoms(tok: &str, arg: &str, atoms: &mut Vec<Atom>) -> Result<(), BetzaError> {
    for s in parse_betza(arg)? {
        if !s.ride {
            return Err(err(tok, "skip needs a riding atom (R, B, Q or a range)"));
        }
        if s.range < 2 {
            return Err(err(tok, "skip range must be at least 2"));
        }
        for v in s.vectors {
            atoms.push(Atom::Ride { v, min: 2, max: s.range, mode: s.mode });
        }
    }
    Ok(())
}

/// The atoms of a token without a colon: `lion`, `emperor`, `area<k>` or a Betza group.
fn plain_atoms(tok: &str, atoms: &mut Vec<Atom>) -> Result<(), BetzaError> {
    match tok {
        "lion" => atoms.push(Atom::Lion),
        "emperor" => atoms.push(Atom::Emperor),
        t if t.starts_with("area") => {
            let k: u8 = t[4..]
                .parse()
                .ok()
                .filter(|&k| (1..=4).contains(&k))
                .ok_or_else(|| err(t, "area needs a step count 1..4, e.g. area3"))?;
            atoms.push(Atom::Area { steps: k });
        }
        _ => {
            for s in parse_betza(tok)? {
                atoms.extend(s.vectors.into_iter().map(|v| match s.ride {
                    true => Atom::Ride { v, min: 1, max: s.range, mode: s.mode },
                    false => Atom::Leap { v, mode: s.mode },
                }));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vecs(s: &str) -> Vec<(i8, i8)> {
        let mut v: Vec<(i8, i8)> = parse(s)
            .unwrap()
            .into_iter()
            .map(|a| match a {
                Atom::Leap { v, .. } | Atom::Ride { v, .. } => v,
                _ => panic!(),
            })
            .collect();
        v.sort();
        v
    }

    #[test]
    fn shogi_pieces() {
        assert_eq!(vecs("WfF").len(), 6);
        assert_eq!(vecs("FfW").len(), 5);
        assert_eq!(vecs("ffN"), vec![(-1, 2), (1, 2)]);
        assert_eq!(vecs("fR"), vec![(0, 1)]);
        assert_eq!(vecs("fW"), vec![(0, 1)]);
        assert_eq!(vecs("K").len(), 8);
    }

    #[test]
    fn chu_pieces() {
        assert_eq!(vecs("FfsW").len(), 7);
        assert_eq!(vecs("FbsW").len(), 7);
        assert_eq!(vecs("FvW").len(), 6);
        assert_eq!(vecs("fFvW").len(), 4);
        assert_eq!(vecs("vW"), vec![(0, -1), (0, 1)]);
    }

    #[test]
    fn tai_brackets() {
        assert_eq!(vecs("[fr]B"), vec![(1, 1)]);
        assert_eq!(vecs("fF[br]FlW"), vec![(-1, 0), (-1, 1), (1, -1), (1, 1)]);
        assert_eq!(vecs("fK"), vec![(-1, 1), (0, 1), (1, 1)]);
        assert_eq!(vecs("frlR").len(), 3);
    }

    #[test]
    fn errors() {
        assert!(parse("").is_err());
        assert!(parse("Y").is_err());
        assert!(parse("fx").is_err());
        assert!(parse("N3").is_err());
        assert!(parse("[fr]W").is_err());
        assert!(parse("area9").is_err());
        assert!(parse("bogus:R").is_err());
    }
}
