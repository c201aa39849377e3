//! `invite system`: metamorphic testing of a whole program, in any language, from outside.
//!
//! The original invocation runs first, exactly as the user would run it; then every relation's
//! follow-up runs on a transformed copy of the input, in parallel up to a limit, each in a
//! jail ([`jail`]) and its own temporary directory, and its output is judged against the
//! original's. Records go to the same JSON Lines log as the library's (one site per
//! specification, one test per relation), so `invite report` reads them.
//!
//! Unless asked to wait, invite returns the original's exit status as soon as the original
//! ends and runs the follow-ups in a detached process, so the caller waits no longer than for
//! the program alone.

pub mod data;
pub mod expect;
pub mod followup;
pub mod jail;
pub mod original;
pub mod spec;
pub mod step;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use invite::config::{Config, OnFailure, Source};
use invite::record::{
    self, Instance, Outcome, Record, Seeds, SiteInfo, Start, Stop, Test, REPLAY_INPUT,
};

use data::Data;
use followup::{Shared, Verdict};
use spec::{Output, Spec};

/// How `invite system` was asked to run.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Arguments appended to the spec's command.
    pub args: Vec<String>,
    /// Wait for the follow-ups and print a summary line on standard error.
    pub wait: bool,
    /// The seed of random transformations, to replay a run.
    pub seed: Option<u64>,
    /// Only this relation.
    pub only: Option<String>,
    /// Keep the work directory (printed in the summary).
    pub keep: bool,
}

/// The exit status for a specification or usage error.
const USAGE: u8 = 2;

/// Runs `invite system`; the exit status is the original's.
pub fn main(spec_path: &Path, opts: Options) -> ExitCode {
    let spec = match Spec::load(spec_path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("invite system: {e}");
            return ExitCode::from(USAGE);
        }
    };
    if let Some(name) = &opts.only {
        if !spec.relations.iter().any(|r| &r.name == name) {
            let names: Vec<&str> = spec.relations.iter().map(|r| r.name.as_str()).collect();
            eprintln!(
                "invite system: {} has no relation `{name}`; it has: {}",
                spec.path.display(),
                names.join(", ")
            );
            return ExitCode::from(USAGE);
        }
    }
    let settings = Settings::resolve(&spec);

    // The original, untouched.
    let output_file = match &spec.output {
        Output::Stdout => None,
        Output::File(p) => Some(p.as_path()),
    };
    let seed = opts.seed.or(spec.seed).unwrap_or_else(rand::random);
    let mut argv = spec::substitute(&spec.command, spec.input.as_deref(), output_file, seed);
    argv.extend(opts.args.iter().cloned());
    let stdin = match (&spec.input, spec.stdin) {
        (Some(input), true) => match std::fs::File::open(input) {
            Ok(f) => Some(f),
            Err(e) => {
                eprintln!("invite system: the input {}: {e}", input.display());
                return ExitCode::from(USAGE);
            }
        },
        _ => None,
    };
    let ended = match original::run(&argv, stdin) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("invite system: `{}` could not start: {e}", argv[0]);
            return ExitCode::from(127);
        }
    };
    let status = ended.status;
    // A file the original wrote is read now, before anyone changes it; its standard output is
    // made again in the sandbox (see `followup::source`).
    let output = match &spec.output {
        Output::Stdout => None,
        Output::File(p) => Some(std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))),
    };
    let job = Job {
        spec: &spec,
        opts: &opts,
        settings: &settings,
        seed,
    };
    if !status.success() {
        let why = format!(
            "not run: the original ended with {}",
            original::describe(status)
        );
        job.finish(&job.every(Outcome::Skipped, &why), None);
        return original::exit_like(status);
    }
    if opts.wait || settings.log == "-" {
        let verdicts = job.follow_ups(output);
        let failed = job.finish(&verdicts, Some(ended.wall));
        if failed && settings.on_failure == OnFailure::Abort {
            std::process::abort();
        }
        return original::exit_like(status);
    }
    // The process has one thread here, so the child may do anything; the parent only returns.
    match invite_sandbox::confine::fork_alone() {
        Some(true) => {
            invite_sandbox::confine::leave_session(settings.on_failure == OnFailure::Notify);
            let verdicts = job.follow_ups(output);
            job.finish(&verdicts, None);
            std::process::exit(0);
        }
        None => {
            let why = "not run: the follow-ups' process could not be started (fork failed)";
            job.finish(&job.every(Outcome::Skipped, why), None);
        }
        Some(false) => {}
    }
    original::exit_like(status)
}

/// Where records go and what a failure does: the spec's keys, else invite.toml's.
struct Settings {
    log: String,
    on_failure: OnFailure,
}

impl Settings {
    fn resolve(spec: &Spec) -> Settings {
        let config = match Source::from_env() {
            Source::File(path) => Config::from_file(&path).unwrap_or_else(|e| {
                eprintln!("invite system: {e} (using the defaults)");
                Config::default()
            }),
            _ => Config::default(),
        };
        Settings {
            log: spec.log.clone().unwrap_or(config.log),
            on_failure: spec.on_failure.unwrap_or(config.on_failure),
        }
    }
}

struct Job<'a> {
    spec: &'a Spec,
    opts: &'a Options,
    settings: &'a Settings,
    seed: u64,
}

impl Job<'_> {
    /// The relations this invocation checks, with their indices in the spec.
    fn relations(&self) -> impl Iterator<Item = (usize, &spec::Relation)> {
        self.spec
            .relations
            .iter()
            .enumerate()
            .filter(|(_, r)| self.opts.only.as_ref().is_none_or(|o| o == &r.name))
    }

    /// Every relation checked here, with one verdict.
    fn every(&self, outcome: Outcome, why: &str) -> Vec<(usize, Verdict)> {
        self.relations()
            .map(|(i, _)| {
                let detail = Some(why.to_string());
                let duration = Default::default();
                (
                    i,
                    Verdict {
                        outcome,
                        detail,
                        duration,
                    },
                )
            })
            .collect()
    }

    /// Runs every follow-up, at most `parallel` at once; each relation's verdict.
    fn follow_ups(&self, output: Option<Result<Vec<u8>, String>>) -> Vec<(usize, Verdict)> {
        let spec = self.spec;
        let abi = jail::landlock_abi();
        if let Some(why) = jail::unavailable(spec.sandbox, abi) {
            return self.every(Outcome::Error, &why);
        }
        let work = match tempfile::Builder::new().prefix("invite-system-").tempdir() {
            Ok(w) => w,
            Err(e) => return self.every(Outcome::Error, &format!("no work directory: {e}")),
        };
        // Whatever a follow-up leaves running is re-parented here, and killed below.
        invite_sandbox::confine::become_subreaper();
        // The original's output file, read when it ended; or its standard output, made again
        // in the sandbox, where a hang is a timeout like a follow-up's.
        let output = match output {
            Some(read) => read.map_err(|why| (Outcome::Error, why)),
            None => {
                let dir = work.path().join("original");
                followup::source(spec, &self.opts.args, abi, &dir, self.seed)
            }
        };
        kill_leftovers();
        let output_bytes = match output {
            Ok(b) => b,
            Err((outcome, why)) => return self.every(outcome, &why),
        };
        let output = match Data::parse(&output_bytes, spec.format, spec.output_header) {
            Ok(d) => d,
            Err(e) => {
                return self.every(
                    Outcome::Error,
                    &format!("the original's output is not {:?}: {e}", spec.format),
                )
            }
        };
        let input = match &spec.input {
            None => None,
            Some(p) => match std::fs::read(p)
                .map_err(|e| e.to_string())
                .and_then(|b| Data::parse(&b, spec.format, spec.header))
            {
                Ok(d) => Some(d),
                Err(e) => {
                    return self.every(Outcome::Error, &format!("the input {}: {e}", p.display()));
                }
            },
        };
        let shared = Shared {
            spec,
            input,
            output,
            output_bytes: &output_bytes,
            args: &self.opts.args,
            abi,
            seed: self.seed,
        };
        // `parallel` workers take the relations in turn.
        let todo: Vec<(usize, &spec::Relation)> = self.relations().collect();
        let (next, done) = (
            AtomicUsize::new(0),
            Mutex::new(Vec::with_capacity(todo.len())),
        );
        std::thread::scope(|s| {
            for _ in 0..spec.parallel.min(todo.len()) {
                s.spawn(|| {
                    while let Some(&(i, rel)) = todo.get(next.fetch_add(1, Ordering::Relaxed)) {
                        let dir = work.path().join(format!("relation-{}", i + 1));
                        let seed = followup::relation_seed(self.seed, i);
                        let verdict = followup::run(&shared, rel, seed, &dir);
                        done.lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .push((i, verdict));
                    }
                });
            }
        });
        let mut verdicts = done.into_inner().unwrap_or_else(|e| e.into_inner());
        verdicts.sort_by_key(|(i, _)| *i);
        kill_leftovers();
        if self.opts.keep {
            let kept = work.keep();
            for (_, v) in &mut verdicts {
                let note = format!("work directory kept: {}", kept.display());
                v.detail = Some(
                    v.detail
                        .take()
                        .map_or(note.clone(), |d| format!("{d}; {note}")),
                );
            }
        }
        verdicts
    }

    /// Writes the records, acts on failures; whether any relation failed.
    fn finish(
        &self,
        verdicts: &[(usize, Verdict)],
        original_wall: Option<std::time::Duration>,
    ) -> bool {
        let spec = self.spec;
        let host = record::hostname();
        let pid = std::process::id();
        let instance = std::env::var("INVITE_INSTANCE")
            .ok()
            .filter(|v| invite::config::check_label(v).is_ok())
            .unwrap_or_else(|| format!("{host}-{pid}"));
        let mut lines = vec![Record::Start(Start {
            v: record::VERSION,
            time: record::now(),
            instance: Instance {
                host: host.clone(),
                pid,
                exe: spec.command[0].clone(),
                id: instance.clone(),
                service: spec.name.clone(),
                version: String::new(),
            },
            config_file: spec.path.display().to_string(),
            config: serde_json::json!({
                "system": spec.path.display().to_string(),
                "command": spec.command,
                "sandbox": format!("{:?}", spec.sandbox).to_lowercase(),
                "landlock_abi": jail::landlock_abi(),
                "parallel": spec.parallel,
            }),
            sites: vec![SiteInfo {
                name: spec.name.clone(),
                file: spec.path.display().to_string(),
                line: 1,
                rho: 1.0,
                tests: self.relations().map(|(_, r)| r.name.clone()).collect(),
                params: None,
                path: None,
            }],
            shard: None,
        })];
        let mut inputs = BTreeMap::new();
        if let Some(i) = &spec.input {
            inputs.insert("input".to_string(), i.display().to_string());
        }
        if !self.opts.args.is_empty() {
            inputs.insert("args".to_string(), self.opts.args.join(" "));
        }
        let mut failed = 0;
        for (i, v) in verdicts {
            let rel = &spec.relations[*i];
            let detail = v.detail.clone();
            let mut inputs = inputs.clone();
            if v.outcome.is_failure() {
                failed += 1;
                let replay = format!(
                    "invite system {} --seed {} --relation '{}' --wait{}",
                    spec.path.display(),
                    self.seed,
                    rel.name,
                    if self.opts.args.is_empty() {
                        String::new()
                    } else {
                        format!(" -- {}", self.opts.args.join(" "))
                    }
                );
                if self.settings.on_failure == OnFailure::Notify {
                    eprintln!(
                        "invite: {} / {} {}: {}; replay: {replay}",
                        spec.name,
                        rel.name,
                        v.outcome.as_str(),
                        detail.as_deref().unwrap_or("")
                    );
                }
                inputs.insert(REPLAY_INPUT.to_string(), replay);
            }
            lines.push(Record::Test(Test {
                v: record::VERSION,
                time: record::now(),
                host: host.clone(),
                pid,
                instance: instance.clone(),
                service: spec.name.clone(),
                version: String::new(),
                site: spec.name.clone(),
                test: rel.name.clone(),
                run: 1,
                outcome: v.outcome,
                parent_us: 0,
                duration_us: v.duration.as_micros() as u64,
                inputs,
                exact: Default::default(),
                detail,
                seeds: Seeds {
                    test_seed: self.seed,
                    ..Seeds::default()
                },
            }));
        }
        lines.push(Record::Stop(Stop {
            v: record::VERSION,
            time: record::now(),
            host,
            pid,
            instance,
            service: spec.name.clone(),
            version: String::new(),
            drained: verdicts.len() as u64,
            killed: 0,
        }));
        let written = invite::append_to_log(&self.settings.log, &lines);
        if self.opts.wait {
            let counts = count(verdicts);
            eprintln!(
                "invite system: {} relation{}: {counts}{}; log {}{}",
                verdicts.len(),
                if verdicts.len() == 1 { "" } else { "s" },
                original_wall.map_or(String::new(), |w| format!(
                    "; the original took {}",
                    humantime::format_duration(std::time::Duration::from_millis(
                        w.as_millis() as u64
                    ))
                )),
                self.settings.log,
                match &written {
                    Ok(()) => String::new(),
                    Err(e) => format!(" (not written: {e})"),
                }
            );
        } else if let Err(e) = &written {
            eprintln!("invite system: log {}: {e}", self.settings.log);
        }
        failed > 0
    }
}

/// "2 pass, 1 fail" in the report's order.
fn count(verdicts: &[(usize, Verdict)]) -> String {
    let parts: Vec<String> = Outcome::ALL
        .iter()
        .filter_map(|o| {
            let n = verdicts.iter().filter(|(_, v)| v.outcome == *o).count();
            (n > 0).then(|| format!("{n} {}", o.as_str()))
        })
        .collect();
    parts.join(", ")
}

/// Kills and reaps whatever the follow-ups left behind: processes re-parented to this one, a
/// child subreaper.
fn kill_leftovers() {
    loop {
        for pid in children() {
            invite_sandbox::confine::kill(pid);
        }
        // No other code of this process waits for children now.
        match invite_sandbox::confine::reap_any() {
            Some(false) => std::thread::sleep(std::time::Duration::from_millis(1)),
            Some(true) => {}
            None => return,
        }
    }
}

/// This process's children, from /proc.
fn children() -> Vec<i32> {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return Vec::new();
    };
    tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("children")).ok())
        .flat_map(|s| {
            s.split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect::<Vec<i32>>()
        })
        .collect()
}
