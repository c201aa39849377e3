//! Scale of `invite report`: generates a large, realistic log (several instances, many sites,
//! a few percent failures, stats records, some bad lines) and times the real `invite` binary on
//! it, printing throughput and peak memory.
//!
//! ```text
//! cargo bench --bench report_scale                     # 1 GiB
//! INVITE_BENCH_MB=200 cargo bench --bench report_scale
//! ```

use std::io::{BufWriter, Write};
use std::process::{Command, Stdio};
use std::time::Instant;

use invite::record::{Outcome, OutcomeCounts, Record, Seeds, SiteStats, SkipCounts, Stats, Test};

fn main() {
    let mb: u64 = std::env::var("INVITE_BENCH_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1024);
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("fleet.jsonl");
    let started = Instant::now();
    let written = generate(&path, mb << 20);
    println!(
        "generated {:.0} MiB of log in {:.1?} ({})",
        written as f64 / (1 << 20) as f64,
        started.elapsed(),
        path.display()
    );

    for format in ["text", "json"] {
        let exe = env!("CARGO_BIN_EXE_invite");
        let started = Instant::now();
        let mut child = Command::new(exe)
            .args(["report", "--format", format, "--target-overhead", "0.01"])
            .arg(&path)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("run invite");
        let pid = child.id() as libc::pid_t;
        let peak_mib = invite_sandbox::usage::wait_child(pid).map_or(f64::NAN, |e| e.peak_mib);
        let _ = child.try_wait();
        let secs = started.elapsed().as_secs_f64();
        let mib = written as f64 / (1 << 20) as f64;
        println!(
            "invite report --format {format}: {secs:.2} s, {:.0} MiB/s, peak memory {:.1} MiB",
            mib / secs,
            peak_mib
        );
    }
}

fn generate(path: &std::path::Path, bytes: u64) -> u64 {
    let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(path).expect("create"));
    let sites: Vec<String> = (0..24)
        .map(|i| format!("fleet::module{}::function_{i}", i % 5))
        .collect();
    let tests = [
        "f(&permute(xs)) == result",
        "f(&multiply(xs, 2.0)) == result * 2.0",
        "f(&add(xs, 1.5)) == result",
        "Self::in_vivo_check",
    ];
    let inputs: String = (0..40).map(|i| format!("{}.{}, ", i * 7 % 13, i)).collect();
    let mut written = 0u64;
    let mut line = 0u64;
    let mut rng = 0x2545F4914F6CDD1Du64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    while written < bytes {
        line += 1;
        let pid = 1000 + (line % 8) as u32;
        let text = if line.is_multiple_of(5000) {
            let sites = sites
                .iter()
                .map(|s| SiteStats {
                    site: s.clone(),
                    rho: 0.1,
                    calls: line * 10,
                    sampled: line / 10,
                    skipped: SkipCounts {
                        concurrency: line / 100,
                        overhead: line / 50,
                        ..Default::default()
                    },
                    runs: line / 40,
                    tests: line / 10,
                    outcomes: OutcomeCounts {
                        pass: line / 10,
                        ..Default::default()
                    },
                    mean_test_us: 40.0,
                    mean_parent_us: 60.0,
                    wait_us: 0,
                    mean_wait_us: 0.0,
                    tests_per_sec: 100.0,
                    overhead_share: 0.004,
                    run_share: 0.0,
                })
                .collect();
            Record::Stats(Stats {
                v: 1,
                time: time(line),
                host: "node-a".into(),
                pid,
                instance: format!("node-a-{pid}"),
                service: "bench".into(),
                version: "1.0.0".into(),
                elapsed_s: line as f64 / 1000.0,
                is_final: false,
                sites,
                cow_faults: 0,
                cow_share: 0.0,
                children_share: 0.0,
                resident_mib: 0.0,
                log_errors: 0,
                log_lost: 0,
            })
            .to_line()
        } else if line.is_multiple_of(100_003) {
            "{\"kind\":\"test\",\"v\":1,\"site\":\"trunc".to_string()
        } else {
            let r = next();
            let outcome = match r % 100 {
                0..=93 => Outcome::Pass,
                94..=96 => Outcome::Fail,
                97 => Outcome::Error,
                98 => Outcome::Skipped,
                _ => Outcome::Inconclusive,
            };
            let mut map = std::collections::BTreeMap::new();
            map.insert("xs".to_string(), format!("[{inputs}]"));
            map.insert("k".to_string(), (r % 1000).to_string());
            Record::Test(Test {
                v: 1,
                time: time(line),
                host: "node-a".into(),
                pid,
                instance: format!("node-a-{pid}"),
                service: "bench".into(),
                version: "1.0.0".into(),
                site: sites[(r >> 8) as usize % sites.len()].clone(),
                test: tests[(r >> 16) as usize % tests.len()].to_string(),
                run: line / 4,
                outcome,
                parent_us: 40 + r % 80,
                duration_us: 20 + (r >> 20) % 400,
                inputs: map,
                exact: Default::default(),
                detail: Some(format!(
                    "left: {}.25, right: {}.5 (== with tolerance 1e-6)",
                    r % 97,
                    r % 89
                )),
                seeds: Seeds {
                    rng_seed: format!("{:064x}", r),
                    rng_stream: 0,
                    rng_word_pos: r % 4096,
                    test_seed: r,
                },
            })
            .to_line()
        };
        out.write_all(text.as_bytes()).expect("write");
        out.write_all(b"\n").expect("write");
        written += text.len() as u64 + 1;
    }
    out.flush().expect("flush");
    written
}

fn time(line: u64) -> String {
    let secs = line / 2000;
    format!(
        "2026-11-22T{:02}:{:02}:{:02}.000000Z",
        (secs / 3600) % 24,
        (secs / 60) % 60,
        secs % 60
    )
}
