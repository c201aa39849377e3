//! Statistical relations: how often they raise a false alarm on correct code, end to end (forked
//! children, independent streams, the test), and the smallest bias each test detects with 30
//! runs per side.
//!
//! `cargo bench --bench statistical`
// A benchmark stands in for a program: it forks, waits and touches memory the way programs do,
// with raw system calls (each with the reason it is sound).
#![allow(unsafe_code)]

use invite::mr::{multiply, reverse};
use invite::record::Outcome;
use invite::stats::{self, Claim, Plan, Test};
use rand::{Rng, SeedableRng};

/// A correct bootstrap sampler: the mean of `draws` values drawn from `xs` with replacement.
fn bootstrap(xs: &[f64], draws: usize) -> f64 {
    let mut rng = invite::rng();
    (0..draws)
        .map(|_| xs[rng.random_range(0..xs.len())])
        .sum::<f64>()
        / draws as f64
}

// One site per test and level, each with one statistical relation, so that each check is judged
// at the level written (nothing shared with another relation).

#[invite::metamorphic(statistical(test = welch, alpha = 0.01) => welch_01(&reverse(xs), draws) == result)]
fn welch_01(xs: &[f64], draws: usize) -> f64 {
    bootstrap(xs, draws)
}

#[invite::metamorphic(statistical(test = mann_whitney, alpha = 0.01) => mw_01(&reverse(xs), draws) == result)]
fn mw_01(xs: &[f64], draws: usize) -> f64 {
    bootstrap(xs, draws)
}

#[invite::metamorphic(statistical(test = ks, alpha = 0.01) => ks_01(&reverse(xs), draws) == result)]
fn ks_01(xs: &[f64], draws: usize) -> f64 {
    bootstrap(xs, draws)
}

#[invite::metamorphic(statistical(test = variance_ratio, alpha = 0.01) =>
    vr_01(&multiply(xs, 10.0), draws) == result * 10.0)]
fn vr_01(xs: &[f64], draws: usize) -> f64 {
    bootstrap(xs, draws)
}

#[invite::metamorphic(statistical(test = welch) => welch_default(&reverse(xs), draws) == result)]
fn welch_default(xs: &[f64], draws: usize) -> f64 {
    bootstrap(xs, draws)
}

#[invite::metamorphic(statistical(test = mann_whitney) => mw_default(&reverse(xs), draws) == result)]
fn mw_default(xs: &[f64], draws: usize) -> f64 {
    bootstrap(xs, draws)
}

#[invite::metamorphic(statistical(test = ks) => ks_default(&reverse(xs), draws) == result)]
fn ks_default(xs: &[f64], draws: usize) -> f64 {
    bootstrap(xs, draws)
}

#[invite::metamorphic(statistical(test = variance_ratio) =>
    vr_default(&multiply(xs, 10.0), draws) == result * 10.0)]
fn vr_default(xs: &[f64], draws: usize) -> f64 {
    bootstrap(xs, draws)
}

type Site = fn(&[f64], usize) -> f64;

/// Checks per site.
const CHECKS: usize = 1_000;

fn false_alarms() {
    let sites: [(&str, &str, Site); 8] = [
        ("welch", "0.01", welch_01),
        ("mann_whitney", "0.01", mw_01),
        ("ks", "0.01", ks_01),
        ("variance_ratio", "0.01", vr_01),
        ("welch", "0.0001 (default)", welch_default),
        ("mann_whitney", "0.0001 (default)", mw_default),
        ("ks", "0.0001 (default)", ks_default),
        ("variance_ratio", "0.0001 (default)", vr_default),
    ];
    let mut setup = rand::rngs::SmallRng::seed_from_u64(2026);
    println!(
        "False alarms on a correct bootstrap sampler, {CHECKS} checks per row, 30 runs per side"
    );
    println!("| test | α | checks | failed | rate | other outcomes |");
    println!("| --- | --- | --- | --- | --- | --- |");
    let mut total = 0;
    for (test, alpha, site) in sites {
        let started = std::time::Instant::now();
        let checked = invite::check(|| {
            for _ in 0..CHECKS {
                // Fresh data for every check: a trend plus noise, 10 to 40 values.
                let n = setup.random_range(10..40);
                let xs: Vec<f64> = (0..n)
                    .map(|i| {
                        i as f64 * setup.random_range(0.1..2.0) + setup.random_range(-1.0..1.0)
                    })
                    .collect();
                site(&xs, 200);
            }
        });
        let fails = checked
            .tests
            .iter()
            .filter(|t| t.outcome == Outcome::Fail)
            .count();
        let others: Vec<String> = checked
            .tests
            .iter()
            .filter(|t| !matches!(t.outcome, Outcome::Fail | Outcome::Pass))
            .map(|t| format!("{:?}: {}", t.outcome, t.detail.clone().unwrap_or_default()))
            .collect();
        total += checked.tests.len();
        println!(
            "| {test} | {alpha} | {} | {fails} | {:.4} | {} |",
            checked.tests.len(),
            fails as f64 / checked.tests.len().max(1) as f64,
            if others.is_empty() {
                "none".to_string()
            } else {
                others.join("; ")
            }
        );
        eprintln!(
            "  ({test} at {alpha}: {:.1} s)",
            started.elapsed().as_secs_f64()
        );
    }
    println!("({total} checks in all)\n");
}

/// A standard normal draw (Box-Muller).
fn normal(rng: &mut impl Rng) -> f64 {
    let u: f64 = rng.random_range(f64::EPSILON..1.0);
    let v: f64 = rng.random();
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

/// The share of `reps` pairs of 30-value normal samples, the second shifted by `shift` standard
/// deviations and spread `ratio` times as wide, in which `test` finds a difference at `alpha`.
fn power(test: Test, alpha: f64, shift: f64, ratio: f64, reps: usize, rng: &mut impl Rng) -> f64 {
    let plan = Plan {
        test,
        alpha,
        ..Plan::default()
    };
    let mut found = 0;
    for _ in 0..reps {
        let a: Vec<f64> = (0..stats::DEFAULT_RUNS).map(|_| normal(rng)).collect();
        let b: Vec<f64> = (0..stats::DEFAULT_RUNS)
            .map(|_| shift + ratio * normal(rng))
            .collect();
        if stats::judge(&plan, Claim::Same, &a, &b, None, 0.0).0 == Outcome::Fail {
            found += 1;
        }
    }
    found as f64 / reps as f64
}

fn smallest_bias() {
    const REPS: usize = 2_000;
    let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
    println!(
        "Smallest difference found in at least 50% and 90% of {REPS} trials, 30 runs per side \
         (normal samples; a shift in standard deviations, or a ratio of standard deviations)"
    );
    println!("| test | α | difference | found in 50% | found in 90% |");
    println!("| --- | --- | --- | --- | --- |");
    for alpha in [stats::DEFAULT_ALPHA, 0.01] {
        for test in Test::ALL {
            let spread = test == Test::VarianceRatio;
            let at = |x: f64, rng: &mut rand::rngs::SmallRng| {
                if spread {
                    power(test, alpha, 0.0, x, REPS, rng)
                } else {
                    power(test, alpha, x, 1.0, REPS, rng)
                }
            };
            let (start, step) = if spread { (1.0, 0.05) } else { (0.0, 0.05) };
            let mut half = None;
            let mut most = None;
            let mut x = start;
            while most.is_none() && x < start + 6.0 {
                let p = at(x, &mut rng);
                if p >= 0.5 && half.is_none() {
                    half = Some(x);
                }
                if p >= 0.9 {
                    most = Some(x);
                }
                x += step;
            }
            let show = |v: Option<f64>| v.map_or("beyond the grid".into(), |v| format!("{v:.2}"));
            println!(
                "| {} | {alpha} | {} | {} | {} |",
                test.name(),
                if spread {
                    "sd ratio"
                } else {
                    "mean shift (sd)"
                },
                show(half),
                show(most)
            );
        }
    }
    // And at no difference: the false-alarm rate of the test alone, at α = 0.01.
    let at_zero: Vec<String> = Test::ALL
        .iter()
        .map(|&t| {
            format!(
                "{} {:.4}",
                t.name(),
                power(t, 0.01, 0.0, 1.0, 20_000, &mut rng)
            )
        })
        .collect();
    println!(
        "\nAt no difference, α = 0.01, 20,000 trials: {}",
        at_zero.join(", ")
    );
}

fn main() {
    false_alarms();
    smallest_bias();
}
