//! The result put through another function of the crate: what a person checks with the
//! crate's own predicates and normal forms (`is_nfc(&result)`, `nfd(&result) == nfd(s)`,
//! `decode(&result) == Ok(s)`), where no follow-up call of the function itself says it.
//!
//! The other function runs where the observation is made; what is recorded is whether each
//! relation held on the result, on each wrong version of it and on the input passed through
//! as the result, and on every follow-up run. The search reads those alone.

use super::signature::{Param, Signature};
use super::transform::{same_type, takes_result};
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
    /// `g(&result) == g(x)` for a parameter `x` of the result's type: the function keeps
    /// what `g` sees (`nfd(&result) == nfd(s)`: the text is canonically the same).
    Alike {
        /// The other function's index.
        sibling: usize,
        /// The parameter.
        param: usize,
    },
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
}

impl Image {
    /// The relations that make sense for a signature's other functions, by their types.
    pub fn all(sig: &Signature) -> Vec<Image> {
        let mut out = Vec::new();
        for (sibling, g) in sig.siblings.iter().enumerate() {
            if !takes_result(sig, g) {
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
                if p.kind == sig.output && same_type(&p.ty, &sig.output_ty) {
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
            | Image::Alike { sibling, .. } => sibling,
        }
    }

    /// Whether the relation holds on a run.
    pub fn holds(self, seen: &Seen<'_>) -> bool {
        let Some(image) = seen.image else {
            return false;
        };
        match self {
            Image::Holds { value, .. } => *image == Value::Bool(value),
            Image::Fixed { .. } => image == seen.result,
            Image::Undoes { param, .. } => {
                let x = &seen.input[param];
                match image.inner() {
                    Some(inner) => inner == Some(x),
                    None => image == x,
                }
            }
            Image::Alike { param, .. } => seen
                .of_params
                .get(param)
                .and_then(Option::as_ref)
                .is_some_and(|g_x| g_x == image),
        }
    }

    /// Whether the relation tells a function that hands its input back from one that does
    /// something: it fails where the parameter of the result's type stands for the result
    /// (`is_nfc(s)` false of an input not in that form). `None` where no parameter can stand
    /// for it, or nothing tells that way ([`Image::Alike`] holds of any such echo).
    pub fn echo(self, sig: &Signature) -> Option<usize> {
        match self {
            Image::Alike { .. } => None,
            _ => sig
                .params
                .iter()
                .position(|p| p.kind == sig.output && same_type(&p.ty, &sig.output_ty)),
        }
    }

    /// The relation as Rust source.
    pub fn text(self, sig: &Signature) -> String {
        let g = &sig.siblings[self.sibling()];
        let of_result = call(g, "&result", "result.clone()");
        match self {
            Image::Holds { value: true, .. } => of_result,
            Image::Holds { value: false, .. } => format!("!{of_result}"),
            Image::Fixed { .. } => format!("{of_result} == result"),
            Image::Undoes { param, .. } => {
                let p = &sig.params[param];
                let x = match p.kind {
                    Kind::Float | Kind::Int | Kind::Bool | Kind::Char => p.value_text(),
                    _ => p.name.clone(),
                };
                match g.output {
                    Kind::Option => format!("{of_result}.is_some_and(|back| back == {x})"),
                    Kind::Result => format!("{of_result}.is_ok_and(|back| back == {x})"),
                    _ => format!("{of_result} == {x}"),
                }
            }
            Image::Alike { param, .. } => {
                let p = &sig.params[param];
                let owned = match p.by_ref() {
                    true => format!("{}.to_owned()", p.name),
                    false => format!("{}.clone()", p.name),
                };
                format!("{of_result} == {}", call(g, &p.slice_text(), &owned))
            }
        }
    }
}

/// Whether `g` gives back a value of the parameter `p`'s type, or one inside an `Option`
/// or a `Result`.
fn gives(g: &Signature, p: &Param) -> bool {
    let plain = g.output == p.kind && same_type(&g.output_ty, &p.ty);
    let inside = matches!(g.output, Kind::Option | Kind::Result)
        && super::project::inner_type(&g.output_ty).is_some_and(|t| same_type(&t, &p.ty));
    plain || inside
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
