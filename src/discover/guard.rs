//! Guards: categories of the input (the sign of a number, the length, order and spread of a
//! sequence) under which a relation that fails elsewhere holds.

use super::signature::Signature;
use super::transform::NumTy;
use super::value::{Kind, Value};

/// A condition on one parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Guard {
    /// `x > 0`.
    Positive(usize),
    /// `x >= 0`.
    NonNegative(usize),
    /// `x < 0`.
    Negative(usize),
    /// `x <= 0`.
    NonPositive(usize),
    /// `x != 0`.
    NonZero(usize),
    /// `x > 1` of an integer: past the two values that are their own squares, where a
    /// relation of products breaks (`perfect_power(x * x) == (result.0, 2 * result.1)` at
    /// 0 and 1).
    AboveOne(usize),
    /// `!xs.is_empty()`.
    NonEmpty(usize),
    /// `xs.len() > 1`.
    Several(usize),
    /// `xs.is_sorted()`.
    Sorted(usize),
    /// Not all elements equal.
    Varied(usize),
    /// Every element `>= 0`.
    AllNonNegative(usize),
    /// Some element `!= 0`.
    SomeNonZero(usize),
    /// The decimal digit of `|x|` in one place is one of a set: a class of integers by a
    /// digit (`(n / 10 % 10).abs() == 1`, the teens of every hundred), on which a result is
    /// one value. Found with such a result (see `search::constants`), never tried as the
    /// category of another relation.
    Digit {
        /// `x`.
        param: usize,
        /// The place: `0` for units, `1` for tens.
        place: u32,
        /// The digits, bit `d` for digit `d`.
        digits: u16,
    },
    /// A small integer is one of a set of values (`[4, 6, 9, 11].contains(&month)`), bit `v`
    /// for `v`: a class of inputs of a function of several arguments on which the result is
    /// one value whatever the others, found as [`Guard::Digit`] is.
    Among {
        /// The integer parameter.
        param: usize,
        /// The values, from 0 to 63.
        values: u64,
    },
    /// A character of a class (`c.is_control()`), or a string holding one
    /// (`s.contains(char::is_numeric)`), or not, as `holds` says: a class of inputs on which
    /// a result is one value (`if c.is_control() => result.is_none()`), found as
    /// [`Guard::Digit`] is.
    Chars {
        /// The character or string parameter.
        param: usize,
        /// The class.
        class: CharKind,
        /// Whether the input is of the class (holds one of it), or is not.
        holds: bool,
    },
    /// The remainder of an integer by a divisor of its period is one of a listed few, or
    /// is none of them, as `within` says (`year.rem_euclid(400) == 0`,
    /// `year.rem_euclid(4) != 0`): a class on which a result is one value, found by
    /// probing each remainder (see `residue`).
    Residue {
        /// The integer parameter.
        param: usize,
        /// The divisor.
        modulus: u16,
        /// The remainders, the first `len` of them.
        listed: [u16; LISTED],
        /// How many remainders are listed.
        len: u8,
        /// Whether the remainder is one of them, or none.
        within: bool,
    },
    /// A number parameter is at most (or at least) another number of its type: another
    /// parameter, or the first or last element of a sequence (`xp <= x[0]`, a point before
    /// a table's first knot; `a >= b` of a larger of two). A class on which a result is one
    /// of the inputs passed through (see `through`), never tried as the category of another
    /// relation.
    Order {
        /// The number parameter.
        left: usize,
        /// What it is compared with.
        right: Operand,
        /// How.
        side: Side,
        /// Whether the sequence `right` reads an end of is also sorted: its first element is
        /// then its least, as a table's knots are (`x.is_sorted() && xp <= x[0]`).
        sorted: bool,
    },
}

/// How a [`Guard::Order`] compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// `left <= right`.
    AtMost,
    /// `left >= right`.
    AtLeast,
    /// `left < right`: where the result is an input only past the boundary, and on it
    /// is computed (a table interpolated at its first knot, a rounding off its value).
    Below,
    /// `left > right`.
    Above,
    /// `left == right`: where the result is the two's value, as a mean's of two equal
    /// numbers, or a table's at a knot.
    Equal,
}

impl Side {
    /// Whether two numbers so ordered are on this side.
    pub fn admits(self, o: std::cmp::Ordering) -> bool {
        use std::cmp::Ordering;
        matches!(
            (self, o),
            (Side::AtMost | Side::AtLeast | Side::Equal, Ordering::Equal)
                | (Side::AtMost | Side::Below, Ordering::Less)
                | (Side::AtLeast | Side::Above, Ordering::Greater)
        )
    }

    fn symbol(self) -> &'static str {
        match self {
            Side::AtMost => "<=",
            Side::AtLeast => ">=",
            Side::Below => "<",
            Side::Above => ">",
            Side::Equal => "==",
        }
    }
}

/// A number the input holds: a number parameter, or the first or last element of a
/// sequence, which a guard compares and a result may be ([`Guard::Order`],
/// `Property::Equals`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Operand {
    /// The parameter itself.
    Param(usize),
    /// A sequence's first element.
    First(usize),
    /// A sequence's last element.
    Last(usize),
}

impl Operand {
    /// The parameter it is read from.
    pub fn param(self) -> usize {
        match self {
            Operand::Param(p) | Operand::First(p) | Operand::Last(p) => p,
        }
    }

    /// Its value in `input`: `None` of an empty sequence.
    pub fn value(self, input: &[Value]) -> Option<Value> {
        let at = |p: usize, first: bool| match input.get(p)? {
            Value::FloatSeq(xs) => Some(Value::Float(*pick(xs, first)?)),
            Value::IntSeq(xs) => Some(Value::Int(*pick(xs, first)?)),
            _ => None,
        };
        match self {
            Operand::Param(p) => input.get(p).filter(|v| v.kind().is_number()).cloned(),
            Operand::First(p) => at(p, true),
            Operand::Last(p) => at(p, false),
        }
    }

    /// Its type as written (`f64`), as far as a comparison or an equality needs.
    pub fn ty(self, sig: &Signature) -> Option<String> {
        let param = sig.params.get(self.param())?;
        let ty = param.ty.trim_start_matches("&mut").trim_start_matches('&');
        match self {
            Operand::Param(_) if param.kind.is_number() => Some(ty.to_string()),
            Operand::First(_) | Operand::Last(_) if param.kind.is_seq() => param.element_ty(),
            _ => None,
        }
    }

    /// The operand as Rust source, where it is known to be there (`x[0]`, `*lo`).
    pub fn text(self, sig: &Signature) -> String {
        let param = &sig.params[self.param()];
        match self {
            Operand::Param(_) => param.value_text(),
            Operand::First(_) => format!("{}[0]", param.name),
            Operand::Last(_) => format!("{0}[{0}.len() - 1]", param.name),
        }
    }
}

fn pick<T>(xs: &[T], first: bool) -> Option<&T> {
    match first {
        true => xs.first(),
        false => xs.last(),
    }
}

/// The order of two numbers of one kind, exact of integers of any size: `None` of two of
/// different kinds or of a `NaN`.
pub fn order(a: &Value, b: &Value) -> Option<std::cmp::Ordering> {
    match (a, b) {
        (Value::Int(a), Value::Int(b)) => Some(a.cmp(b)),
        (Value::Float(a), Value::Float(b)) => a.partial_cmp(b),
        _ => None,
    }
}

/// Most remainders a class by remainder lists: what a reader takes in at a glance.
pub const LISTED: usize = 8;

/// A class of characters, as the standard library names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CharKind {
    /// `char::is_control`.
    Control,
    /// `char::is_whitespace`.
    Whitespace,
    /// `char::is_alphabetic`.
    Alphabetic,
    /// `char::is_numeric`.
    Numeric,
    /// `char::is_uppercase`.
    Uppercase,
    /// `char::is_lowercase`.
    Lowercase,
    /// `char::is_ascii_digit`.
    AsciiDigit,
    /// `char::is_ascii_punctuation`.
    AsciiPunctuation,
    /// `char::is_ascii`.
    Ascii,
}

impl CharKind {
    /// Every class, in a fixed order.
    pub const ALL: [CharKind; 9] = [
        CharKind::Control,
        CharKind::Whitespace,
        CharKind::Alphabetic,
        CharKind::Numeric,
        CharKind::Uppercase,
        CharKind::Lowercase,
        CharKind::AsciiDigit,
        CharKind::AsciiPunctuation,
        CharKind::Ascii,
    ];

    /// Whether `c` is of the class.
    pub fn has(self, c: char) -> bool {
        match self {
            CharKind::Control => c.is_control(),
            CharKind::Whitespace => c.is_whitespace(),
            CharKind::Alphabetic => c.is_alphabetic(),
            CharKind::Numeric => c.is_numeric(),
            CharKind::Uppercase => c.is_uppercase(),
            CharKind::Lowercase => c.is_lowercase(),
            CharKind::AsciiDigit => c.is_ascii_digit(),
            CharKind::AsciiPunctuation => c.is_ascii_punctuation(),
            CharKind::Ascii => c.is_ascii(),
        }
    }

    /// The method's name.
    fn method(self) -> &'static str {
        match self {
            CharKind::Control => "is_control",
            CharKind::Whitespace => "is_whitespace",
            CharKind::Alphabetic => "is_alphabetic",
            CharKind::Numeric => "is_numeric",
            CharKind::Uppercase => "is_uppercase",
            CharKind::Lowercase => "is_lowercase",
            CharKind::AsciiDigit => "is_ascii_digit",
            CharKind::AsciiPunctuation => "is_ascii_punctuation",
            CharKind::Ascii => "is_ascii",
        }
    }
}

/// The runs of consecutive values of a set of values from 0 to 63 (bit `v` for `v`), each
/// its first and last value.
fn runs_of(values: u64) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for v in (0..64).filter(|v| values & (1 << v) != 0) {
        match out.last_mut() {
            Some((_, last)) if *last + 1 == v => *last = v,
            _ => out.push((v, v)),
        }
    }
    out
}

/// The decimal digit of `|n|` in `place` (`0` for units).
pub fn digit(n: i128, place: u32) -> u32 {
    let shifted = 10u128
        .checked_pow(place)
        .map_or(0, |scale| n.unsigned_abs() / scale);
    (shifted % 10) as u32
}

impl Guard {
    /// Every guard for a signature's parameters, the wider of two first: on a tie in what was
    /// observed, a relation keeps the wider.
    pub fn all(sig: &Signature) -> Vec<Guard> {
        Guard::ordered(sig, false)
    }

    /// Every guard, the narrower of two first (`x > 0` before `x >= 0`; a varied sequence
    /// before one with a non-zero element, before a non-empty one): a property strict at the
    /// boundary (`tanh(x) > 0` for `x > 0`, a variance's `result > 0.0`) must not take the wider
    /// guard only because no input sat on the boundary.
    pub fn narrow_first(sig: &Signature) -> Vec<Guard> {
        Guard::ordered(sig, true)
    }

    fn ordered(sig: &Signature, narrow: bool) -> Vec<Guard> {
        let mut out = Vec::new();
        // Last of all: narrower than `x > 0`, taken only where no guard of a sign, of any
        // parameter, will do.
        let past_one = (0..sig.params.len())
            .filter(|&p| sig.params[p].kind == Kind::Int)
            .map(Guard::AboveOne);
        for (p, param) in sig.params.iter().enumerate() {
            if param.kind.is_number() {
                let guards = if narrow {
                    [
                        Guard::Positive(p),
                        Guard::NonNegative(p),
                        Guard::Negative(p),
                        Guard::NonPositive(p),
                        Guard::NonZero(p),
                    ]
                } else {
                    [
                        Guard::NonNegative(p),
                        Guard::Positive(p),
                        Guard::NonPositive(p),
                        Guard::Negative(p),
                        Guard::NonZero(p),
                    ]
                };
                // Of an unsigned number, `>= 0` is its type's and `< 0` is no value: neither
                // says where a relation holds.
                out.extend(guards.into_iter().filter(|g| {
                    !param.is_unsigned() || !matches!(g, Guard::NonNegative(_) | Guard::Negative(_))
                }));
            } else if param.kind == Kind::Str {
                out.push(Guard::NonEmpty(p));
            } else if param.kind == Kind::List {
                out.extend([Guard::NonEmpty(p), Guard::Several(p)]);
            } else if param.kind.is_seq() {
                out.extend(if narrow {
                    [
                        Guard::Varied(p),
                        Guard::SomeNonZero(p),
                        Guard::NonEmpty(p),
                        Guard::Several(p),
                        Guard::Sorted(p),
                        Guard::AllNonNegative(p),
                    ]
                } else {
                    [
                        Guard::NonEmpty(p),
                        Guard::Several(p),
                        Guard::Sorted(p),
                        Guard::Varied(p),
                        Guard::AllNonNegative(p),
                        Guard::SomeNonZero(p),
                    ]
                });
            }
        }
        out.extend(past_one);
        out
    }

    /// The parameter the guard is a condition on.
    pub fn param(&self) -> usize {
        match *self {
            Guard::Positive(p)
            | Guard::NonNegative(p)
            | Guard::Negative(p)
            | Guard::NonPositive(p)
            | Guard::NonZero(p)
            | Guard::AboveOne(p)
            | Guard::NonEmpty(p)
            | Guard::Several(p)
            | Guard::Sorted(p)
            | Guard::Varied(p)
            | Guard::AllNonNegative(p)
            | Guard::SomeNonZero(p)
            | Guard::Digit { param: p, .. }
            | Guard::Chars { param: p, .. }
            | Guard::Among { param: p, .. }
            | Guard::Residue { param: p, .. }
            | Guard::Order { left: p, .. } => p,
        }
    }

    /// Whether every input under the guard has a non-empty sequence for parameter `p`.
    pub fn rules_out_empty(&self, p: usize) -> bool {
        matches!(*self,
            Guard::NonEmpty(q) | Guard::Several(q) | Guard::Varied(q) | Guard::SomeNonZero(q)
            if q == p)
    }

    /// Whether the input falls under the guard.
    pub fn holds(&self, input: &[Value]) -> bool {
        let num = |p: usize| input[p].number().unwrap_or(f64::NAN);
        let seq = |p: usize| input[p].elements().unwrap_or_default();
        match *self {
            Guard::Positive(p) => num(p) > 0.0,
            Guard::NonNegative(p) => num(p) >= 0.0,
            Guard::Negative(p) => num(p) < 0.0,
            Guard::NonPositive(p) => num(p) <= 0.0,
            Guard::NonZero(p) => num(p) != 0.0,
            Guard::AboveOne(p) => matches!(input[p], Value::Int(i) if i > 1),
            Guard::NonEmpty(p) => match &input[p] {
                Value::Str(s) => !s.is_empty(),
                Value::List(items) => !items.is_empty(),
                _ => !seq(p).is_empty(),
            },
            Guard::Several(p) => match &input[p] {
                Value::List(items) => items.len() > 1,
                _ => seq(p).len() > 1,
            },
            Guard::Sorted(p) => seq(p).windows(2).all(|w| w[0] <= w[1]),
            Guard::Varied(p) => seq(p).windows(2).any(|w| w[0] != w[1]),
            Guard::AllNonNegative(p) => seq(p).iter().all(|&v| v >= 0.0),
            Guard::SomeNonZero(p) => seq(p).iter().any(|&v| v != 0.0),
            Guard::Digit {
                param,
                place,
                digits,
            } => match input[param] {
                Value::Int(n) => digits & (1 << digit(n, place)) != 0,
                _ => false,
            },
            Guard::Among { param, values } => match input[param] {
                Value::Int(v) => (0..64).contains(&v) && values & (1 << v) != 0,
                _ => false,
            },
            Guard::Residue {
                param,
                modulus,
                listed,
                len,
                within,
            } => match input[param] {
                Value::Int(v) => {
                    let r = v.rem_euclid(i128::from(modulus));
                    listed[..usize::from(len)]
                        .iter()
                        .any(|&l| i128::from(l) == r)
                        == within
                }
                _ => false,
            },
            Guard::Chars {
                param,
                class,
                holds,
            } => match &input[param] {
                Value::Char(c) => class.has(*c) == holds,
                Value::Str(s) => s.chars().any(|c| class.has(c)) == holds,
                _ => false,
            },
            Guard::Order {
                left,
                right,
                side,
                sorted,
            } => {
                let (Some(l), Some(r)) = (Operand::Param(left).value(input), right.value(input))
                else {
                    return false;
                };
                let ordered = !sorted || Guard::Sorted(right.param()).holds(input);
                ordered && order(&l, &r).is_some_and(|o| side.admits(o))
            }
        }
    }

    /// The guard as Rust source.
    pub fn text(&self, sig: &Signature) -> String {
        let param = |p: usize| &sig.params[p];
        let zero = |p: usize| {
            if param(p).num_ty() == NumTy::Int {
                "0"
            } else {
                "0.0"
            }
        };
        let cmp = |p: usize, op: &str| format!("{} {op} {}", param(p).value_text(), zero(p));
        match *self {
            Guard::Positive(p) => cmp(p, ">"),
            Guard::NonNegative(p) => cmp(p, ">="),
            Guard::Negative(p) => cmp(p, "<"),
            Guard::NonPositive(p) => cmp(p, "<="),
            Guard::NonZero(p) => cmp(p, "!="),
            Guard::AboveOne(p) => format!("{} > 1", param(p).value_text()),
            Guard::NonEmpty(p) => format!("!{}.is_empty()", param(p).name),
            Guard::Several(p) => format!("{}.len() > 1", param(p).name),
            Guard::Sorted(p) => format!("{}.is_sorted()", param(p).name),
            Guard::Varied(p) => format!("{}.windows(2).any(|w| w[0] != w[1])", param(p).name),
            Guard::AllNonNegative(p) => {
                format!("{}.iter().all(|&v| v >= {})", param(p).name, zero(p))
            }
            Guard::SomeNonZero(p) => {
                format!("{}.iter().any(|&v| v != {})", param(p).name, zero(p))
            }
            Guard::Digit {
                param: p,
                place,
                digits,
            } => {
                let x = param(p).value_text();
                let shifted = match place {
                    0 => format!("{x} % 10"),
                    _ => format!("{x} / {} % 10", 10u128.pow(place)),
                };
                let digit = match param(p).is_unsigned() {
                    true => format!("({shifted})"),
                    false => format!("({shifted}).abs()"),
                };
                let set: Vec<String> = (0..10)
                    .filter(|d| digits & (1 << d) != 0)
                    .map(|d| d.to_string())
                    .collect();
                match set.as_slice() {
                    [one] => format!("{digit} == {one}"),
                    _ => format!("[{}].contains(&{digit})", set.join(", ")),
                }
            }
            Guard::Among { param: p, values } => {
                let x = param(p).value_text();
                // Runs of three values or more as ranges (`(13..=63).contains(&month)`).
                let runs = runs_of(values);
                let set: Vec<String> = (0..64)
                    .filter(|v| values & (1 << v) != 0)
                    .map(|v: u32| v.to_string())
                    .collect();
                if runs.iter().all(|(a, b)| b - a < 2) {
                    return match set.as_slice() {
                        [one] => format!("{x} == {one}"),
                        _ => format!("[{}].contains(&{x})", set.join(", ")),
                    };
                }
                let parts: Vec<String> = runs
                    .iter()
                    .map(|&(a, b)| match b - a {
                        0 => format!("{x} == {a}"),
                        1 => format!("{x} == {a} || {x} == {b}"),
                        _ => format!("({a}..={b}).contains(&{x})"),
                    })
                    .collect();
                match parts.as_slice() {
                    [one] => one.clone(),
                    _ => format!("({})", parts.join(" || ")),
                }
            }
            Guard::Residue {
                param: p,
                modulus,
                listed,
                len,
                within,
            } => {
                // `*n.rem_euclid(4)` would take the remainder of the reference.
                let x = match param(p).value_text() {
                    t if t.starts_with('*') => format!("({t})"),
                    t => t,
                };
                let r = format!("{x}.rem_euclid({modulus})");
                let set: Vec<String> = listed[..usize::from(len)]
                    .iter()
                    .map(u16::to_string)
                    .collect();
                match (set.as_slice(), within) {
                    ([one], true) => format!("{r} == {one}"),
                    ([one], false) => format!("{r} != {one}"),
                    (_, true) => format!("[{}].contains(&{r})", set.join(", ")),
                    (_, false) => format!("![{}].contains(&{r})", set.join(", ")),
                }
            }
            Guard::Chars {
                param: p,
                class,
                holds,
            } => {
                let not = if holds { "" } else { "!" };
                let x = param(p);
                match x.kind {
                    Kind::Char => format!("{not}{}.{}()", x.name, class.method()),
                    _ => format!("{not}{}.contains(|c: char| c.{}())", x.name, class.method()),
                }
            }
            Guard::Order {
                left,
                right,
                side,
                sorted,
            } => {
                let cmp = format!(
                    "{} {} {}",
                    param(left).value_text(),
                    side.symbol(),
                    right.text(sig)
                );
                // An element is read only of a sequence that has one.
                let xs = &param(right.param()).name;
                match (right, sorted) {
                    (Operand::Param(_), _) => cmp,
                    (_, false) => format!("!{xs}.is_empty() && {cmp}"),
                    (_, true) => format!("!{xs}.is_empty() && {xs}.is_sorted() && {cmp}"),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discover::value::Kind;

    #[test]
    fn a_guard_names_its_parameter_and_which_rule_out_an_empty_sequence() {
        let every = |p| {
            [
                Guard::Positive(p),
                Guard::NonNegative(p),
                Guard::Negative(p),
                Guard::NonPositive(p),
                Guard::NonZero(p),
                Guard::AboveOne(p),
                Guard::NonEmpty(p),
                Guard::Several(p),
                Guard::Sorted(p),
                Guard::Varied(p),
                Guard::AllNonNegative(p),
                Guard::SomeNonZero(p),
            ]
        };
        assert!(every(2).iter().all(|g| g.param() == 2));
        // A sorted sequence, or one of non-negative elements, may be empty.
        let ruling_out: Vec<Guard> = every(1)
            .into_iter()
            .filter(|g| g.rules_out_empty(1))
            .collect();
        assert_eq!(
            ruling_out,
            [
                Guard::NonEmpty(1),
                Guard::Several(1),
                Guard::Varied(1),
                Guard::SomeNonZero(1)
            ]
        );
        // Of another parameter, none does.
        assert!(every(1).iter().all(|g| !g.rules_out_empty(0)));
    }

    #[test]
    fn guards_classify_and_read_as_rust() {
        let sig = Signature::parse(
            "f(x: f64, n: &i32, xs: &[f64])",
            &[Kind::Float, Kind::Int, Kind::FloatSeq],
            Kind::Float,
        )
        .unwrap();
        let input = [
            Value::Float(-0.0),
            Value::Int(3),
            Value::FloatSeq(vec![2.0, 2.0]),
        ];
        let held: Vec<String> = Guard::all(&sig)
            .iter()
            .filter(|g| g.holds(&input))
            .map(|g| g.text(&sig))
            .collect();
        assert_eq!(
            held,
            [
                "x >= 0.0",
                "x <= 0.0",
                "*n >= 0",
                "*n > 0",
                "*n != 0",
                "!xs.is_empty()",
                "xs.len() > 1",
                "xs.is_sorted()",
                "xs.iter().all(|&v| v >= 0.0)",
                "xs.iter().any(|&v| v != 0.0)",
                "*n > 1",
            ]
        );
        let none = [
            Value::Float(1.0),
            Value::Int(1),
            Value::FloatSeq(vec![0.0, -0.0]),
        ];
        assert!(!Guard::SomeNonZero(2).holds(&none));
        // The narrower of two first, for properties; the wider first, for relations.
        let narrow = Guard::narrow_first(&sig);
        assert_eq!(
            narrow[..4],
            [
                Guard::Positive(0),
                Guard::NonNegative(0),
                Guard::Negative(0),
                Guard::NonPositive(0)
            ]
        );
        assert_eq!(narrow[5..7], [Guard::Positive(1), Guard::NonNegative(1)]);
        // Past one last of all, of an integer only.
        assert_eq!(narrow.last(), Some(&Guard::AboveOne(1)));
        assert!(!narrow.contains(&Guard::AboveOne(0)));
        assert_eq!(
            narrow[10..13],
            [Guard::Varied(2), Guard::SomeNonZero(2), Guard::NonEmpty(2)]
        );
        assert_eq!(narrow.len(), Guard::all(&sig).len());
        let other = [
            Value::Float(f64::NAN),
            Value::Int(-1),
            Value::FloatSeq(vec![3.0, -1.0]),
        ];
        let held: Vec<Guard> = Guard::all(&sig)
            .into_iter()
            .filter(|g| g.holds(&other))
            .collect();
        assert_eq!(
            held,
            [
                Guard::NonZero(0),
                Guard::NonPositive(1),
                Guard::Negative(1),
                Guard::NonZero(1),
                Guard::NonEmpty(2),
                Guard::Several(2),
                Guard::Varied(2),
                Guard::SomeNonZero(2),
            ]
        );
    }

    #[test]
    fn past_one_holds_of_integers_above_one_alone() {
        let sig = Signature::parse("f(n: u64)", &[Kind::Int], Kind::Bool).unwrap();
        let at = |n: i128| Guard::AboveOne(0).holds(&[Value::Int(n)]);
        assert!(at(2) && at(1 << 70));
        assert!(!at(1) && !at(0) && !at(-5));
        assert!(!Guard::AboveOne(0).holds(&[Value::Float(5.0)]));
        assert_eq!(Guard::AboveOne(0).text(&sig), "n > 1");
        assert_eq!(Guard::all(&sig).last(), Some(&Guard::AboveOne(0)));
        assert_eq!(Guard::narrow_first(&sig).last(), Some(&Guard::AboveOne(0)));
        // After every other parameter's guards too.
        let two =
            Signature::parse("f(a: u64, b: i64)", &[Kind::Int, Kind::Int], Kind::Int).unwrap();
        let all = Guard::all(&two);
        assert_eq!(
            all[all.len() - 2..],
            [Guard::AboveOne(0), Guard::AboveOne(1)]
        );
        assert!(all[..all.len() - 2]
            .iter()
            .all(|g| !matches!(g, Guard::AboveOne(_))));
    }
}
