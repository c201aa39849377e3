//! What generated test code sees while it runs one test: which test, the replayable stream,
//! the tolerance, and where the verdict goes. The same on every platform; only where it runs
//! differs (a forked test process on Linux, the calling thread elsewhere).

use std::cell::{Cell, RefCell};

use crate::record::Outcome;
use crate::rng::Snapshot;

/// What the generated test code sees inside a test process.
pub struct TestCtx {
    index: usize,
    snapshot: Snapshot,
    tolerance: f64,
    self_check: bool,
    verdict: RefCell<Option<(Outcome, Option<String>)>>,
    taken: super::Taker,
    /// For a statistical relation: the next independent stream to give an execution.
    next_stream: Cell<Option<u64>>,
    /// The verdict's detail is a discovery observation: data, kept whole (its own cap is
    /// checked where it is made), not a message to shorten.
    observation: Cell<bool>,
}

impl TestCtx {
    pub(crate) fn new(index: usize, snapshot: Snapshot, tolerance: f64, self_check: bool) -> Self {
        TestCtx {
            index,
            snapshot,
            tolerance,
            self_check,
            verdict: RefCell::new(None),
            taken: super::Taker::default(),
            next_stream: Cell::new(None),
            observation: Cell::new(false),
        }
    }

    /// Whether the verdict's detail is an observation, to be kept whole.
    pub(crate) fn holds_observation(&self) -> bool {
        self.observation.get()
    }

    /// The verdict the test set, taken once it has ended.
    pub(crate) fn take_verdict(&self) -> Option<(Outcome, Option<String>)> {
        self.verdict.take()
    }

    /// Which of the site's tests this process runs.
    pub fn index(&self) -> usize {
        self.index
    }

    /// Rewinds the replayable stream to where the call started; before every execution. Once
    /// [`independent_streams`](Self::independent_streams) is called, gives each execution a
    /// stream of its own instead.
    pub fn replay(&self) {
        match self.next_stream.get() {
            None => self.snapshot.restore(),
            Some(k) => {
                self.snapshot.restore_independent(k);
                self.next_stream.set(Some(k + 1));
            }
        }
    }

    /// From now on, every execution draws from its own stream, independent of the others and
    /// of the call's, and still repeatable from the logged seeds: the runs of a statistical
    /// relation are samples, not replays.
    pub fn independent_streams(&self) {
        self.next_stream.set(Some(0));
    }

    pub fn tolerance(&self) -> f64 {
        self.tolerance
    }

    /// Whether the source run is repeated to detect nondeterminism.
    pub fn self_check(&self) -> bool {
        self.self_check
    }

    pub fn set(&self, outcome: Outcome, detail: Option<String>) {
        *self.verdict.borrow_mut() = Some((outcome, detail));
    }

    /// Sets the verdict of a discovery entry, whose detail is the observation: the record a
    /// relation is proposed from, which a message's bound would cut and so lose.
    #[cfg(feature = "discover")]
    pub(crate) fn set_observation(&self, outcome: Outcome, detail: String) {
        self.observation.set(outcome == Outcome::Pass);
        self.set(outcome, Some(detail));
    }

    /// A bitwise copy of a by-value receiver for an In Vivo test. Sound because this process
    /// runs one test and leaves with `_exit`: the original is never used or dropped again.
    /// A second call in the same process panics rather than create a second owner.
    pub fn take<T>(&self, value: &T) -> T {
        self.taken.take(value)
    }
}
