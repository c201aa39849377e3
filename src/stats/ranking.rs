//! Rankings: the metrics the thesis names for comparing two orderings of the same items, for
//! ordinary relations on a function whose output is a ranking (a search, a recommender):
//! `footrule(&f(&permute(xs)), &result) <= 0.1`.

use std::collections::HashMap;
use std::hash::Hash;

/// The positions of `ranking`'s items; an item given twice keeps its first position.
fn positions<T: Eq + Hash>(ranking: &[T]) -> HashMap<&T, usize> {
    let mut at = HashMap::with_capacity(ranking.len());
    for (i, item) in ranking.iter().enumerate() {
        at.entry(item).or_insert(i);
    }
    at
}

/// How far each item of `a` moved in `b`: an item missing from `b` counts as ranked just past
/// its end.
fn displacements<'r, T: Eq + Hash>(a: &'r [T], b: &'r [T]) -> impl Iterator<Item = usize> + 'r {
    let in_b = positions(b);
    a.iter()
        .enumerate()
        .map(move |(i, item)| in_b.get(item).copied().unwrap_or(b.len()).abs_diff(i))
}

/// Spearman's footrule between two rankings, normalised to 0 (the same order) … 1 (the largest
/// displacement possible for this length, as when one ranking is the other reversed).
///
/// ```
/// use invite::stats::footrule;
/// assert_eq!(footrule(&["a", "b", "c"], &["a", "b", "c"]), 0.0);
/// assert_eq!(footrule(&["a", "b", "c"], &["c", "b", "a"]), 1.0);
/// ```
pub fn footrule<T: Eq + Hash>(a: &[T], b: &[T]) -> f64 {
    let n = a.len().max(b.len());
    // The largest total displacement of a permutation of n items is ⌊n²/2⌋.
    let max = n * n / 2;
    if max == 0 {
        return 0.0;
    }
    (manhattan(a, b) as f64 / max as f64).min(1.0)
}

/// The total displacement of `a`'s items in `b` (the footrule, not normalised).
pub fn manhattan<T: Eq + Hash>(a: &[T], b: &[T]) -> usize {
    displacements(a, b).sum()
}

/// The Euclidean distance between the two rankings' position vectors.
pub fn euclidean<T: Eq + Hash>(a: &[T], b: &[T]) -> f64 {
    displacements(a, b)
        .map(|d| (d as f64).powi(2))
        .sum::<f64>()
        .sqrt()
}

/// How many positions hold different items (a length difference counts once per extra item).
pub fn ranked_differently<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    let common = a.iter().zip(b).filter(|(x, y)| x != y).count();
    common + a.len().abs_diff(b.len())
}

/// The share of positions holding the same item in both: 1 when equal, 0 when no item kept its
/// place (normalised equivalence).
pub fn same_place_share<T: PartialEq>(a: &[T], b: &[T]) -> f64 {
    let n = a.len().max(b.len());
    if n == 0 {
        return 1.0;
    }
    1.0 - ranked_differently(a, b) as f64 / n as f64
}

/// The first `share` of a ranking (at least one item of a non-empty ranking), for metrics on
/// the top only: `footrule(top(&f(&xs), 0.1), top(&result, 0.1))`.
pub fn top<T>(ranking: &[T], share: f64) -> &[T] {
    &ranking[..cut(ranking.len(), share)]
}

/// The last `share` of a ranking.
pub fn bottom<T>(ranking: &[T], share: f64) -> &[T] {
    &ranking[ranking.len() - cut(ranking.len(), share)..]
}

fn cut(len: usize, share: f64) -> usize {
    if len == 0 {
        return 0;
    }
    ((share.clamp(0.0, 1.0) * len as f64).ceil() as usize).clamp(1, len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranking_metrics() {
        let a = ["a", "b", "c", "d"];
        let swapped = ["b", "a", "c", "d"];
        let reversed = ["d", "c", "b", "a"];
        assert_eq!(manhattan(&a, &swapped), 2);
        assert_eq!(footrule(&a, &swapped), 0.25);
        assert_eq!(footrule(&a, &reversed), 1.0);
        assert_eq!(manhattan(&a, &reversed), 8);
        assert!((euclidean(&a, &reversed) - 20f64.sqrt()).abs() < 1e-12);
        assert_eq!(ranked_differently(&a, &swapped), 2);
        assert_eq!(ranked_differently(&a, &a[..3]), 1);
        assert_eq!(same_place_share(&a, &swapped), 0.5);
        assert_eq!(same_place_share::<&str>(&[], &[]), 1.0);
        // An item missing from the other ranking counts as just past its end.
        assert_eq!(manhattan(&["a", "x"], &["a", "b"]), 1);
        assert_eq!(manhattan(&["x", "a"], &["a", "b"]), 2 + 1);
        assert_eq!(top(&a, 0.5), &["a", "b"]);
        assert_eq!(top(&a, 0.1), &["a"]);
        assert_eq!(bottom(&a, 0.25), &["d"]);
        assert_eq!(top::<u8>(&[], 0.5), &[] as &[u8]);
        assert_eq!(footrule::<u8>(&[], &[]), 0.0);
    }
}
