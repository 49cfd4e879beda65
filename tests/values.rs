//! `shogilab values` through the binary: bad input (unknown variant, missing or corrupt
//! dataset, missing checkpoint, missing reference) fails with a message naming the input and
//! writes nothing; a tiny shogi run writes the report files with the documented CSV columns,
//! a second run with a larger `--games` extends the game log, a SIGTERM stops the games
//! and keeps them with their session line, and a JSON-lines log of an earlier version converts
//! into the Parquet log with the same games, sessions and fit; odds games calibrate and
//! `--unit` rescales; an agent engine (`--engine`) plays the games under its spec and its
//! checkpoint's digest; `values-trend` writes its report (citing a log's games) and refuses a config naming a missing table.

mod common;

use common::shogilab;
use shogilab_eval::values::log::{GameLog, SessionLine};
use std::path::{Path, PathBuf};
use std::process::Command;

fn tmp(name: &str) -> PathBuf {
    common::tmp("values", name)
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(files_in(&p));
            } else {
                out.push(p.display().to_string());
            }
        }
    }
    out
}

fn refused(args: &[&str], out: &Path, must_name: &str) {
    let (ok, text) = shogilab(args);
    assert!(!ok, "{args:?} should fail:\n{text}");
    assert!(text.contains(must_name), "{args:?}: message should name {must_name:?}:\n{text}");
    assert!(!text.contains("panicked"), "{text}");
    assert!(files_in(out).is_empty(), "{args:?} left files: {:?}", files_in(out));
}

#[test]
fn bad_input_is_refused_naming_it() {
    let out = tmp("bad");
    let o = out.to_str().unwrap();
    refused(
        &["values", "-v", "no-such-variant", "--out", o, "--games", "2"],
        &out,
        "no-such-variant",
    );
    let missing = out.with_extension("nothing-here");
    let m = missing.to_str().unwrap();
    refused(&["values", "-v", "chu", "--out", o, "--games", "2", "--datasets", m], &out, m);
    // a corrupt positions file
    let data = tmp("corrupt");
    std::fs::create_dir_all(&data).unwrap();
    let bad = data.join("positions-00000.parquet");
    std::fs::write(&bad, b"this is not parquet").unwrap();
    let b = bad.to_str().unwrap();
    refused(&["values", "-v", "chu", "--out", o, "--games", "2", "--datasets", b], &out, b);
    refused(
        &["values", "-v", "chu", "--out", o, "--games", "2", "--datasets", data.to_str().unwrap()],
        &out,
        b,
    );
    let ckpt = data.join("missing.ot");
    let c = ckpt.to_str().unwrap();
    refused(&["values", "-v", "chu", "--out", o, "--games", "2", "--probe", c], &out, c);
    let reference = data.join("nope.toml");
    let r = reference.to_str().unwrap();
    refused(&["values", "-v", "chu", "--out", o, "--games", "2", "--reference", r], &out, r);
    // a reference that misses piece kinds is refused too
    let partial = data.join("partial.toml");
    std::fs::write(&partial, "source = \"x\"\nvariant = \"chu\"\n[values]\npawn = 1\n").unwrap();
    let p = partial.to_str().unwrap();
    refused(&["values", "-v", "chu", "--out", o, "--games", "2", "--reference", p], &out, "lion");
    refused(&["values", "-v", "shogi", "--out", o, "--games", "0"], &out, "nothing to measure");
    refused(&["values", "-v", "chu", "--out", o, "--games", "2", "--unit", "bogus"], &out, "bogus");
    refused(&["values", "-v", "chu", "--out", o, "--games", "2", "--odds", "king"], &out, "king");
    refused(
        &["values", "-v", "chu", "--out", o, "--games", "2", "--odds", "prince"],
        &out,
        "prince",
    );
    let _ = std::fs::remove_dir_all(&data);
}

#[test]
fn tiny_run_writes_the_report_and_extends_the_log() {
    let out = tmp("run");
    let o = out.to_str().unwrap();
    let base = [
        "values",
        "-v",
        "shogi",
        "--out",
        o,
        "--max-plies",
        "60",
        "--bootstrap",
        "20",
        "--probe",
        "material",
        "--probe-positions",
        "4",
        "--threads",
        "2",
    ];
    let mut args = base.to_vec();
    args.extend(["--games", "6"]);
    let (ok, text) = shogilab(&args);
    assert!(ok, "{text}");
    let csv = std::fs::read_to_string(out.join("shogi.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("piece,value,ci_low,ci_high,method,gcsa"));
    let rows: Vec<&str> = lines.collect();
    // one row per kind of standard shogi (promoted types take the names they move as)
    let kinds =
        ["king", "rook", "bishop", "gold general", "silver general", "knight", "lance", "pawn"];
    for k in kinds {
        assert!(rows.iter().any(|r| r.starts_with(&format!("{k},"))), "{k} missing:\n{csv}");
    }
    for r in &rows {
        assert_eq!(r.split(',').count(), 6, "{r}");
    }
    let all = std::fs::read_to_string(out.join("shogi-all.csv")).unwrap();
    assert!(all.lines().any(|l| l.ends_with(",imbalance,") || l.contains(",imbalance,")), "{all}");
    assert!(all.lines().any(|l| l.contains(",probe,")), "{all}");
    // the unit-free effects: one row per kind of each regression method, none for the probe
    let effects = std::fs::read_to_string(out.join("shogi-effects.csv")).unwrap();
    assert_eq!(effects.lines().next(), Some("piece,effect,ci_low,ci_high,method,gcsa"));
    let imbalance_rows = |t: &str| t.lines().filter(|l| l.contains(",imbalance,")).count();
    assert_eq!(imbalance_rows(&effects), imbalance_rows(&all), "{effects}");
    assert_eq!(imbalance_rows(&effects), rows.len(), "{effects}");
    assert!(!effects.contains(",probe,"), "{effects}");
    let md = std::fs::read_to_string(out.join("shogi.md")).unwrap();
    assert!(md.contains("# Piece values: shogi"), "{md}");
    assert!(md.contains("## Effects on the win odds"), "{md}");
    assert!(
        md.contains("## How the engine used each kind") && md.contains("| multi-step: played |"),
        "{md}"
    );
    let log = GameLog::of_variant(&out, "shogi");
    assert_eq!(log.read_games().unwrap().len(), 6);
    // extend: two more games, the first six are kept
    let mut args = base.to_vec();
    args.extend(["--games", "8"]);
    let (ok, text) = shogilab(&args);
    assert!(ok, "{text}");
    assert_eq!(log.read_games().unwrap().len(), 8);
    // other engine settings on the same log are refused, naming the log
    let mut args = base.to_vec();
    args.extend(["--games", "10", "--depth", "2", "--budget-per-root-move"]);
    let (ok, text) = shogilab(&args);
    assert!(!ok && text.contains("games/shogi"), "{text}");
    // depth 2 with one node budget for all the root moves is refused before anything runs
    let mut args = base.to_vec();
    args.extend(["--games", "10", "--depth", "2"]);
    let (ok, text) = shogilab(&args);
    assert!(!ok && text.contains("--budget-per-root-move"), "{text}");
    assert_eq!(log.read_games().unwrap().len(), 8);
    // odds games go to the same log, are fitted apart, and calibrate; values in golds
    let mut args = base.to_vec();
    args.extend(["--games", "6", "--odds", "pawn", "--unit", "gold general", "--no-positions"]);
    let (ok, text) = shogilab(&args);
    assert!(ok, "{text}");
    assert_eq!(log.read_games().unwrap().len(), 14);
    let odds = std::fs::read_to_string(out.join("shogi-odds.csv")).unwrap();
    assert!(odds.starts_with("kind,games,setups,decisive,score,"), "{odds}");
    assert!(odds.lines().nth(1).is_some_and(|l| l.starts_with("pawn,6,3,")), "{odds}");
    let md = std::fs::read_to_string(out.join("shogi.md")).unwrap();
    assert!(md.contains("## Calibration: odds games") && md.contains("gold general = 1"), "{md}");
    assert!(md.contains("8 games from 4 setups"), "the imbalance fit holds the odds games:\n{md}");
    assert!(!md.contains("**imbalance-positions**"), "--no-positions fitted it:\n{md}");
    let csv = std::fs::read_to_string(out.join("shogi.csv")).unwrap();
    assert!(csv.lines().any(|l| l.starts_with("gold general,1.000,1.000,1.000,")), "{csv}");
    // no temporary files left behind
    assert!(files_in(&out).iter().all(|f| !f.ends_with(".tmp")), "{:?}", files_in(&out));
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn an_agent_engine_plays_the_games_under_its_spec_and_checkpoint() {
    let out = tmp("engine");
    let o = out.to_str().unwrap();
    let net = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/shogi.ot");
    let spec = format!("mcts:{}:4", net.display());
    let mut args = vec!["values", "-v", "shogi", "--out", o, "--max-plies", "30", "--games", "2"];
    args.extend(["--bootstrap", "20", "--no-positions", "--threads", "1", "--engine", &spec]);
    let (ok, text) = shogilab(&args);
    assert!(ok, "{text}");
    let games = GameLog::of_variant(&out, "shogi").read_games().unwrap();
    let digest = shogilab_store::cache::sha256_hex(&std::fs::read(&net).unwrap());
    let id = format!("agent[{spec}|shogi.ot={}]-cap30-rm3p3pr0.6", &digest[..12]);
    assert_eq!(games.len(), 2);
    assert!(games.iter().all(|g| g.agent == id && !g.moves.is_empty()), "{:?}", games[0].agent);
    let md = std::fs::read_to_string(out.join("shogi.md")).unwrap();
    assert!(md.contains(&format!("the match agent `{spec}` against itself")), "{md}");
    // the imbalance engine's settings are refused beside an agent engine; so are a spec that
    // does not parse and one whose checkpoint is missing, before anything is written
    let _ = std::fs::remove_dir_all(&out);
    let base = ["values", "-v", "shogi", "--out", o, "--games", "2", "--engine"];
    let with = |extra: &[&'static str]| [&base[..], extra].concat();
    refused(&with(&["alphabeta:1", "--depth", "2"]), &out, "--depth");
    refused(&with(&["mcts:nowhere.ot"]), &out, "nowhere.ot");
    refused(&with(&["alphabeta:x"]), &out, "--engine \"alphabeta:x\"");
}

#[cfg(unix)]
#[test]
fn a_signal_keeps_the_games_and_the_session_line() {
    let out = tmp("signal");
    let child = Command::new(env!("CARGO_BIN_EXE_shogilab"))
        .args(["values", "-v", "shogi", "--max-plies", "60", "--games", "100000"])
        .args(["--threads", "1", "--bootstrap", "20", "--part-games", "1", "--out"])
        .arg(&out)
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("run shogilab");
    let log = GameLog::of_variant(&out, "shogi");
    // parts are written whole, so a reader never sees half of one
    let games = || log.read_games().unwrap().len();
    let t0 = std::time::Instant::now();
    while games() < 3 {
        assert!(t0.elapsed().as_secs() < 120, "no games after two minutes");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let kill = Command::new("kill").args(["-TERM", &child.id().to_string()]).status();
    assert!(kill.is_ok_and(|s| s.success()));
    let done = child.wait_with_output().expect("wait");
    let err = String::from_utf8_lossy(&done.stderr);
    assert!(!done.status.success(), "{err}");
    assert!(err.contains("interrupted") && err.contains("games/shogi"), "{err}");
    // every finished game is in the log, and the session line counts them
    let sessions = log.read_sessions().unwrap();
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    assert_eq!(sessions[0].played, games() as u64, "{sessions:?}");
    assert_eq!(sessions[0].note.as_deref(), Some("stopped by a signal"));
    // nothing was fitted or written beside the log
    assert!(!out.join("shogi.md").exists() && !out.join("shogi.csv").exists());
    std::fs::remove_dir_all(&out).ok();
}

/// The report's CSV files of a folder, by name.
fn csvs(dir: &Path) -> Vec<(String, String)> {
    ["shogi.csv", "shogi-all.csv", "shogi-effects.csv"]
        .iter()
        .map(|f| (f.to_string(), std::fs::read_to_string(dir.join(f)).unwrap()))
        .collect()
}

/// The sessions of a converted log against the originals: every field equal, the wall-clock
/// seconds to 1e-12 relative (serde_json's default number parser is not correctly rounded: a
/// time written with 17 digits can come back one unit in the last place away).
fn assert_same_sessions(converted: &[SessionLine], original: &[SessionLine]) {
    assert_eq!(converted.len(), original.len());
    for (c, o) in converted.iter().zip(original) {
        assert!((c.seconds - o.seconds).abs() <= 1e-12 * o.seconds.abs(), "{c:?} vs {o:?}");
        assert_eq!(SessionLine { seconds: o.seconds, ..c.clone() }, *o);
    }
}

#[test]
fn a_jsonl_log_converts_to_the_same_games_and_the_same_fit() {
    // a Parquet log played here, written out as the JSON lines of an earlier version
    let played = tmp("played");
    let p = played.to_str().unwrap();
    let fit = ["values", "-v", "shogi", "--max-plies", "60", "--bootstrap", "20", "--games", "12"];
    let (ok, text) = shogilab(&[&fit[..], &["--out", p, "--threads", "2"]].concat());
    assert!(ok, "{text}");
    let log = GameLog::of_variant(&played, "shogi");
    let (games, sessions) = (log.read_games().unwrap(), log.read_sessions().unwrap());
    assert_eq!((games.len(), sessions.len()), (12, 1));
    let old = tmp("old");
    std::fs::create_dir_all(old.join("games")).unwrap();
    let lines = |rows: Vec<String>| rows.iter().map(|r| format!("{r}\n")).collect::<String>();
    let jsonl = old.join("games").join("shogi.jsonl");
    let g: Vec<String> = games.iter().map(|g| serde_json::to_string(g).unwrap()).collect();
    std::fs::write(&jsonl, lines(g)).unwrap();
    let s: Vec<String> = sessions.iter().map(|s| serde_json::to_string(s).unwrap()).collect();
    std::fs::write(old.join("games").join("shogi-sessions.jsonl"), lines(s)).unwrap();
    // the study refuses the old log, naming the converter
    let o = old.to_str().unwrap();
    let (ok, text) = shogilab(&[&fit[..], &["--out", o]].concat());
    assert!(!ok && text.contains("--convert-log") && text.contains("shogi.jsonl"), "{text}");
    let j = jsonl.to_str().unwrap();
    let (ok, text) = shogilab(&["values", "--convert-log", j]);
    assert!(ok && text.contains("converted 12 games and 1 sessions"), "{text}");
    let converted = GameLog::of_variant(&old, "shogi");
    assert_eq!(converted.read_games().unwrap(), games);
    assert_same_sessions(&converted.read_sessions().unwrap(), &sessions);
    // converting again is refused, the log untouched
    let (ok, text) = shogilab(&["values", "--convert-log", j]);
    assert!(!ok && text.contains("already holds"), "{text}");
    assert_eq!(converted.read_games().unwrap(), games);
    // the same fit: refitting (no games to play) gives byte-identical CSV files
    let (ok, text) = shogilab(&[&fit[..], &["--out", o]].concat());
    assert!(ok, "{text}");
    let (ok, text) = shogilab(&[&fit[..], &["--out", p]].concat());
    assert!(ok, "{text}");
    assert_eq!(csvs(&old), csvs(&played));
    assert!(csvs(&old)[1].1.contains(",imbalance,"), "{:?}", csvs(&old));
    for d in [played, old] {
        let _ = std::fs::remove_dir_all(&d);
    }
}

#[test]
fn bench_reports_the_imbalance_engine() {
    let (ok, text) = shogilab(&[
        "bench",
        "-v",
        "shogi",
        "--games",
        "1",
        "--repeat",
        "1",
        "--imbalance-games",
        "2",
    ]);
    assert!(ok, "{text}");
    let line = text.lines().find(|l| l.starts_with('{')).expect("a JSON line");
    let j: serde_json::Value = serde_json::from_str(line).unwrap();
    assert_eq!(j["variant"], "shogi");
    assert_eq!(j["imbalance_games"], 2);
    assert!(j["imbalance_plies"].as_u64().is_some_and(|p| p > 0), "{line}");
    assert!(j["imbalance_games_per_hour"].as_f64().is_some_and(|g| g > 0.0), "{line}");
    // a variant that does not exist is an error before anything is measured
    let (ok, text) = shogilab(&["bench", "-v", "shogi", "-v", "nosuch", "--games", "1"]);
    assert!(!ok, "{text}");
    assert!(text.contains("\"nosuch\"") && !text.contains("perft nodes"), "{text}");
}

#[test]
fn values_trend_writes_the_report_and_refuses_a_bad_config() {
    let dir = tmp("trend");
    std::fs::create_dir_all(&dir).unwrap();
    let table = |name: &str, lion: f64| {
        let p = dir.join(name);
        let text = format!(
            "piece,value,ci_low,ci_high,method,gcsa\npawn,1,1,1,imbalance,1\nlion,{lion},{},{},imbalance,20\nqueen,9,8,10,imbalance,12\n",
            lion - 1.0,
            lion + 1.0
        );
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    };
    let (weak, strong) = (table("weak.csv", 7.0), table("strong.csv", 19.0));
    let config = dir.join("trend.toml");
    let engine = |label: &str, values: &str, elo: i32| {
        format!("[[engine]]\nlabel = \"{label}\"\nvalues = \"{values}\"\nmethod = \"imbalance\"\nelo = [{elo}, {}, {}]\n", elo - 50, elo + 50)
    };
    // the strong engine's log: two games of a queen against ten pawns, won by the pawns (at
    // the engine's scale the reference puts the queen above the pawns, its own value below)
    let log = dir.join("log");
    let game = |setup: usize| shogilab_eval::values::imbalance::GameLine {
        setup,
        swap: 0,
        agent: "test".into(),
        seed: 0,
        sfen: format!("12/12/12/12/12/12/12/12/12/12/12/12 b - {}", setup + 1),
        diff: [("queen".to_string(), 1), ("pawn".to_string(), -10)].into(),
        result: 0.0,
        plies: 40 + setup as u32,
        termination: "royal-captured".into(),
        ms: 1,
        moves: "1a1b".into(),
    };
    GameLog::new(&log).append_games(&[game(0), game(1)]).unwrap();
    let text = format!(
        "variant = \"chu\"\n{}{}log = \"{}\"\n",
        engine("d1", &weak, 50),
        engine("d2", &strong, 400),
        log.display()
    );
    std::fs::write(&config, &text).unwrap();
    let out = dir.join("out");
    let (c, o) = (config.to_str().unwrap(), out.to_str().unwrap());
    let (ok, text) = shogilab(&["values-trend", "--config", c, "--out", o]);
    assert!(ok, "{text}");
    let md = std::fs::read_to_string(out.join("chu-trend.md")).unwrap();
    assert!(md.contains("| lion | 20.00 | 7.00 | [6.00, 8.00] | 19.00 | [18.00, 20.00] |"), "{md}");
    assert!(out.join("chu-trend.png").is_file() && out.join("chu-trend.csv").is_file());
    assert!(md.contains("* **queen**: reference 12.00 (scaled 11.40) lies above"), "{md}");
    assert!(md.contains("2 games decide between its value 9.00 and 11.40"), "{md}");
    let evidence = std::fs::read_to_string(out.join("chu-evidence.txt")).unwrap();
    assert_eq!(evidence.lines().count(), 2, "{evidence}");
    assert!(evidence.starts_with("sfen 12/12/12/12/12/12/12/12/12/12/12/12 b - 1 moves 1a1b\n"));
    // a config naming a missing table: refused naming it, nothing written
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, std::fs::read_to_string(&config).unwrap().replace("weak.csv", "gone.csv"))
        .unwrap();
    let out2 = dir.join("out2");
    refused(
        &["values-trend", "--config", bad.to_str().unwrap(), "--out", out2.to_str().unwrap()],
        &out2,
        "gone.csv",
    );
    let _ = std::fs::remove_dir_all(&dir);
}
