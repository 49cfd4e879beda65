//! Empirical piece values (`shogilab values`): three estimates of every piece kind's value in
//! units of one kind (the pawn unless `--unit` says otherwise), each with a 95% bootstrap interval, and a report beside a reference table.
//!
//! * [`imbalance`]: H.G. Muller's method. An engine plays itself from start positions with a few
//!   random pieces removed (or promoted in place); the result is regressed on the per-kind
//!   material differences (logistic, draws = 0.5, first-move intercept); value = coefficient /
//!   pawn coefficient; intervals by bootstrap over the colour-swapped game pairs.
//! * [`texel`]: the same regression on the positions of self-play datasets (Parquet shards of
//!   `shogilab selfplay`), bootstrap over games.
//! * [`probe`]: an [`Evaluator`](shogilab_selfplay::Evaluator)'s value drop (in logit units)
//!   when a piece is removed, or its gain when a piece is promoted in place, relative to a
//!   pawn's; bootstrap over positions.
//! * [`searcher`]: the imbalance engine; [`agent`]: it as a match agent (`imbalance[:DEPTH][:each]`).
//! * [`stats`]: the regression, bootstrap and correlation maths; [`report`]: CSV and Markdown.
//! * [`study`]: a whole study as typed steps (config in, result out; games, fits, report);
//!   [`output`]: its report files and charts.
//! * [`log`]: the imbalance game log (Parquet part files, zstd); [`jsonl`]: the JSON-lines
//!   logs of earlier versions, read only to convert them.
//!
//! Kinds are grouped by the English name a type moves as ([`Kinds`]): the chu tokin counts as a
//! gold general, a promoted rook as a dragon king.

pub mod agent;
pub mod evidence;
pub mod explain;
pub mod imbalance;
pub mod jsonl;
pub mod log;
pub mod odds;
pub mod odds_report;
pub mod output;
pub mod probe;
pub mod report;
pub mod scale;
pub mod searcher;
pub mod stats;
pub mod study;
pub mod texel;
pub mod trend;
pub mod trend_gaps;
pub mod usage;

use shogilab_engine::cell::Cell;
use shogilab_engine::variant::TYPE_MASK;
use shogilab_engine::{Color, Position, Variant};

/// Piece kinds of a variant, by English name.
#[derive(Debug, Clone)]
pub struct Kinds {
    /// Kind names in the order of their first type.
    pub names: Vec<String>,
    /// Type id -> kind index.
    pub of_type: Vec<usize>,
    /// A type of the kind is royal.
    pub royal: Vec<bool>,
    /// Kind index of the pawn.
    pub pawn: Option<usize>,
    /// Kind index of the unit of the values (the pawn unless [`Kinds::with_unit`] chose
    /// another kind).
    pub unit: Option<usize>,
}

impl Kinds {
    pub fn new(v: &Variant) -> Kinds {
        let mut names: Vec<String> = Vec::new();
        let mut royal = Vec::new();
        let mut of_type = Vec::with_capacity(v.types.len());
        for t in &v.types {
            let k = match names.iter().position(|n| *n == t.name) {
                Some(k) => k,
                None => {
                    names.push(t.name.clone());
                    royal.push(false);
                    names.len() - 1
                }
            };
            royal[k] |= t.royal;
            of_type.push(k);
        }
        let pawn = names.iter().position(|n| n == "pawn");
        Kinds { names, of_type, royal, pawn, unit: pawn }
    }

    /// The same kinds with the values in units of kind `name` (None: no such kind).
    pub fn with_unit(self, name: &str) -> Option<Kinds> {
        let unit = Some(self.index(name)?);
        Some(Kinds { unit, ..self })
    }

    /// The name of the unit kind ("pawn" when the variant has neither the unit nor a pawn).
    pub fn unit_name(&self) -> &str {
        self.unit.map_or("pawn", |k| self.names[k].as_str())
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    pub fn index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// The kind of the piece in a board cell.
    pub fn of_cell(&self, cell: Cell) -> usize {
        self.of_type[(cell & TYPE_MASK) as usize]
    }

    /// Per kind: pieces of `c` minus pieces of the other colour, board and hands.
    pub fn diff(&self, pos: &Position, c: Color) -> Vec<f64> {
        let mut d = vec![0.0; self.len()];
        let v = pos.variant();
        for (col, sign) in [(c, 1.0), (c.flip(), -1.0)] {
            for &sq in pos.pieces(col) {
                d[self.of_cell(pos.cell(sq))] += sign;
            }
            for (h, &t) in v.hand_types.iter().enumerate() {
                d[self.of_type[t as usize]] += sign * pos.hand(col, h) as f64;
            }
        }
        d
    }
}

/// One kind's estimate. NaN value = not measured (the note says why).
#[derive(Debug, Clone, Default)]
pub struct ValueEstimate {
    pub piece: String,
    pub value: f64,
    pub lo: f64,
    pub hi: f64,
}

impl ValueEstimate {
    pub fn half_width(&self) -> f64 {
        (self.hi - self.lo) / 2.0
    }
}

/// The result of one method.
#[derive(Debug, Clone, Default)]
pub struct MethodResult {
    /// Short name in the CSV `method` column (`imbalance`, `texel`, `probe`).
    pub method: String,
    /// What it used (agent, datasets, checkpoint), for the report.
    pub description: String,
    /// One per kind, in [`Kinds`] order.
    pub estimates: Vec<ValueEstimate>,
    /// Games behind the estimate (imbalance, texel) or positions (probe).
    pub games: usize,
    /// Regression rows / probes.
    pub samples: usize,
    /// Mean 95% half-width (finite intervals only) against games used, refitting on the first n.
    pub curve: Vec<(f64, f64)>,
    /// The same for the effects (logit; empty for methods without effects).
    pub effect_curve: Vec<(f64, f64)>,
    pub notes: Vec<String>,
    /// Bootstrap draws of the values (one vector per resample, in [`Kinds`] order), for
    /// intervals of statistics of the whole table (the rank correlation); empty when the
    /// method keeps none.
    pub draws: Vec<Vec<f64>>,
    /// Unit-free effects: each kind's regression coefficient, the change in the log-odds of the
    /// expected score per extra piece, with its 95% bootstrap interval (in [`Kinds`] order;
    /// empty for methods that do not regress game results). Finite even where the pawn
    /// coefficient, the unit of the values, is not bounded away from zero.
    pub effects: Vec<ValueEstimate>,
    /// Bootstrap draws of the effects, like `draws`.
    pub effect_draws: Vec<Vec<f64>>,
}

impl MethodResult {
    /// Mean and max finite half-width, and how many kinds have an unbounded or missing interval.
    pub fn widths(&self) -> (f64, f64, usize) {
        // the unit's interval is [1, 1] by definition
        let is_unit = |e: &&ValueEstimate| e.value == 1.0 && e.lo == 1.0 && e.hi == 1.0;
        let others = || self.estimates.iter().filter(|e| !is_unit(e));
        let hw: Vec<f64> = others().map(|e| e.half_width()).filter(|w| w.is_finite()).collect();
        let missing = others().count() - hw.len();
        let mean = mean_finite(hw.iter().copied());
        (mean, hw.iter().copied().fold(f64::NAN, f64::max), missing)
    }
}

/// The notes of a regression fit about its unit (kind column `offset + unit` of `r`): the
/// bootstrap refits whose unit coefficient was not positive, and a fit whose own is not.
pub(crate) fn unit_notes(kinds: &Kinds, r: &stats::RatioEstimates, offset: usize) -> Vec<String> {
    let name = kinds.unit_name();
    let mut notes = Vec::new();
    if r.bad_unit > 0 {
        notes.push(format!(
            "{} of {} bootstrap refits had a non-positive {name} coefficient (unbounded intervals)",
            r.bad_unit, r.resamples
        ));
    }
    let unit = kinds.unit.map_or(f64::NAN, |u| r.fit.beta[offset + u]);
    if !stats::positive(unit) && !r.fit.beta.iter().all(|b| b.is_nan()) {
        notes.push(format!(
            "the {name} coefficient is not positive: no value in {name} units (empty cells)"
        ));
    }
    notes
}

/// The notes of a positions fit (the constant and side-to-move columns 0 and 1, kinds from
/// column 2): `head` (what was fitted), the two coefficients and the unit's, the unit notes, and
/// the kinds never measured, `never` naming where they never differed.
pub(crate) fn positions_fit_notes(
    head: String,
    kinds: &Kinds,
    r: &stats::RatioEstimates,
    estimates: &[ValueEstimate],
    never: &str,
) -> Vec<String> {
    let unit = kinds.unit.map_or(f64::NAN, |u| r.fit.beta[2 + u]);
    let mut notes = vec![format!(
        "{head}; constant {:.3}, side to move {:.3}, {} coefficient {unit:.4} (logit)",
        r.fit.beta[0],
        r.fit.beta[1],
        kinds.unit_name(),
    )];
    notes.extend(unit_notes(kinds, r, 2));
    let missing: Vec<&str> =
        estimates.iter().filter(|e| e.value.is_nan()).map(|e| e.piece.as_str()).collect();
    if !missing.is_empty() {
        notes.push(format!("never differing{never} (not measured): {}", missing.join(", ")));
    }
    notes
}

/// Estimates from a [`stats::RatioEstimates`] over kind columns starting at `offset`.
pub(crate) fn estimates_from(
    kinds: &Kinds,
    r: &stats::RatioEstimates,
    offset: usize,
) -> Vec<ValueEstimate> {
    kinds
        .names
        .iter()
        .enumerate()
        .map(|(k, n)| ValueEstimate {
            piece: n.clone(),
            value: r.value[offset + k],
            lo: r.lo[offset + k],
            hi: r.hi[offset + k],
        })
        .collect()
}

impl MethodResult {
    /// The bootstrap draws of a regression fit (kind columns of `r` from `offset`): the values'
    /// draws, the unit-free effects with their intervals, and the effects' draws.
    pub(crate) fn with_draws(
        mut self,
        kinds: &Kinds,
        r: &stats::RatioEstimates,
        offset: usize,
    ) -> MethodResult {
        if r.fit.beta.iter().all(|b| b.is_nan()) {
            self.notes.push(
                "every result in the data is the same: they measure nothing (no estimates)".into(),
            );
        }
        let cols = offset..offset + kinds.len();
        self.draws = r.draws.iter().map(|d| d[cols.clone()].to_vec()).collect();
        self.effect_draws = r.coef_draws.iter().map(|d| d[cols.clone()].to_vec()).collect();
        self.effects = kinds
            .names
            .iter()
            .enumerate()
            .map(|(k, n)| {
                let value = r.fit.beta[offset + k];
                let (lo, hi) = if value.is_finite() {
                    column_interval(&self.effect_draws, k)
                } else {
                    (f64::NAN, f64::NAN)
                };
                ValueEstimate { piece: n.clone(), value, lo, hi }
            })
            .collect();
        self
    }
}

/// 95% percentile interval of column `j` of bootstrap draws, over its finite entries (NaN if
/// none).
fn column_interval(draws: &[Vec<f64>], j: usize) -> (f64, f64) {
    let s: Vec<f64> = draws.iter().map(|d| d[j]).filter(|x| x.is_finite()).collect();
    if s.is_empty() {
        (f64::NAN, f64::NAN)
    } else {
        stats::percentile_interval(&s)
    }
}

/// Mean of the finite numbers (NaN if none).
fn mean_finite(xs: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = xs.filter(|x| x.is_finite()).fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    if n == 0 {
        f64::NAN
    } else {
        sum / n as f64
    }
}

/// Mean finite half-width of a fit's intervals, over the kinds (NaN if none).
pub(crate) fn mean_half_width(
    r: &stats::RatioEstimates,
    unit: usize,
    offset: usize,
    kinds: usize,
) -> f64 {
    mean_finite((offset..offset + kinds).filter(|&j| j != unit).map(|j| (r.hi[j] - r.lo[j]) / 2.0))
}

/// Mean finite half-width of a fit's effect intervals (coefficients, every kind; NaN if none).
fn mean_effect_half_width(r: &stats::RatioEstimates, offset: usize, kinds: usize) -> f64 {
    mean_finite((offset..offset + kinds).map(|j| {
        let (lo, hi) = column_interval(&r.coef_draws, j);
        (hi - lo) / 2.0
    }))
}

/// Interval-width curves: refit on the first n clusters for a few n up to all of them; mean
/// half-width of the values (pawns) and of the effects (logit), against games used.
pub(crate) type Curves = (Vec<(f64, f64)>, Vec<(f64, f64)>);

/// See [`Curves`].
pub(crate) fn width_curve(
    d: &stats::Design,
    unit: usize,
    offset: usize,
    kinds: usize,
    ridge: f64,
    resamples: usize,
    seed: u64,
    games_of: &dyn Fn(&stats::Design) -> f64,
) -> Curves {
    let total = d.clusters;
    let mut out = (Vec::new(), Vec::new());
    if total < 8 {
        return out;
    }
    let steps = 8;
    for i in 1..=steps {
        let n = (total * i / steps).max(4);
        let sub = d.first_clusters(n);
        let r = stats::ratio_bootstrap(&sub, unit, ridge, resamples, seed.wrapping_add(i as u64));
        let games = games_of(&sub);
        out.0.push((games, mean_half_width(&r, unit, offset, kinds)));
        out.1.push((games, mean_effect_half_width(&r, offset, kinds)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::stats::{ratio_bootstrap, tests::synthetic};
    use super::*;

    #[test]
    fn effects_stay_bounded_when_the_unit_is_not() {
        // column 1 (the unit) has no effect on the result: values in its unit are unbounded,
        // the effects are not
        let d = synthetic(&[0.0, 0.8, -0.4], 0.0, 6000, 11);
        let r = ratio_bootstrap(&d, 1, 1e-6, 200, 3);
        assert!(r.bad_unit > 20, "{}", r.bad_unit);
        let kinds = Kinds {
            names: vec!["pawn".into(), "rook".into(), "lance".into()],
            of_type: vec![0, 1, 2],
            royal: vec![false; 3],
            pawn: Some(0),
            unit: Some(0),
        };
        let m = MethodResult::default().with_draws(&kinds, &r, 1);
        assert_eq!(m.effects.len(), 3);
        assert_eq!(m.effect_draws.len(), 200);
        assert_eq!(m.draws.len(), 200);
        // the synthetic draws (30%, whatever the odds) shrink every coefficient alike: the
        // unit's covers 0, the others keep their ratio
        let e = &m.effects;
        assert!(e[0].lo < 0.0 && 0.0 < e[0].hi && e[0].hi - e[0].lo < 0.1, "{:?}", e[0]);
        assert!((e[2].value / e[1].value + 0.5).abs() < 0.1, "{e:?}");
        assert!(e[2].lo < e[2].value && e[2].value < e[2].hi && e[2].hi < 0.0, "{:?}", e[2]);
        // the rook's effect is bounded away from zero, its value in pawns is not
        assert!(m.effects[1].lo > 0.0);
        let ratios: Vec<f64> = m.draws.iter().map(|d| d[1]).collect();
        assert!(ratios.iter().any(|x| x.is_infinite()));
    }
}
