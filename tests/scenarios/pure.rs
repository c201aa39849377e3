//! Pure sites: their sampled calls are tested by the worker, not a fork. The same tests give
//! the same records either way; a function declared pure that is not is caught and moved back
//! to forking; a relation that crashes, hangs or is blocked costs one test; a killed worker
//! comes back; a full ring and an exit with calls still queued lose nothing silently.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

use crate::support::{self, scenario};
use invite::mr::{add, multiply, negate, permute};
use invite::record::Outcome::*;

const WAIT: Duration = Duration::from_secs(30);

const EVERY_CALL: &str = "default_rho = 1.0\nmax_concurrent = 4\nmax_overhead = 1.0\n\
                          child_cpu_charge = 0.0\nseed = 7\nwhen_busy = \"wait\"";

#[invite::metamorphic(
    pure,
    spread(&permute(xs)) == result,
    spread(&multiply(xs, 2.0)) == result * 2.0,
    spread(&add(xs, 7.5)) == result,
    spread(&negate(xs)) == result,
)]
fn spread(xs: &[f64]) -> f64 {
    let m = xs.iter().sum::<f64>() / xs.len().max(1) as f64;
    (xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / xs.len().max(1) as f64).sqrt()
}

/// A planted defect: the sum of squares drops the last element of odd-length inputs.
#[invite::metamorphic(
    pure,
    norm(&permute(xs), scale) == result,
    norm(xs, scale * 2.0) == result * 2.0,
)]
fn norm(xs: &[f64], scale: f64) -> f64 {
    let n = if xs.len() % 2 == 1 {
        xs.len() - 1
    } else {
        xs.len()
    };
    scale * xs[..n].iter().map(|x| x * x).sum::<f64>().sqrt()
}

fn workload() {
    for k in 0..6 {
        let xs: Vec<f64> = (0..(3 + k)).map(|i| (i * 7 % 5) as f64 + 0.5).collect();
        std::hint::black_box(spread(&xs));
        std::hint::black_box(norm(&xs, 1.5));
    }
}

fn comparable(run: &support::Run) -> Vec<String> {
    let mut out: Vec<String> = run
        .tests()
        .iter()
        .map(|t| {
            format!(
                "{} {} {:?} run={} seeds={:?} inputs={:?} detail={:?}",
                t.site, t.test, t.outcome, t.run, t.seeds, t.inputs, t.detail
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn a_pure_site_gives_the_records_a_forked_one_gives() {
    // Both scenarios run this body (a scenario process runs the first scenario of its test):
    // the configuration says which way the calls go, and the body checks they went that way.
    let body = || {
        workload();
        assert!(invite::wait_idle(WAIT));
        let config = std::env::var("INVITE_CONFIG").expect("a configuration file");
        let forked = std::fs::read_to_string(config)
            .unwrap()
            .contains("isolation = \"fork\"");
        assert_eq!(
            workers().len(),
            if forked { 0 } else { 2 },
            "forked: {forked}"
        );
    };
    let worker = scenario(here!(), EVERY_CALL, body);
    worker.assert_success();
    let forked = scenario(
        here!(),
        &format!(
            "{EVERY_CALL}\n[functions.\"scenarios::pure::spread\"]\nisolation = \"fork\"\n\
             [functions.\"scenarios::pure::norm\"]\nisolation = \"fork\""
        ),
        body,
    );
    forked.assert_success();
    let (a, b) = (comparable(&worker), comparable(&forked));
    // Every call was tested before the exit: nothing said of unrun calls.
    assert!(
        !worker.stderr.contains("still waiting for a worker"),
        "{}",
        worker.stderr
    );
    assert_eq!(a.len(), 6 * 4 + 6 * 2, "{}", worker.describe());
    assert_eq!(b.len(), a.len(), "{}", forked.describe());
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x, y, "the worker's record differs from the fork's");
    }
    // The planted defect fails where a permutation moves which element is dropped, on an odd
    // length, either way; the other sites' relations all hold.
    let failed: Vec<String> = worker
        .tests()
        .iter()
        .filter(|t| t.outcome != Pass)
        .map(|t| format!("{} {:?} {}", t.test, t.outcome, t.inputs["xs"]))
        .collect();
    assert!(!failed.is_empty(), "{}", worker.describe());
    assert!(
        failed
            .iter()
            .all(|f| f.starts_with("norm(&permute(xs), scale) == result Fail")),
        "{failed:?}"
    );
    let stats = worker.final_stats();
    let site = stats
        .sites
        .iter()
        .find(|s| s.site == "scenarios::pure::spread")
        .unwrap();
    assert_eq!((site.runs, site.tests), (6, 24), "{site:?}");
}

/// A string slice crosses the ring as its bytes, and a `String` result comes back whole.
#[invite::metamorphic(
    pure,
    initials(&s.to_uppercase()) == result.to_uppercase(),
    initials(&format!("{s} {s}")) == format!("{result}{result}"),
)]
fn initials(s: &str) -> String {
    s.split_whitespace()
        .filter_map(|w| w.chars().next())
        .collect()
}

#[test]
fn a_string_slice_and_a_string_result_cross_to_the_worker_whole() {
    let run = scenario(here!(), EVERY_CALL, || {
        assert_eq!(initials("in vivo testing \u{fc}ber alles"), "ivt\u{fc}a");
        assert!(invite::wait_idle(WAIT));
        assert_eq!(workers().len(), 2, "the worker tested the call");
    });
    run.assert_success();
    let tests = run.tests();
    assert_eq!(tests.len(), 2, "{}", run.describe());
    assert!(
        tests.iter().all(|t| t.outcome == Pass),
        "{}",
        run.describe()
    );
    assert!(
        tests
            .iter()
            .all(|t| t.inputs["s"].contains("in vivo testing \u{fc}ber alles")),
        "{}",
        run.describe()
    );
}

static OFFSET: AtomicU64 = AtomicU64::new(0);

/// Declared pure, but reads a global the program changes.
#[invite::metamorphic(pure, offset_by(x + 1) == result + 1)]
fn offset_by(x: u64) -> u64 {
    x + OFFSET.load(Relaxed)
}

#[test]
fn an_impure_function_is_inconclusive_never_failed_and_forks_from_then_on() {
    let run = scenario(here!(), EVERY_CALL, || {
        // The worker starts with the global at 0 and agrees with the caller.
        offset_by(1);
        assert!(invite::wait_idle(WAIT));
        OFFSET.store(10, Relaxed);
        for x in 0..6 {
            offset_by(x);
            assert!(invite::wait_idle(WAIT));
        }
    });
    run.assert_success();
    let outcomes: Vec<_> = run
        .tests()
        .iter()
        .map(|t| (t.run, t.outcome, t.detail.clone().unwrap_or_default()))
        .collect();
    assert_eq!(outcomes.len(), 7, "{}", run.describe());
    assert!(outcomes.iter().all(|o| o.1 != Fail), "{outcomes:?}");
    assert_eq!(outcomes[0].1, Pass, "{outcomes:?}");
    // Three calls the worker could not reproduce, then the site forks, where the relation holds.
    for o in &outcomes[1..4] {
        assert_eq!(o.1, Inconclusive, "{outcomes:?}");
        assert!(o.2.contains("it is not pure"), "{}", o.2);
        assert!(o.2.contains("where the caller's call gave 1"), "{}", o.2);
    }
    assert!(outcomes[4..].iter().all(|o| o.1 == Pass), "{outcomes:?}");
    let warnings = run.stderr.matches("it is not pure").count();
    assert_eq!(warnings, 1, "said once: {}", run.stderr);
    assert!(
        run.stderr.contains("scenarios::pure::offset_by"),
        "{}",
        run.stderr
    );
}

/// The pids of this scenario's worker processes.
pub(crate) fn workers() -> Vec<i32> {
    support::invite_processes()
        .into_iter()
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .is_ok_and(|c| c.trim() == "invite worker")
                && support::process_state(*pid) != Some('Z')
        })
        .collect()
}

fn signal_workers(signal: i32) -> usize {
    let pids = workers();
    for pid in &pids {
        // SAFETY: a signal to a process of this scenario, found by name and environment.
        unsafe { libc::kill(*pid, signal) };
    }
    pids.len()
}

#[invite::metamorphic(pure, total(&negate(xs)) == -result)]
fn total(xs: &[f64]) -> f64 {
    xs.iter().sum()
}

#[test]
fn a_full_ring_skips_the_test_never_the_call_and_counts_it() {
    // One worker, so one ring (with more, a call finds room in another's).
    let config = format!(
        "{}\nworker_ring_mib = 1",
        EVERY_CALL.replace("max_concurrent = 4", "max_concurrent = 1")
    );
    let run = scenario(here!(), &config, || {
        total(&[1.0, 2.0]);
        assert!(invite::wait_idle(WAIT));
        // A stopped worker reads nothing: the ring fills, and calls go on untested.
        assert_eq!(signal_workers(libc::SIGSTOP), 2, "supervisor and executor");
        let big = vec![0.5f64; 12 << 10];
        for _ in 0..40 {
            assert_eq!(total(&big), 6144.0);
        }
        // One call that could never fit: said once, with the key to raise.
        total(&vec![1.0f64; 80 << 10]);
        signal_workers(libc::SIGCONT);
        assert!(invite::wait_idle(WAIT));
    });
    run.assert_success();
    let stats = run.final_stats();
    let site = stats
        .sites
        .iter()
        .find(|s| s.site == "scenarios::pure::total")
        .unwrap();
    // 96 KiB entries in a 1 MiB ring: about ten fit.
    assert!(site.skipped.ring_full >= 25, "{site:?}");
    assert_eq!(site.sampled, 42, "{site:?}");
    assert_eq!(site.runs + site.skipped.ring_full, 42, "{site:?}");
    assert_eq!(
        site.tests, site.runs,
        "every queued call was tested: {site:?}"
    );
    assert_eq!(site.outcomes.pass, site.runs, "{site:?}");
    assert!(
        run.stderr.contains("raise worker_ring_mib"),
        "{}",
        run.stderr
    );
    assert_eq!(
        run.stderr
            .matches("more than half the worker's ring")
            .count(),
        1
    );
    // It names the call that could never fit, not one that found the ring full.
    let bytes: usize = run
        .stderr
        .split("takes ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next()?.parse().ok())
        .expect("the size of the call that does not fit");
    assert!(bytes > 80 << 13, "{}", run.stderr);
}

#[test]
fn a_call_whose_ring_is_full_goes_to_another_worker_s_before_it_is_skipped() {
    // Two workers (one per CPU, up to `max_concurrent`), so two rings; this thread's calls go
    // to the first (it calls first), another thread's to the second.
    let config = format!(
        "{}\nworker_ring_mib = 1",
        EVERY_CALL.replace("max_concurrent = 4", "max_concurrent = 2")
    );
    let lanes = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(2);
    let run = scenario(here!(), &config, || {
        total(&[1.0, 2.0]);
        std::thread::spawn(|| total(&[3.0])).join().unwrap();
        assert!(invite::wait_idle(WAIT));
        assert_eq!(
            signal_workers(libc::SIGSTOP),
            2 * lanes,
            "both workers stopped"
        );
        let big = vec![0.5f64; 12 << 10];
        for _ in 0..40 {
            assert_eq!(total(&big), 6144.0);
        }
        signal_workers(libc::SIGCONT);
        assert!(invite::wait_idle(WAIT));
    });
    run.assert_success();
    let stats = run.final_stats();
    let site = stats
        .sites
        .iter()
        .find(|s| s.site == "scenarios::pure::total")
        .unwrap();
    // 96 KiB entries in 1 MiB rings: about ten fit in each, and every ring is filled before a
    // call is skipped.
    let big_runs = site.runs - 2;
    assert!(
        big_runs > 10 * (lanes as u64 - 1) && big_runs <= 11 * lanes as u64,
        "{site:?}"
    );
    assert_eq!(site.runs + site.skipped.ring_full, 42, "{site:?}");
    assert_eq!(site.outcomes.pass, site.runs, "{site:?}");
    // Only a call that could never fit is said to: none here.
    assert!(
        !run.stderr.contains("more than half the worker's ring"),
        "{}",
        run.stderr
    );
}

#[test]
fn with_runs_not_hidden_the_program_forks_the_worker_and_it_tests_the_calls() {
    let config = format!("{EVERY_CALL}\nhide_runs = false");
    let run = scenario(here!(), &config, || {
        for i in 0..5 {
            total(&[f64::from(i), 0.5]);
        }
        assert!(invite::wait_idle(WAIT));
        // The supervisor is the program's own child, the executor the supervisor's.
        let program = std::process::id() as i32;
        let workers = workers();
        assert_eq!(workers.len(), 2, "a supervisor and an executor");
        assert!(
            workers
                .iter()
                .any(|&w| support::parent_of(w) == Some(program)),
            "{workers:?}"
        );
    });
    run.assert_success();
    let stats = run.final_stats();
    let site = stats
        .sites
        .iter()
        .find(|s| s.site == "scenarios::pure::total")
        .unwrap();
    assert_eq!((site.runs, site.outcomes.pass), (5, 5), "{site:?}");
}

#[test]
fn a_worker_killed_from_outside_costs_its_calls_and_comes_back() {
    let run = scenario(here!(), EVERY_CALL, || {
        total(&[1.0]);
        assert!(invite::wait_idle(WAIT));
        let killed = workers();
        assert_eq!(signal_workers(libc::SIGKILL), 2);
        assert!(support::eventually(WAIT, || killed.iter().all(
            |p| !support::process_exists(*p) || support::process_state(*p) == Some('Z')
        )));
        for _ in 0..3 {
            total(&[2.0, 3.0]);
        }
        assert!(invite::wait_idle(WAIT));
        assert_eq!(workers().len(), 2, "a new worker took over");
    });
    run.assert_success();
    let outcomes = run.outcomes_of("total(&negate(xs)) == -result");
    assert_eq!(outcomes, vec![Pass; 4], "{}", run.describe());
}

/// A test that takes its time.
fn slowly(_: &u64, _: &u64) -> bool {
    std::thread::sleep(Duration::from_millis(40));
    true
}

#[invite::metamorphic(pure, test = slowly)]
fn slow(x: u64) -> u64 {
    x
}

#[test]
fn calls_still_queued_at_exit_are_drained_then_counted_as_unrun() {
    let config = format!("{EVERY_CALL}\ndrain_ms = 200");
    let run = scenario(here!(), &config, || {
        // One call tested for sure, whatever the machine's load; then more than the worker can
        // test in 200 ms (40 ms each), left queued at exit.
        slow(0);
        assert!(invite::wait_idle(WAIT));
        for x in 1..40 {
            slow(x);
        }
    });
    run.assert_success();
    let stats = run.final_stats();
    let site = stats
        .sites
        .iter()
        .find(|s| s.site == "scenarios::pure::slow")
        .unwrap();
    let tests = run.tests_of("slowly");
    // Every call is accounted for: tested (a test killed at exit is a timeout), or unrun.
    assert_eq!(site.sampled, 40, "{site:?}");
    assert_eq!(
        tests.len() as u64 + site.skipped.unrun,
        40,
        "{site:?}\n{}",
        run.describe()
    );
    assert!(
        site.skipped.unrun > 0,
        "40 tests of 40 ms do not fit 200 ms: {site:?}"
    );
    assert!(
        tests.iter().any(|t| t.outcome == Pass),
        "{}",
        run.describe()
    );
    assert!(
        tests.iter().all(|t| t.outcome == Pass
            || (t.outcome == Timeout && t.detail.as_deref().unwrap_or("").contains("exited"))),
        "{}",
        run.describe()
    );
    assert!(run.stderr.contains("counted as unrun"), "{}", run.stderr);
}

#[test]
fn many_threads_call_pure_sites_at_once_and_lose_nothing() {
    let run = scenario(here!(), EVERY_CALL, || {
        let threads: Vec<_> = (0..4)
            .map(|k| {
                std::thread::spawn(move || {
                    for i in 0..150 {
                        let xs = [k as f64, i as f64, 0.5];
                        std::hint::black_box(total(&xs));
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert!(invite::wait_idle(WAIT));
        // `max_concurrent = 4` on a machine of at least two CPUs: a worker per CPU, up to four,
        // each with its lane of threads.
        let cpus = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(4);
        assert_eq!(
            workers().len(),
            2 * cpus,
            "a supervisor and an executor per worker"
        );
    });
    run.assert_success();
    let stats = run.final_stats();
    let site = stats
        .sites
        .iter()
        .find(|s| s.site == "scenarios::pure::total")
        .unwrap();
    assert_eq!(site.sampled, 600, "{site:?}");
    assert_eq!(site.runs + site.skipped.ring_full, 600, "{site:?}");
    assert_eq!(site.tests, site.runs, "{site:?}");
    assert_eq!(site.outcomes.pass, site.runs, "{site:?}");
    let runs: std::collections::BTreeSet<u64> = run.tests().iter().map(|t| t.run).collect();
    assert_eq!(
        runs.len() as u64,
        site.runs,
        "one record per call, each its own run"
    );
}

/// Hand-written tests that each take the worker's executor down on one input: a store through
/// a null pointer, a loop without end (the site's deadline ends it), an allocation without end
/// (the memory cap ends it), a panic, a call the sandbox refuses, a panic while panicking
/// (which aborts). On every other input they pass.
#[invite::metamorphic(
    pure,
    timeout_ms = 1000,
    test = crashes_on_1,
    test = hangs_on_2,
    test = allocates_on_3,
    test = panics_on_4,
    test = unlocks_on_5,
    test = aborts_on_6,
)]
fn hazard(x: u64) -> u64 {
    x
}

fn crashes_on_1(x: &u64, _result: &u64) -> Result<(), String> {
    if *x == 1 {
        let null = std::hint::black_box(std::ptr::null_mut::<u64>());
        // SAFETY: none: the store is the crash under test, in the worker's executor.
        unsafe { std::ptr::write_volatile(null, 1) };
    }
    Ok(())
}

fn hangs_on_2(x: &u64, _result: &u64) -> Result<(), String> {
    if *x == 2 {
        loop {
            std::hint::spin_loop();
        }
    }
    Ok(())
}

fn allocates_on_3(x: &u64, _result: &u64) -> Result<(), String> {
    if *x == 3 {
        let mut held = Vec::new();
        loop {
            held.push(vec![1u8; 1 << 20]);
            std::hint::black_box(&held);
        }
    }
    Ok(())
}

fn panics_on_4(x: &u64, _result: &u64) -> Result<(), String> {
    assert!(*x != 4, "the frobnicator overflowed at {x}");
    Ok(())
}

fn unlocks_on_5(x: &u64, _result: &u64) -> Result<(), String> {
    if *x == 5 {
        // SAFETY: flock on standard input, which the sandbox refuses before it runs.
        unsafe { libc::flock(0, libc::LOCK_UN) };
    }
    Ok(())
}

fn aborts_on_6(x: &u64, _result: &u64) -> Result<(), String> {
    /// Panics as it is dropped: during the first panic's unwinding, which aborts.
    struct Bomb;
    impl Drop for Bomb {
        fn drop(&mut self) {
            panic!("and again");
        }
    }
    if *x == 6 {
        let _bomb = Bomb;
        panic!("the first panic at {x}");
    }
    Ok(())
}

#[test]
fn a_test_that_crashes_hangs_or_exhausts_memory_costs_one_test_and_the_worker_comes_back() {
    let run = scenario(here!(), &format!("{EVERY_CALL}\nmemory_mb = 16"), || {
        for x in 1..=7 {
            std::hint::black_box(hazard(x));
        }
    });
    run.assert_success();
    let tests: Vec<_> = run
        .tests()
        .into_iter()
        .filter(|t| t.site == "scenarios::pure::hazard")
        .collect();
    assert_eq!(tests.len(), 7 * 6, "{}", run.describe());
    for t in &tests {
        let x = &t.inputs["x"];
        let expected = match (t.test.as_str(), x.as_str()) {
            ("crashes_on_1", "1")
            | ("allocates_on_3", "3")
            | ("panics_on_4", "4")
            | ("aborts_on_6", "6") => Error,
            ("hangs_on_2", "2") => Timeout,
            ("unlocks_on_5", "5") => Blocked,
            _ => Pass,
        };
        // The panic's message, and the refused call, are what the detail says.
        let says = match expected {
            Error if x == "4" => "the frobnicator overflowed at 4",
            // The executor is gone: the first panic's message, as its hook sent it.
            Error if x == "6" => "the first panic at 6",
            Blocked => "flock",
            _ => "",
        };
        let detail = t.detail.as_deref().unwrap_or("");
        assert!(detail.contains(says), "{} on x = {x}: {detail}", t.test);
        assert_eq!(
            t.outcome,
            expected,
            "{} on x = {x}: {:?}\n{}",
            t.test,
            t.detail,
            run.describe()
        );
        if expected != Pass {
            assert!(
                t.detail.as_deref().is_some_and(|d| !d.is_empty()),
                "{} on x = {x} says why",
                t.test
            );
        }
    }
    // Every call was tested, the calls after each loss too: the executor was replaced.
    let runs: std::collections::BTreeSet<u64> = tests.iter().map(|t| t.run).collect();
    assert_eq!(runs.len(), 7, "{}", run.describe());
}

/// A type of the program's own, with no `Travel`: with the `serde` feature it crosses through
/// serde.
#[cfg(feature = "serde")]
mod through_serde {
    #[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    pub struct Reading {
        pub value: f64,
        pub unit: String,
    }

    #[invite::metamorphic(
        pure,
        calibrate(&Reading { value: r.value * 2.0, unit: r.unit.clone() }).value == 2.0 * result.value,
    )]
    pub fn calibrate(r: &Reading) -> Reading {
        Reading {
            value: r.value * 3.0,
            unit: format!("{}·3", r.unit),
        }
    }
}

#[cfg(feature = "serde")]
#[test]
fn with_the_serde_feature_a_serde_type_travels() {
    use through_serde::{calibrate, Reading};
    let run = scenario(here!(), EVERY_CALL, || {
        let r = Reading {
            value: 1.5,
            unit: "mV".into(),
        };
        assert_eq!(calibrate(&r).value, 4.5);
        assert!(invite::wait_idle(WAIT));
        assert_eq!(workers().len(), 2, "the worker tested the call");
    });
    run.assert_success();
    let t = run.tests();
    assert_eq!(t.len(), 1, "{}", run.describe());
    assert_eq!(t[0].outcome, Pass, "{:?}", t[0]);
    assert!(t[0].inputs["r"].contains("mV"), "{:?}", t[0].inputs);
    let stats = run.final_stats();
    let site = stats
        .sites
        .iter()
        .find(|s| s.site.ends_with("through_serde::calibrate"))
        .unwrap();
    assert_eq!(site.runs, 1, "tested by the worker: {site:?}");
}

#[test]
fn an_idle_worker_sleeps() {
    let run = scenario(here!(), EVERY_CALL, || {
        total(&[1.0, 2.0]);
        assert!(invite::wait_idle(WAIT));
        let pids = workers();
        assert_eq!(pids.len(), 2);
        // Both processes wait in the kernel for a call: over a window, they use a small share
        // of it. A worker that spun would use most of a CPU, or on a loaded machine at least
        // its share of one; a process waiting for the CPU is not counted, as a look at its
        // state would count it.
        let cpu = || -> u64 { pids.iter().map(|&p| support::cpu_ticks(p)).sum() };
        let (before, started) = (cpu(), std::time::Instant::now());
        while started.elapsed() < Duration::from_millis(1000) {
            std::thread::sleep(Duration::from_millis(50));
        }
        let used_ms = (cpu() - before) * 1000 / support::ticks_per_second();
        let window_ms = started.elapsed().as_millis() as u64;
        assert!(
            used_ms * 10 <= window_ms,
            "the idle worker used {used_ms} ms of CPU in {window_ms} ms"
        );
        // And it still wakes for the next call.
        total(&[3.0]);
        assert!(invite::wait_idle(WAIT));
    });
    run.assert_success();
    assert_eq!(
        run.outcomes_of("total(&negate(xs)) == -result"),
        vec![Pass; 2]
    );
}

/// A property that takes its time: the executor sleeps in it.
fn after_a_nap(y: f64) -> bool {
    std::thread::sleep(Duration::from_millis(800));
    y.is_finite()
}

#[invite::metamorphic(pure, after_a_nap(result))]
fn napped(x: f64) -> f64 {
    x * 2.0
}

#[test]
fn the_supervisor_sleeps_while_its_executor_runs_a_test() {
    supervisor_sleeps(here!(), EVERY_CALL);
}

#[test]
fn the_supervisor_sleeps_while_its_executor_runs_a_test_with_memory_isolation_only() {
    // No system-call filter: no broker of file opens to wait on.
    supervisor_sleeps(here!(), &format!("{EVERY_CALL}\nsandbox = \"fork\""));
}

/// Runs scenario `name` (the calling test's own): one call whose test sleeps, and the
/// supervisor's CPU while it does.
fn supervisor_sleeps(name: &str, config: &str) {
    let run = scenario(name, config, || {
        napped(1.0);
        // The executor is in the test: its supervisor (the worker whose parent is no worker)
        // waits in the kernel for a frame or the deadline, and uses a small share of the time.
        assert!(support::eventually(WAIT, || workers().len() == 2));
        let pids = workers();
        let supervisor = *pids
            .iter()
            .find(|&&p| support::parent_of(p).is_none_or(|parent| !pids.contains(&parent)))
            .unwrap();
        let (before, started) = (support::cpu_ticks(supervisor), std::time::Instant::now());
        while started.elapsed() < Duration::from_millis(500) {
            std::thread::sleep(Duration::from_millis(20));
        }
        let used_ms =
            (support::cpu_ticks(supervisor) - before) * 1000 / support::ticks_per_second();
        let window_ms = started.elapsed().as_millis() as u64;
        assert!(
            used_ms * 10 <= window_ms,
            "the supervisor used {used_ms} ms of CPU in {window_ms} ms"
        );
        assert!(invite::wait_idle(WAIT));
    });
    run.assert_success();
    assert_eq!(run.outcomes_of("after_a_nap(result)"), vec![Pass]);
}

/// A property that takes CPU: the executor spins in it.
fn after_a_spin(y: f64) -> bool {
    let started = std::time::Instant::now();
    while started.elapsed() < Duration::from_millis(200) {
        std::hint::spin_loop();
    }
    y.is_finite()
}

#[invite::metamorphic(pure, after_a_spin(result))]
fn spun(x: f64) -> f64 {
    x + 1.0
}

#[test]
fn the_worker_s_cpu_time_is_charged_as_a_test_child_s() {
    let config = EVERY_CALL.replace("child_cpu_charge = 0.0", "child_cpu_charge = 1.0");
    let run = scenario(here!(), &config, || {
        spun(1.0);
        spun(2.0);
        assert!(invite::wait_idle(WAIT));
    });
    run.assert_success();
    assert_eq!(run.outcomes_of("after_a_spin(result)"), vec![Pass; 2]);
    // About 0.4 s of the executor's CPU, charged as a share of the run's wall time: more than
    // nothing, and no more than the worker's two processes could use.
    let share = run.final_stats().children_share;
    assert!(share > 0.0 && share <= 2.0, "children_share {share}");
}

#[test]
fn calls_queued_for_a_worker_that_then_died_are_tested_by_the_next() {
    // One worker: the calls cannot go to another's ring.
    let config = EVERY_CALL.replace("max_concurrent = 4", "max_concurrent = 1");
    let run = scenario(here!(), &config, || {
        total(&[1.0]);
        assert!(invite::wait_idle(WAIT));
        // Stopped, the worker looks alive: the calls are queued for it, and no caller asks
        // for another.
        assert_eq!(signal_workers(libc::SIGSTOP), 2);
        for _ in 0..3 {
            total(&[2.0, 3.0]);
        }
        let stopped = workers();
        assert_eq!(signal_workers(libc::SIGKILL), 2);
        assert!(support::eventually(WAIT, || stopped.iter().all(
            |p| !support::process_exists(*p) || support::process_state(*p) == Some('Z')
        )));
        // With no call after its death, the calls it held are still tested, by the next.
        assert!(invite::wait_idle(WAIT));
    });
    run.assert_success();
    let outcomes = run.outcomes_of("total(&negate(xs)) == -result");
    assert_eq!(outcomes, vec![Pass; 4], "{}", run.describe());
}

/// Not declared pure: only `invite.toml` sends it to the worker.
#[invite::metamorphic(
    midrange(&permute(xs)) == result,
    midrange(&add(xs, 1.0)) == result + 1.0,
)]
fn midrange(xs: &[f64]) -> f64 {
    let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (lo + hi) / 2.0
}

/// A type with no `Travel` (and no serde): a site that takes it cannot be copied.
#[derive(Clone, Debug)]
struct Opaque(f64);

#[invite::metamorphic(halved(Opaque(o.0 * 2.0)) == result * 2.0)]
fn halved(o: Opaque) -> f64 {
    o.0 / 2.0
}

/// Generic, its type parameter not bounded by `Travel`: whether it travels is decided once for
/// every instance, and it does not.
#[invite::metamorphic(largest(&permute(xs)) == result)]
fn largest<T: PartialOrd + Copy + std::fmt::Debug>(xs: &[T]) -> T {
    xs.iter()
        .copied()
        .fold(xs[0], |m, x| if x > m { x } else { m })
}

/// Kept out of the worker by its attribute.
#[invite::metamorphic(pure = false, plain(x * 2.0) == result * 2.0)]
fn plain(x: f64) -> f64 {
    x * 3.0
}

#[test]
fn invite_toml_alone_sends_a_site_to_the_worker_where_its_values_can_travel() {
    // Both scenarios run this body: with `isolation = "worker"` for the four sites only
    // `midrange` can go to the worker, and its calls start one; without it nothing does.
    let body = || {
        for k in 0..4 {
            let xs: Vec<f64> = (0..(2 + k)).map(|i| (i * 5 % 3) as f64 - 0.5).collect();
            std::hint::black_box(midrange(&xs));
        }
        for k in 0..3 {
            std::hint::black_box(halved(Opaque(k as f64)));
            std::hint::black_box(plain(k as f64));
            std::hint::black_box(largest(&[k, 7 - k, 2]));
        }
        assert!(invite::wait_idle(WAIT));
        let config = std::env::var("INVITE_CONFIG").expect("a configuration file");
        let sent = std::fs::read_to_string(config)
            .unwrap()
            .contains("isolation = \"worker\"");
        assert_eq!(workers().len(), if sent { 2 } else { 0 }, "sent: {sent}");
    };
    let sent = scenario(
        here!(),
        &format!(
            "{EVERY_CALL}\n[functions.\"scenarios::pure::midrange\"]\nisolation = \"worker\"\n\
             [functions.\"scenarios::pure::halved\"]\nisolation = \"worker\"\n\
             [functions.\"scenarios::pure::largest\"]\nisolation = \"worker\"\n\
             [functions.\"scenarios::pure::plain\"]\nisolation = \"worker\""
        ),
        body,
    );
    sent.assert_success();
    let forked = scenario(here!(), EVERY_CALL, body);
    forked.assert_success();
    // The same records either way, every test passing.
    let (a, b) = (comparable(&sent), comparable(&forked));
    assert_eq!(a.len(), 4 * 2 + 3 * 3, "{}", sent.describe());
    assert_eq!(a, b, "the worker's records differ from the forks'");
    assert!(
        sent.tests().iter().all(|t| t.outcome == Pass),
        "{}",
        sent.describe()
    );
    // Each site the worker cannot take is named once, with why and the fix.
    let said = |needle: &str| sent.stderr.matches(needle).count();
    assert_eq!(
        said(
            "isolation = \"worker\" for scenarios::pure::halved, but its parameter \
             `o: Opaque` cannot travel to the worker: `scenarios::pure::Opaque` implements \
             neither invite::Travel nor"
        ),
        1,
        "{}",
        sent.stderr
    );
    assert_eq!(
        said(
            "isolation = \"worker\" for scenarios::pure::largest, but its parameter \
             `xs: &[T]` cannot travel to the worker: its type names a type parameter whose \
             bounds do not include invite::Travel. Its calls fork; add the bound"
        ),
        1,
        "{}",
        sent.stderr
    );
    assert_eq!(
        said(
            "invite.toml sets isolation = \"worker\" for a site the worker cannot test, whose \
             calls fork; remove the key for it: scenarios::pure::plain (it is compiled \
             `pure = false`)"
        ),
        1,
        "{}",
        sent.stderr
    );
    assert_eq!(said("midrange"), 0, "{}", sent.stderr);
    assert!(!forked.stderr.contains("worker"), "{}", forked.stderr);
}

#[test]
fn a_reloaded_invite_toml_sends_a_site_to_the_worker_while_the_program_runs() {
    let run = scenario(here!(), EVERY_CALL, || {
        let xs = [1.0, -2.0, 4.5];
        std::hint::black_box(midrange(&xs));
        assert!(invite::wait_idle(WAIT));
        assert_eq!(workers().len(), 0, "forked: no worker yet");
        let path = support::scenario_dir().join("invite.toml");
        let started = std::fs::read_to_string(&path).unwrap();
        support::replace_atomically(
            &path,
            &format!(
                "{started}\n[functions.\"scenarios::pure::midrange\"]\nisolation = \"worker\""
            ),
        );
        assert!(invite::reload());
        // The collector applies the file: wait until the site is sent to the worker.
        let site = invite::__private::sites()
            .find(|s| s.name() == "scenarios::pure::midrange")
            .unwrap();
        assert!(support::eventually(WAIT, || site.in_worker()));
        // Other arguments: the same again would be a state tested before.
        std::hint::black_box(midrange(&[0.5, 3.0]));
        assert!(invite::wait_idle(WAIT));
        assert_eq!(
            workers().len(),
            2,
            "the reloaded file's worker tested the call"
        );
    });
    run.assert_success();
    let t = run.tests();
    assert_eq!(t.len(), 4, "{}", run.describe());
    assert!(t.iter().all(|t| t.outcome == Pass), "{}", run.describe());
    let stats = run.final_stats();
    let site = stats
        .sites
        .iter()
        .find(|s| s.site == "scenarios::pure::midrange")
        .unwrap();
    assert_eq!(site.runs, 2, "{site:?}");
}

// Shapes whose copy in the worker might not compile: each keeps the fork's path alone, so that
// the attribute compiles on them as it did before the worker existed.
#[invite::metamorphic(path_len(p) == result)]
fn path_len(p: &std::path::Path) -> usize {
    p.as_os_str().len()
}

#[invite::metamorphic(static_len(word) == result)]
fn static_len(word: &'static str) -> usize {
    word.len()
}

#[invite::metamorphic(shown_len(v) == result)]
fn shown_len(v: &dyn std::fmt::Display) -> usize {
    v.to_string().len()
}

#[invite::metamorphic(with_lifetime(s) == result)]
fn with_lifetime<'a>(s: &'a str) -> usize {
    s.len()
}

#[invite::metamorphic(applied(f, s) == result)]
fn applied(f: for<'a> fn(&'a str) -> &'a str, s: &str) -> usize {
    f(s).len()
}

#[invite::metamorphic(unsized_len(v) == result)]
fn unsized_len<T: ?Sized + AsRef<[u8]>>(v: &T) -> usize {
    v.as_ref().len()
}

#[test]
fn shapes_the_worker_cannot_be_sure_to_copy_fork_and_are_named_why() {
    const SHAPES: [&str; 6] = [
        "path_len",
        "static_len",
        "shown_len",
        "with_lifetime",
        "applied",
        "unsized_len",
    ];
    let config = SHAPES.iter().fold(EVERY_CALL.to_owned(), |c, s| {
        format!("{c}\n[functions.\"scenarios::pure::{s}\"]\nisolation = \"worker\"")
    });
    let run = scenario(here!(), &config, || {
        std::hint::black_box(path_len(std::path::Path::new("/tmp/x")));
        std::hint::black_box(static_len("word"));
        std::hint::black_box(shown_len(&2.5));
        std::hint::black_box(with_lifetime("life"));
        std::hint::black_box(applied(str::trim, " a "));
        std::hint::black_box(unsized_len("bytes"));
        assert!(invite::wait_idle(WAIT));
        assert_eq!(workers().len(), 0, "none of them went to the worker");
    });
    run.assert_success();
    assert_eq!(run.tests().len(), SHAPES.len(), "{}", run.describe());
    assert!(
        run.tests().iter().all(|t| t.outcome == Pass),
        "{}",
        run.describe()
    );
    let line = run
        .stderr
        .lines()
        .find(|l| l.contains("the worker cannot test"))
        .unwrap_or_else(|| panic!("{}", run.stderr));
    for (shape, why) in [
        (
            "path_len",
            "its parameter `p` is a reference to `std::path::Path`",
        ),
        ("static_len", "its parameter `word` names a lifetime"),
        (
            "shown_len",
            "its parameter `v` is a reference to `dyn std::fmt::Display`",
        ),
        ("with_lifetime", "it has lifetime parameters"),
        ("applied", "its parameter `f` names a lifetime"),
        ("unsized_len", "its parameter `v` is a reference to `T`"),
    ] {
        assert!(
            line.contains(&format!("scenarios::pure::{shape} ({why}")),
            "{shape}: {line}"
        );
    }
}

/// An associated function, named at its first call: its entry's deadline applies only then.
struct Late;

impl Late {
    #[invite::metamorphic(pure, Self::late_nap(x) == result)]
    fn late_nap(x: u64) -> u64 {
        if invite::in_test() {
            std::thread::sleep(Duration::from_secs(2));
        }
        x
    }
}

#[test]
fn a_site_named_after_the_worker_started_has_its_entry_s_deadline_there() {
    let config =
        format!("{EVERY_CALL}\n[functions.\"scenarios::pure::Late::late_nap\"]\ntimeout_ms = 200");
    let run = scenario(here!(), &config, || {
        // The worker starts for another site, before this one is named and its entry applied.
        spread(&[1.0, 2.0]);
        assert!(invite::wait_idle(Duration::from_secs(30)));
        assert!(!workers().is_empty());
        Late::late_nap(1);
        assert!(invite::wait_idle(Duration::from_secs(30)));
    });
    run.assert_success();
    let tests = run.tests_of("Self::late_nap(x) == result");
    assert_eq!(tests.len(), 1, "{}", run.describe());
    assert_eq!(tests[0].outcome, Timeout, "{:?}", tests[0]);
    let detail = tests[0].detail.as_deref().unwrap_or_default();
    assert!(detail.contains("deadline of 200 ms"), "{detail}");
}
