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

/// The collector's part in the worker: the one alive, and when a fork last failed.
#[derive(Default)]
pub(super) struct Workers {
    live: Option<LiveWorker>,
    failed_at: Option<Instant>,
    /// Calls never tested because the program exited first.
    pub unrun: u64,
}

impl Workers {
    /// The descriptors to wait on.
    pub fn fds(&self) -> Vec<std::os::fd::BorrowedFd<'_>> {
        let Some(w) = &self.live else {
            return Vec::new();
        };
        let mut fds = Vec::with_capacity(2);
        if !w.eof {
            fds.push(w.pipe.as_fd());
        }
        if let Some(p) = w.follow.pidfd() {
            fds.push(p.as_fd());
        }
        fds
    }

    /// Whether calls are waiting for the worker or under way in it.
    pub fn busy(&self) -> bool {
        worker::pool().is_some_and(|pool| {
            !pool.idle() || pool.ring.tail() > pool.ring.progress().done.load(Acquire)
        })
    }
}

impl State {
    /// Forks the worker when calls wait for it, and records what it reports.
    pub(super) fn service_worker(&mut self) {
        let Some(pool) = worker::pool() else {
            return;
        };
        if self.workers.live.is_none()
            && pool.wanted()
            && self.workers.failed_at.is_none_or(|t| t.elapsed() >= RETRY)
        {
            self.start_worker(pool);
        }
        let Some(w) = &mut self.workers.live else {
            return;
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
        self.take_worker_frames();
        if self.workers.live.as_ref().is_some_and(|w| w.exit.is_some()) {
            self.worker_ended(pool);
        }
    }

    fn start_worker(&mut self, pool: &'static Pool) {
        match worker::spawn(pool) {
            Ok((pid, follow, pipe)) => {
                pool.set_alive(true);
                self.workers.failed_at = None;
                self.workers.live = Some(LiveWorker {
                    pid,
                    follow,
                    pipe,
                    reader: FrameReader::default(),
                    eof: false,
                    exit: None,
                });
            }
            Err(e) => {
                self.workers.failed_at = Some(Instant::now());
                diag::say(Level::Warn, "worker", || {
                    format!(
                        "cannot fork the worker of pure sites ({e}); their calls wait in its \
                         ring, and are tried again in {} ms",
                        RETRY.as_millis()
                    )
                });
            }
        }
    }

    fn take_worker_frames(&mut self) {
        loop {
            let Some(w) = &mut self.workers.live else {
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
        settle(1);
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
        let mut reported = vec![false; site.meta.tests.len()];
        let mut records = Vec::with_capacity(tests.len());
        for (index, outcome, duration_us, detail) in tests {
            if index >= reported.len() || reported[index] || !site::runs_test(call.tests, index) {
                continue;
            }
            reported[index] = true;
            records.push(test_record(
                &about,
                &self.instance,
                index,
                outcome,
                duration_us,
                detail,
            ));
        }
        for (index, done) in reported.iter().enumerate() {
            if !done && site::runs_test(call.tests, index) {
                records.push(test_record(
                    &about,
                    &self.instance,
                    index,
                    Outcome::Error,
                    0,
                    Some("the worker ended the call without reporting the test".to_string()),
                ));
            }
        }
        for record in records {
            self.emit(site, record);
        }
        if not_pure {
            impure(site);
        }
    }

    /// The supervisor is gone (killed from outside, or at exit): the next worker takes up
    /// where it was, the call it was on included.
    fn worker_ended(&mut self, pool: &'static Pool) {
        if self.workers.live.take().is_some() {
            pool.set_alive(false);
        }
    }

    /// At exit, after `drain_ms`: stops the worker, and counts the calls it never reached.
    pub(super) fn stop_worker(&mut self) {
        let Some(pool) = worker::pool() else {
            return;
        };
        if let Some(w) = &mut self.workers.live {
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
        self.take_worker_frames();
        self.worker_ended(pool);
        let from = pool.ring.progress().done.load(Acquire);
        let unrun = worker::count_unrun(pool, from);
        pool.ring.progress().done.store(pool.ring.tail(), Release);
        settle(unrun);
        if unrun > 0 {
            self.workers.unrun += unrun;
            let drain_ms = self.config.drain_ms;
            diag::say(Level::Warn, "worker", || {
                format!(
                    "{unrun} sampled calls of pure sites were still waiting for the worker when \
                     the program exited (drain_ms = {drain_ms}): they were not tested, and are \
                     counted as unrun in the stats records"
                )
            });
        }
    }
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
