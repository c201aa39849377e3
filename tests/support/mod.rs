//! Scenarios: each test runs its body in a fresh process of this test binary, under its own
//! `invite.toml`, and then inspects that process's exit status, output and log.
//!
//! A separate process per scenario is the only honest way to test invite: its configuration is
//! read once per process, it forks, it drains at exit, and several hazards concern the host
//! process itself (its buffered output, its signal handlers, its other threads). The same test
//! function plays both parts: spawned with `INVITE_SCENARIO` naming it, it runs the body;
//! otherwise it spawns itself and checks the result.

#![allow(dead_code)]

use std::cell::Cell;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{Duration, Instant};

use invite::record::{Outcome, Record, Stats, Test};

/// Marks where the body's own output starts on stdout.
const BEGIN: &str = "@@INVITE-SCENARIO-BEGIN\n";

/// What a scenario process did.
///
/// A scenario whose process failed fails its test when the `Run` is dropped, unless the test
/// asked how it ended ([`Run::signal`]): the body's own assertions run in that process, so a
/// test that never looked at the status could not fail.
pub struct Run {
    status: ExitStatus,
    /// Set once the test has looked at how the process ended.
    status_read: std::cell::Cell<bool>,
    /// The body's standard output, from its first byte to the process's exit.
    pub stdout: String,
    pub stderr: String,
    pub dir: PathBuf,
    pub log: Vec<String>,
}

/// A scenario's directory (its configuration, log and any files its tests made) is removed
/// with its `Run`, unless the test is failing: then it is kept, and named, for inspection.
impl Drop for Run {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("scenario files kept for inspection: {}", self.dir.display());
            return;
        }
        if !self.status.success() && !self.status_read.get() {
            panic!(
                "scenario failed: {}\nscenario files kept for inspection: {}",
                self.describe(),
                self.dir.display()
            );
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Run {
    pub fn records(&self) -> Vec<Record> {
        self.log
            .iter()
            .map(|l| Record::from_line(l).unwrap_or_else(|e| panic!("bad log line {l:?}: {e}")))
            .collect()
    }

    pub fn tests(&self) -> Vec<Test> {
        self.records()
            .into_iter()
            .filter_map(|r| match r {
                Record::Test(t) => Some(t),
                _ => None,
            })
            .collect()
    }

    /// Tests whose text is `test`.
    pub fn tests_of(&self, test: &str) -> Vec<Test> {
        self.tests()
            .into_iter()
            .filter(|t| t.test == test)
            .collect()
    }

    /// Outcomes of the tests whose text is `test`.
    pub fn outcomes_of(&self, test: &str) -> Vec<Outcome> {
        self.tests_of(test).iter().map(|t| t.outcome).collect()
    }

    /// Outcomes of the tests whose text is `test` at the site of the function `name` (the
    /// site's path ends with `::name`): one relation pasted on several functions.
    pub fn outcomes_at(&self, test: &str, name: &str) -> Vec<Outcome> {
        let at = format!("::{name}");
        self.tests_of(test)
            .iter()
            .filter(|t| t.site.ends_with(&at))
            .map(|t| t.outcome)
            .collect()
    }

    pub fn final_stats(&self) -> Stats {
        self.records()
            .into_iter()
            .filter_map(|r| match r {
                Record::Stats(s) if s.is_final => Some(s),
                _ => None,
            })
            .next_back()
            .unwrap_or_else(|| panic!("no final stats record; log:\n{}", self.log.join("\n")))
    }

    /// The signal that ended the scenario's process, if one did: for tests of a program that
    /// aborts or is killed.
    pub fn signal(&self) -> Option<i32> {
        self.status_read.set(true);
        std::os::unix::process::ExitStatusExt::signal(&self.status)
    }

    pub fn assert_success(&self) {
        assert!(
            self.status.success(),
            "scenario failed: {}\nstdout:\n{}\nstderr:\n{}",
            self.status,
            self.stdout,
            self.stderr
        );
    }

    pub fn describe(&self) -> String {
        format!(
            "stdout:\n{}\nstderr:\n{}\nlog:\n{}",
            self.stdout,
            self.stderr,
            self.log.join("\n")
        )
    }
}

/// The directory of the scenario running in this process (set only inside a scenario).
pub fn scenario_dir() -> PathBuf {
    PathBuf::from(std::env::var("INVITE_SCENARIO_DIR").expect("inside a scenario"))
}

/// A file of the running scenario's directory as a C path ("" for the directory itself).
pub fn scenario_path(name: &str) -> std::ffi::CString {
    let path = scenario_dir().join(name);
    std::ffi::CString::new(path.into_os_string().into_encoded_bytes()).unwrap()
}

/// Runs `body` as the scenario `name` under `config` (TOML without `log`, which is added, and
/// with [`SCENARIO_TIMEOUT_MS`] and [`SCENARIO_DRAIN_MS`] unless it sets its own `timeout_ms`
/// and `drain_ms`).
/// Inside the scenario process it runs the body and exits; outside it returns the run. `name`
/// is the test's path as the harness names it, module included (`here!()`): the scenario
/// process runs that test alone, matched with `--exact`.
pub fn scenario(name: &str, config: &str, body: impl FnOnce()) -> Run {
    scenario_with(name, config, &[], body)
}

pub fn scenario_with(name: &str, config: &str, env: &[(&str, &str)], body: impl FnOnce()) -> Run {
    if std::env::var("INVITE_SCENARIO").as_deref() == Ok(name) {
        print!("{BEGIN}");
        body();
        // Leave through exit(3) as a program would: atexit handlers (invite's drain) run and
        // Rust flushes stdout, but the test harness prints nothing more.
        std::process::exit(0);
    }
    spawn(name, config, env)
}

/// Runs `body` as the scenario `name` with no configuration at all: no `$INVITE_CONFIG`, and
/// the scenario's empty directory as the working directory (so no `./invite.toml` either).
pub fn scenario_unconfigured(name: &str, body: impl FnOnce()) -> Run {
    if std::env::var("INVITE_SCENARIO").as_deref() == Ok(name) {
        print!("{BEGIN}");
        body();
        std::process::exit(0);
    }
    spawn_in(name, None, &[])
}

/// The tests' deadline in a scenario that sets none. A test process runs at `nice = 10`: on a
/// machine busy with other work it may wait seconds for a CPU, and a scenario that expects its
/// tests to pass must not see them killed at the default 2 s. Scenarios about deadlines set
/// their own, globally or per site.
pub const SCENARIO_TIMEOUT_MS: u64 = 30_000;

/// How long a scenario's exit waits for its running tests, unless it sets its own: as long as
/// their deadline, for the same reason. A scenario that ends without `wait_idle` would
/// otherwise see its last tests killed at the default 2 s as still running at exit.
pub const SCENARIO_DRAIN_MS: u64 = SCENARIO_TIMEOUT_MS;

/// `config` with [`SCENARIO_TIMEOUT_MS`] and [`SCENARIO_DRAIN_MS`] added, each if Invite takes
/// it so: a config that sets its own `timeout_ms` or `drain_ms` (the key twice) keeps it, and
/// one that Invite refuses anyway is left as written, so that its errors name the lines the
/// scenario wrote.
fn with_scenario_deadlines(config: &str) -> String {
    let takes = |text: &str| invite::config::Config::from_toml(text, Path::new("invite.toml"));
    if takes(config).is_err() {
        return config.to_string();
    }
    let mut with = config.to_string();
    for key in [
        format!("timeout_ms = {SCENARIO_TIMEOUT_MS}"),
        format!("drain_ms = {SCENARIO_DRAIN_MS}"),
    ] {
        let added = format!("{key}\n{with}");
        if takes(&added).is_ok() {
            with = added;
        }
    }
    with
}

/// Held whole by a scenario that must run alone ([`alone`]), and shared by every other
/// scenario while its process runs.
static SIDE_BY_SIDE: RwLock<()> = RwLock::new(());

thread_local! {
    /// Whether this thread holds [`SIDE_BY_SIDE`] whole: its scenarios take no share.
    static ALONE: Cell<bool> = const { Cell::new(false) };
}

/// While kept, no other scenario of this test binary runs: for tests that measure contention
/// for slots and CPU time, which scenarios run beside them would starve. Scenarios started on
/// the thread that holds it run as usual.
pub struct Alone {
    _whole: RwLockWriteGuard<'static, ()>,
}

impl Drop for Alone {
    fn drop(&mut self) {
        ALONE.set(false);
    }
}

/// Waits until no other scenario runs, and keeps the others waiting until the [`Alone`] is
/// dropped.
pub fn alone() -> Alone {
    let whole = SIDE_BY_SIDE.write().unwrap_or_else(|e| e.into_inner());
    ALONE.set(true);
    Alone { _whole: whole }
}

/// To be kept while a scenario process runs: waits while a scenario runs [`alone`] (unless
/// this thread's is the one).
pub fn side_by_side() -> Option<RwLockReadGuard<'static, ()>> {
    (!ALONE.get()).then(|| SIDE_BY_SIDE.read().unwrap_or_else(|e| e.into_inner()))
}

fn spawn(name: &str, config: &str, env: &[(&str, &str)]) -> Run {
    spawn_in(name, Some(config), env)
}

fn spawn_in(name: &str, config: Option<&str>, env: &[(&str, &str)]) -> Run {
    let dir = tempfile::Builder::new()
        .prefix("invite-scenario-")
        .tempdir()
        .expect("temp dir");
    let dir = dir.keep();
    let log = dir.join("log.jsonl");
    // A test binary reads `./invite.toml` only when `$INVITE_CONFIG` names it: a scenario about
    // what a program does without it runs this binary under another name, outside cargo's
    // `deps`, as a program (a hard link where the file system allows one).
    // It lives beside `deps`, on the same file system, until the process has run.
    let exe = std::env::current_exe().expect("test binary");
    let as_program = config.is_none() || env.iter().any(|(k, _)| *k == "INVITE_CONFIG");
    let program_dir = as_program.then(|| {
        let beside = exe
            .parent()
            .and_then(Path::parent)
            .expect("cargo's target directory");
        tempfile::Builder::new()
            .prefix("invite-program-")
            .tempdir_in(beside)
            .expect("a directory for the scenario's program")
    });
    let exe = match &program_dir {
        Some(d) => {
            let program = d.path().join("program");
            std::fs::hard_link(&exe, &program)
                .or_else(|_| std::fs::copy(&exe, &program).map(drop))
                .expect("the scenario's program");
            program
        }
        None => exe,
    };
    let mut cmd = Command::new(exe);
    match config {
        Some(config) => {
            let config_path = dir.join("invite.toml");
            std::fs::write(
                &config_path,
                format!(
                    "log = {:?}\n{}\n",
                    log.display().to_string(),
                    with_scenario_deadlines(config)
                ),
            )
            .expect("write config");
            cmd.env("INVITE_CONFIG", &config_path);
        }
        None => {
            cmd.env_remove("INVITE_CONFIG").current_dir(&dir);
        }
    }
    // `--include-ignored`: a scenario marked `#[ignore]` runs its body when asked for with
    // `--ignored`.
    cmd.args([
        name,
        "--exact",
        "--include-ignored",
        "--nocapture",
        "--test-threads=1",
    ])
    .env("INVITE_SCENARIO", name)
    .env("INVITE_SCENARIO_DIR", &dir)
    .env_remove("INVITE")
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let share = side_by_side();
    let (status, stdout, stderr) = run_bounded(cmd, Duration::from_secs(120));
    drop(share);
    drop(program_dir);
    // Without the mark no test ran the body: none is named `name` in this binary, and the
    // scenario would pass on an empty log.
    let stdout = match stdout.find(BEGIN) {
        Some(i) => stdout[i + BEGIN.len()..].to_string(),
        None => panic!(
            "the scenario process ran no test named {name:?} (a test's name is its path in the \
             binary, as `here!()` gives it): {status}\nstdout:\n{stdout}\nstderr:\n{stderr}"
        ),
    };
    let log = std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect();
    Run {
        status,
        status_read: std::cell::Cell::new(false),
        stdout,
        stderr,
        dir,
        log,
    }
}

/// Runs a command to completion, killing it if it outlives `limit` (a hung scenario must fail
/// the test, not hang the suite).
pub fn run_bounded(mut cmd: Command, limit: Duration) -> (ExitStatus, String, String) {
    let mut child = cmd.spawn().expect("spawn scenario");
    let mut out = child.stdout.take().expect("piped");
    let mut err = child.stderr.take().expect("piped");
    let reader_out = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out.read_to_end(&mut s);
        String::from_utf8_lossy(&s).into_owned()
    });
    let reader_err = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        String::from_utf8_lossy(&s).into_owned()
    });
    let started = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let s = child.wait().expect("wait");
            panic!("scenario still running after {limit:?}; killed ({s})");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    (
        status,
        reader_out.join().unwrap(),
        reader_err.join().unwrap(),
    )
}

/// Children of this process, over all its threads (from /proc).
pub fn child_pids() -> Vec<i32> {
    let mut pids = Vec::new();
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return pids;
    };
    for t in tasks.flatten() {
        if let Ok(s) = std::fs::read_to_string(t.path().join("children")) {
            pids.extend(s.split_whitespace().filter_map(|p| p.parse::<i32>().ok()));
        }
    }
    pids
}

/// Invite's live processes of the scenario running in this process: its runs (named
/// `invite run`) and test processes (`invite test`). They are not children of the program, so
/// they are found by name and by the scenario directory in their environment. A zombie, whose
/// environment is gone, is not counted.
pub fn invite_processes() -> Vec<i32> {
    let dir = scenario_dir();
    let marker = format!("INVITE_SCENARIO_DIR={}", dir.display());
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
            comm.starts_with("invite ")
                && std::fs::read(format!("/proc/{pid}/environ"))
                    .unwrap_or_default()
                    .split(|b| *b == 0)
                    .any(|v| v == marker.as_bytes())
        })
        .collect()
}

/// The session a process belongs to (from /proc).
pub fn session_of(pid: i32) -> Option<i32> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = s.rfind(')')?;
    // After the name: state, ppid, pgrp, session.
    s[after + 1..].split_whitespace().nth(3)?.parse().ok()
}

/// Whether a process exists (a zombie counts as existing).
pub fn process_exists(pid: i32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// The state letter of a process from /proc (`Z` for a zombie).
pub fn process_state(pid: i32) -> Option<char> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = s.rfind(')')?;
    s[after + 1..].trim_start().chars().next()
}

/// A process's parent (field 4 of `/proc/<pid>/stat`), if it is still there.
pub fn parent_of(pid: i32) -> Option<i32> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = s.rfind(')')?;
    s[after + 1..].split_whitespace().nth(1)?.parse().ok()
}

/// The CPU time a process has used, user and system, in clock ticks (0 once it is gone).
pub fn cpu_ticks(pid: i32) -> u64 {
    let Ok(s) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return 0;
    };
    let Some(after) = s.rfind(')') else { return 0 };
    // After the name: state is field 3, utime 14 and stime 15.
    let fields: Vec<&str> = s[after + 1..].split_whitespace().collect();
    let field = |n: usize| {
        fields
            .get(n - 3)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    field(14) + field(15)
}

/// Clock ticks per second, the unit of [`cpu_ticks`].
pub fn ticks_per_second() -> u64 {
    rustix::param::clock_ticks_per_second().max(1)
}

/// Polls `cond` until it holds or `limit` passes; returns whether it held.
pub fn eventually(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let started = Instant::now();
    while started.elapsed() < limit {
        if cond() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    cond()
}

/// The test function's path without the crate name, as `--exact` expects it.
#[macro_export]
macro_rules! here {
    () => {{
        fn here() {}
        let full = std::any::type_name_of_val(&here);
        let path = full.strip_suffix("::here").expect("function path");
        path.split_once("::").map_or(path, |(_, rest)| rest)
    }};
}

/// Replaces `path` as editors and tools do: a new file renamed over the old one.
pub fn replace_atomically(path: &Path, text: &str) {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

/// A ConfigMap volume: `invite.toml` links to `..data/invite.toml`, and `..data` to a directory
/// named by its version; an update writes a new version's directory and renames a new `..data`
/// link over the old one.
pub struct ConfigMap {
    pub root: PathBuf,
    version: u32,
}

impl ConfigMap {
    pub fn new(root: PathBuf, text: &str) -> ConfigMap {
        std::fs::create_dir_all(&root).unwrap();
        let mut map = ConfigMap { root, version: 0 };
        map.update(text);
        std::os::unix::fs::symlink("..data/invite.toml", map.root.join("invite.toml")).unwrap();
        map
    }

    pub fn update(&mut self, text: &str) {
        self.version += 1;
        let dir = format!("..2026_11_26_{}", self.version);
        std::fs::create_dir(self.root.join(&dir)).unwrap();
        std::fs::write(self.root.join(&dir).join("invite.toml"), text).unwrap();
        let tmp = self.root.join("..data_tmp");
        std::os::unix::fs::symlink(&dir, &tmp).unwrap();
        std::fs::rename(&tmp, self.root.join("..data")).unwrap();
    }
}
