//! The shipped agents of `models/` stay playable: each `<variant>.agent` spec loads its evaluator
//! (a network's metadata checked against the variant, or a `.psq` evaluator file) and plays
//! games at a time per move, as the README's commands do on a fresh clone.

mod common;

use common::shogilab;
use std::path::Path;

/// The shipped agents: (variant, spec) from every `models/<variant>.agent`.
fn shipped() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("models").expect("models/ exists").flatten() {
        let p = e.path();
        if p.extension().and_then(|x| x.to_str()) == Some("agent") {
            let variant = p.file_stem().and_then(|s| s.to_str()).expect("a name").to_string();
            let spec = std::fs::read_to_string(&p).expect("readable").trim().to_string();
            out.push((variant, spec));
        }
    }
    out.sort();
    out
}

#[test]
fn every_shipped_agent_plays_at_a_time_per_move() {
    let agents = shipped();
    assert!(agents.iter().any(|(v, _)| v == "chu"), "models/chu.agent ships: {agents:?}");
    for (variant, spec) in agents {
        let (kind, rest) = spec.split_once(':').expect("a spec with its evaluator");
        let file = rest.split(['@', ':']).next().expect("an evaluator path");
        assert!(Path::new(file).exists(), "{variant}: {file} is missing");
        match kind {
            "mcts" => {
                let meta = std::fs::read_to_string(Path::new(file).with_extension("json"))
                    .expect("sidecar");
                assert!(meta.contains(&format!("\"variant\": \"{variant}\"")), "{meta}");
                assert!(meta.contains("\"validation\""), "held-out figures recorded: {meta}");
            }
            "search" => assert!(file.ends_with(&format!("{variant}.psq")), "{spec}"),
            other => panic!("{variant}: agent kind {other} ships no evaluator file"),
        }
        let a = format!("{spec}@movetime=20");
        let (ok, text) = shogilab(&[
            "match",
            "-v",
            &variant,
            "--a",
            &a,
            "--b",
            "random",
            "--games",
            "2",
            "--max-plies",
            "30",
        ]);
        assert!(ok, "{variant}: {text}");
        assert!(text.contains("(2 games)") && text.contains("nodes per move"), "{text}");
    }
}

/// A network or an evaluator file of one variant given to a game of another is refused before
/// any game, naming both variants, and nothing is written.
#[test]
fn an_evaluator_of_another_variant_is_refused() {
    let out = common::tmp("models", "wrong-variant");
    let o = out.to_str().expect("a UTF-8 path");
    for variant in ["chu", "tenjiku"] {
        let (ok, text) = shogilab(&[
            "match",
            "-v",
            variant,
            "--a",
            "mcts:models/shogi.ot:8",
            "--b",
            "random",
            "--games",
            "1",
            "--out",
            o,
        ]);
        assert!(!ok, "{text}");
        assert!(
            text.contains(&format!(
                "models/shogi.ot is a network of shogi; this game is {variant}"
            )),
            "{text}"
        );
        assert!(!out.exists(), "{text}");
    }
    let psq = common::tmp("models", "shogi.psq");
    let p = psq.to_str().expect("a UTF-8 path");
    let (ok, text) = shogilab(&["evaluator", "init", "-v", "shogi", "--out", p]);
    assert!(ok, "{text}");
    let (ok, text) = shogilab(&[
        "match",
        "-v",
        "chu",
        "--a",
        &format!("search:{p}"),
        "--b",
        "random",
        "--games",
        "1",
    ]);
    assert!(!ok && text.contains("an evaluator for shogi, not chu"), "{text}");
}
