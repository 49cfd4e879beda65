//! The reference table's scale in an engine's table: how many of the engine's units one
//! reference unit is worth, read from the kinds the engine measures clearly. Two engines (or an
//! engine and the GCSA table) can rank the pieces alike and still differ by a common factor,
//! because the unit (the pawn) is worth a different share of a game to each; a reference value
//! outside a kind's interval says little until the reference is brought to the engine's scale.
//! The trend report ([`super::trend_gaps`]) and the explanations of a values report
//! (`values/explain.rs`) both read the scale from here.

/// One kind's value in a table, with its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub value: f64,
    pub lo: f64,
    pub hi: f64,
}

/// The median, over the kinds with a positive reference (`unit` left out: its value is 1 by
/// definition) that the table measures clearly above zero (the low end of the interval; all of
/// them where none is), of the measured value over the reference. Kinds whose interval reaches
/// zero would pull a noisy table's scale towards zero. NaN without any such kind.
pub fn reference_scale(measured: &[Point], reference: &[f64], unit: Option<usize>) -> f64 {
    let kinds: Vec<usize> = (0..measured.len().min(reference.len()))
        .filter(|&k| Some(k) != unit && reference[k] > 0.0)
        .collect();
    let clear: Vec<usize> = kinds.iter().copied().filter(|&k| measured[k].lo > 0.0).collect();
    let used = if clear.is_empty() { &kinds } else { &clear };
    upper_median(used.iter().map(|&k| measured[k].value / reference[k]))
}

/// The median of the finite ratios (of an even count, the larger middle one); NaN without any.
pub fn upper_median(ratios: impl Iterator<Item = f64>) -> f64 {
    let mut kept: Vec<f64> = ratios.filter(|r| r.is_finite()).collect();
    kept.sort_by(f64::total_cmp);
    kept.get(kept.len() / 2).copied().unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(value: f64, lo: f64) -> Point {
        Point { value, lo, hi: value }
    }

    #[test]
    fn the_scale_is_the_median_ratio_over_the_clear_kinds_without_the_unit() {
        // unit 1/1 (left out), 4/2 and 9/3 clear, 0.5/5 reaching zero (left out)
        let measured = [m(1.0, 1.0), m(4.0, 3.0), m(9.0, 7.0), m(0.5, -1.0)];
        let reference = [1.0, 2.0, 3.0, 5.0];
        assert_eq!(reference_scale(&measured, &reference, Some(0)), 3.0);
        // with every interval reaching zero, every kind with a reference counts
        let noisy = [m(1.0, -1.0), m(4.0, -1.0), m(9.0, -1.0), m(0.5, -1.0)];
        assert_eq!(reference_scale(&noisy, &reference, Some(0)), 2.0);
    }

    #[test]
    fn kinds_without_a_positive_reference_and_tables_without_kinds_give_no_scale() {
        let measured = [m(2.0, 1.0), m(3.0, 2.0)];
        assert_eq!(reference_scale(&measured, &[0.0, 3.0], None), 1.0);
        assert!(reference_scale(&measured, &[0.0, f64::NAN], None).is_nan());
        assert!(reference_scale(&[], &[], None).is_nan());
        assert_eq!(upper_median([1.0, f64::NAN, 3.0, 2.0, 4.0].into_iter()), 3.0);
    }
}
