//! The process-wide state: configuration, caps, the collector, start-up and shutdown.
//!
//! Start-up happens once, on the first sampled-path call of any site (or at [`crate::init`]).
//! It reads the configuration, applies it to every site linked into the binary, opens the log,
//! starts the collector thread and registers an exit handler that drains running tests. When
//! anything on the way fails, invite says so once on stderr and stays off.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, OnceLock};
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;

use crate::budget::Budget;
use crate::collector::Collector;
use crate::config::{Config, Sandbox, Source};
use crate::diag::Level;
use crate::error::InitError;
use crate::record::{self, Instance, SiteInfo, Start};
use crate::sandbox::seccomp;
use crate::site;

/// Default tolerance of top-level comparisons.
pub const DEFAULT_TOLERANCE: f64 = 1e-6;

static RUNTIME: OnceLock<Option<Runtime>> = OnceLock::new();
/// The runtime of [`crate::check`] when the configuration left invite off: started on the
/// first check, it samples nothing by itself and writes no log.
static FOR_CHECKS: OnceLock<Option<Runtime>> = OnceLock::new();
/// True in a test child and its test processes: all instrumentation is off there.
static IN_CHILD: AtomicBool = AtomicBool::new(false);
static SHUT_DOWN: AtomicBool = AtomicBool::new(false);
static SAMPLER_THREADS: AtomicU64 = AtomicU64::new(0);
/// Set in every child of a `fork` of this process (by a `pthread_atfork` handler): the
/// collector does not follow a fork, so such a process must not start runs.
static FORKED: AtomicBool = AtomicBool::new(false);

extern "C" fn mark_forked() {
    FORKED.store(true, Ordering::Relaxed);
}

pub struct Runtime {
    pub config: Config,
    pub(crate) budget: Arc<Budget>,
    pub(crate) instance: Instance,
    pub(crate) collector: Collector,
    dev_null: OwnedFd,
    /// The seccomp filter of test processes (none: memory isolation only).
    pub(crate) filter: Option<seccomp::Filter>,
    /// Runs are launched so that the program's own child handling never sees them (see
    /// [`crate::sandbox::launch`]); false with `hide_runs = false` or without pidfds.
    pub(crate) hidden_runs: bool,
    next_run: AtomicU64,
    test_seed_base: u64,
    /// With `when_busy = "wait"`, the longest the first waiting call waits for a run to end:
    /// the longest deadline of any site's run and [`KILL_GRACE`], after which its slot should
    /// be free again.
    pub(crate) busy_wait_limit: Duration,
    /// With `when_busy = "wait"`, the calls waiting for the caps, served in turn.
    pub(crate) busy_line: crate::wait_line::WaitLine,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("instance", &self.instance)
            .finish_non_exhaustive()
    }
}

/// How long a run killed at its deadline may take to die and be reaped: on a machine whose
/// CPUs are all busy, a run (which runs at a lower priority) has been seen to take over a second.
const KILL_GRACE: Duration = Duration::from_secs(1);

/// The runtime, starting it on first use; `None` when invite is off (and no check started it).
pub fn get() -> Option<&'static Runtime> {
    RUNTIME
        .get_or_init(start)
        .as_ref()
        .or_else(|| FOR_CHECKS.get().and_then(Option::as_ref))
}

/// The runtime if it has started, without starting it.
pub fn peek() -> Option<&'static Runtime> {
    RUNTIME
        .get()
        .and_then(Option::as_ref)
        .or_else(|| FOR_CHECKS.get().and_then(Option::as_ref))
}

/// The runtime for [`crate::check`]: the configured one, or else one that tests only what
/// checks ask for. `None` in a process forked from the instrumented one, or when even that
/// runtime could not start (it said why).
pub(crate) fn for_checks() -> Option<&'static Runtime> {
    let rt = get().or_else(|| {
        FOR_CHECKS
            .get_or_init(|| {
                let config = Config {
                    default_rho: 0.0,
                    ..Config::default()
                };
                start_with(config, "invite::check".to_string(), false)
            })
            .as_ref()
    })?;
    rt.owns_this_process().then_some(rt)
}

/// Starts invite with a configuration made in code rather than read from a file, before
/// anything else starts it. Returns an error naming the problem when the configuration holds a
/// value the file could not (the same checks apply), or when invite had already started (or
/// been found off): the configuration is then not applied.
///
/// ```no_run
/// let config = invite::config::Config {
///     default_rho: 0.05,
///     log: "/var/log/app/invite.jsonl".into(),
///     ..Default::default()
/// };
/// if let Err(e) = invite::init_with(config) {
///     eprintln!("{e}");
/// }
/// ```
pub fn init_with(config: Config) -> Result<(), InitError> {
    let text = toml::to_string(&config).map_err(InitError::Unwritable)?;
    let config = Config::from_toml(&text, std::path::Path::new("invite::init_with"))
        .map_err(InitError::Invalid)?;
    let mut applied = false;
    RUNTIME.get_or_init(|| {
        applied = true;
        if !config.enabled || in_child() {
            return disarm_all();
        }
        start_with(config, "invite::init_with".to_string(), true)
    });
    if applied {
        Ok(())
    } else {
        Err(InitError::AlreadyStarted)
    }
}

/// Whether this process is a test's child (instrumentation is off inside it).
pub fn in_child() -> bool {
    IN_CHILD.load(Ordering::Relaxed)
}

pub(crate) fn enter_child() {
    IN_CHILD.store(true, Ordering::Relaxed);
}

/// The configured `seed`, starting the runtime if needed so that streams created before the
/// first sampled call are seeded from it too.
pub(crate) fn configured_seed() -> Option<u64> {
    if in_child() {
        return None;
    }
    get().and_then(|rt| rt.config.seed)
}

/// A generator for a thread's sampler.
pub(crate) fn sampler_rng() -> SmallRng {
    let ordinal = SAMPLER_THREADS.fetch_add(1, Ordering::Relaxed);
    site::seeded_sampler(peek().and_then(|rt| rt.config.seed), ordinal)
}

impl Runtime {
    /// False in a process forked from the instrumented one by the host: its collector did not
    /// follow, so it must not start runs.
    pub(crate) fn owns_this_process(&self) -> bool {
        !FORKED.load(Ordering::Relaxed)
    }

    pub(crate) fn next_run_id(&self) -> u64 {
        self.next_run.fetch_add(1, Ordering::Relaxed) + 1
    }

    pub(crate) fn test_seed(&self, run: u64) -> u64 {
        crate::rng::mix(self.test_seed_base, run)
    }

    pub(crate) fn dev_null(&self) -> RawFd {
        self.dev_null.as_raw_fd()
    }
}

fn start() -> Option<Runtime> {
    let source = if cfg!(test) {
        Source::Disabled
    } else {
        Source::from_env()
    };
    let (config, config_file) = match source {
        Source::Disabled | Source::Absent => return disarm_all(),
        Source::File(path) => match Config::from_file(&path) {
            Ok(c) => (c, path.display().to_string()),
            Err(e) => {
                crate::diag::say(Level::Error, "config", || {
                    format!("{e}. Invite is off for this run; the program is unaffected.")
                });
                return disarm_all();
            }
        },
    };
    if !config.enabled {
        return disarm_all();
    }
    start_with(config, config_file, true)
}

/// Starts the runtime with `config` (from `config_file`, named in messages), writing the log
/// it names, or none at all unless `writes_log`.
fn start_with(config: Config, config_file: String, writes_log: bool) -> Option<Runtime> {
    let dev_null = match open_dev_null() {
        Ok(fd) => fd,
        Err(e) => {
            crate::diag::say(Level::Error, "start", || {
                format!("cannot open /dev/null for test children ({e}); invite is off.")
            });
            return disarm_all();
        }
    };
    let sink = if writes_log {
        crate::log_sink::LogSink::open(&config.log)
    } else {
        Ok(crate::log_sink::LogSink::discard())
    };
    let sink = match sink {
        Ok(s) => s,
        Err(e) => {
            crate::diag::say(Level::Error, "start", || {
                format!(
                    "cannot open the log `{}` named by {config_file} ({e}); fix `log` or the \
                     directory's permissions. Invite is off for this run.",
                    config.log
                )
            });
            return disarm_all();
        }
    };
    // The filter is compiled here, once; test processes only patch in their pid and install it.
    let wants_seccomp = config.sandbox == Sandbox::Seccomp
        || config
            .functions
            .values()
            .any(|f| f.sandbox == Some(Sandbox::Seccomp));
    let filter = if !wants_seccomp {
        None
    } else if !seccomp::available() {
        crate::diag::say(Level::Warn, "seccomp", || {
            format!(
                "this kernel has no seccomp filters; tests run with memory isolation only (set \
                 sandbox = \"fork\" in {config_file} to silence this)"
            )
        });
        None
    } else {
        match seccomp::Filter::build() {
            Ok(f) => Some(f),
            Err(e) => {
                crate::diag::say(Level::Warn, "seccomp", || {
                    format!("cannot build the seccomp filter ({e}); tests run with memory isolation only")
                });
                None
            }
        }
    };
    let sites = configure_sites(&config, filter.is_some());
    for (entry, meant) in config.unmatched_entries(sites.iter().map(|s| s.name.as_str())) {
        // A site named at its first call may yet take this name.
        if site::all().any(|s| s.could_be_named(&entry)) {
            continue;
        }
        let hint = meant.map_or(String::new(), |m| format!("; did you mean \"{m}\"?"));
        crate::diag::say(Level::Warn, "unmatched", || {
            format!(
                "{config_file}: [functions.\"{entry}\"] names no instrumented function in this \
                 program, so its settings apply to nothing{hint}"
            )
        });
    }
    let instance = Instance {
        host: crate::record::hostname(),
        pid: std::process::id(),
        exe: std::env::current_exe()
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
    };
    let start = Start {
        v: record::VERSION,
        time: record::now(),
        instance: instance.clone(),
        config_file,
        config: serde_json::to_value(&config).unwrap_or_default(),
        sites,
    };
    let budget = Arc::new(Budget::new(config.max_concurrent, config.max_overhead));
    let cow_fault_ns = crate::budget::cow_fault_cost_ns();
    let collector = match Collector::spawn(
        &config,
        instance.clone(),
        Arc::clone(&budget),
        cow_fault_ns,
        sink,
        start,
    ) {
        Ok(c) => c,
        Err(e) => {
            crate::diag::say(Level::Error, "start", || {
                format!("cannot start the collector thread ({e}); invite is off.")
            });
            return disarm_all();
        }
    };
    let test_seed_base = config.seed.unwrap_or_else(|| {
        use rand::{RngCore, SeedableRng};
        SmallRng::from_os_rng().next_u64()
    });
    // SAFETY: registering plain `extern "C" fn`s that touch only atomics (and, at exit, the
    // collector) has no preconditions.
    unsafe {
        libc::atexit(shutdown_at_exit);
        libc::pthread_atfork(None, None, Some(mark_forked));
    }
    let hidden_runs = config.hide_runs && crate::sandbox::launch::available();
    let busy_wait_limit = site::all()
        .map(|s| {
            crate::sandbox::run_deadline(
                Duration::from_millis(s.timeout_ms()),
                s.meta.tests.len() as u32,
            )
        })
        .max()
        .unwrap_or_default()
        + KILL_GRACE;
    Some(Runtime {
        config,
        budget,
        instance,
        collector,
        dev_null,
        filter,
        hidden_runs,
        next_run: AtomicU64::new(0),
        test_seed_base,
        busy_wait_limit,
        busy_line: Default::default(),
    })
}

/// Applies the configuration to every site and describes them for the `start` record. A site
/// named at its first call is left for then ([`Runtime::configure_late`]).
fn configure_sites(config: &Config, seccomp: bool) -> Vec<SiteInfo> {
    let mut infos: Vec<SiteInfo> = site::all()
        .filter(|s| s.is_named())
        .map(|s| {
            s.configure(&settings_of(config, seccomp, s));
            s.info()
        })
        .collect();
    infos.sort_by(|a, b| (&a.name, &a.file, a.line).cmp(&(&b.name, &b.file, b.line)));
    infos
}

/// A site's effective settings: its `[functions]` entry, then its attribute, then the defaults.
fn settings_of(config: &Config, seccomp: bool, s: &site::Site) -> site::Settings {
    let own = config.site(s.name());
    let rho = if own.enabled == Some(false) {
        0.0
    } else {
        own.rho.or(s.meta.rho).unwrap_or(config.default_rho)
    };
    let tolerance = own
        .tolerance
        .or(s.meta.tolerance)
        .unwrap_or(DEFAULT_TOLERANCE);
    let timeout = own
        .timeout_ms
        .or(s.meta.timeout_ms)
        .unwrap_or(config.timeout_ms);
    let target = own
        .target_tests_per_min
        .filter(|_| rho > 0.0 || own.rho.is_none());
    // An adaptive site must be sampled to be measured: it starts at 1% if ρ is 0.
    let rho = match target {
        Some(_) if rho == 0.0 && own.enabled != Some(false) => 0.01,
        _ => rho,
    };
    site::Settings {
        rho,
        tolerance,
        timeout_ms: timeout.max(1),
        dedup: own.dedup.unwrap_or(true),
        dedup_bytes: own.dedup_bytes.unwrap_or(config.dedup_bytes),
        target_tests_per_min: target,
        seccomp: seccomp && own.sandbox.unwrap_or(config.sandbox) == Sandbox::Seccomp,
        memory_mb: own.memory_mb.or(config.memory_mb),
    }
}

impl Runtime {
    /// Configures a site named at its first call, as start-up configured the others.
    pub(crate) fn configure_late(&self, s: &site::Site) {
        s.configure(&settings_of(&self.config, self.filter.is_some(), s));
    }
}

fn disarm_all() -> Option<Runtime> {
    for s in site::all() {
        s.disarm();
    }
    None
}

fn open_dev_null() -> std::io::Result<OwnedFd> {
    // SAFETY: open with a static C string; a non-negative result is a fresh descriptor.
    let fd = unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened and nothing else owns it.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

extern "C" fn shutdown_at_exit() {
    // Never unwind into C.
    let _ = std::panic::catch_unwind(shutdown);
}

/// Waits until no test run is alive, or `limit` has passed; returns whether none is.
/// Handy in tests and before reading the log from within the program.
pub fn wait_idle(limit: Duration) -> bool {
    let Some(rt) = peek() else { return true };
    let started = Instant::now();
    rt.collector.wake();
    while rt.budget.live() > 0 {
        if started.elapsed() >= limit {
            return false;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    true
}

/// Stops sampling, waits up to `drain_ms` for running tests, kills the rest, and writes the
/// final `stats` and the `stop` record. Runs by itself at process exit; call it earlier to read
/// a complete log from within the program. Later calls do nothing.
pub fn shutdown() {
    if in_child() {
        return;
    }
    let Some(rt) = peek() else { return };
    if !rt.owns_this_process() || SHUT_DOWN.swap(true, Ordering::AcqRel) {
        return;
    }
    rt.budget.close();
    for s in site::all() {
        s.disarm();
    }
    let (done_tx, done_rx) = mpsc::channel();
    rt.collector.shutdown(done_tx);
    // Bounded: a collector that cannot finish must not hold the program's exit hostage.
    let _ =
        done_rx.recv_timeout(Duration::from_millis(rt.config.drain_ms) + Duration::from_secs(2));
    if rt.config.report_at_exit {
        let log = match rt.config.log.as_str() {
            "-" => "",
            path => path,
        };
        let report = crate::exit_report::render(&crate::outcomes(), log);
        // A closed or full stderr loses the report, never the exit.
        let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), report.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::site::{Naming, Site, SiteMeta};

    fn site(rho: Option<f64>, tolerance: Option<f64>, timeout_ms: Option<u64>) -> Site {
        Site::new(SiteMeta {
            name: "app::f",
            naming: Naming::Fixed,
            file: "f.rs",
            line: 1,
            tests: &[],
            params: &[],
            rho,
            tolerance,
            timeout_ms,
            self_check: true,
            dedup: false,
        })
    }

    fn config(text: &str) -> Config {
        Config::from_toml(text, std::path::Path::new("invite.toml")).expect("a valid config")
    }

    #[test]
    fn a_site_s_entry_wins_over_its_attribute_which_wins_over_the_defaults() {
        let plain = site(None, None, None);
        let attributed = site(Some(0.25), Some(1e-3), Some(700));
        let defaults = config("default_rho = 0.5\ntimeout_ms = 900");
        let s = settings_of(&defaults, false, &plain);
        assert_eq!(
            (s.rho, s.tolerance, s.timeout_ms),
            (0.5, DEFAULT_TOLERANCE, 900)
        );
        let s = settings_of(&defaults, false, &attributed);
        assert_eq!((s.rho, s.tolerance, s.timeout_ms), (0.25, 1e-3, 700));
        let entry = config(
            "default_rho = 0.5\n[functions.\"app::f\"]\nrho = 0.125\ntolerance = 0.5\ntimeout_ms = 40",
        );
        let s = settings_of(&entry, false, &attributed);
        assert_eq!((s.rho, s.tolerance, s.timeout_ms), (0.125, 0.5, 40));
        let off = config("default_rho = 1.0\n[functions.\"app::f\"]\nenabled = false");
        assert_eq!(settings_of(&off, false, &attributed).rho, 0.0);
    }

    #[test]
    fn an_adaptive_site_starts_at_one_percent_unless_it_is_off_or_its_rate_is_zero_by_entry() {
        let s = site(None, None, None);
        let adaptive =
            config("default_rho = 0.0\n[functions.\"app::f\"]\ntarget_tests_per_min = 60");
        let got = settings_of(&adaptive, false, &s);
        assert_eq!((got.rho, got.target_tests_per_min), (0.01, Some(60.0)));
        let started =
            config("default_rho = 0.2\n[functions.\"app::f\"]\ntarget_tests_per_min = 60");
        assert_eq!(settings_of(&started, false, &s).rho, 0.2);
        let off = config(
            "default_rho = 0.0\n[functions.\"app::f\"]\ntarget_tests_per_min = 60\nenabled = false",
        );
        let got = settings_of(&off, false, &s);
        assert_eq!(got.rho, 0.0);
        let given = config("[functions.\"app::f\"]\ntarget_tests_per_min = 60\nrho = 0.3");
        let got = settings_of(&given, false, &s);
        assert_eq!((got.rho, got.target_tests_per_min), (0.3, Some(60.0)));
        let zero = config("[functions.\"app::f\"]\ntarget_tests_per_min = 60\nrho = 0.0");
        let got = settings_of(&zero, false, &s);
        assert_eq!((got.rho, got.target_tests_per_min), (0.0, None));
    }

    #[test]
    fn the_filter_applies_where_it_was_built_and_the_site_asks_for_it() {
        let s = site(None, None, None);
        let seccomp = config("");
        assert!(settings_of(&seccomp, true, &s).seccomp);
        assert!(
            !settings_of(&seccomp, false, &s).seccomp,
            "no filter was built"
        );
        let fork_only = config("[functions.\"app::f\"]\nsandbox = \"fork\"");
        assert!(!settings_of(&fork_only, true, &s).seccomp);
    }
}
