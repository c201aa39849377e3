//! # Invite: programs that test themselves while they run
//!
//! Programs in science, simulation and machine learning often have no test oracle: nobody knows
//! the right output for an arbitrary input. Metamorphic testing still finds their defects: if
//! `std_dev(xs)` is `r`, then `std_dev(2·xs)` must be `2r`, whatever `r` is. Invite checks such
//! relations, and arbitrary "In Vivo" tests, from inside the running program, on live arguments
//! and live state, in forked copy-on-write children that the program never waits for.
//!
//! ## Metamorphic relations
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
//! ```
//!
//! Inside a relation, parameter names are the live arguments of the sampled call, `result` is
//! the original function's output on them, and a call of the function's own name runs the
//! original, uninstrumented function on a follow-up input. Every execution starts from the
//! state the call saw and from the same [`rng()`] stream. Top-level comparisons are tolerant
//! for floating point (see [`mr::Approx`]). A guard `if cond => relation` skips the relation
//! when `cond` is false.
//!
//! ## In Vivo tests
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
//! Counter::default().bump(3);
//! ```
//!
//! The test runs in the child on the live state as it was just before the call and receives
//! the receiver and references to the arguments. It fails by returning `false` or `Err`, or by
//! panicking.
//!
//! ## Turning it on
//!
//! Nothing is sampled until an `invite.toml` (or the file named by `$INVITE_CONFIG`) says so:
//!
//! ```toml
//! default_rho = 0.01      # probability that a call is tested
//! max_concurrent = 1      # test children alive at once
//! max_overhead = 0.05     # share of wall time spent starting tests
//! log = "invite-log.jsonl"
//! ```
//!
//! `INVITE=off` in the environment, or `enabled = false`, turns everything off. Without the
//! default cargo feature `enabled`, the macros emit the plain function (the relations are still
//! type-checked, in a branch of the function that never runs). Results go to a JSON
//! Lines log ([`record::Record`]).

#![warn(missing_docs)]

#[doc(hidden)]
#[path = "macro_support.rs"]
pub mod __private;
pub mod bounds;
#[doc(hidden)]
pub mod budget;
mod check;
mod collector;
pub mod config;
#[doc(hidden)]
pub mod dedup;
mod diag;
pub mod discover;
mod executor;
mod exit_report;
mod handover;
pub mod log_sink;
pub mod mr;
pub mod outcomes;
pub mod record;
pub mod regression;
pub mod rng;
mod runtime;
#[doc(hidden)]
pub mod sandbox;
pub mod shrink;
#[doc(hidden)]
pub mod site;
pub mod stats;
mod turns;
mod wait_line;

pub use check::{check, check_replaying, Checked};
#[cfg(feature = "proptest")]
pub use check::{check_strategy, check_strategy_with};
pub use collector::on_failure;
pub use invite_macros::{discover, in_vivo, metamorphic};
pub use outcomes::outcomes;
pub use regression::regression;
pub use rng::rng;
pub use runtime::{init_with, shutdown, wait_idle};

/// Starts invite now rather than at the first instrumented call: reads the configuration,
/// opens the log and starts the collector. Returns whether invite is on.
pub fn init() -> bool {
    runtime::get().is_some()
}

/// Whether this code runs inside a test child (where instrumentation is off).
pub fn in_test() -> bool {
    runtime::in_child()
}

/// The README's examples, compiled and run as doctests: `cargo test --doc` fails when the
/// README shows code that no longer builds or no longer does what its text says.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
