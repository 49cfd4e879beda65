//! Independent reference data from the repository's `tests/data/` (see `tests/data/SOURCES.md`
//! for where every number comes from): perft suites, single-move legality cases, real game
//! records and stated outcomes.

use shogilab_engine::{Convention, Perft, Position, Variant};
use std::path::PathBuf;

fn data(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/data").join(rel)
}

fn lines(path: &PathBuf) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

/// Run a perft file: `<sfen> ;D1 <n> ;D2 <n> ...`; depths above `max_depth` are skipped.
fn run_perft_file(variant: &str, file: &str, conv: Convention, max_nodes: u64) -> usize {
    let v = Variant::builtin(variant).unwrap();
    let mut checked = 0;
    for line in lines(&data(file)) {
        let mut parts = line.split(';');
        let sfen = parts.next().unwrap().trim();
        let mut pos = Position::from_sfen(&v, sfen).unwrap_or_else(|e| panic!("{file}: {e}"));
        let mut p = Perft::new(conv);
        for d in parts {
            let d = d.trim();
            let (depth, nodes) =
                d.split_once(' ').unwrap_or_else(|| panic!("{file}: bad field {d:?}"));
            let depth: u32 = depth.trim_start_matches('D').parse().unwrap();
            let nodes: u64 = nodes.trim().replace('_', "").parse().unwrap();
            if nodes > max_nodes {
                continue;
            }
            assert_eq!(p.count(&mut pos, depth), nodes, "{file}: perft({depth}) of {sfen}");
            checked += 1;
        }
    }
    checked
}

#[test]
fn shogi_perft_suite() {
    let n = run_perft_file("shogi", "perft/shogi.perft", Convention::Distinct, 25_000_000);
    assert!(n >= 5, "only {n} counts checked");
}

#[test]
fn chu_perft_suite_lishogi_convention() {
    let n = run_perft_file("chu", "perft/chu-lishogi.perft", Convention::Lishogi, 5_000_000);
    assert!(n >= 2, "only {n} counts checked");
}

/// `<sfen> | <moves...> | legal|illegal`: all but the last move are played, then the last
/// move's legality is asserted.
fn run_legal_file(variant: &str, file: &str) -> usize {
    let v = Variant::builtin(variant).unwrap();
    let mut n = 0;
    for line in lines(&data(file)) {
        let f: Vec<&str> = line.split('|').map(str::trim).collect();
        assert_eq!(f.len(), 3, "{file}: bad line {line:?}");
        // Position level: these test positions have no kings, which a Game would call over.
        let mut pos = Position::from_sfen(&v, f[0]).unwrap_or_else(|e| panic!("{file}: {e}"));
        let moves: Vec<&str> = f[1].split_whitespace().collect();
        let (last, before) = moves.split_last().unwrap();
        for m in before {
            let mv =
                pos.parse_usi(m).unwrap_or_else(|e| panic!("{file}: {line}: setup move {m}: {e}"));
            pos.play(mv);
        }
        let ok = pos.parse_usi(last).is_ok();
        let want = match f[2] {
            "legal" => true,
            "illegal" => false,
            o => panic!("{file}: expected legal/illegal, found {o:?}"),
        };
        assert_eq!(ok, want, "{file}: {line}");
        n += 1;
    }
    n
}

#[test]
fn shogi_legality_cases() {
    assert!(run_legal_file("shogi", "legal/shogi.txt") > 0);
}

#[test]
fn chu_legality_cases() {
    assert!(run_legal_file("chu", "legal/chu.txt") > 0);
}

#[test]
fn tenjiku_perft_regression() {
    assert_eq!(
        run_perft_file("tenjiku", "perft/tenjiku.perft", Convention::Distinct, 1_000_000),
        3
    );
}

#[test]
fn tai_perft_regression() {
    assert_eq!(run_perft_file("tai", "perft/tai.perft", Convention::Distinct, 1_000_000), 7);
}

#[test]
fn lishogi_chushogi_fixture_positions() {
    let n =
        run_perft_file("chu", "perft/chu-lishogi-fixtures.perft", Convention::Lishogi, 10_000_000);
    assert!(n >= 270, "only {n} positions checked");
}

#[test]
fn lishogi_standard_fixture_positions() {
    let n = run_perft_file("shogi", "perft/shogi-fixtures.perft", Convention::Distinct, 10_000_000);
    assert!(n >= 280, "only {n} positions checked");
}

#[test]
fn lishogi_game_records_are_legal() {
    let v = Variant::builtin("shogi").unwrap();
    let mut plies = 0;
    for (i, line) in lines(&data("games/shogi.txt")).iter().enumerate() {
        let mut game = shogilab_engine::Game::new(Position::start(&v));
        for m in line.split_whitespace().skip(2) {
            let mv = game.parse_usi(m).unwrap_or_else(|e| panic!("game {}: {m}: {e}", i + 1));
            game.play(mv);
            plies += 1;
        }
    }
    assert!(plies > 2000, "{plies} plies");
}

/// Tsume-shogi positions (one side without a king): counts from cshogi and python-shogi,
/// which agree on every number (`tests/data/tsume/reference_perft.py`).
#[test]
fn tsume_perft_matches_cshogi_and_python_shogi() {
    let n = run_perft_file("shogi", "perft/shogi-tsume.perft", Convention::Distinct, 10_000_000);
    assert!(n >= 25, "only {n} counts checked");
}
