//! # Invite: programs that test themselves while they run
//!
//! Programs in science, simulation and machine learning often have no test oracle: nobody knows
//! the right output for an arbitrary input. Metamorphic testing still finds their defects: if
//! `std_dev(xs)` is `r`, then `std_dev(2·xs)` must be `2r`, whatever `r` is. Invite checks such
//! relations, and arbitrary "In Vivo" tests, from inside the running program, on live arguments
//! and live state, in forked copy-on-write children that the program never waits for.
//!
//! This page is the path a user takes: [a relation](#a-relation) on a function, the same
//! relation [in `cargo test`](#in-cargo-test), [the configuration](#in-a-running-program-invitetoml)
//! that turns it on in a running program, and [what it found](#what-it-found). The
//! [guide] has a chapter for each part, and for the rest.
//!
//! ## A relation
//!
//! [`#[invite::metamorphic(...)]`](metamorphic) lists the relations a function must keep:
//!
//! ```
//! use invite::mr::{add, multiply, negate, permute};
//!
//! #[invite::metamorphic(
//!     std_dev(&permute(xs)) == result,
//!     std_dev(&multiply(xs, 2.0)) == result * 2.0,
//!     std_dev(&add(xs, 7.5)) == result,
//!     std_dev(&negate(xs)) == result,
//!     if xs.len() > 1 => std_dev(&xs[1..]) >= 0.0,
//! )]
//! pub fn std_dev(xs: &[f64]) -> f64 {
//!     let n = xs.len().max(1) as f64;
//!     let mean = xs.iter().sum::<f64>() / n;
//!     (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt()
//! }
//!
//! assert_eq!(std_dev(&[2.0, 4.0]), 1.0);
//! # invite::check(|| {
//! #     std_dev(&[1.0, 2.0, 4.0]);
//! # })
//! # .assert_passed();
//! ```
//!
//! A relation is a Rust `bool` expression. In it, the parameters' names are the live arguments
//! of the sampled call, `result` is the function's output on them, and a call of the function's
//! own name runs the function again on a follow-up input. Every execution starts from the
//! arguments the call saw and from the same [`rng()`] stream. The follow-up inputs come from the
//! transformations of [`mr`] ([`mr::permute`], [`mr::multiply`], [`mr::add`], ...); top-level
//! comparisons are tolerant for floating point (see [`mr::Approx`]), and a guard
//! `if cond => relation` skips the relation when `cond` is false. The attribute works on
//! methods, trait impls, `async fn`s and functions that macros write; misuse is a compile error
//! on the offending token. [`#[invite::in_vivo(test = ...)]`](in_vivo) runs a test of your own
//! on the live state instead.
//!
//! ## In `cargo test`
//!
//! [`check`] runs a closure and tests every call of an instrumented function that it makes on
//! the calling thread, whatever the sampling rate says, waiting for each call's tests. It needs
//! no configuration. [`Checked`] holds every test record; [`Checked::assert_passed`] panics
//! with each failing relation, its inputs and the seeds that replay it:
//!
//! ```
//! use invite::mr::{add, permute};
//!
//! /// The mean; but past four elements it leaves out the last one, a defect.
//! #[invite::metamorphic(
//!     mean(&permute(xs)) == result,
//!     mean(&add(xs, 1.0)) == result + 1.0,
//! )]
//! fn mean(xs: &[f64]) -> f64 {
//!     let kept = if xs.len() > 4 { &xs[..xs.len() - 1] } else { xs };
//!     kept.iter().sum::<f64>() / xs.len() as f64
//! }
//!
//! let checked = invite::check(|| {
//!     mean(&[1.0, 2.0, 3.0]);
//!     mean(&[1.0, 2.0, 3.0, 4.0, 5.0]);
//! });
//! assert!(!checked.passed());
//! let failed = checked.problems().find(|t| t.test == "mean(&add(xs, 1.0)) == result + 1.0");
//! assert_eq!(failed.unwrap().inputs["xs"], "[1.0, 2.0, 3.0, 4.0, 5.0]");
//! ```
//!
//! ## In a running program: `invite.toml`
//!
//! In a running program nothing is sampled until a configuration says so: the file named by
//! `$INVITE_CONFIG`, else `./invite.toml`. Without one, or with `INVITE=off` in the environment,
//! the program runs untouched. In production, test a small share of calls under caps:
//!
//! ```toml
//! default_rho = 0.01      # probability that a call is tested
//! max_overhead = 0.05     # share of wall time the program may spend starting tests
//! log = "invite-log.jsonl"
//!
//! [functions."app::stats::mean"]   # a site of its own: module::function
//! rho = 0.001
//! ```
//!
//! While developing and in CI, sample every call instead, with the settings of
//! [the configuration chapter](crate::guide::configuration), and the program prints the report
//! of its own run as it exits. A program that would rather configure in code calls
//! [`init_with`] with a [`config::Config`] before its first instrumented call.
//!
//! ## What it found
//!
//! Every test ends in an outcome ([`record::Outcome`]: `pass`, `fail`, `error`, `timeout`,
//! `inconclusive`, `blocked` or `skipped`) and becomes a line of the JSON Lines log
//! ([`record::Record`]), with the call's inputs and the seeds that replay it. The `invite`
//! command ([`invite-mt-cli`](https://docs.rs/invite-mt-cli)) reads logs of any number of
//! processes: `invite report` shows outcomes per site and relation, costs and each failure;
//! `--fail-on fail,error,timeout` fails a CI job on a finding; `--target-overhead 0.01` tunes
//! each site's rate; `--emit-tests FILE` writes regression tests that call [`regression()`].
//! Inside the program, [`outcomes()`] gives the counts and failures so far, and [`on_failure`]
//! sets a hook called for each failing test as it is recorded.
//!
//! ## The guide
//!
//! The [guide], chapter by chapter:
//!
//! - Writing tests: [relations](crate::guide::relations),
//!   [where the attributes go](crate::guide::placement), [In Vivo tests](crate::guide::in_vivo),
//!   [in `cargo test`](crate::guide::cargo_test).
//! - Running them: [configuration](crate::guide::configuration),
//!   [the log and the report](crate::guide::log_and_report),
//!   [regressions](crate::guide::regressions), [pure sites](crate::guide::pure_sites),
//!   [sampling](crate::guide::sampling), [the sandbox](crate::guide::sandbox).
//! - More kinds of relations: [statistical](crate::guide::statistical),
//!   [discovery](crate::guide::discovery).
//! - At scale: [telemetry](crate::guide::telemetry), [fleets](crate::guide::fleet),
//!   [whole programs](crate::guide::system).
//! - Inside: [how it works](crate::guide::how_it_works), [limits](crate::guide::limits).

#![warn(missing_docs)]
// System calls and raw memory live in two low layers, `sys` and the sandbox's own `sys` (with
// the hand-over's byte protocol); everything else is safe code.
// The portable build keeps the shared modules whole; the parts of them only the Linux runtime
// and sandbox use go unused there.
#![cfg_attr(not(invite_linux), allow(dead_code))]
#![deny(
    unsafe_code,
    unsafe_op_in_unsafe_fn,
    clippy::undocumented_unsafe_blocks
)]

#[doc(hidden)]
#[path = "macro_support.rs"]
pub mod __private;
mod adopter;
pub mod bounds;
mod budget;
mod check;
mod checking;
#[cfg(invite_linux)]
mod collector;
pub mod config;
mod diag;
#[cfg(feature = "discover")]
pub mod discover;
mod error;
mod executor;
mod exit_report;
pub mod fleet;
pub mod guide;
#[cfg(invite_linux)]
#[allow(unsafe_code)]
mod handover;
mod identity;
mod log_sink;
// Emitted from the collector thread, which only the Linux runtime has.
#[cfg(all(invite_linux, feature = "metrics"))]
mod meter;
pub mod mr;
pub mod outcomes;
mod place;
pub mod record;
pub mod regression;
#[cfg(invite_linux)]
mod reload;
pub mod rng;
mod role;
#[cfg(invite_linux)]
mod runtime;
// Where runs cannot be forked: the runtime stays off, and checks run in process.
#[cfg(not(invite_linux))]
#[path = "portable/runtime.rs"]
mod runtime;
pub mod shrink;
#[cfg(feature = "statistical")]
pub mod stats;
mod travel;
mod turns;
mod wait_line;

// Reached from outside only through the hidden `__private`, for generated code and invite's own
// tools: documented for the crate's developers, not for users.
#[allow(missing_docs)]
mod dedup;
#[cfg(invite_linux)]
#[allow(missing_docs)]
mod sandbox;
#[cfg(not(invite_linux))]
#[allow(missing_docs)]
#[path = "portable/sandbox.rs"]
mod sandbox;
#[allow(missing_docs)]
mod site;

pub use check::{check, check_replaying, Checked};
#[cfg(feature = "proptest")]
pub use check::{check_strategy, check_strategy_with};
pub use error::InitError;
#[doc(hidden)]
pub use invite_macros::__block;
pub use invite_macros::{discover, in_vivo, metamorphic, mutants, mutants_of, sites, Discoverable};
pub use log_sink::append as append_to_log;
pub use outcomes::on_failure;
pub use outcomes::outcomes;
pub use regression::regression;
pub use rng::rng;
pub use runtime::{init_with, reload, shutdown, wait_idle};
pub use travel::Travel;

/// Starts invite now rather than at the first instrumented call: reads the configuration,
/// opens the log and starts the collector. Returns whether invite is on.
pub fn init() -> bool {
    runtime::get().is_some()
}

/// The names of the instrumented functions (sites) this program holds, as `invite.toml`'s
/// `[functions."name"]` entries and the log name them; a method's site is named at its first
/// sampled call, and is listed by its pattern until then.
pub fn site_names() -> impl Iterator<Item = &'static str> {
    site::all().map(|s| s.meta.name)
}

/// Whether this code runs inside a test child (where instrumentation is off).
pub fn in_test() -> bool {
    role::in_child()
}

/// The README's examples, compiled and run as doctests: `cargo test --doc` fails when the
/// README shows code that no longer builds or no longer does what its text says.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
