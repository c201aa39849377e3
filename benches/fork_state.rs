//! Why a fork's cost depends on where the previous child ran, without invite: a bare `fork()` of
//! a 3 MiB process (its child leaves at once), measured after an unmeasured fork whose child
//! exits at once, sleeps on the caller's CPU, runs on another CPU, or runs on another CPU and
//! comes back to exit. The four cases alternate. Beside each median: the TLB shootdown interrupts
//! a measured fork sent, the cost that separates the cases.
//!
//! ```text
//! cargo bench --bench fork_state
//! ```
// A benchmark stands in for a program: it forks, waits and touches memory the way programs do,
// with raw system calls (each with the reason it is sound).
#![allow(unsafe_code)]

mod support;

use std::time::Duration;

const CASES: [&str; 4] = [
    "exited at once",
    "slept 1.5 ms on the caller's CPU",
    "slept 1.5 ms on another CPU",
    "slept on another CPU, exited on the caller's",
];

/// Pins the calling process (a fresh child) to one CPU.
fn pin(cpu: usize) {
    // SAFETY: cpu_set_t is plain data; sched_setaffinity reads it and changes this process.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

/// An unmeasured fork whose child behaves as `case` says.
fn previous(case: usize, caller_cpu: usize, cpus: usize) {
    // SAFETY: the child makes only async-signal-safe calls and leaves with _exit.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        let other = (caller_cpu + 1) % cpus;
        match case {
            1 => pin(caller_cpu),
            2 | 3 => pin(other),
            _ => {}
        }
        if case > 0 {
            let pause = libc::timespec {
                tv_sec: 0,
                tv_nsec: 1_500_000,
            };
            // SAFETY: nanosleep reads a live timespec.
            unsafe { libc::nanosleep(&pause, std::ptr::null_mut()) };
        }
        if case == 3 {
            pin(caller_cpu);
        }
        // SAFETY: _exit has no preconditions.
        unsafe { libc::_exit(0) };
    }
    // SAFETY: reaping our own child.
    unsafe { libc::waitpid(pid, std::ptr::null_mut(), 0) };
}

fn main() {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cpus < 2 {
        println!("one CPU: nothing to compare");
        return;
    }
    let state: Vec<u8> = vec![1; 3 << 20];
    std::hint::black_box(&state);
    let rounds = 400;
    let mut times = vec![Vec::new(); CASES.len()];
    let mut shootdowns = vec![0u64; CASES.len()];
    for round in 0..rounds {
        for k in 0..CASES.len() {
            let case = (round + k) % CASES.len();
            std::thread::sleep(Duration::from_millis(2));
            // SAFETY: sched_getcpu has no preconditions.
            let cpu = unsafe { libc::sched_getcpu() }.max(0) as usize;
            previous(case, cpu, cpus);
            std::thread::sleep(Duration::from_millis(2));
            let before = support::tlb_shootdowns();
            times[case].push(support::bare_fork_us());
            if let (Some(b), Some(a)) = (before, support::tlb_shootdowns()) {
                shootdowns[case] += a - b;
            }
        }
    }
    println!("bare fork of a 3 MiB process, after a child that ...");
    for ((name, mut t), ipis) in CASES.iter().zip(times).zip(shootdowns) {
        t.sort_by(f64::total_cmp);
        println!(
            "  {name:46} {:7.1} us (middle half {:.1} to {:.1}), {:.2} TLB shootdowns a fork",
            t[t.len() / 2],
            t[t.len() / 4],
            t[3 * t.len() / 4],
            ipis as f64 / rounds as f64
        );
    }
}
