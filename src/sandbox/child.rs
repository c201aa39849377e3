//! What a run's child does: cut loose from the parent, then supervise one test process per test.
//!
//! After `fork` only the forking thread exists, and any lock another thread held stays held.
//! So the child never touches invite's channels, the collector, Rust's stdio locks or the host's
//! panic hook: it reports through a raw pipe with `write(2)`, installs a panic hook of its own,
//! and leaves with `_exit` (no destructors, no atexit handlers, no stdio flush that would repeat
//! the parent's buffered output). If it deadlocks anyway, its own interval timer and the
//! collector's deadline both end it.

use std::collections::BTreeMap;
use std::os::fd::{AsFd, AsRawFd, OwnedFd, RawFd};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Duration, Instant};

use super::broker;
use super::detach;
use super::wire::{self, Frame, FrameReader};
use super::{
    kill, leave_cpu, pidfd_open, pipe, raw, readable, run_deadline, set_blocking, try_reap, Exit,
};
use super::{Launcher, TestCtx};
use crate::record::Outcome;
use crate::rng::{self, Snapshot};
use crate::site::Site;
use invite_sandbox::run::{self, exit_now, Forked};

/// The write end of the current test process's verdict pipe, for the panic hook.
static PANIC_PIPE: AtomicI32 = AtomicI32::new(-1);

/// Sends this process's panics to `fd` (the worker's executor's verdict pipe).
pub(super) fn set_panic_pipe(fd: RawFd) {
    PANIC_PIPE.store(fd, Ordering::Relaxed);
}

/// Beyond this many bytes of panic messages from one test, later ones are dropped.
const PANIC_TEXT_MAX: usize = 2048;

/// The hint attached to a timeout of a test that spent its time waiting.
const TIMEOUT_HINT: &str = "if the test waits on a lock, another thread may have held that lock \
    when the process forked; a lock held across fork is never released in the child";

/// What a timeout's figures suggest: a test that computed for at least half its deadline is
/// slow here (a debug build, a busy machine) rather than stuck, and its deadline is the thing
/// to change; one that computed for less was waiting on something that never came.
fn timeout_detail(site: &str, deadline_ms: u128, cpu_ms: u128) -> String {
    if cpu_ms * 2 >= deadline_ms {
        format!(
            "killed after its deadline of {deadline_ms} ms, having computed for {cpu_ms} ms of \
             it: the test is slow here rather than stuck (a debug build, a busy machine); give \
             it more time with `timeout_ms` above {cpu_ms} in its [functions.\"{site}\"] entry of \
             invite.toml, or in its attribute"
        )
    } else {
        format!(
            "killed after its deadline of {deadline_ms} ms, having computed for only {cpu_ms} \
             ms of it: it was waiting, not computing; {TIMEOUT_HINT}"
        )
    }
}

/// Which of a site's tests a run runs, and the seed of their transformations.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tests {
    pub seed: u64,
    /// See `site::runs_test`.
    pub mask: u64,
}

/// The child side of a run.
pub struct ChildRun {
    site: &'static Site,
    /// The seccomp filter for this site's tests, if it has one.
    filter: Option<&'static super::seccomp::Filter>,
    test_seed: u64,
    /// The site's tests to run (see `site::runs_test`).
    tests: u64,
    snapshot: Snapshot,
    pipe: OwnedFd,
    /// A pidfd of the program: readable once it has died, when every run must end at once.
    program: Option<OwnedFd>,
    /// The program's files, opened again read-only; each test process opens them once more.
    files: Vec<detach::Reopened>,
    self_check: bool,
    tolerance: f64,
    timeout: Duration,
    /// Descriptors of the process that forks the test processes which a test must not hold
    /// (the worker's wake-up pipe), besides `pipe` and `program`.
    inherited: Vec<RawFd>,
}

impl ChildRun {
    pub(super) fn start(
        site: &'static Site,
        launcher: &'static Launcher,
        caller_cpu: i32,
        tests: Tests,
        snapshot: Snapshot,
        pipe: OwnedFd,
        program: Option<OwnedFd>,
    ) -> ChildRun {
        let timeout = Duration::from_millis(site.timeout_ms());
        isolate(
            launcher,
            run_deadline(timeout, site.meta.tests.len() as u32),
            caller_cpu,
        );
        // The program, held from before the fork: if it has died since, so does the run.
        if program.as_ref().is_some_and(|p| readable(raw(p))) {
            exit_now(5);
        }
        let mut files = Vec::new();
        if launcher.filter.is_some() && site.seccomp() {
            // Once per run: every test process forked from here holds only private descriptors
            // and private memory.
            let mut keep = vec![pipe.as_raw_fd()];
            keep.extend(program.as_ref().map(raw));
            files = detach::descriptors(&keep);
            detach::privatize_shared_mappings();
        }
        set_blocking(&pipe);
        ChildRun {
            site,
            filter: launcher.filter.as_ref().filter(|_| site.seccomp()),
            test_seed: tests.seed,
            tests: tests.mask,
            snapshot,
            pipe,
            program,
            files,
            self_check: site.meta.self_check,
            tolerance: site.tolerance(),
            timeout,
            inherited: Vec::new(),
        }
    }

    /// The worker's executor's side of its test processes: like a run that lasts, whose call
    /// ([`ChildRun::set_call`]) changes with each entry of the ring. `pipe` is the executor's
    /// channel to its supervisor, which no test process keeps; nor does it keep `inherited`.
    pub(super) fn lasting(
        site: &'static Site,
        launcher: &'static Launcher,
        pipe: OwnedFd,
        files: Vec<detach::Reopened>,
        inherited: Vec<RawFd>,
    ) -> ChildRun {
        let mut run = ChildRun {
            site,
            filter: None,
            test_seed: 0,
            tests: 0,
            snapshot: Snapshot::default(),
            pipe,
            program: None,
            files,
            self_check: false,
            tolerance: 0.0,
            timeout: Duration::ZERO,
            inherited,
        };
        run.set_call(
            site,
            launcher,
            Tests { seed: 0, mask: 0 },
            Snapshot::default(),
        );
        run
    }

    /// The call whose tests the next test processes run.
    pub(super) fn set_call(
        &mut self,
        site: &'static Site,
        launcher: &'static Launcher,
        tests: Tests,
        snapshot: Snapshot,
    ) {
        self.site = site;
        self.filter = launcher.filter.as_ref().filter(|_| site.seccomp());
        self.test_seed = tests.seed;
        self.tests = tests.mask;
        self.snapshot = snapshot;
        self.self_check = site.meta.self_check;
        self.tolerance = site.tolerance();
        self.timeout = Duration::from_millis(site.timeout_ms().max(1));
    }

    /// The deadline and tolerance of the call, as the program set them when it queued it.
    pub(super) fn set_limits(&mut self, timeout_ms: u64, tolerance: f64) {
        self.timeout = Duration::from_millis(timeout_ms.max(1));
        self.tolerance = tolerance;
    }

    /// Runs every test of the site, each in its own process, reports, and leaves.
    pub fn run(
        self,
        inputs: Vec<(&'static str, String)>,
        tests: &mut dyn FnMut(&mut TestCtx),
    ) -> ! {
        let fd = self.pipe.as_raw_fd();
        let inputs: BTreeMap<String, String> = inputs
            .into_iter()
            .map(|(k, s)| (k.to_string(), s))
            .collect();
        if wire::send(fd, &Frame::Inputs { inputs }).is_err() {
            exit_now(3); // The collector is gone; nobody would read the results.
        }
        for index in 0..self.site.meta.tests.len() {
            if !crate::site::runs_test(self.tests, index) {
                continue;
            }
            let (outcome, detail, duration_us) = self.supervise(index, tests);
            let frame = Frame::Test {
                index,
                outcome,
                duration_us,
                detail,
            };
            if wire::send(fd, &frame).is_err() {
                exit_now(3);
            }
        }
        // The test processes were reaped here, so their time is in this process's children's.
        let cpu_ns = invite_sandbox::usage::cpu_ns(libc::RUSAGE_SELF)
            + invite_sandbox::usage::cpu_ns(libc::RUSAGE_CHILDREN);
        let _ = wire::send(fd, &Frame::Done { cpu_ns });
        exit_now(0)
    }

    /// Forks one test process, waits for its verdict up to the deadline, and classifies it.
    pub(super) fn supervise(
        &self,
        index: usize,
        tests: &mut dyn FnMut(&mut TestCtx),
    ) -> (Outcome, Option<String>, u64) {
        let Ok((read_end, write_end)) = pipe() else {
            return (
                Outcome::Error,
                Some("could not create a pipe for the test".into()),
                0,
            );
        };
        // The filtered test opens files through its supervisor (see `broker`).
        let broker = match self.filter.map(|_| broker::pair()).transpose() {
            Ok(pair) => pair,
            Err(e) => {
                let detail =
                    format!("could not create the socket the test opens files through: {e}");
                return (Outcome::Error, Some(detail), 0);
            }
        };
        let started = Instant::now();
        // The CPU time of this supervisor's reaped children: what the test process adds to it
        // once reaped is its own.
        let children_cpu = invite_sandbox::usage::cpu_ns(libc::RUSAGE_CHILDREN);
        // This child is single-threaded, so the test process inherits no lock held by a thread
        // that does not exist in it.
        let supervisor = run::pid();
        let pid = match run::fork() {
            Ok(Forked::Parent(pid)) => pid,
            Ok(Forked::Child) => 0,
            Err(e) => {
                return (
                    Outcome::Error,
                    Some(format!("could not fork the test process: {e}")),
                    0,
                );
            }
        };
        if pid == 0 {
            drop(read_end);
            let broker = broker.map(|(ours, theirs)| {
                drop(ours);
                theirs
            });
            self.test_process(index, supervisor, write_end, broker, tests)
        }
        drop(write_end);
        let broker = broker.map(|(ours, _theirs)| ours);
        let pidfd = pidfd_open(pid);
        let deadline = started + self.timeout;
        let mut reader = FrameReader::default();
        let (mut verdict, mut panic): (Verdict, Option<String>) = (None, None);
        let mut stray = false;
        let mut eof = false;
        let rd = raw(&read_end);
        let exit = loop {
            if let Some(sock) = &broker {
                broker::serve(sock.as_fd(), pid);
            }
            if !eof {
                eof = reader.read_available(rd);
            }
            absorb(&mut reader, &mut verdict, &mut panic, &mut stray);
            if let Some(exit) = try_reap(pid, pidfd.as_ref()) {
                // What it wrote just before it ended: a verdict, or the filter's report of a
                // blocked call, which its SIGSYS handler sends right before leaving.
                reader.read_available(rd);
                absorb(&mut reader, &mut verdict, &mut panic, &mut stray);
                break Some(exit);
            }
            let now = Instant::now();
            let program_gone = self.program.as_ref().is_some_and(|p| readable(raw(p)));
            if now >= deadline || program_gone {
                kill(pid, pidfd.as_ref());
                while try_reap(pid, pidfd.as_ref()).is_none() {
                    std::thread::sleep(Duration::from_millis(1));
                }
                if program_gone {
                    // Nobody is left to read a result: the run ends with the program.
                    exit_now(5);
                }
                break None;
            }
            wait_readable(
                &[
                    (!eof).then_some(rd),
                    self.program.as_ref().map(raw),
                    broker.as_ref().map(raw),
                    pidfd.as_ref().map(raw),
                ],
                deadline - now,
            );
        };
        let elapsed = started.elapsed().as_micros() as u64;
        match (exit, verdict, panic) {
            (None, _, _) => {
                let cpu_ns =
                    invite_sandbox::usage::cpu_ns(libc::RUSAGE_CHILDREN).saturating_sub(children_cpu);
                let detail = timeout_detail(
                    self.site.name(),
                    self.timeout.as_millis(),
                    u128::from(cpu_ns / 1_000_000),
                );
                (Outcome::Timeout, Some(detail), elapsed)
            }
            (_, Some((Outcome::Blocked, detail, _)), _) => (Outcome::Blocked, detail, elapsed),
            // The test's code wrote on the channel itself: whatever it wrote is not a verdict
            // the sandbox gives, and none is taken from it.
            _ if stray || reader.corrupt() => (Outcome::Error, Some(STRAY.to_string()), elapsed),
            (_, Some((outcome, detail, us)), _) => (outcome, detail, us),
            (Some(Exit::Signal(libc::SIGSYS)), None, _) => (
                Outcome::Blocked,
                Some(
                    "the test process was killed by SIGSYS: it made a system call the sandbox denies \
                     while it had SIGSYS blocked (as when starting a process), or tried to take \
                     the sandbox's SIGSYS handler away"
                        .to_string(),
                ),
                elapsed,
            ),
            (Some(exit), None, Some(message)) => (
                Outcome::Error,
                Some(format!(
                    "{message}; the test process then {}",
                    exit.describe()
                )),
                elapsed,
            ),
            (Some(exit), None, None) => {
                let why = match exit {
                    Exit::Code(_) => " (did the test call process::exit?)",
                    _ => "",
                };
                let text = format!("the test process {} before reporting{why}", exit.describe());
                (Outcome::Error, Some(text), elapsed)
            }
        }
    }

    /// The test process: one test on the state the call saw, then `_exit`.
    fn test_process(
        &self,
        index: usize,
        supervisor: libc::pid_t,
        verdict_pipe: OwnedFd,
        broker: Option<OwnedFd>,
        tests: &mut dyn FnMut(&mut TestCtx),
    ) -> ! {
        // Dying with the supervisor means no test process outlives its run.
        run::die_with(supervisor);
        run::name_process(c"invite test");
        let fd = verdict_pipe.as_raw_fd();
        // The run's result pipe and the program's pidfd are the supervisor's: a test that could
        // write the one would forge results, and the other names the program.
        run::close_inherited(&[&self.pipe]);
        if let Some(p) = &self.program {
            run::close_inherited(&[p]);
        }
        for &fd in &self.inherited {
            run::close_raw(fd);
        }
        detach::reopen_again(&self.files);
        set_blocking(&verdict_pipe);
        PANIC_PIPE.store(fd, Ordering::Relaxed);
        if let Some(mb) = self.site.memory_mb() {
            limit_memory(mb);
        }
        self.snapshot.restore();
        rng::set_transform_seed(rng::mix(self.test_seed, index as u64));
        let mut ctx = TestCtx::new(index, self.snapshot, self.tolerance, self.self_check);
        if let Some(filter) = self.filter {
            let broker = broker.as_ref().map_or(-1, |b| b.as_raw_fd());
            if let Err(e) = filter.install(fd, broker) {
                let detail = Some(format!("could not install the seccomp sandbox: {e}"));
                let _ = wire::send(
                    fd,
                    &Frame::Verdict {
                        outcome: Outcome::Error,
                        detail,
                        duration_us: 0,
                    },
                );
                exit_now(0);
            }
        }
        let (outcome, detail, duration_us) = run_one(&mut ctx, tests);
        let _ = wire::send(
            fd,
            &Frame::Verdict {
                outcome,
                detail,
                duration_us,
            },
        );
        exit_now(0)
    }
}

/// Runs one test on `ctx`: its verdict (a panic is an `error` with its message) and how long
/// it took, in microseconds. For a test process, and for the worker of pure sites.
pub(super) fn run_one(
    ctx: &mut TestCtx,
    tests: &mut dyn FnMut(&mut TestCtx),
) -> (Outcome, Option<String>, u64) {
    let started = Instant::now();
    let result = catch_unwind(AssertUnwindSafe(|| tests(ctx)));
    let duration_us = started.elapsed().as_micros() as u64;
    let (outcome, detail) = match result {
        Ok(()) => ctx.take_verdict().unwrap_or((
            Outcome::Error,
            Some("the test ended without a verdict".to_string()),
        )),
        Err(_) => (Outcome::Error, Some(last_panic())),
    };
    // However long the test's own message, the verdict is sent, and is the test's. An
    // observation is data, capped where it is made, far below a frame's limit.
    let detail = if ctx.holds_observation() {
        detail
    } else {
        detail.map(wire::bounded)
    };
    (outcome, detail, duration_us)
}

/// A test process's verdict, so far.
type Verdict = Option<(Outcome, Option<String>, u64)>;

/// The detail of a test whose process wrote on its verdict channel what the sandbox does not.
const STRAY: &str = "the test wrote on its verdict channel itself (a second verdict, another \
    kind of frame, or bytes that are not one): its verdict is not known";

/// Takes the whole frames read so far: the verdict (or the filter's report of a blocked call)
/// and the panic messages. A frame a test process never sends, or a second verdict, sets
/// `stray`: the test's own code wrote it.
fn absorb(
    reader: &mut FrameReader,
    verdict: &mut Verdict,
    panic: &mut Option<String>,
    stray: &mut bool,
) {
    while let Some(frame) = reader.next_frame() {
        match frame {
            Frame::Verdict { .. } if verdict.is_some() => *stray = true,
            Frame::Verdict {
                outcome,
                detail,
                duration_us,
            } => *verdict = Some((outcome, detail, duration_us)),
            // A panic during the unwinding of another aborts the process; the first message
            // names the test's own failure, so the messages are kept in order (up to a bound:
            // a test may catch and repeat panics without end).
            Frame::Panic { message } => {
                *panic = Some(match panic.take() {
                    Some(first) if first.len() < PANIC_TEXT_MAX => {
                        format!("{first}; then {message}")
                    }
                    Some(first) => first,
                    None => message,
                })
            }
            Frame::Blocked { detail } => *verdict = Some((Outcome::Blocked, Some(detail), 0)),
            _ => *stray = true,
        }
    }
}

/// Cuts the child loose: no instrumentation, default signal handling, no terminal, lower
/// priority and a deadline of its own; its panics are reported, not printed, by the hook the
/// program installed before forking it ([`report_panic`]).
pub(super) fn isolate(launcher: &Launcher, deadline: Duration, caller_cpu: i32) {
    crate::role::enter_child();
    run::name_process(c"invite run");
    // Off the caller's CPU, so that the tests do not compete with the caller for its core.
    leave_cpu(caller_cpu);
    run::cut_loose(launcher.dev_null(), launcher.nice, deadline);
}

/// A test process's panic, as the hook the program installed before its first fork hands it
/// over (see `role::route_panics`): reported on the verdict pipe, never printed. The program's
/// own hook is never called here: it may print, or take locks some other thread held at the
/// fork.
pub(crate) fn report_panic(info: &std::panic::PanicHookInfo<'_>) {
    let payload = info
        .payload()
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| info.payload().downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a non-string payload".to_string());
    let message = match info.location() {
        Some(l) => format!(
            "panicked at {}:{}:{}: {payload}",
            l.file(),
            l.line(),
            l.column()
        ),
        None => format!("panicked: {payload}"),
    };
    let message = wire::bounded(message);
    let fd = PANIC_PIPE.load(Ordering::Relaxed);
    if fd >= 0 {
        let _ = wire::send(
            fd,
            &Frame::Panic {
                message: message.clone(),
            },
        );
    }
    run::set_last_panic(message);
}

/// Caps this test process's address space at what it has now plus `mb` MiB: an allocation
/// beyond that fails (and a Rust program aborts), instead of the test eating the machine.
pub(super) fn limit_memory(mb: u64) {
    let Ok(statm) = std::fs::read_to_string("/proc/self/statm") else {
        return;
    };
    let Some(pages) = statm
        .split_whitespace()
        .next()
        .and_then(|p| p.parse::<u64>().ok())
    else {
        return;
    };
    run::limit_address_space(pages * run::page_size() + (mb << 20));
}

pub(super) fn last_panic() -> String {
    run::last_panic().unwrap_or_else(|| "panicked".to_string())
}

/// Waits until one of the descriptors is readable or the time is up.
fn wait_readable(fds: &[Option<RawFd>], limit: Duration) {
    let polls: Vec<RawFd> = fds.iter().flatten().copied().collect();
    // Without a pidfd, nothing signals the test process's exit: look again soon.
    let cap = if fds.last().is_some_and(|f| f.is_none()) {
        5
    } else {
        1000
    };
    run::wait_readable(&polls, limit.as_millis().clamp(1, cap) as i32);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timeout_says_what_its_cpu_time_suggests() {
        let slow = timeout_detail("app::fit", 2000, 1000);
        assert!(
            slow.starts_with("killed after its deadline of 2000 ms, having computed for 1000 ms")
        );
        assert!(slow.contains("slow here rather than stuck"), "{slow}");
        assert!(
            slow.contains("`timeout_ms` above 1000 in its [functions.\"app::fit\"] entry"),
            "{slow}"
        );
        assert!(!slow.contains("lock"), "{slow}");
        let stuck = timeout_detail("app::fit", 2000, 999);
        assert!(
            stuck.contains("computed for only 999 ms of it: it was waiting"),
            "{stuck}"
        );
        assert!(stuck.contains(TIMEOUT_HINT), "{stuck}");
        assert!(!stuck.contains("timeout_ms"), "{stuck}");
    }

    fn read(frames: &[Frame]) -> (Verdict, Option<String>) {
        let (verdict, panic, stray) = read_all(frames);
        assert!(!stray);
        (verdict, panic)
    }

    fn read_all(frames: &[Frame]) -> (Verdict, Option<String>, bool) {
        let mut reader = FrameReader::default();
        for f in frames {
            reader.feed(&f.encode());
        }
        let (mut verdict, mut panic, mut stray) = (None, None, false);
        absorb(&mut reader, &mut verdict, &mut panic, &mut stray);
        (verdict, panic, stray)
    }

    #[test]
    fn a_second_verdict_or_a_frame_a_test_never_sends_is_stray() {
        let pass = Frame::Verdict {
            outcome: Outcome::Pass,
            detail: None,
            duration_us: 7,
        };
        let fail = Frame::Verdict {
            outcome: Outcome::Fail,
            detail: Some("forged".into()),
            duration_us: 1,
        };
        let (verdict, _, stray) = read_all(&[fail.clone(), pass.clone()]);
        assert!(stray);
        assert_eq!(verdict, Some((Outcome::Fail, Some("forged".into()), 1)));
        for other in [
            Frame::Done { cpu_ns: 1 },
            Frame::Finished { cpu_ns: 1 },
            Frame::Impure { detail: "x".into() },
            Frame::Begin { pos: 0 },
            Frame::Test {
                index: 0,
                outcome: Outcome::Fail,
                duration_us: 0,
                detail: None,
            },
        ] {
            let (verdict, _, stray) = read_all(&[other.clone(), pass.clone()]);
            assert!(stray, "{other:?}");
            assert_eq!(verdict, Some((Outcome::Pass, None, 7)));
        }
        // A panic's messages and a blocked call are a test process's own frames.
        let panic = Frame::Panic {
            message: "p".into(),
        };
        let blocked = Frame::Blocked { detail: "b".into() };
        assert!(!read_all(&[panic, blocked]).2);
    }

    #[test]
    fn a_blocked_call_is_the_verdict_whenever_its_report_is_read() {
        let blocked = Frame::Blocked {
            detail: "msgsnd".into(),
        };
        let (verdict, _) = read(&[blocked]);
        assert_eq!(verdict, Some((Outcome::Blocked, Some("msgsnd".into()), 0)));
        let passed = Frame::Verdict {
            outcome: Outcome::Pass,
            detail: None,
            duration_us: 7,
        };
        assert_eq!(read(&[passed]).0, Some((Outcome::Pass, None, 7)));
    }

    #[test]
    fn panic_messages_are_kept_in_order_up_to_a_bound() {
        let panic = |m: &str| Frame::Panic { message: m.into() };
        let (_, text) = read(&[panic("first"), panic("second")]);
        assert_eq!(text.as_deref(), Some("first; then second"));
        let long = "x".repeat(PANIC_TEXT_MAX);
        let (_, text) = read(&[panic(&long), panic("dropped")]);
        assert_eq!(text, Some(long));
        assert_eq!(read(&[]), (None, None));
    }
}
