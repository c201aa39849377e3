//! Durations in constant memory: a log-linear histogram (a power-of-two range split into 32
//! linear sub-buckets), so that median and 95th percentile of any number of tests cost a few
//! kilobytes per test. Quantiles are exact to within 1/32 (about 3%) of the value.

const SUB: u64 = 32;
const SUB_BITS: u32 = 5;

/// Counts of durations in log-linear buckets: bounded memory, quantiles within about 3%.
#[derive(Clone, Debug, Default)]
pub struct Histogram {
    counts: Vec<u64>,
    total: u64,
    sum: u128,
    max: u64,
}

fn bucket_of(v: u64) -> usize {
    if v < SUB {
        return v as usize;
    }
    let magnitude = 63 - v.leading_zeros(); // >= SUB_BITS
    let shift = magnitude - SUB_BITS;
    let sub = (v >> shift) - SUB; // 0..SUB
    ((magnitude - SUB_BITS + 1) as u64 * SUB + sub) as usize
}

/// The largest value in a bucket.
fn bucket_top(b: usize) -> u64 {
    let b = b as u64;
    if b < SUB {
        return b;
    }
    let group = b / SUB; // >= 1
    let sub = b % SUB;
    let shift = group - 1;
    ((SUB + sub + 1) << shift) - 1
}

impl Histogram {
    /// Counts one value.
    pub fn add(&mut self, v: u64) {
        let b = bucket_of(v);
        if self.counts.len() <= b {
            self.counts.resize(b + 1, 0);
        }
        self.counts[b] += 1;
        self.total += 1;
        self.sum += v as u128;
        self.max = self.max.max(v);
    }

    /// Adds another histogram's counts.
    pub fn merge(&mut self, other: &Histogram) {
        if self.counts.len() < other.counts.len() {
            self.counts.resize(other.counts.len(), 0);
        }
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        self.total += other.total;
        self.sum += other.sum;
        self.max = self.max.max(other.max);
    }

    /// Values counted.
    pub fn count(&self) -> u64 {
        self.total
    }

    /// Mean of the values counted (exact).
    pub fn mean(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            self.sum as f64 / self.total as f64
        }
    }

    /// The value below which a share `q` of the values lie (upper edge of its bucket, capped at
    /// the largest value seen).
    pub fn quantile(&self, q: f64) -> u64 {
        if self.total == 0 {
            return 0;
        }
        let rank = ((q * self.total as f64).ceil() as u64).clamp(1, self.total);
        let mut seen = 0;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return bucket_top(b).min(self.max);
            }
        }
        self.max
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_lies_in_its_bucket_and_the_bucket_is_narrow() {
        for v in (0..2000u64).chain([1 << 20, (1 << 40) + 12_345, u64::MAX / 3]) {
            let top = bucket_top(bucket_of(v));
            // Thirty-two sub-buckets per power of two: a bucket spans at most 1/32 of its values.
            assert!(
                top >= v && top - v <= v / SUB,
                "{v} in a bucket topped at {top}"
            );
            if v < 2 * SUB {
                assert_eq!(top, v, "values below {} have buckets of their own", 2 * SUB);
            }
        }
    }

    #[test]
    fn buckets_cover_values_in_order() {
        let mut last = 0;
        for v in [
            0u64,
            1,
            31,
            32,
            33,
            63,
            64,
            100,
            1000,
            123_456,
            u64::MAX / 2,
        ] {
            let b = bucket_of(v);
            assert!(b >= last, "{v}");
            assert!(bucket_top(b) >= v, "{v}: top {}", bucket_top(b));
            last = b;
        }
    }

    #[test]
    fn quantiles_are_within_three_percent() {
        let mut h = Histogram::default();
        for v in 1..=10_000u64 {
            h.add(v);
        }
        let median = h.quantile(0.5) as f64;
        let p95 = h.quantile(0.95) as f64;
        assert!((median - 5000.0).abs() / 5000.0 < 0.035, "{median}");
        assert!((p95 - 9500.0).abs() / 9500.0 < 0.035, "{p95}");
        assert_eq!(h.mean(), 5000.5);
        assert_eq!(h.quantile(1.0), 10_000);
    }

    #[test]
    fn small_values_are_exact_and_merging_adds() {
        let mut a = Histogram::default();
        let mut b = Histogram::default();
        for v in [3, 3, 5] {
            a.add(v);
        }
        b.add(7);
        a.merge(&b);
        assert_eq!(a.count(), 4);
        assert_eq!(a.quantile(0.5), 3);
        assert_eq!(a.quantile(0.95), 7);
    }

    #[test]
    fn a_merge_is_the_histogram_of_both_value_sets_either_way_round() {
        let (small, large) = ([3u64, 3, 5], [7u64, 900, 5000, 5001]);
        let mut all = Histogram::default();
        small.iter().chain(&large).for_each(|&v| all.add(v));
        let of = |vs: &[u64]| {
            let mut h = Histogram::default();
            vs.iter().for_each(|&v| h.add(v));
            h
        };
        for (mut into, from) in [(of(&small), of(&large)), (of(&large), of(&small))] {
            into.merge(&from);
            assert_eq!(into.count(), all.count());
            assert_eq!(into.mean(), all.mean());
            for q in [0.1, 0.3, 0.5, 0.6, 0.8, 0.9, 1.0] {
                assert_eq!(into.quantile(q), all.quantile(q), "q = {q}");
            }
        }
    }
}
