//! Relations in `cargo test`: `invite::check` tests every call made inside it, synchronously,
//! with or without a configuration file, and fails on the relations a defect breaks.

use std::time::Duration;

use crate::support::{scenario, scenario_dir, scenario_unconfigured};
use invite::mr::{add, multiply};
use invite::record::Outcome::*;

#[invite::metamorphic(
    mean(&multiply(xs, 2.0)) == result * 2.0,
    mean(&add(xs, 1.5)) == result + 1.5,
)]
fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len().max(1) as f64
}

/// A planted defect: the last element is left out of the sum (but not of the count).
#[invite::metamorphic(
    faulty_mean(&multiply(xs, 2.0)) == result * 2.0,
    faulty_mean(&add(xs, 1.5)) == result + 1.5,
)]
fn faulty_mean(xs: &[f64]) -> f64 {
    xs[..xs.len().saturating_sub(1)].iter().sum::<f64>() / xs.len().max(1) as f64
}

fn files_in(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn without_a_configuration_a_check_tests_every_call_it_makes_and_nothing_else() {
    let run = scenario_unconfigured(here!(), || {
        let checked = invite::check(|| {
            for xs in [vec![1.0, 2.0, 4.0], vec![-3.5], vec![0.25, 8.0]] {
                mean(&xs);
            }
        });
        checked.assert_passed();
        // Two relations for each of the three calls, on their live arguments.
        assert_eq!(checked.tests.len(), 6, "{checked:?}");
        assert!(checked.tests.iter().all(|t| t.outcome == Pass));
        let inputs: Vec<&str> = checked
            .tests
            .iter()
            .map(|t| t.inputs["xs"].as_str())
            .collect();
        assert_eq!(inputs[0], "[1.0, 2.0, 4.0]");
        assert_eq!(inputs[2], "[-3.5]");
        // Outside the check nothing is sampled: invite started for checks alone.
        for i in 0..500 {
            mean(&[f64::from(i)]);
        }
        assert!(invite::wait_idle(Duration::from_secs(20)));
        assert_eq!(invite::outcomes().total().total(), 6);
        // And it wrote no log anywhere.
        assert_eq!(files_in(&scenario_dir()), Vec::<String>::new());
        println!("ok");
    });
    run.assert_success();
    assert_eq!(run.stdout, "ok\n", "{}", run.describe());
}

#[test]
fn a_check_fails_on_a_planted_defect_and_names_the_relation_inputs_and_seeds() {
    let run = scenario_unconfigured(here!(), || {
        let checked = invite::check(|| {
            faulty_mean(&[1.0, 2.0, 4.0]);
        });
        assert!(!checked.passed());
        let failed: Vec<&str> = checked.problems().map(|t| t.test.as_str()).collect();
        // Scaling survives the defect (every kept term scales); a shift does not.
        assert_eq!(failed, ["faulty_mean(&add(xs, 1.5)) == result + 1.5"]);
        let text = checked.describe();
        assert!(text.contains("1 of 2 tests did not pass"), "{text}");
        assert!(text.contains("xs = [1.0, 2.0, 4.0]"), "{text}");
        assert!(text.contains("seeds: rng_seed "), "{text}");
        let panic = std::panic::catch_unwind(|| checked.assert_passed()).unwrap_err();
        let message = panic.downcast_ref::<String>().unwrap();
        assert!(message.contains("faulty_mean(&add(xs, 1.5))"), "{message}");
        // One element is a single left-out term: 0 / 1 both times, a shift still breaks it.
        let single = invite::check(|| {
            faulty_mean(&[5.0]);
        });
        assert_eq!(single.problems().count(), 1, "{single:?}");
        println!("ok");
    });
    run.assert_success();
    assert_eq!(run.stdout, "ok\n", "{}", run.describe());
}

#[test]
fn a_check_ignores_rho_and_both_caps_and_its_results_reach_the_log() {
    let run = scenario(
        here!(),
        "default_rho = 0.0\nmax_concurrent = 1\nmax_overhead = 0.000001",
        || {
            let checked = invite::check(|| {
                for i in 0..20 {
                    mean(&[f64::from(i), 1.0]);
                }
            });
            checked.assert_passed();
            assert_eq!(checked.tests.len(), 40);
            println!("ok");
        },
    );
    run.assert_success();
    assert_eq!(run.stdout, "ok\n", "{}", run.describe());
    assert_eq!(run.tests().len(), 40, "{}", run.describe());
}

#[test]
fn calls_on_other_threads_during_a_check_are_sampled_as_usual() {
    let run = scenario_unconfigured(here!(), || {
        let checked = invite::check(|| {
            std::thread::spawn(|| {
                for i in 0..200 {
                    mean(&[f64::from(i)]);
                }
            })
            .join()
            .unwrap();
            mean(&[1.0]);
        });
        assert!(invite::wait_idle(Duration::from_secs(20)));
        assert_eq!(checked.tests.len(), 2, "{checked:?}");
        assert_eq!(invite::outcomes().total().total(), 2);
        println!("ok");
    });
    run.assert_success();
    assert_eq!(run.stdout, "ok\n", "{}", run.describe());
}

#[test]
fn a_check_without_an_instrumented_call_fails_and_says_why() {
    let run = scenario_unconfigured(here!(), || {
        let checked = invite::check(|| {
            let _ = mean_unchecked(&[1.0]);
        });
        assert!(!checked.passed());
        assert!(
            checked
                .describe()
                .contains("no instrumented function was called"),
            "{}",
            checked.describe()
        );
        println!("ok");
    });
    run.assert_success();
    assert_eq!(run.stdout, "ok\n", "{}", run.describe());
}

fn mean_unchecked(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len().max(1) as f64
}

#[test]
fn nested_checks_and_a_panic_inside_one_leave_the_thread_as_it_was() {
    let run = scenario_unconfigured(here!(), || {
        let outer = invite::check(|| {
            mean(&[1.0]);
            let inner = invite::check(|| {
                faulty_mean(&[1.0, 2.0]);
            });
            assert_eq!(inner.tests.len(), 2);
        });
        // The outer check saw its own call and the inner one's.
        assert_eq!(outer.tests.len(), 4, "{outer:?}");
        assert_eq!(outer.problems().count(), 1);
        let panicked = std::panic::catch_unwind(|| {
            invite::check(|| {
                mean(&[2.0]);
                panic!("the program's own panic");
            })
        });
        assert!(panicked.is_err());
        // After the panic the thread is no longer checking: these calls are not tested.
        for i in 0..100 {
            mean(&[f64::from(i)]);
        }
        assert!(invite::wait_idle(Duration::from_secs(20)));
        assert_eq!(invite::outcomes().total().total(), 6);
        // And a later check starts empty.
        let later = invite::check(|| {
            mean(&[3.0]);
        });
        assert_eq!(later.tests.len(), 2, "{later:?}");
        println!("ok");
    });
    run.assert_success();
    assert_eq!(run.stdout, "ok\n", "{}", run.describe());
}

#[derive(Default)]
struct Tally {
    count: u64,
}

impl Tally {
    #[invite::in_vivo(test = Self::add_adds)]
    fn add(&mut self, by: u64) {
        // A planted defect: adding 7 adds nothing.
        if by != 7 {
            self.count += by;
        }
    }

    fn add_adds(&mut self, by: &u64) -> bool {
        let before = self.count;
        self.add(*by);
        self.count == before + by
    }
}

#[test]
fn an_in_vivo_test_that_returns_false_fails_the_check_on_that_call_only() {
    let run = scenario_unconfigured(here!(), || {
        let mut tally = Tally::default();
        let checked = invite::check(|| {
            for by in [1, 7, 3] {
                tally.add(by);
            }
        });
        let outcomes: Vec<_> = checked.tests.iter().map(|t| t.outcome).collect();
        assert_eq!(outcomes, [Pass, Fail, Pass]);
        assert_eq!(checked.tests[1].inputs["by"], "7");
        // The program's own state is the program's: 1 + 3 (the defect), untouched by tests.
        assert_eq!(tally.count, 4);
        println!("ok");
    });
    run.assert_success();
    assert_eq!(run.stdout, "ok\n", "{}", run.describe());
}

#[invite::in_vivo(test = sees_itself_in_a_test)]
fn role_seen(x: u64) -> u64 {
    x
}

fn sees_itself_in_a_test(_: &u64) -> bool {
    invite::in_test()
}

#[test]
fn in_test_is_true_inside_a_test_and_false_in_the_program() {
    let run = scenario_unconfigured(here!(), || {
        assert!(!invite::in_test(), "the program is not a test");
        let checked = invite::check(|| {
            role_seen(1);
        });
        checked.assert_passed();
        assert!(!invite::in_test(), "nor after its tests");
        println!("ok");
    });
    run.assert_success();
    assert_eq!(run.stdout, "ok\n", "{}", run.describe());
}

#[cfg(feature = "proptest")]
mod strategies {
    use super::*;
    use invite::mr::{negate, permute};
    use proptest::prelude::*;

    /// A planted defect: wrong for magnitudes above 1000.
    #[invite::metamorphic(magnitude(-x) == result, magnitude(x.signum()) <= 1)]
    fn magnitude(x: i64) -> i64 {
        if x > 1000 {
            -x
        } else {
            x.abs()
        }
    }

    /// A planted defect: the upper of the two middle elements at even lengths.
    #[invite::metamorphic(median(&negate(xs)) == -result, median(&permute(xs)) == result)]
    fn median(xs: &[f64]) -> f64 {
        let mut v = xs.to_vec();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    }

    fn magnitudes(xs: &[i64]) -> Vec<i64> {
        xs.iter().map(|x| x.saturating_abs()).collect()
    }

    /// A planted defect: the sum of the elements, not of their magnitudes (wrong as soon as one
    /// element is negative).
    #[invite::metamorphic(l1(&magnitudes(xs)) == result)]
    fn l1(xs: &[i64]) -> i64 {
        xs.iter().fold(0i64, |a, x| a.saturating_add(*x))
    }

    fn sorted_distinct(xs: &[i64]) -> Vec<i64> {
        let mut v = xs.to_vec();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// A planted defect: counts the elements, duplicates included.
    #[invite::metamorphic(distinct(&sorted_distinct(xs)) == result)]
    fn distinct(xs: &[i64]) -> usize {
        xs.len()
    }

    /// A planted defect (the lowest gap, not the highest, after negation) that needs three
    /// elements, and a panic below two.
    #[invite::metamorphic(gap(&negate(xs)) == result)]
    fn gap(xs: &[f64]) -> f64 {
        let mut v = xs.to_vec();
        v.sort_by(f64::total_cmp);
        v[1] - v[0]
    }

    /// Panics on more than three elements: a program's own bug, not a relation's.
    #[invite::metamorphic(fragile(&permute(xs)) == result)]
    fn fragile(xs: &[i64]) -> i64 {
        assert!(xs.len() <= 3, "more than three readings: {}", xs.len());
        xs.iter().sum()
    }

    #[test]
    fn a_shrink_step_on_which_the_function_panics_is_another_failure() {
        let run = scenario_unconfigured(here!(), || {
            let message = minimal(|| {
                invite::check_strategy(prop::collection::vec(-1e6..1e6f64, 3..20), |xs| {
                    gap(&xs);
                })
            });
            println!("{}", message.lines().nth(1).unwrap().trim());
            // A panic is the failure found first: the account names it.
            let message = minimal(|| {
                invite::check_strategy(prop::collection::vec(0i64..10, 1..20), |xs| {
                    fragile(&xs);
                })
            });
            println!("{}", message.lines().nth(2).unwrap().trim());
            println!("{}", message.lines().nth(3).unwrap().trim());
        });
        run.assert_success();
        let lines: Vec<&str> = run.stdout.lines().collect();
        // Two elements would pass and one would panic: three is the smallest that fails.
        assert_eq!(lines[0], "(3 elements)", "{}", run.describe());
        assert_eq!(lines[1], "failing: the call panicked", "{}", run.describe());
        assert_eq!(
            lines[2],
            "invite::check_strategy: the call panicked: more than three readings: 4",
            "{}",
            run.describe()
        );
    }

    /// Runs a strategy check that must fail, and returns its panic message's first lines.
    fn minimal(check: impl FnOnce() + std::panic::UnwindSafe) -> String {
        let panic = std::panic::catch_unwind(check).unwrap_err();
        panic.downcast_ref::<String>().unwrap().clone()
    }

    #[test]
    fn strategy_checks_shrink_to_the_known_smallest_inputs() {
        let run = scenario_unconfigured(here!(), || {
            let even = minimal(|| {
                invite::check_strategy(prop::collection::vec(-1e6..1e6f64, 1..50), |xs| {
                    median(&xs);
                })
            });
            let negative = minimal(|| {
                invite::check_strategy(prop::collection::vec(-1000i64..1000, 1..50), |xs| {
                    l1(&xs);
                })
            });
            let duplicate = minimal(|| {
                invite::check_strategy(prop::collection::vec(-20i64..20, 1..50), |xs| {
                    distinct(&xs);
                })
            });
            for message in [even, negative, duplicate] {
                let head: Vec<&str> = message.lines().take(3).collect();
                let head: Vec<&str> = head.iter().map(|l| l.trim()).collect();
                println!("{}", head.join(" | "));
            }
        });
        run.assert_success();
        let lines: Vec<&str> = run.stdout.lines().collect();
        assert_eq!(lines.len(), 3, "{}", run.describe());
        // Two distinct elements: no odd length fails, and no two equal middles.
        assert!(lines[0].contains("(2 elements)"), "{}", run.describe());
        assert!(
            lines[0].contains(
                "failing: scenarios::check::strategies::median \
                 `median(&negate(xs)) == -result`: fail"
            ),
            "{}",
            run.describe()
        );
        assert_eq!(
            lines[1],
            "invite::check_strategy: minimal failing input: [-1] | \
             (1 element) | failing: scenarios::check::strategies::l1 \
             `l1(&magnitudes(xs)) == result`: fail",
            "{}",
            run.describe()
        );
        assert!(lines[2].contains("(2 elements)"), "{}", run.describe());
        let input = lines[2]
            .split("minimal failing input: [")
            .nth(1)
            .and_then(|r| r.split(']').next())
            .unwrap();
        let values: Vec<&str> = input.split(", ").collect();
        assert_eq!(values.len(), 2);
        assert_eq!(values[0], values[1], "a duplicate: {}", run.describe());
    }

    #[test]
    fn a_strategy_check_shrinks_a_failure_to_the_smallest_input_that_breaks_a_relation() {
        let run = scenario_unconfigured(here!(), || {
            let panic = std::panic::catch_unwind(|| {
                invite::check_strategy(-1_000_000i64..1_000_000, |x| {
                    magnitude(x);
                });
            })
            .unwrap_err();
            let message = panic.downcast_ref::<String>().unwrap();
            println!("{}", message.lines().next().unwrap());
            assert!(message.contains("magnitude(-x) == result"), "{message}");
        });
        run.assert_success();
        let first = run.stdout.lines().next().unwrap_or_default().to_string();
        assert!(
            first == "invite::check_strategy: minimal failing input: 1001"
                || first == "invite::check_strategy: minimal failing input: -1001",
            "{}",
            run.describe()
        );
    }

    #[test]
    fn a_strategy_check_of_a_correct_function_passes() {
        let run = scenario_unconfigured(here!(), || {
            invite::check_strategy_with(
                proptest::test_runner::Config::with_cases(64),
                prop::collection::vec(-1e6..1e6f64, 1..10),
                |xs| {
                    mean(&xs);
                },
            );
            assert!(invite::wait_idle(Duration::from_secs(20)));
            assert_eq!(invite::outcomes().total().pass, 128);
            println!("ok");
        });
        run.assert_success();
        assert_eq!(run.stdout, "ok\n", "{}", run.describe());
    }
}

#[test]
fn a_configuration_made_in_code_is_checked_like_a_file_and_applied_once() {
    let run = scenario_unconfigured(here!(), || {
        let log = scenario_dir().join("from-code.jsonl");
        let wrong = invite::init_with(invite::config::Config {
            max_overhead: 2.0,
            ..Default::default()
        })
        .unwrap_err();
        println!("{wrong}");
        let config = invite::config::Config {
            default_rho: 1.0,
            max_overhead: 1.0,
            log: log.display().to_string(),
            ..Default::default()
        };
        invite::init_with(config.clone()).unwrap();
        let again = invite::init_with(config).unwrap_err();
        println!("{again}");
        for i in 0..5 {
            mean(&[f64::from(i)]);
            assert!(invite::wait_idle(Duration::from_secs(20)));
        }
        invite::shutdown();
        let tests = std::fs::read_to_string(&log)
            .unwrap()
            .lines()
            .filter(|l| l.contains("\"kind\":\"test\""))
            .count();
        println!("{tests} tests logged");
    });
    run.assert_success();
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", run.describe());
    assert!(
        lines[0].contains("max_overhead") && lines[0].contains("invite::init_with"),
        "{}",
        lines[0]
    );
    assert!(lines[1].contains("already started"), "{}", lines[1]);
    assert_eq!(lines[2], "10 tests logged", "{}", run.describe());
}

#[test]
fn a_replaying_check_runs_with_the_logged_streams_and_refuses_malformed_seeds() {
    let run = scenario_unconfigured(here!(), || {
        let first = invite::check(|| {
            mean(&[1.0, 2.0]);
        });
        let logged = first.tests[0].seeds.clone();
        // Later calls of this thread have moved on: a fresh check would start elsewhere.
        use rand::Rng as _;
        let _: u64 = invite::rng().random();
        let replayed = invite::check_replaying(&logged, || {
            mean(&[1.0, 2.0]);
        });
        assert_eq!(replayed.tests.len(), 2);
        for t in &replayed.tests {
            assert_eq!(t.seeds, logged, "the run met the logged streams");
        }
        let fresh = invite::check(|| {
            mean(&[1.0, 2.0]);
        });
        assert_ne!(fresh.tests[0].seeds, logged);
        let bad = invite::check_replaying(
            &invite::record::Seeds {
                rng_seed: "zz".into(),
                ..logged
            },
            || {
                mean(&[1.0, 2.0]);
            },
        );
        assert!(!bad.passed());
        assert!(
            bad.describe().contains("rng_seed must be 64 hex digits"),
            "{}",
            bad.describe()
        );
        println!("ok");
    });
    run.assert_success();
    assert_eq!(run.stdout, "ok\n", "{}", run.describe());
}

/// Two types with a method of the same name in one module, and an associated function that
/// mentions neither `self` nor `Self`.
pub struct Meters(pub f64);
pub struct Feet(pub f64);

impl Meters {
    #[invite::in_vivo(test = Self::not_negative)]
    pub fn double(&self) -> f64 {
        self.0 * 2.0
    }

    fn not_negative(&self) -> bool {
        self.0 >= 0.0
    }
}

// `from_meters` neither takes `self` nor names `Self`: the block says where it is.
#[invite::sites]
impl Feet {
    #[invite::in_vivo(test = Self::not_negative)]
    pub fn double(&self) -> f64 {
        self.0 * 2.0
    }

    fn not_negative(&self) -> bool {
        self.0 >= 0.0
    }

    #[invite::in_vivo(test = finite)]
    pub fn from_meters(m: f64) -> f64 {
        m / 0.3048
    }
}

fn finite(m: &f64) -> bool {
    m.is_finite()
}

#[test]
fn methods_are_named_with_their_type_and_configured_by_that_name() {
    // The configuration turns one of the two `double`s off by its full name.
    let config =
        "default_rho = 1.0\n[functions.\"scenarios::check::Feet::double\"]\nenabled = false\n";
    let run = scenario(here!(), config, || {
        let checked = invite::check(|| {
            Meters(1.0).double();
            Feet(1.0).double();
            Feet::from_meters(3.0);
        });
        let sites: Vec<&str> = checked.tests.iter().map(|t| t.site.as_str()).collect();
        assert_eq!(
            sites,
            [
                "scenarios::check::Meters::double",
                "scenarios::check::Feet::double",
                "scenarios::check::Feet::from_meters"
            ]
        );
        // Outside a check the configuration rules: the disabled site is never sampled.
        for _ in 0..200 {
            Feet(2.0).double();
        }
        assert!(invite::wait_idle(Duration::from_secs(20)));
        let counts = invite::outcomes();
        println!(
            "{}",
            counts
                .site("scenarios::check::Feet::double")
                .map_or(0, |s| s.counts().total())
                - 1
        );
    });
    run.assert_success();
    assert_eq!(run.stdout, "0\n", "{}", run.describe());
}

mod regressions {
    use super::*;
    use invite::mr::negate;
    use invite::regression::ShrinkReport;

    /// A planted defect: the upper of the two middle elements at even lengths.
    #[invite::metamorphic(upper(&negate(xs)) == -result, upper(&add(xs, 1.0)) == result + 1.0)]
    fn upper(xs: &[f64]) -> f64 {
        let mut v = xs.to_vec();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    }

    fn seeds_of(xs: &[f64]) -> invite::record::Seeds {
        let checked = invite::check(|| {
            upper(xs);
        });
        checked.tests[0].seeds.clone()
    }

    fn shrinks(file: &std::path::Path) -> Vec<ShrinkReport> {
        std::fs::read_to_string(file)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    #[test]
    fn a_failing_regression_shrinks_its_inputs_against_its_relation_when_asked() {
        let run = scenario_unconfigured(here!(), || {
            let file = scenario_dir().join("shrunk.jsonl");
            let xs = vec![4.5, -3.25, 8.0, 12.5, -7.0, 2.0];
            let seeds = seeds_of(&xs);
            let relation = "upper(&negate(xs)) == -result";
            // Without INVITE_SHRINK: a plain regression test, that fails and writes nothing.
            let panic = std::panic::catch_unwind(|| {
                invite::regression("t", relation, &seeds, (xs.clone(),), |(xs,)| {
                    upper(&xs);
                })
            })
            .unwrap_err();
            let message = panic.downcast_ref::<String>().unwrap();
            assert!(
                message.contains("`upper(&negate(xs)) == -result`: fail"),
                "{message}"
            );
            assert!(!file.exists());
            std::env::set_var("INVITE_SHRINK", &file);
            let caught = std::panic::catch_unwind(|| {
                invite::regression("upper_negate", relation, &seeds, (xs.clone(),), |(xs,)| {
                    upper(&xs);
                })
            });
            assert!(caught.is_err(), "the test still fails on its logged input");
            let found = shrinks(&file);
            assert_eq!(found.len(), 1);
            let r = &found[0];
            assert_eq!(
                (r.test.as_str(), r.relation.as_str()),
                ("upper_negate", relation)
            );
            assert_eq!(r.before, ["[4.5, -3.25, 8.0, 12.5, -7.0, 2.0]"]);
            assert_eq!((r.before_len[0], r.after_len[0]), (Some(6), Some(2)));
            assert!(!r.exhausted && r.tries > 0);
            // Every element keeps its side of zero: two of one sign, or one of each.
            println!("{}", r.after[0]);
            // A relation that is not among the call's failures: the shrink holds to the first.
            let caught = std::panic::catch_unwind(|| {
                invite::regression(
                    "other",
                    "no such relation",
                    &seeds,
                    (xs.clone(),),
                    |(xs,)| {
                        upper(&xs);
                    },
                )
            });
            assert!(caught.is_err());
            assert_eq!(shrinks(&file)[1].relation, "no such relation");
            assert_eq!(shrinks(&file)[1].after_len[0], Some(2));
            // A call that passes writes nothing and does not panic.
            invite::regression("odd", relation, &seeds, (vec![3.0, 1.0, 2.0],), |(xs,)| {
                upper(&xs);
            });
            assert_eq!(shrinks(&file).len(), 2);
            println!("ok");
        });
        run.assert_success();
        let lines: Vec<&str> = run.stdout.lines().collect();
        assert_eq!(lines.len(), 2, "{}", run.describe());
        assert_eq!(lines[1], "ok");
        // The smallest failing input of a defect that needs two distinct middle elements.
        let shrunk: Vec<f64> = lines[0]
            .trim_matches(|c| c == '[' || c == ']')
            .split(", ")
            .map(|x| x.parse().unwrap())
            .collect();
        assert_eq!(shrunk.len(), 2, "{}", run.describe());
        assert_ne!(shrunk[0], shrunk[1], "{}", run.describe());
    }

    /// Two defects in one: the upper middle element at even lengths, and a shift by one that
    /// breaks the second relation on every input.
    #[invite::metamorphic(shifted(&negate(xs)) == -result, shifted(&add(xs, 1.0)) == result)]
    fn shifted(xs: &[f64]) -> f64 {
        upper(xs)
    }

    #[test]
    fn a_shrink_holds_to_the_relation_named_among_several_that_fail() {
        let run = scenario_unconfigured(here!(), || {
            let file = scenario_dir().join("shrunk.jsonl");
            std::env::set_var("INVITE_SHRINK", &file);
            let xs = vec![4.5, -3.25, 8.0, 12.5, -7.0, 2.0];
            let seeds = invite::check(|| {
                shifted(&xs);
            })
            .tests[0]
                .seeds
                .clone();
            for relation in [
                "shifted(&negate(xs)) == -result",
                "shifted(&add(xs, 1.0)) == result",
            ] {
                let caught = std::panic::catch_unwind(|| {
                    invite::regression("t", relation, &seeds, (xs.clone(),), |(xs,)| {
                        shifted(&xs);
                    })
                });
                assert!(caught.is_err());
            }
            let found = shrinks(&file);
            // The negation needs two distinct middle elements; the shift fails on one.
            println!("{:?} {:?}", found[0].after_len, found[1].after_len);
        });
        run.assert_success();
        assert_eq!(run.stdout, "[Some(2)] [Some(1)]\n", "{}", run.describe());
    }

    #[test]
    fn a_shrink_that_cannot_be_written_is_said_and_the_test_still_fails() {
        let run = scenario_unconfigured(here!(), || {
            let xs = vec![1.0, 2.0];
            let seeds = seeds_of(&xs);
            std::env::set_var("INVITE_SHRINK", "/nonexistent/dir/shrunk.jsonl");
            let caught = std::panic::catch_unwind(|| {
                invite::regression(
                    "t",
                    "upper(&negate(xs)) == -result",
                    &seeds,
                    (xs,),
                    |(xs,)| {
                        upper(&xs);
                    },
                )
            });
            assert!(caught.is_err());
            println!("failed");
        });
        run.assert_success();
        assert_eq!(run.stdout, "failed\n");
        assert!(
            run.stderr
                .contains("invite::regression: cannot write the shrink of `t` to /nonexistent/dir/shrunk.jsonl"),
            "{}",
            run.describe()
        );
    }
}

/// A check forks while another thread of the program is inside a panic hook, as tests of one
/// `cargo test` binary panic beside each other: the run must not wait for the hook's lock,
/// which here is held until the check is over.
#[test]
fn a_check_runs_while_another_thread_is_panicking() {
    let run = scenario_unconfigured(here!(), || {
        let (inside, told) = std::sync::mpsc::channel::<()>();
        let (done, over) = std::sync::mpsc::channel::<()>();
        let hook = std::sync::Mutex::new((inside, over));
        std::panic::set_hook(Box::new(move |_| {
            // The program's hook, inside until the check is over (bounded, should it not be).
            let hook = hook.lock().unwrap();
            let _ = hook.0.send(());
            let _ = hook.1.recv_timeout(Duration::from_secs(60));
        }));
        // A first check, so that invite's hook wraps the program's before the panic.
        invite::check(|| {
            mean(&[1.0, 2.0]);
        })
        .assert_passed();
        let panicking = std::thread::spawn(|| {
            let _ = std::panic::catch_unwind(|| panic!("a test of the program fails"));
        });
        told.recv().unwrap();
        let checked = invite::check(|| {
            mean(&[1.0, 2.0, 4.0]);
        });
        done.send(()).unwrap();
        panicking.join().unwrap();
        let outcomes: Vec<_> = checked.tests.iter().map(|t| t.outcome).collect();
        println!("{outcomes:?}");
    });
    run.assert_success();
    assert_eq!(run.stdout, "[Pass, Pass]\n", "{}", run.describe());
}
