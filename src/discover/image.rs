//! The result put through another function of the crate: what a person checks with the
//! crate's own predicates and normal forms (`is_nfc(&result)`, `nfd(&result) == nfd(s)`,
//! `decode(&result) == Ok(s)`), where no follow-up call of the function itself says it.
//!
//! The other function runs where the observation is made; what is recorded is whether each
//! relation held on the result, on each wrong version of it and on the input passed through
//! as the result, and on every follow-up run. The search reads those alone.

use super::signature::{Param, Signature};
use super::transform::{same_type, shares_params, takes_parts, takes_result};
use super::value::{Kind, Value};

/// A relation of the result through another function `g` of the crate
/// ([`Signature::siblings`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Image {
    /// `g(&result)` is `value`, for a predicate `g` of the result's type (`is_nfc(&result)`).
    Holds {
        /// The other function's index in [`Signature::siblings`].
        sibling: usize,
        /// What it gives.
        value: bool,
    },
    /// `g(&result) == result`: the result is already in `g`'s form (`nfc(&result) ==
    /// result` of a compatibility normal form).
    Fixed {
        /// The other function's index.
        sibling: usize,
    },
    /// `g(&result)` is the parameter `param`: `g` undoes the function (`decode(&result)` of
    /// an encoder is its input), inside `Some`/`Ok` where `g` returns an `Option` or a
    /// `Result`.
    Undoes {
        /// The other function's index.
        sibling: usize,
        /// The parameter it gives back.
        param: usize,
    },
    /// `g` of the run's own arguments with the result in parameter `param`'s place gives
    /// that parameter back, for `g` of the function's own parameters: the function's inverse
    /// in one argument, the others shared (`cdf(result, mean, sd) == p` of a quantile,
    /// `pv(rate, n, pmt, result) == pv` of a future value, `decrypt(&result, key) == text`).
    /// A float inverse is compared where it is finite.
    Inverse {
        /// The other function's index.
        sibling: usize,
        /// The parameter the result takes the place of, and that comes back.
        param: usize,
    },
    /// `g` of the run's own arguments with the result put in among them, at `slot`, gives
    /// zero, for `g` that takes the function's parameters and one more of the result's type:
    /// the result is a root of `g` (`npv(result, values) == 0.0` of an internal rate of
    /// return, a residual of a solver's solution, a derivative at an optimum).
    Root {
        /// The other function's index.
        sibling: usize,
        /// Where among `g`'s parameters the result goes.
        slot: usize,
    },
    /// `g(&result) == g(x)` for a parameter `x` of the result's type: the function keeps
    /// what `g` sees (`nfd(&result) == nfd(s)`: the text is canonically the same).
    Alike {
        /// The other function's index.
        sibling: usize,
        /// The parameter.
        param: usize,
    },
    /// `result <= g(x)` (`upper`) or `result >= g(x)`, for `g` another measure of the same
    /// input of the same type: a function of one parameter bounded by its twin
    /// (`width(s) <= width_cjk(s)`, a count of characters by the bytes).
    Bound {
        /// The other function's index.
        sibling: usize,
        /// Whether `g` bounds the result from above.
        upper: bool,
    },
    /// `result == g(x)`, `result == -g(x)` or `result == 1.0 - g(x)`, for `g` another
    /// measure of the same input: a function and its reference implementation, its opposite
    /// (a log-survival and a cumulative hazard), or its complement (`erf` and `erfc`, a
    /// distribution's `cdf` and `sf`).
    Twin {
        /// The other function's index.
        sibling: usize,
        /// How the result follows from `g`'s.
        as_is: TwinForm,
        /// Where `g` is taken: at the input, or at the input turned (`1.0 - g(1.0 - t)` of
        /// an easing curve's `in` and `out`).
        at: TwinAt,
    },
}

/// Where a twin is taken ([`Image::Twin`]): at the run's input, or at a float input turned
/// about a symmetry point, of the number line (`-x`) or of the unit interval (`1 - x`), the
/// same turns [`TwinForm`] makes of the twin's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TwinAt {
    /// `g(x)`.
    Input,
    /// `g(-x)`.
    Negated,
    /// `g(1 - x)`.
    Complement,
}

impl TwinAt {
    /// Every place, the input's own first.
    pub const ALL: [TwinAt; 3] = [TwinAt::Input, TwinAt::Negated, TwinAt::Complement];

    /// The place's index in [`TwinAt::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The input turned so (`None`: a turn of what is no float), of an `f32` parameter
    /// (`single`) turned as a pasted `1.0 - t` turns it: from the `f32` the function was
    /// given. A follow-up's input is an `f64` the function rounds; turned before it is
    /// rounded, it would round apart from the function's own `1 - t`, and the root of a
    /// cancellation (`sqrt(1 - (1 - t)²)` near zero) magnifies that past any tolerance.
    pub fn turn(self, x: &Value, single: bool) -> Option<Value> {
        let given = |x: f64| if single { f64::from(x as f32) } else { x };
        match (self, x) {
            (TwinAt::Input, _) => Some(x.clone()),
            (TwinAt::Negated, Value::Float(x)) => Some(Value::Float(-given(*x))),
            (TwinAt::Complement, Value::Float(x)) => Some(Value::Float(1.0 - given(*x))),
            _ => None,
        }
    }

    /// The argument as Rust source, of the parameter's value `x`.
    fn text(self, x: &str) -> String {
        match self {
            TwinAt::Input => x.to_string(),
            TwinAt::Negated => format!("-{x}"),
            TwinAt::Complement => format!("1.0 - {x}"),
        }
    }
}

/// How a function's result follows from its twin's on the same input ([`Image::Twin`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TwinForm {
    /// The same value.
    Same,
    /// Its negation (of a float).
    Negated,
    /// One minus it (of a float).
    Complement,
}

/// What one run showed of one [`Image`] relation.
pub struct Seen<'a> {
    /// The run's input.
    pub input: &'a [Value],
    /// Its result.
    pub result: &'a Value,
    /// `g` of the result (`None`: `g` failed on it).
    pub image: Option<&'a Value>,
    /// `g` of each parameter, where `g` takes its type and ran.
    pub of_params: &'a [Option<Value>],
    /// `g` of the run's arguments with the result in the place of [`Image::Inverse`]'s
    /// parameter (`None`: no such relation, or `g` failed).
    pub inverse: Option<&'a Value>,
    /// `g` of the run's arguments with the result put in at [`Image::Root`]'s slot (`None`:
    /// no such relation, or `g` failed).
    pub root: Option<&'a Value>,
    /// `g` of the run's input, where `g` is the function's twin ([`Image::Bound`]) and ran.
    pub of_input: Option<&'a Value>,
}

impl Image {
    /// The relations that make sense for a signature's other functions, by their types.
    pub fn all(sig: &Signature) -> Vec<Image> {
        let mut out = Vec::new();
        for (sibling, g) in sig.siblings.iter().enumerate() {
            if twin(sig, g) {
                out.extend([true, false].map(|upper| Image::Bound { sibling, upper }));
                out.push(Image::Twin {
                    sibling,
                    as_is: TwinForm::Same,
                    at: TwinAt::Input,
                });
                if sig.output == Kind::Float {
                    out.extend([TwinForm::Negated, TwinForm::Complement].map(|as_is| {
                        Image::Twin {
                            sibling,
                            as_is,
                            at: TwinAt::Input,
                        }
                    }));
                    // At the input turned, where it is a float.
                    if sig.params[0].kind == Kind::Float {
                        for at in [TwinAt::Negated, TwinAt::Complement] {
                            out.extend(
                                [TwinForm::Same, TwinForm::Negated, TwinForm::Complement]
                                    .map(|as_is| Image::Twin { sibling, as_is, at }),
                            );
                        }
                    }
                }
            }
            if shares_params(sig, g) {
                for (param, p) in sig.params.iter().enumerate() {
                    let in_place = p.kind == sig.output && same_type(&p.ty, &sig.output_ty);
                    if in_place && gives(g, p) {
                        out.push(Image::Inverse { sibling, param });
                    }
                }
            }
            if g.output.is_number() {
                out.extend(root_slots(sig, g).map(|slot| Image::Root { sibling, slot }));
            }
            let spread = takes_parts(sig, g);
            if !takes_result(sig, g) && !spread {
                continue;
            }
            if g.output == Kind::Bool {
                out.extend([true, false].map(|value| Image::Holds { sibling, value }));
            }
            if g.output == sig.output && same_type(&g.output_ty, &sig.output_ty) {
                out.push(Image::Fixed { sibling });
            }
            for (param, p) in sig.params.iter().enumerate() {
                if gives(g, p) {
                    out.push(Image::Undoes { sibling, param });
                }
                // `g(x)` of a parameter of the result's type needs `g` of one argument.
                if !spread && p.kind == sig.output && same_type(&p.ty, &sig.output_ty) {
                    out.push(Image::Alike { sibling, param });
                }
            }
        }
        out
    }

    /// The other function's index in [`Signature::siblings`].
    pub fn sibling(self) -> usize {
        match self {
            Image::Holds { sibling, .. }
            | Image::Fixed { sibling }
            | Image::Undoes { sibling, .. }
            | Image::Inverse { sibling, .. }
            | Image::Root { sibling, .. }
            | Image::Alike { sibling, .. }
            | Image::Bound { sibling, .. }
            | Image::Twin { sibling, .. } => sibling,
        }
    }

    /// Where a relation that reads `g` of the run's input takes it ([`TwinAt::Input`] of any
    /// other).
    pub fn at(self) -> TwinAt {
        match self {
            Image::Twin { at, .. } => at,
            _ => TwinAt::Input,
        }
    }

    /// Whether the relation reads `g` of the run's input rather than of its result.
    pub fn of_input(self) -> bool {
        matches!(self, Image::Bound { .. } | Image::Twin { .. })
    }

    /// Whether the relation holds on a run.
    pub fn holds(self, seen: &Seen<'_>) -> bool {
        if let Image::Bound { upper, .. } = self {
            let Some(g) = seen.of_input else {
                return false;
            };
            // As a pasted `<=` compares floats: within invite's tolerance of each other is
            // equal (`expm1(x)` an ulp above `exp(x)` where both are huge).
            let near = matches!((seen.result, g), (Value::Float(y), Value::Float(g))
                if super::form::pasted_eq(*y, *g));
            let Some(o) = order(seen.result, g) else {
                return false;
            };
            return near || if upper { o.is_le() } else { o.is_ge() };
        }
        if let Image::Twin { as_is, .. } = self {
            return seen.of_input.is_some_and(|g| as_is.holds(seen.result, g));
        }
        // Where the inverse is not finite (a rate of -100%, a spread of zero), it gives
        // nothing back to compare: the relation is claimed where it is finite.
        if let Image::Inverse { param, .. } = self {
            return seen.inverse.is_some_and(|back| {
                matches!(back, Value::Float(b) if !b.is_finite())
                    || gives_back(back, &seen.input[param])
            });
        }
        // Zero as a pasted `==` compares it: within a millionth. A float result that is not
        // finite is no root of anything: the relation is claimed where it is finite.
        if let Image::Root { .. } = self {
            let outside = matches!(seen.result, Value::Float(y) if !y.is_finite());
            return outside
                || seen
                    .root
                    .and_then(Value::number)
                    .is_some_and(|z| super::form::pasted_eq(z, 0.0));
        }
        let Some(image) = seen.image else {
            return false;
        };
        match self {
            Image::Holds { value, .. } => *image == Value::Bool(value),
            Image::Fixed { .. } => image == seen.result,
            Image::Undoes { param, .. } => gives_back(image, &seen.input[param]),
            Image::Alike { param, .. } => seen
                .of_params
                .get(param)
                .and_then(Option::as_ref)
                .is_some_and(|g_x| g_x == image),
            Image::Bound { .. }
            | Image::Twin { .. }
            | Image::Inverse { .. }
            | Image::Root { .. } => false,
        }
    }

    /// Where the relation is claimed, as Rust source, beyond any guard: a float inverse
    /// where it is finite (`cdf(result, mean, sd).is_finite()`), a root where the result
    /// is. `None`: everywhere.
    pub fn defined(self, sig: &Signature) -> Option<String> {
        match self {
            Image::Inverse { sibling, param } => {
                let g = &sig.siblings[sibling];
                (g.output == Kind::Float)
                    .then(|| format!("{}.is_finite()", inverse_call(sig, g, param)))
            }
            Image::Root { .. } => (sig.output == Kind::Float).then(|| "result.is_finite()".into()),
            _ => None,
        }
    }

    /// Whether the relation tells a function that hands its input back from one that does
    /// something: it fails where the parameter of the result's type stands for the result
    /// (`is_nfc(s)` false of an input not in that form). `None` where no parameter can stand
    /// for it, or nothing tells that way ([`Image::Alike`] holds of any such echo).
    pub fn echo(self, sig: &Signature) -> Option<usize> {
        match self {
            // An echo's image would be `g` of its own run, which is not recorded.
            Image::Alike { .. }
            | Image::Bound { .. }
            | Image::Twin { .. }
            | Image::Inverse { .. }
            | Image::Root { .. } => None,
            _ => sig
                .params
                .iter()
                .position(|p| p.kind == sig.output && same_type(&p.ty, &sig.output_ty)),
        }
    }

    /// The relation as Rust source.
    pub fn text(self, sig: &Signature) -> String {
        let g = &sig.siblings[self.sibling()];
        let of_result = if takes_parts(sig, g) {
            spread(g)
        } else {
            call(g, "&result", "result.clone()")
        };
        match self {
            Image::Holds { value: true, .. } => of_result,
            Image::Holds { value: false, .. } => format!("!{of_result}"),
            Image::Fixed { .. } => format!("{of_result} == result"),
            Image::Undoes { param, .. } => compared_back(g, &of_result, &sig.params[param]),
            Image::Inverse { param, .. } => {
                compared_back(g, &inverse_call(sig, g, param), &sig.params[param])
            }
            Image::Root { slot, .. } => {
                let zero = match g.output {
                    Kind::Float => "0.0",
                    _ => "0",
                };
                format!("{} == {zero}", root_call(sig, g, slot))
            }
            Image::Alike { param, .. } => {
                format!("{of_result} == {}", of_param(g, &sig.params[param]))
            }
            Image::Bound { upper, .. } => {
                let op = if upper { "<=" } else { ">=" };
                format!("result {op} {}", of_param(g, &sig.params[0]))
            }
            Image::Twin { as_is, at, .. } => {
                let p = &sig.params[0];
                let g_x = match at {
                    TwinAt::Input => of_param(g, p),
                    _ => {
                        let turned = at.text(&p.value_text());
                        call(g, &format!("&({turned})"), &turned)
                    }
                };
                match as_is {
                    TwinForm::Same => format!("result == {g_x}"),
                    TwinForm::Negated => format!("result == -{g_x}"),
                    TwinForm::Complement => format!("result == 1.0 - {g_x}"),
                }
            }
        }
    }
}

impl TwinForm {
    /// Whether `y` follows so from `g`: as a pasted relation compares them, within invite's
    /// default relative tolerance; values that are not numbers (an `Option`'s `None`) only
    /// where they are the same.
    fn holds(self, y: &Value, g: &Value) -> bool {
        use super::form::pasted_eq;
        match (self, y.number(), g.number()) {
            (TwinForm::Same, Some(y), Some(g)) => pasted_eq(y, g),
            (TwinForm::Same, _, _) => order(y, g).is_some_and(std::cmp::Ordering::is_eq),
            (TwinForm::Negated, Some(y), Some(g)) => pasted_eq(y, -g),
            (TwinForm::Complement, Some(y), Some(g)) => pasted_eq(y, 1.0 - g),
            _ => false,
        }
    }
}

/// `g` called as Rust source on the run's own arguments with the result in parameter
/// `param`'s place ([`Image::Inverse`]).
fn inverse_call(sig: &Signature, g: &Signature, param: usize) -> String {
    let args: Vec<String> = sig
        .params
        .iter()
        .enumerate()
        .map(|(q, p)| match q == param {
            true if p.by_ref() => "&result".to_string(),
            true if is_copy(p) => "result".to_string(),
            true => "result.clone()".to_string(),
            false => passed_as(p, g.params.get(q).unwrap_or(p)),
        })
        .collect();
    format!("{}({})", g.name, args.join(", "))
}

/// The function's parameter `p` passed on unchanged to another function's parameter `q` of
/// the same type, borrowed or owned as `q` is (`&xs` of a `Vec` to a slice, `xs.to_vec()` of
/// a slice to a `Vec`, `*x` of a `&f64` to an `f64`).
fn passed_as(p: &Param, q: &Param) -> String {
    match (p.by_ref(), q.by_ref()) {
        (false, true) => format!("&{}", p.name),
        (true, false) if is_copy(p) => format!("*{}", p.name),
        (true, false) if p.kind.is_seq() => format!("{}.to_vec()", p.name),
        (true, false) if p.kind == Kind::Str => format!("{}.to_string()", p.name),
        (true, false) => format!("{}.clone()", p.name),
        _ => p.pass_unchanged(),
    }
}

/// `g` called as Rust source on the run's own arguments with the result put in among them
/// at `slot` ([`Image::Root`]).
fn root_call(sig: &Signature, g: &Signature, slot: usize) -> String {
    let mut args: Vec<String> = sig
        .params
        .iter()
        .zip(all_but(g, slot))
        .map(|(p, q)| passed_as(p, q))
        .collect();
    let q = &g.params[slot];
    let result = match (q.by_ref(), is_copy(q)) {
        (true, _) => "&result",
        (false, true) => "result",
        (false, false) => "result.clone()",
    };
    args.insert(slot, result.to_string());
    format!("{}({})", g.name, args.join(", "))
}

/// `g`'s parameters but the one at `slot`, in order.
fn all_but(g: &Signature, slot: usize) -> impl Iterator<Item = &super::signature::Param> {
    g.params
        .iter()
        .enumerate()
        .filter(move |&(k, _)| k != slot)
        .map(|(_, q)| q)
}

/// Where among the other function `g`'s parameters the result can be put so that the
/// others are the function's own, of the same types in the same order: `g` takes one
/// parameter more, of the result's type ([`Image::Root`]).
pub(super) fn root_slots<'a>(
    sig: &'a Signature,
    g: &'a Signature,
) -> impl Iterator<Item = usize> + 'a {
    let one_more = g.params.len() == sig.params.len() + 1;
    (0..g.params.len()).filter(move |&slot| {
        let q = &g.params[slot];
        let others = all_but(g, slot);
        one_more
            && q.kind == sig.output
            && same_type(&q.ty, &sig.output_ty)
            && others
                .zip(&sig.params)
                .all(|(q, p)| q.kind == p.kind && same_type(&q.ty, &p.ty))
    })
}

/// Whether `back`, what another function gave, is the parameter's value `x`: inside
/// `Some`/`Ok` where it returns an `Option` or a `Result`, and a float within a pasted
/// `==`'s tolerance.
fn gives_back(back: &Value, x: &Value) -> bool {
    match back.inner() {
        Some(inner) => inner == Some(x),
        None => match (back, x) {
            (Value::Float(back), Value::Float(x)) => super::form::pasted_eq(*back, *x),
            _ => back == x,
        },
    }
}

/// `back == x` as Rust source, for `back` a call of `g` and `x` the parameter `p`.
fn compared_back(g: &Signature, back: &str, p: &Param) -> String {
    let x = match is_copy(p) {
        true => p.value_text(),
        false => p.name.clone(),
    };
    match g.output {
        Kind::Option => format!("{back}.is_some_and(|back| back == {x})"),
        Kind::Result => format!("{back}.is_ok_and(|back| back == {x})"),
        _ => format!("{back} == {x}"),
    }
}

/// Whether a parameter's kind is passed and compared by value.
fn is_copy(p: &Param) -> bool {
    matches!(p.kind, Kind::Float | Kind::Int | Kind::Bool | Kind::Char)
}

/// `g` called on the parameter `p`, borrowed or owned as `g` takes it.
fn of_param(g: &Signature, p: &Param) -> String {
    let owned = match (is_copy(p), p.by_ref()) {
        (true, _) => p.value_text(),
        (false, true) => format!("{}.to_owned()", p.name),
        (false, false) => format!("{}.clone()", p.name),
    };
    call(g, &p.slice_text(), &owned)
}

/// `a` against `b` as Rust orders them: numbers by value, `None` below any `Some` (`None`:
/// of other kinds, or not a number).
fn order(a: &Value, b: &Value) -> Option<std::cmp::Ordering> {
    use std::cmp::Ordering;
    match (a, b) {
        (Value::Option(x), Value::Option(y)) => match (x, y) {
            (Some(x), Some(y)) => order(x, y),
            (None, None) => Some(Ordering::Equal),
            (None, Some(_)) => Some(Ordering::Less),
            (Some(_), None) => Some(Ordering::Greater),
        },
        (Value::Int(x), Value::Int(y)) => Some(x.cmp(y)),
        _ => a.number()?.partial_cmp(&b.number()?),
    }
}

/// Whether `g` is another measure of the same input: of one parameter of the type of `sig`'s
/// only one, to a number of the result's type or an `Option` of one.
fn twin(sig: &Signature, g: &Signature) -> bool {
    let number = |ty: &str| {
        let t = ty.trim_start_matches('&').trim();
        matches!(
            t,
            "i8" | "i16"
                | "i32"
                | "i64"
                | "i128"
                | "isize"
                | "u8"
                | "u16"
                | "u32"
                | "u64"
                | "u128"
                | "usize"
                | "f32"
                | "f64"
        )
    };
    let numbers = match sig.output {
        Kind::Int | Kind::Float => true,
        Kind::Option => super::project::inner_type(&sig.output_ty).is_some_and(|t| number(&t)),
        _ => false,
    };
    let same_input = match (sig.params.as_slice(), g.params.as_slice()) {
        ([p], [q]) => p.kind == q.kind && same_type(&p.ty, &q.ty),
        _ => false,
    };
    numbers && same_input && g.output == sig.output && same_type(&g.output_ty, &sig.output_ty)
}

/// Whether `g` gives back a value of the parameter `p`'s type, or one inside an `Option`
/// or a `Result`.
fn gives(g: &Signature, p: &Param) -> bool {
    let plain = g.output == p.kind && same_type(&g.output_ty, &p.ty);
    let inside = matches!(g.output, Kind::Option | Kind::Result)
        && super::project::inner_type(&g.output_ty).is_some_and(|t| same_type(&t, &p.ty));
    plain || inside
}

/// `g` called on the result's parts, one argument each (`ldexp(result.0, result.1)`),
/// borrowed or owned as `g` takes them.
fn spread(g: &Signature) -> String {
    let args: Vec<String> = g
        .params
        .iter()
        .enumerate()
        .map(|(k, q)| {
            let copy = matches!(q.kind, Kind::Float | Kind::Int | Kind::Bool | Kind::Char);
            match (copy, q.by_ref()) {
                (true, _) => format!("result.{k}"),
                (false, true) => format!("&result.{k}"),
                (false, false) => format!("result.{k}.clone()"),
            }
        })
        .collect();
    format!("{}({})", g.name, args.join(", "))
}

/// `g` called on a value written as a reference, `by_ref`, or as an owned value, `owned`:
/// whichever its parameter takes.
fn call(g: &Signature, by_ref: &str, owned: &str) -> String {
    match g.params.first().is_some_and(Param::by_ref) {
        true => format!("{}({by_ref})", g.name),
        false => format!("{}({owned})", g.name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_result_is_put_among_the_parameters_only_where_the_others_are_the_function_s() {
        let parse = |t: &str, n: usize| Signature::parse(t, &vec![Kind::Float; n], Kind::Float);
        let root = parse("fn root(a: f64) -> f64", 1).unwrap();
        let slots = |g: &str| root_slots(&root, &parse(g, 2).unwrap()).collect::<Vec<_>>();
        // Either place: the result first and `a` second, or `a` in the result's place.
        assert_eq!(slots("fn residual(x: f64, a: f64) -> f64"), [0, 1]);
        // Not where the other is a float of another width, either way round.
        assert!(slots("fn residual(x: f64, a: f32) -> f64").is_empty());
        assert!(slots("fn residual(x: f32, a: f64) -> f64").is_empty());
        // Written with each argument passed as the other function takes it.
        let mut irr = Signature::parse(
            "fn irr(flows: Vec<f64>) -> f64",
            &[Kind::FloatSeq],
            Kind::Float,
        )
        .unwrap();
        irr.siblings.push(
            Signature::parse(
                "fn npv(rate: f64, flows: &[f64]) -> f64",
                &[Kind::Float, Kind::FloatSeq],
                Kind::Float,
            )
            .unwrap(),
        );
        let zero = Image::Root {
            sibling: 0,
            slot: 0,
        };
        assert!(Image::all(&irr).contains(&zero));
        assert_eq!(zero.text(&irr), "npv(result, &flows) == 0.0");
        let p =
            |t: &str, kind| Signature::parse(&format!("fn f({t}) -> f64"), &[kind], Kind::Float);
        let arg = |t: &str, kind, u: &str| {
            passed_as(
                &p(t, kind).unwrap().params[0],
                &p(u, kind).unwrap().params[0],
            )
        };
        assert_eq!(
            arg("xs: &[f64]", Kind::FloatSeq, "xs: Vec<f64>"),
            "xs.to_vec()"
        );
        assert_eq!(arg("x: &f64", Kind::Float, "x: f64"), "*x");
        assert_eq!(arg("s: &str", Kind::Str, "s: String"), "s.to_string()");
        assert_eq!(arg("x: f64", Kind::Float, "x: &f64"), "&x");
        assert_eq!(
            arg("xs: Vec<f64>", Kind::FloatSeq, "xs: Vec<f64>"),
            "xs.clone()"
        );
        assert_eq!(
            arg("p: &(f64, f64)", Kind::Record, "p: (f64, f64)"),
            "p.clone()"
        );
        // Nor of a function of as many parameters, or two more.
        assert_eq!(root_slots(&root, &root).count(), 0);
        let three = parse("fn g(x: f64, y: f64, a: f64) -> f64", 3).unwrap();
        assert_eq!(root_slots(&root, &three).count(), 0);
    }

    fn sig(text: &str, kinds: &[Kind], output: Kind) -> Signature {
        Signature::parse(text, kinds, output).unwrap()
    }

    fn escape() -> Signature {
        let mut s = sig("fn escape(s: &str) -> String", &[Kind::Str], Kind::Str);
        s.siblings = vec![
            sig("fn is_escaped(s: &str) -> bool", &[Kind::Str], Kind::Bool),
            sig("fn unescape(s: &str) -> String", &[Kind::Str], Kind::Str),
            sig(
                "fn decode(s: &str) -> Result<Cow<'_, str>, String>",
                &[Kind::Str],
                Kind::Result,
            ),
            sig("fn halve(x: f64) -> f64", &[Kind::Float], Kind::Float),
            sig(
                "fn owned(s: String) -> Option<String>",
                &[Kind::Str],
                Kind::Option,
            ),
            sig("fn fold(s: &str) -> Cow<'_, str>", &[Kind::Str], Kind::Str),
        ];
        s
    }

    #[test]
    fn the_relations_through_another_function_follow_its_types() {
        use Image::*;
        let s = escape();
        assert_eq!(
            Image::all(&s),
            vec![
                Holds {
                    sibling: 0,
                    value: true
                },
                Holds {
                    sibling: 0,
                    value: false
                },
                Alike {
                    sibling: 0,
                    param: 0
                },
                Fixed { sibling: 1 },
                Undoes {
                    sibling: 1,
                    param: 0
                },
                Alike {
                    sibling: 1,
                    param: 0
                },
                Undoes {
                    sibling: 2,
                    param: 0
                },
                Alike {
                    sibling: 2,
                    param: 0
                },
                Undoes {
                    sibling: 4,
                    param: 0
                },
                Alike {
                    sibling: 4,
                    param: 0
                },
                Fixed { sibling: 5 },
                Undoes {
                    sibling: 5,
                    param: 0
                },
                Alike {
                    sibling: 5,
                    param: 0
                },
            ]
        );
        // A function of numbers has nothing of a text to go through; nor one with another
        // parameter's type alone.
        let mut mean = sig("fn mean(xs: &[f64]) -> f64", &[Kind::FloatSeq], Kind::Float);
        mean.siblings = vec![sig("fn is_long(s: &str) -> bool", &[Kind::Str], Kind::Bool)];
        assert_eq!(Image::all(&mean), vec![]);
        // A parameter of another type: given back, not compared through.
        let mut pad = sig(
            "fn pad(s: &str, n: usize) -> String",
            &[Kind::Str, Kind::Int],
            Kind::Str,
        );
        pad.siblings = vec![sig("fn width(s: &str) -> usize", &[Kind::Str], Kind::Int)];
        assert_eq!(
            Image::all(&pad),
            vec![
                Alike {
                    sibling: 0,
                    param: 0
                },
                Undoes {
                    sibling: 0,
                    param: 1
                },
            ]
        );
        assert_eq!(
            Undoes {
                sibling: 0,
                param: 1
            }
            .text(&pad),
            "width(&result) == n"
        );
        // Numbers of one kind and other types: a `u64` is no form of a `u8` result, and a
        // `u32` parameter is not compared through a function of `u8`s.
        let mut step = sig(
            "fn step(x: u8, n: u32) -> u8",
            &[Kind::Int, Kind::Int],
            Kind::Int,
        );
        step.siblings = vec![sig("fn widen(y: u8) -> u64", &[Kind::Int], Kind::Int)];
        assert_eq!(
            Image::all(&step),
            vec![Alike {
                sibling: 0,
                param: 0
            }]
        );
        // The echo is the parameter of the result's own type, not the first of its kind.
        let mut later = sig(
            "fn later(n: u32, x: u8) -> u8",
            &[Kind::Int, Kind::Int],
            Kind::Int,
        );
        later.siblings = step.siblings.clone();
        assert_eq!(Fixed { sibling: 0 }.echo(&later), Some(1));
        // A sibling that can fail gives back only a value of the parameter's type.
        let mut count = sig("fn count(s: &str) -> String", &[Kind::Str], Kind::Str);
        count.siblings = vec![sig(
            "fn parse(s: &str) -> Option<u32>",
            &[Kind::Str],
            Kind::Option,
        )];
        assert_eq!(
            Image::all(&count),
            vec![Alike {
                sibling: 0,
                param: 0
            }]
        );
        assert_eq!(
            Undoes {
                sibling: 0,
                param: 1
            }
            .echo(&pad),
            Some(0)
        );
        assert_eq!(
            Alike {
                sibling: 0,
                param: 0
            }
            .echo(&pad),
            None
        );
        assert_eq!(Fixed { sibling: 3 }.sibling(), 3);
        assert_eq!(
            Alike {
                sibling: 2,
                param: 0
            }
            .sibling(),
            2
        );
    }

    #[test]
    fn a_predicate_the_given_results_meet_by_chance_is_not_proposed() {
        // The first word of texts whose words are short is short, on every input given; a
        // word written twice (a follow-up) is not, nor the longer ones of fresh inputs.
        let first = |s: String| s.split_whitespace().next().unwrap_or("").to_string();
        let is_short = |s: String| s.chars().count() <= 5;
        let words = ["ab", "cde", "x", "abcde", "q"];
        let inputs = (0..120usize).map(|i| {
            let n = 1 + i % 4;
            let text: Vec<&str> = (0..n)
                .map(|j| words[i / 5usize.pow(j as u32) % 5])
                .collect();
            text.join(" ")
        });
        let found = crate::discover::Discovery::new("fn first(s: &str) -> String", first)
            .unwrap()
            .sibling("fn is_short(s: &str) -> bool", is_short)
            .unwrap()
            .inputs(inputs)
            .run();
        assert!(
            !found.relations().any(|r| r == "is_short(&result)"),
            "{found}"
        );
    }

    #[test]
    fn a_twin_is_the_result_as_it_is_negated_or_complemented_within_a_pasted_tolerance() {
        let f = Value::Float;
        let holds = |form: TwinForm, y: Value, g: Value| form.holds(&y, &g);
        assert!(holds(TwinForm::Same, f(2.0), f(2.0 + 1e-7)));
        assert!(!holds(TwinForm::Same, f(2.0), f(2.1)));
        assert!(
            holds(TwinForm::Negated, f(2.0), f(-2.0)) && !holds(TwinForm::Negated, f(2.0), f(2.0))
        );
        assert!(holds(TwinForm::Complement, f(0.25), f(0.75)));
        assert!(!holds(TwinForm::Complement, f(0.25), f(0.25)));
        // Integers and `Option`s of numbers, by value; `None` only where both are.
        let some = |v: Value| Value::Option(Some(Box::new(v)));
        assert!(holds(TwinForm::Same, Value::Int(3), Value::Int(3)));
        assert!(holds(
            TwinForm::Same,
            some(Value::Int(3)),
            some(Value::Int(3))
        ));
        assert!(holds(
            TwinForm::Same,
            Value::Option(None),
            Value::Option(None)
        ));
        assert!(!holds(
            TwinForm::Same,
            Value::Option(None),
            some(Value::Int(3))
        ));
        assert!(!holds(
            TwinForm::Negated,
            Value::Option(None),
            Value::Option(None)
        ));
    }

    #[test]
    fn a_twin_of_a_float_is_also_taken_at_the_input_turned_and_written_so() {
        let mut out = sig("fn out(t: f32) -> f32", &[Kind::Float], Kind::Float);
        out.siblings = vec![sig(
            "fn ease_in(t: f32) -> f32",
            &[Kind::Float],
            Kind::Float,
        )];
        let all: Vec<Image> = Image::all(&out)
            .into_iter()
            .filter(|m| m.of_input())
            .collect();
        // Two bounds, and three forms at each of three places.
        assert_eq!(all.len(), 2 + 9, "{all:?}");
        for at in TwinAt::ALL {
            assert_eq!(
                all.iter().filter(|m| m.at() == at).count(),
                3 + 2 * usize::from(at == TwinAt::Input)
            );
        }
        let text = |as_is, at| {
            Image::Twin {
                sibling: 0,
                as_is,
                at,
            }
            .text(&out)
        };
        assert_eq!(
            text(TwinForm::Complement, TwinAt::Complement),
            "result == 1.0 - ease_in(1.0 - t)"
        );
        assert_eq!(
            text(TwinForm::Negated, TwinAt::Negated),
            "result == -ease_in(-t)"
        );
        assert_eq!(text(TwinForm::Same, TwinAt::Input), "result == ease_in(t)");
        // A twin that takes its float by reference is given the turned one's.
        let mut by_ref = sig("fn out(t: &f64) -> f64", &[Kind::Float], Kind::Float);
        by_ref.siblings = vec![sig("fn back(t: &f64) -> f64", &[Kind::Float], Kind::Float)];
        let m = Image::Twin {
            sibling: 0,
            as_is: TwinForm::Same,
            at: TwinAt::Complement,
        };
        assert_eq!(m.text(&by_ref), "result == back(&(1.0 - *t))");
        let at_input = Image::Twin {
            sibling: 0,
            as_is: TwinForm::Same,
            at: TwinAt::Input,
        };
        assert_eq!(at_input.text(&by_ref), "result == back(t)");
        // The turns, of floats alone; any other relation reads the input as it is.
        let f = Value::Float;
        assert_eq!(TwinAt::Negated.turn(&f(0.25), false), Some(f(-0.25)));
        assert_eq!(TwinAt::Complement.turn(&f(0.25), false), Some(f(0.75)));
        assert_eq!(
            TwinAt::Input.turn(&Value::Int(3), false),
            Some(Value::Int(3))
        );
        assert_eq!(TwinAt::Complement.turn(&Value::Int(3), false), None);
        assert_eq!(TwinAt::Negated.turn(&Value::Int(3), true), None);
        // Of an `f32` parameter, from the `f32` the function is given.
        let x = 0.1 + 1e-12;
        let given = f64::from(x as f32);
        assert_eq!(TwinAt::Complement.turn(&f(x), true), Some(f(1.0 - given)));
        assert_eq!(TwinAt::Negated.turn(&f(x), true), Some(f(-given)));
        assert_eq!(TwinAt::Complement.turn(&f(x), false), Some(f(1.0 - x)));
        assert_eq!(Image::Fixed { sibling: 0 }.at(), TwinAt::Input);
        // Of an integer, at the input alone.
        let mut count = sig("fn count(n: u32) -> u32", &[Kind::Int], Kind::Int);
        count.siblings = vec![sig("fn other(n: u32) -> u32", &[Kind::Int], Kind::Int)];
        assert!(Image::all(&count).iter().all(|m| m.at() == TwinAt::Input));
        // Of a float result of an integer, the twin's value turned, not its input.
        let mut mean = sig("fn mean(n: u32) -> f64", &[Kind::Int], Kind::Float);
        mean.siblings = vec![sig("fn other(n: u32) -> f64", &[Kind::Int], Kind::Float)];
        let all = Image::all(&mean);
        assert_eq!(all.len(), 2 + 3);
        assert!(all.iter().all(|m| m.at() == TwinAt::Input));
    }

    #[test]
    fn a_measure_is_bounded_by_its_twins_where_it_is_and_not_where_it_is_not() {
        // Columns: two for a wide character, one for any other; the twins count the
        // characters, and the columns with `±` wide too.
        let wide = |c: char| ('\u{3000}'..='\u{9fff}').contains(&c);
        let cols = move |s: String| s.chars().map(|c| 1 + usize::from(wide(c))).sum::<usize>();
        let cols_wide = move |s: String| {
            s.chars()
                .map(|c| 1 + usize::from(wide(c) || c == '±'))
                .sum::<usize>()
        };
        let chars = |s: String| s.chars().count();
        let pieces = ["a", "日本", "±", " ", "é", "x1", "中"];
        let inputs = (0..90usize).map(|i| {
            let h = i.wrapping_mul(2_654_435_761) >> 3;
            (0..i % 5)
                .map(|j| pieces[(h >> (3 * j)) % pieces.len()])
                .collect::<String>()
        });
        let found = crate::discover::Discovery::new("fn cols(s: &str) -> usize", cols)
            .unwrap()
            .sibling("fn cols_wide(s: &str) -> usize", cols_wide)
            .unwrap()
            .sibling("fn chars(s: &str) -> usize", chars)
            .unwrap()
            .inputs(inputs)
            .run();
        let rel: Vec<&str> = found.relations().collect();
        for r in ["result <= cols_wide(s)", "result >= chars(s)"] {
            assert!(rel.contains(&r), "{r}\n{found}");
        }
        for r in ["result >= cols_wide(s)", "result <= chars(s)"] {
            assert!(!rel.contains(&r), "{r}\n{found}");
        }
        // Only a measure of the same input to the same type is a twin.
        let mut f = sig("fn cols(s: &str) -> usize", &[Kind::Str], Kind::Int);
        f.siblings = vec![
            sig("fn chars(s: &str) -> usize", &[Kind::Str], Kind::Int),
            sig("fn chars32(s: &str) -> u32", &[Kind::Str], Kind::Int),
            sig("fn of_owned(s: String) -> usize", &[Kind::Str], Kind::Int),
            sig("fn of_bytes(s: &[u8]) -> usize", &[Kind::IntSeq], Kind::Int),
        ];
        let bounds: Vec<Image> = Image::all(&f)
            .into_iter()
            .filter(|m| matches!(m, Image::Bound { .. }))
            .collect();
        assert_eq!(
            bounds,
            [0, 2]
                .into_iter()
                .flat_map(|sibling| [true, false].map(|upper| Image::Bound { sibling, upper }))
                .collect::<Vec<_>>()
        );
        assert_eq!(
            Image::Bound {
                sibling: 2,
                upper: false
            }
            .text(&f),
            "result >= of_owned(s.to_owned())"
        );
        assert_eq!(bounds[0].echo(&f), None);
        assert_eq!(bounds[1].sibling(), 0);
        // Of a text result, none: a bound is of numbers.
        let mut t = sig("fn t(s: &str) -> String", &[Kind::Str], Kind::Str);
        t.siblings = vec![sig("fn u(s: &str) -> String", &[Kind::Str], Kind::Str)];
        assert!(!Image::all(&t)
            .iter()
            .any(|m| matches!(m, Image::Bound { .. })));
        // Of a number by value, the number itself.
        let mut n = sig("fn n(x: f64) -> f64", &[Kind::Float], Kind::Float);
        n.siblings = vec![sig("fn m(y: &f64) -> f64", &[Kind::Float], Kind::Float)];
        assert_eq!(
            Image::Bound {
                sibling: 0,
                upper: true
            }
            .text(&n),
            "result <= m(&x)"
        );
        n.siblings = vec![sig("fn m(y: f64) -> f64", &[Kind::Float], Kind::Float)];
        assert_eq!(
            Image::Bound {
                sibling: 0,
                upper: true
            }
            .text(&n),
            "result <= m(x)"
        );
        // A measure that can fail is bounded as Rust orders `Option`s: `None` below any value.
        let w = |c: char| (!c.is_control()).then(|| 1 + usize::from(c > '\u{2fff}'));
        let w_wide = move |c: char| w(c).map(|n| n.max(usize::from(c == '±') * 2));
        let chars = "aZ ±\t日\n中é~".chars().cycle().take(60);
        let found = crate::discover::Discovery::new("fn w(c: char) -> Option<usize>", w)
            .unwrap()
            .sibling("fn w_wide(c: char) -> Option<usize>", w_wide)
            .unwrap()
            .inputs(chars.enumerate().map(|(i, c)| match i % 3 {
                0 => c,
                _ => char::from_u32(c as u32 + i as u32).unwrap_or(c),
            }))
            .run();
        assert!(
            found.relations().any(|r| r == "result <= w_wide(c)"),
            "{found}"
        );
        let some = |n: i128| Value::Option(Some(Box::new(Value::Int(n))));
        let none = Value::Option(None);
        use std::cmp::Ordering::*;
        assert_eq!(order(&none, &some(0)), Some(Less));
        assert_eq!(order(&some(0), &none), Some(Greater));
        assert_eq!(order(&none, &none), Some(Equal));
        assert_eq!(order(&some(3), &some(2)), Some(Greater));
        assert_eq!(order(&Value::Float(1.0), &Value::Float(f64::NAN)), None);
        assert_eq!(order(&Value::Str("a".into()), &some(1)), None);
        let mut o = sig(
            "fn o(c: char) -> Option<String>",
            &[Kind::Char],
            Kind::Option,
        );
        o.siblings = vec![sig(
            "fn p(c: char) -> Option<String>",
            &[Kind::Char],
            Kind::Option,
        )];
        assert!(Image::all(&o).is_empty(), "no number inside");
        // A measure of numbers of another width is no twin.
        let mut bits = sig("fn bits(x: u8) -> u32", &[Kind::Int], Kind::Int);
        bits.siblings = vec![sig("fn bits64(x: u64) -> u32", &[Kind::Int], Kind::Int)];
        assert!(Image::all(&bits).is_empty());
        // Integers are compared exactly, past where a float tells them apart.
        let big = 1i128 << 60;
        assert_eq!(order(&Value::Int(big + 1), &Value::Int(big)), Some(Greater));

        // Judged on the numbers: a result of no number, or no twin's, holds nothing.
        let input = [Value::Str("ab".into())];
        let judge = |upper: bool, y: Value, g: Option<Value>| {
            Image::Bound { sibling: 0, upper }.holds(&Seen {
                input: &input,
                result: &y,
                image: None,
                of_params: &[],
                inverse: None,
                root: None,
                of_input: g.as_ref(),
            })
        };
        assert!(judge(true, Value::Int(2), Some(Value::Int(2))));
        assert!(judge(false, Value::Int(2), Some(Value::Int(2))));
        assert!(judge(true, Value::Int(1), Some(Value::Int(2))));
        assert!(!judge(false, Value::Int(1), Some(Value::Int(2))));
        assert!(!judge(true, Value::Int(3), Some(Value::Int(2))));
        assert!(!judge(true, Value::Int(1), None));
        assert!(!judge(true, Value::Str("a".into()), Some(Value::Int(2))));
        // Floats as a pasted `<=` compares them: an ulp above a huge twin is not above it,
        // a relative thousandth is; integers stay exact.
        let huge = 2.35e17_f64;
        let above = f64::from_bits(huge.to_bits() + 1);
        assert!(judge(true, Value::Float(above), Some(Value::Float(huge))));
        assert!(judge(false, Value::Float(huge), Some(Value::Float(above))));
        assert!(!judge(
            true,
            Value::Float(huge * 1.001),
            Some(Value::Float(huge))
        ));
        assert!(!judge(false, Value::Float(1.0), Some(Value::Float(1.001))));
        assert!(!judge(
            true,
            Value::Int(1 << 60),
            Some(Value::Int((1 << 60) - 1))
        ));
    }

    #[test]
    fn an_inverse_of_the_same_parameters_gives_one_back_where_it_is_finite() {
        let quantile = sig(
            "fn ppf(p: f64, mean: f64, sd: &f64) -> f64",
            &[Kind::Float; 3],
            Kind::Float,
        );
        let mut with = quantile.clone();
        with.siblings.push(sig(
            "fn cdf(x: f64, mean: f64, sd: &f64) -> f64",
            &[Kind::Float; 3],
            Kind::Float,
        ));
        // The result can take each float's place; the other function gives each back.
        let all = Image::all(&with);
        let inverse = |param| Image::Inverse { sibling: 0, param };
        assert_eq!(all, [inverse(0), inverse(1), inverse(2)]);
        assert_eq!(inverse(0).text(&with), "cdf(result, mean, sd) == p");
        assert_eq!(
            inverse(0).defined(&with).as_deref(),
            Some("cdf(result, mean, sd).is_finite()")
        );
        assert_eq!(inverse(2).text(&with), "cdf(p, mean, &result) == *sd");
        // Of other parameters, or in another order, it is none.
        let mut other = quantile.clone();
        other.siblings.push(sig(
            "fn cdf(x: f64, mean: f64) -> f64",
            &[Kind::Float; 2],
            Kind::Float,
        ));
        assert!(Image::all(&other).is_empty());
        // The result takes only a place of its own type, and only what gives that type back
        // is an inverse: not a predicate of the same parameters, nor an `f32` of an `f64`.
        let mut predicate = quantile.clone();
        predicate.siblings.push(sig(
            "fn inside(x: f64, mean: f64, sd: &f64) -> bool",
            &[Kind::Float; 3],
            Kind::Bool,
        ));
        assert!(!Image::all(&predicate)
            .iter()
            .any(|m| matches!(m, Image::Inverse { .. })));
        let mut mixed = sig(
            "fn f(x: f64, y: f32) -> f64",
            &[Kind::Float, Kind::Float],
            Kind::Float,
        );
        mixed.siblings.push(sig(
            "fn g(x: f64, y: f32) -> f32",
            &[Kind::Float, Kind::Float],
            Kind::Float,
        ));
        assert!(!Image::all(&mixed)
            .iter()
            .any(|m| matches!(m, Image::Inverse { .. })));
        let input = [Value::Float(0.25), Value::Float(1.0), Value::Float(2.0)];
        let result = Value::Float(-0.35);
        let judge = |back: Option<Value>| {
            inverse(0).holds(&Seen {
                input: &input,
                result: &result,
                image: None,
                of_params: &[],
                inverse: back.as_ref(),
                root: None,
                of_input: None,
            })
        };
        assert!(judge(Some(Value::Float(0.25 + 1e-9))));
        assert!(!judge(Some(Value::Float(0.26))));
        assert!(
            judge(Some(Value::Float(f64::NAN))),
            "not finite: not compared"
        );
        assert!(!judge(None), "failed: broken");
        // Of text, passed as the other function takes it and compared as a string.
        let mut cipher = sig(
            "fn seal(text: &str, key: u8) -> String",
            &[Kind::Str, Kind::Int],
            Kind::Str,
        );
        cipher.siblings.push(sig(
            "fn open(text: &str, key: u8) -> Option<String>",
            &[Kind::Str, Kind::Int],
            Kind::Option,
        ));
        assert_eq!(
            inverse(0).text(&cipher),
            "open(&result, key).is_some_and(|back| back == text)"
        );
        assert_eq!(inverse(0).defined(&cipher), None, "claimed everywhere");
        // A string taken by value gets a copy of the result, read again after the call.
        let mut owned = sig(
            "fn seal(text: String, key: u8) -> String",
            &[Kind::Str, Kind::Int],
            Kind::Str,
        );
        owned.siblings.push(sig(
            "fn open(text: String, key: u8) -> String",
            &[Kind::Str, Kind::Int],
            Kind::Str,
        ));
        assert_eq!(inverse(0).text(&owned), "open(result.clone(), key) == text");
        assert_eq!(Image::Fixed { sibling: 0 }.defined(&with), None);
    }

    #[test]
    fn a_relation_through_another_function_is_judged_on_its_image_and_written_as_rust() {
        use Image::*;
        let s = escape();
        let text = |t: &str| Value::Str(t.into());
        let input = [text("a<b")];
        let result = text("a&lt;b");
        let judge = |m: Image, image: Option<Value>, of: Vec<Option<Value>>| {
            m.holds(&Seen {
                input: &input,
                result: &result,
                image: image.as_ref(),
                of_params: &of,
                inverse: None,
                root: None,
                of_input: None,
            })
        };
        let yes = Some(Value::Bool(true));
        assert!(judge(
            Holds {
                sibling: 0,
                value: true
            },
            yes.clone(),
            vec![]
        ));
        assert!(!judge(
            Holds {
                sibling: 0,
                value: false
            },
            yes.clone(),
            vec![]
        ));
        assert!(
            !judge(
                Holds {
                    sibling: 0,
                    value: true
                },
                None,
                vec![]
            ),
            "g failed"
        );
        assert!(judge(Fixed { sibling: 1 }, Some(result.clone()), vec![]));
        assert!(!judge(Fixed { sibling: 1 }, Some(text("a<b")), vec![]));
        assert!(judge(
            Undoes {
                sibling: 1,
                param: 0
            },
            Some(text("a<b")),
            vec![]
        ));
        assert!(!judge(
            Undoes {
                sibling: 1,
                param: 0
            },
            Some(text("a")),
            vec![]
        ));
        let ok = |v: Value| Some(Value::Result(Ok(Box::new(v))));
        assert!(judge(
            Undoes {
                sibling: 2,
                param: 0
            },
            ok(text("a<b")),
            vec![]
        ));
        assert!(!judge(
            Undoes {
                sibling: 2,
                param: 0
            },
            ok(text("a")),
            vec![]
        ));
        let err = Some(Value::Result(Err("bad".into())));
        assert!(!judge(
            Undoes {
                sibling: 2,
                param: 0
            },
            err,
            vec![]
        ));
        let some = Some(Value::Option(Some(Box::new(text("a<b")))));
        assert!(judge(
            Undoes {
                sibling: 4,
                param: 0
            },
            some,
            vec![]
        ));
        assert!(!judge(
            Undoes {
                sibling: 4,
                param: 0
            },
            Some(Value::Option(None)),
            vec![]
        ));
        let alike = Alike {
            sibling: 1,
            param: 0,
        };
        assert!(judge(alike, Some(text("k")), vec![Some(text("k"))]));
        assert!(!judge(alike, Some(text("k")), vec![Some(text("j"))]));
        assert!(!judge(alike, Some(text("k")), vec![None]));
        assert!(!judge(alike, Some(text("k")), vec![]));

        let written = |m: Image| m.text(&s);
        assert_eq!(
            written(Holds {
                sibling: 0,
                value: true
            }),
            "is_escaped(&result)"
        );
        assert_eq!(
            written(Holds {
                sibling: 0,
                value: false
            }),
            "!is_escaped(&result)"
        );
        assert_eq!(written(Fixed { sibling: 1 }), "unescape(&result) == result");
        assert_eq!(
            written(Undoes {
                sibling: 1,
                param: 0
            }),
            "unescape(&result) == s"
        );
        assert_eq!(
            written(Undoes {
                sibling: 2,
                param: 0
            }),
            "decode(&result).is_ok_and(|back| back == s)"
        );
        assert_eq!(
            written(Undoes {
                sibling: 4,
                param: 0
            }),
            "owned(result.clone()).is_some_and(|back| back == s)"
        );
        assert_eq!(
            written(Alike {
                sibling: 1,
                param: 0
            }),
            "unescape(&result) == unescape(s)"
        );
        assert_eq!(
            written(Alike {
                sibling: 4,
                param: 0
            }),
            "owned(result.clone()) == owned(s.to_owned())"
        );
        // An owned text parameter, and a number given back.
        let mut owned = sig("fn shout(s: String) -> String", &[Kind::Str], Kind::Str);
        owned.siblings = s.siblings.clone();
        assert_eq!(
            Alike {
                sibling: 1,
                param: 0
            }
            .text(&owned),
            "unescape(&result) == unescape(&s)"
        );
        assert_eq!(
            Alike {
                sibling: 4,
                param: 0
            }
            .text(&owned),
            "owned(result.clone()) == owned(s.clone())"
        );
        let mut by_ref = sig("fn f(x: &f64) -> f64", &[Kind::Float], Kind::Float);
        by_ref.siblings = vec![sig("fn g(y: f64) -> f64", &[Kind::Float], Kind::Float)];
        assert_eq!(
            Undoes {
                sibling: 0,
                param: 0
            }
            .text(&by_ref),
            "g(result.clone()) == *x"
        );
        assert_eq!(
            Holds {
                sibling: 0,
                value: true
            }
            .echo(&s),
            Some(0)
        );
    }
}
