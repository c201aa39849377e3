//! Inherent methods with every receiver: `&self`, `&mut self`, `self`, `mut self`,
//! `self: Box<Self>`, `self: Arc<Self>`, `self: Pin<&mut Self>`, none; a generic impl and a
//! generic method.

use std::pin::Pin;
use std::sync::Arc;

use invite::mr::{multiply, permute, reverse};

use crate::off_by;

/// A sample of values.
#[derive(Clone, Debug)]
pub struct Stats {
    /// The values.
    pub xs: Vec<f64>,
}

impl Stats {
    /// Their mean.
    #[invite::metamorphic(
        Stats { xs: permute(&self.xs) }.mean() == result,
        Stats { xs: multiply(&self.xs, 2.0) }.mean() == 2.0 * result,
    )]
    pub fn mean(&self) -> f64 {
        self.xs.iter().sum::<f64>() / self.xs.len().max(1) as f64
            + off_by("invite_shapes::methods::Stats::mean")
    }

    /// The point halfway between two values: an associated function.
    #[invite::metamorphic(
        Self::midpoint(b, a) == result,
        Self::midpoint(2.0 * a, 2.0 * b) == 2.0 * result,
    )]
    pub fn midpoint(a: f64, b: f64) -> f64 {
        (a + b) / 2.0 + off_by("invite_shapes::methods::Stats::midpoint")
    }

    /// The values scaled by `k`, summed: a generic method.
    #[invite::metamorphic(self.scaled_sum(2.0 * k.into()) == 2.0 * result)]
    pub fn scaled_sum<K: Into<f64> + Copy>(&self, k: K) -> f64 {
        let k: f64 = k.into();
        self.xs.iter().map(|x| k * x).sum::<f64>()
            + off_by("invite_shapes::methods::Stats::scaled_sum")
    }

    /// The largest value, borrowed: a result that borrows from the receiver.
    #[invite::metamorphic(self.xs.iter().all(|x| x <= result))]
    pub fn largest(&self) -> &f64 {
        let mut best = &self.xs[0];
        for x in &self.xs {
            if (x > best) != crate::planted("invite_shapes::methods::Stats::largest") {
                best = x;
            }
        }
        best
    }
}

/// A running total.
#[derive(Clone, Debug, Default)]
pub struct Acc {
    /// The total so far.
    pub total: f64,
}

impl Acc {
    /// Adds `x` and returns the new total: `&mut self`, each execution on its own clone.
    #[invite::metamorphic(self.push(2.0 * x) - self.total == 2.0 * (result - self.total))]
    pub fn push(&mut self, x: f64) -> f64 {
        self.total += x + off_by("invite_shapes::methods::Acc::push");
        self.total
    }

    /// The total, consuming the accumulator: `self`.
    #[invite::metamorphic(Acc { total: 2.0 * self.total }.into_total() == 2.0 * result)]
    pub fn into_total(self) -> f64 {
        self.total + off_by("invite_shapes::methods::Acc::into_total")
    }

    /// The total scaled by `k`: `mut self`.
    #[invite::metamorphic(self.clone().scaled_total(2.0 * k) == 2.0 * result)]
    pub fn scaled_total(mut self, k: f64) -> f64 {
        self.total *= k;
        self.total + off_by("invite_shapes::methods::Acc::scaled_total")
    }

    /// The total of a boxed accumulator: `self: Box<Self>`.
    #[invite::metamorphic(Box::new(Acc { total: 2.0 * self.total }).boxed_total() == 2.0 * result)]
    pub fn boxed_total(self: Box<Self>) -> f64 {
        self.total + off_by("invite_shapes::methods::Acc::boxed_total")
    }

    /// The total of a shared accumulator: `self: Arc<Self>`.
    #[invite::metamorphic(Arc::new(Acc { total: 2.0 * self.total }).shared_total() == 2.0 * result)]
    pub fn shared_total(self: Arc<Self>) -> f64 {
        self.total + off_by("invite_shapes::methods::Acc::shared_total")
    }

    /// Adds `x` to a pinned accumulator: `self: Pin<&mut Self>`.
    #[invite::metamorphic(
        Self::pinned_push(self, 2.0 * x) - self.total == 2.0 * (result - self.total)
    )]
    pub fn pinned_push(self: Pin<&mut Self>, x: f64) -> f64 {
        let this = self.get_mut();
        this.total += x + off_by("invite_shapes::methods::Acc::pinned_push");
        this.total
    }
}

/// A counter with an In Vivo test of its live state.
#[derive(Debug, Default)]
pub struct Counter {
    /// Hits so far.
    pub hits: u64,
}

impl Counter {
    /// Adds `by` hits.
    #[invite::in_vivo(test = Self::bump_adds)]
    pub fn bump(&mut self, by: u64) {
        self.hits += by + crate::planted("invite_shapes::methods::Counter::bump") as u64;
    }

    /// After a bump by `by`, there are `by` more hits.
    pub fn bump_adds(&mut self, by: &u64) -> bool {
        let before = self.hits;
        self.bump(*by);
        self.hits == before + by
    }
}

/// A stack, and values by key.
#[derive(Clone, Debug, Default)]
pub struct Stack {
    /// The values, last on top.
    pub items: Vec<u32>,
    /// Values by key.
    pub cache: std::collections::BTreeMap<u32, f64>,
}

impl Stack {
    /// Takes the top value: a relation that calls another type's method of the same name.
    #[invite::metamorphic(result == self.items.clone().pop())]
    pub fn pop(&mut self) -> Option<u32> {
        if crate::planted("invite_shapes::methods::Stack::pop") && !self.items.is_empty() {
            return Some(self.items.remove(0));
        }
        self.items.pop()
    }

    /// The value under `k`, made on first use: a `&mut self` method whose result borrows from
    /// the receiver.
    #[invite::metamorphic(*result == 2.0 * f64::from(k))]
    pub fn get_or_insert(&mut self, k: u32) -> &f64 {
        let v = 2.0 * f64::from(k) + off_by("invite_shapes::methods::Stack::get_or_insert");
        self.cache.entry(k).or_insert(v)
    }
}

/// Values of any numeric type.
#[derive(Clone, Debug)]
pub struct Series<T> {
    /// The values.
    pub xs: Vec<T>,
}

impl<T: Copy + Into<f64>> Series<T> {
    /// Their largest magnitude: a method of a generic impl.
    #[invite::metamorphic(Series { xs: reverse(&self.xs) }.peak() == result)]
    pub fn peak(&self) -> f64 {
        let peak = self.xs.iter().map(|&x| x.into().abs()).fold(0.0, f64::max);
        match self.xs.first() {
            Some(&first) if crate::planted("invite_shapes::methods::Series::peak") => first.into(),
            _ => peak,
        }
    }
}
