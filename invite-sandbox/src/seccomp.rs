//! Side-effect blocking: a seccomp allow list that lets a test compute, allocate, read, print
//! and report, and stops it at the first system call that is not known to stay inside its
//! process (`sandbox::policy` says which, and why).
//!
//! The filter is compiled once, in the parent at start-up ([`crate::bpf`]); a test process only
//! patches its own pid into a copy and installs it. A denied call traps (`SIGSYS`); the handler
//! installed here names the call and its path, pid, address or descriptor in a `Blocked` frame on
//! the verdict pipe and leaves, so the test ends as `blocked` with something an operator can act
//! on. Before the filter, the run's child has already made every inherited descriptor and shared
//! mapping private to it ([`super::detach`]): the allow list relies on that.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::bpf;
use crate::broker::{self, Denied};
use crate::policy::{self, Arch, ArgKind, BROKER_PLACEHOLDER, PID_PLACEHOLDER};

/// The filter of a test process, compiled once.
pub struct Filter {
    /// The allow list, with a placeholder for the pid; denied calls trap, `clone3` fails with
    /// `ENOSYS`.
    program: Vec<libc::sock_filter>,
}

impl std::fmt::Debug for Filter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Filter")
            .field("instructions", &self.program.len())
            .finish()
    }
}

/// Why no filter was built: tests then run with memory isolation only.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BuildError {
    /// The allow list is written for x86_64 and aarch64 only. On another architecture,
    /// `sandbox = "fork"` in `invite.toml` says that memory isolation is meant and silences the
    /// warning.
    UnsupportedArch {
        /// The architecture this library runs on.
        arch: &'static str,
    },
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BuildError::UnsupportedArch { arch } => write!(
                f,
                "the sandbox's allow list is written for x86_64 and aarch64, not {arch}"
            ),
        }
    }
}

impl std::error::Error for BuildError {}

/// Whether this kernel has seccomp filters.
pub fn available() -> bool {
    // SAFETY: PR_GET_SECCOMP only reads this thread's mode.
    unsafe { libc::prctl(libc::PR_GET_SECCOMP) >= 0 }
}

impl Filter {
    /// Compiles the allow list for the architecture this library runs on.
    pub fn build() -> Result<Filter, BuildError> {
        Filter::build_for(Arch::native())
    }

    /// The filter for `arch`, the architecture this library runs on (`None`: one the allow
    /// list is not written for, where tests run with memory isolation only).
    fn build_for(arch: Option<Arch>) -> Result<Filter, BuildError> {
        let arch = arch.ok_or(BuildError::UnsupportedArch {
            arch: std::env::consts::ARCH,
        })?;
        Ok(Filter {
            program: bpf::program(arch, &policy::resolve(arch)),
        })
    }

    /// How many instructions the kernel verifies at each install.
    pub fn len(&self) -> usize {
        self.program.len()
    }

    /// Whether the program is empty (never: it always ends in a `ret`).
    pub fn is_empty(&self) -> bool {
        self.program.is_empty()
    }

    /// In a test process: arms the handler, which reports on `verdict_fd` and opens files
    /// through `broker_fd`, and installs the filter.
    pub fn install(&self, verdict_fd: i32, broker_fd: i32) -> std::io::Result<()> {
        VERDICT_FD.store(verdict_fd as usize, Ordering::Relaxed);
        BROKER_FD.store(broker_fd as usize, Ordering::Relaxed);
        // SAFETY: installing a handler that uses only async-signal-safe calls on static data.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_sigsys as *const () as usize;
            sa.sa_flags = libc::SA_SIGINFO;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(libc::SIGSYS, &sa, std::ptr::null_mut());
        }
        // SAFETY: getpid has no preconditions.
        let pid = unsafe { libc::getpid() } as u32;
        bpf::install(&self.patched(pid, broker_fd as u32))
    }

    /// The program with this process's pid and broker descriptor in their slots (comparisons
    /// only: a `ret` whose value happened to match stays as it is).
    fn patched(&self, pid: u32, broker_fd: u32) -> Vec<libc::sock_filter> {
        let mut program = self.program.clone();
        for insn in program.iter_mut().filter(|i| i.code != 0x06) {
            match insn.k {
                PID_PLACEHOLDER => insn.k = pid,
                BROKER_PLACEHOLDER => insn.k = broker_fd,
                _ => {}
            }
        }
        program
    }
}

/// Where the handler reports (set before the filter is installed).
static VERDICT_FD: AtomicUsize = AtomicUsize::new(usize::MAX);
/// The test process's end of its broker socket (likewise).
static BROKER_FD: AtomicUsize = AtomicUsize::new(usize::MAX);

/// A fixed buffer for composing a message inside a signal handler, without allocating.
struct Buf {
    bytes: [u8; 768],
    len: usize,
}

impl Buf {
    fn new() -> Buf {
        Buf {
            bytes: [0; 768],
            len: 0,
        }
    }

    fn push(&mut self, b: u8) {
        if self.len < self.bytes.len() {
            self.bytes[self.len] = b;
            self.len += 1;
        }
    }

    /// Appends text, escaped for a JSON string.
    fn text(&mut self, s: &[u8]) {
        for &b in s {
            match b {
                b'"' | b'\\' => {
                    self.push(b'\\');
                    self.push(b);
                }
                0x20..=0x7e => self.push(b),
                _ => self.push(b'?'),
            }
        }
    }

    fn number(&mut self, mut v: u64) {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        self.text(&digits[i..]);
    }

    fn signed(&mut self, v: i64) {
        if v < 0 {
            self.push(b'-');
        }
        self.number(v.unsigned_abs());
    }

    fn hex(&mut self, v: u64) {
        self.text(b"0x");
        for shift in (0..16).rev() {
            let d = ((v >> (shift * 4)) & 0xf) as u8;
            self.push(if d < 10 { b'0' + d } else { b'a' + d - 10 });
        }
    }

    /// A NUL-terminated string at `ptr` (at most 200 bytes).
    fn c_string(&mut self, ptr: u64) {
        if ptr == 0 {
            self.text(b"(null)");
            return;
        }
        self.push(b'\'');
        for i in 0..200 {
            // SAFETY: the pointer was the argument of the denied call; reading it is what the
            // kernel would have done. A bad pointer faults here, and the test ends as an error.
            let b = unsafe { *((ptr as *const u8).add(i)) };
            if b == 0 {
                break;
            }
            self.text(&[b]);
        }
        self.push(b'\'');
    }
}

/// Sends `{"t":"blocked","detail":...}` with the message and leaves the test process.
fn report_and_exit(detail: &Buf) -> ! {
    let head = br#"{"t":"blocked","detail":""#;
    let tail = br#""}"#;
    let body_len = head.len() + detail.len + tail.len();
    let mut out = [0u8; 4 + 800];
    out[..4].copy_from_slice(&(body_len as u32).to_le_bytes());
    out[4..4 + head.len()].copy_from_slice(head);
    out[4 + head.len()..4 + head.len() + detail.len].copy_from_slice(&detail.bytes[..detail.len]);
    out[4 + head.len() + detail.len..4 + body_len].copy_from_slice(tail);
    let fd = VERDICT_FD.load(Ordering::Relaxed) as i32;
    let _ = crate::fd::write_all(fd, &out[..4 + body_len]);
    // SAFETY: _exit is async-signal-safe and never returns.
    unsafe { libc::_exit(0) }
}

/// The denied call's number and first arguments, from the interrupted context.
///
/// # Safety
/// `info` and `ctx` must be the arguments of a `SIGSYS` handler installed with `SA_SIGINFO`.
unsafe fn trapped_call(info: *const libc::siginfo_t, ctx: *const libc::c_void) -> (u32, [u64; 5]) {
    // The kernel fills `si_syscall` (an int after `si_call_addr`, at byte 24 on 64-bit Linux)
    // for seccomp traps on every architecture.
    // SAFETY: per the contract, `info` is a live siginfo of at least 128 bytes.
    let nr = unsafe { *(info as *const u8).add(24).cast::<i32>() } as u32;
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: `ctx` is the interrupted ucontext; the call's arguments sit in the registers
        // the x86-64 system-call convention uses.
        let r = unsafe { &(*(ctx as *const libc::ucontext_t)).uc_mcontext.gregs };
        let g = |i: libc::c_int| r[i as usize] as u64;
        (
            nr,
            [
                g(libc::REG_RDI),
                g(libc::REG_RSI),
                g(libc::REG_RDX),
                g(libc::REG_R10),
                g(libc::REG_R8),
            ],
        )
    }
    #[cfg(target_arch = "aarch64")]
    {
        // SAFETY: `ctx` is the interrupted ucontext; arguments are in x0..x4.
        let r = unsafe { &(*(ctx as *const libc::ucontext_t)).uc_mcontext.regs };
        (nr, [r[0], r[1], r[2], r[3], r[4]])
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        let _ = ctx;
        (nr, [0; 5])
    }
}

/// Sets the interrupted call's result: the value its caller sees when the handler returns.
///
/// # Safety
/// `ctx` must be the context argument of a `SIGSYS` handler installed with `SA_SIGINFO`.
unsafe fn set_result(ctx: *mut libc::c_void, value: i64) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: per the contract; the result of a system call is returned in rax.
    unsafe {
        (*(ctx as *mut libc::ucontext_t)).uc_mcontext.gregs[libc::REG_RAX as usize] = value;
    }
    #[cfg(target_arch = "aarch64")]
    // SAFETY: per the contract; the result of a system call is returned in x0.
    unsafe {
        (*(ctx as *mut libc::ucontext_t)).uc_mcontext.regs[0] = value as u64;
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    let _ = (ctx, value);
}

extern "C" fn on_sigsys(_sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // SAFETY: installed with SA_SIGINFO for SIGSYS.
    let (nr, args) = unsafe { trapped_call(info, ctx) };
    let name = Arch::native().and_then(|a| a.name(nr));
    // SAFETY: `info` is the live siginfo of this signal; the filter's data is in si_errno.
    let data = unsafe { (*info).si_errno } as u32;
    if data == bpf::RET_TRAP_BROKER & 0xffff {
        if let Some(call @ ("open" | "openat")) = name {
            let (dirfd, path, flags) = match call {
                "open" => (libc::AT_FDCWD, args[0], args[1]),
                _ => (args[0] as i32, args[1], args[2]),
            };
            let sock = BROKER_FD.load(Ordering::Relaxed) as i32;
            // SAFETY: the path is the trapped call's own argument, and the socket is ours.
            let value = match unsafe { broker::open(sock, dirfd, path as *const _, flags as u32) } {
                Ok(fd) => i64::from(fd),
                Err(Denied::Errno(e)) => -i64::from(e),
                Err(Denied::Refused(why)) => {
                    let mut b = Buf::new();
                    b.text(b"the test opened ");
                    b.c_string(path);
                    b.text(b": ");
                    b.text(why.explain().as_bytes());
                    report_and_exit(&b)
                }
            };
            // SAFETY: `ctx` is this handler's context argument.
            unsafe { set_result(ctx, value) };
            return;
        }
    }
    let mut b = Buf::new();
    b.text(b"the test tried ");
    match name {
        Some(n) => b.text(n.as_bytes()),
        None => {
            b.text(b"system call ");
            b.number(u64::from(nr));
        }
    }
    b.push(b'(');
    let kinds = policy::arg_kinds(name.unwrap_or(""));
    for (i, kind) in kinds.iter().enumerate() {
        if i > 0 {
            b.text(b", ");
        }
        describe(&mut b, *kind, args[i]);
    }
    b.text(b"), which the sandbox does not allow: it could change something outside the test");
    report_and_exit(&b)
}

/// Appends one argument as the call means it.
fn describe(b: &mut Buf, kind: ArgKind, v: u64) {
    match kind {
        ArgKind::Path => b.c_string(v),
        ArgKind::Fd if v as i32 == libc::AT_FDCWD => b.text(b"AT_FDCWD"),
        ArgKind::Fd => {
            b.text(b"fd ");
            b.signed(i64::from(v as i32));
        }
        ArgKind::Pid => {
            b.text(b"pid ");
            b.signed(i64::from(v as i32));
        }
        ArgKind::Addr => b.hex(v),
        ArgKind::Signal => match v as i32 {
            libc::SIGSYS => b.text(b"SIGSYS, the sandbox's own signal"),
            libc::SIGKILL => b.text(b"SIGKILL"),
            libc::SIGTERM => b.text(b"SIGTERM"),
            libc::SIGUSR1 => b.text(b"SIGUSR1"),
            s => {
                b.text(b"signal ");
                b.signed(i64::from(s));
            }
        },
        ArgKind::Num if v > 0xffff => b.hex(v),
        ArgKind::Num => b.number(v),
    }
}

/// Installs a program on the calling thread (and the threads it will create).
pub fn install(program: &[libc::sock_filter]) -> std::io::Result<()> {
    let prog = libc::sock_fprog {
        len: program.len() as u16,
        filter: program.as_ptr() as *mut _,
    };
    // SAFETY: `prog` points at a live program for the duration of the calls; no_new_privs is
    // required to install a filter without privileges and only restricts this process.
    unsafe {
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
            || libc::prctl(libc::PR_SET_SECCOMP, libc::SECCOMP_MODE_FILTER, &prog) != 0
        {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_filter_is_built_for_an_architecture_the_allow_list_is_not_written_for() {
        let e = Filter::build_for(None).err().unwrap();
        assert_eq!(
            e,
            BuildError::UnsupportedArch {
                arch: std::env::consts::ARCH
            }
        );
        assert!(
            e.to_string().contains("written for x86_64 and aarch64"),
            "{e}"
        );
        assert!(Filter::build_for(Some(Arch::Aarch64)).is_ok());
        assert!(Filter::build_for(Some(Arch::X86_64)).is_ok());
    }

    #[test]
    fn the_filter_compiles_small_and_has_a_pid_slot() {
        let f = Filter::build().unwrap();
        assert_eq!(f.len(), f.program.len());
        assert!(!f.is_empty());
        assert_eq!(
            format!("{f:?}"),
            format!("Filter {{ instructions: {} }}", f.len())
        );
        assert!(
            f.len() < 256,
            "{} instructions: keep the filter cheap to install",
            f.len()
        );
        assert!(
            f.program.iter().any(|i| i.k == PID_PLACEHOLDER),
            "no pid slot to patch"
        );
    }

    #[test]
    fn patching_fills_the_pid_and_broker_slots_and_nothing_else() {
        let f = Filter::build().unwrap();
        let arch = Arch::native().unwrap();
        let p = f.patched(4242, 17);
        assert!(p
            .iter()
            .all(|i| i.k != PID_PLACEHOLDER && i.k != BROKER_PLACEHOLDER));
        let unchanged = p.iter().zip(&f.program).filter(|(a, b)| a.k == b.k).count();
        let slots = f
            .program
            .iter()
            .filter(|i| i.k == PID_PLACEHOLDER || i.k == BROKER_PLACEHOLDER)
            .count();
        assert_eq!(unchanged + slots, p.len(), "only the slots change");
        let run = |name: &str, a0: u64| {
            bpf::evaluate(
                &p,
                arch.audit(),
                arch.number(name).unwrap(),
                [a0, 0, 0, 0, 0, 0],
            )
        };
        assert_eq!(run("sendmsg", 17), bpf::RET_ALLOW);
        assert_eq!(run("recvmsg", 17), bpf::RET_ALLOW);
        assert_eq!(
            run("sendmsg", 16),
            bpf::RET_TRAP,
            "only the broker's socket"
        );
        assert_eq!(run("recvmsg", 3), bpf::RET_TRAP);
        assert_eq!(run("kill", 4242), bpf::RET_ALLOW);
        assert_eq!(run("kill", 4243), bpf::RET_TRAP);
    }

    #[test]
    fn the_compiled_filter_allows_computing_and_traps_side_effects() {
        let f = Filter::build().unwrap();
        let arch = Arch::native().unwrap();
        let run = |name: &str, args: [u64; 6]| {
            bpf::evaluate(&f.program, arch.audit(), arch.number(name).unwrap(), args)
        };
        let write = (libc::O_WRONLY | libc::O_CREAT) as u64;
        assert_eq!(
            run("openat", [0, 0, libc::O_RDONLY as u64, 0, 0, 0]),
            bpf::RET_TRAP_BROKER,
            "a read-only open goes to the broker"
        );
        assert_eq!(
            run(
                "openat",
                [0, 0, (libc::O_PATH | libc::O_CLOEXEC) as u64, 0, 0, 0]
            ),
            bpf::RET_ALLOW,
            "an O_PATH open names a file without opening it"
        );
        assert_eq!(
            run(
                "openat",
                [0, 0, (libc::O_PATH | libc::O_WRONLY) as u64, 0, 0, 0]
            ),
            bpf::RET_TRAP
        );
        assert_eq!(run("openat", [0, 0, write, 0, 0, 0]), bpf::RET_TRAP);
        for flag in [libc::O_WRONLY, libc::O_RDWR, libc::O_CREAT, libc::O_TRUNC] {
            assert_eq!(
                run("openat", [0, 0, flag as u64, 0, 0, 0]),
                bpf::RET_TRAP,
                "{flag:#o}"
            );
        }
        let shared = libc::MAP_SHARED as u64;
        let private = (libc::MAP_PRIVATE | libc::MAP_ANONYMOUS) as u64;
        assert_eq!(run("mmap", [0, 4096, 3, private, 0, 0]), bpf::RET_ALLOW);
        assert_eq!(run("mmap", [0, 4096, 1, shared, 3, 0]), bpf::RET_TRAP);
        let thread = (libc::CLONE_VM | libc::CLONE_THREAD | libc::CLONE_SIGHAND) as u64;
        assert_eq!(run("clone", [thread, 0, 0, 0, 0, 0]), bpf::RET_ALLOW);
        assert_eq!(
            run("clone", [libc::SIGCHLD as u64, 0, 0, 0, 0, 0]),
            bpf::RET_TRAP
        );
        assert_eq!(run("clone3", [0; 6]), bpf::RET_ERRNO | libc::ENOSYS as u32);
        assert_eq!(
            run("fcntl", [3, libc::F_GETFL as u64, 0, 0, 0, 0]),
            bpf::RET_ALLOW
        );
        assert_eq!(
            run("fcntl", [3, libc::F_SETLK as u64, 0, 0, 0, 0]),
            bpf::RET_TRAP
        );
        assert_eq!(
            run("fcntl", [3, libc::F_SETOWN as u64, 0, 0, 0, 0]),
            bpf::RET_TRAP
        );
        assert_eq!(run("ioctl", [0, 0x5401, 0, 0, 0, 0]), bpf::RET_ALLOW);
        assert_eq!(
            run("ioctl", [0, 0x5412, 0, 0, 0, 0]),
            bpf::RET_TRAP,
            "TIOCSTI"
        );
        let pdeathsig = libc::PR_SET_PDEATHSIG as u64;
        assert_eq!(run("prctl", [pdeathsig, 0, 0, 0, 0, 0]), bpf::RET_TRAP);
        assert_eq!(
            run("prctl", [libc::PR_SET_NAME as u64, 0, 0, 0, 0, 0]),
            bpf::RET_ALLOW
        );
        assert_eq!(
            run("prlimit64", [0, 7, 0, 0x7fff_0000, 0, 0]),
            bpf::RET_ALLOW
        );
        assert_eq!(
            run("prlimit64", [0, 7, 0x7fff_0000, 0, 0, 0]),
            bpf::RET_TRAP
        );
        assert_eq!(
            run("prlimit64", [1234, 7, 0, 0x7fff_0000, 0, 0]),
            bpf::RET_TRAP
        );
        assert_eq!(run("kill", [1234, 9, 0, 0, 0, 0]), bpf::RET_TRAP);
        assert_eq!(
            run("kill", [u64::from(PID_PLACEHOLDER), 6, 0, 0, 0, 0]),
            bpf::RET_ALLOW
        );
        let sigsys = libc::SIGSYS as u64;
        assert_eq!(run("rt_sigaction", [sigsys, 0, 0, 0, 0, 0]), bpf::RET_TRAP);
        for name in [
            "socket",
            "setpriority",
            "shmat",
            "flock",
            "ptrace",
            "execve",
            "unshare",
            "perf_event_open",
            "userfaultfd",
            "pidfd_getfd",
            "io_uring_setup",
            "setsid",
        ] {
            assert_eq!(run(name, [0; 6]), bpf::RET_TRAP, "{name}");
        }
    }

    #[test]
    fn handler_messages_are_escaped_json() {
        let mut b = Buf {
            bytes: [0; 768],
            len: 0,
        };
        b.text(b"say \"hi\"\\");
        b.number(1234);
        b.hex(255);
        b.signed(-100);
        assert_eq!(
            &b.bytes[..b.len],
            br#"say \"hi\"\\12340x00000000000000ff-100"#
        );
    }

    #[test]
    fn arguments_are_shown_as_the_call_means_them() {
        let mut b = Buf {
            bytes: [0; 768],
            len: 0,
        };
        let path = c"/var/lib/app/state.db";
        describe(&mut b, ArgKind::Fd, libc::AT_FDCWD as u32 as u64);
        b.text(b" ");
        describe(&mut b, ArgKind::Path, path.as_ptr() as u64);
        b.text(b" ");
        describe(&mut b, ArgKind::Fd, u64::MAX);
        b.text(b" ");
        describe(&mut b, ArgKind::Pid, 4321);
        b.text(b" ");
        describe(&mut b, ArgKind::Num, 7);
        assert_eq!(
            std::str::from_utf8(&b.bytes[..b.len]).unwrap(),
            "AT_FDCWD '/var/lib/app/state.db' fd -1 pid 4321 7"
        );
    }
}
