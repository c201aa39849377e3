//! Built with `--no-default-features`, the attributes emit the plain function: no site is
//! registered, so nothing can ever be sampled or forked. Built normally, the same function is a
//! registered site. `.ci/run` runs this file both ways.

#[invite::metamorphic(double(x) / 2 == x)]
fn double(x: u64) -> u64 {
    x * 2
}

#[test]
fn sites_exist_only_with_the_enabled_feature() {
    // This process is not a scenario: keep invite off whatever ./invite.toml says.
    std::env::set_var("INVITE", "off");
    assert_eq!(double(21), 42);
    let names: Vec<&str> = invite::site::all().map(|s| s.meta.name).collect();
    if cfg!(feature = "enabled") {
        assert_eq!(names, ["feature_off::double"]);
    } else {
        assert!(names.is_empty(), "{names:?}");
    }
}
