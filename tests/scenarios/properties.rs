//! Property-based tests: malformed and extreme input to the configuration loader never panics
//! and every error says where; the relations' comparisons agree with a reference model. (The
//! log reader's properties are in the `invite` command's crate.)

use std::path::Path;

use invite::config::Config;
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

/// Failing cases are kept in `proptest-regressions/` at the package's root (the working directory
/// of `cargo test`), to be committed: a failure once found is tried first on every later run.
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/properties.txt",
        ))),
        ..ProptestConfig::default()
    }
}

const KEYS: &[&str] = &[
    "enabled",
    "default_rho",
    "max_concurrent",
    "max_overhead",
    "timeout_ms",
    "on_failure",
    "log",
    "seed",
    "stats_interval_ms",
    "drain_ms",
    "nice",
    "dedup_bytes",
    "sandbox",
    "memory_mb",
    "no_such_key",
];

/// TOML values of every type, including extremes: huge and negative integers, NaN and
/// infinities, empty and odd strings, arrays and tables where scalars belong.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|v| v.to_string()),
        any::<f64>().prop_map(|v| format!("{v:?}")),
        Just("nan".to_string()),
        Just("-inf".to_string()),
        Just("1e400".to_string()),
        any::<bool>().prop_map(|v| v.to_string()),
        "[a-z\\-\" ]{0,12}".prop_map(|s| format!("{s:?}")),
        Just("[1, 2]".to_string()),
        Just("{ a = 1 }".to_string()),
        Just("\"seccomp\"".to_string()),
        Just("\"fork\"".to_string()),
        Just("\"notify\"".to_string()),
    ]
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn the_config_loader_never_panics_on_any_text(text in "\\PC{0,200}") {
        let _ = Config::from_toml(&text, Path::new("invite.toml"));
    }

    #[test]
    fn config_errors_name_a_real_place_and_the_key(
        entries in proptest::collection::vec((proptest::sample::select(KEYS), value()), 1..6)
    ) {
        let text: String = entries.iter().map(|(k, v)| format!("{k} = {v}\n")).collect();
        match Config::from_toml(&text, Path::new("invite.toml")) {
            Ok(c) => {
                // Whatever was accepted is within the documented ranges.
                prop_assert!((0.0..=1.0).contains(&c.default_rho));
                prop_assert!((0.0..=1.0).contains(&c.max_overhead));
                prop_assert!(c.max_concurrent >= 1 && c.timeout_ms >= 1);
                prop_assert!((0..=19).contains(&c.nice));
            }
            Err(e) => {
                let lines = text.lines().count();
                prop_assert!(e.line >= 1 && e.line <= lines + 1, "{e} in\n{text}");
                prop_assert!(!e.message.is_empty());
                if !e.key.is_empty() {
                    prop_assert!(text.contains(e.key.split('.').next().unwrap()), "{e}");
                }
            }
        }
    }

    #[test]
    fn site_tables_with_extreme_values_are_checked(rho in any::<f64>(), timeout in any::<i64>()) {
        let text = format!("[functions.\"a::b\"]\nrho = {rho:?}\ntimeout_ms = {timeout}\n");
        // Accepted exactly when both are in range, and then read as written.
        let valid = (0.0..=1.0).contains(&rho) && timeout >= 1;
        match Config::from_toml(&text, Path::new("invite.toml")) {
            Ok(c) => {
                prop_assert!(valid, "accepted:\n{text}");
                let site = c.site("a::b");
                prop_assert_eq!(site.rho, Some(rho));
                prop_assert_eq!(site.timeout_ms, Some(timeout as u64));
            }
            Err(e) => {
                prop_assert!(!valid, "refused {text}: {e}");
                prop_assert_eq!(e.line, if (0.0..=1.0).contains(&rho) { 3 } else { 2 }, "{}", e);
            }
        }
    }
}

/// Floats that exercise every branch of a comparison: the special values, subnormals, signed
/// zeros, huge magnitudes, and anything at all.
fn float() -> impl Strategy<Value = f64> {
    prop_oneof![
        prop::sample::select(vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            f64::EPSILON,
        ]),
        (0u64..0x000f_ffff_ffff_ffff).prop_map(f64::from_bits),
        (1e290f64..f64::MAX).prop_map(|x| x),
        (-f64::MAX..-1e290f64).prop_map(|x| x),
        any::<f64>(),
    ]
}

/// The comparison as specified, written independently of `invite::mr`: NaN is unordered; a
/// pair with an infinity orders as the extended reals do; finite numbers within
/// `tol * max(1, |a|, |b|)` are equal.
fn reference(a: f64, b: f64, tol: f64) -> Option<std::cmp::Ordering> {
    use std::cmp::Ordering::*;
    if a.is_nan() || b.is_nan() {
        return None;
    }
    let rank = |x: f64| {
        if x == f64::NEG_INFINITY {
            -1
        } else if x == f64::INFINITY {
            1
        } else {
            0
        }
    };
    if rank(a) != 0 || rank(b) != 0 {
        return Some(rank(a).cmp(&rank(b)));
    }
    let scale = [1.0, a.abs(), b.abs()].into_iter().fold(0.0, f64::max);
    if (a - b).abs() <= tol * scale {
        Some(Equal)
    } else if a < b {
        Some(Less)
    } else {
        Some(Greater)
    }
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn every_operator_agrees_with_the_reference_on_every_kind_of_float(
        a in float(),
        b in float(),
        near in -4.0f64..4.0,
        tol in prop::sample::select(vec![0.0, 1e-12, 1e-9, 1e-6, 0.1]),
    ) {
        use invite::mr::{Approx, Op};
        // Also a `b` just inside or outside the tolerance of `a`.
        let close = a + a.abs().max(1.0) * tol * near;
        for b in [b, close] {
            let expected = reference(a, b, tol);
            let got = a.approx_cmp(&b, tol);
            prop_assert_eq!(got, expected, "{} vs {} at {}", a, b, tol);
            prop_assert_eq!(b.approx_cmp(&a, tol), expected.map(|o| o.reverse()));
            for op in [Op::Eq, Op::Ne, Op::Lt, Op::Le, Op::Gt, Op::Ge] {
                let want = match (op, expected) {
                    (Op::Ne, None) => true,
                    (_, None) => false,
                    (Op::Eq, Some(o)) => o.is_eq(),
                    (Op::Ne, Some(o)) => o.is_ne(),
                    (Op::Lt, Some(o)) => o.is_lt(),
                    (Op::Le, Some(o)) => o.is_le(),
                    (Op::Gt, Some(o)) => o.is_gt(),
                    (Op::Ge, Some(o)) => o.is_ge(),
                };
                prop_assert_eq!(op.holds(got), want, "{:?} on {} and {}", op, a, b);
            }
            let same = a.approx_same(&b, tol);
            prop_assert_eq!(same, (a.is_nan() && b.is_nan()) || expected == Some(std::cmp::Ordering::Equal));
        }
    }
}
