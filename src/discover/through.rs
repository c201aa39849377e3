//! Classes of inputs on which the result is one of the inputs passed through as it is: a
//! table held at its first value before its first knot (`if !x.is_empty() && xp <= x[0] =>
//! y.first().is_none_or(|&v| v == result)`), the larger of two where it is the first (`if a >= b =>
//! result == a`), an absolute value of a number that is not negative (`if x >= 0.0 =>
//! result == x`). A person writes these of every function that clamps, selects or holds a
//! value; they catch a wrong branch that no moved input tells apart (the ends of a table
//! swapped). The search judges them on the live calls and their follow-up runs (see
//! `Discovery::on_boundaries`); offline, [`members`] of each class are built at and past its
//! boundary to break what is claimed of it.

use std::collections::HashMap;

use super::constant::significant;
use super::guard::{Guard, Operand, Side};
use super::property::Property;
use super::signature::Signature;
use super::value::{push_with, Kind, Value};

/// Whether a signature can have such classes: a number result and a number of its type
/// among the inputs.
pub(super) fn applies(sig: &Signature) -> bool {
    !operands(sig).is_empty()
}

/// The numbers of the input a result of `sig` may be: parameters and the ends of sequences
/// of the result's own type, so that the pasted equality compiles.
fn operands(sig: &Signature) -> Vec<Operand> {
    if !sig.output.is_number() {
        return Vec::new();
    }
    let out = sig.output_ty.trim_start_matches('&');
    (0..sig.params.len())
        .flat_map(|p| [Operand::Param(p), Operand::First(p), Operand::Last(p)])
        .filter(|x| x.ty(sig).as_deref() == Some(out))
        .collect()
}

/// The pairs a guard may compare: each number parameter and another of its type (each pair
/// once) or an end of a sequence of its type.
fn pairs(sig: &Signature) -> Vec<(usize, Operand)> {
    let mut out = Vec::new();
    for left in 0..sig.params.len() {
        // A number's type; none of any other parameter.
        let Some(ty) = Operand::Param(left).ty(sig) else {
            continue;
        };
        out.extend(
            (0..sig.params.len())
                .flat_map(|p| {
                    let scalar = (p > left).then_some(Operand::Param(p));
                    scalar
                        .into_iter()
                        .chain([Operand::First(p), Operand::Last(p)])
                })
                .filter(|r| r.ty(sig).as_ref() == Some(&ty))
                .map(|r| (left, r)),
        );
    }
    out
}

/// The guards a class may be: each of [`pairs`] at most or at least, then the signs of each
/// number parameter, the wider first, then each pair equal, the narrowest: taken where no
/// wider class will do (a table's value at its first knot, where past it the table is
/// extrapolated).
fn guards(sig: &Signature) -> Vec<Guard> {
    // Of an end of a sequence, also where the sequence is sorted, after the wider.
    let pairs: Vec<(usize, Operand, bool)> = pairs(sig)
        .into_iter()
        .flat_map(|(left, right)| {
            let sorted = (!matches!(right, Operand::Param(_))).then_some((left, right, true));
            std::iter::once((left, right, false)).chain(sorted)
        })
        .collect();
    // Strict where the boundary itself is not in the class.
    let mut out: Vec<Guard> = [[Side::AtMost, Side::AtLeast], [Side::Below, Side::Above]]
        .iter()
        .flat_map(|sides| {
            pairs.iter().flat_map(move |&(left, right, sorted)| {
                sides.map(|side| Guard::Order {
                    left,
                    right,
                    side,
                    sorted,
                })
            })
        })
        .collect();
    out.extend(Guard::all(sig).into_iter().filter(|g| {
        matches!(
            g,
            Guard::NonNegative(_) | Guard::Positive(_) | Guard::NonPositive(_) | Guard::Negative(_)
        )
    }));
    out.extend(pairs.iter().map(|&(left, right, sorted)| Guard::Order {
        left,
        right,
        side: Side::Equal,
        sorted,
    }));
    out
}

/// How many of the given inputs boundary probes are made from, at most (spread over them):
/// enough for a class on a boundary to reach the inputs a relation needs by default, twice.
const PROBED: usize = 2 * super::DEFAULT_MIN_INPUTS;

/// Inputs on the boundary of each class by order, where few live calls are: from each of
/// [`PROBED`] of the given inputs, each number parameter set to each number of its type it
/// may be compared with (`xp = x[0]`, `a = b`), within its type; and so again with that
/// number carried far up and down, where a result computed on the boundary may round off
/// the number it should be ([`members`] go there).
pub(super) fn probes(sig: &Signature, inputs: &[Vec<Value>]) -> Vec<Vec<Value>> {
    let mut out: Vec<Vec<Value>> = Vec::new();
    if !applies(sig) {
        return out;
    }
    let step = inputs.len().div_ceil(PROBED).max(1);
    for (left, right) in pairs(sig) {
        for given in inputs.iter().step_by(step) {
            // Of two parameters, the pair carried is only another pair.
            let shifts: &[f64] = match right {
                Operand::Param(_) => &[0.0],
                _ => &[0.0, FAR, -FAR],
            };
            let carried = shifts
                .iter()
                .filter_map(|&shift| shifted(sig, given, right.param(), shift));
            for base in carried {
                if let Some(v) = right.value(&base).and_then(|v| moved(sig, left, &v, 0.0)) {
                    push_with(&mut out, &base, left, v);
                }
            }
        }
    }
    out
}

/// The classes on which every one of `runs` (an input, its result, and whether it was
/// probed on a boundary rather than called or followed up) has the result one input passed
/// through, each with that [`Property::Equals`]: of each number the result may
/// be, the first guard in [`guards`]'s order under which it is on at least `fewest` distinct
/// inputs, is not on some input outside, and is on more of them than chance would make it,
/// were the class of no account. With each, the distinct inputs it held on.
pub(super) fn classes(
    sig: &Signature,
    runs: &[(&[Value], &Value, bool)],
    fewest: usize,
) -> Vec<(Guard, Property, usize)> {
    let operands = operands(sig);
    if operands.is_empty() {
        return Vec::new();
    }
    let guards = guards(sig);
    // Each run's input by a number, told apart by its text once: a follow-up run shares its
    // call's input but the moved part.
    let mut texts: HashMap<String, usize> = HashMap::new();
    let id: Vec<usize> = runs
        .iter()
        .map(|(input, _, _)| {
            let next = texts.len();
            *texts.entry(format!("{input:?}")).or_insert(next)
        })
        .collect();
    // Which runs each guard admits, once for every number the result may be. Probes crowd a
    // boundary: they are evidence of a class by order alone.
    let admits: Vec<Vec<Option<bool>>> = guards
        .iter()
        .map(|g| {
            let ordered = matches!(g, Guard::Order { .. });
            runs.iter()
                .map(|(input, _, probed)| (ordered || !probed).then(|| g.holds(input)))
                .collect()
        })
        .collect();
    // The last pair tried that counted an input inside, or outside: no set to clear.
    let (mut inside_at, mut outside_at) = (vec![0usize; texts.len()], vec![0usize; texts.len()]);
    let mut pair = 0;
    let tried = guards.len() * operands.len();
    let mut out = Vec::new();
    for &x in &operands {
        let prop = Property::Equals(x);
        let holds: Vec<bool> = runs.iter().map(|(i, y, _)| prop.holds(i, y, 0.0)).collect();
        // A number passed through everywhere is the identity: no class says more.
        if holds.iter().all(|&h| h) {
            continue;
        }
        for (&guard, admitted) in guards.iter().zip(&admits) {
            // Two numbers equal: the result either is one claim, whether or not the
            // sequence is also sorted.
            if let Guard::Order {
                left,
                right,
                side: Side::Equal,
                ..
            } = guard
            {
                let equal = [Operand::Param(left), right];
                let claimed = out.iter().any(|&(g, p, _)| match (g, p) {
                    (
                        Guard::Order {
                            left: l,
                            right: r,
                            side: Side::Equal,
                            ..
                        },
                        Property::Equals(y),
                    ) => l == left && r == right && equal.contains(&y),
                    _ => false,
                });
                if equal.contains(&x) && claimed {
                    continue;
                }
            }
            pair += 1;
            let (mut inside, mut outside, mut holding) = (0, 0, 0);
            let mut broken = false;
            for (k, admitted) in admitted.iter().enumerate() {
                match admitted {
                    None => continue,
                    Some(true) if !holds[k] => {
                        broken = true;
                        break;
                    }
                    Some(true) if inside_at[id[k]] != pair => {
                        inside_at[id[k]] = pair;
                        inside += 1;
                    }
                    Some(false) if outside_at[id[k]] != pair => {
                        outside_at[id[k]] = pair;
                        outside += 1;
                        holding += usize::from(holds[k]);
                    }
                    _ => {}
                }
            }
            if broken || inside < fewest || holding == outside {
                continue;
            }
            if significant(inside, holding, outside, tried) {
                out.push((guard, prop, inside));
                break;
            }
        }
    }
    out
}

/// How many of the given inputs class members are built from (spread over them).
const BASES: usize = 6;

/// Inputs in each class of `guards` that is a [`Guard::Order`], built to break what is
/// claimed of it: from a few of the given inputs, the compared parameter set onto its
/// boundary (`xp = x[0]`), a step past it and far past it, within its type; where the
/// boundary is another parameter, that one moved likewise.
pub(super) fn members(sig: &Signature, inputs: &[Vec<Value>], guards: &[Guard]) -> Vec<Vec<Value>> {
    let mut out: Vec<Vec<Value>> = Vec::new();
    let step = inputs.len().div_ceil(BASES).max(1);
    for &guard in guards {
        let Guard::Order {
            left, right, side, ..
        } = guard
        else {
            continue;
        };
        // Past the boundary on the class's side: below it for `<=`; of an equality, on it.
        let (past, steps) = match side {
            Side::AtMost => (-1.0, &[0.0, 1.0, FAR][..]),
            Side::AtLeast => (1.0, &[0.0, 1.0, FAR][..]),
            Side::Below => (-1.0, &[1.0, FAR][..]),
            Side::Above => (1.0, &[1.0, FAR][..]),
            Side::Equal => (0.0, &[0.0][..]),
        };
        for base in inputs.iter().step_by(step) {
            // The boundary where it is, and carried far up and down with the number or
            // sequence it is read from: a class that held only where the boundary happened
            // to lie below the other inputs (a point below a table's first value, not its
            // first knot) fails there.
            let carried = [0.0, FAR, -FAR]
                .into_iter()
                .filter_map(|shift| shifted(sig, base, right.param(), shift));
            for base in carried {
                let Some(bound) = right.value(&base) else {
                    continue;
                };
                for d in steps {
                    if let Some(v) = moved(sig, left, &bound, past * d) {
                        push_with(&mut out, &base, left, v);
                    }
                }
            }
            // The other side moved to the left parameter's value, and away from it.
            let (Operand::Param(r), Some(l)) = (right, base.get(left)) else {
                continue;
            };
            for d in steps {
                if let Some(v) = moved(sig, r, l, -past * d) {
                    push_with(&mut out, base, r, v);
                }
            }
        }
    }
    out.retain(|input| guards.iter().any(|g| g.holds(input)));
    out
}

/// How far a boundary is carried from where the given inputs put it.
const FAR: f64 = 1000.0;

/// `base` with parameter `p` (a number, or each element of a sequence) moved by `d`: `None`
/// where it would leave its type.
fn shifted(sig: &Signature, base: &[Value], p: usize, d: f64) -> Option<Vec<Value>> {
    let mut out = base.to_vec();
    out[p] = match &base[p] {
        Value::FloatSeq(xs) => Value::FloatSeq(xs.iter().map(|x| x + d).collect()),
        Value::IntSeq(xs) => {
            let (lo, hi) = sig.params[p].element_range();
            let step = d as i128;
            let moved: Option<Vec<i128>> = xs
                .iter()
                .map(|x| x.checked_add(step).filter(|x| (lo..=hi).contains(x)))
                .collect();
            Value::IntSeq(moved?)
        }
        v => moved(sig, p, v, d)?,
    };
    Some(out)
}

/// `v + d`, as a value of parameter `p`'s type: `None` past its range.
fn moved(sig: &Signature, p: usize, v: &Value, d: f64) -> Option<Value> {
    match (v, sig.params[p].kind) {
        (Value::Float(x), Kind::Float) => Some(Value::Float(x + d)),
        (Value::Int(i), Kind::Int) => {
            let (lo, hi) = sig.params[p].int_range();
            // `d` is whole: one of the steps above.
            i.checked_add(d as i128)
                .filter(|x| (lo..=hi).contains(x))
                .map(Value::Int)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig(text: &str, kinds: &[Kind], output: Kind) -> Signature {
        Signature::parse(text, kinds, output).unwrap()
    }

    // Knots searched as sorted ones are: of others, it answers as the search happens to go.
    fn table(x: &[f64], y: &[f64], xp: f64) -> f64 {
        match x.partition_point(|&v| v <= xp) {
            0 => y[0],
            k if k == x.len() => y[y.len() - 1],
            k => {
                let t = (xp - x[k - 1]) / (x[k] - x[k - 1]);
                y[k - 1] + t * (y[k] - y[k - 1])
            }
        }
    }

    fn inputs(n: usize) -> Vec<Vec<Value>> {
        (0..n)
            .map(|i| {
                let x: Vec<f64> = (0..4)
                    .map(|k| (k * (i % 3 + 1)) as f64 + i as f64)
                    .collect();
                // Values in the range of the knots, as no rule may read the two apart.
                let y: Vec<f64> = (0..4)
                    .map(|k| ((k * 7 + i) % 11) as f64 - 3.5 + i as f64)
                    .collect();
                let xp = x[0] - 3.0 + (i % 9) as f64 * 1.5;
                vec![Value::FloatSeq(x), Value::FloatSeq(y), Value::Float(xp)]
            })
            .collect()
    }

    fn found(
        sig: &Signature,
        f: impl Fn(&[Value]) -> Value,
        inputs: &[Vec<Value>],
    ) -> Vec<(Guard, Property)> {
        let outputs: Vec<Value> = inputs.iter().map(|i| f(i)).collect();
        // Inputs on a boundary, as `probes` makes them, are marked so.
        let runs: Vec<(&[Value], &Value, bool)> = inputs
            .iter()
            .zip(&outputs)
            .map(|(i, y)| (i.as_slice(), y, on_boundary(sig, i)))
            .collect();
        classes(sig, &runs, 10)
            .into_iter()
            .map(|(g, p, _)| (g, p))
            .collect()
    }

    fn on_boundary(sig: &Signature, input: &[Value]) -> bool {
        pairs(sig).iter().any(|&(left, right)| {
            let equal = |v: Value| Some(v) == input.get(left).cloned();
            right.value(input).is_some_and(equal)
        })
    }

    fn interp_sig() -> Signature {
        sig(
            "fn interp(x: &[f64], y: &[f64], xp: f64) -> f64",
            &[Kind::FloatSeq, Kind::FloatSeq, Kind::Float],
            Kind::Float,
        )
    }

    fn call(f: fn(&[f64], &[f64], f64) -> f64) -> impl Fn(&[Value]) -> Value {
        move |i: &[Value]| {
            let (Value::FloatSeq(x), Value::FloatSeq(y), Value::Float(p)) = (&i[0], &i[1], &i[2])
            else {
                unreachable!()
            };
            Value::Float(f(x, y, *p))
        }
    }

    #[test]
    fn a_table_held_at_its_ends_passes_them_through_past_its_knots() {
        let sig = interp_sig();
        let got = found(&sig, call(table), &inputs(120));
        let first = Guard::Order {
            left: 2,
            right: Operand::First(0),
            side: Side::AtMost,
            sorted: false,
        };
        let last = Guard::Order {
            left: 2,
            right: Operand::Last(0),
            side: Side::AtLeast,
            sorted: false,
        };
        assert!(
            got.contains(&(first, Property::Equals(Operand::First(1)))),
            "{got:?}"
        );
        assert!(
            got.contains(&(last, Property::Equals(Operand::Last(1)))),
            "{got:?}"
        );
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(
            first.text(&sig),
            "!x.is_empty() && xp <= x[0]",
            "an element is read only where it is there"
        );
        assert_eq!(last.text(&sig), "!x.is_empty() && xp >= x[x.len() - 1]");
        assert_eq!(
            Property::Equals(Operand::First(1)).text(&sig),
            "y.first().is_none_or(|&v| v == result)"
        );
        assert_eq!(
            Property::Equals(Operand::Last(1)).text(&sig),
            "y.last().is_none_or(|&v| v == result)"
        );
        // Ends swapped, or extrapolated: no class.
        let swapped = |x: &[f64], y: &[f64], p: f64| {
            let v = table(x, y, p);
            if p < x[0] {
                y[y.len() - 1]
            } else {
                v
            }
        };
        let got = found(&sig, call(swapped), &inputs(120));
        assert!(!got.iter().any(|(g, _)| *g == first), "{got:?}");
        assert!(got.iter().any(|(g, _)| *g == last), "{got:?}");
        let slope = |x: &[f64], y: &[f64], p: f64| {
            let l = x.len() - 1;
            match p {
                p if p < x[0] => y[0] + (p - x[0]) * (y[1] - y[0]) / (x[1] - x[0]),
                p if p > x[l] => y[l] + (p - x[l]) * (y[l] - y[l - 1]) / (x[l] - x[l - 1]),
                p => table(x, y, p),
            }
        };
        // Extrapolated, a table is at its ends only on them.
        let got = found(&sig, call(slope), &inputs(120));
        assert!(
            got.iter().all(|(g, _)| matches!(
                g,
                Guard::Order {
                    side: Side::Equal,
                    ..
                }
            )),
            "{got:?}"
        );
    }

    #[test]
    fn an_end_of_a_table_is_compared_where_the_table_is_sorted_if_only_there_it_holds() {
        let sig = interp_sig();
        // Half the tables given with their knots reversed, where a table read as sorted
        // answers as it happens.
        let mut given = inputs(120);
        for input in given.iter_mut().step_by(2) {
            if let Value::FloatSeq(x) = &mut input[0] {
                x.reverse();
            }
        }
        let got = found(&sig, call(table), &given);
        let first = Guard::Order {
            left: 2,
            right: Operand::First(0),
            side: Side::AtMost,
            sorted: true,
        };
        assert!(
            got.contains(&(first, Property::Equals(Operand::First(1)))),
            "{got:?}"
        );
        assert_eq!(
            first.text(&sig),
            "!x.is_empty() && x.is_sorted() && xp <= x[0]"
        );
        assert!(
            !first.holds(&given[0])
                && first.holds(&given[1])
                    == (given[1][2].number() <= Some(given[1][0].elements().unwrap()[0]))
        );
    }

    #[test]
    fn a_boundary_probed_gives_the_value_at_a_knot_and_the_fixed_point_of_a_mean() {
        let sig = interp_sig();
        let extrapolated = |x: &[f64], y: &[f64], p: f64| {
            let l = x.len() - 1;
            let k = x.iter().rposition(|&v| v <= p).unwrap_or(0).min(l - 1);
            y[k] + (p - x[k]) * (y[k + 1] - y[k]) / (x[k + 1] - x[k])
        };
        let given = inputs(60);
        let mut all = given.clone();
        all.extend(probes(&sig, &given));
        let got = found(&sig, call(extrapolated), &all);
        let at_first = Guard::Order {
            left: 2,
            right: Operand::First(0),
            side: Side::Equal,
            sorted: false,
        };
        assert!(
            got.contains(&(at_first, Property::Equals(Operand::First(1)))),
            "{got:?}"
        );
        assert_eq!(at_first.text(&sig), "!x.is_empty() && xp == x[0]");
        // Without the probes, too few calls sit on a knot.
        assert!(!found(&sig, call(extrapolated), &given)
            .iter()
            .any(|(g, _)| *g == at_first));
        // Each point is set onto each end of each table, once.
        assert_eq!(probes(&sig, &given).len(), 3 * 4 * given.len());
        let two = sig_of_two();
        let pairs: Vec<Vec<Value>> = (0..40)
            .map(|i| {
                vec![
                    Value::Float(f64::from(i) - 9.5),
                    Value::Float(f64::from(i * 3 % 37) * 1.25),
                ]
            })
            .collect();
        let mut all = pairs.clone();
        all.extend(probes(&two, &pairs));
        assert!(
            all[pairs.len()..].iter().all(|i| i[0] == i[1]),
            "each pair set equal"
        );
        let mean =
            |i: &[Value]| Value::Float((i[0].number().unwrap() + i[1].number().unwrap()) / 2.0);
        let got = found(&two, mean, &all);
        let equal = Guard::Order {
            left: 0,
            right: Operand::Param(1),
            side: Side::Equal,
            sorted: false,
        };
        assert_eq!(got, [(equal, Property::Equals(Operand::Param(0)))]);
        assert_eq!(equal.text(&two), "a == b");
    }

    #[test]
    fn a_boundary_a_result_misses_by_a_rounding_makes_the_class_strict() {
        let sig = interp_sig();
        // On its first knot, the table's value is computed, an ulp off.
        let rounded = |x: &[f64], y: &[f64], p: f64| match p == x[0] {
            true => y[0] + f64::EPSILON * y[0].abs().max(1.0),
            false => table(x, y, p),
        };
        let given = inputs(120);
        let mut all = given.clone();
        all.extend(probes(&sig, &given));
        let got = found(&sig, call(rounded), &all);
        let below = Guard::Order {
            left: 2,
            right: Operand::First(0),
            side: Side::Below,
            sorted: false,
        };
        assert!(
            got.contains(&(below, Property::Equals(Operand::First(1)))),
            "{got:?}"
        );
        assert_eq!(below.text(&sig), "!x.is_empty() && xp < x[0]");
        // Its members are past the boundary, never on it.
        let made = members(&sig, &given[..1], &[below]);
        let x0 = given[0][0].elements().unwrap()[0];
        let points: Vec<f64> = made.iter().filter_map(|i| i[2].number()).collect();
        assert_eq!(points[..2], [x0 - 1.0, x0 - 1000.0]);
        assert!(made.iter().all(|i| below.holds(i)));
        let above = Guard::Order {
            left: 2,
            right: Operand::Last(0),
            side: Side::Above,
            sorted: false,
        };
        let input = &given[0];
        let last = *input[0].elements().unwrap().last().unwrap();
        let at = |p: f64| {
            let mut i = input.clone();
            i[2] = Value::Float(p);
            i
        };
        assert!(above.holds(&at(last + 0.5)) && !above.holds(&at(last)));
        assert!(below.holds(&at(x0 - 0.5)) && !below.holds(&at(x0)));
        assert_eq!(above.text(&sig), "!x.is_empty() && xp > x[x.len() - 1]");
    }

    fn sig_of_two() -> Signature {
        sig(
            "fn mean(a: f64, b: f64) -> f64",
            &[Kind::Float, Kind::Float],
            Kind::Float,
        )
    }

    #[test]
    fn a_class_needs_enough_inputs_a_chance_would_not_explain_and_one_outside_it_fails() {
        let sig = interp_sig();
        // Nine points before the first knot, one fewer than a class needs; ten, as many.
        let before_first = |kept: usize| -> Vec<Vec<Value>> {
            let mut before = 0;
            inputs(90)
                .into_iter()
                .map(|mut i| {
                    if let (Value::Float(p), Value::FloatSeq(x)) = (&i[2], &i[0]) {
                        if *p <= x[0] {
                            before += 1;
                            if before > kept {
                                i[2] = Value::Float(x[0] + 0.5);
                            }
                        }
                    }
                    i
                })
                .collect()
        };
        let first = |got: &[(Guard, Property)]| {
            got.iter()
                .any(|(_, p)| *p == Property::Equals(Operand::First(1)))
        };
        let got = found(&sig, call(table), &before_first(9));
        assert!(!first(&got), "{got:?}");
        let got = found(&sig, call(table), &before_first(10));
        assert!(first(&got), "{got:?}");
        // A constant table: its value is each end everywhere, no class of it.
        let flat = |_: &[f64], y: &[f64], _: f64| y[0];
        let flat_inputs: Vec<Vec<Value>> = inputs(60)
            .into_iter()
            .map(|mut i| {
                i[1] = Value::FloatSeq(vec![2.5; 4]);
                i
            })
            .collect();
        assert_eq!(found(&sig, call(flat), &flat_inputs), []);
        // The value that the inputs seldom give outside the class is claimed on fewer
        // calls than one most inputs give by chance.
        assert!(significant(10, 0, 50, 40));
        assert!(!significant(10, 30, 50, 40));
    }

    #[test]
    fn the_larger_of_two_and_a_magnitude_pass_a_parameter_through_on_their_class() {
        let two = sig(
            "fn larger(a: i64, b: i64) -> i64",
            &[Kind::Int, Kind::Int],
            Kind::Int,
        );
        let pairs: Vec<Vec<Value>> = (0..80)
            .map(|i| vec![Value::Int(i * 7 % 23 - 11), Value::Int(i * 5 % 19 - 9)])
            .collect();
        let larger = |i: &[Value]| match (&i[0], &i[1]) {
            (Value::Int(a), Value::Int(b)) => Value::Int(*a.max(b)),
            _ => unreachable!(),
        };
        let got = found(&two, larger, &pairs);
        let a_first = Guard::Order {
            left: 0,
            right: Operand::Param(1),
            side: Side::AtLeast,
            sorted: false,
        };
        let b_first = Guard::Order {
            left: 0,
            right: Operand::Param(1),
            side: Side::AtMost,
            sorted: false,
        };
        assert_eq!(
            got,
            [
                (a_first, Property::Equals(Operand::Param(0))),
                (b_first, Property::Equals(Operand::Param(1)))
            ]
        );
        assert_eq!(a_first.text(&two), "a >= b");
        assert_eq!(
            Property::Equals(Operand::Param(1)).text(&two),
            "result == b"
        );
        // Of a `u64` and an `i64`, no comparison compiles: none is tried.
        let mixed = sig(
            "fn f(a: i64, b: u64) -> i64",
            &[Kind::Int, Kind::Int],
            Kind::Int,
        );
        assert!(guards(&mixed)
            .iter()
            .all(|g| !matches!(g, Guard::Order { .. })));
        let one = sig("fn magnitude(x: &f64) -> f64", &[Kind::Float], Kind::Float);
        let xs: Vec<Vec<Value>> = (0..60)
            .map(|i| vec![Value::Float(f64::from(i) * 0.7 - 20.0)])
            .collect();
        let abs = |i: &[Value]| Value::Float(i[0].number().unwrap().abs());
        let got = found(&one, abs, &xs);
        assert_eq!(
            got,
            [(Guard::NonNegative(0), Property::Equals(Operand::Param(0)))]
        );
        assert_eq!(
            Property::Equals(Operand::Param(0)).text(&one),
            "result == *x"
        );
        // The identity passes its input through everywhere: no class says more.
        let same = |i: &[Value]| i[0].clone();
        assert_eq!(found(&one, same, &xs), []);
        // A float result is never an integer parameter, nor a sequence's end of integers.
        let ints = sig(
            "fn f(n: i32, xs: &[i64]) -> f64",
            &[Kind::Int, Kind::IntSeq],
            Kind::Float,
        );
        assert!(!applies(&ints));
    }

    #[test]
    fn a_result_is_a_number_or_an_end_exactly_and_an_empty_sequence_has_no_end_to_be() {
        let input = [
            Value::IntSeq(vec![4, -7]),
            Value::IntSeq(Vec::new()),
            Value::Int(9),
            Value::FloatSeq(vec![0.5]),
        ];
        let is = |x: Operand, y: Value| Property::Equals(x).holds(&input, &y, 1.0);
        assert!(is(Operand::First(0), Value::Int(4)) && is(Operand::Last(0), Value::Int(-7)));
        assert!(!is(Operand::First(0), Value::Int(-7)) && !is(Operand::Last(0), Value::Int(4)));
        assert!(is(Operand::Param(2), Value::Int(9)) && !is(Operand::Param(2), Value::Int(8)));
        // Exact, whatever the noise.
        assert!(!is(Operand::First(3), Value::Float(0.5000001)));
        assert!(is(Operand::Last(3), Value::Float(0.5)));
        // Of an empty sequence, there is no end it fails to be.
        assert!(is(Operand::First(1), Value::Int(3)) && is(Operand::Last(1), Value::Int(3)));
        // A parameter that is no number is nothing the result is.
        assert!(!is(Operand::Param(0), Value::Int(4)));
        assert_eq!(Operand::First(0).value(&input), Some(Value::Int(4)));
        assert_eq!(Operand::Last(3).value(&input), Some(Value::Float(0.5)));
        assert_eq!(Operand::Last(1).value(&input), None);
        assert_eq!(Operand::First(2).value(&input), None);
    }

    #[test]
    fn the_chance_of_a_class_is_shared_by_every_guard_and_number_tried() {
        let two = sig_of_two();
        // Ten inputs with `a > b`, each giving `a`; of eighteen with `a < b`, ten give `a` too.
        let mut runs: Vec<(Vec<Value>, Value)> = Vec::new();
        for k in -4..6 {
            let a = f64::from(k);
            runs.push((
                vec![Value::Float(a), Value::Float(a - 20.0)],
                Value::Float(a),
            ));
        }
        for k in -9..9 {
            let a = f64::from(k);
            let y = if k % 2 == 0 || k == -9 { a } else { a + 100.0 };
            runs.push((
                vec![Value::Float(a), Value::Float(a + 5.0)],
                Value::Float(y),
            ));
        }
        let runs: Vec<(&[Value], &Value, bool)> =
            runs.iter().map(|(i, y)| (i.as_slice(), y, false)).collect();
        // By chance alone, ten of ten would give `a` with a chance of (11/20)^10, 0.25%: below
        // 5% for one class, not for the 26 that two numbers under 13 guards make.
        assert_eq!(guards(&two).len() * operands(&two).len(), 26);
        assert!(significant(10, 10, 18, 1) && !significant(10, 10, 18, 26));
        assert!(classes(&two, &runs, 10).is_empty());
    }

    #[test]
    fn a_result_equal_to_two_equal_numbers_is_claimed_once() {
        let at = sig(
            "fn at_start(xs: &[f64], p: f64) -> f64",
            &[Kind::FloatSeq, Kind::Float],
            Kind::Float,
        );
        // The point itself on the first element, something else anywhere else.
        let f = |i: &[Value]| {
            let (Some(first), Some(p)) = (
                i[0].elements().and_then(|x| x.first().copied()),
                i[1].number(),
            ) else {
                unreachable!()
            };
            Value::Float(if p == first { p } else { p + 1000.0 })
        };
        let given: Vec<Vec<Value>> = (0..40)
            .map(|i| {
                let xs: Vec<f64> = (0..3).map(|k| f64::from(i * 3 + k) * 0.5).collect();
                vec![Value::FloatSeq(xs), Value::Float(f64::from(i) * 0.7 - 3.0)]
            })
            .collect();
        let mut all = given.clone();
        all.extend(probes(&at, &given));
        let got = found(&at, f, &all);
        let equal = Guard::Order {
            left: 1,
            right: Operand::First(0),
            side: Side::Equal,
            sorted: false,
        };
        assert_eq!(got, [(equal, Property::Equals(Operand::First(0)))]);
    }

    #[test]
    fn a_claim_under_one_pair_set_equal_does_not_stand_for_another_pair() {
        let three = sig(
            "fn f(a: f64, b: f64, c: f64) -> f64",
            &[Kind::Float, Kind::Float, Kind::Float],
            Kind::Float,
        );
        // `a` where `a == b` or `a == c`, and none of the three elsewhere.
        let f = |i: &[Value]| {
            let [a, b, c] = [0, 1, 2].map(|k| i[k].number().unwrap());
            Value::Float(if a == b || a == c {
                a
            } else {
                a + b + c + 1000.0
            })
        };
        let given: Vec<Vec<Value>> = (0..40)
            .map(|i| {
                let at = |k: i32| Value::Float(f64::from((i * k) % 23) * 0.5 - 3.0);
                vec![at(7), at(11), at(13)]
            })
            .collect();
        let mut all = given.clone();
        all.extend(probes(&three, &given));
        let equal = |right: usize| Guard::Order {
            left: 0,
            right: Operand::Param(right),
            side: Side::Equal,
            sorted: false,
        };
        // `a == c => result == c` is its own claim, though `a` was claimed under `a == b`.
        assert_eq!(
            found(&three, f, &all),
            [
                (equal(1), Property::Equals(Operand::Param(0))),
                (equal(2), Property::Equals(Operand::Param(2)))
            ]
        );
    }

    #[test]
    fn members_sit_on_the_boundary_and_past_it_within_the_type() {
        let table = interp_sig();
        let base = inputs(1);
        let first = Guard::Order {
            left: 2,
            right: Operand::First(0),
            side: Side::AtMost,
            sorted: false,
        };
        let made = members(&table, &base, &[first, Guard::Positive(2)]);
        let x0 = match &base[0][0] {
            Value::FloatSeq(x) => x[0],
            _ => unreachable!(),
        };
        // On the boundary and past it, then with the knots carried far up and far down.
        let points: Vec<f64> = made.iter().filter_map(|i| i[2].number()).collect();
        let far = [x0, x0 - 1.0, x0 - 1000.0];
        let expected: Vec<f64> = [0.0, 1000.0, -1000.0]
            .iter()
            .flat_map(|d| far.map(|p| p + d))
            .collect();
        assert_eq!(points, expected);
        assert!(made[..3].iter().all(|i| i[..2] == base[0][..2]));
        let knots = |i: &Vec<Value>| i[0].elements().unwrap();
        let given = knots(&base[0]);
        assert!(made[3..6]
            .iter()
            .all(|i| knots(i)[1] == given[1] + 1000.0 && i[1] == base[0][1]));
        assert!(made[6..].iter().all(|i| knots(i)[3] == given[3] - 1000.0));
        // Of two integers, each side moved onto the other and past it, never past the type.
        let two = sig(
            "fn f(a: u8, b: u8) -> u8",
            &[Kind::Int, Kind::Int],
            Kind::Int,
        );
        let at_least = Guard::Order {
            left: 0,
            right: Operand::Param(1),
            side: Side::AtLeast,
            sorted: false,
        };
        let made = members(&two, &[vec![Value::Int(3), Value::Int(250)]], &[at_least]);
        assert_eq!(
            made,
            [
                vec![Value::Int(250), Value::Int(250)],
                vec![Value::Int(251), Value::Int(250)],
                vec![Value::Int(3), Value::Int(3)],
                vec![Value::Int(3), Value::Int(2)],
            ]
        );
    }
}
