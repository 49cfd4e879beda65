//! How piece values move as the engine that measures them gets stronger (`shogilab
//! values-trend`).
//!
//! A [`TrendConfig`] (TOML) lists measured tables, one per engine: a `<variant>-all.csv` of
//! `shogilab values` with the method to read, and the engine's Elo on the project's ladder,
//! given as a number or as a match against an agent of known ladder Elo. [`Trend::load`] reads
//! and checks them (same unit everywhere); [`Trend::markdown`], [`Trend::csv`] and
//! [`Trend::charts`] write the report: per kind, the value at each engine, the change from the
//! weakest to the strongest engine, and whether that change moves it towards the reference.

use super::imbalance::GameLine;
use super::log::GameLog;
use super::odds;
use super::report::{csv_field, num, short};
use super::scale::upper_median;
pub use super::scale::Point;
use super::stats::spearman;
use serde::Deserialize;
use shogilab_plot::{Labels, PlotError, Series};
use std::path::{Path, PathBuf};

/// A trend that cannot be read, naming the file and the fault.
#[derive(Debug, thiserror::Error)]
pub enum TrendError {
    #[error("{path}: {message}")]
    Input { path: String, message: String },
}

fn bad(path: &Path, message: impl Into<String>) -> TrendError {
    TrendError::Input { path: path.display().to_string(), message: message.into() }
}

/// The trend's settings.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrendConfig {
    pub variant: String,
    /// The kind worth 1 in every table (checked).
    #[serde(default = "pawn")]
    pub unit: String,
    /// The engines, in any order (the report sorts them by Elo).
    pub engine: Vec<EngineEntry>,
}

fn pawn() -> String {
    "pawn".into()
}

/// One engine's table and strength.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineEntry {
    pub label: String,
    /// A `<variant>-all.csv` of `shogilab values` (a relative path is from the current
    /// directory).
    pub values: PathBuf,
    /// The method whose rows to read (`imbalance`, `probe`, ...).
    pub method: String,
    /// The Elo on the ladder with its 95% interval, `[elo, low, high]`; or, instead:
    pub elo: Option<[f64; 3]>,
    /// a `match.json` of `shogilab match` with this engine as agent `a`, and
    #[serde(rename = "match")]
    pub match_file: Option<PathBuf>,
    /// the ladder Elo of that match's agent `b` (its own uncertainty is not carried).
    pub anchor_elo: Option<f64>,
    /// Words on the engine for the report (limits, games behind the table).
    #[serde(default)]
    pub note: String,
    /// The engine's game log (a `shogilab values` log folder), whose games the report cites
    /// where a kind's value and the reference disagree; the strongest engine with a log is
    /// used.
    pub log: Option<PathBuf>,
}

/// One engine, loaded.
#[derive(Debug, Clone)]
pub struct EngineValues {
    pub entry: EngineEntry,
    /// Elo, low, high.
    pub elo: [f64; 3],
    /// Where the Elo comes from, in words.
    pub elo_source: String,
    /// Per kind of [`Trend::kinds`]; NaN where the table has no value.
    pub points: Vec<Point>,
}

/// Every engine's table, by increasing Elo, over the kinds of the first table read.
#[derive(Debug, Clone)]
pub struct Trend {
    pub config: TrendConfig,
    /// The config file's text, as read (for the report).
    pub source: String,
    pub kinds: Vec<String>,
    /// The reference column of the tables (the first table that has one), per kind.
    pub reference: Vec<f64>,
    pub engines: Vec<EngineValues>,
    /// The label of the strongest engine with a game log, and the log's imbalance games.
    pub log: Option<(String, Vec<GameLine>)>,
}

/// A `match.json` of `shogilab match`: the fields the trend reads.
#[derive(Deserialize)]
struct MatchJson {
    a: String,
    b: String,
    games: u64,
    elo: f64,
    elo_ci95: [f64; 2],
}

/// The rows of `method` in a `<variant>-all.csv`: (piece, value, low, high, reference).
fn read_table(path: &Path, method: &str) -> Result<Vec<(String, Point, f64)>, TrendError> {
    let mut reader = csv::Reader::from_path(path).map_err(|e| bad(path, e.to_string()))?;
    let headers = reader.headers().map_err(|e| bad(path, e.to_string()))?.clone();
    let want = ["piece", "value", "ci_low", "ci_high", "method", "gcsa"];
    if headers.iter().collect::<Vec<_>>() != want {
        return Err(bad(path, format!("expected the columns {}", want.join(","))));
    }
    let number = |s: &str| if s.is_empty() { Ok(f64::NAN) } else { s.parse::<f64>() };
    let mut rows = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let r = record.map_err(|e| bad(path, e.to_string()))?;
        if &r[4] != method {
            continue;
        }
        let parse = |c: usize| {
            number(&r[c]) // "inf" and "-inf" parse as the infinities the CSVs write
                .map_err(|_| bad(path, format!("row {}: {:?} is not a number", i + 2, &r[c])))
        };
        let point = Point { value: parse(1)?, lo: parse(2)?, hi: parse(3)? };
        rows.push((r[0].to_string(), point, parse(5)?));
    }
    if rows.is_empty() {
        return Err(bad(path, format!("no rows of method {method:?}")));
    }
    Ok(rows)
}

/// The engine's Elo and where it comes from.
fn engine_elo(e: &EngineEntry, config: &Path) -> Result<([f64; 3], String), TrendError> {
    match (&e.elo, &e.match_file, e.anchor_elo) {
        (Some(elo), None, None) => Ok((*elo, "given in the config".into())),
        (None, Some(path), Some(anchor)) => {
            let text = std::fs::read_to_string(path).map_err(|err| bad(path, err.to_string()))?;
            let m: MatchJson =
                serde_json::from_str(&text).map_err(|err| bad(path, err.to_string()))?;
            let elo = [anchor + m.elo, anchor + m.elo_ci95[0], anchor + m.elo_ci95[1]];
            let source = format!(
                "`{}` vs `{}` ({} games, {}): {:+.0} [{:+.0}, {:+.0}] from `{}` at {anchor:+.0}",
                m.a,
                m.b,
                m.games,
                path.display(),
                m.elo,
                m.elo_ci95[0],
                m.elo_ci95[1],
                m.b
            );
            Ok((elo, source))
        }
        _ => Err(bad(
            config,
            format!(
                "engine {:?}: give either elo = [elo, low, high], or match and anchor_elo",
                e.label
            ),
        )),
    }
}

/// The imbalance games (odds games left out) of the strongest engine that names a log.
fn read_log(engines: &[EngineValues]) -> Result<Option<(String, Vec<GameLine>)>, TrendError> {
    let found = engines.iter().rev().find_map(|e| e.entry.log.as_ref().map(|dir| (e, dir)));
    let Some((e, dir)) = found else { return Ok(None) };
    let games = GameLog::new(dir).read_games().map_err(|err| bad(dir, err.to_string()))?;
    let games: Vec<GameLine> = games.into_iter().filter(|g| !odds::is_odds(&g.agent)).collect();
    if games.is_empty() {
        return Err(bad(dir, "no imbalance games in this log"));
    }
    Ok(Some((e.entry.label.clone(), games)))
}

impl Trend {
    /// Read the config at `path` and every table it names; refuses tables in another unit,
    /// fewer than two engines, and unknown settings.
    pub fn load(path: &Path) -> Result<Trend, TrendError> {
        let text = std::fs::read_to_string(path).map_err(|e| bad(path, e.to_string()))?;
        let config: TrendConfig = toml::from_str(&text).map_err(|e| bad(path, e.to_string()))?;
        if config.engine.len() < 2 {
            return Err(bad(path, "a trend needs at least two [[engine]] tables"));
        }
        let (mut kinds, mut reference) = (Vec::<String>::new(), Vec::<f64>::new());
        let mut engines = Vec::new();
        for e in &config.engine {
            let rows = read_table(&e.values, &e.method)?;
            let unit = rows.iter().find(|r| r.0 == config.unit);
            if !unit.is_some_and(|r| (r.1.value - 1.0).abs() < 1e-6) {
                return Err(bad(
                    &e.values,
                    format!("not in units of {:?} (its value is not 1)", config.unit),
                ));
            }
            if kinds.is_empty() {
                kinds = rows.iter().map(|r| r.0.clone()).collect();
                reference = rows.iter().map(|r| r.2).collect();
            }
            let nan = Point { value: f64::NAN, lo: f64::NAN, hi: f64::NAN };
            let points = kinds
                .iter()
                .map(|k| rows.iter().find(|r| &r.0 == k).map_or(nan, |r| r.1))
                .collect();
            let (elo, elo_source) = engine_elo(e, path)?;
            engines.push(EngineValues { entry: e.clone(), elo, elo_source, points });
        }
        engines.sort_by(|a, b| a.elo[0].total_cmp(&b.elo[0]));
        let log = read_log(&engines)?;
        Ok(Trend { config, source: text, kinds, reference, engines, log })
    }

    /// Per kind, from the weakest engine to the strongest: the change, whether the intervals
    /// separate, and whether the strongest is nearer the reference.
    pub fn change(&self, k: usize) -> Change {
        let (first, last) = (&self.engines[0], &self.engines[self.engines.len() - 1]);
        let (a, b) = (first.points[k], last.points[k]);
        let per_100 = (b.value - a.value) / ((last.elo[0] - first.elo[0]) / 100.0);
        let clear = if b.lo > a.hi {
            Direction::Up
        } else if b.hi < a.lo {
            Direction::Down
        } else {
            Direction::Unclear
        };
        let r = self.reference[k];
        let towards = r.is_finite().then(|| (b.value - r).abs() < (a.value - r).abs());
        let covers = r.is_finite().then_some(b.lo <= r && r <= b.hi);
        Change { per_100, direction: clear, towards, covers }
    }
}

/// Which way a kind's value moved between the weakest and the strongest engine.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Direction {
    /// The strongest engine's interval lies above the weakest's.
    Up,
    /// Below it.
    Down,
    /// The intervals overlap.
    Unclear,
}

/// A kind's change from the weakest to the strongest engine.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Change {
    /// Value change per 100 Elo of engine strength.
    pub per_100: f64,
    pub direction: Direction,
    /// The strongest engine's value is nearer the reference than the weakest's (None without
    /// a reference value).
    pub towards: Option<bool>,
    /// The reference lies in the strongest engine's interval.
    pub covers: Option<bool>,
}

impl Trend {
    /// `piece,engine,elo,elo_low,elo_high,value,ci_low,ci_high,method,reference`.
    pub fn csv(&self) -> String {
        let mut s = String::from(
            "piece,engine,elo,elo_low,elo_high,value,ci_low,ci_high,method,reference\n",
        );
        for (k, kind) in self.kinds.iter().enumerate() {
            for e in &self.engines {
                let p = e.points[k];
                s.push_str(&format!(
                    "{},{},{},{},{},{},{},{},{},{}\n",
                    csv_field(kind),
                    csv_field(&e.entry.label),
                    num(e.elo[0]),
                    num(e.elo[1]),
                    num(e.elo[2]),
                    num(p.value),
                    num(p.lo),
                    num(p.hi),
                    csv_field(&e.entry.method),
                    num(self.reference[k])
                ));
            }
        }
        s
    }

    /// The Markdown report; `command` is how it was made.
    pub fn markdown(&self, command: &str) -> String {
        let c = &self.config;
        let mut s = format!("# Piece values against engine strength: {}\n\nGenerated by\n\n```sh\n{command}\n```\n\n", c.variant);
        s.push_str(&format!("Values in units of the {} ({} = 1), 95% intervals as each table gives them. Engines by Elo on the project's ladder:\n\n| engine | Elo | 95% CI | table | method | Spearman with the reference | where the Elo comes from | notes |\n|---|---:|---|---|---|---:|---|---|\n", c.unit, c.unit));
        for e in &self.engines {
            let values: Vec<f64> = e.points.iter().map(|p| p.value).collect();
            s.push_str(&format!(
                "| {} | {:+.0} | [{:+.0}, {:+.0}] | `{}` | {} | {} | {} | {} |\n",
                e.entry.label,
                e.elo[0],
                e.elo[1],
                e.elo[2],
                e.entry.values.display(),
                e.entry.method,
                short(spearman(&values, &self.reference)),
                e.elo_source,
                e.entry.note
            ));
        }
        s.push_str(&self.kinds_table());
        s.push_str(&self.summary());
        s.push_str(&self.gaps_section());
        s
    }

    fn kinds_table(&self) -> String {
        let (first, last) =
            (&self.engines[0].entry.label, &self.engines[self.engines.len() - 1].entry.label);
        let mut s = format!("\n## Per kind\n\n`change`: from `{first}` to `{last}`, per 100 Elo; `clear` when their intervals do not overlap. `nearer`: the strongest engine's value is nearer the reference than the weakest's. `covers`: the reference lies in the strongest engine's interval.\n\n| piece | reference |");
        let mut rule = String::from("|---|---:|");
        for e in &self.engines {
            s.push_str(&format!(" {} | CI |", e.entry.label));
            rule.push_str("---:|---|");
        }
        s.push_str(" change / 100 Elo | clear | nearer | covers |\n");
        s.push_str(&rule);
        s.push_str("---:|---|---|---|\n");
        let yes = |b: Option<bool>| b.map_or("–", |b| if b { "yes" } else { "no" });
        for k in self.order() {
            s.push_str(&format!("| {} | {} |", self.kinds[k], short(self.reference[k])));
            for e in &self.engines {
                let p = e.points[k];
                s.push_str(&format!(" {} | [{}, {}] |", short(p.value), short(p.lo), short(p.hi)));
            }
            let ch = self.change(k);
            let dir = match ch.direction {
                Direction::Up => "up",
                Direction::Down => "down",
                Direction::Unclear => "no",
            };
            s.push_str(&format!(
                " {} | {dir} | {} | {} |\n",
                short(ch.per_100),
                yes(ch.towards),
                yes(ch.covers)
            ));
        }
        s
    }

    /// Kinds by reference value, else by the strongest engine's value, largest first.
    pub(super) fn order(&self) -> Vec<usize> {
        let last = &self.engines[self.engines.len() - 1];
        let key = |k: usize| {
            let r = self.reference[k];
            if r.is_finite() {
                r
            } else {
                last.points[k].value
            }
        };
        let mut order: Vec<usize> = (0..self.kinds.len()).collect();
        order.sort_by(|&a, &b| key(b).total_cmp(&key(a)));
        order
    }

    /// The common scale factor from the weakest to the strongest engine (the median ratio of
    /// their values over the kinds worth more than half a unit at the weakest), and per kind
    /// its ratio divided by that factor: what moves beyond a change of the unit itself.
    pub fn rescaled(&self) -> (f64, Vec<f64>) {
        let (first, last) = (&self.engines[0], &self.engines[self.engines.len() - 1]);
        let ratios: Vec<f64> =
            (0..self.kinds.len()).map(|k| last.points[k].value / first.points[k].value).collect();
        let kept = (0..self.kinds.len())
            .filter(|&k| first.points[k].value > 0.5 && self.kinds[k] != self.config.unit)
            .map(|k| ratios[k]);
        let factor = upper_median(kept);
        (factor, ratios.iter().map(|r| r / factor).collect())
    }

    /// The kinds that move most beyond the common scale, up to `n` each way and none in both
    /// lists, as words; `None` with fewer than two such kinds.
    fn movers(&self, relative: &[f64], n: usize) -> Option<(String, String)> {
        let first = &self.engines[0];
        let mut ks: Vec<usize> = (0..self.kinds.len())
            .filter(|&k| first.points[k].value > 0.5 && relative[k].is_finite())
            .filter(|&k| self.kinds[k] != self.config.unit)
            .collect();
        ks.sort_by(|&a, &b| relative[b].total_cmp(&relative[a]));
        let words = |ks: &[usize]| {
            let w: Vec<String> =
                ks.iter().map(|&k| format!("{} ×{:.2}", self.kinds[k], relative[k])).collect();
            w.join(", ")
        };
        let each = n.min(ks.len() / 2);
        if each == 0 {
            return None;
        }
        let up = words(&ks[..each]);
        ks.reverse();
        Some((up, words(&ks[..each])))
    }

    fn summary(&self) -> String {
        let (factor, relative) = self.rescaled();
        let beyond = self.movers(&relative, 4).map_or(String::new(), |(up, down)| {
            format!(" Beyond that factor, the kinds that gain most are {up}; those that lose most, {down}.")
        });
        let scale = format!(
            "* Much of that is the unit itself: from the weakest to the strongest engine the values grow by a common factor of {:.2} (median over the kinds worth more than half a {} at the weakest).{beyond}\n",
            factor, self.config.unit
        );
        let changes: Vec<Change> = (0..self.kinds.len()).map(|k| self.change(k)).collect();
        let count = |f: &dyn Fn(&Change) -> bool| changes.iter().filter(|c| f(c)).count();
        let with_ref = count(&|c| c.towards.is_some());
        format!(
            "\n## Summary\n\n* {} of {} kinds change clearly from the weakest to the strongest engine ({} up, {} down).\n* {} of {} kinds with a reference value move towards it; the reference lies in the strongest engine's interval for {} of them.\n",
            count(&|c| c.direction != Direction::Unclear),
            self.kinds.len(),
            count(&|c| c.direction == Direction::Up),
            count(&|c| c.direction == Direction::Down),
            count(&|c| c.towards == Some(true)),
            with_ref,
            count(&|c| c.covers == Some(true)),
        ) + &scale
    }

    /// Value against Elo, one line per kind, `per_chart` kinds a chart, the most valuable (at
    /// the strongest engine) first: `<stem>.png`, `<stem>-2.png`, ... Returns the files.
    pub fn charts(
        &self,
        out: &Path,
        stem: &str,
        per_chart: usize,
    ) -> Result<Vec<PathBuf>, PlotError> {
        let last = &self.engines[self.engines.len() - 1];
        let mut by_value: Vec<usize> =
            (0..self.kinds.len()).filter(|&k| last.points[k].value.is_finite()).collect();
        by_value.sort_by(|&a, &b| last.points[b].value.total_cmp(&last.points[a].value));
        let name =
            |i: usize| if i == 0 { format!("{stem}.png") } else { format!("{stem}-{}.png", i + 1) };
        let mut files = Vec::new();
        for (i, kinds) in by_value.chunks(per_chart.max(1)).enumerate() {
            let series: Vec<Series> = kinds
                .iter()
                .map(|&k| Series {
                    name: self.kinds[k].clone(),
                    points: self.engines.iter().map(|e| (e.elo[0], e.points[k].value)).collect(),
                    bars: Vec::new(),
                })
                .collect();
            let title = format!("{}: piece values against engine strength", self.config.variant);
            let y = format!("value ({} = 1)", self.config.unit);
            let labels = Labels { title: &title, x: "engine Elo on the ladder", y: &y };
            let path = out.join(name(i));
            shogilab_plot::line_chart(&path, labels, &series)?;
            files.push(path);
        }
        // no stale chart of other numbers from a run with more kinds
        let mut i = files.len().max(1);
        while out.join(name(i)).exists() {
            let _ = std::fs::remove_file(out.join(name(i)));
            i += 1;
        }
        Ok(files)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn a_trend_reads_two_tables_and_says_which_kinds_moved_towards_the_reference() {
        let dir = std::env::temp_dir().join(format!("shogilab-trend-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let head = "piece,value,ci_low,ci_high,method,gcsa\n";
        let weak = write(&dir, "weak.csv", &format!("{head}pawn,1,1,1,imbalance,1\nlion,7,6,8,imbalance,20\ngold general,3,2.5,3.5,imbalance,3\nlion,99,0,200,probe,20\n"));
        let strong = write(&dir, "strong.csv", &format!("{head}pawn,1,1,1,imbalance,1\nlion,18,15,21,imbalance,20\ngold general,3.2,2,4,imbalance,3\n"));
        let m = write(
            &dir,
            "match.json",
            r#"{"a":"imbalance:2:each","b":"alphabeta:2","games":100,"elo":-50,"elo_ci95":[-120,20],"wins":1}"#,
        );
        let cfg = write(&dir, "trend.toml", &format!(
            "variant = \"chu\"\n[[engine]]\nlabel = \"d2\"\nvalues = \"{}\"\nmethod = \"imbalance\"\nmatch = \"{}\"\nanchor_elo = 600\n[[engine]]\nlabel = \"d1\"\nvalues = \"{}\"\nmethod = \"imbalance\"\nelo = [400, 350, 450]\n",
            strong.display(), m.display(), weak.display()));
        let t = Trend::load(&cfg).unwrap();
        assert_eq!(t.engines[0].entry.label, "d1", "sorted by Elo");
        assert_eq!(t.engines[1].elo, [550.0, 480.0, 620.0]);
        let lion = t.kinds.iter().position(|k| k == "lion").unwrap();
        let ch = t.change(lion);
        assert_eq!(ch.direction, Direction::Up);
        assert!((ch.per_100 - 11.0 / 1.5).abs() < 1e-9);
        assert_eq!((ch.towards, ch.covers), (Some(true), Some(true)));
        let gold = t.kinds.iter().position(|k| k == "gold general").unwrap();
        assert_eq!(t.change(gold).direction, Direction::Unclear);
        let (factor, relative) = t.rescaled();
        // lion 18/7 and gold 3.2/3: the median of two ratios is the larger
        assert!((factor - 18.0 / 7.0).abs() < 1e-9);
        assert!((relative[gold] - (3.2 / 3.0) / factor).abs() < 1e-9);
        let md = t.markdown("shogilab values-trend");
        assert!(
            md.contains("| lion | 20.00 | 7.00 | [6.00, 8.00] | 18.00 | [15.00, 21.00] |"),
            "{md}"
        );
        assert_eq!(t.csv().lines().count(), 1 + 3 * 2);
        // at the strong engine's scale (the median of 18/20 and 3.2/3) the gold's reference
        // 3.2 lies in [2, 4], the lion's 21.3 above [15, 21]
        assert!(md.contains("## Where the strongest engine and the reference disagree"), "{md}");
        assert!(md.contains("* **lion**: reference 20.00 (scaled 21.33) lies above"), "{md}");
        assert!(!md.contains("* **gold general**"), "{md}");
        // two kinds beyond the unit: one in each list, none in both
        assert!(
            md.contains("gain most are lion ×1.00; those that lose most, gold general ×0.41."),
            "{md}"
        );
        // another unit, one engine, an unknown key, a missing method: refused naming the file
        let text = std::fs::read_to_string(&cfg).unwrap();
        let gold_unit = write(&dir, "gold.toml", &format!("unit = \"gold general\"\n{text}"));
        assert!(Trend::load(&gold_unit)
            .unwrap_err()
            .to_string()
            .contains("units of \"gold general\""));
        let one = write(&dir, "one.toml", text.split("[[engine]]\nlabel = \"d1\"").next().unwrap());
        assert!(Trend::load(&one).unwrap_err().to_string().contains("at least two"));
        let unknown = write(&dir, "unknown.toml", &format!("colour = 1\n{text}"));
        assert!(Trend::load(&unknown).unwrap_err().to_string().contains("colour"));
        let texel = write(
            &dir,
            "texel.toml",
            &text.replace("method = \"imbalance\"\nelo", "method = \"texel\"\nelo"),
        );
        let err = Trend::load(&texel).unwrap_err().to_string();
        assert!(err.contains("weak.csv") && err.contains("texel"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
