//! The runtime where runs cannot be forked (every target but Linux, and a Linux build with
//! `--cfg invite_portable`): it never samples. A program that uses invite still builds and runs
//! here unchanged, its instrumented functions cost one load each, and [`crate::check`] still
//! tests every call it makes, in process (see `portable/sandbox.rs`).
//!
//! An `invite.toml` that asks for sampling is read and checked as on Linux, and one message
//! says that nothing will be sampled here; the configuration's tolerances and seed still apply
//! to checks.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use crate::budget::Budget;
use crate::config::{Config, Source};
use crate::diag::Level;
use crate::error::InitError;
use crate::site::{self, Permit, Sampling};

/// What stands for the runtime here: the settings and caps of checks.
#[derive(Debug)]
pub struct Runtime {
    pub(crate) sampling: Sampling,
}

/// The configuration in force: read from the environment's file on first use, or given to
/// [`init_with`] before that; `None` while it is unread.
static CONFIG: Mutex<Option<Config>> = Mutex::new(None);
static FOR_CHECKS: OnceLock<Option<Runtime>> = OnceLock::new();
static NEXT_RUN: AtomicU64 = AtomicU64::new(0);

/// What a sampled run would need: never started here, so always `None` unless a check started
/// the runtime of checks.
pub fn get() -> Option<&'static Runtime> {
    configured();
    peek()
}

/// The runtime of checks if one has started.
pub fn peek() -> Option<&'static Runtime> {
    FOR_CHECKS.get().and_then(Option::as_ref)
}

/// The runtime of checks, started on the first check.
pub(crate) fn for_checks() -> Option<&'static Runtime> {
    if crate::role::in_child() {
        return None;
    }
    FOR_CHECKS
        .get_or_init(|| {
            let config = configured();
            site::configure_sites(&config, false, true, None);
            let budget = Arc::new(Budget::new(config.max_concurrent, config.max_overhead));
            Some(Runtime {
                sampling: Sampling {
                    config: config.clone(),
                    seccomp: false,
                    budget,
                    hiding: crate::adopter::Hiding::Never,
                    busy_line: Default::default(),
                    checks_only: true,
                    live: Arc::new(site::Live::new(&config, None, Duration::ZERO)),
                },
            })
        })
        .as_ref()
}

/// The configuration, read once; says once that nothing is sampled on this platform when it
/// asks for sampling.
fn configured() -> Config {
    let mut slot = CONFIG.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(config) = slot.as_ref() {
        return config.clone();
    }
    let source = if cfg!(test) {
        Source::Disabled
    } else {
        Source::from_env()
    };
    let config = match source {
        Source::Disabled | Source::Absent => Config::default(),
        Source::File(path) => match Config::from_file(&path) {
            Ok(c) => {
                say_not_sampled(&c, &path.display().to_string());
                c
            }
            Err(e) => {
                crate::diag::say(Level::Error, "config", || {
                    format!("{e}. Invite is off for this run; the program is unaffected.")
                });
                Config::default()
            }
        },
    };
    *slot = Some(config.clone());
    config
}

/// Whether `config` would sample calls on Linux.
fn asks_for_sampling(config: &Config) -> bool {
    config.enabled
        && (config.default_rho > 0.0
            || config.functions.values().any(|f| {
                f.enabled != Some(false)
                    && (f.rho.is_some_and(|r| r > 0.0) || f.target_tests_per_min.is_some())
            }))
}

fn say_not_sampled(config: &Config, source: &str) {
    if asks_for_sampling(config) {
        crate::diag::say(Level::Warn, "platform", || {
            format!(
                "{source} asks for sampling, but test runs are forked only on Linux: on this \
                 platform invite samples nothing (invite::check still tests the calls it makes, \
                 in process). Set enabled = false here to silence this."
            )
        });
    }
}

/// Checks and keeps a configuration made in code, as on Linux; nothing is sampled here.
pub fn init_with(config: Config) -> Result<(), InitError> {
    let text = toml::to_string(&config).map_err(InitError::Unwritable)?;
    let config = Config::from_toml(&text, std::path::Path::new("invite::init_with"))
        .map_err(InitError::Invalid)?;
    let mut slot = CONFIG.lock().unwrap_or_else(|e| e.into_inner());
    if slot.is_some() {
        return Err(InitError::AlreadyStarted);
    }
    say_not_sampled(&config, "invite::init_with");
    *slot = Some(config);
    Ok(())
}

/// Nothing runs in the background here: always idle.
pub fn wait_idle(_limit: Duration) -> bool {
    true
}

/// Nothing to drain or write here.
pub fn shutdown() {}

/// Nothing to read again: the runtime never samples on this platform. Returns `false`.
pub fn reload() -> bool {
    false
}

/// Runs a checked call's tests in process.
pub(crate) fn fork_run(permit: Permit, tests: impl FnOnce(crate::sandbox::ChildRun)) {
    let run = NEXT_RUN.fetch_add(1, Ordering::Relaxed) + 1;
    let test_seed = crate::checking::replayed_test_seed().unwrap_or_else(|| {
        let base = permit.rt.config.seed.unwrap_or_else(|| {
            use rand::{RngCore, SeedableRng};
            rand::rngs::SmallRng::from_os_rng().next_u64()
        });
        crate::rng::mix(base, run)
    });
    crate::sandbox::run_here(permit, tests, run, test_seed);
}

fn sampling() -> Option<&'static Sampling> {
    get().map(|rt| &rt.sampling)
}
inventory::submit! { site::Start(sampling) }

fn configured_seed() -> Option<u64> {
    if crate::role::in_child() {
        return None;
    }
    configured().seed
}
inventory::submit! { crate::rng::SeedSource(configured_seed) }
