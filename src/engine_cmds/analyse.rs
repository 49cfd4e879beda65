//! `shogilab analyse`: annotate games with the searching engine. Every game of the file (one
//! per line, as `replay` reads them) is checked first: a malformed line or an illegal move is
//! named and nothing is analysed or written. Then each position is searched, and each move gets
//! the evaluation before and after it, the engine's best move and its principal variation:
//! JSON lines (`--out`, written whole under a temporary name) and a readable table.

use super::replay::parse_line;
use super::VariantArgs;
use anyhow::{bail, Context, Result};
use clap::Args;
use shogilab_engine::{Game, Move, Position};
use shogilab_eval::search_agent::load_evaluator;
use shogilab_search::analysis::{analyse_game, MoveAnalysis};
use shogilab_search::{Engine, Limits, Options, TimeControl};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

#[derive(Args)]
pub struct AnalyseArgs {
    #[command(flatten)]
    pub variant: VariantArgs,
    /// Games, one per line: `startpos moves ...` or `sfen <SFEN> moves ...`.
    #[arg(long, short = 'f')]
    pub file: PathBuf,
    /// Milliseconds a position.
    #[arg(long, default_value_t = 300)]
    pub movetime: u64,
    /// Search each position to this depth instead of a time.
    #[arg(long, conflicts_with = "movetime")]
    pub depth: Option<u32>,
    /// Evaluator: a .psq file, or `material` (default: models/<variant>.psq where it exists).
    #[arg(long)]
    pub eval: Option<String>,
    /// JSON lines file, one object a move (game, ply, side, move, eval_before, eval_after,
    /// loss, best, pv, depth).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Every game of the file, checked: its start and its moves.
fn read_games(
    a: &AnalyseArgs,
    v: &Arc<shogilab_engine::Variant>,
) -> Result<Vec<(Game, Vec<Move>)>> {
    let text = std::fs::read_to_string(&a.file)
        .with_context(|| format!("reading {}", a.file.display()))?;
    let mut games = Vec::new();
    for (n, line) in
        text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
    {
        let at = || format!("{} line {}", a.file.display(), n + 1);
        let gl = parse_line(line).map_err(|e| anyhow::anyhow!("{}: {e}", at()))?;
        let start = match &gl.sfen {
            Some(s) => Position::from_sfen(v, s).with_context(at)?,
            None => Position::start(v),
        };
        let mut game = Game::new(start);
        let first = game.clone();
        let mut moves = Vec::with_capacity(gl.moves.len());
        for (i, mv) in gl.moves.iter().enumerate() {
            let m =
                game.parse_usi(mv).with_context(|| format!("{}, move {} ({mv})", at(), i + 1))?;
            game.play(m);
            moves.push(m);
        }
        games.push((first, moves));
    }
    if games.is_empty() {
        bail!("{}: no game", a.file.display());
    }
    Ok(games)
}

fn json(game: usize, m: &MoveAnalysis) -> String {
    serde_json::json!({"game": game, "ply": m.ply, "side": m.side.to_string(), "move": m.played,
        "eval_before": m.before, "eval_after": m.after, "loss": m.loss(), "best": m.best,
        "pv": m.pv, "depth": m.depth})
    .to_string()
}

pub fn run(a: AnalyseArgs) -> Result<()> {
    let v = a.variant.load()?;
    let default = format!("models/{}.psq", v.name);
    let eval = a.eval.clone().unwrap_or(if std::path::Path::new(&default).exists() {
        default
    } else {
        "material".into()
    });
    let psq = load_evaluator(&v, &eval).map_err(anyhow::Error::msg)?;
    let games = read_games(&a, &v)?;
    let limits = match a.depth {
        Some(d) if (1..=64).contains(&d) => Limits { depth: Some(d), ..Limits::default() },
        Some(d) => bail!("--depth {d} must be 1..64"),
        None if a.movetime == 0 => bail!("--movetime 0 cannot be played"),
        None => Limits {
            time: TimeControl::MoveTime(Duration::from_millis(a.movetime)),
            ..Limits::default()
        },
    };
    let mut engine = Engine::new(Arc::new(psq), Options::default());
    let mut lines = Vec::new();
    println!("evaluator {eval}; scores in centipawns for the side that moved");
    println!(
        "{:>4} {:>4} {:>4} {:<10} {:>8} {:>8} {:>6} {:<10} pv",
        "game", "ply", "side", "move", "before", "after", "loss", "best"
    );
    for (g, (start, moves)) in games.into_iter().enumerate() {
        for m in analyse_game(&mut engine, start, &moves, &limits, &mut |_| {}) {
            println!(
                "{:>4} {:>4} {:>4} {:<10} {:>8} {:>8} {:>6} {:<10} {}",
                g + 1,
                m.ply,
                m.side,
                m.played,
                m.before,
                m.after,
                m.loss(),
                m.best,
                m.pv
            );
            lines.push(json(g + 1, &m));
        }
    }
    if let Some(out) = &a.out {
        let tmp = out.with_extension("jsonl.tmp");
        let mut f =
            std::fs::File::create(&tmp).with_context(|| format!("writing {}", tmp.display()))?;
        for l in &lines {
            writeln!(f, "{l}")?;
        }
        drop(f);
        std::fs::rename(&tmp, out).with_context(|| format!("writing {}", out.display()))?;
        println!("wrote {} moves to {}", lines.len(), out.display());
    }
    Ok(())
}
