//! The sandbox of a follow-up invocation: what keeps a whole program, run on transformed
//! input, from changing anything its user, other processes or the machine could see.
//!
//! Each follow-up runs in a process of its own, set up between fork and exec:
//!
//! - **Files**: Landlock lets it read and execute everything and write only inside its own
//!   temporary directory (and `/dev/null`); creating, renaming, linking, truncating and removing
//!   elsewhere are denied, and so are device ioctls (ABI 5). Its working directory is the
//!   user's, so relative paths in the command still resolve, for reading.
//! - **Other processes**: Landlock scopes signals and abstract Unix sockets to the sandbox
//!   (ABI 6) and confines ptrace to it; a seccomp filter denies changing other processes'
//!   priorities, affinities and limits. On kernels with Landlock ABI 3 to 5 the filter also
//!   denies every signal but to its own process group.
//! - **File metadata**: Landlock's rules cover contents and names, not a file's mode, owner,
//!   extended attributes or times, so the filter denies changing them anywhere.
//! - **Network and shared state**: the filter denies creating sockets (`socketpair` stays),
//!   io_uring, System V and POSIX IPC, keyrings, new namespaces, BPF and perf events.
//! - **Privilege**: no capabilities (a root user's follow-up keeps uid 0 but loses every
//!   capability, in the bounding set too), `no_new_privs`, no core dumps.
//! - **Resources**: niced, files at most `file_mb`, address space at most `memory_mb`, a
//!   deadline; its own session, killed whole at the end, and anything it left behind is
//!   killed too (the runner is a child subreaper).
//!
//! Where the kernel has no Landlock or an ABI below 3 (Linux < 6.2), follow-ups are not run
//! unless the spec says `sandbox = "none"`.

use std::os::fd::OwnedFd;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use invite_sandbox::bpf::{self, jump, stmt, JEQ, JGE, JSET, LD_W_ABS, RET};
use invite_sandbox::confine::Confinement;
use landlock::{
    Access, AccessFs, AccessNet, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset,
    RulesetAttr, RulesetCreatedAttr, Scope, ABI,
};

use super::spec::{SandboxMode, Spec};

/// The lowest Landlock ABI that confines every write (truncation came with 3).
pub const MIN_ABI: i32 = 3;
/// The ABI from which Landlock scopes signals.
const SIGNAL_ABI: i32 = 6;

pub use invite_sandbox::confine::landlock_abi;

/// Why follow-ups cannot run confined here, or `None` when they can.
pub fn unavailable(mode: SandboxMode, abi: i32) -> Option<String> {
    (mode == SandboxMode::Landlock && abi < MIN_ABI).then(|| {
        format!(
            "follow-ups not run: this kernel's Landlock ABI is {abi} and the sandbox needs {MIN_ABI} \
             (Linux 6.2 with landlock in the lsm= list); set sandbox = \"none\" in the spec to \
             run them without confinement"
        )
    })
}

/// Everything a follow-up's process applies to itself between fork and exec, prepared before
/// the fork so that the child only makes system calls.
pub struct Jail(Arc<Confinement>);

impl Jail {
    /// A jail whose only writable directory is `dir`.
    pub fn new(spec: &Spec, dir: &Path, abi: i32) -> Result<Jail, String> {
        let confined = spec.sandbox == SandboxMode::Landlock;
        let ruleset = if confined {
            Some(ruleset(dir, abi).map_err(|e| format!("Landlock: {e}"))?)
        } else {
            None
        };
        Ok(Jail(Arc::new(Confinement {
            ruleset,
            filter: if confined {
                deny_list(abi >= SIGNAL_ABI)
            } else {
                Vec::new()
            },
            nice: spec.nice,
            file_bytes: spec.file_mb << 20,
            memory_bytes: spec.memory_mb.map(|m| m << 20),
        })))
    }

    /// Makes `cmd` start in the jail. The jail stays alive as long as the command.
    pub fn confine(&self, cmd: &mut Command, tmp: &Path) {
        cmd.env("TMPDIR", tmp).env("INVITE", "off");
        self.0.apply_to(cmd);
    }
}

/// The Landlock ruleset: read and execute everywhere, write only beneath `dir` and to
/// `/dev/null`, no TCP, signals and abstract sockets scoped.
fn ruleset(dir: &Path, abi: i32) -> Result<OwnedFd, String> {
    let abi = match abi {
        ..=3 => ABI::V3,
        4 => ABI::V4,
        5 => ABI::V5,
        _ => ABI::V6,
    };
    let rule = |path: &Path, access| {
        PathFd::new(path)
            .map(|fd| PathBeneath::new(fd, access))
            .map_err(|e| format!("{}: {e}", path.display()))
    };
    let text = |e: landlock::RulesetError| e.to_string();
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(abi))
        .and_then(|r| r.handle_access(AccessNet::from_all(abi)))
        .map_err(text)?;
    if abi >= ABI::V6 {
        ruleset = ruleset
            .scope(Scope::Signal | Scope::AbstractUnixSocket)
            .map_err(text)?;
    }
    let root = rule(Path::new("/"), AccessFs::from_read(abi))?;
    let own = rule(dir, AccessFs::from_all(abi))?;
    let null = rule(
        Path::new("/dev/null"),
        AccessFs::ReadFile | AccessFs::WriteFile,
    )?;
    let created = ruleset
        .create()
        .and_then(|r| r.add_rule(root))
        .and_then(|r| r.add_rule(own))
        .and_then(|r| r.add_rule(null))
        .map_err(text)?;
    Option::<OwnedFd>::from(created).ok_or_else(|| "the kernel made no ruleset".to_string())
}

/// The architecture the filter admits (any other is killed: its numbers differ).
#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xC000_003E;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xC000_00B7;

/// The low word of argument `i` in `struct seccomp_data` (the kernel reads the calls below as
/// `int` or `pid_t`, so the high word is never looked at).
fn arg(i: u32) -> u32 {
    16 + 8 * i
}

/// Calls denied outright.
fn denied() -> Vec<i64> {
    use libc::*;
    let mut v = vec![
        SYS_socket,
        SYS_io_uring_setup,
        SYS_shmget,
        SYS_shmat,
        SYS_shmctl,
        SYS_msgget,
        SYS_msgsnd,
        SYS_msgrcv,
        SYS_msgctl,
        SYS_semget,
        SYS_semop,
        SYS_semtimedop,
        SYS_semctl,
        SYS_mq_open,
        SYS_mq_unlink,
        SYS_mq_timedsend,
        SYS_mq_timedreceive,
        SYS_mq_notify,
        SYS_mq_getsetattr,
        SYS_add_key,
        SYS_request_key,
        SYS_keyctl,
        SYS_unshare,
        SYS_setns,
        SYS_bpf,
        SYS_perf_event_open,
        SYS_ptrace,
        SYS_process_vm_writev,
        SYS_process_madvise,
        SYS_kcmp,
        SYS_fanotify_init,
        // Landlock leaves a file's metadata alone: its mode, owner, extended attributes and
        // times are out of reach of any path rule, so no follow-up may change them, even on
        // its own files.
        SYS_fchmod,
        SYS_fchmodat,
        SYS_FCHMODAT2,
        SYS_fchown,
        SYS_fchownat,
        SYS_setxattr,
        SYS_lsetxattr,
        SYS_fsetxattr,
        SYS_SETXATTRAT,
        SYS_removexattr,
        SYS_lremovexattr,
        SYS_fremovexattr,
        SYS_REMOVEXATTRAT,
        SYS_utimensat,
    ];
    #[cfg(target_arch = "x86_64")]
    v.extend([
        SYS_chmod,
        SYS_chown,
        SYS_lchown,
        SYS_utime,
        SYS_utimes,
        SYS_futimesat,
    ]);
    v
}

/// Calls newer than some C libraries' tables (the same number on every architecture).
const SYS_FCHMODAT2: i64 = 452;
const SYS_SETXATTRAT: i64 = 463;
const SYS_REMOVEXATTRAT: i64 = 466;

/// Calls allowed only on the calling process: (call, [(argument, value)]).
fn own_only(signals: bool) -> Vec<(i64, Vec<(u32, u32)>)> {
    use libc::*;
    let mut v = vec![
        // which = PRIO_PROCESS, who = 0: PRIO_USER with who = 0 would be every process of the
        // user.
        (SYS_setpriority, vec![(0, 0), (1, 0)]),
        // which = IOPRIO_WHO_PROCESS, who = 0.
        (SYS_ioprio_set, vec![(0, 1), (1, 0)]),
        (SYS_sched_setaffinity, vec![(0, 0)]),
        (SYS_sched_setscheduler, vec![(0, 0)]),
        (SYS_sched_setparam, vec![(0, 0)]),
        (SYS_sched_setattr, vec![(0, 0)]),
        (SYS_prlimit64, vec![(0, 0)]),
        (SYS_migrate_pages, vec![(0, 0)]),
        (SYS_move_pages, vec![(0, 0)]),
    ];
    if !signals {
        // Without Landlock's signal scope: only the follow-up's own process group.
        for nr in [
            SYS_kill,
            SYS_tkill,
            SYS_tgkill,
            SYS_rt_sigqueueinfo,
            SYS_rt_tgsigqueueinfo,
        ] {
            v.push((nr, vec![(0, 0)]));
        }
        v.push((SYS_pidfd_send_signal, vec![(0, u32::MAX)]));
    }
    v
}

/// Namespace flags `clone` may not be given.
const CLONE_NEW: u32 = (libc::CLONE_NEWNS
    | libc::CLONE_NEWCGROUP
    | libc::CLONE_NEWUTS
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUSER
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWNET) as u32;

/// The seccomp filter: everything is allowed but the calls above. `signals_scoped`: Landlock
/// already confines signals.
pub fn deny_list(signals_scoped: bool) -> Vec<libc::sock_filter> {
    let errno = |e: i32| bpf::RET_ERRNO | e as u32;
    let mut p = vec![
        stmt(LD_W_ABS, 4),
        jump(JEQ, AUDIT_ARCH, 1, 0),
        stmt(RET, bpf::RET_KILL_PROCESS),
        stmt(LD_W_ABS, 0),
    ];
    if cfg!(target_arch = "x86_64") {
        // x32 numbers reach the same calls under other numbers.
        p.push(jump(JGE, 0x4000_0000, 0, 1));
        p.push(stmt(RET, errno(libc::ENOSYS)));
    }
    // clone3 passes its flags in memory, out of a filter's reach: the C library falls back
    // to clone, whose flags it can see.
    p.push(jump(JEQ, libc::SYS_clone3 as u32, 0, 1));
    p.push(stmt(RET, errno(libc::ENOSYS)));
    p.push(jump(JEQ, libc::SYS_clone as u32, 0, 4));
    p.push(stmt(LD_W_ABS, arg(0)));
    p.push(jump(JSET, CLONE_NEW, 0, 1));
    p.push(stmt(RET, errno(libc::EPERM)));
    p.push(stmt(RET, bpf::RET_ALLOW));
    for nr in denied() {
        p.push(jump(JEQ, nr as u32, 0, 1));
        p.push(stmt(RET, errno(libc::EPERM)));
    }
    for (nr, conds) in own_only(signals_scoped) {
        let n = conds.len() as u8;
        p.push(jump(JEQ, nr as u32, 0, 2 * n + 2));
        for (c, (i, value)) in conds.into_iter().enumerate() {
            p.push(stmt(LD_W_ABS, arg(i)));
            p.push(jump(JEQ, value, 0, 2 * n - 1 - 2 * c as u8));
        }
        p.push(stmt(RET, bpf::RET_ALLOW));
        p.push(stmt(RET, errno(libc::EPERM)));
    }
    p.push(stmt(RET, bpf::RET_ALLOW));
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(p: &[libc::sock_filter], nr: i64, args: [u64; 6]) -> u32 {
        bpf::evaluate(p, AUDIT_ARCH, nr as u32, args)
    }

    const EPERM: u32 = bpf::RET_ERRNO | libc::EPERM as u32;

    #[test]
    fn the_filter_denies_what_reaches_beyond_the_follow_up_and_nothing_else() {
        let p = deny_list(true);
        for nr in denied() {
            assert_eq!(verdict(&p, nr, [0; 6]), EPERM, "call {nr}");
        }
        for nr in [
            libc::SYS_read,
            libc::SYS_write,
            libc::SYS_openat,
            libc::SYS_socketpair,
        ] {
            assert_eq!(verdict(&p, nr, [0; 6]), bpf::RET_ALLOW, "call {nr}");
        }
        assert_eq!(
            bpf::evaluate(&p, 0x4000_0003, 0, [0; 6]),
            bpf::RET_KILL_PROCESS
        );
        assert_eq!(
            verdict(&p, libc::SYS_clone3, [0; 6]),
            bpf::RET_ERRNO | libc::ENOSYS as u32
        );
        let thread = (libc::CLONE_VM | libc::CLONE_THREAD | libc::CLONE_SIGHAND) as u64;
        assert_eq!(
            verdict(&p, libc::SYS_clone, [thread, 0, 0, 0, 0, 0]),
            bpf::RET_ALLOW
        );
        for ns in [libc::CLONE_NEWUSER, libc::CLONE_NEWNET, libc::CLONE_NEWNS] {
            let flags = libc::SIGCHLD as u64 | ns as u64;
            assert_eq!(verdict(&p, libc::SYS_clone, [flags, 0, 0, 0, 0, 0]), EPERM);
        }
        if cfg!(target_arch = "x86_64") {
            let x32_socket = 0x4000_0000 + libc::SYS_socket;
            assert_eq!(
                verdict(&p, x32_socket, [0; 6]),
                bpf::RET_ERRNO | libc::ENOSYS as u32
            );
        }
    }

    #[test]
    fn calls_on_other_processes_are_denied_and_on_itself_allowed() {
        let p = deny_list(true);
        let prio = libc::SYS_setpriority;
        assert_eq!(verdict(&p, prio, [0, 0, 5, 0, 0, 0]), bpf::RET_ALLOW);
        assert_eq!(
            verdict(&p, prio, [0, 4242, 5, 0, 0, 0]),
            EPERM,
            "another process"
        );
        assert_eq!(
            verdict(&p, prio, [2, 0, 5, 0, 0, 0]),
            EPERM,
            "every process of the user"
        );
        let io = libc::SYS_ioprio_set;
        assert_eq!(verdict(&p, io, [1, 0, 0, 0, 0, 0]), bpf::RET_ALLOW);
        assert_eq!(verdict(&p, io, [1, 7, 0, 0, 0, 0]), EPERM);
        assert_eq!(verdict(&p, io, [2, 0, 0, 0, 0, 0]), EPERM);
        for nr in [
            libc::SYS_sched_setaffinity,
            libc::SYS_prlimit64,
            libc::SYS_move_pages,
        ] {
            assert_eq!(verdict(&p, nr, [0; 6]), bpf::RET_ALLOW);
            assert_eq!(verdict(&p, nr, [99, 0, 0, 0, 0, 0]), EPERM);
        }
        // Signals are Landlock's where it scopes them, the filter's where it does not.
        assert_eq!(
            verdict(&p, libc::SYS_kill, [99, 9, 0, 0, 0, 0]),
            bpf::RET_ALLOW
        );
        let old = deny_list(false);
        assert_eq!(verdict(&old, libc::SYS_kill, [99, 9, 0, 0, 0, 0]), EPERM);
        assert_eq!(
            verdict(&old, libc::SYS_kill, [0, 9, 0, 0, 0, 0]),
            bpf::RET_ALLOW
        );
        assert_eq!(
            verdict(&old, libc::SYS_pidfd_send_signal, [3, 9, 0, 0, 0, 0]),
            EPERM
        );
        assert_eq!(verdict(&old, libc::SYS_read, [0; 6]), bpf::RET_ALLOW);
    }

    #[test]
    fn follow_ups_run_only_where_the_kernel_confines_them() {
        assert!(unavailable(SandboxMode::Landlock, 2)
            .unwrap()
            .contains("ABI is 2"));
        assert!(unavailable(SandboxMode::Landlock, 0).is_some());
        assert!(unavailable(SandboxMode::Landlock, MIN_ABI).is_none());
        assert!(unavailable(SandboxMode::None, 0).is_none());
        assert!(landlock_abi() >= 0);
    }
}
