//! The outcomes so far, kept in the program's own memory, so that a program or a test can read
//! them without parsing the log: counts per site and per test, and the failing tests' records.
//!
//! The collector thread adds every test record here as it writes it to the log; [`outcomes`]
//! copies the whole view out. Failing records are kept up to [`MAX_FAILURES`]: a program that
//! fails millions of times must not grow without bound, and the log holds them all. Past that,
//! the first failure of each defect (a site's test failing in one way) is still kept, so that
//! no defect goes unseen behind another's many failures.

use std::collections::BTreeMap;
use std::sync::Mutex;

use crate::record::{self, OutcomeCounts};

/// How many failing test records the view keeps (the first ones; later ones are only counted,
/// but for the first of each defect).
pub const MAX_FAILURES: usize = 256;

/// Every outcome recorded so far in this process, by site and test.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcomes {
    /// One entry per site that recorded a test, in order of site name.
    pub sites: Vec<SiteOutcomes>,
    /// The failing tests' records (`fail`, `error`, `timeout`, `blocked`), oldest first: the
    /// first [`MAX_FAILURES`], and the first of each defect after them.
    pub failures: Vec<record::Test>,
    /// Failing records not kept because [`MAX_FAILURES`] were already kept.
    pub failures_not_kept: u64,
}

/// The outcomes of one instrumented function.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SiteOutcomes {
    /// The site's name, as in the log.
    pub site: String,
    /// One entry per relation or In Vivo test that recorded an outcome, in order of its text.
    pub tests: Vec<TestOutcomes>,
}

/// The outcomes of one relation or In Vivo test of a site.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TestOutcomes {
    /// The relation's source text or the test function's path, as in the log.
    pub test: String,
    /// How many times it ended each way.
    pub counts: OutcomeCounts,
}

impl Outcomes {
    /// The counts of every test of every site, added up.
    pub fn total(&self) -> OutcomeCounts {
        let mut sum = OutcomeCounts::default();
        for s in &self.sites {
            sum.merge(&s.counts());
        }
        sum
    }

    /// The outcomes of the site named `site`, if it recorded any.
    pub fn site(&self, site: &str) -> Option<&SiteOutcomes> {
        self.sites.iter().find(|s| s.site == site)
    }

    /// How many tests ended in a failure (`fail`, `error`, `timeout` or `blocked`), kept or not.
    pub fn failure_count(&self) -> u64 {
        self.failures.len() as u64 + self.failures_not_kept
    }
}

impl SiteOutcomes {
    /// The counts of all this site's tests, added up.
    pub fn counts(&self) -> OutcomeCounts {
        let mut sum = OutcomeCounts::default();
        for t in &self.tests {
            sum.merge(&t.counts);
        }
        sum
    }

    /// The outcomes of the test whose text is `test`, if it recorded any.
    pub fn test(&self, test: &str) -> Option<&TestOutcomes> {
        self.tests.iter().find(|t| t.test == test)
    }
}

#[derive(Default)]
struct View {
    counts: BTreeMap<String, BTreeMap<String, OutcomeCounts>>,
    failures: Vec<record::Test>,
    failures_not_kept: u64,
}

impl View {
    fn add(&mut self, t: &record::Test) {
        self.counts
            .entry(t.site.clone())
            .or_default()
            .entry(t.test.clone())
            .or_default()
            .add(t.outcome);
        if t.outcome.is_failure() {
            let new_defect = || {
                !self
                    .failures
                    .iter()
                    .any(|k| k.site == t.site && k.test == t.test && k.outcome == t.outcome)
            };
            if self.failures.len() < MAX_FAILURES || new_defect() {
                self.failures.push(t.clone());
            } else {
                self.failures_not_kept += 1;
            }
        }
    }

    fn snapshot(&self) -> Outcomes {
        Outcomes {
            sites: self
                .counts
                .iter()
                .map(|(site, tests)| SiteOutcomes {
                    site: site.clone(),
                    tests: tests
                        .iter()
                        .map(|(test, counts)| TestOutcomes {
                            test: test.clone(),
                            counts: counts.clone(),
                        })
                        .collect(),
                })
                .collect(),
            failures: self.failures.clone(),
            failures_not_kept: self.failures_not_kept,
        }
    }
}

static VIEW: Mutex<Option<View>> = Mutex::new(None);

/// Adds one test record (called by the collector for every record it writes).
pub(crate) fn add(t: &record::Test) {
    if let Ok(mut view) = VIEW.lock() {
        view.get_or_insert_with(View::default).add(t);
    }
}

/// The outcomes recorded so far in this process.
///
/// Results arrive on the collector thread as test runs finish, so call
/// [`wait_idle`](crate::wait_idle) first to include the runs still going. Inside a test child it
/// returns an empty view: a child's copy of the view stopped changing when it was forked, and a
/// lock held by another thread at that moment would never be released there.
///
/// ```
/// invite::wait_idle(std::time::Duration::from_secs(5));
/// let outcomes = invite::outcomes();
/// for f in &outcomes.failures {
///     eprintln!("{} failed {}: {:?}", f.site, f.test, f.detail);
/// }
/// assert_eq!(outcomes.total().fail, 0);
/// ```
pub fn outcomes() -> Outcomes {
    if crate::role::in_child() {
        return Outcomes::default();
    }
    match VIEW.lock() {
        Ok(view) => view.as_ref().map(View::snapshot).unwrap_or_default(),
        Err(_) => Outcomes::default(),
    }
}

type FailureHook = std::sync::Arc<dyn Fn(&record::Test) + Send + Sync>;
static FAILURE_HOOK: std::sync::RwLock<Option<FailureHook>> = std::sync::RwLock::new(None);

/// Sets the function called (on the collector thread) for every failing test (`fail`, `error`,
/// `timeout`, `blocked`), whatever `on_failure` says. It replaces any earlier hook. A panic in
/// the hook is caught; the hook should return quickly, as results wait while it runs.
pub fn on_failure(hook: impl Fn(&record::Test) + Send + Sync + 'static) {
    if let Ok(mut slot) = FAILURE_HOOK.write() {
        *slot = Some(std::sync::Arc::new(hook));
    }
}

/// The hook [`on_failure`] set, if any.
pub(crate) fn failure_hook() -> Option<FailureHook> {
    FAILURE_HOOK.read().ok().and_then(|h| h.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Outcome, Seeds};

    fn test(site: &str, test: &str, outcome: Outcome) -> record::Test {
        record::Test {
            v: record::VERSION,
            time: String::new(),
            host: String::new(),
            pid: 1,
            instance: String::new(),
            service: String::new(),
            version: String::new(),
            site: site.into(),
            test: test.into(),
            run: 1,
            outcome,
            parent_us: 0,
            duration_us: 0,
            inputs: BTreeMap::new(),
            exact: Default::default(),
            detail: None,
            seeds: Seeds::default(),
        }
    }

    #[test]
    fn counts_are_kept_per_site_and_test_and_failures_in_order() {
        let mut view = View::default();
        view.add(&test("b", "t", Outcome::Timeout));
        view.add(&test("a", "f(x) == result", Outcome::Pass));
        view.add(&test("a", "f(x) == result", Outcome::Fail));
        view.add(&test("a", "g(x) == result", Outcome::Pass));
        view.add(&test("b", "t", Outcome::Skipped));
        let o = view.snapshot();
        let names: Vec<_> = o.sites.iter().map(|s| s.site.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        let a = o.site("a").expect("site a");
        assert_eq!(a.tests.len(), 2);
        let f = a.test("f(x) == result").expect("test f");
        assert_eq!((f.counts.pass, f.counts.fail), (1, 1));
        assert_eq!(a.test("g(x) == result").map(|t| t.counts.pass), Some(1));
        assert!(a.test("h").is_none());
        assert_eq!((a.counts().pass, a.counts().fail), (2, 1));
        let b = o.site("b").expect("site b");
        assert_eq!((b.counts().timeout, b.counts().skipped), (1, 1));
        assert!(o.site("c").is_none());
        let failures: Vec<_> = o
            .failures
            .iter()
            .map(|t| (t.site.as_str(), t.outcome))
            .collect();
        assert_eq!(failures, [("b", Outcome::Timeout), ("a", Outcome::Fail)]);
        let total = o.total();
        assert_eq!(
            (total.pass, total.fail, total.timeout, total.skipped),
            (2, 1, 1, 1)
        );
        assert_eq!(o.failure_count(), 2);
    }

    #[test]
    fn only_failing_outcomes_are_kept_as_failures() {
        let mut view = View::default();
        for o in Outcome::ALL {
            view.add(&test("s", "t", o));
        }
        let kept: Vec<_> = view.snapshot().failures.iter().map(|t| t.outcome).collect();
        assert_eq!(
            kept,
            [
                Outcome::Fail,
                Outcome::Error,
                Outcome::Timeout,
                Outcome::Blocked
            ]
        );
    }

    #[test]
    fn failures_past_the_cap_are_counted_not_kept() {
        let mut view = View::default();
        for _ in 0..MAX_FAILURES + 3 {
            view.add(&test("s", "t", Outcome::Error));
        }
        let o = view.snapshot();
        assert_eq!(o.failures.len(), MAX_FAILURES);
        assert_eq!(o.failures_not_kept, 3);
        assert_eq!(o.failure_count(), MAX_FAILURES as u64 + 3);
        assert_eq!(o.total().error, MAX_FAILURES as u64 + 3);
    }

    #[test]
    fn the_first_failure_of_each_defect_is_kept_past_the_cap() {
        let mut view = View::default();
        for _ in 0..MAX_FAILURES + 3 {
            view.add(&test("s", "t", Outcome::Fail));
        }
        view.add(&test("s", "t", Outcome::Error));
        view.add(&test("s", "t", Outcome::Error));
        view.add(&test("s", "u", Outcome::Fail));
        let o = view.snapshot();
        let late: Vec<_> = o.failures[MAX_FAILURES..]
            .iter()
            .map(|t| (t.test.as_str(), t.outcome))
            .collect();
        assert_eq!(late, [("t", Outcome::Error), ("u", Outcome::Fail)]);
        assert_eq!(o.failures_not_kept, 4);
        assert_eq!(o.failure_count(), MAX_FAILURES as u64 + 6);
    }

    #[test]
    fn the_process_view_starts_empty_and_takes_what_is_added() {
        let before = outcomes();
        assert!(before.site("process-view").is_none());
        add(&test("process-view", "t", Outcome::Pass));
        let after = outcomes();
        assert_eq!(after.site("process-view").map(|s| s.counts().pass), Some(1));
    }
}
