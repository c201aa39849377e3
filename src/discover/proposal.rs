//! The proposals: what the search found, sorted simplest first and folded (so that what others
//! follow from is the one kept), then ranked by the wrong outputs each catches; and their forms
//! for a reader, for JSON and for pasting into `#[invite::metamorphic(...)]`.

use std::fmt;

use serde::Serialize;

use super::cover::{self, Catches};
use super::fold::{cleanse, fold};
use super::observe::Observation;
use super::project::Projection;
use super::render;
use super::search::{self, Found};
use super::signature::Signature;
use super::transform::{self, Transform};

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
    /// Wrong versions of the function it catches ([`Discovery::mutants`](super::Discovery::mutants)).
    #[serde(skip_serializing_if = "is_zero")]
    pub kills: usize,
    /// Wrong versions of the function tried.
    #[serde(skip_serializing_if = "is_zero")]
    pub mutants: usize,
    /// The relative tolerance it needs, when more than the default of a site.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
    /// The relation as the search found it, to check it on further observations.
    #[serde(skip)]
    pub(super) check: Option<Found>,
    /// The periods of the signature it was found with (`Signature::periods`): its
    /// follow-ups are numbered in the transformations they add.
    #[serde(skip)]
    pub(super) periods: Vec<(usize, i128)>,
    /// The separators of the signature it was found with (`Signature::separators`), which
    /// add transformations likewise.
    #[serde(skip)]
    pub(super) separators: Vec<(usize, char)>,
    /// Whether it is claimed only where the result and its follow-ups are defined (`Some`,
    /// `Ok`): a relation of neighbouring inputs that breaks only where one of them leaves the
    /// function's domain (the last day of a calendar a week on).
    #[serde(skip)]
    pub(super) defined: bool,
    /// The integer parameter, and the span of its given values, it is claimed within: a
    /// relation broken only beyond every given input (a calendar's years past its end).
    #[serde(skip)]
    pub(super) span: Option<(usize, i128, i128)>,
}

/// The proposals for one or more sites, best first within each.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Proposals(pub Vec<Proposal>);

impl Proposal {
    /// The proposal of what the search found.
    pub(super) fn of(site: &str, sig: &Signature, transforms: &[Transform], f: &Found) -> Self {
        Proposal {
            site: site.to_string(),
            relation: render::relation(sig, transforms, f),
            inputs: f.inputs,
            held: f.held,
            detects: f.detects,
            perturbations: f.perturbations,
            kills: 0,
            mutants: 0,
            tolerance: (f.tolerance > SITE_TOLERANCE).then_some(f.tolerance),
            check: Some(f.clone()),
            periods: sig.periods.clone(),
            separators: sig.separators.clone(),
            defined: false,
            span: None,
        }
    }
}

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

    /// The representative set: for each site, the fewest proposals that together catch every
    /// wrong output any of them catches, on every input where one does, the cheapest per
    /// catch first (greedy set cover); in the order of `self`. A proposal with no
    /// evidence to judge by (read back from JSON) is kept.
    pub fn representative(&self) -> Proposals {
        let mut keep = vec![false; self.0.len()];
        for (site, _) in self.by_site() {
            let members: Vec<usize> = (0..self.0.len())
                .filter(|&k| self.0[k].site == site)
                .collect();
            let none = Catches::default();
            let candidates: Vec<(&Catches, usize)> = members
                .iter()
                .map(|&k| match &self.0[k].check {
                    Some(f) => (&f.catches, f.executions()),
                    None => (&none, 1),
                })
                .collect();
            for c in cover::representative(&candidates) {
                keep[members[c]] = true;
            }
            for &k in &members {
                keep[k] |= self.0[k].check.is_none();
            }
        }
        Proposals(
            self.0
                .iter()
                .zip(keep)
                .filter(|(_, kept)| *kept)
                .map(|(p, _)| p.clone())
                .collect(),
        )
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

fn is_zero(n: &usize) -> bool {
    *n == 0
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
                if p.mutants > 0 {
                    write!(f, " and {} of {} mutants", p.kills, p.mutants)?;
                }
                if p.check.as_ref().is_some_and(|c| c.raw_constants() > 0) {
                    // A model retrained moves such a constant: the relation is of this fit.
                    write!(
                        f,
                        "; a constant fitted to these results, to their precision"
                    )?;
                }
                match p.tolerance {
                    Some(t) => writeln!(f, "; needs tolerance {t:.1e}")?,
                    None => writeln!(f)?,
                }
            }
        }
        Ok(())
    }
}

/// The proposals from observations of one site: of its whole result, and of each part of a
/// composite one (the value inside an `Option`, a tuple's elements; see `project`).
pub fn propose(site: &str, sig: &Signature, obs: &[Observation], min_inputs: usize) -> Proposals {
    let obs = &super::observe::with_rounding(sig, obs);
    let transforms = Transform::all(sig);
    let mut found = of_result(sig, &transforms, obs, min_inputs);
    for p in Projection::all(sig, obs) {
        let Some(part) = p.signature(sig) else {
            continue;
        };
        found.extend(
            of_result(&part, &transforms, &p.observations(obs), min_inputs)
                .into_iter()
                .map(|f| Found {
                    projection: Some(p),
                    ..f
                }),
        );
    }
    let mut out: Vec<Proposal> = found
        .iter()
        .map(|f| Proposal::of(site, sig, &transforms, f))
        .collect();
    out.dedup_by(|a, b| a.relation == b.relation);
    rank(&mut out);
    Proposals(out)
}

/// Most wrong outputs caught per execution of the function a test of it adds first (a
/// property, which adds none, before any relation), then the shorter; a stable order.
pub(super) fn rank(proposals: &mut [Proposal]) {
    let rate = |p: &Proposal| match p.check.as_ref().map_or(1, Found::executions) {
        0 => f64::INFINITY,
        e => p.detects as f64 / e as f64,
    };
    proposals.sort_by(|a, b| {
        rate(b)
            .total_cmp(&rate(a))
            .then(a.relation.len().cmp(&b.relation.len()))
    });
}

/// What held of `sig`'s result, with what follows from others folded away, simplest first.
fn of_result(
    sig: &Signature,
    transforms: &[Transform],
    obs: &[Observation],
    min_inputs: usize,
) -> Vec<Found> {
    let mut found = search::search(sig, transforms, obs, min_inputs);
    // Simplest first, so that what others follow from is kept and they are folded into it.
    let text = |f: &Found| render::relation(sig, transforms, f);
    // Of two as long, the one whose follow-up has fewer minus signs (`n + 1` before `1 - n`).
    found.sort_by_cached_key(|f| {
        let t = text(f);
        let follow_up = t.split(" == ").next().unwrap_or(&t);
        (
            f.raw_constants(),
            t.len(),
            follow_up.matches('-').count(),
            std::cmp::Reverse(f.detects),
        )
    });
    cleanse(transforms, fold(transforms, found))
}

#[cfg(test)]
mod tests {
    use super::*;

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
            kills: 0,
            mutants: 0,
            tolerance,
            check: None,
            periods: Vec::new(),
            separators: Vec::new(),
            defined: false,
            span: None,
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
        assert!(!text.contains("mutants"), "{text}");
        // With wrong versions of the function given, what it catches of them.
        let judged = Proposals(vec![Proposal {
            kills: 2,
            mutants: 5,
            ..p("f(-x) == result", None)
        }]);
        let text = judged.to_string();
        assert!(
            text.contains("catches 1 of 6 wrong outputs and 2 of 5 mutants\n"),
            "{text}"
        );
        let json = judged.to_json();
        assert!(
            json.contains("\"kills\": 2,\n") && json.contains("\"mutants\": 5"),
            "{json}"
        );
        assert!(!found.to_json().contains("kills"), "{}", found.to_json());
    }

    #[test]
    fn the_representative_set_catches_all_the_whole_set_catches_with_fewer() {
        let found = crate::discover::Discovery::new("fn sin(x: f64) -> f64", |x: f64| x.sin())
            .unwrap()
            .inputs((0..60).map(|i| (f64::from(i) * 0.37 - 11.0,)))
            .run();
        let rep = found.representative();
        assert!(rep.0.len() < found.0.len(), "{rep}\n{found}");
        assert!(!rep.0.is_empty());
        // In the whole set's order, each one of it.
        let mut rest = found.0.iter();
        for p in &rep.0 {
            assert!(rest.any(|q| q == p), "{} out of order", p.relation);
        }
        let union = |ps: &Proposals| {
            let mut all = Catches::default();
            for p in &ps.0 {
                all.add(&p.check.as_ref().unwrap().catches);
            }
            all
        };
        let (whole, kept) = (union(&found), union(&rep));
        assert_eq!(whole.beyond(&kept), 0, "something caught is left uncaught");
        // Each relation kept catches something the others kept do not; a property, which
        // costs no run, is taken first, whatever those after it catch.
        for (k, p) in rep.0.iter().enumerate() {
            if p.check.as_ref().unwrap().executions() == 0 {
                continue;
            }
            let others = Proposals(
                rep.0
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != k)
                    .map(|(_, q)| q.clone())
                    .collect(),
            );
            assert!(
                p.check.as_ref().unwrap().catches.beyond(&union(&others)) > 0,
                "{} adds nothing",
                p.relation
            );
        }
        // Read back from JSON, a proposal has no evidence: it is kept.
        let bare = Proposals(
            found
                .0
                .iter()
                .map(|p| Proposal {
                    check: None,
                    ..p.clone()
                })
                .collect(),
        );
        assert_eq!(bare.representative(), bare);
    }

    #[test]
    fn proposals_are_ranked_by_what_they_catch_per_execution() {
        let rate = |p: &Proposal| {
            let f = p.check.as_ref().unwrap();
            match f.executions() {
                0 => f64::INFINITY,
                e => p.detects as f64 / e as f64,
            }
        };
        // `exp`'s sign catches less than its relations, and a relation of three runs costs two.
        for (sig, f) in [
            ("fn cosh(x: f64) -> f64", f64::cosh as fn(f64) -> f64),
            ("fn exp(x: f64) -> f64", f64::exp),
        ] {
            let found = crate::discover::Discovery::new(sig, f)
                .unwrap()
                .inputs((0..60).map(|i| (f64::from(i) * 0.23 - 7.0,)))
                .run();
            let rates: Vec<f64> = found.0.iter().map(rate).collect();
            assert!(rates.windows(2).all(|w| w[0] >= w[1]), "{rates:?}\n{found}");
            assert!(rates[0].is_infinite(), "a property first: {found}");
            let runs: Vec<usize> = found
                .0
                .iter()
                .map(|p| p.check.as_ref().unwrap().executions())
                .collect();
            assert!(runs.contains(&0) && runs.contains(&1), "{found}");
            // A constant is said to be fitted exactly where one is.
            let text = found.to_string();
            let lines: Vec<&str> = text.lines().collect();
            for p in &found.0 {
                let at = lines
                    .iter()
                    .position(|l| l.trim_start().strip_suffix(',') == Some(p.relation.as_str()))
                    .unwrap_or_else(|| panic!("{} not printed: {text}", p.relation));
                let fitted = p.check.as_ref().unwrap().raw_constants() > 0;
                assert_eq!(lines[at + 1].contains("fitted"), fitted, "{}", p.relation);
            }
        }
    }
}
