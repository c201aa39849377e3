//! The caps: never more live test children than `max_concurrent`, never more caller time spent
//! starting tests than `max_overhead` allows; every skip counted by reason.

mod support;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use support::scenario;

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
        assert!(invite::wait_idle(Duration::from_secs(20)));
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
    let site = stats.sites.iter().find(|s| s.site == "caps::work").unwrap();
    assert!(site.skipped.concurrency > 0, "{site:?}");
    assert_eq!(
        site.sampled,
        site.runs + site.skipped.concurrency + site.skipped.overhead
    );
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
        .find(|s| s.site == "caps::cheap")
        .unwrap();
    assert!(site.runs > 0, "{site:?}");
    assert!(site.skipped.overhead > 0, "{site:?}");
    // The cap allows 1% of wall time plus a 20 ms burst at 1% (0.2 ms) and one run's cost: the
    // share is computed from the caller's measured fork costs, so this holds on any machine.
    let allowed = 0.01 + (0.0002 + site.mean_parent_us / 1e6) / stats.elapsed_s;
    assert!(
        site.overhead_share <= allowed * 1.05,
        "overhead share {} over the allowed {allowed}: {site:?}",
        site.overhead_share
    );
}
