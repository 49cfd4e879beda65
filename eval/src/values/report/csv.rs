//! The CSV files of a report: `<variant>.csv` (the primary estimate per kind),
//! `<variant>-all.csv` (every method's values) and `<variant>-effects.csv` (every regression
//! method's unit-free effects), each row beside the reference value.

use super::{num, reference_at, PrimaryRow, Reference};
use crate::values::{MethodResult, ValueEstimate};

pub(crate) fn csv_field(s: &str) -> String {
    if s.contains(',') || s.contains('"') {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_fields() {
        assert_eq!(num(f64::NAN), "");
        assert_eq!(num(f64::INFINITY), "inf");
        assert_eq!(num(-f64::INFINITY), "-inf");
        assert_eq!(num(0.12345), "0.123");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"x\""), "\"say \"\"x\"\"\"");
        assert_eq!(csv_field("rook"), "rook");
    }
}
