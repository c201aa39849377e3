//! The report a program prints of its own run when it exits (`report_at_exit = true`): the
//! outcomes per site and relation, and each defect (a relation of a site failing in one way)
//! with its smallest kept input printed whole, so that a first run shows its findings without
//! the `invite` command.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::outcomes::Outcomes;
use crate::record;

/// Lines are wrapped to this many columns (the report goes to stderr, whose width is unknown).
const WIDTH: usize = 100;

/// The report of `outcomes`, naming the log they were written to (empty: none).
pub(crate) fn render(outcomes: &Outcomes, log: &str) -> String {
    let mut out = String::new();
    let total = outcomes.total();
    let header = format!(
        "invite: report of this run: {} tests, {} passed, {} failed in some way (fail {}, \
         error {}, timeout {}, blocked {}), {} inconclusive, {} skipped",
        total.total(),
        total.pass,
        total.fail + total.error + total.timeout + total.blocked,
        total.fail,
        total.error,
        total.timeout,
        total.blocked,
        total.inconclusive,
        total.skipped
    );
    paragraph(&mut out, "", "  ", &header);
    for site in &outcomes.sites {
        let _ = writeln!(out, "  {}", site.site);
        for t in &site.tests {
            let c = &t.counts;
            let mut cells = vec![format!("{} pass", c.pass)];
            for (n, what) in [
                (c.fail, "fail"),
                (c.error, "error"),
                (c.timeout, "timeout"),
                (c.blocked, "blocked"),
                (c.inconclusive, "inconclusive"),
                (c.skipped, "skipped"),
            ] {
                if n > 0 {
                    cells.push(format!("{n} {what}"));
                }
            }
            for (i, line) in wrap(&t.test, WIDTH - 6).iter().enumerate() {
                let _ = writeln!(out, "    {}{line}", if i == 0 { "" } else { "  " });
            }
            let _ = writeln!(out, "      {}", cells.join(", "));
        }
    }
    let defects = defects(&outcomes.failures);
    if !defects.is_empty() {
        let line = format!(
            "{} defect(s) (a relation of a site failing in one way), each on its smallest \
             input kept:",
            defects.len()
        );
        paragraph(&mut out, "  ", "    ", &line);
    }
    for ((site, test, outcome), (kept, t)) in &defects {
        // Every failure is counted, kept or not.
        let count = outcomes
            .site(site)
            .and_then(|s| s.test(test))
            .map_or(*kept, |c| c.counts.get(t.outcome));
        let _ = writeln!(out, "  {site}: {outcome} ×{count}");
        for line in wrap(test, WIDTH - 6) {
            let _ = writeln!(out, "      {line}");
        }
        for (name, value) in &t.inputs {
            let label = match record::sequence_len(value) {
                Some(n) => format!("{name} (len {n}) = "),
                None => format!("{name} = "),
            };
            let text = format!("{label}{value}");
            for (i, line) in wrap(&text, WIDTH - 8).iter().enumerate() {
                let _ = writeln!(out, "    {}{line}", if i == 0 { "  " } else { "    " });
            }
        }
        if let Some(d) = &t.detail {
            for (i, line) in wrap(&format!("detail: {d}"), WIDTH - 8).iter().enumerate() {
                let _ = writeln!(out, "    {}{line}", if i == 0 { "  " } else { "    " });
            }
        }
        let s = &t.seeds;
        let seeds = format!(
            "seeds: rng_seed {}, stream {}, word {}, test_seed {}",
            s.rng_seed, s.rng_stream, s.rng_word_pos, s.test_seed
        );
        paragraph(&mut out, "      ", "        ", &seeds);
    }
    if outcomes.failures_not_kept > 0 {
        let _ = writeln!(
            out,
            "  {} later failures were counted but not kept; the log holds them all",
            outcomes.failures_not_kept
        );
    }
    if !log.is_empty() {
        let line = format!(
            "the log: {log}; `invite report {log}` adds costs and tuned sampling rates, and \
             `--emit-tests FILE` a regression test per defect"
        );
        paragraph(&mut out, "  ", "    ", &line);
    }
    out
}

/// `text` wrapped to the width, its first line indented by `first`, the others by `rest`.
fn paragraph(out: &mut String, first: &str, rest: &str, text: &str) {
    for (i, line) in wrap(text, WIDTH - rest.len()).iter().enumerate() {
        let _ = writeln!(out, "{}{line}", if i == 0 { first } else { rest });
    }
}

type Defects<'a> = BTreeMap<(&'a str, &'a str, String), (u64, &'a record::Test)>;

/// The failures grouped by site, relation and outcome, each with its count and the failure
/// whose inputs' text is shortest.
fn defects(failures: &[record::Test]) -> Defects<'_> {
    let size = |t: &record::Test| t.inputs.values().map(String::len).sum::<usize>();
    let mut out: Defects<'_> = BTreeMap::new();
    for t in failures {
        let key = (t.site.as_str(), t.test.as_str(), t.outcome.to_string());
        let entry = out.entry(key).or_insert((0, t));
        entry.0 += 1;
        if size(t) < size(entry.1) {
            entry.1 = t;
        }
    }
    out
}

/// `text` in lines of at most `width` characters, broken after a space or a comma where one
/// is near, else anywhere: nothing is cut off.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(10);
    let chars: Vec<char> = text.chars().collect();
    let mut lines = Vec::new();
    let mut start = 0;
    while chars.len() - start > width {
        let end = start + width;
        let brk = (start + width / 2..end)
            .rev()
            .find(|&i| chars[i] == ' ' || chars[i] == ',')
            .map_or(end, |i| i + 1);
        lines.push(
            chars[start..brk]
                .iter()
                .collect::<String>()
                .trim_end()
                .to_string(),
        );
        start = brk;
        while start < chars.len() && chars[start] == ' ' {
            start += 1;
        }
    }
    // Spaces after the last break end the text: no empty line for them.
    if start < chars.len() || lines.is_empty() {
        lines.push(chars[start..].iter().collect());
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcomes::{SiteOutcomes, TestOutcomes};
    use crate::record::{self, Outcome, OutcomeCounts, Seeds, Test, VERSION};

    fn failure(test: &str, xs: &str, outcome: Outcome) -> Test {
        Test {
            v: VERSION,
            time: String::new(),
            host: String::new(),
            pid: 1,
            instance: String::new(),
            service: String::new(),
            version: String::new(),
            site: "app::median".into(),
            test: test.into(),
            run: 1,
            outcome,
            parent_us: 0,
            duration_us: 0,
            inputs: [("xs".to_string(), xs.to_string())].into(),
            exact: Default::default(),
            detail: Some("left: 1.0, right: 2.0".into()),
            seeds: Seeds {
                rng_seed: "ab".into(),
                rng_stream: 2,
                rng_word_pos: 3,
                test_seed: 4,
            },
        }
    }

    #[test]
    fn defects_are_grouped_and_shown_on_their_smallest_input_whole() {
        let long: Vec<String> = (0..300).map(|i| format!("{i}.5")).collect();
        let long = format!("[{}]", long.join(", "));
        let negate = "median(&invite::mr::negate(xs)) == -result";
        let outcomes = Outcomes {
            sites: vec![SiteOutcomes {
                site: "app::median".into(),
                tests: vec![TestOutcomes {
                    test: negate.into(),
                    counts: OutcomeCounts {
                        pass: 7,
                        fail: 30,
                        timeout: 1,
                        ..Default::default()
                    },
                }],
            }],
            failures: vec![
                failure(negate, &long, Outcome::Fail),
                failure(negate, "[1.0, 2.0]", Outcome::Fail),
                failure(negate, "[1.0, 2.0, 3.0, 4.0]", Outcome::Fail),
                failure(negate, "[\"a, b\", \"]\"]", Outcome::Timeout),
            ],
            failures_not_kept: 27,
        };
        let text = render(&outcomes, "run.jsonl");
        assert!(
            text.starts_with(
                "invite: report of this run: 38 tests, 7 passed, 31 failed in some way (fail 30, \
                 error 0, timeout\n  1, blocked 0), 0 inconclusive, 0 skipped\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("      7 pass, 30 fail, 1 timeout\n"),
            "{text}"
        );
        assert!(text.contains("  2 defect(s)"), "{text}");
        // Counted whole, though only three were kept.
        assert!(text.contains("  app::median: fail ×30\n"), "{text}");
        assert!(
            text.contains("  27 later failures were counted but not kept"),
            "{text}"
        );
        assert!(text.contains("      xs (len 2) = [1.0, 2.0]\n"), "{text}");
        assert!(text.contains("  app::median: timeout ×1\n"), "{text}");
        assert!(text.contains("xs (len 2) = [\"a, b\", \"]\"]"), "{text}");
        assert!(text.contains("seeds: rng_seed ab, stream 2, word 3, test_seed 4"));
        assert!(text.contains("`invite report run.jsonl`"), "{text}");
        assert!(text.lines().all(|l| l.chars().count() <= WIDTH), "{text}");
        // Nothing of a long input is cut: shown once the smaller one is gone, every element.
        let only_long = Outcomes {
            failures: vec![failure(negate, &long, Outcome::Fail)],
            failures_not_kept: 0,
            ..outcomes
        };
        let text = render(&only_long, "");
        assert!(text.contains("xs (len 300) = [0.5, 1.5,"), "{text}");
        let joined: String = text.lines().map(str::trim).collect::<Vec<_>>().join(" ");
        assert!(joined.contains("298.5, 299.5]"), "{text}");
        assert_eq!(joined.matches(".5").count(), 300, "{text}");
        assert!(!text.contains("the log:"), "{text}");
        assert!(!text.contains("not kept"), "{text}");
        assert!(text.lines().all(|l| l.chars().count() <= WIDTH), "{text}");
    }

    #[test]
    fn long_relations_details_and_inputs_wrap_within_the_width() {
        let relation = format!("median(&{}xs) == -result", "invite::mr::negate(".repeat(12));
        let mut t = failure(
            &relation,
            &format!("[{}]", ["123.25"; 40].join(", ")),
            Outcome::Fail,
        );
        t.detail = Some(format!("left: {}", "9".repeat(250)));
        let outcomes = Outcomes {
            sites: vec![SiteOutcomes {
                site: "app::median".into(),
                tests: vec![TestOutcomes {
                    test: relation.clone(),
                    counts: OutcomeCounts {
                        fail: 1,
                        ..Default::default()
                    },
                }],
            }],
            failures: vec![t],
            failures_not_kept: 0,
        };
        let text = render(&outcomes, &format!("logs/{}.jsonl", "x".repeat(120)));
        assert!(text.lines().all(|l| l.chars().count() <= WIDTH), "{text}");
        let joined: String = text.lines().map(str::trim).collect();
        assert!(
            joined.contains(&"9".repeat(250)),
            "the detail, whole: {text}"
        );
        assert_eq!(joined.matches("invite::mr::negate(").count(), 24, "{text}");
    }

    #[test]
    fn a_defect_counts_its_kept_failures_when_its_test_has_no_counts_and_keeps_the_first_smallest()
    {
        let mut first = failure("f(x) == x", "[1.0]", Outcome::Fail);
        first.detail = Some("the first".into());
        let mut second = failure("f(x) == x", "[2.0]", Outcome::Fail);
        second.detail = Some("the second".into());
        let outcomes = Outcomes {
            sites: Vec::new(),
            failures: vec![first, second.clone(), second],
            failures_not_kept: 0,
        };
        let text = render(&outcomes, "");
        assert!(text.contains("  app::median: fail ×3\n"), "{text}");
        assert!(text.contains("detail: the first"), "{text}");
        assert!(!text.contains("detail: the second"), "{text}");
    }

    #[test]
    fn wrapping_breaks_near_the_width_and_loses_nothing() {
        let text = "abcdefghij ".repeat(30);
        let lines = wrap(&text, 25);
        assert!(lines.iter().all(|l| l.chars().count() <= 25), "{lines:?}");
        assert_eq!(lines.concat().replace(' ', ""), text.replace(' ', ""));
        let unbroken = "x".repeat(55);
        assert_eq!(
            wrap(&unbroken, 20),
            ["x".repeat(20), "x".repeat(20), "x".repeat(15)]
        );
        assert_eq!(wrap("short", 20), ["short"]);
        assert_eq!(wrap("", 20), [""]);
        // A text exactly as wide as the width stays one line.
        assert_eq!(wrap(&"x".repeat(20), 20), ["x".repeat(20)]);
        // Breaks only in the line's second half: a short word first does not make a short line.
        assert_eq!(
            wrap(&format!("a {}", "x".repeat(30)), 20),
            [format!("a {}", "x".repeat(18)), "x".repeat(12)]
        );
        // After a comma (kept), before the next line's word; spaces at a break are dropped,
        // trailing ones too.
        assert_eq!(wrap("aaaa,bbbb,cccc", 10), ["aaaa,bbbb,", "cccc"]);
        assert_eq!(wrap("aaaa bbbb   cccc", 10), ["aaaa bbbb", "cccc"]);
        assert_eq!(wrap("aaaa bbbb      ", 10), ["aaaa bbbb"]);
        assert_eq!(record::sequence_len("[]"), Some(0));
        assert_eq!(record::sequence_len("[(1, 2), [3]]"), Some(2));
        assert_eq!(record::sequence_len("['\\'', ',']"), Some(2));
        assert_eq!(record::sequence_len("3"), None);
        assert_eq!(record::sequence_len("[(1, 2, 3), 4]"), Some(2));
        assert_eq!(record::sequence_len("[{1, 2}, [3, 4, 5]]"), Some(2));
        assert_eq!(record::sequence_len("[\"a, b\"]"), Some(1));
        assert_eq!(record::sequence_len("[\"a\\\", b\", 'c']"), Some(2));
    }
}
