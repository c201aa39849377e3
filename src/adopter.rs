//! What is known of the process that adopts hidden runs (PID 1, or the program's nearest
//! subreaper), which must reap them. Until it is seen to reap one, only [`UNCONFIRMED`] runs are
//! hidden, and sampled calls beyond wait or are skipped as if a cap had refused them; once it
//! is judged never to reap, hiding is withdrawn. The collector's watch
//! (`sandbox::orphans`) gives the verdict; the sampler and the sandbox read it here.

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
