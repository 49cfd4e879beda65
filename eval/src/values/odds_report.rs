//! The report's calibration section and `<variant>-odds.csv` (see [`super::odds`]), and the
//! value in pawns that the values table adds when the unit is another kind.

use super::odds::{calibrated_values, Calibration};
use super::report::{num, short, ReportInput};
use super::stats::{percentile_interval, ratio, WithInterval};
use super::MethodResult;

/// `kind,games,setups,decisive,score,score_low,score_high,logit,logit_low,logit_high,
/// effect,effect_low,effect_high,effect_method`: one row per kind given as odds; the effect is
/// the first regression method's coefficient of the kind (empty without one).
pub fn csv(cals: &[Calibration], methods: &[MethodResult], kinds: &super::Kinds) -> String {
    let mut s = String::from(
        "kind,games,setups,decisive,score,score_low,score_high,logit,logit_low,logit_high,effect,effect_low,effect_high,effect_method\n",
    );
    let regression = methods.iter().find(|m| !m.effects.is_empty());
    for c in cals {
        let e = regression.and_then(|m| kinds.index(&c.kind).map(|k| &m.effects[k]));
        let (ev, elo, ehi) = e.map_or((f64::NAN, f64::NAN, f64::NAN), |e| (e.value, e.lo, e.hi));
        s.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
            super::report::csv_field(&c.kind),
            c.games,
            c.setups,
            c.decisive,
            num(c.score.0),
            num(c.score.1),
            num(c.score.2),
            num(c.logit.0),
            num(c.logit.1),
            num(c.logit.2),
            num(ev),
            num(elo),
            num(ehi),
            regression.map_or("", |m| m.method.as_str())
        ));
    }
    s
}

/// The calibration section (empty without odds games).
pub fn section(input: &ReportInput, order: &[usize]) -> String {
    let cals = input.calibrations;
    if cals.is_empty() {
        return String::new();
    }
    let regression = input.methods.iter().find(|m| !m.effects.is_empty());
    let mut s = String::from("\n## Calibration: odds games\n\n");
    s.push_str(&format!(
        "Games from the start array less one piece of a kind on one side (`--odds KIND`; which piece of the kind is drawn per setup; both colours), played by the same engine and fitted apart from the imbalance games. The score of the side with the piece, as log-odds, is what one piece of the kind is worth between these engines, measured directly (H.G. Muller's calibration); the regression's coefficient of the kind measures the same from the imbalance games. Their ratio near 1 says the regression's unit means what it says: \"as much as that many pieces of the kind between these engines\". Intervals: 95%, bootstrap over setups. Also in `{}-odds.csv`.\n\n",
        input.variant
    ));
    let method = regression.map_or("regression", |m| m.method.as_str());
    s.push_str(&format!(
        "| odds | games | setups | decisive | score of the side with the piece | odds logit ×100 | {method} coefficient ×100 | coefficient / odds logit |\n|---|---:|---:|---:|---|---|---|---:|\n"
    ));
    for c in cals {
        let e = regression.and_then(|m| input.kinds.index(&c.kind).map(|k| m.effects[k].clone()));
        let (coef, ratio_text) = match &e {
            Some(e) => (
                format!(
                    "{} [{}, {}]",
                    short(100.0 * e.value),
                    short(100.0 * e.lo),
                    short(100.0 * e.hi)
                ),
                short(ratio(e.value, c.logit.0)),
            ),
            None => ("–".into(), "–".into()),
        };
        s.push_str(&format!(
            "| {} | {} | {} | {} | {:.3} [{:.3}, {:.3}] | {} [{}, {}] | {coef} | {ratio_text} |\n",
            c.kind,
            c.games,
            c.setups,
            c.decisive,
            c.score.0,
            c.score.1,
            c.score.2,
            short(100.0 * c.logit.0),
            short(100.0 * c.logit.1),
            short(100.0 * c.logit.2),
        ));
    }
    if let (Some(m), Some(c)) =
        (regression, cals.iter().find(|c| c.kind == input.kinds.unit_name()))
    {
        s.push_str(&calibrated_table(input, m, c, order));
    }
    s
}

/// The regression's effects divided by the unit's odds logit instead of its coefficient.
fn calibrated_table(
    input: &ReportInput,
    m: &MethodResult,
    c: &Calibration,
    order: &[usize],
) -> String {
    let effects: Vec<f64> = m.effects.iter().map(|e| e.value).collect();
    let values = calibrated_values(&effects, &m.effect_draws, c);
    let unit = input.kinds.unit_name();
    let mut s = format!(
        "\n**{unit} = 1 by the odds games**: the {} coefficients divided by the {unit}-odds logit (each bootstrap draw of the one paired with a draw of the other), beside the same coefficients divided by the regression's own {unit} coefficient (the values table).\n\n| piece | reference | by odds | 95% CI | by regression |\n|---|---:|---:|---|---:|\n",
        m.method
    );
    for &k in order {
        let (v, lo, hi) = values[k];
        let reference = input.reference.map_or(f64::NAN, |r| r.values[k]);
        s.push_str(&format!(
            "| {} | {} | {} | [{}, {}] | {} |\n",
            input.kinds.names[k],
            short(reference),
            short(v),
            short(lo),
            short(hi),
            short(m.estimates[k].value)
        ));
    }
    s
}

/// Per kind, a method's effects divided by the pawn's (point, and the 95% interval of the
/// paired bootstrap draws): its values in pawns when the report's unit is another kind.
pub fn in_pawns(m: &MethodResult, pawn: usize) -> Vec<WithInterval> {
    (0..m.effects.len())
        .map(|k| {
            if k == pawn {
                return (1.0, 1.0, 1.0); // the unit of this column, by definition
            }
            let draws: Vec<f64> = m.effect_draws.iter().map(|d| ratio(d[k], d[pawn])).collect();
            let (lo, hi) = percentile_interval(&draws);
            (ratio(m.effects[k].value, m.effects[pawn].value), lo, hi)
        })
        .collect()
}
