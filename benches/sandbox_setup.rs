//! What the sandbox costs a test, by what the program holds: the time a run's child spends
//! detaching N inherited descriptors (half regular files, half pipes) and N shared mappings of
//! one page, and the time a test process spends installing the filter. All of it runs in the
//! children, off the caller's path; the caller's cost is the fork alone. Then what opening a
//! file by path costs a test: directly, and through the broker that decides what a filtered
//! test may open.
//!
//! `cargo bench --bench sandbox_setup`
// A benchmark stands in for a program: it forks, waits and touches memory the way programs do,
// with raw system calls (each with the reason it is sound).
#![allow(unsafe_code)]

mod support;

use std::io::Read;
use std::os::fd::{AsFd, AsRawFd, FromRawFd};
use std::time::Instant;

use invite_sandbox::seccomp::Filter;
use invite_sandbox::{broker, detach};

const REPEATS: usize = 15;
/// Opens timed per child in the open-cost comparison.
const OPENS: u32 = 500;

/// Forks a child that runs `work` (given the descriptor it reports on, which it must keep) and
/// writes back the microseconds it took.
fn in_child(work: &dyn Fn(i32)) -> f64 {
    let mut fds = [0; 2];
    // SAFETY: pipe writes two descriptors into `fds`.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: the child runs the measured work, writes 8 bytes and leaves with _exit.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        let started = Instant::now();
        work(fds[1]);
        let us = started.elapsed().as_secs_f64() * 1e6;
        // SAFETY: writing 8 bytes to the pipe, then leaving.
        unsafe {
            libc::write(fds[1], us.to_le_bytes().as_ptr().cast(), 8);
            libc::_exit(0);
        }
    }
    // SAFETY: closing our write end; the read end is owned by the File.
    unsafe { libc::close(fds[1]) };
    // SAFETY: the read end was just made by pipe and is owned by the File alone.
    let mut file = unsafe { std::fs::File::from_raw_fd(fds[0]) };
    let mut b = [0u8; 8];
    file.read_exact(&mut b).expect("child result");
    // SAFETY: reaping our own child.
    unsafe { libc::waitpid(pid, std::ptr::null_mut(), 0) };
    f64::from_le_bytes(b)
}

/// Microseconds per open-and-close of `path` in a child: unfiltered, or filtered with this
/// process serving the child's broker socket as a run's supervisor does.
fn open_cost(filter: &Filter, path: &std::ffi::CStr, brokered: bool) -> f64 {
    let (ours, theirs) = broker::pair().expect("socket pair");
    let mut fds = [0; 2];
    // SAFETY: pipe writes two descriptors into `fds`.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: the child opens files, writes 8 bytes and leaves with _exit.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        if brokered {
            filter.install(fds[1], theirs.as_raw_fd()).expect("install");
        }
        let started = Instant::now();
        for _ in 0..OPENS {
            // SAFETY: a NUL-terminated path; the descriptor is closed at once.
            unsafe {
                let fd = libc::open(path.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
                assert!(fd >= 0);
                libc::close(fd);
            }
        }
        let us = started.elapsed().as_secs_f64() * 1e6 / f64::from(OPENS);
        // SAFETY: writing 8 bytes to the pipe, then leaving.
        unsafe {
            libc::write(fds[1], us.to_le_bytes().as_ptr().cast(), 8);
            libc::_exit(0);
        }
    }
    drop(theirs);
    // SAFETY: closing our write end; the read end is owned by the File.
    unsafe { libc::close(fds[1]) };
    // SAFETY: the read end was just made by pipe and is owned by the File alone.
    let mut file = unsafe { std::fs::File::from_raw_fd(fds[0]) };
    loop {
        let mut polls = [
            libc::pollfd {
                fd: ours.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: fds[0],
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        // SAFETY: two live pollfds.
        unsafe { libc::poll(polls.as_mut_ptr(), 2, 1000) };
        broker::serve(ours.as_fd(), pid);
        if polls[1].revents != 0 {
            break;
        }
    }
    let mut b = [0u8; 8];
    file.read_exact(&mut b).expect("child result");
    // SAFETY: reaping our own child.
    unsafe { libc::waitpid(pid, std::ptr::null_mut(), 0) };
    f64::from_le_bytes(b)
}

fn raise_descriptor_limit() {
    // SAFETY: reading and raising this process's own soft limit to its hard limit.
    unsafe {
        let mut lim: libc::rlimit = std::mem::zeroed();
        libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim);
        lim.rlim_cur = lim.rlim_max;
        libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
    }
}

fn main() {
    raise_descriptor_limit();
    let dir = tempfile::tempdir().expect("temp dir");
    let filter = Filter::build().expect("filter");
    println!(
        "filter: {} instructions; medians of {REPEATS} children",
        filter.len()
    );
    println!(
        "{:>6} {:>14} {:>14} {:>14} {:>14}",
        "held", "descriptors", "mappings", "filter", "total"
    );
    let mut held_fds = Vec::new();
    let mut held_maps = Vec::new();
    for n in [10usize, 100, 1000] {
        while held_fds.len() < n {
            let i = held_fds.len();
            if i % 2 == 0 {
                let path = dir.path().join(format!("f{i}"));
                std::fs::write(&path, "data").unwrap();
                held_fds.push(std::fs::File::open(&path).unwrap());
            } else {
                let (r, _w) = std::io::pipe().unwrap();
                held_fds.push(std::fs::File::from(std::os::fd::OwnedFd::from(r)));
            }
            // SAFETY: a fresh shared anonymous page, touched so that it has contents to copy.
            let p = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    4096,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_SHARED | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            };
            assert_ne!(p, libc::MAP_FAILED);
            // SAFETY: the page was just mapped writable.
            unsafe { *(p as *mut u8) = 1 };
            held_maps.push(p as usize);
        }
        let descriptors: Vec<f64> = (0..REPEATS)
            .map(|_| in_child(&|keep| drop(detach::descriptors(&[keep]))))
            .collect();
        let mappings: Vec<f64> = (0..REPEATS)
            .map(|_| in_child(&|_| detach::privatize_shared_mappings()))
            .collect();
        let install: Vec<f64> = (0..REPEATS)
            .map(|_| in_child(&|_| filter.install(2, -1).expect("install")))
            .collect();
        let (d, m, f) = (
            support::median(descriptors),
            support::median(mappings),
            support::median(install),
        );
        println!(
            "{n:>6} {:>11.0} µs {:>11.0} µs {:>11.0} µs {:>11.0} µs",
            d,
            m,
            f,
            d + m + f
        );
    }
    let path = dir.path().join("f0");
    let path = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    let direct: Vec<f64> = (0..REPEATS)
        .map(|_| open_cost(&filter, &path, false))
        .collect();
    let brokered: Vec<f64> = (0..REPEATS)
        .map(|_| open_cost(&filter, &path, true))
        .collect();
    let (d, b) = (support::median(direct), support::median(brokered));
    println!(
        "opening a file by path: {d:.1} µs directly, {b:.1} µs through the broker ({:.1} ×)",
        b / d
    );
}
