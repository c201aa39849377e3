//! The examples find the defects the README says they find. Each is built as `cargo test`
//! builds it and run under the repository's own `invite.toml`, with two changes: the log goes
//! to a temporary directory, and the overhead cap is lifted, since a debug build is slow enough
//! for the 5% cap to refuse most runs. Workloads are shortened by the examples' own argument.
//! Every example shares that file, so none of them may be told of a `[functions]` entry that
//! names another's function.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use invite::record::{Outcome, Record, Test};

/// Builds the example `name` of `package` and returns its executable.
fn example(package: &str, name: &str) -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = Command::new(cargo)
        .args(["build", "-p", package, "--example", name, "--all-features"])
        .arg("--message-format=json-render-diagnostics")
        .current_dir(&root)
        .stderr(Stdio::inherit())
        .output()
        .expect("run cargo build");
    assert!(out.status.success(), "cargo build --example {name} failed");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == name)
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .unwrap_or_else(|| panic!("cargo named no executable for the example {name}"))
}

/// What a run of an example printed, and its log's test records.
struct Ran {
    stdout: String,
    stderr: String,
    tests: Vec<Test>,
}

impl Ran {
    fn outcomes_of(&self, test: &str) -> Vec<Outcome> {
        self.tests
            .iter()
            .filter(|t| t.test == test)
            .map(|t| t.outcome)
            .collect()
    }
}

fn run(package: &str, name: &str, args: &[&str]) -> Ran {
    run_with(package, name, args, "")
}

/// [`run`], with `extra` lines added to the configuration.
fn run_with(package: &str, name: &str, args: &[&str], extra: &str) -> Ran {
    let exe = example(package, name);
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log.jsonl");
    let shipped =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../invite.toml"))
            .unwrap();
    let mut replaced = 0;
    let config: String = shipped
        .lines()
        .map(|l| {
            if l.starts_with("log = ") {
                replaced += 1;
                format!("log = {:?}", log.display().to_string())
            } else if l.starts_with("max_overhead = ") {
                replaced += 1;
                "max_overhead = 1.0".to_string()
            } else if l.starts_with("timeout_ms = ") || l.starts_with("drain_ms = ") {
                // Tests run at nice 10 and may wait seconds for a CPU on a busy machine: the
                // examples' verdicts must not turn into timeouts.
                replaced += 1;
                format!("{} = 30000", l.split(' ').next().unwrap())
            } else {
                l.to_string()
            }
        })
        .map(|l| l + "\n")
        .collect();
    assert_eq!(
        replaced, 4,
        "invite.toml sets log, max_overhead, timeout_ms and drain_ms:\n{shipped}"
    );
    std::fs::write(dir.path().join("invite.toml"), config + extra).unwrap();
    let out = Command::new(exe)
        .args(args)
        .current_dir(dir.path())
        .env("INVITE_CONFIG", dir.path().join("invite.toml"))
        .env_remove("INVITE")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "{name} {args:?}: {}\n{stdout}\n{stderr}",
        out.status
    );
    let tests = std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| match Record::from_line(l) {
            Ok(Record::Test(t)) => Some(t),
            _ => None,
        })
        .collect();
    Ran {
        stdout,
        stderr,
        tests,
    }
}

/// The shared `invite.toml` holds no setting that concerns another example: a run is not told
/// of an entry that names no function of its own.
fn says_nothing_of_other_examples(name: &str, ran: &Ran) {
    assert!(
        !ran.stderr.contains("names no instrumented function"),
        "{name} was told of another example's settings:\n{}",
        ran.stderr
    );
}

#[test]
fn quickstart_catches_its_mean_defect_and_ends_with_the_report() {
    let ran = run("invite-mt-cli", "quickstart", &["20000"]);
    says_nothing_of_other_examples("quickstart", &ran);
    let permuted = ran.outcomes_of("mean(&permute(xs)) == result");
    assert!(permuted.contains(&Outcome::Fail), "{permuted:?}");
    // Scaling keeps which reading is dropped, and its share: it holds.
    let scaled = ran.outcomes_of("mean(&multiply(xs, 3.0)) == result * 3.0");
    assert!(
        !scaled.is_empty() && scaled.iter().all(|o| *o == Outcome::Pass),
        "{scaled:?}"
    );
    // Through the mean, two of variance's relations fail; scaling and the sign hold.
    for (relation, fails) in [
        ("variance(&permute(xs)) == result", true),
        ("variance(&add(xs, 7.5)) == result", true),
        ("variance(&multiply(xs, 2.0)) == result * 4.0", false),
        ("result >= 0.0", false),
    ] {
        let outcomes = ran.outcomes_of(relation);
        assert!(!outcomes.is_empty(), "{relation}");
        assert_eq!(
            outcomes.contains(&Outcome::Fail),
            fails,
            "{relation}: {outcomes:?}"
        );
    }
    // Each failure with its inputs and the seeds that replay it.
    for line in [
        "\nFailures\n",
        "    input   xs (len ",
        "    replay  test_seed ",
        "    seed    ",
    ] {
        assert!(ran.stdout.contains(line), "{line:?} in {}", ran.stdout);
    }
    assert!(
        ran.stdout.starts_with("Processed 20000 batches"),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout.contains("Outcomes per site and test"),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout.contains("# Paste into invite.toml:"),
        "{}",
        ran.stdout
    );
}

#[test]
fn the_cache_example_catches_its_eviction_defect() {
    let ran = run("invite-mt", "cache", &[]);
    says_nothing_of_other_examples("cache", &ran);
    assert!(
        ran.tests
            .iter()
            .any(|t| t.site == "cache::Lru::put" && t.outcome == Outcome::Fail),
        "{:?}",
        ran.tests
    );
    assert!(ran.stdout.contains("failed"), "{}", ran.stdout);
}

#[test]
fn the_random_example_catches_its_weighted_pick_through_the_replayed_stream() {
    let ran = run("invite-mt", "random", &[]);
    says_nothing_of_other_examples("random", &ran);
    let halved = ran.outcomes_of("pick_weighted(&multiply(weights, 0.5)) == result");
    assert!(halved.contains(&Outcome::Fail), "{:?}", ran.tests);
}

#[test]
fn the_sampler_fails_welch_on_reversal_and_the_fixed_sampler_passes() {
    let reversal = "statistical(test = welch) => bootstrap_mean(&reverse(xs), draws) == result";
    let ran = run("invite-mt", "sampler", &["20000"]);
    says_nothing_of_other_examples("sampler", &ran);
    let outcomes = ran.outcomes_of(reversal);
    assert!(
        !outcomes.is_empty() && outcomes.iter().all(|o| *o == Outcome::Fail),
        "{outcomes:?}"
    );
    // Scaling moves neither the defect nor the variance ratio: it passes on the defective
    // sampler too.
    let scaling = ran.outcomes_of(
        "statistical(test = variance_ratio) => bootstrap_mean(&multiply(xs, 10.0), draws) == result * 10.0",
    );
    assert!(
        !scaling.is_empty() && scaling.iter().all(|o| *o == Outcome::Pass),
        "{scaling:?}"
    );
    let fixed = run("invite-mt", "sampler", &["--fixed", "20000"]);
    assert!(!fixed.tests.is_empty());
    assert!(
        fixed.tests.iter().all(|t| t.outcome == Outcome::Pass),
        "{:?}",
        fixed.tests
    );
}

#[test]
fn the_discover_example_proposes_relations_on_its_simulation() {
    // Discovery needs 30 observations of a site, and `max_concurrent = 1` refuses more calls
    // the busier the machine: here every site's calls wait for their test, up to 60 of them.
    let wait = "when_busy = \"wait\"\ntests_per_site = 60\n";
    let ran = run_with("invite-mt-cli", "discover", &["20000"], wait);
    says_nothing_of_other_examples("discover", &ran);
    assert!(
        ran.stdout.contains("#[invite::metamorphic("),
        "nothing proposed:\n{}",
        ran.stdout
    );
    // The representative set first, saying what it left out.
    assert!(
        ran.stdout.contains("more relation(s) left out"),
        "{}",
        ran.stdout
    );
    // All speeds in the simulation are positive, so negating them gives a top speed no larger:
    // among every proposal.
    assert!(
        ran.stdout.lines().any(|l| l.contains("top_speed(&")
            && l.contains("negate(vs)")
            && l.contains("<= result")),
        "{}",
        ran.stdout
    );
}
