//! Where a trend's strongest engine and the reference table disagree, beyond the unit.
//!
//! Engines measure in their own unit (what a pawn decides between them), so a reference table
//! is first brought to each engine's scale: times the median, over the kinds that the engine
//! measures clearly above zero, of the engine's value over the reference value. A kind
//! disagrees when that scaled reference lies outside the strongest engine's 95% interval. Each
//! disagreement gets one line from the data: how the gap changed from the weakest engine to the
//! strongest, whether the kind moved with the common scale factor or beyond it, and, when the
//! trend names an engine's game log, the logged games that decide between the engine's value of
//! the kind and its scaled reference ([`super::evidence`]): their score and the easiest to read
//! of them, written to a file that `shogilab replay` reads.

use super::evidence::{deciding_games, games_words, replay_file, Deciding};
use super::imbalance::GameLine;
use super::report::short;
use super::scale::reference_scale;
use super::trend::{EngineValues, Trend};
use std::collections::BTreeMap;

/// Decisive games cited per disagreeing kind.
const EXAMPLES: usize = 3;

/// One kind whose scaled reference lies outside the strongest engine's interval.
#[derive(Debug, Clone)]
pub struct Gap {
    pub kind: usize,
    /// The reference at the strongest engine's scale.
    pub scaled: f64,
    /// The games of the logged engine that decide between its value and the scaled
    /// reference (None when the trend names no log).
    pub games: Option<Deciding>,
}

/// The scales a gap line reads: the reference's at the weakest and the strongest engine, and
/// the common factor between the two engines with each kind's ratio divided by it
/// ([`Trend::rescaled`]).
struct Scales {
    first: f64,
    last: f64,
    factor: f64,
    relative: Vec<f64>,
}

impl Trend {
    /// The reference table's scale at that engine ([`reference_scale`]).
    pub fn scale(&self, e: &EngineValues) -> f64 {
        let unit = self.kinds.iter().position(|k| *k == self.config.unit);
        reference_scale(&e.points, &self.reference, unit)
    }

    /// The kinds whose reference, at the strongest engine's scale, lies outside its interval,
    /// in the order of the report (the unit left out: its value is 1 by definition).
    pub fn gaps(&self) -> Vec<Gap> {
        let last = &self.engines[self.engines.len() - 1];
        let s = self.scale(last);
        let logged = self.logged_values().map(|(e, values, games)| (self.scale(e), values, games));
        let mut out = Vec::new();
        for k in self.order().into_iter().filter(|&k| self.kinds[k] != self.config.unit) {
            let (r, p) = (s * self.reference[k], last.points[k]);
            if !(r.is_finite() && p.lo.is_finite() && p.hi.is_finite())
                || (p.lo..=p.hi).contains(&r)
            {
                continue;
            }
            let games = logged.as_ref().map(|(scale, values, games)| {
                deciding_games(games, values, &self.kinds[k], scale * self.reference[k], EXAMPLES)
            });
            out.push(Gap { kind: k, scaled: r, games });
        }
        out
    }

    /// The logged engine with its values by kind name and its games.
    fn logged_values(&self) -> Option<(&EngineValues, BTreeMap<String, f64>, &[GameLine])> {
        let (label, games) = self.log.as_ref()?;
        let e = self.engines.iter().find(|e| &e.entry.label == label)?;
        let values = (self.kinds.iter().cloned()).zip(e.points.iter().map(|p| p.value)).collect();
        Some((e, values, games))
    }

    /// The gap between an engine's value of kind `k` and the scaled reference, relative to
    /// the scaled reference.
    fn relative_gap(&self, e: &EngineValues, scale: f64, k: usize) -> f64 {
        let r = scale * self.reference[k];
        ((e.points[k].value - r) / r).abs()
    }

    /// The report's section on the gaps (empty without any).
    pub(super) fn gaps_section(&self) -> String {
        let gaps = self.gaps();
        if gaps.is_empty() {
            return String::new();
        }
        let (first, last) = (&self.engines[0], &self.engines[self.engines.len() - 1]);
        let (factor, relative) = self.rescaled();
        let scales = Scales { first: self.scale(first), last: self.scale(last), factor, relative };
        let raw = (0..self.kinds.len())
            .filter(|&k| self.change(k).covers == Some(false) && last.points[k].value.is_finite())
            .count();
        let mut s = format!(
            "\n## Where the strongest engine and the reference disagree\n\nEach engine has its own unit, so the reference is brought to an engine's scale first: times the median, over the kinds whose interval there lies above zero, of the engine's value over the reference value (×{} at `{}`, ×{} at `{}`). In the engines' units the reference lies outside `{}`'s interval for {raw} kinds; at its scale, for the {} below. Per kind: the gap at the strongest engine; whether the relative gap narrows from the weakest engine to the strongest; whether the kind moved with the common scale factor or beyond it",
            short(scales.first),
            first.entry.label,
            short(scales.last),
            last.entry.label,
            last.entry.label,
            gaps.len()
        );
        if let Some((label, games)) = &self.log {
            s.push_str(&format!("; and the games of `{label}` ({} in its log) whose predicted winner (the material balance at its values) changes when that kind alone takes its scaled reference value: the score of the side that the engine's own value favours, with its 95% interval, and such games won by the side the majority of results favours (fewest pieces in the difference first, then fewest plies), as lines of `{}-evidence.txt` (`shogilab replay -v {} --file {}-evidence.txt` plays them)", games.len(), self.config.variant, self.config.variant, self.config.variant));
        }
        s.push_str(".\n\n");
        let mut line_no = 0;
        for g in &gaps {
            s.push_str(&self.gap_line(g, &scales, &mut line_no));
        }
        s
    }

    fn gap_line(&self, g: &Gap, scales: &Scales, line_no: &mut usize) -> String {
        let (first, last) = (&self.engines[0], &self.engines[self.engines.len() - 1]);
        let k = g.kind;
        let (factor, relative) = (scales.factor, scales.relative[k]);
        let p = last.points[k];
        let side = if g.scaled > p.value { "above" } else { "below" };
        let closing = if self.relative_gap(last, scales.last, k)
            < self.relative_gap(first, scales.first, k)
        {
            "the relative gap narrows as the engines get stronger"
        } else {
            "the relative gap widens as the engines get stronger"
        };
        let beyond = if !relative.is_finite() {
            "not measured by every engine".to_string()
        } else if first.points[k].lo <= 0.0 {
            format!(
                "no ratio to the common factor: `{}`'s interval reaches zero",
                first.entry.label
            )
        } else if relative > 1.15 {
            format!("it gains ×{relative:.2} beyond the common factor {factor:.2}: the stronger engines use it more")
        } else if relative < 0.87 {
            format!("it keeps only ×{relative:.2} of the common factor {factor:.2}: the stronger engines need it less")
        } else {
            format!("it moves with the common factor {factor:.2} (×{relative:.2})")
        };
        let mut line = format!(
            "* **{}**: reference {} (scaled {}) lies {side} `{}`'s {} [{}, {}] (`{}`: {}); {closing}; {beyond}",
            self.kinds[k],
            short(self.reference[k]),
            short(g.scaled),
            last.entry.label,
            short(p.value),
            short(p.lo),
            short(p.hi),
            first.entry.label,
            short(first.points[k].value)
        );
        if let Some(d) = &g.games {
            line.push_str(&games_words(d, line_no));
        }
        line.push_str(".\n");
        line
    }

    /// The cited games, one `shogilab replay` line each, in the order the report numbers them.
    pub fn evidence_file(&self) -> String {
        replay_file(self.gaps().iter().filter_map(|g| g.games.as_ref()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::evidence::Verdict;
    use crate::values::log::GameLog;
    use std::path::Path;

    fn game(setup: usize, result: f64, plies: u32) -> GameLine {
        GameLine {
            setup,
            swap: (setup % 2) as u8,
            agent: "ab1q-test".into(),
            seed: 0,
            sfen: "9/9/9/9/9/9/9/9/9 b - 1".into(),
            diff: [("lion".to_string(), 1), ("rook".to_string(), -2)].into(),
            result,
            plies,
            termination: "royal-captured".into(),
            ms: 0,
            moves: format!("move{setup}"),
        }
    }

    fn write(dir: &Path, name: &str, text: &str) -> String {
        std::fs::write(dir.join(name), text).unwrap();
        dir.join(name).display().to_string()
    }

    #[test]
    fn a_gap_at_the_engines_scale_cites_the_logged_games_that_decide_it() {
        let dir = std::env::temp_dir().join(format!("shogilab-gaps-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let head = "piece,value,ci_low,ci_high,method,gcsa\n";
        let rows = |lion: &str| {
            format!("{head}pawn,1,1,1,imbalance,1\ngold general,2,1.5,2.5,imbalance,2\nrook,3,2.5,3.5,imbalance,3\nlion,{lion},imbalance,5\n")
        };
        let weak = write(&dir, "weak.csv", &rows("6,5,7"));
        let strong = write(&dir, "strong.csv", &rows("8,7,9"));
        // the lion side wins 30 of the 40 games of lion against two rooks (8 > 6 at the
        // engine's values, 5 < 6 at the reference's)
        let games: Vec<GameLine> =
            (0..40).map(|i| game(i, if i % 4 == 3 { 0.0 } else { 1.0 }, 100 - i as u32)).collect();
        GameLog::new(dir.join("log")).append_games(&games).unwrap();
        let cfg = write(&dir, "trend.toml", &format!(
            "variant = \"chu\"\n[[engine]]\nlabel = \"d1\"\nvalues = \"{weak}\"\nmethod = \"imbalance\"\nelo = [0, -50, 50]\n[[engine]]\nlabel = \"d2\"\nvalues = \"{strong}\"\nmethod = \"imbalance\"\nelo = [300, 250, 350]\nlog = \"{}\"\n",
            dir.join("log").display()));
        let t = Trend::load(Path::new(&cfg)).unwrap();
        let gaps = t.gaps();
        assert_eq!(gaps.len(), 1, "only the lion: the other kinds sit on the scale 1");
        let d = gaps[0].games.as_ref().unwrap();
        assert_eq!((d.wins, d.draws, d.losses, d.other), (30, 0, 10, 5.0));
        assert_eq!(d.verdict(), Verdict::Measured);
        let md = t.markdown("shogilab values-trend");
        assert!(md.contains("the relative gap widens"), "{md}");
        assert!(md.contains("40 games decide between its value 8.00 and 5.00"), "{md}");
        assert!(md.contains("the games support the engine's value"), "{md}");
        // the shortest games the lion side won: setups 38, 37, 36 (setup 39 it lost)
        assert!(
            md.contains("line 1 (setup 38/0: lion vs 2 rook, the lion side won in 62 plies)"),
            "{md}"
        );
        let lines: Vec<String> = t.evidence_file().lines().map(String::from).collect();
        assert_eq!(
            lines,
            ["move38", "move37", "move36"]
                .map(|m| format!("sfen 9/9/9/9/9/9/9/9/9 b - 1 moves {m}"))
        );
        // a log without imbalance games is refused naming it
        let empty = write(
            &dir,
            "empty.toml",
            &std::fs::read_to_string(&cfg).unwrap().replace("/log\"", "/none\""),
        );
        let err = Trend::load(Path::new(&empty)).unwrap_err().to_string();
        assert!(err.contains("none") && err.contains("no imbalance games"), "{err}");
        // a weakest value whose interval reaches zero gives no ratio to the common factor
        assert!(md.contains("it gains ×1.33 beyond the common factor 1.00"), "{md}");
        write(&dir, "weak.csv", &rows("6,-1,7"));
        let md = Trend::load(Path::new(&cfg)).unwrap().markdown("shogilab values-trend");
        assert!(md.contains("no ratio to the common factor: `d1`'s interval reaches zero"), "{md}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
