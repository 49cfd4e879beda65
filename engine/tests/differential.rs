//! Differential tests: the fast move generator (`Position::legal_moves`) against the naive
//! reference generator (`reference::reference_moves`), on seeded random games of every built-in
//! variant that loads and on hand-made positions.
//!
//! Run: `cargo test --release -p shogilab-engine --test differential`.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use shogilab_engine::reference::reference_moves;
use shogilab_engine::variant::EMPTY;
use shogilab_engine::{Color, MoveList, Position, Variant};
use std::sync::Arc;

fn fast_moves(pos: &Position) -> Vec<String> {
    let mut l = MoveList::new();
    pos.legal_moves(&mut l);
    let mut v: Vec<String> = l.iter().map(|m| pos.move_to_usi(*m)).collect();
    v.sort();
    v
}

/// Normalise passes `from mid from` to `from ?? from` when `loose_pass` (not used by default).
fn norm(v: Vec<String>) -> Vec<String> {
    v
}

/// `None` when both generators agree, else a readable report.
fn diff(pos: &Position) -> Option<String> {
    let fast = norm(fast_moves(pos));
    let reference = norm(reference_moves(pos));
    if fast == reference {
        return None;
    }
    let missing: Vec<&String> = reference.iter().filter(|m| !fast.contains(m)).collect();
    let extra: Vec<&String> = fast.iter().filter(|m| !reference.contains(m)).collect();
    let mut dups: Vec<&String> = fast.windows(2).filter(|w| w[0] == w[1]).map(|w| &w[0]).collect();
    dups.dedup();
    Some(format!(
        "sfen {}\n  missing from fast (reference only): {:?}\n  extra in fast (not in reference): {:?}{}",
        pos.to_sfen(),
        missing,
        extra,
        if dups.is_empty() { String::new() } else { format!("\n  duplicated in fast: {dups:?}") }
    ))
}

fn is_capture(pos: &Position, m: &shogilab_engine::Move) -> bool {
    !m.is_drop()
        && ((m.to != m.from && pos.cell(m.to) != EMPTY)
            || m.mids().any(|s| pos.cell(s) != EMPTY && s != m.from))
}

/// Play seeded random games (captures preferred half of the time) and compare at every position.
fn random_games(v: &Arc<Variant>, games: u64, plies: usize, seed0: u64) -> (usize, Vec<String>) {
    let mut failures = Vec::new();
    let mut checked = 0;
    for g in 0..games {
        let mut rng = SmallRng::seed_from_u64(seed0 + g);
        let mut pos = Position::start(v);
        let mut l = MoveList::new();
        for _ in 0..plies {
            checked += 1;
            if let Some(d) = diff(&pos) {
                failures.push(format!("[{} game {g}, ply {}] {d}", v.name, pos.move_number()));
                if failures.len() >= 12 {
                    return (checked, failures);
                }
            }
            if pos.royal_count(Color::Black) == 0 || pos.royal_count(Color::White) == 0 {
                break;
            }
            l.clear();
            pos.legal_moves(&mut l);
            if l.is_empty() {
                break;
            }
            let caps: Vec<_> = l.iter().copied().filter(|m| is_capture(&pos, m)).collect();
            let m = if !caps.is_empty() && rng.gen_bool(0.5) {
                caps[rng.gen_range(0..caps.len())]
            } else {
                l[rng.gen_range(0..l.len())]
            };
            pos.play(m);
        }
    }
    (checked, failures)
}

fn run_random(name: &str, games: u64, plies: usize) {
    let v = match Variant::builtin(name) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("skipping {name}: variant does not load: {e}");
            return;
        }
    };
    let t = std::time::Instant::now();
    let (n, failures) = random_games(&v, games, plies, 1000);
    eprintln!("{name}: {n} positions compared in {:.1?}", t.elapsed());
    assert!(
        failures.is_empty(),
        "{} disagreement(s) in {name}:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn random_shogi() {
    run_random("shogi", 40, 150);
}

#[test]
fn random_chu() {
    run_random("chu", 40, 150);
}

#[test]
fn random_tenjiku() {
    run_random("tenjiku", 3, 60);
}

#[test]
fn random_tai() {
    run_random("tai", 2, 60);
}

/// Random placements: `n` pieces drawn from `pool` (upper case = Black token) on random squares,
/// random side to move, optionally hands and a counter-strike square. SFENs the parser rejects
/// (dead pieces, nifu, ...) are skipped.
fn random_placements(name: &str, pool: &[&str], hands: &[&str], n: usize, count: usize, seed: u64) {
    let v = match Variant::builtin(name) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("skipping {name}: {e}");
            return;
        }
    };
    random_placements_v(&v, pool, hands, n, count, seed);
}

fn random_placements_v(
    v: &Arc<Variant>,
    pool: &[&str],
    hands: &[&str],
    n: usize,
    count: usize,
    seed: u64,
) {
    let name = v.name.clone();
    let (f, r) = (v.files as usize, v.ranks as usize);
    let king = v.types.iter().find(|t| t.royal && !t.promoted).map(|t| t.token.clone()).unwrap();
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut failures = Vec::new();
    let mut ok = 0;
    for _ in 0..count {
        let mut grid: Vec<Option<String>> = vec![None; f * r];
        let mut place = |tok: String, rng: &mut SmallRng| loop {
            let i = rng.gen_range(0..f * r);
            if grid[i].is_none() {
                grid[i] = Some(tok);
                return i;
            }
        };
        place(king.clone(), &mut rng);
        place(king.to_ascii_lowercase(), &mut rng);
        let mut lion_squares = Vec::new();
        for _ in 0..n {
            let t = pool[rng.gen_range(0..pool.len())];
            let tok = if rng.gen_bool(0.5) { t.to_string() } else { t.to_ascii_lowercase() };
            let i = place(tok, &mut rng);
            if t == "N" || t == "+O" {
                lion_squares.push(i);
            }
        }
        let mut rows = Vec::new();
        for y in 0..r {
            let mut s = String::new();
            let mut e = 0;
            for x in 0..f {
                match &grid[y * f + x] {
                    Some(t) => {
                        if e > 0 {
                            s.push_str(&e.to_string());
                            e = 0;
                        }
                        s.push_str(t);
                    }
                    None => e += 1,
                }
            }
            if e > 0 {
                s.push_str(&e.to_string());
            }
            rows.push(s);
        }
        let side = if rng.gen_bool(0.5) { "b" } else { "w" };
        let mut third = String::new();
        for h in hands {
            if rng.gen_bool(0.4) {
                let t = if rng.gen_bool(0.5) { h.to_string() } else { h.to_ascii_lowercase() };
                third.push_str(&t);
            }
        }
        if v.rules.lion_trading && !lion_squares.is_empty() && rng.gen_bool(0.3) {
            let i = lion_squares[rng.gen_range(0..lion_squares.len())];
            third = format!("{}{}", f - i % f, (b'a' + (i / f) as u8) as char);
        }
        if third.is_empty() {
            third.push('-');
        }
        let sfen = format!("{} {side} {third} 1", rows.join("/"));
        // at most one emperor per side (as in tai, where no piece promotes to an emperor)
        if sfen.matches("{E}").count() > 1 || sfen.matches("{e}").count() > 1 {
            continue;
        }
        let Ok(p) = Position::from_sfen(v, &sfen) else { continue };
        ok += 1;
        if let Some(d) = diff(&p) {
            failures.push(d);
            if failures.len() >= 10 {
                break;
            }
        }
    }
    eprintln!("{name}: {ok} random placements compared");
    assert!(
        failures.is_empty(),
        "{} disagreement(s) in {name} placements:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn placements_shogi() {
    let pool = ["P", "P", "P", "L", "N", "S", "G", "B", "R", "+P", "+B", "+R", "+S"];
    random_placements("shogi", &pool, &["P", "L", "N", "S", "G", "B", "R"], 14, 5000, 7);
}

#[test]
fn placements_chu() {
    let pool = [
        "N", "N", "+O", "+H", "+D", "O", "P", "P", "I", "+P", "+I", "G", "B", "R", "Q", "X", "L",
        "A", "T", "E", "V", "M",
    ];
    random_placements("chu", &pool, &[], 24, 1500, 11);
}

/// A synthetic 12x12 variant holding every special atom of the large variants (lion dog, hook
/// movers, area movers, range jumpers, capture-then-step, igui, skip slides, emperor, move-only
/// and capture-only atoms), so that they are tested even before tenjiku/tai specs exist.
const SYNTHETIC: &str = r#"
name = "synthetic"
files = 12
ranks = 12
start = "{LD}{HM}{FD}{VG}{GG}{RG}{FE}{E}{LN}{IG}{HT}k/pppppppppppp/12/12/12/12/12/12/12/12/PPPPPPPPPPPP/K{HT}{IG}{LN}{E}{FE}{RG}{GG}{VG}{FD}{HM}{LD} b - 1"
[rules]
promotion = "enter-or-capture"
promotion_zone = 3
stuck_promotion = "optional"
emperor_capture = "EMPEROR_RULE"
[[piece]]
code = "K"
name = "king"
moves = "K"
royal = true
[[piece]]
code = "P"
name = "pawn"
moves = "fW"
promotes = "G"
[[piece]]
code = "G"
name = "gold"
moves = "WfF"
[[piece]]
code = "LD"
name = "lion dog"
moves = "lion3:K"
promotes = "FF"
[[piece]]
code = "FF"
name = "furious fiend"
moves = "lion lion3:K"
promoted_only = true
[[piece]]
code = "HM"
name = "hook mover"
moves = "hook:R"
[[piece]]
code = "PC"
name = "peacock"
moves = "hook:fB bB2"
promoted_only = true
[[piece]]
code = "FD"
name = "fire demon"
moves = "BsR area3"
burns = true
[[piece]]
code = "VG"
name = "vice general"
moves = "B jump:B area3"
jump_rank = 2
[[piece]]
code = "GG"
name = "great general"
moves = "Q jump:Q"
jump_rank = 3
[[piece]]
code = "RG"
name = "rook general"
moves = "R jump:R"
jump_rank = 1
promotes = "PC"
[[piece]]
code = "FE"
name = "free eagle"
moves = "QA dblcap:F"
[[piece]]
code = "E"
name = "emperor"
moves = "emperor"
royal = true
[[piece]]
code = "LN"
name = "lion"
moves = "lion"
promotes = "HF"
[[piece]]
code = "HF"
name = "horned falcon"
moves = "BsbR lion2:fW"
promoted_only = true
promotes = "SE"
[[piece]]
code = "SE"
name = "soaring eagle"
moves = "RbB lion2:fF"
promoted_only = true
[[piece]]
code = "IG"
name = "igui piece"
moves = "mW cF igui:K"
promotes = "SE"
[[piece]]
code = "HT"
name = "tetrarch"
moves = "skip:B skip:sR3 fbR ffN"
promotes = "CA"
[[piece]]
code = "CA"
name = "capricorn"
moves = "hook:B area1"
promoted_only = true
"#;

fn synthetic(emperor_rule: &str) -> Arc<Variant> {
    let text = SYNTHETIC.replace("EMPEROR_RULE", emperor_rule);
    let path = std::env::temp_dir()
        .join(format!("shogilab-differential-{}-{emperor_rule}.toml", std::process::id()));
    std::fs::write(&path, text).unwrap();
    let v = Variant::load(path.to_str().unwrap(), &[])
        .unwrap_or_else(|e| panic!("synthetic variant: {e}"));
    let _ = std::fs::remove_file(&path);
    v
}

const SYNTHETIC_POOL: [&str; 20] = [
    "P", "P", "P", "+P", "{LD}", "+{LD}", "{HM}", "+{RG}", "{FD}", "{VG}", "{GG}", "{RG}", "{FE}",
    "{E}", "{LN}", "+{LN}", "+{IG}", "{IG}", "{HT}", "+{HT}",
];

#[test]
fn synthetic_specials() {
    for rule in ["royal-unprotected", "any-unprotected"] {
        let v = synthetic(rule);
        random_placements_v(&v, &SYNTHETIC_POOL, &[], 30, 1500, 23);
        let (n, failures) = random_games(&v, 4, 60, 77);
        eprintln!("synthetic ({rule}): {n} game positions compared");
        assert!(
            failures.is_empty(),
            "{} disagreement(s):\n{}",
            failures.len(),
            failures.join("\n")
        );
    }
}

// ---------------------------------------------------------------------------- hand-made

fn pos(v: &Arc<Variant>, sfen: &str) -> Position {
    Position::from_sfen(v, sfen).unwrap_or_else(|e| panic!("bad sfen {sfen}: {e}"))
}

fn check_same(p: &Position) {
    if let Some(d) = diff(p) {
        panic!("generators disagree:\n{d}");
    }
}

fn has(p: &Position, m: &str) -> bool {
    reference_moves(p).iter().any(|x| x == m)
}

#[test]
fn shogi_handmade() {
    let v = Variant::builtin("shogi").unwrap();
    let cases = [
        // start
        "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
        // pinned bishop on the king's file, pinned silver on a diagonal
        "4k4/9/9/9/4r4/9/4B4/9/4K4 b - 1",
        "4k4/9/9/9/9/b8/9/2S6/3K5 b - 1",
        // check by a rook along the back rank: interpose by moves and drops
        "4k4/9/9/9/9/9/9/9/r3K4 b GS 1",
        // double check: king moves only
        "4k4/9/9/9/4r4/9/3n5/9/4K4 b G 1",
        // knight check: no interposition
        "4k4/9/9/9/9/9/3n5/9/4K4 b P 1",
        // nifu
        "4k4/9/9/9/9/9/4P4/9/4K4 b P 1",
        // dead drops: knight, lance, pawn on the last ranks
        "4k4/9/9/9/9/9/9/9/4K4 b NLP 1",
        "4k4/9/9/9/9/9/9/9/4K4 w nlp 1",
        // forced and optional promotions
        "4k4/P8/1N7/L8/9/9/9/9/4K4 b - 1",
        // uchifuzume (brief): P*5b illegal, L*5b legal
        "3rkr3/9/8p/4N4/1B7/9/1SG6/1KS6/9 b LPp 1",
        // a pawn-drop check that is not mate
        "4k4/9/4G4/9/9/9/9/9/4K4 b P 1",
    ];
    for s in cases {
        let p = pos(&v, s);
        check_same(&p);
    }
    let p = pos(&v, "4k4/9/9/9/4r4/9/4B4/9/4K4 b - 1");
    assert!(!reference_moves(&p).iter().any(|m| m.starts_with("5g")), "pinned bishop moved");
    let p = pos(&v, "4k4/9/9/9/9/9/4P4/9/4K4 b P 1");
    assert!(!has(&p, "P*5b") && has(&p, "P*4b"), "nifu");
    let p = pos(&v, "3rkr3/9/8p/4N4/1B7/9/1SG6/1KS6/9 b LPp 1");
    assert!(!has(&p, "P*5b"), "uchifuzume: P*5b must be illegal");
    assert!(has(&p, "L*5b"), "L*5b must be legal");
    let p = pos(&v, "4k4/9/9/9/9/9/9/9/4K4 b NLP 1");
    assert!(!has(&p, "N*5b") && has(&p, "N*5c") && !has(&p, "L*5a") && !has(&p, "P*5a"));
    let p = pos(&v, "4k4/P8/1N7/L8/9/9/9/9/4K4 b - 1");
    assert!(has(&p, "9b9a+") && !has(&p, "9b9a"), "pawn must promote on the last rank");
    assert!(has(&p, "8c9a+") && !has(&p, "8c9a") && has(&p, "8c7a+"));
    assert!(has(&p, "9d9c") && has(&p, "9d9c+") && !has(&p, "9d9b+"));
}

#[test]
fn chu_handmade() {
    let v = Variant::builtin("chu").unwrap();
    let cases = [
        // lone lion, falcon, eagle, kirin on an (almost) empty board
        "k11/12/12/12/12/5N6/12/12/12/12/12/11K b - 1",
        "k11/12/12/12/12/5+H6/12/12/12/12/12/11K b - 1",
        "k11/12/12/12/12/5+D6/12/12/12/12/12/11K b - 1",
        "k11/12/12/12/12/5+O6/12/12/12/12/12/11K b - 1",
        "k11/12/12/12/12/12/12/12/12/12/12/N10K b - 1",
        // lion surrounded by enemies and friends
        "k11/12/12/12/4pgp5/4pNp5/4pPp5/12/12/12/12/11K b - 1",
        "k11/12/12/3ppppp4/3pPPPp4/3pPNPp4/3pPPPp4/3ppppp4/12/12/12/11K b - 1",
        // falcon / eagle with enemies on their lion lines (both colours)
        "k11/12/12/5p6/5p6/5+H6/12/12/12/12/12/11K b - 1",
        "k11/12/12/4p1p5/5p6/5+D6/12/12/12/12/12/11K b - 1",
        "k11/12/12/12/12/5+h6/5P6/5P6/12/12/12/11K w - 1",
        "k11/12/12/12/12/5+d6/4P1P5/3P3P4/12/12/12/11K w - 1",
        // shogiops lion-trading illustrations (chu.md section 6)
        "12/12/12/12/3n8/12/5N6/5P6/7b4/12/12/12 b - 1",
        "12/12/12/12/3n1H6/3sp7/5N6/5P6/1k5b4/12/12/12 b - 1",
        "12/12/12/12/12/4r7/12/12/5o3n1n/4N6P/12/6B5 w - 1",
        // doomed pawn protecting the lion (8f8g8h and 8f8h illegal)
        "12/12/12/12/12/4N7/4p7/4n7/12/12/12/12 b - 1",
        // bridge: a gold first leg allows the double capture
        "12/12/12/12/12/4N7/4g7/4n7/5p6/12/12/12 b - 1",
        // rule C positions from chu.md section 9 (7 and 8 moves)
        "11k/12/12/12/12/4r7/12/12/9n2/4+o7/12/6B4K b 8j 1",
        "11k/12/12/12/12/4r7/12/12/9n2/4+o7/12/6B4K b - 1",
        // promotion cases (chu.md section 9)
        "10p1/2I1pP2p1LL/1Rp1PB2LL2/12/7L4/1p10/12/12/11k/12/11K/12 b - 1",
    ];
    for s in cases {
        let p = pos(&v, s);
        check_same(&p);
    }
    let p = pos(&v, "12/12/12/12/3n8/12/5N6/5P6/7b4/12/12/12 b - 1");
    assert!(!has(&p, "7g9e") && has(&p, "7g5i"));
    let p = pos(&v, "12/12/12/12/3n1H6/3sp7/5N6/5P6/1k5b4/12/12/12 b - 1");
    assert!(has(&p, "7g9e") && !has(&p, "7g8f9e"));
    let p = pos(&v, "12/12/12/12/12/4N7/4p7/4n7/12/12/12/12 b - 1");
    assert!(!has(&p, "8f8g8h") && !has(&p, "8f8h") && has(&p, "8f8g"));
    let p = pos(&v, "12/12/12/12/12/4N7/4g7/4n7/5p6/12/12/12 b - 1");
    assert!(has(&p, "8f8g8h") && !has(&p, "8f8h"));
    let p = pos(&v, "11k/12/12/12/12/4r7/12/12/9n2/4+o7/12/6B4K b 8j 1");
    assert_eq!(reference_moves(&p).len(), 7);
    let p = pos(&v, "11k/12/12/12/12/4r7/12/12/9n2/4+o7/12/6B4K b - 1");
    assert_eq!(reference_moves(&p).len(), 8);
    let p = pos(&v, "10p1/2I1pP2p1LL/1Rp1PB2LL2/12/7L4/1p10/12/12/11k/12/11K/12 b - 1");
    for (m, legal) in [
        ("7c8b+", true),
        ("7c6b+", false),
        ("7c6b", true),
        ("7b7a+", true),
        ("5e5c+", true),
        ("11c11f+", true),
    ] {
        assert_eq!(has(&p, m), legal, "{m}");
    }
    // rule C sequence: after 8f8j (rook takes lion), 6l8j legal, 6l3i illegal
    let mut p = pos(&v, "12/12/12/12/12/4r7/12/12/5o3n1n/4N6P/12/6B5 w - 1");
    let m = p.parse_usi("8f8j").unwrap();
    p.play(m);
    check_same(&p);
    assert!(has(&p, "6l8j") && !has(&p, "6l3i"));
    let mut p = pos(&v, "12/12/12/12/12/4r7/12/12/5o3n1n/4N6P/12/6B5 w - 1");
    let m = p.parse_usi("7i8j+").unwrap();
    p.play(m);
    check_same(&p);
    assert!(has(&p, "6l8j") && !has(&p, "6l3i"));
    // a lone lion: 24 squares + one pass
    let p = pos(&v, "k11/12/12/12/12/5N6/12/12/12/12/12/11K b - 1");
    assert_eq!(reference_moves(&p).iter().filter(|m| m.starts_with("7f")).count(), 25);
}

/// Hand-made positions of the large variants, by SFEN token; skipped when the variant or the
/// token is unavailable.
fn large_handmade(name: &str, pieces: &[&str]) {
    let v = match Variant::builtin(name) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("skipping {name}: {e}");
            return;
        }
    };
    let (f, r) = (v.files as usize, v.ranks as usize);
    let row = |cells: &[(usize, &str)]| -> String {
        let mut s = String::new();
        let mut empty = 0;
        for x in 0..f {
            if let Some((_, t)) = cells.iter().find(|(cx, _)| *cx == x) {
                if empty > 0 {
                    s.push_str(&empty.to_string());
                    empty = 0;
                }
                s.push_str(t);
            } else {
                empty += 1;
            }
        }
        if empty > 0 {
            s.push_str(&empty.to_string());
        }
        s
    };
    let king = v.types.iter().find(|t| t.royal && !t.promoted).map(|t| t.token.clone()).unwrap();
    let k_low = king.to_ascii_lowercase();
    for p in pieces {
        if v.token_type(p.trim_start_matches('+').trim_matches(|c| c == '{' || c == '}')).is_none()
        {
            eprintln!("skipping {name} piece {p}: unknown token");
            continue;
        }
        let lower = p.to_ascii_lowercase();
        let c = f / 2;
        let my = r / 2;
        // alone; then among enemies and friends
        let layouts: Vec<Vec<(usize, usize, String)>> = vec![
            vec![(c, my, p.to_string())],
            vec![
                (c, my, p.to_string()),
                (c, my - 1, "p".into()),
                (c + 1, my - 1, "p".into()),
                (c - 2, my - 2, "p".into()),
                (c, my - 3, "p".into()),
                (c + 2, my, "P".into()),
                (c - 1, my + 1, "p".into()),
                (c + 3, my + 3, "p".into()),
            ],
            vec![(c, my, lower.clone()), (c, my + 1, "P".into()), (c + 1, my + 2, "P".into())],
        ];
        for lay in layouts {
            let mut rows = Vec::new();
            for y in 0..r {
                let mut cells: Vec<(usize, &str)> =
                    lay.iter().filter(|e| e.1 == y).map(|e| (e.0, e.2.as_str())).collect();
                if y == 0 {
                    cells.push((0, k_low.as_str()));
                }
                if y == r - 1 {
                    cells.push((f - 1, king.as_str()));
                }
                rows.push(row(&cells));
            }
            let side = if lay[0].2.chars().any(|c| c.is_ascii_lowercase()) { "w" } else { "b" };
            let sfen = format!("{} {side} - 1", rows.join("/"));
            match Position::from_sfen(&v, &sfen) {
                Ok(p) => check_same(&p),
                Err(e) => eprintln!("skipping {sfen}: {e}"),
            }
        }
    }
}

#[test]
fn tenjiku_handmade() {
    large_handmade(
        "tenjiku",
        &["N", "+H", "+D", "{FE}", "{FID}", "{VG}", "{GG}", "{RG}", "{BG}", "{LH}", "{HT}"],
    );
}

#[test]
fn tai_handmade() {
    large_handmade(
        "tai",
        &[
            "{LN}", "{LD}", "{HM}", "{CA}", "{PC}", "{LGN}", "{E}", "{FF}", "{TK}", "{BSP}",
            "{HF}", "{SE}",
        ],
    );
}
