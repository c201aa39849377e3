//! Confining a whole program's process between `fork` and `exec`, and the few calls on its
//! own process that a runner of whole programs makes (its session, its children, its signals).
//! Used by `invite system`; the policy (which files, which calls) is the caller's.

use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::sync::Arc;

/// The Landlock ABI the running kernel offers: 0 without Landlock.
pub fn landlock_abi() -> i32 {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: with a null attribute, size 0 and the VERSION flag the call reads and writes no
    // memory; it returns the ABI or -1.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    v.max(0) as i32
}

/// Everything a confined process applies to itself between fork and exec, prepared before the
/// fork so that the child only makes system calls.
#[derive(Debug)]
pub struct Confinement {
    /// A Landlock ruleset to restrict the process to; with one, every capability is dropped.
    pub ruleset: Option<OwnedFd>,
    /// A seccomp filter to install last (empty: none).
    pub filter: Vec<libc::sock_filter>,
    /// The `nice` increment.
    pub nice: i32,
    /// The largest file the process may write (`RLIMIT_FSIZE`).
    pub file_bytes: u64,
    /// Its address space at most (`RLIMIT_AS`).
    pub memory_bytes: Option<u64>,
}

impl Confinement {
    /// Makes `cmd` start confined: in a session of its own, killed when the caller dies, niced,
    /// without core dumps, within its limits, without capabilities (under a ruleset),
    /// `no_new_privs`, under the ruleset and the filter, with inherited descriptors above 2
    /// closed on exec.
    pub fn apply_to(self: &Arc<Confinement>, cmd: &mut Command) {
        let confinement = Arc::clone(self);
        // SAFETY: the closure runs in the forked child before exec and only makes system calls
        // on data prepared before the fork (no allocation, no locks): async-signal-safe.
        unsafe {
            cmd.pre_exec(move || confinement.enter());
        }
    }

    /// Applies the jail to the calling process. Only system calls: it runs between fork and
    /// exec.
    fn enter(&self) -> std::io::Result<()> {
        let check = |r: libc::c_int| {
            if r < 0 {
                Err(std::io::Error::last_os_error())
            } else {
                Ok(())
            }
        };
        // SAFETY: plain system calls on values and on memory owned by `self`, which outlives
        // them.
        unsafe {
            libc::setsid();
            check(libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0))?;
            libc::setpriority(libc::PRIO_PROCESS, 0, self.nice);
            let limit = |resource, v: u64| {
                let r = libc::rlimit {
                    rlim_cur: v,
                    rlim_max: v,
                };
                check(libc::setrlimit(resource, &r))
            };
            limit(libc::RLIMIT_CORE, 0)?;
            limit(libc::RLIMIT_FSIZE, self.file_bytes)?;
            if let Some(m) = self.memory_bytes {
                limit(libc::RLIMIT_AS, m)?;
            }
            if self.ruleset.is_some() {
                drop_capabilities()?;
            }
            check(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))?;
            if let Some(fd) = &self.ruleset {
                let r = libc::syscall(libc::SYS_landlock_restrict_self, fd.as_raw_fd(), 0u32);
                check(r as libc::c_int)?;
            }
            if !self.filter.is_empty() {
                crate::bpf::install(&self.filter)?;
            }
            // Descriptors the runner inherited are not the follow-up's business.
            libc::syscall(
                libc::SYS_close_range,
                3u32,
                u32::MAX,
                libc::CLOSE_RANGE_CLOEXEC,
            );
        }
        Ok(())
    }
}

/// Drops every capability, from the bounding set too, so that not even a root user's follow-up
/// (or what it executes) has any.
///
/// # Safety
/// Only system calls; callable between fork and exec.
unsafe fn drop_capabilities() -> std::io::Result<()> {
    const SECBIT_NOROOT: libc::c_ulong = 1 << 0;
    const SECBIT_NOROOT_LOCKED: libc::c_ulong = 1 << 1;
    const SECBIT_NO_SETUID_FIXUP: libc::c_ulong = 1 << 2;
    const SECBIT_NO_SETUID_FIXUP_LOCKED: libc::c_ulong = 1 << 3;
    const LINUX_CAPABILITY_VERSION_3: u32 = 0x2008_0522;
    const CAP_SETPCAP: libc::c_ulong = 8;
    #[repr(C)]
    struct Header {
        version: u32,
        pid: i32,
    }
    #[repr(C)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    // SAFETY: system calls on stack values, which live across them.
    unsafe {
        let privileged =
            libc::prctl(libc::PR_CAPBSET_READ, CAP_SETPCAP, 0, 0, 0) == 1 && libc::geteuid() == 0;
        if privileged {
            for cap in 0..64 {
                libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0);
            }
            libc::prctl(
                libc::PR_SET_SECUREBITS,
                SECBIT_NOROOT
                    | SECBIT_NOROOT_LOCKED
                    | SECBIT_NO_SETUID_FIXUP
                    | SECBIT_NO_SETUID_FIXUP_LOCKED,
                0,
                0,
                0,
            );
        }
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        );
        let header = Header {
            version: LINUX_CAPABILITY_VERSION_3,
            pid: 0,
        };
        let data = [
            Data {
                effective: 0,
                permitted: 0,
                inheritable: 0,
            },
            Data {
                effective: 0,
                permitted: 0,
                inheritable: 0,
            },
        ];
        if libc::syscall(libc::SYS_capset, &header, data.as_ptr()) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// A fork of this process, made only while it has a single thread (so that the child may do
/// anything a program may): `Some(true)` in the child, `Some(false)` in the parent, `None`
/// when it could not fork or other threads run.
pub fn fork_alone() -> Option<bool> {
    if threads() != Some(1) {
        return None;
    }
    // SAFETY: the process has one thread (checked above), so nothing the child inherits can be
    // held by a thread that is not copied.
    match unsafe { libc::fork() } {
        0 => Some(true),
        -1 => None,
        _ => Some(false),
    }
}

/// How many threads this process has, from /proc.
pub fn threads() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("Threads:"))?;
    line["Threads:".len()..].trim().parse().ok()
}

/// Leaves the caller's session and standard streams, so that a pipe or terminal the caller
/// reads is not held open by this process.
pub fn leave_session(keep_stderr: bool) {
    // SAFETY: plain system calls on descriptors this process owns.
    unsafe {
        libc::setsid();
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
        if null >= 0 {
            libc::dup2(null, 0);
            libc::dup2(null, 1);
            if !keep_stderr {
                libc::dup2(null, 2);
            }
            if null > 2 {
                libc::close(null);
            }
        }
    }
}

/// Makes this process the reaper of every orphan among its descendants.
pub fn become_subreaper() {
    // SAFETY: a flag on this process.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
}

/// Kills a child of this process (by pid) or, with a negative pid, the process group it leads.
pub fn kill(pid: libc::pid_t) {
    // SAFETY: a signal to a process or group the caller names; no memory is involved.
    unsafe {
        libc::kill(pid, libc::SIGKILL);
    }
}

/// Reaps one ended child, if any: `Some(true)` if one was reaped, `Some(false)` if children
/// remain but none has ended, `None` when there are no children.
pub fn reap_any() -> Option<bool> {
    // SAFETY: a null status pointer is allowed; no memory is written.
    match unsafe { libc::waitpid(-1, std::ptr::null_mut(), libc::WNOHANG) } {
        0 => Some(false),
        n if n > 0 => Some(true),
        _ => None,
    }
}

/// Whether the child `pid` has ended, leaving it unreaped.
pub fn exited(pid: libc::pid_t) -> bool {
    // SAFETY: `info` is a zeroed siginfo the call fills in; WNOWAIT leaves the child reapable.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
        libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, flags) == 0 && info.si_pid() != 0
    }
}

/// The dispositions of SIGINT and SIGQUIT that [`ignore_interrupts`] replaced.
#[derive(Debug, Clone, Copy)]
pub struct Interrupts([libc::sighandler_t; 2]);

/// Ignores SIGINT and SIGQUIT (as a shell does while its child runs) until [`Interrupts::restore`].
pub fn ignore_interrupts() -> Interrupts {
    // SAFETY: SIG_IGN is a valid disposition; the previous ones are restored afterwards.
    unsafe {
        Interrupts([
            libc::signal(libc::SIGINT, libc::SIG_IGN),
            libc::signal(libc::SIGQUIT, libc::SIG_IGN),
        ])
    }
}

impl Interrupts {
    /// Restores the dispositions [`ignore_interrupts`] replaced.
    pub fn restore(self) {
        // SAFETY: these dispositions were this process's own before `ignore_interrupts`.
        unsafe {
            libc::signal(libc::SIGINT, self.0[0]);
            libc::signal(libc::SIGQUIT, self.0[1]);
        }
    }
}

/// Raises `sig` on this process with its default disposition, so that the process ends as a
/// program killed by it would (a core dump included, where it makes one).
pub fn raise_default(sig: i32) {
    // SAFETY: the default disposition is restored and the signal raised on this process.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}
