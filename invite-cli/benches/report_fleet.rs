//! Scale of `invite report` on a fleet: generates the logs of 1,000 instances spread over many
//! files (most compressed, gzip and zstd, some plain, as pipelines leave them), then runs the
//! real `invite` binary on their directory with one thread and with one per core, alternating,
//! and prints the time, the child's CPU time and peak memory (its rusage) and the speed-up side
//! by side: on a machine whose cores are busy with other work, CPU time over wall time says
//! how many cores the report got. The outputs of every run are compared: they must be identical.
//!
//! ```text
//! cargo bench -p invite-mt-cli --bench report_fleet                  # 256 MiB of records
//! INVITE_BENCH_MB=10240 cargo bench -p invite-mt-cli --bench report_fleet   # 10 GiB
//! ```
//!
//! `INVITE_BENCH_MB` is the size of the records before compression; `INVITE_BENCH_INSTANCES`
//! (1000), `INVITE_BENCH_FILES` (200), `INVITE_BENCH_ROUNDS` (2) and `INVITE_BENCH_THREADS`
//! (one per core) change the rest. The data goes to a temporary directory (or
//! `INVITE_BENCH_DIR`) and is removed afterwards, unless `INVITE_BENCH_KEEP` is set (to profile
//! the report on it).

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use invite::record::{
    Instance, Outcome, OutcomeCounts, Record, Seeds, SiteInfo, SiteStats, SkipCounts, Start, Stats,
    Stop, Test,
};

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let mb = env("INVITE_BENCH_MB", 256);
    let instances = env("INVITE_BENCH_INSTANCES", 1000).max(1);
    let files = env("INVITE_BENCH_FILES", 200).clamp(1, instances);
    let rounds = env("INVITE_BENCH_ROUNDS", 2).max(1);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u64);
    let threads = env("INVITE_BENCH_THREADS", cores).max(1);
    let base = std::env::var_os("INVITE_BENCH_DIR").map(PathBuf::from);
    let dir = match &base {
        Some(b) => tempfile::tempdir_in(b),
        None => tempfile::tempdir(),
    }
    .expect("a temporary directory");

    let started = Instant::now();
    let (records, on_disk) = generate(dir.path(), mb << 20, instances, files);
    println!(
        "generated {:.0} MiB of records ({:.0} MiB on disk) of {instances} instances in {files} \
         files in {:.1?}",
        records as f64 / (1 << 20) as f64,
        on_disk as f64 / (1 << 20) as f64,
        started.elapsed()
    );

    // Per thread count: the seconds, peak MiB and CPU seconds of each run.
    type Runs = (u64, Vec<f64>, Vec<f64>, Vec<f64>);
    let mut times: Vec<Runs> = [1, threads]
        .iter()
        .map(|&t| (t, Vec::new(), Vec::new(), Vec::new()))
        .collect();
    times.dedup_by_key(|t| t.0);
    let mut first_output: Option<Vec<u8>> = None;
    for round in 0..rounds {
        // Alternating, each round in the other order: neither count always runs first.
        let order: Vec<usize> = if round % 2 == 0 {
            (0..times.len()).collect()
        } else {
            (0..times.len()).rev().collect()
        };
        for i in order {
            let (secs, cpu, peak_mib, output) = run(dir.path(), times[i].0);
            match &first_output {
                None => first_output = Some(output),
                Some(first) => assert!(
                    *first == output,
                    "--threads {} wrote another report",
                    times[i].0
                ),
            }
            times[i].1.push(secs);
            times[i].2.push(peak_mib);
            times[i].3.push(cpu);
            println!(
                "  round {round}: --threads {}: {secs:.2} s, {cpu:.2} s of CPU, peak memory \
                 {peak_mib:.1} MiB",
                times[i].0
            );
        }
    }
    if std::env::var_os("INVITE_BENCH_KEEP").is_some() {
        println!("kept the logs in {}", dir.keep().display());
    }
    let median = |v: &[f64]| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let one = median(&times[0].1);
    let mib = records as f64 / (1 << 20) as f64;
    println!("\nthreads  seconds  CPU s  MiB/s (records)  peak MiB  speed-up  (medians)");
    for (t, secs, peaks, cpu) in &times {
        let s = median(secs);
        println!(
            "{t:>7}  {s:>7.2}  {:>5.1}  {:>15.0}  {:>8.1}  {:>7.2}×",
            median(cpu),
            mib / s,
            peaks.iter().copied().fold(0.0, f64::max),
            one / s
        );
    }
}

/// Runs `invite report --format json --threads N` on the directory: seconds, the child's CPU
/// seconds and peak resident memory in MiB, and what it wrote.
fn run(dir: &Path, threads: u64) -> (f64, f64, f64, Vec<u8>) {
    let out = tempfile::tempfile().expect("a file for the output");
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_invite"))
        .args([
            "report",
            "--format",
            "json",
            "--target-tests-per-min",
            "600",
        ])
        .arg("--threads")
        .arg(threads.to_string())
        .arg(dir)
        .stdout(out.try_clone().expect("the output file"))
        .stderr(Stdio::null())
        .spawn()
        .expect("run invite");
    let pid = child.id() as libc::pid_t;
    let waited = invite_sandbox::usage::wait_child(pid);
    let secs = started.elapsed().as_secs_f64();
    let _ = child.try_wait();
    let ended = waited.expect("invite report is a child of this process");
    assert!(
        ended.status.success(),
        "invite report failed: {}",
        ended.status
    );
    let mut out = out;
    use std::io::{Read, Seek};
    out.rewind().expect("rewind");
    let mut written = Vec::new();
    out.read_to_end(&mut written).expect("read the report");
    (secs, ended.cpu_ns as f64 / 1e9, ended.peak_mib, written)
}

/// Writes the logs: file `f` holds the instances `i` with `i % files == f`, their records
/// interleaved as one shipper would collect them; 45% of the files gzip, 45% zstd, the rest
/// plain. Returns the bytes of records and the bytes on disk.
fn generate(dir: &Path, bytes: u64, instances: u64, files: u64) -> (u64, u64) {
    let next = AtomicUsize::new(0);
    let per_file = bytes / files;
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let totals: Vec<(u64, u64)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                let next = &next;
                s.spawn(move || {
                    let (mut records, mut disk) = (0, 0);
                    loop {
                        let f = next.fetch_add(1, Ordering::Relaxed) as u64;
                        if f >= files {
                            return (records, disk);
                        }
                        let (r, d) = write_file(dir, f, files, instances, per_file);
                        records += r;
                        disk += d;
                    }
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    totals.iter().fold((0, 0), |(a, b), (r, d)| (a + r, b + d))
}

const SITES: usize = 24;
const TESTS: [&str; 4] = [
    "f(&permute(xs)) == result",
    "f(&multiply(xs, 2.0)) == result * 2.0",
    "f(&add(xs, 1.5)) == result",
    "Self::in_vivo_check",
];

fn site(i: usize) -> String {
    format!("fleet::module{}::function_{i}", i % 5)
}

/// One file's records, `bytes` of them; returns those bytes and the file's size.
fn write_file(dir: &Path, f: u64, files: u64, instances: u64, bytes: u64) -> (u64, u64) {
    let (name, kind) = match f % 20 {
        0..=8 => (format!("node-{f:04}/invite.jsonl.gz"), 1),
        9..=17 => (format!("node-{f:04}/invite.jsonl.zst"), 2),
        _ => (format!("node-{f:04}/invite.jsonl"), 0),
    };
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).expect("mkdir");
    let file = std::fs::File::create(&path).expect("create");
    let mut sink: Box<dyn Write> = match kind {
        1 => Box::new(flate2::write::GzEncoder::new(
            BufWriter::with_capacity(1 << 20, file),
            flate2::Compression::fast(),
        )),
        2 => Box::new(
            zstd::Encoder::new(BufWriter::with_capacity(1 << 20, file), 1)
                .expect("zstd")
                .auto_finish(),
        ),
        _ => Box::new(BufWriter::with_capacity(1 << 20, file)),
    };
    let members: Vec<u64> = (f..instances).step_by(files as usize).collect();
    let written = std::cell::Cell::new(0u64);
    let mut emit = |line: String| {
        sink.write_all(line.as_bytes()).expect("write");
        sink.write_all(b"\n").expect("write");
        written.set(written.get() + line.len() as u64 + 1);
    };
    for &m in &members {
        emit(start(m));
    }
    let inputs: String = (0..40).map(|i| format!("{}.{}, ", i * 7 % 13, i)).collect();
    let mut rng = 0x2545F4914F6CDD1Du64 ^ (f + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut line = 0u64;
    while written.get() < bytes {
        line += 1;
        let m = members[(line % members.len() as u64) as usize];
        let r = next();
        if line.is_multiple_of(5000) {
            emit(stats(m, line));
            continue;
        }
        if line.is_multiple_of(100_003) {
            emit("{\"kind\":\"test\",\"v\":1,\"site\":\"trunc".to_string());
            continue;
        }
        emit(test(m, line, r, &inputs));
    }
    for &m in &members {
        emit(stats(m, line));
        emit(stop(m, line));
    }
    drop(sink);
    (
        written.get(),
        std::fs::metadata(&path).map_or(0, |m| m.len()),
    )
}

fn id(m: u64) -> String {
    format!("checkout-{m:04}")
}

fn version(m: u64) -> &'static str {
    ["1.4.0", "1.4.1", "1.5.0"][(m % 3) as usize]
}

fn time(line: u64) -> String {
    let secs = line / 200;
    format!(
        "2026-11-22T{:02}:{:02}:{:02}.{:06}Z",
        (secs / 3600) % 24,
        (secs / 60) % 60,
        secs % 60,
        line % 1_000_000
    )
}

fn start(m: u64) -> String {
    Record::Start(Start {
        v: 1,
        time: time(0),
        instance: Instance {
            host: format!("node-{m:04}"),
            pid: 1,
            exe: "/srv/checkout".into(),
            id: id(m),
            service: "checkout".into(),
            version: version(m).into(),
        },
        config_file: "invite.toml".into(),
        config: serde_json::json!({"default_rho": 0.01}),
        sites: (0..SITES)
            .map(|i| SiteInfo {
                name: site(i),
                file: "src/lib.rs".into(),
                line: 10 + i as u32,
                rho: 0.01,
                tests: TESTS.iter().map(|t| t.to_string()).collect(),
                params: None,
                path: None,
            })
            .collect(),
        shard: None,
    })
    .to_line()
}

fn test(m: u64, line: u64, r: u64, inputs: &str) -> String {
    let outcome = match r % 1000 {
        0..=969 => Outcome::Pass,
        970..=984 => Outcome::Fail,
        985..=989 => Outcome::Error,
        990..=994 => Outcome::Skipped,
        _ => Outcome::Inconclusive,
    };
    let mut map = std::collections::BTreeMap::new();
    map.insert("xs".to_string(), format!("[{inputs}]"));
    map.insert("k".to_string(), (r % 1000).to_string());
    Record::Test(Test {
        v: 1,
        time: time(line),
        host: format!("node-{m:04}"),
        pid: 1,
        instance: id(m),
        service: "checkout".into(),
        version: version(m).into(),
        site: site((r >> 8) as usize % SITES),
        test: TESTS[(r >> 16) as usize % TESTS.len()].to_string(),
        run: line / 4,
        outcome,
        parent_us: 40 + r % 80,
        duration_us: 20 + (r >> 20) % 400,
        inputs: map,
        exact: Default::default(),
        detail: (outcome != Outcome::Pass).then(|| {
            format!(
                "left: {}.25, right: {}.5 (== with tolerance 1e-6)",
                r % 97,
                r % 89
            )
        }),
        seeds: Seeds {
            rng_seed: format!("{r:064x}"),
            rng_stream: 0,
            rng_word_pos: r % 4096,
            test_seed: r,
        },
    })
    .to_line()
}

fn stats(m: u64, line: u64) -> String {
    Record::Stats(Stats {
        v: 1,
        time: time(line),
        host: format!("node-{m:04}"),
        pid: 1,
        instance: id(m),
        service: "checkout".into(),
        version: version(m).into(),
        elapsed_s: line as f64 / 200.0,
        is_final: false,
        sites: (0..SITES)
            .map(|i| SiteStats {
                site: site(i),
                rho: 0.01,
                calls: line * 10,
                sampled: line / 10,
                skipped: SkipCounts::default(),
                runs: line / 40,
                tests: line / 10,
                outcomes: OutcomeCounts::default(),
                mean_test_us: 40.0,
                mean_parent_us: 60.0,
                wait_us: 0,
                mean_wait_us: 0.0,
                tests_per_sec: 100.0,
                overhead_share: 0.004,
                run_share: 0.0,
            })
            .collect(),
        cow_faults: 0,
        cow_share: 0.0,
        children_share: 0.0,
        resident_mib: 0.0,
        log_errors: 0,
        log_lost: 0,
    })
    .to_line()
}

fn stop(m: u64, line: u64) -> String {
    Record::Stop(Stop {
        v: 1,
        time: time(line + 1),
        host: format!("node-{m:04}"),
        pid: 1,
        instance: id(m),
        service: "checkout".into(),
        version: version(m).into(),
        drained: 0,
        killed: 0,
    })
    .to_line()
}
