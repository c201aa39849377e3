//! Input transformations: the steps that make a follow-up's input from the original's.
//!
//! Row steps act on the data rows (a header stays first) or on a JSON document's top-level
//! array; arithmetic acts on every numeric cell, or on one column's, or on every number in a
//! JSON document. `run CMD...` hands the data to the user's own command, in the sandbox.

use rand::seq::SliceRandom;
use rand::Rng;

use super::data::{cell, number, row_cmp, Data, Format};

/// Arithmetic on numbers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arith {
    /// `x + c`
    Add(f64),
    /// `x · c`
    Multiply(f64),
    /// `-x`
    Negate,
}

impl Arith {
    /// The number mapped.
    pub fn apply(self, x: f64) -> f64 {
        match self {
            Arith::Add(c) => x + c,
            Arith::Multiply(c) => x * c,
            Arith::Negate => -x,
        }
    }

    fn apply_cell(self, c: &mut String) {
        if let Some(x) = number(c) {
            *c = cell(self.apply(x));
        }
    }

    fn apply_json(self, v: &mut serde_json::Value) {
        use serde_json::Value as V;
        match v {
            V::Number(n) => {
                if let Some(x) = n.as_f64() {
                    let y = self.apply(x);
                    *v = serde_json::Number::from_f64(y).map_or(V::Null, V::Number);
                }
            }
            V::Array(a) => a.iter_mut().for_each(|x| self.apply_json(x)),
            V::Object(o) => o.values_mut().for_each(|x| self.apply_json(x)),
            _ => {}
        }
    }
}

/// A change to data made in memory.
#[derive(Clone, Debug, PartialEq)]
pub enum Edit {
    /// The rows in a random order (seeded; the seed is in the log).
    Permute,
    /// The rows in reverse order.
    Reverse,
    /// The rows sorted, numerically where cells are numbers.
    Sort,
    /// The rows followed by a copy of themselves.
    Duplicate,
    /// Without the first `n` rows.
    Drop(usize),
    /// Only rows `from..=to` (1-based).
    Rows(usize, usize),
    /// One more row at the end (a JSON value for JSON).
    Append(String),
    /// Arithmetic on every number.
    Numbers(Arith),
    /// Arithmetic on one column's numbers (1-based).
    Column(usize, Arith),
}

/// One step of a relation's transformation.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// Made in memory.
    Edit(Edit),
    /// The user's command: the data on its standard input, the transformed data on its
    /// standard output.
    Run(Vec<String>),
}

/// What `Step::parse` accepts, for error messages.
pub const STEPS: &str = "permute, reverse, sort, duplicate, drop N, rows A..B, append TEXT, \
                         add C, multiply C, negate, column K add C, column K multiply C, \
                         column K negate, run COMMAND ARGS...";

fn num(word: Option<&str>, what: &str) -> Result<f64, String> {
    let w = word.ok_or_else(|| format!("`{what}` needs a number, e.g. `{what} 2`"))?;
    number(w)
        .filter(|x| x.is_finite())
        .ok_or_else(|| format!("`{w}` is not a finite number"))
}

fn count(word: Option<&str>, what: &str) -> Result<usize, String> {
    let w = word.ok_or_else(|| format!("`{what}` needs a count, e.g. `{what} 1`"))?;
    w.parse::<usize>()
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("`{w}` is not a count of at least 1"))
}

fn arith(words: &[&str]) -> Result<Arith, String> {
    let a = match words.first().copied() {
        Some("add") => Arith::Add(num(words.get(1).copied(), "add")?),
        Some("multiply") => Arith::Multiply(num(words.get(1).copied(), "multiply")?),
        Some("negate") => Arith::Negate,
        _ => return Err(format!("unknown step; use one of {STEPS}")),
    };
    let used = if a == Arith::Negate { 1 } else { 2 };
    if words.len() > used {
        return Err(format!("`{}` is one word too many", words[used]));
    }
    Ok(a)
}

impl Edit {
    /// Parses one step other than `run`.
    pub fn parse(text: &str, format: Format) -> Result<Edit, String> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let single = |e: Edit| {
            if words.len() > 1 {
                Err(format!("`{}` takes no argument", words[0]))
            } else {
                Ok(e)
            }
        };
        let edit = match words.first().copied() {
            None => return Err("empty step".into()),
            Some("permute") => single(Edit::Permute)?,
            Some("reverse") => single(Edit::Reverse)?,
            Some("sort") => single(Edit::Sort)?,
            Some("duplicate") => single(Edit::Duplicate)?,
            Some("drop") => {
                if words.len() > 2 {
                    return Err("`drop N` takes one count".into());
                }
                Edit::Drop(count(words.get(1).copied(), "drop")?)
            }
            Some("rows") => {
                let range = words.get(1).copied().unwrap_or("");
                let (a, b) = range
                    .split_once("..")
                    .and_then(|(a, b)| Some((a.parse::<usize>().ok()?, b.parse::<usize>().ok()?)))
                    .filter(|&(a, b)| a >= 1 && a <= b && words.len() == 2)
                    .ok_or_else(|| {
                        "`rows A..B` keeps rows A to B, counted from 1 (e.g. `rows 1..50`)"
                            .to_string()
                    })?;
                Edit::Rows(a, b)
            }
            Some("append") => {
                let rest = text.trim_start()["append".len()..].trim();
                if rest.is_empty() {
                    return Err("`append` needs the row to add, e.g. `append 1,2,3`".into());
                }
                if format == Format::Json
                    && serde_json::from_str::<serde_json::Value>(rest).is_err()
                {
                    return Err(format!("`{rest}` is not a JSON value to append"));
                }
                Edit::Append(rest.to_string())
            }
            Some("column") => {
                if !format.has_columns() {
                    return Err(format!(
                        "`column` needs rows of several cells; {format:?} data has none (use \
                         csv or tsv)"
                    ));
                }
                let k = count(words.get(1).copied(), "column")?;
                Edit::Column(k, arith(&words[2.min(words.len())..])?)
            }
            Some(_) => Edit::Numbers(arith(&words)?),
        };
        Ok(edit)
    }

    /// Whether the same data always gives the same result (everything but `permute`).
    pub fn is_deterministic(&self) -> bool {
        *self != Edit::Permute
    }

    /// Applies the change; `rng` shuffles for `permute`.
    pub fn apply(&self, data: &mut Data, format: Format, rng: &mut impl Rng) -> Result<(), String> {
        match data {
            Data::Table { rows, .. } => self.apply_rows(rows, format, rng),
            Data::Json(v) => self.apply_json(v, rng),
        }
    }

    fn apply_rows(
        &self,
        rows: &mut Vec<Vec<String>>,
        format: Format,
        rng: &mut impl Rng,
    ) -> Result<(), String> {
        match self {
            Edit::Numbers(a) => rows.iter_mut().flatten().for_each(|c| a.apply_cell(c)),
            Edit::Column(k, a) => {
                for r in rows.iter_mut() {
                    if let Some(c) = r.get_mut(k - 1) {
                        a.apply_cell(c);
                    }
                }
            }
            Edit::Append(text) => {
                // An ARFF row is a CSV row (the header is the file's, not the step's).
                let rows_format = if format == Format::Arff {
                    Format::Csv
                } else {
                    format
                };
                let added = Data::parse(text.as_bytes(), rows_format, false)?;
                if let Data::Table { rows: more, .. } = added {
                    rows.extend(more);
                }
            }
            _ => self.reorder(rows, rng, |a, b| row_cmp(a, b, 0.0))?,
        }
        Ok(())
    }

    fn apply_json(&self, v: &mut serde_json::Value, rng: &mut impl Rng) -> Result<(), String> {
        match self {
            Edit::Numbers(a) => a.apply_json(v),
            Edit::Column(..) => unreachable!("parse refuses columns of JSON"),
            _ => {
                let serde_json::Value::Array(items) = v else {
                    return Err("row steps need a JSON array at the top level".into());
                };
                if let Edit::Append(text) = self {
                    items.push(serde_json::from_str(text).map_err(|e| e.to_string())?);
                } else {
                    self.reorder(items, rng, json_order)?;
                }
            }
        }
        Ok(())
    }

    /// The row steps, for rows of any type.
    fn reorder<T: Clone>(
        &self,
        rows: &mut Vec<T>,
        rng: &mut impl Rng,
        order: impl Fn(&T, &T) -> std::cmp::Ordering,
    ) -> Result<(), String> {
        match *self {
            Edit::Permute => rows.shuffle(rng),
            Edit::Reverse => rows.reverse(),
            Edit::Sort => rows.sort_by(order),
            Edit::Duplicate => rows.extend_from_within(..),
            Edit::Drop(n) => {
                rows.drain(..n.min(rows.len()));
            }
            Edit::Rows(a, b) => {
                if a > rows.len() {
                    return Err(format!(
                        "`rows {a}..{b}`: the data has only {} rows",
                        rows.len()
                    ));
                }
                rows.truncate(b);
                rows.drain(..a - 1);
            }
            Edit::Numbers(_) | Edit::Column(..) | Edit::Append(_) => {
                unreachable!("handled by the callers")
            }
        }
        Ok(())
    }
}

fn json_order(a: &serde_json::Value, b: &serde_json::Value) -> std::cmp::Ordering {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x.total_cmp(&y),
        _ => a.to_string().cmp(&b.to_string()),
    }
}

impl Step {
    /// Parses one step.
    pub fn parse(text: &str, format: Format) -> Result<Step, String> {
        let words: Vec<&str> = text.split_whitespace().collect();
        if words.first() == Some(&"run") {
            if words.len() < 2 {
                return Err("`run` needs a command, e.g. `run ./scale.sh 2`".into());
            }
            return Ok(Step::Run(
                words[1..].iter().map(|w| w.to_string()).collect(),
            ));
        }
        Edit::parse(text, format).map(Step::Edit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn rows(d: &Data) -> Vec<String> {
        match d {
            Data::Table { rows, .. } => rows.iter().map(|r| r.join(",")).collect(),
            Data::Json(v) => vec![v.to_string()],
        }
    }

    fn edit(step: &str, input: &str, format: Format) -> Result<Vec<String>, String> {
        let mut d = Data::parse(input.as_bytes(), format, true).unwrap();
        let mut rng = rand::rngs::SmallRng::seed_from_u64(0);
        Edit::parse(step, format)?.apply(&mut d, format, &mut rng)?;
        Ok(rows(&d))
    }

    #[test]
    fn arff_rows_are_transformed_below_the_kept_header() {
        let arff = "@relation r\n@attribute k string\n@attribute x numeric\n@data\na,3\n{1 1}\n";
        let e = |s| edit(s, arff, Format::Arff).unwrap();
        assert_eq!(e("reverse"), ["0,1", "a,3"]);
        assert_eq!(e("column 2 multiply 10"), ["a,30", "0,10"]);
        assert_eq!(e("append c,4"), ["a,3", "0,1", "c,4"]);
        let mut d = Data::parse(arff.as_bytes(), Format::Arff, false).unwrap();
        let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
        Edit::parse("negate", Format::Arff)
            .unwrap()
            .apply(&mut d, Format::Arff, &mut rng)
            .unwrap();
        assert_eq!(
            String::from_utf8(d.write(Format::Arff)).unwrap(),
            "@relation r\n@attribute k string\n@attribute x numeric\n@data\na,-3\n0,-1\n"
        );
    }

    #[test]
    fn row_steps_keep_the_header_and_change_the_rows() {
        let csv = "h,x\na,3\nb,1\nc,2\n";
        let e = |s| edit(s, csv, Format::Csv).unwrap();
        assert_eq!(e("reverse"), ["c,2", "b,1", "a,3"]);
        assert_eq!(e("sort"), ["a,3", "b,1", "c,2"]);
        assert_eq!(e("duplicate"), ["a,3", "b,1", "c,2", "a,3", "b,1", "c,2"]);
        assert_eq!(e("drop 1"), ["b,1", "c,2"]);
        assert_eq!(e("drop 9"), Vec::<String>::new());
        assert_eq!(e("rows 2..3"), ["b,1", "c,2"]);
        assert_eq!(e("rows 2..9"), ["b,1", "c,2"]);
        assert_eq!(e("append d,4"), ["a,3", "b,1", "c,2", "d,4"]);
        let mut p = e("permute");
        assert_ne!(p, ["a,3", "b,1", "c,2"], "seed 0 moves something");
        p.sort();
        assert_eq!(p, ["a,3", "b,1", "c,2"]);
        let err = edit("rows 5..6", csv, Format::Csv).unwrap_err();
        assert!(err.contains("only 3 rows"), "{err}");
        let mut d = Data::parse(csv.as_bytes(), Format::Csv, true).unwrap();
        let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
        Edit::Reverse.apply(&mut d, Format::Csv, &mut rng).unwrap();
        assert!(String::from_utf8(d.write(Format::Csv))
            .unwrap()
            .starts_with("h,x\nc,2"));
    }

    #[test]
    fn numbers_sort_numerically() {
        assert_eq!(
            edit("sort", "10\n9\n-1\n", Format::Numbers).unwrap(),
            ["-1", "9", "10"]
        );
    }

    #[test]
    fn arithmetic_changes_numbers_only() {
        let csv = "h,x,y\na,3,1.5\nb,-1,2\n";
        let e = |s| edit(s, csv, Format::Csv).unwrap();
        assert_eq!(e("multiply 10"), ["a,30,15", "b,-10,20"]);
        assert_eq!(e("add 0.5"), ["a,3.5,2", "b,-0.5,2.5"]);
        assert_eq!(e("negate"), ["a,-3,-1.5", "b,1,-2"]);
        assert_eq!(e("column 3 multiply -1"), ["a,3,-1.5", "b,-1,-2"]);
        assert_eq!(e("column 2 add 1"), ["a,4,1.5", "b,0,2"]);
        assert_eq!(e("column 9 negate"), ["a,3,1.5", "b,-1,2"]);
    }

    #[test]
    fn json_steps_act_on_the_top_level_array_and_on_every_number() {
        let j = r#"[{"v":1},{"v":2.5},3]"#;
        let e = |s| edit(s, j, Format::Json).unwrap();
        assert_eq!(e("multiply 2"), [r#"[{"v":2.0},{"v":5.0},6.0]"#]);
        assert_eq!(e("reverse"), [r#"[3,{"v":2.5},{"v":1}]"#]);
        assert_eq!(e("append 4"), [r#"[{"v":1},{"v":2.5},3,4]"#]);
        assert_eq!(e("rows 2..2"), [r#"[{"v":2.5}]"#]);
        assert_eq!(edit("sort", "[3,1,2]", Format::Json).unwrap(), ["[1,2,3]"]);
        let err = edit("reverse", r#"{"a":1}"#, Format::Json).unwrap_err();
        assert!(err.contains("JSON array"), "{err}");
    }

    #[test]
    fn every_bad_step_says_what_is_accepted() {
        let cases = [
            ("", "empty step"),
            ("shuffle", "unknown step; use one of permute"),
            ("permute 2", "takes no argument"),
            ("multiply", "needs a number"),
            ("multiply x", "`x` is not a finite number"),
            ("add 1 2", "`2` is one word too many"),
            ("drop 0", "at least 1"),
            ("drop 1 2", "one count"),
            ("rows 3..1", "rows A..B"),
            ("rows 0..1", "rows A..B"),
            ("rows 1-3", "rows A..B"),
            ("append", "needs the row"),
            ("column 0 negate", "at least 1"),
            ("column 2 frob", "unknown step"),
        ];
        for (text, want) in cases {
            let err = Step::parse(text, Format::Csv).unwrap_err();
            assert!(err.contains(want), "{text}: {err}");
        }
        let err = Step::parse("column 1 negate", Format::Lines).unwrap_err();
        assert!(err.contains("use csv or tsv"), "{err}");
        assert!(Step::parse("append {", Format::Json)
            .unwrap_err()
            .contains("not a JSON value"));
        assert!(Step::parse("run", Format::Csv)
            .unwrap_err()
            .contains("needs a command"));
        assert_eq!(
            Step::parse("run ./t.sh 2", Format::Csv).unwrap(),
            Step::Run(vec!["./t.sh".into(), "2".into()])
        );
        assert!(!Edit::Permute.is_deterministic());
        assert!(Edit::Reverse.is_deterministic());
    }
}
