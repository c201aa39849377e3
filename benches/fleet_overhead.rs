//! Overhead per instance against the size of the fleet, at a fixed community test rate: the
//! `fleet` example run as one member of fleets of 1, 2, 4 and 8 (`INVITE_SHARD=K/N`, K taking
//! every member in turn), with invite off beside them, interleaved and repeated in one run.
//! Every member tests its share of the (function, relation) pairs at the same ρ, so the fleet
//! tests as much as a lone instance, whatever its size; each member should carry 1/N of it.
//!
//! Printed per fleet size: runs and caller time per round of the workload (every function
//! called once), and the workload's speed against invite off.
//!
//! ```text
//! cargo bench --bench fleet_overhead
//! INVITE_BENCH_SECONDS=4 cargo bench --bench fleet_overhead   # longer runs
//! ```
// A benchmark stands in for a program: it forks, waits and touches memory the way programs do,
// with raw system calls (each with the reason it is sound).
#![allow(unsafe_code)]

mod support;

use support::median;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const SIZES: [u64; 4] = [1, 2, 4, 8];

fn example() -> PathBuf {
    let status = Command::new(env!("CARGO"))
        .args(["build", "--release", "--example", "fleet"])
        .status()
        .expect("cargo runs");
    assert!(status.success(), "the fleet example builds");
    let exe = std::env::current_exe().unwrap();
    exe.parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("examples")
        .join("fleet")
}

struct Sample {
    rounds: u64,
    runs: u64,
    caller_us: f64,
    secs: f64,
}

/// One run of the example for `seconds`: as member `member` of `size`, or with invite off.
fn run(exe: &Path, dir: &Path, shard: Option<(u64, u64)>, seconds: u64) -> Sample {
    let log = dir.join("log.jsonl");
    let _ = std::fs::remove_file(&log);
    let config = dir.join("invite.toml");
    std::fs::write(
        &config,
        format!(
            "default_rho = 0.001\nmax_overhead = 1.0\nmax_concurrent = 2\nchild_cpu_charge = 0.0\n\
             when_busy = \"wait\"\n\
             fleet = {{ size = 1, member = 0, rotate = \"1s\" }}\nlog = {:?}\n",
            log.display().to_string()
        ),
    )
    .unwrap();
    let mut cmd = Command::new(exe);
    cmd.env("INVITE_CONFIG", &config)
        .env("FLEET_SECONDS", seconds.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    match shard {
        Some((k, n)) => cmd.env("INVITE_SHARD", format!("{k}/{n}")),
        None => cmd.env("INVITE", "off"),
    };
    let started = std::time::Instant::now();
    let mut child = cmd.spawn().expect("the example runs");
    // Held open: the example stops when its standard input ends; here it runs its seconds.
    let stdin = child.stdin.take();
    let mut text = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut text).unwrap();
    child.wait().unwrap();
    drop(stdin);
    let secs = started.elapsed().as_secs_f64();
    let rounds = text
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .expect("the example says its rounds");
    let stats = std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .rev()
        .find_map(|l| match invite::record::Record::from_line(l) {
            Ok(invite::record::Record::Stats(s)) => Some(s),
            _ => None,
        });
    let (runs, caller_us) = stats.map_or((0, 0.0), |s| {
        (
            s.sites.iter().map(|x| x.runs).sum(),
            s.sites
                .iter()
                .map(|x| x.runs as f64 * x.mean_parent_us)
                .sum(),
        )
    });
    Sample {
        rounds,
        runs,
        caller_us,
        secs,
    }
}

fn main() {
    let seconds: u64 = std::env::var("INVITE_BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    let exe = example();
    let dir = tempfile::tempdir().unwrap();
    let repeats = 8;
    let mut off = Vec::new();
    let mut by_size: Vec<Vec<Sample>> = SIZES.iter().map(|_| Vec::new()).collect();
    for r in 0..repeats {
        off.push(run(&exe, dir.path(), None, seconds));
        for (i, &n) in SIZES.iter().enumerate() {
            by_size[i].push(run(&exe, dir.path(), Some((r % n, n)), seconds));
        }
    }
    let speed = |s: &Sample| s.rounds as f64 / s.secs;
    let off_speed = median(off.iter().map(speed).collect());
    println!("invite off: {off_speed:.0} rounds/s");
    println!("| fleet size | runs per 1000 rounds | caller µs per 1000 rounds | against size 1 | rounds/s against off |");
    println!("| --- | --- | --- | --- | --- |");
    let mut first = None;
    for (i, &n) in SIZES.iter().enumerate() {
        let samples = &by_size[i];
        let runs = samples.iter().map(|s| s.runs).sum::<u64>() as f64
            / samples.iter().map(|s| s.rounds).sum::<u64>() as f64
            * 1000.0;
        let caller = samples.iter().map(|s| s.caller_us).sum::<f64>()
            / samples.iter().map(|s| s.rounds).sum::<u64>() as f64
            * 1000.0;
        let base = *first.get_or_insert(caller);
        let speed = median(samples.iter().map(speed).collect()) / off_speed;
        println!(
            "| {n} | {runs:.2} | {caller:.0} | {:.3} (1/N = {:.3}) | {speed:.3} |",
            caller / base,
            1.0 / n as f64
        );
    }
}
