//! The log's record types: one JSON object per line, each with `"v": 1` and a `"kind"`.
//!
//! The collector writes them; the report reads them back with the same types, so the format
//! has one definition. Readers must accept records with fields they do not know (newer
//! writers), so no type here denies unknown fields.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

/// How the `test` of a discovery record starts; the function's signature follows.
pub const DISCOVER_PREFIX: &str = "discover ";

/// The log format version written in every record's `"v"`.
pub const VERSION: u32 = 1;

/// One line of the log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
#[non_exhaustive]
pub enum Record {
    /// A process started invite: its configuration and its sites.
    Start(Start),
    /// One test of one sampled call.
    Test(Test),
    /// What one sampled call of a discovered function showed (`#[invite::discover]`).
    #[cfg(feature = "discover")]
    Observation(Observation),
    /// Periodic counters of every site.
    Stats(Stats),
    /// A site that the start record could not name: a method of an impl that a macro made for
    /// a type it was given, named at its first call. Written before its first test.
    Site(SiteNamed),
    /// The process stopped invite (it drained its runs first).
    Stop(Stop),
    /// The process applied a changed configuration, or refused one.
    Config(ConfigChange),
}

impl Record {
    /// The record as one line of JSON, without the newline.
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).expect("records are always serialisable")
    }

    /// Parses one line of the log.
    pub fn from_line(line: &str) -> Result<Record, serde_json::Error> {
        serde_json::from_str(line)
    }
}

/// Which process wrote a record.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Instance {
    /// The host name.
    pub host: String,
    /// The process id.
    pub pid: u32,
    #[serde(default)]
    /// The executable's path, empty in logs of older versions.
    pub exe: String,
    /// The instance's name, unique in its fleet: `INVITE_INSTANCE`, else `service.instance.id`
    /// in `OTEL_RESOURCE_ATTRIBUTES`, else host, pid and start time. Empty in logs of older
    /// versions.
    #[serde(default)]
    pub id: String,
    /// The service: `service` in `invite.toml`, else the executable's name.
    #[serde(default)]
    pub service: String,
    /// `version` in `invite.toml`, else the instrumented crate's version.
    #[serde(default)]
    pub version: String,
}

#[cfg(test)]
impl Instance {
    /// This process, as the unit tests that need an instance name it.
    pub(crate) fn for_tests() -> Instance {
        Instance {
            host: "test".into(),
            pid: std::process::id(),
            exe: String::new(),
            id: "test-0".into(),
            service: "test".into(),
            version: String::new(),
        }
    }
}

impl Instance {
    /// The name records other than `start` give this instance by.
    pub fn name(&self) -> String {
        if self.id.is_empty() {
            format!("{}-{}", self.host, self.pid)
        } else {
            self.id.clone()
        }
    }
}

/// An instrumented function as registered at start-up.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SiteInfo {
    /// The site's name: `module::function` or `module::Type::method`, or the attribute's `name`.
    pub name: String,
    /// The source file of the function.
    pub file: String,
    /// The line of the function's name.
    pub line: u32,
    /// Effective ρ after the configuration was applied.
    pub rho: f64,
    /// Each test's text: a relation's source, or a test function's path.
    pub tests: Vec<String>,
    /// Each parameter's name and type as written; `None` in logs of older versions (a function
    /// without parameters has an empty list).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Vec<(String, String)>>,
    /// The function's path as the compiler prints it (`<app::Knn as app::Model>::predict`),
    /// for a site named at its first call: what a regression test calls it through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

/// A site named after start-up (see [`Record::Site`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SiteNamed {
    /// Record format version.
    pub v: u32,
    /// RFC 3339, UTC, microseconds.
    pub time: String,
    /// The host name.
    pub host: String,
    /// The process id.
    pub pid: u32,
    /// The instance that wrote it (see [`Instance::id`]); empty in logs of older versions.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub instance: String,
    /// The service the instance runs (see [`Instance::service`]).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub service: String,
    /// The service's version (see [`Instance::version`]).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub version: String,
    /// The site, as the start record describes the others.
    pub info: SiteInfo,
}

/// The first record of a process: what it instruments and how.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Start {
    /// Record format version.
    pub v: u32,
    /// RFC 3339, UTC, microseconds.
    pub time: String,
    /// The process that started.
    pub instance: Instance,
    /// Where the configuration came from.
    pub config_file: String,
    /// The effective configuration (as `invite.toml` keys), kept as JSON so that readers
    /// accept configurations of newer versions.
    pub config: serde_json::Value,
    /// The functions linked into the program, sorted by name.
    pub sites: Vec<SiteInfo>,
    /// This instance's share of the fleet (`K/N`), if it is in one (see `fleet`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
}

/// How one test ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Outcome {
    /// The relation held or the test returned success.
    Pass,
    /// The relation did not hold, or the test returned `false` or `Err`.
    Fail,
    /// The test panicked, was killed by a signal or never reported.
    Error,
    /// The test passed its deadline and was killed.
    Timeout,
    /// Two replays of the source run disagreed: nondeterministic beyond the replayed stream.
    Inconclusive,
    /// The test attempted a side effect that the sandbox denied.
    Blocked,
    /// The relation's guard was false.
    Skipped,
}

impl Outcome {
    /// Every outcome, in the order reports list them.
    pub const ALL: [Outcome; 7] = [
        Outcome::Pass,
        Outcome::Fail,
        Outcome::Error,
        Outcome::Timeout,
        Outcome::Inconclusive,
        Outcome::Blocked,
        Outcome::Skipped,
    ];

    /// The outcome's name in the log.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail => "fail",
            Outcome::Error => "error",
            Outcome::Timeout => "timeout",
            Outcome::Inconclusive => "inconclusive",
            Outcome::Blocked => "blocked",
            Outcome::Skipped => "skipped",
        }
    }

    /// Whether an operator should look at it.
    pub fn is_failure(self) -> bool {
        matches!(
            self,
            Outcome::Fail | Outcome::Error | Outcome::Timeout | Outcome::Blocked
        )
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What is needed to replay a test outside the process.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seeds {
    /// The caller thread's [`crate::rng()`] seed, 64 hex digits.
    pub rng_seed: String,
    /// The ChaCha stream and word position the call started from.
    pub rng_stream: u64,
    /// The word position within that stream.
    pub rng_word_pos: u64,
    /// Seed of the transformations' own randomness (`permute`), per run.
    pub test_seed: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
/// One test of one sampled call, as the child reported it.
pub struct Test {
    /// Record format version.
    pub v: u32,
    /// RFC 3339, UTC, microseconds.
    pub time: String,
    /// The host name.
    pub host: String,
    /// The process id.
    pub pid: u32,
    /// The instance that wrote it (see [`Instance::id`]); empty in logs of older versions.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub instance: String,
    /// The service the instance runs (see [`Instance::service`]).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub service: String,
    /// The service's version (see [`Instance::version`]).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub version: String,
    /// The site's name (see [`SiteInfo::name`]).
    pub site: String,
    /// The relation's source text or the test function's path.
    pub test: String,
    /// Number of the run (one forked child) in this process, from 1.
    pub run: u64,
    /// How the test ended.
    pub outcome: Outcome,
    /// Time the caller spent starting this test's run, shared among the run's tests.
    pub parent_us: u64,
    /// How long the test took in the child, in microseconds.
    pub duration_us: u64,
    /// Each argument's `Debug` text (truncated), or a note that the type has none.
    pub inputs: BTreeMap<String, String>,
    /// The arguments in a form they are rebuilt from exactly, where their types have one:
    /// what `invite report --emit-tests` writes regression tests from.
    #[serde(default, skip_serializing_if = "Exact::is_empty")]
    pub exact: Exact,
    /// Why it failed (the compared values, the panic message), if it did.
    pub detail: Option<String>,
    /// What replays the call's random streams.
    pub seeds: Seeds,
}

/// A call's arguments as bytes they are rebuilt from, whatever their length: each argument
/// whose type implements [`crate::Travel`] (or, with the `serde` feature, serde's traits), in
/// that encoding (a slice as a `Vec`, a `str` as a `String`), with its type; the receiver too.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Exact {
    /// Each argument's bytes in hexadecimal, by name (`self` for the receiver).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub values: BTreeMap<String, String>,
    /// Each of those arguments' types, as `std::any::type_name` prints them (`Vec<f64>` for a
    /// slice of `f64`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub types: BTreeMap<String, String>,
    /// How the function takes its receiver: `&`, `&mut ` or nothing (by value).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receiver: Option<String>,
}

impl Exact {
    /// No argument has an exact form.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty() && self.receiver.is_none()
    }

    /// Splits the inputs a test process captured: `Debug` texts keep their names; exact forms
    /// come as `"\u{0}exact NAME"`, their types as `"\u{0}type NAME"`, and the receiver's
    /// passing as `"\u{0}receiver"`.
    pub fn split(captured: &BTreeMap<String, String>) -> (BTreeMap<String, String>, Exact) {
        let mut inputs = BTreeMap::new();
        let mut exact = Exact::default();
        for (k, v) in captured {
            if k == RECEIVER {
                exact.receiver = Some(v.clone());
            } else if let Some(name) = k.strip_prefix(EXACT_PREFIX) {
                exact.values.insert(name.to_string(), v.clone());
            } else if let Some(name) = k.strip_prefix(TYPE_PREFIX) {
                exact.types.insert(name.to_string(), v.clone());
            } else {
                inputs.insert(k.clone(), v.clone());
            }
        }
        (inputs, exact)
    }
}

/// `bytes` in lower-case hexadecimal: how a test record keeps an argument's exact form (see
/// [`crate::record::Exact`]).
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(2 * bytes.len());
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
    out
}

/// The bytes of [`hex`]'s text; `None` for text that is not such.
pub fn unhex(text: &str) -> Option<Vec<u8>> {
    let digit = |c: u8| char::from(c).to_digit(16).map(|d| d as u8);
    let text = text.as_bytes();
    if !text.len().is_multiple_of(2) {
        return None;
    }
    text.chunks(2)
        .map(|pair| Some(digit(pair[0])? << 4 | digit(pair[1])?))
        .collect()
}

/// What starts the name of a captured input's exact form; no parameter's name starts so.
pub const EXACT_PREFIX: &str = "\u{0}exact ";
/// What starts the name of a captured input's type.
pub const TYPE_PREFIX: &str = "\u{0}type ";
/// The name under which a test process captures how its function takes its receiver.
pub const RECEIVER: &str = "\u{0}receiver";

/// One sampled call of a function under discovery: its results on the live input and on
/// every follow-up input, which `invite discover` judges candidate relations on.
#[cfg(feature = "discover")]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Observation {
    /// Record format version.
    pub v: u32,
    /// RFC 3339, UTC, microseconds.
    pub time: String,
    /// The host name.
    pub host: String,
    /// The process id.
    pub pid: u32,
    /// The instance that wrote it (see [`Instance::id`]); empty in logs of older versions.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub instance: String,
    /// The service the instance runs (see [`Instance::service`]).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub service: String,
    /// The service's version (see [`Instance::version`]).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub version: String,
    /// The site's name (see [`SiteInfo::name`]).
    pub site: String,
    /// The function's signature as written (`fn std_dev(xs: &[f64]) -> f64`): the names and
    /// types proposals are written with.
    pub signature: String,
    /// Number of the run (one forked child) in this process, from 1.
    pub run: u64,
    /// How long the observation took in the child, in microseconds.
    pub duration_us: u64,
    /// What replays the call's random streams.
    pub seeds: Seeds,
    /// The input, the results and their noise.
    pub observation: crate::discover::Observation,
}

/// Counts of each outcome, named by outcome.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutcomeCounts {
    /// Tests that passed.
    pub pass: u64,
    /// Tests that failed.
    pub fail: u64,
    /// Tests that ended in an error.
    pub error: u64,
    /// Tests killed at their deadline.
    pub timeout: u64,
    /// Tests whose source run was not deterministic.
    pub inconclusive: u64,
    /// Tests stopped by the sandbox.
    pub blocked: u64,
    /// Relations whose guard was false.
    pub skipped: u64,
}

impl OutcomeCounts {
    /// Counts one test ending in `o`.
    pub fn add(&mut self, o: Outcome) {
        *self.get_mut(o) += 1;
    }

    /// The count of `o`.
    pub fn get(&self, o: Outcome) -> u64 {
        match o {
            Outcome::Pass => self.pass,
            Outcome::Fail => self.fail,
            Outcome::Error => self.error,
            Outcome::Timeout => self.timeout,
            Outcome::Inconclusive => self.inconclusive,
            Outcome::Blocked => self.blocked,
            Outcome::Skipped => self.skipped,
        }
    }

    fn get_mut(&mut self, o: Outcome) -> &mut u64 {
        match o {
            Outcome::Pass => &mut self.pass,
            Outcome::Fail => &mut self.fail,
            Outcome::Error => &mut self.error,
            Outcome::Timeout => &mut self.timeout,
            Outcome::Inconclusive => &mut self.inconclusive,
            Outcome::Blocked => &mut self.blocked,
            Outcome::Skipped => &mut self.skipped,
        }
    }

    /// Adds `other`'s counts to these.
    pub fn merge(&mut self, other: &OutcomeCounts) {
        for o in Outcome::ALL {
            *self.get_mut(o) += other.get(o);
        }
    }

    /// All tests counted.
    pub fn total(&self) -> u64 {
        Outcome::ALL.iter().map(|&o| self.get(o)).sum()
    }
}

/// Sampled calls that did not start a run, by reason.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkipCounts {
    /// `max_concurrent` runs were alive.
    pub concurrency: u64,
    /// Starting another run would have passed `max_overhead`.
    pub overhead: u64,
    /// Invite was shutting down, or the process is a fork of the instrumented one.
    pub disabled: u64,
    /// `fork` or `pipe` failed (out of memory or processes).
    pub fork_failed: u64,
    /// The call's arguments and state had been tested before (`dedup`): runs saved.
    #[serde(default)]
    pub dedup: u64,
    /// A pure site's call found the worker's ring full.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub ring_full: u64,
    /// A pure site's call was still in the worker's ring when the program exited.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unrun: u64,
    /// No run could be hidden from the program's child handling (the process that adopts
    /// hidden runs never reaps them), and a plain fork could be seen by it.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unhidden: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl SkipCounts {
    /// Sampled calls the caps refused: for want of a slot or of overhead budget.
    pub fn refused_by_caps(&self) -> u64 {
        self.concurrency + self.overhead
    }

    /// Adds `other`'s counts to these.
    pub fn merge(&mut self, other: &SkipCounts) {
        self.concurrency += other.concurrency;
        self.overhead += other.overhead;
        self.disabled += other.disabled;
        self.fork_failed += other.fork_failed;
        self.ring_full += other.ring_full;
        self.unrun += other.unrun;
        self.unhidden += other.unhidden;
        self.dedup += other.dedup;
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
/// One site's counters since the process started.
pub struct SiteStats {
    /// The site's name.
    pub site: String,
    /// ρ in force (it changes under the adaptive rate).
    #[serde(default)]
    pub rho: f64,
    /// Calls counted at each sampling point (calls after the last one are not yet counted).
    pub calls: u64,
    /// Calls the sampler chose.
    pub sampled: u64,
    /// Sampled calls that were not tested, by reason.
    pub skipped: SkipCounts,
    /// Forked children.
    pub runs: u64,
    /// Tests that reported.
    pub tests: u64,
    /// Their outcomes.
    pub outcomes: OutcomeCounts,
    /// Mean time a test took in the child, in microseconds.
    pub mean_test_us: f64,
    /// Mean time a caller lost per run.
    pub mean_parent_us: f64,
    /// Time callers spent waiting in line for the caps (`when_busy = "wait"`), in all, in
    /// microseconds.
    #[serde(default)]
    pub wait_us: u64,
    /// That time per sampled call.
    #[serde(default)]
    pub mean_wait_us: f64,
    /// Tests per second of wall time.
    pub tests_per_sec: f64,
    /// Caller time spent starting runs and waiting for the caps, as a share of wall time.
    pub overhead_share: f64,
    /// This site's runs as a share of all runs in the process so far (0 before any run).
    #[serde(default)]
    pub run_share: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
/// Periodic counters of a process.
pub struct Stats {
    /// Record format version.
    pub v: u32,
    /// RFC 3339, UTC, microseconds.
    pub time: String,
    /// The host name.
    pub host: String,
    /// The process id.
    pub pid: u32,
    /// The instance that wrote it (see [`Instance::id`]); empty in logs of older versions.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub instance: String,
    /// The service the instance runs (see [`Instance::service`]).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub service: String,
    /// The service's version (see [`Instance::version`]).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub version: String,
    /// Seconds since start-up.
    pub elapsed_s: f64,
    /// True for the record written at exit.
    #[serde(rename = "final")]
    pub is_final: bool,
    /// Every site's counters.
    pub sites: Vec<SiteStats>,
    /// Minor faults of the process while test children were alive (copy-on-write, mostly),
    /// and the share of wall time they cost at the measured per-fault price. Both are charged
    /// to the overhead budget besides each site's fork time.
    #[serde(default)]
    pub cow_faults: u64,
    /// The share of wall time those faults cost (see `cow_faults`).
    #[serde(default)]
    pub cow_share: f64,
    /// Test children's CPU time charged to the budget (at `child_cpu_charge`), as a share of
    /// wall time.
    #[serde(default)]
    pub children_share: f64,
    /// Resident memory when the record was written. With the sites' `mean_parent_us` it places
    /// the process on the cost model (caller time per run ≈ a + b × resident; see README).
    #[serde(default)]
    pub resident_mib: f64,
    /// Log flushes that failed (a full disk, a size limit); their records were kept and
    /// written later, up to a bound.
    #[serde(default)]
    pub log_errors: u64,
    /// Records dropped because the log could not take them for too long.
    #[serde(default)]
    pub log_lost: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
/// The last record of a process.
pub struct Stop {
    /// Record format version.
    pub v: u32,
    /// RFC 3339, UTC, microseconds.
    pub time: String,
    /// The host name.
    pub host: String,
    /// The process id.
    pub pid: u32,
    /// The instance that wrote it (see [`Instance::id`]); empty in logs of older versions.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub instance: String,
    /// The service the instance runs (see [`Instance::service`]).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub service: String,
    /// The service's version (see [`Instance::version`]).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub version: String,
    /// Runs that finished during the drain at exit.
    pub drained: u64,
    /// Runs still alive after the grace period, killed and recorded as `timeout`.
    pub killed: u64,
}

/// A configuration the running process read again (a change of its file, or
/// `invite::reload()`): applied, or refused with the reason, the last good one staying in force.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConfigChange {
    /// Record format version.
    pub v: u32,
    /// RFC 3339, UTC, microseconds.
    pub time: String,
    /// The host name.
    pub host: String,
    /// The process id.
    pub pid: u32,
    /// The instance that wrote it (see [`Instance::id`]); empty in logs of older versions.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub instance: String,
    /// The service the instance runs (see [`Instance::service`]).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub service: String,
    /// The service's version (see [`Instance::version`]).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub version: String,
    /// The file read.
    pub file: String,
    /// The hash of the configuration in force afterwards (16 hex digits), the same in every
    /// instance that applied the same settings.
    pub hash: String,
    /// Whether the new configuration was applied; when not, `error` says why and the last
    /// good one stays in force.
    pub applied: bool,
    /// The keys whose values changed (`default_rho`, `functions."a::f".rho`, `fleet`).
    #[serde(default)]
    pub changed: Vec<String>,
    /// Of those, the keys that take effect only at the next start (`log`, `sandbox`, ...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub at_restart: Vec<String>,
    /// This instance's share of the fleet afterwards (`K/N`), if it is in one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    /// Why the configuration was refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The configuration in force afterwards (as `invite.toml` keys).
    pub config: serde_json::Value,
}

/// The stable name of a kind of failure, the same in every instance and version that meets it:
/// 16 hex digits from the site, the test and the outcome. Error trackers group events by it;
/// the fleet report counts the instances that saw each.
pub fn fingerprint(site: &str, test: &str, outcome: Outcome) -> String {
    format!(
        "{:016x}",
        crate::fleet::stable_hash(&[
            site.as_bytes(),
            test.as_bytes(),
            outcome.as_str().as_bytes()
        ])
    )
}

/// The input under which a record of a whole program's test (`invite system`) holds the
/// command that replays it; reports print it in place of the seeds.
pub const REPLAY_INPUT: &str = "replay";

/// This machine's host name, as records carry it.
pub fn hostname() -> String {
    #[cfg(invite_linux)]
    return invite_sandbox::host::name();
    #[cfg(not(invite_linux))]
    return std::env::var("HOSTNAME")
        .or_else(|_| std::env::var("COMPUTERNAME"))
        .unwrap_or_else(|_| "unknown".to_string());
}

/// Now, as the log writes times.
pub fn now() -> String {
    humantime::format_rfc3339_micros(std::time::SystemTime::now()).to_string()
}

/// The number of top-level elements of a logged `Debug` text that is a sequence (`[..]`):
/// commas outside nested brackets and string or char literals, plus one; `None` for any
/// other text.
pub fn sequence_len(debug: &str) -> Option<usize> {
    let inner = debug.trim().strip_prefix('[')?.strip_suffix(']')?;
    if inner.trim().is_empty() {
        return Some(0);
    }
    let (mut depth, mut count, mut quote, mut escaped) = (0i32, 1, None, false);
    for c in inner.chars() {
        match quote {
            Some(_) if escaped => escaped = false,
            Some(_) if c == '\\' => escaped = true,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '"' | '\'' => quote = Some(c),
                '[' | '(' | '{' => depth += 1,
                ']' | ')' | '}' => depth -= 1,
                ',' if depth == 0 => count += 1,
                _ => {}
            },
        }
    }
    Some(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captured_inputs_split_into_debug_texts_and_exact_forms() {
        let captured: BTreeMap<String, String> = [
            ("xs", "[1.0, … (truncated)"),
            ("self", "Knn { … (truncated)"),
            ("\u{0}exact xs", "0100"),
            ("\u{0}type xs", "alloc::vec::Vec<f64>"),
            ("\u{0}exact self", "ff"),
            ("\u{0}type self", "app::Knn"),
            ("\u{0}receiver", "&"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let (inputs, exact) = Exact::split(&captured);
        assert_eq!(inputs.keys().collect::<Vec<_>>(), ["self", "xs"]);
        assert_eq!(exact.values["xs"], "0100");
        assert_eq!(exact.values["self"], "ff");
        assert_eq!(exact.types["xs"], "alloc::vec::Vec<f64>");
        assert_eq!(exact.types["self"], "app::Knn");
        assert_eq!(exact.receiver.as_deref(), Some("&"));
        assert!(!exact.is_empty());
        // Only the receiver's passing, or only a value: not empty either.
        let passing = Exact {
            receiver: Some("&".into()),
            ..Exact::default()
        };
        assert!(!passing.is_empty());
        let value = Exact {
            values: [("x".to_string(), "00".to_string())].into(),
            ..Exact::default()
        };
        assert!(!value.is_empty());
        assert!(Exact::default().is_empty());
        // Inputs without exact forms: none, which the record leaves out.
        let (plain, none) = Exact::split(&[("x".to_string(), "1".to_string())].into());
        assert_eq!((plain.len(), none.is_empty()), (1, true));
    }

    #[test]
    fn hex_reads_back_what_it_wrote_and_refuses_other_text() {
        let bytes: Vec<u8> = (0..=255).collect();
        assert_eq!(unhex(&hex(&bytes)), Some(bytes));
        assert_eq!(hex(&[0x0f, 0xa0]), "0fa0");
        assert_eq!(unhex("0fA0"), Some(vec![0x0f, 0xa0]));
        assert_eq!(unhex("0"), None);
        assert_eq!(unhex("zz"), None);
        assert_eq!(unhex(""), Some(vec![]));
    }

    #[test]
    fn refusals_by_the_caps_are_concurrency_and_overhead_only() {
        let skips = SkipCounts {
            concurrency: 3,
            overhead: 5,
            disabled: 100,
            fork_failed: 1000,
            dedup: 10000,
            ring_full: 7,
            unrun: 9,
            unhidden: 11,
        };
        assert_eq!(skips.refused_by_caps(), 8);
    }

    #[test]
    fn merging_skip_counts_adds_each_reason_to_its_own() {
        let mut sum = SkipCounts {
            concurrency: 1,
            overhead: 2,
            disabled: 3,
            fork_failed: 4,
            dedup: 5,
            ring_full: 6,
            unrun: 7,
            unhidden: 8,
        };
        sum.merge(&SkipCounts {
            concurrency: 10,
            overhead: 20,
            disabled: 30,
            fork_failed: 40,
            dedup: 50,
            ring_full: 60,
            unrun: 70,
            unhidden: 80,
        });
        assert_eq!(
            sum,
            SkipCounts {
                concurrency: 11,
                overhead: 22,
                disabled: 33,
                fork_failed: 44,
                dedup: 55,
                ring_full: 66,
                unrun: 77,
                unhidden: 88,
            }
        );
    }

    #[test]
    fn the_host_name_is_the_kernel_s_without_its_padding() {
        let kernel = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .expect("the kernel's host name is readable");
        let name = hostname();
        assert_eq!(name, kernel.trim_end_matches('\n'));
        assert!(!name.is_empty() && !name.contains('\0'), "{name:?}");
    }

    #[test]
    fn now_is_an_rfc3339_time_within_the_test_s_run() {
        let before = std::time::SystemTime::now();
        let text = now();
        let after = std::time::SystemTime::now();
        let at = humantime::parse_rfc3339(&text).expect("now() is RFC 3339");
        // Written to the microsecond: the truncation may put it just before `before`.
        let slack = std::time::Duration::from_micros(1);
        assert!(at + slack >= before && at <= after, "{text}");
        assert!(text.ends_with('Z') && text.contains('.'), "{text}");
    }

    fn test_record() -> Record {
        let mut inputs = BTreeMap::new();
        inputs.insert("xs".into(), "[1.0, 2.0]".into());
        Record::Test(Test {
            v: VERSION,
            time: now(),
            host: "h".into(),
            pid: 7,
            instance: String::new(),
            service: String::new(),
            version: String::new(),
            site: "a::f".into(),
            test: "f(&permute(xs)) == result".into(),
            run: 3,
            outcome: Outcome::Fail,
            parent_us: 41,
            duration_us: 120,
            inputs,
            exact: Default::default(),
            detail: Some("left: 1.5, right: 1.6".into()),
            seeds: Seeds {
                rng_seed: "00".repeat(32),
                rng_stream: 0,
                rng_word_pos: 16,
                test_seed: 9,
            },
        })
    }

    #[test]
    fn test_record_round_trips_and_names_its_kind() {
        let r = test_record();
        let line = r.to_line();
        assert!(line.contains("\"kind\":\"test\""), "{line}");
        assert!(line.contains("\"outcome\":\"fail\""), "{line}");
        assert_eq!(Record::from_line(&line).unwrap(), r);
    }

    #[test]
    fn unknown_fields_are_accepted() {
        let mut v: serde_json::Value = serde_json::from_str(&test_record().to_line()).unwrap();
        v["added_later"] = serde_json::json!({"x": 1});
        assert!(Record::from_line(&v.to_string()).is_ok());
    }

    #[test]
    fn stats_record_round_trips_with_final_flag() {
        let r = Record::Stats(Stats {
            v: VERSION,
            time: now(),
            host: "h".into(),
            pid: 1,
            instance: String::new(),
            service: String::new(),
            version: String::new(),
            elapsed_s: 2.5,
            is_final: true,
            sites: vec![SiteStats {
                site: "a::f".into(),
                calls: 10,
                ..Default::default()
            }],
            cow_faults: 3,
            cow_share: 0.001,
            children_share: 0.002,
            resident_mib: 12.5,
            log_errors: 0,
            log_lost: 0,
        });
        let line = r.to_line();
        assert!(line.contains("\"final\":true"), "{line}");
        assert_eq!(Record::from_line(&line).unwrap(), r);
    }

    #[test]
    fn outcome_counts_add_up() {
        let mut c = OutcomeCounts::default();
        for o in Outcome::ALL {
            c.add(o);
        }
        c.add(Outcome::Fail);
        assert_eq!(c.total(), 8);
        assert_eq!(c.get(Outcome::Fail), 2);
    }
}
