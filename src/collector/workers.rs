//! Following the worker of pure sites (see `sandbox::worker`): forking it when calls wait,
//! recording the tests it reports as a forked run's are recorded, moving a site whose calls
//! it cannot reproduce back to forking, and at exit draining it within `drain_ms`.

use std::collections::{BTreeMap, HashMap};
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::time::{Duration, Instant};

use super::records::{test_record, About};
use super::State;
use crate::diag::{self, Level};
use crate::record::{Outcome, Seeds};
use crate::sandbox::wire::{Call, Frame, FrameReader};
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
    /// Calls announced and not ended, by run number.
    calls: HashMap<u64, WorkerCall>,
    /// Killed at exit, after `drain_ms`.
    killed_at_exit: bool,
}

/// A call the worker tests.
struct WorkerCall {
    site: &'static Site,
    time: String,
    seeds: Seeds,
    parent_ns: u64,
    inputs: BTreeMap<String, String>,
    /// Tests reported, or not this instance's to run.
    reported: Vec<bool>,
    next: u64,
}

impl WorkerCall {
    fn about(&self, run: u64) -> About<'_> {
        About {
            site: self.site,
            run,
            time: &self.time,
            seeds: &self.seeds,
            parent_ns: self.parent_ns,
            inputs: &self.inputs,
        }
    }
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
            pool.ring.tail() > pool.ring.progress().done.load(Acquire)
                || self.live.as_ref().is_some_and(|w| !w.calls.is_empty())
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
        let Some(w) = &self.workers.live else { return };
        if let Some(exit) = w.exit {
            self.worker_ended(pool, exit);
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
                    calls: HashMap::new(),
                    killed_at_exit: false,
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
            match frame {
                Frame::Call(call) => self.worker_call(*call),
                Frame::CallInputs { run, inputs } => {
                    if let Some(c) = w.calls.get_mut(&run) {
                        c.inputs = inputs;
                    }
                }
                Frame::CallTest {
                    run,
                    index,
                    outcome,
                    duration_us,
                    detail,
                } => {
                    let Some(c) = w.calls.get_mut(&run) else {
                        continue;
                    };
                    if index >= c.reported.len() || c.reported[index] {
                        continue;
                    }
                    c.reported[index] = true;
                    let record = test_record(
                        &c.about(run),
                        &self.instance,
                        index,
                        outcome,
                        duration_us,
                        detail,
                    );
                    let site = c.site;
                    self.emit(site, record);
                }
                Frame::CallImpure { run } => {
                    if let Some(c) = w.calls.get(&run) {
                        impure(c.site);
                    }
                }
                Frame::CallEnd { run, cpu_ns } => {
                    let call = w.calls.remove(&run);
                    self.charge_cpu(cpu_ns);
                    if let Some(c) = call {
                        self.unreported(run, &c, Outcome::Error, || {
                            "the worker ended the call without reporting the test".to_string()
                        });
                        settle(1);
                    }
                }
                _ => {}
            }
        }
    }

    /// A call the worker announced: followed if it names a registered site.
    fn worker_call(&mut self, call: Call) {
        let Some(site) = worker::site_at(call.site) else {
            return;
        };
        let Some(w) = &mut self.workers.live else {
            return;
        };
        if w.calls.contains_key(&call.run) {
            return;
        }
        let time = std::time::UNIX_EPOCH + Duration::from_nanos(call.time_ns);
        let reported = (0..site.meta.tests.len())
            .map(|i| !site::runs_test(call.tests, i))
            .collect();
        w.calls.insert(
            call.run,
            WorkerCall {
                site,
                time: humantime::format_rfc3339_micros(time).to_string(),
                seeds: call.seeds,
                parent_ns: call.parent_ns,
                inputs: BTreeMap::new(),
                reported,
                next: call.next,
            },
        );
        self.note_announced(site);
    }

    /// Records the tests of `c` that did not report, with `detail`.
    fn unreported(
        &mut self,
        run: u64,
        c: &WorkerCall,
        outcome: Outcome,
        detail: impl Fn() -> String,
    ) {
        for (index, done) in c.reported.iter().enumerate() {
            if *done {
                continue;
            }
            let record = test_record(
                &c.about(run),
                &self.instance,
                index,
                outcome,
                0,
                Some(detail()),
            );
            self.emit(c.site, record);
        }
    }

    /// The supervisor is gone (killed from outside, or at exit): its calls under way lose
    /// their remaining tests, and the next worker takes up after them.
    fn worker_ended(&mut self, pool: &'static Pool, exit: Exit) {
        let Some(w) = self.workers.live.take() else {
            return;
        };
        pool.set_alive(false);
        let at_exit = w.killed_at_exit;
        let mut after = pool.ring.progress().done.load(Acquire);
        let drain_ms = self.config.drain_ms;
        settle(w.calls.len() as u64);
        for (run, c) in w.calls {
            after = after.max(c.next);
            if at_exit {
                self.unreported(run, &c, Outcome::Timeout, || {
                    format!(
                        "still running in the worker when the program exited; killed after \
                         drain_ms = {drain_ms}"
                    )
                });
            } else {
                self.unreported(run, &c, Outcome::Error, || {
                    format!(
                        "the worker of pure sites {} before this test reported",
                        exit.describe()
                    )
                });
            }
        }
        pool.ring.progress().done.store(after, Release);
    }

    /// At exit, after `drain_ms`: stops the worker, and counts the calls it never reached.
    pub(super) fn stop_worker(&mut self) {
        let Some(pool) = worker::pool() else {
            return;
        };
        if let Some(w) = &mut self.workers.live {
            if w.exit.is_none() {
                w.follow.kill(w.pid);
                w.killed_at_exit = true;
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
        if let Some(exit) = self.workers.live.as_ref().and_then(|w| w.exit) {
            self.worker_ended(pool, exit);
        }
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
