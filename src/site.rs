//! Call sites and the sampling fast path.
//!
//! Every instrumented function owns one `static Site` and one thread-local [`SiteLocal`]. The
//! unsampled call costs one relaxed load of `Site::armed` (0 when the site can never sample) and,
//! for a site with ρ > 0, one decrement of a thread-local countdown. The countdown holds a skip
//! count drawn from the geometric distribution of ρ, as sampling allocators do, so only the
//! sampled call reaches the cold path, where configuration, caps and counters live.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::thread::LocalKey;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::budget::SkipReason;
use crate::record::SkipCounts;
use crate::runtime::{self, Runtime};

/// What kind of test one entry of a site is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TestKind {
    /// A metamorphic relation written in the attribute.
    Relation,
    /// A hand-written metamorphic test (`test = path` in `#[metamorphic]`).
    Metamorphic,
    /// An In Vivo test (`test = path` in `#[in_vivo]`).
    InVivo,
}

/// What the attribute macro knows about a site at compile time.
#[derive(Debug)]
pub struct SiteMeta {
    pub name: &'static str,
    pub file: &'static str,
    pub line: u32,
    pub tests: &'static [(&'static str, TestKind)],
    /// Attribute options; `invite.toml` overrides each.
    pub rho: Option<f64>,
    pub tolerance: Option<f64>,
    pub timeout_ms: Option<u64>,
    pub self_check: bool,
}

/// `armed` before start-up: take the slow path once, which initialises the runtime.
const UNINIT: u64 = u64::MAX;

/// One instrumented function.
pub struct Site {
    pub meta: SiteMeta,
    /// 0: never sample. Anything else: consult the thread's countdown.
    armed: AtomicU64,
    /// Effective settings, set at start-up: ρ and tolerance as `f64` bits, deadline in ms.
    rho_bits: AtomicU64,
    tolerance_bits: AtomicU64,
    timeout_ms: AtomicU64,
    /// Counters, written only on the sampled path and read by the collector.
    pub(crate) calls: AtomicU64,
    pub(crate) sampled: AtomicU64,
    pub(crate) runs: AtomicU64,
    pub(crate) parent_ns: AtomicU64,
    skip_concurrency: AtomicU64,
    skip_overhead: AtomicU64,
    skip_disabled: AtomicU64,
    skip_fork: AtomicU64,
}

/// A site's per-thread sampling state.
pub struct SiteLocal {
    /// Calls left until the sampled one, counting the next call; 0 means not drawn yet.
    countdown: Cell<u64>,
    /// Length of the current interval, added to `calls` when it ends.
    interval: Cell<u64>,
    /// Halvings of ρ after refused runs (see [`Site::countdown_expired`]).
    backoff: Cell<u32>,
}

impl SiteLocal {
    #[allow(clippy::new_without_default)]
    pub const fn new() -> SiteLocal {
        SiteLocal {
            countdown: Cell::new(0),
            interval: Cell::new(0),
            backoff: Cell::new(0),
        }
    }
}

/// Registration of every site in the binary, collected before `main`.
pub struct SiteRef(pub &'static Site);
inventory::collect!(SiteRef);

/// Every site linked into this binary.
pub fn all() -> impl Iterator<Item = &'static Site> {
    inventory::iter::<SiteRef>.into_iter().map(|r| r.0)
}

thread_local! {
    /// The sampler's own generator, separate from the function's replayable stream.
    static SAMPLER: Cell<Option<SmallRng>> = const { Cell::new(None) };
}

/// Permission to start one run, carrying what the run needs to know about its site.
#[derive(Debug)]
pub struct Permit {
    pub site: &'static Site,
    pub rt: &'static Runtime,
    /// The overhead budget's provisional charge for this run.
    pub provisional_ns: u64,
}

impl Site {
    pub const fn new(meta: SiteMeta) -> Site {
        Site {
            meta,
            armed: AtomicU64::new(UNINIT),
            rho_bits: AtomicU64::new(0),
            tolerance_bits: AtomicU64::new(0),
            timeout_ms: AtomicU64::new(0),
            calls: AtomicU64::new(0),
            sampled: AtomicU64::new(0),
            runs: AtomicU64::new(0),
            parent_ns: AtomicU64::new(0),
            skip_concurrency: AtomicU64::new(0),
            skip_overhead: AtomicU64::new(0),
            skip_disabled: AtomicU64::new(0),
            skip_fork: AtomicU64::new(0),
        }
    }

    /// The per-call decision. Inlined into every wrapper: a load, a branch and, for sites with
    /// ρ > 0, a thread-local decrement. Everything else is out of line.
    #[inline(always)]
    pub fn sample(&'static self, local: &'static LocalKey<SiteLocal>) -> Option<Permit> {
        if self.armed.load(Relaxed) == 0 {
            return None;
        }
        let due = local.with(|l| {
            let n = l.countdown.get();
            if n > 1 {
                l.countdown.set(n - 1);
                false
            } else {
                true
            }
        });
        if due {
            self.countdown_expired(local)
        } else {
            None
        }
    }

    #[cold]
    #[inline(never)]
    fn countdown_expired(&'static self, local: &'static LocalKey<SiteLocal>) -> Option<Permit> {
        let rt = match runtime::get() {
            Some(rt) if rt.owns_this_process() => rt,
            _ => {
                // Off, or a fork of the instrumented process (its collector did not follow).
                self.armed.store(0, Relaxed);
                return None;
            }
        };
        if runtime::in_child() {
            // Instrumentation is off inside a test: never fork again from here.
            local.with(|l| l.countdown.set(u64::MAX));
            return None;
        }
        let rho = f64::from_bits(self.rho_bits.load(Relaxed));
        let sampled_now = local.with(|l| {
            let first = l.countdown.get() == 0;
            if !first {
                self.calls.fetch_add(l.interval.get(), Relaxed);
            }
            let skip = draw_interval(rho / f64::from(1u32 << l.backoff.get()));
            l.interval.set(skip);
            if first && skip > 1 {
                // This call opens the first interval; the sampled call is `skip - 1` calls on.
                l.countdown.set(skip - 1);
                false
            } else {
                l.countdown.set(skip);
                true
            }
        });
        if !sampled_now {
            return None;
        }
        self.sampled.fetch_add(1, Relaxed);
        match rt.budget.try_acquire() {
            Ok(provisional_ns) => {
                local.with(|l| l.backoff.set(0));
                Some(Permit {
                    site: self,
                    rt,
                    provisional_ns,
                })
            }
            Err(reason) => {
                self.count_skip(reason);
                // While the caps refuse runs, this thread samples this site at half the rate
                // after each refusal (up to 2^-20), back to ρ after the next admitted run: a
                // refused call then costs nothing in the common case, instead of a budget check
                // on every call of a hot ρ = 1 site. Intervals stay random (geometric).
                local.with(|l| {
                    let k = (l.backoff.get() + 1).min(20);
                    l.backoff.set(k);
                    let skip = draw_interval(rho / f64::from(1u32 << k));
                    l.interval.set(skip);
                    l.countdown.set(skip);
                });
                None
            }
        }
    }

    pub(crate) fn count_skip(&self, reason: SkipReason) {
        let c = match reason {
            SkipReason::Concurrency => &self.skip_concurrency,
            SkipReason::Overhead => &self.skip_overhead,
            SkipReason::Disabled => &self.skip_disabled,
            SkipReason::ForkFailed => &self.skip_fork,
        };
        c.fetch_add(1, Relaxed);
    }

    pub(crate) fn skips(&self) -> SkipCounts {
        SkipCounts {
            concurrency: self.skip_concurrency.load(Relaxed),
            overhead: self.skip_overhead.load(Relaxed),
            disabled: self.skip_disabled.load(Relaxed),
            fork_failed: self.skip_fork.load(Relaxed),
        }
    }

    /// Sets the effective settings and arms or disarms the site.
    pub(crate) fn configure(&self, rho: f64, tolerance: f64, timeout_ms: u64) {
        self.rho_bits.store(rho.to_bits(), Relaxed);
        self.tolerance_bits.store(tolerance.to_bits(), Relaxed);
        self.timeout_ms.store(timeout_ms, Relaxed);
        self.armed.store(u64::from(rho > 0.0), Relaxed);
    }

    pub fn tolerance(&self) -> f64 {
        f64::from_bits(self.tolerance_bits.load(Relaxed))
    }

    /// Deadline of each of this site's tests.
    pub fn timeout_ms(&self) -> u64 {
        self.timeout_ms.load(Relaxed)
    }

    /// Stops all further sampling at this site (shutdown).
    pub(crate) fn disarm(&self) {
        self.armed.store(0, Relaxed);
    }

    pub fn rho(&self) -> f64 {
        f64::from_bits(self.rho_bits.load(Relaxed))
    }
}

impl std::fmt::Debug for Site {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Site")
            .field("name", &self.meta.name)
            .finish_non_exhaustive()
    }
}

/// Calls until the next sampled one, inclusive: geometric with success probability ρ.
fn draw_interval(rho: f64) -> u64 {
    if rho >= 1.0 {
        return 1;
    }
    if rho <= 0.0 {
        return u64::MAX;
    }
    let u: f64 = SAMPLER.with(|cell| {
        let mut g = cell.take().unwrap_or_else(runtime::sampler_rng);
        let u = g.random::<f64>();
        cell.set(Some(g));
        u
    });
    // 1 - u lies in (0, 1], so the logarithm is finite.
    let skips = ((1.0 - u).ln() / (1.0 - rho).ln()).floor();
    if skips >= (u64::MAX - 1) as f64 {
        u64::MAX
    } else {
        skips as u64 + 1
    }
}

/// A generator for the sampler, seeded from `seed` and the thread's order of arrival.
pub(crate) fn seeded_sampler(seed: Option<u64>, ordinal: u64) -> SmallRng {
    match seed {
        Some(s) => SmallRng::seed_from_u64(crate::rng::mix(s ^ 0x5A4D_504C_4552, ordinal)),
        None => SmallRng::from_os_rng(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_have_the_geometric_mean_of_one_over_rho() {
        for rho in [0.5, 0.1, 0.01] {
            let n = 20_000;
            let total: u64 = (0..n).map(|_| draw_interval(rho)).sum();
            let mean = total as f64 / n as f64;
            let expected = 1.0 / rho;
            assert!(
                (mean - expected).abs() < expected * 0.1,
                "rho {rho}: mean {mean}"
            );
        }
        assert_eq!(draw_interval(1.0), 1);
        assert_eq!(draw_interval(0.0), u64::MAX);
    }
}
