//! One observation: the function run on an input and on every follow-up input made from it,
//! with how much its result moves when the input moves by one unit in the last place. This is
//! all a relation is later judged on, so a test child can record it and the fit can run
//! anywhere.

use serde::{Deserialize, Serialize};

use super::image::{Image, Seen, TwinAt};
use super::perturb::Perturbation;
use super::project::inner_signature;
use super::signature::Signature;
use super::transform::{takes_result, SeqOp, Transform};
use super::value::{lossless, Kind, Value};

/// The function as discovery calls it: `None` when the arguments do not convert, the function
/// panics, or its result cannot be represented.
pub type Call<'a> = dyn FnMut(&[Value]) -> Option<Value> + 'a;

/// The other functions of the crate a follow-up puts a value through, by their index in
/// [`Signature::siblings`]: `None` where one fails or its result cannot be represented.
pub type Siblings<'a> = [&'a OneArg<'a>];

/// One of [`Siblings`]: a function of one value.
pub type OneArg<'a> = dyn Fn(&Value) -> Option<Value> + 'a;

/// What one input showed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Observation {
    /// The input.
    pub input: Vec<Value>,
    /// The result on it.
    pub output: Value,
    /// How far the result moved when the input's floats moved by one unit in the last place.
    #[serde(with = "lossless")]
    pub noise: f64,
    /// One number summarising the input, for perturbations that depend on it.
    #[serde(with = "lossless")]
    pub probe: f64,
    /// The input's sequences' total length.
    #[serde(default)]
    pub size: usize,
    /// The follow-up runs, one per transformation, in the order of [`Transform::all`].
    pub follow: Vec<Follow>,
    /// The signature the observation was made under where it is not the one the function is
    /// written with: a receiver's fields as parameters of their own
    /// (`fn predict(&self, self.rows: Vec<Row>, q: &[f64]) -> u32`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// What the result put through the other functions of the crate showed, one per relation
    /// of `Image::all`, in its order (empty: no other function given).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<ImageRun>,
    /// As `images`, of the value inside `Some`/`Ok` of an `Option` or `Result` result, for
    /// the relations of `Image::all` of that value's signature (`inner_signature`): the
    /// decoded bytes put back through the encoder (empty: no value inside, or no other
    /// function takes its type).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inner_images: Vec<ImageRun>,
    /// Where wrong versions of the function (`#[invite::discover(mutants = true)]`) gave other
    /// results on this input's runs (empty: none was observed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mutants: Vec<MutantRun>,
}

/// Whether one relation of the result through another function (`Image`) held on an
/// observation's result, and on the wrong results that stand for defects.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageRun {
    /// Whether it held on the result.
    pub held: bool,
    /// Whether it held with each wrong version of the result in its place, in the order of
    /// `Perturbation::listed` (`None`: a constant's, which has nothing to put through).
    pub wrong: Vec<Option<bool>>,
    /// Whether it held with the parameter of `Image::echo` in the result's place (`None`:
    /// no parameter stands for the result).
    pub echo: Option<bool>,
}

/// A follow-up run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Follow {
    /// The transformation's id ([`Transform::id`]).
    pub transform: String,
    /// The result on the follow-up input (`None`: the transformation did not apply there, or the
    /// function failed on it).
    pub output: Option<Value>,
    /// The follow-up result's noise, as for [`Observation::noise`].
    #[serde(with = "lossless")]
    pub noise: f64,
    /// The follow-up input's probe.
    #[serde(with = "lossless")]
    pub probe: f64,
    /// The follow-up input's sequences' total length.
    #[serde(default)]
    pub size: usize,
    /// A reflection's solved point, or the result a sequence had appended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub center: Option<f64>,
    /// Of a round trip ([`Transform::ResultThrough`]), the follow-up's result had the result
    /// been each wrong version of it, in the order of `Perturbation::listed`: what a wrong
    /// function feeds back through the other function differs from what the right one does,
    /// and only a run tells how (`None`: not run, or it failed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wrong: Vec<Option<Value>>,
    /// Whether each relation of `Image::all` held on this run (empty: not run).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<bool>,
    /// As `images`, of the value inside this run's `Some`/`Ok` (empty: not run, or none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inner_images: Vec<bool>,
}

/// Where one wrong version of the function gave another result than the function on an
/// observation's runs: what a relation that catches it fails on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MutantRun {
    /// Which wrong version: its change (`` `x < 0` as `x <= 0` ``), which names it in every
    /// build of the function.
    pub version: String,
    /// Each run it differs on, with its result there (`None`: it failed): run 0 is the
    /// input, run `t + 1` the follow-up of transformation `t`. A follow-up made of the result
    /// (the result as an argument, a reflection about a point solved from it) is made of the
    /// version's own.
    pub differs: Vec<Differ>,
}

/// One run on which a wrong version differs from the function.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Differ {
    /// Run 0 is the input, run `t + 1` the follow-up of transformation `t`.
    pub run: usize,
    /// The version's result there (`None`: it failed, or the follow-up was not made).
    pub output: Option<Value>,
    /// A reflection's point as the version solved it, where it differs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub center: Option<f64>,
}

impl Observation {
    /// Raises the noise of the result and of every follow-up result to at least `floor`.
    pub fn raise_noise(&mut self, floor: f64) {
        self.noise = self.noise.max(floor);
        for f in self.follow.iter_mut().filter(|f| f.output.is_some()) {
            f.noise = f.noise.max(floor);
        }
    }

    /// The observation the wrong version `version` would have made, where it was run: its
    /// results (and solved points) in place of the function's. The noise and the runs through
    /// other functions stay the function's, so that a relation of those is never said to
    /// catch it. `None` where it was not run, or failed on the input itself (no observation,
    /// as of the function).
    pub fn of_mutant(&self, version: &str) -> Option<Observation> {
        let run = self.mutants.iter().find(|m| m.version == version)?;
        let mut o = Observation {
            mutants: Vec::new(),
            ..self.clone()
        };
        for d in &run.differs {
            match (d.run.checked_sub(1), &d.output) {
                (None, Some(v)) => o.output = v.clone(),
                (None, None) => return None,
                (Some(t), v) => {
                    if let Some(f) = o.follow.get_mut(t) {
                        f.output = v.clone();
                        f.center = d.center.or(f.center);
                    }
                }
            }
        }
        Some(o)
    }

    /// Records where `version`'s own observation of the same input (`None`: it failed on the
    /// input) differs from this one.
    pub fn add_mutant(&mut self, version: &str, theirs: Option<&Observation>) {
        let differs = match theirs {
            None => vec![Differ {
                run: 0,
                output: None,
                center: None,
            }],
            Some(w) => {
                let mut differs = Vec::new();
                if w.output != self.output {
                    differs.push(Differ {
                        run: 0,
                        output: Some(w.output.clone()),
                        center: None,
                    });
                }
                for (t, (mine, theirs)) in self.follow.iter().zip(&w.follow).enumerate() {
                    let center = (theirs.center != mine.center)
                        .then_some(theirs.center)
                        .flatten();
                    if theirs.output != mine.output || center.is_some() {
                        differs.push(Differ {
                            run: t + 1,
                            output: theirs.output.clone(),
                            center,
                        });
                    }
                }
                differs
            }
        };
        self.mutants.push(MutantRun {
            version: version.to_string(),
            differs,
        });
    }
}

/// Longest sequence observed: longer inputs or results are not recorded.
pub const MAX_LEN: usize = 4096;

/// Runs `call` on `input` and on every follow-up input; `None` when the function fails on the
/// input itself or a value is too long to record.
pub fn observe(
    sig: &Signature,
    transforms: &[Transform],
    input: Vec<Value>,
    call: &mut Call<'_>,
    seed: u64,
) -> Option<Observation> {
    observe_some(sig, transforms, input, call, seed, &|_| true, &[])
}

/// As [`observe`], with only the follow-ups `wanted` picks (by index into `transforms`) run;
/// the others are recorded as not applying. Checking a few relations on many inputs needs
/// only their own runs.
pub fn observe_some(
    sig: &Signature,
    transforms: &[Transform],
    input: Vec<Value>,
    call: &mut Call<'_>,
    seed: u64,
    wanted: &dyn Fn(usize) -> bool,
    siblings: &Siblings<'_>,
) -> Option<Observation> {
    if input.iter().any(too_long) {
        return None;
    }
    let output = call(&input)?;
    if too_long(&output) || output.kind() != sig.output {
        return None;
    }
    let noise = noise_at(sig, &input, &output, call);
    let probe = probe(&input);
    let size = size(&input);
    let relations = Image::all(sig);
    let follow = transforms
        .iter()
        .enumerate()
        .map(|(i, t)| {
            if !wanted(i) {
                return Follow {
                    transform: t.id(sig),
                    output: None,
                    noise: 0.0,
                    probe: 0.0,
                    size: 0,
                    center: None,
                    wrong: Vec::new(),
                    images: Vec::new(),
                    inner_images: Vec::new(),
                };
            }
            let center = match t {
                Transform::Reflect { param } if sig.output == Kind::Float => {
                    symmetry_point(&input, *param, call)
                }
                Transform::Seq {
                    op: SeqOp::IncludeResult,
                    ..
                } => output.number(),
                _ => None,
            };
            let seed = seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let next = match t {
                // The function on its own result: the result in the parameter's place.
                Transform::OnResult { param } => {
                    let mut next = input.clone();
                    next[*param] = output.clone();
                    Some(next)
                }
                // And with another parameter set: the inner call of a composition.
                Transform::Nested {
                    param,
                    other,
                    value,
                } => input[*other].number_like(*value).map(|set| {
                    let mut next = input.clone();
                    next[*param] = output.clone();
                    next[*other] = set;
                    next
                }),
                // Through another function: a parameter, or the result in its place.
                Transform::Through { param, sibling } => {
                    through(siblings, *sibling, &input[*param], &input, *param)
                }
                Transform::ResultThrough { param, sibling } => {
                    round_trip_start(sig, *sibling, &output)
                        .and_then(|(start, _)| through(siblings, *sibling, start, &input, *param))
                }
                _ => t.apply(&input, center, seed),
            };
            let out = next.as_ref().and_then(|n| call(n)).filter(|o| !too_long(o));
            let (noise, follow_probe, follow_size) = match (&next, &out) {
                (Some(n), Some(o)) => (noise_at(sig, n, o, call), self::probe(n), self::size(n)),
                _ => (0.0, 0.0, 0),
            };
            // A round trip, run again from each wrong version of the result (a constant
            // function's feeds back its constant: nothing to run). A number is nudged by its
            // own magnitude here, by the results' median in the search, and the wrong run's
            // probe is the right run's there: of numbers, a round trip is credited roughly.
            let wrong = match t {
                // From the value inside `Some`/`Ok`, where the other function takes it: each
                // wrong version is of that value.
                Transform::ResultThrough { param, sibling } if out.is_some() => {
                    match round_trip_start(sig, *sibling, &output) {
                        Some((start, kind)) => {
                            let sized = input.iter().any(|v| v.kind().is_seq());
                            let scale = start.number().map_or(1.0, |y| y.abs().max(1.0));
                            Perturbation::listed(kind, sized)
                                .into_iter()
                                .map(|p| {
                                    if p == Perturbation::Constant {
                                        return None;
                                    }
                                    let y = p.apply(start, start, scale, probe, size);
                                    let n = through(siblings, *sibling, &y, &input, *param)?;
                                    call(&n).filter(|o| !too_long(o))
                                })
                                .collect()
                        }
                        None => Vec::new(),
                    }
                }
                _ => Vec::new(),
            };
            let (images, inner_images) = match (&next, &out) {
                (Some(n), Some(o)) => (
                    images_of(sig, &relations, siblings, n, o),
                    inner_of(sig, o).map_or_else(Vec::new, |(part, relations, v)| {
                        images_of(&part, &relations, siblings, n, v)
                    }),
                ),
                _ => (Vec::new(), Vec::new()),
            };
            Follow {
                transform: t.id(sig),
                output: out,
                noise,
                probe: follow_probe,
                size: follow_size,
                center,
                wrong,
                images,
                inner_images,
            }
        })
        .collect();
    let images = image_runs(sig, &relations, siblings, &input, &output, probe, size);
    let inner_images = inner_of(sig, &output).map_or_else(Vec::new, |(part, relations, v)| {
        image_runs(&part, &relations, siblings, &input, v, probe, size)
    });
    Some(Observation {
        input,
        output,
        noise,
        probe,
        size,
        follow,
        signature: None,
        images,
        inner_images,
        mutants: Vec::new(),
    })
}

/// Where a round trip through the other function `sibling` starts, and the kind of the
/// values it starts from: the result, or the value inside its `Some`/`Ok` where the other
/// function takes that value's type (`None`: the result has no value inside).
fn round_trip_start<'a>(
    sig: &Signature,
    sibling: usize,
    output: &'a Value,
) -> Option<(&'a Value, Kind)> {
    let g = sig.siblings.get(sibling)?;
    if takes_result(sig, g) {
        return Some((output, sig.output));
    }
    let v = output.inner()??;
    Some((v, v.kind()))
}

/// Whether each relation of `relations` held on a follow-up run of input `n` and result `y`.
fn images_of(
    sig: &Signature,
    relations: &[Image],
    siblings: &Siblings<'_>,
    n: &[Value],
    y: &Value,
) -> Vec<bool> {
    if relations.is_empty() {
        return Vec::new();
    }
    let through = Through::of(sig, relations, siblings, n, y);
    relations
        .iter()
        .map(|&m| m.holds(&through.seen(m, n, y, &through.result, through.after())))
        .collect()
}

/// The value inside `Some`/`Ok` of a result `y`, with the signature whose result it is and
/// the relations of it through the other functions (`None`: no value inside, or no other
/// function takes its type).
fn inner_of<'a>(sig: &Signature, y: &'a Value) -> Option<(Signature, Vec<Image>, &'a Value)> {
    let v = y.inner()??;
    let part = inner_signature(sig, v.kind())?;
    let relations = Image::all(&part);
    (!relations.is_empty()).then_some((part, relations, v))
}

/// The other functions of the crate on one run: each on the result and on the parameters of
/// the result's type, where it takes that type (`None` where it does not, or failed).
struct Through {
    result: Vec<Option<Value>>,
    /// Of each other function, of each parameter: the function on the run's arguments with
    /// the result in that parameter's place ([`Image::Inverse`]).
    inverse: Vec<Vec<Option<Value>>>,
    /// Of each other function, of each of its parameters: the function on the run's
    /// arguments with the result put in there ([`Image::Root`]).
    root: Vec<Vec<Option<Value>>>,
    params: Vec<Vec<Option<Value>>>,
    /// Each twin of a function of one parameter on the run's input, as it is and turned, in
    /// the order of `TwinAt::ALL` ([`Image::Bound`], [`Image::Twin`]).
    input: Vec<[Option<Value>; 3]>,
}

impl Through {
    fn of(
        sig: &Signature,
        relations: &[Image],
        siblings: &Siblings<'_>,
        input: &[Value],
        y: &Value,
    ) -> Through {
        let of_result = |p: &super::signature::Param| {
            p.kind == sig.output && super::transform::same_type(&p.ty, &sig.output_ty)
        };
        Through {
            result: each_on(sig, relations, siblings, y),
            inverse: inverses(sig, relations, siblings, input, y),
            root: roots(sig, relations, siblings, input, y),
            params: (0..sig.siblings.len())
                .map(|k| {
                    sig.params
                        .iter()
                        .zip(input)
                        .map(|(p, x)| {
                            of_result(p)
                                .then(|| on(relations, siblings, k, x))
                                .flatten()
                        })
                        .collect()
                })
                .collect(),
            input: (0..sig.siblings.len())
                .map(|k| {
                    let single = sig
                        .params
                        .first()
                        .is_some_and(|p| p.num_ty() == super::transform::NumTy::F32);
                    TwinAt::ALL.map(|at| {
                        let bound = relations
                            .iter()
                            .any(|m| m.of_input() && m.sibling() == k && m.at() == at);
                        match input {
                            [x] if bound => siblings.get(k)?(&at.turn(x, single)?),
                            _ => None,
                        }
                    })
                })
                .collect(),
        }
    }

    /// What the other functions gave with the result among the run's arguments: in a
    /// parameter's place ([`Image::Inverse`]) and put in ([`Image::Root`]).
    fn after(&self) -> [&[Vec<Option<Value>>]; 2] {
        [&self.inverse, &self.root]
    }

    /// What relation `m` sees of a run whose result `y` gave `images` through the other
    /// functions.
    fn seen<'a>(
        &'a self,
        m: Image,
        input: &'a [Value],
        y: &'a Value,
        images: &'a [Option<Value>],
        [inverse, root]: [&'a [Vec<Option<Value>>]; 2],
    ) -> Seen<'a> {
        let k = m.sibling();
        let at = |of: &'a [Vec<Option<Value>>], place: usize| {
            of.get(k).and_then(|of| of.get(place)?.as_ref())
        };
        let (inverse, root) = match m {
            Image::Inverse { param, .. } => (at(inverse, param), None),
            Image::Root { slot, .. } => (None, at(root, slot)),
            _ => (None, None),
        };
        Seen {
            input,
            result: y,
            inverse,
            root,
            image: images.get(k).and_then(Option::as_ref),
            of_params: self.params.get(k).map_or(&[], Vec::as_slice),
            of_input: self.input.get(k).and_then(|of| of[m.at().index()].as_ref()),
        }
    }
}

/// The other function `k` on `v`, where some relation goes through it.
fn on(relations: &[Image], siblings: &Siblings<'_>, k: usize, v: &Value) -> Option<Value> {
    // A twin measures the input, not the result; an inverse takes the run's arguments.
    let takes = relations.iter().any(|m| {
        m.sibling() == k
            && !m.of_input()
            && !matches!(m, Image::Inverse { .. } | Image::Root { .. })
    });
    takes.then(|| siblings.get(k)?(v)).flatten()
}

/// Of each other function, of each parameter an [`Image::Inverse`] gives back: the function
/// on `input` with `y` in that parameter's place (its arguments, spread).
fn inverses(
    sig: &Signature,
    relations: &[Image],
    siblings: &Siblings<'_>,
    input: &[Value],
    y: &Value,
) -> Vec<Vec<Option<Value>>> {
    with_result(
        sig,
        siblings,
        |_| sig.params.len(),
        |sibling, param| {
            relations
                .contains(&Image::Inverse { sibling, param })
                .then(|| {
                    let mut args = input.to_vec();
                    args[param] = y.clone();
                    args
                })
        },
    )
}

/// Of each other function, of each of its parameters where an [`Image::Root`] puts the
/// result: the function on `input` with `y` put in there (its arguments, spread).
fn roots(
    sig: &Signature,
    relations: &[Image],
    siblings: &Siblings<'_>,
    input: &[Value],
    y: &Value,
) -> Vec<Vec<Option<Value>>> {
    let places = |k: usize| sig.siblings[k].params.len();
    with_result(sig, siblings, places, |sibling, slot| {
        relations.contains(&Image::Root { sibling, slot }).then(|| {
            let mut args = input.to_vec();
            args.insert(slot, y.clone());
            args
        })
    })
}

/// Of each other function `k`, at each of its `places(k)`: the function on the arguments
/// `args(k, place)` gives, spread (`None` where no relation reads that call, or it failed).
fn with_result(
    sig: &Signature,
    siblings: &Siblings<'_>,
    places: impl Fn(usize) -> usize,
    args: impl Fn(usize, usize) -> Option<Vec<Value>>,
) -> Vec<Vec<Option<Value>>> {
    (0..sig.siblings.len())
        .map(|k| {
            (0..places(k))
                .map(|place| siblings.get(k)?(&Value::Record(args(k, place)?)))
                .collect()
        })
        .collect()
}

/// Every other function on `v`, by its index.
fn each_on(
    sig: &Signature,
    relations: &[Image],
    siblings: &Siblings<'_>,
    v: &Value,
) -> Vec<Option<Value>> {
    (0..sig.siblings.len())
        .map(|k| on(relations, siblings, k, v))
        .collect()
}

/// Whether each relation of the result through another function held on the result, on
/// each wrong version of it and on the input passed through in its place.
fn image_runs(
    sig: &Signature,
    images: &[Image],
    siblings: &Siblings<'_>,
    input: &[Value],
    output: &Value,
    probe: f64,
    size: usize,
) -> Vec<ImageRun> {
    if images.is_empty() {
        return Vec::new();
    }
    let through = Through::of(sig, images, siblings, input, output);
    let sized = input.iter().any(|v| v.kind().is_seq());
    let scale = output.number().map_or(1.0, |y| y.abs().max(1.0));
    // Each wrong result put through the other functions once, for every relation; the
    // parameters' images are the right run's.
    type Wrong = (Value, Vec<Option<Value>>, [Vec<Vec<Option<Value>>>; 2]);
    let wrong: Vec<Option<Wrong>> = Perturbation::listed(sig.output, sized)
        .into_iter()
        .map(|p| {
            if p == Perturbation::Constant {
                return None;
            }
            let y = p.apply(output, output, scale, probe, size);
            let of_y = each_on(sig, images, siblings, &y);
            let inverse = inverses(sig, images, siblings, input, &y);
            let root = roots(sig, images, siblings, input, &y);
            Some((y, of_y, [inverse, root]))
        })
        .collect();
    images
        .iter()
        .map(|&m| {
            // The parameter in the result's place: its image is among the parameters'.
            let echo = m.echo(sig).map(|e| {
                let of_echo: Vec<Option<Value>> = through
                    .params
                    .iter()
                    .map(|of| of.get(e).cloned().flatten())
                    .collect();
                m.holds(&through.seen(m, input, &input[e], &of_echo, [&[], &[]]))
            });
            ImageRun {
                held: m.holds(&through.seen(m, input, output, &through.result, through.after())),
                wrong: wrong
                    .iter()
                    .map(|w| {
                        w.as_ref().map(|(y, of, [inverse, root])| {
                            m.holds(&through.seen(m, input, y, of, [inverse, root]))
                        })
                    })
                    .collect(),
                echo,
            }
        })
        .collect()
}

/// `input` with parameter `param` replaced by the other function `sibling` of `value`, where
/// that is a value of the parameter's kind.
fn through(
    siblings: &Siblings<'_>,
    sibling: usize,
    value: &Value,
    input: &[Value],
    param: usize,
) -> Option<Vec<Value>> {
    let made = siblings.get(sibling)?(value)?;
    if made.kind() != input[param].kind() || too_long(&made) {
        return None;
    }
    let mut next = input.to_vec();
    next[param] = made;
    Some(next)
}

fn too_long(v: &Value) -> bool {
    match v {
        Value::List(items) | Value::Record(items) => {
            items.len() > MAX_LEN || items.iter().any(too_long)
        }
        Value::FloatSeq(xs) => xs.len() > MAX_LEN,
        Value::IntSeq(xs) => xs.len() > MAX_LEN,
        _ => false,
    }
}

/// The numbers and each sequence's first element, the `k`-th parameter weighed `k` times, so
/// that swapping two parameters changes it.
pub fn probe(input: &[Value]) -> f64 {
    input
        .iter()
        .enumerate()
        .map(|(k, v)| {
            let x = match v {
                Value::FloatSeq(xs) => xs.first().copied().unwrap_or(0.0),
                Value::IntSeq(xs) => xs.first().map_or(0.0, |&i| i as f64),
                // Every character in its place, folded to a signed number: a string and its
                // reversal, or another case, give different numbers.
                Value::Str(s) => {
                    let folded = s.chars().enumerate().fold(0u64, |h, (i, c)| {
                        h.wrapping_add((i as u64 + 1).wrapping_mul(u64::from(u32::from(c))))
                    });
                    (folded % 1999) as f64 - 999.0
                }
                // Signed, and unrelated for two cases of a letter: a wrong result that depends on
                // which character it is.
                Value::Char(_) => (fingerprint(v) % 1999) as f64 - 999.0,
                // Every element in its place, as for a string: another order or another length
                // gives another number, as a wrong result that depends on them would.
                Value::List(items) | Value::Record(items) => {
                    let folded = items.iter().enumerate().fold(0u64, |h, (i, item)| {
                        h.wrapping_add((i as u64 + 1).wrapping_mul(fingerprint(item)))
                    });
                    (folded % 1999) as f64 - 999.0
                }
                other => other.number().unwrap_or(0.0),
            };
            (k + 1) as f64 * x
        })
        .sum()
}

/// A value's fingerprint, the same in every process (FNV-1a of its debug text).
fn fingerprint(v: &Value) -> u64 {
    format!("{v:?}")
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        })
}

/// The total length of the input's sequences and strings (in characters).
pub fn size(input: &[Value]) -> usize {
    input
        .iter()
        .map(|v| match v {
            Value::Str(s) => s.chars().count(),
            Value::List(items) => items.len(),
            v => v.elements().map_or(0, |e| e.len()),
        })
        .sum()
}

/// The largest change of the result when every float of the input moves one unit in the last
/// place: all up, all down, and alternately (which moves a spread but not a mean).
fn noise_at(sig: &Signature, input: &[Value], output: &Value, call: &mut Call<'_>) -> f64 {
    if !matches!(output, Value::Float(_) | Value::FloatSeq(_)) {
        return 0.0;
    }
    let mut noise: f64 = 0.0;
    for way in [Nudge::Up, Nudge::Down, Nudge::Alternate] {
        let Some(moved) = nudge(sig, input, way) else {
            return 0.0;
        };
        if let Some(o) = call(&moved) {
            noise = noise.max(distance(output, &o));
        }
    }
    // A result held as `f32`s is known to their unit in the last place, however little the
    // input moved it: its own rounding is part of every comparison of it.
    if sig.output_num_ty() == super::transform::NumTy::F32 {
        let largest = match output {
            Value::FloatSeq(xs) => xs.iter().map(|x| x.abs()).fold(0.0, f64::max),
            v => v.number().map_or(0.0, f64::abs),
        };
        noise = noise.max(largest * f64::from(f32::EPSILON));
    }
    noise
}

/// Observations whose every run's noise is at least the rounding of the values the function
/// works with: a unit in the last place of the result's type at the median magnitude of the
/// results observed. Whatever the nudge of one input showed: a result far below that scale
/// is the difference of values near it (`1 - (1 - t)³` of a small `t` cancels a rounding of
/// one), and a nudge that does not move those values (`t` by its own unit, in `1 - t`) shows
/// no noise. Never wider than a pasted relation's tolerance allows over the form's
/// [`NOISE_UNITS`](super::form::NOISE_UNITS): what discovery accepts, a pasted check accepts.
pub fn with_rounding(sig: &Signature, obs: &[Observation]) -> Vec<Observation> {
    let floor = rounding_floor(sig, obs);
    obs.iter()
        .map(|o| {
            let mut o = o.clone();
            o.raise_noise(floor);
            o
        })
        .collect()
}

/// The noise [`with_rounding`] raises every run's to: none of a result that is no float.
pub fn rounding_floor(sig: &Signature, obs: &[Observation]) -> f64 {
    let unit = match sig.output_num_ty() {
        super::transform::NumTy::F32 => f64::from(f32::EPSILON),
        super::transform::NumTy::F64 => f64::EPSILON,
        super::transform::NumTy::Int => return 0.0,
    };
    let magnitude = |v: &Value| match v {
        Value::Float(x) => x.is_finite().then_some(x.abs()),
        Value::FloatSeq(xs) => xs
            .iter()
            .all(|x| x.is_finite())
            .then(|| xs.iter().map(|x| x.abs()).fold(0.0, f64::max)),
        _ => None,
    };
    let mut sizes: Vec<f64> = obs.iter().filter_map(|o| magnitude(&o.output)).collect();
    if sizes.is_empty() {
        return 0.0;
    }
    let mid = sizes.len() / 2;
    let (_, &mut scale, _) = sizes.select_nth_unstable_by(mid, f64::total_cmp);
    let pasted = crate::config::DEFAULT_TOLERANCE * scale.max(1.0) / super::form::NOISE_UNITS;
    (unit * scale).min(pasted)
}

#[derive(Clone, Copy)]
enum Nudge {
    Up,
    Down,
    Alternate,
}

/// The input with its floats moved, each parameter's in its own precision: a parameter of
/// `f32`s by its own unit in the last place, since one of an `f64` is lost when the argument
/// is made and the function would seem to have no rounding at all; `None` when it has none.
fn nudge(sig: &Signature, input: &[Value], way: Nudge) -> Option<Vec<Value>> {
    let mut k = 0usize;
    let mut step = |x: f64, single: bool| {
        // An infinity, or not a number, has no neighbour a program would send: it stays (a
        // tail series never ends at `f64::MAX`).
        if !x.is_finite() {
            return x;
        }
        k += 1;
        let up = match way {
            Nudge::Up => true,
            Nudge::Down => false,
            Nudge::Alternate => !k.is_multiple_of(2),
        };
        match (single, up) {
            (true, true) => f64::from((x as f32).next_up()),
            (true, false) => f64::from((x as f32).next_down()),
            (false, true) => x.next_up(),
            (false, false) => x.next_down(),
        }
    };
    let out: Vec<Value> = input
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let single = sig
                .params
                .get(i)
                .is_some_and(|p| p.num_ty() == super::transform::NumTy::F32);
            match v {
                Value::Float(x) => Value::Float(step(*x, single)),
                Value::FloatSeq(xs) => {
                    Value::FloatSeq(xs.iter().map(|&x| step(x, single)).collect())
                }
                other => other.clone(),
            }
        })
        .collect();
    (k > 0).then_some(out)
}

/// How far apart two results are (finite parts only; sequences of unequal length: 0).
fn distance(a: &Value, b: &Value) -> f64 {
    let gap = |x: f64, y: f64| {
        if x.is_finite() && y.is_finite() {
            (x - y).abs()
        } else {
            0.0
        }
    };
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => gap(*x, *y),
        (Value::FloatSeq(xs), Value::FloatSeq(ys)) if xs.len() == ys.len() => xs
            .iter()
            .zip(ys)
            .map(|(x, y)| gap(*x, *y))
            .fold(0.0, f64::max),
        _ => 0.0,
    }
}

/// How far a symmetry point may lie from the input, in the input's magnitude (of one, at
/// least): as far as a program's values spread around one it sends.
const REACH: f64 = 1024.0;

/// The point `c` about which the function looks symmetric, `f(c - x) = f(x)`: twice the
/// vertex of a parabola through three nearby values, refined three times. A quadratic gives its
/// exact vertex at once; the relation is judged later on whether one `c` serves every call.
/// A vertex farther than [`REACH`] times the input's magnitude is none: a function nearly
/// straight there (a distribution's tail) sends the step anywhere, and the function is never
/// called that far from what it was given (a tail series that never ends at `1e300`).
fn symmetry_point(input: &[Value], param: usize, call: &mut Call<'_>) -> Option<f64> {
    let mut v = input[param].number()?;
    let reach = REACH * v.abs().max(1.0);
    let start = v;
    let mut at = |x: f64| {
        let mut moved = input.to_vec();
        moved[param] = Value::Float(x);
        call(&moved)
            .and_then(|o| o.number())
            .filter(|y| y.is_finite())
    };
    for _ in 0..3 {
        let h = v.abs().max(1.0) * 2f64.powi(-10);
        let (f1, f0, f2) = (at(v - h)?, at(v)?, at(v + h)?);
        let curvature = f2 - 2.0 * f0 + f1;
        if curvature == 0.0 || !curvature.is_finite() {
            return None;
        }
        v -= h * (f2 - f1) / (2.0 * curvature);
        if !v.is_finite() || (v - start).abs() > reach {
            return None;
        }
    }
    // Twelve significant digits: a rounding difference between calls is not a different point.
    format!("{:.11e}", 2.0 * v).parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig(kind: Kind, output: Kind) -> Signature {
        let ty = if kind == Kind::Float { "f64" } else { "&[f64]" };
        Signature::parse(&format!("f(x: {ty})"), &[kind], output).unwrap()
    }

    #[test]
    fn a_round_trip_is_run_again_from_each_wrong_result_and_a_parameter_put_through() {
        let mut sig =
            Signature::parse("fn escape(s: &str) -> String", &[Kind::Str], Kind::Str).unwrap();
        sig.siblings =
            vec![
                Signature::parse("fn unescape(s: &str) -> String", &[Kind::Str], Kind::Str)
                    .unwrap(),
            ];
        let transforms: Vec<Transform> = Transform::all(&sig)
            .into_iter()
            .filter(|t| {
                matches!(
                    t,
                    Transform::Through { .. } | Transform::ResultThrough { .. }
                )
            })
            .collect();
        assert_eq!(transforms.len(), 2);
        let text = |v: &Value| match v {
            Value::Str(s) => s.clone(),
            _ => panic!("{v:?}"),
        };
        let mut escape = |v: &[Value]| Some(Value::Str(text(&v[0]).replace('&', "&amp;")));
        let unescape = |v: &Value| Some(Value::Str(text(v).replace("&amp;", "&")));
        let siblings: [&OneArg<'_>; 1] = [&unescape];
        let on_a_b = |call: &mut Call<'_>, siblings: &Siblings<'_>| {
            let input = vec![Value::Str("a&b".into())];
            observe_some(&sig, &transforms, input, call, 1, &|_| true, siblings).unwrap()
        };
        let o = on_a_b(&mut escape, &siblings);
        assert_eq!(o.output, Value::Str("a&amp;b".into()));
        let through = &o.follow[0];
        assert_eq!(through.output, Some(Value::Str("a&amp;b".into())));
        assert!(
            through.wrong.is_empty(),
            "its input owes nothing to the result"
        );
        let round = &o.follow[1];
        assert_eq!(round.output, Some(Value::Str("a&amp;b".into())));
        let list = Perturbation::listed(Kind::Str, false);
        assert_eq!(round.wrong.len(), list.len());
        let at = |p: Perturbation| round.wrong[list.iter().position(|&q| q == p).unwrap()].clone();
        assert_eq!(
            at(Perturbation::Constant),
            None,
            "a constant feeds back itself"
        );
        // Doubled, the wrong result goes through `unescape` and `escape` again.
        assert_eq!(
            at(Perturbation::Scaled),
            Some(Value::Str("a&amp;ba&amp;b".into()))
        );
        // Another function that makes a value of another kind than the parameter's makes
        // no follow-up.
        let number = |_: &Value| Some(Value::Int(1));
        let wrong_kind: [&OneArg<'_>; 1] = [&number];
        let mut strings_only = |v: &[Value]| match &v[0] {
            Value::Str(s) => Some(Value::Str(s.replace('&', "&amp;"))),
            _ => Some(Value::Str("ran on a number".into())),
        };
        let o = on_a_b(&mut strings_only, &wrong_kind);
        assert!(
            o.follow.iter().all(|f| f.output.is_none()),
            "{:?}",
            o.follow
        );
        // Without the other function, the follow-ups are not made.
        let o = on_a_b(&mut escape, &[]);
        assert!(o
            .follow
            .iter()
            .all(|f| f.output.is_none() && f.wrong.is_empty()));
    }

    #[test]
    fn a_nested_follow_up_takes_the_result_and_the_value_set() {
        let s = Signature::parse(
            "fn f(x: i64, n: i64) -> i64",
            &[Kind::Int, Kind::Int],
            Kind::Int,
        )
        .unwrap();
        let nested = Transform::Nested {
            param: 0,
            other: 1,
            value: 2.0,
        };
        let mut f = |v: &[Value]| match v {
            [Value::Int(x), Value::Int(n)] => Some(Value::Int(10 * x + n)),
            _ => None,
        };
        let o = observe(&s, &[nested], vec![Value::Int(3), Value::Int(4)], &mut f, 0).unwrap();
        // f(3, 4) = 34, then f(34, 2) = 342.
        assert_eq!(o.output, Value::Int(34));
        assert_eq!(o.follow[0].output, Some(Value::Int(342)));
    }

    #[test]
    fn a_parabola_s_symmetry_point_is_found_exactly() {
        let s = sig(Kind::Float, Kind::Float);
        let mut f = |v: &[Value]| Some(Value::Float((v[0].number()? - 3.0).powi(2) + 1.0));
        assert_eq!(symmetry_point(&[Value::Float(10.0)], 0, &mut f), Some(6.0));
        let t = [Transform::Reflect { param: 0 }];
        let o = observe(&s, &t, vec![Value::Float(-7.5)], &mut f, 1).unwrap();
        assert_eq!(o.follow[0].center, Some(6.0));
        assert_eq!(o.follow[0].output, Some(o.output.clone()));
        let mut line = |v: &[Value]| Some(Value::Float(2.0 * v[0].number()?));
        assert_eq!(symmetry_point(&[Value::Float(1.0)], 0, &mut line), None);
        // A vertex far past the input's magnitude is none, and the function is never called
        // out there: a tail nearly straight sends a step past `1e300`.
        let far = |x: f64| (x - 2000.0).powi(2);
        let called = std::cell::Cell::new(0.0f64);
        let mut watched = |v: &[Value]| {
            let x = v[0].number()?;
            called.set(called.get().max(x.abs()));
            Some(Value::Float(far(x)))
        };
        assert_eq!(symmetry_point(&[Value::Float(1.5)], 0, &mut watched), None);
        assert!(called.get() < 2.0, "{}", called.get());
        // Within it, found.
        let mut near = |v: &[Value]| Some(Value::Float(far(v[0].number()?)));
        assert_eq!(
            symmetry_point(&[Value::Float(2.5)], 0, &mut near),
            Some(4000.0)
        );
        // The reach is measured from the input: a vertex 1022.5 past an input of one is in it.
        let mut edge = |v: &[Value]| Some(Value::Float((v[0].number()? - 1023.5).powi(2)));
        assert_eq!(
            symmetry_point(&[Value::Float(1.0)], 0, &mut edge),
            Some(2047.0)
        );
    }

    #[test]
    fn noise_is_the_result_s_movement_under_a_one_ulp_nudge() {
        let s = sig(Kind::Float, Kind::Float);
        let mut f = |v: &[Value]| Some(Value::Float(v[0].number()? * 1e6));
        let o = observe(&s, &[], vec![Value::Float(1.0)], &mut f, 1).unwrap();
        let expect = 1e6 * (1.0f64.next_up() - 1.0);
        // The product rounds to a multiple of ulp(1e6), a twentieth of the step here.
        assert!(
            o.noise >= expect * 0.9 && o.noise <= expect * 1.1,
            "{}",
            o.noise
        );
        let mut flat = |_: &[Value]| Some(Value::Float(2.0));
        assert_eq!(
            observe(&s, &[], vec![Value::Float(1.0)], &mut flat, 1)
                .unwrap()
                .noise,
            0.0
        );
        // A mean does not move when its elements move alternately; a spread does.
        let seq = sig(Kind::FloatSeq, Kind::Float);
        let mut spread = |v: &[Value]| {
            let xs = v[0].elements()?;
            Some(Value::Float(xs[0] - xs[1]))
        };
        let input = vec![Value::FloatSeq(vec![1.0, 1.0])];
        assert!(observe(&seq, &[], input, &mut spread, 1).unwrap().noise > 0.0);
        // An infinite input is not nudged to the largest float: the function is called at
        // infinity alone, and shows no noise there.
        let mut at_max = false;
        let mut tail = |v: &[Value]| {
            let x = v[0].number()?;
            at_max |= x.is_finite() && x.abs() > 1e300;
            Some(Value::Float(if x.is_finite() { x } else { 0.0 }))
        };
        let o = observe(&s, &[], vec![Value::Float(f64::NEG_INFINITY)], &mut tail, 1).unwrap();
        assert_eq!(o.noise, 0.0);
        assert!(!at_max);
        // Of two, the finite one is still nudged.
        let pair = Signature::parse(
            "fn f(x: f64, y: f64) -> f64",
            &[Kind::Float, Kind::Float],
            Kind::Float,
        )
        .unwrap();
        let mut second = |v: &[Value]| Some(Value::Float(1e6 * v[1].number()?));
        let input = vec![Value::Float(f64::INFINITY), Value::Float(1.0)];
        assert!(observe(&pair, &[], input, &mut second, 1).unwrap().noise > 0.0);
    }

    #[test]
    fn an_f32_moves_by_its_own_unit_and_its_result_is_known_to_its_own() {
        let single = Signature::parse("fn f(x: f32) -> f64", &[Kind::Float], Kind::Float).unwrap();
        // Its input nudged by an `f64` ulp would round back to the same `f32`.
        let mut scaled = |v: &[Value]| Some(Value::Float(f64::from(v[0].number()? as f32) * 1e3));
        let o = observe(&single, &[], vec![Value::Float(1.0)], &mut scaled, 1).unwrap();
        let step = f64::from(1.0f32.next_up()) - 1.0;
        assert!(
            o.noise >= 1e3 * step * 0.9 && o.noise <= 1e3 * step * 1.1,
            "{}",
            o.noise
        );
        // A result held as an `f32` is known to its ulp where the input does not move it.
        let narrow = Signature::parse("fn f(x: f64) -> f32", &[Kind::Float], Kind::Float).unwrap();
        let mut flat = |_: &[Value]| Some(Value::Float(1000.0));
        let o = observe(&narrow, &[], vec![Value::Float(1.0)], &mut flat, 1).unwrap();
        assert_eq!(o.noise, 1000.0 * f64::from(f32::EPSILON));
        let mut row = |_: &[Value]| Some(Value::FloatSeq(vec![-4.0, 2.0]));
        let rows =
            Signature::parse("fn f(x: f64) -> Vec<f32>", &[Kind::Float], Kind::FloatSeq).unwrap();
        let o = observe(&rows, &[], vec![Value::Float(1.0)], &mut row, 1).unwrap();
        assert_eq!(o.noise, 4.0 * f64::from(f32::EPSILON));
        let wide = Signature::parse("fn f(x: f64) -> f64", &[Kind::Float], Kind::Float).unwrap();
        assert_eq!(
            observe(&wide, &[], vec![Value::Float(1.0)], &mut flat, 1)
                .unwrap()
                .noise,
            0.0
        );
    }

    #[test]
    fn every_run_carries_the_rounding_of_the_median_result_observed() {
        let single = Signature::parse("fn f(t: f32) -> f32", &[Kind::Float], Kind::Float).unwrap();
        // `1 - (1 - t)` of a small `t`: the nudge does not move `1 - t`.
        let mut cancels =
            |v: &[Value]| Some(Value::Float(f64::from(1.0 - (1.0 - v[0].number()? as f32))));
        let moved = Transform::Affine {
            param: 0,
            a: 1.0,
            b: super::super::transform::Const::lit(1.0),
        };
        let t = [moved];
        let obs: Vec<Observation> = [1e-9, 0.5, 0.75]
            .into_iter()
            .map(|x| observe(&single, &t, vec![Value::Float(x)], &mut cancels, 1).unwrap())
            .collect();
        assert!(obs[0].noise < 1e-15, "{}", obs[0].noise);
        let raised = with_rounding(&single, &obs);
        let unit = f64::from(f32::EPSILON);
        let units = super::super::form::NOISE_UNITS;
        // The median result is a half's: its unit, within a pasted tolerance there.
        let floor = (0.5 * unit).min(crate::config::DEFAULT_TOLERANCE / units);
        for (o, was) in raised.iter().zip(&obs) {
            assert_eq!(o.noise, was.noise.max(floor));
            assert_eq!(o.follow[0].noise, was.follow[0].noise.max(floor));
            assert_eq!((&o.input, &o.output), (&was.input, &was.output));
        }
        // Never wider than a pasted relation's tolerance, over the form's units; of the
        // finite results.
        let at = |y: Value| Observation {
            output: y,
            ..obs[0].clone()
        };
        let big = [
            at(Value::Float(-5.0)),
            at(Value::Float(f64::NAN)),
            at(Value::Float(0.5)),
            at(Value::Float(6.0)),
        ];
        let pasted = crate::config::DEFAULT_TOLERANCE * 5.0 / units;
        assert_eq!(rounding_floor(&single, &big), pasted.min(5.0 * unit));
        // A run without a result stays without noise.
        let mut none = obs[1].clone();
        none.follow[0].output = None;
        none.follow[0].noise = 0.0;
        assert_eq!(with_rounding(&single, &[none])[0].follow[0].noise, 0.0);
        let seqs =
            Signature::parse("fn f(t: f64) -> Vec<f64>", &[Kind::Float], Kind::FloatSeq).unwrap();
        let rows = [
            at(Value::FloatSeq(vec![1.0, -8.0])),
            at(Value::FloatSeq(vec![0.0, 2.0])),
            at(Value::FloatSeq(vec![1.0, f64::INFINITY])),
        ];
        assert_eq!(rounding_floor(&seqs, &rows), 8.0 * f64::EPSILON);
        let ints = Signature::parse("fn f(t: f64) -> i64", &[Kind::Float], Kind::Int).unwrap();
        assert_eq!(rounding_floor(&ints, &[at(Value::Int(7))]), 0.0);
        assert_eq!(rounding_floor(&single, &[]), 0.0);
    }

    #[test]
    fn a_failing_input_or_one_too_long_is_not_observed() {
        let s = sig(Kind::FloatSeq, Kind::Float);
        let mut f = |v: &[Value]| Some(Value::Float(v[0].elements()?.len() as f64));
        let long = vec![Value::FloatSeq(vec![0.0; MAX_LEN + 1])];
        assert!(observe(&s, &[], long, &mut f, 1).is_none());
        let mut fails = |_: &[Value]| None;
        assert!(observe(&s, &[], vec![Value::FloatSeq(vec![])], &mut fails, 1).is_none());
        let mut wrong_kind = |_: &[Value]| Some(Value::Bool(true));
        assert!(observe(&s, &[], vec![Value::FloatSeq(vec![])], &mut wrong_kind, 1).is_none());
        assert_eq!(
            probe(&[
                Value::FloatSeq(vec![]),
                Value::Int(3),
                Value::IntSeq(vec![2])
            ]),
            12.0
        );
    }

    #[test]
    fn the_result_through_another_function_is_judged_on_every_run_and_wrong_result() {
        let mut sig =
            Signature::parse("fn first(s: &str) -> String", &[Kind::Str], Kind::Str).unwrap();
        sig.siblings =
            vec![
                Signature::parse("fn is_short(s: &str) -> bool", &[Kind::Str], Kind::Bool).unwrap(),
            ];
        let relations = Image::all(&sig);
        assert_eq!(
            relations[0],
            Image::Holds {
                sibling: 0,
                value: true
            }
        );
        let text = |v: &Value| match v {
            Value::Str(s) => s.clone(),
            _ => panic!("{v:?}"),
        };
        let mut first = |v: &[Value]| {
            let s = text(&v[0]);
            Some(Value::Str(
                s.split_whitespace().next().unwrap_or("").to_string(),
            ))
        };
        let short = |t: &str| t.chars().count() <= 5;
        let is_short = |v: &Value| Some(Value::Bool(short(&text(v))));
        let siblings: [&OneArg<'_>; 1] = [&is_short];
        let transforms = Transform::all(&sig);
        let input = vec![Value::Str("abcde fg".into())];
        let o = observe_some(
            &sig,
            &transforms,
            input,
            &mut first,
            1,
            &|_| true,
            &siblings,
        )
        .unwrap();
        assert_eq!(o.images.len(), relations.len());
        let holds = &o.images[0];
        assert!(holds.held, "the first word is short");
        assert_eq!(holds.echo, Some(false), "the input is not");
        let list = Perturbation::listed(Kind::Str, false);
        let at = |p: Perturbation| holds.wrong[list.iter().position(|&q| q == p).unwrap()];
        assert_eq!(at(Perturbation::Constant), None);
        assert_eq!(at(Perturbation::Scaled), Some(false), "doubled, it is long");
        // Every follow-up that ran is judged: the word written twice is long.
        let mut judged = 0;
        for f in o.follow.iter() {
            if let Some(y) = &f.output {
                assert_eq!(f.images.len(), relations.len(), "{}", f.transform);
                assert_eq!(f.images[0], short(&text(y)), "{}", f.transform);
                judged += 1;
            }
        }
        assert!(judged > 5);
        assert!(o.follow.iter().any(|f| f.images.first() == Some(&false)));
        // Without other functions, nothing is recorded.
        let alone =
            Signature::parse("fn first(s: &str) -> String", &[Kind::Str], Kind::Str).unwrap();
        let input = vec![Value::Str("abcde fg".into())];
        let o = observe_some(
            &alone,
            &Transform::all(&alone),
            input,
            &mut first,
            1,
            &|_| true,
            &[],
        )
        .unwrap();
        assert!(o.images.is_empty() && o.follow.iter().all(|f| f.images.is_empty()));
    }

    #[test]
    fn the_value_inside_the_result_is_put_through_another_function_on_every_run() {
        let mut sig = Signature::parse(
            "fn first(s: &str) -> Option<String>",
            &[Kind::Str],
            Kind::Option,
        )
        .unwrap();
        sig.siblings =
            vec![
                Signature::parse("fn is_short(s: &str) -> bool", &[Kind::Str], Kind::Bool).unwrap(),
            ];
        // Nothing of the whole `Option`; the text inside, through the predicate.
        assert!(Image::all(&sig).is_empty());
        let part = inner_signature(&sig, Kind::Str).unwrap();
        let relations = Image::all(&part);
        assert_eq!(
            relations[0],
            Image::Holds {
                sibling: 0,
                value: true
            }
        );
        let text = |v: &Value| match v {
            Value::Str(s) => s.clone(),
            _ => panic!("{v:?}"),
        };
        let mut first = |v: &[Value]| {
            let word = text(&v[0]).split_whitespace().next().map(str::to_string);
            Some(Value::Option(word.map(|w| Box::new(Value::Str(w)))))
        };
        let short = |t: &str| t.chars().count() <= 5;
        let is_short = |v: &Value| Some(Value::Bool(short(&text(v))));
        let siblings: [&OneArg<'_>; 1] = [&is_short];
        let transforms = Transform::all(&sig);
        let mut run = |s: &str| {
            let input = vec![Value::Str(s.into())];
            observe_some(
                &sig,
                &transforms,
                input,
                &mut first,
                1,
                &|_| true,
                &siblings,
            )
            .unwrap()
        };
        let o = run("abcde fg");
        assert!(o.images.is_empty());
        assert_eq!(o.inner_images.len(), relations.len());
        let holds = &o.inner_images[0];
        assert!(holds.held, "the first word is short");
        let list = Perturbation::listed(Kind::Str, false);
        let scaled = list
            .iter()
            .position(|&q| q == Perturbation::Scaled)
            .unwrap();
        assert_eq!(holds.wrong[scaled], Some(false), "doubled, it is long");
        // Each follow-up with a word inside is judged on it; one with none is not.
        let mut judged = 0;
        for f in &o.follow {
            match f.output.as_ref().and_then(Value::inner).flatten() {
                Some(y) => {
                    assert_eq!(f.inner_images.len(), relations.len(), "{}", f.transform);
                    assert_eq!(f.inner_images[0], short(&text(y)), "{}", f.transform);
                    judged += 1;
                }
                None => assert!(f.inner_images.is_empty(), "{}", f.transform),
            }
        }
        assert!(judged > 3);
        assert!(o
            .follow
            .iter()
            .any(|f| f.inner_images.first() == Some(&false)));
        assert!(o
            .follow
            .iter()
            .any(|f| f.output.is_some() && f.inner_images.is_empty()));
        // A result with nothing inside has nothing to put through.
        assert!(run("   ").inner_images.is_empty());
        // The part's observations carry them as their own.
        let p = crate::discover::project::Projection::all(&sig, std::slice::from_ref(&o));
        let of_part = p[0].observations(std::slice::from_ref(&o));
        assert_eq!(of_part[0].images, o.inner_images);
        assert!(of_part[0].inner_images.is_empty());
        for (f, g) in of_part[0].follow.iter().zip(&o.follow) {
            assert_eq!(f.images, g.inner_images);
            assert!(f.inner_images.is_empty(), "{}", f.transform);
        }
    }

    #[test]
    fn a_round_trip_from_the_value_inside_runs_from_it_and_its_wrong_versions() {
        let mut sig = Signature::parse(
            "fn unhex(s: &str) -> Option<Vec<u8>>",
            &[Kind::Str],
            Kind::Option,
        )
        .unwrap();
        sig.siblings =
            vec![
                Signature::parse("fn hex(v: &[u8]) -> String", &[Kind::IntSeq], Kind::Str).unwrap(),
            ];
        let hex = |v: &Value| match v {
            Value::IntSeq(bytes) => Some(Value::Str(
                bytes.iter().map(|b| format!("{b:02x}")).collect(),
            )),
            _ => None,
        };
        let mut unhex = |v: &[Value]| {
            let Value::Str(s) = &v[0] else { return None };
            let bytes: Option<Vec<i128>> = (s.len() % 2 == 0)
                .then(|| {
                    (0..s.len())
                        .step_by(2)
                        .map(|i| {
                            s.get(i..i + 2)
                                .and_then(|d| i128::from_str_radix(d, 16).ok())
                        })
                        .collect()
                })
                .flatten();
            Some(Value::Option(bytes.map(|b| Box::new(Value::IntSeq(b)))))
        };
        let siblings: [&OneArg<'_>; 1] = [&hex];
        let transforms = Transform::all(&sig);
        let t = transforms
            .iter()
            .position(|t| matches!(t, Transform::ResultThrough { .. }))
            .unwrap();
        let mut run = |s: &str| {
            let input = vec![Value::Str(s.into())];
            observe_some(
                &sig,
                &transforms,
                input,
                &mut unhex,
                1,
                &|_| true,
                &siblings,
            )
            .unwrap()
        };
        let o = run("0aff");
        let f = &o.follow[t];
        assert_eq!(f.output, Some(o.output.clone()), "the bytes come back");
        let list = Perturbation::listed(Kind::IntSeq, false);
        assert_eq!(f.wrong.len(), list.len());
        // Each wrong version of the bytes, written and read back, is itself where it is of
        // bytes (a byte doubled past 255 is written with three digits, and not read).
        let inside = o.output.inner().flatten().unwrap();
        let mut back_again = 0;
        for (p, w) in list.iter().zip(&f.wrong) {
            let y = p.apply(inside, inside, 1.0, o.probe, o.size);
            let bytes = matches!(&y, Value::IntSeq(v) if v.iter().all(|b| (0..256).contains(b)));
            let back = w.as_ref().and_then(Value::inner).flatten();
            match *p != Perturbation::Constant && bytes {
                true => {
                    assert_eq!(back, Some(&y), "{p:?}");
                    back_again += 1;
                }
                false => assert_ne!(back, Some(&y), "{p:?}"),
            }
        }
        assert!(back_again > 3, "{back_again}");
        // The part's observation reads the values inside.
        let p = crate::discover::project::Projection::all(&sig, std::slice::from_ref(&o));
        let part = &p[0].observations(std::slice::from_ref(&o))[0];
        assert_eq!(part.follow[t].output.as_ref(), Some(inside));
        // Each wrong version's round trip, as the value inside it.
        let inner: Vec<Option<Value>> = f
            .wrong
            .iter()
            .map(|w| {
                w.as_ref().map(|w| {
                    w.inner()
                        .flatten()
                        .cloned()
                        .unwrap_or(Value::Record(Vec::new()))
                })
            })
            .collect();
        assert_eq!(part.follow[t].wrong, inner);
        assert!(inner.iter().any(|w| matches!(w, Some(Value::IntSeq(_)))));
        // Nothing inside, no round trip.
        let none = run("abc");
        assert_eq!(none.follow[t].output, None);
        assert!(none.follow[t].wrong.is_empty());
    }
}
