//! Statistical relations: each side runs many times on independent streams, and a two-sample
//! test judges the samples. Each test here has a defect that a named test must catch, and the
//! correct code beside it that must pass.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::support::scenario;
use invite::mr::{add, multiply, reverse};
use invite::record::Outcome::{self, *};
use rand::Rng;

/// Fixed streams: each verdict here is the same on every run, so none can be a false alarm
/// that comes and goes (the rates of false alarms are measured in `benches/statistical.rs`).
const SEEDED: &str = "seed = 20261123\ndefault_rho = 0.0\n";

/// The sampler of `examples/sampler.rs`, correct and with its defect.
fn bootstrap(xs: &[f64], draws: usize, end: usize) -> f64 {
    let mut rng = invite::rng();
    (0..draws)
        .map(|_| xs[rng.random_range(0..end)])
        .sum::<f64>()
        / draws as f64
}

#[invite::metamorphic(
    statistical(runs = 30, test = welch) => sampler(&reverse(xs), draws) == result,
    statistical(test = variance_ratio) => sampler(&multiply(xs, 10.0), draws) == result * 10.0,
)]
fn sampler(xs: &[f64], draws: usize) -> f64 {
    bootstrap(xs, draws, xs.len())
}

#[invite::metamorphic(
    statistical(runs = 30, test = welch) => faulty_sampler(&reverse(xs), draws) == result,
    statistical(test = variance_ratio) =>
        faulty_sampler(&multiply(xs, 10.0), draws) == result * 10.0,
)]
fn faulty_sampler(xs: &[f64], draws: usize) -> f64 {
    bootstrap(xs, draws, xs.len() - 1)
}

/// `x` plus noise whose spread is proportional to `x`: scaling `x` scales the whole
/// distribution. The relations' texts name each test.
#[invite::metamorphic(
    statistical(test = welch) => noisy(10.0 * x) == result * 10.0,
    statistical(test = mann_whitney) => noisy(10.0 * x) == result * 10.0,
    statistical(runs = 100, test = ks) => noisy(10.0 * x) == result * 10.0,
    statistical(test = variance_ratio) => noisy(10.0 * x) == result * 10.0,
)]
fn noisy(x: f64) -> f64 {
    x + 0.1 * x * invite::rng().random_range(-1.0..1.0)
}

/// The defect: the noise's spread stays fixed, so the mean scales but the spread does not. Only
/// the tests that look past the mean can see it.
#[invite::metamorphic(
    statistical(test = welch) => fixed_noise(10.0 * x) == result * 10.0,
    statistical(test = mann_whitney) => fixed_noise(10.0 * x) == result * 10.0,
    statistical(runs = 100, test = ks) => fixed_noise(10.0 * x) == result * 10.0,
    statistical(test = variance_ratio) => fixed_noise(10.0 * x) == result * 10.0,
)]
fn fixed_noise(x: f64) -> f64 {
    x + 0.1 * 10.0 * invite::rng().random_range(-1.0..1.0)
}

/// A noisy increasing function, and one that decreases past 10: `>=` in distribution.
#[invite::metamorphic(
    statistical(test = welch) => rising(x + 1.0) >= result,
    statistical(test = mann_whitney) => rising(x + 1.0) > result,
    statistical(test = welch) => rising(x - 1.0) <= result,
)]
fn rising(x: f64) -> f64 {
    let trend = if x < 10.0 { x } else { 20.0 - x };
    trend * 5.0 + invite::rng().random_range(-1.0..1.0)
}

fn outcomes(checked: &invite::Checked, text: &str) -> Vec<Outcome> {
    let found: Vec<Outcome> = checked
        .tests
        .iter()
        .filter(|t| t.test.ends_with(text))
        .map(|t| t.outcome)
        .collect();
    assert!(!found.is_empty(), "no test ends with {text:?}: {checked:?}");
    found
}

fn detail(checked: &invite::Checked, text: &str) -> String {
    checked
        .tests
        .iter()
        .find(|t| t.test.ends_with(text))
        .and_then(|t| t.detail.clone())
        .unwrap_or_default()
}

#[test]
fn a_sampler_that_never_draws_its_last_element_is_caught_and_the_correct_one_passes() {
    let run = scenario(here!(), SEEDED, || {
        let xs: Vec<f64> = (1..=20).map(f64::from).collect();
        let good = invite::check(|| {
            for _ in 0..10 {
                sampler(&xs, 400);
            }
        });
        good.assert_passed();
        assert_eq!(good.tests.len(), 20, "{good:?}");
        let bad = invite::check(|| {
            for _ in 0..10 {
                faulty_sampler(&xs, 400);
            }
        });
        let reversed = "faulty_sampler(&reverse(xs), draws) == result";
        assert_eq!(outcomes(&bad, reversed), vec![Fail; 10], "{bad:?}");
        let d = detail(&bad, reversed);
        assert!(
            d.starts_with("Welch's t-test, 30 runs per side, claim: the same mean; left mean "),
            "{d}"
        );
        // Reversed, the sampler draws from 20 down to 2 (mean 11) instead of 1 to 19 (mean 10).
        let mean_after = |label: &str| -> f64 {
            let rest =
                &d[d.find(label).unwrap_or_else(|| panic!("{label} in {d}")) + label.len()..];
            rest.split(',').next().unwrap().parse().unwrap()
        };
        assert!((mean_after("left mean ") - 11.0).abs() < 0.2, "{d}");
        assert!((mean_after("right mean ") - 10.0).abs() < 0.2, "{d}");
        assert!(d.contains("(0.0001 over 2 checks)"), "{d}");
        // Scaling holds in distribution for the defective sampler too.
        assert_eq!(
            outcomes(
                &bad,
                "faulty_sampler(&multiply(xs, 10.0), draws) == result * 10.0"
            ),
            vec![Pass; 10]
        );
        // Without `runs`, each side runs 30 times.
        let d = detail(
            &bad,
            "faulty_sampler(&multiply(xs, 10.0), draws) == result * 10.0",
        );
        assert!(
            d.starts_with("the variance-ratio F-test, 30 runs per side"),
            "{d}"
        );
    });
    run.assert_success();
}

#[test]
fn a_spread_that_does_not_scale_is_caught_by_the_tests_that_look_past_the_mean() {
    let run = scenario(here!(), SEEDED, || {
        let good = invite::check(|| {
            noisy(50.0);
            noisy(80.0);
        });
        good.assert_passed();
        assert_eq!(good.tests.len(), 8);
        let bad = invite::check(|| {
            fixed_noise(50.0);
            fixed_noise(80.0);
        });
        let by_test = |test: &str| {
            outcomes(
                &bad,
                &format!("test = {test}) => fixed_noise(10.0 * x) == result * 10.0"),
            )
        };
        // The means agree (x scales); the spread is off by a factor of ten. The F-test sees
        // that in 30 runs; the Kolmogorov-Smirnov test, whose statistic stays near 0.45 for two
        // distributions with one centre, needs about 100.
        assert_eq!(by_test("welch"), vec![Pass, Pass], "{bad:?}");
        assert_eq!(by_test("variance_ratio"), vec![Fail, Fail], "{bad:?}");
        assert_eq!(by_test("ks"), vec![Fail, Fail], "{bad:?}");
    });
    run.assert_success();
}

#[test]
fn one_sided_relations_fail_only_where_the_claim_is_broken() {
    let run = scenario(here!(), SEEDED, || {
        let rising_part = invite::check(|| {
            rising(2.0);
            rising(5.0);
        });
        rising_part.assert_passed();
        let falling_part = invite::check(|| {
            rising(14.0);
        });
        assert_eq!(
            outcomes(&falling_part, "rising(x + 1.0) >= result"),
            vec![Fail]
        );
        assert_eq!(
            outcomes(&falling_part, "rising(x + 1.0) > result"),
            vec![Fail]
        );
        assert_eq!(
            outcomes(&falling_part, "rising(x - 1.0) <= result"),
            vec![Fail]
        );
        let d = detail(&falling_part, "rising(x + 1.0) >= result");
        assert!(
            d.contains("claim: the left mean is not below the right"),
            "{d}"
        );
    });
    run.assert_success();
}

static CALLS: AtomicU64 = AtomicU64::new(0);

/// Not random at all, but drifting: every call returns more than the last. Its runs are not
/// samples of one distribution, and the control says so instead of a verdict.
#[invite::metamorphic(
    statistical(control = true) => drifting(x) == result,
    statistical(control = false) => drifting(add(x, 0.0)) == result,
)]
fn drifting(x: f64) -> f64 {
    x + CALLS.fetch_add(1, Ordering::Relaxed) as f64
}

#[test]
fn a_control_that_differs_from_itself_makes_the_verdict_inconclusive() {
    let run = scenario(here!(), SEEDED, || {
        let checked = invite::check(|| {
            drifting(1.0);
        });
        let controlled = "statistical(control = true) => drifting(x) == result";
        assert_eq!(outcomes(&checked, controlled), vec![Inconclusive]);
        let d = detail(&checked, controlled);
        assert!(d.starts_with("the control failed"), "{d}");
        // Without the control, the drift goes unseen: the two sides run in turns, so each
        // left run is one call later than its right run, and both samples drift alike.
        assert_eq!(
            outcomes(&checked, "drifting(add(x, 0.0)) == result"),
            vec![Pass]
        );
    });
    run.assert_success();
}

/// Draws from the stream a fixed number of times: any two runs that share a stream give the
/// same result.
#[invite::metamorphic(statistical(runs = 40, test = ks) => draw(x) == result)]
fn draw(x: f64) -> f64 {
    x + invite::rng().random::<f64>()
}

#[test]
fn every_run_draws_from_its_own_stream_and_a_replay_draws_the_same() {
    let run = scenario(here!(), SEEDED, || {
        let first = invite::check(|| {
            draw(0.0);
        });
        first.assert_passed();
        let d = detail(&first, "draw(x) == result");
        // Runs on a shared stream would give one value eighty times, and the "same values".
        assert!(
            d.starts_with("the Kolmogorov-Smirnov test, 40 runs per side"),
            "{d}"
        );
        let sds: Vec<f64> = d
            .split("sd ")
            .skip(1)
            .map(|s| s.split(';').next().unwrap().parse().unwrap())
            .collect();
        assert_eq!(sds.len(), 2, "{d}");
        // A uniform draw's standard deviation is 1/√12 ≈ 0.289.
        for sd in sds {
            assert!((0.2..0.4).contains(&sd), "{d}");
        }
        // The logged seeds give back the same streams, so the same samples and p-value.
        let seeds = first.tests[0].seeds.clone();
        let again = invite::check_replaying(&seeds, || {
            draw(0.0);
        });
        assert_eq!(detail(&again, "draw(x) == result"), d);
    });
    run.assert_success();
}
