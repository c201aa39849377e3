//! The sandbox where there is none: on targets other than Linux (and in a Linux build with
//! `--cfg invite_portable`) no run is ever forked. What generated code names exists, and the
//! calls inside [`crate::check`] run their tests here, on the calling thread, one after another,
//! each from the state the call saw and the same replayed random stream.
//!
//! Unsandboxed: a relation that writes a file, or changes state the call can reach through a
//! shared reference, does so for real, and one that never ends holds the check. In Vivo tests,
//! which act on the live receiver and arguments themselves, are not run here: their records say
//! `skipped`, and why.

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::time::Instant;

use crate::record::{self, Outcome};
use crate::rng::{self, Snapshot};
use crate::site::{Permit, Site, TestKind};

/// Why an In Vivo test is not run here.
const IN_VIVO_HERE: &str = "an In Vivo test acts on the live state, which only a test process \
    of its own keeps from the program: it runs on Linux only";

#[path = "../sandbox/test_ctx.rs"]
mod test_ctx;
pub use test_ctx::TestCtx;

/// How a test takes a by-value receiver: it cannot, in process.
#[derive(Debug, Default)]
pub(crate) struct Taker {
    _nothing: (),
}

impl Taker {
    pub fn take<T>(&self, _value: &T) -> T {
        panic!(
            "this In Vivo test takes its receiver by value, which needs a test process of its \
             own: it runs on Linux only"
        )
    }
}

/// Unwinds out of [`ChildRun::run`], which cannot return, back to [`run_here`].
struct RunEnded;

/// The run of one checked call, on the calling thread.
pub struct ChildRun {
    site: &'static Site,
    snapshot: Snapshot,
    test_seed: u64,
    time: String,
    run: u64,
}

impl ChildRun {
    /// Runs every test of the site in turn, hands their records to the check, and ends the
    /// run (by unwinding back to where it started: in process, a run cannot `_exit`).
    pub fn run(
        self,
        inputs: Vec<(&'static str, String)>,
        tests: &mut dyn FnMut(&mut TestCtx),
    ) -> ! {
        let captured: std::collections::BTreeMap<String, String> = inputs
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        let (inputs, exact) = record::Exact::split(&captured);
        for index in 0..self.site.meta.tests.len() {
            let (outcome, detail, duration_us) = self.test(index, tests);
            let t = record::Test {
                v: record::VERSION,
                time: self.time.clone(),
                host: record::hostname(),
                pid: std::process::id(),
                instance: String::new(),
                service: String::new(),
                version: String::new(),
                site: self.site.name().to_string(),
                test: self.site.meta.tests[index].0.to_string(),
                run: self.run,
                outcome,
                parent_us: 0,
                duration_us,
                inputs: inputs.clone(),
                exact: exact.clone(),
                detail,
                seeds: self.snapshot.seeds(self.test_seed),
            };
            crate::outcomes::add(&t);
            if t.outcome.is_failure() {
                if let Some(hook) = crate::outcomes::failure_hook() {
                    let _ = catch_unwind(AssertUnwindSafe(|| hook(&t)));
                }
            }
            crate::checking::found(t);
        }
        resume_unwind(Box::new(RunEnded))
    }

    /// One test, from the state the call saw; the caller's own stream is put back after.
    fn test(
        &self,
        index: usize,
        tests: &mut dyn FnMut(&mut TestCtx),
    ) -> (Outcome, Option<String>, u64) {
        if self.site.meta.tests[index].1 == TestKind::InVivo {
            // It would act on the live receiver and arguments themselves.
            return (Outcome::Skipped, Some(IN_VIVO_HERE.to_string()), 0);
        }
        let callers = Snapshot::take();
        self.snapshot.restore();
        rng::set_transform_seed(rng::mix(self.test_seed, index as u64));
        let mut ctx = TestCtx::new(
            index,
            self.snapshot,
            self.site.tolerance(),
            self.site.meta.self_check,
        );
        let started = Instant::now();
        let result = {
            let _here = crate::role::test_here();
            catch_unwind(AssertUnwindSafe(|| tests(&mut ctx)))
        };
        let duration_us = started.elapsed().as_micros() as u64;
        callers.restore();
        let (outcome, detail) = match result {
            Ok(()) => ctx.take_verdict().unwrap_or((
                Outcome::Error,
                Some("the test ended without a verdict".to_string()),
            )),
            Err(payload) => (Outcome::Error, Some(panic_text(payload.as_ref()))),
        };
        (outcome, detail, duration_us)
    }
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    let text = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a non-string payload");
    format!("panicked: {text}")
}

/// Runs a checked call's tests on the calling thread. A call that is not a check's is never
/// admitted here (the runtime stays off), and is refused if it is.
pub(crate) fn run_here(permit: Permit, tests: impl FnOnce(ChildRun), run: u64, test_seed: u64) {
    if !permit.checked {
        return permit.refuse(
            crate::budget::SkipReason::ForkFailed,
            "runs cannot be forked on this platform",
        );
    }
    let child = ChildRun {
        site: permit.site,
        snapshot: Snapshot::take(),
        test_seed,
        time: record::now(),
        run,
    };
    let ended = catch_unwind(AssertUnwindSafe(|| tests(child)));
    permit.rt.budget.settle(permit.provisional_ns, 0);
    permit.rt.budget.release();
    match ended {
        Ok(()) => {}
        Err(payload) if payload.is::<RunEnded>() => {}
        Err(payload) => resume_unwind(payload),
    }
}

/// Pure sites' worker, where there is none: every call forks (here, runs in a check) instead.
pub mod worker {
    use crate::site::Sampled;

    /// See the Linux worker's `Runner`.
    pub type Runner = fn(&mut &[u8], WorkerRun<'_>);

    /// Never made here.
    pub struct WorkerRun<'a> {
        never: std::convert::Infallible,
        _life: std::marker::PhantomData<&'a ()>,
    }

    impl WorkerRun<'_> {
        pub fn garbled(self) {
            match self.never {}
        }
        pub fn with_purity<'b>(
            self,
            _check: &'b mut dyn FnMut(&mut super::TestCtx) -> Option<String>,
        ) -> WorkerRun<'b> {
            match self.never {}
        }
        pub fn run(
            self,
            _inputs: Vec<(&'static str, String)>,
            _tests: &mut dyn FnMut(&mut super::TestCtx),
        ) {
            match self.never {}
        }
    }

    /// Never made here.
    pub struct Queued {
        never: std::convert::Infallible,
    }

    impl Queued {
        pub fn send(self, _result: impl FnOnce(&mut Vec<u8>)) {
            match self.never {}
        }
    }

    /// Gives every call back to be forked.
    pub fn queue(
        sampled: Sampled,
        _runner: Runner,
        _untravelled: Option<crate::travel::Untravelled>,
        _args: impl FnOnce(&mut Vec<u8>),
    ) -> Result<Option<Queued>, Sampled> {
        Err(sampled)
    }
}
