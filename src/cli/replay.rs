//! `shogilab replay`: check game records (one game per line, USI `position` syntax without the
//! word `position`) move by move.

use super::VariantArgs;
use anyhow::{Context, Result};
use clap::Args;
use shogilab_engine::{Game, Position, Variant};
use std::sync::Arc;

#[derive(Args)]
pub struct ReplayArgs {
    #[command(flatten)]
    pub variant: VariantArgs,
    /// File with one game per line: `startpos moves 7g7f ...` or `sfen <SFEN> moves ...`.
    #[arg(long, short = 'f')]
    pub file: String,
    /// Print a JSON summary as the last line.
    #[arg(long)]
    pub json: bool,
    /// Only print problems and the summary.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// A parsed game line: the start position and the move strings.
pub struct GameLine<'a> {
    pub sfen: Option<String>,
    pub moves: Vec<&'a str>,
}

/// Parse `startpos [moves ...]` or `sfen <fields> [moves ...]`.
pub fn parse_line(line: &str) -> std::result::Result<GameLine<'_>, String> {
    let toks: Vec<&str> = line.split_whitespace().collect();
    let toks = if toks.first() == Some(&"position") { &toks[1..] } else { &toks[..] };
    let (sfen, rest) = match toks.first() {
        Some(&"startpos") => (None, &toks[1..]),
        Some(&"sfen") => {
            let end = toks.iter().position(|t| *t == "moves").unwrap_or(toks.len());
            if end <= 1 {
                return Err("`sfen` without a position".into());
            }
            (Some(toks[1..end].join(" ")), &toks[end..])
        }
        Some(t) => return Err(format!("expected `startpos` or `sfen`, found {t:?}")),
        None => return Err("empty line".into()),
    };
    let moves = match rest.first() {
        None => Vec::new(),
        Some(&"moves") => rest[1..].to_vec(),
        Some(t) => return Err(format!("expected `moves`, found {t:?}")),
    };
    Ok(GameLine { sfen, moves })
}

/// Outcome of checking one game.
pub enum Checked {
    Ok { plies: usize, status: String },
    Illegal { ply: usize, mv: String, reason: String, plies: usize },
}

/// Replay one game line in a variant.
pub fn check_game(v: &Arc<Variant>, gl: &GameLine) -> std::result::Result<Checked, String> {
    let pos = match &gl.sfen {
        Some(s) => Position::from_sfen(v, s).map_err(|e| e.to_string())?,
        None => Position::start(v),
    };
    let mut game = Game::new(pos);
    for (i, mv) in gl.moves.iter().enumerate() {
        match game.parse_usi(mv) {
            Ok(m) => game.play(m),
            Err(e) => {
                let reason = match e {
                    shogilab_engine::EngineError::Illegal { reason, .. } => reason,
                    other => other.to_string(),
                };
                return Ok(Checked::Illegal { ply: i + 1, mv: mv.to_string(), reason, plies: i });
            }
        }
    }
    Ok(Checked::Ok { plies: gl.moves.len(), status: game.status().to_string() })
}

pub fn run(a: ReplayArgs) -> Result<()> {
    let v = a.variant.load()?;
    let text = std::fs::read_to_string(&a.file).with_context(|| format!("reading {}", a.file))?;
    let (mut games, mut plies, mut illegal, mut malformed) = (0usize, 0usize, 0usize, 0usize);
    for (lineno, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        games += 1;
        let tag = format!("game {games} (line {})", lineno + 1);
        let gl = match parse_line(line) {
            Ok(g) => g,
            Err(e) => {
                malformed += 1;
                println!("{tag}: malformed: {e}");
                continue;
            }
        };
        match check_game(&v, &gl) {
            Err(e) => {
                malformed += 1;
                println!("{tag}: malformed: {e}");
            }
            Ok(Checked::Ok { plies: p, status }) => {
                plies += p;
                if !a.quiet {
                    println!("{tag}: ok, {p} plies, {status}");
                }
            }
            Ok(Checked::Illegal { ply, mv, reason, plies: p }) => {
                plies += p;
                illegal += 1;
                println!("{tag}: illegal move at ply {ply}: {mv}: {reason}");
            }
        }
    }
    if a.json {
        println!(
            "{}",
            serde_json::json!({"games": games, "plies": plies, "illegal": illegal, "malformed": malformed})
        );
    } else {
        println!("{games} games, {plies} plies, {illegal} illegal, {malformed} malformed");
    }
    if illegal > 0 || malformed > 0 {
        anyhow::bail!(
            "{illegal} game(s) with an illegal move, {malformed} malformed line(s) in {}",
            a.file
        );
    }
    Ok(())
}
