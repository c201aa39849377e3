//! Unseen-state testing: remember which argument and state combinations a site has tested, and
//! test only new ones ("only test in states not seen before").
//!
//! A split-block Bloom filter: each state's 64-bit hash picks one 64-byte block and sets one bit
//! in each of its eight words. Lookup and insert touch one cache line with eight atomic
//! operations, lock-free and shared by all threads; memory is fixed (1 MiB per site by
//! default). A filter never forgets a state, but may take a new state for one already tested: a
//! *false seen*, whose probability after `n` distinct states in `B` blocks is about
//! `(1 - e^(-n / (64·B)))^8` (see [`SeenFilter::false_seen_probability`]): with 1 MiB, about
//! 5·10⁻⁹ after 100,000 states and 2% after 1,000,000. Such a state just goes untested.

use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

#[repr(align(64))]
struct Block([AtomicU64; 8]);

pub struct SeenFilter {
    blocks: Box<[Block]>,
}

impl SeenFilter {
    /// A filter of about `bytes` (at least one 64-byte block).
    pub fn new(bytes: usize) -> SeenFilter {
        let n = (bytes / 64).max(1);
        SeenFilter {
            blocks: (0..n).map(|_| Block(Default::default())).collect(),
        }
    }

    pub fn bytes(&self) -> usize {
        self.blocks.len() * 64
    }

    /// The block of a state and its bit in each of the block's words.
    fn place(&self, hash: u64) -> (&Block, u64) {
        // Multiply-shift picks the block from the high bits without a division.
        let i = ((u128::from(hash) * self.blocks.len() as u128) >> 64) as usize;
        // One bit per word, from six bits each of a remixed hash.
        (&self.blocks[i], crate::rng::mix(hash, 0x5EE4))
    }

    fn mask(bits: u64, word: usize) -> u64 {
        1u64 << ((bits >> (word * 6)) & 63)
    }

    /// Records a state and tells whether it was (probably) recorded before.
    pub fn check_and_insert(&self, hash: u64) -> bool {
        let (block, bits) = self.place(hash);
        let mut seen = true;
        for (w, word) in block.0.iter().enumerate() {
            let mask = Self::mask(bits, w);
            if word.load(Relaxed) & mask == 0 {
                seen = false;
                word.fetch_or(mask, Relaxed);
            }
        }
        seen
    }

    /// Whether a state was (probably) recorded, without recording it.
    pub fn contains(&self, hash: u64) -> bool {
        let (block, bits) = self.place(hash);
        block
            .0
            .iter()
            .enumerate()
            .all(|(w, word)| word.load(Relaxed) & Self::mask(bits, w) != 0)
    }

    /// The chance that a new state is taken for seen after `states` distinct states.
    pub fn false_seen_probability(bytes: usize, states: u64) -> f64 {
        let blocks = (bytes / 64).max(1) as f64;
        (1.0 - (-(states as f64) / (64.0 * blocks)).exp()).powi(8)
    }
}

/// Hashes the values that make up a state.
pub fn state_hash(feed: impl FnOnce(&mut std::hash::DefaultHasher)) -> u64 {
    let mut h = std::hash::DefaultHasher::new();
    feed(&mut h);
    h.finish()
}

/// Values that are not `Hash` but still have a well-defined state: floating point numbers (by
/// their bits) and containers of them.
pub trait StateHash {
    fn state_hash<H: Hasher>(&self, h: &mut H);
}

impl StateHash for f64 {
    fn state_hash<H: Hasher>(&self, h: &mut H) {
        // +0.0 and -0.0 compare equal: one state.
        let v = if *self == 0.0 { 0.0f64 } else { *self };
        h.write_u64(v.to_bits());
    }
}

impl StateHash for f32 {
    fn state_hash<H: Hasher>(&self, h: &mut H) {
        f64::from(*self).state_hash(h);
    }
}

impl<T: StateHash> StateHash for [T] {
    fn state_hash<H: Hasher>(&self, h: &mut H) {
        h.write_usize(self.len());
        for x in self {
            x.state_hash(h);
        }
    }
}

impl<T: StateHash> StateHash for Vec<T> {
    fn state_hash<H: Hasher>(&self, h: &mut H) {
        self.as_slice().state_hash(h);
    }
}

impl<T: StateHash, const N: usize> StateHash for [T; N] {
    fn state_hash<H: Hasher>(&self, h: &mut H) {
        self.as_slice().state_hash(h);
    }
}

impl<T: StateHash + ?Sized> StateHash for &T {
    fn state_hash<H: Hasher>(&self, h: &mut H) {
        (**self).state_hash(h);
    }
}

impl<T: StateHash + ?Sized> StateHash for &mut T {
    fn state_hash<H: Hasher>(&self, h: &mut H) {
        (**self).state_hash(h);
    }
}

impl<T: StateHash> StateHash for Option<T> {
    fn state_hash<H: Hasher>(&self, h: &mut H) {
        match self {
            None => h.write_u8(0),
            Some(x) => {
                h.write_u8(1);
                x.state_hash(h);
            }
        }
    }
}

/// Feeds a value to the state hash: through `Hash` when it has it, else through `StateHash`
/// (autoref dispatch, as in the macro support). A type with neither is a compile error at the
/// site that asked for `dedup`.
pub struct HashProbe<'a, T: ?Sized>(pub &'a T);

pub trait ViaHash {
    fn invite_hash(&self, h: &mut std::hash::DefaultHasher);
}

impl<T: Hash + ?Sized> ViaHash for &HashProbe<'_, T> {
    fn invite_hash(&self, h: &mut std::hash::DefaultHasher) {
        self.0.hash(h);
    }
}

pub trait ViaStateHash {
    fn invite_hash(&self, h: &mut std::hash::DefaultHasher);
}

impl<T: StateHash + ?Sized> ViaStateHash for &&HashProbe<'_, T> {
    fn invite_hash(&self, h: &mut std::hash::DefaultHasher) {
        self.0.state_hash(h);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_is_seen_the_second_time() {
        let f = SeenFilter::new(1 << 20);
        assert_eq!(f.bytes(), 1 << 20);
        assert!(!f.check_and_insert(42));
        assert!(f.check_and_insert(42));
        assert!(!f.check_and_insert(43));
    }

    #[test]
    fn false_seen_rate_matches_the_formula() {
        // A deliberately small filter, so that false seens are frequent enough to count.
        let bytes = 4096;
        let f = SeenFilter::new(bytes);
        let n = 2000u64;
        for i in 0..n {
            f.check_and_insert(crate::rng::mix(i, 1));
        }
        let probes = 20_000u64;
        let false_seen = (0..probes)
            .filter(|i| f.contains(crate::rng::mix(*i, 2)))
            .count() as f64
            / probes as f64;
        let predicted = SeenFilter::false_seen_probability(bytes, n);
        assert!(
            false_seen > predicted * 0.5 && false_seen < predicted * 2.5,
            "measured {false_seen}, predicted {predicted}"
        );
    }

    #[test]
    fn documented_probabilities() {
        let p = SeenFilter::false_seen_probability(1 << 20, 100_000);
        assert!(p < 1e-8, "{p}");
        let p = SeenFilter::false_seen_probability(1 << 20, 1_000_000);
        assert!((0.01..0.03).contains(&p), "{p}");
    }

    #[test]
    fn floats_and_hashable_values_hash_by_value() {
        let a = state_hash(|h| {
            (&&HashProbe(&vec![1.0f64, -0.0])).invite_hash(h);
            (&&HashProbe(&7u32)).invite_hash(h);
        });
        let b = state_hash(|h| {
            (&&HashProbe(&vec![1.0f64, 0.0])).invite_hash(h);
            (&&HashProbe(&7u32)).invite_hash(h);
        });
        let c = state_hash(|h| {
            (&&HashProbe(&vec![1.0f64, 0.5])).invite_hash(h);
            (&&HashProbe(&7u32)).invite_hash(h);
        });
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn single_precision_floats_hash_by_value_with_signed_zeros_as_one() {
        let of = |xs: &[f32]| state_hash(|h| xs.state_hash(h));
        assert_eq!(of(&[1.5, -0.0]), of(&[1.5, 0.0]));
        assert_ne!(of(&[1.5, 0.0]), of(&[1.5, 0.25]));
        assert_ne!(of(&[2.0f32]), of(&[3.0f32]));
        // The same value in either precision is one state.
        assert_eq!(of(&[0.5]), state_hash(|h| [0.5f64].state_hash(h)));
    }

    #[test]
    fn options_and_mutable_references_hash_what_they_hold() {
        let of = |x: &dyn Fn(&mut std::hash::DefaultHasher)| state_hash(x);
        let none = of(&|h| None::<f64>.state_hash(h));
        let zero = of(&|h| Some(0.0f64).state_hash(h));
        let one = of(&|h| Some(1.0f64).state_hash(h));
        assert_ne!(none, zero);
        assert_ne!(zero, one);
        assert_eq!(zero, of(&|h| Some(-0.0f64).state_hash(h)));
        fn through<T: StateHash>(x: T) -> u64 {
            state_hash(|h| x.state_hash(h))
        }
        let (mut a, mut b) = (vec![1.0f64], vec![2.0f64]);
        let through_a = through(&mut a);
        assert_ne!(through_a, through(&mut b));
        assert_eq!(through_a, state_hash(|h| a.state_hash(h)));
    }
}
