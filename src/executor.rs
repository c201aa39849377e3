//! A minimal executor for the futures of an `async fn`'s tests, run inside a test process.
//!
//! A test process is a copy of one thread of the program: the async runtime's other threads,
//! its reactor and its timers did not follow, so nothing in it will ever wake a future that
//! waits on I/O or on time. The executor polls a future on the calling thread; when a poll
//! returns `Pending` without having woken itself, it waits for a wake only while someone holds
//! the waker (a thread the test started, say), and for [`STALL_GRACE`] at most. A future that
//! is still waiting then ends its test with an error that says why, rather than running into the
//! test's deadline as if the function itself had hung.
//!
//! A yield is not a wait. A runtime's `yield_now` hands the waker to its scheduler to wake
//! after the other tasks have run, and returns `Pending`; in a test process that scheduler
//! never runs again, so the wake never comes. A poll that took a new copy of the waker and
//! woke nobody is such a hand-over (a wait registers its waker once, and a second poll of it
//! takes no new copy): the future is polled again at once.

use std::future::Future;
use std::pin::pin;
use std::sync::{Arc, Condvar, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::time::{Duration, Instant};

/// How long a pending future whose waker is held elsewhere may take to be woken.
pub const STALL_GRACE: Duration = Duration::from_millis(250);

/// The message of a test whose future waited on something no one in its process will do.
pub const STALLED: &str = "the test's future waited for something that only an async runtime \
    completes (a timer, a socket, a task of the runtime): a test process has no runtime, only \
    a minimal executor on its one thread. Test a function that computes without awaiting I/O \
    or time, or check this one with an In Vivo test that does not await it";

/// Set by a wake; waited on between polls.
#[derive(Default)]
struct Signal {
    woken: Mutex<bool>,
    ready: Condvar,
}

impl Wake for Signal {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        // A poisoned lock only means a waker panicked mid-wake; the flag is still usable.
        let mut woken = self.woken.lock().unwrap_or_else(|e| e.into_inner());
        *woken = true;
        self.ready.notify_all();
    }
}

/// Drives `future` to completion on this thread. Panics with the `STALLED` message when it
/// waits for a wake that does not come (see the module's header).
pub fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let signal = Arc::new(Signal::default());
    let waker = Waker::from(Arc::clone(&signal));
    let mut cx = Context::from_waker(&waker);
    loop {
        let held = Arc::strong_count(&signal);
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        if Arc::strong_count(&signal) > held {
            // A new copy of the waker went somewhere: a yield to a scheduler not here.
            continue;
        }
        if !wait_for_wake(&signal, STALL_GRACE) {
            panic!("{STALLED}");
        }
    }
}

/// Waits for the wake that follows a `Pending`; false when none can come (at once) or none came
/// within `grace`.
fn wait_for_wake(signal: &Arc<Signal>, grace: Duration) -> bool {
    let deadline = Instant::now() + grace;
    let mut woken = signal.woken.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        if std::mem::take(&mut *woken) {
            return true;
        }
        // Ours, the waker's and the context's: no copy of the waker is held anywhere else, so
        // nothing can wake the future.
        if Arc::strong_count(signal) <= 2 {
            return false;
        }
        let now = Instant::now();
        if now >= deadline {
            return false;
        }
        woken = signal
            .ready
            .wait_timeout(woken, deadline - now)
            .unwrap_or_else(|e| e.into_inner())
            .0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::task::Poll;

    /// Pending `n` times, waking itself each time, then ready with the number of polls.
    struct YieldsThenReady {
        left: u32,
        polls: u32,
    }

    impl Future for YieldsThenReady {
        type Output = u32;
        fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u32> {
            self.polls += 1;
            if self.left == 0 {
                return Poll::Ready(self.polls);
            }
            self.left -= 1;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }

    #[test]
    fn a_future_that_wakes_itself_is_polled_again_until_ready() {
        assert_eq!(block_on(async { 7 }), 7);
        assert_eq!(block_on(YieldsThenReady { left: 3, polls: 0 }), 4);
    }

    #[test]
    fn a_future_no_one_can_wake_panics_with_the_reason_at_once() {
        let err = std::panic::catch_unwind(|| block_on(std::future::pending::<()>())).unwrap_err();
        let msg = err.downcast_ref::<String>().unwrap();
        assert!(msg.contains("only an async runtime completes"), "{msg}");
        // With no copy of the waker held elsewhere, the wait ends at once: given an hour, it
        // returns, unwoken (a wait for the grace would outlast the test's own timeout).
        let signal = Arc::new(Signal::default());
        let waker = Waker::from(Arc::clone(&signal));
        assert!(!wait_for_wake(&signal, Duration::from_secs(3600)));
        drop(waker);
    }

    /// Pending until someone else, who holds the waker, says it is done and wakes it.
    struct WaitsForAWaker {
        waker: Arc<Mutex<Option<Waker>>>,
        done: Arc<std::sync::atomic::AtomicBool>,
    }

    impl Future for WaitsForAWaker {
        type Output = ();
        fn poll(self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
            if self.done.load(std::sync::atomic::Ordering::SeqCst) {
                return Poll::Ready(());
            }
            // One copy, replaced at each poll: what a wait on a timer or a channel keeps.
            *self.waker.lock().unwrap() = Some(cx.waker().clone());
            Poll::Pending
        }
    }

    #[test]
    fn a_future_woken_by_another_thread_completes() {
        let slot = Arc::new(Mutex::new(None::<Waker>));
        let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (waker_slot, set) = (Arc::clone(&slot), Arc::clone(&done));
        let thread = std::thread::spawn(move || loop {
            if let Some(w) = waker_slot.lock().unwrap().take() {
                set.store(true, std::sync::atomic::Ordering::SeqCst);
                w.wake();
                return;
            }
            std::thread::yield_now();
        });
        block_on(WaitsForAWaker { waker: slot, done });
        thread.join().unwrap();
    }

    #[test]
    fn a_held_waker_that_never_wakes_ends_in_the_stall_message() {
        let slot = Arc::new(Mutex::new(None::<Waker>));
        let err = std::panic::catch_unwind(|| {
            block_on(WaitsForAWaker {
                waker: Arc::clone(&slot),
                done: Arc::default(),
            })
        })
        .unwrap_err();
        let msg = err.downcast_ref::<String>().unwrap();
        assert!(msg.contains("a test process has no runtime"), "{msg}");
    }

    /// Yields `left` times as a runtime's `yield_now` does: hands a copy of the waker to a
    /// scheduler (a list no one drains) and returns `Pending`.
    struct DeferredYields {
        scheduler: Arc<Mutex<Vec<Waker>>>,
        left: u32,
    }

    impl Future for DeferredYields {
        type Output = u32;
        fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u32> {
            if self.left == 0 {
                return Poll::Ready(self.scheduler.lock().unwrap().len() as u32);
            }
            self.left -= 1;
            self.scheduler.lock().unwrap().push(cx.waker().clone());
            Poll::Pending
        }
    }

    #[test]
    fn a_yield_to_a_scheduler_that_is_not_here_is_polled_again() {
        // Each yield's copy stays with the scheduler: waited for, it would end in a stall.
        let scheduler = Arc::new(Mutex::new(Vec::new()));
        let yields = block_on(DeferredYields {
            scheduler: Arc::clone(&scheduler),
            left: 1000,
        });
        assert_eq!(yields, 1000);
    }
}
