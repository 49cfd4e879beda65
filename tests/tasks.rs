//! The task contract through the binary (`--task-index I --task-count N`), on local folders:
//! the tasks of a values job each store one part, a rerun plays nothing, the merge finds every
//! task and fits the same games and report as one process; another task count on the same log
//! is refused and changes nothing; self-play tasks store their shards and the job without a
//! task finds them all, equal to one process's; gauntlet tasks store their share of every
//! pairing and merge into the games and Elo table of one process; a match records its variant
//! options, and parts played under other options are refused; a match plays the openings of a
//! file, and parts played with another file are refused. (The same on a Ray cluster and an S3
//! server: `scripts/test-cluster`.)

mod common;

use common::shogilab;
use shogilab_eval::values::log::GameLog;
use std::path::Path;

fn tmp(name: &str) -> std::path::PathBuf {
    common::tmp("tasks", name)
}

/// The last line of a task's stdout, as JSON.
fn task_line(text: &str) -> serde_json::Value {
    let line = text.lines().find(|l| l.starts_with("{\"")).unwrap_or_else(|| panic!("{text}"));
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"))
}

const VALUES: [&str; 10] =
    ["values", "-v", "shogi", "--games", "12", "--max-plies", "50", "--bootstrap", "20", "--seed"];

fn values(log: &Path, out: &Path, extra: &[&str]) -> (bool, String) {
    let mut args = VALUES.to_vec();
    args.extend(["5", "--threads", "1", "--log", log.to_str().unwrap()]);
    args.extend(["--out", out.to_str().unwrap()]);
    args.extend(extra);
    shogilab(&args)
}

/// The report's CSV files (the Markdown holds the command and timings).
fn report(out: &Path) -> String {
    ["shogi.csv", "shogi-all.csv", "shogi-effects.csv"]
        .map(|f| std::fs::read_to_string(out.join(f)).unwrap())
        .join("\n")
}

#[test]
fn values_tasks_merge_into_the_games_and_fit_of_one_process() {
    let root = tmp("values");
    let (split, single) = (root.join("split-log"), root.join("single-log"));
    let mut played = 0;
    for i in ["0", "1", "2"] {
        let (ok, text) =
            values(&split, &root.join("unused"), &["--task-index", i, "--task-count", "3"]);
        assert!(ok, "{text}");
        let line = task_line(&text);
        assert_eq!((line["task"].as_u64(), line["tasks"].as_u64()), (i.parse().ok(), Some(3)));
        assert_eq!(line["games"], line["played"], "{line}");
        assert!(line["object"]
            .as_str()
            .unwrap()
            .ends_with(&format!("task-0000{i}-of-00003.parquet")));
        played += line["played"].as_u64().unwrap();
    }
    assert_eq!(played, 12, "setups 0-5 both colours, each game in exactly one task");
    assert!(!root.join("unused").exists(), "a task writes no report");
    // a rerun (a retried or duplicated task) plays nothing and keeps the part
    let before = std::fs::read(split.join("task-00001-of-00003.parquet")).unwrap();
    let (ok, text) =
        values(&split, &root.join("unused"), &["--task-index", "1", "--task-count", "3"]);
    assert!(ok, "{text}");
    assert_eq!(task_line(&text)["played"], 0, "{text}");
    assert_eq!(std::fs::read(split.join("task-00001-of-00003.parquet")).unwrap(), before);
    // another split of the same log is refused, naming a part, and stores nothing
    let (ok, text) =
        values(&split, &root.join("unused"), &["--task-index", "0", "--task-count", "2"]);
    assert!(
        !ok && text.contains("task-00000-of-00003.parquet") && text.contains("--task-count 2"),
        "{text}"
    );
    assert_eq!(std::fs::read_dir(&split).unwrap().count(), 3);
    // the merge plays nothing and fits what one thread playing every game fits
    let (ok, text) = values(&split, &root.join("split"), &[]);
    assert!(ok, "{text}");
    assert!(text.contains("3 task parts (of 3 tasks), 0 other parts, 12 games"), "{text}");
    let (ok, text) = values(&single, &root.join("single"), &[]);
    assert!(ok, "{text}");
    let (a, b) =
        (GameLog::new(&split).read_games().unwrap(), GameLog::new(&single).read_games().unwrap());
    let key = |g: &shogilab_eval::values::imbalance::GameLine| {
        (g.setup, g.swap, g.seed, g.result.to_bits(), g.moves.clone(), g.sfen.clone())
    };
    assert_eq!(a.iter().map(key).collect::<Vec<_>>(), b.iter().map(key).collect::<Vec<_>>());
    assert_eq!(report(&root.join("split")), report(&root.join("single")));
    let _ = std::fs::remove_dir_all(&root);
}

fn selfplay(out: &Path, extra: &[&str]) -> (bool, String) {
    let mut args = vec!["selfplay", "-v", "shogi", "--games", "6", "--shard-games", "2"];
    args.extend([
        "--simulations",
        "4",
        "--evaluator",
        "material",
        "--max-plies",
        "40",
        "--seed",
        "3",
    ]);
    args.extend(["--out", out.to_str().unwrap()]);
    args.extend(extra);
    shogilab(&args)
}

#[test]
fn selfplay_tasks_store_the_shards_of_one_process() {
    let root = tmp("selfplay");
    let (split, single) = (root.join("split"), root.join("single"));
    for i in ["0", "1"] {
        let (ok, text) = selfplay(&split, &["--task-index", i, "--task-count", "2"]);
        assert!(ok, "{text}");
        let line = task_line(&text);
        let shards = line["shards"].as_array().unwrap().len();
        assert_eq!(shards, if i == "0" { 2 } else { 1 }, "shards 0, 2 and 1: {line}");
    }
    let (ok, merged) = selfplay(&split, &[]);
    assert!(
        ok && merged.contains("6 games (0 played now)") && merged.contains("in 3 shards"),
        "{merged}"
    );
    let (ok, one) = selfplay(&single, &[]);
    assert!(ok && one.contains("6 games (6 played now)"), "{one}");
    let positions =
        |t: &str| t.split(" positions").next().unwrap().rsplit(' ').next().unwrap().to_string();
    assert_eq!(positions(&merged), positions(&one), "{merged}\n{one}");
    for shard in 0..3 {
        let name = format!("games-{shard:05}.parquet");
        let games = |d: &Path| std::fs::read(d.join(&name)).unwrap();
        assert!(
            games(&split) == games(&single),
            "{name} differs between the split and one process"
        );
    }
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn impossible_tasks_and_locations_are_refused() {
    let root = tmp("bad");
    let out = root.to_str().unwrap();
    let (ok, text) = shogilab(&[
        "selfplay",
        "-v",
        "shogi",
        "--out",
        out,
        "--task-index",
        "2",
        "--task-count",
        "2",
    ]);
    assert!(!ok && text.contains("--task-index 2 --task-count 2"), "{text}");
    let (ok, text) = shogilab(&["selfplay", "-v", "shogi", "--out", "gs://bucket/run"]);
    assert!(
        !ok && text.contains("gs://bucket/run") && text.contains("unsupported scheme"),
        "{text}"
    );
    let (ok, text) = shogilab(&["values", "-v", "shogi", "--out", out, "--task-index", "0"]);
    assert!(!ok && text.contains("--task-count"), "{text}");
    assert!(!root.exists(), "nothing written");
}

fn gauntlet(out: &Path, extra: &[&str]) -> (bool, String) {
    let mut args = vec!["gauntlet", "-v", "shogi", "--agent", "random", "--agent", "greedy"];
    args.extend(["--agent", "alphabeta:1", "--games-per-pair", "4", "--max-plies", "60"]);
    args.extend(["--seed", "3", "--out", out.to_str().unwrap()]);
    args.extend(extra);
    shogilab(&args)
}

fn json_lines(path: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn gauntlet_tasks_merge_into_the_table_and_games_of_one_process() {
    let (split, whole) = (tmp("gauntlet-split"), tmp("gauntlet-whole"));
    for i in ["0", "1"] {
        let (ok, text) = gauntlet(&split, &["--task-index", i, "--task-count", "2"]);
        assert!(ok, "{text}");
        // three pairings, two of each pairing's four games (one opening, both colours)
        assert_eq!(
            (task_line(&text)["games"].as_u64(), task_line(&text)["played"].as_u64()),
            (Some(6), Some(6)),
            "{text}"
        );
    }
    let (ok, text) = gauntlet(&split, &["--task-index", "1", "--task-count", "2"]);
    assert!(ok && task_line(&text)["played"] == 0, "a stored task plays nothing: {text}");
    let (ok, text) = gauntlet(&split, &[]);
    assert!(ok && text.matches("(merged task parts)").count() == 3, "{text}");
    let (ok, text) = gauntlet(&whole, &[]);
    assert!(ok, "{text}");
    let read = |dir: &Path, f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    assert_eq!(read(&split, "games.txt"), read(&whole, "games.txt"));
    assert_eq!(read(&split, "games.txt").lines().count(), 12);
    assert_eq!(read(&split, "elo.md"), read(&whole, "elo.md"));
    assert_eq!(read(&split, "elo.json"), read(&whole, "elo.json"));
    assert_eq!(read(&split, "games.jsonl"), read(&whole, "games.jsonl"));
    assert_eq!(json_lines(&split.join("games.jsonl"))[11]["pair"], serde_json::json!([1, 2]));
    // another task count on the same location: refused naming a part, nothing written
    let before = read(&split, "elo.json");
    let (ok, text) = gauntlet(&split, &["--task-index", "0", "--task-count", "3"]);
    assert!(!ok && text.contains("pair-00"), "{text}");
    assert!(!split.join("pair-00/match-00000-of-00003.json").exists());
    // a pairing without parts: the merge is refused naming it, the old files stay
    std::fs::remove_dir_all(split.join("pair-01")).unwrap();
    let (ok, text) = gauntlet(&split, &[]);
    assert!(!ok && text.contains("pair-01") && text.contains("random vs alphabeta:1"), "{text}");
    assert_eq!(read(&split, "elo.json"), before);
    // a task without --out is refused
    let (ok, text) = shogilab(&[
        "gauntlet",
        "-v",
        "shogi",
        "--agent",
        "random",
        "--agent",
        "greedy",
        "--task-index",
        "0",
        "--task-count",
        "2",
    ]);
    assert!(!ok && text.contains("--task-index needs --out"), "{text}");
}

fn chu_match(out: &Path, extra: &[&str]) -> (bool, String) {
    let mut args = vec!["match", "-v", "chu", "--a", "random", "--b", "greedy", "--games", "4"];
    args.extend(["--max-plies", "30", "--seed", "2", "--out", out.to_str().unwrap()]);
    args.extend(extra);
    shogilab(&args)
}

#[test]
fn a_match_records_its_variant_options_and_refuses_parts_played_without_them() {
    let (split, whole) = (tmp("match-options-split"), tmp("match-options-whole"));
    let strict = ["--option", "repetition=forbidden"];
    let (ok, text) = chu_match(&whole, &strict);
    assert!(ok, "{text}");
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(whole.join("match.json")).unwrap()).unwrap();
    assert_eq!(record["settings"]["options"], serde_json::json!(["repetition=forbidden"]));
    assert_eq!(record["settings"]["variant"], "chu");
    let md = std::fs::read_to_string(whole.join("match.md")).unwrap();
    assert!(md.starts_with("# random vs greedy (chu, option repetition=forbidden)"), "{md}");
    // task 0 under the strict rule, task 1 under the default rule: refused, naming the part
    let (ok, text) =
        chu_match(&split, &[&strict[..], &["--task-index", "0", "--task-count", "2"]].concat());
    assert!(ok, "{text}");
    let (ok, text) = chu_match(&split, &["--task-index", "1", "--task-count", "2"]);
    assert!(!ok && text.contains("match-00000-of-00002.json"), "{text}");
    assert!(!split.join("match-00001-of-00002.json").exists());
}

fn shogi_match(out: &Path, openings: &Path, extra: &[&str]) -> (bool, String) {
    let mut args = vec!["match", "-v", "shogi", "--a", "greedy", "--b", "random", "--games", "6"];
    args.extend(["--max-plies", "40", "--seed", "4", "--out", out.to_str().unwrap()]);
    args.extend(["--openings", openings.to_str().unwrap()]);
    args.extend(extra);
    shogilab(&args)
}

#[test]
fn a_match_plays_the_openings_of_a_file_in_turn_and_refuses_a_bad_line_or_another_file() {
    let root = tmp("openings");
    std::fs::create_dir_all(&root).unwrap();
    let (file, other) = (root.join("openings.txt"), root.join("other.txt"));
    let after_7g7f = "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2";
    let text = format!("# book\nstartpos moves 7g7f 3c3d\n\nsfen {after_7g7f} moves 8c8d\n");
    std::fs::write(&file, &text).unwrap();
    let out = root.join("match");
    let (ok, log) = shogi_match(&out, &file, &[]);
    assert!(ok, "{log}");
    let games = std::fs::read_to_string(out.join("games.txt")).unwrap();
    let start = "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1 moves";
    let want = [
        format!("{start} 7g7f 3c3d "),
        format!("sfen {after_7g7f} moves 8c8d "),
        format!("{start} 7g7f 3c3d "),
    ];
    let lines: Vec<&str> = games.lines().collect();
    assert_eq!(lines.len(), 6, "{games}");
    for (i, line) in lines.iter().enumerate() {
        // each opening twice with the colours swapped, then the first again
        assert!(line.starts_with(&want[i / 2]), "game {}: {line}", i + 1);
    }
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("match.json")).unwrap()).unwrap();
    let settings = &record["settings"];
    assert_eq!(settings["openings"]["count"], 2);
    let sha = shogilab_store::cache::sha256_hex(text.as_bytes());
    assert_eq!(settings["openings"]["sha256"], serde_json::json!(sha));
    assert!(settings.get("opening_plies").is_none(), "{settings}");
    // a task with another openings file does not merge with a task of this one
    std::fs::write(&other, "startpos moves 2g2f\n").unwrap();
    let split = root.join("split");
    let (ok, log) = shogi_match(&split, &file, &["--task-index", "0", "--task-count", "2"]);
    assert!(ok, "{log}");
    let (ok, log) = shogi_match(&split, &other, &["--task-index", "1", "--task-count", "2"]);
    assert!(!ok && log.contains("match-00000-of-00002.json"), "{log}");
    // an illegal move: the file, the line and the move named, nothing written
    std::fs::write(&other, "startpos\n# fine so far\nstartpos moves 7g7f 7g7f\n").unwrap();
    let bad = root.join("bad");
    let (ok, log) = shogi_match(&bad, &other, &[]);
    assert!(!ok, "{log}");
    assert!(log.contains("other.txt, line 3: move 2 (7g7f)"), "{log}");
    assert!(!bad.exists());
}
