//! `shogilab teacher` through the binary: a small imbalance log (played here by `shogilab
//! values`) becomes positions in the self-play schema whose policy moves are the logged moves
//! and whose results are the games' results; a rerun keeps complete shards, other settings are
//! refused naming the setting, another variant's log or a bad value scale is refused naming it,
//! a given value scale replaces the fitted one, and the export trains a network with held-out
//! figures.

mod common;

use common::shogilab;
use shogilab_selfplay::dataset;
use std::path::{Path, PathBuf};

fn tmp(name: &str) -> PathBuf {
    common::tmp("teacher", name)
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 temp path")
}

/// Play six shogi imbalance games (most of them decisive) into `dir` (the log lands in `dir/games/shogi`).
fn play_log(dir: &Path) -> PathBuf {
    let args = ["values", "-v", "shogi", "--out", s(dir), "--games", "6", "--max-plies", "300"];
    let (ok, text) = shogilab(&args);
    assert!(ok, "values: {text}");
    dir.join("games").join("shogi")
}

#[test]
fn a_log_becomes_trainable_positions_of_its_games() {
    let root = tmp("export");
    let log = play_log(&root.join("values"));
    let out = root.join("teacher");
    let args = [
        "teacher",
        "-v",
        "shogi",
        "--log",
        s(&log),
        "--out",
        s(&out),
        "--every",
        "2",
        "--games-per-shard",
        "4",
        "--value-depth",
        "0",
    ];
    let (ok, text) = shogilab(&args);
    assert!(ok, "{text}");
    assert!(text.contains("6 games ->") && text.contains("in 2 shards"), "{text}");
    let files = [out.join("positions-00000.parquet"), out.join("positions-00001.parquet")];
    let samples = dataset::read_samples(&files, "shogi").expect("the export reads back");
    assert!(samples.len() >= 6, "{} positions from 6 games of up to 40 plies", samples.len());
    for x in &samples {
        assert_eq!((x.policy_moves.len(), x.policy_probs.as_slice()), (1, &[1.0f32][..]));
        assert_eq!(x.root_value, f32::from(x.result), "root_value repeats the result");
    }
    // every logged move is legal where it was played: decoding refuses an illegal policy move
    let enc = shogilab_selfplay::encode::Encoder::new(
        shogilab_engine::Variant::builtin("shogi").expect("built in"),
    );
    let examples = shogilab_train::examples::decode(&enc, &samples, 0.0).expect("decodes");
    assert_eq!(examples.len(), samples.len());

    // a rerun keeps the complete shards; other settings are refused naming the key
    let before = std::fs::metadata(&files[0]).and_then(|m| m.modified()).expect("exists");
    let (ok, text) = shogilab(&args);
    assert!(ok && text.contains("2 kept"), "{text}");
    assert_eq!(before, std::fs::metadata(&files[0]).and_then(|m| m.modified()).expect("exists"));
    let mut other = args.to_vec();
    other[8] = "3";
    let (ok, text) = shogilab(&other);
    assert!(!ok && text.contains("`every` was 2, now 3"), "{text}");

    // the export trains, with figures on held-out games
    let ck = root.join("net.ot");
    let (ok, text) = shogilab(&[
        "train",
        "-v",
        "shogi",
        "--data",
        s(&out),
        "--out",
        s(&ck),
        "--preset",
        "tiny",
        "--steps",
        "4",
        "--batch-size",
        "8",
        "--validation-percent",
        "40",
        "--lr-schedule",
        "cosine",
        "--warmup-steps",
        "2",
    ]);
    assert!(ok, "{text}");
    assert!(text.contains("held out") && text.contains("policy accuracy"), "{text}");
    let meta = std::fs::read_to_string(ck.with_extension("json")).expect("sidecar");
    assert!(meta.contains("\"validation\""), "{meta}");
    let csv = std::fs::read_to_string(ck.with_extension("csv")).expect("metrics");
    assert!(csv.starts_with("step,policy_loss,value_loss,total_loss,policy_accuracy,lr,"), "{csv}");
    std::fs::remove_dir_all(&root).ok();
}

#[test]
fn another_variants_log_or_no_log_is_refused_naming_it() {
    let root = tmp("refuse");
    let log = play_log(&root.join("values"));
    let out = root.join("teacher");
    let (ok, text) = shogilab(&["teacher", "-v", "chu", "--log", s(&log), "--out", s(&out)]);
    assert!(!ok && text.contains("game 0") && text.contains(s(&log)), "{text}");
    assert!(!text.contains("panicked"), "{text}");
    assert!(!out.join("positions-00000.parquet").exists(), "nothing written for a bad log");
    // a value scale must be positive, and needs a value search
    for (scale, depth, says) in [("0", "1", "positive"), ("300", "0", "--value-depth 1")] {
        let args = ["teacher", "-v", "shogi", "--log", s(&log), "--out", s(&out)];
        let extra = ["--value-scale", scale, "--value-depth", depth];
        let (ok, text) = shogilab(&[&args[..], &extra[..]].concat());
        assert!(!ok && text.contains("--value-scale") && text.contains(says), "{text}");
        assert!(!out.join("teacher.toml").exists(), "nothing written for a bad scale");
    }
    let args = ["teacher", "-v", "shogi", "--log", s(&log), "--out", s(&out), "--value-scale"];
    let (ok, text) = shogilab(&[&args[..], &["750"]].concat());
    assert!(ok && text.contains("logistic scale 750.0 (given)"), "{text}");
    let saved = std::fs::read_to_string(out.join("teacher.toml")).expect("settings saved");
    assert!(saved.contains("value_scale = 750.0"), "{saved}");
    std::fs::remove_dir_all(&out).ok();
    let missing = root.join("nothing-here");
    let (ok, text) = shogilab(&["teacher", "-v", "shogi", "--log", s(&missing), "--out", s(&out)]);
    assert!(!ok && text.contains(s(&missing)), "{text}");
    std::fs::remove_dir_all(&root).ok();
}

/// `shogilab pipeline` arguments for one tiny generation into `run` (2 self-play games at 4
/// simulations, anchor `random` twice), then `--set` for each of `settings`.
fn small_pipeline(variant: &str, run: &Path, settings: &[&str]) -> Vec<String> {
    let mut args: Vec<String> =
        ["pipeline", "-v", variant, "--out", s(run)].map(String::from).into();
    let small = [
        "generations=1",
        "games=2",
        "shard_games=2",
        "selfplay.search.simulations=4",
        "eval.games=0",
        "eval.anchors=[\"random\"]",
        "eval.anchor_games=2",
        "train.batch_size=8",
    ];
    for kv in small.iter().chain(settings) {
        args.extend(["--set".to_string(), kv.to_string()]);
    }
    args
}

#[test]
fn a_pipeline_starts_from_the_teacher_and_draws_its_curve() {
    let root = tmp("pipeline");
    let log = play_log(&root.join("values"));
    let run = root.join("run");
    let teacher_log = format!("teacher.log={:?}", s(&log));
    let settings = [
        teacher_log.as_str(),
        "teacher.steps=3",
        "teacher.every=2",
        // six games are too few to fit the scale (refused: the fit runs to its bound)
        "teacher.value_scale=500.0",
        "selfplay.max_plies=30",
        "preset=\"tiny\"",
        "steps=3",
    ];
    let owned = small_pipeline("shogi", &run, &settings);
    let args: Vec<&str> = owned.iter().map(String::as_str).collect();
    let (ok, text) = shogilab(&args);
    assert!(ok, "{text}");
    for f in [
        "teacher/teacher.toml",
        "teacher/positions-00000.parquet",
        "models/gen-0000.ot",
        "models/gen-0001.ot",
        "eval/gen-0000/anchors/random/match.json",
        "eval/gen-0001/anchors/random/match.json",
        "elo-by-generation.png",
        "elo-by-cpu-hours.png",
    ] {
        assert!(run.join(f).exists(), "{f} missing:\n{text}");
    }
    // the teacher values are searched scores (depth 1 by default), not the results
    let shard = [run.join("teacher/positions-00000.parquet")];
    let samples = dataset::read_samples(&shard, "shogi").expect("teacher positions");
    assert!(samples.iter().all(|x| x.root_value.abs() <= 1.0));
    assert!(samples.iter().any(|x| x.root_value.abs() < 1.0), "values are not all results");
    // generation 0 plays with the teacher network, not the uniform evaluator
    let sp = std::fs::read_to_string(run.join("selfplay/gen-0000/selfplay.toml")).expect("saved");
    assert!(sp.contains("gen-0000"), "{sp}");
    let compute = std::fs::read_to_string(run.join("compute.csv")).expect("compute log");
    let stages: Vec<&str> = compute.lines().skip(1).filter_map(|l| l.split(',').nth(1)).collect();
    assert_eq!(stages, ["teacher", "selfplay", "train"], "{compute}");
    let curve = std::fs::read_to_string(run.join("curve.csv")).expect("curve");
    let rows: Vec<Vec<&str>> = curve.lines().skip(1).map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 2, "{curve}");
    assert_eq!((rows[0][0], rows[1][0]), ("0", "1"), "{curve}");
    let hours: Vec<f64> = rows.iter().map(|r| r[1].parse().expect("a number")).collect();
    assert!(hours[0] > 0.0 && hours[1] > hours[0], "CPU-hours grow: {curve}");
    assert!(rows.iter().all(|r| r[2] == "random" && r[3] == "2"), "{curve}");
    let report = std::fs::read_to_string(run.join("report.md")).expect("report");
    assert!(report.contains("Against the anchors") && report.contains("gen-0001"), "{report}");
    // a rerun does nothing new and writes the same report
    let (ok, text) = shogilab(&args);
    assert!(ok, "{text}");
    assert_eq!(report, std::fs::read_to_string(run.join("report.md")).expect("report"));
    std::fs::remove_dir_all(&root).ok();
}

#[test]
fn a_pipeline_starts_from_a_trained_network_and_counts_its_hours() {
    let root = tmp("network");
    let reference = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/chu.ot");
    let network = format!("teacher.network={:?}", s(&reference));
    let run = root.join("run");
    let settings =
        [network.as_str(), "teacher.network_cpu_hours=0.5", "selfplay.max_plies=20", "steps=2"];
    let owned = small_pipeline("chu", &run, &settings);
    let args: Vec<&str> = owned.iter().map(String::as_str).collect();
    let (ok, text) = shogilab(&args);
    assert!(ok, "{text}");
    let copied = std::fs::read(run.join("models/gen-0000.ot")).expect("generation 0");
    assert_eq!(copied, std::fs::read(&reference).expect("reference"), "copied as it is");
    let compute = std::fs::read_to_string(run.join("compute.csv")).expect("compute log");
    assert_eq!(compute.lines().nth(1), Some("0,teacher,1800.000,1"), "{compute}");
    let curve = std::fs::read_to_string(run.join("curve.csv")).expect("curve");
    let gen0 = curve.lines().nth(1).expect("generation 0's point");
    assert!(gen0.starts_with("0,0.5"), "the network's own hours: {curve}");
    // the same network for another variant is refused, naming the file, before anything runs
    let other = root.join("other");
    let owned = small_pipeline("shogi", &other, &settings);
    let args: Vec<&str> = owned.iter().map(String::as_str).collect();
    let (ok, text) = shogilab(&args);
    assert!(!ok && text.contains(s(&reference)) && text.contains("chu"), "{text}");
    assert!(!text.contains("panicked"), "{text}");
    assert!(!other.join("models/gen-0000.ot").exists(), "nothing adopted");
    std::fs::remove_dir_all(&root).ok();
}
