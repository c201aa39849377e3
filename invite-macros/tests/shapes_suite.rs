//! The shapes suite (`shapes/`), run from the macros' own package: what mutation testing of the
//! macros runs against (`scripts/mutants invite-macros/src/expand/*.rs`), since cargo-mutants
//! tests the package it mutates. A mutant is caught when the shapes no longer compile or no
//! longer pass. Ignored in ordinary runs, where the workspace runs the suite itself.

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
