//! Output comparisons: what a follow-up's output must be, given the original's.

use std::cmp::Ordering;

use invite::mr::Op;
use invite::stats::{self, Claim};

use super::data::{cell_cmp, json_eq, number, row_cmp, Data, Format};
use super::step::Edit;

/// One relation's expectation.
#[derive(Clone, Debug, PartialEq)]
pub enum Expect {
    /// The same output (numbers within the tolerance).
    Equal,
    /// The original's output changed by a deterministic step (`multiply 10`, `reverse`, ...).
    Changed(Edit, String),
    /// The same rows in any order.
    SameRows,
    /// Every follow-up row is one of the original's (each used once).
    Subset,
    /// Every original row is one of the follow-up's.
    Superset,
    /// Every number of the follow-up's output compares so to the original's (`less`,
    /// `greater`, `less or equal`, `greater or equal`); everything else is equal.
    Order(Op),
    /// The user's command decides: `{original}` and `{followup}` are replaced by the two
    /// outputs' paths; exit status 0 passes, 1 fails, anything else is an error.
    Run(Vec<String>),
    /// The rows are a ranking, and the follow-up's ranks them close to the original's.
    Ranking(Ranking),
}

/// `ranking METRIC LIMIT [top|bottom P%]`: rows are the ranked items (compared as text), and
/// the metric between the two rankings must be within the limit.
#[derive(Clone, Debug, PartialEq)]
pub struct Ranking {
    /// How the two rankings are compared.
    pub metric: Metric,
    /// The largest distance allowed (for `equivalence`, the smallest share).
    pub limit: f64,
    /// Only the first (or, when negative, the last) share of each ranking is compared.
    pub share: Option<f64>,
}

/// The ranking metrics of `invite::stats`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// Spearman's footrule, normalised to 0..1.
    Footrule,
    /// The total displacement of items.
    Manhattan,
    /// The Euclidean distance between positions.
    Euclidean,
    /// How many positions hold different items.
    Differently,
    /// The share of positions holding the same item (at least the limit).
    Equivalence,
}

const METRICS: &str = "footrule, manhattan, euclidean, differently or equivalence";

/// What `Expect::parse` accepts, for error messages.
const EXPECTS: &str = "equal, same rows, subset, superset, less, greater, less or equal, \
                       greater or equal, a deterministic step such as `multiply 10`, \
                       ranking METRIC LIMIT [top P%], or run COMMAND {original} {followup}";

/// The placeholders of an external comparison.
pub const ORIGINAL: &str = "{original}";
/// See [`ORIGINAL`].
pub const FOLLOWUP: &str = "{followup}";

impl Expect {
    /// Parses an `expect` value.
    pub fn parse(text: &str, format: Format) -> Result<Expect, String> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let e = match words.join(" ").as_str() {
            "equal" => Expect::Equal,
            "same rows" => Expect::SameRows,
            "subset" => Expect::Subset,
            "superset" => Expect::Superset,
            "less" => Expect::Order(Op::Lt),
            "greater" => Expect::Order(Op::Gt),
            "less or equal" => Expect::Order(Op::Le),
            "greater or equal" => Expect::Order(Op::Ge),
            _ if words.first() == Some(&"ranking") => Expect::Ranking(Ranking::parse(&words[1..])?),
            _ if words.first() == Some(&"run") => {
                let argv: Vec<String> = words[1..].iter().map(|w| w.to_string()).collect();
                if !(argv.iter().any(|a| a.contains(ORIGINAL))
                    && argv.iter().any(|a| a.contains(FOLLOWUP)))
                {
                    return Err(format!(
                        "`run` needs a command naming both outputs, e.g. `run ./cmp.sh \
                         {ORIGINAL} {FOLLOWUP}`"
                    ));
                }
                Expect::Run(argv)
            }
            _ => {
                let edit = Edit::parse(text, format)
                    .map_err(|_| format!("unknown expectation; use {EXPECTS}"))?;
                if !edit.is_deterministic() {
                    return Err("`permute` is random; for output whose order does not \
                                matter use `same rows`"
                        .into());
                }
                Expect::Changed(edit, words.join(" "))
            }
        };
        Ok(e)
    }

    /// Checks the follow-up's output against the original's; `Err` explains the first
    /// difference. `Run` is checked by the caller.
    pub fn check(
        &self,
        original: &Data,
        followup: &Data,
        format: Format,
        tol: f64,
    ) -> Result<(), String> {
        match self {
            Expect::Equal => equal(original, followup, tol),
            Expect::Changed(_, text) => equal(&self.expected(original, format)?, followup, tol)
                .map_err(|e| format!("{e}, expected: `{text}` of the original's output")),
            Expect::SameRows => multiset(original, followup, tol, Containment::Same),
            Expect::Subset => multiset(original, followup, tol, Containment::Within),
            Expect::Superset => multiset(followup, original, tol, Containment::Within),
            Expect::Order(op) => order(original, followup, *op, tol),
            Expect::Ranking(r) => r.check(original, followup),
            Expect::Run(_) => unreachable!("external comparisons are run by the caller"),
        }
    }
}

impl Expect {
    /// The original's output as the follow-up's should compare to it: changed by the step of a
    /// `Changed`, as it is otherwise.
    pub fn expected(&self, original: &Data, format: Format) -> Result<Data, String> {
        let mut expected = original.clone();
        if let Expect::Changed(edit, _) = self {
            // Deterministic steps ignore the generator.
            let mut rng = <rand::rngs::SmallRng as rand::SeedableRng>::seed_from_u64(0);
            edit.apply(&mut expected, format, &mut rng)
                .map_err(|e| format!("the expectation cannot apply to the original: {e}"))?;
        }
        Ok(expected)
    }

    /// What a statistical relation claims of the follow-up's numbers (the left side) against
    /// the original's, expected: `None` for an expectation about rows, which no test judges.
    pub fn claim(&self) -> Option<Claim> {
        match self {
            Expect::Equal | Expect::Changed(..) => Some(Claim::Same),
            Expect::Order(op) => Claim::of(*op),
            Expect::SameRows
            | Expect::Subset
            | Expect::Superset
            | Expect::Ranking(_)
            | Expect::Run(_) => None,
        }
    }
}

impl Ranking {
    fn parse(words: &[&str]) -> Result<Ranking, String> {
        let usage = || {
            format!(
                "a ranking expectation reads `ranking METRIC LIMIT`, optionally followed by \
                 `top P%` or `bottom P%`, with METRIC one of {METRICS}: e.g. \
                 `ranking footrule 0.1 top 20%`"
            )
        };
        let (metric, limit, rest) = match words {
            [m, l, rest @ ..] => (m, l, rest),
            _ => return Err(usage()),
        };
        let metric = match *metric {
            "footrule" => Metric::Footrule,
            "manhattan" => Metric::Manhattan,
            "euclidean" => Metric::Euclidean,
            "differently" => Metric::Differently,
            "equivalence" => Metric::Equivalence,
            other => return Err(format!("unknown ranking metric `{other}`: use {METRICS}")),
        };
        let limit: f64 = limit
            .parse()
            .ok()
            .filter(|l: &f64| l.is_finite() && *l >= 0.0)
            .ok_or_else(|| format!("`{limit}` is not a limit: give a number, 0 or more"))?;
        if metric == Metric::Equivalence && limit > 1.0 {
            return Err(format!(
                "equivalence is a share of positions, from 0 to 1, not {limit}"
            ));
        }
        let share = match rest {
            [] => None,
            [end @ ("top" | "bottom"), p] => {
                let v: f64 = p
                    .strip_suffix('%')
                    .and_then(|v| v.parse().ok())
                    .filter(|v: &f64| *v > 0.0 && *v <= 100.0)
                    .ok_or_else(|| format!("`{p}` is not a share: write e.g. `10%`"))?;
                Some(if *end == "top" { v / 100.0 } else { -v / 100.0 })
            }
            _ => return Err(usage()),
        };
        Ok(Ranking {
            metric,
            limit,
            share,
        })
    }

    fn check(&self, original: &Data, followup: &Data) -> Result<(), String> {
        let items =
            |d: &Data| -> Vec<String> { rows_of(d).into_iter().map(|r| r.join(",")).collect() };
        let (a, b) = (items(original), items(followup));
        let (a, b, part) = match self.share {
            None => (&a[..], &b[..], String::new()),
            Some(s) if s > 0.0 => (
                stats::top(&a, s),
                stats::top(&b, s),
                format!(" (top {}%)", s * 100.0),
            ),
            Some(s) => (
                stats::bottom(&a, -s),
                stats::bottom(&b, -s),
                format!(" (bottom {}%)", -s * 100.0),
            ),
        };
        let (name, value, holds) = match self.metric {
            Metric::Footrule => {
                let v = stats::footrule(a, b);
                ("footrule", v, v <= self.limit)
            }
            Metric::Manhattan => {
                let v = stats::manhattan(a, b) as f64;
                ("manhattan distance", v, v <= self.limit)
            }
            Metric::Euclidean => {
                let v = stats::euclidean(a, b);
                ("euclidean distance", v, v <= self.limit)
            }
            Metric::Differently => {
                let v = stats::ranked_differently(a, b) as f64;
                ("items ranked differently", v, v <= self.limit)
            }
            Metric::Equivalence => {
                let v = stats::same_place_share(a, b);
                ("share ranked the same", v, v >= self.limit)
            }
        };
        if holds {
            Ok(())
        } else {
            let bound = if self.metric == Metric::Equivalence {
                "below"
            } else {
                "above"
            };
            Err(format!(
                "the rankings differ: {name} {value} over {} and {} items{part}, {bound} the \
                 limit {}",
                a.len(),
                b.len(),
                self.limit
            ))
        }
    }
}

fn show(rows: &[Vec<String>], i: usize) -> String {
    rows.get(i)
        .map_or("(none)".into(), |r| format!("`{}`", r.join(",")))
}

fn equal(expected: &Data, got: &Data, tol: f64) -> Result<(), String> {
    match (expected, got) {
        (Data::Json(a), Data::Json(b)) => {
            if json_eq(a, b, tol) {
                Ok(())
            } else {
                Err(format!("expected {a}, got {b}"))
            }
        }
        (
            Data::Table {
                header: ha,
                rows: a,
            },
            Data::Table {
                header: hb,
                rows: b,
            },
        ) => {
            if ha != hb {
                return Err(format!("header: expected {ha:?}, got {hb:?}"));
            }
            for i in 0..a.len().max(b.len()) {
                let same = match (a.get(i), b.get(i)) {
                    (Some(x), Some(y)) => {
                        x.len() == y.len()
                            && x.iter()
                                .zip(y)
                                .all(|(p, q)| cell_cmp(p, q, tol) == Some(Ordering::Equal))
                    }
                    _ => false,
                };
                if !same {
                    return Err(format!(
                        "row {}: expected {}, got {} ({} rows expected, {} got)",
                        i + 1,
                        show(a, i),
                        show(b, i),
                        a.len(),
                        b.len()
                    ));
                }
            }
            Ok(())
        }
        _ => unreachable!("both outputs are read in the spec's format"),
    }
}

#[derive(PartialEq)]
enum Containment {
    Same,
    Within,
}

/// Whether every row of `inner` matches a distinct row of `outer` (and, for `Same`, the other
/// way round), after sorting both.
fn multiset(outer: &Data, inner: &Data, tol: f64, how: Containment) -> Result<(), String> {
    let (mut o, mut i) = (rows_of(outer), rows_of(inner));
    let order = |a: &Vec<String>, b: &Vec<String>| row_cmp(a, b, tol);
    o.sort_by(order);
    i.sort_by(order);
    if how == Containment::Same && o.len() != i.len() {
        return Err(format!("{} rows expected, {} got", o.len(), i.len()));
    }
    let mut at = 0;
    for row in &i {
        while at < o.len() && order(&o[at], row) == Ordering::Less {
            at += 1;
        }
        if at == o.len() || order(&o[at], row) != Ordering::Equal {
            return Err(format!(
                "the row `{}` has no match among the {} rows it must be in",
                row.join(","),
                o.len()
            ));
        }
        at += 1;
    }
    Ok(())
}

fn rows_of(d: &Data) -> Vec<Vec<String>> {
    match d {
        Data::Table { rows, .. } => rows.clone(),
        Data::Json(serde_json::Value::Array(a)) => a.iter().map(|v| vec![v.to_string()]).collect(),
        Data::Json(v) => vec![vec![v.to_string()]],
    }
}

fn order(original: &Data, followup: &Data, op: Op, tol: f64) -> Result<(), String> {
    let (a, b) = (rows_of(original), rows_of(followup));
    if a.len() != b.len() {
        return Err(format!("{} rows expected, {} got", a.len(), b.len()));
    }
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        if x.len() != y.len() {
            return Err(format!(
                "row {}: {} cells expected, {} got",
                i + 1,
                x.len(),
                y.len()
            ));
        }
        for (p, q) in x.iter().zip(y) {
            let holds = match (number(p), number(q)) {
                (Some(_), Some(_)) => op.holds(cell_cmp(q, p, tol)),
                _ => p.trim() == q.trim(),
            };
            if !holds {
                return Err(format!(
                    "row {}: the follow-up's `{q}` is not {} the original's `{p}`",
                    i + 1,
                    op.symbol()
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(s: &str) -> Data {
        Data::parse(s.as_bytes(), Format::Csv, false).unwrap()
    }

    #[test]
    fn rankings_are_compared_by_the_metric_within_the_limit() {
        let p = |t: &str| Expect::parse(t, Format::Lines);
        let lines = |s: &str| Data::parse(s.as_bytes(), Format::Lines, false).unwrap();
        let original = lines("a\nb\nc\nd\n");
        let swapped = lines("b\na\nc\nd\n");
        let check = |t: &str, got: &Data| p(t).unwrap().check(&original, got, Format::Lines, 0.0);
        // Two items swapped: footrule 2/8, manhattan 2, euclidean √2, 2 differ, half the same.
        assert!(check("ranking footrule 0.25", &swapped).is_ok());
        let e = check("ranking footrule 0.2", &swapped).unwrap_err();
        assert_eq!(
            e,
            "the rankings differ: footrule 0.25 over 4 and 4 items, above the limit 0.2"
        );
        assert!(check("ranking manhattan 2", &swapped).is_ok());
        assert!(check("ranking manhattan 1", &swapped).is_err());
        assert!(check("ranking euclidean 1.5", &swapped).is_ok());
        assert!(check("ranking euclidean 1.4", &swapped).is_err());
        assert!(check("ranking differently 2", &swapped).is_ok());
        assert!(check("ranking differently 1", &swapped).is_err());
        assert!(check("ranking equivalence 0.5", &swapped).is_ok());
        assert!(check("ranking equivalence 1", &original).is_ok());
        assert!(check("ranking equivalence 1", &swapped).is_err());
        let e = check("ranking equivalence 0.6", &swapped).unwrap_err();
        assert!(
            e.contains("share ranked the same 0.5") && e.contains("below the limit 0.6"),
            "{e}"
        );
        // Only the bottom half: c and d kept their places.
        assert!(check("ranking differently 0 bottom 50%", &swapped).is_ok());
        let e = check("ranking differently 0 top 50%", &swapped).unwrap_err();
        assert!(e.contains("over 2 and 2 items (top 50%)"), "{e}");
        for bad in [
            "ranking",
            "ranking footrule",
            "ranking spearman 0.1",
            "ranking footrule -1",
            "ranking equivalence 2",
            "ranking footrule 0.1 top",
            "ranking footrule 0.1 top 0%",
            "ranking footrule 0.1 middle 10%",
        ] {
            assert!(p(bad).is_err(), "{bad}");
        }
        assert_eq!(p("ranking footrule 0.1").unwrap().claim(), None);
    }

    #[test]
    fn statistical_claims_and_expected_outputs() {
        let p = |t: &str| Expect::parse(t, Format::Csv).unwrap();
        assert_eq!(p("equal").claim(), Some(Claim::Same));
        assert_eq!(p("multiply 10").claim(), Some(Claim::Same));
        assert_eq!(p("less").claim(), Some(Claim::NotAbove));
        assert_eq!(p("less or equal").claim(), Some(Claim::NotAbove));
        assert_eq!(p("greater").claim(), Some(Claim::NotBelow));
        assert_eq!(p("greater or equal").claim(), Some(Claim::NotBelow));
        for rows in [
            "same rows",
            "subset",
            "superset",
            "run cmp {original} {followup}",
        ] {
            assert_eq!(p(rows).claim(), None, "{rows}");
        }
        let d = data("a,2\nb,-1\n");
        assert_eq!(
            p("multiply 10").expected(&d, Format::Csv).unwrap(),
            data("a,20\nb,-10\n")
        );
        assert_eq!(p("equal").expected(&d, Format::Csv).unwrap(), d);
        assert_eq!(p("less").expected(&d, Format::Csv).unwrap(), d);
    }

    fn check(expect: &str, original: &str, followup: &str) -> Result<(), String> {
        Expect::parse(expect, Format::Csv).unwrap().check(
            &data(original),
            &data(followup),
            Format::Csv,
            1e-9,
        )
    }

    #[test]
    fn equal_compares_every_cell_and_names_the_first_difference() {
        assert!(check("equal", "a,1\nb,2\n", "a,1.0\nb,2\n").is_ok());
        let err = check("equal", "a,1\nb,2\n", "a,1\nb,3\n").unwrap_err();
        assert!(err.starts_with("row 2: expected `b,2`, got `b,3`"), "{err}");
        let err = check("equal", "a,1\n", "a,1\nb,2\n").unwrap_err();
        assert!(err.contains("row 2: expected (none)"), "{err}");
        assert!(check("equal", "a,1\n", "a,1,x\n").is_err());
        let h = |s: &str| Data::parse(s.as_bytes(), Format::Csv, true).unwrap();
        let err = Expect::Equal
            .check(&h("x\n1\n"), &h("y\n1\n"), Format::Csv, 0.0)
            .unwrap_err();
        assert!(err.starts_with("header"), "{err}");
    }

    #[test]
    fn a_changed_expectation_applies_the_step_to_the_original() {
        assert!(check("multiply 10", "a,1.5\n", "a,15\n").is_ok());
        assert!(check("multiply 10", "a,1.5\n", "a,1.5\n").is_err());
        assert!(check("add 1", "2\n", "3\n").is_ok());
        assert!(check("negate", "2\n", "-2\n").is_ok());
        assert!(check("reverse", "1\n2\n", "2\n1\n").is_ok());
        assert!(check("column 2 multiply 2", "1,1\n", "1,2\n").is_ok());
        let err = check("column 2 multiply 2", "1,1\n", "1,1\n").unwrap_err();
        assert!(
            err.contains("expected: `column 2 multiply 2` of the original's"),
            "{err}"
        );
    }

    #[test]
    fn row_sets_ignore_order_and_count_repeats() {
        assert!(check("same rows", "a\nb\nb\n", "b\na\nb\n").is_ok());
        assert!(check("same rows", "a\nb\nb\n", "b\na\na\n").is_err());
        assert!(check("same rows", "a\nb\n", "b\na\na\n").is_err());
        assert!(check("subset", "a\nb\nc\n", "c\na\n").is_ok());
        assert!(
            check("subset", "a\nb\nc\n", "c\nc\n").is_err(),
            "each row once"
        );
        let err = check("subset", "a\nb\n", "d\n").unwrap_err();
        assert!(err.contains("`d` has no match among the 2 rows"), "{err}");
        assert!(check("superset", "a\nb\n", "b\nx\na\n").is_ok());
        assert!(check("superset", "a\nb\n", "b\nx\n").is_err());
        assert!(check("same rows", "1.0\n2\n", "2.0\n1\n").is_ok());
    }

    #[test]
    fn orders_compare_numbers_and_require_the_rest_equal() {
        assert!(check("less", "a,2\n", "a,1\n").is_ok());
        assert!(check("less", "a,2\n", "a,2\n").is_err());
        assert!(check("less or equal", "a,2\n", "a,2\n").is_ok());
        assert!(check("greater", "a,2\n", "a,3\n").is_ok());
        assert!(check("greater or equal", "a,2\n", "a,1\n").is_err());
        let err = check("greater", "a,2\n", "b,3\n").unwrap_err();
        assert!(err.contains("`b` is not > the original's `a`"), "{err}");
        assert!(check("less", "1\n", "0\n1\n")
            .unwrap_err()
            .contains("1 rows expected, 2 got"));
        assert!(check("less", "1,1\n", "0\n")
            .unwrap_err()
            .contains("2 cells expected"));
    }

    #[test]
    fn json_outputs_compare_as_documents() {
        let j = |s: &str| Data::parse(s.as_bytes(), Format::Json, false).unwrap();
        let e = |x: &str| Expect::parse(x, Format::Json).unwrap();
        assert!(e("equal")
            .check(&j("[1,2]"), &j("[1.0,2]"), Format::Json, 1e-9)
            .is_ok());
        assert!(e("equal")
            .check(&j("[1,2]"), &j("[2,1]"), Format::Json, 1e-9)
            .is_err());
        assert!(e("same rows")
            .check(&j("[1,2]"), &j("[2,1]"), Format::Json, 1e-9)
            .is_ok());
        assert!(e("multiply 2")
            .check(&j("[1,2]"), &j("[2,4]"), Format::Json, 1e-9)
            .is_ok());
    }

    #[test]
    fn bad_expectations_say_what_is_accepted() {
        let err = Expect::parse("similar", Format::Csv).unwrap_err();
        assert!(err.contains("unknown expectation; use equal"), "{err}");
        let err = Expect::parse("permute", Format::Csv).unwrap_err();
        assert!(err.contains("use `same rows`"), "{err}");
        let err = Expect::parse("run ./cmp.sh {original}", Format::Csv).unwrap_err();
        assert!(err.contains("naming both outputs"), "{err}");
        assert_eq!(
            Expect::parse("run cmp {original} {followup}", Format::Csv).unwrap(),
            Expect::Run(vec!["cmp".into(), "{original}".into(), "{followup}".into()])
        );
        assert_eq!(
            Expect::parse(" less  or equal ", Format::Csv).unwrap(),
            Expect::Order(Op::Le)
        );
    }
}
