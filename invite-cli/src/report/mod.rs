//! `invite report`: from logs to findings and tuned sampling rates.
//!
//! [`read`] finds the inputs and streams their lines, [`aggregate`] turns records into a
//! [`Summary`] (also the JSON schema), [`tuning`] computes ρ for a target, and [`text`] and
//! [`html`] render it.

pub mod aggregate;
pub mod emit;
pub mod histogram;
pub mod html;
pub mod read;
pub mod shipped;
pub mod shrink;
pub mod text;
pub mod tuning;

use std::io::{IsTerminal, Write};

pub use aggregate::{LineError, Summary};

use invite::record::Outcome;

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Text for a terminal, laid out to a width.
    Text,
    /// The [`Summary`] as JSON.
    Json,
    /// A self-contained HTML page.
    Html,
}

/// What `invite report` was asked for.
#[derive(Clone, Debug)]
pub struct Options {
    /// Log files, directories or `-` for stdin.
    pub paths: Vec<String>,
    /// The output format.
    pub format: Format,
    /// Stop at the first bad line.
    pub strict: bool,
    /// Tune ρ for this share of wall time.
    pub target_overhead: Option<f64>,
    /// Tune ρ for this many tests per minute per site, over the whole fleet.
    pub target_tests_per_min: Option<f64>,
    /// The instances that share the test rate; `None`: as many as the logs name.
    pub instances: Option<u64>,
    /// Also write the tuned ρ to this file, an `invite.toml` the fleet can reload.
    pub write_config: Option<std::path::PathBuf>,
    /// Parsing threads; at least 1.
    pub threads: usize,
    /// Failures listed per test.
    pub failures: usize,
    /// Colour in text output; `None`: when stdout is a terminal and `NO_COLOR` is unset.
    pub colour: Option<bool>,
    /// Outcomes that make the command fail (exit 3) once the report is written: a CI gate.
    pub fail_on: Vec<Outcome>,
    /// Columns of the text report; `None`: the terminal's, else [`text::DEFAULT_WIDTH`].
    pub width: Option<usize>,
}

/// The exit code when tests ended in an outcome named by [`Options::fail_on`].
pub const EXIT_FAILED_TESTS: i32 = 3;

/// The bad lines met, for the warning summary.
#[derive(Default)]
pub struct Problems {
    /// The bad lines listed: the first few by file and line, whatever order they were met in.
    pub listed: Vec<(String, u64, String)>,
    /// Bad lines in all.
    pub bad: u64,
    /// Records of an unknown kind.
    pub unknown: u64,
    /// Files without a line.
    pub empty: Vec<String>,
    /// Compressed files damaged: a message each.
    pub damaged: Vec<String>,
}

/// How many bad lines the warning summary names one by one.
const LISTED: usize = 10;

impl Problems {
    fn add(&mut self, file: &str, line: u64, e: &LineError) {
        let text = match e {
            LineError::Bad(why) => {
                self.bad += 1;
                format!("{file}:{line}: {why}")
            }
            LineError::UnknownKind(k) => {
                self.unknown += 1;
                format!("{file}:{line}: unknown record kind `{k}` (written by a newer version?)")
            }
        };
        self.list((file.to_string(), line, text));
    }

    fn list(&mut self, item: (String, u64, String)) {
        if self.listed.len() == LISTED
            && self
                .listed
                .last()
                .is_some_and(|l| (&l.0, l.1) < (&item.0, item.1))
        {
            return;
        }
        let at = self
            .listed
            .partition_point(|l| (&l.0, l.1) <= (&item.0, item.1));
        self.listed.insert(at, item);
        self.listed.truncate(LISTED);
    }

    /// Takes in the problems another thread met.
    fn merge(&mut self, other: Problems) {
        self.bad += other.bad;
        self.unknown += other.unknown;
        for item in other.listed {
            self.list(item);
        }
    }

    /// The short warning summary for stderr; empty when all was well.
    pub fn summary(&self) -> String {
        let mut out = String::new();
        let skipped = self.bad + self.unknown;
        if skipped > 0 {
            out.push_str(&format!(
                "invite report: skipped {skipped} line(s): {} bad, {} of unknown kinds\n",
                self.bad, self.unknown
            ));
            for (_, _, l) in &self.listed {
                out.push_str(&format!("  {l}\n"));
            }
            if skipped > self.listed.len() as u64 {
                out.push_str(&format!(
                    "  … and {} more\n",
                    skipped - self.listed.len() as u64
                ));
            }
        }
        for e in &self.empty {
            out.push_str(&format!("invite report: {e} is empty\n"));
        }
        for e in &self.damaged {
            out.push_str(&format!("invite report: {e}\n"));
        }
        out
    }
}

/// What one parsing thread gathers.
struct Part {
    agg: aggregate::Aggregator,
    problems: Problems,
    other_lines: u64,
}

const STRICT: &str = "(--strict stops at the first bad line)";

/// The message of `--strict` for a bad line.
fn strict(file: &str, line: u64, why: &str) -> String {
    format!("{file}:{line}: {why} {STRICT}")
}

/// Why `invite report` wrote no report.
#[derive(Debug)]
pub struct Failed {
    /// What to say.
    pub message: String,
    /// The exit status: 1 for no valid record or a bad line under `--strict`, 2 for an input
    /// that cannot be read.
    pub code: i32,
}

impl Failed {
    fn unreadable(message: String) -> Failed {
        Failed { message, code: 2 }
    }
}

/// Reads, aggregates and tunes. `Err` says why no report can be written.
pub fn summarise(opts: &Options, problems: &mut Problems) -> Result<Summary, Failed> {
    let inputs = read::resolve(&opts.paths).map_err(Failed::unreadable)?;
    let scanned = read::scan(
        &inputs,
        opts.threads,
        || Part {
            agg: aggregate::Aggregator::new(opts.failures),
            problems: Problems::default(),
            other_lines: 0,
        },
        |part, line, at| {
            let text = match line {
                read::Line::Text(text) => text,
                read::Line::TooLong(bytes) => {
                    let why = format!(
                        "a line of {bytes} bytes, over the {} MiB a log line may have",
                        read::MAX_LINE >> 20
                    );
                    if opts.strict {
                        return Err(strict(at.file, at.line, &why));
                    }
                    part.problems.add(at.file, at.line, &LineError::Bad(why));
                    return Ok(());
                }
            };
            let mut add = |record: &[u8]| match part.agg.add_line(record) {
                Ok(()) => Ok(()),
                Err(e) if opts.strict => Err(strict(
                    at.file,
                    at.line,
                    &match e {
                        LineError::Bad(why) => why,
                        LineError::UnknownKind(k) => format!("unknown record kind `{k}`"),
                    },
                )),
                Err(e) => {
                    part.problems.add(at.file, at.line, &e);
                    Ok(())
                }
            };
            match shipped::unwrap(text) {
                shipped::Shipped::Plain => add(text),
                shipped::Shipped::Wrapped { records, other } => {
                    records.iter().try_for_each(|r| add(r.as_bytes()))?;
                    part.other_lines += other;
                    Ok(())
                }
            }
        },
    )
    .map_err(|message| Failed {
        code: if message.ends_with(STRICT) { 1 } else { 2 },
        message,
    })?;
    let mut agg = aggregate::Aggregator::new(opts.failures);
    let mut other_lines = 0;
    for part in scanned.states {
        agg.merge(part.agg);
        problems.merge(part.problems);
        other_lines += part.other_lines;
    }
    problems.empty = scanned.empty;
    problems.damaged = scanned.damaged;
    agg.input.files = inputs.len() as u64;
    agg.input.bad_lines = problems.bad;
    agg.input.unknown_kinds = problems.unknown;
    agg.input.empty_files = problems.empty.len() as u64;
    agg.input.other_lines = other_lines;
    agg.input.damaged_files = problems.damaged.len() as u64;
    if agg.input.records == 0 {
        let names: Vec<String> = inputs.iter().map(|i| i.name()).collect();
        let shipped = if other_lines > 0 {
            format!(
                " ({other_lines} shipped log line(s) of the program, none an invite record: \
                 ship the log invite writes, or its `tracing` events with their `{}` field)",
                shipped::RECORD_FIELD
            )
        } else {
            String::new()
        };
        return Err(Failed {
            message: format!("no valid invite record in {}{shipped}", names.join(", ")),
            code: 1,
        });
    }
    let mut summary = agg.finish();
    if opts.target_overhead.is_some() || opts.target_tests_per_min.is_some() {
        let instances = opts
            .instances
            .unwrap_or(summary.instances.len() as u64)
            .max(1);
        summary.tuning = Some(tuning::tune(
            &summary.sites,
            opts.target_overhead,
            opts.target_tests_per_min,
            instances,
        ));
    }
    Ok(summary)
}

/// The whole command: returns the process exit code (0: report written; 1: no valid record or
/// a bad line under `--strict`; 2: an input that cannot be read).
pub fn run(opts: &Options, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let mut problems = Problems::default();
    let result = summarise(opts, &mut problems);
    let _ = err.write_all(problems.summary().as_bytes());
    let summary = match result {
        Ok(s) => s,
        Err(failed) => {
            let _ = writeln!(err, "invite report: {}", failed.message);
            return failed.code;
        }
    };
    if let (Some(path), Some(t)) = (&opts.write_config, &summary.tuning) {
        let config = tuning::config_text(t, text::percent);
        if let Err(e) = tuning::write_config(path, &config) {
            let _ = writeln!(err, "invite report: {e}");
            return 2;
        }
        let tuned = t.sites.iter().filter(|s| s.rho.is_some()).count();
        let _ = writeln!(
            err,
            "invite report: wrote the rho of {tuned} site(s) to {}",
            path.display()
        );
    }
    let rendered = match opts.format {
        Format::Text => {
            let colour = opts.colour.unwrap_or_else(|| {
                std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
            });
            let width = opts.width.unwrap_or_else(text::terminal_width);
            text::render(&summary, text::Paint(colour), width)
        }
        Format::Json => serde_json::to_string_pretty(&summary).expect("summaries serialise") + "\n",
        Format::Html => html::render(&summary),
    };
    match out.write_all(rendered.as_bytes()) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => {
            let _ = writeln!(err, "invite report: cannot write the report: {e}");
            return 2;
        }
    }
    match failed_tests(&summary, &opts.fail_on) {
        Some(line) => {
            let _ = writeln!(err, "invite report: {line}");
            EXIT_FAILED_TESTS
        }
        None => 0,
    }
}

/// The line that explains a failed gate: how many tests ended in each outcome of `fail_on`,
/// and at how many sites; `None` when there were none.
fn failed_tests(summary: &Summary, fail_on: &[Outcome]) -> Option<String> {
    let mut counts = Vec::new();
    let mut sites = 0;
    for site in &summary.sites {
        if fail_on.iter().any(|&o| site.outcomes.get(o) > 0) {
            sites += 1;
        }
    }
    for &o in fail_on {
        let n: u64 = summary.sites.iter().map(|s| s.outcomes.get(o)).sum();
        if n > 0 {
            counts.push(format!("{n} {o}"));
        }
    }
    if counts.is_empty() {
        return None;
    }
    let named: Vec<&str> = fail_on.iter().map(|o| o.as_str()).collect();
    Some(format!(
        "{} at {sites} site(s) (--fail-on {})",
        counts.join(", "),
        named.join(",")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problems_of_several_threads_add_up_and_keep_the_first_lines() {
        let mut a = Problems::default();
        let mut b = Problems::default();
        for line in 1..=6u64 {
            a.add("b.jsonl", line, &LineError::Bad("bad".into()));
            b.add("a.jsonl", line, &LineError::Bad("bad".into()));
        }
        b.add("a.jsonl", 7, &LineError::UnknownKind("future".into()));
        a.merge(b);
        assert_eq!((a.bad, a.unknown), (12, 1));
        let listed: Vec<(String, u64)> = a.listed.iter().map(|l| (l.0.clone(), l.1)).collect();
        let mut first: Vec<(String, u64)> = (1..=7).map(|l| ("a.jsonl".to_string(), l)).collect();
        first.extend((1..=3).map(|l| ("b.jsonl".to_string(), l)));
        assert_eq!(
            listed, first,
            "the first ten by file and line, whoever met them"
        );
    }

    #[test]
    fn the_strict_message_names_the_place_and_why_it_stopped() {
        assert_eq!(
            strict("a.jsonl", 4, "not a JSON record"),
            "a.jsonl:4: not a JSON record (--strict stops at the first bad line)"
        );
    }

    #[test]
    fn the_summary_lists_the_first_bad_lines_and_counts_the_rest() {
        let mut p = Problems::default();
        for line in 1..=LISTED as u64 {
            p.add("a.jsonl", line, &LineError::Bad("not JSON".into()));
        }
        let s = p.summary();
        assert!(
            s.starts_with("invite report: skipped 10 line(s): 10 bad, 0 of unknown kinds\n"),
            "{s}"
        );
        assert_eq!(s.matches("  a.jsonl:").count(), LISTED, "{s}");
        assert!(!s.contains("more"), "{s}");
        p.add("a.jsonl", 11, &LineError::UnknownKind("future".into()));
        p.add("a.jsonl", 12, &LineError::Bad("not JSON".into()));
        let s = p.summary();
        assert!(
            s.contains("skipped 12 line(s): 11 bad, 1 of unknown kinds"),
            "{s}"
        );
        assert_eq!(s.matches("  a.jsonl:").count(), LISTED, "{s}");
        assert!(s.contains("  … and 2 more\n"), "{s}");
        assert!(Problems::default().summary().is_empty());
    }
}
