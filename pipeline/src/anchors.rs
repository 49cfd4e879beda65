//! The learning curve: every network of a run plays fixed reference agents (the anchors, such
//! as `greedy`, `alphabeta:2`, HaChu at a fixed depth), at one time per move for both sides
//! when `eval.movetime_ms` is set; the Elo against each anchor is drawn by generation and by
//! the CPU-hours that made the network (`curve.csv`, `elo-by-generation.png`,
//! `elo-by-cpu-hours.png`).

use crate::compute::{cpu_hours_through, StageTime};
use crate::config::PipelineConfig;
use crate::error::PipelineError;
use crate::evaluate::{make_agent, run_evaluation, EvalJob};
use shogilab_engine::Variant;
use shogilab_eval::agent::LimitUse;
use shogilab_eval::record::MatchRecord;
use shogilab_fsio::write_atomic;
use shogilab_plot::{Labels, Series};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Elo drawn for a clean sweep (the estimate itself is infinite).
const ELO_CLIP: f64 = 800.0;

/// One network against one anchor.
#[derive(Debug, Clone, PartialEq)]
pub struct AnchorPoint {
    /// The network's generation (`models/gen-G.ot`; 0 is the teacher network).
    pub generation: u32,
    pub cpu_hours: f64,
    pub anchor: String,
    pub record: MatchRecord,
}

/// A folder name for an agent spec.
fn folder_of(spec: &str) -> String {
    spec.chars().map(|c| if c.is_ascii_alphanumeric() || c == '.' { c } else { '-' }).collect()
}

/// The agents of one anchor match: the network and the anchor, with the time limit if any.
/// An anchor that does not search (`greedy`, `random`) plays without one: a limit would not
/// change its play, and its name would claim a setting it never used.
pub fn anchor_specs(
    cfg: &PipelineConfig,
    model: &Path,
    anchor: &str,
    anchor_searches: bool,
) -> (String, String) {
    match cfg.eval.movetime_ms {
        0 => (format!("mcts:{}:{}", model.display(), cfg.eval_simulations()), anchor.to_string()),
        ms => {
            let timed = anchor_searches && !anchor.contains('@');
            let b = if timed { format!("{anchor}@movetime={ms}") } else { anchor.to_string() };
            (format!("mcts:{}@movetime={ms}", model.display()), b)
        }
    }
}

/// Whether a limit on time changes how `anchor` plays (it is built once to ask it).
fn searches(v: &Arc<Variant>, anchor: &str) -> Result<bool, PipelineError> {
    let agent = make_agent(anchor, v, 0)?;
    Ok(agent.limit_support().movetime != LimitUse::NoSearch)
}

/// Play (or read back) the network's matches against every anchor, into `out/<anchor>/`.
pub fn play_anchors(
    v: &Arc<Variant>,
    cfg: &PipelineConfig,
    model: &Path,
    out: &Path,
) -> Result<Vec<(String, MatchRecord)>, PipelineError> {
    let mut results = Vec::new();
    for anchor in &cfg.eval.anchors {
        let timed = cfg.eval.movetime_ms > 0 && searches(v, anchor)?;
        let (a, b) = anchor_specs(cfg, model, anchor, timed);
        let job = EvalJob {
            a,
            b,
            games: cfg.eval.anchor_games,
            max_plies: cfg.selfplay.max_plies,
            opening_plies: cfg.eval.opening_plies,
            seed: cfg.seed,
            out: out.join(folder_of(anchor)),
        };
        eprintln!("== {}: against {anchor}", model.display());
        let r = run_evaluation(v, &job)?;
        eprintln!("== {}", r.summary_line());
        results.push((anchor.clone(), r));
    }
    Ok(results)
}

/// The points of a network's anchor matches, with the CPU-hours that made it.
pub fn points(
    generation: u32,
    results: &[(String, MatchRecord)],
    compute: &[StageTime],
) -> Vec<AnchorPoint> {
    // models/gen-G.ot was written by generation G-1's training; gen-0 by the teacher stage
    let through = generation.checked_sub(1);
    let cpu_hours = cpu_hours_through(compute, through);
    results
        .iter()
        .map(|(anchor, record)| AnchorPoint {
            generation,
            cpu_hours,
            anchor: anchor.clone(),
            record: record.clone(),
        })
        .collect()
}

/// Write `curve.csv` and the two charts into `run_dir`.
pub fn write_curve(run_dir: &Path, pts: &[AnchorPoint]) -> Result<Vec<PathBuf>, PipelineError> {
    let csv_path = run_dir.join("curve.csv");
    write_atomic(&csv_path, curve_csv(pts).as_bytes())?;
    let mut written = vec![csv_path];
    type XOf = fn(&AnchorPoint) -> f64;
    let by_generation: XOf = |p| p.generation as f64;
    let by_cpu_hours: XOf = |p| p.cpu_hours;
    for (x_name, file, x_of) in [
        ("generation", "elo-by-generation.png", by_generation),
        ("CPU-hours", "elo-by-cpu-hours.png", by_cpu_hours),
    ] {
        let png = run_dir.join(file);
        let title = format!("Elo against the anchors, 95% intervals (clipped at ±{ELO_CLIP})");
        let labels = Labels { title: &title, x: x_name, y: "Elo" };
        shogilab_plot::line_chart(&png, labels, &anchor_series(pts, x_of))?;
        written.push(png);
    }
    Ok(written)
}

/// `curve.csv`: one row per generation and anchor.
fn curve_csv(pts: &[AnchorPoint]) -> String {
    let mut csv = String::from(
        "generation,cpu_hours,anchor,games,wins,draws,losses,forfeits,score,elo,elo_low,elo_high,\
         forfeit_wins,forfeit_losses\n",
    );
    for p in pts {
        let r = &p.record;
        csv.push_str(&format!(
            "{},{:.6},{},{},{},{},{},{},{:.4},{:.1},{:.1},{:.1},{},{}\n",
            p.generation,
            p.cpu_hours,
            p.anchor,
            r.games,
            r.wins,
            r.draws,
            r.losses,
            r.forfeits,
            r.score,
            r.elo,
            r.elo_ci95[0],
            r.elo_ci95[1],
            r.forfeit_wins,
            r.forfeit_losses
        ));
    }
    csv
}

/// One chart series per anchor (in name order): Elo with its interval, clipped at ±ELO_CLIP,
/// against `x_of` of each point.
fn anchor_series(pts: &[AnchorPoint], x_of: fn(&AnchorPoint) -> f64) -> Vec<Series> {
    let mut anchors: Vec<&str> = pts.iter().map(|p| p.anchor.as_str()).collect();
    anchors.sort_unstable();
    anchors.dedup();
    let clip = |elo: f64| elo.clamp(-ELO_CLIP, ELO_CLIP);
    anchors
        .iter()
        .map(|a| {
            let of_anchor = || pts.iter().filter(|p| p.anchor == *a);
            Series {
                name: format!("vs {a}"),
                points: of_anchor().map(|p| (x_of(p), clip(p.record.elo))).collect(),
                bars: of_anchor()
                    .map(|p| (clip(p.record.elo_ci95[0]), clip(p.record.elo_ci95[1])))
                    .collect(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchor_games_run_at_the_time_limit_when_one_is_set() {
        let mut cfg = PipelineConfig::default();
        let m = Path::new("runs/x/models/gen-0002.ot");
        assert_eq!(
            anchor_specs(&cfg, m, "greedy", false),
            ("mcts:runs/x/models/gen-0002.ot:16".to_string(), "greedy".to_string())
        );
        cfg.eval.movetime_ms = 200;
        assert_eq!(
            anchor_specs(&cfg, m, "alphabeta:2", true),
            (
                "mcts:runs/x/models/gen-0002.ot@movetime=200".to_string(),
                "alphabeta:2@movetime=200".to_string()
            )
        );
        let untimed = anchor_specs(&cfg, m, "greedy", false).1;
        assert_eq!(untimed, "greedy", "an agent without search gets no limit");
        let own = anchor_specs(&cfg, m, "alphabeta:3@movetime=50", true).1;
        assert_eq!(own, "alphabeta:3@movetime=50", "an anchor's own limit is kept");
        assert_eq!(folder_of("xboard:/usr/games/hachu|sd=2"), "xboard--usr-games-hachu-sd-2");
    }
}
