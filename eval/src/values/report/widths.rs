//! How the intervals shrink with games: the width curve's log-log slope, and the games a
//! target width would take by the 1/√n rule, as the report's last section.

use super::{short, ReportInput};

/// Games needed for a 95% half-width of `target` pawns, from a width `hw` at `games`
/// (intervals shrink as 1/sqrt(games)).
pub fn games_for_width(games: f64, hw: f64, target: f64) -> f64 {
    if !(hw.is_finite() && games > 0.0) {
        return f64::NAN;
    }
    games * (hw / target).powi(2)
}

pub(super) fn round_games(x: f64) -> String {
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

/// Interval widths against games used, with the games a ±1 unit width would take.
pub(super) fn widths_section(s: &mut String, input: &ReportInput) {
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
    }
}
