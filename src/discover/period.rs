//! Periods of a function of an integer: the smallest step after which its result comes back
//! (`suffix(n + 100) == suffix(n)` of English ordinals, the weekday of a day's number, a
//! number's last digit). The affine grid moves an integer by one or two; a longer period is
//! found here, offline, by trying each step in turn on the given inputs, and becomes one more
//! translation the search tries (`Signature::periods`).
//!
//! A step must hold on every given input of one sign category, as a guard would state it
//! (`n >= 0`, `n < 0`), moving away from zero: a suffix's period holds for `n >= 0` upwards
//! and for `n < 0` downwards (`suffix(n - 100)`), and fails from `-1` up. It must also hold
//! from and onto each round number of those inputs, where a calendar's exceptions lie (four
//! years hold on almost every year, and fail onto a century). Each wrong step is dropped at
//! the first input it fails on, so the cost is about `LONGEST` calls and a few per input for
//! the period found.

use super::signature::Signature;
use super::transform::Transform;
use super::value::{push_with, Kind, Value};

/// The longest step tried: past a thousand, so that a power of ten up to `1000` is reached
/// and a power of two up to `1024`, and the periods of a calendar (7, 12, 24, 60, 360, 400).
const LONGEST: i128 = 1024;

/// Fewest inputs of a category that a step must be tried on before it is called a period.
const FEWEST: usize = 4;

/// The periods found: for each integer parameter and sign category, the smallest step (past
/// the two the affine grid tries) after which the result came back on every given input of
/// the category, where the results of those inputs are not all one; negative for the
/// negative category, whose inputs move down. `call` runs the function (`None`: it refused
/// the input).
pub(super) fn periods(
    sig: &Signature,
    inputs: &[Vec<Value>],
    call: &mut dyn FnMut(&[Value]) -> Option<Value>,
) -> Vec<(usize, i128)> {
    let mut out = Vec::new();
    for (p, param) in sig.params.iter().enumerate() {
        if param.kind != Kind::Int {
            continue;
        }
        let (bottom, top) = param.int_range();
        let mut bases: Vec<(Vec<Value>, Value)> = Vec::new();
        for input in inputs {
            if input.get(p).is_some_and(|v| matches!(v, Value::Int(_)))
                && !bases.iter().any(|(b, _)| b == input)
            {
                if let Some(y) = call(input) {
                    bases.push((input.clone(), y));
                }
            }
        }
        let at = |input: &[Value]| match input[p] {
            Value::Int(x) => x,
            _ => 0,
        };
        for negative in [false, true] {
            let of: Vec<&(Vec<Value>, Value)> = bases
                .iter()
                .filter(|(input, _)| (at(input) < 0) == negative)
                .collect();
            if of.len() < FEWEST || of.iter().all(|(_, y)| *y == of[0].1) {
                continue;
            }
            let holds = |step: i128, call: &mut dyn FnMut(&[Value]) -> Option<Value>| {
                let mut tried = 0;
                for (input, y) in &of {
                    let moved = at(input).checked_add(step);
                    let Some(moved) = moved.filter(|x| (bottom..=top).contains(x)) else {
                        continue;
                    };
                    let mut next = input.clone();
                    next[p] = Value::Int(moved);
                    if call(&next).as_ref() != Some(y) {
                        return false;
                    }
                    tried += 1;
                }
                // Where a calendar or a number's digits make an exception, at a round number
                // (a century, a thousand): a step must also hold from each round number of
                // the given inputs and to it.
                for (input, _) in &of {
                    for r in rounded(at(input)) {
                        for from in [Some(r), r.checked_sub(step)] {
                            let pair = from.and_then(|x| Some((x, x.checked_add(step)?)));
                            let Some((x, moved)) = pair.filter(|&(x, moved)| {
                                (x < 0) == negative
                                    && (bottom..=top).contains(&x)
                                    && (bottom..=top).contains(&moved)
                            }) else {
                                continue;
                            };
                            let run = |v: i128, call: &mut dyn FnMut(&[Value]) -> Option<Value>| {
                                let mut next = input.clone();
                                next[p] = Value::Int(v);
                                call(&next)
                            };
                            if run(x, call) != run(moved, call) {
                                return false;
                            }
                        }
                    }
                }
                tried >= FEWEST
            };
            let sign = if negative { -1 } else { 1 };
            let Some(step) = (1..=LONGEST).find(|&step| holds(sign * step, call)) else {
                continue;
            };
            if step > 2 {
                out.push((p, sign * step));
            }
        }
    }
    out
}

/// `n` rounded toward zero to each power of ten it reaches past the first: `1937` to
/// `1930`, `1900` and `1000`.
pub(super) fn rounded(n: i128) -> Vec<i128> {
    let mut out = Vec::new();
    let mut scale: i128 = 10;
    while scale <= n.unsigned_abs().min(i128::MAX as u128) as i128 {
        let r = n - n % scale;
        if !out.contains(&r) {
            out.push(r);
        }
        match scale.checked_mul(10) {
            Some(next) => scale = next,
            None => break,
        }
    }
    out
}

/// How many of the given inputs the round numbers are taken from (spread over them).
const ROUNDED_BASES: usize = 6;

/// Inputs built to break a relation between an integer and its follow-up `a·n + b`: from a
/// few of the given inputs, `n` such that the follow-up is a round number of the given
/// input's (`1904`, whose step back of four is the century `1900`).
pub(super) fn onto_round(
    sig: &Signature,
    inputs: &[Vec<Value>],
    transforms: &[&Transform],
) -> Vec<Vec<Value>> {
    let mut out: Vec<Vec<Value>> = Vec::new();
    let step = inputs.len().div_ceil(ROUNDED_BASES).max(1);
    for base in inputs.iter().step_by(step) {
        for t in transforms {
            let Transform::Affine { param, a, b } = **t else {
                continue;
            };
            let Some(&Value::Int(n)) = base.get(param) else {
                continue;
            };
            let (lo, hi) = sig.params[param].int_range();
            let (a, b) = (a as i128, b.value as i128);
            for r in rounded(n) {
                // `a·x + b == r`, where `x` is whole.
                let Some(x) = r
                    .checked_sub(b)
                    .filter(|d| a != 0 && d % a == 0)
                    .map(|d| d / a)
                    .filter(|x| (lo..=hi).contains(x))
                else {
                    continue;
                };
                push_with(&mut out, base, param, Value::Int(x));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// English ordinal suffixes, a function with a period of a hundred for `n >= 0`.
    fn suffix(n: i128) -> &'static str {
        if (n % 100).abs() / 10 == 1 {
            return "th";
        }
        match (n % 10).abs() {
            1 => "st",
            2 => "nd",
            3 => "rd",
            _ => "th",
        }
    }

    fn of_one(ty: &str, f: fn(i128) -> Value, values: &[i128]) -> Vec<(usize, i128)> {
        let sig =
            Signature::parse(&format!("fn f(n: {ty}) -> String"), &[Kind::Int], Kind::Str).unwrap();
        let inputs: Vec<Vec<Value>> = values.iter().map(|&n| vec![Value::Int(n)]).collect();
        let (lo, hi) = sig.params[0].int_range();
        periods(&sig, &inputs, &mut |v: &[Value]| match v[0] {
            Value::Int(n) if (lo..=hi).contains(&n) => Some(f(n)),
            _ => None,
        })
    }

    #[test]
    fn the_smallest_step_back_to_each_result_is_found_in_each_sign_category() {
        let text = |n| Value::Str(suffix(n).into());
        let values: Vec<i128> = (0..90).map(|i| (i * 37) % 1200 - 150).collect();
        // Up from zero, and down below it: between -100 and 0 a step up lands on the
        // other side, where the suffix of `-1` is not that of `99`.
        assert_eq!(of_one("i64", text, &values), [(0, 100), (0, -100)]);
        // No negative value, no negative step.
        let positive: Vec<i128> = values.iter().map(|n| n.abs()).collect();
        assert_eq!(of_one("i64", text, &positive), [(0, 100)]);
        // A period of one or two is the affine grid's; a constant has every period and
        // none says anything; a function with no period has none.
        assert_eq!(of_one("i64", |n| Value::Bool(n % 2 == 0), &values), []);
        assert_eq!(of_one("i64", |_| Value::Int(7), &values), []);
        assert_eq!(of_one("i64", |n| Value::Int(n * n), &values), []);
        // The last digit, by its period of ten; the weekday of a day's number by seven.
        assert_eq!(of_one("u32", |n| Value::Int(n % 10), &positive), [(0, 10)]);
        assert_eq!(of_one("u64", |n| Value::Int(n % 7), &positive), [(0, 7)]);
    }

    #[test]
    fn a_step_needs_inputs_it_can_be_taken_from_within_the_type() {
        // Of a `u8` from 200 up, no value can take a step of a hundred within the type:
        // none is tried, and no other step brings the remainder back.
        let near_top: Vec<i128> = (200..=255).collect();
        assert_eq!(of_one("u8", |n| Value::Int(n % 100), &near_top), []);
        assert_eq!(
            of_one("u16", |n| Value::Int(n % 100), &near_top),
            [(0, 100)]
        );
        // Three inputs are too few to call any step a period.
        assert_eq!(of_one("u32", |n| Value::Int(n % 10), &[1, 2, 3]), []);
        assert_eq!(
            of_one("u32", |n| Value::Int(n % 10), &[1, 2, 3, 4]),
            [(0, 10)]
        );
        // A refused follow-up breaks a step.
        let sig = Signature::parse("fn f(n: u32) -> u32", &[Kind::Int], Kind::Int).unwrap();
        let inputs: Vec<Vec<Value>> = (0..40).map(|n| vec![Value::Int(n)]).collect();
        let found = periods(&sig, &inputs, &mut |v: &[Value]| match v[0] {
            Value::Int(n) if n < 45 => Some(Value::Int(n % 10)),
            _ => None,
        });
        assert_eq!(found, []);
    }

    fn leap(y: i128) -> Value {
        Value::Bool(y % 4 == 0 && (y % 100 != 0 || y % 400 == 0))
    }

    #[test]
    fn a_step_must_hold_from_and_onto_the_round_numbers_of_the_inputs() {
        // Years none of which is within four of a century: four holds on each, and fails
        // from 1896 onto 1900, a round number of 1937; as do a hundred (1900 onto 2000) and
        // two hundred. Four hundred is the period.
        let years: Vec<i128> = (0..40)
            .map(|i| 1905 + i * 7 % 90)
            .chain([2037, 2310])
            .collect();
        assert_eq!(of_one("i32", leap, &years), [(0, 400)]);
        assert_eq!(rounded(1937), [1930, 1900, 1000]);
        assert_eq!(rounded(-1937), [-1930, -1900, -1000]);
        assert_eq!(rounded(7), Vec::<i128>::new());
        assert_eq!(rounded(100), [100]);
        assert_eq!(rounded(i128::MIN).last(), Some(&-(10i128.pow(38))));
    }

    #[test]
    fn inputs_are_built_whose_follow_up_is_a_round_number() {
        let sig = Signature::parse("fn leap(y: i32) -> bool", &[Kind::Int], Kind::Bool).unwrap();
        let back = Transform::Affine {
            param: 0,
            a: 1.0,
            b: super::super::transform::Const::lit(-4.0),
        };
        let doubled = Transform::Affine {
            param: 0,
            a: 2.0,
            b: super::super::transform::Const::lit(1.0),
        };
        let built = onto_round(&sig, &[vec![Value::Int(1937)]], &[&back, &doubled]);
        let values: Vec<i128> = built
            .iter()
            .map(|v| match v[0] {
                Value::Int(n) => n,
                _ => 0,
            })
            .collect();
        // `y - 4` onto 1930, 1900 and 1000; `2y + 1` onto none of them, all even.
        assert_eq!(values, [1934, 1904, 1004]);
        // `2y` onto each: half of it.
        let twice = Transform::Affine {
            param: 0,
            a: 2.0,
            b: super::super::transform::Const::lit(0.0),
        };
        assert_eq!(
            onto_round(&sig, &[vec![Value::Int(1937)]], &[&twice]),
            [965, 950, 500].map(|y| vec![Value::Int(y)])
        );
        // Other transformations build none.
        let reflect = Transform::Reflect { param: 0 };
        assert!(onto_round(&sig, &[vec![Value::Int(1937)]], &[&reflect]).is_empty());
        // Within the type: from 50, the step of a hundred onto 50 starts below zero.
        let byte = Signature::parse("fn f(y: u8) -> bool", &[Kind::Int], Kind::Bool).unwrap();
        let up = Transform::Affine {
            param: 0,
            a: 1.0,
            b: super::super::transform::Const::lit(100.0),
        };
        assert!(onto_round(&byte, &[vec![Value::Int(50)]], &[&up]).is_empty());
        assert_eq!(
            onto_round(&byte, &[vec![Value::Int(250)]], &[&up]),
            [vec![Value::Int(150)], vec![Value::Int(100)]]
        );
    }

    #[test]
    fn the_bases_and_the_round_numbers_are_taken_as_the_sign_and_the_type_allow() {
        // A duplicate input is one base: three distinct are too few.
        assert_eq!(of_one("u32", |n| Value::Int(n % 10), &[1, 1, 2, 3]), []);
        // Zero is of the category `n >= 0`.
        assert_eq!(
            of_one("u32", |n| Value::Int(n % 10), &[0, 1, 2, 3]),
            [(0, 10)]
        );
        // A step must hold from zero where zero is of the category: of a function special at
        // zero, each step onto a round number of the inputs (10 to 40) fails from zero, and
        // the first that none reaches is fifty.
        let special = |n: i128| Value::Int(if n == 0 { 99 } else { n % 10 });
        let positive: Vec<i128> = (1..=40).collect();
        assert_eq!(of_one("i64", special, &positive), [(0, 50)]);
        // A round number's step back below zero is of the other category: a remainder with
        // the sign of its number keeps a period of a hundred above zero.
        let remainder = |n: i128| Value::Int(n % 100);
        let above: Vec<i128> = (10..300).step_by(7).collect();
        assert_eq!(of_one("i64", remainder, &above), [(0, 100)]);
        // Of a `u8`, the steps from 156 up leave the type and are not taken: the period of
        // a hundred holds from the others.
        let bytes: Vec<i128> = (100..=200).collect();
        assert_eq!(of_one("u8", remainder, &bytes), [(0, 100)]);
    }
}
