//! What this process is to invite: the instrumented program, one of its test processes, or a
//! process the program forked itself. Every layer asks, so the answer lives at the bottom.

use std::sync::atomic::{AtomicBool, Ordering};

/// True in a test child and its test processes: all instrumentation is off there.
static IN_CHILD: AtomicBool = AtomicBool::new(false);
/// Set in every child of a `fork` of this process (by a `pthread_atfork` handler): the
/// collector does not follow a fork, so such a process must not start runs.
static FORKED: AtomicBool = AtomicBool::new(false);

/// Whether this process is a test's child (instrumentation is off inside it).
pub fn in_child() -> bool {
    IN_CHILD.load(Ordering::Relaxed)
}

thread_local! {
    /// Where runs cannot be forked, a check runs its tests on the calling thread: while one
    /// runs, this thread is a test, and a call of an instrumented function runs its body alone.
    static TESTING_HERE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether this thread is running a test in process (see [`testing_here`]).
pub(crate) fn testing_here() -> bool {
    TESTING_HERE.with(std::cell::Cell::get)
}

/// Marks this thread as running a test in process until the guard is dropped.
#[cfg_attr(invite_linux, allow(dead_code))]
pub(crate) fn test_here() -> TestingHere {
    TESTING_HERE.with(|t| t.set(true));
    TestingHere(())
}

/// While alive, this thread runs a test in process.
#[cfg_attr(invite_linux, allow(dead_code))]
pub(crate) struct TestingHere(());

impl Drop for TestingHere {
    fn drop(&mut self) {
        TESTING_HERE.with(|t| t.set(false));
    }
}

/// Marks this process as a test's child: called first thing in every run.
pub(crate) fn enter_child() {
    IN_CHILD.store(true, Ordering::Relaxed);
}

/// Run in the child of every `fork` of this process once the runtime has started.
pub(crate) extern "C" fn mark_forked() {
    FORKED.store(true, Ordering::Relaxed);
}

/// False in a process forked from the instrumented one by the host: its collector did not
/// follow, so it must not start runs.
pub(crate) fn owns_this_process() -> bool {
    !FORKED.load(Ordering::Relaxed)
}
