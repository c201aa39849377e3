//! Regression tests from failures in the field: the tests that `invite report --emit-tests`
//! writes call [`regression()`], which replays a logged call and fails while the defect is there.
//!
//! With `INVITE_SHRINK` naming a file, a failing regression test also shrinks its inputs
//! ([`crate::shrink::minimize`]): a simpler input is kept only when the relation that failed
//! in the field still fails on it, in the same way, under the same random streams. The result
//! is appended to that file as one JSON line; `invite report --emit-tests` reads it back and
//! writes the test again with the smaller input.

use std::io::Write as _;

use crate::check::{check_replaying, Checked, Problem};
use crate::record;
use crate::shrink::{self, Shrink};

/// The inputs of a regression test: a tuple of the function's arguments, each shown by its
/// `Debug` text.
pub trait Inputs: Shrink {
    /// Each argument's `Debug` text, in order.
    fn debug_each(&self) -> Vec<String>;
    /// Each argument's length, for sequences.
    fn len_each(&self) -> Vec<Option<usize>>;
}

macro_rules! tuple_inputs {
    ($(($($n:tt $t:ident),+))*) => {$(
        impl<$($t: Shrink + std::fmt::Debug),+> Inputs for ($($t,)+) {
            fn debug_each(&self) -> Vec<String> {
                vec![$(format!("{:?}", self.$n)),+]
            }
            fn len_each(&self) -> Vec<Option<usize>> {
                vec![$(self.$n.len_hint()),+]
            }
        }
    )*};
}

tuple_inputs! {
    (0 A)
    (0 A, 1 B)
    (0 A, 1 B, 2 C)
    (0 A, 1 B, 2 C, 3 D)
    (0 A, 1 B, 2 C, 3 D, 4 E)
    (0 A, 1 B, 2 C, 3 D, 4 E, 5 F)
    (0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G)
    (0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H)
}

/// What a shrink of a regression test's inputs found, as written to `INVITE_SHRINK`.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ShrinkReport {
    /// The test's name, as the emitted file gives it.
    pub test: String,
    /// The relation the shrink held to.
    pub relation: String,
    /// The inputs' `Debug` texts before.
    pub before: Vec<String>,
    /// The inputs' lengths before (sequences only).
    pub before_len: Vec<Option<usize>>,
    /// The smallest inputs that still fail that way.
    pub after: Vec<String>,
    /// Their lengths.
    pub after_len: Vec<Option<usize>>,
    /// Inputs tried.
    pub tries: u32,
    /// Whether the budget of tries ran out first.
    pub exhausted: bool,
}

/// Replays a logged call on `inputs` with the logged random streams (`seeds`), and panics
/// unless every relation of the call passes: the regression test of a failure in the field.
/// `relation` is the relation that failed there (a shrink holds to it); `test` is the test's
/// name, by which a shrink reports.
#[track_caller]
pub fn regression<I: Inputs>(
    test: &str,
    relation: &str,
    seeds: &record::Seeds,
    inputs: I,
    call: impl Fn(I),
) {
    let checked = check_replaying(seeds, || call(inputs.clone()));
    if checked.passed() {
        return;
    }
    if let Some(path) = std::env::var_os("INVITE_SHRINK") {
        if let Some(target) = target(&checked, relation) {
            let report = shrink_inputs(test, relation, seeds, &inputs, &call, &target);
            if let Err(e) = append(std::path::Path::new(&path), &report) {
                eprintln!(
                    "invite::regression: cannot write the shrink of `{test}` to {}: {e}",
                    path.to_string_lossy()
                );
            }
        }
    }
    checked.assert_passed();
}

/// The failure a shrink holds to: `relation` failing as it first fails here, else the first
/// problem of the check.
fn target(checked: &Checked, relation: &str) -> Option<Problem> {
    checked
        .problems()
        .find(|t| t.test == relation)
        .map(|t| Problem::Failed {
            site: t.site.clone(),
            test: t.test.clone(),
            outcome: t.outcome,
        })
        .or_else(|| checked.first_problem())
}

fn shrink_inputs<I: Inputs>(
    test: &str,
    relation: &str,
    seeds: &record::Seeds,
    inputs: &I,
    call: &impl Fn(I),
    target: &Problem,
) -> ShrinkReport {
    let shrunk = shrink::minimize(inputs.clone(), shrink::DEFAULT_TRIES, |candidate| {
        // A candidate on which the function itself panics (an empty input to a function that
        // needs one) fails in another way: it is not kept.
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            check_replaying(seeds, || call(candidate.clone()))
        }))
        .is_ok_and(|checked| checked.has_problem(target))
    });
    ShrinkReport {
        test: test.to_string(),
        relation: relation.to_string(),
        before: inputs.debug_each(),
        before_len: inputs.len_each(),
        after: shrunk.value.debug_each(),
        after_len: shrunk.value.len_each(),
        tries: shrunk.tries,
        exhausted: shrunk.exhausted,
    }
}

fn append(path: &std::path::Path, report: &ShrinkReport) -> std::io::Result<()> {
    let mut line = serde_json::to_string(report).map_err(std::io::Error::other)?;
    line.push('\n');
    // One write of one line, appended: tests that shrink in parallel do not interleave.
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?
        .write_all(line.as_bytes())
}
