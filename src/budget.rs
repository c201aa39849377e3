//! The concurrency and overhead caps.
//!
//! Concurrency: a count of live runs, taken before the fork and given back by the collector when
//! the child is reaped. Overhead: a virtual clock (the generic cell rate algorithm). Each run
//! pushes the clock forward by its measured caller cost divided by `max_overhead`; a run may start
//! while the clock is no further ahead of real time than a 20 ms burst. Over any stretch of time
//! T the caller therefore spends at most `max_overhead × (T + 20 ms)` plus one run's cost starting
//! runs, and the cost charged is the one measured, never an assumed fork price.

use std::sync::atomic::{AtomicU64, Ordering::*};
use std::time::Instant;

/// Why a sampled call did not start a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkipReason {
    Concurrency,
    Overhead,
    Disabled,
    ForkFailed,
}

/// How far the virtual clock may run ahead of real time.
const BURST_NS: u64 = 20_000_000;

#[derive(Debug)]
pub struct Budget {
    max_concurrent: u64,
    max_overhead: f64,
    live: AtomicU64,
    /// Virtual clock, in nanoseconds since `origin`.
    clock_ns: AtomicU64,
    origin: Instant,
    /// Set at shutdown: no run may start any more.
    closed: std::sync::atomic::AtomicBool,
}

impl Budget {
    pub fn new(max_concurrent: u64, max_overhead: f64) -> Budget {
        Budget {
            max_concurrent,
            max_overhead,
            live: AtomicU64::new(0),
            clock_ns: AtomicU64::new(0),
            origin: Instant::now(),
            closed: std::sync::atomic::AtomicBool::new(false),
        }
    }

    fn now_ns(&self) -> u64 {
        self.origin.elapsed().as_nanos() as u64
    }

    /// Takes a concurrency slot if both caps allow a run now.
    pub fn try_acquire(&self) -> Result<(), SkipReason> {
        if self.closed.load(Acquire) {
            return Err(SkipReason::Disabled);
        }
        if self.max_overhead <= 0.0 {
            return Err(SkipReason::Overhead);
        }
        if self.clock_ns.load(Relaxed) > self.now_ns() + BURST_NS {
            return Err(SkipReason::Overhead);
        }
        self.live
            .fetch_update(AcqRel, Relaxed, |n| {
                (n < self.max_concurrent).then_some(n + 1)
            })
            .map(|_| ())
            .map_err(|_| SkipReason::Concurrency)
    }

    /// Charges the caller time a run cost (measured), advancing the virtual clock.
    pub fn charge(&self, cost_ns: u64) {
        let step = (cost_ns as f64 / self.max_overhead) as u64;
        let now = self.now_ns();
        let _ = self
            .clock_ns
            .fetch_update(Relaxed, Relaxed, |c| Some(c.max(now) + step));
    }

    /// Gives back the slot of a run that ended (or never started).
    pub fn release(&self) {
        let _ = self
            .live
            .fetch_update(AcqRel, Relaxed, |n| Some(n.saturating_sub(1)));
    }

    pub fn live(&self) -> u64 {
        self.live.load(Acquire)
    }

    pub fn close(&self) {
        self.closed.store(true, Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concurrency_cap_counts_live_runs() {
        let b = Budget::new(2, 1.0);
        assert!(b.try_acquire().is_ok());
        assert!(b.try_acquire().is_ok());
        assert_eq!(b.try_acquire(), Err(SkipReason::Concurrency));
        b.release();
        assert!(b.try_acquire().is_ok());
        assert_eq!(b.live(), 2);
    }

    #[test]
    fn overhead_cap_refuses_after_the_burst_is_spent() {
        let b = Budget::new(100, 0.01);
        // 1 ms of caller time at a 1% cap moves the clock 100 ms ahead: beyond the burst.
        assert!(b.try_acquire().is_ok());
        b.charge(1_000_000);
        assert_eq!(b.try_acquire(), Err(SkipReason::Overhead));
    }

    #[test]
    fn small_costs_stay_within_the_burst() {
        // 40 µs at 5% advances the clock 0.8 ms a run: 20 runs fit in the 20 ms burst.
        let b = Budget::new(1000, 0.05);
        for _ in 0..20 {
            assert!(b.try_acquire().is_ok());
            b.charge(40_000);
        }
    }

    #[test]
    fn closed_budget_refuses_as_disabled() {
        let b = Budget::new(1, 1.0);
        b.close();
        assert_eq!(b.try_acquire(), Err(SkipReason::Disabled));
    }
}
