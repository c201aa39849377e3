//! The shapes suite, end to end: the workload runs in a process of its own under
//! `default_rho = 1.0`, and its log must show every shape tested and passing; with defects
//! planted, exactly the defective shapes fail. Built without the `enabled` feature, the same
//! crate must compile (relations type-checked), register no site and compute the same results.

// Without the feature only the last test runs; the helpers of the others stay.
#![cfg_attr(not(feature = "enabled"), allow(dead_code))]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use invite::record::{Outcome, Record};

/// The shape whose future waits on a runtime timer: its tests end as errors that say why.
const STALLS: &str = "invite_shapes::asyncs::delayed";

/// Every call tested, and waited for rather than skipped when the caps are full.
const EVERY_CALL: &str = "default_rho = 1.0
max_concurrent = 8
max_overhead = 1.0
child_cpu_charge = 0.0
when_busy = \"wait\"
timeout_ms = 30000
drain_ms = 30000
log = \"log.jsonl\"
";

/// What one run of the workload printed and logged.
struct Workload {
    /// Each `result NAME = VALUE` line, by name.
    results: BTreeMap<String, String>,
    /// The sites the program has, as it printed.
    sites: usize,
    /// What it said on stderr (invite's own messages).
    stderr: String,
    records: Vec<Record>,
}

impl Workload {
    /// Every site's name, from the start record and the records of sites named later.
    fn site_names(&self) -> BTreeSet<String> {
        let mut names = BTreeSet::new();
        for r in &self.records {
            match r {
                Record::Start(s) => names.extend(s.sites.iter().map(|s| s.name.clone())),
                Record::Site(s) => {
                    names.insert(s.info.name.clone());
                }
                _ => {}
            }
        }
        names
    }

    /// Each site's outcomes.
    fn outcomes(&self) -> BTreeMap<String, BTreeSet<Outcome>> {
        let mut by_site: BTreeMap<String, BTreeSet<Outcome>> = BTreeMap::new();
        for r in &self.records {
            if let Record::Test(t) = r {
                by_site.entry(t.site.clone()).or_default().insert(t.outcome);
            }
        }
        by_site
    }
}

/// Runs the workload in a fresh directory with `config` (none: no `invite.toml`), the defects
/// of `planted` and `env`.
fn run(config: Option<&str>, planted: &[&str], env: &[(&str, &str)]) -> Workload {
    let dir = tempfile::tempdir().expect("a scratch directory");
    if let Some(config) = config {
        std::fs::write(dir.path().join("invite.toml"), config).expect("the config");
    }
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_invite-shapes"));
    cmd.current_dir(dir.path())
        .env_remove("INVITE")
        .env_remove("INVITE_CONFIG")
        .env(invite_shapes::DEFECTS, planted.join("\n"));
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("the workload runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "the workload failed: {}\n{stdout}\n{stderr}",
        out.status
    );
    assert!(
        stdout.contains("idle true"),
        "its tests did not all end\n{stdout}\n{stderr}"
    );
    let mut results = BTreeMap::new();
    let mut sites = None;
    for line in stdout.lines() {
        if let Some(rest) = line.strip_prefix("result ") {
            let (name, value) = rest.split_once(" = ").expect("`result NAME = VALUE`");
            results.insert(name.to_string(), value.to_string());
        } else if let Some(n) = line.strip_prefix("sites ") {
            sites = n.parse().ok();
        }
    }
    Workload {
        results,
        sites: sites.expect("the workload prints its sites"),
        stderr,
        records: read_log(&dir.path().join("log.jsonl")),
    }
}

fn read_log(path: &Path) -> Vec<Record> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    text.lines()
        .map(|l| Record::from_line(l).unwrap_or_else(|e| panic!("bad log line {l:?}: {e}")))
        .collect()
}

/// The sites a clean run tested, less the one that stalls.
fn testable(clean: &Workload) -> Vec<String> {
    clean
        .site_names()
        .into_iter()
        .filter(|s| s != STALLS)
        .collect()
}

#[cfg(feature = "enabled")]
#[test]
fn every_shape_is_tested_and_passes() {
    let clean = run(Some(EVERY_CALL), &[], &[]);
    let names = clean.site_names();
    assert_eq!(
        names.len(),
        clean.sites,
        "every site is in the log: {names:#?}"
    );
    assert!(names.len() >= 45, "only {} shapes: {names:#?}", names.len());
    let outcomes = clean.outcomes();
    for name in testable(&clean) {
        assert_eq!(
            outcomes.get(&name),
            Some(&BTreeSet::from([Outcome::Pass])),
            "{name}"
        );
    }
    // Sites of every kind of place, named as the README says.
    for name in [
        "invite_shapes::free::sum",
        "invite_shapes::free::inner_spread",
        "invite_shapes::methods::Acc::pinned_push",
        "<invite_shapes::traits::Mean as Scorer>::score",
        "<invite_shapes::traits::V2 as Add>::add",
        "<invite_shapes::traits::Data as Spread>::spread",
        "<invite_shapes::traits::Vec<f64> as Spread>::spread",
        "invite_shapes::traits::Summary::total",
        "<invite_shapes::families::Range<f64> as Width>::width",
        "<invite_shapes::families::Range<i32> as Width>::width",
        "invite_shapes::families::Floats::sum",
        "invite_shapes::families::total_f32",
        "<invite_shapes::asyncs::Flat as Pricer>::quote",
        "invite_shapes::asyncs::Account::deposit",
    ] {
        assert!(names.contains(name), "no site {name}: {names:#?}");
    }
    // Discovery observes a trait impl method too.
    assert!(
        clean
            .records
            .iter()
            .any(|r| matches!(r, Record::Observation(o)
            if o.site == "<invite_shapes::traits::Mean as Scorer>::score")),
        "no observation of the discovered trait method"
    );
    // Each site named at its first call is announced once, before its tests; no other is.
    let started: BTreeSet<String> = clean
        .records
        .iter()
        .filter_map(|r| match r {
            Record::Start(s) => Some(s.sites.iter().map(|s| s.name.clone())),
            _ => None,
        })
        .flatten()
        .collect();
    let mut announced = Vec::new();
    for r in &clean.records {
        match r {
            Record::Site(s) => announced.push(s.info.name.clone()),
            Record::Test(t) if !started.contains(&t.site) => assert!(
                announced.contains(&t.site),
                "{} tested before it was announced",
                t.site
            ),
            _ => {}
        }
    }
    let once: BTreeSet<String> = announced.iter().cloned().collect();
    assert_eq!(
        once.len(),
        announced.len(),
        "announced twice: {announced:?}"
    );
    assert!(once.is_disjoint(&started), "{once:?}");
    assert!(
        once.contains("invite_shapes::families::Floats::sum"),
        "{once:?}"
    );
    // A future that waits on the runtime's timer ends its test as an error that says so.
    let stalled: Vec<_> = clean
        .records
        .iter()
        .filter_map(|r| match r {
            Record::Test(t) if t.site == STALLS => Some(t),
            _ => None,
        })
        .collect();
    assert!(!stalled.is_empty(), "{STALLS} was not tested");
    for t in stalled {
        assert_eq!(t.outcome, Outcome::Error, "{t:?}");
        let detail = t.detail.as_deref().unwrap_or_default();
        // Either invite's executor says so, or, when one of the program's workers was parked
        // in tokio's I/O driver at the fork, tokio itself does: registering the timer then
        // wakes a driver whose descriptor the sandbox took away, and tokio panics.
        assert!(
            detail.contains("only an async runtime completes")
                || detail.contains("failed to wake I/O driver"),
            "{detail}"
        );
    }
}

#[cfg(feature = "enabled")]
#[test]
fn each_planted_defect_fails_its_own_shape_and_no_other() {
    let clean = run(Some(EVERY_CALL), &[], &[]);
    let sites = testable(&clean);
    // Two runs, each with half of the shapes defective, so that every defect is planted once
    // beside shapes that are not.
    for half in [0, 1] {
        let planted: Vec<&str> = sites
            .iter()
            .enumerate()
            .filter(|(i, _)| i % 2 == half)
            .map(|(_, s)| s.as_str())
            .collect();
        let run = run(Some(EVERY_CALL), &planted, &[]);
        let outcomes = run.outcomes();
        for site in &sites {
            let got = outcomes.get(site).cloned().unwrap_or_default();
            if planted.contains(&site.as_str()) {
                assert!(got.contains(&Outcome::Fail), "{site}: planted, got {got:?}");
            } else {
                assert_eq!(got, BTreeSet::from([Outcome::Pass]), "{site}: not planted");
            }
        }
    }
}

#[cfg(feature = "enabled")]
#[test]
fn a_site_named_at_its_first_call_takes_its_functions_entry() {
    let off = "<invite_shapes::families::Range<f64> as Width>::width";
    let config = format!("{EVERY_CALL}[functions.\"{off}\"]\nenabled = false\n");
    let run = run(Some(&config), &[], &[]);
    let outcomes = run.outcomes();
    assert_eq!(outcomes.get(off), None, "{off} is off, yet tested");
    assert_eq!(
        outcomes.get("<invite_shapes::families::Range<i32> as Width>::width"),
        Some(&BTreeSet::from([Outcome::Pass]))
    );
    assert!(
        !run.stderr.contains("names no instrumented function"),
        "the entry was taken for a typo:\n{}",
        run.stderr
    );
    // An entry that no site, named or not, could take is still reported.
    let typo = format!("{EVERY_CALL}[functions.\"<invite_shapes::families::Range<f64> as Wide>::width\"]\nrho = 0.5\n");
    let run = self::run(Some(&typo), &[], &[]);
    assert!(
        run.stderr.contains("names no instrumented function"),
        "{}",
        run.stderr
    );
}

#[test]
fn instrumentation_changes_no_result() {
    let off = run(Some(EVERY_CALL), &[], &[("INVITE", "off")]);
    assert!(off.records.is_empty(), "invite was off, yet it logged");
    assert!(off.results.len() >= 50, "{:?}", off.results);
    // An async call is ready at its first poll: instrumentation adds no poll.
    assert_eq!(off.results["ready at the first poll"], "1.0");
    if cfg!(feature = "enabled") {
        let tested = run(Some(EVERY_CALL), &[], &[]);
        assert_eq!(tested.results, off.results);
    } else {
        // Without the feature the attributes emit the plain functions: nothing to sample.
        assert_eq!(off.sites, 0);
        let unconfigured = run(Some(EVERY_CALL), &[], &[]);
        assert!(unconfigured.records.is_empty());
        assert_eq!(unconfigured.results, off.results);
    }
}

#[cfg(feature = "enabled")]
#[test]
fn every_shape_sent_to_the_worker_by_invite_toml_passes_or_forks_and_says_why() {
    let clean = run(Some(EVERY_CALL), &[], &[]);
    let mut config = EVERY_CALL.to_owned();
    for name in clean.site_names() {
        config.push_str(&format!("[functions.\"{name}\"]\nisolation = \"worker\"\n"));
    }
    let sent = run(Some(&config), &[], &[]);
    assert_eq!(sent.results, clean.results, "the worker changed a result");
    let outcomes = sent.outcomes();
    for name in testable(&clean) {
        assert_eq!(
            outcomes.get(&name),
            Some(&BTreeSet::from([Outcome::Pass])),
            "{name}\n{}",
            sent.stderr
        );
    }
    // The sites that stay with forks are named once, with why; the others are not named.
    let refused: Vec<&str> = sent
        .stderr
        .lines()
        .filter(|l| l.contains("the worker cannot test"))
        .collect();
    assert_eq!(refused.len(), 1, "{}", sent.stderr);
    let untravelled = |name: &str| {
        sent.stderr
            .lines()
            .filter(|l| l.contains(&format!("for {name}, but")) && l.contains("cannot travel"))
            .count()
    };
    for (name, why) in [
        ("invite_shapes::methods::Acc::pinned_push", "it is a method"),
        (
            "<invite_shapes::asyncs::Flat as Pricer>::quote",
            "it is a method",
        ),
        ("invite_shapes::asyncs::price", "it is an `async fn`"),
    ] {
        assert!(
            refused[0].contains(&format!("{name} ({why}")),
            "{name}: {why}\n{}",
            refused[0]
        );
    }
    assert_eq!(
        untravelled("invite_shapes::free::weighted"),
        1,
        "{}",
        sent.stderr
    );
    for name in [
        "invite_shapes::free::sum",
        "invite_shapes::free::dot",
        "invite_shapes::families::total_f32",
    ] {
        assert!(!refused[0].contains(name), "{name}: {}", refused[0]);
        assert_eq!(untravelled(name), 0, "{name}\n{}", sent.stderr);
    }
}
