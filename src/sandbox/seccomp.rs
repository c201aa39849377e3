//! Side-effect blocking: a seccomp filter that lets a test compute, allocate, read and report,
//! and stops it at the first system call that would be visible outside its process.
//!
//! The filter is compiled once, in the parent at start-up ([`super::bpf`]); a test process only
//! patches its own pid into a copy and installs it. A denied call
//! traps (`SIGSYS`); the handler installed here names the call and its descriptor or path in a
//! `Blocked` frame on the verdict pipe and leaves, so the test ends as `blocked` with something an
//! operator can act on. Writable shared mappings inherited from the program are made read-only
//! first; a store into one faults, and is reported the same way.
//!
//! What is denied: writes to any descriptor but 0–2 (which are `/dev/null` in a test) and the
//! verdict pipe; sends, splices and file copies; opening files for writing, creating, renaming,
//! linking, unlinking, truncating, `mkdir`, permission, ownership and time changes; sockets;
//! signals to other processes; `ptrace` and `process_vm_writev`; `io_uring`; new processes (threads
//! are allowed) and `exec`; shared writable file mappings; mounts, namespaces, clocks and the like.
//! `clone3` answers `ENOSYS` instead, so that thread creation falls back to `clone`, whose flags
//! the filter can see.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::bpf::{self, When};
use super::wire;

/// Stands for the test process's own pid in the compiled filter; above any real pid.
const PID_PLACEHOLDER: u32 = 0x3FFF_FFF1;

/// The filter of a test process, compiled once.
pub struct Filter {
    /// Traps on every side effect, on `clone3` (answered `ENOSYS` by the handler) and on any
    /// attempt to change the `SIGSYS` handler.
    trap: Vec<libc::sock_filter>,
    /// The descriptor number the verdict pipe is moved to, the only one besides 0–2 writable.
    pub verdict_fd: i32,
}

impl std::fmt::Debug for Filter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Filter")
            .field("verdict_fd", &self.verdict_fd)
            .finish_non_exhaustive()
    }
}

/// Whether this kernel has seccomp filters.
pub fn available() -> bool {
    // SAFETY: PR_GET_SECCOMP only reads this thread's mode.
    unsafe { libc::prctl(libc::PR_GET_SECCOMP) >= 0 }
}

/// The names of the calls the filter traps, for the blocked message.
const TRAPPED: &[(i64, &str)] = &[
    (libc::SYS_write, "write"),
    (libc::SYS_pwrite64, "pwrite64"),
    (libc::SYS_writev, "writev"),
    (libc::SYS_pwritev, "pwritev"),
    (libc::SYS_pwritev2, "pwritev2"),
    (libc::SYS_sendto, "sendto"),
    (libc::SYS_sendmsg, "sendmsg"),
    (libc::SYS_sendmmsg, "sendmmsg"),
    (libc::SYS_sendfile, "sendfile"),
    (libc::SYS_splice, "splice"),
    (libc::SYS_tee, "tee"),
    (libc::SYS_vmsplice, "vmsplice"),
    (libc::SYS_copy_file_range, "copy_file_range"),
    (libc::SYS_open, "open"),
    (libc::SYS_openat, "openat"),
    (libc::SYS_openat2, "openat2"),
    (libc::SYS_creat, "creat"),
    (libc::SYS_rename, "rename"),
    (libc::SYS_renameat, "renameat"),
    (libc::SYS_renameat2, "renameat2"),
    (libc::SYS_unlink, "unlink"),
    (libc::SYS_unlinkat, "unlinkat"),
    (libc::SYS_rmdir, "rmdir"),
    (libc::SYS_mkdir, "mkdir"),
    (libc::SYS_mkdirat, "mkdirat"),
    (libc::SYS_mknod, "mknod"),
    (libc::SYS_mknodat, "mknodat"),
    (libc::SYS_link, "link"),
    (libc::SYS_linkat, "linkat"),
    (libc::SYS_symlink, "symlink"),
    (libc::SYS_symlinkat, "symlinkat"),
    (libc::SYS_truncate, "truncate"),
    (libc::SYS_ftruncate, "ftruncate"),
    (libc::SYS_fallocate, "fallocate"),
    (libc::SYS_chmod, "chmod"),
    (libc::SYS_fchmod, "fchmod"),
    (libc::SYS_fchmodat, "fchmodat"),
    (libc::SYS_chown, "chown"),
    (libc::SYS_fchown, "fchown"),
    (libc::SYS_lchown, "lchown"),
    (libc::SYS_fchownat, "fchownat"),
    (libc::SYS_utimensat, "utimensat"),
    (libc::SYS_socket, "socket"),
    (libc::SYS_socketpair, "socketpair"),
    (libc::SYS_connect, "connect"),
    (libc::SYS_bind, "bind"),
    (libc::SYS_listen, "listen"),
    (libc::SYS_accept, "accept"),
    (libc::SYS_accept4, "accept4"),
    (libc::SYS_kill, "kill"),
    (libc::SYS_tkill, "tkill"),
    (libc::SYS_tgkill, "tgkill"),
    (libc::SYS_pidfd_send_signal, "pidfd_send_signal"),
    (libc::SYS_rt_sigqueueinfo, "rt_sigqueueinfo"),
    (libc::SYS_rt_tgsigqueueinfo, "rt_tgsigqueueinfo"),
    (libc::SYS_ptrace, "ptrace"),
    (libc::SYS_process_vm_writev, "process_vm_writev"),
    (libc::SYS_io_uring_setup, "io_uring_setup"),
    (libc::SYS_io_uring_enter, "io_uring_enter"),
    (libc::SYS_io_uring_register, "io_uring_register"),
    (libc::SYS_fork, "fork"),
    (libc::SYS_vfork, "vfork"),
    (libc::SYS_clone, "clone"),
    (libc::SYS_execve, "execve"),
    (libc::SYS_execveat, "execveat"),
    (libc::SYS_mmap, "mmap"),
    (libc::SYS_rt_sigaction, "rt_sigaction"),
];

fn name_of(nr: i64) -> &'static str {
    TRAPPED
        .iter()
        .find(|(n, _)| *n == nr)
        .map_or("a denied system call", |(_, s)| s)
}

impl Filter {
    /// Compiles the filter for a test process whose verdict pipe sits at `verdict_fd`.
    pub fn build(verdict_fd: i32) -> Result<Filter, String> {
        if std::env::consts::ARCH != "x86_64" {
            return Err(format!(
                "the filter is written for x86_64, not {}",
                std::env::consts::ARCH
            ));
        }
        let mut rules: Vec<(i64, When)> = Vec::new();
        let other_fd = When::AboveExcept {
            arg: 0,
            above: 2,
            except: verdict_fd as u32,
        };
        for nr in [
            libc::SYS_write,
            libc::SYS_pwrite64,
            libc::SYS_writev,
            libc::SYS_pwritev,
            libc::SYS_pwritev2,
        ] {
            rules.push((nr, other_fd));
        }
        let writing = (libc::O_WRONLY | libc::O_RDWR | libc::O_CREAT | libc::O_TRUNC) as u32;
        rules.push((
            libc::SYS_open,
            When::AnyBit {
                arg: 1,
                mask: writing,
            },
        ));
        rules.push((
            libc::SYS_openat,
            When::AnyBit {
                arg: 2,
                mask: writing,
            },
        ));
        for nr in [
            libc::SYS_kill,
            libc::SYS_tgkill,
            libc::SYS_rt_sigqueueinfo,
            libc::SYS_rt_tgsigqueueinfo,
        ] {
            rules.push((
                nr,
                When::Not {
                    arg: 0,
                    value: PID_PLACEHOLDER,
                },
            ));
        }
        // A new process, not a thread.
        rules.push((
            libc::SYS_clone,
            When::NoBit {
                arg: 0,
                mask: libc::CLONE_THREAD as u32,
            },
        ));
        // A writable shared mapping writes through to a file (or to memory others see).
        rules.push((
            libc::SYS_mmap,
            When::BothBits {
                a: 2,
                mask_a: libc::PROT_WRITE as u32,
                b: 3,
                mask_b: libc::MAP_SHARED as u32,
            },
        ));
        // glibc creates threads with clone3 (whose flags sit in memory the filter cannot read)
        // and falls back to clone on ENOSYS; it blocks all signals around the call, so this
        // must be an errno, not a trap.
        rules.push((libc::SYS_clone3, When::Fails(libc::ENOSYS as u32)));
        // The reporting handler must stay: any change to SIGSYS's action is itself blocked.
        rules.push((
            libc::SYS_rt_sigaction,
            When::Is {
                arg: 0,
                value: libc::SIGSYS as u32,
            },
        ));
        for (nr, _) in TRAPPED {
            if !rules.iter().any(|(n, _)| n == nr) {
                rules.push((*nr, When::Always));
            }
        }
        Ok(Filter {
            trap: bpf::program(&rules),
            verdict_fd,
        })
    }

    /// In a test process: arms the reporting handlers and installs the filter. After this,
    /// only the verdict pipe and 0–2 can be written. ([`protect_shared_mappings`] runs once per
    /// run, before the test processes are forked.)
    pub fn install(&self) -> std::io::Result<()> {
        VERDICT_FD.store(self.verdict_fd as usize, Ordering::Relaxed);
        // SAFETY: installing handlers that use only async-signal-safe calls on static data.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_sigsys as *const () as usize;
            sa.sa_flags = libc::SA_SIGINFO;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(libc::SIGSYS, &sa, std::ptr::null_mut());
            sa.sa_sigaction = on_sigsegv as *const () as usize;
            libc::sigaction(libc::SIGSEGV, &sa, std::ptr::null_mut());
        }
        // SAFETY: getpid has no preconditions.
        let pid = unsafe { libc::getpid() } as u32;
        let mut trap = self.trap.clone();
        for insn in trap
            .iter_mut()
            .filter(|i| i.k == PID_PLACEHOLDER && i.code != 0x06)
        {
            insn.k = pid;
        }
        bpf::install(&trap)
    }
}

/// Where the handlers report (set before the filter is installed).
static VERDICT_FD: AtomicUsize = AtomicUsize::new(usize::MAX);

/// Writable shared mappings made read-only in this process: `[start, end)` pairs.
static SHARED: [AtomicUsize; 128] = [const { AtomicUsize::new(0) }; 128];
static SHARED_COUNT: AtomicUsize = AtomicUsize::new(0);

/// Makes every writable shared mapping inherited from the program read-only, remembering where
/// they are, so that a store into one is reported as blocked rather than reaching the program.
pub fn protect_shared_mappings() {
    let Ok(maps) = std::fs::read_to_string("/proc/self/maps") else {
        return;
    };
    let mut n = 0;
    for line in maps.lines() {
        let mut fields = line.split_whitespace();
        let (Some(range), Some(perms)) = (fields.next(), fields.next()) else {
            continue;
        };
        if !(perms.starts_with("rw") && perms.ends_with('s')) {
            continue;
        }
        let Some((a, b)) = range.split_once('-') else {
            continue;
        };
        let (Ok(start), Ok(end)) = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16))
        else {
            continue;
        };
        // SAFETY: changing the protection of a mapping that exists in this process only; the
        // program's own view of it is unchanged.
        unsafe { libc::mprotect(start as *mut libc::c_void, end - start, libc::PROT_READ) };
        if n < SHARED.len() / 2 {
            SHARED[2 * n].store(start, Ordering::Relaxed);
            SHARED[2 * n + 1].store(end, Ordering::Relaxed);
            n += 1;
        }
    }
    SHARED_COUNT.store(n, Ordering::Relaxed);
}

/// A fixed buffer for composing a message inside a signal handler, without allocating.
struct Buf {
    bytes: [u8; 768],
    len: usize,
}

impl Buf {
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
    let _ = wire::write_all(fd, &out[..4 + body_len]);
    // SAFETY: _exit is async-signal-safe and never returns.
    unsafe { libc::_exit(0) }
}

extern "C" fn on_sigsys(_sig: libc::c_int, _info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // SAFETY: for SA_SIGINFO handlers the third argument is the interrupted ucontext; for a
    // seccomp trap it holds the call's number in RAX and its arguments in the usual registers.
    let regs = unsafe { &(*(ctx as *const libc::ucontext_t)).uc_mcontext.gregs };
    let nr = regs[libc::REG_RAX as usize];

    let args = [
        regs[libc::REG_RDI as usize] as u64,
        regs[libc::REG_RSI as usize] as u64,
        regs[libc::REG_RDX as usize] as u64,
        regs[libc::REG_R10 as usize] as u64,
    ];
    let mut b = Buf {
        bytes: [0; 768],
        len: 0,
    };
    b.text(b"the test tried ");
    b.text(name_of(nr).as_bytes());
    b.push(b'(');
    match nr {
        libc::SYS_open
        | libc::SYS_creat
        | libc::SYS_unlink
        | libc::SYS_mkdir
        | libc::SYS_rmdir
        | libc::SYS_truncate
        | libc::SYS_chmod
        | libc::SYS_chown
        | libc::SYS_execve
        | libc::SYS_rename
        | libc::SYS_link
        | libc::SYS_symlink => b.c_string(args[0]),
        libc::SYS_openat
        | libc::SYS_unlinkat
        | libc::SYS_mkdirat
        | libc::SYS_renameat
        | libc::SYS_renameat2
        | libc::SYS_execveat
        | libc::SYS_fchmodat
        | libc::SYS_openat2 => b.c_string(args[1]),
        libc::SYS_kill | libc::SYS_tgkill => {
            b.text(b"pid ");
            b.number(args[0] as i32 as i64 as u64);
        }
        libc::SYS_socket => {
            b.text(b"domain ");
            b.number(args[0]);
        }
        libc::SYS_clone | libc::SYS_fork | libc::SYS_vfork => b.text(b"a new process"),
        libc::SYS_rt_sigaction => b.text(b"SIGSYS, the sandbox's own signal"),
        _ => {
            b.text(b"fd ");
            b.number(args[0] as i32 as u64);
        }
    }
    b.text(b"), a side effect outside its process; the sandbox denied it");
    report_and_exit(&b)
}

extern "C" fn on_sigsegv(sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo for SIGSEGV, whose address field is set.
    let addr = unsafe { (*info).si_addr() } as usize;
    for i in 0..SHARED_COUNT.load(Ordering::Relaxed) {
        let (start, end) = (
            SHARED[2 * i].load(Ordering::Relaxed),
            SHARED[2 * i + 1].load(Ordering::Relaxed),
        );
        if (start..end).contains(&addr) {
            let mut b = Buf {
                bytes: [0; 768],
                len: 0,
            };
            b.text(b"the test stored into a shared mapping at ");
            b.hex(addr as u64);
            b.text(b", which the program and other processes see; the sandbox made it read-only");
            report_and_exit(&b);
        }
    }
    // A genuine segmentation fault: let it kill the process as it would have.
    // SAFETY: restoring the default action; returning re-runs the faulting instruction.
    unsafe { libc::signal(sig, libc::SIG_DFL) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filter_compiles_and_names_its_calls() {
        let f = Filter::build(900).unwrap();
        assert!(
            f.trap.len() < 256,
            "{} instructions: keep the filter cheap to install",
            f.trap.len()
        );
        assert_eq!(f.verdict_fd, 900);
        assert!(
            f.trap.iter().any(|i| i.k == PID_PLACEHOLDER),
            "no pid slot to patch"
        );
        assert_eq!(name_of(libc::SYS_connect), "connect");
        assert_eq!(name_of(libc::SYS_getpid), "a denied system call");
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
        assert_eq!(&b.bytes[..b.len], br#"say \"hi\"\\12340x00000000000000ff"#);
    }
}
