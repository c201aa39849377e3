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
