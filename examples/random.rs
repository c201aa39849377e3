//! A nondeterministic function checked through the replayed random stream.
//!
//! `pick_weighted` draws from `invite::rng()`. In a test child every execution starts from the
//! stream the live call saw, so scaling all weights by three must pick the same item, even
//! though each live call picks at random. The defect: for large total weights a "fast path"
//! draws an integer in `0..total`, truncating the weights and consuming the stream differently,
//! so scaled weights pick other items. Each single pick still looks random and plausible.
//!
//! ```text
//! cargo run --release --example random
//! ```

use invite::mr::multiply;
use invite::record::{Outcome, Record};
use rand::{Rng, SeedableRng};

/// Index of an item drawn with probability proportional to its weight.
#[invite::metamorphic(
    pick_weighted(&multiply(weights, 3.0)) == result,
    pick_weighted(&multiply(weights, 0.5)) == result,
    result < weights.len(),
    rho = 0.05,
)]
pub fn pick_weighted(weights: &[f64]) -> usize {
    let total: f64 = weights.iter().sum();
    let mut r = if total > 1000.0 {
        // DEFECT: the integer draw truncates weights and consumes the stream differently.
        invite::rng().random_range(0..total as u32) as f64
    } else {
        invite::rng().random::<f64>() * total
    };
    for (i, w) in weights.iter().enumerate() {
        if r < *w {
            return i;
        }
        r -= w;
    }
    weights.len() - 1
}

fn main() {
    let mut setup = rand::rngs::SmallRng::seed_from_u64(3);
    let mut counts = [0u64; 8];
    let rounds = 3_000_000;
    for _ in 0..rounds {
        // Most requests come with large weights.
        let scale = if setup.random_bool(0.7) { 400.0 } else { 10.0 };
        let weights: Vec<f64> = (0..8)
            .map(|_| setup.random_range(0.1..1.0) * scale)
            .collect();
        counts[pick_weighted(&weights)] += 1;
    }
    println!("Picks per item over {rounds} draws: {counts:?}");
    invite::shutdown();

    let pid = std::process::id();
    let log = std::fs::read_to_string("invite-log.jsonl").unwrap_or_default();
    let mut by_outcome = std::collections::BTreeMap::new();
    let mut first_failure = None;
    for line in log.lines() {
        if let Ok(Record::Test(t)) = Record::from_line(line) {
            if t.pid == pid {
                *by_outcome.entry(t.outcome.as_str()).or_insert(0) += 1;
                if t.outcome == Outcome::Fail && first_failure.is_none() {
                    first_failure = Some(t);
                }
            }
        }
    }
    println!("Invite outcomes: {by_outcome:?}");
    if let Some(t) = first_failure {
        println!(
            "  first failure: {} ({})",
            t.test,
            t.detail.unwrap_or_default()
        );
        println!("  weights: {}", t.inputs["weights"]);
        println!(
            "  replay with rng seed {} at word {}",
            t.seeds.rng_seed, t.seeds.rng_word_pos
        );
    }
}
