//! Free functions: attributes that must survive, generics with `where` clauses, lifetimes,
//! `impl Trait` and const generic parameters, patterns and `mut` bindings, `Result`s,
//! recursion, and a function nested in another.

use invite::mr::{multiply, permute};

use crate::off_by;

/// The sum of `xs`.
#[invite::metamorphic(
    sum(&permute(xs)) == result,
    sum(&multiply(xs, 2.0)) == 2.0 * result,
)]
#[inline]
#[must_use]
pub fn sum(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() + off_by("invite_shapes::free::sum")
}

/// The sum of `xs`, each weighted by `w`.
#[invite::metamorphic(weighted(xs, 2.0 * w) == 2.0 * result)]
pub fn weighted<T>(xs: &[T], w: f64) -> f64
where
    T: Copy + Into<f64>,
{
    xs.iter().map(|&x| w * x.into()).sum::<f64>() + off_by("invite_shapes::free::weighted")
}

/// The longer of two slices (the first when they are as long).
#[invite::metamorphic(if a.len() != b.len() => longest(b, a).len() == result.len())]
pub fn longest<'a>(a: &'a [f64], b: &'a [f64]) -> &'a [f64] {
    if a.len() >= b.len() || crate::planted("invite_shapes::free::longest") {
        a
    } else {
        b
    }
}

/// The total of anything that yields numbers.
#[invite::metamorphic(
    total_of(xs.clone().into_iter().map(|x| 2.0 * x).collect::<Vec<f64>>()) == 2.0 * result
)]
pub fn total_of(xs: impl IntoIterator<Item = f64> + Clone) -> f64 {
    xs.into_iter().sum::<f64>() + off_by("invite_shapes::free::total_of")
}

/// The dot product of two arrays of one length.
#[invite::metamorphic(dot(b, a) == result, dot(a.map(|x| 2.0 * x), b) == 2.0 * result)]
pub fn dot<const N: usize>(a: [f64; N], b: [f64; N]) -> f64 {
    a.iter().zip(&b).map(|(x, y)| x * y).sum::<f64>() + off_by("invite_shapes::free::dot")
}

/// The length of a vector given as a pair: a parameter written as a pattern.
#[invite::metamorphic(result >= 0.0)]
pub fn norm((x, y): (f64, f64)) -> f64 {
    (x * x + y * y).sqrt() - 2.0 * off_by("invite_shapes::free::norm") * (x * x + y * y + 1.0)
}

/// The median, sorting the vector it owns (a `mut` parameter).
#[invite::metamorphic(median(multiply(&xs, 2.0)) == 2.0 * result)]
pub fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    let mid = xs.len() / 2;
    let m = if xs.len().is_multiple_of(2) {
        (xs[mid - 1] + xs[mid]) / 2.0
    } else {
        xs[mid]
    };
    m + off_by("invite_shapes::free::median")
}

/// The mean, panicking at the caller's place on no values.
#[invite::metamorphic(checked_mean(&multiply(xs, 2.0)) == 2.0 * result)]
#[track_caller]
pub fn checked_mean(xs: &[f64]) -> f64 {
    assert!(!xs.is_empty(), "no values");
    xs.iter().sum::<f64>() / xs.len() as f64 + off_by("invite_shapes::free::checked_mean")
}

/// `x` in another unit: an attribute on a parameter.
#[invite::metamorphic(in_unit(2.0 * x, unit) == 2.0 * result)]
pub fn in_unit(x: f64, #[allow(unused_variables)] unit: &str) -> f64 {
    1000.0 * x + off_by("invite_shapes::free::in_unit")
}

/// A number read from text and scaled: a function that returns a `Result`.
#[invite::metamorphic(parse_scaled(s, 2.0 * k) == result.clone().map(|v| 2.0 * v))]
pub fn parse_scaled(s: &str, k: f64) -> Result<f64, String> {
    let v: f64 = s.trim().parse().map_err(|e| format!("{s:?}: {e}"))?;
    Ok(k * v + off_by("invite_shapes::free::parse_scaled"))
}

/// The `n`th Fibonacci number: a recursive function, every call of which is a call site.
#[invite::metamorphic(fib(n + 2) == fib(n + 1) + result)]
pub fn fib(n: u32) -> u64 {
    let defect = (n == 3 && crate::planted("invite_shapes::free::fib")) as u64;
    defect
        + match n {
            0 => 0,
            1 => 1,
            _ => fib(n - 1) + fib(n - 2),
        }
}

/// Scales `xs` to a largest magnitude of one, in place, and returns the factor: an In Vivo
/// test on a `&mut` argument.
#[invite::in_vivo(test = scaled_to_one)]
pub fn normalize(xs: &mut Vec<f64>) -> f64 {
    let largest = xs.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    if largest > 0.0 && !crate::planted("invite_shapes::free::normalize") {
        for x in xs.iter_mut() {
            *x /= largest;
        }
    }
    largest
}

/// After [`normalize`], no element is larger than one.
pub fn scaled_to_one(xs: &mut Vec<f64>) -> bool {
    normalize(xs);
    xs.iter().all(|x| x.abs() <= 1.0)
}

/// The spread of `xs`, computed by a function nested in this one.
pub fn outer_spread(xs: &[f64]) -> f64 {
    #[invite::metamorphic(inner_spread(&multiply(ys, 2.0)) == 2.0 * result)]
    fn inner_spread(ys: &[f64]) -> f64 {
        let lo = ys.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = ys.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        hi - lo + off_by("invite_shapes::free::inner_spread")
    }
    inner_spread(xs)
}

/// The largest element, borrowed mutably from a `&mut` argument: a result that borrows from
/// the copy each execution gets.
#[invite::metamorphic(*result >= xs[0])]
pub fn max_mut(xs: &mut Vec<f64>) -> &mut f64 {
    let planted = crate::planted("invite_shapes::free::max_mut");
    let mut best = 0;
    for i in 1..xs.len() {
        if (xs[i] > xs[best]) != planted {
            best = i;
        }
    }
    &mut xs[best]
}

/// Twice `x`, by a one-line body.
#[invite::metamorphic(twice(3.0 * x) == 3.0 * result)]
pub fn twice(x: f64) -> f64 {
    (2.0 * x).abs().copysign(x) + off_by("invite_shapes::free::twice")
}

/// The sum of squares: a relation that passes a function by name and binds its own `result`.
#[invite::metamorphic(
    result == xs.iter().copied().map(square).sum::<f64>(),
    xs.iter().map(|result| result * result).all(|result| result <= result + 1.0),
)]
pub fn sum_of_squares(xs: &[f64]) -> f64 {
    xs.iter().map(|x| x * x).sum::<f64>() + off_by("invite_shapes::free::sum_of_squares")
}

/// `x` squared.
pub fn square(x: f64) -> f64 {
    x * x
}

/// A relation written only when a feature is on, through `cfg_attr`.
#[cfg_attr(
    feature = "enabled",
    invite::metamorphic(halved(2.0 * x) == 2.0 * result)
)]
pub fn halved(x: f64) -> f64 {
    x / 2.0 + off_by("invite_shapes::free::halved")
}

/// The mean of `xs`, declared pure: its sampled calls are tested by the worker, not a fork.
#[invite::metamorphic(
    pure,
    pure_mean(&permute(xs)) == result,
    pure_mean(&multiply(xs, 2.0)) == 2.0 * result,
)]
pub fn pure_mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len().max(1) as f64 + off_by("invite_shapes::free::pure_mean")
}

/// A generic pure function: its values travel by their bound.
#[invite::metamorphic(pure, pure_scaled(x, 2.0 * k) == 2.0 * result)]
pub fn pure_scaled<T: Into<f64> + Copy + invite::Travel>(x: T, k: f64) -> f64 {
    x.into() * k + off_by("invite_shapes::free::pure_scaled")
}
