//! Property-based tests of the log reader: any bytes, any time text and any truncation are
//! read without a panic, bad lines are counted as bad, and every record round trips; and of the
//! text report: any names, inputs and details keep to any width and are printed whole.

use invite::record::{Outcome, Record, Seeds, Test};
use invite_cli::report::aggregate::{Aggregator, LineError};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

/// Failing cases are kept in `proptest-regressions/` at the package's root (the working directory
/// of `cargo test`), to be committed: a failure once found is tried first on every later run.
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/report_properties.txt",
        ))),
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn the_record_parser_never_panics_on_any_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        if let Ok(text) = std::str::from_utf8(&bytes) {
            let _ = Record::from_line(text);
        }
        let mut agg = Aggregator::new(3);
        let _ = agg.add_line(&bytes);
    }

    #[test]
    fn records_with_any_time_text_are_read_and_rendered(time in "\\PC{0,40}") {
        let mut r = record(Outcome::Fail, "d");
        if let Record::Test(t) = &mut r {
            t.time = time;
        }
        let mut agg = Aggregator::new(3);
        prop_assert!(agg.add_line(r.to_line().as_bytes()).is_ok());
        let summary = agg.finish();
        let _ = invite_cli::report::text::render(&summary, invite_cli::report::text::Paint(false), 40);
        let _ = invite_cli::report::html::render(&summary);
    }

    #[test]
    fn truncated_records_are_bad_lines_not_records(cut in 1usize..400, detail in "\\PC{0,60}") {
        let line = record(Outcome::Fail, &detail).to_line();
        let cut = cut.min(line.len() - 1);
        let mut agg = Aggregator::new(3);
        let result = agg.add_line(&line.as_bytes()[..cut]);
        prop_assert!(matches!(result, Err(LineError::Bad(_))), "{result:?}");
        prop_assert_eq!(agg.input.records, 0);
    }

    #[test]
    fn any_test_record_round_trips(
        outcome in proptest::sample::select(Outcome::ALL.to_vec()),
        detail in "\\PC{0,80}",
        duration in any::<u64>(),
    ) {
        let mut r = record(outcome, &detail);
        if let Record::Test(t) = &mut r {
            t.duration_us = duration;
        }
        let line = r.to_line();
        prop_assert!(!line.contains('\n'));
        prop_assert_eq!(Record::from_line(&line).unwrap(), r);
        let mut agg = Aggregator::new(3);
        prop_assert!(agg.add_line(line.as_bytes()).is_ok());
    }

    #[test]
    fn the_text_report_keeps_to_any_width_and_cuts_nothing(
        width in 40usize..160,
        site in "[a-z_:]{1,80}",
        relation in "[ -~]{1,160}",
        input in "[ -~]{0,400}",
        detail in "\\PC{0,200}",
    ) {
        let mut r = record(Outcome::Fail, &detail);
        if let Record::Test(t) = &mut r {
            t.site = site.clone();
            t.test = relation.clone();
            t.inputs = [("x".to_string(), input.clone())].into();
        }
        let mut agg = Aggregator::new(3);
        prop_assert!(agg.add_line(r.to_line().as_bytes()).is_ok());
        let report = invite_cli::report::text::render(
            &agg.finish(),
            invite_cli::report::text::Paint(false),
            width,
        );
        for line in report.lines() {
            prop_assert!(line.chars().count() <= width, "{} > {width}: {line}\n{report}", line.chars().count());
        }
        // Wrapped, but whole: without whitespace, each logged text is in the report.
        let squeezed = |s: &str| s.split_whitespace().collect::<String>();
        let all = squeezed(&report);
        for text in [&site, &relation, &input, &detail] {
            prop_assert!(all.contains(&squeezed(text)), "{text:?} cut in\n{report}");
        }
    }
}

fn record(outcome: Outcome, detail: &str) -> Record {
    Record::Test(Test {
        v: 1,
        time: "2026-11-22T00:00:00.000000Z".into(),
        host: "h".into(),
        pid: 1,
        instance: String::new(),
        service: String::new(),
        version: String::new(),
        site: "a::b".into(),
        test: "b(x) == result".into(),
        run: 1,
        outcome,
        parent_us: 1,
        duration_us: 2,
        inputs: [("x".to_string(), detail.to_string())].into(),
        exact: Default::default(),
        detail: Some(detail.to_string()),
        seeds: Seeds::default(),
    })
}
