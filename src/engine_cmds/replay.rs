//! `shogilab replay`: check game records (one game per line, USI `position` syntax without the
//! word `position`) move by move, and report each game's final state (optionally its final
//! position as SFEN, or its positions every N plies).

use super::VariantArgs;
use anyhow::{bail, Context, Result};
use clap::Args;
use serde_json::json;
use shogilab_engine::{EngineError, Game, Position, Variant};
use std::num::NonZeroUsize;
use std::sync::Arc;

#[derive(Args)]
pub struct ReplayArgs {
    #[command(flatten)]
    pub variant: VariantArgs,
    /// File with one game per line: `startpos moves 7g7f ...` or `sfen <SFEN> moves ...`.
    #[arg(long, short = 'f')]
    pub file: String,
    /// Print one JSON object per game (with its `final_sfen`) and a JSON summary as the last
    /// line.
    #[arg(long)]
    pub json: bool,
    /// Print only each game's final position as SFEN, one line per game, in file order. If any
    /// game has an illegal move or a malformed line, nothing is printed to stdout: the
    /// problems go to stderr and the exit status is non-zero.
    #[arg(long, conflicts_with = "json")]
    pub final_sfen: bool,
    /// Print each game's position every N plies (plies 0, N, 2N, ...) and after its last move,
    /// one line per position, `GAME PLY SFEN`, in file order. As with `--final-sfen`, nothing
    /// is printed to stdout if any game has an illegal move or a malformed line.
    #[arg(long, value_name = "N", conflicts_with_all = ["json", "final_sfen"])]
    pub sfen_every: Option<NonZeroUsize>,
    /// Only print problems and the summary.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// Why a game line cannot be replayed (the first illegal move is not an error: see
/// [`Replayed::illegal`]).
#[derive(Debug)]
pub enum LineError {
    Empty,
    /// The first word, which must be `startpos` or `sfen`.
    BadStart(String),
    SfenWithoutPosition,
    /// The word after the position, which must be `moves`.
    ExpectedMoves(String),
    /// The SFEN does not parse in the variant.
    Position(EngineError),
}

impl std::fmt::Display for LineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LineError::Empty => write!(f, "empty line"),
            LineError::BadStart(t) => write!(f, "expected `startpos` or `sfen`, found {t:?}"),
            LineError::SfenWithoutPosition => write!(f, "`sfen` without a position"),
            LineError::ExpectedMoves(t) => write!(f, "expected `moves`, found {t:?}"),
            LineError::Position(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for LineError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LineError::Position(e) => Some(e),
            _ => None,
        }
    }
}

impl From<EngineError> for LineError {
    fn from(e: EngineError) -> Self {
        LineError::Position(e)
    }
}

/// A parsed game line: the start position and the move strings.
pub struct GameLine<'a> {
    pub sfen: Option<String>,
    pub moves: Vec<&'a str>,
}

/// Parse `startpos [moves ...]` or `sfen <fields> [moves ...]` (a leading `position` is
/// allowed).
pub fn parse_line(line: &str) -> Result<GameLine<'_>, LineError> {
    let toks: Vec<&str> = line.split_whitespace().collect();
    let toks = if toks.first() == Some(&"position") { &toks[1..] } else { &toks[..] };
    let (sfen, rest) = match toks.first() {
        Some(&"startpos") => (None, &toks[1..]),
        Some(&"sfen") => {
            let end = toks.iter().position(|t| *t == "moves").unwrap_or(toks.len());
            if end <= 1 {
                return Err(LineError::SfenWithoutPosition);
            }
            (Some(toks[1..end].join(" ")), &toks[end..])
        }
        Some(t) => return Err(LineError::BadStart(t.to_string())),
        None => return Err(LineError::Empty),
    };
    let moves = match rest.first() {
        None => Vec::new(),
        Some(&"moves") => rest[1..].to_vec(),
        Some(t) => return Err(LineError::ExpectedMoves(t.to_string())),
    };
    Ok(GameLine { sfen, moves })
}

/// The first illegal move of a game.
pub struct IllegalMove {
    /// 1-based ply of the illegal move.
    pub ply: usize,
    pub mv: String,
    pub reason: String,
}

/// Outcome of replaying one game line.
pub struct Replayed {
    /// Moves played (all of them, or those before the illegal one).
    pub plies: usize,
    /// Game status after the last move played (`ongoing`, `black wins by checkmate`, ...).
    pub status: String,
    /// The position after the last move played, as SFEN.
    pub final_sfen: String,
    /// `(ply, SFEN)` every N plies when asked for (ply 0 first, the last move played last).
    pub snapshots: Vec<(usize, String)>,
    pub illegal: Option<IllegalMove>,
}

/// Replay one game line in a variant, stopping at the first illegal move; with `every` =
/// Some(N), keep the position every N plies and after the last move played.
pub fn check_game(
    v: &Arc<Variant>,
    gl: &GameLine,
    every: Option<NonZeroUsize>,
) -> Result<Replayed, LineError> {
    let pos = match &gl.sfen {
        Some(s) => Position::from_sfen(v, s)?,
        None => Position::start(v),
    };
    let mut game = Game::new(pos);
    let mut illegal = None;
    let mut snapshots = Vec::new();
    let mut keep = |ply: usize, game: &Game| {
        if every.is_some_and(|n| ply.is_multiple_of(n.get())) {
            snapshots.push((ply, game.position().to_sfen()));
        }
    };
    keep(0, &game);
    for (i, mv) in gl.moves.iter().enumerate() {
        match game.parse_usi(mv) {
            Ok(m) => {
                game.play(m);
                keep(i + 1, &game);
            }
            Err(e) => {
                let reason = match e {
                    EngineError::Illegal { reason, .. } => reason,
                    other => other.to_string(),
                };
                illegal = Some(IllegalMove { ply: i + 1, mv: mv.to_string(), reason });
                break;
            }
        }
    }
    let final_sfen = game.position().to_sfen();
    // ply 0 is always kept when snapshots are asked for
    if snapshots.last().is_some_and(|(ply, _)| *ply != game.plies()) {
        snapshots.push((game.plies(), final_sfen.clone()));
    }
    Ok(Replayed {
        plies: game.plies(),
        status: game.status().to_string(),
        final_sfen,
        snapshots,
        illegal,
    })
}

/// Counts over a file.
#[derive(Default)]
struct Tally {
    games: usize,
    plies: usize,
    illegal: usize,
    malformed: usize,
}

impl Tally {
    fn problems(&self) -> usize {
        self.illegal + self.malformed
    }
}

/// Where one game sits in the file, for messages.
struct Place {
    game: usize,
    line: usize,
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "game {} (line {})", self.game, self.line)
    }
}

/// The problem of a game, if it has one, as a report line.
fn problem(at: &Place, r: &Result<Replayed, LineError>) -> Option<String> {
    match r {
        Err(e) => Some(format!("{at}: malformed: {e}")),
        Ok(Replayed { illegal: Some(m), .. }) => {
            Some(format!("{at}: illegal move at ply {}: {}: {}", m.ply, m.mv, m.reason))
        }
        Ok(_) => None,
    }
}

/// One game as a JSON object (`final_sfen` is null for a malformed line).
fn game_json(at: &Place, r: &Result<Replayed, LineError>) -> serde_json::Value {
    match r {
        Err(e) => json!({"game": at.game, "line": at.line, "malformed": e.to_string(),
                         "final_sfen": null}),
        Ok(g) => {
            let illegal =
                g.illegal.as_ref().map(|m| json!({"ply": m.ply, "move": m.mv, "reason": m.reason}));
            json!({"game": at.game, "line": at.line, "plies": g.plies, "status": g.status,
                   "illegal": illegal, "final_sfen": g.final_sfen})
        }
    }
}

impl ReplayArgs {
    /// Whether stdout holds positions only (`--final-sfen`, `--sfen-every`), printed at the end
    /// when every game replayed.
    fn positions_only(&self) -> bool {
        self.final_sfen || self.sfen_every.is_some()
    }
}

/// The lines a game adds to stdout in a positions-only mode.
fn position_lines(a: &ReplayArgs, at: &Place, g: &Replayed) -> Vec<String> {
    if a.sfen_every.is_some() {
        g.snapshots.iter().map(|(ply, sfen)| format!("{} {ply} {sfen}", at.game)).collect()
    } else {
        vec![g.final_sfen.clone()]
    }
}

/// Print one game's report in the chosen mode (nothing in a positions-only mode unless it has
/// a problem, which goes to stderr there).
fn report(a: &ReplayArgs, at: &Place, r: &Result<Replayed, LineError>) {
    let problem = problem(at, r);
    if a.positions_only() {
        if let Some(p) = problem {
            eprintln!("{p}");
        }
    } else if a.json {
        if problem.is_some() || !a.quiet {
            println!("{}", game_json(at, r));
        }
    } else if let Some(p) = problem {
        println!("{p}");
    } else if let (Ok(g), false) = (r, a.quiet) {
        println!("{at}: ok, {} plies, {}", g.plies, g.status);
    }
}

pub fn run(a: ReplayArgs) -> Result<()> {
    let v = a.variant.load()?;
    let text = std::fs::read_to_string(&a.file).with_context(|| format!("reading {}", a.file))?;
    let mut t = Tally::default();
    let mut positions = Vec::new();
    for (lineno, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        t.games += 1;
        let at = Place { game: t.games, line: lineno + 1 };
        let r = parse_line(line).and_then(|gl| check_game(&v, &gl, a.sfen_every));
        report(&a, &at, &r);
        match &r {
            Err(_) => t.malformed += 1,
            Ok(g) => {
                t.plies += g.plies;
                t.illegal += g.illegal.is_some() as usize;
                if a.positions_only() {
                    positions.extend(position_lines(&a, &at, g));
                }
            }
        }
    }
    if a.json {
        let summary = json!({"games": t.games, "plies": t.plies, "illegal": t.illegal,
                             "malformed": t.malformed});
        println!("{summary}");
    } else if !a.positions_only() {
        println!(
            "{} games, {} plies, {} illegal, {} malformed",
            t.games, t.plies, t.illegal, t.malformed
        );
    }
    if t.problems() > 0 {
        bail!(
            "{} game(s) with an illegal move, {} malformed line(s) in {}",
            t.illegal,
            t.malformed,
            a.file
        );
    }
    for line in &positions {
        println!("{line}");
    }
    Ok(())
}
