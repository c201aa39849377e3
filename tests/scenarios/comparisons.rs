//! Every comparison form, on every kind of value a relation compares, both ways: a relation a
//! result breaks fails with the compared values in its detail, and its mirror passes. Near zero,
//! the tolerance's absolute floor decides; infinities and integers are exact.

use crate::support::scenario_unconfigured;
use invite::mr::{include, negate, reverse};
use invite::record::Outcome::{self, *};

fn triple(x: f64) -> f64 {
    3.0 * x
}

/// Called with `x = 2`: the result is 6.
#[invite::metamorphic(
    triple_checked(x) != result,
    triple_checked(x + 1.0) != result,
    triple_checked(x + 1.0) < result,
    triple_checked(x - 1.0) < result,
    triple_checked(x + 1.0) <= result,
    triple_checked(x) <= result,
    triple_checked(x - 1.0) > result,
    triple_checked(x) > result,
    triple_checked(x + 1.0) > result,
    triple_checked(x - 1.0) >= result,
    triple_checked(x) >= result,
    triple_checked(x) == result + 1e-4,
    triple_checked(x) == result + 1e-6,
    in_range(result, 0.0, 5.0),
    in_range(result, 6.0, 7.0),
    one_of(result, [1.0, 2.0]),
    one_of(result, [5.0, 6.0]),
)]
fn triple_checked(x: f64) -> f64 {
    triple(x)
}

/// Called with `x = 1`: a result of 1e-300, within the tolerance's absolute floor of zero.
#[invite::metamorphic(
    tiny(x) != 0.0,
    tiny(x) > 0.0,
    tiny(x) == -0.0,
    tiny(-x) == result,
)]
fn tiny(x: f64) -> f64 {
    x * 1e-300
}

/// Called with `x = 0`: the result is infinite, and an infinity equals only itself.
#[invite::metamorphic(
    reciprocal(x) == f64::MAX,
    reciprocal(x) > f64::MAX,
    reciprocal(-x) == result,
    reciprocal(-x) < result,
)]
fn reciprocal(x: f64) -> f64 {
    1.0 / x
}

/// Called with `n = 7`: the result is 3. Integers compare exactly, whatever the tolerance.
#[invite::metamorphic(
    half(n + 1) == result,
    half(n + 2) == result + 1,
    half(n) != result,
    half(n + 2) < result,
    half(n + 2) > result,
    half(n + 1) <= result,
    half(n - 1) >= result,
)]
fn half(n: u64) -> u64 {
    n / 2
}

/// Called with `x = 10^18`: one apart is a relative difference of 1e-18, and still unequal.
#[invite::metamorphic(same(x) == result + 1, same(x) == result)]
fn same(x: u64) -> u64 {
    x
}

/// Called with `[3, 1, 2]`: the result is (1, 3). Tuples compare field by field.
#[invite::metamorphic(
    min_max(&include(xs, 9)) == result,
    min_max(&reverse(xs)) == result,
    min_max(&include(xs, 0)) >= result,
    min_max(&include(xs, 9)) >= result,
)]
fn min_max(xs: &[i32]) -> (i32, i32) {
    let min = xs.iter().copied().min().unwrap_or(0);
    let max = xs.iter().copied().max().unwrap_or(0);
    (min, max)
}

/// Called with `x = 1`: the result is [1, 2].
#[invite::metamorphic(
    pair(-x) == result,
    pair(-x) == [-result[0], -result[1]],
    pair(x + 1.0) < result,
    pair(x + 1.0) > result,
)]
fn pair(x: f64) -> [f64; 2] {
    [x, 2.0 * x]
}

/// Called with `[1, 2]`: the result is [2, 4].
#[invite::metamorphic(
    doubled(&reverse(xs)) == result,
    doubled(&reverse(xs)) == reverse(&result),
    doubled(&include(xs, 0.0)) == result,
    doubled(&xs[..1]) < result,
)]
fn doubled(xs: &[f64]) -> Vec<f64> {
    xs.iter().map(|x| 2.0 * x).collect()
}

/// Called with `[1, 4, 6]`: the result is Some(4).
#[invite::metamorphic(
    first_even(&reverse(xs)) == result,
    first_even(&include(xs, 8)) == result,
    first_even(&[1]) == result,
    first_even(&[1]) < result,
)]
fn first_even(xs: &[i32]) -> Option<i32> {
    xs.iter().copied().find(|x| x % 2 == 0)
}

/// Called with `[1, 3]`: the result is 3. References compare as what they point to.
#[invite::metamorphic(
    &biggest(&negate(xs)) == &-result,
    &biggest(&reverse(xs)) == &result,
)]
fn biggest(xs: &[f64]) -> f64 {
    xs.iter().copied().fold(f64::NEG_INFINITY, f64::max)
}

/// A type compared by its own `PartialEq`, whose field may be NaN.
#[derive(Debug, PartialEq)]
struct Reading {
    value: f64,
}

/// Called with `x = -1`: the reading is NaN, which equals nothing, itself included.
#[invite::metamorphic(read(x) == result)]
fn read(x: f64) -> Reading {
    Reading { value: x.sqrt() }
}

/// Hand-written tests: a `false`, an `Err` and a pass.
#[invite::metamorphic(test = is_even, test = below_ten, test = is_positive)]
fn squared(x: i64) -> i64 {
    x * x
}

fn is_even(_x: &i64, result: &i64) -> bool {
    result % 2 == 0
}

fn below_ten(_x: &i64, result: &i64) -> Result<(), String> {
    if *result < 10 {
        Ok(())
    } else {
        Err(format!("{result} is not below ten"))
    }
}

fn is_positive(_x: &i64, result: &i64) -> bool {
    *result > 0
}

/// In Vivo tests of an account: an `Err`, a `false` and a pass, on the live state.
struct Account {
    cents: i64,
}

impl Account {
    #[invite::in_vivo(test = Self::never_negative, test = Self::withdraws, test = Self::keeps_under_a_million)]
    fn withdraw(&mut self, cents: i64) {
        self.cents -= cents;
    }

    fn never_negative(&mut self, cents: &i64) -> Result<(), String> {
        self.withdraw(*cents);
        if self.cents < 0 {
            Err(format!("{} cents after withdrawing {cents}", self.cents))
        } else {
            Ok(())
        }
    }

    fn withdraws(&mut self, cents: &i64) -> bool {
        let before = self.cents;
        self.withdraw(*cents);
        self.cents == before - cents + 1
    }

    fn keeps_under_a_million(&mut self, cents: &i64) -> bool {
        self.withdraw(*cents);
        self.cents < 1_000_000
    }
}

/// The outcome and detail of the one test whose text is `text`.
fn verdict(checked: &invite::Checked, text: &str) -> (Outcome, String) {
    let found: Vec<_> = checked.tests.iter().filter(|t| t.test == text).collect();
    assert_eq!(found.len(), 1, "one test `{text}` in {checked:?}");
    (
        found[0].outcome,
        found[0].detail.clone().unwrap_or_default(),
    )
}

/// Asserts that `text` failed with exactly `detail`.
fn fails(checked: &invite::Checked, text: &str, detail: &str) {
    assert_eq!(verdict(checked, text), (Fail, detail.to_string()), "{text}");
}

fn passes(checked: &invite::Checked, text: &str) {
    let (outcome, detail) = verdict(checked, text);
    assert_eq!(outcome, Pass, "{text}: {detail}");
}

#[test]
fn each_comparison_fails_with_its_values_where_broken_and_passes_where_not() {
    let run = scenario_unconfigured(here!(), || {
        let checked = invite::check(|| {
            triple_checked(2.0);
            tiny(1.0);
            reciprocal(0.0);
            half(7);
            same(1_000_000_000_000_000_000);
            min_max(&[3, 1, 2]);
            pair(1.0);
            doubled(&[1.0, 2.0]);
            first_even(&[1, 4, 6]);
            biggest(&[1.0, 3.0]);
        });
        let t = |op: &str| format!("left: {op} with tolerance 1e-6)");
        // Floats, every operator both ways.
        fails(
            &checked,
            "triple_checked(x) != result",
            &t("6.0, right: 6.0 (!="),
        );
        passes(&checked, "triple_checked(x + 1.0) != result");
        fails(
            &checked,
            "triple_checked(x + 1.0) < result",
            &t("9.0, right: 6.0 (<"),
        );
        passes(&checked, "triple_checked(x - 1.0) < result");
        fails(
            &checked,
            "triple_checked(x + 1.0) <= result",
            &t("9.0, right: 6.0 (<="),
        );
        passes(&checked, "triple_checked(x) <= result");
        fails(
            &checked,
            "triple_checked(x - 1.0) > result",
            &t("3.0, right: 6.0 (>"),
        );
        fails(
            &checked,
            "triple_checked(x) > result",
            &t("6.0, right: 6.0 (>"),
        );
        passes(&checked, "triple_checked(x + 1.0) > result");
        fails(
            &checked,
            "triple_checked(x - 1.0) >= result",
            &t("3.0, right: 6.0 (>="),
        );
        passes(&checked, "triple_checked(x) >= result");
        // The tolerance is relative to the larger magnitude: 1e-6 of 6.
        fails(
            &checked,
            "triple_checked(x) == result + 1e-4",
            &t("6.0, right: 6.0001 (=="),
        );
        passes(&checked, "triple_checked(x) == result + 1e-6");
        fails(
            &checked,
            "in_range(result, 0.0, 5.0)",
            "value: 6.0, range: [0.0, 5.0] (tolerance 1e-6)",
        );
        passes(&checked, "in_range(result, 6.0, 7.0)");
        fails(
            &checked,
            "one_of(result, [1.0, 2.0])",
            "value: 6.0, options: [1.0, 2.0] (tolerance 1e-6)",
        );
        passes(&checked, "one_of(result, [5.0, 6.0])");
        // Near zero the tolerance is absolute: 1e-300 is zero, of either sign.
        fails(&checked, "tiny(x) != 0.0", &t("1e-300, right: 0.0 (!="));
        fails(&checked, "tiny(x) > 0.0", &t("1e-300, right: 0.0 (>"));
        passes(&checked, "tiny(x) == -0.0");
        passes(&checked, "tiny(-x) == result");
        // An infinity is no magnitude to widen the tolerance by.
        fails(
            &checked,
            "reciprocal(x) == f64::MAX",
            &t("inf, right: 1.7976931348623157e308 (=="),
        );
        passes(&checked, "reciprocal(x) > f64::MAX");
        fails(
            &checked,
            "reciprocal(-x) == result",
            &t("-inf, right: inf (=="),
        );
        passes(&checked, "reciprocal(-x) < result");
        // Integers: exact.
        fails(&checked, "half(n + 1) == result", &t("4, right: 3 (=="));
        passes(&checked, "half(n + 2) == result + 1");
        fails(&checked, "half(n) != result", &t("3, right: 3 (!="));
        fails(&checked, "half(n + 2) < result", &t("4, right: 3 (<"));
        passes(&checked, "half(n + 2) > result");
        fails(&checked, "half(n + 1) <= result", &t("4, right: 3 (<="));
        passes(&checked, "half(n - 1) >= result");
        fails(
            &checked,
            "same(x) == result + 1",
            &t("1000000000000000000, right: 1000000000000000001 (=="),
        );
        passes(&checked, "same(x) == result");
        // Tuples, arrays, vectors and options: element by element, then by length.
        fails(
            &checked,
            "min_max(&include(xs, 9)) == result",
            &t("(1, 9), right: (1, 3) (=="),
        );
        passes(&checked, "min_max(&reverse(xs)) == result");
        fails(
            &checked,
            "min_max(&include(xs, 0)) >= result",
            &t("(0, 3), right: (1, 3) (>="),
        );
        passes(&checked, "min_max(&include(xs, 9)) >= result");
        fails(
            &checked,
            "pair(-x) == result",
            &t("[-1.0, -2.0], right: [1.0, 2.0] (=="),
        );
        passes(&checked, "pair(-x) == [-result[0], -result[1]]");
        fails(
            &checked,
            "pair(x + 1.0) < result",
            &t("[2.0, 4.0], right: [1.0, 2.0] (<"),
        );
        passes(&checked, "pair(x + 1.0) > result");
        fails(
            &checked,
            "doubled(&reverse(xs)) == result",
            &t("[4.0, 2.0], right: [2.0, 4.0] (=="),
        );
        passes(&checked, "doubled(&reverse(xs)) == reverse(&result)");
        fails(
            &checked,
            "doubled(&include(xs, 0.0)) == result",
            &t("[2.0, 4.0, 0.0], right: [2.0, 4.0] (=="),
        );
        passes(&checked, "doubled(&xs[..1]) < result");
        fails(
            &checked,
            "first_even(&reverse(xs)) == result",
            &t("Some(6), right: Some(4) (=="),
        );
        passes(&checked, "first_even(&include(xs, 8)) == result");
        fails(
            &checked,
            "first_even(&[1]) == result",
            &t("None, right: Some(4) (=="),
        );
        passes(&checked, "first_even(&[1]) < result");
        fails(
            &checked,
            "&biggest(&negate(xs)) == &-result",
            &t("-1.0, right: -3.0 (=="),
        );
        passes(&checked, "&biggest(&reverse(xs)) == &result");
        // A type's own `PartialEq` knows no NaN: two runs of the source differ, and no
        // relation can be judged.
        let checked = invite::check(|| {
            read(-1.0);
        });
        let (outcome, detail) = verdict(&checked, "read(x) == result");
        assert_eq!(outcome, Inconclusive, "{detail}");
        println!("ok");
    });
    run.assert_success();
    assert_eq!(run.stdout, "ok\n", "{}", run.describe());
}

#[test]
fn hand_written_and_in_vivo_tests_fail_by_false_or_err_and_pass_otherwise() {
    let run = scenario_unconfigured(here!(), || {
        let checked = invite::check(|| {
            squared(5);
        });
        assert_eq!(
            verdict(&checked, "is_even"),
            (Fail, "the test returned false".to_string())
        );
        assert_eq!(
            verdict(&checked, "below_ten"),
            (
                Fail,
                r#"the test returned Err("25 is not below ten")"#.to_string()
            )
        );
        passes(&checked, "is_positive");

        let mut account = Account { cents: 100 };
        let checked = invite::check(|| account.withdraw(250));
        assert_eq!(
            verdict(&checked, "Self::never_negative"),
            (
                Fail,
                r#"the test returned Err("-150 cents after withdrawing 250")"#.to_string()
            )
        );
        assert_eq!(
            verdict(&checked, "Self::withdraws"),
            (Fail, "the test returned false".to_string())
        );
        passes(&checked, "Self::keeps_under_a_million");
        // The tests withdrew from their copies: the program's account saw one withdrawal.
        assert_eq!(account.cents, -150);
        println!("ok");
    });
    run.assert_success();
    assert_eq!(run.stdout, "ok\n", "{}", run.describe());
}
