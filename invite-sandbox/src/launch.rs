//! How a run's process is made without the program's own child handling ever seeing it.
//!
//! A plain `fork` makes a child whose exit raises SIGCHLD in the program and which any
//! `waitpid(-1)` there may reap: a host with a SIGCHLD handler runs it for processes it never
//! made, and a host thread waiting for "any child" takes pids it does not know. A child made by
//! `clone` with no exit signal is seen by neither, but a raw `clone` skips what glibc's `fork`
//! does around the copy: it takes every `malloc` arena lock (and the loader's and stdio's) so that
//! no other thread is half-way through an allocation when memory is copied, and resets them in
//! the child. A child copied while another thread held an arena lock deadlocks on its first
//! allocation from that arena (`benches/fork_launch.rs` measures how often).
//!
//! So both are used, each for what it is good at, as `posix_spawn` does:
//!
//! 1. The caller blocks every signal and `clone`s a *launcher*: `CLONE_VM | CLONE_FILES |
//!    CLONE_VFORK` with no exit signal, on a stack of its own. It shares the program's memory
//!    and descriptor table, and the caller sleeps until it has exited.
//! 2. The launcher opens a pidfd of the program, calls glibc's `fork` (which takes and resets
//!    every lock exactly as if the caller had forked) and opens a pidfd of the new process, the
//!    *run*, before anyone can reap it.
//! 3. The launcher exits. The run, its child, is adopted by PID 1 (or the nearest subreaper), so
//!    its exit signals nothing in the program; the launcher itself, having no exit signal, is
//!    seen only by waits with `__WCLONE` and is reaped here.
//!
//! The run continues on the launcher's stack with everything else a copy of the program at that
//! instant, the caller's frames included, which is all the tests read. Its exit status goes to
//! whoever adopted it; the collector follows it through the pidfd (see `sandbox::try_reap`).
//!
//! When the program itself adopts orphans (it is PID 1 of its namespace or a child subreaper),
//! the run comes back to it as an ordinary child and is visible again; invite then reaps it
//! through its pidfd as before. On kernels without pidfds (before 5.3) runs are plain forks.

use std::cell::Cell;
use std::io;
use std::os::fd::{FromRawFd, OwnedFd, RawFd};

/// The launcher's stack, which the run and its tests go on using: as much as a main thread
/// gets by default. Reserved, not committed: only the pages used cost memory.
pub const STACK_BYTES: usize = 8 << 20;
/// An inaccessible guard below the stack: an overflowing test faults instead of writing over
/// whatever lies below.
const GUARD_BYTES: usize = 64 << 10;

/// A run's process, made by [`hidden`].
#[derive(Debug)]
pub struct Launched {
    pub pid: libc::pid_t,
    /// Opened while the run was still the launcher's unreaped child, so it can name no other
    /// process.
    pub pidfd: OwnedFd,
}

/// Whether runs can be hidden here: the kernel has pidfds (Linux 5.3 and later), without which
/// a run that is not our child could not be followed safely.
pub fn available() -> bool {
    // SAFETY: getpid has no preconditions.
    crate::process::pidfd_open(unsafe { libc::getpid() }).is_some()
}

/// What the launcher reads and writes; it lives on the caller's frame, which the launcher
/// shares, and the run has a copy of.
struct Launch<'a> {
    program: libc::pid_t,
    caller_cpu: i32,
    run: &'a mut dyn FnMut(Option<OwnedFd>),
    /// What the launcher made: the run's pid and pidfd, or the error that stopped it.
    made: Option<Result<(libc::pid_t, RawFd), i32>>,
}

/// Forks a copy of this process that the program's SIGCHLD handler and `waitpid(-1)` never see,
/// and runs `run` in it, given a pidfd of the program (`program` is its pid). `run` must not
/// return; if it does, the copy exits with status 70. The copy may run on any of the caller's
/// CPUs but `caller_cpu` (where there is another; -1: any).
///
/// Costs the caller one `clone` of a launcher that shares its memory, on top of the fork.
pub fn hidden(
    program: libc::pid_t,
    caller_cpu: i32,
    run: &mut dyn FnMut(Option<OwnedFd>),
) -> io::Result<Launched> {
    let top = STACK
        .try_with(LaunchStack::top)
        .map_err(|_| io::Error::other("the thread is exiting"))??;
    let mut launch = Launch {
        program,
        caller_cpu,
        run,
        made: None,
    };
    let launcher;
    // SAFETY: sigset_t is plain data; sigfillset and pthread_sigmask write into our own sets.
    // Blocking every signal keeps the program's handlers from running on the launcher, which
    // shares the program's memory but is not one of its threads.
    let mut saved: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut saved);
        // SAFETY: `top` is the 16-byte aligned top of a mapping of STACK_BYTES that only this
        // thread uses, and this thread sleeps (CLONE_VFORK) until the launcher has exited, so
        // nothing else runs on that stack or on this frame meanwhile. `launch` outlives the
        // launcher for the same reason. `launcher_main` touches no lock held by the caller.
        launcher = libc::clone(
            launcher_main,
            top.cast(),
            libc::CLONE_VM | libc::CLONE_FILES | libc::CLONE_VFORK,
            (&mut launch as *mut Launch).cast(),
        );
        libc::pthread_sigmask(libc::SIG_SETMASK, &saved, std::ptr::null_mut());
    }
    if launcher < 0 {
        return Err(io::Error::last_os_error());
    }
    reap_launcher(launcher);
    match launch.made {
        Some(Ok((pid, pidfd))) => Ok(Launched {
            pid,
            // SAFETY: the launcher opened this descriptor in the table it shares with us and
            // handed it over; nothing else owns it.
            pidfd: unsafe { OwnedFd::from_raw_fd(pidfd) },
        }),
        Some(Err(errno)) => Err(io::Error::from_raw_os_error(errno)),
        None => Err(io::Error::other("the launcher ended without forking")),
    }
}

/// The launcher: open the program's pidfd, fork, follow the run, and exit.
extern "C" fn launcher_main(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `arg` is the `Launch` on the suspended caller's frame (see `hidden`).
    let launch = unsafe { &mut *arg.cast::<Launch>() };
    let program = crate::process::pidfd_open(launch.program);
    // The launcher starts on the caller's CPU, because the caller sleeps while it runs; a run
    // forked there would be scheduled before the caller wakes and keep it waiting (about
    // 150 µs here, see `benches/fork_launch.rs`). Off it, the run keeps that set of CPUs, as it
    // would anyway.
    crate::process::leave_cpu(launch.caller_cpu);
    // A program that ignores SIGCHLD passed that on to this task, whose signal table is its own
    // (no CLONE_SIGHAND). Left so, a run that ended before the `pidfd_open` below would be
    // reaped by the kernel at once, its pid gone, and the run taken for a failed fork.
    // SAFETY: sets one signal's disposition in this task's own table, which the program does
    // not share; every signal is blocked here.
    unsafe { libc::signal(libc::SIGCHLD, libc::SIG_DFL) };
    // SAFETY: glibc's fork, from a task that shares the program's memory while the forking
    // thread sleeps: it runs the program's fork handlers and takes every allocator lock as if
    // that thread had forked.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        (launch.run)(program);
        // SAFETY: _exit never returns.
        unsafe { libc::_exit(70) }
    }
    // The run has its own copy; this one is in the program's table.
    drop(program);
    if pid < 0 {
        launch.made = Some(Err(errno()));
        return 0;
    }
    match crate::process::pidfd_open(pid) {
        Some(fd) => {
            launch.made = Some(Ok((pid, std::os::fd::IntoRawFd::into_raw_fd(fd))));
        }
        None => {
            launch.made = Some(Err(errno()));
            // SAFETY: our own unreaped child: no other process can hold that pid.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, std::ptr::null_mut(), 0);
            }
        }
    }
    0
}

fn errno() -> i32 {
    io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO)
}

/// Reaps the launcher, which has no exit signal and so stays a zombie until waited for with
/// `__WCLONE`. The caller woke when it released the memory, a moment before it became a zombie.
fn reap_launcher(tid: libc::pid_t) {
    // SAFETY: an all-zero siginfo_t is a valid value for waitid to fill in.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: waitid writes into `info`, which lives across the call; the launcher is our
        // child and exits right after the fork, so this waits microseconds.
        let r = unsafe {
            libc::waitid(
                libc::P_PID,
                tid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::__WCLONE,
            )
        };
        // EINTR: again. ECHILD: a host thread waiting with __WALL took it, which is harmless.
        if r == 0 || errno() != libc::EINTR {
            return;
        }
    }
}

thread_local! {
    /// Each thread's launcher stack, mapped on its first sampled call and unmapped when the
    /// thread exits. One per thread is enough: the thread sleeps while its launcher runs.
    static STACK: LaunchStack = const { LaunchStack { base: Cell::new(std::ptr::null_mut()) } };
}

struct LaunchStack {
    /// The start of the mapping (guard included), or null before the first launch.
    base: Cell<*mut u8>,
}

impl LaunchStack {
    fn top(&self) -> io::Result<*mut u8> {
        if self.base.get().is_null() {
            // SAFETY: a fresh anonymous mapping, private to this process; MAP_NORESERVE commits
            // only the pages the launcher and its run touch.
            let base = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    GUARD_BYTES + STACK_BYTES,
                    libc::PROT_NONE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                    -1,
                    0,
                )
            };
            if base == libc::MAP_FAILED {
                return Err(io::Error::last_os_error());
            }
            // SAFETY: the part above the guard, inside the mapping just made.
            let r = unsafe {
                libc::mprotect(
                    base.cast::<u8>().add(GUARD_BYTES).cast(),
                    STACK_BYTES,
                    libc::PROT_READ | libc::PROT_WRITE,
                )
            };
            if r != 0 {
                let e = io::Error::last_os_error();
                // SAFETY: unmapping what we mapped above.
                unsafe { libc::munmap(base, GUARD_BYTES + STACK_BYTES) };
                return Err(e);
            }
            self.base.set(base.cast());
        }
        // SAFETY: one past the end of the mapping: the top of a downward-growing stack.
        Ok(unsafe { self.base.get().add(GUARD_BYTES + STACK_BYTES) })
    }
}

impl Drop for LaunchStack {
    fn drop(&mut self) {
        let base = self.base.get();
        // A run and its tests live on this stack: one that calls `exit` runs the thread's
        // destructors on it, and must not unmap what it stands on.
        let here = std::hint::black_box(&base) as *const _ as usize;
        let on_it = (base as usize..base as usize + GUARD_BYTES + STACK_BYTES).contains(&here);
        if !base.is_null() && !on_it {
            // SAFETY: the mapping made in `top`, used by no launcher now (they run only while
            // this thread sleeps in `hidden`).
            unsafe { libc::munmap(base.cast(), GUARD_BYTES + STACK_BYTES) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    /// The parent pid of a process, from its status file.
    fn parent_of(pid: libc::pid_t) -> libc::pid_t {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
        status
            .lines()
            .find_map(|l| l.strip_prefix("PPid:"))
            .and_then(|v| v.trim().parse().ok())
            .expect("PPid")
    }

    #[test]
    fn a_run_is_not_a_child_of_the_program_and_gets_its_pidfd() {
        let (to_run, from_us) = crate::process::pipe().expect("pipe");
        let (from_run, to_us) = crate::process::pipe().expect("pipe");
        let (to_run, to_us) = (
            std::os::fd::IntoRawFd::into_raw_fd(to_run),
            std::os::fd::IntoRawFd::into_raw_fd(to_us),
        );
        let from_us = std::os::fd::IntoRawFd::into_raw_fd(from_us);
        let launched = hidden(std::process::id() as libc::pid_t, -1, &mut |program| {
            // SAFETY: plain reads and writes on pipes this process owns, then _exit.
            unsafe {
                libc::close(to_run);
                crate::process::set_blocking(std::os::fd::BorrowedFd::borrow_raw(from_us));
                let byte: u8 = if program.is_some() { 7 } else { 0 };
                libc::write(to_us, [byte].as_ptr().cast(), 1);
                // Wait until the test has looked at us (EOF), then leave.
                let mut b = [0u8; 1];
                libc::read(from_us, b.as_mut_ptr().cast(), 1);
                libc::_exit(9);
            }
        })
        .expect("launch");
        // SAFETY: our copies of the run's ends, not used again here.
        unsafe {
            libc::close(to_us);
            libc::close(from_us);
        }
        let mut from_run = std::fs::File::from(from_run);
        crate::process::set_blocking(&from_run);
        let mut b = [0u8; 1];
        from_run.read_exact(&mut b).expect("the run reports");
        assert_eq!(b[0], 7, "the run got a pidfd of the program");
        // The launcher has been reaped, so the run has been adopted elsewhere: the program's
        // SIGCHLD and waitpid(-1) never hear of it.
        // SAFETY: getpid has no preconditions.
        let me = unsafe { libc::getpid() };
        assert_ne!(launched.pid, me);
        assert_ne!(
            parent_of(launched.pid),
            me,
            "the run is a child of the program"
        );
        // SAFETY: closing our write end lets the run finish.
        unsafe { libc::close(to_run) };
        // The pidfd names the run: it becomes readable when the run ends.
        let mut p = libc::pollfd {
            fd: std::os::fd::AsRawFd::as_raw_fd(&launched.pidfd),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one live pollfd.
        assert_eq!(unsafe { libc::poll(&mut p, 1, 10_000) }, 1);
    }

    #[test]
    fn the_launcher_is_reaped_and_the_run_leaves_the_callers_cpu() {
        // SAFETY: sched_getcpu has no preconditions.
        let cpu = unsafe { libc::sched_getcpu() };
        let (from_run, to_us) = crate::process::pipe().expect("pipe");
        let to_us = std::os::fd::IntoRawFd::into_raw_fd(to_us);
        let launched = hidden(std::process::id() as libc::pid_t, cpu, &mut |_| {
            // SAFETY: reading this process's CPU set and writing one byte, then _exit.
            unsafe {
                let mut set: libc::cpu_set_t = std::mem::zeroed();
                libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set);
                let byte = [libc::CPU_ISSET(cpu as usize, &set) as u8];
                libc::write(to_us, byte.as_ptr().cast(), 1);
                libc::_exit(0);
            }
        })
        .expect("launch");
        // This thread made the launcher, so the launcher would be listed here until reaped;
        // the run was adopted elsewhere.
        let children = std::fs::read_to_string("/proc/thread-self/children").expect("children");
        assert_eq!(children.trim(), "", "left behind: {children}");
        // SAFETY: our copy of the run's write end.
        unsafe { libc::close(to_us) };
        let mut from_run = std::fs::File::from(from_run);
        crate::process::set_blocking(&from_run);
        let mut b = [9u8; 1];
        from_run.read_exact(&mut b).expect("the run reports");
        // SAFETY: cpu_set_t is plain data; reading our own set.
        let cpus = unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set);
            libc::CPU_COUNT(&set)
        };
        let expected = u8::from(cpus == 1);
        assert_eq!(b[0], expected, "run on the caller's CPU {cpu} of {cpus}");
        drop(launched);
    }

    /// The mapping of /proc/self/maps that holds `addr`: (start, end, permissions).
    fn mapping_at(addr: usize) -> (usize, usize, String) {
        find_mapping(addr).unwrap_or_else(|| panic!("nothing mapped at {addr:x}"))
    }

    fn find_mapping(addr: usize) -> Option<(usize, usize, String)> {
        let maps = std::fs::read_to_string("/proc/self/maps").expect("maps");
        maps.lines().find_map(|l| {
            let mut f = l.split_whitespace();
            let (lo, hi) = f.next()?.split_once('-')?;
            let lo = usize::from_str_radix(lo, 16).ok()?;
            let hi = usize::from_str_radix(hi, 16).ok()?;
            (lo <= addr && addr < hi).then(|| (lo, hi, f.next().unwrap_or("").to_string()))
        })
    }

    #[test]
    fn a_stack_is_unmapped_when_dropped_unless_it_is_in_use() {
        // In a child of its own: only this thread runs there, so nothing else can map the
        // freed range before it is looked at.
        // SAFETY: the child maps, unmaps, reads /proc and leaves with _exit.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            let stack = LaunchStack {
                base: Cell::new(std::ptr::null_mut()),
            };
            let top = stack.top().map_or(0, |t| t as usize);
            let mapped = find_mapping(top - 1).is_some_and(|(_, hi, p)| hi == top && p == "rw-p");
            drop(stack);
            let freed =
                find_mapping(top - 1).is_none() && find_mapping(top - STACK_BYTES - 1).is_none();
            // SAFETY: _exit never returns.
            unsafe { libc::_exit(if mapped && freed { 0 } else { 1 }) };
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
    fn the_stack_is_mapped_once_per_thread_with_a_guard_below() {
        let top = STACK.with(LaunchStack::top).expect("stack") as usize;
        assert_eq!(top, STACK.with(LaunchStack::top).expect("stack") as usize);
        let other = std::thread::spawn(|| STACK.with(LaunchStack::top).expect("stack") as usize)
            .join()
            .expect("thread");
        assert_ne!(top, other, "each thread has its own");
        assert_eq!(top % 4096, 0);
        let start = top - STACK_BYTES;
        let (lo, hi, perms) = mapping_at(start);
        assert!(
            lo <= start && hi >= top && perms == "rw-p",
            "{lo:x}-{hi:x} {perms}"
        );
        let (lo, hi, perms) = mapping_at(start - 1);
        assert!(lo <= start - GUARD_BYTES && hi == start && perms == "---p");
        // Nothing more was reserved above the stack.
        if let Some((lo, hi, perms)) = find_mapping(top) {
            assert!(
                lo != top || perms != "---p" || hi - lo <= GUARD_BYTES,
                "{lo:x}-{hi:x}"
            );
        }
    }
}
