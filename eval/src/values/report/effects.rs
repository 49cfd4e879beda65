//! The unit-free effects of the regression methods (centi-logits per piece) as a report
//! table, and, where the unit's own effect still reaches zero, what it would take to bound it.

use super::widths::{games_for_width, round_games};
use super::{reference_at, short, ReportInput};
use crate::values::stats::quantile_sorted;
use crate::values::{MethodResult, ValueEstimate};

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
pub(super) fn effects_table(s: &mut String, input: &ReportInput, order: &[usize]) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::report::Reference;
    use crate::values::Kinds;

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
            engine: crate::values::explain::Engine::Search { depth: 1 },
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
}
