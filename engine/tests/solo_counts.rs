//! Solo-piece counts for every piece kind of tenjiku and tai, derived by hand from the rules texts
//! (`tests/data/solo/derive.py`, independent of the generator): one lone Black piece on an empty
//! board, perft depth 1 in the distinct convention. Every kind of the variant must have a line, so
//! a kind without one (or a line whose piece is not the intended kind) fails.

use shogilab_engine::variant::cell_type;
use shogilab_engine::{Color, Convention, Perft, Position, Variant};
use std::collections::BTreeSet;
use std::path::PathBuf;

fn data(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/data").join(rel)
}

/// Run `<sfen> ;D1 <n>` lines; the comment line just above names the piece (`# name (...`).
/// Returns the engine names of the kinds checked; panics listing every mismatch.
fn run_solo_file(variant: &str, file: &str) -> Vec<String> {
    let v = Variant::builtin(variant).unwrap();
    let path = data(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut label = String::new();
    let mut kinds = Vec::new();
    let mut failures = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if let Some(c) = line.strip_prefix('#') {
            label = c.trim().split(" (").next().unwrap_or("").to_string();
            continue;
        }
        if line.is_empty() {
            continue;
        }
        let (sfen, field) =
            line.split_once(';').unwrap_or_else(|| panic!("{file}:{}: no count", i + 1));
        let sfen = sfen.trim();
        let nodes: u64 = field
            .trim()
            .strip_prefix("D1 ")
            .unwrap_or_else(|| panic!("{file}:{}: expected ';D1 n'", i + 1))
            .trim()
            .parse()
            .unwrap();
        let mut pos = Position::from_sfen(&v, sfen)
            .unwrap_or_else(|e| panic!("{file}:{}: {label}: {e}", i + 1));
        let sqs = pos.pieces(Color::Black).to_vec();
        assert_eq!(sqs.len(), 1, "{file}:{}: {label}: not a single Black piece", i + 1);
        assert!(pos.pieces(Color::White).is_empty(), "{file}:{}: {label}: White pieces", i + 1);
        let kind = v.types[cell_type(pos.cell(sqs[0])) as usize].name.clone();
        let got = Perft::new(Convention::Distinct).count(&mut pos, 1);
        if got != nodes {
            failures.push(format!(
                "{file}:{}: {label} (engine kind {kind}): rules text {nodes}, engine {got}",
                i + 1
            ));
        }
        kinds.push(kind);
    }
    assert!(
        failures.is_empty(),
        "{} solo count(s) differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    kinds
}

/// Every kind of the variant (its piece table) appears exactly once.
fn check_coverage(variant: &str, file: &str, kinds: &[String], rules_kinds: usize) {
    let v = Variant::builtin(variant).unwrap();
    let want: BTreeSet<String> = v.spec.pieces.iter().map(|p| p.name.clone()).collect();
    let got: BTreeSet<String> = kinds.iter().cloned().collect();
    assert_eq!(got.len(), kinds.len(), "{file}: a kind is listed twice: {kinds:?}");
    let missing: Vec<_> = want.difference(&got).collect();
    let extra: Vec<_> = got.difference(&want).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "{file}: missing {missing:?}, unexpected {extra:?}"
    );
    assert_eq!(kinds.len(), rules_kinds, "{file}: {} kinds checked", kinds.len());
}

#[test]
fn tenjiku_solo_counts() {
    let file = "perft/tenjiku-solo.perft";
    let kinds = run_solo_file("tenjiku", file);
    // tenjiku.md section 2: 36 types in the start array + 8 that only arise by promotion.
    check_coverage("tenjiku", file, &kinds, 44);
}

#[test]
fn tai_solo_counts() {
    let file = "perft/tai-solo.perft";
    let kinds = run_solo_file("tai", file);
    // tai.md section 2.2: 93 kinds in the start array + 8 that only arise by promotion = 101.
    check_coverage("tai", file, &kinds, 101);
}
