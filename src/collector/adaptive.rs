//! The adaptive sampling rate: a site with `target_tests_per_min` gets its ρ from its observed
//! call rate, read over windows of its counters, so that a rarely called function is still
//! tested and a hot one does not eat the budget.

use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

use super::State;
use crate::site;

/// A site's counters at one moment, for the adaptive rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Counters {
    calls: u64,
    sampled: u64,
    /// Sampled calls the caps refused (concurrency or overhead).
    refused: u64,
}

/// What one look at a site's window decides.
#[derive(Debug, PartialEq)]
enum Adapt {
    /// The window is too short or too sparse yet: keep counting.
    Wait,
    /// The window closes and ρ stays.
    Keep,
    /// The window closes and ρ becomes this.
    Set(f64),
}

/// The adaptive rate of a site at `rho` aiming at `target` tests a minute, `per_run` tests a
/// run, from its counters at the start of the window and now, `secs` apart (see
/// [`State::adapt`]).
fn adapt_rate(
    rho: f64,
    target: f64,
    per_run: usize,
    start: Counters,
    now: Counters,
    secs: f64,
) -> Adapt {
    let since = now.sampled - start.sampled;
    if rho <= 0.0 || secs < 0.5 || (since < 5 && secs < 1.0) {
        return Adapt::Wait;
    }
    let per_run = per_run.max(1) as f64;
    let wanted_tests_per_sec = target / 60.0;
    let wanted = if since >= 5 {
        let calls_per_sec = (now.calls - start.calls) as f64 / secs;
        wanted_tests_per_sec / (calls_per_sec * per_run)
    } else if now.refused > start.refused {
        return Adapt::Keep;
    } else {
        let seen_tests_per_sec = (since.max(1) as f64 * per_run) / secs;
        if seen_tests_per_sec >= wanted_tests_per_sec {
            return Adapt::Keep;
        }
        if !too_few_for_the_target(since, wanted_tests_per_sec / per_run * secs) {
            // A site sampled at its target shows this few in a short window often enough:
            // the window grows until the count says which.
            return Adapt::Wait;
        }
        rho * (wanted_tests_per_sec / seen_tests_per_sec).min(16.0)
    };
    let wanted = wanted.clamp(1e-9, 1.0);
    if (wanted / rho - 1.0).abs() > 0.1 {
        Adapt::Set(wanted)
    } else {
        Adapt::Keep
    }
}

/// How unlikely a count of sampled calls must be at the target rate before a window of few is
/// taken as a site under-sampled. Raising ρ on any short window of few would push a site that
/// is on target upwards time after time (a window of a site expecting two has one or none four
/// times in ten), while lowering it needs five.
const UNDER_SAMPLED_EVIDENCE: f64 = 0.05;

/// Whether `sampled` calls or fewer are unlikely, at under [`UNDER_SAMPLED_EVIDENCE`], where
/// the target rate expects `expected`: sampled calls at a fixed ρ and call rate are a Poisson
/// count.
fn too_few_for_the_target(sampled: u64, expected: f64) -> bool {
    match statrs::distribution::Poisson::new(expected) {
        Ok(count) => {
            statrs::distribution::DiscreteCDF::cdf(&count, sampled) < UNDER_SAMPLED_EVIDENCE
        }
        Err(_) => false,
    }
}

impl State {
    /// Adaptive rate: sets ρ of each site with `target_tests_per_min` from its observed call
    /// rate, so that a rarely called function is still tested and a hot one does not eat the
    /// budget. Calls are counted at sampling points (each adds the interval it closes, backed-off
    /// intervals included), so the rate is read over a window of at least half a second holding
    /// at least five sampling points. With fewer after a second, the site is under-sampled if so
    /// few would be unlikely at the target rate (otherwise the window grows), and ρ rises by up
    /// to 16 times at once, unless the caps refused its runs in that window: then the few
    /// sampling points come from the back-off, not from a rare site, and a higher ρ would only
    /// be refused again. A new ρ is drawn without the back-off of the old (see `site`).
    pub(super) fn adapt(&mut self) {
        if self.last_adapt.elapsed() < Duration::from_millis(250) || self.shutdown.is_some() {
            return;
        }
        self.last_adapt = Instant::now();
        for s in site::all() {
            let Some(target) = s.target_tests_per_min() else {
                continue;
            };
            let skips = s.skips();
            let now = Counters {
                calls: s.calls.load(Relaxed),
                sampled: s.sampled.load(Relaxed),
                refused: skips.refused_by_caps(),
            };
            let entry = self
                .adapt_seen
                .entry(s.key())
                .or_insert((now, Instant::now()));
            let secs = entry.1.elapsed().as_secs_f64();
            match adapt_rate(s.rho(), target, s.tests_run(), entry.0, now, secs) {
                Adapt::Wait => {}
                decision => {
                    *entry = (now, Instant::now());
                    if let Adapt::Set(rho) = decision {
                        s.set_rho(rho);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counters(calls: u64, sampled: u64, refused: u64) -> Counters {
        Counters {
            calls,
            sampled,
            refused,
        }
    }

    #[test]
    fn a_window_waits_until_it_is_long_and_full_enough() {
        let start = counters(1000, 100, 7);
        let rich = counters(2000, 110, 7);
        let sparse = counters(2000, 102, 7);
        assert_eq!(adapt_rate(0.1, 60.0, 1, start, rich, 0.49), Adapt::Wait);
        assert_ne!(adapt_rate(0.1, 60.0, 1, start, rich, 0.5), Adapt::Wait);
        assert_eq!(adapt_rate(0.1, 60.0, 1, start, sparse, 0.9), Adapt::Wait);
        let five = counters(2000, 105, 7);
        assert_ne!(adapt_rate(0.1, 60.0, 1, start, five, 0.9), Adapt::Wait);
        assert_ne!(adapt_rate(0.1, 60.0, 1, start, sparse, 1.0), Adapt::Wait);
        assert_eq!(adapt_rate(0.0, 60.0, 1, start, rich, 5.0), Adapt::Wait);
    }

    #[test]
    fn a_well_sampled_window_sets_rho_from_the_call_rate() {
        // 1000 calls in the window over a second, 10 sampled: to get 1 test a second at one
        // test a run, ρ = 1 / 1000; at two tests a run, half that.
        let start = counters(5000, 100, 7);
        let now = counters(6000, 110, 9);
        assert_eq!(adapt_rate(0.1, 60.0, 1, start, now, 1.0), Adapt::Set(0.001));
        assert_eq!(
            adapt_rate(0.1, 60.0, 2, start, now, 1.0),
            Adapt::Set(0.0005)
        );
        assert_eq!(adapt_rate(0.1, 60.0, 0, start, now, 1.0), Adapt::Set(0.001));
        assert_eq!(
            adapt_rate(0.00105, 60.0, 1, start, now, 1.0),
            Adapt::Keep,
            "within 10%"
        );
        assert_eq!(
            adapt_rate(0.0012, 60.0, 1, start, now, 1.0),
            Adapt::Set(0.001)
        );
        // The same calls over two seconds are half the rate: twice the ρ.
        assert_eq!(adapt_rate(0.1, 60.0, 1, start, now, 2.0), Adapt::Set(0.002));
        assert_eq!(
            adapt_rate(0.5, 600_000.0, 1, start, now, 1.0),
            Adapt::Set(1.0),
            "never above 1"
        );
    }

    #[test]
    fn a_window_of_few_is_under_sampled_only_when_so_few_are_unlikely_at_the_target() {
        let raised_to = |decision: Adapt| match decision {
            Adapt::Set(rho) => rho,
            other => panic!("{other:?}"),
        };
        // Two tests a second wanted. One sampled call in a second happens at that rate four
        // times in ten, and one in two seconds one time in eleven: the window grows.
        let start = counters(100, 50, 7);
        let one = counters(150, 51, 7);
        assert_eq!(adapt_rate(0.01, 120.0, 1, start, one, 1.0), Adapt::Wait);
        assert_eq!(adapt_rate(0.01, 120.0, 1, start, one, 2.0), Adapt::Wait);
        // None in two seconds (one time in 55), or one in three (one time in 60): under-sampled,
        // and ρ rises by what was wanted over what was seen (at least one).
        let none = counters(150, 50, 7);
        let rho = raised_to(adapt_rate(0.01, 120.0, 1, start, none, 2.0));
        assert!((rho - 0.04).abs() < 1e-12, "{rho}");
        let rho = raised_to(adapt_rate(0.01, 120.0, 1, start, one, 3.0));
        assert!((rho - 0.06).abs() < 1e-12, "{rho}");
        // Two tests a run expect half the sampled calls: one in three seconds is then likely.
        assert_eq!(adapt_rate(0.01, 120.0, 2, start, one, 3.0), Adapt::Wait);
        // Half a test a second expects two in four seconds: none happens one time in seven.
        assert_eq!(adapt_rate(0.01, 30.0, 1, start, none, 4.0), Adapt::Wait);
    }

    #[test]
    fn too_few_is_a_poisson_tail_under_one_in_twenty() {
        // P(0 | 3) = e^-3 = 0.0498; P(0 | 2.9) = 0.055.
        assert!(too_few_for_the_target(0, 3.0));
        assert!(!too_few_for_the_target(0, 2.9));
        // P(≤ 4 | 10) = 0.029; P(≤ 5 | 10) = 0.067.
        assert!(too_few_for_the_target(4, 10.0));
        assert!(!too_few_for_the_target(5, 10.0));
        // Nothing expected: no count is too few.
        assert!(!too_few_for_the_target(0, 0.0));
    }

    #[test]
    fn an_under_sampled_window_raises_rho_unless_the_caps_refused_runs() {
        // 2 sampled calls in 2 s at one test a run: 1 test a second seen, 10 wanted.
        let start = counters(100, 50, 7);
        assert_eq!(
            adapt_rate(0.01, 600.0, 1, start, counters(150, 52, 7), 2.0),
            Adapt::Set(0.1)
        );
        assert_eq!(
            adapt_rate(0.01, 600.0, 1, start, counters(150, 52, 8), 2.0),
            Adapt::Keep,
            "refusals made the window sparse"
        );
        // At two tests a run, 2 tests a second seen: five times the ρ.
        assert_eq!(
            adapt_rate(0.01, 600.0, 2, start, counters(150, 52, 7), 2.0),
            Adapt::Set(0.05)
        );
        // At most 16 times at once; and a rate already met stays.
        assert_eq!(
            adapt_rate(0.01, 6000.0, 1, start, counters(150, 52, 7), 2.0),
            Adapt::Set(0.16)
        );
        assert_eq!(
            adapt_rate(0.01, 30.0, 1, start, counters(150, 52, 7), 2.0),
            Adapt::Keep
        );
    }
}
