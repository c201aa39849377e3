//! The text report: laid out to a width (`--width`, else the terminal's, else 100 columns),
//! colour only on a terminal.
//!
//! Nothing logged is cut. Site names, relations, inputs and details that do not fit wrap under
//! their label, and a word longer than a whole line is split where the line ends; a failure's
//! inputs come one to a line (or lines), a sequence with its length. What is there to be pasted
//! (a replay command, a seed, a `[functions."…"]` line) is never broken: when it does not fit
//! after its label it has a line of its own, which may run past the width.

use std::fmt::Write as _;
use std::io::IsTerminal as _;

use super::aggregate::{Failure, SiteSummary, Summary};
use super::tuning::format_rho;
use invite::record::{Outcome, OutcomeCounts, REPLAY_INPUT};

/// The narrowest report: a failure's label column and 28 columns of text beside it.
pub const MIN_WIDTH: usize = 40;

/// The width when standard output is not a terminal, or a terminal of unknown size.
pub const DEFAULT_WIDTH: usize = 100;

/// A table whose names would get fewer columns than this (and than its longest name) is
/// printed as a list instead.
const MIN_NAME: usize = 24;

/// The columns of a failure's labels (`    input   `): its texts wrap under the first column
/// after them.
const LABEL: usize = 12;

/// What `invite::mr::truncated_debug` ends a `Debug` text with when the log cut it.
const TRUNCATED: &str = "… (truncated)";

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
    fn tone(self, tone: Tone, s: &str) -> String {
        match tone {
            Tone::Plain => s.to_string(),
            Tone::Good => self.green(s),
            Tone::Bad => self.red(s),
        }
    }
}

/// The default width: on a terminal, `$COLUMNS` when it is a number above 0, else the width of
/// the terminal's window (`window`), never below [`MIN_WIDTH`]; [`DEFAULT_WIDTH`] off a terminal
/// or when neither is known.
pub fn width_from(
    terminal: bool,
    columns: Option<&str>,
    window: impl FnOnce() -> Option<u16>,
) -> usize {
    if !terminal {
        return DEFAULT_WIDTH;
    }
    columns
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|c| *c > 0)
        .or_else(|| window().map(usize::from).filter(|c| *c > 0))
        .map_or(DEFAULT_WIDTH, |c| c.max(MIN_WIDTH))
}

/// The default width for standard output, as [`width_from`] reads it.
pub fn terminal_width() -> usize {
    let stdout = std::io::stdout();
    let columns = std::env::var("COLUMNS").ok();
    width_from(stdout.is_terminal(), columns.as_deref(), || {
        rustix::termios::tcgetwinsize(&stdout)
            .ok()
            .map(|w| w.ws_col)
    })
}

/// How many elements a sequence's `Debug` text shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Length {
    /// The whole sequence: this many elements.
    Exactly(usize),
    /// A text the log cut short: at least this many (the last one perhaps cut).
    AtLeast(usize),
}

/// The elements of a sequence's `Debug` text (`[a, b, …]`, also pretty-printed): commas inside
/// nested brackets, parentheses and braces, strings and character literals do not count.
/// `None` for a text that is no sequence.
pub fn sequence_length(debug: &str) -> Option<Length> {
    let (text, cut) = match debug.strip_suffix(TRUNCATED) {
        Some(t) => (t, true),
        None => (debug, false),
    };
    let chars: Vec<char> = text.chars().collect();
    if chars.first() != Some(&'[') {
        return None;
    }
    // Elements ended by a comma, whether one has begun since, and the nesting inside `[`.
    let (mut elements, mut begun, mut depth) = (0usize, false, 0usize);
    let mut i = 1;
    while i < chars.len() {
        match chars[i] {
            '"' => {
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    i += if chars[i] == '\\' { 2 } else { 1 };
                }
                begun = true;
            }
            '\'' => {
                i = char_literal_end(&chars, i).unwrap_or(i);
                begun = true;
            }
            '[' | '(' | '{' => {
                depth += 1;
                begun = true;
            }
            ']' if depth == 0 => {
                // The sequence must be the whole text: `[1] + [2]` is none.
                let whole = i + 1 == chars.len() && !cut;
                return whole.then_some(Length::Exactly(elements + usize::from(begun)));
            }
            ']' | ')' | '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                elements += usize::from(begun);
                begun = false;
            }
            c if c.is_whitespace() => {}
            _ => begun = true,
        }
        i += 1;
    }
    cut.then_some(Length::AtLeast(elements + usize::from(begun)))
}

/// The index of the quote that closes a character literal opened at `i` (`','`, `'['`, `'"'`);
/// `None` when what follows is no such literal. An escaped character (`'\''`, `'\n'`) needs no
/// reading of its own: it is no comma, bracket or double quote, and its closing quote, followed
/// by `, ` or a closing bracket, opens no literal.
fn char_literal_end(chars: &[char], i: usize) -> Option<usize> {
    (chars.get(i + 2) == Some(&'\'')).then_some(i + 2)
}

/// An input's name, with the length of a sequence: `xs (len 2)`, or `xs (len ≥ 40)` when the
/// log cut its text.
pub fn input_label(name: &str, value: &str) -> String {
    match sequence_length(value) {
        Some(Length::Exactly(n)) => format!("{name} (len {n})"),
        Some(Length::AtLeast(n)) => format!("{name} (len ≥ {n})"),
        None => name.to_string(),
    }
}

/// Breaks `text` into lines of at most `width` characters, the first starting with `first`, the
/// others with `rest`. A line breaks at a space, which the break takes the place of: every other
/// space is kept, so the lines joined by spaces are the text again. A word that fits no line
/// fills the line it starts on and goes on over the next; a newline in the text starts a line.
fn wrap(text: &str, width: usize, first: &str, rest: &str) -> Vec<String> {
    let rest_w = rest.chars().count();
    let mut lines = Vec::new();
    let mut line = first.to_string();
    let mut used = first.chars().count();
    // Where the line's own text starts, after its prefix.
    let mut start = used;
    for (p, paragraph) in text.split('\n').enumerate() {
        if p > 0 {
            lines.push(std::mem::replace(&mut line, rest.to_string()));
            (used, start) = (rest_w, rest_w);
        }
        for (k, word) in paragraph.split(' ').enumerate() {
            let word: Vec<char> = word.chars().collect();
            let mut word = &word[..];
            // The space before the word, until a break takes its place.
            let mut space = k > 0;
            loop {
                let gap = usize::from(space);
                if used + gap + word.len() <= width {
                    if space {
                        line.push(' ');
                    }
                    line.extend(word);
                    used += gap + word.len();
                    break;
                }
                let has_text = used > start;
                if has_text && (rest_w + word.len() <= width || used + gap >= width) {
                    // Onto the next line: the word fits there, or nothing more fits here.
                    lines.push(std::mem::replace(&mut line, rest.to_string()));
                    (used, start, space) = (rest_w, rest_w, false);
                    continue;
                }
                // Longer than any line: fill this one (at least a character, so that a prefix
                // as wide as the line still ends) and go on over the next; where punctuation
                // meets a name in the line's second half if it does (`a::b(&` before `c`).
                let room = width.saturating_sub(used + gap).max(1).min(word.len());
                // (`room` is short of the word here, or both are a single character.)
                let name = |c: char| c.is_alphanumeric() || c == '_';
                let room = (room.div_ceil(2)..room)
                    .rev()
                    .find(|&i| !name(word[i - 1]) && name(word[i]))
                    .unwrap_or(room);
                if space {
                    line.push(' ');
                }
                line.extend(&word[..room]);
                word = &word[room..];
                used += gap + room;
                space = false;
                if word.is_empty() {
                    break;
                }
                lines.push(std::mem::replace(&mut line, rest.to_string()));
                (used, start) = (rest_w, rest_w);
            }
        }
    }
    lines.push(line);
    lines
}

/// Writes `text` wrapped to `width`, the first line after `first`, the others after `rest`.
fn para(out: &mut String, text: &str, width: usize, first: &str, rest: &str) {
    for line in wrap(text, width, first, rest) {
        let _ = writeln!(out, "{line}");
    }
}

/// How a number cell is coloured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tone {
    Plain,
    Good,
    Bad,
}

/// A number of a table, right-aligned under its head.
struct Cell {
    text: String,
    tone: Tone,
}

impl Cell {
    fn plain(text: String) -> Cell {
        Cell {
            text,
            tone: Tone::Plain,
        }
    }
}

/// A row of a table: a name, indented two columns a level, and its numbers.
struct Row {
    depth: usize,
    name: String,
    cells: Vec<Cell>,
}

/// A table of names and number columns laid out to `width`: each number column as wide as its
/// head or widest number, the names' column what they leave, up to the longest name; a name
/// longer than its column wraps under itself. Where the names would get fewer than
/// [`MIN_NAME`] columns, and fewer than the longest name needs, the rows are listed instead.
/// A row's numbers stand on the last line of its name.
fn table(
    out: &mut String,
    width: usize,
    paint: Paint,
    name_head: &str,
    heads: &[&str],
    rows: &[Row],
) {
    let widths: Vec<usize> = heads
        .iter()
        .enumerate()
        .map(|(i, h)| {
            rows.iter()
                .map(|r| r.cells[i].text.chars().count())
                .fold(h.chars().count(), usize::max)
        })
        .collect();
    let numbers: usize = widths.iter().map(|w| w + 1).sum();
    let longest = rows
        .iter()
        .map(|r| 2 * r.depth + r.name.chars().count())
        .fold(name_head.chars().count(), usize::max);
    let name_w = width.saturating_sub(numbers).min(longest);
    if name_w < MIN_NAME.min(longest) {
        list(out, width, paint, heads, rows);
        return;
    }
    let mut line = format!("{name_head:<name_w$}");
    for (h, w) in heads.iter().zip(&widths) {
        let _ = write!(line, " {h:>w$}");
    }
    let _ = writeln!(out, "{line}");
    for row in rows {
        let indent = "  ".repeat(row.depth);
        let mut names = wrap(&row.name, name_w, &indent, &format!("{indent}  "));
        // The numbers end the row, after the whole name.
        let last = names.pop().expect("a line at least");
        for name in names {
            let _ = writeln!(out, "{name}");
        }
        let mut line = format!("{last:<name_w$}");
        for (cell, w) in row.cells.iter().zip(&widths) {
            let _ = write!(
                line,
                " {}",
                paint.tone(cell.tone, &format!("{:>w$}", cell.text))
            );
        }
        let _ = writeln!(out, "{line}");
    }
}

/// A table too wide for `width`, as a list: each row's name, then its numbers by their heads,
/// as many to a line as fit.
fn list(out: &mut String, width: usize, paint: Paint, heads: &[&str], rows: &[Row]) {
    for row in rows {
        let indent = "  ".repeat(row.depth);
        let inner = format!("{indent}  ");
        para(out, &row.name, width, &indent, &inner);
        let mut line = inner.clone();
        let mut used = inner.len();
        for (h, cell) in heads.iter().zip(&row.cells) {
            let item = h.chars().count() + 1 + cell.text.chars().count();
            if used > inner.len() {
                if used + 2 + item > width {
                    let _ = writeln!(out, "{line}");
                    line = inner.clone();
                    used = inner.len();
                } else {
                    line.push_str("  ");
                    used += 2;
                }
            }
            let _ = write!(line, "{h} {}", paint.tone(cell.tone, &cell.text));
            used += item;
        }
        let _ = writeln!(out, "{line}");
    }
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

/// A share as a percentage, with more digits below 0.1%.
pub fn percent(x: f64) -> String {
    let p = x * 100.0;
    if p != 0.0 && p.abs() < 0.1 {
        format!("{p:.3}%")
    } else {
        format!("{p:.2}%")
    }
}

const OUTCOME_HEADS: [&str; 7] = ["pass", "fail", "error", "t/o", "incon", "block", "skip"];

/// A run count and a count per outcome: passes green, failures red.
fn outcome_cells(runs: u64, o: &OutcomeCounts) -> Vec<Cell> {
    let mut cells = vec![Cell::plain(count(runs))];
    for outcome in Outcome::ALL {
        let n = o.get(outcome);
        let tone = match outcome {
            Outcome::Pass if n > 0 => Tone::Good,
            o if o.is_failure() && n > 0 => Tone::Bad,
            _ => Tone::Plain,
        };
        cells.push(Cell {
            text: count(n),
            tone,
        });
    }
    cells
}

/// The report as text, laid out to `width` columns ([`MIN_WIDTH`] or more reads well).
pub fn render(summary: &Summary, paint: Paint, width: usize) -> String {
    let mut out = String::new();
    header(&mut out, summary, paint, width);
    outcomes(&mut out, summary, paint, width);
    sampling(&mut out, summary, paint, width);
    costs(&mut out, summary, paint, width);
    // A fleet's sections; a single instance's report stays as it was.
    if summary.instances.len() > 1 {
        fleet_failures(&mut out, summary, paint, width);
    }
    failures(&mut out, summary, paint, width);
    if summary.instances.len() > 1 {
        instances(&mut out, summary, paint, width);
        versions(&mut out, summary, paint, width);
    }
    tuning(&mut out, summary, paint, width);
    out
}

/// A time to the minute, for tables: `2026-11-22 10:01`.
fn minute(t: &str) -> String {
    t.get(..16)
        .map_or_else(|| t.to_string(), |m| m.replace('T', " "))
}

/// Each kind of failure once, with how far it spread: instances, times and versions.
fn fleet_failures(out: &mut String, s: &Summary, paint: Paint, width: usize) {
    if s.fleet_failures.is_empty() {
        return;
    }
    title(
        out,
        "Failures across instances (by fingerprint)",
        paint,
        width,
    );
    for f in &s.fleet_failures {
        let heading = format!("{}  {}: {}: {}", f.fingerprint, f.site, f.test, f.outcome);
        for line in wrap(&heading, width, "", "  ") {
            let _ = writeln!(out, "{}", paint.red(&line));
        }
        let spread = format!(
            "{} failure{} in {} instance{}, {} to {} UTC",
            f.failures,
            if f.failures == 1 { "" } else { "s" },
            f.instances,
            if f.instances == 1 { "" } else { "s" },
            short_time(&f.first).trim_end_matches(" UTC"),
            short_time(&f.last).trim_end_matches(" UTC"),
        );
        para(out, &spread, width, "  ", "    ");
        if !f.versions.is_empty() {
            para(
                out,
                &format!("versions {}", f.versions.join(", ")),
                width,
                "  ",
                "    ",
            );
        }
    }
}

/// What the logs do not name: `-`.
fn or_dash(s: &str) -> String {
    if s.is_empty() {
        "-".to_string()
    } else {
        s.to_string()
    }
}

fn instances(out: &mut String, s: &Summary, paint: Paint, width: usize) {
    title(out, "Instances", paint, width);
    let rows: Vec<Row> = s
        .instances
        .iter()
        .map(|i| Row {
            depth: 0,
            name: i.instance.clone(),
            cells: [
                or_dash(&i.service),
                or_dash(&i.version),
                or_dash(i.shard.as_deref().unwrap_or("")),
                count(i.tests),
                i.overhead_share.map_or("-".into(), percent),
                minute(&i.first),
                minute(&i.last),
            ]
            .map(Cell::plain)
            .into(),
        })
        .collect();
    let heads = [
        "service", "version", "shard", "tests", "ovrhead", "first", "last",
    ];
    table(out, width, paint, "instance", &heads, &rows);
}

fn versions(out: &mut String, s: &Summary, paint: Paint, width: usize) {
    title(out, "Services and versions", paint, width);
    let rows: Vec<Row> = s
        .versions
        .iter()
        .map(|v| {
            let failing: u64 = Outcome::ALL
                .iter()
                .filter(|o| o.is_failure())
                .map(|&o| v.outcomes.get(o))
                .sum();
            Row {
                depth: 0,
                name: format!("{} {}", or_dash(&v.service), or_dash(&v.version)),
                cells: vec![
                    Cell::plain(count(v.instances)),
                    Cell::plain(count(v.tests)),
                    Cell {
                        text: count(failing),
                        tone: if failing > 0 { Tone::Bad } else { Tone::Plain },
                    },
                ],
            }
        })
        .collect();
    table(
        out,
        width,
        paint,
        "service version",
        &["instances", "tests", "failing"],
        &rows,
    );
}

/// A section's title, after a blank line.
fn title(out: &mut String, text: &str, paint: Paint, width: usize) {
    out.push('\n');
    for line in wrap(text, width, "", "  ") {
        let _ = writeln!(out, "{}", paint.bold(&line));
    }
}

fn header(out: &mut String, s: &Summary, paint: Paint, width: usize) {
    let first = s
        .instances
        .iter()
        .map(|i| i.first.as_str())
        .filter(|t| !t.is_empty())
        .min();
    let last = s.instances.iter().map(|i| i.last.as_str()).max();
    let heading = format!(
        "Invite report: {} records from {} file{}, {} instance{}",
        s.input.records,
        s.input.files,
        if s.input.files == 1 { "" } else { "s" },
        s.instances.len(),
        if s.instances.len() == 1 { "" } else { "s" },
    );
    for line in wrap(&heading, width, "", "  ") {
        let _ = writeln!(out, "{}", paint.bold(&line));
    }
    if let (Some(a), Some(b)) = (first, last) {
        let span = format!("From {} to {}", short_time(a), short_time(b));
        para(out, &span, width, "", "  ");
    }
    let crashed = s.instances.iter().filter(|i| !i.stopped).count();
    if crashed > 0 {
        let note =
            format!("{crashed} instance(s) have no stop record (still running, killed or crashed)");
        para(out, &note, width, "", "  ");
    }
}

fn short_time(t: &str) -> String {
    t.get(..19)
        .map_or_else(|| t.to_string(), |s| s.replace('T', " ") + " UTC")
}

fn outcomes(out: &mut String, s: &Summary, paint: Paint, width: usize) {
    title(out, "Outcomes per site and test", paint, width);
    let mut heads = vec!["runs"];
    heads.extend(OUTCOME_HEADS);
    let mut rows = Vec::new();
    for site in &s.sites {
        rows.push(Row {
            depth: 0,
            name: site.site.clone(),
            cells: outcome_cells(site.runs, &site.outcomes),
        });
        for t in &site.per_test {
            rows.push(Row {
                depth: 1,
                name: t.test.clone(),
                cells: outcome_cells(t.runs, &t.outcomes),
            });
        }
    }
    table(out, width, paint, "site / test", &heads, &rows);
}

fn sampling(out: &mut String, s: &Summary, paint: Paint, width: usize) {
    title(out, "Sampling (from stats records)", paint, width);
    let opt = |v: Option<u64>| v.map_or("-".to_string(), count);
    let rows: Vec<Row> = s
        .sites
        .iter()
        .map(|site| Row {
            depth: 0,
            name: site.site.clone(),
            cells: [
                opt(site.calls),
                opt(site.sampled),
                count(site.runs),
                count(site.skipped.concurrency),
                count(site.skipped.overhead),
                count(site.skipped.disabled),
                count(site.skipped.fork_failed),
                count(site.skipped.dedup),
                count(site.skipped.ring_full),
                count(site.skipped.unrun),
                count(site.skipped.unhidden),
            ]
            .map(Cell::plain)
            .into(),
        })
        .collect();
    let heads = [
        "calls", "sampld", "runs", "s:conc", "s:ovhd", "s:off", "s:fork", "s:seen", "s:ring",
        "s:unrn", "s:hide",
    ];
    table(out, width, paint, "site", &heads, &rows);
    para(
        out,
        "(s:… sampled calls skipped: concurrency, overhead, off, fork failed, seen; a pure \
         site's: ring full, unrun at exit; runs that could not be hidden: their adopter never \
         reaps)",
        width,
        "",
        " ",
    );
    for site in s.sites.iter().filter(|x| x.skipped.dedup > 0) {
        let note = format!(
            "{}: unseen-state testing saved {} runs",
            site.site,
            count(site.skipped.dedup)
        );
        para(out, &note, width, "", "  ");
    }
}

fn costs(out: &mut String, s: &Summary, paint: Paint, width: usize) {
    title(out, "Cost", paint, width);
    let rows: Vec<Row> = s
        .sites
        .iter()
        .map(|site| {
            let d = &site.duration_us;
            Row {
                depth: 0,
                name: site.site.clone(),
                cells: [
                    micros(d.median as f64),
                    micros(d.p95 as f64),
                    micros(d.mean),
                    site.parent_us_per_run.map_or("-".into(), micros),
                    site.tests_per_sec.map_or("-".into(), |r| format!("{r:.1}")),
                    site.overhead_share.map_or("-".into(), percent),
                ]
                .map(Cell::plain)
                .into(),
            }
        })
        .collect();
    let heads = ["median", "p95", "mean", "caller", "tests/s", "ovrhead"];
    table(out, width, paint, "site (test time)", &heads, &rows);
    para(
        out,
        "(caller: time a sampled call lost starting its run; ovrhead: callers' time starting \
         runs and waiting for the caps, as a share of wall time)",
        width,
        "",
        " ",
    );
    for site in s.sites.iter() {
        if let Some(wait) = site.wait_share.filter(|&w| w > 0.0) {
            let note = format!(
                "{}: callers waited for the caps (when_busy = \"wait\") {} of the time, \
                 counted in its overhead",
                site.site,
                percent(wait)
            );
            para(out, &note, width, "", "  ");
        }
    }
}

fn failures(out: &mut String, s: &Summary, paint: Paint, width: usize) {
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
    title(out, "Failures", paint, width);
    for (site, i) in failing {
        let t = &site.per_test[i];
        // The relation in full: relations that start alike are told apart here.
        let heading = format!("{}: {} ({} failing)", site.site, t.test, t.failures_total);
        for line in wrap(&heading, width, "", "  ") {
            let _ = writeln!(out, "{}", paint.red(&line));
        }
        for f in &t.failures {
            failure(out, f, width);
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

/// `text` after a failure's `label`, wrapped under the column after the labels.
fn labelled(out: &mut String, label: &str, text: &str, width: usize) {
    para(
        out,
        text,
        width,
        &format!("    {label:<7} "),
        &" ".repeat(LABEL),
    );
}

/// `text` to paste, never broken: after its label when it fits, else on a line of its own.
fn paste(out: &mut String, label: &str, text: &str, width: usize) {
    if LABEL + text.chars().count() <= width {
        let _ = writeln!(out, "    {label:<7} {text}");
    } else {
        let _ = writeln!(out, "    {label}\n      {text}");
    }
}

fn failure(out: &mut String, f: &Failure, width: usize) {
    // The instance's name where the log gives one (a fleet's member), with the process; a
    // name made of host, pid and start time, as invite makes one by default, says no more.
    let made_up = f.instance.starts_with(&format!("{}-{}-", f.host, f.pid));
    let place = if f.instance.is_empty() || made_up {
        format!("{}:{}", f.host, f.pid)
    } else {
        format!("{} ({}:{})", f.instance, f.host, f.pid)
    };
    let when = format!("{} at {} on {place} run {}", f.outcome, f.time, f.run);
    para(out, &when, width, "  ", "    ");
    if let Some(d) = &f.detail {
        labelled(out, "detail", d, width);
    }
    // Whole, one to a line: the length of a vector may be the clue.
    for (name, value) in f.inputs.iter().filter(|(n, _)| *n != REPLAY_INPUT) {
        labelled(
            out,
            "input",
            &format!("{} = {value}", input_label(name, value)),
            width,
        );
    }
    // These replay the failure: a whole program's command, or the seeds of
    // invite::rng::replay.
    if let Some(command) = f.inputs.get(REPLAY_INPUT) {
        paste(out, "replay", command, width);
        return;
    }
    let seeds = format!(
        "test_seed {}, rng stream {} word {}",
        f.seeds.test_seed, f.seeds.rng_stream, f.seeds.rng_word_pos
    );
    labelled(out, "replay", &seeds, width);
    paste(out, "seed", &f.seeds.rng_seed, width);
}

/// A TOML comment, wrapped: every line starts `# `.
fn comment(out: &mut String, text: &str, width: usize) {
    para(out, text, width, "# ", "# ");
}

fn tuning(out: &mut String, s: &Summary, paint: Paint, width: usize) {
    let Some(t) = &s.tuning else { return };
    title(
        out,
        &format!("Tuning for {}", t.target_text(percent)),
        paint,
        width,
    );
    let _ = writeln!(out, "# Paste into invite.toml:");
    for site in &t.sites {
        // A table header cannot be broken: it keeps its line whatever the width.
        let _ = writeln!(out, "[functions.{:?}]", site.site);
        match site.rho {
            Some(rho) => {
                let value = format!("rho = {}", format_rho(rho));
                let rate = if t.instances > 1 {
                    format!(
                        "~{:.0} tests/min each, ~{:.0} in all",
                        site.projected_tests_per_min.unwrap_or(0.0),
                        site.projected_fleet_tests_per_min.unwrap_or(0.0)
                    )
                } else {
                    format!(
                        "~{:.0} tests/min",
                        site.projected_tests_per_min.unwrap_or(0.0)
                    )
                };
                let note = format!(
                    "{rate}, {} overhead{}",
                    percent(site.projected_overhead.unwrap_or(0.0)),
                    site.current_rho
                        .map_or(String::new(), |c| format!(" (now {})", format_rho(c))),
                );
                if value.chars().count() + 4 + note.chars().count() <= width {
                    let _ = writeln!(out, "{value}  # {note}");
                } else {
                    comment(out, &note, width);
                    let _ = writeln!(out, "{value}");
                }
            }
            None => {
                let note = format!("not tuned: {}", site.note.as_deref().unwrap_or("?"));
                comment(out, &note, width);
            }
        }
        if let (Some(_), Some(note)) = (site.rho, &site.note) {
            comment(out, note, width);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::report::aggregate::Aggregator;
    use invite::record::{Record, Seeds, SiteStats, SkipCounts, Stats, Test};

    #[test]
    fn wrap_breaks_at_spaces_indents_and_splits_only_what_no_line_holds() {
        assert_eq!(wrap("short", 10, "", "  "), ["short"]);
        assert_eq!(wrap("one two three", 7, "", "  "), ["one two", "  three"]);
        assert_eq!(
            wrap("a bcdefghijkl", 6, "", "  "),
            ["a bcde", "  fghi", "  jkl"]
        );
        assert_eq!(wrap("éééé ü", 4, "", ""), ["éééé", "ü"]);
        for line in wrap(&"word ".repeat(40), 20, "", "    ") {
            assert!(line.chars().count() <= 20, "{line}");
        }
        // The first line has a prefix of its own; a newline starts a line.
        assert_eq!(
            wrap("one two three", 12, "- x ", "  "),
            ["- x one two", "  three"]
        );
        assert_eq!(
            wrap("one\ntwo three", 20, "> ", "  "),
            ["> one", "  two three"]
        );
        // A word that fits a line of its own starts one; one that fits none fills this one.
        assert_eq!(wrap("ab cdef", 6, "", ""), ["ab", "cdef"]);
        assert_eq!(wrap("ab cdefghi", 6, "", ""), ["ab cde", "fghi"]);
        // No room for the space and a character: the break takes the space.
        assert_eq!(wrap("abcde fghijklm", 6, "", ""), ["abcde", "fghijk", "lm"]);
        // A prefix as wide as the line still makes progress, a character a line.
        assert_eq!(wrap("abc", 2, "  ", "  "), ["  a", "  b", "  c"]);
        assert_eq!(wrap("a b", 2, "  ", "  "), ["  a", "  b"]);
        assert_eq!(wrap("a  b", 1, "  ", "  ").concat().replace(' ', ""), "ab");
    }

    #[test]
    fn a_word_longer_than_a_line_is_split_where_punctuation_meets_a_name() {
        assert_eq!(
            wrap("median(&invite::mr::add(xs,", 12, "", ""),
            ["median(&", "invite::", "mr::add(xs,"]
        );
        // Only in the line's second half: else the line is filled.
        assert_eq!(wrap("a::bcdefghij", 8, "", ""), ["a::bcdef", "ghij"]);
        assert_eq!(wrap("abcd::efghij", 8, "", ""), ["abcd::", "efghij"]);
        // `_` belongs to a name; a split before punctuation is no better than filling.
        assert_eq!(wrap("abc_def_ghi", 6, "", ""), ["abc_de", "f_ghi"]);
        assert_eq!(wrap("abcd,,,efg", 6, "", ""), ["abcd,,", ",efg"]);
    }

    #[test]
    fn wrapped_text_joined_at_its_breaks_is_the_text_again() {
        let text = "ab  c d   ef g h  ij k   ";
        for width in 3..30 {
            let lines = wrap(text, width, "", "");
            assert_eq!(lines.join(" "), text, "{width}: {lines:?}");
            for line in &lines {
                assert!(line.chars().count() <= width, "{width}: {lines:?}");
            }
        }
        // With prefixes, and a word split over lines: the pieces joined as they were.
        let lines = wrap("x = \"aaaaaaaaaaaaaaaaaaaa\"", 12, "  in ", "     ");
        assert_eq!(
            lines,
            [
                "  in x = \"aa",
                "     aaaaaaa",
                "     aaaaaaa",
                "     aaaa\""
            ]
        );
        assert_eq!(
            lines.iter().map(|l| &l[5..]).collect::<String>(),
            "x = \"aaaaaaaaaaaaaaaaaaaa\""
        );
    }

    #[test]
    fn a_sequence_s_elements_are_counted_at_its_top_level() {
        let len = |s: &str| sequence_length(s);
        assert_eq!(len("[]"), Some(Length::Exactly(0)));
        assert_eq!(len("[ ]"), Some(Length::Exactly(0)));
        assert_eq!(len("[1.0, 3.0]"), Some(Length::Exactly(2)));
        assert_eq!(len("[[1, 2], [3], []]"), Some(Length::Exactly(3)));
        assert_eq!(len("[(1, 2), (3, 4)]"), Some(Length::Exactly(2)));
        assert_eq!(
            len("[P { x: 1, y: 2 }, P { x: 3, y: 4 }]"),
            Some(Length::Exactly(2))
        );
        // Commas, brackets and quotes inside strings and characters.
        assert_eq!(
            len(r#"["a, b", "[c", "d\", e", "\\"]"#),
            Some(Length::Exactly(4))
        );
        assert_eq!(
            len(r#"[',', '[', '\'', '"', '\u{1f600}']"#),
            Some(Length::Exactly(5))
        );
        assert_eq!(len(r#"['\'', '"', ',', '\\']"#), Some(Length::Exactly(4)));
        // Pretty-printed, with its trailing comma.
        assert_eq!(
            len("[\n    1,\n    2,\n    3,\n]"),
            Some(Length::Exactly(3))
        );
        // Not sequences: a string, a struct, two sequences, an unclosed one.
        assert_eq!(len(r#""[1, 2]""#), None);
        assert_eq!(len("W([1, 2])"), None);
        assert_eq!(len("[1] + [2]"), None);
        assert_eq!(len("[1, 2"), None);
        assert_eq!(len(""), None);
        // An apostrophe that opens no character literal is just a character.
        assert_eq!(len("[it's, ok]"), Some(Length::Exactly(2)));
        assert_eq!(len("['"), None);
        // Cut by the log: the elements begun before the cut.
        let cut = invite::mr::truncated_debug(&vec![7u32; 100], 20);
        assert_eq!(len(&cut), Some(Length::AtLeast(7)), "{cut}");
        // Cut after a comma: pretty-printed text has one after its last element.
        let cut = invite::mr::truncated_debug(&vec!["a, b"; 100], 9);
        assert_eq!(len(&cut), Some(Length::AtLeast(1)), "{cut}");
        let cut = invite::mr::truncated_debug(&vec!["a, b"; 100], 10);
        assert_eq!(len(&cut), Some(Length::AtLeast(2)), "{cut}");
        assert_eq!(len("[1]… (truncated)"), None);
        assert_eq!(len("x… (truncated)"), None);
        assert_eq!(input_label("xs", "[1.0, 3.0]"), "xs (len 2)");
        assert_eq!(input_label("xs", &cut), "xs (len ≥ 2)");
        assert_eq!(input_label("s", "\"abc\""), "s");
    }

    #[test]
    fn the_width_is_the_terminal_s_else_the_default() {
        let never = || -> Option<u16> { panic!("not a terminal: no window to ask") };
        assert_eq!(width_from(false, Some("120"), never), DEFAULT_WIDTH);
        assert_eq!(width_from(true, Some("120"), || Some(90)), 120);
        assert_eq!(width_from(true, Some(" 72 "), || Some(90)), 72);
        assert_eq!(width_from(true, Some("wide"), || Some(90)), 90);
        assert_eq!(width_from(true, Some("0"), || Some(90)), 90);
        assert_eq!(width_from(true, None, || Some(90)), 90);
        assert_eq!(width_from(true, None, || Some(0)), DEFAULT_WIDTH);
        assert_eq!(width_from(true, None, || None), DEFAULT_WIDTH);
        // A terminal narrower than the report can be still gets the narrowest report.
        assert_eq!(width_from(true, None, || Some(20)), MIN_WIDTH);
        assert_eq!(width_from(true, Some("12"), || Some(90)), MIN_WIDTH);
    }

    #[test]
    fn a_failure_names_its_instance_where_the_log_gives_one() {
        let mut f = Failure {
            time: "2026-11-22T10:00:00Z".into(),
            instance: String::new(),
            host: "node-3".into(),
            pid: 41,
            run: 2,
            outcome: Outcome::Fail,
            inputs: Default::default(),
            detail: None,
            seeds: Seeds::default(),
        };
        let mut out = String::new();
        failure(&mut out, &f, 100);
        assert!(out.contains("on node-3:41 run 2"), "{out}");
        f.instance = "member-3".into();
        let mut out = String::new();
        failure(&mut out, &f, 100);
        assert!(out.contains("on member-3 (node-3:41) run 2"), "{out}");
        f.instance = "node-3-41-1795666315".into();
        let mut out = String::new();
        failure(&mut out, &f, 100);
        assert!(out.contains("on node-3:41 run 2"), "{out}");
    }

    const SITE: &str = "stats::median";
    /// Two relations whose texts start alike.
    const UP: &str = "median(&invite::mr::add(xs, 1.0)) == result + 1.0";
    const DOWN: &str = "median(&invite::mr::add(xs, -1.0)) == result - 1.0";

    fn failed(test: &str, run: u64, inputs: &[(&str, &str)], detail: &str) -> Record {
        Record::Test(Test {
            v: 1,
            time: format!("2026-11-22T10:0{run}:00.000000Z"),
            host: "h".into(),
            pid: 1,
            instance: String::new(),
            service: String::new(),
            version: String::new(),
            site: SITE.into(),
            test: test.into(),
            run,
            outcome: Outcome::Fail,
            parent_us: 100,
            duration_us: 10,
            inputs: inputs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            exact: Default::default(),
            detail: Some(detail.into()),
            seeds: Seeds {
                rng_seed: "ab".repeat(32),
                rng_stream: 0,
                rng_word_pos: 8,
                test_seed: run,
            },
        })
    }

    /// A 300-element vector's `Debug` text.
    fn long_vector() -> String {
        format!("{:?}", (0..300).map(|i| i as f64 + 0.5).collect::<Vec<_>>())
    }

    /// A token longer than any line.
    fn long_token() -> String {
        format!("\"{}\"", "x".repeat(150))
    }

    /// A stats record of the site: its call rate and cost, for the tuning.
    fn stats() -> Record {
        Record::Stats(Stats {
            v: 1,
            time: "2026-11-22T10:09:00.000000Z".into(),
            host: "h".into(),
            pid: 1,
            instance: String::new(),
            service: String::new(),
            version: String::new(),
            elapsed_s: 10.0,
            is_final: true,
            cow_faults: 0,
            cow_share: 0.0,
            children_share: 0.0,
            resident_mib: 0.0,
            log_errors: 0,
            log_lost: 0,
            sites: vec![SiteStats {
                site: SITE.into(),
                rho: 0.5,
                calls: 100,
                sampled: 10,
                skipped: SkipCounts {
                    concurrency: 4,
                    overhead: 3,
                    disabled: 0,
                    fork_failed: 0,
                    dedup: 2,
                    ring_full: 0,
                    unrun: 0,
                    unhidden: 0,
                },
                runs: 3,
                tests: 6,
                outcomes: OutcomeCounts::default(),
                mean_test_us: 0.0,
                mean_parent_us: 100.0,
                wait_us: 0,
                mean_wait_us: 0.0,
                tests_per_sec: 0.0,
                overhead_share: 0.0,
                run_share: 0.0,
            }],
        })
    }

    /// Failures of the two relations: a long vector and a long token under the first; the
    /// clue, a vector of even length, under the second; tuned.
    fn clue() -> Summary {
        let mut agg = Aggregator::new(3);
        let records = [
            stats(),
            failed(
                UP,
                1,
                &[("xs", &long_vector()), ("label", &long_token())],
                "median(&invite::mr::add(xs, 1.0)) = 150.5, result + 1.0 = 151.5\nleft != right",
            ),
            failed(DOWN, 2, &[("xs", "[1.0, 3.0]")], "3.0 != 1.0"),
        ];
        for r in records {
            agg.add_line(r.to_line().as_bytes()).unwrap();
        }
        let mut summary = agg.finish();
        summary.tuning = Some(crate::report::tuning::tune(
            &summary.sites,
            Some(0.01),
            None,
            1,
        ));
        summary
    }

    /// The lines of `report` after the one starting with `from`, up to the next line starting
    /// with `to`; blank lines left out.
    fn section<'a>(report: &'a str, from: &str, to: &str) -> Vec<&'a str> {
        report
            .lines()
            .skip_while(|l| !l.starts_with(from))
            .skip(1)
            .take_while(|l| !l.starts_with(to))
            .filter(|l| !l.is_empty())
            .collect()
    }

    /// Text without its whitespace: wrapped text and the text it wraps read the same.
    fn squeezed(text: &str) -> String {
        text.split_whitespace().collect()
    }

    /// What a failure's input is printed as: its label line and the lines under it, joined at
    /// their breaks.
    fn input_text(report: &str, label: &str) -> Option<String> {
        let lines: Vec<&str> = report.lines().collect();
        let first = format!("    input   {label}");
        let at = lines.iter().position(|l| l.starts_with(&first))?;
        let mut text = vec![&lines[at][LABEL..]];
        for line in &lines[at + 1..] {
            match line.strip_prefix(&" ".repeat(LABEL)) {
                Some(rest) => text.push(rest),
                None => break,
            }
        }
        Some(text.concat())
    }

    #[test]
    fn a_failure_s_inputs_are_printed_whole_one_to_a_line_with_their_length() {
        let s = clue();
        for width in [40, 41, 60, 79, 80, 100, 150, 400] {
            let report = render(&s, Paint(false), width);
            // The vector's elements are short: its lines break at spaces, joined by one.
            let lines: Vec<&str> = report.lines().collect();
            let at = lines
                .iter()
                .position(|l| l.starts_with("    input   xs (len 300) = [0.5, "))
                .unwrap_or_else(|| panic!("{width}:\n{report}"));
            let mut pieces = vec![&lines[at][LABEL..]];
            pieces.extend(
                lines[at + 1..]
                    .iter()
                    .map_while(|l| l.strip_prefix(&" ".repeat(LABEL))),
            );
            assert_eq!(
                pieces.join(" "),
                format!("xs (len 300) = {}", long_vector()),
                "{width}:\n{report}"
            );
            // The token longer than a line is split where lines end, nothing left out.
            assert_eq!(
                input_text(&report, "label = "),
                Some(format!("label = {}", long_token())),
                "{width}:\n{report}"
            );
            // The clue: a vector of two.
            assert!(
                report.contains("    input   xs (len 2) = [1.0, 3.0]\n"),
                "{width}:\n{report}"
            );
        }
    }

    /// Lines of a report wider than `width` that are not something to paste whole.
    fn too_wide(report: &str, width: usize) -> Vec<String> {
        let seed = "ab".repeat(32);
        let header = format!("[functions.{SITE:?}]");
        report
            .lines()
            .filter(|l| l.chars().count() > width)
            .filter(|l| l.trim() != seed && l.trim() != header)
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn no_line_is_wider_than_the_width_but_a_seed_to_paste() {
        let s = clue();
        for width in MIN_WIDTH..=130 {
            let report = render(&s, Paint(false), width);
            assert_eq!(
                too_wide(&report, width),
                Vec::<String>::new(),
                "{width}:\n{report}"
            );
            // The seed is whole on a line, after its label when it fits.
            let seed = "ab".repeat(32);
            if LABEL + seed.len() <= width {
                assert!(report.contains(&format!("    seed    {seed}\n")), "{width}");
            } else {
                assert!(
                    report.contains(&format!("    seed\n      {seed}\n")),
                    "{width}"
                );
            }
            // The tuned ρ is a line of its own to paste, its comment before it when both do
            // not fit one line.
            let tuning = section(&report, "# Paste into invite.toml:", "#!");
            let at = tuning
                .iter()
                .position(|l| l.starts_with("rho = "))
                .unwrap_or_else(|| panic!("{width}:\n{report}"));
            let (rho, note) = match tuning[at].split_once("  # ") {
                Some((rho, note)) => (rho.to_string(), note.to_string()),
                None => {
                    let note: Vec<&str> = tuning[1..at].iter().map(|l| &l[2..]).collect();
                    (tuning[at].to_string(), note.join(" "))
                }
            };
            assert!(note.starts_with("~"), "{width}:\n{report}");
            let one_line = format!("{rho}  # {note}");
            assert_eq!(
                tuning[at] == one_line,
                one_line.chars().count() <= width,
                "{width}:\n{report}"
            );
        }
    }

    #[test]
    fn relations_that_start_alike_are_told_apart_in_full() {
        let s = clue();
        for width in [40, 60, 80, 100] {
            let report = render(&s, Paint(false), width);
            // In the table, each relation is whole (its name's lines, read on).
            let table = section(&report, "Outcomes per site and test", "Sampling").join("\n");
            for relation in [UP, DOWN] {
                assert!(
                    squeezed(&table).contains(&squeezed(relation)),
                    "{width}: {relation}\n{report}"
                );
            }
            // Each failure's heading is its relation's own text, broken at spaces (its words
            // are shorter than a line) and indented under the first line.
            let failures = section(&report, "Failures", "Tuning");
            let mut headings: Vec<String> = Vec::new();
            for line in failures {
                if line.starts_with(SITE) {
                    headings.push(line.to_string());
                } else if let (Some(h), Some(rest)) = (headings.last_mut(), line.strip_prefix("  "))
                {
                    if !rest.starts_with(' ') && !rest.starts_with("fail at") {
                        h.push(' ');
                        h.push_str(rest);
                    }
                }
            }
            headings.sort();
            assert_eq!(
                headings,
                [
                    format!("{SITE}: {DOWN} (1 failing)"),
                    format!("{SITE}: {UP} (1 failing)")
                ],
                "{width}:\n{report}"
            );
        }
    }

    #[test]
    fn tables_keep_their_columns_where_they_fit_and_are_lists_where_not() {
        let s = clue();
        // Every count fits its head: the number columns are the heads and a space each.
        let numbers: usize = [
            "runs", "pass", "fail", "error", "t/o", "incon", "block", "skip",
        ]
        .iter()
        .map(|h| h.len() + 1)
        .sum();
        let narrow = render(&s, Paint(false), MIN_NAME + numbers - 1);
        let outcomes = section(&narrow, "Outcomes per site and test", "Sampling");
        assert_eq!(outcomes[0], SITE, "{narrow}");
        assert!(outcomes[1].starts_with("  runs "), "{narrow}");
        assert!(outcomes[1].contains("  fail 2  error 0  "), "{narrow}");
        assert!(!narrow.contains("site / test"), "{narrow}");
        let wide = render(&s, Paint(false), MIN_NAME + numbers);
        let outcomes = section(&wide, "Outcomes per site and test", "Sampling");
        assert!(outcomes[0].starts_with("site / test "), "{wide}");
        // Every row's numbers end where the heads do, on the last line of its name.
        let end = outcomes[0].chars().count();
        assert_eq!(end, MIN_NAME + numbers, "{wide}");
        let rows: Vec<&&str> = outcomes
            .iter()
            .filter(|l| l.ends_with(|c: char| c.is_ascii_digit()))
            .collect();
        assert_eq!(rows.len(), 3, "{wide}");
        assert!(rows.iter().all(|l| l.chars().count() == end), "{wide}");
        assert!(rows[0].starts_with(SITE), "{wide}");
        assert!(
            rows[1].starts_with("    ") && rows[2].starts_with("    "),
            "{wide}"
        );
        assert!(outcomes.last().unwrap().starts_with("    "), "{wide}");
        // Wide: names get what the longest needs, no more, and nothing wraps.
        let wider = render(&s, Paint(false), 200);
        let outcomes = section(&wider, "Outcomes per site and test", "Sampling");
        assert_eq!(
            outcomes[0].chars().count(),
            2 + DOWN.len() + numbers,
            "{wider}"
        );
        assert_eq!(outcomes.len(), 4, "{wider}");
        assert!(outcomes[2].starts_with(&format!("  {DOWN} ")), "{wider}");
    }

    #[test]
    fn the_header_the_costs_and_the_notes_say_what_the_log_holds() {
        let mut pass = failed(DOWN, 3, &[("xs", "[2.0]")], "");
        if let Record::Test(t) = &mut pass {
            t.outcome = Outcome::Pass;
            t.detail = None;
        }
        let mut agg = Aggregator::new(3);
        for r in [stats(), failed(UP, 1, &[("xs", "[1.0]")], "d"), pass] {
            agg.add_line(r.to_line().as_bytes()).unwrap();
        }
        let mut s = agg.finish();
        s.input.files = 1;
        let report = render(&s, Paint(false), 100);
        let lines: Vec<&str> = report.lines().collect();
        assert_eq!(
            lines[..3],
            [
                "Invite report: 3 records from 1 file, 1 instance",
                "From 2026-11-22 10:01:00 UTC to 2026-11-22 10:09:00 UTC",
                "1 instance(s) have no stop record (still running, killed or crashed)",
            ],
            "{report}"
        );
        let cost = section(&report, "Cost", "(caller:");
        assert_eq!(
            cost[1].split_whitespace().collect::<Vec<_>>(),
            [SITE, "10µs", "10µs", "10µs", "100µs", "0.2", "0.001%"],
            "{report}"
        );
        assert!(
            report.contains("\nstats::median: unseen-state testing saved 2 runs\n"),
            "{report}"
        );
        // Only the relation that failed has its failures listed, all of them.
        assert!(
            report.contains(&format!("\n{SITE}: {UP} (1 failing)\n")),
            "{report}"
        );
        assert!(!report.contains("(0 failing)"), "{report}");
        assert!(!report.contains("… and"), "{report}");
        // Two files and two instances, both stopped, one without a first time; nothing saved.
        s.input.files = 2;
        s.instances[0].stopped = true;
        let mut other = s.instances[0].clone();
        other.first = String::new();
        other.last = "2026-11-22T11:00:00.000000Z".into();
        s.instances.push(other);
        s.sites[0].skipped.dedup = 0;
        let report = render(&s, Paint(false), 100);
        let lines: Vec<&str> = report.lines().collect();
        assert_eq!(
            lines[..3],
            [
                "Invite report: 3 records from 2 files, 2 instances",
                "From 2026-11-22 10:01:00 UTC to 2026-11-22 11:00:00 UTC",
                "",
            ],
            "{report}"
        );
        assert!(!report.contains("unseen-state"), "{report}");
    }

    #[test]
    fn a_list_holds_as_many_numbers_to_a_line_as_fit() {
        let rows = [Row {
            depth: 1,
            name: "a relation".into(),
            cells: ["1", "22", "3"].map(|c| Cell::plain(c.into())).into(),
        }];
        let listed = |width: usize| {
            let mut out = String::new();
            list(&mut out, width, Paint(false), &["ab", "cd", "ef"], &rows);
            out
        };
        // "    ab 1  cd 22" is 15 columns.
        assert_eq!(listed(15), "  a relation\n    ab 1  cd 22\n    ef 3\n");
        assert_eq!(listed(14), "  a relation\n    ab 1\n    cd 22\n    ef 3\n");
        assert_eq!(listed(21), "  a relation\n    ab 1  cd 22  ef 3\n");
        assert_eq!(listed(20), "  a relation\n    ab 1  cd 22\n    ef 3\n");
    }

    #[test]
    fn colour_changes_no_layout() {
        let mut s = clue();
        // A pass too, to be green.
        s.sites[0].outcomes.pass = 1;
        for width in [40, 64, 100] {
            let coloured = render(&s, Paint(true), width);
            // Counts above zero are coloured, failures red and passes green; headings bold.
            let painted = |code: &str| -> Vec<&str> {
                coloured
                    .split("\x1b[")
                    .filter_map(|piece| piece.strip_prefix(code))
                    .map(str::trim)
                    .collect()
            };
            assert!(painted("31m").contains(&"2"), "{coloured}");
            assert!(painted("32m").contains(&"1"), "{coloured}");
            assert!(!painted("31m").contains(&"0"), "{coloured}");
            assert!(!painted("32m").contains(&"0"), "{coloured}");
            assert!(painted("1m").contains(&"Failures"), "{coloured}");
            let mut plain = String::new();
            let mut rest = coloured.as_str();
            while let Some(at) = rest.find("\x1b[") {
                plain.push_str(&rest[..at]);
                rest = &rest[at + rest[at..].find('m').unwrap() + 1..];
            }
            plain.push_str(rest);
            assert_eq!(plain, render(&s, Paint(false), width));
        }
    }

    #[test]
    fn times_and_shares_read_in_their_unit() {
        assert_eq!(micros(999.0), "999µs");
        assert_eq!(micros(1e3), "1.0ms");
        assert_eq!(micros(999_949.0), "999.9ms");
        assert_eq!(micros(1e6), "1.00s");
        assert_eq!(micros(2.5e6), "2.50s");
        assert_eq!(percent(0.0), "0.00%");
        assert_eq!(percent(0.0005), "0.050%");
        assert_eq!(percent(-0.0005), "-0.050%");
        assert_eq!(0.001 * 100.0, 0.1);
        assert_eq!(percent(0.001), "0.10%");
        assert_eq!(percent(0.25), "25.00%");
    }

    #[test]
    fn counts_fit_six_columns() {
        assert_eq!(count(99_999), "99999");
        assert_eq!(count(123_456), "123k");
        assert_eq!(count(12_345_678), "12.3M");
    }
}
