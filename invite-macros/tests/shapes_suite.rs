//! The suites that hold the macros, run from the macros' own package: what mutation testing of
//! the macros runs against (`scripts/mutants invite-macros/src/expand/*.rs`), since
//! cargo-mutants tests the package it mutates. A mutant is caught when the shapes no longer
//! compile or no longer pass, or the runtime's suites of what the macros write do not. Ignored
//! in ordinary runs, where the workspace runs these suites itself.

#[test]
#[ignore = "run by scripts/mutants; `cargo test --workspace` runs the shapes suite itself"]
fn the_shapes_compile_and_pass() {
    let status = std::process::Command::new(env!("CARGO"))
        .args(["test", "-q", "-p", "invite-shapes", "--all-features"])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .status()
        .expect("cargo runs");
    assert!(status.success(), "the shapes suite failed: {status}");
}

/// Runs `cargo test` in the workspace with `args`, and fails with the suite.
fn cargo_test(args: &[&str]) {
    let status = std::process::Command::new(env!("CARGO"))
        .arg("test")
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .status()
        .expect("cargo runs");
    assert!(status.success(), "cargo test {args:?} failed: {status}");
}

#[test]
#[ignore = "run by scripts/mutants; `cargo test --workspace` runs these suites itself"]
fn the_runtime_s_suites_of_what_the_macros_write_pass() {
    // The worker's copies and the unseen-call check, as sites run them.
    cargo_test(&[
        "-q",
        "-p",
        "invite-mt",
        "--all-features",
        "--test",
        "scenarios",
        "--",
        "pure::",
        "unseen_and_adaptive::",
    ]);
    // Without the feature: the relations and the copies still type-checked, the errors spanned.
    cargo_test(&[
        "-q",
        "-p",
        "invite-mt",
        "--no-default-features",
        "--test",
        "compile_fail",
        "--test",
        "feature_off",
    ]);
}
