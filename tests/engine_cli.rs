//! The engine's subcommands through the binary: `sfen` and `perft` on tsume-shogi positions
//! (a side without a king; counts from cshogi and python-shogi), and `replay`'s final
//! positions (`--final-sfen`, `final_sfen` in `--json`) against the positions those two
//! libraries reach (`tests/data/games/final-sfen.*`, see tests/data/SOURCES.md), and the
//! positions along each game (`--sfen-every`); an output pipe
//! closed by its reader ends a command without a panic.

use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};

struct Run {
    ok: bool,
    stdout: String,
    stderr: String,
}

fn shogilab(args: &[&str]) -> Run {
    let out =
        Command::new(env!("CARGO_BIN_EXE_shogilab")).args(args).output().expect("run shogilab");
    Run {
        ok: out.status.success(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn data(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(rel)
}

/// Lines of a data file without comments and blank lines.
fn data_lines(rel: &str) -> Vec<String> {
    let path = data(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect()
}

#[test]
fn sfen_prints_the_shogi_start_position() {
    let r = shogilab(&["sfen", "-v", "shogi"]);
    assert!(r.ok, "{}", r.stderr);
    assert_eq!(r.stdout.trim(), "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
}

#[test]
fn sfen_accepts_a_tsume_position() {
    let sfen = "7nk/9/7G1/9/9/9/9/9/9 b P2r2b3g4s3n4l17p 1";
    let r = shogilab(&["sfen", "-v", "shogi", "--sfen", sfen]);
    assert!(r.ok, "{}", r.stderr);
    assert_eq!(r.stdout.trim(), sfen);
}

#[test]
fn sfen_refuses_two_kings_of_one_side_with_the_reason() {
    let sfen = "4k4/9/9/9/9/9/9/9/3KK4 b - 1";
    let r = shogilab(&["sfen", "-v", "shogi", "--sfen", sfen]);
    assert!(!r.ok, "accepted: {}", r.stdout);
    assert!(r.stdout.is_empty(), "partial output: {}", r.stdout);
    assert!(r.stderr.contains(sfen) && r.stderr.contains("Black has 2 kings"), "{}", r.stderr);
}

/// The depth-2 count of every position in the tsume fixture (depth 1 where it has no move).
#[test]
fn perft_of_tsume_positions_matches_cshogi_and_python_shogi() {
    let lines = data_lines("perft/shogi-tsume.perft");
    assert!(lines.len() >= 8, "only {} positions", lines.len());
    for line in &lines {
        let mut parts = line.split(';').map(str::trim);
        let sfen = parts.next().unwrap();
        let counts: Vec<(String, u64)> = parts
            .map(|p| {
                let (d, n) = p.split_once(' ').unwrap_or_else(|| panic!("bad field {p:?}"));
                (d.trim_start_matches('D').to_string(), n.parse().unwrap())
            })
            .collect();
        let (depth, want) = counts.get(1).or(counts.first()).unwrap();
        let r = shogilab(&["perft", "-v", "shogi", "--sfen", sfen, "--depth", depth, "--json"]);
        assert!(r.ok, "{sfen}: {}", r.stderr);
        let last = r.stdout.lines().last().unwrap_or_default();
        let json: serde_json::Value = serde_json::from_str(last).expect("JSON last line");
        assert_eq!(json["nodes"].as_u64(), Some(*want), "{sfen}: perft({depth})");
    }
}

#[test]
fn replay_final_sfen_matches_cshogi_and_python_shogi() {
    let file = data("games/final-sfen.txt");
    let r = shogilab(&["replay", "-v", "shogi", "-f", file.to_str().unwrap(), "--final-sfen"]);
    assert!(r.ok, "{}", r.stderr);
    let got: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(got, data_lines("games/final-sfen.expected"));
}

#[test]
fn replay_json_gives_each_games_final_sfen() {
    let file = data("games/final-sfen.txt");
    let r = shogilab(&["replay", "-v", "shogi", "-f", file.to_str().unwrap(), "--json"]);
    assert!(r.ok, "{}", r.stderr);
    let objects: Vec<serde_json::Value> =
        r.stdout.lines().map(|l| serde_json::from_str(l).expect("JSON line")).collect();
    let (summary, games) = objects.split_last().unwrap();
    let expected = data_lines("games/final-sfen.expected");
    assert_eq!(summary["games"].as_u64(), Some(expected.len() as u64));
    assert_eq!(games.len(), expected.len());
    for (i, (g, want)) in games.iter().zip(&expected).enumerate() {
        assert_eq!(g["game"].as_u64(), Some(i as u64 + 1));
        assert_eq!(g["final_sfen"].as_str(), Some(want.as_str()), "game {}", i + 1);
        assert!(g["illegal"].is_null(), "game {}: {g}", i + 1);
    }
    // the tsume game (game 5) ends in checkmate by the side without a king
    assert_eq!(games[4]["status"].as_str(), Some("black wins by checkmate"));
}

/// `--sfen-every N`: every game's positions at plies 0, N, 2N, ... and after its last move; the
/// last is the position cshogi and python-shogi reach, and each one is the final position of
/// the game cut at that ply.
#[test]
fn replay_sfen_every_walks_each_game_to_the_libraries_final_position() {
    let file = data("games/final-sfen.txt");
    let r = shogilab(&["replay", "-v", "shogi", "-f", file.to_str().unwrap(), "--sfen-every", "3"]);
    assert!(r.ok, "{}", r.stderr);
    let games = data_lines("games/final-sfen.txt");
    let expected = data_lines("games/final-sfen.expected");
    let mut cuts = Vec::new();
    let mut last = vec![None; games.len()];
    for line in r.stdout.lines() {
        let mut f = line.splitn(3, ' ');
        let game: usize = f.next().and_then(|g| g.parse().ok()).expect("a game number");
        let ply: usize = f.next().and_then(|p| p.parse().ok()).expect("a ply");
        let sfen = f.next().expect("an SFEN").to_string();
        let (head, moves) = games[game - 1].split_once(" moves ").expect("a game with moves");
        let moves: Vec<&str> = moves.split_whitespace().collect();
        assert!(ply.is_multiple_of(3) || ply == moves.len(), "game {game}: ply {ply}");
        if let Some((before, _)) = &last[game - 1] {
            assert!(ply > *before, "game {game}: ply {ply} after {before}");
        }
        cuts.push((format!("{head} moves {}", moves[..ply].join(" ")), sfen.clone()));
        last[game - 1] = Some((ply, sfen));
    }
    for (i, l) in last.iter().enumerate() {
        let (ply, sfen) = l.as_ref().unwrap_or_else(|| panic!("game {} printed nothing", i + 1));
        assert_eq!(sfen, &expected[i], "game {} at its last ply {ply}", i + 1);
    }
    assert!(cuts.len() > 2 * games.len(), "only {} positions", cuts.len());
    let dir = std::env::temp_dir().join(format!("shogilab-sfen-every-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cut_file = dir.join("cuts.txt");
    let text: Vec<&str> = cuts.iter().map(|(l, _)| l.as_str()).collect();
    std::fs::write(&cut_file, text.join("\n")).unwrap();
    let r = shogilab(&["replay", "-v", "shogi", "-f", cut_file.to_str().unwrap(), "--final-sfen"]);
    assert!(r.ok, "{}", r.stderr);
    let finals: Vec<&str> = r.stdout.lines().collect();
    let printed: Vec<&str> = cuts.iter().map(|(_, s)| s.as_str()).collect();
    assert_eq!(finals, printed);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn replay_final_sfen_prints_nothing_when_a_game_is_illegal() {
    let dir = std::env::temp_dir().join(format!("shogilab-engine-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("games.txt");
    std::fs::write(&file, "startpos moves 7g7f 3c3d\nstartpos moves 7g7f 7g7f\n").unwrap();
    let r = shogilab(&["replay", "-v", "shogi", "-f", file.to_str().unwrap(), "--final-sfen"]);
    assert!(!r.ok, "an illegal game was accepted");
    assert!(r.stdout.is_empty(), "partial output: {}", r.stdout);
    assert!(r.stderr.contains("game 2 (line 2): illegal move at ply 2: 7g7f"), "{}", r.stderr);
    // in --json the illegal game still reports where it stopped
    let r = shogilab(&["replay", "-v", "shogi", "-f", file.to_str().unwrap(), "--json"]);
    assert!(!r.ok);
    let second: serde_json::Value = serde_json::from_str(r.stdout.lines().nth(1).unwrap()).unwrap();
    assert_eq!(second["illegal"]["ply"].as_u64(), Some(2));
    let before = "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2";
    assert_eq!(second["final_sfen"].as_str(), Some(before));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_closed_output_pipe_ends_perft_without_a_panic() {
    // the reader's end is closed before perft starts, as in `shogilab perft --divide | head -0`
    // (closing it after the start would race with perft's writes into the pipe's buffer)
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_shogilab"))
        .args(["perft", "-v", "chu", "-d", "2", "--divide"])
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .expect("run shogilab");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.signal(), Some(libc::SIGPIPE), "{:?}: {stderr}", out.status);
}
