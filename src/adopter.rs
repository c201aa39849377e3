//! What is known of the process that adopts hidden runs (PID 1, or the program's nearest
//! subreaper), which must reap them. Until it is seen to reap one, only [`UNCONFIRMED`] runs are
//! hidden, and sampled calls beyond wait or are skipped as if a cap had refused them; once it
//! is judged never to reap, hiding is withdrawn. The collector's watch
//! (`sandbox::orphans`) gives the verdict; the sampler and the sandbox read it here.
//!
//! Also whether a run is hidden at all ([`Hiding`]): with `hide_runs = "auto"`, only while the
//! program handles children, which the sampler reads here and the collector's [`ChildWatch`]
//! keeps up to date.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

/// Runs hidden before the adopter is seen to reap one.
pub const UNCONFIRMED: u64 = 1024;

pub(crate) static WITHDRAWN: AtomicBool = AtomicBool::new(false);
pub(crate) static CONFIRMED: AtomicBool = AtomicBool::new(false);
pub(crate) static HIDDEN_UNCONFIRMED: AtomicU64 = AtomicU64::new(0);

/// Whether hiding was withdrawn because nobody reaps hidden runs.
pub fn withdrawn() -> bool {
    WITHDRAWN.load(Relaxed)
}

/// Whether [`UNCONFIRMED`] runs were hidden and the adopter has not been judged yet: then a
/// sampled call waits (or is skipped) as if a cap had refused it.
pub fn held() -> bool {
    !CONFIRMED.load(Relaxed)
        && !WITHDRAWN.load(Relaxed)
        && HIDDEN_UNCONFIRMED.load(Relaxed) >= UNCONFIRMED
}

/// Whether the next run may be hidden, counting it if so: never once hiding was withdrawn;
/// always once the adopter was seen to reap; before that, [`UNCONFIRMED`] runs.
pub(crate) fn may_hide() -> bool {
    if WITHDRAWN.load(Relaxed) {
        return false;
    }
    CONFIRMED.load(Relaxed)
        || HIDDEN_UNCONFIRMED
            .fetch_update(Relaxed, Relaxed, |n| (n < UNCONFIRMED).then_some(n + 1))
            .is_ok()
}

/// Gives back the count [`may_hide`] took for a run that was never started (its fork or pipe
/// failed): only runs that exist are waiting for their adopter's verdict.
pub(crate) fn not_started() {
    if !CONFIRMED.load(Relaxed) {
        let _ = HIDDEN_UNCONFIRMED.fetch_update(Relaxed, Relaxed, |n| n.checked_sub(1));
    }
}

/// A run's claim on one of the [`UNCONFIRMED`] places, if it holds one.
#[derive(Debug)]
#[must_use = "a place not given back for a run that never started is lost until the adopter is judged"]
pub struct Place {
    held: bool,
}

impl Place {
    /// The place a run needs, or `None` when none is free. Only a hidden run that is not a
    /// check's takes one: plain forks are reaped by the collector, and a check's runs (one at a
    /// time per thread, waited for) are always made.
    pub fn take(hide: bool, checked: bool) -> Option<Place> {
        let needed = hide && !checked;
        if needed && !may_hide() {
            return None;
        }
        Some(Place { held: needed })
    }

    /// Gives the place back: the run was never started.
    pub fn give_back(self) {
        if self.held {
            not_started();
        }
    }
}

/// The adopter was seen to reap a run: hide every run from now on.
pub(crate) fn confirm() {
    CONFIRMED.store(true, Relaxed);
}

/// The adopter left runs unreaped: hide none from now on.
pub(crate) fn withdraw() {
    WITHDRAWN.store(true, Relaxed);
}

/// How runs are made, as the runtime started (`hide_runs`, and whether the kernel has pidfds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Hiding {
    /// Plain forks (`"never"`, or no pidfds).
    Never,
    /// Every run hidden (`"always"`).
    Always,
    /// Hidden while the program handles children ([`program_handles_children`]; `"auto"`).
    WhenNeeded,
}

impl Hiding {
    /// Whether any run may be hidden.
    pub fn possible(self) -> bool {
        self != Hiding::Never
    }

    /// Whether a run started now is hidden (unless hiding was [`withdrawn`]).
    pub fn now(self) -> bool {
        match self {
            Hiding::Never => false,
            Hiding::Always => true,
            Hiding::WhenNeeded => program_handles_children(),
        }
    }
}

/// Children of the program's threads that are not known runs of invite were seen at the last
/// look ([`ChildWatch`]); true until the first look.
static UNEXPLAINED_CHILDREN: AtomicBool = AtomicBool::new(true);
/// The program was seen with a child of its own: it handles children somehow, for good.
static OWN_CHILDREN: AtomicBool = AtomicBool::new(false);

/// Whether a plain fork could reach the program's own child handling: SIGCHLD caught or
/// ignored (read now: one system call), or children of its own seen by the collector's
/// [`ChildWatch`].
pub fn program_handles_children() -> bool {
    OWN_CHILDREN.load(Relaxed) || UNEXPLAINED_CHILDREN.load(Relaxed) || !sigchld_default()
}

#[cfg(invite_linux)]
fn sigchld_default() -> bool {
    invite_sandbox::process::sigchld_default()
}

/// Where nothing is forked, nothing is hidden either (never asked).
#[cfg(not(invite_linux))]
fn sigchld_default() -> bool {
    false
}

/// Looks at the program's children from time to time, on the collector thread, for
/// [`program_handles_children`]. A child that is not a known run may be a run whose caller has
/// forked but not yet handed it over: runs are hidden while one is there, and a child still
/// there and still unknown at the next look, a second later, is the program's own, which keeps
/// runs hidden from then on (a program that made children once is likely to again, and may
/// have a thread waiting for any of them).
#[derive(Debug, Default)]
pub(crate) struct ChildWatch {
    /// The unexplained children of the last look.
    suspects: Vec<Pid>,
    last: Option<std::time::Instant>,
    /// What the looks found so far.
    pub seen: ChildrenSeen,
}

/// What [`ChildWatch`] found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ChildrenSeen {
    /// Children not known as runs at the last look, or no list of them.
    pub unexplained: bool,
    /// A child of the program's own at some look (it stays so).
    pub own: bool,
}

/// A process id, as `/proc` lists it.
type Pid = i32;

/// How often [`ChildWatch`] looks.
pub(crate) const CHILD_LOOK: std::time::Duration = std::time::Duration::from_secs(1);

impl ChildWatch {
    /// A look at start-up, before any run exists: every child is the program's own.
    pub fn first(children: Option<Vec<Pid>>) -> ChildWatch {
        let mut watch = ChildWatch::default();
        watch.look(children.clone(), |_| false);
        watch.look(children, |_| false);
        watch
    }

    /// Whether a look is due at `now`.
    pub fn due(&self, now: std::time::Instant) -> bool {
        self.last
            .is_none_or(|t| now.duration_since(t) >= CHILD_LOOK)
    }

    /// Takes in `children` (`None`: the kernel does not list them, so runs stay hidden), given
    /// which pids are runs the collector follows.
    pub fn look(
        &mut self,
        children: Option<Vec<Pid>>,
        is_run: impl Fn(Pid) -> bool,
    ) -> ChildrenSeen {
        self.last = Some(std::time::Instant::now());
        let Some(children) = children else {
            self.seen.unexplained = true;
            return self.seen;
        };
        let unexplained: Vec<_> = children.into_iter().filter(|&p| !is_run(p)).collect();
        if unexplained.iter().any(|p| self.suspects.contains(p)) {
            self.seen.own = true;
        }
        self.seen.unexplained = !unexplained.is_empty();
        self.suspects = unexplained;
        self.seen
    }

    /// Puts what was seen in force for [`program_handles_children`].
    pub fn publish(&self) {
        OWN_CHILDREN.store(self.seen.own, Relaxed);
        UNEXPLAINED_CHILDREN.store(self.seen.unexplained, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_unknown_at_two_looks_is_the_programs_own_for_good() {
        let mut w = ChildWatch::default();
        let none = ChildrenSeen::default();
        assert_eq!(w.look(Some(vec![]), |_| false), none);
        // A run not yet handed over: hidden for now, not the program's.
        let seen = w.look(Some(vec![10]), |_| false);
        assert_eq!(
            seen,
            ChildrenSeen {
                unexplained: true,
                own: false
            }
        );
        // Handed over meanwhile.
        assert_eq!(w.look(Some(vec![10]), |p| p == 10), none);
        // Another child, unknown twice: the program's own.
        w.look(Some(vec![10, 11]), |p| p == 10);
        let seen = w.look(Some(vec![11]), |_| false);
        assert_eq!(
            seen,
            ChildrenSeen {
                unexplained: true,
                own: true
            }
        );
        // Gone, and still the program handles children.
        let seen = w.look(Some(vec![]), |_| false);
        assert_eq!(
            seen,
            ChildrenSeen {
                unexplained: false,
                own: true
            }
        );
    }

    #[test]
    fn a_different_child_at_each_look_is_never_confirmed() {
        let mut w = ChildWatch::default();
        w.look(Some(vec![20]), |_| false);
        let seen = w.look(Some(vec![21]), |_| false);
        assert_eq!(
            seen,
            ChildrenSeen {
                unexplained: true,
                own: false
            }
        );
    }

    #[test]
    fn without_a_list_runs_stay_hidden() {
        let mut w = ChildWatch::default();
        assert!(w.look(None, |_| false).unexplained);
        assert!(!w.look(Some(vec![]), |_| false).unexplained);
    }

    #[test]
    fn at_start_up_every_child_is_the_programs_own() {
        let w = ChildWatch::first(Some(vec![5]));
        assert_eq!(
            w.seen,
            ChildrenSeen {
                unexplained: true,
                own: true
            }
        );
        let w = ChildWatch::first(Some(vec![]));
        assert_eq!(w.seen, ChildrenSeen::default());
        assert!(ChildWatch::first(None).seen.unexplained);
    }

    #[test]
    fn looks_are_due_once_a_second() {
        let mut w = ChildWatch::default();
        let now = std::time::Instant::now();
        assert!(w.due(now));
        w.look(Some(vec![]), |_| false);
        assert!(!w.due(w.last.unwrap()));
        assert!(w.due(w.last.unwrap() + CHILD_LOOK));
    }

    #[test]
    #[cfg(invite_linux)]
    fn each_mode_hides_as_it_says_and_auto_as_the_looks_found() {
        assert!(!Hiding::Never.possible() && !Hiding::Never.now());
        assert!(Hiding::Always.possible() && Hiding::Always.now());
        assert!(Hiding::WhenNeeded.possible());
        // The only test that publishes what a watch saw (the test harness leaves SIGCHLD to
        // the default, and no other test of this binary runs hidden or plain forks by it).
        let publish = |own, unexplained| {
            let watch = ChildWatch {
                seen: ChildrenSeen { unexplained, own },
                ..ChildWatch::default()
            };
            watch.publish();
        };
        assert!(invite_sandbox::process::sigchld_default());
        for (own, unexplained) in [(true, false), (false, true), (true, true)] {
            publish(own, unexplained);
            assert!(Hiding::WhenNeeded.now(), "{own} {unexplained}");
        }
        publish(false, false);
        assert!(!Hiding::WhenNeeded.now());
    }
}
