//! Relations between three runs: `f(x)`, `f(y)` for a second input `y` made from `x`, and
//! `f(x + y)` or `f(x·y)`. Cauchy's functional equations are of this shape (`exp(x + y) =
//! exp(x)·exp(y)`, `ln(x·y) = ln(x) + ln(y)`, `sqrt(x·y) = sqrt(x)·sqrt(y)`, a linear
//! `f(x + y) = f(x) + f(y) - f(0)`), and no relation between two runs states them.

use super::form::{self, NOISE_UNITS};
use super::lsq;
use super::transform::Const;
use super::value::Value;

const EPS: f64 = f64::EPSILON;

/// `f(x)`, `f(y)` and the combined input's result, with their noise.
#[derive(Clone, Copy, Debug)]
pub struct Triple<'a> {
    /// The original result.
    pub y: &'a Value,
    /// The second input's result.
    pub y2: &'a Value,
    /// The combined input's result.
    pub y3: &'a Value,
    /// Their noise, in the same order.
    pub n: [f64; 3],
}

/// `f(combined) = α·f(x)·f(y) + β·(f(x) + f(y)) + γ`: symmetric in the two inputs, as their
/// sum and product are.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Joint {
    /// The product's coefficient.
    pub alpha: Const,
    /// The sum's coefficient.
    pub beta: Const,
    /// The constant.
    pub gamma: Const,
}

impl Joint {
    fn predict(&self, y: f64, y2: f64) -> f64 {
        // A term with a zero coefficient is absent, not `0 · ∞ = NaN`.
        let term = |k: f64, v: f64| if k == 0.0 { 0.0 } else { k * v };
        term(self.alpha.value, y * y2) + term(self.beta.value, y + y2) + self.gamma.value
    }

    /// Whether the relation holds on a triple, within the noise of the three results.
    pub fn holds(&self, t: &Triple<'_>) -> bool {
        let (Some(y), Some(y2), Some(y3)) = (t.y.number(), t.y2.number(), t.y3.number()) else {
            return false;
        };
        let (a, b, g) = (self.alpha.value, self.beta.value, self.gamma.value);
        let m = self.predict(y, y2);
        if y3 == m {
            return true;
        }
        if !(y3.is_finite() && m.is_finite()) {
            return false;
        }
        let [n, n2, n3] = t.n;
        let spread = n3 + (a * y2 + b).abs() * n + (a * y + b).abs() * n2;
        let terms = (a * y * y2).abs() + (b * y).abs() + (b * y2).abs() + g.abs();
        (y3 - m).abs() <= NOISE_UNITS * (spread + EPS * (y3.abs() + terms))
    }

    /// The relative tolerance invite's comparison needs on a triple.
    pub fn needed_tolerance(&self, t: &Triple<'_>) -> f64 {
        let (Some(y), Some(y2), Some(y3)) = (t.y.number(), t.y2.number(), t.y3.number()) else {
            return 0.0;
        };
        let m = self.predict(y, y2);
        if y3 == m || !y3.is_finite() || !m.is_finite() {
            0.0
        } else {
            (y3 - m).abs() / 1f64.max(y3.abs()).max(m.abs())
        }
    }
}

/// The relation fitted on `fit` and kept when it holds on every triple of `check`, its
/// coefficients snapped to simple constants where that still holds.
pub fn fit(fit: &[Triple<'_>], check: &[Triple<'_>], integral: bool) -> Option<Joint> {
    let data: Vec<(f64, f64, f64)> = fit
        .iter()
        .filter_map(|t| Some((t.y.number()?, t.y2.number()?, t.y3.number()?)))
        .filter(|(y, y2, y3)| y.is_finite() && y2.is_finite() && y3.is_finite())
        .collect();
    if data.len() < 5 {
        return None;
    }
    let rows: Vec<Vec<f64>> = data
        .iter()
        .map(|&(y, y2, _)| vec![y * y2, y + y2, 1.0])
        .collect();
    let target: Vec<f64> = data.iter().map(|d| d.2).collect();
    let mags: Vec<f64> = data
        .iter()
        .map(|&(y, y2, y3)| y3.abs() + (y * y2).abs() + y.abs() + y2.abs())
        .collect();
    let floor = form::weight_floor(mags.iter().copied());
    let w: Vec<f64> = mags.iter().map(|m| 1.0 / m.max(floor)).collect();
    let raw = lsq::solve(&rows, &target, &w)?;
    let build = |c: &[Const]| {
        // Without the product or the sum it says nothing of the two inputs.
        (c[0].value != 0.0 || c[1].value != 0.0).then_some(Joint {
            alpha: c[0],
            beta: c[1],
            gamma: c[2],
        })
    };
    let single = form::single_precision(data.iter().flat_map(|&(y, y2, y3)| [y, y2, y3]));
    form::snapped(&raw, integral, single, build, &|j: &Joint| {
        check.iter().all(|t| j.holds(t))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn triples(f: impl Fn(f64) -> f64, combine: impl Fn(f64, f64) -> f64) -> Vec<[Value; 3]> {
        (1..30)
            .map(|i| {
                let x = i as f64 * 0.37;
                let y = x + 1.0;
                [
                    Value::Float(f(x)),
                    Value::Float(f(y)),
                    Value::Float(f(combine(x, y))),
                ]
            })
            .collect()
    }

    fn view(v: &[[Value; 3]], noise: f64) -> Vec<Triple<'_>> {
        v.iter()
            .map(|[y, y2, y3]| Triple {
                y,
                y2,
                y3,
                n: [noise; 3],
            })
            .collect()
    }

    #[test]
    fn cauchys_equations_are_fitted_and_snapped() {
        let k = Const::lit;
        let exp = triples(f64::exp, |x, y| x + y);
        let j = fit(&view(&exp, 1e-15), &view(&exp, 1e-15), false).unwrap();
        assert_eq!((j.alpha, j.beta, j.gamma), (k(1.0), k(0.0), k(0.0)));
        let ln = triples(f64::ln, |x, y| x * y);
        let j = fit(&view(&ln, 1e-16), &view(&ln, 1e-16), false).unwrap();
        assert_eq!((j.alpha, j.beta, j.gamma), (k(0.0), k(1.0), k(0.0)));
        let linear = triples(|x| 3.0 * x + 2.0, |x, y| x + y);
        let j = fit(&view(&linear, 1e-15), &view(&linear, 1e-15), false).unwrap();
        assert_eq!((j.alpha, j.beta, j.gamma), (k(0.0), k(1.0), k(-2.0)));
        // sin(x + y) is no function of sin(x) and sin(y) alone.
        let sin = triples(f64::sin, |x, y| x + y);
        assert_eq!(fit(&view(&sin, 1e-16), &view(&sin, 1e-16), false), None);
        // Too few to fit.
        assert_eq!(fit(&view(&exp[..4], 0.0), &view(&exp, 0.0), false), None);
    }

    #[test]
    fn a_triple_holds_within_the_noise_of_its_three_results_and_never_on_nan() {
        let j = Joint {
            alpha: Const::lit(1.0),
            beta: Const::lit(0.0),
            gamma: Const::lit(0.0),
        };
        let v = |x: f64| Value::Float(x);
        let (a, b) = (v(2.0), v(3.0));
        let at = |y3: f64, n: f64| {
            j.holds(&Triple {
                y: &a,
                y2: &b,
                y3: &v(y3),
                n: [n; 3],
            })
        };
        assert!(at(6.0, 0.0));
        assert!(!at(6.0 + 1e-12, 0.0));
        assert!(at(6.0 + 1e-12, 1e-13));
        assert!(!at(f64::NAN, 1.0));
        assert!(!at(f64::INFINITY, 1.0));
        let inf = v(f64::INFINITY);
        assert!(j.holds(&Triple {
            y: &inf,
            y2: &b,
            y3: &inf,
            n: [0.0; 3]
        }));
        let t = Triple {
            y: &a,
            y2: &b,
            y3: &v(6.6),
            n: [0.0; 3],
        };
        assert!((j.needed_tolerance(&t) - 0.6 / 6.6).abs() < 1e-15);
        // Nothing finite to scale a tolerance by: none is needed (the comparison is exact).
        let t = Triple {
            y: &a,
            y2: &b,
            y3: &inf,
            n: [0.0; 3],
        };
        assert_eq!(j.needed_tolerance(&t), 0.0);
        let t = Triple {
            y: &inf,
            y2: &b,
            y3: &v(6.0),
            n: [0.0; 3],
        };
        assert_eq!(j.needed_tolerance(&t), 0.0);
    }

    #[test]
    fn a_triples_tolerance_carries_each_results_noise_through_the_relation() {
        let j = Joint {
            alpha: Const::lit(2.0),
            beta: Const::lit(3.0),
            gamma: Const::lit(37.0),
        };
        let (y, y2) = (5.0, -4.0);
        // 2·5·(-4) + 3·(5 - 4) + 37 = 0: the bound is all tolerance, no rounding of m.
        let m = 0.0;
        let (a, b) = (Value::Float(y), Value::Float(y2));
        // The relation's slopes: α·y2 + β = -5 in f(x), α·y + β = 13 in f(y), 1 in the
        // combined result; its terms' magnitudes sum to 40 + 15 + 12 + 37.
        let terms = 104.0;
        for (n, spread) in [
            ([1e-6, 0.0, 0.0], 5e-6),
            ([0.0, 1e-6, 0.0], 13e-6),
            ([0.0, 0.0, 1e-6], 1e-6),
            ([0.0; 3], 0.0),
        ] {
            let bound = NOISE_UNITS * (spread + EPS * terms);
            let at = |y3: f64| {
                j.holds(&Triple {
                    y: &a,
                    y2: &b,
                    y3: &Value::Float(y3),
                    n,
                })
            };
            assert!(at(m + 0.97 * bound) && at(m - 0.97 * bound), "{n:?}");
            assert!(!at(m + 1.03 * bound) && !at(m - 1.03 * bound), "{n:?}");
        }
    }

    #[test]
    fn five_triples_suffice_and_non_finite_ones_are_left_out() {
        let exp = triples(f64::exp, |x, y| x + y);
        let one = (Const::lit(1.0), Const::lit(0.0), Const::lit(0.0));
        let j = fit(&view(&exp[..5], 1e-15), &view(&exp, 1e-15), false).unwrap();
        assert_eq!((j.alpha, j.beta, j.gamma), one);
        let mut with_inf = exp.clone();
        for bad in [
            [f64::INFINITY, 2.0, 3.0],
            [2.0, f64::INFINITY, 3.0],
            [2.0, 3.0, f64::NAN],
        ] {
            with_inf.push(bad.map(Value::Float));
        }
        let j = fit(&view(&with_inf, 1e-15), &view(&exp, 1e-15), false).unwrap();
        assert_eq!((j.alpha, j.beta, j.gamma), one);
    }
}
