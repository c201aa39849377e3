//! The representative set: of the proposals for one site, the fewest that together catch every
//! wrong output any of them catches, on every input where one does (AutoMR's cleansing, by
//! evidence rather than by algebra: two relations that catch the same wrong outputs on the
//! same inputs say the same of the function, whatever their form). Greedy set cover, which
//! is within a logarithmic factor of the smallest and exact on the small sets seen here; the
//! cost of a relation is the follow-up executions a test of it runs.

use serde::Serialize;

/// Which wrong outputs a relation catches on which observations: bit `p * n + i` of `bits`
/// for wrong output `p` of the site's list on observation `i` of `n`; and which wrong
/// versions of the function itself (mutants, where it can be rebuilt) it catches, bit `k` of
/// `mutants` for the `k`-th.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Catches {
    bits: Vec<u64>,
    mutants: u64,
}

impl Catches {
    /// The most mutants told apart.
    pub const MUTANTS: usize = 64;

    /// Nothing caught, for `kinds` wrong outputs on `n` observations.
    pub fn new(kinds: usize, n: usize) -> Catches {
        Catches {
            bits: vec![0; (kinds * n).div_ceil(64)],
            mutants: 0,
        }
    }

    /// The `k`-th mutant breaks the relation (past [`MUTANTS`](Self::MUTANTS), none is told).
    pub fn kill(&mut self, k: usize) {
        if k < Self::MUTANTS {
            self.mutants |= 1 << k;
        }
    }

    /// Wrong output `p` breaks the relation on observation `i` of `n`.
    pub fn set(&mut self, p: usize, i: usize, n: usize) {
        let bit = p * n + i;
        if let Some(word) = self.bits.get_mut(bit / 64) {
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
        self.bits
            .get(bit / 64)
            .is_some_and(|w| w >> (bit % 64) & 1 == 1)
    }

    #[cfg(test)]
    fn count(&self) -> usize {
        self.bits
            .iter()
            .map(|w| w.count_ones() as usize)
            .sum::<usize>()
            + self.mutants.count_ones() as usize
    }

    /// What `self` catches that `covered` does not.
    #[cfg(test)]
    pub(super) fn beyond(&self, covered: &Catches) -> usize {
        self.outputs_beyond(covered) + self.mutants_beyond(covered)
    }

    /// The wrong outputs `self` catches that `covered` does not.
    fn outputs_beyond(&self, covered: &Catches) -> usize {
        self.bits
            .iter()
            .enumerate()
            .map(|(k, w)| (w & !covered.bits.get(k).copied().unwrap_or(0)).count_ones() as usize)
            .sum()
    }

    /// The mutants `self` catches that `covered` does not.
    fn mutants_beyond(&self, covered: &Catches) -> usize {
        (self.mutants & !covered.mutants).count_ones() as usize
    }

    /// Adds what `other` catches.
    pub(super) fn add(&mut self, other: &Catches) {
        if self.bits.len() < other.bits.len() {
            self.bits.resize(other.bits.len(), 0);
        }
        for (w, o) in self.bits.iter_mut().zip(&other.bits) {
            *w |= o;
        }
        self.mutants |= other.mutants;
    }
}

/// The indices of the representative set among `candidates` (each what it catches and the
/// follow-up executions a test of it costs), in the order given: at each step the relation
/// that catches most not yet caught per execution (a property, which costs none, before any
/// relation; the earlier on a tie), until nothing more is caught. The wrong outputs first,
/// then the mutants: a mutant's relation joins the set the wrong outputs chose, and never
/// takes the place of one of it, so that what the set catches only grows with mutants given.
pub fn representative(candidates: &[(&Catches, usize)]) -> Vec<usize> {
    let mut covered = Catches::default();
    let mut chosen: Vec<usize> = Vec::new();
    greedy(
        candidates,
        &mut covered,
        &mut chosen,
        Catches::outputs_beyond,
    );
    greedy(
        candidates,
        &mut covered,
        &mut chosen,
        Catches::mutants_beyond,
    );
    chosen.sort_unstable();
    chosen
}

/// Adds to `chosen`, one at a time, the candidate with the most `gain` beyond `covered` per
/// execution, until none has any.
fn greedy(
    candidates: &[(&Catches, usize)],
    covered: &mut Catches,
    chosen: &mut Vec<usize>,
    gain: impl Fn(&Catches, &Catches) -> usize,
) {
    loop {
        let best = candidates
            .iter()
            .enumerate()
            .filter(|(k, _)| !chosen.contains(k))
            .map(|(k, (c, cost))| (k, gain(c, covered), *cost))
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
    fn a_relation_that_alone_catches_a_mutant_joins_what_the_outputs_chose() {
        let (k, n) = (2, 3);
        let mut a = catches(&[(0, 0), (1, 1)], k, n);
        let mut b = catches(&[(0, 0)], k, n);
        let mut c = catches(&[(0, 0), (1, 1)], k, n);
        a.kill(0);
        b.kill(0);
        b.kill(1);
        // Outputs alone: `a` is enough.
        assert_eq!(
            representative(&[(&a, 1), (&catches(&[(0, 0)], k, n), 1)]),
            [0]
        );
        // Mutant 1 is caught by `b` alone: it joins `a`, which stays though `b` catches
        // more mutants.
        assert_eq!(representative(&[(&a, 1), (&b, 1)]), [0, 1]);
        assert_eq!(a.beyond(&b), 1);
        assert_eq!(b.beyond(&a), 1);
        // The outputs choose first, alone: of `y` and `x`, one relation that catches both is
        // kept, though another catches `x` and more mutants, and the third `y` before it.
        let (x, y) = ((0, 0), (0, 1));
        let both = catches(&[x, y], k, n);
        let mut x_and_versions = catches(&[x], k, n);
        x_and_versions.kill(1);
        x_and_versions.kill(2);
        let only_y = catches(&[y], k, n);
        assert_eq!(
            representative(&[(&only_y, 1), (&x_and_versions, 1), (&both, 1)]),
            [1, 2]
        );
        // A mutant every kept relation already catches adds none.
        c.kill(0);
        assert_eq!(representative(&[(&a, 1), (&c, 1)]), [0]);
        // Past the 64 told apart, a mutant is not marked.
        let mut d = Catches::default();
        d.kill(Catches::MUTANTS);
        assert_eq!(d, Catches::default());
        d.kill(Catches::MUTANTS - 1);
        assert_eq!(d.count(), 1);
        let mut u = Catches::default();
        u.add(&d);
        assert_eq!(u, d);
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
