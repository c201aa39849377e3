//! Criterion's view of goals 2 and 3 for a small process: the caller's time in a sampled call
//! against a bare `fork()` of the same process in the same state (`iter_custom` times only the
//! caller's part; the run is waited for, and the machine left to settle, outside the
//! measurement).
//!
//! The state matters: a fork costs about twice as much when the previous child ran and exited
//! on another CPU, as a run's child does (invite keeps tests off the caller's CPU), than when it
//! exited at once on the caller's CPU. So each measured sampled call and each measured bare fork
//! follows an unmeasured sampled call; the cheaper bare fork, after a bare fork, is measured
//! too, for comparison. `sampled_call` covers larger processes and the fork-per-GiB figures.
//!
//! ```text
//! cargo bench --bench sampled_criterion
//! ```
// A benchmark stands in for a program: it forks, waits and touches memory the way programs do,
// with raw system calls (each with the reason it is sound).
#![allow(unsafe_code)]

mod probes;
mod support;

use probes::probe;

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};

/// The same machine state before each measured operation: the previous child gone and the
/// collector asleep (as between sparse samples in a program).
fn settle() {
    std::thread::sleep(Duration::from_millis(2));
}

/// One unmeasured sampled call, waited for: the state a sampling program is in.
fn after_a_run(i: &mut u64) {
    *i += 1;
    settle();
    std::hint::black_box(probe(*i));
    assert!(invite::wait_idle(Duration::from_secs(30)));
}

/// A bare fork whose child leaves at once: the parent's time, after settling.
fn bare_fork() -> Duration {
    settle();
    support::bare_fork()
}

fn bench(c: &mut Criterion) {
    let _dir = support::start_invite("default_rho = 1.0\nmax_concurrent = 1\nmax_overhead = 1.0\n");
    let mut g = c.benchmark_group("caller time, small process");
    g.sample_size(20).measurement_time(Duration::from_secs(10));
    let mut i = 0u64;
    g.bench_function("sampled call", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                after_a_run(&mut i);
                i += 1;
                settle();
                let started = Instant::now();
                std::hint::black_box(probe(std::hint::black_box(i)));
                total += started.elapsed();
                assert!(invite::wait_idle(Duration::from_secs(30)));
            }
            total
        })
    });
    g.bench_function("bare fork after a sampled call", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                after_a_run(&mut i);
                total += bare_fork();
            }
            total
        })
    });
    g.bench_function("bare fork after a bare fork", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                bare_fork();
                total += bare_fork();
            }
            total
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
