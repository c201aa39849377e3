//! The worker of `pure` sites: tests at the cost of a copy, not of a fork.
//!
//! A site declared pure (its result depends on its arguments alone) does not fork on a sampled
//! call. The caller writes an *entry* into a shared ring ([`invite_sandbox::ring`]): the facts a
//! run's record needs (site, run number, time, random-stream position, seeds), the code that
//! tests such a call (a function pointer, valid in the worker because the worker is a fork of
//! the program), the arguments and the result, copied by [`crate::travel`]. It then returns.
//!
//! The worker is two processes, forked once from the program by the collector (hidden as runs
//! are) and forked again when they die:
//!
//! - the *supervisor* plays the part a run plays for a forked call: cut loose from the program
//!   (signals, terminal, descriptors, shared memory but the ring), it reads each entry's facts
//!   from the ring, reports every test to the collector, and watches the executor: a test that
//!   passes its deadline is a `timeout`, one that kills the executor a `crash`/`error`/`blocked`,
//!   exactly as a forked test process is classified; the executor is then forked again and goes
//!   on with the next test.
//! - the *executor* plays the part of a forked run: it reads each entry into values of its own
//!   and forks a test process for each test of the call, as a run does ([`ChildRun`]): under
//!   the site's seccomp filter and memory cap, the test process runs one test on the entry's
//!   values and reports its verdict on a pipe of its own, which the executor reads. Before its
//!   test, each test process checks that the function gives the caller's result on the copy (a
//!   function that reads state the caller changed is not pure: the call's tests are then
//!   `inconclusive`). The check is the source run every test makes anyway, made once more:
//!   cheaper than a process of its own.
//!
//! So no test's code runs in the executor: whatever a test writes (a `static`, an atomic, a
//! thread-local, a leaked allocation) dies with its test process, and each test starts from
//! the state the worker was forked with. A test process holds neither the executor's channel
//! to the supervisor nor the supervisor's to the collector: all it can say is its own verdict.
//!
//! The ring is mapped read-only in all three, from a read-only descriptor, so nothing a test
//! does can change what callers read. The worker sees the program's memory as it was when it
//! was forked.

use std::collections::BTreeMap;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant, SystemTime};

use super::child::{self, ChildRun, Tests};
use super::detach;
use super::wire::{self, Call, Called, Frame, FrameReader};
use super::{kill, pidfd_open, pipe, raw, readable, set_blocking, try_reap, Launcher};
use super::{Follow, TestCtx};
use crate::budget::SkipReason;
use crate::diag::Level;
use crate::record::Outcome;
use crate::rng::{self, Snapshot};
use crate::site::{Sampled, Site};
use crate::travel::{Travel, Untravelled};
use invite_sandbox::ring::{Found, Full, Ring};
use invite_sandbox::run::{self, exit_now, Forked};

/// The code that tests one call of a pure site, written by the attribute: it reads the
/// arguments and the caller's result from the entry's bytes and hands the tests to the run.
pub type Runner = fn(&mut &[u8], WorkerRun<'_>);

/// The program's side of the workers: one lane (a ring and the worker that reads it) per
/// worker, and what the collector forks them with.
#[derive(Debug)]
pub(crate) struct Pool {
    pub lanes: Vec<Lane>,
    pub launcher: &'static Launcher,
    /// Runs are hidden from the program's child handling: so are the workers.
    pub hidden: bool,
    /// Calls written into the rings, and calls whose records the collector has written (or
    /// that it counted as never tested): equal when every worker is idle.
    queued: AtomicU64,
    pub settled: AtomicU64,
}

/// One worker's ring, and whether the worker is alive.
#[derive(Debug)]
pub(crate) struct Lane {
    pub ring: Ring,
    /// Set when a caller wrote an entry while no worker was alive.
    wanted: AtomicBool,
    /// The worker's supervisor is alive (the collector follows it).
    alive: AtomicBool,
}

static POOL: OnceLock<Pool> = OnceLock::new();

/// How the rings are made when a site first needs them: `workers` of `ring_bytes` each.
struct Plan {
    launcher: &'static Launcher,
    hidden: bool,
    workers: usize,
    ring_bytes: usize,
}

static PLAN: OnceLock<Plan> = OnceLock::new();
static OPENED: std::sync::Once = std::sync::Once::new();

/// Says how to make the rings, which the first sampled call that goes to the worker makes (a
/// program none of whose sites goes there holds none).
pub(crate) fn plan(launcher: &'static Launcher, hidden: bool, workers: usize, ring_bytes: usize) {
    let _ = PLAN.set(Plan {
        launcher,
        hidden,
        workers,
        ring_bytes,
    });
}

/// The pool, made first if the plan is known and it is not yet.
fn open_planned() -> Option<&'static Pool> {
    OPENED.call_once(|| {
        if let Some(p) = PLAN.get() {
            open(p.launcher, p.hidden, p.workers, p.ring_bytes);
        }
    });
    pool()
}

/// Makes the rings: `workers` of `ring_bytes` each.
fn open(launcher: &'static Launcher, hidden: bool, workers: usize, ring_bytes: usize) {
    let lanes: std::io::Result<Vec<Lane>> = (0..workers.max(1))
        .map(|_| {
            Ok(Lane {
                ring: Ring::new(ring_bytes)?,
                wanted: AtomicBool::new(false),
                alive: AtomicBool::new(false),
            })
        })
        .collect();
    match lanes {
        Ok(lanes) => {
            let _ = POOL.set(Pool {
                lanes,
                launcher,
                hidden,
                queued: AtomicU64::new(0),
                settled: AtomicU64::new(0),
            });
        }
        Err(e) => crate::diag::say(crate::diag::Level::Warn, "worker", || {
            format!(
                "cannot make the shared rings of pure sites' workers ({e}); pure sites fork \
                 their runs as other sites do"
            )
        }),
    }
}

pub(crate) fn pool() -> Option<&'static Pool> {
    POOL.get()
}

impl Pool {
    /// Whether every call written into the rings has its records written.
    pub fn idle(&self) -> bool {
        self.settled.load(Ordering::Acquire) >= self.queued.load(Ordering::Acquire)
    }
}

impl Lane {
    /// Whether the collector should fork this lane's worker: entries wait and none is alive.
    pub fn wanted(&self) -> bool {
        !self.alive.load(Ordering::Acquire)
            && (self.wanted.load(Ordering::Acquire) || self.pending())
    }

    /// Whether entries wait in the ring, or are under way.
    pub fn pending(&self) -> bool {
        self.ring.tail() != self.ring.progress().done.load(Ordering::Acquire)
    }

    pub fn set_alive(&self, alive: bool) {
        self.alive.store(alive, Ordering::Release);
        if alive {
            self.wanted.store(false, Ordering::Release);
        }
    }
}

/// The lane of this thread's calls: threads are dealt to lanes in turn, so that callers on
/// many threads share the workers.
fn lane_of_this_thread(lanes: usize) -> usize {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    thread_local! {
        static LANE: std::cell::Cell<usize> = const { std::cell::Cell::new(usize::MAX) };
    }
    LANE.with(|l| {
        if l.get() == usize::MAX {
            l.set(NEXT.fetch_add(1, Ordering::Relaxed));
        }
        l.get() % lanes
    })
}

/// The bytes of an entry before the arguments.
struct Head {
    runner: u64,
    site: u64,
    run: u64,
    time_ns: u64,
    snapshot: Snapshot,
    test_seed: u64,
    tests: u64,
    timeout_ms: u64,
    tolerance: f64,
    parent_ns: u64,
}

impl Head {
    fn put(&self, out: &mut Vec<u8>) {
        for word in [
            self.runner,
            self.site,
            self.run,
            self.time_ns,
            self.test_seed,
            self.tests,
            self.timeout_ms,
            self.parent_ns,
        ] {
            word.put(out);
        }
        self.tolerance.put(out);
        self.snapshot.put(out);
    }

    fn take(input: &mut &[u8]) -> Option<Head> {
        let mut w = [0u64; 8];
        for word in &mut w {
            *word = u64::take(input)?;
        }
        Some(Head {
            runner: w[0],
            site: w[1],
            run: w[2],
            time_ns: w[3],
            test_seed: w[4],
            tests: w[5],
            timeout_ms: w[6],
            parent_ns: w[7],
            tolerance: f64::take(input)?,
            snapshot: <Snapshot as Travel>::take(input)?,
        })
    }

    /// The registered site this entry names; `None` for an address no site has.
    fn site(&self) -> Option<&'static Site> {
        crate::site::all().find(|s| std::ptr::from_ref::<Site>(s) as u64 == self.site)
    }
}

/// A sampled call of a pure site on its way to the worker: its arguments are written; the
/// result follows once the body has run ([`Queued::send`]).
pub struct Queued {
    bytes: Vec<u8>,
    site: &'static Site,
    started: Instant,
    parent_at: usize,
    budget: &'static crate::budget::Budget,
}

/// The largest buffer a thread keeps between sampled calls of pure sites.
const SPARE_MAX: usize = 8 << 20;

thread_local! {
    /// A spare buffer for entries, kept to save an allocation per sampled call.
    static SPARE: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Starts the entry of a sampled call of a pure site: `Err` gives the call back when it must
/// fork instead (the site is not pure, or no longer, or there is no worker here, or a check
/// asked for it, or `untravelled` names a value that cannot be copied), `Ok(None)` when the
/// caps refuse it.
pub fn queue(
    sampled: Sampled,
    runner: Runner,
    untravelled: Option<Untravelled>,
    args: impl FnOnce(&mut Vec<u8>),
) -> Result<Option<Queued>, Sampled> {
    if !sampled.in_worker() {
        return Err(sampled);
    }
    // Before the rings are made: a site whose values cannot travel needs none.
    if let Some(u) = untravelled {
        cannot_travel(sampled.site(), u);
        return Err(sampled);
    }
    let Some(pool) = pool().or_else(open_planned) else {
        return Err(sampled);
    };
    let started = Instant::now();
    let (site, rt) = (sampled.site(), sampled.sampling());
    let Some(()) = sampled.admit_queued() else {
        return Ok(None);
    };
    let time = SystemTime::now();
    let tests = rt.live.tests_at(site, time);
    if tests == 0 {
        site.count_skip(SkipReason::Disabled);
        return Ok(None);
    }
    let mut bytes = SPARE.with(std::cell::Cell::take);
    bytes.clear();
    let head = Head {
        runner: super::entry::runner_address(runner),
        site: std::ptr::from_ref::<Site>(site) as u64,
        run: pool.launcher.next_run_id(),
        time_ns: time
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64),
        snapshot: Snapshot::take(),
        test_seed: 0,
        tests,
        timeout_ms: site.timeout_ms(),
        tolerance: site.tolerance(),
        parent_ns: 0,
    };
    let head = Head {
        test_seed: pool.launcher.test_seed(head.run),
        ..head
    };
    head.put(&mut bytes);
    // Where `parent_ns` is, to fill in when the entry is complete.
    let parent_at = 7 * 8;
    args(&mut bytes);
    Ok(Some(Queued {
        bytes,
        site,
        started,
        parent_at,
        budget: &rt.budget,
    }))
}

/// A site `invite.toml` sent to the worker whose parameter or result cannot be copied there:
/// it forks from now on, said once.
fn cannot_travel(site: &'static Site, u: Untravelled) {
    if site.demote() {
        crate::diag::say(Level::Warn, "config", || {
            untravelled_message(site.name(), u)
        });
    }
}

fn untravelled_message(site: &str, u: Untravelled) -> String {
    let (why, fix) = if u.generic {
        (
            "its type names a type parameter whose bounds do not include invite::Travel".to_owned(),
            "add the bound",
        )
    } else {
        (
            format!(
                "`{}` implements neither invite::Travel nor, with invite's `serde` feature, \
                 serde's Serialize and DeserializeOwned",
                u.ty
            ),
            "implement invite::Travel for it",
        )
    };
    format!(
        "isolation = \"worker\" for {site}, but {} cannot travel to the worker: {why}. Its \
         calls fork; {fix}, or remove the key",
        u.what
    )
}

impl Queued {
    /// Adds the caller's result and writes the entry into the ring, never waiting: a full ring
    /// skips the test (counted as `ring_full`).
    pub fn send(mut self, result: impl FnOnce(&mut Vec<u8>)) {
        result(&mut self.bytes);
        let Some(pool) = pool() else { return };
        let cost = self.started.elapsed().as_nanos() as u64;
        self.bytes[self.parent_at..self.parent_at + 8].copy_from_slice(&cost.to_le_bytes());
        // This thread's lane first, then the others in turn: a full ring skips the test only
        // when every ring is full.
        let n = pool.lanes.len();
        let first = lane_of_this_thread(n);
        let mut outcome = Err(Full::NoRoom);
        for k in 0..n {
            let lane = &pool.lanes[(first + k) % n];
            outcome = lane.ring.push(&self.bytes);
            if outcome.is_ok() {
                if !lane.alive.load(Ordering::Relaxed) {
                    lane.wanted.store(true, Ordering::Release);
                }
                break;
            }
            if outcome == Err(Full::TooLarge) {
                break;
            }
        }
        match outcome {
            Ok(()) => {
                pool.queued.fetch_add(1, Ordering::Release);
                self.site.runs.fetch_add(1, Ordering::Relaxed);
                self.site.parent_ns.fetch_add(cost, Ordering::Relaxed);
            }
            Err(full) => {
                if full == Full::TooLarge {
                    too_large(self.site, self.bytes.len(), pool.lanes[0].ring.capacity());
                }
                self.site.count_skip(SkipReason::RingFull);
            }
        }
        self.budget.charge(self.started.elapsed().as_nanos() as u64);
        let mut bytes = std::mem::take(&mut self.bytes);
        // A thread keeps its buffer for its next sampled call, up to 8 MiB: growing one again
        // costs a page fault every 4 KiB.
        if bytes.capacity() <= SPARE_MAX {
            bytes.clear();
            SPARE.with(|s| s.set(bytes));
        }
    }
}

/// Says once per site that its calls do not fit the ring.
fn too_large(site: &Site, bytes: usize, cap: usize) {
    if site.said_too_large.swap(true, Ordering::Relaxed) {
        return;
    }
    crate::diag::say(crate::diag::Level::Warn, "worker ring", || {
        format!(
            "a call of pure site {} takes {bytes} bytes, more than half the worker's ring \
             ({cap} bytes): its tests are skipped (counted as ring_full); raise worker_ring_mib \
             in invite.toml",
            site.name()
        )
    });
}

/// Forks the supervisor of lane `lane`'s worker from the collector thread; returns its pid,
/// how to follow it, and the read end of its report pipe.
pub(crate) fn spawn(
    pool: &'static Pool,
    lane: usize,
) -> std::io::Result<(libc::pid_t, Follow, OwnedFd)> {
    // Before the fork: the worker's test processes report their panics through this hook.
    crate::role::route_panics(child::report_panic);
    let (read_end, write_end) = pipe()?;
    let write_raw = write_end.as_raw_fd();
    let read_raw = read_end.as_raw_fd();
    let mut in_worker = |program: Option<OwnedFd>| {
        run::close_raw(read_raw);
        let report = run::own_raw(write_raw);
        supervise(pool, lane, report, program);
    };
    let launcher = pool.launcher;
    if pool.hidden {
        let launched = super::launch::hidden(launcher.pid, -1, &mut in_worker)?;
        drop(write_end);
        Ok((launched.pid, Follow::Pidfd(launched.pidfd), read_end))
    } else {
        let pid = match run::fork()? {
            Forked::Parent(pid) => pid,
            Forked::Child => {
                if run::parent_pid() != launcher.pid {
                    exit_now(5);
                }
                in_worker(pidfd_open(launcher.pid));
                exit_now(70);
            }
        };
        drop(write_end);
        Ok((pid, invite_sandbox::process::follow(pid), read_end))
    }
}

/// Where the executor takes up the work: an entry, and how many of its tests are done.
#[derive(Clone, Copy, Debug)]
struct Resume {
    pos: u64,
    done_tests: usize,
}

/// The call the executor is on, as the supervisor follows it: its report so far.
struct Current {
    called: Called,
    /// The site's tests the call runs, in order (`called.tests` has the first ones).
    order: Vec<usize>,
    pos: u64,
    /// When the test under way began, and its deadline.
    since: Instant,
    timeout: Duration,
}

impl Current {
    fn reported(&self) -> usize {
        self.called.tests.len()
    }

    fn complete(&self) -> bool {
        self.reported() >= self.order.len()
    }
}

/// The supervisor: cut loose, then follow the executor until the program ends.
fn supervise(pool: &'static Pool, lane: usize, report: OwnedFd, program: Option<OwnedFd>) -> ! {
    let launcher = pool.launcher;
    child::isolate(launcher, Duration::ZERO, -1);
    run::name_process(c"invite worker");
    if program.as_ref().is_some_and(|p| readable(raw(p))) {
        exit_now(5);
    }
    // Every ring read-only here; the other lanes' progress pages gone.
    for (i, other) in pool.lanes.iter().enumerate() {
        if other.ring.seal_read_only().is_err() {
            exit_now(6);
        }
        if i != lane {
            other.ring.unmap_progress();
        }
    }
    let lane = &pool.lanes[lane];
    let mut files = Vec::new();
    if launcher.filter.is_some() {
        // The report pipe, the program's pidfd, and the eventfd callers wake this lane with.
        let mut keep = vec![report.as_raw_fd(), lane.ring.wakeup_fd()];
        keep.extend(program.as_ref().map(raw));
        files = detach::descriptors(&keep);
        detach::privatize_shared_mappings_except(&lane.ring.ranges());
    }
    set_blocking(&report);
    let mut rep = Outbox {
        fd: report.as_raw_fd(),
        queued: Vec::new(),
    };
    let progress = lane.ring.progress();
    let mut resume = Resume {
        pos: progress.done.load(Ordering::Acquire),
        done_tests: 0,
    };
    let mut current: Option<Current> = None;
    // The position after the entry the executor is on, whatever the entry held.
    let mut begun_next: Option<u64> = None;
    // CPU time reported to the collector so far: the executor's (as it said) and this
    // process's own; both are charged to the overhead budget.
    let mut cpu_reported = 0u64;
    let mut own_reported = 0u64;
    // Executors reaped so far: their CPU time, as this process's children's.
    let mut children_seen = 0u64;
    loop {
        // One executor's life: fork it, follow it, classify how it ended.
        let Ok((read_end, write_end)) = pipe() else {
            exit_now(7);
        };
        // How the supervisor wakes an idle executor (the executor has no other way to hear of
        // new calls: it cannot reach the progress page, where callers look for a sleeper).
        let Ok((wake_rx, wake_tx)) = pipe() else {
            exit_now(7);
        };
        let supervisor = run::pid();
        let pid = match run::fork() {
            Ok(Forked::Parent(pid)) => pid,
            Ok(Forked::Child) => {
                drop(read_end);
                drop(wake_tx);
                run::close_inherited(&[&report]);
                if let Some(p) = &program {
                    run::close_inherited(&[p]);
                }
                execute(pool, lane, supervisor, write_end, wake_rx, &files, resume)
            }
            Err(_) => exit_now(7),
        };
        drop((write_end, wake_rx));
        // Where the executor waits for a call, while it does.
        let mut idle_at: Option<u64> = None;
        let pidfd = pidfd_open(pid);
        let rd = raw(&read_end);
        let mut reader = FrameReader::default();
        let mut panic: Option<String> = None;
        let mut eof = false;
        // What is ready, from the last wait: everything, the first time round.
        let mut ready = [true; 4];
        let ended = loop {
            let [frames, program_ready, ended, woken] = ready;
            if woken {
                lane.ring.disarm();
                wake(&wake_tx);
                idle_at = None;
            }
            if frames && !eof {
                eof = reader.read_available(rd);
            }
            // Without a pidfd, nothing says the executor ended: look each time round.
            let exit = if ended || pidfd.is_none() {
                try_reap(pid, pidfd.as_ref())
            } else {
                None
            };
            if exit.is_some() {
                reader.read_available(rd);
            }
            while let Some(frame) = reader.next_frame() {
                match frame {
                    Frame::Begin { pos } => {
                        // The same call again, after its executor was replaced, keeps its
                        // report so far.
                        if current.as_ref().is_none_or(|c| c.pos != pos) {
                            let (next, call) = begin(&lane.ring, pos);
                            begun_next = next;
                            current = call;
                        }
                        panic = None;
                    }
                    Frame::Inputs { inputs } => {
                        if let Some(c) = &mut current {
                            c.called.inputs = inputs;
                        }
                    }
                    Frame::Verdict {
                        outcome,
                        detail,
                        duration_us,
                    } => {
                        if let Some(c) = &mut current {
                            test_reported(c, outcome, detail, duration_us);
                            panic = None;
                        }
                    }
                    Frame::Impure { detail } => {
                        if let Some(c) = &mut current {
                            while !c.complete() {
                                let d = Some(detail.clone());
                                test_reported(c, Outcome::Inconclusive, d, 0);
                            }
                            c.called.impure = true;
                        }
                    }
                    Frame::Idle { pos } => idle_at = Some(pos),
                    Frame::Finished { cpu_ns } => {
                        // The executor's CPU time since its last report, and this process's.
                        let own = invite_sandbox::usage::cpu_ns(libc::RUSAGE_SELF);
                        let delta =
                            cpu_ns.saturating_sub(cpu_reported) + own.saturating_sub(own_reported);
                        (cpu_reported, own_reported) = (cpu_ns, own);
                        if let Some(mut c) = current.take() {
                            c.called.cpu_ns = delta;
                            rep.add(&Frame::Called(Box::new(c.called)));
                        }
                        if let Some(next) = begun_next.take() {
                            progress.done.store(next, Ordering::Release);
                            resume = Resume {
                                pos: next,
                                done_tests: 0,
                            };
                        }
                    }
                    Frame::Panic { message } => {
                        panic = Some(match panic.take() {
                            Some(first) => first,
                            None => message,
                        })
                    }
                    _ => {}
                }
            }
            rep.flush();
            if let Some(exit) = exit {
                break Some(exit);
            }
            if program_ready && program.as_ref().is_some_and(|p| readable(raw(p))) {
                kill(pid, pidfd.as_ref());
                exit_now(5);
            }
            let now = Instant::now();
            if let Some(c) = &current {
                if now >= c.since + c.timeout {
                    kill(pid, pidfd.as_ref());
                    while try_reap(pid, pidfd.as_ref()).is_none() {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                    break None;
                }
            }
            let limit = current.as_ref().map_or(Duration::from_millis(1000), |c| {
                (c.since + c.timeout).saturating_duration_since(now)
            });
            // An idle executor sleeps until a caller wakes this process (or a call came in the
            // meantime: it is woken at once).
            let sleeper = match idle_at {
                Some(pos) if lane.ring.arm(pos) => lane.ring.wakeup_fd(),
                Some(_) => {
                    wake(&wake_tx);
                    idle_at = None;
                    -1
                }
                None => -1,
            };
            let fds = [
                if eof { -1 } else { rd },
                program.as_ref().map_or(-1, raw),
                pidfd.as_ref().map_or(-1, raw),
                sleeper,
            ];
            let cap = if pidfd.is_some() { 1000 } else { 5 };
            ready = run::poll_ready(fds, limit.as_millis().clamp(1, cap) as i32);
        };
        if idle_at.is_some() {
            lane.ring.disarm();
        }
        // The executor is gone, reaped: what it used since its last report is charged with
        // the next call's. Whatever test it was on costs that test alone.
        let children = invite_sandbox::usage::cpu_ns(libc::RUSAGE_CHILDREN);
        own_reported = own_reported.saturating_sub(
            children
                .saturating_sub(children_seen)
                .saturating_sub(cpu_reported),
        );
        children_seen = children;
        cpu_reported = 0;
        let Some(c) = &mut current else {
            // Between calls, or on an entry naming no site: take up after it.
            if let Some(next) = begun_next.take() {
                progress.done.store(next, Ordering::Release);
                resume = Resume {
                    pos: next,
                    done_tests: 0,
                };
            }
            continue;
        };
        let elapsed = c.since.elapsed().as_micros() as u64;
        // The executor runs no test's code (its test processes do, under their own deadline),
        // so this is the executor's own failure: reading the call's values back, or rendering
        // them as text, hung or crashed.
        let (outcome, detail) = match (ended, panic.take()) {
            (None, _) => (
                Outcome::Timeout,
                format!(
                    "the worker of pure sites did not finish reading the call's values back \
                     within {} ms (does its `Travel`, serde or `Debug` code loop?); the worker \
                     was replaced",
                    c.timeout.as_millis()
                ),
            ),
            (Some(exit), Some(message)) => (
                Outcome::Error,
                format!("{message}; the worker then {}", exit.describe()),
            ),
            (Some(exit), None) => (
                Outcome::Error,
                format!(
                    "the worker {} during the test (it was replaced)",
                    exit.describe()
                ),
            ),
        };
        if !c.complete() {
            test_reported(c, outcome, Some(detail), elapsed);
        }
        resume = Resume {
            pos: c.pos,
            done_tests: c.reported(),
        };
        if c.complete() {
            let next = c.called.call.next;
            if let Some(c) = current.take() {
                rep.add(&Frame::Called(Box::new(c.called)));
            }
            progress.done.store(next, Ordering::Release);
            resume = Resume {
                pos: next,
                done_tests: 0,
            };
            begun_next = None;
        }
        rep.flush();
    }
}

/// Wakes the idle executor; a wake-up it has not read yet is as good as a new one.
fn wake(tx: &OwnedFd) {
    let _ = wire::write_all(raw(tx), &[1]);
}

/// A test of the current call reported, and the next one's clock starts.
fn test_reported(c: &mut Current, outcome: Outcome, detail: Option<String>, duration_us: u64) {
    let Some(&index) = c.order.get(c.reported()) else {
        return;
    };
    c.called.tests.push((index, outcome, duration_us, detail));
    c.since = Instant::now();
}

/// The executor began the entry at `pos`: its facts, read from the ring (not from the
/// executor, which runs the tests' code), and the position after it.
fn begin(ring: &Ring, pos: u64) -> (Option<u64>, Option<Current>) {
    let Found::Entry { bytes, next } = ring.read_prefix(pos, HEAD_BYTES) else {
        return (None, None);
    };
    let Some(head) = Head::take(&mut bytes.as_slice()) else {
        return (Some(next), None);
    };
    let Some(site) = head.site() else {
        return (Some(next), None);
    };
    let order: Vec<usize> = (0..site.meta.tests.len())
        .filter(|&i| crate::site::runs_test(head.tests, i))
        .collect();
    let call = Call {
        run: head.run,
        site: head.site,
        time_ns: head.time_ns,
        seeds: head.snapshot.seeds(head.test_seed),
        tests: head.tests,
        parent_ns: head.parent_ns,
        next,
    };
    let current = Current {
        called: Called {
            call,
            inputs: BTreeMap::new(),
            tests: Vec::with_capacity(order.len()),
            impure: false,
            cpu_ns: 0,
        },
        order,
        pos,
        since: Instant::now(),
        timeout: executor_deadline(Duration::from_millis(head.timeout_ms.max(1))),
    };
    (Some(next), Some(current))
}

/// How long the supervisor lets the executor go without a verdict: the executor ends each test
/// process (its purity check and its test) at the test's deadline itself, so this is a backstop
/// against the executor's own code (reading values back) hanging.
fn executor_deadline(per_test: Duration) -> Duration {
    per_test * 2 + Duration::from_secs(1)
}

/// The bytes of an entry's [`Head`] (and some to spare).
const HEAD_BYTES: usize = 256;

/// The executor's frames to its supervisor, written together: everything queued goes out
/// before anything runs that could hang or crash (so the supervisor knows which test did),
/// and no sooner.
struct Outbox {
    fd: RawFd,
    queued: Vec<u8>,
}

impl Outbox {
    fn add(&mut self, frame: &Frame) {
        self.queued.extend_from_slice(&frame.encode());
    }

    fn flush(&mut self) {
        if self.queued.is_empty() {
            return;
        }
        if wire::write_all(self.fd, &self.queued).is_err() {
            exit_now(3);
        }
        self.queued.clear();
    }
}

/// The executor: reads entries from the ring and forks their tests' processes, until its
/// supervisor or the program ends.
fn execute(
    pool: &'static Pool,
    lane: &'static Lane,
    supervisor: libc::pid_t,
    verdicts: OwnedFd,
    woken: OwnedFd,
    files: &[detach::Reopened],
    resume: Resume,
) -> ! {
    run::die_with(supervisor);
    run::name_process(c"invite worker");
    // Only the supervisor keeps the page callers read, and the eventfd they wake it with;
    // nothing run here can reach either.
    lane.ring.unmap_progress();
    run::close_raw(lane.ring.wakeup_fd());
    set_blocking(&verdicts);
    let fd = verdicts.as_raw_fd();
    // A panic here (reading a call's values back) is reported as the executor's; a test
    // process points the hook at its own pipe.
    child::set_panic_pipe(fd);
    let mut out = Outbox {
        fd,
        queued: Vec::new(),
    };
    let mut forks = Forks {
        launcher: pool.launcher,
        run: None,
        parts: Some((verdicts, files.to_vec(), vec![woken.as_raw_fd()])),
    };
    let mut pos = resume.pos;
    let mut skip = resume.done_tests;
    loop {
        match lane.ring.read(pos) {
            Found::Nothing => {
                out.add(&Frame::Idle { pos });
                out.flush();
                if run::parent_pid() != supervisor {
                    exit_now(4);
                }
                run::poll_ready([raw(&woken)], 200);
                let mut drained = [0u8; 64];
                invite_sandbox::run::read_some(raw(&woken), &mut drained);
            }
            Found::Skip { next } => pos = next,
            Found::Entry { bytes, next } => {
                out.add(&Frame::Begin { pos });
                // Before any of the program's code runs here (reading the values back may
                // panic or hang), the supervisor knows which call this is: the frames of the
                // call before go with it.
                out.flush();
                one_call(&bytes, &mut out, std::mem::take(&mut skip), &mut forks);
                // This process's time and that of the test processes it reaped.
                let cpu_ns = invite_sandbox::usage::cpu_ns(libc::RUSAGE_SELF)
                    + invite_sandbox::usage::cpu_ns(libc::RUSAGE_CHILDREN);
                out.add(&Frame::Finished { cpu_ns });
                // While more calls wait, their frames go out with the next call's first.
                if !matches!(lane.ring.read_prefix(next, 0), Found::Entry { .. }) {
                    out.flush();
                }
                pos = next;
            }
        }
    }
}

/// The executor's test processes: made, from the first call on, with the executor's channel
/// and the program's files, and pointed at each call in turn.
struct Forks {
    launcher: &'static Launcher,
    run: Option<ChildRun>,
    /// The executor's channel to its supervisor, the program's files as reopened, and the
    /// descriptors no test process keeps: until the first call.
    parts: Option<(OwnedFd, Vec<detach::Reopened>, Vec<RawFd>)>,
}

impl Forks {
    fn for_call(&mut self, site: &'static Site, head: &Head) -> &ChildRun {
        let launcher = self.launcher;
        let run = self.run.get_or_insert_with(|| {
            let (pipe, files, inherited) = self.parts.take().expect("made once");
            ChildRun::lasting(site, launcher, pipe, files, inherited)
        });
        let tests = Tests {
            seed: head.test_seed,
            mask: head.tests,
        };
        run.set_call(site, launcher, tests, head.snapshot);
        // The caller's settings, not this copy's: a site named at its first call was set up
        // after the worker was forked.
        run.set_limits(head.timeout_ms, head.tolerance);
        run
    }
}

/// Runs the tests of one entry, the first `skip` of them excepted (run by an executor before).
fn one_call(bytes: &[u8], out: &mut Outbox, skip: usize, forks: &mut Forks) {
    let mut input = bytes;
    let Some(head) = Head::take(&mut input) else {
        return;
    };
    let Some(site) = head.site() else {
        return;
    };
    let runner = super::entry::runner_at(head.runner);
    let tests = Tests {
        seed: head.test_seed,
        mask: head.tests,
    };
    let run = WorkerRun {
        site,
        out,
        tests,
        forks: forks.for_call(site, &head),
        skip,
        purity: None,
    };
    runner(&mut input, run);
}

/// The check that the function gives the caller's result on the worker's copy: a description
/// of the difference, if any.
type Purity<'a> = &'a mut dyn FnMut(&mut TestCtx) -> Option<String>;

/// What a pure site's tests see of the worker, in place of a forked run (see
/// [`super::ChildRun`]): the same test processes, forked from the executor.
pub struct WorkerRun<'a> {
    site: &'static Site,
    out: &'a mut Outbox,
    tests: Tests,
    forks: &'a ChildRun,
    skip: usize,
    purity: Option<Purity<'a>>,
}

impl<'a> WorkerRun<'a> {
    /// The entry's bytes were not the values the attribute wrote (they cannot be, but a
    /// worker does not trust what it reads): every test is an error.
    pub fn garbled(self) {
        let detail = "the worker could not read the call's arguments back".to_string();
        self.every_test(Outcome::Error, &detail);
    }

    /// Reports every test not yet run with one outcome.
    fn every_test(self, outcome: Outcome, detail: &str) {
        let n = self.order().count();
        for _ in self.skip..n {
            self.out.add(&Frame::Verdict {
                outcome,
                detail: Some(detail.to_string()),
                duration_us: 0,
            });
        }
    }

    fn order(&self) -> impl Iterator<Item = usize> + use<> {
        let mask = self.tests.mask;
        (0..self.site.meta.tests.len()).filter(move |&i| crate::site::runs_test(mask, i))
    }

    /// Gives the run the check that the function gives the caller's result on the worker's
    /// copy of the arguments (see the module's documentation); it runs before the tests, and a
    /// call that fails it is not tested.
    pub fn with_purity<'b>(self, check: Purity<'b>) -> WorkerRun<'b>
    where
        'a: 'b,
    {
        WorkerRun {
            site: self.site,
            out: self.out,
            tests: self.tests,
            forks: self.forks,
            skip: self.skip,
            purity: Some(check),
        }
    }

    /// Runs every test of the call (as a forked run would), each in a test process of its own
    /// that first checks the function gives the caller's result, reporting each.
    pub fn run(mut self, inputs: Vec<(&'static str, String)>, tests: &mut dyn FnMut(&mut TestCtx)) {
        let inputs: BTreeMap<String, String> = inputs
            .into_iter()
            .map(|(k, s)| (k.to_string(), s))
            .collect();
        self.out.add(&Frame::Inputs { inputs });
        let order: Vec<usize> = self.order().collect();
        let seed = self.tests.seed;
        for &index in order.iter().skip(self.skip) {
            // The supervisor knows where the executor is before anything of a test runs.
            self.out.flush();
            let purity = &mut self.purity;
            let mut checked = |ctx: &mut TestCtx| {
                if let Some(differs) = purity.as_mut().and_then(|check| impure(check, ctx)) {
                    ctx.set(Outcome::Inconclusive, Some(format!("{IMPURE}{differs}")));
                    return;
                }
                // The test starts as if the check had not run.
                ctx.replay();
                rng::set_transform_seed(rng::mix(seed, index as u64));
                tests(ctx);
            };
            let (outcome, detail, duration_us) = self.forks.supervise(index, &mut checked);
            match detail.as_deref().and_then(|d| d.strip_prefix(IMPURE)) {
                Some(differs) if outcome == Outcome::Inconclusive => {
                    self.out.add(&Frame::Impure {
                        detail: differs.to_string(),
                    });
                    return;
                }
                _ => self.out.add(&Frame::Verdict {
                    outcome,
                    detail,
                    duration_us,
                }),
            }
        }
    }
}

/// Marks a test process's verdict as the purity check's, not the test's: the call is impure.
/// (A test that returned it itself could only make its own site fork.)
const IMPURE: &str = "\u{0}impure\u{0}";

/// Runs the purity check: the difference, if the function did not give the caller's result.
fn impure(check: &mut Purity<'_>, ctx: &mut TestCtx) -> Option<String> {
    match catch_unwind(AssertUnwindSafe(|| check(ctx))) {
        Ok(differs) => differs,
        Err(_) => Some(format!(
            "the function panicked on the worker's copy of the arguments where the caller's \
             call returned: {}",
            child::last_panic()
        )),
    }
}

/// The registered sites a worker's call may name, by address (for the collector, which
/// checks what the worker reports).
pub(crate) fn site_at(address: u64) -> Option<&'static Site> {
    crate::site::all().find(|s| std::ptr::from_ref::<Site>(s) as u64 == address)
}

/// Counts the entries still in the ring (written, never tested) against their sites, when the
/// program exits before the worker got to them; returns how many there were.
pub(crate) fn count_unrun(lane: &Lane, from: u64) -> u64 {
    let mut pos = from;
    let mut unrun = 0;
    let tail = lane.ring.tail();
    while pos < tail {
        match lane.ring.read_prefix(pos, HEAD_BYTES) {
            Found::Nothing => break,
            Found::Skip { next } => pos = next,
            Found::Entry { bytes, next } => {
                if let Some(site) = Head::take(&mut bytes.as_slice()).and_then(|h| h.site()) {
                    site.count_skip(SkipReason::Unrun);
                    unrun += 1;
                }
                pos = next;
            }
        }
    }
    unrun
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_that_cannot_travel_is_named_with_the_fix_its_kind_needs() {
        let concrete = untravelled_message(
            "app::area",
            Untravelled {
                what: "its parameter `s: &Shape`",
                ty: "app::Shape",
                generic: false,
            },
        );
        assert_eq!(
            concrete,
            "isolation = \"worker\" for app::area, but its parameter `s: &Shape` cannot travel \
             to the worker: `app::Shape` implements neither invite::Travel nor, with invite's \
             `serde` feature, serde's Serialize and DeserializeOwned. Its calls fork; implement \
             invite::Travel for it, or remove the key"
        );
        let generic = untravelled_message(
            "app::first",
            Untravelled {
                what: "its result `T`",
                ty: "u8",
                generic: true,
            },
        );
        assert!(
            generic.contains(
                "its result `T` cannot travel to the worker: its type names a type parameter \
                 whose bounds do not include invite::Travel. Its calls fork; add the bound"
            ),
            "{generic}"
        );
        assert!(!generic.contains("u8"), "{generic}");
    }
}
