//! The two-sample tests and the verdict on a statistical relation: how often each side gave
//! NaN or an infinity is compared first, then the finite values with the plan's test, and a
//! report gets the numbers behind the verdict.

use std::fmt::Write as _;

use statrs::distribution::{ContinuousCDF, FisherSnedecor, StudentsT};
use statrs::stats_tests::ks_test::{ks_twosample, KSTwoSampleAlternativeMethod};
use statrs::stats_tests::mannwhitneyu::{mannwhitneyu, MannWhitneyUMethod};
use statrs::stats_tests::{fishers_exact, Alternative, NaNPolicy};

use super::{Claim, Error, Finding, Plan, Test};
use crate::mr::Approx;
use crate::record::Outcome;

impl Claim {
    /// The alternative hypothesis a test must find for the claim to be shown false.
    fn alternative(self) -> Alternative {
        match self {
            Claim::Same => Alternative::TwoSided,
            Claim::NotAbove => Alternative::Greater,
            Claim::NotBelow => Alternative::Less,
        }
    }
}

/// Runs `test` on two samples of finite numbers.
pub fn test(test: Test, claim: Claim, left: &[f64], right: &[f64]) -> Result<Finding, Error> {
    if left.len() < 2 || right.len() < 2 {
        return Err(Error::TooFewValues {
            test,
            left: left.len(),
            right: right.len(),
        });
    }
    match test {
        Test::Welch => Ok(welch(claim, left, right)),
        Test::VarianceRatio => Ok(variance_ratio(left, right)),
        Test::MannWhitney => mannwhitneyu(
            left,
            right,
            MannWhitneyUMethod::Automatic,
            claim.alternative(),
        )
        .map(|(statistic, p)| Finding { statistic, p })
        .map_err(Error::MannWhitney),
        Test::KolmogorovSmirnov => {
            // The exact distribution (which accounts for ties) costs time in the product of the
            // sample sizes; past a few hundred values the asymptotic one is as good.
            let method = if left.len() + right.len() <= 400 {
                KSTwoSampleAlternativeMethod::TwoSidedExact
            } else {
                KSTwoSampleAlternativeMethod::TwoSidedAsymptotic
            };
            ks_twosample(left.to_vec(), right.to_vec(), method, NaNPolicy::Error)
                .map(|(statistic, p)| Finding { statistic, p })
                .map_err(Error::KolmogorovSmirnov)
        }
    }
}

/// The mean and the unbiased variance.
pub fn mean_var(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = if xs.len() < 2 {
        0.0
    } else {
        xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)
    };
    (mean, var)
}

fn welch(claim: Claim, left: &[f64], right: &[f64]) -> Finding {
    let (m1, v1) = mean_var(left);
    let (m2, v2) = mean_var(right);
    let (a, b) = (v1 / left.len() as f64, v2 / right.len() as f64);
    let se = (a + b).sqrt();
    if se == 0.0 {
        // Both sides constant: the means are what they are.
        let shown = match claim {
            Claim::Same => m1 != m2,
            Claim::NotAbove => m1 > m2,
            Claim::NotBelow => m1 < m2,
        };
        let statistic = if m1 == m2 {
            0.0
        } else {
            (m1 - m2).signum() * f64::INFINITY
        };
        return Finding {
            statistic,
            p: if shown { 0.0 } else { 1.0 },
        };
    }
    let t = (m1 - m2) / se;
    let df = (a + b).powi(2)
        / (a.powi(2) / (left.len() - 1) as f64 + b.powi(2) / (right.len() - 1) as f64);
    let dist = StudentsT::new(0.0, 1.0, df).expect("df is positive and finite");
    let p = match claim {
        Claim::Same => 2.0 * dist.sf(t.abs()),
        Claim::NotAbove => dist.sf(t),
        Claim::NotBelow => dist.cdf(t),
    };
    Finding {
        statistic: t,
        p: p.min(1.0),
    }
}

fn variance_ratio(left: &[f64], right: &[f64]) -> Finding {
    let (_, v1) = mean_var(left);
    let (_, v2) = mean_var(right);
    if v1 == 0.0 || v2 == 0.0 {
        let same = v1 == v2;
        return Finding {
            statistic: if same { 1.0 } else { v1 / v2 },
            p: if same { 1.0 } else { 0.0 },
        };
    }
    let f = v1 / v2;
    let dist = FisherSnedecor::new((left.len() - 1) as f64, (right.len() - 1) as f64)
        .expect("degrees of freedom are positive");
    let p = 2.0 * dist.cdf(f).min(dist.sf(f));
    Finding {
        statistic: f,
        p: p.min(1.0),
    }
}

/// A sample's values that are not finite, by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Special {
    nan: usize,
    inf: usize,
    neg_inf: usize,
}

impl Special {
    fn of(xs: &[f64]) -> Special {
        let mut s = Special::default();
        for x in xs {
            if x.is_nan() {
                s.nan += 1;
            } else if *x == f64::INFINITY {
                s.inf += 1;
            } else if *x == f64::NEG_INFINITY {
                s.neg_inf += 1;
            }
        }
        s
    }

    fn total(self) -> usize {
        self.nan + self.inf + self.neg_inf
    }

    fn counts(self) -> [(usize, &'static str); 3] {
        [
            (self.nan, "NaN"),
            (self.inf, "+inf"),
            (self.neg_inf, "-inf"),
        ]
    }
}

/// The verdict on a statistical relation, with the detail a report shows.
///
/// The samples may hold NaN and infinities. Their frequencies are compared first, kind by kind,
/// with Fisher's exact test; the finite values are then compared with the plan's test. When both
/// steps run, each is judged at half the level. Two samples that agree value by value once
/// sorted (within `tolerance`) are the same whatever the test says: a deterministic side must
/// not fail on rounding.
pub fn judge(
    plan: &Plan,
    claim: Claim,
    left: &[f64],
    right: &[f64],
    control: Option<&[f64]>,
    tolerance: f64,
) -> (Outcome, String) {
    let level = plan.level();
    let mut detail = String::new();
    if let Some(control) = control {
        match compare(plan, Claim::Same, right, control, tolerance, level) {
            Err(e) => return (Outcome::Error, e.to_string()),
            Ok(c) if c.shown => {
                return (
                    Outcome::Inconclusive,
                    format!(
                        "the control failed: two samples of the unchanged side differ ({}), so \
                         {} cannot judge this relation; its runs are not independent or its \
                         outputs are too irregular for the test",
                        c.text,
                        plan.test.title()
                    ),
                );
            }
            Ok(c) => {
                let _ = write!(detail, "; control: {}", c.text);
            }
        }
    }
    match compare(plan, claim, left, right, tolerance, level) {
        Err(e) => (Outcome::Error, e.to_string()),
        Ok(c) => (
            if c.shown {
                Outcome::Fail
            } else {
                Outcome::Pass
            },
            format!("{}{detail}", c.text),
        ),
    }
}

struct Comparison {
    /// Whether the samples show the claim false at the level.
    shown: bool,
    text: String,
}

fn compare(
    plan: &Plan,
    claim: Claim,
    left: &[f64],
    right: &[f64],
    tolerance: f64,
    level: f64,
) -> Result<Comparison, Error> {
    if same_when_sorted(left, right, tolerance) {
        return Ok(Comparison {
            shown: false,
            text: format!("the {} runs of each side gave the same values", left.len()),
        });
    }
    let (sl, sr) = (Special::of(left), Special::of(right));
    let mut level = level;
    let mut text = String::new();
    if sl.total() + sr.total() > 0 {
        level /= 2.0;
        for ((a, kind), (b, _)) in sl.counts().into_iter().zip(sr.counts()) {
            if a == b {
                continue;
            }
            let table = [
                a as u64,
                (left.len() - a) as u64,
                b as u64,
                (right.len() - b) as u64,
            ];
            let alternative = match claim {
                // More +inf on the left is the left being larger; more -inf, smaller. NaN is
                // unordered, so any difference in how often it comes counts.
                Claim::NotAbove if kind == "+inf" => Alternative::Greater,
                Claim::NotAbove if kind == "-inf" => Alternative::Less,
                Claim::NotBelow if kind == "+inf" => Alternative::Less,
                Claim::NotBelow if kind == "-inf" => Alternative::Greater,
                _ => Alternative::TwoSided,
            };
            let p = fishers_exact(&table, alternative).map_err(Error::Fisher)?;
            if p < level {
                return Ok(Comparison {
                    shown: true,
                    text: format!(
                        "{kind} came in {a} of {} runs of the left side and {b} of {} of the \
                         right (Fisher's exact test, p = {}, below α = {})",
                        left.len(),
                        right.len(),
                        num(p),
                        num(level)
                    ),
                });
            }
        }
        let _ = write!(
            text,
            "; left out: {} non-finite values on the left, {} on the right",
            sl.total(),
            sr.total()
        );
    }
    let fl: Vec<f64> = left.iter().copied().filter(|x| x.is_finite()).collect();
    let fr: Vec<f64> = right.iter().copied().filter(|x| x.is_finite()).collect();
    if fl.len() < 2 || fr.len() < 2 {
        return Ok(Comparison {
            shown: false,
            text: format!(
                "too few finite values to compare (left {}, right {}){text}",
                fl.len(),
                fr.len()
            ),
        });
    }
    let finding = test(plan.test, claim, &fl, &fr)?;
    let shown = finding.p < level;
    let (ml, vl) = mean_var(&fl);
    let (mr, vr) = mean_var(&fr);
    let verdict = if shown { "below" } else { "not below" };
    Ok(Comparison {
        shown,
        text: format!(
            "{}, {} runs per side, claim: {}; left mean {}, sd {}; right mean {}, sd {}; \
             statistic {}, p = {}, {verdict} α = {}{}{text}",
            plan.test.title(),
            left.len(),
            claim_text(plan.test, claim),
            num(ml),
            num(vl.sqrt()),
            num(mr),
            num(vr.sqrt()),
            num(finding.statistic),
            num(finding.p),
            num(level),
            if plan.checks > 1 {
                format!(" ({} over {} checks)", num(plan.alpha), plan.checks)
            } else {
                String::new()
            },
        ),
    })
}

fn claim_text(test: Test, claim: Claim) -> &'static str {
    match (test, claim) {
        (Test::KolmogorovSmirnov, _) => "the same distribution",
        (Test::VarianceRatio, _) => "the same variance",
        (Test::Welch, Claim::Same) => "the same mean",
        (Test::MannWhitney, Claim::Same) => "neither side tends to be larger",
        (Test::Welch, Claim::NotAbove) => "the left mean is not above the right",
        (Test::Welch, Claim::NotBelow) => "the left mean is not below the right",
        (_, Claim::NotAbove) => "the left side does not tend to be larger",
        (_, Claim::NotBelow) => "the left side does not tend to be smaller",
    }
}

fn same_when_sorted(left: &[f64], right: &[f64], tolerance: f64) -> bool {
    if left.len() != right.len() {
        return false;
    }
    let sort = |xs: &[f64]| {
        let mut v = xs.to_vec();
        v.sort_by(f64::total_cmp);
        v
    };
    let (a, b) = (sort(left), sort(right));
    a.iter()
        .zip(&b)
        .all(|(x, y)| (x.is_nan() && y.is_nan()) || x.approx_eq(y, tolerance))
}

/// Five significant digits, enough to read a p-value or a mean in a report.
fn num(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let text = format!("{x:.4e}");
    let parsed: f64 = text.parse().unwrap_or(x);
    let magnitude = x.abs().log10();
    if (-4.0..6.0).contains(&magnitude) {
        format!("{parsed}")
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::tests::plan;

    /// A fixed, spread sample: quantiles of a standard normal, so no test depends on luck.
    fn normal(n: usize, mean: f64, sd: f64) -> Vec<f64> {
        use statrs::distribution::Normal;
        let d = Normal::new(mean, sd).unwrap();
        (0..n)
            .map(|i| d.inverse_cdf((i as f64 + 0.5) / n as f64))
            .collect()
    }

    #[test]
    fn welch_matches_a_worked_example() {
        // Means 19.37 and 22.51, variances 1.449 and 21.4721: t = -2.0740 on 10.21 degrees of
        // freedom, and p = 0.06428 by numerical integration of the t density (independently of
        // statrs).
        let a = [19.8, 20.4, 19.6, 17.8, 18.5, 18.9, 18.3, 18.9, 19.5, 22.0];
        let b = [28.2, 26.6, 20.1, 23.3, 25.2, 22.1, 17.7, 27.6, 20.6, 13.7];
        let f = test(Test::Welch, Claim::Same, &a, &b).unwrap();
        assert!((f.statistic + 2.0740).abs() < 1e-4, "{f:?}");
        assert!((f.p - 0.06428).abs() < 1e-5, "{f:?}");
        let below = test(Test::Welch, Claim::NotBelow, &a, &b).unwrap();
        let above = test(Test::Welch, Claim::NotAbove, &a, &b).unwrap();
        assert!((below.p - f.p / 2.0).abs() < 1e-9, "{below:?}");
        assert!((above.p - (1.0 - f.p / 2.0)).abs() < 1e-9, "{above:?}");
    }

    #[test]
    fn variance_ratio_is_two_sided() {
        let a = normal(30, 0.0, 1.0);
        let b = normal(30, 5.0, 3.0);
        let f = test(Test::VarianceRatio, Claim::Same, &a, &b).unwrap();
        assert!((f.statistic - 1.0 / 9.0).abs() < 1e-9, "{f:?}");
        assert!(f.p < 1e-6, "{f:?}");
        let g = test(Test::VarianceRatio, Claim::Same, &b, &a).unwrap();
        assert!((f.p - g.p).abs() < 1e-12, "{f:?} {g:?}");
        let same = test(Test::VarianceRatio, Claim::Same, &a, &normal(30, 7.0, 1.0)).unwrap();
        assert!(same.p > 0.99, "{same:?}");
    }

    #[test]
    fn every_test_tells_a_shift_from_none() {
        let a = normal(30, 0.0, 1.0);
        for t in [Test::Welch, Test::MannWhitney, Test::KolmogorovSmirnov] {
            let shifted = test(t, Claim::Same, &a, &normal(30, 2.0, 1.0)).unwrap();
            let same = test(t, Claim::Same, &a, &normal(30, 0.0, 1.0)).unwrap();
            assert!(shifted.p < 1e-4, "{t:?} {shifted:?}");
            assert!(same.p > 0.5, "{t:?} {same:?}");
        }
    }

    #[test]
    fn one_sided_claims_fail_only_the_way_they_claim() {
        let low = normal(30, 0.0, 1.0);
        let high = normal(30, 2.0, 1.0);
        for t in [Test::Welch, Test::MannWhitney] {
            let p = |c, l: &[f64], r: &[f64]| test(t, c, l, r).unwrap().p;
            assert!(p(Claim::NotAbove, &high, &low) < 1e-4, "{t:?}");
            assert!(p(Claim::NotAbove, &low, &high) > 0.99, "{t:?}");
            assert!(p(Claim::NotBelow, &low, &high) < 1e-4, "{t:?}");
            assert!(p(Claim::NotBelow, &high, &low) > 0.99, "{t:?}");
        }
    }

    #[test]
    fn constant_sides_are_judged_by_their_values() {
        let (two, three) = (vec![2.0; 10], vec![3.0; 10]);
        for t in Test::ALL {
            let pl = plan(t);
            assert_eq!(
                judge(&pl, Claim::Same, &two, &two, None, 1e-9).0,
                Outcome::Pass
            );
        }
        let w = plan(Test::Welch);
        assert_eq!(
            judge(&w, Claim::Same, &two, &three, None, 1e-9).0,
            Outcome::Fail
        );
        assert_eq!(
            judge(&w, Claim::NotAbove, &two, &three, None, 1e-9).0,
            Outcome::Pass
        );
        assert_eq!(
            judge(&w, Claim::NotAbove, &three, &two, None, 1e-9).0,
            Outcome::Fail
        );
        assert_eq!(
            judge(&w, Claim::NotBelow, &two, &three, None, 1e-9).0,
            Outcome::Fail
        );
        assert_eq!(
            judge(&w, Claim::NotBelow, &three, &two, None, 1e-9).0,
            Outcome::Pass
        );
        // Rounding is no difference; one constant side against a varied one is.
        let nearly: Vec<f64> = two.iter().map(|x| x * (1.0 + 1e-12)).collect();
        assert_eq!(
            judge(&w, Claim::Same, &nearly, &two, None, 1e-9).0,
            Outcome::Pass
        );
        let v = plan(Test::VarianceRatio);
        let spread = normal(10, 2.0, 1.0);
        assert_eq!(
            judge(&v, Claim::Same, &two, &three, None, 1e-9).0,
            Outcome::Pass
        );
        assert_eq!(
            judge(&v, Claim::Same, &two, &spread, None, 1e-9).0,
            Outcome::Fail
        );
    }

    #[test]
    fn non_finite_values_are_counted_then_left_out() {
        let w = plan(Test::Welch);
        let mut with_nan = normal(30, 0.0, 1.0);
        with_nan[3] = f64::NAN;
        let base = normal(30, 0.0, 1.0);
        let (o, d) = judge(&w, Claim::Same, &with_nan, &base, None, 1e-9);
        assert_eq!(o, Outcome::Pass, "{d}");
        assert!(
            d.contains("left out: 1 non-finite values on the left"),
            "{d}"
        );
        let all_nan = vec![f64::NAN; 30];
        let (o, d) = judge(&w, Claim::Same, &all_nan, &base, None, 1e-9);
        assert_eq!(o, Outcome::Fail, "{d}");
        assert!(
            d.contains("NaN came in 30 of 30 runs of the left side and 0 of 30"),
            "{d}"
        );
        // Infinities are ordered: more +inf on the left breaks `<=`, not `>=`.
        let inf = vec![f64::INFINITY; 30];
        assert_eq!(
            judge(&w, Claim::NotAbove, &inf, &base, None, 1e-9).0,
            Outcome::Fail
        );
        assert_eq!(
            judge(&w, Claim::NotBelow, &inf, &base, None, 1e-9).0,
            Outcome::Pass
        );
        let neg = vec![f64::NEG_INFINITY; 30];
        assert_eq!(
            judge(&w, Claim::NotAbove, &neg, &base, None, 1e-9).0,
            Outcome::Pass
        );
        assert_eq!(
            judge(&w, Claim::NotBelow, &neg, &base, None, 1e-9).0,
            Outcome::Fail
        );
        // NaN on both sides alike is the same result.
        assert_eq!(
            judge(&w, Claim::Same, &all_nan, &all_nan, None, 1e-9).0,
            Outcome::Pass
        );
    }

    #[test]
    fn the_level_is_shared_among_checks() {
        let a = normal(30, 0.0, 1.0);
        let b = normal(30, 0.95, 1.0);
        let p = test(Test::Welch, Claim::Same, &a, &b).unwrap().p;
        assert!(p < 0.001 && p > 0.0001, "{p}");
        let one = plan(Test::Welch);
        let four = Plan { checks: 4, ..one };
        assert_eq!(
            judge(&one, Claim::Same, &a, &b, None, 1e-9).0,
            Outcome::Fail
        );
        let (o, d) = judge(&four, Claim::Same, &a, &b, None, 1e-9);
        assert_eq!(o, Outcome::Pass, "{d}");
        assert!(d.contains("α = 0.00025 (0.001 over 4 checks)"), "{d}");
    }

    #[test]
    fn a_failed_control_makes_the_verdict_inconclusive() {
        let w = plan(Test::Welch);
        let a = normal(30, 0.0, 1.0);
        let far = normal(30, 3.0, 1.0);
        let (o, d) = judge(&w, Claim::Same, &a, &a, Some(&far), 1e-9);
        assert_eq!(o, Outcome::Inconclusive, "{d}");
        assert!(d.starts_with("the control failed"), "{d}");
        let (o, d) = judge(&w, Claim::Same, &far, &a, Some(&a), 1e-9);
        assert_eq!(o, Outcome::Fail, "{d}");
        assert!(d.contains("; control: "), "{d}");
    }

    #[test]
    fn the_detail_names_the_test_and_both_samples() {
        let w = plan(Test::Welch);
        let (_, d) = judge(
            &w,
            Claim::Same,
            &normal(30, 10.0, 1.0),
            &normal(30, 0.0, 1.0),
            None,
            1e-9,
        );
        assert!(
            d.starts_with(
                "Welch's t-test, 30 runs per side, claim: the same mean; left mean 10, sd 0.99583; \
                 right mean -5.9212e-17, sd 0.99583; statistic 38.892, p = 3.0191e-43"
            ),
            "{d}"
        );
        assert!(d.contains("below α = 0.001"), "{d}");
    }

    #[test]
    fn a_test_needs_two_values_a_side_of_any_sizes() {
        for t in Test::ALL {
            assert!(test(t, Claim::Same, &[1.0], &[1.0, 2.0]).is_err(), "{t:?}");
            assert!(test(t, Claim::Same, &[1.0, 2.0], &[1.0]).is_err(), "{t:?}");
            assert!(
                test(t, Claim::Same, &[1.0, 2.0], &[1.5, 3.0]).is_ok(),
                "{t:?}"
            );
            // Sides of different sizes.
            let f = test(t, Claim::Same, &normal(10, 0.0, 1.0), &normal(25, 0.0, 1.0)).unwrap();
            assert!(f.p > 0.5, "{t:?} {f:?}");
        }
        assert_eq!(mean_var(&[3.0]), (3.0, 0.0));
        assert_eq!(mean_var(&[1.0, 3.0]), (2.0, 2.0));
    }

    #[test]
    fn constant_sides_give_certain_findings() {
        let (two, three) = ([2.0, 2.0], [3.0, 3.0]);
        let f = |c, l: &[f64], r: &[f64]| test(Test::Welch, c, l, r).unwrap();
        assert_eq!(
            f(Claim::NotAbove, &two, &two),
            Finding {
                statistic: 0.0,
                p: 1.0
            }
        );
        assert_eq!(
            f(Claim::NotBelow, &two, &two),
            Finding {
                statistic: 0.0,
                p: 1.0
            }
        );
        assert_eq!(f(Claim::Same, &three, &two).statistic, f64::INFINITY);
        assert_eq!(f(Claim::Same, &two, &three).statistic, f64::NEG_INFINITY);
        let v = |l: &[f64], r: &[f64]| test(Test::VarianceRatio, Claim::Same, l, r).unwrap();
        assert_eq!(
            v(&[1.0, 3.0], &two),
            Finding {
                statistic: f64::INFINITY,
                p: 0.0
            }
        );
        assert_eq!(
            v(&two, &[1.0, 3.0]),
            Finding {
                statistic: 0.0,
                p: 0.0
            }
        );
        assert_eq!(
            v(&two, &three),
            Finding {
                statistic: 1.0,
                p: 1.0
            }
        );
    }

    #[test]
    fn fisher_compares_how_often_each_special_value_comes() {
        let w = plan(Test::Welch);
        let base = normal(30, 0.0, 1.0);
        let with = |kind: f64, k: usize| {
            let mut v = base.clone();
            v[..k].fill(kind);
            v
        };
        // 10 of 30 against none: two-sided p = 0.000797 (the hypergeometric sum, computed
        // independently), judged at half of α = 0.01.
        let (o, d) = judge(
            &Plan { alpha: 0.01, ..w },
            Claim::Same,
            &with(f64::NAN, 10),
            &base,
            None,
            1e-9,
        );
        assert_eq!(o, Outcome::Fail, "{d}");
        assert!(d.contains("NaN came in 10 of 30 runs of the left side and 0 of 30 of the right (Fisher's exact test, p = 0.000797"), "{d}");
        assert!(d.contains("below α = 0.005"), "{d}");
        // 12 of 30 against 2 of 30: p = 0.0047692 (computed the same way).
        let (o, d) = judge(
            &Plan { alpha: 0.02, ..w },
            Claim::Same,
            &with(f64::NAN, 12),
            &with(f64::NAN, 2),
            None,
            1e-9,
        );
        assert_eq!(o, Outcome::Fail, "{d}");
        assert!(
            d.contains("and 2 of 30 of the right (Fisher's exact test, p = 0.0047692"),
            "{d}"
        );
        // Only the right side has them.
        let (o, d) = judge(&w, Claim::Same, &base, &with(f64::NAN, 3), None, 1e-9);
        assert_eq!(o, Outcome::Pass, "{d}");
        assert!(
            d.contains("left out: 0 non-finite values on the left, 3 on the right"),
            "{d}"
        );
        // NaN is unordered: a difference in either direction breaks a one-sided claim.
        let all = vec![f64::NAN; 30];
        assert_eq!(
            judge(&w, Claim::NotAbove, &all, &base, None, 1e-9).0,
            Outcome::Fail
        );
        assert_eq!(
            judge(&w, Claim::NotBelow, &base, &all, None, 1e-9).0,
            Outcome::Fail
        );
        // An infinity breaks a one-sided claim only in its own direction, and at the one-sided
        // p, which is smaller: a level between the two tells them apart.
        for (kind, claim, alternative) in [
            (f64::INFINITY, Claim::NotAbove, Alternative::Greater),
            (f64::NEG_INFINITY, Claim::NotBelow, Alternative::Greater),
        ] {
            let table = [6, 24, 0, 30];
            let one = fishers_exact(&table, alternative).unwrap();
            let two = fishers_exact(&table, Alternative::TwoSided).unwrap();
            assert!(one < two, "{one} {two}");
            // Judged at α / 2 = the midpoint.
            let between = Plan {
                alpha: one + two,
                ..w
            };
            let (o, d) = judge(&between, claim, &with(kind, 6), &base, None, 1e-9);
            assert_eq!(o, Outcome::Fail, "{kind} {claim:?}: {d}");
        }
    }

    #[test]
    fn special_values_halve_the_level_of_the_test_on_the_rest() {
        let a = normal(30, 0.0, 1.0);
        let b = normal(30, 0.9, 1.0);
        let p = test(Test::Welch, Claim::Same, &a, &b).unwrap().p;
        // A level a little above p: the test alone fails, at half the level it does not.
        let pl = Plan {
            alpha: p * 1.5,
            ..plan(Test::Welch)
        };
        assert_eq!(judge(&pl, Claim::Same, &a, &b, None, 1e-9).0, Outcome::Fail);
        let (mut a2, mut b2) = (a.clone(), b.clone());
        a2.push(f64::NAN);
        b2.push(f64::NAN);
        let (o, d) = judge(&pl, Claim::Same, &a2, &b2, None, 1e-9);
        assert_eq!(o, Outcome::Pass, "{d}");
    }

    #[test]
    fn too_few_finite_values_are_not_a_finding() {
        let w = plan(Test::Welch);
        let (o, d) = judge(
            &w,
            Claim::Same,
            &[f64::NAN, f64::NAN, 1.0],
            &[f64::NAN, f64::NAN, 9.0],
            None,
            1e-9,
        );
        assert_eq!(o, Outcome::Pass, "{d}");
        assert!(
            d.starts_with("too few finite values to compare (left 1, right 1)"),
            "{d}"
        );
        let (o, d) = judge(
            &w,
            Claim::Same,
            &[f64::NAN, 1.0, 1.1],
            &[f64::NAN, 9.0, 9.1],
            None,
            1e-9,
        );
        assert_eq!(o, Outcome::Fail, "{d}");
        assert!(d.starts_with("Welch's t-test, 3 runs per side"), "{d}");
    }

    #[test]
    fn numbers_are_shown_with_five_significant_digits() {
        assert_eq!(num(0.0), "0");
        assert_eq!(num(f64::INFINITY), "inf");
        assert_eq!(num(f64::NAN), "NaN");
        assert_eq!(num(1.0 / 3.0), "0.33333");
        assert_eq!(num(123456.0), "123460");
        assert_eq!(num(1234567.0), "1.2346e6");
        assert_eq!(num(0.00001234), "1.2340e-5");
        assert_eq!(num(-2.5), "-2.5");
    }
}
