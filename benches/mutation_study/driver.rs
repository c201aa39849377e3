//! What the study's harnesses share (`relations.rs` for `statistical`, `geometry.rs` for
//! `kurbo`): the configuration every run uses, inputs from a fixed stream, calls made as a
//! program makes them, and the verdict read back from `invite::outcomes()`. The run script
//! copies this file beside each harness as `common/mod.rs`.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Duration;

/// A small deterministic generator (xorshift), so that every run sees the same inputs.
pub struct Inputs(pub u64);

impl Inputs {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn float(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn vector(&mut self, len: usize, lo: f64, hi: f64) -> Vec<f64> {
        (0..len).map(|_| self.float(lo, hi)).collect()
    }
}

/// Runs at once, at most: the driver waits for them all after this many calls, so that the
/// caps never refuse a run and every run counts.
pub const BATCH: usize = 8;

static CALLS: AtomicUsize = AtomicUsize::new(0);

/// Runs one call as the program would. A panic of the call itself is the program's, not a
/// finding of invite's, and is ignored.
pub fn call(f: impl FnOnce()) {
    let _ = catch_unwind(AssertUnwindSafe(f));
    if CALLS.fetch_add(1, Relaxed) % BATCH == BATCH - 1 {
        assert!(invite::wait_idle(Duration::from_secs(120)), "a run did not end");
    }
}

/// One run of a harness, as the run script set it up.
pub struct Study {
    /// Rounds of random inputs.
    pub rounds: usize,
    /// Where the inputs' stream starts.
    pub seed: u64,
    /// Sites that should have run tests.
    sites: usize,
    /// The run's scratch directory.
    dir: PathBuf,
}

impl Study {
    /// Reads the run script's settings and starts invite, every call sampled. The script sets
    /// these for relation discovery: a larger workload of other inputs (`STUDY_ROUNDS` rounds
    /// from `STUDY_SEED`), its log kept at `STUDY_LOG`, and how many sites should have run
    /// tests (`STUDY_SITES`: none when discovering, only the functions discovery can take when
    /// judging its relations).
    pub fn start(rounds: usize, sites: usize) -> Study {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let rounds = var("STUDY_ROUNDS").map_or(rounds, |v| v.parse().expect("STUDY_ROUNDS"));
        let seed = var("STUDY_SEED").map_or(0x9e37_79b9_7f4a_7c15, |v| {
            v.parse().expect("STUDY_SEED")
        });
        let sites = var("STUDY_SITES").map_or(sites, |v| v.parse().expect("STUDY_SITES"));
        let dir = std::env::temp_dir().join(format!("invite-study-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = var("STUDY_LOG").map_or_else(|| dir.join("log.jsonl"), PathBuf::from);
        let config = dir.join("invite.toml");
        std::fs::write(
            &config,
            format!(
                "default_rho = 1.0\nmax_concurrent = {BATCH}\nmax_overhead = 1.0\n\
                 child_cpu_charge = 0.0\ntimeout_ms = 10000\nlog = {:?}\n",
                log.display().to_string()
            ),
        )
        .unwrap();
        std::env::set_var("INVITE_CONFIG", &config);
        std::panic::set_hook(Box::new(|_| {}));
        assert!(invite::init(), "invite did not start");
        Study {
            rounds,
            seed,
            sites,
            dir,
        }
    }

    /// Waits for every run, prints the counts, and fails when a site that should have run
    /// tests ran none, or any test failed, errored or timed out.
    pub fn finish(self) {
        assert!(invite::wait_idle(Duration::from_secs(120)), "a run did not end");
        drop(std::panic::take_hook());
        let outcomes = invite::outcomes();
        let total = outcomes.total();
        println!(
            "{} tests: {} pass, {} fail, {} error, {} timeout, {} inconclusive, {} skipped",
            total.total(),
            total.pass,
            total.fail,
            total.error,
            total.timeout,
            total.inconclusive,
            total.skipped
        );
        let _ = std::fs::remove_dir_all(&self.dir);
        // Every instrumented function had its relations run: a site without tests finds
        // nothing.
        assert_eq!(
            outcomes.sites.len(),
            self.sites,
            "sites with tests: {:?}",
            outcomes.sites
        );
        let failures: Vec<String> = outcomes
            .failures
            .iter()
            .map(|f| {
                format!(
                    "{} {} `{}` on {:?}: {}",
                    f.site,
                    f.outcome,
                    f.test,
                    f.inputs,
                    f.detail.as_deref().unwrap_or("")
                )
            })
            .collect();
        assert!(
            failures.is_empty(),
            "{} failing tests:\n{}",
            outcomes.failure_count(),
            failures.join("\n")
        );
    }
}
