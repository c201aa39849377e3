//! Following processes: pipes to hear from them, pidfds to wait for and signal them without
//! touching the program's own children, and how each ended.

use std::os::fd::{AsRawFd, OwnedFd, RawFd};

/// A pipe whose both ends close on exec, both non-blocking: one system call for the caller.
/// The writer, in a child, makes its end blocking again with [`set_blocking`].
pub fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    use rustix::pipe::PipeFlags;
    Ok(rustix::pipe::pipe_with(
        PipeFlags::CLOEXEC | PipeFlags::NONBLOCK,
    )?)
}

pub fn raw(fd: &OwnedFd) -> RawFd {
    std::os::fd::AsRawFd::as_raw_fd(fd)
}

/// Moves the calling process off `cpu` where its CPU set has another one to run on (-1: stay).
///
/// Only the calling task changes: a run's launcher, or a run (processes of their own).
pub fn leave_cpu(cpu: i32) {
    use rustix::thread::{sched_getaffinity, sched_setaffinity, CpuSet};
    if cpu < 0 || cpu as usize >= CpuSet::MAX_CPU {
        return;
    }
    let Ok(mut set) = sched_getaffinity(None) else {
        return;
    };
    if set.count() > 1 && set.is_set(cpu as usize) {
        set.unset(cpu as usize);
        let _ = sched_setaffinity(None, &set);
    }
}

/// Makes a descriptor blocking (a child's write end: a full pipe must wait, not drop data).
pub fn set_blocking(fd: impl std::os::fd::AsFd) {
    use rustix::fs::{fcntl_getfl, fcntl_setfl, OFlags};
    if let Ok(flags) = fcntl_getfl(&fd) {
        let _ = fcntl_setfl(&fd, flags - OFlags::NONBLOCK);
    }
}

/// A pidfd for our own child, or `None` on kernels without pidfds (the caller then polls).
pub fn pidfd_open(pid: libc::pid_t) -> Option<OwnedFd> {
    open_pidfd(pid).ok()
}

/// A non-blocking pidfd for `pid`; a pid that names no process (0 or negative) is `EINVAL`,
/// as the kernel would say.
fn open_pidfd(pid: libc::pid_t) -> rustix::io::Result<OwnedFd> {
    use rustix::process::{Pid, PidfdFlags};
    let pid = Pid::from_raw(pid).ok_or(rustix::io::Errno::INVAL)?;
    rustix::process::pidfd_open(pid, PidfdFlags::NONBLOCK)
}

/// How the collector holds on to a run's child.
#[derive(Debug)]
pub enum Follow {
    /// Through a pidfd: waits and signals reach this process and no other.
    Pidfd(OwnedFd),
    /// By pid, on kernels without pidfds (the collector then polls).
    Pid,
    /// Not a child of ours any more: already reaped by another waiter in the host (which
    /// ignores SIGCHLD, or waits for any child). Its pid must not be used again.
    Gone,
}

/// Opens a pidfd for a run's child, on the collector thread (a system call less for the caller)
/// and makes sure it names that child.
///
/// Between the fork and this call the pid cannot name another process unless the child was
/// reaped by someone else meanwhile and the kernel, which hands out pids in a cycle, went all
/// the way round `pid_max` (at least 32,768 process creations) within the collector's tick. A
/// reaped child shows up as `ESRCH`, or as a process that `waitid` says is not our child
/// (`ECHILD`): both are `Gone`.
pub fn follow(pid: libc::pid_t) -> Follow {
    let fd = match open_pidfd(pid) {
        Ok(fd) => fd,
        Err(rustix::io::Errno::NOSYS) => return Follow::Pid,
        Err(_) => return Follow::Gone,
    };
    // SAFETY: an all-zero siginfo_t is a valid value for waitid to fill in.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: waitid writes into `info`, which lives across the call. WNOWAIT leaves an
        // exited child to be reaped later.
        let r = unsafe {
            libc::waitid(
                libc::P_PIDFD,
                raw(&fd) as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
            )
        };
        if r == 0 {
            return Follow::Pidfd(fd);
        }
        if std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            return Follow::Gone;
        }
    }
}

impl Follow {
    pub fn pidfd(&self) -> Option<&OwnedFd> {
        match self {
            Follow::Pidfd(fd) => Some(fd),
            _ => None,
        }
    }

    /// Reaps the child without blocking; `None` while it runs.
    pub fn try_reap(&self, pid: libc::pid_t) -> Option<Exit> {
        match self {
            Follow::Gone => Some(Exit::Unknown),
            _ => try_reap(pid, self.pidfd()),
        }
    }

    pub fn kill(&self, pid: libc::pid_t) {
        if !matches!(self, Follow::Gone) {
            kill(pid, self.pidfd());
        }
    }
}

/// How a child ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    Code(i32),
    Signal(i32),
    /// Another process reaped it: the one that adopted a run, or a host calling
    /// `waitpid(-1)`. Status unknown.
    Unknown,
}

impl Exit {
    pub fn describe(self) -> String {
        match self {
            Exit::Code(c) => format!("exited with status {c}"),
            Exit::Signal(s) => format!("was killed by {}", signal_name(s)),
            Exit::Unknown => {
                "ended (its exit status went to the process that reaped it)".to_string()
            }
        }
    }
}

pub fn signal_name(sig: i32) -> String {
    let name = match sig {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGILL => "SIGILL",
        libc::SIGKILL => "SIGKILL",
        libc::SIGTERM => "SIGTERM",
        libc::SIGALRM => "SIGALRM",
        libc::SIGSYS => "SIGSYS",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGINT => "SIGINT",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGXCPU => "SIGXCPU",
        _ => return format!("signal {sig}"),
    };
    format!("{name} (signal {sig})")
}

/// Reaps a run or test process without blocking: through its pidfd when there is one, else by
/// pid. `None` while it is still running.
///
/// A run is not our child (see [`crate::launch`]): `waitid` refuses it with `ECHILD`, and its pidfd
/// turning readable says it ended. Its status then comes from the pidfd once the process that
/// adopted it has reaped it (Linux 6.15 and later), and is otherwise unknown.
pub fn try_reap(pid: libc::pid_t, pidfd: Option<&OwnedFd>) -> Option<Exit> {
    // SAFETY: an all-zero siginfo_t is a valid value for waitid to fill in.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    let (idtype, id) = match pidfd {
        Some(fd) => (libc::P_PIDFD, raw(fd) as libc::id_t),
        None => (libc::P_PID, pid as libc::id_t),
    };
    // SAFETY: waitid writes into `info`, which lives across the call. It never sleeps here
    // (WNOHANG, and pidfds are opened non-blocking), so it cannot be interrupted either.
    let r = unsafe {
        libc::waitid(
            idtype,
            id,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::__WALL,
        )
    };
    if r == 0 {
        // SAFETY: after a successful waitid the pid field is initialised (0: still running).
        if unsafe { info.si_pid() } == 0 {
            return None;
        }
        // SAFETY: for a reaped child si_status holds its code or signal.
        let status = unsafe { info.si_status() };
        return Some(if info.si_code == libc::CLD_EXITED {
            Exit::Code(status)
        } else {
            Exit::Signal(status)
        });
    }
    // Not (or no longer) our child: adopted by another process, or reaped by the host (SIGCHLD
    // ignored, or its own waitpid(-1)); or, through a non-blocking pidfd, still running.
    match pidfd {
        Some(fd) if !readable(raw(fd)) => None,
        Some(fd) => Some(exit_from_pidfd(fd)),
        None => Some(Exit::Unknown),
    }
}

/// Whether a descriptor is readable now (a pidfd: its process has ended).
pub fn readable(fd: RawFd) -> bool {
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one live pollfd, no waiting.
    unsafe { libc::poll(&mut p, 1, 0) == 1 }
}

/// How a process that is not our child ended, if whoever reaped it has done so and the kernel
/// keeps exit statuses on pidfds.
fn exit_from_pidfd(fd: &OwnedFd) -> Exit {
    // SAFETY: pidfd_info is plain data, for which all zeroes is a valid value.
    let mut info: libc::pidfd_info = unsafe { std::mem::zeroed() };
    info.mask = u64::from(libc::PIDFD_INFO_EXIT);
    // SAFETY: PIDFD_GET_INFO fills in a pidfd_info that lives across the call.
    let r = unsafe { libc::ioctl(raw(fd), libc::PIDFD_GET_INFO, &mut info) };
    if r != 0 || info.mask & u64::from(libc::PIDFD_INFO_EXIT) == 0 {
        return Exit::Unknown;
    }
    let status = info.exit_code;
    if libc::WIFEXITED(status) {
        Exit::Code(libc::WEXITSTATUS(status))
    } else if libc::WIFSIGNALED(status) {
        Exit::Signal(libc::WTERMSIG(status))
    } else {
        Exit::Unknown
    }
}

/// Sends SIGKILL to a run or test process, through its pidfd when there is one (safe against
/// pid reuse).
pub fn kill(pid: libc::pid_t, pidfd: Option<&OwnedFd>) {
    use rustix::process::{Pid, Signal};
    let _ = match (pidfd, Pid::from_raw(pid)) {
        (Some(fd), _) => rustix::process::pidfd_send_signal(fd, Signal::KILL),
        (None, Some(pid)) => rustix::process::kill_process(pid, Signal::KILL),
        // Never 0 or negative, which would signal a whole group.
        (None, None) => Ok(()),
    };
}

/// Has `f` run when the process exits normally (`atexit`). Registration fails only when the C
/// library is out of memory, and then the process exits without it: nothing to do about it.
pub fn at_exit(f: extern "C" fn()) {
    // SAFETY: registering a plain `extern "C" fn` has no preconditions; the caller's function
    // must not unwind, which `extern "C"` already turns into an abort.
    unsafe { libc::atexit(f) };
}

/// Has `f` run in the child of every later `fork` of this process (`pthread_atfork`); as with
/// [`at_exit`], only an exhausted C library refuses.
pub fn at_fork_in_child(f: extern "C" fn()) {
    // SAFETY: registering a plain `extern "C" fn` has no preconditions; it runs in a child
    // right after a fork, so it must be async-signal-safe, which the caller's (a store to an
    // atomic) is.
    unsafe { libc::pthread_atfork(None, None, Some(f)) };
}

/// Blocks `signals` in the calling thread only: a signal the kernel raises for a failed
/// write (SIGXFSZ, SIGPIPE) then fails the write instead of killing the process.
pub fn block_in_this_thread(signals: &[libc::c_int]) {
    // SAFETY: sigset_t is plain data that sigemptyset initialises; pthread_sigmask changes
    // only this thread's mask and reads a live set.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for &sig in signals {
            libc::sigaddset(&mut set, sig);
        }
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
    }
}

/// Whether the program leaves its children's ends to the default: SIGCHLD neither caught nor
/// ignored, and no `SA_NOCLDWAIT`. Otherwise a plain fork's end would run the program's
/// handler, or its status would be thrown away by the kernel before anyone could read it.
pub fn sigchld_default() -> bool {
    // SAFETY: `sigaction` is plain data, for which all zeroes is a valid value.
    let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
    // SAFETY: with no new action, sigaction only writes the current one into `old`, which
    // lives across the call; it changes nothing.
    let r = unsafe { libc::sigaction(libc::SIGCHLD, std::ptr::null(), &mut old) };
    r == 0 && old.sa_sigaction == libc::SIG_DFL && old.sa_flags & libc::SA_NOCLDWAIT == 0
}

/// The children of every thread of this process (`/proc/self/task/*/children`), or `None`
/// where the kernel does not list them (built without `CONFIG_PROC_CHILDREN`).
pub fn children() -> Option<Vec<libc::pid_t>> {
    let mut pids = Vec::new();
    let mut listed = false;
    for task in std::fs::read_dir("/proc/self/task").ok()?.flatten() {
        // A thread that exits meanwhile takes its file with it; its children went elsewhere.
        let Ok(text) = std::fs::read_to_string(task.path().join("children")) else {
            continue;
        };
        listed = true;
        pids.extend(
            text.split_whitespace()
                .filter_map(|p| p.parse::<libc::pid_t>().ok()),
        );
    }
    listed.then_some(pids)
}

/// Whether the process behind a pidfd still exists, if only as a zombie nobody has reaped: a
/// signal 0 through its pidfd reaches a zombie, and fails with ESRCH once it is reaped.
pub fn exists(pidfd: &OwnedFd) -> bool {
    // SAFETY: pidfd_send_signal with signal 0 only checks that the process exists; the
    // descriptor is a live pidfd owned by the caller.
    let r = unsafe {
        libc::syscall(
            libc::SYS_pidfd_send_signal,
            pidfd.as_raw_fd(),
            0,
            std::ptr::null::<libc::siginfo_t>(),
            0,
        )
    };
    r == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::launch;
    use std::time::Duration;

    extern "C" fn ignore(_: libc::c_int) {}

    #[test]
    fn sigchld_is_default_only_when_neither_caught_ignored_nor_told_not_to_wait() {
        // In a child of its own: the dispositions are the whole process's, and other tests
        // here wait for their children.
        // SAFETY: the child changes its own dispositions, reads them and leaves with _exit.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            let set = |handler: libc::sighandler_t, flags: libc::c_int| {
                // SAFETY: a sigaction of plain data, installed for this process only.
                unsafe {
                    let mut action: libc::sigaction = std::mem::zeroed();
                    action.sa_sigaction = handler;
                    action.sa_flags = flags;
                    libc::sigaction(libc::SIGCHLD, &action, std::ptr::null_mut());
                }
            };
            let mut seen = Vec::new();
            set(libc::SIG_DFL, 0);
            seen.push(sigchld_default());
            set(ignore as *const () as libc::sighandler_t, 0);
            seen.push(sigchld_default());
            set(libc::SIG_IGN, 0);
            seen.push(sigchld_default());
            set(libc::SIG_DFL, libc::SA_NOCLDWAIT);
            seen.push(sigchld_default());
            set(libc::SIG_DFL, libc::SA_RESTART);
            seen.push(sigchld_default());
            let ok = seen == [true, false, false, false, true];
            // SAFETY: _exit never returns.
            unsafe { libc::_exit(if ok { 0 } else { 1 }) };
        }
        let mut status = 0;
        // SAFETY: reaping our own child.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        assert!(
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
            "{status}"
        );
    }

    #[test]
    fn children_lists_the_children_of_every_thread() {
        let Some(before) = children() else {
            return; // a kernel built without CONFIG_PROC_CHILDREN lists none
        };
        let mut here = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let mut there = std::thread::spawn(|| {
            std::process::Command::new("sleep")
                .arg("30")
                .spawn()
                .unwrap()
        })
        .join()
        .unwrap();
        let listed = children().expect("listed");
        for c in [&here, &there] {
            let pid = c.id() as libc::pid_t;
            assert!(listed.contains(&pid), "{pid} not in {listed:?}");
            assert!(!before.contains(&pid));
        }
        for c in [&mut here, &mut there] {
            c.kill().unwrap();
            c.wait().unwrap();
        }
        let after = children().expect("listed");
        assert!(!after.contains(&(here.id() as libc::pid_t)), "{after:?}");
    }

    #[test]
    fn a_process_leaves_any_cpu_it_names_while_it_has_another() {
        let allowed = rustix::thread::sched_getaffinity(None).expect("affinity");
        if allowed.count() < 2 {
            return; // Nowhere else to go: leave_cpu stays, which is right.
        }
        for cpu in (0..rustix::thread::CpuSet::MAX_CPU).filter(|&c| allowed.is_set(c)) {
            // Affinity is a thread's own: each check runs on a fresh thread.
            let left = std::thread::spawn(move || {
                leave_cpu(cpu as i32);
                rustix::thread::sched_getaffinity(None).expect("affinity")
            })
            .join()
            .unwrap();
            assert!(!left.is_set(cpu), "still on CPU {cpu}");
            assert_eq!(left.count(), allowed.count() - 1, "only CPU {cpu} left");
        }
        // Out of range, or unknown (-1): nothing changes.
        for cpu in [-1, rustix::thread::CpuSet::MAX_CPU as i32] {
            let kept = std::thread::spawn(move || {
                leave_cpu(cpu);
                rustix::thread::sched_getaffinity(None).expect("affinity")
            })
            .join()
            .unwrap();
            assert_eq!(kept.count(), allowed.count(), "CPU {cpu}");
        }
    }

    #[test]
    fn a_pipe_is_non_blocking_until_its_writer_makes_it_blocking() {
        use rustix::fs::{fcntl_getfl, OFlags};
        let (r, w) = pipe().expect("pipe");
        for end in [&r, &w] {
            assert!(fcntl_getfl(end).unwrap().contains(OFlags::NONBLOCK));
            let fd = rustix::io::fcntl_getfd(end).unwrap();
            assert!(fd.contains(rustix::io::FdFlags::CLOEXEC));
        }
        set_blocking(&w);
        assert!(!fcntl_getfl(&w).unwrap().contains(OFlags::NONBLOCK));
        assert!(
            fcntl_getfl(&r).unwrap().contains(OFlags::NONBLOCK),
            "the other end stays"
        );
    }

    #[test]
    fn signals_are_blocked_in_the_calling_thread_only() {
        let blocked = |sig| {
            // SAFETY: reading this thread's mask into a zeroed set.
            unsafe {
                let mut now: libc::sigset_t = std::mem::zeroed();
                libc::pthread_sigmask(libc::SIG_BLOCK, std::ptr::null(), &mut now);
                libc::sigismember(&now, sig) == 1
            }
        };
        let inside = std::thread::spawn(move || {
            block_in_this_thread(&[libc::SIGUSR2, libc::SIGXFSZ]);
            (
                blocked(libc::SIGUSR2),
                blocked(libc::SIGXFSZ),
                blocked(libc::SIGUSR1),
            )
        })
        .join()
        .unwrap();
        assert_eq!(inside, (true, true, false));
        assert!(!blocked(libc::SIGUSR2), "another thread's mask is its own");
    }

    fn fork_sleeper() -> libc::pid_t {
        // SAFETY: the child only sleeps and exits through async-signal-safe calls.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            // SAFETY: pause and _exit have no preconditions.
            unsafe {
                libc::pause();
                libc::_exit(0)
            }
        }
        assert!(pid > 0, "fork failed");
        pid
    }

    #[test]
    fn a_live_child_is_followed_through_its_pidfd_and_killed_by_it() {
        let pid = fork_sleeper();
        let follow = follow(pid);
        assert!(matches!(follow, Follow::Pidfd(_)), "{follow:?}");
        assert_eq!(follow.try_reap(pid), None);
        follow.kill(pid);
        let exit = loop {
            if let Some(exit) = follow.try_reap(pid) {
                break exit;
            }
            std::thread::sleep(Duration::from_millis(1));
        };
        assert_eq!(exit, Exit::Signal(libc::SIGKILL));
    }

    #[test]
    fn a_live_child_followed_by_pid_is_polled_without_blocking() {
        let pid = fork_sleeper();
        for _ in 0..3 {
            assert_eq!(try_reap(pid, None), None);
        }
        kill(pid, None);
        let exit = loop {
            if let Some(exit) = try_reap(pid, None) {
                break exit;
            }
            std::thread::sleep(Duration::from_millis(1));
        };
        assert_eq!(exit, Exit::Signal(libc::SIGKILL));
    }

    #[test]
    fn a_child_reaped_by_someone_else_is_gone_and_never_signalled() {
        let pid = fork_sleeper();
        // SAFETY: killing and reaping our own child, as a host's waitpid(-1) would.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
            libc::waitpid(pid, std::ptr::null_mut(), 0);
        }
        let follow = follow(pid);
        assert!(matches!(follow, Follow::Gone), "{follow:?}");
        assert_eq!(follow.try_reap(pid), Some(Exit::Unknown));
    }

    /// Whether this kernel keeps exit statuses on pidfds (Linux 6.15 and later).
    fn kernel_keeps_exit_status() -> bool {
        let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").expect("osrelease");
        let mut parts = release.split(|c: char| !c.is_ascii_digit());
        let major: u32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
        let minor: u32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
        (major, minor) >= (6, 15)
    }

    #[test]
    fn the_status_of_a_process_another_reaped_comes_from_its_pidfd() {
        for (how, want) in [(0, Exit::Code(9)), (1, Exit::Signal(libc::SIGKILL))] {
            // SAFETY: the child leaves at once, by _exit or by killing itself.
            let pid = unsafe { libc::fork() };
            if pid == 0 {
                // SAFETY: as above.
                unsafe {
                    if how == 1 {
                        libc::kill(libc::getpid(), libc::SIGKILL);
                    }
                    libc::_exit(9);
                }
            }
            let fd = pidfd_open(pid).expect("pidfd");
            // SAFETY: reaping our own child, as the process that adopts a run would.
            unsafe { libc::waitpid(pid, std::ptr::null_mut(), 0) };
            let want = if kernel_keeps_exit_status() {
                want
            } else {
                Exit::Unknown
            };
            assert_eq!(try_reap(pid, Some(&fd)), Some(want));
        }
    }

    #[test]
    fn a_run_is_followed_through_its_pidfd_while_it_lives_and_killed_by_it() {
        // SAFETY: getpid has no preconditions.
        let me = unsafe { libc::getpid() };
        let run = launch::hidden(me, -1, &mut |_| loop {
            // SAFETY: pause has no preconditions.
            unsafe { libc::pause() };
        })
        .expect("launch");
        let follow = Follow::Pidfd(run.pidfd);
        for _ in 0..3 {
            assert_eq!(follow.try_reap(run.pid), None, "a live run is not over");
        }
        follow.kill(run.pid);
        let exit = loop {
            if let Some(exit) = follow.try_reap(run.pid) {
                break exit;
            }
            std::thread::sleep(Duration::from_millis(1));
        };
        // Killed, then adopted: whoever adopted it may not have reaped it yet.
        assert!(
            matches!(exit, Exit::Signal(libc::SIGKILL) | Exit::Unknown),
            "{exit:?}"
        );
        assert!(readable(raw(follow.pidfd().expect("pidfd"))));
    }

    #[test]
    fn a_process_that_is_not_our_child_is_gone() {
        // Our parent exists but is not our child: following it must refuse it.
        // SAFETY: getppid has no preconditions.
        let parent = unsafe { libc::getppid() };
        assert!(matches!(follow(parent), Follow::Gone));
    }
}
