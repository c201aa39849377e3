//! Sampling rates that meet a target.
//!
//! For a site called `r` times a second per process, whose runs cost the caller `c` seconds each
//! and hold `k` tests, sampling at ρ gives `ρ·r·k` tests a second and an overhead share of
//! `ρ·r·c`. Both are proportional to ρ, so each target fixes ρ directly:
//!
//! - `--target-overhead T`: the target is split evenly between the sites that can be tuned, so
//!   the whole program stays within it: `ρ = (T / n) / (r·c)`.
//! - `--target-tests-per-min N`, per site: `ρ = N / (60·r·k)`.
//!
//! With both, the smaller ρ wins. ρ is rounded down to three significant digits and capped at 1.
//! Projections ignore `max_concurrent`, which can only lower the test rate further.

use serde::{Deserialize, Serialize};

use super::aggregate::SiteSummary;

/// The recommended ρ of one site.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SiteTuning {
    /// The site's name.
    pub site: String,
    /// Its ρ in the logs.
    pub current_rho: Option<f64>,
    /// The recommended ρ; `None` when the log does not say enough (see `note`).
    pub rho: Option<f64>,
    /// Tests per minute per process at the recommended ρ.
    pub projected_tests_per_min: Option<f64>,
    /// Share of wall time starting runs would cost at the recommended ρ.
    pub projected_overhead: Option<f64>,
    /// Why no ρ is recommended, or what to watch.
    pub note: Option<String>,
}

/// Recommended sampling rates for a target.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tuning {
    /// The overhead asked for.
    pub target_overhead: Option<f64>,
    /// The test rate asked for.
    pub target_tests_per_min: Option<f64>,
    /// Each site's recommendation.
    pub sites: Vec<SiteTuning>,
}

impl Tuning {
    /// What the tuning aims at, for a heading ("overhead 1% and 60 tests/min per site"), with
    /// the overhead written by `percent`.
    pub fn target_text(&self, percent: impl Fn(f64) -> String) -> String {
        let overhead = self
            .target_overhead
            .map(|o| format!("overhead {}", percent(o)));
        let rate = self
            .target_tests_per_min
            .map(|n| format!("{n} tests/min per site"));
        [overhead, rate]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" and ")
    }
}

/// Rounds down to three significant digits (staying within the target).
pub fn round_rho(x: f64) -> f64 {
    if x <= 0.0 || !x.is_finite() {
        return 0.0;
    }
    let e = x.log10().floor();
    let unit = 10f64.powf(e - 2.0);
    // The small allowance keeps 0.19999999999999998 (float noise for 0.2) at 0.2.
    (((x / unit) + 1e-9).floor() * unit).min(1.0)
}

/// ρ as `invite.toml` should show it: three significant digits, no float noise.
pub fn format_rho(x: f64) -> String {
    if x <= 0.0 {
        return "0.0".to_string();
    }
    let e = x.log10().floor() as i32;
    let decimals = (2 - e).max(1) as usize;
    let s = format!("{x:.decimals$}");
    let s = s.trim_end_matches('0');
    if s.ends_with('.') {
        format!("{s}0")
    } else {
        s.to_string()
    }
}

/// Recommends ρ per site for the target overhead or test rate, from a summary's measurements.
pub fn tune(
    sites: &[SiteSummary],
    target_overhead: Option<f64>,
    target_tpm: Option<f64>,
) -> Tuning {
    let inputs = |s: &SiteSummary| -> Result<(f64, f64, f64), String> {
        let r = s.calls_per_sec.filter(|r| *r > 0.0).ok_or(
            "no call rate: the site has no `stats` record with calls (it needs rho > 0 and a \
             program that ran past its first stats interval or exited cleanly)",
        )?;
        let c = s.parent_us_per_run.filter(|c| *c > 0.0).ok_or(
            "no run measured yet, so the cost per run is unknown: give the site a small rho first",
        )? / 1e6;
        let k = s.tests as f64 / s.runs.max(1) as f64;
        Ok((r, c, k))
    };
    let tunable = sites.iter().filter(|s| inputs(s).is_ok()).count().max(1) as f64;
    let sites = sites
        .iter()
        .map(|s| match inputs(s) {
            Err(note) => SiteTuning {
                site: s.site.clone(),
                current_rho: s.rho,
                rho: None,
                projected_tests_per_min: None,
                projected_overhead: None,
                note: Some(note.to_string()),
            },
            Ok((r, c, k)) => {
                let by_overhead = target_overhead.map(|t| (t / tunable) / (r * c));
                let by_rate = target_tpm.map(|n| n / (60.0 * r * k));
                let raw = match (by_overhead, by_rate) {
                    (Some(a), Some(b)) => a.min(b),
                    (Some(a), None) | (None, Some(a)) => a,
                    (None, None) => s.rho.unwrap_or(0.0),
                };
                let rho = round_rho(raw.min(1.0));
                SiteTuning {
                    site: s.site.clone(),
                    current_rho: s.rho,
                    rho: Some(rho),
                    projected_tests_per_min: Some(rho * r * k * 60.0),
                    projected_overhead: Some(rho * r * c),
                    note: (raw > 1.0).then(|| {
                        "the target allows more than every call: capped at rho = 1".to_string()
                    }),
                }
            }
        })
        .collect();
    Tuning {
        target_overhead,
        target_tests_per_min: target_tpm,
        sites,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::aggregate::Durations;
    use invite::record::{OutcomeCounts, SkipCounts};

    fn site(name: &str, calls_per_sec: Option<f64>, cost_us: Option<f64>) -> SiteSummary {
        SiteSummary {
            site: name.into(),
            file: None,
            line: None,
            rho: Some(0.1),
            runs: 100,
            tests: 400,
            outcomes: OutcomeCounts::default(),
            calls: None,
            sampled: None,
            skipped: SkipCounts::default(),
            duration_us: Durations::default(),
            parent_us_per_run: cost_us,
            calls_per_sec,
            tests_per_sec: None,
            overhead_share: None,
            per_test: vec![],
        }
    }

    #[test]
    fn worked_example() {
        // 1000 calls/s, 50 µs a run, 4 tests a run. A 1% overhead target: 0.01 / (1000 × 50e-6)
        // = 0.2, projecting 0.2 × 1000 × 4 × 60 = 48,000 tests a minute at exactly 1%.
        let s = [site("a", Some(1000.0), Some(50.0))];
        let t = tune(&s, Some(0.01), None);
        let a = &t.sites[0];
        assert_eq!(a.rho, Some(0.2));
        assert!((a.projected_tests_per_min.unwrap() - 48_000.0).abs() < 1e-6);
        assert!((a.projected_overhead.unwrap() - 0.01).abs() < 1e-12);
        // 600 tests a minute: 600 / (60 × 1000 × 4) = 0.0025; with both targets, the smaller.
        let t = tune(&s, Some(0.01), Some(600.0));
        assert_eq!(t.sites[0].rho, Some(0.0025));
        assert!((t.sites[0].projected_tests_per_min.unwrap() - 600.0).abs() < 1e-9);
    }

    #[test]
    fn the_overhead_target_is_split_between_tunable_sites() {
        let s = [
            site("a", Some(1000.0), Some(50.0)),
            site("b", Some(1000.0), Some(50.0)),
            site("c", None, Some(50.0)),
        ];
        let t = tune(&s, Some(0.01), None);
        assert_eq!(t.sites[0].rho, Some(0.1));
        assert_eq!(t.sites[1].rho, Some(0.1));
        assert_eq!(t.sites[2].rho, None);
        assert!(t.sites[2].note.as_deref().unwrap().contains("no call rate"));
        let total: f64 = t.sites.iter().filter_map(|s| s.projected_overhead).sum();
        assert!(total <= 0.01 + 1e-12);
    }

    #[test]
    fn rho_is_capped_and_rounded_down() {
        let t = tune(&[site("a", Some(1.0), Some(10.0))], Some(0.5), None);
        assert_eq!(t.sites[0].rho, Some(1.0));
        assert!(t.sites[0].note.is_some());
        assert_eq!(round_rho(0.012345), 0.0123);
        assert_eq!(format_rho(0.0123), "0.0123");
        assert_eq!(format_rho(0.2), "0.2");
        assert_eq!(format_rho(1.0), "1.0");
        assert_eq!(format_rho(0.000125), "0.000125");
        // Nothing to round: 0.
        for x in [0.0, -0.5, f64::INFINITY, f64::NAN] {
            assert_eq!(round_rho(x), 0.0, "{x}");
        }
        // Exactly every call (1000 calls/s, 4 tests a run, 240,000 tests a minute asked):
        // ρ = 1, with no note of a cap.
        let t = tune(
            &[site("a", Some(1000.0), Some(10.0))],
            None,
            Some(240_000.0),
        );
        assert_eq!(t.sites[0].rho, Some(1.0));
        assert_eq!(t.sites[0].note, None);
    }

    #[test]
    fn a_site_without_a_call_rate_or_a_measured_run_is_not_tuned_and_says_why() {
        for (rate, cost, why) in [
            (Some(0.0), Some(10.0), "no call rate"),
            (None, Some(10.0), "no call rate"),
            (Some(100.0), Some(0.0), "no run measured yet"),
            (Some(100.0), None, "no run measured yet"),
        ] {
            let t = tune(&[site("a", rate, cost)], Some(0.01), None);
            assert_eq!(t.sites[0].rho, None, "{rate:?} {cost:?}");
            let note = t.sites[0].note.as_deref().unwrap_or_default();
            assert!(note.starts_with(why), "{note}");
        }
    }
}
