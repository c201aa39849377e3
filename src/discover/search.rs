//! The search: for every transformation, the output relations that hold on every observation
//! (or on every observation of one input category), how many wrong outputs each would catch,
//! and the representative set left after relations implied by others are folded away.

use std::collections::HashSet;

use super::constant;
use super::cover::Catches;
use super::form::{
    fit_elementwise, fit_len_ratio, fit_numeric, param_powers, single_precision, By, Form, Pair,
    TextForm,
};
use super::guard::Guard;
use super::image::{Image, TwinAt};
use super::observe::Observation;
use super::perturb::Perturbation;
use super::project::Projection;
use super::property::{CharClass, Cmp, Property};
use super::signature::Signature;
use super::transform::{takes_result, Const, SeqOp, TextOp, Transform, FLOAT_B, PARTNERS};
use super::triple::{self, Joint, Triple};
use super::value::{Kind, Value};

/// What a found relation compares.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Subject {
    /// The follow-up run of a transformation against the original result.
    Follow {
        /// Index of its transformation.
        transform: usize,
        /// A reflection's point.
        center: Option<f64>,
        /// The output relation.
        form: Form,
    },
    /// The original result alone.
    Property(Property),
    /// Three runs: the original, a second input's (`partner`), and the combined input's.
    Joint {
        /// Index of the transformation making the second input.
        partner: usize,
        /// Index of the transformation making the combined input.
        combined: usize,
        /// The output relation.
        form: Joint,
    },
    /// Three runs: the original result as a sum of two follow-ups' with whole coefficients,
    /// `result == a·f(first) + b·f(second)` (a recurrence: `fib(n) == fib(n - 1) + fib(n - 2)`,
    /// Pascal's rule).
    Recurrence {
        /// Index of the first follow-up's transformation.
        first: usize,
        /// Index of the second's.
        second: usize,
        /// The first's coefficient.
        a: i8,
        /// The second's.
        b: i8,
    },
    /// The result through another function of the crate (`is_nfc(&result)`, `nfd(&result)
    /// == nfd(s)`): no further run of the function.
    Image(Image),
    /// Two follow-up runs that agree: the function composed with itself against one call
    /// (`root(result, 2) == root(x, 2 * n)`).
    Compose {
        /// Index of the nested call's transformation ([`Transform::Nested`]).
        nested: usize,
        /// Index of the single call's.
        direct: usize,
    },
}

/// A relation that held.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    /// What it compares.
    pub subject: Subject,
    /// The category of inputs it holds on (`None`: all).
    pub guard: Option<Guard>,
    /// Distinct inputs it held on.
    pub inputs: usize,
    /// Observations it held on (all of those under its guard).
    pub held: usize,
    /// Wrong outputs it catches, of [`Found::perturbations`].
    pub detects: usize,
    /// Which it catches on which observations, for the representative set.
    pub catches: Catches,
    /// Wrong outputs tried.
    pub perturbations: usize,
    /// The relative tolerance invite's comparison needs for it.
    pub tolerance: f64,
    /// The part of a composite result it is about (`None`: the whole result).
    pub projection: Option<Projection>,
}

impl Found {
    /// The transformations whose follow-up runs it compares.
    pub fn follow_ups(&self) -> Vec<usize> {
        match self.subject {
            Subject::Follow { transform, .. } => vec![transform],
            Subject::Recurrence { first, second, .. } => vec![first, second],
            Subject::Compose { nested, direct } => vec![nested, direct],
            Subject::Joint { .. } | Subject::Property(_) | Subject::Image(_) => Vec::new(),
        }
    }

    /// Every follow-up run whose result it reads: its [`follow_ups`](Self::follow_ups), and
    /// a relation of three runs' partner and combined runs.
    pub fn runs_read(&self) -> Vec<usize> {
        match self.subject {
            Subject::Joint {
                partner, combined, ..
            } => vec![partner, combined],
            _ => self.follow_ups(),
        }
    }

    /// The runs of the function a test of it adds to the original: none for a property of
    /// the result, one for a follow-up, two for a relation of three runs.
    pub fn executions(&self) -> usize {
        match self.subject {
            Subject::Property(_) | Subject::Image(_) => 0,
            Subject::Follow { .. } => 1,
            Subject::Joint { .. } | Subject::Recurrence { .. } | Subject::Compose { .. } => 2,
        }
    }

    /// How many of its coefficients are no simple constant.
    pub fn raw_constants(&self) -> usize {
        match &self.subject {
            Subject::Follow { form, .. } => form.raw_constants(),
            Subject::Property(_)
            | Subject::Image(_)
            | Subject::Recurrence { .. }
            | Subject::Compose { .. } => 0,
            Subject::Joint { form, .. } => [form.alpha, form.beta, form.gamma]
                .iter()
                .filter(|c| super::form::raw(c))
                .count(),
        }
    }
}

/// The observations searched, and how their inputs are told apart.
struct Scope<'a> {
    obs: Vec<&'a Observation>,
    keys: Vec<String>,
    all: Vec<usize>,
    min_inputs: usize,
}

impl Scope<'_> {
    /// Whether, among the observations `on`, enough distinct inputs gave results that are not
    /// all equal across the original and the follow-ups `runs`: a relation any constant meets
    /// (`f(f(x, n), 2) == f(x, 2 * n)`, `y = 2·y₁ - y₂`) says something only there.
    fn telling(&self, on: &[usize], runs: [usize; 2]) -> bool {
        let differ: Vec<usize> = on
            .iter()
            .copied()
            .filter(|&i| {
                let o = self.obs[i];
                runs.iter()
                    .any(|&t| o.follow[t].output.as_ref() != Some(&o.output))
            })
            .collect();
        self.distinct(&differ) >= self.min_inputs
    }

    /// Distinct inputs among the observations `idx`.
    fn distinct(&self, idx: &[usize]) -> usize {
        idx.iter()
            .map(|&i| self.keys[i].as_str())
            .collect::<HashSet<_>>()
            .len()
    }

    /// The relations `fit` finds on every observation, or else on the widest category of
    /// inputs on which they hold and which they separate cleanly (they fail on most inputs
    /// outside it), with the category and the observations in it. `fit` is told the guard;
    /// `holds` judges one relation on one observation.
    fn category<T>(
        &self,
        guards: &[Guard],
        fit: impl Fn(&[usize], Option<Guard>) -> Vec<T>,
        holds: impl Fn(&T, usize) -> bool,
    ) -> Option<(Option<Guard>, Vec<T>, Vec<usize>)> {
        self.category_with(guards, fit, holds, |failed, off| 2 * failed > off)
    }

    /// As [`category`](Self::category), with what separates a category said by `separates`
    /// of how many inputs outside it the relation failed on, of how many.
    fn category_with<T>(
        &self,
        guards: &[Guard],
        fit: impl Fn(&[usize], Option<Guard>) -> Vec<T>,
        holds: impl Fn(&T, usize) -> bool,
        separates: impl Fn(usize, usize) -> bool,
    ) -> Option<(Option<Guard>, Vec<T>, Vec<usize>)> {
        let everywhere = fit(&self.all, None);
        if !everywhere.is_empty() {
            return Some((None, everywhere, self.all.clone()));
        }
        let mut best: Option<(Guard, Vec<T>, Vec<usize>)> = None;
        for g in guards {
            let on: Vec<usize> = self
                .all
                .iter()
                .copied()
                .filter(|&i| g.holds(&self.obs[i].input))
                .collect();
            if on.len() == self.all.len()
                || self.distinct(&on) < self.min_inputs
                || best.as_ref().is_some_and(|b| b.2.len() >= on.len())
            {
                continue;
            }
            let off: Vec<usize> = self
                .all
                .iter()
                .copied()
                .filter(|i| !on.contains(i))
                .collect();
            let found: Vec<T> = fit(&on, Some(*g))
                .into_iter()
                .filter(|f| separates(off.iter().filter(|&&i| !holds(f, i)).count(), off.len()))
                .collect();
            if !found.is_empty() {
                best = Some((*g, found, on));
            }
        }
        best.map(|(g, found, on)| (Some(g), found, on))
    }
}

/// The observations made under `transforms`, when there are enough distinct inputs among them
/// and the function is not too noisy to relate.
fn scope_of<'a>(
    sig: &Signature,
    transforms: &[Transform],
    obs: &'a [Observation],
    min_inputs: usize,
) -> Option<Scope<'a>> {
    let ids: Vec<String> = transforms.iter().map(|t| t.id(sig)).collect();
    let obs: Vec<&Observation> = obs
        .iter()
        .filter(|o| {
            o.follow.len() == ids.len()
                && o.follow.iter().zip(&ids).all(|(f, id)| &f.transform == id)
        })
        .collect();
    let scope = Scope {
        keys: obs.iter().map(|o| format!("{:?}", o.input)).collect(),
        all: (0..obs.len()).collect(),
        obs,
        min_inputs: min_inputs.max(1),
    };
    (scope.distinct(&scope.all) >= scope.min_inputs && !too_noisy(&scope.obs)).then_some(scope)
}

/// A relation that held on most inputs and failed on one kind of them: a defect there, or a
/// guard the search has no words for. Its observations are indices into those `search` used.
pub struct Miss<'a> {
    /// The relation, with no guard.
    pub found: Found,
    /// The kind of inputs it failed on.
    pub category: Defect,
    /// The observations of that kind it failed on.
    pub failing: Vec<&'a Observation>,
    /// The observations of that kind it could be judged on.
    pub of: usize,
}

/// The relations between two runs that no proposal states (`proposed`: the transformations
/// some proposal follows) and that held on every input but those of one [`Defect`] category
/// (two fifths of them at least, and `min_inputs` distinct ones), and failed on a fifth or more
/// of that category's (two at least): at most three, the most failures first.
pub fn near_misses<'a>(
    sig: &Signature,
    transforms: &[Transform],
    obs: &'a [Observation],
    min_inputs: usize,
    proposed: &[usize],
) -> Vec<Miss<'a>> {
    let Some(scope) = scope_of(sig, transforms, obs, min_inputs) else {
        return Vec::new();
    };
    let obs = &scope.obs;
    let mut out: Vec<Miss<'a>> = Vec::new();
    for (t, transform) in transforms.iter().enumerate() {
        let plain = matches!(
            transform,
            Transform::Affine { .. }
                | Transform::Seq { .. }
                | Transform::SeqWith { .. }
                | Transform::ScaleAll { .. }
                | Transform::Swap { .. }
        );
        if !plain || proposed.contains(&t) {
            continue;
        }
        let weak = matches!(transform, Transform::Seq { .. })
            || sig.output == Kind::Bool
            || (sig.params.len() > 1 && transform.is_scalar_step());
        let mut best: Option<Miss<'a>> = None;
        for category in Defect::all(sig) {
            let (inside, rest): (Vec<usize>, Vec<usize>) = scope
                .all
                .iter()
                .partition(|&&i| category.holds(&obs[i].input));
            if 5 * rest.len() < 2 * scope.all.len() || scope.distinct(&rest) < scope.min_inputs {
                continue;
            }
            let judged: Vec<usize> = inside
                .iter()
                .copied()
                .filter(|&i| pair(obs, i, t).is_some())
                .collect();
            for form in forms_on(sig, obs, t, transform, &rest, weak) {
                let failing: Vec<usize> = judged
                    .iter()
                    .copied()
                    .filter(|&i| pair(obs, i, t).is_some_and(|p| !form.holds(&p)))
                    .collect();
                if failing.len() < 2 || 5 * failing.len() < judged.len() {
                    continue;
                }
                if best
                    .as_ref()
                    .is_some_and(|b| b.failing.len() >= failing.len())
                {
                    continue;
                }
                let (detects, catches, perturbations) =
                    detections(sig.output, obs, t, &rest, &form);
                if detects == 0 {
                    continue;
                }
                best = Some(Miss {
                    found: Found {
                        subject: Subject::Follow {
                            transform: t,
                            center: None,
                            form,
                        },
                        guard: None,
                        inputs: scope.distinct(&rest),
                        held: rest.len(),
                        detects,
                        catches,
                        perturbations,
                        tolerance: 0.0,
                        projection: None,
                    },
                    category,
                    failing: failing.iter().map(|&i| obs[i]).collect(),
                    of: judged.len(),
                });
            }
        }
        out.extend(best);
    }
    out.sort_by_key(|m| std::cmp::Reverse(m.failing.len()));
    out.truncate(3);
    out
}

/// A kind of input a defect often lives in, and no guard a relation is proposed under: a
/// median wrong for even lengths, a sum wrong with negative elements, a dedup wrong with
/// duplicates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Defect {
    /// `xs.len()` even (and not zero).
    EvenLen(usize),
    /// `xs.len()` odd.
    OddLen(usize),
    /// Some element twice.
    Duplicates(usize),
    /// Some element below zero.
    SomeNegative(usize),
}

impl Defect {
    fn all(sig: &Signature) -> Vec<Defect> {
        sig.params
            .iter()
            .enumerate()
            .filter(|(_, p)| p.kind.is_seq())
            .flat_map(|(p, _)| {
                [
                    Defect::EvenLen(p),
                    Defect::OddLen(p),
                    Defect::Duplicates(p),
                    Defect::SomeNegative(p),
                ]
            })
            .collect()
    }

    fn holds(&self, input: &[Value]) -> bool {
        let seq = |p: usize| input[p].elements().unwrap_or_default();
        match *self {
            Defect::EvenLen(p) => {
                let n = seq(p).len();
                n > 0 && n % 2 == 0
            }
            Defect::OddLen(p) => seq(p).len() % 2 == 1,
            Defect::Duplicates(p) => {
                let mut xs = seq(p);
                xs.sort_by(f64::total_cmp);
                xs.windows(2).any(|w| w[0] == w[1])
            }
            Defect::SomeNegative(p) => seq(p).iter().any(|&x| x < 0.0),
        }
    }

    /// The category in words: "an even length of `xs`".
    pub fn text(&self, sig: &Signature) -> String {
        let name = |p: usize| &sig.params[p].name;
        match *self {
            Defect::EvenLen(p) => format!("an even length of `{}`", name(p)),
            Defect::OddLen(p) => format!("an odd length of `{}`", name(p)),
            Defect::Duplicates(p) => format!("a repeated element in `{}`", name(p)),
            Defect::SomeNegative(p) => format!("a negative element in `{}`", name(p)),
        }
    }
}

/// The guard a relation of `transform` that held under `guard` is proposed under, or `None`
/// where it is not proposed: what it needs to run at all, pasted, on any input.
fn pasted_guard(
    sig: &Signature,
    transform: &Transform,
    guard: Option<Guard>,
) -> Option<Option<Guard>> {
    // `p - 1` of an unsigned `p` panics, pasted, at `p = 0`, whatever the inputs seen:
    // guarded by `p > 0`; a step further down is not proposed.
    let guard = match (transform, guard) {
        (Transform::Affine { param, a, b }, g) if sig.params[*param].is_unsigned() => {
            let down = *a < 0.0 || b.value < 0.0;
            match g {
                _ if !down => g,
                _ if *a < 0.0 || b.value < -1.0 => return None,
                None => Some(Guard::Positive(*param)),
                Some(Guard::NonNegative(q)) if q == *param => Some(Guard::Positive(*param)),
                Some(Guard::Positive(q)) if q == *param => g,
                Some(_) => return None,
            }
        }
        (_, g) => g,
    };
    // A follow-up that reads an element panics, pasted, on an empty sequence: its relation is
    // guarded against one even where no input was empty.
    match (transform.needs_element(), guard) {
        (Some(p), None) => Some(Some(Guard::NonEmpty(p))),
        (Some(p), Some(g)) if !g.rules_out_empty(p) => None,
        (_, g) => Some(g),
    }
}

/// Whether a result unchanged by `transform` under `guard` is a coincidence of the values
/// seen. "The result does not depend on `lo`", claimed only where `x >= 0`: the sign of another
/// parameter is no reason for it (every `x >= 0` happened to be above `lo`), and a new input
/// breaks it. Likewise two parameters trading places to no effect under a guard.
fn unchanged_by_coincidence(guard: Option<Guard>, transform: &Transform) -> bool {
    match (guard, transform) {
        (Some(g), Transform::Affine { param, .. } | Transform::Reflect { param }) => {
            g.param() != *param
        }
        (Some(_), Transform::Swap { .. }) => true,
        _ => false,
    }
}

/// Searches `obs` (observations of `sig` under `transforms`) for relations holding on at least
/// `min_inputs` distinct inputs.
pub fn search(
    sig: &Signature,
    transforms: &[Transform],
    obs: &[Observation],
    min_inputs: usize,
) -> Vec<Found> {
    let Some(scope) = scope_of(sig, transforms, obs, min_inputs) else {
        return Vec::new();
    };
    let obs = &scope.obs;
    let guards = Guard::all(sig);
    let mut found = Vec::new();
    for (t, transform) in transforms.iter().enumerate() {
        if matches!(transform, Transform::Origin | Transform::Nested { .. }) {
            // A probe of the boundary for the properties, and the inner call of a
            // composition: not a relation of the function's with the original result.
            continue;
        }
        if let Transform::ResultThrough { sibling, .. } = *transform {
            // A round trip from the value inside `Some`/`Ok` is that value's, searched with
            // it as the result (`Projection`); from the whole result, not the value's.
            if !sig
                .siblings
                .get(sibling)
                .is_some_and(|g| takes_result(sig, g))
            {
                continue;
            }
        }
        let center = match transform {
            Transform::Reflect { .. } => match common_center(obs, t) {
                Some(c) => Some(c),
                None => continue,
            },
            _ => None,
        };
        // Inequalities and the other weak forms only where they are the relation of the
        // transformation (a sequence grown or cut, an implication between booleans, a step of
        // one parameter among several), and for a sequence under no guard but the one that
        // makes the transformation apply: a monotone number function would otherwise give one
        // per grid point and category.
        let seq_weak = matches!(transform, Transform::Seq { .. } | Transform::Text { .. })
            || sig.output == Kind::Bool;
        // Of a function of several parameters, one number moved a step (`tau` halved, `p`
        // less one) with the others kept: how the result moves with it (monotone in `tau`),
        // under any guard, since such a step often leaves the domain on part of the inputs
        // (`p - 1` at `p = 0`).
        let scalar_weak = sig.params.len() > 1 && transform.is_scalar_step();
        let fit = |on: &[usize], g: Option<Guard>| {
            let applies = g.is_none_or(|g| matches!(g, Guard::NonEmpty(_) | Guard::Several(_)));
            let weak = (seq_weak && applies) || scalar_weak;
            forms_on(sig, obs, t, transform, on, weak)
        };
        // Where the follow-up's own integer arithmetic leaves its type (`n * n` of a large
        // `n`), there is no follow-up to judge: the relation is sought on the others, and
        // claimed, checked, where the arithmetic fits (`Transform::fits_text`).
        let made: Vec<usize> = match transform.fits_text(sig) {
            Some(_) => scope
                .all
                .iter()
                .copied()
                .filter(|&i| {
                    obs[i].follow[t].output.is_some() || !transform.overflows(sig, &obs[i].input)
                })
                .collect(),
            None => scope.all.clone(),
        };
        let narrowed;
        let scope = if made.len() == scope.all.len() {
            &scope
        } else if scope.distinct(&made) >= scope.min_inputs {
            narrowed = Scope {
                obs: scope.obs.clone(),
                keys: scope.keys.clone(),
                all: made,
                min_inputs: scope.min_inputs,
            };
            &narrowed
        } else {
            continue;
        };
        let holds = |f: &Form, i: usize| pair(obs, i, t).is_some_and(|p| f.holds(&p));
        // A period was found on one sign category, moving away from zero (`period`): it is
        // claimed there, and the inputs within a step of zero, whose follow-up crosses to
        // the other side, are all it needs to fail on outside.
        let category = match period_of(sig, transform) {
            Some(guards) => scope.category_with(&guards, fit, holds, |failed, _| failed > 0),
            None => scope.category(&guards, fit, holds),
        };
        let Some((guard, forms, on)) = category else {
            continue;
        };
        let Some(guard) = pasted_guard(sig, transform, guard) else {
            continue;
        };
        let coincidence = unchanged_by_coincidence(guard, transform);
        // The whole input moved together under a guard of one parameter's sign: the guard
        // says nothing of the others (a clamp's `x >= 0` kept `x` in its bounds only by the
        // values seen).
        if matches!(transform, Transform::AllMoved { .. })
            && guard.is_some_and(|g| !matches!(g, Guard::NonEmpty(_) | Guard::Several(_)))
        {
            continue;
        }
        let forms: Vec<Form> = if coincidence {
            forms.into_iter().filter(|f| !f.is_identity()).collect()
        } else {
            forms
        };
        let mut scored: Vec<(Form, usize, Catches, usize)> = forms
            .into_iter()
            .map(|form| {
                let (detects, catches, perturbations) = detections(sig.output, obs, t, &on, &form);
                (form, detects, catches, perturbations)
            })
            .collect();
        // Of several weak forms of one transformation, the one that catches most says enough.
        if scored.len() > 1 {
            let best = scored.iter().map(|s| s.1).max().unwrap_or(0);
            let first = scored.iter().position(|s| s.1 == best).unwrap_or(0);
            scored = vec![scored.swap_remove(first)];
        }
        for (form, detects, catches, perturbations) in scored {
            let tolerance = on
                .iter()
                .filter_map(|&i| pair(obs, i, t))
                .map(|p| form.needed_tolerance(&p))
                .fold(0.0, f64::max);
            found.push(Found {
                subject: Subject::Follow {
                    transform: t,
                    center,
                    form,
                },
                guard,
                inputs: scope.distinct(&on),
                held: on.len(),
                detects,
                catches,
                perturbations,
                tolerance,
                projection: None,
            });
        }
    }
    found.extend(monotone(sig, transforms, &scope));
    found.extend(properties(sig, transforms, &scope));
    found.extend(joint(sig, transforms, &scope, &guards));
    found.extend(recurrences(sig, transforms, &scope, &guards));
    found.extend(compositions(sig, transforms, &scope, &guards));
    found.extend(images(sig, &scope));
    found.extend(constants(sig, transforms, &scope));
    found.retain(|f| f.detects > 0);
    found
}

/// Of a translation by a period found on the inputs (`Signature::periods`), the guards of
/// the sign category it was found on, the wider first.
fn period_of(sig: &Signature, transform: &Transform) -> Option<[Guard; 2]> {
    let Transform::Affine { param, a, b } = *transform else {
        return None;
    };
    let step = sig
        .periods
        .iter()
        .find(|&&(q, step)| q == param && a == 1.0 && step as f64 == b.value)?
        .1;
    Some(match step > 0 {
        true => [Guard::NonNegative(param), Guard::Positive(param)],
        false => [Guard::NonPositive(param), Guard::Negative(param)],
    })
}

/// Whether the observation's integer result is `a·y1 + b·y2` of its follow-ups `first` and
/// `second`, exactly.
fn recurs(o: &Observation, first: usize, second: usize, a: i8, b: i8) -> bool {
    match (&o.output, &o.follow[first].output, &o.follow[second].output) {
        (Value::Int(y), Some(Value::Int(y1)), Some(Value::Int(y2))) => {
            let sum = y1
                .checked_mul(a.into())
                .zip(y2.checked_mul(b.into()))
                .and_then(|(p, q)| p.checked_add(q));
            sum == Some(*y)
        }
        // As a pasted relation compares the sum with the result: a sum of large terms that
        // cancel is as far off as its rounding makes it.
        (Value::Float(y), Some(Value::Float(y1)), Some(Value::Float(y2))) => {
            let sum = f64::from(a) * y1 + f64::from(b) * y2;
            sum.is_finite() && super::form::pasted_eq(sum, *y)
        }
        _ => false,
    }
}

/// Whole coefficients a recurrence is tried with, the simplest first.
const RECURRENCE: [(i8, i8); 6] = [(1, 1), (1, -1), (-1, 1), (2, -1), (-1, 2), (2, 1)];

/// Recurrences: the result as a sum of two runs with whole coefficients. Of an integer
/// result, on inputs whose integer indices are one or two less (one, or two together:
/// Pascal's rule); of a float result, on inputs one of whose numbers is one more or one less
/// (`beta(a + 1.0, b) + beta(a, b + 1.0) == result`).
fn recurrences(
    sig: &Signature,
    transforms: &[Transform],
    scope: &Scope<'_>,
    guards: &[Guard],
) -> Vec<Found> {
    let float = match sig.output {
        Kind::Int => false,
        Kind::Float => true,
        _ => return Vec::new(),
    };
    let obs = &scope.obs;
    let steps: Vec<usize> = transforms
        .iter()
        .enumerate()
        .filter(|(_, t)| match **t {
            Transform::Affine { a, b, param } if float => {
                a == 1.0
                    && b.value.abs() == 1.0
                    && b.name.is_none()
                    && sig.params[param].kind == Kind::Float
            }
            Transform::Affine { a, b, .. } => a == 1.0 && (b.value == -1.0 || b.value == -2.0),
            Transform::BothDown { .. } => !float,
            _ => false,
        })
        .map(|(i, _)| i)
        .collect();
    let mut out = Vec::new();
    for (k, &first) in steps.iter().enumerate() {
        for &second in &steps[k + 1..] {
            let fit = |on: &[usize], _| {
                RECURRENCE
                    .into_iter()
                    .find(|&(a, b)| on.iter().all(|&i| recurs(obs[i], first, second, a, b)))
                    .into_iter()
                    .collect()
            };
            let holds = |&(a, b): &(i8, i8), i: usize| recurs(obs[i], first, second, a, b);
            let Some((guard, forms, on)) = scope.category(guards, fit, holds) else {
                continue;
            };
            for (a, b) in forms {
                // A constant meets `y = a·y + b·y` when `a + b = 1`: such a recurrence must
                // hold where the runs differ, not only where the function is flat.
                if i16::from(a) + i16::from(b) == 1 && !scope.telling(&on, [first, second]) {
                    continue;
                }
                let subject = Subject::Recurrence {
                    first,
                    second,
                    a,
                    b,
                };
                let holds = |o: &Observation| recurs(o, first, second, a, b);
                out.push(exact_on_runs(
                    sig,
                    scope,
                    subject,
                    [first, second],
                    guard,
                    &on,
                    holds,
                ));
            }
        }
    }
    out
}

/// A relation between the original run and the follow-ups `runs`, judged exactly (`holds`),
/// held on the observations `on` under `guard`: which wrong outputs break it, each given to
/// every run's result.
fn exact_on_runs(
    sig: &Signature,
    scope: &Scope<'_>,
    subject: Subject,
    runs: [usize; 2],
    guard: Option<Guard>,
    on: &[usize],
    holds: impl Fn(&Observation) -> bool,
) -> Found {
    let obs = &scope.obs;
    let (list, first_result, scale) = perturbations(sig.output, obs, on);
    let (detects, catches) = caught(&list, on, obs.len(), |p, i| {
        let o = obs[i];
        let wrong =
            |y: &Value, probe: f64, size: usize| p.apply(y, first_result, scale, probe, size);
        let mut moved = (*o).clone();
        moved.output = wrong(&o.output, o.probe, o.size);
        for t in runs {
            let f = &o.follow[t];
            let Some(y) = &f.output else {
                return false;
            };
            moved.follow[t].output = Some(wrong(y, f.probe, f.size));
        }
        !holds(&moved)
    });
    Found {
        subject,
        guard,
        inputs: scope.distinct(on),
        held: on.len(),
        detects,
        catches,
        perturbations: counted(&list),
        tolerance: 0.0,
        projection: None,
    }
}

/// `y' = y` for results of `kind`.
fn identity(kind: Kind) -> Form {
    let one = Const::lit(1.0);
    let zero = Const::lit(0.0);
    match kind {
        Kind::Float | Kind::Int | Kind::Bool => Form::Affine {
            alpha: one,
            beta: zero,
        },
        Kind::FloatSeq | Kind::IntSeq => Form::SeqAffine {
            alpha: one,
            beta: zero,
        },
        Kind::Str => Form::Text(TextForm::Same),
        Kind::Char | Kind::List | Kind::Record | Kind::Option | Kind::Result => Form::Same,
    }
}

/// Whether the observation's follow-ups `nested` and `direct` gave the same result.
fn agree(kind: Kind, o: &Observation, nested: usize, direct: usize) -> bool {
    let (inner, outer) = (&o.follow[nested], &o.follow[direct]);
    match (&inner.output, &outer.output) {
        (Some(y2), Some(y)) => identity(kind).holds(&Pair {
            y,
            y2,
            n: outer.noise,
            n2: inner.noise,
            len: 0,
            input: &o.input,
        }),
        _ => false,
    }
}

/// Compositions: the function applied to its own result with another parameter set to `c`,
/// against one call with that parameter `c` times or `c` more (`pow(pow(x, n), 2) ==
/// pow(x, 2 * n)`, `rotate(rotate(xs, n), 1) == rotate(xs, n + 1)`).
fn compositions(
    sig: &Signature,
    transforms: &[Transform],
    scope: &Scope<'_>,
    guards: &[Guard],
) -> Vec<Found> {
    let obs = &scope.obs;
    let mut out = Vec::new();
    for (nested, t) in transforms.iter().enumerate() {
        for outer in t.composed() {
            let Some(direct) = transforms.iter().position(|u| *u == outer) else {
                continue;
            };
            let holds = |_: &(), i: usize| agree(sig.output, obs[i], nested, direct);
            let fit = |on: &[usize], _| {
                on.iter()
                    .all(|&i| holds(&(), i))
                    .then_some(())
                    .into_iter()
                    .collect()
            };
            let Some((guard, forms, on)) = scope.category(guards, fit, holds) else {
                continue;
            };
            if forms.is_empty() || !scope.telling(&on, [nested, direct]) {
                continue;
            }
            let subject = Subject::Compose { nested, direct };
            let holds = |o: &Observation| agree(sig.output, o, nested, direct);
            out.push(exact_on_runs(
                sig,
                scope,
                subject,
                [nested, direct],
                guard,
                &on,
                holds,
            ));
        }
    }
    out
}

/// Relations of the result through another function of the crate: each held on every
/// observation and every follow-up run, on `min_inputs` distinct inputs, and where a
/// parameter can stand for the result, failed with it there at least once (a predicate
/// every input already meets says nothing the function did). Claimed for all inputs alone:
/// what another function sees of a result is no bound a category of inputs keeps.
fn images(sig: &Signature, scope: &Scope<'_>) -> Vec<Found> {
    let obs = &scope.obs;
    let on = &scope.all;
    let relations = Image::all(sig);
    let mut out = Vec::new();
    // Judged once each: a twin at the input turned reads the others'.
    let held: Vec<bool> = relations
        .iter()
        .enumerate()
        .map(|(k, &m)| on.iter().all(|&i| image_held(obs[i], k, m)))
        .collect();
    for (k, &m) in relations.iter().enumerate() {
        let run = |i: usize| obs[i].images.get(k);
        // The scope holds `min_inputs` distinct inputs already.
        if !held[k] {
            continue;
        }
        // A twin at the input turned says no more where one at the input held (`g` even or
        // odd, as `cos` and `sin` are).
        let at_input = |r: &Image| {
            matches!(
                r,
                Image::Twin {
                    at: TwinAt::Input,
                    ..
                }
            )
        };
        if m.at() != TwinAt::Input
            && relations
                .iter()
                .zip(&held)
                .any(|(r, &h)| h && at_input(r) && r.sibling() == m.sibling())
        {
            continue;
        }
        // The input passed through as the result, where a parameter can stand for it: it
        // must fail the relation somewhere, and is then a wrong output it catches.
        let echo = m.echo(sig);
        let shown = match m {
            Image::Alike { param, .. } => on.iter().any(|&i| obs[i].output != obs[i].input[param]),
            _ => {
                echo.is_none()
                    || on
                        .iter()
                        .any(|&i| run(i).is_some_and(|r| r.echo == Some(false)))
            }
        };
        if !shown {
            continue;
        }
        let (list, _, _) = perturbations(sig.output, obs, on);
        let (mut detects, catches) = caught(&list, on, obs.len(), |p, i| {
            let at = list.iter().position(|&q| q == p);
            run(i)
                .and_then(|r| r.wrong.get(at?).copied().flatten())
                .is_some_and(|held| !held)
        });
        // The echo, as for a property of a text result: shown above, so caught.
        let mut perturbations = counted(&list);
        if echo.is_some() {
            perturbations += 1;
            detects += 1;
        }
        // A bound no wrong result crosses says nothing of the function (a count never above
        // a far larger one).
        // Nor an inverse that is never finite where wrong results are given back, nor a
        // root that every wrong result is one of too.
        if matches!(
            m,
            Image::Bound { .. } | Image::Inverse { .. } | Image::Root { .. }
        ) && detects == 0
        {
            continue;
        }
        out.push(Found {
            subject: Subject::Image(m),
            guard: None,
            inputs: scope.distinct(on),
            held: on.len(),
            detects,
            catches,
            perturbations,
            tolerance: 0.0,
            projection: None,
        });
    }
    out
}

/// Whether the `k`th relation of [`Image::all`] held on the observation's result and on
/// every follow-up run it was judged on.
fn image_held(o: &Observation, k: usize, m: Image) -> bool {
    // A follow-up that left the function's domain (a float in its result not finite) shows
    // nothing of a relation of one call's result: a property is not judged there either.
    let outside = |f: &super::observe::Follow| f.output.as_ref().is_some_and(|y| !y.finite());
    // An inverse is judged on the calls themselves (the given ones, fresh ones near them and
    // those built to break it), not on follow-ups that move one argument far: at a period
    // count moved by a present value, to -2500, an inverse that divides by the growth loses
    // every digit of what it gives back. A root likewise: a solver's result is a root of
    // the arguments it was given.
    let inverse = matches!(m, Image::Inverse { .. } | Image::Root { .. });
    o.images.get(k).is_some_and(|run| run.held)
        && (inverse
            || o.follow
                .iter()
                .all(|f| outside(f) || f.images.get(k).is_none_or(|&held| held)))
}

/// The relations between three runs, per number parameter and second input: `f(x + y)` and
/// `f(x·y)` against `f(x)` and `f(y)`.
fn joint(
    sig: &Signature,
    transforms: &[Transform],
    scope: &Scope<'_>,
    guards: &[Guard],
) -> Vec<Found> {
    if !sig.output.is_number() {
        return Vec::new();
    }
    let obs = &scope.obs;
    let integral = sig.output == Kind::Int;
    let at = |t: &Transform| transforms.iter().position(|u| u == t);
    let mut out = Vec::new();
    for (param, p) in sig.params.iter().enumerate() {
        if !p.kind.is_number() {
            continue;
        }
        for (a, b) in PARTNERS {
            let Some(partner) = at(&Transform::Affine { param, a, b }) else {
                continue;
            };
            let sum = at(&Transform::Affine {
                param,
                a: a + 1.0,
                b,
            });
            let product = at(&Transform::Product { param, a, b });
            for combined in [sum, product].into_iter().flatten() {
                let triple = |i: usize| -> Option<Triple<'_>> {
                    let o = obs[i];
                    let (f2, f3) = (&o.follow[partner], &o.follow[combined]);
                    Some(Triple {
                        y: &o.output,
                        y2: f2.output.as_ref()?,
                        y3: f3.output.as_ref()?,
                        n: [o.noise, f2.noise, f3.noise],
                    })
                };
                let fit = |on: &[usize], _| {
                    let Some(all) = on.iter().map(|&i| triple(i)).collect::<Option<Vec<_>>>()
                    else {
                        return Vec::new();
                    };
                    let half: Vec<Triple<'_>> = all.iter().step_by(2).copied().collect();
                    triple::fit(&half, &all, integral).into_iter().collect()
                };
                let holds = |j: &Joint, i: usize| triple(i).is_some_and(|t| j.holds(&t));
                let Some((guard, forms, on)) = scope.category(guards, fit, holds) else {
                    continue;
                };
                // Under another parameter's sign, a coincidence of the values seen (a clamp's
                // bound scaled while its value, in range, is the result), as for two runs.
                if guard.is_some_and(|g| g.param() != param) {
                    continue;
                }
                let (list, first, scale) = perturbations(sig.output, obs, &on);
                for form in forms {
                    let (detects, catches) = caught(&list, &on, obs.len(), |p, i| {
                        let o = obs[i];
                        let (f2, f3) = (&o.follow[partner], &o.follow[combined]);
                        let (Some(y2), Some(y3)) = (&f2.output, &f3.output) else {
                            return false;
                        };
                        let wrong = |y: &Value, probe: f64, size: usize| {
                            p.apply(y, first, scale, probe, size)
                        };
                        !form.holds(&Triple {
                            y: &wrong(&o.output, o.probe, o.size),
                            y2: &wrong(y2, f2.probe, f2.size),
                            y3: &wrong(y3, f3.probe, f3.size),
                            n: [o.noise, f2.noise, f3.noise],
                        })
                    });
                    let tolerance = on
                        .iter()
                        .filter_map(|&i| triple(i))
                        .map(|t| form.needed_tolerance(&t))
                        .fold(0.0, f64::max);
                    out.push(Found {
                        subject: Subject::Joint {
                            partner,
                            combined,
                            form,
                        },
                        guard,
                        inputs: scope.distinct(&on),
                        held: on.len(),
                        detects,
                        catches,
                        perturbations: counted(&list),
                        tolerance,
                        projection: None,
                    });
                }
            }
        }
    }
    out
}

/// Elements of follow-up inputs made again for a bound's evidence, at most: beyond them (long
/// sequences, many observations) only the original runs are judged.
pub(super) const REMADE_ELEMENTS: usize = 1 << 22;

/// Every result an observation holds with the input it came from: the original's, and each
/// follow-up's whose input can be made again (a permutation's cannot: its seed is not kept)
/// while `budget` elements last.
pub(super) fn results<'a>(
    transforms: &[Transform],
    o: &'a Observation,
    budget: &mut usize,
) -> Vec<(std::borrow::Cow<'a, [Value]>, &'a Value, f64)> {
    let mut out = vec![(std::borrow::Cow::Borrowed(&o.input[..]), &o.output, o.noise)];
    for (t, f) in transforms.iter().zip(&o.follow) {
        let permutes = matches!(
            t,
            Transform::Seq {
                op: SeqOp::Permute,
                ..
            } | Transform::SeqThen {
                first: SeqOp::Permute,
                ..
            }
        );
        if let (Some(y), false) = (&f.output, permutes) {
            if f.size > *budget {
                break;
            }
            if let Some(input) = t.apply(&o.input, f.center, 0) {
                *budget -= f.size;
                out.push((std::borrow::Cow::Owned(input), y, f.noise));
            }
        }
    }
    out
}

/// How close to zero the results of the live calls must come, relative to their median
/// size, for an unguarded strict sign to be claimed on the evidence of an observed gap: a
/// function that visibly stays away from zero (`cosh >= 1`) is strictly positive; one whose
/// results come near zero and just did not reach it on the inputs seen (a distance) may.
const SIGN_GAP: f64 = 0.005;

/// Whether the results of `on` keep a visible gap from zero: the smallest is at least
/// [`SIGN_GAP`] of the median size.
fn clear_of_zero(obs: &[&Observation], on: &[usize]) -> bool {
    let mut sizes: Vec<f64> = on
        .iter()
        .filter_map(|&i| obs[i].output.number())
        .map(f64::abs)
        .collect();
    if sizes.is_empty() {
        return false;
    }
    sizes.sort_by(f64::total_cmp);
    sizes[0] >= SIGN_GAP * sizes[sizes.len() / 2]
}

/// Whether `prop` fails at the origin of some observation of `on` ([`Transform::Origin`]: every
/// float number zero) whose input `guard` admits and whose result there is a finite number.
fn broken_at_origin(
    transforms: &[Transform],
    obs: &[&Observation],
    on: &[usize],
    guard: Option<Guard>,
    prop: Property,
) -> bool {
    let Some(t) = transforms.iter().position(|t| *t == Transform::Origin) else {
        return false;
    };
    on.iter().any(|&i| {
        let (o, f) = (obs[i], &obs[i].follow[t]);
        let Some(y) = f
            .output
            .as_ref()
            .filter(|y| y.number().is_some_and(f64::is_finite))
        else {
            return false;
        };
        Transform::Origin
            .apply(&o.input, None, 0)
            .is_some_and(|input| {
                guard.is_none_or(|g| g.holds(&input)) && !prop.holds(&input, y, f.noise)
            })
    })
}

/// The properties of the result that hold on every live call or on one category of them; of
/// a strict and a loose one under the same guard, the strict one. A property is judged on the
/// calls observed: the results the program produced need no follow-up input, and a follow-up
/// the program never sends (a negated geometric mean's input) says nothing of them. A strict
/// sign with no guard of its own is claimed only where the results keep a visible gap from
/// zero ([`clear_of_zero`]); elsewhere the loose one is. A bound by the input (a parameter,
/// or a sequence's range), which a few values can satisfy by chance (`hash(x) <= x` for
/// `x >= 1`), must also hold on every follow-up run with a number for a result under the same
/// guard.
fn properties(sig: &Signature, transforms: &[Transform], scope: &Scope<'_>) -> Vec<Found> {
    let obs = &scope.obs;
    // Every observation's runs, made again once, when a bound first needs them.
    let runs: std::cell::OnceCell<Vec<Vec<_>>> = std::cell::OnceCell::new();
    let (wide, narrow) = (Guard::all(sig), Guard::narrow_first(sig));
    let mut out: Vec<Found> = Vec::new();
    let mut candidates = Property::all(sig);
    // The punctuation and spaces the live inputs hold and their results never do.
    if candidates.iter().any(Property::of_text) {
        let live = || scope.all.iter().map(|&i| obs[i]);
        if let Some(set) = CharClass::missing(
            live().map(|o| o.input.as_slice()),
            live().map(|o| &o.output),
        ) {
            candidates.insert(0, Property::Lacks(set));
        }
    }
    for prop in candidates {
        let strict = matches!(prop, Property::Sign(Cmp::Above | Cmp::Below));
        // Only a strict sign needs the narrower guard of a tie.
        let guards = if strict { &narrow } else { &wide };
        // A property is claimed only for the kinds of input seen: when every input fell in one
        // category (all positive, all non-empty), under that category's guard. Not a number or
        // a sequence being non-zero: that separates, but it is no domain anyone chose.
        let cover = guards
            .iter()
            .filter(|g| !matches!(g, Guard::NonZero(_) | Guard::SomeNonZero(_)))
            .find(|g| scope.all.iter().all(|&i| g.holds(&obs[i].input)))
            .copied();
        let has = |i: usize| prop.holds(&obs[i].input, &obs[i].output, obs[i].noise);
        // What a text result lacks is judged as widely: a follow-up's input (a reversed or
        // repeated string) is as much the function's as a live one.
        let bound = prop.bounds_by_input() || prop.of_text();
        // A follow-up's input can lie far from any the program sends (`x·(x + 1)` of a
        // coordinate of 1e4), where the function's own rounding, not its shape, can take a
        // result a hair past the bound (a nearly straight curve's length a millionth under its
        // chord): within the tolerance a pasted relation is checked with, it holds there.
        let within_tolerance = |input: &[Value], y: &Value| {
            prop.needed_tolerance(input, y) <= crate::config::DEFAULT_TOLERANCE
        };
        // On every follow-up run of `on` under `guard` whose result is a number, or numbers.
        let widely = |on: &[usize], guard: Option<Guard>| {
            let runs = runs.get_or_init(|| {
                let mut budget = REMADE_ELEMENTS;
                obs.iter()
                    .map(|o| results(transforms, o, &mut budget))
                    .collect()
            });
            on.iter().all(|&i| {
                runs[i]
                    .iter()
                    .filter(|(input, y, _)| {
                        let finite = y.number().is_some_and(f64::is_finite)
                            || y.elements()
                                .is_some_and(|e| e.iter().all(|x| x.is_finite()))
                            || matches!(y, Value::Str(_) | Value::Char(_));
                        finite && guard.is_none_or(|g| g.holds(input))
                    })
                    .all(|(input, y, noise)| {
                        prop.holds(input, y, *noise) || within_tolerance(input, y)
                    })
            })
        };
        let fit = |on: &[usize], guard: Option<Guard>| {
            if on.iter().all(|&i| has(i)) && (!bound || widely(on, guard.or(cover))) {
                vec![prop]
            } else {
                Vec::new()
            }
        };
        let Some((guard, _, on)) = scope.category(guards, fit, |_, i| has(i)) else {
            continue;
        };

        // A bound by a parameter that holds on one category only is a coincidence of the
        // values seen (`sin(x) >= x` for `x < 0`), not the function's shape.
        // The input's range is the exception: under a guard that rules out an empty input it
        // is the function's shape (below). So are defining bounds, two-sided and tight: values
        // meet `L(r) <= x < L(r + 1)` by chance on no category (a floored quotient's by a
        // positive divisor).
        let exempt = matches!(prop, Property::Between(_) | Property::Bracket { .. });
        if guard.is_some() && bound && !exempt {
            continue;
        }
        // A text result without a class says something only of inputs that hold it.
        if prop.of_text() {
            let shown: Vec<usize> = on
                .iter()
                .copied()
                .filter(|&i| prop.shown_by(&obs[i].input, &obs[i].output))
                .collect();
            if scope.distinct(&shown) < scope.min_inputs {
                continue;
            }
        }
        if strict && guard.is_none() && !clear_of_zero(obs, &on) {
            continue;
        }
        // A range the results come near and crowd toward: of results that all lie near its
        // middle, a narrower one holds that no end a person names marks. Of all the calls: on
        // one category of them, their sign says as much.
        if let Property::Range(span) = prop {
            if guard.is_some() {
                continue;
            }
            let ys: Vec<f64> = on.iter().filter_map(|&i| obs[i].output.number()).collect();
            if !span.shown_by(&ys) {
                continue;
            }
        }
        // Where `None` falls, only where the inputs show both variants, and for every input:
        // of inputs that are never empty it says nothing the function was seen to do.
        if let Property::NoneWhenEmpty(_) | Property::NoneWhenLengthsDiffer(..) = prop {
            let has = |i: &usize| obs[*i].output.inner().is_some_and(|v| v.is_some());
            if guard.is_some() || on.iter().all(has) || !on.iter().any(has) {
                continue;
            }
        }
        let guard = match (prop, guard.or(cover)) {
            // `smallest(xs)` panics on an empty `xs`: the guard must rule it out.
            (Property::Between(p), g) if !g.is_some_and(|g| g.rules_out_empty(p)) => {
                if guard.is_some() {
                    continue;
                }
                Some(Guard::NonEmpty(p))
            }
            (_, g) => g,
        };
        // A strict sign the origin breaks (a distance between points that coincide) is the
        // loose one's: the live calls only never reached the boundary.
        if strict && broken_at_origin(transforms, obs, &on, guard, prop) {
            continue;
        }
        // `x <= 0 => result <= 0` beside `x < 0 => result < 0` says little more.
        let implied = out
            .iter()
            .any(|f| matches!(f.subject, Subject::Property(s) if prop.follows_from(s)));
        if implied {
            continue;
        }
        let (detects, catches, perturbations) = property_catches(sig, obs, &on, prop);
        let tolerance = on
            .iter()
            .map(|&i| prop.needed_tolerance(&obs[i].input, &obs[i].output))
            .fold(0.0, f64::max);
        out.push(Found {
            subject: Subject::Property(prop),
            guard,
            inputs: scope.distinct(&on),
            held: on.len(),
            detects,
            catches,
            perturbations,
            tolerance,
            projection: None,
        });
    }
    out
}

/// Which wrong outputs `prop` catches on the observations `on` of `obs`: how many, on which,
/// of how many.
fn property_catches(
    sig: &Signature,
    obs: &[&Observation],
    on: &[usize],
    prop: Property,
) -> (usize, Catches, usize) {
    let (list, first, scale) = perturbations(sig.output, obs, on);
    let (mut detects, catches) = caught(&list, on, obs.len(), |p, i| {
        let o = obs[i];
        let y = p.apply(&o.output, first, scale, o.probe, o.size);
        !prop.holds(&o.input, &y, o.noise)
    });
    // Of a text result, one more wrong output: the input passed through, which a
    // conversion left undone gives, and which only what the result lacks tells apart.
    let mut perturbations = counted(&list);
    if let Some(echo) = echoed(sig) {
        perturbations += 1;
        let input = |i: usize| &obs[i].input;
        if on
            .iter()
            .any(|&i| !prop.holds(input(i), &input(i)[echo], 0.0))
        {
            detects += 1;
        }
    }
    (detects, catches, perturbations)
}

/// `f`, a property of the whole result, made `prop`: what it catches judged again on `obs`,
/// the observations the search was given (a strict sign made loose catches no zero).
pub(super) fn as_property(
    sig: &Signature,
    transforms: &[Transform],
    obs: &[Observation],
    f: &Found,
    prop: Property,
) -> Option<Found> {
    if f.projection.is_some() {
        return None;
    }
    let scope = scope_of(sig, transforms, obs, 1)?;
    let on: Vec<usize> = scope
        .all
        .iter()
        .copied()
        .filter(|&i| {
            let o = scope.obs[i];
            f.guard.is_none_or(|g| g.holds(&o.input)) && prop.holds(&o.input, &o.output, o.noise)
        })
        .collect();
    if on.is_empty() {
        return None;
    }
    let (detects, catches, perturbations) = property_catches(sig, &scope.obs, &on, prop);
    Some(Found {
        subject: Subject::Property(prop),
        detects,
        catches,
        perturbations,
        ..f.clone()
    })
}

/// What the result is on a class of inputs (by a digit, a class of characters or a small
/// value; see `constant`), judged on the live calls and every follow-up run made again, whose
/// inputs are the function's as much: a class needs `min_inputs` distinct inputs among them,
/// and a live call in it on which the relation catches a wrong output.
fn constants(sig: &Signature, transforms: &[Transform], scope: &Scope<'_>) -> Vec<Found> {
    // No run is made again where no class could be found.
    if !constant::applies(sig) {
        return Vec::new();
    }
    let obs = &scope.obs;
    let mut budget = REMADE_ELEMENTS;
    let made: Vec<Vec<_>> = scope
        .all
        .iter()
        .map(|&i| results(transforms, obs[i], &mut budget))
        .collect();
    // The first of each observation's runs is its live call's. Of a part of the result (the
    // value inside `Some`), a run whose whole result has none is no run of the part.
    let runs: Vec<(&[Value], &Value, bool)> = made
        .iter()
        .flat_map(|runs| {
            runs.iter()
                .enumerate()
                .map(|(k, (input, y, _))| (input.as_ref(), *y, k == 0))
        })
        .filter(|(_, y, _)| y.kind() == sig.output)
        .collect();
    let mut out = Vec::new();
    for (guard, prop) in constant::classes(sig, &runs) {
        let distinct: HashSet<String> = runs
            .iter()
            .filter(|(input, _, _)| guard.holds(input))
            .map(|(input, _, _)| format!("{input:?}"))
            .collect();
        if distinct.len() < scope.min_inputs {
            continue;
        }
        out.extend(on_class(sig, guard, prop, obs, &scope.all, distinct.len()));
    }
    out
}

/// That the result is `prop` on the class `guard`, judged on the observations `all` of
/// `obs` (`None` where none is in the class), shown by `distinct` inputs: a wrong version
/// gives, on the class, what the function gives outside it (`Some` where it gives `None`).
pub(super) fn on_class(
    sig: &Signature,
    guard: Guard,
    prop: Property,
    obs: &[&Observation],
    all: &[usize],
    distinct: usize,
) -> Option<Found> {
    let on: Vec<usize> = all
        .iter()
        .copied()
        .filter(|&i| guard.holds(&obs[i].input))
        .collect();
    if on.is_empty() {
        return None;
    }
    let (list, first, scale) = perturbations(sig.output, obs, &on);
    let first = all
        .iter()
        .find(|&&i| !guard.holds(&obs[i].input) && !prop.holds(&obs[i].input, &obs[i].output, 0.0))
        .map_or(first, |&i| &obs[i].output);
    let (detects, catches) = caught(&list, &on, obs.len(), |p, i| {
        let o = obs[i];
        let y = p.apply(&o.output, first, scale, o.probe, o.size);
        !prop.holds(&o.input, &y, o.noise)
    });
    Some(Found {
        subject: Subject::Property(prop),
        guard: Some(guard),
        inputs: distinct,
        held: on.len(),
        detects,
        catches,
        perturbations: counted(&list),
        tolerance: 0.0,
        projection: None,
    })
}

/// The parameter whose value, passed through as the result, is the wrong output
/// [`properties`] adds for a text result: the first of the result's own kind.
fn echoed(sig: &Signature) -> Option<usize> {
    if !matches!(sig.output, Kind::Str | Kind::Char) {
        return None;
    }
    sig.params.iter().position(|p| p.kind == sig.output)
}

/// Strict monotonicity in one number parameter, `f(x + 1) > result` or `<`, whether or not an
/// equality holds for that shift: unlike the equalities (which `0` satisfies whenever it is a
/// fixed point of the output relation), it fails for every constant function.
fn monotone(sig: &Signature, transforms: &[Transform], scope: &Scope<'_>) -> Vec<Found> {
    let (obs, all) = (&scope.obs, &scope.all);
    if !sig.output.is_number() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (t, transform) in transforms.iter().enumerate() {
        let Transform::Affine { a, b, .. } = transform else {
            continue;
        };
        if *a != 1.0 || b.value != 1.0 {
            continue;
        }
        let Some(pairs) = all
            .iter()
            .map(|&i| pair(obs, i, t))
            .collect::<Option<Vec<Pair<'_>>>>()
        else {
            continue;
        };
        for form in [Form::Above, Form::Below] {
            if !pairs.iter().all(|p| form.holds(p)) {
                continue;
            }
            let (detects, catches, perturbations) = detections(sig.output, obs, t, all, &form);
            out.push(Found {
                subject: Subject::Follow {
                    transform: t,
                    center: None,
                    form,
                },
                guard: None,
                inputs: scope.distinct(all),
                held: all.len(),
                detects,
                catches,
                perturbations,
                tolerance: 0.0,
                projection: None,
            });
        }
    }
    out
}

fn pair<'a>(obs: &[&'a Observation], i: usize, t: usize) -> Option<Pair<'a>> {
    let o = obs[i];
    let f = &o.follow[t];
    Some(Pair {
        y: &o.output,
        y2: f.output.as_ref()?,
        n: o.noise,
        n2: f.noise,
        len: o.size,
        input: &o.input,
    })
}

/// The reflection point every observation agrees on, if they do.
fn common_center(obs: &[&Observation], t: usize) -> Option<f64> {
    let cs: Vec<f64> = obs
        .iter()
        .map(|o| o.follow[t].center)
        .collect::<Option<_>>()?;
    let first = *cs.first()?;
    let close = |c: f64, d: f64| (c - d).abs() <= 1e-9 * d.abs().max(1.0);
    // A point the grid already reflects about (`-x`, `π - x`) is the grid's relation: what is
    // solved there is the same point plus rounding, and would print as noise (`5.4e-20 - x`).
    if FLOAT_B.iter().any(|b| close(first, b.value)) {
        return None;
    }
    cs.iter().all(|&c| close(c, first)).then_some(first)
}

/// `y' = c`, the first follow-up's value: a follow-up that gives one value whatever the
/// original result, to be checked on every pair.
fn constant_follow_up(pairs: &[Pair<'_>]) -> Option<Form> {
    let c = pairs.first()?.y2.number()?;
    Some(Form::Affine {
        alpha: Const::lit(0.0),
        beta: Const::lit(c),
    })
}

/// The forms that relate a number follow-up to the input rather than by constants: at a
/// special value of a parameter, a constant or another parameter; elsewhere, another
/// parameter as the result's coefficient or offset.
fn by_input(sig: &Signature, transform: &Transform, pairs: &[Pair<'_>]) -> Vec<Form> {
    let numbers = (0..sig.params.len()).filter(|&q| sig.params[q].kind.is_number());
    match *transform {
        // Against the empty string, another's length (a distance's).
        Transform::Text {
            param,
            op: TextOp::Emptied,
        } if sig.output == Kind::Int => (0..sig.params.len())
            .filter(|&q| q != param && sig.params[q].kind == Kind::Str)
            .map(Form::LenOf)
            .collect(),
        Transform::Special { param, .. } | Transform::Copy { param, .. } => {
            let others: Vec<usize> = numbers.filter(|&q| q != param).collect();
            // A power of another argument only of a float result: an integer one is judged
            // exactly, and its constants would be fractions.
            let single = single_precision(pairs.iter().filter_map(|p| p.y2.number()));
            let powers = others
                .iter()
                .filter(|_| sig.output == Kind::Float)
                .flat_map(|&q| param_powers(pairs, q, single));
            constant_follow_up(pairs)
                .into_iter()
                .chain(others.iter().map(|&q| Form::Param(q)))
                .chain(powers)
                .collect()
        }
        Transform::OnResult { .. } => Vec::new(),
        // A float parameter is no coefficient of an integer result.
        // An integer plus one only where it is the parameter moved one up: the next factor
        // of a product, whose follow-up's own guard keeps `n + 1` in its type.
        _ => numbers
            .filter(|&q| sig.output != Kind::Int || sig.params[q].kind == Kind::Int)
            .flat_map(|param| {
                let stepped = sig.params[param].kind == Kind::Float
                    || matches!(*transform, Transform::Affine { param: p, a, b }
                        if p == param && a == 1.0 && b.value == 1.0);
                // A divisor only of a float result: an integer's quotient is rounded.
                let float = sig.output == Kind::Float;
                [
                    (By::Times, false),
                    (By::Times, true),
                    (By::Plus, false),
                    (By::Over, false),
                    (By::Over, true),
                ]
                .into_iter()
                .filter(move |&(by, plus_one)| (!plus_one || stepped) && (by != By::Over || float))
                .map(move |(by, plus_one)| Form::ByParam {
                    param,
                    by,
                    plus_one,
                })
            })
            .collect(),
    }
}

/// The weak forms of a sequence or a list that grew or was cut: inclusion and length.
const GROWN_OR_CUT: [Form; 5] = [
    Form::Subset,
    Form::Superset,
    Form::LenDelta(1),
    Form::LenDelta(-1),
    Form::LenDouble,
];

/// The output relations of transformation `t` that hold on every observation in `on`: the
/// first equality form that holds (fitted on every other observation, checked on all), and
/// every weaker form that holds too when no equality does.
fn forms_on(
    sig: &Signature,
    obs: &[&Observation],
    t: usize,
    transform: &Transform,
    on: &[usize],
    weak: bool,
) -> Vec<Form> {
    let Some(pairs) = on
        .iter()
        .map(|&i| pair(obs, i, t))
        .collect::<Option<Vec<Pair<'_>>>>()
    else {
        return Vec::new();
    };
    let fit: Vec<Pair<'_>> = pairs.iter().step_by(2).copied().collect();
    let holds = |f: &Form| pairs.iter().all(|p| f.holds(p));
    let integral = matches!(sig.output, Kind::Int | Kind::IntSeq);
    let mut out = Vec::new();
    match sig.output {
        Kind::Float | Kind::Int => {
            // An exact factor that depends on the length, before an inequality: a sample
            // variance's `(n - 1) / n` where its sample's mean joins it, which `<=` would blur.
            let one_seq = sig.params.iter().filter(|p| p.kind.is_seq()).count() == 1;
            if let Some(f) = fit_numeric(&fit, &pairs, integral) {
                out.push(f);
            } else if let Some(f) = (one_seq && !integral)
                .then(|| fit_len_ratio(&pairs))
                .flatten()
            {
                out.push(f);
            } else if let Some(f) = by_input(sig, transform, &pairs).into_iter().find(holds) {
                out.push(f);
            } else if weak {
                out.extend([Form::AtLeast, Form::AtMost].into_iter().filter(holds));
            }
        }
        Kind::Bool => {
            let same = Form::Affine {
                alpha: Const::lit(1.0),
                beta: Const::lit(0.0),
            };
            let negated = Form::Affine {
                alpha: Const::lit(-1.0),
                beta: Const::lit(1.0),
            };
            // One value at every follow-up, whatever the original result: what the function
            // says of every input so made (`!is_prime(n * n)`). Where the results agree it is
            // [`same`]'s or [`negated`]'s.
            if let Some(f) = [Some(same), Some(negated), constant_follow_up(&pairs)]
                .into_iter()
                .flatten()
                .find(holds)
            {
                out.push(f);
            } else if weak {
                out.extend([Form::AtLeast, Form::AtMost].into_iter().filter(holds));
            }
        }
        Kind::FloatSeq | Kind::IntSeq => {
            // A few elements added before or after, fitted on the first run.
            let affixed = match pairs.first() {
                Some(Pair {
                    y: Value::IntSeq(y),
                    y2: Value::IntSeq(t),
                    ..
                }) => Form::seq_affixed(y, t),
                _ => Vec::new(),
            };
            if let Some(f) = fit_elementwise(&fit, &pairs, integral) {
                out.push(f);
            } else if let Some(f) = affixed.into_iter().find(holds) {
                out.push(f);
            } else if holds(&Form::SeqReversed) {
                out.push(Form::SeqReversed);
            } else if holds(&Form::SeqTurned) {
                out.push(Form::SeqTurned);
            } else if holds(&Form::SeqPermutation) {
                out.push(Form::SeqPermutation);
            } else if weak {
                out.extend(GROWN_OR_CUT.into_iter().filter(holds));
            }
        }
        Kind::List => {
            if let Some(f) = [Form::Same, Form::SeqReversed, Form::SeqPermutation]
                .into_iter()
                .find(holds)
            {
                out.push(f);
            } else if weak {
                out.extend(GROWN_OR_CUT.into_iter().filter(holds));
            }
        }
        Kind::Char => out.extend([Form::Same, Form::SameIgnoringCase].into_iter().find(holds)),
        // A tuple or an array whose parts are of one type may come back with them in another
        // order (`tally(&invite::mr::invert(votes)) == (result.1, result.0)`), reversed or
        // turned one place (of three parts or more, where turning is no reversal).
        // An array's parts are written out by index, so only of a type a copy of which an
        // index gives (a number, a `bool`, a `char`); a tuple's by field, whatever they hold.
        // Not of a borrowed record, which a record written out is not.
        Kind::Record => {
            let array = sig.output_ty.starts_with('[');
            let copied = |t: &str| {
                matches!(t, "bool" | "char" | "f32" | "f64")
                    || super::signature::int_range(t) != (i128::MIN, i128::MAX)
                    || matches!(t, "i128" | "u128")
            };
            let parts = super::project::part_types(&sig.output_ty)
                .filter(|_| sig.output_ty.starts_with('(') || array)
                .filter(|t| t.len() > 1 && t.iter().all(|p| *p == t[0]))
                .filter(|t| !array || copied(&t[0]))
                .map_or(0, |t| t.len());
            out.extend(
                [Form::Same, Form::SeqReversed, Form::SeqTurned]
                    .into_iter()
                    .filter(|f| match f {
                        Form::Same => true,
                        Form::SeqReversed => parts > 1,
                        _ => parts > 2,
                    })
                    .find(holds),
            );
        }
        // The whole result, or where it is `None` (`Err`): the value inside has relations of
        // its own (see `project`).
        // Where `None` falls only where the inputs show both: of inputs that all have a value
        // it says no more than that the follow-ups have one too.
        Kind::Option | Kind::Result => {
            let has = |p: &Pair<'_>| p.y.inner().is_some_and(|v| v.is_some());
            let both = pairs.iter().any(has) && !pairs.iter().all(has);
            out.extend(
                [Form::Same, Form::SameVariant]
                    .into_iter()
                    .filter(|f| both || *f == Form::Same)
                    .find(holds),
            );
        }
        Kind::Str => {
            let (equal, inclusions): (Vec<TextForm>, Vec<TextForm>) =
                TextForm::ALL.into_iter().partition(|f| !f.is_weak());
            // The empty string is in every string: an inclusion of one that is empty on
            // every run is a tautology of the type (`result.starts_with(&f(""))`).
            let contained_somewhere = |f: &TextForm| {
                pairs.iter().any(|p| {
                    let inner = match f {
                        TextForm::Prefix | TextForm::Within => p.y2,
                        _ => p.y,
                    };
                    !matches!(inner, Value::Str(s) if s.is_empty())
                })
            };
            // A piece added before or after, fitted on the first run where some result is
            // not empty (of results all empty it would be a constant).
            let affixed = match (pairs.first(), contained_somewhere(&TextForm::Same)) {
                (
                    Some(Pair {
                        y: Value::Str(y),
                        y2: Value::Str(t),
                        ..
                    }),
                    true,
                ) => TextForm::affixed(y, t),
                _ => Vec::new(),
            };
            // The same digits, where a number was scaled by a power of the base its digits
            // are written in and some result shows digits. (Of a number negated they are
            // kept by any writing, and would hide what the sign does.)
            let moved_number = transform.is_decimal_scale();
            let shows_digits = pairs
                .iter()
                .any(|p| matches!(p.y, Value::Str(s) if s.chars().any(|c| c.is_ascii_digit())));
            let digits = (moved_number && shows_digits).then_some(TextForm::SameDigits);
            if let Some(f) = equal
                .into_iter()
                .chain(affixed)
                .chain(digits)
                .map(Form::Text)
                .find(holds)
            {
                out.push(f);
            } else if weak {
                out.extend(
                    inclusions
                        .into_iter()
                        .filter(contained_somewhere)
                        .map(Form::Text)
                        .filter(holds),
                );
            }
        }
    }
    out
}

/// The wrong outputs tried on the observations `on`, with the first result (what a constant
/// function returns) and a typical magnitude of the results (what a nudge is scaled by).
fn perturbations<'a>(
    kind: Kind,
    obs: &[&'a Observation],
    on: &[usize],
) -> (Vec<Perturbation>, &'a Value, f64) {
    let sized = obs[on[0]].input.iter().any(|v| v.kind().is_seq());
    let mags: Vec<f64> = on
        .iter()
        .flat_map(|&i| match &obs[i].output {
            Value::FloatSeq(xs) => xs.clone(),
            Value::IntSeq(xs) => xs.iter().map(|&x| x as f64).collect(),
            v => v.number().into_iter().collect(),
        })
        .filter(|x| x.is_finite())
        .map(f64::abs)
        .collect();
    let scale = median(mags).filter(|&m| m > 0.0).unwrap_or(1.0);
    (Perturbation::listed(kind, sized), &obs[on[0]].output, scale)
}

/// Which of the wrong outputs `list` the relation catches on which of the `n` observations:
/// `breaks(p, i)` says whether wrong output `p` breaks it on observation `i` (of `on`); and
/// how many of them it catches on one at least.
fn caught(
    list: &[Perturbation],
    on: &[usize],
    n: usize,
    breaks: impl Fn(Perturbation, usize) -> bool,
) -> (usize, Catches) {
    let mut catches = Catches::new(list.len(), n);
    for (k, &p) in list.iter().enumerate() {
        for &i in on {
            if breaks(p, i) {
                catches.set(k, i, n);
            }
        }
    }
    (catches.kinds(counted(list), n), catches)
}

/// How many of a list of wrong outputs count as such: all but the fixed constants at its end,
/// which only the representative set weighs.
fn counted(list: &[Perturbation]) -> usize {
    list.len() - Perturbation::FIXED.len()
}

/// Which perturbations of the output the relation catches on the observations `on`, how many,
/// of how many.
fn detections(
    kind: Kind,
    obs: &[&Observation],
    t: usize,
    on: &[usize],
    form: &Form,
) -> (usize, Catches, usize) {
    let (list, first, scale) = perturbations(kind, obs, on);
    let (detects, catches) = caught(&list, on, obs.len(), |p, i| {
        let o = obs[i];
        let f = &o.follow[t];
        let Some(y2) = &f.output else { return false };
        // A round trip feeds the wrong result back: its follow-up is the one run from it.
        let y2 = match f.wrong.is_empty() {
            true => y2,
            false => match list
                .iter()
                .position(|&q| q == p)
                .and_then(|k| f.wrong.get(k))
            {
                Some(Some(w)) => w,
                _ => return false,
            },
        };
        let y = p.apply(&o.output, first, scale, o.probe, o.size);
        let y2 = p.apply(y2, first, scale, f.probe, f.size);
        !form.holds(&Pair {
            y: &y,
            y2: &y2,
            n: o.noise,
            n2: f.noise,
            len: o.size,
            input: &o.input,
        })
    });
    (detects, catches, counted(&list))
}

fn median(mut xs: Vec<f64>) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    xs.sort_by(f64::total_cmp);
    Some(xs[xs.len() / 2])
}

/// Whether a found relation holds on every observation under its guard (observations of
/// another transformation list are passed over).
pub fn holds_on(sig: &Signature, transforms: &[Transform], f: &Found, obs: &[Observation]) -> bool {
    if let Some(p) = f.projection {
        let of_part = Found {
            projection: None,
            ..f.clone()
        };
        let ids: Vec<String> = transforms.iter().map(|t| t.id(sig)).collect();
        return p.signature(sig).is_some_and(|part| {
            // The same transformations, named as the whole signature names them.
            let projected: Vec<Observation> = p
                .observations(obs)
                .into_iter()
                .filter(|o| o.follow.iter().map(|x| &x.transform).eq(ids.iter()))
                .collect();
            holds_on(&part, transforms, &of_part, &projected)
        });
    }
    let ids: Vec<String> = transforms.iter().map(|t| t.id(sig)).collect();
    obs.iter()
        .filter(|o| o.follow.iter().map(|x| &x.transform).eq(ids.iter()))
        .filter(|o| f.guard.is_none_or(|g| g.holds(&o.input)))
        .all(|o| match &f.subject {
            Subject::Property(p) => p.holds(&o.input, &o.output, o.noise),
            &Subject::Recurrence {
                first,
                second,
                a,
                b,
            } => recurs(o, first, second, a, b),
            &Subject::Compose { nested, direct } => agree(sig.output, o, nested, direct),
            Subject::Image(m) => Image::all(sig)
                .iter()
                .position(|n| n == m)
                .is_some_and(|k| image_held(o, k, *m)),
            Subject::Joint {
                partner,
                combined,
                form,
            } => {
                let (f2, f3) = (&o.follow[*partner], &o.follow[*combined]);
                match (&f2.output, &f3.output) {
                    (Some(y2), Some(y3)) => form.holds(&Triple {
                        y: &o.output,
                        y2,
                        y3,
                        n: [o.noise, f2.noise, f3.noise],
                    }),
                    _ => false,
                }
            }
            Subject::Follow {
                transform,
                center,
                form,
            } => {
                let follow = &o.follow[*transform];
                let same_center = match (center, follow.center) {
                    (Some(c), Some(d)) => (c - d).abs() <= 1e-9 * c.abs().max(1.0),
                    (None, _) => true,
                    (Some(_), None) => false,
                };
                same_center
                    && follow.output.as_ref().is_some_and(|y2| {
                        form.holds(&Pair {
                            y: &o.output,
                            y2,
                            n: o.noise,
                            n2: follow.noise,
                            len: o.size,
                            input: &o.input,
                        })
                    })
            }
        })
}

/// Relative noise above which a function's results say nothing: when a one-ulp nudge of the
/// input typically moves the result by more than this share of itself, any relation would hold
/// within the tolerance taken from it.
const MAX_RELATIVE_NOISE: f64 = 1e-6;

fn too_noisy(obs: &[&Observation]) -> bool {
    let rel: Vec<f64> = obs
        .iter()
        .filter_map(|o| {
            let mag = match &o.output {
                Value::FloatSeq(xs) => xs.iter().map(|x| x.abs()).fold(0.0, f64::max),
                v => v.number()?.abs(),
            };
            (mag.is_finite() && mag > 0.0).then(|| o.noise / mag)
        })
        .collect();
    median(rel).is_some_and(|m| m > MAX_RELATIVE_NOISE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discover::observe::{observe, observe_some, OneArg};

    /// Observations of `f(x, n)` for `x` in `xs` and `n` in 1..=3, under every transformation.
    fn observed_two(
        f: fn(i128, i128) -> i128,
        xs: impl Iterator<Item = i128>,
    ) -> (Signature, Vec<Transform>, Vec<Observation>) {
        let sig = Signature::parse(
            "fn f(x: i64, n: i64) -> i64",
            &[Kind::Int, Kind::Int],
            Kind::Int,
        )
        .unwrap();
        let transforms = Transform::all(&sig);
        let mut call = |v: &[Value]| match v {
            [Value::Int(x), Value::Int(n)] => Some(Value::Int(f(*x, *n))),
            _ => None,
        };
        let obs = xs
            .enumerate()
            .map(|(i, x)| {
                let n = 1 + (i as i128 % 3);
                observe(
                    &sig,
                    &transforms,
                    vec![Value::Int(x), Value::Int(n)],
                    &mut call,
                    i as u64,
                )
                .unwrap()
            })
            .collect();
        (sig, transforms, obs)
    }

    #[test]
    fn a_composition_needs_runs_that_differ_and_is_broken_by_few_wrong_outputs() {
        // A shift by `n`: `f(f(x, n), 2) == f(x, n + 2)`, on runs that differ.
        let (sig, transforms, obs) = observed_two(|x, n| x + n, (0..40).map(|i| i * 7 - 100));
        let found = search(&sig, &transforms, &obs, 30);
        let composed: Vec<&Found> = found
            .iter()
            .filter(|f| matches!(f.subject, Subject::Compose { .. }))
            .collect();
        assert!(!composed.is_empty(), "{found:?}");
        // A wrong output that is the same function of each run's result keeps the two runs
        // equal: most wrong outputs do not break a composition.
        for f in &composed {
            assert!(f.detects > 0 && 2 * f.detects < f.perturbations, "{f:?}");
        }
        // Flat where the inputs fell: every run equal, no composition claimed.
        let (sig, transforms, obs) = observed_two(
            |x, _| i128::from(x >= 1_000_000),
            (0..40).map(|i| i * 7 - 100),
        );
        let found = search(&sig, &transforms, &obs, 30);
        assert!(
            !found
                .iter()
                .any(|f| matches!(f.subject, Subject::Compose { .. })),
            "{found:?}"
        );
    }

    #[test]
    fn a_recurrence_a_constant_meets_is_kept_where_the_runs_differ() {
        // A line in `x`: `f(x) = 2·f(x - 1) - f(x - 2)`, its runs all different.
        let (sig, transforms, obs) = observed_two(|x, _| 3 * x + 1, (0..40).map(|i| i * 7 - 100));
        let found = search(&sig, &transforms, &obs, 30);
        assert!(
            found
                .iter()
                .any(|f| matches!(f.subject, Subject::Recurrence { a: 2, b: -1, .. })),
            "{found:?}"
        );
        // Flat: the same recurrence holds only because the runs are equal.
        let (sig, transforms, obs) = observed_two(
            |x, _| i128::from(x >= 1_000_000),
            (0..40).map(|i| i * 7 - 100),
        );
        let found = search(&sig, &transforms, &obs, 30);
        assert!(
            !found
                .iter()
                .any(|f| matches!(f.subject, Subject::Recurrence { a: 2, b: -1, .. })),
            "{found:?}"
        );
    }

    #[test]
    fn a_category_needs_as_many_distinct_inputs_as_a_relation_anywhere() {
        let sig = Signature::parse("fn f(x: f64) -> f64", &[Kind::Float], Kind::Float).unwrap();
        let mut id = |v: &[Value]| Some(v[0].clone());
        let obs: Vec<Observation> = [1.0, 2.0, 3.0, -1.0, -2.0, -3.0]
            .iter()
            .enumerate()
            .map(|(i, &x)| observe(&sig, &[], vec![Value::Float(x)], &mut id, i as u64).unwrap())
            .collect();
        let scope = |min_inputs| Scope {
            keys: obs.iter().map(|o| format!("{:?}", o.input)).collect(),
            all: (0..obs.len()).collect(),
            obs: obs.iter().collect(),
            min_inputs,
        };
        // A relation that holds on the positive inputs only.
        let positive = |i: usize| i < 3;
        let fit = |on: &[usize], _| {
            if on.iter().all(|&i| positive(i)) {
                vec![()]
            } else {
                Vec::new()
            }
        };
        let holds = |_: &(), i: usize| positive(i);
        let guards = [Guard::Positive(0)];
        let (g, _, on) = scope(3)
            .category(&guards, fit, holds)
            .expect("three inputs suffice");
        assert_eq!((g, on), (Some(Guard::Positive(0)), vec![0, 1, 2]));
        assert!(scope(4).category(&guards, fit, holds).is_none());
        // A category must separate: the relation fails on most inputs outside it, not half.
        let half = |_: &(), i: usize| positive(i) || i == 3;
        let one_of_two = scope(3);
        let two_off = Scope {
            all: vec![0, 1, 2, 3, 4],
            ..one_of_two
        };
        assert!(two_off.category(&guards, fit, half).is_none());
        assert!(two_off.category(&guards, fit, holds).is_some());
    }

    /// Observations of `f` on `inputs`, each under every one of `transforms`.
    fn observed(
        sig: &Signature,
        transforms: &[Transform],
        inputs: Vec<Vec<Value>>,
        f: impl Fn(&[Value]) -> Option<Value>,
    ) -> Vec<Observation> {
        let mut call = |v: &[Value]| f(v);
        inputs
            .into_iter()
            .enumerate()
            .map(|(i, input)| observe(sig, transforms, input, &mut call, i as u64).unwrap())
            .collect()
    }

    #[test]
    fn only_a_follow_up_that_leaves_its_type_is_left_out_of_the_search() {
        let sig = Signature::parse("fn f(n: u64) -> u64", &[Kind::Int], Kind::Int).unwrap();
        let transforms = Transform::all(&sig);
        let inputs = |top: i128| -> Vec<Vec<Value>> {
            (0..60i128)
                .map(|i| match i % 6 {
                    0 => vec![Value::Int(top - i)],
                    _ => vec![Value::Int(i * 37)],
                })
                .collect()
        };
        let doubled = |found: &[Found]| {
            let t = transforms
                .iter()
                .position(|t| t.id(&sig) == "2 * n")
                .unwrap();
            found.iter().any(|f| {
                matches!(&f.subject, Subject::Follow { transform, form, .. }
                if *transform == t && *form == Form::Affine {
                    alpha: Const::lit(2.0),
                    beta: Const::lit(0.0),
                })
            })
        };
        // Near the type's end `2 * n` overflows: those inputs are left out, and the rest
        // relate.
        let times_three = |v: &[Value]| match v[0] {
            Value::Int(n) => Some(Value::Int(3 * n)),
            _ => None,
        };
        let obs = observed(&sig, &transforms, inputs(i128::from(u64::MAX)), times_three);
        assert!(doubled(&search(&sig, &transforms, &obs, 10)));
        // A follow-up the function refused, within the type, is no overflow: it breaks the
        // relation.
        let refusing = |v: &[Value]| match v[0] {
            Value::Int(n) if n < 1 << 40 => Some(Value::Int(3 * n)),
            _ => None,
        };
        let obs = observed(&sig, &transforms, inputs((1 << 40) - 100), refusing);
        assert!(!doubled(&search(&sig, &transforms, &obs, 10)));
    }

    #[test]
    fn a_few_elements_added_before_or_after_a_sequence_are_fitted_and_checked() {
        let sig = Signature::parse("fn f(n: u64) -> Vec<u8>", &[Kind::Int], Kind::IntSeq).unwrap();
        let transforms = Transform::all(&sig);
        // Base-128 digits, least significant first, without continuation bits.
        let digits = |v: &[Value]| {
            let Value::Int(mut n) = v[0] else {
                return None;
            };
            let mut out = vec![n % 128];
            while n >= 128 {
                n /= 128;
                out.push(n % 128);
            }
            Some(Value::IntSeq(out))
        };
        let inputs: Vec<Vec<Value>> = (1..60i128).map(|i| vec![Value::Int(i * 7919)]).collect();
        let obs = observed(&sig, &transforms, inputs, digits);
        let found = search(&sig, &transforms, &obs, 10);
        let scaled = transforms
            .iter()
            .position(|t| t.id(&sig) == "128 * n")
            .unwrap();
        let forms: Vec<&Form> = found
            .iter()
            .filter_map(|f| match &f.subject {
                Subject::Follow {
                    transform, form, ..
                } if *transform == scaled => Some(form),
                _ => None,
            })
            .collect();
        assert_eq!(
            forms,
            [&Form::SeqAffixed {
                piece: vec![0],
                at: super::super::property::Place::Start,
            }]
        );
    }

    #[test]
    fn a_class_is_credited_with_what_the_function_gives_outside_it() {
        // `None` for a control character and for one other; `Some(1)` for the rest.
        let sig =
            Signature::parse("fn w(c: char) -> Option<u8>", &[Kind::Char], Kind::Option).unwrap();
        let f = |v: &[Value]| match v[0] {
            Value::Char(c) if c.is_control() || c == '\u{fffd}' => Some(Value::Option(None)),
            _ => Some(Value::Option(Some(Box::new(Value::Int(1))))),
        };
        let guard = Guard::Chars {
            param: 0,
            class: super::super::guard::CharKind::Control,
            holds: true,
        };
        let prop = Property::Is(super::super::property::Lit::Nothing);
        let detects = |chars: &[char]| {
            let inputs = chars.iter().map(|&c| vec![Value::Char(c)]).collect();
            let obs = observed(&sig, &[], inputs, f);
            let refs: Vec<&Observation> = obs.iter().collect();
            let all: Vec<usize> = (0..refs.len()).collect();
            on_class(&sig, guard, prop, &refs, &all, 2).map(|found| found.detects)
        };
        // The wrong version gives, on the class, what the function gives outside it where
        // the class's result does not hold (`Some`), whichever call comes first.
        let plain = detects(&['\n', '\t', 'a', 'b']);
        assert!(plain.is_some_and(|d| d > 0));
        assert_eq!(detects(&['\u{fffd}', '\n', '\t', 'a', 'b']), plain);
        // No call in the class: nothing to judge it on.
        assert_eq!(detects(&['a', 'b']), None);
    }

    /// The transformations of `transforms` but `kept`, as if a proposal stated each.
    fn all_but(transforms: &[Transform], kept: &[Transform]) -> Vec<usize> {
        (0..transforms.len())
            .filter(|&t| !kept.contains(&transforms[t]))
            .collect()
    }

    #[test]
    fn a_defect_category_is_a_length_a_repeated_or_a_negative_element() {
        let seq = |xs: &[f64]| vec![Value::FloatSeq(xs.to_vec()), Value::Float(-1.0)];
        let of = |xs: &[f64]| {
            [
                Defect::EvenLen(0),
                Defect::OddLen(0),
                Defect::Duplicates(0),
                Defect::SomeNegative(0),
            ]
            .map(|d| d.holds(&seq(xs)))
        };
        // An empty sequence is of no category: not even, not odd.
        assert_eq!(of(&[]), [false; 4]);
        assert_eq!(of(&[1.0]), [false, true, false, false]);
        assert_eq!(of(&[1.0, 2.0]), [true, false, false, false]);
        assert_eq!(of(&[2.0, 1.0, 2.0]), [false, true, true, false]);
        assert_eq!(of(&[0.0, -0.5, 3.0, 4.0]), [true, false, false, true]);
        // Zero is not negative; the other parameter's sign is not the sequence's.
        assert_eq!(of(&[0.0, 5.0, 1.0, 2.0, 3.0]), [false, true, false, false]);
        let sig = Signature::parse(
            "fn f(xs: &[f64], k: f64) -> f64",
            &[Kind::FloatSeq, Kind::Float],
            Kind::Float,
        )
        .unwrap();
        assert_eq!(
            Defect::all(&sig),
            [
                Defect::EvenLen(0),
                Defect::OddLen(0),
                Defect::Duplicates(0),
                Defect::SomeNegative(0)
            ]
        );
    }

    /// A sum that depends on the order of its ends where an element is negative: the reversal
    /// fails there on every input whose ends differ.
    fn sum_wrong_with_negatives(v: &[Value]) -> Option<Value> {
        let xs = v[0].elements()?;
        let sum: f64 = xs.iter().sum();
        let wrong = if xs.iter().any(|&x| x < 0.0) {
            (xs[0] - xs[xs.len() - 1]).max(0.0)
        } else {
            0.0
        };
        Some(Value::Float(sum + wrong))
    }

    /// The near misses of the reversal of `sum_wrong_with_negatives` on `rest` inputs with no
    /// negative element, `holding` with some and equal ends, and `failing` with some and
    /// different ends (those repeat an element where `repeated`): (category, failed, of,
    /// held) each.
    fn reversal_misses(
        rest: usize,
        holding: usize,
        failing: usize,
        repeated: bool,
        min_inputs: usize,
    ) -> Vec<(Defect, usize, usize, usize)> {
        let sig =
            Signature::parse("fn f(xs: &[f64]) -> f64", &[Kind::FloatSeq], Kind::Float).unwrap();
        let transforms = Transform::all(&sig);
        let n = |i: usize| i as f64;
        let inputs = (0..rest)
            .map(|i| vec![n(i) + 1.0, n(i) + 2.5, n(i) + 4.25])
            .chain((0..holding).map(|i| vec![-n(i) - 1.0, n(i) + 10.0, -n(i) - 1.0]))
            .chain((0..failing).map(|i| {
                let second = if repeated { -n(i) - 1.0 } else { n(i) + 20.0 };
                vec![-n(i) - 1.0, second, n(i) + 0.5]
            }))
            .map(|xs| vec![Value::FloatSeq(xs)])
            .collect();
        let obs = observed(&sig, &transforms, inputs, sum_wrong_with_negatives);
        let reverse = Transform::Seq {
            param: 0,
            op: SeqOp::Reverse,
        };
        let proposed = all_but(&transforms, std::slice::from_ref(&reverse));
        near_misses(&sig, &transforms, &obs, min_inputs, &proposed)
            .into_iter()
            .map(|m| {
                assert!(
                    matches!(m.found.subject, Subject::Follow { transform, .. } if transforms[transform] == reverse)
                );
                (m.category, m.failing.len(), m.of, m.found.held)
            })
            .collect()
    }

    #[test]
    fn a_near_miss_needs_two_fifths_of_the_inputs_outside_its_category_and_a_fifth_failing() {
        let negative = Defect::SomeNegative(0);
        // Four of ten outside the category: two fifths exactly; four distinct, as many as
        // asked; two of six failing, a third.
        assert_eq!(reversal_misses(4, 4, 2, false, 4), [(negative, 2, 6, 4)]);
        // Four of eleven: under two fifths.
        assert_eq!(reversal_misses(4, 5, 2, false, 4), []);
        // Five distinct inputs asked, four outside.
        assert_eq!(reversal_misses(4, 4, 2, false, 5), []);
        // Two of ten failing: a fifth exactly.
        assert_eq!(reversal_misses(7, 8, 2, false, 4), [(negative, 2, 10, 7)]);
        // Two of eleven: under a fifth.
        assert_eq!(reversal_misses(8, 9, 2, false, 4), []);
        // One failing, of one: two at least.
        assert_eq!(reversal_misses(4, 0, 1, false, 4), []);
        assert_eq!(reversal_misses(4, 0, 2, false, 4), [(negative, 2, 2, 4)]);
        // The failing inputs repeat an element too: two categories fit them as well; the first
        // is kept.
        assert_eq!(
            reversal_misses(4, 4, 2, true, 4),
            [(Defect::Duplicates(0), 2, 6, 4)]
        );
    }

    #[test]
    fn a_near_miss_is_an_inequality_only_for_a_cut_sequence_or_a_step_of_one_number() {
        let sig = Signature::parse(
            "fn f(xs: &[f64], k: f64) -> f64",
            &[Kind::FloatSeq, Kind::Float],
            Kind::Float,
        )
        .unwrap();
        let transforms = Transform::all(&sig);
        // Grows with every element's square and with `k`'s, and is negated, wrongly, where an
        // element is negative.
        let f = |v: &[Value]| {
            let (xs, k) = (v[0].elements()?, v[1].number()?);
            let grown = xs.iter().map(|x| x * x).sum::<f64>() + k * k;
            Some(Value::Float(if xs.iter().any(|&x| x < 0.0) {
                -grown
            } else {
                grown
            }))
        };
        let inputs = (0u32..24)
            .map(|i| {
                let sign = if i % 3 == 0 { -1.0 } else { 1.0 };
                let xs = (0..2 + i % 3)
                    .map(|j| sign * f64::from(1 + (i * 5 + j * 3) % 13))
                    .collect();
                vec![
                    Value::FloatSeq(xs),
                    Value::Float(f64::from(1 + i % 7) * 0.75),
                ]
            })
            .collect();
        let obs = observed(&sig, &transforms, inputs, f);
        let cut = Transform::Seq {
            param: 0,
            op: SeqOp::ExcludeFirst,
        };
        let affine = |a: f64| Transform::Affine {
            param: 1,
            a,
            b: Const::lit(0.0),
        };
        let (halved, doubled) = (affine(0.5), affine(2.0));
        let proposed = all_but(&transforms, &[cut.clone(), halved.clone(), doubled]);
        let mut misses: Vec<(Transform, Form, Defect)> =
            near_misses(&sig, &transforms, &obs, 10, &proposed)
                .into_iter()
                .map(|m| match m.found.subject {
                    Subject::Follow {
                        transform, form, ..
                    } => (transforms[transform].clone(), form, m.category),
                    ref s => panic!("{s:?}"),
                })
                .collect();
        misses.sort_by_key(|m| format!("{m:?}"));
        // `f(xs, 2.0 * k) >= result` holds outside the category too, but a number moved by
        // more than a step gets no inequality: on a monotone function there would be one per
        // grid point.
        let negative = Defect::SomeNegative(0);
        assert_eq!(
            misses,
            [
                (halved, Form::AtMost, negative),
                (cut, Form::AtMost, negative),
            ]
        );
    }

    #[test]
    fn a_function_too_noisy_to_relate_gets_neither_relations_nor_near_misses() {
        let sig =
            Signature::parse("fn f(xs: &[f64]) -> f64", &[Kind::FloatSeq], Kind::Float).unwrap();
        let transforms = Transform::all(&sig);
        let inputs = || {
            (0u32..40)
                .map(|i| {
                    let xs = (0..1 + i % 4)
                        .map(|j| f64::from((i * 7 + j * 3) % 11) - 4.5)
                        .collect();
                    vec![Value::FloatSeq(xs)]
                })
                .collect::<Vec<_>>()
        };
        // A one-ulp nudge of the input moves it by a thousandth of itself.
        let chaotic = |v: &[Value]| {
            let xs = v[0].elements()?;
            Some(Value::Float(2.0 + (xs.iter().sum::<f64>() * 1e12).sin()))
        };
        let obs = observed(&sig, &transforms, inputs(), chaotic);
        assert_eq!(search(&sig, &transforms, &obs, 10), []);
        assert!(near_misses(&sig, &transforms, &obs, 10, &[]).is_empty());
        // Smooth, the same function of the same inputs is related.
        let smooth = |v: &[Value]| {
            let xs = v[0].elements()?;
            Some(Value::Float(2.0 + xs.iter().sum::<f64>().sin()))
        };
        let obs = observed(&sig, &transforms, inputs(), smooth);
        assert_ne!(search(&sig, &transforms, &obs, 10), []);
    }

    #[test]
    fn a_step_down_of_an_unsigned_number_is_guarded_by_its_sign_and_an_element_read_by_length() {
        let sig = Signature::parse(
            "fn f(xs: &[f64], p: usize, q: usize) -> f64",
            &[Kind::FloatSeq, Kind::Int, Kind::Int],
            Kind::Float,
        )
        .unwrap();
        let step = |a: f64, b: f64| Transform::Affine {
            param: 1,
            a,
            b: Const::lit(b),
        };
        let guarded = |t: &Transform, g| pasted_guard(&sig, t, g);
        let (pos, nonneg) = (Guard::Positive(1), Guard::NonNegative(1));
        // Up, or to a constant: as it held.
        for up in [step(1.0, 1.0), step(2.0, 0.0), step(0.0, 3.0)] {
            assert_eq!(guarded(&up, None), Some(None), "{up:?}");
            assert_eq!(guarded(&up, Some(nonneg)), Some(Some(nonneg)), "{up:?}");
        }
        // `p - 1`: `p > 0` whatever it held under, if that was `p`'s sign.
        let down = step(1.0, -1.0);
        assert_eq!(guarded(&down, None), Some(Some(pos)));
        assert_eq!(guarded(&down, Some(nonneg)), Some(Some(pos)));
        assert_eq!(guarded(&down, Some(pos)), Some(Some(pos)));
        // Under another parameter's sign, or further down, not at all.
        assert_eq!(guarded(&down, Some(Guard::Positive(2))), None);
        assert_eq!(guarded(&down, Some(Guard::NonNegative(2))), None);
        assert_eq!(guarded(&down, Some(Guard::NonEmpty(0))), None);
        for further in [step(1.0, -2.0), step(-1.0, 0.0), step(-1.0, 2.0)] {
            assert_eq!(guarded(&further, None), None, "{further:?}");
        }
        // A signed number steps down freely.
        let signed = Signature::parse("fn f(x: i64) -> i64", &[Kind::Int], Kind::Int).unwrap();
        let minus = Transform::Affine {
            param: 0,
            a: -1.0,
            b: Const::lit(-2.0),
        };
        assert_eq!(pasted_guard(&signed, &minus, None), Some(None));
        // A follow-up that reads an element: under a guard that rules out an empty `xs`.
        let cut = Transform::Seq {
            param: 0,
            op: SeqOp::ExcludeFirst,
        };
        assert_eq!(guarded(&cut, None), Some(Some(Guard::NonEmpty(0))));
        assert_eq!(
            guarded(&cut, Some(Guard::Several(0))),
            Some(Some(Guard::Several(0)))
        );
        assert_eq!(guarded(&cut, Some(pos)), None);
        let reversed = Transform::Seq {
            param: 0,
            op: SeqOp::Reverse,
        };
        assert_eq!(guarded(&reversed, Some(pos)), Some(Some(pos)));
    }

    #[test]
    fn a_result_unchanged_under_another_parameter_s_sign_is_a_coincidence() {
        let lo = Transform::Affine {
            param: 1,
            a: 2.0,
            b: Const::lit(0.0),
        };
        let reflected = Transform::Reflect { param: 1 };
        let swap = Transform::Swap { i: 1, j: 2 };
        let cut = Transform::Seq {
            param: 0,
            op: SeqOp::ExcludeFirst,
        };
        let (own, other) = (Some(Guard::Positive(1)), Some(Guard::NonNegative(0)));
        let at = |g, t: &Transform| unchanged_by_coincidence(g, t);
        assert_eq!(
            [at(None, &lo), at(own, &lo), at(other, &lo)],
            [false, false, true]
        );
        assert_eq!(
            [
                at(None, &reflected),
                at(own, &reflected),
                at(other, &reflected)
            ],
            [false, false, true]
        );
        assert_eq!([at(None, &swap), at(own, &swap)], [false, true]);
        assert_eq!([at(None, &cut), at(other, &cut)], [false, false]);
    }

    #[test]
    fn a_function_of_one_number_gets_no_inequality_for_a_step_of_it() {
        // Monotone: `exp(x + 1.0) >= result` holds, and so does every shift of the grid; its
        // strict monotonicity and its equalities say it once.
        let sig = Signature::parse("fn f(x: f64) -> f64", &[Kind::Float], Kind::Float).unwrap();
        let transforms = Transform::all(&sig);
        let inputs = (0u32..40)
            .map(|i| vec![Value::Float(f64::from(i) * 0.2 - 4.0)])
            .collect();
        let obs = observed(&sig, &transforms, inputs, |v| {
            Some(Value::Float(v[0].number()?.exp() + v[0].number()?))
        });
        let found = search(&sig, &transforms, &obs, 10);
        assert!(
            found.iter().any(|f| matches!(
                f.subject,
                Subject::Follow {
                    form: Form::Above,
                    ..
                }
            )),
            "{found:?}"
        );
        let weak: Vec<&Found> = found
            .iter()
            .filter(|f| {
                matches!(
                    f.subject,
                    Subject::Follow {
                        form: Form::AtLeast | Form::AtMost,
                        ..
                    }
                )
            })
            .collect();
        assert_eq!(weak, Vec::<&Found>::new());
    }

    #[test]
    fn a_factor_of_the_length_is_fitted_for_one_sequence_of_floats_only() {
        let ratios = |text: &str, kinds: &[Kind], out: Kind, f: &dyn Fn(&[Value]) -> Value| {
            let sig = Signature::parse(text, kinds, out).unwrap();
            let transforms = Transform::all(&sig);
            let inputs = (0u32..40)
                .map(|i| {
                    let seq = |n: u32, k: u32| -> Vec<f64> {
                        (0..n)
                            .map(|j| f64::from((i * 7 + j * 3 + k) % 11) - 4.0)
                            .collect()
                    };
                    kinds
                        .iter()
                        .enumerate()
                        .map(|(p, kind)| {
                            let xs = seq(1 + (i + p as u32) % 5, p as u32);
                            if *kind == Kind::IntSeq {
                                Value::IntSeq(xs.iter().map(|&x| x as i128).collect())
                            } else {
                                Value::FloatSeq(xs)
                            }
                        })
                        .collect()
                })
                .collect();
            let obs = observed(&sig, &transforms, inputs, |v| Some(f(v)));
            search(&sig, &transforms, &obs, 10)
                .into_iter()
                .filter(|f| {
                    matches!(
                        f.subject,
                        Subject::Follow {
                            form: Form::LenRatio { .. },
                            ..
                        }
                    )
                })
                .count()
        };
        let total = |v: &[Value]| -> (f64, f64) {
            v.iter().fold((0.0, 0.0), |(s, n), x| {
                let e = x.elements().unwrap_or_default();
                (s + e.iter().sum::<f64>(), n + e.len() as f64)
            })
        };
        // The mean of one sequence, a zero appended: `mean · n / (n + 1)`.
        let mean = |v: &[Value]| {
            let (s, n) = total(v);
            Value::Float(s / n)
        };
        let one = [Kind::FloatSeq];
        assert!(ratios("fn f(xs: &[f64]) -> f64", &one, Kind::Float, &mean) > 0);
        // The mean of two together: the factor is of both lengths, which a relation written
        // with the first one's would get wrong.
        let two = [Kind::FloatSeq, Kind::FloatSeq];
        assert_eq!(
            ratios(
                "fn f(xs: &[f64], ys: &[f64]) -> f64",
                &two,
                Kind::Float,
                &mean
            ),
            0
        );
        // An integer result: no factor of `f64`s to multiply it by.
        let scaled_sum = |v: &[Value]| {
            let (s, n) = total(v);
            Value::Int((s * n) as i128)
        };
        assert_eq!(
            ratios(
                "fn f(xs: &[i64]) -> i64",
                &[Kind::IntSeq],
                Kind::Int,
                &scaled_sum
            ),
            0
        );
    }

    #[test]
    fn weak_forms_are_found_for_a_cut_sequence() {
        let sig =
            Signature::parse("fn f(xs: &[f64]) -> f64", &[Kind::FloatSeq], Kind::Float).unwrap();
        let transforms = Transform::all(&sig);
        let mut max = |v: &[Value]| {
            let xs = v[0].elements()?;
            Some(Value::Float(xs.iter().fold(0.0, |m, &x| f64::max(m, x))))
        };
        let obs: Vec<Observation> = (0..40)
            .map(|i| {
                let xs = (0..1 + i % 7)
                    .map(|k| ((i * 7 + k * 3) % 11) as f64 + 0.5)
                    .collect();
                observe(
                    &sig,
                    &transforms,
                    vec![Value::FloatSeq(xs)],
                    &mut max,
                    i as u64,
                )
                .unwrap()
            })
            .collect();
        let found = search(&sig, &transforms, &obs, 10);
        // No input was empty, but `&xs[1..]` would panic on one: guarded.
        assert!(found.iter().any(|f| matches!(
            (&f.subject, f.guard),
            (Subject::Follow { form: Form::AtMost, transform, .. }, Some(Guard::NonEmpty(0)))
                if transforms[*transform] == Transform::Seq { param: 0, op: SeqOp::ExcludeFirst }
        )));
        // Every relation whose follow-up reads an element is.
        for f in &found {
            if let Subject::Follow { transform, .. } = f.subject {
                if transforms[transform].needs_element().is_some() {
                    assert!(f.guard.is_some_and(|g| g.rules_out_empty(0)), "{f:?}");
                }
            }
        }
    }

    #[test]
    fn perturbations_are_scaled_by_the_median_magnitude_or_one() {
        let sig = Signature::parse("fn f(x: f64) -> f64", &[Kind::Float], Kind::Float).unwrap();
        let obs_of = |f: fn(f64) -> f64| -> Vec<Observation> {
            [1.0, 2.0, 3.0]
                .iter()
                .enumerate()
                .map(|(i, &x)| {
                    let mut call = |v: &[Value]| Some(Value::Float(f(v[0].number()?)));
                    observe(&sig, &[], vec![Value::Float(x)], &mut call, i as u64).unwrap()
                })
                .collect()
        };
        let obs = obs_of(|x| -2.0 * x);
        let refs: Vec<&Observation> = obs.iter().collect();
        assert_eq!(perturbations(Kind::Float, &refs, &[0, 1, 2]).2, 4.0);
        let zeros = obs_of(|_| 0.0);
        let refs: Vec<&Observation> = zeros.iter().collect();
        assert_eq!(perturbations(Kind::Float, &refs, &[0, 1, 2]).2, 1.0);
    }

    #[test]
    fn a_reflection_holds_only_about_the_same_centre() {
        let sig = Signature::parse("fn f(x: f64) -> f64", &[Kind::Float], Kind::Float).unwrap();
        let transforms = Transform::all(&sig);
        let r = transforms
            .iter()
            .position(|t| matches!(t, Transform::Reflect { .. }))
            .unwrap();
        let mut constant = |_: &[Value]| Some(Value::Float(1.0));
        let o = observe(&sig, &transforms, vec![Value::Float(3.0)], &mut constant, 1).unwrap();
        let found = Found {
            subject: Subject::Follow {
                transform: r,
                center: Some(1000.0),
                form: Form::Affine {
                    alpha: Const::lit(1.0),
                    beta: Const::lit(0.0),
                },
            },
            guard: None,
            inputs: 1,
            held: 1,
            detects: 0,
            catches: Catches::default(),
            perturbations: 0,
            tolerance: 0.0,
            projection: None,
        };
        let about = |c: f64| {
            let mut o = o.clone();
            o.follow[r].center = Some(c);
            o.follow[r].output = Some(Value::Float(1.0));
            holds_on(&sig, &transforms, &found, &[o])
        };
        // Centres equal within 1e-9 of their magnitude.
        assert!(about(1000.0 + 5e-7));
        assert!(!about(1000.0 + 2e-6));
        assert!(!about(1001.0));
    }

    #[test]
    fn a_property_of_the_live_calls_is_judged_on_them_alone() {
        // Every element given is 2 or more, so every mean given is above 1.5; translated by -1,
        // [2.0] would give a result that is not positive, and negated every input would. Those
        // are inputs the program never sent: the property holds on its calls.
        let sig =
            Signature::parse("fn f(xs: &[f64]) -> f64", &[Kind::FloatSeq], Kind::Float).unwrap();
        let transforms = Transform::all(&sig);
        let mut f = |v: &[Value]| {
            let xs = v[0].elements()?;
            Some(Value::Float(xs.iter().sum::<f64>() / xs.len() as f64 - 1.5))
        };
        let obs: Vec<Observation> = (0u32..40)
            .map(|i| {
                let xs = (0..=i % 3).map(|j| f64::from(2 + (i + j) % 7)).collect();
                observe(
                    &sig,
                    &transforms,
                    vec![Value::FloatSeq(xs)],
                    &mut f,
                    i.into(),
                )
                .unwrap()
            })
            .collect();
        let found = search(&sig, &transforms, &obs, 10);
        let signs: Vec<&Found> = found
            .iter()
            .filter(|f| matches!(f.subject, Subject::Property(Property::Sign(_))))
            .collect();
        assert_eq!(signs.len(), 1, "{found:?}");
        assert_eq!(
            signs[0].subject,
            Subject::Property(Property::Sign(Cmp::Above))
        );
        assert_eq!(signs[0].guard, Some(Guard::NonEmpty(0)), "{:?}", signs[0]);
    }

    #[test]
    fn a_strict_sign_made_loose_catches_what_the_loose_sign_catches() {
        // A cube's sign under `x < 0`: strictly, a result made zero breaks it; loosely, not.
        let sig = Signature::parse("fn f(x: f64) -> f64", &[Kind::Float], Kind::Float).unwrap();
        let transforms = Transform::all(&sig);
        let inputs = (0..40).map(|i| vec![Value::Float(f64::from(i) * 0.5 - 10.25)]);
        let cube = |v: &[Value]| Some(Value::Float(v[0].number()?.powi(3)));
        let obs = observed(&sig, &transforms, inputs.collect(), cube);
        let strict = search(&sig, &transforms, &obs, 10)
            .into_iter()
            .find(|f| f.subject == Subject::Property(Property::Sign(Cmp::Below)))
            .expect("the strict sign");
        let loose = as_property(
            &sig,
            &transforms,
            &obs,
            &strict,
            Property::Sign(Cmp::AtMost),
        )
        .expect("holds loosely");
        assert_eq!(
            loose.subject,
            Subject::Property(Property::Sign(Cmp::AtMost))
        );
        assert_eq!((loose.guard, loose.held), (strict.guard, strict.held));
        // The constant zero among the wrong outputs breaks the strict sign alone.
        assert_eq!(loose.catches.beyond(&strict.catches), 0, "{loose:?}");
        assert!(strict.catches.beyond(&loose.catches) > 0, "{strict:?}");
        assert!(loose.detects > 0, "a sign flipped still breaks it");
        // A wrong output that takes a small result toward zero, within the strict sign's gap
        // and not across zero, counts for the strict sign alone; the count of wrong outputs
        // tried is the list's, whatever the proposal said before.
        let small = (0..40).map(|i| vec![Value::Float(-1000.0 + f64::from(i) * 10.0)]);
        let flat = observed(&sig, &transforms, small.collect(), |_| {
            Some(Value::Float(2e-4))
        });
        let said = Found {
            detects: 99,
            perturbations: 99,
            guard: None,
            ..strict.clone()
        };
        let of = |c: Cmp| as_property(&sig, &transforms, &flat, &said, Property::Sign(c)).unwrap();
        let (strictly, loosely) = (of(Cmp::Above), of(Cmp::AtLeast));
        assert!(
            loosely.detects < strictly.detects,
            "{loosely:?} {strictly:?}"
        );
        assert_eq!(strictly.perturbations, loosely.perturbations);
        assert!(strictly.perturbations < 99);
        // What it catches is judged on the observations given: none, none.
        assert!(
            as_property(&sig, &transforms, &[], &strict, Property::Sign(Cmp::AtMost)).is_none()
        );
        // A property that holds on none of them is no property of theirs.
        assert!(
            as_property(&sig, &transforms, &obs, &strict, Property::Sign(Cmp::Above)).is_none()
        );
    }

    #[test]
    fn a_strict_sign_is_claimed_only_where_the_results_keep_clear_of_zero() {
        // A distance: never zero on the inputs seen, but it comes near, so zero is in reach.
        let sig = Signature::parse("fn f(x: f64) -> f64", &[Kind::Float], Kind::Float).unwrap();
        let transforms = Transform::all(&sig);
        let run = |offset: f64| {
            let mut f = |v: &[Value]| Some(Value::Float(v[0].number()?.abs() + offset));
            let obs: Vec<Observation> = (1u32..=40)
                .map(|i| {
                    // Never zero, yet 0.001 of the largest at the nearest.
                    let x = if i == 1 {
                        0.004
                    } else {
                        f64::from(i) * 0.1 - 2.05
                    };
                    observe(&sig, &transforms, vec![Value::Float(x)], &mut f, i.into()).unwrap()
                })
                .collect();
            search(&sig, &transforms, &obs, 10)
                .into_iter()
                .filter_map(|f| match f.subject {
                    Subject::Property(Property::Sign(c)) if f.guard.is_none() => Some(c),
                    _ => None,
                })
                .collect::<Vec<Cmp>>()
        };
        assert_eq!(run(0.0), [Cmp::AtLeast]);
        // Kept clear of zero by 1 (as a `cosh` is), it is strictly positive.
        assert_eq!(run(1.0), [Cmp::Above]);
    }

    #[test]
    fn the_gap_from_zero_is_measured_against_the_median_result() {
        let at = |ys: &[f64]| {
            let obs: Vec<Observation> = ys
                .iter()
                .map(|&y| Observation {
                    input: Vec::new(),
                    output: Value::Float(y),
                    noise: 0.0,
                    probe: 0.0,
                    size: 0,
                    follow: Vec::new(),
                    signature: None,
                    images: Vec::new(),
                    inner_images: Vec::new(),
                    mutants: Vec::new(),
                })
                .collect();
            let refs: Vec<&Observation> = obs.iter().collect();
            clear_of_zero(&refs, &(0..ys.len()).collect::<Vec<_>>())
        };
        // The median of [-1, 2, 200] by size is 2: 0.01 is half a percent of it.
        assert!(at(&[200.0, 0.01, -2.0]));
        assert!(!at(&[200.0, 0.0099, -2.0]));
        assert!(!at(&[]));
        assert!(at(&[-3.0]));
    }

    #[test]
    fn a_relation_through_another_function_holds_only_where_every_run_kept_it() {
        use crate::discover::observe::{Follow, ImageRun};
        let follow = |images: Vec<bool>| Follow {
            transform: "t".into(),
            output: None,
            noise: 0.0,
            probe: 0.0,
            size: 0,
            center: None,
            wrong: Vec::new(),
            images,
            inner_images: Vec::new(),
        };
        let o = |held: bool, first: Vec<bool>| Observation {
            input: Vec::new(),
            output: Value::Bool(true),
            noise: 0.0,
            probe: 0.0,
            size: 0,
            follow: vec![follow(first), follow(Vec::new())],
            signature: None,
            images: vec![ImageRun {
                held,
                wrong: Vec::new(),
                echo: None,
            }],
            inner_images: Vec::new(),
            mutants: Vec::new(),
        };
        let fixed = Image::Fixed { sibling: 0 };
        assert!(image_held(&o(true, vec![true]), 0, fixed));
        assert!(
            !image_held(&o(true, vec![false]), 0, fixed),
            "a follow-up broke it"
        );
        assert!(
            !image_held(&o(false, vec![true]), 0, fixed),
            "the result broke it"
        );
        assert!(
            image_held(&o(true, Vec::new()), 0, fixed),
            "no follow-up judged"
        );
        assert!(
            !image_held(&o(true, vec![true]), 1, fixed),
            "no such relation"
        );
        // An inverse is judged on the call alone.
        let inverse = Image::Inverse {
            sibling: 0,
            param: 0,
        };
        assert!(image_held(&o(true, vec![false]), 0, inverse));
        assert!(!image_held(&o(false, vec![true]), 0, inverse));
        // No run of the function, no coefficient.
        let found = Found {
            subject: Subject::Image(Image::Fixed { sibling: 0 }),
            guard: None,
            inputs: 30,
            held: 30,
            detects: 1,
            catches: Catches::new(1, 30),
            perturbations: 1,
            tolerance: 0.0,
            projection: None,
        };
        assert_eq!((found.executions(), found.raw_constants()), (0, 0));
        assert!(found.follow_ups().is_empty() && found.runs_read().is_empty());
    }

    /// Observations of `f` on short texts with one other function `g`, declared as `sibling`.
    fn through_one(
        f: fn(&str) -> String,
        sibling: &str,
        g: fn(&str) -> Value,
    ) -> (Signature, Vec<Observation>) {
        let mut sig = Signature::parse("fn f(s: &str) -> String", &[Kind::Str], Kind::Str).unwrap();
        let kind = g("").kind();
        sig.siblings = vec![Signature::parse(sibling, &[Kind::Str], kind).unwrap()];
        let text = |v: &Value| match v {
            Value::Str(s) => s.clone(),
            _ => String::new(),
        };
        let mut call = |v: &[Value]| Some(Value::Str(f(&text(&v[0]))));
        let through = |v: &Value| Some(g(&text(v)));
        let siblings: [&OneArg<'_>; 1] = [&through];
        let pieces = ["a", "B", " ", "<", "&", "x1", "é"];
        let transforms = Transform::all(&sig);
        let obs = (0..60usize)
            .map(|i| {
                let s: String = (0..1 + i % 5)
                    .map(|j| pieces[(i / 7usize.pow(j as u32)) % 7])
                    .collect();
                let input = vec![Value::Str(s)];
                observe_some(
                    &sig,
                    &transforms,
                    input,
                    &mut call,
                    i as u64,
                    &|_| true,
                    &siblings,
                )
                .unwrap()
            })
            .collect();
        (sig, obs)
    }

    #[test]
    fn a_relation_through_another_function_is_credited_with_what_its_runs_rejected() {
        let lower = |s: &str| s.to_lowercase();
        let has_no_upper = |s: &str| Value::Bool(!s.contains(char::is_uppercase));
        let (sig, obs) = through_one(lower, "fn has_no_upper(s: &str) -> bool", has_no_upper);
        let transforms = Transform::all(&sig);
        let scope = scope_of(&sig, &transforms, &obs, 10).unwrap();
        let found = images(&sig, &scope);
        let holds = Image::Holds {
            sibling: 0,
            value: true,
        };
        let k = Image::all(&sig).iter().position(|&m| m == holds).unwrap();
        let f = found
            .iter()
            .find(|f| f.subject == Subject::Image(holds))
            .expect("has_no_upper(&result)");
        // Each wrong result some run rejected, as recorded, and the input passed through.
        let refs: Vec<&Observation> = obs.iter().collect();
        let (list, ..) = perturbations(Kind::Str, &refs, &scope.all);
        let rejected = (0..counted(&list))
            .filter(|&p| obs.iter().any(|o| o.images[k].wrong[p] == Some(false)))
            .count();
        assert!(rejected >= 1 && rejected < counted(&list), "{rejected}");
        assert_eq!(f.detects, rejected + 1, "{f:?}");
        assert_eq!(f.perturbations, counted(&list) + 1);
        assert_eq!((f.inputs, f.held), (scope.distinct(&scope.all), obs.len()));
        // The predicate false, or one every input meets, is not claimed.
        assert!(!found.iter().any(|f| f.subject
            == Subject::Image(Image::Holds {
                sibling: 0,
                value: false
            })));
        let (sig, obs) = through_one(lower, "fn is_short(s: &str) -> bool", |s| {
            Value::Bool(s.chars().count() < 40)
        });
        let scope = scope_of(&sig, &Transform::all(&sig), &obs, 10).unwrap();
        assert!(!images(&sig, &scope)
            .iter()
            .any(|f| matches!(f.subject, Subject::Image(Image::Holds { .. }))));

        // What a function passes through unchanged keeps what any other function sees of
        // it: no relation of that.
        let (sig, obs) = through_one(
            |s| s.to_string(),
            "fn fold(s: &str) -> String",
            |s| Value::Str(s.to_lowercase()),
        );
        let scope = scope_of(&sig, &Transform::all(&sig), &obs, 10).unwrap();
        let alike = Subject::Image(Image::Alike {
            sibling: 0,
            param: 0,
        });
        assert!(!images(&sig, &scope).iter().any(|f| f.subject == alike));
        let (sig, obs) = through_one(lower, "fn fold(s: &str) -> String", |s| {
            Value::Str(s.to_lowercase())
        });
        let scope = scope_of(&sig, &Transform::all(&sig), &obs, 10).unwrap();
        assert!(images(&sig, &scope).iter().any(|f| f.subject == alike));
    }

    #[test]
    fn an_inclusion_of_the_empty_string_is_no_relation() {
        let words = ["a", "Bc", " ", "d1", "é"];
        let inputs = (0..60usize).map(|i| {
            (0..1 + i % 4)
                .map(|j| words[(i / 5usize.pow(j as u32)) % 5])
                .collect::<String>()
        });
        let found = crate::discover::Discovery::new("fn upper(s: &str) -> String", |s: String| {
            s.to_uppercase()
        })
        .unwrap()
        .inputs(inputs)
        .run();
        assert!(
            found.relations().any(|r| r.contains("upper(&format!(")),
            "{found}"
        );
        assert!(
            !found.relations().any(|r| r.contains("(&String::new())")),
            "{found}"
        );
    }

    #[test]
    fn a_property_is_credited_with_the_wrong_outputs_it_rejects() {
        let sig = Signature::parse("fn f(x: f64) -> f64", &[Kind::Float], Kind::Float).unwrap();
        let transforms = Transform::all(&sig);
        let mut f = |v: &[Value]| Some(Value::Float(v[0].number()?.powi(2) + 1.0));
        let obs: Vec<Observation> = (0..40)
            .map(|i| {
                let x = (i as f64 * 0.618_033_988_7) % 1.0 * 10.0 - 5.0;
                observe(&sig, &transforms, vec![Value::Float(x)], &mut f, i).unwrap()
            })
            .collect();
        let found = search(&sig, &transforms, &obs, 10);
        let positive = found
            .iter()
            .find(|f| f.subject == Subject::Property(Property::Sign(Cmp::Above)))
            .expect("result > 0.0 is proposed");
        assert_eq!(positive.raw_constants(), 0, "a property has no coefficient");
        // A negated result breaks it; the first result repeated, or one nudged, does not.
        assert!(positive.detects >= 1);
        assert!(
            positive.detects <= positive.perturbations - 2,
            "{positive:?}"
        );
        // Counted among the wrong outputs: all but the fixed constants.
        let refs: Vec<&Observation> = obs.iter().collect();
        let all: Vec<usize> = (0..obs.len()).collect();
        let (list, ..) = perturbations(Kind::Float, &refs, &all);
        assert!(list.len() > Perturbation::FIXED.len());
        assert_eq!(
            positive.perturbations + Perturbation::FIXED.len(),
            list.len()
        );
    }

    #[test]
    fn a_result_within_the_inputs_range_is_proposed_under_a_guard_that_rules_out_empty() {
        let sig =
            Signature::parse("fn f(xs: &[f64]) -> f64", &[Kind::FloatSeq], Kind::Float).unwrap();
        let transforms = Transform::all(&sig);
        let between = |f: &mut dyn FnMut(&[f64]) -> f64, empty: bool, low: f64| {
            let mut call = |v: &[Value]| Some(Value::Float(f(&v[0].elements()?)));
            let obs: Vec<Observation> = (0u32..60)
                .map(|i| {
                    let n = if empty { i % 4 } else { 1 + i % 4 };
                    let xs = (0..n)
                        .map(|j| f64::from((i * 7 + j * 3) % 11) + low)
                        .collect();
                    observe(
                        &sig,
                        &transforms,
                        vec![Value::FloatSeq(xs)],
                        &mut call,
                        i.into(),
                    )
                    .unwrap()
                })
                .collect();
            search(&sig, &transforms, &obs, 10)
                .into_iter()
                .filter(|f| f.subject == Subject::Property(Property::Between(0)))
                .map(|f| f.guard)
                .collect::<Vec<_>>()
        };
        let mut mean = |xs: &[f64]| xs.iter().sum::<f64>() / xs.len() as f64;
        // Empty inputs (whose mean is NaN) or not, the guard rules them out.
        assert_eq!(between(&mut mean, true, -4.0), [Some(Guard::NonEmpty(0))]);
        assert_eq!(between(&mut mean, false, -4.0), [Some(Guard::NonEmpty(0))]);
        // Every element not negative: claimed for such inputs, and still none empty.
        assert_eq!(between(&mut mean, false, 0.0), [Some(Guard::NonEmpty(0))]);
        // A sum leaves the range: nothing.
        let mut sum = |xs: &[f64]| xs.iter().sum::<f64>();
        assert_eq!(between(&mut sum, false, -4.0), []);
        // Every input seen had a positive weight first: the range is still claimed only where
        // `xs` is not empty, the weight's sign no reason for that.
        let sig = Signature::parse(
            "fn f(w: f64, xs: &[f64]) -> f64",
            &[Kind::Float, Kind::FloatSeq],
            Kind::Float,
        )
        .unwrap();
        let transforms = Transform::all(&sig);
        let inputs = (0u32..40)
            .map(|i| {
                let xs = (0..1 + i % 4)
                    .map(|j| f64::from((i * 7 + j * 3) % 11) - 4.0)
                    .collect();
                vec![Value::Float(f64::from(1 + i % 5)), Value::FloatSeq(xs)]
            })
            .collect();
        let weighted = |v: &[Value]| {
            let xs = v[1].elements()?;
            Some(Value::Float(xs.iter().sum::<f64>() / xs.len() as f64))
        };
        let obs = observed(&sig, &transforms, inputs, weighted);
        let guards: Vec<Option<Guard>> = search(&sig, &transforms, &obs, 10)
            .into_iter()
            .filter(|f| f.subject == Subject::Property(Property::Between(1)))
            .map(|f| f.guard)
            .collect();
        assert_eq!(guards, [Some(Guard::NonEmpty(1))]);
    }

    #[test]
    fn follow_up_inputs_are_made_again_but_permutations_and_beyond_the_budget() {
        let sig =
            Signature::parse("fn f(xs: &[f64]) -> f64", &[Kind::FloatSeq], Kind::Float).unwrap();
        let transforms = Transform::all(&sig);
        let mut mean = |v: &[Value]| {
            let xs = v[0].elements()?;
            Some(Value::Float(xs.iter().sum::<f64>() / xs.len() as f64))
        };
        let input = vec![Value::FloatSeq(vec![1.0, 2.0, 3.0])];
        let o = observe(&sig, &transforms, input.clone(), &mut mean, 3).unwrap();
        let permuting = transforms
            .iter()
            .filter(|t| {
                matches!(
                    t,
                    Transform::Seq {
                        op: SeqOp::Permute,
                        ..
                    } | Transform::SeqThen {
                        first: SeqOp::Permute,
                        ..
                    }
                )
            })
            .count();
        assert_eq!(permuting, 4);
        let mut budget = usize::MAX;
        let runs = results(&transforms, &o, &mut budget);
        assert_eq!(runs.len(), 1 + transforms.len() - permuting);
        assert_eq!(&*runs[0].0, &input[..]);
        assert_eq!(runs[1].0[0], Value::FloatSeq(vec![3.0, 2.0, 1.0]));
        assert_eq!(runs[1].1, o.follow[1].output.as_ref().unwrap());
        // Three elements left after the reversal's three: the sort's do not fit.
        let mut budget = 5;
        assert_eq!(results(&transforms, &o, &mut budget).len(), 2);
        assert_eq!(budget, 2);
        // Exactly enough for both.
        let mut budget = 6;
        assert_eq!(results(&transforms, &o, &mut budget).len(), 3);
        assert_eq!(budget, 0);
    }
}
