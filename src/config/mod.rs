//! `invite.toml` and the environment.
//!
//! The file is read once, when the first instrumented site is reached (or at [`crate::init`]).
//! `INVITE=off` wins over everything; `$INVITE_CONFIG` names the file, else `./invite.toml`; with
//! neither, invite stays off and the program runs untouched. A file that does not parse, or holds
//! a wrong value or an unknown key, yields one [`ConfigError`] naming file, line, column and key;
//! the caller prints it once and turns invite off. The host program is never stopped by it.
//!
//! The types, their defaults and what the rest of invite asks of them are here; finding and
//! reading the file is in `load`, and the check of each key's value in `validate`.

mod load;
mod validate;

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub use load::{describe_file_type, Source, MAX_CONFIG_BYTES};
pub use validate::{check_label, MAX_LABEL};

/// What happens when a test fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum OnFailure {
    /// Write the record to the log (and call the hook set by [`crate::on_failure`], as every
    /// mode does).
    Log,
    /// Also print one stderr line naming site and test.
    Notify,
    /// Write and flush the log, then abort the process.
    Abort,
}

/// What a sampled call does when a cap refuses its run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum WhenBusy {
    /// The call goes on untested (counted in `skipped`): the caps bound what the program pays.
    Skip,
    /// The call waits until the caps admit its run (at most one run's deadline), then goes on:
    /// every sampled call is tested, and the program slows down instead. For development and
    /// CI runs.
    Wait,
}

/// Whether runs are hidden from the program's own child handling (its SIGCHLD handler and
/// `waitpid(-1)`). `true` and `false` are read as `Always` and `Never`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum HideRuns {
    /// Hidden once the program shows it handles children: SIGCHLD is caught or ignored, or
    /// the program has children of its own; plain forks before, which cost the caller less. A
    /// thread that reaps with `waitpid(-1)` before the program's first child is not seen, and
    /// may reap runs: for programs known to have none.
    Auto,
    /// Always hidden (the default): a launcher that shares the program's memory makes each
    /// run, so no run is ever the program's child.
    Always,
    /// Never hidden: plain forks, seen by the program's SIGCHLD handler and `waitpid(-1)`.
    Never,
}

/// How a test is kept from changing anything outside its process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Sandbox {
    /// Memory isolation by the fork, and a seccomp filter against every other side effect.
    Seccomp,
    /// Memory isolation only.
    Fork,
}

/// Where a pure site's tests run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Isolation {
    /// A fork of the program per sampled call, as every other site.
    Fork,
    /// The worker of pure sites: the caller copies its arguments and result, and never forks.
    Worker,
}

/// Settings for one site, from `[functions."site::name"]`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiteConfig {
    #[serde(
        default,
        deserialize_with = "validate::probability_opt",
        skip_serializing_if = "Option::is_none"
    )]
    /// Probability that a call is tested (overrides `default_rho` and the attribute's `rho`).
    pub rho: Option<f64>,
    #[serde(
        default,
        deserialize_with = "validate::tolerance_opt",
        skip_serializing_if = "Option::is_none"
    )]
    /// Tolerance of the site's comparisons (overrides the attribute's `tolerance`).
    pub tolerance: Option<f64>,
    #[serde(
        default,
        deserialize_with = "validate::millis_opt",
        skip_serializing_if = "Option::is_none"
    )]
    /// Deadline of each test, in milliseconds.
    pub timeout_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// `false` turns the site off.
    pub enabled: Option<bool>,
    /// `false` turns off unseen-state testing of a site compiled with `dedup = true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dedup: Option<bool>,
    /// Memory of the site's seen-state filter.
    #[serde(
        default,
        deserialize_with = "validate::bytes_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub dedup_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// How the site's tests are isolated.
    pub sandbox: Option<Sandbox>,
    /// Address space a test may add, in MiB.
    #[serde(
        default,
        deserialize_with = "validate::mib_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub memory_mb: Option<u64>,
    /// Where the tests of a site compiled `pure` run (default: the worker).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isolation: Option<Isolation>,
    /// Adaptive rate: adjust the site's ρ to about this many tests a minute.
    #[serde(
        default,
        deserialize_with = "validate::rate_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub target_tests_per_min: Option<f64>,
}

/// The effective configuration. Every field has the default documented in the guide's configuration chapter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// `false`: nothing is ever sampled.
    pub enabled: bool,
    /// ρ for sites without a `[functions]` entry or attribute `rho`.
    #[serde(deserialize_with = "validate::probability")]
    pub default_rho: f64,
    /// Live test runs (forked children) at once.
    #[serde(deserialize_with = "validate::concurrency")]
    pub max_concurrent: u64,
    /// Share of wall time the program may spend starting tests.
    #[serde(deserialize_with = "validate::probability")]
    pub max_overhead: f64,
    /// Deadline of each test, in milliseconds.
    #[serde(deserialize_with = "validate::millis")]
    pub timeout_ms: u64,
    /// What a sampled call does when a cap refuses its run.
    pub when_busy: WhenBusy,
    /// With `when_busy = "wait"`: once a site has started this many tests, its calls stop
    /// waiting and go untested when the caps refuse them (unset: they always wait).
    #[serde(deserialize_with = "validate::count_opt")]
    pub tests_per_site: Option<u64>,
    /// What to do when a test fails.
    pub on_failure: OnFailure,
    /// Path of the JSON Lines log, appended to; `"-"` for stderr.
    #[serde(deserialize_with = "validate::non_empty")]
    pub log: String,
    /// Fixes sampling and test seeds for reproducible runs.
    pub seed: Option<u64>,
    /// Interval between `stats` records, in milliseconds.
    #[serde(deserialize_with = "validate::millis")]
    pub stats_interval_ms: u64,
    /// How long the exit handler waits for running tests before killing them.
    pub drain_ms: u64,
    /// Niceness added to test children (0 to 19).
    #[serde(deserialize_with = "validate::niceness")]
    pub nice: i32,
    /// `"seccomp"` (where the kernel has it) or `"fork"`.
    pub sandbox: Sandbox,
    /// Address space each test may add beyond what it inherits, in MiB (unset: no limit).
    #[serde(deserialize_with = "validate::mib_opt")]
    pub memory_mb: Option<u64>,
    /// The shared ring pure sites' callers write their calls into, in MiB: a call that finds
    /// it full is not tested.
    #[serde(deserialize_with = "validate::ring_mib")]
    pub worker_ring_mib: u64,
    /// Share of test children's CPU time charged to the overhead budget (default
    /// `1 / (CPUs - 1)`, 1 on one or two CPUs).
    #[serde(deserialize_with = "validate::probability_some")]
    pub child_cpu_charge: Option<f64>,
    /// Default memory of each deduplicating site's seen-state filter.
    #[serde(deserialize_with = "validate::bytes")]
    pub dedup_bytes: u64,
    /// Whether runs are made so that the program's SIGCHLD handler and `waitpid(-1)` never see
    /// them: `"auto"` (when the program handles children), `"always"` or `"never"`.
    #[serde(deserialize_with = "validate::hide_runs")]
    pub hide_runs: HideRuns,
    /// Every test record also becomes a `tracing` event (target `invite::record`; failures at
    /// `WARN`, the rest at `DEBUG`), for the program's own subscriber. Needs the `tracing`
    /// feature.
    #[serde(deserialize_with = "validate::tracing_records")]
    pub tracing: bool,
    /// At exit, the program prints the report of its own run to stderr: outcomes per site and
    /// relation, and each defect on its smallest input, whole.
    pub report_at_exit: bool,
    /// The service this program is, as records name it (default: the executable's name).
    #[serde(deserialize_with = "validate::label_opt")]
    pub service: Option<String>,
    /// The program's version, as records name it (default: the version of the instrumented
    /// crate, where the attributes can see it).
    #[serde(deserialize_with = "validate::label_opt")]
    pub version: Option<String>,
    /// This instance's share of a fleet's testing (`INVITE_SHARD` wins over it).
    #[serde(deserialize_with = "validate::fleet_opt")]
    pub fleet: Option<Fleet>,
    /// Per-site settings by site name (`[functions."module::Type::method"]`).
    pub functions: BTreeMap<String, SiteConfig>,
}

/// `fleet = { size = N, member = K, rotate = "10m" }`: member K of a fleet of N instances,
/// which share the (site, test) pairs among them and hand them on every `rotate`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fleet {
    /// Instances in the fleet.
    pub size: u64,
    /// This instance's index, from 0 to `size - 1`.
    pub member: u64,
    /// How long one assignment of pairs lasts (`"10m"`, `"90s"`; at least a second).
    #[serde(
        default = "default_rotate",
        with = "validate::period",
        skip_serializing_if = "is_default_rotate"
    )]
    pub rotate: std::time::Duration,
}

fn default_rotate() -> std::time::Duration {
    crate::fleet::DEFAULT_ROTATE
}

fn is_default_rotate(d: &std::time::Duration) -> bool {
    *d == crate::fleet::DEFAULT_ROTATE
}

impl Default for Config {
    fn default() -> Self {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get() as u64);
        Config {
            enabled: true,
            default_rho: 0.0,
            max_concurrent: cpus.saturating_sub(1).clamp(1, MAX_CONCURRENT),
            max_overhead: 0.05,
            timeout_ms: 2000,
            when_busy: WhenBusy::Skip,
            tests_per_site: None,
            on_failure: OnFailure::Log,
            log: "invite-log.jsonl".to_string(),
            seed: None,
            stats_interval_ms: 10_000,
            drain_ms: 2000,
            nice: 10,
            dedup_bytes: 1 << 20,
            sandbox: Sandbox::Seccomp,
            memory_mb: None,
            worker_ring_mib: 4,
            child_cpu_charge: None,
            hide_runs: HideRuns::Always,
            tracing: false,
            report_at_exit: false,
            service: None,
            version: None,
            fleet: None,
            functions: BTreeMap::new(),
        }
    }
}

/// Tolerance of top-level comparisons where neither the attribute nor `[functions]` sets one.
pub const DEFAULT_TOLERANCE: f64 = 1e-6;

/// The most runs at once: every run's hand-over message must fit in the collector's pipe
/// (64 KiB) together, so that a caller's write never waits for the collector.
pub const MAX_CONCURRENT: u64 = 256;

/// A configuration file that could not be used, with where and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// The file read.
    pub file: PathBuf,
    /// 1-based; 0 when the error is not tied to a place in the file.
    pub line: usize,
    /// 1-based, in characters; 0 with `line`.
    pub column: usize,
    /// Dotted path of the offending key, empty for syntax errors outside any key.
    pub key: String,
    /// What is wrong and what to write instead.
    pub message: String,
    /// The file's further errors, in file order: every bad key is reported at once.
    pub more: Vec<ConfigError>,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if self.line > 0 {
            write!(f, ":{}:{}", self.line, self.column)?;
        }
        if !self.key.is_empty() {
            write!(f, ": key `{}`", self.key)?;
        }
        write!(f, ": {}", self.message)?;
        for e in &self.more {
            write!(f, "\n  {e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigError {}

impl Config {
    /// The share of test children's CPU time charged to the budget.
    pub fn child_cpu_charge(&self) -> f64 {
        self.child_cpu_charge.unwrap_or_else(|| {
            default_child_cpu_charge(std::thread::available_parallelism().map_or(1, |n| n.get()))
        })
    }

    /// The settings of the site named `name`, empty when the file has none.
    pub fn site(&self, name: &str) -> SiteConfig {
        self.functions.get(name).cloned().unwrap_or_default()
    }

    /// The `[functions."…"]` entries that name none of `sites`, each with the site it most
    /// likely meant: the one with the same last segment (a method named without its type, or
    /// with another module), else the nearest name within a few edits.
    pub fn unmatched_entries<'a>(
        &self,
        sites: impl IntoIterator<Item = &'a str>,
    ) -> Vec<(String, Option<String>)> {
        let sites: Vec<&str> = sites.into_iter().collect();
        self.functions
            .keys()
            .filter(|k| !sites.contains(&k.as_str()))
            .map(|k| (k.clone(), nearest_site(k, &sites).map(str::to_string)))
            .collect()
    }
}

/// The site an unmatched entry most likely meant (see [`Config::unmatched_entries`]).
fn nearest_site<'a>(entry: &str, sites: &[&'a str]) -> Option<&'a str> {
    fn last(name: &str) -> &str {
        name.rsplit("::").next().unwrap_or("")
    }
    let mut same_last: Vec<&str> = sites
        .iter()
        .copied()
        .filter(|s| last(s) == last(entry))
        .collect();
    same_last.sort_by_key(|s| strsim::levenshtein(s, entry));
    if let Some(s) = same_last.first() {
        return Some(s);
    }
    let limit = (entry.chars().count() / 4).max(2);
    sites
        .iter()
        .copied()
        .map(|s| (strsim::levenshtein(s, entry), s))
        .filter(|(d, _)| *d <= limit)
        .min()
        .map(|(_, s)| s)
}

/// `1 / (CPUs − 1)`: a test's CPU time counts in full while it has at most one CPU to itself,
/// and less the more the program has to spare.
fn default_child_cpu_charge(cpus: usize) -> f64 {
    1.0 / cpus.saturating_sub(1).max(1) as f64
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn entries_that_name_no_site_are_listed_with_the_site_they_likely_meant() {
        let text = "[functions.\"app::push\"]\nrho = 0.1\n\
                    [functions.\"app::stats::mean\"]\nrho = 0.1\n\
                    [functions.\"app::stats::meen\"]\nrho = 0.1\n\
                    [functions.\"app::elsewhere::nothing_like_it\"]\nrho = 0.1\n";
        let c = Config::from_toml(text, Path::new("invite.toml")).unwrap();
        let sites = [
            "app::RunningStats::push",
            "app::Queue::push_back",
            "app::stats::mean",
            "app::stats::median",
        ];
        let mut got = c.unmatched_entries(sites);
        got.sort();
        assert_eq!(
            got,
            vec![
                ("app::elsewhere::nothing_like_it".to_string(), None),
                (
                    "app::push".to_string(),
                    Some("app::RunningStats::push".to_string())
                ),
                (
                    "app::stats::meen".to_string(),
                    Some("app::stats::mean".to_string())
                ),
            ]
        );
        assert!(c
            .unmatched_entries([
                "app::push",
                "app::stats::mean",
                "app::stats::meen",
                "app::elsewhere::nothing_like_it"
            ])
            .is_empty());
    }

    #[test]
    fn of_several_sites_with_the_same_last_segment_the_closest_is_suggested() {
        let sites = ["zzz::other::push", "app::Stack::push", "app::Queue::push"];
        assert_eq!(
            nearest_site("app::Stak::push", &sites),
            Some("app::Stack::push")
        );
        assert_eq!(nearest_site("app::pop", &sites), None);
        // Within a quarter of the name's length (at least two edits), and no further.
        assert_eq!(
            nearest_site("app::Stack::puss", &["app::Stack::push"]),
            Some("app::Stack::push")
        );
        assert_eq!(nearest_site("ab::cd", &["ab::xy"]), Some("ab::xy"));
        // Three edits in a name of 18 characters: within a quarter of it.
        assert_eq!(
            nearest_site("ap::stat::varianse", &["app::stats::variance"]),
            Some("app::stats::variance")
        );
        assert_eq!(nearest_site("ab::cd", &["ab::xyz"]), None);
    }

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::from_toml(text, Path::new("invite.toml"))
    }

    #[test]
    fn empty_file_gives_defaults() {
        assert_eq!(parse("").unwrap(), Config::default());
    }

    /// The configuration table of the guide (`src/guide/configuration.md`), as (key, default) pairs.
    fn documented_defaults() -> Vec<(String, String)> {
        let readme = include_str!("../guide/configuration.md");
        let table = readme
            .split("| key | default | meaning |")
            .nth(1)
            .expect("the configuration chapter has its table");
        table
            .lines()
            .skip(2)
            .take_while(|l| l.starts_with('|'))
            .map(|row| {
                let cells: Vec<&str> = row.split('|').map(str::trim).collect();
                let unquote = |c: &str| c.trim_matches('`').to_string();
                (unquote(cells[1]), unquote(cells[2]))
            })
            .collect()
    }

    #[test]
    fn every_key_has_the_default_the_readme_documents() {
        let defaults = Config::default();
        let documented = documented_defaults();
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let serde_json::Value::Object(fields) = serde_json::to_value(&defaults).unwrap() else {
            panic!("a configuration serializes as a table");
        };
        for key in fields.keys().filter(|k| *k != "functions") {
            assert!(
                documented.iter().any(|(k, _)| k == key),
                "`{key}` is missing from the configuration table of the guide"
            );
        }
        for (key, default) in &documented {
            match default.as_str() {
                "" => assert_eq!(key, "[functions.\"site\"]"),
                "none" => assert_eq!(fields[key], serde_json::Value::Null, "{key}"),
                "CPUs − 1, at least 1" => {
                    assert_eq!(
                        defaults.max_concurrent,
                        cpus.saturating_sub(1).max(1) as u64
                    )
                }
                "1/(CPUs−1)" => {
                    assert_eq!(defaults.child_cpu_charge, None);
                    assert_eq!(defaults.child_cpu_charge(), default_child_cpu_charge(cpus));
                }
                literal => {
                    let written = parse(&format!("{key} = {literal}"))
                        .unwrap_or_else(|e| panic!("documented default of `{key}`: {e}"));
                    assert_eq!(written, defaults, "`{key} = {literal}` is not the default");
                    assert!(
                        fields.contains_key(key),
                        "the guide documents an unknown key `{key}`"
                    );
                }
            }
        }
        assert_eq!(
            documented.len(),
            fields.len(),
            "one row per key, and one for the per-site table"
        );
    }

    #[test]
    fn a_test_child_s_cpu_counts_in_full_until_the_program_has_cpus_to_spare() {
        assert_eq!(default_child_cpu_charge(0), 1.0);
        assert_eq!(default_child_cpu_charge(1), 1.0);
        assert_eq!(default_child_cpu_charge(2), 1.0);
        assert_eq!(default_child_cpu_charge(3), 0.5);
        assert_eq!(default_child_cpu_charge(5), 0.25);
        let set = parse("child_cpu_charge = 0.3").unwrap();
        assert_eq!(set.child_cpu_charge(), 0.3);
    }
}
