//! Every misuse of the attributes is a compile error spanned on the offending token, with a
//! message that says what to do. The expected messages live beside each case in `tests/ui/`.

// The cases use every optional part of the attributes.
#[cfg(all(feature = "discover", feature = "statistical"))]
#[test]
fn misuse_is_a_compile_error_that_says_what_to_do() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}

/// A `pure` site's type that cannot travel is named, on the parameter, with the fix. (With the
/// `serde` feature a type may travel through serde too, and the error is rustc's on the call
/// that would copy it.)
#[cfg(not(feature = "serde"))]
#[test]
fn a_type_that_cannot_travel_is_named_with_the_fix() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui-travel/*.rs");
}

/// Discovery in a build without the `discover` feature is an error that says how to turn it on.
#[cfg(not(feature = "discover"))]
#[test]
fn discovery_without_its_feature_says_how_to_turn_it_on() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui-optional/discover_*.rs");
}

/// A statistical relation in a build without the `statistical` feature likewise.
#[cfg(not(feature = "statistical"))]
#[test]
fn a_statistical_relation_without_its_feature_says_how_to_turn_it_on() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui-optional/statistical_*.rs");
}

/// Errors speak of the user's code and of documented items, never of the macros' internals.
#[test]
fn no_expected_error_names_an_internal_item() {
    let mut seen = 0;
    let cases = std::fs::read_dir("tests/ui")
        .unwrap()
        .chain(std::fs::read_dir("tests/ui-travel").unwrap())
        .chain(std::fs::read_dir("tests/ui-optional").unwrap());
    for entry in cases {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "stderr") {
            let text = std::fs::read_to_string(&path).unwrap();
            assert!(!text.contains("__private"), "{}:\n{text}", path.display());
            assert!(!text.contains("__invite"), "{}:\n{text}", path.display());
            seen += 1;
        }
    }
    assert!(seen >= 10, "only {seen} expected errors found");
}
