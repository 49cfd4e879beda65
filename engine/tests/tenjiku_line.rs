//! A documented tenjiku game, replayed from the start position: the first fourteen plies of the
//! game on the tenjiku-shogi.net "Gamescores" page (played on Richard's PBeM server, shown there
//! to demonstrate the fire-demon-against-fire-demon rule), in the Western notation of that site
//! (`P-7k`, `BGx5j`, `RGx7m+` promoting, `Fi10n-7lx!` burning one piece).
//!
//! Each notation move must name exactly one legal move of the engine (up to moves with the same
//! outcome): the right piece kind from the right square, to the right square, capturing when
//! the notation says `x` and only then, promoting exactly when it says `+`, and burning as many
//! pieces as `!` says. The line covers soaring-eagle jumps, the vice general's and bishop
//! general's range captures, the lion hawk, fire-demon moves and burning, and rook-general
//! range jumps that capture and promote.

use shogilab_engine::variant::{cell_color, cell_type};
use shogilab_engine::{Game, Move, Position, Variant};

const LINE: &[&str] = &[
    "P-7k",
    "SE-3f",
    "SE-3k",
    "P-10f",
    "SE-14k",
    "P-4f",
    "VG-5j",
    "BGx5j",
    "LHx5j",
    "Fi-11f",
    "Fi-8k",
    "RGx7m+",
    "Fi10n-7lx!",
    "RGx10m+",
];

/// The site's piece abbreviations, by the English names the rules use.
fn kind(abbrev: &str) -> &'static str {
    match abbrev {
        "P" => "pawn",
        "SE" => "soaring eagle",
        "VG" => "vice general",
        "BG" => "bishop general",
        "LH" => "lion hawk",
        "Fi" => "fire demon",
        "RG" => "rook general",
        other => panic!("abbreviation {other} not used in this line"),
    }
}

/// A parsed notation move.
struct Notation {
    kind: &'static str,
    from: Option<String>,
    capture: bool,
    to: String,
    promote: bool,
    burns: usize,
}

fn square_prefix(s: &str) -> (Option<String>, &str) {
    let digits = s.chars().take_while(|c| c.is_ascii_digit()).count();
    match s[digits..].chars().next() {
        Some(c) if digits > 0 && c.is_ascii_lowercase() => {
            (Some(s[..digits + 1].to_string()), &s[digits + 1..])
        }
        _ => (None, s),
    }
}

fn parse(text: &str) -> Notation {
    // Abbreviations are capitals, or a capital and a lower-case letter other than the capture `x`.
    let caps = text.chars().take_while(|c| c.is_ascii_uppercase()).count();
    let letters = match text[caps..].chars().next() {
        Some(c) if caps == 1 && c.is_ascii_lowercase() && c != 'x' => 2,
        _ => caps,
    };
    let rest = &text[letters..];
    let (from, rest) = square_prefix(rest);
    let capture = rest.starts_with('x');
    assert!(capture || rest.starts_with('-'), "{text}: no action");
    let (to, rest) = square_prefix(&rest[1..]);
    let to = to.unwrap_or_else(|| panic!("{text}: no destination"));
    let promote = rest.starts_with('+');
    let burns = match rest.find('!') {
        Some(i) => rest[i + 1..].parse().unwrap_or(1),
        None => 0,
    };
    Notation { kind: kind(&text[..letters]), from, capture, to, promote, burns }
}

fn enemy_count(pos: &Position) -> usize {
    pos.pieces(pos.side_to_move().flip()).len()
}

#[test]
fn documented_tenjiku_line_replays() {
    let v = Variant::builtin("tenjiku").unwrap();
    let mut game = Game::new(Position::start(&v));
    for (ply, text) in LINE.iter().enumerate() {
        let n = parse(text);
        let pos = game.position().clone();
        let us = pos.side_to_move();
        let mut found: Vec<(Move, Position)> = Vec::new();
        for &m in game.legal() {
            let cell = pos.cell(m.from);
            if m.is_drop()
                || cell_color(cell) != us
                || v.types[cell_type(cell) as usize].name != n.kind
            {
                continue;
            }
            if v.square_name(m.to) != n.to
                || n.from.as_deref().is_some_and(|f| v.square_name(m.from) != f)
                || m.promotes() != n.promote
            {
                continue;
            }
            let target = pos.cell(m.to);
            let captures_there = target != 0 && cell_color(target) != us;
            if captures_there != n.capture {
                continue;
            }
            let mut after = pos.clone();
            after.play(m);
            let removed = enemy_count(&pos) - after.pieces(us.flip()).len();
            if removed != usize::from(n.capture) + n.burns {
                continue;
            }
            if !found.iter().any(|(_, p)| p.same_as(&after)) {
                found.push((m, after));
            }
        }
        assert_eq!(
            found.len(),
            1,
            "ply {} {text}: {} matching legal moves ({:?}) in {}",
            ply + 1,
            found.len(),
            found.iter().map(|(m, _)| game.position().move_to_usi(*m)).collect::<Vec<_>>(),
            pos.to_sfen()
        );
        game.play(found[0].0);
        assert!(!game.status().is_over(), "ply {} {text}: game over", ply + 1);
    }
    assert_eq!(game.plies(), LINE.len());
}
