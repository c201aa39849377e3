//! The portable layer, forced on Linux: `RUSTFLAGS="--cfg invite_portable" cargo test --test
//! portable` (CI runs it with a target directory of its own). In that build neither libc nor
//! the sandbox is linked, as on a developer's macOS or Windows machine: the attributes still
//! compile, the runtime stays off, and `invite::check` runs relations in process.
//!
//! Without the cfg this suite is empty: on Linux every check forks, and the other suites test
//! that.
#![cfg(invite_portable)]

use std::process::Command;

use invite::mr::{add, multiply};
use invite::record::Outcome;

#[invite::metamorphic(
    mean(&multiply(xs, 2.0)) == result * 2.0,
    mean(&add(xs, 1.5)) == result + 1.5,
)]
fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len().max(1) as f64
}

/// A planted defect: the last element is left out of the sum (but not of the count).
#[invite::metamorphic(
    faulty_mean(&multiply(xs, 2.0)) == result * 2.0,
    faulty_mean(&add(xs, 1.5)) == result + 1.5,
)]
fn faulty_mean(xs: &[f64]) -> f64 {
    xs[..xs.len().saturating_sub(1)].iter().sum::<f64>() / xs.len().max(1) as f64
}

/// Panics on 8, which a follow-up of 7 reaches.
#[invite::metamorphic(fragile(x + 1) == result + 1)]
fn fragile(x: u64) -> u64 {
    assert!(x != 8, "eight is not allowed");
    x
}

#[derive(Clone, Debug, Default)]
struct Counter {
    hits: u64,
}

impl Counter {
    #[invite::in_vivo(test = Self::bump_adds)]
    fn bump(&mut self, by: u64) {
        self.hits += by;
    }

    fn bump_adds(&mut self, by: &u64) -> bool {
        let before = self.hits;
        self.bump(*by);
        self.hits == before + by
    }

    #[invite::in_vivo(test = Self::consumed_is_counted)]
    fn consume(self) -> u64 {
        self.hits
    }

    fn consumed_is_counted(self) -> bool {
        self.consume() < u64::MAX
    }
}

#[test]
fn a_check_runs_every_relation_in_process_and_finds_the_defect() {
    let checked = invite::check(|| {
        mean(&[1.0, 2.0, 4.0]);
        mean(&[-3.5]);
    });
    checked.assert_passed();
    assert_eq!(checked.tests.len(), 4, "{checked:?}");
    assert!(checked.tests.iter().all(|t| t.outcome == Outcome::Pass));
    assert_eq!(checked.tests[0].inputs["xs"], "[1.0, 2.0, 4.0]");

    let checked = invite::check(|| {
        faulty_mean(&[1.0, 2.0, 4.0]);
    });
    assert!(!checked.passed());
    let failed: Vec<&str> = checked.problems().map(|t| t.test.as_str()).collect();
    assert_eq!(
        failed,
        ["faulty_mean(&add(xs, 1.5)) == result + 1.5"],
        "{checked:?}"
    );
    let detail = checked.problems().next().and_then(|t| t.detail.clone());
    assert!(detail.is_some_and(|d| d.contains("left")), "{checked:?}");
}

#[test]
fn a_relation_that_panics_is_an_error_that_quotes_the_panic() {
    let checked = invite::check(|| {
        fragile(7);
    });
    let t = &checked.tests[0];
    assert_eq!(t.outcome, Outcome::Error, "{checked:?}");
    let detail = t.detail.as_deref().unwrap_or_default();
    assert!(
        detail.contains("panicked") && detail.contains("eight is not allowed"),
        "{detail}"
    );
    assert!(invite::check(|| {
        fragile(3);
    })
    .passed());
}

#[test]
fn a_follow_up_call_runs_the_body_alone_and_the_call_still_returns_its_own_result() {
    // Each relation calls `mean` again: were those calls tested in turn, the check would
    // never end, or hold more than the two records of the one call.
    let mut got = 0.0;
    let checked = invite::check(|| got = mean(&[2.0, 6.0]));
    assert_eq!(got, 4.0);
    assert_eq!(checked.tests.len(), 2, "{checked:?}");
    // After the check, calls are not tested.
    let outside = invite::check(|| {});
    assert!(outside.tests.is_empty());
}

#[test]
fn an_in_vivo_test_is_not_run_in_process_and_its_record_says_why() {
    let mut counter = Counter { hits: 3 };
    let checked = invite::check(|| counter.bump(2));
    assert_eq!(
        counter.hits, 5,
        "the call ran once, and its test never touched the receiver"
    );
    let consumed = invite::check(|| {
        Counter { hits: 1 }.consume();
    });
    for t in checked.tests.iter().chain(&consumed.tests) {
        assert_eq!(t.outcome, Outcome::Skipped, "{t:?}");
        assert!(
            t.detail
                .as_deref()
                .is_some_and(|d| d.contains("Linux only")),
            "{t:?}"
        );
    }
    assert_eq!((checked.tests.len(), consumed.tests.len()), (1, 1));
}

/// What a fresh process of this test binary prints and says under `config` (the body of
/// `the_program_under_a_configuration`, which only runs when asked to), and whether it wrote
/// the log the configuration names.
fn run_under(config: &str) -> (String, String, bool) {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("invite-log.jsonl");
    let file = dir.path().join("invite.toml");
    std::fs::write(&file, format!("log = \"{}\"\n{config}", log.display())).unwrap();
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "the_program_under_a_configuration",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("INVITE_PORTABLE_CHILD", "1")
        .env("INVITE_CONFIG", &file)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stdout}\n{stderr}");
    (stdout, stderr, log.exists())
}

#[test]
fn the_program_under_a_configuration() {
    if std::env::var_os("INVITE_PORTABLE_CHILD").is_none() {
        return;
    }
    assert!(!invite::init(), "the runtime stays off");
    let mut sum = 0.0;
    for i in 0..2000 {
        sum += faulty_mean(&[f64::from(i), 1.0]);
    }
    assert!(invite::wait_idle(std::time::Duration::from_secs(1)));
    invite::shutdown();
    println!("sum {sum}");
    let checked = invite::check(|| {
        mean(&[1.0]);
        mean(&[2.0]);
    });
    let runs: Vec<u64> = checked.tests.iter().map(|t| t.run).collect();
    println!("runs {runs:?}");
    use rand::Rng;
    println!("draw {}", invite::rng().random::<u64>());
}

fn said_not_sampled(stderr: &str) -> usize {
    stderr
        .lines()
        .filter(|l| l.contains("asks for sampling"))
        .count()
}

/// With an `invite.toml` that asks for sampling: one message says nothing is sampled here, no
/// log is written, and the program computes what it computes.
#[test]
fn a_configuration_that_asks_for_sampling_gets_one_message_and_no_run() {
    let (stdout, stderr, logged) = run_under("default_rho = 1.0\n");
    let expected: f64 = (0..2000).map(|i| f64::from(i) / 2.0).sum();
    assert!(stdout.contains(&format!("sum {expected}")), "{stdout}");
    assert_eq!(said_not_sampled(&stderr), 1, "{stderr}");
    let said = stderr
        .lines()
        .find(|l| l.contains("asks for sampling"))
        .unwrap();
    assert!(said.contains("only on Linux") && said.contains("enabled = false"));
    assert!(!logged, "no log is written where nothing runs");
    // A check's runs are numbered from 1, one a call, as on Linux.
    assert!(stdout.contains("runs [1, 1, 2, 2]"), "{stdout}");
}

#[test]
fn only_a_configuration_that_would_sample_is_told_it_will_not() {
    let entry = |body: &str| format!("[functions.\"portable::faulty_mean\"]\n{body}\n");
    for (config, says) in [
        ("default_rho = 0.0\n".to_string(), false),
        ("default_rho = 0.5\nenabled = false\n".to_string(), false),
        (entry("rho = 0.25"), true),
        (entry("rho = 0.0"), false),
        (entry("target_tests_per_min = 60"), true),
        (entry("rho = 0.25\nenabled = false"), false),
    ] {
        let (_, stderr, _) = run_under(&config);
        assert_eq!(
            said_not_sampled(&stderr),
            usize::from(says),
            "{config}\n{stderr}"
        );
    }
}

#[test]
fn the_configured_seed_seeds_the_streams() {
    let draw = |seed: u64| {
        let (stdout, _, _) = run_under(&format!("seed = {seed}\n"));
        stdout
            .lines()
            .find_map(|l| l.strip_prefix("draw "))
            .unwrap()
            .to_string()
    };
    assert_eq!(draw(42), draw(42), "the same seed, the same stream");
    assert_ne!(draw(42), draw(43));
}

#[test]
fn a_configuration_made_in_code_is_checked_as_on_linux() {
    let bad = invite::config::Config {
        default_rho: 2.0,
        ..Default::default()
    };
    let e = invite::init_with(bad).unwrap_err();
    assert!(matches!(e, invite::InitError::Invalid(_)), "{e}");
    assert!(e.to_string().contains("default_rho"), "{e}");
}
