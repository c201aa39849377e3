//! Criterion's view of goals 2 and 3 for a small process: the caller's time in a sampled call
//! against a bare `fork()` of the same process, side by side (`iter_custom` times only the
//! caller's part; the run is waited for, and the machine left to settle, outside the
//! measurement). Sampled calls run first: a process forks more slowly once it has had a child
//! that lived a while (about 56 µs before, 80–90 µs after, for a small process; a standalone
//! experiment shows the same without invite), and the bare fork must be of the same process. `sampled_call` covers larger
//! processes and the fork-per-GiB figures.
//!
//! ```text
//! cargo bench --bench sampled_criterion
//! ```

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};

#[invite::in_vivo(test = holds)]
fn probe(x: u64) -> u64 {
    x.wrapping_add(1)
}

fn holds(x: &u64) -> bool {
    probe(*x) == x.wrapping_add(1)
}

fn configure() {
    let dir = std::env::temp_dir().join(format!("invite-crit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let config = dir.join("invite.toml");
    std::fs::write(
        &config,
        format!(
            "default_rho = 1.0\nmax_concurrent = 1\nmax_overhead = 1.0\nlog = {:?}\n",
            dir.join("log.jsonl").display().to_string()
        ),
    )
    .expect("config");
    std::env::set_var("INVITE_CONFIG", &config);
    assert!(invite::init());
}

/// The same machine state before each measured operation, sampled call or bare fork: the
/// previous child gone and the collector asleep (as between sparse samples in a program).
fn settle() {
    std::thread::sleep(Duration::from_millis(2));
}

fn bench(c: &mut Criterion) {
    configure();
    let mut g = c.benchmark_group("caller time, small process");
    g.sample_size(20).measurement_time(Duration::from_secs(10));
    let mut i = 0u64;
    g.bench_function("sampled call", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
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
    g.bench_function("bare fork", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                settle();
                let started = Instant::now();
                // SAFETY: the child calls only _exit.
                let pid = unsafe { libc::fork() };
                if pid == 0 {
                    // SAFETY: _exit has no preconditions.
                    unsafe { libc::_exit(0) };
                }
                total += started.elapsed();
                // SAFETY: reaping our own child.
                unsafe { libc::waitpid(pid, std::ptr::null_mut(), 0) };
            }
            total
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
