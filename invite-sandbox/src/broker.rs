//! Opening files by path, decided outside the test.
//!
//! A filter sees a path only as a pointer, so it cannot tell `data.csv` from a named FIFO, a
//! terminal, or another process's pipe reached through `/proc/<pid>/fd/`; reading any of those
//! takes bytes that someone else is waiting for. So a test process never opens a file for
//! reading itself. Its filter lets it make `O_PATH` descriptors only (they name a file without
//! opening it: a FIFO gains no reader, a device's `open` is not called), and traps every other
//! read-only open into the handler here, which:
//!
//! 1. resolves the path in the test's own context (its working directory, its `dirfd`, its
//!    `/proc/self`) to an `O_PATH` descriptor;
//! 2. sends that descriptor to its supervisor over a socket that only it and the supervisor
//!    hold;
//! 3. receives a readable descriptor, or a refusal, and returns it as the call's result.
//!
//! The supervisor decides on the object it was handed, not on anything the test says about it:
//! a regular file, a directory or one of the memory devices (`/dev/null`, `/dev/zero`,
//! `/dev/full`, `/dev/random`, `/dev/urandom`) is opened again read-only through
//! `/proc/self/fd/`, a new open file description with its own offset; anything else is refused.
//! Since the test never holds the readable descriptor of anything refused, a test that lies,
//! races or floods the socket gains nothing.

use std::io::{IoSlice, IoSliceMut};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicI32, Ordering};

use rustix::fs::{FileType, Mode, OFlags};
use rustix::io::Errno;
use rustix::net::{
    AddressFamily, RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, SendAncillaryBuffer,
    SendAncillaryMessage, SendFlags, SocketFlags, SocketType,
};

/// Why the supervisor would not open what a test named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// A named FIFO or a pipe: reading takes bytes another process is waiting for, and opening
    /// one for reading wakes a writer waiting for a reader.
    Pipe,
    /// A socket.
    Socket,
    /// A terminal or another device: reading a terminal takes its keystrokes, and a device's
    /// `open` may act on the hardware.
    Device,
    /// A file whose reads consume what they return (`/proc/kmsg`, tracing pipes).
    Consuming,
    /// Another process's entry in `/proc` (its memory, environment, maps, descriptors): its
    /// live state, which a test never sees.
    OtherProcess,
}

impl Refusal {
    const ALL: [Refusal; 5] = [
        Refusal::Pipe,
        Refusal::Socket,
        Refusal::Device,
        Refusal::Consuming,
        Refusal::OtherProcess,
    ];

    /// The reply code (positive; errors are sent negated, a descriptor as 0).
    fn code(self) -> i32 {
        match self {
            Refusal::Pipe => 1,
            Refusal::Socket => 2,
            Refusal::Device => 3,
            Refusal::Consuming => 4,
            Refusal::OtherProcess => 5,
        }
    }

    fn from_code(code: i32) -> Option<Refusal> {
        Refusal::ALL.into_iter().find(|r| r.code() == code)
    }

    /// What was opened and why that is denied, for the `blocked` record.
    pub fn explain(self) -> &'static str {
        match self {
            Refusal::Pipe => {
                "a FIFO or pipe, which the sandbox does not open: reading it would take bytes \
                 another process is waiting for"
            }
            Refusal::Socket => "a socket, which the sandbox does not open",
            Refusal::Device => {
                "a terminal or device, which the sandbox does not open: reading a terminal takes \
                 its input, and opening a device may act on it"
            }
            Refusal::Consuming => {
                "a file whose reads consume what they return (kernel log, tracing pipe), which \
                 the sandbox does not open"
            }
            Refusal::OtherProcess => {
                "another process's entry in /proc, which the sandbox does not open: a test sees \
                 the program as it was at the fork, never its live memory, environment or \
                 descriptors"
            }
        }
    }
}

/// The supervisor's answer to one open.
#[derive(Debug, PartialEq, Eq)]
pub enum Denied {
    Refused(Refusal),
    /// The call fails with this errno, as the kernel would have failed it.
    Errno(i32),
}

/// A socket pair for one test process: `(supervisor's end, test's end)`. Messages keep their
/// boundaries; the supervisor never blocks on its end (every call it makes says `DONTWAIT`).
pub fn pair() -> std::io::Result<(OwnedFd, OwnedFd)> {
    Ok(rustix::net::socketpair(
        AddressFamily::UNIX,
        SocketType::SEQPACKET,
        SocketFlags::CLOEXEC,
        None,
    )?)
}

/// Requests served per call of [`serve`], so that a test flooding its socket cannot keep its
/// supervisor from watching the deadline.
const REQUESTS_PER_TURN: usize = 64;

/// Supervisor side: answers the requests waiting on `sock`, the socket of test process
/// `test`, without blocking.
pub fn serve(sock: BorrowedFd<'_>, test: libc::pid_t) {
    for _ in 0..REQUESTS_PER_TURN {
        let mut flags = [0u8; 4];
        let received = receive(
            sock,
            &mut flags,
            RecvFlags::DONTWAIT | RecvFlags::CMSG_CLOEXEC,
        );
        let Ok((bytes, named)) = received else {
            return; // Nothing waiting (or the test is gone).
        };
        if bytes == 0 && named.is_none() {
            return; // The test closed its end.
        }
        let answer = match named {
            Some(fd) if bytes == 4 => decide(&fd, u32::from_le_bytes(flags), test),
            _ => Err(Denied::Errno(libc::EINVAL)),
        };
        let code = match &answer {
            Ok(_) => 0,
            Err(Denied::Refused(r)) => r.code(),
            Err(Denied::Errno(e)) => -e,
        };
        // A test that stops reading its replies only stalls itself: the send never blocks.
        let _ = send(
            sock,
            &code.to_le_bytes(),
            answer.as_ref().ok().map(|fd| fd.as_fd()),
            SendFlags::DONTWAIT | SendFlags::NOSIGNAL,
        );
    }
}

/// Sends one 4-byte message, with a descriptor if there is one. Allocation-free.
fn send(
    sock: BorrowedFd<'_>,
    bytes: &[u8; 4],
    fd: Option<BorrowedFd<'_>>,
    flags: SendFlags,
) -> rustix::io::Result<usize> {
    let mut space = [MaybeUninit::<u8>::uninit(); rustix::cmsg_space!(ScmRights(1))];
    let mut control = SendAncillaryBuffer::new(&mut space);
    let one;
    if let Some(fd) = fd {
        one = [fd];
        control.push(SendAncillaryMessage::ScmRights(&one));
    }
    rustix::net::sendmsg(sock, &[IoSlice::new(bytes)], &mut control, flags)
}

/// Receives one message of at most 4 bytes and the first descriptor sent with it (any others
/// are closed). Allocation-free.
fn receive(
    sock: BorrowedFd<'_>,
    bytes: &mut [u8; 4],
    flags: RecvFlags,
) -> rustix::io::Result<(usize, Option<OwnedFd>)> {
    let mut space = [MaybeUninit::<u8>::uninit(); rustix::cmsg_space!(ScmRights(1))];
    let mut control = RecvAncillaryBuffer::new(&mut space);
    let received = rustix::net::recvmsg(sock, &mut [IoSliceMut::new(bytes)], &mut control, flags)?;
    let mut first = None;
    for message in control.drain() {
        if let RecvAncillaryMessage::ScmRights(mut fds) = message {
            first = first.or_else(|| fds.next());
        }
    }
    Ok((received.bytes, first))
}

impl From<Errno> for Denied {
    fn from(e: Errno) -> Denied {
        Denied::Errno(e.raw_os_error())
    }
}

/// Character devices that anyone may read without effect: (major, minor) of `/dev/null`,
/// `/dev/zero`, `/dev/full`, `/dev/random` and `/dev/urandom`.
const HARMLESS_DEVICES: [(u32, u32); 5] = [(1, 3), (1, 5), (1, 7), (1, 8), (1, 9)];

/// Open flags a read may keep; everything else is dropped (`O_NOFOLLOW` would refuse the
/// magic link we open through, `O_DIRECTORY` was checked when the test resolved the path, and
/// `O_CLOEXEC` is the receiver's to set).
fn kept(flags: u32) -> OFlags {
    OFlags::from_bits_truncate(flags) & (OFlags::NONBLOCK | OFlags::DIRECT | OFlags::NOATIME)
}

/// Opens what `named` names again, read-only, if reading it reaches nothing outside the test
/// process `test`.
pub fn decide(named: &OwnedFd, flags: u32, test: libc::pid_t) -> Result<OwnedFd, Denied> {
    let stat = rustix::fs::fstat(named)?;
    match FileType::from_raw_mode(stat.st_mode) {
        FileType::RegularFile | FileType::Directory => {}
        FileType::CharacterDevice => {
            let device = (
                rustix::fs::major(stat.st_rdev),
                rustix::fs::minor(stat.st_rdev),
            );
            if !HARMLESS_DEVICES.contains(&device) {
                return Err(Denied::Refused(Refusal::Device));
            }
        }
        FileType::Fifo => return Err(Denied::Refused(Refusal::Pipe)),
        FileType::Socket => return Err(Denied::Refused(Refusal::Socket)),
        // `O_NOFOLLOW` on a symbolic link: the kernel's own answer.
        FileType::Symlink => return Err(Denied::Errno(libc::ELOOP)),
        FileType::BlockDevice | FileType::Unknown => return Err(Denied::Refused(Refusal::Device)),
    }
    let link = format!("/proc/self/fd/{}", named.as_raw_fd());
    match on_proc(named) {
        Some(Proc::Consuming) => return Err(Denied::Refused(Refusal::Consuming)),
        Some(Proc::Process(pid)) if pid != test => {
            return Err(Denied::Refused(Refusal::OtherProcess))
        }
        _ => {}
    }
    Ok(rustix::fs::open(
        link.as_str(),
        OFlags::RDONLY | OFlags::CLOEXEC | kept(flags),
        Mode::empty(),
    )?)
}

/// `statfs` magic numbers of file systems whose reads consume.
const TRACEFS_MAGIC: u64 = 0x7472_6163;
const DEBUGFS_MAGIC: u64 = 0x6462_6720;
const PROC_SUPER_MAGIC: u64 = 0x9fa0;

/// What a file of the kernel's own file systems is, where that decides whether to open it.
#[derive(Debug, PartialEq, Eq)]
enum Proc {
    /// Reading it takes what it returns from other readers: the kernel log's `/proc/kmsg` and
    /// the tracing file systems' pipes (or its file system could not be told).
    Consuming,
    /// In the `/proc` directory of this process (or a thread of it).
    Process(libc::pid_t),
}

/// Where `named` is on `/proc` or the tracing file systems; `None` for any other file.
fn on_proc(named: &OwnedFd) -> Option<Proc> {
    let Ok(fs) = rustix::fs::fstatfs(named) else {
        return Some(Proc::Consuming);
    };
    match fs.f_type as u64 {
        TRACEFS_MAGIC | DEBUGFS_MAGIC => Some(Proc::Consuming),
        PROC_SUPER_MAGIC => {
            let stat = rustix::fs::fstat(named).ok()?;
            if rustix::fs::stat("/proc/kmsg")
                .is_ok_and(|k| k.st_dev == stat.st_dev && k.st_ino == stat.st_ino)
            {
                return Some(Proc::Consuming);
            }
            // The path the kernel gives the object: `/proc/self/...` reads as the pid's own.
            let link = format!("/proc/self/fd/{}", named.as_raw_fd());
            let path = rustix::fs::readlink(link.as_str(), Vec::new()).ok()?;
            process_of(path.to_bytes())
        }
        _ => None,
    }
}

/// The process whose `/proc/<pid>` holds `path`; a `/proc` path that cannot be read counts as
/// another process's (pid 0 is nobody's).
fn process_of(path: &[u8]) -> Option<Proc> {
    let rest = path.strip_prefix(b"/proc/")?;
    let first = rest.split(|&b| b == b'/').next().unwrap_or_default();
    if first.is_empty() || !first.iter().all(u8::is_ascii_digit) {
        return None; // `/proc/meminfo`, `/proc/sys/...`: the machine's, not a process's.
    }
    let pid = std::str::from_utf8(first).ok()?.parse().unwrap_or(0);
    Some(Proc::Process(pid))
}

/// The thread of the test process exchanging with the supervisor (0: none). Replies are not
/// addressed, so one exchange runs at a time.
static EXCHANGING: AtomicI32 = AtomicI32::new(0);

/// Test side, from the `SIGSYS` handler: opens `path` read-only through the supervisor and
/// returns the new descriptor. Async-signal-safe: no allocation, no locks but its own.
///
/// # Safety
/// `path` is the pointer the trapped call passed (the kernel would have read it; a bad one
/// fails with `EFAULT` here too), and `sock` is this process's end of [`pair`].
pub unsafe fn open(
    sock: RawFd,
    dirfd: i32,
    path: *const libc::c_char,
    flags: u32,
) -> Result<RawFd, Denied> {
    if flags & libc::O_TMPFILE as u32 & !(libc::O_DIRECTORY as u32) != 0 {
        return Err(Denied::Errno(libc::EINVAL)); // O_TMPFILE needs write access.
    }
    let resolve =
        libc::O_PATH | libc::O_CLOEXEC | (flags as i32 & (libc::O_NOFOLLOW | libc::O_DIRECTORY));
    // SAFETY: per the contract; an O_PATH open neither reads nor blocks.
    let named = unsafe { libc::openat(dirfd, path, resolve) };
    if named < 0 {
        let e = std::io::Error::last_os_error();
        return Err(Denied::Errno(e.raw_os_error().unwrap_or(libc::EIO)));
    }
    // SAFETY: a descriptor we just opened and own.
    let named = unsafe { OwnedFd::from_raw_fd(named) };
    // SAFETY: `sock` stays open for the life of the test process.
    let sock = unsafe { BorrowedFd::borrow_raw(sock) };
    // SAFETY: gettid has no preconditions.
    let me = unsafe { libc::gettid() };
    loop {
        match EXCHANGING.compare_exchange(0, me, Ordering::Acquire, Ordering::Relaxed) {
            Ok(_) => break,
            // A signal handler opening a file while this thread was mid-exchange.
            Err(holder) if holder == me => return Err(Denied::Errno(libc::EDEADLK)),
            Err(_) => std::thread::yield_now(),
        }
    }
    let answer = exchange(sock, named, flags);
    EXCHANGING.store(0, Ordering::Release);
    answer
}

fn exchange(sock: BorrowedFd<'_>, named: OwnedFd, flags: u32) -> Result<RawFd, Denied> {
    loop {
        match send(
            sock,
            &flags.to_le_bytes(),
            Some(named.as_fd()),
            SendFlags::NOSIGNAL,
        ) {
            Err(Errno::INTR) => continue,
            result => result?,
        };
        break;
    }
    drop(named);
    let cloexec = if flags & libc::O_CLOEXEC as u32 != 0 {
        RecvFlags::CMSG_CLOEXEC
    } else {
        RecvFlags::empty()
    };
    let mut code = [0u8; 4];
    let (bytes, opened) = loop {
        match receive(sock, &mut code, cloexec) {
            Err(Errno::INTR) => continue,
            result => break result?,
        }
    };
    let code = if bytes == 4 {
        i32::from_le_bytes(code)
    } else {
        -libc::EIO
    };
    match (code, opened) {
        (0, Some(fd)) => Ok(std::os::fd::IntoRawFd::into_raw_fd(fd)),
        (c, _) if c < 0 => Err(Denied::Errno(-c)),
        (c, _) => Err(Refusal::from_code(c).map_or(Denied::Errno(libc::EIO), Denied::Refused)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;

    /// [`decide`] for a test process that is this one.
    fn decide_here(named: &OwnedFd, flags: u32) -> Result<OwnedFd, Denied> {
        decide(named, flags, std::process::id() as libc::pid_t)
    }

    #[test]
    fn another_processs_proc_entries_are_refused_and_its_own_are_read() {
        let parent = format!("/proc/{}/environ", std::os::unix::process::parent_id());
        let other = Some(Denied::Refused(Refusal::OtherProcess));
        assert_eq!(decide_here(&named(parent.as_ref(), 0), 0).err(), other);
        let parent_dir = format!("/proc/{}", std::os::unix::process::parent_id());
        assert_eq!(decide_here(&named(parent_dir.as_ref(), 0), 0).err(), other);
        // The same files of this process, by its number, through `self` and through a thread.
        let me = std::process::id();
        for own in [
            format!("/proc/{me}/environ"),
            "/proc/self/maps".to_string(),
            "/proc/thread-self/status".to_string(),
            format!("/proc/{me}/task/{me}/stat"),
        ] {
            assert!(decide_here(&named(own.as_ref(), 0), 0).is_ok(), "{own}");
        }
        // A test process's own files, judged for another: refused.
        let as_other = decide(&named("/proc/self/maps".as_ref(), 0), 0, 1);
        assert_eq!(as_other.err(), other);
        // The machine's files are not a process's.
        for machine in ["/proc/meminfo", "/proc/sys/kernel/ostype", "/proc"] {
            assert!(
                decide_here(&named(machine.as_ref(), 0), 0).is_ok(),
                "{machine}"
            );
        }
    }

    #[test]
    fn a_proc_path_names_the_process_of_its_first_component() {
        assert_eq!(process_of(b"/proc/12/mem"), Some(Proc::Process(12)));
        assert_eq!(process_of(b"/proc/12"), Some(Proc::Process(12)));
        assert_eq!(process_of(b"/proc/7/task/9/stat"), Some(Proc::Process(7)));
        assert_eq!(
            process_of(b"/proc/99999999999999/x"),
            Some(Proc::Process(0))
        );
        assert_eq!(process_of(b"/proc/meminfo"), None);
        assert_eq!(process_of(b"/proc/1x/stat"), None);
        assert_eq!(process_of(b"/proc/"), None);
        assert_eq!(process_of(b"/tmp/proc/12/mem"), None);
    }

    /// An `O_PATH` descriptor of `path`, as the test side makes it.
    fn named(path: &std::path::Path, extra: i32) -> OwnedFd {
        let c = CString::new(path.as_os_str().as_bytes()).unwrap();
        // SAFETY: a NUL-terminated path; the result is checked.
        let fd = unsafe { libc::openat(libc::AT_FDCWD, c.as_ptr(), libc::O_PATH | extra) };
        assert!(fd >= 0, "{path:?}: {}", std::io::Error::last_os_error());
        // SAFETY: a descriptor we just opened.
        unsafe { OwnedFd::from_raw_fd(fd) }
    }

    /// A temporary directory holding `data` with `contents`.
    fn dir_with_data(contents: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("data");
        std::fs::write(&file, contents).unwrap();
        (dir, file)
    }

    fn mkfifo(path: &std::path::Path) {
        let c = CString::new(path.as_os_str().as_bytes()).unwrap();
        // SAFETY: a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    }

    fn read_all(fd: OwnedFd) -> String {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::fs::File::from(fd), &mut s).unwrap();
        s
    }

    fn getfl(fd: &OwnedFd) -> i32 {
        // SAFETY: F_GETFL reads the description's flags.
        unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETFL) }
    }

    #[test]
    fn regular_files_directories_and_memory_devices_are_opened_again_read_only() {
        let (dir, file) = dir_with_data("contents");
        let opened = decide_here(&named(&file, 0), libc::O_RDONLY as u32).unwrap();
        assert_eq!(getfl(&opened) & libc::O_ACCMODE, libc::O_RDONLY);
        assert_eq!(getfl(&opened) & libc::O_NONBLOCK, 0);
        assert_eq!(read_all(opened), "contents");
        let nonblocking = decide_here(&named(&file, 0), libc::O_NONBLOCK as u32).unwrap();
        assert_ne!(
            getfl(&nonblocking) & libc::O_NONBLOCK,
            0,
            "O_NONBLOCK is kept"
        );
        assert_eq!(getfl(&nonblocking) & libc::O_NOATIME, 0);
        // O_NOATIME needs the file's owner (or CAP_FOWNER): this process made the file.
        let noatime = decide_here(&named(&file, 0), libc::O_NOATIME as u32).unwrap();
        assert_ne!(getfl(&noatime) & libc::O_NOATIME, 0, "O_NOATIME is kept");
        assert_eq!(getfl(&noatime) & libc::O_NONBLOCK, 0);
        let dir_fd = decide_here(&named(dir.path(), 0), libc::O_DIRECTORY as u32).unwrap();
        assert!(rustix::fs::fstat(&dir_fd)
            .is_ok_and(|s| { FileType::from_raw_mode(s.st_mode) == FileType::Directory }));
        for device in [
            "/dev/null",
            "/dev/zero",
            "/dev/full",
            "/dev/random",
            "/dev/urandom",
        ] {
            let fd = decide_here(&named(device.as_ref(), 0), 0);
            assert!(fd.is_ok(), "{device}: {fd:?}");
        }
    }

    #[test]
    fn writing_flags_never_reach_the_reopened_file() {
        let (_dir, file) = dir_with_data("contents");
        let all = (libc::O_RDWR | libc::O_APPEND | libc::O_TRUNC | libc::O_CREAT) as u32;
        let opened = decide_here(&named(&file, 0), all).unwrap();
        assert_eq!(
            getfl(&opened) & (libc::O_ACCMODE | libc::O_APPEND),
            libc::O_RDONLY
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "contents");
    }

    #[test]
    fn fifos_pipes_sockets_terminals_and_links_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        mkfifo(&fifo);
        let refused = |fd: OwnedFd| decide_here(&fd, 0).err();
        assert_eq!(
            refused(named(&fifo, 0)),
            Some(Denied::Refused(Refusal::Pipe))
        );
        let (r, _w) = crate::process::pipe().unwrap();
        let through_proc = format!("/proc/self/fd/{}", r.as_raw_fd());
        assert_eq!(
            refused(named(through_proc.as_ref(), 0)),
            Some(Denied::Refused(Refusal::Pipe))
        );
        let socket = dir.path().join("socket");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        assert_eq!(
            refused(named(&socket, 0)),
            Some(Denied::Refused(Refusal::Socket))
        );
        for device in ["/dev/tty", "/dev/ptmx"] {
            assert_eq!(
                refused(named(device.as_ref(), 0)),
                Some(Denied::Refused(Refusal::Device)),
                "{device}"
            );
        }
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&fifo, &link).unwrap();
        assert_eq!(
            refused(named(&link, libc::O_NOFOLLOW)),
            Some(Denied::Errno(libc::ELOOP))
        );
    }

    #[test]
    fn kernel_objects_reached_through_proc_are_never_opened() {
        // SAFETY: fresh kernel objects of this process, each checked.
        let objects = unsafe {
            [
                ("eventfd", libc::eventfd(1, libc::EFD_CLOEXEC)),
                (
                    "timerfd",
                    libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_CLOEXEC),
                ),
                ("epoll", libc::epoll_create1(libc::EPOLL_CLOEXEC)),
                ("inotify", libc::inotify_init1(libc::IN_CLOEXEC)),
                (
                    "pidfd",
                    libc::syscall(libc::SYS_pidfd_open, libc::getpid(), 0) as i32,
                ),
            ]
        };
        for (what, fd) in objects {
            assert!(fd >= 0, "{what}: {}", std::io::Error::last_os_error());
            // SAFETY: a descriptor we just made.
            let owned = unsafe { OwnedFd::from_raw_fd(fd) };
            let path = format!("/proc/self/fd/{}", owned.as_raw_fd());
            let answer = decide_here(&named(path.as_ref(), 0), 0);
            assert!(answer.is_err(), "{what} was opened again: {answer:?}");
        }
    }

    #[test]
    fn the_kernel_log_is_refused_where_it_can_be_named() {
        if !std::path::Path::new("/proc/kmsg").exists() {
            return;
        }
        assert_eq!(
            decide_here(&named("/proc/kmsg".as_ref(), 0), 0).err(),
            Some(Denied::Refused(Refusal::Consuming))
        );
        // Other files of /proc are read as usual.
        assert!(decide_here(&named("/proc/self/status".as_ref(), 0), 0).is_ok());
    }

    #[test]
    fn the_tracing_file_system_is_refused_and_files_beside_it_read() {
        let dir = tempfile::tempdir().unwrap();
        let at = std::ffi::CString::new(dir.path().to_str().unwrap()).unwrap();
        // tracefs is mounted in a mount namespace of a child's own, so the machine's mounts
        // never change; the child's exit code is the verdict.
        // SAFETY: the child is single-threaded after fork; glibc's fork handlers keep `malloc`
        // usable there, and it ends with `_exit`.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork: {}", std::io::Error::last_os_error());
        if pid == 0 {
            // SAFETY: as above: system calls on this child's own namespace and descriptors.
            let code = unsafe {
                if libc::unshare(libc::CLONE_NEWNS) != 0
                    || libc::mount(
                        c"none".as_ptr(),
                        c"/".as_ptr(),
                        std::ptr::null(),
                        libc::MS_REC | libc::MS_PRIVATE,
                        std::ptr::null(),
                    ) != 0
                    || libc::mount(
                        c"nodev".as_ptr(),
                        at.as_ptr(),
                        c"tracefs".as_ptr(),
                        0,
                        std::ptr::null(),
                    ) != 0
                {
                    3
                } else {
                    // The whole file system is refused, its pipes and its plain files alike;
                    // a file beside it is read as usual.
                    let refused = |name: &str| {
                        decide_here(&named(&dir.path().join(name), 0), 0).err()
                            == Some(Denied::Refused(Refusal::Consuming))
                    };
                    let beside = decide_here(&named("/proc/self/status".as_ref(), 0), 0).is_ok();
                    match (refused("trace_pipe"), refused("README"), beside) {
                        (true, true, true) => 0,
                        (_, _, false) => 1,
                        _ => 2,
                    }
                }
            };
            // SAFETY: leaving the child without running the parent's destructors.
            unsafe { libc::_exit(code) };
        }
        let mut status = 0;
        // SAFETY: waiting for the child forked above.
        assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
        assert!(libc::WIFEXITED(status), "child status {status}");
        match libc::WEXITSTATUS(status) {
            0 => {}
            1 => panic!("a file outside tracefs was refused"),
            2 => panic!("a file of tracefs was opened"),
            // Mounting needs root and a kernel with tracefs; CI has both, so it fails there.
            _ if std::env::var_os("CI").is_none() => {
                eprintln!("SKIPPED: cannot mount tracefs here (needs root and tracefs)");
            }
            code => panic!("cannot mount tracefs (code {code}); CI must run this as root"),
        }
    }

    #[test]
    fn refusal_codes_round_trip_and_unknown_codes_are_none() {
        for r in Refusal::ALL {
            assert_eq!(Refusal::from_code(r.code()), Some(r));
            assert!(!r.explain().is_empty());
        }
        assert_eq!(Refusal::from_code(0), None);
        assert_eq!(Refusal::from_code(6), None);
        let codes: std::collections::BTreeSet<i32> =
            Refusal::ALL.iter().map(|r| r.code()).collect();
        assert_eq!(codes.len(), Refusal::ALL.len());
        assert!(codes.iter().all(|&c| c > 0));
    }

    /// `EXCHANGING` is process-wide: tests that exchange take turns.
    static EXCHANGES: std::sync::Mutex<()> = std::sync::Mutex::new(());

    /// A supervisor on another thread, serving until the test side closes its end.
    fn supervisor() -> (OwnedFd, std::thread::JoinHandle<()>) {
        let (ours, theirs) = pair().unwrap();
        let handle = std::thread::spawn(move || loop {
            let mut p = libc::pollfd {
                fd: ours.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one live pollfd.
            unsafe { libc::poll(&mut p, 1, 1000) };
            if p.revents & libc::POLLHUP != 0 {
                return;
            }
            serve(ours.as_fd(), std::process::id() as libc::pid_t);
        });
        (theirs, handle)
    }

    fn open_path(sock: &OwnedFd, path: &std::path::Path, flags: i32) -> Result<OwnedFd, Denied> {
        let c = CString::new(path.as_os_str().as_bytes()).unwrap();
        // SAFETY: a live path and our end of the pair.
        let fd = unsafe { open(sock.as_raw_fd(), libc::AT_FDCWD, c.as_ptr(), flags as u32) }?;
        // SAFETY: the descriptor the exchange just gave us.
        Ok(unsafe { OwnedFd::from_raw_fd(fd) })
    }

    #[test]
    fn a_test_opens_through_its_supervisor_with_the_flags_it_asked_for() {
        let _turn = EXCHANGES.lock().unwrap_or_else(|e| e.into_inner());
        let (dir, file) = dir_with_data("contents");
        let (sock, server) = supervisor();
        let plain = open_path(&sock, &file, libc::O_RDONLY).unwrap();
        // SAFETY: F_GETFD reads descriptor flags.
        assert_eq!(unsafe { libc::fcntl(plain.as_raw_fd(), libc::F_GETFD) }, 0);
        assert_eq!(read_all(plain), "contents");
        let cloexec = open_path(&sock, &file, libc::O_RDONLY | libc::O_CLOEXEC).unwrap();
        // SAFETY: as above.
        let fd_flags = unsafe { libc::fcntl(cloexec.as_raw_fd(), libc::F_GETFD) };
        assert_eq!(fd_flags, libc::FD_CLOEXEC);
        let fifo = dir.path().join("fifo");
        mkfifo(&fifo);
        assert_eq!(
            open_path(&sock, &fifo, libc::O_RDONLY).err(),
            Some(Denied::Refused(Refusal::Pipe))
        );
        assert_eq!(
            open_path(&sock, &dir.path().join("missing"), libc::O_RDONLY).err(),
            Some(Denied::Errno(libc::ENOENT))
        );
        assert_eq!(
            open_path(&sock, dir.path(), libc::O_RDONLY | libc::O_TMPFILE).err(),
            Some(Denied::Errno(libc::EINVAL)),
            "O_TMPFILE needs write access"
        );
        assert_eq!(
            open_path(&sock, &fifo, libc::O_RDONLY | libc::O_DIRECTORY).err(),
            Some(Denied::Errno(libc::ENOTDIR))
        );
        drop(sock);
        server.join().unwrap();
    }

    #[test]
    fn an_exchange_waits_for_another_threads_and_refuses_its_own_reentry() {
        let _turn = EXCHANGES.lock().unwrap_or_else(|e| e.into_inner());
        let (_dir, file) = dir_with_data("x");
        let (sock, server) = supervisor();
        // SAFETY: gettid has no preconditions.
        let me = unsafe { libc::gettid() };
        EXCHANGING.store(me, Ordering::SeqCst);
        assert_eq!(
            open_path(&sock, &file, libc::O_RDONLY).err(),
            Some(Denied::Errno(libc::EDEADLK))
        );
        EXCHANGING.store(me + 1_000_000, Ordering::SeqCst);
        let release = std::thread::spawn(|| {
            std::thread::sleep(std::time::Duration::from_millis(50));
            EXCHANGING.store(0, Ordering::SeqCst);
        });
        assert!(open_path(&sock, &file, libc::O_RDONLY).is_ok());
        release.join().unwrap();
        assert_eq!(
            EXCHANGING.load(Ordering::SeqCst),
            0,
            "the exchange released"
        );
        drop(sock);
        server.join().unwrap();
    }

    fn send_raw(sock: &OwnedFd, bytes: &[u8], fds: &[BorrowedFd<'_>]) {
        let mut space = [MaybeUninit::<u8>::uninit(); rustix::cmsg_space!(ScmRights(2))];
        let mut control = SendAncillaryBuffer::new(&mut space);
        if !fds.is_empty() {
            assert!(control.push(SendAncillaryMessage::ScmRights(fds)));
        }
        rustix::net::sendmsg(
            sock,
            &[IoSlice::new(bytes)],
            &mut control,
            SendFlags::empty(),
        )
        .unwrap();
    }

    fn replies(sock: &OwnedFd) -> Vec<(i32, bool)> {
        let mut out = Vec::new();
        let mut code = [0u8; 4];
        while let Ok((bytes, fd)) = receive(sock.as_fd(), &mut code, RecvFlags::DONTWAIT) {
            assert_eq!(bytes, 4);
            out.push((i32::from_le_bytes(code), fd.is_some()));
        }
        out
    }

    #[test]
    fn malformed_requests_get_einval_and_a_flood_is_served_in_turns() {
        let (ours, theirs) = pair().unwrap();
        let null = named("/dev/null".as_ref(), 0);
        send_raw(&theirs, &0u32.to_le_bytes(), &[]);
        send_raw(&theirs, &[0, 0, 0], &[null.as_fd()]);
        send_raw(&theirs, &0u32.to_le_bytes(), &[null.as_fd(), null.as_fd()]);
        serve(ours.as_fd(), std::process::id() as libc::pid_t);
        assert_eq!(
            replies(&theirs),
            vec![(-libc::EINVAL, false), (-libc::EINVAL, false), (0, true)]
        );
        for _ in 0..REQUESTS_PER_TURN + 6 {
            send_raw(&theirs, &0u32.to_le_bytes(), &[null.as_fd()]);
        }
        serve(ours.as_fd(), std::process::id() as libc::pid_t);
        assert_eq!(
            replies(&theirs).len(),
            REQUESTS_PER_TURN,
            "one turn's worth"
        );
        serve(ours.as_fd(), std::process::id() as libc::pid_t);
        assert_eq!(replies(&theirs).len(), 6);
        serve(ours.as_fd(), std::process::id() as libc::pid_t); // Nothing waiting: returns at once.
        drop(theirs);
        serve(ours.as_fd(), std::process::id() as libc::pid_t); // The test is gone: returns at once.
    }
}
