//! The collector thread: receives every run's results, reaps every run's child, kills the ones
//! past their deadline, writes the log and the periodic statistics.
//!
//! It waits in `poll(2)` on an eventfd (new runs, shutdown), each run's result pipe and each
//! run's pidfd. A pipe's end of file alone does not mean a child is done: the write end may have
//! leaked into a child that another thread forked in the meantime. So a run ends when its child
//! has been reaped (through its pidfd), after which the pipe is drained one last time.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use crate::budget::Budget;
use crate::config::{Config, OnFailure};
use crate::diag::{self, Level};
use crate::handover::{self, Inbox, RunStart};
use crate::log_sink::LogSink;
use crate::record::{self, Instance, Outcome, OutcomeCounts, Record, Seeds, SiteStats, SkipCounts};
use crate::rng::Snapshot;
use crate::sandbox::wire::{Frame, FrameReader};
use crate::sandbox::{self, Exit};
use crate::site::{self, Site, TestKind, DISCOVER_PREFIX};

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
            faults_seen: crate::sys::usage::usage().0,
            system_seen: crate::sys::usage::usage().1,
            last_run_end: None,
            children_seen: crate::sys::usage::children_cpu_ns(),
            child_cpu_charge: config.child_cpu_charge(),
            children_ns: 0,
            cow_faults: 0,
            cow_ns: 0,
            last_adapt: Instant::now(),
            adapt_seen: HashMap::new(),
            orphans: sandbox::orphans::Watch::default(),
            announced: HashSet::new(),
        };
        let collector = Collector {
            shutdown_ack: Arc::clone(&state.shutdown_ack),
        };
        std::thread::Builder::new()
            .name("invite-collector".into())
            .spawn(move || {
                // A file size limit or a closed stderr must fail the write, not kill the
                // program: this thread writes the log, so it takes neither signal.
                crate::sys::process::block_in_this_thread(&[libc::SIGXFSZ, libc::SIGPIPE]);
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

#[derive(Default)]
struct Tally {
    tests: u64,
    outcomes: OutcomeCounts,
    test_us: u64,
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
}

/// A site's counters at one moment, for the adaptive rate.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Counters {
    calls: u64,
    sampled: u64,
    /// Sampled calls the caps refused (concurrency or overhead).
    refused: u64,
}

/// What one look at a site's window decides.
#[derive(Debug, PartialEq)]
enum Adapt {
    /// The window is too short or too sparse yet: keep counting.
    Wait,
    /// The window closes and ρ stays.
    Keep,
    /// The window closes and ρ becomes this.
    Set(f64),
}

/// The line printed at exit when the caps refused most sampled calls: how many, why, and which
/// key to raise. `None` when they refused half or fewer, or too few calls were sampled to say.
fn refusal_notice(sampled: u64, skips: &SkipCounts, config: &Config) -> Option<String> {
    let refused = skips.refused_by_caps();
    if sampled < 10 || refused * 2 <= sampled {
        return None;
    }
    let key = if skips.concurrency >= skips.overhead {
        format!("max_concurrent (now {})", config.max_concurrent)
    } else {
        format!("max_overhead (now {})", config.max_overhead)
    };
    Some(format!(
        "the caps refused {refused} of {sampled} sampled calls ({}%): {} because \
         max_concurrent = {} runs were alive, {} because another run would have passed \
         max_overhead = {}; to test more, raise {key} in invite.toml, or set \
         when_busy = \"wait\" to test every sampled call",
        refused * 100 / sampled,
        skips.concurrency,
        config.max_concurrent,
        skips.overhead,
        config.max_overhead,
    ))
}

/// The warning, with a stats record, that `new` more sampled calls (`total` in all) went
/// untested because their run's process could not be made.
fn fork_failure_notice(new: u64, total: u64) -> String {
    let calls = if new == 1 { "call" } else { "calls" };
    format!(
        "{new} sampled {calls} went untested ({total} since start): their run could not be started \
         because fork or pipe failed (the machine or the program's limits are out of processes, \
         memory or descriptors, or a seccomp filter around the program refuses clone); the \
         calls themselves went on. They are counted as fork_failed in the stats records"
    )
}

/// The adaptive rate of a site at `rho` aiming at `target` tests a minute, `per_run` tests a
/// run, from its counters at the start of the window and now, `secs` apart (see
/// [`State::adapt`]).
fn adapt_rate(
    rho: f64,
    target: f64,
    per_run: usize,
    start: Counters,
    now: Counters,
    secs: f64,
) -> Adapt {
    let since = now.sampled - start.sampled;
    if rho <= 0.0 || secs < 0.5 || (since < 5 && secs < 1.0) {
        return Adapt::Wait;
    }
    let per_run = per_run.max(1) as f64;
    let wanted_tests_per_sec = target / 60.0;
    let wanted = if since >= 5 {
        let calls_per_sec = (now.calls - start.calls) as f64 / secs;
        wanted_tests_per_sec / (calls_per_sec * per_run)
    } else if now.refused > start.refused {
        return Adapt::Keep;
    } else {
        let seen_tests_per_sec = (since.max(1) as f64 * per_run) / secs;
        if seen_tests_per_sec >= wanted_tests_per_sec {
            return Adapt::Keep;
        }
        if !too_few_for_the_target(since, wanted_tests_per_sec / per_run * secs) {
            // A site sampled at its target shows this few in a short window often enough:
            // the window grows until the count says which.
            return Adapt::Wait;
        }
        rho * (wanted_tests_per_sec / seen_tests_per_sec).min(16.0)
    };
    let wanted = wanted.clamp(1e-9, 1.0);
    if (wanted / rho - 1.0).abs() > 0.1 {
        Adapt::Set(wanted)
    } else {
        Adapt::Keep
    }
}

/// How unlikely a count of sampled calls must be at the target rate before a window of few is
/// taken as a site under-sampled. Raising ρ on any short window of few would push a site that
/// is on target upwards time after time (a window of a site expecting two has one or none four
/// times in ten), while lowering it needs five.
const UNDER_SAMPLED_EVIDENCE: f64 = 0.05;

/// Whether `sampled` calls or fewer are unlikely, at under [`UNDER_SAMPLED_EVIDENCE`], where
/// the target rate expects `expected`: sampled calls at a fixed ρ and call rate are a Poisson
/// count.
fn too_few_for_the_target(sampled: u64, expected: f64) -> bool {
    match statrs::distribution::Poisson::new(expected) {
        Ok(count) => {
            statrs::distribution::DiscreteCDF::cdf(&count, sampled) < UNDER_SAMPLED_EVIDENCE
        }
        Err(_) => false,
    }
}

/// `part` as a share of `whole` (0 when `whole` is).
fn share(part: u64, whole: u64) -> f64 {
    if whole > 0 {
        part as f64 / whole as f64
    } else {
        0.0
    }
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
        if h.site.named_late() && self.announced.insert(h.site.key()) {
            // Not in the start record: named at its first call, and announced before its tests.
            self.push(&Record::Site(record::SiteNamed {
                v: record::VERSION,
                time: record::now(),
                host: self.instance.host.clone(),
                pid: self.instance.pid,
                info: h.site.info(),
            }));
        }
        let n = h.site.meta.tests.len();
        self.runs.push(LiveRun {
            time: humantime::format_rfc3339_micros(h.time).to_string(),
            seeds: h.snapshot.seeds(h.test_seed),
            h,
            reader: FrameReader::default(),
            inputs: BTreeMap::new(),
            reported: vec![false; n],
            pipe_eof: false,
            exit: None,
            killed: None,
        });
    }

    /// Charges the CPU time of test children reaped since the last round (see budget.rs).
    fn charge_children(&mut self) {
        let now = crate::sys::usage::children_cpu_ns();
        let new = now.saturating_sub(self.children_seen);
        self.children_seen = now;
        if new > 0 {
            self.charge_cpu(new);
        }
    }

    /// Charges test children's CPU time at `child_cpu_charge`.
    fn charge_cpu(&mut self, cpu_ns: u64) {
        let cost = (cpu_ns as f64 * self.child_cpu_charge) as u64;
        self.children_ns += cost;
        self.budget.charge(cost);
    }

    /// Charges the copy-on-write faults of the last round, if any run was alive in it.
    fn charge_faults(&mut self, runs_were_alive: bool) {
        let (faults, system_ns) = crate::sys::usage::usage();
        let new = faults.saturating_sub(self.faults_seen);
        let system = system_ns.saturating_sub(self.system_seen);
        self.faults_seen = faults;
        self.system_seen = system_ns;
        if runs_were_alive && new > 0 {
            self.cow_faults += new;
            let cost = (new * self.cow_fault_ns).max(system);
            self.cow_ns += cost;
            self.budget.charge(cost);
        }
    }

    /// Adaptive rate: sets ρ of each site with `target_tests_per_min` from its observed call
    /// rate, so that a rarely called function is still tested and a hot one does not eat the
    /// budget. Calls are counted at sampling points (each adds the interval it closes, backed-off
    /// intervals included), so the rate is read over a window of at least half a second holding
    /// at least five sampling points. With fewer after a second, the site is under-sampled if so
    /// few would be unlikely at the target rate (otherwise the window grows), and ρ rises by up
    /// to 16 times at once, unless the caps refused its runs in that window: then the few
    /// sampling points come from the back-off, not from a rare site, and a higher ρ would only
    /// be refused again. A new ρ is drawn without the back-off of the old (see `site`).
    fn adapt(&mut self) {
        if self.last_adapt.elapsed() < Duration::from_millis(250) || self.shutdown.is_some() {
            return;
        }
        self.last_adapt = Instant::now();
        for s in site::all() {
            let Some(target) = s.target_tests_per_min() else {
                continue;
            };
            let skips = s.skips();
            let now = Counters {
                calls: s.calls.load(Relaxed),
                sampled: s.sampled.load(Relaxed),
                refused: skips.refused_by_caps(),
            };
            let entry = self
                .adapt_seen
                .entry(s.key())
                .or_insert((now, Instant::now()));
            let secs = entry.1.elapsed().as_secs_f64();
            match adapt_rate(s.rho(), target, s.meta.tests.len(), entry.0, now, secs) {
                Adapt::Wait => {}
                decision => {
                    *entry = (now, Instant::now());
                    if let Adapt::Set(rho) = decision {
                        s.set_rho(rho);
                    }
                }
            }
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
        self.adapt();
        self.receive(rx);
        handover::SPARE_PIPES.refill();
        self.service_runs();
        if self.orphans.look(Instant::now()) == sandbox::orphans::Verdict::Unreaped {
            diag::say(Level::Warn, "unreaped runs", || {
                format!(
                    "{} runs were still unreaped zombies {} s after they ended: the process that \
                     adopts them (PID 1 of this PID namespace, or the program's subreaper) does \
                     not reap, so hidden runs would fill the process table. Runs are plain forks \
                     from now on, seen by the program's SIGCHLD handler and waitpid(-1); run \
                     under an init that reaps (tini, docker run --init), or set \
                     hide_runs = false to start that way",
                    sandbox::orphans::LIMIT,
                    sandbox::orphans::GRACE.as_secs()
                )
            });
        }
        let interval = Duration::from_millis(self.config.stats_interval_ms);
        if self.last_stats.elapsed() >= interval {
            self.write_stats(false);
        }
        let mut finished = false;
        if let Some((_, drain_deadline)) = &self.shutdown {
            if self.runs.is_empty() {
                finished = true;
            } else if Instant::now() >= *drain_deadline {
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
                    match observation_record(
                        run,
                        &self.instance,
                        index,
                        outcome,
                        duration_us,
                        &detail,
                    ) {
                        Some(o) => self.emit_observation(site, o),
                        None => {
                            let record = test_record(
                                run,
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
            let record = test_record(&run, &self.instance, index, outcome, us, Some(detail));
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

    /// Counts one finished test of `site` in its statistics.
    fn tally(&mut self, site: &'static Site, outcome: Outcome, duration_us: u64) {
        let tally = self.tallies.entry(site.key()).or_default();
        tally.tests += 1;
        tally.outcomes.add(outcome);
        tally.test_us += duration_us;
    }

    fn emit(&mut self, site: &'static Site, t: record::Test) {
        self.tally(site, t.outcome, t.duration_us);
        let failing = t.outcome.is_failure();
        crate::outcomes::add(&t);
        crate::checking::deliver(&t);
        self.push(&Record::Test(t.clone()));
        #[cfg(feature = "tracing")]
        if self.config.tracing {
            // The program's subscriber runs here, on the collector thread; it must not take the
            // thread with it.
            let _ = std::panic::catch_unwind(|| trace_record(&t));
        }
        if failing {
            self.on_failure(&t);
        }
    }

    /// An observation counts as a passed test of its site (it is one run of the site's entry)
    /// but is logged as what it is.
    fn emit_observation(&mut self, site: &'static Site, o: record::Observation) {
        self.tally(site, Outcome::Pass, o.duration_us);
        self.push(&Record::Observation(o));
    }

    fn on_failure(&mut self, t: &record::Test) {
        // The hook runs in every mode (before an abort, so that it can record the failure its
        // own way); a panicking hook is contained here.
        let hook = crate::outcomes::failure_hook();
        if let Some(hook) = hook {
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| hook(t)));
        }
        match self.config.on_failure {
            OnFailure::Log => {}
            OnFailure::Notify => diag::say(Level::Error, "failure", || failure_line(t)),
            OnFailure::Abort => {
                self.flush();
                diag::say(Level::Error, "abort", || {
                    format!(
                        "{}; on_failure = \"abort\": aborting the program",
                        failure_line(t)
                    )
                });
                std::process::abort();
            }
        }
    }

    fn push(&mut self, r: &Record) {
        self.pending.extend_from_slice(r.to_line().as_bytes());
        self.pending.push(b'\n');
    }

    fn flush(&mut self) {
        self.sink.write_lines(&mut self.pending);
    }

    fn write_stats(&mut self, is_final: bool) {
        self.last_stats = Instant::now();
        let elapsed = self.started.elapsed().as_secs_f64().max(1e-9);
        let all_runs: u64 = site::all().map(|s| s.runs.load(Relaxed)).sum();
        let sites = site::all()
            .filter(|s| s.rho() > 0.0 || s.runs.load(Relaxed) > 0)
            .map(|s| {
                let tally = self.tallies.get(&s.key());
                let runs = s.runs.load(Relaxed);
                let parent_ns = s.parent_ns.load(Relaxed);
                let (tests, outcomes, test_us) = tally
                    .map_or((0, OutcomeCounts::default(), 0), |t| {
                        (t.tests, t.outcomes.clone(), t.test_us)
                    });
                let sampled = s.sampled.load(Relaxed);
                SiteStats {
                    site: s.name().to_string(),
                    rho: s.rho(),
                    calls: s.calls.load(Relaxed).max(sampled),
                    sampled,
                    skipped: s.skips(),
                    runs,
                    tests,
                    outcomes,
                    mean_test_us: if tests > 0 {
                        test_us as f64 / tests as f64
                    } else {
                        0.0
                    },
                    mean_parent_us: if runs > 0 {
                        parent_ns as f64 / runs as f64 / 1e3
                    } else {
                        0.0
                    },
                    tests_per_sec: tests as f64 / elapsed,
                    overhead_share: parent_ns as f64 / 1e9 / elapsed,
                    run_share: share(runs, all_runs),
                }
            })
            .collect::<Vec<SiteStats>>();
        let failed: u64 = sites.iter().map(|s| s.skipped.fork_failed).sum();
        let stats = Record::Stats(record::Stats {
            v: record::VERSION,
            time: record::now(),
            host: self.instance.host.clone(),
            pid: self.instance.pid,
            elapsed_s: elapsed,
            is_final,
            sites,
            cow_faults: self.cow_faults,
            cow_share: self.cow_ns as f64 / 1e9 / elapsed,
            children_share: self.children_ns as f64 / 1e9 / elapsed,
            resident_mib: crate::sys::usage::resident_mib(),
            log_errors: self.sink.errors,
            log_lost: self.sink.lost,
        });
        self.push(&stats);
        // From the record just written, so that the warning and the record agree; the count
        // advances only when the warning passed the rate limit, so none is lost.
        if failed > self.fork_failures_said {
            let new = failed - self.fork_failures_said;
            if diag::say_if_admitted(Level::Warn, "fork failed", || {
                fork_failure_notice(new, failed)
            }) {
                self.fork_failures_said = failed;
            }
        }
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
        crate::sys::fd::wait_readable(&fds, limit);
        crate::sys::fd::drain_eventfd(woken.as_fd());
    }
}

/// The stderr line naming a failing test (`notify` and `abort`).
/// One test record as a `tracing` event, for programs whose telemetry runs through `tracing`.
#[cfg(feature = "tracing")]
fn trace_record(t: &record::Test) {
    let detail = t.detail.as_deref().unwrap_or("");
    let inputs = serde_json::to_string(&t.inputs).unwrap_or_default();
    macro_rules! event {
        ($level:expr) => {
            tracing::event!(
                target: "invite::record",
                $level,
                site = %t.site,
                test = %t.test,
                outcome = %t.outcome,
                run = t.run,
                duration_us = t.duration_us,
                detail,
                inputs = %inputs,
                test_seed = t.seeds.test_seed,
                "{} in {}: {}",
                t.outcome,
                t.site,
                t.test
            )
        };
    }
    if t.outcome.is_failure() {
        event!(tracing::Level::WARN);
    } else {
        event!(tracing::Level::DEBUG);
    }
}

fn failure_line(t: &record::Test) -> String {
    let detail = t
        .detail
        .as_deref()
        .map(|d| format!(" ({d})"))
        .unwrap_or_default();
    format!("{} in {}: {}{detail}", t.outcome, t.site, t.test)
}

/// The record of a discovery entry that observed its call; `None` for any other test, and for a
/// discovery that did not observe (blocked, timed out, failed), which is logged as a test.
fn observation_record(
    run: &LiveRun,
    instance: &Instance,
    index: usize,
    outcome: Outcome,
    duration_us: u64,
    detail: &Option<String>,
) -> Option<record::Observation> {
    let (text, kind) = run.h.site.meta.tests.get(index)?;
    if *kind != TestKind::Discover || outcome != Outcome::Pass {
        return None;
    }
    let observation = serde_json::from_str(detail.as_deref()?).ok()?;
    Some(record::Observation {
        v: record::VERSION,
        time: run.time.clone(),
        host: instance.host.clone(),
        pid: instance.pid,
        site: run.h.site.name().to_string(),
        signature: text
            .strip_prefix(DISCOVER_PREFIX)
            .unwrap_or(text)
            .to_string(),
        run: run.h.run,
        duration_us,
        seeds: run.seeds.clone(),
        observation,
    })
}

fn test_record(
    run: &LiveRun,
    instance: &Instance,
    index: usize,
    outcome: Outcome,
    duration_us: u64,
    detail: Option<String>,
) -> record::Test {
    record::Test {
        v: record::VERSION,
        time: run.time.clone(),
        host: instance.host.clone(),
        pid: instance.pid,
        site: run.h.site.name().to_string(),
        test: run.h.site.meta.tests[index].0.to_string(),
        run: run.h.run,
        outcome,
        parent_us: run.h.parent_ns / 1000,
        duration_us,
        inputs: run.inputs.clone(),
        detail,
        seeds: run.seeds.clone(),
    }
}

#[cfg(test)]
// The tests fork and signal processes of their own to set up what the code must survive.
#[allow(unsafe_code)]
mod tests {
    use super::*;

    fn counters(calls: u64, sampled: u64, refused: u64) -> Counters {
        Counters {
            calls,
            sampled,
            refused,
        }
    }

    #[test]
    fn a_window_waits_until_it_is_long_and_full_enough() {
        let start = counters(1000, 100, 7);
        let rich = counters(2000, 110, 7);
        let sparse = counters(2000, 102, 7);
        assert_eq!(adapt_rate(0.1, 60.0, 1, start, rich, 0.49), Adapt::Wait);
        assert_ne!(adapt_rate(0.1, 60.0, 1, start, rich, 0.5), Adapt::Wait);
        assert_eq!(adapt_rate(0.1, 60.0, 1, start, sparse, 0.9), Adapt::Wait);
        let five = counters(2000, 105, 7);
        assert_ne!(adapt_rate(0.1, 60.0, 1, start, five, 0.9), Adapt::Wait);
        assert_ne!(adapt_rate(0.1, 60.0, 1, start, sparse, 1.0), Adapt::Wait);
        assert_eq!(adapt_rate(0.0, 60.0, 1, start, rich, 5.0), Adapt::Wait);
    }

    #[test]
    fn a_well_sampled_window_sets_rho_from_the_call_rate() {
        // 1000 calls in the window over a second, 10 sampled: to get 1 test a second at one
        // test a run, ρ = 1 / 1000; at two tests a run, half that.
        let start = counters(5000, 100, 7);
        let now = counters(6000, 110, 9);
        assert_eq!(adapt_rate(0.1, 60.0, 1, start, now, 1.0), Adapt::Set(0.001));
        assert_eq!(
            adapt_rate(0.1, 60.0, 2, start, now, 1.0),
            Adapt::Set(0.0005)
        );
        assert_eq!(adapt_rate(0.1, 60.0, 0, start, now, 1.0), Adapt::Set(0.001));
        assert_eq!(
            adapt_rate(0.00105, 60.0, 1, start, now, 1.0),
            Adapt::Keep,
            "within 10%"
        );
        assert_eq!(
            adapt_rate(0.0012, 60.0, 1, start, now, 1.0),
            Adapt::Set(0.001)
        );
        // The same calls over two seconds are half the rate: twice the ρ.
        assert_eq!(adapt_rate(0.1, 60.0, 1, start, now, 2.0), Adapt::Set(0.002));
        assert_eq!(
            adapt_rate(0.5, 600_000.0, 1, start, now, 1.0),
            Adapt::Set(1.0),
            "never above 1"
        );
    }

    #[test]
    fn a_window_of_few_is_under_sampled_only_when_so_few_are_unlikely_at_the_target() {
        let raised_to = |decision: Adapt| match decision {
            Adapt::Set(rho) => rho,
            other => panic!("{other:?}"),
        };
        // Two tests a second wanted. One sampled call in a second happens at that rate four
        // times in ten, and one in two seconds one time in eleven: the window grows.
        let start = counters(100, 50, 7);
        let one = counters(150, 51, 7);
        assert_eq!(adapt_rate(0.01, 120.0, 1, start, one, 1.0), Adapt::Wait);
        assert_eq!(adapt_rate(0.01, 120.0, 1, start, one, 2.0), Adapt::Wait);
        // None in two seconds (one time in 55), or one in three (one time in 60): under-sampled,
        // and ρ rises by what was wanted over what was seen (at least one).
        let none = counters(150, 50, 7);
        let rho = raised_to(adapt_rate(0.01, 120.0, 1, start, none, 2.0));
        assert!((rho - 0.04).abs() < 1e-12, "{rho}");
        let rho = raised_to(adapt_rate(0.01, 120.0, 1, start, one, 3.0));
        assert!((rho - 0.06).abs() < 1e-12, "{rho}");
        // Two tests a run expect half the sampled calls: one in three seconds is then likely.
        assert_eq!(adapt_rate(0.01, 120.0, 2, start, one, 3.0), Adapt::Wait);
        // Half a test a second expects two in four seconds: none happens one time in seven.
        assert_eq!(adapt_rate(0.01, 30.0, 1, start, none, 4.0), Adapt::Wait);
    }

    #[test]
    fn too_few_is_a_poisson_tail_under_one_in_twenty() {
        // P(0 | 3) = e^-3 = 0.0498; P(0 | 2.9) = 0.055.
        assert!(too_few_for_the_target(0, 3.0));
        assert!(!too_few_for_the_target(0, 2.9));
        // P(≤ 4 | 10) = 0.029; P(≤ 5 | 10) = 0.067.
        assert!(too_few_for_the_target(4, 10.0));
        assert!(!too_few_for_the_target(5, 10.0));
        // Nothing expected: no count is too few.
        assert!(!too_few_for_the_target(0, 0.0));
    }

    #[test]
    fn an_under_sampled_window_raises_rho_unless_the_caps_refused_runs() {
        // 2 sampled calls in 2 s at one test a run: 1 test a second seen, 10 wanted.
        let start = counters(100, 50, 7);
        assert_eq!(
            adapt_rate(0.01, 600.0, 1, start, counters(150, 52, 7), 2.0),
            Adapt::Set(0.1)
        );
        assert_eq!(
            adapt_rate(0.01, 600.0, 1, start, counters(150, 52, 8), 2.0),
            Adapt::Keep,
            "refusals made the window sparse"
        );
        // At two tests a run, 2 tests a second seen: five times the ρ.
        assert_eq!(
            adapt_rate(0.01, 600.0, 2, start, counters(150, 52, 7), 2.0),
            Adapt::Set(0.05)
        );
        // At most 16 times at once; and a rate already met stays.
        assert_eq!(
            adapt_rate(0.01, 6000.0, 1, start, counters(150, 52, 7), 2.0),
            Adapt::Set(0.16)
        );
        assert_eq!(
            adapt_rate(0.01, 30.0, 1, start, counters(150, 52, 7), 2.0),
            Adapt::Keep
        );
    }

    #[test]
    fn the_fork_failure_notice_says_how_many_went_untested_why_and_where_they_are_counted() {
        assert!(fork_failure_notice(1, 1).starts_with("1 sampled call went untested (1 since"));
        let line = fork_failure_notice(3, 12);
        assert!(
            line.starts_with("3 sampled calls went untested (12 since start)"),
            "{line}"
        );
        assert!(line.contains("fork or pipe failed"), "{line}");
        assert!(line.contains("counted as fork_failed"), "{line}");
    }

    #[test]
    fn the_refusal_notice_names_the_cap_that_refused_most_and_only_when_most_were_refused() {
        let config = Config {
            max_concurrent: 1,
            max_overhead: 0.05,
            ..Config::default()
        };
        let skips = |concurrency, overhead| SkipCounts {
            concurrency,
            overhead,
            dedup: 1000,
            ..SkipCounts::default()
        };
        let line = refusal_notice(100, &skips(60, 11), &config).unwrap();
        assert_eq!(
            line,
            "the caps refused 71 of 100 sampled calls (71%): 60 because \
             max_concurrent = 1 runs were alive, 11 because another run would have passed \
             max_overhead = 0.05; to test more, raise max_concurrent (now 1) in invite.toml, \
             or set when_busy = \"wait\" to test every sampled call"
        );
        let line = refusal_notice(100, &skips(11, 60), &config).unwrap();
        assert!(
            line.contains("raise max_overhead (now 0.05) in invite.toml,"),
            "{line}"
        );
        // Half refused, or too few sampled: nothing to say.
        assert_eq!(refusal_notice(100, &skips(25, 25), &config), None);
        assert!(refusal_notice(100, &skips(25, 26), &config).is_some());
        assert_eq!(refusal_notice(9, &skips(9, 0), &config), None);
        assert!(refusal_notice(10, &skips(10, 0), &config).is_some());
    }

    #[test]
    fn a_share_of_nothing_is_zero() {
        assert_eq!(share(0, 0), 0.0);
        assert_eq!(share(1, 4), 0.25);
        assert_eq!(share(4, 4), 1.0);
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
            let instance = Instance {
                host: "test".into(),
                pid: std::process::id(),
                exe: String::new(),
            };
            let start = record::Start {
                v: record::VERSION,
                time: record::now(),
                instance: instance.clone(),
                config_file: String::new(),
                config: serde_json::Value::Null,
                sites: Vec::new(),
            };
            let config = Config {
                drain_ms: 1,
                ..Config::default()
            };
            let budget = Arc::new(Budget::new(1, 1.0));
            let (collector, inbox) =
                Collector::spawn(&config, instance, budget, 0, sink, start).expect("collector");
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
