//! The collector thread: receives every run's results, reaps every run's child, kills the ones
//! past their deadline, writes the log and the periodic statistics.
//!
//! It waits in `poll(2)` on an eventfd (new runs, shutdown), each run's result pipe and each
//! run's pidfd. A pipe's end of file alone does not mean a child is done: the write end may have
//! leaked into a child that another thread forked in the meantime. So a run ends when its child
//! has been reaped (through its pidfd), after which the pipe is drained one last time.
//!
//! The thread, its loop and the following of runs are here; the adaptive sampling rate is in
//! `adaptive`, what the overhead budget is charged in `charges`, the records and their writing
//! in `records`, and the lines printed about refused and unstarted runs in `notices`.

mod adaptive;
mod charges;
mod notices;
mod records;
mod workers;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use crate::budget::Budget;
use crate::config::Config;
use crate::diag::{self, Level};
use crate::handover::{self, Inbox, RunStart};
use crate::log_sink::LogSink;
use crate::record::{self, Instance, Outcome, Record, Seeds, SkipCounts};
use crate::rng::Snapshot;
use crate::sandbox::wire::{Frame, FrameReader};
use crate::sandbox::{self, Exit};
use crate::site::{self, Site};

use adaptive::Counters;
use notices::refusal_notice;
#[cfg(feature = "discover")]
use records::observation_record;
use records::{test_record, Tally};

/// Everything the collector needs to follow one run.
pub(crate) struct RunHandle {
    pub run: u64,
    pub site: &'static Site,
    pub pid: libc::pid_t,
    pub follow: sandbox::Follow,
    /// Made by the launcher, and so not the program's child: its CPU time is charged from
    /// what it reports, as the program's `RUSAGE_CHILDREN` never sees it.
    pub hidden: bool,
    pub pipe: OwnedFd,
    pub started: Instant,
    pub deadline: Instant,
    pub timeout: Duration,
    /// The caller's stream position and the run's transformation seed (logged as `seeds`).
    pub snapshot: Snapshot,
    pub test_seed: u64,
    /// The site's tests the run runs (see `site::runs_test`).
    pub tests: u64,
    /// When the call was sampled (formatted for the log on the collector thread).
    pub time: std::time::SystemTime,
    /// What starting the run cost the caller.
    pub parent_ns: u64,
    /// What the overhead budget charged when admitting the run.
    pub provisional_ns: u64,
}

impl RunHandle {
    /// Follows a caller's run, with the descriptors its message brought.
    fn adopt(
        start: RunStart,
        site: &'static Site,
        pipe: OwnedFd,
        follow: sandbox::Follow,
    ) -> RunHandle {
        let timeout = Duration::from_millis(site.timeout_ms());
        RunHandle {
            run: start.run,
            site,
            pid: start.pid,
            // Only the launcher hands over a pidfd; a plain fork's is opened by `follow`.
            hidden: start.pidfd >= 0,
            follow,
            pipe,
            started: start.started,
            // The child enforces the same budget on itself; the collector's copy also covers a
            // child that never got as far as arming its own timer.
            deadline: start.started + sandbox::run_deadline(timeout, site.meta.tests.len() as u32),
            timeout,
            snapshot: start.snapshot,
            test_seed: start.test_seed,
            tests: start.tests,
            time: start.time,
            parent_ns: start.parent_ns,
            provisional_ns: start.provisional_ns,
        }
    }
}

/// The parent's handle on the collector thread.
///
/// New runs travel through a pipe as [`RunStart`] messages, by value: for the caller that is
/// one `write(2)` from its own stack frame, where a channel would dirty (and so copy-on-write
/// fault) its queue pages right after the fork. A message without a site asks for shutdown.
pub(crate) struct Collector {
    shutdown_ack: Arc<std::sync::Mutex<Option<mpsc::Sender<()>>>>,
}

impl Collector {
    pub fn spawn(
        config: &Config,
        instance: Instance,
        budget: Arc<Budget>,
        cow_fault_ns: u64,
        mut sink: LogSink,
        start: record::Start,
        reloader: crate::reload::Reloader,
    ) -> std::io::Result<(Collector, Inbox)> {
        let (inbox, rx, woken) = Inbox::open()?;
        let mut line = Record::Start(start).to_line().into_bytes();
        line.push(b'\n');
        // A failure here is kept and retried with the next records, like any other.
        sink.write_lines(&mut line);
        let mut state = State {
            config: config.clone(),
            instance,
            budget,
            sink,
            pending: line,
            runs: Vec::new(),
            tallies: HashMap::new(),
            started: Instant::now(),
            last_stats: Instant::now(),
            fork_failures_said: 0,
            shutdown: None,
            drained: 0,
            killed_at_exit: 0,
            shutdown_ack: Arc::new(std::sync::Mutex::new(None)),
            cow_fault_ns,
            faults_seen: invite_sandbox::usage::usage().0,
            system_seen: invite_sandbox::usage::usage().1,
            last_run_end: None,
            children_seen: invite_sandbox::usage::children_cpu_ns(),
            child_cpu_charge: config.child_cpu_charge(),
            children_ns: 0,
            cow_faults: 0,
            cow_ns: 0,
            last_adapt: Instant::now(),
            adapt_seen: HashMap::new(),
            orphans: sandbox::orphans::Watch::default(),
            announced: HashSet::new(),
            // Here, before the caller that started invite forks its run.
            children: (config.hide_runs == crate::config::HideRuns::Auto).then(|| {
                let watch = crate::adopter::ChildWatch::first(invite_sandbox::process::children());
                watch.publish();
                watch
            }),
            reloader,
            workers: workers::Workers::default(),
            #[cfg(feature = "metrics")]
            meter: crate::meter::Meter::new(),
            #[cfg(feature = "metrics")]
            last_meter: Instant::now(),
        };
        let collector = Collector {
            shutdown_ack: Arc::clone(&state.shutdown_ack),
        };
        std::thread::Builder::new()
            .name("invite-collector".into())
            .spawn(move || {
                // A file size limit or a closed stderr must fail the write, not kill the
                // program: this thread writes the log, so it takes neither signal.
                invite_sandbox::process::block_in_this_thread(&[libc::SIGXFSZ, libc::SIGPIPE]);
                // Here rather than in `spawn`, which may run on a caller's first sampled call.
                #[cfg(feature = "metrics")]
                state.meter.describe();
                state.run(&rx, &woken);
                // The read end stays open for good: a caller admitted just before shutdown
                // may still write its message, and a write to a pipe without a reader would
                // raise SIGPIPE in the host. Such a run's child, unwatched, ends at its own
                // deadline. At most `max_concurrent` messages can wait, and they fit.
                std::mem::forget(rx);
            })?;
        Ok((collector, inbox))
    }

    /// Asks the collector, through its inbox, to drain and stop; `done` hears when it has.
    pub fn shutdown(&self, inbox: &Inbox, done: mpsc::Sender<()>) {
        if let Ok(mut slot) = self.shutdown_ack.lock() {
            *slot = Some(done);
        }
        inbox.send_shutdown();
    }
}

/// How often the collector looks for new runs (see [`State::wait`]): the lag before a new run's
/// results are read and its deadline is watched, and 100 cheap wake-ups a second.
const TICK: Duration = Duration::from_millis(10);

/// Why the collector killed a run.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Killed {
    Deadline,
    AtExit,
}

struct LiveRun {
    h: RunHandle,
    time: String,
    seeds: Seeds,
    reader: FrameReader,
    inputs: BTreeMap<String, String>,
    reported: Vec<bool>,
    pipe_eof: bool,
    exit: Option<Exit>,
    killed: Option<Killed>,
}

struct State {
    config: Config,
    instance: Instance,
    budget: Arc<Budget>,
    sink: LogSink,
    pending: Vec<u8>,
    runs: Vec<LiveRun>,
    tallies: HashMap<usize, Tally>,
    started: Instant,
    last_stats: Instant,
    /// Sampled calls whose run could not be started, as of the last warning about them.
    fork_failures_said: u64,
    shutdown: Option<(mpsc::Sender<()>, Instant)>,
    drained: u64,
    killed_at_exit: u64,
    shutdown_ack: Arc<std::sync::Mutex<Option<mpsc::Sender<()>>>>,
    /// Measured cost of one copy-on-write fault, and the fault counter's last reading.
    cow_fault_ns: u64,
    faults_seen: u64,
    system_seen: u64,
    last_run_end: Option<Instant>,
    /// Test children's CPU time: last reading, charge factor, and what was charged.
    children_seen: u64,
    child_cpu_charge: f64,
    children_ns: u64,
    /// Faults charged to the budget so far (while runs were alive), and what they were charged.
    cow_faults: u64,
    cow_ns: u64,
    /// Adaptive rate: when ρ was last adjusted, and each site's counters then.
    last_adapt: Instant,
    /// Per adaptive site: its counters at the start of its window, and when that was.
    adapt_seen: HashMap<usize, (Counters, Instant)>,
    /// Ended hidden runs, until their adopter is seen to reap them (see `sandbox::orphans`).
    orphans: sandbox::orphans::Watch,
    /// Sites named at their first call whose `site` record is written.
    announced: HashSet<usize>,
    /// With `hide_runs = "auto"`: the looks at the program's own children.
    children: Option<crate::adopter::ChildWatch>,
    /// Follows the configuration file and the fleet's rotation.
    reloader: crate::reload::Reloader,
    /// The worker of pure sites.
    workers: workers::Workers,
    /// The metrics emitted through the `metrics` facade, and when the sites' counters were
    /// last read for them.
    #[cfg(feature = "metrics")]
    meter: crate::meter::Meter,
    #[cfg(feature = "metrics")]
    last_meter: Instant,
}

impl State {
    fn run(&mut self, rx: &OwnedFd, woken: &OwnedFd) {
        loop {
            // A bug here must neither kill the host nor stop the reaping of children.
            let step = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.step(rx)));
            match step {
                Ok(true) => return,
                Ok(false) => {}
                Err(_) => diag::say(Level::Error, "collector", || {
                    "internal error in the collector; continuing".into()
                }),
            }
            self.wait(woken);
        }
    }

    /// Applies a changed configuration file, and a fleet's new period.
    fn follow_configuration(&mut self) {
        // Shutdown has disarmed the sites: neither a reload nor a rotation may arm them again.
        if self.shutdown.is_some() || self.budget.is_closed() {
            return;
        }
        match self.reloader.look() {
            crate::reload::Outcome::Unchanged => {}
            crate::reload::Outcome::Rotated => {
                // The sites' rates start again from their configured values.
                self.adapt_seen.clear();
            }
            crate::reload::Outcome::Refused(record) => self.push(&Record::Config(record)),
            crate::reload::Outcome::Applied(config, record) => {
                self.child_cpu_charge = config.child_cpu_charge();
                self.config = *config;
                self.adapt_seen.clear();
                self.push(&Record::Config(record));
            }
        }
    }

    /// Takes the runs (and a shutdown request) that callers sent.
    fn receive(&mut self, rx: &OwnedFd) {
        handover::receive(rx, |message| match message {
            handover::Message::Shutdown => {
                let done = self.shutdown_ack.lock().ok().and_then(|mut s| s.take());
                let drain = Duration::from_millis(self.config.drain_ms);
                if let Some(done) = done {
                    self.shutdown = Some((done, Instant::now() + drain));
                }
            }
            handover::Message::Run {
                start,
                site,
                pipe,
                follow,
            } => self.start_following(RunHandle::adopt(start, site, pipe, follow)),
        });
    }

    fn start_following(&mut self, h: RunHandle) {
        // Charged here rather than by the caller, whose every write after the fork would be a
        // copy-on-write fault.
        self.budget.settle(h.provisional_ns, h.parent_ns);
        h.site.runs.fetch_add(1, Relaxed);
        h.site.parent_ns.fetch_add(h.parent_ns, Relaxed);
        self.note_announced(h.site);
        let n = h.site.meta.tests.len();
        let reported = (0..n).map(|i| !site::runs_test(h.tests, i)).collect();
        self.runs.push(LiveRun {
            time: humantime::format_rfc3339_micros(h.time).to_string(),
            seeds: h.snapshot.seeds(h.test_seed),
            h,
            reader: FrameReader::default(),
            inputs: BTreeMap::new(),
            // A test the run does not run (another member's, in a fleet) is not awaited.
            reported,
            pipe_eof: false,
            exit: None,
            killed: None,
        });
    }

    /// Writes the `site` record of a site named at its first call, before its first test.
    fn note_announced(&mut self, site: &'static Site) {
        if site.named_late() && self.announced.insert(site.key()) {
            // Not in the start record: named at its first call, and announced before its tests.
            self.push(&Record::Site(record::SiteNamed {
                v: record::VERSION,
                time: record::now(),
                host: self.instance.host.clone(),
                pid: self.instance.pid,
                instance: self.instance.id.clone(),
                service: self.instance.service.clone(),
                version: self.instance.version.clone(),
                info: site.info(),
            }));
        }
    }

    /// One round of work. Returns `true` when shutdown is complete.
    fn step(&mut self, rx: &OwnedFd) -> bool {
        // A fork write-protects every page of the parent: the first write to each afterwards
        // faults, a copy while the child lives and a cheaper reuse after. So faults are charged
        // while runs live and for a second after the last one ended.
        let recent = self
            .last_run_end
            .is_some_and(|t| t.elapsed() < Duration::from_secs(1));
        self.charge_faults(!self.runs.is_empty() || recent);
        self.charge_children();
        self.follow_configuration();
        self.adapt();
        self.receive(rx);
        self.watch_children();
        handover::SPARE_PIPES.refill();
        self.service_runs();
        self.service_worker();
        #[cfg(feature = "metrics")]
        self.meter_sites();
        if self.orphans.look(Instant::now()) == sandbox::orphans::Verdict::Unreaped {
            let always = self.config.hide_runs == crate::config::HideRuns::Always;
            diag::say(Level::Warn, "unreaped runs", || unreaped_message(always));
        }
        let interval = Duration::from_millis(self.config.stats_interval_ms);
        if self.last_stats.elapsed() >= interval {
            self.write_stats(false);
        }
        let mut finished = false;
        if let Some((_, drain_deadline)) = &self.shutdown {
            let past = Instant::now() >= *drain_deadline;
            if self.runs.is_empty() && (past || !self.workers.busy()) {
                // What the worker did not reach by now is counted before the last stats.
                self.stop_worker();
                finished = true;
            } else if past {
                for r in &mut self.runs {
                    if r.killed.is_none() && r.exit.is_none() {
                        r.h.follow.kill(r.h.pid);
                        r.killed = Some(Killed::AtExit);
                    }
                }
            }
        }
        if finished {
            self.write_stats(true);
            let (sampled, skips) = site::all().fold((0, SkipCounts::default()), |(n, mut k), s| {
                k.merge(&s.skips());
                (n + s.sampled.load(Relaxed), k)
            });
            if let Some(line) = refusal_notice(sampled, &skips, &self.config) {
                diag::say(Level::Info, "refusals", || line);
            }
            diag::report_held_back();
            let stop = Record::Stop(record::Stop {
                v: record::VERSION,
                time: record::now(),
                host: self.instance.host.clone(),
                pid: self.instance.pid,
                instance: self.instance.id.clone(),
                service: self.instance.service.clone(),
                version: self.instance.version.clone(),
                drained: self.drained,
                killed: self.killed_at_exit,
            });
            self.push(&stop);
        }
        self.flush();
        if finished {
            if let Some((done, _)) = self.shutdown.take() {
                let _ = done.send(());
            }
        }
        finished
    }

    fn service_runs(&mut self) {
        let now = Instant::now();
        let mut i = 0;
        while i < self.runs.len() {
            let r = &mut self.runs[i];
            if !r.pipe_eof {
                r.pipe_eof = r.reader.read_available(r.h.pipe.as_raw_fd());
            }
            if r.exit.is_none() {
                r.exit = r.h.follow.try_reap(r.h.pid);
            }
            if r.exit.is_some() {
                // The child is gone: whatever it wrote is in the pipe now.
                r.reader.read_available(r.h.pipe.as_raw_fd());
            } else if now >= r.h.deadline && r.killed.is_none() {
                r.h.follow.kill(r.h.pid);
                r.killed = Some(Killed::Deadline);
            }
            self.take_frames(i);
            if self.runs[i].exit.is_some() {
                let run = self.runs.swap_remove(i);
                self.finish(run);
            } else {
                i += 1;
            }
        }
    }

    fn take_frames(&mut self, i: usize) {
        while let Some(frame) = self.runs[i].reader.next_frame() {
            match frame {
                Frame::Inputs { inputs } => self.runs[i].inputs = inputs,
                Frame::Test {
                    index,
                    outcome,
                    duration_us,
                    detail,
                } if index < self.runs[i].reported.len() && !self.runs[i].reported[index] => {
                    self.runs[i].reported[index] = true;
                    let run = &self.runs[i];
                    let site = run.h.site;
                    #[cfg(feature = "discover")]
                    let observed = observation_record(
                        run,
                        &self.instance,
                        index,
                        outcome,
                        duration_us,
                        &detail,
                    );
                    #[cfg(not(feature = "discover"))]
                    let observed: Option<std::convert::Infallible> = None;
                    match observed {
                        #[cfg(feature = "discover")]
                        Some(o) => self.emit_observation(site, o),
                        #[cfg(not(feature = "discover"))]
                        Some(never) => match never {},
                        None => {
                            let record = test_record(
                                &run.about(),
                                &self.instance,
                                index,
                                outcome,
                                duration_us,
                                detail,
                            );
                            self.emit(site, record)
                        }
                    }
                }
                Frame::Done { cpu_ns } if self.runs[i].h.hidden => self.charge_cpu(cpu_ns),
                _ => {}
            }
        }
    }

    /// Records every test the run did not report, and frees its slot.
    fn finish(&mut self, run: LiveRun) {
        self.last_run_end = Some(Instant::now());
        let exit = run.exit.unwrap_or(Exit::Unknown);
        for index in 0..run.reported.len() {
            if run.reported[index] {
                continue;
            }
            let (outcome, detail) = match run.killed {
                Some(Killed::Deadline) => (
                    Outcome::Timeout,
                    format!(
                        "the run passed its deadline ({} ms per test) and was killed; if a test \
                         waits on a lock, another thread may have held it when the process forked",
                        run.h.timeout.as_millis()
                    ),
                ),
                Some(Killed::AtExit) => (
                    Outcome::Timeout,
                    format!(
                        "still running when the program exited; killed after drain_ms = {}",
                        self.config.drain_ms
                    ),
                ),
                None => (
                    Outcome::Error,
                    format!(
                        "the run's child {} before this test reported",
                        exit.describe()
                    ),
                ),
            };
            let us = run.h.started.elapsed().as_micros() as u64;
            let record = test_record(
                &run.about(),
                &self.instance,
                index,
                outcome,
                us,
                Some(detail),
            );
            self.emit(run.h.site, record);
        }
        if self.shutdown.is_some() {
            match run.killed {
                Some(Killed::AtExit) => self.killed_at_exit += 1,
                _ => self.drained += 1,
            }
        }
        self.budget.release();
        crate::checking::ended(run.h.run);
        if let sandbox::Follow::Pidfd(fd) = run.h.follow {
            let _ = self.orphans.ended(fd, Instant::now());
        }
    }

    /// With `hide_runs = "auto"`, looks at the program's children once a [`CHILD_LOOK`]
    /// (after taking in the runs handed over, so that those are known), until it is seen to
    /// have children of its own; a program whose SIGCHLD is not left to the default has its
    /// runs hidden anyway, and is not looked at meanwhile.
    ///
    /// [`CHILD_LOOK`]: crate::adopter::CHILD_LOOK
    fn watch_children(&mut self) {
        let Some(watch) = &mut self.children else {
            return;
        };
        if watch.seen.own
            || !watch.due(Instant::now())
            || !invite_sandbox::process::sigchld_default()
        {
            return;
        }
        let runs: HashSet<libc::pid_t> = self.runs.iter().map(|r| r.h.pid).collect();
        watch.look(invite_sandbox::process::children(), |p| runs.contains(&p));
        watch.publish();
    }

    /// Sleeps until a pipe or pidfd is ready, a message arrives, or a deadline is due.
    ///
    /// The submission pipe is deliberately not among the descriptors: a caller that wakes a
    /// sleeping thread right after forking pays for it (about 80 µs measured here, as the woken
    /// thread's first writes fault on the freshly shared pages), while a write with no waiter
    /// costs a microsecond. So new runs are picked up on a tick of [`TICK`] instead.
    fn wait(&mut self, woken: &OwnedFd) {
        let mut fds = Vec::with_capacity(2 * self.runs.len() + 1);
        fds.push(woken.as_fd());
        let now = Instant::now();
        let mut limit = Duration::from_millis(self.config.stats_interval_ms)
            .saturating_sub(self.last_stats.elapsed());
        let mut without_pidfd = false;
        fds.extend(self.workers.fds());
        for r in &self.runs {
            if !r.pipe_eof {
                fds.push(r.h.pipe.as_fd());
            }
            match &r.h.follow {
                sandbox::Follow::Pidfd(p) => fds.push(p.as_fd()),
                sandbox::Follow::Pid => without_pidfd = true,
                sandbox::Follow::Gone => {}
            }
            limit = limit.min(r.h.deadline.saturating_duration_since(now));
        }
        if let Some((_, d)) = &self.shutdown {
            limit = limit
                .min(d.saturating_duration_since(now))
                .min(Duration::from_millis(20));
        }
        if without_pidfd {
            limit = limit.min(Duration::from_millis(5));
        }
        if self.orphans.pending() {
            // Sampled calls may be held until the adopter of hidden runs is judged.
            limit = limit.min(Duration::from_millis(10));
        }
        // At least a millisecond, as ever: a deadline that has just passed is not a busy loop.
        let limit = limit.min(TICK).max(Duration::from_millis(1));
        invite_sandbox::fd::wait_readable(&fds, limit);
        invite_sandbox::fd::drain_eventfd(woken.as_fd());
    }
}

/// What is said once the adopter of hidden runs is seen never to reap them: with
/// `hide_runs = "always"` nothing more is tested (a plain fork could reach the program's own
/// child handling); with `"auto"` runs are plain forks, as that setting accepts.
fn unreaped_message(always: bool) -> String {
    let then = if always {
        "Sampled calls are no longer tested (counted as unhidden in the stats records): a plain \
         fork could be reaped by the program's own waitpid(-1). Run under an init that reaps \
         (tini, docker run --init), or set hide_runs = \"never\" to test with plain forks, \
         seen by the program's SIGCHLD handler and waitpid(-1)"
    } else {
        "Runs are plain forks from now on, seen by the program's SIGCHLD handler and \
         waitpid(-1); run under an init that reaps (tini, docker run --init), or set \
         hide_runs = \"never\" to start that way"
    };
    format!(
        "{} runs were still unreaped zombies {} s after they ended: the process that adopts \
         them (PID 1 of this PID namespace, or the program's subreaper) does not reap, so hidden \
         runs would fill the process table. {then}",
        sandbox::orphans::LIMIT,
        sandbox::orphans::GRACE.as_secs()
    )
}

#[cfg(test)]
// The test forks and signals processes of its own to set up what the code must survive.
#[allow(unsafe_code)]
mod tests {
    use super::*;

    #[test]
    fn an_adopter_that_never_reaps_stops_testing_under_always_and_unhides_under_auto() {
        let always = unreaped_message(true);
        assert!(always.contains("were still unreaped zombies"), "{always}");
        assert!(
            always.contains("no longer tested (counted as unhidden"),
            "{always}"
        );
        assert!(!always.contains("plain forks from now on"), "{always}");
        let auto = unreaped_message(false);
        assert!(auto.contains("Runs are plain forks from now on"), "{auto}");
        assert!(!auto.contains("no longer tested"), "{auto}");
        for m in [always, auto] {
            assert!(m.contains("docker run --init") && m.contains("hide_runs = \"never\""));
        }
    }

    /// In a process of its own (the signal disposition is process-wide): a caller whose
    /// message arrives after the collector finished must neither die of SIGPIPE nor block.
    #[test]
    fn a_message_after_the_collector_finished_is_harmless() {
        // SAFETY: the child below uses only its own fresh collector and leaves with _exit.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            // SAFETY: restoring the default action, which kills on a write without a reader.
            unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
            let dir = std::env::temp_dir().join(format!("invite-late-{}", std::process::id()));
            let _ = std::fs::create_dir_all(&dir);
            let sink =
                LogSink::open(&dir.join("log.jsonl").display().to_string()).expect("log file");
            let instance = Instance::for_tests();
            let start = record::Start {
                v: record::VERSION,
                time: record::now(),
                instance: instance.clone(),
                config_file: String::new(),
                config: serde_json::Value::Null,
                sites: Vec::new(),
                shard: None,
            };
            let config = Config {
                drain_ms: 1,
                ..Config::default()
            };
            let budget = Arc::new(Budget::new(1, 1.0));
            let reloader = crate::reload::Reloader::new(crate::reload::Setup {
                file: None,
                config: config.clone(),
                shard_from_env: None,
                live: Arc::new(crate::site::Live::new(&config, None, Duration::ZERO)),
                budget: Arc::clone(&budget),
                seccomp: false,
                instance: instance.clone(),
            });
            let (collector, inbox) =
                Collector::spawn(&config, instance, budget, 0, sink, start, reloader)
                    .expect("collector");
            let (done_tx, done_rx) = mpsc::channel();
            collector.shutdown(&inbox, done_tx);
            let finished = done_rx.recv_timeout(Duration::from_secs(10)).is_ok();
            // Let the collector thread return and drop what it owns.
            std::thread::sleep(Duration::from_millis(100));
            let (read, write) = sandbox::pipe().expect("pipe");
            use std::os::fd::IntoRawFd;
            let mut late = RunStart::shutdown();
            late.pipe = read.into_raw_fd();
            late.child_end = write.into_raw_fd();
            inbox.send(&late);
            // SAFETY: _exit has no preconditions.
            unsafe { libc::_exit(if finished { 0 } else { 2 }) };
        }
        let mut status = 0;
        // SAFETY: reaping our own child.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        assert!(
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
            "the late caller ended with status {status:#x} (signal {})",
            libc::WTERMSIG(status)
        );
    }
}
