//! A fleet: eight instances of the `fleet` example, members 0 to 7 (`INVITE_SHARD=K/8`), and a
//! lone instance beside them at the same settings. Checked from the instances' logs:
//!
//! - in every rotation period each (function, relation) pair is tested by its owner alone, and
//!   over the run by somebody in each of several whole periods;
//! - each member runs about an eighth of the lone instance's tests per call, and the members
//!   together as many as the lone one;
//! - a new ρ (four times the old), given by replacing the configuration file (by a rename for half of the fleet, by
//!   a ConfigMap's symlink swap for the other half), is applied by every instance: its
//!   `config` record says so, and its sites' ρ in its next `stats` record.
//!
//! Every instance is killed and reaped when the test ends, however it ends.

#![cfg(not(invite_portable))]

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use invite::record::{ConfigChange, Record, Stats, Test};

const MEMBERS: u64 = 8;
const ROTATE_S: u64 = 3;
const RHO_BEFORE: f64 = 0.002;
const RHO_AFTER: f64 = 0.008;
const DEADLINE: Duration = Duration::from_secs(240);

/// The fleet example, built by `cargo test` (or here, when a filtered run did not build it).
fn example() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let debug = exe.parent().unwrap().parent().unwrap();
    let path = debug.join("examples").join("fleet");
    if !path.exists() {
        let status = Command::new(env!("CARGO"))
            .args(["build", "--example", "fleet"])
            .status()
            .expect("cargo runs");
        assert!(status.success(), "the fleet example builds");
    }
    path
}

fn config(rho: f64, fleet: bool) -> String {
    let mut text = format!(
        "default_rho = {rho}\nmax_concurrent = 2\nmax_overhead = 1.0\nchild_cpu_charge = 0.0\n\
         when_busy = \"wait\"\nstats_interval_ms = 200\ntimeout_ms = 30000\n\
         log = \"invite-log.jsonl\"\n"
    );
    if fleet {
        // The file says member 0; each member's INVITE_SHARD wins over it.
        text.push_str(&format!(
            "fleet = {{ size = {MEMBERS}, member = 0, rotate = \"{ROTATE_S}s\" }}\n"
        ));
    }
    text
}

/// The instances; killed and reaped on drop, whatever happened.
struct Fleet {
    children: Vec<(String, Child)>,
    dirs: Vec<PathBuf>,
    /// Each instance's rounds of its workload (every function called once) so far, as it says
    /// them on its standard output.
    rounds: Vec<Arc<AtomicU64>>,
    readers: Vec<std::thread::JoinHandle<()>>,
}

impl Drop for Fleet {
    fn drop(&mut self) {
        for (_, c) in &mut self.children {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Fleet {
    fn log(&self, i: usize) -> Vec<Record> {
        std::fs::read_to_string(self.dirs[i].join("invite-log.jsonl"))
            .unwrap_or_default()
            .lines()
            // The last line may be half written.
            .filter_map(|l| Record::from_line(l).ok())
            .collect()
    }

    /// Ends the workloads (their standard input closes) and waits for the processes.
    fn stop(&mut self) {
        for (_, c) in &mut self.children {
            drop(c.stdin.take());
        }
        let started = Instant::now();
        for (name, c) in &mut self.children {
            loop {
                match c.try_wait().unwrap() {
                    Some(status) => {
                        assert!(status.success(), "{name} exited with {status}");
                        break;
                    }
                    None if started.elapsed() > DEADLINE => panic!("{name} did not stop"),
                    None => std::thread::sleep(Duration::from_millis(20)),
                }
            }
        }
        for r in self.readers.drain(..) {
            r.join().unwrap();
        }
    }

    fn rounds(&self, i: usize) -> u64 {
        self.rounds[i].load(Ordering::SeqCst)
    }
}

fn tests_of(records: &[Record]) -> Vec<&Test> {
    records
        .iter()
        .filter_map(|r| match r {
            Record::Test(t) => Some(t),
            _ => None,
        })
        .collect()
}

fn period_of(t: &Test) -> u64 {
    let at = humantime::parse_rfc3339(&t.time).unwrap();
    at.duration_since(SystemTime::UNIX_EPOCH).unwrap().as_secs() / ROTATE_S
}

fn last_stats(records: &[Record]) -> Option<&Stats> {
    records.iter().rev().find_map(|r| match r {
        Record::Stats(s) => Some(s),
        _ => None,
    })
}

#[test]
fn a_fleet_shares_the_pairs_and_follows_its_configuration() {
    let exe = example();
    let root = tempfile::tempdir().unwrap();
    let plain = root.path().join("plain");
    std::fs::create_dir(&plain).unwrap();
    std::fs::write(plain.join("invite.toml"), config(RHO_BEFORE, true)).unwrap();
    let mut map = support::ConfigMap::new(root.path().join("configmap"), &config(RHO_BEFORE, true));
    let lone = root.path().join("lone-config");
    std::fs::create_dir(&lone).unwrap();
    std::fs::write(lone.join("invite.toml"), config(RHO_BEFORE, false)).unwrap();
    let mut fleet = Fleet {
        children: Vec::new(),
        dirs: Vec::new(),
        rounds: Vec::new(),
        readers: Vec::new(),
    };
    for k in 0..=MEMBERS {
        let (name, config) = if k < MEMBERS / 2 {
            (format!("member-{k}"), plain.join("invite.toml"))
        } else if k < MEMBERS {
            (format!("member-{k}"), map.root.join("invite.toml"))
        } else {
            ("lone".to_string(), lone.join("invite.toml"))
        };
        let dir = root.path().join(&name);
        std::fs::create_dir(&dir).unwrap();
        let mut cmd = Command::new(&exe);
        cmd.current_dir(&dir)
            .env("INVITE_CONFIG", &config)
            .env("INVITE_INSTANCE", &name)
            .env("FLEET_SECONDS", "600")
            .env("FLEET_PROGRESS", "1")
            .env_remove("INVITE_SHARD")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if k < MEMBERS {
            cmd.env("INVITE_SHARD", format!("{k}/{MEMBERS}"));
        }
        let mut child = cmd.spawn().expect("the example starts");
        let out = child.stdout.take().unwrap();
        let rounds = Arc::new(AtomicU64::new(0));
        let seen = Arc::clone(&rounds);
        fleet.readers.push(std::thread::spawn(move || {
            // "N" as it goes, "N rounds (...)" at the end.
            for line in std::io::BufRead::lines(std::io::BufReader::new(out)) {
                let Ok(line) = line else { break };
                if let Some(n) = line.split_whitespace().next().and_then(|n| n.parse().ok()) {
                    seen.store(n, Ordering::SeqCst);
                }
            }
        }));
        fleet.children.push((name, child));
        fleet.dirs.push(dir);
        fleet.rounds.push(rounds);
    }
    // Every (function, relation) pair, as the instances' start records list them.
    let pairs: BTreeSet<(String, String)> = loop {
        let start = fleet.log(0).into_iter().find_map(|r| match r {
            Record::Start(s) => Some(s),
            _ => None,
        });
        if let Some(start) = start {
            break start
                .sites
                .iter()
                .filter(|s| s.name.starts_with("fleet::site_"))
                .flat_map(|s| s.tests.iter().map(|t| (s.name.clone(), t.clone())))
                .collect();
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(
        pairs.len(),
        17,
        "sixteen functions, one with two relations: {pairs:?}"
    );
    // Until two whole periods in which every pair was tested by somebody.
    let started = Instant::now();
    let first_period = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        / ROTATE_S
        + 1;
    let covered_periods = loop {
        let now_period = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap()
            .as_secs()
            / ROTATE_S;
        let mut seen: BTreeMap<u64, BTreeSet<(String, String)>> = BTreeMap::new();
        for i in 0..MEMBERS as usize {
            for t in tests_of(&fleet.log(i)) {
                seen.entry(period_of(t))
                    .or_default()
                    .insert((t.site.clone(), t.test.clone()));
            }
        }
        let covered: Vec<u64> = seen
            .iter()
            .filter(|(p, s)| **p >= first_period && **p < now_period && s.is_superset(&pairs))
            .map(|(p, _)| *p)
            .collect();
        if covered.len() >= 2 {
            break covered;
        }
        assert!(
            started.elapsed() < DEADLINE,
            "after {DEADLINE:?} only periods {covered:?} saw every pair tested; per period: {:?}",
            seen.iter().map(|(p, s)| (p, s.len())).collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    println!("periods in which every pair was tested: {covered_periods:?}");

    // A new ρ: by a rename for the first half, by a symlink swap for the second, and for the
    // lone instance.
    // The load so far, at one moment: each instance's last stats record and its rounds.
    let before: Vec<Option<Stats>> = (0..=MEMBERS as usize)
        .map(|i| last_stats(&fleet.log(i)).cloned())
        .collect();
    let rounds_before: Vec<u64> = (0..=MEMBERS as usize).map(|i| fleet.rounds(i)).collect();
    let changed_at = SystemTime::now();
    support::replace_atomically(&plain.join("invite.toml"), &config(RHO_AFTER, true));
    map.update(&config(RHO_AFTER, true));
    support::replace_atomically(&lone.join("invite.toml"), &config(RHO_AFTER, false));
    let mut applied: Vec<Option<ConfigChange>> = vec![None; MEMBERS as usize + 1];
    while applied.iter().any(Option::is_none) {
        for (i, slot) in applied.iter_mut().enumerate() {
            if slot.is_none() {
                *slot = fleet.log(i).into_iter().find_map(|r| match r {
                    Record::Config(c) => Some(c),
                    _ => None,
                });
            }
        }
        assert!(
            started.elapsed() < DEADLINE,
            "instances without a config record: {:?}",
            applied
                .iter()
                .enumerate()
                .filter(|(_, a)| a.is_none())
                .map(|(i, _)| &fleet.children[i].0)
                .collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut latencies = Vec::new();
    for (i, c) in applied.iter().enumerate() {
        let c = c.as_ref().unwrap();
        let name = &fleet.children[i].0;
        assert!(c.applied, "{name}: {c:?}");
        assert_eq!(c.changed, vec!["default_rho".to_string()], "{name}: {c:?}");
        assert_eq!(c.config["default_rho"], RHO_AFTER, "{name}");
        let expected_shard = (i < MEMBERS as usize).then(|| format!("{i}/{MEMBERS}"));
        assert_eq!(c.shard, expected_shard, "{name}");
        let at = humantime::parse_rfc3339(&c.time).unwrap();
        latencies.push(at.duration_since(changed_at).unwrap_or_default());
    }
    // Every instance that applied it shows the new ρ in its next stats record, on every site
    // it samples.
    for (i, c) in applied.iter().enumerate() {
        let name = &fleet.children[i].0;
        let time = &c.as_ref().unwrap().time;
        let fresh = loop {
            let log = fleet.log(i);
            let found = log.iter().find_map(|r| match r {
                Record::Stats(s) if s.time > *time => Some(s.clone()),
                _ => None,
            });
            if let Some(s) = found {
                break s;
            }
            assert!(
                started.elapsed() < DEADLINE,
                "{name}: no stats after the reload"
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        for s in fresh.sites.iter().filter(|s| s.rho > 0.0) {
            assert_eq!(s.rho, RHO_AFTER, "{name}: {}", s.site);
        }
    }
    println!(
        "the new configuration was applied {:?} after the file changed (the slowest instance)",
        latencies.iter().max().unwrap()
    );

    // Enough runs after the change to compare rates: six hundred across the fleet.
    let runs_of = |s: &Stats| s.sites.iter().map(|x| x.runs).sum::<u64>();
    let runs_before: u64 = before.iter().flatten().map(runs_of).sum();
    loop {
        let now: u64 = (0..=MEMBERS as usize)
            .filter_map(|i| last_stats(&fleet.log(i)).map(runs_of))
            .sum();
        if now >= runs_before + 600 {
            break;
        }
        assert!(
            started.elapsed() < DEADLINE,
            "{} runs after the change",
            now - runs_before
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    fleet.stop();
    let logs: Vec<Vec<Record>> = (0..=MEMBERS as usize).map(|i| fleet.log(i)).collect();

    // No member ever tested a pair of another's period.
    for (i, log) in logs.iter().enumerate().take(MEMBERS as usize) {
        for t in tests_of(log) {
            let owner = invite::fleet::owner(MEMBERS, &t.site, &t.test, period_of(t));
            assert_eq!(
                owner,
                i as u64,
                "member {i} tested `{}` of {} in period {}, which member {owner} owns",
                t.test,
                t.site,
                period_of(t)
            );
        }
    }
    // The defect is found by the fleet.
    let failures = logs
        .iter()
        .take(MEMBERS as usize)
        .flat_map(|l| tests_of(l))
        .filter(|t| t.outcome.is_failure())
        .count();
    assert!(failures > 0, "the fleet found the defect of site_07");

    // Load, before the change of ρ: each member carries a share, the members together what the
    // lone instance does. Per round of the workload (every function called once): calls of a
    // site outside a member's share are not even counted, as they cost the unsampled path only.
    let lone = MEMBERS as usize;
    let loads: Vec<&Stats> = before.iter().map(|b| b.as_ref().unwrap()).collect();
    let per_round = |i: usize, of: &dyn Fn(&invite::record::SiteStats) -> f64| {
        loads[i].sites.iter().map(of).sum::<f64>() / rounds_before[i].max(1) as f64
    };
    let runs = |s: &invite::record::SiteStats| s.runs as f64;
    let caller_us = |s: &invite::record::SiteStats| s.runs as f64 * s.mean_parent_us;
    let shares: Vec<f64> = (0..lone)
        .map(|i| per_round(i, &runs) / per_round(lone, &runs))
        .collect();
    let together: f64 = shares.iter().sum();
    let overhead: Vec<f64> = (0..lone)
        .map(|i| per_round(i, &caller_us) / per_round(lone, &caller_us))
        .collect();
    for (i, l) in loads.iter().enumerate() {
        let sampled: u64 = l.sites.iter().map(|s| s.sampled).sum();
        let runs: u64 = l.sites.iter().map(|s| s.runs).sum();
        println!(
            "{}: {} rounds, {sampled} sampled calls, {runs} runs",
            fleet.children[i].0, rounds_before[i]
        );
    }
    println!("runs per round of each member, as a share of the lone instance's: {shares:.3?}");
    println!("the members together: {together:.2} of the lone instance's");
    println!(
        "caller time per round of each member, as a share of the lone instance's: {overhead:.3?} \
         (mean {:.3})",
        overhead.iter().sum::<f64>() / overhead.len() as f64
    );
    assert!(
        (0.6..=1.5).contains(&together),
        "the members together ran {together:.2} × the lone instance's runs per round"
    );
    for (i, share) in shares.iter().enumerate() {
        assert!(
            *share < 0.5,
            "member {i} ran {share:.2} × the lone instance's runs per round"
        );
    }
    // And ρ took effect: runs per round of work after the change, against before. (Rounds,
    // not calls: a site's calls are counted when its sampling interval ends, so the calls of
    // an interval drawn at the old ρ land after the change.)
    let finals: Vec<&Stats> = logs.iter().map(|l| last_stats(l).unwrap()).collect();
    let runs_of = |s: &Stats| s.sites.iter().map(|x| x.runs).sum::<u64>();
    // Each instance's runs per round before and after; the members' summed, as each pair has
    // one owner at any moment (a member that owns more pairs runs more, and slower: weighting
    // by rounds would favour the members that happen to own little).
    let rates: Vec<(f64, f64)> = (0..=MEMBERS as usize)
        .map(|i| {
            let b = before[i].as_ref().unwrap();
            let (before_runs, after_runs) = (runs_of(b), runs_of(finals[i]) - runs_of(b));
            let after_rounds = fleet.rounds(i).saturating_sub(rounds_before[i]);
            let rate = (
                before_runs as f64 / rounds_before[i].max(1) as f64,
                after_runs as f64 / after_rounds.max(1) as f64,
            );
            println!(
                "{}: runs per 1000 rounds {:.2} before, {:.2} after",
                fleet.children[i].0,
                1000.0 * rate.0,
                1000.0 * rate.1
            );
            rate
        })
        .collect();
    let members_before: f64 = rates[..lone].iter().map(|r| r.0).sum();
    let members_after: f64 = rates[..lone].iter().map(|r| r.1).sum();
    println!(
        "the members together: runs per 1000 rounds {:.2} before, {:.2} after",
        1000.0 * members_before,
        1000.0 * members_after
    );
    for (who, (before, after)) in [
        ("the members together", (members_before, members_after)),
        ("the lone instance", rates[lone]),
    ] {
        assert!(
            after > 2.0 * before,
            "ρ went from {RHO_BEFORE} to {RHO_AFTER}, and {who}'s runs per round from \
             {before:.5} to {after:.5}"
        );
    }
    let _ = std::io::stdout().flush();
}
