//! A method's site takes its name and its callee from where the compiler put the method, read
//! at run time, never from its source file: a trait impl's method whose type has an inherent
//! method of the same name is refused with the fix, or, with `#[invite::sites]` on its block,
//! tested through its trait; an impl written away from its type's module is named as the
//! attributes name every trait impl.

use crate::support::scenario;
use invite::record::Outcome::Pass;

const EVERY_CALL: &str = "default_rho = 1.0\nmax_concurrent = 2\nmax_overhead = 1.0\n\
                          child_cpu_charge = 0.0\nseed = 5\nwhen_busy = \"wait\"";

/// Sums a sample.
pub trait Total {
    /// The sum of `xs`.
    fn total(&self, xs: &[f64]) -> f64;
}

/// Has an inherent `total` with the trait's signature, that answers something else.
#[derive(Clone, Debug)]
pub struct Twice;

impl Twice {
    /// Not the trait's total: twice the sum.
    pub fn total(&self, xs: &[f64]) -> f64 {
        2.0 * xs.iter().sum::<f64>()
    }
}

// Without `#[invite::sites]`: `Self::total` in its tests would reach the inherent method, whose
// results make the relation below fail on a correct function.
impl Total for Twice {
    #[invite::metamorphic(self.total(&[xs, xs].concat()) == 2.0 * result)]
    fn total(&self, xs: &[f64]) -> f64 {
        xs.iter().sum::<f64>() + 1.0
    }
}

/// The same type and inherent method, with the trait told.
#[derive(Clone, Debug)]
pub struct Told;

impl Told {
    /// Not the trait's total.
    pub fn total(&self, xs: &[f64]) -> f64 {
        2.0 * xs.iter().sum::<f64>()
    }
}

#[invite::sites]
impl Total for Told {
    #[invite::metamorphic(self.total(&[xs, xs].concat()) == 2.0 * result)]
    fn total(&self, xs: &[f64]) -> f64 {
        xs.iter().sum::<f64>()
    }
}

mod elsewhere {
    // An impl written in another module than its type.
    impl super::Total for super::Told2 {
        #[invite::metamorphic(self.total(&[xs, xs].concat()) == 2.0 * result)]
        fn total(&self, xs: &[f64]) -> f64 {
            xs.iter().sum::<f64>()
        }
    }
}

/// A type whose trait impl is written in another module.
#[derive(Clone, Debug)]
pub struct Told2;

#[test]
fn a_method_that_its_tests_would_not_reach_is_refused_with_the_fix() {
    let run = scenario(here!(), EVERY_CALL, || {
        // The inherent methods answer as they do for the program.
        assert_eq!((Twice.total(&[1.0]), Told.total(&[1.0])), (2.0, 2.0));
        for _ in 0..3 {
            Total::total(&Twice, &[1.0, 2.0]);
            Total::total(&Told, &[1.0, 2.0]);
            Total::total(&Told2, &[1.0, 2.0]);
        }
        invite::shutdown();
    });
    let twice = "<scenarios::places::Twice as Total>::total";
    let untested: Vec<_> = run
        .tests()
        .into_iter()
        .filter(|t| t.site == twice)
        .collect();
    assert!(untested.is_empty(), "{untested:?}");
    let said: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("is not tested"))
        .collect();
    assert_eq!(said.len(), 1, "said once:\n{}", run.stderr);
    assert!(
        said[0].contains(twice) && said[0].contains("#[invite::sites]"),
        "{}",
        said[0]
    );
    for site in [
        "<scenarios::places::Told as Total>::total",
        "<scenarios::places::elsewhere::Told2 as Total>::total",
    ] {
        let outcomes: Vec<_> = run
            .tests()
            .into_iter()
            .filter(|t| t.site == site)
            .map(|t| t.outcome)
            .collect();
        assert_eq!(outcomes, vec![Pass; 3], "{site}\n{}", run.describe());
    }
}

/// A unit of measure whose associated functions name `Self` only in their bodies.
#[derive(Clone, Debug)]
pub struct Celsius;

impl Celsius {
    const OFFSET: f64 = 273.15;

    /// Kelvin from degrees Celsius.
    #[invite::metamorphic(result - c == 273.15)]
    fn to_kelvin(c: f64) -> f64 {
        c + Self::OFFSET
    }
}

#[test]
fn an_associated_function_that_names_self_in_its_body_alone_is_reached_through_self() {
    let run = scenario(here!(), EVERY_CALL, || {
        for c in [1.0, 2.5, -40.0] {
            assert_eq!(Celsius::to_kelvin(c), c + 273.15);
        }
        invite::shutdown();
    });
    let outcomes: Vec<_> = run
        .tests()
        .into_iter()
        .filter(|t| t.site.ends_with("to_kelvin"))
        .map(|t| t.outcome)
        .collect();
    assert_eq!(outcomes, vec![Pass; 3], "{}", run.describe());
}
