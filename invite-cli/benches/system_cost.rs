//! What `invite system` costs: the caller's wall time for the original invocation with and
//! without invite, measured side by side (alternating, one run at a time, the follow-ups of
//! each invite run finished before the next measurement), and what one follow-up takes in its
//! sandbox against the same program run directly.
//!
//! ```text
//! cargo bench -p invite-mt-cli --bench system_cost
//! INVITE_BENCH_RUNS=41 cargo bench -p invite-mt-cli --bench system_cost
//! ```

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use invite::record::Record;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// The test records in the log so far.
fn records(log: &Path) -> Vec<invite::record::Test> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| match Record::from_line(l) {
            Ok(Record::Test(t)) => Some(t),
            _ => None,
        })
        .collect()
}

fn main() {
    let runs: usize = std::env::var("INVITE_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(21);
    let exe = env!("CARGO_BIN_EXE_invite");
    let dir = tempfile::tempdir().expect("temp dir");
    println!("runs per case: {runs} (medians; direct and under invite alternate)");
    println!(
        "{:<28} {:>10} {:>12} {:>10} {:>9} {:>12}",
        "program", "direct", "invite", "added", "added %", "follow-up"
    );
    for (label, rows) in [
        ("sort -n, 1k numbers", 1_000usize),
        ("sort -n, 2M numbers", 2_000_000),
    ] {
        let data: String = (0..rows)
            .map(|i| format!("{}\n", (i as u64).wrapping_mul(2_654_435_761) % 1_000_003))
            .collect();
        std::fs::write(dir.path().join("data.txt"), data).unwrap();
        std::fs::write(
            dir.path().join("spec.toml"),
            "command = [\"sort\", \"-n\", \"{input}\"]\ninput = \"data.txt\"\nformat = \"numbers\"\n\
             log = \"log.jsonl\"\nparallel = 1\n[[relation]]\nname = \"permuted\"\n\
             transform = [\"permute\"]\n",
        )
        .unwrap();
        let log = dir.path().join("log.jsonl");
        let _ = std::fs::remove_file(&log);
        let (mut direct, mut invited) = (Vec::new(), Vec::new());
        for i in 0..runs {
            let t = Instant::now();
            let ok = Command::new("sort")
                .args(["-n", "data.txt"])
                .current_dir(dir.path())
                .stdout(Stdio::null())
                .status()
                .unwrap()
                .success();
            direct.push(t.elapsed());
            assert!(ok);
            let t = Instant::now();
            let ok = Command::new(exe)
                .args(["system", "spec.toml"])
                .current_dir(dir.path())
                .env_remove("INVITE_CONFIG")
                .stdout(Stdio::null())
                .status()
                .unwrap()
                .success();
            invited.push(t.elapsed());
            assert!(ok);
            // The detached follow-up ends before the next measurement.
            while records(&log).len() <= i {
                std::thread::sleep(Duration::from_millis(2));
            }
        }
        let follow: Vec<Duration> = records(&log)
            .iter()
            .map(|t| {
                assert_eq!(t.outcome, invite::record::Outcome::Pass, "{:?}", t.detail);
                Duration::from_micros(t.duration_us)
            })
            .collect();
        let (d, v) = (median(direct), median(invited));
        let added = v.saturating_sub(d);
        println!(
            "{label:<28} {:>10.2?} {:>12.2?} {:>10.2?} {:>8.2}% {:>12.2?}",
            d,
            v,
            added,
            100.0 * added.as_secs_f64() / d.as_secs_f64(),
            median(follow)
        );
    }
    println!("follow-up: one relation's whole follow-up (input transformed and written, jail, run, compare)");
}
