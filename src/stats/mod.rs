//! Statistical relations: for code whose output is random, a relation may hold only in
//! distribution. Each side of such a relation is run many times, each run on its own random
//! stream, and the two samples are compared with a two-sample test at a stated α.
//!
//! The tests are Welch's t (means), Mann–Whitney U (location, by ranks), two-sample
//! Kolmogorov–Smirnov (whole distributions) and the variance ratio (F). The distributions come
//! from `statrs`. Rankings are compared with the ranking metrics ([`footrule`] and the others), in
//! an ordinary relation: `invite::stats::footrule(&f(&permute(xs)), &result) <= 0.1`.
//!
//! A transformed sample is compared, never a transformed statistic: for `f(10·x)` against
//! `10·f(x)` the right side's sample is each run's result times ten, so its variance is a hundred
//! times the original's, as it must be.
//!
//! The plan, its errors and the sample trait are here; the tests and the verdict are in
//! `two_sample`, the ranking metrics in `ranking`.

mod ranking;
mod two_sample;

use std::fmt;

use statrs::stats_tests::fisher::FishersExactTestError;
use statrs::stats_tests::ks_test::KSTestError;
use statrs::stats_tests::mannwhitneyu::MannWhitneyUError;

use crate::mr::Op;

pub use ranking::{
    bottom, euclidean, footrule, manhattan, ranked_differently, same_place_share, top,
};
pub use two_sample::{judge, mean_var, test};

/// Runs per side when a relation does not say.
pub const DEFAULT_RUNS: usize = 30;
/// The false-alarm rate per check when a relation does not say: low enough that a program
/// checking itself a thousand times a day raises a false alarm about once in ten days.
pub const DEFAULT_ALPHA: f64 = 1e-4;
/// Fewer runs than this say nothing a test could trust.
pub const MIN_RUNS: usize = 5;
/// More runs than this make a child run for minutes; a relation asking for more is refused.
pub const MAX_RUNS: usize = 100_000;

/// A two-sample test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Test {
    /// Welch's t-test: the means are equal (variances may differ).
    Welch,
    /// Mann–Whitney U: neither side tends to be larger (ranks; robust to outliers).
    MannWhitney,
    /// Two-sample Kolmogorov–Smirnov: the distributions are the same.
    KolmogorovSmirnov,
    /// The variance ratio (F-test): the variances are equal.
    VarianceRatio,
}

impl Test {
    /// Every test, in the order errors list them.
    pub const ALL: [Test; 4] = [
        Test::Welch,
        Test::MannWhitney,
        Test::KolmogorovSmirnov,
        Test::VarianceRatio,
    ];

    /// The name a relation or a spec uses.
    pub fn name(self) -> &'static str {
        match self {
            Test::Welch => "welch",
            Test::MannWhitney => "mann_whitney",
            Test::KolmogorovSmirnov => "ks",
            Test::VarianceRatio => "variance_ratio",
        }
    }

    /// What a report calls it.
    pub fn title(self) -> &'static str {
        match self {
            Test::Welch => "Welch's t-test",
            Test::MannWhitney => "the Mann-Whitney U test",
            Test::KolmogorovSmirnov => "the Kolmogorov-Smirnov test",
            Test::VarianceRatio => "the variance-ratio F-test",
        }
    }

    /// Parses a test's name (`-` and `_` alike, any case).
    pub fn parse(name: &str) -> Result<Test, Error> {
        let key = name.trim().to_ascii_lowercase().replace('-', "_");
        Test::ALL
            .into_iter()
            .find(|t| t.name() == key)
            .ok_or_else(|| Error::UnknownTest {
                name: name.to_string(),
            })
    }

    /// Whether the test can judge a one-sided relation (`<`, `<=`, `>`, `>=`).
    pub fn one_sided(self) -> bool {
        matches!(self, Test::Welch | Test::MannWhitney)
    }
}

/// What the relation claims of the left sample against the right.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Claim {
    /// `==`: the same (mean, location, distribution or variance, as the test measures).
    Same,
    /// `<` or `<=`: the left side is not larger; it fails only when the left is shown larger.
    NotAbove,
    /// `>` or `>=`: the left side is not smaller.
    NotBelow,
}

impl Claim {
    /// The claim of a comparison operator, or `None` for `!=`, which no test can confirm.
    pub fn of(op: Op) -> Option<Claim> {
        match op {
            Op::Eq => Some(Claim::Same),
            Op::Lt | Op::Le => Some(Claim::NotAbove),
            Op::Gt | Op::Ge => Some(Claim::NotBelow),
            Op::Ne => None,
        }
    }
}

/// How a statistical relation is judged.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plan {
    /// The test the samples go to.
    pub test: Test,
    /// Runs per side.
    pub runs: usize,
    /// The false-alarm rate asked for, before correction.
    pub alpha: f64,
    /// How many statistical checks share `alpha` (Bonferroni): each is judged at `alpha / checks`.
    pub checks: usize,
    /// Whether the right side is first compared with an independent sample of itself.
    pub control: bool,
}

impl Default for Plan {
    fn default() -> Plan {
        Plan {
            test: Test::Welch,
            runs: DEFAULT_RUNS,
            alpha: DEFAULT_ALPHA,
            checks: 1,
            control: false,
        }
    }
}

impl Plan {
    /// Refuses what no test could judge.
    pub fn validate(&self) -> Result<(), Error> {
        if !(MIN_RUNS..=MAX_RUNS).contains(&self.runs) {
            return Err(Error::RunsOutOfRange { runs: self.runs });
        }
        if !(self.alpha > 0.0 && self.alpha < 1.0) {
            return Err(Error::AlphaNotAProbability { alpha: self.alpha });
        }
        if self.checks == 0 {
            return Err(Error::NoChecks);
        }
        Ok(())
    }

    /// The level each check is judged at.
    pub fn level(&self) -> f64 {
        self.alpha / self.checks.max(1) as f64
    }

    /// Checks that `claim` is one this plan's test can judge.
    pub fn supports(&self, claim: Claim) -> Result<(), Error> {
        if claim != Claim::Same && !self.test.one_sided() {
            return Err(Error::SamenessOnly {
                test: self.test,
                claim,
            });
        }
        Ok(())
    }
}

/// A test's statistic and p-value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Finding {
    /// The test's statistic (t, U, D or F).
    pub statistic: f64,
    /// The probability of a statistic at least this extreme were the claim true.
    pub p: f64,
}

/// Why a plan was refused or a test could not run, with what to change.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// A name [`Test::parse`] does not know: use one of the names of [`Test::ALL`].
    UnknownTest {
        /// The name as given.
        name: String,
    },
    /// Fewer than [`MIN_RUNS`] or more than [`MAX_RUNS`] runs per side.
    RunsOutOfRange {
        /// The runs asked for.
        runs: usize,
    },
    /// An `alpha` that is not strictly between 0 and 1: give the false-alarm rate per check.
    AlphaNotAProbability {
        /// The `alpha` given.
        alpha: f64,
    },
    /// A plan shared among no checks: `checks` must be 1 or more.
    NoChecks,
    /// A one-sided claim given to a test that judges sameness only: write the relation with
    /// `==`, or use [`Test::Welch`] or [`Test::MannWhitney`].
    SamenessOnly {
        /// The plan's test.
        test: Test,
        /// The claim it cannot judge.
        claim: Claim,
    },
    /// A side with fewer than two values: run each side at least twice.
    TooFewValues {
        /// The test asked for.
        test: Test,
        /// Values on the left.
        left: usize,
        /// Values on the right.
        right: usize,
    },
    /// The Mann-Whitney U test refused the samples.
    MannWhitney(MannWhitneyUError),
    /// The Kolmogorov-Smirnov test refused the samples.
    KolmogorovSmirnov(KSTestError),
    /// Fisher's exact test, which compares how often each non-finite value came, refused the
    /// counts.
    Fisher(FishersExactTestError),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::UnknownTest { name } => write!(
                f,
                "unknown statistical test `{name}`: use one of {}",
                Test::ALL.map(|t| format!("`{}`", t.name())).join(", ")
            ),
            Error::RunsOutOfRange { runs } => write!(
                f,
                "`runs = {runs}` is out of range: a statistical relation needs between \
                 {MIN_RUNS} and {MAX_RUNS} runs per side ({DEFAULT_RUNS} when not given)"
            ),
            Error::AlphaNotAProbability { alpha } => write!(
                f,
                "`alpha = {alpha}` is not a probability: give the false-alarm rate per check, \
                 between 0 and 1 exclusive, such as 0.001 ({DEFAULT_ALPHA} when not given)"
            ),
            Error::NoChecks => {
                f.write_str("a statistical relation counts among at least one check")
            }
            Error::SamenessOnly { test, .. } => write!(
                f,
                "{} compares two samples for sameness only: write the relation with `==`, or \
                 use `welch` or `mann_whitney` for `<`, `<=`, `>` and `>=`",
                test.title()
            ),
            Error::TooFewValues { test, left, right } => write!(
                f,
                "{} needs at least two values per side (got {left} and {right})",
                test.title()
            ),
            Error::MannWhitney(e) => write!(f, "the Mann-Whitney U test could not run: {e}"),
            Error::KolmogorovSmirnov(e) => {
                write!(f, "the Kolmogorov-Smirnov test could not run: {e}")
            }
            Error::Fisher(e) => write!(f, "Fisher's exact test could not run: {e}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::MannWhitney(e) => Some(e),
            Error::KolmogorovSmirnov(e) => Some(e),
            Error::Fisher(e) => Some(e),
            _ => None,
        }
    }
}

/// A value a statistical relation's side may take: a number, or a `bool` (counted as 0 or 1,
/// so that the tests compare how often it is true).
#[diagnostic::on_unimplemented(
    message = "a statistical relation compares samples of numbers, and `{Self}` is not one",
    label = "this side gives a `{Self}`",
    note = "make each side a number (an integer, a float or a bool): for a vector, compare a \
            summary of it such as `invite::mr::mean(&...)`"
)]
pub trait Sample {
    /// The value as a number of the sample.
    fn sample(&self) -> f64;
}

macro_rules! sample_as {
    ($($t:ty),*) => {$(
        impl Sample for $t {
            fn sample(&self) -> f64 {
                *self as f64
            }
        }
    )*};
}
sample_as!(f32, f64, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

impl Sample for bool {
    fn sample(&self) -> f64 {
        f64::from(u8::from(*self))
    }
}

impl<T: Sample + ?Sized> Sample for &T {
    fn sample(&self) -> f64 {
        (**self).sample()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plan for `test` at a strict significance, shared with the other files' tests.
    pub(super) fn plan(test: Test) -> Plan {
        Plan {
            test,
            alpha: 0.001,
            ..Plan::default()
        }
    }

    #[test]
    fn plans_are_validated() {
        assert!(Plan::default().validate().is_ok());
        for bad in [
            Plan {
                runs: 4,
                ..Plan::default()
            },
            Plan {
                runs: MAX_RUNS + 1,
                ..Plan::default()
            },
            Plan {
                alpha: 0.0,
                ..Plan::default()
            },
            Plan {
                alpha: 1.0,
                ..Plan::default()
            },
            Plan {
                alpha: f64::NAN,
                ..Plan::default()
            },
            Plan {
                checks: 0,
                ..Plan::default()
            },
        ] {
            assert!(bad.validate().is_err(), "{bad:?}");
        }
        assert!(Plan {
            runs: MIN_RUNS,
            ..Plan::default()
        }
        .validate()
        .is_ok());
        let ks = plan(Test::KolmogorovSmirnov);
        assert!(ks.supports(Claim::Same).is_ok());
        assert!(ks.supports(Claim::NotAbove).is_err());
        assert!(plan(Test::MannWhitney).supports(Claim::NotBelow).is_ok());
        assert_eq!(Test::parse("Mann-Whitney"), Ok(Test::MannWhitney));
        assert_eq!(Test::parse("variance_ratio"), Ok(Test::VarianceRatio));
        let e = Test::parse("anova").unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown statistical test `anova`: use one of `welch`, `mann_whitney`, `ks`, \
             `variance_ratio`"
        );
        assert_eq!(Claim::of(Op::Ne), None);
        assert_eq!(Claim::of(Op::Lt), Some(Claim::NotAbove));
        assert_eq!(Claim::of(Op::Ge), Some(Claim::NotBelow));
    }

    #[test]
    fn each_error_says_what_to_change_and_chains_to_the_library_s() {
        use std::error::Error as _;
        let runs = Plan {
            runs: 4,
            ..Plan::default()
        };
        assert_eq!(
            runs.validate().unwrap_err().to_string(),
            "`runs = 4` is out of range: a statistical relation needs between 5 and 100000 runs \
             per side (30 when not given)"
        );
        let alpha = Plan {
            alpha: 1.0,
            ..Plan::default()
        };
        assert_eq!(
            alpha.validate().unwrap_err().to_string(),
            "`alpha = 1` is not a probability: give the false-alarm rate per check, between 0 \
             and 1 exclusive, such as 0.001 (0.0001 when not given)"
        );
        let none = Plan {
            checks: 0,
            ..Plan::default()
        };
        assert_eq!(none.validate(), Err(Error::NoChecks));
        let e = plan(Test::VarianceRatio)
            .supports(Claim::NotBelow)
            .unwrap_err();
        assert_eq!(
            e,
            Error::SamenessOnly {
                test: Test::VarianceRatio,
                claim: Claim::NotBelow
            }
        );
        assert!(e
            .to_string()
            .starts_with("the variance-ratio F-test compares two samples for sameness only"));
        let e = test(Test::Welch, Claim::Same, &[1.0], &[1.0, 2.0]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Welch's t-test needs at least two values per side (got 1 and 2)"
        );
        assert!(e.source().is_none());
        let e = Error::MannWhitney(MannWhitneyUError::UncomparableData);
        assert_eq!(
            e.to_string(),
            "the Mann-Whitney U test could not run: elements in the data are not comparable"
        );
        assert!(e.source().is_some());
        let e = test(
            Test::KolmogorovSmirnov,
            Claim::Same,
            &[1.0, f64::NAN],
            &[1.0, 2.0],
        )
        .unwrap_err();
        assert!(matches!(e, Error::KolmogorovSmirnov(_)), "{e:?}");
        assert!(e
            .to_string()
            .starts_with("the Kolmogorov-Smirnov test could not run: "));
    }

    #[test]
    fn samples_of_every_number_type() {
        assert_eq!(3u8.sample(), 3.0);
        assert_eq!((-2i64).sample(), -2.0);
        assert_eq!(true.sample(), 1.0);
        assert_eq!(false.sample(), 0.0);
        assert_eq!(Sample::sample(&&1.5f32), 1.5);
    }
}
