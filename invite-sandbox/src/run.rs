//! The calls a run and its test processes make on themselves: forking a test process, leaving
//! with `_exit`, cutting loose from the program's signals, terminal and priority, capping
//! memory, and the two pieces of raw memory a test process needs (its last panic message, and
//! a by-value receiver taken out of the state the call saw).

use std::os::fd::{OwnedFd, RawFd};
use std::sync::atomic::{AtomicPtr, Ordering};
use std::time::Duration;

/// What a `fork` made of the calling process.
pub enum Forked {
    /// This is the new process.
    Child,
    /// This is the old one; the new one has this pid.
    Parent(libc::pid_t),
}

/// Forks the calling process with glibc's `fork` (whose handlers keep `malloc` usable in the
/// child).
///
/// The child may only run code that is safe after a fork in a multithreaded process: it must
/// touch no lock another thread may hold, except through `malloc`. The run and its test
/// processes are written to that rule (see `sandbox::child`).
pub fn fork() -> std::io::Result<Forked> {
    // SAFETY: fork has no memory-safety preconditions; what the child may run is the rule
    // above, which every caller follows.
    match unsafe { libc::fork() } {
        pid if pid < 0 => Err(std::io::Error::last_os_error()),
        0 => Ok(Forked::Child),
        pid => Ok(Forked::Parent(pid)),
    }
}

/// This process's pid.
pub fn pid() -> libc::pid_t {
    // SAFETY: getpid has no preconditions.
    unsafe { libc::getpid() }
}

/// The parent's pid: the program's, in a run made by a plain fork, unless the program died.
pub fn parent_pid() -> libc::pid_t {
    // SAFETY: getppid has no preconditions.
    unsafe { libc::getppid() }
}

/// The CPU the caller runs on (-1 if unknown): a run moves off it.
pub fn current_cpu() -> i32 {
    // SAFETY: sched_getcpu has no preconditions (a vDSO read).
    unsafe { libc::sched_getcpu() }
}

/// Leaves the process at once: no destructors, no atexit handlers, no stdio flush.
pub fn exit_now(code: i32) -> ! {
    // SAFETY: _exit never returns and has no preconditions.
    unsafe { libc::_exit(code) }
}

/// Has the kernel kill this process when its parent dies, and leaves at once if the parent
/// is already not `parent` (it died before the request was made).
pub fn die_with(parent: libc::pid_t) {
    // SAFETY: prctl with PR_SET_PDEATHSIG takes a signal number and changes only this process.
    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) };
    if parent_pid() != parent {
        exit_now(4);
    }
}

/// Names the process as `ps` and `top` show it, so that an operator can tell invite's
/// processes from the program's (which they are copies of, command line included).
pub fn name_process(name: &std::ffi::CStr) {
    // SAFETY: PR_SET_NAME reads a NUL-terminated string of at most 16 bytes.
    unsafe { libc::prctl(libc::PR_SET_NAME, name.as_ptr()) };
}

/// Closes descriptors a test process inherited and must not use, without dropping their
/// owners: the process leaves with `_exit`, so those owners are never dropped here and nothing
/// closes the numbers twice.
pub fn close_inherited(fds: &[&OwnedFd]) {
    for fd in fds {
        // SAFETY: the descriptor is live (its owner is borrowed) and, per the rule above, is
        // never used or closed again in this process.
        unsafe { libc::close(std::os::fd::AsRawFd::as_raw_fd(*fd)) };
    }
}

/// Closes the raw number of a descriptor that this process holds twice over (a pipe end
/// passed into a run by number, whose owner lives in the parent).
///
/// `fd` must be a live descriptor that nothing in this process owns or uses again.
pub fn close_raw(fd: RawFd) {
    // SAFETY: per the contract, nothing else in this process owns or uses `fd`.
    unsafe { libc::close(fd) };
}

/// Takes ownership of a descriptor passed by number into a run or a failed launch.
///
/// `fd` must be live and owned by nothing else in this process.
pub fn own_raw(fd: RawFd) -> OwnedFd {
    // SAFETY: per the contract, nothing else owns or closes `fd`.
    unsafe { std::os::fd::FromRawFd::from_raw_fd(fd) }
}

/// Cuts a run loose from the program: default signal handling (SIGPIPE ignored), nothing
/// blocked, `/dev/null` as its standard streams, a lower priority, a session of its own (no
/// controlling terminal, out of the program's process group), and an alarm at `deadline`.
pub fn cut_loose(dev_null: RawFd, nice: i32, deadline: Duration) {
    // SAFETY: signal, sigprocmask, dup2, nice, setsid and setitimer only change this process's
    // own settings; every argument is a valid constant or a descriptor we own.
    unsafe {
        // The host's handlers were inherited: a SIGALRM handler would defeat the deadline and a
        // SIGCHLD set to SIG_IGN would reap our test processes before we could.
        for sig in 1..=64 {
            if sig != libc::SIGKILL && sig != libc::SIGSTOP {
                libc::signal(sig, libc::SIG_DFL);
            }
        }
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
        let mut none: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut none);
        libc::pthread_sigmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());

        for fd in 0..=2 {
            libc::dup2(dev_null, fd);
        }
        libc::nice(nice);
        // A session of its own: no controlling terminal, and out of the program's process
        // group, so a terminal's signals and job control never reach the tests.
        libc::setsid();

        let timer = libc::itimerval {
            it_interval: libc::timeval {
                tv_sec: 0,
                tv_usec: 0,
            },
            it_value: libc::timeval {
                tv_sec: deadline.as_secs() as libc::time_t,
                tv_usec: deadline.subsec_micros() as libc::suseconds_t,
            },
        };
        libc::setitimer(libc::ITIMER_REAL, &timer, std::ptr::null_mut());
    }
}

/// The size of a page of memory.
pub fn page_size() -> u64 {
    // SAFETY: sysconf has no preconditions.
    unsafe { libc::sysconf(libc::_SC_PAGESIZE) as u64 }
}

/// Caps this process's address space at `bytes`: an allocation beyond fails.
pub fn limit_address_space(bytes: u64) {
    let lim = libc::rlimit {
        rlim_cur: bytes,
        rlim_max: bytes,
    };
    // SAFETY: setrlimit reads a valid rlimit.
    unsafe { libc::setrlimit(libc::RLIMIT_AS, &lim) };
}

/// Waits until one of the descriptors is readable or `ms` milliseconds have passed.
pub fn wait_readable(fds: &[RawFd], ms: i32) {
    let mut polls: Vec<libc::pollfd> = fds
        .iter()
        .map(|&fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    // SAFETY: `polls` is a live array of the length passed.
    unsafe { libc::poll(polls.as_mut_ptr(), polls.len() as libc::nfds_t, ms) };
}

/// Waits until one of the descriptors is readable (or has hung up) or `ms` milliseconds have
/// passed; which ones are. Negative descriptors are left out, and never ready.
pub fn poll_ready<const N: usize>(fds: [RawFd; N], ms: i32) -> [bool; N] {
    let mut polls = fds.map(|fd| libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    });
    // SAFETY: `polls` is a live array of the length passed; poll skips negative descriptors.
    let n = unsafe { libc::poll(polls.as_mut_ptr(), N as libc::nfds_t, ms) };
    if n <= 0 {
        return [false; N];
    }
    polls.map(|p| p.fd >= 0 && p.revents != 0)
}

/// Reads what a non-blocking descriptor holds into `buf`; the count read (0 for nothing).
pub fn read_some(fd: RawFd, buf: &mut [u8]) -> usize {
    // SAFETY: `buf` is a live buffer of the length passed.
    let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
    n.max(0) as usize
}

/// The last panic message in this process (leaked on purpose: the process is short-lived).
/// An atomic pointer rather than a lock: the panic hook that sets it may run anywhere, and a
/// lock could have been held by a thread that does not exist after the fork.
static LAST_PANIC: AtomicPtr<String> = AtomicPtr::new(std::ptr::null_mut());

/// Keeps `message` as this process's last panic.
pub fn set_last_panic(message: String) {
    LAST_PANIC.store(Box::into_raw(Box::new(message)), Ordering::Release);
}

/// This process's last panic message, if it had one.
pub fn last_panic() -> Option<String> {
    let p = LAST_PANIC.load(Ordering::Acquire);
    // SAFETY: non-null pointers in LAST_PANIC come from Box::into_raw and are never freed.
    (!p.is_null()).then(|| unsafe { (*p).clone() })
}

/// Takes one value out of the state a test process inherited, once.
#[derive(Debug, Default)]
pub struct TakeOnce {
    taken: std::cell::Cell<bool>,
}

impl TakeOnce {
    /// A bitwise copy of a by-value receiver for an In Vivo test. Sound because a test
    /// process runs one test and leaves with `_exit`: the original is never used or dropped
    /// again. A second call panics rather than make a second owner.
    pub fn take<T>(&self, value: &T) -> T {
        assert!(
            !self.taken.replace(true),
            "a receiver can be taken once per test"
        );
        // SAFETY: see above; `taken` guarantees a single copy per test process.
        unsafe { std::ptr::read(value) }
    }
}
