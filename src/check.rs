//! Relations in `cargo test`: the same relations and In Vivo tests that run in production,
//! driven synchronously from a test over inputs it chooses.
//!
//! Inside [`check`], every call of an instrumented function on the calling thread is tested,
//! whatever its ρ and the caps say: the call forks its run as in production (same sandbox,
//! same replayed random stream), then waits for the run's results before it goes on. Calls on
//! other threads are sampled as usual. With no `invite.toml`, invite starts for the check alone,
//! writing no log and sampling nothing else.
//!
//! ```
//! use invite::mr::multiply;
//!
//! #[invite::metamorphic(mean(&multiply(xs, 2.0)) == result * 2.0)]
//! fn mean(xs: &[f64]) -> f64 {
//!     xs.iter().sum::<f64>() / xs.len().max(1) as f64
//! }
//!
//! let checked = invite::check(|| {
//!     mean(&[1.0, 2.0, 4.0]);
//!     mean(&[-3.5]);
//! });
//! checked.assert_passed();
//! assert_eq!(checked.tests.len(), 2);
//! ```
//!
//! With the `proptest` feature, `check_strategy` draws the inputs from a proptest strategy
//! and shrinks a failing one to a minimal input.

#[cfg(feature = "proptest")]
use std::cell::RefCell;
#[cfg(feature = "proptest")]
use std::fmt::Write as _;
use std::sync::Mutex;

pub use crate::checking::Checked;
pub(crate) use crate::checking::Problem;
use crate::checking::{self, leave};
use crate::record;
use crate::runtime;
#[cfg(feature = "proptest")]
use crate::shrink;
use crate::site;

/// Serialises the start of checks (the re-arming of sites).
static ENTRY: Mutex<()> = Mutex::new(());

/// Runs `calls`, testing every call of an instrumented function that it makes on this thread,
/// and returns what the tests found. Each call waits for its own tests before it goes on.
///
/// Nothing is printed or asserted: see [`Checked::assert_passed`]. Inside a test child (where
/// instrumentation is off) or with invite compiled out, the closure simply runs and the result
/// holds no tests.
pub fn check(calls: impl FnOnce()) -> Checked {
    if crate::role::in_child() || !begin() {
        calls();
        return Checked::default();
    }
    let outer = checking::take_found();
    // Caught so that the thread leaves the check (and an enclosing one gets its findings back)
    // before the panic goes on.
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(calls));
    let inner = leave(outer);
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
    inner
}

/// [`check`], with the random streams a logged test had: the calling thread's
/// [`rng()`](crate::rng()) is put where the logged call found it, and the runs' transformations
/// (`permute`) draw from the logged `test_seed`. So the logged inputs, called inside, meet the
/// same numbers as in the field. `invite report --emit-tests` writes tests that call this.
///
/// Malformed seeds (an `rng_seed` that is not 64 hex digits) test nothing and say so.
pub fn check_replaying(seeds: &record::Seeds, calls: impl FnOnce()) -> Checked {
    if !crate::rng::replay(seeds) {
        return Checked {
            tests: Vec::new(),
            untested: vec![(
                "invite::check_replaying".to_string(),
                format!(
                    "the seeds are malformed: rng_seed must be 64 hex digits, not {:?}",
                    seeds.rng_seed
                ),
            )],
        };
    }
    let outer = checking::replace_test_seed(Some(seeds.test_seed));
    let checked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(calls)));
    checking::replace_test_seed(outer);
    checked.unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// Enters a check on this thread; false when invite cannot run here.
fn begin() -> bool {
    if runtime::for_checks().is_none() {
        return false;
    }
    {
        let _entry = ENTRY.lock().unwrap_or_else(|e| e.into_inner());
        // A new generation on every site: each thread draws its countdown again, so this
        // thread's next call of any site reaches the sampled path, ρ = 0 sites included.
        for s in site::all() {
            s.rearm();
        }
    }
    checking::enter();
    true
}

/// Checks `call` on inputs drawn from a proptest strategy, and panics with a minimal failing
/// input and the relation that failed on it.
///
/// The input is shrunk twice: by proptest's own shrinking, then by [`shrink::minimize`]
/// (which removes blocks of elements and simplifies numbers, so that a defect that needs an
/// even length or two distinct elements still shrinks to two). Every step is judged on the
/// first failure found: a simpler input is kept only if the same relation of the same site
/// fails on it in the same way, so a step on which that relation did not run (a guard
/// skipped it, a call went untested) never passes for a failure.
///
/// ```
/// use invite::mr::add;
/// use proptest::prelude::*;
///
/// #[invite::metamorphic(max(&add(xs, 1.0)) == result + 1.0)]
/// fn max(xs: &[f64]) -> f64 {
///     xs.iter().copied().fold(f64::NEG_INFINITY, f64::max)
/// }
///
/// invite::check_strategy(prop::collection::vec(-1e6..1e6f64, 1..20), |xs| {
///     max(&xs);
/// });
/// ```
///
/// A value of the program's own type shrinks by proptest alone with an empty
/// `impl invite::shrink::Shrink for MyType {}`.
#[cfg(feature = "proptest")]
#[track_caller]
pub fn check_strategy<S>(strategy: S, call: impl Fn(S::Value))
where
    S: proptest::strategy::Strategy,
    S::Value: std::fmt::Debug + crate::shrink::Shrink,
{
    check_strategy_with(proptest::test_runner::Config::default(), strategy, call);
}

/// [`check_strategy`] with proptest's configuration (number of cases, shrinking limits; its
/// `max_shrink_iters` also bounds the second shrink). Failures are not persisted to files: the
/// panic message names the minimal input.
#[cfg(feature = "proptest")]
#[track_caller]
pub fn check_strategy_with<S>(
    mut config: proptest::test_runner::Config,
    strategy: S,
    call: impl Fn(S::Value),
) where
    S: proptest::strategy::Strategy,
    S::Value: std::fmt::Debug + crate::shrink::Shrink,
{
    use proptest::test_runner::{TestCaseError, TestError, TestRunner};
    config.failure_persistence = None;
    let max_tries = config.max_shrink_iters.min(shrink::DEFAULT_TRIES);
    let mut runner = TestRunner::new(config);
    // The first failure found, which every shrinking step must reproduce.
    let target: RefCell<Option<Problem>> = RefCell::new(None);
    let fails = |value: S::Value| -> Option<String> {
        let caught =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(|| call(value))));
        let (first, reproduces, account) = match caught {
            Ok(checked) => {
                let first = checked.first_problem()?;
                let reproduces = target
                    .borrow()
                    .as_ref()
                    .is_none_or(|t| checked.has_problem(t));
                (first, reproduces, checked.describe())
            }
            Err(panic) => {
                let reproduces = target
                    .borrow()
                    .as_ref()
                    .is_none_or(|t| *t == Problem::Panicked);
                let account = format!(
                    "invite::check_strategy: the call panicked: {}\n",
                    panic_message(&*panic)
                );
                (Problem::Panicked, reproduces, account)
            }
        };
        if !reproduces {
            return None;
        }
        target.borrow_mut().get_or_insert(first);
        Some(account)
    };
    let result = runner.run(&strategy, |value| match fails(value) {
        None => Ok(()),
        Some(why) => Err(TestCaseError::fail(why)),
    });
    match result {
        Ok(()) => {}
        Err(TestError::Fail(why, input)) => {
            let mut why = why.to_string();
            let shrunk = shrink::minimize(input, max_tries, |v| match fails(v.clone()) {
                Some(account) => {
                    why = account;
                    true
                }
                None => false,
            });
            let mut panic = format!(
                "invite::check_strategy: minimal failing input: {:?}\n",
                shrunk.value
            );
            if let Some(n) = shrink::Shrink::len_hint(&shrunk.value) {
                let s = if n == 1 { "" } else { "s" };
                let _ = writeln!(panic, "  ({n} element{s})");
            }
            if let Some(t) = &*target.borrow() {
                let _ = writeln!(panic, "  failing: {t}");
            }
            if shrunk.exhausted {
                let _ = writeln!(
                    panic,
                    "  (shrinking stopped after {} tries; a smaller input may fail too)",
                    shrunk.tries
                );
            }
            panic!("{panic}{why}")
        }
        Err(TestError::Abort(why)) => panic!("invite::check_strategy: proptest gave up: {why}"),
    }
}

/// The text of a panic's payload.
#[cfg(feature = "proptest")]
fn panic_message(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(a payload that is not text)")
}
