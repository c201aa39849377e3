//! The overhead cap end to end: a program whose instrumented function would fork on every call
//! (ρ = 1) runs with `max_overhead = 0.02`, side by side with the same program with invite off.
//! Its wall-clock slowdown is the figure: fork time in the caller (capped by the budget) plus
//! what the budget cannot see (copy-on-write faults while children live, a busier machine).
//!
//! ```text
//! cargo bench --bench overhead_cap
//! ```
// A benchmark stands in for a program: it forks, waits and touches memory the way programs do,
// with raw system calls (each with the reason it is sound).
#![allow(unsafe_code)]

mod support;

use support::median;

use std::process::Command;
use std::time::Instant;

/// A simulation step: reads and writes a few lines of an 8 MiB state.
#[invite::in_vivo(test = step_is_deterministic)]
fn step(state: &mut [f64], at: usize) -> f64 {
    let n = state.len();
    let mut acc = 0.0;
    for k in 0..256 {
        let i = (at.wrapping_mul(2654435761).wrapping_add(k * 4099)) % n;
        state[i] = state[i] * 0.999 + (k as f64).sqrt();
        acc += state[i];
    }
    acc
}

fn step_is_deterministic(state: &mut [f64], at: &usize) -> bool {
    let mut copy = state.to_vec();
    step(state, *at) == step(&mut copy, *at)
}

const STEPS: usize = 2_000_000;
const ROUNDS: usize = 21;

fn workload() -> f64 {
    let mut state = vec![1.0f64; 1 << 20];
    let started = Instant::now();
    let mut acc = 0.0;
    for at in 0..STEPS {
        acc += step(&mut state, at);
    }
    std::hint::black_box(acc);
    started.elapsed().as_secs_f64()
}

fn main() {
    if std::env::var_os("INVITE_BENCH_PHASE").is_some() {
        println!("{}", workload());
        invite::shutdown();
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("log.jsonl");
    let config = dir.path().join("invite.toml");
    std::fs::write(
        &config,
        format!(
            "default_rho = 1.0\nmax_overhead = 0.02\nmax_concurrent = 1\nlog = {:?}\n{}\n",
            log.display().to_string(),
            std::env::var("INVITE_BENCH_EXTRA").unwrap_or_default()
        ),
    )
    .expect("config");
    let run = |on: bool| -> f64 {
        let mut cmd = Command::new(std::env::current_exe().expect("bench binary"));
        cmd.env("INVITE_BENCH_PHASE", "1");
        if on {
            cmd.env("INVITE_CONFIG", &config).env_remove("INVITE");
        } else {
            cmd.env("INVITE", "off");
        }
        let out = cmd.output().expect("run phase");
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .expect("seconds")
    };
    // Pairs run back to back, in alternating order; the slowdown is the median of the pairs'
    // ratios, which cancels the machine's slow drifts.
    let (mut off, mut on, mut ratios) = (vec![], vec![], vec![]);
    for pair in 0..ROUNDS {
        let (a, b) = if pair % 2 == 0 {
            let a = run(false);
            (a, run(true))
        } else {
            let b = run(true);
            (run(false), b)
        };
        off.push(a);
        on.push(b);
        ratios.push(b / a);
    }
    let mut sorted = ratios.clone();
    sorted.sort_by(|a, b| a.total_cmp(b));
    let (q1, q3) = (
        sorted[sorted.len() / 4] - 1.0,
        sorted[3 * sorted.len() / 4] - 1.0,
    );
    let slowdown = median(ratios) - 1.0;
    let (off, on) = (median(off), median(on));
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let mut shares = vec![];
    let mut runs = 0;
    for line in text.lines() {
        if let Ok(invite::record::Record::Stats(s)) = invite::record::Record::from_line(line) {
            if s.is_final {
                shares.push(
                    s.sites.iter().map(|x| x.overhead_share).sum::<f64>()
                        + s.cow_share
                        + s.children_share,
                );
                runs += s.sites.iter().map(|x| x.runs).sum::<u64>();
            }
        }
    }
    println!("{STEPS} steps, {ROUNDS} pairs of runs:");
    println!("  invite off:                          {off:.3} s");
    println!("  rho = 1, max_overhead = 0.02:        {on:.3} s");
    println!(
        "  wall-clock slowdown (median of pairs): {:+.2}% (middle half of pairs {:+.2}% to {:+.2}%)",
        slowdown * 100.0,
        q1 * 100.0,
        q3 * 100.0
    );
    println!(
        "  budgeted share (forks, faults, children's CPU): {:.2}% (median), {} test runs in all",
        median(shares) * 100.0,
        runs
    );
}
