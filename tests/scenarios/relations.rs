//! Every relation form, methods and generics, and replayed randomness, each checked end to end:
//! sampled calls in a real process, real forks, and the outcomes read back from its log.

use crate::support::{self, scenario};
use invite::mr::{add, include, multiply, negate, permute, reverse};
use invite::record::Outcome::{self, *};
use rand::Rng;

const EVERY_CALL: &str =
    "default_rho = 1.0\nmax_concurrent = 64\nmax_overhead = 1.0\nchild_cpu_charge = 0.0";

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len().max(1) as f64
}

#[invite::metamorphic(
    std_dev(&permute(xs)) == result,
    std_dev(&multiply(xs, 2.0)) == result * 2.0,
    std_dev(&add(xs, 7.5)) == result,
    std_dev(&negate(xs)) == result,
    if xs.len() > 1 => std_dev(&include(xs, mean(xs))) <= result,
    if xs.len() > 100 => std_dev(&xs[1..]) == result,
    std_dev(&reverse(xs)) != result + 1.0,
    in_range(result, 0.0, 1e6),
    one_of(std_dev(&[1.0, 1.0]), [0.0, 5.0]),
    std_dev(&multiply(xs, 3.0)) > result,
)]
fn std_dev(xs: &[f64]) -> f64 {
    let m = mean(xs);
    (xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / xs.len().max(1) as f64).sqrt()
}

fn only_outcome(run: &support::Run, test: &str) -> Outcome {
    let outcomes = run.outcomes_of(test);
    assert!(
        !outcomes.is_empty(),
        "no record of `{test}`\n{}",
        run.describe()
    );
    assert!(
        outcomes.iter().all(|o| *o == outcomes[0]),
        "`{test}`: {outcomes:?}"
    );
    outcomes[0]
}

#[test]
fn every_relation_form_gives_its_outcome() {
    let run = scenario(here!(), EVERY_CALL, || {
        let xs = [1.0, 4.0, 2.0, 8.0];
        assert_eq!(std_dev(&xs), std_dev(&xs));
    });
    run.assert_success();
    assert_eq!(only_outcome(&run, "std_dev(&permute(xs)) == result"), Pass);
    assert_eq!(
        only_outcome(&run, "std_dev(&multiply(xs, 2.0)) == result * 2.0"),
        Pass
    );
    assert_eq!(only_outcome(&run, "std_dev(&add(xs, 7.5)) == result"), Pass);
    assert_eq!(only_outcome(&run, "std_dev(&negate(xs)) == result"), Pass);
    assert_eq!(
        only_outcome(
            &run,
            "if xs.len() > 1 => std_dev(&include(xs, mean(xs))) <= result"
        ),
        Pass
    );
    assert_eq!(
        only_outcome(&run, "if xs.len() > 100 => std_dev(&xs[1..]) == result"),
        Skipped
    );
    assert_eq!(
        only_outcome(&run, "std_dev(&reverse(xs)) != result + 1.0"),
        Pass
    );
    assert_eq!(only_outcome(&run, "in_range(result, 0.0, 1e6)"), Pass);
    // The standard deviation of [1, 1] is 0, which is one of the options.
    assert_eq!(
        only_outcome(&run, "one_of(std_dev(&[1.0, 1.0]), [0.0, 5.0])"),
        Pass
    );
    assert_eq!(
        only_outcome(&run, "std_dev(&multiply(xs, 3.0)) > result"),
        Pass
    );
    // Two calls, each sampled: every relation ran twice, in two runs.
    let tests = run.tests();
    assert_eq!(tests.len(), 20, "{}", run.describe());
    let runs: std::collections::BTreeSet<u64> = tests.iter().map(|t| t.run).collect();
    assert_eq!(runs.into_iter().collect::<Vec<_>>(), vec![1, 2]);
}

/// A subtly wrong mean: drops the last element for odd lengths.
#[invite::metamorphic(
    buggy_mean(&permute(xs)) == result,
    buggy_mean(&add(xs, 1.0)) == result + 1.0,
)]
fn buggy_mean(xs: &[f64]) -> f64 {
    let n = if xs.len() % 2 == 1 {
        xs.len() - 1
    } else {
        xs.len()
    };
    xs[..n].iter().sum::<f64>() / xs.len() as f64
}

#[test]
fn a_violated_relation_fails_with_the_compared_values_and_inputs() {
    let run = scenario(here!(), EVERY_CALL, || {
        let _ = buggy_mean(&[1.0, 2.0, 30.0]);
    });
    run.assert_success();
    let t = &run.tests_of("buggy_mean(&add(xs, 1.0)) == result + 1.0")[0];
    assert_eq!(t.outcome, Fail);
    // Sum of the first two of [2, 3, 31] is 5, over 3; the source gave 1, plus one is 2.
    let detail = t.detail.as_deref().unwrap();
    assert!(detail.contains("left: 1.6666666666666667"), "{detail}");
    assert!(detail.contains("right: 2"), "{detail}");
    assert_eq!(t.inputs["xs"], "[1.0, 2.0, 30.0]");
    assert_eq!(t.site, "scenarios::relations::buggy_mean");
}

#[test]
fn each_input_s_debug_text_is_logged_up_to_512_characters_then_marked() {
    let run = scenario(here!(), EVERY_CALL, || {
        let short = [1.0; 3];
        let long = [1.0; 301];
        let _ = buggy_mean(&short);
        let _ = buggy_mean(&long);
    });
    run.assert_success();
    let inputs: Vec<String> = run
        .tests_of("buggy_mean(&permute(xs)) == result")
        .into_iter()
        .map(|t| t.inputs["xs"].clone())
        .collect();
    assert_eq!(inputs.len(), 2, "{}", run.describe());
    let (short, long) = if inputs[0].len() < inputs[1].len() {
        (&inputs[0], &inputs[1])
    } else {
        (&inputs[1], &inputs[0])
    };
    assert_eq!(short, "[1.0, 1.0, 1.0]");
    let full = format!("{:?}", [1.0; 301]);
    let kept: String = full.chars().take(512).collect();
    assert_eq!(*long, format!("{kept}… (truncated)"));
}

#[invite::in_vivo(test = sees_no_outcomes)]
fn observed(x: u64) -> u64 {
    x
}

/// Inside a test child the view is empty, although the program's own view holds outcomes.
fn sees_no_outcomes(_: &u64) -> bool {
    invite::outcomes() == invite::outcomes::Outcomes::default()
}

#[test]
fn a_test_child_sees_an_empty_outcomes_view() {
    let run = scenario(here!(), EVERY_CALL, || {
        let _ = buggy_mean(&[1.0, 2.0, 30.0]);
        assert!(invite::wait_idle(std::time::Duration::from_secs(30)));
        assert!(invite::outcomes().total().total() > 0);
        observed(1);
    });
    run.assert_success();
    assert_eq!(
        run.outcomes_of("sees_no_outcomes"),
        vec![Pass],
        "{}",
        run.describe()
    );
}

/// The program reads its own outcomes without the log: each site's and test's counts, and the
/// failing records, agree with what the log holds.
#[test]
fn the_program_reads_the_same_outcomes_in_process_as_the_log_holds() {
    let run = scenario(here!(), EVERY_CALL, || {
        let _ = buggy_mean(&[1.0, 2.0, 30.0]);
        let _ = buggy_mean(&[1.0, 2.0]);
        let _ = std_dev(&[1.0, 5.0]);
        assert!(invite::wait_idle(std::time::Duration::from_secs(30)));
        let o = invite::outcomes();
        for site in &o.sites {
            for t in &site.tests {
                let c = &t.counts;
                println!(
                    "count\t{}\t{}\t{}\t{}\t{}",
                    site.site, t.test, c.pass, c.fail, c.skipped
                );
            }
        }
        for f in &o.failures {
            println!("failure\t{}\t{}\t{}", f.site, f.test, f.inputs["xs"]);
        }
    });
    run.assert_success();
    let mut from_log = std::collections::BTreeMap::<(String, String), [u64; 3]>::new();
    let mut failures_in_log = Vec::new();
    for t in run.tests() {
        let c = from_log
            .entry((t.site.clone(), t.test.clone()))
            .or_default();
        match t.outcome {
            Pass => c[0] += 1,
            Fail => c[1] += 1,
            Skipped => c[2] += 1,
            other => panic!("unexpected {other}: {}", run.describe()),
        }
        if t.outcome == Fail {
            failures_in_log.push(format!(
                "failure\t{}\t{}\t{}",
                t.site, t.test, t.inputs["xs"]
            ));
        }
    }
    let mut from_view = std::collections::BTreeMap::new();
    let mut failures_in_view = Vec::new();
    for line in run.stdout.lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        match fields[0] {
            "count" => {
                let n = |i: usize| fields[i].parse::<u64>().unwrap();
                from_view.insert(
                    (fields[1].to_string(), fields[2].to_string()),
                    [n(3), n(4), n(5)],
                );
            }
            "failure" => failures_in_view.push(line.to_string()),
            _ => {}
        }
    }
    // Two calls of the wrong mean, two relations each, and ten relations of one std_dev call.
    assert_eq!(
        from_log
            .values()
            .map(|c| c.iter().sum::<u64>())
            .sum::<u64>(),
        14
    );
    assert_eq!(from_view, from_log, "{}", run.describe());
    // The odd-length call breaks the shift relation (and the permutation one, unless the
    // permutation kept the last element last).
    assert!(
        failures_in_view
            .iter()
            .any(|f| f.contains("buggy_mean(&add(xs, 1.0)) == result + 1.0\t[1.0, 2.0, 30.0]")),
        "{}",
        run.describe()
    );
    failures_in_view.sort();
    failures_in_log.sort();
    assert_eq!(failures_in_view, failures_in_log);
}

#[invite::metamorphic(
    near(x) == result + 1e-9,
    tolerance = 1e-12,
)]
fn near(x: f64) -> f64 {
    x * 1.0
}

#[invite::metamorphic(near_loose(x) == result + 1e-9)]
fn near_loose(x: f64) -> f64 {
    x * 1.0
}

#[test]
fn comparisons_are_tolerant_and_the_tolerance_option_tightens_them() {
    let run = scenario(here!(), EVERY_CALL, || {
        near(1.0);
        near_loose(1.0);
    });
    run.assert_success();
    assert_eq!(only_outcome(&run, "near(x) == result + 1e-9"), Fail);
    assert_eq!(only_outcome(&run, "near_loose(x) == result + 1e-9"), Pass);
}

fn check_sum(xs: &[i64], result: &i64) -> bool {
    *result == xs.iter().sum::<i64>()
}

fn check_sum_result(_xs: &[i64], result: &i64) -> Result<(), String> {
    if *result > 100 {
        Err(format!("{result} is over 100"))
    } else {
        Ok(())
    }
}

fn check_sum_asserts(xs: &[i64], result: &i64) {
    assert_eq!(xs.len(), 3, "expected three elements");
    let _ = result;
}

#[invite::metamorphic(
    test = check_sum,
    test = check_sum_result,
    test = check_sum_asserts,
    name = "custom::sum",
    rho = 1.0,
    timeout_ms = 5000,
)]
fn sum(xs: &[i64]) -> i64 {
    xs.iter().sum()
}

#[test]
fn hand_written_tests_fail_by_false_err_or_panic() {
    // ρ comes from the attribute: the configuration leaves default_rho at 0.
    let run = scenario(
        here!(),
        "max_concurrent = 64\nmax_overhead = 1.0\nchild_cpu_charge = 0.0",
        || {
            sum(&[50, 60]);
        },
    );
    run.assert_success();
    assert!(run.tests().iter().all(|t| t.site == "custom::sum"));
    assert_eq!(only_outcome(&run, "check_sum"), Pass);
    let r = &run.tests_of("check_sum_result")[0];
    assert_eq!(r.outcome, Fail);
    assert!(
        r.detail.as_deref().unwrap().contains("110 is over 100"),
        "{:?}",
        r.detail
    );
    let a = &run.tests_of("check_sum_asserts")[0];
    assert_eq!(a.outcome, Error);
    let d = a.detail.as_deref().unwrap();
    assert!(
        d.contains("expected three elements") && d.contains("relations.rs"),
        "{d}"
    );
}

/// Named by `concat!`, as a member of a `macro_rules!` family would be.
#[invite::metamorphic(product(&[xs[1], xs[0]]) == result, name = concat!("custom::", "product"))]
fn product(xs: &[i64; 2]) -> i64 {
    xs[0] * xs[1]
}

#[test]
fn a_name_made_by_concat_names_the_site() {
    let run = scenario(here!(), EVERY_CALL, || {
        product(&[6, 7]);
    });
    run.assert_success();
    let tests = run.tests();
    assert!(!tests.is_empty(), "{}", run.describe());
    assert!(tests
        .iter()
        .all(|t| t.site == "custom::product" && t.outcome == Pass));
}

#[test]
fn configuration_overrides_attribute_rho() {
    let config = "max_concurrent = 64\nmax_overhead = 1.0\nchild_cpu_charge = 0.0\n[functions.\"custom::sum\"]\nrho = 0.0";
    let run = scenario(here!(), config, || {
        for _ in 0..50 {
            sum(&[1, 2, 3]);
        }
    });
    run.assert_success();
    assert!(run.tests().is_empty(), "{}", run.describe());
}

/// Returns NaN for an empty slice (the defect a relation should see), and a vector of means
/// whose first element is NaN likewise.
#[invite::metamorphic(
    nan_mean(&multiply(xs, 2.0)) == result * 2.0,
    nan_mean(&permute(xs)) == result,
)]
fn nan_mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

#[invite::metamorphic(nan_means(&reverse(xs)) == result)]
fn nan_means(xs: &[f64]) -> Vec<f64> {
    vec![xs.iter().sum::<f64>() / xs.len() as f64, 1.0]
}

/// An inverse that wrongly returns 0 where it should return infinity.
#[invite::metamorphic(
    1.0 / inverse(&x) == *x,
    inverse(&(x * 2.0)) <= result,
    result < f64::INFINITY,
)]
fn inverse(x: &f64) -> f64 {
    if *x == 0.0 {
        0.0
    } else {
        1.0 / x
    }
}

#[test]
fn nan_and_infinite_results_are_compared_exactly_and_checked() {
    let run = scenario(here!(), EVERY_CALL, || {
        nan_mean(&[]);
        nan_means(&[]);
        inverse(&0.0);
        inverse(&4.0);
    });
    run.assert_success();
    for test in [
        "nan_mean(&multiply(xs, 2.0)) == result * 2.0",
        "nan_mean(&permute(xs)) == result",
        "nan_means(&reverse(xs)) == result",
    ] {
        let t = &run.tests_of(test)[0];
        assert_eq!(
            t.outcome, Fail,
            "{test}: a NaN result is deterministic and fails: {t:?}"
        );
        let detail = t.detail.as_deref().unwrap();
        assert!(
            detail.contains("left: NaN") || detail.contains("[NaN"),
            "{detail}"
        );
        assert!(detail.contains("NaN equals nothing"), "{detail}");
    }
    // At 0 the inverse gives 0, and 1 / 0 is infinity: unequal, whatever the tolerance.
    let at_zero: Vec<_> = run
        .tests_of("1.0 / inverse(&x) == *x")
        .into_iter()
        .map(|t| (t.inputs["x"].clone(), t.outcome))
        .collect();
    assert!(at_zero.contains(&("0.0".to_string(), Fail)), "{at_zero:?}");
    assert!(at_zero.contains(&("4.0".to_string(), Pass)), "{at_zero:?}");
    assert!(run
        .outcomes_of("result < f64::INFINITY")
        .iter()
        .all(|o| *o == Pass));
}

/// A counter whose source run depends on state outside the replayed stream.
static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

#[invite::metamorphic(drifting(x) == result)]
fn drifting(x: u64) -> u64 {
    x + CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

#[invite::metamorphic(drifting_unchecked(x) == result, self_check = false)]
fn drifting_unchecked(x: u64) -> u64 {
    x + CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

#[test]
fn nondeterminism_beyond_the_stream_is_inconclusive_not_fail() {
    let run = scenario(here!(), EVERY_CALL, || {
        drifting(1);
        drifting_unchecked(1);
    });
    run.assert_success();
    let t = &run.tests_of("drifting(x) == result")[0];
    assert_eq!(t.outcome, Inconclusive);
    assert!(
        t.detail.as_deref().unwrap().contains("nondeterministic"),
        "{:?}",
        t.detail
    );
    // Without the self-check the same drift is reported as a failure.
    assert_eq!(only_outcome(&run, "drifting_unchecked(x) == result"), Fail);
}

/// Picks one of two values at random from the replayable stream.
#[invite::metamorphic(
    pick(a + 10, b + 10) == result + 10,
    pick(b, a) == result,
)]
fn pick(a: i64, b: i64) -> i64 {
    if invite::rng().random_bool(0.5) {
        a
    } else {
        b
    }
}

#[test]
fn relations_that_hold_only_under_replay_pass() {
    let run = scenario(here!(), EVERY_CALL, || {
        // The parent's own stream is untouched by the tests: these 40 picks must mix.
        let picks: Vec<i64> = (0..40).map(|_| pick(1, 2)).collect();
        assert!(picks.contains(&1) && picks.contains(&2), "{picks:?}");
    });
    run.assert_success();
    // Translation holds under replay, every time.
    let translated = run.outcomes_of("pick(a + 10, b + 10) == result + 10");
    assert!(!translated.is_empty());
    assert!(translated.iter().all(|o| *o == Pass), "{translated:?}");
    // Swapping the arguments under the same stream picks the other value: never equal here,
    // since a != b. That proves the stream really was replayed, not merely lucky.
    let swapped = run.outcomes_of("pick(b, a) == result");
    assert!(swapped.iter().all(|o| *o == Fail), "{swapped:?}");
}

#[derive(Clone, Debug, Default, PartialEq)]
struct Account {
    balance: i64,
    history: Vec<i64>,
}

impl Account {
    #[invite::metamorphic(
        self.deposit(amount * 2) == result + amount,
        Self::deposit(self, 0) == self.balance,
        self.balance_after(amount) == result,
    )]
    fn deposit(&mut self, amount: i64) -> i64 {
        self.balance += amount;
        self.history.push(amount);
        self.balance
    }

    #[invite::metamorphic(self.balance_after(amount) - amount == self.balance)]
    fn balance_after(&self, amount: i64) -> i64 {
        self.balance + amount
    }

    #[invite::metamorphic(self.clone().into_total(bonus + 1) == result + 1)]
    fn into_total(self, bonus: i64) -> i64 {
        self.balance + bonus
    }

    #[invite::in_vivo(test = Self::withdraw_is_undone_by_deposit)]
    #[invite::metamorphic(self.withdraw(amount) == result)]
    fn withdraw(&mut self, amount: i64) -> Option<i64> {
        (self.balance >= amount).then(|| {
            self.balance -= amount;
            self.balance
        })
    }

    fn withdraw_is_undone_by_deposit(&mut self, amount: &i64) -> bool {
        let before = self.balance;
        if self.withdraw(*amount).is_some() {
            self.deposit(*amount);
        }
        self.balance == before
    }
}

#[test]
fn methods_with_every_receiver_run_each_execution_on_a_fresh_receiver() {
    let run = scenario(here!(), EVERY_CALL, || {
        let mut a = Account::default();
        assert_eq!(a.deposit(5), 5);
        assert_eq!(a.balance_after(1), 6);
        assert_eq!(a.withdraw(2), Some(3));
        assert_eq!(a.clone().into_total(4), 7);
        // The parent's receiver saw only its own calls.
        assert_eq!(a.history, vec![5]);
    });
    run.assert_success();
    // Each follow-up started from the pre-call balance, 0, not from what the source left.
    assert_eq!(
        only_outcome(&run, "self.deposit(amount * 2) == result + amount"),
        Pass
    );
    assert_eq!(
        only_outcome(&run, "Self::deposit(self, 0) == self.balance"),
        Pass
    );
    assert_eq!(
        only_outcome(&run, "self.balance_after(amount) == result"),
        Pass
    );
    assert_eq!(
        only_outcome(&run, "self.balance_after(amount) - amount == self.balance"),
        Pass
    );
    assert_eq!(
        only_outcome(&run, "self.clone().into_total(bonus + 1) == result + 1"),
        Pass
    );
    assert_eq!(only_outcome(&run, "self.withdraw(amount) == result"), Pass);
    assert_eq!(
        only_outcome(&run, "Self::withdraw_is_undone_by_deposit"),
        Pass
    );
    // One fork serves both attributes of `withdraw`.
    let w: Vec<u64> = run
        .tests()
        .iter()
        .filter(|t| t.site.ends_with("::withdraw"))
        .map(|t| t.run)
        .collect();
    assert_eq!(w.len(), 2);
    assert_eq!(w[0], w[1]);
    let receiver = &run.tests_of("self.withdraw(amount) == result")[0].inputs["self"];
    assert!(receiver.contains("balance: 5"), "{receiver}");
}

/// In Vivo tests of methods with each kind of receiver, and of a `&mut` argument. Each test
/// changes what it was given and then checks the change, which compiles only with the
/// method's mutability, and checks the state it started from: the live one, from before the call.
#[derive(Clone, Debug)]
struct Tally {
    count: u32,
    seen: Vec<u32>,
}

impl Tally {
    #[invite::in_vivo(test = Self::shared_sees_the_state_before_the_call)]
    fn peek(&self, n: u32) -> u32 {
        self.count + n
    }

    fn shared_sees_the_state_before_the_call(&self, n: &u32) -> bool {
        self.count == 3 && self.peek(*n) == 3 + *n
    }

    #[invite::in_vivo(test = Self::mutable_may_change_the_live_receiver)]
    fn bump(&mut self, by: u32) -> u32 {
        self.count += by;
        self.seen.push(by);
        self.count
    }

    fn mutable_may_change_the_live_receiver(&mut self, by: &u32) -> bool {
        let before = self.count;
        self.count = 1000;
        self.seen.clear();
        before == 3 && self.bump(*by) == 1000 + *by && self.seen == [*by]
    }

    #[invite::in_vivo(test = Self::owned_gets_its_own_receiver)]
    fn into_count(self, extra: u32) -> u32 {
        self.count + extra
    }

    fn owned_gets_its_own_receiver(mut self, extra: &u32) -> bool {
        self.seen.push(*extra);
        self.count == 3 && self.seen == [1, 2, *extra] && self.into_count(0) == 3
    }
}

#[invite::in_vivo(test = drained_argument_may_be_changed_by_its_test)]
fn drain_into(buf: &mut Vec<u32>, out: &mut u32) {
    *out = buf.drain(..).sum();
}

fn drained_argument_may_be_changed_by_its_test(buf: &mut Vec<u32>, out: &mut u32) -> bool {
    let live = buf.clone() == [4, 5] && *out == 0;
    buf.push(10);
    drain_into(buf, out);
    live && buf.is_empty() && *out == 19
}

#[test]
fn in_vivo_tests_get_the_receiver_and_arguments_with_the_method_s_mutability() {
    let run = scenario(here!(), EVERY_CALL, || {
        let mut t = Tally {
            count: 3,
            seen: vec![1, 2],
        };
        assert_eq!(t.peek(4), 7);
        assert_eq!(t.clone().into_count(5), 8);
        assert_eq!(t.bump(2), 5);
        let (mut buf, mut out) = (vec![4, 5], 0);
        drain_into(&mut buf, &mut out);
        // What the tests changed stayed in their process.
        assert_eq!((t.count, &t.seen[..]), (5, &[1, 2, 2][..]));
        assert_eq!((buf.len(), out), (0, 9));
    });
    run.assert_success();
    for test in [
        "Self::shared_sees_the_state_before_the_call",
        "Self::mutable_may_change_the_live_receiver",
        "Self::owned_gets_its_own_receiver",
        "drained_argument_may_be_changed_by_its_test",
    ] {
        assert_eq!(only_outcome(&run, test), Pass, "{test}\n{}", run.describe());
    }
}

#[invite::metamorphic(
    largest(&reverse(xs)) == result,
    largest(&include(xs, xs[0].clone())) == result,
)]
fn largest<T: PartialOrd + Clone + std::fmt::Debug>(xs: &[T]) -> Option<T> {
    let mut best: Option<&T> = None;
    for x in xs {
        if best.is_none_or(|b| x > b) {
            best = Some(x);
        }
    }
    best.cloned()
}

#[invite::metamorphic(
    if k <= xs.len() => split_sum(&reverse(xs), xs.len() - k) == (result.1, result.0),
    if k == 0 => split_sum(&xs, k).0 == 0,
)]
#[allow(clippy::ptr_arg)] // `&Vec` on purpose: one of the argument shapes under test
fn split_sum(xs: &Vec<i32>, k: usize) -> (i32, i32) {
    let k = k.min(xs.len());
    (xs[..k].iter().sum(), xs[k..].iter().sum())
}

#[invite::metamorphic(normalise(&mut xs.to_vec()) == result)]
fn normalise(xs: &mut [f64]) -> Vec<f64> {
    let total: f64 = xs.iter().sum();
    for x in xs.iter_mut() {
        *x /= total;
    }
    xs.to_vec()
}

#[invite::metamorphic(parse_all(words.clone()) == result)]
fn parse_all(words: Vec<String>) -> Result<Vec<i32>, String> {
    words
        .iter()
        .map(|w| w.parse::<i32>().map_err(|e| format!("{w}: {e}")))
        .collect()
}

#[invite::in_vivo(test = note_is_idempotent)]
fn note(log: &mut Vec<String>, line: &str) {
    if !log.iter().any(|l| l == line) {
        log.push(line.to_string());
    }
}

fn note_is_idempotent(log: &mut Vec<String>, line: &str) -> bool {
    note(log, line);
    let once = log.clone();
    note(log, line);
    *log == once
}

#[test]
fn generics_and_every_argument_and_return_shape() {
    let run = scenario(here!(), EVERY_CALL, || {
        assert_eq!(largest(&[3, 9, 2]), Some(9));
        assert_eq!(largest(&["b", "a"]), Some("b"));
        assert_eq!(split_sum(&vec![1, 2, 3], 1), (1, 5));
        assert_eq!(split_sum(&vec![1, 2, 3], 0), (0, 6));
        let mut v = vec![1.0, 3.0];
        assert_eq!(normalise(&mut v), vec![0.25, 0.75]);
        // The parent's argument was changed by the call itself, once.
        assert_eq!(v, vec![0.25, 0.75]);
        assert!(parse_all(vec!["1".into(), "x".into()]).is_err());
        let mut log = vec![];
        note(&mut log, "a");
        assert_eq!(log, vec!["a".to_string()]);
    });
    run.assert_success();
    for test in [
        "largest(&reverse(xs)) == result",
        "largest(&include(xs, xs[0].clone())) == result",
        "if k <= xs.len() => split_sum(&reverse(xs), xs.len() - k) == (result.1, result.0)",
        "normalise(&mut xs.to_vec()) == result",
        "parse_all(words.clone()) == result",
        "note_is_idempotent",
    ] {
        assert_eq!(only_outcome(&run, test), Pass, "{test}");
    }
    let mut guarded = run.outcomes_of("if k == 0 => split_sum(&xs, k).0 == 0");
    guarded.sort();
    assert_eq!(guarded, vec![Pass, Skipped]);
    // Two instantiations of the generic function share one site.
    assert_eq!(run.tests_of("largest(&reverse(xs)) == result").len(), 2);
}

#[test]
fn invite_off_in_the_environment_runs_nothing() {
    let run = support::scenario_with(here!(), EVERY_CALL, &[("INVITE", "off")], || {
        for _ in 0..20 {
            std_dev(&[1.0, 2.0]);
        }
        assert!(!invite::init());
    });
    run.assert_success();
    assert!(run.log.is_empty(), "{}", run.describe());
    assert!(!run.dir.join("log.jsonl").exists());
}

/// A function of every kind of parameter, for its In Vivo test's signature.
#[derive(Clone, Debug)]
struct Sums(f64);

impl Sums {
    #[invite::in_vivo(test = Self::each_argument_has_the_documented_type)]
    fn take(&mut self, xs: &[f64], scale: f64, name: String, out: &mut Vec<f64>) -> f64 {
        out.push(scale * xs.iter().sum::<f64>());
        self.0 += out.len() as f64;
        name.len() as f64
    }

    /// The types README promises: the receiver with the method's mutability, a reference
    /// parameter as it is (`&[f64]`, not `&&[f64]`), a `&mut` one as it is, and a by-value one
    /// by reference.
    #[allow(clippy::ptr_arg)] // `&String` is the type under test.
    fn each_argument_has_the_documented_type(
        &mut self,
        xs: &[f64],
        scale: &f64,
        name: &String,
        out: &mut Vec<f64>,
    ) -> bool {
        let before = out.len();
        let got = self.take(xs, *scale, name.clone(), out);
        out.len() == before + 1 && got == name.len() as f64
    }
}

#[test]
fn an_in_vivo_test_gets_each_argument_as_documented() {
    let run = scenario(here!(), "default_rho = 1.0\nwhen_busy = \"wait\"", || {
        let mut sums = Sums(0.0);
        let mut out = Vec::new();
        sums.take(&[1.0, 2.0], 2.0, "abc".to_string(), &mut out);
        invite::shutdown();
    });
    let test = "Self::each_argument_has_the_documented_type";
    assert_eq!(run.outcomes_of(test), [Pass], "{}", run.describe());
}
