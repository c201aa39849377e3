//! What discovery reasons about: the arguments and results of a function as numbers, booleans,
//! strings, characters, sequences of numbers, lists of anything else and records (tuples,
//! arrays, structs), with the conversions from and to the Rust types they come from.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The shape of an argument or a result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Kind {
    /// `f32` or `f64`.
    Float,
    /// A primitive integer.
    Int,
    /// `bool`.
    Bool,
    /// A vector or slice of floats.
    FloatSeq,
    /// A vector or slice of integers.
    IntSeq,
    /// A `String` or `&str`.
    Str,
    /// A `char`.
    Char,
    /// A vector or slice of anything that is not a number: `bool`s, strings, rows, records.
    /// Only its order and its length are moved; its elements are compared whole.
    List,
    /// A tuple, an array or a struct that derives [`Discoverable`](macro@crate::Discoverable):
    /// compared whole. A struct's fields are moved one by one where it is a method's receiver.
    Record,
    /// An `Option`: relations say whether `None` is kept, and of the value inside.
    Option,
    /// A `Result`: relations say whether `Err` is kept, and of the value inside `Ok`.
    Result,
}

impl Kind {
    /// Whether values of this kind are sequences.
    pub fn is_seq(self) -> bool {
        matches!(self, Kind::FloatSeq | Kind::IntSeq)
    }

    /// Whether values of this kind are single numbers.
    pub fn is_number(self) -> bool {
        matches!(self, Kind::Float | Kind::Int)
    }
}

/// One argument or result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Value {
    /// A float (`NaN` and infinities are kept, written as strings in JSON).
    Float(#[serde(with = "lossless")] f64),
    /// An integer (of any primitive type but a `u128` above `i128::MAX`; in JSON a number,
    /// or a string beyond the 64-bit range).
    Int(#[serde(with = "wide")] i128),
    /// A boolean.
    Bool(bool),
    /// A sequence of floats.
    FloatSeq(#[serde(with = "lossless_seq")] Vec<f64>),
    /// A sequence of integers.
    IntSeq(#[serde(with = "wide_seq")] Vec<i128>),
    /// A string.
    Str(String),
    /// A character.
    Char(char),
    /// A list of values compared whole.
    List(Vec<Value>),
    /// A record's fields (a tuple's or an array's elements), in declaration order.
    Record(Vec<Value>),
    /// An `Option`.
    Option(Option<Box<Value>>),
    /// A `Result`, its error as its `Debug` text.
    Result(Result<Box<Value>, String>),
}

impl Value {
    /// The value as one number (floats, integers, and booleans as 0 or 1).
    pub fn number(&self) -> Option<f64> {
        match self {
            Value::Float(x) => Some(*x),
            Value::Int(i) => Some(*i as f64),
            Value::Bool(b) => Some(f64::from(u8::from(*b))),
            _ => None,
        }
    }

    /// The elements of a sequence, as floats.
    pub fn elements(&self) -> Option<Vec<f64>> {
        match self {
            Value::FloatSeq(v) => Some(v.clone()),
            Value::IntSeq(v) => Some(v.iter().map(|&i| i as f64).collect()),
            _ => None,
        }
    }

    /// Whether every float the value holds, at any depth, is finite: a result with a `NaN`
    /// or an infinity in it came from outside the function's domain.
    pub fn finite(&self) -> bool {
        match self {
            Value::Float(x) => x.is_finite(),
            Value::FloatSeq(xs) => xs.iter().all(|x| x.is_finite()),
            Value::List(items) | Value::Record(items) => items.iter().all(Value::finite),
            Value::Option(Some(v)) | Value::Result(Ok(v)) => v.finite(),
            _ => true,
        }
    }

    /// The kind of this value.
    pub fn kind(&self) -> Kind {
        match self {
            Value::Float(_) => Kind::Float,
            Value::Int(_) => Kind::Int,
            Value::Bool(_) => Kind::Bool,
            Value::FloatSeq(_) => Kind::FloatSeq,
            Value::IntSeq(_) => Kind::IntSeq,
            Value::Str(_) => Kind::Str,
            Value::Char(_) => Kind::Char,
            Value::List(_) => Kind::List,
            Value::Record(_) => Kind::Record,
            Value::Option(_) => Kind::Option,
            Value::Result(_) => Kind::Result,
        }
    }

    /// The value inside an `Option` or a `Result`: `Some(None)` for `None` or `Err`, `None`
    /// for a value of another kind.
    pub fn inner(&self) -> Option<Option<&Value>> {
        match self {
            Value::Option(v) => Some(v.as_deref()),
            Value::Result(v) => Some(v.as_deref().ok()),
            _ => None,
        }
    }

    /// The value as Rust source: `1.5`, `[1, 2]`, `"ab"`, `('a', true)`.
    pub fn source(&self) -> String {
        let join = |items: &mut dyn Iterator<Item = String>| items.collect::<Vec<_>>().join(", ");
        match self {
            Value::Float(x) => super::transform::float_literal(*x),
            Value::Int(i) => i.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::FloatSeq(xs) => format!(
                "[{}]",
                join(&mut xs.iter().map(|&x| super::transform::float_literal(x)))
            ),
            Value::IntSeq(xs) => format!("[{}]", join(&mut xs.iter().map(i128::to_string))),
            Value::Str(s) => format!("{s:?}"),
            Value::Char(c) => format!("{c:?}"),
            Value::List(items) => format!("[{}]", join(&mut items.iter().map(Value::source))),
            Value::Record(items) => format!("({})", join(&mut items.iter().map(Value::source))),
            Value::Option(None) => "None".into(),
            Value::Option(Some(v)) => format!("Some({})", v.source()),
            Value::Result(Ok(v)) => format!("Ok({})", v.source()),
            Value::Result(Err(e)) => format!("Err({e})"),
        }
    }

    /// The elements of a list.
    pub fn items(&self) -> Option<&[Value]> {
        match self {
            Value::List(items) => Some(items),
            _ => None,
        }
    }

    /// A sequence of this value's kind holding `elements` (integers rounded; `None` when one is
    /// not a whole number in range).
    pub fn seq_like(&self, elements: Vec<f64>) -> Option<Value> {
        match self {
            Value::FloatSeq(_) => Some(Value::FloatSeq(elements)),
            Value::IntSeq(_) => elements
                .into_iter()
                .map(whole)
                .collect::<Option<Vec<i128>>>()
                .map(Value::IntSeq),
            _ => None,
        }
    }

    /// A number of this value's kind (`None` for an integer that is not whole or out of range).
    pub fn number_like(&self, x: f64) -> Option<Value> {
        match self {
            Value::Float(_) => Some(Value::Float(x)),
            Value::Int(_) => whole(x).map(Value::Int),
            _ => None,
        }
    }
}

/// Adds `base` with its parameter `param` set to `v` to `out`, unless `out` holds it: how
/// inputs built to break a relation are gathered.
pub(super) fn push_with(out: &mut Vec<Vec<Value>>, base: &[Value], param: usize, v: Value) {
    let mut input = base.to_vec();
    input[param] = v;
    if !out.contains(&input) {
        out.push(input);
    }
}

/// `x` as an integer when it is a whole number that a float holds exactly.
pub fn whole(x: f64) -> Option<i128> {
    // 2^53: beyond it not every integer is a float, so arithmetic on them is not exact.
    const EXACT: f64 = 9_007_199_254_740_992.0;
    (x.fract() == 0.0 && x.abs() <= EXACT).then_some(x as i128)
}

/// A type whose values discovery can transform and compare. Implemented for floats, integers,
/// `bool`, `char`, strings, tuples and arrays of such types, vectors of any of them, and
/// structs that derive it (`#[derive(invite::Discoverable)]`); a `&[T]` or `&Vec<T>` parameter
/// is discovered through `Vec<T>`, a `&str` through `String`.
#[diagnostic::on_unimplemented(
    message = "relation discovery cannot reason about `{Self}`",
    note = "discovery handles numbers, `bool`, `char`, strings, tuples, arrays, vectors of \
            them, and structs that `#[derive(invite::Discoverable)]`; derive it, leave this \
            function out of discovery, or discover a wrapper whose parameters and result are \
            such types"
)]
pub trait Discoverable: Sized {
    /// The shape of its values.
    const KIND: Kind;
    /// A struct's fields, in declaration order, as its [`Value::Record`] holds them; empty for
    /// every other type. A method's receiver with fields has each moved as a parameter.
    fn fields() -> Vec<Field> {
        Vec::new()
    }
    /// This value as discovery sees it (`None` when it cannot be represented, such as a
    /// `u64` above `i64::MAX`).
    fn to_value(&self) -> Option<Value>;
    /// The Rust value for a transformed one (`None` when it does not fit, such as `-1` for a
    /// `usize`).
    fn from_value(v: &Value) -> Option<Self>;
}

macro_rules! float_discoverable {
    ($($t:ty),*) => {$(
        impl Discoverable for $t {
            const KIND: Kind = Kind::Float;
            fn to_value(&self) -> Option<Value> {
                Some(Value::Float(f64::from(*self)))
            }
            fn from_value(v: &Value) -> Option<Self> {
                match v {
                    Value::Float(x) => Some(*x as $t),
                    _ => None,
                }
            }
        }
        impl Discoverable for Vec<$t> {
            const KIND: Kind = Kind::FloatSeq;
            fn to_value(&self) -> Option<Value> {
                Some(Value::FloatSeq(self.iter().map(|&x| f64::from(x)).collect()))
            }
            fn from_value(v: &Value) -> Option<Self> {
                match v {
                    Value::FloatSeq(xs) => Some(xs.iter().map(|&x| x as $t).collect()),
                    _ => None,
                }
            }
        }
    )*};
}
float_discoverable!(f32, f64);

macro_rules! int_discoverable {
    ($($t:ty),*) => {$(
        impl Discoverable for $t {
            const KIND: Kind = Kind::Int;
            fn to_value(&self) -> Option<Value> {
                i128::try_from(*self).ok().map(Value::Int)
            }
            fn from_value(v: &Value) -> Option<Self> {
                match v {
                    Value::Int(i) => <$t>::try_from(*i).ok(),
                    _ => None,
                }
            }
        }
        impl Discoverable for Vec<$t> {
            const KIND: Kind = Kind::IntSeq;
            fn to_value(&self) -> Option<Value> {
                self.iter()
                    .map(|&x| i128::try_from(x).ok())
                    .collect::<Option<Vec<i128>>>()
                    .map(Value::IntSeq)
            }
            fn from_value(v: &Value) -> Option<Self> {
                match v {
                    Value::IntSeq(xs) => xs.iter().map(|&x| <$t>::try_from(x).ok()).collect(),
                    _ => None,
                }
            }
        }
    )*};
}
int_discoverable!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

impl Discoverable for bool {
    const KIND: Kind = Kind::Bool;
    fn to_value(&self) -> Option<Value> {
        Some(Value::Bool(*self))
    }
    fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }
}

/// A struct's field as discovery moves it: a receiver's fields are the values its
/// transformations change (`Self { rows: invite::mr::permute(&self.rows), ..self.clone() }`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// Its name.
    pub name: &'static str,
    /// Its type as written.
    pub ty: &'static str,
    /// The shape of its values.
    pub kind: Kind,
}

/// A type that can be an element of a [`Kind::List`]: anything discoverable but a number
/// (vectors of numbers are sequences, whose elements are moved one by one). Derived with
/// [`Discoverable`](macro@crate::Discoverable).
pub trait Element: Discoverable {}

impl<T: Element> Discoverable for Vec<T> {
    const KIND: Kind = Kind::List;
    fn to_value(&self) -> Option<Value> {
        self.iter()
            .map(Discoverable::to_value)
            .collect::<Option<Vec<Value>>>()
            .map(Value::List)
    }
    fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::List(items) => items.iter().map(T::from_value).collect(),
            _ => None,
        }
    }
}

impl Element for bool {}
impl Element for char {}
impl Element for String {}
impl<T: Element> Element for Vec<T> {}
macro_rules! seq_element {
    ($($t:ty),*) => {$( impl Element for Vec<$t> {} )*};
}
seq_element!(f32, f64, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

impl<T: Discoverable> Discoverable for Option<T> {
    const KIND: Kind = Kind::Option;
    fn to_value(&self) -> Option<Value> {
        Some(Value::Option(match self {
            Some(v) => Some(Box::new(v.to_value()?)),
            None => None,
        }))
    }
    fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::Option(Some(v)) => Some(Some(T::from_value(v)?)),
            Value::Option(None) => Some(None),
            _ => None,
        }
    }
}
impl<T: Discoverable> Element for Option<T> {}

/// A result's error is compared by its `Debug` text, and cannot be made again: a `Result`
/// is discovered as a result, not as an argument.
impl<T: Discoverable, E: std::fmt::Debug> Discoverable for Result<T, E> {
    const KIND: Kind = Kind::Result;
    fn to_value(&self) -> Option<Value> {
        Some(Value::Result(match self {
            Ok(v) => Ok(Box::new(v.to_value()?)),
            Err(e) => Err(format!("{e:?}")),
        }))
    }
    fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::Result(Ok(v)) => Some(Ok(T::from_value(v)?)),
            _ => None,
        }
    }
}

impl Discoverable for char {
    const KIND: Kind = Kind::Char;
    fn to_value(&self) -> Option<Value> {
        Some(Value::Char(*self))
    }
    fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::Char(c) => Some(*c),
            _ => None,
        }
    }
}

macro_rules! record_tuples {
    ($(($($t:ident $i:tt),+)),*) => {$(
        impl<$($t: Discoverable),+> Discoverable for ($($t,)+) {
            const KIND: Kind = Kind::Record;
            fn to_value(&self) -> Option<Value> {
                Some(Value::Record(vec![$(self.$i.to_value()?),+]))
            }
            fn from_value(v: &Value) -> Option<Self> {
                match v {
                    Value::Record(items) if items.len() == [$($i),+].len() => {
                        Some(($($t::from_value(&items[$i])?,)+))
                    }
                    _ => None,
                }
            }
        }
        impl<$($t: Discoverable),+> Element for ($($t,)+) {}
    )*};
}
record_tuples!(
    (A 0),
    (A 0, B 1),
    (A 0, B 1, C 2),
    (A 0, B 1, C 2, D 3)
);

impl<T: Discoverable, const N: usize> Discoverable for [T; N] {
    const KIND: Kind = Kind::Record;
    fn to_value(&self) -> Option<Value> {
        self.iter()
            .map(Discoverable::to_value)
            .collect::<Option<Vec<Value>>>()
            .map(Value::Record)
    }
    fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::Record(items) if items.len() == N => {
                let items: Vec<T> = items.iter().map(T::from_value).collect::<Option<_>>()?;
                items.try_into().ok()
            }
            _ => None,
        }
    }
}
impl<T: Discoverable, const N: usize> Element for [T; N] {}

impl Discoverable for String {
    const KIND: Kind = Kind::Str;
    fn to_value(&self) -> Option<Value> {
        Some(Value::Str(self.clone()))
    }
    fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::Str(s) => Some(s.clone()),
            _ => None,
        }
    }
}

/// Floats in JSON: finite ones as numbers, the others as `"NaN"`, `"inf"`, `"-inf"` (JSON has
/// no literal for them, and serde_json would write `null` and lose which one it was).
pub(crate) mod lossless {
    use super::*;

    #[derive(Serialize, Deserialize)]
    #[serde(untagged)]
    pub(super) enum Repr {
        Number(f64),
        Text(String),
    }

    pub(super) fn to_repr(x: f64) -> Repr {
        if x.is_finite() {
            Repr::Number(x)
        } else if x.is_nan() {
            Repr::Text("NaN".into())
        } else if x > 0.0 {
            Repr::Text("inf".into())
        } else {
            Repr::Text("-inf".into())
        }
    }

    pub(super) fn from_repr<E: serde::de::Error>(r: Repr) -> Result<f64, E> {
        match r {
            Repr::Number(x) => Ok(x),
            Repr::Text(t) => match t.as_str() {
                "NaN" => Ok(f64::NAN),
                "inf" => Ok(f64::INFINITY),
                "-inf" => Ok(f64::NEG_INFINITY),
                other => Err(E::custom(format!(
                    "expected a number, \"NaN\", \"inf\" or \"-inf\", got {other:?}"
                ))),
            },
        }
    }

    pub fn serialize<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
        to_repr(*x).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        from_repr(Repr::deserialize(d)?)
    }
}

/// Integers in JSON: as numbers where 64 bits hold them, as strings beyond. A record is read
/// through serde's buffered content, which holds no 128-bit number.
pub(crate) mod wide {
    use super::*;

    #[derive(Serialize, Deserialize)]
    #[serde(untagged)]
    pub(super) enum Repr {
        Signed(i64),
        Unsigned(u64),
        Text(String),
    }

    pub(super) fn to_repr(x: i128) -> Repr {
        if let Ok(i) = i64::try_from(x) {
            Repr::Signed(i)
        } else if let Ok(u) = u64::try_from(x) {
            Repr::Unsigned(u)
        } else {
            Repr::Text(x.to_string())
        }
    }

    pub(super) fn from_repr<E: serde::de::Error>(r: Repr) -> Result<i128, E> {
        match r {
            Repr::Signed(i) => Ok(i.into()),
            Repr::Unsigned(u) => Ok(u.into()),
            Repr::Text(t) => t
                .parse()
                .map_err(|_| E::custom(format!("expected an integer, got {t:?}"))),
        }
    }

    pub fn serialize<S: Serializer>(x: &i128, s: S) -> Result<S::Ok, S::Error> {
        to_repr(*x).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<i128, D::Error> {
        from_repr(Repr::deserialize(d)?)
    }
}

pub(crate) mod wide_seq {
    use super::wide::{from_repr, to_repr, Repr};
    use super::*;

    pub fn serialize<S: Serializer>(xs: &[i128], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(xs.iter().map(|&x| to_repr(x)))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<i128>, D::Error> {
        Vec::<Repr>::deserialize(d)?
            .into_iter()
            .map(from_repr)
            .collect()
    }
}

pub(crate) mod lossless_seq {
    use super::lossless::{from_repr, to_repr, Repr};
    use super::*;

    pub fn serialize<S: Serializer>(xs: &[f64], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(xs.iter().map(|&x| to_repr(x)))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
        Vec::<Repr>::deserialize(d)?
            .into_iter()
            .map(from_repr)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_finite_where_every_float_in_it_is() {
        let f = Value::Float;
        assert!(f(1.0).finite() && !f(f64::NAN).finite() && !f(f64::INFINITY).finite());
        assert!(Value::Int(i128::MAX).finite() && Value::Str("NaN".into()).finite());
        assert!(!Value::FloatSeq(vec![1.0, f64::NAN]).finite());
        assert!(Value::FloatSeq(vec![1.0, -2.0]).finite());
        assert!(!Value::Record(vec![f(f64::NAN), Value::Int(0)]).finite());
        assert!(Value::Record(vec![f(0.5), Value::Int(0)]).finite());
        assert!(!Value::List(vec![f(1.0), f(f64::NEG_INFINITY)]).finite());
        assert!(!Value::Option(Some(Box::new(f(f64::NAN)))).finite());
        assert!(Value::Option(None).finite());
        assert!(!Value::Result(Ok(Box::new(f(f64::NAN)))).finite());
        assert!(Value::Result(Err("NaN".into())).finite());
    }

    #[test]
    fn special_floats_survive_json() {
        let v = Value::FloatSeq(vec![1.5, f64::NAN, f64::INFINITY, f64::NEG_INFINITY]);
        let back: Value = serde_json::from_str(&serde_json::to_string(&v).unwrap()).unwrap();
        let Value::FloatSeq(xs) = back else {
            panic!("{back:?}")
        };
        assert_eq!(xs[0], 1.5);
        assert!(xs[1].is_nan());
        assert_eq!(xs[2], f64::INFINITY);
        assert_eq!(xs[3], f64::NEG_INFINITY);
        let one: Value = serde_json::from_str(r#"{"float":"-inf"}"#).unwrap();
        assert_eq!(one, Value::Float(f64::NEG_INFINITY));
        assert!(serde_json::from_str::<Value>(r#"{"float":"many"}"#).is_err());
    }

    #[test]
    fn integers_past_64_bits_survive_a_log_record() {
        // A record is read through serde's buffered content, which has no 128-bit numbers:
        // beyond 64 bits an integer is written as a string.
        let wide = [
            0,
            -7,
            i128::from(i64::MIN),
            i128::from(u64::MAX),
            i128::from(u64::MAX) + 1,
            i128::MIN,
            i128::MAX,
        ];
        let observation = crate::discover::Observation {
            input: vec![Value::IntSeq(wide.to_vec())],
            output: Value::Int(i128::from(u64::MAX)),
            noise: 0.0,
            probe: 0.0,
            size: 0,
            follow: Vec::new(),
            signature: None,
            images: Vec::new(),
            inner_images: Vec::new(),
            mutants: Vec::new(),
        };
        let record = crate::record::Record::Observation(crate::record::Observation {
            v: crate::record::VERSION,
            time: String::new(),
            host: String::new(),
            pid: 1,
            instance: String::new(),
            service: String::new(),
            version: String::new(),
            site: "s".into(),
            signature: "fn f(xs: &[i128]) -> u64".into(),
            run: 1,
            duration_us: 0,
            seeds: serde_json::from_str(
                r#"{"rng_seed":"00","rng_stream":0,"rng_word_pos":0,"test_seed":0}"#,
            )
            .unwrap(),
            observation: observation.clone(),
        });
        let line = record.to_line();
        assert!(line.contains(r#""int":18446744073709551615"#), "{line}");
        assert!(line.contains(r#""18446744073709551616""#), "{line}");
        let crate::record::Record::Observation(back) =
            crate::record::Record::from_line(&line).unwrap()
        else {
            panic!("{line}")
        };
        assert_eq!(back.observation, observation);
        assert!(serde_json::from_str::<Value>(r#"{"int":"many"}"#).is_err());
    }

    #[test]
    fn integers_that_do_not_fit_are_refused_not_wrapped() {
        assert_eq!(u128::MAX.to_value(), None);
        assert_eq!(u64::MAX.to_value(), Some(Value::Int(u64::MAX.into())));
        assert_eq!(usize::from_value(&Value::Int(-1)), None);
        assert_eq!(u8::from_value(&Value::Int(255)), Some(255));
        assert_eq!(Vec::<u8>::from_value(&Value::IntSeq(vec![1, 256])), None);
        assert_eq!(whole(2.5), None);
        assert_eq!(whole(-3.0), Some(-3));
        assert_eq!(whole(1e300), None);
        assert_eq!(Value::Int(3).number_like(1.5), None);
        assert_eq!(Value::Int(3).number_like(-4.0), Some(Value::Int(-4)));
        assert_eq!(Value::Float(3.0).number_like(1.5), Some(Value::Float(1.5)));
    }
}
