//! Classes of inputs on which a function's result is one value, or begins or ends with one
//! text: integers by a decimal digit (`if (n / 10 % 10).abs() == 1 => result == "th"`, the
//! teens of an English suffix; `if (n % 10).abs() == 0 => result.ends_with("th")` of an
//! ordinal), characters and strings by a class of characters (`if c.is_control() =>
//! result.is_none()`), and, of a function of several arguments, a small integer by its value
//! (`if [4, 6, 9, 11].contains(&month) => ...`). The search judges them on the live calls and
//! their follow-up runs (see `search::constants`); offline, [`members`] of each class are
//! built to break what is claimed of it.

use std::collections::HashSet;

use super::guard::{digit, CharKind, Guard};
use super::property::{Lit, Place, Property};
use super::signature::Signature;
use super::value::{push_with, Kind, Value};

/// Fewest live calls of one digit that say what the result is on it: a follow-up run shares
/// most digits of its call's input, so a digit's runs that all come from one call are one
/// case, not many. A class as a whole needs as many distinct inputs as any relation.
const FEWEST: usize = 2;

/// The chance, at most, that some class of those tried is claimed though its live calls show
/// the result only by chance: a conventional level of significance, shared by the classes
/// tried (Bonferroni's correction). The members built offline cannot make up for it: of a
/// property most inputs have, members drawn at random seldom break a class claimed by chance
/// (a number that is no perfect power).
const SIGNIFICANCE: f64 = 0.05;

/// Whether the `inside` live calls of a class, each of whose results has the property, say
/// more than chance: were the class of no account, each would have it as often as the
/// `outside` live calls do (`holding` of them), and all of them with a chance no greater than
/// [`SIGNIFICANCE`] shared by the `tried` classes. A property most inputs have is claimed of
/// a class only on many of its calls; one that the calls outside the class seldom have (a
/// suffix of the teens), on few.
pub(super) fn significant(inside: usize, holding: usize, outside: usize, tried: usize) -> bool {
    if outside == 0 {
        return false;
    }
    // Laplace's estimate: of a few calls outside, none holding is no proof that none would.
    let p = (holding + 1) as f64 / (outside + 2) as f64;
    p.powi(i32::try_from(inside).unwrap_or(i32::MAX)) * tried.max(1) as f64 <= SIGNIFICANCE
}

/// The classes by digit tried of integers up to `largest` (in magnitude): ten digits at each
/// place it has.
fn digit_classes(largest: u128) -> usize {
    let places = (0..=38)
        .take_while(|&k| 10u128.checked_pow(k).is_some_and(|s| s <= largest))
        .count();
    10 * places.max(1)
}

/// The classes of characters tried: each class, held or not.
fn char_classes() -> usize {
    2 * CharKind::ALL.len()
}

/// The live calls of a part `part` of the class `class` (a digit of it, a value) and outside
/// the class: the distinct inputs in the part, and of the distinct inputs outside the class
/// of `of` (those with the parameter the class is of), how many have `prop` and how many
/// there are.
fn live_split(
    runs: &[(&[Value], &Value, bool)],
    (part, class): (Guard, Guard),
    prop: Property,
    of: impl Fn(&[Value]) -> bool,
) -> (usize, usize, usize) {
    // Told apart by their text, as a scan would cost the square of the probed calls.
    let mut inside: HashSet<String> = HashSet::new();
    let mut outside: HashSet<String> = HashSet::new();
    let mut holding = 0;
    for &(input, y, _) in runs.iter().filter(|r| r.2 && of(r.0)) {
        if part.holds(input) {
            inside.insert(format!("{input:?}"));
        } else if !class.holds(input) && outside.insert(format!("{input:?}")) {
            holding += usize::from(prop.holds(input, y, 0.0));
        }
    }
    (inside.len(), holding, outside.len())
}

/// Whether a signature can have classes: a result a [`Lit`] holds (or the variant of an
/// `Option` or `Result`), and an integer, character or string parameter.
pub(super) fn applies(sig: &Signature) -> bool {
    let literal = matches!(
        sig.output,
        Kind::Int | Kind::Bool | Kind::Char | Kind::Str | Kind::Option | Kind::Result
    );
    literal
        && sig
            .params
            .iter()
            .any(|p| matches!(p.kind, Kind::Int | Kind::Char | Kind::Str))
}

/// The classes by a digit of an integer parameter on which every one of `runs` (an input, its
/// result, and whether it is a live call's rather than a follow-up's) has one property of a
/// constant, with that property; each fails on some run outside its class. Of each place, the
/// digits whose runs share a value form one class, and those whose texts share an end (or a
/// start) another.
pub(super) fn classes(
    sig: &Signature,
    runs: &[(&[Value], &Value, bool)],
) -> Vec<(Guard, Property)> {
    let mut out = Vec::new();
    if !applies(sig) {
        return out;
    }
    for (p, param) in sig.params.iter().enumerate() {
        match param.kind {
            Kind::Int => {
                out.extend(by_digit(sig, p, runs));
                if sig.params.len() > 1 {
                    out.extend(by_value(p, runs));
                }
            }
            Kind::Char | Kind::Str => out.extend(by_chars(p, runs)),
            _ => {}
        }
    }
    out
}

/// The classes of the integer parameter `p` by a decimal digit (see [`classes`]).
fn by_digit(
    sig: &Signature,
    p: usize,
    runs: &[(&[Value], &Value, bool)],
) -> Vec<(Guard, Property)> {
    let mut out = Vec::new();
    let at = |input: &[Value]| match input.get(p) {
        Some(Value::Int(n)) => Some(*n),
        _ => None,
    };
    let largest = runs
        .iter()
        .filter_map(|(input, _, _)| at(input))
        .map(i128::unsigned_abs)
        .max()
        .unwrap_or(0);
    // Ten digits at each place are tried.
    let tried = digit_classes(largest);
    let mut place = 0;
    while 10u128.checked_pow(place).is_some_and(|s| s <= largest) {
        let of_digit = |d: u32| -> Vec<(&Value, bool)> {
            runs.iter()
                .filter(|(input, _, _)| at(input).is_some_and(|n| digit(n, place) == d))
                .map(|(_, y, live)| (*y, *live))
                .collect()
        };
        // The results of each digit, where enough live calls have it.
        let results: Vec<Vec<&Value>> = (0..10)
            .map(of_digit)
            .map(|runs| match runs.iter().filter(|(_, live)| *live).count() {
                n if n >= FEWEST => runs.into_iter().map(|(y, _)| y).collect(),
                _ => Vec::new(),
            })
            .collect();
        let mut found: Vec<(u16, Property)> = Vec::new();
        // One value on each digit, the digits of one value together.
        for (d, ys) in results.iter().enumerate() {
            let one = !ys.is_empty() && ys.iter().all(|y| *y == ys[0]);
            let Some(lit) = one.then(|| Lit::of(ys[0])).flatten() else {
                continue;
            };
            match found.iter_mut().find(|(_, q)| *q == Property::Is(lit)) {
                Some((mask, _)) => *mask |= 1 << d,
                None => found.push((1 << d, Property::Is(lit))),
            }
        }
        // Texts that share an end or a start on each digit, and across the digits.
        if sig.output == Kind::Str {
            for place_in_text in [Place::End, Place::Start] {
                let mut mask = 0u16;
                let mut shared: Option<String> = None;
                for (d, ys) in results.iter().enumerate() {
                    if found.iter().any(|(m, _)| m & (1 << d) != 0) {
                        continue;
                    }
                    let Some(common) = common_of(ys, place_in_text) else {
                        continue;
                    };
                    let joined = match &shared {
                        Some(s) => common_pair(s, &common, place_in_text).to_string(),
                        None => common,
                    };
                    if !joined.is_empty() {
                        mask |= 1 << d;
                        shared = Some(joined);
                    }
                }
                // The number's own digits at that end of the text are the number's, not
                // the class's (`starts_with("1")` of the hundreds of a number written
                // first).
                let own = |text: &str| {
                    runs.iter()
                        .filter_map(|(input, _, _)| at(input))
                        .filter(|&n| mask & (1 << digit(n, place)) != 0)
                        .all(|n| place_in_text.holds(&n.to_string(), text))
                };
                let shared = shared.filter(|t| !own(t));
                if let Some(lit) = shared.as_deref().and_then(Lit::text) {
                    found.push((
                        mask,
                        Property::Affix {
                            lit,
                            at: place_in_text,
                        },
                    ));
                }
            }
        }
        for (digits, prop) in found {
            let guard = Guard::Digit {
                param: p,
                place,
                digits,
            };
            let outside = runs
                .iter()
                .filter(|(input, _, _)| at(input).is_some() && !guard.holds(input));
            // Each digit says so on its own: a class made of the digits whose few calls
            // happened to agree says nothing of the digits, however many calls they add up to.
            // It is told from the calls that have the place: a number below it, whose digit
            // there is a 0 by default, is of another kind (a small square among large
            // numbers).
            let scale = 10u128.pow(place);
            let has_place = |input: &[Value]| {
                at(input).is_some_and(|n| digits & 1 != 0 || n.unsigned_abs() >= scale)
            };
            let each = (0..10u16).filter(|d| digits & (1 << d) != 0).all(|d| {
                let one = Guard::Digit {
                    param: p,
                    place,
                    digits: 1 << d,
                };
                let (inside, holding, others) = live_split(runs, (one, guard), prop, has_place);
                significant(inside, holding, others, tried)
            });
            if outside
                .clone()
                .any(|(input, y, _)| !prop.holds(input, y, 0.0))
                && each
            {
                out.push((guard, prop));
            }
        }
        place += 1;
    }
    out
}

/// The classes of the integer parameter `p` of a function of several by its value, from 0 to
/// 63: the values on which the result is one value whatever the other arguments
/// (`if [4, 6, 9, 11].contains(&month) => result == Some(30)`), each shown by two live calls
/// with other arguments at least.
pub(super) fn by_value(p: usize, runs: &[(&[Value], &Value, bool)]) -> Vec<(Guard, Property)> {
    let at = |input: &[Value]| match input.get(p) {
        Some(Value::Int(v)) if (0..64).contains(v) => Some(*v as u32),
        _ => None,
    };
    let others = |input: &[Value]| {
        let mut rest = input.to_vec();
        rest.remove(p);
        format!("{rest:?}")
    };
    let mut found: Vec<(u64, Property)> = Vec::new();
    for v in 0..64 {
        let of: Vec<&(&[Value], &Value, bool)> = runs
            .iter()
            .filter(|(input, _, _)| at(input) == Some(v))
            .collect();
        let live: HashSet<String> = of
            .iter()
            .filter(|(_, _, live)| *live)
            .map(|(input, _, _)| others(input))
            .collect();
        if live.len() < FEWEST || !of.iter().all(|(_, y, _)| *y == of[0].1) {
            continue;
        }
        let Some(lit) = Lit::of(of[0].1) else {
            continue;
        };
        match found.iter_mut().find(|(_, q)| *q == Property::Is(lit)) {
            Some((mask, _)) => *mask |= 1 << v,
            None => found.push((1 << v, Property::Is(lit))),
        }
    }
    found
        .into_iter()
        .map(|(values, prop)| (Guard::Among { param: p, values }, prop))
        .filter(|&(guard, prop)| {
            let Guard::Among { values, .. } = guard else {
                return false;
            };
            // Each value says so on its own, as each digit of a class by digit.
            let each = (0..64).filter(|v| values & (1 << v) != 0).all(|v| {
                let one = Guard::Among {
                    param: p,
                    values: 1 << v,
                };
                let int = |input: &[Value]| matches!(input.get(p), Some(Value::Int(_)));
                let (inside, holding, others) = live_split(runs, (one, guard), prop, int);
                significant(inside, holding, others, 64)
            });
            runs.iter()
                .any(|(input, y, _)| !guard.holds(input) && !prop.holds(input, y, 0.0))
                && each
        })
        .collect()
}

/// The classes of the character or string parameter `p` by a class of characters: a
/// character of it or not, a string holding one or not (`if c.is_control() =>
/// result.is_none()`, `if !pan.contains(|c: char| c.is_ascii_digit()) => !result`). Of
/// classes that hold the same live calls, the first.
fn by_chars(p: usize, runs: &[(&[Value], &Value, bool)]) -> Vec<(Guard, Property)> {
    let mut out = Vec::new();
    let mut seen: Vec<(Vec<usize>, Property)> = Vec::new();
    for class in CharKind::ALL {
        for holds in [true, false] {
            let guard = Guard::Chars {
                param: p,
                class,
                holds,
            };
            let inside: Vec<usize> = (0..runs.len())
                .filter(|&k| guard.holds(runs[k].0))
                .collect();
            let live: Vec<usize> = inside.iter().copied().filter(|&k| runs[k].2).collect();
            if live.len() < FEWEST {
                continue;
            }
            let first = runs[inside[0]].1;
            if !inside.iter().all(|&k| runs[k].1 == first) {
                continue;
            }
            let Some(lit) = Lit::of(first) else {
                continue;
            };
            let prop = Property::Is(lit);
            let differs = (0..runs.len())
                .filter(|k| !inside.contains(k))
                .any(|k| !prop.holds(runs[k].0, runs[k].1, 0.0));
            let (shown, holding, others) = live_split(runs, (guard, guard), prop, |_| true);
            let telling = significant(shown, holding, others, char_classes());
            if differs && telling && !seen.contains(&(live.clone(), prop)) {
                seen.push((live, prop));
                out.push((guard, prop));
            }
        }
    }
    out
}

/// The end (or start) every text of `ys` shares, if there are some, all texts, and it is
/// not empty.
fn common_of(ys: &[&Value], at: Place) -> Option<String> {
    let mut texts = ys.iter().map(|y| match y {
        Value::Str(s) => Some(s.as_str()),
        _ => None,
    });
    let first = texts.next()??;
    let mut common = first;
    for t in texts {
        common = common_pair(common, t?, at);
    }
    (!common.is_empty()).then(|| common.to_string())
}

/// The longest end (or start) of `a` that `b` shares, on a character boundary.
fn common_pair<'a>(a: &'a str, b: &str, at: Place) -> &'a str {
    match at {
        Place::Start => {
            let n: usize = a
                .chars()
                .zip(b.chars())
                .take_while(|(x, y)| x == y)
                .map(|(x, _)| x.len_utf8())
                .sum();
            &a[..n]
        }
        _ => {
            let n: usize = a
                .chars()
                .rev()
                .zip(b.chars().rev())
                .take_while(|(x, y)| x == y)
                .map(|(x, _)| x.len_utf8())
                .sum();
            &a[a.len() - n..]
        }
    }
}

/// How many of the given inputs class members are built from (spread over them).
const BASES: usize = 6;

/// Inputs in each class of `guards`, built to break what is claimed of it: from a few of the
/// given inputs, the class's digit set to each of its digits, and then each other place up
/// to one past it set to each digit in turn (the units under a class by the tens, the high
/// digits under a class by a low one), within the parameter's type.
pub(super) fn members(sig: &Signature, inputs: &[Vec<Value>], guards: &[Guard]) -> Vec<Vec<Value>> {
    let mut out: Vec<Vec<Value>> = Vec::new();
    let step = inputs.len().div_ceil(BASES).max(1);
    let mut seen: HashSet<String> = HashSet::new();
    for &guard in guards {
        if let Guard::Residue { .. } = guard {
            for input in super::residue::members(sig, inputs, guard) {
                if seen.insert(format!("{input:?}")) {
                    out.push(input);
                }
            }
            continue;
        }
        // Each value of the set, with the other arguments of each base.
        if let Guard::Among { param, values } = guard {
            for base in inputs.iter().step_by(step) {
                for v in (0..64).filter(|v| values & (1 << v) != 0) {
                    push_with(&mut out, base, param, Value::Int(v));
                }
            }
            continue;
        }
        if let Guard::Chars {
            param,
            class,
            holds,
        } = guard
        {
            for base in inputs.iter().step_by(step) {
                for input in of_chars(base, param, class, holds) {
                    if guard.holds(&input) && !out.contains(&input) {
                        out.push(input);
                    }
                }
            }
            continue;
        }
        let Guard::Digit {
            param,
            place,
            digits,
        } = guard
        else {
            continue;
        };
        let (lo, hi) = sig.params[param].int_range();
        for base in inputs.iter().step_by(step) {
            let Some(&Value::Int(n)) = base.get(param) else {
                continue;
            };
            for d in (0..10).filter(|d| digits & (1 << d) != 0) {
                let Some(m) = with_digit(n, place, d) else {
                    continue;
                };
                for other in (0..=place + 1).filter(|&j| j != place) {
                    for e in 0..10 {
                        let Some(x) = with_digit(m, other, e).filter(|x| (lo..=hi).contains(x))
                        else {
                            continue;
                        };
                        push_with(&mut out, base, param, Value::Int(x));
                    }
                }
            }
        }
    }
    out
}

/// Characters members of a class are drawn from: ASCII, and beyond it letters of several
/// scripts and cases, digits of other systems, spaces, a format character and an emoji.
fn pool() -> impl Iterator<Item = char> {
    (0u8..128).map(char::from).chain([
        'é', 'ß', 'Ω', 'Ж', 'ǅ', '中', '٣', 'Ⅳ', '²', '\u{a0}', '\u{2003}', '\u{85}', '\u{200b}',
        '😀',
    ])
}

/// Inputs like `base` whose parameter `param` is (holds) a character of `class`, or is not
/// (holds none), as `holds` says: a character of the pool; a string with one inserted at
/// its start, middle and end, or with those of the class taken out and others put in.
fn of_chars(base: &[Value], param: usize, class: CharKind, holds: bool) -> Vec<Vec<Value>> {
    let with = |v: Value| {
        let mut input = base.to_vec();
        input[param] = v;
        input
    };
    let chosen: Vec<char> = pool().filter(|&c| class.has(c) == holds).collect();
    match &base[param] {
        Value::Char(_) => chosen.into_iter().map(|c| with(Value::Char(c))).collect(),
        Value::Str(s) => {
            let kept: String = match holds {
                true => s.clone(),
                false => s.chars().filter(|&c| !class.has(c)).collect(),
            };
            let middle = kept
                .char_indices()
                .nth(kept.chars().count() / 2)
                .map_or(kept.len(), |(i, _)| i);
            let mut out = vec![with(Value::Str(kept.clone()))];
            // A few of the class (or outside it), spread over the pool.
            let step = chosen.len().div_ceil(6).max(1);
            for &c in chosen.iter().step_by(step) {
                for at in [0, middle, kept.len()] {
                    let mut t = kept.clone();
                    t.insert(at, c);
                    out.push(with(Value::Str(t)));
                }
            }
            out
        }
        _ => Vec::new(),
    }
}

/// `n` with the decimal digit of `|n|` in `place` set to `d`, its sign kept.
fn with_digit(n: i128, place: u32, d: u32) -> Option<i128> {
    let scale = 10u128.checked_pow(place)?;
    let a = n.unsigned_abs();
    let old = (a / scale) % 10;
    let a = (a - old * scale).checked_add(u128::from(d).checked_mul(scale)?)?;
    let a = i128::try_from(a).ok()?;
    Some(if n < 0 { -a } else { a })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn suffix(n: i128) -> &'static str {
        if digit(n, 1) == 1 {
            return "th";
        }
        match digit(n, 0) {
            1 => "st",
            2 => "nd",
            3 => "rd",
            _ => "th",
        }
    }

    fn of(ty: &str, output: Kind) -> Signature {
        Signature::parse(&format!("fn f(n: {ty}) -> String"), &[Kind::Int], output).unwrap()
    }

    /// Runs of `f` at each of `live`, and follow-ups at `n + 1` and `n + 2`.
    fn runs(f: impl Fn(i128) -> Value, live: &[i128]) -> Vec<(Vec<Value>, Value, bool)> {
        live.iter()
            .flat_map(|&n| [(n, true), (n + 1, false), (n + 2, false)])
            .map(|(n, is_live)| (vec![Value::Int(n)], f(n), is_live))
            .collect()
    }

    fn found(sig: &Signature, runs: &[(Vec<Value>, Value, bool)]) -> Vec<String> {
        let runs: Vec<(&[Value], &Value, bool)> =
            runs.iter().map(|(i, y, l)| (i.as_slice(), y, *l)).collect();
        classes(sig, &runs)
            .into_iter()
            .map(|(g, p)| format!("if {} => {}", g.text(sig), p.text(sig)))
            .collect()
    }

    #[test]
    fn the_digits_of_one_value_form_a_class_and_the_texts_of_one_end_another() {
        let live: Vec<i128> = (0..300).map(|i| i * 7 % 250 - 40).collect();
        let text = |s: &str| Value::Str(s.into());
        let sig = of("i64", Kind::Str);
        assert_eq!(
            found(&sig, &runs(|n| text(suffix(n)), &live)),
            [
                "if [0, 4, 5, 6, 7, 8, 9].contains(&(n % 10).abs()) => result == \"th\"",
                "if (n / 10 % 10).abs() == 1 => result == \"th\"",
            ]
        );
        // Texts that differ and end alike: the end the digits share, across them.
        let ordinal = |n: i128| text(&format!("{n}{}", suffix(n)));
        assert_eq!(
            found(&sig, &runs(ordinal, &live)),
            [
                "if [0, 4, 5, 6, 7, 8, 9].contains(&(n % 10).abs()) => result.ends_with(\"th\")",
                "if (n / 10 % 10).abs() == 1 => result.ends_with(\"th\")",
            ]
        );
        // One value on some digits and a shared end on the others, at one place.
        let zero_or = |n: i128| match digit(n, 0) {
            0 => text("round"),
            _ => text(&format!("{n}th")),
        };
        let both = found(&sig, &runs(zero_or, &live));
        assert!(
            both.contains(&"if (n % 10).abs() == 0 => result == \"round\"".to_string()),
            "{both:?}"
        );
        assert!(
            both.iter()
                .any(|r| r.starts_with("if [1, 2, 3, 4, 5, 6, 7, 8, 9].contains")
                    && r.ends_with("=> result.ends_with(\"th\")")),
            "{both:?}"
        );
        // And a start: a label by the hundreds.
        let label = |n: i128| match digit(n, 2) {
            0 => text(&format!("small {n}")),
            _ => text(&format!("{n}")),
        };
        let found_label = found(&sig, &runs(label, &live));
        assert_eq!(
            found_label,
            ["if (n / 100 % 10).abs() == 0 => result.starts_with(\"small \")"]
        );
        // Of an unsigned number, no `abs`; of other results, other literals.
        let unsigned = of("u32", Kind::Option);
        let some_below = |n: i128| Value::Option((digit(n, 0) != 7).then(|| Box::new(text("x"))));
        let positive: Vec<i128> = live.iter().map(|n| n.abs()).collect();
        assert_eq!(
            found(&unsigned, &runs(some_below, &positive)),
            ["if (n % 10) == 7 => result.is_none()"]
        );
        let even = |n: i128| Value::Bool(n % 2 == 0);
        assert_eq!(
            found(&of("u8", Kind::Bool), &runs(even, &positive)),
            [
                "if [0, 2, 4, 6, 8].contains(&(n % 10)) => result",
                "if [1, 3, 5, 7, 9].contains(&(n % 10)) => !result",
            ]
        );
    }

    #[test]
    fn a_class_needs_two_live_calls_of_each_digit_and_a_run_outside_it_that_differs() {
        let text = |s: &str| Value::Str(s.into());
        let sig = of("i64", Kind::Str);
        // `th` after 0 and 4 only, as no other call shows: chance cannot make the class.
        let tag = |n: i128| {
            text(if [0, 4].contains(&digit(n, 0)) {
                "th"
            } else {
                "st"
            })
        };
        // One live call ending in 4 (with its follow-ups at 5 and 6): no class of 4.
        let mut live = vec![4, 10, 20, 11, 21, 1, 2, 3];
        // Calls of the other last digits, enough to tell two calls of a digit from chance.
        live.extend((0..30).map(|i| 101 + i * 10 + i % 3));
        let of_four = |r: &String| r.starts_with("if [0, 4]") || r.contains("(n % 10).abs() == 4");
        assert!(!found(&sig, &runs(tag, &live)).iter().any(of_four));
        live.push(14);
        // With a second, 4 joins 0 (whose live calls are 10 and 20).
        assert!(found(&sig, &runs(tag, &live))
            .iter()
            .any(|r| r.starts_with("if [0, 4].contains(&(n % 10).abs())")));
        // Of an English suffix, that 0 and 4 end in `th` the five calls outside them show
        // once in five: two calls each are chance.
        assert!(!found(&sig, &runs(|n| text(suffix(n)), &live))
            .iter()
            .any(|r| r.contains("4]")));
        // A constant is one value everywhere: no class says it.
        assert_eq!(
            found(&sig, &runs(|_| text("th"), &live)),
            Vec::<String>::new()
        );
        // Only of a result a literal holds, and of a parameter classes are made of.
        assert!(applies(&sig));
        let of_floats = Signature::parse("fn f(x: f64) -> u8", &[Kind::Float], Kind::Int).unwrap();
        assert!(!applies(&of_floats));
        let to_list =
            Signature::parse("fn f(n: i64) -> Vec<f64>", &[Kind::Int], Kind::FloatSeq).unwrap();
        assert!(!applies(&to_list));
        // Nor of a float or a sequence.
        let float = Signature::parse("fn f(n: i64) -> f64", &[Kind::Int], Kind::Float).unwrap();
        assert_eq!(
            found(&float, &runs(|n| Value::Float(digit(n, 0) as f64), &live)),
            Vec::<String>::new()
        );
    }

    #[test]
    fn a_class_of_a_property_most_inputs_have_needs_many_calls() {
        // Whether a number is a square: one input in three is, the others are numbers of the
        // same range, drawn at random. The digits of some place whose few calls are all of
        // the others make classes by chance; each digit must show more than chance.
        let square = |n: i128| Value::Int(if n.isqrt() * n.isqrt() == n { 2 } else { 1 });
        let drawn = |i: i128| {
            let mut x = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            x ^= x >> 29;
            x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
            x ^= x >> 32;
            i128::from(x % 1_000_000)
        };
        let live: Vec<i128> = (0..150i128)
            .map(|i| match i % 3 {
                0 => (i * 37 % 1000 + 2).pow(2),
                _ => drawn(i),
            })
            .collect();
        let sig = of("u64", Kind::Int);
        let made = found(&sig, &runs(square, &live));
        // None: not even that no square ends in 2, 3, 7 or 8, which these calls are too few
        // to tell from chance.
        assert_eq!(made, Vec::<String>::new());
        // The chance that all of a class's calls have a property the others have as often.
        assert!(significant(10, 1, 10, 1));
        assert!(!significant(10, 9, 10, 1));
        assert!(significant(30, 5, 10, 10));
        assert!(!significant(30, 9, 10, 1000));
        assert_eq!(digit_classes(0), 10);
        assert_eq!(digit_classes(9), 10);
        assert_eq!(digit_classes(10), 20);
        assert_eq!(digit_classes(999_999), 60);
        assert_eq!(digit_classes(u128::MAX), 390);
        assert_eq!(char_classes(), 18);
        // No call outside the class: nothing to tell it from. One call outside that lacks
        // the property is no proof that the others would.
        assert!(!significant(30, 0, 0, 1));
        assert!(!significant(1, 0, 1, 1));
        assert!(significant(3, 0, 1, 1));
    }

    #[test]
    fn a_class_is_told_from_live_calls_that_have_its_place() {
        let text = |s: &str| Value::Str(s.into());
        let sig = of("i64", Kind::Str);
        // `x` where the tens digit is 5; below ten, `x` or `z` by parity, which says nothing
        // of a tens digit the numbers below ten do not have.
        let f = |n: i128| match n {
            0..=9 if n % 2 == 0 => text("x"),
            0..=9 => text("z"),
            _ if digit(n, 1) == 5 => text("x"),
            _ => text("y"),
        };
        let mut live: Vec<i128> = (0..30).map(|i| i % 10).collect();
        live.extend([50, 51, 150]);
        live.extend(
            (0..20)
                .map(|i| 100 + i * 37 % 400)
                .filter(|&n| digit(n, 1) != 5),
        );
        let all = found(&sig, &runs(f, &live));
        assert!(
            all.iter()
                .any(|r| r == "if (n / 10 % 10).abs() == 5 => result == \"x\""),
            "{all:?}"
        );
        // Follow-up runs are no live calls: made live, the follow-ups of the small numbers
        // (one and two more) would be counted once more each.
        let (inside, holding, outside) = live_split(
            &[
                (&[Value::Int(50)], &text("x"), true),
                (&[Value::Int(51)], &text("x"), false),
                (&[Value::Int(60)], &text("y"), true),
                (&[Value::Int(61)], &text("x"), false),
                (&[Value::Int(60)], &text("y"), true),
            ],
            (
                Guard::Digit {
                    param: 0,
                    place: 1,
                    digits: 1 << 5,
                },
                Guard::Digit {
                    param: 0,
                    place: 1,
                    digits: 1 << 5,
                },
            ),
            Property::Is(Lit::text("x").unwrap()),
            |_| true,
        );
        assert_eq!((inside, holding, outside), (1, 0, 1));
    }

    #[test]
    fn each_value_of_a_class_by_value_shows_it_past_chance() {
        let sig = Signature::parse(
            "fn f(year: i32, month: u32) -> u32",
            &[Kind::Int, Kind::Int],
            Kind::Int,
        )
        .unwrap();
        let call =
            |y: i128, m: i128, v: i128| (vec![Value::Int(y), Value::Int(m)], Value::Int(v), true);
        // Months 4 and 5 give 30 on many calls and two calls; the others 30 as often as not:
        // two calls of 5 are chance, and the class of both is not claimed.
        let mut live: Vec<(Vec<Value>, Value, bool)> =
            (0..40).map(|i| call(1990 + i, 4, 30)).collect();
        live.extend([call(1990, 5, 30), call(1991, 5, 30)]);
        live.extend((0..40).map(|i| call(1990 + i, 6 + i % 20, 30 + i / 20)));
        let all = found(&sig, &live);
        assert!(!all.iter().any(|r| r.contains("[4, 5]")), "{all:?}");
        // One value everywhere, past the small values too: however many calls of month 4
        // (enough to pass the test of chance), no call outside differs.
        let mut flat: Vec<(Vec<Value>, Value, bool)> =
            (0..400).map(|i| call(1990 + i, 4, 0)).collect();
        flat.extend((0..40).map(|i| call(1990 + i, 100 + i, 0)));
        assert_eq!(found(&sig, &flat), Vec::<String>::new());
    }

    #[test]
    fn members_of_a_class_differ_in_the_other_places_and_stay_in_the_type() {
        let sig = of("i8", Kind::Str);
        let guard = Guard::Digit {
            param: 0,
            place: 1,
            digits: 1 << 1,
        };
        let made = members(&sig, &[vec![Value::Int(-57)]], &[guard]);
        let values: Vec<i128> = made
            .iter()
            .map(|v| match v[0] {
                Value::Int(n) => n,
                _ => 0,
            })
            .collect();
        // The units, then the hundreds (within `i8`: -100 to -119 only, to -128).
        let expected: Vec<i128> = (0..10).map(|u| -(10 + u)).chain([-117]).collect();
        assert_eq!(values, expected);
        assert!(made.iter().all(|v| guard.holds(v)));
        assert_eq!(with_digit(-57, 0, 2), Some(-52));
        assert_eq!(with_digit(0, 1, 3), Some(30));
        assert_eq!(with_digit(57, 3, 4), Some(4057));
        assert_eq!(with_digit(i128::MAX, 38, 9), None);
        // Other guards have no members.
        assert_eq!(
            members(&sig, &[vec![Value::Int(3)]], &[Guard::Positive(0)]),
            Vec::<Vec<Value>>::new()
        );
    }

    #[test]
    fn the_common_end_and_start_keep_whole_characters() {
        assert_eq!(common_pair("12th", "3th", Place::End), "th");
        assert_eq!(common_pair("éa", "èa", Place::End), "a");
        assert_eq!(common_pair("small 1", "small 2", Place::Start), "small ");
        assert_eq!(common_pair("ée", "éf", Place::Start), "é");
        assert_eq!(common_pair("a", "b", Place::Start), "");
        let v = |s: &str| Value::Str(s.into());
        assert_eq!(
            common_of(&[&v("1th"), &v("2th")], Place::End),
            Some("th".into())
        );
        assert_eq!(common_of(&[&v("1st"), &v("2th")], Place::End), None);
        assert_eq!(common_of(&[&v("1th"), &Value::Int(2)], Place::End), None);
        assert_eq!(common_of(&[], Place::End), None);
    }

    #[test]
    fn a_class_of_characters_gives_a_result_and_its_members_are_of_it() {
        let width = |c: char| match c {
            c if c.is_control() => Value::Option(None),
            '\u{4e00}'..='\u{9fff}' => Value::Option(Some(Box::new(Value::Int(2)))),
            _ => Value::Option(Some(Box::new(Value::Int(1)))),
        };
        let sig = Signature::parse(
            "fn width(c: char) -> Option<usize>",
            &[Kind::Char],
            Kind::Option,
        )
        .unwrap();
        let live = ['a', 'Z', '\n', '\t', '中', '文', '1', ' ', '\u{7f}', 'é'];
        let runs: Vec<(Vec<Value>, Value, bool)> = live
            .iter()
            .map(|&c| (vec![Value::Char(c)], width(c), true))
            .collect();
        // Control characters give `None`; the classes the same calls make up (none here)
        // would say it again and are left out. That the two lower-case letters give
        // `Some(1)`, as three calls of the eight outside them do, is chance.
        assert_eq!(
            found(&sig, &runs),
            ["if c.is_control() => result.is_none()"]
        );
        // Two live calls are enough where the many others never show it.
        let two: Vec<(Vec<Value>, Value, bool)> = ['a', 'Z', '\n', '\t', '中', '1']
            .into_iter()
            .chain(('b'..='y').step_by(1))
            .map(|c| (vec![Value::Char(c)], width(c), true))
            .collect();
        // (With so many lower-case letters of width 1, they are a class too.)
        assert_eq!(
            found(&sig, &two),
            [
                "if c.is_control() => result.is_none()",
                "if c.is_lowercase() => result == Some(1)"
            ]
        );
        let guard = Guard::Chars {
            param: 0,
            class: CharKind::Control,
            holds: true,
        };
        let made = members(&sig, &[vec![Value::Char('a')]], &[guard]);
        assert!(
            made.len() >= 33,
            "every ASCII control and more: {}",
            made.len()
        );
        assert!(made.iter().all(|v| guard.holds(v)));

        // Of a string: holding no digit.
        let valid = |s: &str| {
            let digits: Vec<u32> = s.chars().filter_map(|c| c.to_digit(10)).collect();
            Value::Bool(!digits.is_empty() && digits.iter().sum::<u32>() % 10 == 0)
        };
        let sig =
            Signature::parse("fn valid(pan: &str) -> bool", &[Kind::Str], Kind::Bool).unwrap();
        let live = [
            "", "abc", "- -", "19", "55", "12", "7 3", "x", "a19", "yz", "?", "-", ".", "q r", "",
            "..",
        ];
        let runs: Vec<(Vec<Value>, Value, bool)> = live
            .iter()
            .map(|&s| (vec![Value::Str(s.into())], valid(s), true))
            .collect();
        assert_eq!(
            found(&sig, &runs),
            ["if !pan.contains(|c: char| c.is_numeric()) => !result"]
        );
        let no_digit = Guard::Chars {
            param: 0,
            class: CharKind::Numeric,
            holds: false,
        };
        let made = members(&sig, &[vec![Value::Str("4 1-2".into())]], &[no_digit]);
        assert!(made.contains(&vec![Value::Str(" -".into())]), "{made:?}");
        assert!(
            made.len() > 6 && made.iter().all(|v| no_digit.holds(v)),
            "{made:?}"
        );
        let one_digit = Guard::Chars {
            param: 0,
            class: CharKind::Numeric,
            holds: true,
        };
        let made = members(&sig, &[vec![Value::Str("ab".into())]], &[one_digit]);
        assert!(made.contains(&vec![Value::Str("0ab".into())]), "{made:?}");
        assert!(made.contains(&vec![Value::Str("a0b".into())]), "{made:?}");
        assert!(made.contains(&vec![Value::Str("ab0".into())]), "{made:?}");
        assert!(made.iter().all(|v| one_digit.holds(v)));
    }

    #[test]
    fn values_of_an_argument_on_which_the_result_ignores_the_others_form_a_class() {
        // Of an invalid month, zero.
        let days = |y: i128, m: i128| {
            Value::Int(match m {
                4 | 6 | 9 | 11 => 30,
                2 if y % 4 == 0 => 29,
                2 => 28,
                1..=12 => 31,
                _ => 0,
            })
        };
        let sig = Signature::parse(
            "fn days(year: i32, month: u32) -> u32",
            &[Kind::Int, Kind::Int],
            Kind::Int,
        )
        .unwrap();
        let live: Vec<(Vec<Value>, Value, bool)> = (0..60)
            .map(|i| {
                let (y, m) = (1990 + i * 7 % 13, i % 15);
                (vec![Value::Int(y), Value::Int(m)], days(y, m), true)
            })
            .collect();
        let all = found(&sig, &live);
        for class in [
            "if [4, 6, 9, 11].contains(&month) => result == 30",
            "if [1, 3, 5, 7, 8, 10, 12].contains(&month) => result == 31",
            "if [0, 13, 14].contains(&month) => result == 0",
        ] {
            assert!(all.iter().any(|r| r == class), "{class}: {all:?}");
        }
        // February depends on the year: no class of it; nor of the year, whose values are
        // past 63 or, each, shown with one month.
        assert!(!all.iter().any(|r| r.contains("month == 2")), "{all:?}");
        assert!(!all.iter().any(|r| r.contains("&year)")), "{all:?}");
        // Members: each value with the other arguments of each base.
        let guard = Guard::Among {
            param: 1,
            values: 1 << 4 | 1 << 6,
        };
        let made = members(&sig, &[vec![Value::Int(1999), Value::Int(1)]], &[guard]);
        assert_eq!(
            made,
            [
                vec![Value::Int(1999), Value::Int(4)],
                vec![Value::Int(1999), Value::Int(6)]
            ]
        );
        assert_eq!(guard.text(&sig), "[4, 6].contains(&month)");
        let april = Guard::Among {
            param: 1,
            values: 1 << 4,
        };
        assert_eq!(april.text(&sig), "month == 4");
        // Of a reference, the value it refers to.
        let by_ref = Signature::parse(
            "fn days(year: i32, month: &u8) -> u8",
            &[Kind::Int, Kind::Int],
            Kind::Int,
        )
        .unwrap();
        assert_eq!(guard.text(&by_ref), "[4, 6].contains(&*month)");
        let later = Guard::Among {
            param: 1,
            values: 0b111 << 13,
        };
        assert_eq!(later.text(&by_ref), "(13..=15).contains(&*month)");
        // Runs of three values or more are written as ranges.
        let beyond = Guard::Among {
            param: 1,
            values: 1 | (u64::MAX << 13),
        };
        assert_eq!(
            beyond.text(&sig),
            "(month == 0 || (13..=63).contains(&month))"
        );
        let summer = Guard::Among {
            param: 1,
            values: 0b11_1110_0000 | 1 << 12 | 1 << 14,
        };
        assert_eq!(
            summer.text(&sig),
            "((5..=9).contains(&month) || month == 12 || month == 14)"
        );
        let pair = Guard::Among {
            param: 1,
            values: 0b111 << 5 | 0b11 << 20,
        };
        assert_eq!(
            pair.text(&sig),
            "((5..=7).contains(&month) || month == 20 || month == 21)"
        );
        let at = |m: i128| vec![Value::Int(2001), Value::Int(m)];
        assert!(april.holds(&at(4)) && guard.holds(&at(6)));
        assert!(!april.holds(&at(5)) && !april.holds(&at(2)) && !april.holds(&at(68)));
        assert!(!april.holds(&at(-4)) && !april.holds(&at(4 + (1 << 32))));
        // A value far past 63 is no small value, whatever its low bits: April's class of a
        // function that gives 30 there and 0 at 2³² + 4 still stands.
        let mut far = live.clone();
        far.push((at(4 + (1 << 32)), Value::Int(0), true));
        assert!(found(&sig, &far)
            .iter()
            .any(|r| r.starts_with("if [4, 6, 9, 11]")));
        // Two live calls of a value, with other arguments, are enough where the calls of
        // other values (months past December, here) never show it.
        let pair: Vec<(Vec<Value>, Value, bool)> = [(1990, 4), (1991, 4), (1990, 5), (1991, 5)]
            .into_iter()
            .chain((0..40).map(|i| (1990 + i, 20 + i)))
            .map(|(y, m)| (vec![Value::Int(y), Value::Int(m)], days(y, m), true))
            .collect();
        let by_value: Vec<String> = found(&sig, &pair)
            .into_iter()
            .filter(|r| r.starts_with("if month =="))
            .collect();
        assert_eq!(
            by_value,
            [
                "if month == 4 => result == 30",
                "if month == 5 => result == 31"
            ]
        );
        // One value everywhere, outside the small values too: no class.
        let flat: Vec<(Vec<Value>, Value, bool)> = (0..40)
            .map(|i| {
                (
                    vec![Value::Int(1990 + i % 7), Value::Int(i % 5 + 70 * (i % 2))],
                    Value::Int(0),
                    true,
                )
            })
            .collect();
        assert_eq!(found(&sig, &flat), Vec::<String>::new());
        // A function of one argument has no such class: its result at one value is one.
        let one = of("i64", Kind::Str);
        let text = |n: i128| Value::Str(format!("{}", n % 3));
        let runs_one: Vec<(Vec<Value>, Value, bool)> = (0..40)
            .map(|n| (vec![Value::Int(n % 8)], text(n % 8), true))
            .collect();
        assert!(!found(&one, &runs_one)
            .iter()
            .any(|r| r.contains(".contains(&n)")));
    }
}
