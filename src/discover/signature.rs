//! The function discovery works on: its name, whether it is a method, and its parameters as
//! they are written, which decide how a relation passes a transformed argument.

use std::fmt;

use super::transform::NumTy;
use super::value::Kind;

/// A parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// Its name in the function.
    pub name: String,
    /// Its type as written, without spaces (`&[f64]`, `u32`).
    pub ty: String,
    /// The shape of its values.
    pub kind: Kind,
}

impl Param {
    /// The field of the receiver it is (`rows` for `self.rows`): a receiver whose type derives
    /// `Discoverable` has each field moved as a parameter of its own.
    pub fn field(&self) -> Option<&str> {
        self.name.strip_prefix("self.")
    }

    /// Whether it is a `&mut` reference.
    pub fn by_mut(&self) -> bool {
        self.ty.starts_with("&mut")
    }

    /// Whether it is passed by reference.
    pub fn by_ref(&self) -> bool {
        self.ty.starts_with('&')
    }

    /// The values the parameter's integer type holds (see [`int_range`]).
    pub fn int_range(&self) -> (i128, i128) {
        int_range(&self.ty)
    }

    /// The values an element of the parameter's integer sequence holds (`&[u8]`, `Vec<i32>`).
    pub fn element_range(&self) -> (i128, i128) {
        let t = self.ty.trim_start_matches('&').trim();
        let element = t
            .strip_prefix("Vec<")
            .and_then(|t| t.strip_suffix('>'))
            .or_else(|| t.strip_prefix('[').and_then(|t| t.strip_suffix(']')))
            .unwrap_or(t);
        int_range(element)
    }

    /// Whether it is an unsigned integer (`usize`, `&u32`, ...), below zero nowhere.
    pub fn is_unsigned(&self) -> bool {
        self.kind == Kind::Int
            && matches!(
                self.ty.trim_start_matches('&').trim(),
                "usize" | "u8" | "u16" | "u32" | "u64" | "u128"
            )
    }

    /// The element type of a sequence parameter as written (`bool` for `&[bool]`,
    /// `&Vec<bool>` or `Vec<bool>`).
    pub fn element_ty(&self) -> Option<String> {
        let t = self.ty.trim_start_matches("&mut").trim_start_matches('&');
        let inside = t
            .strip_prefix("Vec<")
            .and_then(|t| t.strip_suffix('>'))
            .or_else(|| t.strip_prefix('[').and_then(|t| t.strip_suffix(']')))?;
        // An array's `[T; N]`.
        let elem = inside.rsplit_once(';').map_or(inside, |(e, _)| e);
        Some(elem.trim().to_string())
    }

    /// The numeric type its numbers are written in.
    pub fn num_ty(&self) -> NumTy {
        if matches!(self.kind, Kind::Int | Kind::IntSeq) || self.array_of() == Some(Kind::Int) {
            NumTy::Int
        } else if self.ty.contains("f32") {
            NumTy::F32
        } else {
            NumTy::F64
        }
    }

    /// The kind of the numbers of an array of numbers (`[f64; 3]`): a sequence whose length
    /// is its type's, moved as a sequence is but never made longer or shorter. `None` for
    /// any other parameter (a tuple, a record of fields of their own).
    pub fn array_of(&self) -> Option<Kind> {
        let t = self
            .ty
            .trim_start_matches("&mut")
            .trim_start_matches('&')
            .trim();
        let array = self.kind == Kind::Record && t.starts_with('[') && t.contains(';');
        let element = self.element_ty().filter(|_| array)?;
        match element.as_str() {
            "f32" | "f64" => Some(Kind::Float),
            "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32" | "u64"
            | "u128" | "usize" => Some(Kind::Int),
            _ => None,
        }
    }

    /// The parameter's number as an expression (`x`, or `*x` for `&f64`).
    pub fn value_text(&self) -> String {
        if self.by_ref() {
            format!("*{}", self.name)
        } else {
            self.name.clone()
        }
    }

    /// The parameter's elements as a slice expression (`xs`, or `&xs` for a `Vec`).
    pub fn slice_text(&self) -> String {
        if self.by_ref() {
            self.name.clone()
        } else {
            format!("&{}", self.name)
        }
    }

    /// The argument for a new number `expr`.
    pub fn pass(&self, expr: &str) -> String {
        if self.by_ref() {
            format!("&({expr})")
        } else {
            expr.to_string()
        }
    }

    /// The argument for a new owned sequence `expr`: made an array again, its length kept,
    /// where the parameter is one (`invite::mr::array(invite::mr::negate(&v))`).
    pub fn pass_owned(&self, expr: &str) -> String {
        let expr = match self.array_of() {
            Some(_) => format!("invite::mr::array({expr})"),
            None => expr.to_string(),
        };
        if self.by_ref() {
            format!("&{expr}")
        } else {
            expr.to_string()
        }
    }

    /// The argument passing the parameter on unchanged.
    pub fn pass_unchanged(&self) -> String {
        // A value of a type that is not `Copy`, passed by value, is passed as a copy: the
        // original is passed on too, or read after the call.
        let owned = matches!(
            self.kind,
            Kind::FloatSeq | Kind::IntSeq | Kind::List | Kind::Str | Kind::Record | Kind::Option
        );
        // An array of numbers is `Copy`.
        if owned && !self.by_ref() && self.array_of().is_none() {
            format!("{}.clone()", self.name)
        } else {
            self.name.clone()
        }
    }
}

/// A function's signature.
#[derive(Clone, Debug, PartialEq)]
pub struct Signature {
    /// Its name, as a relation calls it.
    pub name: String,
    /// Whether it is a method (`self.name(...)` in relations).
    pub method: bool,
    /// Its parameters after the receiver.
    pub params: Vec<Param>,
    /// The shape of its result.
    pub output: Kind,
    /// Its result type as written (`f64` when not given).
    pub output_ty: String,
    /// What a call is followed by to reach the part of the result relations are about
    /// (`.unwrap()`, `.0`); empty for the whole result.
    pub output_suffix: String,
    /// The `&mut` parameter of a function that changes it in place and returns nothing: what
    /// it holds after the call is the result.
    pub in_place: Option<usize>,
    /// Other functions of the crate, of one argument each, that a parameter or the result
    /// may be put through (`snake(&kebab(s)) == result`); none unless given
    /// ([`Discovery::sibling`](super::Discovery::sibling)).
    pub siblings: Vec<Signature>,
    /// Steps after which the function's result comes back, of an integer parameter each
    /// (`suffix(n + 100) == suffix(n)`), found on the inputs given offline (see `period`);
    /// each is a translation discovery tries. None unless found.
    pub periods: Vec<(usize, i128)>,
    /// The punctuation a string parameter's given values are written with, of each such
    /// parameter (a path's `/`, a list's `,`), found on the inputs given: each is added at
    /// either end of the string, as discovery adds a letter or a space
    /// (`clean(&format!("{path}/")) == result`). None unless found.
    pub separators: Vec<(usize, char)>,
}

impl Signature {
    /// Part `k` of a tuple or an array result, as written (`result.0`, `result[0]`).
    pub fn part_text(&self, k: usize) -> String {
        if self.output_ty.trim_start_matches('&').starts_with('[') {
            format!("result[{k}]")
        } else {
            format!("result.{k}")
        }
    }

    /// The call with `args` as Rust source, one per parameter. Where a receiver's field is
    /// changed, the call is on a copy with the new fields:
    /// `Self { rows: invite::mr::reverse(&self.rows), ..self.clone() }.predict(q)`.
    pub fn call(&self, args: &[String]) -> String {
        if let Some(p) = self.in_place {
            // What the parameter holds after a call on `args`:
            // `invite::mr::after(&invite::mr::reverse(xs), |v| sort(v))`.
            let mut inner = args.to_vec();
            let target = std::mem::replace(&mut inner[p], "v".into());
            let plain = Signature {
                in_place: None,
                ..self.clone()
            };
            return format!("invite::mr::after({target}, |v| {})", plain.call(&inner));
        }
        let mut changed = Vec::new();
        let mut rest = Vec::new();
        for (p, arg) in self.params.iter().zip(args) {
            match p.field() {
                Some(field) if *arg != p.pass_unchanged() => {
                    changed.push(format!("{field}: {arg}"));
                }
                Some(_) => {}
                None => rest.push(arg.as_str()),
            }
        }
        let args = rest.join(", ");
        let suffix = &self.output_suffix;
        if !changed.is_empty() {
            format!(
                "Self {{ {}, ..self.clone() }}.{}({args}){suffix}",
                changed.join(", "),
                self.name
            )
        } else if self.method {
            format!("self.{}({args}){suffix}", self.name)
        } else {
            format!("{}({args}){suffix}", self.name)
        }
    }

    /// The numeric type the result is written in.
    pub fn output_num_ty(&self) -> NumTy {
        if matches!(self.output, Kind::Int | Kind::IntSeq) {
            NumTy::Int
        } else if self.output_ty.contains("f32") {
            NumTy::F32
        } else {
            NumTy::F64
        }
    }

    /// Parses `fn name(a: f64, xs: &[f64]) -> f64` (`pub`, `fn`, a receiver and the result are
    /// optional), checking it against the kinds of the callable's parameters and result.
    pub fn parse(text: &str, kinds: &[Kind], output: Kind) -> Result<Signature, SignatureError> {
        let signature = || text.to_string();
        let mut rest = text.trim();
        for word in ["pub ", "fn "] {
            rest = rest.strip_prefix(word).unwrap_or(rest).trim_start();
        }
        let open = rest
            .find('(')
            .ok_or_else(|| SignatureError::NoParameterList {
                signature: signature(),
            })?;
        // The `)` that closes the parameter list, not one of a tuple result after it.
        let mut depth = 0i32;
        let close = rest[open..]
            .char_indices()
            .find_map(|(i, c)| {
                match c {
                    '(' | '[' | '<' => depth += 1,
                    ')' | ']' | '>' if !(c == '>' && rest[..open + i].ends_with('-')) => {
                        depth -= 1;
                    }
                    _ => {}
                }
                (c == ')' && depth == 0).then_some(open + i)
            })
            .ok_or_else(|| SignatureError::NoClosingParen {
                signature: signature(),
            })?;
        let name = rest[..open].trim();
        if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            return Err(SignatureError::NoName {
                signature: signature(),
            });
        }
        let output_ty = match rest[close + 1..].trim() {
            "" => "f64".to_string(),
            r => r
                .strip_prefix("->")
                .ok_or_else(|| SignatureError::NoArrow {
                    signature: signature(),
                })?
                .trim()
                .replace(' ', ""),
        };
        let mut method = false;
        let mut params = Vec::new();
        for part in split_top_level(&rest[open + 1..close]) {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            if part
                .trim_start_matches('&')
                .trim_start_matches("mut ")
                .trim()
                == "self"
            {
                method = true;
                continue;
            }
            let (pat, ty) =
                part.split_once(':')
                    .ok_or_else(|| SignatureError::UntypedParameter {
                        signature: signature(),
                        param: part.to_string(),
                    })?;
            let pat = pat.trim().trim_start_matches("mut ").trim();
            params.push((pat.to_string(), ty.replace(' ', "")));
        }
        if params.len() != kinds.len() {
            return Err(SignatureError::ParameterCount {
                signature: signature(),
                written: params.len(),
                taken: kinds.len(),
            });
        }
        let in_place = if output_ty == "()" {
            let muts: Vec<usize> = (0..params.len())
                .filter(|&i| params[i].1.starts_with("&mut"))
                .collect();
            (muts.len() == 1).then(|| muts[0])
        } else {
            None
        };
        Ok(Signature {
            name: name.to_string(),
            method,
            params: params
                .into_iter()
                .zip(kinds)
                .map(|((name, ty), &kind)| Param { name, ty, kind })
                .collect(),
            output,
            output_ty,
            output_suffix: String::new(),
            in_place,
            siblings: Vec::new(),
            periods: Vec::new(),
            separators: Vec::new(),
        })
    }
}

/// The values an integer type written as `ty` holds, as far as discovery represents them
/// (`i128`; a `usize` or `isize` as on a 64-bit target).
pub(super) fn int_range(ty: &str) -> (i128, i128) {
    match ty.trim_start_matches('&').trim() {
        "i8" => (i8::MIN.into(), i8::MAX.into()),
        "i16" => (i16::MIN.into(), i16::MAX.into()),
        "i32" => (i32::MIN.into(), i32::MAX.into()),
        "i64" | "isize" => (i64::MIN.into(), i64::MAX.into()),
        "u8" => (0, u8::MAX.into()),
        "u16" => (0, u16::MAX.into()),
        "u32" => (0, u32::MAX.into()),
        "u64" | "usize" => (0, u64::MAX.into()),
        "u128" => (0, i128::MAX),
        _ => (i128::MIN, i128::MAX),
    }
}

/// Why [`Signature::parse`] refused a signature. Each is fixed by writing the signature as the
/// function is declared, `fn name(x: f64, xs: &[f64]) -> f64`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SignatureError {
    /// No `(`.
    NoParameterList {
        /// The signature as given.
        signature: String,
    },
    /// No `)` after the `(`.
    NoClosingParen {
        /// The signature as given.
        signature: String,
    },
    /// Nothing, or something other than a name, before the `(`.
    NoName {
        /// The signature as given.
        signature: String,
    },
    /// Something other than `-> Type` after the parameters.
    NoArrow {
        /// The signature as given.
        signature: String,
    },
    /// A parameter without `: Type`.
    UntypedParameter {
        /// The signature as given.
        signature: String,
        /// The parameter as written.
        param: String,
    },
    /// Not as many parameters as the function given takes: make them agree.
    ParameterCount {
        /// The signature as given.
        signature: String,
        /// Parameters in the signature (a receiver not counted).
        written: usize,
        /// Parameters the function takes.
        taken: usize,
    },
}

impl fmt::Display for SignatureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const FIX: &str =
            "write it as `fn name(x: f64, xs: &[f64]) -> f64`, as the function is declared";
        match self {
            SignatureError::NoParameterList { signature } => {
                write!(f, "signature `{signature}` has no parameter list; {FIX}")
            }
            SignatureError::NoClosingParen { signature } => {
                write!(f, "signature `{signature}` has no closing `)`; {FIX}")
            }
            SignatureError::NoName { signature } => write!(
                f,
                "signature `{signature}` does not start with a function name; {FIX}"
            ),
            SignatureError::NoArrow { signature } => write!(
                f,
                "signature `{signature}`: expected `->` after the parameters; {FIX}"
            ),
            SignatureError::UntypedParameter { signature, param } => write!(
                f,
                "signature `{signature}`: parameter `{param}` has no type; {FIX}"
            ),
            SignatureError::ParameterCount {
                signature,
                written,
                taken,
            } => write!(
                f,
                "signature `{signature}` has {written} parameter(s) but the function given \
                 takes {taken}; make them agree"
            ),
        }
    }
}

impl std::error::Error for SignatureError {}

/// Splits on commas outside brackets (`HashMap<K, V>` stays one piece).
pub(super) fn split_top_level(s: &str) -> Vec<&str> {
    let mut depth = 0i32;
    let mut start = 0;
    let mut out = Vec::new();
    for (i, c) in s.char_indices() {
        match c {
            '<' | '[' | '(' => depth += 1,
            '>' | ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sequence_s_element_type_is_read_as_written() {
        let elem = |ty: &str| {
            Param {
                name: "v".into(),
                ty: ty.into(),
                kind: Kind::List,
            }
            .element_ty()
        };
        // (Types are kept without spaces.)
        for ty in [
            "&[bool]",
            "Vec<bool>",
            "&Vec<bool>",
            "&mut[bool]",
            "[bool;3]",
        ] {
            assert_eq!(elem(ty).as_deref(), Some("bool"), "{ty}");
        }
        assert_eq!(elem("Vec<(u8,char)>").as_deref(), Some("(u8,char)"));
        assert_eq!(elem("u64"), None);
        assert_eq!(elem("&str"), None);
    }

    #[test]
    fn a_declaration_parses_with_its_receiver_references_and_result() {
        let s = Signature::parse(
            "pub fn fit(&mut self, xs: &[f64], m: HashMap<u8, u8>, n: usize) -> Vec<f32>",
            &[Kind::FloatSeq, Kind::IntSeq, Kind::Int],
            Kind::FloatSeq,
        )
        .unwrap();
        assert!(s.method);
        assert_eq!(s.name, "fit");
        assert_eq!(s.params[0].ty, "&[f64]");
        assert_eq!(s.params[1].ty, "HashMap<u8,u8>");
        assert_eq!(s.params[2].name, "n");
        assert_eq!(s.output_ty, "Vec<f32>");
        assert_eq!(s.output_num_ty(), NumTy::F32);
        assert_eq!(s.call(&["a".into()]), "self.fit(a)");
        assert!(s.params[0].by_ref() && !s.params[2].by_ref());
        let plain = Signature::parse("sin(x: f64)", &[Kind::Float], Kind::Float).unwrap();
        assert!(!plain.method);
        assert_eq!(plain.output_ty, "f64");
        assert_eq!(plain.call(&["-x".into()]), "sin(-x)");
        // A tuple result's parentheses are not the parameter list's.
        let tuple = Signature::parse(
            "fn div_rem(a: i64, f: Box<dyn Fn(i64) -> i64>) -> (i64, i64)",
            &[Kind::Int, Kind::Record],
            Kind::Record,
        )
        .unwrap();
        assert_eq!(tuple.params[1].ty, "Box<dynFn(i64)->i64>");
        assert_eq!(tuple.output_ty, "(i64,i64)");
    }

    #[test]
    fn a_bad_signature_is_refused_with_what_is_wrong() {
        let err =
            |t: &str, k: &[Kind]| Signature::parse(t, k, Kind::Float).unwrap_err().to_string();
        assert!(err("sin", &[]).contains("no parameter list"));
        assert!(err("sin(x: f64, y: f64)", &[Kind::Float]).contains("2 parameter(s)"));
        assert!(err("sin(x)", &[Kind::Float]).contains("parameter `x` has no type"));
        assert!(err("(x: f64)", &[Kind::Float]).contains("function name"));
        assert!(err("sin(x: f64) f64", &[Kind::Float]).contains("expected `->`"));
        assert!(err("sin(x: f64", &[Kind::Float]).contains("closing"));
        assert_eq!(
            Signature::parse("sin(x)", &[Kind::Float], Kind::Float),
            Err(SignatureError::UntypedParameter {
                signature: "sin(x)".into(),
                param: "x".into()
            })
        );
        assert_eq!(
            err("fn f(x: f64)", &[]),
            "signature `fn f(x: f64)` has 1 parameter(s) but the function given takes 0; make \
             them agree"
        );
    }

    #[test]
    fn arguments_are_passed_as_the_parameter_is_declared() {
        let p = |ty: &str, kind| Param {
            name: "v".into(),
            ty: ty.into(),
            kind,
        };
        assert_eq!(p("&f64", Kind::Float).value_text(), "*v");
        assert_eq!(p("&f64", Kind::Float).pass("2.0 * *v"), "&(2.0 * *v)");
        assert_eq!(p("f64", Kind::Float).pass("-v"), "-v");
        assert_eq!(p("Vec<f64>", Kind::FloatSeq).pass_unchanged(), "v.clone()");
        assert_eq!(p("&[f64]", Kind::FloatSeq).pass_unchanged(), "v");
        assert_eq!(p("Vec<f64>", Kind::FloatSeq).slice_text(), "&v");
        assert_eq!(p("&[f64]", Kind::FloatSeq).pass_owned("w"), "&w");
        assert_eq!(p("Vec<i32>", Kind::IntSeq).num_ty(), NumTy::Int);
    }

    #[test]
    fn unsigned_parameters_are_told_apart() {
        let sig = Signature::parse(
            "fn f(a: usize, b: &u32, c: i64, d: f64, e: &[u8]) -> f64",
            &[Kind::Int, Kind::Int, Kind::Int, Kind::Float, Kind::IntSeq],
            Kind::Float,
        )
        .unwrap();
        let unsigned: Vec<bool> = sig.params.iter().map(Param::is_unsigned).collect();
        assert_eq!(unsigned, [true, true, false, false, false]);
    }
}
