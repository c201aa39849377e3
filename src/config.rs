//! `invite.toml` and the environment.
//!
//! The file is read once, when the first instrumented site is reached (or at [`crate::init`]).
//! `INVITE=off` wins over everything; `$INVITE_CONFIG` names the file, else `./invite.toml`; with
//! neither, invite stays off and the program runs untouched. A file that does not parse, or holds
//! a wrong value or an unknown key, yields one [`ConfigError`] naming file, line, column and key;
//! the caller prints it once and turns invite off. The host program is never stopped by it.

use std::collections::BTreeMap;
use std::fmt;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer, Serialize};

/// What happens when a test fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
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
pub enum WhenBusy {
    /// The call goes on untested (counted in `skipped`): the caps bound what the program pays.
    Skip,
    /// The call waits until the caps admit its run (at most one run's deadline), then goes on:
    /// every sampled call is tested, and the program slows down instead. For development and
    /// CI runs.
    Wait,
}

/// How a test is kept from changing anything outside its process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Sandbox {
    /// Memory isolation by the fork, and a seccomp filter against every other side effect.
    Seccomp,
    /// Memory isolation only.
    Fork,
}

/// Settings for one site, from `[functions."site::name"]`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiteConfig {
    #[serde(
        default,
        deserialize_with = "probability_opt",
        skip_serializing_if = "Option::is_none"
    )]
    /// Probability that a call is tested (overrides `default_rho` and the attribute's `rho`).
    pub rho: Option<f64>,
    #[serde(
        default,
        deserialize_with = "tolerance_opt",
        skip_serializing_if = "Option::is_none"
    )]
    /// Tolerance of the site's comparisons (overrides the attribute's `tolerance`).
    pub tolerance: Option<f64>,
    #[serde(
        default,
        deserialize_with = "millis_opt",
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
        deserialize_with = "bytes_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub dedup_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// How the site's tests are isolated.
    pub sandbox: Option<Sandbox>,
    /// Address space a test may add, in MiB.
    #[serde(
        default,
        deserialize_with = "mib_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub memory_mb: Option<u64>,
    /// Adaptive rate: adjust the site's ρ to about this many tests a minute.
    #[serde(
        default,
        deserialize_with = "rate_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub target_tests_per_min: Option<f64>,
}

/// The effective configuration. Every field has the default documented in the README.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// `false`: nothing is ever sampled.
    pub enabled: bool,
    /// ρ for sites without a `[functions]` entry or attribute `rho`.
    #[serde(deserialize_with = "probability")]
    pub default_rho: f64,
    /// Live test runs (forked children) at once.
    #[serde(deserialize_with = "concurrency")]
    pub max_concurrent: u64,
    /// Share of wall time the program may spend starting tests.
    #[serde(deserialize_with = "probability")]
    pub max_overhead: f64,
    /// Deadline of each test, in milliseconds.
    #[serde(deserialize_with = "millis")]
    pub timeout_ms: u64,
    /// What a sampled call does when a cap refuses its run.
    pub when_busy: WhenBusy,
    /// What to do when a test fails.
    pub on_failure: OnFailure,
    /// Path of the JSON Lines log, appended to; `"-"` for stderr.
    #[serde(deserialize_with = "non_empty")]
    pub log: String,
    /// Fixes sampling and test seeds for reproducible runs.
    pub seed: Option<u64>,
    /// Interval between `stats` records, in milliseconds.
    #[serde(deserialize_with = "millis")]
    pub stats_interval_ms: u64,
    /// How long the exit handler waits for running tests before killing them.
    pub drain_ms: u64,
    /// Niceness added to test children (0 to 19).
    #[serde(deserialize_with = "niceness")]
    pub nice: i32,
    /// `"seccomp"` (where the kernel has it) or `"fork"`.
    pub sandbox: Sandbox,
    /// Address space each test may add beyond what it inherits, in MiB (unset: no limit).
    #[serde(deserialize_with = "mib_opt")]
    pub memory_mb: Option<u64>,
    /// Share of test children's CPU time charged to the overhead budget (default
    /// `1 / (CPUs - 1)`, 1 on one or two CPUs).
    #[serde(deserialize_with = "probability_some")]
    pub child_cpu_charge: Option<f64>,
    /// Default memory of each deduplicating site's seen-state filter.
    #[serde(deserialize_with = "bytes")]
    pub dedup_bytes: u64,
    /// Runs are made so that the program's SIGCHLD handler and `waitpid(-1)` never see them;
    /// `false`: plain forks, cheaper for the caller but seen by both.
    pub hide_runs: bool,
    /// Every test record also becomes a `tracing` event (target `invite::record`; failures at
    /// `WARN`, the rest at `DEBUG`), for the program's own subscriber. Needs the `tracing`
    /// feature.
    #[serde(deserialize_with = "tracing_records")]
    pub tracing: bool,
    /// At exit, the program prints the report of its own run to stderr: outcomes per site and
    /// relation, and each defect on its smallest input, whole.
    pub report_at_exit: bool,
    /// Per-site settings by site name (`[functions."module::Type::method"]`).
    pub functions: BTreeMap<String, SiteConfig>,
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
            on_failure: OnFailure::Log,
            log: "invite-log.jsonl".to_string(),
            seed: None,
            stats_interval_ms: 10_000,
            drain_ms: 2000,
            nice: 10,
            dedup_bytes: 1 << 20,
            sandbox: Sandbox::Seccomp,
            memory_mb: None,
            child_cpu_charge: None,
            hide_runs: true,
            tracing: false,
            report_at_exit: false,
            functions: BTreeMap::new(),
        }
    }
}

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

/// Where the configuration comes from, decided by the environment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// `INVITE=off` (or `0`, `false`, `no`).
    Disabled,
    /// No `$INVITE_CONFIG` and no `./invite.toml`.
    Absent,
    /// The file `$INVITE_CONFIG` or `./invite.toml` names.
    File(PathBuf),
}

impl Source {
    /// Reads `INVITE` and `INVITE_CONFIG`.
    pub fn from_env() -> Source {
        if let Ok(v) = std::env::var("INVITE") {
            if matches!(
                v.trim().to_ascii_lowercase().as_str(),
                "off" | "0" | "false" | "no"
            ) {
                return Source::Disabled;
            }
        }
        match std::env::var_os("INVITE_CONFIG") {
            Some(p) if !p.is_empty() => Source::File(PathBuf::from(p)),
            _ => {
                let local = PathBuf::from("invite.toml");
                if local.is_file() {
                    Source::File(local)
                } else {
                    Source::Absent
                }
            }
        }
    }
}

/// Tolerance of top-level comparisons where neither the attribute nor `[functions]` sets one.
pub const DEFAULT_TOLERANCE: f64 = 1e-6;

/// The largest configuration file read (an `invite.toml` is a few hundred bytes).
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

impl Config {
    /// Reads and validates one file. It is opened without blocking and must be a regular file
    /// of at most [`MAX_CONFIG_BYTES`]: a FIFO or a device named by mistake must not hang or
    /// flood the program at its first sampled call.
    pub fn from_file(path: &Path) -> Result<Config, ConfigError> {
        let fail = |message: String| ConfigError {
            file: path.to_path_buf(),
            line: 0,
            column: 0,
            key: String::new(),
            message,
            more: Vec::new(),
        };
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC | libc::O_NOCTTY)
            .open(path)
            .map_err(|e| {
                fail(format!(
                    "cannot read the file: {e}; fix the path in INVITE_CONFIG or create it"
                ))
            })?;
        let meta = file
            .metadata()
            .map_err(|e| fail(format!("cannot read the file: {e}")))?;
        if !meta.is_file() {
            return Err(fail(
                "it is not a regular file (a FIFO, device or directory); point INVITE_CONFIG \
                 at an invite.toml"
                    .to_string(),
            ));
        }
        let mut text = String::new();
        let read = std::io::Read::read_to_string(
            &mut std::io::Read::take(&file, MAX_CONFIG_BYTES + 1),
            &mut text,
        );
        read.map_err(|e| fail(format!("cannot read the file: {e}")))?;
        if text.len() as u64 > MAX_CONFIG_BYTES {
            return Err(fail(format!(
                "the file is larger than {} KiB; is INVITE_CONFIG pointing at the right file?",
                MAX_CONFIG_BYTES >> 10
            )));
        }
        Config::from_toml(&text, path)
    }

    /// Parses and validates TOML text; `path` only names the file in errors. All the file's
    /// errors are reported together (the first, with the rest in [`ConfigError::more`]), except
    /// after a syntax error, which stops the reading.
    pub fn from_toml(text: &str, path: &Path) -> Result<Config, ConfigError> {
        // Each bad key's line is blanked (offsets kept) and the text read again, so that the
        // next error is found too.
        let mut text_now = text.to_string();
        let mut errors: Vec<ConfigError> = Vec::new();
        while errors.len() < MAX_ERRORS {
            let syntax_ok = text_now.parse::<toml::Table>().is_ok();
            if !syntax_ok && !errors.is_empty() {
                // Blanking a line of a value written over several lines broke the syntax:
                // what follows would be noise.
                break;
            }
            let error = match Config::from_toml_once(&text_now, path) {
                Ok(config) if errors.is_empty() => return Ok(config),
                Ok(_) => break,
                Err(e) => e,
            };
            let header = text_now
                .lines()
                .nth(error.line.wrapping_sub(1))
                .is_some_and(|l| l.trim_start().starts_with('['));
            // A syntax error, a table header or an error without a line (which `blank_line`
            // refuses) ends the list.
            let go_on = syntax_ok && !header;
            let line = error.line;
            errors.push(error);
            if !go_on || !blank_line(&mut text_now, line) {
                break;
            }
        }
        let mut first = errors.remove(0);
        first.more = errors;
        Err(first)
    }

    fn from_toml_once(text: &str, path: &Path) -> Result<Config, ConfigError> {
        let de = toml::Deserializer::new(text);
        serde_path_to_error::deserialize::<_, Config>(de).map_err(|err| {
            let key = err.path().to_string();
            let inner = err.into_inner();
            let (line, column) = inner.span().map_or((0, 0), |s| line_column(text, s.start));
            ConfigError {
                file: path.to_path_buf(),
                line,
                column,
                key: if key == "." { String::new() } else { key },
                message: inner.message().trim().to_string(),
                more: Vec::new(),
            }
        })
    }

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

/// The most errors one file reports.
const MAX_ERRORS: usize = 32;

/// Replaces the 1-based `line` of `text` with spaces; false if it has nothing to blank.
fn blank_line(text: &mut String, line: usize) -> bool {
    if line == 0 {
        return false;
    }
    let start: usize = text
        .split_inclusive('\n')
        .take(line - 1)
        .map(str::len)
        .sum();
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    if text[start..end].trim().is_empty() {
        return false;
    }
    let spaces = " ".repeat(end - start);
    text.replace_range(start..end, &spaces);
    true
}

/// 1-based line and column (in characters) of a byte offset.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

fn probability<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    let v = f64::deserialize(d)?;
    if (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(serde::de::Error::custom(format!(
            "expected a number from 0.0 to 1.0 (a probability or share), got {v}"
        )))
    }
}

fn probability_some<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    probability(d).map(Some)
}

fn probability_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    probability(d).map(Some)
}

fn tolerance_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    let v = f64::deserialize(d)?;
    if v.is_finite() && v >= 0.0 {
        Ok(Some(v))
    } else {
        Err(serde::de::Error::custom(format!(
            "expected a relative tolerance of 0 or more, such as 1e-9, got {v}"
        )))
    }
}

fn millis<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    let v = u64::deserialize(d)?;
    if v == 0 {
        return Err(serde::de::Error::custom(
            "expected a whole number of milliseconds of 1 or more, got 0",
        ));
    }
    Ok(v)
}

fn millis_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    millis(d).map(Some)
}

fn at_least_one<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    let v = u64::deserialize(d)?;
    if v == 0 {
        return Err(serde::de::Error::custom(
            "expected 1 or more; to turn testing off set `enabled = false`",
        ));
    }
    Ok(v)
}

/// The most runs at once: every run's hand-over message must fit in the collector's pipe
/// (64 KiB) together, so that a caller's write never waits for the collector.
pub const MAX_CONCURRENT: u64 = 256;

fn concurrency<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    let v = at_least_one(d)?;
    if v > MAX_CONCURRENT {
        return Err(serde::de::Error::custom(format!(
            "expected at most {MAX_CONCURRENT} runs at once, got {v}"
        )));
    }
    Ok(v)
}

fn niceness<'de, D: Deserializer<'de>>(d: D) -> Result<i32, D::Error> {
    let v = i32::deserialize(d)?;
    if (0..=19).contains(&v) {
        Ok(v)
    } else {
        Err(serde::de::Error::custom(format!(
            "expected a niceness from 0 to 19, got {v}"
        )))
    }
}

fn bytes<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    let v = u64::deserialize(d)?;
    if (64..=1 << 30).contains(&v) {
        Ok(v)
    } else {
        Err(serde::de::Error::custom(format!(
            "expected a size in bytes from 64 to 1073741824 (1 GiB), got {v}"
        )))
    }
}

fn bytes_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    bytes(d).map(Some)
}

fn mib_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    let v = u64::deserialize(d)?;
    if (1..=1 << 20).contains(&v) {
        Ok(Some(v))
    } else {
        Err(serde::de::Error::custom(format!(
            "expected MiB from 1 to 1048576, got {v}"
        )))
    }
}

fn rate_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    let v = f64::deserialize(d)?;
    if v.is_finite() && v > 0.0 {
        Ok(Some(v))
    } else {
        Err(serde::de::Error::custom(format!(
            "expected a number of tests per minute above 0, got {v}"
        )))
    }
}

fn tracing_records<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    let v = bool::deserialize(d)?;
    if v && !cfg!(feature = "tracing") {
        return Err(serde::de::Error::custom(TRACING_OFF));
    }
    Ok(v)
}

/// Why `tracing = true` is refused in a build without the feature, and the fix.
const TRACING_OFF: &str = "records become tracing events only when invite is built \
     with its `tracing` feature: add features = [\"tracing\"] to the invite-mt dependency in \
     Cargo.toml, or remove this key";

fn non_empty<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let v = String::deserialize(d)?;
    if v.trim().is_empty() {
        return Err(serde::de::Error::custom(
            "expected a file path, or \"-\" for stderr, got an empty string",
        ));
    }
    Ok(v)
}

/// `1 / (CPUs − 1)`: a test's CPU time counts in full while it has at most one CPU to itself,
/// and less the more the program has to spare.
fn default_child_cpu_charge(cpus: usize) -> f64 {
    1.0 / cpus.saturating_sub(1).max(1) as f64
}

#[cfg(test)]
mod tests {

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

    use super::*;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::from_toml(text, Path::new("invite.toml"))
    }

    #[test]
    fn tracing_records_need_the_feature_and_say_how_to_turn_it_on() {
        let path = Path::new("invite.toml");
        assert!(!Config::default().tracing);
        assert!(!Config::from_toml("tracing = false", path).unwrap().tracing);
        let on = Config::from_toml("tracing = true", path);
        if cfg!(feature = "tracing") {
            assert!(on.unwrap().tracing);
        } else {
            let e = on.unwrap_err();
            assert_eq!((e.line, e.key.as_str()), (1, "tracing"));
            assert!(e.message.contains("features = [\"tracing\"]"), "{e}");
        }
    }

    #[test]
    fn a_file_of_exactly_the_cap_is_read_and_one_byte_more_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("invite.toml");
        let mut text = "default_rho = 0.5\n".to_string();
        while (text.len() as u64) < MAX_CONFIG_BYTES - 1 {
            text.push('#');
        }
        text.push('\n');
        assert_eq!(text.len() as u64, MAX_CONFIG_BYTES);
        std::fs::write(&path, &text).unwrap();
        assert_eq!(Config::from_file(&path).unwrap().default_rho, 0.5);
        text.push('\n');
        std::fs::write(&path, &text).unwrap();
        let e = Config::from_file(&path).unwrap_err();
        assert!(e.message.contains("larger than 1024 KiB"), "{}", e.message);
    }

    #[test]
    fn empty_file_gives_defaults() {
        assert_eq!(parse("").unwrap(), Config::default());
    }

    /// The README's configuration table, as (key, default) pairs.
    fn documented_defaults() -> Vec<(String, String)> {
        let readme = include_str!("../README.md");
        let table = readme
            .split("| key | default | meaning |")
            .nth(1)
            .expect("README.md has the configuration table");
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
                "`{key}` is missing from the README's table"
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
                        .unwrap_or_else(|e| panic!("README default of `{key}`: {e}"));
                    assert_eq!(written, defaults, "`{key} = {literal}` is not the default");
                    assert!(
                        fields.contains_key(key),
                        "README documents an unknown key `{key}`"
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
    fn a_site_table_reads_each_key_as_written_and_refuses_what_is_out_of_range() {
        let c = parse(
            "[functions.\"s\"]\nrho = 0.5\ntolerance = 0.25\ntimeout_ms = 7\nenabled = false\n\
             dedup = false\ndedup_bytes = 4096\ntarget_tests_per_min = 12.5\n\
             sandbox = \"fork\"\nmemory_mb = 300\n",
        )
        .unwrap();
        let s = c.site("s");
        assert_eq!(s.rho, Some(0.5));
        assert_eq!(s.tolerance, Some(0.25));
        assert_eq!(s.timeout_ms, Some(7));
        assert_eq!(s.enabled, Some(false));
        assert_eq!(s.dedup, Some(false));
        assert_eq!(s.dedup_bytes, Some(4096));
        assert_eq!(s.target_tests_per_min, Some(12.5));
        assert_eq!(s.sandbox, Some(Sandbox::Fork));
        assert_eq!(s.memory_mb, Some(300));
        for edge in [
            "tolerance = 0.0",
            "dedup_bytes = 64",
            "memory_mb = 1",
            "memory_mb = 1048576",
        ] {
            assert!(
                parse(&format!("[functions.\"s\"]\n{edge}\n")).is_ok(),
                "{edge}"
            );
        }
        for bad in [
            "tolerance = -1.0",
            "tolerance = inf",
            "tolerance = nan",
            "dedup_bytes = 63",
            "memory_mb = 0",
            "memory_mb = 1048577",
            "target_tests_per_min = 0.0",
            "target_tests_per_min = inf",
            "timeout_ms = 0",
        ] {
            let e = parse(&format!("[functions.\"s\"]\n{bad}\n")).unwrap_err();
            let key = bad.split(' ').next().unwrap();
            assert_eq!(e.key, format!("functions.s.{key}"), "{bad}: {e}");
        }
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

    #[test]
    fn full_example_parses() {
        let c = parse(
            "enabled = true\ndefault_rho = 0.0\nmax_concurrent = 1\nmax_overhead = 0.05\n\
             timeout_ms = 2000\non_failure = \"notify\"\nlog = \"x.jsonl\"\nseed = 42\n\
             [functions.\"q::s::std_dev\"]\nrho = 0.25\ntolerance = 1e-9\n",
        )
        .unwrap();
        assert_eq!(c.on_failure, OnFailure::Notify);
        assert_eq!(c.seed, Some(42));
        assert_eq!(c.site("q::s::std_dev").rho, Some(0.25));
        assert_eq!(c.site("q::s::std_dev").tolerance, Some(1e-9));
        assert_eq!(c.site("other"), SiteConfig::default());
    }

    #[test]
    fn out_of_range_value_names_line_column_and_key() {
        let e = parse("enabled = true\ndefault_rho = 1.5\n").unwrap_err();
        assert_eq!((e.line, e.column), (2, 15));
        assert_eq!(e.key, "default_rho");
        assert!(e.message.contains("0.0 to 1.0"), "{e}");
    }

    #[test]
    fn wrong_type_in_site_table_names_the_dotted_key() {
        let e = parse("[functions.\"a::b\"]\nrho = \"high\"\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert_eq!(e.key, "functions.a::b.rho");
        assert!(e.message.contains("invalid type"), "{e}");
    }

    #[test]
    fn too_many_runs_at_once_is_refused_with_the_limit() {
        let e = parse("max_concurrent = 257\n").unwrap_err();
        assert_eq!((e.line, e.key.as_str()), (1, "max_concurrent"));
        assert!(e.message.contains("at most 256"), "{e}");
        assert_eq!(parse("max_concurrent = 256\n").unwrap().max_concurrent, 256);
        let e = parse("max_concurrent = 0\n").unwrap_err();
        assert!(e.message.contains("1 or more"), "{e}");
    }

    #[test]
    fn unknown_key_is_an_error() {
        let e = parse("enabled = true\nmax_concurent = 2\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("unknown field `max_concurent`"), "{e}");
    }

    #[test]
    fn syntax_error_has_a_place() {
        let e = parse("enabled = \n").unwrap_err();
        assert_eq!(e.line, 1);
        assert!(e.column > 1);
        assert!(e.to_string().starts_with("invite.toml:1:"), "{e}");
    }

    #[test]
    fn every_bad_key_is_reported_at_once_in_file_order() {
        let e = parse(
            "default_rho = 1.5\nmax_concurent = 2\nenabled = true\n\
             [functions.\"a::b\"]\nrho = \"high\"\ntimeout_ms = 5\n",
        )
        .unwrap_err();
        let found: Vec<(usize, &str)> = std::iter::once(&e)
            .chain(&e.more)
            .map(|e| (e.line, e.key.as_str()))
            .collect();
        assert_eq!(found[0], (1, "default_rho"));
        assert_eq!(found[1].0, 2);
        assert_eq!(found[2], (5, "functions.a::b.rho"));
        assert_eq!(found.len(), 3, "{e}");
        assert!(e.more.iter().all(|m| m.more.is_empty()));
        let text = e.to_string();
        assert_eq!(text.lines().count(), 3, "{text}");
        assert!(
            text.lines().nth(1).unwrap().starts_with("  invite.toml:2:"),
            "{text}"
        );
        assert!(text.contains("unknown field `max_concurent`"), "{text}");
    }

    #[test]
    fn a_syntax_error_is_reported_alone() {
        let e = parse("default_rho = 1.5\nenabled = \n").unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        assert!(e.more.is_empty(), "{e}");
    }

    #[test]
    fn a_value_over_several_lines_ends_the_list_without_noise() {
        // Blanking the first line of the array would leave a broken file: the reading stops.
        let e = parse("max_concurrent = [\n1,\n2]\ndefault_rho = 7.0\n").unwrap_err();
        assert_eq!(e.key, "max_concurrent", "{e}");
        assert!(e.more.is_empty(), "{e}");
    }

    #[test]
    fn an_error_on_a_table_header_ends_the_list() {
        // Its keys would otherwise land in the table before it.
        let e = parse("functions = 3\ndefault_rho = 7.0\n").unwrap_err();
        assert_eq!(e.key, "functions", "{e}");
        let e = parse("[functions]\n\"a::b\" = 3\n").unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        let e =
            parse("[functions.\"a::b\"]\nrho = 2.0\n[functions.\"c\"]\nrho = 3.0\n").unwrap_err();
        assert_eq!(e.more.len(), 1, "{e}");
    }

    #[test]
    fn blanking_keeps_every_offset_and_refuses_empty_lines() {
        let mut text = "a = 1\nbé = 2\n\nc = 3".to_string();
        assert!(blank_line(&mut text, 2));
        assert_eq!(text, "a = 1\n       \n\nc = 3");
        assert!(!blank_line(&mut text, 2));
        assert!(!blank_line(&mut text, 3));
        assert!(!blank_line(&mut text, 0));
        assert!(!blank_line(&mut text, 9));
        assert!(blank_line(&mut text, 4));
        assert_eq!(text.len(), "a = 1\nbé = 2\n\nc = 3".len());
    }

    #[test]
    fn a_file_full_of_errors_reports_the_first_thirty_two() {
        let text: String = (0..40).map(|i| format!("unknown_{i} = 1\n")).collect();
        let e = parse(&text).unwrap_err();
        assert_eq!(e.more.len() + 1, MAX_ERRORS, "{e}");
        assert_eq!(e.more.last().unwrap().line, MAX_ERRORS);
    }
}
