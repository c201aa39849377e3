//! A program that depends on `invite-mt` compiles the runtime only: the command's parser,
//! progress bar, report and `invite system` live in `invite-mt-cli`, a package of its own.

use std::process::Command;

/// The packages `package` compiles for a program that depends on it (normal dependencies with
/// its default features), one name per line, from `cargo tree`.
fn compiled_with(package: &str) -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "tree", "--locked", "-p", package, "-e", "normal", "--prefix", "none", "--format",
            "{p}",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run cargo tree");
    assert!(
        out.status.success(),
        "cargo tree -p {package}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

#[test]
fn the_runtime_compiles_none_of_the_commands_crates() {
    let the_commands_own = ["invite-mt-cli", "clap", "indicatif", "csv", "landlock"];
    // The check can fail: the command's package does pull them in.
    let cli = compiled_with("invite-mt-cli");
    for name in the_commands_own {
        assert!(cli.iter().any(|p| p == name), "{name} not in {cli:?}");
    }
    let runtime = compiled_with("invite-mt");
    assert!(runtime.iter().any(|p| p == "invite-macros"), "{runtime:?}");
    for name in the_commands_own {
        assert!(
            !runtime.iter().any(|p| p == name),
            "a program depending on invite-mt compiles {name}: {runtime:?}"
        );
    }
}

/// A `cargo metadata` output: the member `app` (MSRV 1.89) depends on `lib` normally and on
/// `dev_only` for its tests only; `lib` declares `lib_msrv`.
fn metadata(lib_msrv: &str, dev_msrv: &str) -> String {
    let package = |name: &str, msrv: &str| {
        format!(
            r#"{{"id":"{name} 1.0.0","name":"{name}","version":"1.0.0","rust_version":"{msrv}"}}"#
        )
    };
    let dep = |name: &str, kind: &str| {
        format!(r#"{{"pkg":"{name} 1.0.0","dep_kinds":[{{"kind":{kind}}}]}}"#)
    };
    format!(
        r#"{{"packages":[{},{},{}],"workspace_members":["app 1.0.0"],
            "resolve":{{"nodes":[{{"id":"app 1.0.0","deps":[{},{}]}},
            {{"id":"lib 1.0.0","deps":[]}},{{"id":"dev_only 1.0.0","deps":[]}}]}}}}"#,
        package("app", "1.89"),
        package("lib", lib_msrv),
        package("dev_only", dev_msrv),
        dep("lib", "null"),
        dep("dev_only", "\"dev\""),
    )
}

/// Runs `scripts/msrv-deps` on a saved metadata text: whether it passed, and what it printed.
fn msrv_deps(meta: &str) -> (bool, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("metadata.json");
    std::fs::write(&file, meta).unwrap();
    let out = Command::new("python3")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/msrv-deps"))
        .arg(&file)
        .output()
        .expect("run python3 scripts/msrv-deps");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn msrv_deps_fails_on_a_built_crate_newer_than_the_msrv_and_ignores_dev_ones() {
    let (ok, said) = msrv_deps(&metadata("1.89.0", "1.95"));
    assert!(ok, "{said}");
    assert!(
        said.contains("2 crates, none declares a Rust newer than 1.89.0"),
        "{said}"
    );
    let (ok, said) = msrv_deps(&metadata("1.90", "1.0"));
    assert!(!ok, "{said}");
    assert!(said.contains("lib 1.0.0 needs Rust 1.90"), "{said}");
    assert!(
        said.contains("cargo update -p NAME --precise VERSION"),
        "{said}"
    );
}
