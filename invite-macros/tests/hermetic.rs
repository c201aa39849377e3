//! The attribute macros depend on the tokens the compiler hands them and nothing else: no file
//! (an editor's unsaved buffer, code a build script wrote, a long-lived macro server's stale
//! cache would each give another expansion than `cargo build`), no environment variable, no
//! process, no network. This test reads the macro crate's own source and fails on any use of
//! the standard library's ways out.

use std::path::{Path, PathBuf};

/// What a hermetic macro never calls; each with why it would not be.
const FORBIDDEN: &[(&str, &str)] = &[
    ("std::fs", "reads or writes files"),
    ("fs::read", "reads files"),
    ("File::open", "reads files"),
    ("local_file", "finds the source file to read"),
    ("include_str!", "embeds a file"),
    ("include_bytes!", "embeds a file"),
    ("std::env", "reads the environment"),
    ("env::var", "reads the environment"),
    ("tracked_env", "reads the environment"),
    ("std::process", "runs processes"),
    ("std::net", "opens sockets"),
    // State kept from one expansion to the next outlives the code it was made from in a
    // long-lived macro server.
    ("RefCell", "keeps state between expansions"),
    ("OnceLock", "keeps state between expansions"),
    ("LazyLock", "keeps state between expansions"),
    ("Mutex", "keeps state between expansions"),
    ("static mut", "keeps state between expansions"),
];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("the macro crate's sources") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn the_macro_crate_reads_nothing_but_its_tokens() {
    let mut files = Vec::new();
    sources(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    assert!(files.len() >= 10, "found the sources: {files:?}");
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a source file");
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for (pattern, why) in FORBIDDEN {
                if code.contains(pattern) {
                    found.push(format!("{}:{}: `{pattern}` {why}", file.display(), n + 1));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "the macros must depend on their tokens alone:\n{}",
        found.join("\n")
    );
}
