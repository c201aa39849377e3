//! The caps: never more live test children than `max_concurrent`, never more caller time spent
//! starting tests than `max_overhead` allows; every skip counted by reason.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

// The caps tests measure contention for slots and CPU time, so each runs `alone`: run side by
// side with other scenarios on a small, busy machine, they starve each other's test processes.
use crate::support::{self, alone, scenario};

#[invite::in_vivo(test = slow_check)]
fn work(x: u64) -> u64 {
    x.wrapping_mul(2654435761)
}

fn slow_check(x: &u64) -> bool {
    std::thread::sleep(Duration::from_millis(20));
    work(*x) == x.wrapping_mul(2654435761)
}

#[test]
fn live_children_never_exceed_max_concurrent() {
    let _alone = alone();
    let config = "default_rho = 1.0\nmax_concurrent = 2\nmax_overhead = 1.0";
    let run = scenario(here!(), config, || {
        let stop = Arc::new(AtomicBool::new(false));
        let most = Arc::new(AtomicUsize::new(0));
        let monitor = {
            let (stop, most) = (Arc::clone(&stop), Arc::clone(&most));
            std::thread::spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    // A run and its test processes share a session of their own, so live runs
                    // are counted as sessions (a test process is still named like its run for
                    // a moment after its fork).
                    let sessions: std::collections::BTreeSet<i32> = support::invite_processes()
                        .into_iter()
                        .filter_map(support::session_of)
                        .collect();
                    most.fetch_max(sessions.len(), Ordering::SeqCst);
                    std::thread::sleep(Duration::from_micros(300));
                }
            })
        };
        let callers: Vec<_> = (0..4)
            .map(|t| {
                std::thread::spawn(move || {
                    let started = Instant::now();
                    let mut i = t;
                    while started.elapsed() < Duration::from_millis(400) {
                        work(i);
                        i += 4;
                        std::thread::sleep(Duration::from_micros(100));
                    }
                })
            })
            .collect();
        for c in callers {
            c.join().unwrap();
        }
        assert!(invite::wait_idle(Duration::from_secs(60)));
        stop.store(true, Ordering::SeqCst);
        monitor.join().unwrap();
        println!("{}", most.load(Ordering::SeqCst));
    });
    run.assert_success();
    let most: usize = run.stdout.trim().parse().unwrap();
    assert!(most >= 1, "no child was ever seen alive");
    assert!(
        most <= 2,
        "{most} children alive at once with max_concurrent = 2"
    );
    let stats = run.final_stats();
    let site = stats
        .sites
        .iter()
        .find(|s| s.site == "scenarios::caps::work")
        .unwrap();
    assert!(site.skipped.concurrency > 0, "{site:?}");
    assert_eq!(
        site.sampled,
        site.runs + site.skipped.concurrency + site.skipped.overhead
    );
    // At exit, one line says so when the caps refused most sampled calls (this is the only
    // site called, so its counts are the program's).
    let refused = site.skipped.concurrency + site.skipped.overhead;
    let notice = format!(
        "invite: the caps refused {refused} of {} sampled calls",
        site.sampled
    );
    if refused * 2 > site.sampled {
        assert!(run.stderr.contains(&notice), "{}", run.stderr);
        assert!(
            run.stderr
                .contains("raise max_concurrent (now 2) in invite.toml"),
            "{}",
            run.stderr
        );
    } else {
        assert!(!run.stderr.contains("the caps refused"), "{}", run.stderr);
    }
}

#[invite::in_vivo(test = cheap_check)]
fn cheap(x: u64) -> u64 {
    x ^ 0x5555
}

fn cheap_check(x: &u64) -> bool {
    cheap(*x) ^ 0x5555 == *x
}

#[test]
fn caller_time_spent_starting_tests_stays_within_max_overhead() {
    let _alone = alone();
    let config = "default_rho = 1.0\nmax_concurrent = 64\nmax_overhead = 0.01";
    let run = scenario(here!(), config, || {
        let started = Instant::now();
        let mut i = 0;
        while started.elapsed() < Duration::from_millis(600) {
            cheap(i);
            i += 1;
        }
    });
    run.assert_success();
    let stats = run.final_stats();
    let site = stats
        .sites
        .iter()
        .find(|s| s.site == "scenarios::caps::cheap")
        .unwrap();
    assert!(site.runs > 0, "{site:?}");
    assert!(site.skipped.overhead > 0, "{site:?}");
    // The cap allows 1% of wall time plus a 20 ms burst at 1% (0.2 ms), and a run is admitted
    // on the estimate of its cost: on a loaded machine a caller preempted mid-fork pays more
    // than estimated. An overrun is paid back by refusing the runs after it, except for the
    // last ones: twice the costliest run bounds what is left unpaid. The share is the caller's
    // measured fork cost, so this holds anywhere. (Without the cap, back-to-back forks would
    // take most of the wall time.)
    let costliest_us = run.tests().iter().map(|t| t.parent_us).max().unwrap_or(0);
    let allowed = 0.01 + (0.0002 + 2.0 * costliest_us as f64 / 1e6) / stats.elapsed_s;
    assert!(
        site.overhead_share <= allowed * 1.05,
        "overhead share {} over the allowed {allowed}: {site:?}",
        site.overhead_share
    );
}

#[cfg(feature = "discover")]
/// A function under discovery: its child runs it on the live argument and on every follow-up
/// input, so an observation keeps its slot for a while.
#[invite::discover]
fn observed_root(x: f64) -> f64 {
    std::thread::sleep(Duration::from_micros(200));
    x.abs().sqrt()
}

#[cfg(feature = "discover")]
/// Observations of `site` in the run's log.
fn observations(run: &support::Run, site: &str) -> u64 {
    run.records()
        .into_iter()
        .filter(|r| matches!(r, invite::record::Record::Observation(o) if o.site == site))
        .count() as u64
}

#[cfg(feature = "discover")]
const OBSERVED_SITE: &str = "scenarios::caps::observed_root";

#[cfg(feature = "discover")]
#[test]
fn discovery_is_held_to_max_concurrent_as_tests_are() {
    let _alone = alone();
    // One slot: never two observing children at once, and the calls that find it taken are
    // refused and counted.
    let config = "default_rho = 1.0\nmax_concurrent = 1\nmax_overhead = 1.0";
    let run = scenario(here!(), config, || {
        let stop = Arc::new(AtomicBool::new(false));
        let most = Arc::new(AtomicUsize::new(0));
        let monitor = {
            let (stop, most) = (Arc::clone(&stop), Arc::clone(&most));
            std::thread::spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    let sessions: std::collections::BTreeSet<i32> = support::invite_processes()
                        .into_iter()
                        .filter_map(support::session_of)
                        .collect();
                    most.fetch_max(sessions.len(), Ordering::SeqCst);
                    std::thread::sleep(Duration::from_micros(300));
                }
            })
        };
        // An observation runs the function on dozens of follow-ups, each as slow as a call:
        // while one holds the slot, the next calls find it taken, however busy the machine.
        for i in 0..300 {
            observed_root(1.0 + (i as f64 * 0.618_033_988_7) % 1.0 * 50.0);
        }
        assert!(invite::wait_idle(Duration::from_secs(60)));
        stop.store(true, Ordering::SeqCst);
        monitor.join().unwrap();
        println!("{}", most.load(Ordering::SeqCst));
    });
    run.assert_success();
    let most: usize = run.stdout.trim().parse().unwrap();
    assert!(
        most <= 1,
        "{most} observing children alive at once with max_concurrent = 1"
    );
    let stats = run.final_stats();
    let site = stats
        .sites
        .iter()
        .find(|s| s.site == OBSERVED_SITE)
        .unwrap();
    assert!(site.runs > 0 && site.skipped.concurrency > 0, "{site:?}");
    assert_eq!(site.sampled, site.runs + site.skipped.concurrency);
    // Every run that started was observed, and nothing else was.
    assert_eq!(
        observations(&run, OBSERVED_SITE),
        site.runs,
        "{}",
        run.describe()
    );
}

#[cfg(feature = "discover")]
#[test]
fn discovery_is_held_to_max_overhead_as_tests_are() {
    let _alone = alone();
    // A tight cap refuses observations as it refuses tests.
    let config = "default_rho = 1.0\nmax_concurrent = 64\nmax_overhead = 0.01";
    let run = scenario(here!(), config, || {
        let started = Instant::now();
        let mut i = 0u64;
        while started.elapsed() < Duration::from_millis(600) {
            observed_root(1.0 + i as f64);
            i += 1;
        }
        assert!(invite::wait_idle(Duration::from_secs(60)));
    });
    run.assert_success();
    let stats = run.final_stats();
    let site = stats
        .sites
        .iter()
        .find(|s| s.site == OBSERVED_SITE)
        .unwrap();
    assert!(site.runs > 0 && site.skipped.overhead > 0, "{site:?}");
    assert_eq!(
        observations(&run, OBSERVED_SITE),
        site.runs,
        "{}",
        run.describe()
    );
}

/// Five identical sites, called in turn: under one slot, each must get its share.
macro_rules! identical_sites {
    ($($name:ident),*) => {$(
        #[invite::in_vivo(test = short_check, rho = 0.05)]
        fn $name(x: u64) -> u64 {
            std::hint::black_box(x)
        }
    )*};
}
identical_sites!(fair_a, fair_b, fair_c, fair_d, fair_e);

/// A test that keeps the slot for a moment, so that the slot is what the sites contend for.
fn short_check(x: &u64) -> bool {
    std::thread::sleep(std::time::Duration::from_millis(1));
    *x < u64::MAX
}

#[test]
fn identical_sites_share_one_slot_evenly() {
    let _alone = alone();
    let run = scenario(
        here!(),
        "max_concurrent = 1\nmax_overhead = 1.0\nchild_cpu_charge = 0.0",
        || {
            // Until enough tests ran to judge the shares, however busy the machine is (a
            // fixed duration gives too few runs on a loaded one), within a generous bound.
            let started = std::time::Instant::now();
            let mut i = 0u64;
            while invite::outcomes().total().total() < 150
                && started.elapsed() < std::time::Duration::from_secs(60)
            {
                for f in [fair_a, fair_b, fair_c, fair_d, fair_e] {
                    f(i);
                    // Calls that take a little time, without taking a CPU from the other
                    // scenarios of this file.
                    std::thread::sleep(std::time::Duration::from_micros(20));
                }
                i += 1;
            }
            assert!(invite::wait_idle(std::time::Duration::from_secs(60)));
        },
    );
    run.assert_success();
    let stats = run.final_stats();
    let runs: Vec<(String, u64, f64)> = stats
        .sites
        .iter()
        .filter(|s| s.site.contains("fair_"))
        .map(|s| (s.site.clone(), s.runs, s.run_share))
        .collect();
    assert_eq!(runs.len(), 5, "{runs:?}");
    let total: u64 = runs.iter().map(|r| r.1).sum();
    // Turns make the shares even from the first rounds; 50 runs (10 a site) are enough to see
    // a site starved, and a busy machine may allow no more within the bound.
    assert!(total >= 50, "too few runs to judge sharing: {runs:?}");
    eprintln!("shares: {runs:?}");
    let mean = total as f64 / 5.0;
    for (site, n, share) in &runs {
        assert!(
            (*n as f64 - mean).abs() <= 0.3 * mean,
            "{site} got {n} runs against a mean of {mean:.1}: {runs:?}"
        );
        let all: u64 = stats.sites.iter().map(|s| s.runs).sum();
        assert!(
            (share - *n as f64 / all as f64).abs() < 1e-9,
            "{site}: share {share}"
        );
    }
}

#[test]
fn when_busy_wait_tests_every_sampled_call_within_max_concurrent() {
    let _alone = alone();
    // Four threads call as fast as they can, each run takes 20 ms and one may be alive: with
    // "skip" nearly every call would go untested; with "wait" every one is, one at a time.
    // A long timeout: on a busy machine a 20 ms test can take a second, and this test is about
    // waiting, not timing out.
    let config = "default_rho = 1.0\nmax_concurrent = 1\nmax_overhead = 1.0\n\
                  when_busy = \"wait\"\ntimeout_ms = 30000";
    const CALLS: u64 = 10;
    let run = scenario(here!(), config, || {
        let callers: Vec<_> = (0..4)
            .map(|t| {
                std::thread::spawn(move || {
                    for i in 0..CALLS {
                        work(t * 100 + i);
                    }
                })
            })
            .collect();
        for c in callers {
            c.join().unwrap();
        }
        assert!(invite::wait_idle(Duration::from_secs(60)));
    });
    run.assert_success();
    let tests: Vec<_> = run
        .tests()
        .into_iter()
        .filter(|t| t.site == "scenarios::caps::work")
        .collect();
    assert_eq!(tests.len() as u64, 4 * CALLS, "{}", run.describe());
    assert!(tests
        .iter()
        .all(|t| t.outcome == invite::record::Outcome::Pass));
    let stats = run.final_stats();
    let site = stats
        .sites
        .iter()
        .find(|s| s.site == "scenarios::caps::work")
        .unwrap();
    assert_eq!((site.sampled, site.runs), (4 * CALLS, 4 * CALLS));
    assert_eq!(site.skipped, invite::record::SkipCounts::default());
}

#[invite::in_vivo(test = longer_check)]
fn queued(x: u64) -> u64 {
    x ^ 0x5555
}

fn longer_check(x: &u64) -> bool {
    std::thread::sleep(Duration::from_millis(150));
    queued(*x) == *x ^ 0x5555
}

#[test]
fn waiting_calls_are_tested_in_the_order_they_came() {
    let _alone = alone();
    // One slot. A first call takes it for 150 ms or more; seven more calls come 40 ms apart,
    // each on a thread of its own, and wait. Served first come, first served, they are tested
    // in the order they came (a run's number is given when it is admitted). Served to
    // whichever asks first after a slot frees, the order is a lottery, and a call can wait out
    // its limit while later ones are tested.
    let config = "default_rho = 1.0\nmax_concurrent = 1\nmax_overhead = 1.0\n\
                  when_busy = \"wait\"\ntimeout_ms = 30000";
    const CALLS: u64 = 8;
    let run = scenario(here!(), config, || {
        let started = Instant::now();
        let callers: Vec<_> = (0..CALLS)
            .map(|x| {
                let caller = std::thread::spawn(move || queued(x));
                std::thread::sleep(Duration::from_millis(40));
                caller
            })
            .collect();
        for c in callers {
            c.join().unwrap();
        }
        // One slot: the last call is admitted only after the seven runs before it, one at a
        // time (a lower bound, which a busy machine only lengthens).
        let waited = started.elapsed();
        assert!(
            waited >= Duration::from_millis(150 * (CALLS - 1)),
            "{waited:?}"
        );
        assert!(invite::wait_idle(Duration::from_secs(30)));
    });
    run.assert_success();
    let mut tests: Vec<_> = run
        .tests()
        .into_iter()
        .filter(|t| t.site == "scenarios::caps::queued")
        .collect();
    tests.sort_by_key(|t| t.run);
    let order: Vec<String> = tests.iter().map(|t| t.inputs["x"].clone()).collect();
    let came: Vec<String> = (0..CALLS).map(|x| x.to_string()).collect();
    assert_eq!(order, came, "{}", run.describe());
}

#[test]
fn time_waiting_for_the_caps_is_recorded_and_counted_as_overhead() {
    let _alone = alone();
    // One slot and 20 ms tests: each call after the first waits for the run before it to end.
    let config = "default_rho = 1.0\nmax_concurrent = 1\nmax_overhead = 1.0\n\
                  when_busy = \"wait\"\ntimeout_ms = 30000";
    const CALLS: u64 = 6;
    let run = scenario(here!(), config, || {
        let started = Instant::now();
        for i in 0..CALLS {
            work(i);
        }
        let callers_us = started.elapsed().as_micros();
        assert!(invite::wait_idle(Duration::from_secs(60)));
        println!("{callers_us}");
    });
    run.assert_success();
    let callers_us: u64 = run.stdout.trim().parse().unwrap();
    let stats = run.final_stats();
    let site = stats
        .sites
        .iter()
        .find(|s| s.site == "scenarios::caps::work")
        .unwrap();
    assert_eq!(site.runs, CALLS, "{}", run.describe());
    assert!(site.wait_us > 0, "{site:?}");
    assert!(
        site.wait_us <= callers_us,
        "waited {} us within {callers_us} us of calls",
        site.wait_us
    );
    let per_call = site.wait_us as f64 / CALLS as f64;
    assert!((site.mean_wait_us - per_call).abs() <= 1.0, "{site:?}");
    // The overhead share counts the waiting beside the forks.
    let waiting = site.wait_us as f64 / 1e6 / stats.elapsed_s;
    let forking = site.mean_parent_us * site.runs as f64 / 1e6 / stats.elapsed_s;
    assert!(
        site.overhead_share >= waiting && site.overhead_share >= forking,
        "{site:?}"
    );
    assert!(
        (site.overhead_share - (waiting + forking)).abs() <= 1e-3 * site.overhead_share,
        "{site:?}"
    );
}

#[test]
fn tests_per_site_stops_the_waiting_once_a_site_has_that_many_tests() {
    let _alone = alone();
    // One caller, one slot, 20 ms tests: with "wait" alone every call would be tested. Once
    // the site has four tests its calls stop waiting, and those that find the slot taken go
    // untested.
    let config = "default_rho = 1.0\nmax_concurrent = 1\nmax_overhead = 1.0\n\
                  when_busy = \"wait\"\ntimeout_ms = 30000\ntests_per_site = 4";
    const CALLS: u64 = 40;
    let run = scenario(here!(), config, || {
        for i in 0..CALLS {
            work(i);
        }
        assert!(invite::wait_idle(Duration::from_secs(60)));
    });
    run.assert_success();
    let tested: Vec<u64> = run
        .tests()
        .into_iter()
        .filter(|t| t.site == "scenarios::caps::work")
        .map(|t| t.inputs["x"].parse().unwrap())
        .collect();
    // The first four calls waited and were tested.
    for x in 0..4 {
        assert!(tested.contains(&x), "{x} untested: {tested:?}");
    }
    let stats = run.final_stats();
    let site = stats
        .sites
        .iter()
        .find(|s| s.site == "scenarios::caps::work")
        .unwrap();
    // After the target, refused calls went untested (and, as with "skip", the caller then
    // samples the site less often for a while).
    assert!(site.skipped.concurrency > 0, "{site:?}");
    assert_eq!(
        site.runs + site.skipped.concurrency,
        site.sampled,
        "{site:?}"
    );
    assert!(site.runs >= 4 && site.runs < CALLS, "{site:?}");
    assert_eq!(site.runs, tested.len() as u64, "{site:?}");
}
