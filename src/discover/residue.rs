//! Classes of integers by their remainder: of an integer parameter with a period `p` (see
//! `period`), the remainders by each divisor `m` of `p` on which the result is one value,
//! whatever the other arguments and the multiple of `m` (`if year.rem_euclid(400) == 0 =>
//! result`, `if year.rem_euclid(4) != 0 => !result`). A period says the result depends on
//! the remainder by `p` alone; which remainders by its divisors decide it, live calls seldom
//! show (a year divisible by 400 is one in 400), so each is probed: from a few of the given
//! inputs, the function is called at every remainder by `p`, and a remainder by `m` is of a
//! class where the results of all the remainders by `p` it holds agree, from every base.
//!
//! Of each value, the divisors are taken from the least: a class is kept where it says
//! something the classes kept before it do not (the remainders of `4` in `100` are known
//! from those of `4`), whole if it can be listed, else only what is new.

use super::guard::{Guard, LISTED};
use super::property::{Lit, Property};
use super::signature::Signature;
use super::value::{push_with, Value};

/// How many of the given inputs the function is probed from (spread over them): its other
/// arguments, and the multiple of the period, differ from one to the next.
const BASES: usize = 6;

/// The inputs to call the function on to find the classes of `sig`'s integer parameters
/// with a period: from each base, the parameter set to every remainder by the period, from
/// the multiple of the period at or below it.
pub(super) fn probes(sig: &Signature, inputs: &[Vec<Value>]) -> Vec<Vec<Value>> {
    let mut out = Vec::new();
    for &(param, period) in &sig.periods {
        for base in bases(inputs, param) {
            if let Some(row) = row(sig, base, param, period) {
                for x in row {
                    push_with(&mut out, base, param, Value::Int(x));
                }
            }
        }
    }
    out
}

/// The inputs to call the function on to find the classes of small values of `sig`'s integer
/// parameters, of a function of several (see `constant::by_value`): from each base, the
/// parameter set to each value from 0 to 63 its type has.
pub(super) fn value_probes(sig: &Signature, inputs: &[Vec<Value>]) -> Vec<Vec<Value>> {
    let mut out = Vec::new();
    if sig.params.len() < 2 {
        return out;
    }
    for (param, p) in sig.params.iter().enumerate() {
        if p.kind != super::value::Kind::Int {
            continue;
        }
        let (lo, hi) = p.int_range();
        for base in bases(inputs, param) {
            for v in (0..64).filter(|v| (lo..=hi).contains(v)) {
                push_with(&mut out, base, param, Value::Int(v));
            }
        }
    }
    out
}

/// The given inputs probes are made from, of those whose parameter `param` is an integer.
fn bases(inputs: &[Vec<Value>], param: usize) -> impl Iterator<Item = &Vec<Value>> {
    let step = inputs.len().div_ceil(BASES).max(1);
    inputs
        .iter()
        .step_by(step)
        .filter(move |i| matches!(i.get(param), Some(Value::Int(_))))
}

/// Every remainder by `period` from the multiple of it at or below `base`'s parameter, where
/// the whole row is within the parameter's type.
fn row(sig: &Signature, base: &[Value], param: usize, period: i128) -> Option<Vec<i128>> {
    let Value::Int(x) = base[param] else {
        return None;
    };
    let start = x.checked_sub(x.rem_euclid(period))?;
    let end = start.checked_add(period - 1)?;
    let (lo, hi) = sig.params[param].int_range();
    ((lo..=hi).contains(&start) && (lo..=hi).contains(&end)).then(|| (start..=end).collect())
}

/// The classes by remainder of `sig`'s integer parameters with a period, and what the result
/// is on each, from the results `call` gives on [`probes`].
pub(super) fn classes(
    sig: &Signature,
    inputs: &[Vec<Value>],
    call: &mut dyn FnMut(&[Value]) -> Option<Value>,
) -> Vec<(Guard, Property)> {
    let mut out = Vec::new();
    for &(param, period) in &sig.periods {
        let Ok(p) = u16::try_from(period) else {
            continue;
        };
        // Of each base, the result at each remainder by the period (`None`: refused).
        let rows: Vec<Vec<Option<Value>>> = bases(inputs, param)
            .filter_map(|base| {
                let xs = row(sig, base, param, period)?;
                Some(
                    xs.into_iter()
                        .map(|x| {
                            let mut input = base.clone();
                            input[param] = Value::Int(x);
                            call(&input)
                        })
                        .collect(),
                )
            })
            .collect();
        if rows.is_empty() {
            continue;
        }
        out.extend(of_rows(param, p, &rows));
    }
    out
}

/// The classes of one parameter of period `period`, from `rows`: from each base, the result
/// at each remainder by the period.
fn of_rows(param: usize, period: u16, rows: &[Vec<Option<Value>>]) -> Vec<(Guard, Property)> {
    // The value at each remainder by `m`, where all the remainders by the period it holds
    // agree in every row.
    let at = |m: u16, r: u16| -> Option<&Value> {
        let first = rows[0][usize::from(r)].as_ref()?;
        let agree = rows.iter().all(|row| {
            (r..period)
                .step_by(usize::from(m))
                .all(|j| row[usize::from(j)].as_ref() == Some(first))
        });
        agree.then_some(first)
    };
    let divisors: Vec<u16> = (2..=period).filter(|&m| period.is_multiple_of(m)).collect();
    // Each value any remainder has alone, in the order found.
    let mut values: Vec<Lit> = Vec::new();
    for &m in &divisors {
        for r in 0..m {
            if let Some(lit) = at(m, r).and_then(Lit::of) {
                if !values.contains(&lit) {
                    values.push(lit);
                }
            }
        }
    }
    // A class that is the whole axis says nothing a class can.
    let mut out = Vec::new();
    for lit in values {
        // The classes kept of this value: the divisor and its remainders.
        let mut kept: Vec<(u16, Vec<u16>)> = Vec::new();
        for &m in &divisors {
            let of_value: Vec<u16> = (0..m)
                .filter(|&r| at(m, r).and_then(Lit::of) == Some(lit))
                .collect();
            if of_value.is_empty() || of_value.len() == usize::from(m) {
                continue;
            }
            // A remainder by `m` is known where every integer of it is in a class kept:
            // its remainders by `d` are those of `r` by the greatest common divisor.
            let known = |r: u16| {
                kept.iter().any(|(d, rs)| {
                    let g = gcd(m, *d);
                    (0..*d).filter(|s| s % g == r % g).all(|s| rs.contains(&s))
                })
            };
            let new: Vec<u16> = of_value.iter().copied().filter(|&r| !known(r)).collect();
            if new.is_empty() {
                continue;
            }
            let others: Vec<u16> = (0..m).filter(|r| !of_value.contains(r)).collect();
            let whole = of_value.len() <= LISTED || others.len() <= LISTED;
            let class = if whole { of_value } else { new };
            if class.len() > LISTED && !whole {
                continue;
            }
            // What the whole class says, the classes it holds need not.
            if whole {
                kept.retain(|(d, rs)| {
                    !(m % d == 0 && (0..m).all(|r| !rs.contains(&(r % d)) || class.contains(&r)))
                });
            }
            kept.push((m, class));
        }
        for (m, class) in kept {
            out.extend(guard(param, m, &class).map(|g| (m, g, Property::Is(lit))));
        }
    }
    // A function of the remainder itself (an angle's by 360) has a class at each remainder,
    // each saying one value: the classes of the least divisors, which say most, are kept, so
    // that the members built to check them stay few.
    out.sort_by_key(|&(m, _, _)| m);
    out.into_iter()
        .take(MOST_CLASSES)
        .map(|(_, g, prop)| (g, prop))
        .collect()
}

/// Most classes kept of one parameter: twice what one class lists.
const MOST_CLASSES: usize = 2 * LISTED;

fn gcd(a: u16, b: u16) -> u16 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The guard of the remainders `class` by `m`: listed, or the others listed as those it is
/// not, whichever are fewer; `None` where neither fits the list.
fn guard(param: usize, m: u16, class: &[u16]) -> Option<Guard> {
    let others: Vec<u16> = (0..m).filter(|r| !class.contains(r)).collect();
    let (shown, within) = if others.len() < class.len() {
        (others, false)
    } else {
        (class.to_vec(), true)
    };
    if shown.is_empty() || shown.len() > LISTED {
        return None;
    }
    let mut listed = [0; LISTED];
    listed[..shown.len()].copy_from_slice(&shown);
    Some(Guard::Residue {
        param,
        modulus: m,
        listed,
        len: shown.len() as u8,
        within,
    })
}

/// Inputs in the class `guard` (a [`Guard::Residue`]), built to break what is claimed of it:
/// each given input moved down to a remainder or two of the class; from a few of them, each
/// remainder (some spread over a class of many) at the multiples of the divisor around it,
/// and at the ends of the parameter's type; within
/// the parameter's type. Every given input is moved, as each holds another multiple of the
/// divisor (another century, a day past the calendar's end) and other arguments.
pub(super) fn members(sig: &Signature, inputs: &[Vec<Value>], guard: Guard) -> Vec<Vec<Value>> {
    let Guard::Residue {
        param,
        modulus,
        listed,
        len,
        within,
    } = guard
    else {
        return Vec::new();
    };
    let m = i128::from(modulus);
    let (lo, hi) = sig.params[param].int_range();
    let class: Vec<u16> = (0..modulus)
        .filter(|r| listed[..usize::from(len)].contains(r) == within)
        .collect();
    let spread = |most: usize| {
        let step = class.len().div_ceil(most).max(1);
        class.iter().copied().step_by(step).collect::<Vec<u16>>()
    };
    let mut out = Vec::new();
    let mut put = |base: &Vec<Value>, r: u16, k: i128| {
        let Value::Int(x) = base[param] else {
            return;
        };
        let moved = x
            .checked_sub(x.rem_euclid(m))
            .and_then(|s| s.checked_add(m.checked_mul(k)?))
            .and_then(|s| s.checked_add(i128::from(r)))
            .filter(|y| (lo..=hi).contains(y));
        if let Some(y) = moved {
            push_with(&mut out, base, param, Value::Int(y));
        }
    };
    for base in inputs
        .iter()
        .filter(|i| matches!(i.get(param), Some(Value::Int(_))))
    {
        for &r in &spread(2) {
            put(base, r, 0);
        }
    }
    for base in bases(inputs, param) {
        for &r in &spread(2 * LISTED) {
            for k in -4..=4 {
                put(base, r, k);
            }
        }
    }
    // And at the ends of the type, where a domain ends (a calendar's last year): a class
    // found near the given inputs is claimed of every integer.
    if let Some(base) = bases(inputs, param).next() {
        for (end, k) in [(hi, -1), (hi, 0), (lo, 0), (lo, 1)] {
            let mut at_end = base.clone();
            at_end[param] = Value::Int(end);
            for &r in &spread(2 * LISTED) {
                put(&at_end, r, k);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discover::value::Kind;

    fn is_leap(y: i128) -> bool {
        y.rem_euclid(4) == 0 && (y.rem_euclid(100) != 0 || y.rem_euclid(400) == 0)
    }

    fn texts(found: &[(Guard, Property)], sig: &Signature) -> Vec<String> {
        found
            .iter()
            .map(|(g, p)| format!("if {} => {}", g.text(sig), p.text(sig)))
            .collect()
    }

    #[test]
    fn the_classes_of_a_leap_year_are_found_from_its_period() {
        let sig =
            Signature::parse("fn is_leap(year: i32) -> bool", &[Kind::Int], Kind::Bool).unwrap();
        let rows: Vec<Vec<Option<Value>>> = [1987i128, 2400, -803]
            .iter()
            .map(|&base| {
                let start = base - base.rem_euclid(400);
                (start..start + 400)
                    .map(|y| Some(Value::Bool(is_leap(y))))
                    .collect()
            })
            .collect();
        let found = of_rows(0, 400, &rows);
        let texts = texts(&found, &sig);
        for claim in [
            "if year.rem_euclid(4) != 0 => !result",
            "if year.rem_euclid(200) == 100 => !result",
            // The multiples of 16 that are of 100 are those of 400.
            "if year.rem_euclid(16) == 0 => result",
        ] {
            assert!(texts.iter().any(|t| t == claim), "{claim} in {texts:?}");
        }
        // All of them, by divisor: what each says, the ones before it do not.
        assert_eq!(
            texts,
            [
                "if year.rem_euclid(4) != 0 => !result",
                "if year.rem_euclid(16) == 0 => result",
                "if [4, 8, 12, 16].contains(&year.rem_euclid(20)) => result",
                "if [20, 40, 60, 80].contains(&year.rem_euclid(100)) => result",
                "if year.rem_euclid(200) == 100 => !result",
                "if year.rem_euclid(400) == 200 => !result",
            ]
        );
        // Each claim holds on every year, and every claim is of one value.
        for (g, p) in &found {
            for y in -2000..2000i128 {
                let input = [Value::Int(y)];
                if g.holds(&input) {
                    assert!(p.holds(&input, &Value::Bool(is_leap(y)), 0.0), "{y}: {g:?}");
                }
            }
        }
        // The odd years are in the class of the remainders by 4: not claimed again, by 2
        // or by 10.
        assert!(
            !texts
                .iter()
                .any(|t| t.contains("rem_euclid(2)") || t.contains("rem_euclid(10)")),
            "{texts:?}"
        );
    }

    #[test]
    fn a_function_of_the_remainder_keeps_the_classes_of_the_least_divisors_and_refs_read() {
        // An angle's remainder by 360: each remainder its own value, at every divisor.
        let rows = vec![(0..360).map(|r| Some(Value::Int(r))).collect::<Vec<_>>(); 3];
        let found = of_rows(0, 360, &rows);
        assert_eq!(found.len(), 16);
        let sig = Signature::parse("fn f(n: &i64) -> i64", &[Kind::Int], Kind::Int).unwrap();
        let texts = texts(&found, &sig);
        assert!(
            texts.iter().all(|t| t.contains(".rem_euclid(360)")),
            "{texts:?}"
        );
        // A reference is dereferenced before its remainder is taken.
        assert!(
            texts.contains(&"if (*n).rem_euclid(360) == 0 => result == 0".to_string()),
            "{texts:?}"
        );
    }

    #[test]
    fn a_class_is_listed_or_its_complement_whichever_is_shorter() {
        let listed = |g: Option<Guard>| match g {
            Some(Guard::Residue {
                listed,
                len,
                within,
                modulus,
                ..
            }) => Some((modulus, listed[..usize::from(len)].to_vec(), within)),
            _ => None,
        };
        assert_eq!(listed(guard(0, 4, &[1, 2, 3])), Some((4, vec![0], false)));
        assert_eq!(listed(guard(0, 4, &[1, 3])), Some((4, vec![1, 3], true)));
        assert_eq!(
            listed(guard(0, 20, &[4, 8, 12, 16])),
            Some((20, vec![4, 8, 12, 16], true))
        );
        let eight: Vec<u16> = (0..8).collect();
        assert_eq!(
            listed(guard(0, 16, &eight)),
            Some((16, eight.clone(), true))
        );
        let nine: Vec<u16> = (0..9).collect();
        assert_eq!(
            listed(guard(0, 18, &nine)),
            None,
            "nine listed, nine not: neither fits"
        );
        assert_eq!(listed(guard(0, 4, &[])), None);
        assert_eq!(listed(guard(0, 2, &[0, 1])), None);
    }

    #[test]
    fn members_of_a_class_by_remainder_are_in_it_and_reach_the_type_s_ends() {
        let sig =
            Signature::parse("fn is_leap(year: i32) -> bool", &[Kind::Int], Kind::Bool).unwrap();
        let g = guard(0, 400, &[200]).unwrap();
        let inputs: Vec<Vec<Value>> = (0..20).map(|i| vec![Value::Int(1601 + 19 * i)]).collect();
        let made = members(&sig, &inputs, g);
        let years: Vec<i128> = made
            .iter()
            .map(|v| match v[0] {
                Value::Int(y) => y,
                _ => 0,
            })
            .collect();
        assert!(made.iter().all(|v| g.holds(v)), "{years:?}");
        // Each given input moved down to the class; a few at the multiples around them;
        // and near both ends of `i32`.
        assert!(years.contains(&1800), "{years:?}");
        assert!(years.contains(&(1800 - 4 * 400)) && years.contains(&(1800 + 4 * 400)));
        let top = i128::from(i32::MAX);
        let bottom = i128::from(i32::MIN);
        assert!(years.iter().any(|&y| y > top - 400), "{years:?}");
        assert!(years.iter().any(|&y| y < bottom + 400), "{years:?}");
        assert!(years.iter().all(|&y| (bottom..=top).contains(&y)));
        // Other guards have no members here.
        assert!(members(&sig, &inputs, Guard::Positive(0)).is_empty());
    }

    #[test]
    fn no_class_where_the_remainders_disagree_or_one_value_is_everywhere() {
        let sig = Signature::parse("fn f(n: i64) -> i64", &[Kind::Int], Kind::Int).unwrap();
        // Of a remainder by 6 itself, each remainder is its own value: by 2 or by 3, none.
        let rows = vec![(0..6).map(|r| Some(Value::Int(r))).collect::<Vec<_>>(); 2];
        let found = of_rows(0, 6, &rows);
        assert!(
            texts(&found, &sig)
                .iter()
                .all(|t| t.contains("rem_euclid(6)")),
            "{:?}",
            texts(&found, &sig)
        );
        assert_eq!(found.len(), 6);
        // A constant is no class.
        let rows = vec![vec![Some(Value::Int(1)); 6]; 2];
        assert!(of_rows(0, 6, &rows).is_empty());
        // Rows that differ at a remainder (another argument decides it) leave it out.
        let mut rows = vec![(0..6).map(|r| Some(Value::Int(r % 2))).collect::<Vec<_>>(); 2];
        rows[1][3] = Some(Value::Int(5));
        let texts = texts(&of_rows(0, 6, &rows), &sig);
        assert!(
            texts.contains(&"if n.rem_euclid(2) == 0 => result == 0".to_string()),
            "{texts:?}"
        );
        assert!(!texts.iter().any(|t| t.contains("== 1 =>")), "{texts:?}");
    }
}
