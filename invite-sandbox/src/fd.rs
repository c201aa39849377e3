//! Descriptors the runtime itself holds: `/dev/null` for runs' standard streams, the eventfd
//! that wakes the collector, and waiting on several descriptors at once.

use std::os::fd::{BorrowedFd, OwnedFd, RawFd};
use std::time::Duration;

use rustix::event::{EventfdFlags, PollFd, PollFlags, Timespec};
use rustix::fs::{Mode, OFlags};

/// How the configuration and the log are opened, beyond reading or appending: never blocking
/// (a FIFO named by mistake fails or reads at once), closed on exec, and never the process's
/// controlling terminal.
pub const NONBLOCKING_OPEN_FLAGS: i32 = libc::O_NONBLOCK | libc::O_CLOEXEC | libc::O_NOCTTY;

/// `/dev/null`, open for reading and writing, closed on exec.
pub fn open_dev_null() -> std::io::Result<OwnedFd> {
    Ok(rustix::fs::open(
        "/dev/null",
        OFlags::RDWR | OFlags::CLOEXEC,
        Mode::empty(),
    )?)
}

/// A non-blocking eventfd, closed on exec, for one thread to wake another.
pub fn eventfd() -> std::io::Result<OwnedFd> {
    Ok(rustix::event::eventfd(
        0,
        EventfdFlags::CLOEXEC | EventfdFlags::NONBLOCK,
    )?)
}

/// Adds one to an eventfd: whoever waits on it wakes. A full counter (never reached: it holds
/// 2^64 - 2) would only make this a no-op.
pub fn nudge(fd: BorrowedFd<'_>) {
    let _ = rustix::io::write(fd, &1u64.to_ne_bytes());
}

/// Empties an eventfd, so that the next wait sleeps until the next nudge.
pub fn drain_eventfd(fd: BorrowedFd<'_>) {
    let mut buf = [0u8; 8];
    let _ = rustix::io::read(fd, &mut buf);
}

/// Reads what is there into `buf`: the count of bytes read, 0 at end of file, on an error or
/// when a non-blocking descriptor has nothing.
pub fn read_some(fd: BorrowedFd<'_>, buf: &mut [u8]) -> usize {
    rustix::io::read(fd, buf).unwrap_or(0)
}

/// Waits until one of `fds` is readable (or hung up), or `timeout` has passed, whichever is
/// first, and returns how many are; an interrupted wait simply returns early, with 0.
pub fn wait_readable(fds: &[BorrowedFd<'_>], timeout: Duration) -> usize {
    let mut polls: Vec<PollFd<'_>> = fds
        .iter()
        .map(|fd| PollFd::new(fd, PollFlags::IN))
        .collect();
    let timeout = Timespec {
        tv_sec: timeout.as_secs() as _,
        tv_nsec: timeout.subsec_nanos() as _,
    };
    rustix::event::poll(&mut polls, Some(&timeout)).unwrap_or(0)
}

/// Writes every byte to a descriptor given by number, retrying on interruption; usable from
/// a signal handler (no allocation, no lock). Fails on a closed or broken descriptor.
pub fn write_all(fd: RawFd, mut bytes: &[u8]) -> std::io::Result<()> {
    while !bytes.is_empty() {
        // SAFETY: `bytes` is a live slice; the kernel reads at most its length.
        let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        bytes = &bytes[n as usize..];
    }
    Ok(())
}

/// Reads once from a descriptor given by number into `buf`, retrying on interruption: the
/// bytes read (0 at end of file), or the error (`WouldBlock` on an empty non-blocking pipe).
pub fn read_raw(fd: RawFd, buf: &mut [u8]) -> std::io::Result<usize> {
    loop {
        // SAFETY: `buf` is a live buffer of the length passed.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
        if n >= 0 {
            return Ok(n as usize);
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsFd;

    #[test]
    fn a_nudge_wakes_a_wait_and_draining_lets_the_next_one_sleep() {
        let efd = eventfd().expect("eventfd");
        let null = open_dev_null().expect("/dev/null");
        nudge(efd.as_fd());
        assert_eq!(
            wait_readable(&[efd.as_fd()], Duration::from_secs(30)),
            1,
            "the nudge woke the wait"
        );
        drain_eventfd(efd.as_fd());
        let mut buf = [0u8; 8];
        assert_eq!(
            read_some(efd.as_fd(), &mut buf),
            0,
            "nothing is left to read"
        );
        assert_eq!(
            wait_readable(&[efd.as_fd()], Duration::from_millis(1)),
            0,
            "a drained eventfd is not readable"
        );
        // Readable descriptors are counted, not just noticed.
        assert_eq!(
            wait_readable(&[null.as_fd(), efd.as_fd()], Duration::ZERO),
            1
        );
        nudge(efd.as_fd());
        assert_eq!(
            wait_readable(&[null.as_fd(), efd.as_fd()], Duration::ZERO),
            2
        );
    }

    #[test]
    fn files_opened_without_blocking_are_closed_on_exec_and_never_a_terminal() {
        for flag in [libc::O_NONBLOCK, libc::O_CLOEXEC, libc::O_NOCTTY] {
            assert_eq!(NONBLOCKING_OPEN_FLAGS & flag, flag, "{flag:#x}");
        }
        // A FIFO without a writer opens at once for reading, and reads nothing.
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        rustix::fs::mkfifoat(rustix::fs::CWD, &fifo, Mode::RUSR | Mode::WUSR).unwrap();
        let file = std::os::unix::fs::OpenOptionsExt::custom_flags(
            std::fs::OpenOptions::new().read(true),
            NONBLOCKING_OPEN_FLAGS,
        )
        .open(&fifo)
        .unwrap();
        let mut buf = [0u8; 4];
        assert_eq!(read_some(file.as_fd(), &mut buf), 0);
    }

    #[test]
    fn the_eventfd_is_closed_on_exec() {
        let efd = eventfd().expect("eventfd");
        let flags = rustix::io::fcntl_getfd(&efd).expect("flags");
        assert!(flags.contains(rustix::io::FdFlags::CLOEXEC));
    }

    #[test]
    fn dev_null_swallows_writes_and_reads_nothing() {
        let null = open_dev_null().expect("/dev/null");
        assert_eq!(rustix::io::write(&null, b"gone").expect("write"), 4);
        let mut buf = [0u8; 4];
        assert_eq!(read_some(null.as_fd(), &mut buf), 0);
        let flags = rustix::io::fcntl_getfd(&null).expect("flags");
        assert!(flags.contains(rustix::io::FdFlags::CLOEXEC));
    }
}
