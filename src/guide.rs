//! The user guide: from a first relation to a fleet in production.
//!
//! Invite checks metamorphic relations, and In Vivo tests of your own, from inside a running
//! program, on live arguments and live state, in forked copy-on-write children that the program
//! never waits for. The chapters below are in the order a user needs them; each ends with a
//! link to the next. Every Rust example in them is a doctest, compiled and run with the crate's
//! tests.
//!
//! Writing tests:
//!
//! 1. [`relations`]: metamorphic relations, what they may say and how they are judged.
//! 2. [`placement`]: methods, trait impls, `async fn`, `unsafe fn`, macros, and site names.
//! 3. [`in_vivo`]: a test of your own on the live state of a sampled call.
//! 4. [`cargo_test`]: the same relations in `cargo test`, and proptest inputs, shrunk.
//!
//! Running them in a program:
//!
//! 5. [`configuration`]: `invite.toml`, for development and for production; every key.
//! 6. [`log_and_report`]: outcomes, the log, and `invite report`.
//! 7. [`regressions`]: from a failure in the field back to a `#[test]`.
//! 8. [`pure_sites`]: tests without a fork, for functions of their arguments alone.
//! 9. [`sampling`]: the caps, turns, the adaptive rate and unseen-state testing.
//! 10. [`sandbox`]: what a test may do, and what stops it.
//!
//! More kinds of relations:
//!
//! 11. [`statistical`]: relations of random functions that hold in distribution.
//! 12. [`discovery`]: relations proposed from a function's own calls.
//!
//! In production, at scale:
//!
//! 13. [`telemetry`]: invite's messages through `log` or `tracing`, and metrics.
//! 14. [`fleet`]: many instances share the testing.
//! 15. [`system`]: `invite system`, for whole programs in any language.
//!
//! How it works:
//!
//! 16. [`how_it_works`]: the path of a sampled call, and what it costs.
//! 17. [`limits`]: what invite does not do, and what it does off Linux.
//!
//! The design is in `docs/DESIGN.md`, the test behind each promise in `TESTING.md`, and every
//! figure with its method in `BENCHMARKS.md`, in the
//! [repository](https://github.com/invite-mt/invite).

// The examples show `#[test]` functions as a user writes them; a hidden macro runs each one, so
// the test in the example is executed after all.
#![allow(clippy::test_attr_in_doctest)]

pub mod relations {
    #![doc = include_str!("guide/relations.md")]
}

pub mod placement {
    #![doc = include_str!("guide/placement.md")]
}

pub mod in_vivo {
    #![doc = include_str!("guide/in_vivo.md")]
}

pub mod cargo_test {
    #![doc = include_str!("guide/cargo_test.md")]
}

pub mod configuration {
    #![doc = include_str!("guide/configuration.md")]
}

pub mod log_and_report {
    #![doc = include_str!("guide/log_and_report.md")]
}

pub mod regressions {
    #![doc = include_str!("guide/regressions.md")]
}

pub mod pure_sites {
    #![doc = include_str!("guide/pure_sites.md")]
}

pub mod sampling {
    #![doc = include_str!("guide/sampling.md")]
}

pub mod sandbox {
    #![doc = include_str!("guide/sandbox.md")]
}

pub mod statistical {
    #![doc = include_str!("guide/statistical.md")]
}

pub mod discovery {
    #![doc = include_str!("guide/discovery.md")]
}

pub mod telemetry {
    #![doc = include_str!("guide/telemetry.md")]
}

pub mod fleet {
    #![doc = include_str!("guide/fleet.md")]
}

pub mod system {
    #![doc = include_str!("guide/system.md")]
}

pub mod how_it_works {
    #![doc = include_str!("guide/how_it_works.md")]
}

pub mod limits {
    #![doc = include_str!("guide/limits.md")]
}
