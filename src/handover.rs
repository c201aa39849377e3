//! How a sampled call hands its run to the collector, at the least cost to the caller.
//!
//! After a fork every page the caller writes is a copy-on-write fault, and everything it
//! touches is cold (the fork flushed its TLB). So the caller allocates nothing and stores
//! nothing into shared memory for a run: it fills a [`RunStart`] on its own stack before the
//! fork, adds what only the fork tells (the pid, its own cost) afterwards, and sends the whole
//! record by value in one `write(2)` to a pipe that the collector reads on its next tick, with
//! the run's pidfd in it (see [`crate::sandbox::launch`]).
//!
//! The run's result pipe is made ahead of time by the collector ([`SparePipes`]): a `pipe2`
//! costs the caller several microseconds when its caches are cold.

use std::os::fd::{AsFd, AsRawFd, FromRawFd, IntoRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Instant, SystemTime};

use crate::rng::Snapshot;
use crate::site::Site;

/// Everything the collector needs to follow one run, sent by value. `site: None` asks the
/// collector to shut down.
///
/// The descriptors are raw: between the caller and the collector they belong to the message.
/// The collector takes ownership of every one of them on receipt.
#[derive(Clone, Copy)]
#[repr(C)]
pub(crate) struct RunStart {
    pub site: Option<&'static Site>,
    pub run: u64,
    pub started: Instant,
    /// When the call was sampled (formatted for the log on the collector thread).
    pub time: SystemTime,
    /// The caller's stream position; with `test_seed`, logged as the run's `seeds`.
    pub snapshot: Snapshot,
    pub test_seed: u64,
    /// The site's tests the run runs (see `site::runs_test`): all, but in a fleet.
    pub tests: u64,
    /// What the overhead budget charged when admitting the run.
    pub provisional_ns: u64,
    /// The read end of the run's result pipe.
    pub pipe: RawFd,
    /// The caller's copy of the write end: the collector closes it (one system call less for
    /// the caller).
    pub child_end: RawFd,
    pub pid: libc::pid_t,
    /// The run's pidfd, or -1 where the kernel has none (the collector then follows the pid).
    pub pidfd: RawFd,
    /// What starting the run cost the caller.
    pub parent_ns: u64,
}

/// The callers' side of the collector's inbox: the pipe runs are handed over on, and an
/// eventfd that wakes the collector before its next tick.
#[derive(Debug)]
pub(crate) struct Inbox {
    tx: OwnedFd,
    /// Wakes the collector at once; for [`crate::wait_idle`], checks and shutdown, never for
    /// sampled calls.
    nudge: std::sync::Arc<OwnedFd>,
}

impl Inbox {
    /// A new inbox, with the collector's ends: the pipe's read end, and the eventfd to wait
    /// on (shared, not duplicated: the program sees no descriptor more than it must).
    pub fn open() -> std::io::Result<(Inbox, OwnedFd, std::sync::Arc<OwnedFd>)> {
        let (rx, tx) = invite_sandbox::process::pipe()?;
        invite_sandbox::process::set_blocking(&tx);
        let nudge = std::sync::Arc::new(invite_sandbox::fd::eventfd()?);
        let woken = std::sync::Arc::clone(&nudge);
        Ok((Inbox { tx, nudge }, rx, woken))
    }

    /// Hands a run over after its fork; returns whether the collector will follow it.
    #[inline(always)]
    pub fn submit(&self, start: &RunStart) -> bool {
        if !start.send(self.tx.as_raw_fd()) {
            // Not delivered, so the message's descriptors are still ours alone. Nobody will
            // reap the child: end it now rather than leave a zombie.
            start.abandon();
            return false;
        }
        true
    }

    /// Writes one message as it is, whatever becomes of it.
    #[cfg(test)]
    pub fn send(&self, message: &RunStart) -> bool {
        message.send(self.tx.as_raw_fd())
    }

    /// Asks the collector to drain and stop.
    pub fn send_shutdown(&self) {
        RunStart::shutdown().send(self.tx.as_raw_fd());
        self.wake();
    }

    /// Wakes the collector now rather than at its next tick.
    pub fn wake(&self) {
        invite_sandbox::fd::nudge(self.nudge.as_fd());
    }
}

/// A message as the collector takes it: a run, whose descriptors it now owns, or a request to
/// shut down.
pub(crate) enum Message {
    Shutdown,
    Run {
        start: RunStart,
        site: &'static Site,
        /// The read end of the run's result pipe.
        pipe: OwnedFd,
        follow: invite_sandbox::process::Follow,
    },
}

impl Message {
    /// Takes over a delivered message's descriptors, and closes the caller's copy of the
    /// write end.
    fn take(start: RunStart) -> Message {
        let Some(site) = start.site else {
            return Message::Shutdown;
        };
        // SAFETY: the message was delivered once, and its descriptors are taken here once.
        let (pipe, child_end) = unsafe { (own(start.pipe), own(start.child_end)) };
        drop(child_end);
        Message::Run {
            start,
            site,
            pipe,
            follow: start.follow(),
        }
    }
}

/// Takes every whole message waiting on the collector's end of the inbox, in order.
pub(crate) fn receive(rx: &OwnedFd, mut each: impl FnMut(Message)) {
    let mut buf = [0u8; MESSAGE * 16];
    loop {
        let n = invite_sandbox::fd::read_some(rx.as_fd(), &mut buf);
        if n == 0 {
            return;
        }
        // Messages are written whole, so reads of whole messages return whole messages.
        for message in buf[..n].chunks_exact(MESSAGE) {
            // SAFETY: every message on this pipe was written by `RunStart::send` in this
            // process (the inbox's write end is the callers' alone).
            each(Message::take(unsafe { RunStart::from_bytes(message) }));
        }
    }
}

/// The size of one message. Pipe writes of at most `PIPE_BUF` (4096) bytes are atomic, so
/// messages from several threads never interleave, and a read of a multiple of this size returns
/// whole messages.
pub(crate) const MESSAGE: usize = std::mem::size_of::<RunStart>();
const _: () = assert!(MESSAGE <= libc::PIPE_BUF);

impl RunStart {
    pub fn shutdown() -> RunStart {
        RunStart {
            site: None,
            run: 0,
            started: Instant::now(),
            time: SystemTime::now(),
            snapshot: Snapshot::default(),
            test_seed: 0,
            tests: 0,
            provisional_ns: 0,
            pipe: -1,
            child_end: -1,
            pid: 0,
            pidfd: -1,
            parent_ns: 0,
        }
    }

    /// Writes the message to a pipe whole, retrying on interruption; false if it could not.
    ///
    /// The bytes go straight from the value to the kernel: its padding is never read as `u8`s
    /// here, which would be undefined behaviour.
    #[inline(always)]
    pub fn send(&self, fd: RawFd) -> bool {
        loop {
            // SAFETY: the kernel reads MESSAGE bytes from a live value of that size.
            let n = unsafe { libc::write(fd, (self as *const RunStart).cast(), MESSAGE) };
            if n == MESSAGE as isize {
                return true;
            }
            if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return false;
        }
    }

    /// # Safety
    ///
    /// `bytes` must be the bytes of a `RunStart` sent by [`RunStart::send`] in this process.
    pub unsafe fn from_bytes(bytes: &[u8]) -> RunStart {
        debug_assert_eq!(bytes.len(), MESSAGE);
        // SAFETY: per the contract, these are a valid RunStart's bytes (the kernel copied them,
        // padding included, so every byte is initialised); read_unaligned copes with the
        // buffer's alignment.
        unsafe { std::ptr::read_unaligned(bytes.as_ptr().cast::<RunStart>()) }
    }

    /// Closes the message's descriptors when the collector cannot take the run (its pipe
    /// failed): the run is killed and reaped rather than left running unwatched.
    pub fn abandon(self) {
        // SAFETY: the message was not delivered, so its descriptors are still its own.
        drop(unsafe { (own(self.pipe), own(self.child_end)) });
        let follow = self.follow();
        follow.kill(self.pid);
        // A killed child is gone within microseconds; bounded anyway, never a stall.
        for _ in 0..1000 {
            if follow.try_reap(self.pid).is_some() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_micros(100));
        }
    }
}

impl RunStart {
    /// How the collector holds on to the run: through the pidfd the launcher opened, or, on
    /// kernels without pidfds, by the pid of a child of ours (checked, see
    /// [`invite_sandbox::process::follow`]).
    pub fn follow(&self) -> invite_sandbox::process::Follow {
        if self.pidfd >= 0 {
            // SAFETY: the message's own descriptor, taken once (by the collector on receipt,
            // or by `abandon` when it was never delivered).
            invite_sandbox::process::Follow::Pidfd(unsafe { own(self.pidfd) })
        } else {
            invite_sandbox::process::follow(self.pid)
        }
    }
}

/// Owns a raw descriptor released into a [`RunStart`] or a spare-pipe slot.
///
/// # Safety
///
/// `fd` must have been released with `into_raw_fd` into the message or slot, which alone owns
/// it, and must be taken exactly once.
pub(crate) unsafe fn own(fd: RawFd) -> OwnedFd {
    // SAFETY: per the contract, nothing else owns or closes `fd`.
    unsafe { OwnedFd::from_raw_fd(fd) }
}

/// Result pipes made ahead of time by the collector, for callers to take without a system call.
///
/// Each slot holds both descriptors packed in one word, or [`EMPTY`]. A caller finding every
/// slot empty (a burst of runs between two ticks) makes its own pipe.
pub(crate) struct SparePipes {
    slots: [AtomicU64; 2],
}

/// The process's spare pipes (a static: one pointer less for the caller to chase).
pub(crate) static SPARE_PIPES: SparePipes = SparePipes::new();

const EMPTY: u64 = u64::MAX;

impl SparePipes {
    pub const fn new() -> SparePipes {
        SparePipes {
            slots: [const { AtomicU64::new(EMPTY) }; 2],
        }
    }

    /// A pipe (read end, write end), from a slot or else new.
    #[inline]
    pub fn take(&self) -> std::io::Result<(OwnedFd, OwnedFd)> {
        for slot in &self.slots {
            let packed = slot.load(Ordering::Relaxed);
            if packed != EMPTY
                && slot
                    .compare_exchange(packed, EMPTY, Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
            {
                // SAFETY: the exchange emptied the slot, so this caller alone owns the pair.
                return Ok(unsafe { unpack(packed) });
            }
        }
        invite_sandbox::process::pipe()
    }

    /// Fills the empty slots (on the collector thread).
    pub fn refill(&self) {
        for slot in &self.slots {
            if slot.load(Ordering::Relaxed) != EMPTY {
                continue;
            }
            let Ok((read, write)) = invite_sandbox::process::pipe() else {
                return;
            };
            let packed =
                u64::from(read.into_raw_fd() as u32) | u64::from(write.into_raw_fd() as u32) << 32;
            // Only the collector fills slots, so an empty slot stays empty until this store.
            slot.store(packed, Ordering::Release);
        }
    }
}

/// The (read end, write end) pair packed in a slot.
///
/// # Safety
///
/// `packed` must have been taken out of a slot (which then no longer holds it).
unsafe fn unpack(packed: u64) -> (OwnedFd, OwnedFd) {
    // SAFETY: per the contract, the slot's pair is ours alone.
    unsafe {
        (
            own(packed as u32 as RawFd),
            own((packed >> 32) as u32 as RawFd),
        )
    }
}

impl Drop for SparePipes {
    fn drop(&mut self) {
        for slot in &self.slots {
            let packed = slot.swap(EMPTY, Ordering::Acquire);
            if packed != EMPTY {
                // SAFETY: the swap emptied the slot, so the pair is ours alone.
                drop(unsafe { unpack(packed) });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    #[test]
    fn a_shutdown_message_holds_no_descriptor() {
        let m = RunStart::shutdown();
        assert!(m.site.is_none());
        assert_eq!((m.pipe, m.child_end, m.pidfd, m.pid), (-1, -1, -1, 0));
    }

    #[test]
    fn an_abandoned_run_is_killed() {
        let (read, write) = invite_sandbox::process::pipe().expect("pipe");
        // SAFETY: getpid has no preconditions.
        let me = unsafe { libc::getpid() };
        let run = crate::sandbox::launch::hidden(me, -1, &mut |_| loop {
            // SAFETY: pause has no preconditions.
            unsafe { libc::pause() };
        })
        .expect("launch");
        let watch = crate::sandbox::pidfd_open(run.pid).expect("pidfd");
        let mut start = RunStart::shutdown();
        start.pid = run.pid;
        start.pidfd = run.pidfd.into_raw_fd();
        start.pipe = read.into_raw_fd();
        start.child_end = write.into_raw_fd();
        start.abandon();
        let mut p = libc::pollfd {
            fd: watch.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        assert_eq!(
            // SAFETY: one live pollfd.
            unsafe { libc::poll(&mut p, 1, 10_000) },
            1,
            "the run lives on"
        );
    }

    #[test]
    fn messages_cross_a_pipe_whole_and_intact() {
        let (read, write) = invite_sandbox::process::pipe().expect("pipe");
        for run in 1..=3u64 {
            let mut start = RunStart::shutdown();
            start.run = run;
            start.pid = 1000 + run as libc::pid_t;
            start.parent_ns = 99 * run;
            start.pipe = 3;
            assert!(start.send(write.as_raw_fd()));
        }
        let mut buf = [0u8; MESSAGE * 4];
        // SAFETY: reading into a live buffer of the length passed.
        let n = unsafe { libc::read(read.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        assert_eq!(n, 3 * MESSAGE as isize);
        let back: Vec<RunStart> = buf[..n as usize]
            .chunks_exact(MESSAGE)
            // SAFETY: every message on this pipe was written by `send` above.
            .map(|m| unsafe { RunStart::from_bytes(m) })
            .collect();
        for (i, m) in back.iter().enumerate() {
            let run = i as u64 + 1;
            assert_eq!(
                (m.run, m.pid, m.parent_ns, m.pipe),
                (run, 1000 + run as libc::pid_t, 99 * run, 3)
            );
            assert!(m.site.is_none());
        }
    }

    #[test]
    fn spare_pipes_are_taken_once_and_refilled() {
        let spares = SparePipes::new();
        spares.refill();
        let mut seen = std::collections::HashSet::new();
        let taken: Vec<_> = (0..4).map(|_| spares.take().expect("pipe")).collect();
        for (r, w) in &taken {
            assert!(seen.insert(r.as_raw_fd()) && seen.insert(w.as_raw_fd()));
            // A working pipe: what goes in the write end comes out of the read end.
            assert_eq!(
                // SAFETY: writing one byte from a live array to our pipe.
                unsafe { libc::write(w.as_raw_fd(), b"x".as_ptr().cast(), 1) },
                1
            );
            let mut b = [0u8; 1];
            assert_eq!(
                // SAFETY: reading into a live buffer.
                unsafe { libc::read(r.as_raw_fd(), b.as_mut_ptr().cast(), 1) },
                1
            );
        }
        assert!(spares
            .slots
            .iter()
            .all(|s| s.load(Ordering::Relaxed) == EMPTY));
        spares.refill();
        assert!(spares
            .slots
            .iter()
            .all(|s| s.load(Ordering::Relaxed) != EMPTY));
    }
}
