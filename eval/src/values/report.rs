//! Report text: the CSV files (`<variant>.csv` with the primary estimate per kind,
//! `<variant>-all.csv` with every method) and the Markdown report beside a reference table.

use super::evidence::{games_words, replay_file, Deciding};
use super::explain;
use super::stats::{pearson, percentile_interval, quantile_sorted, spearman, WithInterval};
use super::usage::Usage;
use super::{Kinds, MethodResult, ValueEstimate};

/// A reference table per kind (NaN where it has no value).
#[derive(Debug, Clone, Default)]
pub struct Reference {
    pub source: String,
    pub path: String,
    pub values: Vec<f64>,
}

impl Reference {
    /// Express the table in units of kind `unit` (its value becomes 1); false, and nothing
    /// changed, when the table gives that kind no positive value.
    pub fn rescale(&mut self, unit: usize) -> bool {
        let u = self.values.get(unit).copied().unwrap_or(f64::NAN);
        if !(u.is_finite() && u > 0.0) {
            return false;
        }
        self.values.iter_mut().for_each(|x| *x /= u);
        true
    }
}

/// The primary row of a kind: the first method in the given order with a finite estimate.
#[derive(Debug, Clone)]
pub struct PrimaryRow {
    pub estimate: ValueEstimate,
    pub method: String,
}

pub fn primary_rows(kinds: &Kinds, methods: &[MethodResult]) -> Vec<PrimaryRow> {
    (0..kinds.len())
        .map(|k| {
            for m in methods {
                let e = &m.estimates[k];
                if e.value.is_finite() {
                    return PrimaryRow { estimate: e.clone(), method: m.method.clone() };
                }
            }
            PrimaryRow {
                estimate: ValueEstimate {
                    piece: kinds.names[k].clone(),
                    value: f64::NAN,
                    lo: f64::NAN,
                    hi: f64::NAN,
                },
                method: "none".into(),
            }
        })
        .collect()
}

/// `x` with `decimals` decimals, or the word for NaN, +inf and -inf.
fn real(x: f64, [nan, inf, neg_inf]: [&str; 3], decimals: usize) -> String {
    if x.is_nan() {
        nan.into()
    } else if x.is_infinite() {
        (if x > 0.0 { inf } else { neg_inf }).into()
    } else {
        format!("{x:.decimals$}")
    }
}

/// A number for the CSV files: three decimals, empty for NaN, `inf`/`-inf`.
pub(crate) fn num(x: f64) -> String {
    real(x, ["", "inf", "-inf"], 3)
}

/// A number for the Markdown tables: two decimals, `–` for NaN, `∞`/`−∞`.
pub(crate) fn short(x: f64) -> String {
    real(x, ["–", "∞", "−∞"], 2)
}

pub(crate) fn csv_field(s: &str) -> String {
    if s.contains(',') || s.contains('"') {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

pub(crate) fn reference_at(r: Option<&Reference>, k: usize) -> f64 {
    r.map_or(f64::NAN, |r| r.values[k])
}

/// `piece,value,ci_low,ci_high,method,gcsa`, one row per kind.
pub fn csv_primary(rows: &[PrimaryRow], reference: Option<&Reference>) -> String {
    let mut s = String::from("piece,value,ci_low,ci_high,method,gcsa\n");
    for (k, r) in rows.iter().enumerate() {
        s.push_str(&csv_row(&r.estimate, &r.method, reference_at(reference, k)));
    }
    s
}

/// One row of the value CSVs: `piece,value,ci_low,ci_high,method,reference`.
fn csv_row(e: &ValueEstimate, method: &str, reference: f64) -> String {
    let piece = csv_field(&e.piece);
    let (value, lo, hi, r) = (num(e.value), num(e.lo), num(e.hi), num(reference));
    format!("{piece},{value},{lo},{hi},{method},{r}\n")
}

/// Every method's estimate: same columns, one row per kind and method.
pub fn csv_all(methods: &[MethodResult], reference: Option<&Reference>) -> String {
    csv_rows(methods, reference, "value", |m| &m.estimates)
}

/// Every regression method's unit-free effects (logit of the expected score per piece):
/// `piece,effect,ci_low,ci_high,method,gcsa`, one row per kind and method.
pub fn csv_effects(methods: &[MethodResult], reference: Option<&Reference>) -> String {
    csv_rows(methods, reference, "effect", |m| &m.effects)
}

fn csv_rows(
    methods: &[MethodResult],
    reference: Option<&Reference>,
    column: &str,
    pick: fn(&MethodResult) -> &[ValueEstimate],
) -> String {
    let mut s = format!("piece,{column},ci_low,ci_high,method,gcsa\n");
    for m in methods {
        for (k, e) in pick(m).iter().enumerate() {
            s.push_str(&csv_row(e, &m.method, reference_at(reference, k)));
        }
    }
    s
}

/// A method's estimates for correlations: its unit-free effects when it has them (their ranks,
/// and their correlations with a reference, are those of the values whenever the pawn
/// coefficient is positive, and they stay defined when it is not), else its values.
pub fn ranked(m: &MethodResult) -> (&[ValueEstimate], &[Vec<f64>]) {
    if m.effects.is_empty() {
        (&m.estimates, &m.draws)
    } else {
        (&m.effects, &m.effect_draws)
    }
}

/// Spearman and Pearson correlation of estimates with the reference, and how many kinds.
pub fn correlation(est: &[ValueEstimate], reference: &Reference) -> (f64, f64, usize) {
    let ours: Vec<f64> = est.iter().map(|e| e.value).collect();
    let n =
        ours.iter().zip(&reference.values).filter(|(a, b)| a.is_finite() && b.is_finite()).count();
    (spearman(&ours, &reference.values), pearson(&ours, &reference.values), n)
}

/// 95% bootstrap interval of the Spearman correlation with the reference: the correlation of
/// every bootstrap draw of the method's effects (else values; see [`ranked`]), `None` when
/// the method keeps no draws.
pub fn spearman_interval(m: &MethodResult, reference: &Reference) -> Option<(f64, f64)> {
    let rs: Vec<f64> = ranked(m)
        .1
        .iter()
        .map(|d| spearman(d, &reference.values))
        .filter(|x| x.is_finite())
        .collect();
    if rs.len() < 20 {
        return None;
    }
    Some(percentile_interval(&rs))
}

/// Games needed for a 95% half-width of `target` pawns, from a width `hw` at `games`
/// (intervals shrink as 1/sqrt(games)).
pub fn games_for_width(games: f64, hw: f64, target: f64) -> f64 {
    if !(hw.is_finite() && games > 0.0) {
        return f64::NAN;
    }
    games * (hw / target).powi(2)
}

fn round_games(x: f64) -> String {
    if !x.is_finite() {
        return "–".into();
    }
    let step = if x >= 10_000.0 {
        1000.0
    } else if x >= 1000.0 {
        100.0
    } else {
        10.0
    };
    format!("{:.0}", (x / step).round() * step)
}

/// Log-log slope of a width curve (half-width against games); -0.5 is the 1/sqrt(n) rule.
pub fn curve_slope(curve: &[(f64, f64)]) -> f64 {
    let pts: Vec<(f64, f64)> = curve
        .iter()
        .filter(|(x, y)| *x > 0.0 && *y > 0.0 && y.is_finite())
        .map(|(x, y)| (x.ln(), y.ln()))
        .collect();
    if pts.len() < 3 {
        return f64::NAN;
    }
    let n = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    if sxx > 0.0 {
        sxy / sxx
    } else {
        f64::NAN
    }
}

/// Everything the Markdown report says.
pub struct ReportInput<'a> {
    pub variant: &'a str,
    pub command: &'a str,
    pub kinds: &'a Kinds,
    pub methods: &'a [MethodResult],
    pub primary: &'a [PrimaryRow],
    pub reference: Option<&'a Reference>,
    /// Free text about speed (games per hour, sessions) per method.
    pub speed: Vec<String>,
    /// Promoted value in the reference, per kind, for kinds that promote (to explain gaps).
    pub promotes_to: Vec<Option<usize>>,
    /// Kinds with no unpromoted type (they exist only by promotion).
    pub promoted_only: Vec<bool>,
    pub files: Vec<String>,
    /// The engine that played the games (for the explanations of disagreements).
    pub engine: super::explain::Engine<'a>,
    /// The odds games, per kind given as odds.
    pub calibrations: &'a [super::odds::Calibration],
    /// How the engine used each kind in its games (None: no game records its moves).
    pub usage: Option<&'a Usage>,
    /// Per kind whose gap the table's scale does not close, the imbalance games that decide
    /// between its value and the scaled reference ([`super::explain::gap_games`]); empty or
    /// None elsewhere. Their examples are the lines of [`gap_games_file`].
    pub gap_games: &'a [Option<Deciding>],
}

/// Games needed, by the 1/√n rule, before the 95% interval of an effect of true size `size`
/// (logit) stops reaching zero: the games for a half-width of `size`. NaN when the size is not
/// positive.
pub fn games_to_exclude_zero(games: usize, e: &ValueEstimate, size: f64) -> f64 {
    if size > 0.0 {
        games_for_width(games as f64, e.half_width(), size)
    } else {
        f64::NAN
    }
}

/// The unit kind's effect that the reference table's ratios imply, given this method's effects:
/// the median over the non-royal kinds with a positive reference value of effect × unit's
/// reference / kind's reference (logit). NaN without a reference or such kinds.
pub fn reference_unit_effect(m: &MethodResult, unit: usize, input: &ReportInput) -> f64 {
    let rp = reference_at(input.reference, unit);
    if rp.is_nan() || rp <= 0.0 {
        return f64::NAN;
    }
    let mut implied: Vec<f64> = (0..m.effects.len())
        .filter(|&k| k != unit && !input.kinds.royal[k])
        .filter_map(|k| {
            let r = reference_at(input.reference, k);
            let x = m.effects[k].value * rp / r;
            (r > 0.0 && x.is_finite()).then_some(x)
        })
        .collect();
    implied.sort_by(f64::total_cmp);
    quantile_sorted(&implied, 0.5)
}

/// What it would take to bound the unit, for the sentence on a method whose unit's effect
/// reaches zero: games at the measured size, and at the size the reference's ratios imply.
fn unit_projection(m: &MethodResult, kind: usize, input: &ReportInput) -> String {
    let e = &m.effects[kind];
    let unit = if m.method == "probe" { "positions" } else { "games" };
    let mut parts = Vec::new();
    let n = games_to_exclude_zero(m.games, e, e.value);
    if n.is_finite() {
        parts.push(format!(
            "If the effect is what it measures now, its interval would exclude zero after about {} {unit} of this design (1/√n from {} {unit})",
            round_games(n),
            m.games
        ));
    }
    let implied = reference_unit_effect(m, kind, input);
    let n = games_to_exclude_zero(m.games, e, implied);
    if n.is_finite() {
        parts.push(format!(
            "the reference's ratios put it at {} centi-logits (median over the non-royal kinds of effect × reference {} / reference value), which would take about {} {unit}",
            short(100.0 * implied),
            input.kinds.unit_name(),
            round_games(n)
        ));
    }
    if parts.is_empty() {
        String::new()
    } else {
        let mut t = format!(" {}", parts.join("; "));
        t.push_str(". Values to ±20% would need the half-width at a fifth of the effect, 25 times as many again.");
        t
    }
}

/// The unit-free effects of the regression methods, in centi-logits, rows in `order`.
fn effects_table(s: &mut String, input: &ReportInput, order: &[usize]) {
    let with: Vec<&MethodResult> = input.methods.iter().filter(|m| !m.effects.is_empty()).collect();
    if with.is_empty() {
        return;
    }
    s.push_str("\n## Effects on the win odds (unit-free, 95% bootstrap intervals)\n\n");
    s.push_str(&format!(
        "Each kind's regression coefficient: the change in the log-odds of the expected score per extra piece of the kind, ×100 (centi-logits), in `{}-effects.csv` too. The values above are these divided by the {unit}'s, so where the {unit}'s effect is not bounded away from zero the values have no finite interval while the effects still do; their ranks and correlations with the reference are the values' whenever the {unit}'s effect is positive.\n\n",
        input.variant,
        unit = input.kinds.unit_name()
    ));
    if let Some(kind) = input.kinds.unit {
        let unit = input.kinds.unit_name();
        for m in &with {
            let e = &m.effects[kind];
            if e.lo <= 0.0 {
                s.push_str(&format!(
                    "**{}**: the {unit}'s effect is {} [{}, {}] centi-logits, an interval that reaches zero, so this method's values in {unit} units are bounded on one side at most; its effects are the measurement.{}\n\n",
                    m.method,
                    short(100.0 * e.value),
                    short(100.0 * e.lo),
                    short(100.0 * e.hi),
                    unit_projection(m, kind, input)
                ));
            }
        }
    }
    let mut header = String::from("| piece | reference |");
    let mut rule = String::from("|---|---:|");
    for m in &with {
        header.push_str(&format!(" {} | CI |", m.method));
        rule.push_str("---:|---|");
    }
    s.push_str(&format!("{header}\n{rule}\n"));
    let c = |x: f64| short(100.0 * x);
    for &k in order {
        let mut row =
            format!("| {} | {} |", input.kinds.names[k], short(reference_at(input.reference, k)));
        for m in &with {
            let e = &m.effects[k];
            row.push_str(&format!(" {} | [{}, {}] |", c(e.value), c(e.lo), c(e.hi)));
        }
        s.push_str(&row);
        s.push('\n');
    }
}

/// The Markdown report.
pub fn markdown(input: &ReportInput) -> String {
    let mut s = String::new();
    let v = input.variant;
    s.push_str(&format!("# Piece values: {v}\n\n"));
    s.push_str("Generated by\n\n```sh\n");
    s.push_str(input.command);
    s.push_str("\n```\n\n");
    s.push_str(&format!("Files: {}.\n\n", input.files.join(", ")));
    methods_section(&mut s, input);
    if !input.speed.is_empty() {
        s.push_str("\n## Speed\n\n");
        for l in &input.speed {
            s.push_str(&format!("* {l}\n"));
        }
    }
    let order = values_table(&mut s, input);
    effects_table(&mut s, input, &order);
    s.push_str(&super::odds_report::section(input, &order));
    if let Some(u) = input.usage {
        usage_section(&mut s, input.kinds, u, &order);
    }
    if let Some(r) = input.reference {
        agreement_section(&mut s, input, r, &order);
    }
    widths_section(&mut s, input);
    s
}

/// The methods with their descriptions and notes.
fn methods_section(s: &mut String, input: &ReportInput) {
    s.push_str("## Methods\n\n");
    for m in input.methods {
        let (mean, max, missing) = m.widths();
        s.push_str(&format!(
            "* **{}**: {}. Behind it: {} {}. Mean 95% half-width {} ({} = 1), widest {}{}.\n",
            m.method,
            m.description,
            m.games,
            if m.method == "probe" { "positions" } else { "games" },
            short(mean),
            input.kinds.unit_name(),
            short(max),
            if missing > 0 {
                format!(", {missing} kinds without a finite interval")
            } else {
                String::new()
            }
        ));
        for n in &m.notes {
            s.push_str(&format!("  * {n}\n"));
        }
    }
}

/// With a unit other than the pawn: per kind, the primary method's value in pawns (NaN where
/// that method has no effects).
fn pawn_column<'a>(input: &'a ReportInput) -> Option<impl Fn(usize) -> WithInterval + 'a> {
    let pawn = input.kinds.pawn.filter(|&p| Some(p) != input.kinds.unit)?;
    let per_method: Vec<(&str, Vec<WithInterval>)> = input
        .methods
        .iter()
        .filter(|m| !m.effects.is_empty())
        .map(|m| (m.method.as_str(), super::odds_report::in_pawns(m, pawn)))
        .collect();
    Some(move |k: usize| {
        let method = input.primary[k].method.as_str();
        let nan = (f64::NAN, f64::NAN, f64::NAN);
        per_method.iter().find(|(m, _)| *m == method).map_or(nan, |(_, v)| v[k])
    })
}

/// Indices of `keys` from the largest down, NaN (a kind nothing measured) last: a total order,
/// which a sort needs (a comparison that calls NaN equal to everything is not one, and the
/// standard sort may panic on it).
fn descending_unmeasured_last(keys: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (keys[a], keys[b]);
        x.is_nan().cmp(&y.is_nan()).then(y.total_cmp(&x))
    });
    order
}

/// The kinds in the order of the report's tables: by reference value (else the primary
/// estimate), largest first, unmeasured last.
fn table_order(input: &ReportInput) -> Vec<usize> {
    let keys: Vec<f64> = (0..input.kinds.len())
        .map(|k| {
            let r = reference_at(input.reference, k);
            if r.is_finite() {
                r
            } else {
                input.primary[k].estimate.value
            }
        })
        .collect();
    descending_unmeasured_last(&keys)
}

/// The games that the agreement section cites, one `shogilab replay` line each, in the order
/// it numbers them (empty when it cites none).
pub fn gap_games_file(input: &ReportInput) -> String {
    replay_file(table_order(input).into_iter().filter_map(|k| input.gap_games.get(k)?.as_ref()))
}

/// The values table, kinds by reference value (else the primary estimate), largest first; returns that order of the kinds.
fn values_table(s: &mut String, input: &ReportInput) -> Vec<usize> {
    s.push_str(&format!(
        "\n## Values ({} = 1, 95% bootstrap intervals)\n\n",
        input.kinds.unit_name()
    ));
    s.push_str(
        "Primary column: the first method, in the order listed above, that measured the kind. Default order: `imbalance` first, the only randomised experiment (material differences are assigned at random before the game, so they are not confounded with who is winning); then the observational regressions (`imbalance-positions`, `texel`), whose material differences arise during the games and partly reflect who is already winning; probing last (its intervals cover only the sampling of positions, not the evaluator's own error). `--primary auto` orders the game-based methods by interval width instead. Neither choice looks at the reference.\n\n",
    );
    let mut header = String::from("| piece | GCSA | primary | 95% CI | method |");
    let mut rule = String::from("|---|---:|---:|---|---|");
    let pawns = pawn_column(input);
    if pawns.is_some() {
        s.push_str("With a unit other than the pawn, `in pawns` is the primary method's value divided by the pawn's (each bootstrap draw by its own pawn), where that method regresses game results: bounded only where the pawn's effect is.\n\n");
        header.push_str(" in pawns | CI |");
        rule.push_str("---:|---|");
    }
    for m in input.methods {
        header.push_str(&format!(" {} | CI |", m.method));
        rule.push_str("---:|---|");
    }
    s.push_str(&header);
    s.push('\n');
    s.push_str(&rule);
    s.push('\n');
    let order = table_order(input);
    for &k in &order {
        let p = &input.primary[k];
        let e = &p.estimate;
        let mut row = format!(
            "| {} | {} | {} | [{}, {}] | {} |",
            e.piece,
            short(reference_at(input.reference, k)),
            short(e.value),
            short(e.lo),
            short(e.hi),
            p.method
        );
        if let Some(pawns) = &pawns {
            let (v, lo, hi) = pawns(k);
            row.push_str(&format!(" {} | [{}, {}] |", short(v), short(lo), short(hi)));
        }
        for m in input.methods {
            let x = &m.estimates[k];
            row.push_str(&format!(" {} | [{}, {}] |", short(x.value), short(x.lo), short(x.hi)));
        }
        s.push_str(&row);
        s.push('\n');
    }
    order
}

/// Correlations with the reference, and the kinds whose reference value lies outside the primary interval.
fn agreement_section(s: &mut String, input: &ReportInput, r: &Reference, order: &[usize]) {
    s.push_str(&format!(
        "\n## Agreement with the reference\n\nReference: {} (`{}`).\n\n",
        r.source, r.path
    ));
    s.push_str(
        "| estimate | kinds | Spearman | Spearman 95% CI | Pearson |\n|---|---:|---:|---|---:|\n",
    );
    let prim: Vec<ValueEstimate> = input.primary.iter().map(|p| p.estimate.clone()).collect();
    let (sp, pe, n) = correlation(&prim, r);
    s.push_str(&format!("| primary | {n} | {} | – | {} |\n", short(sp), short(pe)));
    for m in input.methods {
        let (sp, pe, n) = correlation(ranked(m).0, r);
        let ci = spearman_interval(m, r)
            .map_or("–".to_string(), |(a, b)| format!("[{:.2}, {:.2}]", a, b));
        s.push_str(&format!("| {} | {n} | {} | {ci} | {} |\n", m.method, short(sp), short(pe)));
    }
    s.push_str("\nA method's correlations are those of its unit-free effects (the table above) where it has them: the same as its values' whenever the unit's coefficient is positive, as a positive unit changes neither ranks nor Pearson correlation, and defined where the unit is not. The Spearman interval: the rank correlation of every bootstrap refit's effects with the reference, 2.5% and 97.5% quantiles (it covers the sampling of games, not the reference's own uncertainty).\n");
    s.push_str(
        "\n### Where the primary estimate and the reference disagree beyond the interval\n\n",
    );
    if input.gap_games.iter().any(Option::is_some) {
        let v = input.variant;
        s.push_str(&format!("Where the GCSA value, brought to this table's scale, still lies outside the interval, the line adds the imbalance games whose predicted winner (the material balance at this table's values) changes when that kind alone takes the scaled GCSA value: the score of the side that this table's value favours, with its 95% interval, and such games won by the side the majority of results favours (fewest pieces in the difference first, then fewest plies), as lines of `{v}-gap-games.txt` (`shogilab replay -v {v} --file {v}-gap-games.txt` plays them).\n\n"));
    }
    let mut any = false;
    let mut line_no = 0;
    for &k in order {
        let e = &input.primary[k].estimate;
        let g = r.values[k];
        if !(g.is_finite() && e.value.is_finite()) {
            continue;
        }
        if g < e.lo || g > e.hi {
            any = true;
            let games = match input.gap_games.get(k) {
                Some(Some(d)) => format!(
                    "; the GCSA value at this table's scale is {}{}",
                    short(d.other),
                    games_words(d, &mut line_no)
                ),
                _ => String::new(),
            };
            s.push_str(&format!(
                "* **{}**: GCSA {} vs {} [{}, {}] ({}): {}{games}.\n",
                e.piece,
                short(g),
                short(e.value),
                short(e.lo),
                short(e.hi),
                input.primary[k].method,
                explain::why(k, e, input, g)
            ));
        }
    }
    if !any {
        s.push_str("None: every reference value lies inside its interval.\n");
    }
    let unmeasured: Vec<&str> = input
        .primary
        .iter()
        .filter(|p| p.estimate.value.is_nan())
        .map(|p| p.estimate.piece.as_str())
        .collect();
    if !unmeasured.is_empty() {
        s.push_str(&format!("\nNot measured by any method: {}.\n", unmeasured.join(", ")));
    }
}

/// How the engine used each kind ([`Usage`]), in the values table's order.
fn usage_section(s: &mut String, kinds: &Kinds, u: &Usage, order: &[usize]) {
    s.push_str(&format!("\n## How the engine used each kind\n\nEvery ply of {} of the games (evenly spaced through the log; {} plies) replayed: *activity* is a kind's moves per piece on the board and turn, relative to the average piece (1 = as often); *multi-step* the share of its played moves with intermediate stops (lion double moves, igui, area moves) beside that share among its legal moves; *promoted* and *lost* count per piece at the games' starts; *captures* are enemy pieces removed (burns included) per 100 of its moves. These are the facts the explanations below cite.\n\n", u.games, u.plies));
    s.push_str("| piece | at start | activity | multi-step: played | of legal | promoted | lost | captures /100 moves |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
    let pct = |x: Option<f64>| x.map_or("–".to_string(), |x| format!("{:.1}%", 100.0 * x));
    for &k in order {
        let c = &u.kinds[k];
        let (played, legal) = u.multi_step(k).map_or((None, None), |(p, l)| (Some(p), Some(l)));
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |\n",
            kinds.names[k],
            c.at_start,
            u.activity(k).map_or("–".to_string(), |a| format!("{a:.2}")),
            pct(played),
            pct(legal),
            pct(u.promotion_rate(k)),
            pct((c.at_start > 0).then(|| c.lost as f64 / c.at_start as f64)),
            u.captures_per_100(k).map_or("–".to_string(), |(x, _)| format!("{x:.1}")),
        ));
    }
}

/// Interval widths against games used, with the games a ±1 unit width would take.
fn widths_section(s: &mut String, input: &ReportInput) {
    s.push_str("\n## Interval width against games\n\n");
    if input.methods.iter().all(|m| m.curve.iter().all(|p| !p.1.is_finite())) {
        s.push_str(&format!("No finite intervals in {unit} units yet: the {unit} coefficient is not yet distinguishable from zero in enough bootstrap resamples, so every ratio to it is unbounded; the intervals chart shows the effects' widths instead.\n\n", unit = input.kinds.unit_name()));
    }
    for m in input.methods {
        if m.curve.is_empty() {
            continue;
        }
        let last = m.curve[m.curve.len() - 1];
        let widest = m
            .estimates
            .iter()
            .filter(|e| e.piece != input.kinds.unit_name())
            .map(|e| e.half_width())
            .filter(|w| w.is_finite())
            .fold(f64::NAN, f64::max);
        s.push_str(&format!(
            "* {}: mean half-width {} at {} {}; log-log slope {} (−0.5 = 1/√n; steeper while the unit's coefficient is still unstable). For ±1 {}, by the 1/√n rule from the last point: about {} {} for the mean width, {} for the widest kind (±{}).\n",
            m.method,
            short(last.1),
            last.0,
            if m.method == "probe" { "positions" } else { "games" },
            short(curve_slope(&m.curve)),
            input.kinds.unit_name(),
            round_games(games_for_width(last.0, last.1, 1.0)),
            if m.method == "probe" { "positions" } else { "games" },
            round_games(games_for_width(last.0, widest, 1.0)),
            short(widest)
        ));
        let pts: Vec<String> =
            m.curve.iter().map(|(x, y)| format!("{x:.0}: ±{}", short(*y))).collect();
        s.push_str(&format!("  * refits on the first n: {}\n", pts.join(", ")));
        if !m.effect_curve.is_empty() {
            let pts: Vec<String> = m
                .effect_curve
                .iter()
                .map(|(x, y)| format!("{x:.0}: ±{}", short(100.0 * y)))
                .collect();
            s.push_str(&format!(
                "  * effects (centi-logits, every kind; unit-free, so finite from the start): log-log slope {}; refits on the first n: {}\n",
                short(curve_slope(&m.effect_curve)),
                pts.join(", ")
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extrapolation_and_slope() {
        assert!((games_for_width(1000.0, 2.0, 1.0) - 4000.0).abs() < 1e-9);
        let curve: Vec<(f64, f64)> =
            [100.0, 400.0, 1600.0].iter().map(|&n: &f64| (n, 10.0 / n.sqrt())).collect();
        assert!((curve_slope(&curve) + 0.5).abs() < 1e-9);
        assert_eq!(num(f64::NAN), "");
        assert_eq!(num(f64::INFINITY), "inf");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
    }

    #[test]
    fn table_order_puts_unmeasured_kinds_last() {
        // a tai report: many kinds, several without a value (NaN) among them
        let keys: Vec<f64> =
            (0..60).map(|i| if i % 3 == 0 { f64::NAN } else { (i * 7 % 11) as f64 }).collect();
        let order = descending_unmeasured_last(&keys);
        let measured = keys.iter().filter(|k| !k.is_nan()).count();
        assert_eq!(order.len(), keys.len());
        assert!(order[..measured].windows(2).all(|w| keys[w[0]] >= keys[w[1]]));
        assert!(order[measured..].iter().all(|&k| keys[k].is_nan()));
    }

    #[test]
    fn pawn_unit_projection_from_the_reference_ratios() {
        let kinds = Kinds {
            names: ["pawn", "gold", "rook", "king"].map(String::from).to_vec(),
            of_type: vec![0, 1, 2, 3],
            royal: vec![false, false, false, true],
            pawn: Some(0),
            unit: Some(0),
        };
        let reference = Reference {
            source: "test".into(),
            path: "test.toml".into(),
            values: vec![1.0, 4.0, 10.0, 50.0],
        };
        let est = |v: f64, hw: f64| ValueEstimate {
            piece: String::new(),
            value: v,
            lo: v - hw,
            hi: v + hw,
        };
        // pawn 0.001 ± 0.01; gold and rook imply a pawn of 0.02 and 0.03; the royal king
        // (which would imply 0.2) is left out
        let m = MethodResult {
            method: "imbalance".into(),
            games: 1000,
            effects: vec![est(0.001, 0.01), est(0.08, 0.01), est(0.3, 0.01), est(10.0, 0.01)],
            ..Default::default()
        };
        let input = ReportInput {
            variant: "test",
            command: "",
            kinds: &kinds,
            methods: std::slice::from_ref(&m),
            primary: &[],
            reference: Some(&reference),
            speed: Vec::new(),
            promotes_to: vec![None; 4],
            promoted_only: vec![false; 4],
            files: Vec::new(),
            engine: super::explain::Engine::Search { depth: 1 },
            calibrations: &[],
            usage: None,
            gap_games: &[],
        };
        assert!((reference_unit_effect(&m, 0, &input) - 0.025).abs() < 1e-12);
        // a half-width of 0.01 shrinks to 0.025 after 1000 × (0.01 / 0.025)² = 160 games, to
        // the measured 0.001 after 100,000
        assert!((games_to_exclude_zero(1000, &m.effects[0], 0.025) - 160.0).abs() < 1e-9);
        assert!((games_to_exclude_zero(1000, &m.effects[0], 0.001) - 100_000.0).abs() < 1e-6);
        assert!(games_to_exclude_zero(1000, &m.effects[0], -0.01).is_nan());
        let text = unit_projection(&m, 0, &input);
        assert!(text.contains("100000 games"), "{text}");
        assert!(text.contains("2.50 centi-logits"), "{text}");
        // no reference: only the projection at the measured size
        let input = ReportInput { reference: None, ..input };
        assert!(reference_unit_effect(&m, 0, &input).is_nan());
        assert!(!unit_projection(&m, 0, &input).contains("reference"));
    }

    #[test]
    fn spearman_interval_spans_the_draws() {
        let reference = Reference {
            source: "test".into(),
            path: "test.toml".into(),
            values: vec![1.0, 2.0, 3.0, 4.0, 5.0],
        };
        let mut m = MethodResult {
            method: "imbalance".into(),
            description: String::new(),
            estimates: Vec::new(),
            games: 0,
            samples: 0,
            curve: Vec::new(),
            notes: Vec::new(),
            ..Default::default()
        };
        assert_eq!(spearman_interval(&m, &reference), None);
        // half the draws rank like the reference, half swap the top two
        for i in 0..100 {
            m.draws.push(if i % 2 == 0 {
                vec![1.0, 2.0, 3.0, 4.0, 5.0]
            } else {
                vec![1.0, 2.0, 3.0, 5.0, 4.0]
            });
        }
        let (lo, hi) = spearman_interval(&m, &reference).unwrap();
        assert!((hi - 1.0).abs() < 1e-12, "{hi}");
        assert!((lo - 0.9).abs() < 1e-12, "{lo}");
        // with effects, their draws decide: a negative unit flips every value, not the effects
        m.effects = vec![ValueEstimate::default(); 5];
        m.effect_draws = vec![vec![0.1, 0.2, 0.3, 0.4, 0.5]; 40];
        m.draws = vec![vec![-1.0, -2.0, -3.0, -4.0, -5.0]; 40];
        assert_eq!(spearman_interval(&m, &reference), Some((1.0, 1.0)));
    }
}
