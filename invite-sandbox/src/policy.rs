//! What a test process may ask of the kernel: an allow list, written once by name and resolved
//! to numbers per architecture.
//!
//! The rule is "everything not known to be private is denied". Every call below acts only on the
//! test process itself, on memory that is private to it (shared mappings were made private before
//! the test started, see [`super::detach`]), or on descriptors that are private to it (every
//! descriptor inherited from the program was replaced, same place). Anything else traps and ends
//! the test as `blocked`. Where a call is harmless with some arguments only, the rule names the
//! argument and the values that are allowed.

use std::str::FromStr;

/// The architectures the filter is built for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arch {
    X86_64,
    Aarch64,
}

/// `AUDIT_ARCH_*` values, as the kernel puts them into `seccomp_data.arch`.
const AUDIT_ARCH_X86_64: u32 = 0xc000_003e;
const AUDIT_ARCH_AARCH64: u32 = 0xc000_00b7;

impl Arch {
    /// The architecture this library was compiled for, if the filter supports it.
    pub fn native() -> Option<Arch> {
        Arch::named(std::env::consts::ARCH)
    }

    /// The architecture Rust names `name` (`std::env::consts::ARCH`), if the filter supports
    /// it; on any other, tests run with memory isolation only.
    pub fn named(name: &str) -> Option<Arch> {
        match name {
            "x86_64" => Some(Arch::X86_64),
            "aarch64" => Some(Arch::Aarch64),
            _ => None,
        }
    }

    /// The value the kernel reports for this architecture in `seccomp_data.arch`.
    pub fn audit(self) -> u32 {
        match self {
            Arch::X86_64 => AUDIT_ARCH_X86_64,
            Arch::Aarch64 => AUDIT_ARCH_AARCH64,
        }
    }

    /// The number of a system call by name, or `None` where the architecture has no such call
    /// (aarch64 has no `open`, `stat`, `poll` and other legacy calls).
    pub fn number(self, name: &str) -> Option<u32> {
        match self {
            Arch::X86_64 => syscalls::x86_64::Sysno::from_str(name)
                .ok()
                .map(|s| s.id() as u32),
            Arch::Aarch64 => syscalls::aarch64::Sysno::from_str(name)
                .ok()
                .map(|s| s.id() as u32),
        }
    }

    /// The name of a system call by number; allocation-free, so a signal handler may call it.
    pub fn name(self, nr: u32) -> Option<&'static str> {
        match self {
            Arch::X86_64 => syscalls::x86_64::Sysno::new(nr as usize).map(|s| s.name()),
            Arch::Aarch64 => syscalls::aarch64::Sysno::new(nr as usize).map(|s| s.name()),
        }
    }
}

/// When an allowed call is allowed. Arguments are numbered from 0; conditions on flags and
/// commands read the argument's low 32 bits (the kernel's `int` and `unsigned int` parameters),
/// [`Rule::Zero`] reads all 64.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// With any arguments.
    Allow,
    /// While `arg & mask == 0`.
    NoBits { arg: u32, mask: u32 },
    /// While the one bit `mask` is set in `arg`.
    HasBit { arg: u32, mask: u32 },
    /// While `arg` is one of `values`.
    OneOf { arg: u32, values: &'static [u32] },
    /// While `arg` is not `value`.
    Not { arg: u32, value: u32 },
    /// While `arg` is the test process's own pid (patched in when the filter is installed).
    OwnPid { arg: u32 },
    /// While `arg` is the test process's end of its broker socket (patched in likewise).
    BrokerSocket { arg: u32 },
    /// An open whose flags are `arg`: denied if they write, create or truncate; allowed as
    /// `O_PATH`, which names a file without opening it; otherwise handed to the broker
    /// ([`super::broker`]), which opens only what reading cannot reach beyond the test.
    Open { arg: u32 },
    /// While every listed argument is zero in all 64 bits (a null pointer, pid 0).
    Zero { args: &'static [u32] },
    /// Never run: the call fails with this errno, and no signal is raised (so it works where the
    /// caller has blocked signals, as glibc does around `clone3`).
    Errno(u32),
}

/// Stands for the test process's own pid in the compiled filter; above any real pid.
pub const PID_PLACEHOLDER: u32 = 0x3FFF_FFF1;
/// Stands for the broker socket's descriptor; above any descriptor number Linux hands out.
pub const BROKER_PLACEHOLDER: u32 = 0x3FFF_FFF2;

/// `open` flags that write, create or truncate. (`O_TMPFILE` needs one of the first two.)
pub const OPEN_WRITES: u32 = (libc::O_WRONLY | libc::O_RDWR | libc::O_CREAT | libc::O_TRUNC) as u32;

/// `fcntl` commands that read or change only the test's own descriptor. Not allowed among
/// others: locks and leases (`F_SETLK`, `F_OFD_SETLK`, `F_SETLEASE`: a reopened file shares its
/// inode with the program), `F_SETOWN`/`F_SETSIG` (signals to another process), `F_NOTIFY`,
/// `F_SETPIPE_SZ` and `F_ADD_SEALS`.
const FCNTL_OK: &[u32] = &[
    libc::F_DUPFD as u32,
    libc::F_GETFD as u32,
    libc::F_SETFD as u32,
    libc::F_GETFL as u32,
    libc::F_SETFL as u32,
    libc::F_GETLK as u32,
    libc::F_GETOWN as u32,
    libc::F_DUPFD_CLOEXEC as u32,
    libc::F_GETPIPE_SZ as u32,
    libc::F_GET_SEALS as u32,
    libc::F_OFD_GETLK as u32,
];

/// `ioctl` requests that only read, or change the test's own descriptor (same numbers on both
/// architectures, from asm-generic). Everything else, `TIOCSTI`, `TCSETS` and
/// `FS_IOC_SETFLAGS` among them, is denied.
const IOCTL_OK: &[u32] = &[
    0x5401, // TCGETS (isatty)
    0x5413, // TIOCGWINSZ
    0x541B, // FIONREAD
    0x5421, // FIONBIO
    0x5450, // FIONCLEX
    0x5451, // FIOCLEX
];

/// `prctl` options that read, or name the calling thread or memory it owns. Not allowed among
/// others: `PR_SET_PDEATHSIG` (the test must die with its supervisor), `PR_SET_DUMPABLE`,
/// `PR_SET_CHILD_SUBREAPER`, `PR_SET_PTRACER`, `PR_SET_SECCOMP`.
const PRCTL_OK: &[u32] = &[
    libc::PR_GET_PDEATHSIG as u32,
    libc::PR_GET_DUMPABLE as u32,
    libc::PR_SET_NAME as u32,
    libc::PR_GET_NAME as u32,
    libc::PR_GET_SECCOMP as u32,
    libc::PR_CAPBSET_READ as u32,
    libc::PR_GET_TIMERSLACK as u32,
    libc::PR_GET_NO_NEW_PRIVS as u32,
    libc::PR_GET_THP_DISABLE as u32,
    0x5356_4d41, // PR_SET_VMA: glibc names its own stacks and arenas with it
];

use Rule::*;

/// The allow list. A name the architecture lacks is skipped there.
pub const POLICY: &[(&str, Rule)] = &[
    // Memory. New shared mappings are denied: a test's memory is its own.
    ("brk", Allow),
    (
        "mmap",
        NoBits {
            arg: 3,
            mask: libc::MAP_SHARED as u32,
        },
    ),
    ("munmap", Allow),
    ("mremap", Allow),
    ("mprotect", Allow),
    ("pkey_mprotect", Allow),
    ("madvise", Allow),
    ("mincore", Allow),
    ("msync", Allow),
    ("membarrier", Allow),
    // Threads, locks and scheduling of the test itself. A new process is denied: only `clone`
    // with CLONE_THREAD. glibc tries `clone3` first, whose flags sit in memory the filter cannot
    // read; ENOSYS sends it back to `clone`.
    (
        "clone",
        HasBit {
            arg: 0,
            mask: libc::CLONE_THREAD as u32,
        },
    ),
    ("clone3", Errno(libc::ENOSYS as u32)),
    ("futex", Allow),
    ("futex_waitv", Allow),
    ("set_robust_list", Allow),
    ("set_tid_address", Allow),
    ("rseq", Allow),
    ("exit", Allow),
    ("exit_group", Allow),
    ("sched_yield", Allow),
    ("sched_getaffinity", Allow),
    ("sched_getparam", Allow),
    ("sched_getscheduler", Allow),
    ("sched_get_priority_max", Allow),
    ("sched_get_priority_min", Allow),
    ("getcpu", Allow),
    ("arch_prctl", Allow),
    (
        "prctl",
        OneOf {
            arg: 0,
            values: PRCTL_OK,
        },
    ),
    // Who and where the test is.
    ("getpid", Allow),
    ("gettid", Allow),
    ("getppid", Allow),
    ("getuid", Allow),
    ("geteuid", Allow),
    ("getgid", Allow),
    ("getegid", Allow),
    ("getgroups", Allow),
    ("getresuid", Allow),
    ("getresgid", Allow),
    ("getpgid", Allow),
    ("getpgrp", Allow),
    ("getsid", Allow),
    ("uname", Allow),
    ("sysinfo", Allow),
    ("getrusage", Allow),
    ("getpriority", Allow),
    ("getrlimit", Allow),
    // Reading its own limits (glibc's getrlimit): pid 0 and no new limit.
    ("prlimit64", Zero { args: &[0, 2] }),
    // Time and randomness.
    ("clock_gettime", Allow),
    ("clock_getres", Allow),
    ("gettimeofday", Allow),
    ("time", Allow),
    ("nanosleep", Allow),
    ("clock_nanosleep", Allow),
    ("getitimer", Allow),
    ("times", Allow),
    ("getrandom", Allow),
    // Signals, to itself only; the sandbox's SIGSYS handler stays.
    (
        "rt_sigaction",
        Not {
            arg: 0,
            value: libc::SIGSYS as u32,
        },
    ),
    ("rt_sigprocmask", Allow),
    ("rt_sigreturn", Allow),
    ("rt_sigpending", Allow),
    ("rt_sigsuspend", Allow),
    ("rt_sigtimedwait", Allow),
    ("sigaltstack", Allow),
    ("restart_syscall", Allow),
    ("kill", OwnPid { arg: 0 }),
    ("tgkill", OwnPid { arg: 0 }),
    // Descriptors. Every one the test holds is private to it: inherited ones were replaced by
    // fresh read-only opens or by dead descriptors, and new ones are its own pipes, eventfds,
    // epoll sets, timers and read-only files. So reading, writing, waiting and closing them
    // reach nothing outside.
    ("read", Allow),
    ("readv", Allow),
    ("pread64", Allow),
    ("preadv", Allow),
    ("preadv2", Allow),
    ("write", Allow),
    ("writev", Allow),
    ("pwrite64", Allow),
    ("pwritev", Allow),
    ("pwritev2", Allow),
    ("lseek", Allow),
    ("close", Allow),
    ("dup", Allow),
    ("dup2", Allow),
    ("dup3", Allow),
    ("pipe", Allow),
    ("pipe2", Allow),
    ("eventfd", Allow),
    ("eventfd2", Allow),
    ("epoll_create", Allow),
    ("epoll_create1", Allow),
    ("epoll_ctl", Allow),
    ("epoll_wait", Allow),
    ("epoll_pwait", Allow),
    ("epoll_pwait2", Allow),
    ("poll", Allow),
    ("ppoll", Allow),
    ("select", Allow),
    ("pselect6", Allow),
    ("timerfd_create", Allow),
    ("timerfd_settime", Allow),
    ("timerfd_gettime", Allow),
    ("memfd_create", Allow),
    // Reading a socket's addresses and options changes nothing (and an inherited socket is a
    // dead descriptor by now).
    ("getsockname", Allow),
    ("getpeername", Allow),
    ("getsockopt", Allow),
    (
        "fcntl",
        OneOf {
            arg: 1,
            values: FCNTL_OK,
        },
    ),
    (
        "ioctl",
        OneOf {
            arg: 1,
            values: IOCTL_OK,
        },
    ),
    // Files, to read: opened by the broker, which refuses FIFOs, terminals, sockets and
    // devices. `openat2` is denied: its flags sit in memory the filter cannot read.
    ("open", Open { arg: 1 }),
    ("openat", Open { arg: 2 }),
    // The broker's socket, and no other.
    ("sendmsg", BrokerSocket { arg: 0 }),
    ("recvmsg", BrokerSocket { arg: 0 }),
    ("stat", Allow),
    ("fstat", Allow),
    ("lstat", Allow),
    ("newfstatat", Allow),
    ("fstatat", Allow),
    ("statx", Allow),
    ("statfs", Allow),
    ("fstatfs", Allow),
    ("access", Allow),
    ("faccessat", Allow),
    ("faccessat2", Allow),
    ("readlink", Allow),
    ("readlinkat", Allow),
    ("getdents", Allow),
    ("getdents64", Allow),
    ("getcwd", Allow),
    ("chdir", Allow),
    ("fchdir", Allow),
];

/// The policy resolved for one architecture: `(number, rule)`, in table order.
pub fn resolve(arch: Arch) -> Vec<(u32, Rule)> {
    POLICY
        .iter()
        .filter_map(|&(name, rule)| arch.number(name).map(|nr| (nr, rule)))
        .collect()
}

/// What each argument of a call is, for naming a denied call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgKind {
    Fd,
    Path,
    Pid,
    Addr,
    Num,
    Signal,
}

/// How to show the first arguments of a denied call: a path, a pid, an address or a
/// descriptor, as the call means them.
pub fn arg_kinds(name: &str) -> &'static [ArgKind] {
    use ArgKind::*;
    match name {
        "open" | "creat" | "unlink" | "mkdir" | "rmdir" | "truncate" | "chmod" | "chown"
        | "lchown" | "execve" | "rename" | "link" | "utime" | "utimes" | "setxattr"
        | "lsetxattr" | "removexattr" | "lremovexattr" | "mknod" | "chroot" | "acct" | "swapon"
        | "swapoff" | "pivot_root" | "umount2" => &[Path],
        "symlink" => &[Path, Path],
        "openat" | "openat2" | "unlinkat" | "mkdirat" | "renameat" | "renameat2" | "execveat"
        | "fchmodat" | "fchmodat2" | "fchownat" | "linkat" | "mknodat" | "futimesat"
        | "utimensat" | "name_to_handle_at" => &[Fd, Path],
        "symlinkat" => &[Path, Fd, Path],
        "mount" => &[Path, Path],
        "kill" | "tkill" => &[Pid, Signal],
        "tgkill" => &[Pid, Num, Signal],
        "rt_sigaction" => &[Signal],
        "process_vm_writev" | "process_vm_readv" | "sched_setaffinity" | "sched_setscheduler"
        | "sched_setparam" | "prlimit64" | "pidfd_open" | "rt_sigqueueinfo"
        | "rt_tgsigqueueinfo" | "setpgid" | "kcmp" | "migrate_pages" | "move_pages"
        | "get_robust_list" | "sched_setattr" => &[Pid, Num],
        "setpriority" | "ioprio_set" => &[Num, Pid, Num],
        "ptrace" => &[Num, Pid],
        "perf_event_open" => &[Addr, Pid],
        "mmap" => &[Addr, Num, Num, Num, Fd],
        "shmat" => &[Num, Addr],
        "shmctl" | "semctl" | "msgctl" | "msgsnd" | "semop" | "semtimedop" | "msgrcv" => {
            &[Num, Num]
        }
        "prctl" | "socket" | "bpf" | "add_key" | "keyctl" | "unshare" | "personality" => &[Num],
        "fcntl" | "ioctl" | "flock" | "shutdown" | "setsockopt" | "fallocate" | "ftruncate"
        | "fadvise64" | "inotify_rm_watch" => &[Fd, Num],
        "setitimer" | "alarm" | "setrlimit" | "setns" => &[Num],
        _ => &[Fd],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_x86_64_and_aarch64_have_a_filter() {
        assert_eq!(Arch::named("x86_64"), Some(Arch::X86_64));
        assert_eq!(Arch::named("aarch64"), Some(Arch::Aarch64));
        for other in [
            "riscv64",
            "powerpc64",
            "s390x",
            "x86",
            "arm",
            "loongarch64",
            "",
        ] {
            assert_eq!(Arch::named(other), None, "{other}");
        }
        assert_eq!(Arch::native(), Arch::named(std::env::consts::ARCH));
    }

    #[test]
    fn every_name_in_the_policy_is_a_call_on_at_least_one_architecture() {
        for (name, _) in POLICY {
            assert!(
                Arch::X86_64.number(name).is_some() || Arch::Aarch64.number(name).is_some(),
                "{name} is no system call: a typo would silently deny it"
            );
        }
    }

    #[test]
    fn denied_calls_show_their_arguments_as_the_call_means_them() {
        use ArgKind::*;
        let cases: &[(&str, &[ArgKind])] = &[
            ("open", &[Path]),
            ("unlink", &[Path]),
            ("symlink", &[Path, Path]),
            ("openat", &[Fd, Path]),
            ("renameat2", &[Fd, Path]),
            ("symlinkat", &[Path, Fd, Path]),
            ("mount", &[Path, Path]),
            ("kill", &[Pid, Signal]),
            ("tgkill", &[Pid, Num, Signal]),
            ("rt_sigaction", &[Signal]),
            ("process_vm_writev", &[Pid, Num]),
            ("prlimit64", &[Pid, Num]),
            ("setpriority", &[Num, Pid, Num]),
            ("ptrace", &[Num, Pid]),
            ("perf_event_open", &[Addr, Pid]),
            ("mmap", &[Addr, Num, Num, Num, Fd]),
            ("shmat", &[Num, Addr]),
            ("semop", &[Num, Num]),
            ("socket", &[Num]),
            ("flock", &[Fd, Num]),
            ("setns", &[Num]),
            ("sendto", &[Fd]),
        ];
        for (name, kinds) in cases {
            assert_eq!(arg_kinds(name), *kinds, "{name}");
        }
    }

    #[test]
    fn numbers_and_names_are_per_architecture() {
        assert_eq!(Arch::X86_64.number("openat"), Some(257));
        assert_eq!(Arch::Aarch64.number("openat"), Some(56));
        assert_eq!(Arch::X86_64.number("write"), Some(1));
        assert_eq!(Arch::Aarch64.number("write"), Some(64));
        assert_eq!(
            Arch::Aarch64.number("open"),
            None,
            "aarch64 has only openat"
        );
        assert_eq!(Arch::X86_64.name(62), Some("kill"));
        assert_eq!(Arch::Aarch64.name(129), Some("kill"));
        assert_eq!(Arch::X86_64.name(100_000), None);
        assert_ne!(Arch::X86_64.audit(), Arch::Aarch64.audit());
    }

    #[test]
    fn both_architectures_allow_the_calls_a_computation_needs() {
        for arch in [Arch::X86_64, Arch::Aarch64] {
            let allowed: Vec<u32> = resolve(arch).iter().map(|(nr, _)| *nr).collect();
            for name in [
                "mmap",
                "munmap",
                "futex",
                "clone",
                "read",
                "write",
                "openat",
                "getrandom",
                "exit_group",
                "rt_sigreturn",
                "clock_nanosleep",
                "statx",
            ] {
                let nr = arch.number(name).unwrap();
                assert!(allowed.contains(&nr), "{arch:?} lacks {name}");
            }
            for name in [
                "socket",
                "execve",
                "setpriority",
                "ptrace",
                "shmat",
                "flock",
                "unshare",
            ] {
                let nr = arch.number(name).unwrap();
                assert!(!allowed.contains(&nr), "{arch:?} allows {name}");
            }
        }
    }
}
