//! Output relations: how the follow-up result must relate to the original one, judged with a
//! tolerance taken from the function's own noise, and fitted in closed form where the relation
//! has coefficients.

use super::lsq;
use super::property::{Lit, Place};
use super::transform::{Const, SNAP};
use super::value::Value;

/// Tolerance in units of the observed noise: a relation holds on a pair when the two sides
/// differ by at most this many times what a one-ulp change of the inputs moves them by, plus
/// this many rounding errors of the terms.
pub const NOISE_UNITS: f64 = 32.0;
const EPS: f64 = f64::EPSILON;

/// How a follow-up result `y'` relates to the original result `y`.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Form {
    /// `y' = α·y + β` (for booleans: `y' = y` or `y' = !y`).
    Affine { alpha: Const, beta: Const },
    /// `y' = a·y² + b·y + c`.
    Quadratic { a: Const, b: Const, c: Const },
    /// `y'² = a·y² + b·y + c`.
    Square { a: Const, b: Const, c: Const },
    /// `y' >= y`.
    AtLeast,
    /// `y' <= y`.
    AtMost,
    /// `y' > y`, by more than a site's default tolerance can blur (strictly increasing).
    Above,
    /// `y' < y`, likewise (strictly decreasing).
    Below,
    /// Element by element, `y'ₖ = α·yₖ + β` (equality when α = 1 and β = 0).
    SeqAffine { alpha: Const, beta: Const },
    /// `y' = y`, compared whole: a character, a list or a record.
    Same,
    /// `y'` is `None` (or `Err`) exactly where `y` is.
    SameVariant,
    /// `y'` is the character `y` in either case.
    SameIgnoringCase,
    /// `y'` is `y` reversed.
    SeqReversed,
    /// `y'` is `y` turned one place, its first element moved to the end: what a function
    /// that treats its components alike gives of its inputs turned alike (`cross(turned a,
    /// turned b)` is the cross product turned).
    SeqTurned,
    /// `y'` is the integer sequence `y` with a few elements before it ([`Place::Start`]) or
    /// after it ([`Place::End`]), the same on every run: a number written as bytes, scaled by
    /// a group of bits (`varint(128 * n) == [vec![128], result.to_vec()].concat()`). Fitted
    /// from the first run, as [`TextForm::Affixed`] is.
    SeqAffixed {
        /// The elements added.
        piece: Vec<i128>,
        /// Where.
        at: Place,
    },
    /// `y'` is a permutation of `y`.
    SeqPermutation,
    /// `y' = x·y`, `y' = y + x` or `y' = y / x` ([`By`]), for `x` a number parameter of the
    /// input: another argument as a coefficient (`pow(k, e + 1) == k * result`), where no
    /// constant does, or as a divisor (a value discounted a period, `npv(rate,
    /// &invite::mr::prepend(values, 0.0)) == result / (rate + 1.0)`).
    /// With `plus_one`, `x + 1` in its place: a growth factor (`compound(p, r, n + 1) ==
    /// (r + 1.0) * result`), the next factor of a product (`factorial(n + 1) == (n + 1) *
    /// result`).
    ByParam {
        /// The parameter's index.
        param: usize,
        /// How it takes part.
        by: By,
        /// Whether the coefficient is the parameter plus one.
        plus_one: bool,
    },
    /// `y'` is a number parameter of the input: the value a function takes at a special
    /// value of another (`binomial(n, 1) == n`).
    Param(usize),
    /// `y' = c·xᵉ` for `x` a number parameter of the input, `c` a constant fitted to the runs
    /// and `e` one of ±1 and ±2: the value at a special point as a power of another argument
    /// (`normal_pdf(mean, mean, sd) == 0.3989422804014327 / sd`), where it is no argument
    /// itself.
    ParamPower {
        /// The parameter's index.
        param: usize,
        /// The constant.
        c: Const,
        /// The power.
        power: i8,
    },
    /// `y'` is the length of a string (in characters) or a sequence of the input: what a
    /// distance takes against the empty string (`levenshtein(a, "") == a.chars().count()`).
    LenOf(usize),
    /// How a string follow-up relates to the string result.
    Text(TextForm),
    /// Every element of `y'` is an element of `y`.
    Subset,
    /// Every element of `y` is an element of `y'`.
    Superset,
    /// `len(y') = len(y) + k`.
    LenDelta(i64),
    /// `len(y') = 2·len(y)`.
    LenDouble,
    /// `y'·(c·n + d) = y·(a·n + b)` for an input of `n` elements (of its squares with
    /// `squared`): a factor that depends on the length, as a sample variance's `(n - 1) / n`
    /// when the sample's mean joins it, where no constant factor holds.
    LenRatio {
        /// The numerator's `a·n + b`.
        a: i8,
        b: i8,
        /// The denominator's `c·n + d`.
        c: i8,
        d: i8,
        /// Between the squares (a standard deviation's factor is the root of one).
        squared: bool,
    },
}

/// How another argument takes part in a [`Form::ByParam`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum By {
    /// It multiplies the result.
    Times,
    /// It is added to the result.
    Plus,
    /// It divides the result (of a float result only: an integer's quotient is rounded).
    Over,
}

/// Most elements a [`Form::SeqAffixed`] adds: a piece, not a result of its own.
const SEQ_PIECE: usize = 8;

/// How a string follow-up `y'` relates to the string result `y`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TextForm {
    /// `y' == y`.
    Same,
    /// `y'` is `y` reversed.
    Reversed,
    /// `y'` is `y` written twice.
    Doubled,
    /// `y'` is `y` but for case.
    SameIgnoringCase,
    /// `y'` begins with `y`.
    Extends,
    /// `y` begins with `y'`.
    Prefix,
    /// `y'` holds `y`.
    Contains,
    /// `y` holds `y'`.
    Within,
    /// `y'` is `y` twice, as two lines.
    Lined,
    /// `y'` is `y` twice, as two words.
    Spaced,
    /// `y'` is `y` with one text before it ([`Place::Start`]) or after it ([`Place::End`]),
    /// the same on every run (`formatted(-n) == format!("-{}", result)`). Fitted, not tried
    /// from a list: see [`TextForm::affixed`].
    Affixed {
        /// The text added.
        piece: Lit,
        /// Where.
        at: Place,
    },
    /// `y'` shows the same decimal digits as `y`, whatever else it writes around them: a
    /// number written with another unit or separator (`size(bytes * 1000)` of `1.50 kB`).
    SameDigits,
}

impl TextForm {
    /// The equalities first, then what a follow-up that grows or cuts a string keeps.
    pub const ALL: [TextForm; 10] = [
        TextForm::Same,
        TextForm::Reversed,
        TextForm::Doubled,
        TextForm::Lined,
        TextForm::Spaced,
        TextForm::SameIgnoringCase,
        TextForm::Extends,
        TextForm::Prefix,
        TextForm::Contains,
        TextForm::Within,
    ];

    /// Whether this is one of the weak forms (an inclusion, not an equality).
    pub fn is_weak(self) -> bool {
        matches!(
            self,
            TextForm::Extends | TextForm::Prefix | TextForm::Contains | TextForm::Within
        )
    }

    /// The [`TextForm::Affixed`] forms that relate one follow-up `t` to its result `y`: the
    /// part of `t` before `y`, or after it, where it is not empty.
    pub fn affixed(y: &str, t: &str) -> Vec<TextForm> {
        let mut out = Vec::new();
        if t.len() > y.len() {
            let cut = t.len() - y.len();
            if t.ends_with(y) && t.is_char_boundary(cut) {
                out.extend(Lit::text(&t[..cut]).map(|piece| TextForm::Affixed {
                    piece,
                    at: Place::Start,
                }));
            }
            if let Some(rest) = t.strip_prefix(y) {
                out.extend(Lit::text(rest).map(|piece| TextForm::Affixed {
                    piece,
                    at: Place::End,
                }));
            }
        }
        out
    }

    /// Whether the follow-up `t` relates so to the result `y`.
    pub fn holds(self, y: &str, t: &str) -> bool {
        fn digits(s: &str) -> impl Iterator<Item = char> + '_ {
            s.chars().filter(char::is_ascii_digit)
        }
        match self {
            TextForm::Affixed { piece, at } => {
                let piece = piece.as_str().unwrap_or_default();
                t.len() == piece.len() + y.len()
                    && match at {
                        Place::End => t.starts_with(y) && t.ends_with(piece),
                        _ => t.starts_with(piece) && t.ends_with(y),
                    }
            }
            TextForm::SameDigits => digits(t).eq(digits(y)),
            TextForm::Same => t == y,
            TextForm::Reversed => t.chars().eq(y.chars().rev()),
            TextForm::Doubled => t.len() == 2 * y.len() && t == y.repeat(2),
            TextForm::Lined | TextForm::Spaced => {
                let sep = if self == TextForm::Lined { '\n' } else { ' ' };
                t.len() == 2 * y.len() + 1
                    && t.starts_with(y)
                    && t.ends_with(y)
                    && t[y.len()..].starts_with(sep)
            }
            TextForm::SameIgnoringCase => t.to_lowercase() == y.to_lowercase(),
            TextForm::Extends => t.starts_with(y),
            TextForm::Prefix => y.starts_with(t),
            TextForm::Contains => t.contains(y),
            TextForm::Within => y.contains(t),
        }
    }

    /// The relation as Rust source, `call` the follow-up call.
    pub fn text(self, call: &str) -> String {
        match self {
            // `result` as an argument, as below; the piece a format string's literal.
            TextForm::Affixed { piece, at } => {
                let piece = piece.as_str().unwrap_or_default();
                let literal = format!("{:?}", piece.replace('{', "{{").replace('}', "}}"));
                let inner = &literal[1..literal.len() - 1];
                match at {
                    Place::End => format!("{call} == format!(\"{{}}{inner}\", result)"),
                    _ => format!("{call} == format!(\"{inner}{{}}\", result)"),
                }
            }
            TextForm::SameDigits => format!(
                "{call}.chars().filter(char::is_ascii_digit).eq(result.chars().filter(char::is_ascii_digit))"
            ),
            TextForm::Same => format!("{call} == result"),
            TextForm::Reversed => format!("{call} == result.chars().rev().collect::<String>()"),
            TextForm::Doubled => format!("{call} == result.repeat(2)"),
            // `result` as an argument, not captured: a part of it (`result.0`) cannot be.
            TextForm::Lined => format!("{call} == format!(\"{{0}}\\n{{0}}\", result)"),
            TextForm::Spaced => format!("{call} == format!(\"{{0}} {{0}}\", result)"),
            TextForm::SameIgnoringCase => {
                format!("{call}.to_lowercase() == result.to_lowercase()")
            }
            TextForm::Extends => format!("{call}.starts_with(&result)"),
            TextForm::Prefix => format!("result.starts_with(&{call})"),
            TextForm::Contains => format!("{call}.contains(&result)"),
            TextForm::Within => format!("result.contains(&{call})"),
        }
    }
}

impl Form {
    /// The [`Form::SeqAffixed`] forms that relate one integer follow-up `t` to its result
    /// `y`: the elements of `t` before `y`, or after it, where there are a few.
    pub fn seq_affixed(y: &[i128], t: &[i128]) -> Vec<Form> {
        let mut out = Vec::new();
        let k = t.len().saturating_sub(y.len());
        if (1..=SEQ_PIECE).contains(&k) {
            if t[k..] == y[..] {
                out.push(Form::SeqAffixed {
                    piece: t[..k].to_vec(),
                    at: Place::Start,
                });
            }
            if t[..y.len()] == y[..] {
                out.push(Form::SeqAffixed {
                    piece: t[y.len()..].to_vec(),
                    at: Place::End,
                });
            }
        }
        out
    }

    /// `y' = 0`: the follow-up gives zero, whatever the original result.
    #[cfg(test)]
    pub fn zero() -> Form {
        Form::Affine {
            alpha: Const::lit(0.0),
            beta: Const::lit(0.0),
        }
    }

    /// `y' = y`: the follow-up gives the same result.
    pub fn is_identity(&self) -> bool {
        matches!(self, Form::Same)
            || matches!(self, Form::Affine { alpha, beta } | Form::SeqAffine { alpha, beta }
            if alpha.value == 1.0 && beta.value == 0.0)
    }
}

/// The relative gap a strict inequality must show on every observation.
pub const STRICT_MARGIN: f64 = 1e-4;

/// One original result and its follow-up, with their noise and probes.
#[derive(Clone, Copy, Debug)]
pub struct Pair<'a> {
    /// The original result.
    pub y: &'a Value,
    /// The follow-up result.
    pub y2: &'a Value,
    /// The original result's noise.
    pub n: f64,
    /// The follow-up result's noise.
    pub n2: f64,
    /// The input's sequences' total length (the `n` of [`Form::LenRatio`]).
    pub len: usize,
    /// The original input.
    pub input: &'a [Value],
}

/// Whether a coefficient is no simple constant (a solved `0.36787944117144233`).
pub fn raw(c: &Const) -> bool {
    c.name.is_none() && snap(c.value, false).is_none()
}

/// Whether a pasted relation's `a == b` holds, as invite compares floats at its default
/// tolerance: within a relative millionth (of the larger, and of one), an infinity only to
/// itself, NaN never.
pub fn pasted_eq(a: f64, b: f64) -> bool {
    if a == b {
        return true;
    }
    if !a.is_finite() || !b.is_finite() {
        return false;
    }
    (a - b).abs() <= crate::config::DEFAULT_TOLERANCE * 1f64.max(a.abs()).max(b.abs())
}

/// Whether two numbers agree within `tol`: equal ones always (infinities included), NaN never.
fn close(t: f64, m: f64, tol: f64) -> bool {
    t == m || (t.is_finite() && m.is_finite() && (t - m).abs() <= tol)
}

impl Form {
    /// How many of its coefficients are no simple constant (a solved `0.36787944117144233`
    /// reads worse than `std::f64::consts::E` in the relation it is the inverse of).
    pub fn raw_constants(&self) -> usize {
        match self {
            Form::Affine { alpha, beta } | Form::SeqAffine { alpha, beta } => {
                [alpha, beta].into_iter().filter(|c| raw(c)).count()
            }
            Form::Quadratic { a, b, c } | Form::Square { a, b, c } => {
                [a, b, c].into_iter().filter(|k| raw(k)).count()
            }
            Form::ParamPower { c, .. } => usize::from(raw(c)),
            _ => 0,
        }
    }

    /// Whether the form holds on a pair.
    pub fn holds(&self, p: &Pair<'_>) -> bool {
        let k = NOISE_UNITS;
        let (n, n2) = (p.n, p.n2);
        if let (Value::List(e), Value::List(e2)) | (Value::Record(e), Value::Record(e2)) =
            (p.y, p.y2)
        {
            return self.holds_on_lists(e, e2);
        }
        if let (Value::Int(y), Value::Int(t)) = (p.y, p.y2) {
            if let Some(exact) = self.holds_on_integers(*y, *t, p) {
                return exact;
            }
        }
        match self {
            Form::Same => p.y == p.y2,
            Form::SameIgnoringCase => match (p.y, p.y2) {
                (Value::Char(a), Value::Char(b)) => a.eq_ignore_ascii_case(b),
                _ => false,
            },
            Form::SameVariant => match (p.y.inner(), p.y2.inner()) {
                (Some(a), Some(b)) => a.is_some() == b.is_some(),
                _ => false,
            },
            Form::Affine { alpha, beta } => match (p.y.number(), p.y2.number()) {
                (Some(y), Some(t)) => {
                    let (a, b) = (alpha.value, beta.value);
                    let m = a * y + b;
                    // A follow-up that gives a constant is judged at the original result's
                    // scale: a constant computed from the input carries the input's rounding
                    // errors, not zero.
                    let scale = if a == 0.0 { n + EPS * y.abs() } else { 0.0 };
                    let tol =
                        k * (n2 + a.abs() * n + scale + EPS * (t.abs() + (a * y).abs() + b.abs()));
                    close(t, m, tol)
                }
                _ => false,
            },
            &Form::ByParam {
                param,
                by,
                plus_one,
            } => {
                let step = if plus_one { 1.0 } else { 0.0 };
                match (p.y.number(), p.y2.number(), p.input[param].number()) {
                    (Some(y), Some(t), Some(x)) => {
                        let x = x + step;
                        // The original's noise, as the coefficient carries it over.
                        let (m, spread) = match by {
                            By::Times => (x * y, x.abs() * n),
                            By::Plus => (y + x, n),
                            By::Over => (y / x, n / x.abs()),
                        };
                        close(
                            t,
                            m,
                            k * (n2 + spread + EPS * (t.abs() + m.abs() + x.abs())),
                        )
                    }
                    _ => false,
                }
            }
            Form::Text(f) => match (p.y, p.y2) {
                (Value::Str(y), Value::Str(t)) => f.holds(y, t),
                _ => false,
            },
            &Form::LenOf(param) => {
                let len = match &p.input[param] {
                    Value::Str(s) => Some(s.chars().count()),
                    Value::List(xs) => Some(xs.len()),
                    v => v.elements().map(|e| e.len()),
                };
                match (p.y2, len.and_then(|n| i128::try_from(n).ok())) {
                    (Value::Int(t), Some(n)) => *t == n,
                    _ => false,
                }
            }
            &Form::Param(param) => match (p.y2.number(), p.input[param].number()) {
                (Some(t), Some(x)) => close(t, x, k * (n2 + EPS * (t.abs() + x.abs()))),
                _ => false,
            },
            &Form::ParamPower { param, c, power } => {
                match (p.y2.number(), p.input[param].number()) {
                    // Each product and quotient rounds once.
                    (Some(t), Some(x)) => {
                        let m = c.value * x.powi(power.into());
                        let steps = f64::from(power.unsigned_abs()) + 1.0;
                        close(t, m, k * (n2 + EPS * (t.abs() + steps * m.abs())))
                    }
                    _ => false,
                }
            }
            Form::Quadratic { a, b, c } | Form::Square { a, b, c } => {
                let (Some(y), Some(y2)) = (p.y.number(), p.y2.number()) else {
                    return false;
                };
                let (a, b, c) = (a.value, b.value, c.value);
                let m = a * y * y + b * y + c;
                let slope = (2.0 * a * y + b).abs();
                let terms = (a * y * y).abs() + (b * y).abs() + c.abs();
                let (t, tn) = if matches!(self, Form::Square { .. }) {
                    (y2 * y2, 2.0 * y2.abs() * n2)
                } else {
                    (y2, n2)
                };
                close(t, m, k * (tn + slope * n + EPS * (t.abs() + terms)))
            }
            Form::AtLeast | Form::AtMost => match (p.y.number(), p.y2.number()) {
                (Some(y), Some(y2)) => {
                    let slack = k * (n + n2 + EPS * (y.abs() + y2.abs()));
                    if matches!(self, Form::AtLeast) {
                        y2 >= y - slack
                    } else {
                        y2 <= y + slack
                    }
                }
                _ => false,
            },
            Form::Above | Form::Below => match (p.y.number(), p.y2.number()) {
                (Some(y), Some(y2)) => {
                    // Pasted, the relation is checked with a relative tolerance of 1e-6 by
                    // default (up to 1e-5 where another relation of the site needs it): a gap
                    // that tolerance could call equal is no gap. The margin dwarfs rounding;
                    // with an infinity it is infinite, and no gap is wide enough.
                    let margin = STRICT_MARGIN * 1f64.max(y.abs()).max(y2.abs());
                    let gap = margin.max(k * (n + n2));
                    if matches!(self, Form::Above) {
                        y2 > y + gap
                    } else {
                        y2 < y - gap
                    }
                }
                _ => false,
            },
            Form::SeqAffine { alpha, beta } => elementwise(p, |e, e2| {
                let (a, b) = (alpha.value, beta.value);
                e.len() == e2.len()
                    && e.iter().zip(e2).all(|(&y, &t)| {
                        let tol =
                            k * (n2 + a.abs() * n + EPS * (t.abs() + (a * y).abs() + b.abs()));
                        close(t, a * y + b, tol)
                    })
            }),
            Form::SeqAffixed { piece, at } => match (p.y, p.y2) {
                (Value::IntSeq(y), Value::IntSeq(t)) => {
                    let k = piece.len();
                    t.len() == y.len() + k
                        && match at {
                            Place::End => t[..y.len()] == y[..] && t[y.len()..] == piece[..],
                            _ => t[..k] == piece[..] && t[k..] == y[..],
                        }
                }
                _ => false,
            },
            Form::SeqReversed => elementwise(p, |e, e2| {
                e.len() == e2.len()
                    && e.iter()
                        .rev()
                        .zip(e2)
                        .all(|(&y, &t)| close(t, y, k * (n + n2 + EPS * (y.abs() + t.abs()))))
            }),
            Form::SeqTurned => elementwise(p, |e, e2| {
                e.len() == e2.len()
                    && e.iter()
                        .cycle()
                        .skip(1)
                        .zip(e2)
                        .all(|(&y, &t)| close(t, y, k * (n + n2 + EPS * (y.abs() + t.abs()))))
            }),
            Form::SeqPermutation => elementwise(p, |e, e2| {
                let (mut s, mut s2) = (e.to_vec(), e2.to_vec());
                s.sort_by(f64::total_cmp);
                s2.sort_by(f64::total_cmp);
                s.len() == s2.len()
                    && s.iter()
                        .zip(&s2)
                        .all(|(&y, &t)| close(t, y, k * (n + n2 + EPS * (y.abs() + t.abs()))))
            }),
            // Exact, like `invite::mr::is_subset`, which a proposal is written with.
            Form::Subset => elementwise(p, |e, e2| e2.iter().all(|x| e.contains(x))),
            Form::Superset => elementwise(p, |e, e2| e.iter().all(|x| e2.contains(x))),
            Form::LenDelta(d) => elementwise(p, |e, e2| e2.len() as i64 == e.len() as i64 + d),
            Form::LenDouble => elementwise(p, |e, e2| e2.len() == 2 * e.len()),
            &Form::LenRatio {
                a,
                b,
                c,
                d,
                squared,
            } => match (p.y.number(), p.y2.number()) {
                (Some(y), Some(t)) => {
                    let (num, den) = (at_len(a, b, p.len), at_len(c, d, p.len));
                    let ((y, n), (t, n2)) = if squared {
                        ((y * y, 2.0 * y.abs() * n), (t * t, 2.0 * t.abs() * n2))
                    } else {
                        ((y, n), (t, n2))
                    };
                    let (lhs, rhs) = (t * den, y * num);
                    let tol = k * (n2 * den.abs() + n * num.abs() + EPS * (lhs.abs() + rhs.abs()));
                    den != 0.0 && close(lhs, rhs, tol)
                }
                _ => false,
            },
        }
    }

    /// The equalities of integers, exactly: in floats, two integers beyond 2⁵³ apart by one
    /// are one number. `None` for a form judged as floats.
    fn holds_on_integers(&self, y: i128, t: i128, p: &Pair<'_>) -> Option<bool> {
        let whole = |c: f64| (c.fract() == 0.0 && c.abs() < 1e30).then_some(c as i128);
        let param = |q: usize| match p.input.get(q) {
            Some(Value::Int(x)) => Some(*x),
            _ => None,
        };
        let equal = |m: Option<i128>| Some(m == Some(t));
        match *self {
            Form::Affine { alpha, beta } => {
                let (a, b) = (whole(alpha.value)?, whole(beta.value)?);
                equal(y.checked_mul(a).and_then(|v| v.checked_add(b)))
            }
            Form::ByParam {
                param: q,
                by,
                plus_one,
            } => {
                let x = param(q)?.checked_add(i128::from(plus_one))?;
                equal(match by {
                    By::Times => x.checked_mul(y),
                    By::Plus => y.checked_add(x),
                    By::Over => None,
                })
            }
            Form::Param(q) => equal(param(q)),
            Form::AtLeast => Some(t >= y),
            Form::AtMost => Some(t <= y),
            _ => None,
        }
    }

    /// The forms of sequences on lists, whose elements are compared whole and exactly.
    fn holds_on_lists(&self, e: &[Value], e2: &[Value]) -> bool {
        match self {
            Form::Same => e == e2,
            Form::SeqReversed => e.iter().rev().eq(e2),
            Form::SeqTurned => {
                e.len() == e2.len() && e.iter().cycle().skip(1).zip(e2).all(|(a, b)| a == b)
            }
            Form::SeqPermutation => same_elements(e, e2),
            Form::Subset => e2.iter().all(|x| e.contains(x)),
            Form::Superset => e.iter().all(|x| e2.contains(x)),
            Form::LenDelta(d) => e2.len() as i64 == e.len() as i64 + d,
            Form::LenDouble => e2.len() == 2 * e.len(),
            _ => false,
        }
    }

    /// The relative tolerance invite's comparison needs for this form on a pair:
    /// `|t - m| / max(1, |t|, |m|)` of the compared sides (0 for exact forms).
    pub fn needed_tolerance(&self, p: &Pair<'_>) -> f64 {
        let rel = |t: f64, m: f64| {
            if t == m || !t.is_finite() || !m.is_finite() {
                0.0
            } else {
                (t - m).abs() / 1f64.max(t.abs()).max(m.abs())
            }
        };
        let (y, y2) = (p.y.number(), p.y2.number());
        match (self, y, y2) {
            (Form::Affine { alpha, beta }, Some(y), Some(t)) => {
                rel(t, alpha.value * y + beta.value)
            }
            (Form::Quadratic { a, b, c }, Some(y), Some(t)) => {
                rel(t, a.value * y * y + b.value * y + c.value)
            }
            (Form::Square { a, b, c }, Some(y), Some(t)) => {
                rel(t * t, a.value * y * y + b.value * y + c.value)
            }
            (
                &Form::LenRatio {
                    a,
                    b,
                    c,
                    d,
                    squared,
                },
                Some(y),
                Some(t),
            ) => {
                let (y, t) = if squared { (y * y, t * t) } else { (y, t) };
                rel(t * at_len(c, d, p.len), y * at_len(a, b, p.len))
            }
            (Form::SeqAffine { alpha, beta }, _, _) => match (p.y.elements(), p.y2.elements()) {
                (Some(e), Some(e2)) => e
                    .iter()
                    .zip(&e2)
                    .map(|(&y, &t)| rel(t, alpha.value * y + beta.value))
                    .fold(0.0, f64::max),
                _ => 0.0,
            },
            (Form::SeqTurned, _, _) => match (p.y.elements(), p.y2.elements()) {
                (Some(e), Some(e2)) => e
                    .iter()
                    .cycle()
                    .skip(1)
                    .zip(&e2)
                    .map(|(&y, &t)| rel(t, y))
                    .fold(0.0, f64::max),
                _ => 0.0,
            },
            (Form::SeqReversed, _, _) => match (p.y.elements(), p.y2.elements()) {
                (Some(e), Some(e2)) => e
                    .iter()
                    .rev()
                    .zip(&e2)
                    .map(|(&y, &t)| rel(t, y))
                    .fold(0.0, f64::max),
                _ => 0.0,
            },
            _ => 0.0,
        }
    }
}

impl Form {
    /// The forms judged on lists, for tests.
    #[cfg(test)]
    const ALL_LIST: [Form; 9] = [
        Form::Same,
        Form::SeqReversed,
        Form::SeqPermutation,
        Form::Subset,
        Form::Superset,
        Form::LenDelta(0),
        Form::LenDelta(-1),
        Form::LenDelta(-3),
        Form::LenDouble,
    ];
}

/// Whether `b` holds `a`'s elements as many times each, in any order: as
/// `invite::mr::same_elements`, which the relation is written with, judges it.
fn same_elements(a: &[Value], b: &[Value]) -> bool {
    let mut used = vec![false; b.len()];
    a.len() == b.len()
        && a.iter().all(|x| {
            let found = (0..b.len()).find(|&j| !used[j] && b[j] == *x);
            found.map(|j| used[j] = true).is_some()
        })
}

fn elementwise(p: &Pair<'_>, f: impl Fn(&[f64], &[f64]) -> bool) -> bool {
    match (p.y.elements(), p.y2.elements()) {
        (Some(e), Some(e2)) => f(&e, &e2),
        _ => false,
    }
}

/// The equality forms with coefficients, fitted on `fit` and kept when they hold on every pair
/// of `check`; the first that holds, in order of simplicity.
pub fn fit_numeric(fit: &[Pair<'_>], check: &[Pair<'_>], integral: bool) -> Option<Form> {
    if let Some(f) = integral.then(|| fit_integers(fit, check)).flatten() {
        return Some(f);
    }
    let data: Vec<(f64, f64)> = fit
        .iter()
        .filter_map(|p| Some((p.y.number()?, p.y2.number()?)))
        .filter(|(y, t)| y.is_finite() && t.is_finite())
        .collect();
    let floor = weight_floor(data.iter().map(|&(y, t)| y.abs() + t.abs()));
    let weight = |y: f64, t: f64| 1.0 / (y.abs() + t.abs()).max(floor);
    let holds = |f: &Form| check.iter().all(|p| f.holds(p));
    let single = single_precision(data.iter().flat_map(|&(y, t)| [y, t]));
    // y' = α y + β
    let rows: Vec<Vec<f64>> = data.iter().map(|&(y, _)| vec![y, 1.0]).collect();
    let t: Vec<f64> = data.iter().map(|&(_, t)| t).collect();
    let w: Vec<f64> = data.iter().map(|&(y, t)| weight(y, t)).collect();
    // A follow-up of one value whatever the result is no function of it: fitted, its factors
    // are the values' rounding (`-8.8e-16 * result + 0.3989`). Where a constant says
    // something (at a special value), it is told by its own form.
    let constant = |&(_, t): &(f64, f64)| Form::Affine {
        alpha: Const::lit(0.0),
        beta: Const::lit(t),
    };
    if data.first().map(constant).is_some_and(|f| holds(&f)) {
        return None;
    }
    if data.len() >= 3 {
        if let Some(x) = lsq::solve(&rows, &t, &w) {
            if let Some(f) = snapped(
                &x,
                integral,
                single,
                |c| {
                    (c[0].value != 0.0).then_some(Form::Affine {
                        alpha: c[0],
                        beta: c[1],
                    })
                },
                &holds,
            ) {
                return Some(f);
            }
        }
    }
    if data.len() < 5 {
        return None;
    }
    let rows: Vec<Vec<f64>> = data.iter().map(|&(y, _)| vec![y * y, y, 1.0]).collect();
    // A zero square term is the affine form, which did not hold.
    let build_q = |c: &[Const]| {
        (c[0].value != 0.0).then_some(Form::Quadratic {
            a: c[0],
            b: c[1],
            c: c[2],
        })
    };
    if let Some(x) = lsq::solve(&rows, &t, &w) {
        if let Some(f) = snapped(&x, integral, single, build_q, &holds) {
            return Some(f);
        }
    }
    let t2: Vec<f64> = t.iter().map(|t| t * t).collect();
    let floor2 = weight_floor(data.iter().map(|&(y, t)| y * y + t * t));
    let w2: Vec<f64> = data
        .iter()
        .map(|&(y, t)| 1.0 / (y * y + t * t).max(floor2))
        .collect();
    let build_s = |c: &[Const]| {
        (c[0].value != 0.0 || c[1].value != 0.0).then_some(Form::Square {
            a: c[0],
            b: c[1],
            c: c[2],
        })
    };
    lsq::solve(&rows, &t2, &w2).and_then(|x| snapped(&x, integral, single, build_s, &holds))
}

/// `y' = α y + β` of integers, solved exactly from two pairs of distinct results: in floats,
/// results beyond 2⁵³ cannot show a `β` of one. A whole `α` that is not zero, a `β` that holds
/// on every pair of `check`; `None` where the results are not integers or do not vary.
fn fit_integers(fit: &[Pair<'_>], check: &[Pair<'_>]) -> Option<Form> {
    let ints: Vec<(i128, i128)> = fit
        .iter()
        .filter_map(|p| match (p.y, p.y2) {
            (Value::Int(y), Value::Int(t)) => Some((*y, *t)),
            _ => None,
        })
        .collect();
    let &(y0, t0) = ints.first()?;
    let &(y1, t1) = ints.iter().find(|(y, _)| *y != y0)?;
    let (dy, dt) = (y1.checked_sub(y0)?, t1.checked_sub(t0)?);
    if dt == 0 || dt % dy != 0 {
        return None;
    }
    let alpha = dt / dy;
    let beta = t0.checked_sub(alpha.checked_mul(y0)?)?;
    // Coefficients a relation writes as literals, exactly.
    let exact = |c: i128| (c.unsigned_abs() < 1 << 53).then_some(Const::lit(c as f64));
    let form = Form::Affine {
        alpha: exact(alpha)?,
        beta: exact(beta)?,
    };
    check.iter().all(|p| form.holds(p)).then_some(form)
}

/// Largest coefficient of a length's factor: `(2·n - 2) / (2·n - 1)` and its kin.
const LEN_COEFFICIENT: i8 = 3;

/// A factor that depends on the input's length, `y'·(c·n + d) = y·(a·n + b)` with small whole
/// coefficients, of the results or of their squares, where it holds on every pair and the
/// pairs span three lengths or more (two fit too many factors). The simplest first; none
/// that is a constant (`a·d = b·c`), which [`fit_numeric`] tries.
pub fn fit_len_ratio(pairs: &[Pair<'_>]) -> Option<Form> {
    let mut lens: Vec<usize> = pairs
        .iter()
        .filter(|p| p.y.number().is_some_and(f64::is_finite))
        .map(|p| p.len)
        .collect();
    lens.sort_unstable();
    lens.dedup();
    if lens.len() < 3 {
        return None;
    }
    // One pair of each of three lengths rejects most candidates before the rest are read.
    let probes: Vec<Pair<'_>> = lens
        .iter()
        .take(3)
        .filter_map(|&n| pairs.iter().find(|p| p.len == n).copied())
        .collect();
    let range = -LEN_COEFFICIENT..=LEN_COEFFICIENT;
    let mut candidates = Vec::new();
    for squared in [false, true] {
        for a in range.clone() {
            for b in range.clone() {
                for c in range.clone() {
                    for d in range.clone() {
                        let wide = |x: i8| i32::from(x);
                        // One sign for the denominator, no common factor, and not a constant.
                        if c < 0 || (c == 0 && d <= 0) || wide(a) * wide(d) == wide(b) * wide(c) {
                            continue;
                        }
                        let [ua, ub, uc, ud] = [a, b, c, d].map(i8::unsigned_abs);
                        if gcd(gcd(ua, ub), gcd(uc, ud)) != 1 {
                            continue;
                        }
                        let size = ua + ub + uc + ud;
                        candidates.push((
                            size,
                            Form::LenRatio {
                                a,
                                b,
                                c,
                                d,
                                squared,
                            },
                        ));
                    }
                }
            }
        }
    }
    candidates.sort_by_key(|&(size, _)| size);
    candidates
        .into_iter()
        .map(|(_, f)| f)
        .find(|f| probes.iter().all(|p| f.holds(p)) && pairs.iter().all(|p| f.holds(p)))
}

/// `a·n + b` at `n` elements: a [`Form::LenRatio`]'s numerator or denominator.
fn at_len(a: i8, b: i8, n: usize) -> f64 {
    f64::from(a) * n as f64 + f64::from(b)
}

fn gcd(mut a: u8, mut b: u8) -> u8 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The smallest magnitude a residual is weighed relative to: a millionth of the median, so
/// that results of zero neither dominate the fit nor overflow it.
pub fn weight_floor(mags: impl Iterator<Item = f64>) -> f64 {
    let mut m: Vec<f64> = mags.filter(|x| x.is_finite()).collect();
    m.sort_by(f64::total_cmp);
    m.get(m.len() / 2)
        .map_or(1.0, |&x| if x > 0.0 { x * 1e-6 } else { 1.0 })
}

/// Element-by-element `y'ₖ = α·yₖ + β`, fitted on the pooled elements of `fit`.
pub fn fit_elementwise(fit: &[Pair<'_>], check: &[Pair<'_>], integral: bool) -> Option<Form> {
    let mut rows = Vec::new();
    let mut t = Vec::new();
    let mut w = Vec::new();
    for p in fit {
        let (Some(e), Some(e2)) = (p.y.elements(), p.y2.elements()) else {
            continue;
        };
        if e.len() != e2.len() {
            return None;
        }
        for (&y, &y2) in e.iter().zip(&e2) {
            if y.is_finite() && y2.is_finite() {
                rows.push(vec![y, 1.0]);
                t.push(y2);
                w.push(y.abs() + y2.abs());
            }
        }
    }
    let floor = weight_floor(w.iter().copied());
    w.iter_mut().for_each(|m| *m = 1.0 / m.max(floor));
    let holds = |f: &Form| check.iter().all(|p| f.holds(p));
    let equal = Form::SeqAffine {
        alpha: Const::lit(1.0),
        beta: Const::lit(0.0),
    };
    if holds(&equal) {
        return Some(equal);
    }
    if rows.len() < 3 {
        return None;
    }
    let x = lsq::solve(&rows, &t, &w)?;
    let single = single_precision(rows.iter().map(|r| r[0]).chain(t.iter().copied()));
    snapped(
        &x,
        integral,
        single,
        |c| {
            (c[0].value != 0.0).then_some(Form::SeqAffine {
                alpha: c[0],
                beta: c[1],
            })
        },
        &holds,
    )
}

/// The coefficients, each snapped to the simple constant it is within rounding of, when the
/// form then holds; otherwise the raw solution, when that holds. `build` refuses coefficients
/// that leave no relation between the results.
pub fn snapped<T>(
    raw: &[f64],
    integral: bool,
    single: bool,
    build: impl Fn(&[Const]) -> Option<T>,
    holds: &impl Fn(&T) -> bool,
) -> Option<T> {
    if integral {
        let whole: Vec<Const> = raw.iter().map(|&x| snap(x, true)).collect::<Option<_>>()?;
        return build(&whole).filter(holds);
    }
    // A raw coefficient a hair from a simple constant, where the constant itself does not hold,
    // was fitted to noise: `-0.9999999962 * result + 3.6e-8` is no relation.
    let near_simple = |x: f64| {
        (x.abs() < 1e-6 * raw.iter().map(|r| r.abs()).fold(0.0, f64::max).max(1e-300))
            || SNAP
                .iter()
                .any(|c| ((x.abs() - c.value) / c.value).abs() < NEAR_SIMPLE)
    };
    if raw
        .iter()
        .any(|&x| snap(x, false).is_none() && near_simple(x))
    {
        // Of results that are all `f32`s, where the simple constants hold, the hair was
        // their rounding (they fit `-0.99999997`); of any other, or where they do not hold,
        // noise (a hash of a sine, periodic only to its own noise, fits a hair from `-1`).
        if !single {
            return None;
        }
        let simple: Option<Vec<Const>> = raw
            .iter()
            .map(|&x| snap(x, false).or_else(|| snap_within(x, false, NEAR_SIMPLE)))
            .collect();
        return simple.and_then(|c| build(&c)).filter(holds);
    }
    // The simple constants where they hold; a constant fitted to the data (a model's
    // `1.7500000000000004`) with the fewest significant digits that still hold: the evidence's
    // precision, not the float's; else every digit.
    for digits in 1..=17 {
        let rounded: Vec<Const> = raw
            .iter()
            .map(|&x| snap(x, false).unwrap_or(Const::lit(significant(x, digits))))
            .collect();
        if let Some(f) = build(&rounded).filter(holds) {
            return Some(f);
        }
    }
    let simple: Vec<Const> = raw
        .iter()
        .map(|&x| snap(x, false).unwrap_or(Const::lit(x)))
        .collect();
    if let Some(f) = build(&simple).filter(holds) {
        return Some(f);
    }
    let literal: Vec<Const> = raw.iter().map(|&x| Const::lit(x)).collect();
    build(&literal).filter(holds)
}

/// Whether every value is an `f32`'s, exactly: results of a function of `f32`s, whose
/// fitted coefficients are a hair from the constants they stand for.
pub(super) fn single_precision(mut values: impl Iterator<Item = f64>) -> bool {
    values.all(|v| f64::from(v as f32) == v)
}

/// `x` rounded to `digits` significant digits.
fn significant(x: f64, digits: usize) -> f64 {
    format!("{:.*e}", digits.saturating_sub(1), x)
        .parse()
        .unwrap_or(x)
}

/// How far, relatively, a fitted coefficient may be from a simple constant and still be
/// tried as it: a hundred units in the last place of an `f32`.
const NEAR_SIMPLE: f64 = 1e-5;

/// The simple constant `x` is, when it is within rounding of one: zero, an integer up to 16,
/// or ± one of [`SNAP`]. For integer results only whole numbers qualify.
pub fn snap(x: f64, integral: bool) -> Option<Const> {
    snap_within(x, integral, 1e-9)
}

/// As [`snap`], within `rel` of the constant (of one, near zero).
fn snap_within(x: f64, integral: bool, rel: f64) -> Option<Const> {
    let near = |c: f64| (x - c).abs() <= rel * c.abs().max(1.0);
    if near(0.0) {
        return Some(Const::lit(0.0));
    }
    let whole = x.round();
    if whole.abs() <= 16.0 && near(whole) {
        return Some(Const::lit(whole));
    }
    if integral {
        return None;
    }
    SNAP.iter()
        .flat_map(|c| {
            [
                *c,
                Const {
                    value: -c.value,
                    name: c.name,
                },
            ]
        })
        .find(|c| near(c.value))
}

/// The powers of another argument a value at a special point is tried as, fewest
/// operations first.
const POWERS: [i8; 4] = [-1, 1, -2, 2];

/// The forms `y' = c·xᵉ` of parameter `param` that hold on every pair, `c` fitted on the first
/// pair whose `x` is finite and not zero and snapped as an affine coefficient is: at most one
/// per power. `c = 1` at the first power is [`Form::Param`]'s, and a constant `y'` is told by
/// its own form, tried before.
pub(super) fn param_powers(pairs: &[Pair<'_>], param: usize, single: bool) -> Vec<Form> {
    let holds = |f: &Form| pairs.iter().all(|p| f.holds(p));
    let Some((t, x)) = pairs.iter().find_map(|p| {
        let x = p.input.get(param)?.number()?;
        let t = p.y2.number()?;
        (x.is_finite() && x != 0.0 && t.is_finite() && t != 0.0).then_some((t, x))
    }) else {
        return Vec::new();
    };
    POWERS
        .iter()
        .filter_map(|&power| {
            let raw = t / x.powi(power.into());
            let build = |c: &[Const]| {
                (c[0].value != 0.0 && !(power == 1 && c[0].value == 1.0)).then_some(
                    Form::ParamPower {
                        param,
                        c: c[0],
                        power,
                    },
                )
            };
            snapped(&[raw], false, single, build, &holds)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pasted_equality_is_relative_to_the_larger_and_to_one() {
        assert!(pasted_eq(1.0, 1.0 + 9e-7) && !pasted_eq(1.0, 1.0 + 2e-6));
        assert!(pasted_eq(1e6, 1e6 + 0.9) && !pasted_eq(1e6, 1e6 + 2.0));
        assert!(
            pasted_eq(0.0, 9e-7) && !pasted_eq(0.0, 2e-6),
            "one, near zero"
        );
        let inf = f64::INFINITY;
        assert!(pasted_eq(inf, inf) && !pasted_eq(inf, -inf) && !pasted_eq(inf, 1e308));
        assert!(!pasted_eq(f64::NAN, f64::NAN) && !pasted_eq(f64::NAN, 1.0));
    }

    fn pairs(ys: &[(f64, f64)]) -> Vec<(Value, Value)> {
        ys.iter()
            .map(|&(y, t)| (Value::Float(y), Value::Float(t)))
            .collect()
    }

    fn view(v: &[(Value, Value)]) -> Vec<Pair<'_>> {
        v.iter()
            .map(|(y, y2)| Pair {
                y,
                y2,
                n: 0.0,
                n2: 0.0,
                len: 0,
                input: &[],
            })
            .collect()
    }

    /// Whether `form` holds for result `y` and follow-up `t`, with noises `n` and `n2`, on the
    /// input `x` (one number).
    fn holds_on(form: &Form, y: f64, t: f64, n: f64, n2: f64, x: f64) -> bool {
        let (y, t, input) = (Value::Float(y), Value::Float(t), [Value::Float(x)]);
        form.holds(&Pair {
            y: &y,
            y2: &t,
            n,
            n2,
            len: 0,
            input: &input,
        })
    }

    #[test]
    fn a_text_written_twice_as_two_lines_or_words_is_told_from_one_written_otherwise() {
        let lined = TextForm::Lined;
        assert!(lined.holds("a b", "a b\na b"));
        assert!(!lined.holds("a b", "a b a b"));
        assert!(!lined.holds("a b", "a b\na c"));
        assert!(!lined.holds("a b", "a b\na b\n"));
        assert!(lined.holds("", "\n"));
        let spaced = TextForm::Spaced;
        assert!(spaced.holds("ab", "ab ab"));
        assert!(!spaced.holds("ab", "ab\nab"));
        assert!(!spaced.holds("ab", "abab"));
        assert!(!spaced.holds("ab", "ab  ab"));
        assert!(!lined.is_weak() && !spaced.is_weak());
        assert_eq!(
            lined.text("f(&s)"),
            "f(&s) == format!(\"{0}\\n{0}\", result)"
        );
        assert_eq!(
            spaced.text("f(&s)"),
            "f(&s) == format!(\"{0} {0}\", result)"
        );
    }

    #[test]
    fn a_piece_added_is_fitted_from_one_run_and_must_be_the_same_on_every_run() {
        let piece = |s: &str| Lit::text(s).expect("short");
        let before = TextForm::Affixed {
            piece: piece("-"),
            at: Place::Start,
        };
        let after = TextForm::Affixed {
            piece: piece(",000"),
            at: Place::End,
        };
        assert_eq!(TextForm::affixed("1,234", "-1,234"), vec![before]);
        assert_eq!(TextForm::affixed("1,234", "1,234,000"), vec![after]);
        let longer = TextForm::Affixed {
            piece: piece("xyz"),
            at: Place::Start,
        };
        assert_eq!(TextForm::affixed("ab", "xyzab"), vec![longer]);
        // Both ways where the result is at both ends; none where it is not longer.
        assert_eq!(TextForm::affixed("a", "aa").len(), 2);
        assert!(TextForm::affixed("ab", "ab").is_empty());
        assert!(TextForm::affixed("ab", "b").is_empty());
        assert!(TextForm::affixed("ab", "xaby").is_empty());
        // A piece too long to hold is not fitted.
        assert!(TextForm::affixed("a", &"b".repeat(40)).is_empty());
        assert!(before.holds("7", "-7") && !before.holds("7", "--7") && !before.holds("7", "7-"));
        assert!(!before.holds("-7", "-7") && !before.holds("7", "+7"));
        assert!(after.holds("12", "12,000") && !after.holds("12", "12.000"));
        assert!(!after.holds("12", ",00012") && !after.holds("12", "12,0000"));
        assert!(!before.is_weak() && !after.is_weak());
        assert_eq!(before.text("f(-n)"), "f(-n) == format!(\"-{}\", result)");
        assert_eq!(
            after.text("f(1000 * n)"),
            "f(1000 * n) == format!(\"{},000\", result)"
        );
        // A piece is written so that the format string reads it back.
        let odd = TextForm::Affixed {
            piece: piece("{\"}\\"),
            at: Place::End,
        };
        assert_eq!(
            odd.text("f(x)"),
            "f(x) == format!(\"{}{{\\\"}}\\\\\", result)"
        );
    }

    #[test]
    fn a_few_elements_before_or_after_a_sequence_are_fitted_and_must_match_whole() {
        let seq = |xs: &[i128]| Value::IntSeq(xs.to_vec());
        let before = Form::SeqAffixed {
            piece: vec![128],
            at: Place::Start,
        };
        let after = Form::SeqAffixed {
            piece: vec![0, 0],
            at: Place::End,
        };
        assert_eq!(
            Form::seq_affixed(&[5, 1], &[128, 5, 1]),
            vec![before.clone()]
        );
        assert_eq!(
            Form::seq_affixed(&[5, 1], &[5, 1, 0, 0]),
            vec![after.clone()]
        );
        assert_eq!(Form::seq_affixed(&[7], &[7, 7]).len(), 2);
        // Not where nothing was added, nor more than a piece, nor what is not at an end.
        assert!(Form::seq_affixed(&[5, 1], &[5, 1]).is_empty());
        assert!(Form::seq_affixed(&[5], &[5, 0, 0, 0, 0, 0, 0, 0, 0, 0]).is_empty());
        assert_eq!(
            Form::seq_affixed(&[5], &[5, 0, 0, 0, 0, 0, 0, 0, 0, 0][..9]).len(),
            1
        );
        assert!(Form::seq_affixed(&[5, 1], &[5, 9, 1]).is_empty());
        let holds = |f: &Form, y: Value, t: Value| f.holds(&view(&[(y, t)])[0]);
        let on = |f: &Form, y: &[i128], t: &[i128]| holds(f, seq(y), seq(t));
        assert!(on(&before, &[3], &[128, 3]) && on(&before, &[], &[128]));
        assert!(!on(&before, &[3], &[3, 128]) && !on(&before, &[3], &[129, 3]));
        assert!(!on(&before, &[3], &[128, 4]) && !on(&before, &[3], &[128, 128, 3]));
        assert!(on(&after, &[9, 8], &[9, 8, 0, 0]) && !on(&after, &[9, 8], &[9, 8, 0]));
        assert!(!on(&after, &[9, 8], &[9, 7, 0, 0]) && !on(&after, &[9, 8], &[9, 8, 0, 1]));
        let text = || Value::Str("a".into());
        assert!(!holds(&before, text(), text()));
    }

    #[test]
    fn the_same_digits_ignore_all_but_the_digits_in_their_order() {
        let same = TextForm::SameDigits;
        assert!(same.holds("1.50 kB", "1.50 MB"));
        assert!(same.holds("999 B", "999 kB"));
        assert!(!same.holds("1.50 kB", "1.5 MB"));
        assert!(!same.holds("12 B", "21 B"));
        assert!(same.holds("no digits", "none"));
        assert_eq!(
            same.text("f(n)"),
            "f(n).chars().filter(char::is_ascii_digit).eq(result.chars().filter(char::is_ascii_digit))"
        );
    }

    #[test]
    fn a_result_equal_to_a_length_counts_characters_and_elements() {
        let len_of = Form::LenOf(0);
        let holds = |input: Value, y2: Value| {
            len_of.holds(&Pair {
                y: &Value::Int(0),
                y2: &y2,
                n: 0.0,
                n2: 0.0,
                len: 0,
                input: &[input],
            })
        };
        assert!(holds(Value::Str("é1".into()), Value::Int(2)));
        assert!(!holds(Value::Str("é1".into()), Value::Int(3)));
        assert!(holds(Value::IntSeq(vec![1, 2, 3]), Value::Int(3)));
        assert!(holds(Value::List(vec![Value::Bool(true)]), Value::Int(1)));
        assert!(!holds(Value::List(vec![]), Value::Int(1)));
        assert!(!holds(Value::Str("ab".into()), Value::Float(2.0)));
        assert!(!holds(Value::Int(2), Value::Int(2)));
    }

    #[test]
    fn a_value_at_a_special_point_is_fitted_as_a_power_of_another_argument() {
        let fitted = |g: &dyn Fn(f64) -> f64, xs: &[f64]| {
            let runs: Vec<([Value; 1], Value)> = xs
                .iter()
                .map(|&x| ([Value::Float(x)], Value::Float(g(x))))
                .collect();
            let y = Value::Float(0.0);
            let pairs: Vec<Pair<'_>> = runs
                .iter()
                .map(|(input, y2)| Pair {
                    y: &y,
                    y2,
                    n: 0.0,
                    n2: 0.0,
                    len: 0,
                    input,
                })
                .collect();
            param_powers(&pairs, 0, false)
        };
        let xs = [0.0, 0.3, 2.5, -4.0, 7.75];
        let peak = 1.0 / (2.0 * std::f64::consts::PI).sqrt();
        // Fitted to the digits the runs hold; a run at zero, whose follow-up is infinite, is
        // passed over for the fit and holds as infinite.
        let found = fitted(&|x| peak / x, &xs);
        assert!(
            matches!(found[..], [Form::ParamPower { param: 0, c, power: -1 }]
                if (c.value - peak).abs() < 1e-13 && c.value != peak),
            "{found:?}"
        );
        assert_eq!(
            fitted(&|x| -3.0 * x * x, &xs),
            [Form::ParamPower {
                param: 0,
                c: Const::lit(-3.0),
                power: 2
            }]
        );
        assert_eq!(
            fitted(&|x| 0.5 / (x * x), &xs),
            [Form::ParamPower {
                param: 0,
                c: Const::lit(0.5),
                power: -2
            }]
        );
        // A first power with another factor, and a reciprocal without one.
        assert_eq!(
            fitted(&|x| 2.5 * x, &xs),
            [Form::ParamPower {
                param: 0,
                c: Const::lit(2.5),
                power: 1
            }]
        );
        assert_eq!(
            fitted(&|x| 1.0 / x, &xs),
            [Form::ParamPower {
                param: 0,
                c: Const::lit(1.0),
                power: -1
            }]
        );
        // The argument itself is `Form::Param`'s; a constant, or a power with another
        // offset, is none.
        assert_eq!(fitted(&|x| x, &xs), []);
        assert_eq!(fitted(&|_| 0.4, &xs), []);
        assert_eq!(fitted(&|x| 2.0 * x + 1.0, &xs), []);
        assert_eq!(fitted(&|x| x.powi(3), &xs), []);
        // Nothing to fit on: every argument zero.
        assert_eq!(fitted(&|x| x, &[0.0, 0.0]), []);
        // Judged within the rounding of its product.
        let form = Form::ParamPower {
            param: 0,
            c: Const::lit(peak),
            power: -1,
        };
        assert!(holds_on(&form, 0.0, peak / 3.0, 0.0, 0.0, 3.0));
        assert!(holds_on(
            &form,
            0.0,
            peak / 3.0 * (1.0 + 2e-16),
            0.0,
            0.0,
            3.0
        ));
        assert!(!holds_on(
            &form,
            0.0,
            peak / 3.0 * (1.0 + 1e-9),
            0.0,
            0.0,
            3.0
        ));
        assert!(holds_on(
            &form,
            0.0,
            peak / 3.0 * (1.0 + 1e-9),
            0.0,
            1e-9,
            3.0
        ));
        assert!(!holds_on(&form, 0.0, f64::NAN, 0.0, 0.0, 3.0));
        assert_eq!(form.raw_constants(), 1);
        // The tolerance: the unit roundings of the follow-up and of each step of the product
        // (`1 / x` of `x = 2` rounds twice), NOISE_UNITS of them: within 48 units of
        // `EPS`, not 60.
        let reciprocal = Form::ParamPower {
            param: 0,
            c: Const::lit(1.0),
            power: -1,
        };
        let off = |units: f64| 0.5 + units * EPS;
        assert!(holds_on(&reciprocal, 0.0, off(40.0), 0.0, 0.0, 2.0));
        assert!(!holds_on(&reciprocal, 0.0, off(60.0), 0.0, 0.0, 2.0));
        let simple = Form::ParamPower {
            param: 0,
            c: Const::lit(2.0),
            power: 2,
        };
        assert_eq!(simple.raw_constants(), 0);
    }

    #[test]
    fn a_constant_follow_up_gets_no_fitted_factor_of_the_result() {
        let runs = pairs(&[
            (0.1, 0.4),
            (2.0, 0.4 + 1e-17),
            (-3.0, 0.4),
            (5.0, 0.4),
            (7.0, 0.4),
        ]);
        let view = view(&runs);
        assert_eq!(fit_numeric(&view, &view, false), None);
        // One that moves with the result, however slightly, is fitted.
        let runs = pairs(&[(0.1, 0.41), (2.0, 0.6), (-3.0, 0.1), (5.0, 0.9), (7.0, 1.1)]);
        let view = super::tests::view(&runs);
        assert!(matches!(
            fit_numeric(&view, &view, false),
            Some(Form::Affine { .. })
        ));
    }

    #[test]
    fn a_parameter_as_coefficient_or_offset_is_judged_within_the_noise_of_both_runs() {
        let times = Form::ByParam {
            param: 0,
            by: By::Times,
            plus_one: false,
        };
        let plus = Form::ByParam {
            param: 0,
            by: By::Plus,
            plus_one: false,
        };
        // Exact.
        assert!(holds_on(&times, 1.5, 3.0, 0.0, 0.0, 2.0));
        assert!(holds_on(&plus, 1.5, 3.5, 0.0, 0.0, 2.0));
        assert!(!holds_on(&times, 1.5, 3.5, 0.0, 0.0, 2.0));
        // The original's noise, scaled by the coefficient: 32 × 2 × 1e-3.
        assert!(holds_on(&times, 1.0, 2.06, 1e-3, 0.0, 2.0));
        assert!(!holds_on(&times, 1.0, 2.07, 1e-3, 0.0, 2.0));
        // As an offset, the original's noise alone: 32 × 1e-3.
        assert!(holds_on(&plus, 1.0, 3.03, 1e-3, 0.0, 2.0));
        assert!(!holds_on(&plus, 1.0, 3.04, 1e-3, 0.0, 2.0));
        // The follow-up's noise: 32 × 1e-3, either way.
        assert!(holds_on(&times, 1.0, 2.03, 0.0, 1e-3, 2.0));
        assert!(!holds_on(&times, 1.0, 2.04, 0.0, 1e-3, 2.0));
        assert!(holds_on(&plus, 1.0, 3.03, 0.0, 1e-3, 2.0));
        assert!(!holds_on(&plus, 1.0, 3.04, 0.0, 1e-3, 2.0));
        // Rounding of the terms at their magnitude: 32 ulps of 4e15, about 28.
        assert!(holds_on(&times, 1e15, 2e15 + 20.0, 0.0, 0.0, 2.0));
        assert!(!holds_on(&times, 1e15, 2e15 + 40.0, 0.0, 0.0, 2.0));
        // As a divisor, the original's noise divided by it: 32 × 1e-3 / 2.
        let over = Form::ByParam {
            param: 0,
            by: By::Over,
            plus_one: false,
        };
        assert!(holds_on(&over, 3.0, 1.5, 0.0, 0.0, 2.0));
        assert!(!holds_on(&over, 3.0, 1.6, 0.0, 0.0, 2.0));
        assert!(holds_on(&over, 1.0, 0.515, 1e-3, 0.0, 2.0));
        assert!(!holds_on(&over, 1.0, 0.52, 1e-3, 0.0, 2.0));
        // Plus one: a period's discount, `y / (x + 1)`.
        let discount = Form::ByParam {
            param: 0,
            by: By::Over,
            plus_one: true,
        };
        assert!(holds_on(&discount, 3.0, 1.0, 0.0, 0.0, 2.0));
        assert!(!holds_on(&discount, 3.0, 1.5, 0.0, 0.0, 2.0));
        assert!(holds_on(&plus, 2e15, 2e15 + 20.0 + 2.0, 0.0, 0.0, 2.0));
        assert!(!holds_on(&plus, 2e15, 2e15 + 40.0 + 2.0, 0.0, 0.0, 2.0));
        // A parameter as the result itself.
        let param = Form::Param(0);
        assert!(holds_on(&param, 9.0, 2.0, 0.0, 0.0, 2.0));
        assert!(holds_on(&param, 9.0, 2.03, 5.0, 1e-3, 2.0));
        assert!(!holds_on(&param, 9.0, 2.04, 5.0, 1e-3, 2.0));
        assert!(holds_on(&param, 9.0, 2e15 + 20.0, 0.0, 0.0, 2e15));
        assert!(!holds_on(&param, 9.0, 2e15 + 40.0, 0.0, 0.0, 2e15));
    }

    #[test]
    fn an_elementwise_relation_needs_the_tolerance_of_its_farthest_element() {
        let same = Form::SeqAffine {
            alpha: Const::lit(2.0),
            beta: Const::lit(0.0),
        };
        let (y, t) = (
            Value::FloatSeq(vec![1.0, 10.0]),
            Value::FloatSeq(vec![2.0, 20.2]),
        );
        let pair = Pair {
            y: &y,
            y2: &t,
            n: 0.0,
            n2: 0.0,
            len: 2,
            input: &[],
        };
        assert!((same.needed_tolerance(&pair) - 0.2 / 20.2).abs() < 1e-12);
    }

    #[test]
    fn only_the_same_result_again_is_the_identity() {
        let k = Const::lit;
        assert!(Form::Affine {
            alpha: k(1.0),
            beta: k(0.0)
        }
        .is_identity());
        assert!(Form::SeqAffine {
            alpha: k(1.0),
            beta: k(0.0)
        }
        .is_identity());
        for other in [
            Form::Affine {
                alpha: k(1.0),
                beta: k(2.0),
            },
            Form::Affine {
                alpha: k(0.0),
                beta: k(0.0),
            },
            Form::SeqAffine {
                alpha: k(-1.0),
                beta: k(0.0),
            },
            Form::AtMost,
            Form::SeqPermutation,
        ] {
            assert!(!other.is_identity(), "{other:?}");
        }
    }

    #[test]
    fn an_affine_form_is_judged_within_the_noise_and_rounding_of_its_terms() {
        let holds = |form: &Form, y: f64, t: f64, n: f64| {
            form.holds(&Pair {
                y: &Value::Float(y),
                y2: &Value::Float(t),
                n,
                n2: 0.0,
                len: 0,
                input: &[],
            })
        };
        // A zero follow-up, at the scale of an original result of 10: 32 roundings of it.
        let zero = Form::zero();
        assert!(holds(&zero, 10.0, 1e-14, 0.0));
        assert!(holds(&zero, 10.0, -1e-14, 0.0));
        assert!(!holds(&zero, 10.0, 1e-12, 0.0));
        // And of its noise.
        assert!(holds(&zero, 10.0, 1e-10, 1e-11));
        assert!(!holds(&zero, 10.0, 1e-9, 1e-11));
        // `y' = 2y` at 1e6: 32 roundings of both sides (about 2.8e-8), and twice the
        // original's noise.
        let double = Form::Affine {
            alpha: Const::lit(2.0),
            beta: Const::lit(0.0),
        };
        assert!(holds(&double, 1e6, 2e6 + 2e-8, 0.0));
        assert!(
            holds(&double, 1e6, 2e6 + 2.5e-8, 0.0),
            "the rounding of 2·y, not 2 + y"
        );
        assert!(!holds(&double, 1e6, 2e6 + 1e-6, 0.0));
        assert!(holds(&double, 1e6, 2e6 + 6e-8, 1e-9));
        assert!(!holds(&double, 1e6, 2e6 + 6e-8, 0.0));
        // `y' = y + 1e6` at 1: the rounding of the offset's term too (about 1.4e-8).
        let shifted = Form::Affine {
            alpha: Const::lit(1.0),
            beta: Const::lit(1e6),
        };
        assert!(holds(&shifted, 1.0, 1e6 + 1.0 + 1e-8, 0.0));
        assert!(!holds(&shifted, 1.0, 1e6 + 1.0 + 1e-6, 0.0));
    }

    #[test]
    fn a_ratio_of_squares_is_judged_within_the_noise_of_the_squares() {
        // `y'² · n = y² · (n - 1)` at `n = 4`, `y = 2`: `y' = √3`, each with a noise of 1e-9.
        let f = Form::LenRatio {
            a: 1,
            b: -1,
            c: 1,
            d: 0,
            squared: true,
        };
        let y = Value::Float(2.0);
        let holds = |t: f64| {
            f.holds(&Pair {
                y: &y,
                y2: &Value::Float(t),
                n: 1e-9,
                n2: 1e-9,
                len: 4,
                input: &[],
            })
        };
        let root = 3f64.sqrt();
        assert!(holds(root));
        assert!(holds(root + 1e-9), "within the noise");
        assert!(!holds(root + 1e-6), "beyond it");
        assert!(!holds(root - 1e-6), "beyond it");
    }

    #[test]
    fn a_length_ratio_is_judged_within_each_side_s_noise_and_rounding() {
        // `y' · n = y · (n - 1)` at `n = 5`: the sides are `5·y'` and `4·y`, and the tolerance
        // is 32 × (5·n' + 4·n + ε·(|5·y'| + |4·y|)).
        let ratio = |squared| Form::LenRatio {
            a: 1,
            b: -1,
            c: 1,
            d: 0,
            squared,
        };
        // The follow-up whose side is off by `off`: `5·y'^(1 or 2) = 4·y^(1 or 2) + off`.
        let holds = |squared: bool, y: f64, off: f64, n: f64, n2: f64| {
            let rhs = 4.0 * if squared { y * y } else { y };
            let t = if squared {
                ((rhs + off) / 5.0).sqrt()
            } else {
                (rhs + off) / 5.0
            };
            ratio(squared).holds(&Pair {
                y: &Value::Float(y),
                y2: &Value::Float(t),
                n,
                n2,
                len: 5,
                input: &[],
            })
        };
        // The follow-up's noise, times its side's factor 5: 1.6e-7.
        assert!(holds(false, 5.0, 1.2e-7, 0.0, 1e-9));
        assert!(!holds(false, 5.0, 2e-7, 0.0, 1e-9));
        // The original's, times 4: 1.28e-7.
        assert!(holds(false, 5.0, 1e-7, 1e-9, 0.0));
        assert!(!holds(false, 5.0, 1.6e-7, 1e-9, 0.0));
        // The rounding of both sides, about 2e7 each: 2.8e-7.
        assert!(holds(false, 5e6, 2e-7, 0.0, 0.0));
        assert!(!holds(false, 5e6, 1e-6, 0.0, 0.0));
        // Squared, a noise is the square's: 2·|y|·n, so at `y = 10` 2.56e-6 of the original's,
        // and 2.86e-6 of the follow-up's (at `y' = √80`).
        assert!(holds(true, 10.0, 2e-6, 1e-9, 0.0));
        assert!(!holds(true, 10.0, 4e-6, 1e-9, 0.0));
        assert!(holds(true, 10.0, 2e-6, 0.0, 1e-9));
        assert!(!holds(true, 10.0, 4e-6, 0.0, 1e-9));
        // What a pasted relation's tolerance must be: the sides' gap, relative to them.
        let needed = |squared: bool, y: f64, t: f64| {
            ratio(squared).needed_tolerance(&Pair {
                y: &Value::Float(y),
                y2: &Value::Float(t),
                n: 0.0,
                n2: 0.0,
                len: 5,
                input: &[],
            })
        };
        // `5·4.1 = 20.5` against `4·5 = 20`; squared, `5·1.5² = 11.25` against `4·3² = 36`.
        assert!((needed(false, 5.0, 4.1) - 0.5 / 20.5).abs() < 1e-12);
        assert!((needed(true, 3.0, 1.5) - 24.75 / 36.0).abs() < 1e-12);
        assert_eq!(needed(false, 5.0, 4.0), 0.0);
    }

    /// Pairs of (result, follow-up, length) with no noise.
    fn noiseless(ys: &[(Value, Value, usize)]) -> Vec<Pair<'_>> {
        ys.iter()
            .map(|(y, y2, len)| Pair {
                y,
                y2,
                n: 0.0,
                n2: 0.0,
                len: *len,
                input: &[],
            })
            .collect()
    }

    #[test]
    fn a_length_ratio_is_fitted_only_on_three_lengths_or_more() {
        // A sample variance's follow-up: `y' = y · (n - 1) / n`.
        let ys: Vec<(Value, Value, usize)> = [(3, 2.0), (4, 5.0), (5, 1.5), (3, 7.0)]
            .iter()
            .map(|&(n, y)| {
                let t = y * (n as f64 - 1.0) / n as f64;
                (Value::Float(y), Value::Float(t), n)
            })
            .collect();
        let pairs = |take: usize| noiseless(&ys[..take]);
        let variance = Form::LenRatio {
            a: 1,
            b: -1,
            c: 1,
            d: 0,
            squared: false,
        };
        assert_eq!(fit_len_ratio(&pairs(4)), Some(variance.clone()));
        assert_eq!(fit_len_ratio(&pairs(3)), Some(variance));
        // Two lengths: many ratios pass through two points.
        assert_eq!(fit_len_ratio(&pairs(2)), None);
        // One pair of each length fits, a fourth does not: no ratio.
        let off = Value::Float(7.0);
        let mut broken = pairs(4);
        broken[3].y2 = &off;
        assert_eq!(fit_len_ratio(&broken), None);
        // A factor of the length alone, `y' = y · n`, is written with a positive denominator.
        let fitted = |factor: &dyn Fn(usize) -> f64| {
            let ys: Vec<(Value, Value, usize)> = [(3, 2.0), (4, 5.0), (6, 1.5)]
                .iter()
                .map(|&(n, y)| (Value::Float(y), Value::Float(y * factor(n)), n))
                .collect();
            fit_len_ratio(&noiseless(&ys))
        };
        assert_eq!(
            fitted(&|n| n as f64),
            Some(Form::LenRatio {
                a: 1,
                b: 0,
                c: 0,
                d: 1,
                squared: false
            })
        );
        // A constant factor is no ratio of lengths: the affine forms state it.
        assert_eq!(fitted(&|_| 2.0), None);
    }

    #[test]
    fn a_strict_inequality_needs_a_gap_no_tolerance_can_blur() {
        let num = |y: f64| Value::Float(y);
        let holds = |form: Form, y: f64, y2: f64, n: f64| {
            form.holds(&Pair {
                y: &num(y),
                y2: &num(y2),
                n,
                n2: n,
                len: 0,
                input: &[],
            })
        };
        assert!(holds(Form::Above, 1.0, 1.001, 0.0));
        assert!(!holds(Form::Above, 1.0, 1.0 + 5e-5, 0.0), "under 1e-4 of 1");
        // The gap scales with the values: 0.05 is under 1e-4 of 1000.
        assert!(!holds(Form::Above, 1e3, 1e3 + 0.05, 0.0));
        assert!(holds(Form::Above, 1e3, 1e3 + 0.2, 0.0));
        // And with the noise: 32 × (0.01 + 0.01) is more than the 0.2 climbed.
        assert!(!holds(Form::Above, 1e3, 1e3 + 0.2, 0.01));
        assert!(holds(Form::Above, 1e3, 1e3 + 0.7, 0.01));
        // A gap of exactly the margin is none.
        assert!(!holds(Form::Above, 0.0, 1e-4, 0.0));
        assert!(!holds(Form::Below, 0.0, -1e-4, 0.0));
        assert!(holds(Form::Below, 0.0, -2e-4, 0.0));
        assert!(!holds(Form::Below, 0.0, 2e-4, 0.0));
        assert!(!holds(Form::Above, f64::NAN, 1.0, 0.0));
        assert!(!holds(Form::Above, 1.0, f64::INFINITY, 0.0));
        assert!(!holds(Form::Above, f64::NEG_INFINITY, 1.0, 0.0));
        assert!(!holds(Form::Below, f64::INFINITY, 1.0, 0.0));
    }

    #[test]
    fn a_scaled_result_is_fitted_and_snapped_to_its_constant() {
        let v = pairs(
            &(1..20)
                .map(|i| (i as f64, i as f64 * std::f64::consts::E))
                .collect::<Vec<_>>(),
        );
        let f = fit_numeric(&view(&v), &view(&v), false).unwrap();
        assert_eq!(
            f,
            Form::Affine {
                alpha: Const {
                    value: std::f64::consts::E,
                    name: Some("E")
                },
                beta: Const::lit(0.0)
            }
        );
        let cosine = pairs(
            &(0..20)
                .map(|i| {
                    let x = i as f64 * 0.3;
                    (x.cos(), (2.0 * x).cos())
                })
                .collect::<Vec<_>>(),
        );
        let with_noise: Vec<Pair<'_>> = view(&cosine)
            .into_iter()
            .map(|p| Pair {
                n: 1e-16,
                n2: 1e-16,
                ..p
            })
            .collect();
        let f = fit_numeric(&with_noise, &with_noise, false).unwrap();
        assert_eq!(
            f,
            Form::Quadratic {
                a: Const::lit(2.0),
                b: Const::lit(0.0),
                c: Const::lit(-1.0)
            }
        );
    }

    #[test]
    fn an_unsnappable_coefficient_is_kept_raw_and_no_relation_is_none() {
        let r = 2f64.cbrt();
        let v = pairs(
            &(1..20)
                .map(|i| (i as f64, i as f64 * r))
                .collect::<Vec<_>>(),
        );
        let Form::Affine { alpha, beta } = fit_numeric(&view(&v), &view(&v), false).unwrap() else {
            panic!()
        };
        // Kept to the digits the evidence holds it to: a hair from the float, never a
        // simple constant.
        assert!(
            (alpha.value - r).abs() < 1e-14 && alpha.name.is_none() && beta.value == 0.0,
            "{alpha:?} {beta:?}"
        );
        let noise = pairs(
            &(1..20)
                .map(|i| (i as f64, ((i * 7919) % 13) as f64))
                .collect::<Vec<_>>(),
        );
        assert_eq!(fit_numeric(&view(&noise), &view(&noise), false), None);
        // A relation fitted on some pairs fails where the others disagree.
        let mut bent = v.clone();
        bent.push((Value::Float(30.0), Value::Float(30.0 * r + 1e-6)));
        assert_eq!(fit_numeric(&view(&v), &view(&bent), false), None);
    }

    #[test]
    fn a_coefficient_a_hair_from_a_simple_constant_is_it_where_it_holds() {
        let build = |c: &[Const]| Some(c[0].value);
        // Fitted to results of `f32`s: where `-1` holds as well, it is `-1`.
        let holds_near = |a: &f64| (a + 0.999_999_97).abs() < 1e-6;
        let got = snapped(&[-0.999_999_97], false, true, build, &holds_near);
        assert_eq!(got, Some(-1.0));
        // Of results that are not all `f32`s, a hair is noise even where `-1` holds (a hash
        // periodic only up to its own noise).
        assert_eq!(
            snapped(&[-0.999_999_97], false, false, build, &holds_near),
            None
        );
        // Where `-1` does not hold, the hair was noise: nothing.
        let holds_exactly = |a: &f64| *a == -0.999_999_97;
        assert_eq!(
            snapped(&[-0.999_999_97], false, true, build, &holds_exactly),
            None
        );
        // Past a hundred `f32` units from any simple constant, it is a coefficient of its own.
        let holds_own = |a: &f64| (a + 0.9999).abs() < 1e-12;
        assert_eq!(
            snapped(&[-0.9999], false, true, build, &holds_own),
            Some(-0.9999)
        );
        // The hair is relative to the constant: a turn fitted three millionths long is a
        // turn, where the constant, named, is what holds.
        let tau = std::f64::consts::TAU;
        let named = |c: &[Const]| Some(c[0]);
        let holds_named = |c: &Const| c.name == Some("TAU");
        let got = snapped(&[tau * (1.0 + 3e-6)], false, true, named, &holds_named);
        assert_eq!(got.and_then(|c| c.name), Some("TAU"));
        // Single precision, exactly.
        assert!(single_precision([0.5, -3.0, f64::from(0.1f32)].into_iter()));
        assert!(!single_precision([0.5, 0.1].into_iter()));
        // The strict snap keeps its rounding's width, relative to a constant past one.
        assert_eq!(
            snap(16.0 * (1.0 + 5e-10), false).map(|c| c.value),
            Some(16.0)
        );
        assert!(snap(-0.999_999_97, false).is_none());
        assert_eq!(snap(-0.999_999_999_9, false).map(|c| c.value), Some(-1.0));
    }

    #[test]
    fn tolerance_follows_the_noise() {
        let (y, t) = (Value::Float(1.0), Value::Float(1.0 + 1e-12));
        let f = Form::Affine {
            alpha: Const::lit(1.0),
            beta: Const::lit(0.0),
        };
        assert!(!f.holds(&Pair {
            y: &y,
            y2: &t,
            n: 0.0,
            n2: 0.0,
            len: 0,
            input: &[],
        }));
        assert!(f.holds(&Pair {
            y: &y,
            y2: &t,
            n: 0.0,
            n2: 1e-13,
            len: 0,
            input: &[],
        }));
        assert!(!f.holds(&Pair {
            y: &y,
            y2: &t,
            n: 0.0,
            n2: 1e-15,
            len: 0,
            input: &[],
        }));
        let nan = Value::Float(f64::NAN);
        assert!(!f.holds(&Pair {
            y: &nan,
            y2: &nan,
            n: 0.0,
            n2: 0.0,
            len: 0,
            input: &[],
        }));
        let inf = Value::Float(f64::INFINITY);
        assert!(f.holds(&Pair {
            y: &inf,
            y2: &inf,
            n: 0.0,
            n2: 0.0,
            len: 0,
            input: &[],
        }));
        assert!(!f.holds(&Pair {
            y: &y,
            y2: &inf,
            n: 1.0,
            n2: 1.0,
            len: 0,
            input: &[],
        }));
        assert!(
            (f.needed_tolerance(&Pair {
                y: &y,
                y2: &t,
                n: 0.0,
                n2: 0.0,
                len: 0,
                input: &[],
            }) - 1e-12)
                .abs()
                < 1e-15
        );
    }

    #[test]
    fn integer_forms_are_exact_past_a_float_s_precision() {
        // 2⁶⁰: a float holds it, and not it plus one.
        let big = 1i128 << 60;
        let holds = |f: &Form, y: i128, t: i128, x: i128| {
            let input = [Value::Int(x)];
            f.holds(&Pair {
                y: &Value::Int(y),
                y2: &Value::Int(t),
                n: 0.0,
                n2: 0.0,
                len: 0,
                input: &input,
            })
        };
        let affine = |a: f64, b: f64| Form::Affine {
            alpha: Const::lit(a),
            beta: Const::lit(b),
        };
        assert!(holds(&affine(1.0, 1.0), big, big + 1, 0));
        assert!(!holds(&affine(1.0, 1.0), big, big, 0));
        assert!(!holds(&affine(1.0, 1.0), big, big + 2, 0));
        assert!(holds(&affine(-2.0, 3.0), big, 3 - 2 * big, 0));
        // A coefficient that is not whole is judged as floats: `0.5 · 4 == 2`.
        assert!(holds(&affine(0.5, 0.0), 4, 2, 0));
        let times = Form::ByParam {
            param: 0,
            by: By::Times,
            plus_one: false,
        };
        let plus = Form::ByParam {
            param: 0,
            by: By::Plus,
            plus_one: false,
        };
        assert!(holds(&times, big, 3 * big, 3) && !holds(&times, big, 3 * big + 1, 3));
        assert!(holds(&plus, big, big + 5, 5) && !holds(&plus, big, big + 4, 5));
        // No quotient of integers: it is rounded.
        let over = Form::ByParam {
            param: 0,
            by: By::Over,
            plus_one: false,
        };
        assert!(!holds(&over, 6, 3, 2));
        let param = Form::Param(0);
        assert!(holds(&param, 0, big, big) && !holds(&param, 0, big + 1, big));
        let (least, most) = (Form::AtLeast, Form::AtMost);
        assert!(holds(&least, big, big, 0) && !holds(&least, big, big - 1, 0));
        assert!(holds(&most, big, big, 0) && !holds(&most, big, big + 1, 0));
        // An exact product past `i128` holds of nothing.
        assert!(!holds(&times, i128::MAX, i128::MAX, 2));
    }

    #[test]
    fn integer_coefficients_are_solved_exactly_and_never_zero_or_inexact() {
        let fit = |pairs: &[(i128, i128)]| {
            let values: Vec<(Value, Value)> = pairs
                .iter()
                .map(|&(y, t)| (Value::Int(y), Value::Int(t)))
                .collect();
            let ps: Vec<Pair<'_>> = values
                .iter()
                .map(|(y, t)| Pair {
                    y,
                    y2: t,
                    n: 0.0,
                    n2: 0.0,
                    len: 0,
                    input: &[],
                })
                .collect();
            fit_integers(&ps, &ps)
        };
        let big = 1i128 << 60;
        // `y' = 3y + 1`, past a float's precision.
        assert_eq!(
            fit(&[(big, 3 * big + 1), (big + 1, 3 * big + 4), (7, 22)]),
            Some(Form::Affine {
                alpha: Const::lit(3.0),
                beta: Const::lit(1.0)
            })
        );
        // Solved from two results two apart: the slope is the rise over the run.
        assert_eq!(
            fit(&[(0, 1), (2, 7), (5, 16)]),
            Some(Form::Affine {
                alpha: Const::lit(3.0),
                beta: Const::lit(1.0)
            })
        );
        // A follow-up that gives a constant is no relation of this form.
        assert_eq!(fit(&[(1, 5), (2, 5), (9, 5)]), None);
        // No whole slope; one pair off the line; a constant a float cannot write exactly.
        assert_eq!(fit(&[(0, 0), (2, 1), (4, 2)]), None);
        assert_eq!(fit(&[(0, 1), (1, 2), (2, 4)]), None);
        assert_eq!(fit(&[(0, big + 1), (1, big + 2)]), None);
    }

    #[test]
    fn list_forms_compare_elements_whole_and_count_repeats() {
        let b = |x: bool| Value::Bool(x);
        let list = |xs: &[bool]| Value::List(xs.iter().map(|&x| b(x)).collect());
        let a = list(&[true, false, false]);
        let p = |y2: &Value| {
            Form::ALL_LIST
                .iter()
                .filter(|f| {
                    f.holds(&Pair {
                        y: &a,
                        y2,
                        n: 0.0,
                        n2: 0.0,
                        len: 0,
                        input: &[],
                    })
                })
                .cloned()
                .collect::<Vec<Form>>()
        };
        use Form::*;
        assert_eq!(p(&a), [Same, SeqPermutation, Subset, Superset, LenDelta(0)]);
        assert_eq!(
            p(&list(&[false, false, true])),
            [SeqReversed, SeqPermutation, Subset, Superset, LenDelta(0)]
        );
        // The same elements, another count of each: no permutation.
        assert_eq!(
            p(&list(&[true, true, false])),
            [Subset, Superset, LenDelta(0)]
        );
        assert_eq!(
            p(&list(&[true, false, false, true, false, false])),
            [Subset, Superset, LenDouble]
        );
        assert_eq!(p(&list(&[false, false])), [Subset, LenDelta(-1)]);
        assert_eq!(p(&list(&[])), [Subset, LenDelta(-3)]);
    }

    #[test]
    fn sequence_forms_judge_order_membership_and_length() {
        let a = Value::FloatSeq(vec![1.0, 2.0, 3.0]);
        let rev = Value::FloatSeq(vec![3.0, 2.0, 1.0]);
        let sub = Value::FloatSeq(vec![3.0, 1.0]);
        let p = |y2| Pair {
            y: &a,
            y2,
            n: 0.0,
            n2: 0.0,
            len: 0,
            input: &[],
        };
        assert!(Form::SeqReversed.holds(&p(&rev)) && !Form::SeqReversed.holds(&p(&a)));
        // Turned one place, within the runs' rounding; a reversal is no turn.
        let turned = Value::FloatSeq(vec![2.0, 3.0 + 1e-15, 1.0]);
        assert!(Form::SeqTurned.holds(&p(&turned)) && !Form::SeqTurned.holds(&p(&rev)));
        // The rounding it holds within is the tolerance a pasted relation needs.
        assert!(Form::SeqTurned.needed_tolerance(&p(&turned)) > 0.0);
        assert!(!Form::SeqTurned.holds(&p(&a)) && !Form::SeqTurned.holds(&p(&sub)));
        // A record's parts, exactly.
        let parts = |xs: [i128; 3]| Value::Record(xs.map(Value::Int).to_vec());
        let (y, y2) = (parts([1, 2, 3]), parts([2, 3, 1]));
        let whole = |y2| Pair {
            y: &y,
            y2,
            n: 0.0,
            n2: 0.0,
            len: 0,
            input: &[],
        };
        assert!(Form::SeqTurned.holds(&whole(&y2)));
        let (back, one) = (parts([3, 1, 2]), Value::Record(vec![Value::Int(2)]));
        assert!(!Form::SeqTurned.holds(&whole(&back)) && !Form::SeqTurned.holds(&whole(&one)));
        assert!(Form::SeqPermutation.holds(&p(&rev)) && !Form::SeqPermutation.holds(&p(&sub)));
        assert!(Form::Subset.holds(&p(&sub)) && !Form::Superset.holds(&p(&sub)));
        assert!(Form::LenDelta(-1).holds(&p(&sub)) && !Form::LenDelta(1).holds(&p(&sub)));
        assert!(!Form::LenDouble.holds(&p(&sub)));
        let doubled = Value::FloatSeq(vec![2.0, 4.0, 6.0]);
        let ps = [Pair {
            y: &a,
            y2: &doubled,
            n: 0.0,
            n2: 0.0,
            len: 0,
            input: &[],
        }; 3];
        assert_eq!(
            fit_elementwise(&ps, &ps, false),
            Some(Form::SeqAffine {
                alpha: Const::lit(2.0),
                beta: Const::lit(0.0)
            })
        );
        assert!(Form::AtLeast.holds(&Pair {
            y: &Value::Float(1.0),
            y2: &Value::Float(2.0),
            n: 0.0,
            n2: 0.0,
            len: 0,
            input: &[],
        }));
        assert!(!Form::AtMost.holds(&Pair {
            y: &Value::Float(1.0),
            y2: &Value::Float(2.0),
            n: 0.0,
            n2: 0.0,
            len: 0,
            input: &[],
        }));
    }

    #[test]
    fn a_coefficient_is_raw_when_it_is_no_simple_constant() {
        assert!(!raw(&Const::lit(2.0)) && !raw(&Const::lit(-0.5)));
        assert!(raw(&Const::lit(0.7)));
        assert!(!raw(&snap(std::f64::consts::E, false).unwrap()));
        let form = Form::Quadratic {
            a: Const::lit(0.7),
            b: Const::lit(3.0),
            c: Const::lit(1.3),
        };
        assert_eq!(form.raw_constants(), 2);
        assert_eq!(Form::AtLeast.raw_constants(), 0);
    }

    #[test]
    fn constants_snap_only_when_within_rounding() {
        assert_eq!(snap(3.0000000000000004, true), Some(Const::lit(3.0)));
        assert_eq!(snap(-std::f64::consts::PI, false).unwrap().name, Some("PI"));
        assert_eq!(snap(3.15, false), None);
        assert_eq!(snap(0.5, true), None);
        assert_eq!(snap(1e-17, false), Some(Const::lit(0.0)));
        assert_eq!(snap(17.0, false), None);
    }

    #[test]
    fn a_number_rounds_to_significant_digits() {
        assert_eq!(significant(1.750_000_000_000_000_4, 3), 1.75);
        assert_eq!(significant(1.098_612_288_668_11, 4), 1.099);
        assert_eq!(significant(-0.000_123_456, 2), -0.000_12);
        assert_eq!(significant(123_456.0, 1), 100_000.0);
        assert_eq!(significant(2.5, 15), 2.5);
    }

    #[test]
    fn a_length_factor_between_squares_allows_the_noise_and_no_more() {
        // A standard deviation of 4 elements, its sample twice over: squares in (2n - 2)/(2n - 1).
        let f = Form::LenRatio {
            a: 2,
            b: -2,
            c: 2,
            d: -1,
            squared: true,
        };
        let y = 3.0f64;
        let exact = (y * y * 6.0 / 7.0).sqrt();
        let pair = |t: f64, n: f64| {
            f.holds(&Pair {
                y: &Value::Float(y),
                y2: &Value::Float(t),
                n,
                n2: n,
                len: 4,
                input: &[],
            })
        };
        assert!(pair(exact, 1e-16));
        assert!(!pair(exact * 1.01, 1e-16), "1% off, with noise of 1e-16");
        assert!(pair(exact * (1.0 + 1e-6), 1e-6), "within the noise");
    }
}
