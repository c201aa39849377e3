//! Built with `--no-default-features`, the attributes emit the plain function: no site is
//! registered, so nothing can ever be sampled or forked. Built normally, the same function is a
//! registered site. Either way the tests' code is compiled, so that helpers used only by
//! relations and In Vivo tests are not dead code (denied below). `.ci/run` runs this file both
//! ways, and `tests/compile_fail.rs` without the feature too (relations are type-checked).

#![deny(dead_code)]

#[invite::metamorphic(double(x) / 2 == x, double(twice(x)) == twice(result))]
#[invite::in_vivo(test = even_after)]
fn double(x: u64) -> u64 {
    x * 2
}

/// Used only by a relation.
fn twice(x: u64) -> u64 {
    x.wrapping_mul(2)
}

/// Used only as an In Vivo test.
fn even_after(x: &u64) -> bool {
    x.wrapping_mul(2).is_multiple_of(2)
}

/// Under discovery: its conversions are type-checked both ways too.
#[cfg(feature = "discover")]
#[invite::discover]
fn halve(x: f64, xs: &[f64]) -> f64 {
    x / 2.0 + xs.len() as f64
}

#[test]
fn sites_exist_only_with_the_enabled_feature() {
    // This process is not a scenario: keep invite off whatever ./invite.toml says.
    std::env::set_var("INVITE", "off");
    assert_eq!(double(21), 42);
    #[cfg(feature = "discover")]
    assert_eq!(halve(3.0, &[1.0]), 2.5);
    let mut names: Vec<&str> = invite::__private::sites().map(|s| s.meta.name).collect();
    names.sort();
    if cfg!(all(feature = "enabled", feature = "discover")) {
        assert_eq!(names, ["feature_off::double", "feature_off::halve"]);
    } else if cfg!(feature = "enabled") {
        assert_eq!(names, ["feature_off::double"]);
    } else {
        assert!(names.is_empty(), "{names:?}");
    }
}
