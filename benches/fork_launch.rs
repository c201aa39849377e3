//! How a run's process can be made, side by side: glibc's `fork` (seen by the program's SIGCHLD
//! handler and `waitpid(-1)`), invite's launcher (a `clone` sharing the program's memory that
//! then calls glibc's `fork`; seen by neither), and a raw `clone` with no exit signal (seen by
//! neither, but without glibc's fork-time locking).
//!
//! 1. What each costs the caller, in a small process and in one with 256 MiB resident; the
//!    three alternate, so a noisy neighbour hits all alike.
//! 2. How often the copy deadlocks (or crashes) when the program allocates hard on other
//!    threads at the moment of the copy. Each copy allocates small and large blocks, frees
//!    blocks that other threads allocated, and starts a thread, as a test would; a copy not done
//!    within a second is counted as deadlocked and killed. A deadlocked run costs its tests: they
//!    are recorded as `timeout` after their deadline, holding a concurrency slot meanwhile.
//!
//! ```text
//! cargo bench --bench fork_launch
//! ```
// A benchmark stands in for a program: it forks, waits and touches memory the way programs do,
// with raw system calls (each with the reason it is sound).
#![allow(unsafe_code)]

mod support;

use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use invite_sandbox::launch;

const METHODS: [&str; 3] = ["glibc fork", "launcher + fork", "raw clone"];

/// Blocks that the allocating threads hand around, so that copies free memory of other arenas.
const SLOTS: usize = 256;
static SLOT: [AtomicPtr<u8>; SLOTS] = [const { AtomicPtr::new(std::ptr::null_mut()) }; SLOTS];

/// What a copy does: allocation of every kind a test might do, then a thread. Exits 0.
fn allocate_like_a_test() -> ! {
    let mut kept = Vec::new();
    for size in [16usize, 200, 1500, 40_000, 300_000] {
        for _ in 0..8 {
            kept.push(vec![1u8; size]);
        }
    }
    for slot in &SLOT {
        let p = slot.swap(std::ptr::null_mut(), Ordering::Relaxed);
        if !p.is_null() {
            // SAFETY: every pointer in SLOT is a block of SLOT_BYTES from Box::into_raw, taken
            // out of its slot by exactly one owner.
            drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(p, SLOT_BYTES)) });
        }
    }
    let t = std::thread::spawn(|| vec![2u8; 4096].len());
    let ok = t.join().map(|n| n == 4096).unwrap_or(false) && !kept.is_empty();
    // SAFETY: _exit never returns.
    unsafe { libc::_exit(if ok { 0 } else { 1 }) }
}

const SLOT_BYTES: usize = 2048;

/// A host thread that allocates and frees without pause, leaving blocks in SLOT for others.
fn churn(stop: Arc<AtomicBool>, seed: usize) {
    let mut i = seed;
    let mut local: Vec<Vec<u8>> = Vec::new();
    while !stop.load(Ordering::Relaxed) {
        i = i
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let size = [24, 512, 4000, 70_000, 200_000][i % 5];
        local.push(vec![0u8; size]);
        if local.len() > 64 {
            local.swap_remove(i % local.len());
        }
        let block = Box::into_raw(vec![0u8; SLOT_BYTES].into_boxed_slice()) as *mut u8;
        let old = SLOT[(i >> 8) % SLOTS].swap(block, Ordering::Relaxed);
        if !old.is_null() {
            // SAFETY: as in `allocate_like_a_test`.
            drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(old, SLOT_BYTES)) });
        }
    }
}

/// Makes a copy by `method` that runs `allocate_like_a_test`, or (`busy = false`) leaves at
/// once. Returns the caller's time and the copy's pid (a pidfd for the launcher's copy).
fn make_copy(method: usize, busy: bool) -> (Duration, libc::pid_t, Option<std::os::fd::OwnedFd>) {
    let body = || {
        if busy {
            allocate_like_a_test()
        }
        // SAFETY: _exit never returns.
        unsafe { libc::_exit(0) }
    };
    let started = Instant::now();
    let (pid, pidfd) = match method {
        0 => {
            // SAFETY: the child runs `body` and leaves with _exit.
            let pid = unsafe { libc::fork() };
            if pid == 0 {
                body();
            }
            (pid, None)
        }
        1 => {
            // SAFETY: getpid has no preconditions.
            let me = unsafe { libc::getpid() };
            // SAFETY: sched_getcpu has no preconditions.
            let cpu = unsafe { libc::sched_getcpu() };
            let l = launch::hidden(me, cpu, &mut |_| body()).expect("launch");
            (l.pid, Some(l.pidfd))
        }
        _ => {
            // SAFETY: a clone with no exit signal and no stack duplicates the process like
            // fork, without glibc's fork handlers: what is measured here.
            let pid = unsafe { libc::syscall(libc::SYS_clone, 0, 0, 0, 0, 0) } as libc::pid_t;
            if pid == 0 {
                body();
            }
            (pid, None)
        }
    };
    let took = started.elapsed();
    assert!(pid > 0, "{} failed", METHODS[method]);
    (took, pid, pidfd)
}

/// How a copy ended within `limit`: `Some(0)` done, `Some(_)` crashed or failed, `None` hung
/// (then killed).
fn outcome(pid: libc::pid_t, pidfd: Option<&std::os::fd::OwnedFd>, limit: Duration) -> Option<i32> {
    let started = Instant::now();
    loop {
        let mut status = 0;
        if let Some(fd) = pidfd {
            // Not our child: its pidfd turns readable when it ends.
            let mut p = libc::pollfd {
                fd: std::os::fd::AsRawFd::as_raw_fd(fd),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one live pollfd.
            if unsafe { libc::poll(&mut p, 1, 0) } == 1 {
                return Some(0);
            }
        } else {
            // SAFETY: reaping our own child without blocking (__WALL: clone children too).
            let r = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG | libc::__WALL) };
            if r == pid {
                return Some(if libc::WIFEXITED(status) {
                    libc::WEXITSTATUS(status)
                } else {
                    128 + libc::WTERMSIG(status)
                });
            }
        }
        if started.elapsed() > limit {
            // SAFETY: our unreaped child, or a pidfd's process.
            unsafe {
                match pidfd {
                    Some(fd) => {
                        libc::syscall(
                            libc::SYS_pidfd_send_signal,
                            std::os::fd::AsRawFd::as_raw_fd(fd),
                            libc::SIGKILL,
                            std::ptr::null::<libc::siginfo_t>(),
                            0,
                        );
                    }
                    None => {
                        libc::kill(pid, libc::SIGKILL);
                        libc::waitpid(pid, &mut status, libc::__WALL);
                    }
                }
            }
            return None;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

fn costs(label: &str, rounds: usize) {
    let mut times = vec![Vec::new(); METHODS.len()];
    for _ in 0..rounds {
        for (m, t) in times.iter_mut().enumerate() {
            let (took, pid, pidfd) = make_copy(m, false);
            t.push(took.as_secs_f64() * 1e6);
            outcome(pid, pidfd.as_ref(), Duration::from_secs(10));
        }
    }
    let base = support::median(times[0].clone());
    for (m, t) in times.into_iter().enumerate() {
        let med = support::median(t);
        println!(
            "  {label:<22} {:<16} {med:>9.1} µs per copy  ({:.2}x glibc fork)",
            METHODS[m],
            med / base
        );
    }
}

fn main() {
    let rounds = 300;
    println!("1. The caller's time per copy (median of {rounds}, methods alternating):");
    costs("small process", rounds);
    let resident = vec![1u8; 256 << 20];
    std::hint::black_box(&resident);
    costs("256 MiB resident", rounds / 6);
    drop(resident);

    let copies = 400;
    let stop = Arc::new(AtomicBool::new(false));
    let threads: Vec<_> = (0..3)
        .map(|i| {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || churn(stop, i))
        })
        .collect();
    std::thread::sleep(Duration::from_millis(100));
    println!(
        "2. {copies} copies per method while 3 threads allocate and free without pause; each \
         copy allocates, frees other threads' blocks and starts a thread:"
    );
    let mut tally = [[0usize; 3]; 3]; // [method][done, failed, hung]
    for _ in 0..copies {
        for (m, t) in tally.iter_mut().enumerate() {
            let (_, pid, pidfd) = make_copy(m, true);
            match outcome(pid, pidfd.as_ref(), Duration::from_secs(1)) {
                Some(0) => t[0] += 1,
                Some(_) => t[1] += 1,
                None => t[2] += 1,
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        t.join().expect("churn thread");
    }
    for (m, t) in tally.iter().enumerate() {
        println!(
            "  {:<16} done {:>4}   crashed or failed {:>4}   deadlocked {:>4}  ({:.1}% lost)",
            METHODS[m],
            t[0],
            t[1],
            t[2],
            100.0 * (t[1] + t[2]) as f64 / copies as f64
        );
    }
}
