//! The fork, and everything that touches processes.
//!
//! A sampled call forks once ("a run"). The parent sends the collector what it needs to follow
//! the run (see `handover.rs`) and returns at once to call the original function. The
//! child ([`child`]) cuts itself off from the parent's terminal, signals and locks, then runs each
//! test of the call in a process of its own, forked from it, so that every test starts from the
//! state the call saw and a crash or hang of one test costs only that test.
//!
//! The run is made by glibc's `fork`, which leaves `malloc` usable in the child even when
//! another thread held an arena lock at that moment. While the program handles children (a
//! SIGCHLD handler, SIGCHLD ignored, children of its own: `adopter::Hiding`), or always with
//! `hide_runs = "always"`, the fork is made from a launcher that shares the program's memory
//! ([`launch`]), so that the program's SIGCHLD handler and `waitpid(-1)` never see the run; the
//! collector follows it through a pidfd opened before anyone could reap it. Otherwise the
//! caller forks it directly, which costs it less, and the collector follows its child.

pub mod child;
// A pure site's runner, named by its code's address in the worker: the one `unsafe` here.
#[allow(unsafe_code)]
mod entry;
pub mod orphans;
mod test_ctx;
pub mod wire;
pub mod worker;

use invite_sandbox::run::{self, Forked};
pub use invite_sandbox::{broker, detach, launch, seccomp};

use std::os::fd::{AsRawFd, IntoRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::budget::SkipReason;
use crate::handover::{self, Inbox, RunStart};
use crate::rng::Snapshot;
use crate::site::Permit;

pub use child::ChildRun;
pub(crate) use invite_sandbox::process::{
    kill, leave_cpu, pidfd_open, pipe, raw, readable, set_blocking, try_reap, Exit, Follow,
};
/// How a test takes a by-value receiver: a bitwise copy, once, in a test process of its own.
pub(crate) use invite_sandbox::run::TakeOnce as Taker;
pub use test_ctx::TestCtx;

/// What runs are started with, made once at start-up: the filter test processes install, the
/// `/dev/null` their standard streams become, and the collector's inbox that each run is
/// handed to.
#[derive(Debug)]
pub(crate) struct Launcher {
    /// The seccomp filter of test processes (none: memory isolation only).
    pub filter: Option<seccomp::Filter>,
    dev_null: OwnedFd,
    /// The `nice` increment of runs.
    pub nice: i32,
    /// The instrumented process's pid: a run whose parent is another one ends at once.
    pub pid: libc::pid_t,
    next_run: AtomicU64,
    test_seed_base: u64,
    pub inbox: Inbox,
}

impl Launcher {
    pub fn new(
        filter: Option<seccomp::Filter>,
        dev_null: OwnedFd,
        nice: i32,
        pid: libc::pid_t,
        test_seed_base: u64,
        inbox: Inbox,
    ) -> Launcher {
        Launcher {
            filter,
            dev_null,
            nice,
            pid,
            next_run: AtomicU64::new(0),
            test_seed_base,
            inbox,
        }
    }

    fn next_run_id(&self) -> u64 {
        self.next_run.fetch_add(1, Ordering::Relaxed) + 1
    }

    fn test_seed(&self, run: u64) -> u64 {
        crate::rng::mix(self.test_seed_base, run)
    }

    pub(crate) fn dev_null(&self) -> RawFd {
        self.dev_null.as_raw_fd()
    }
}

/// Forks a run for a sampled call, and runs `tests` in it, given the run; `tests` must not
/// return (a run leaves through [`ChildRun::run`]). The caller loses the time of this function
/// only.
///
/// After the fork every page the parent writes costs a copy-on-write fault (several
/// microseconds each on a virtual machine) and everything it touches is cold, so all the
/// collector needs is prepared before the fork, on this stack frame, and afterwards the caller
/// writes one message (see `handover.rs`); the counters and the overhead budget are
/// taken care of on the collector thread.
pub(crate) fn fork_run(permit: Permit, launcher: &'static Launcher, tests: impl FnOnce(ChildRun)) {
    // Before any fork: the run's panics are reported by a hook it inherits.
    crate::role::route_panics(child::report_panic);
    let started = Instant::now();
    let Permit {
        site,
        rt,
        provisional_ns,
        checked,
    } = permit;
    let hide = rt.hiding.possible() && !crate::adopter::withdrawn() && rt.hiding.now();
    // Hiding was withdrawn (the adopter never reaps): with `hide_runs = "always"` a plain
    // fork is never made instead, since a reaper the program started before its first child
    // would reap it. A check's run is made all the same: it is waited for in the program.
    let unhidden = rt.hiding == crate::adopter::Hiding::Always && !hide && !checked;
    let fail = |reason| {
        if checked {
            crate::checking::untested(site.name(), "its run could not be started (fork failed)");
        }
        site.count_skip(reason);
        rt.budget.settle(provisional_ns, 0);
        rt.budget.release();
    };
    let time = std::time::SystemTime::now();
    // In a fleet, the tests of this member's share in the period the call falls in, as its
    // record will say; a check runs them all.
    let tests_mask = if checked {
        crate::site::ALL_TESTS
    } else {
        rt.live.tests_at(site, time)
    };
    if tests_mask == 0 {
        // The period turned since the sampler looked: nothing here is this member's.
        return fail(SkipReason::Disabled);
    }
    if unhidden {
        return fail(SkipReason::Unhidden);
    }
    // Until the adopter of hidden runs is known to reap them, only so many are made; the others
    // wait like runs over a cap.
    let Some(place) = crate::adopter::Place::take(hide, checked) else {
        return fail(SkipReason::Concurrency);
    };
    let Ok((read_end, write_end)) = handover::SPARE_PIPES.take() else {
        place.give_back();
        return fail(SkipReason::ForkFailed);
    };
    let run = launcher.next_run_id();
    let mut start = RunStart {
        site: Some(site),
        run,
        started,
        time,
        tests: tests_mask,
        snapshot: Snapshot::take(),
        test_seed: checked
            .then(crate::checking::replayed_test_seed)
            .flatten()
            .unwrap_or_else(|| launcher.test_seed(run)),
        provisional_ns,
        pipe: raw(&read_end),
        child_end: raw(&write_end),
        pid: 0,
        pidfd: -1,
        parent_ns: 0,
    };
    let caller_cpu = run::current_cpu();
    let (test_seed, snapshot) = (start.test_seed, start.snapshot);
    // From here the raw numbers own both ends: the run closes its copy of the read end, the
    // message takes both on success, and a failure closes both.
    let (read_end, write_end) = (read_end.into_raw_fd(), write_end.into_raw_fd());
    let mut tests = Some(tests);
    let mut in_run = |program: Option<OwnedFd>| {
        // The run's copies of the pipe's ends, owned by nothing else in this process.
        run::close_raw(read_end);
        let write_end = run::own_raw(write_end);
        let run = ChildRun::start(
            site,
            launcher,
            caller_cpu,
            child::Tests {
                seed: test_seed,
                mask: tests_mask,
            },
            snapshot,
            write_end,
            program,
        );
        if let Some(tests) = tests.take() {
            tests(run);
        }
    };
    let launched = if hide {
        launch::hidden(launcher.pid, caller_cpu, &mut in_run).map(|l| (l.pid, Some(l.pidfd)))
    } else {
        plain_fork(launcher.pid, &mut in_run).map(|pid| (pid, None))
    };
    let Ok((pid, pidfd)) = launched else {
        // The message was never sent, so these are still ours alone.
        drop((run::own_raw(read_end), run::own_raw(write_end)));
        place.give_back();
        return fail(SkipReason::ForkFailed);
    };
    start.pid = pid;
    start.pidfd = pidfd.map_or(-1, IntoRawFd::into_raw_fd);
    start.parent_ns = started.elapsed().as_nanos() as u64;
    if rt.budget.is_closed() {
        // Shutdown began during the fork: the collector may already have finished and would
        // never take the run. A read of the flag costs no copy-on-write fault.
        start.abandon();
        rt.budget.release();
        if checked {
            crate::checking::untested(site.name(), "invite shut down while its run started");
        }
        return;
    }
    if rt.budget.needs_estimate() {
        // Once per process: a write after the fork, so that the next admissions are charged.
        rt.budget.seed_estimate(start.parent_ns);
    }
    if !checked {
        launcher.inbox.submit(&start);
        return;
    }
    // A check waits for its run: announced before the collector can end it, and picked up
    // at once rather than on the collector's next tick.
    crate::checking::expect(run);
    if !launcher.inbox.submit(&start) {
        crate::checking::forget(run);
        crate::checking::untested(site.name(), "its run could not be handed to the collector");
        return;
    }
    launcher.inbox.wake();
    let limit = run_deadline(
        Duration::from_millis(site.timeout_ms()),
        site.meta.tests.len() as u32,
    ) + CHECK_SLACK;
    crate::checking::wait_for(run, site.name(), limit);
}

/// How long a check waits beyond a run's own deadline for the collector to end it.
const CHECK_SLACK: Duration = Duration::from_secs(10);

/// A run made by glibc's `fork` in the caller: where the program does not handle children, with
/// `hide_runs = "never"`, or where pidfds are missing (kernels before 5.3). The program's
/// SIGCHLD handler and `waitpid(-1)` would see it. The collector opens its pidfd (or follows
/// it by pid) and checks that it is still a child of ours.
fn plain_fork(
    program_pid: libc::pid_t,
    in_run: &mut dyn FnMut(Option<OwnedFd>),
) -> std::io::Result<libc::pid_t> {
    // The child only runs code that is safe after a fork in a multithreaded process (see
    // `child`): it touches no lock another thread may hold, except through `malloc`, which
    // glibc's fork leaves usable.
    let pid = match run::fork()? {
        Forked::Parent(pid) => pid,
        Forked::Child => {
            // A pidfd of the program, which the run watches to end with it, as a hidden run
            // does with the one its launcher opened (none where the kernel has no pidfds).
            // Opened before the check below: while the program is still the parent, the pid
            // can name no other process.
            let program = pidfd_open(program_pid);
            // If the program died during the fork, so does the run.
            if run::parent_pid() != program_pid {
                run::exit_now(5);
            }
            in_run(program);
            run::exit_now(70);
        }
    };
    Ok(pid)
}

/// How long a whole run may live: each test's deadline, plus slack for forking and reporting.
pub(crate) fn run_deadline(per_test: Duration, tests: u32) -> Duration {
    per_test * tests.max(1) + Duration::from_millis(500)
}
