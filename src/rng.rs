//! The replayable random stream.
//!
//! Code under test draws from [`rng()`] instead of `rand::rng()`. Each thread has its own ChaCha8
//! generator. A forked child starts with the caller thread's generator exactly as it was at fork
//! time, and rewinds it before every execution (source run and each follow-up), so `f(x)` and
//! `f(t(x))` consume the same numbers. The parent's stream is never touched by a test.
//!
//! The generator is identified by seed, stream and word position, which the log records, so a
//! failure can be replayed with [`replay`].

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

use rand::rngs::SmallRng;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::record::Seeds;

thread_local! {
    static STREAM: RefCell<Option<ChaCha8Rng>> = const { RefCell::new(None) };
    /// The transformations' own randomness (`permute`), never the function's stream.
    static TRANSFORM: RefCell<Option<SmallRng>> = const { RefCell::new(None) };
}

/// Thread ordinals, so that a configured seed gives every thread a distinct, repeatable stream.
static THREADS: AtomicU64 = AtomicU64::new(0);

/// A handle on the calling thread's replayable generator. It is a zero-sized token: every call
/// goes to the thread's generator, so the handle may be kept or re-fetched freely.
///
/// ```
/// use rand::Rng;
/// let roll: u32 = invite::rng().random_range(1..=6);
/// assert!((1..=6).contains(&roll));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Rng {
    _not_send: std::marker::PhantomData<*const ()>,
}

/// The calling thread's replayable generator.
pub fn rng() -> Rng {
    Rng::default()
}

fn with_stream<T>(f: impl FnOnce(&mut ChaCha8Rng) -> T) -> T {
    STREAM.with(|cell| {
        let mut slot = cell.borrow_mut();
        f(slot.get_or_insert_with(fresh_generator))
    })
}

/// Where the configured `seed` comes from: the runtime registers its lazy start here (one
/// entry), so that a stream made before the first sampled call is seeded from the
/// configuration too, while this module stays below the runtime.
pub(crate) struct SeedSource(pub fn() -> Option<u64>);
inventory::collect!(SeedSource);

/// The configured seed, starting the runtime if needed; `None` when none is set.
fn configured_seed() -> Option<u64> {
    inventory::iter::<SeedSource>
        .into_iter()
        .next()
        .and_then(|source| (source.0)())
}

fn fresh_generator() -> ChaCha8Rng {
    match configured_seed() {
        Some(seed) => {
            let ordinal = THREADS.fetch_add(1, Ordering::Relaxed);
            ChaCha8Rng::seed_from_u64(mix(seed, ordinal))
        }
        None => ChaCha8Rng::from_os_rng(),
    }
}

/// A well-spread combination of two words (SplitMix64 finaliser), for per-thread and per-test
/// seeds derived from one configured seed.
pub(crate) fn mix(a: u64, b: u64) -> u64 {
    let mut z = a ^ b.wrapping_add(0x9E37_79B9_7F4A_7C15).rotate_left(17);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl RngCore for Rng {
    fn next_u32(&mut self) -> u32 {
        with_stream(|g| g.next_u32())
    }

    fn next_u64(&mut self) -> u64 {
        with_stream(|g| g.next_u64())
    }

    fn fill_bytes(&mut self, dst: &mut [u8]) {
        with_stream(|g| g.fill_bytes(dst))
    }
}

/// The position of a thread's stream: enough to put it back exactly where it was.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Snapshot {
    seed: [u8; 32],
    stream: u64,
    word_pos: u128,
}

/// A position travels to the worker of pure sites inside each call's entry.
impl crate::travel::Travel for Snapshot {
    fn put(&self, out: &mut Vec<u8>) {
        self.seed.put(out);
        self.stream.put(out);
        self.word_pos.put(out);
    }
    fn take(input: &mut &[u8]) -> Option<Snapshot> {
        Some(Snapshot {
            seed: <[u8; 32]>::take(input)?,
            stream: u64::take(input)?,
            word_pos: u128::take(input)?,
        })
    }
}

impl Snapshot {
    /// The calling thread's position, creating its generator if it had none (so that every
    /// replay in a child starts from the same numbers).
    pub fn take() -> Snapshot {
        with_stream(|g| Snapshot {
            seed: g.get_seed(),
            stream: g.get_stream(),
            word_pos: g.get_word_pos(),
        })
    }

    /// Puts the calling thread's generator back to this position.
    pub fn restore(&self) {
        let mut g = ChaCha8Rng::from_seed(self.seed);
        g.set_stream(self.stream);
        g.set_word_pos(self.word_pos);
        STREAM.with(|cell| *cell.borrow_mut() = Some(g));
    }

    /// Gives the calling thread the `k`-th stream derived from this position: the same key and
    /// word position, another ChaCha stream, so the draws are independent of this position's
    /// and of every other `k`, and the same on every replay.
    pub fn restore_independent(&self, k: u64) {
        let mut g = ChaCha8Rng::from_seed(self.seed);
        g.set_stream(mix(self.stream, k.wrapping_add(1)));
        g.set_word_pos(self.word_pos);
        STREAM.with(|cell| *cell.borrow_mut() = Some(g));
    }

    /// The log's form of this position.
    pub fn seeds(&self, test_seed: u64) -> Seeds {
        Seeds {
            rng_seed: self.seed.iter().map(|b| format!("{b:02x}")).collect(),
            rng_stream: self.stream,
            rng_word_pos: self.word_pos as u64,
            test_seed,
        }
    }

    /// Parses the log's form back; `None` when the seed is not 64 hex digits.
    pub fn from_seeds(seeds: &Seeds) -> Option<Snapshot> {
        let hex = seeds.rng_seed.as_bytes();
        if hex.len() != 64 {
            return None;
        }
        let mut seed = [0u8; 32];
        for (i, pair) in hex.chunks(2).enumerate() {
            seed[i] = u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok()?;
        }
        Some(Snapshot {
            seed,
            stream: seeds.rng_stream,
            word_pos: seeds.rng_word_pos as u128,
        })
    }
}

/// Puts the calling thread's [`rng()`] and the transformations' randomness where a logged test
/// had them, so that calling the function on the logged inputs reproduces the failure.
/// Returns `false` when the seeds are malformed.
pub fn replay(seeds: &Seeds) -> bool {
    match Snapshot::from_seeds(seeds) {
        Some(s) => {
            s.restore();
            set_transform_seed(seeds.test_seed);
            true
        }
        None => false,
    }
}

/// Seeds the transformations' randomness of the calling thread.
pub(crate) fn set_transform_seed(seed: u64) {
    TRANSFORM.with(|cell| *cell.borrow_mut() = Some(SmallRng::seed_from_u64(seed)));
}

/// Runs `f` with the transformations' generator; outside a test it starts from seed 0, so
/// transformations are repeatable in unit tests too.
pub(crate) fn with_transform<T>(f: impl FnOnce(&mut SmallRng) -> T) -> T {
    TRANSFORM.with(|cell| {
        let mut slot = cell.borrow_mut();
        f(slot.get_or_insert_with(|| SmallRng::seed_from_u64(0)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng as _;

    #[test]
    fn restore_replays_the_same_numbers() {
        let mut r = rng();
        let _: u64 = r.random();
        let snap = Snapshot::take();
        let first: Vec<u32> = (0..10).map(|_| r.random()).collect();
        snap.restore();
        let again: Vec<u32> = (0..10).map(|_| r.random()).collect();
        assert_eq!(first, again);
    }

    #[test]
    fn seeds_round_trip_through_the_log_form() {
        let mut r = rng();
        let _: u64 = r.random();
        let snap = Snapshot::take();
        let expected: u64 = r.random();
        let seeds = snap.seeds(5);
        assert_eq!(seeds.rng_seed.len(), 64);
        let _: [u64; 4] = r.random();
        assert!(replay(&seeds));
        assert_eq!(r.random::<u64>(), expected);
    }

    #[test]
    fn malformed_seeds_are_refused() {
        let seeds = Seeds {
            rng_seed: "zz".into(),
            ..Default::default()
        };
        assert!(!replay(&seeds));
    }

    #[test]
    fn filled_bytes_come_from_the_replayable_stream() {
        let mut r = rng();
        let at = Snapshot::take();
        let mut first = [0u8; 32];
        r.fill_bytes(&mut first);
        assert_ne!(first, [0u8; 32]);
        at.restore();
        let mut again = [0u8; 32];
        r.fill_bytes(&mut again);
        assert_eq!(first, again);
    }

    #[test]
    fn independent_streams_differ_from_each_other_and_replay_alike() {
        let mut r = rng();
        let at = Snapshot::take();
        let draws = |k: u64| {
            at.restore_independent(k);
            let mut r = rng();
            (0..4).map(|_| r.next_u64()).collect::<Vec<_>>()
        };
        at.restore();
        let own: Vec<u64> = (0..4).map(|_| r.next_u64()).collect();
        let (one, two) = (draws(0), draws(1));
        assert_ne!(one, own, "a stream of its own, not the snapshot's");
        assert_ne!(one, two);
        assert_eq!(draws(0), one, "the same on every replay");
    }

    #[test]
    fn a_replay_puts_back_the_permutations_of_its_test_seed() {
        let xs: Vec<u32> = (0..20).collect();
        let seeds = |test_seed| Snapshot::take().seeds(test_seed);
        assert!(replay(&seeds(5)));
        let first = crate::mr::permute(&xs);
        assert!(replay(&seeds(5)));
        assert_eq!(crate::mr::permute(&xs), first);
        assert!(replay(&seeds(6)));
        assert_ne!(
            crate::mr::permute(&xs),
            first,
            "another seed, another order"
        );
    }

    #[test]
    fn permute_leaves_the_function_s_stream_where_it_was() {
        use rand::Rng;
        let xs: Vec<u32> = (0..20).collect();
        let seeds = Snapshot::take().seeds(9);
        assert!(replay(&seeds));
        let untouched: Vec<u64> = (0..4).map(|_| rng().random()).collect();
        assert!(replay(&seeds));
        let order = crate::mr::permute(&xs);
        assert_ne!(order, xs, "twenty elements, shuffled");
        let after_permute: Vec<u64> = (0..4).map(|_| rng().random()).collect();
        assert_eq!(after_permute, untouched);
    }

    #[test]
    fn mix_is_the_same_in_every_version() {
        // A configured seed must give the same threads' streams and tests' seeds in every
        // version, or a log's `seed = N` run could not be repeated after an upgrade: these
        // values are SplitMix64's finaliser over the documented combination.
        assert_eq!(mix(0, 0), 0x51ff_f90e_2c88_e79b);
        assert_eq!(mix(42, 1), 0xe5f9_e47d_9e8c_bf1f);
        assert_eq!(mix(u64::MAX, 7), 0xc02b_5d10_e809_8f51);
    }

    #[test]
    fn mix_spreads_neighbouring_inputs() {
        assert_ne!(mix(1, 0), mix(1, 1));
        assert_ne!(mix(0, 1), mix(1, 0));
    }
}
