//! Records in, summary out. The [`Summary`] is also the `--format json` schema, so its field
//! names are a contract: add fields, never rename or remove them.
//!
//! Test records are read through a light view that borrows the few fields every record needs;
//! the full record is parsed only for the failures kept for display, so a large log costs one
//! pass of JSON scanning and constant memory per test (see [`Histogram`]).

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};

use super::histogram::Histogram;
use super::tuning::Tuning;
#[cfg(doc)]
use invite::record::Instance;
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

/// A record's `instance`: a name in every record but `start`, where it is an object (whose
/// name [`Instance::name`] gives), which this view skips.
#[derive(Clone, Default)]
struct Named<'a>(Option<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for Named<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Named<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an instance's name or object")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Named<'de>, E> {
                Ok(Named(Some(Cow::Borrowed(v))))
            }
            fn visit_str<E>(self, v: &str) -> Result<Named<'de>, E> {
                Ok(Named(Some(Cow::Owned(v.to_string()))))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<Named<'de>, A::Error> {
                while m.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Named(None))
            }
            fn visit_unit<E>(self) -> Result<Named<'de>, E> {
                Ok(Named(None))
            }
        }
        d.deserialize_any(V)
    }
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
    #[serde(borrow, default)]
    instance: Named<'a>,
    #[serde(borrow, default)]
    service: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    version: Option<Cow<'a, str>>,
    /// An observation's function signature.
    #[serde(borrow, default)]
    signature: Option<Cow<'a, str>>,
}

/// A failure kept for display, with what is needed to reproduce it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    /// When the test ran (RFC 3339).
    pub time: String,
    /// The instance that ran it (see [`InstanceSummary::instance`]).
    #[serde(default)]
    pub instance: String,
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

impl Failure {
    /// The order failures are kept in: the earliest first, then every field, so that which
    /// are kept does not depend on the order records are read in.
    fn order(&self, other: &Failure) -> std::cmp::Ordering {
        fn seeds(f: &Failure) -> (&str, u64, u64, u64) {
            let s = &f.seeds;
            (&s.rng_seed, s.rng_stream, s.rng_word_pos, s.test_seed)
        }
        (&self.time, &self.instance, &self.host, self.pid, self.run)
            .cmp(&(
                &other.time,
                &other.instance,
                &other.host,
                other.pid,
                other.run,
            ))
            .then_with(|| self.outcome.cmp(&other.outcome))
            .then_with(|| self.inputs.cmp(&other.inputs))
            .then_with(|| self.detail.cmp(&other.detail))
            .then_with(|| seeds(self).cmp(&seeds(other)))
    }
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
    /// Caller time spent starting runs and waiting in line for the caps (`when_busy =
    /// "wait"`), as a share of wall time.
    pub overhead_share: Option<f64>,
    /// The waiting alone, as a share of wall time (from `stats` records).
    #[serde(default)]
    pub wait_share: Option<f64>,
    /// Each of its tests.
    pub per_test: Vec<TestSummary>,
}

/// One process that wrote to the logs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InstanceSummary {
    /// Its name in the fleet: the records' `instance`, or `host-pid` in logs of older versions.
    #[serde(default)]
    pub instance: String,
    /// The service it runs; empty when the logs do not say.
    #[serde(default)]
    pub service: String,
    /// The service's version; empty when the logs do not say.
    #[serde(default)]
    pub version: String,
    /// Its share of the fleet's testing (`K/N`), from its latest `start` or `config` record.
    #[serde(default)]
    pub shard: Option<String>,
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
    /// Its test records.
    #[serde(default)]
    pub tests: u64,
    /// How they ended.
    #[serde(default)]
    pub outcomes: OutcomeCounts,
    /// Its caller time spent starting runs and waiting for the caps, as a share of its wall
    /// time.
    #[serde(default)]
    pub overhead_share: Option<f64>,
}

/// One kind of failure (a site, a test, an outcome) over every instance that met it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FleetFailure {
    /// Its fingerprint (`invite::record::fingerprint`), as error trackers group it.
    pub fingerprint: String,
    /// The site.
    pub site: String,
    /// The test.
    pub test: String,
    /// The outcome.
    pub outcome: Outcome,
    /// Failing records.
    pub failures: u64,
    /// Instances that met it.
    pub instances: u64,
    /// The first failure's time.
    pub first: String,
    /// The last failure's time.
    pub last: String,
    /// The versions it was met in, sorted; records of older versions name none.
    pub versions: Vec<String>,
}

/// The instances of one version of one service.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VersionSummary {
    /// The service; empty when the logs do not say.
    pub service: String,
    /// The version; empty when the logs do not say.
    pub version: String,
    /// Its instances.
    pub instances: u64,
    /// Their test records.
    pub tests: u64,
    /// How they ended.
    pub outcomes: OutcomeCounts,
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
    /// The program's other log lines, shipped with the records (in Docker, Loki or
    /// OpenTelemetry envelopes) and skipped.
    #[serde(default)]
    pub other_lines: u64,
    /// Compressed files that could not be read to their end (not compressed as named, or
    /// truncated); their lines before the damage are counted.
    #[serde(default)]
    pub damaged_files: u64,
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
    /// Each process, by first record and name.
    pub instances: Vec<InstanceSummary>,
    /// Each site, by name.
    pub sites: Vec<SiteSummary>,
    /// Each kind of failure over the instances that met it: the most widespread first.
    #[serde(default)]
    pub fleet_failures: Vec<FleetFailure>,
    /// Each version of each service, by service and version.
    #[serde(default)]
    pub versions: Vec<VersionSummary>,
    /// Outcomes per minute, in order.
    pub timeline: Vec<TimeBucket>,
    /// Recommended sampling rates, when a target was given.
    pub tuning: Option<Tuning>,
}

/// How far one kind of failure spread.
#[derive(Clone, Default)]
struct Spread {
    failures: u64,
    instances: BTreeSet<String>,
    first: String,
    last: String,
    versions: BTreeSet<String>,
}

impl Spread {
    fn merge(&mut self, other: Spread) {
        self.failures += other.failures;
        self.instances.extend(other.instances);
        self.versions.extend(other.versions);
        earliest(&mut self.first, &other.first);
        latest(&mut self.last, &other.last);
    }
}

/// Keeps the earlier of two RFC 3339 times (which order as strings); an empty one is unknown.
fn earliest(kept: &mut String, time: &str) {
    if !time.is_empty() && (kept.is_empty() || time < kept.as_str()) {
        *kept = time.to_string();
    }
}

/// Keeps the later of two times.
fn latest(kept: &mut String, time: &str) {
    if time > kept.as_str() {
        *kept = time.to_string();
    }
}

#[derive(Default)]
struct TestAgg {
    outcomes: OutcomeCounts,
    durations: Histogram,
    failures_total: u64,
    /// The earliest failures, in [`Failure::order`].
    failures: Vec<Failure>,
    /// Each failing outcome's spread over the fleet.
    spread: BTreeMap<Outcome, Spread>,
}

impl TestAgg {
    fn merge(&mut self, other: TestAgg, keep: usize) {
        self.outcomes.merge(&other.outcomes);
        self.durations.merge(&other.durations);
        self.failures_total += other.failures_total;
        self.failures.extend(other.failures);
        self.failures.sort_by(|a, b| a.order(b));
        self.failures.truncate(keep);
        for (o, s) in other.spread {
            self.spread.entry(o).or_default().merge(s);
        }
    }
}

/// What a `start` or `site` record says of a site, and which record said it.
#[derive(Clone)]
struct Described {
    /// The record's time and instance: the latest record's description wins.
    by: (String, String),
    file: String,
    line: u32,
    rho: f64,
    tests: usize,
}

#[derive(Default)]
struct SiteAgg {
    described: Option<Described>,
    tests: BTreeMap<String, TestAgg>,
    outcomes: OutcomeCounts,
    durations: Histogram,
    /// Sum of `parent_us` over test records: each run's cost once per test of the run.
    parent_us_over_records: u128,
    records: u64,
}

impl SiteAgg {
    fn describe(&mut self, d: Described) {
        if self.described.as_ref().is_none_or(|old| d.by > old.by) {
            self.described = Some(d);
        }
    }

    fn merge(&mut self, other: SiteAgg, keep: usize) {
        if let Some(d) = other.described {
            self.describe(d);
        }
        for (name, t) in other.tests {
            match self.tests.get_mut(&name) {
                Some(mine) => mine.merge(t, keep),
                None => {
                    self.tests.insert(name, t);
                }
            }
        }
        self.outcomes.merge(&other.outcomes);
        self.durations.merge(&other.durations);
        self.parent_us_over_records += other.parent_us_over_records;
        self.records += other.records;
    }
}

#[derive(Default)]
struct InstanceAgg {
    host: String,
    pid: u32,
    service: String,
    version: String,
    /// The latest `start` or `config` record's time and the shard it names.
    shard: Option<(String, String)>,
    /// The latest `start` record's time and executable.
    exe: Option<(String, String)>,
    first: String,
    last: String,
    last_stats: Option<Stats>,
    stopped: bool,
    outcomes: OutcomeCounts,
    /// `parent_us` summed over test records, per site.
    parent_us: HashMap<String, u128>,
}

/// Whether statistics `new` say more than `old`: they are cumulative, so the latest does.
fn later_stats(new: &Stats, old: &Stats) -> bool {
    new.elapsed_s
        .total_cmp(&old.elapsed_s)
        .then_with(|| new.time.cmp(&old.time))
        .then_with(|| new.is_final.cmp(&old.is_final))
        .is_gt()
}

impl InstanceAgg {
    fn seen(&mut self, time: &str) {
        // RFC 3339 UTC times of one format order as strings.
        earliest(&mut self.first, time);
        latest(&mut self.last, time);
    }

    /// Takes what a record says of its instance; a record of an older version says nothing.
    fn named(&mut self, host: &str, pid: u32, service: &str, version: &str) {
        if self.host.is_empty() || (host, pid) < (self.host.as_str(), self.pid) {
            self.host = host.to_string();
            self.pid = pid;
        }
        // One process runs one service and version; of records that disagree, the same one
        // is kept whatever their order.
        if service > self.service.as_str() {
            self.service = service.to_string();
        }
        if version > self.version.as_str() {
            self.version = version.to_string();
        }
    }

    fn sharded(&mut self, time: &str, shard: Option<&str>) {
        if let Some(shard) = shard {
            let new = (time.to_string(), shard.to_string());
            if self.shard.as_ref().is_none_or(|old| new > *old) {
                self.shard = Some(new);
            }
        }
    }

    fn stats(&mut self, st: Stats) {
        if self
            .last_stats
            .as_ref()
            .is_none_or(|old| later_stats(&st, old))
        {
            self.last_stats = Some(st);
        }
    }

    fn merge(&mut self, other: InstanceAgg) {
        if !other.host.is_empty() {
            self.named(&other.host, other.pid, &other.service, &other.version);
        }
        if let Some((time, shard)) = &other.shard {
            self.sharded(time, Some(shard));
        }
        if let Some(exe) = other.exe {
            if self.exe.as_ref().is_none_or(|old| exe > *old) {
                self.exe = Some(exe);
            }
        }
        earliest(&mut self.first, &other.first);
        latest(&mut self.last, &other.last);
        if let Some(st) = other.last_stats {
            self.stats(st);
        }
        self.stopped |= other.stopped;
        self.outcomes.merge(&other.outcomes);
        for (site, us) in other.parent_us {
            *self.parent_us.entry(site).or_default() += us;
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

/// Accumulates records line by line. Aggregators of parts of the logs merge into the
/// aggregator of the whole, whatever the parts and the order of their lines.
pub struct Aggregator {
    keep_failures: usize,
    sites: HashMap<String, SiteAgg>,
    instances: HashMap<String, InstanceAgg>,
    timeline: BTreeMap<String, OutcomeCounts>,
    /// `host-pid`, made here for records of older versions without allocating each time.
    scratch: String,
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
            scratch: String::new(),
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
                let test = format!("{}{signature}", invite::record::DISCOVER_PREFIX);
                let observed = Lite {
                    test: Some(Cow::Owned(test)),
                    outcome: Some(Outcome::Pass),
                    ..lite.clone()
                };
                self.add_test(&observed, text)
            }
            "start" | "site" | "stats" | "stop" | "config" => {
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

    /// The name of a record's instance: its `instance`, else `host-pid` as
    /// [`Instance::name`] gives it for logs of older versions.
    fn name_of<'a>(scratch: &'a mut String, instance: &'a str, host: &str, pid: u32) -> &'a str {
        if !instance.is_empty() {
            return instance;
        }
        use std::fmt::Write as _;
        scratch.clear();
        let _ = write!(scratch, "{host}-{pid}");
        scratch
    }

    fn add_test(&mut self, lite: &Lite, text: &str) -> Result<(), LineError> {
        let missing = |f: &str| LineError::Bad(format!("test record without `{f}`"));
        let site = lite.site.as_deref().ok_or_else(|| missing("site"))?;
        let test = lite.test.as_deref().ok_or_else(|| missing("test"))?;
        let outcome = lite.outcome.ok_or_else(|| missing("outcome"))?;
        let duration = lite.duration_us.unwrap_or(0);
        let parent_us = lite.parent_us.unwrap_or(0);
        let time = lite.time.as_deref();
        let (host, pid) = (lite.host.as_deref().unwrap_or(""), lite.pid.unwrap_or(0));
        let instance = lite.instance.0.as_deref().unwrap_or("");
        let version = lite.version.as_deref().unwrap_or("");
        let name = Self::name_of(&mut self.scratch, instance, host, pid);
        let keep = self.keep_failures;

        let s = match self.sites.get_mut(site) {
            Some(s) => s,
            None => self.sites.entry(site.to_string()).or_default(),
        };
        s.records += 1;
        s.outcomes.add(outcome);
        s.durations.add(duration);
        s.parent_us_over_records += parent_us as u128;
        let t = match s.tests.get_mut(test) {
            Some(t) => t,
            None => s.tests.entry(test.to_string()).or_default(),
        };
        t.outcomes.add(outcome);
        t.durations.add(duration);
        if outcome.is_failure() {
            t.failures_total += 1;
            let spread = t.spread.entry(outcome).or_default();
            spread.failures += 1;
            if !spread.instances.contains(name) {
                spread.instances.insert(name.to_string());
            }
            if !version.is_empty() && !spread.versions.contains(version) {
                spread.versions.insert(version.to_string());
            }
            if let Some(time) = time {
                earliest(&mut spread.first, time);
                latest(&mut spread.last, time);
            }
            keep_failure(&mut t.failures, keep, time.unwrap_or(""), || {
                let Ok(Record::Test(full)) = Record::from_line(text) else {
                    return None;
                };
                Some(Failure {
                    instance: name.to_string(),
                    time: full.time,
                    host: full.host,
                    pid: full.pid,
                    run: full.run,
                    outcome: full.outcome,
                    inputs: full.inputs,
                    detail: full.detail,
                    seeds: full.seeds,
                })
            });
        }
        if let Some(time) = time {
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
        }
        if lite.host.is_some() || !instance.is_empty() {
            let i = match self.instances.get_mut(name) {
                Some(i) => i,
                None => self.instances.entry(name.to_string()).or_default(),
            };
            if let Some(time) = time {
                i.seen(time);
            }
            let service = lite.service.as_deref().unwrap_or("");
            if i.host.is_empty() || service > i.service.as_str() || version > i.version.as_str() {
                i.named(host, pid, service, version);
            }
            i.outcomes.add(outcome);
            match i.parent_us.get_mut(site) {
                Some(us) => *us += parent_us as u128,
                None => {
                    i.parent_us.insert(site.to_string(), parent_us as u128);
                }
            }
        }
        Ok(())
    }

    fn instance(&mut self, instance: &str, host: &str, pid: u32) -> &mut InstanceAgg {
        let name = Self::name_of(&mut self.scratch, instance, host, pid).to_string();
        self.instances.entry(name).or_default()
    }

    fn site_info(&mut self, info: SiteInfo, time: &str, instance: &str) {
        self.sites
            .entry(info.name)
            .or_default()
            .describe(Described {
                by: (time.to_string(), instance.to_string()),
                file: info.file,
                line: info.line,
                rho: info.rho,
                tests: info.tests.len(),
            });
    }

    fn add_other(&mut self, record: Record) {
        match record {
            Record::Start(s) => {
                let name = s.instance.name();
                let i = self.instances.entry(name.clone()).or_default();
                let who = &s.instance;
                i.named(&who.host, who.pid, &who.service, &who.version);
                let exe = (s.time.clone(), who.exe.clone());
                if i.exe.as_ref().is_none_or(|old| exe > *old) {
                    i.exe = Some(exe);
                }
                i.sharded(&s.time, s.shard.as_deref());
                i.seen(&s.time);
                for info in s.sites {
                    self.site_info(info, &s.time, &name);
                }
            }
            Record::Site(named) => {
                let i = self.instance(&named.instance, &named.host, named.pid);
                i.named(&named.host, named.pid, &named.service, &named.version);
                i.seen(&named.time);
                let name =
                    Self::name_of(&mut self.scratch, &named.instance, &named.host, named.pid)
                        .to_string();
                self.site_info(named.info, &named.time, &name);
            }
            Record::Stats(st) => {
                let i = self.instance(&st.instance, &st.host, st.pid);
                i.named(&st.host, st.pid, &st.service, &st.version);
                i.seen(&st.time);
                i.stats(st);
            }
            Record::Stop(stop) => {
                let i = self.instance(&stop.instance, &stop.host, stop.pid);
                i.named(&stop.host, stop.pid, &stop.service, &stop.version);
                i.seen(&stop.time);
                i.stopped = true;
            }
            Record::Config(c) => {
                let i = self.instance(&c.instance, &c.host, c.pid);
                i.named(&c.host, c.pid, &c.service, &c.version);
                i.seen(&c.time);
                i.sharded(&c.time, c.shard.as_deref());
            }
            // Tests are taken in elsewhere; observations are `invite discover`'s; a kind of
            // record from a later version is left out.
            _ => {}
        }
    }

    /// Takes in what another aggregator read. The result is the same whichever aggregator read
    /// which records, and in whichever order they are merged.
    pub fn merge(&mut self, other: Aggregator) {
        let keep = self.keep_failures;
        for (name, site) in other.sites {
            match self.sites.get_mut(&name) {
                Some(mine) => mine.merge(site, keep),
                None => {
                    self.sites.insert(name, site);
                }
            }
        }
        for (name, i) in other.instances {
            match self.instances.get_mut(&name) {
                Some(mine) => mine.merge(i),
                None => {
                    self.instances.insert(name, i);
                }
            }
        }
        for (minute, counts) in other.timeline {
            self.timeline.entry(minute).or_default().merge(&counts);
        }
        self.input.records += other.input.records;
    }

    /// The summary of everything read.
    pub fn finish(self) -> Summary {
        // Sorted first: every sum below is then taken in one order, so that floating-point
        // rounding cannot depend on the order the records came in.
        let mut instances: Vec<(String, InstanceAgg)> = self.instances.into_iter().collect();
        instances.sort_by(|a, b| a.0.cmp(&b.0));
        let per_run = |s: &SiteAgg| {
            // Every run writes exactly one record per test of its site.
            s.described
                .as_ref()
                .map_or(s.tests.len(), |d| d.tests)
                .max(1) as u64
        };
        let per_run_of: HashMap<&str, u64> = self
            .sites
            .iter()
            .map(|(name, s)| (name.as_str(), per_run(s)))
            .collect();
        let mut summaries: Vec<InstanceSummary> = instances
            .iter()
            .map(|(name, i)| {
                let elapsed_s = i.elapsed_s();
                let mut parent: Vec<(&String, &u128)> = i.parent_us.iter().collect();
                parent.sort();
                let parent_s: f64 = parent
                    .iter()
                    .map(|(site, us)| {
                        **us as f64 / per_run_of.get(site.as_str()).copied().unwrap_or(1) as f64
                    })
                    .sum::<f64>()
                    / 1e6
                    + i.last_stats.as_ref().map_or(0.0, |st| {
                        st.sites.iter().map(|ss| ss.wait_us as f64).sum::<f64>() / 1e6
                    });
                InstanceSummary {
                    instance: name.clone(),
                    service: i.service.clone(),
                    version: i.version.clone(),
                    shard: i.shard.as_ref().map(|(_, s)| s.clone()),
                    host: i.host.clone(),
                    pid: i.pid,
                    exe: i.exe.as_ref().map(|(_, e)| e.clone()).unwrap_or_default(),
                    first: i.first.clone(),
                    last: i.last.clone(),
                    elapsed_s,
                    stopped: i.stopped,
                    tests: i.outcomes.total(),
                    outcomes: i.outcomes.clone(),
                    overhead_share: (elapsed_s > 0.0).then(|| parent_s / elapsed_s),
                }
            })
            .collect();
        summaries.sort_by(|a, b| (&a.first, &a.instance).cmp(&(&b.first, &b.instance)));
        let total_elapsed: f64 = summaries.iter().map(|i| i.elapsed_s).sum();

        let mut versions: BTreeMap<(String, String), VersionSummary> = BTreeMap::new();
        for i in &summaries {
            let v = versions
                .entry((i.service.clone(), i.version.clone()))
                .or_insert_with(|| VersionSummary {
                    service: i.service.clone(),
                    version: i.version.clone(),
                    instances: 0,
                    tests: 0,
                    outcomes: OutcomeCounts::default(),
                });
            v.instances += 1;
            v.tests += i.tests;
            v.outcomes.merge(&i.outcomes);
        }

        let mut fleet_failures = Vec::new();
        let mut sites: Vec<(String, SiteAgg)> = self.sites.into_iter().collect();
        sites.sort_by(|a, b| a.0.cmp(&b.0));
        let sites: Vec<SiteSummary> = sites
            .into_iter()
            .map(|(name, s)| {
                let per_run = per_run(&s);
                let runs = s.records.div_ceil(per_run);
                let parent_total_us = s.parent_us_over_records as f64 / per_run as f64;
                let (mut calls, mut sampled, mut skipped, mut stats_elapsed) =
                    (None::<u64>, None::<u64>, SkipCounts::default(), 0.0);
                let mut wait_us = 0u64;
                for (_, i) in &instances {
                    let Some(st) = &i.last_stats else { continue };
                    let Some(ss) = st.sites.iter().find(|x| x.site == name) else {
                        continue;
                    };
                    *calls.get_or_insert(0) += ss.calls;
                    *sampled.get_or_insert(0) += ss.sampled;
                    skipped.merge(&ss.skipped);
                    wait_us += ss.wait_us;
                    stats_elapsed += st.elapsed_s;
                }
                let mut per_test = Vec::with_capacity(s.tests.len());
                for (test, t) in s.tests {
                    for (outcome, spread) in t.spread {
                        fleet_failures.push(FleetFailure {
                            fingerprint: invite::record::fingerprint(&name, &test, outcome),
                            site: name.clone(),
                            test: test.clone(),
                            outcome,
                            failures: spread.failures,
                            instances: spread.instances.len() as u64,
                            first: spread.first,
                            last: spread.last,
                            versions: spread.versions.into_iter().collect(),
                        });
                    }
                    per_test.push(TestSummary {
                        test,
                        runs: t.outcomes.total(),
                        outcomes: t.outcomes,
                        duration_us: Durations::of(&t.durations),
                        failures_total: t.failures_total,
                        failures: t.failures,
                    });
                }
                let positive = |x: f64| (x > 0.0).then_some(x);
                let described = s.described.as_ref();
                SiteSummary {
                    site: name,
                    file: described.map(|d| d.file.clone()),
                    line: described.map(|d| d.line),
                    rho: described.map(|d| d.rho),
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
                    overhead_share: positive(total_elapsed)
                        .map(|e| (parent_total_us + wait_us as f64) / 1e6 / e),
                    wait_share: positive(total_elapsed).map(|e| wait_us as f64 / 1e6 / e),
                    per_test,
                }
            })
            .collect();
        // The most widespread first: a failure every instance meets is a defect of the code, one
        // that a single instance meets may be of its host.
        fleet_failures.sort_by(|a, b| {
            (b.instances, b.failures)
                .cmp(&(a.instances, a.failures))
                .then_with(|| a.fingerprint.cmp(&b.fingerprint))
        });
        Summary {
            schema: SCHEMA.to_string(),
            input: self.input,
            instances: summaries,
            sites,
            fleet_failures,
            versions: versions.into_values().collect(),
            timeline: self
                .timeline
                .into_iter()
                .map(|(minute, outcomes)| TimeBucket { minute, outcomes })
                .collect(),
            tuning: None,
        }
    }
}

/// Offers a failure to the `keep` kept, earliest first: `full` parses it, and is called only
/// when its time (`time`) could place it among them.
fn keep_failure(
    kept: &mut Vec<Failure>,
    keep: usize,
    time: &str,
    full: impl FnOnce() -> Option<Failure>,
) {
    if keep == 0 || (kept.len() >= keep && kept.last().is_some_and(|w| time > w.time.as_str())) {
        return;
    }
    let Some(f) = full() else { return };
    let at = kept.partition_point(|k| k.order(&f).is_le());
    if at < keep {
        kept.insert(at, f);
        kept.truncate(keep);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_equal_but_for_their_seeds_are_ordered_by_them() {
        let f = |test_seed: u64| Failure {
            time: "2026-11-22T10:00:00Z".into(),
            instance: "app-1".into(),
            host: "h".into(),
            pid: 1,
            run: 2,
            outcome: Outcome::Fail,
            inputs: BTreeMap::new(),
            detail: None,
            seeds: Seeds {
                test_seed,
                ..Seeds::default()
            },
        };
        assert_eq!(f(1).order(&f(2)), std::cmp::Ordering::Less);
        assert_eq!(f(2).order(&f(1)), std::cmp::Ordering::Greater);
        assert_eq!(f(1).order(&f(1)), std::cmp::Ordering::Equal);
    }

    #[test]
    fn an_instance_is_a_name_escaped_or_not_or_an_object_and_nothing_else() {
        let named =
            |json: &str| serde_json::from_str::<Named>(json).map(|n| n.0.map(|c| c.into_owned()));
        assert_eq!(named(r#""app-1""#).unwrap(), Some("app-1".to_string()));
        // An escape makes serde hand over an owned string.
        assert_eq!(named(r#""app\u002d1""#).unwrap(), Some("app-1".to_string()));
        assert_eq!(named(r#"{"host":"h","pid":1}"#).unwrap(), None);
        assert_eq!(named("null").unwrap(), None);
        let e = named("5").unwrap_err().to_string();
        assert!(e.contains("an instance's name or object"), "{e}");
    }

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
    fn callers_time_waiting_for_the_caps_counts_as_overhead() {
        let waited = stats_line(8.0, 100).replace(
            r#""mean_parent_us":0.0,"#,
            r#""mean_parent_us":0.0,"wait_us":2000000,"mean_wait_us":20000.0,"#,
        );
        let summary = summary_of(&[waited]);
        let site = &summary.sites[0];
        assert_eq!(site.wait_share, Some(0.25), "{site:?}");
        assert_eq!(site.overhead_share, Some(0.25), "{site:?}");
        assert_eq!(summary.instances[0].overhead_share, Some(0.25));
        // Older records say nothing of waiting: none is counted.
        let site = summary_of(&[stats_line(8.0, 100)]).sites.remove(0);
        assert_eq!(
            (site.wait_share, site.overhead_share),
            (Some(0.0), Some(0.0))
        );
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
