//! Shrinking a failing input to a small one that fails the same way.
//!
//! A value offers simpler variants of itself ([`Shrink::candidates`]), and [`minimize`] keeps
//! the first variant that still fails, again and again, until no variant fails or a budget of
//! tries is spent. The variants of a sequence remove blocks of elements of every size down to
//! one, at every position, before they simplify an element: a defect that shows only at an even
//! length (or with two distinct elements, or a duplicate) survives the removal of two adjacent
//! elements where it dies with any single removal, which is where a shrinker that removes one
//! element at a time stops. Numbers move toward zero, toward integers and toward fewer
//! significant digits, never away, so that every accepted step makes the value strictly simpler
//! and the search ends.
//!
//! Shrinking stays where the value was: a sequence or string keeps at least one element, a
//! number keeps its sign and never becomes zero, and `Some` stays `Some`. A relation need not
//! hold outside the function's domain (the mean of nothing, the logarithm of zero), and an
//! input shrunk out of it would fail the relation even on correct code; within it, a smaller
//! input that still fails is the same defect.
//!
//! `invite::check_strategy` shrinks with this after proptest's own shrinking, and the
//! regression tests that `invite report --emit-tests` writes use it to cut a field input down.

/// A value that can offer simpler variants of itself.
///
/// Implemented for numbers, `bool`, `char`, `String`, `Vec`, `Option`, `Box`, arrays and
/// tuples of such values. A type of the program's own gets no variants with an empty impl
/// (`impl invite::shrink::Shrink for Reading {}`), or its own.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be shrunk by Invite",
    label = "a value of this type is shrunk after a failure",
    note = "add `impl invite::shrink::Shrink for {Self} {{}}` (no variants: proptest's shrinking \
            alone), or implement `candidates` to offer simpler values"
)]
pub trait Shrink: Clone {
    /// Variants of `self` that are strictly simpler, simplest first; none by default.
    fn candidates(&self) -> Vec<Self> {
        Vec::new()
    }

    /// How many elements the value holds, for sequences; `None` for others.
    fn len_hint(&self) -> Option<usize> {
        None
    }
}

/// What [`minimize`] did.
#[derive(Clone, Debug, PartialEq)]
pub struct Shrunk<T> {
    /// The smallest failing value found (the first one if nothing simpler failed).
    pub value: T,
    /// Variants that were tried.
    pub tries: u32,
    /// Variants that still failed, and were kept.
    pub steps: u32,
    /// Whether the budget of tries ran out before a minimum was reached.
    pub exhausted: bool,
}

/// How many variants [`minimize`] tries by default: each is a run of the function, so this
/// bounds the time a shrink takes.
pub const DEFAULT_TRIES: u32 = 4096;

/// Shrinks `value`, which fails (`fails(&value)` is assumed true), to a variant that still
/// fails and none of whose own variants does, trying at most `max_tries` variants.
pub fn minimize<T: Shrink>(
    value: T,
    max_tries: u32,
    mut fails: impl FnMut(&T) -> bool,
) -> Shrunk<T> {
    let mut out = Shrunk {
        value,
        tries: 0,
        steps: 0,
        exhausted: false,
    };
    'simpler: loop {
        for candidate in out.value.candidates() {
            if out.tries >= max_tries {
                out.exhausted = true;
                break 'simpler;
            }
            out.tries += 1;
            if fails(&candidate) {
                out.value = candidate;
                out.steps += 1;
                continue 'simpler;
            }
        }
        break;
    }
    out
}

/// The variants of a sequence: removals of blocks of every size (halving down to one) at
/// every position, then each element replaced by each of its own variants.
fn sequence_candidates<T: Clone>(items: &[T], element: impl Fn(&T) -> Vec<T>) -> Vec<Vec<T>> {
    let n = items.len();
    let mut out = Vec::new();
    if n == 0 {
        return out;
    }
    // Half the length, then every power of two below the length: blocks of two are always
    // among them, whatever the length (halving 6 would give 3 and 1, and miss them).
    let mut blocks: Vec<usize> = std::iter::successors(Some(1usize), |b| b.checked_mul(2))
        .take_while(|b| *b < n)
        .chain(std::iter::once(n / 2))
        .filter(|b| *b >= 1)
        .collect();
    blocks.sort_unstable_by(|a, b| b.cmp(a));
    blocks.dedup();
    for block in blocks {
        for start in 0..=n - block {
            let mut v = Vec::with_capacity(n - block);
            v.extend_from_slice(&items[..start]);
            v.extend_from_slice(&items[start + block..]);
            out.push(v);
        }
    }
    for (i, item) in items.iter().enumerate() {
        for simpler in element(item) {
            let mut v = items.to_vec();
            v[i] = simpler;
            out.push(v);
        }
    }
    out
}

impl<T: Shrink> Shrink for Vec<T> {
    fn candidates(&self) -> Vec<Self> {
        sequence_candidates(self, T::candidates)
    }

    fn len_hint(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl Shrink for String {
    fn candidates(&self) -> Vec<Self> {
        let chars: Vec<char> = self.chars().collect();
        sequence_candidates(&chars, char::candidates)
            .into_iter()
            .map(|c| c.into_iter().collect())
            .collect()
    }

    fn len_hint(&self) -> Option<usize> {
        Some(self.chars().count())
    }
}

impl<T: Shrink, const N: usize> Shrink for [T; N] {
    fn candidates(&self) -> Vec<Self> {
        let mut out = Vec::new();
        for i in 0..N {
            for simpler in self[i].candidates() {
                let mut a = self.clone();
                a[i] = simpler;
                out.push(a);
            }
        }
        out
    }

    fn len_hint(&self) -> Option<usize> {
        Some(N)
    }
}

impl<T: Shrink> Shrink for Option<T> {
    fn candidates(&self) -> Vec<Self> {
        match self {
            None => Vec::new(),
            Some(x) => x.candidates().into_iter().map(Some).collect(),
        }
    }
}

impl<T: Shrink> Shrink for Box<T> {
    fn candidates(&self) -> Vec<Self> {
        (**self).candidates().into_iter().map(Box::new).collect()
    }

    fn len_hint(&self) -> Option<usize> {
        (**self).len_hint()
    }
}

impl Shrink for bool {
    fn candidates(&self) -> Vec<Self> {
        if *self {
            vec![false]
        } else {
            Vec::new()
        }
    }
}

impl Shrink for char {
    fn candidates(&self) -> Vec<Self> {
        // Toward 'a', then toward the simplest character of its own kind.
        let simple = ['a', '0', ' '];
        match simple.iter().position(|c| c == self) {
            Some(i) => simple[..i].to_vec(),
            None => simple.to_vec(),
        }
    }
}

impl Shrink for () {}

/// Variants of an integer: one (or minus one), then steps toward it of half, a quarter, ...
/// and one of the distance, so that a threshold is found in logarithmic steps; never zero, and
/// never of the other sign.
macro_rules! integer_shrink {
    ($($t:ty),*) => {$(
        impl Shrink for $t {
            #[allow(unused_comparisons)]
            fn candidates(&self) -> Vec<Self> {
                let x = *self;
                if x == 0 {
                    return Vec::new();
                }
                let negative = x < 0;
                let mut out = Vec::new();
                let mut step = x / 2;
                while step != 0 {
                    out.push(x - step);
                    step /= 2;
                }
                out.insert(0, if negative { (0 as $t).wrapping_sub(1) } else { 1 });
                out.push(if negative { x + 1 } else { x.saturating_sub(1) });
                let mut kept: Vec<$t> = Vec::with_capacity(out.len());
                for c in out {
                    let same_side = c != 0 && (c < 0) == negative;
                    if same_side && c != x && !kept.contains(&c) {
                        kept.push(c);
                    }
                }
                kept
            }
        }
    )*};
}

integer_shrink!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

/// Variants of a float: ±1, its integer part, itself with fewer significant digits (cut toward
/// zero), then steps toward zero of half, a quarter, ... of itself (whole steps for an
/// integer); never zero, and never of the other sign. Integers are simpler than fractions, then
/// smaller magnitudes are simpler: each variant is simpler in that order, so the search ends,
/// and a fraction is left only where no integer fails (a predicate that holds for every
/// negative number ends at -1, not at the smallest negative float). Infinities and NaN shrink
/// to finite values of their side.
macro_rules! float_shrink {
    ($($t:ty),*) => {$(
        impl Shrink for $t {
            fn candidates(&self) -> Vec<Self> {
                let x = *self;
                if x.is_nan() {
                    return vec![1.0, -1.0, <$t>::MAX, <$t>::MIN];
                }
                if x.is_infinite() {
                    return vec![x.signum(), <$t>::MAX.copysign(x)];
                }
                // (fraction, magnitude): lower is simpler.
                let key = |v: $t| (v.fract() != 0.0, v.abs());
                let integer = x.fract() == 0.0;
                let mut out: Vec<$t> = vec![x.signum(), x.trunc()];
                let magnitude = x.abs().log10().floor();
                for digits in 1..=15 {
                    let scale = (10.0 as $t).powf(magnitude - (digits as $t - 1.0));
                    if !scale.is_finite() || scale == 0.0 {
                        break;
                    }
                    let cut = (x / scale).trunc() * scale;
                    if cut == x {
                        break;
                    }
                    out.push(cut);
                }
                let mut step = x / 2.0;
                for _ in 0..24 {
                    out.push(if integer { (x - step).trunc() } else { x - step });
                    step /= 2.0;
                }
                out.push(if x < 0.0 { x + 1.0 } else { x - 1.0 });
                let mut kept: Vec<$t> = Vec::with_capacity(out.len());
                for c in out {
                    let fresh = !kept.iter().any(|k| k.to_bits() == c.to_bits());
                    let same_side = c != 0.0 && (c < 0.0) == (x < 0.0);
                    if c.is_finite() && same_side && key(c) < key(x) && fresh {
                        kept.push(c);
                    }
                }
                kept
            }
        }
    )*};
}

float_shrink!(f32, f64);

/// Tuples shrink one component at a time, the first ones first.
macro_rules! tuple_shrink {
    ($(($($n:tt $t:ident),+))*) => {$(
        impl<$($t: Shrink),+> Shrink for ($($t,)+) {
            fn candidates(&self) -> Vec<Self> {
                let mut out = Vec::new();
                $(
                    for simpler in self.$n.candidates() {
                        let mut v = self.clone();
                        v.$n = simpler;
                        out.push(v);
                    }
                )+
                out
            }
        }
    )*};
}

tuple_shrink! {
    (0 A)
    (0 A, 1 B)
    (0 A, 1 B, 2 C)
    (0 A, 1 B, 2 C, 3 D)
    (0 A, 1 B, 2 C, 3 D, 4 E)
    (0 A, 1 B, 2 C, 3 D, 4 E, 5 F)
    (0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G)
    (0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn upper_median(xs: &[f64]) -> f64 {
        let mut v = xs.to_vec();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    }

    /// The defect of a median that takes the upper middle element at even lengths: negating
    /// the input does not negate the result.
    fn median_fails(xs: &[f64]) -> bool {
        if xs.is_empty() {
            return false;
        }
        let neg: Vec<f64> = xs.iter().map(|x| -x).collect();
        upper_median(&neg) != -upper_median(xs)
    }

    #[test]
    fn an_even_length_defect_shrinks_to_two_elements_where_single_removals_stop() {
        let xs = vec![
            0.0, 0.0, 0.0, 0.0, 0.0, -712157.15, -596797.26, -241804.68, -624126.41, -196736.72,
        ];
        assert!(median_fails(&xs));
        let shrunk = minimize(xs, DEFAULT_TRIES, |v: &Vec<f64>| median_fails(v));
        assert_eq!(shrunk.value.len(), 2, "{shrunk:?}");
        assert!(median_fails(&shrunk.value));
        assert!(!shrunk.exhausted);
        // The values are simple too, each on its side of zero (the zeros were removed).
        let mut v = shrunk.value.clone();
        v.sort_by(f64::total_cmp);
        assert_eq!(v, [-2.0, -1.0]);
        // Six elements, three of each value: only the removal of two adjacent elements (never
        // of three, nor of one) keeps the defect.
        let e = 1.0000000000000002e-6;
        let shrunk = minimize(
            vec![0.0, 0.0, e, e, 0.0, e],
            DEFAULT_TRIES,
            |v: &Vec<f64>| median_fails(v),
        );
        assert_eq!(shrunk.value.len(), 2, "{shrunk:?}");
    }

    #[test]
    fn blocks_of_every_power_of_two_and_of_half_the_length_are_removed() {
        let xs: Vec<u8> = (1..=6).collect();
        let lengths: Vec<usize> = xs.candidates().iter().map(Vec::len).collect();
        // Never the empty one; blocks of 3 (4 places), of 2 (5 places), of 4 (3 places), of 1.
        assert_eq!(lengths.iter().filter(|l| **l == 0).count(), 0);
        assert_eq!(lengths.iter().filter(|l| **l == 2).count(), 3);
        assert_eq!(lengths.iter().filter(|l| **l == 3).count(), 4);
        assert_eq!(lengths.iter().filter(|l| **l == 4).count(), 5);
        assert_eq!(lengths.iter().filter(|l| **l == 5).count(), 6);
        let removed_two: Vec<Vec<u8>> = xs
            .candidates()
            .into_iter()
            .filter(|c| c.len() == 4)
            .collect();
        assert_eq!(removed_two[0], vec![3, 4, 5, 6]);
        assert_eq!(removed_two[4], vec![1, 2, 3, 4]);
        assert!(Vec::<u8>::new().candidates().is_empty());
    }

    #[test]
    fn known_minimal_sizes_are_reached() {
        // A negative element: one element, -1.
        let s = minimize(
            vec![5.5, 3.0, -7.25, 9.0, -2.0],
            DEFAULT_TRIES,
            |v: &Vec<f64>| v.iter().any(|x| *x < 0.0),
        );
        assert_eq!(s.value, vec![-1.0]);
        // A duplicate: two equal elements (each alone would break the duplicate if simplified).
        let s = minimize(vec![4, 9, 1, 7, 9, 3], DEFAULT_TRIES, |v: &Vec<i64>| {
            (1..v.len()).any(|i| v[..i].contains(&v[i]))
        });
        assert_eq!(s.value, vec![9, 9]);
        // A value above a threshold: one element, just above it.
        let s = minimize(
            vec![3, 712_157, 12, 99_999],
            DEFAULT_TRIES,
            |v: &Vec<i64>| v.iter().any(|x| *x > 1000),
        );
        assert_eq!(s.value, vec![1001]);
        let s = minimize(vec![3.0, 712_157.25], DEFAULT_TRIES, |v: &Vec<f64>| {
            v.iter().any(|x| *x > 1000.0)
        });
        assert_eq!(s.value.len(), 1);
        assert!(s.value[0] > 1000.0 && s.value[0] < 2000.0, "{s:?}");
    }

    #[test]
    fn the_budget_bounds_the_tries_and_says_so() {
        let xs: Vec<i64> = (1..=40).collect();
        let s = minimize(xs.clone(), 10, |v: &Vec<i64>| {
            v.len() >= 3 && v.contains(&40)
        });
        assert_eq!(s.tries, 10);
        assert!(s.exhausted);
        let s = minimize(xs, DEFAULT_TRIES, |v: &Vec<i64>| {
            v.len() >= 3 && v.contains(&40)
        });
        assert!(!s.exhausted);
        assert_eq!(s.value.len(), 3);
        assert!(s.value.contains(&40));
        assert!(s.steps > 0 && s.steps < s.tries, "{s:?}");
    }

    #[test]
    fn sequences_give_their_length_and_other_values_none() {
        assert_eq!(vec![1u8, 2, 3].len_hint(), Some(3));
        assert_eq!(String::from("héllo").len_hint(), Some(5));
        assert_eq!([0u8; 4].len_hint(), Some(4));
        assert_eq!(Box::new(vec![1.0f64; 6]).len_hint(), Some(6));
        assert_eq!(5i32.len_hint(), None);
        assert_eq!(Some(vec![1u8]).len_hint(), None);
        assert_eq!((1u8, 2u8).len_hint(), None);
        assert_eq!(().candidates(), Vec::<()>::new());
    }

    #[test]
    fn a_value_that_does_not_fail_any_simpler_way_is_kept() {
        let s = minimize((7u8, String::from("abc")), DEFAULT_TRIES, |_| false);
        assert_eq!(s.value, (7, "abc".to_string()));
        assert_eq!(s.steps, 0);
        assert!(s.tries > 0);
    }

    #[test]
    #[allow(clippy::borrowed_box)]
    fn strings_options_tuples_and_arrays_shrink_by_their_parts() {
        let s = minimize(String::from("hello, world"), DEFAULT_TRIES, |s: &String| {
            s.contains(',')
        });
        assert_eq!(s.value, ",");
        let s = minimize(Some(17u32), DEFAULT_TRIES, |o: &Option<u32>| o.is_some());
        assert_eq!(s.value, Some(1));
        let s = minimize(
            (9i32, -4.5f64, true),
            DEFAULT_TRIES,
            |t: &(i32, f64, bool)| t.1 < 0.0,
        );
        assert_eq!(s.value, (1, -1.0, false));
        let s = minimize([8u16, 3, 5], DEFAULT_TRIES, |a: &[u16; 3]| a[1] > 0);
        assert_eq!(s.value, [1, 1, 1]);
        let s = minimize(
            Box::new(vec!['x', 'y']),
            DEFAULT_TRIES,
            |b: &Box<Vec<char>>| !b.is_empty(),
        );
        assert_eq!(*s.value, vec!['a']);
        assert_eq!(s.value.len_hint(), Some(1));
    }

    #[test]
    fn non_finite_floats_shrink_to_finite_ones() {
        let s = minimize(f64::NAN, DEFAULT_TRIES, |x: &f64| x.is_nan() || *x > 5.0);
        assert!(s.value.is_finite() && s.value > 5.0, "{s:?}");
        assert!(f64::INFINITY.candidates().iter().all(|c| c.is_finite()));
        assert!(0.0f64.candidates().is_empty());
        assert!(0i32.candidates().is_empty());
        assert!(0u8.candidates().is_empty());
        assert_eq!(1u8.candidates(), Vec::<u8>::new());
        assert_eq!((-1i8).candidates(), Vec::<i8>::new());
        assert_eq!(i8::MIN.candidates()[0], -1);
        assert!(f64::NEG_INFINITY.candidates().iter().all(|c| *c < 0.0));
        assert!(vec![7u8].candidates().iter().all(|c| c.len() == 1));
        assert_eq!(String::from("a").candidates(), Vec::<String>::new());
        assert!(!false.candidates().iter().any(|_| true));
    }

    proptest! {
        /// Every variant is strictly simpler than its value, so the search always ends.
        #[test]
        fn every_variant_is_strictly_simpler(x in any::<f64>(), i in any::<i64>(), u in any::<u32>()) {
            let key = |v: f64| (v.fract() != 0.0, v.abs());
            for c in x.candidates() {
                prop_assert!(c.is_finite() && c != 0.0);
                if x.is_finite() {
                    prop_assert!(key(c) < key(x), "{x} -> {c}");
                    prop_assert_eq!(c < 0.0, x < 0.0, "{} -> {}", x, c);
                }
            }
            for c in i.candidates() {
                prop_assert!(c.unsigned_abs() < i.unsigned_abs(), "{i} -> {c}");
                prop_assert!(c != 0 && (c < 0) == (i < 0), "{i} -> {c}");
            }
            for c in u.candidates() {
                prop_assert!(c < u && c > 0);
            }
        }

        /// Whatever the threshold and the length it needs, the shrinker reaches the smallest
        /// failing input: exactly `need` elements, each exactly the threshold plus one.
        #[test]
        fn the_shrinker_reaches_the_known_minimum(
            xs in prop::collection::vec(0i64..100_000, 1..60),
            threshold in 0i64..1000,
            need in 1usize..5,
        ) {
            let fails = |v: &Vec<i64>| v.iter().filter(|x| **x > threshold).count() >= need;
            prop_assume!(fails(&xs));
            let s = minimize(xs, DEFAULT_TRIES, fails);
            prop_assert!(!s.exhausted);
            prop_assert_eq!(s.value, vec![threshold + 1; need]);
        }

        /// A defect that needs an even length and two distinct values shrinks to two elements.
        #[test]
        fn an_even_length_defect_always_shrinks_to_two(xs in prop::collection::vec(-1e6..1e6f64, 2..50)) {
            prop_assume!(median_fails(&xs));
            let s = minimize(xs, DEFAULT_TRIES, |v: &Vec<f64>| median_fails(v));
            prop_assert_eq!(s.value.len(), 2);
        }
    }
}
