//! What a sampled call costs its caller, side by side with a bare `fork()` of the same process,
//! at 10 MB, 100 MB and 1 GB resident; fork cost per GiB with 4 KiB pages and with transparent
//! huge pages; and tests per second of caller time for a small process.
//!
//! ```text
//! cargo bench --bench sampled_call
//! ```

use std::time::{Duration, Instant};

#[invite::in_vivo(test = holds)]
fn probe(x: u64) -> u64 {
    x.wrapping_add(1)
}

fn holds(x: &u64) -> bool {
    probe(*x) == x.wrapping_add(1)
}

const ROUNDS: usize = 41;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// The parent's time in `fork()` (the child leaves at once), in microseconds.
fn bare_fork() -> f64 {
    std::thread::sleep(Duration::from_millis(2));
    let started = Instant::now();
    // SAFETY: the child calls only _exit.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        // SAFETY: _exit has no preconditions.
        unsafe { libc::_exit(0) };
    }
    let us = started.elapsed().as_secs_f64() * 1e6;
    // SAFETY: reaping our own child.
    unsafe { libc::waitpid(pid, std::ptr::null_mut(), 0) };
    us
}

/// `fork()` then `pidfd_open` (what invite does), in microseconds of the parent's time.
fn fork_and_pidfd() -> f64 {
    std::thread::sleep(Duration::from_millis(2));
    let started = Instant::now();
    // SAFETY: the child calls only _exit.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        // SAFETY: _exit has no preconditions.
        unsafe { libc::_exit(0) };
    }
    // SAFETY: opening a pidfd for our own child.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) } as i32;
    let us = started.elapsed().as_secs_f64() * 1e6;
    // SAFETY: closing the pidfd and reaping our own child.
    unsafe {
        libc::close(fd);
        libc::waitpid(pid, std::ptr::null_mut(), 0);
    }
    us
}

/// `clone3` with `CLONE_PIDFD` (the pidfd comes with the child, but glibc's fork handlers do
/// not run), in microseconds of the parent's time.
fn clone3_with_pidfd() -> f64 {
    #[repr(C)]
    #[derive(Default)]
    struct CloneArgs {
        flags: u64,
        pidfd: u64,
        child_tid: u64,
        parent_tid: u64,
        exit_signal: u64,
        stack: u64,
        stack_size: u64,
        tls: u64,
    }
    std::thread::sleep(Duration::from_millis(2));
    let mut pidfd: i32 = -1;
    let args = CloneArgs {
        flags: libc::CLONE_PIDFD as u64,
        pidfd: &mut pidfd as *mut i32 as u64,
        exit_signal: libc::SIGCHLD as u64,
        ..Default::default()
    };
    let started = Instant::now();
    // SAFETY: clone3 without CLONE_VM and without a stack behaves as fork; the child calls
    // only _exit.
    let pid = unsafe {
        libc::syscall(
            libc::SYS_clone3,
            &args as *const CloneArgs,
            std::mem::size_of::<CloneArgs>(),
        )
    } as i32;
    if pid == 0 {
        // SAFETY: _exit has no preconditions.
        unsafe { libc::_exit(0) };
    }
    let us = started.elapsed().as_secs_f64() * 1e6;
    assert!(pid > 0, "clone3 failed");
    // SAFETY: closing the pidfd and reaping our own child.
    unsafe {
        libc::close(pidfd);
        libc::waitpid(pid, std::ptr::null_mut(), 0);
    }
    us
}

/// The caller's time in one sampled call, in microseconds.
fn sampled_call(i: u64) -> f64 {
    // The same settling as before a bare fork: the previous child gone, the collector asleep.
    std::thread::sleep(Duration::from_millis(2));
    let started = Instant::now();
    std::hint::black_box(probe(std::hint::black_box(i)));
    let us = started.elapsed().as_secs_f64() * 1e6;
    assert!(
        invite::wait_idle(Duration::from_secs(30)),
        "a test run did not finish"
    );
    us
}

/// Anonymous memory of `bytes`, touched page by page, with or without huge pages.
fn resident(bytes: usize, huge: bool) -> &'static mut [u8] {
    // SAFETY: a fresh private anonymous mapping, checked for failure, never unmapped (the
    // bench's memory lives until exit).
    unsafe {
        let p = libc::mmap(
            std::ptr::null_mut(),
            bytes,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        assert_ne!(p, libc::MAP_FAILED, "mmap of {bytes} bytes failed");
        let advice = if huge {
            libc::MADV_HUGEPAGE
        } else {
            libc::MADV_NOHUGEPAGE
        };
        libc::madvise(p, bytes, advice);
        let s = std::slice::from_raw_parts_mut(p.cast::<u8>(), bytes);
        for i in (0..bytes).step_by(4096) {
            s[i] = i as u8;
        }
        s
    }
}

fn rss_mib() -> f64 {
    invite::budget::resident_mib()
}

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("invite.toml");
    // What is measured is the caller's time, not the budget: charging the children's CPU time
    // (1 GB runs take milliseconds of it) would refuse runs and back the sampler off.
    std::fs::write(
        &config,
        format!(
            "default_rho = 1.0\nmax_concurrent = 1\nmax_overhead = 1.0\nchild_cpu_charge = 0.0\nlog = {:?}\n",
            dir.path().join("log.jsonl").display().to_string()
        ),
    )
    .expect("config");
    std::env::set_var("INVITE_CONFIG", &config);
    assert!(invite::init(), "invite did not start");
    let mut next = 0u64;

    // Throughput for a small process: runs started per second of caller time.
    let (mut calls, mut forks) = (Vec::new(), Vec::new());
    for _ in 0..300 {
        next += 1;
        calls.push(sampled_call(next));
        forks.push(bare_fork());
    }
    let mean = calls.iter().sum::<f64>() / calls.len() as f64;
    println!(
        "small process ({:.0} MiB resident): {:.1} us caller time per sampled call (median {:.1}; \
         bare fork median {:.1}), {:.0} tests per second of caller time",
        rss_mib(),
        mean,
        median(calls),
        median(forks),
        1e6 / mean
    );

    println!(
        "\n{:>10} {:>12} {:>14} {:>8}",
        "resident", "bare fork", "sampled call", "ratio"
    );
    let mut held = Vec::new();
    for target_mb in [10usize, 100, 1000] {
        let have = rss_mib() as usize;
        if target_mb > have {
            held.push(resident((target_mb - have) << 20, false));
            // Touching new memory right after runs counts as faults the budget charges to
            // them (it cannot tell them from copy-on-write): let that charge age out.
            std::thread::sleep(Duration::from_millis(5000));
        }
        // Interleaved, in alternating order, so that both meet the same machine state: an
        // operation right after a run whose child lived for a while is slower, whichever it is.
        let (mut forks, mut sampled) = (Vec::new(), Vec::new());
        for round in 0..ROUNDS {
            next += 1;
            if round % 2 == 0 {
                sampled.push(sampled_call(next));
                forks.push(bare_fork());
            } else {
                forks.push(bare_fork());
                sampled.push(sampled_call(next));
            }
        }
        let (f, s) = (median(forks), median(sampled));
        println!(
            "{:>7.0} MB {:>9.1} us {:>11.1} us {:>7.3}x",
            rss_mib(),
            f,
            s,
            s / f
        );
    }
    // Which way to fork (see src/sandbox/mod.rs): glibc fork + pidfd_open against clone3 with
    // CLONE_PIDFD, interleaved, on this process as it is (about 1 GB resident here).
    let (mut glibc, mut raw) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        glibc.push(fork_and_pidfd());
        raw.push(clone3_with_pidfd());
    }
    println!(
        "\nfork + pidfd_open: {:.1} us; clone3(CLONE_PIDFD): {:.1} us (at {:.0} MiB resident)",
        median(glibc),
        median(raw),
        rss_mib()
    );
    drop(held);

    // Fork cost per GiB: the same 2 GiB with 4 KiB pages and with transparent huge pages.
    println!();
    const SIZE: usize = 2 << 30;
    for huge in [false, true] {
        let base = median((0..ROUNDS).map(|_| bare_fork()).collect());
        let mapping = resident(SIZE, huge);
        let with = median((0..ROUNDS).map(|_| bare_fork()).collect());
        let pages = if huge {
            "transparent huge pages"
        } else {
            "4 KiB pages"
        };
        println!(
            "fork cost per GiB with {pages}: {:.2} ms",
            (with - base) / 1e3 / 2.0
        );
        // SAFETY: unmapping the mapping just made; nothing refers to it after this.
        unsafe { libc::munmap(mapping.as_mut_ptr().cast(), SIZE) };
    }
}
