//! The check of each key's value. Serde runs them as the file is parsed (`deserialize_with` on
//! the fields), so that a value out of range is refused at its own key and line, with the range
//! and the fix, just as a value of the wrong type is.

use serde::{Deserialize, Deserializer};

use super::{HideRuns, MAX_CONCURRENT};

pub(super) fn probability<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    let v = f64::deserialize(d)?;
    if (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(serde::de::Error::custom(format!(
            "expected a number from 0.0 to 1.0 (a probability or share), got {v}"
        )))
    }
}

pub(super) fn probability_some<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    probability(d).map(Some)
}

pub(super) fn probability_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    probability(d).map(Some)
}

pub(super) fn tolerance_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    let v = f64::deserialize(d)?;
    if v.is_finite() && v >= 0.0 {
        Ok(Some(v))
    } else {
        Err(serde::de::Error::custom(format!(
            "expected a relative tolerance of 0 or more, such as 1e-9, got {v}"
        )))
    }
}

pub(super) fn millis<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    let v = u64::deserialize(d)?;
    if v == 0 {
        return Err(serde::de::Error::custom(
            "expected a whole number of milliseconds of 1 or more, got 0",
        ));
    }
    Ok(v)
}

pub(super) fn millis_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    millis(d).map(Some)
}

fn at_least_one<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    let v = u64::deserialize(d)?;
    if v == 0 {
        return Err(serde::de::Error::custom(
            "expected 1 or more; to turn testing off set `enabled = false`",
        ));
    }
    Ok(v)
}

pub(super) fn concurrency<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    let v = at_least_one(d)?;
    if v > MAX_CONCURRENT {
        return Err(serde::de::Error::custom(format!(
            "expected at most {MAX_CONCURRENT} runs at once, got {v}"
        )));
    }
    Ok(v)
}

pub(super) fn niceness<'de, D: Deserializer<'de>>(d: D) -> Result<i32, D::Error> {
    let v = i32::deserialize(d)?;
    if (0..=19).contains(&v) {
        Ok(v)
    } else {
        Err(serde::de::Error::custom(format!(
            "expected a niceness from 0 to 19, got {v}"
        )))
    }
}

pub(super) fn bytes<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    let v = u64::deserialize(d)?;
    if (64..=1 << 30).contains(&v) {
        Ok(v)
    } else {
        Err(serde::de::Error::custom(format!(
            "expected a size in bytes from 64 to 1073741824 (1 GiB), got {v}"
        )))
    }
}

pub(super) fn bytes_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    bytes(d).map(Some)
}

pub(super) fn mib_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    let v = u64::deserialize(d)?;
    if (1..=1 << 20).contains(&v) {
        Ok(Some(v))
    } else {
        Err(serde::de::Error::custom(format!(
            "expected MiB from 1 to 1048576, got {v}"
        )))
    }
}

pub(super) fn ring_mib<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    let v = u64::deserialize(d)?;
    if (1..=1024).contains(&v) {
        Ok(v)
    } else {
        Err(serde::de::Error::custom(format!(
            "expected MiB from 1 to 1024, got {v}"
        )))
    }
}

pub(super) fn rate_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    let v = f64::deserialize(d)?;
    if v.is_finite() && v > 0.0 {
        Ok(Some(v))
    } else {
        Err(serde::de::Error::custom(format!(
            "expected a number of tests per minute above 0, got {v}"
        )))
    }
}

pub(super) fn tracing_records<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    let v = bool::deserialize(d)?;
    if v && !cfg!(feature = "tracing") {
        return Err(serde::de::Error::custom(TRACING_OFF));
    }
    Ok(v)
}

/// Why `tracing = true` is refused in a build without the feature, and the fix.
const TRACING_OFF: &str = "records become tracing events only when invite is built \
     with its `tracing` feature: add features = [\"tracing\"] to the invite-mt dependency in \
     Cargo.toml, or remove this key";

pub(super) fn count_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    let v = u64::deserialize(d)?;
    if v == 0 {
        return Err(serde::de::Error::custom(
            "expected a number of tests of 1 or more; to let calls always wait, remove this key",
        ));
    }
    Ok(Some(v))
}

/// The values `hide_runs` takes, as its errors list them.
const HIDE_RUNS_VALUES: &str =
    "\"auto\", \"always\" or \"never\" (true and false still mean \"always\" and \"never\")";

/// `hide_runs`: one of three words, or a boolean as older files wrote it.
pub(super) fn hide_runs<'de, D: Deserializer<'de>>(d: D) -> Result<HideRuns, D::Error> {
    struct Value;
    impl serde::de::Visitor<'_> for Value {
        type Value = HideRuns;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(HIDE_RUNS_VALUES)
        }
        fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<HideRuns, E> {
            Ok(if v { HideRuns::Always } else { HideRuns::Never })
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<HideRuns, E> {
            match v {
                "auto" => Ok(HideRuns::Auto),
                "always" => Ok(HideRuns::Always),
                "never" => Ok(HideRuns::Never),
                _ => Err(E::custom(format!(
                    "expected {HIDE_RUNS_VALUES}, got another word"
                ))),
            }
        }
    }
    d.deserialize_any(Value)
}

pub(super) fn non_empty<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let v = String::deserialize(d)?;
    if v.trim().is_empty() {
        return Err(serde::de::Error::custom(
            "expected a file path, or \"-\" for stderr, got an empty string",
        ));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::config::{Config, ConfigError, HideRuns, Sandbox};

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::from_toml(text, Path::new("invite.toml"))
    }

    #[test]
    fn hide_runs_takes_three_words_and_the_old_booleans() {
        assert_eq!(Config::default().hide_runs, HideRuns::Always);
        for (text, expected) in [
            ("\"auto\"", HideRuns::Auto),
            ("\"always\"", HideRuns::Always),
            ("\"never\"", HideRuns::Never),
            ("true", HideRuns::Always),
            ("false", HideRuns::Never),
        ] {
            let c = parse(&format!("hide_runs = {text}")).expect(text);
            assert_eq!(c.hide_runs, expected, "{text}");
        }
        assert_eq!(parse("").unwrap().hide_runs, HideRuns::Always);
    }

    #[test]
    fn a_wrong_hide_runs_names_the_key_the_kind_and_the_accepted_ones() {
        for (text, shown) in [
            ("\"sometimes\"", "got another word"),
            ("\"Auto\"", "got another word"),
            ("1", "got a whole number"),
        ] {
            let e = parse(&format!("enabled = true\nhide_runs = {text}")).unwrap_err();
            assert_eq!((e.line, e.key.as_str()), (2, "hide_runs"), "{e}");
            let line = e.to_string();
            assert!(line.contains("key `hide_runs`"), "{line}");
            assert!(line.contains(shown), "{line}");
            assert!(line.contains("\"auto\", \"always\" or \"never\""), "{line}");
        }
    }

    #[test]
    fn tests_per_site_is_a_count_of_one_or_more() {
        assert_eq!(Config::default().tests_per_site, None);
        assert_eq!(
            parse("tests_per_site = 200").unwrap().tests_per_site,
            Some(200)
        );
        let e = parse("tests_per_site = 0").unwrap_err();
        assert_eq!((e.line, e.key.as_str()), (1, "tests_per_site"));
        assert!(e.message.contains("1 or more"), "{e}");
        let e = parse("tests_per_site = -3").unwrap_err();
        assert_eq!(e.key, "tests_per_site", "{e}");
    }

    #[test]
    fn hide_runs_is_written_as_its_word_and_read_back() {
        for mode in [HideRuns::Auto, HideRuns::Always, HideRuns::Never] {
            let config = Config {
                hide_runs: mode,
                ..Config::default()
            };
            let text = toml::to_string(&config).expect("toml");
            assert_eq!(parse(&text).expect(&text).hide_runs, mode, "{text}");
        }
    }

    #[test]
    fn tracing_records_need_the_feature_and_say_how_to_turn_it_on() {
        let path = Path::new("invite.toml");
        assert!(!Config::default().tracing);
        assert!(!Config::from_toml("tracing = false", path).unwrap().tracing);
        let on = Config::from_toml("tracing = true", path);
        if cfg!(feature = "tracing") {
            assert!(on.unwrap().tracing);
        } else {
            let e = on.unwrap_err();
            assert_eq!((e.line, e.key.as_str()), (1, "tracing"));
            assert!(e.message.contains("features = [\"tracing\"]"), "{e}");
        }
    }

    #[test]
    fn a_site_table_reads_each_key_as_written_and_refuses_what_is_out_of_range() {
        let c = parse(
            "[functions.\"s\"]\nrho = 0.5\ntolerance = 0.25\ntimeout_ms = 7\nenabled = false\n\
             dedup = false\ndedup_bytes = 4096\ntarget_tests_per_min = 12.5\n\
             sandbox = \"fork\"\nmemory_mb = 300\n",
        )
        .unwrap();
        let s = c.site("s");
        assert_eq!(s.rho, Some(0.5));
        assert_eq!(s.tolerance, Some(0.25));
        assert_eq!(s.timeout_ms, Some(7));
        assert_eq!(s.enabled, Some(false));
        assert_eq!(s.dedup, Some(false));
        assert_eq!(s.dedup_bytes, Some(4096));
        assert_eq!(s.target_tests_per_min, Some(12.5));
        assert_eq!(s.sandbox, Some(Sandbox::Fork));
        assert_eq!(s.memory_mb, Some(300));
        for edge in [
            "tolerance = 0.0",
            "dedup_bytes = 64",
            "memory_mb = 1",
            "memory_mb = 1048576",
        ] {
            assert!(
                parse(&format!("[functions.\"s\"]\n{edge}\n")).is_ok(),
                "{edge}"
            );
        }
        for bad in [
            "tolerance = -1.0",
            "tolerance = inf",
            "tolerance = nan",
            "dedup_bytes = 63",
            "memory_mb = 0",
            "memory_mb = 1048577",
            "target_tests_per_min = 0.0",
            "target_tests_per_min = inf",
            "timeout_ms = 0",
        ] {
            let e = parse(&format!("[functions.\"s\"]\n{bad}\n")).unwrap_err();
            let key = bad.split(' ').next().unwrap();
            assert_eq!(e.key, format!("functions.s.{key}"), "{bad}: {e}");
        }
    }

    #[test]
    fn too_many_runs_at_once_is_refused_with_the_limit() {
        let e = parse("max_concurrent = 257\n").unwrap_err();
        assert_eq!((e.line, e.key.as_str()), (1, "max_concurrent"));
        assert!(e.message.contains("at most 256"), "{e}");
        assert_eq!(parse("max_concurrent = 256\n").unwrap().max_concurrent, 256);
        let e = parse("max_concurrent = 0\n").unwrap_err();
        assert!(e.message.contains("1 or more"), "{e}");
    }
}

/// A name that records carry (`service`, `version`): printable, one line, at most 128 bytes.
pub(super) fn label_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let v = String::deserialize(d)?;
    check_label(&v)
        .map(|()| Some(v))
        .map_err(serde::de::Error::custom)
}

/// The longest name records carry for an instance, a service or a version.
pub const MAX_LABEL: usize = 128;

/// Whether `v` can name an instance, a service or a version in records, metrics and events:
/// one line of printable text, at most [`MAX_LABEL`] bytes. The error says what is wrong.
pub fn check_label(v: &str) -> Result<(), String> {
    if v.trim().is_empty() {
        return Err("expected a name, got an empty one".to_string());
    }
    if let Some(c) = v.chars().find(|c| c.is_control()) {
        return Err(format!(
            "`{}` holds the control character {:?}; use printable characters only",
            v.escape_debug(),
            c
        ));
    }
    if v.len() > MAX_LABEL {
        return Err(format!(
            "a name of {} bytes is too long; use at most {MAX_LABEL}",
            v.len()
        ));
    }
    Ok(())
}

pub(super) fn fleet_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<super::Fleet>, D::Error> {
    let f = super::Fleet::deserialize(d)?;
    crate::fleet::check_member_of(f.member, f.size).map_err(|e| {
        serde::de::Error::custom(format!(
            "{e}; set `member` from 0 to `size` - 1 (or INVITE_SHARD=K/N)"
        ))
    })?;
    Ok(Some(f))
}

/// A period written as `"10m"`, `"90s"` or a whole number of seconds; at least a second.
pub(super) mod period {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Written {
        Seconds(u64),
        Text(String),
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let period = match Written::deserialize(d).map_err(|_| {
            serde::de::Error::custom(
                "expected a period such as \"10m\" or \"90s\", or a number of seconds",
            )
        })? {
            Written::Seconds(s) => Duration::from_secs(s),
            Written::Text(t) => humantime::parse_duration(&t).map_err(|e| {
                serde::de::Error::custom(format!(
                    "`{}` is not a period ({e}); write one such as \"10m\" or \"90s\"",
                    t.escape_debug()
                ))
            })?,
        };
        if period < Duration::from_secs(1) {
            return Err(serde::de::Error::custom(
                "expected a period of a second or more, such as \"10m\"",
            ));
        }
        Ok(period)
    }

    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&humantime::format_duration(*d).to_string())
    }
}
