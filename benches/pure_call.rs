//! What a sampled call of a `pure` site costs its caller, side by side in one process with a
//! bare `fork()`, with the same call unsampled, and with the same function forking its runs:
//!
//! 1. the caller's time per sampled call, for arguments of 8 B, 1 KiB, 64 KiB and 1 MiB;
//! 2. tests per second of caller time, and of machine time (the caller's plus the worker's
//!    CPU time), with a trivial relation;
//! 3. tests a 1% overhead cap admits per second of a 1 µs function, worker against fork.
//!
//! ```text
//! cargo bench --bench pure_call
//! ```
// A benchmark stands in for a program: it forks, waits and touches memory the way programs do,
// with raw system calls (each with the reason it is sound).
#![allow(unsafe_code)]

mod support;

use std::time::{Duration, Instant};

use invite::mr::negate;
use support::median;

const WAIT: Duration = Duration::from_secs(60);

/// The twins that are never sampled, and the one that forks.
const SITES: &str = "functions = { \"pure_call::total_off\" = { rho = 0.0 }, \
    \"pure_call::scalar_off\" = { rho = 0.0 }, \
    \"pure_call::work_forked\" = { isolation = \"fork\" }, \
    \"pure_call::scalar_forked\" = { isolation = \"fork\" } }";

#[invite::metamorphic(pure, scalar(x + 1) == result + 1)]
fn scalar(x: u64) -> u64 {
    x
}

/// The same, forking its runs (`isolation = "fork"` in the configuration).
#[invite::metamorphic(pure, scalar_forked(x + 1) == result + 1)]
fn scalar_forked(x: u64) -> u64 {
    x
}

/// The same, never sampled.
#[invite::metamorphic(pure, scalar_off(x + 1) == result + 1)]
fn scalar_off(x: u64) -> u64 {
    x
}

#[invite::metamorphic(pure, total(&negate(xs)) == -result)]
fn total(xs: &[f64]) -> f64 {
    xs.iter().sum()
}

/// The same function, never sampled (`rho = 0` in the bench's configuration).
#[invite::metamorphic(pure, total_off(&negate(xs)) == -result)]
fn total_off(xs: &[f64]) -> f64 {
    xs.iter().sum()
}

/// About a microsecond of work.
fn spin(x: u64) -> u64 {
    let mut h = x;
    for _ in 0..300 {
        h = std::hint::black_box(h.wrapping_mul(6364136223846793005).wrapping_add(1));
    }
    h
}

#[invite::metamorphic(pure, work(x) == result)]
fn work(x: u64) -> u64 {
    spin(x)
}

/// The same, forking (`isolation = "fork"` in the configuration).
#[invite::metamorphic(pure, work_forked(x) == result)]
fn work_forked(x: u64) -> u64 {
    spin(x)
}

/// CPU time of a process so far, in seconds, from its `stat` line.
fn cpu_s(pid: &str) -> f64 {
    cpu_with_children_s(pid, false)
}

/// CPU time of a process so far, in seconds, from its `stat` line, with that of its children
/// it has reaped if `reaped`.
fn cpu_with_children_s(pid: &str, reaped: bool) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let Some(after) = stat.rfind(')') else {
        return 0.0;
    };
    let fields: Vec<&str> = stat[after + 2..].split_whitespace().collect();
    // utime and stime, fields 14 and 15 of the line (12 and 13 after the name), in ticks.
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // cutime and cstime follow: the children it waited for.
    let children = if reaped { ticks(13) + ticks(14) } else { 0.0 };
    (ticks(11) + ticks(12) + children) / 100.0
}

/// CPU time of this process's reaped children so far, in seconds.
fn children_cpu_s() -> f64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is given.
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr()) };
    // SAFETY: zeroed, then filled by the kernel.
    let u = unsafe { usage.assume_init() };
    let s = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    s(u.ru_utime) + s(u.ru_stime)
}

/// CPU time of this bench's worker processes so far, with their test processes', in seconds
/// (found by name and by their executable, this one).
fn worker_cpu_s() -> f64 {
    let exe = std::fs::read_link("/proc/self/exe").expect("own executable");
    let mut total = 0.0;
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
        if comm.trim() != "invite worker" {
            continue;
        }
        if std::fs::read_link(format!("/proc/{pid}/exe")).ok().as_ref() != Some(&exe) {
            continue;
        }
        total += cpu_with_children_s(&pid.to_string(), true);
    }
    total
}

/// The caller's time per call over `n` calls of `call`, in microseconds, then waits for the
/// worker to finish them.
fn per_call_us(n: usize, mut call: impl FnMut(usize)) -> f64 {
    let started = Instant::now();
    for i in 0..n {
        call(i);
    }
    let us = started.elapsed().as_secs_f64() * 1e6 / n as f64;
    assert!(invite::wait_idle(WAIT), "the worker did not finish");
    us
}

fn tests_of(site: &str) -> u64 {
    invite::outcomes()
        .site(site)
        .map_or(0, |s| s.counts().total())
}

fn main() {
    if let Ok(phase) = std::env::var("PURE_CALL_PHASE") {
        return capped(&phase);
    }
    let _dir = support::start_invite(&format!(
        "default_rho = 1.0\nmax_concurrent = 1\nmax_overhead = 1.0\nchild_cpu_charge = 0.0\n\
         worker_ring_mib = 16\nhide_runs = \"never\"\nwhen_busy = \"wait\"\n{SITES}\n"
    ));
    // The worker starts at the first call. Then one lap of the ring, so that what is measured
    // is the steady state: a page of the ring faults once, the first time it is written.
    scalar(0);
    assert!(invite::wait_idle(WAIT));
    let lap = vec![0.0f64; 1000];
    for _ in 0..(16 << 20) / (8 << 10) + 10 {
        total(&lap);
        assert!(invite::wait_idle(WAIT));
    }

    println!("caller's time per call (median of 9 batches), against a bare fork of this process");
    println!(
        "{:>10} {:>12} {:>12} {:>12} {:>14}",
        "arguments", "unsampled", "sampled", "bare fork", "sampled/fork"
    );
    let fork = median((0..41).map(|_| support::bare_fork_us()).collect());
    let rows: [(&str, usize, usize); 4] = [
        ("8 B", 0, 2000),
        ("1 KiB", 128, 2000),
        ("64 KiB", 8 << 10, 200),
        ("1 MiB", 128 << 10, 20),
    ];
    for (label, len, n) in rows {
        let xs: Vec<f64> = (0..len).map(|i| i as f64).collect();
        let (mut on, mut off) = (Vec::new(), Vec::new());
        for _ in 0..9 {
            if len == 0 {
                on.push(per_call_us(n, |i| {
                    std::hint::black_box(scalar(i as u64));
                }));
                off.push(per_call_us(n, |i| {
                    std::hint::black_box(scalar_off(i as u64));
                }));
            } else {
                on.push(per_call_us(n, |_| {
                    std::hint::black_box(total(&xs));
                }));
                off.push(per_call_us(n, |_| {
                    std::hint::black_box(total_off(&xs));
                }));
            }
        }
        let (on, off) = (median(on), median(off));
        println!(
            "{label:>10} {off:>9.2} us {on:>9.2} us {fork:>9.1} us {:>13.4}x",
            on / fork
        );
    }

    // Throughput with a trivial relation.
    let n = 5_000;
    let (cpu_before, own_before, tests_before) =
        (worker_cpu_s(), cpu_s("self"), tests_of("pure_call::scalar"));
    let caller_s = per_call_us(n, |i| {
        std::hint::black_box(scalar(i as u64));
    }) * n as f64
        / 1e6;
    let worker_s = worker_cpu_s() - cpu_before;
    // The program's own CPU time: the callers' and the collector's, which reads the results.
    let own_s = cpu_s("self") - own_before;
    assert_eq!(
        tests_of("pure_call::scalar") - tests_before,
        n as u64,
        "every call was tested"
    );
    println!(
        "\n{n} sampled calls with a trivial relation: {:.0} tests per second of caller time; \
         {:.0} per second of machine time (the program's CPU {:.3} s, callers' and \
         collector's, + the worker's {:.3} s)",
        n as f64 / caller_s,
        n as f64 / (own_s + worker_s),
        own_s,
        worker_s
    );

    // The same relation on a twin that forks its runs, side by side.
    let nf = 1_000;
    let (own_before, children_before, tests_before) = (
        cpu_s("self"),
        children_cpu_s(),
        tests_of("pure_call::scalar_forked"),
    );
    let caller_f = per_call_us(nf, |i| {
        std::hint::black_box(scalar_forked(i as u64));
    }) * nf as f64
        / 1e6;
    let (own_f, runs_f) = (
        cpu_s("self") - own_before,
        children_cpu_s() - children_before,
    );
    assert_eq!(
        tests_of("pure_call::scalar_forked") - tests_before,
        nf as u64,
        "every forked call was tested"
    );
    println!(
        "{nf} sampled calls of the same relation, forking: {:.0} tests per second of caller \
         time; {:.0} per second of machine time (the program's CPU {:.3} s + the runs' {:.3} s)",
        nf as f64 / caller_f,
        nf as f64 / (own_f + runs_f),
        own_f,
        runs_f
    );

    // What a 1% overhead cap admits: the same 1 us function, in the worker and forking, each
    // called for two seconds in a fresh process of this bench (so that each starts with the
    // budget untouched), one after the other.
    println!("\nunder max_overhead = 0.01, a 1 us function called for 2 s:");
    let exe = std::env::current_exe().expect("own executable");
    let admitted: Vec<f64> = ["worker", "fork"]
        .iter()
        .map(|phase| {
            let out = std::process::Command::new(&exe)
                .env("PURE_CALL_PHASE", phase)
                .env_remove("INVITE_CONFIG")
                .output()
                .expect("the phase ran");
            let text = String::from_utf8_lossy(&out.stdout).to_string();
            print!("{text}");
            text.split_whitespace()
                .rev()
                .nth(3)
                .and_then(|t| t.parse().ok())
                .expect("tests per second")
        })
        .collect();
    println!(
        "  worker / fork: {:.0}x",
        admitted[0] / admitted[1].max(0.5)
    );
}

/// One phase of the cap's measure: `work` (the worker) or `work_forked` (forking).
fn capped(phase: &str) {
    let _dir = support::start_invite(&format!(
        "default_rho = 1.0\nmax_concurrent = 1\nmax_overhead = 0.01\n\
         worker_ring_mib = 16\n{SITES}\n"
    ));
    let (name, f) = if phase == "worker" {
        ("pure_call::work", work as fn(u64) -> u64)
    } else {
        ("pure_call::work_forked", work_forked as fn(u64) -> u64)
    };
    let started = Instant::now();
    let mut calls = 0u64;
    while started.elapsed() < Duration::from_secs(2) {
        std::hint::black_box(f(calls));
        calls += 1;
    }
    assert!(invite::wait_idle(WAIT));
    let tests = tests_of(name);
    println!(
        "  {name:<24} {calls:>9} calls, {tests:>7} tested: {:>8.0} tests per second",
        tests as f64 / 2.0
    );
}
