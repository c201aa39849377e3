//! A broken configuration gives one clear message and leaves the program running untouched;
//! `on_failure` logs, notifies or aborts as configured; the log reads back record by record.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::support::{self, scenario};
use invite::record::{Outcome, Record};

#[invite::metamorphic(halve(x * 2) == x)]
fn halve(x: i64) -> i64 {
    x / 2
}

#[invite::metamorphic(off_by_one(x) == x)]
fn off_by_one(x: i64) -> i64 {
    x + 1
}

fn body() {
    for i in 0..10 {
        assert_eq!(halve(i * 2), i);
    }
    println!("program ran");
}

/// Runs the program under a broken configuration and returns its stderr.
fn broken(name: &str, config: &str) -> String {
    let run = scenario(name, config, body);
    run.assert_success();
    assert_eq!(run.stdout, "program ran\n", "{}", run.describe());
    assert!(
        run.log.is_empty(),
        "a broken configuration must not start logging"
    );
    assert_eq!(run.stderr.matches("invite:").count(), 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("Invite is off for this run"),
        "{}",
        run.stderr
    );
    run.stderr.clone()
}

// The scenario's config file starts with its `log = ...` line, so the text given here starts
// on line 2.

#[test]
fn bad_toml_names_file_line_and_column() {
    let err = broken(here!(), "default_rho = = 0.5");
    assert!(err.contains("invite.toml:2:15"), "{err}");
}

#[test]
fn a_wrong_type_names_the_key() {
    let err = broken(here!(), "max_concurrent = \"two\"");
    assert!(
        err.contains("invite.toml:2:18: key `max_concurrent`"),
        "{err}"
    );
    assert!(err.contains("got a string"), "{err}");
    assert!(!err.contains("two"), "the value is not repeated: {err}");
}

#[test]
fn an_out_of_range_value_says_what_is_expected() {
    let err = broken(here!(), "[functions.\"a::b\"]\nrho = 2.0");
    assert!(
        err.contains("invite.toml:3:7: key `functions.a::b.rho`"),
        "{err}"
    );
    assert!(err.contains("from 0.0 to 1.0"), "{err}");
}

#[test]
fn an_unknown_key_is_refused() {
    let err = broken(here!(), "default_rho = 1.0\nmax_concurent = 2");
    assert!(err.contains("invite.toml:3:1"), "{err}");
    assert!(err.contains("unknown field `max_concurent`"), "{err}");
}

#[test]
fn every_bad_key_of_the_file_is_reported_in_one_message() {
    let err = broken(
        here!(),
        "default_rho = 1.5\nmax_concurent = 2\n[functions.\"a::b\"]\ntimeout_ms = -1",
    );
    for place in [
        "invite.toml:2:15: key `default_rho`",
        "invite.toml:3:1",
        "invite.toml:5:14",
    ] {
        assert!(err.contains(place), "{place} missing: {err}");
    }
    assert!(err.contains("unknown field `max_concurent`"), "{err}");
}

#[test]
fn a_missing_config_file_is_reported() {
    let run = support::scenario_with(
        here!(),
        "",
        &[("INVITE_CONFIG", "/nonexistent/invite.toml")],
        body,
    );
    run.assert_success();
    assert_eq!(run.stdout, "program ran\n");
    assert!(
        run.stderr
            .contains("/nonexistent/invite.toml: cannot read the file"),
        "{}",
        run.stderr
    );
}

#[test]
fn every_log_line_reads_back_as_a_record() {
    let run = scenario(
        here!(),
        "default_rho = 1.0\nmax_concurrent = 8\nmax_overhead = 1.0\nchild_cpu_charge = 0.0",
        || {
            for i in 0..5 {
                halve(i);
                off_by_one(i);
                assert!(invite::wait_idle(Duration::from_secs(20)));
            }
        },
    );
    run.assert_success();
    let records = run.records();
    assert!(matches!(records.first(), Some(Record::Start(_))));
    assert!(matches!(records.last(), Some(Record::Stop(_))));
    assert!(matches!(records[records.len() - 2], Record::Stats(ref s) if s.is_final));
    for (line, record) in run.log.iter().zip(&records) {
        let again = Record::from_line(&record.to_line()).unwrap();
        assert_eq!(&again, record, "{line}");
    }
    let Some(Record::Start(start)) = records.first() else {
        unreachable!()
    };
    // The record lists every site of the program: the test binary's other suites' too.
    let mut names: Vec<&str> = start
        .sites
        .iter()
        .map(|s| s.name.as_str())
        .filter(|n| n.starts_with("scenarios::config_and_failures::"))
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "scenarios::config_and_failures::busy_at_exit",
            "scenarios::config_and_failures::halve",
            "scenarios::config_and_failures::off_by_one"
        ]
    );
    assert!(start
        .sites
        .iter()
        .any(|s| s.name == "scenarios::config_and_failures::off_by_one"
            && s.tests == ["off_by_one(x) == x"]));
    assert_eq!(
        run.outcomes_of("off_by_one(x) == x"),
        vec![Outcome::Fail; 5]
    );
    assert_eq!(run.outcomes_of("halve(x * 2) == x"), vec![Outcome::Pass; 5]);
}

#[test]
fn entries_that_match_no_site_are_reported_at_start_with_a_suggestion() {
    let config = "default_rho = 0.0\n\
                  [functions.\"scenarios::config_and_failures::of_by_one\"]\nrho = 1.0\n\
                  [functions.\"somewhere::else_entirely\"]\nrho = 1.0\n\
                  [functions.\"scenarios::config_and_failures::halve\"]\nrho = 1.0\n";
    let run = scenario(here!(), config, || {
        off_by_one(1);
        halve(1);
    });
    run.assert_success();
    let lines: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("invite:"))
        .collect();
    assert_eq!(lines.len(), 2, "{}", run.stderr);
    assert!(
        lines.iter().any(|l| l.contains(
            "[functions.\"scenarios::config_and_failures::of_by_one\"] names no instrumented \
             function"
        ) && l
            .ends_with("did you mean \"scenarios::config_and_failures::off_by_one\"?")),
        "{}",
        run.stderr
    );
    assert!(
        lines.iter().any(|l| l.contains("somewhere::else_entirely")
            && l.ends_with("so its settings apply to nothing")),
        "{}",
        run.stderr
    );
    // The matching entry works: halve was tested, off_by_one was not.
    assert_eq!(run.outcomes_of("halve(x * 2) == x"), vec![Outcome::Pass]);
    assert!(run.outcomes_of("off_by_one(x) == x").is_empty());
}

static NOTIFIED: AtomicUsize = AtomicUsize::new(0);

#[test]
fn notify_prints_one_line_and_calls_the_hook() {
    let config =
        "default_rho = 1.0\nmax_concurrent = 4\nmax_overhead = 1.0\nchild_cpu_charge = 0.0\non_failure = \"notify\"";
    let run = scenario(here!(), config, || {
        invite::on_failure(|t| {
            assert_eq!(t.test, "off_by_one(x) == x");
            NOTIFIED.fetch_add(1, Ordering::SeqCst);
        });
        for i in 0..3 {
            off_by_one(i);
            halve(i);
            assert!(invite::wait_idle(Duration::from_secs(20)));
        }
        println!("{}", NOTIFIED.load(Ordering::SeqCst));
    });
    run.assert_success();
    assert_eq!(run.stdout, "3\n");
    let lines: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("invite:"))
        .collect();
    assert_eq!(lines.len(), 3, "{}", run.stderr);
    assert!(
        lines[0].contains("fail in ") && lines[0].contains("off_by_one(x) == x"),
        "{}",
        lines[0]
    );
}

#[test]
fn the_hook_runs_in_log_mode_without_a_stderr_line() {
    let config =
        "default_rho = 1.0\nmax_concurrent = 4\nmax_overhead = 1.0\nchild_cpu_charge = 0.0";
    let run = scenario(here!(), config, || {
        invite::on_failure(|t| {
            assert_eq!(t.test, "off_by_one(x) == x");
            NOTIFIED.fetch_add(1, Ordering::SeqCst);
        });
        for i in 0..2 {
            off_by_one(i);
            halve(i);
        }
        assert!(invite::wait_idle(Duration::from_secs(20)));
        println!("{}", NOTIFIED.load(Ordering::SeqCst));
    });
    run.assert_success();
    assert_eq!(run.stdout, "2\n");
    assert!(!run.stderr.contains("invite: fail"), "{}", run.stderr);
}

#[test]
fn abort_logs_the_failure_then_ends_the_program() {
    let config =
        "default_rho = 1.0\nmax_overhead = 1.0\nchild_cpu_charge = 0.0\non_failure = \"abort\"";
    let run = scenario(here!(), config, || {
        // The hook runs before the abort.
        invite::on_failure(|t| println!("hook: {}", t.test));
        off_by_one(1);
        std::thread::sleep(Duration::from_secs(30));
        println!("still running");
    });
    assert_eq!(run.signal(), Some(libc::SIGABRT), "{}", run.describe());
    assert!(!run.stdout.contains("still running"));
    assert_eq!(
        run.stdout,
        "hook: off_by_one(x) == x\n",
        "{}",
        run.describe()
    );
    assert_eq!(run.outcomes_of("off_by_one(x) == x"), vec![Outcome::Fail]);
    assert!(
        run.stderr.contains("aborting the program"),
        "{}",
        run.stderr
    );
}

#[invite::in_vivo(test = holds_its_slot)]
fn busy_at_exit(x: u64) -> u64 {
    x
}

/// Keeps the one slot through the program's exit, so that the drain waits for it.
fn holds_its_slot(_: &u64) -> bool {
    std::thread::sleep(Duration::from_millis(300));
    true
}

#[test]
fn the_final_stats_account_for_every_sampled_call_and_give_the_rate_of_tests() {
    let config =
        "default_rho = 1.0\nmax_concurrent = 1\nmax_overhead = 1.0\nchild_cpu_charge = 0.0";
    let run = scenario(here!(), config, || {
        busy_at_exit(0);
        // Another thread calls on while the one run holds the slot and the program exits.
        static CALLED: AtomicUsize = AtomicUsize::new(0);
        std::thread::spawn(|| {
            for i in 1.. {
                busy_at_exit(i);
                CALLED.fetch_add(1, Ordering::SeqCst);
                std::thread::sleep(Duration::from_micros(200));
            }
        });
        while CALLED.load(Ordering::SeqCst) < 5 {
            std::thread::sleep(Duration::from_millis(1));
        }
    });
    run.assert_success();
    let stats = run.final_stats();
    let site = stats
        .sites
        .iter()
        .find(|s| s.site == "scenarios::config_and_failures::busy_at_exit")
        .unwrap();
    // One slot, held by the first run while the other thread calls (a second run starts only
    // if the program took longer than that run to exit).
    assert!(site.runs >= 1, "{site:?}");
    assert_eq!(site.tests, site.runs, "{site:?}");
    assert!(site.skipped.concurrency > 0, "{site:?}");
    let k = &site.skipped;
    assert_eq!(
        site.sampled,
        site.runs + k.concurrency + k.overhead + k.disabled + k.fork_failed + k.dedup,
        "{site:?}"
    );
    let rate = site.tests as f64 / stats.elapsed_s;
    assert!(
        (site.tests_per_sec - rate).abs() <= 1e-6 * rate,
        "{} tests per second, against {rate}: {site:?}",
        site.tests_per_sec
    );
}

#[test]
fn report_at_exit_prints_the_run_s_outcomes_and_each_defect_on_its_smallest_input() {
    let config =
        "default_rho = 1.0\nmax_concurrent = 4\nmax_overhead = 1.0\nchild_cpu_charge = 0.0\n\
                  when_busy = \"wait\"\nreport_at_exit = true";
    let run = scenario(here!(), config, || {
        for i in [123_456_789, 7, -40] {
            off_by_one(i);
            halve(i);
        }
        println!("program ran");
    });
    run.assert_success();
    assert_eq!(run.stdout, "program ran\n", "{}", run.describe());
    let stderr = &run.stderr;
    // Written after the exit's drain: every test of the run is in it.
    assert!(
        stderr.contains("invite: report of this run: 6 tests, 3 passed, 3 failed in some way"),
        "{stderr}"
    );
    assert!(
        stderr.contains("    halve(x * 2) == x\n      3 pass\n"),
        "{stderr}"
    );
    assert!(
        stderr.contains("    off_by_one(x) == x\n      0 pass, 3 fail\n"),
        "{stderr}"
    );
    assert!(stderr.contains("1 defect(s)"), "{stderr}");
    assert!(
        stderr.contains("scenarios::config_and_failures::off_by_one: fail ×3\n"),
        "{stderr}"
    );
    // The smallest of the three inputs.
    assert!(stderr.contains("\n      x = 7\n"), "{stderr}");
    assert!(stderr.contains("\n  the log: "), "{stderr}");
}

#[test]
fn report_at_exit_is_off_by_default() {
    let config =
        "default_rho = 1.0\nmax_overhead = 1.0\nchild_cpu_charge = 0.0\nwhen_busy = \"wait\"";
    let run = scenario(here!(), config, || {
        off_by_one(7);
        assert!(invite::wait_idle(Duration::from_secs(20)));
        assert_eq!(invite::outcomes().total().fail, 1);
        println!("failed once");
    });
    run.assert_success();
    assert_eq!(run.stdout, "failed once\n", "{}", run.describe());
    assert!(
        !run.stderr.contains("report of this run"),
        "{}",
        run.describe()
    );
}
