//! The concurrency and overhead caps.
//!
//! Concurrency: a count of live runs, taken before the fork and given back by the collector when
//! the child is reaped. Overhead: a virtual clock (the generic cell rate algorithm). Each run
//! pushes the clock forward by its measured caller cost divided by `max_overhead`; a run may start
//! while the clock is no further ahead of real time than a 20 ms burst. Over any stretch of time
//! T the caller therefore spends at most `max_overhead × (T + 20 ms)` plus one run's cost starting
//! runs, and the cost charged is the one measured, never an assumed fork price.
//! `max_overhead = 1` turns the overhead cap off.
//!
//! Forking is not the whole price: a fork write-protects the parent's pages, and the first
//! write to each afterwards faults (a copy while the child lives, a cheaper reuse after). The
//! collector counts the process's minor faults while runs are alive and for a second after the
//! last one ended, and charges them at the per-fault cost measured at start-up
//! ([`cow_fault_cost_ns`]), or the process's system time over that period if that is more
//! (faults cost more when the machine is busy): both over-count the program's own faults and
//! system calls in that time rather than miss any copies.
//!
//! Test children also compete with the program for CPUs and memory bandwidth. Their CPU time
//! (measured when they are reaped) is charged at `child_cpu_charge`, by default `1 / (CPUs − 1)`:
//! on two CPUs a test's CPU time counts in full, on many it barely counts.
//!
//! The measured cost is known only after the fork, and is charged on the collector thread (the
//! caller writes as little as possible after forking). So that concurrent callers cannot slip
//! in before that charge lands, a run takes a provisional charge when it is admitted: the mean
//! of the costs measured so far. The collector then settles the difference with the real cost.

use std::sync::atomic::{AtomicU64, Ordering::*};
use std::time::Instant;

use crate::turns::{SiteKey, Turns};

/// Why a sampled call did not start a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkipReason {
    Concurrency,
    Overhead,
    Disabled,
    ForkFailed,
    /// The call's state was tested before (unseen-state testing).
    Seen,
    /// A pure site's call found no room in the worker's ring.
    RingFull,
    /// A pure site's call was in the worker's ring when the program exited, and was never
    /// tested.
    Unrun,
    /// Runs cannot be hidden here (their adopter never reaps) and `hide_runs` does not allow
    /// plain forks.
    Unhidden,
}

/// How far the virtual clock may run ahead of real time.
const BURST_NS: u64 = 20_000_000;

/// Where the budget reads real time: the monotonic clock, or in unit tests a hand-set one, so
/// that the caps' arithmetic is tested exactly rather than against a running clock.
#[derive(Debug)]
enum Time {
    Monotonic(Instant),
    #[cfg(test)]
    Manual(AtomicU64),
}

#[derive(Debug)]
pub struct Budget {
    /// The caps, changed by a reload of the configuration (`max_overhead` as `f64` bits).
    max_concurrent: AtomicU64,
    max_overhead_bits: AtomicU64,
    live: AtomicU64,
    /// Runs that ended so far: a call waiting for a slot sees the runs making progress.
    ended: AtomicU64,
    /// Virtual clock, in nanoseconds since the budget was made.
    clock_ns: AtomicU64,
    /// Real time, which the virtual clock is measured against.
    time: Time,
    /// Set at shutdown: no run may start any more.
    closed: std::sync::atomic::AtomicBool,
    /// Running mean of measured caller costs, in nanoseconds: the provisional charge.
    estimate_ns: AtomicU64,
    /// Whose turn a freed slot is, so that busy sites do not starve quiet ones.
    turns: Turns,
}

impl Budget {
    pub fn new(max_concurrent: u64, max_overhead: f64) -> Budget {
        Budget::with_time(
            max_concurrent,
            max_overhead,
            Time::Monotonic(Instant::now()),
        )
    }

    fn with_time(max_concurrent: u64, max_overhead: f64, time: Time) -> Budget {
        Budget {
            max_concurrent: AtomicU64::new(max_concurrent),
            max_overhead_bits: AtomicU64::new(max_overhead.to_bits()),
            live: AtomicU64::new(0),
            ended: AtomicU64::new(0),
            clock_ns: AtomicU64::new(0),
            time,
            closed: std::sync::atomic::AtomicBool::new(false),
            estimate_ns: AtomicU64::new(0),
            turns: Turns::default(),
        }
    }

    /// Puts new caps in force (a reload of the configuration). Runs alive stay; a lower
    /// `max_concurrent` admits no run until they are fewer.
    pub fn set_caps(&self, max_concurrent: u64, max_overhead: f64) {
        self.max_concurrent.store(max_concurrent, Relaxed);
        self.max_overhead_bits
            .store(max_overhead.to_bits(), Relaxed);
    }

    fn max_overhead(&self) -> f64 {
        f64::from_bits(self.max_overhead_bits.load(Relaxed))
    }

    fn max_concurrent(&self) -> u64 {
        self.max_concurrent.load(Relaxed)
    }

    /// Nanoseconds since the budget was made: the clock sites measure their sampling gaps by.
    pub fn now_ns(&self) -> u64 {
        match &self.time {
            Time::Monotonic(origin) => origin.elapsed().as_nanos() as u64,
            #[cfg(test)]
            Time::Manual(now) => now.load(Relaxed),
        }
    }

    /// Takes a concurrency slot for `site` if both caps and the turns allow a run now, and
    /// charges the provisional cost, which it returns (to be settled by [`Budget::settle`]).
    /// A site refused for want of a slot waits for its turn: the next freed slot is held for
    /// the longest-waiting site for `window_ns` (see `turns.rs`).
    pub fn try_acquire(&self, site: SiteKey, window_ns: u64) -> Result<u64, SkipReason> {
        if self.closed.load(Acquire) {
            return Err(SkipReason::Disabled);
        }
        if self.max_overhead() <= 0.0 {
            return Err(SkipReason::Overhead);
        }
        // A share of 1 is no cap: the charges (faults, children's CPU) can exceed wall time on
        // a busy machine, and a program that allows all of its time allows that too.
        let now = self.now_ns();
        if self.max_overhead() < 1.0 && self.clock_ns.load(Relaxed) > now + BURST_NS {
            return Err(SkipReason::Overhead);
        }
        let free = self
            .max_concurrent()
            .saturating_sub(self.live.load(Acquire));
        if free == 0 {
            self.turns.refused(site, window_ns);
            return Err(SkipReason::Concurrency);
        }
        if !self.turns.may_take(site, free, now, window_ns) {
            return Err(SkipReason::Concurrency);
        }
        self.live
            .fetch_update(AcqRel, Relaxed, |n| {
                (n < self.max_concurrent()).then_some(n + 1)
            })
            .map_err(|_| {
                self.turns.refused(site, window_ns);
                SkipReason::Concurrency
            })?;
        let provisional = self.estimate_ns.load(Relaxed);
        self.advance(provisional as f64);
        Ok(provisional)
    }

    /// Whether the overhead budget admits a call of a pure site into the worker's ring: no
    /// slot is taken (the ring's room limits what waits), and the caller charges what it
    /// spent with [`Budget::charge`].
    pub fn admits_queued(&self) -> Result<(), SkipReason> {
        if self.closed.load(Acquire) {
            return Err(SkipReason::Disabled);
        }
        if self.max_overhead() <= 0.0 {
            return Err(SkipReason::Overhead);
        }
        if self.max_overhead() < 1.0 && self.clock_ns.load(Relaxed) > self.now_ns() + BURST_NS {
            return Err(SkipReason::Overhead);
        }
        Ok(())
    }

    /// Takes a slot for a run that [`crate::check`] asked for, beyond both caps (a test that
    /// checks relations wants every call tested); its measured cost is still charged. Refused
    /// only after shutdown began.
    pub fn acquire_for_check(&self) -> Result<(), SkipReason> {
        if self.closed.load(Acquire) {
            return Err(SkipReason::Disabled);
        }
        self.live.fetch_add(1, AcqRel);
        Ok(())
    }

    /// Replaces a run's provisional charge by its measured cost.
    pub fn settle(&self, provisional_ns: u64, cost_ns: u64) {
        self.advance(cost_ns as f64 - provisional_ns as f64);
        if cost_ns > 0 {
            let _ = self.estimate_ns.fetch_update(Relaxed, Relaxed, |e| {
                Some(if e == 0 {
                    cost_ns
                } else {
                    (e * 7 + cost_ns) / 8
                })
            });
        }
    }

    /// Whether no cost has been measured yet (the first run then seeds the estimate itself,
    /// so that the runs admitted before its settlement are charged provisionally too).
    pub fn needs_estimate(&self) -> bool {
        self.estimate_ns.load(Relaxed) == 0
    }

    pub fn seed_estimate(&self, cost_ns: u64) {
        let _ = self
            .estimate_ns
            .compare_exchange(0, cost_ns.max(1), Relaxed, Relaxed);
    }

    /// Charges a cost the caller paid outside the fork itself: the copy-on-write faults while
    /// children live, measured by the collector.
    pub fn charge(&self, cost_ns: u64) {
        self.advance(cost_ns as f64);
    }

    /// Moves the virtual clock by a cost (negative: gives time back).
    fn advance(&self, cost_ns: f64) {
        let step = cost_ns / self.max_overhead();
        let now = self.now_ns();
        let _ = self.clock_ns.fetch_update(Relaxed, Relaxed, |c| {
            let moved = if step >= 0.0 {
                c.max(now) as f64 + step
            } else {
                c as f64 + step
            };
            Some(moved.max(0.0) as u64)
        });
    }

    /// Gives back the slot of a run that ended (or never started).
    pub fn release(&self) {
        let _ = self
            .live
            .fetch_update(AcqRel, Relaxed, |n| Some(n.saturating_sub(1)));
        self.ended.fetch_add(1, Release);
        self.turns.freed(self.now_ns());
    }

    /// How many runs have ended (their slots given back) since the budget was made.
    pub fn runs_ended(&self) -> u64 {
        self.ended.load(Acquire)
    }

    pub fn live(&self) -> u64 {
        self.live.load(Acquire)
    }

    /// True once shutdown has begun: no run may start, and the collector may be gone.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Acquire)
    }

    pub fn close(&self) {
        self.closed.store(true, Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    /// A budget whose real time stands still until the test moves it.
    fn manual(max_concurrent: u64, max_overhead: f64) -> Budget {
        Budget::with_time(
            max_concurrent,
            max_overhead,
            Time::Manual(AtomicU64::new(0)),
        )
    }

    fn set_now(b: &Budget, ns: u64) {
        let Time::Manual(now) = &b.time else {
            unreachable!("a monotonic budget's time is not set by hand")
        };
        now.store(ns, Relaxed);
    }

    fn clock(b: &Budget) -> u64 {
        b.clock_ns.load(Relaxed)
    }

    #[test]
    fn the_monotonic_clock_runs() {
        let b = Budget::new(1, 0.5);
        let first = b.now_ns();
        std::thread::sleep(std::time::Duration::from_millis(2));
        assert!(b.now_ns() > first);
    }

    #[test]
    fn a_charge_moves_the_clock_by_its_cost_over_the_share_up_to_the_burst() {
        let b = manual(100, 0.125);
        b.charge(MS);
        assert_eq!(clock(&b), 8 * MS);
        b.charge(1_500_000);
        assert_eq!(clock(&b), 20 * MS, "exactly the burst ahead");
        assert_eq!(
            b.try_acquire(1, MS),
            Ok(0),
            "a clock at the burst still admits"
        );
        b.charge(1);
        assert_eq!(b.try_acquire(1, MS), Err(SkipReason::Overhead));
        set_now(&b, 8);
        assert_eq!(
            b.try_acquire(1, MS),
            Ok(0),
            "real time caught up with the charge"
        );
        assert_eq!(b.live(), 2);
    }

    #[test]
    fn idle_time_is_not_saved_up_as_credit() {
        let b = manual(100, 0.01);
        set_now(&b, 10_000 * MS);
        // 1 ms at 1% is 100 ms of clock, counted from now, not from where the clock stood
        // ten idle seconds ago.
        b.charge(MS);
        assert_eq!(clock(&b), 10_100 * MS);
        assert_eq!(b.try_acquire(1, MS), Err(SkipReason::Overhead));
    }

    #[test]
    fn a_share_of_one_is_no_overhead_cap_just_below_it_is_one_and_zero_admits_nothing() {
        let off = manual(100, 1.0);
        // Ten seconds of charges, far beyond any wall time: still admitted.
        off.charge(10_000 * MS);
        assert_eq!(off.try_acquire(1, MS), Ok(0));
        let capped = manual(100, 0.999);
        capped.charge(10_000 * MS);
        assert_eq!(capped.try_acquire(1, MS), Err(SkipReason::Overhead));
        let none = manual(100, 0.0);
        assert_eq!(none.try_acquire(1, MS), Err(SkipReason::Overhead));
        assert_eq!(none.live(), 0);
    }

    #[test]
    fn the_first_measured_cost_is_the_estimate_and_later_ones_move_it_an_eighth() {
        let b = manual(100, 0.5);
        assert!(b.needs_estimate());
        assert_eq!(
            b.try_acquire(1, MS),
            Ok(0),
            "nothing to charge before a measurement"
        );
        b.settle(0, 8_000);
        assert!(!b.needs_estimate());
        assert_eq!(clock(&b), 16_000);
        b.release();
        assert_eq!(b.try_acquire(1, MS), Ok(8_000));
        b.settle(8_000, 16_000);
        assert_eq!(b.try_acquire(1, MS), Ok(9_000), "(7 x 8,000 + 16,000) / 8");
        b.settle(9_000, 0);
        assert_eq!(
            b.try_acquire(1, MS),
            Ok(9_000),
            "a cost of zero was not measured and leaves the estimate"
        );
    }

    #[test]
    fn settling_gives_back_what_the_provisional_charge_overstated() {
        let b = manual(100, 0.125);
        b.seed_estimate(2 * MS);
        assert_eq!(b.try_acquire(1, MS), Ok(2 * MS));
        assert_eq!(clock(&b), 16 * MS);
        b.settle(2 * MS, 500_000);
        assert_eq!(clock(&b), 4 * MS);
        b.settle(MS, 0);
        assert_eq!(clock(&b), 0, "a refund stops at the clock's origin");
        b.settle(0, 250_000);
        assert_eq!(
            clock(&b),
            2 * MS,
            "and an understated one is charged the rest"
        );
    }

    #[test]
    fn the_estimate_is_seeded_once_and_never_as_zero() {
        let b = manual(100, 0.5);
        b.seed_estimate(0);
        assert!(!b.needs_estimate(), "a zero measurement still seeds");
        b.seed_estimate(5_000);
        assert_eq!(b.try_acquire(1, MS), Ok(1), "the first seed stands");
    }

    #[test]
    fn admission_charges_the_measured_mean_before_the_run_reports() {
        let b = manual(100, 0.01);
        let p = b.try_acquire(1, MS).unwrap();
        b.settle(p, 50_000); // 50 µs measured: 5 ms of clock at 1%.
                             // Every admission now takes 50 µs at once, so admissions stop within the 20 ms burst
                             // although none of them has reported its real cost: at 10, 15, 20 and 25 ms.
        let admitted = (0..100)
            .take_while(|_| b.try_acquire(1, MS) == Ok(50_000))
            .count();
        assert_eq!(admitted, 4);
    }

    #[test]
    fn concurrency_cap_counts_live_runs() {
        let b = manual(2, 1.0);
        assert_eq!(b.runs_ended(), 0);
        let p = b.try_acquire(1, MS).unwrap();
        b.settle(p, 1000);
        assert_eq!(b.runs_ended(), 0, "settling is not ending");
        b.release();
        assert_eq!(b.runs_ended(), 1);
        assert!(b.try_acquire(1, MS).is_ok());
        assert!(b.try_acquire(1, MS).is_ok());
        assert_eq!(b.try_acquire(1, MS), Err(SkipReason::Concurrency));
        b.release();
        assert!(b.try_acquire(1, MS).is_ok());
        assert_eq!(b.live(), 2);
        b.release();
        b.release();
        b.release();
        assert_eq!(b.live(), 0, "an extra release does not wrap the count");
    }

    #[test]
    fn a_freed_slot_waits_for_the_site_refused_for_want_of_one() {
        let b = manual(1, 1.0);
        assert!(b.try_acquire(1, MS).is_ok());
        assert_eq!(b.try_acquire(2, MS), Err(SkipReason::Concurrency));
        set_now(&b, 10);
        b.release();
        assert_eq!(
            b.try_acquire(1, MS),
            Err(SkipReason::Concurrency),
            "the slot is held for site 2"
        );
        assert!(b.try_acquire(2, MS).is_ok());
        b.release();
        assert!(b.try_acquire(1, MS).is_ok(), "nobody waits any more");
        b.release();
        // A hold lapses a window after the slot was freed.
        assert_eq!(b.try_acquire(1, MS), Ok(0));
        assert_eq!(b.try_acquire(3, MS), Err(SkipReason::Concurrency));
        set_now(&b, 2 * MS);
        b.release();
        set_now(&b, 3 * MS);
        assert_eq!(b.try_acquire(1, MS), Err(SkipReason::Concurrency));
        set_now(&b, 3 * MS + 1);
        assert!(
            b.try_acquire(1, MS).is_ok(),
            "site 3's hold lapsed unclaimed"
        );
    }

    #[test]
    fn a_check_takes_a_slot_beyond_the_cap_until_shutdown() {
        let b = manual(1, 0.01);
        b.settle(b.try_acquire(1, MS).unwrap(), MS);
        assert_eq!(b.acquire_for_check(), Ok(()), "past both caps");
        assert_eq!(b.live(), 2, "and counted, so that its release balances");
        assert!(!b.is_closed());
        b.close();
        assert!(b.is_closed());
        assert_eq!(b.acquire_for_check(), Err(SkipReason::Disabled));
        assert_eq!(b.live(), 2);
    }

    #[test]
    fn closed_budget_refuses_as_disabled() {
        let b = manual(1, 1.0);
        b.close();
        assert_eq!(b.try_acquire(1, MS), Err(SkipReason::Disabled));
        assert_eq!(b.live(), 0);
    }
}
