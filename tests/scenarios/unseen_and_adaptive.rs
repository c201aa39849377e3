//! Unseen-state testing (`dedup`) and the adaptive rate (`target_tests_per_min`), in real
//! processes.

use std::time::{Duration, Instant};

use crate::support::scenario;

const WAIT: Duration = Duration::from_secs(20);

#[invite::in_vivo(test = positive, dedup = true)]
fn magnitude(xs: &[f64], scale: i32) -> f64 {
    xs.iter().map(|x| x.abs()).sum::<f64>() * f64::from(scale)
}

fn positive(xs: &[f64], scale: &i32) -> bool {
    magnitude(xs, *scale) >= 0.0 || *scale < 0
}

#[derive(Default)]
struct Shelf {
    items: Vec<u32>,
}

impl Shelf {
    // The argument alone repeats; the declared state (the length) tells the calls apart.
    #[invite::in_vivo(test = Self::push_grows, dedup = true, state = [self.items.len()])]
    fn push(&mut self, item: u32) {
        self.items.push(item);
    }

    fn push_grows(&mut self, item: &u32) -> bool {
        let before = self.items.len();
        self.push(*item);
        self.items.len() == before + 1
    }
}

// The same on relations: arguments alone, and arguments with a declared state.
#[invite::metamorphic(scaled_sum(&invite::mr::permute(xs), k) == result, dedup = true)]
fn scaled_sum(xs: &[f64], k: f64) -> f64 {
    xs.iter().sum::<f64>() * k
}

#[derive(Default)]
struct Ledger {
    entries: Vec<i64>,
}

impl Ledger {
    #[invite::metamorphic(
        self.total_with(extra + 1) == result + 1,
        dedup = true,
        state = [self.entries.len()],
    )]
    fn total_with(&self, extra: i64) -> i64 {
        self.entries.iter().sum::<i64>() + extra
    }
}

#[test]
fn only_unseen_states_are_tested_and_the_saved_runs_are_counted() {
    let run = scenario(
        here!(),
        "default_rho = 1.0\nmax_overhead = 1.0\nchild_cpu_charge = 0.0",
        || {
            for i in 0..200 {
                // Five distinct argument combinations, floats included.
                let xs = [f64::from(i % 5), 0.5];
                magnitude(&xs, 2);
                assert!(invite::wait_idle(WAIT));
            }
            let mut shelf = Shelf::default();
            for _ in 0..30 {
                shelf.push(7);
                assert!(invite::wait_idle(WAIT));
            }
            for i in 0..100 {
                // Four distinct states: k repeats, -0.0 and 0.0 are one.
                let k = [1.0, 2.0, -0.0, 0.0, 3.0][i % 5];
                scaled_sum(&[1.5, 2.5], k);
                assert!(invite::wait_idle(WAIT));
            }
            let mut ledger = Ledger::default();
            for i in 0..30 {
                // The same argument; a new entry every third call: ten states.
                if i % 3 == 0 {
                    ledger.entries.push(i);
                }
                ledger.total_with(5);
                assert!(invite::wait_idle(WAIT));
            }
        },
    );
    run.assert_success();
    let stats = run.final_stats();
    let m = stats
        .sites
        .iter()
        .find(|s| s.site == "scenarios::unseen_and_adaptive::magnitude")
        .unwrap();
    assert_eq!(m.runs, 5, "{m:?}");
    assert_eq!(m.skipped.dedup, 195, "{m:?}");
    assert_eq!(run.outcomes_of("positive").len(), 5);
    // Same argument every time, but a new length each time: every call is a new state.
    let p = stats
        .sites
        .iter()
        .find(|s| s.site == "scenarios::unseen_and_adaptive::Shelf::push")
        .unwrap();
    assert_eq!((p.runs, p.skipped.dedup), (30, 0), "{p:?}");
    // Relations: one run per unseen state, each run tests the relation once.
    let site = |name: &str| {
        stats
            .sites
            .iter()
            .find(|s| s.site == format!("scenarios::unseen_and_adaptive::{name}"))
            .unwrap()
            .clone()
    };
    let s = site("scaled_sum");
    assert_eq!((s.runs, s.skipped.dedup), (4, 96), "{s:?}");
    assert_eq!(
        run.outcomes_of("scaled_sum(&invite::mr::permute(xs), k) == result"),
        vec![invite::record::Outcome::Pass; 4]
    );
    let l = site("Ledger::total_with");
    assert_eq!((l.runs, l.skipped.dedup), (10, 20), "{l:?}");
    assert_eq!(
        run.outcomes_of("self.total_with(extra + 1) == result + 1"),
        vec![invite::record::Outcome::Pass; 10]
    );
}

#[test]
fn dedup_can_be_turned_off_in_the_configuration() {
    let config = "default_rho = 1.0\nmax_overhead = 1.0\nchild_cpu_charge = 0.0\n\
                  [functions.\"scenarios::unseen_and_adaptive::magnitude\"]\ndedup = false";
    let run = scenario(here!(), config, || {
        for _ in 0..10 {
            magnitude(&[1.0], 1);
            assert!(invite::wait_idle(WAIT));
        }
    });
    run.assert_success();
    let stats = run.final_stats();
    let m = stats
        .sites
        .iter()
        .find(|s| s.site == "scenarios::unseen_and_adaptive::magnitude")
        .unwrap();
    assert_eq!((m.runs, m.skipped.dedup), (10, 0), "{m:?}");
}

#[invite::in_vivo(test = hot_ok)]
fn hot(x: u64) -> u64 {
    x.rotate_left(3)
}

fn hot_ok(x: &u64) -> bool {
    hot(*x) == x.rotate_left(3)
}

#[invite::in_vivo(test = rare_ok)]
fn rare(x: u64) -> u64 {
    x + 1
}

fn rare_ok(x: &u64) -> bool {
    rare(*x) == x + 1
}

#[invite::in_vivo(test = quiet_ok)]
fn quiet(x: u64) -> u64 {
    x + 1
}

fn quiet_ok(x: &u64) -> bool {
    quiet(*x) == x + 1
}

#[test]
fn a_site_at_the_default_rho_of_zero_with_a_target_starts_at_a_hundredth_and_adapts() {
    // Both at the default ρ of 0 with a target; `quiet` is also set to ρ = 0 explicitly, which
    // keeps it off.
    let config = "max_overhead = 1.0\nchild_cpu_charge = 0.0\nmax_concurrent = 4\n\
                  [functions.\"scenarios::unseen_and_adaptive::rare\"]\n\
                  target_tests_per_min = 6000\n\
                  [functions.\"scenarios::unseen_and_adaptive::quiet\"]\n\
                  rho = 0.0\ntarget_tests_per_min = 6000";
    let run = scenario(here!(), config, || {
        // About 100 calls a second each, for 2 s: the target asks for every call to be tested.
        for i in 0..200 {
            rare(i);
            quiet(i);
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(invite::wait_idle(Duration::from_secs(60)));
    });
    run.assert_success();
    let start = run
        .records()
        .into_iter()
        .find_map(|r| match r {
            invite::record::Record::Start(s) => Some(s),
            _ => None,
        })
        .unwrap();
    let rho_at_start = |name: &str| {
        start
            .sites
            .iter()
            .find(|s| s.name == format!("scenarios::unseen_and_adaptive::{name}"))
            .unwrap()
            .rho
    };
    assert_eq!(rho_at_start("rare"), 0.01);
    assert_eq!(rho_at_start("quiet"), 0.0);
    let stats = run.final_stats();
    let site = |name: &str| {
        let name = format!("scenarios::unseen_and_adaptive::{name}");
        stats.sites.iter().find(|s| s.site == name)
    };
    let rare = site("rare").unwrap();
    assert!(rare.tests > 0, "{rare:?}");
    // From 0.01 towards 1: a call rate below the target raises ρ.
    assert!(rare.rho > 0.01, "{rare:?}");
    // A site never sampled has no activity to report.
    assert!(site("quiet").is_none_or(|q| q.tests == 0), "{stats:?}");
    assert_eq!(run.outcomes_of("quiet_ok").len(), 0);
}

#[test]
fn the_adaptive_rate_lowers_rho_for_hot_sites_and_raises_it_for_rare_ones() {
    let config = "max_overhead = 0.5\nmax_concurrent = 4\n\
                  [functions.\"scenarios::unseen_and_adaptive::hot\"]\n\
                  rho = 0.5\ntarget_tests_per_min = 120\n\
                  [functions.\"scenarios::unseen_and_adaptive::rare\"]\n\
                  rho = 0.01\ntarget_tests_per_min = 6000";
    let run = scenario(here!(), config, || {
        let started = Instant::now();
        let mut last_rare = started;
        let mut i = 0u64;
        // Long enough for rare's ρ to climb to 1 in three windows of up to a second, and for
        // a window or two to be lost to the caps the hot site fills at first.
        // Long enough for rare's ρ to climb to 1 in three windows of up to a second, and for
        // a window or two to be lost to the caps the hot site fills at first.
        while started.elapsed() < Duration::from_millis(5000) {
            hot(i);
            if last_rare.elapsed() >= Duration::from_millis(20) {
                // About 50 calls a second: fewer than the 100 tests a second it asks for.
                rare(i);
                last_rare = Instant::now();
            }
            i += 1;
        }
    });
    run.assert_success();
    let stats = run.final_stats();
    let site = |name: &str| {
        stats
            .sites
            .iter()
            .find(|s| s.site == format!("scenarios::unseen_and_adaptive::{name}"))
            .unwrap()
            .clone()
    };
    let (hot, rare) = (site("hot"), site("rare"));
    // Millions of calls a second want a tiny ρ for 2 tests a second; 50 calls a second want
    // every call tested (from 0.01 to 1, give or take the rate estimate's error).
    assert!(hot.rho < 0.01, "hot site still at rho {}: {hot:?}", hot.rho);
    assert!(
        rare.rho >= 0.5,
        "rare site only at rho {}: {rare:?}",
        rare.rho
    );
    // At the final ρ, the hot site's observed call rate gives the 120 tests a minute asked for
    // within a factor of 8: the call rate the controller measured drifts on a busy machine, and
    // calls are counted at sampling points. Unadapted, ρ = 0.5 would project about 10^8.
    let projected = hot.rho * hot.calls as f64 / stats.elapsed_s * 60.0;
    assert!(
        (15.0..960.0).contains(&projected),
        "{projected} tests/min projected: {hot:?}"
    );
}
