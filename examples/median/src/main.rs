//! Two thousand batches of 1 to 49 readings each, their medians summed up. Run it from this
//! directory, where its `invite.toml` is: every call is tested, and the program prints the
//! report of its own run when it exits.

use rand::{Rng, SeedableRng};

fn main() {
    let batches: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(2000);
    let mut rng = rand::rngs::StdRng::seed_from_u64(2026);
    let mut total = 0.0;
    for _ in 0..batches {
        let len = rng.random_range(1..50);
        let readings: Vec<f64> = (0..len)
            .map(|_| (rng.random_range(-1e6..1e6f64) * 100.0).round() / 100.0)
            .collect();
        total += invite_example_median::median(&readings);
    }
    println!(
        "{batches} batches, mean median {:.2}",
        total / batches as f64
    );
}
