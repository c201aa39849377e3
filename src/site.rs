//! Call sites and the sampling fast path.
//!
//! Every instrumented function owns one `static Site` and one thread-local [`SiteLocal`]. The
//! unsampled call costs one relaxed load of `Site::armed` (0 when the site can never sample) and,
//! for a site with ρ > 0, one decrement of a thread-local countdown. The countdown holds a skip
//! count drawn from the geometric distribution of ρ, as sampling allocators do, so only the
//! sampled call reaches the cold path, where configuration, caps and counters live.
//!
//! `armed` is also the site's configuration generation: a change of ρ (the adaptive rate)
//! stores a new generation, and a thread whose countdown was drawn under another generation
//! draws again at its next call, so changes take effect at once on every thread.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::thread::LocalKey;
use std::time::Duration;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::budget::{Budget, SkipReason};
use crate::config::{Config, Sandbox, WhenBusy, DEFAULT_TOLERANCE};
use crate::fleet::Shard;
use crate::record::{SiteInfo, SkipCounts};
use crate::wait_line::WaitLine;

/// What the sampler needs of the started runtime: the settings, the caps, and the line calls
/// wait in with `when_busy = "wait"`. The runtime makes it at start-up and hands it out through
/// its lazy start ([`Start`]).
#[derive(Debug)]
pub(crate) struct Sampling {
    /// The configuration invite started with: what takes effect only at a restart (`seed`,
    /// `log`, ...). What a reload changes is in [`Live`].
    pub config: Config,
    /// A seccomp filter was built, so sites that ask for one get it.
    pub seccomp: bool,
    pub budget: Arc<Budget>,
    /// Whether runs are launched hidden from the program's own child handling (see
    /// `sandbox::launch`): never with `hide_runs = "never"` or without pidfds.
    pub hiding: crate::adopter::Hiding,
    /// With `when_busy = "wait"`, the calls waiting for the caps, served in turn.
    pub busy_line: WaitLine,
    /// Only checks test calls: nothing is sampled (where runs cannot be forked).
    pub checks_only: bool,
    /// The settings a reload changes while the program runs.
    pub live: Arc<Live>,
}

/// The settings a reload of the configuration changes, shared by the sampler (which reads them
/// with single atomic loads, never a lock, on the sampled path) and the collector thread (which
/// applies a new configuration and the fleet's rotations).
#[derive(Debug)]
pub(crate) struct Live {
    /// `when_busy = "wait"`.
    wait_when_busy: std::sync::atomic::AtomicBool,
    /// `tests_per_site`: once a site has started this many tests, its calls stop waiting (0:
    /// no target).
    tests_per_site: AtomicU64,
    /// With `when_busy = "wait"`, the longest the first waiting call waits for a run to end, in
    /// ms: the longest deadline of any site's run plus the grace a killed run takes to be
    /// reaped, after which its slot should be free again.
    busy_wait_limit_ms: AtomicU64,
    /// This instance's share of the fleet ([`pack_shard`]); 0 when not in a fleet.
    shard: AtomicU64,
    /// The configuration in force, for sites named at their first call (configured once each).
    config: std::sync::Mutex<Arc<Config>>,
}

impl Live {
    pub fn new(config: &Config, shard: Option<Shard>, busy_wait_limit: Duration) -> Live {
        let live = Live {
            wait_when_busy: Default::default(),
            tests_per_site: AtomicU64::new(0),
            busy_wait_limit_ms: AtomicU64::new(0),
            shard: AtomicU64::new(0),
            config: std::sync::Mutex::new(Arc::new(config.clone())),
        };
        live.set(config, shard, busy_wait_limit);
        live
    }

    /// Puts `config` and `shard` in force.
    pub fn set(&self, config: &Config, shard: Option<Shard>, busy_wait_limit: Duration) {
        self.wait_when_busy
            .store(config.when_busy == WhenBusy::Wait, Relaxed);
        self.tests_per_site
            .store(config.tests_per_site.unwrap_or(0), Relaxed);
        self.busy_wait_limit_ms.store(
            busy_wait_limit.as_millis().min(u128::from(u64::MAX)) as u64,
            Relaxed,
        );
        self.shard.store(pack_shard(shard), Relaxed);
        *self.config.lock().unwrap_or_else(|e| e.into_inner()) = Arc::new(config.clone());
    }

    /// The configuration in force.
    pub fn config(&self) -> Arc<Config> {
        Arc::clone(&self.config.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// This instance's share of the fleet, if it is in one.
    pub fn shard(&self) -> Option<Shard> {
        unpack_shard(self.shard.load(Relaxed))
    }

    /// The tests of `s` this instance runs for a call sampled `at` ([`runs_test`]).
    pub fn tests_at(&self, s: &Site, at: std::time::SystemTime) -> u64 {
        match self.shard() {
            None => ALL_TESTS,
            Some(shard) => {
                let since = at.duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
                shard_mask(s, shard, shard.period(since))
            }
        }
    }

    /// Whether a refused call of `s` waits for the caps: with `when_busy = "wait"`, until the
    /// site has started `tests_per_site` tests.
    fn waits(&self, s: &Site) -> bool {
        self.wait_when_busy.load(Relaxed)
            && !target_reached(
                self.tests_per_site.load(Relaxed),
                s.runs.load(Relaxed),
                s.tests_run(),
            )
    }

    fn busy_wait_limit(&self) -> Duration {
        Duration::from_millis(self.busy_wait_limit_ms.load(Relaxed))
    }
}

/// Whether a site whose `runs` started `per_run` tests each has reached a target of `target`
/// tests (0: no target).
fn target_reached(target: u64, runs: u64, per_run: usize) -> bool {
    target > 0 && runs.saturating_mul(per_run.max(1) as u64) >= target
}

/// A shard in one word, so that the sampler reads member, size and period together: 20 bits
/// each for member and size (a million instances), 24 for the period in seconds (194 days).
fn pack_shard(shard: Option<Shard>) -> u64 {
    match shard {
        None => 0,
        Some(s) => {
            let rotate = s.rotate.as_secs().clamp(1, (1 << 24) - 1);
            (s.member.min((1 << 20) - 1) << 44) | (s.size.min((1 << 20) - 1) << 24) | rotate
        }
    }
}

fn unpack_shard(word: u64) -> Option<Shard> {
    let size = (word >> 24) & ((1 << 20) - 1);
    (size > 0).then(|| Shard {
        member: word >> 44,
        size,
        rotate: Duration::from_secs(word & ((1 << 24) - 1)),
    })
}

/// The most members a fleet may have (what [`pack_shard`] holds).
pub(crate) const MAX_FLEET: u64 = (1 << 20) - 1;

/// The seconds since the Unix epoch: the clock a fleet's members share.
pub(crate) fn wall_clock() -> Duration {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
}

/// Every test of a site, as a mask of [`Site::tests_mask`].
pub(crate) const ALL_TESTS: u64 = u64::MAX;

/// Whether the test at `index` runs under `mask`. A site of more than 64 tests shares bits:
/// test `i` runs with test `i % 64`, so that each of its pairs still has exactly one owner.
pub fn runs_test(mask: u64, index: usize) -> bool {
    mask & (1 << (index % 64)) != 0
}

/// How the sampler reaches the runtime without importing it: the runtime registers its lazy
/// start here (one entry), which starts it on first use and hands out its [`Sampling`], as
/// tracing-core's callsites reach their dispatcher.
pub(crate) struct Start(pub fn() -> Option<&'static Sampling>);
inventory::collect!(Start);

/// What sampled calls need of the runtime, starting it on first use; `None` while invite is
/// off.
fn sampling() -> Option<&'static Sampling> {
    inventory::iter::<Start>
        .into_iter()
        .next()
        .and_then(|start| (start.0)())
}

impl Sampling {
    /// Configures a site named at its first call, as start-up configured the others.
    pub(crate) fn configure_late(&self, s: &Site) {
        let config = self.live.config();
        let shard = self.live.shard().map(|f| (f, f.period(wall_clock())));
        s.configure(&effective(
            &config,
            self.seccomp,
            self.checks_only,
            shard,
            s,
        ));
        // An entry this site could have taken, and did not, may now name nothing.
        warn_unmatched_again(&config);
    }
}

/// The tests of `s` that this member of a fleet runs in `period` ([`runs_test`]).
pub(crate) fn shard_mask(s: &Site, shard: Shard, period: u64) -> u64 {
    s.meta
        .tests
        .iter()
        .take(64)
        .enumerate()
        .filter(|(_, (test, _))| shard.owns(s.name(), test, period))
        .fold(0, |mask, (i, _)| mask | 1 << i)
}

/// A site's settings as applied: with `checks_only`, never sampled (a check re-arms it); in a
/// fleet, its tests outside this member's share (`shard` in its period) left out, and never
/// sampled if none is left.
pub(crate) fn effective(
    config: &Config,
    seccomp: bool,
    checks_only: bool,
    shard: Option<(Shard, u64)>,
    s: &Site,
) -> Settings {
    let mut settings = settings_of(config, seccomp, s);
    if let Some((shard, period)) = shard {
        settings.tests_mask = shard_mask(s, shard, period);
    }
    if !config.enabled {
        settings.rho = 0.0;
        settings.target_tests_per_min = None;
    }
    if checks_only || settings.tests_mask == 0 {
        Settings {
            rho: 0.0,
            target_tests_per_min: None,
            ..settings
        }
    } else {
        settings
    }
}

/// Applies the configuration to every site and describes them for the `start` record. A site
/// named at its first call is left for then ([`Sampling::configure_late`]).
pub(crate) fn configure_sites(
    config: &Config,
    seccomp: bool,
    checks_only: bool,
    shard: Option<(Shard, u64)>,
) -> Vec<SiteInfo> {
    // A site named at its first call is set up now as no entry names it (so that a worker
    // forked before that call has its defaults), and again with its entry once named.
    let mut infos: Vec<SiteInfo> = all()
        .filter_map(|s| {
            s.configure(&effective(config, seccomp, checks_only, shard, s));
            if !s.is_named() {
                // Armed whatever the default ρ, so that its first call reaches the slow path
                // that names it and applies its entry (which may sample where the default
                // does not).
                s.armed.store(UNINIT, Relaxed);
            }
            s.is_named().then(|| s.info())
        })
        .collect();
    infos.sort_by(|a, b| (&a.name, &a.file, a.line).cmp(&(&b.name, &b.file, b.line)));
    infos
}

/// A site's effective settings: its `[functions]` entry, then its attribute, then the defaults.
fn settings_of(config: &Config, seccomp: bool, s: &Site) -> Settings {
    let own = config.site(s.name());
    let rho = if own.enabled == Some(false) {
        0.0
    } else {
        own.rho.or(s.meta.rho).unwrap_or(config.default_rho)
    };
    let tolerance = own
        .tolerance
        .or(s.meta.tolerance)
        .unwrap_or(DEFAULT_TOLERANCE);
    let timeout = own
        .timeout_ms
        .or(s.meta.timeout_ms)
        .unwrap_or(config.timeout_ms);
    let target = own
        .target_tests_per_min
        .filter(|_| rho > 0.0 || own.rho.is_none());
    // An adaptive site must be sampled to be measured: it starts at 1% if ρ is 0.
    let rho = match target {
        Some(_) if rho == 0.0 && own.enabled != Some(false) => 0.01,
        _ => rho,
    };
    Settings {
        rho,
        tolerance,
        timeout_ms: timeout.max(1),
        dedup: own.dedup.unwrap_or(true),
        dedup_bytes: own.dedup_bytes.unwrap_or(config.dedup_bytes),
        target_tests_per_min: target,
        seccomp: seccomp && own.sandbox.unwrap_or(config.sandbox) == Sandbox::Seccomp,
        memory_mb: own.memory_mb.or(config.memory_mb),
        tests_mask: ALL_TESTS,
        worker: s.meta.in_worker_under(own.isolation),
    }
}

/// What kind of test one entry of a site is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TestKind {
    /// A metamorphic relation written in the attribute.
    Relation,
    /// A hand-written metamorphic test (`test = path` in `#[metamorphic]`).
    Metamorphic,
    /// An In Vivo test (`test = path` in `#[in_vivo]`).
    InVivo,
    /// Relation discovery (`#[invite::discover]`): the entry's text is `discover ` and the
    /// function's signature, and the child records an observation instead of a verdict.
    Discover,
}

/// How a site's name comes to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Naming {
    /// [`SiteMeta::name`] is the name.
    Fixed,
    /// A method: its tokens do not say which block holds it, so [`SiteMeta::name`] holds
    /// `SELF_TYPE` where the block's part of the name goes, and the site's first sampled call
    /// fills it in from where the compiler put the method (the `place` module).
    AtFirstCall,
}

/// What stands for the block's part in the name of a site named at its first call.
pub const SELF_TYPE: &str = "{Self}";

/// What the attribute macro knows about a site at compile time.
#[derive(Debug)]
pub struct SiteMeta {
    /// The site's name, or its pattern (see [`Naming`]).
    pub name: &'static str,
    pub naming: Naming,
    pub file: &'static str,
    pub line: u32,
    pub tests: &'static [(&'static str, TestKind)],
    /// Each parameter's name and type as written (the receiver is not among them).
    pub params: &'static [(&'static str, &'static str)],
    /// Attribute options; `invite.toml` overrides each.
    pub rho: Option<f64>,
    pub tolerance: Option<f64>,
    pub timeout_ms: Option<u64>,
    pub self_check: bool,
    /// Compiled with `dedup = true`: the wrapper can hash the call's state.
    pub dedup: bool,
    /// The instrumented crate's name and version as Cargo gave them (empty outside Cargo):
    /// the version records carry when `invite.toml` names none.
    pub krate: (&'static str, &'static str),
    /// Compiled `pure`: a sampled call is tested by the worker instead of a fork unless
    /// `invite.toml` says `isolation = "fork"`.
    pub pure: bool,
    /// Why the worker cannot test the site's calls (a receiver, an `&mut` parameter, ...), or
    /// empty when the attribute wrote the worker's path: then `isolation = "worker"` in
    /// `invite.toml` sends even a site not compiled `pure` there.
    pub no_worker: &'static str,
}

impl SiteMeta {
    /// Whether the worker tests the site's calls under `isolation`.
    pub(crate) fn in_worker_under(&self, isolation: Option<crate::config::Isolation>) -> bool {
        use crate::config::Isolation;
        self.no_worker.is_empty()
            && match isolation {
                Some(Isolation::Worker) => true,
                Some(Isolation::Fork) => false,
                None => self.pure,
            }
    }
}

/// `armed` before start-up: take the slow path once, which initialises the runtime.
const UNINIT: u64 = u64::MAX;

/// Source of configuration generations (`armed` values); never 0 or [`UNINIT`].
static GENERATIONS: AtomicU64 = AtomicU64::new(1);

fn next_generation() -> u64 {
    GENERATIONS.fetch_add(1, Relaxed)
}

/// One instrumented function.
pub struct Site {
    pub meta: SiteMeta,
    /// 0: never sample. Anything else: the configuration generation; consult the thread's
    /// countdown if it was drawn under this generation, else draw again.
    armed: AtomicU64,
    /// Effective settings, set at start-up: ρ and tolerance as `f64` bits, deadline in ms.
    rho_bits: AtomicU64,
    tolerance_bits: AtomicU64,
    timeout_ms: AtomicU64,
    /// When the site was last sampled and the running mean of the gaps between sampled calls
    /// (budget clock, ns), for the length of its turn.
    last_sampled_ns: AtomicU64,
    sample_gap_ns: AtomicU64,
    /// Counters, written only on the sampled path and read by the collector.
    pub(crate) calls: AtomicU64,
    pub(crate) sampled: AtomicU64,
    pub(crate) runs: AtomicU64,
    pub(crate) parent_ns: AtomicU64,
    /// Time callers spent waiting for the caps (`when_busy = "wait"`), in ns.
    pub(crate) wait_ns: AtomicU64,
    skip_concurrency: AtomicU64,
    skip_overhead: AtomicU64,
    skip_disabled: AtomicU64,
    skip_fork: AtomicU64,
    skip_dedup: AtomicU64,
    skip_ring_full: AtomicU64,
    skip_unrun: AtomicU64,
    skip_unhidden: AtomicU64,
    /// A pure site's tests run in the worker: configured so, and not moved back to forking.
    worker: std::sync::atomic::AtomicBool,
    /// A pure site's calls whose result the worker could not reproduce.
    pub(crate) impure: AtomicU64,
    /// The site was moved back to forking after too many of those.
    demoted: std::sync::atomic::AtomicBool,
    /// Said that a call does not fit the worker's ring.
    pub(crate) said_too_large: std::sync::atomic::AtomicBool,
    /// Unseen-state testing: on when compiled in and not turned off by the configuration.
    dedup_on: std::sync::atomic::AtomicBool,
    dedup_bytes: AtomicU64,
    seen: std::sync::OnceLock<crate::dedup::SeenFilter>,
    /// Adaptive rate: tests per minute to aim for (`f64` bits; 0 when ρ is fixed).
    target_tpm_bits: AtomicU64,
    /// Side-effect blocking on, and the tests' address-space allowance (0: none).
    seccomp: std::sync::atomic::AtomicBool,
    memory_mb: AtomicU64,
    /// The name of a site named at its first call, once that call has said it.
    late_name: std::sync::OnceLock<String>,
    /// Whether the site's tests call the function it wraps, once its first sampled call has
    /// said where the function is (see [`crate::place`]); a site whose tests would call
    /// another function is never tested.
    routed: std::sync::OnceLock<bool>,
    /// The function's path as the compiler prints it, once its first sampled call said it.
    path: std::sync::OnceLock<String>,
    /// The tests this instance runs as last configured ([`runs_test`]).
    tests_mask: AtomicU64,
}

/// A site's per-thread sampling state.
pub struct SiteLocal {
    /// Calls left until the sampled one, counting the next call; 0 means not drawn yet.
    countdown: Cell<u64>,
    /// Length of the current interval, added to `calls` when it ends.
    interval: Cell<u64>,
    /// Halvings of ρ after refused runs (see [`Sampled::admit`]).
    backoff: Cell<u32>,
    /// When this thread's last call of the site was refused (budget clock, ns).
    refused_at: Cell<u64>,
    /// The site's generation when the countdown was drawn.
    generation: Cell<u64>,
}

impl SiteLocal {
    #[allow(clippy::new_without_default)]
    pub const fn new() -> SiteLocal {
        SiteLocal {
            countdown: Cell::new(0),
            interval: Cell::new(0),
            backoff: Cell::new(0),
            refused_at: Cell::new(0),
            generation: Cell::new(0),
        }
    }
}

/// Warns of `[functions."…"]` entries that name no instrumented function, with the site each
/// likely meant. An entry that a method's site, named at its first call, could yet take is
/// judged again each time such a site is named ([`warn_unmatched_again`]); each is said once.
pub(crate) fn warn_unmatched(config: &Config, config_file: &str) {
    let mut said = UNMATCHED_SAID.lock().unwrap_or_else(|p| p.into_inner());
    said.0 = config_file.to_string();
    for (entry, message) in unmatched(config, config_file) {
        if !said.1.contains(&entry) {
            said.1.push(entry);
            crate::diag::say(crate::diag::Level::Warn, "unmatched", || message);
        }
    }
}

/// [`warn_unmatched`] after a site was named at its first call, with the file named at start.
pub(crate) fn warn_unmatched_again(config: &Config) {
    let file = UNMATCHED_SAID
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .0
        .clone();
    if !file.is_empty() {
        warn_unmatched(config, &file);
    }
}

/// The configuration file's name, and the entries already said to name nothing.
static UNMATCHED_SAID: std::sync::Mutex<(String, Vec<String>)> =
    std::sync::Mutex::new((String::new(), Vec::new()));

/// The warnings of [`warn_unmatched`], each with its entry.
pub(crate) fn unmatched(config: &Config, config_file: &str) -> Vec<(String, String)> {
    let named = all().filter(|s| s.is_named());
    let names: Vec<&str> = named.map(|s| s.name()).collect();
    config
        .unmatched_entries(names)
        .into_iter()
        // A site named at its first call may yet take this name.
        .filter(|(entry, _)| !all().any(|s| s.could_be_named(entry)))
        .map(|(entry, meant)| {
            let hint = meant.map_or(String::new(), |m| format!("; did you mean \"{m}\"?"));
            let message = format!(
                "{config_file}: [functions.\"{entry}\"] names no instrumented function in this \
                 program, so its settings apply to nothing{hint}"
            );
            (entry, message)
        })
        .collect()
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

/// Resolved settings of one site.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Settings {
    pub rho: f64,
    pub tolerance: f64,
    pub timeout_ms: u64,
    pub dedup: bool,
    pub dedup_bytes: u64,
    pub target_tests_per_min: Option<f64>,
    pub seccomp: bool,
    pub memory_mb: Option<u64>,
    /// The tests this instance runs ([`runs_test`]): all of them, but in a fleet.
    pub tests_mask: u64,
    /// A site compiled `pure` runs its tests in the worker (`isolation`, default yes).
    pub worker: bool,
}

/// A call the sampler chose, before the caps and the unseen-state filter have their say.
pub struct Sampled {
    site: &'static Site,
    rt: &'static Sampling,
    local: &'static LocalKey<SiteLocal>,
    /// Called inside [`crate::check`]: tested whatever the caps say, and awaited.
    checked: bool,
}

impl Sampled {
    /// Drops the call if its state was tested before (`dedup = true`); `hash` runs only when
    /// the site deduplicates.
    pub fn unseen(self, hash: impl FnOnce() -> u64) -> Option<Sampled> {
        // A check tests every call it makes, seen or not (and does not mark it seen).
        if !self.checked && self.site.seen_before(hash) {
            self.site.count_skip(SkipReason::Seen);
            return None;
        }
        Some(self)
    }

    /// Whether this call's tests go to the worker of pure sites (never a check's: a check
    /// awaits its run, and a run is what it awaits).
    pub(crate) fn in_worker(&self) -> bool {
        !self.checked && self.site.in_worker()
    }

    pub(crate) fn site(&self) -> &'static Site {
        self.site
    }

    pub(crate) fn sampling(&self) -> &'static Sampling {
        self.rt
    }

    /// Asks the overhead budget to let a pure site's call into the worker's ring (no slot is
    /// taken: the ring's room bounds what waits). A refusal backs the thread off as
    /// [`Sampled::admit`] does.
    pub(crate) fn admit_queued(self) -> Option<()> {
        match self.rt.budget.admits_queued() {
            Ok(()) => {
                self.local.with(|l| l.backoff.set(0));
                Some(())
            }
            Err(reason) => {
                self.refused(reason, self.rt.budget.now_ns());
                None
            }
        }
    }

    /// Counts a refusal and backs this thread off the site (see [`Sampled::admit`]).
    fn refused(&self, reason: SkipReason, now: u64) {
        let site = self.site;
        site.count_skip(reason);
        // While the caps refuse runs often, this thread samples this site at half the rate
        // after each refusal that follows the last within a millisecond (down to 2^-20), and
        // at twice it after a slower one, back to ρ after the next admitted run: a refused
        // call of a hot ρ = 1 site then costs nothing in the common case, while a quiet site
        // keeps coming back in time for its turn (see `turns`). Intervals stay random
        // (geometric).
        let rho = site.rho();
        self.local.with(|l| {
            let since = now.saturating_sub(l.refused_at.replace(now));
            let k = next_backoff(l.backoff.get(), since);
            l.backoff.set(k);
            let skip = draw_interval(rho / f64::from(1u32 << k));
            l.interval.set(skip);
            l.countdown.set(skip);
        });
    }

    /// Asks the caps for a run.
    pub fn admit(self) -> Option<Permit> {
        let Sampled {
            site,
            rt,
            local,
            checked,
        } = self;
        if checked {
            return match rt.budget.acquire_for_check() {
                Ok(()) => Some(Permit {
                    site,
                    rt,
                    provisional_ns: 0,
                    checked: true,
                }),
                Err(_) => {
                    crate::checking::untested(site.name(), "invite has shut down");
                    None
                }
            };
        }
        let now = rt.budget.now_ns();
        let window = turn_window(site.note_sampled(now));
        let admitted = if rt.live.waits(site) {
            // The caller's time in line is a cost of testing too: counted beside the forks'.
            let asked = std::time::Instant::now();
            let admitted = wait_for_caps(rt, site, window);
            site.wait_ns
                .fetch_add(asked.elapsed().as_nanos() as u64, Relaxed);
            admitted
        } else {
            ask_caps(rt, site, window)
        };
        match admitted {
            Ok(provisional_ns) => {
                local.with(|l| l.backoff.set(0));
                Some(Permit {
                    site,
                    rt,
                    provisional_ns,
                    checked: false,
                })
            }
            Err(reason) => {
                Sampled {
                    site,
                    rt,
                    local,
                    checked,
                }
                .refused(reason, now);
                None
            }
        }
    }
}

/// Asks the caps for a run of `site`. Until the adopter of hidden runs is known to reap them,
/// runs beyond the first few are refused like runs over a cap (see `sandbox::orphans`).
fn ask_caps(rt: &Sampling, site: &Site, window: u64) -> Result<u64, SkipReason> {
    if rt.hiding.possible() && crate::adopter::held() && rt.hiding.now() {
        return Err(SkipReason::Concurrency);
    }
    rt.budget.try_acquire(site.key(), window)
}

/// With `when_busy = "wait"`: asks the caps, waiting in line while they refuse for want of a
/// slot or of overhead budget (see [`crate::wait_line`]), until admitted or until no run has
/// ended for the runtime's `busy_wait_limit` (every run alive has then passed its deadline and
/// should have been killed and reaped: something is stuck, and the call goes on untested).
fn wait_for_caps(rt: &Sampling, site: &Site, window: u64) -> Result<u64, SkipReason> {
    rt.busy_line.wait(
        rt.live.busy_wait_limit(),
        || rt.budget.runs_ended(),
        || ask_caps(rt, site, window),
        |r| matches!(r, Err(SkipReason::Concurrency | SkipReason::Overhead)),
    )
}

/// A refusal closer than this to the thread's last one halves its sampling rate once more;
/// a slower one takes a halving back.
const BACKOFF_WITHIN_NS: u64 = 1_000_000;

/// The halvings of ρ after a refusal `since_last_ns` after the thread's previous one.
fn next_backoff(halvings: u32, since_last_ns: u64) -> u32 {
    if since_last_ns < BACKOFF_WITHIN_NS {
        (halvings + 1).min(20)
    } else {
        halvings.saturating_sub(1)
    }
}

/// How long a freed slot is held for a waiting site: four of its mean sampling gaps (a
/// geometric gap is longer than that one time in 55), from 1 ms to 1 s.
fn turn_window(gap_ns: u64) -> u64 {
    gap_ns.saturating_mul(4).clamp(1_000_000, 1_000_000_000)
}

/// Permission to start one run, carrying what the run needs to know about its site.
#[derive(Debug)]
pub struct Permit {
    pub site: &'static Site,
    pub(crate) rt: &'static Sampling,
    /// The overhead budget's provisional charge for this run.
    pub provisional_ns: u64,
    /// The run is awaited by [`crate::check`].
    pub checked: bool,
}

impl Permit {
    /// Gives the permit back for a run that cannot be started: counted as skipped for
    /// `reason`, its budget released, and a check told why.
    pub(crate) fn refuse(self, reason: SkipReason, why: &str) {
        if self.checked {
            crate::checking::untested(self.site.name(), why);
        }
        self.site.count_skip(reason);
        self.rt.budget.settle(self.provisional_ns, 0);
        self.rt.budget.release();
    }
}

impl Site {
    pub const fn new(meta: SiteMeta) -> Site {
        Site {
            meta,
            armed: AtomicU64::new(UNINIT),
            rho_bits: AtomicU64::new(0),
            tolerance_bits: AtomicU64::new(0),
            timeout_ms: AtomicU64::new(0),
            last_sampled_ns: AtomicU64::new(0),
            sample_gap_ns: AtomicU64::new(0),
            calls: AtomicU64::new(0),
            sampled: AtomicU64::new(0),
            runs: AtomicU64::new(0),
            parent_ns: AtomicU64::new(0),
            wait_ns: AtomicU64::new(0),
            skip_concurrency: AtomicU64::new(0),
            skip_overhead: AtomicU64::new(0),
            skip_disabled: AtomicU64::new(0),
            skip_fork: AtomicU64::new(0),
            skip_dedup: AtomicU64::new(0),
            skip_ring_full: AtomicU64::new(0),
            skip_unrun: AtomicU64::new(0),
            skip_unhidden: AtomicU64::new(0),
            worker: std::sync::atomic::AtomicBool::new(false),
            impure: AtomicU64::new(0),
            demoted: std::sync::atomic::AtomicBool::new(false),
            said_too_large: std::sync::atomic::AtomicBool::new(false),
            dedup_on: std::sync::atomic::AtomicBool::new(false),
            dedup_bytes: AtomicU64::new(0),
            seen: std::sync::OnceLock::new(),
            target_tpm_bits: AtomicU64::new(0),
            seccomp: std::sync::atomic::AtomicBool::new(false),
            memory_mb: AtomicU64::new(0),
            late_name: std::sync::OnceLock::new(),
            routed: std::sync::OnceLock::new(),
            path: std::sync::OnceLock::new(),
            tests_mask: AtomicU64::new(ALL_TESTS),
        }
    }

    /// The site's name: `module::function`, `module::Type::method`, ... (see [`Naming`]). A
    /// site named by its `Self` type that was never called has its pattern for a name.
    pub fn name(&self) -> &str {
        self.late_name.get().map_or(self.meta.name, String::as_str)
    }

    /// Whether the site has its name: always, but for a site named by its `Self` type before
    /// its first call.
    pub fn is_named(&self) -> bool {
        self.meta.naming == Naming::Fixed || self.late_name.get().is_some()
    }

    /// Whether `name` could be this site's once named: its own name, or for a site not yet named
    /// its pattern with any type in place of [`SELF_TYPE`].
    pub(crate) fn could_be_named(&self, name: &str) -> bool {
        if self.is_named() {
            return self.name() == name;
        }
        match self.meta.name.split_once(SELF_TYPE) {
            Some((before, after)) => {
                name.len() > before.len() + after.len()
                    && name.starts_with(before)
                    && name.ends_with(after)
            }
            None => self.meta.name == name,
        }
    }

    /// Whether the site is named at its first call rather than at start-up.
    pub(crate) fn named_late(&self) -> bool {
        self.meta.naming != Naming::Fixed
    }

    /// Names a site named at its first call from the block's part of its name; true for the
    /// call that did.
    fn name_from(&self, prefix: &str) -> bool {
        if self.meta.naming != Naming::AtFirstCall {
            return false;
        }
        let mut fresh = false;
        self.late_name.get_or_init(|| {
            fresh = true;
            self.meta.name.replace(SELF_TYPE, prefix)
        });
        fresh
    }

    /// At the first sampled call: names a site named then, and says whether its tests call the
    /// function it wraps (said once, with the fix, when they would not).
    #[cold]
    fn settle(&'static self, rt: &Sampling, place: fn() -> crate::place::Place) -> bool {
        if let Some(&routed) = self.routed.get() {
            return routed;
        }
        let place = place();
        let _ = self.path.set(crate::place::owner_path(place.marker));
        let method = self
            .meta
            .name
            .rsplit_once("::")
            .map_or(self.meta.name, |(_, m)| m);
        let named_now =
            !self.is_named() && self.name_from(&crate::place::site_prefix(&place, method));
        if let Some(block) = crate::place::unnamed_block(&place, method) {
            let name = self.name().to_string();
            crate::diag::say(crate::diag::Level::Warn, "unnamed block", move || {
                format!(
                    "the site `{name}` is a function of `{block}`, and its name leaves the block \
                     out: its attribute cannot tell a function that neither takes `self` nor \
                     names `Self` from a free one; put `#[invite::sites]` on the block, or give \
                     the attribute a `name`"
                )
            });
        }
        let routed = *self.routed.get_or_init(|| {
            let ok = place
                .callee
                .is_none_or(|c| crate::place::same_function(c, place.marker));
            if !ok {
                let name = self.name().to_string();
                let callee = place.callee.unwrap_or_default().to_string();
                let owner = crate::place::owner_path(place.marker);
                crate::diag::say(crate::diag::Level::Warn, "misrouted", move || {
                    format!(
                        "the site `{name}` is not tested: its tests would call `{callee}`, \
                         which is another function than `{owner}` (an inherent method of the \
                         same name, or a function of the module); put `#[invite::sites]` on the \
                         `impl` block around it, so that its tests call it through its trait"
                    )
                });
            }
            ok
        });
        if named_now {
            rt.configure_late(self);
            if crate::checking::active() {
                // A check tests every call, whatever the entry just applied says of ρ.
                self.rearm();
            }
        }
        routed
    }

    /// The site as the log describes it.
    pub(crate) fn info(&self) -> crate::record::SiteInfo {
        crate::record::SiteInfo {
            name: self.name().to_string(),
            file: self.meta.file.to_string(),
            line: self.meta.line,
            rho: self.rho(),
            tests: self.meta.tests.iter().map(|(t, _)| t.to_string()).collect(),
            params: Some(
                self.meta
                    .params
                    .iter()
                    .map(|(n, t)| (n.to_string(), t.to_string()))
                    .collect(),
            ),
            path: self.path.get().cloned(),
        }
    }

    /// The per-call decision. Inlined into every wrapper: a load, a branch and, for sites with
    /// ρ > 0, a thread-local decrement. Everything else is out of line. `place` says where the
    /// function is, on the slow path of the site's first sampled call.
    #[inline(always)]
    pub fn sample(
        &'static self,
        local: &'static LocalKey<SiteLocal>,
        place: fn() -> crate::place::Place,
    ) -> Option<Sampled> {
        self.sample_of(local, place)
    }

    #[inline(always)]
    fn sample_of(
        &'static self,
        local: &'static LocalKey<SiteLocal>,
        place: fn() -> crate::place::Place,
    ) -> Option<Sampled> {
        let generation = self.armed.load(Relaxed);
        if generation == 0 {
            return None;
        }
        let due = local.with(|l| {
            let n = l.countdown.get();
            if n > 1 && l.generation.get() == generation {
                l.countdown.set(n - 1);
                false
            } else {
                true
            }
        });
        if due {
            self.countdown_expired(local, place)
        } else {
            None
        }
    }

    #[cold]
    #[inline(never)]
    fn countdown_expired(
        &'static self,
        local: &'static LocalKey<SiteLocal>,
        place: fn() -> crate::place::Place,
    ) -> Option<Sampled> {
        let rt = match sampling() {
            Some(rt) if crate::role::owns_this_process() => rt,
            _ => {
                // Off, or a fork of the instrumented process (its collector did not follow).
                self.armed.store(0, Relaxed);
                return None;
            }
        };
        if crate::role::testing_here() {
            // A follow-up call inside a test run in process: the body alone. The countdown is
            // left due, as in a check, for the calls after the test.
            local.with(|l| {
                l.countdown.set(1);
                l.interval.set(0);
                l.generation.set(0);
            });
            return None;
        }
        if crate::role::in_child() {
            // Instrumentation is off inside a test: never fork again from here.
            local.with(|l| {
                l.countdown.set(u64::MAX);
                l.generation.set(self.armed.load(Relaxed));
            });
            return None;
        }
        // Here, never in a test process (whose locks may be held by a thread that did not
        // fork): named now, if named at the first call, then configured as start-up configures the
        // others; a site whose tests would call another function stays untested.
        if !self.settle(rt, place) {
            local.with(|l| {
                l.countdown.set(u64::MAX);
                l.generation.set(self.armed.load(Relaxed));
            });
            return None;
        }
        if crate::checking::active() {
            // Every call inside a check is tested. The thread's countdown is left due, and
            // its generation unset so that the first call after the check draws afresh
            // rather than counting as sampled.
            local.with(|l| {
                l.countdown.set(1);
                l.interval.set(0);
                l.generation.set(0);
            });
            self.calls.fetch_add(1, Relaxed);
            self.sampled.fetch_add(1, Relaxed);
            return Some(Sampled {
                site: self,
                rt,
                local,
                checked: true,
            });
        }
        let generation = self.armed.load(Relaxed);
        if generation == 0 {
            return None;
        }
        let rho = self.rho();
        let sampled_now = local.with(|l| self.redraw(l, generation, rho));
        if !sampled_now {
            return None;
        }
        if rt.live.shard().is_some() && rt.live.tests_at(self, std::time::SystemTime::now()) == 0 {
            // In a fleet, since this member's period turned: none of the site's tests is this
            // member's now, and the collector is about to stop sampling the site.
            return None;
        }
        self.sampled.fetch_add(1, Relaxed);
        Some(Sampled {
            site: self,
            rt,
            local,
            checked: false,
        })
    }

    /// A thread's countdown ran out: counts the calls its interval covered, draws the next
    /// interval at ρ halved by the thread's back-off, and says whether this call is sampled.
    fn redraw(&self, l: &SiteLocal, generation: u64, rho: f64) -> bool {
        let fresh = l.generation.get() != generation;
        if fresh {
            // First call on this thread, or ρ changed: count what the old interval covered.
            let covered = l.interval.get().saturating_sub(l.countdown.get());
            self.calls.fetch_add(covered, Relaxed);
            l.generation.set(generation);
            // The back-off answered refusals at the old ρ. A new ρ from the adaptive rate is
            // already what the caps let through; halved again by a back-off up to 2^20, a
            // lowered ρ would sample nothing for so long that the rate, seeing no tests, would
            // climb back step by step.
            l.backoff.set(0);
        } else {
            self.calls.fetch_add(l.interval.get(), Relaxed);
        }
        let skip = draw_interval(rho / f64::from(1u32 << l.backoff.get()));
        l.interval.set(skip);
        if fresh && skip > 1 {
            // This call opens the interval; the sampled call is `skip - 1` calls on.
            l.countdown.set(skip - 1);
            false
        } else {
            l.countdown.set(skip);
            true
        }
    }

    /// Records a sampled call at `now_ns` and returns the running mean gap between sampled
    /// calls (0 until there are two). Racing threads may lose an update; it is an estimate.
    fn note_sampled(&self, now_ns: u64) -> u64 {
        let last = self.last_sampled_ns.swap(now_ns, Relaxed);
        if last == 0 || now_ns < last {
            return self.sample_gap_ns.load(Relaxed);
        }
        let gap = now_ns - last;
        let mean = match self.sample_gap_ns.load(Relaxed) {
            0 => gap,
            m => (m / 8).saturating_mul(7).saturating_add(gap / 8),
        };
        self.sample_gap_ns.store(mean, Relaxed);
        mean
    }

    /// The site's identity for per-site tables (turns, tallies): its address, fixed for the
    /// life of the program.
    pub(crate) fn key(&self) -> usize {
        self as *const Site as usize
    }

    pub(crate) fn count_skip(&self, reason: SkipReason) {
        let c = match reason {
            SkipReason::Concurrency => &self.skip_concurrency,
            SkipReason::Overhead => &self.skip_overhead,
            SkipReason::Disabled => &self.skip_disabled,
            SkipReason::ForkFailed => &self.skip_fork,
            SkipReason::Seen => &self.skip_dedup,
            SkipReason::RingFull => &self.skip_ring_full,
            SkipReason::Unrun => &self.skip_unrun,
            SkipReason::Unhidden => &self.skip_unhidden,
        };
        c.fetch_add(1, Relaxed);
    }

    pub(crate) fn skips(&self) -> SkipCounts {
        SkipCounts {
            concurrency: self.skip_concurrency.load(Relaxed),
            overhead: self.skip_overhead.load(Relaxed),
            disabled: self.skip_disabled.load(Relaxed),
            fork_failed: self.skip_fork.load(Relaxed),
            dedup: self.skip_dedup.load(Relaxed),
            ring_full: self.skip_ring_full.load(Relaxed),
            unrun: self.skip_unrun.load(Relaxed),
            unhidden: self.skip_unhidden.load(Relaxed),
        }
    }

    /// Whether a sampled call's tests go to the worker rather than a fork.
    pub fn in_worker(&self) -> bool {
        self.worker.load(Relaxed) && !self.demoted.load(Relaxed)
    }

    /// Moves a pure site back to forking (its function is not pure); true the first time.
    pub(crate) fn demote(&self) -> bool {
        !self.demoted.swap(true, Relaxed)
    }

    /// Sets the effective settings and arms or disarms the site.
    pub(crate) fn configure(&self, settings: &Settings) {
        self.tolerance_bits
            .store(settings.tolerance.to_bits(), Relaxed);
        self.timeout_ms.store(settings.timeout_ms, Relaxed);
        self.dedup_on
            .store(settings.dedup && self.meta.dedup, Relaxed);
        self.dedup_bytes.store(settings.dedup_bytes, Relaxed);
        self.target_tpm_bits.store(
            settings.target_tests_per_min.unwrap_or(0.0).to_bits(),
            Relaxed,
        );
        self.seccomp.store(settings.seccomp, Relaxed);
        self.memory_mb
            .store(settings.memory_mb.unwrap_or(0), Relaxed);
        self.tests_mask.store(settings.tests_mask, Relaxed);
        self.worker.store(settings.worker, Relaxed);
        self.set_rho(settings.rho);
    }

    /// How many of the site's tests a run of it runs here: all, but in a fleet.
    pub(crate) fn tests_run(&self) -> usize {
        let mask = self.tests_mask.load(Relaxed);
        (0..self.meta.tests.len())
            .filter(|&i| runs_test(mask, i))
            .count()
    }

    /// Changes ρ on every thread at once (a new generation).
    pub(crate) fn set_rho(&self, rho: f64) {
        self.rho_bits.store(rho.to_bits(), Relaxed);
        self.armed
            .store(if rho > 0.0 { next_generation() } else { 0 }, Relaxed);
    }

    /// Whether this site's tests run under the seccomp filter.
    pub fn seccomp(&self) -> bool {
        self.seccomp.load(Relaxed)
    }

    /// Address space each test may add, in MiB.
    pub fn memory_mb(&self) -> Option<u64> {
        let m = self.memory_mb.load(Relaxed);
        (m > 0).then_some(m)
    }

    /// The adaptive rate's target, if the site has one.
    pub(crate) fn target_tests_per_min(&self) -> Option<f64> {
        let t = f64::from_bits(self.target_tpm_bits.load(Relaxed));
        (t > 0.0).then_some(t)
    }

    /// Whether this state was tested before (and remembers it). Always `false` without dedup.
    fn seen_before(&self, hash: impl FnOnce() -> u64) -> bool {
        if !self.dedup_on.load(Relaxed) {
            return false;
        }
        let filter = self
            .seen
            .get_or_init(|| crate::dedup::SeenFilter::new(self.dedup_bytes.load(Relaxed) as usize));
        filter.check_and_insert(hash())
    }

    pub fn tolerance(&self) -> f64 {
        f64::from_bits(self.tolerance_bits.load(Relaxed))
    }

    /// Deadline of each of this site's tests.
    pub fn timeout_ms(&self) -> u64 {
        self.timeout_ms.load(Relaxed)
    }

    /// Makes every thread draw its countdown again at its next call, even at ρ = 0 (where the
    /// draw never samples): [`crate::check`] needs the checking thread's next call to reach
    /// the sampled path. Nothing changes before start-up, nor for a site with ρ > 0 disarmed at
    /// shutdown (a ρ = 0 site is re-armed, and its run then refused by the closed budget).
    pub(crate) fn rearm(&self) {
        let _ = self.armed.fetch_update(Relaxed, Relaxed, |g| {
            ((g != 0 && g != UNINIT) || (g == 0 && self.rho() == 0.0)).then(next_generation)
        });
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
            .field("name", &self.name())
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
        let mut g = cell.take().unwrap_or_else(sampler_rng);
        let u = g.random::<f64>();
        cell.set(Some(g));
        u
    });
    // 1 - u lies in (0, 1], so the logarithm is finite.
    let skips = ((-u).ln_1p() / (-rho).ln_1p()).floor();
    if skips >= (u64::MAX - 1) as f64 {
        u64::MAX
    } else {
        skips as u64 + 1
    }
}

/// Threads that have made a sampler's generator so far.
static SAMPLER_THREADS: AtomicU64 = AtomicU64::new(0);

/// A generator for a thread's sampler: seeded from the configured `seed` when there is one.
/// Only sampled calls draw, so the runtime has started by then.
fn sampler_rng() -> SmallRng {
    let ordinal = SAMPLER_THREADS.fetch_add(1, Relaxed);
    seeded_sampler(sampling().and_then(|s| s.config.seed), ordinal)
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
    fn quick_refusals_halve_the_rate_down_to_a_floor_and_slow_ones_take_a_halving_back() {
        assert_eq!(next_backoff(0, 0), 1);
        assert_eq!(next_backoff(3, BACKOFF_WITHIN_NS - 1), 4);
        assert_eq!(next_backoff(20, 10), 20, "never below 2^-20");
        assert_eq!(next_backoff(3, BACKOFF_WITHIN_NS), 2);
        assert_eq!(next_backoff(0, u64::MAX), 0);
    }

    #[test]
    fn a_site_shows_its_name_when_debugged() {
        assert!(format!("{:?}", test_site()).contains("\"tests::site\""));
    }

    #[test]
    fn a_site_named_at_its_first_call_is_named_once_by_its_first_caller() {
        let site = |naming| {
            Site::new(SiteMeta {
                name: "{Self}::width",
                naming,
                ..test_site().meta
            })
        };
        let late = site(Naming::AtFirstCall);
        assert!(!late.is_named() && late.named_late());
        assert_eq!(late.name(), "{Self}::width");
        assert!(late.could_be_named("<app::T as Width>::width"));
        assert!(late.could_be_named("app::T::width"));
        assert!(!late.could_be_named("::width"), "some block stands there");
        assert!(!late.could_be_named("app::T::height"));
        assert!(late.name_from("<app::Range as Width>"));
        assert!(late.is_named());
        assert!(!late.name_from("<app::Other as Width>"), "named once");
        assert_eq!(late.name(), "<app::Range as Width>::width");
        assert_eq!(late.info().name, late.name());
        assert!(
            !late.could_be_named("<app::Other as Width>::width"),
            "named already"
        );

        let fixed = test_site();
        assert!(fixed.could_be_named("tests::site") && !fixed.could_be_named("tests::other"));
        assert!(fixed.is_named() && !fixed.named_late());
        assert!(!fixed.name_from("app::T"), "a fixed name stays");
        assert_eq!(fixed.name(), "tests::site");
    }

    #[test]
    fn a_turn_lasts_four_sampling_gaps_within_a_millisecond_and_a_second() {
        assert_eq!(turn_window(0), 1_000_000);
        assert_eq!(turn_window(10_000_000), 40_000_000);
        assert_eq!(turn_window(u64::MAX), 1_000_000_000);
    }

    #[test]
    fn isolation_chooses_the_worker_only_for_a_site_compiled_with_its_path() {
        use crate::config::Isolation::{Fork, Worker};
        let meta = |pure, no_worker| SiteMeta {
            pure,
            no_worker,
            ..test_site().meta
        };
        let (declared, able, unable) = (
            meta(true, ""),
            meta(false, ""),
            meta(false, "it is an `async fn`"),
        );
        // (no key, "worker", "fork")
        let under = |m: &SiteMeta| [None, Some(Worker), Some(Fork)].map(|i| m.in_worker_under(i));
        assert_eq!(under(&declared), [true, true, false]);
        assert_eq!(under(&able), [false, true, false]);
        assert_eq!(under(&unable), [false, false, false]);
    }

    fn test_site() -> Site {
        Site::new(SiteMeta {
            name: "tests::site",
            naming: Naming::Fixed,
            file: "site.rs",
            line: 1,
            tests: &[],
            params: &[],
            rho: None,
            tolerance: None,
            timeout_ms: None,
            self_check: true,
            dedup: false,
            krate: ("", ""),
            pure: false,
            no_worker: "",
        })
    }

    /// Calls `sample` would make on one thread: each call counts down, and a call whose
    /// countdown ran out redraws. The sampled calls' numbers (from 1).
    fn sampled_calls(site: &Site, l: &SiteLocal, generation: u64, rho: f64, n: u64) -> Vec<u64> {
        (1..=n)
            .filter(|_| {
                let c = l.countdown.get();
                if c > 1 && l.generation.get() == generation {
                    l.countdown.set(c - 1);
                    false
                } else {
                    site.redraw(l, generation, rho)
                }
            })
            .collect()
    }

    /// The thread's sampler, seeded.
    fn seed_sampler(seed: u64) {
        SAMPLER.with(|cell| cell.set(Some(seeded_sampler(Some(seed), 0))));
    }

    #[test]
    fn a_thread_s_first_call_opens_its_first_interval_and_the_interval_s_last_call_is_sampled() {
        let site = test_site();
        // At ρ = 1e-9 the first call opens an interval of about 10^9 calls: it is not sampled.
        seed_sampler(1);
        let l = SiteLocal::new();
        assert!(sampled_calls(&site, &l, 7, 1e-9, 1).is_empty());
        assert!(l.countdown.get() > 1_000, "{}", l.countdown.get());
        // At ρ = 0.25 the first sampled call is the last of the first interval drawn, counted
        // from the thread's first call; the next ones end each interval after it.
        seed_sampler(3);
        let first = draw_interval(0.25);
        let second = draw_interval(0.25);
        assert!(
            first > 1,
            "seed 3 draws a first interval of {first}; pick a seed that does not"
        );
        seed_sampler(3);
        let l = SiteLocal::new();
        let sampled = sampled_calls(&site, &l, 8, 0.25, 4_000);
        assert_eq!(sampled[..2], [first, first + second], "{sampled:?}");
        assert!((800..1_200).contains(&sampled.len()), "{}", sampled.len());
        // At ρ = 1 every call is sampled, a thread's first included.
        let l = SiteLocal::new();
        assert_eq!(sampled_calls(&site, &l, 9, 1.0, 5), [1, 2, 3, 4, 5]);
    }

    #[test]
    fn a_site_at_rho_zero_is_disarmed_and_each_new_rho_is_a_new_generation() {
        let site = test_site();
        site.set_rho(0.0);
        // Disarmed: a call costs one load, and no thread draws or counts anything.
        assert_eq!(site.armed.load(Relaxed), 0);
        site.set_rho(0.5);
        let first = site.armed.load(Relaxed);
        assert_ne!(first, 0);
        site.set_rho(0.5);
        let second = site.armed.load(Relaxed);
        assert!(second != 0 && second != first, "{first} {second}");
        assert_eq!(site.rho(), 0.5);
        site.set_rho(0.0);
        assert_eq!(site.armed.load(Relaxed), 0);
    }

    #[test]
    fn configure_sets_every_setting_as_given() {
        let site = test_site();
        let mut settings = Settings {
            rho: 0.25,
            tolerance: 1e-3,
            timeout_ms: 750,
            dedup: true,
            dedup_bytes: 4096,
            target_tests_per_min: Some(12.0),
            seccomp: true,
            memory_mb: Some(64),
            tests_mask: ALL_TESTS,
            worker: true,
        };
        site.configure(&settings);
        assert_eq!(site.rho(), 0.25);
        assert_ne!(site.armed.load(Relaxed), 0);
        assert_eq!(site.tolerance(), 1e-3);
        assert_eq!(site.timeout_ms(), 750);
        // The attribute was compiled without `dedup = true`: no state to hash, so no filter.
        assert!(!site.dedup_on.load(Relaxed));
        assert_eq!(site.dedup_bytes.load(Relaxed), 4096);
        assert_eq!(site.target_tests_per_min(), Some(12.0));
        assert!(site.seccomp());
        assert_eq!(site.memory_mb(), Some(64));
        settings = Settings {
            rho: 0.0,
            target_tests_per_min: None,
            seccomp: false,
            memory_mb: None,
            ..settings
        };
        site.configure(&settings);
        assert_eq!(site.armed.load(Relaxed), 0);
        assert_eq!(site.target_tests_per_min(), None);
        assert!(!site.seccomp());
        assert_eq!(site.memory_mb(), None);
    }

    #[test]
    fn a_rearmed_site_draws_again_and_a_disarmed_one_stops() {
        let site = test_site();
        // Before start-up nothing changes.
        site.rearm();
        assert_eq!(site.armed.load(Relaxed), UNINIT);
        site.set_rho(0.5);
        let before = site.armed.load(Relaxed);
        site.rearm();
        let after = site.armed.load(Relaxed);
        assert!(after != before && after != 0 && after != UNINIT);
        // Stopped at shutdown, a site with ρ > 0 stays stopped; one at ρ = 0 is re-armed so
        // that a check's call reaches the sampled path.
        site.disarm();
        site.rearm();
        assert_eq!(site.armed.load(Relaxed), 0);
        site.set_rho(0.0);
        site.rearm();
        assert_ne!(site.armed.load(Relaxed), 0);
    }

    #[test]
    fn back_off_divides_the_rate_by_two_per_halving() {
        let site = test_site();
        for (halvings, expected) in [(0u32, 4_000.0), (3, 500.0)] {
            seed_sampler(3);
            let l = SiteLocal::new();
            // Drawn at this generation already: the back-off holds until ρ changes.
            l.generation.set(9);
            l.backoff.set(halvings);
            let n = sampled_calls(&site, &l, 9, 1.0, 4_000).len() as f64;
            assert!(
                (n - expected).abs() <= expected * 0.15,
                "{halvings} halvings: {n} sampled of 4000 at rho 1"
            );
        }
    }

    #[test]
    fn a_new_rho_is_drawn_without_the_back_off_of_the_old() {
        let site = test_site();
        seed_sampler(4);
        let l = SiteLocal::new();
        l.generation.set(9);
        l.backoff.set(20);
        // At ρ = 1 halved 20 times, 4000 calls sample the one that ends the countdown it was
        // left with, and none after; a new generation samples every one.
        assert!(sampled_calls(&site, &l, 9, 1.0, 4_000).len() <= 1);
        assert_eq!(sampled_calls(&site, &l, 10, 1.0, 4_000).len(), 4_000);
        assert_eq!(l.backoff.get(), 0);
    }

    #[test]
    fn the_mean_gap_between_sampled_calls_is_a_running_mean_that_ignores_a_clock_going_back() {
        let site = test_site();
        // The first sampled call has no gap yet.
        assert_eq!(site.note_sampled(1_000), 0);
        // The second: the gap itself.
        assert_eq!(site.note_sampled(2_000), 1_000);
        // A gap of 0 weighs an eighth: 1000 · 7/8.
        assert_eq!(site.note_sampled(2_000), 875);
        // A clock going back leaves the mean as it was (and the next gap counts from there).
        assert_eq!(site.note_sampled(1_500), 875);
        assert_eq!(site.note_sampled(2_300), 109 * 7 + 100);
    }

    #[test]
    fn a_seed_gives_its_own_sampling_stream_and_the_same_one_each_time() {
        use rand::Rng;
        let first = |seed, ordinal| seeded_sampler(Some(seed), ordinal).random::<u64>();
        assert_eq!(first(42, 0), first(42, 0));
        assert_ne!(first(42, 0), first(42, 1), "each thread its own stream");
        // Seeds that differ in any bit differ in their streams.
        for bit in 0..64 {
            assert_ne!(first(0, 0), first(1 << bit, 0), "bit {bit}");
        }
    }

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

#[cfg(test)]
mod settings_tests {
    use super::*;

    fn site(rho: Option<f64>, tolerance: Option<f64>, timeout_ms: Option<u64>) -> Site {
        Site::new(SiteMeta {
            name: "app::f",
            naming: Naming::Fixed,
            file: "f.rs",
            line: 1,
            tests: &[],
            params: &[],
            rho,
            tolerance,
            timeout_ms,
            self_check: true,
            dedup: false,
            krate: ("", ""),
            pure: false,
            no_worker: "",
        })
    }

    fn config(text: &str) -> Config {
        Config::from_toml(text, std::path::Path::new("invite.toml")).expect("a valid config")
    }

    #[test]
    fn a_test_target_is_reached_by_the_tests_of_the_runs_started() {
        assert!(!target_reached(0, 1_000, 3), "no target");
        assert!(!target_reached(10, 3, 3));
        assert!(target_reached(10, 4, 3));
        assert!(target_reached(9, 3, 3));
        assert!(!target_reached(2, 1, 1));
        assert!(target_reached(2, 2, 1));
        // A site whose runs run no test here still counts each run once.
        assert!(target_reached(2, 2, 0));
        assert!(target_reached(1, u64::MAX, 2));
    }

    #[test]
    fn a_site_waits_until_its_target_and_never_without_wait() {
        let s: &'static Site = Box::leak(Box::new(Site::new(SiteMeta {
            tests: &[("t1", TestKind::InVivo), ("t2", TestKind::InVivo)],
            ..site(None, None, None).meta
        })));
        let parse = config;
        let wait = parse("when_busy = \"wait\"\ntests_per_site = 4");
        let live = Live::new(&wait, None, Duration::ZERO);
        assert!(live.waits(s));
        s.runs.store(1, Relaxed);
        assert!(live.waits(s), "2 tests of 4");
        s.runs.store(2, Relaxed);
        assert!(!live.waits(s), "4 tests of 4");
        let always = Live::new(&parse("when_busy = \"wait\""), None, Duration::ZERO);
        assert!(always.waits(s));
        let skip = Live::new(&parse("tests_per_site = 4"), None, Duration::ZERO);
        s.runs.store(0, Relaxed);
        assert!(!skip.waits(s));
    }

    fn sampling(config: Config, checks_only: bool) -> &'static Sampling {
        Box::leak(Box::new(Sampling {
            live: Arc::new(Live::new(&config, None, Duration::ZERO)),
            config,
            seccomp: false,
            budget: Arc::new(Budget::new(1, 1.0)),
            hiding: crate::adopter::Hiding::Never,
            busy_line: WaitLine::default(),
            checks_only,
        }))
    }

    #[test]
    fn with_checks_only_a_site_is_never_sampled_whatever_its_rate() {
        let s = site(Some(0.25), None, None);
        let adaptive =
            config("default_rho = 0.5\n[functions.\"app::f\"]\ntarget_tests_per_min = 60");
        let sampled = effective(&adaptive, false, false, None, &s);
        assert_eq!(
            (sampled.rho, sampled.target_tests_per_min),
            (0.25, Some(60.0))
        );
        let checked = effective(&adaptive, false, true, None, &s);
        assert_eq!((checked.rho, checked.target_tests_per_min), (0.0, None));
        assert_eq!(
            checked.timeout_ms, sampled.timeout_ms,
            "only the rate changes"
        );
    }

    #[test]
    fn a_site_named_at_its_first_call_is_configured_by_its_entry_then() {
        let s: &'static Site = Box::leak(Box::new(Site::new(SiteMeta {
            name: "{Self}::f",
            naming: Naming::AtFirstCall,
            file: "f.rs",
            line: 1,
            tests: &[],
            params: &[],
            rho: None,
            tolerance: None,
            timeout_ms: None,
            self_check: true,
            dedup: false,
            krate: ("", ""),
            pure: false,
            no_worker: "",
        })));
        let with_entry = config("[functions.\"app::Meters::f\"]\nrho = 0.125\ntolerance = 0.5");
        assert!(s.name_from("app::Meters"));
        sampling(with_entry.clone(), false).configure_late(s);
        assert_eq!((s.rho(), s.tolerance()), (0.125, 0.5));
        sampling(with_entry, true).configure_late(s);
        assert_eq!(s.rho(), 0.0, "where only checks test, not sampled");
    }

    #[test]
    fn a_refused_permit_gives_its_slot_back_counts_the_skip_and_tells_a_check() {
        let s: &'static Site = Box::leak(Box::new(site(None, None, None)));
        let rt = sampling(Config::default(), true);
        for checked in [false, true] {
            rt.budget.acquire_for_check().expect("a slot");
            assert_eq!(rt.budget.live(), 1);
            let before = crate::checking::take_found();
            Permit {
                site: s,
                rt,
                provisional_ns: 0,
                checked,
            }
            .refuse(SkipReason::ForkFailed, "no fork here");
            assert_eq!(rt.budget.live(), 0, "the slot is back");
            let untested = crate::checking::take_found().untested;
            assert_eq!(untested.len(), usize::from(checked), "{untested:?}");
            drop(before);
        }
        assert_eq!(s.skips().fork_failed, 2);
    }

    #[test]
    fn a_site_s_entry_wins_over_its_attribute_which_wins_over_the_defaults() {
        let plain = site(None, None, None);
        let attributed = site(Some(0.25), Some(1e-3), Some(700));
        let defaults = config("default_rho = 0.5\ntimeout_ms = 900");
        let s = settings_of(&defaults, false, &plain);
        assert_eq!(
            (s.rho, s.tolerance, s.timeout_ms),
            (0.5, DEFAULT_TOLERANCE, 900)
        );
        let s = settings_of(&defaults, false, &attributed);
        assert_eq!((s.rho, s.tolerance, s.timeout_ms), (0.25, 1e-3, 700));
        let entry = config(
            "default_rho = 0.5\n[functions.\"app::f\"]\nrho = 0.125\ntolerance = 0.5\ntimeout_ms = 40",
        );
        let s = settings_of(&entry, false, &attributed);
        assert_eq!((s.rho, s.tolerance, s.timeout_ms), (0.125, 0.5, 40));
        let off = config("default_rho = 1.0\n[functions.\"app::f\"]\nenabled = false");
        assert_eq!(settings_of(&off, false, &attributed).rho, 0.0);
    }

    #[test]
    fn an_adaptive_site_starts_at_one_percent_unless_it_is_off_or_its_rate_is_zero_by_entry() {
        let s = site(None, None, None);
        let adaptive =
            config("default_rho = 0.0\n[functions.\"app::f\"]\ntarget_tests_per_min = 60");
        let got = settings_of(&adaptive, false, &s);
        assert_eq!((got.rho, got.target_tests_per_min), (0.01, Some(60.0)));
        let started =
            config("default_rho = 0.2\n[functions.\"app::f\"]\ntarget_tests_per_min = 60");
        assert_eq!(settings_of(&started, false, &s).rho, 0.2);
        let off = config(
            "default_rho = 0.0\n[functions.\"app::f\"]\ntarget_tests_per_min = 60\nenabled = false",
        );
        let got = settings_of(&off, false, &s);
        assert_eq!(got.rho, 0.0);
        let given = config("[functions.\"app::f\"]\ntarget_tests_per_min = 60\nrho = 0.3");
        let got = settings_of(&given, false, &s);
        assert_eq!((got.rho, got.target_tests_per_min), (0.3, Some(60.0)));
        let zero = config("[functions.\"app::f\"]\ntarget_tests_per_min = 60\nrho = 0.0");
        let got = settings_of(&zero, false, &s);
        assert_eq!((got.rho, got.target_tests_per_min), (0.0, None));
    }

    #[test]
    fn the_filter_applies_where_it_was_built_and_the_site_asks_for_it() {
        let s = site(None, None, None);
        let seccomp = config("");
        assert!(settings_of(&seccomp, true, &s).seccomp);
        assert!(
            !settings_of(&seccomp, false, &s).seccomp,
            "no filter was built"
        );
        let fork_only = config("[functions.\"app::f\"]\nsandbox = \"fork\"");
        assert!(!settings_of(&fork_only, true, &s).seccomp);
    }
}
