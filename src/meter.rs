//! Invite's figures through the `metrics` facade, to whatever exporter the program installed
//! (Prometheus, StatsD, OpenTelemetry): tests by outcome, sampled and skipped calls, tests'
//! durations and the share of wall time spent starting tests.
//!
//! Only the collector thread calls this, never a caller (whose path stays as short as without
//! the feature) nor a test child (whose recorder would write where the sandbox forbids it).
//!
//! Label sets stay bounded: a site's name and a test's text are known at start-up, outcomes and
//! skip reasons are fixed sets, and no series carries the instance, which the scrape target
//! already names. A tested site's series are made at zero when the meter first sees it, so that
//! Prometheus' `increase()` counts a counter's first step (a series born at 1 has no earlier
//! sample to rise from, and an alert on the first failure would never fire).
//!
//! The sampled and skipped counters follow each site's atomic counters by their differences
//! from what was last reported: the totals an exporter shows equal the final `stats` record's,
//! as long as the recorder was installed before Invite started.

use std::collections::HashMap;

use metrics::{
    counter, describe_counter, describe_gauge, describe_histogram, gauge, histogram, Unit,
};

use crate::diag::{self, Level};
use crate::record::{Outcome, SkipCounts};
use crate::site::Site;

/// Tests run, by site, test and outcome: one per `test` record of the log.
pub(crate) const TESTS: &str = "invite_tests_total";
/// Calls the sampler chose, by site.
pub(crate) const SAMPLED: &str = "invite_sampled_calls_total";
/// Sampled calls that started no run, by site and reason.
pub(crate) const SKIPPED: &str = "invite_calls_skipped_total";
/// A test's duration in its child, by site.
pub(crate) const DURATION: &str = "invite_test_duration_seconds";
/// The share of wall time the program's callers spent starting tests.
pub(crate) const OVERHEAD: &str = "invite_overhead_ratio";

/// Each skip reason's label and count. The destructuring names every field, so that a reason
/// added to [`SkipCounts`] fails to compile here rather than go uncounted.
fn reasons(s: &SkipCounts) -> [(&'static str, u64); REASONS] {
    let SkipCounts {
        concurrency,
        overhead,
        disabled,
        fork_failed,
        dedup,
        ring_full,
        unrun,
        unhidden,
    } = *s;
    [
        ("concurrency", concurrency),
        ("overhead", overhead),
        ("disabled", disabled),
        ("fork_failed", fork_failed),
        ("dedup", dedup),
        ("ring_full", ring_full),
        ("unrun", unrun),
        ("unhidden", unhidden),
    ]
}

/// How many reasons a sampled call may go untested for ([`SkipCounts`]'s fields).
const REASONS: usize = 8;

/// A site's counters as last reported.
#[derive(Default)]
struct Reported {
    sampled: u64,
    skips: [u64; REASONS],
}

/// The collector's meter: which sites it has seen, and what it reported of each.
pub(crate) struct Meter {
    /// By site key.
    sites: HashMap<usize, Reported>,
    /// Cleared when the recorder panicked: the meter stays silent from then on.
    on: bool,
}

impl Meter {
    /// A meter that has said nothing to the recorder yet: made wherever the collector is,
    /// which may be a caller's first sampled call; [`Meter::describe`] runs on the collector.
    pub(crate) fn new() -> Meter {
        Meter {
            sites: HashMap::new(),
            on: true,
        }
    }

    /// Describes the metrics to the recorder installed now: once, at the collector's start.
    pub(crate) fn describe(&mut self) {
        self.guarded(|_| {
            describe_counter!(
                TESTS,
                Unit::Count,
                "Tests run in forked children, by site, test and outcome (one per test record)"
            );
            describe_counter!(SAMPLED, Unit::Count, "Calls the sampler chose, by site");
            describe_counter!(
                SKIPPED,
                Unit::Count,
                "Sampled calls that started no run, by site and reason \
                 (concurrency, overhead, disabled, fork_failed, dedup, ring_full, unrun, unhidden)"
            );
            // The names carry their units, as Prometheus' conventions ask; a unit here too
            // would be appended again by an exporter that adds units to names
            // (`invite_test_duration_seconds_seconds`).
            describe_histogram!(
                DURATION,
                "How long a test took in its child, in seconds, by site"
            );
            describe_gauge!(
                OVERHEAD,
                "Share of wall time the program spent starting tests since start-up"
            );
        });
    }

    /// Runs `f` unless the meter is off. The recorder is the program's code running on the
    /// collector thread: a panic in it is contained here, and turns the meter off for good,
    /// so that it neither stops the log's writing nor repeats every step.
    fn guarded(&mut self, f: impl FnOnce(&mut Meter)) {
        if !self.on {
            return;
        }
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(self))).is_err();
        if panicked {
            self.on = false;
            diag::say(Level::Warn, "metrics", || {
                "the metrics recorder panicked; invite emits no more metrics in this process \
                 (the log is unaffected)"
                    .into()
            });
        }
    }

    /// A site's counters as they stand: what rose since the last report is added. A site is
    /// taken up once it is named and tested (sampled, or with ρ above zero); its series start
    /// at zero then.
    pub(crate) fn site(&mut self, site: &Site, sampled: u64, skips: &SkipCounts) {
        let counts = reasons(skips).map(|(_, n)| n);
        // Most steps find nothing new: they cost a look-up and no allocation.
        match self.sites.get(&site.key()) {
            Some(seen)
                if sampled <= seen.sampled
                    && counts.iter().zip(&seen.skips).all(|(n, s)| n <= s) =>
            {
                return
            }
            None if !(site.is_named() && (sampled > 0 || site.rho() > 0.0)) => return,
            _ => {}
        }
        self.guarded(|m| {
            let seen = m.seen(site);
            let name = site.name().to_string();
            if sampled > seen.sampled {
                counter!(SAMPLED, "site" => name.clone()).increment(sampled - seen.sampled);
                seen.sampled = sampled;
            }
            for (k, (reason, n)) in reasons(skips).into_iter().enumerate() {
                if n > seen.skips[k] {
                    counter!(SKIPPED, "site" => name.clone(), "reason" => reason)
                        .increment(n - seen.skips[k]);
                    seen.skips[k] = n;
                }
            }
        });
    }

    /// One test record of `site`.
    pub(crate) fn test(&mut self, site: &Site, test: &str, outcome: Outcome, duration_us: u64) {
        self.guarded(|m| {
            m.seen(site);
            let name = site.name().to_string();
            counter!(
                TESTS,
                "site" => name.clone(),
                "test" => test.to_string(),
                "outcome" => outcome.as_str()
            )
            .increment(1);
            histogram!(DURATION, "site" => name).record(duration_us as f64 / 1e6);
        });
    }

    /// The share of wall time spent starting tests, as the `stats` record computes it.
    pub(crate) fn overhead(&mut self, share: f64) {
        self.guarded(|_| gauge!(OVERHEAD).set(share));
    }

    /// What was reported of `site`; on its first sight, its series are made at zero.
    fn seen(&mut self, site: &Site) -> &mut Reported {
        self.sites.entry(site.key()).or_insert_with(|| {
            let name = site.name().to_string();
            for (test, _) in site.meta.tests {
                for outcome in Outcome::ALL {
                    counter!(
                        TESTS,
                        "site" => name.clone(),
                        "test" => *test,
                        "outcome" => outcome.as_str()
                    )
                    .increment(0);
                }
            }
            counter!(SAMPLED, "site" => name.clone()).increment(0);
            for (reason, _) in reasons(&SkipCounts::default()) {
                counter!(SKIPPED, "site" => name.clone(), "reason" => reason).increment(0);
            }
            Reported::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::site::{Naming, SiteMeta, TestKind};
    use metrics_util::debugging::{DebugValue, DebuggingRecorder};
    use metrics_util::MetricKind;

    fn site(name: &'static str, tests: &'static [(&'static str, TestKind)]) -> Site {
        Site::new(SiteMeta {
            name,
            naming: Naming::Fixed,
            file: "meter.rs",
            line: 1,
            tests,
            params: &[],
            rho: None,
            tolerance: None,
            timeout_ms: None,
            self_check: true,
            dedup: false,
            krate: ("", ""),
            pure: false,
            no_worker: "",
        })
    }

    /// A series: its kind, name and labels (sorted).
    type Series = (MetricKind, String, Vec<(String, String)>);

    /// Every series the recorder holds, and its value.
    fn series(recorder: &DebuggingRecorder) -> HashMap<Series, DebugValue> {
        recorder
            .snapshotter()
            .snapshot()
            .into_vec()
            .into_iter()
            .map(|(key, _, _, value)| {
                let (kind, key) = key.into_parts();
                let mut labels: Vec<(String, String)> = key
                    .labels()
                    .map(|l| (l.key().to_string(), l.value().to_string()))
                    .collect();
                labels.sort();
                ((kind, key.name().to_string(), labels), value)
            })
            .collect()
    }

    fn labels(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_test_record_counts_under_its_site_test_and_outcome_and_the_rest_start_at_zero() {
        static TESTS_OF: [(&str, TestKind); 2] = [
            ("f(x) == f(x)", TestKind::Relation),
            ("f(2 * x) == 2 * f(x)", TestKind::Relation),
        ];
        let f = site("app::f", &TESTS_OF);
        let recorder = DebuggingRecorder::new();
        metrics::with_local_recorder(&recorder, || {
            let mut meter = Meter::new();
            meter.describe();
            meter.test(&f, "f(x) == f(x)", Outcome::Pass, 1_500);
            meter.test(&f, "f(x) == f(x)", Outcome::Pass, 2_500);
            meter.test(&f, "f(2 * x) == 2 * f(x)", Outcome::Fail, 250_000);
        });
        let all = series(&recorder);
        let tests = |test: &str, outcome: &str| {
            all.get(&(
                MetricKind::Counter,
                TESTS.to_string(),
                labels(&[("site", "app::f"), ("test", test), ("outcome", outcome)]),
            ))
        };
        assert_eq!(tests("f(x) == f(x)", "pass"), Some(&DebugValue::Counter(2)));
        assert_eq!(
            tests("f(2 * x) == 2 * f(x)", "fail"),
            Some(&DebugValue::Counter(1))
        );
        // Every other (test, outcome) of the site exists, at zero.
        for (test, _) in &TESTS_OF {
            for outcome in Outcome::ALL {
                assert!(tests(test, outcome.as_str()).is_some(), "{test} {outcome}");
            }
        }
        assert_eq!(
            tests("f(x) == f(x)", "error"),
            Some(&DebugValue::Counter(0))
        );
        let counters = all
            .keys()
            .filter(|(kind, name, _)| *kind == MetricKind::Counter && name == TESTS)
            .count();
        assert_eq!(counters, 2 * Outcome::ALL.len());
        let durations = all.get(&(
            MetricKind::Histogram,
            DURATION.to_string(),
            labels(&[("site", "app::f")]),
        ));
        let Some(DebugValue::Histogram(values)) = durations else {
            panic!("no duration histogram: {all:?}");
        };
        let mut seconds: Vec<f64> = values.iter().map(|v| v.into_inner()).collect();
        seconds.sort_by(f64::total_cmp);
        assert_eq!(seconds, [0.0015, 0.0025, 0.25]);
    }

    #[test]
    fn site_counters_are_reported_by_their_rises_so_totals_equal_the_last_reading() {
        let f = site("app::g", &[]);
        let recorder = DebuggingRecorder::new();
        metrics::with_local_recorder(&recorder, || {
            let mut meter = Meter::new();
            meter.describe();
            let mut skips = SkipCounts::default();
            meter.site(&f, 1, &skips);
            skips.overhead = 4;
            skips.dedup = 1;
            meter.site(&f, 7, &skips);
            // The same reading again adds nothing.
            meter.site(&f, 7, &skips);
            skips.overhead = 5;
            meter.site(&f, 10, &skips);
            // A rise of a skip count alone is reported too.
            skips.fork_failed = 2;
            meter.site(&f, 10, &skips);
            meter.overhead(0.0125);
        });
        let all = series(&recorder);
        let get = |kind, name: &str, pairs: &[(&str, &str)]| {
            all.get(&(kind, name.to_string(), labels(pairs)))
        };
        assert_eq!(
            get(MetricKind::Counter, SAMPLED, &[("site", "app::g")]),
            Some(&DebugValue::Counter(10))
        );
        let skipped = |reason| {
            get(
                MetricKind::Counter,
                SKIPPED,
                &[("site", "app::g"), ("reason", reason)],
            )
        };
        assert_eq!(skipped("overhead"), Some(&DebugValue::Counter(5)));
        assert_eq!(skipped("dedup"), Some(&DebugValue::Counter(1)));
        assert_eq!(skipped("fork_failed"), Some(&DebugValue::Counter(2)));
        for reason in ["concurrency", "disabled"] {
            assert_eq!(skipped(reason), Some(&DebugValue::Counter(0)), "{reason}");
        }
        assert_eq!(
            get(MetricKind::Gauge, OVERHEAD, &[]),
            Some(&DebugValue::Gauge(0.0125.into()))
        );
    }

    #[test]
    fn an_untested_site_has_no_series() {
        let idle = site("app::idle", &[("idle(x) == x", TestKind::Relation)]);
        let recorder = DebuggingRecorder::new();
        metrics::with_local_recorder(&recorder, || {
            let mut meter = Meter::new();
            meter.describe();
            meter.site(&idle, 0, &SkipCounts::default());
        });
        assert!(series(&recorder).is_empty());
    }

    #[test]
    fn a_panicking_recorder_turns_the_meter_off_and_is_contained() {
        struct Panicking;
        impl metrics::Recorder for Panicking {
            fn describe_counter(
                &self,
                _: metrics::KeyName,
                _: Option<Unit>,
                _: metrics::SharedString,
            ) {
            }
            fn describe_gauge(
                &self,
                _: metrics::KeyName,
                _: Option<Unit>,
                _: metrics::SharedString,
            ) {
            }
            fn describe_histogram(
                &self,
                _: metrics::KeyName,
                _: Option<Unit>,
                _: metrics::SharedString,
            ) {
            }
            fn register_counter(
                &self,
                _: &metrics::Key,
                _: &metrics::Metadata<'_>,
            ) -> metrics::Counter {
                panic!("a recorder's bug")
            }
            fn register_gauge(
                &self,
                _: &metrics::Key,
                _: &metrics::Metadata<'_>,
            ) -> metrics::Gauge {
                panic!("a recorder's bug")
            }
            fn register_histogram(
                &self,
                _: &metrics::Key,
                _: &metrics::Metadata<'_>,
            ) -> metrics::Histogram {
                panic!("a recorder's bug")
            }
        }
        let f = site("app::h", &[("h(x) == x", TestKind::Relation)]);
        metrics::with_local_recorder(&Panicking, || {
            let mut meter = Meter::new();
            meter.describe();
            assert!(meter.on);
            meter.test(&f, "h(x) == x", Outcome::Pass, 1);
            assert!(!meter.on);
            meter.test(&f, "h(x) == x", Outcome::Pass, 1);
        });
    }
}
