//! Following the worker of pure sites (see `sandbox::worker`): forking it when calls wait,
//! recording the tests it reports as a forked run's are recorded, moving a site whose calls
//! it cannot reproduce back to forking, and at exit draining it within `drain_ms`.

use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::time::{Duration, Instant};

use super::records::{test_record, About};
use super::State;
use crate::diag::{self, Level};
use crate::record::Outcome;
use crate::sandbox::wire::{Called, Frame, FrameReader};
use crate::sandbox::worker::{self, Pool};
use crate::sandbox::{Exit, Follow};
use crate::site::{self, Site};

/// A pure site whose calls the worker failed to reproduce this many times is moved back to
/// forking: a function that reads state the program changes is not pure.
pub(super) const IMPURE_LIMIT: u64 = 3;

/// After a worker could not be forked, how long before the next try.
const RETRY: Duration = Duration::from_millis(500);

/// The worker's supervisor, as the collector follows it.
pub(super) struct LiveWorker {
    pid: libc::pid_t,
    follow: Follow,
    pipe: OwnedFd,
    reader: FrameReader,
    eof: bool,
    exit: Option<Exit>,
}

/// The collector's part in the workers: each lane's worker alive, and when a fork of it last
/// failed.
#[derive(Default)]
pub(super) struct Workers {
    live: Vec<Option<LiveWorker>>,
    failed_at: Vec<Option<Instant>>,
}

impl Workers {
    /// The descriptors to wait on.
    pub fn fds(&self) -> Vec<std::os::fd::BorrowedFd<'_>> {
        let mut fds = Vec::new();
        for w in self.live.iter().flatten() {
            if !w.eof {
                fds.push(w.pipe.as_fd());
            }
            if let Some(p) = w.follow.pidfd() {
                fds.push(p.as_fd());
            }
        }
        fds
    }

    /// Whether calls are waiting for a worker or under way in one.
    pub fn busy(&self) -> bool {
        worker::pool().is_some_and(|pool| !pool.idle() || pool.lanes.iter().any(|l| l.pending()))
    }
}

impl State {
    /// Forks a lane's worker when calls wait for it, and records what the workers report.
    pub(super) fn service_worker(&mut self) {
        let Some(pool) = worker::pool() else {
            return;
        };
        let n = pool.lanes.len();
        self.workers.live.resize_with(n, || None);
        self.workers.failed_at.resize(n, None);
        for i in 0..n {
            if self.workers.live[i].is_none()
                && pool.lanes[i].wanted()
                && self.workers.failed_at[i].is_none_or(|t| t.elapsed() >= RETRY)
            {
                self.start_worker(pool, i);
            }
            let Some(w) = &mut self.workers.live[i] else {
                continue;
            };
            if !w.eof {
                w.eof = w.reader.read_available(w.pipe.as_raw_fd());
            }
            if w.exit.is_none() {
                w.exit = w.follow.try_reap(w.pid);
                if w.exit.is_some() {
                    w.reader.read_available(w.pipe.as_raw_fd());
                }
            }
            self.take_worker_frames(i);
            if self.workers.live[i]
                .as_ref()
                .is_some_and(|w| w.exit.is_some())
            {
                self.worker_ended(pool, i);
            }
        }
    }

    fn start_worker(&mut self, pool: &'static Pool, lane: usize) {
        match worker::spawn(pool, lane) {
            Ok((pid, follow, pipe)) => {
                pool.lanes[lane].set_alive(true);
                self.workers.failed_at[lane] = None;
                self.workers.live[lane] = Some(LiveWorker {
                    pid,
                    follow,
                    pipe,
                    reader: FrameReader::default(),
                    eof: false,
                    exit: None,
                });
            }
            Err(e) => {
                self.workers.failed_at[lane] = Some(Instant::now());
                diag::say(Level::Warn, "worker", || {
                    format!(
                        "cannot fork a worker of pure sites ({e}); their calls wait in its \
                         ring, and are tried again in {} ms",
                        RETRY.as_millis()
                    )
                });
            }
        }
    }

    fn take_worker_frames(&mut self, lane: usize) {
        loop {
            let Some(Some(w)) = self.workers.live.get_mut(lane) else {
                return;
            };
            let Some(frame) = w.reader.next_frame() else {
                return;
            };
            if let Frame::Called(called) = frame {
                self.worker_called(*called);
            }
        }
    }

    /// A call the worker tested: recorded as a forked run's tests are, if it names a
    /// registered site.
    fn worker_called(&mut self, called: Called) {
        self.charge_cpu(called.cpu_ns);
        self.record_called(called);
        // Settled once its records are written and an impure call has counted: a program
        // that waits for the worker to be idle then sees the site as the call left it.
        settle(1);
    }

    fn record_called(&mut self, called: Called) {
        let Called {
            call,
            inputs,
            tests,
            impure: not_pure,
            ..
        } = called;
        let Some(site) = worker::site_at(call.site) else {
            return;
        };
        self.note_announced(site);
        let time = std::time::UNIX_EPOCH + Duration::from_nanos(call.time_ns);
        let time = humantime::format_rfc3339_micros(time).to_string();
        let about = About {
            site,
            run: call.run,
            time: &time,
            seeds: &call.seeds,
            parent_ns: call.parent_ns,
            inputs: &inputs,
        };
        let records: Vec<_> = verdicts(tests, site.meta.tests.len(), call.tests)
            .into_iter()
            .map(|(index, outcome, duration_us, detail)| {
                test_record(&about, &self.instance, index, outcome, duration_us, detail)
            })
            .collect();
        for record in records {
            self.emit(site, record);
        }
        if not_pure {
            impure(site);
        }
    }

    /// The supervisor is gone (killed from outside, or at exit): the next worker takes up
    /// where it was, the call it was on included.
    fn worker_ended(&mut self, pool: &'static Pool, lane: usize) {
        if let Some(w) = self.workers.live.get_mut(lane) {
            if w.take().is_some() {
                pool.lanes[lane].set_alive(false);
            }
        }
    }

    /// At exit, after `drain_ms`: stops the worker, and counts the calls it never reached.
    pub(super) fn stop_worker(&mut self) {
        let Some(pool) = worker::pool() else {
            return;
        };
        let mut unrun = 0;
        for i in 0..pool.lanes.len() {
            if let Some(Some(w)) = self.workers.live.get_mut(i) {
                if w.exit.is_none() {
                    w.follow.kill(w.pid);
                    while w.exit.is_none() {
                        w.exit = w.follow.try_reap(w.pid);
                        if w.exit.is_none() {
                            std::thread::sleep(Duration::from_millis(1));
                        }
                    }
                }
                w.reader.read_available(w.pipe.as_raw_fd());
            }
            self.take_worker_frames(i);
            self.worker_ended(pool, i);
            let ring = &pool.lanes[i].ring;
            let from = ring.progress().done.load(Acquire);
            unrun += worker::count_unrun(&pool.lanes[i], from);
            ring.progress().done.store(ring.tail(), Release);
        }
        settle(unrun);
        if unrun > 0 {
            let drain_ms = self.config.drain_ms;
            diag::say(Level::Warn, "worker", || {
                format!(
                    "{unrun} sampled calls of pure sites were still waiting for a worker when \
                     the program exited (drain_ms = {drain_ms}): they were not tested, and are \
                     counted as unrun in the stats records"
                )
            });
        }
    }
}

/// A test's index, outcome, duration in µs and detail, as the worker reports it.
type Verdict = (usize, Outcome, u64, Option<String>);

/// One verdict for each test the call ran, in the order reported: the first verdict of an
/// index the site has and the call ran counts, and any other (out of range, twice, a test the
/// call did not run: a garbled or forged frame) is dropped. A test the call ran with no verdict
/// is an error, as a forked run's test that never reported is.
fn verdicts(reported: Vec<Verdict>, site_tests: usize, call_tests: u64) -> Vec<Verdict> {
    let mut seen = vec![false; site_tests];
    let mut out = Vec::with_capacity(reported.len());
    for verdict in reported {
        let index = verdict.0;
        if index >= seen.len() || seen[index] || !site::runs_test(call_tests, index) {
            continue;
        }
        seen[index] = true;
        out.push(verdict);
    }
    for (index, done) in seen.iter().enumerate() {
        if !done && site::runs_test(call_tests, index) {
            out.push((
                index,
                Outcome::Error,
                0,
                Some("the worker ended the call without reporting the test".to_string()),
            ));
        }
    }
    out
}

/// Counts calls whose records are written (see `Pool::idle`).
fn settle(calls: u64) {
    if let Some(pool) = worker::pool() {
        pool.settled.fetch_add(calls, Release);
    }
}

/// One call of `site` that the worker could not reproduce; after [`IMPURE_LIMIT`], the site
/// forks its runs from then on, said once.
fn impure(site: &'static Site) {
    let seen = site.impure.fetch_add(1, Relaxed) + 1;
    if seen >= IMPURE_LIMIT && site.demote() {
        diag::say(Level::Warn, "impure", || {
            format!(
                "pure site {} gave another result on the worker's copy of its arguments than \
                 the caller's {seen} times: it reads state the program changes, so it is not \
                 pure. Its calls fork from now on (those tests were recorded as \
                 inconclusive); remove `pure` from its attribute",
                site.name()
            )
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pass(index: usize) -> Verdict {
        (index, Outcome::Pass, 7, None)
    }

    #[test]
    fn a_forged_or_garbled_frame_gets_one_verdict_per_test_the_call_ran() {
        // Three tests, the call ran 0 and 2. The frame reports an index past the site's
        // tests, 0 twice (the second a forged fail), and 1, which the call did not run.
        let reported = vec![
            pass(5),
            pass(0),
            (0, Outcome::Fail, 1, Some("forged".into())),
            pass(1),
            pass(2),
        ];
        let got = verdicts(reported, 3, 0b101);
        assert_eq!(got, vec![pass(0), pass(2)]);
    }

    #[test]
    fn a_test_the_call_ran_without_a_verdict_is_an_error() {
        let got = verdicts(vec![pass(1)], 3, 0b011);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0], pass(1));
        assert_eq!(got[1].0, 0);
        assert_eq!(got[1].1, Outcome::Error);
        assert!(got[1].3.as_deref().unwrap().contains("without reporting"));
        // Nothing reported of a call that ran nothing: nothing recorded.
        assert!(verdicts(vec![pass(0)], 2, 0).is_empty());
    }
}
