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
