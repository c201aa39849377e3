//! Live configuration: the running program follows its `invite.toml`.
//!
//! An orchestrator changes a fleet's settings by changing a file: a Kubernetes ConfigMap
//! mounted as a directory (updated by swapping a symlink), a file a configuration-management
//! tool writes. The collector thread applies a changed file within a second: ρ, the caps,
//! `[functions]`, `fleet` and the other settings that a running process can change; the rest
//! (`log`, `seed`, `sandbox`, ...) are listed as taking effect at the next start. The change is
//! seen by `notify` watching the file's directory (where a symlink swap shows; a watch on the
//! file itself would follow the old file), by a look at the file's metadata every second in
//! case an event was missed (and every quarter second where no watch could be set up), and at
//! once after [`crate::reload`]. A file that fails to parse or validate leaves the last good
//! configuration in force; its error is said once, as `invite check-config` would say it, and
//! written as a `config` record.
//!
//! The sampler never waits for any of this: what it reads changes by atomic stores (see
//! `site::Live`).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::budget::Budget;
use crate::config::{Config, ConfigError};
use crate::diag::Level;
use crate::fleet::Shard;
use crate::record::{self, ConfigChange, Instance};
use crate::site::{self, Live};

/// Asked by [`crate::reload`]: the file is read whatever its metadata says.
static ASKED: AtomicBool = AtomicBool::new(false);

/// Set by the watcher on any event in the file's directory (the log written beside it, too):
/// the file's metadata is looked at, and the file read only if that changed.
static STIRRED: AtomicBool = AtomicBool::new(false);

/// Asks the collector to read the configuration file again at its next step (within 10 ms).
pub(crate) fn ask() {
    ASKED.store(true, Ordering::Release);
}

/// The keys a running process cannot change: they are applied at its next start. `sandbox`
/// and `memory_mb` bound what a test may do: a file a running program reads could otherwise
/// widen its sandbox.
const AT_RESTART: [&str; 10] = [
    "log",
    "worker_ring_mib",
    "seed",
    "nice",
    "sandbox",
    "memory_mb",
    "hide_runs",
    "dedup_bytes",
    "service",
    "version",
];

/// The keys of a `[functions]` entry applied at the next start, for the same reason.
const SITE_AT_RESTART: [&str; 2] = ["sandbox", "memory_mb"];

/// How long a changed file must stay unchanged before it is read: a file written in several
/// steps (truncated, then written, as `echo >` and some editors do) is read once whole.
const SETTLE: Duration = Duration::from_millis(200);

/// How a kill at a run's deadline is given time to be reaped (as the runtime starts with).
const KILL_GRACE: Duration = Duration::from_secs(1);

/// What one look at the configuration found, for the collector to act on.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// Nothing new.
    Unchanged,
    /// A new configuration is in force; the collector takes its own settings from it.
    Applied(Box<Config>, ConfigChange),
    /// The file could not be used; the last good configuration stays.
    Refused(ConfigChange),
    /// A fleet's period turned: the sites were given the new period's share.
    Rotated,
}

/// What one look does with the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Glance {
    /// Nothing: not asked, nothing stirred, and the last look was recent.
    Skip,
    /// Its metadata is compared with the last; the file is read if they differ.
    Stat,
    /// It is read whatever its metadata says ([`crate::reload`]).
    Read,
}

/// The look due when asked or not, stirred or not, `since_last` after the last look, with looks
/// due `every` so long anyway.
fn glance(asked: bool, stirred: bool, since_last: Duration, every: Duration) -> Glance {
    if asked {
        Glance::Read
    } else if stirred || since_last >= every {
        Glance::Stat
    } else {
        Glance::Skip
    }
}

/// The file's identity and version as the file system tells them: a change of any is looked at.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Stamp {
    inode: u64,
    device: u64,
    length: u64,
    modified: Option<std::time::SystemTime>,
    changed: (i64, i64),
    kind: &'static str,
}

fn stamp(path: &Path) -> Option<Stamp> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path).ok()?;
    Some(Stamp {
        inode: m.ino(),
        device: m.dev(),
        length: m.len(),
        modified: m.modified().ok(),
        changed: (m.ctime(), m.ctime_nsec()),
        kind: if m.is_file() { "file" } else { "other" },
    })
}

/// The collector's side of live configuration.
pub(crate) struct Reloader {
    /// The file, if the configuration came from one (not from `init_with` or a check).
    file: Option<PathBuf>,
    /// Keeps the directory watched; `None` where no watch could be set up.
    #[cfg(feature = "watch")]
    _watcher: Option<notify::RecommendedWatcher>,
    look_every: Duration,
    last_look: Instant,
    stamp: Option<Stamp>,
    /// A change seen and not yet read: its stamp, and since when the file has had it.
    settling: Option<(Option<Stamp>, Instant)>,
    /// What the process started with (for the keys applied at restart) and what is in force.
    started: Config,
    in_force: Config,
    hash: u64,
    /// The hash of the file's settings as last read, restart keys and all: a file that changes
    /// only keys applied at the next start is still said to have been read.
    read_hash: u64,
    /// `INVITE_SHARD`, which wins over the file's `fleet`.
    shard_from_env: Option<(u64, u64)>,
    shard: Option<Shard>,
    period: Option<u64>,
    /// The last error said, so that a bad file is reported once, not at every look.
    refused: Option<String>,
    live: Arc<Live>,
    budget: Arc<Budget>,
    seccomp: bool,
    instance: Instance,
}

/// What the runtime knows at start-up that a reload needs again.
pub(crate) struct Setup {
    pub file: Option<PathBuf>,
    pub config: Config,
    pub shard_from_env: Option<(u64, u64)>,
    pub live: Arc<Live>,
    pub budget: Arc<Budget>,
    pub seccomp: bool,
    pub instance: Instance,
}

impl Reloader {
    pub fn new(setup: Setup) -> Reloader {
        #[cfg(feature = "watch")]
        let watcher = setup.file.as_deref().and_then(watch);
        #[cfg(not(feature = "watch"))]
        let watcher: Option<()> = None;
        let look_every = if watcher.is_some() {
            Duration::from_secs(1)
        } else {
            Duration::from_millis(250)
        };
        let shard = shard_of(setup.shard_from_env, &setup.config);
        let stamp = setup.file.as_deref().and_then(stamp);
        Reloader {
            #[cfg(feature = "watch")]
            _watcher: watcher,
            look_every,
            last_look: Instant::now(),
            stamp,
            settling: None,
            hash: hash_of(&setup.config),
            read_hash: hash_of(&setup.config),
            started: setup.config.clone(),
            in_force: setup.config,
            file: setup.file,
            shard_from_env: setup.shard_from_env,
            period: shard.map(|s| s.period(site::wall_clock())),
            shard,
            refused: None,
            live: setup.live,
            budget: setup.budget,
            seccomp: setup.seccomp,
            instance: setup.instance,
        }
    }

    /// One look, from the collector's step: the file if it may have changed (or was asked
    /// for), and the fleet's period.
    pub fn look(&mut self) -> Outcome {
        let asked = ASKED.swap(false, Ordering::AcqRel);
        let stirred = STIRRED.swap(false, Ordering::AcqRel);
        self.look_given(asked, stirred)
    }

    /// [`Reloader::look`], given whether a look was asked for and whether the watcher stirred
    /// (process-wide flags, read once by `look`).
    fn look_given(&mut self, asked: bool, stirred: bool) -> Outcome {
        // A change that is settling is looked at every step until it has settled.
        let stirred = stirred || self.settling.is_some();
        let glance = glance(asked, stirred, self.last_look.elapsed(), self.look_every);
        if let (Some(file), false) = (self.file.clone(), glance == Glance::Skip) {
            self.last_look = Instant::now();
            let now = stamp(&file);
            let due = glance == Glance::Read || self.settled(&now, Instant::now());
            if due {
                self.stamp = now;
                let outcome = self.read(&file);
                if !matches!(outcome, Outcome::Unchanged) {
                    return outcome;
                }
            }
        }
        self.rotate(site::wall_clock())
    }

    /// Whether the file, whose stamp is `now` at `at`, has changed and then stayed unchanged
    /// for [`SETTLE`]: a change starts settling when first seen, and again at each new stamp.
    fn settled(&mut self, now: &Option<Stamp>, at: Instant) -> bool {
        if *now == self.stamp {
            self.settling = None;
            return false;
        }
        match &self.settling {
            Some((seen, since)) if seen == now => {
                if at.saturating_duration_since(*since) >= SETTLE {
                    self.settling = None;
                    return true;
                }
                false
            }
            _ => {
                self.settling = Some((now.clone(), at));
                false
            }
        }
    }

    /// Gives the sites the share of a new period, when one has begun by `now` (since the Unix
    /// epoch).
    fn rotate(&mut self, now: Duration) -> Outcome {
        let Some(shard) = self.shard else {
            return Outcome::Unchanged;
        };
        let period = shard.period(now);
        if self.period == Some(period) {
            return Outcome::Unchanged;
        }
        self.period = Some(period);
        site::configure_sites(&self.in_force, self.seccomp, false, Some((shard, period)));
        Outcome::Rotated
    }

    fn read(&mut self, file: &Path) -> Outcome {
        // Looked at without opening it: opening a FIFO would wait for a writer.
        if std::fs::metadata(file).is_ok_and(|m| m.is_file() && m.len() == 0) {
            return self.refuse_empty(file);
        }
        match Config::from_file(file) {
            Err(e) => self.refuse(file, &e),
            Ok(read) => {
                self.refused = None;
                let next = with_restart_keys_of(&self.started, read.clone());
                let (hash, read_hash) = (hash_of(&next), hash_of(&read));
                if hash == self.hash && read_hash == self.read_hash {
                    return Outcome::Unchanged;
                }
                self.read_hash = read_hash;
                let changed = changed_keys(&self.in_force, &read);
                let at_restart = waiting_for_restart(&changed, &self.in_force, &read);
                self.apply(next.clone());
                self.hash = hash;
                crate::diag::say(Level::Info, "config", || {
                    applied_message(file, &changed, &at_restart)
                });
                let record = self.record(file, true, changed, at_restart, None);
                Outcome::Applied(Box::new(next), record)
            }
        }
    }

    /// An empty file (what a truncation leaves before the write) is taken for one being
    /// written, never for a wish to turn every setting to its default (`enabled = false` says
    /// that).
    fn refuse_empty(&mut self, file: &Path) -> Outcome {
        let text = format!(
            "{}: the file is empty; taken for a file being written, it is not applied (to turn \
             testing off, write `enabled = false`)",
            file.display()
        );
        self.refuse_text(file, text)
    }

    fn refuse(&mut self, file: &Path, e: &ConfigError) -> Outcome {
        self.refuse_text(file, e.to_string())
    }

    fn refuse_text(&mut self, file: &Path, text: String) -> Outcome {
        if self.refused.as_deref() == Some(text.as_str()) {
            return Outcome::Unchanged;
        }
        self.refused = Some(text.clone());
        crate::diag::say(Level::Error, "config", || {
            format!("{text}. The last good configuration stays in force.")
        });
        Outcome::Refused(self.record(file, false, Vec::new(), Vec::new(), Some(text)))
    }

    /// Puts `config` in force: the caps, the sampler's settings, every site, the fleet's share.
    fn apply(&mut self, config: Config) {
        self.budget
            .set_caps(config.max_concurrent, config.max_overhead);
        let shard = shard_of(self.shard_from_env, &config);
        let period = shard.map(|s| s.period(site::wall_clock()));
        site::configure_sites(&config, self.seccomp, false, shard.zip(period));
        self.live.set(&config, shard, busy_wait_limit());
        if let Some(file) = &self.file {
            for (_, message) in site::unmatched(&config, &file.display().to_string()) {
                crate::diag::say(Level::Warn, "unmatched", || message);
            }
        }
        self.shard = shard;
        self.period = period;
        self.in_force = config;
    }

    fn record(
        &self,
        file: &Path,
        applied: bool,
        changed: Vec<String>,
        at_restart: Vec<String>,
        error: Option<String>,
    ) -> ConfigChange {
        ConfigChange {
            v: record::VERSION,
            time: record::now(),
            host: self.instance.host.clone(),
            pid: self.instance.pid,
            instance: self.instance.id.clone(),
            service: self.instance.service.clone(),
            version: self.instance.version.clone(),
            file: file.display().to_string(),
            hash: format!("{:016x}", self.hash),
            applied,
            changed,
            at_restart,
            shard: self.shard.map(|s| format!("{}/{}", s.member, s.size)),
            error,
            config: serde_json::to_value(&self.in_force).unwrap_or_default(),
        }
    }
}

/// The line that says a file was applied: what changed, and what waits for a restart.
fn applied_message(file: &Path, changed: &[String], at_restart: &[String]) -> String {
    let mut text = format!(
        "{} applied: {}",
        file.display(),
        if changed.is_empty() {
            "no key changed".to_string()
        } else {
            changed.join(", ")
        }
    );
    if !at_restart.is_empty() {
        text.push_str(&format!(
            " ({} take effect at the next start)",
            at_restart.join(", ")
        ));
    }
    text
}

/// Watches the directory of `file` (non-recursively): an edit in place, a rename over it and a
/// ConfigMap's swap of its `..data` symlink all show there. `None` where no watch can be set up
/// (no inotify instances left, say): the metadata is then looked at more often.
#[cfg(feature = "watch")]
fn watch(file: &Path) -> Option<notify::RecommendedWatcher> {
    use notify::Watcher;
    let dir = match file.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut watcher = notify::recommended_watcher(|_event: notify::Result<notify::Event>| {
        STIRRED.store(true, Ordering::Release);
    })
    .ok()?;
    watcher
        .watch(&dir, notify::RecursiveMode::NonRecursive)
        .ok()?;
    Some(watcher)
}

/// The fleet share in force: `INVITE_SHARD` if it was given (and valid), else the file's.
pub(crate) fn shard_of(from_env: Option<(u64, u64)>, config: &Config) -> Option<Shard> {
    let rotate = config
        .fleet
        .as_ref()
        .map_or(crate::fleet::DEFAULT_ROTATE, |f| f.rotate);
    match (from_env, &config.fleet) {
        (Some((member, size)), _) => Some(Shard {
            member,
            size,
            rotate,
        }),
        (None, Some(f)) => Some(Shard {
            member: f.member,
            size: f.size,
            rotate,
        }),
        (None, None) => None,
    }
}

/// Reads `INVITE_SHARD`: `Ok(None)` when unset, the error (naming the variable and the fix)
/// when it cannot be used.
pub(crate) fn shard_from_env(
    value: Option<std::ffi::OsString>,
) -> Result<Option<(u64, u64)>, String> {
    let Some(value) = value else { return Ok(None) };
    let text = value.to_string_lossy();
    let (member, size) = crate::fleet::parse_member_of(&text)
        .map_err(|e| format!("INVITE_SHARD is refused: {e}"))?;
    if size > site::MAX_FLEET {
        return Err(format!(
            "INVITE_SHARD is refused: a fleet of {size} is more than the {} members supported",
            site::MAX_FLEET
        ));
    }
    Ok(Some((member, size)))
}

/// The longest a call waits with `when_busy = "wait"` for a run to end (see `site::Live`):
/// from the sites' deadlines as configured, so called after the sites are.
pub(crate) fn busy_wait_limit() -> Duration {
    site::all()
        .map(|s| {
            crate::sandbox::run_deadline(
                Duration::from_millis(s.timeout_ms()),
                s.meta.tests.len() as u32,
            )
        })
        .max()
        .unwrap_or_default()
        + KILL_GRACE
}

/// The keys of `changed` (between `in_force` and `read`) that wait for the next start, and the
/// `[functions]` entries' keys of [`SITE_AT_RESTART`] that `read` gives other values than
/// those in force (`functions."site".sandbox`).
fn waiting_for_restart(changed: &[String], in_force: &Config, read: &Config) -> Vec<String> {
    let mut keys: Vec<String> = changed
        .iter()
        .filter(|k| AT_RESTART.contains(&k.as_str()))
        .cloned()
        .collect();
    let site_values = |c: &Config, name: &str| {
        let site = c.functions.get(name);
        (site.and_then(|s| s.sandbox), site.and_then(|s| s.memory_mb))
    };
    let mut names: Vec<&String> = in_force
        .functions
        .keys()
        .chain(read.functions.keys())
        .collect();
    names.sort();
    names.dedup();
    for name in names {
        let (was, now) = (site_values(in_force, name), site_values(read, name));
        for (key, differs) in SITE_AT_RESTART.iter().zip([was.0 != now.0, was.1 != now.1]) {
            let full = format!("functions.\"{name}\".{key}");
            if differs && !keys.contains(&full) {
                keys.push(full);
            }
        }
    }
    keys
}

/// `read` with the keys that apply at restart as the process started with them: what is in
/// force once `read` is applied. A `[functions]` entry keeps the sandbox and memory cap it
/// started with, entry by entry (an entry removed keeps them too).
fn with_restart_keys_of(started: &Config, read: Config) -> Config {
    let mut functions = read.functions.clone();
    for (name, site) in &mut functions {
        let was = started.functions.get(name);
        site.sandbox = was.and_then(|w| w.sandbox);
        site.memory_mb = was.and_then(|w| w.memory_mb);
    }
    for (name, was) in &started.functions {
        if !functions.contains_key(name) && (was.sandbox.is_some() || was.memory_mb.is_some()) {
            let kept = crate::config::SiteConfig {
                sandbox: was.sandbox,
                memory_mb: was.memory_mb,
                ..Default::default()
            };
            functions.insert(name.clone(), kept);
        }
    }
    Config {
        functions,
        log: started.log.clone(),
        seed: started.seed,
        nice: started.nice,
        sandbox: started.sandbox,
        memory_mb: started.memory_mb,
        hide_runs: started.hide_runs,
        worker_ring_mib: started.worker_ring_mib,
        dedup_bytes: started.dedup_bytes,
        service: started.service.clone(),
        version: started.version.clone(),
        ..read
    }
}

/// A hash of a configuration that every instance computes alike for the same settings.
fn hash_of(config: &Config) -> u64 {
    let text = serde_json::to_string(config).unwrap_or_default();
    crate::fleet::stable_hash(&[text.as_bytes()])
}

/// The keys whose values differ between `old` and `new`: top-level keys by name, and
/// `[functions]` entries by `functions."site"` (added or removed) or `functions."site".key`.
fn changed_keys(old: &Config, new: &Config) -> Vec<String> {
    let (serde_json::Value::Object(a), serde_json::Value::Object(b)) = (
        serde_json::to_value(old).unwrap_or_default(),
        serde_json::to_value(new).unwrap_or_default(),
    ) else {
        return Vec::new();
    };
    let mut keys: Vec<String> = Vec::new();
    let empty = serde_json::Map::new();
    let mut names: Vec<&String> = a.keys().chain(b.keys()).collect();
    names.sort();
    names.dedup();
    for key in names {
        if key == "functions" {
            continue;
        }
        if a.get(key) != b.get(key) {
            keys.push(key.clone());
        }
    }
    let table = |m: &serde_json::Map<String, serde_json::Value>| {
        m.get("functions")
            .and_then(|f| f.as_object())
            .cloned()
            .unwrap_or_default()
    };
    let (fa, fb) = (table(&a), table(&b));
    let mut sites: Vec<&String> = fa.keys().chain(fb.keys()).collect();
    sites.sort();
    sites.dedup();
    for s in sites {
        match (fa.get(s), fb.get(s)) {
            (Some(x), Some(y)) => {
                let (x, y) = (
                    x.as_object().unwrap_or(&empty),
                    y.as_object().unwrap_or(&empty),
                );
                let mut inner: Vec<&String> = x.keys().chain(y.keys()).collect();
                inner.sort();
                inner.dedup();
                for k in inner {
                    if x.get(k) != y.get(k) {
                        keys.push(format!("functions.\"{s}\".{k}"));
                    }
                }
            }
            _ => keys.push(format!("functions.\"{s}\"")),
        }
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Sandbox;

    fn parse(text: &str) -> Config {
        Config::from_toml(text, Path::new("invite.toml")).expect("a valid configuration")
    }

    /// A reloader of `file` as it is now, on its own caps and settings.
    fn reloader(file: &Path) -> Reloader {
        let config = Config::from_file(file).expect("a valid configuration");
        Reloader::new(Setup {
            file: Some(file.to_path_buf()),
            config: config.clone(),
            shard_from_env: None,
            live: Arc::new(Live::new(&config, None, Duration::ZERO)),
            budget: Arc::new(Budget::new(1, 1.0)),
            seccomp: false,
            instance: Instance::for_tests(),
        })
    }

    #[test]
    fn changed_keys_name_top_level_keys_and_site_entries() {
        let old = parse(
            "default_rho = 0.1\n[functions.\"a::f\"]\nrho = 0.5\n[functions.\"a::g\"]\nrho = 0.2\n",
        );
        let new = parse(
            "default_rho = 0.2\nmax_concurrent = 3\n[functions.\"a::f\"]\nrho = 0.5\ntimeout_ms = 9\n\
             [functions.\"a::h\"]\nrho = 0.2\n",
        );
        assert_eq!(
            changed_keys(&old, &new),
            vec![
                "default_rho",
                "max_concurrent",
                "functions.\"a::f\".timeout_ms",
                "functions.\"a::g\"",
                "functions.\"a::h\"",
            ]
        );
        assert!(changed_keys(&old, &old).is_empty());
        let fleet = parse("fleet = { size = 4, member = 1 }");
        assert_eq!(changed_keys(&Config::default(), &fleet), vec!["fleet"]);
    }

    #[test]
    fn keys_applied_at_restart_keep_their_starting_values() {
        let started = parse(
            "log = \"/var/log/a.jsonl\"\nseed = 7\nnice = 5\nsandbox = \"fork\"\n\
             hide_runs = false\ndedup_bytes = 4096\nservice = \"a\"\nversion = \"1.0\"\n\
             worker_ring_mib = 8\nmemory_mb = 64",
        );
        let read = parse(
            "log = \"/tmp/b.jsonl\"\nseed = 8\nnice = 9\nsandbox = \"seccomp\"\nhide_runs = true\n\
             dedup_bytes = 8192\nservice = \"b\"\nversion = \"2.0\"\ndefault_rho = 0.3\n\
             worker_ring_mib = 16\nmemory_mb = 128",
        );
        // Every key applied at restart differs between the two...
        assert_eq!(changed_keys(&started, &read).len(), AT_RESTART.len() + 1);
        let next = with_restart_keys_of(&started, read);
        // ...and keeps its starting value.
        assert!(changed_keys(&started, &next) == ["default_rho"], "{next:?}");
        assert_eq!(next.default_rho, 0.3, "a live key takes the new value");
    }

    #[test]
    fn a_site_s_sandbox_and_memory_cap_keep_their_starting_values_and_are_named() {
        let started = parse(
            "[functions.\"a::f\"]\nsandbox = \"seccomp\"\nmemory_mb = 8\n\
             [functions.\"a::gone\"]\nsandbox = \"seccomp\"\nmemory_mb = 16\nrho = 0.5\n\
             [functions.\"a::plain\"]\nrho = 0.1\n",
        );
        let read = parse(
            "[functions.\"a::f\"]\nsandbox = \"fork\"\nmemory_mb = 512\nrho = 0.9\n\
             [functions.\"a::new\"]\nsandbox = \"fork\"\nmemory_mb = 64\n\
             [functions.\"a::plain\"]\nrho = 0.2\nsandbox = \"fork\"\n",
        );
        let next = with_restart_keys_of(&started, read.clone());
        let f = &next.functions["a::f"];
        assert_eq!(
            (f.sandbox, f.memory_mb, f.rho),
            (Some(Sandbox::Seccomp), Some(8), Some(0.9))
        );
        let new = &next.functions["a::new"];
        assert_eq!(
            (new.sandbox, new.memory_mb),
            (None, None),
            "added: as started, none"
        );
        let plain = &next.functions["a::plain"];
        assert_eq!((plain.sandbox, plain.rho), (None, Some(0.2)));
        // An entry removed keeps what bounds its tests, and nothing else.
        let gone = &next.functions["a::gone"];
        assert_eq!(
            (gone.sandbox, gone.memory_mb, gone.rho),
            (Some(Sandbox::Seccomp), Some(16), None)
        );
        let changed = changed_keys(&started, &read);
        let waiting = waiting_for_restart(&changed, &started, &read);
        assert_eq!(
            waiting,
            [
                "functions.\"a::f\".sandbox",
                "functions.\"a::f\".memory_mb",
                "functions.\"a::gone\".sandbox",
                "functions.\"a::gone\".memory_mb",
                "functions.\"a::new\".sandbox",
                "functions.\"a::new\".memory_mb",
                "functions.\"a::plain\".sandbox",
            ]
        );
        // Nothing waits when the file gives what is in force.
        assert!(waiting_for_restart(&[], &next, &next).is_empty());
    }

    #[test]
    fn an_empty_file_is_refused_and_a_file_changing_only_restart_keys_is_said() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("invite.toml");
        std::fs::write(&file, "default_rho = 0.1\n").unwrap();
        let mut r = reloader(&file);
        std::fs::write(&file, "").unwrap();
        match r.read(&file) {
            Outcome::Refused(c) => {
                let e = c.error.unwrap();
                assert!(e.contains("the file is empty"), "{e}");
                assert!(e.contains("enabled = false"), "{e}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(r.in_force.default_rho, 0.1, "the last good settings stay");
        // A file that changes a key applied at the next start alone is said, once.
        std::fs::write(&file, "default_rho = 0.1\nsandbox = \"fork\"\n").unwrap();
        match r.read(&file) {
            Outcome::Applied(next, c) => {
                assert_eq!(c.at_restart, ["sandbox"]);
                assert_eq!(next.sandbox, Config::default().sandbox);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(r.read(&file), Outcome::Unchanged));
    }

    #[test]
    fn a_settling_change_is_looked_at_every_step_without_a_stir() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("invite.toml");
        std::fs::write(&file, "default_rho = 0.1\n").unwrap();
        let mut r = reloader(&file);
        std::fs::write(&file, "default_rho = 0.2\nseed = 3\n").unwrap();
        // The watcher stirs once: the change starts settling, nothing is read yet.
        assert!(matches!(r.look_given(false, true), Outcome::Unchanged));
        let (stamp, _) = r.settling.clone().expect("settling");
        // As if the settling time had passed since (no periodic look is due yet).
        r.settling = Some((stamp, Instant::now() - SETTLE));
        match r.look_given(false, false) {
            Outcome::Applied(next, _) => assert_eq!(next.default_rho, 0.2),
            other => panic!("read once settled, without another stir: {other:?}"),
        }
        assert!(r.settling.is_none());
    }

    #[test]
    fn a_change_is_read_once_the_file_has_kept_it_for_the_settling_time() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("invite.toml");
        std::fs::write(&file, "default_rho = 0.1\n").unwrap();
        let mut r = reloader(&file);
        let t0 = Instant::now();
        assert!(!r.settled(&stamp(&file), t0), "unchanged");
        std::fs::write(&file, "").unwrap();
        let empty = stamp(&file);
        assert!(!r.settled(&empty, t0), "first seen: settling");
        assert!(!r.settled(&empty, t0 + SETTLE / 2));
        std::fs::write(&file, "default_rho = 0.25\nseed = 1\n").unwrap();
        let full = stamp(&file);
        assert_ne!(full, empty);
        // A new stamp starts the settling again.
        assert!(!r.settled(&full, t0 + SETTLE));
        assert!(!r.settled(&full, t0 + SETTLE + SETTLE / 2));
        assert!(r.settled(&full, t0 + SETTLE * 2), "settled");
        assert!(r.settling.is_none());
        // Back to the stamp already read: nothing to read.
        r.stamp = full.clone();
        assert!(!r.settled(&full, t0 + SETTLE * 9));
    }

    #[test]
    fn reload_asks_for_a_read() {
        ASKED.store(false, Ordering::SeqCst);
        ask();
        assert!(ASKED.swap(false, Ordering::SeqCst));
    }

    #[test]
    fn the_applied_line_says_what_changed_and_what_waits_for_a_restart() {
        let file = Path::new("/etc/invite/invite.toml");
        let keys = |k: &[&str]| k.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            applied_message(file, &keys(&["default_rho", "log"]), &keys(&["log"])),
            "/etc/invite/invite.toml applied: default_rho, log (log take effect at the next start)"
        );
        assert_eq!(
            applied_message(file, &keys(&["default_rho"]), &[]),
            "/etc/invite/invite.toml applied: default_rho"
        );
        assert_eq!(
            applied_message(file, &[], &[]),
            "/etc/invite/invite.toml applied: no key changed"
        );
    }

    #[test]
    fn an_entry_for_no_site_is_warned_of_with_the_file_named() {
        let config = parse("[functions.\"app::nowhere\"]\nrho = 0.5\n");
        let said = site::unmatched(&config, "/etc/invite/invite.toml");
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(
            said[0]
                .1
                .starts_with("/etc/invite/invite.toml: [functions.\"app::nowhere\"] names no"),
            "{said:?}"
        );
        assert!(site::unmatched(&Config::default(), "f").is_empty());
    }

    #[test]
    fn the_wait_limit_is_the_longest_run_and_a_grace() {
        let limit = busy_wait_limit();
        let longest = site::all()
            .map(|s| {
                crate::sandbox::run_deadline(
                    Duration::from_millis(s.timeout_ms()),
                    s.meta.tests.len() as u32,
                )
            })
            .max()
            .unwrap_or_default();
        assert!(limit >= KILL_GRACE && limit >= longest, "{limit:?}");
    }

    #[test]
    fn a_new_period_rotates_the_shares_once() {
        let config = parse("fleet = { size = 4, member = 1, rotate = \"10s\" }");
        let mut reloader = Reloader::new(setup(None, config));
        let period = reloader.period.expect("in a fleet");
        let start = Duration::from_secs(period * 10);
        assert!(matches!(
            reloader.rotate(start + Duration::from_secs(9)),
            Outcome::Unchanged
        ));
        assert!(matches!(
            reloader.rotate(start + Duration::from_secs(10)),
            Outcome::Rotated
        ));
        assert_eq!(reloader.period, Some(period + 1));
        assert!(matches!(
            reloader.rotate(start + Duration::from_secs(11)),
            Outcome::Unchanged
        ));
        let mut alone = Reloader::new(setup(None, Config::default()));
        assert!(matches!(
            alone.rotate(start + Duration::from_secs(10)),
            Outcome::Unchanged
        ));
    }

    fn setup(file: Option<std::path::PathBuf>, config: Config) -> Setup {
        Setup {
            file,
            live: Arc::new(Live::new(&config, None, Duration::ZERO)),
            config,
            shard_from_env: None,
            budget: Arc::new(Budget::new(1, 1.0)),
            seccomp: false,
            instance: Instance {
                host: "h".into(),
                pid: 1,
                exe: String::new(),
                id: "h-1".into(),
                service: "s".into(),
                version: String::new(),
            },
        }
    }

    #[test]
    fn a_look_reads_when_asked_and_compares_when_stirred_or_due() {
        let (second, recent) = (Duration::from_secs(1), Duration::from_millis(10));
        assert_eq!(glance(true, false, recent, second), Glance::Read);
        assert_eq!(glance(true, true, second, second), Glance::Read);
        assert_eq!(glance(false, true, recent, second), Glance::Stat);
        assert_eq!(glance(false, false, second, second), Glance::Stat);
        assert_eq!(glance(false, false, recent, second), Glance::Skip);
    }

    #[test]
    #[cfg(feature = "watch")]
    fn a_file_s_directory_is_watched_and_looked_at_every_second() {
        // A file named without a directory is in the working directory.
        assert!(watch(Path::new("Cargo.toml")).is_some());
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("invite.toml");
        std::fs::write(&file, "").unwrap();
        assert!(watch(&file).is_some());
        assert!(watch(Path::new("/no/such/directory/invite.toml")).is_none());
        let reloader = Reloader::new(setup(Some(file), Config::default()));
        assert!(reloader._watcher.is_some());
        assert_eq!(reloader.look_every, Duration::from_secs(1));
    }

    #[test]
    fn a_stamp_changes_with_the_file_and_not_otherwise() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("invite.toml");
        std::fs::write(&file, "a").unwrap();
        let first = stamp(&file).unwrap();
        assert_eq!(stamp(&file), Some(first.clone()));
        assert_eq!(first.kind, "file");
        std::fs::write(&file, "ab").unwrap();
        assert_ne!(stamp(&file), Some(first));
        std::fs::remove_file(&file).unwrap();
        assert_eq!(stamp(&file), None);
        std::fs::create_dir(&file).unwrap();
        assert_eq!(stamp(&file).unwrap().kind, "other");
    }

    #[test]
    fn the_hash_is_the_same_for_the_same_settings_and_differs_otherwise() {
        let a = parse("default_rho = 0.1\n");
        let b = parse("# a comment\ndefault_rho = 0.10\n");
        assert_eq!(hash_of(&a), hash_of(&b));
        assert_ne!(hash_of(&a), hash_of(&parse("default_rho = 0.2\n")));
    }

    #[test]
    fn the_environment_s_shard_wins_over_the_file_s_and_takes_its_period() {
        let file = parse("fleet = { size = 4, member = 1, rotate = \"90s\" }");
        assert_eq!(
            shard_of(Some((3, 8)), &file),
            Some(Shard {
                member: 3,
                size: 8,
                rotate: Duration::from_secs(90)
            })
        );
        assert_eq!(
            shard_of(None, &file),
            Some(Shard {
                member: 1,
                size: 4,
                rotate: Duration::from_secs(90)
            })
        );
        assert_eq!(
            shard_of(Some((0, 2)), &Config::default()).map(|s| s.rotate),
            Some(crate::fleet::DEFAULT_ROTATE)
        );
        assert_eq!(shard_of(None, &Config::default()), None);
    }

    #[test]
    fn invite_shard_is_read_or_refused_with_the_variable_named() {
        assert_eq!(shard_from_env(None), Ok(None));
        assert_eq!(shard_from_env(Some("2/4".into())), Ok(Some((2, 4))));
        for bad in ["8/8", "0/0", "-1/4", "x"] {
            let e = shard_from_env(Some(bad.into())).unwrap_err();
            assert!(e.starts_with("INVITE_SHARD is refused: "), "{e}");
        }
        assert_eq!(
            shard_from_env(Some("0/1048575".into())),
            Ok(Some((0, 1_048_575)))
        );
        let e = shard_from_env(Some("0/1048576".into())).unwrap_err();
        assert!(
            e.contains("a fleet of 1048576 is more than the 1048575"),
            "{e}"
        );
    }
}
