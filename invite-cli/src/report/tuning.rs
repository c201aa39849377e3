//! Sampling rates that meet a target.
//!
//! For a site called `r` times a second per process, whose runs cost the caller `c` seconds each
//! and hold `k` tests, sampling at ρ gives `ρ·r·k` tests a second and an overhead share of
//! `ρ·r·c`. Both are proportional to ρ, so each target fixes ρ directly:
//!
//! - `--target-overhead T`: the target is split evenly between the sites that can be tuned, so
//!   the whole program stays within it: `ρ = (T / n) / (r·c)`.
//! - `--target-tests-per-min N`, per site and for the whole fleet of `I` instances
//!   (`--instances`, else as many as the logs name), each sampling at the same ρ:
//!   `ρ = N / (60·r·k·I)`. `r` and `k` are means over the instances, so a fleet whose
//!   instances see different loads still reaches `N` in all.
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
    /// Tests per minute over all the instances at the recommended ρ.
    #[serde(default)]
    pub projected_fleet_tests_per_min: Option<f64>,
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
    /// The test rate asked for, per site over all the instances.
    pub target_tests_per_min: Option<f64>,
    /// The instances the test rate is shared by.
    #[serde(default = "one")]
    pub instances: u64,
    /// Each site's recommendation.
    pub sites: Vec<SiteTuning>,
}

fn one() -> u64 {
    1
}

impl Tuning {
    /// What the tuning aims at, for a heading ("overhead 1% and 60 tests/min per site"), with
    /// the overhead written by `percent`.
    pub fn target_text(&self, percent: impl Fn(f64) -> String) -> String {
        let overhead = self
            .target_overhead
            .map(|o| format!("overhead {}", percent(o)));
        let rate = self.target_tests_per_min.map(|n| match self.instances {
            1 => format!("{n} tests/min per site"),
            i => format!("{n} tests/min per site across {i} instances"),
        });
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
    instances: u64,
) -> Tuning {
    let instances = instances.max(1);
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
                projected_fleet_tests_per_min: None,
                projected_overhead: None,
                note: Some(note.to_string()),
            },
            Ok((r, c, k)) => {
                let by_overhead = target_overhead.map(|t| (t / tunable) / (r * c));
                let by_rate = target_tpm.map(|n| n / (60.0 * r * k * instances as f64));
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
                    projected_fleet_tests_per_min: Some(rho * r * k * 60.0 * instances as f64),
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
        instances,
        sites,
    }
}

/// The first line of a file that `--write-config` writes. A file that starts otherwise was
/// written by hand (an `invite.toml` with other settings, perhaps) and is never overwritten.
pub const WRITTEN_MARK: &str = "# Tuned sampling rates, written by `invite report --write-config`.";

/// The tuned ρ as an `invite.toml` that holds only `[functions."…"]` tables: a fleet pointed at
/// it (`INVITE_CONFIG`) reloads it when it changes, or its tables are copied into `invite.toml`.
/// Sites without a recommendation are named in a comment, with the reason.
pub fn config_text(t: &Tuning, percent: impl Fn(f64) -> String) -> String {
    let mut out = format!(
        "{WRITTEN_MARK}\n# For {}. Written again at the next tuning: keep other settings in \
         another file.\n",
        t.target_text(&percent)
    );
    for site in &t.sites {
        // A TOML string is a valid quoted key, whatever the name holds.
        let key = toml::Value::String(site.site.clone()).to_string();
        match site.rho {
            Some(rho) => {
                let per_process = site.projected_tests_per_min.unwrap_or(0.0);
                let rate = if t.instances > 1 {
                    format!(
                        "~{per_process:.0} tests/min each, ~{:.0} in all",
                        site.projected_fleet_tests_per_min.unwrap_or(0.0)
                    )
                } else {
                    format!("~{per_process:.0} tests/min")
                };
                out.push_str(&format!(
                    "\n[functions.{key}]\nrho = {}  # {rate}, {} overhead\n",
                    format_rho(rho),
                    percent(site.projected_overhead.unwrap_or(0.0))
                ));
            }
            None => {
                let why = site.note.as_deref().unwrap_or("?").replace('\n', " ");
                out.push_str(&format!("\n# {key}: not tuned: {why}\n"));
            }
        }
    }
    out
}

/// Writes `text` to `path` whole or not at all: into a temporary file beside it, renamed over
/// it, so that an instance reloading the file never reads half of it. A file at `path` whose
/// first line is not [`WRITTEN_MARK`] is left alone, with an error that says what to do.
pub fn write_config(path: &std::path::Path, text: &str) -> Result<(), String> {
    use std::io::Write as _;
    use std::os::unix::fs::PermissionsExt as _;
    let name = path.display();
    let mode = match std::fs::read(path) {
        Ok(old) => {
            let first = old.split(|&b| b == b'\n').next().unwrap_or_default();
            if first != WRITTEN_MARK.as_bytes() {
                return Err(format!(
                    "{name}: the file exists and was not written by --write-config (its first \
                     line is not `{WRITTEN_MARK}`); name a new file, or remove this one first"
                ));
            }
            std::fs::metadata(path).map_or(0o644, |m| m.permissions().mode() & 0o777)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => 0o644,
        Err(e) => {
            return Err(format!(
                "{name}: cannot read it to check it may be replaced: {e}"
            ))
        }
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    let mut file = tempfile::Builder::new()
        .prefix(".invite-tuned-")
        .tempfile_in(dir)
        .map_err(|e| {
            format!(
                "{name}: cannot make a temporary file in {}: {e}",
                dir.display()
            )
        })?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.as_file().sync_all())
        .and_then(|()| {
            // The fleet reads it, perhaps as another user: not the temporary file's 0600.
            std::fs::set_permissions(file.path(), std::fs::Permissions::from_mode(mode))
        })
        .map_err(|e| format!("{name}: cannot write it: {e}"))?;
    file.persist(path)
        .map_err(|e| format!("{name}: cannot put it in place: {}", e.error))?;
    Ok(())
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
            wait_share: None,
            per_test: vec![],
        }
    }

    #[test]
    fn worked_example() {
        // 1000 calls/s, 50 µs a run, 4 tests a run. A 1% overhead target: 0.01 / (1000 × 50e-6)
        // = 0.2, projecting 0.2 × 1000 × 4 × 60 = 48,000 tests a minute at exactly 1%.
        let s = [site("a", Some(1000.0), Some(50.0))];
        let t = tune(&s, Some(0.01), None, 1);
        let a = &t.sites[0];
        assert_eq!(a.rho, Some(0.2));
        assert!((a.projected_tests_per_min.unwrap() - 48_000.0).abs() < 1e-6);
        assert!((a.projected_overhead.unwrap() - 0.01).abs() < 1e-12);
        // 600 tests a minute: 600 / (60 × 1000 × 4) = 0.0025; with both targets, the smaller.
        let t = tune(&s, Some(0.01), Some(600.0), 1);
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
        let t = tune(&s, Some(0.01), None, 1);
        assert_eq!(t.sites[0].rho, Some(0.1));
        assert_eq!(t.sites[1].rho, Some(0.1));
        assert_eq!(t.sites[2].rho, None);
        assert!(t.sites[2].note.as_deref().unwrap().contains("no call rate"));
        let total: f64 = t.sites.iter().filter_map(|s| s.projected_overhead).sum();
        assert!(total <= 0.01 + 1e-12);
    }

    #[test]
    fn rho_is_capped_and_rounded_down() {
        let t = tune(&[site("a", Some(1.0), Some(10.0))], Some(0.5), None, 1);
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
            1,
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
            let t = tune(&[site("a", rate, cost)], Some(0.01), None, 1);
            assert_eq!(t.sites[0].rho, None, "{rate:?} {cost:?}");
            let note = t.sites[0].note.as_deref().unwrap_or_default();
            assert!(note.starts_with(why), "{note}");
        }
    }
}
