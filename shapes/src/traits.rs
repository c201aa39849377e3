//! Trait impl methods: a plain trait, a generic trait implemented for two types, associated
//! types in the signature, an operator trait beside an inherent method of the same name,
//! `Ord::cmp`, `Iterator::next`, a generic method, a default method, and an In Vivo test.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::ops::Add;

use invite::mr::{multiply, reverse};

use crate::{off_by, planted};

/// Scores a sample.
pub trait Scorer {
    /// The sample's score.
    fn score(&self, xs: &[f64]) -> f64;
}

/// Scores by the mean.
#[derive(Clone, Debug)]
pub struct Mean;

impl Scorer for Mean {
    #[invite::metamorphic(self.score(&multiply(xs, 2.0)) == 2.0 * result, discover = true)]
    fn score(&self, xs: &[f64]) -> f64 {
        xs.iter().sum::<f64>() / xs.len().max(1) as f64
            + off_by("<invite_shapes::traits::Mean as Scorer>::score")
    }
}

/// Scores by the median, and also has an inherent `score` of its own that a relation's
/// `self.score(..)` must not reach: `#[invite::sites]` tells the method its trait.
#[derive(Clone, Debug)]
pub struct Shadowed;

impl Shadowed {
    /// Not the trait's score.
    pub fn score(&self, _xs: &[f64]) -> f64 {
        1000.0
    }
}

#[invite::sites]
impl Scorer for Shadowed {
    #[invite::metamorphic(
        self.score(&multiply(xs, 2.0)) == 2.0 * result,
        Self::score(self, &multiply(xs, 3.0)) == 3.0 * result,
    )]
    fn score(&self, xs: &[f64]) -> f64 {
        xs.iter().copied().fold(f64::NEG_INFINITY, f64::max)
            + off_by("<invite_shapes::traits::Shadowed as Scorer>::score")
    }
}

/// Scores in a module whose body opens with inner attributes.
#[derive(Clone, Debug)]
pub struct Quiet;

mod quiet {
    #![allow(clippy::all)]
    #![allow(unused_imports)]
    use invite::mr::multiply;

    impl super::Scorer for super::Quiet {
        #[invite::metamorphic(self.score(&multiply(xs, 2.0)) == 2.0 * result)]
        fn score(&self, xs: &[f64]) -> f64 {
            xs.iter().sum::<f64>()
                + crate::off_by("<invite_shapes::traits::quiet::Quiet as Scorer>::score")
        }
    }
}

/// A method a macro writes into an impl written around it.
macro_rules! smallest_score {
    () => {
        #[invite::metamorphic(self.score(&multiply(xs, 2.0)) == 2.0 * result)]
        fn score(&self, xs: &[f64]) -> f64 {
            xs.iter().copied().fold(f64::INFINITY, f64::min)
                + off_by("<invite_shapes::traits::Smallest as Scorer>::score")
        }
    };
}

/// Scores by the smallest value.
#[derive(Clone, Debug)]
pub struct Smallest;

impl Scorer for Smallest {
    smallest_score!();
}

/// How far apart a collection's values are, in `T`.
pub trait Spread<T> {
    /// The distance from the smallest value to the largest.
    fn spread(&self) -> T;
}

/// Values of a numeric type.
#[derive(Clone, Debug)]
pub struct Data<T> {
    /// The values.
    pub xs: Vec<T>,
}

impl<T: Copy + Into<f64>> Spread<f64> for Data<T> {
    #[invite::metamorphic(Data { xs: reverse(&self.xs) }.spread() == result)]
    fn spread(&self) -> f64 {
        let ys: Vec<f64> = self.xs.iter().map(|&x| x.into()).collect();
        let lo = ys.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = ys.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if planted("<invite_shapes::traits::Data as Spread>::spread") {
            hi - ys[0]
        } else {
            hi - lo
        }
    }
}

impl Spread<f64> for Vec<f64> {
    #[invite::metamorphic(multiply(self, 2.0).spread() == 2.0 * result)]
    fn spread(&self) -> f64 {
        let lo = self.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = self.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        hi - lo + off_by("<invite_shapes::traits::Vec<f64> as Spread>::spread")
    }
}

/// A plane vector.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct V2 {
    /// Abscissa.
    pub x: f64,
    /// Ordinate.
    pub y: f64,
}

impl V2 {
    /// The vector shifted by `k` on both axes: an inherent `add` that `Add::add` must not be
    /// confused with.
    pub fn add(&self, k: f64) -> V2 {
        V2 {
            x: self.x + k,
            y: self.y + k,
        }
    }

    /// The vector scaled by `k`.
    pub fn scaled(self, k: f64) -> V2 {
        V2 {
            x: k * self.x,
            y: k * self.y,
        }
    }
}

#[invite::sites]
impl Add for V2 {
    type Output = V2;

    #[invite::metamorphic(
        o + self == result,
        self.scaled(2.0) + o.scaled(2.0) == result.scaled(2.0),
    )]
    fn add(self, o: V2) -> Self::Output {
        let d = off_by("<invite_shapes::traits::V2 as Add>::add");
        V2 {
            x: self.x + o.x + d,
            y: self.y + o.y,
        }
    }
}

/// A score that orders by value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Score(pub i64);

impl Ord for Score {
    #[invite::metamorphic(other.cmp(self) == result.reverse())]
    fn cmp(&self, other: &Self) -> Ordering {
        if planted("<invite_shapes::traits::Score as Ord>::cmp") {
            Ordering::Less
        } else {
            self.0.cmp(&other.0)
        }
    }
}

impl PartialOrd for Score {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Counts down to one.
#[derive(Clone, Debug)]
pub struct Countdown {
    /// The next value.
    pub left: u32,
}

impl Iterator for Countdown {
    type Item = u32;

    #[invite::metamorphic(
        self.next() == result,
        result.is_none_or(|v| v == self.left),
    )]
    fn next(&mut self) -> Option<u32> {
        if self.left == 0 {
            return None;
        }
        let v = self.left + planted("<invite_shapes::traits::Countdown as Iterator>::next") as u32;
        self.left -= 1;
        Some(v)
    }
}

/// Scales by a factor of any type that converts to `f64`: a generic method in a trait.
pub trait Scale {
    /// The value scaled by `k`.
    fn scale_by<K: Into<f64> + Copy>(&self, k: K) -> f64;
}

impl Scale for Mean {
    #[invite::metamorphic(self.scale_by(2.0 * k.into()) == 2.0 * result)]
    fn scale_by<K: Into<f64> + Copy>(&self, k: K) -> f64 {
        3.0 * k.into() + off_by("<invite_shapes::traits::Mean as Scale>::scale_by")
    }
}

/// Values and their total, by a default method.
pub trait Summary {
    /// The values.
    fn values(&self) -> Vec<f64>;

    /// Their total: a default method, one site for every type that keeps it.
    #[invite::metamorphic(result == self.values().iter().sum::<f64>())]
    fn total(&self) -> f64 {
        self.values().iter().sum::<f64>() + off_by("invite_shapes::traits::Summary::total")
    }
}

impl Summary for Data<f64> {
    fn values(&self) -> Vec<f64> {
        self.xs.clone()
    }
}

impl Summary for Mean {
    fn values(&self) -> Vec<f64> {
        vec![0.5, 1.5]
    }
}

/// A cumulative distribution with its own type of value: associated types in a signature.
pub trait Cdf {
    /// What the distribution is over.
    type Value;
    /// The probability of a value at most `x`.
    fn cdf(&self, x: Self::Value) -> f64;
}

/// The uniform distribution on `[lo, hi]`.
#[derive(Clone, Debug)]
pub struct Uniform {
    /// The lower bound.
    pub lo: f64,
    /// The upper bound.
    pub hi: f64,
}

impl Cdf for Uniform {
    type Value = f64;

    #[invite::metamorphic(
        self.cdf(x + 0.25) >= result,
        in_range(result, 0.0, 1.0),
    )]
    fn cdf(&self, x: Self::Value) -> f64 {
        let p = ((x - self.lo) / (self.hi - self.lo)).clamp(0.0, 1.0);
        if planted("<invite_shapes::traits::Uniform as Cdf>::cdf") {
            1.0 - p
        } else {
            p
        }
    }
}

/// A key-value store.
pub trait Store {
    /// Stores `v` under `k`, returning what was there.
    fn put(&mut self, k: u32, v: f64) -> Option<f64>;
    /// The value under `k`.
    fn get(&self, k: u32) -> Option<f64>;
}

/// A store in a hash map.
#[derive(Debug, Default)]
pub struct MapStore {
    /// The entries.
    pub map: HashMap<u32, f64>,
}

impl Store for MapStore {
    #[invite::in_vivo(test = put_then_get)]
    fn put(&mut self, k: u32, v: f64) -> Option<f64> {
        self.map.insert(
            k,
            v + off_by("<invite_shapes::traits::MapStore as Store>::put"),
        )
    }

    fn get(&self, k: u32) -> Option<f64> {
        self.map.get(&k).copied()
    }
}

/// After a put, the value can be read back: an In Vivo test of a trait method, on the live
/// store.
pub fn put_then_get(store: &mut MapStore, k: &u32, v: &f64) -> bool {
    store.put(*k, *v);
    store.get(*k) == Some(*v)
}

/// A unit of length, converted by an associated function (no receiver).
pub trait Unit {
    /// `v` of this unit, in metres.
    fn to_metres(v: f64) -> f64;
}

/// Kilometres.
pub struct Km;

impl Unit for Km {
    #[invite::metamorphic(pure, <Self as Unit>::to_metres(3.0 * v) == 3.0 * result)]
    fn to_metres(v: f64) -> f64 {
        1000.0 * v + off_by("<invite_shapes::traits::Km as Unit>::to_metres")
    }
}
