//! The representative set: of the proposals for one site, the fewest that together catch every
//! wrong output any of them catches, on every input where one does (AutoMR's cleansing, by
//! evidence rather than by algebra: two relations that catch the same wrong outputs on the
//! same inputs say the same of the function, whatever their form). Greedy set cover, which
//! is within a logarithmic factor of the smallest and exact on the small sets seen here; the
//! cost of a relation is the follow-up executions a test of it runs.

use serde::Serialize;

/// Which wrong outputs a relation catches on which observations: bit `p * n + i` for wrong
/// output `p` of the site's list on observation `i` of `n`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Catches(Vec<u64>);

impl Catches {
    /// Nothing caught, for `kinds` wrong outputs on `n` observations.
    pub fn new(kinds: usize, n: usize) -> Catches {
        Catches(vec![0; (kinds * n).div_ceil(64)])
    }

    /// Wrong output `p` breaks the relation on observation `i` of `n`.
    pub fn set(&mut self, p: usize, i: usize, n: usize) {
        let bit = p * n + i;
        if let Some(word) = self.0.get_mut(bit / 64) {
            *word |= 1 << (bit % 64);
        }
    }

    /// How many of `kinds` wrong outputs it catches on some observation of `n`.
    pub fn kinds(&self, kinds: usize, n: usize) -> usize {
        (0..kinds)
            .filter(|&p| (0..n).any(|i| self.has(p * n + i)))
            .count()
    }

    fn has(&self, bit: usize) -> bool {
        self.0
            .get(bit / 64)
            .is_some_and(|w| w >> (bit % 64) & 1 == 1)
    }

    #[cfg(test)]
    fn count(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// What `self` catches that `covered` does not.
    pub(super) fn beyond(&self, covered: &Catches) -> usize {
        self.0
            .iter()
            .enumerate()
            .map(|(k, w)| (w & !covered.0.get(k).copied().unwrap_or(0)).count_ones() as usize)
            .sum()
    }

    /// Adds what `other` catches.
    pub(super) fn add(&mut self, other: &Catches) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        for (w, o) in self.0.iter_mut().zip(&other.0) {
            *w |= o;
        }
    }
}

/// The indices of the representative set among `candidates` (each what it catches and the
/// follow-up executions a test of it costs), in the order given: at each step the relation
/// that catches most not yet caught per execution (a property, which costs none, before any
/// relation; the earlier on a tie), until nothing more is caught.
pub fn representative(candidates: &[(&Catches, usize)]) -> Vec<usize> {
    let mut covered = Catches::default();
    let mut chosen: Vec<usize> = Vec::new();
    loop {
        let best = candidates
            .iter()
            .enumerate()
            .filter(|(k, _)| !chosen.contains(k))
            .map(|(k, (c, cost))| (k, c.beyond(&covered), *cost))
            .filter(|&(_, gain, _)| gain > 0)
            .max_by(|&(ka, ga, ca), &(kb, gb, cb)| {
                // Gain per execution, compared without division; no execution beats any.
                let by_rate = match (ca == 0, cb == 0) {
                    (true, false) => std::cmp::Ordering::Greater,
                    (false, true) => std::cmp::Ordering::Less,
                    (true, true) => ga.cmp(&gb),
                    (false, false) => (ga * cb).cmp(&(gb * ca)),
                };
                by_rate.then(kb.cmp(&ka))
            });
        let Some((k, _, _)) = best else { break };
        covered.add(candidates[k].0);
        chosen.push(k);
    }
    chosen.sort_unstable();
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;

    fn catches(bits: &[(usize, usize)], kinds: usize, n: usize) -> Catches {
        let mut c = Catches::new(kinds, n);
        for &(p, i) in bits {
            c.set(p, i, n);
        }
        c
    }

    #[test]
    fn bits_say_which_wrong_output_on_which_observation() {
        let c = catches(&[(0, 2), (3, 0), (3, 69)], 4, 70);
        assert_eq!(c.kinds(4, 70), 2);
        assert_eq!(c.count(), 3);
        assert!(c.has(2) && c.has(3 * 70) && c.has(3 * 70 + 69));
        assert!(!c.has(1) && !c.has(70 + 2));
        let d = catches(&[(0, 2), (1, 1)], 4, 70);
        assert_eq!(d.beyond(&c), 1);
        assert_eq!(c.beyond(&d), 2);
        let mut u = c.clone();
        u.add(&d);
        assert_eq!(u.count(), 4);
        assert_eq!(Catches::default().beyond(&u), 0);
        assert_eq!(u.beyond(&Catches::default()), 4);
    }

    #[test]
    fn the_fewest_that_catch_all_are_kept_the_cheapest_per_catch_first() {
        let (k, n) = (3, 4);
        // 0 catches half; 1, costlier, the same and one more; 2 the rest; 3 nothing new.
        let a = catches(&[(0, 0), (0, 1), (1, 0)], k, n);
        let b = catches(&[(0, 0), (0, 1), (1, 0), (2, 3)], k, n);
        let c = catches(&[(2, 3), (1, 2), (1, 3)], k, n);
        let d = catches(&[(1, 2)], k, n);
        assert_eq!(
            representative(&[(&a, 1), (&b, 2), (&c, 1), (&d, 1)]),
            [0, 2]
        );
        // At the same cost the one catching most comes first, and then the other is needed
        // only for what it adds.
        assert_eq!(
            representative(&[(&a, 1), (&b, 1), (&c, 1), (&d, 1)]),
            [1, 2]
        );
        // A property costs no execution: taken first, whatever it catches.
        let p = catches(&[(1, 3)], k, n);
        assert_eq!(representative(&[(&b, 1), (&c, 1), (&p, 0)]), [0, 1, 2]);
        assert_eq!(representative(&[(&a, 1), (&p, 0)]), [0, 1]);
        // Equal gains and costs: the earlier.
        assert_eq!(representative(&[(&a, 1), (&a.clone(), 1)]), [0]);
        assert_eq!(representative(&[]), Vec::<usize>::new());
        assert_eq!(
            representative(&[(&Catches::default(), 0)]),
            Vec::<usize>::new()
        );
    }
}
