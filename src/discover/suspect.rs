//! Suspected defects: a relation that held on most of a function's inputs and failed on one
//! kind of them (even lengths, repeated or negative elements) is no proposal, since it does
//! not hold, but it may be the defect itself: a median wrong for even lengths fails
//! `median(&negate(xs)) == -result` on exactly those. Reported apart, with the kind of input
//! and the smallest failing one, so that a person decides: a guard, or a bug.

use std::fmt;

use serde::Serialize;

use super::observe::Observation;
use super::proposal::Proposals;
use super::render;
use super::search::{self, Subject};
use super::signature::Signature;
use super::transform::Transform;
use super::value::Value;

/// A relation that held on most inputs and failed on one kind of them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Suspect {
    /// The site, as named in the log (the function's name offline).
    pub site: String,
    /// The relation, as it would be written in `#[invite::metamorphic(...)]`.
    pub relation: String,
    /// The kind of inputs it failed on, in words ("an even length of `xs`").
    pub category: String,
    /// Observed calls of that kind it failed on.
    pub failed: usize,
    /// Observed calls of that kind it was judged on.
    pub of: usize,
    /// Other observed calls, all of which it held on.
    pub held: usize,
    /// The smallest input it failed on, as arguments (`xs = [1.0, 2.0]`).
    pub smallest: String,
}

impl fmt::Display for Suspect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}\n    held on all {} other calls; failed on {} of {} calls with {}; smallest: {}",
            self.site, self.relation, self.held, self.failed, self.of, self.category, self.smallest
        )
    }
}

/// The suspected defects among the observations of one site, beside its `proposals` (a
/// relation some proposal already states of a transformation is not suspected again).
pub fn suspects(
    site: &str,
    sig: &Signature,
    obs: &[Observation],
    min_inputs: usize,
    proposals: &Proposals,
) -> Vec<Suspect> {
    let transforms = Transform::all(sig);
    let proposed: Vec<usize> = proposals
        .0
        .iter()
        .filter_map(|p| match p.check.as_ref().map(|f| &f.subject) {
            Some(Subject::Follow { transform, .. }) => Some(*transform),
            _ => None,
        })
        .collect();
    search::near_misses(sig, &transforms, obs, min_inputs, &proposed)
        .into_iter()
        .map(|m| {
            let smallest = m
                .failing
                .iter()
                .min_by(|a, b| {
                    a.size
                        .cmp(&b.size)
                        .then(a.probe.abs().total_cmp(&b.probe.abs()))
                })
                .map(|o| arguments(sig, &o.input))
                .unwrap_or_default();
            Suspect {
                site: site.to_string(),
                relation: render::relation(sig, &transforms, &m.found),
                category: m.category.text(sig),
                failed: m.failing.len(),
                of: m.of,
                held: m.found.held,
                smallest,
            }
        })
        .collect()
}

/// An input as its arguments: `xs = [1.0, 2.0], tau = 0.5`.
fn arguments(sig: &Signature, input: &[Value]) -> String {
    let value = Value::source;
    sig.params
        .iter()
        .zip(input)
        .map(|(p, v)| format!("{} = {}", p.name, value(v)))
        .collect::<Vec<_>>()
        .join(", ")
}
