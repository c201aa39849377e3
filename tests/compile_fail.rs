//! Every misuse of the attributes is a compile error spanned on the offending token, with a
//! message that says what to do. The expected messages live beside each case in `tests/ui/`.

#[test]
fn misuse_is_a_compile_error_that_says_what_to_do() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
