//! `invite discover`: the relations that held on the observations a program recorded with
//! `#[invite::discover]`, per site, ready to paste into `#[invite::metamorphic(...)]`.

use std::collections::BTreeMap;
use std::io::Write;

use invite::discover::{propose_observed, Observation, Proposals, Suspect};
use invite::record::Record;

use crate::report::read::{self, Location};
use crate::report::shipped::{self, Shipped};

/// How the proposals are printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Per site, each relation with its evidence.
    Text,
    /// An array of objects: `site`, `relation`, `inputs`, `held`, `detects`, `perturbations`,
    /// and `tolerance` where a relation needs more than a site's default.
    Json,
    /// The ready attributes, one per site.
    Rust,
}

/// What `invite discover` is asked.
pub struct Options {
    /// Log files, directories of `*.jsonl` logs, or `-`.
    pub paths: Vec<String>,
    /// Distinct inputs a relation must hold on before it is proposed.
    pub min_inputs: usize,
    /// How to print.
    pub format: Format,
    /// Every proposal, not only the representative set.
    pub all: bool,
}

/// Reads the logs, proposes, prints. Returns the exit status: 0 when it printed proposals (or
/// found observations that propose nothing yet), 1 when the logs hold no observation, 2 when
/// a log cannot be read.
pub fn run(opts: &Options, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let inputs = match read::resolve(&opts.paths) {
        Ok(i) => i,
        Err(e) => {
            let _ = writeln!(err, "invite discover: {e}");
            return 2;
        }
    };
    // Each site's observations, under the signature they were recorded with.
    let mut sites: BTreeMap<(String, String), Vec<Observation>> = BTreeMap::new();
    let mut bad = 0u64;
    let mut first_bad: Option<String> = None;
    let mut damaged = Vec::new();
    let read = read::for_each_line(
        &inputs,
        |line, at: &Location| {
            let mut observed = |line: &[u8]| {
                // Only observation records are parsed in full; the rest of the log is skipped.
                if !contains(line, br#""kind":"observation""#) {
                    return;
                }
                match std::str::from_utf8(line)
                    .map_err(|e| e.to_string())
                    .and_then(|l| Record::from_line(l).map_err(|e| e.to_string()))
                {
                    Ok(Record::Observation(o)) => sites
                        .entry((o.site, o.signature))
                        .or_default()
                        .push(o.observation),
                    Ok(_) => {}
                    Err(e) => {
                        bad += 1;
                        first_bad.get_or_insert_with(|| format!("{}:{}: {e}", at.file, at.line));
                    }
                }
            };
            match shipped::unwrap(line) {
                Shipped::Plain => observed(line),
                Shipped::Wrapped { records, .. } => {
                    records.iter().for_each(|r| observed(r.as_bytes()))
                }
            }
            Ok(())
        },
        |_, _| Ok(()),
        |_| {},
        |e| damaged.push(e.to_string()),
    );
    for e in damaged {
        let _ = writeln!(err, "invite discover: {e}");
    }
    if let Err(e) = read {
        let _ = writeln!(err, "invite discover: {e}");
        return 2;
    }
    if let Some(first) = first_bad {
        let _ = writeln!(
            err,
            "invite discover: skipped {bad} malformed observation record(s); the first: {first}"
        );
    }
    if sites.is_empty() {
        let _ = writeln!(
            err,
            "invite discover: no observation records in {}: put #[invite::discover] (or \
             `discover = true` in #[invite::metamorphic]) on a function, run the program, and \
             read its log",
            opts.paths.join(", ")
        );
        return 1;
    }
    let mut all = Proposals::default();
    let mut suspected: Vec<Suspect> = Vec::new();
    let mut notes = Vec::new();
    for ((site, signature), observations) in &sites {
        match propose_observed(site, signature, observations, opts.min_inputs) {
            Ok(found) => {
                if found.mismatched > 0 {
                    notes.push(format!(
                        "{site}: left out {} observation(s) recorded by another version of the \
                         function or of invite",
                        found.mismatched
                    ));
                }
                if found.proposals.0.is_empty() {
                    notes.push(if found.distinct_inputs < opts.min_inputs {
                        format!(
                            "{site}: {} observation(s) of {} distinct input(s), fewer than \
                             --min-inputs {}: nothing proposed yet; run longer, raise ρ, or \
                             lower --min-inputs",
                            found.observations, found.distinct_inputs, opts.min_inputs
                        )
                    } else {
                        format!(
                            "{site}: {} observation(s) of {} distinct input(s); no candidate \
                             relation held on all of them and caught a wrong output",
                            found.observations, found.distinct_inputs
                        )
                    });
                }
                // The representative set of each site and signature on its own: their
                // evidence is of different observations.
                let shown = if opts.all {
                    found.proposals.clone()
                } else {
                    found.proposals.representative()
                };
                let left = found.proposals.0.len() - shown.0.len();
                if left > 0 {
                    notes.push(format!(
                        "{site}: {left} more relation(s) left out, each catching no wrong output \
                         on no input that those shown do not; --all shows them"
                    ));
                }
                all.0.extend(shown.0);
                suspected.extend(found.suspects);
            }
            Err(e) => notes.push(e.to_string()),
        }
    }
    let printed = match opts.format {
        Format::Text => {
            let text = if all.0.is_empty() {
                String::new()
            } else {
                all.to_string()
            };
            let suspects = suspects_text(&suspected);
            let notes: String = notes.iter().map(|n| format!("note: {n}\n")).collect();
            write!(out, "{text}{suspects}{notes}")
        }
        Format::Json => writeln!(out, "{}", all.to_json()),
        Format::Rust => write!(out, "{}", all.to_rust()),
    };
    if opts.format != Format::Text {
        if !suspected.is_empty() {
            notes.push(format!(
                "{} suspected defect(s): relations that held on most inputs and failed on one \
                 kind of them; --format text shows them",
                suspected.len()
            ));
        }
        for n in &notes {
            let _ = writeln!(err, "invite discover: {n}");
        }
    }
    match printed {
        Ok(()) => 0,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(e) => {
            let _ = writeln!(err, "invite discover: cannot write the proposals: {e}");
            2
        }
    }
}

/// The suspected defects, apart from the proposals: not relations to paste, but a kind of
/// input on which one failed, for a person to call a guard or a bug.
fn suspects_text(suspected: &[Suspect]) -> String {
    if suspected.is_empty() {
        return String::new();
    }
    let mut text = format!(
        "\nsuspected defects: {} relation(s) held on most inputs and failed on one kind of \
         them; a bug there, or a guard to write\n",
        suspected.len()
    );
    for s in suspected {
        text += &format!("{s}\n");
    }
    text
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}
