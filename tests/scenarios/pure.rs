//! Pure sites: their sampled calls are tested by the worker, not a fork. The same tests give
//! the same records either way; a function declared pure that is not is caught and moved back
//! to forking; a relation that crashes, hangs or is blocked costs one test; a killed worker
//! comes back; a full ring and an exit with calls still queued lose nothing silently.

use crate::support::{self, scenario};
use invite::mr::{add, multiply, negate, permute};
use invite::record::Outcome::*;

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
    let worker = scenario(here!(), EVERY_CALL, workload);
    worker.assert_success();
    let forked = scenario(
        here!(),
        &format!(
            "{EVERY_CALL}\n[functions.\"scenarios::pure::spread\"]\nisolation = \"fork\"\n\
             [functions.\"scenarios::pure::norm\"]\nisolation = \"fork\""
        ),
        workload,
    );
    forked.assert_success();
    let (a, b) = (comparable(&worker), comparable(&forked));
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

/// Hand-written tests that each take the worker's executor down on one input: a store through
/// a null pointer, a loop without end (the site's deadline ends it), an allocation without end
/// (the memory cap ends it). On every other input they pass.
#[invite::metamorphic(
    pure,
    timeout_ms = 300,
    test = crashes_on_1,
    test = hangs_on_2,
    test = allocates_on_3,
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

#[test]
fn a_test_that_crashes_hangs_or_exhausts_memory_costs_one_test_and_the_worker_comes_back() {
    let run = scenario(here!(), &format!("{EVERY_CALL}\nmemory_mb = 64"), || {
        for x in 1..=5 {
            std::hint::black_box(hazard(x));
        }
    });
    run.assert_success();
    let tests: Vec<_> = run
        .tests()
        .into_iter()
        .filter(|t| t.site == "scenarios::pure::hazard")
        .collect();
    assert_eq!(tests.len(), 5 * 3, "{}", run.describe());
    for t in &tests {
        let x = &t.inputs["x"];
        let expected = match (t.test.as_str(), x.as_str()) {
            ("crashes_on_1", "1") | ("allocates_on_3", "3") => Error,
            ("hangs_on_2", "2") => Timeout,
            _ => Pass,
        };
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
    assert_eq!(runs.len(), 5, "{}", run.describe());
}
