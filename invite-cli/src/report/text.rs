//! The text report: aligned tables that fit an 80-column terminal, colour only on a terminal.

use std::fmt::Write as _;

use super::aggregate::{Failure, SiteSummary, Summary};
use super::tuning::format_rho;
use invite::record::{Outcome, OutcomeCounts, REPLAY_INPUT};

const WIDTH: usize = 80;

/// ANSI colour, or nothing.
#[derive(Clone, Copy)]
pub struct Paint(pub bool);

impl Paint {
    fn wrap(self, code: &str, s: &str) -> String {
        if self.0 {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
    fn bold(self, s: &str) -> String {
        self.wrap("1", s)
    }
    fn red(self, s: &str) -> String {
        self.wrap("31", s)
    }
    fn green(self, s: &str) -> String {
        self.wrap("32", s)
    }
}

/// Cuts `s` to `width` characters, marking the cut with `…`, and pads it to `width`.
fn fit(s: &str, width: usize) -> String {
    let n = s.chars().count();
    if n <= width {
        format!("{s:<width$}")
    } else {
        let mut out: String = s.chars().take(width.saturating_sub(1)).collect();
        out.push('…');
        out
    }
}

/// Breaks `s` into lines of at most `width` characters at spaces (a longer word is split),
/// every line after the first indented by `indent`.
fn wrap(s: &str, width: usize, indent: &str) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in s.split(' ').filter(|w| !w.is_empty()) {
        let mut word: Vec<char> = word.chars().collect();
        while !word.is_empty() {
            let line = lines.last_mut().expect("never empty");
            let used = line.chars().count();
            let gap = usize::from(used > 0 && !line.ends_with(' '));
            if used + gap + word.len() <= width {
                if gap == 1 {
                    line.push(' ');
                }
                line.extend(&word);
                break;
            }
            // At least one character a line, so that a width narrower than the indent ends.
            let room = width.saturating_sub(used + gap).max(1).min(word.len());
            if used > indent.len() && word.len() <= width.saturating_sub(indent.len()) {
                // The word fits on a line of its own.
                lines.push(indent.to_string());
                continue;
            }
            // Longer than any line: split it.
            if gap == 1 {
                line.push(' ');
            }
            line.extend(&word[..room]);
            word.drain(..room);
            if !word.is_empty() {
                lines.push(indent.to_string());
            }
        }
    }
    lines
}

/// A count in at most six characters.
fn count(n: u64) -> String {
    match n {
        0..=99_999 => n.to_string(),
        100_000..=9_999_999 => format!("{:.0}k", n as f64 / 1e3),
        _ => format!("{:.1}M", n as f64 / 1e6),
    }
}

fn micros(us: f64) -> String {
    if us >= 1e6 {
        format!("{:.2}s", us / 1e6)
    } else if us >= 1e3 {
        format!("{:.1}ms", us / 1e3)
    } else {
        format!("{us:.0}µs")
    }
}

fn percent(x: f64) -> String {
    let p = x * 100.0;
    if p != 0.0 && p.abs() < 0.1 {
        format!("{p:.3}%")
    } else {
        format!("{p:.2}%")
    }
}

const OUTCOME_HEADS: [&str; 7] = ["pass", "fail", "error", "t/o", "incon", "block", "skip"];

fn outcome_cells(o: &OutcomeCounts, paint: Paint) -> String {
    let mut s = String::new();
    for outcome in Outcome::ALL {
        let n = o.get(outcome);
        let cell = format!("{:>6}", count(n));
        let cell = match outcome {
            Outcome::Pass if n > 0 => paint.green(&cell),
            o if o.is_failure() && n > 0 => paint.red(&cell),
            _ => cell,
        };
        s.push_str(&cell);
    }
    s
}

/// The report as text, 80 columns wide.
pub fn render(summary: &Summary, paint: Paint) -> String {
    let mut out = String::new();
    header(&mut out, summary, paint);
    outcomes(&mut out, summary, paint);
    sampling(&mut out, summary, paint);
    costs(&mut out, summary, paint);
    failures(&mut out, summary, paint);
    tuning(&mut out, summary, paint);
    out
}

fn header(out: &mut String, s: &Summary, paint: Paint) {
    let first = s
        .instances
        .iter()
        .map(|i| i.first.as_str())
        .filter(|t| !t.is_empty())
        .min();
    let last = s.instances.iter().map(|i| i.last.as_str()).max();
    let _ = writeln!(
        out,
        "{}",
        paint.bold(&format!(
            "Invite report: {} records from {} file{}, {} instance{}",
            s.input.records,
            s.input.files,
            if s.input.files == 1 { "" } else { "s" },
            s.instances.len(),
            if s.instances.len() == 1 { "" } else { "s" },
        ))
    );
    if let (Some(a), Some(b)) = (first, last) {
        let _ = writeln!(out, "From {} to {}", short_time(a), short_time(b));
    }
    let crashed = s.instances.iter().filter(|i| !i.stopped).count();
    if crashed > 0 {
        let _ = writeln!(
            out,
            "{crashed} instance(s) have no stop record (still running, killed or crashed)"
        );
    }
}

fn short_time(t: &str) -> String {
    t.get(..19)
        .map_or_else(|| t.to_string(), |s| s.replace('T', " ") + " UTC")
}

fn outcomes(out: &mut String, s: &Summary, paint: Paint) {
    let name_w = WIDTH - 6 - 6 * 7 - 1;
    let _ = writeln!(out, "\n{}", paint.bold("Outcomes per site and test"));
    let heads: String = OUTCOME_HEADS.iter().map(|h| format!("{h:>6}")).collect();
    let _ = writeln!(out, "{} {:>6}{heads}", fit("site / test", name_w), "runs");
    for site in &s.sites {
        let _ = writeln!(
            out,
            "{} {:>6}{}",
            fit(&site.site, name_w),
            count(site.runs),
            outcome_cells(&site.outcomes, paint)
        );
        for t in &site.per_test {
            let _ = writeln!(
                out,
                "  {} {:>6}{}",
                fit(&t.test, name_w - 2),
                count(t.runs),
                outcome_cells(&t.outcomes, paint)
            );
        }
    }
}

fn sampling(out: &mut String, s: &Summary, paint: Paint) {
    let _ = writeln!(out, "\n{}", paint.bold("Sampling (from stats records)"));
    let name_w = WIDTH - 8 * 7 - 1;
    let _ = writeln!(
        out,
        "{} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}",
        fit("site", name_w),
        "calls",
        "sampld",
        "runs",
        "s:conc",
        "s:ovhd",
        "s:off",
        "s:fork",
        "s:seen"
    );
    for site in &s.sites {
        let opt = |v: Option<u64>| v.map_or("-".to_string(), count);
        let _ = writeln!(
            out,
            "{} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}",
            fit(&site.site, name_w),
            opt(site.calls),
            opt(site.sampled),
            count(site.runs),
            count(site.skipped.concurrency),
            count(site.skipped.overhead),
            count(site.skipped.disabled),
            count(site.skipped.fork_failed),
            count(site.skipped.dedup),
        );
    }
    let _ = writeln!(
        out,
        "(s:… sampled calls skipped: concurrency, overhead, off, fork failed, seen)"
    );
    if s.sites.iter().all(|x| x.skipped.dedup == 0) {
        return;
    }
    for site in s.sites.iter().filter(|x| x.skipped.dedup > 0) {
        let note = format!(
            "{}: unseen-state testing saved {} runs",
            site.site,
            count(site.skipped.dedup)
        );
        for line in wrap(&note, WIDTH, "  ") {
            let _ = writeln!(out, "{line}");
        }
    }
}

fn costs(out: &mut String, s: &Summary, paint: Paint) {
    let _ = writeln!(out, "\n{}", paint.bold("Cost"));
    let name_w = WIDTH - 6 * 8 - 1;
    let _ = writeln!(
        out,
        "{} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7}",
        fit("site (test time)", name_w),
        "median",
        "p95",
        "mean",
        "caller",
        "tests/s",
        "ovrhead"
    );
    for site in &s.sites {
        let d = &site.duration_us;
        let _ = writeln!(
            out,
            "{} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7}",
            fit(&site.site, name_w),
            micros(d.median as f64),
            micros(d.p95 as f64),
            micros(d.mean),
            site.parent_us_per_run.map_or("-".into(), micros),
            site.tests_per_sec.map_or("-".into(), |r| format!("{r:.1}")),
            site.overhead_share.map_or("-".into(), percent),
        );
    }
    let _ = writeln!(out, "(caller: time a sampled call lost starting its run)");
}

fn failures(out: &mut String, s: &Summary, paint: Paint) {
    let failing: Vec<(&SiteSummary, usize)> = s
        .sites
        .iter()
        .flat_map(|site| {
            site.per_test
                .iter()
                .enumerate()
                .filter(|(_, t)| t.failures_total > 0)
                .map(move |(i, _)| (site, i))
        })
        .collect();
    if failing.is_empty() {
        let _ = writeln!(out, "\n{}", paint.green("No failures."));
        return;
    }
    let _ = writeln!(out, "\n{}", paint.bold("Failures"));
    for (site, i) in failing {
        let t = &site.per_test[i];
        let heading = format!("{}: {} ({} failing)", site.site, t.test, t.failures_total);
        for line in wrap(&heading, WIDTH, "  ") {
            let _ = writeln!(out, "{}", paint.red(&line));
        }
        for f in &t.failures {
            failure(out, f);
        }
        if t.failures_total > t.failures.len() as u64 {
            let _ = writeln!(
                out,
                "  … and {} more",
                t.failures_total - t.failures.len() as u64
            );
        }
    }
}

fn failure(out: &mut String, f: &Failure) {
    let line = |out: &mut String, label: &str, text: &str| {
        let _ = writeln!(out, "    {label:<7} {}", fit(text, WIDTH - 12).trim_end());
    };
    let _ = writeln!(
        out,
        "  {} at {} on {}:{} run {}",
        f.outcome, f.time, f.host, f.pid, f.run
    );
    if let Some(d) = &f.detail {
        line(out, "detail", d);
    }
    for (name, value) in f.inputs.iter().filter(|(n, _)| *n != REPLAY_INPUT) {
        line(out, "input", &format!("{name} = {value}"));
    }
    // Never cut: these replay the failure: a whole program's command, or the seeds of
    // invite::rng::replay.
    if let Some(command) = f.inputs.get(REPLAY_INPUT) {
        let _ = writeln!(out, "    {:<7} {command}", "replay");
        return;
    }
    let _ = writeln!(
        out,
        "    {:<7} test_seed {}, rng stream {} word {}",
        "replay", f.seeds.test_seed, f.seeds.rng_stream, f.seeds.rng_word_pos
    );
    let _ = writeln!(out, "    {:<7} {}", "seed", f.seeds.rng_seed);
}

fn tuning(out: &mut String, s: &Summary, paint: Paint) {
    let Some(t) = &s.tuning else { return };
    let _ = writeln!(
        out,
        "\n{}",
        paint.bold(&format!("Tuning for {}", t.target_text(percent)))
    );
    let _ = writeln!(out, "# Paste into invite.toml:");
    for site in &t.sites {
        let _ = writeln!(out, "[functions.{:?}]", site.site);
        match site.rho {
            Some(rho) => {
                let _ = writeln!(
                    out,
                    "rho = {}  # ~{:.0} tests/min, {} overhead{}",
                    format_rho(rho),
                    site.projected_tests_per_min.unwrap_or(0.0),
                    percent(site.projected_overhead.unwrap_or(0.0)),
                    site.current_rho
                        .map_or(String::new(), |c| format!(" (now {})", format_rho(c))),
                );
            }
            None => {
                let _ = writeln!(out, "# not tuned: {}", site.note.as_deref().unwrap_or("?"));
            }
        }
        if let (Some(_), Some(note)) = (site.rho, &site.note) {
            let _ = writeln!(out, "# {note}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_breaks_at_spaces_indents_and_splits_only_what_no_line_holds() {
        assert_eq!(wrap("short", 10, "  "), ["short"]);
        assert_eq!(wrap("one two three", 7, "  "), ["one two", "  three"]);
        assert_eq!(
            wrap("a bcdefghijkl", 6, "  "),
            ["a bcde", "  fghi", "  jkl"]
        );
        assert_eq!(wrap("éééé ü", 4, ""), ["éééé", "ü"]);
        for line in wrap(&"word ".repeat(40), 20, "    ") {
            assert!(line.chars().count() <= 20, "{line}");
        }
        // An indent as wide as the line still makes progress.
        assert_eq!(wrap("abc", 2, "  ").concat().replace(' ', ""), "abc");
        assert_eq!(wrap("a  b", 1, "  ").concat().replace(' ', ""), "ab");
    }

    #[test]
    fn fit_cuts_and_pads_by_characters() {
        assert_eq!(fit("abc", 5), "abc  ");
        assert_eq!(fit("abcdef", 4), "abc…");
        assert_eq!(fit("ééééé", 3).chars().count(), 3);
    }

    #[test]
    fn counts_fit_six_columns() {
        assert_eq!(count(99_999), "99999");
        assert_eq!(count(123_456), "123k");
        assert_eq!(count(12_345_678), "12.3M");
    }
}
