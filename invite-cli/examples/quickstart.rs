//! A sensor pipeline that summarises batches of readings, checked by metamorphic relations
//! while it runs.
//!
//! `stats::mean` carries a real, quiet defect: its four-way unrolled sum stops one element short
//! in the remainder loop, so for batches whose length is not a multiple of four the last reading
//! is dropped. Every figure the pipeline prints still looks plausible; no single output is
//! obviously wrong. The relations catch it: permuting a batch must not change its mean, and after
//! a permutation a different reading sits last and is dropped.
//!
//! At the end it shows the report of its own run (the library behind `invite report`).
//!
//! Run from the repository root, which holds the `invite.toml` this example reads:
//!
//! ```text
//! cargo run --release -p invite-mt-cli --example quickstart
//! ```

use rand::{Rng, SeedableRng};

mod stats {
    use invite::mr::{add, include, multiply, negate, permute};

    /// Arithmetic mean.
    #[invite::metamorphic(
        mean(&permute(xs)) == result,
        mean(&add(xs, 10.0)) == result + 10.0,
        mean(&multiply(xs, 3.0)) == result * 3.0,
        if !xs.is_empty() => mean(&include(xs, result)) == result,
        rho = 0.02,
    )]
    pub fn mean(xs: &[f64]) -> f64 {
        if xs.is_empty() {
            return 0.0;
        }
        // Four independent accumulators let the loop vectorise.
        let mut acc = [0.0f64; 4];
        let chunks = xs.len() / 4;
        for c in 0..chunks {
            for lane in 0..4 {
                acc[lane] += xs[c * 4 + lane];
            }
        }
        let mut sum = acc.iter().sum::<f64>();
        // DEFECT: the remainder loop should run to `xs.len()`; it drops the last reading
        // whenever the length is not a multiple of four.
        for x in xs.iter().take(xs.len().saturating_sub(1)).skip(chunks * 4) {
            sum += x;
        }
        sum / xs.len() as f64
    }

    /// Population variance.
    #[invite::metamorphic(
        variance(&permute(xs)) == result,
        variance(&add(xs, 7.5)) == result,
        variance(&multiply(xs, 2.0)) == result * 4.0,
        result >= 0.0,
    )]
    pub fn variance(xs: &[f64]) -> f64 {
        if xs.is_empty() {
            return 0.0;
        }
        let m = mean(xs);
        xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / xs.len() as f64
    }

    /// Population standard deviation.
    #[invite::metamorphic(
        std_dev(&negate(xs)) == result,
        std_dev(&multiply(xs, 2.0)) == result * 2.0,
    )]
    pub fn std_dev(xs: &[f64]) -> f64 {
        variance(xs).sqrt()
    }

    /// The values in ascending order.
    #[invite::metamorphic(
        sorted(&permute(xs)) == result,
        sorted(&multiply(xs, 2.0)) == multiply(&result, 2.0),
        result.windows(2).all(|w| w[0] <= w[1]),
        rho = 0.005,
    )]
    pub fn sorted(xs: &[f64]) -> Vec<f64> {
        let mut v = xs.to_vec();
        v.sort_by(f64::total_cmp);
        v
    }

    /// The `p`-th percentile (0 to 100), nearest rank.
    #[invite::metamorphic(
        percentile(&permute(xs), p) == result,
        percentile(&add(xs, 1.0), p) == result + 1.0,
        if !xs.is_empty() => in_range(result, sorted(xs)[0], sorted(xs)[xs.len() - 1]),
    )]
    pub fn percentile(xs: &[f64], p: f64) -> f64 {
        let v = sorted(xs);
        if v.is_empty() {
            return f64::NAN;
        }
        let rank = ((p / 100.0) * v.len() as f64).ceil() as usize;
        v[rank.clamp(1, v.len()) - 1]
    }

    /// The middle value (mean of the two middle values for even lengths).
    #[invite::metamorphic(
        median(&permute(xs)) == result,
        median(&negate(xs)) == -result,
    )]
    pub fn median(xs: &[f64]) -> f64 {
        let v = sorted(xs);
        match v.len() {
            0 => f64::NAN,
            n if n % 2 == 1 => v[n / 2],
            n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
        }
    }
}

/// One batch of readings from a simulated sensor: a slow drift plus noise.
fn batch(rng: &mut impl Rng, t: usize) -> Vec<f64> {
    let len = rng.random_range(40..400);
    let base = 20.0 + (t as f64 / 50.0).sin() * 5.0;
    (0..len)
        .map(|_| base + rng.random_range(-1.5..1.5))
        .collect()
}

fn main() {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
    let batches = count_from_args("batches", 300_000);
    let (mut sum_mean, mut sum_sd, mut sum_p95, mut sum_median) = (0.0, 0.0, 0.0, 0.0);
    let started = std::time::Instant::now();
    for t in 0..batches {
        let xs = batch(&mut rng, t);
        sum_mean += stats::mean(&xs);
        sum_sd += stats::std_dev(&xs);
        sum_p95 += stats::percentile(&xs, 95.0);
        sum_median += stats::median(&xs);
    }
    let n = batches as f64;
    println!("Processed {batches} batches in {:.2?}", started.elapsed());
    println!(
        "  average mean {:.3}, std dev {:.3}, median {:.3}, p95 {:.3}",
        sum_mean / n,
        sum_sd / n,
        sum_median / n,
        sum_p95 / n
    );

    // Wait for running tests and write the final records, then read this run's results back.
    invite::shutdown();
    summarise_log();
}

/// Shows the report (`invite report`) on this run's records: outcomes, costs, the failures with
/// what replays them, and sampling rates for a 1% overhead target.
fn summarise_log() {
    let Some(path) = log_path() else {
        println!("\nInvite is off (no invite.toml here, or INVITE=off): nothing was tested.");
        return;
    };
    // The log is appended to by every run; keep this process's lines.
    let pid = format!("\"pid\":{},", std::process::id());
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let mine: String = text
        .lines()
        .filter(|l| l.contains(&pid))
        .map(|l| format!("{l}\n"))
        .collect();
    let dir = std::env::temp_dir().join(format!("invite-quickstart-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let this_run = dir.join("run.jsonl");
    if std::fs::write(&this_run, mine).is_err() {
        return;
    }
    println!(
        "\n$ invite report --target-overhead 0.01 --failures 1  (this run's records from {path})\n"
    );
    let options = invite_cli::report::Options {
        paths: vec![this_run.display().to_string()],
        format: invite_cli::report::Format::Text,
        strict: false,
        target_overhead: Some(0.01),
        target_tests_per_min: None,
        instances: None,
        write_config: None,
        threads: 1,
        failures: 1,
        colour: None,
        fail_on: Vec::new(),
        width: None,
    };
    invite_cli::report::run(&options, &mut std::io::stdout(), &mut std::io::stderr());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The workload's size: the first argument if one is given (`-- 20000` for a short run).
fn count_from_args(what: &str, default: usize) -> usize {
    match std::env::args().nth(1) {
        None => default,
        Some(a) => a.parse().unwrap_or_else(|_| {
            eprintln!(
                "quickstart: the argument is how many {what} to process, a whole number; got `{a}`"
            );
            std::process::exit(2)
        }),
    }
}

fn log_path() -> Option<String> {
    if !invite::init() {
        return None;
    }
    let file = std::env::var("INVITE_CONFIG").unwrap_or_else(|_| "invite.toml".into());
    let config = invite::config::Config::from_file(std::path::Path::new(&file)).ok()?;
    (config.log != "-").then_some(config.log)
}
