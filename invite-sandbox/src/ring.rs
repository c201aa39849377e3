//! The shared ring that callers of `pure` sites write their calls into, and the worker reads.
//!
//! Many callers, one reader, no lock. A caller claims bytes by moving `tail` forward with a
//! compare-and-swap, copies its entry in, and then *stamps* it: the entry's first word, stored
//! last with release order, becomes the entry's own position in the stream of bytes (plus one).
//! A reader at position `p` takes the entry there only once its stamp reads `p + 1`, so an
//! entry still being
//! written, or one left from an earlier lap of the ring, is never taken. An entry that would
//! cross the end of the ring is preceded by a padding entry to the end.
//!
//! The reader gives bytes back by moving `done` in the [`Progress`] page. A caller never waits:
//! if the bytes it needs are not free, it skips its test. The worker maps the ring read-only,
//! from a read-only descriptor, so no code it runs can write what a caller reads. The progress
//! page is the only memory the two share both ways, and only the worker's supervisor, which
//! runs no test, keeps it: the process that runs the tests unmaps it. A reader that sleeps says
//! so there, and a caller that finds it asleep wakes it through an eventfd. Even so, a caller
//! trusts nothing in the page: a `done` beyond `tail`, or one that never moves, costs tests,
//! never memory safety.

use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::sync::atomic::{fence, AtomicU32, AtomicU64, Ordering};

/// What the stamp of a complete entry at `pos` reads: never 0, which fresh memory holds.
fn stamp_of(pos: u64) -> u64 {
    pos.wrapping_add(1)
}

/// The stamp and the length before each entry's bytes.
pub const ENTRY_HEADER: usize = 16;
/// The length that marks a padding entry: the rest of the ring up to its end is unused.
const PAD: u64 = u64::MAX;
/// The ring's own words, before its data, padded to a page.
const CONTROL: usize = 4096;

/// The page the reader writes: how far it has read, and whether it sleeps.
#[repr(C)]
pub struct Progress {
    /// Every entry before this position has been read and its bytes may be reused.
    pub done: AtomicU64,
    /// Non-zero while the reader sleeps (or is about to): a caller then wakes it.
    pub sleeping: AtomicU32,
}

/// The ring's control words.
#[repr(C)]
struct Control {
    tail: AtomicU64,
}

/// Why a caller could not write its entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Full {
    /// The reader has not freed enough bytes yet.
    NoRoom,
    /// The entry is larger than half the ring, and could never be written.
    TooLarge,
}

/// What a reader finds at a position.
#[derive(Debug, PartialEq, Eq)]
pub enum Found {
    /// Nothing yet (or the entry is still being written).
    Nothing,
    /// An entry's bytes, copied out, and the position after it.
    Entry { bytes: Vec<u8>, next: u64 },
    /// Padding: go on from `next`.
    Skip { next: u64 },
}

/// The ring: a memfd mapped shared, plus the progress page (anonymous shared memory).
#[derive(Debug)]
pub struct Ring {
    /// The mapping: the control page, then `cap` bytes of data.
    base: *mut u8,
    cap: usize,
    progress: *mut Progress,
    memfd: OwnedFd,
    /// What a caller nudges to wake a sleeping reader.
    wakeup: OwnedFd,
}

// SAFETY: the ring is memory shared between processes; every word that several threads write
// is an atomic, and entries' bytes are written by the one caller that claimed them.
unsafe impl Send for Ring {}
// SAFETY: as above.
unsafe impl Sync for Ring {}

fn align8(n: usize) -> usize {
    (n + 7) & !7
}

fn map(len: usize, prot: i32, flags: i32, fd: i32, at: *mut u8) -> std::io::Result<*mut u8> {
    // SAFETY: a new mapping, shared, of our own descriptor (or anonymous); with MAP_FIXED only
    // at an address this module mapped itself, over exactly its own mapping.
    let p = unsafe { libc::mmap(at.cast(), len, prot, flags, fd, 0) };
    if p == libc::MAP_FAILED {
        return Err(std::io::Error::last_os_error());
    }
    Ok(p.cast())
}

impl Ring {
    /// A ring of `cap` data bytes (rounded up to a power of two, at least 64 KiB).
    pub fn new(cap: usize) -> std::io::Result<Ring> {
        let cap = cap.max(64 << 10).next_power_of_two();
        let memfd = rustix::fs::memfd_create(c"invite-ring", rustix::fs::MemfdFlags::CLOEXEC)?;
        rustix::fs::ftruncate(&memfd, (CONTROL + cap) as u64)?;
        let base = map(
            CONTROL + cap,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            memfd.as_raw_fd(),
            std::ptr::null_mut(),
        )?;
        let progress = map(
            std::mem::size_of::<Progress>().max(4096),
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | libc::MAP_ANONYMOUS,
            -1,
            std::ptr::null_mut(),
        )?;
        Ok(Ring {
            base,
            cap,
            progress: progress.cast(),
            memfd,
            wakeup: crate::fd::eventfd()?,
        })
    }

    pub fn capacity(&self) -> usize {
        self.cap
    }

    fn control(&self) -> &Control {
        // SAFETY: the control page is mapped for the ring's life and holds only atomics, which
        // start at zero (a fresh memfd is zeroed).
        unsafe { &*self.base.cast::<Control>() }
    }

    pub fn progress(&self) -> &Progress {
        // SAFETY: mapped for the ring's life; atomics only, zeroed at the start.
        unsafe { &*self.progress }
    }

    fn data(&self) -> *mut u8 {
        // SAFETY: the data starts one control page into the mapping.
        unsafe { self.base.add(CONTROL) }
    }

    /// The stamp word of the entry at `pos`.
    fn stamp(&self, pos: u64) -> &AtomicU64 {
        // SAFETY: `pos % cap` is 8-aligned (every entry's length is) and at least 16 bytes
        // before the end of the data (entries are 8-aligned and the data's length is a power
        // of two of at least 64 KiB), and the mapping lives as long as `self`.
        unsafe {
            &*self
                .data()
                .add((pos % self.cap as u64) as usize)
                .cast::<AtomicU64>()
        }
    }

    fn length(&self, pos: u64) -> &AtomicU64 {
        // SAFETY: as for `stamp`, eight bytes further.
        unsafe {
            &*self
                .data()
                .add((pos % self.cap as u64) as usize + 8)
                .cast::<AtomicU64>()
        }
    }

    /// Where the next entry goes.
    pub fn tail(&self) -> u64 {
        self.control().tail.load(Ordering::Acquire)
    }

    /// Writes one entry of `bytes`, never waiting; wakes the reader if it sleeps.
    pub fn push(&self, bytes: &[u8]) -> Result<(), Full> {
        let need = align8(ENTRY_HEADER + bytes.len()) as u64;
        let cap = self.cap as u64;
        if need > cap / 2 {
            return Err(Full::TooLarge);
        }
        let tail = &self.control().tail;
        let mut t = tail.load(Ordering::Relaxed);
        let (at, pad) = loop {
            // What the reader has given back, never beyond what was written.
            let done = self.progress().done.load(Ordering::Acquire).min(t);
            let room_to_end = cap - t % cap;
            let pad = if need > room_to_end { room_to_end } else { 0 };
            if t.wrapping_sub(done).saturating_add(pad + need) > cap {
                return Err(Full::NoRoom);
            }
            match tail.compare_exchange_weak(t, t + pad + need, Ordering::AcqRel, Ordering::Relaxed)
            {
                Ok(_) => break (t + pad, pad),
                Err(now) => t = now,
            }
        };
        if pad > 0 {
            self.length(t).store(PAD, Ordering::Relaxed);
            self.stamp(t).store(stamp_of(t), Ordering::Release);
        }
        self.length(at).store(bytes.len() as u64, Ordering::Relaxed);
        // SAFETY: the bytes from `at + 16` to `at + need` were claimed above by this caller
        // alone, lie before the end of the data (padding moved `at` to the start otherwise), and
        // no reader reads them before the stamp below says they are complete.
        unsafe {
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                self.data().add((at % cap) as usize + ENTRY_HEADER),
                bytes.len(),
            );
        }
        self.stamp(at).store(stamp_of(at), Ordering::Release);
        // The reader sets `sleeping` and then looks for entries; this caller stamped its entry
        // and then looks at `sleeping`: one of the two sees the other's write.
        fence(Ordering::SeqCst);
        if self.progress().sleeping.load(Ordering::Relaxed) != 0 {
            crate::fd::nudge(self.wakeup.as_fd());
        }
        Ok(())
    }

    /// What lies at `pos` (a reader's side).
    pub fn read(&self, pos: u64) -> Found {
        self.read_prefix(pos, usize::MAX)
    }

    /// What lies at `pos`, with at most `max` of the entry's bytes copied out.
    pub fn read_prefix(&self, pos: u64, max: usize) -> Found {
        if self.stamp(pos).load(Ordering::Acquire) != stamp_of(pos) {
            return Found::Nothing;
        }
        let cap = self.cap as u64;
        let offset = pos % cap;
        let len = self.length(pos).load(Ordering::Relaxed);
        if len == PAD {
            return Found::Skip {
                next: pos + (cap - offset),
            };
        }
        // An entry never crosses the end; a length that says otherwise is not one a caller
        // wrote, and is passed over to the end of the ring.
        if len > cap - offset - ENTRY_HEADER as u64 {
            return Found::Skip {
                next: pos + (cap - offset),
            };
        }
        let mut bytes = vec![0u8; (len as usize).min(max)];
        // SAFETY: at most `len` bytes from `offset + 16`, which lie inside the data (checked
        // above); the stamp's acquire load made the caller's writes to them visible.
        unsafe {
            std::ptr::copy_nonoverlapping(
                self.data().add(offset as usize + ENTRY_HEADER),
                bytes.as_mut_ptr(),
                bytes.len(),
            );
        }
        Found::Entry {
            bytes,
            next: pos + align8(ENTRY_HEADER + len as usize) as u64,
        }
    }

    /// The reader is about to sleep until a caller writes an entry at `pos`: true if it may
    /// (it then waits for [`Ring::wakeup_fd`] to be readable), false if an entry is there
    /// already.
    pub fn arm(&self, pos: u64) -> bool {
        let p = self.progress();
        p.sleeping.store(1, Ordering::Relaxed);
        fence(Ordering::SeqCst);
        if self.read_ready(pos) {
            p.sleeping.store(0, Ordering::Relaxed);
            return false;
        }
        true
    }

    /// The reader is awake again.
    pub fn disarm(&self) {
        self.progress().sleeping.store(0, Ordering::Relaxed);
        crate::fd::drain_eventfd(self.wakeup.as_fd());
    }

    /// The descriptor that becomes readable when a caller wakes the reader.
    pub fn wakeup_fd(&self) -> std::os::fd::RawFd {
        self.wakeup.as_raw_fd()
    }

    fn read_ready(&self, pos: u64) -> bool {
        self.stamp(pos).load(Ordering::Acquire) == stamp_of(pos)
    }

    /// In the worker, right after its fork: maps the ring again read-only, from a read-only
    /// descriptor, at the same address, so that nothing this process runs can write it or
    /// map it writable again; then closes the ring's descriptor.
    pub fn seal_read_only(&self) -> std::io::Result<()> {
        let path = format!("/proc/self/fd/{}", self.memfd.as_raw_fd());
        let read_only = std::fs::File::open(path)?;
        map(
            CONTROL + self.cap,
            libc::PROT_READ,
            libc::MAP_SHARED | libc::MAP_FIXED,
            read_only.as_raw_fd(),
            self.base,
        )?;
        // SAFETY: this process (the worker) never uses the ring's writable descriptor again, and
        // never drops the `Ring` (it lives in a static and the process leaves with `_exit`).
        unsafe { libc::close(self.memfd.as_raw_fd()) };
        Ok(())
    }

    /// In the process that runs tests: unmaps the progress page, which only the supervisor
    /// writes, so that nothing a test does can reach it. That process must not use
    /// [`Ring::progress`], [`Ring::push`], [`Ring::arm`] or [`Ring::disarm`] afterwards.
    pub fn unmap_progress(&self) {
        // SAFETY: the page is this ring's own mapping, and per the contract above nothing in
        // this process touches it again.
        unsafe {
            libc::munmap(
                self.progress.cast(),
                std::mem::size_of::<Progress>().max(4096),
            )
        };
    }

    /// The address ranges of the ring's two mappings, which the worker keeps shared.
    pub fn ranges(&self) -> [(usize, usize); 2] {
        let base = self.base as usize;
        let progress = self.progress as usize;
        [
            (base, base + CONTROL + self.cap),
            (
                progress,
                progress + std::mem::size_of::<Progress>().max(4096),
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn take(ring: &Ring, pos: &mut u64) -> Option<Vec<u8>> {
        loop {
            match ring.read(*pos) {
                Found::Nothing => return None,
                Found::Skip { next } => *pos = next,
                Found::Entry { bytes, next } => {
                    *pos = next;
                    return Some(bytes);
                }
            }
        }
    }

    #[test]
    fn entries_come_out_in_order_and_wrap_around_the_end() {
        let ring = Ring::new(1).expect("ring");
        assert_eq!(ring.capacity(), 64 << 10);
        let mut pos = 0;
        // Many laps, with sizes that do not divide the ring.
        for round in 0..2000u32 {
            let entry: Vec<u8> = (0..(round % 700) as usize).map(|i| i as u8).collect();
            ring.push(&entry).expect("room");
            assert_eq!(take(&ring, &mut pos), Some(entry));
            ring.progress().done.store(pos, Ordering::Release);
        }
        assert_eq!(take(&ring, &mut pos), None);
        assert_eq!(ring.tail(), pos, "the reader is where the callers stopped");
    }

    #[test]
    fn an_entry_left_from_an_earlier_lap_is_never_taken_for_a_new_one() {
        let ring = Ring::new(1).expect("ring");
        let mut pos = 0;
        // More than a lap of entries, each read as it comes: every slot now holds an old one.
        for _ in 0..200 {
            ring.push(&[9u8; 500]).expect("room");
            assert!(take(&ring, &mut pos).is_some());
            ring.progress().done.store(pos, Ordering::Release);
        }
        assert!(pos > ring.capacity() as u64, "the ring went round");
        assert_eq!(
            ring.read(pos),
            Found::Nothing,
            "nothing written at the reader's place"
        );
        assert_eq!(ring.read(pos + 8), Found::Nothing);
        ring.push(b"new").expect("room");
        assert_eq!(take(&ring, &mut pos), Some(b"new".to_vec()));
    }

    #[test]
    fn an_entry_of_half_the_ring_fits_and_one_that_ends_at_the_end_needs_no_padding() {
        let ring = Ring::new(1).expect("ring");
        let cap = ring.capacity();
        // Exactly half, header included: the largest entry there is.
        ring.push(&vec![1u8; cap / 2 - ENTRY_HEADER])
            .expect("half the ring fits");
        let mut pos = 0;
        assert!(take(&ring, &mut pos).is_some());
        ring.progress().done.store(pos, Ordering::Release);
        // An entry that ends exactly at the end of the ring goes there, unpadded.
        ring.push(&vec![2u8; cap / 2 - ENTRY_HEADER]).expect("room");
        assert_eq!(ring.tail(), cap as u64, "no padding before it");
        assert_eq!(
            take(&ring, &mut pos),
            Some(vec![2u8; cap / 2 - ENTRY_HEADER])
        );
    }

    #[test]
    fn two_halves_fill_the_ring_exactly() {
        let ring = Ring::new(1).expect("ring");
        let half = vec![3u8; ring.capacity() / 2 - ENTRY_HEADER];
        ring.push(&half).expect("the first half");
        ring.push(&half)
            .expect("the second half fills the ring to the byte");
        assert_eq!(ring.push(&[]), Err(Full::NoRoom));
    }

    #[test]
    fn a_length_no_caller_wrote_is_passed_over_to_the_end_of_the_ring() {
        let ring = Ring::new(1).expect("ring");
        let cap = ring.capacity() as u64;
        ring.push(b"abc").expect("room");
        let mut pos = 0;
        assert!(take(&ring, &mut pos).is_some());
        ring.push(b"def").expect("room");
        // Longer than what is left of the ring after the entry's header: not an entry.
        ring.length(pos)
            .store(cap - pos - ENTRY_HEADER as u64 + 1, Ordering::Relaxed);
        assert_eq!(ring.read(pos), Found::Skip { next: cap });
        // Exactly what is left is one.
        ring.length(pos)
            .store(cap - pos - ENTRY_HEADER as u64, Ordering::Relaxed);
        assert!(matches!(ring.read(pos), Found::Entry { next, .. } if next == cap));
    }

    /// In a child process (a mapping's protection is the whole process's): the worker's view.
    fn in_a_child(check: impl FnOnce() -> bool) -> bool {
        // SAFETY: the child runs `check`, which allocates and reads /proc, and leaves with
        // _exit; the test process is single-threaded here or only waits.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(check)).unwrap_or(false);
            // SAFETY: _exit has no preconditions.
            unsafe { libc::_exit(if ok { 0 } else { 1 }) };
        }
        let mut status = 0;
        // SAFETY: reaping our own child.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0
    }

    /// The protection of the mapping that starts at `start`, from /proc/self/maps.
    fn mapping_at(start: usize) -> Option<(usize, String)> {
        let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
        maps.lines().find_map(|l| {
            let (range, rest) = l.split_once(' ')?;
            let (a, b) = range.split_once('-')?;
            let a = usize::from_str_radix(a, 16).ok()?;
            let b = usize::from_str_radix(b, 16).ok()?;
            (a == start).then(|| (b, rest.split(' ').next().unwrap_or("").to_string()))
        })
    }

    #[test]
    fn the_worker_s_view_is_read_only_and_without_the_progress_page() {
        let ring = Ring::new(1).expect("ring");
        let [(ring_start, ring_end), (page_start, page_end)] = ring.ranges();
        // The ranges are the two mappings, whole.
        assert_eq!(mapping_at(ring_start), Some((ring_end, "rw-s".to_string())));
        assert_eq!(mapping_at(page_start), Some((page_end, "rw-s".to_string())));
        ring.push(b"before").expect("room");
        let sealed = in_a_child(|| {
            ring.seal_read_only().is_ok()
                && mapping_at(ring_start) == Some((ring_end, "r--s".to_string()))
                // Writable again? Not from a read-only descriptor.
                // SAFETY: changing the protection of this process's own mapping of the ring.
                && unsafe {
                    libc::mprotect(
                        ring_start as *mut libc::c_void,
                        ring_end - ring_start,
                        libc::PROT_READ | libc::PROT_WRITE,
                    )
                } != 0
                // What callers wrote is still there to read.
                && matches!(ring.read(0), Found::Entry { .. })
        });
        assert!(sealed, "the child saw the ring read-only, for good");
        let unmapped = in_a_child(|| {
            ring.unmap_progress();
            mapping_at(page_start).is_none()
        });
        assert!(unmapped, "the child no longer had the progress page");
        // The program's own view is untouched.
        ring.push(b"after").expect("still writable here");
    }

    #[test]
    fn a_full_ring_refuses_and_frees_as_the_reader_goes() {
        let ring = Ring::new(1).expect("ring");
        let entry = vec![7u8; 1000];
        let mut written = 0;
        while ring.push(&entry).is_ok() {
            written += 1;
        }
        assert_eq!(written, (64 << 10) / 1016);
        assert_eq!(ring.push(&entry), Err(Full::NoRoom));
        let mut pos = 0;
        assert!(take(&ring, &mut pos).is_some());
        ring.progress().done.store(pos, Ordering::Release);
        assert_eq!(ring.push(&entry), Ok(()));
        assert_eq!(ring.push(&vec![0; 40 << 10]), Err(Full::TooLarge));
    }

    #[test]
    fn a_reader_that_lies_about_its_progress_costs_room_not_safety() {
        let ring = Ring::new(1).expect("ring");
        ring.progress().done.store(u64::MAX, Ordering::Relaxed);
        for _ in 0..500 {
            ring.push(&[1u8; 900])
                .expect("a done beyond tail is taken as tail");
        }
        ring.progress().done.store(0, Ordering::Relaxed);
        assert_eq!(ring.push(&[1u8; 900]), Err(Full::NoRoom));
    }

    #[test]
    fn callers_on_many_threads_lose_nothing() {
        let ring = std::sync::Arc::new(Ring::new(1 << 20).expect("ring"));
        let threads: Vec<_> = (0..4u8)
            .map(|k| {
                let ring = std::sync::Arc::clone(&ring);
                std::thread::spawn(move || {
                    for i in 0..500u16 {
                        let mut e = vec![k];
                        e.extend_from_slice(&i.to_le_bytes());
                        ring.push(&e).expect("room");
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().expect("caller");
        }
        let mut pos = 0;
        let mut next = [0u16; 4];
        while let Some(e) = take(&ring, &mut pos) {
            let (k, i) = (e[0] as usize, u16::from_le_bytes([e[1], e[2]]));
            assert_eq!(i, next[k], "each caller's entries in its order");
            next[k] += 1;
        }
        assert_eq!(next, [500; 4]);
    }

    #[test]
    fn a_sleeping_reader_is_woken_by_a_caller_and_only_a_sleeping_one() {
        use std::os::fd::BorrowedFd;
        let ring = std::sync::Arc::new(Ring::new(1).expect("ring"));
        // SAFETY: the ring's descriptor, which outlives this borrow.
        let fd = unsafe { BorrowedFd::borrow_raw(ring.wakeup_fd()) };
        let readable = || crate::fd::wait_readable(&[fd], std::time::Duration::ZERO) == 1;
        // Awake: a caller does not nudge.
        ring.push(b"a").expect("room");
        assert!(!readable());
        // An entry waits: the reader does not sleep.
        assert!(!ring.arm(0));
        let mut pos = 0;
        assert!(take(&ring, &mut pos).is_some());
        assert!(ring.arm(pos), "nothing at the next position");
        let caller = {
            let ring = std::sync::Arc::clone(&ring);
            std::thread::spawn(move || ring.push(b"b").expect("room"))
        };
        caller.join().expect("caller");
        assert!(
            crate::fd::wait_readable(&[fd], std::time::Duration::from_secs(30)) == 1,
            "the caller woke the reader"
        );
        ring.disarm();
        assert!(!readable(), "disarming drains the wake-up");
        assert_eq!(take(&ring, &mut pos), Some(b"b".to_vec()));
    }
}
