//! Folding away relations that follow from others: inverses and compositions within the
//! polynomial family, composites no better than their parts, and relations between three runs
//! that the combined run alone already states.

use super::form::Form;
use super::guard::Guard;
use super::search::{Found, Subject};
use super::transform::{SeqOp, Transform};

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
pub(super) fn cleanse(transforms: &[Transform], found: Vec<Found>) -> Vec<Found> {
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
pub(super) fn fold(transforms: &[Transform], found: Vec<Found>) -> Vec<Found> {
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
            // A sum of two runs each related to the original alone says what those say.
            Subject::Recurrence { first, second, .. } => {
                let equal = |t: usize| {
                    follows(t, f.guard).any(|g| {
                        matches!(&g.subject, Subject::Follow { form, .. }
                            if matches!(form, Form::Affine { .. } | Form::Param(_) | Form::ByParam { .. }))
                    })
                };
                !(equal(*first) && equal(*second))
            }
            // Of a nested call and a single one, neither is a run the others compare.
            Subject::Property(_) | Subject::Image(_) | Subject::Compose { .. } => true,
        };
        if keep {
            kept.push(f.clone());
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discover::cover::Catches;
    use crate::discover::{transform, triple, Kind, Signature};

    #[test]
    fn a_recurrence_is_folded_only_where_both_its_runs_are_related_alone() {
        let base = |subject: Subject| Found {
            subject,
            guard: None,
            inputs: 30,
            held: 30,
            detects: 3,
            catches: Catches::default(),
            perturbations: 6,
            tolerance: 0.0,
            projection: None,
        };
        let equal = |transform: usize| {
            base(Subject::Follow {
                transform,
                center: None,
                form: Form::Affine {
                    alpha: transform::Const::lit(1.0),
                    beta: transform::Const::lit(1.0),
                },
            })
        };
        let recurrence = base(Subject::Recurrence {
            first: 0,
            second: 1,
            a: 1,
            b: 1,
        });
        let sig = Signature::parse("fn f(n: i64) -> i64", &[Kind::Int], Kind::Int).unwrap();
        let transforms = Transform::all(&sig);
        let recurrences = |list: Vec<Found>| {
            fold(&transforms, list)
                .into_iter()
                .filter(|f| matches!(f.subject, Subject::Recurrence { .. }))
                .count()
        };
        assert_eq!(recurrences(vec![recurrence.clone()]), 1);
        assert_eq!(recurrences(vec![equal(0), recurrence.clone()]), 1);
        assert_eq!(recurrences(vec![equal(1), recurrence.clone()]), 1);
        assert_eq!(recurrences(vec![equal(0), equal(1), recurrence]), 0);
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
            catches: Catches::default(),
            perturbations: 9,
            tolerance: 0.0,
            projection: None,
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
            catches: Catches::default(),
            perturbations: 6,
            tolerance: 0.0,
            projection: None,
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
}
