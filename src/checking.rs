//! The state of checks in progress: which threads are checking, the runs they wait for, and
//! what their tests found. [`crate::check`] drives it from above; the sampler, the sandbox and
//! the collector, below that, only report to it.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::record::{self, Outcome};

thread_local! {
    /// Nesting depth of `check` on this thread: above 0, every call is tested.
    static DEPTH: Cell<u32> = const { Cell::new(0) };
    /// The transformations' seed of the runs of a replaying check (else each run draws one).
    static TEST_SEED: Cell<Option<u64>> = const { Cell::new(None) };
    /// What the calls inside this thread's checks found so far.
    static FOUND: RefCell<Checked> = RefCell::new(Checked::default());
}

#[derive(Default)]
struct Awaited {
    tests: Vec<record::Test>,
    ended: bool,
}

/// Runs awaited by a checking thread, by run number: the records the collector delivered, and
/// whether the run has ended.
static AWAITED: Mutex<BTreeMap<u64, Awaited>> = Mutex::new(BTreeMap::new());
static RUN_ENDED: Condvar = Condvar::new();
/// What the tests of the calls inside a [`check`](crate::check()) found.
#[derive(Clone, Debug, Default)]
pub struct Checked {
    /// Every test record, in the order the calls were made (within a call, as they arrived).
    pub tests: Vec<record::Test>,
    /// Calls that could not be tested, with the site and the reason.
    pub untested: Vec<(String, String)>,
}

impl Checked {
    /// Records that did not pass: failures (`fail`, `error`, `timeout`, `blocked`) and
    /// `inconclusive` ones (whose relations were never evaluated). Guards that skipped a
    /// relation are not among them.
    pub fn problems(&self) -> impl Iterator<Item = &record::Test> {
        self.tests
            .iter()
            .filter(|t| t.outcome.is_failure() || t.outcome == Outcome::Inconclusive)
    }

    /// Whether at least one test ran, every call was tested, and no test failed or was
    /// inconclusive.
    pub fn passed(&self) -> bool {
        !self.tests.is_empty() && self.untested.is_empty() && self.problems().next().is_none()
    }

    /// Panics, naming each failing relation with its inputs, detail and seeds, unless
    /// [`Checked::passed`]. A check in which no instrumented function was called fails too:
    /// it would test nothing.
    #[track_caller]
    pub fn assert_passed(&self) {
        if !self.passed() {
            panic!("{}", self.describe());
        }
    }

    /// A readable account of the problems (empty when the check passed).
    pub fn describe(&self) -> String {
        let mut out = String::new();
        if self.tests.is_empty() && self.untested.is_empty() {
            out.push_str(
                "invite::check: no instrumented function was called inside the check, so \
                 nothing was tested; call the function (not its helpers) inside the closure\n",
            );
        }
        let problems: Vec<&record::Test> = self.problems().collect();
        if !problems.is_empty() {
            let _ = writeln!(
                out,
                "invite::check: {} of {} tests did not pass",
                problems.len(),
                self.tests.len()
            );
        }
        for t in problems {
            let _ = writeln!(out, "  {} `{}`: {}", t.site, t.test, t.outcome);
            let inputs: Vec<String> = t.inputs.iter().map(|(k, v)| format!("{k} = {v}")).collect();
            let _ = writeln!(out, "    inputs: {}", inputs.join(", "));
            if let Some(d) = &t.detail {
                let _ = writeln!(out, "    detail: {d}");
            }
            let s = &t.seeds;
            let _ = writeln!(
                out,
                "    seeds: rng_seed {}, stream {}, word {}, test_seed {}",
                s.rng_seed, s.rng_stream, s.rng_word_pos, s.test_seed
            );
        }
        for (site, why) in &self.untested {
            let _ = writeln!(out, "  a call of {site} was not tested: {why}");
        }
        out
    }
}

/// A way a check did not pass: a relation of a site that ended in a failing outcome, a call
/// of a site that went untested, or a call that panicked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Problem {
    Failed {
        site: String,
        test: String,
        outcome: Outcome,
    },
    Untested {
        site: String,
    },
    /// Only `check_strategy` catches a panicking call.
    #[cfg_attr(not(feature = "proptest"), allow(dead_code))]
    Panicked,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Problem::Failed {
                site,
                test,
                outcome,
            } => write!(f, "{site} `{test}`: {outcome}"),
            Problem::Untested { site } => write!(f, "a call of {site} went untested"),
            Problem::Panicked => f.write_str("the call panicked"),
        }
    }
}

impl Checked {
    /// The first way this check did not pass: its first problem record, else its first
    /// untested call, else (a check that called nothing) none.
    pub(crate) fn first_problem(&self) -> Option<Problem> {
        if let Some(t) = self.problems().next() {
            return Some(Problem::Failed {
                site: t.site.clone(),
                test: t.test.clone(),
                outcome: t.outcome,
            });
        }
        self.untested
            .first()
            .map(|(site, _)| Problem::Untested { site: site.clone() })
    }

    /// Whether this check did not pass in the way `p` says.
    pub(crate) fn has_problem(&self, p: &Problem) -> bool {
        match p {
            Problem::Failed {
                site,
                test,
                outcome,
            } => self
                .problems()
                .any(|t| t.site == *site && t.test == *test && t.outcome == *outcome),
            Problem::Untested { site } => self.untested.iter().any(|(s, _)| s == site),
            Problem::Panicked => false,
        }
    }
}

/// Leaves a check on this thread and returns what it found. An enclosing check (`outer`, what
/// it had found before this one began) gets this one's findings as well; the outermost leaves
/// nothing behind.
pub(crate) fn leave(outer: Checked) -> Checked {
    let nested = DEPTH.with(|d| {
        d.set(d.get().saturating_sub(1));
        d.get() > 0
    });
    FOUND.with(|f| {
        let inner = f.take();
        if nested {
            let mut outer = outer;
            outer.tests.extend(inner.tests.iter().cloned());
            outer.untested.extend(inner.untested.iter().cloned());
            *f.borrow_mut() = outer;
        }
        inner
    })
}

/// Enters a check on this thread: until the matching [`leave`], every call is tested.
pub(crate) fn enter() {
    DEPTH.with(|d| d.set(d.get() + 1));
}

/// Takes what this thread's checks found so far (an enclosing check's findings, kept aside
/// while a nested one runs).
pub(crate) fn take_found() -> Checked {
    FOUND.with(RefCell::take)
}

/// Sets the transformations' seed a replaying check imposes on this thread's runs, returning
/// the one it replaces.
pub(crate) fn replace_test_seed(seed: Option<u64>) -> Option<u64> {
    TEST_SEED.with(|s| s.replace(seed))
}

/// The transformations' seed a replaying check imposes on this thread's runs.
pub(crate) fn replayed_test_seed() -> Option<u64> {
    TEST_SEED.with(Cell::get)
}

/// Whether calls on this thread are to be tested whatever the sampler says.
pub(crate) fn active() -> bool {
    DEPTH.with(|d| d.get() > 0)
}

fn awaited() -> MutexGuard<'static, BTreeMap<u64, Awaited>> {
    AWAITED.lock().unwrap_or_else(|e| e.into_inner())
}

/// Announces that this thread will wait for `run` (before the collector can see it).
pub(crate) fn expect(run: u64) {
    awaited().insert(run, Awaited::default());
}

/// A call inside a check that could not be tested.
pub(crate) fn untested(site: &str, why: impl Into<String>) {
    FOUND.with(|f| f.borrow_mut().untested.push((site.to_string(), why.into())));
}

/// Waits until the collector has ended `run` (it kills runs past their deadline, so this ends
/// too), and keeps its records for the enclosing check.
pub(crate) fn wait_for(run: u64, site: &str, limit: Duration) {
    let started = Instant::now();
    let mut map = awaited();
    loop {
        let ended = map.get(&run).is_none_or(|a| a.ended);
        let left = limit.saturating_sub(started.elapsed());
        if ended || left.is_zero() {
            break;
        }
        map = match RUN_ENDED.wait_timeout(map, left) {
            Ok((guard, _)) => guard,
            Err(e) => e.into_inner().0,
        };
    }
    let Some(found) = map.remove(&run) else {
        return;
    };
    drop(map);
    if !found.ended {
        untested(
            site,
            format!(
                "its run had not ended after {} ms; results that came later are in the log only",
                limit.as_millis()
            ),
        );
    }
    FOUND.with(|f| f.borrow_mut().tests.extend(found.tests));
}

/// A record of a test this thread ran in process, for the enclosing check.
#[cfg_attr(invite_linux, allow(dead_code))]
pub(crate) fn found(t: record::Test) {
    FOUND.with(|f| f.borrow_mut().tests.push(t));
}

/// Gives up on a run that will never be followed (it was not handed to the collector).
pub(crate) fn forget(run: u64) {
    awaited().remove(&run);
}

/// The collector's side: a record of a run, kept if a checking thread awaits it.
pub(crate) fn deliver(t: &record::Test) {
    let mut map = awaited();
    if let Some(a) = map.get_mut(&t.run) {
        a.tests.push(t.clone());
    }
}

/// The collector's side: `run` has ended and every record of it was delivered.
pub(crate) fn ended(run: u64) {
    let mut map = awaited();
    if let Some(a) = map.get_mut(&run) {
        a.ended = true;
        drop(map);
        RUN_ENDED.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Seeds, Test, VERSION};

    fn test(outcome: Outcome) -> Test {
        Test {
            v: VERSION,
            time: String::new(),
            host: String::new(),
            pid: 1,
            instance: String::new(),
            service: String::new(),
            version: String::new(),
            site: "app::f".into(),
            test: "f(x) == result".into(),
            run: 1,
            outcome,
            parent_us: 0,
            duration_us: 0,
            inputs: [("x".to_string(), "3".to_string())].into(),
            exact: Default::default(),
            detail: Some("left 1, right 2".into()),
            seeds: Seeds {
                rng_seed: "ab".into(),
                rng_stream: 2,
                rng_word_pos: 3,
                test_seed: 4,
            },
        }
    }

    #[test]
    fn a_check_passes_only_with_tests_and_no_problem() {
        let mut c = Checked::default();
        assert!(!c.passed(), "no test: nothing was checked");
        assert!(c.describe().contains("no instrumented function was called"));
        c.tests.push(test(Outcome::Pass));
        c.tests.push(test(Outcome::Skipped));
        assert!(c.passed(), "{}", c.describe());
        assert_eq!(c.describe(), "");
        for bad in [
            Outcome::Fail,
            Outcome::Error,
            Outcome::Timeout,
            Outcome::Blocked,
            Outcome::Inconclusive,
        ] {
            let mut c = c.clone();
            c.tests.push(test(bad));
            assert!(!c.passed(), "{bad}");
            assert_eq!(c.problems().count(), 1);
        }
        let mut c2 = c.clone();
        c2.untested.push(("app::f".into(), "fork failed".into()));
        assert!(!c2.passed());
        assert!(c2
            .describe()
            .contains("a call of app::f was not tested: fork failed"));
    }

    #[test]
    fn the_account_names_the_relation_its_inputs_detail_and_seeds() {
        let c = Checked {
            tests: vec![test(Outcome::Pass), test(Outcome::Fail)],
            untested: Vec::new(),
        };
        let text = c.describe();
        assert!(text.contains("1 of 2 tests did not pass"), "{text}");
        assert!(text.contains("app::f `f(x) == result`: fail"), "{text}");
        assert!(text.contains("inputs: x = 3"), "{text}");
        assert!(text.contains("detail: left 1, right 2"), "{text}");
        assert!(
            text.contains("rng_seed ab, stream 2, word 3, test_seed 4"),
            "{text}"
        );
    }

    #[test]
    fn the_first_problem_is_a_failing_record_else_an_untested_call_and_is_matched_exactly() {
        let mut c = Checked::default();
        assert_eq!(c.first_problem(), None);
        c.untested.push(("app::g".into(), "fork failed".into()));
        let untested = Problem::Untested {
            site: "app::g".into(),
        };
        assert_eq!(c.first_problem(), Some(untested.clone()));
        assert!(c.has_problem(&untested));
        assert!(!c.has_problem(&Problem::Untested {
            site: "app::f".into()
        }));
        assert!(
            !c.has_problem(&Problem::Panicked),
            "a check never holds a panic"
        );
        c.tests.push(test(Outcome::Pass));
        c.tests.push(test(Outcome::Timeout));
        let failed = Problem::Failed {
            site: "app::f".into(),
            test: "f(x) == result".into(),
            outcome: Outcome::Timeout,
        };
        assert_eq!(c.first_problem(), Some(failed.clone()));
        assert!(c.has_problem(&failed));
        for other in [
            Problem::Failed {
                site: "app::g".into(),
                test: "f(x) == result".into(),
                outcome: Outcome::Timeout,
            },
            Problem::Failed {
                site: "app::f".into(),
                test: "f(2 * x) == result".into(),
                outcome: Outcome::Timeout,
            },
            Problem::Failed {
                site: "app::f".into(),
                test: "f(x) == result".into(),
                outcome: Outcome::Fail,
            },
        ] {
            assert!(!c.has_problem(&other), "{other}");
        }
        assert_eq!(failed.to_string(), "app::f `f(x) == result`: timeout");
        assert_eq!(untested.to_string(), "a call of app::g went untested");
        assert_eq!(Problem::Panicked.to_string(), "the call panicked");
    }

    #[test]
    #[should_panic(expected = "did not pass")]
    fn assert_passed_panics_on_a_failure() {
        Checked {
            tests: vec![test(Outcome::Fail)],
            untested: Vec::new(),
        }
        .assert_passed();
    }

    #[test]
    fn leaving_a_nested_check_hands_its_findings_on_and_the_outermost_keeps_none() {
        let found = |n: usize| Checked {
            tests: vec![test(Outcome::Pass); n],
            untested: vec![("app::f".into(), "why".into()); n],
        };
        DEPTH.with(|d| d.set(2));
        FOUND.with(|f| *f.borrow_mut() = found(1));
        let inner = leave(found(2));
        assert_eq!(inner.tests.len(), 1, "the inner check's own findings");
        let handed_on = FOUND.with(|f| f.borrow().clone());
        assert_eq!((handed_on.tests.len(), handed_on.untested.len()), (3, 3));
        let outermost = leave(Checked::default());
        assert_eq!(outermost.tests.len(), 3);
        assert_eq!(DEPTH.with(Cell::get), 0);
        let left = FOUND.with(|f| f.borrow().tests.len() + f.borrow().untested.len());
        assert_eq!(left, 0, "nothing stays behind to grow from check to check");
    }

    #[test]
    fn records_of_awaited_runs_are_kept_and_others_dropped() {
        expect(9001);
        let mut t = test(Outcome::Fail);
        t.run = 9001;
        deliver(&t);
        t.run = 9002;
        deliver(&t);
        ended(9001);
        let before = FOUND.with(|f| f.borrow().tests.len());
        wait_for(9001, "app::f", Duration::from_secs(5));
        let after: Vec<u64> = FOUND.with(|f| f.borrow().tests.iter().map(|t| t.run).collect());
        assert_eq!(after.len(), before + 1);
        assert_eq!(after.last(), Some(&9001));
        assert!(!awaited().contains_key(&9001));
        // A run that never ends is given up after the limit, and said so.
        expect(9003);
        wait_for(9003, "app::g", Duration::from_millis(20));
        let untested = FOUND.with(|f| f.borrow().untested.clone());
        assert!(untested
            .iter()
            .any(|(s, why)| s == "app::g" && why.contains("had not ended")));
    }
}
