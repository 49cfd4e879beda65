//! One generation end to end through the binary for each of the four games: self-play with the
//! uniform evaluator -> Parquet -> training -> self-play with the new checkpoint; re-running a
//! finished self-play command resumes (skips complete shards); bad input is refused cleanly.

mod common;

use common::shogilab;
use std::path::Path;
use std::process::Command;

#[test]
fn one_generation_per_variant() {
    let root = std::env::temp_dir().join(format!("shogilab-stages-{}", std::process::id()));
    for (v, plies) in [("shogi", "30"), ("chu", "30"), ("tenjiku", "20"), ("tai", "6")] {
        let dir = root.join(v);
        let g0 = dir.join("gen-0000");
        let g0s = g0.to_str().unwrap();
        let sp = [
            "selfplay",
            "-v",
            v,
            "--out",
            g0s,
            "--games",
            "2",
            "--shard-games",
            "1",
            "--simulations",
            "4",
            "--concurrent",
            "2",
            "--max-plies",
            plies,
        ];
        let (ok, text) = shogilab(&sp);
        assert!(ok, "{v} selfplay: {text}");
        assert!(g0.join("positions-00001.parquet").exists() && g0.join("selfplay.toml").exists());
        let before =
            std::fs::metadata(g0.join("positions-00000.parquet")).unwrap().modified().unwrap();
        let (ok, text) = shogilab(&sp);
        assert!(ok, "{v} resume: {text}");
        let after =
            std::fs::metadata(g0.join("positions-00000.parquet")).unwrap().modified().unwrap();
        assert_eq!(before, after, "{v}: a complete shard was rewritten on resume");
        if v == "shogi" {
            settings_of_a_continued_folder_must_match(&sp, &g0);
        }
        let ck = dir.join("models/gen-0001.ot");
        let (ok, text) = shogilab(&[
            "train",
            "-v",
            v,
            "--data",
            g0s,
            "--out",
            ck.to_str().unwrap(),
            "--steps",
            "3",
            "--batch-size",
            "8",
        ]);
        assert!(ok, "{v} train: {text}");
        assert!(
            ck.exists() && ck.with_extension("json").exists() && ck.with_extension("csv").exists()
        );
        let g1 = dir.join("gen-0001");
        let (ok, text) = shogilab(&[
            "selfplay",
            "-v",
            v,
            "--out",
            g1.to_str().unwrap(),
            "--games",
            "1",
            "--simulations",
            "4",
            "--max-plies",
            plies,
            "--evaluator",
            ck.to_str().unwrap(),
            "--generation",
            "1",
        ]);
        assert!(ok, "{v} selfplay with the checkpoint: {text}");
        assert!(g1.join("positions-00000.parquet").exists());
    }
    // bad input: a foreign Parquet file, a checkpoint of another variant
    let junk = root.join("junk");
    std::fs::create_dir_all(&junk).unwrap();
    std::fs::write(junk.join("positions-00000.parquet"), b"PAR1 not really").unwrap();
    let (ok, text) = shogilab(&[
        "train",
        "-v",
        "chu",
        "--data",
        junk.to_str().unwrap(),
        "--out",
        junk.join("x.ot").to_str().unwrap(),
    ]);
    assert!(!ok && text.contains("positions-00000.parquet"), "{text}");
    assert!(!Path::new(&junk.join("x.ot")).exists());
    let ck = root.join("shogi/models/gen-0001.ot");
    let (ok, text) = shogilab(&[
        "selfplay",
        "-v",
        "chu",
        "--out",
        junk.join("o").to_str().unwrap(),
        "--evaluator",
        ck.to_str().unwrap(),
    ]);
    assert!(!ok && text.contains("trained for variant \"shogi\""), "{text}");
    std::fs::remove_dir_all(&root).ok();
}

/// `selfplay` into a folder made with other settings is refused, naming the setting and both
/// values, and leaves the folder as it was; only `--games` may grow (from whole shards).
fn settings_of_a_continued_folder_must_match(args: &[&str], dir: &Path) {
    let saved = std::fs::read_to_string(dir.join("selfplay.toml")).unwrap();
    let files = |d: &Path| {
        let mut f: Vec<_> = std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name()).collect();
        f.sort();
        f
    };
    let before = files(dir);
    let with = |key: &str, value: &str| {
        let mut a: Vec<&str> = args.to_vec();
        match a.iter().position(|x| *x == key) {
            Some(i) => a[i + 1] = value,
            None => a.extend([key, value]),
        }
        a.iter().map(|x| x.to_string()).collect::<Vec<_>>()
    };
    for (key, value, needle) in [
        ("--simulations", "16", "`selfplay.search.simulations` was 4, now 16"),
        ("--seed", "9", "`seed` was 1, now 9"),
        ("--max-plies", "31", "`selfplay.max_plies` was 30, now 31"),
        ("--evaluator", "material", "`evaluator` was \"uniform\", now \"material:mobility\""),
        ("--games", "1", "records 2 games"),
    ] {
        let a = with(key, value);
        let (ok, text) = shogilab(&a.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(!ok, "{key} {value} accepted: {text}");
        assert!(text.contains("selfplay.toml") && text.contains(needle), "{key}: {text}");
        assert_eq!(saved, std::fs::read_to_string(dir.join("selfplay.toml")).unwrap());
        assert_eq!(before, files(dir), "{key} {value} changed the folder");
    }
    // more games continue the folder, in the same shards; the record says how many
    let a = with("--games", "3");
    let (ok, text) = shogilab(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(ok, "{text}");
    assert!(text.contains("3 games (1 played now)"), "{text}");
    assert!(std::fs::read_to_string(dir.join("selfplay.toml")).unwrap().contains("games = 3"));
}

#[test]
fn pipeline_runs_and_resumes() {
    let dir = std::env::temp_dir().join(format!("shogilab-pipeline-{}", std::process::id()));
    let d = dir.to_str().unwrap();
    let args = [
        "pipeline",
        "-v",
        "chu",
        "--out",
        d,
        "--config",
        "configs/pipeline/quickstart.toml",
        "--generations",
        "2",
        "--games",
        "4",
        "--simulations",
        "4",
        "--steps",
        "4",
        "--eval-games",
        "2",
        "--preset",
        "tiny",
        "--set",
        "shard_games=2",
        "--set",
        "selfplay.concurrent=4",
        "--set",
        "selfplay.max_plies=40",
        "--set",
        "train.batch_size=8",
    ];
    let (ok, text) = shogilab(&args);
    assert!(ok, "{text}");
    for f in [
        "run.toml",
        "report.md",
        "loss.png",
        "models/gen-0001.ot",
        "models/gen-0002.ot",
        "eval/gen-0002/match.md",
        "selfplay/gen-0001/positions-00001.parquet",
    ] {
        assert!(dir.join(f).exists(), "{f} missing");
    }
    // the evaluation: a one-line summary on the terminal, the games in the run directory
    assert!(!text.contains("game   1:"), "per-game lines on the terminal: {text}");
    let summary = text
        .lines()
        .find(|l| l.starts_with("== generation 1: +"))
        .unwrap_or_else(|| panic!("no one-line evaluation summary: {text}"));
    let record: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("eval/gen-0002/match.json")).unwrap(),
    )
    .unwrap();
    let (w, d, l) = (&record["wins"], &record["draws"], &record["losses"]);
    assert!(summary.contains(&format!("+{w} ={d} -{l} (2 games)")), "{summary} vs {record}");
    let log = std::fs::read_to_string(dir.join("eval/gen-0002/games.log")).unwrap();
    assert_eq!(log.lines().filter(|l| l.starts_with("game ")).count(), 2, "{log}");
    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(report.contains(&format!("| +{w} ={d} -{l} |")), "{report}");
    let stamp = |f: &str| std::fs::metadata(dir.join(f)).unwrap().modified().unwrap();
    let before = (stamp("models/gen-0002.ot"), stamp("selfplay/gen-0001/positions-00000.parquet"));
    let (ok, text) = shogilab(&args);
    assert!(ok, "{text}");
    assert_eq!(
        before,
        (stamp("models/gen-0002.ot"), stamp("selfplay/gen-0001/positions-00000.parquet")),
        "resume redid work"
    );
    assert_eq!(report, std::fs::read_to_string(dir.join("report.md")).unwrap(), "{text}");
    let run_toml = std::fs::read_to_string(dir.join("run.toml")).unwrap();
    let mut other = args.to_vec();
    let last = other.len() - 1;
    other[last] = "train.batch_size=16";
    let (ok, text) = shogilab(&other);
    assert!(!ok && text.contains("run.toml") && text.contains("train"), "{text}");
    assert_eq!(run_toml, std::fs::read_to_string(dir.join("run.toml")).unwrap());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_pipeline_configuration_is_refused_before_anything_is_written() {
    let root = std::env::temp_dir().join(format!("shogilab-badcfg-{}", std::process::id()));
    std::fs::create_dir_all(&root).unwrap();
    let file = root.join("typo.toml");
    std::fs::write(&file, "games = 4\n[selfplay.search]\nsimulatons = 8\n").unwrap();
    let out = root.join("run");
    let o = out.to_str().unwrap();
    let cases: [(&[&str], &[&str]); 6] = [
        (&["--config", file.to_str().unwrap()], &["typo.toml", "selfplay.search.simulatons"]),
        (&["--set", "train.learning_rate=fast"], &["--set", "train.learning_rate", "number"]),
        (&["--set", "selfplay.concurrent=0"], &["selfplay.concurrent"]),
        (&["--set", "train.sample_fraction=0"], &["train.sample_fraction", "(0, 1]"]),
        (&["--set", "preset=huge"], &["preset"]),
        (&["--config", "no/such/file.toml"], &["no/such/file.toml"]),
    ];
    for (extra, needles) in cases {
        let mut args = vec!["pipeline", "-v", "chu", "--out", o];
        args.extend_from_slice(extra);
        let (ok, text) = shogilab(&args);
        assert!(!ok, "{extra:?} accepted: {text}");
        for n in needles {
            assert!(text.contains(n), "{extra:?}: {n:?} not in {text}");
        }
        assert!(!out.exists(), "{extra:?} created the run directory");
    }
    std::fs::remove_dir_all(&root).ok();
}

/// A run directory on a 400 KiB file system (a tmpfs in a private mount namespace): the pipeline
/// fails with the operating system's message, leaves no temporary files, keeps every completed
/// file readable, and the run finishes when continued with room to spare.
#[test]
fn full_disk_fails_cleanly_and_the_run_continues_elsewhere() {
    let root = std::env::temp_dir().join(format!("shogilab-full-{}", std::process::id()));
    let (small, copy) = (root.join("small"), root.join("copy"));
    std::fs::create_dir_all(&small).unwrap();
    let pipeline = |out: &Path| {
        format!(
            "{} pipeline -v chu --out {} --generations 2 --games 4 --simulations 2 --steps 3 \
             --eval-games 0 --set shard_games=1 --set selfplay.concurrent=4 \
             --set selfplay.max_plies=30 --set train.batch_size=8",
            env!("CARGO_BIN_EXE_shogilab"),
            out.display()
        )
    };
    let script = format!(
        "mount -t tmpfs -o size=400k tmpfs {s} || exit 99; {run} 2>&1; echo EXIT=$?; \
         cp -a {s}/. {c}/",
        s = small.display(),
        c = copy.display(),
        run = pipeline(&small.join("run"))
    );
    let out = Command::new("unshare")
        .args(["--mount", "--map-root-user", "sh", "-c", &script])
        .output()
        .expect("unshare (util-linux) is needed for this test");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(!text.contains("EXIT=0") && text.contains("EXIT="), "{text}");
    assert!(text.contains("No space left on device"), "{text}");
    assert!(!text.contains("panicked"), "{text}");
    let run = copy.join("run");
    let mut files = Vec::new();
    let mut stack = vec![run.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                files.push(p);
            }
        }
    }
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        assert!(!name.starts_with('.') && !name.ends_with(".tmp"), "temporary left: {name}");
    }
    let shards: Vec<_> =
        files.iter().filter(|f| f.extension().is_some_and(|e| e == "parquet")).cloned().collect();
    assert!(!shards.is_empty(), "nothing completed before the disk filled: {files:?}");
    let positions: Vec<_> = shards
        .iter()
        .filter(|f| f.file_name().unwrap().to_string_lossy().starts_with("positions-"))
        .cloned()
        .collect();
    shogilab_selfplay::dataset::read_samples(&positions, "chu").expect("completed shards read");
    let status = Command::new("sh").args(["-c", &pipeline(&run)]).output().unwrap();
    assert!(
        status.status.success(),
        "continuing with space failed: {}",
        String::from_utf8_lossy(&status.stderr)
    );
    assert!(run.join("models/gen-0002.ot").exists() && run.join("report.md").exists());
    std::fs::remove_dir_all(&root).ok();
}
