//! Fair turns between sites for the concurrency slots.
//!
//! A call cannot wait for a slot: its state is gone once it returns. So when the slots are full,
//! whichever site happens to be sampled just after a run ends takes the slot, and busy sites
//! starve quiet ones. Instead, a site refused for want of a slot joins a queue, and each slot
//! that frees up is held for the site that has waited longest, for a window of about four of
//! that site's sampling intervals. Other sites may take only slots that nobody holds. A holder
//! that does not come back within its window loses the turn, so a site that stopped calling
//! never blocks the others.
//!
//! Times are nanoseconds from any fixed origin, passed in by the caller.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// A site, as the turns know it: any value unique to it (its address).
pub type SiteKey = usize;

#[derive(Debug, Default)]
pub struct Turns {
    state: Mutex<State>,
    /// Whether anyone waits or holds a turn: while not, admission never takes the lock.
    contended: AtomicBool,
}

#[derive(Debug, Default)]
struct State {
    /// Sites refused for want of a slot, in the order they were first refused.
    waiting: Vec<Waiter>,
    /// Free slots held for a site until a time.
    held: Vec<Hold>,
}

#[derive(Debug, Clone, Copy)]
struct Waiter {
    site: SiteKey,
    window_ns: u64,
}

#[derive(Debug, Clone, Copy)]
struct Hold {
    site: SiteKey,
    until_ns: u64,
}

impl Turns {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn settle(&self, state: &State) {
        let contended = !state.waiting.is_empty() || !state.held.is_empty();
        self.contended.store(contended, Ordering::Release);
    }

    /// Whether `site` may take one of `free` free slots now. It may take a slot held for it, or
    /// a free slot that nobody holds; otherwise it joins the queue.
    pub fn may_take(&self, site: SiteKey, free: u64, now_ns: u64, window_ns: u64) -> bool {
        if !self.contended.load(Ordering::Acquire) {
            return free > 0;
        }
        let mut state = self.lock();
        state.held.retain(|h| h.until_ns >= now_ns);
        let allowed = if let Some(i) = state.held.iter().position(|h| h.site == site) {
            state.held.swap_remove(i);
            true
        } else {
            free > state.held.len() as u64
        };
        if allowed {
            state.waiting.retain(|w| w.site != site);
        } else {
            queue(&mut state, site, window_ns);
        }
        self.settle(&state);
        allowed
    }

    /// `site` was refused because every slot was taken: it waits for its turn.
    pub fn refused(&self, site: SiteKey, window_ns: u64) {
        let mut state = self.lock();
        queue(&mut state, site, window_ns);
        self.settle(&state);
    }

    /// A slot was freed: the site that has waited longest holds it for its window.
    pub fn freed(&self, now_ns: u64) {
        if !self.contended.load(Ordering::Acquire) {
            return;
        }
        let mut state = self.lock();
        state.held.retain(|h| h.until_ns >= now_ns);
        if !state.waiting.is_empty() {
            let next = state.waiting.remove(0);
            state.held.push(Hold {
                site: next.site,
                until_ns: now_ns.saturating_add(next.window_ns),
            });
        }
        self.settle(&state);
    }
}

/// Puts `site` at the end of the queue unless it is in it already (its place is kept).
fn queue(state: &mut State, site: SiteKey, window_ns: u64) {
    if let Some(w) = state.waiting.iter_mut().find(|w| w.site == site) {
        w.window_ns = window_ns;
    } else {
        state.waiting.push(Waiter { site, window_ns });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn without_contention_any_site_takes_a_free_slot_and_none_takes_a_full_one() {
        let t = Turns::default();
        assert!(t.may_take(1, 1, 0, MS));
        assert!(!t.may_take(1, 0, 0, MS));
        t.freed(0);
        assert!(
            t.may_take(2, 1, 0, MS),
            "a freed slot nobody waited for is open"
        );
    }

    #[test]
    fn a_freed_slot_is_held_for_the_longest_waiting_site() {
        let t = Turns::default();
        t.refused(7, 10 * MS);
        t.refused(8, 10 * MS);
        t.refused(7, 10 * MS); // keeps its place
        t.freed(100 * MS);
        assert!(
            !t.may_take(9, 1, 101 * MS, MS),
            "a busy site yields the held slot"
        );
        assert!(
            !t.may_take(8, 1, 101 * MS, MS),
            "the second in line waits too"
        );
        assert!(t.may_take(7, 1, 102 * MS, MS), "the first in line takes it");
        t.freed(103 * MS);
        assert!(!t.may_take(9, 1, 104 * MS, MS));
        assert!(t.may_take(8, 1, 104 * MS, MS), "then the second");
        t.freed(105 * MS);
        assert!(
            t.may_take(9, 1, 106 * MS, MS),
            "and the busy site, which queued meanwhile"
        );
        t.freed(107 * MS);
        assert!(t.may_take(1, 1, 108 * MS, MS), "nobody waits any more");
    }

    #[test]
    fn a_hold_lapses_after_its_window_so_a_silent_site_blocks_nobody() {
        let t = Turns::default();
        t.refused(7, 5 * MS);
        t.freed(10 * MS);
        assert!(
            !t.may_take(8, 1, 15 * MS, MS),
            "within the window (its last instant)"
        );
        assert!(t.may_take(8, 1, 15 * MS + 1, MS), "after it");
    }

    #[test]
    fn holds_take_only_as_many_free_slots_as_they_hold() {
        let t = Turns::default();
        t.refused(7, 10 * MS);
        t.freed(0);
        // Two free slots, one held for site 7: another site may take the other.
        assert!(t.may_take(8, 2, MS, MS));
        assert!(!t.may_take(9, 1, MS, MS));
        assert!(t.may_take(7, 1, MS, MS));
    }

    #[test]
    fn holds_last_while_more_slots_free_up() {
        let t = Turns::default();
        t.refused(7, 10 * MS);
        t.refused(8, 10 * MS);
        t.freed(0);
        t.freed(MS);
        assert!(!t.may_take(9, 2, 2 * MS, MS), "both free slots are held");
        assert!(t.may_take(7, 2, 2 * MS, MS));
        assert!(t.may_take(8, 1, 2 * MS, MS));
    }

    #[test]
    fn a_slot_freed_with_nobody_waiting_holds_nothing() {
        let t = Turns::default();
        t.refused(7, 10 * MS);
        assert!(
            t.may_take(7, 1, 0, MS),
            "the waiter itself takes a free slot"
        );
        t.freed(MS);
        assert!(
            t.may_take(8, 1, MS, MS),
            "its wait ended when it was admitted"
        );
        assert!(!t.contended.load(Ordering::Acquire));
    }

    #[test]
    fn the_window_of_a_waiter_is_its_latest() {
        let t = Turns::default();
        t.refused(7, MS);
        t.refused(7, 50 * MS);
        t.freed(0);
        assert!(
            !t.may_take(8, 1, 40 * MS, MS),
            "held for the latest window, 50 ms"
        );
    }
}
