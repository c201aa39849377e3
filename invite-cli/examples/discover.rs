//! Relation discovery on a running program: a projectile simulation whose physics functions
//! carry `#[invite::discover]`. While it runs, sampled calls are observed in forked children
//! (each function run again on scaled, shifted, reflected and permuted copies of its live
//! arguments); at the end the example shows what `invite discover` proposes from its log, as
//! the attributes to paste.
//!
//! Run from the repository root, which holds the `invite.toml` this example reads:
//!
//! ```text
//! cargo run --release -p invite-mt-cli --example discover
//! ```

use rand::{Rng, SeedableRng};

mod physics {
    /// Kinetic energy of a 2 kg body at speed `v`.
    #[invite::discover(rho = 0.05)]
    pub fn kinetic_energy(v: f64) -> f64 {
        0.5 * 2.0 * v * v
    }

    /// Height of a projectile launched at speed `v0` (m/s) after `t` seconds.
    #[invite::discover(rho = 0.05)]
    pub fn height(v0: f64, t: f64) -> f64 {
        v0 * t - 0.5 * 9.81 * t * t
    }

    /// Root mean square of a batch of speeds.
    #[invite::discover(rho = 0.05)]
    pub fn rms(vs: &[f64]) -> f64 {
        (vs.iter().map(|v| v * v).sum::<f64>() / vs.len().max(1) as f64).sqrt()
    }

    /// The fastest speed of a batch.
    #[invite::discover(rho = 0.05)]
    pub fn top_speed(vs: &[f64]) -> f64 {
        vs.iter().copied().fold(f64::NEG_INFINITY, f64::max)
    }
}

fn main() {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(11);
    // The workload's size: the first argument if one is given (`-- 5000` for a short run).
    let steps: u64 = match std::env::args().nth(1) {
        None => 40_000,
        Some(a) => a.parse().unwrap_or_else(|_| {
            eprintln!("discover: the argument is how many launches to simulate, a whole number; got `{a}`");
            std::process::exit(2)
        }),
    };
    let (mut energy, mut peak, mut flight) = (0.0, 0.0f64, 0.0);
    let started = std::time::Instant::now();
    for _ in 0..steps {
        let vs: Vec<f64> = (0..rng.random_range(3..40))
            .map(|_| rng.random_range(0.5..30.0))
            .collect();
        let v = physics::rms(&vs);
        energy += physics::kinetic_energy(v);
        let top = physics::top_speed(&vs);
        peak = peak.max(physics::height(top, rng.random_range(0.0..3.0)));
        flight += time_of_flight(top);
    }
    println!(
        "Simulated {steps} launches in {:.2?}: mean energy {:.1} J, highest point {:.1} m, \
         mean flight {:.2} s",
        started.elapsed(),
        energy / steps as f64,
        peak,
        flight / steps as f64
    );
    invite::shutdown();
    let Some(log) = this_runs_log() else {
        println!("\nInvite is off (no invite.toml here, or INVITE=off): nothing was observed.");
        return;
    };
    // The representative set with its evidence, then every proposal, ready to paste.
    for (format, all) in [
        (invite_cli::discover::Format::Text, false),
        (invite_cli::discover::Format::Rust, true),
    ] {
        let flag = if all { " --all --format rust" } else { "" };
        println!("\n$ invite discover{flag}  (this run's observations)\n");
        let options = invite_cli::discover::Options {
            paths: vec![log.display().to_string()],
            min_inputs: invite::discover::DEFAULT_MIN_INPUTS,
            format,
            all,
        };
        invite_cli::discover::run(&options, &mut std::io::stdout(), &mut std::io::stderr());
    }
    let _ = std::fs::remove_file(&log);
}

/// Time until a projectile launched straight up at `v0` lands, with air drag, by small steps
/// (the bulk of the simulation's work).
fn time_of_flight(v0: f64) -> f64 {
    let (dt, k) = (1e-4, 0.02);
    let (mut h, mut v, mut t) = (0.0f64, v0, 0.0);
    while h >= 0.0 && t < 10.0 {
        v -= (9.81 + k * v * v.abs()) * dt;
        h += v * dt;
        t += dt;
    }
    t
}

/// This process's lines of the configured log (every run appends to it), in a file of their own.
fn this_runs_log() -> Option<std::path::PathBuf> {
    if !invite::init() {
        return None;
    }
    let file = std::env::var("INVITE_CONFIG").unwrap_or_else(|_| "invite.toml".into());
    let config = invite::config::Config::from_file(std::path::Path::new(&file)).ok()?;
    if config.log == "-" {
        return None;
    }
    let pid = format!("\"pid\":{},", std::process::id());
    let mine: String = std::fs::read_to_string(&config.log)
        .ok()?
        .lines()
        .filter(|l| l.contains(&pid))
        .map(|l| format!("{l}\n"))
        .collect();
    let path = std::env::temp_dir().join(format!("invite-discover-{}.jsonl", std::process::id()));
    std::fs::write(&path, mine).ok()?;
    Some(path)
}
