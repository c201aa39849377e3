//! A found relation as the text a user pastes into `#[invite::metamorphic(...)]`.

use super::form::{By, Form};
use super::property::Place;
use super::search::{Found, Subject};
use super::signature::Signature;
use super::transform::{Const, NumTy, Transform};
use super::value::Kind;

/// The relation as Rust source, with its guard.
pub fn relation(sig: &Signature, transforms: &[Transform], f: &Found) -> String {
    if let Some(p) = f.projection {
        let Some(part) = p.signature(sig) else {
            return String::new();
        };
        let of_part = Found {
            projection: None,
            ..f.clone()
        };
        return p.relation(sig, &part, &relation(&part, transforms, &of_part));
    }
    let body = match &f.subject {
        Subject::Follow {
            transform,
            center,
            form,
        } => follow(sig, &transforms[*transform], *center, form),
        Subject::Property(p) => p.text(sig),
        Subject::Image(m) => m.text(sig),
        &Subject::Recurrence {
            first,
            second,
            a,
            b,
        } => {
            let call = |t: usize| sig.call(&transforms[t].arguments(sig, None));
            let term = |k: i8| Const::lit(f64::from(k));
            let rhs = sum(
                vec![(term(a), call(first)), (term(b), call(second))],
                sig.output_num_ty(),
            );
            format!("result == {rhs}")
        }
        &Subject::Compose { nested, direct } => {
            let call = |t: usize| sig.call(&transforms[t].arguments(sig, None));
            format!("{} == {}", call(nested), call(direct))
        }
        Subject::Joint {
            partner,
            combined,
            form,
        } => {
            let ty = sig.output_num_ty();
            let second = sig.call(&transforms[*partner].arguments(sig, None));
            let both = sig.call(&transforms[*combined].arguments(sig, None));
            let rhs = sum(
                vec![
                    (form.alpha, format!("result * {second}")),
                    (form.beta, "result".into()),
                    (form.beta, second),
                    (form.gamma, String::new()),
                ],
                ty,
            );
            format!("{both} == {rhs}")
        }
    };
    // A relation of another function's value is claimed where that value is defined.
    let defined = match &f.subject {
        Subject::Image(m) => m.defined(sig),
        _ => None,
    };
    let text = match (f.guard.map(|g| g.text(sig)), defined) {
        (Some(g), Some(d)) => format!("if {g} && {d} => {body}"),
        (Some(c), None) | (None, Some(c)) => format!("if {c} => {body}"),
        (None, None) => body,
    };
    match sig.in_place {
        // The function returns nothing: its result is what the parameter holds after the
        // call on the arguments as they are.
        Some(_) => {
            let unchanged: Vec<String> = sig.params.iter().map(|p| p.pass_unchanged()).collect();
            super::project::replace_word(&text, "result", &sig.call(&unchanged))
        }
        None => text,
    }
}

/// Where the result of `f` and each of its follow-ups are defined (`Some`, `Ok`, a finite
/// float):
/// `result.is_some() && weekday(days + 7).is_some()`.
pub fn defined(sig: &Signature, transforms: &[Transform], f: &Found) -> String {
    let method = match sig.output {
        Kind::Result => "is_ok",
        Kind::Float => "is_finite",
        _ => "is_some",
    };
    let center = match f.subject {
        Subject::Follow { center, .. } => center,
        _ => None,
    };
    let calls = f
        .follow_ups()
        .into_iter()
        .map(|t| sig.call(&transforms[t].arguments(sig, center)));
    std::iter::once("result".to_string())
        .chain(calls)
        .map(|call| format!("{call}.{method}()"))
        .collect::<Vec<_>>()
        .join(" && ")
}

/// A number parameter written as the result's type (`n as u64`), where its type is another:
/// `None` where it is the result's own.
fn cast_to_output(sig: &Signature, param: usize) -> Option<String> {
    let p = &sig.params[param];
    let own = p.ty.trim_start_matches('&').trim();
    let out = sig.output_ty.trim_start_matches('&').trim();
    (own != out).then(|| format!("{} as {out}", p.value_text()))
}

/// A relation between the follow-up run of `transform` and the original result.
fn follow(sig: &Signature, transform: &Transform, center: Option<f64>, form: &Form) -> String {
    let call = sig.call(&transform.arguments(sig, center));
    let ty = sig.output_num_ty();
    match form {
        Form::Affine { alpha, beta } if sig.output == Kind::Bool => match alpha.value {
            a if a < 0.0 => format!("{call} == !result"),
            0.0 if beta.value == 0.0 => format!("!{call}"),
            0.0 => call,
            _ => format!("{call} == result"),
        },
        Form::Affine { alpha, beta } => {
            format!("{call} == {}", linear("result", *alpha, *beta, ty))
        }
        Form::Quadratic { a, b, c } => format!("{call} == {}", quadratic(*a, *b, *c, ty)),
        Form::Square { a, b, c } => {
            format!("{} == {}", square(&call, ty), quadratic(*a, *b, *c, ty))
        }
        Form::ByParam {
            param,
            by,
            plus_one,
        } => {
            let p = &sig.params[*param];
            // A parameter of another type than the result's is cast to it first.
            let (x, num_ty) = match cast_to_output(sig, *param) {
                Some(cast) => (format!("({cast})"), ty),
                None => (p.value_text(), p.num_ty()),
            };
            let x = match plus_one {
                true => format!(
                    "({} + {})",
                    x.trim_start_matches('(').trim_end_matches(')'),
                    Const::lit(1.0).text(num_ty)
                ),
                false => x,
            };
            match by {
                By::Times => format!("{call} == {x} * result"),
                By::Plus => format!("{call} == result + {x}"),
                By::Over => format!("{call} == result / {x}"),
            }
        }
        Form::Param(param) => match cast_to_output(sig, *param) {
            Some(cast) => format!("{call} == {cast}"),
            None => format!("{call} == {}", sig.params[*param].value_text()),
        },
        Form::ParamPower { param, c, power } => {
            let x = match cast_to_output(sig, *param) {
                Some(cast) => format!("({cast})"),
                None => sig.params[*param].value_text(),
            };
            let x = match power.unsigned_abs() {
                1 => x,
                // `(*sd).powi(2)`: a method binds tighter than a dereference.
                _ if x.starts_with('*') => square(&format!("({x})"), ty),
                _ => square(&x, ty),
            };
            if *power > 0 {
                format!("{call} == {}", linear(&x, *c, Const::lit(0.0), ty))
            } else {
                let sign = if c.value < 0.0 { "-" } else { "" };
                format!("{call} == {sign}{} / {x}", c.abs().text(ty))
            }
        }
        Form::LenOf(param) => {
            let q = &sig.params[*param];
            let len = match q.kind {
                Kind::Str => format!("{}.chars().count()", q.name),
                _ => format!("{}.len()", q.name),
            };
            // A count of another integer type is compared in `i128`.
            match sig.output_ty.trim_start_matches('&') {
                "usize" => format!("{call} == {len}"),
                _ => format!("{call} as i128 == {len} as i128"),
            }
        }
        Form::Text(f) => f.text(&call),
        Form::AtLeast => format!("{call} >= result"),
        Form::AtMost => format!("{call} <= result"),
        Form::Above => format!("{call} > result"),
        Form::Below => format!("{call} < result"),
        Form::SeqAffine { alpha, beta } => {
            let scaled = match alpha.value {
                1.0 => "result".to_string(),
                -1.0 => "invite::mr::negate(&result)".to_string(),
                _ => format!("invite::mr::multiply(&result, {})", alpha.text(ty)),
            };
            let whole = if beta.value == 0.0 {
                scaled
            } else if scaled == "result" {
                format!("invite::mr::add(&result, {})", beta.text(ty))
            } else {
                format!("invite::mr::add(&{scaled}, {})", beta.text(ty))
            };
            format!("{call} == {whole}")
        }
        Form::Same => format!("{call} == result"),
        Form::SameIgnoringCase => format!("{call}.eq_ignore_ascii_case(&result)"),
        Form::SameVariant if sig.output == Kind::Result => {
            format!("{call}.is_ok() == result.is_ok()")
        }
        Form::SameVariant => format!("{call}.is_some() == result.is_some()"),
        // A tuple's or an array's parts in another order.
        Form::SeqReversed | Form::SeqTurned if sig.output == Kind::Record => {
            let parts = super::project::part_types(&sig.output_ty).map_or(0, |t| t.len());
            let order: Vec<usize> = match form {
                Form::SeqReversed => (0..parts).rev().collect(),
                _ => (1..parts).chain(0..1.min(parts)).collect(),
            };
            let moved: Vec<String> = order.into_iter().map(|k| sig.part_text(k)).collect();
            match sig.output_ty.trim_start_matches('&').starts_with('[') {
                true => format!("{call} == [{}]", moved.join(", ")),
                false => format!("{call} == ({})", moved.join(", ")),
            }
        }
        Form::SeqReversed => format!("{call} == invite::mr::reverse(&result)"),
        Form::SeqTurned => format!("{call} == invite::mr::rotate_left(&result)"),
        Form::SeqAffixed { piece, at } => {
            let piece = piece
                .iter()
                .map(i128::to_string)
                .collect::<Vec<_>>()
                .join(", ");
            match at {
                Place::End => format!("{call} == [result.to_vec(), vec![{piece}]].concat()"),
                _ => format!("{call} == [vec![{piece}], result.to_vec()].concat()"),
            }
        }
        Form::SeqPermutation if sig.output == Kind::List => {
            format!("invite::mr::same_elements(&{call}, &result)")
        }
        Form::SeqPermutation => {
            format!("invite::mr::sorted(&{call}) == invite::mr::sorted(&result)")
        }
        Form::Subset => format!("invite::mr::is_subset(&{call}, &result)"),
        Form::Superset => format!("invite::mr::is_subset(&result, &{call})"),
        Form::LenDelta(d) if *d < 0 => format!("{call}.len() == result.len() - {}", -d),
        Form::LenDelta(d) => format!("{call}.len() == result.len() + {d}"),
        Form::LenDouble => format!("{call}.len() == 2 * result.len()"),
        Form::LenRatio {
            a,
            b,
            c,
            d,
            squared,
        } => {
            let n = sig
                .params
                .iter()
                .find(|p| p.kind.is_seq())
                .map_or_else(|| "n".to_string(), |p| format!("{}.len() as f64", p.name));
            let (lhs, rhs) = if *squared {
                (square(&call, ty), square("result", ty))
            } else {
                (call, "result".to_string())
            };
            format!(
                "{} == {}",
                times(&lhs, &len_linear(*c, *d, &n)),
                times(&rhs, &len_linear(*a, *b, &n))
            )
        }
    }
}

/// `a·n + b` of a length's factor as source (`2.0 * xs.len() as f64 - 1.0`); empty for 1.
fn len_linear(a: i8, b: i8, n: &str) -> String {
    let lit = |x: i8| format!("{}.0", x.unsigned_abs());
    let term = match a {
        0 => String::new(),
        1 => n.to_string(),
        -1 => format!("-{n}"),
        _ if a < 0 => format!("-{} * {n}", lit(a)),
        _ => format!("{} * {n}", lit(a)),
    };
    match (term.is_empty(), b) {
        (true, 1) => String::new(),
        (true, _) => format!("{}{}", if b < 0 { "-" } else { "" }, lit(b)),
        (false, 0) => term,
        (false, _) if b < 0 => format!("{term} - {}", lit(b)),
        (false, _) => format!("{term} + {}", lit(b)),
    }
}

/// `x * (factor)`, or `x` alone for a factor of 1.
fn times(x: &str, factor: &str) -> String {
    if factor.is_empty() {
        x.to_string()
    } else if factor.contains(' ') {
        format!("{x} * ({factor})")
    } else {
        format!("{x} * {factor}")
    }
}

fn square(x: &str, ty: NumTy) -> String {
    if ty == NumTy::Int {
        format!("{x} * {x}")
    } else {
        format!("{x}.powi(2)")
    }
}

/// `α·x + β` with ones, zeros and signs written away.
pub fn linear(x: &str, alpha: Const, beta: Const, ty: NumTy) -> String {
    sum(vec![(alpha, x.to_string()), (beta, String::new())], ty)
}

fn quadratic(a: Const, b: Const, c: Const, ty: NumTy) -> String {
    sum(
        vec![
            (a, square("result", ty)),
            (b, "result".into()),
            (c, String::new()),
        ],
        ty,
    )
}

/// A sum of `coefficient · term` (an empty term is the constant), skipping zero terms.
fn sum(terms: Vec<(Const, String)>, ty: NumTy) -> String {
    let mut out = String::new();
    for (k, term) in terms {
        if k.value == 0.0 {
            continue;
        }
        let negative = k.value < 0.0;
        let mag = k.abs();
        let piece = if term.is_empty() {
            mag.text(ty)
        } else if mag.value == 1.0 && mag.name.is_none() {
            term
        } else {
            format!("{} * {term}", mag.text(ty))
        };
        match (out.is_empty(), negative) {
            (true, false) => out = piece,
            (true, true) => out = format!("-{piece}"),
            (false, false) => out += &format!(" + {piece}"),
            (false, true) => out += &format!(" - {piece}"),
        }
    }
    if out.is_empty() {
        Const::lit(0.0).text(ty)
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::{E, PI};

    #[test]
    fn an_inverse_is_claimed_where_it_is_finite_and_under_its_guard() {
        use crate::discover::guard::Guard;
        use crate::discover::image::Image;
        let mut sig = Signature::parse(
            "fn fv(rate: f64, n: f64, pv: f64) -> f64",
            &[Kind::Float; 3],
            Kind::Float,
        )
        .unwrap();
        sig.siblings.push(
            Signature::parse(
                "fn pv(rate: f64, n: f64, fv: f64) -> f64",
                &[Kind::Float; 3],
                Kind::Float,
            )
            .unwrap(),
        );
        let found = |guard| Found {
            subject: Subject::Image(Image::Inverse {
                sibling: 0,
                param: 2,
            }),
            guard,
            inputs: 30,
            held: 30,
            detects: 1,
            catches: super::super::cover::Catches::new(1, 1),
            perturbations: 1,
            tolerance: 0.0,
            projection: None,
        };
        let transforms = Transform::all(&sig);
        assert_eq!(
            relation(&sig, &transforms, &found(None)),
            "if pv(rate, n, result).is_finite() => pv(rate, n, result) == pv"
        );
        assert_eq!(
            relation(&sig, &transforms, &found(Some(Guard::NonNegative(1)))),
            "if n >= 0.0 && pv(rate, n, result).is_finite() => pv(rate, n, result) == pv"
        );
        // Another relation under a guard keeps it alone.
        let fixed = Found {
            subject: Subject::Property(crate::discover::property::Property::Sign(
                crate::discover::property::Cmp::AtLeast,
            )),
            ..found(Some(Guard::NonNegative(1)))
        };
        assert_eq!(
            relation(&sig, &transforms, &fixed),
            "if n >= 0.0 => result >= 0.0"
        );
    }

    #[test]
    fn where_a_result_and_its_follow_up_are_defined_reads_as_their_variants() {
        let sig = Signature::parse(
            "fn f(x: f64) -> Result<f64, String>",
            &[Kind::Float],
            Kind::Result,
        )
        .unwrap();
        let transforms = Transform::all(&sig);
        let reflect = transforms
            .iter()
            .position(|t| matches!(t, Transform::Reflect { .. }))
            .unwrap();
        let found = |center| Found {
            subject: Subject::Follow {
                transform: reflect,
                center,
                form: Form::Same,
            },
            guard: None,
            inputs: 30,
            held: 30,
            detects: 1,
            catches: super::super::cover::Catches::new(1, 1),
            perturbations: 1,
            tolerance: 0.0,
            projection: None,
        };
        // Of a `Result`, `is_ok`; the follow-up reflected about the point solved.
        assert_eq!(
            defined(&sig, &transforms, &found(Some(2.5))),
            "result.is_ok() && f(2.5 - x).is_ok()"
        );
        let option =
            Signature::parse("fn f(x: f64) -> Option<f64>", &[Kind::Float], Kind::Option).unwrap();
        assert_eq!(
            defined(&option, &transforms, &found(Some(2.5))),
            "result.is_some() && f(2.5 - x).is_some()"
        );
        // Of a float, finite.
        let float = Signature::parse("fn f(x: f64) -> f64", &[Kind::Float], Kind::Float).unwrap();
        assert_eq!(
            defined(&float, &transforms, &found(Some(2.5))),
            "result.is_finite() && f(2.5 - x).is_finite()"
        );
    }

    #[test]
    fn a_length_factor_reads_as_the_shortest_source() {
        let n = "xs.len() as f64";
        let cases = [
            ((0, 1), ""),
            ((0, 3), "3.0"),
            ((0, -2), "-2.0"),
            ((1, 0), "xs.len() as f64"),
            ((-1, 0), "-xs.len() as f64"),
            ((-2, 1), "-2.0 * xs.len() as f64 + 1.0"),
            ((2, -1), "2.0 * xs.len() as f64 - 1.0"),
            ((3, 0), "3.0 * xs.len() as f64"),
        ];
        for ((a, b), text) in cases {
            assert_eq!(len_linear(a, b, n), text, "{a}·n + {b}");
        }
        assert_eq!(times("result", ""), "result");
        assert_eq!(times("result", "2.0 * n - 1.0"), "result * (2.0 * n - 1.0)");
        assert_eq!(times("result", "3.0"), "result * 3.0");
    }

    #[test]
    fn sums_read_like_hand_written_rust() {
        let k = Const::lit;
        let e = Const {
            value: E,
            name: Some("E"),
        };
        assert_eq!(linear("result", k(1.0), k(0.0), NumTy::F64), "result");
        assert_eq!(linear("result", k(-1.0), k(0.0), NumTy::F64), "-result");
        assert_eq!(
            linear("result", e, k(0.0), NumTy::F64),
            "std::f64::consts::E * result"
        );
        assert_eq!(
            linear("result", k(2.0), k(-1.0), NumTy::Int),
            "2 * result - 1"
        );
        let pi = Const {
            value: -PI,
            name: Some("PI"),
        };
        assert_eq!(
            linear("result", k(-0.5), pi, NumTy::F32),
            "-0.5 * result - std::f32::consts::PI"
        );
        assert_eq!(
            quadratic(k(2.0), k(0.0), k(-1.0), NumTy::F64),
            "2.0 * result.powi(2) - 1.0"
        );
        assert_eq!(
            quadratic(k(-1.0), k(0.0), k(1.0), NumTy::Int),
            "-result * result + 1"
        );
        assert_eq!(sum(vec![(k(0.0), "x".into())], NumTy::F64), "0.0");
    }

    /// The text of `form` on the follow-up `transform` of `sig`'s function.
    fn text(sig: &str, kinds: &[Kind], out: Kind, t: Transform, form: Form) -> String {
        let sig = Signature::parse(sig, kinds, out).unwrap();
        follow(&sig, &t, None, &form)
    }

    #[test]
    fn a_boolean_follow_up_reads_as_the_result_its_negation_or_one_value() {
        let square = Transform::Product {
            param: 0,
            a: 1.0,
            b: Const::lit(0.0),
        };
        let at = |alpha: f64, beta: f64| {
            let form = Form::Affine {
                alpha: Const::lit(alpha),
                beta: Const::lit(beta),
            };
            let sig = "fn is_prime(n: u64) -> bool";
            text(sig, &[Kind::Int], Kind::Bool, square.clone(), form)
        };
        assert_eq!(at(1.0, 0.0), "is_prime(n * n) == result");
        assert_eq!(at(-1.0, 1.0), "is_prime(n * n) == !result");
        assert_eq!(at(0.0, 0.0), "!is_prime(n * n)");
        assert_eq!(at(0.0, 1.0), "is_prime(n * n)");
    }

    #[test]
    fn elements_added_to_a_sequence_read_as_a_concatenation() {
        let scaled = Transform::Affine {
            param: 0,
            a: 128.0,
            b: Const::lit(0.0),
        };
        let at = |piece: Vec<i128>, at| {
            let sig = "fn varint(n: u64) -> Vec<u8>";
            let form = Form::SeqAffixed { piece, at };
            text(sig, &[Kind::Int], Kind::IntSeq, scaled.clone(), form)
        };
        assert_eq!(
            at(vec![128], Place::Start),
            "varint(128 * n) == [vec![128], result.to_vec()].concat()"
        );
        assert_eq!(
            at(vec![0, 255], Place::End),
            "varint(128 * n) == [result.to_vec(), vec![0, 255]].concat()"
        );
    }

    #[test]
    fn a_parameter_of_another_type_than_the_result_is_cast_to_it() {
        let step = Transform::Affine {
            param: 0,
            a: 1.0,
            b: Const::lit(1.0),
        };
        let next = |plus_one| Form::ByParam {
            param: 0,
            by: By::Times,
            plus_one,
        };
        let int = [Kind::Int];
        assert_eq!(
            text(
                "fn fact(n: u32) -> u64",
                &int,
                Kind::Int,
                step.clone(),
                next(true)
            ),
            "fact(n + 1) == (n as u64 + 1) * result"
        );
        assert_eq!(
            text(
                "fn fact(n: u64) -> u64",
                &int,
                Kind::Int,
                step.clone(),
                next(true)
            ),
            "fact(n + 1) == (n + 1) * result"
        );
        assert_eq!(
            text(
                "fn f(n: &u32) -> f64",
                &int,
                Kind::Float,
                step.clone(),
                next(false)
            ),
            "f(&(*n + 1)) == (*n as f64) * result"
        );
        assert_eq!(
            text(
                "fn f(x: f32) -> f64",
                &[Kind::Float],
                Kind::Float,
                step,
                next(true)
            ),
            "f(x + 1.0) == (x as f64 + 1.0) * result"
        );
        let two = [Kind::Int, Kind::Int];
        let equal = Transform::Copy { param: 1, from: 0 };
        assert_eq!(
            text(
                "fn lcm(a: u32, b: u32) -> u64",
                &two,
                Kind::Int,
                equal.clone(),
                Form::Param(0)
            ),
            "lcm(a, a) == a as u64"
        );
        assert_eq!(
            text(
                "fn gcd(a: u64, b: u64) -> u64",
                &two,
                Kind::Int,
                equal,
                Form::Param(0)
            ),
            "gcd(a, a) == a"
        );
        // A power of another argument, with the constant fitted.
        let three = [Kind::Float; 3];
        let peak = Transform::Copy { param: 0, from: 1 };
        let power = |c: f64, power| Form::ParamPower {
            param: 2,
            c: Const::lit(c),
            power,
        };
        let pdf = "fn pdf(x: f64, mean: f64, sd: &f64) -> f64";
        let at = |form| text(pdf, &three, Kind::Float, peak.clone(), form);
        assert_eq!(at(power(0.4, -1)), "pdf(mean, mean, sd) == 0.4 / *sd");
        assert_eq!(
            at(power(-0.4, -2)),
            "pdf(mean, mean, sd) == -0.4 / (*sd).powi(2)"
        );
        assert_eq!(at(power(3.0, 1)), "pdf(mean, mean, sd) == 3.0 * *sd");
        assert_eq!(at(power(-1.0, 2)), "pdf(mean, mean, sd) == -(*sd).powi(2)");
        // A record's parts in another order, written as the record is.
        let parts = [Kind::Record];
        let turn = Transform::Seq {
            param: 0,
            op: crate::discover::transform::SeqOp::RotateLeft,
        };
        let array = "fn f(a: [f64; 3]) -> [f64; 3]";
        let tuple = "fn f(a: [f64; 3]) -> (f64, f64, f64)";
        let of = |sig, form| text(sig, &parts, Kind::Record, turn.clone(), form);
        assert_eq!(
            of(array, Form::SeqTurned),
            "f(invite::mr::array(invite::mr::rotate_left(&a))) == [result[1], result[2], result[0]]"
        );
        assert_eq!(
            of(array, Form::SeqReversed),
            "f(invite::mr::array(invite::mr::rotate_left(&a))) == [result[2], result[1], result[0]]"
        );
        assert_eq!(
            of(tuple, Form::SeqTurned),
            "f(invite::mr::array(invite::mr::rotate_left(&a))) == (result.1, result.2, result.0)"
        );
        // A parameter taken by value is squared as it is.
        let owned = "fn pdf(x: f64, mean: f64, sd: f64) -> f64";
        assert_eq!(
            text(owned, &three, Kind::Float, peak.clone(), power(2.0, 2)),
            "pdf(mean, mean, sd) == 2.0 * sd.powi(2)"
        );
        let counted = "fn f(x: f64, y: f64, n: u32) -> f64";
        let kinds = [Kind::Float, Kind::Float, Kind::Int];
        assert_eq!(
            text(counted, &kinds, Kind::Float, peak, power(0.5, -1)),
            "f(y, y, n) == 0.5 / (n as f64)"
        );
    }

    #[test]
    fn a_length_is_counted_in_characters_and_compared_in_the_result_s_type() {
        let strings = [Kind::Str, Kind::Str];
        let emptied = Transform::Text {
            param: 1,
            op: crate::discover::transform::TextOp::Emptied,
        };
        assert_eq!(
            text(
                "fn d(a: &str, b: &str) -> usize",
                &strings,
                Kind::Int,
                emptied.clone(),
                Form::LenOf(0)
            ),
            "d(a, &String::new()) == a.chars().count()"
        );
        assert_eq!(
            text(
                "fn d(a: &str, b: &str) -> u32",
                &strings,
                Kind::Int,
                emptied,
                Form::LenOf(0)
            ),
            "d(a, &String::new()) as i128 == a.chars().count() as i128"
        );
        let seqs = [Kind::FloatSeq, Kind::FloatSeq];
        let swap = Transform::Swap { i: 0, j: 1 };
        assert_eq!(
            text(
                "fn d(xs: &[f64], ys: &[f64]) -> usize",
                &seqs,
                Kind::Int,
                swap,
                Form::LenOf(1)
            ),
            "d(ys, xs) == ys.len()"
        );
        // A sequence result reversed is not a tuple's parts.
        let reverse = Transform::Seq {
            param: 0,
            op: crate::discover::transform::SeqOp::Reverse,
        };
        assert_eq!(
            text(
                "fn s(xs: &[f64]) -> Vec<f64>",
                &[Kind::FloatSeq],
                Kind::FloatSeq,
                reverse,
                Form::SeqReversed
            ),
            "s(&invite::mr::reverse(xs)) == invite::mr::reverse(&result)"
        );
    }

    #[test]
    fn owned_arguments_are_passed_as_copies_and_a_tuple_reversed_by_its_parts() {
        let strings = [Kind::Str, Kind::Str];
        let equal = Transform::Copy { param: 1, from: 0 };
        let zero = Form::Affine {
            alpha: Const::lit(0.0),
            beta: Const::lit(0.0),
        };
        assert_eq!(
            text(
                "fn d(a: String, b: String) -> usize",
                &strings,
                Kind::Int,
                equal.clone(),
                zero.clone()
            ),
            "d(a.clone(), a.clone()) == 0"
        );
        assert_eq!(
            text(
                "fn d(a: &str, b: &str) -> usize",
                &strings,
                Kind::Int,
                equal,
                zero
            ),
            "d(a, a) == 0"
        );
        let invert = Transform::Seq {
            param: 0,
            op: crate::discover::transform::SeqOp::Negate,
        };
        assert_eq!(
            text(
                "fn t(v: &[bool]) -> (usize, usize)",
                &[Kind::List],
                Kind::Record,
                invert,
                Form::SeqReversed
            ),
            "t(&invite::mr::invert(v)) == (result.1, result.0)"
        );
    }
}
