//! One generation end to end through the binary for each of the four games: self-play with the
//! uniform evaluator -> Parquet -> training -> self-play with the new checkpoint; re-running a
//! finished self-play command resumes (skips complete shards); bad input is refused cleanly.

use std::path::Path;
use std::process::Command;

fn shogilab(args: &[&str]) -> (bool, String) {
    let out =
        Command::new(env!("CARGO_BIN_EXE_shogilab")).args(args).output().expect("run shogilab");
    let text =
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

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
        "--generations",
        "2",
        "--games",
        "4",
        "--shard-games",
        "2",
        "--simulations",
        "4",
        "--concurrent",
        "4",
        "--max-plies",
        "40",
        "--steps",
        "4",
        "--batch-size",
        "8",
        "--eval-games",
        "2",
    ];
    let (ok, text) = shogilab(&args);
    assert!(ok, "{text}");
    for f in [
        "run.toml",
        "report.md",
        "models/gen-0001.ot",
        "models/gen-0002.ot",
        "eval/gen-0002/match.md",
        "selfplay/gen-0001/positions-00001.parquet",
    ] {
        assert!(dir.join(f).exists(), "{f} missing");
    }
    let stamp = |f: &str| std::fs::metadata(dir.join(f)).unwrap().modified().unwrap();
    let before = (stamp("models/gen-0002.ot"), stamp("selfplay/gen-0001/positions-00000.parquet"));
    let (ok, text) = shogilab(&args);
    assert!(ok, "{text}");
    assert_eq!(
        before,
        (stamp("models/gen-0002.ot"), stamp("selfplay/gen-0001/positions-00000.parquet")),
        "resume redid work"
    );
    std::fs::remove_dir_all(&dir).ok();
}
