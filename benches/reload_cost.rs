//! What following the configuration file costs the program's calls: the unsampled call (at
//! ρ = 0, and at a small ρ on its countdown path) while the file is rewritten and applied 100
//! times a second, side by side with the same calls while it is left alone. A reload re-arms
//! every site, so each thread redraws its countdown once after each: the difference is that.
//! Also how long a change of the file takes to be applied (from the rename to the `config`
//! record's time).
//!
//! ```text
//! cargo bench --bench reload_cost
//! ```
// A benchmark stands in for a program: it forks, waits and touches memory the way programs do,
// with raw system calls (each with the reason it is sound).
#![allow(unsafe_code)]

mod support;

use support::median;

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

#[inline(never)]
#[invite::in_vivo(test = same)]
fn at_rho_zero(x: u64) -> u64 {
    x.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17) ^ 0x55
}

#[inline(never)]
#[invite::in_vivo(test = same)]
fn at_rho_small(x: u64) -> u64 {
    x.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17) ^ 0x55
}

fn same(_: &u64) -> bool {
    true
}

/// The configuration: `at_rho_small` at ρ = 10⁻⁶ (its rare sampled calls refused by a zero
/// overhead budget, so no fork disturbs the measurement); `max_concurrent` is what alternates.
fn config(dir: &Path, max_concurrent: u64) -> String {
    format!(
        "log = {:?}\nmax_overhead = 0.0\nmax_concurrent = {max_concurrent}\n\
         [functions.\"reload_cost::at_rho_small\"]\nrho = 0.000001\n",
        dir.join("log.jsonl").display().to_string()
    )
}

fn replace(path: &Path, text: &str) {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

/// Nanoseconds per call of `f` over `n` calls.
fn per_call(f: fn(u64) -> u64, n: u64) -> f64 {
    let started = Instant::now();
    let mut acc = 0u64;
    for i in 0..n {
        acc = acc.wrapping_add(f(black_box(i)));
    }
    black_box(acc);
    started.elapsed().as_nanos() as f64 / n as f64
}

/// Rewrites the file every 10 ms while `on`, alternating two values of `max_concurrent`.
fn rewriter(path: PathBuf, dir: PathBuf, on: Arc<AtomicBool>, stop: Arc<AtomicBool>) {
    let mut k = 0;
    while !stop.load(Ordering::Relaxed) {
        if on.load(Ordering::Relaxed) {
            k += 1;
            replace(&path, &config(&dir, 1 + k % 2));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn config_records(dir: &Path) -> Vec<invite::record::ConfigChange> {
    std::fs::read_to_string(dir.join("log.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| match invite::record::Record::from_line(l) {
            Ok(invite::record::Record::Config(c)) => Some(c),
            _ => None,
        })
        .collect()
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("invite.toml");
    std::fs::write(&path, config(dir.path(), 1)).unwrap();
    std::env::set_var("INVITE_CONFIG", &path);
    assert!(invite::init(), "invite starts");

    // How long a change takes to be applied, twenty times.
    let mut latencies = Vec::new();
    for k in 0..20u64 {
        let before = config_records(dir.path()).len();
        let changed_at = SystemTime::now();
        replace(&path, &config(dir.path(), 2 + k % 2));
        let applied = loop {
            let records = config_records(dir.path());
            if records.len() > before {
                break records[before].clone();
            }
            std::thread::sleep(Duration::from_millis(1));
        };
        let at = humantime::parse_rfc3339(&applied.time).unwrap();
        latencies.push(
            at.duration_since(changed_at)
                .unwrap_or_default()
                .as_secs_f64()
                * 1e3,
        );
    }
    latencies.sort_by(f64::total_cmp);
    println!(
        "a changed file applied after: median {:.1} ms, slowest {:.1} ms (20 changes)",
        latencies[10], latencies[19]
    );

    let on = Arc::new(AtomicBool::new(false));
    let stop = Arc::new(AtomicBool::new(false));
    let thread = {
        let (path, dir, on, stop) = (
            path.clone(),
            dir.path().to_path_buf(),
            Arc::clone(&on),
            Arc::clone(&stop),
        );
        std::thread::spawn(move || rewriter(path, dir, on, stop))
    };
    let n = 100_000_000;
    let (mut quiet, mut reloading) = ([Vec::new(), Vec::new()], [Vec::new(), Vec::new()]);
    let applied_before = config_records(dir.path()).len();
    for _ in 0..9 {
        for (i, f) in [at_rho_zero as fn(u64) -> u64, at_rho_small]
            .iter()
            .enumerate()
        {
            on.store(false, Ordering::Relaxed);
            quiet[i].push(per_call(*f, n));
            on.store(true, Ordering::Relaxed);
            reloading[i].push(per_call(*f, n));
        }
    }
    stop.store(true, Ordering::Relaxed);
    thread.join().unwrap();
    let applied = config_records(dir.path()).len() - applied_before;
    println!("{applied} reloads applied during the reloading blocks");
    println!("| call | file left alone | file applied 100×/s | ratio |");
    println!("| --- | --- | --- | --- |");
    for (i, name) in ["unsampled, ρ = 0", "unsampled, ρ = 10⁻⁶ (countdown)"]
        .iter()
        .enumerate()
    {
        let (q, r) = (median(quiet[i].clone()), median(reloading[i].clone()));
        println!("| {name} | {q:.3} ns | {r:.3} ns | {:.3} |", r / q);
    }
    invite::shutdown();
}
