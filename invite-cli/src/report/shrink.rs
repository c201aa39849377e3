//! `invite report --emit-tests FILE`: shrinking the emitted tests' inputs offline.
//!
//! The command cannot call the program's functions, but the emitted tests can: with
//! `INVITE_SHRINK` set, a failing test made by [`invite::regression()`] shrinks its own inputs
//! (holding to the relation that failed in the field) and appends what it found to that file.
//! So the command runs the emitted tests once, with `cargo test` in the package that holds
//! `FILE`, reads the shrinks back, and writes the tests again with the smaller inputs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use invite::regression::ShrinkReport;

/// The package that holds `file`: the nearest directory above it with a `Cargo.toml`.
pub fn package_of(file: &Path) -> Option<PathBuf> {
    let absolute = std::path::absolute(file).ok()?;
    absolute
        .ancestors()
        .skip(1)
        .find(|d| d.join("Cargo.toml").is_file())
        .map(Path::to_path_buf)
}

/// Runs the emitted tests named `tests` (the module is `file`'s stem) in `package`, with
/// shrinking on, and returns the shrinks by test name.
pub fn run(
    package: &Path,
    file: &Path,
    tests: &[String],
) -> Result<BTreeMap<String, ShrinkReport>, String> {
    let module = file
        .file_stem()
        .and_then(|s| s.to_str())
        .ok_or_else(|| format!("{} has no file name", file.display()))?;
    let scratch = tempfile::Builder::new()
        .prefix("invite-shrink-")
        .tempdir()
        .map_err(|e| format!("cannot make a scratch directory: {e}"))?;
    let results = scratch.path().join("shrunk.jsonl");
    // The tests run under a configuration of their own: nothing sampled beyond the checks,
    // and the package's own log left alone.
    let config = scratch.path().join("invite.toml");
    std::fs::write(
        &config,
        format!(
            "default_rho = 0.0\nlog = {:?}\n",
            scratch.path().join("log.jsonl").display().to_string()
        ),
    )
    .map_err(|e| format!("cannot write {}: {e}", config.display()))?;
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.arg("test")
        .arg("--manifest-path")
        .arg(package.join("Cargo.toml"));
    // The module is a module of the crate: of its library, else of its binaries.
    if package.join("src/lib.rs").is_file() {
        cmd.arg("--lib");
    } else {
        cmd.arg("--bins");
    }
    cmd.arg("--").arg("--test-threads=1");
    for t in tests {
        cmd.arg(format!("{module}::{t}"));
    }
    cmd.env("INVITE_SHRINK", &results)
        .env("INVITE_CONFIG", &config)
        .env_remove("INVITE");
    let out = cmd.output().map_err(|e| format!("cannot run cargo: {e}"))?;
    let found = match std::fs::read_to_string(&results) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(format!("cannot read {}: {e}", results.display())),
    };
    let mut shrunk = BTreeMap::new();
    for line in found.lines() {
        if let Ok(r) = serde_json::from_str::<ShrinkReport>(line) {
            shrunk.insert(r.test.clone(), r);
        }
    }
    if shrunk.is_empty() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let stdout = String::from_utf8_lossy(&out.stdout);
        if stdout.contains("running 0 tests") || !stdout.contains("running ") {
            let tail: Vec<&str> = stderr.lines().rev().take(12).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            return Err(format!(
                "`cargo test` in {} ran none of the emitted tests: is the file a module of the \
                 crate (`#[cfg(test)] mod {module};`) and does the crate build?\n{}",
                package.display(),
                tail.join("\n")
            ));
        }
    }
    Ok(shrunk)
}
