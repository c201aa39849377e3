//! One instance of a fleet: sixteen numerical functions under a steady workload, each with its
//! relations, one of them defective. Run several with `INVITE_SHARD=K/N` and they share the
//! testing: each instance tests only its share of the (function, relation) pairs.
//!
//! ```text
//! INVITE_CONFIG=invite.toml INVITE_SHARD=0/2 cargo run --release --example fleet &
//! INVITE_CONFIG=invite.toml INVITE_SHARD=1/2 cargo run --release --example fleet
//! ```
//!
//! It runs until its standard input ends or has a line, or for `FLEET_SECONDS` (default 60),
//! and then prints the rounds of its workload it ran (every function once a round).
//! With the `metrics` feature and `FLEET_METRICS=127.0.0.1:PORT` it serves its metrics there
//! for Prometheus to scrape; then, once its workload stops, it shuts Invite down and goes on
//! serving until its standard input ends, so that a last scrape sees the final totals.

use std::io::BufRead;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Declares one instrumented function: `f(xs) = weight · Σ xs`, linear in its input, with the
/// relation that says so.
macro_rules! linear {
    ($name:ident, $weight:expr) => {
        #[invite::metamorphic($name(&invite::mr::multiply(xs, 2.0)) == 2.0 * result)]
        pub fn $name(xs: &[f64]) -> f64 {
            $weight * xs.iter().sum::<f64>()
        }
    };
}

linear!(site_00, 1.0);
linear!(site_01, 2.0);
linear!(site_02, 3.0);
linear!(site_03, 0.5);
linear!(site_04, 1.5);
linear!(site_05, 2.5);
linear!(site_06, 0.25);

/// The defect: inputs longer than five elements lose their last one, so doubling still
/// doubles but the sum of an input repeated is no longer twice its sum. Two relations: the
/// fleet shares (function, relation) pairs, not functions.
#[invite::metamorphic(
    site_07(&invite::mr::multiply(xs, 2.0)) == 2.0 * result,
    site_07(&[xs, xs].concat()) == 2.0 * result,
)]
pub fn site_07(xs: &[f64]) -> f64 {
    let n = if xs.len() > 5 { xs.len() - 1 } else { xs.len() };
    xs[..n].iter().sum()
}

linear!(site_08, 4.0);
linear!(site_09, 5.0);
linear!(site_10, 6.0);
linear!(site_11, 7.0);
linear!(site_12, 8.0);
linear!(site_13, 9.0);
linear!(site_14, 10.0);
linear!(site_15, 11.0);

/// Every function once, on inputs drawn from `rng`.
fn round(rng: &mut u64, out: &mut f64) {
    let mut next = || {
        *rng ^= *rng << 13;
        *rng ^= *rng >> 7;
        *rng ^= *rng << 17;
        (*rng % 1000) as f64 / 100.0
    };
    let xs: Vec<f64> = (0..(next() as usize % 4 + 3)).map(|_| next()).collect();
    let fs: [fn(&[f64]) -> f64; 16] = [
        site_00, site_01, site_02, site_03, site_04, site_05, site_06, site_07, site_08, site_09,
        site_10, site_11, site_12, site_13, site_14, site_15,
    ];
    for f in fs {
        *out += f(&xs);
    }
}

static STOP: AtomicBool = AtomicBool::new(false);

fn main() {
    let serving = serve_metrics();
    let seconds: u64 = std::env::var("FLEET_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    std::thread::spawn(|| {
        // Any line, or the end of standard input, stops the workload.
        let mut line = String::new();
        let _ = std::io::stdin().lock().read_line(&mut line);
        STOP.store(true, Ordering::Relaxed);
    });
    let started = Instant::now();
    let limit = Duration::from_secs(seconds);
    let mut rng = 0x9e37_79b9_7f4a_7c15u64 ^ u64::from(std::process::id());
    let (mut rounds, mut out) = (0u64, 0.0);
    // With FLEET_PROGRESS, the rounds so far every hundred rounds, for whoever compares loads.
    let progress = std::env::var_os("FLEET_PROGRESS").is_some();
    while !STOP.load(Ordering::Relaxed) && started.elapsed() < limit {
        round(&mut rng, &mut out);
        rounds += 1;
        if progress && rounds.is_multiple_of(100) {
            println!("{rounds}");
        }
        // A service between requests: about 10,000 rounds a second at most.
        std::thread::sleep(Duration::from_micros(100));
    }
    invite::shutdown();
    println!("{rounds} rounds ({out:.0})");
    if serving {
        // The listener's thread serves the totals as they stand after shutdown; wait until
        // whoever reads them closes standard input.
        let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
    }
}

/// Starts serving metrics if `FLEET_METRICS` asks for it; returns whether it does.
#[cfg(feature = "metrics")]
fn serve_metrics() -> bool {
    use metrics_exporter_prometheus::{Matcher, PrometheusBuilder};
    let Ok(addr) = std::env::var("FLEET_METRICS") else {
        return false;
    };
    let addr: std::net::SocketAddr = addr.parse().expect("FLEET_METRICS is host:port");
    // Before the first instrumented call, so that the counters count from Invite's start.
    PrometheusBuilder::new()
        .with_http_listener(addr)
        // Buckets make the durations a Prometheus histogram, which sums across the fleet
        // (the exporter's default, a summary of quantiles, does not).
        .set_buckets_for_metric(
            Matcher::Full("invite_test_duration_seconds".into()),
            &[
                0.000_1, 0.000_5, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0,
            ],
        )
        .expect("buckets are given")
        .install()
        .expect("the metrics listener starts");
    true
}

#[cfg(not(feature = "metrics"))]
fn serve_metrics() -> bool {
    if std::env::var_os("FLEET_METRICS").is_some() {
        eprintln!("FLEET_METRICS needs the `metrics` feature: cargo run --features metrics ...");
    }
    false
}
