//! The scenario suites, one module each, in one test binary: after a change to the runtime, an
//! incremental `cargo test` compiles and links it once instead of a binary for each suite.
//!
//! A scenario re-runs this binary with `INVITE_SCENARIO` naming its test (`support`), and the
//! harness names a test by its path in the binary, module included
//! (`caps::live_children_never_exceed_max_concurrent`), which `here!()` gives. A site is named
//! by its module path, so every site here is named `scenarios::<suite>::...`, and every suite's
//! sites are registered in every scenario process: with `default_rho = 1.0` the `start` and
//! `stats` records list all of them. A suite that looks a site up in those records names it in
//! full, and one that checks a set of sites checks the sites of its own module.
//!
//! Tests that measure contention for slots and CPU time (`caps`'s, and `config_keys`'s of
//! `child_cpu_charge`) take [`support::alone`]: no other scenario runs beside them, and none
//! of another suite starves their test processes.
//!
//! Suites that stay binaries of their own:
//! - `allocation.rs` counts allocations with a global allocator: a binary has one allocator for
//!   all its tests, and every suite's would go through the counting one.
//! - `compile_fail.rs` builds its cases with trybuild, and `.ci/run` runs it without the default
//!   feature too, where the scenarios here would fail.
//! - `feature_off.rs` is built with `--no-default-features` too, where these suites' sites do
//!   not exist; it denies dead code for the whole crate and asserts that the only sites
//!   registered are its own.
//! - `prometheus.rs` runs no scenario: it starts a fleet of the `fleet` example and a real
//!   Prometheus, and compares what Prometheus scraped with the members' logs.
//! - `reaper.rs` makes its test process a child subreaper, a property of the whole process: a
//!   subreaper adopts the orphans of every scenario run beside it.
//!
//! Linux only: the portable build (`--cfg invite_portable`) has no sandbox to test.
// A test stands in for a program, hostile ones included: it forks, signals, maps memory and
// opens descriptors the way programs do, with raw system calls (each with the reason it is sound).
#![allow(unsafe_code)]
#![cfg(not(invite_portable))]

#[macro_use]
#[path = "../support/mod.rs"]
mod support;

mod caps;
mod check;
mod comparisons;
mod config_and_failures;
mod config_keys;
mod dependencies;
#[cfg(feature = "discover")]
mod discover;
mod hostile;
mod isolation;
mod lifetime;
mod live_config;
#[cfg(feature = "discover")]
mod mutants;
mod places;
mod properties;
mod pure;
mod relations;
mod sandbox;
mod startup;
#[cfg(feature = "statistical")]
mod statistical;
#[cfg(all(feature = "tracing", feature = "log"))]
mod telemetry;
mod trust;
mod unseen_and_adaptive;
