//! What a sampled call costs the whole program, not only the call: the wall-clock time of a
//! CPU-bound loop (about 2 ms of work a step, writing 128 KiB of state at random) with one
//! sampled call a step, less the same loop with an uninstrumented call, per sampled call. This
//! counts what the call's own time leaves out: the copy-on-write and write-protect faults the
//! program takes afterwards, TLB shootdown interrupts, and CPU the collector takes.
//!
//! Beside it, the same loop with a bare `fork()` a step, whose child leaves at once or lives
//! 1 ms on another CPU (about as long as a run with one test, here). The kinds alternate in
//! blocks, in rotating order.
//!
//! `INVITE_BENCH_HIDE_RUNS` sets `hide_runs` (default: unset, `"auto"`). The bare forks'
//! children are this program's own, so under `"auto"` runs may be hidden once the collector has
//! seen one of them.
//!
//! ```text
//! cargo bench --bench program_cost
//! INVITE_BENCH_HIDE_RUNS=never cargo bench --bench program_cost
//! ```
// A benchmark stands in for a program: it forks, waits and touches memory the way programs do,
// with raw system calls (each with the reason it is sound).
#![allow(unsafe_code)]

mod probes;
mod support;

use probes::{probe, probe3};

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

#[inline(never)]
fn plain(x: u64) -> u64 {
    x.wrapping_add(1)
}

const KINDS: [&str; 5] = [
    "uninstrumented call",
    "sampled call, one test",
    "sampled call, three tests",
    "bare fork, child leaves at once",
    "bare fork, child lives 1 ms on another CPU",
];
const ROUNDS: usize = 12;
const STEPS: usize = 60;
const STEP_US: f64 = 2000.0;

/// The program's work: pseudo-random writes over its state.
fn work(state: &mut [u64], iterations: usize, seed: u64) -> u64 {
    let mut x = seed;
    for i in 0..iterations {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let k = (x >> 33) as usize % state.len();
        state[k] = state[k].wrapping_add(x ^ i as u64);
    }
    x
}

/// A bare fork whose child leaves at once, or first moves off `cpu` and sleeps 1 ms.
fn bare_fork(live: bool, children: &mut Vec<libc::pid_t>) -> u64 {
    // SAFETY: sched_getcpu has no preconditions.
    let cpu = unsafe { libc::sched_getcpu() };
    // SAFETY: the child makes only async-signal-safe calls and leaves with _exit.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        if live {
            // SAFETY: cpu_set_t is plain data; the calls change only this child.
            unsafe {
                let mut set: libc::cpu_set_t = std::mem::zeroed();
                libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set);
                if cpu >= 0 && libc::CPU_COUNT(&set) > 1 {
                    libc::CPU_CLR(cpu as usize, &mut set);
                    libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
                }
                let pause = libc::timespec {
                    tv_sec: 0,
                    tv_nsec: 1_000_000,
                };
                libc::nanosleep(&pause, std::ptr::null_mut());
            }
        }
        // SAFETY: _exit has no preconditions.
        unsafe { libc::_exit(0) };
    }
    assert!(pid > 0, "fork failed");
    children.push(pid);
    pid as u64
}

fn main() {
    let hide_runs = std::env::var("INVITE_BENCH_HIDE_RUNS").map_or(String::new(), |v| {
        if v == "true" || v == "false" {
            format!("hide_runs = {v}\n")
        } else {
            format!("hide_runs = {v:?}\n")
        }
    });
    let dir = support::start_invite(&format!(
        "default_rho = 1.0\nmax_concurrent = 8\nmax_overhead = 1.0\nchild_cpu_charge = 0.0\n\
         {hide_runs}"
    ));

    let mut state = vec![0u64; 1 << 14];
    let calibration = Instant::now();
    work(&mut state, 1_000_000, 1);
    let iterations = (STEP_US * 1e-6 / (calibration.elapsed().as_secs_f64() / 1e6)) as usize;

    let mut seconds = [0.0f64; KINDS.len()];
    let mut shootdowns = [0u64; KINDS.len()];
    let mut children = Vec::new();
    let mut acc = 0u64;
    for round in 0..ROUNDS {
        for k in 0..KINDS.len() {
            let kind = (round + k) % KINDS.len();
            let before = support::tlb_shootdowns();
            let started = Instant::now();
            for step in 0..STEPS as u64 {
                acc ^= work(&mut state, iterations, step);
                acc ^= match kind {
                    0 => std::hint::black_box(plain(step)),
                    1 => probe(step),
                    2 => probe3(step),
                    3 => bare_fork(false, &mut children),
                    _ => bare_fork(true, &mut children),
                };
            }
            seconds[kind] += started.elapsed().as_secs_f64();
            if let (Some(b), Some(a)) = (before, support::tlb_shootdowns()) {
                shootdowns[kind] += a - b;
            }
            // Settling, outside the measurement: runs finish, children are reaped.
            assert!(
                invite::wait_idle(Duration::from_secs(30)),
                "a test run did not finish"
            );
            for pid in children.drain(..) {
                // SAFETY: reaping our own child.
                unsafe { libc::waitpid(pid, std::ptr::null_mut(), 0) };
            }
        }
    }
    std::hint::black_box(acc);
    invite::shutdown();

    // Calls the budget or the concurrency cap did not sample cost next to nothing: divide by
    // the runs the log shows.
    let mut runs = [BTreeSet::new(), BTreeSet::new()];
    for line in std::fs::read_to_string(dir.path().join(support::LOG))
        .expect("log")
        .lines()
    {
        if let Ok(invite::record::Record::Test(t)) = invite::record::Record::from_line(line) {
            let site = usize::from(t.site.ends_with("probe3"));
            runs[site].insert(t.run);
        }
    }
    let calls = (ROUNDS * STEPS) as f64;
    let sampled = [
        calls,
        runs[0].len() as f64,
        runs[1].len() as f64,
        calls,
        calls,
    ];
    let tests = [0.0, 1.0, 3.0, 1.0, 1.0];
    let lost: Vec<f64> = (0..KINDS.len())
        .map(|k| (seconds[k] - seconds[0]) / sampled[k] * 1e6)
        .collect();
    println!(
        "a CPU-bound program, {STEP_US:.0} us of work a step, {:.0} MiB resident: wall-clock time \
         lost per operation, against the last row, tests per second of lost time, and TLB \
         shootdown interrupts per operation",
        invite::__private::resident_mib()
    );
    println!(
        "{:44} {:>9} {:>10} {:>9} {:>11}",
        "", "lost", "ratio", "tests/s", "shootdowns"
    );
    for k in 1..KINDS.len() {
        let note = if (1..=2).contains(&k) {
            format!("   ({:.0} of {calls:.0} calls sampled)", sampled[k])
        } else {
            String::new()
        };
        println!(
            "{:44} {:>6.1} us {:>9.2}x {:>9.0} {:>11.2}{note}",
            KINDS[k],
            lost[k],
            lost[k] / lost[4],
            tests[k] * 1e6 / lost[k],
            shootdowns[k] as f64 / sampled[k],
        );
    }
}
