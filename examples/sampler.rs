//! A random sampler checked statistically: its relations hold in distribution, not call by call.
//!
//! `bootstrap_mean(xs, draws)` averages `draws` elements drawn from `xs` with replacement.
//! Reversing `xs` changes which element every draw picks, so no run of the reversed input can be
//! compared with a run of the original; but the distribution of the results must not change. So
//! each side runs 30 times, each run on its own random stream, and a test compares the samples:
//!
//! - reversed data, Welch's t-test on the means;
//! - permuted data, the Kolmogorov-Smirnov test on the whole distributions;
//! - data times ten against results times ten, the variance ratio: each right-hand run is
//!   multiplied, so its variance is a hundred times the original's, as it must be.
//!
//! The defect: the index is drawn from `0..len - 1`, so the last element is never picked. Each
//! result still looks like a plausible mean. Reversing moves another element last, and the mean
//! of the results moves with it. `--fixed` runs the correct sampler, whose relations hold.
//!
//! ```text
//! cargo run --release --features statistical --example sampler             # the defect is found
//! cargo run --release --features statistical --example sampler -- --fixed  # the correct one passes
//! ```

use std::sync::atomic::{AtomicBool, Ordering};

use invite::mr::{multiply, permute, reverse};
use invite::record::{Outcome, Record};
use rand::{Rng, SeedableRng};

/// Whether the sampler draws from the whole slice (`--fixed`).
static FIXED: AtomicBool = AtomicBool::new(false);

/// The mean of `draws` elements of `xs`, drawn with replacement.
#[invite::metamorphic(
    statistical(test = welch) => bootstrap_mean(&reverse(xs), draws) == result,
    statistical(test = ks) => bootstrap_mean(&permute(xs), draws) == result,
    statistical(test = variance_ratio) =>
        bootstrap_mean(&multiply(xs, 10.0), draws) == result * 10.0,
)]
pub fn bootstrap_mean(xs: &[f64], draws: usize) -> f64 {
    if xs.is_empty() || draws == 0 {
        return f64::NAN;
    }
    let end = if FIXED.load(Ordering::Relaxed) {
        xs.len()
    } else {
        // DEFECT: an exclusive bound one short, so the last element is never drawn.
        (xs.len() - 1).max(1)
    };
    let mut rng = invite::rng();
    let total: f64 = (0..draws).map(|_| xs[rng.random_range(0..end)]).sum();
    total / draws as f64
}

fn main() {
    let fixed = std::env::args().any(|a| a == "--fixed");
    FIXED.store(fixed, Ordering::Relaxed);
    let mut setup = rand::rngs::SmallRng::seed_from_u64(11);
    // The workload's size: a number among the arguments if one is given (`-- 20000`).
    let rounds: u64 = match std::env::args().skip(1).find(|a| a != "--fixed") {
        None => 200_000,
        Some(a) => a.parse().unwrap_or_else(|_| {
            eprintln!(
                "sampler: the arguments are --fixed and how many requests to serve, a whole \
                 number; got `{a}`"
            );
            std::process::exit(2)
        }),
    };
    let mut estimates = 0.0;
    for _ in 0..rounds {
        // Each request brings its own data: a trend plus noise, so the ends differ.
        let n = setup.random_range(8..40);
        let slope = setup.random_range(0.5..2.0);
        let xs: Vec<f64> = (0..n)
            .map(|i| slope * i as f64 + setup.random_range(-1.0..1.0))
            .collect();
        // A thousand draws a call: enough that the defect's shift of the mean stands out on
        // every input (Welch's statistic is 10 or more on the least favourable data; at 400
        // draws it falls to 6, where about one check in two thousand would miss it).
        estimates += bootstrap_mean(&xs, 1000);
    }
    println!(
        "{} sampler: {rounds} bootstrap means, average {:.3}",
        if fixed { "fixed" } else { "defective" },
        estimates / rounds as f64
    );
    invite::shutdown();

    let pid = std::process::id();
    let log = std::fs::read_to_string("invite-log.jsonl").unwrap_or_default();
    let mut by_test: std::collections::BTreeMap<String, std::collections::BTreeMap<&str, u32>> =
        Default::default();
    let mut first_failure = None;
    for line in log.lines() {
        if let Ok(Record::Test(t)) = Record::from_line(line) {
            if t.pid == pid {
                *by_test
                    .entry(t.test.clone())
                    .or_default()
                    .entry(t.outcome.as_str())
                    .or_insert(0) += 1;
                if t.outcome == Outcome::Fail && first_failure.is_none() {
                    first_failure = Some(t);
                }
            }
        }
    }
    for (test, outcomes) in &by_test {
        println!("  {test}: {outcomes:?}");
    }
    match first_failure {
        Some(t) => {
            println!("First failure: {}", t.test);
            println!("  {}", t.detail.unwrap_or_default());
            println!("  xs = {}", t.inputs["xs"]);
        }
        None => println!("No relation failed."),
    }
}
