//! Hidden runs are adopted by PID 1 (or the program's nearest subreaper) and must be reaped by
//! it. Init systems and container inits do; a PID 1 that never waits (a program started as PID 1
//! of a container without an init, through a wrapper that execs into something else) would
//! keep every ended run as a zombie until the process table is full: a change the whole
//! machine sees.
//!
//! So the collector watches the first runs after they end. Once any of them is reaped by its
//! adopter, the adopter works and watching stops for good. If [`LIMIT`] of them are still
//! zombies [`GRACE`] after they ended and none was reaped, hiding is withdrawn: later runs are
//! plain forks, which the collector reaps itself (the program's SIGCHLD handler and
//! `waitpid(-1)` see them again, the lesser harm), and one message says why. Until the adopter
//! has reaped one, at most [`UNCONFIRMED`] runs are made (sampled calls beyond wait or are
//! skipped as over a cap), so that an adopter that never reaps is left that many zombies.

use std::collections::VecDeque;
use std::os::fd::OwnedFd;
use std::time::{Duration, Instant};

use crate::adopter;

/// How long an adopter may take to reap an ended run. Ordinary inits reap at once; some only
/// now and then (up to a second has been seen).
pub const GRACE: Duration = Duration::from_secs(2);
/// Ended runs still unreaped after [`GRACE`], with none reaped, that withdraw hiding.
pub const LIMIT: usize = 8;

/// What the watch learnt from one look.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Nothing yet.
    Watching,
    /// A run was reaped by its adopter: no more watching.
    Reaped,
    /// [`LIMIT`] runs stayed unreaped: hiding is withdrawn (done once).
    Unreaped,
}

/// The ended hidden runs being watched, by pidfd and time of end.
pub use crate::adopter::UNCONFIRMED;

/// The ended hidden runs being watched, by pidfd and time of end.
#[derive(Debug, Default)]
pub struct Watch {
    ended: VecDeque<(OwnedFd, Instant)>,
    unreaped: usize,
    done: bool,
}

impl Watch {
    /// Takes a run's pidfd when it has ended. A run already reaped proves its adopter (a run
    /// that was our own child, reaped by us, is not hidden, and then the proof is moot).
    pub fn ended(&mut self, pidfd: OwnedFd, now: Instant) -> Verdict {
        if self.done {
            return Verdict::Watching;
        }
        if !invite_sandbox::process::exists(&pidfd) {
            return self.confirm();
        }
        if self.ended.len() < LIMIT {
            self.ended.push_back((pidfd, now));
        }
        Verdict::Watching
    }

    fn confirm(&mut self) -> Verdict {
        self.done = true;
        self.ended.clear();
        adopter::confirm();
        Verdict::Reaped
    }

    /// Whether runs are watched and no verdict is in: the collector then looks often.
    pub fn pending(&self) -> bool {
        !self.done && !self.ended.is_empty()
    }

    /// Looks at the runs watched: any one reaped proves the adopter; those unreaped
    /// [`GRACE`] after they ended count against it.
    pub fn look(&mut self, now: Instant) -> Verdict {
        if self.done {
            return Verdict::Watching;
        }
        if self
            .ended
            .iter()
            .any(|(fd, _)| !invite_sandbox::process::exists(fd))
        {
            return self.confirm();
        }
        while let Some((_, at)) = self.ended.front() {
            if now.saturating_duration_since(*at) < GRACE {
                break;
            }
            self.ended.pop_front();
            self.unreaped += 1;
            if self.unreaped >= LIMIT {
                self.done = true;
                self.ended.clear();
                adopter::withdraw();
                return Verdict::Unreaped;
            }
        }
        Verdict::Watching
    }
}

#[cfg(test)]
// The tests fork and signal processes of their own to set up what the code must survive.
#[allow(unsafe_code)]
mod tests {
    use super::*;
    use crate::adopter::{
        held, may_hide, not_started, withdrawn, Place, CONFIRMED, HIDDEN_UNCONFIRMED, UNCONFIRMED,
        WITHDRAWN,
    };
    use std::os::fd::AsRawFd;
    use std::sync::atomic::Ordering::Relaxed;

    /// Runs `f` alone with the launch counters, from fresh ones, and puts them back after.
    fn with_fresh_counters(f: impl FnOnce()) {
        let _only = COUNTERS.lock().unwrap();
        let (confirmed, withdrawn) = (
            CONFIRMED.swap(false, Relaxed),
            WITHDRAWN.swap(false, Relaxed),
        );
        HIDDEN_UNCONFIRMED.store(0, Relaxed);
        f();
        HIDDEN_UNCONFIRMED.store(0, Relaxed);
        CONFIRMED.store(confirmed, Relaxed);
        WITHDRAWN.store(withdrawn, Relaxed);
    }

    #[test]
    fn until_confirmed_only_so_many_runs_are_hidden() {
        with_fresh_counters(until_confirmed);
    }

    fn until_confirmed() {
        assert!(!held());
        assert_eq!(
            (0..UNCONFIRMED * 2).filter(|_| may_hide()).count() as u64,
            UNCONFIRMED
        );
        assert!(held());
        // A run that was never started gives its place back.
        not_started();
        assert!(!held());
        assert!(may_hide());
        assert!(held());
        HIDDEN_UNCONFIRMED.store(0, Relaxed);
        not_started();
        assert_eq!(HIDDEN_UNCONFIRMED.load(Relaxed), 0, "never below zero");
        HIDDEN_UNCONFIRMED.store(UNCONFIRMED, Relaxed);
        CONFIRMED.store(true, Relaxed);
        assert!(may_hide(), "once confirmed, every run");
        assert!(!held());
        WITHDRAWN.store(true, Relaxed);
        assert!(!may_hide(), "withdrawn wins");
        CONFIRMED.store(false, Relaxed);
        assert!(!held(), "withdrawn: plain forks, nothing held");
    }

    #[test]
    fn only_hidden_runs_that_are_not_a_checks_take_a_place_and_give_it_back() {
        with_fresh_counters(places);
    }

    fn places() {
        HIDDEN_UNCONFIRMED.store(UNCONFIRMED - 1, Relaxed);
        let count = || HIDDEN_UNCONFIRMED.load(Relaxed);
        // Plain forks and a check's runs take nothing and give nothing back.
        for (hide, checked) in [(false, false), (false, true), (true, true)] {
            let place = Place::take(hide, checked).expect("always made");
            assert_eq!(count(), UNCONFIRMED - 1, "hide {hide}, checked {checked}");
            place.give_back();
            assert_eq!(count(), UNCONFIRMED - 1, "hide {hide}, checked {checked}");
        }
        // A hidden run takes the last place; the next finds none, but a check's still runs.
        let last = Place::take(true, false).expect("one place was free");
        assert_eq!(count(), UNCONFIRMED);
        assert!(Place::take(true, false).is_none());
        assert!(Place::take(true, true).is_some());
        // A run that never started gives its place back, and the next hidden run has it.
        last.give_back();
        assert_eq!(count(), UNCONFIRMED - 1);
        let again = Place::take(true, false).expect("given back");
        assert_eq!(count(), UNCONFIRMED);
        drop(again);
    }

    static COUNTERS: std::sync::Mutex<()> = std::sync::Mutex::new(());

    /// A child that exits at once, left unreaped, and its pidfd.
    fn zombie() -> (libc::pid_t, OwnedFd) {
        // SAFETY: the child only calls _exit.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            // SAFETY: _exit is async-signal-safe.
            unsafe { libc::_exit(0) };
        }
        let fd = crate::sandbox::pidfd_open(pid).unwrap();
        while !crate::sandbox::readable(fd.as_raw_fd()) {
            std::thread::sleep(Duration::from_millis(1));
        }
        (pid, fd)
    }

    fn reap(pid: libc::pid_t) {
        // SAFETY: `pid` is our child.
        unsafe { libc::waitpid(pid, std::ptr::null_mut(), 0) };
    }

    #[test]
    fn a_zombie_is_unreaped_until_its_parent_waits() {
        let (pid, fd) = zombie();
        assert!(invite_sandbox::process::exists(&fd));
        reap(pid);
        assert!(!invite_sandbox::process::exists(&fd));
    }

    #[test]
    fn runs_left_unreaped_past_the_grace_withdraw_hiding_and_a_reaped_one_stops_the_watch() {
        let _only = COUNTERS.lock().unwrap();
        let t0 = Instant::now();
        let zombies: Vec<_> = (0..LIMIT + 1).map(|_| zombie()).collect();
        // One run unreaped past the grace is not yet enough.
        let mut watch = Watch::default();
        assert!(!watch.pending(), "nothing watched");
        watch.ended(zombies[0].1.try_clone().unwrap(), t0);
        assert_eq!(watch.look(t0 + GRACE), Verdict::Watching);
        assert!(!withdrawn());

        let mut watch = Watch::default();
        for (_, fd) in &zombies {
            watch.ended(fd.try_clone().unwrap(), t0);
        }
        assert_eq!(watch.ended.len(), LIMIT, "no more than LIMIT are held");
        assert!(watch.pending());
        assert_eq!(
            watch.look(t0 + GRACE / 2),
            Verdict::Watching,
            "within the grace"
        );
        assert!(!WITHDRAWN.load(Relaxed));
        assert_eq!(watch.look(t0 + GRACE), Verdict::Unreaped);
        assert!(WITHDRAWN.load(Relaxed) && withdrawn());
        assert!(!may_hide());
        assert_eq!(watch.look(t0 + GRACE * 2), Verdict::Watching, "said once");
        WITHDRAWN.store(false, Relaxed);

        // One reaped among them: the adopter works, whatever the others do.
        let mut watch = Watch::default();
        for (_, fd) in &zombies[..3] {
            assert_eq!(watch.ended(fd.try_clone().unwrap(), t0), Verdict::Watching);
        }
        assert_eq!(watch.look(t0), Verdict::Watching);
        // One watched is reaped: proof at once, without waiting for the grace.
        reap(zombies[1].0);
        assert!(!CONFIRMED.load(Relaxed));
        assert_eq!(watch.look(t0), Verdict::Reaped);
        assert!(CONFIRMED.load(Relaxed) && !WITHDRAWN.load(Relaxed));
        assert!(watch.ended.is_empty() && !watch.pending());
        CONFIRMED.store(false, Relaxed);
        // A run already reaped when it ends proves the adopter too.
        let mut watch = Watch::default();
        assert_eq!(
            watch.ended(zombies[2].1.try_clone().unwrap(), t0),
            Verdict::Watching
        );
        reap(zombies[3].0);
        assert_eq!(
            watch.ended(zombies[3].1.try_clone().unwrap(), t0),
            Verdict::Reaped
        );
        assert!(CONFIRMED.load(Relaxed) && !watch.pending());
        for (pid, _) in zombies
            .iter()
            .filter(|(p, _)| ![zombies[1].0, zombies[3].0].contains(p))
        {
            reap(*pid);
        }
        // A watch that is done takes nothing more.
        let (pid, fd) = zombie();
        watch.ended(fd, t0);
        assert!(watch.ended.is_empty());
        reap(pid);
    }
}
