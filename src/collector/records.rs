//! What the collector writes: a test's or an observation's record, each site's tally for the
//! stats records, the failure line and hook, and the pending lines flushed to the log.

use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

use super::notices::fork_failure_notice;
use super::{LiveRun, State};
use crate::config::OnFailure;
use crate::diag::{self, Level};
use crate::record::{self, Instance, Outcome, OutcomeCounts, Record, SiteStats};
use crate::site::{self, Site};
#[cfg(feature = "discover")]
use crate::{record::DISCOVER_PREFIX, site::TestKind};

/// A site's finished tests, for its stats records.
#[derive(Default)]
pub(super) struct Tally {
    tests: u64,
    outcomes: OutcomeCounts,
    test_us: u64,
}

/// `part` as a share of `whole` (0 when `whole` is).
fn share(part: u64, whole: u64) -> f64 {
    if whole > 0 {
        part as f64 / whole as f64
    } else {
        0.0
    }
}

impl State {
    /// Counts one finished test of `site` in its statistics.
    fn tally(&mut self, site: &'static Site, outcome: Outcome, duration_us: u64) {
        let tally = self.tallies.entry(site.key()).or_default();
        tally.tests += 1;
        tally.outcomes.add(outcome);
        tally.test_us += duration_us;
    }

    pub(super) fn emit(&mut self, site: &'static Site, t: record::Test) {
        self.tally(site, t.outcome, t.duration_us);
        let failing = t.outcome.is_failure();
        crate::outcomes::add(&t);
        crate::checking::deliver(&t);
        self.push(&Record::Test(t.clone()));
        #[cfg(feature = "metrics")]
        self.meter.test(site, &t.test, t.outcome, t.duration_us);
        #[cfg(feature = "tracing")]
        if self.config.tracing {
            // The program's subscriber runs here, on the collector thread; it must not take the
            // thread with it.
            let _ = std::panic::catch_unwind(|| trace_record(&t));
        }
        if failing {
            self.on_failure(&t);
        }
    }

    /// An observation counts as a passed test of its site (it is one run of the site's entry)
    /// but is logged as what it is.
    #[cfg(feature = "discover")]
    pub(super) fn emit_observation(&mut self, site: &'static Site, o: record::Observation) {
        self.tally(site, Outcome::Pass, o.duration_us);
        self.push(&Record::Observation(o));
    }

    fn on_failure(&mut self, t: &record::Test) {
        // The hook runs in every mode (before an abort, so that it can record the failure its
        // own way); a panicking hook is contained here.
        let hook = crate::outcomes::failure_hook();
        if let Some(hook) = hook {
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| hook(t)));
        }
        match self.config.on_failure {
            OnFailure::Log => {}
            OnFailure::Notify => diag::say(Level::Error, "failure", || failure_line(t)),
            OnFailure::Abort => {
                self.flush();
                diag::say(Level::Error, "abort", || {
                    format!(
                        "{}; on_failure = \"abort\": aborting the program",
                        failure_line(t)
                    )
                });
                std::process::abort();
            }
        }
    }

    pub(super) fn push(&mut self, r: &Record) {
        self.pending.extend_from_slice(r.to_line().as_bytes());
        self.pending.push(b'\n');
    }

    pub(super) fn flush(&mut self) {
        self.sink.write_lines(&mut self.pending);
    }

    pub(super) fn write_stats(&mut self, is_final: bool) {
        self.last_stats = Instant::now();
        let elapsed = self.started.elapsed().as_secs_f64().max(1e-9);
        let all_runs: u64 = site::all().map(|s| s.runs.load(Relaxed)).sum();
        let sites = site::all()
            // The sites on now, and those sampled while on and off now (a fleet's pair dealt
            // elsewhere, a reload): their counts are the metrics' too, and the totals must
            // agree. A site that ran was sampled first.
            .filter(|s| s.rho() > 0.0 || s.sampled.load(Relaxed) > 0)
            .map(|s| {
                let tally = self.tallies.get(&s.key());
                let runs = s.runs.load(Relaxed);
                let parent_ns = s.parent_ns.load(Relaxed);
                let wait_ns = s.wait_ns.load(Relaxed);
                let (tests, outcomes, test_us) = tally
                    .map_or((0, OutcomeCounts::default(), 0), |t| {
                        (t.tests, t.outcomes.clone(), t.test_us)
                    });
                let sampled = s.sampled.load(Relaxed);
                let skipped = s.skips();
                // From the record's own readings, so that the final record and the metrics
                // agree even if a call is counted while the record is made.
                #[cfg(feature = "metrics")]
                self.meter.site(s, sampled, &skipped);
                SiteStats {
                    site: s.name().to_string(),
                    rho: s.rho(),
                    calls: s.calls.load(Relaxed).max(sampled),
                    sampled,
                    skipped,
                    runs,
                    tests,
                    outcomes,
                    mean_test_us: if tests > 0 {
                        test_us as f64 / tests as f64
                    } else {
                        0.0
                    },
                    mean_parent_us: if runs > 0 {
                        parent_ns as f64 / runs as f64 / 1e3
                    } else {
                        0.0
                    },
                    wait_us: wait_ns / 1000,
                    mean_wait_us: if sampled > 0 {
                        wait_ns as f64 / sampled as f64 / 1e3
                    } else {
                        0.0
                    },
                    tests_per_sec: tests as f64 / elapsed,
                    overhead_share: (parent_ns + wait_ns) as f64 / 1e9 / elapsed,
                    run_share: share(runs, all_runs),
                }
            })
            .collect::<Vec<SiteStats>>();
        #[cfg(feature = "metrics")]
        self.meter
            .overhead(sites.iter().map(|s| s.overhead_share).sum());
        let failed: u64 = sites.iter().map(|s| s.skipped.fork_failed).sum();
        let stats = Record::Stats(record::Stats {
            v: record::VERSION,
            time: record::now(),
            host: self.instance.host.clone(),
            pid: self.instance.pid,
            instance: self.instance.id.clone(),
            service: self.instance.service.clone(),
            version: self.instance.version.clone(),
            elapsed_s: elapsed,
            is_final,
            sites,
            cow_faults: self.cow_faults,
            cow_share: self.cow_ns as f64 / 1e9 / elapsed,
            children_share: self.children_ns as f64 / 1e9 / elapsed,
            resident_mib: invite_sandbox::usage::resident_mib(),
            log_errors: self.sink.errors,
            log_lost: self.sink.lost,
        });
        self.push(&stats);
        // From the record just written, so that the warning and the record agree; the count
        // advances only when the warning passed the rate limit, so none is lost.
        if failed > self.fork_failures_said {
            let new = failed - self.fork_failures_said;
            if diag::say_if_admitted(Level::Warn, "fork failed", || {
                fork_failure_notice(new, failed)
            }) {
                self.fork_failures_said = failed;
            }
        }
    }
}

impl State {
    /// Brings the metrics of the sites' counters up to date, at most once a [`super::TICK`]:
    /// a scrape at any time sees what the log's next `stats` record will say.
    #[cfg(feature = "metrics")]
    pub(super) fn meter_sites(&mut self) {
        if self.last_meter.elapsed() < super::TICK {
            return;
        }
        self.last_meter = Instant::now();
        let mut parent_ns = 0;
        for s in site::all() {
            parent_ns += s.parent_ns.load(Relaxed) + s.wait_ns.load(Relaxed);
            self.meter.site(s, s.sampled.load(Relaxed), &s.skips());
        }
        // As `write_stats` computes it: the sum of the sites' `overhead_share`.
        let elapsed = self.started.elapsed().as_secs_f64().max(1e-9);
        self.meter.overhead(parent_ns as f64 / 1e9 / elapsed);
    }
}

/// One test record as a `tracing` event, for programs whose telemetry runs through `tracing`:
/// the exact record as one field (`invite.record`, which `invite report` reads back from
/// whatever the subscriber ships to), flat fields to filter and group on, and for a failure a
/// `fingerprint` that is the same in every instance meeting the same failure, at `ERROR`.
#[cfg(feature = "tracing")]
fn trace_record(t: &record::Test) {
    let line = Record::Test(t.clone()).to_line();
    let fingerprint = record::fingerprint(&t.site, &t.test, t.outcome);
    macro_rules! event {
        ($level:expr) => {
            tracing::event!(
                target: "invite::record",
                $level,
                { "invite.record" } = %line,
                site = %t.site,
                test = %t.test,
                outcome = %t.outcome,
                fingerprint = %fingerprint,
                instance = %t.instance,
                service = %t.service,
                version = %t.version,
                run = t.run,
                duration_us = t.duration_us,
                "{} in {}: {}",
                t.outcome,
                t.site,
                t.test
            )
        };
    }
    if t.outcome.is_failure() {
        event!(tracing::Level::ERROR);
    } else {
        event!(tracing::Level::DEBUG);
    }
}

/// The stderr line naming a failing test (`notify` and `abort`).
fn failure_line(t: &record::Test) -> String {
    let detail = t
        .detail
        .as_deref()
        .map(|d| format!(" ({d})"))
        .unwrap_or_default();
    format!("{} in {}: {}{detail}", t.outcome, t.site, t.test)
}

/// The record of a discovery entry that observed its call; `None` for any other test, and for a
/// discovery that did not observe (blocked, timed out, failed), which is logged as a test.
#[cfg(feature = "discover")]
pub(super) fn observation_record(
    run: &LiveRun,
    instance: &Instance,
    index: usize,
    outcome: Outcome,
    duration_us: u64,
    detail: &Option<String>,
) -> Option<record::Observation> {
    let (text, kind) = run.h.site.meta.tests.get(index)?;
    if *kind != TestKind::Discover || outcome != Outcome::Pass {
        return None;
    }
    let mut observation: crate::discover::Observation =
        serde_json::from_str(detail.as_deref()?).ok()?;
    // A receiver's fields observed as parameters: the signature they were observed under.
    let signature = observation.signature.take().unwrap_or_else(|| {
        text.strip_prefix(DISCOVER_PREFIX)
            .unwrap_or(text)
            .to_string()
    });
    Some(record::Observation {
        v: record::VERSION,
        time: run.time.clone(),
        host: instance.host.clone(),
        pid: instance.pid,
        instance: instance.id.clone(),
        service: instance.service.clone(),
        version: instance.version.clone(),
        site: run.h.site.name().to_string(),
        signature,
        run: run.h.run,
        duration_us,
        seeds: run.seeds.clone(),
        observation,
    })
}

/// What a test's record says of the call it tested: a forked run's, or a call the worker of
/// pure sites tested.
pub(super) struct About<'a> {
    pub site: &'static Site,
    pub run: u64,
    pub time: &'a str,
    pub seeds: &'a record::Seeds,
    pub parent_ns: u64,
    pub inputs: &'a std::collections::BTreeMap<String, String>,
}

impl LiveRun {
    pub(super) fn about(&self) -> About<'_> {
        About {
            site: self.h.site,
            run: self.h.run,
            time: &self.time,
            seeds: &self.seeds,
            parent_ns: self.h.parent_ns,
            inputs: &self.inputs,
        }
    }
}

pub(super) fn test_record(
    run: &About<'_>,
    instance: &Instance,
    index: usize,
    outcome: Outcome,
    duration_us: u64,
    detail: Option<String>,
) -> record::Test {
    let (inputs, exact) = record::Exact::split(run.inputs);
    record::Test {
        v: record::VERSION,
        time: run.time.to_string(),
        host: instance.host.clone(),
        pid: instance.pid,
        instance: instance.id.clone(),
        service: instance.service.clone(),
        version: instance.version.clone(),
        site: run.site.name().to_string(),
        test: run.site.meta.tests[index].0.to_string(),
        run: run.run,
        outcome,
        parent_us: run.parent_ns / 1000,
        duration_us,
        inputs,
        exact,
        detail,
        seeds: run.seeds.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_share_of_nothing_is_zero() {
        assert_eq!(share(0, 0), 0.0);
        assert_eq!(share(1, 4), 0.25);
        assert_eq!(share(4, 4), 1.0);
    }
}
