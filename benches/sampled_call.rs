//! What a sampled call costs its caller, side by side with a bare `fork()` of the same process,
//! at 10 MB, 100 MB and 1 GB resident; fork cost per GiB with 4 KiB pages and with transparent
//! huge pages; and tests per second of caller time for a small process.
//!
//! A fork costs more once a thread of the process has run on another CPU since the last fork
//! (twice as much for a small process here): the fork must interrupt that CPU to flush its TLB,
//! and on a virtual machine an idle CPU must be woken first (`fork_state` counts the
//! interrupts). A sampling program is in that state: the collector thread, and the caller when
//! woken where a run's child exited, run on the other CPU. So every
//! measured operation, sampled call or bare fork, follows an unmeasured sampled call, and the
//! two alternate: both meet the same process in the same state. The cheaper fork of a process
//! whose previous child exited at once on the caller's CPU is printed beside them.
//!
//! The settings are the defaults (`hide_runs = "always"`: every run made by the launcher, never
//! the program's child); `INVITE_BENCH_HIDE_RUNS=never` (or `auto`, `always`, `true`, `false`)
//! sets `hide_runs`. `INVITE_BENCH_RESIDENT_MB` lists the resident sizes measured after the
//! small process (default `10,100,1000`).
//!
//! ```text
//! cargo bench --bench sampled_call
//! INVITE_BENCH_HIDE_RUNS=always cargo bench --bench sampled_call
//! INVITE_BENCH_RESIDENT_MB=64,1024 cargo bench --bench sampled_call
//! ```
// A benchmark stands in for a program: it forks, waits and touches memory the way programs do,
// with raw system calls (each with the reason it is sound).
#![allow(unsafe_code)]

mod probes;
mod support;

use probes::{probe, probe3};

use support::median;

use std::time::{Duration, Instant};

const ROUNDS: usize = 41;

/// The parent's time in `fork()` (the child leaves at once), in microseconds, after the same
/// settling as a sampled call.
fn bare_fork() -> f64 {
    std::thread::sleep(Duration::from_millis(2));
    support::bare_fork_us()
}

/// The caller's time in one sampled call, in microseconds.
fn sampled_call(i: u64) -> f64 {
    timed_call(|| probe(i))
}

fn timed_call(call: impl FnOnce() -> u64) -> f64 {
    // The same settling as before a bare fork: the previous child gone, the collector asleep.
    std::thread::sleep(Duration::from_millis(2));
    let started = Instant::now();
    std::hint::black_box(call());
    let us = started.elapsed().as_secs_f64() * 1e6;
    assert!(
        invite::wait_idle(Duration::from_secs(30)),
        "a test run did not finish"
    );
    us
}

/// One unmeasured sampled call, so that what follows meets the state a sampling program is in.
fn condition(next: &mut u64) {
    *next += 1;
    sampled_call(*next);
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
    invite::__private::resident_mib()
}

fn main() {
    // What is measured is the caller's time, not the budget: charging the children's CPU time
    // (1 GB runs take milliseconds of it) would refuse runs and back the sampler off.
    let hide_runs = match std::env::var("INVITE_BENCH_HIDE_RUNS") {
        Ok(v) if v == "true" || v == "false" => format!("hide_runs = {v}\n"),
        Ok(v) => format!("hide_runs = {v:?}\n"),
        Err(_) => String::new(),
    };
    if hide_runs.is_empty() {
        println!("hide_runs as by default");
    } else {
        println!("{}", hide_runs.trim());
    }
    let sizes: Vec<usize> = std::env::var("INVITE_BENCH_RESIDENT_MB")
        .map(|v| {
            v.split(',')
                .map(|n| {
                    n.trim()
                        .parse()
                        .expect("INVITE_BENCH_RESIDENT_MB: sizes in MB")
                })
                .collect()
        })
        .unwrap_or_else(|_| vec![10, 100, 1000]);
    let _dir = support::start_invite(&format!(
        "default_rho = 1.0\nmax_concurrent = 1\nmax_overhead = 1.0\nchild_cpu_charge = 0.0\n\
         {hide_runs}"
    ));
    let mut next = 0u64;

    // Throughput for a small process: tests per second of caller time, with one test per call
    // and with three, against bare forks in the same state and in the cheaper one.
    let (mut one, mut three, mut forks, mut cheap) = (vec![], vec![], vec![], vec![]);
    for round in 0..300 {
        for k in 0..4 {
            match (round + k) % 4 {
                0 => {
                    condition(&mut next);
                    one.push(sampled_call(next));
                }
                1 => {
                    condition(&mut next);
                    three.push(timed_call(|| probe3(next)));
                }
                2 => {
                    condition(&mut next);
                    forks.push(bare_fork());
                }
                _ => {
                    bare_fork();
                    cheap.push(bare_fork());
                }
            }
        }
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (m1, m3) = (mean(&one), mean(&three));
    println!(
        "small process ({:.0} MiB resident), caller time per sampled call: one test {:.1} us \
         (median {:.1}), three tests {:.1} us (median {:.1})\n\
         bare fork in the same state: median {:.1} us (sampled call {:.3}x); after a child that \
         exited on the caller's CPU: {:.1} us\n\
         tests per second of caller time: {:.0} with one test per call, {:.0} with three",
        rss_mib(),
        m1,
        median(one.clone()),
        m3,
        median(three),
        median(forks.clone()),
        median(one) / median(forks),
        median(cheap),
        1e6 / m1,
        3e6 / m3
    );

    println!(
        "\n{:>10} {:>12} {:>14} {:>8}",
        "resident", "bare fork", "sampled call", "ratio"
    );
    let mut held = Vec::new();
    for target_mb in sizes {
        let have = rss_mib() as usize;
        if target_mb > have {
            held.push(resident((target_mb - have) << 20, false));
            // Touching new memory right after runs counts as faults the budget charges to
            // them (it cannot tell them from copy-on-write): let that charge age out.
            std::thread::sleep(Duration::from_millis(5000));
        }
        let (mut forks, mut sampled) = (Vec::new(), Vec::new());
        for round in 0..ROUNDS {
            for k in 0..2 {
                condition(&mut next);
                if (round + k) % 2 == 0 {
                    next += 1;
                    sampled.push(sampled_call(next));
                } else {
                    forks.push(bare_fork());
                }
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
