//! Records in, summary out. The [`Summary`] is also the `--format json` schema, so its field
//! names are a contract: add fields, never rename or remove them.
//!
//! Test records are read through a light view that borrows the few fields every record needs;
//! the full record is parsed only for the failures kept for display, so a large log costs one
//! pass of JSON scanning and constant memory per test (see [`Histogram`]).

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use super::histogram::Histogram;
use super::tuning::Tuning;
use invite::record::{Outcome, OutcomeCounts, Record, Seeds, SiteInfo, SkipCounts, Stats};

/// The version of the JSON report schema.
pub const SCHEMA: &str = "invite-report/1";

/// Why a line was not used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineError {
    /// Not a record: truncated, corrupt or not JSON.
    Bad(String),
    /// A well-formed record of a kind this version does not know (written by a newer one).
    UnknownKind(String),
}

#[derive(Clone, Deserialize)]
struct Lite<'a> {
    #[serde(borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    site: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    test: Option<Cow<'a, str>>,
    #[serde(default)]
    outcome: Option<Outcome>,
    #[serde(default)]
    duration_us: Option<u64>,
    #[serde(default)]
    parent_us: Option<u64>,
    #[serde(borrow, default)]
    time: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    host: Option<Cow<'a, str>>,
    #[serde(default)]
    pid: Option<u32>,
    /// An observation's function signature.
    #[serde(borrow, default)]
    signature: Option<Cow<'a, str>>,
}

/// A failure kept for display, with what is needed to reproduce it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    /// When the test ran (RFC 3339).
    pub time: String,
    /// The host it ran on.
    pub host: String,
    /// The process id.
    pub pid: u32,
    /// The run (sampled call) within the process.
    pub run: u64,
    /// How it ended.
    pub outcome: Outcome,
    /// Each input's `Debug` text, by parameter name.
    pub inputs: BTreeMap<String, String>,
    /// Why it failed.
    pub detail: Option<String>,
    /// What replays the call's random streams.
    pub seeds: Seeds,
}

/// Mean, median and 95th percentile, in microseconds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Durations {
    /// Mean.
    pub mean: f64,
    /// Median (from a log-scale histogram).
    pub median: u64,
    /// 95th percentile (from a log-scale histogram).
    pub p95: u64,
}

impl Durations {
    fn of(h: &Histogram) -> Durations {
        Durations {
            mean: h.mean(),
            median: h.quantile(0.5),
            p95: h.quantile(0.95),
        }
    }
}

/// One test of one site: a relation's text or a test function's path.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TestSummary {
    /// The test's text.
    pub test: String,
    /// Records of this test, one per run that included it.
    pub runs: u64,
    /// How its runs ended.
    pub outcomes: OutcomeCounts,
    /// How long it took in the child.
    pub duration_us: Durations,
    /// Failing records (fail, error, timeout, blocked), of which the first few are listed.
    pub failures_total: u64,
    /// The first failures kept, with what reproduces them.
    pub failures: Vec<Failure>,
}

/// Everything known about one site, over all instances.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SiteSummary {
    /// The site's name.
    pub site: String,
    /// Its source file, from `start` records.
    pub file: Option<String>,
    /// The line of its name, from `start` records.
    pub line: Option<u32>,
    /// ρ in force when the log was written (from the last `start` record naming the site).
    pub rho: Option<f64>,
    /// Forked children (runs).
    pub runs: u64,
    /// Test records, all outcomes.
    pub tests: u64,
    /// How its tests ended.
    pub outcomes: OutcomeCounts,
    /// From `stats` records: calls counted, calls sampled and sampled calls skipped by reason.
    pub calls: Option<u64>,
    /// Sampled calls (from `stats` records).
    pub sampled: Option<u64>,
    /// Sampled calls not tested, by reason (from `stats` records).
    pub skipped: SkipCounts,
    /// How long its tests took in the child.
    pub duration_us: Durations,
    /// Mean time a caller lost per run.
    pub parent_us_per_run: Option<f64>,
    /// Calls per second per process, over the instances that reported statistics.
    pub calls_per_sec: Option<f64>,
    /// Tests per second per process.
    pub tests_per_sec: Option<f64>,
    /// Caller time spent starting runs, as a share of wall time.
    pub overhead_share: Option<f64>,
    /// Each of its tests.
    pub per_test: Vec<TestSummary>,
}

/// One process that wrote to the logs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InstanceSummary {
    /// The host name.
    pub host: String,
    /// The process id.
    pub pid: u32,
    /// The executable's path.
    pub exe: String,
    /// Its first record's time.
    pub first: String,
    /// Its last record's time.
    pub last: String,
    /// Seconds between the two.
    pub elapsed_s: f64,
    /// Whether the log holds the instance's `stop` record (a clean exit).
    pub stopped: bool,
}

/// What was read.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct InputSummary {
    /// Files read.
    pub files: u64,
    /// Valid records.
    pub records: u64,
    /// Lines that were not valid records.
    pub bad_lines: u64,
    /// Records of a kind this version does not know (skipped).
    pub unknown_kinds: u64,
    /// Files without a line.
    pub empty_files: u64,
}

/// The outcomes of one minute.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TimeBucket {
    /// `YYYY-MM-DDTHH:MM`, UTC.
    pub minute: String,
    /// The outcomes of the tests that ended in it.
    pub outcomes: OutcomeCounts,
}

/// The report: everything `invite report` prints, and its JSON output.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// The JSON schema's name and version.
    pub schema: String,
    /// What was read.
    pub input: InputSummary,
    /// Each process, by host and pid.
    pub instances: Vec<InstanceSummary>,
    /// Each site, by name.
    pub sites: Vec<SiteSummary>,
    /// Outcomes per minute, in order.
    pub timeline: Vec<TimeBucket>,
    /// Recommended sampling rates, when a target was given.
    pub tuning: Option<Tuning>,
}

#[derive(Default)]
struct TestAgg {
    outcomes: OutcomeCounts,
    durations: Histogram,
    failures_total: u64,
    failures: Vec<Failure>,
}

#[derive(Default)]
struct SiteAgg {
    file: Option<String>,
    line: Option<u32>,
    rho: Option<f64>,
    declared_tests: Option<usize>,
    tests: BTreeMap<String, TestAgg>,
    outcomes: OutcomeCounts,
    durations: Histogram,
    /// Sum of `parent_us` over test records: each run's cost once per test of the run.
    parent_us_over_records: u128,
    records: u64,
}

#[derive(Default)]
struct InstanceAgg {
    exe: String,
    first: String,
    last: String,
    last_stats: Option<Stats>,
    stopped: bool,
}

/// Accumulates records line by line.
pub struct Aggregator {
    keep_failures: usize,
    sites: HashMap<String, SiteAgg>,
    instances: HashMap<(String, u32), InstanceAgg>,
    timeline: BTreeMap<String, OutcomeCounts>,
    /// What has been read so far.
    pub input: InputSummary,
}

impl Aggregator {
    /// An aggregator keeping the first `keep_failures` failures of each test.
    pub fn new(keep_failures: usize) -> Aggregator {
        Aggregator {
            keep_failures,
            sites: HashMap::new(),
            instances: HashMap::new(),
            timeline: BTreeMap::new(),
            input: InputSummary::default(),
        }
    }

    /// Takes one line of a log.
    pub fn add_line(&mut self, bytes: &[u8]) -> Result<(), LineError> {
        let text = std::str::from_utf8(bytes)
            .map_err(|e| LineError::Bad(format!("invalid UTF-8 at byte {}", e.valid_up_to())))?;
        let lite: Lite = serde_json::from_str(text).map_err(|e| {
            let what = if e.is_eof() {
                "truncated record"
            } else {
                "not a JSON record"
            };
            LineError::Bad(format!("{what} ({e})"))
        })?;
        match lite.kind.as_ref() {
            "test" => self.add_test(&lite, text),
            // An observation is a passed run of its site's discovery entry.
            "observation" => {
                let signature = lite.signature.as_deref().unwrap_or("?");
                let test = format!("{}{signature}", invite::__private::DISCOVER_PREFIX);
                let observed = Lite {
                    test: Some(Cow::Owned(test)),
                    outcome: Some(Outcome::Pass),
                    ..lite.clone()
                };
                self.add_test(&observed, text)
            }
            "start" | "site" | "stats" | "stop" => {
                let record = Record::from_line(text)
                    .map_err(|e| LineError::Bad(format!("malformed {} record ({e})", lite.kind)))?;
                self.add_other(record);
                Ok(())
            }
            other => Err(LineError::UnknownKind(other.to_string())),
        }?;
        self.input.records += 1;
        Ok(())
    }

    fn add_test(&mut self, lite: &Lite, text: &str) -> Result<(), LineError> {
        let missing = |f: &str| LineError::Bad(format!("test record without `{f}`"));
        let site = lite.site.as_deref().ok_or_else(|| missing("site"))?;
        let test = lite.test.as_deref().ok_or_else(|| missing("test"))?;
        let outcome = lite.outcome.ok_or_else(|| missing("outcome"))?;
        let duration = lite.duration_us.unwrap_or(0);
        let s = self.sites.entry(site.to_string()).or_default();
        s.records += 1;
        s.outcomes.add(outcome);
        s.durations.add(duration);
        s.parent_us_over_records += lite.parent_us.unwrap_or(0) as u128;
        let t = match s.tests.get_mut(test) {
            Some(t) => t,
            None => s.tests.entry(test.to_string()).or_default(),
        };
        t.outcomes.add(outcome);
        t.durations.add(duration);
        if outcome.is_failure() {
            t.failures_total += 1;
            if t.failures.len() < self.keep_failures {
                if let Ok(Record::Test(full)) = Record::from_line(text) {
                    t.failures.push(Failure {
                        time: full.time,
                        host: full.host,
                        pid: full.pid,
                        run: full.run,
                        outcome: full.outcome,
                        inputs: full.inputs,
                        detail: full.detail,
                        seeds: full.seeds,
                    });
                }
            }
        }
        if let Some(time) = lite.time.as_deref() {
            // `YYYY-MM-DDTHH:MM`; a damaged time with a multi-byte character there is skipped.
            if let Some(minute) = time.get(..16) {
                match self.timeline.get_mut(minute) {
                    Some(c) => c.add(outcome),
                    None => self
                        .timeline
                        .entry(minute.to_string())
                        .or_default()
                        .add(outcome),
                }
            }
            if let (Some(host), Some(pid)) = (lite.host.as_deref(), lite.pid) {
                self.instance(host, pid).seen(time);
            }
        }
        Ok(())
    }

    fn instance(&mut self, host: &str, pid: u32) -> &mut InstanceAgg {
        self.instances.entry((host.to_string(), pid)).or_default()
    }

    fn site_info(&mut self, info: SiteInfo) {
        let site = self.sites.entry(info.name).or_default();
        site.file = Some(info.file);
        site.line = Some(info.line);
        site.rho = Some(info.rho);
        site.declared_tests = Some(info.tests.len());
    }

    fn add_other(&mut self, record: Record) {
        match record {
            Record::Start(s) => {
                let i = self.instance(&s.instance.host, s.instance.pid);
                i.exe = s.instance.exe.clone();
                i.seen(&s.time);
                for info in s.sites {
                    self.site_info(info);
                }
            }
            Record::Site(named) => {
                self.instance(&named.host, named.pid).seen(&named.time);
                self.site_info(named.info);
            }
            Record::Stats(st) => {
                let i = self.instance(&st.host, st.pid);
                i.seen(&st.time);
                // Statistics are cumulative within an instance: the latest one says it all.
                if i.last_stats
                    .as_ref()
                    .is_none_or(|p| p.elapsed_s <= st.elapsed_s)
                {
                    i.last_stats = Some(st);
                }
            }
            Record::Stop(stop) => {
                let i = self.instance(&stop.host, stop.pid);
                i.seen(&stop.time);
                i.stopped = true;
            }
            Record::Test(_) | Record::Observation(_) | Record::Config(_) => {}
        }
    }

    /// The summary of everything read.
    pub fn finish(self) -> Summary {
        let mut instances: Vec<InstanceSummary> = self
            .instances
            .iter()
            .map(|((host, pid), i)| InstanceSummary {
                host: host.clone(),
                pid: *pid,
                exe: i.exe.clone(),
                first: i.first.clone(),
                last: i.last.clone(),
                elapsed_s: i.elapsed_s(),
                stopped: i.stopped,
            })
            .collect();
        instances.sort_by(|a, b| (&a.first, &a.host, a.pid).cmp(&(&b.first, &b.host, b.pid)));
        let total_elapsed: f64 = instances.iter().map(|i| i.elapsed_s).sum();

        let mut sites: Vec<SiteSummary> = self
            .sites
            .into_iter()
            .map(|(name, s)| {
                // Every run writes exactly one record per test of its site.
                let per_run = s.declared_tests.unwrap_or(s.tests.len()).max(1) as u64;
                let runs = s.records.div_ceil(per_run);
                let parent_total_us = s.parent_us_over_records as f64 / per_run as f64;
                let (mut calls, mut sampled, mut skipped, mut stats_elapsed) =
                    (None::<u64>, None::<u64>, SkipCounts::default(), 0.0);
                for i in self.instances.values() {
                    let Some(st) = &i.last_stats else { continue };
                    let Some(ss) = st.sites.iter().find(|x| x.site == name) else {
                        continue;
                    };
                    *calls.get_or_insert(0) += ss.calls;
                    *sampled.get_or_insert(0) += ss.sampled;
                    skipped.merge(&ss.skipped);
                    stats_elapsed += st.elapsed_s;
                }
                let per_test = s
                    .tests
                    .into_iter()
                    .map(|(test, t)| TestSummary {
                        test,
                        runs: t.outcomes.total(),
                        outcomes: t.outcomes,
                        duration_us: Durations::of(&t.durations),
                        failures_total: t.failures_total,
                        failures: t.failures,
                    })
                    .collect();
                let positive = |x: f64| (x > 0.0).then_some(x);
                SiteSummary {
                    site: name,
                    file: s.file,
                    line: s.line,
                    rho: s.rho,
                    runs,
                    tests: s.records,
                    outcomes: s.outcomes,
                    calls,
                    sampled,
                    skipped,
                    duration_us: Durations::of(&s.durations),
                    parent_us_per_run: (runs > 0).then(|| parent_total_us / runs as f64),
                    calls_per_sec: calls
                        .and_then(|c| positive(stats_elapsed).map(|e| c as f64 / e)),
                    tests_per_sec: positive(total_elapsed).map(|e| s.records as f64 / e),
                    overhead_share: positive(total_elapsed).map(|e| parent_total_us / 1e6 / e),
                    per_test,
                }
            })
            .collect();
        sites.sort_by(|a, b| a.site.cmp(&b.site));
        Summary {
            schema: SCHEMA.to_string(),
            input: self.input,
            instances,
            sites,
            timeline: self
                .timeline
                .into_iter()
                .map(|(minute, outcomes)| TimeBucket { minute, outcomes })
                .collect(),
            tuning: None,
        }
    }
}

impl InstanceAgg {
    fn seen(&mut self, time: &str) {
        // RFC 3339 UTC times of one format order as strings.
        if self.first.is_empty() || time < self.first.as_str() {
            self.first = time.to_string();
        }
        if time > self.last.as_str() {
            self.last = time.to_string();
        }
    }

    fn elapsed_s(&self) -> f64 {
        if let Some(st) = &self.last_stats {
            return st.elapsed_s;
        }
        let parse = |t: &str| humantime::parse_rfc3339(t).ok();
        match (parse(&self.first), parse(&self.last)) {
            (Some(a), Some(b)) => b.duration_since(a).map_or(0.0, |d| d.as_secs_f64()),
            _ => 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_observation_counts_as_a_passed_run_of_its_discovery_entry() {
        let mut agg = Aggregator::new(3);
        let line = r#"{"kind":"observation","v":1,"time":"2026-01-01T00:00:01Z","host":"h","pid":7,"site":"app::f","signature":"fn f(x: f64) -> f64","run":1,"duration_us":40,"seeds":{"rng_seed":"00","rng_stream":0,"rng_word_pos":0,"test_seed":0},"observation":{}}"#;
        agg.add_line(line.as_bytes()).unwrap();
        let summary = agg.finish();
        let site = &summary.sites[0];
        assert_eq!(site.site, "app::f");
        assert_eq!(site.tests, 1);
        assert_eq!(site.outcomes.pass, 1);
        let entry = &site.per_test[0];
        assert_eq!(entry.test, "discover fn f(x: f64) -> f64");
        assert_eq!((entry.runs, entry.outcomes.pass), (1, 1));
        assert_eq!(entry.failures_total, 0);
    }

    #[test]
    fn a_site_named_after_start_up_has_its_place_and_rate_from_its_site_record() {
        let mut agg = Aggregator::new(3);
        let site = r#"{"kind":"site","v":1,"time":"2026-01-01T00:00:02Z","host":"h","pid":7,"info":{"name":"<app::Range<f64> as Width>::width","file":"w.rs","line":9,"rho":0.5,"tests":["a","b"],"params":[]}}"#;
        agg.add_line(site.as_bytes()).unwrap();
        let summary = agg.finish();
        let s = &summary.sites[0];
        assert_eq!(s.site, "<app::Range<f64> as Width>::width");
        assert_eq!(
            (s.file.as_deref(), s.line, s.rho),
            (Some("w.rs"), Some(9), Some(0.5))
        );
        assert_eq!(summary.instances.len(), 1, "the record's instance is seen");
    }

    /// A `stats` record of instance 7 for the site `app::f`.
    fn stats_line(elapsed_s: f64, calls: u64) -> String {
        format!(
            r#"{{"kind":"stats","v":1,"time":"2026-01-01T00:00:0{}Z","host":"h","pid":7,"elapsed_s":{elapsed_s:?},"final":false,"sites":[{{"site":"app::f","rho":1.0,"calls":{calls},"sampled":0,"skipped":{{"concurrency":0,"overhead":0,"disabled":0,"fork_failed":0,"dedup":0}},"runs":0,"tests":0,"outcomes":{{"pass":0,"fail":0,"error":0,"timeout":0,"inconclusive":0,"blocked":0,"skipped":0}},"mean_test_us":0.0,"mean_parent_us":0.0,"tests_per_sec":0.0,"overhead_share":0.0,"run_share":0.0}}],"cow_faults":0,"cow_share":0.0,"children_share":0.0,"resident_mib":7.5,"log_errors":0,"log_lost":0}}"#,
            elapsed_s as u64 % 10
        )
    }

    /// The site's summary from instance 7's `start` record and `lines`.
    fn summary_of(lines: &[String]) -> Summary {
        let mut agg = Aggregator::new(3);
        let start = r#"{"kind":"start","v":1,"time":"2026-01-01T00:00:00Z","instance":{"host":"h","pid":7,"exe":"app"},"config_file":"invite.toml","config":{},"sites":[{"name":"app::f","file":"f.rs","line":1,"rho":1.0,"tests":[]}]}"#;
        agg.add_line(start.as_bytes()).unwrap();
        for l in lines {
            agg.add_line(l.as_bytes()).unwrap();
        }
        agg.finish()
    }

    #[test]
    fn the_latest_stats_of_an_instance_count_and_rates_need_time_and_runs() {
        // Statistics are cumulative: the one with the most elapsed time says it all, in
        // whatever order the lines come.
        for lines in [
            [stats_line(5.0, 100), stats_line(9.0, 300)],
            [stats_line(9.0, 300), stats_line(5.0, 100)],
        ] {
            let site = summary_of(&lines).sites.remove(0);
            assert_eq!(site.calls, Some(300), "{site:?}");
            assert_eq!(site.calls_per_sec, Some(300.0 / 9.0), "{site:?}");
            // No test record: no run, so no cost per run.
            assert_eq!(site.runs, 0);
            assert_eq!(site.parent_us_per_run, None);
        }
        // No time elapsed: no rate (not an infinite one).
        let site = summary_of(&[stats_line(0.0, 100)]).sites.remove(0);
        assert_eq!(site.calls, Some(100));
        assert_eq!(site.calls_per_sec, None, "{site:?}");
    }

    #[test]
    fn an_instance_without_stats_spans_its_earliest_to_its_latest_record() {
        let mut i = InstanceAgg::default();
        for t in [
            "2026-01-01T00:00:05Z",
            "2026-01-01T00:00:01Z",
            "2026-01-01T00:00:09Z",
            "2026-01-01T00:00:03Z",
        ] {
            i.seen(t);
        }
        assert_eq!(
            (i.first.as_str(), i.last.as_str()),
            ("2026-01-01T00:00:01Z", "2026-01-01T00:00:09Z")
        );
        assert_eq!(i.elapsed_s(), 8.0);
        let mut unreadable = InstanceAgg::default();
        unreadable.seen("yesterday");
        assert_eq!(unreadable.elapsed_s(), 0.0);
    }
}
