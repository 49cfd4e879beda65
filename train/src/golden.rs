//! One-dimensional minimisation by golden-section search: the logistic scales that turn search
//! scores into winning chances are fitted with it.

/// The `x` in `[a, b]` that minimises a unimodal `f`, to within `(b - a) · 0.618^iterations`.
pub fn minimise(f: impl Fn(f64) -> f64, mut a: f64, mut b: f64, iterations: usize) -> f64 {
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..iterations {
        let (c, d) = (b - g * (b - a), a + g * (b - a));
        if f(c) < f(d) {
            b = d;
        } else {
            a = c;
        }
    }
    (a + b) / 2.0
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_minimum_of_a_parabola_is_found() {
        let x = super::minimise(|x| (x - 1.7) * (x - 1.7), -10.0, 10.0, 80);
        assert!((x - 1.7).abs() < 1e-9, "{x}");
    }
}
