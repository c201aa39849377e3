//! Inputs at the edges of a function's domain: where, along one number parameter, its result
//! changes kind (`Some` to `None`, `Ok` to `Err`, an integer's sign, a `bool`, a value to a
//! refusal).
//! A relation between neighbouring inputs (`f(n + 1).is_some() == result.is_some()`) breaks
//! only there, and random inputs seldom land on it: `3999` and `4000` of a writer of roman
//! numerals, among inputs up to 4100. The edge is found by halving the gap between two given
//! values on either side of it, so that its cost grows with the logarithm of the gap.

use super::signature::Signature;
use super::value::Value;

/// How many of the given inputs edges are looked for from (spread over them).
const BASES: usize = 6;

/// How many of a parameter's given values, spread from the least to the greatest, the result
/// is sampled at before the gaps where its kind changes are halved.
const POINTS: usize = 16;

/// Most halvings of one gap: a float's gap closes within 64 halvings of its bits, and an
/// integer's within 128.
const HALVINGS: usize = 160;

/// The kind of a result that the edges are between (`None`: the function refused the input).
fn kind_of(v: Option<&Value>) -> Option<i8> {
    Some(match v? {
        Value::Option(inner) => i8::from(inner.is_some()),
        Value::Result(r) => i8::from(r.is_ok()),
        Value::Bool(b) => i8::from(*b),
        // A float's sign at its edge is judged within the function's noise there: a strict
        // sign near zero says nothing an edge could break. Not a number is a kind of its own.
        Value::Float(x) if x.is_nan() => 2,
        Value::Int(i) => i.signum() as i8,
        _ => 1,
    })
}

/// A point on one parameter's axis.
#[derive(Clone, Copy, PartialEq)]
enum Point {
    Int(i128),
    Float(f64),
}

impl Point {
    fn of(v: &Value) -> Option<Point> {
        match v {
            Value::Int(i) => Some(Point::Int(*i)),
            Value::Float(x) if x.is_finite() => Some(Point::Float(*x)),
            _ => None,
        }
    }

    fn value(self) -> Value {
        match self {
            Point::Int(i) => Value::Int(i),
            Point::Float(x) => Value::Float(x),
        }
    }

    /// The point halfway between `self` and `other`, if one lies strictly between them. Of
    /// floats, only while they are further apart than `resolution`: an edge is placed to the
    /// precision of the inputs a program passes, not to the last bit, where the function's
    /// own arithmetic underflows (the cube of `-1e-300` is `-0.0`, no negative number).
    fn between(self, other: Point, resolution: f64) -> Option<Point> {
        let mid = match (self, other) {
            (Point::Int(a), Point::Int(b)) => Point::Int(a + (b - a) / 2),
            (Point::Float(a), Point::Float(b)) if (b - a).abs() > resolution => {
                Point::Float(a + (b - a) / 2.0)
            }
            _ => return None,
        };
        (mid != self && mid != other).then_some(mid)
    }
}

/// Inputs on both sides of each edge found: from a few of the given inputs, each number
/// parameter moved along the values the given inputs hold for it.
pub(super) fn edges(
    sig: &Signature,
    inputs: &[Vec<Value>],
    call: &mut dyn FnMut(&[Value]) -> Option<Value>,
) -> Vec<Vec<Value>> {
    let mut out: Vec<Vec<Value>> = Vec::new();
    // Of one parameter, every base moves along the same axis: one is enough.
    let bases = if sig.params.len() == 1 { 1 } else { BASES };
    let step = inputs.len().div_ceil(bases).max(1);
    for base in inputs.iter().step_by(step).take(bases) {
        for p in 0..sig.params.len() {
            let mut values: Vec<Point> = inputs.iter().filter_map(|i| Point::of(&i[p])).collect();
            if values.len() < 2 {
                continue;
            }
            values.sort_by(|a, b| match (a, b) {
                (Point::Int(x), Point::Int(y)) => x.cmp(y),
                (Point::Float(x), Point::Float(y)) => x.total_cmp(y),
                _ => std::cmp::Ordering::Equal,
            });
            values.dedup();
            let last = values.len() - 1;
            // Half a float's digits of the span the given values cover.
            let resolution = match (values[0], values[last]) {
                (Point::Float(a), Point::Float(b)) => (b - a) * f64::EPSILON.sqrt(),
                _ => 0.0,
            };
            let mut at: Vec<usize> = (0..POINTS).map(|k| k * last / (POINTS - 1)).collect();
            at.dedup();
            let mut kind = |x: Point| {
                let mut input = base.clone();
                input[p] = x.value();
                kind_of(call(&input).as_ref())
            };
            let sampled: Vec<(Point, Option<i8>)> = at
                .into_iter()
                .map(|k| (values[k], kind(values[k])))
                .collect();
            for pair in sampled.windows(2) {
                let ((mut lo, lo_kind), (mut hi, hi_kind)) = (pair[0], pair[1]);
                if lo_kind == hi_kind {
                    continue;
                }
                // Kept: `lo` of the low end's kind, `hi` of another (a third kind between
                // them is an edge too, the nearer one).
                for _ in 0..HALVINGS {
                    let Some(mid) = lo.between(hi, resolution) else {
                        break;
                    };
                    match kind(mid) == lo_kind {
                        true => lo = mid,
                        false => hi = mid,
                    }
                }
                for x in [lo, hi] {
                    let mut input = base.clone();
                    input[p] = x.value();
                    if !out.contains(&input) {
                        out.push(input);
                    }
                }
            }
        }
    }
    out
}

/// How much farther each step of [`reach`] moves an integer than the one before: a
/// function whose cost grows with the integer (a line of pixels, a range collected) costs at
/// most this many times its last call that was cheap enough.
const STEP: u128 = 16;

/// A call is cheap enough to go on from while its result holds at most this many elements
/// (a string's characters, a sequence's, a list's)...
const LARGEST_RESULT: usize = 1 << 16;

/// ...and it returns within this time: a thousand times what most functions take, and far
/// below what a user waiting on discovery notices.
const SLOWEST_CALL: std::time::Duration = std::time::Duration::from_millis(20);

/// How far from zero each integer parameter may be set by the inputs built to break a
/// relation (`None`: to the ends of its type). Moved away from the given inputs by a factor
/// of [`STEP`] at a time, one parameter at a time from the given input where it is largest,
/// until a result grows past [`LARGEST_RESULT`] elements or a call takes longer than
/// [`SLOWEST_CALL`]: the last value before that is as far as it goes. A function whose cost
/// follows its integer (the pixels between two points, `vec![0; n]`) is not called at
/// `isize::MAX`, where it would take the machine's memory or never return; one whose cost
/// does not (a sum, a binomial that overflows) is called at its type's ends, as before.
pub(super) fn reach(
    sig: &Signature,
    inputs: &[Vec<Value>],
    call: &mut dyn FnMut(&[Value]) -> Option<Value>,
) -> Vec<Option<u128>> {
    (0..sig.params.len())
        .map(|p| {
            let base = inputs
                .iter()
                .filter_map(|i| match i.get(p) {
                    Some(Value::Int(v)) => Some((v.unsigned_abs(), i)),
                    _ => None,
                })
                .max_by_key(|&(v, _)| v)?;
            let (_, hi) = sig.params[p].int_range();
            let (mut at, base) = (base.0.max(STEP), base.1);
            loop {
                let next = at.saturating_mul(STEP);
                // Up from zero, as far as the type goes: its other end is as far within one.
                let v = match i128::try_from(next) {
                    Ok(v) if v <= hi => v,
                    _ => return None,
                };
                let mut input = base.clone();
                input[p] = Value::Int(v);
                let start = std::time::Instant::now();
                let result = call(&input);
                let cheap = start.elapsed() <= SLOWEST_CALL
                    && result.is_none_or(|y| elements(&y) <= LARGEST_RESULT);
                if !cheap {
                    return Some(at);
                }
                at = next;
            }
        })
        .collect()
}

/// How many elements a value holds, at any depth: what a function that returns it built.
/// Unlike `observe::size`, which sizes an input's sequences, it looks inside an `Option`, a
/// `Result` and a record (a list of pixels, a vector in an `Ok`).
fn elements(v: &Value) -> usize {
    match v {
        Value::FloatSeq(xs) => xs.len(),
        Value::IntSeq(xs) => xs.len(),
        Value::Str(s) => s.len(),
        Value::List(items) | Value::Record(items) => {
            items.iter().map(elements).sum::<usize>().max(items.len())
        }
        Value::Option(Some(inner)) => elements(inner),
        Value::Result(Ok(inner)) => elements(inner),
        _ => 1,
    }
}

/// Whether every integer of `input` is within the [`reach`] of its parameter.
pub(super) fn within(reach: &[Option<u128>], input: &[Value]) -> bool {
    input.iter().zip(reach).all(|(v, r)| match (v, r) {
        (Value::Int(v), Some(r)) => v.unsigned_abs() <= *r,
        _ => true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discover::value::Kind;

    #[test]
    fn the_edge_between_two_given_values_is_found_by_halving() {
        let sig = Signature::parse(
            "fn to(n: i32) -> Option<String>",
            &[Kind::Int],
            Kind::Option,
        )
        .unwrap();
        let calls = std::cell::Cell::new(0);
        let mut roman = |v: &[Value]| {
            calls.set(calls.get() + 1);
            let Value::Int(n) = v[0] else { return None };
            Some(Value::Option(
                (1..=3999)
                    .contains(&n)
                    .then(|| Box::new(Value::Str("X".into()))),
            ))
        };
        // Given in no order: the values are sorted before the gaps between neighbours are
        // halved.
        let inputs: Vec<Vec<Value>> = (0..603)
            .map(|i| vec![Value::Int((i * 211 % 603 - 3) * 7)])
            .collect();
        let found = edges(&sig, &inputs, &mut roman);
        for n in [0, 1, 3999, 4000] {
            assert!(found.contains(&vec![Value::Int(n)]), "{n}: {found:?}");
        }
        assert_eq!(found.len(), 4, "{found:?}");
        // Sixteen points and a few halvings of two gaps, from one base: every base of a
        // function of one parameter moves along the same axis.
        assert!(calls.get() <= 16 + 2 * 12, "{}", calls.get());
        // Two values are a gap.
        let two = [vec![Value::Int(-7)], vec![Value::Int(500)]];
        let found = edges(&sig, &two, &mut roman);
        assert_eq!(found, [vec![Value::Int(0)], vec![Value::Int(1)]]);
    }

    #[test]
    fn a_refusal_and_a_float_parameter_have_edges_too() {
        let sig = Signature::parse(
            "fn f(x: f64, k: i64) -> Option<f64>",
            &[Kind::Float, Kind::Int],
            Kind::Option,
        )
        .unwrap();
        // `None` below 101.5; refused from k = 10 on.
        let calls = std::cell::Cell::new(0);
        let mut f = |v: &[Value]| {
            calls.set(calls.get() + 1);
            let (Value::Float(x), Value::Int(k)) = (&v[0], &v[1]) else {
                return None;
            };
            let inside = (*x >= 101.5).then(|| Box::new(Value::Float(x - 101.5)));
            (*k < 10).then_some(Value::Option(inside))
        };
        // Given in no order, as the integer test's.
        let inputs: Vec<Vec<Value>> = (0..40i32)
            .map(|i| {
                let i = i * 17 % 40;
                vec![
                    Value::Float(100.0 + f64::from(i) * 0.25),
                    Value::Int(i128::from(i)),
                ]
            })
            .collect();
        let found = edges(&sig, &inputs, &mut f);
        let xs: Vec<f64> = found
            .iter()
            .filter_map(|i| match i[0] {
                Value::Float(x) if (x - 101.5).abs() < 1e-6 => Some(x),
                _ => None,
            })
            .collect();
        // Both sides of 101.5, to half a float's digits of the span of the given values (9.75,
        // from 100).
        assert!(xs.iter().any(|&x| x < 101.5), "{found:?}");
        assert!(xs.iter().any(|&x| x >= 101.5), "{found:?}");
        let resolution = 9.75 * f64::EPSILON.sqrt();
        let gap = xs.iter().fold(0.0f64, |m, &x| m.max((x - 101.5).abs()));
        assert!(gap <= resolution, "{gap}");
        // And no closer: the halving stops at that resolution, not at the last bit.
        let (lo, hi) = xs
            .iter()
            .fold((f64::MAX, f64::MIN), |(lo, hi), &x| (lo.min(x), hi.max(x)));
        assert!(hi - lo > resolution / 2.0, "{lo} {hi}");
        let ks: Vec<i128> = found
            .iter()
            .filter_map(|i| match i[1] {
                Value::Int(k) => Some(k),
                _ => None,
            })
            .collect();
        assert!(ks.contains(&9) && ks.contains(&10), "{found:?}");
        // From each of six bases, sixteen points along each parameter and the halvings of
        // one gap along each (of x, to 2⁻²¹ of its quarter).
        assert!(calls.get() <= 6 * (2 * 16 + 24 + 4), "{}", calls.get());
        // One value of a parameter: no gap to halve.
        assert!(edges(&sig, &inputs[..1], &mut f).is_empty());
    }

    #[test]
    fn a_value_that_is_no_finite_number_is_no_point_to_halve_from() {
        let sig =
            Signature::parse("fn f(x: f64) -> Option<f64>", &[Kind::Float], Kind::Option).unwrap();
        // Refused at infinity and at not a number, a value everywhere else.
        let mut f = |v: &[Value]| match v[0] {
            Value::Float(x) => Some(Value::Option(
                x.is_finite().then(|| Box::new(Value::Float(x))),
            )),
            _ => None,
        };
        let mut inputs: Vec<Vec<Value>> =
            (0..20).map(|i| vec![Value::Float(f64::from(i))]).collect();
        inputs.push(vec![Value::Float(f64::INFINITY)]);
        inputs.push(vec![Value::Float(f64::NAN)]);
        let found = edges(&sig, &inputs, &mut f);
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn the_kind_of_a_result() {
        use Value::*;
        assert_eq!(kind_of(None), None);
        assert_eq!(kind_of(Some(&Option(None))), Some(0));
        assert_eq!(kind_of(Some(&Option(Some(Box::new(Int(0)))))), Some(1));
        assert_eq!(kind_of(Some(&Result(Err("e".into())))), Some(0));
        assert_eq!(kind_of(Some(&Result(Ok(Box::new(Int(0)))))), Some(1));
        assert_eq!(kind_of(Some(&Bool(true))), Some(1));
        assert_eq!(kind_of(Some(&Bool(false))), Some(0));
        assert_eq!(kind_of(Some(&Int(-4))), Some(-1));
        assert_eq!(kind_of(Some(&Int(0))), Some(0));
        assert_eq!(kind_of(Some(&Float(2.0))), Some(1));
        assert_eq!(kind_of(Some(&Float(-2.0))), Some(1));
        assert_eq!(kind_of(Some(&Float(f64::NAN))), Some(2));
        assert_eq!(kind_of(Some(&Str("a".into()))), Some(1));
    }

    #[test]
    fn an_integer_is_moved_only_as_far_as_a_result_that_grows_with_it_stays_small() {
        let sig = Signature::parse(
            "fn f(n: u64, k: i8, x: f64) -> Vec<u64>",
            &[Kind::Int, Kind::Int, Kind::Float],
            Kind::IntSeq,
        )
        .unwrap();
        let given: Vec<Vec<Value>> = (0..10)
            .map(|i| vec![Value::Int(i * 7), Value::Int(-i), Value::Float(0.5)])
            .collect();
        // A result as long as `n`: moved by sixteen at a time from the largest given, 63,
        // until it passes 65,536 elements.
        let mut calls = Vec::new();
        let mut long = |v: &[Value]| {
            let Value::Int(n) = v[0] else { unreachable!() };
            calls.push(v.to_vec());
            Some(Value::IntSeq(vec![
                0;
                usize::try_from(n).ok()?.min(1 << 20)
            ]))
        };
        let made = reach(&sig, &given, &mut long);
        assert_eq!(made, [Some(63 * 16 * 16), None, None]);
        // Each call is from the input where `n` is largest, and moves one parameter.
        assert!(calls
            .iter()
            .all(|c| c[1] == Value::Int(-9) && c[2] == Value::Float(0.5)));
        // Of an `i8`, its values from sixteen on are out of it: its type's ends are in reach.
        let ns: Vec<i128> = calls
            .iter()
            .filter_map(|c| match c[0] {
                Value::Int(n) => Some(n),
                _ => None,
            })
            .collect();
        assert_eq!(ns[..3], [63 * 16, 63 * 256, 63 * 4096]);
        assert!(within(
            &made,
            &[Value::Int(63 * 256), Value::Int(-128), Value::Float(1e300)]
        ));
        assert!(!within(
            &made,
            &[Value::Int(63 * 256 + 1), Value::Int(0), Value::Float(0.0)]
        ));
        // A result whose size does not follow `n` leaves it all its type.
        let mut short = |_: &[Value]| Some(Value::IntSeq(vec![1, 2]));
        assert_eq!(reach(&sig, &given, &mut short), [None, None, None]);
        // Nor does a refusal stop it: a function that panics far out says so there.
        let mut refusing = |_: &[Value]| None;
        assert_eq!(reach(&sig, &given, &mut refusing), [None, None, None]);
        assert_eq!(
            elements(&Value::List(vec![
                Value::Record(vec![
                    Value::Int(1),
                    Value::Int(2)
                ]);
                3
            ])),
            6
        );
        assert_eq!(elements(&Value::Str("abc".into())), 3);
        assert_eq!(
            elements(&Value::Option(Some(Box::new(Value::FloatSeq(vec![
                0.0;
                4
            ]))))),
            4
        );
        assert_eq!(
            elements(&Value::Result(Ok(Box::new(Value::IntSeq(vec![0; 5]))))),
            5
        );
        assert_eq!(elements(&Value::Int(7)), 1);
    }
}
