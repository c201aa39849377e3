//! Back from the field: a failure logged by a program becomes, through `invite report
//! --emit-tests`, a regression test that fails on the defective code and passes on the fixed
//! code. Done for real: a scratch crate with a planted defect is run under invite, the command
//! writes the tests from its log, and `cargo test` runs them before and after the fix. One of
//! the defects shows only for some draws of the program's random stream and some orders of a
//! permutation: its tests reproduce it only if they replay both from the log. Another fails on
//! every even length: its many failures make one test, whose input the command shrinks to two
//! elements by running the emitted tests in the crate.

use std::path::{Path, PathBuf};
use std::process::Command;

const DEFECTIVE: &str = r#"
/// The mean, with a planted defect: the last value is left out of the sum.
#[invite::metamorphic(mean(&invite::mr::add(xs, 1.5)) == result + 1.5)]
pub fn mean(xs: &[f64]) -> f64 {
    xs[..xs.len().saturating_sub(1)].iter().sum::<f64>() / xs.len().max(1) as f64
}

/// A mean with one element counted twice: the one at a drawn position, when it is the largest.
/// A permutation moves the largest element, so the relation fails for some draws and orders.
#[invite::metamorphic(sampled(&invite::mr::permute(xs)) == result)]
pub fn sampled(xs: &[f64]) -> f64 {
    use rand::Rng;
    let i = invite::rng().random_range(0..xs.len());
    let max = xs.iter().copied().fold(f64::MIN, f64::max);
    let extra = if xs[i] == max { xs[i] } else { 0.0 };
    (xs.iter().sum::<f64>() + extra) / xs.len() as f64
}

/// The median, with a planted defect: the upper middle element at even lengths.
#[invite::metamorphic(median(&invite::mr::negate(xs)) == -result)]
pub fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[cfg(test)]
mod invite_regressions;
"#;

const FIXED: &str = r#"
#[invite::metamorphic(mean(&invite::mr::add(xs, 1.5)) == result + 1.5)]
pub fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len().max(1) as f64
}

#[invite::metamorphic(sampled(&invite::mr::permute(xs)) == result)]
pub fn sampled(xs: &[f64]) -> f64 {
    use rand::Rng;
    let _position = invite::rng().random_range(0..xs.len());
    xs.iter().sum::<f64>() / xs.len() as f64
}

#[invite::metamorphic(median(&invite::mr::negate(xs)) == -result)]
pub fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 0 { (v[n / 2 - 1] + v[n / 2]) / 2.0 } else { v[n / 2] }
}

#[cfg(test)]
mod invite_regressions;
"#;

const MAIN: &str = r#"
fn main() {
    for xs in [vec![1.0, 2.0, 4.0], vec![0.5, -7.25], vec![1.0, 2.0, 4.0]] {
        println!("{}", field::mean(&xs));
    }
    // Twenty inputs of five distinct values each.
    for k in 0..20 {
        let xs: Vec<f64> = (0..5).map(|j| f64::from((j * 7 + k) % 11)).collect();
        println!("{}", field::sampled(&xs));
    }
    // Thirty inputs of 5 to 34 distinct values: fifteen of even length, each failing.
    for n in 5..35 {
        let xs: Vec<f64> = (0..n).map(|j| f64::from((j * 13 + n) % 37) * 1.25 - 9.0).collect();
        println!("{}", field::median(&xs));
    }
}
"#;

fn cargo(dir: &Path, target: &Path, args: &[&str]) -> (bool, String) {
    cargo_with(dir, target, args, Some(&dir.join("invite.toml")))
}

/// `cargo` in `dir` with `$INVITE_CONFIG` naming `config`, or unset.
fn cargo_with(dir: &Path, target: &Path, args: &[&str], config: Option<&Path>) -> (bool, String) {
    let mut cmd = Command::new(env!("CARGO"));
    cmd.args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .env_remove("INVITE_CONFIG")
        .env_remove("INVITE")
        .env_remove("RUSTFLAGS");
    if let Some(config) = config {
        cmd.env("INVITE_CONFIG", config);
    }
    let out = cmd.output().expect("run cargo");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// A scratch crate of the program under test, built into the suite's shared target directory.
struct Scratch {
    /// Removed with the crate.
    _dir: tempfile::TempDir,
    dir: PathBuf,
    target: PathBuf,
    log: PathBuf,
}

/// Writes a crate named `name` that depends on the runtime with `features` (`""` or
/// `"\"serde\""`) and on the lines of `deps`, with `lib` and `main`,
/// an empty `invite_regressions` module, and an `invite.toml` that tests every call under
/// `seed` and logs to `NAME.jsonl`. Crates of different names may build beside each other.
fn scratch(name: &str, features: &str, deps: &str, lib: &str, main: &str, seed: u64) -> Scratch {
    // The workspace root: the runtime crate the scratch crate depends on, and the lock file.
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the command's crate is in the workspace")
        .to_path_buf();
    let tmp = tempfile::Builder::new()
        .prefix(&format!("invite-{name}-"))
        .tempdir()
        .unwrap();
    let dir = tmp.path().to_path_buf();
    // Kept between runs of the suite: the scratch crate's dependencies compile once.
    let target = repo.join("target").join("emit-scratch");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = {name:?}\nversion = \"0.0.0\"\nedition = \"2021\"\n\n\
             [dependencies]\ninvite = {{ package = \"invite-mt\", path = {:?}, features = [{features}] }}\n\
             {deps}\n[workspace]\n",
            repo.display().to_string()
        ),
    )
    .unwrap();
    // The same versions as the workspace, so that nothing new is fetched.
    std::fs::copy(repo.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    std::fs::write(dir.join("src/lib.rs"), lib).unwrap();
    std::fs::write(dir.join("src/invite_regressions.rs"), "").unwrap();
    std::fs::write(dir.join("src/main.rs"), main).unwrap();
    let log = dir.join(format!("{name}.jsonl"));
    std::fs::write(
        dir.join("invite.toml"),
        format!(
            "default_rho = 1.0\nmax_concurrent = 8\nmax_overhead = 1.0\nchild_cpu_charge = 0.0\n\
             when_busy = \"wait\"\ntimeout_ms = 30000\ndrain_ms = 30000\nseed = {seed}\nlog = {:?}\n",
            log.display().to_string()
        ),
    )
    .unwrap();
    Scratch {
        _dir: tmp,
        dir,
        target,
        log,
    }
}

#[test]
fn an_emitted_test_reproduces_a_logged_failure_and_passes_once_the_defect_is_fixed() {
    let scratch = scratch(
        "field",
        "",
        "rand = { version = \"0.9\", default-features = false }\n",
        DEFECTIVE,
        MAIN,
        42,
    );
    let (dir, target, log) = (
        scratch.dir.as_path(),
        scratch.target.clone(),
        scratch.log.clone(),
    );

    // The program runs in the field and logs its failures.
    let (ok, out) = cargo(dir, &target, &["run", "--quiet", "--offline"]);
    assert!(ok, "{out}");
    let logged = std::fs::read_to_string(&log).unwrap();
    let failures = |site: &str| {
        logged
            .lines()
            .filter(|l| l.contains("\"outcome\":\"fail\"") && l.contains(site))
            .count()
    };
    assert_eq!(failures("field::mean"), 3, "{logged}");
    // About a third of the calls: the seed fixes which (and the inputs are all distinct).
    let drawn = failures("field::sampled");
    assert!((1..20).contains(&drawn), "{logged}");

    assert_eq!(failures("field::median"), 15, "{logged}");

    // Back from the field: one test per defect, however many failures it had.
    let emitted = invite_cli::report::emit::from_logs(&[log.display().to_string()]).unwrap();
    assert_eq!(emitted.tests, 3, "{}", emitted.source);
    assert!(emitted.skipped.is_empty(), "{:?}", emitted.skipped);
    // The smallest of the mean's inputs; every test can be shrunk.
    assert!(
        emitted.source.contains("        vec![0.5, -7.25],\n"),
        "{}",
        emitted.source
    );
    assert_eq!(emitted.shrinkable.len(), 3);

    // The command writes them, then shrinks their inputs by running them in the crate.
    let regressions = dir.join("src/invite_regressions.rs");
    let out = Command::new(env!("CARGO_BIN_EXE_invite"))
        .args(["report", "--emit-tests"])
        .arg(&regressions)
        .arg(&log)
        .env("CARGO_TARGET_DIR", &target)
        .env("CARGO_NET_OFFLINE", "true")
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("wrote 3 regression test(s), one per defect, for "),
        "{stderr}"
    );
    let source = std::fs::read_to_string(&regressions).unwrap();
    // The median's fifteen failures, shrunk from the smallest logged (six elements) to two.
    assert!(
        stderr.contains(
            "  median_negate_xs_result: `[-1.5, 14.75, 31.0, 1.0, 17.25, 33.5]` (6 elements) to `["
        ),
        "{stderr}"
    );
    assert!(
        source.contains("/// `xs` from `[-1.5, 14.75, 31.0, 1.0, 17.25, 33.5]` (6 elements) to `["),
        "{source}"
    );
    assert!(
        source.contains("ended `fail` in 15 runs (15 distinct inputs)"),
        "{source}"
    );
    let test = source
        .split("fn median_negate_xs_result()")
        .nth(1)
        .unwrap_or_else(|| panic!("{source}"));
    let input = test
        .split("vec![")
        .nth(1)
        .and_then(|r| r.split(']').next())
        .unwrap();
    assert_eq!(input.split(", ").count(), 2, "{test}");
    // The mean's defect shows on one element (its sum leaves out the last), and shrinking
    // never empties an input: the mean of nothing is no mean, whatever the relation says.
    assert!(
        source.contains("/// `xs` from `[0.5, -7.25]` (2 elements) to `[-1.0]` (1 element)\n"),
        "{source}"
    );
    assert!(source.contains("        vec![-1.0],\n"), "{source}");

    // On the defective code the emitted tests fail, naming the relation.
    let (ok, out) = cargo(dir, &target, &["test", "--quiet", "--offline", "--lib"]);
    assert!(
        !ok,
        "the emitted tests passed on the defective code:\n{out}"
    );
    // Each of them: a replay that missed the logged stream or permutation would pass some.
    assert!(out.contains("3 failed"), "{out}");
    assert!(
        out.contains("mean(&invite::mr::add(xs, 1.5)) == result + 1.5`: fail"),
        "{out}"
    );
    assert!(
        out.contains("median(&invite::mr::negate(xs)) == -result`: fail"),
        "{out}"
    );

    // Fixed, they pass.
    std::fs::write(dir.join("src/lib.rs"), FIXED).unwrap();
    let (ok, out) = cargo(dir, &target, &["test", "--quiet", "--offline", "--lib"]);
    assert!(ok, "the emitted tests fail on the fixed code:\n{out}");
    assert!(out.contains("3 passed"), "{out}");
}

/// The README's worked example, run as the README says: `examples/median` prints its own
/// findings at exit, the command writes one shrunk test for its 991 failures, and that test is
/// the one the README shows, fails on the defect and passes on the fix.
#[test]
fn the_median_example_goes_from_the_field_to_the_readme_s_minimal_test() {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the command's crate is in the workspace")
        .to_path_buf();
    let example = repo.join("examples/median");
    let scratch = tempfile::Builder::new()
        .prefix("invite-median-")
        .tempdir()
        .unwrap();
    let dir = scratch.path();
    let target = repo.join("target").join("emit-scratch");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    for file in [
        "invite.toml",
        "src/lib.rs",
        "src/main.rs",
        "src/invite_regressions.rs",
    ] {
        std::fs::copy(example.join(file), dir.join(file)).unwrap();
    }
    // The example is a workspace member; its copy is a package of its own.
    let manifest = std::fs::read_to_string(example.join("Cargo.toml"))
        .unwrap()
        .replace(
            "path = \"../..\"",
            &format!("path = {:?}", repo.display().to_string()),
        )
        .replace("edition.workspace = true", "edition = \"2021\"")
        .replace(
            "license.workspace = true",
            "license = \"MIT OR Apache-2.0\"",
        )
        .replace("rust-version.workspace = true", "rust-version = \"1.89\"")
        // The workspace's lints stay with the workspace.
        .replace("[lints]\nworkspace = true\n", "")
        + "\n[workspace]\n";
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::copy(repo.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    // On a loaded machine a test may wait seconds for a CPU: deadlines that no test of this
    // program comes near, so that every one of its tests ends in its verdict.
    let mut config = std::fs::read_to_string(dir.join("invite.toml")).unwrap();
    config.push_str("timeout_ms = 30000\ndrain_ms = 30000\n");
    std::fs::write(dir.join("invite.toml"), config).unwrap();

    // The program, as the README runs it: its own report at exit.
    let (ok, out) = cargo(dir, &target, &["run", "--quiet", "--offline"]);
    assert!(ok, "{out}");
    assert!(out.contains("2000 batches, mean median"), "{out}");
    assert!(
        out.contains("invite: report of this run: 8000 tests, 7009 passed, 991 failed"),
        "{out}"
    );
    assert!(
        out.contains("  invite_example_median::median: fail ×991\n"),
        "{out}"
    );
    assert!(
        out.contains("      xs (len 2) = [7973.3, -573673.18]\n"),
        "{out}"
    );

    // The command, as the README runs it.
    let out = Command::new(env!("CARGO_BIN_EXE_invite"))
        .args(["report", "--emit-tests", "src/invite_regressions.rs"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", &target)
        .env("CARGO_NET_OFFLINE", "true")
        .env_remove("RUSTFLAGS")
        .env_remove("INVITE_CONFIG")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("wrote 1 regression test(s), one per defect, for 991 failure(s)"),
        "{stderr}"
    );
    let readme = std::fs::read_to_string(repo.join("src/guide/regressions.md")).unwrap();
    let said = "median_negate_xs_result: `[7973.3, -573673.18]` (2 elements) to `[1.0, -1.0]`\n\
                (2 elements) (8 tries)";
    assert!(stderr.contains(&said.replace('\n', " ")), "{stderr}");
    assert!(
        readme.contains(said),
        "the README quotes what the command says"
    );
    let source = std::fs::read_to_string(dir.join("src/invite_regressions.rs")).unwrap();
    let test = &source[source.find("#[test]").unwrap_or_else(|| panic!("{source}"))..];
    assert_eq!(
        shown_rust_block(&readme, "fn median_negate_xs_result()").as_deref(),
        Some(test.trim_end()),
        "the README shows the test the example produces"
    );

    // The test fails on the defect, naming the relation.
    let (ok, out) = cargo(dir, &target, &["test", "--quiet", "--offline", "--lib"]);
    assert!(
        !ok,
        "the emitted test passed on the defective median:\n{out}"
    );
    assert!(
        out.contains("median(&negate(xs)) == -result`: fail"),
        "{out}"
    );
    assert!(out.contains("inputs: xs = [1.0, -1.0]"), "{out}");

    // Fixed, it passes.
    let lib = std::fs::read_to_string(dir.join("src/lib.rs")).unwrap();
    let fixed = lib.replace(
        "    sorted[sorted.len() / 2]\n",
        "    let n = sorted.len();\n    \
         if n % 2 == 0 { (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0 } else { sorted[n / 2] }\n",
    );
    assert_ne!(fixed, lib, "the defect's line is where the test expects it");
    std::fs::write(dir.join("src/lib.rs"), fixed).unwrap();
    let (ok, out) = cargo(dir, &target, &["test", "--quiet", "--offline", "--lib"]);
    assert!(ok, "the emitted test fails on the fixed median:\n{out}");
    assert!(out.contains("1 passed"), "{out}");
}

/// The text of the README's Rust block that holds `needle`, as rustdoc shows it: without the
/// lines it hides (`# ...`, and `#` alone), which make the block a doctest that compiles and
/// runs the test. Every other line is compared as it is.
fn shown_rust_block(readme: &str, needle: &str) -> Option<String> {
    let mut lines = readme.lines();
    while let Some(line) = lines.next() {
        if !line.starts_with("```rust") {
            continue;
        }
        let shown: Vec<&str> = lines
            .by_ref()
            .take_while(|l| *l != "```")
            .filter(|l| !(l.trim_start().starts_with("# ") || l.trim() == "#"))
            .collect();
        let block = shown.join("\n");
        if block.contains(needle) {
            return Some(block);
        }
    }
    None
}

const MODEL: &str = r#"
/// A model fitted to rows of features and targets.
pub trait Model {
    /// The prediction for the features `q`.
    fn predict(&self, q: &[f64]) -> f64;
}

/// k nearest neighbours. Its `Debug` text, and a query's, are far longer than a log keeps.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Knn {
    pub k: usize,
    pub rows: Vec<(Vec<f64>, f64)>,
}

impl Model for Knn {
    /// The mean target of the `k` rows nearest `q`.
    #[invite::metamorphic(Knn { k: self.k, rows: invite::mr::reverse(&self.rows) }.predict(q) == result)]
    fn predict(&self, q: &[f64]) -> f64 {
        let distance = |x: &[f64]| x.iter().zip(q).map(|(a, b)| (a - b) * (a - b)).sum::<f64>();
        let mut near: Vec<(f64, f64)> = self
            .rows
            .iter()
            .take(ROWS_LOOKED_AT)
            .map(|(x, y)| (distance(x), *y))
            .collect();
        near.sort_by(|a, b| a.0.total_cmp(&b.0));
        near.iter().take(self.k).map(|(_, y)| y).sum::<f64>() / self.k as f64
    }
}

/// A planted defect: the model looks at its first rows only, so the order of its training
/// rows changes its predictions.
const ROWS_LOOKED_AT: usize = 12;

/// The spread of a long sample, with a planted defect: from the first value, not the least.
#[invite::metamorphic(spread(&invite::mr::reverse(xs)) == result)]
pub fn spread(xs: &[f64]) -> f64 {
    let hi = xs.iter().copied().fold(f64::MIN, f64::max);
    hi - xs[0]
}

#[cfg(test)]
mod invite_regressions;
"#;

const MODEL_MAIN: &str = r#"
use model::Model;

fn main() {
    // Forty rows of sixty-four features each, and three queries of as many.
    let feature = |i: usize, j: usize| ((i * 31 + j * 17) % 101) as f64 / 7.0 - 5.0;
    let rows: Vec<(Vec<f64>, f64)> = (0..40)
        .map(|i| ((0..64).map(|j| feature(i, j)).collect(), (i % 9) as f64))
        .collect();
    let model = model::Knn { k: 3, rows };
    for n in 0..3 {
        let q: Vec<f64> = (0..64).map(|j| feature(n + 50, j)).collect();
        println!("{}", model.predict(&q));
    }
    // A sample of a hundred values whose least is not first.
    let xs: Vec<f64> = (0..100).map(|j| ((j * 37 + 11) % 97) as f64 * 0.5).collect();
    println!("{}", model::spread(&xs));
}
"#;

/// A finding on a trait's method, whose receiver and argument have `Debug` texts longer than a
/// log keeps, and one on a free function of a long slice: each becomes a regression test, from
/// the arguments' exact forms in the log and the method's path, that fails on the defect and
/// passes on the fix. Run through the command, as a user runs it.
#[test]
fn a_trait_method_and_long_inputs_become_regression_tests_that_run() {
    // Named apart from the other tests' scratch crates, which share its target directory.
    let scratch = scratch(
        "model",
        "\"serde\"",
        "serde = { version = \"1\", features = [\"derive\"] }\n",
        MODEL,
        MODEL_MAIN,
        7,
    );
    let (dir, target, log) = (
        scratch.dir.as_path(),
        scratch.target.clone(),
        scratch.log.clone(),
    );

    let (ok, out) = cargo(dir, &target, &["run", "--quiet", "--offline"]);
    assert!(ok, "{out}");
    let logged = std::fs::read_to_string(&log).unwrap();
    let failures = |site: &str| {
        logged
            .lines()
            .filter(|l| l.contains("\"outcome\":\"fail\"") && l.contains(site))
            .count()
    };
    // The seed fixes which queries meet the defect; the log is too long to show.
    let lines = logged.lines().count();
    assert!(
        failures("<model::Knn as Model>::predict") >= 1,
        "{lines} lines"
    );
    assert_eq!(failures("\"site\":\"model::spread\""), 1, "{lines} lines");
    // What the log keeps of the inputs' Debug texts is cut short.
    assert!(logged.contains("… (truncated)"), "{lines} lines");

    let regressions = dir.join("src/invite_regressions.rs");
    let out = Command::new(env!("CARGO_BIN_EXE_invite"))
        .args(["report", "--emit-tests"])
        .arg(&regressions)
        .arg(&log)
        .env("CARGO_TARGET_DIR", &target)
        .env("CARGO_NET_OFFLINE", "true")
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("wrote 2 regression test(s), one per defect"),
        "{stderr}"
    );
    let source = std::fs::read_to_string(&regressions).unwrap();
    // The method through its trait, its receiver and query rebuilt from their exact forms.
    assert!(
        source
            .contains("let _ = <crate::Knn as crate::Model>::predict(&receiver, &invite::exact!("),
        "{source}"
    );
    assert!(
        source.contains("let mut receiver = invite::exact!(crate::Knn, \""),
        "{source}"
    );

    // On the defective code both fail, naming their relations.
    let (ok, out) = cargo(dir, &target, &["test", "--quiet", "--offline", "--lib"]);
    assert!(
        !ok,
        "the emitted tests passed on the defective code:\n{out}"
    );
    assert!(out.contains("2 failed"), "{out}");
    assert!(out.contains(".predict(q) == result`: fail"), "{out}");
    assert!(
        out.contains("spread(&invite::mr::reverse(xs)) == result`: fail"),
        "{out}"
    );

    // Fixed, both pass.
    let fixed = MODEL
        .replace(
            "const ROWS_LOOKED_AT: usize = 12;",
            "const ROWS_LOOKED_AT: usize = usize::MAX;",
        )
        .replace(
            "    hi - xs[0]\n",
            "    hi - xs.iter().copied().fold(f64::MAX, f64::min)\n",
        );
    assert_ne!(fixed, MODEL);
    std::fs::write(dir.join("src/lib.rs"), fixed).unwrap();
    let (ok, out) = cargo(dir, &target, &["test", "--quiet", "--offline", "--lib"]);
    assert!(ok, "the emitted tests fail on the fixed code:\n{out}");
    assert!(out.contains("2 passed"), "{out}");

    // `cargo test` beside the program's invite.toml, which it does not name: the tests leave
    // the program's log as it was, and say nothing of invite's.
    let before = std::fs::read_to_string(&log).unwrap();
    let (ok, out) = cargo_with(
        dir,
        &target,
        &["test", "--quiet", "--offline", "--lib"],
        None,
    );
    assert!(ok && out.contains("2 passed"), "{out}");
    assert!(!out.contains("invite: "), "{out}");
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        before,
        "the tests wrote to the log"
    );
}
