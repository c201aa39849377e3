//! Input transformations: the follow-up inputs a candidate relation runs the function on, and
//! how each is written inside a relation.

use std::f64::consts::{E, FRAC_1_SQRT_2, FRAC_PI_2, LN_2, PI, SQRT_2, TAU};

use rand::seq::SliceRandom;
use rand::SeedableRng;

use super::signature::Signature;
use super::value::{Kind, Value};

/// A number a relation is written with: a literal, or a signed constant of `std::f64::consts`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Const {
    /// Its value.
    pub value: f64,
    /// The name in `std::{f32,f64}::consts`, when it is one of them (the sign is `value`'s).
    pub name: Option<&'static str>,
}

impl Const {
    /// A literal.
    pub const fn lit(value: f64) -> Const {
        Const { value, name: None }
    }

    const fn named(value: f64, name: &'static str) -> Const {
        Const {
            value,
            name: Some(name),
        }
    }

    /// The constant as Rust source: `2.0`, `-0.5`, `std::f64::consts::PI` (for `int`, an
    /// integer literal; for `f32`, the `f32` constants).
    pub fn text(&self, ty: NumTy) -> String {
        match (self.name, ty) {
            (Some(name), NumTy::F32) => sign(self.value) + "std::f32::consts::" + name,
            (Some(name), _) => sign(self.value) + "std::f64::consts::" + name,
            (None, NumTy::Int) => format!("{}", self.value as i64),
            (None, _) => float_literal(self.value),
        }
    }

    /// The magnitude as Rust source (for writing `x - PI` rather than `x + -PI`).
    pub fn abs(&self) -> Const {
        Const {
            value: self.value.abs(),
            name: self.name,
        }
    }
}

fn sign(x: f64) -> String {
    if x < 0.0 {
        "-".into()
    } else {
        String::new()
    }
}

/// A float as a Rust literal that reads back to the same value: `2.0`, `0.5`, `1e-7`.
pub fn float_literal(x: f64) -> String {
    let s = format!("{x:?}");
    if s.contains(['.', 'e', 'N', 'i']) {
        s
    } else {
        s + ".0"
    }
}

/// The numeric type a constant is written for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum NumTy {
    /// `f64` (and what is not `f32`).
    F64,
    /// `f32`.
    F32,
    /// A primitive integer.
    Int,
}

/// The simple constants a solved coefficient snaps to (with both signs).
pub const SNAP: [Const; 14] = [
    Const::lit(1.0),
    Const::lit(2.0),
    Const::lit(3.0),
    Const::lit(4.0),
    Const::lit(0.5),
    Const::lit(0.25),
    Const::named(PI, "PI"),
    Const::named(FRAC_PI_2, "FRAC_PI_2"),
    Const::named(TAU, "TAU"),
    Const::named(E, "E"),
    Const::named(LN_2, "LN_2"),
    Const::named(std::f64::consts::LN_10, "LN_10"),
    Const::named(SQRT_2, "SQRT_2"),
    Const::named(FRAC_1_SQRT_2, "FRAC_1_SQRT_2"),
];

/// Factors `a` of the float grid `x' = a·x + b`.
const FLOAT_A: [f64; 10] = [1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, 4.0, 0.25, 8.0];
/// Offsets `b` of the float grid.
pub(super) const FLOAT_B: [Const; 9] = [
    Const::lit(0.0),
    Const::lit(1.0),
    Const::lit(-1.0),
    Const::named(FRAC_PI_2, "FRAC_PI_2"),
    Const::named(-FRAC_PI_2, "FRAC_PI_2"),
    Const::named(PI, "PI"),
    Const::named(-PI, "PI"),
    Const::named(TAU, "TAU"),
    Const::named(-TAU, "TAU"),
];
const INT_A: [f64; 5] = [1.0, -1.0, 2.0, -2.0, 3.0];
const INT_B: [Const; 5] = [
    Const::lit(0.0),
    Const::lit(1.0),
    Const::lit(-1.0),
    Const::lit(2.0),
    Const::lit(-2.0),
];

/// What a sequence transformation does.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum SeqOp {
    /// A random order.
    Permute,
    /// The reverse order.
    Reverse,
    /// Ascending order.
    Sort,
    /// The first element appended again.
    IncludeFirst,
    /// The mean appended (floats only).
    IncludeMean,
    /// The largest element appended.
    IncludeMax,
    /// A value appended (`1` to a sum or a count adds one; `0` to a count of positives adds
    /// nothing).
    IncludeValue(f64),
    /// The elements turned one place, the first moved to the end: a deterministic
    /// permutation, the same of two sequences moved together (`dot(rotate_left(a), rotate_left(b)) ==
    /// result`), and the cyclic symmetry of a vector's components.
    RotateLeft,
    /// A value put before the first: a series delayed by a step (`npv(rate,
    /// &invite::mr::prepend(values, 0.0)) == result / (rate + 1.0)`), a polynomial's
    /// coefficients shifted.
    PrependValue(f64),
    /// The call's own result appended: a mean's fixed point (`mean(&include(xs, result)) ==
    /// result`, and a median's, a geometric or a harmonic mean's). Made where the result is a
    /// number of the elements' kind, from the result each call gave.
    IncludeResult,
    /// Without the first element.
    ExcludeFirst,
    /// The sequence twice over.
    Duplicate,
    /// Every element times a factor.
    Scale(f64),
    /// Every element plus an offset.
    Translate(f64),
    /// Every element negated.
    Negate,
}

/// The second inputs of relations between three runs: `f(x)`, `f(y)` with `y = a·x + b`, and
/// `f(x + y)` (on the grid: `(a + 1)·x + b`) or `f(x·y)`.
pub const PARTNERS: [(f64, Const); 2] = [(1.0, Const::lit(1.0)), (2.0, Const::lit(0.0))];

/// The input times itself, `x·x`: where a function of a product is known at a square
/// (`log(x * x) == 2 * log(x)`, `perfect_power(x * x) == (result.0, 2 * result.1)`,
/// `!is_prime(n * n)`).
const SQUARE: (f64, Const) = (1.0, Const::lit(0.0));

/// The factors an integer written as text is scaled by: the base its digits are written in,
/// which shifts them, and its cube, the step of the groups of thousands and of the metric
/// prefixes (`formatted(n * 1000) == format!("{},000", result)`).
const DECIMAL_SCALES: [f64; 2] = [10.0, 1000.0];

/// The factors an integer written as bytes is scaled by: a whole byte, and a group of seven
/// bits, the unit of variable-length encodings (`varint(128 * n) == [vec![128],
/// result.to_vec()].concat()`).
const BINARY_SCALES: [f64; 2] = [256.0, 128.0];

/// Most parameters of one type whose ordered pairs are each tried (one given the other's
/// value, one reflected about the other): six follow-up runs of each kind for three, where
/// eight coordinates would take fifty-six that say little.
const PAIRED: usize = 3;

/// The values another parameter takes in the inner call of a composition, `f(f(x, n), c)`:
/// each is compared with the outer call at `c·n` and at `n + c` (`root(x, 2 * n)`,
/// `rotate(xs, n + 1)`). One and two are the smallest that make either side a new call.
const COMPOSED: [f64; 2] = [1.0, 2.0];

/// Composite sequence transformations: a reordering or a cut, then a change of the values.
const COMPOSITE_FIRST: [SeqOp; 4] = [
    SeqOp::Permute,
    SeqOp::Reverse,
    SeqOp::Sort,
    SeqOp::ExcludeFirst,
];
const COMPOSITE_THEN: [SeqOp; 3] = [SeqOp::Scale(2.0), SeqOp::Translate(1.0), SeqOp::Negate];

const SEQ_OPS: [SeqOp; 16] = [
    SeqOp::Permute,
    SeqOp::Reverse,
    SeqOp::Sort,
    SeqOp::IncludeFirst,
    SeqOp::IncludeMean,
    SeqOp::IncludeMax,
    SeqOp::IncludeValue(0.0),
    SeqOp::IncludeValue(1.0),
    SeqOp::PrependValue(0.0),
    SeqOp::ExcludeFirst,
    SeqOp::Duplicate,
    SeqOp::Scale(2.0),
    SeqOp::Scale(0.5),
    SeqOp::Translate(1.0),
    SeqOp::Translate(-3.0),
    SeqOp::Negate,
];

/// What is done to an array of numbers (`[f64; 3]`): what keeps its length.
const ARRAY_OPS: [SeqOp; 9] = [
    SeqOp::Permute,
    SeqOp::Reverse,
    SeqOp::Sort,
    SeqOp::RotateLeft,
    SeqOp::Scale(2.0),
    SeqOp::Scale(0.5),
    SeqOp::Translate(1.0),
    SeqOp::Translate(-3.0),
    SeqOp::Negate,
];

/// What is done to a list of values that are not numbers: only its order and its length
/// change, since nothing is known of how its elements combine.
const LIST_OPS: [SeqOp; 5] = [
    SeqOp::Permute,
    SeqOp::Reverse,
    SeqOp::IncludeFirst,
    SeqOp::ExcludeFirst,
    SeqOp::Duplicate,
];

/// What is done to a string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TextOp {
    /// Its characters in the other order.
    Reversed,
    /// Upper case.
    Upper,
    /// Lower case.
    Lower,
    /// Written twice.
    Doubled,
    /// Written twice with a space between: two words or sentences where there was one.
    Spaced,
    /// With a piece added at its end.
    Appended(&'static str),
    /// With a piece added at its start.
    Prepended(&'static str),
    /// Its first character removed.
    FirstRemoved,
    /// The empty string.
    Emptied,
    /// Written twice as two lines: two paragraphs or records where there was one.
    Lined,
    /// Every line indented by a space, blank ones too: text as another block holds it.
    Indented,
}

/// Every change of a string, in a fixed order. What a string gains is a character of each
/// class text is split by: a letter (so that case matters to it), a space, and a word after
/// a space; and, for text of lines, a line and an indentation.
pub(super) const TEXT_OPS: [TextOp; 14] = [
    TextOp::Reversed,
    TextOp::Upper,
    TextOp::Lower,
    TextOp::Doubled,
    TextOp::Spaced,
    TextOp::Appended("a"),
    TextOp::Appended(" "),
    TextOp::Appended(" a"),
    TextOp::Prepended("a"),
    TextOp::Prepended(" "),
    TextOp::FirstRemoved,
    TextOp::Emptied,
    TextOp::Lined,
    TextOp::Indented,
];

/// Every ASCII punctuation character, as a piece a string gains (see
/// [`Signature::separators`]).
const PUNCTUATION: [&str; 32] = [
    "!", "\"", "#", "$", "%", "&", "'", "(", ")", "*", "+", ",", "-", ".", "/", ":", ";", "<", "=",
    ">", "?", "@", "[", "\\", "]", "^", "_", "`", "{", "|", "}", "~",
];

/// Most separators taken of one string parameter.
const SEPARATORS: usize = 2;

/// The separators of each string parameter: the ASCII punctuation characters held by most of
/// its given values, at most [`SEPARATORS`], each held by two values or more (one value's
/// character says nothing of how the others are written).
pub fn separators(sig: &Signature, inputs: &[Vec<Value>]) -> Vec<(usize, char)> {
    let mut out = Vec::new();
    for (p, param) in sig.params.iter().enumerate() {
        if param.kind != Kind::Str {
            continue;
        }
        let mut counts: Vec<(usize, char)> = PUNCTUATION
            .iter()
            .filter_map(|piece| piece.chars().next())
            .map(|c| {
                let holding = inputs
                    .iter()
                    .filter(|input| matches!(input.get(p), Some(Value::Str(s)) if s.contains(c)))
                    .count();
                (holding, c)
            })
            .filter(|&(holding, _)| holding >= 2)
            .collect();
        // The most held first, then in the table's order.
        counts.sort_by_key(|&(holding, _)| std::cmp::Reverse(holding));
        out.extend(counts.into_iter().take(SEPARATORS).map(|(_, c)| (p, c)));
    }
    out
}

/// A punctuation character as a piece of text that lives as long as the program.
fn punctuation(c: char) -> Option<&'static str> {
    PUNCTUATION
        .iter()
        .copied()
        .find(|piece| piece.starts_with(c))
}

impl TextOp {
    /// The changed string; `None` where there is no first character to remove.
    pub fn apply(self, s: &str) -> Option<String> {
        Some(match self {
            TextOp::Reversed => s.chars().rev().collect(),
            TextOp::Upper => s.to_uppercase(),
            TextOp::Lower => s.to_lowercase(),
            TextOp::Doubled => s.repeat(2),
            TextOp::Spaced => format!("{s} {s}"),
            TextOp::Appended(piece) => format!("{s}{piece}"),
            TextOp::Prepended(piece) => format!("{piece}{s}"),
            TextOp::FirstRemoved => {
                let mut c = s.chars();
                c.next()?;
                c.as_str().to_string()
            }
            TextOp::Emptied => String::new(),
            TextOp::Lined => format!("{s}\n{s}"),
            TextOp::Indented => s.split_inclusive('\n').map(|l| format!(" {l}")).collect(),
        })
    }

    /// The changed string as Rust source, from `s`, an expression of type `&str`.
    pub fn text(self, s: &str) -> String {
        match self {
            TextOp::Reversed => format!("{s}.chars().rev().collect::<String>()"),
            TextOp::Upper => format!("{s}.to_uppercase()"),
            TextOp::Lower => format!("{s}.to_lowercase()"),
            TextOp::Doubled => format!("{s}.repeat(2)"),
            TextOp::Spaced => format_text("{} {}", s),
            TextOp::Appended(piece) => format_text(&format!("{{}}{}", literal(piece)), s),
            TextOp::Prepended(piece) => format_text(&format!("{}{{}}", literal(piece)), s),
            TextOp::FirstRemoved => format!("{s}.chars().skip(1).collect::<String>()"),
            TextOp::Emptied => "String::new()".to_string(),
            TextOp::Lined => format_text("{}\\n{}", s),
            TextOp::Indented => format!(
                "{s}.split_inclusive('\\n').map(|l| format!(\" {{l}}\")).collect::<String>()"
            ),
        }
    }
}

/// A piece of text as it is written inside a format string's literal: braces doubled,
/// quotes and backslashes escaped.
fn literal(piece: &str) -> String {
    let braces = piece.replace('{', "{{").replace('}', "}}");
    let quoted = format!("{braces:?}");
    quoted[1..quoted.len() - 1].to_string()
}

/// `format!(template)` with each `{}` the string `s`: captured by name where `s` is one
/// (`format!("{s} a")`), passed as an argument where it is not (a receiver's field cannot be
/// captured: `format!("{} a", self.s)`).
fn format_text(template: &str, s: &str) -> String {
    if s.chars().all(|c| c.is_alphanumeric() || c == '_') {
        format!(
            "format!(\"{}\")",
            template.replace("{}", &format!("{{{s}}}"))
        )
    } else {
        let args = format!(", {s}").repeat(template.matches("{}").count());
        format!("format!(\"{template}\"{args})")
    }
}

/// A follow-up input made from the original one.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Transform {
    /// One number parameter becomes `a·x + b`.
    Affine {
        /// The parameter's index.
        param: usize,
        /// The factor.
        a: f64,
        /// The offset.
        b: Const,
    },
    /// Every number parameter becomes `a·x` (functions of two or more numbers).
    ScaleAll {
        /// The factor.
        a: f64,
    },
    /// One float parameter becomes `c - x`, with the symmetry point `c` solved at each call.
    Reflect {
        /// The parameter's index.
        param: usize,
    },
    /// Two parameters of the same type trade places.
    Swap {
        /// The first parameter's index.
        i: usize,
        /// The second parameter's index.
        j: usize,
    },
    /// A sequence parameter is transformed.
    Seq {
        /// The parameter's index.
        param: usize,
        /// What is done to it.
        op: SeqOp,
    },
    /// One number parameter becomes `x·(a·x + b)`: the product of the input and a second one
    /// made from it, for relations between three runs (`f(x·y) = f(x) + f(y)`).
    Product {
        /// The parameter's index.
        param: usize,
        /// The second input's factor.
        a: f64,
        /// The second input's offset.
        b: Const,
    },
    /// A sequence parameter and a number parameter are transformed together: the sequence by
    /// `op`, the number to `a·x + b` (`quantile(&negate(xs), 1.0 - tau) == -result`).
    SeqWith {
        /// The sequence parameter's index.
        seq: usize,
        /// What is done to it.
        op: SeqOp,
        /// The number parameter's index.
        param: usize,
        /// The number's factor.
        a: f64,
        /// The number's offset.
        b: Const,
    },
    /// Every float parameter becomes `a·x + b`, and every element of every float sequence:
    /// the whole input moved together (a distance translated, a bounding box negated, a
    /// clamp's value and bounds shifted alike).
    AllMoved {
        /// The factor.
        a: f64,
        /// The offset.
        b: f64,
        /// A parameter left as it is (an interpolation's `t`, between the moved ends).
        except: Option<usize>,
    },
    /// Every float number zero: the origin. No relation is sought on it: it is the boundary a
    /// strict sign (`result > 0.0`) is judged at, which live calls seldom reach.
    Origin,
    /// One number parameter moved by another of the same type, `x + y` or `x - y`: an
    /// argument translated by a multiple of another (`div_floor(a + b, b) == result + 1`).
    Shift {
        /// The parameter moved.
        param: usize,
        /// The parameter it is moved by.
        by: usize,
        /// `1.0` to add, `-1.0` to subtract.
        sign: f64,
    },
    /// Two integer parameters each one less: with one of them one less alone, the inputs of a
    /// recurrence in two indices (Pascal's rule, `C(n, k) = C(n - 1, k - 1) + C(n - 1, k)`).
    BothDown {
        /// The first parameter.
        first: usize,
        /// The second.
        second: usize,
    },
    /// An integer parameter replaced by another less it, `n - k` for `k`: the index counted
    /// from the other end (`binomial(n, n - k) == result`).
    Complement {
        /// The parameter replaced.
        param: usize,
        /// The parameter it is counted from.
        of: usize,
    },
    /// One number parameter set to a special value, zero or one, the others kept: where a
    /// function is defined by its value there (`binomial(n, 0) == 1`, `binomial(n, 1) == n`).
    Special {
        /// The parameter's index.
        param: usize,
        /// The value it takes.
        value: f64,
    },
    /// One parameter replaced by the result, where the result is of its type: the function
    /// applied to its own result (`sorted(&sorted(xs)) == sorted(xs)`: idempotence).
    OnResult {
        /// The parameter's index.
        param: usize,
    },
    /// The function applied to its own result with another number parameter set to a
    /// value: the inner side of a composition, `root(root(x, n), 2)`, compared with the
    /// outer side `root(x, 2 * n)` (see [`Transform::composed`]).
    Nested {
        /// The parameter the result takes the place of.
        param: usize,
        /// The number parameter set.
        other: usize,
        /// The value it takes.
        value: f64,
    },
    /// One parameter put through another function of the crate, from its type to its type:
    /// what the function makes of what another made (`snake(&kebab(s)) == result`).
    Through {
        /// The parameter's index.
        param: usize,
        /// The other function's index in [`Signature::siblings`].
        sibling: usize,
    },
    /// One parameter replaced by the result put through another function of the crate, from
    /// the result's type to the parameter's: a round trip (`decode(&encode(&result)) ==
    /// result`).
    ResultThrough {
        /// The parameter's index.
        param: usize,
        /// The other function's index in [`Signature::siblings`].
        sibling: usize,
    },
    /// A string parameter is changed.
    Text {
        /// The parameter's index.
        param: usize,
        /// What is done to it.
        op: TextOp,
    },
    /// Two strings of one type changed alike: a common suffix or prefix, both reversed, both
    /// in upper case (`levenshtein(&format!("{a}a"), &format!("{b}a")) == result`).
    TextBoth {
        /// The first string's index.
        first: usize,
        /// The second's.
        second: usize,
        /// What is done to both.
        op: TextOp,
    },
    /// Two sequences or lists of one type changed alike: reversed, or written twice
    /// (`dot(&reverse(xs), &reverse(ys)) == result`).
    SeqBoth {
        /// The first sequence's index.
        first: usize,
        /// The second's.
        second: usize,
        /// What is done to both.
        op: SeqOp,
    },
    /// One parameter given another's value, of the same type: a function of two arguments at
    /// equal ones (`hamming(a, a) == Ok(0)`, `gcd(a, a) == a`).
    Copy {
        /// The parameter replaced.
        param: usize,
        /// The parameter whose value it takes.
        from: usize,
    },
    /// One float parameter reflected about another of its type, `2·y - x`: a density's or a
    /// distribution's symmetry about its mean (`pdf(2.0 * mean - x, mean, sd) == result`),
    /// which no fixed point of reflection states.
    ReflectAbout {
        /// The parameter reflected.
        param: usize,
        /// The parameter it is reflected about.
        about: usize,
    },
    /// A sequence parameter is transformed twice: the input of a composite of two relations.
    SeqThen {
        /// The parameter's index.
        param: usize,
        /// The first transformation.
        first: SeqOp,
        /// The second.
        then: SeqOp,
    },
}

impl Transform {
    /// Every transformation discovery tries for a signature, in a fixed order.
    pub fn all(sig: &Signature) -> Vec<Transform> {
        let mut out = Vec::new();
        let numbers: Vec<usize> = (0..sig.params.len())
            .filter(|&p| sig.params[p].kind.is_number())
            .collect();
        for (p, param) in sig.params.iter().enumerate() {
            match param.kind {
                Kind::Float | Kind::Int => {
                    let (grid_a, grid_b): (&[f64], &[Const]) = if param.kind == Kind::Float {
                        (&FLOAT_A, &FLOAT_B)
                    } else {
                        (&INT_A, &INT_B)
                    };
                    for &a in grid_a {
                        for &b in grid_b {
                            if a != 1.0 || b.value != 0.0 {
                                out.push(Transform::Affine { param: p, a, b });
                            }
                        }
                    }
                    if param.kind == Kind::Float {
                        out.push(Transform::Reflect { param: p });
                    }
                    for (a, b) in PARTNERS.into_iter().chain([SQUARE]) {
                        out.push(Transform::Product { param: p, a, b });
                    }
                    let scales: &[f64] = match sig.output {
                        Kind::Str => &DECIMAL_SCALES,
                        Kind::IntSeq => &BINARY_SCALES,
                        _ => &[],
                    };
                    // Not past the type's largest value, which no input of it times the
                    // factor fits (`1000 * n` of a `u8`).
                    if param.kind == Kind::Int {
                        let largest = param.int_range().1;
                        for &a in scales.iter().filter(|&&a| a as i128 <= largest) {
                            out.push(Transform::Affine {
                                param: p,
                                a,
                                b: Const::lit(0.0),
                            });
                        }
                    }
                }
                Kind::FloatSeq | Kind::IntSeq => {
                    for op in SEQ_OPS {
                        let float_only = matches!(op, SeqOp::IncludeMean | SeqOp::Scale(0.5));
                        if param.kind == Kind::FloatSeq || !float_only {
                            out.push(Transform::Seq { param: p, op });
                        }
                    }
                    let element = match param.kind {
                        Kind::FloatSeq => Kind::Float,
                        _ => Kind::Int,
                    };
                    if sig.output == element {
                        out.push(Transform::Seq {
                            param: p,
                            op: SeqOp::IncludeResult,
                        });
                    }
                    for first in COMPOSITE_FIRST {
                        for then in COMPOSITE_THEN {
                            out.push(Transform::SeqThen {
                                param: p,
                                first,
                                then,
                            });
                        }
                    }
                }
                Kind::Str => {
                    for op in TEXT_OPS {
                        out.push(Transform::Text { param: p, op });
                    }
                    // Its separators added at either end.
                    let pieces = sig
                        .separators
                        .iter()
                        .filter(|&&(q, _)| q == p)
                        .filter_map(|&(_, c)| punctuation(c));
                    for piece in pieces {
                        for op in [TextOp::Appended(piece), TextOp::Prepended(piece)] {
                            out.push(Transform::Text { param: p, op });
                        }
                    }
                }
                Kind::List => {
                    for op in LIST_OPS {
                        out.push(Transform::Seq { param: p, op });
                    }
                    // Booleans inverted, each in its place.
                    if param.element_ty().as_deref() == Some("bool") {
                        out.push(Transform::Seq {
                            param: p,
                            op: SeqOp::Negate,
                        });
                    }
                }
                // A letter in the other case.
                Kind::Char => {
                    for op in [TextOp::Upper, TextOp::Lower] {
                        out.push(Transform::Text { param: p, op });
                    }
                }
                // An array of numbers, as a sequence whose length is its type's.
                // Of integers never halved; of unsigned ones never negated or moved down, which
                // a pasted relation could not write in their type.
                Kind::Record if param.array_of().is_some() => {
                    let floats = param.array_of() == Some(Kind::Float);
                    let unsigned = param.element_ty().is_some_and(|e| e.starts_with('u'));
                    for op in ARRAY_OPS {
                        let halved = op == SeqOp::Scale(0.5);
                        let down = matches!(op, SeqOp::Negate | SeqOp::Translate(-3.0));
                        if (floats || !halved) && !(unsigned && down) {
                            out.push(Transform::Seq { param: p, op });
                        }
                    }
                }
                // Compared whole, moved by nothing (but swapped with another of their type).
                Kind::Bool | Kind::Record | Kind::Option | Kind::Result => {}
            }
        }
        // A sequence and a number moved together, as order statistics with a probability, a
        // weighted or a scaled summary move: negated with the number negated, or a float
        // reflected about 1 (the complement of a probability or a fraction), scaled or
        // translated with it.
        for (s, sp) in sig.params.iter().enumerate() {
            if !sp.kind.is_seq() {
                continue;
            }
            for &p in &numbers {
                let float = sig.params[p].kind == Kind::Float;
                for (op, a, b) in [
                    (SeqOp::Negate, -1.0, 1.0),
                    (SeqOp::Negate, -1.0, 0.0),
                    (SeqOp::Scale(2.0), 2.0, 0.0),
                    (SeqOp::Translate(1.0), 1.0, 1.0),
                ] {
                    // `-k` is no value of an unsigned `k`; an integer's complement would need
                    // the range it lies in, which its type does not say.
                    if a < 0.0 && (sig.params[p].is_unsigned() || (!float && b == 1.0)) {
                        continue;
                    }
                    out.push(Transform::SeqWith {
                        seq: s,
                        op,
                        param: p,
                        a,
                        b: Const::lit(b),
                    });
                }
            }
        }
        // The whole input moved together, where it has two float parameters or more (numbers
        // alone are scaled together below).
        let floats = sig
            .params
            .iter()
            .filter(|p| matches!(p.kind, Kind::Float | Kind::FloatSeq))
            .count();
        let any_seq = sig.params.iter().any(|p| p.kind == Kind::FloatSeq);
        if floats > 1 {
            let moved = |a, b, except| Transform::AllMoved { a, b, except };
            out.push(moved(1.0, 1.0, None));
            if any_seq {
                out.push(moved(-1.0, 0.0, None));
                out.push(moved(2.0, 0.0, None));
            }
            // Of three or more, all but one moved together: an interpolation's ends without
            // its `t`, a range's bounds and value without its step.
            if floats > 2 {
                for (p, param) in sig.params.iter().enumerate() {
                    if matches!(param.kind, Kind::Float | Kind::FloatSeq) {
                        out.push(moved(1.0, 1.0, Some(p)));
                        out.push(moved(2.0, 0.0, Some(p)));
                    }
                }
            }
        }
        let float_numbers = sig.params.iter().filter(|p| p.kind == Kind::Float).count();
        if float_numbers > 1 && sig.output.is_number() {
            out.push(Transform::Origin);
        }
        // One number moved by another of its type; a difference only where the type has
        // negative values (`a - b` of unsigned numbers fails for `a < b`).
        for &p in &numbers {
            for &q in &numbers {
                if p != q && sig.params[p].ty == sig.params[q].ty {
                    out.push(Transform::Shift {
                        param: p,
                        by: q,
                        sign: 1.0,
                    });
                    if !sig.params[p].is_unsigned() {
                        out.push(Transform::Shift {
                            param: p,
                            by: q,
                            sign: -1.0,
                        });
                    }
                }
            }
        }
        // Two strings, sequences or lists of one type changed alike, and one given the other's
        // value: what a person writes of a distance, a similarity or a comparison. Equal
        // arguments only of a function of two of that type (`gcd(a, a)`, `hamming(a, a)`):
        // of eight coordinates, fifty-six such runs would say little and cost much.
        let of_type = |ty: &str| sig.params.iter().filter(|p| p.ty == ty).count();
        for p in 0..sig.params.len() {
            for q in 0..sig.params.len() {
                if p == q || sig.params[p].ty != sig.params[q].ty {
                    continue;
                }
                if of_type(&sig.params[p].ty) <= PAIRED {
                    out.push(Transform::Copy { param: q, from: p });
                    if sig.params[p].kind == Kind::Float {
                        out.push(Transform::ReflectAbout { param: q, about: p });
                    }
                }
                if p > q {
                    continue;
                }
                match sig.params[p].kind {
                    Kind::Str => {
                        for op in TEXT_OPS {
                            out.push(Transform::TextBoth {
                                first: p,
                                second: q,
                                op,
                            });
                        }
                    }
                    Kind::FloatSeq | Kind::IntSeq | Kind::List => {
                        // Not permuted: a pasted relation draws each permutation apart, and
                        // pairs of elements would not stay together.
                        for op in [SeqOp::Reverse, SeqOp::Duplicate] {
                            out.push(Transform::SeqBoth {
                                first: p,
                                second: q,
                                op,
                            });
                        }
                    }
                    // Two arrays of numbers turned alike, their length kept: the same
                    // component of each stays paired.
                    Kind::Record if sig.params[p].array_of().is_some() => {
                        for op in [SeqOp::Reverse, SeqOp::RotateLeft] {
                            out.push(Transform::SeqBoth {
                                first: p,
                                second: q,
                                op,
                            });
                        }
                    }
                    _ => {}
                }
            }
        }
        // Integer indices counted down together, or one from the other's end.
        let ints: Vec<usize> = (0..sig.params.len())
            .filter(|&p| sig.params[p].kind == Kind::Int)
            .collect();
        for &p in &ints {
            for &q in &ints {
                if p < q {
                    out.push(Transform::BothDown {
                        first: p,
                        second: q,
                    });
                }
                if p != q && sig.params[p].ty == sig.params[q].ty {
                    out.push(Transform::Complement { param: p, of: q });
                }
            }
        }
        // Special values of a parameter where the others can carry the result: of a function
        // of one number, `f(0)` and `f(1)` are constants, properties of no input.
        if sig.params.len() > 1 {
            for &p in &numbers {
                for value in [0.0, 1.0] {
                    out.push(Transform::Special { param: p, value });
                }
            }
        }
        for (p, param) in sig.params.iter().enumerate() {
            let own = param.kind == sig.output && same_type(&param.ty, &sig.output_ty);
            if own || sig.in_place == Some(p) {
                out.push(Transform::OnResult { param: p });
            }
            // The function composed with itself across the other parameter, where a result can
            // be an argument again: of functions of two (a root and its degree, a power, a
            // rotation and its count), at most four runs.
            if own && sig.params.len() == 2 {
                for &q in numbers.iter().filter(|&&q| q != p) {
                    for value in COMPOSED {
                        out.push(Transform::Nested {
                            param: p,
                            other: q,
                            value,
                        });
                    }
                }
            }
        }
        if numbers.len() > 1 {
            for a in [-1.0, 2.0, 0.5] {
                if a != 0.5 || numbers.iter().all(|&p| sig.params[p].kind == Kind::Float) {
                    out.push(Transform::ScaleAll { a });
                }
            }
        }
        for i in 0..sig.params.len() {
            for j in i + 1..sig.params.len() {
                if sig.params[i].kind == sig.params[j].kind && sig.params[i].ty == sig.params[j].ty
                {
                    out.push(Transform::Swap { i, j });
                }
            }
        }
        // Through the other functions of the crate given, where the types allow: a
        // parameter, or the result in a parameter's place. Last, so that the others keep
        // their places whether or not other functions are given.
        for (k, g) in sig.siblings.iter().enumerate() {
            let [arg] = g.params.as_slice() else {
                continue;
            };
            for (p, param) in sig.params.iter().enumerate() {
                let makes = g.output == param.kind && same_type(&g.output_ty, &param.ty);
                if makes && arg.kind == param.kind && same_type(&arg.ty, &param.ty) {
                    out.push(Transform::Through {
                        param: p,
                        sibling: k,
                    });
                }
                if makes && (takes_result(sig, g) || takes_inner(sig, g)) {
                    out.push(Transform::ResultThrough {
                        param: p,
                        sibling: k,
                    });
                }
            }
        }
        // The steps after which the result was seen to come back (`period`), last: a
        // proposal's follow-ups are numbered in this list, and those of a discovery that
        // found no period are numbered alike.
        for &(p, step) in &sig.periods {
            out.push(Transform::Affine {
                param: p,
                a: 1.0,
                b: Const::lit(step as f64),
            });
        }
        out
    }

    /// The calls a nested one is compared with, the other parameter times the value or plus
    /// it: `root(x, 2 * n)` and `root(x, n + 2)` for `root(root(x, n), 2)`.
    pub fn composed(&self) -> Vec<Transform> {
        let Transform::Nested { other, value, .. } = *self else {
            return Vec::new();
        };
        [(value, 0.0), (1.0, value)]
            .into_iter()
            .filter(|&(a, b)| a != 1.0 || b != 0.0)
            .map(|(a, b)| Transform::Affine {
                param: other,
                a,
                b: Const::lit(b),
            })
            .collect()
    }

    /// The sequence parameter whose element the follow-up's text reads (`xs[0]`,
    /// `largest(xs)`, `xs[1..]`): a relation with it needs a guard that rules out an empty one.
    pub fn needs_element(&self) -> Option<usize> {
        let reads = |op: SeqOp| {
            matches!(
                op,
                SeqOp::IncludeFirst | SeqOp::IncludeMean | SeqOp::IncludeMax | SeqOp::ExcludeFirst
            )
        };
        match *self {
            Transform::Seq { param, op } if reads(op) => Some(param),
            Transform::SeqThen { param, first, then } if reads(first) || reads(then) => Some(param),
            _ => None,
        }
    }

    /// One number parameter moved a step: halved, or one more or less.
    pub fn is_scalar_step(&self) -> bool {
        matches!(*self, Transform::Affine { a, b, .. }
            if (a == 0.5 && b.value == 0.0) || (a == 1.0 && b.value.abs() == 1.0))
    }

    /// Whether this scales an integer by a power of ten (see [`DECIMAL_SCALES`]).
    pub fn is_decimal_scale(&self) -> bool {
        matches!(*self, Transform::Affine { a, b, .. }
            if b.value == 0.0 && DECIMAL_SCALES.contains(&a))
    }

    /// Where the follow-up's own integer arithmetic can overflow its parameter's type, the
    /// condition under which it does not, as Rust source (`a.checked_add(b).is_some()`): a
    /// relation holds where its follow-up can be made, and says so.
    pub fn fits_text(&self, sig: &Signature) -> Option<String> {
        let operand = |p: usize| {
            let text = sig.params[p].value_text();
            if text.starts_with('*') {
                format!("({text})")
            } else {
                text
            }
        };
        let int = |p: usize| sig.params[p].kind == Kind::Int;
        match *self {
            Transform::Shift { param, by, sign } if int(param) => {
                let op = if sign > 0.0 {
                    "checked_add"
                } else {
                    "checked_sub"
                };
                Some(format!(
                    "{}.{op}({}).is_some()",
                    operand(param),
                    sig.params[by].value_text()
                ))
            }
            Transform::BothDown { first, second } => Some(format!(
                "{}.checked_sub(1).is_some() && {}.checked_sub(1).is_some()",
                operand(first),
                operand(second)
            )),
            Transform::Complement { param, of } => Some(format!(
                "{}.checked_sub({}).is_some()",
                operand(of),
                sig.params[param].value_text()
            )),
            // The second factor made first, then the product.
            Transform::Product { param, a, b } if int(param) => {
                let x = operand(param);
                let second = match (a as i64, b.value as i64) {
                    (1, 0) => {
                        let arg = sig.params[param].value_text();
                        return Some(format!("{x}.checked_mul({arg}).is_some()"));
                    }
                    (1, b) => format!("{x}.checked_add({b})"),
                    (a, 0) => format!("{x}.checked_mul({a})"),
                    (a, b) => format!("{x}.checked_mul({a}).and_then(|v| v.checked_add({b}))"),
                };
                Some(format!(
                    "{second}.and_then(|y| {x}.checked_mul(y)).is_some()"
                ))
            }
            Transform::Affine { param, a, b } if int(param) => {
                let x = operand(param);
                let (a, b) = (a as i64, b.value as i64);
                Some(match (a, b) {
                    (1, b) if b >= 0 => format!("{x}.checked_add({b}).is_some()"),
                    (1, b) => format!("{x}.checked_sub({}).is_some()", -b),
                    (-1, 0) => format!("{x}.checked_neg().is_some()"),
                    (a, 0) => format!("{x}.checked_mul({a}).is_some()"),
                    (a, b) => {
                        format!("{x}.checked_mul({a}).and_then(|v| v.checked_add({b})).is_some()")
                    }
                })
            }
            _ => None,
        }
    }

    /// Whether the follow-up cannot be made of `input` within its parameters' types: its own
    /// integer arithmetic leaves them.
    pub fn overflows(&self, sig: &Signature, input: &[Value]) -> bool {
        match self.apply(input, None, 0) {
            None => true,
            Some(next) => next.iter().zip(&sig.params).any(|(v, param)| match v {
                Value::Int(i) => {
                    let (lo, hi) = param.int_range();
                    !(lo..=hi).contains(i)
                }
                _ => false,
            }),
        }
    }

    /// A stable name for the transformation: the follow-up's arguments as written in a
    /// relation (`reflect(x)` for a reflection, whose point is solved per call).
    pub fn id(&self, sig: &Signature) -> String {
        match self {
            Transform::Reflect { param } => format!("reflect({})", sig.params[*param].name),
            _ => self.arguments(sig, None).join(", "),
        }
    }

    /// Applies the transformation; `None` where it does not apply (an empty sequence, an
    /// integer that would overflow or is not whole). `center` is a reflection's solved point,
    /// or the result to append; `seed` draws the permutation.
    pub fn apply(&self, input: &[Value], center: Option<f64>, seed: u64) -> Option<Vec<Value>> {
        let mut out = input.to_vec();
        match *self {
            Transform::Affine { param, a, b } => {
                out[param] = affine(&input[param], a, b.value)?;
            }
            Transform::ScaleAll { a } => {
                for v in out.iter_mut() {
                    if v.kind().is_number() {
                        *v = affine(v, a, 0.0)?;
                    }
                }
            }
            Transform::Reflect { param } => {
                let x = input[param].number()?;
                out[param] = Value::Float(center? - x);
            }
            Transform::Swap { i, j } => out.swap(i, j),
            Transform::Seq {
                param,
                op: SeqOp::IncludeResult,
            } => {
                // The result, passed where a reflection's point is.
                let v = &input[param];
                let mut xs = v.elements()?;
                xs.push(center?);
                out[param] = v.seq_like(xs)?;
            }
            Transform::Seq { param, op } => {
                let v = &input[param];
                out[param] = match v {
                    Value::List(items) => Value::List(list_op(op, items.clone(), seed)?),
                    Value::Record(items) => Value::Record(array_op(op, items, seed)?),
                    _ => v.seq_like(seq_op(op, v.elements()?, seed)?)?,
                };
            }
            Transform::Product { param, a, b } => {
                out[param] = match (&input[param], affine(&input[param], a, b.value)?) {
                    (Value::Int(x), Value::Int(y)) => Value::Int(x.checked_mul(y)?),
                    (v, y) => v.number_like(v.number()? * y.number()?)?,
                };
            }
            Transform::SeqThen { param, first, then } => {
                let v = &input[param];
                let ys = seq_op(then, seq_op(first, v.elements()?, seed)?, seed)?;
                out[param] = v.seq_like(ys)?;
            }
            Transform::AllMoved { a, b, except } => {
                for (i, v) in out.iter_mut().enumerate() {
                    if except == Some(i) {
                        continue;
                    }
                    match v {
                        Value::Float(x) => *x = a * *x + b,
                        Value::FloatSeq(xs) => xs.iter_mut().for_each(|x| *x = a * *x + b),
                        _ => {}
                    }
                }
            }
            Transform::Origin => {
                for v in out.iter_mut() {
                    if let Value::Float(x) = v {
                        *x = 0.0;
                    }
                }
            }
            Transform::Shift { param, by, sign } => {
                let (x, y) = (&input[param], &input[by]);
                out[param] = match (x, y) {
                    (Value::Int(x), Value::Int(y)) => {
                        let moved = if sign > 0.0 {
                            x.checked_add(*y)
                        } else {
                            x.checked_sub(*y)
                        };
                        Value::Int(moved?)
                    }
                    _ => x.number_like(x.number()? + sign * y.number()?)?,
                };
            }
            Transform::Special { param, value } => {
                out[param] = input[param].number_like(value)?;
            }
            Transform::BothDown { first, second } => {
                for p in [first, second] {
                    let Value::Int(i) = input[p] else {
                        return None;
                    };
                    out[p] = Value::Int(i.checked_sub(1)?);
                }
            }
            Transform::Complement { param, of } => {
                let (Value::Int(k), Value::Int(n)) = (&input[param], &input[of]) else {
                    return None;
                };
                out[param] = Value::Int(n.checked_sub(*k)?);
            }
            // The result is needed: the observation makes this follow-up itself.
            Transform::OnResult { .. }
            | Transform::Nested { .. }
            | Transform::Through { .. }
            | Transform::ResultThrough { .. } => return None,
            Transform::TextBoth { first, second, op } => {
                let once = Transform::Text { param: first, op }.apply(input, center, seed)?;
                return Transform::Text { param: second, op }.apply(&once, center, seed);
            }
            // The same seed: the same permutation of both.
            Transform::SeqBoth { first, second, op } => {
                let once = Transform::Seq { param: first, op }.apply(input, center, seed)?;
                return Transform::Seq { param: second, op }.apply(&once, center, seed);
            }
            Transform::Copy { param, from } => out[param] = input[from].clone(),
            Transform::ReflectAbout { param, about } => {
                let x = &input[param];
                out[param] = x.number_like(2.0 * input[about].number()? - x.number()?)?;
            }
            Transform::Text { param, op } => {
                out[param] = match (&input[param], op) {
                    (Value::Str(s), op) => Value::Str(op.apply(s)?),
                    (Value::Char(c), TextOp::Upper) => Value::Char(c.to_ascii_uppercase()),
                    (Value::Char(c), TextOp::Lower) => Value::Char(c.to_ascii_lowercase()),
                    _ => return None,
                };
            }
            Transform::SeqWith {
                seq,
                op,
                param,
                a,
                b,
            } => {
                let v = &input[seq];
                out[seq] = v.seq_like(seq_op(op, v.elements()?, seed)?)?;
                let x = input[param].number()?;
                out[param] = input[param].number_like(a * x + b.value)?;
            }
        }
        Some(out)
    }

    /// The follow-up call's arguments as Rust source, one per parameter. `center` is the solved
    /// point of a reflection.
    pub fn arguments(&self, sig: &Signature, center: Option<f64>) -> Vec<String> {
        let plain: Vec<String> = sig.params.iter().map(|p| p.pass_unchanged()).collect();
        let mut out = plain.clone();
        match *self {
            Transform::Affine { param, a, b } => {
                let p = &sig.params[param];
                out[param] = p.pass(&affine_text(&p.value_text(), a, b, p.num_ty()));
            }
            Transform::ScaleAll { a } => {
                for (i, p) in sig.params.iter().enumerate() {
                    if p.kind.is_number() {
                        out[i] = p.pass(&affine_text(
                            &p.value_text(),
                            a,
                            Const::lit(0.0),
                            p.num_ty(),
                        ));
                    }
                }
            }
            Transform::Reflect { param } => {
                let p = &sig.params[param];
                let c = center.map(snap_text).unwrap_or_else(|| "c".into());
                out[param] = p.pass(&format!("{c} - {}", p.value_text()));
            }
            Transform::Swap { i, j } => out.swap(i, j),
            Transform::Seq { param, op } => {
                let p = &sig.params[param];
                out[param] = match op {
                    // A sub-slice needs no new vector when the parameter is a slice.
                    SeqOp::ExcludeFirst if p.by_ref() => format!("&{}[1..]", p.name),
                    SeqOp::Negate if p.kind == Kind::List => {
                        p.pass_owned(&format!("invite::mr::invert({})", p.slice_text()))
                    }
                    // An element that need not be `Copy`.
                    SeqOp::IncludeFirst if p.kind == Kind::List => p.pass_owned(&format!(
                        "invite::mr::include({}, {}[0].clone())",
                        p.slice_text(),
                        p.name
                    )),
                    _ => p.pass_owned(&seq_text(op, &p.slice_text(), &p.name, p.num_ty())),
                };
            }
            Transform::Product { param, a, b } => {
                let p = &sig.params[param];
                let x = p.value_text();
                let y = match (a, b.value) {
                    (1.0, 0.0) => x.clone(),
                    _ => format!("({})", affine_text(&x, a, b, p.num_ty())),
                };
                out[param] = p.pass(&format!("{x} * {y}"));
            }
            Transform::AllMoved { a, b, except } => {
                for (i, p) in sig.params.iter().enumerate() {
                    if except == Some(i) {
                        continue;
                    }
                    match p.kind {
                        Kind::Float => {
                            out[i] =
                                p.pass(&affine_text(&p.value_text(), a, Const::lit(b), p.num_ty()));
                        }
                        Kind::FloatSeq => {
                            let op = match (a, b) {
                                (1.0, b) => SeqOp::Translate(b),
                                (-1.0, _) => SeqOp::Negate,
                                (a, _) => SeqOp::Scale(a),
                            };
                            out[i] =
                                p.pass_owned(&seq_text(op, &p.slice_text(), &p.name, p.num_ty()));
                        }
                        _ => {}
                    }
                }
            }
            Transform::Origin => {
                for (i, p) in sig.params.iter().enumerate() {
                    if p.kind == Kind::Float {
                        out[i] = p.pass(&float_literal(0.0));
                    }
                }
            }
            Transform::Shift { param, by, sign } => {
                let (p, q) = (&sig.params[param], &sig.params[by]);
                let op = if sign > 0.0 { "+" } else { "-" };
                out[param] = p.pass(&format!("{} {op} {}", p.value_text(), q.value_text()));
            }
            Transform::BothDown { first, second } => {
                for i in [first, second] {
                    let p = &sig.params[i];
                    out[i] = p.pass(&format!("{} - 1", p.value_text()));
                }
            }
            Transform::Complement { param, of } => {
                let (p, q) = (&sig.params[param], &sig.params[of]);
                out[param] = p.pass(&format!("{} - {}", q.value_text(), p.value_text()));
            }
            Transform::Special { param, value } => {
                let p = &sig.params[param];
                let literal = match p.num_ty() {
                    NumTy::Int => format!("{value}"),
                    _ => float_literal(value),
                };
                out[param] = p.pass(&literal);
            }
            Transform::Text { param, op } if sig.params[param].kind == Kind::Char => {
                let p = &sig.params[param];
                let case = match op {
                    TextOp::Upper => "to_ascii_uppercase",
                    _ => "to_ascii_lowercase",
                };
                out[param] = p.pass(&format!("{}.{case}()", p.value_text()));
            }
            Transform::TextBoth { first, second, op } => {
                out = Transform::Text { param: first, op }.arguments(sig, center);
                out[second] = Transform::Text { param: second, op }
                    .arguments(sig, center)
                    .swap_remove(second);
            }
            Transform::SeqBoth { first, second, op } => {
                out = Transform::Seq { param: first, op }.arguments(sig, center);
                out[second] = Transform::Seq { param: second, op }
                    .arguments(sig, center)
                    .swap_remove(second);
            }
            Transform::Copy { param, from } => out[param] = sig.params[from].pass_unchanged(),
            Transform::ReflectAbout { param, about } => {
                let (p, q) = (&sig.params[param], &sig.params[about]);
                out[param] = p.pass(&format!(
                    "{} * {} - {}",
                    float_literal(2.0),
                    q.value_text(),
                    p.value_text()
                ));
            }
            Transform::Text { param, op } => {
                let p = &sig.params[param];
                let changed = op.text(&p.name);
                out[param] = if p.by_ref() {
                    format!("&{changed}")
                } else {
                    changed
                };
            }
            Transform::Nested {
                param,
                other,
                value,
            } => {
                out = Transform::Special {
                    param: other,
                    value,
                }
                .arguments(sig, None);
                out[param] = Transform::OnResult { param }
                    .arguments(sig, None)
                    .swap_remove(param);
            }
            Transform::Through { param, sibling } => {
                let p = &sig.params[param];
                let owned = match p.by_ref() {
                    true => format!("{}.to_owned()", p.name),
                    false => p.pass_unchanged(),
                };
                out[param] = sibling_call(&sig.siblings[sibling], &p.slice_text(), &owned, p);
            }
            Transform::ResultThrough { param, sibling } => {
                let p = &sig.params[param];
                out[param] =
                    sibling_call(&sig.siblings[sibling], "&result", "result.to_owned()", p);
            }
            Transform::OnResult { param } => {
                let p = &sig.params[param];
                out[param] = if matches!(
                    p.kind,
                    Kind::FloatSeq | Kind::IntSeq | Kind::List | Kind::Str | Kind::Record
                ) {
                    p.pass_owned("result")
                } else {
                    p.pass("result")
                };
            }
            Transform::SeqWith {
                seq,
                op,
                param,
                a,
                b,
            } => {
                let sp = &sig.params[seq];
                out[seq] = sp.pass_owned(&seq_text(op, &sp.slice_text(), &sp.name, sp.num_ty()));
                let p = &sig.params[param];
                out[param] = p.pass(&affine_text(&p.value_text(), a, b, p.num_ty()));
            }
            Transform::SeqThen { param, first, then } => {
                let p = &sig.params[param];
                let inner = match first {
                    SeqOp::ExcludeFirst if p.by_ref() => format!("&{}[1..]", p.name),
                    _ => format!("&{}", seq_text(first, &p.slice_text(), &p.name, p.num_ty())),
                };
                out[param] = p.pass_owned(&seq_text(then, &inner, &p.name, p.num_ty()));
            }
        }
        out
    }
}

/// A call of the other function `g` on a value given as a reference, `by_ref`, and as an
/// owned value, `owned`: whichever its parameter takes; passed on to the parameter `p` as its
/// type wants (a borrowed result given on as it is to a borrowing parameter, and owned for an
/// owning one).
fn sibling_call(g: &Signature, by_ref: &str, owned: &str, p: &super::signature::Param) -> String {
    let arg = match g.params.first().is_some_and(|a| a.by_ref()) {
        true => by_ref,
        false => owned,
    };
    let call = format!("{}({arg})", g.name);
    match (g.output_ty.trim_start().starts_with('&'), p.by_ref()) {
        (true, true) => call,
        (true, false) => format!("{call}.to_owned()"),
        (false, _) => p.pass_owned(&call),
    }
}

/// Whether the other function `g` takes one value of `sig`'s result type.
pub(super) fn takes_result(sig: &Signature, g: &Signature) -> bool {
    matches!(g.params.as_slice(), [arg] if arg.kind == sig.output && same_type(&arg.ty, &sig.output_ty))
}

/// Whether the other function `g` takes the parts of `sig`'s tuple result, one argument each
/// in their order (`ldexp(m, e)` of `frexp(x) -> (f64, i32)`): a round trip through it
/// starts from the whole result, spread.
pub(super) fn takes_parts(sig: &Signature, g: &Signature) -> bool {
    let Some(parts) = super::project::part_types(&sig.output_ty) else {
        return false;
    };
    let tuple = sig.output_ty.trim_start_matches('&').starts_with('(');
    tuple
        && g.params.len() >= 2
        && g.params.len() == parts.len()
        && g.params
            .iter()
            .zip(&parts)
            .all(|(q, t)| same_type(&q.ty, t))
}

/// Whether the other function `g` takes the function's own parameters, two or more of the
/// same types in the same order: an inverse in one of them, the others shared (a
/// distribution's `cdf(x, mean, sd)` of its `ppf(p, mean, sd)`).
pub(super) fn shares_params(sig: &Signature, g: &Signature) -> bool {
    g.params.len() >= 2
        && g.params.len() == sig.params.len()
        && g.params
            .iter()
            .zip(&sig.params)
            .all(|(q, p)| q.kind == p.kind && same_type(&q.ty, &p.ty))
}

/// Whether the other function `g` takes one value of the type inside `sig`'s `Option` or
/// `Result` result: a round trip through it starts from the value inside `Some`/`Ok`, and
/// its relations are the value's (`decode(&encode(&result.clone().unwrap())).unwrap() ==
/// result.clone().unwrap()`), not the whole result's.
pub(super) fn takes_inner(sig: &Signature, g: &Signature) -> bool {
    let composite = matches!(sig.output, Kind::Option | Kind::Result);
    composite
        && matches!(g.params.as_slice(), [arg]
            if super::project::inner_type(&sig.output_ty).is_some_and(|t| same_type(&arg.ty, &t)))
}

/// Whether a parameter written as `param` can take a result written as `output`: the same
/// number type, or sequences of the same elements (`&[f64]` and `Vec<f64>`); a text borrowed,
/// owned or either (`&str`, `String`, `Cow<'_, str>`).
pub(super) fn same_type(param: &str, output: &str) -> bool {
    let elements = |t: &str| {
        let t = t.trim_start_matches('&').trim();
        // What a `Cow` holds: its last argument, after any lifetime.
        let t = t
            .strip_prefix("Cow<")
            .and_then(|t| t.strip_suffix('>'))
            .map_or(t, |inside| {
                inside.rsplit(',').next().unwrap_or(inside).trim()
            });
        t.strip_prefix("Vec<")
            .and_then(|t| t.strip_suffix('>'))
            .or_else(|| t.strip_prefix('[').and_then(|t| t.strip_suffix(']')))
            .map_or_else(|| t.to_string(), |e| format!("[{e}]"))
    };
    let elements = |t: &str| match elements(t).as_str() {
        "str" => "String".to_string(),
        other => other.to_string(),
    };
    elements(param) == elements(output)
}

/// `a·x + b` as Rust source, with the ones, zeros and signs written away.
pub fn affine_text(x: &str, a: f64, b: Const, ty: NumTy) -> String {
    let scaled = if a == 1.0 {
        x.to_string()
    } else if a == -1.0 && b.value > 0.0 {
        // `1.0 - tau`, as a reflection is written.
        return format!("{} - {x}", b.text(ty));
    } else if a == -1.0 {
        format!("-{x}")
    } else {
        format!("{} * {x}", Const::lit(a).text(ty))
    };
    if b.value == 0.0 {
        scaled
    } else if b.value < 0.0 {
        format!("{scaled} - {}", b.abs().text(ty))
    } else {
        format!("{scaled} + {}", b.text(ty))
    }
}

/// A solved value as source: the simple constant it equals, or the literal.
fn snap_text(x: f64) -> String {
    for c in SNAP {
        for s in [1.0, -1.0] {
            if (s * c.value - x).abs() <= 1e-12 * x.abs().max(1.0) {
                return Const {
                    value: s * c.value,
                    name: c.name,
                }
                .text(NumTy::F64);
            }
        }
    }
    float_literal(x)
}

fn seq_text(op: SeqOp, s: &str, name: &str, ty: NumTy) -> String {
    let lit = |x: f64| Const::lit(x).text(ty);
    match op {
        SeqOp::Permute => format!("invite::mr::permute({s})"),
        SeqOp::Reverse => format!("invite::mr::reverse({s})"),
        SeqOp::Sort => format!("invite::mr::sorted({s})"),
        SeqOp::IncludeFirst => format!("invite::mr::include({s}, {name}[0])"),
        SeqOp::IncludeMean => format!("invite::mr::include({s}, invite::mr::mean({s}))"),
        SeqOp::IncludeMax => format!("invite::mr::include({s}, invite::mr::largest({s}))"),
        SeqOp::IncludeValue(v) => format!("invite::mr::include({s}, {})", lit(v)),
        SeqOp::PrependValue(v) => format!("invite::mr::prepend({s}, {})", lit(v)),
        SeqOp::RotateLeft => format!("invite::mr::rotate_left({s})"),
        SeqOp::IncludeResult => format!("invite::mr::include({s}, result)"),
        SeqOp::ExcludeFirst => format!("{name}[1..].to_vec()"),
        SeqOp::Duplicate => format!("invite::mr::concatenate({s}, {s})"),
        SeqOp::Scale(c) => format!("invite::mr::multiply({s}, {})", lit(c)),
        SeqOp::Translate(c) => format!("invite::mr::add({s}, {})", lit(c)),
        SeqOp::Negate => format!("invite::mr::negate({s})"),
    }
}

/// `a·x + b` of a number, in its kind: exact for an integer (`None` where it overflows or a
/// coefficient is not whole).
fn affine(v: &Value, a: f64, b: f64) -> Option<Value> {
    match v {
        Value::Int(i) if a.fract() == 0.0 && b.fract() == 0.0 => Some(Value::Int(
            i.checked_mul(a as i128)?.checked_add(b as i128)?,
        )),
        v => v.number_like(a * v.number()? + b),
    }
}

/// A list reordered, cut or lengthened (`None` for the operations that need numbers, and where
/// the operation needs an element and there is none). The permutation is the one
/// [`seq_op`] draws for the same seed.
fn list_op(op: SeqOp, mut xs: Vec<Value>, seed: u64) -> Option<Vec<Value>> {
    match op {
        SeqOp::Permute => xs.shuffle(&mut rand::rngs::SmallRng::seed_from_u64(seed)),
        SeqOp::Reverse => xs.reverse(),
        SeqOp::IncludeFirst => xs.push(xs.first()?.clone()),
        SeqOp::ExcludeFirst => {
            xs.first()?;
            xs.remove(0);
        }
        SeqOp::Duplicate => xs.extend(xs.clone()),
        SeqOp::Negate => {
            for x in &mut xs {
                let Value::Bool(b) = x else {
                    return None;
                };
                *b = !*b;
            }
        }
        _ => return None,
    }
    Some(xs)
}

/// An array of numbers moved as a sequence, its length kept (`None` where the operation
/// changes it, or makes a number its type cannot hold: half an integer).
fn array_op(op: SeqOp, items: &[Value], seed: u64) -> Option<Vec<Value>> {
    let xs: Vec<f64> = items.iter().map(Value::number).collect::<Option<_>>()?;
    let ys = seq_op(op, xs, seed)?;
    if ys.len() != items.len() {
        return None;
    }
    items
        .iter()
        .zip(ys)
        .map(|(item, y)| item.number_like(y))
        .collect()
}

/// The transformed elements; `None` when the operation needs an element and there is none.
fn seq_op(op: SeqOp, mut xs: Vec<f64>, seed: u64) -> Option<Vec<f64>> {
    match op {
        SeqOp::Permute => xs.shuffle(&mut rand::rngs::SmallRng::seed_from_u64(seed)),
        SeqOp::Reverse => xs.reverse(),
        SeqOp::Sort => xs.sort_by(|a, b| a.total_cmp(b)),
        SeqOp::IncludeFirst => xs.push(*xs.first()?),
        SeqOp::IncludeMean => {
            xs.first()?;
            xs.push(xs.iter().sum::<f64>() / xs.len() as f64);
        }
        SeqOp::IncludeMax => xs.push(xs.iter().copied().reduce(f64::max)?),
        SeqOp::IncludeValue(v) => xs.push(v),
        SeqOp::PrependValue(v) => xs.insert(0, v),
        SeqOp::RotateLeft => {
            if !xs.is_empty() {
                xs.rotate_left(1);
            }
        }
        // Made in `Transform::apply`, from the call's result.
        SeqOp::IncludeResult => return None,
        SeqOp::ExcludeFirst => {
            xs.first()?;
            xs.remove(0);
        }
        SeqOp::Duplicate => xs.extend(xs.clone()),
        SeqOp::Scale(c) => xs.iter_mut().for_each(|x| *x *= c),
        SeqOp::Translate(c) => xs.iter_mut().for_each(|x| *x += c),
        SeqOp::Negate => xs.iter_mut().for_each(|x| *x = -*x),
    }
    Some(xs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_array_of_numbers_is_moved_as_a_sequence_and_a_tuple_is_not() {
        let seq_ops = |t: &str| {
            let sig = Signature::parse(t, &[Kind::Record], Kind::Float).unwrap();
            Transform::all(&sig)
                .into_iter()
                .filter_map(|t| match t {
                    Transform::Seq { op, .. } => Some(op),
                    _ => None,
                })
                .collect::<Vec<SeqOp>>()
        };
        assert_eq!(seq_ops("fn f(a: [f64; 3]) -> f64"), ARRAY_OPS);
        // Integers are never halved, unsigned ones never negated or moved down.
        let ints = seq_ops("fn f(a: &[i32; 3]) -> f64");
        assert!(ints.contains(&SeqOp::Scale(2.0)) && !ints.contains(&SeqOp::Scale(0.5)));
        assert_eq!(ints.len(), ARRAY_OPS.len() - 1);
        let unsigned = seq_ops("fn f(a: [u32; 3]) -> f64");
        assert!(!unsigned.contains(&SeqOp::Negate) && !unsigned.contains(&SeqOp::Translate(-3.0)));
        assert!(unsigned.contains(&SeqOp::Translate(1.0)));
        assert_eq!(unsigned.len(), ARRAY_OPS.len() - 3);
        // A tuple's parts, and an array of what is no number, are not a sequence.
        assert!(seq_ops("fn f(p: (f64, f64, f64)) -> f64").is_empty());
        assert!(seq_ops("fn f(p: [bool; 3]) -> f64").is_empty());
        // Two of them moved together, their components paired: arrays, not tuples.
        let both = |t: &str| {
            let sig = Signature::parse(t, &[Kind::Record; 2], Kind::Float).unwrap();
            Transform::all(&sig)
                .into_iter()
                .filter_map(|t| match t {
                    Transform::SeqBoth { op, .. } => Some(op),
                    _ => None,
                })
                .collect::<Vec<SeqOp>>()
        };
        assert_eq!(
            both("fn dot(a: [f64; 3], b: [f64; 3]) -> f64"),
            [SeqOp::Reverse, SeqOp::RotateLeft]
        );
        assert!(both("fn f(p: (f64, f64), q: (f64, f64)) -> f64").is_empty());
    }

    #[test]
    fn a_function_shares_the_parameters_only_of_the_same_types() {
        let sig = |t: &str| Signature::parse(t, &[Kind::Float; 2], Kind::Float).unwrap();
        let f = sig("fn f(a: f64, b: f64) -> f64");
        assert!(shares_params(&f, &sig("fn g(x: f64, y: f64) -> f64")));
        // Floats of another width: an inverse would take the result in another type.
        assert!(!shares_params(&f, &sig("fn g(x: f32, y: f32) -> f64")));
        assert!(!shares_params(&f, &sig("fn g(x: f64, y: f32) -> f64")));
        // One parameter is no sharing: a function of one is tried on the result.
        let one = Signature::parse("fn f(a: f64) -> f64", &[Kind::Float], Kind::Float).unwrap();
        let g = Signature::parse("fn g(x: f64) -> f64", &[Kind::Float], Kind::Float).unwrap();
        assert!(!shares_params(&one, &g));
    }

    #[test]
    fn a_string_is_written_into_a_format_by_name_or_as_an_argument() {
        assert_eq!(TextOp::Spaced.text("s"), "format!(\"{s} {s}\")");
        assert_eq!(TextOp::Appended(" a").text("s"), "format!(\"{s} a\")");
        // A piece is written so that the format string reads it back.
        assert_eq!(TextOp::Appended("/").text("path"), "format!(\"{path}/\")");
        assert_eq!(TextOp::Prepended("{").text("s"), "format!(\"{{{s}\")");
        assert_eq!(TextOp::Appended("}").text("s"), "format!(\"{s}}}\")");
        assert_eq!(TextOp::Appended("\"").text("s"), "format!(\"{s}\\\"\")");
        assert_eq!(TextOp::Prepended("\\").text("s"), "format!(\"\\\\{s}\")");
        assert_eq!(
            TextOp::Prepended(" ").text("name_2"),
            "format!(\" {name_2}\")"
        );
        // A receiver's field cannot be captured by name.
        assert_eq!(
            TextOp::Spaced.text("self.s"),
            "format!(\"{} {}\", self.s, self.s)"
        );
        assert_eq!(
            TextOp::Appended("a").text("self.s"),
            "format!(\"{}a\", self.s)"
        );
        assert_eq!(
            TextOp::Prepended("a").text("self.s"),
            "format!(\"a{}\", self.s)"
        );
        assert_eq!(TextOp::Spaced.apply("ab").as_deref(), Some("ab ab"));
        assert_eq!(TextOp::Prepended(" ").apply("ab").as_deref(), Some(" ab"));
        // Lines: written twice as two, and every line indented, a blank one and the last
        // too, with no line added after a final line break.
        assert_eq!(TextOp::Lined.apply("a b").as_deref(), Some("a b\na b"));
        assert_eq!(TextOp::Lined.text("s"), "format!(\"{s}\\n{s}\")");
        assert_eq!(
            TextOp::Lined.text("self.s"),
            "format!(\"{}\\n{}\", self.s, self.s)"
        );
        assert_eq!(
            TextOp::Indented.apply("a\n\n\tb\n").as_deref(),
            Some(" a\n \n \tb\n")
        );
        assert_eq!(TextOp::Indented.apply("").as_deref(), Some(""));
        assert_eq!(
            TextOp::Indented.text("s"),
            "s.split_inclusive('\\n').map(|l| format!(\" {l}\")).collect::<String>()"
        );
    }

    #[test]
    fn another_function_of_the_crate_takes_a_parameter_or_the_result_where_types_fit() {
        let text = |t: &str| Signature::parse(t, &[Kind::Str], Kind::Str).unwrap();
        let mut escape = Signature::parse(
            "fn escape(s: &str, n: usize) -> String",
            &[Kind::Str, Kind::Int],
            Kind::Str,
        )
        .unwrap();
        escape.siblings = vec![
            text("fn unescape(t: &str) -> String"),
            text("fn shout(t: String) -> String"),
            Signature::parse("fn len(t: &str) -> usize", &[Kind::Str], Kind::Int).unwrap(),
            // An integer of another type than the parameter's: no follow-up.
            Signature::parse("fn short(t: &str) -> u8", &[Kind::Str], Kind::Int).unwrap(),
        ];
        let through: Vec<Transform> = Transform::all(&escape)
            .into_iter()
            .filter(|t| {
                matches!(
                    t,
                    Transform::Through { .. } | Transform::ResultThrough { .. }
                )
            })
            .collect();
        // Each string-to-string function on the string and on the result, in the string's
        // place; a count of a string makes no string, but the result's count is a number of
        // the number's type, and takes its place.
        assert_eq!(
            through,
            vec![
                Transform::Through {
                    param: 0,
                    sibling: 0
                },
                Transform::ResultThrough {
                    param: 0,
                    sibling: 0
                },
                Transform::Through {
                    param: 0,
                    sibling: 1
                },
                Transform::ResultThrough {
                    param: 0,
                    sibling: 1
                },
                Transform::ResultThrough {
                    param: 1,
                    sibling: 2
                },
            ]
        );
        // As Rust: by reference or by value, as the other function takes it.
        let args = |t: &Transform| t.arguments(&escape, None);
        assert_eq!(args(&through[0]), ["&unescape(s)", "n"]);
        assert_eq!(args(&through[1]), ["&unescape(&result)", "n"]);
        assert_eq!(args(&through[2]), ["&shout(s.to_owned())", "n"]);
        assert_eq!(args(&through[3]), ["&shout(result.to_owned())", "n"]);
        assert_eq!(args(&through[4]), ["s", "len(&result)"]);
        // Of an owned parameter.
        let mut owned = text("fn trim(s: String) -> String");
        owned.siblings = vec![text("fn unescape(t: &str) -> String")];
        assert_eq!(
            Transform::Through {
                param: 0,
                sibling: 0
            }
            .arguments(&owned, None),
            ["unescape(&s)"]
        );
        // A borrowed result of the other function, given on as it is to a borrowing
        // parameter and owned to an owning one.
        let trim = Signature::parse("fn trim(t: &str) -> &str", &[Kind::Str], Kind::Str).unwrap();
        owned.siblings = vec![trim.clone()];
        let through_trim = Transform::Through {
            param: 0,
            sibling: 0,
        };
        assert_eq!(
            through_trim.arguments(&owned, None),
            ["trim(&s).to_owned()"]
        );
        let mut borrowed = text("fn shout(s: &str) -> String");
        borrowed.siblings = vec![trim];
        assert_eq!(through_trim.arguments(&borrowed, None), ["trim(s)"]);
        // Run in observation only, with the other function at hand.
        assert_eq!(through[0].apply(&[Value::Str("a".into())], None, 0), None);
        // No other function given, no such follow-up.
        let alone = text("fn escape(s: &str) -> String");
        assert!(!Transform::all(&alone).iter().any(|t| matches!(
            t,
            Transform::Through { .. } | Transform::ResultThrough { .. }
        )));
    }

    #[test]
    fn a_round_trip_starts_from_the_value_inside_where_the_other_function_takes_it() {
        let sig = |t: &str, output: Kind| Signature::parse(t, &[Kind::Str], output).unwrap();
        let writer = |t: &str| Signature::parse(t, &[Kind::IntSeq], Kind::Str).unwrap();
        let mut unhex = sig("fn unhex(s: &str) -> Option<Vec<u8>>", Kind::Option);
        unhex.siblings = vec![
            writer("fn hex(v: &[u8]) -> String"),
            writer("fn wide(v: &[u16]) -> String"),
            Signature::parse(
                "fn all(v: Option<Vec<u8>>) -> String",
                &[Kind::Option],
                Kind::Str,
            )
            .unwrap(),
        ];
        let trips: Vec<Transform> = Transform::all(&unhex)
            .into_iter()
            .filter(|t| matches!(t, Transform::ResultThrough { .. }))
            .collect();
        // From the bytes inside, and from the whole `Option`; not from numbers of another type.
        assert_eq!(
            trips,
            vec![
                Transform::ResultThrough {
                    param: 0,
                    sibling: 0
                },
                Transform::ResultThrough {
                    param: 0,
                    sibling: 2
                },
            ]
        );
        assert!(takes_inner(&unhex, &unhex.siblings[0]));
        assert!(!takes_result(&unhex, &unhex.siblings[0]));
        assert!(!takes_inner(&unhex, &unhex.siblings[1]));
        assert!(!takes_inner(&unhex, &unhex.siblings[2]));
        assert!(takes_result(&unhex, &unhex.siblings[2]));
        // Of a result that is no `Option` or `Result`, nothing is inside.
        let mut bytes = sig("fn bytes(s: &str) -> Vec<u8>", Kind::IntSeq);
        bytes.siblings = vec![writer("fn hex(v: &[u8]) -> String")];
        assert!(!takes_inner(&bytes, &bytes.siblings[0]));
        assert!(takes_result(&bytes, &bytes.siblings[0]));
        // Nor is a function of two arguments taken.
        let mut two = unhex.clone();
        two.siblings = vec![Signature::parse(
            "fn hex2(v: &[u8], w: &[u8]) -> String",
            &[Kind::IntSeq, Kind::IntSeq],
            Kind::Str,
        )
        .unwrap()];
        assert!(!takes_inner(&two, &two.siblings[0]));
    }

    #[test]
    fn pairs_of_one_type_are_changed_alike_and_made_equal_only_where_they_are_few() {
        let two = Signature::parse(
            "fn d(a: &str, b: &str, n: u32) -> usize",
            &[Kind::Str, Kind::Str, Kind::Int],
            Kind::Int,
        )
        .unwrap();
        let all = Transform::all(&two);
        assert!(all.contains(&Transform::Copy { param: 1, from: 0 }));
        assert!(all.contains(&Transform::Copy { param: 0, from: 1 }));
        assert_eq!(
            all.iter()
                .filter(|t| matches!(
                    t,
                    Transform::TextBoth {
                        first: 0,
                        second: 1,
                        ..
                    }
                ))
                .count(),
            TEXT_OPS.len()
        );
        // A composition only of a function of two parameters.
        assert!(!all.iter().any(|t| matches!(t, Transform::Nested { .. })));
        let three = Signature::parse(
            "fn f(x: f64, y: f64, z: f64) -> f64",
            &[Kind::Float; 3],
            Kind::Float,
        )
        .unwrap();
        let all = Transform::all(&three);
        // Of three, each ordered pair: one given the other's value, one reflected about it.
        let count = |pick: fn(&Transform) -> bool| all.iter().filter(|t| pick(t)).count();
        assert_eq!(count(|t| matches!(t, Transform::Copy { .. })), 6);
        assert_eq!(count(|t| matches!(t, Transform::ReflectAbout { .. })), 6);
        assert!(all.contains(&Transform::ReflectAbout { param: 0, about: 2 }));
        assert!(!all.iter().any(|t| matches!(t, Transform::Nested { .. })));
        let four = Signature::parse(
            "fn f(w: f64, x: f64, y: f64, z: f64) -> f64",
            &[Kind::Float; 4],
            Kind::Float,
        )
        .unwrap();
        let all = Transform::all(&four);
        assert!(!all
            .iter()
            .any(|t| matches!(t, Transform::Copy { .. } | Transform::ReflectAbout { .. })));
        // Integers are given each other's values, never reflected.
        let ints = Signature::parse(
            "fn f(a: i64, b: i64) -> i64",
            &[Kind::Int, Kind::Int],
            Kind::Int,
        )
        .unwrap();
        let all = Transform::all(&ints);
        assert!(all.contains(&Transform::Copy { param: 0, from: 1 }));
        assert!(!all
            .iter()
            .any(|t| matches!(t, Transform::ReflectAbout { .. })));
        let seqs = Signature::parse(
            "fn dot(xs: &[f64], ys: &[f64]) -> f64",
            &[Kind::FloatSeq, Kind::FloatSeq],
            Kind::Float,
        )
        .unwrap();
        let both: Vec<SeqOp> = Transform::all(&seqs)
            .into_iter()
            .filter_map(|t| match t {
                Transform::SeqBoth { op, .. } => Some(op),
                _ => None,
            })
            .collect();
        // Never one permutation drawn for both: a pasted relation draws two.
        assert_eq!(both, [SeqOp::Reverse, SeqOp::Duplicate]);
        let t = Transform::SeqBoth {
            first: 0,
            second: 1,
            op: SeqOp::Reverse,
        };
        assert_eq!(
            t.arguments(&seqs, None),
            ["&invite::mr::reverse(xs)", "&invite::mr::reverse(ys)"]
        );
        let input = [Value::FloatSeq(vec![1.0, 2.0]), Value::FloatSeq(vec![3.0])];
        assert_eq!(
            t.apply(&input, None, 0),
            Some(vec![
                Value::FloatSeq(vec![2.0, 1.0]),
                Value::FloatSeq(vec![3.0])
            ])
        );
        let t = Transform::TextBoth {
            first: 0,
            second: 1,
            op: TextOp::Appended("a"),
        };
        assert_eq!(
            t.arguments(&two, None),
            ["&format!(\"{a}a\")", "&format!(\"{b}a\")", "n"]
        );
        let input = [Value::Str("x".into()), Value::Str("".into()), Value::Int(1)];
        assert_eq!(
            t.apply(&input, None, 0),
            Some(vec![
                Value::Str("xa".into()),
                Value::Str("a".into()),
                Value::Int(1)
            ])
        );
        let copy = Transform::Copy { param: 1, from: 0 };
        assert_eq!(
            copy.apply(&input, None, 0),
            Some(vec![
                Value::Str("x".into()),
                Value::Str("x".into()),
                Value::Int(1)
            ])
        );
        assert_eq!(copy.arguments(&two, None), ["a", "a", "n"]);
    }

    #[test]
    fn a_float_is_reflected_about_another_and_written_so() {
        let reflect = Transform::ReflectAbout { param: 0, about: 1 };
        let input = [Value::Float(3.0), Value::Float(-1.5), Value::Float(2.0)];
        assert_eq!(
            reflect.apply(&input, None, 0),
            Some(vec![
                Value::Float(-6.0),
                Value::Float(-1.5),
                Value::Float(2.0)
            ])
        );
        let sig = Signature::parse(
            "fn pdf(x: f64, mean: &f64, sd: f64) -> f64",
            &[Kind::Float; 3],
            Kind::Float,
        )
        .unwrap();
        assert_eq!(
            reflect.arguments(&sig, None),
            ["2.0 * *mean - x", "mean", "sd"]
        );
        let by_ref = Transform::ReflectAbout { param: 1, about: 2 };
        assert_eq!(
            by_ref.arguments(&sig, None),
            ["x", "&(2.0 * sd - *mean)", "sd"]
        );
    }

    #[test]
    fn a_list_of_booleans_is_inverted_and_no_other_list() {
        let negated = |text: &str| {
            let sig = Signature::parse(text, &[Kind::List], Kind::Int).unwrap();
            Transform::all(&sig).contains(&Transform::Seq {
                param: 0,
                op: SeqOp::Negate,
            })
        };
        assert!(negated("fn t(v: &[bool]) -> usize"));
        assert!(negated("fn t(v: Vec<bool>) -> usize"));
        assert!(!negated("fn t(v: &[String]) -> usize"));
        assert!(!negated("fn t(v: &[char]) -> usize"));
        let sig = Signature::parse("fn t(v: &[bool]) -> usize", &[Kind::List], Kind::Int).unwrap();
        let invert = Transform::Seq {
            param: 0,
            op: SeqOp::Negate,
        };
        assert_eq!(invert.arguments(&sig, None), ["&invite::mr::invert(v)"]);
        let votes = [Value::List(vec![Value::Bool(true), Value::Bool(false)])];
        assert_eq!(
            invert.apply(&votes, None, 0),
            Some(vec![Value::List(vec![
                Value::Bool(false),
                Value::Bool(true)
            ])])
        );
        let words = [Value::List(vec![Value::Str("a".into())])];
        assert_eq!(invert.apply(&words, None, 0), None);
    }

    #[test]
    fn a_composition_sets_the_other_parameter_and_is_compared_with_one_call() {
        let sig = Signature::parse(
            "fn root(x: u64, n: u32) -> u64",
            &[Kind::Int, Kind::Int],
            Kind::Int,
        )
        .unwrap();
        let all = Transform::all(&sig);
        for value in [1.0, 2.0] {
            assert!(all.contains(&Transform::Nested {
                param: 0,
                other: 1,
                value
            }));
        }
        // Not the other way: a degree is no root's result type.
        assert!(!all
            .iter()
            .any(|t| matches!(t, Transform::Nested { param: 1, .. })));
        let nested = Transform::Nested {
            param: 0,
            other: 1,
            value: 2.0,
        };
        assert_eq!(nested.arguments(&sig, None), ["result", "2"]);
        assert_eq!(nested.apply(&[Value::Int(9), Value::Int(2)], None, 0), None);
        let affine = |a: f64, b: f64| Transform::Affine {
            param: 1,
            a,
            b: Const::lit(b),
        };
        assert_eq!(nested.composed(), [affine(2.0, 0.0), affine(1.0, 2.0)]);
        let once = Transform::Nested {
            param: 0,
            other: 1,
            value: 1.0,
        };
        assert_eq!(once.composed(), [affine(1.0, 1.0)]);
        assert_eq!(affine(2.0, 0.0).composed(), []);
    }

    #[test]
    fn the_whole_input_moves_together_where_it_has_two_float_parameters() {
        // (the whole input moved, all but one parameter moved)
        let moved = |text: &str, kinds: &[Kind]| {
            let sig = Signature::parse(text, kinds, Kind::Float).unwrap();
            let all = Transform::all(&sig);
            let count = |f: &dyn Fn(&Transform) -> bool| all.iter().filter(|t| f(t)).count();
            (
                count(&|t| matches!(t, Transform::AllMoved { except: None, .. })),
                count(&|t| {
                    matches!(
                        t,
                        Transform::AllMoved {
                            except: Some(_),
                            ..
                        }
                    )
                }),
            )
        };
        assert_eq!(moved("fn f(x: f64) -> f64", &[Kind::Float]), (0, 0));
        assert_eq!(moved("fn f(n: i64) -> f64", &[Kind::Int]), (0, 0));
        assert_eq!(
            moved(
                "fn f(xs: &[f64], n: i64) -> f64",
                &[Kind::FloatSeq, Kind::Int]
            ),
            (0, 0)
        );
        assert_eq!(
            moved(
                "fn f(xs: &[f64], x: f64) -> f64",
                &[Kind::FloatSeq, Kind::Float]
            ),
            (3, 0)
        );
        assert_eq!(
            moved(
                "fn f(x: f64, y: f64, t: f64) -> f64",
                &[Kind::Float, Kind::Float, Kind::Float]
            ),
            (1, 6)
        );
        // Every float moved alike, in a sequence as in a number; the integer kept.
        let moved = Transform::AllMoved {
            a: 2.0,
            b: 1.0,
            except: None,
        };
        let input = [
            Value::FloatSeq(vec![1.0, -3.0]),
            Value::Float(0.5),
            Value::Int(7),
        ];
        assert_eq!(
            moved.apply(&input, None, 0),
            Some(vec![
                Value::FloatSeq(vec![3.0, -5.0]),
                Value::Float(2.0),
                Value::Int(7)
            ])
        );
    }

    #[test]
    fn the_punctuation_most_values_hold_is_added_at_either_end_of_a_string() {
        let sig = Signature::parse(
            "fn f(path: &str, n: i32, tag: &str) -> String",
            &[Kind::Str, Kind::Int, Kind::Str],
            Kind::Str,
        )
        .unwrap();
        let input = |path: &str, tag: &str| {
            vec![
                Value::Str(path.into()),
                Value::Int(1),
                Value::Str(tag.into()),
            ]
        };
        let inputs = [
            input("/usr/lib.a", "x,y"),
            input("a/b", "x-y"),
            input("./c/d", "z"),
            input("e.f:g", "x,y,z"),
            input("h", "w"),
        ];
        // `/` in three values, `.` in three, `:` in one; of the tag, `,` in two, `-` in one.
        assert_eq!(separators(&sig, &inputs), [(0, '.'), (0, '/'), (2, ',')]);
        assert!(separators(&sig, &inputs[..1]).is_empty());
        let numbers = Signature::parse("fn f(n: i32) -> String", &[Kind::Int], Kind::Str).unwrap();
        assert!(separators(&numbers, &[vec![Value::Int(-1)], vec![Value::Int(-2)]]).is_empty());
        // Each is a follow-up at either end, of its parameter alone.
        let with = Signature {
            separators: vec![(0, '/'), (2, ',')],
            ..sig.clone()
        };
        let all = Transform::all(&with);
        let text = |param, op| Transform::Text { param, op };
        for t in [
            text(0, TextOp::Appended("/")),
            text(0, TextOp::Prepended("/")),
            text(2, TextOp::Appended(",")),
            text(2, TextOp::Prepended(",")),
        ] {
            assert!(all.contains(&t), "{t:?}");
        }
        assert!(!all.contains(&text(2, TextOp::Appended("/"))));
        assert!(!all.contains(&text(0, TextOp::Appended(","))));
        assert_eq!(all.len(), Transform::all(&sig).len() + 4);
        // Every piece is one character of ASCII punctuation, found by it.
        assert!(PUNCTUATION
            .iter()
            .all(|p| p.len() == 1 && p.chars().all(|c| c.is_ascii_punctuation())));
        assert_eq!(punctuation('/'), Some("/"));
        assert_eq!(punctuation('a'), None);
    }

    #[test]
    fn second_inputs_and_composites_are_made_and_written_as_rust() {
        let sig = Signature::parse(
            "fn f(x: &f64, n: i32, xs: Vec<f64>) -> f64",
            &[Kind::Float, Kind::Int, Kind::FloatSeq],
            Kind::Float,
        )
        .unwrap();
        let all = Transform::all(&sig);
        let product = |param, a, b: f64| Transform::Product {
            param,
            a,
            b: Const::lit(b),
        };
        for t in [
            product(0, 1.0, 1.0),
            product(0, 2.0, 0.0),
            product(1, 2.0, 0.0),
        ] {
            assert!(all.contains(&t), "{t:?}");
        }
        let composites = all
            .iter()
            .filter(|t| matches!(t, Transform::SeqThen { .. }))
            .count();
        assert_eq!(composites, 12);
        let input = [
            Value::Float(3.0),
            Value::Int(4),
            Value::FloatSeq(vec![3.0, 1.0, 2.0]),
        ];
        let at = |t: &Transform| t.apply(&input, None, 7).unwrap();
        assert_eq!(at(&product(0, 1.0, 1.0))[0], Value::Float(12.0));
        assert_eq!(at(&product(1, 2.0, 0.0))[1], Value::Int(32));
        assert_eq!(
            product(0, 1.0, 1.0).arguments(&sig, None)[0],
            "&(*x * (*x + 1.0))"
        );
        assert_eq!(product(1, 2.0, 0.0).arguments(&sig, None)[1], "n * (2 * n)");
        // The input squared, of either kind.
        for p in [0, 1] {
            assert!(all.contains(&product(p, 1.0, 0.0)), "{p}");
        }
        assert_eq!(at(&product(1, 1.0, 0.0))[1], Value::Int(16));
        assert_eq!(at(&product(0, 1.0, 0.0))[0], Value::Float(9.0));
        assert_eq!(product(1, 1.0, 0.0).arguments(&sig, None)[1], "n * n");
        assert_eq!(product(0, 1.0, 0.0).arguments(&sig, None)[0], "&(*x * *x)");
        // Scaled by powers of ten only where an integer is written as text.
        let decimal = |a| Transform::Affine {
            param: 1,
            a,
            b: Const::lit(0.0),
        };
        assert!(!all.contains(&decimal(10.0)) && !all.contains(&decimal(1000.0)));
        let text = Signature::parse(
            "fn f(x: f64, n: i32) -> String",
            &[Kind::Float, Kind::Int],
            Kind::Str,
        )
        .unwrap();
        let written = Transform::all(&text);
        assert!(written.contains(&decimal(10.0)) && written.contains(&decimal(1000.0)));
        let of_float = |a| Transform::Affine {
            param: 0,
            a,
            b: Const::lit(0.0),
        };
        assert!(!written.contains(&of_float(10.0)) && !written.contains(&of_float(1000.0)));
        assert!(decimal(1000.0).is_decimal_scale() && decimal(10.0).is_decimal_scale());
        assert!(!decimal(2.0).is_decimal_scale() && !product(1, 1.0, 0.0).is_decimal_scale());
        let offset = Transform::Affine {
            param: 1,
            a: 10.0,
            b: Const::lit(1.0),
        };
        assert!(!offset.is_decimal_scale());
        assert_eq!(decimal(1000.0).arguments(&text, None)[1], "1000 * n");
        // By a byte and a group of seven bits where it is written as bytes.
        assert!(!written.contains(&decimal(256.0)) && !all.contains(&decimal(128.0)));
        let bytes = Signature::parse(
            "fn f(x: f64, n: i32) -> Vec<u8>",
            &[Kind::Float, Kind::Int],
            Kind::IntSeq,
        )
        .unwrap();
        let written = Transform::all(&bytes);
        assert!(written.contains(&decimal(256.0)) && written.contains(&decimal(128.0)));
        assert!(!written.contains(&decimal(1000.0)) && !written.contains(&of_float(128.0)));
        // Never past the type's largest value.
        let scaled = |sig: &str, out: Kind| -> Vec<f64> {
            let sig = Signature::parse(sig, &[Kind::Int], out).unwrap();
            Transform::all(&sig)
                .into_iter()
                .filter(|t| {
                    matches!(t, Transform::Affine { a, b, .. }
                        if b.value == 0.0 && [10.0, 128.0, 256.0, 1000.0].contains(a))
                })
                .map(|t| match t {
                    Transform::Affine { a, .. } => a,
                    _ => 0.0,
                })
                .collect()
        };
        assert_eq!(
            scaled("fn f(n: i8) -> Vec<u8>", Kind::IntSeq),
            Vec::<f64>::new()
        );
        assert_eq!(scaled("fn f(n: u8) -> Vec<u8>", Kind::IntSeq), [128.0]);
        assert_eq!(
            scaled("fn f(n: u16) -> Vec<u8>", Kind::IntSeq),
            [256.0, 128.0]
        );
        assert_eq!(scaled("fn f(n: u8) -> String", Kind::Str), [10.0]);
        assert_eq!(scaled("fn f(n: i16) -> String", Kind::Str), [10.0, 1000.0]);
        let then = |first, then| Transform::SeqThen {
            param: 2,
            first,
            then,
        };
        let sorted_doubled = then(SeqOp::Sort, SeqOp::Scale(2.0));
        assert_eq!(at(&sorted_doubled)[2], Value::FloatSeq(vec![2.0, 4.0, 6.0]));
        assert_eq!(
            sorted_doubled.arguments(&sig, None)[2],
            "invite::mr::multiply(&invite::mr::sorted(&xs), 2.0)"
        );
        let cut_negated = then(SeqOp::ExcludeFirst, SeqOp::Negate);
        assert_eq!(at(&cut_negated)[2], Value::FloatSeq(vec![-1.0, -2.0]));
        assert_eq!(
            cut_negated.arguments(&sig, None)[2],
            "invite::mr::negate(&xs[1..].to_vec())"
        );
        // A borrowed sequence is cut by slicing.
        let borrowed =
            Signature::parse("fn f(xs: &[f64]) -> f64", &[Kind::FloatSeq], Kind::Float).unwrap();
        let cut_negated = Transform::SeqThen {
            param: 0,
            first: SeqOp::ExcludeFirst,
            then: SeqOp::Negate,
        };
        assert_eq!(
            cut_negated.arguments(&borrowed, None)[0],
            "&invite::mr::negate(&xs[1..])"
        );
        // Nothing to cut: the composite does not apply.
        let empty = [Value::Float(1.0), Value::Int(1), Value::FloatSeq(vec![])];
        assert_eq!(cut_negated.apply(&empty, None, 0), None);
        // An integer product is exact past a float's range, and does not apply past an
        // `i128`'s (nor, at the call, past its parameter's type).
        let big = |x: i128| [Value::Float(1.0), Value::Int(x), Value::FloatSeq(vec![])];
        assert_eq!(
            product(1, 2.0, 0.0).apply(&big(1 << 40), None, 0).unwrap()[1],
            Value::Int(1 << 81)
        );
        assert_eq!(product(1, 2.0, 1.0).apply(&big(1 << 70), None, 0), None);
    }

    #[test]
    fn the_origin_is_probed_where_there_are_two_float_numbers_and_a_number_out() {
        let parse = |text: &str, kinds: &[Kind], out| Signature::parse(text, kinds, out).unwrap();
        let (f, i, s) = (Kind::Float, Kind::Int, Kind::FloatSeq);
        let mixed = parse(
            "fn d(xs: &[f64], px: &f64, n: i32, ax: f32) -> f64",
            &[s, f, i, f],
            f,
        );
        assert!(Transform::all(&mixed).contains(&Transform::Origin));
        let input = [
            Value::FloatSeq(vec![1.0, 2.0]),
            Value::Float(2.5),
            Value::Int(7),
            Value::Float(-3.0),
        ];
        assert_eq!(
            Transform::Origin.apply(&input, None, 0).unwrap(),
            [
                Value::FloatSeq(vec![1.0, 2.0]),
                Value::Float(0.0),
                Value::Int(7),
                Value::Float(0.0),
            ]
        );
        assert_eq!(
            Transform::Origin.arguments(&mixed, None),
            ["xs", "&(0.0)", "n", "0.0"]
        );
        // One float number is no second point; a sequence out is no sign to judge.
        let one = parse("fn g(x: f64, n: i32) -> f64", &[f, i], f);
        assert!(!Transform::all(&one).contains(&Transform::Origin));
        let seq_out = parse("fn h(x: f64, y: f64) -> Vec<f64>", &[f, f], s);
        assert!(!Transform::all(&seq_out).contains(&Transform::Origin));
        let int_out = parse("fn k(x: f64, y: f64) -> i64", &[f, f], i);
        assert!(Transform::all(&int_out).contains(&Transform::Origin));
    }

    #[test]
    fn arguments_move_by_others_of_their_type_take_special_values_and_the_result() {
        let sig = Signature::parse(
            "fn f(a: i64, b: i64, n: u32) -> i64",
            &[Kind::Int, Kind::Int, Kind::Int],
            Kind::Int,
        )
        .unwrap();
        let all = Transform::all(&sig);
        let shift = |param, by, sign| Transform::Shift { param, by, sign };
        for t in [
            shift(0, 1, 1.0),
            shift(0, 1, -1.0),
            shift(1, 0, 1.0),
            shift(1, 0, -1.0),
        ] {
            assert!(all.contains(&t), "{t:?}");
        }
        // Not by a parameter of another type; an unsigned one is never subtracted from.
        assert!(!all
            .iter()
            .any(|t| matches!(t, Transform::Shift { param: 2, .. })));
        assert!(!all
            .iter()
            .any(|t| matches!(t, Transform::Shift { by: 2, .. })));
        let unsigned = Signature::parse(
            "fn g(m: u64, n: u64) -> u64",
            &[Kind::Int, Kind::Int],
            Kind::Int,
        )
        .unwrap();
        let all_unsigned = Transform::all(&unsigned);
        assert!(all_unsigned.contains(&shift(0, 1, 1.0)));
        assert!(!all_unsigned.contains(&shift(0, 1, -1.0)));
        // Special values of each number, where another parameter is left to carry the result.
        for param in 0..3 {
            for value in [0.0, 1.0] {
                assert!(all.contains(&Transform::Special { param, value }));
            }
        }
        let one = Signature::parse("fn h(x: f64) -> f64", &[Kind::Float], Kind::Float).unwrap();
        let all_one = Transform::all(&one);
        assert!(!all_one
            .iter()
            .any(|t| matches!(t, Transform::Special { .. })));
        // On its own result, where the result has the parameter's type.
        assert!(all_one.contains(&Transform::OnResult { param: 0 }));
        assert!(all.contains(&Transform::OnResult { param: 0 }));
        assert!(!all.contains(&Transform::OnResult { param: 2 }));
        let other = Signature::parse("fn k(x: f64) -> i64", &[Kind::Float], Kind::Int).unwrap();
        assert!(!Transform::all(&other)
            .iter()
            .any(|t| matches!(t, Transform::OnResult { .. })));
        let seq = Signature::parse(
            "fn s(xs: &[f64]) -> Vec<f64>",
            &[Kind::FloatSeq],
            Kind::FloatSeq,
        )
        .unwrap();
        assert!(Transform::all(&seq).contains(&Transform::OnResult { param: 0 }));
        let text = Signature::parse("fn t(s: &str) -> String", &[Kind::Str], Kind::Str).unwrap();
        assert!(Transform::all(&text).contains(&Transform::OnResult { param: 0 }));
        assert_eq!(
            Transform::OnResult { param: 0 }.arguments(&text, None),
            ["&result"]
        );
        // Applied: integers exactly, and `None` past the type; floats as numbers.
        let ints = [Value::Int(5), Value::Int(3), Value::Int(7)];
        assert_eq!(
            shift(0, 1, 1.0).apply(&ints, None, 0).unwrap()[0],
            Value::Int(8)
        );
        assert_eq!(
            shift(0, 1, -1.0).apply(&ints, None, 0).unwrap()[0],
            Value::Int(2)
        );
        let big = [Value::Int(i128::MAX), Value::Int(1), Value::Int(0)];
        assert_eq!(shift(0, 1, 1.0).apply(&big, None, 0), None);
        assert_eq!(
            shift(1, 0, -1.0).apply(&big, None, 0).unwrap()[1],
            Value::Int(1 - i128::MAX)
        );
        let floats = [Value::Float(2.5), Value::Float(1.5)];
        assert_eq!(
            shift(0, 1, 1.0).apply(&floats, None, 0).unwrap()[0],
            Value::Float(4.0)
        );
        assert_eq!(
            shift(0, 1, -1.0).apply(&floats, None, 0).unwrap()[0],
            Value::Float(1.0)
        );
        assert_eq!(
            Transform::Special {
                param: 1,
                value: 1.0
            }
            .apply(&ints, None, 0)
            .unwrap(),
            [Value::Int(5), Value::Int(1), Value::Int(7)]
        );
        assert_eq!(Transform::OnResult { param: 0 }.apply(&ints, None, 0), None);
    }

    #[test]
    fn the_checked_form_of_a_follow_up_s_integer_arithmetic_is_written_for_its_guard() {
        let sig = Signature::parse(
            "fn f(a: i64, b: &i64, x: f64, y: f64) -> i64",
            &[Kind::Int, Kind::Int, Kind::Float, Kind::Float],
            Kind::Int,
        )
        .unwrap();
        let fits = |t: Transform| t.fits_text(&sig);
        let shift = |param, by, sign| Transform::Shift { param, by, sign };
        assert_eq!(
            fits(shift(0, 1, 1.0)).as_deref(),
            Some("a.checked_add(*b).is_some()")
        );
        assert_eq!(
            fits(shift(1, 0, -1.0)).as_deref(),
            Some("(*b).checked_sub(a).is_some()")
        );
        // Floats do not overflow so.
        assert_eq!(fits(shift(2, 3, 1.0)), None);
        let affine = |param, a, b| Transform::Affine {
            param,
            a,
            b: Const::lit(b),
        };
        for (a, b, text) in [
            (1.0, 1.0, "a.checked_add(1).is_some()"),
            (1.0, 0.0, "a.checked_add(0).is_some()"),
            (1.0, -2.0, "a.checked_sub(2).is_some()"),
            (-1.0, 0.0, "a.checked_neg().is_some()"),
            (2.0, 0.0, "a.checked_mul(2).is_some()"),
            (
                -2.0,
                1.0,
                "a.checked_mul(-2).and_then(|v| v.checked_add(1)).is_some()",
            ),
        ] {
            assert_eq!(fits(affine(0, a, b)).as_deref(), Some(text), "{a} {b}");
        }
        assert_eq!(fits(affine(2, 2.0, 0.0)), None);
        assert_eq!(fits(Transform::Reflect { param: 2 }), None);
        // A product: its second factor made, then multiplied.
        let product = |param, a, b| Transform::Product {
            param,
            a,
            b: Const::lit(b),
        };
        for (a, b, text) in [
            (1.0, 0.0, "a.checked_mul(a).is_some()"),
            (
                1.0,
                1.0,
                "a.checked_add(1).and_then(|y| a.checked_mul(y)).is_some()",
            ),
            (
                2.0,
                0.0,
                "a.checked_mul(2).and_then(|y| a.checked_mul(y)).is_some()",
            ),
            (
                2.0,
                1.0,
                "a.checked_mul(2).and_then(|v| v.checked_add(1)).and_then(|y| a.checked_mul(y)).is_some()",
            ),
        ] {
            assert_eq!(fits(product(0, a, b)).as_deref(), Some(text), "{a} {b}");
        }
        assert_eq!(
            fits(product(1, 1.0, 0.0)).as_deref(),
            Some("(*b).checked_mul(*b).is_some()")
        );
        assert_eq!(fits(product(2, 1.0, 0.0)), None);
        // What overflows is judged in the parameter's type.
        let small = Signature::parse("fn f(n: u8) -> bool", &[Kind::Int], Kind::Bool).unwrap();
        let square = product(0, 1.0, 0.0);
        assert!(!square.overflows(&small, &[Value::Int(15)]));
        assert!(square.overflows(&small, &[Value::Int(16)]));
        assert!(affine(0, -1.0, 0.0).overflows(&small, &[Value::Int(3)]));
        assert!(!affine(0, -1.0, 0.0).overflows(&small, &[Value::Int(0)]));
    }

    #[test]
    fn floats_are_never_paired_into_points_by_their_place() {
        // A mass and a velocity are no point of the plane: nothing turns, mirrors or reverses
        // them as one, whatever their number.
        let sig = Signature::parse(
            "fn energy(mass: f64, velocity: f64, height: f64, g: f64) -> f64",
            &[Kind::Float; 4],
            Kind::Float,
        )
        .unwrap();
        let ids: Vec<String> = Transform::all(&sig).iter().map(|t| t.id(&sig)).collect();
        for turned in ["-velocity, mass, height, g", "mass, velocity, -g, height"] {
            assert!(!ids.iter().any(|i| i == turned), "{turned}");
        }
        assert!(
            !ids.iter().any(|i| i.contains("invite::mr::rotate")),
            "{ids:?}"
        );
    }

    #[test]
    fn a_sequence_and_a_number_move_together() {
        let sig = Signature::parse(
            "fn q(xs: &[f64], tau: f64, k: i64) -> f64",
            &[Kind::FloatSeq, Kind::Float, Kind::Int],
            Kind::Float,
        )
        .unwrap();
        let joint: Vec<Transform> = Transform::all(&sig)
            .into_iter()
            .filter(|t| matches!(t, Transform::SeqWith { .. }))
            .collect();
        let texts: Vec<String> = joint.iter().map(|t| t.id(&sig)).collect();
        assert_eq!(
            texts,
            [
                "&invite::mr::negate(xs), 1.0 - tau, k",
                "&invite::mr::negate(xs), -tau, k",
                "&invite::mr::multiply(xs, 2.0), 2.0 * tau, k",
                "&invite::mr::add(xs, 1.0), tau + 1.0, k",
                "&invite::mr::negate(xs), tau, -k",
                "&invite::mr::multiply(xs, 2.0), tau, 2 * k",
                "&invite::mr::add(xs, 1.0), tau, k + 1",
            ]
        );
        let input = [
            Value::FloatSeq(vec![1.0, -2.0]),
            Value::Float(0.25),
            Value::Int(30),
        ];
        assert_eq!(
            joint[0].apply(&input, None, 0).unwrap(),
            [
                Value::FloatSeq(vec![-1.0, 2.0]),
                Value::Float(0.75),
                Value::Int(30)
            ]
        );
        // An integer is not reflected as if it were a percentage: its type says no range.
        assert_eq!(
            joint[4].apply(&input, None, 0).unwrap(),
            [
                Value::FloatSeq(vec![-1.0, 2.0]),
                Value::Float(0.25),
                Value::Int(-30)
            ]
        );
        assert_eq!(
            joint[3].apply(&input, None, 0).unwrap()[0],
            Value::FloatSeq(vec![2.0, -1.0])
        );
        // An unsigned number is not negated or reflected with the sequence.
        let unsigned = Signature::parse(
            "fn q(xs: &[f64], k: usize) -> f64",
            &[Kind::FloatSeq, Kind::Int],
            Kind::Float,
        )
        .unwrap();
        let texts: Vec<String> = Transform::all(&unsigned)
            .iter()
            .filter(|t| matches!(t, Transform::SeqWith { .. }))
            .map(|t| t.id(&unsigned))
            .collect();
        assert_eq!(
            texts,
            [
                "&invite::mr::multiply(xs, 2.0), 2 * k",
                "&invite::mr::add(xs, 1.0), k + 1"
            ]
        );
        // Not for one number alone.
        let one = Signature::parse("fn f(x: f64) -> f64", &[Kind::Float], Kind::Float).unwrap();
        assert!(!Transform::all(&one)
            .iter()
            .any(|t| matches!(t, Transform::SeqWith { .. })));
    }

    #[test]
    fn a_scalar_step_is_a_halving_or_one_more_or_less() {
        let step = |a: f64, b: f64| {
            Transform::Affine {
                param: 0,
                a,
                b: Const::lit(b),
            }
            .is_scalar_step()
        };
        assert!(step(0.5, 0.0) && step(1.0, 1.0) && step(1.0, -1.0));
        assert!(!step(0.5, 1.0) && !step(2.0, 0.0) && !step(1.0, 2.0) && !step(-1.0, 1.0));
        assert!(!Transform::Reflect { param: 0 }.is_scalar_step());
        assert_eq!(
            affine_text("t", -1.0, Const::lit(1.0), NumTy::F64),
            "1.0 - t"
        );
        assert_eq!(
            affine_text("t", -1.0, Const::lit(-1.0), NumTy::F64),
            "-t - 1.0"
        );
        assert_eq!(affine_text("t", -1.0, Const::lit(0.0), NumTy::F64), "-t");
    }

    #[test]
    fn a_follow_up_that_reads_an_element_says_of_which_sequence() {
        let seq = |op| Transform::Seq { param: 2, op }.needs_element();
        for op in [
            SeqOp::IncludeFirst,
            SeqOp::IncludeMean,
            SeqOp::IncludeMax,
            SeqOp::ExcludeFirst,
        ] {
            assert_eq!(seq(op), Some(2), "{op:?}");
        }
        for op in [SeqOp::Permute, SeqOp::Negate, SeqOp::Duplicate, SeqOp::Sort] {
            assert_eq!(seq(op), None, "{op:?}");
        }
        let then = |first, then| {
            Transform::SeqThen {
                param: 1,
                first,
                then,
            }
            .needs_element()
        };
        assert_eq!(then(SeqOp::ExcludeFirst, SeqOp::Negate), Some(1));
        assert_eq!(then(SeqOp::Sort, SeqOp::IncludeMax), Some(1));
        assert_eq!(then(SeqOp::Sort, SeqOp::Negate), None);
        assert_eq!(Transform::Swap { i: 0, j: 1 }.needs_element(), None);
    }
}
