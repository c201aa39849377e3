//! Relation discovery: invite proposes metamorphic relations from a function's own calls.
//!
//! For every input it sees, discovery runs the function on follow-up inputs made by a fixed set
//! of transformations (for numbers `x' = a·x + b` on a grid, and `c - x` with the symmetry point
//! `c` solved; for sequences permuting, reversing, sorting, including and excluding elements,
//! scaling and translating; for several parameters swapping and scaling them all) and records
//! the results ([`Observation`]). The search then looks, per transformation, for an output
//! relation that held on every input:
//!
//! - equalities linear or quadratic in the two results, their coefficients solved in closed
//!   form by least squares on half of the observations, snapped to simple constants (integers,
//!   halves, π, e, ln 2, √2) only where that still fits, and checked on all of them;
//! - inequalities, and for sequences reversal, permutation, inclusion and length relations;
//! - where a relation holds on one category of inputs only (the sign of a number, a non-empty,
//!   sorted or varied sequence), the relation under that guard.
//!
//! The tolerance of each check is taken from the function's own noise: how far its result moves
//! when the input moves by one unit in the last place. A relation is proposed only when it
//! held on at least `min_inputs` distinct inputs and catches some wrong version of the output
//! (constant, scaled, shifted, negated, shortened, ...; see [`Proposal::detects`]); relations
//! that follow from two others (`sin(x + 2π)` from `sin(x + π)` twice) are folded away unless
//! they catch more.
//!
//! Observing and searching are separate: an [`Observation`] is serializable, so observations
//! made anywhere can be searched with [`propose`]. The [`Discovery`] builder does both, offline,
//! on inputs you give:
//!
//! ```
//! let found = invite::discover::Discovery::new("fn sin(x: f64) -> f64", |x: f64| x.sin())
//!     .unwrap()
//!     .inputs((0..60).map(|i| (i as f64 * 0.37 - 11.0,)))
//!     .run();
//! assert!(found.relations().any(|r| r == "sin(-x) == -result"));
//! println!("{found}");
//! ```

mod form;
mod guard;
mod lsq;
mod observe;
mod perturb;
mod property;
mod render;
mod search;
mod signature;
mod transform;
mod triple;
mod value;

use std::fmt;
use std::marker::PhantomData;
use std::panic::{catch_unwind, AssertUnwindSafe};

use rand::{Rng, SeedableRng};
use serde::Serialize;

pub use observe::{observe, Call, Follow, Observation, MAX_LEN};
pub use signature::{Param, Signature, SignatureError};
use transform::SeqOp;
pub use transform::Transform;
pub use value::{Discoverable, Kind, Value};

use form::Form;
use guard::Guard;
use search::{Found, Subject};

/// Distinct inputs a relation must hold on before it is proposed, unless told otherwise.
pub const DEFAULT_MIN_INPUTS: usize = 30;

/// The tolerance a pasted relation is checked with when its attribute sets none.
const SITE_TOLERANCE: f64 = crate::config::DEFAULT_TOLERANCE;

/// A proposed relation, with its evidence.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Proposal {
    /// The site, as named in the log (the function's name offline).
    pub site: String,
    /// The relation exactly as written inside the function's `#[invite::metamorphic(...)]`.
    pub relation: String,
    /// Distinct inputs it held on.
    pub inputs: usize,
    /// Observations it held on; it was violated on none.
    pub held: usize,
    /// Wrong versions of the output it catches.
    pub detects: usize,
    /// Wrong versions tried.
    pub perturbations: usize,
    /// The relative tolerance it needs, when more than the default of a site.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
    /// The relation as the search found it, to check it on further observations.
    #[serde(skip)]
    check: Option<Found>,
}

/// The proposals for one or more sites, best first within each.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Proposals(pub Vec<Proposal>);

impl Proposals {
    /// The relation texts.
    pub fn relations(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|p| p.relation.as_str())
    }

    /// A JSON array of the proposals.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(&self.0).unwrap_or_else(|_| "[]".into())
    }

    /// The ready attributes, one per site.
    pub fn to_rust(&self) -> String {
        let mut out = String::new();
        for (site, group) in self.by_site() {
            out += &format!("// {site}\n#[invite::metamorphic(\n");
            for p in &group {
                out += &format!("    {},\n", p.relation);
            }
            if let Some(t) = group.iter().filter_map(|p| p.tolerance).reduce(f64::max) {
                out += &format!(
                    "    tolerance = {},\n",
                    transform::float_literal(round_up(t))
                );
            }
            out += ")]\n";
        }
        out
    }

    fn by_site(&self) -> Vec<(&str, Vec<&Proposal>)> {
        let mut out: Vec<(&str, Vec<&Proposal>)> = Vec::new();
        for p in &self.0 {
            match out.iter_mut().find(|(s, _)| *s == p.site) {
                Some((_, g)) => g.push(p),
                None => out.push((&p.site, vec![p])),
            }
        }
        out
    }
}

/// A tolerance rounded up to one significant digit, with room: `3.2e-6` becomes `1e-5`.
fn round_up(t: f64) -> f64 {
    let decade = 10f64.powf((t * 2.0).log10().ceil());
    format!("{decade:e}").parse().unwrap_or(decade)
}

impl fmt::Display for Proposals {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return writeln!(
                f,
                "no relation held on enough distinct inputs and caught a wrong output"
            );
        }
        for (site, group) in self.by_site() {
            writeln!(f, "{site}: {} relation(s)", group.len())?;
            for p in group {
                writeln!(f, "    {},", p.relation)?;
                write!(
                    f,
                    "        // held {}/{} on {} distinct inputs; catches {} of {} wrong outputs",
                    p.held, p.held, p.inputs, p.detects, p.perturbations
                )?;
                match p.tolerance {
                    Some(t) => writeln!(f, "; needs tolerance {t:.1e}")?,
                    None => writeln!(f)?,
                }
            }
        }
        Ok(())
    }
}

/// The proposals from observations of one site.
pub fn propose(site: &str, sig: &Signature, obs: &[Observation], min_inputs: usize) -> Proposals {
    let transforms = Transform::all(sig);
    let mut found = search::search(sig, &transforms, obs, min_inputs);
    // Simplest first, so that what others follow from is kept and they are folded into it.
    let text = |f: &Found| render::relation(sig, &transforms, f);
    found.sort_by_cached_key(|f| {
        (
            f.raw_constants(),
            text(f).len(),
            std::cmp::Reverse(f.detects),
        )
    });
    let found = cleanse(&transforms, fold(&transforms, found));
    let mut out: Vec<Proposal> = found
        .iter()
        .map(|f| Proposal {
            site: site.to_string(),
            relation: text(f),
            inputs: f.inputs,
            held: f.held,
            detects: f.detects,
            perturbations: f.perturbations,
            tolerance: (f.tolerance > SITE_TOLERANCE).then_some(f.tolerance),
            check: Some(f.clone()),
        })
        .collect();
    out.dedup_by(|a, b| a.relation == b.relation);
    out.sort_by(|a, b| {
        b.detects
            .cmp(&a.detects)
            .then(a.relation.len().cmp(&b.relation.len()))
    });
    Proposals(out)
}

/// What observations recorded by a running program (`#[invite::discover]`) propose.
#[derive(Clone, Debug, Default)]
pub struct Observed {
    /// The proposals.
    pub proposals: Proposals,
    /// Observations used.
    pub observations: usize,
    /// Distinct inputs among them.
    pub distinct_inputs: usize,
    /// Observations left out: made by another version of the function or of invite (other
    /// kinds of arguments, other transformations).
    pub mismatched: usize,
}

/// The proposals from the observations one site recorded, for the function whose signature
/// the records name. The kinds of its arguments are read from the first observation.
pub fn propose_observed(
    site: &str,
    signature: &str,
    obs: &[Observation],
    min_inputs: usize,
) -> Result<Observed, Error> {
    let Some(first) = obs.first() else {
        return Ok(Observed::default());
    };
    let kinds: Vec<Kind> = first.input.iter().map(Value::kind).collect();
    let sig = Signature::parse(signature, &kinds, first.output.kind()).map_err(|source| {
        Error::RecordedSignature {
            site: site.to_string(),
            source,
        }
    })?;
    let transforms = Transform::all(&sig);
    let ids: Vec<String> = transforms.iter().map(|t| t.id(&sig)).collect();
    let fits = |o: &&Observation| {
        o.input.iter().map(Value::kind).eq(kinds.iter().copied())
            && o.output.kind() == sig.output
            && o.follow.iter().map(|f| &f.transform).eq(ids.iter())
    };
    let used: Vec<Observation> = obs.iter().filter(fits).cloned().collect();
    // Keyed as the search keys them: NaN inputs are distinct by their text, not by `==`.
    let distinct_inputs = used
        .iter()
        .map(|o| format!("{:?}", o.input))
        .collect::<std::collections::HashSet<_>>()
        .len();
    Ok(Observed {
        proposals: propose(site, &sig, &used, min_inputs),
        observations: used.len(),
        distinct_inputs,
        mismatched: obs.len() - used.len(),
    })
}

/// A number transformation with a polynomial output relation: `f(a·x + b) = P(f(x))`, or
/// `f(a·x + b)² = P(f(x))` when `squared`, with `P` of degree two at most.
#[derive(Clone, Copy, Debug)]
struct Map {
    param: usize,
    /// Relations compose only under the same guard (loosely: the intermediate input need not
    /// fall under it, so a relation may be folded that does not strictly follow; folding only
    /// hides, it never proposes).
    guard: Option<Guard>,
    a: f64,
    b: f64,
    squared: bool,
    /// `P`'s coefficients, constant first.
    poly: [f64; 3],
    detects: usize,
}

impl Map {
    fn of(transforms: &[Transform], f: &Found) -> Option<Map> {
        let Subject::Follow {
            transform, form, ..
        } = &f.subject
        else {
            return None;
        };
        let Transform::Affine { param, a, b } = &transforms[*transform] else {
            return None;
        };
        let (squared, poly) = match form {
            Form::Affine { alpha, beta } => (false, [beta.value, alpha.value, 0.0]),
            Form::Quadratic { a, b, c } => (false, [c.value, b.value, a.value]),
            Form::Square { a, b, c } => (true, [c.value, b.value, a.value]),
            _ => return None,
        };
        Some(Map {
            param: *param,
            guard: f.guard,
            a: *a,
            b: b.value,
            squared,
            poly,
            detects: f.detects,
        })
    }

    /// The relation read backwards, when it can be (an affine `P`).
    fn inverse(&self) -> Option<Map> {
        let [b0, b1, b2] = self.poly;
        (!self.squared && b2 == 0.0 && b1 != 0.0).then_some(Map {
            a: 1.0 / self.a,
            b: -self.b / self.a,
            poly: [-b0 / b1, 1.0 / b1, 0.0],
            ..*self
        })
    }

    /// First `self`, then `next`, when the result is still of this family.
    fn then(&self, next: &Map) -> Option<Map> {
        if self.param != next.param || self.guard != next.guard {
            return None;
        }
        let [n0, n1, n2] = next.poly;
        let (squared, poly) = match (self.squared, next.squared) {
            (false, squared) => (squared, compose(next.poly, self.poly)?),
            // f(x'')² = n1²·f(x')² when the second relation is f(x'') = n1·f(x').
            (true, false) if n0 == 0.0 && n2 == 0.0 => (true, self.poly.map(|c| c * n1 * n1)),
            // f(x'')² = n2·f(x')² + n0 when the second is a relation of squares alone.
            (true, true) if n1 == 0.0 => {
                let p = self.poly.map(|c| c * n2);
                (true, [p[0] + n0, p[1], p[2]])
            }
            _ => return None,
        };
        Some(Map {
            param: self.param,
            guard: self.guard,
            a: next.a * self.a,
            b: next.a * self.b + next.b,
            squared,
            poly,
            detects: self.detects.max(next.detects),
        })
    }

    fn same(&self, o: &Map) -> bool {
        let eq = |x: f64, y: f64| (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0);
        self.param == o.param
            && self.guard == o.guard
            && self.squared == o.squared
            && eq(self.a, o.a)
            && eq(self.b, o.b)
            && self.poly.iter().zip(&o.poly).all(|(x, y)| eq(*x, *y))
    }
}

/// `p(q(y))` for polynomials of degree two at most, when it is one too.
fn compose(p: [f64; 3], q: [f64; 3]) -> Option<[f64; 3]> {
    let [p0, p1, p2] = p;
    let [q0, q1, q2] = q;
    if p2 != 0.0 && q2 != 0.0 {
        return None;
    }
    // p2·(q1·y + q0)² + p1·(q0 + q1·y + q2·y²) + p0
    Some([
        p2 * q0 * q0 + p1 * q0 + p0,
        2.0 * p2 * q0 * q1 + p1 * q1,
        p2 * q1 * q1 + p1 * q2,
    ])
}

/// Folds away relations that follow from others (AutoMR's cleansing, for the polynomial
/// family): the inverse of one, or one applied after another, of those seen so far. A
/// composite is kept when it catches more wrong outputs than the relations it follows from.
fn cleanse(transforms: &[Transform], found: Vec<Found>) -> Vec<Found> {
    let mut kept: Vec<Found> = Vec::new();
    let mut known: Vec<Map> = Vec::new();
    for f in found {
        if let Some(m) = Map::of(transforms, &f) {
            let implied = known.iter().any(|k| k.same(&m))
                || known.iter().any(|k| {
                    known.iter().any(|j| {
                        k.then(j)
                            .is_some_and(|c| c.same(&m) && c.detects >= m.detects)
                    })
                });
            // What follows from known relations is known too, and composes further.
            known.push(m);
            known.extend(m.inverse());
            if implied {
                continue;
            }
        }
        kept.push(f);
    }
    kept
}

/// Folds away what the relations between two runs already say, for the families built on
/// them:
/// - a composite transformation's relation (`mean(&multiply(&permute(xs), 2.0)) == 2.0 *
///   result`) is kept only where both relations it composes held, under the same guard, and it
///   catches more wrong outputs than either (one run then does the work of two, and more); of
///   composites ending in the same change, the first that catches most;
/// - a relation between three runs is dropped where the combined input's run alone is related
///   to the original (`ln(3.0 * x) == result + 1.09...` says what `ln(3.0 * x) == 0.5 *
///   result + 0.5 * ln(2.0 * x) + 0.75...` does).
fn fold(transforms: &[Transform], found: Vec<Found>) -> Vec<Found> {
    let follows = |t: usize, guard: Option<Guard>| {
        found.iter().filter(move |f| {
            f.guard == guard
                && matches!(&f.subject, Subject::Follow { transform, .. } if *transform == t)
        })
    };
    let index = |t: &Transform| transforms.iter().position(|u| u == t);
    let best = |t: &Transform, guard: Option<Guard>| {
        index(t).and_then(|t| follows(t, guard).map(|f| f.detects).max())
    };
    // A composite's parameter and its change of the values.
    let ending = |f: &Found| match &f.subject {
        Subject::Follow { transform, .. } => match transforms[*transform] {
            Transform::SeqThen { param, then, .. } => Some((param, then)),
            _ => None,
        },
        _ => None,
    };
    let mut ends: Vec<(usize, SeqOp, Option<Guard>)> = Vec::new();
    let mut kept = Vec::new();
    for f in &found {
        let keep = match &f.subject {
            Subject::Follow { transform, .. } => match transforms[*transform] {
                Transform::SeqThen { param, first, then } => {
                    let parts = (
                        best(&Transform::Seq { param, op: first }, f.guard),
                        best(&Transform::Seq { param, op: then }, f.guard),
                    );
                    let better = matches!(parts, (Some(a), Some(b)) if f.detects > a.max(b));
                    // The most a composite ending in this change catches.
                    let most = found
                        .iter()
                        .filter(|g| g.guard == f.guard && ending(g) == Some((param, then)))
                        .map(|g| g.detects)
                        .max();
                    let first_of_most =
                        most == Some(f.detects) && !ends.contains(&(param, then, f.guard));
                    if better && first_of_most {
                        ends.push((param, then, f.guard));
                    }
                    better && first_of_most
                }
                _ => true,
            },
            Subject::Joint { combined, .. } => follows(*combined, f.guard).next().is_none(),
            Subject::Property(_) => true,
        };
        if keep {
            kept.push(f.clone());
        }
    }
    kept
}

/// A tuple of arguments discovery can take apart.
pub trait Args: Sized {
    /// The kinds of its elements.
    fn kinds() -> Vec<Kind>;
    /// Its elements as values.
    fn to_values(&self) -> Option<Vec<Value>>;
}

/// A function of [`Args`] whose result discovery can compare.
pub trait Function<A: Args> {
    /// The kind of its result.
    fn output_kind() -> Kind;
    /// Calls it on values (`None`: they do not convert, or it panicked).
    fn call_values(&self, v: &[Value]) -> Option<Value>;
}

macro_rules! tuples {
    ($(($($t:ident $i:tt),+)),*) => {$(
        impl<$($t: Discoverable),+> Args for ($($t,)+) {
            fn kinds() -> Vec<Kind> {
                vec![$($t::KIND),+]
            }
            fn to_values(&self) -> Option<Vec<Value>> {
                Some(vec![$(self.$i.to_value()?),+])
            }
        }
        impl<F, R: Discoverable, $($t: Discoverable),+> Function<($($t,)+)> for F
        where
            F: Fn($($t),+) -> R,
        {
            fn output_kind() -> Kind {
                R::KIND
            }
            fn call_values(&self, v: &[Value]) -> Option<Value> {
                let args = ($($t::from_value(v.get($i)?)?,)+);
                quietly(|| self($(args.$i),+))?.to_value()
            }
        }
    )*};
}
tuples!((A 0), (A 0, B 1), (A 0, B 1, C 2), (A 0, B 1, C 2, D 3));

thread_local! {
    static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f`, turning a panic into `None` without printing it: a follow-up input outside the
/// function's domain is an answer ("the relation does not apply here"), not an error.
#[doc(hidden)]
pub fn quietly<R>(f: impl FnOnce() -> R) -> Option<R> {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(|q| q.get()) {
                previous(info);
            }
        }));
    });
    QUIET.with(|q| q.set(true));
    let out = catch_unwind(AssertUnwindSafe(f)).ok();
    QUIET.with(|q| q.set(false));
    out
}

/// Why discovery could not start on a function: its signature does not parse or does not agree
/// with the function.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The signature given to [`Discovery::new`]: fix it as the [`SignatureError`] says. Its
    /// text is this error's text.
    Signature(SignatureError),
    /// The signature a site's observations name ([`propose_observed`]) does not parse or does
    /// not match the recorded arguments: the log was written by another version of invite, or
    /// edited. Record the site again with the current build.
    RecordedSignature {
        /// The site whose records name the signature.
        site: String,
        /// What is wrong with the signature.
        source: SignatureError,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Signature(e) => e.fmt(f),
            Error::RecordedSignature { site, source } => write!(f, "site {site}: {source}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            // Its text is this error's text: a chain printed link by link would repeat it.
            Error::Signature(e) => e.source(),
            Error::RecordedSignature { source, .. } => Some(source),
        }
    }
}

/// The function, called on values.
type Eval<'f> = Box<dyn Fn(&[Value]) -> Option<Value> + 'f>;

/// Discovery on inputs you give, in a test or an example.
pub struct Discovery<'f, A: Args> {
    sig: Signature,
    call: Eval<'f>,
    inputs: Vec<Vec<Value>>,
    min_inputs: usize,
    seed: u64,
    _args: PhantomData<A>,
}

impl<'f, A: Args> Discovery<'f, A> {
    /// Discovery for `f`, declared as `signature` (`fn mean(xs: &[f64]) -> f64`: the names and
    /// types the relations are written with). `f` takes owned arguments: a `&[f64]` parameter
    /// is a `Vec<f64>` here.
    pub fn new<F: Function<A> + 'f>(signature: &str, f: F) -> Result<Self, Error> {
        let sig =
            Signature::parse(signature, &A::kinds(), F::output_kind()).map_err(Error::Signature)?;
        Ok(Discovery {
            sig,
            call: Box::new(move |v: &[Value]| f.call_values(v)),
            inputs: Vec::new(),
            min_inputs: DEFAULT_MIN_INPUTS,
            seed: 0x1A2B_3C4D,
            _args: PhantomData,
        })
    }

    /// Adds inputs, as tuples of arguments (`(x,)` for one).
    pub fn inputs(mut self, inputs: impl IntoIterator<Item = A>) -> Self {
        // An argument discovery cannot represent (a `u64` above `i64::MAX`) leaves that input
        // out; the others still count.
        self.inputs
            .extend(inputs.into_iter().filter_map(|a| a.to_values()));
        self
    }

    /// Adds `cases` inputs drawn from a proptest strategy of argument tuples (`(x,)` for one),
    /// the same ones for the same [`seed`](Self::seed).
    ///
    /// ```
    /// # #[cfg(feature = "proptest")] {
    /// use proptest::prelude::*;
    /// let found = invite::discover::Discovery::new("fn cube(x: f64) -> f64", |x: f64| x * x * x)
    ///     .unwrap()
    ///     .strategy((-50.0..50.0f64,).prop_map(|(x,)| (x,)), 60)
    ///     .run();
    /// assert!(found.relations().any(|r| r == "cube(2.0 * x) == 8.0 * result"));
    /// # }
    /// ```
    #[cfg(feature = "proptest")]
    pub fn strategy<S>(self, strategy: S, cases: usize) -> Self
    where
        S: proptest::strategy::Strategy<Value = A>,
    {
        use proptest::strategy::ValueTree;
        use proptest::test_runner::{RngAlgorithm, TestRng, TestRunner};
        let mut seed = [0u8; 32];
        seed[..8].copy_from_slice(&self.seed.to_le_bytes());
        let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &seed);
        let mut runner = TestRunner::new_with_rng(proptest::test_runner::Config::default(), rng);
        let drawn: Vec<A> = (0..cases)
            .filter_map(|_| strategy.new_tree(&mut runner).ok().map(|t| t.current()))
            .collect();
        self.inputs(drawn)
    }

    /// Distinct inputs a relation must hold on (default 30).
    pub fn min_inputs(mut self, n: usize) -> Self {
        self.min_inputs = n;
        self
    }

    /// The seed of the permutations and of the fresh inputs proposals are re-verified on.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    fn observe_all(
        &self,
        transforms: &[Transform],
        inputs: &[Vec<Value>],
        seed: u64,
    ) -> Vec<Observation> {
        let mut call = |v: &[Value]| (self.call)(v);
        inputs
            .iter()
            .enumerate()
            .filter_map(|(i, v)| {
                observe(
                    &self.sig,
                    transforms,
                    v.clone(),
                    &mut call,
                    seed.wrapping_add(i as u64),
                )
            })
            .collect()
    }

    /// Observes every input, proposes, and keeps the proposals that also hold on as many fresh
    /// inputs, drawn near the given ones and within their categories.
    pub fn run(&self) -> Proposals {
        let transforms = Transform::all(&self.sig);
        let obs = self.observe_all(&transforms, &self.inputs, self.seed);
        let proposals = propose(&self.sig.name, &self.sig, &obs, self.min_inputs);
        let mut rng = rand::rngs::StdRng::seed_from_u64(self.seed);
        let fresh: Vec<Vec<Value>> = (0..self.inputs.len().max(DEFAULT_MIN_INPUTS))
            .filter_map(|i| {
                let base = self.inputs.get(i % self.inputs.len().max(1))?;
                Some(base.iter().map(|v| jitter(v, &mut rng)).collect())
            })
            .collect();
        self.keep_holding(proposals, &transforms, &fresh)
    }

    /// The proposals that also hold on every observation of `fresh` inputs under their guard.
    fn keep_holding(
        &self,
        proposals: Proposals,
        transforms: &[Transform],
        fresh: &[Vec<Value>],
    ) -> Proposals {
        let obs = self.observe_all(transforms, fresh, self.seed ^ 0xF4E5);
        Proposals(
            proposals
                .0
                .into_iter()
                .filter(|p| {
                    p.check
                        .as_ref()
                        .is_none_or(|f| search::holds_on(&self.sig, transforms, f, &obs))
                })
                .collect(),
        )
    }

    /// The proposals that fail on some of further `inputs` (in their guard's category).
    pub fn failing(
        &self,
        proposals: &Proposals,
        inputs: impl IntoIterator<Item = A>,
    ) -> Vec<String> {
        let fresh: Vec<Vec<Value>> = inputs.into_iter().filter_map(|a| a.to_values()).collect();
        let transforms = Transform::all(&self.sig);
        let held = self.keep_holding(proposals.clone(), &transforms, &fresh);
        proposals
            .relations()
            .filter(|r| !held.relations().any(|h| h == *r))
            .map(str::to_string)
            .collect()
    }
}

/// A fresh value near `v` and in its categories: the same sign, a sequence of the same length,
/// order, spread and duplicates.
fn jitter(v: &Value, rng: &mut impl Rng) -> Value {
    match v {
        // Up to twice or half as far from zero: a relation that holds only on the range
        // given (such as `sqrt(8.0 - x)` on small `x`) is caught here.
        // Down to a sixty-fourth: one that holds only away from zero (`abs(8.0 * x - 1.0)`
        // for `x >= 0.125`) too.
        Value::Float(x) => Value::Float(x * 2f64.powf(rng.random_range(-6.0..1.0))),
        Value::Int(i) => {
            let j = i + rng.random_range(-3..=3);
            Value::Int(if j.signum() == i.signum() { j } else { *i })
        }
        Value::Bool(b) => Value::Bool(*b),
        Value::FloatSeq(xs) => {
            let (s, t) = (rng.random_range(0.5..2.0), rng.random_range(0.0..3.0));
            let mapped: Vec<f64> = xs
                .iter()
                .map(|x| x * s + if xs.iter().all(|v| *v >= 0.0) { t } else { 0.0 })
                .collect();
            Value::FloatSeq(mapped)
        }
        Value::IntSeq(xs) => {
            let (s, t) = (rng.random_range(1..=3i64), rng.random_range(0..=3i64));
            Value::IntSeq(
                xs.iter()
                    .map(|x| x.saturating_mul(s).saturating_add(t))
                    .collect(),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observations_of_another_version_are_left_out_and_counted() {
        let text = "fn sin(x: f64) -> f64";
        let sig = Signature::parse(text, &[Kind::Float], Kind::Float).unwrap();
        let transforms = Transform::all(&sig);
        let mut call = |v: &[Value]| Some(Value::Float(v[0].number()?.sin()));
        let mut obs: Vec<Observation> = (0..40)
            .map(|i| {
                let x = (i as f64 * 0.618_033_988_7) % 1.0 * 18.0 - 9.0;
                observe(&sig, &transforms, vec![Value::Float(x)], &mut call, i).unwrap()
            })
            .collect();
        // The same input twice counts once.
        obs.push(obs[0].clone());
        // Another kind of argument; another result kind; other transformations.
        let mut wrong_input = obs[1].clone();
        wrong_input.input = vec![Value::Int(3)];
        let mut wrong_output = obs[2].clone();
        wrong_output.output = Value::Bool(true);
        let mut wrong_follow = obs[3].clone();
        wrong_follow.follow.truncate(2);
        obs.extend([wrong_input, wrong_output, wrong_follow]);
        let found = propose_observed("app::sin", text, &obs, 30).unwrap();
        assert_eq!(found.mismatched, 3);
        assert_eq!(found.observations, 41);
        assert_eq!(found.distinct_inputs, 40);
        assert!(found
            .proposals
            .relations()
            .any(|r| r == "sin(-x) == -result"));
        assert!(found.proposals.0.iter().all(|p| p.site == "app::sin"));
        let none = propose_observed("app::sin", text, &[], 30).unwrap();
        assert_eq!((none.observations, none.mismatched), (0, 0));
        let bad = propose_observed("app::sin", "sin(", &obs, 30).unwrap_err();
        let Error::RecordedSignature { site, source } = &bad else {
            panic!("{bad:?}");
        };
        assert_eq!(site, "app::sin");
        assert!(
            matches!(source, SignatureError::NoClosingParen { .. }),
            "{source:?}"
        );
        assert_eq!(
            bad.to_string(),
            "site app::sin: signature `sin(` has no closing `)`; write it as \
             `fn name(x: f64, xs: &[f64]) -> f64`, as the function is declared"
        );
        assert!(std::error::Error::source(&bad).is_some());
    }

    #[test]
    fn composites_are_kept_once_where_both_parts_held_and_they_catch_more() {
        let sig =
            Signature::parse("fn f(xs: &[f64]) -> f64", &[Kind::FloatSeq], Kind::Float).unwrap();
        let transforms = Transform::all(&sig);
        let at = |t: Transform| transforms.iter().position(|u| *u == t).unwrap();
        let seq = |op| at(Transform::Seq { param: 0, op });
        let then = |first, then| {
            at(Transform::SeqThen {
                param: 0,
                first,
                then,
            })
        };
        let found = |transform: usize, detects: usize, guard: Option<Guard>| Found {
            subject: Subject::Follow {
                transform,
                center: None,
                form: Form::AtLeast,
            },
            guard,
            inputs: 30,
            held: 30,
            detects,
            perturbations: 9,
            tolerance: 0.0,
        };
        let sort = seq(SeqOp::Sort);
        let double = seq(SeqOp::Scale(2.0));
        let sorted_doubled = then(SeqOp::Sort, SeqOp::Scale(2.0));
        let reversed_doubled = then(SeqOp::Reverse, SeqOp::Scale(2.0));
        let sorted_negated = then(SeqOp::Sort, SeqOp::Negate);
        let kept = |list: Vec<Found>| -> Vec<(usize, usize)> {
            fold(&transforms, list)
                .iter()
                .map(|f| match f.subject {
                    Subject::Follow { transform, .. } => (transform, f.detects),
                    _ => (usize::MAX, f.detects),
                })
                .collect()
        };
        // Both parts held and it catches more: kept, beside them.
        let parts = [found(sort, 2, None), found(double, 4, None)];
        let with = |extra: Vec<Found>| parts.iter().cloned().chain(extra).collect::<Vec<_>>();
        assert_eq!(
            kept(with(vec![found(sorted_doubled, 5, None)])),
            [(sort, 2), (double, 4), (sorted_doubled, 5)]
        );
        // No more than its better part: dropped.
        assert_eq!(kept(with(vec![found(sorted_doubled, 4, None)])).len(), 2);
        // A part missing, or held only under another guard: dropped.
        let g = Some(Guard::NonEmpty(0));
        assert_eq!(
            kept(vec![found(sort, 2, None), found(sorted_doubled, 5, None)]).len(),
            1
        );
        assert_eq!(
            kept(vec![
                found(sort, 2, None),
                found(double, 4, g),
                found(sorted_doubled, 5, None)
            ])
            .len(),
            2
        );
        // Of composites ending in the same change, the first of those that catch most; one
        // ending in another change is judged on its own.
        let reverse = seq(SeqOp::Reverse);
        assert_eq!(
            kept(with(vec![
                found(reverse, 2, None),
                found(sorted_doubled, 5, None),
                found(reversed_doubled, 6, None),
                found(sorted_negated, 5, None),
            ])),
            [(sort, 2), (double, 4), (reverse, 2), (reversed_doubled, 6)]
        );
        assert_eq!(
            kept(with(vec![
                found(reverse, 2, None),
                found(reversed_doubled, 5, None),
                found(sorted_doubled, 5, None),
            ])),
            [(sort, 2), (double, 4), (reverse, 2), (reversed_doubled, 5)]
        );
        // What the others catch matters only for composites with the same ending and guard:
        // one that catches more with another ending leaves this one in place.
        let negate = seq(SeqOp::Negate);
        assert_eq!(
            kept(with(vec![
                found(negate, 3, None),
                found(reverse, 2, None),
                found(reversed_doubled, 6, None),
                found(sorted_negated, 5, None),
            ])),
            [
                (sort, 2),
                (double, 4),
                (negate, 3),
                (reverse, 2),
                (reversed_doubled, 6),
                (sorted_negated, 5)
            ]
        );
    }

    #[test]
    fn a_three_run_relation_is_folded_where_the_combined_run_alone_is_related() {
        let sig = Signature::parse("fn f(x: f64) -> f64", &[Kind::Float], Kind::Float).unwrap();
        let transforms = Transform::all(&sig);
        let at = |t: Transform| transforms.iter().position(|u| *u == t).unwrap();
        let partner = at(Transform::Affine {
            param: 0,
            a: 1.0,
            b: transform::Const::lit(1.0),
        });
        let combined = at(Transform::Affine {
            param: 0,
            a: 2.0,
            b: transform::Const::lit(1.0),
        });
        let k = transform::Const::lit;
        let joint = |guard| Found {
            subject: Subject::Joint {
                partner,
                combined,
                form: triple::Joint {
                    alpha: k(1.0),
                    beta: k(0.0),
                    gamma: k(0.0),
                },
            },
            guard,
            inputs: 30,
            held: 30,
            detects: 6,
            perturbations: 6,
            tolerance: 0.0,
        };
        let direct = Found {
            subject: Subject::Follow {
                transform: combined,
                center: None,
                form: Form::AtLeast,
            },
            ..joint(None)
        };
        assert_eq!(fold(&transforms, vec![joint(None)]).len(), 1);
        assert_eq!(
            fold(&transforms, vec![direct.clone(), joint(None)]).len(),
            1
        );
        // Under another guard the direct relation says nothing of it.
        let g = Some(Guard::Positive(0));
        assert_eq!(fold(&transforms, vec![direct, joint(g)]).len(), 2);
    }

    #[test]
    fn a_needed_tolerance_is_rounded_up_with_room_and_printed_with_the_attribute() {
        assert_eq!(round_up(3.2e-6), 1e-5);
        assert_eq!(round_up(6e-6), 1e-4);
        let p = |relation: &str, tolerance| Proposal {
            site: "s".into(),
            relation: relation.into(),
            inputs: 30,
            held: 30,
            detects: 1,
            perturbations: 6,
            tolerance,
            check: None,
        };
        let found = Proposals(vec![
            p("f(-x) == result", Some(3.2e-6)),
            p("f(2.0 * x) == result", None),
        ]);
        assert_eq!(
            found.to_rust(),
            "// s\n#[invite::metamorphic(\n    f(-x) == result,\n    f(2.0 * x) == result,\n    \
             tolerance = 1e-5,\n)]\n"
        );
        let text = found.to_string();
        assert!(
            text.starts_with("s: 2 relation(s)\n    f(-x) == result,\n"),
            "{text}"
        );
        assert!(text.contains("held 30/30 on 30 distinct inputs; catches 1 of 6 wrong outputs; needs tolerance 3.2e-6\n"), "{text}");
    }
}
