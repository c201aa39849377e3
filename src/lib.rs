//! # Invite: programs that test themselves while they run
//!
//! Programs in science, simulation and machine learning often have no test oracle: nobody knows
//! the right output for an arbitrary input. Metamorphic testing still finds their defects: if
//! `std_dev(xs)` is `r`, then `std_dev(2·xs)` must be `2r`, whatever `r` is. Invite checks such
//! relations, and arbitrary "In Vivo" tests, from inside the running program, on live arguments
//! and live state, in forked copy-on-write children that the program never waits for.
//!
//! This page walks through the library: [relations](#metamorphic-relations) and
//! [In Vivo tests](#in-vivo-tests) on a function, the same tests
//! [in `cargo test`](#the-same-tests-in-cargo-test), [turning it on](#turning-it-on-invitetoml)
//! in a running program, and [reading what it found](#reading-what-it-found). The README (on
//! [crates.io](https://crates.io/crates/invite-mt)) has the details of each part, the sandbox
//! and the costs.
//!
//! ## Metamorphic relations
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
//! // In a test, every call is tested (see below): these relations hold.
//! invite::check(|| {
//!     std_dev(&[1.0, 2.0, 4.0]);
//! })
//! .assert_passed();
//! ```
//!
//! A relation is a Rust `bool` expression. In it, the parameters' names are the live arguments
//! of the sampled call, `result` is the function's output on them, and a call of the function's
//! own name runs the function again on a follow-up input (for methods: `self.name(..)`,
//! `Self::name(..)`). Every execution starts from the arguments the call saw (a receiver or an
//! argument it may change is cloned for each) and from the same [`rng()`] stream, so a
//! function that draws from it is compared on the same draws. The follow-up inputs come from the transformations of [`mr`] ([`mr::permute`],
//! [`mr::multiply`], [`mr::add`], [`mr::include`], ...). Top-level comparisons are tolerant for
//! floating point (see [`mr::Approx`]), a guard `if cond => relation` skips the relation when
//! `cond` is false, and `statistical(test = welch) => ...` judges a relation of a random
//! function over many runs (see [`stats`]). Options follow the relations: `tolerance = 1e-9`,
//! `timeout_ms = 500`, `rho = 0.01`, `name = "..."`, and `test = path::to::check` adds a
//! hand-written test of the result.
//!
//! The attribute works on free functions, methods, trait impls' methods, `async fn`s and
//! functions that macros write; the function keeps its signature, and nothing is added beside
//! it. Misuse (a relation naming a misspelt parameter, a `const fn`, a `&mut self` method of a
//! type that is not `Clone`) is a compile error on the offending token.
//!
//! ## In Vivo tests
//!
//! [`#[invite::in_vivo(test = ...)]`](in_vivo) runs a test of your own on the live state, as it
//! was just before a sampled call:
//!
//! ```
//! #[derive(Default)]
//! struct Counter { hits: u64 }
//!
//! impl Counter {
//!     #[invite::in_vivo(test = Self::bump_adds_one)]
//!     fn bump(&mut self, by: u64) { self.hits += by; }
//!
//!     fn bump_adds_one(&mut self, _by: &u64) -> bool {
//!         let before = self.hits;
//!         self.bump(1);
//!         self.hits == before + 1
//!     }
//! }
//!
//! let mut counter = Counter::default();
//! invite::check(|| counter.bump(3)).assert_passed();
//! assert_eq!(counter.hits, 3);
//! ```
//!
//! The test receives the receiver, with the method's mutability, and references to the
//! arguments. It fails by returning `false` or `Err`, or by panicking, so `assert!`-style unit
//! tests can be reused. It runs in the child, so what it changes is lost with the child: the
//! program's `counter` above still holds 3. The two attributes can share a function, and one
//! fork then serves every test of a call.
//!
//! ## The same tests in `cargo test`
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
//! With the `proptest` feature, `check_strategy` draws the inputs from a proptest strategy and
//! shrinks a failing one to a minimal input. A failure logged in production becomes a
//! regression test: `invite report --emit-tests` writes tests that call [`regression()`], which
//! replays the logged call on its inputs and random streams ([`check_replaying`]).
//!
//! ## Turning it on: `invite.toml`
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
//! While developing and in CI, test every call instead (`default_rho = 1.0`,
//! `when_busy = "wait"`, `max_overhead = 1.0`) and set `report_at_exit = true`, and the program
//! prints the report of its own run as it exits. A site's rate is its `[functions]` entry, else
//! the attribute's `rho`, else `default_rho`; at start, an entry that names no instrumented
//! function is said on stderr. A program that would rather configure in code calls [`init_with`]
//! with a [`config::Config`] before its first instrumented call; the values are checked as a
//! file's are. Without the default cargo feature `enabled`, the attributes emit the plain
//! function (the relations are still type-checked, in a branch that never runs).
//!
//! ## Reading what it found
//!
//! Every test ends in an outcome ([`record::Outcome`]: `pass`, `fail`, `error`, `timeout`,
//! `inconclusive`, `blocked` or `skipped`) and becomes a line of the JSON Lines log
//! ([`record::Record`]), with the call's inputs and the seeds that replay it
//! ([`record::Seeds`], [`rng::replay`]). The `invite` command
//! ([`invite-mt-cli`](https://docs.rs/invite-mt-cli)) reads logs of any number of processes:
//! `invite report` shows outcomes per site and relation, costs and each failure;
//! `--fail-on fail,error,timeout` fails a CI job on a finding; `--target-overhead 0.01` tunes
//! each site's rate; `--emit-tests FILE` writes the regression tests. Inside the program,
//! [`outcomes()`] gives the counts and failures so far, and [`on_failure`] sets a hook called
//! for each failing test as it is recorded:
//!
//! ```
//! invite::on_failure(|t| eprintln!("invite: {} failed {}", t.site, t.test));
//! // ... the program's work ...
//! invite::wait_idle(std::time::Duration::from_secs(5)); // let running tests finish
//! let outcomes = invite::outcomes();
//! for f in &outcomes.failures {
//!     eprintln!("{} `{}`: {:?} on {:?}", f.site, f.test, f.detail, f.inputs);
//! }
//! ```
//!
//! [`#[invite::discover]`](macro@discover) proposes relations from a function's sampled calls
//! instead, and [`discover::Discovery`] from inputs you give.

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
pub mod discover;
mod error;
mod executor;
mod exit_report;
pub mod fleet;
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
mod plane;
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
pub mod stats;
#[cfg(invite_linux)]
#[allow(unsafe_code)]
mod sys;
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
pub use invite_macros::{discover, in_vivo, metamorphic, sites};
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

/// Whether this code runs inside a test child (where instrumentation is off).
pub fn in_test() -> bool {
    role::in_child()
}

/// The README's examples, compiled and run as doctests: `cargo test --doc` fails when the
/// README shows code that no longer builds or no longer does what its text says.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
