//! The line of calls waiting for the caps with `when_busy = "wait"`.
//!
//! Without a line, each slot that frees up goes to whichever waiting call happens to ask first
//! after it, so with more waiting threads than slots one call can wait out its whole limit while
//! later calls are tested, and go untested. In the line, calls are served first come, first
//! served: only the first in line asks the caps; a call that arrives while anyone waits joins
//! the end without asking. The first in line gives up only when no run has ended for a whole
//! limit, which means something is stuck: every run is killed at its deadline.

use std::sync::atomic::{AtomicU64, Ordering::AcqRel, Ordering::Acquire, Ordering::Release};
use std::time::Duration;

/// Tickets handed out and the ticket being served; waiting calls poll, pausing a little longer
/// each time (a slot frees up at the end of a run, milliseconds at best).
#[derive(Debug, Default)]
pub(crate) struct WaitLine {
    issued: AtomicU64,
    serving: AtomicU64,
}

/// The first place in line, held until dropped; the next call is served then.
#[derive(Debug)]
pub(crate) struct Turn<'a> {
    line: &'a WaitLine,
}

/// The first pause of a waiting call, and the longest.
const FIRST_PAUSE: Duration = Duration::from_micros(20);
const LONGEST_PAUSE: Duration = Duration::from_millis(2);

impl WaitLine {
    /// Whether no call waits.
    pub(crate) fn is_empty(&self) -> bool {
        self.serving.load(Acquire) == self.issued.load(Acquire)
    }

    /// Asks `ask` for room, waiting in line while `refused` says it has none: a call that
    /// finds others waiting joins them without asking, so that it cannot take the room the
    /// first of them waits for. First in line, it asks again, pausing a little longer each
    /// time, until admitted or until `runs_ended` has not moved for `limit`. Returns the last
    /// answer.
    pub(crate) fn wait<R>(
        &self,
        limit: Duration,
        runs_ended: impl Fn() -> u64,
        mut ask: impl FnMut() -> R,
        refused: impl Fn(&R) -> bool,
    ) -> R {
        if self.is_empty() {
            let first = ask();
            if !refused(&first) {
                return first;
            }
        }
        let _turn = self.wait_turn();
        let mut ended = runs_ended();
        let mut since = std::time::Instant::now();
        let mut pause = FIRST_PAUSE;
        loop {
            let answer = ask();
            if !refused(&answer) {
                return answer;
            }
            let now_ended = runs_ended();
            if now_ended != ended {
                (ended, since) = (now_ended, std::time::Instant::now());
            } else if since.elapsed() >= limit {
                return answer;
            }
            std::thread::sleep(pause);
            pause = next_pause(pause);
        }
    }

    /// Joins the end of the line and returns once first in it. Nothing here can unwind, so
    /// every ticket issued is served and released in order.
    fn wait_turn(&self) -> Turn<'_> {
        let ticket = self.issued.fetch_add(1, AcqRel);
        let mut pause = FIRST_PAUSE;
        while self.serving.load(Acquire) != ticket {
            std::thread::sleep(pause);
            pause = next_pause(pause);
        }
        Turn { line: self }
    }

    /// How many calls wait, the first included.
    #[cfg(test)]
    fn len(&self) -> u64 {
        self.issued.load(Acquire) - self.serving.load(Acquire)
    }
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        self.line.serving.fetch_add(1, Release);
    }
}

/// The pause after `pause`: twice as long, up to [`LONGEST_PAUSE`].
fn next_pause(pause: Duration) -> Duration {
    (pause * 2).min(LONGEST_PAUSE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[test]
    fn an_empty_line_serves_at_once_and_a_turn_ends_when_dropped() {
        let line = WaitLine::default();
        assert!(line.is_empty());
        let turn = line.wait_turn();
        assert!(!line.is_empty());
        assert_eq!(line.len(), 1);
        drop(turn);
        assert!(line.is_empty());
        let again = line.wait_turn();
        assert_eq!(line.len(), 1);
        drop(again);
        assert!(line.is_empty());
    }

    #[test]
    fn calls_are_served_in_the_order_they_joined() {
        let line = Arc::new(WaitLine::default());
        let served = Arc::new(Mutex::new(Vec::new()));
        // The first turn is held while the others join, one after the other.
        let first = line.wait_turn();
        let waiters: Vec<_> = (0..4u64)
            .map(|i| {
                let (in_line, served) = (Arc::clone(&line), Arc::clone(&served));
                let waiter = std::thread::spawn(move || {
                    let _turn = in_line.wait_turn();
                    served.lock().unwrap().push(i);
                });
                while line.len() < i + 2 {
                    std::thread::yield_now();
                }
                waiter
            })
            .collect();
        assert!(served.lock().unwrap().is_empty(), "served out of turn");
        drop(first);
        for w in waiters {
            w.join().unwrap();
        }
        assert_eq!(*served.lock().unwrap(), vec![0, 1, 2, 3]);
        assert!(line.is_empty());
    }

    const LIMIT: Duration = Duration::from_millis(50);

    #[test]
    fn an_empty_line_asks_once_and_stays_empty_when_admitted() {
        let line = WaitLine::default();
        let asks = std::cell::Cell::new(0);
        let answer = line.wait(
            LIMIT,
            || 0,
            || {
                asks.set(asks.get() + 1);
                asks.get()
            },
            |_| false,
        );
        assert_eq!((answer, asks.get()), (1, 1));
        assert!(line.is_empty());
    }

    #[test]
    fn the_first_in_line_asks_until_admitted() {
        let line = WaitLine::default();
        let asks = std::cell::Cell::new(0u32);
        let answer = line.wait(
            Duration::from_secs(60),
            || 0,
            || {
                asks.set(asks.get() + 1);
                asks.get()
            },
            |&n| n < 5,
        );
        assert_eq!(answer, 5);
        assert!(line.is_empty(), "the turn ends with the wait");
    }

    #[test]
    fn with_no_run_ending_the_first_in_line_gives_up_after_the_limit() {
        let line = WaitLine::default();
        let started = std::time::Instant::now();
        let asks = std::cell::Cell::new(0u32);
        let answer = line.wait(
            LIMIT,
            || 7,
            || {
                asks.set(asks.get() + 1);
                "refused"
            },
            |_| true,
        );
        assert_eq!(answer, "refused");
        assert!(started.elapsed() >= LIMIT, "gave up early");
        assert!(asks.get() > 2, "asked again while waiting: {}", asks.get());
        assert!(line.is_empty());
    }

    #[test]
    fn each_run_that_ends_starts_the_limit_again() {
        // Two hundred refusals, a run ending between each: far longer than the limit in all,
        // never the limit between two, so the wait lasts until the room is there.
        let line = WaitLine::default();
        let asks = std::cell::Cell::new(0u64);
        let started = std::time::Instant::now();
        let answer = line.wait(
            LIMIT,
            || asks.get(),
            || {
                asks.set(asks.get() + 1);
                asks.get()
            },
            |&n| n < 200,
        );
        assert_eq!(answer, 200);
        assert!(started.elapsed() > LIMIT, "the waits add up past the limit");
    }

    #[test]
    fn a_call_finding_others_in_line_does_not_ask_before_its_turn() {
        let line = Arc::new(WaitLine::default());
        let asked = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let first = line.wait_turn();
        let waiter = {
            let (line, asked) = (Arc::clone(&line), Arc::clone(&asked));
            std::thread::spawn(move || {
                line.wait(LIMIT, || 0, || asked.store(true, Release), |_| false)
            })
        };
        while line.len() < 2 {
            std::thread::yield_now();
        }
        std::thread::sleep(Duration::from_millis(20));
        assert!(!asked.load(Acquire), "asked out of turn");
        drop(first);
        waiter.join().unwrap();
        assert!(asked.load(Acquire));
        assert!(line.is_empty());
    }

    #[test]
    fn pauses_double_up_to_the_longest() {
        assert_eq!(next_pause(FIRST_PAUSE), Duration::from_micros(40));
        assert_eq!(next_pause(Duration::from_millis(1)), LONGEST_PAUSE);
        assert_eq!(next_pause(Duration::from_micros(1500)), LONGEST_PAUSE);
        assert_eq!(next_pause(LONGEST_PAUSE), LONGEST_PAUSE);
    }
}
