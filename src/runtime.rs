//! The process-wide state: configuration, caps, the collector, start-up and shutdown.
//!
//! Start-up happens once, on the first sampled-path call of any site (or at [`crate::init`]).
//! It reads the configuration, applies it to every site linked into the binary, opens the log,
//! starts the collector thread and registers an exit handler that drains running tests. When
//! anything on the way fails, invite says so once on stderr and stays off.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, OnceLock};
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;

use crate::adopter::Hiding;
use crate::budget::Budget;
use crate::collector::Collector;
use crate::config::{Config, HideRuns, Sandbox, Source};
use crate::diag::Level;
use crate::error::InitError;
use crate::record::{self, Instance, Start};
use crate::reload as follow;
use crate::sandbox::{seccomp, Launcher};
use crate::site::{self, Live, Sampling};

static RUNTIME: OnceLock<Option<Runtime>> = OnceLock::new();
/// The runtime of [`crate::check`] when the configuration left invite off: started on the
/// first check, it samples nothing by itself and writes no log.
static FOR_CHECKS: OnceLock<Option<Runtime>> = OnceLock::new();
static SHUT_DOWN: AtomicBool = AtomicBool::new(false);

pub struct Runtime {
    /// What sampled calls need: the settings and the caps.
    pub(crate) sampling: Sampling,
    /// What runs are started with.
    pub(crate) launch: Launcher,
    pub(crate) instance: Instance,
    pub(crate) collector: Collector,
    /// The configuration came from a file, which the collector follows.
    follows_a_file: bool,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("instance", &self.instance)
            .finish_non_exhaustive()
    }
}

/// The runtime, starting it on first use; `None` when invite is off (and no check started it).
pub fn get() -> Option<&'static Runtime> {
    let started = RUNTIME.get_or_init(start).as_ref();
    if let Some(rt) = started {
        // Once the runtime has its place: the worker is forked with its launcher.
        WORKER.call_once(|| plan_workers(rt));
    }
    started.or_else(|| FOR_CHECKS.get().and_then(Option::as_ref))
}

static WORKER: std::sync::Once = std::sync::Once::new();

/// Says how to make the rings of pure sites' workers (made by the first call that goes there;
/// the workers themselves are forked by the collector when a call is waiting), and which
/// `isolation = "worker"` entries name a site that cannot go there.
fn plan_workers(rt: &'static Runtime) {
    let config = &rt.sampling.config;
    let mut refused: Vec<String> = Vec::new();
    for (name, own) in &config.functions {
        if own.isolation != Some(crate::config::Isolation::Worker) {
            continue;
        }
        // A site of that very name, else those a type may yet name so (`{Self}::sum` could
        // be any `T::sum`, but not a free `sum` that has the name).
        let exact = site::all().any(|s| s.is_named() && s.name() == name.as_str());
        let mut why = None;
        for s in site::all().filter(|s| {
            if exact {
                s.is_named() && s.name() == name.as_str()
            } else {
                s.could_be_named(name)
            }
        }) {
            if !s.meta.no_worker.is_empty() {
                why.get_or_insert(s.meta.no_worker);
            }
        }
        refused.extend(why.map(|why| format!("{name} ({why})")));
    }
    if !refused.is_empty() {
        // One message for them all: a file that sends every site to the worker names each
        // that cannot go, whatever the rate limit of messages.
        crate::diag::say(Level::Warn, "config", || {
            format!(
                "invite.toml sets isolation = \"worker\" for {} the worker cannot test, whose \
                 calls fork; remove the key for {}: {}",
                if refused.len() == 1 {
                    "a site"
                } else {
                    "sites"
                },
                if refused.len() == 1 { "it" } else { "them" },
                refused.join("; ")
            )
        });
    }
    // One worker per slot `max_concurrent` allows, but no more than the CPUs to run them.
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    crate::sandbox::worker::plan(
        &rt.launch,
        // Forked once, the worker is hidden whenever runs may be: the launcher's cost is paid
        // once, and a program that starts handling children later never sees it.
        !matches!(rt.sampling.hiding, Hiding::Never),
        (config.max_concurrent as usize).min(cpus),
        (config.worker_ring_mib as usize) << 20,
    );
}

/// What sampled calls need of the runtime, starting it on first use: the lazy start, which
/// the sampler below reaches through the entry registered here.
fn sampling() -> Option<&'static Sampling> {
    get().map(|rt| &rt.sampling)
}
inventory::submit! { site::Start(sampling) }
inventory::submit! { crate::rng::SeedSource(configured_seed) }

/// Forks a run for a sampled call that the caps admitted, with the runtime's launcher.
pub(crate) fn fork_run(permit: site::Permit, tests: impl FnOnce(crate::sandbox::ChildRun)) {
    match peek() {
        Some(rt) => crate::sandbox::fork_run(permit, &rt.launch, tests),
        // Unreachable: a permit comes from a started runtime, which stays.
        None => permit.refuse(
            crate::budget::SkipReason::ForkFailed,
            "invite is not running",
        ),
    }
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
                start_with(config, "invite::check".to_string(), None, false)
            })
            .as_ref()
    })?;
    crate::role::owns_this_process().then_some(rt)
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
        if !config.enabled || crate::role::in_child() {
            return disarm_all();
        }
        start_with(config, "invite::init_with".to_string(), None, true)
    });
    if applied {
        Ok(())
    } else {
        Err(InitError::AlreadyStarted)
    }
}

/// Reads the configuration file again and applies what changed, as a change of the file does
/// by itself: for a program that handles `SIGHUP` (invite installs no signal handler). Returns
/// at once; the collector thread applies the file within milliseconds and writes a `config`
/// record. Starts invite if it has not started. Returns `false` when there is no file to read:
/// invite is off, or it was started by [`init_with`].
///
/// Call it from the thread that handles the signal (as `signal-hook`'s iterator gives it), not
/// from a signal handler: starting invite allocates.
pub fn reload() -> bool {
    match get() {
        Some(rt) if rt.follows_a_file => {
            follow::ask();
            true
        }
        _ => false,
    }
}

/// The configured `seed`, starting the runtime if needed so that streams created before the
/// first sampled call are seeded from it too.
fn configured_seed() -> Option<u64> {
    if crate::role::in_child() {
        return None;
    }
    get().and_then(|rt| rt.sampling.config.seed)
}

fn start() -> Option<Runtime> {
    let source = if cfg!(test) {
        Source::Disabled
    } else {
        Source::from_env()
    };
    let (config, path) = match source {
        Source::Disabled | Source::Absent => return disarm_all(),
        Source::File(path) => match Config::from_file(&path) {
            Ok(c) => (c, path),
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
    start_with(config, path.display().to_string(), Some(path), true)
}

/// Starts the runtime with `config` (from `config_file`, named in messages), writing the log
/// it names, or none at all unless `writes_log`. With the `file` it was read from, the runtime
/// follows the file's changes (see `reload`).
fn start_with(
    config: Config,
    config_file: String,
    file: Option<std::path::PathBuf>,
    writes_log: bool,
) -> Option<Runtime> {
    let dev_null = match invite_sandbox::fd::open_dev_null() {
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
    let shard_from_env = match follow::shard_from_env(std::env::var_os("INVITE_SHARD")) {
        Ok(shard) => shard,
        Err(e) => {
            crate::diag::say(Level::Warn, "fleet", || match &config.fleet {
                Some(f) => format!(
                    "{e}; this instance is member {} of {} as `fleet` in {config_file} says",
                    f.member, f.size
                ),
                None => format!("{e}; this instance tests every pair, as a lone instance does"),
            });
            None
        }
    };
    let shard = follow::shard_of(shard_from_env, &config);
    let period = shard.map(|s| s.period(site::wall_clock()));
    let sites = site::configure_sites(&config, filter.is_some(), false, shard.zip(period));
    site::warn_unmatched(&config, &config_file);
    let instance = identify(&config);
    let start = Start {
        v: record::VERSION,
        time: record::now(),
        instance: instance.clone(),
        config_file,
        config: serde_json::to_value(&config).unwrap_or_default(),
        sites,
        shard: shard.map(|s| format!("{}/{}", s.member, s.size)),
    };
    let budget = Arc::new(Budget::new(config.max_concurrent, config.max_overhead));
    let cow_fault_ns = invite_sandbox::usage::cow_fault_cost_ns();
    let seccomp = filter.is_some();
    let follows_a_file = file.is_some();
    let live = Arc::new(Live::new(&config, shard, follow::busy_wait_limit()));
    let reloader = follow::Reloader::new(follow::Setup {
        file,
        config: config.clone(),
        shard_from_env,
        live: Arc::clone(&live),
        budget: Arc::clone(&budget),
        seccomp,
        instance: instance.clone(),
    });
    let (collector, inbox) = match Collector::spawn(
        &config,
        instance.clone(),
        Arc::clone(&budget),
        cow_fault_ns,
        sink,
        start,
        reloader,
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
    // Both touch only atomics (and, at exit, the collector).
    invite_sandbox::process::at_exit(shutdown_at_exit);
    invite_sandbox::process::at_fork_in_child(crate::role::mark_forked);
    let hiding = match config.hide_runs {
        _ if !crate::sandbox::launch::available() => Hiding::Never,
        HideRuns::Never => Hiding::Never,
        HideRuns::Always => Hiding::Always,
        HideRuns::Auto => Hiding::WhenNeeded,
    };
    let launch = Launcher::new(
        filter,
        dev_null,
        config.nice,
        instance.pid as libc::pid_t,
        test_seed_base,
        inbox,
    );
    Some(Runtime {
        sampling: Sampling {
            config,
            seccomp,
            budget,
            hiding,
            busy_line: Default::default(),
            checks_only: false,
            live,
        },
        launch,
        instance,
        collector,
        follows_a_file,
    })
}

/// This process as records name it: host, pid, executable, and the instance, service and version
/// (see `identity`). A name refused from the environment is said once, and replaced.
fn identify(config: &Config) -> Instance {
    let host = crate::record::hostname();
    let pid = std::process::id();
    let exe = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let crates: Vec<(&str, &str)> = site::all().map(|s| s.meta.krate).collect();
    let env = |k: &str| std::env::var(k).ok();
    let (id, refused) = crate::identity::resolve(
        config,
        &crate::identity::Sources {
            env: &env,
            host: &host,
            pid,
            started: std::time::SystemTime::now(),
            exe: &exe,
            crates: &crates,
        },
    );
    for message in refused {
        crate::diag::say(Level::Warn, "instance", || message);
    }
    Instance {
        host,
        pid,
        exe,
        id: id.instance,
        service: id.service,
        version: id.version,
    }
}

fn disarm_all() -> Option<Runtime> {
    for s in site::all() {
        s.disarm();
    }
    None
}

extern "C" fn shutdown_at_exit() {
    // Never unwind into C.
    let _ = std::panic::catch_unwind(shutdown);
}

/// Waits until no test run is alive and the worker of pure sites has tested every call written
/// for it, or `limit` has passed; returns whether that is so.
/// Handy in tests and before reading the log from within the program.
pub fn wait_idle(limit: Duration) -> bool {
    let Some(rt) = peek() else { return true };
    let started = Instant::now();
    rt.launch.inbox.wake();
    let worker_busy = || crate::sandbox::worker::pool().is_some_and(|p| !p.idle());
    while rt.sampling.budget.live() > 0 || worker_busy() {
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
    if crate::role::in_child() {
        return;
    }
    let Some(rt) = peek() else { return };
    if !crate::role::owns_this_process() || SHUT_DOWN.swap(true, Ordering::AcqRel) {
        return;
    }
    rt.sampling.budget.close();
    for s in site::all() {
        s.disarm();
    }
    let (done_tx, done_rx) = mpsc::channel();
    rt.collector.shutdown(&rt.launch.inbox, done_tx);
    // Bounded: a collector that cannot finish must not hold the program's exit hostage.
    let in_force = rt.sampling.live.config();
    let _ = done_rx.recv_timeout(Duration::from_millis(in_force.drain_ms) + Duration::from_secs(2));
    if in_force.report_at_exit {
        let log = match rt.sampling.config.log.as_str() {
            "-" => "",
            path => path,
        };
        let report = crate::exit_report::render(&crate::outcomes(), log);
        // A closed or full stderr loses the report, never the exit.
        let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), report.as_bytes());
    }
}
