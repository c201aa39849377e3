//! Properties of one call's result: its sign, a bound by a parameter, its length, order and
//! elements against the input's. They need no follow-up run, and unlike the equalities between
//! two runs (which a constant `0.0` satisfies whenever it is a fixed point of the output
//! relation), they fail for the constants and the emptied results that defects often leave.

use super::form::{NOISE_UNITS, STRICT_MARGIN};
use super::guard::Operand;
use super::signature::Signature;
use super::transform::NumTy;
use super::value::{Kind, Value};

/// How a number compares with a reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Cmp {
    /// Greater, by more than a pasted relation's tolerance can blur.
    Above,
    /// Greater or equal.
    AtLeast,
    /// Less, by more than a pasted relation's tolerance can blur.
    Below,
    /// Less or equal.
    AtMost,
}

impl Cmp {
    fn symbol(self) -> &'static str {
        match self {
            Cmp::Above => ">",
            Cmp::AtLeast => ">=",
            Cmp::Below => "<",
            Cmp::AtMost => "<=",
        }
    }

    /// Whether `y` compares so with `r`, `noise` being `y`'s.
    fn holds(self, y: f64, r: f64, noise: f64) -> bool {
        // NaN compares false in every branch below. As invite compares them, an infinity
        // equals only itself and lies beyond every number.
        if y.is_infinite() || r.is_infinite() {
            return match self {
                Cmp::Above => y > r,
                Cmp::AtLeast => y >= r,
                Cmp::Below => y < r,
                Cmp::AtMost => y <= r,
            };
        }
        let slack = NOISE_UNITS * (noise + f64::EPSILON * (y.abs() + r.abs()));
        // A strict comparison needs a gap a pasted relation's relative tolerance cannot call
        // equal (see `Form::Above`).
        let gap = STRICT_MARGIN * 1f64.max(y.abs()).max(r.abs());
        match self {
            Cmp::Above => y > r + gap.max(slack),
            Cmp::Below => y < r - gap.max(slack),
            Cmp::AtLeast => y >= r - slack,
            Cmp::AtMost => y <= r + slack,
        }
    }
}

/// The element type of `&[T]` or `Vec<T>`.
fn element_type(ty: &str) -> Option<String> {
    let t = ty.trim_start_matches('&');
    t.strip_prefix("Vec<")
        .and_then(|t| t.strip_suffix('>'))
        .or_else(|| t.strip_prefix('[').and_then(|t| t.strip_suffix(']')))
        .map(str::to_string)
}

/// A kind of character: what a text function may be seen never to produce (a case
/// converter's upper case, a slug's spaces and punctuation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CharClass {
    /// `char::is_uppercase`.
    Upper,
    /// `char::is_lowercase`.
    Lower,
    /// `char::is_numeric`.
    Numeric,
    /// Beyond ASCII: what an encoder for a narrower channel (a URL, a header) never writes.
    NonAscii,
    /// A set of ASCII characters that are neither letters nor digits (spaces, punctuation),
    /// one bit per code point.
    Ascii(u128),
}

impl CharClass {
    /// The classes every text result is judged by; the sets of [`CharClass::Ascii`] come
    /// from the characters the inputs show ([`CharClass::missing`]).
    pub const PREDICATES: [CharClass; 4] = [
        CharClass::Upper,
        CharClass::Lower,
        CharClass::Numeric,
        CharClass::NonAscii,
    ];

    /// The ASCII characters, neither letters nor digits, that some input of `inputs` holds
    /// and no result of `outputs` does: what the function was seen to take out.
    pub fn missing<'a>(
        inputs: impl Iterator<Item = &'a [Value]>,
        outputs: impl Iterator<Item = &'a Value>,
    ) -> Option<CharClass> {
        let mask = |t: &str| {
            t.chars()
                .filter(|c| c.is_ascii() && !c.is_ascii_alphanumeric())
                .fold(0u128, |m, c| m | 1 << (c as u32))
        };
        let seen = inputs
            .flat_map(|i| i.iter().filter_map(text_of))
            .fold(0, |m, t| m | mask(&t));
        let kept = outputs.filter_map(text_of).fold(0, |m, t| m | mask(&t));
        let set = seen & !kept;
        (set != 0).then_some(CharClass::Ascii(set))
    }

    /// Whether `c` is of the class.
    pub fn has(self, c: char) -> bool {
        match self {
            CharClass::Upper => c.is_uppercase(),
            CharClass::Lower => c.is_lowercase(),
            CharClass::Numeric => c.is_numeric(),
            CharClass::NonAscii => !c.is_ascii(),
            CharClass::Ascii(set) => c.is_ascii() && set >> (c as u32) & 1 == 1,
        }
    }

    /// The class as a pattern `str::contains` takes: a predicate, a character, or an array
    /// of them.
    fn pattern(self) -> String {
        match self {
            CharClass::Upper => "char::is_uppercase".into(),
            CharClass::Lower => "char::is_lowercase".into(),
            CharClass::Numeric => "char::is_numeric".into(),
            CharClass::NonAscii => "|c: char| !c.is_ascii()".into(),
            CharClass::Ascii(_) => {
                let chars: Vec<String> = (0u8..128)
                    .map(char::from)
                    .filter(|&c| self.has(c))
                    .map(|c| format!("{c:?}"))
                    .collect();
                match chars.as_slice() {
                    [one] => one.clone(),
                    many => format!("[{}]", many.join(", ")),
                }
            }
        }
    }

    /// Whether a character of the class begins a word (a run of non-whitespace) of `s`.
    pub fn starts_a_word(self, s: &str) -> bool {
        s.split_whitespace()
            .any(|w| w.chars().next().is_some_and(|c| self.has(c)))
    }
}

/// The characters of a text value: a string's, a character, or a list's strings and
/// characters.
pub fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::Str(s) => Some(s.clone()),
        Value::Char(c) => Some(c.to_string()),
        Value::List(items) => {
            let parts: Vec<String> = items.iter().filter_map(text_of).collect();
            (!parts.is_empty()).then(|| parts.join(" "))
        }
        _ => None,
    }
}

/// A property of the result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Property {
    /// `result > 0`, `result >= 0`, `result < 0` or `result <= 0`.
    Sign(Cmp),
    /// `result >= x` or `result <= x`, for a parameter `x` of the result's type.
    Bound { param: usize, cmp: Cmp },
    /// `result.len() == xs.len()`.
    SameLen(usize),
    /// `!result.is_empty()`.
    NonEmpty,
    /// `result.is_sorted()`.
    Sorted,
    /// Every element of the result is an element of `xs`.
    Within(usize),
    /// The result lies between the smallest and the largest element of `xs` (a mean, a
    /// median, a quantile; not a sum).
    Between(usize),
    /// The result is the largest integer `r` with `L(r) <= x`: `L(r) <= x < L(r + 1)`, for
    /// an integer parameter `x` and `L` a power or a multiple (an integer root's, a floored
    /// quotient's defining bounds).
    Bracket {
        /// `x`.
        param: usize,
        /// `L`.
        by: Scale,
    },
    /// One part of a tuple result is a sum of two others, each times an integer parameter:
    /// `result.0 == a·result.1 + b·result.2` (Bézout's identity of an extended gcd).
    Combination {
        /// The part that is the sum.
        part: usize,
        /// Each term's parameter and part.
        terms: [(usize, usize); 2],
    },
    /// Two integer parts of a tuple result make an integer parameter `x`: `result.0 ^ result.1
    /// == x` (a perfect power's root and exponent), `result.0 · result.1 == x` (a pair of
    /// factors), or `result.0 · y + result.1 == x` for another integer parameter `y` (a
    /// quotient and a remainder).
    Parts {
        /// How the parts make `x`.
        op: PartOp,
        /// The first part (the base, the factor, the quotient).
        first: usize,
        /// The second part (the exponent, the factor, the remainder).
        second: usize,
        /// `x`.
        x: usize,
    },
    /// The result's integer parts (a tuple's, or a sequence's elements) add up to the length
    /// of the sequence `xs`: counts of its elements by category, a tally's yes and no, a
    /// histogram's bins.
    CountsOf(usize),
    /// The result is `None` exactly where the sequence or string `xs` is empty: a summary of
    /// nothing, refused.
    NoneWhenEmpty(usize),
    /// The result is `None` (`Err`) exactly where two sequences or strings differ in length:
    /// a function of them element by element (`hamming(a, b)`, a dot product).
    NoneWhenLengthsDiffer(usize, usize),
    /// An integer result is at most the length of the sequence or string `xs`: a count of
    /// its elements or of places in it.
    AtMostLenOf(usize),
    /// A string or character result holds no character of a class the inputs hold: what
    /// the function takes out or converts (`!result.contains(char::is_uppercase)`,
    /// `!result.contains('-')`).
    Lacks(CharClass),
    /// No word of a string result begins with a character of a class that it holds
    /// elsewhere and that begins words of the inputs: what the function capitalizes.
    NoWordStarts(CharClass),
    /// Every line of a string result holds at most `width` characters, for an unsigned
    /// integer parameter `width`: what a wrapper or a column formatter promises. At least
    /// one: no line that holds anything is narrower than a character.
    LinesAtMost(usize),
    /// A string result has as many lines as the string `s`: a function of each line.
    SameLineCount(usize),
    /// Each line of a string result relates so to the line of the string `s` in its place
    /// (a prefix added to each, its indentation taken off), as far as both have lines: that
    /// they have as many is [`Property::SameLineCount`].
    EachLine {
        /// `s`.
        param: usize,
        /// How the two lines relate.
        rel: LineRel,
    },
    /// A string result holds the words (runs of non-whitespace) of the string `s`, in
    /// order: what changes the spacing alone.
    SameWords(usize),
    /// A string result holds the characters of the string `s` other than whitespace, in
    /// order: what moves or removes whitespace, even within a word (a wrapper that breaks
    /// a long word across lines).
    SameNonSpace(usize),
    /// A string result has at most as many characters as the string `s`: what removes.
    NotLonger(usize),
    /// A string result holds a parameter as written (a number's digits, a character, a
    /// string), at its start, at its end or anywhere: what formats a value into text
    /// (`result.starts_with(&n.to_string())` of an ordinal).
    Shows {
        /// The parameter shown.
        param: usize,
        /// Where the result holds it.
        at: Place,
    },
    /// The result is one value: said under a guard, of a class of inputs on which the
    /// function returns it (`if (n / 10 % 10).abs() == 1 => result == "th"`).
    Is(Lit),
    /// A float result stays within a range a person names by its ends: a probability's,
    /// a cosine's or a correlation's, an angle's (`invite::mr::in_range(result, -1.0,
    /// 1.0)`).
    Range(Span),
    /// The result is a number of the input passed through as it is, said under a guard of
    /// the class of inputs on which it is (`if !x.is_empty() && xp <= x[0] =>
    /// y.first().is_none_or(|&v| v == result)`, a table held at its first value before its
    /// first knot, where it has one; `if x >= 0 => result == x` of an absolute value).
    Equals(Operand),
    /// A string result begins or ends with one text, under a guard likewise
    /// (`result.ends_with("th")` of an ordinal of the teens).
    Affix {
        /// The text.
        lit: Lit,
        /// [`Place::Start`] or [`Place::End`].
        at: Place,
    },
}

/// How many results must come within the last tenth of the way to an end of a named range
/// that they reach: two, so that one stray result is no bound ([`Span::shown_by`]).
const AT_THE_END: usize = 2;

/// A range a float result may be known to stay within, by ends a person writes
/// ([`Property::Range`]): the ranges of the functions of mathematics that have one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Span {
    /// From zero to one: a probability, a fraction of a whole.
    Probability,
    /// From minus one to one: a sine's, a correlation's, a fractional part's.
    Unit,
    /// From minus to plus a quarter turn: an arc tangent's, an arc sine's.
    QuarterTurn,
    /// From minus to plus a half turn: an angle from `atan2`, a phase.
    HalfTurn,
}

impl Span {
    /// Every span, the narrowest first: a result within one is within those after it that
    /// hold it.
    pub const ALL: [Span; 4] = [
        Span::Probability,
        Span::Unit,
        Span::QuarterTurn,
        Span::HalfTurn,
    ];

    /// Its ends.
    fn ends(self) -> (f64, f64) {
        use std::f64::consts::{FRAC_PI_2, PI};
        match self {
            Span::Probability => (0.0, 1.0),
            Span::Unit => (-1.0, 1.0),
            Span::QuarterTurn => (-FRAC_PI_2, FRAC_PI_2),
            Span::HalfTurn => (-PI, PI),
        }
    }

    /// Whether `self` lies within `other`.
    fn within(self, other: Span) -> bool {
        let ((lo, hi), (olo, ohi)) = (self.ends(), other.ends());
        olo <= lo && hi <= ohi
    }

    /// Whether the results `ys` show the span: some reach halfway from its middle to an end
    /// (a range twice as wide as any result came is no range the results show), and toward
    /// each end they reach, they show a bound in one of two ways. They crowd toward it, as
    /// many in the last quarter of the way as in the quarter before it: a function that
    /// saturates there (a logistic curve, an arc tangent, a sine). Or at least
    /// [`AT_THE_END`] come within its last tenth: a function that reaches it whatever its
    /// density there (a fraction's even one, a mantissa's thinning as `1/m`). Results that
    /// thin toward an end and stop short of it are a spread, not a bound (rates of return
    /// that reached 1.4 of a quarter turn's 1.57, whose next call gave 7.17).
    pub fn shown_by(self, ys: &[f64]) -> bool {
        let (lo, hi) = self.ends();
        let (middle, half) = ((lo + hi) / 2.0, (hi - lo) / 2.0);
        let mut reached = false;
        for side in [-1.0, 1.0] {
            let (mut inner, mut outer, mut near) = (0, 0, 0);
            for &y in ys {
                let out = side * (y - middle);
                if out >= 0.9 * half {
                    near += 1;
                }
                if out >= 0.75 * half {
                    outer += 1;
                } else if out >= 0.5 * half {
                    inner += 1;
                }
            }
            if inner + outer == 0 {
                continue;
            }
            reached = true;
            if outer < inner && near < AT_THE_END {
                return false;
            }
        }
        reached
    }

    /// Its ends as Rust source, of a float type `ty`.
    fn text(self, ty: NumTy) -> (String, String) {
        let consts = match ty {
            NumTy::F32 => "std::f32::consts",
            _ => "std::f64::consts",
        };
        match self {
            Span::Probability => ("0.0".into(), "1.0".into()),
            Span::Unit => ("-1.0".into(), "1.0".into()),
            Span::QuarterTurn => (
                format!("-{consts}::FRAC_PI_2"),
                format!("{consts}::FRAC_PI_2"),
            ),
            Span::HalfTurn => (format!("-{consts}::PI"), format!("{consts}::PI")),
        }
    }
}

/// The longest text a [`Lit`] holds, in bytes.
const LIT_TEXT: usize = 24;

/// A constant result, held by value: what a function returns on a whole class of inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Lit {
    /// An integer.
    Int(i128),
    /// A boolean.
    Bool(bool),
    /// A character.
    Char(char),
    /// A short text: its UTF-8 bytes, and how many of them there are.
    Text([u8; LIT_TEXT], u8),
    /// `None`, or an `Err`.
    Nothing,
    /// An integer inside `Some` (`Some(30)`, the days of April).
    SomeInt(i128),
}

impl Lit {
    /// The value as a literal, if it is one a [`Lit`] holds.
    pub fn of(v: &Value) -> Option<Lit> {
        Some(match v {
            Value::Int(i) => Lit::Int(*i),
            Value::Bool(b) => Lit::Bool(*b),
            Value::Char(c) => Lit::Char(*c),
            Value::Str(s) => Lit::text(s)?,
            Value::Option(None) | Value::Result(Err(_)) => Lit::Nothing,
            Value::Option(Some(inner)) => match **inner {
                Value::Int(i) => Lit::SomeInt(i),
                _ => return None,
            },
            _ => return None,
        })
    }

    /// A text short enough to hold.
    pub fn text(s: &str) -> Option<Lit> {
        let mut bytes = [0; LIT_TEXT];
        bytes.get_mut(..s.len())?.copy_from_slice(s.as_bytes());
        Some(Lit::Text(bytes, s.len() as u8))
    }

    /// The text it holds, if it is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Lit::Text(bytes, len) => std::str::from_utf8(&bytes[..usize::from(*len)]).ok(),
            _ => None,
        }
    }

    /// Whether `v` is this value (any `None` or `Err` for [`Lit::Nothing`]).
    fn is(&self, v: &Value) -> bool {
        Lit::of(v) == Some(*self)
    }
}

/// Where a text result holds a parameter's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Place {
    /// At its start.
    Start,
    /// At its end.
    End,
    /// Anywhere.
    Within,
}

impl Place {
    /// Every place, the stronger first.
    pub const ALL: [Place; 3] = [Place::Start, Place::End, Place::Within];

    pub(super) fn holds(self, y: &str, x: &str) -> bool {
        match self {
            Place::Start => y.starts_with(x),
            Place::End => y.ends_with(x),
            Place::Within => y.contains(x),
        }
    }

    fn method(self) -> &'static str {
        match self {
            Place::Start => "starts_with",
            Place::End => "ends_with",
            Place::Within => "contains",
        }
    }
}

/// A parameter's value as `Display` writes it, where that is how a text holds it: an
/// integer's digits (in its own type, whatever the width it is held in), a character, a
/// string. Not a float, whose digits depend on how it is formatted.
fn written(v: &Value) -> Option<String> {
    match v {
        Value::Int(i) => Some(i.to_string()),
        Value::Char(c) => Some(c.to_string()),
        Value::Str(s) => Some(s.clone()),
        _ => None,
    }
}

/// How a line of the result relates to the line of an input in its place.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LineRel {
    /// The result's line ends with the input's: something put before it.
    EndsWith,
    /// The result's line begins with the input's: something put after it.
    StartsWith,
    /// The result's line is the end of the input's: something taken off its start.
    EndOf,
    /// The result's line is the start of the input's: something taken off its end.
    StartOf,
}

impl LineRel {
    /// Every relation, in a fixed order.
    pub const ALL: [LineRel; 4] = [
        LineRel::EndsWith,
        LineRel::StartsWith,
        LineRel::EndOf,
        LineRel::StartOf,
    ];

    /// Whether the result's line `r` relates so to the input's line `l`.
    fn holds(self, r: &str, l: &str) -> bool {
        match self {
            LineRel::EndsWith => r.ends_with(l),
            LineRel::StartsWith => r.starts_with(l),
            LineRel::EndOf => l.ends_with(r),
            LineRel::StartOf => l.starts_with(r),
        }
    }

    /// The relation as Rust source, of the lines `r` and `l`.
    fn text(self) -> &'static str {
        match self {
            LineRel::EndsWith => "r.ends_with(l)",
            LineRel::StartsWith => "r.starts_with(l)",
            LineRel::EndOf => "l.ends_with(r)",
            LineRel::StartOf => "l.starts_with(r)",
        }
    }
}

/// Whether every line of `s` holds at most `width` characters, and at most one where
/// `width` is zero.
fn lines_fit(s: &str, width: i128) -> bool {
    let width = usize::try_from(width.max(1)).unwrap_or(usize::MAX);
    s.lines().all(|l| l.chars().count() <= width)
}

/// The string a value holds, if it is one.
fn string(v: &Value) -> Option<&str> {
    match v {
        Value::Str(s) => Some(s),
        _ => None,
    }
}

/// Whether the result `y` and the string input `s` agree on what the property `p` of text
/// layout compares (see [`Property::SameWords`] and the like).
fn layout_holds(p: Property, s: &str, y: &str) -> bool {
    let solid = |t: &str| {
        t.split_whitespace()
            .flat_map(str::chars)
            .collect::<Vec<_>>()
    };
    match p {
        Property::SameLineCount(_) => y.lines().count() == s.lines().count(),
        Property::EachLine { rel, .. } => y.lines().zip(s.lines()).all(|(r, l)| rel.holds(r, l)),
        Property::SameWords(_) => y.split_whitespace().eq(s.split_whitespace()),
        Property::SameNonSpace(_) => solid(y) == solid(s),
        Property::NotLonger(_) => y.chars().count() <= s.chars().count(),
        _ => false,
    }
}

/// The number of elements (characters, for a string) of a sequence value.
fn count(v: &Value) -> Option<usize> {
    match v {
        Value::FloatSeq(xs) => Some(xs.len()),
        Value::IntSeq(xs) => Some(xs.len()),
        Value::List(xs) => Some(xs.len()),
        Value::Str(s) => Some(s.chars().count()),
        _ => None,
    }
}

/// Whether values of a kind have a length (a string's in characters).
fn has_len(kind: Kind) -> bool {
    kind.is_seq() || kind == Kind::List || kind == Kind::Str
}

/// The parameters that are sequences or lists, whose length a result may count.
fn sequences(sig: &Signature) -> impl Iterator<Item = usize> + '_ {
    (0..sig.params.len())
        .filter(|&p| sig.params[p].kind.is_seq() || sig.params[p].kind == Kind::List)
}

/// Whether a type as written is a primitive integer.
fn integer(t: &str) -> bool {
    matches!(
        t.trim_start_matches('&'),
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32" | "u64" | "usize"
    )
}

/// An integer of a result part, by index.
fn part(y: &Value, k: usize) -> Option<i128> {
    match y {
        Value::Record(items) => match items.get(k)? {
            Value::Int(i) => Some(*i),
            _ => None,
        },
        _ => None,
    }
}

/// How two parts of a result make a parameter ([`Property::Parts`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PartOp {
    /// `first ^ second`.
    Power,
    /// `first · second`.
    Times,
    /// `first · y + second`, `y` the parameter given.
    TimesPlus(usize),
}

/// How a [`Property::Bracket`] maps a candidate result onto the scale of its parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Scale {
    /// `r^k`.
    Power(u32),
    /// `r^n` for an integer parameter `n` of type `u32` (the exponent `pow` takes).
    PowerOf(usize),
    /// `q·r` for an integer parameter `q`.
    Times(usize),
}

impl Property {
    /// The properties that make sense for a signature, the stronger of two first (a strict
    /// sign before the loose one, which is proposed only where the strict one fails).
    pub fn all(sig: &Signature) -> Vec<Property> {
        let mut out = Vec::new();
        let own_type = |ty: &str| ty.trim_start_matches('&') == sig.output_ty;
        match sig.output {
            Kind::Float | Kind::Int => {
                // Of an unsigned result, `result >= 0` is its type's and `result < 0` never
                // holds: neither tells the function from any other.
                let unsigned = matches!(
                    sig.output_ty.trim_start_matches('&'),
                    "u8" | "u16" | "u32" | "u64" | "u128" | "usize"
                );
                let signs = if unsigned {
                    vec![Cmp::Above, Cmp::AtMost]
                } else {
                    vec![Cmp::Above, Cmp::AtLeast, Cmp::Below, Cmp::AtMost]
                };
                // A float result's range, where it has one a person names, before its sign:
                // a probability is never negative.
                if sig.output == Kind::Float {
                    out.extend(Span::ALL.map(Property::Range));
                }
                out.extend(signs.into_iter().map(Property::Sign));
                for (p, param) in sig.params.iter().enumerate() {
                    if param.kind.is_number() && own_type(&param.ty) {
                        for cmp in [Cmp::AtLeast, Cmp::AtMost] {
                            out.push(Property::Bound { param: p, cmp });
                        }
                    }
                    if param.kind.is_seq()
                        && element_type(&param.ty).as_deref() == Some(sig.output_ty.as_str())
                    {
                        out.push(Property::Between(p));
                    }
                }
                if sig.output == Kind::Int {
                    out.extend(
                        (0..sig.params.len())
                            .filter(|&p| has_len(sig.params[p].kind))
                            .map(Property::AtMostLenOf),
                    );
                }
                // The defining bounds of an integer result, by a parameter of its own type.
                let own_int =
                    |p: usize| sig.params[p].kind == Kind::Int && own_type(&sig.params[p].ty);
                if sig.output == Kind::Int {
                    for x in (0..sig.params.len()).filter(|&x| own_int(x)) {
                        for k in [2, 3] {
                            out.push(Property::Bracket {
                                param: x,
                                by: Scale::Power(k),
                            });
                        }
                        for q in (0..sig.params.len()).filter(|&q| q != x) {
                            if own_int(q) {
                                out.push(Property::Bracket {
                                    param: x,
                                    by: Scale::Times(q),
                                });
                            }
                            let exponent = sig.params[q].ty.trim_start_matches('&') == "u32";
                            if exponent {
                                out.push(Property::Bracket {
                                    param: x,
                                    by: Scale::PowerOf(q),
                                });
                            }
                        }
                    }
                }
            }
            Kind::FloatSeq | Kind::IntSeq => {
                out.extend([Property::NonEmpty, Property::Sorted]);
                if sig.output == Kind::IntSeq {
                    out.extend(sequences(sig).map(Property::CountsOf));
                }
                let elem = element_type;
                for (p, param) in sig.params.iter().enumerate() {
                    if param.kind.is_seq() {
                        out.push(Property::SameLen(p));
                        if param.kind == sig.output
                            && elem(&param.ty).is_some()
                            && elem(&param.ty) == elem(&sig.output_ty)
                        {
                            out.push(Property::Within(p));
                        }
                    }
                }
            }
            // An identity between a tuple's parts and the inputs: one part the sum of two
            // others times two integer parameters (Bézout's `g == a·x + b·y`).
            Kind::Record => {
                let parts = super::project::part_types(&sig.output_ty).unwrap_or_default();
                if parts.len() >= 2 && parts.iter().all(|t| integer(t)) {
                    out.extend(sequences(sig).map(Property::CountsOf));
                }
                let ints: Vec<usize> = (0..sig.params.len())
                    .filter(|&p| sig.params[p].kind == Kind::Int)
                    .collect();
                // Two parts that make a parameter, in either order.
                if parts.len() == 2 && parts.iter().all(|t| integer(t)) {
                    for &x in &ints {
                        for (first, second) in [(0, 1), (1, 0)] {
                            out.push(Property::Parts {
                                op: PartOp::Power,
                                first,
                                second,
                                x,
                            });
                            for &y in ints.iter().filter(|&&y| y != x) {
                                out.push(Property::Parts {
                                    op: PartOp::TimesPlus(y),
                                    first,
                                    second,
                                    x,
                                });
                            }
                        }
                        out.push(Property::Parts {
                            op: PartOp::Times,
                            first: 0,
                            second: 1,
                            x,
                        });
                    }
                }
                if parts.len() >= 3 && parts.iter().all(|t| integer(t)) && ints.len() >= 2 {
                    // Each sum once: `a·r1 + b·r2`, not `b·r2 + a·r1` (`x` before `y`).
                    for part in 0..parts.len() {
                        for (k, &x) in ints.iter().enumerate() {
                            for &y in &ints[k + 1..] {
                                for px in (0..parts.len()).filter(|&q| q != part) {
                                    for py in (0..parts.len()).filter(|&q| q != part && q != px) {
                                        out.push(Property::Combination {
                                            part,
                                            terms: [(x, px), (y, py)],
                                        });
                                    }
                                }
                            }
                        }
                    }
                }
            }
            Kind::Option | Kind::Result => {
                let sized: Vec<usize> = (0..sig.params.len())
                    .filter(|&p| has_len(sig.params[p].kind))
                    .collect();
                out.extend(sized.iter().map(|&p| Property::NoneWhenEmpty(p)));
                for (k, &p) in sized.iter().enumerate() {
                    for &q in &sized[k + 1..] {
                        if sig.params[p].kind == sig.params[q].kind {
                            out.push(Property::NoneWhenLengthsDiffer(p, q));
                        }
                    }
                }
            }
            // What a text result is seen never to hold, of a text input's characters.
            Kind::Str | Kind::Char => {
                let textual = sig
                    .params
                    .iter()
                    .any(|p| matches!(p.kind, Kind::Str | Kind::Char | Kind::List));
                if textual {
                    // Never empty, where an input may be (a path cleaned to `.`).
                    if sig.output == Kind::Str {
                        out.push(Property::NonEmpty);
                    }
                    out.extend(CharClass::PREDICATES.map(Property::Lacks));
                    if sig.output == Kind::Str {
                        out.extend(
                            [CharClass::Upper, CharClass::Lower].map(Property::NoWordStarts),
                        );
                    }
                } else {
                    // Of text made from no text (digits of bytes, words of a number), the
                    // letters' case is the function's choice.
                    out.extend([CharClass::Upper, CharClass::Lower].map(Property::Lacks));
                }
                // The layout of a string result against a string input's: its lines, words
                // and length; the stronger of two first.
                if sig.output == Kind::Str {
                    for (p, param) in sig.params.iter().enumerate() {
                        if param.kind == Kind::Str {
                            out.push(Property::SameLineCount(p));
                            out.extend(
                                LineRel::ALL.map(|rel| Property::EachLine { param: p, rel }),
                            );
                            out.extend([
                                Property::SameWords(p),
                                Property::SameNonSpace(p),
                                Property::NotLonger(p),
                            ]);
                        }
                        let unsigned = matches!(
                            param.ty.trim_start_matches('&'),
                            "u8" | "u16" | "u32" | "u64" | "u128" | "usize"
                        );
                        if textual && unsigned {
                            out.push(Property::LinesAtMost(p));
                        }
                        // A value written into the text. A string's start and end are
                        // its lines' (`EachLine`); of a string, only anywhere.
                        let places: &[Place] = match param.kind {
                            Kind::Int | Kind::Char => &Place::ALL,
                            Kind::Str => &[Place::Within],
                            _ => &[],
                        };
                        out.extend(places.iter().map(|&at| Property::Shows { param: p, at }));
                    }
                }
            }
            Kind::Bool | Kind::List => {}
        }
        out
    }

    /// Whether the property says what a text result is without, which holds of any result
    /// of inputs that never hold the class: it needs inputs that do (and, for a word's
    /// start, results that hold it elsewhere).
    pub fn of_text(&self) -> bool {
        matches!(
            self,
            Property::Lacks(_)
                | Property::NoWordStarts(_)
                | Property::LinesAtMost(_)
                | Property::SameLineCount(_)
                | Property::EachLine { .. }
                | Property::SameWords(_)
                | Property::SameNonSpace(_)
                | Property::NotLonger(_)
                | Property::Shows { .. }
        )
    }

    /// Whether an observed call shows what the property says the function does: a text
    /// input holding the class (at a word's start, for [`Property::NoWordStarts`]), and a
    /// result holding it elsewhere. Every call shows what the other properties say.
    pub fn shown_by(&self, input: &[Value], y: &Value) -> bool {
        let texts = || input.iter().filter_map(text_of);
        match *self {
            // Or, where no input is text, a result with letters of the other case: the
            // function chose one.
            Property::Lacks(c) => {
                let other = match c {
                    CharClass::Upper => Some(CharClass::Lower),
                    CharClass::Lower => Some(CharClass::Upper),
                    _ => None,
                };
                let made = other.is_some_and(|o| {
                    texts().next().is_none()
                        && text_of(y).is_some_and(|t| t.chars().any(|ch| o.has(ch)))
                });
                made || texts().any(|t| t.chars().any(|ch| c.has(ch)))
            }
            Property::NoWordStarts(c) => {
                texts().any(|t| c.starts_a_word(&t))
                    && text_of(y).is_some_and(|t| t.chars().any(|ch| c.has(ch)))
            }
            // A bound some line of a text input exceeds: the function had to break it.
            Property::LinesAtMost(w) => match input[w] {
                Value::Int(w) => texts().any(|t| !lines_fit(&t, w)),
                _ => false,
            },
            // Of a string the function changed: lines it could have lost or merged, words
            // it could have moved.
            Property::SameLineCount(p) | Property::EachLine { param: p, .. } => {
                match (string(&input[p]), string(y)) {
                    (Some(s), Some(y)) => s != y && s.lines().nth(1).is_some(),
                    _ => false,
                }
            }
            Property::SameWords(p) | Property::SameNonSpace(p) => {
                match (string(&input[p]), string(y)) {
                    (Some(s), Some(y)) => s != y && s.split_whitespace().nth(1).is_some(),
                    _ => false,
                }
            }
            // Something taken out.
            Property::NotLonger(p) => match (string(&input[p]), string(y)) {
                (Some(s), Some(y)) => y.chars().count() < s.chars().count(),
                _ => false,
            },
            // A value with something to show, in a result that is more than it: the
            // function wrote it among other text.
            Property::Shows { param, .. } => match (written(&input[param]), string(y)) {
                (Some(x), Some(y)) => !x.is_empty() && y != x,
                _ => false,
            },
            _ => true,
        }
    }

    /// Whether the property bounds the result by the input (a parameter, the input's range),
    /// which values can meet by chance: it must also hold on the follow-ups, and is not
    /// claimed for one category of inputs alone.
    pub fn bounds_by_input(&self) -> bool {
        matches!(
            self,
            Property::Bound { .. }
                | Property::Between(_)
                | Property::Bracket { .. }
                | Property::AtMostLenOf(_)
        )
    }

    /// The property this one is a weaker form of, if any: where both hold, only the stronger
    /// is proposed.
    pub fn stronger(&self) -> Option<Property> {
        match self {
            Property::Sign(Cmp::AtLeast) => Some(Property::Sign(Cmp::Above)),
            Property::Sign(Cmp::AtMost) => Some(Property::Sign(Cmp::Below)),
            Property::NoWordStarts(c) => Some(Property::Lacks(*c)),
            Property::SameNonSpace(p) => Some(Property::SameWords(*p)),
            _ => None,
        }
    }

    /// The strict sign's loose form (`result <= 0.0` of `result < 0.0`): what a strict sign
    /// claims where its results come as near zero as a pasted relation's tolerance.
    pub fn loosened(&self) -> Option<Property> {
        match self {
            Property::Sign(Cmp::Above) => Some(Property::Sign(Cmp::AtLeast)),
            Property::Sign(Cmp::Below) => Some(Property::Sign(Cmp::AtMost)),
            _ => None,
        }
    }

    /// Whether the property follows from `other` (is [`stronger`](Self::stronger)'s weaker
    /// form, or holds a parameter anywhere where `other` holds it at an end).
    pub fn follows_from(&self, other: Property) -> bool {
        match (*self, other) {
            (Property::Range(wide), Property::Range(narrow)) => narrow.within(wide),
            (Property::Sign(Cmp::AtLeast), Property::Range(Span::Probability)) => true,
            (
                Property::Shows {
                    param,
                    at: Place::Within,
                },
                Property::Shows { param: q, .. },
            ) => param == q,
            _ => self.stronger() == Some(other),
        }
    }

    /// Whether the result `y` of `input`, with noise `noise`, has the property.
    pub fn holds(&self, input: &[Value], y: &Value, noise: f64) -> bool {
        match *self {
            Property::Sign(cmp) => y.number().is_some_and(|y| cmp.holds(y, 0.0, noise)),
            Property::Range(span) => {
                let (lo, hi) = span.ends();
                y.number().is_some_and(|y| {
                    Cmp::AtLeast.holds(y, lo, noise) && Cmp::AtMost.holds(y, hi, noise)
                })
            }
            Property::Lacks(c) => match y {
                Value::Str(s) => !s.chars().any(|ch| c.has(ch)),
                Value::Char(ch) => !c.has(*ch),
                _ => false,
            },
            Property::NoWordStarts(c) => match y {
                Value::Str(s) => !c.starts_a_word(s),
                _ => false,
            },
            Property::LinesAtMost(w) => match (y, &input[w]) {
                (Value::Str(s), Value::Int(w)) => lines_fit(s, *w),
                _ => false,
            },
            Property::SameLineCount(p)
            | Property::EachLine { param: p, .. }
            | Property::SameWords(p)
            | Property::SameNonSpace(p)
            | Property::NotLonger(p) => match (string(&input[p]), string(y)) {
                (Some(s), Some(y)) => layout_holds(*self, s, y),
                _ => false,
            },
            Property::CountsOf(p) => {
                let parts = match y {
                    Value::Record(items) => items
                        .iter()
                        .map(|v| match v {
                            Value::Int(i) => Some(*i),
                            _ => None,
                        })
                        .collect::<Option<Vec<i128>>>(),
                    Value::IntSeq(xs) => Some(xs.clone()),
                    _ => None,
                };
                let total = parts.and_then(|ps| ps.into_iter().try_fold(0i128, i128::checked_add));
                total.is_some() && total == count(&input[p]).and_then(|n| i128::try_from(n).ok())
            }
            Property::NoneWhenEmpty(p) => match (y.inner(), count(&input[p])) {
                (Some(inner), Some(n)) => inner.is_none() == (n == 0),
                _ => false,
            },
            Property::NoneWhenLengthsDiffer(p, q) => {
                match (y.inner(), count(&input[p]), count(&input[q])) {
                    (Some(inner), Some(m), Some(n)) => inner.is_none() == (m != n),
                    _ => false,
                }
            }
            Property::AtMostLenOf(p) => match (y, count(&input[p])) {
                (Value::Int(r), Some(n)) => i128::try_from(n).is_ok_and(|n| *r <= n),
                _ => false,
            },
            Property::Bound { param, cmp } => match (y.number(), input[param].number()) {
                (Some(y), Some(x)) => cmp.holds(y, x, noise),
                _ => false,
            },
            Property::SameLen(p) => match (y.elements(), input[p].elements()) {
                (Some(e), Some(xs)) => e.len() == xs.len(),
                _ => false,
            },
            Property::Shows { param, at } => match (written(&input[param]), string(y)) {
                (Some(x), Some(y)) => at.holds(y, &x),
                _ => false,
            },
            Property::Is(lit) => lit.is(y),
            // Of an empty sequence, there is no end for the result to be.
            Property::Equals(x) => match x.value(input) {
                Some(v) => v == *y,
                None => !matches!(x, Operand::Param(_)),
            },
            Property::Affix { lit, at } => match (lit.as_str(), string(y)) {
                (Some(x), Some(y)) => at.holds(y, x),
                _ => false,
            },
            Property::NonEmpty => match y {
                Value::Str(s) => !s.is_empty(),
                _ => y.elements().is_some_and(|e| !e.is_empty()),
            },
            // As `is_sorted` judges it: NaN is out of order.
            Property::Sorted => y
                .elements()
                .is_some_and(|e| e.windows(2).all(|w| w[0] <= w[1])),
            // Exact, like `invite::mr::is_subset`, which the property is written with.
            Property::Within(p) => match (y.elements(), input[p].elements()) {
                (Some(e), Some(xs)) => e.iter().all(|x| xs.contains(x)),
                _ => false,
            },
            // An empty input has no range: the property needs a non-empty one's guard.
            Property::Between(p) => match (y.number(), input[p].elements()) {
                (Some(y), Some(xs)) if !xs.is_empty() => {
                    let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
                    let hi = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                    Cmp::AtLeast.holds(y, lo, noise) && Cmp::AtMost.holds(y, hi, noise)
                }
                _ => false,
            },
            Property::Combination { part: sum, terms } => {
                let int = |v: &Value| match v {
                    Value::Int(i) => Some(*i),
                    _ => None,
                };
                let term = |(p, q): (usize, usize)| int(&input[p])?.checked_mul(part(y, q)?);
                let total = term(terms[0])
                    .zip(term(terms[1]))
                    .and_then(|(a, b)| a.checked_add(b));
                total.is_some() && total == part(y, sum)
            }
            Property::Parts {
                op,
                first,
                second,
                x,
            } => {
                let int = |v: &Value| match v {
                    Value::Int(i) => Some(*i),
                    _ => None,
                };
                let (Some(a), Some(b), Some(x)) = (part(y, first), part(y, second), int(&input[x]))
                else {
                    return false;
                };
                let made = match op {
                    PartOp::Power => u32::try_from(b).ok().and_then(|k| a.checked_pow(k)),
                    PartOp::Times => a.checked_mul(b),
                    PartOp::TimesPlus(q) => int(&input[q])
                        .and_then(|y| a.checked_mul(y))
                        .and_then(|p| p.checked_add(b)),
                };
                made == Some(x)
            }
            Property::Bracket { param, by } => {
                let int = |v: &Value| match v {
                    Value::Int(i) => Some(*i),
                    _ => None,
                };
                let (Some(r), Some(x)) = (int(y), int(&input[param])) else {
                    return false;
                };
                let scale = |r: i128| match by {
                    Scale::Power(k) => r.checked_pow(k),
                    Scale::PowerOf(q) => {
                        let k = u32::try_from(int(&input[q])?).ok()?;
                        r.checked_pow(k)
                    }
                    Scale::Times(q) => int(&input[q])?.checked_mul(r),
                };
                // Past the integers at all, the upper bound is above any `x`.
                let upper = r.checked_add(1).and_then(scale);
                scale(r).is_some_and(|l| l <= x) && upper.is_none_or(|u| x < u)
            }
        }
    }

    /// The relative tolerance invite's comparison needs for the property on one result.
    pub fn needed_tolerance(&self, input: &[Value], y: &Value) -> f64 {
        // Exact properties of integers and of text: no tolerance makes one hold.
        let exact = matches!(
            self,
            Property::Bracket { .. }
                | Property::AtMostLenOf(_)
                | Property::Is(_)
                | Property::Equals(_)
                | Property::Affix { .. }
        );
        if exact || self.of_text() {
            return if self.holds(input, y, 0.0) {
                0.0
            } else {
                f64::INFINITY
            };
        }
        if let Property::Between(p) = *self {
            // As far as the result lies outside the input's range, relative to the larger.
            let (Some(y), Some(xs)) = (y.number(), input[p].elements()) else {
                return 0.0;
            };
            let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let out = (lo - y).max(y - hi);
            return if out.is_finite() && out > 0.0 {
                out / 1f64.max(y.abs()).max(lo.abs()).max(hi.abs())
            } else {
                0.0
            };
        }
        let (x, cmp) = match *self {
            Property::Bound { param, cmp } => (input[param].number(), cmp),
            _ => return 0.0,
        };
        let (Some(y), Some(x)) = (y.number(), x) else {
            return 0.0;
        };
        let short = match cmp {
            Cmp::AtLeast => x - y,
            _ => y - x,
        };
        if short.is_finite() {
            short.max(0.0) / 1f64.max(x.abs()).max(y.abs())
        } else {
            0.0
        }
    }

    /// The property as Rust source.
    pub fn text(&self, sig: &Signature) -> String {
        let zero = match sig.output_num_ty() {
            NumTy::Int => "0",
            _ => "0.0",
        };
        match *self {
            Property::Sign(cmp) => format!("result {} {zero}", cmp.symbol()),
            Property::Range(span) => {
                let (lo, hi) = span.text(sig.output_num_ty());
                format!("invite::mr::in_range(result, {lo}, {hi})")
            }
            Property::Bound { param, cmp } => {
                format!("result {} {}", cmp.symbol(), sig.params[param].value_text())
            }
            Property::SameLen(p) => format!("result.len() == {}.len()", sig.params[p].name),
            Property::CountsOf(p) => {
                let len = format!("{}.len()", sig.params[p].name);
                // In `usize` where the parts are; in `i128` where they may be negative or
                // narrower.
                match sig.output {
                    Kind::IntSeq if element_type(&sig.output_ty).as_deref() == Some("usize") => {
                        format!("result.iter().sum::<usize>() == {len}")
                    }
                    Kind::IntSeq => {
                        format!("result.iter().map(|&c| c as i128).sum::<i128>() == {len} as i128")
                    }
                    _ => {
                        let parts = super::project::part_types(&sig.output_ty).unwrap_or_default();
                        let wide = parts.iter().any(|t| t.trim_start_matches('&') != "usize");
                        let part = |k: usize| sig.part_text(k);
                        let terms: Vec<String> = (0..parts.len())
                            .map(|k| match wide {
                                true => format!("{} as i128", part(k)),
                                false => part(k),
                            })
                            .collect();
                        match wide {
                            true => format!("{} == {len} as i128", terms.join(" + ")),
                            false => format!("{} == {len}", terms.join(" + ")),
                        }
                    }
                }
            }
            Property::NoneWhenLengthsDiffer(p, q) => {
                let len = |p: usize| match sig.params[p].kind {
                    Kind::Str => format!("{}.chars().count()", sig.params[p].name),
                    _ => format!("{}.len()", sig.params[p].name),
                };
                let differ = format!("({} != {})", len(p), len(q));
                match sig.output {
                    Kind::Result => format!("result.is_err() == {differ}"),
                    _ => format!("result.is_none() == {differ}"),
                }
            }
            Property::AtMostLenOf(p) => {
                let xs = &sig.params[p];
                let len = match xs.kind {
                    Kind::Str => format!("{}.chars().count()", xs.name),
                    _ => format!("{}.len()", xs.name),
                };
                match sig.output_ty.trim_start_matches('&') {
                    "usize" => format!("result <= {len}"),
                    _ => format!("result as i128 <= {len} as i128"),
                }
            }
            Property::NoneWhenEmpty(p) => {
                let empty = format!("{}.is_empty()", sig.params[p].name);
                match sig.output {
                    Kind::Result => format!("result.is_err() == {empty}"),
                    _ => format!("result.is_none() == {empty}"),
                }
            }
            // Of a string or a character alike.
            Property::Lacks(CharClass::NonAscii) => "result.is_ascii()".into(),
            Property::Lacks(c) => match (sig.output, c) {
                (Kind::Char, CharClass::Ascii(_)) => match c.pattern() {
                    many if many.starts_with('[') => format!("!{many}.contains(&result)"),
                    one => format!("result != {one}"),
                },
                (Kind::Char, c) => format!("!{}(result)", c.pattern()),
                (_, c) => format!("!result.contains({})", c.pattern()),
            },
            Property::NoWordStarts(c) => format!(
                "result.split_whitespace().all(|w| !w.starts_with({}))",
                c.pattern()
            ),
            Property::LinesAtMost(w) => {
                let width = match sig.params[w].value_text() {
                    t if t.starts_with('*') => format!("({t})"),
                    t => t,
                };
                match sig.params[w].ty.trim_start_matches('&') {
                    "usize" => {
                        format!("result.lines().all(|line| line.chars().count() <= {width}.max(1))")
                    }
                    _ => format!(
                        "result.lines().all(|line| line.chars().count() as u128 <= ({width} as u128).max(1))"
                    ),
                }
            }
            Property::SameLineCount(p) => {
                format!("result.lines().count() == {}.lines().count()", sig.params[p].name)
            }
            Property::EachLine { param, rel } => format!(
                "result.lines().zip({}.lines()).all(|(r, l)| {})",
                sig.params[param].name,
                rel.text()
            ),
            Property::SameWords(p) => format!(
                "result.split_whitespace().eq({}.split_whitespace())",
                sig.params[p].name
            ),
            Property::SameNonSpace(p) => format!(
                "result.split_whitespace().flat_map(str::chars).eq({}.split_whitespace().flat_map(str::chars))",
                sig.params[p].name
            ),
            Property::NotLonger(p) => format!(
                "result.chars().count() <= {}.chars().count()",
                sig.params[p].name
            ),
            Property::Shows { param, at } => {
                let x = &sig.params[param];
                let pattern = match x.kind {
                    Kind::Int => format!("&{}.to_string()", x.name),
                    Kind::Char => x.value_text(),
                    _ if x.ty.starts_with('&') => x.name.clone(),
                    _ => format!("{}.as_str()", x.name),
                };
                format!("result.{}({pattern})", at.method())
            }
            Property::Is(lit) => match (lit, sig.output) {
                (Lit::Nothing, Kind::Result) => "result.is_err()".into(),
                (Lit::Nothing, _) => "result.is_none()".into(),
                (Lit::Bool(true), _) => "result".into(),
                (Lit::Bool(false), _) => "!result".into(),
                (Lit::Int(i), _) => format!("result == {i}"),
                (Lit::SomeInt(i), _) => format!("result == Some({i})"),
                (Lit::Char(c), _) => format!("result == {c:?}"),
                (lit, _) => format!("result == {:?}", lit.as_str().unwrap_or_default()),
            },
            Property::Affix { lit, at } => {
                format!("result.{}({:?})", at.method(), lit.as_str().unwrap_or_default())
            }
            // An end as an `Option`: an empty sequence has none the result could be.
            Property::Equals(x) => match x {
                Operand::First(p) => {
                    format!("{}.first().is_none_or(|&v| v == result)", sig.params[p].name)
                }
                Operand::Last(p) => {
                    format!("{}.last().is_none_or(|&v| v == result)", sig.params[p].name)
                }
                _ => format!("result == {}", x.text(sig)),
            },
            Property::NonEmpty => "!result.is_empty()".into(),
            Property::Sorted => "result.is_sorted()".into(),
            Property::Within(p) => {
                format!(
                    "invite::mr::is_subset(&result, {})",
                    sig.params[p].slice_text()
                )
            }
            Property::Between(p) => {
                let xs = sig.params[p].slice_text();
                format!(
                    "invite::mr::in_range(result, invite::mr::smallest({xs}), \
                     invite::mr::largest({xs}))"
                )
            }
            // In `i128`, where the products of the parts' type cannot overflow.
            Property::Combination { part, terms } => {
                let wide = |t: String| format!("{t} as i128");
                let term = |(p, q): (usize, usize)| {
                    format!(
                        "{} * {}",
                        wide(sig.params[p].value_text()),
                        wide(sig.part_text(q))
                    )
                };
                format!(
                    "{} == {} + {}",
                    wide(sig.part_text(part)),
                    term(terms[0]),
                    term(terms[1])
                )
            }
            // In `i128`, checked: a `u64`'s square does not fit.
            Property::Parts {
                op,
                first,
                second,
                x,
            } => {
                let wide = |t: String| format!("{t} as i128");
                let (a, b) = (wide(sig.part_text(first)), wide(sig.part_text(second)));
                let x = wide(sig.params[x].value_text());
                match op {
                    PartOp::Power => format!(
                        "u32::try_from({}).ok().and_then(|k| ({a}).checked_pow(k)) == Some({x})",
                        sig.part_text(second)
                    ),
                    PartOp::Times => format!("({a}).checked_mul({b}) == Some({x})"),
                    PartOp::TimesPlus(q) => format!(
                        "({a}).checked_mul({}).and_then(|p| p.checked_add({b})) == Some({x})",
                        wide(sig.params[q].value_text())
                    ),
                }
            }
            // Checked: written in the result's own type, where `(r + 1)²` may not fit.
            Property::Bracket { param, by } => {
                let x = sig.params[param].value_text();
                // `*q.checked_mul(r)` would dereference the product.
                let operand = |p: usize| match sig.params[p].value_text() {
                    t if t.starts_with('*') => format!("({t})"),
                    t => t,
                };
                let scaled = |r: &str| match by {
                    Scale::Power(k) => format!("{r}.checked_pow({k})"),
                    Scale::PowerOf(q) => format!("{r}.checked_pow({})", operand(q)),
                    Scale::Times(q) => format!("{}.checked_mul({r})", operand(q)),
                };
                format!(
                    "{}.is_some_and(|l| l <= {x}) && result.checked_add(1).and_then(|r| {}).is_none_or(|u| {x} < u)",
                    scaled("result"),
                    scaled("r"),
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig(text: &str, kinds: &[Kind], output: Kind) -> Signature {
        Signature::parse(text, kinds, output).unwrap()
    }

    #[test]
    fn a_text_result_lacks_a_class_its_inputs_show_and_says_so_as_rust() {
        let text = |s: &str| Value::Str(s.into());
        // The punctuation and spaces the inputs hold and no result does; letters and digits
        // are the predicates' business, and a character a result keeps is no part of it.
        let inputs = [
            vec![text("a b-c")],
            vec![text("x_y.Z9")],
            vec![Value::Char('~')],
        ];
        let outputs = [text("a-b-c"), text("x-y-z")];
        let set = CharClass::missing(inputs.iter().map(Vec::as_slice), outputs.iter()).unwrap();
        let held: String = (0u8..128).map(char::from).filter(|&c| set.has(c)).collect();
        assert_eq!(held, " ._~");
        assert_eq!(set.pattern(), "[' ', '.', '_', '~']");
        assert!(!set.has('a') && !set.has('-') && !set.has('\u{a0}'));
        let none = CharClass::missing(
            inputs[..1].iter().map(Vec::as_slice),
            [text("a b-c")].iter(),
        );
        assert_eq!(none, None, "every character kept");
        assert_eq!(
            CharClass::missing(inputs[1..2].iter().map(Vec::as_slice), outputs.iter())
                .map(CharClass::pattern)
                .as_deref(),
            Some("['.', '_']")
        );
        let one = CharClass::missing([vec![text("a-b")]].iter().map(Vec::as_slice), [].iter());
        assert_eq!(one.map(CharClass::pattern).as_deref(), Some("'-'"));

        // The predicates, and what each property judges.
        assert!(CharClass::Upper.has('É') && !CharClass::Upper.has('é'));
        assert!(CharClass::Lower.has('é') && !CharClass::Lower.has('1'));
        assert!(CharClass::Numeric.has('7') && !CharClass::Numeric.has('x'));
        let lacks = Property::Lacks(CharClass::Upper);
        assert!(lacks.holds(&[], &text("snake_case 1"), 0.0));
        assert!(!lacks.holds(&[], &text("snake_Case"), 0.0));
        assert!(lacks.holds(&[], &Value::Char('a'), 0.0));
        assert!(!lacks.holds(&[], &Value::Char('A'), 0.0));
        assert!(
            !lacks.holds(&[], &Value::Int(3), 0.0),
            "no text, no property"
        );
        let starts = Property::NoWordStarts(CharClass::Lower);
        assert!(starts.holds(&[], &text("Title Case  Of 9words"), 0.0));
        assert!(!starts.holds(&[], &text("Title case"), 0.0));
        assert!(!starts.holds(&[], &text(" lower"), 0.0));
        assert!(!starts.holds(&[], &Value::Char('A'), 0.0));
        assert_eq!(starts.stronger(), Some(Property::Lacks(CharClass::Lower)));
        for p in [lacks, starts] {
            assert!(p.of_text() && !p.bounds_by_input());
            assert_eq!(p.needed_tolerance(&[], &text("Ab c")), f64::INFINITY);
            assert_eq!(p.needed_tolerance(&[], &text("")), 0.0);
        }

        // Shown: an input holds the class, at a word's start where that is the claim, and
        // the result holds it elsewhere.
        assert!(lacks.shown_by(&[text("camelCase")], &text("camel_case")));
        assert!(!lacks.shown_by(&[text("lower"), Value::Int(3)], &text("lower")));
        assert!(lacks.shown_by(&[Value::List(vec![text("ok"), text("OK")])], &text("ok")));
        assert!(starts.shown_by(&[text("a title")], &text("A Title")));
        assert!(
            !starts.shown_by(&[text("A Title")], &text("A Title")),
            "no word began so"
        );
        assert!(
            !starts.shown_by(&[text("a b")], &text("A B")),
            "no lower case elsewhere"
        );
        assert!(Property::Sorted.shown_by(&[], &Value::Int(0)));

        // Candidates: of a text result of text inputs only, and as Rust.
        let of = |text: &str, kinds: &[Kind], out: Kind| Property::all(&sig(text, kinds, out));
        let slug = sig("fn slug(s: &str) -> String", &[Kind::Str], Kind::Str);
        let all = Property::all(&slug);
        assert_eq!(all.iter().filter(|p| p.of_text()).count(), 15, "{all:?}");
        // Of text made from no text, the case of its letters, and where the number is
        // written in it.
        let upper = Property::Lacks(CharClass::Upper);
        let lower = Property::Lacks(CharClass::Lower);
        let shows = |at| Property::Shows { param: 0, at };
        assert_eq!(
            of("fn hex(n: u64) -> String", &[Kind::Int], Kind::Str),
            vec![
                upper,
                lower,
                shows(Place::Start),
                shows(Place::End),
                shows(Place::Within)
            ]
        );
        let n = [Value::Int(2570)];
        let hex = Value::Str("0a0a".into());
        assert!(
            upper.shown_by(&n, &hex),
            "lower-case letters written: a case chosen"
        );
        assert!(!lower.shown_by(&n, &hex));
        assert!(!upper.shown_by(&n, &Value::Str("2570".into())), "no letter");
        assert!(lower.shown_by(&n, &Value::Char('A')));
        // Of a text input, only the input's letters show it.
        let word = [Value::Str("abc".into())];
        assert!(!upper.shown_by(&word, &Value::Str("abc".into())));
        assert!(upper.shown_by(&[Value::Str("aBc".into())], &Value::Str("abc".into())));
        assert!(!Property::Lacks(CharClass::Numeric).shown_by(&n, &hex));
        let first = sig("fn first(s: &str) -> char", &[Kind::Str], Kind::Char);
        let of_char = Property::all(&first);
        assert_eq!(
            of_char.len(),
            4,
            "no word's start of a character: {of_char:?}"
        );
        assert_eq!(
            Property::Lacks(CharClass::Upper).text(&slug),
            "!result.contains(char::is_uppercase)"
        );
        assert_eq!(
            starts.text(&slug),
            "result.split_whitespace().all(|w| !w.starts_with(char::is_lowercase))"
        );
        assert_eq!(
            Property::Lacks(CharClass::Numeric).text(&first),
            "!char::is_numeric(result)"
        );
        // Beyond ASCII: as one call, of a string or a character.
        let ascii = Property::Lacks(CharClass::NonAscii);
        assert_eq!(ascii.text(&slug), "result.is_ascii()");
        assert_eq!(ascii.text(&first), "result.is_ascii()");
        assert!(ascii.holds(&[], &Value::Str("a%C3%A9".into()), 0.0));
        assert!(!ascii.holds(&[], &Value::Str("aé".into()), 0.0));
        assert!(ascii.shown_by(&[Value::Str("é".into())], &Value::Str("e".into())));
        assert!(!ascii.shown_by(&[Value::Str("e".into())], &Value::Str("e".into())));
        assert_eq!(
            CharClass::NonAscii.pattern(),
            "|c: char| !c.is_ascii()",
            "a pattern `contains` takes"
        );
        let dash = CharClass::Ascii(1 << b'-');
        assert_eq!(Property::Lacks(dash).text(&first), "result != '-'");
        assert_eq!(Property::Lacks(dash).text(&slug), "!result.contains('-')");
        let two = CharClass::Ascii(1 << b'-' | 1 << b' ');
        assert_eq!(
            Property::Lacks(two).text(&first),
            "![' ', '-'].contains(&result)"
        );
        assert!(Property::Lacks(two).holds(&[], &Value::Char('x'), 0.0));
        assert!(!Property::Lacks(two).holds(&[], &Value::Char(' '), 0.0));
    }

    #[test]
    fn a_count_is_at_most_a_length_exactly_and_no_tolerance_makes_it_hold() {
        let text = |s: &str| Value::Str(s.into());
        let at_most = Property::AtMostLenOf(0);
        assert!(at_most.holds(&[text("é1")], &Value::Int(2), 0.0));
        assert!(!at_most.holds(&[text("é1")], &Value::Int(3), 0.0));
        assert!(at_most.holds(&[Value::IntSeq(vec![4; 3])], &Value::Int(-1), 0.0));
        assert!(!at_most.holds(&[Value::Int(9)], &Value::Int(1), 0.0));
        assert_eq!(at_most.needed_tolerance(&[text("ab")], &Value::Int(2)), 0.0);
        assert_eq!(
            at_most.needed_tolerance(&[text("ab")], &Value::Int(3)),
            f64::INFINITY
        );
        assert!(at_most.bounds_by_input());
        let s = sig(
            "fn m(s: &str, t: &str) -> u32",
            &[Kind::Str, Kind::Str],
            Kind::Int,
        );
        let texts: Vec<String> = Property::all(&s)
            .iter()
            .filter(|p| matches!(p, Property::AtMostLenOf(_)))
            .map(|p| p.text(&s))
            .collect();
        assert_eq!(
            texts,
            [
                "result as i128 <= s.chars().count() as i128",
                "result as i128 <= t.chars().count() as i128"
            ]
        );
        let s = sig("fn m(xs: Vec<i64>) -> usize", &[Kind::IntSeq], Kind::Int);
        assert_eq!(Property::AtMostLenOf(0).text(&s), "result <= xs.len()");
        // Where two lengths differ, in characters.
        let s = sig(
            "fn h(a: &str, b: &str) -> Result<usize, E>",
            &[Kind::Str, Kind::Str],
            Kind::Result,
        );
        let differ = Property::NoneWhenLengthsDiffer(0, 1);
        assert!(Property::all(&s).contains(&differ));
        assert_eq!(
            differ.text(&s),
            "result.is_err() == (a.chars().count() != b.chars().count())"
        );
        let err = Value::Result(Err("lengths".into()));
        let ok = Value::Result(Ok(Box::new(Value::Int(0))));
        assert!(differ.holds(&[text("é"), text("a")], &ok, 0.0));
        assert!(!differ.holds(&[text("é"), text("a")], &err, 0.0));
        assert!(differ.holds(&[text("é"), text("ab")], &err, 0.0));
        assert!(!differ.holds(&[text("é"), text("ab")], &ok, 0.0));
    }

    #[test]
    fn counts_add_up_to_the_length_and_none_falls_exactly_on_the_empty_input() {
        let bools = |n: usize| Value::List(vec![Value::Bool(true); n]);
        let pair = |a: i128, b: i128| Value::Record(vec![Value::Int(a), Value::Int(b)]);
        let counts = Property::CountsOf(0);
        assert!(counts.holds(&[bools(5)], &pair(2, 3), 0.0));
        assert!(!counts.holds(&[bools(5)], &pair(2, 4), 0.0));
        assert!(!counts.holds(&[bools(5)], &pair(5, 5), 0.0));
        // A part that is no integer, and a sum past `i128`, hold of nothing.
        let mixed = Value::Record(vec![Value::Int(5), Value::Float(0.0)]);
        assert!(!counts.holds(&[bools(5)], &mixed, 0.0));
        assert!(!counts.holds(&[bools(5)], &pair(i128::MAX, 1), 0.0));
        assert!(counts.holds(
            &[Value::FloatSeq(vec![1.0; 3])],
            &Value::IntSeq(vec![1, 0, 2]),
            0.0
        ));
        assert!(!counts.holds(
            &[Value::FloatSeq(vec![1.0; 3])],
            &Value::IntSeq(vec![1, 1, 2]),
            0.0
        ));
        assert!(!counts.holds(&[Value::Int(5)], &pair(2, 3), 0.0));

        let none = Value::Option(None);
        let some = Value::Option(Some(Box::new(Value::Int(1))));
        let when_empty = Property::NoneWhenEmpty(0);
        let text = |s: &str| Value::Str(s.into());
        assert!(when_empty.holds(&[text("")], &none, 0.0));
        assert!(when_empty.holds(&[text("é")], &some, 0.0));
        assert!(!when_empty.holds(&[text("")], &some, 0.0));
        assert!(!when_empty.holds(&[text("a")], &none, 0.0));
        assert!(when_empty.holds(&[Value::IntSeq(vec![])], &none, 0.0));
        assert!(when_empty.holds(&[bools(1)], &some, 0.0));
        assert!(!when_empty.holds(&[Value::Int(0)], &none, 0.0));
        let err = Value::Result(Err("empty".into()));
        assert!(when_empty.holds(&[text("")], &err, 0.0));
        assert!(!when_empty.holds(&[text("x")], &err, 0.0));
    }

    #[test]
    fn each_kind_of_result_gets_the_properties_that_read_as_rust_for_it() {
        let s = sig(
            "fn f(x: &f64, n: i32, y: f64) -> f64",
            &[Kind::Float, Kind::Int, Kind::Float],
            Kind::Float,
        );
        let texts: Vec<String> = Property::all(&s).iter().map(|p| p.text(&s)).collect();
        assert_eq!(
            texts,
            [
                "invite::mr::in_range(result, 0.0, 1.0)",
                "invite::mr::in_range(result, -1.0, 1.0)",
                "invite::mr::in_range(result, -std::f64::consts::FRAC_PI_2, \
                 std::f64::consts::FRAC_PI_2)",
                "invite::mr::in_range(result, -std::f64::consts::PI, std::f64::consts::PI)",
                "result > 0.0",
                "result >= 0.0",
                "result < 0.0",
                "result <= 0.0",
                "result >= *x",
                "result <= *x",
                "result >= y",
                "result <= y",
            ]
        );
        let s = sig(
            "fn g(xs: Vec<i64>, ys: &[f64], zs: &[i64]) -> Vec<i64>",
            &[Kind::IntSeq, Kind::FloatSeq, Kind::IntSeq],
            Kind::IntSeq,
        );
        let texts: Vec<String> = Property::all(&s).iter().map(|p| p.text(&s)).collect();
        assert_eq!(
            texts,
            [
                "!result.is_empty()",
                "result.is_sorted()",
                "result.iter().map(|&c| c as i128).sum::<i128>() == xs.len() as i128",
                "result.iter().map(|&c| c as i128).sum::<i128>() == ys.len() as i128",
                "result.iter().map(|&c| c as i128).sum::<i128>() == zs.len() as i128",
                "result.len() == xs.len()",
                "invite::mr::is_subset(&result, &xs)",
                "result.len() == ys.len()",
                "result.len() == zs.len()",
                "invite::mr::is_subset(&result, zs)",
            ]
        );
        // The same kind of elements, but types that may differ (an `i32` and an `i64`, or an
        // alias): no membership, which would not compile.
        let s = sig(
            "fn h(xs: &[i32], ys: Samples) -> Vec<i64>",
            &[Kind::IntSeq, Kind::IntSeq],
            Kind::IntSeq,
        );
        assert!(!Property::all(&s)
            .iter()
            .any(|p| matches!(p, Property::Within(_))));
        let s = sig(
            "fn h(xs: Samples) -> Counts",
            &[Kind::FloatSeq],
            Kind::IntSeq,
        );
        assert_eq!(
            Property::all(&s),
            [
                Property::NonEmpty,
                Property::Sorted,
                Property::CountsOf(0),
                Property::SameLen(0)
            ]
        );
        // Counts in `usize`, of a tuple or a sequence, need no cast; a list of any elements
        // has a length; a `None` where the input is empty.
        let s = sig(
            "fn t(v: &[bool], w: Vec<String>) -> (usize, usize)",
            &[Kind::List, Kind::List],
            Kind::Record,
        );
        let texts: Vec<String> = Property::all(&s).iter().map(|p| p.text(&s)).collect();
        assert_eq!(
            texts,
            [
                "result.0 + result.1 == v.len()",
                "result.0 + result.1 == w.len()"
            ]
        );
        let s = sig(
            "fn t(v: &[bool]) -> (u8, usize)",
            &[Kind::List],
            Kind::Record,
        );
        assert_eq!(
            Property::all(&s)[0].text(&s),
            "result.0 as i128 + result.1 as i128 == v.len() as i128"
        );
        // An array's parts are indexed.
        let s = sig(
            "fn h(v: &[f64]) -> [usize; 3]",
            &[Kind::FloatSeq],
            Kind::Record,
        );
        assert_eq!(
            Property::all(&s)[0].text(&s),
            "result[0] + result[1] + result[2] == v.len()"
        );
        let s = sig(
            "fn t(v: &[bool]) -> (usize, f64)",
            &[Kind::List],
            Kind::Record,
        );
        assert_eq!(Property::all(&s), []);
        let s = sig(
            "fn t(v: &[f64]) -> Vec<usize>",
            &[Kind::FloatSeq],
            Kind::IntSeq,
        );
        assert_eq!(
            Property::CountsOf(0).text(&s),
            "result.iter().sum::<usize>() == v.len()"
        );
        let s = sig(
            "fn m(s: &str, n: u8, xs: Vec<i64>) -> Option<u8>",
            &[Kind::Str, Kind::Int, Kind::IntSeq],
            Kind::Option,
        );
        let texts: Vec<String> = Property::all(&s).iter().map(|p| p.text(&s)).collect();
        assert_eq!(
            texts,
            [
                "result.is_none() == s.is_empty()",
                "result.is_none() == xs.is_empty()"
            ]
        );
        let s = sig("fn m(s: &str) -> Result<u8, E>", &[Kind::Str], Kind::Result);
        assert_eq!(
            Property::all(&s)[0].text(&s),
            "result.is_err() == s.is_empty()"
        );
        let s = sig("fn c(n: i64) -> usize", &[Kind::Int], Kind::Int);
        assert_eq!(Property::all(&s)[0].text(&s), "result > 0");
        // Neither `result >= 0`, its type's, nor `result < 0`, which never holds; no bound by
        // a parameter of another type.
        assert_eq!(
            Property::all(&s),
            [Property::Sign(Cmp::Above), Property::Sign(Cmp::AtMost)]
        );
        // Defining bounds: of a parameter of the result's own type, by a power, a multiple by
        // another, a power by a `u32` exponent.
        let s = sig(
            "fn r(x: &u64, q: u64, n: u32) -> u64",
            &[Kind::Int, Kind::Int, Kind::Int],
            Kind::Int,
        );
        let brackets: Vec<String> = Property::all(&s)
            .iter()
            .filter(|p| matches!(p, Property::Bracket { .. }))
            .map(|p| p.text(&s))
            .collect();
        assert_eq!(
            brackets,
            [
                "result.checked_pow(2).is_some_and(|l| l <= *x) && result.checked_add(1).and_then(|r| r.checked_pow(2)).is_none_or(|u| *x < u)",
                "result.checked_pow(3).is_some_and(|l| l <= *x) && result.checked_add(1).and_then(|r| r.checked_pow(3)).is_none_or(|u| *x < u)",
                "q.checked_mul(result).is_some_and(|l| l <= *x) && result.checked_add(1).and_then(|r| q.checked_mul(r)).is_none_or(|u| *x < u)",
                "result.checked_pow(n).is_some_and(|l| l <= *x) && result.checked_add(1).and_then(|r| r.checked_pow(n)).is_none_or(|u| *x < u)",
                "result.checked_pow(2).is_some_and(|l| l <= q) && result.checked_add(1).and_then(|r| r.checked_pow(2)).is_none_or(|u| q < u)",
                "result.checked_pow(3).is_some_and(|l| l <= q) && result.checked_add(1).and_then(|r| r.checked_pow(3)).is_none_or(|u| q < u)",
                "(*x).checked_mul(result).is_some_and(|l| l <= q) && result.checked_add(1).and_then(|r| (*x).checked_mul(r)).is_none_or(|u| q < u)",
                "result.checked_pow(n).is_some_and(|l| l <= q) && result.checked_add(1).and_then(|r| r.checked_pow(n)).is_none_or(|u| q < u)",
            ]
        );
        let holds = |x: i128, n: i128, r: i128| {
            let b = Property::Bracket {
                param: 0,
                by: Scale::PowerOf(2),
            };
            b.holds(
                &[Value::Int(x), Value::Int(0), Value::Int(n)],
                &Value::Int(r),
                0.0,
            )
        };
        // The cube root of 27, 28 and 63 is 3; of 64, 4; an exponent past `u32` is no bound.
        assert!(holds(27, 3, 3) && holds(63, 3, 3) && holds(64, 3, 4));
        assert!(!holds(26, 3, 3) && !holds(64, 3, 3) && !holds(27, 1 << 40, 3));
        // Where `(r + 1)^n` is past every integer, the upper bound holds.
        assert!(holds(i128::MAX, 1, i128::MAX));
        // Identities between a tuple's parts and two integer parameters: of three integer
        // parts, not of floats, nor of two parts.
        let combinations = |text: &str| {
            let s = sig(text, &[Kind::Int, Kind::Int], Kind::Record);
            Property::all(&s)
                .into_iter()
                .filter(|p| matches!(p, Property::Combination { .. }))
                .map(|p| p.text(&s))
                .collect::<Vec<String>>()
        };
        let bezout = combinations("fn g(a: i64, b: &i64) -> (i64, i64, i64)");
        assert_eq!(bezout.len(), 6, "{bezout:?}");
        assert!(bezout.contains(
            &"result.0 as i128 == a as i128 * result.1 as i128 + *b as i128 * result.2 as i128"
                .to_string()
        ));
        assert!(combinations("fn g(a: i64, b: i64) -> (f64, f64, f64)").is_empty());
        // Of two integer parts: a power, a product, a quotient and a remainder.
        let parts = |text: &str| {
            let s = sig(text, &[Kind::Int, Kind::Int], Kind::Record);
            Property::all(&s)
                .into_iter()
                .filter(|p| matches!(p, Property::Parts { .. }))
                .map(|p| p.text(&s))
                .collect::<Vec<String>>()
        };
        let div = parts("fn div_rem(a: i64, b: &i64) -> (i64, i64)");
        assert_eq!(div.len(), 10, "{div:?}");
        assert!(div.contains(
            &"(result.0 as i128).checked_mul(*b as i128).and_then(|p| p.checked_add(result.1 as i128)) == Some(a as i128)"
                .to_string()
        ));
        assert!(div.contains(
            &"u32::try_from(result.1).ok().and_then(|k| (result.0 as i128).checked_pow(k)) == Some(a as i128)"
                .to_string()
        ));
        assert!(div.contains(
            &"(result.0 as i128).checked_mul(result.1 as i128) == Some(*b as i128)".to_string()
        ));
        assert!(parts("fn g(a: i64, b: i64) -> (f64, f64)").is_empty());
        assert!(parts("fn g(a: i64, b: i64) -> (i64, i64, i64)").is_empty());
        let record = |a: i128, b: i128| Value::Record(vec![Value::Int(a), Value::Int(b)]);
        let input = [Value::Int(17), Value::Int(5)];
        let holds = |op, first, second, x, y: &Value| {
            Property::Parts {
                op,
                first,
                second,
                x,
            }
            .holds(&input, y, 0.0)
        };
        assert!(holds(PartOp::TimesPlus(1), 0, 1, 0, &record(3, 2)));
        assert!(!holds(PartOp::TimesPlus(1), 0, 1, 0, &record(3, 1)));
        assert!(holds(PartOp::TimesPlus(1), 1, 0, 0, &record(2, 3)));
        assert!(holds(PartOp::Times, 0, 1, 0, &record(17, 1)));
        assert!(!holds(PartOp::Times, 0, 1, 1, &record(17, 1)));
        assert!(holds(PartOp::Power, 0, 1, 0, &record(17, 1)));
        assert!(holds(PartOp::Power, 1, 0, 0, &record(1, 17)));
        assert!(!holds(PartOp::Power, 0, 1, 0, &record(4, 2)));
        // An exponent past `u32`, or a power past `i128`, makes nothing.
        assert!(!holds(PartOp::Power, 0, 1, 0, &record(1, 1 << 40)));
        assert!(!holds(PartOp::Power, 0, 1, 0, &record(1 << 70, 2)));
        assert!(!holds(PartOp::Times, 0, 1, 0, &Value::Int(17)));
        assert!(combinations("fn g(a: i64, b: i64) -> (i64, i64)").is_empty());
        let s = sig("fn c(n: i64) -> i64", &[Kind::Int], Kind::Int);
        let signs = Property::all(&s)
            .iter()
            .filter(|p| matches!(p, Property::Sign(_)))
            .count();
        assert_eq!(signs, 4, "{:?}", Property::all(&s));
        let s = sig("fn b(n: i64) -> bool", &[Kind::Int], Kind::Bool);
        assert!(Property::all(&s).is_empty());
        // A number of a sequence's own element type lies within its range; one of another
        // type is not compared with it.
        let s = sig(
            "fn q(xs: &[f64], tau: f64, ns: Vec<i64>) -> f64",
            &[Kind::FloatSeq, Kind::Float, Kind::IntSeq],
            Kind::Float,
        );
        let between: Vec<String> = Property::all(&s)
            .iter()
            .filter(|p| matches!(p, Property::Between(_)))
            .map(|p| p.text(&s))
            .collect();
        assert_eq!(
            between,
            ["invite::mr::in_range(result, invite::mr::smallest(xs), invite::mr::largest(xs))"]
        );
        assert_eq!(
            Property::Sign(Cmp::AtLeast).stronger(),
            Some(Property::Sign(Cmp::Above))
        );
        assert_eq!(
            Property::Sign(Cmp::AtMost).stronger(),
            Some(Property::Sign(Cmp::Below))
        );
        assert_eq!(Property::Sign(Cmp::Above).stronger(), None);
        // And back: a strict sign's loose form.
        assert_eq!(
            Property::Sign(Cmp::Above).loosened(),
            Some(Property::Sign(Cmp::AtLeast))
        );
        assert_eq!(
            Property::Sign(Cmp::Below).loosened(),
            Some(Property::Sign(Cmp::AtMost))
        );
        assert_eq!(Property::Sign(Cmp::AtLeast).loosened(), None);
        assert_eq!(Property::Range(Span::Unit).loosened(), None);
    }

    /// The mantissa of `x`, in `[0.5, 1)`.
    fn libm_frexp(x: f64) -> f64 {
        x / 2f64.powi(x.log2().floor() as i32 + 1)
    }

    #[test]
    fn a_named_range_holds_within_its_ends_and_is_claimed_where_the_results_reach_out() {
        let f = |y: f64| Value::Float(y);
        let within = |span: Span, y: f64| Property::Range(span).holds(&[], &f(y), 0.0);
        use std::f64::consts::{FRAC_PI_2, PI};
        for (span, inside, outside) in [
            (Span::Probability, [0.0, 1.0], [-0.01, 1.01]),
            (Span::Unit, [-1.0, 1.0], [-1.01, 1.01]),
            (Span::QuarterTurn, [-FRAC_PI_2, FRAC_PI_2], [-1.6, 1.6]),
            (Span::HalfTurn, [-PI, PI], [-3.15, 3.15]),
        ] {
            assert!(inside.iter().all(|&y| within(span, y)), "{span:?}");
            assert!(!outside.iter().any(|&y| within(span, y)), "{span:?}");
        }
        assert!(!within(Span::Unit, f64::NAN) && !within(Span::HalfTurn, f64::INFINITY));
        // A hair past an end, as rounding leaves a probability, is within its noise.
        assert!(within(Span::Probability, 1.0 + 1e-16));
        // Nested, the narrowest first: a wider range, and a probability's sign, follow.
        let r = Property::Range;
        assert!(r(Span::Unit).follows_from(r(Span::Probability)));
        assert!(r(Span::HalfTurn).follows_from(r(Span::QuarterTurn)));
        assert!(r(Span::QuarterTurn).follows_from(r(Span::Unit)));
        assert!(!r(Span::Probability).follows_from(r(Span::Unit)));
        assert!(!r(Span::QuarterTurn).follows_from(r(Span::HalfTurn)));
        assert!(Property::Sign(Cmp::AtLeast).follows_from(r(Span::Probability)));
        assert!(!Property::Sign(Cmp::AtLeast).follows_from(r(Span::Unit)));
        // Shown: reached halfway from the middle to an end, and crowded toward it or come
        // within its last tenth.
        let shown = |span: Span, ys: &[f64]| span.shown_by(ys);
        assert!(!shown(Span::Probability, &[0.5, 0.7, 0.3]), "not reached");
        assert!(shown(Span::Probability, &[0.5, 0.8, 0.9]), "crowded");
        assert!(
            shown(Span::Probability, &[0.3, 0.1, 0.2]),
            "crowded at the other end"
        );
        assert!(
            !shown(Span::Probability, &[0.5, 0.76, 0.8, 0.9]),
            "thinning, and one in the last tenth"
        );
        assert!(
            shown(Span::Probability, &[0.76, 0.78, 0.8, 0.96, 0.99]),
            "thinning, and two in the last tenth"
        );
        assert!(
            shown(Span::Probability, &[0.76, 0.8, 0.955, 0.951]),
            "within the tenth"
        );
        // Toward each end reached: one that thins short of its end refuses the span.
        assert!(!shown(Span::Unit, &[-1.0, -0.99, 0.55, 0.6, 0.8]));
        assert!(
            shown(Span::Unit, &[-1.0, -0.99, 0.1, 0.3, 0.45]),
            "the other not reached"
        );
        assert!(shown(Span::Unit, &[-1.0, -0.99, 0.55, 0.8, 0.9]));
        assert!(!shown(Span::HalfTurn, &[1.5, -1.5]) && shown(Span::HalfTurn, &[-3.0, -3.1]));
        // A sine's values, a fraction's (even) and a mantissa's (thinning as `1/m`) come
        // near their ends; rates of return stop short of a quarter turn's.
        let sines: Vec<f64> = (0..100).map(|i| (f64::from(i) * 0.37).sin()).collect();
        assert!(shown(Span::Unit, &sines));
        let fractions: Vec<f64> = (0..100).map(|i| (f64::from(i) * 0.618).fract()).collect();
        assert!(shown(Span::Unit, &fractions));
        let mantissas: Vec<f64> = (1..100).map(|i| libm_frexp(f64::from(i) * 1.37)).collect();
        assert!(shown(Span::Unit, &mantissas));
        let rates = [-1.0, 0.05, 0.2, 0.4, 0.8, 0.82, 0.9, 1.0, 1.2, 1.4, 0.1];
        assert!(!shown(Span::QuarterTurn, &rates));
        // Written with invite's tolerant range, in the result's float type.
        let of = |ty: &str| {
            sig(
                &format!("fn f(x: {ty}) -> {ty}"),
                &[Kind::Float],
                Kind::Float,
            )
        };
        assert_eq!(
            r(Span::HalfTurn).text(&of("f32")),
            "invite::mr::in_range(result, -std::f32::consts::PI, std::f32::consts::PI)"
        );
        assert_eq!(
            r(Span::Unit).text(&of("f64")),
            "invite::mr::in_range(result, -1.0, 1.0)"
        );
    }

    #[test]
    fn a_strict_sign_needs_a_gap_a_pasted_tolerance_cannot_blur() {
        let f = |y: f64| Value::Float(y);
        let at = |p: Property, y: f64, noise: f64| p.holds(&[f(3.0)], &f(y), noise);
        let above = Property::Sign(Cmp::Above);
        let below = Property::Sign(Cmp::Below);
        assert!(at(above, 2e-4, 0.0) && !at(above, 1e-4, 0.0) && !at(above, 5e-5, 0.0));
        // The gap is relative beyond 1, and widened by the noise.
        assert!(!at(above, 500.0, 20.0) && at(above, 500.0, 0.0));
        assert!(!Cmp::Above.holds(1e5, 1e5 - 5.0, 0.0) && Cmp::Above.holds(1e5, 1e5 - 20.0, 0.0));
        assert!(!Cmp::Below.holds(1e5 - 5.0, 1e5, 0.0) && Cmp::Below.holds(1e5 - 20.0, 1e5, 0.0));
        assert!(!at(above, f64::NAN, 0.0) && at(above, f64::INFINITY, 0.0));
        assert!(!at(above, f64::NEG_INFINITY, 0.0) && at(below, f64::NEG_INFINITY, 0.0));
        // Rounding of the two sides is allowed for: a few ulps short of 1e16, not a thousand.
        let big = 1e16;
        assert!(
            Cmp::AtLeast.holds(big - 2.0, big, 0.0) && !Cmp::AtLeast.holds(big - 1e3, big, 0.0)
        );
        assert!(Cmp::AtMost.holds(big + 2.0, big, 0.0) && !Cmp::AtMost.holds(big + 1e3, big, 0.0));
        let inf = f64::INFINITY;
        assert!(!Cmp::Above.holds(inf, inf, 0.0) && !Cmp::Below.holds(-inf, -inf, 0.0));
        assert!(Cmp::AtLeast.holds(inf, inf, 0.0) && Cmp::AtMost.holds(-inf, -inf, 0.0));
        assert!(!Cmp::AtLeast.holds(1.0, f64::NAN, 0.0) && !Cmp::AtMost.holds(f64::NAN, 1.0, 0.0));
        assert!(!Cmp::AtLeast.holds(inf, f64::NAN, 0.0) && !Cmp::Below.holds(1.0, f64::NAN, 0.0));
        let inf = [Value::Float(f64::INFINITY)];
        let bound = Property::Bound {
            param: 0,
            cmp: Cmp::AtLeast,
        };
        assert!(bound.holds(&inf, &f(f64::INFINITY), 0.0) && !bound.holds(&inf, &f(1e300), 0.0));
        assert!(at(below, -2e-4, 0.0) && !at(below, -1e-4, 0.0) && !at(below, 1.0, 0.0));
        let (least, most) = (Property::Sign(Cmp::AtLeast), Property::Sign(Cmp::AtMost));
        assert!(at(least, 0.0, 0.0) && at(least, -1e-15, 1e-16) && !at(least, -1e-15, 0.0));
        assert!(at(most, 0.0, 0.0) && at(most, 1e-15, 1e-16) && !at(most, 1e-15, 0.0));
        assert!(!at(least, f64::NAN, 0.0));
        let bound = |cmp| Property::Bound { param: 0, cmp };
        assert!(at(bound(Cmp::AtLeast), 3.0, 0.0) && !at(bound(Cmp::AtLeast), 2.9, 0.0));
        assert!(at(bound(Cmp::AtMost), 3.0, 0.0) && !at(bound(Cmp::AtMost), 3.1, 0.0));
        assert!(!Property::Bound {
            param: 0,
            cmp: Cmp::AtLeast
        }
        .holds(&[Value::FloatSeq(vec![])], &f(1.0), 0.0));
        // Short of its bound, a result needs that much relative tolerance.
        let t = bound(Cmp::AtLeast).needed_tolerance(&[f(4.0)], &f(3.0));
        assert!((t - 0.25).abs() < 1e-15, "{t}");
        assert_eq!(bound(Cmp::AtMost).needed_tolerance(&[f(4.0)], &f(3.0)), 0.0);
        assert!((bound(Cmp::AtMost).needed_tolerance(&[f(0.5)], &f(0.75)) - 0.25).abs() < 1e-15);
        assert_eq!(above.needed_tolerance(&[f(4.0)], &f(-3.0)), 0.0);
    }

    #[test]
    fn sequence_properties_judge_length_order_and_membership() {
        let xs = [Value::FloatSeq(vec![3.0, 1.0, 2.0])];
        let y = |e: Vec<f64>| Value::FloatSeq(e);
        assert!(Property::SameLen(0).holds(&xs, &y(vec![1.0, 2.0, 3.0]), 0.0));
        assert!(!Property::SameLen(0).holds(&xs, &y(vec![1.0, 2.0]), 0.0));
        assert!(Property::NonEmpty.holds(&xs, &y(vec![0.0]), 0.0));
        assert!(!Property::NonEmpty.holds(&xs, &y(vec![]), 0.0));
        assert!(Property::NonEmpty.holds(&xs, &Value::Str(".".into()), 0.0));
        assert!(!Property::NonEmpty.holds(&xs, &Value::Str(String::new()), 0.0));
        assert!(Property::Sorted.holds(&xs, &y(vec![1.0, 1.0, 2.0]), 0.0));
        assert!(!Property::Sorted.holds(&xs, &y(vec![2.0, 1.0]), 0.0));
        assert!(!Property::Sorted.holds(&xs, &y(vec![1.0, f64::NAN]), 0.0));
        assert!(Property::Within(0).holds(&xs, &y(vec![2.0, 3.0, 3.0]), 0.0));
        assert!(!Property::Within(0).holds(&xs, &y(vec![2.0, 4.0]), 0.0));
        assert!(!Property::Within(0).holds(&xs, &Value::Float(1.0), 0.0));
        assert!(!Property::SameLen(0).holds(&xs, &Value::Float(1.0), 0.0));
    }

    #[test]
    fn a_result_between_the_extremes_of_a_non_empty_input_is_within_its_range() {
        let between = Property::Between(0);
        let at =
            |xs: Vec<f64>, y: f64| between.holds(&[Value::FloatSeq(xs)], &Value::Float(y), 0.0);
        assert!(at(vec![3.0, -1.0, 2.0], -1.0));
        assert!(at(vec![3.0, -1.0, 2.0], 3.0));
        assert!(at(vec![3.0, -1.0, 2.0], 0.5));
        assert!(!at(vec![3.0, -1.0, 2.0], 3.01));
        assert!(!at(vec![3.0, -1.0, 2.0], -1.01));
        assert!(!at(vec![], 0.0), "an empty input has no range");
        assert!(!between.holds(
            &[Value::IntSeq(vec![1, 5])],
            &Value::FloatSeq(vec![2.0]),
            0.0
        ));
        assert!(between.holds(&[Value::IntSeq(vec![1, 5])], &Value::Int(5), 0.0));
    }

    #[test]
    fn a_result_just_outside_the_range_needs_that_much_tolerance() {
        let between = Property::Between(0);
        let need = |xs: Vec<f64>, y: f64| {
            between.needed_tolerance(&[Value::FloatSeq(xs)], &Value::Float(y))
        };
        assert_eq!(need(vec![1.0, 4.0], 2.0), 0.0);
        assert_eq!(need(vec![1.0, 4.0], 4.0), 0.0);
        assert!((need(vec![1.0, 4.0], 4.0 + 4e-9) - 1e-9).abs() < 1e-15);
        assert!((need(vec![-8.0, -2.0], -8.0 - 8e-9) - 1e-9).abs() < 1e-15);
        assert_eq!(need(vec![], 1.0), 0.0);
    }

    #[test]
    fn the_layout_of_a_text_result_is_judged_against_its_input_and_written_as_rust() {
        let text = |s: &str| Value::Str(s.into());
        let wrap = sig(
            "fn wrap(text: &str, width: usize) -> String",
            &[Kind::Str, Kind::Int],
            Kind::Str,
        );
        let all = Property::all(&wrap);
        for p in [
            Property::LinesAtMost(1),
            Property::SameLineCount(0),
            Property::SameWords(0),
            Property::SameNonSpace(0),
            Property::NotLonger(0),
            Property::EachLine {
                param: 0,
                rel: LineRel::EndOf,
            },
        ] {
            assert!(all.contains(&p), "{p:?}: {all:?}");
            assert!(p.of_text(), "{p:?}");
        }
        // The stronger of words and characters first, so that the weaker can be left out.
        let at = |p: Property| all.iter().position(|q| *q == p).unwrap();
        assert!(at(Property::SameWords(0)) < at(Property::SameNonSpace(0)));
        assert_eq!(
            Property::SameNonSpace(0).stronger(),
            Some(Property::SameWords(0))
        );
        // A signed width bounds nothing a line's length is compared with; a number's text
        // has no layout of an input's.
        let signed = sig(
            "fn wrap(text: &str, width: i64) -> String",
            &[Kind::Str, Kind::Int],
            Kind::Str,
        );
        assert!(!Property::all(&signed).contains(&Property::LinesAtMost(1)));
        let hex = sig("fn hex(n: u64) -> String", &[Kind::Int], Kind::Str);
        assert!(!Property::all(&hex).iter().any(|p| matches!(
            p,
            Property::LinesAtMost(_) | Property::SameLineCount(_) | Property::NotLonger(_)
        )));

        let input = |s: &str, w: i128| vec![text(s), Value::Int(w)];
        let holds = |p: Property, s: &str, w: i128, y: &str| p.holds(&input(s, w), &text(y), 0.0);
        let fit = Property::LinesAtMost(1);
        assert!(holds(fit, "ab cd", 2, "ab\ncd"));
        assert!(!holds(fit, "ab cd", 2, "ab cd"));
        assert!(
            holds(fit, "abc", 0, "a\nb\nc"),
            "a width of 0 is taken as 1"
        );
        assert!(!holds(fit, "abc", 0, "ab\nc"));
        assert!(!fit.holds(&input("ab", 2), &Value::Int(3), 0.0), "no text");
        // Shown where some line of the input is wider than the bound.
        assert!(fit.shown_by(&input("abc d", 3), &text("abc\nd")));
        assert!(!fit.shown_by(&input("ab\ncd", 3), &text("ab\ncd")));
        assert!(!fit.shown_by(&[text("abc"), Value::Float(1.0)], &text("abc")));

        let lines = Property::SameLineCount(0);
        assert!(holds(lines, "a\nb", 0, "> a\n> b"));
        assert!(!holds(lines, "a\nb", 0, "> a"));
        assert!(lines.shown_by(&input("a\nb", 0), &text("> a\n> b")));
        assert!(
            !lines.shown_by(&input("a b", 0), &text("> a b")),
            "one line"
        );
        assert!(
            !lines.shown_by(&input("a\nb", 0), &text("a\nb")),
            "unchanged"
        );

        let each = |rel| Property::EachLine { param: 0, rel };
        assert!(holds(each(LineRel::EndsWith), "a\nb", 0, "> a\n> b"));
        assert!(!holds(each(LineRel::EndsWith), "a\nb", 0, "a >\nb >"));
        assert!(holds(each(LineRel::StartsWith), "a\nb", 0, "a >\nb >"));
        assert!(holds(each(LineRel::EndOf), "  a\n   b", 0, "a\n b"));
        assert!(!holds(each(LineRel::EndOf), "  a\n\tb", 0, "a\n b"));
        assert!(holds(each(LineRel::StartOf), "a  \nb ", 0, "a\nb"));
        assert!(!holds(each(LineRel::StartOf), "a  \nb ", 0, "a\nc"));

        let words = Property::SameWords(0);
        let solid = Property::SameNonSpace(0);
        assert!(holds(words, "a  b\nc", 0, "a b c"));
        assert!(!holds(words, "ab c", 0, "a\nb c"), "a word broken");
        assert!(holds(solid, "ab c", 0, "a\nb c"));
        assert!(!holds(solid, "ab c", 0, "ab"));
        assert!(!holds(solid, "ab c", 0, "ba c"));
        assert!(words.shown_by(&input("a  b", 0), &text("a b")));
        assert!(!words.shown_by(&input("ab", 0), &text("a b")), "one word");
        assert!(!solid.shown_by(&input("a b", 0), &text("a b")), "unchanged");

        let shorter = Property::NotLonger(0);
        assert!(holds(shorter, "  é", 0, "é"));
        assert!(holds(shorter, "ab", 0, "ba"));
        assert!(!holds(shorter, "é", 0, "ab"), "counted in characters");
        assert!(shorter.shown_by(&input("  a", 0), &text("a")));
        assert!(
            !shorter.shown_by(&input("ab", 0), &text("ba")),
            "nothing taken out"
        );
        assert_eq!(shorter.needed_tolerance(&input("ab", 0), &text("b")), 0.0);
        assert!(shorter
            .needed_tolerance(&input("a", 0), &text("ab"))
            .is_infinite());

        // As Rust.
        assert_eq!(
            fit.text(&wrap),
            "result.lines().all(|line| line.chars().count() <= width.max(1))"
        );
        let narrow = sig(
            "fn wrap(text: &str, width: &u16) -> String",
            &[Kind::Str, Kind::Int],
            Kind::Str,
        );
        assert_eq!(
            fit.text(&narrow),
            "result.lines().all(|line| line.chars().count() as u128 <= ((*width) as u128).max(1))"
        );
        assert_eq!(
            lines.text(&wrap),
            "result.lines().count() == text.lines().count()"
        );
        assert_eq!(
            each(LineRel::EndOf).text(&wrap),
            "result.lines().zip(text.lines()).all(|(r, l)| l.ends_with(r))"
        );
        assert_eq!(
            words.text(&wrap),
            "result.split_whitespace().eq(text.split_whitespace())"
        );
        assert_eq!(
            solid.text(&wrap),
            "result.split_whitespace().flat_map(str::chars).eq(text.split_whitespace().flat_map(str::chars))"
        );
        assert_eq!(
            shorter.text(&wrap),
            "result.chars().count() <= text.chars().count()"
        );
    }

    #[test]
    fn a_text_result_shows_a_parameter_as_written_where_it_is_written() {
        let label = sig(
            "fn label(n: i64, c: char, name: &str, owned: String) -> String",
            &[Kind::Int, Kind::Char, Kind::Str, Kind::Str],
            Kind::Str,
        );
        let shows: Vec<Property> = Property::all(&label)
            .into_iter()
            .filter(|p| matches!(p, Property::Shows { .. }))
            .collect();
        let at = |param, at| Property::Shows { param, at };
        // Numbers and characters at each place; a string's ends are its lines'.
        assert_eq!(
            shows,
            [
                at(0, Place::Start),
                at(0, Place::End),
                at(0, Place::Within),
                at(1, Place::Start),
                at(1, Place::End),
                at(1, Place::Within),
                at(2, Place::Within),
                at(3, Place::Within),
            ]
        );
        let texts: Vec<String> = shows.iter().map(|p| p.text(&label)).collect();
        assert_eq!(
            texts,
            [
                "result.starts_with(&n.to_string())",
                "result.ends_with(&n.to_string())",
                "result.contains(&n.to_string())",
                "result.starts_with(c)",
                "result.ends_with(c)",
                "result.contains(c)",
                "result.contains(name)",
                "result.contains(owned.as_str())",
            ]
        );
        let input = [
            Value::Int(-21),
            Value::Char('x'),
            Value::Str("ab".into()),
            Value::Str(String::new()),
        ];
        let y = |t: &str| Value::Str(t.into());
        assert!(at(0, Place::Start).holds(&input, &y("-21st"), 0.0));
        assert!(!at(0, Place::Start).holds(&input, &y("21st"), 0.0));
        assert!(at(0, Place::End).holds(&input, &y("no. -21"), 0.0));
        assert!(!at(0, Place::End).holds(&input, &y("-21st"), 0.0));
        assert!(at(0, Place::Within).holds(&input, &y("a-21b"), 0.0));
        assert!(!at(0, Place::Within).holds(&input, &y("a-2b1"), 0.0));
        assert!(at(2, Place::Within).holds(&input, &y("cabd"), 0.0));
        assert!(!at(1, Place::Within).holds(&input, &y("cabd"), 0.0));
        assert!(at(1, Place::Start).holds(&input, &y("x1"), 0.0));
        // Only a value with text, in a result that is more than it, shows the function
        // wrote it.
        assert!(at(0, Place::Start).shown_by(&input, &y("-21st")));
        assert!(!at(0, Place::Start).shown_by(&input, &y("-21")));
        assert!(!at(3, Place::Within).shown_by(&input, &y("ab")));
        assert!(!at(0, Place::Start).holds(&[Value::Float(1.0)], &y("1"), 0.0));
        // Anywhere follows from either end, of the same parameter only.
        assert!(at(0, Place::Within).follows_from(at(0, Place::Start)));
        assert!(at(0, Place::Within).follows_from(at(0, Place::End)));
        assert!(!at(0, Place::Within).follows_from(at(1, Place::End)));
        assert!(!at(0, Place::End).follows_from(at(0, Place::Start)));
        assert!(Property::Sign(Cmp::AtLeast).follows_from(Property::Sign(Cmp::Above)));
        assert!(at(1, Place::Start).of_text());
    }

    #[test]
    fn a_constant_result_is_held_by_value_and_written_as_rust() {
        let text = |s: &str| Value::Str(s.into());
        assert_eq!(Lit::of(&Value::Int(-3)), Some(Lit::Int(-3)));
        assert_eq!(Lit::of(&Value::Char('é')), Some(Lit::Char('é')));
        assert_eq!(Lit::of(&Value::Bool(false)), Some(Lit::Bool(false)));
        assert_eq!(Lit::of(&Value::Option(None)), Some(Lit::Nothing));
        assert_eq!(Lit::of(&Value::Result(Err("e".into()))), Some(Lit::Nothing));
        assert_eq!(Lit::of(&Value::Float(1.0)), None);
        assert_eq!(
            Lit::of(&Value::Option(Some(Box::new(Value::Int(1))))),
            Some(Lit::SomeInt(1))
        );
        assert_eq!(
            Lit::of(&Value::Option(Some(Box::new(Value::Float(1.0))))),
            None
        );
        assert_eq!(Lit::of(&Value::Result(Ok(Box::new(Value::Int(1))))), None);
        // A text up to 24 bytes.
        let th = Lit::of(&text("th")).unwrap();
        assert_eq!(th.as_str(), Some("th"));
        assert_eq!(
            Lit::of(&text(&"x".repeat(24))).and_then(|l| l.as_str().map(str::len)),
            Some(24)
        );
        assert_eq!(Lit::of(&text(&"x".repeat(25))), None);
        assert_eq!(Lit::Int(1).as_str(), None);
        // Compared as the value.
        assert!(Property::Is(th).holds(&[], &text("th"), 0.0));
        assert!(!Property::Is(th).holds(&[], &text("st"), 0.0));
        assert!(!Property::Is(th).holds(&[], &Value::Char('t'), 0.0));
        assert!(Property::Is(Lit::Nothing).holds(&[], &Value::Result(Err("x".into())), 0.0));
        assert!(!Property::Is(Lit::Nothing).holds(
            &[],
            &Value::Option(Some(Box::new(Value::Int(0)))),
            0.0
        ));
        assert!(Property::Is(Lit::Char('a')).holds(&[], &Value::Char('a'), 0.0));
        let end = Property::Affix {
            lit: th,
            at: Place::End,
        };
        assert!(end.holds(&[], &text("12th"), 0.0) && !end.holds(&[], &text("12st"), 0.0));
        assert_eq!(end.needed_tolerance(&[], &text("12st")), f64::INFINITY);
        assert_eq!(end.needed_tolerance(&[], &text("12th")), 0.0);
        // As Rust, by the result's kind.
        let of = |ty: &str, kind: Kind| sig(&format!("fn f(n: i64) -> {ty}"), &[Kind::Int], kind);
        let cases = [
            (
                Property::Is(th),
                of("String", Kind::Str),
                "result == \"th\"",
            ),
            (
                Property::Is(Lit::Int(7)),
                of("u8", Kind::Int),
                "result == 7",
            ),
            (
                Property::Is(Lit::Char('x')),
                of("char", Kind::Char),
                "result == 'x'",
            ),
            (
                Property::Is(Lit::Bool(true)),
                of("bool", Kind::Bool),
                "result",
            ),
            (
                Property::Is(Lit::Bool(false)),
                of("bool", Kind::Bool),
                "!result",
            ),
            (
                Property::Is(Lit::Nothing),
                of("Option<u8>", Kind::Option),
                "result.is_none()",
            ),
            (
                Property::Is(Lit::Nothing),
                of("Result<u8, String>", Kind::Result),
                "result.is_err()",
            ),
            (
                Property::Is(Lit::SomeInt(30)),
                of("Option<u8>", Kind::Option),
                "result == Some(30)",
            ),
            (end, of("String", Kind::Str), "result.ends_with(\"th\")"),
        ];
        for (p, s, text) in cases {
            assert_eq!(p.text(&s), text);
        }
    }

    #[test]
    fn a_text_result_of_text_may_be_claimed_never_empty() {
        let of = |sig: &str, kinds: &[Kind], out: Kind| {
            Property::all(&Signature::parse(sig, kinds, out).unwrap())
        };
        assert!(
            of("fn f(s: &str) -> String", &[Kind::Str], Kind::Str).contains(&Property::NonEmpty)
        );
        // Not of text made from no text, nor of a character.
        assert!(
            !of("fn f(n: i64) -> String", &[Kind::Int], Kind::Str).contains(&Property::NonEmpty)
        );
        assert!(
            !of("fn f(s: &str) -> char", &[Kind::Str], Kind::Char).contains(&Property::NonEmpty)
        );
    }
}
