//! The proposals from what a running program observed (`#[invite::discover]`): the
//! observations made by another version of the function or of invite are left out and counted.

use super::observe::Observation;
use super::proposal::{propose, Proposals};
use super::signature::Signature;
use super::suspect::{suspects, Suspect};
use super::transform::Transform;
use super::value::{Kind, Value};
use super::Error;

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
    /// Relations that held on most inputs and failed on one kind of them: defects, or guards
    /// to write.
    pub suspects: Vec<Suspect>,
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
    let signature = first.signature.as_deref().unwrap_or(signature);
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
    let mut proposals = propose(site, &sig, &used, min_inputs);
    // The wrong versions `#[invite::discover(mutants = true)]` observed beside the function,
    // each by its name, on the calls it was observed on.
    let mut versions: Vec<&str> = Vec::new();
    for m in used.iter().flat_map(|o| &o.mutants) {
        if !versions.contains(&m.version.as_str()) {
            versions.push(&m.version);
        }
    }
    if !versions.is_empty() {
        let of_mutants = versions.iter().map(|v| {
            used.iter()
                .filter_map(|o| o.of_mutant(v))
                .collect::<Vec<Observation>>()
        });
        super::discovery::judge(&sig, &transforms, &mut proposals, of_mutants);
    }
    Ok(Observed {
        suspects: suspects(site, &sig, &used, min_inputs, &proposals),
        proposals,
        observations: used.len(),
        distinct_inputs,
        mismatched: obs.len() - used.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discover::{observe, SignatureError};

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
}
