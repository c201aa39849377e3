//! Invite's own messages reach the program's `tracing` subscriber or `log` logger when it has
//! one (and stderr otherwise); with `tracing = true` every test record becomes an event; a storm
//! of one kind of message is held back, and its size is said at exit.

use std::fmt::Write as _;
use std::time::Duration;

use crate::support::scenario;

#[invite::metamorphic(halve(x * 2) == x)]
fn halve(x: i64) -> i64 {
    x / 2
}

#[invite::metamorphic(off_by_one(x) == x)]
fn off_by_one(x: i64) -> i64 {
    x + 1
}

const CONFIG: &str = "default_rho = 1.0\nmax_concurrent = 4\nmax_overhead = 1.0\n\
                      child_cpu_charge = 0.0\non_failure = \"notify\"\n\
                      [functions.\"scenarios::telemetry::halv\"]\nrho = 1.0\n";

/// A subscriber that prints every event to stdout as `EVENT <level> <target> <fields>`, and
/// an event's `invite.record` field on a line of its own, as `RECORD <json>`.
struct Printer;

struct Fields(String, Option<String>);

impl tracing::field::Visit for Fields {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        if field.name() == "invite.record" {
            self.1 = Some(format!("{value:?}"));
        } else {
            let _ = write!(self.0, " {}={:?}", field.name(), value);
        }
    }
}

impl tracing::Subscriber for Printer {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        let mut fields = Fields(String::new(), None);
        event.record(&mut fields);
        let m = event.metadata();
        println!("EVENT {} {}{}", m.level(), m.target(), fields.0);
        if let Some(record) = fields.1 {
            println!("RECORD {record}");
        }
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

/// A logger that prints every record to stdout as `LOG <level> <target> <message>`.
struct LogPrinter;

impl log::Log for LogPrinter {
    fn enabled(&self, _: &log::Metadata<'_>) -> bool {
        true
    }
    fn log(&self, r: &log::Record<'_>) {
        println!("LOG {} {} {}", r.level(), r.target(), r.args());
    }
    fn flush(&self) {}
}

fn calls() {
    for i in 0..3 {
        off_by_one(i);
        halve(i);
        assert!(invite::wait_idle(Duration::from_secs(20)));
    }
}

fn invite_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.starts_with("invite:"))
        .collect()
}

#[test]
fn a_tracing_subscriber_gets_the_messages_and_every_record() {
    let config = format!("tracing = true\n{CONFIG}");
    let run = scenario(here!(), &config, || {
        tracing::subscriber::set_global_default(Printer).unwrap();
        // With both facades set, tracing is tried first.
        log::set_logger(&LogPrinter).unwrap();
        log::set_max_level(log::LevelFilter::Info);
        calls();
    });
    run.assert_success();
    assert!(invite_lines(&run.stderr).is_empty(), "{}", run.describe());
    assert!(
        !run.stdout.contains("LOG "),
        "the logger got messages: {}",
        run.stdout
    );
    let events: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("EVENT"))
        .collect();
    // The entry that matches no site, with its suggestion, as a warning.
    assert!(
        events.iter().any(|e| e.starts_with("EVENT WARN invite ")
            && e.contains("names no instrumented function")
            && e.contains("did you mean \"scenarios::telemetry::halve\"")),
        "{events:#?}"
    );
    // Each failure in notify mode, as an error.
    let notified = events
        .iter()
        .filter(|e| {
            e.starts_with("EVENT ERROR invite ")
                && e.contains("fail in scenarios::telemetry::off_by_one")
        })
        .count();
    assert_eq!(notified, 3, "{events:#?}");
    // Every record, with its fields: failures at ERROR with their fingerprint, passes at DEBUG.
    let records = |level: &str, outcome: &str, site: &str| {
        events
            .iter()
            .filter(|e| {
                e.starts_with(&format!("EVENT {level} invite::record "))
                    && e.contains(&format!("outcome={outcome}"))
                    && e.contains(&format!("site={site}"))
                    && e.contains("instance=")
            })
            .count()
    };
    let failed = run.tests().into_iter().find(|t| t.outcome.is_failure());
    let failed = failed.expect("the off-by-one relation failed");
    let fingerprint = invite::record::fingerprint(&failed.site, &failed.test, failed.outcome);
    assert_eq!(
        events
            .iter()
            .filter(|e| e.contains(&format!(" fingerprint={fingerprint}")))
            .count(),
        3,
        "{fingerprint}: {events:#?}"
    );
    // The record each event carries is the logged one, exactly.
    let mut carried: Vec<invite::record::Record> = run
        .stdout
        .lines()
        .filter_map(|l| l.strip_prefix("RECORD "))
        .map(|j| invite::record::Record::from_line(j).expect("the carried record parses"))
        .collect();
    let mut logged: Vec<invite::record::Record> = run
        .records()
        .into_iter()
        .filter(|r| matches!(r, invite::record::Record::Test(_)))
        .collect();
    let key = |r: &invite::record::Record| r.to_line();
    carried.sort_by_key(key);
    logged.sort_by_key(key);
    assert_eq!(carried, logged);
    assert_eq!(
        records("ERROR", "fail", "scenarios::telemetry::off_by_one"),
        3,
        "{events:#?}"
    );
    assert_eq!(
        records("DEBUG", "pass", "scenarios::telemetry::halve"),
        3,
        "{events:#?}"
    );
    assert_eq!(
        events
            .iter()
            .filter(|e| e.contains("invite::record"))
            .count(),
        run.tests().len(),
        "every logged record and nothing else is an event"
    );
}

#[test]
fn without_tracing_true_records_stay_out_of_the_subscriber() {
    let run = scenario(here!(), CONFIG, || {
        tracing::subscriber::set_global_default(Printer).unwrap();
        calls();
    });
    run.assert_success();
    assert_eq!(run.tests().len(), 6, "{}", run.describe());
    assert!(!run.stdout.contains("invite::record"), "{}", run.stdout);
    assert!(run.stdout.contains("EVENT ERROR invite "), "{}", run.stdout);
}

#[test]
fn a_logger_left_at_off_gets_nothing_and_the_messages_go_to_stderr() {
    let run = scenario(here!(), CONFIG, || {
        // A logger is set, but its level stays `Off`, as `log` starts.
        log::set_logger(&LogPrinter).unwrap();
        calls();
    });
    run.assert_success();
    assert!(!run.stdout.contains("LOG "), "{}", run.describe());
    let lines = invite_lines(&run.stderr);
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.contains("fail in scenarios::telemetry::off_by_one"))
            .count(),
        3,
        "{lines:#?}"
    );
}

#[test]
fn a_logger_gets_the_messages_when_no_subscriber_is_set() {
    let run = scenario(here!(), CONFIG, || {
        log::set_logger(&LogPrinter).unwrap();
        log::set_max_level(log::LevelFilter::Info);
        calls();
    });
    run.assert_success();
    assert!(invite_lines(&run.stderr).is_empty(), "{}", run.describe());
    let lines: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("LOG"))
        .collect();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("LOG WARN invite ")
                && l.contains("names no instrumented function")),
        "{lines:#?}"
    );
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.starts_with("LOG ERROR invite fail in scenarios::telemetry::off_by_one"))
            .count(),
        3,
        "{lines:#?}"
    );
}

#[test]
fn a_storm_of_failures_is_held_back_and_its_size_said_at_exit() {
    const CALLS: usize = 40;
    let run = scenario(here!(), CONFIG, || {
        for i in 0..CALLS as i64 {
            off_by_one(i);
            assert!(invite::wait_idle(Duration::from_secs(20)));
        }
    });
    run.assert_success();
    let failures = run.outcomes_of("off_by_one(x) == x").len();
    assert_eq!(failures, CALLS, "{}", run.describe());
    let lines = invite_lines(&run.stderr);
    let shown: Vec<&&str> = lines.iter().filter(|l| l.contains("fail in ")).collect();
    assert!(
        shown.len() >= 10 && shown.len() < CALLS,
        "a burst of 10 passes, and not every message: {lines:#?}"
    );
    // What was held back is counted: in the next message that passed, or at exit.
    let number_before = |l: &str, marker: &str| -> usize {
        l.split(marker)
            .next()
            .unwrap()
            .rsplit(['(', ' '])
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    let held_in_passing: usize = shown
        .iter()
        .filter(|l| l.contains("held back in the meantime"))
        .map(|l| number_before(l, " similar message(s)"))
        .sum();
    let at_exit: Vec<&&str> = lines
        .iter()
        .filter(|l| l.contains("more `failure` message(s) were held back"))
        .collect();
    assert_eq!(at_exit.len(), 1, "{lines:#?}");
    let held_at_exit = number_before(at_exit[0], " more `failure`");
    assert_eq!(
        shown.len() + held_in_passing + held_at_exit,
        CALLS,
        "{lines:#?}"
    );
}
