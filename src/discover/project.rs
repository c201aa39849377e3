//! Relations of a part of a composite result: the value inside an `Option` or a `Result`, an
//! element of a tuple or an array. Each part is searched as a result of its own, on the
//! observations with their results taken apart, and its relations are written about that
//! part: `if result.is_some() => sqrt(4 * x).unwrap() == 2 * result.unwrap()`.

use super::observe::{Follow, Observation};
use super::signature::{split_top_level, Signature};
use super::value::{Kind, Value};

/// A part of a composite result, and the kind of its values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Projection {
    /// Which part.
    pub at: At,
    /// The kind of the part's values.
    pub kind: Kind,
}

/// Where a part of a composite result is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum At {
    /// The value inside `Some` or `Ok`. Inputs whose result is `None` (`Err`) are left out;
    /// a follow-up that gives `None` (`Err`) where the original did not breaks every relation
    /// of the value, as its `unwrap()` would.
    Inner,
    /// The `k`-th element of a tuple or an array.
    Part(usize),
    /// The `k`-th element of a tuple or an array inside `Some` or `Ok` (a fitted line's slope,
    /// of `Result<(f64, f64), E>`), left out where there is none, as [`At::Inner`] is.
    InnerPart(usize),
}

/// What a follow-up gives where the original had a value and it has none: no relation of the
/// value holds of it (no form compares an empty record with a number, a sequence or a string,
/// and an empty record equals no part a result has).
fn missing() -> Value {
    Value::Record(Vec::new())
}

impl Projection {
    /// The parts of `sig`'s result that relations can be about, given what its results were:
    /// a part is of the kind its first value is of.
    pub fn all(sig: &Signature, obs: &[Observation]) -> Vec<Projection> {
        let at: Vec<At> = match sig.output {
            Kind::Option | Kind::Result => {
                // And each part of a tuple or an array inside, as many as it was seen with.
                let parts = obs.iter().find_map(|o| match o.output.inner()? {
                    Some(Value::Record(items)) => Some(items.len()),
                    _ => None,
                });
                let types = inner_type(&sig.output_ty).and_then(|t| part_types(&t));
                let inside = match (parts, types) {
                    (Some(n), Some(types)) if types.len() == n => n,
                    _ => 0,
                };
                std::iter::once(At::Inner)
                    .chain((0..inside).map(At::InnerPart))
                    .collect()
            }
            Kind::Record => {
                let parts = obs.iter().find_map(|o| match &o.output {
                    Value::Record(items) => Some(items.len()),
                    _ => None,
                });
                match (parts, part_types(&sig.output_ty)) {
                    (Some(n), Some(types)) if types.len() == n => (0..n).map(At::Part).collect(),
                    _ => Vec::new(),
                }
            }
            _ => Vec::new(),
        };
        at.into_iter()
            .filter_map(|at| {
                let kind = obs.iter().find_map(|o| Some(of(at, &o.output)??.kind()))?;
                Some(Projection { at, kind })
            })
            .collect()
    }

    /// The observations with their results taken apart: those whose result has the part, each
    /// follow-up's result replaced by its part.
    pub fn observations(self, obs: &[Observation]) -> Vec<Observation> {
        obs.iter()
            .filter_map(|o| {
                let output = of(self.at, &o.output)??.clone();
                if output.kind() != self.kind {
                    return None;
                }
                let part = |y: &Value| match of(self.at, y) {
                    Some(Some(part)) if part.kind() == self.kind => part.clone(),
                    _ => missing(),
                };
                let follow = o
                    .follow
                    .iter()
                    .map(|f| Follow {
                        output: f.output.as_ref().map(part),
                        // A round trip from the value inside `Some`/`Ok` ran from its wrong
                        // versions; one from the whole result is no relation of a part.
                        wrong: self
                            .inner(&f.wrong)
                            .iter()
                            .map(|w| w.as_ref().map(part))
                            .collect(),
                        images: self.inner(&f.inner_images),
                        inner_images: Vec::new(),
                        ..f.clone()
                    })
                    .collect();
                Some(Observation {
                    output,
                    follow,
                    images: self.inner(&o.inner_images),
                    inner_images: Vec::new(),
                    ..o.clone()
                })
            })
            .collect()
    }

    /// What the other functions showed of the part: the value inside `Some`/`Ok` has its
    /// own record (`inner`); nothing else is put through them.
    fn inner<T: Clone>(self, inner: &[T]) -> Vec<T> {
        match self.at {
            At::Inner => inner.to_vec(),
            At::Part(_) | At::InnerPart(_) => Vec::new(),
        }
    }

    /// The signature whose result is the part.
    pub fn signature(self, sig: &Signature) -> Option<Signature> {
        let written = match self.at {
            At::Inner => inner_type(&sig.output_ty)?,
            At::Part(k) => part_types(&sig.output_ty)?.get(k)?.clone(),
            At::InnerPart(k) => part_types(&inner_type(&sig.output_ty)?)?.get(k)?.clone(),
        };
        let suffix = match self.at {
            At::Inner => ".unwrap()".to_string(),
            At::InnerPart(k) => match inner_type(&sig.output_ty)?.starts_with('[') {
                true => format!(".unwrap()[{k}]"),
                false => format!(".unwrap().{k}"),
            },
            At::Part(k) if sig.output_ty.trim_start_matches('&').starts_with('[') => {
                format!("[{k}]")
            }
            At::Part(k) => format!(".{k}"),
        };
        Some(Signature {
            output: self.kind,
            output_ty: written,
            output_suffix: format!("{}{suffix}", sig.output_suffix),
            ..sig.clone()
        })
    }

    /// A relation of the part, written about the whole result: `result` becomes the part
    /// (`result.unwrap()`, `result.0`), under the guard that it has one.
    pub fn relation(self, whole: &Signature, part: &Signature, relation: &str) -> String {
        let (guard, body) = match relation.strip_prefix("if ") {
            Some(guarded) => match guarded.split_once(" => ") {
                Some((g, b)) => (Some(g.to_string()), b),
                None => (None, relation),
            },
            None => (None, relation),
        };
        let copy = matches!(
            part.output,
            Kind::Float | Kind::Int | Kind::Bool | Kind::Char
        );
        let (has, value) = match self.at {
            At::Inner => {
                let has = if whole.output == Kind::Result {
                    "result.is_ok()"
                } else {
                    "result.is_some()"
                };
                let value = if copy {
                    "result.unwrap()"
                } else {
                    "result.clone().unwrap()"
                };
                (Some(has), value.to_string())
            }
            At::Part(_) => {
                let suffix = &part.output_suffix[whole.output_suffix.len()..];
                (None, format!("result{suffix}"))
            }
            // Through a reference: the whole result may hold what is not `Copy` (an `Err` of
            // a `String`), the relation reads it again, and a copy of a `Copy` one is noise.
            At::InnerPart(_) => {
                let has = if whole.output == Kind::Result {
                    "result.is_ok()"
                } else {
                    "result.is_some()"
                };
                let suffix = &part.output_suffix[whole.output_suffix.len()..];
                (Some(has), format!("result.as_ref(){suffix}"))
            }
        };
        let body = replace_word(body, "result", &value);
        // A guard of the part's own (`result.is_finite()`) reads it once it is there, from a
        // copy where the whole result is not `Copy` (an `Err` of a `String`): the body reads
        // it after, and a pasted relation holds the result owned.
        let in_guard = match (self.at, whole.output, copy) {
            (At::Inner, Kind::Option, true) => value.clone(),
            (At::Inner, _, _) => "result.clone().unwrap()".to_string(),
            _ => value.clone(),
        };
        let of_part = guard
            .as_deref()
            .map(|g| replace_word(g, "result", &in_guard))
            .filter(|g| Some(g) != guard.as_ref());
        let guard = match (of_part, guard, has) {
            (Some(g), _, Some(h)) => Some(format!("{h} && {g}")),
            (Some(g), _, None) => Some(g),
            (None, Some(g), Some(h)) => Some(format!("{g} && {h}")),
            (None, g, h) => g.or(h.map(str::to_string)),
        };
        match guard {
            Some(g) => format!("if {g} => {body}"),
            None => body,
        }
    }
}

/// The signature whose result is the value of kind `kind` inside `Some`/`Ok` of `sig`'s
/// `Option` or `Result` result, where another function of the crate could take it (`None`:
/// the result is of another kind, or no other function is given).
pub(super) fn inner_signature(sig: &Signature, kind: Kind) -> Option<Signature> {
    let composite = matches!(sig.output, Kind::Option | Kind::Result);
    if !composite || sig.siblings.is_empty() {
        return None;
    }
    Projection {
        at: At::Inner,
        kind,
    }
    .signature(sig)
}

/// The part of a result at `at` (`Some(None)`: the result has no value there, `None`: the
/// result is not of the composite's kind).
fn of(at: At, v: &Value) -> Option<Option<&Value>> {
    match (at, v) {
        (At::Inner, v) => v.inner(),
        (At::Part(k), Value::Record(items)) => Some(items.get(k)),
        (At::InnerPart(k), v) => match v.inner()? {
            Some(Value::Record(items)) => Some(items.get(k)),
            Some(_) => None,
            None => Some(None),
        },
        _ => None,
    }
}

/// `T` of `Option<T>` or `Result<T, E>`.
pub(super) fn inner_type(ty: &str) -> Option<String> {
    let t = ty.trim_start_matches('&');
    let inside = t
        .strip_prefix("Option<")
        .or_else(|| t.strip_prefix("Result<"))?
        .strip_suffix('>')?;
    Some(split_top_level(inside).first()?.trim().to_string())
}

/// The element types of a tuple `(A, B)` or an array `[T; N]`.
pub(super) fn part_types(ty: &str) -> Option<Vec<String>> {
    let t = ty.trim_start_matches('&');
    if let Some(inside) = t.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
        let parts: Vec<String> = split_top_level(inside)
            .into_iter()
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty())
            .collect();
        return Some(parts);
    }
    let inside = t.strip_prefix('[')?.strip_suffix(']')?;
    let (elem, n) = inside.rsplit_once(';')?;
    let n: usize = n.trim().parse().ok()?;
    Some(vec![elem.trim().to_string(); n])
}

/// `text` with each `word` that stands alone (not part of a longer name, not a field or a
/// method after a `.`, not inside a string or character literal) replaced.
pub(super) fn replace_word(text: &str, word: &str, by: &str) -> String {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = String::with_capacity(text.len());
    let mut chars = text.char_indices().peekable();
    let mut prev: Option<char> = None;
    let mut in_string = false;
    while let Some((at, c)) = chars.next() {
        let rest = &text[at..];
        if in_string {
            out.push(c);
            match c {
                // The escaped character is the literal's, whatever it is.
                '\\' => out.extend(chars.next().map(|(_, e)| e)),
                '"' => in_string = false,
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if let Some(len) = char_literal(rest) {
            out.push_str(&rest[..len]);
            while chars.peek().is_some_and(|&(next, _)| next < at + len) {
                chars.next();
            }
        } else if rest.starts_with(word)
            && !prev.is_some_and(|p| ident(p) || p == '.')
            && !rest[word.len()..].chars().next().is_some_and(ident)
        {
            out.push_str(by);
            while chars
                .peek()
                .is_some_and(|&(next, _)| next < at + word.len())
            {
                chars.next();
            }
            prev = word.chars().next_back();
            continue;
        } else {
            out.push(c);
        }
        prev = Some(c);
    }
    out
}

/// The length in bytes of the character literal `text` starts with (`'a'`, `'\''`,
/// `'\u{301}'`), if it starts with one.
fn char_literal(text: &str) -> Option<usize> {
    let body = text.strip_prefix('\'')?;
    let inner = match body.strip_prefix('\\') {
        Some(escaped) => {
            let first = escaped.chars().next()?.len_utf8();
            1 + first + escaped[first..].find('\'')?
        }
        None => body.chars().next()?.len_utf8(),
    };
    body[inner..].starts_with('\'').then_some(inner + 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_s_own_guard_reads_the_part_after_its_presence() {
        let part = |t: &str| {
            let whole = Signature::parse(t, &[Kind::FloatSeq], Kind::Result).unwrap();
            let whole = Signature {
                output: if t.contains("Option") {
                    Kind::Option
                } else {
                    Kind::Result
                },
                ..whole
            };
            let at = Projection {
                at: At::Inner,
                kind: Kind::Float,
            };
            let part = at.signature(&whole).unwrap();
            at.relation(
                &whole,
                &part,
                "if result.is_finite() => g(result, xs) == 0.0",
            )
        };
        // An `Option` of a float is `Copy`: read as it is.
        assert_eq!(
            part("fn f(xs: &[f64]) -> Option<f64>"),
            "if result.is_some() && result.unwrap().is_finite() => g(result.unwrap(), xs) == 0.0"
        );
        // A `Result` with an `Err` that need not be: the guard reads a copy.
        assert_eq!(
            part("fn f(xs: &[f64]) -> Result<f64, String>"),
            "if result.is_ok() && result.clone().unwrap().is_finite() => \
             g(result.unwrap(), xs) == 0.0"
        );
    }

    #[test]
    fn a_word_is_replaced_where_it_stands_alone() {
        let r = |t: &str| replace_word(t, "result", "result.unwrap()");
        assert_eq!(r("f(x) == 2 * result"), "f(x) == 2 * result.unwrap()");
        assert_eq!(
            r("f(result) == result_len + self.result"),
            "f(result.unwrap()) == result_len + self.result"
        );
        assert_eq!(r("resultant"), "resultant");
        assert_eq!(r("result.len()"), "result.unwrap().len()");
        // Not inside a literal, whatever it holds.
        assert_eq!(
            r("f(x) == format!(\"{} result\", result)"),
            "f(x) == format!(\"{} result\", result.unwrap())"
        );
        assert_eq!(
            r("f(x) == format!(\"\\\" result\", result)"),
            "f(x) == format!(\"\\\" result\", result.unwrap())"
        );
        assert_eq!(
            r("result.ends_with('\"') && result != \"result\""),
            "result.unwrap().ends_with('\"') && result.unwrap() != \"result\""
        );
        assert_eq!(
            r("result.contains('\\'')"),
            "result.unwrap().contains('\\'')"
        );
        assert_eq!(r("é == result"), "é == result.unwrap()");
        assert_eq!(char_literal("'a' x"), Some(3));
        assert_eq!(char_literal("'\\u{301}'"), Some(9));
        assert_eq!(char_literal("'\\''"), Some(4));
        assert_eq!(char_literal("'\\\\'"), Some(4));
        assert_eq!(char_literal("'é'"), Some(4));
        assert_eq!(char_literal("'ab'"), None);
        assert_eq!(char_literal("a"), None);
    }

    fn observation(output: Value, follow: Option<Value>) -> Observation {
        Observation {
            input: vec![Value::Int(1)],
            output,
            noise: 0.0,
            probe: 0.0,
            size: 0,
            follow: vec![Follow {
                transform: "t".into(),
                output: follow,
                noise: 0.0,
                probe: 0.0,
                size: 0,
                center: None,
                wrong: Vec::new(),
                images: Vec::new(),
                inner_images: Vec::new(),
            }],
            signature: None,
            images: Vec::new(),
            inner_images: Vec::new(),
            mutants: Vec::new(),
        }
    }

    #[test]
    fn parts_are_taken_only_where_the_values_agree_with_the_written_type() {
        let sig = |text: &str| Signature::parse(text, &[Kind::Int], Kind::Record).unwrap();
        let triple = Value::Record(vec![Value::Int(1), Value::Int(2), Value::Int(3)]);
        // Three parts observed where two are written: another version's records.
        let two = sig("fn f(n: i64) -> (i64, i64)");
        assert!(Projection::all(&two, &[observation(triple.clone(), None)]).is_empty());
        let three = sig("fn f(n: i64) -> (i64, i64, i64)");
        assert_eq!(
            Projection::all(&three, &[observation(triple, None)]).len(),
            3
        );
        // A follow-up's part of another kind than the projection's is no value of it.
        let p = Projection {
            at: At::Part(0),
            kind: Kind::Int,
        };
        let odd = observation(
            Value::Record(vec![Value::Int(4)]),
            Some(Value::Record(vec![Value::Float(4.0)])),
        );
        let projected = p.observations(&[odd]);
        assert_eq!(projected[0].output, Value::Int(4));
        // What the whole result showed through other functions is no part's: the part's
        // relations through them are others, at other places.
        let mut through = observation(
            Value::Record(vec![Value::Int(5)]),
            Some(Value::Record(vec![Value::Int(6)])),
        );
        through.images = vec![crate::discover::observe::ImageRun {
            held: true,
            wrong: vec![Some(false)],
            echo: None,
        }];
        through.follow[0].images = vec![true];
        let part = &p.observations(&[through])[0];
        assert_eq!(part.output, Value::Int(5));
        assert!(part.images.is_empty() && part.follow[0].images.is_empty());
        assert_eq!(projected[0].follow[0].output, Some(missing()));
        // The part of an array is indexed; of a tuple, named.
        let array = sig("fn f(n: i64) -> [i64; 3]");
        assert_eq!(p.signature(&array).unwrap().output_suffix, "[0]");
        assert_eq!(p.signature(&three).unwrap().output_suffix, ".0");
        assert_eq!(p.signature(&three).unwrap().output_ty, "i64");
    }

    #[test]
    fn the_types_inside_are_read_from_the_written_result() {
        assert_eq!(inner_type("Option<u64>").as_deref(), Some("u64"));
        assert_eq!(
            inner_type("Result<Vec<f64>,String>").as_deref(),
            Some("Vec<f64>")
        );
        assert_eq!(inner_type("u64"), None);
        assert_eq!(
            part_types("(i64,i64,Vec<u8>)"),
            Some(vec!["i64".into(), "i64".into(), "Vec<u8>".into()])
        );
        assert_eq!(part_types("[f64;3]"), Some(vec!["f64".to_string(); 3]));
        assert_eq!(part_types("Vec<f64>"), None);
    }

    #[test]
    fn each_part_of_a_tuple_inside_some_or_ok_is_a_part_of_its_own() {
        let sig = |text: &str, output| Signature::parse(text, &[Kind::Int], output).unwrap();
        let ok = |a: f64, b: f64| {
            Value::Result(Ok(Box::new(Value::Record(vec![
                Value::Float(a),
                Value::Float(b),
            ]))))
        };
        let fit = sig("fn fit(n: i64) -> Result<(f64, f64), String>", Kind::Result);
        let found = Projection::all(&fit, &[observation(ok(1.0, 2.0), Some(ok(3.0, 4.0)))]);
        let at: Vec<At> = found.iter().map(|p| p.at).collect();
        assert_eq!(at, [At::Inner, At::InnerPart(0), At::InnerPart(1)]);
        assert!(found[1..].iter().all(|p| p.kind == Kind::Float));
        // Each follow-up's part is taken from inside its `Ok`; an `Err` has none.
        let slope = found[1];
        let seen = slope.observations(&[
            observation(ok(1.0, 2.0), Some(ok(3.0, 4.0))),
            observation(ok(5.0, 6.0), Some(Value::Result(Err("e".into())))),
            observation(Value::Result(Err("e".into())), Some(ok(7.0, 8.0))),
        ]);
        assert_eq!(seen.len(), 2, "an Err has no part");
        assert_eq!(seen[0].output, Value::Float(1.0));
        assert_eq!(seen[0].follow[0].output, Some(Value::Float(3.0)));
        assert_eq!(seen[1].follow[0].output, Some(missing()));
        // Written about the whole result, from a copy, under its guard.
        let part = found[2].signature(&fit).unwrap();
        assert_eq!(
            (part.output_ty.as_str(), part.output_suffix.as_str()),
            ("f64", ".unwrap().1")
        );
        assert_eq!(
            found[2].relation(&fit, &part, "f(n + 1) == result + 1.0"),
            "if result.is_ok() => f(n + 1) == result.as_ref().unwrap().1 + 1.0"
        );
        // Of an array inside `Some`, by index.
        let pair = sig("fn pair(n: i64) -> Option<[i32; 2]>", Kind::Option);
        let some = Value::Option(Some(Box::new(Value::Record(vec![
            Value::Int(1),
            Value::Int(2),
        ]))));
        let found = Projection::all(&pair, &[observation(some, None)]);
        let part = found[1].signature(&pair).unwrap();
        assert_eq!(part.output_suffix, ".unwrap()[0]");
        assert_eq!(
            found[1].relation(&pair, &part, "if result > 0 => result >= 1"),
            "if result.is_some() && result.as_ref().unwrap()[0] > 0 => result.as_ref().unwrap()[0] >= 1"
        );
        // A tuple inside of another length than written is no tuple of it.
        let three = Value::Result(Ok(Box::new(Value::Record(vec![Value::Float(1.0); 3]))));
        assert_eq!(Projection::all(&fit, &[observation(three, None)]).len(), 1);
    }
}
