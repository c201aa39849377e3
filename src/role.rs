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

/// How a test process reports a panic (the sandbox's, set once in the program).
static CHILD_PANICS: std::sync::OnceLock<fn(&std::panic::PanicHookInfo<'_>)> =
    std::sync::OnceLock::new();

thread_local! {
    /// While set, a panic on this thread is expected and says nothing (see [`quietly`]).
    static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Installs, once and in the program, the panic hook every process forked from it keeps: in a
/// test process it hands the panic to `child_panics` (the sandbox's report), elsewhere to the
/// hook it found. A test process never installs one itself: `take_hook` and `set_hook` take a
/// lock that a thread of the program may have held at the fork (one that was panicking then,
/// as tests in a `cargo test` binary do beside each other), and would wait for it forever.
#[cfg_attr(not(invite_linux), allow(dead_code))]
pub(crate) fn route_panics(child_panics: fn(&std::panic::PanicHookInfo<'_>)) {
    let _ = CHILD_PANICS.set(child_panics);
    install_hook();
}

fn install_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    if in_child() {
        return;
    }
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if QUIET.with(std::cell::Cell::get) {
                return;
            }
            match CHILD_PANICS.get() {
                Some(report) if in_child() => report(info),
                _ => previous(info),
            }
        }));
    });
}

/// Runs `f`, turning a panic into `None` without a word: a follow-up input outside the
/// function's domain is an answer ("the relation does not apply here"), not an error.
#[cfg(feature = "discover")]
pub fn quietly<R>(f: impl FnOnce() -> R) -> Option<R> {
    install_hook();
    let was = QUIET.with(|q| q.replace(true));
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).ok();
    QUIET.with(|q| q.set(was));
    out
}
