//! The search: for every transformation, the output relations that hold on every observation
//! (or on every observation of one input category), how many wrong outputs each would catch,
//! and the representative set left after relations implied by others are folded away.

use std::collections::HashSet;

use super::form::{fit_elementwise, fit_numeric, Form, Pair};
use super::guard::Guard;
use super::observe::Observation;
use super::perturb::Perturbation;
use super::signature::Signature;
use super::transform::{Const, Transform, FLOAT_B};
use super::value::{Kind, Value};

/// A relation that held.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    /// Index of its transformation.
    pub transform: usize,
    /// A reflection's point.
    pub center: Option<f64>,
    /// The category of inputs it holds on (`None`: all).
    pub guard: Option<Guard>,
    /// The output relation.
    pub form: Form,
    /// Distinct inputs it held on.
    pub inputs: usize,
    /// Observations it held on (all of those under its guard).
    pub held: usize,
    /// Wrong outputs it catches, of [`Found::perturbations`].
    pub detects: usize,
    /// Wrong outputs tried.
    pub perturbations: usize,
    /// The relative tolerance invite's comparison needs for it.
    pub tolerance: f64,
}

/// Searches `obs` (observations of `sig` under `transforms`) for relations holding on at least
/// `min_inputs` distinct inputs.
pub fn search(
    sig: &Signature,
    transforms: &[Transform],
    obs: &[Observation],
    min_inputs: usize,
) -> Vec<Found> {
    let ids: Vec<String> = transforms.iter().map(|t| t.id(sig)).collect();
    let obs: Vec<&Observation> = obs
        .iter()
        .filter(|o| {
            o.follow.len() == ids.len()
                && o.follow.iter().zip(&ids).all(|(f, id)| &f.transform == id)
        })
        .collect();
    let keys: Vec<String> = obs.iter().map(|o| format!("{:?}", o.input)).collect();
    let distinct = |idx: &[usize]| {
        idx.iter()
            .map(|&i| keys[i].as_str())
            .collect::<HashSet<_>>()
            .len()
    };
    let all: Vec<usize> = (0..obs.len()).collect();
    if distinct(&all) < min_inputs.max(1) {
        return Vec::new();
    }
    if too_noisy(&obs) {
        return Vec::new();
    }
    let guards = Guard::all(sig);
    let mut found = Vec::new();
    for (t, transform) in transforms.iter().enumerate() {
        let center = match transform {
            Transform::Reflect { .. } => match common_center(&obs, t) {
                Some(c) => Some(c),
                None => continue,
            },
            _ => None,
        };
        // Inequalities and the other weak forms only where they are the relation of the
        // transformation (a sequence grown or cut, an implication between booleans), and under
        // no guard but the one that makes the transformation apply: a monotone number function
        // would otherwise give one per grid point and category.
        let weak = matches!(transform, Transform::Seq { .. }) || sig.output == Kind::Bool;
        let forms = forms_on(sig, &obs, t, &all, weak);
        let (guard, forms, on) = if !forms.is_empty() {
            (None, forms, all.clone())
        } else {
            // The widest category on which a relation holds, and which it separates cleanly:
            // it fails on most inputs outside.
            let mut best: Option<(Guard, Vec<Form>, Vec<usize>)> = None;
            for g in &guards {
                let on: Vec<usize> = all
                    .iter()
                    .copied()
                    .filter(|&i| g.holds(&obs[i].input))
                    .collect();
                if on.len() == all.len()
                    || distinct(&on) < min_inputs
                    || best.as_ref().is_some_and(|b| b.2.len() >= on.len())
                {
                    continue;
                }
                let off: Vec<usize> = all.iter().copied().filter(|i| !on.contains(i)).collect();
                let applies = matches!(g, Guard::NonEmpty(_) | Guard::Several(_));
                let forms: Vec<Form> = forms_on(sig, &obs, t, &on, weak && applies)
                    .into_iter()
                    .filter(|f| {
                        let failing = off
                            .iter()
                            .filter(|&&i| !pair(&obs, i, t).is_some_and(|p| f.holds(&p)))
                            .count();
                        2 * failing > off.len()
                    })
                    .collect();
                if !forms.is_empty() {
                    best = Some((*g, forms, on));
                }
            }
            match best {
                Some((g, forms, on)) => (Some(g), forms, on),
                None => continue,
            }
        };
        let mut scored: Vec<(Form, usize, usize)> = forms
            .into_iter()
            .map(|form| {
                let (detects, perturbations) = detections(sig.output, &obs, t, &on, &form);
                (form, detects, perturbations)
            })
            .collect();
        // Of several weak forms of one transformation, the one that catches most says enough.
        if scored.len() > 1 {
            let best = scored.iter().map(|s| s.1).max().unwrap_or(0);
            let first = scored.iter().position(|s| s.1 == best).unwrap_or(0);
            scored = vec![scored.swap_remove(first)];
        }
        for (form, detects, perturbations) in scored {
            let tolerance = on
                .iter()
                .filter_map(|&i| pair(&obs, i, t))
                .map(|p| form.needed_tolerance(&p))
                .fold(0.0, f64::max);
            found.push(Found {
                transform: t,
                center,
                guard,
                form,
                inputs: distinct(&on),
                held: on.len(),
                detects,
                perturbations,
                tolerance,
            });
        }
    }
    found.extend(monotone(sig, transforms, &obs, &all, &distinct));
    found.retain(|f| f.detects > 0);
    found
}

/// Strict monotonicity in one number parameter, `f(x + 1) > result` or `<`, whether or not an
/// equality holds for that shift: unlike the equalities (which `0` satisfies whenever it is a
/// fixed point of the output relation), it fails for every constant function.
fn monotone(
    sig: &Signature,
    transforms: &[Transform],
    obs: &[&Observation],
    all: &[usize],
    distinct: &dyn Fn(&[usize]) -> usize,
) -> Vec<Found> {
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
            let (detects, perturbations) = detections(sig.output, obs, t, all, &form);
            out.push(Found {
                transform: t,
                center: None,
                guard: None,
                form,
                inputs: distinct(all),
                held: all.len(),
                detects,
                perturbations,
                tolerance: 0.0,
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

/// The output relations of transformation `t` that hold on every observation in `on`: the
/// first equality form that holds (fitted on every other observation, checked on all), and
/// every weaker form that holds too when no equality does.
fn forms_on(
    sig: &Signature,
    obs: &[&Observation],
    t: usize,
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
            if let Some(f) = fit_numeric(&fit, &pairs, integral) {
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
            if let Some(f) = [same, negated].into_iter().find(holds) {
                out.push(f);
            } else if weak {
                out.extend([Form::AtLeast, Form::AtMost].into_iter().filter(holds));
            }
        }
        Kind::FloatSeq | Kind::IntSeq => {
            if let Some(f) = fit_elementwise(&fit, &pairs, integral) {
                out.push(f);
            } else if holds(&Form::SeqReversed) {
                out.push(Form::SeqReversed);
            } else if holds(&Form::SeqPermutation) {
                out.push(Form::SeqPermutation);
            } else if weak {
                let weak = [
                    Form::Subset,
                    Form::Superset,
                    Form::LenDelta(1),
                    Form::LenDelta(-1),
                    Form::LenDouble,
                ];
                out.extend(weak.into_iter().filter(holds));
            }
        }
    }
    out
}

/// How many of the perturbations of the output the relation catches on the observations `on`.
fn detections(
    kind: Kind,
    obs: &[&Observation],
    t: usize,
    on: &[usize],
    form: &Form,
) -> (usize, usize) {
    let sized = obs[on[0]].input.iter().any(|v| v.kind().is_seq());
    let list = Perturbation::for_kind(kind, sized);
    let first = &obs[on[0]].output;
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
    let caught = list
        .iter()
        .filter(|p| {
            on.iter().any(|&i| {
                let o = obs[i];
                let f = &o.follow[t];
                let Some(y2) = &f.output else { return false };
                let y = p.apply(&o.output, first, scale, o.probe, o.size);
                let y2 = p.apply(y2, first, scale, f.probe, f.size);
                !form.holds(&Pair {
                    y: &y,
                    y2: &y2,
                    n: o.noise,
                    n2: f.noise,
                })
            })
        })
        .count();
    (caught, list.len())
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
    let id = transforms[f.transform].id(sig);
    obs.iter()
        .filter(|o| o.follow.get(f.transform).is_some_and(|x| x.transform == id))
        .filter(|o| f.guard.is_none_or(|g| g.holds(&o.input)))
        .all(|o| {
            let follow = &o.follow[f.transform];
            let same_center = match (f.center, follow.center) {
                (Some(c), Some(d)) => (c - d).abs() <= 1e-9 * c.abs().max(1.0),
                (None, _) => true,
                (Some(_), None) => false,
            };
            same_center
                && follow.output.as_ref().is_some_and(|y2| {
                    f.form.holds(&Pair {
                        y: &o.output,
                        y2,
                        n: o.noise,
                        n2: follow.noise,
                    })
                })
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
