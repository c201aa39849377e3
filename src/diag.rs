//! Invite's own messages to the operator: configuration problems, refused runs, failures in
//! `notify` mode, log write errors.
//!
//! A service already has a place for such messages. With the `tracing` feature they go to the
//! program's `tracing` subscriber when it has installed one (target `invite`); else, with the
//! `log` feature, to its logger when it has installed one; else to stderr, prefixed `invite: `.
//! Every kind of message is rate-limited on its own, so that a storm of one (a failing site in
//! `notify` mode) neither floods the program's telemetry nor hides the others: a burst of
//! [`BURST`], then one every [`REFILL`]; the next message that passes says how many were held
//! back.
//!
//! Only the parent calls this (start-up and the collector thread), never a test process: a
//! subscriber there could write where the sandbox forbids it.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How serious a message is, mapped onto the facades' levels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Level {
    /// Invite is off for this run, or a test failed.
    Error,
    /// Something the operator should fix; invite goes on.
    Warn,
    /// Figures worth knowing (the caps refused most sampled calls).
    Info,
}

/// Messages of one kind that may pass at once.
pub(crate) const BURST: u32 = 10;
/// After a burst, one message of the kind passes every this long.
pub(crate) const REFILL: Duration = Duration::from_secs(6);

/// The rate limit of one kind of message: a token bucket that also counts what it held back.
#[derive(Debug)]
pub(crate) struct Limiter {
    tokens: u32,
    /// When the bucket last gained a token (or was full).
    refilled: Instant,
    held_back: u64,
}

impl Limiter {
    pub(crate) fn new(now: Instant) -> Limiter {
        Limiter {
            tokens: BURST,
            refilled: now,
            held_back: 0,
        }
    }

    /// Whether a message may pass at `now`; if so, how many of its kind were held back since
    /// the last one that passed.
    pub(crate) fn admit(&mut self, now: Instant) -> Option<u64> {
        let elapsed = now.saturating_duration_since(self.refilled);
        let gained = (elapsed.as_nanos() / REFILL.as_nanos()) as u32;
        if gained > 0 {
            self.tokens = self.tokens.saturating_add(gained).min(BURST);
            self.refilled += REFILL * gained;
        }
        if self.tokens == BURST {
            // A full bucket does not bank time towards the next token.
            self.refilled = now;
        }
        if self.tokens == 0 {
            self.held_back += 1;
            return None;
        }
        self.tokens -= 1;
        Some(std::mem::take(&mut self.held_back))
    }
}

static LIMITERS: Mutex<Vec<(&'static str, Limiter)>> = Mutex::new(Vec::new());

/// Says `message` (without the `invite: ` prefix) at `level`, unless too many of `kind` were
/// said lately. `message` is only built when the message passes.
pub(crate) fn say(level: Level, kind: &'static str, message: impl FnOnce() -> String) {
    say_if_admitted(level, kind, message);
}

/// As [`say`]; whether the message passed the rate limit (and was delivered).
pub(crate) fn say_if_admitted(
    level: Level,
    kind: &'static str,
    message: impl FnOnce() -> String,
) -> bool {
    let now = Instant::now();
    let admitted = {
        let mut limiters = LIMITERS.lock().unwrap_or_else(|p| p.into_inner());
        let i = match limiters.iter().position(|(k, _)| *k == kind) {
            Some(i) => i,
            None => {
                limiters.push((kind, Limiter::new(now)));
                limiters.len() - 1
            }
        };
        limiters[i].1.admit(now)
    };
    let Some(held_back) = admitted else {
        return false;
    };
    let mut text = message();
    if held_back > 0 {
        text.push_str(&format!(
            " ({held_back} similar message(s) held back in the meantime)"
        ));
    }
    deliver(level, &text);
    true
}

/// Hands `text` to the program's subscriber or logger, else to stderr.
fn deliver(level: Level, text: &str) {
    // A subscriber or logger that panics must not take the collector thread with it.
    let routed = std::panic::catch_unwind(|| route(level, text));
    if !matches!(routed, Ok(true)) {
        eprintln!("invite: {text}");
    }
}

/// Says, for each kind that had messages held back since its last one passed, how many: at
/// shutdown, so that a storm's size is never lost.
pub(crate) fn report_held_back() {
    let held: Vec<(&'static str, u64)> = {
        let mut limiters = LIMITERS.lock().unwrap_or_else(|p| p.into_inner());
        limiters
            .iter_mut()
            .filter(|(_, l)| l.held_back > 0)
            .map(|(k, l)| (*k, std::mem::take(&mut l.held_back)))
            .collect()
    };
    for (kind, n) in held {
        let text = format!(
            "{n} more `{kind}` message(s) were held back (each kind passes {BURST} at once, then \
             one every {} s)",
            REFILL.as_secs()
        );
        deliver(Level::Warn, &text);
    }
}

/// Hands `text` to the program's `tracing` subscriber or logger, if it has one; `false` when it
/// has neither (or the features are off), and stderr should have it.
#[allow(unused_variables)]
fn route(level: Level, text: &str) -> bool {
    #[cfg(feature = "tracing")]
    if tracing_installed() {
        match level {
            Level::Error => tracing::error!(target: "invite", "{text}"),
            Level::Warn => tracing::warn!(target: "invite", "{text}"),
            Level::Info => tracing::info!(target: "invite", "{text}"),
        }
        return true;
    }
    #[cfg(feature = "log")]
    if log::max_level() != log::LevelFilter::Off {
        let level = match level {
            Level::Error => log::Level::Error,
            Level::Warn => log::Level::Warn,
            Level::Info => log::Level::Info,
        };
        log::log!(target: "invite", level, "{text}");
        return true;
    }
    false
}

/// Whether the program has set a global `tracing` subscriber (the collector thread sees no
/// thread-local one).
#[cfg(feature = "tracing")]
pub(crate) fn tracing_installed() -> bool {
    tracing::dispatcher::get_default(|d| !d.is::<tracing::subscriber::NoSubscriber>())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_passes_then_one_per_refill_and_the_next_says_how_many_were_held_back() {
        let t0 = Instant::now();
        let mut l = Limiter::new(t0);
        for _ in 0..BURST {
            assert_eq!(l.admit(t0), Some(0));
        }
        assert_eq!(l.admit(t0), None);
        assert_eq!(l.admit(t0 + REFILL / 2), None);
        // One token back after a refill period: it passes and reports the two held back.
        assert_eq!(l.admit(t0 + REFILL), Some(2));
        assert_eq!(l.admit(t0 + REFILL), None);
        // Three periods later, three pass.
        let t1 = t0 + REFILL * 4;
        assert_eq!(l.admit(t1), Some(1));
        assert_eq!(l.admit(t1), Some(0));
        assert_eq!(l.admit(t1), Some(0));
        assert_eq!(l.admit(t1), None);
    }

    #[test]
    fn a_long_quiet_spell_refills_no_more_than_the_burst() {
        let t0 = Instant::now();
        let mut l = Limiter::new(t0);
        let later = t0 + REFILL * 1000;
        for _ in 0..BURST {
            assert!(l.admit(later).is_some());
        }
        assert_eq!(l.admit(later), None);
    }

    #[test]
    fn a_full_bucket_banks_no_time() {
        // Idle with a full bucket, then a burst: the next token comes a whole period after the
        // burst began, not at once because of the idle time.
        let t0 = Instant::now();
        let mut l = Limiter::new(t0);
        let t1 = t0 + REFILL * 3 + REFILL / 2;
        for _ in 0..BURST {
            assert!(l.admit(t1).is_some());
        }
        assert_eq!(l.admit(t1 + REFILL / 2), None);
        assert_eq!(l.admit(t1 + REFILL), Some(1));
    }

    #[test]
    fn kinds_are_limited_apart() {
        for _ in 0..BURST + 5 {
            say(Level::Info, "test kind a", || "a".into());
        }
        let mut built = false;
        say(Level::Info, "test kind b", || {
            built = true;
            "b".into()
        });
        assert!(built, "another kind's storm held back a first message");
        let mut built_a = false;
        say(Level::Info, "test kind a", || {
            built_a = true;
            "a".into()
        });
        assert!(!built_a, "a kind past its burst built its message");
    }
}
