//! The `metrics` feature against a real Prometheus: three members of a fleet
//! (`examples/fleet.rs`, sharded `K/3`) serve their metrics, Prometheus scrapes them every
//! second, and once the members have stopped, what Prometheus holds equals what their logs say:
//! the tests by outcome, the sampled and skipped calls, the durations' count.
//!
//! It needs Debian's `prometheus` (`/usr/bin/prometheus`): without it the test says so and
//! passes, except under CI (`CI` set), where it fails. The fleet member is this package's
//! example, which `cargo test --all-features` builds beside this test. Run alone
//! (`--test prometheus`), the test takes the example as last built, and builds it only where
//! there is none with the feature: after a change, `cargo build --example fleet --features
//! metrics` first.
//!
//! A binary of its own: it runs no scenario, only other programs.
#![cfg(all(feature = "metrics", not(invite_portable)))]

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use invite::record::Record;

const PROMETHEUS: &str = "/usr/bin/prometheus";

/// Members of the fleet, and the test records each logs before the workloads stop.
const MEMBERS: usize = 3;
const TESTS_EACH: usize = 40;

/// How long any one wait may last: generous, as three members, Prometheus and other builds
/// share two CPUs, and a wait ends as soon as its condition holds.
const PATIENCE: Duration = Duration::from_secs(180);

/// How long Prometheus may take to show the final totals: a few of its one-second scrapes.
const SCRAPES: Duration = Duration::from_secs(60);

/// Everything this test started, stopped whatever happens: each process is killed and reaped
/// when this is dropped (on a panic too), and the directory is removed, or kept and named when
/// the test failed.
struct Fleet {
    dir: Option<tempfile::TempDir>,
    /// Each member's directory, metrics address and process.
    members: Vec<Member>,
    prometheus: Option<(SocketAddr, Child)>,
}

struct Member {
    dir: PathBuf,
    addr: SocketAddr,
    child: Child,
}

impl Drop for Fleet {
    fn drop(&mut self) {
        let children = self
            .members
            .iter_mut()
            .map(|m| &mut m.child)
            .chain(self.prometheus.as_mut().map(|(_, c)| c));
        for child in children {
            let _ = child.kill();
            let _ = child.wait();
        }
        if std::thread::panicking() {
            if let Some(dir) = self.dir.take() {
                eprintln!("files kept for inspection: {}", dir.keep().display());
            }
        }
    }
}

impl Member {
    fn log(&self) -> Vec<Record> {
        records(&self.dir.join("log.jsonl"))
    }
}

impl Fleet {
    fn dir(&self) -> &Path {
        self.dir
            .as_ref()
            .expect("the directory is kept until the end")
            .path()
    }

    /// Fails at once if a process ended before its time, with what it said.
    fn check_running(&mut self) -> Result<(), String> {
        for (k, m) in self.members.iter_mut().enumerate() {
            if let Ok(Some(status)) = m.child.try_wait() {
                return Err(format!(
                    "member {k} ended early ({status}); stderr:\n{}",
                    tail(&m.dir.join("stderr"))
                ));
            }
        }
        if let Some((_, p)) = &mut self.prometheus {
            if let Ok(Some(status)) = p.try_wait() {
                return Err(format!(
                    "prometheus ended early ({status}); stderr:\n{}",
                    tail(&self.dir().join("prometheus.stderr"))
                ));
            }
        }
        Ok(())
    }

    /// What each process said on stderr, and Prometheus' view of its targets: for a failure.
    fn describe(&self) -> String {
        let mut out = String::new();
        for (k, m) in self.members.iter().enumerate() {
            out += &format!(
                "member {k} ({}) stderr:\n{}\n",
                m.addr,
                tail(&m.dir.join("stderr"))
            );
        }
        if let Some((addr, _)) = &self.prometheus {
            out += &format!(
                "prometheus stderr:\n{}\nprometheus targets: {}\n",
                tail(&self.dir().join("prometheus.stderr")),
                get(*addr, "/api/v1/targets")
                    .map(|(_, body)| body)
                    .unwrap_or_else(|e| e)
            );
        }
        out
    }

    /// Polls `cond` until it holds; past `limit`, or when a process ended early, the test fails
    /// with `cond`'s last word and [`Fleet::describe`].
    fn wait_for(
        &mut self,
        what: &str,
        limit: Duration,
        mut cond: impl FnMut(&mut Fleet) -> Result<(), String>,
    ) {
        let started = Instant::now();
        loop {
            let last = match self.check_running() {
                Ok(()) => match cond(self) {
                    Ok(()) => return,
                    Err(e) => e,
                },
                Err(e) => panic!("while waiting for {what}: {e}\n{}", self.describe()),
            };
            if started.elapsed() > limit {
                panic!(
                    "{what}: not so after {limit:?}: {last}\n{}",
                    self.describe()
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// The log's complete lines as records (a line being written is left for the next look).
fn records(log: &Path) -> Vec<Record> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let complete = text.rfind('\n').map_or("", |end| &text[..=end]);
    complete
        .lines()
        .map(|l| Record::from_line(l).unwrap_or_else(|e| panic!("bad log line {l:?}: {e}")))
        .collect()
}

/// The last lines of a file, for a failure's message.
fn tail(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(20)..].join("\n")
}

/// A loopback port free now (a process started right after binds it).
fn free_port() -> SocketAddr {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
}

/// `GET path` over HTTP/1.0: the status code and the body.
fn get(addr: SocketAddr, path: &str) -> Result<(u16, String), String> {
    let fail = |e: std::io::Error| format!("GET http://{addr}{path}: {e}");
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(5)).map_err(fail)?;
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .map_err(fail)?;
    write!(stream, "GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").map_err(fail)?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response).map_err(fail)?;
    let response = String::from_utf8_lossy(&response);
    let (head, body) = response
        .split_once("\r\n\r\n")
        .ok_or_else(|| format!("GET http://{addr}{path}: no end of headers in {response:?}"))?;
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("GET http://{addr}{path}: no status in {head:?}"))?;
    Ok((status, body.to_string()))
}

/// `text` as a URL's query value.
fn url_encoded(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// An instant query's result: each series' `label` and its value, rounded to a count.
fn query(
    prometheus: SocketAddr,
    promql: &str,
    label: &str,
) -> Result<BTreeMap<String, u64>, String> {
    let (status, body) = get(
        prometheus,
        &format!("/api/v1/query?query={}", url_encoded(promql)),
    )?;
    if status != 200 {
        return Err(format!("{promql}: HTTP {status}: {body}"));
    }
    let json: serde_json::Value =
        serde_json::from_str(&body).map_err(|e| format!("{promql}: {e} in {body}"))?;
    let result = json["data"]["result"]
        .as_array()
        .ok_or_else(|| format!("{promql}: no result in {body}"))?;
    result
        .iter()
        .map(|series| {
            let key = series["metric"][label].as_str().unwrap_or("").to_string();
            let value: f64 = series["value"][1]
                .as_str()
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("{promql}: no value in {series}"))?;
            Ok((key, value.round() as u64))
        })
        .collect()
}

/// Debian's Prometheus, or `None` (with a notice) where it is not installed outside CI.
fn prometheus_binary() -> Option<PathBuf> {
    let path = PathBuf::from(PROMETHEUS);
    if path.is_file() {
        return Some(path);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{PROMETHEUS} is missing: install Debian's `prometheus` package \
         (apt-get install prometheus), as .ci/run does"
    );
    eprintln!(
        "skipped: {PROMETHEUS} is missing; install Debian's `prometheus` package to run this test"
    );
    None
}

/// The fleet example beside this test binary, built with the `metrics` feature: `cargo test
/// --all-features` builds it so, and a run of this test alone (`--test prometheus`) may find
/// none, or one that `cargo build` made without the feature; then it is built here.
fn fleet_binary() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary");
    // target/<profile>/deps/prometheus-<hash>
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("the test binary is in <target>/<profile>/deps");
    let fleet = profile_dir
        .join("examples")
        .join(format!("fleet{}", std::env::consts::EXE_SUFFIX));
    if serves_metrics(&fleet) {
        return fleet;
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut build = Command::new(cargo);
    build
        .args(["build", "--example", "fleet", "--features", "metrics"])
        .arg("--manifest-path")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
        .arg("--target-dir")
        .arg(profile_dir.parent().expect("a target directory"));
    if profile_dir.file_name().is_some_and(|n| n == "release") {
        build.arg("--release");
    }
    let status = build.status().expect("cargo runs");
    assert!(
        status.success(),
        "building the fleet example failed: {status}"
    );
    assert!(
        serves_metrics(&fleet),
        "{} does not serve metrics even built with the feature",
        fleet.display()
    );
    fleet
}

/// Whether `fleet` exists and was built with the `metrics` feature: run without Invite and
/// without a workload, it serves (and says nothing) until its empty standard input ends.
fn serves_metrics(fleet: &Path) -> bool {
    if !fleet.is_file() {
        return false;
    }
    let out = Command::new(fleet)
        .env("INVITE", "off")
        .env("FLEET_SECONDS", "0")
        .env("FLEET_METRICS", free_port().to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .expect("run the fleet example");
    let stderr = String::from_utf8_lossy(&out.stderr);
    out.status.success() && !stderr.contains("needs the `metrics` feature")
}

/// Starts member `k` of the fleet in a directory of its own under `root`.
fn start_member(fleet_exe: &Path, root: &Path, k: usize) -> Member {
    let dir = root.join(format!("member-{k}"));
    std::fs::create_dir_all(&dir).expect("member directory");
    let log = dir.join("log.jsonl");
    // Every call sampled, a caller waiting for a slot rather than skipping, no overhead cap:
    // the members log many tests quickly. Deadlines no test comes near, even on a loaded
    // machine, so that each test ends in its verdict. No stats record before the final one:
    // what Prometheus shows while the workload runs comes from the collector's steps.
    // Pairs change hands every second: the fleet's 17 pairs are dealt afresh each period, and
    // in about one period of a thousand a member is dealt none (all 17 to the other two), so
    // with the default ten-minute period a member could test nothing for the whole test.
    // `INVITE_SHARD` gives the place; the file's `fleet` gives the period.
    std::fs::write(
        dir.join("invite.toml"),
        format!(
            "log = {:?}\ndefault_rho = 1.0\nwhen_busy = \"wait\"\nmax_overhead = 1.0\n\
             child_cpu_charge = 0.0\ntimeout_ms = 30000\ndrain_ms = 30000\n\
             stats_interval_ms = 3600000\n\
             fleet = {{ size = {MEMBERS}, member = {k}, rotate = \"1s\" }}\n",
            log.display().to_string()
        ),
    )
    .expect("write invite.toml");
    let addr = free_port();
    let child = Command::new(fleet_exe)
        .current_dir(&dir)
        .env_remove("INVITE")
        .env("INVITE_CONFIG", dir.join("invite.toml"))
        .env("INVITE_SHARD", format!("{k}/{MEMBERS}"))
        .env("INVITE_INSTANCE", format!("member-{k}"))
        .env("FLEET_METRICS", addr.to_string())
        // Longer than any run of this test: the workload stops when told.
        .env("FLEET_SECONDS", "3600")
        .stdin(Stdio::piped())
        .stdout(File::create(dir.join("stdout")).expect("stdout file"))
        .stderr(File::create(dir.join("stderr")).expect("stderr file"))
        .spawn()
        .expect("start a fleet member");
    Member { dir, addr, child }
}

/// Starts Prometheus, scraping every member each second, its storage under `root`.
fn start_prometheus(exe: &Path, root: &Path, members: &[Member]) -> (SocketAddr, Child) {
    let targets: Vec<String> = members.iter().map(|m| format!("'{}'", m.addr)).collect();
    let config = root.join("prometheus.yml");
    std::fs::write(
        &config,
        format!(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n\
             scrape_configs:\n  - job_name: fleet\n    static_configs:\n      - targets: [{}]\n",
            targets.join(", ")
        ),
    )
    .expect("write prometheus.yml");
    let addr = free_port();
    let child = Command::new(exe)
        .arg(format!("--config.file={}", config.display()))
        .arg(format!(
            "--storage.tsdb.path={}",
            root.join("data").display()
        ))
        .arg(format!("--web.listen-address={addr}"))
        .arg("--log.level=warn")
        .stdin(Stdio::null())
        .stdout(File::create(root.join("prometheus.stdout")).expect("stdout file"))
        .stderr(File::create(root.join("prometheus.stderr")).expect("stderr file"))
        .spawn()
        .expect("start prometheus");
    (addr, child)
}

/// Counts of test records by outcome, over `logs`.
fn outcomes(logs: &[Vec<Record>]) -> BTreeMap<String, u64> {
    let mut counts = BTreeMap::new();
    for r in logs.iter().flatten() {
        if let Record::Test(t) = r {
            *counts.entry(t.outcome.as_str().to_string()).or_insert(0) += 1;
        }
    }
    counts
}

/// `counts` without its zeros: Prometheus shows every outcome of a tested site, from zero.
fn nonzero(counts: &BTreeMap<String, u64>) -> BTreeMap<String, u64> {
    counts
        .iter()
        .filter(|(_, n)| **n > 0)
        .map(|(k, n)| (k.clone(), *n))
        .collect()
}

/// What the log's final stats record says of its sites: the sampled calls and the skipped ones
/// by reason.
fn final_counts(log: &[Record]) -> (u64, BTreeMap<String, u64>) {
    let stats = log
        .iter()
        .rev()
        .find_map(|r| match r {
            Record::Stats(s) if s.is_final => Some(s),
            _ => None,
        })
        .expect("a final stats record before the stop record");
    let mut skipped = BTreeMap::new();
    let mut sampled = 0;
    for site in &stats.sites {
        sampled += site.sampled;
        let s = &site.skipped;
        for (reason, n) in [
            ("concurrency", s.concurrency),
            ("overhead", s.overhead),
            ("disabled", s.disabled),
            ("fork_failed", s.fork_failed),
            ("dedup", s.dedup),
        ] {
            *skipped.entry(reason.to_string()).or_insert(0) += n;
        }
    }
    (sampled, skipped)
}

/// The fleet's figures, as the logs have them or as Prometheus shows them.
#[derive(Debug, PartialEq)]
struct Figures {
    /// Test records by outcome (zeros left out).
    tests: BTreeMap<String, u64>,
    /// Tests in the duration histogram.
    durations: u64,
    /// Sampled calls by scrape target (the member's metrics address).
    sampled: BTreeMap<String, u64>,
    /// Skipped calls by reason (zeros left out).
    skipped: BTreeMap<String, u64>,
}

fn scraped(prometheus: SocketAddr) -> Result<Figures, String> {
    let single =
        |promql: &str| -> Result<u64, String> { Ok(query(prometheus, promql, "")?.values().sum()) };
    Ok(Figures {
        tests: nonzero(&query(
            prometheus,
            "sum by (outcome) (invite_tests_total)",
            "outcome",
        )?),
        durations: single("sum(invite_test_duration_seconds_count)")?,
        sampled: query(
            prometheus,
            "sum by (instance) (invite_sampled_calls_total)",
            "instance",
        )?,
        skipped: nonzero(&query(
            prometheus,
            "sum by (reason) (invite_calls_skipped_total)",
            "reason",
        )?),
    })
}

#[test]
fn prometheus_scrapes_totals_that_equal_the_fleet_s_logs() {
    let Some(prometheus_exe) = prometheus_binary() else {
        return;
    };
    let fleet_exe = fleet_binary();
    let started = Instant::now();
    let dir = tempfile::Builder::new()
        .prefix("invite-prometheus-")
        .tempdir()
        .expect("temp dir");
    let mut fleet = Fleet {
        dir: Some(dir),
        members: Vec::new(),
        prometheus: None,
    };
    let root = fleet.dir().to_path_buf();
    for k in 0..MEMBERS {
        let member = start_member(&fleet_exe, &root, k);
        fleet.members.push(member);
    }
    let prometheus = start_prometheus(&prometheus_exe, &root, &fleet.members);
    let prometheus_addr = prometheus.0;
    fleet.prometheus = Some(prometheus);
    fleet.wait_for("Prometheus ready", PATIENCE, |_| {
        match get(prometheus_addr, "/-/ready")? {
            (200, _) => Ok(()),
            (status, body) => Err(format!("HTTP {status}: {body}")),
        }
    });

    // A good number of tests in every member, the defective site's failures among them.
    fleet.wait_for(
        &format!("{TESTS_EACH} test records in each member's log, a failure among them"),
        PATIENCE,
        |fleet| {
            let logs: Vec<Vec<Record>> = fleet.members.iter().map(Member::log).collect();
            let each: Vec<usize> = logs
                .iter()
                .map(|log| log.iter().filter(|r| matches!(r, Record::Test(_))).count())
                .collect();
            let fails = outcomes(&logs).get("fail").copied().unwrap_or(0);
            if each.iter().all(|&n| n >= TESTS_EACH) && fails > 0 {
                Ok(())
            } else {
                Err(format!("test records {each:?}, failures {fails}"))
            }
        },
    );

    // While the workloads run, Prometheus sees every member's calls: the counters follow the
    // sites' as the collector goes, not only at the stats records.
    fleet.wait_for(
        "sampled calls of every member in Prometheus, while the workloads run",
        PATIENCE,
        |fleet| {
            let seen = query(
                prometheus_addr,
                "sum by (instance) (invite_sampled_calls_total) > 0",
                "instance",
            )?;
            let all = fleet
                .members
                .iter()
                .all(|m| seen.contains_key(&m.addr.to_string()));
            let stopped = fleet
                .members
                .iter()
                .any(|m| m.log().iter().any(|r| matches!(r, Record::Stop(_))));
            assert!(!stopped, "a member stopped before it was told to");
            if all {
                Ok(())
            } else {
                Err(format!("members with sampled calls: {seen:?}"))
            }
        },
    );

    // Stop the workloads; each member shuts Invite down and goes on serving its metrics.
    for m in &mut fleet.members {
        let stdin = m.child.stdin.as_mut().expect("piped stdin");
        stdin.write_all(b"stop\n").expect("tell a member to stop");
        stdin.flush().expect("tell a member to stop");
    }
    fleet.wait_for("a stop record in each member's log", PATIENCE, |fleet| {
        let stopped: Vec<bool> = fleet
            .members
            .iter()
            .map(|m| m.log().iter().any(|r| matches!(r, Record::Stop(_))))
            .collect();
        if stopped.iter().all(|&s| s) {
            Ok(())
        } else {
            Err(format!("stopped: {stopped:?}"))
        }
    });

    let logs: Vec<Vec<Record>> = fleet.members.iter().map(Member::log).collect();
    let tests = outcomes(&logs);
    let mut sampled = BTreeMap::new();
    let mut skipped = BTreeMap::new();
    for (m, log) in fleet.members.iter().zip(&logs) {
        let (n, by_reason) = final_counts(log);
        sampled.insert(m.addr.to_string(), n);
        for (reason, n) in by_reason {
            *skipped.entry(reason).or_insert(0) += n;
        }
    }
    let expected = Figures {
        durations: tests.values().sum(),
        tests: nonzero(&tests),
        sampled,
        skipped: nonzero(&skipped),
    };
    // The comparison must be able to tell outcomes apart, and must not pass on nothing.
    assert!(
        expected.tests.len() >= 2 && expected.sampled.values().all(|&n| n > 0),
        "the logs hold too little to compare: {expected:?}"
    );

    let mut last = None;
    fleet.wait_for("Prometheus' totals to equal the logs'", SCRAPES, |_| {
        let seen = scraped(prometheus_addr)?;
        let result = if seen == expected {
            Ok(())
        } else {
            Err(format!(
                "\n  logs:       {expected:?}\n  prometheus: {seen:?}"
            ))
        };
        last = Some(seen);
        result
    });
    assert_eq!(last.as_ref(), Some(&expected));

    // Each member exits once its standard input ends, as it would after its last scrape.
    for m in &mut fleet.members {
        drop(m.child.stdin.take());
    }
    let limit = Instant::now() + PATIENCE;
    for (k, m) in fleet.members.iter_mut().enumerate() {
        let status = loop {
            if let Some(status) = m.child.try_wait().expect("wait for a member") {
                break status;
            }
            assert!(
                Instant::now() < limit,
                "member {k} still runs after its stdin ended"
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        assert!(
            status.success(),
            "member {k} ended with {status}; stderr:\n{}",
            tail(&m.dir.join("stderr"))
        );
    }
    eprintln!(
        "{} tests in {} members, equal in Prometheus, in {:.1} s",
        expected.durations,
        MEMBERS,
        started.elapsed().as_secs_f64()
    );
}
