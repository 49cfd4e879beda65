//! The files of a study's report ([`Study::write_report`]): `<variant>.csv` (primary),
//! `<variant>-all.csv`, `<variant>-effects.csv`, `<variant>.md`, the charts `<variant>.png`,
//! `<variant>-effects.png`, `<variant>-intervals.png`, and `<variant>-gap-games.txt` (the games
//! that the report's disagreements cite, when it cites any). Charts are drawn first (each
//! written atomically by the plot crate), then the text files (each through
//! [`shogilab_fsio::write_atomic`]); a chart that cannot be drawn (too few finite points)
//! removes the one an earlier run left, so the folder never shows a chart of other numbers.

use super::evidence::Deciding;
use super::explain::{self, Engine};
use super::imbalance::rules_of;
use super::log::{LogError, SessionLine};
use super::report::{self, Reference, ReportInput};
use super::study::{Study, StudyResult};
use super::{imbalance::GameLine, usage, Kinds, MethodResult, ValueEstimate};
use super::{odds, odds_report};
use shogilab_engine::Variant;
use shogilab_fsio::{write_atomic, FsioError};
use shogilab_plot::{Estimate, Labels, PlotError, Series};
use shogilab_selfplay::PieceValues;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A report file that could not be written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error(transparent)]
    Write(#[from] FsioError),
    #[error(transparent)]
    Plot(#[from] PlotError),
    #[error(transparent)]
    Log(#[from] LogError),
}

/// Games replayed for the report's usage table (evenly spaced through the log): enough for
/// every kind's rates, few enough to take seconds.
const USAGE_GAMES: usize = 2000;

/// Decisive games cited per kind whose gap the table's scale does not close.
const GAP_EXAMPLES: usize = 3;

/// What [`Study::write_report`] wrote.
#[derive(Debug, Clone)]
pub struct Written {
    /// The Markdown report.
    pub markdown: PathBuf,
    /// Lines for the user: per method, interval widths and the correlation with the reference.
    pub summary: Vec<String>,
}

impl Study {
    /// Write the report files of a fit.
    pub fn write_report(&self, result: &StudyResult) -> Result<Written, super::study::StudyError> {
        let (v, out, kinds) = (&self.cfg.variant, &self.cfg.out, &self.kinds);
        let name = v.name.as_str();
        let reference = self.inputs.reference.as_ref();
        let drawn = draw_charts(v, kinds, out, result, reference)?;
        let sessions = self.log.read_sessions().map_err(OutputError::from)?;
        let usage = usage::usage(v, kinds, &result.games, USAGE_GAMES)?;
        let input = ReportInput {
            variant: name,
            command: &self.cfg.command,
            kinds,
            methods: &result.methods,
            primary: &result.primary,
            reference,
            speed: speed_lines(&result.games, &sessions),
            promotes_to: promotes_to(v, kinds),
            promoted_only: promoted_only(v, kinds),
            files: file_list(name, &drawn, result),
            engine: match &self.cfg.engine.agent {
                Some(agent) => Engine::Agent { spec: &agent.spec },
                None => Engine::Search { depth: self.cfg.engine.depth },
            },
            calibrations: &result.calibrations,
            usage: (usage.games > 0).then_some(&usage),
            gap_games: &[],
        };
        let deciding = gap_games(&input, result);
        let mut input = ReportInput { gap_games: &deciding, ..input };
        let gap_lines = report::gap_games_file(&input);
        if !gap_lines.is_empty() {
            input.files.push(format!("`{name}-gap-games.txt` (games the disagreements cite)"));
        }
        let odds = if result.calibrations.is_empty() {
            String::new()
        } else {
            odds_report::csv(&result.calibrations, &result.methods, kinds)
        };
        let text_files = [
            (format!("{name}-all.csv"), report::csv_all(&result.methods, reference)),
            (format!("{name}-effects.csv"), report::csv_effects(&result.methods, reference)),
            (format!("{name}.csv"), report::csv_primary(&result.primary, reference)),
            (format!("{name}.md"), report::markdown(&input)),
            // the two optional files: an empty text removes the one an earlier fit left
            (format!("{name}-odds.csv"), odds),
            (format!("{name}-gap-games.txt"), gap_lines),
        ];
        for (file, text) in &text_files {
            write_or_remove(&out.join(file), text)?;
        }
        Ok(Written {
            markdown: out.join(format!("{name}.md")),
            summary: summary_lines(&result.methods, reference),
        })
    }
}

/// Write `text` to `path` atomically; an empty text removes the file instead, so that the
/// folder keeps no file of another fit (every file a report always writes is non-empty).
fn write_or_remove(path: &Path, text: &str) -> Result<(), OutputError> {
    if text.is_empty() {
        let _ = std::fs::remove_file(path); // absent already is fine
        return Ok(());
    }
    Ok(write_atomic(path, text.as_bytes())?)
}

/// The files the report lists: the CSVs, the charts drawn, the odds table where there are odds
/// games, and the game log (the gap-games file is added once known).
fn file_list(name: &str, drawn: &[String], result: &StudyResult) -> Vec<String> {
    let mut files = vec![
        format!("`{name}.csv` (primary)"),
        format!("`{name}-all.csv` (every method)"),
        format!("`{name}-effects.csv` (unit-free effects)"),
    ];
    files.extend(drawn.iter().map(|f| format!("`{f}`")));
    if !result.calibrations.is_empty() {
        files.push(format!("`{name}-odds.csv` (odds games)"));
    }
    files.push(format!("`games/{name}/` (imbalance game log, Parquet)"));
    files
}

/// Per kind: whether it has no unpromoted type (it exists only by promotion).
fn promoted_only(v: &Variant, kinds: &Kinds) -> Vec<bool> {
    (0..kinds.len())
        .map(|k| !v.types.iter().any(|t| kinds.of_type[t.id as usize] == k && !t.promoted))
        .collect()
}

/// The imbalance games that decide each gap the table's scale does not close
/// ([`explain::gap_games`]), from the imbalance method's values; none without that method.
fn gap_games(input: &ReportInput, result: &StudyResult) -> Vec<Option<Deciding>> {
    let Some(m) = result.methods.iter().find(|m| m.method == "imbalance") else {
        return Vec::new();
    };
    let values =
        input.kinds.names.iter().cloned().zip(m.estimates.iter().map(|e| e.value)).collect();
    explain::gap_games(input, &result.games, &values, GAP_EXAMPLES)
}

/// Per kind that promotes: the kind of its promoted type.
fn promotes_to(v: &Variant, kinds: &Kinds) -> Vec<Option<usize>> {
    (0..kinds.len())
        .map(|k| {
            v.types
                .iter()
                .find(|t| kinds.of_type[t.id as usize] == k && !t.promoted)
                .and_then(|t| t.promotes_to)
                .map(|p| kinds.of_type[p as usize])
        })
        .collect()
}

/// The x values of the charts: the reference table, else the mobility-derived values.
fn chart_xs(v: &Arc<Variant>, kinds: &Kinds, reference: Option<&Reference>) -> (Vec<f64>, String) {
    match reference {
        Some(r) => (r.values.clone(), format!("reference value ({})", r.source)),
        None => {
            let mob = PieceValues::mobility(Arc::clone(v));
            let mut x = vec![f64::NAN; kinds.len()];
            for (t, &m) in mob.per_type.iter().enumerate() {
                x[kinds.of_type[t]] = m as f64;
            }
            let mut reference = Reference { values: x, ..Default::default() };
            reference.rescale(kinds.unit.unwrap_or(0));
            (reference.values, "mobility-derived value (no published table)".to_string())
        }
    }
}

/// Draw the three charts; the names of those drawn.
fn draw_charts(
    v: &Arc<Variant>,
    kinds: &Kinds,
    out: &Path,
    result: &StudyResult,
    reference: Option<&Reference>,
) -> Result<Vec<String>, OutputError> {
    let (name, ordered) = (v.name.as_str(), &result.methods);
    let (xs, xlabel) = chart_xs(v, kinds, reference);
    let mut drawn = Vec::new();
    let primary: Vec<ValueEstimate> = result.primary.iter().map(|p| p.estimate.clone()).collect();
    let title = format!("{name}: measured piece values ({} = 1, 95% intervals)", kinds.unit_name());
    let labels = Labels { title: &title, x: &xlabel, y: "measured value (primary method)" };
    let file = format!("{name}.png");
    if chart_against(&out.join(&file), labels, &xs, &primary, 1.0)? {
        drawn.push(file);
    }
    // the unit-free effects of the first regression method that has them
    let file = format!("{name}-effects.png");
    match ordered.iter().find(|m| !m.effects.is_empty()) {
        Some(m) => {
            let title = format!(
                "{name}: effect of one more piece on the win odds ({}, 95% intervals)",
                m.method
            );
            let y = "effect (centi-logits of the expected score)";
            let labels = Labels { title: &title, x: &xlabel, y };
            if chart_against(&out.join(&file), labels, &xs, &m.effects, 100.0)? {
                drawn.push(file);
            }
        }
        None => {
            let _ = std::fs::remove_file(out.join(&file));
        }
    }
    let file = format!("{name}-intervals.png");
    if intervals_chart(&out.join(&file), name, kinds.unit_name(), ordered)? {
        drawn.push(file);
    }
    Ok(drawn)
}

/// Mean half-width curves of the methods, each point times `scale`, points above `cap` left out.
fn width_series(
    ordered: &[MethodResult],
    curve: fn(&MethodResult) -> &[(f64, f64)],
    scale: f64,
    cap: f64,
) -> Vec<Series> {
    ordered
        .iter()
        .map(|m| Series {
            name: format!(
                "{} ({})",
                m.method,
                if m.method == "probe" { "positions" } else { "games" }
            ),
            // the first refits, before the unit's coefficient settles, would flatten the chart
            points: curve(m)
                .iter()
                .map(|&(x, y)| (x, scale * y))
                .filter(|p| p.1.is_finite() && p.1 <= cap)
                .collect(),
            bars: Vec::new(),
        })
        .filter(|s| !s.points.is_empty())
        .collect()
}

/// The interval widths against games used: in units of `unit` where finite, else the effects'
/// widths. Whether it drew (none drawn removes an earlier run's chart).
fn intervals_chart(
    path: &Path,
    name: &str,
    unit: &str,
    ordered: &[MethodResult],
) -> Result<bool, PlotError> {
    let mut series = width_series(ordered, |m| &m.curve, 1.0, 20.0);
    let mut unit = format!("{unit} = 1");
    if series.is_empty() {
        series = width_series(ordered, |m| &m.effect_curve, 100.0, f64::INFINITY);
        unit = "effects, centi-logits".into();
    }
    if series.is_empty() {
        eprintln!("no finite interval widths yet: {name}-intervals.png not drawn");
        let _ = std::fs::remove_file(path);
        return Ok(false);
    }
    shogilab_plot::line_chart(
        path,
        Labels {
            title: &format!("{name}: mean 95% half-width against games used"),
            x: "games (probe: positions) used, refitting on the first n",
            y: &format!("mean 95% CI half-width ({unit})"),
        },
        &series,
    )?;
    Ok(true)
}

/// Estimates (times `scale`) against `xs` with their intervals, as a PNG at `path`; with
/// `scale` 1 (values in the unit) a y = x line. Fewer than two finite points (the unit alone is
/// 1 by definition) draw nothing and remove a chart left by an earlier run. Whether it drew.
fn chart_against(
    path: &Path,
    labels: Labels,
    xs: &[f64],
    estimates: &[ValueEstimate],
    scale: f64,
) -> Result<bool, PlotError> {
    let finite: Vec<(&ValueEstimate, f64)> = estimates
        .iter()
        .zip(xs.iter().copied())
        .filter(|(e, x)| e.value.is_finite() && x.is_finite())
        .collect();
    // unbounded ends are drawn to a few times the largest value
    let cap = finite.iter().map(|(e, x)| (scale * e.value).abs().max(*x)).fold(1.0, f64::max) * 3.0;
    let pts: Vec<Estimate> = finite
        .iter()
        .map(|(e, x)| Estimate {
            label: e.piece.clone(),
            x: *x,
            y: scale * e.value,
            lo: (scale * e.lo).clamp(-cap, cap),
            hi: (scale * e.hi).clamp(-cap, cap),
        })
        .collect();
    if pts.len() < 2 {
        eprintln!("fewer than two measured kinds: {} not drawn", path.display());
        let _ = std::fs::remove_file(path);
        return Ok(false);
    }
    shogilab_plot::estimates_chart(path, labels, &pts, scale == 1.0)?;
    Ok(true)
}

/// The speed section: per game (from the imbalance games fitted) and, per kind of setup, the
/// wall clock of the log's sessions. The log does not record the machine or its load, so the
/// lines claim neither: where the games were played is told beside the command that played them.
pub fn speed_lines(games: &[GameLine], sessions: &[SessionLine]) -> Vec<String> {
    let mut out = Vec::new();
    if games.is_empty() {
        return out;
    }
    let ms: f64 = games.iter().map(|g| g.ms as f64).sum();
    let plies: f64 = games.iter().map(|g| g.plies as f64).sum();
    out.push(format!(
        "imbalance: {} games, mean {:.0} plies and {:.2} s per game on one thread ({:.0} games per thread-hour)",
        games.len(),
        plies / games.len() as f64,
        ms / 1000.0 / games.len() as f64,
        3.6e6 * games.len() as f64 / ms.max(1.0)
    ));
    out.extend(session_groups(sessions).iter().filter_map(|(label, g)| g.line(label)));
    out
}

/// The sessions of one kind of setup.
#[derive(Default)]
struct SessionGroup {
    played: u64,
    seconds: f64,
    sessions: usize,
    threads: std::collections::BTreeSet<u64>,
}

impl SessionGroup {
    fn line(&self, label: &str) -> Option<String> {
        (self.seconds > 0.0).then(|| {
            let threads: Vec<String> = self.threads.iter().map(u64::to_string).collect();
            format!(
                "{label} sessions: {} games in {} session{}, {:.1} min of wall clock with {} threads: {:.0} games per hour (machine and load not recorded in the log)",
                self.played,
                self.sessions,
                if self.sessions == 1 { "" } else { "s" },
                self.seconds / 60.0,
                threads.join("/"),
                self.played as f64 / self.seconds * 3600.0
            )
        })
    }
}

/// Sessions grouped by kind of setup (`imbalance`, or the odds rules such as `odds-pawn`), in
/// name order: `imbalance` sorts before every `odds-` kind.
fn session_groups(sessions: &[SessionLine]) -> std::collections::BTreeMap<&str, SessionGroup> {
    let mut groups: std::collections::BTreeMap<&str, SessionGroup> = Default::default();
    for s in sessions {
        let label = if odds::is_odds(&s.agent) { rules_of(&s.agent) } else { "imbalance" };
        let g = groups.entry(label).or_default();
        g.played += s.played;
        g.seconds += s.seconds;
        g.sessions += 1;
        g.threads.insert(s.threads);
    }
    groups
}

/// Per method: games or positions behind it, interval widths, and the correlation with the
/// reference (with the Spearman interval where the method keeps bootstrap draws).
pub fn summary_lines(ordered: &[MethodResult], reference: Option<&Reference>) -> Vec<String> {
    ordered
        .iter()
        .map(|m| {
            let (mean, max, missing) = m.widths();
            let corr = reference.map(|r| {
                let (s, p, n) = report::correlation(report::ranked(m).0, r);
                let ci = report::spearman_interval(m, r)
                    .map_or(String::new(), |(a, b)| format!(" [{a:.3}, {b:.3}]"));
                format!(", Spearman {s:.3}{ci}, Pearson {p:.3} over {n} kinds")
            });
            format!(
                "{}: {} games/positions, mean half-width {mean:.2}, widest {max:.2}, {missing} without interval{}",
                m.method,
                m.games,
                corr.unwrap_or_default()
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(agent: &str, played: u64, seconds: f64, threads: u64) -> SessionLine {
        SessionLine { agent: agent.into(), played, seconds, threads, note: None }
    }

    fn game(ms: u64) -> GameLine {
        GameLine {
            setup: 0,
            swap: 0,
            agent: "ab2q-x-rm4p8pr0.2s".into(),
            seed: 1,
            sfen: String::new(),
            diff: Default::default(),
            result: 1.0,
            plies: 100,
            termination: "royal-captured".into(),
            ms,
            moves: String::new(),
        }
    }

    #[test]
    fn speed_lines_count_odds_sessions_apart_and_claim_no_machine() {
        let sessions = [
            session("ab2q-x-rm4p8pr0.2s", 100, 3600.0, 2),
            session("ab2q-x-odds-pawn-s", 30, 1800.0, 2),
            session("ab2q-x-rm4p8pr0.2s", 50, 1800.0, 1),
            session("ab2q-x-odds-gold-s", 10, 360.0, 2),
        ];
        let lines = speed_lines(&[game(2000), game(4000)], &sessions);
        assert_eq!(lines.len(), 4, "{lines:?}");
        assert!(
            lines[0].contains("2 games") && lines[0].contains("3.00 s per game"),
            "{}",
            lines[0]
        );
        assert!(lines[1].starts_with("imbalance sessions: 150 games in 2 sessions, 90.0 min"));
        assert!(lines[1].contains("1/2 threads: 100 games per hour"), "{}", lines[1]);
        assert!(
            lines[2].starts_with("odds-gold-s sessions: 10 games in 1 session,"),
            "{}",
            lines[2]
        );
        assert!(lines[3].starts_with("odds-pawn-s sessions: 30 games"), "{}", lines[3]);
        assert!(lines.iter().all(|l| !l.contains("2-core") && !l.contains("nice")));
    }

    #[test]
    fn speed_lines_are_empty_without_fitted_games() {
        assert!(speed_lines(&[], &[session("a-rm1p1pr0", 1, 1.0, 1)]).is_empty());
    }
}
