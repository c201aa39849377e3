//! The `invite` command: `report` turns logs into findings and tuned sampling rates;
//! `discover` proposes relations from recorded observations; `system` checks a whole
//! program's relations from outside; `check-config` validates an `invite.toml`.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use invite::config::Config;
use invite::record::{Outcome, Record};
use invite_cli::discover;
use invite_cli::report::{self, Format, Options};
use invite_cli::system;

#[derive(Parser)]
#[command(
    name = "invite",
    version,
    about = "Reports on invite logs, proposes relations from them, and checks invite.toml"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum FormatArg {
    Text,
    Json,
    Html,
}

#[derive(Clone, Copy, ValueEnum)]
enum DiscoverFormat {
    Text,
    Json,
    Rust,
}

#[derive(Subcommand)]
enum Command {
    /// Summarise logs: outcomes, failures with what replays them, costs, and tuned ρ.
    #[command(group(clap::ArgGroup::new("target")
        .args(["target_overhead", "target_tests_per_min"])
        .multiple(true)))]
    Report {
        /// Log files (plain, .gz or .zst; lines of invite's log, or Docker, logcli or
        /// OpenTelemetry Collector JSON holding them), directories (every *.jsonl, *.json and
        /// *.log below, compressed too), quoted patterns ('logs/*/invite*.jsonl*') or `-` for
        /// stdin; default: the `log` that $INVITE_CONFIG or ./invite.toml names, else
        /// invite-log.jsonl.
        paths: Vec<String>,
        #[arg(long, value_enum, default_value = "text")]
        format: FormatArg,
        /// Fail on the first bad line instead of skipping it.
        #[arg(long)]
        strict: bool,
        /// Recommend ρ per site so that starting tests costs at most this share of wall time
        /// (for example 0.01), split evenly between sites.
        #[arg(long, value_parser = share)]
        target_overhead: Option<f64>,
        /// Recommend ρ per site for this many tests per minute of each site over all the
        /// instances (see --instances).
        #[arg(long, value_parser = positive)]
        target_tests_per_min: Option<f64>,
        /// The instances that share --target-tests-per-min, each sampling at the recommended ρ;
        /// default: as many as the logs name.
        #[arg(long, value_name = "N", value_parser = instances, requires = "target_tests_per_min")]
        instances: Option<u64>,
        /// Also write the recommended ρ to FILE, as an invite.toml of [functions."…"] tables
        /// that the fleet can reload (replaced whole; a file it did not write is left alone).
        #[arg(long, value_name = "FILE", requires = "target")]
        write_config: Option<PathBuf>,
        /// Threads that parse the logs; default: one per core.
        #[arg(long, value_name = "N", value_parser = at_least_one)]
        threads: Option<usize>,
        /// Failures listed per test.
        #[arg(long, default_value_t = 3)]
        failures: usize,
        /// Colour in text output: auto (on a terminal without NO_COLOR), always, never.
        #[arg(long, default_value = "auto", value_parser = ["auto", "always", "never"])]
        color: String,
        /// Exit with status 3 after the report if any test ended in one of these outcomes,
        /// comma-separated (for CI): fail, error, timeout, blocked, inconclusive, skipped, pass.
        #[arg(long, value_delimiter = ',', value_parser = outcome)]
        fail_on: Vec<Outcome>,
        /// Also write one regression test per defect (site, relation, outcome) to this file, a
        /// module of the crate that holds the functions, on the smallest failing input, shrunk
        /// by running the tests once in that crate; `-` for stdout (only the tests, unshrunk).
        #[arg(long, value_name = "FILE")]
        emit_tests: Option<PathBuf>,
        /// With --emit-tests: write the smallest logged inputs as they are, without running
        /// `cargo test` to shrink them.
        #[arg(long, requires = "emit_tests")]
        no_shrink: bool,
        /// Columns of the text report (at least 40); default: the terminal's ($COLUMNS, else
        /// the window's), else 100.
        #[arg(long, value_name = "COLUMNS", value_parser = width)]
        width: Option<usize>,
    },
    /// Propose metamorphic relations from the observations #[invite::discover] recorded.
    Discover {
        /// Log files, directories (every *.jsonl inside) or `-` for stdin; default: the `log`
        /// that $INVITE_CONFIG or ./invite.toml names, else invite-log.jsonl.
        paths: Vec<String>,
        /// Distinct inputs a relation must hold on, with no violation, to be proposed.
        #[arg(long, default_value_t = invite::discover::DEFAULT_MIN_INPUTS, value_parser = at_least_one)]
        min_inputs: usize,
        /// text: each relation with its evidence; json: an array of objects; rust: the
        /// attributes, ready to paste.
        #[arg(long, value_enum, default_value = "text")]
        format: DiscoverFormat,
        /// Every proposal; by default only the representative set, the fewest that together
        /// catch every wrong output any proposal catches.
        #[arg(long)]
        all: bool,
    },
    /// Run a whole program and check its metamorphic relations: the original invocation
    /// runs untouched (output, errors, exit status), then each relation's follow-up runs on
    /// transformed input in a sandbox, and the verdicts go to the log.
    System {
        /// The specification (TOML): command, input, output, format and [[relation]]s.
        spec: PathBuf,
        /// Arguments appended to the spec's command.
        #[arg(last = true)]
        args: Vec<String>,
        /// Wait for the follow-ups and print one summary line on stderr (default: they run
        /// on, detached, and invite exits as soon as the program does).
        #[arg(long)]
        wait: bool,
        /// Seed of random transformations (`permute`): replays a recorded run.
        #[arg(long)]
        seed: Option<u64>,
        /// Check only this relation.
        #[arg(long, value_name = "NAME")]
        relation: Option<String>,
        /// Keep the follow-ups' work directory (named in each relation's record).
        #[arg(long)]
        keep: bool,
        /// Only validate the specification; run nothing.
        #[arg(long)]
        check: bool,
    },
    /// Validate an invite.toml with the runtime's own messages.
    CheckConfig {
        /// The file; default $INVITE_CONFIG, else ./invite.toml.
        path: Option<PathBuf>,
        /// Warn about [functions."…"] entries that name no site in this log's start records.
        #[arg(long)]
        log: Option<PathBuf>,
    },
}

fn share(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("`{s}` is not a number"))?;
    if v > 0.0 && v <= 1.0 {
        Ok(v)
    } else {
        Err(format!(
            "expected a share of wall time above 0 and at most 1 (0.01 is 1%), got {v}"
        ))
    }
}

fn width(s: &str) -> Result<usize, String> {
    let min = report::text::MIN_WIDTH;
    match s.parse::<usize>() {
        Ok(n) if n >= min => Ok(n),
        _ => Err(format!(
            "expected a whole number of columns, {min} or more, got `{s}`; \
             give --width {min} or more, or leave --width out for the terminal's width"
        )),
    }
}

fn outcome(s: &str) -> Result<Outcome, String> {
    Outcome::ALL
        .into_iter()
        .find(|o| o.as_str() == s)
        .ok_or_else(|| {
            let names: Vec<&str> = Outcome::ALL.iter().map(|o| o.as_str()).collect();
            format!("`{s}` is not an outcome; use {}", names.join(", "))
        })
}

/// The configuration file the runtime reads: `$INVITE_CONFIG`, else `./invite.toml`.
fn config_path() -> PathBuf {
    std::env::var_os("INVITE_CONFIG")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("invite.toml"))
}

/// The paths given, or else the configured log; `None` (said on stderr, as `command`) when
/// none is given and the configuration names no log file.
fn paths_or_log(paths: Vec<String>, command: &str) -> Option<Vec<String>> {
    if !paths.is_empty() {
        return Some(paths);
    }
    match configured_log() {
        Ok(log) => Some(vec![log]),
        Err(e) => {
            eprintln!("invite {command}: {e}");
            None
        }
    }
}

/// The log the configuration names, for `report` without paths: `$INVITE_CONFIG`, else
/// `./invite.toml`, else the default log file.
fn configured_log() -> Result<String, String> {
    let path = config_path();
    let log = if path.exists() {
        let config = Config::from_file(&path).map_err(|e| e.to_string())?;
        config.log
    } else {
        Config::default().log
    };
    if log == "-" {
        return Err(format!(
            "{}: log = \"-\" writes to stderr; name the log file to report on",
            path.display()
        ));
    }
    Ok(log)
}

fn instances(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!(
            "expected a whole number of instances, 1 or more, got `{s}`"
        )),
    }
}

fn at_least_one(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("expected a whole number of 1 or more, got `{s}`")),
    }
}

fn positive(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("`{s}` is not a number"))?;
    if v > 0.0 && v.is_finite() {
        Ok(v)
    } else {
        Err(format!("expected a number above 0, got {v}"))
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Report {
            paths,
            format,
            strict,
            target_overhead,
            target_tests_per_min,
            instances,
            write_config,
            threads,
            failures,
            color,
            fail_on,
            emit_tests,
            no_shrink,
            width,
        } => {
            let Some(paths) = paths_or_log(paths, "report") else {
                return ExitCode::from(2);
            };
            if let Some(file) = &emit_tests {
                let code = emit(&paths, file, !no_shrink);
                if code != 0 || file.as_os_str() == "-" {
                    return ExitCode::from(code as u8);
                }
            }
            let opts = Options {
                paths,
                format: match format {
                    FormatArg::Text => Format::Text,
                    FormatArg::Json => Format::Json,
                    FormatArg::Html => Format::Html,
                },
                strict,
                target_overhead,
                target_tests_per_min,
                instances,
                write_config,
                threads: threads.unwrap_or_else(report::read::default_threads),
                failures,
                colour: match color.as_str() {
                    "always" => Some(true),
                    "never" => Some(false),
                    _ => None,
                },
                fail_on,
                width,
            };
            report::run(
                &opts,
                &mut std::io::stdout().lock(),
                &mut std::io::stderr().lock(),
            )
        }
        Command::Discover {
            paths,
            min_inputs,
            format,
            all,
        } => {
            let Some(paths) = paths_or_log(paths, "discover") else {
                return ExitCode::from(2);
            };
            let opts = discover::Options {
                paths,
                min_inputs,
                format: match format {
                    DiscoverFormat::Text => discover::Format::Text,
                    DiscoverFormat::Json => discover::Format::Json,
                    DiscoverFormat::Rust => discover::Format::Rust,
                },
                all,
            };
            discover::run(
                &opts,
                &mut std::io::stdout().lock(),
                &mut std::io::stderr().lock(),
            )
        }
        Command::CheckConfig { path, log } => check_config(path, log),
        Command::System {
            spec,
            args,
            wait,
            seed,
            relation,
            keep,
            check,
        } => {
            if check {
                return match system::spec::Spec::load(&spec) {
                    Ok(s) => {
                        println!("{}: {} relations, valid", spec.display(), s.relations.len());
                        ExitCode::SUCCESS
                    }
                    Err(e) => {
                        eprintln!("invite system: {e}");
                        ExitCode::from(2)
                    }
                };
            }
            let opts = system::Options {
                args,
                wait,
                seed,
                only: relation,
                keep,
            };
            return system::main(&spec, opts);
        }
    };
    ExitCode::from(code as u8)
}

/// Writes the regression tests of the logs' defects to `file` (`-`: stdout), then, with
/// `shrink`, runs them once in the file's package to shrink their inputs and writes them again.
fn emit(paths: &[String], file: &std::path::Path, shrink: bool) -> i32 {
    use report::emit;
    let (defects, params) = match emit::defects_from_logs(paths) {
        Ok(found) => found,
        Err(e) => {
            eprintln!("invite report: {e}");
            return 2;
        }
    };
    let mut emitted = emit::emit(&defects, &params, &Default::default());
    let to_stdout = file.as_os_str() == "-";
    let write = |source: &str| {
        let written = if to_stdout {
            std::io::Write::write_all(&mut std::io::stdout().lock(), source.as_bytes())
        } else {
            std::fs::write(file, source)
        };
        written.map_err(|e| eprintln!("invite report: cannot write {}: {e}", file.display()))
    };
    let failures: u64 = defects.values().map(|d| d.count).sum();
    let shrink_in = (shrink && !to_stdout && !emitted.shrinkable.is_empty())
        .then(|| report::shrink::package_of(file))
        .flatten();
    // Written first as logged: a shrink that cannot run leaves a file that works.
    if write(&emitted.source).is_err() {
        return 2;
    }
    eprintln!(
        "invite report: wrote {} regression test(s), one per defect, for {failures} failure(s), \
         to {}",
        emitted.tests,
        file.display()
    );
    for s in &emitted.skipped {
        eprintln!("  not emitted: {s}");
    }
    if shrink && !to_stdout && !emitted.shrinkable.is_empty() {
        match &shrink_in {
            None => eprintln!(
                "invite report: inputs not shrunk: no Cargo.toml above {} (--no-shrink to \
                 silence this)",
                file.display()
            ),
            Some(package) => {
                eprintln!(
                    "invite report: shrinking the inputs of {} test(s): cargo test in {}",
                    emitted.shrinkable.len(),
                    package.display()
                );
                match report::shrink::run(package, file, &emitted.shrinkable) {
                    Err(e) => eprintln!("invite report: inputs not shrunk: {e}"),
                    Ok(shrunk) => {
                        for r in shrunk.values() {
                            eprintln!(
                                "  {}: {} ({} tr{})",
                                r.test,
                                emit::shrink_summary(r),
                                r.tries,
                                if r.tries == 1 { "y" } else { "ies" }
                            );
                        }
                        emitted = emit::emit(&defects, &params, &shrunk);
                        if write(&emitted.source).is_err() {
                            return 2;
                        }
                    }
                }
            }
        }
    }
    0
}

fn check_config(path: Option<PathBuf>, log: Option<PathBuf>) -> i32 {
    let path = path.unwrap_or_else(config_path);
    let config = match Config::from_file(&path) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("invite: {e}");
            return 1;
        }
    };
    println!(
        "{}: ok ({} site entries)",
        path.display(),
        config.functions.len()
    );
    let Some(log) = log else { return 0 };
    let text = match std::fs::read(&log) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("invite: {}: cannot read the log: {e}", log.display());
            return 2;
        }
    };
    let mut sites = BTreeSet::new();
    let mut started = false;
    for line in text.split(|b| *b == b'\n') {
        let Ok(line) = std::str::from_utf8(line) else {
            continue;
        };
        match Record::from_line(line) {
            Ok(Record::Start(s)) => {
                started = true;
                sites.extend(s.sites.into_iter().map(|s| s.name));
            }
            Ok(Record::Site(s)) => {
                sites.insert(s.info.name);
            }
            _ => {}
        }
    }
    if !started {
        eprintln!(
            "invite: {}: no start record, so no site list to compare with",
            log.display()
        );
        return 1;
    }
    let unmatched = config.unmatched_entries(sites.iter().map(String::as_str));
    for (name, meant) in &unmatched {
        match meant {
            Some(c) => eprintln!(
                "warning: {}: [functions.{name:?}] matches no site in {}; did you mean {c:?}?",
                path.display(),
                log.display()
            ),
            None => eprintln!(
                "warning: {}: [functions.{name:?}] matches no site in {}",
                path.display(),
                log.display()
            ),
        }
    }
    let unknown = unmatched.len();
    if unknown == 0 {
        println!("every [functions] entry names a site in {}", log.display());
    }
    0
}
