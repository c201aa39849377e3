//! `async fn`s, as services write them: pure computations that are async only because a
//! caller is, ones that await a cache, methods, a native async trait, a generic one, and an In
//! Vivo test that is itself async. The relations `.await` calls of the function's own name,
//! as its body would.

use std::collections::HashMap;

use invite::mr::reverse;
use tokio::sync::Mutex;

use crate::off_by;

/// The price of `qty` units at `unit`: awaits nothing.
#[invite::metamorphic(price(unit, 2.0 * qty).await == 2.0 * result)]
pub async fn price(unit: f64, qty: f64) -> f64 {
    unit * qty + off_by("invite_shapes::asyncs::price")
}

/// The mean of any numbers, async: a generic `async fn`.
#[invite::metamorphic(mean_of(&reverse(xs)).await == result)]
pub async fn mean_of<T: Copy + Into<f64>>(xs: &[T]) -> f64 {
    let ys: Vec<f64> = xs.iter().map(|&x| x.into()).collect();
    let d = if crate::planted("invite_shapes::asyncs::mean_of") {
        ys[0]
    } else {
        0.0
    };
    ys.iter().sum::<f64>() / ys.len().max(1) as f64 + d
}

/// Rates by key, behind an async lock.
#[derive(Debug, Default)]
pub struct Rates {
    /// The rates.
    pub table: Mutex<HashMap<u32, f64>>,
}

impl Rates {
    /// The rate of `k` units: awaits a cache's lock.
    #[invite::metamorphic(self.rate(2 * k).await == 2.0 * result)]
    pub async fn rate(&self, k: u32) -> f64 {
        let table = self.table.lock().await;
        table.get(&1).copied().unwrap_or(1.0) * f64::from(k)
            + off_by("invite_shapes::asyncs::Rates::rate")
    }
}

/// An account.
#[derive(Clone, Debug, Default)]
pub struct Account {
    /// Its balance.
    pub balance: f64,
}

impl Account {
    /// Deposits `x` and returns the new balance: an async `&mut self` method.
    #[invite::metamorphic(
        self.deposit(2.0 * x).await - self.balance == 2.0 * (result - self.balance)
    )]
    pub async fn deposit(&mut self, x: f64) -> f64 {
        self.balance += x + off_by("invite_shapes::asyncs::Account::deposit");
        self.balance
    }
}

impl Account {
    /// Deposits `x` into a pinned account: an async `self: Pin<&mut Self>` method.
    #[invite::metamorphic(
        Self::pinned_deposit(self, 2.0 * x).await - self.balance == 2.0 * (result - self.balance)
    )]
    pub async fn pinned_deposit(self: std::pin::Pin<&mut Self>, x: f64) -> f64 {
        let this = self.get_mut();
        this.balance += x + off_by("invite_shapes::asyncs::Account::pinned_deposit");
        this.balance
    }
}

/// Quotes prices: a trait with a native `async fn`.
#[allow(async_fn_in_trait)]
pub trait Pricer {
    /// The price of `qty` units.
    async fn quote(&self, qty: f64) -> f64;
}

/// A flat price per unit.
#[derive(Clone, Debug)]
pub struct Flat(pub f64);

impl Pricer for Flat {
    #[invite::metamorphic(self.quote(2.0 * qty).await == 2.0 * result)]
    async fn quote(&self, qty: f64) -> f64 {
        self.0 * qty + off_by("<invite_shapes::asyncs::Flat as Pricer>::quote")
    }
}

/// The tax on an amount: an In Vivo test that is an `async fn` itself.
#[invite::in_vivo(test = tax_is_a_fraction)]
pub async fn tax(amount: f64) -> f64 {
    amount * 0.2 + 2.0 * off_by("invite_shapes::asyncs::tax") * amount.abs()
}

/// The tax is at most the amount.
pub async fn tax_is_a_fraction(amount: &f64) -> bool {
    tax(*amount).await.abs() <= amount.abs()
}

/// Yields to the runtime's scheduler before answering: a yield is not a wait, so its tests
/// run to their verdicts in a test process, where that scheduler never runs again.
#[invite::metamorphic(yielded(2.0 * x).await == 2.0 * result)]
pub async fn yielded(x: f64) -> f64 {
    tokio::task::yield_now().await;
    3.0 * x + off_by("invite_shapes::asyncs::yielded")
}

/// Waits for a timer of the runtime before answering: a test process has no runtime, so its
/// tests must end as errors that say so, not as timeouts.
#[invite::metamorphic(delayed(2.0 * x).await == 2.0 * result)]
pub async fn delayed(x: f64) -> f64 {
    tokio::time::sleep(std::time::Duration::from_millis(1)).await;
    x
}
