//! Metamorphic transformations and tolerant comparisons.
//!
//! The transformations take references and return owned values, so a relation can write
//! `std_dev(&multiply(xs, 2.0)) == result * 2.0`. `add`, `multiply` and `negate` work on
//! slices, vectors, arrays and plain numbers alike.
//!
//! Top-level comparisons in a relation go through [`Approx`]: finite floating point numbers are
//! equal when `|a - b| <= tol * max(1, |a|, |b|)`; an infinity equals only the same infinity
//! and orders exactly against everything else (it never widens the tolerance); NaN is unequal
//! and unordered to everything, itself included, as IEEE 754 says. Slices, vectors, arrays,
//! tuples and `Option` compare element-wise; integers, `bool` and `char` compare exactly. Types
//! without an [`Approx`] implementation fall back to their `PartialEq`/`PartialOrd`.

use std::cmp::Ordering;
use std::fmt::Debug;
use std::ops::{Add, Mul, Neg};

use rand::seq::SliceRandom;

use crate::rng::with_transform;

/// Values a transformation can map element by element: slices, vectors, arrays and numbers.
pub trait Elementwise {
    /// The element type.
    type Elem: Copy;
    /// What mapping every element gives.
    type Output;
    /// Maps every element with `f`.
    fn map_each(self, f: impl FnMut(Self::Elem) -> Self::Elem) -> Self::Output;
}

impl<T: Copy> Elementwise for &[T] {
    type Elem = T;
    type Output = Vec<T>;
    fn map_each(self, f: impl FnMut(T) -> T) -> Vec<T> {
        self.iter().copied().map(f).collect()
    }
}

impl<T: Copy> Elementwise for &Vec<T> {
    type Elem = T;
    type Output = Vec<T>;
    fn map_each(self, f: impl FnMut(T) -> T) -> Vec<T> {
        self.as_slice().map_each(f)
    }
}

impl<T: Copy, const N: usize> Elementwise for &[T; N] {
    type Elem = T;
    type Output = [T; N];
    fn map_each(self, f: impl FnMut(T) -> T) -> [T; N] {
        self.map(f)
    }
}

macro_rules! scalar_elementwise {
    ($($t:ty),*) => {$(
        impl Elementwise for $t {
            type Elem = $t;
            type Output = $t;
            fn map_each(self, mut f: impl FnMut($t) -> $t) -> $t { f(self) }
        }
        impl Elementwise for &$t {
            type Elem = $t;
            type Output = $t;
            fn map_each(self, mut f: impl FnMut($t) -> $t) -> $t { f(*self) }
        }
    )*};
}
scalar_elementwise!(f32, f64, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

/// Adds `c` to every element (or to the number).
pub fn add<X: Elementwise>(xs: X, c: X::Elem) -> X::Output
where
    X::Elem: Add<Output = X::Elem>,
{
    xs.map_each(|x| x + c)
}

/// Multiplies every element (or the number) by `c`.
pub fn multiply<X: Elementwise>(xs: X, c: X::Elem) -> X::Output
where
    X::Elem: Mul<Output = X::Elem>,
{
    xs.map_each(|x| x * c)
}

/// Negates every element (or the number).
pub fn negate<X: Elementwise>(xs: X) -> X::Output
where
    X::Elem: Neg<Output = X::Elem>,
{
    xs.map_each(|x| -x)
}

/// The points `(x0, y0, x1, y1, ...)` turned a quarter turn about the origin: each `(x, y)`
/// becomes `(-y, x)`. Distances, lengths and areas do not change, and no rounding enters. An
/// odd element out, which belongs to no point, is kept as it is.
pub fn rotate<T: Copy + Neg<Output = T>>(points: &[T]) -> Vec<T> {
    let mut out = points.to_vec();
    for pair in out.chunks_exact_mut(2) {
        let (x, y) = (pair[0], pair[1]);
        pair[0] = -y;
        pair[1] = x;
    }
    out
}

/// The distance between the points `(ax, ay)` and `(bx, by)`: a bound on a curve's length, or
/// on a point's distance to a shape.
pub fn distance(ax: f64, ay: f64, bx: f64, by: f64) -> f64 {
    (ax - bx).hypot(ay - by)
}

/// The length of the path through the points `(x0, y0, x1, y1, ...)` in order: a Bézier
/// curve is no longer than its control polygon. An odd element out, which belongs to no point,
/// is passed over.
pub fn path_length(points: &[f64]) -> f64 {
    let whole: Vec<&[f64]> = points.chunks_exact(2).collect();
    whole
        .windows(2)
        .map(|w| distance(w[0][0], w[0][1], w[1][0], w[1][1]))
        .sum()
}

/// Whether every point of `points` (`(x0, y0, x1, y1, ...)`) lies in the smallest box that
/// holds the points of `of`, edges included: a Bézier curve, and so its bounding box, lies
/// within its control points' box. False when either holds an odd element out or `of` no
/// point. Exact, as the other predicates here are: where a computation may round a point past
/// an edge, give the relation a guard or compare coordinates with a tolerance instead.
pub fn in_box(points: &[f64], of: &[f64]) -> bool {
    if !points.len().is_multiple_of(2) || !of.len().is_multiple_of(2) || of.is_empty() {
        return false;
    }
    let span = |c: usize| {
        let axis = of.iter().skip(c).step_by(2).copied();
        let lo = axis.clone().fold(f64::INFINITY, f64::min);
        (lo, axis.fold(f64::NEG_INFINITY, f64::max))
    };
    let (x, y) = (span(0), span(1));
    points
        .chunks_exact(2)
        .all(|p| (x.0..=x.1).contains(&p[0]) && (y.0..=y.1).contains(&p[1]))
}

/// The points `(x0, y0, x1, y1, ...)` mirrored in the y axis: each `(x, y)` becomes `(-x, y)`.
/// Distances and lengths do not change, an area or a winding number changes its sign, and no
/// rounding enters. An odd element out, which belongs to no point, is kept as it is.
pub fn mirror<T: Copy + Neg<Output = T>>(points: &[T]) -> Vec<T> {
    let mut out = points.to_vec();
    for pair in out.chunks_exact_mut(2) {
        pair[0] = -pair[0];
    }
    out
}

/// The points `(x0, y0, x1, y1, ...)` in the other order, each kept whole: `(xn, yn, ...,
/// x0, y0)`. A curve's length does not change, a polygon's area changes its sign. An odd
/// element out, which belongs to no point, is kept at the end.
pub fn reverse_points<T: Clone>(points: &[T]) -> Vec<T> {
    let whole = points.len() - points.len() % 2;
    let mut out: Vec<T> = points[..whole]
        .chunks_exact(2)
        .rev()
        .flatten()
        .cloned()
        .collect();
    out.extend_from_slice(&points[whole..]);
    out
}

/// A random permutation, drawn from the test's own recorded seed (never from the function's
/// stream, so the function under test still sees the replayed numbers).
pub fn permute<T: Clone>(xs: &[T]) -> Vec<T> {
    let mut v = xs.to_vec();
    with_transform(|r| v.shuffle(r));
    v
}

/// What `change` leaves in a copy of `x`: the result of a function that changes its argument
/// in place (`after(xs, |v| v.sort())`), for relations of such functions.
pub fn after<T: ToOwned + ?Sized>(x: &T, change: impl FnOnce(&mut T::Owned)) -> T::Owned {
    let mut owned = x.to_owned();
    change(&mut owned);
    owned
}

/// Every boolean inverted: the votes of the other side, the complement of a mask.
pub fn invert(xs: &[bool]) -> Vec<bool> {
    xs.iter().map(|x| !x).collect()
}

/// The elements in reverse order.
pub fn reverse<T: Clone>(xs: &[T]) -> Vec<T> {
    xs.iter().rev().cloned().collect()
}

/// The elements with `x` appended.
pub fn include<T: Clone>(xs: &[T], x: T) -> Vec<T> {
    let mut v = Vec::with_capacity(xs.len() + 1);
    v.extend_from_slice(xs);
    v.push(x);
    v
}

/// The elements turned one place: the first moved to the end.
pub fn rotate_left<T: Clone>(xs: &[T]) -> Vec<T> {
    let mut v = xs.to_vec();
    if !v.is_empty() {
        v.rotate_left(1);
    }
    v
}

/// The elements as an array of `N`: a sequence made from an array's, its length kept
/// (`array(reverse(&v))`). An array, as an elementwise change of one gives, passes as it is.
///
/// # Panics
///
/// Where `xs` is not `N` long, naming both lengths.
pub fn array<T, const N: usize>(xs: impl Into<Vec<T>>) -> [T; N] {
    let xs: Vec<T> = xs.into();
    let len = xs.len();
    xs.try_into()
        .unwrap_or_else(|_| panic!("invite::mr::array: {len} elements for an array of {N}"))
}

/// The elements with `x` put before the first: a series delayed by a step.
pub fn prepend<T: Clone>(xs: &[T], x: T) -> Vec<T> {
    let mut v = Vec::with_capacity(xs.len() + 1);
    v.push(x);
    v.extend_from_slice(xs);
    v
}

/// The elements without the first one equal to `x` (unchanged when there is none).
pub fn exclude<T: Clone + PartialEq>(xs: &[T], x: &T) -> Vec<T> {
    let mut v = xs.to_vec();
    if let Some(i) = v.iter().position(|e| e == x) {
        v.remove(i);
    }
    v
}

/// `a` followed by `b`.
pub fn concatenate<T: Clone>(a: &[T], b: &[T]) -> Vec<T> {
    let mut v = Vec::with_capacity(a.len() + b.len());
    v.extend_from_slice(a);
    v.extend_from_slice(b);
    v
}

/// The elements in ascending order (NaN last), for relations such as "the output is a
/// permutation of the original output": `sorted(&f(&permute(xs))) == sorted(&result)`.
pub fn sorted<T: Clone + PartialOrd>(xs: &[T]) -> Vec<T> {
    let mut v = xs.to_vec();
    // A NaN is unordered; it goes after everything, so that two sorts of one multiset agree.
    #[allow(clippy::eq_op)]
    let unordered = |x: &T| x.partial_cmp(x).is_none();
    v.sort_by(|a, b| match (unordered(a), unordered(b)) {
        (false, false) => a.partial_cmp(b).unwrap_or(Ordering::Equal),
        (ua, ub) => ua.cmp(&ub),
    });
    v
}

/// The arithmetic mean of the elements (NaN for none).
pub fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

/// The largest element, NaN passed over. Panics on an empty slice: guard the relation with
/// `if !xs.is_empty() =>`.
pub fn largest<T: Copy + PartialOrd>(xs: &[T]) -> T {
    let mut it = xs.iter().copied();
    let first = it.next().expect(
        "invite::mr::largest of an empty slice; guard the relation with `if !xs.is_empty() =>`",
    );
    it.fold(first, |m, x| {
        if x > m || m.partial_cmp(&m).is_none() {
            x
        } else {
            m
        }
    })
}

/// The smallest element, NaN passed over. Panics on an empty slice: guard the relation with
/// `if !xs.is_empty() =>`.
pub fn smallest<T: Copy + PartialOrd>(xs: &[T]) -> T {
    let mut it = xs.iter().copied();
    let first = it.next().expect(
        "invite::mr::smallest of an empty slice; guard the relation with `if !xs.is_empty() =>`",
    );
    it.fold(first, |m, x| {
        if x < m || m.partial_cmp(&m).is_none() {
            x
        } else {
            m
        }
    })
}

/// Whether every element of `a` is also an element of `b` (exactly).
pub fn is_subset<T: PartialEq>(a: &[T], b: &[T]) -> bool {
    a.iter().all(|x| b.contains(x))
}

/// Whether `b` holds the elements of `a`, each as many times, in any order (exactly): a
/// permutation, for elements that have no order (`sorted(a) == sorted(b)` for those that do).
pub fn same_elements<T: PartialEq>(a: &[T], b: &[T]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut used = vec![false; b.len()];
    a.iter().all(|x| {
        let found = (0..b.len()).find(|&j| !used[j] && b[j] == *x);
        found.map(|j| used[j] = true).is_some()
    })
}

/// Whether `lo <= x <= hi`. In a relation's top level it is tolerant, like the comparisons.
pub fn in_range<T: PartialOrd>(x: T, lo: T, hi: T) -> bool {
    lo <= x && x <= hi
}

/// Whether `x` equals one of `options`. In a relation's top level it is tolerant.
pub fn one_of<T: PartialEq, const N: usize>(x: T, options: [T; N]) -> bool {
    options.contains(&x)
}

/// Comparison within a relative tolerance.
pub trait Approx<Rhs: ?Sized = Self> {
    /// `Equal` when the two are within tolerance, otherwise their order (`None` if unordered).
    fn approx_cmp(&self, other: &Rhs, tol: f64) -> Option<Ordering>;

    /// Whether `self` equals `other` within the relative tolerance `tol`.
    fn approx_eq(&self, other: &Rhs, tol: f64) -> bool {
        self.approx_cmp(other, tol) == Some(Ordering::Equal)
    }

    /// Whether two runs gave the same result, for the determinism self-check: `approx_eq`,
    /// except that NaN is the same result as NaN (a function that returns NaN on both replays
    /// is deterministic, and its relations must still be checked).
    fn approx_same(&self, other: &Rhs, tol: f64) -> bool {
        self.approx_eq(other, tol)
    }
}

/// The tolerant comparison of two floats (see the module's documentation).
fn float_cmp(a: f64, b: f64, tol: f64) -> Option<Ordering> {
    if a == b {
        return Some(Ordering::Equal);
    }
    if a.is_nan() || b.is_nan() {
        return None;
    }
    // An infinity is no magnitude to scale a tolerance by: it equals only itself (handled
    // above) and lies beyond every finite number.
    if a.is_infinite() || b.is_infinite() {
        return a.partial_cmp(&b);
    }
    let scale = 1f64.max(a.abs()).max(b.abs());
    if (a - b).abs() <= tol * scale {
        Some(Ordering::Equal)
    } else {
        a.partial_cmp(&b)
    }
}

macro_rules! float_approx {
    ($($t:ty),*) => {$(
        impl Approx for $t {
            fn approx_cmp(&self, other: &$t, tol: f64) -> Option<Ordering> {
                float_cmp(f64::from(*self), f64::from(*other), tol)
            }

            fn approx_same(&self, other: &$t, tol: f64) -> bool {
                (self.is_nan() && other.is_nan()) || self.approx_eq(other, tol)
            }
        }
    )*};
}
float_approx!(f32, f64);

macro_rules! exact_approx {
    ($($t:ty),*) => {$(
        impl Approx for $t {
            fn approx_cmp(&self, other: &$t, _tol: f64) -> Option<Ordering> {
                self.partial_cmp(other)
            }
        }
    )*};
}
exact_approx!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, bool, char);

fn approx_cmp_seq<A: Approx<B>, B>(a: &[A], b: &[B], tol: f64) -> Option<Ordering> {
    for (x, y) in a.iter().zip(b) {
        match x.approx_cmp(y, tol)? {
            Ordering::Equal => continue,
            other => return Some(other),
        }
    }
    Some(a.len().cmp(&b.len()))
}

fn approx_same_seq<A: Approx<B>, B>(a: &[A], b: &[B], tol: f64) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.approx_same(y, tol))
}

impl<A: Approx<B>, B> Approx<[B]> for [A] {
    fn approx_cmp(&self, other: &[B], tol: f64) -> Option<Ordering> {
        approx_cmp_seq(self, other, tol)
    }

    fn approx_same(&self, other: &[B], tol: f64) -> bool {
        approx_same_seq(self, other, tol)
    }
}

impl<A: Approx<B>, B> Approx<Vec<B>> for Vec<A> {
    fn approx_cmp(&self, other: &Vec<B>, tol: f64) -> Option<Ordering> {
        approx_cmp_seq(self, other, tol)
    }

    fn approx_same(&self, other: &Vec<B>, tol: f64) -> bool {
        approx_same_seq(self, other, tol)
    }
}

impl<A: Approx<B>, B> Approx<[B]> for Vec<A> {
    fn approx_cmp(&self, other: &[B], tol: f64) -> Option<Ordering> {
        approx_cmp_seq(self, other, tol)
    }

    fn approx_same(&self, other: &[B], tol: f64) -> bool {
        approx_same_seq(self, other, tol)
    }
}

impl<A: Approx<B>, B> Approx<Vec<B>> for [A] {
    fn approx_cmp(&self, other: &Vec<B>, tol: f64) -> Option<Ordering> {
        approx_cmp_seq(self, other, tol)
    }

    fn approx_same(&self, other: &Vec<B>, tol: f64) -> bool {
        approx_same_seq(self, other, tol)
    }
}

impl<A: Approx<B>, B, const N: usize> Approx<[B; N]> for [A; N] {
    fn approx_cmp(&self, other: &[B; N], tol: f64) -> Option<Ordering> {
        approx_cmp_seq(self, other, tol)
    }

    fn approx_same(&self, other: &[B; N], tol: f64) -> bool {
        approx_same_seq(self, other, tol)
    }
}

impl<A: Approx<B> + ?Sized, B: ?Sized> Approx<&B> for &A {
    fn approx_cmp(&self, other: &&B, tol: f64) -> Option<Ordering> {
        (**self).approx_cmp(*other, tol)
    }

    fn approx_same(&self, other: &&B, tol: f64) -> bool {
        (**self).approx_same(*other, tol)
    }
}

impl<A: Approx<B>, B> Approx<Option<B>> for Option<A> {
    fn approx_cmp(&self, other: &Option<B>, tol: f64) -> Option<Ordering> {
        match (self, other) {
            (Some(a), Some(b)) => a.approx_cmp(b, tol),
            (None, None) => Some(Ordering::Equal),
            (None, Some(_)) => Some(Ordering::Less),
            (Some(_), None) => Some(Ordering::Greater),
        }
    }

    fn approx_same(&self, other: &Option<B>, tol: f64) -> bool {
        match (self, other) {
            (Some(a), Some(b)) => a.approx_same(b, tol),
            (None, None) => true,
            _ => false,
        }
    }
}

macro_rules! tuple_approx {
    ($(($($a:ident $b:ident $i:tt),+))*) => {$(
        impl<$($a: Approx<$b>, $b),+> Approx<($($b,)+)> for ($($a,)+) {
            fn approx_cmp(&self, other: &($($b,)+), tol: f64) -> Option<Ordering> {
                $(
                    match self.$i.approx_cmp(&other.$i, tol)? {
                        Ordering::Equal => {}
                        o => return Some(o),
                    }
                )+
                Some(Ordering::Equal)
            }

            fn approx_same(&self, other: &($($b,)+), tol: f64) -> bool {
                $(self.$i.approx_same(&other.$i, tol))&&+
            }
        }
    )*};
}
tuple_approx! {
    (A0 B0 0)
    (A0 B0 0, A1 B1 1)
    (A0 B0 0, A1 B1 1, A2 B2 2)
    (A0 B0 0, A1 B1 1, A2 B2 2, A3 B3 3)
    (A0 B0 0, A1 B1 1, A2 B2 2, A3 B3 3, A4 B4 4)
    (A0 B0 0, A1 B1 1, A2 B2 2, A3 B3 3, A4 B4 4, A5 B5 5)
}

/// The comparison operators a relation's top level may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl Op {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            Op::Eq => "==",
            Op::Ne => "!=",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
        }
    }

    /// Whether an ordering (as from `approx_cmp`) satisfies the operator.
    pub fn holds(self, ord: Option<Ordering>) -> bool {
        use Ordering::*;
        match (self, ord) {
            (Op::Ne, None) => true,
            (_, None) => false,
            (Op::Eq, Some(o)) => o == Equal,
            (Op::Ne, Some(o)) => o != Equal,
            (Op::Lt, Some(o)) => o == Less,
            (Op::Le, Some(o)) => o != Greater,
            (Op::Gt, Some(o)) => o == Greater,
            (Op::Ge, Some(o)) => o != Less,
        }
    }
}

/// Tolerant inclusive range check, as `in_range` behaves in a relation's top level.
pub fn in_range_tolerant<T: Approx>(x: &T, lo: &T, hi: &T, tol: f64) -> bool {
    Op::Ge.holds(x.approx_cmp(lo, tol)) && Op::Le.holds(x.approx_cmp(hi, tol))
}

/// Tolerant membership, as `one_of` behaves in a relation's top level.
pub fn one_of_tolerant<T: Approx>(x: &T, options: &[T], tol: f64) -> bool {
    options.iter().any(|o| x.approx_eq(o, tol))
}

/// `Debug` text limited to `max` characters, marked when cut.
///
/// Formatting stops as soon as the limit is passed, so the `Debug` text of a huge argument (a
/// million-element slice) costs what its first `max` characters cost, not its whole length.
pub fn truncated_debug<T: Debug + ?Sized>(x: &T, max: usize) -> String {
    use std::fmt::Write;
    struct Limited {
        text: String,
        chars: usize,
        max: usize,
        cut: bool,
    }
    impl Write for Limited {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            for c in s.chars() {
                if self.chars == self.max {
                    self.cut = true;
                    return Err(std::fmt::Error);
                }
                self.text.push(c);
                self.chars += 1;
            }
            Ok(())
        }
    }
    let mut w = Limited {
        text: String::new(),
        chars: 0,
        max,
        cut: false,
    };
    let _ = write!(w, "{x:?}");
    if w.cut {
        w.text.push_str("… (truncated)");
    }
    w.text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers_for_discovered_relations() {
        assert_eq!(sorted(&[3.0, f64::NAN, -1.0, 2.0])[..3], [-1.0, 2.0, 3.0]);
        assert!(sorted(&[f64::NAN, 1.0])[1].is_nan());
        assert_eq!(sorted(&[2, 1, 2]), [1, 2, 2]);
        assert_eq!(mean(&[1.0, 2.0, 6.0]), 3.0);
        assert!(mean(&[]).is_nan());
        assert_eq!(largest(&[1.0, 5.0, -2.0]), 5.0);
        assert_eq!(largest(&[f64::NAN, 1.0]), 1.0);
        assert_eq!(largest(&[3, 9, 4]), 9);
        assert!(is_subset(&[1, 2], &[2, 3, 1]));
        assert!(!is_subset(&[1, 4], &[2, 3, 1]));
        assert!(is_subset::<u8>(&[], &[]));
        assert_eq!(invert(&[true, false, false]), [false, true, true]);
        assert_eq!(invert(&[]), [] as [bool; 0]);
        // Of equal elements the first is the largest: -0.0 before 0.0 stays -0.0.
        assert!(largest(&[-0.0f64, 0.0]).is_sign_negative());
        assert!(largest(&[0.0f64, -0.0]).is_sign_positive());
        assert_eq!(smallest(&[1.0, 5.0, -2.0]), -2.0);
        assert_eq!(smallest(&[f64::NAN, 1.0]), 1.0);
        assert_eq!(smallest(&[1.0, f64::NAN]), 1.0);
        assert_eq!(smallest(&[3, 9, 4]), 3);
        assert!(smallest(&[-0.0f64, 0.0]).is_sign_negative());
        assert!(smallest(&[0.0f64, -0.0]).is_sign_positive());
    }

    #[test]
    fn exact_range_and_membership_outside_a_relation_s_top_level() {
        assert!(in_range(5, 1, 10));
        assert!(
            in_range(1, 1, 10) && in_range(10, 1, 10),
            "the bounds are inside"
        );
        assert!(!in_range(0, 1, 10));
        assert!(!in_range(11, 1, 10));
        // Exact: no tolerance below the top level.
        assert!(!in_range(1.0 + 1e-12, 0.0, 1.0));
        assert!(one_of(2, [1, 2, 3]));
        assert!(!one_of(4, [1, 2, 3]));
        assert!(!one_of(2.0 + 1e-12, [1.0, 2.0]));
    }

    #[test]
    fn transformations_map_slices_vectors_arrays_and_scalars() {
        let xs = [1.0, 2.0, 3.0];
        assert_eq!(add(&xs[..], 1.0), vec![2.0, 3.0, 4.0]);
        assert_eq!(multiply(&xs, 2.0), [2.0, 4.0, 6.0]);
        assert_eq!(negate(&vec![1, -2]), vec![-1, 2]);
        assert_eq!(add(3.0, 0.5), 3.5);
        assert_eq!(multiply(&4_i64, 3), 12);
    }

    #[test]
    fn permute_keeps_the_elements() {
        let xs: Vec<u32> = (0..100).collect();
        let mut p = permute(&xs);
        assert_ne!(p, xs, "a 100-element shuffle left everything in place");
        p.sort();
        assert_eq!(p, xs);
    }

    #[test]
    fn include_exclude_concatenate_reverse() {
        assert_eq!(include(&[1, 2], 3), vec![1, 2, 3]);
        assert_eq!(prepend(&[1, 2], 0), vec![0, 1, 2]);
        assert_eq!(rotate_left(&[1, 2, 3]), vec![2, 3, 1]);
        assert!(rotate_left::<i32>(&[]).is_empty());
        let turned: [i32; 3] = array(rotate_left(&[1, 2, 3]));
        assert_eq!(turned, [2, 3, 1]);
        // As a pasted relation writes them, of an array's elements reordered or scaled.
        let v = [1.0, 2.0, 3.0];
        let back: [f64; 3] = array(reverse(&v));
        let doubled: [f64; 3] = array(multiply(&v, 2.0));
        assert_eq!((back, doubled), ([3.0, 2.0, 1.0], [2.0, 4.0, 6.0]));
        let short = std::panic::catch_unwind(|| array::<i32, 3>(vec![1, 2]));
        assert!(short.is_err());
        assert_eq!(exclude(&[1, 2, 1], &1), vec![2, 1]);
        assert_eq!(exclude(&[1, 2], &9), vec![1, 2]);
        assert_eq!(concatenate(&[1], &[2, 3]), vec![1, 2, 3]);
        assert_eq!(reverse(&[1, 2, 3]), vec![3, 2, 1]);
    }

    #[test]
    fn rotate_turns_each_point_a_quarter_and_keeps_an_odd_element_out() {
        assert_eq!(rotate(&[1, 2, -3, 4]), vec![-2, 1, -4, -3]);
        assert_eq!(rotate(&[1.5, -2.0, 7.0]), vec![2.0, 1.5, 7.0]);
        // Four quarter turns are the identity.
        let p = [0.25, -8.0, 3.0, 1e9];
        assert_eq!(rotate(&rotate(&rotate(&rotate(&p)))), p.to_vec());
        assert!(rotate::<f64>(&[]).is_empty());
    }

    #[test]
    fn a_path_s_length_sums_its_legs_in_order() {
        assert_eq!(path_length(&[0.0, 0.0, 3.0, 4.0, 3.0, 0.0]), 9.0);
        assert_eq!(path_length(&[0.0, 0.0, 3.0, 0.0, 3.0, 4.0]), 7.0);
        // One point, none, or a point and an odd element out: no leg.
        assert_eq!(path_length(&[1.0, 2.0]), 0.0);
        assert_eq!(path_length(&[]), 0.0);
        assert_eq!(path_length(&[1.0, 2.0, 9.0]), 0.0);
        assert_eq!(path_length(&[0.0, 0.0, 0.0, 2.0, 5.0]), 2.0);
    }

    #[test]
    fn a_box_of_points_holds_its_edges_and_nothing_beyond() {
        let of = [0.0, 1.0, 4.0, -2.0, 2.0, 3.0];
        assert!(in_box(&[0.0, -2.0, 4.0, 3.0], &of));
        assert!(in_box(&[2.0, 0.5], &of));
        assert!(in_box(&[], &of));
        for outside in [
            [-0.1, 0.0],
            [4.1, 0.0],
            [1.0, -2.1],
            [1.0, 3.1],
            [f64::NAN, 0.0],
        ] {
            assert!(!in_box(&outside, &of), "{outside:?}");
        }
        // A box is made of whole points.
        assert!(!in_box(&[1.0, 1.0, 1.0], &of));
        assert!(!in_box(&[1.0, 1.0], &of[..5]));
        assert!(!in_box(&[1.0, 1.0], &[]));
        assert!(in_box(&[1.0, 1.0], &[1.0, 1.0]));
        // Exact: an ulp beyond an edge is beyond it.
        let end: f64 = 3.5707963267948966;
        assert!(in_box(&[0.0, 0.0, end, 0.0], &[0.0, 0.0, end, 0.0]));
        assert!(!in_box(
            &[0.0, 0.0, f64::from_bits(end.to_bits() + 1), 0.0],
            &[0.0, 0.0, end, 0.0]
        ));
    }

    #[test]
    fn distance_is_between_two_points() {
        assert_eq!(distance(1.0, 2.0, 4.0, 6.0), 5.0);
        assert_eq!(distance(-1.0, 0.0, -1.0, 0.0), 0.0);
    }

    #[test]
    fn mirror_negates_each_point_s_x_and_keeps_an_odd_element_out() {
        assert_eq!(mirror(&[1, 2, -3, 4]), vec![-1, 2, 3, 4]);
        assert_eq!(mirror(&[1.5, -2.0, 7.0]), vec![-1.5, -2.0, 7.0]);
        let p = [0.25, -8.0, 3.0, 1e9];
        assert_eq!(mirror(&mirror(&p)), p.to_vec());
        assert!(mirror::<f64>(&[]).is_empty());
    }

    #[test]
    fn reverse_points_keeps_each_point_whole_and_an_odd_element_last() {
        assert_eq!(reverse_points(&[1, 2, 3, 4, 5, 6]), vec![5, 6, 3, 4, 1, 2]);
        assert_eq!(reverse_points(&[1, 2, 3, 4, 9]), vec![3, 4, 1, 2, 9]);
        assert_eq!(reverse_points(&[7]), vec![7]);
        assert!(reverse_points::<f64>(&[]).is_empty());
    }

    #[test]
    fn floats_are_equal_within_relative_tolerance() {
        assert!(1.0f64.approx_eq(&(1.0 + 1e-7), 1e-6));
        assert!(!1.0f64.approx_eq(&(1.0 + 1e-5), 1e-6));
        assert!(
            1e9f64.approx_eq(&(1e9 + 100.0), 1e-6),
            "scale grows with magnitude"
        );
        assert!(!f64::NAN.approx_eq(&f64::NAN, 1e-6));
    }

    #[test]
    fn an_infinity_equals_only_itself_and_orders_exactly() {
        let (inf, ninf) = (f64::INFINITY, f64::NEG_INFINITY);
        for tol in [0.0, 1e-9, 0.5, 10.0] {
            assert_eq!(inf.approx_cmp(&inf, tol), Some(Ordering::Equal));
            assert_eq!(ninf.approx_cmp(&ninf, tol), Some(Ordering::Equal));
            assert_eq!(inf.approx_cmp(&ninf, tol), Some(Ordering::Greater));
            for x in [0.0, -0.0, 1.0, -1e300, 1e300, f64::MAX, f64::MIN_POSITIVE] {
                assert_eq!(x.approx_cmp(&inf, tol), Some(Ordering::Less), "{x} vs inf");
                assert_eq!(inf.approx_cmp(&x, tol), Some(Ordering::Greater));
                assert_eq!(x.approx_cmp(&ninf, tol), Some(Ordering::Greater));
                assert_eq!(ninf.approx_cmp(&x, tol), Some(Ordering::Less));
            }
        }
        assert!(Op::Lt.holds(5.0f64.approx_cmp(&inf, 1e-9)), "5 < inf");
        assert_eq!(
            f32::INFINITY.approx_cmp(&f32::MAX, 1e-6),
            Some(Ordering::Greater)
        );
    }

    #[test]
    fn nan_is_unordered_in_relations_but_the_same_result_on_a_replay() {
        for x in [f64::NAN, 1.0, f64::INFINITY] {
            assert_eq!(f64::NAN.approx_cmp(&x, 1e-6), None);
            assert_eq!(x.approx_cmp(&f64::NAN, 1e-6), None);
        }
        assert!(f64::NAN.approx_same(&f64::NAN, 1e-6));
        assert!(f32::NAN.approx_same(&f32::NAN, 1e-6));
        assert!(!f64::NAN.approx_same(&1.0, 1e-6));
        assert!(!1.0f64.approx_same(&f64::NAN, 1e-6));
        assert!(1.0f64.approx_same(&(1.0 + 1e-9), 1e-6));
        assert!(!1.0f64.approx_same(&2.0, 1e-6));
        assert!(f64::INFINITY.approx_same(&f64::INFINITY, 1e-6));
        assert!(!f64::INFINITY.approx_same(&f64::NEG_INFINITY, 1e-6));
        let with_nan = vec![1.0, f64::NAN];
        assert!(with_nan.approx_same(&vec![1.0, f64::NAN], 1e-6));
        assert!(!with_nan.approx_same(&vec![1.0, 2.0], 1e-6));
        assert!(
            !with_nan.approx_same(&vec![1.0, f64::NAN, 3.0], 1e-6),
            "lengths differ"
        );
        assert!(with_nan[..].approx_same(&with_nan, 1e-6));
        assert!(with_nan.approx_same(&with_nan[..], 1e-6));
        assert!(with_nan[..].approx_same(&with_nan[..], 1e-6));
        assert!([f64::NAN; 2].approx_same(&[f64::NAN; 2], 1e-6));
        // And each container says no when an element differs.
        let other = vec![1.0, 2.0];
        assert!(!with_nan[..].approx_same(&other[..], 1e-6));
        assert!(!with_nan.approx_same(&other[..], 1e-6));
        assert!(!with_nan[..].approx_same(&other, 1e-6));
        assert!(![f64::NAN, 1.0].approx_same(&[f64::NAN, 2.0], 1e-6));
        assert!(!<&Vec<f64> as Approx<&Vec<f64>>>::approx_same(
            &&with_nan, &&other, 1e-6
        ));
        assert!(<&Vec<f64> as Approx<&Vec<f64>>>::approx_same(
            &&with_nan, &&with_nan, 1e-6
        ));
        assert!(Some(f64::NAN).approx_same(&Some(f64::NAN), 1e-6));
        assert!(None::<f64>.approx_same(&None, 1e-6));
        assert!(!Some(f64::NAN).approx_same(&None, 1e-6));
        assert!(!None::<f64>.approx_same(&Some(1.0), 1e-6));
        assert!((f64::NAN, 2u8).approx_same(&(f64::NAN, 2u8), 1e-6));
        assert!(!(f64::NAN, 2u8).approx_same(&(f64::NAN, 3u8), 1e-6));
        assert!(!(1.0, 2u8).approx_same(&(f64::NAN, 2u8), 1e-6));
        assert!(3u8.approx_same(&3, 0.0) && !3u8.approx_same(&4, 0.0));
    }

    #[test]
    fn signed_zeros_subnormals_and_huge_magnitudes() {
        assert_eq!(0.0f64.approx_cmp(&-0.0, 0.0), Some(Ordering::Equal));
        let sub = f64::from_bits(1);
        assert_eq!(sub.approx_cmp(&0.0, 0.0), Some(Ordering::Greater));
        assert_eq!(sub.approx_cmp(&0.0, 1e-300), Some(Ordering::Equal));
        // The difference overflows to infinity: still ordered, never equal.
        assert_eq!(f64::MAX.approx_cmp(&f64::MIN, 0.5), Some(Ordering::Greater));
        assert_eq!(
            f64::MAX.approx_cmp(&(f64::MAX * 0.9), 0.2),
            Some(Ordering::Equal)
        );
    }

    #[test]
    fn sequences_compare_element_wise() {
        let a = vec![1.0, 2.0];
        assert!(a.approx_eq(&vec![1.0, 2.0 + 1e-9], 1e-6));
        assert!(!a.approx_eq(&vec![1.0], 1e-6));
        assert_eq!(a.approx_cmp(&vec![1.0, 3.0], 1e-6), Some(Ordering::Less));
        assert!((1.0, Some(2u8)).approx_eq(&(1.0 + 1e-9, Some(2u8)), 1e-6));
        // Slices and vectors, either way round, compare and replay alike.
        let v = vec![1.0, 2.0];
        let near = vec![1.0, 2.0 + 1e-9];
        let (s, near_s, more_s) = (&v[..], &near[..], &[1.0, 3.0][..]);
        let eq = Some(Ordering::Equal);
        assert_eq!(s.approx_cmp(near_s, 1e-6), eq);
        assert_eq!(s.approx_cmp(more_s, 1e-6), Some(Ordering::Less));
        assert_eq!(v.approx_cmp(near_s, 1e-6), eq);
        assert_eq!(v.approx_cmp(more_s, 1e-6), Some(Ordering::Less));
        assert_eq!(s.approx_cmp(&near, 1e-6), eq);
        assert_eq!(s.approx_cmp(&vec![0.0, 2.0], 1e-6), Some(Ordering::Greater));
        let nan = [f64::NAN];
        for same in [
            s.approx_same(near_s, 1e-6),
            v.approx_same(near_s, 1e-6),
            s.approx_same(&near, 1e-6),
            v.approx_same(&near, 1e-6),
            nan[..].approx_same(&nan[..], 1e-6),
        ] {
            assert!(same);
        }
        for same in [
            s.approx_same(more_s, 1e-6),
            v.approx_same(more_s, 1e-6),
            s.approx_same(&vec![1.0], 1e-6),
            v.approx_same(&vec![1.0, 3.0], 1e-6),
        ] {
            assert!(!same);
        }
    }

    #[test]
    fn operators_read_orderings() {
        let eq = Some(Ordering::Equal);
        assert!(Op::Le.holds(eq) && Op::Ge.holds(eq) && !Op::Lt.holds(eq));
        assert!(Op::Ne.holds(None) && !Op::Eq.holds(None));
    }

    #[test]
    fn tolerant_range_and_membership() {
        assert!(in_range_tolerant(&(1.0 + 1e-9), &0.0, &1.0, 1e-6));
        assert!(!in_range_tolerant(&1.1, &0.0, &1.0, 1e-6));
        assert!(one_of_tolerant(&(2.0 + 1e-9), &[1.0, 2.0], 1e-6));
        assert!(!one_of_tolerant(&(2.0 + 1e-3), &[1.0, 2.0], 1e-6));
        assert!(!one_of_tolerant(&1.0, &[], 1e-6));
        assert!(in_range_tolerant(&0.0, &0.0, &1.0, 1e-6));
        assert!(!in_range_tolerant(&-0.1, &0.0, &1.0, 1e-6));
    }

    #[test]
    fn debug_text_is_truncated_with_a_mark() {
        let s = truncated_debug(&vec![0u8; 1000], 20);
        assert!(s.starts_with("[0, 0, 0"));
        assert_eq!(
            s.chars().count(),
            20 + "… (truncated)".chars().count(),
            "{s}"
        );
        assert!(s.ends_with("(truncated)"), "{s}");
        assert_eq!(truncated_debug(&[1, 2], 20), "[1, 2]");
    }
}
