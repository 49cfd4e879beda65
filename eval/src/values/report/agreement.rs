//! The report's agreement with the reference table: the correlations of every method (with
//! the bootstrap interval of the Spearman correlation), and one line per kind whose reference
//! value lies outside the primary interval, with its explanation and the games that decide it.

use super::{short, Reference, ReportInput};
use crate::values::evidence::games_words;
use crate::values::explain;
use crate::values::stats::{pearson, percentile_interval, spearman};
use crate::values::{MethodResult, ValueEstimate};

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

/// Correlations with the reference, and the kinds whose reference value lies outside the
/// primary interval.
pub(super) fn agreement_section(
    s: &mut String,
    input: &ReportInput,
    r: &Reference,
    order: &[usize],
) {
    s.push_str(&format!(
        "\n## Agreement with the reference\n\nReference: {} (`{}`).\n\n",
        r.source, r.path
    ));
    correlations_table(s, input, r);
    s.push_str(
        "\n### Where the primary estimate and the reference disagree beyond the interval\n\n",
    );
    if input.gap_games.iter().any(Option::is_some) {
        let v = input.variant;
        s.push_str(&format!("Where the GCSA value, brought to this table's scale, still lies outside the interval, the line adds the imbalance games whose predicted winner (the material balance at this table's values) changes when that kind alone takes the scaled GCSA value: the score of the side that this table's value favours, with its 95% interval, and such games won by the side the majority of results favours (fewest pieces in the difference first, then fewest plies), as lines of `{v}-gap-games.txt` (`shogilab replay -v {v} --file {v}-gap-games.txt` plays them).\n\n"));
    }
    let lines = gap_lines(input, r, order);
    if lines.is_empty() {
        s.push_str("None: every reference value lies inside its interval.\n");
    }
    lines.iter().for_each(|l| s.push_str(l));
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

/// The primary estimate's and every method's correlations with the reference, as a table.
fn correlations_table(s: &mut String, input: &ReportInput, r: &Reference) {
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
}

/// One list item per kind, in `order`, whose reference value lies outside its primary
/// interval: both values, the explanation, and the games that decide the gap where there are
/// any (numbered through the list as in the gap-games file).
fn gap_lines(input: &ReportInput, r: &Reference, order: &[usize]) -> Vec<String> {
    let mut line_no = 0;
    let mut lines = Vec::new();
    for &k in order {
        let e = &input.primary[k].estimate;
        let g = r.values[k];
        let outside = g < e.lo || g > e.hi; // false where the interval is NaN
        if !(g.is_finite() && e.value.is_finite() && outside) {
            continue;
        }
        let games = match input.gap_games.get(k) {
            Some(Some(d)) => format!(
                "; the GCSA value at this table's scale is {}{}",
                short(d.other),
                games_words(d, &mut line_no)
            ),
            _ => String::new(),
        };
        lines.push(format!(
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
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

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
