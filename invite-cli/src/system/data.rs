//! Reading and writing a program's input and output in the formats a specification names.
//!
//! Everything but JSON is read as rows of cells: CSV and TSV rows (with an optional header left
//! in place), ARFF's data rows (its header kept whole, sparse rows read as dense ones), one cell
//! per line for `lines`, and one number per row for `numbers` (numbers separated by any white
//! space). A cell is a number when it parses as one, and numeric cells compare with a tolerance
//! while the rest compare exactly.

use std::cmp::Ordering;

use invite::mr::Approx;
use serde::Deserialize;

/// How a file is read and written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// Comma-separated rows, with RFC 4180 quoting.
    Csv,
    /// Tab-separated rows.
    Tsv,
    /// One row per line, the line its only cell.
    Lines,
    /// Numbers separated by white space, one row each.
    Numbers,
    /// One JSON value; row operations act on a top-level array.
    Json,
    /// Weka's attribute-relation files: the header (comments, `@relation`, the `@attribute`s,
    /// up to `@data`) is kept as it is, as one header cell; the data rows are comma-separated,
    /// and sparse rows (`{index value, ...}`) are read as dense ones, omitted values 0. Rows are
    /// written dense.
    Arff,
}

impl Format {
    /// Whether rows have more than one cell, so that `column K ...` means something.
    pub fn has_columns(self) -> bool {
        matches!(self, Format::Csv | Format::Tsv | Format::Arff)
    }

    /// The file name extension of a file in this format.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::Tsv => "tsv",
            Format::Lines => "txt",
            Format::Numbers => "txt",
            Format::Json => "json",
            Format::Arff => "arff",
        }
    }
}

/// A file's content, read.
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    /// Rows of cells, with the header row kept apart.
    Table {
        /// The header row, when the spec says there is one.
        header: Option<Vec<String>>,
        /// The data rows.
        rows: Vec<Vec<String>>,
    },
    /// A JSON document.
    Json(serde_json::Value),
}

/// The number a cell holds, if it holds one.
pub fn number(cell: &str) -> Option<f64> {
    let t = cell.trim();
    // Words such as "inf" or "nan" in a text column are words, not numbers.
    if t.is_empty() || !t.starts_with(|c: char| c.is_ascii_digit() || "+-.".contains(c)) {
        return None;
    }
    t.parse().ok()
}

/// A number written back as a cell, in the shortest form that reads back the same (integers
/// without a fraction); a negated zero is written `0`.
pub fn cell(v: f64) -> String {
    if v == 0.0 {
        "0".to_string()
    } else {
        format!("{v}")
    }
}

impl Data {
    /// Reads `bytes` in `format`.
    pub fn parse(bytes: &[u8], format: Format, header: bool) -> Result<Data, String> {
        let text = || std::str::from_utf8(bytes).map_err(|e| format!("not UTF-8 text ({e})"));
        let mut rows: Vec<Vec<String>> = match format {
            Format::Json => {
                return serde_json::from_slice(bytes)
                    .map(Data::Json)
                    .map_err(|e| format!("not JSON: {e}"))
            }
            Format::Arff => return parse_arff(text()?),
            Format::Csv | Format::Tsv => {
                let mut reader = csv::ReaderBuilder::new()
                    .has_headers(false)
                    .flexible(true)
                    .delimiter(if format == Format::Csv { b',' } else { b'\t' })
                    .from_reader(bytes);
                let mut rows = Vec::new();
                for (i, r) in reader.records().enumerate() {
                    let r = r.map_err(|e| format!("row {}: {e}", i + 1))?;
                    rows.push(r.iter().map(str::to_string).collect());
                }
                rows
            }
            Format::Lines => text()?.lines().map(|l| vec![l.to_string()]).collect(),
            Format::Numbers => {
                let mut rows = Vec::new();
                for (i, line) in text()?.lines().enumerate() {
                    for token in line.split_whitespace() {
                        if number(token).is_none() {
                            return Err(format!(
                                "line {}: `{token}` is not a number (format = \"numbers\"; use \
                                 \"lines\" or \"csv\" for text)",
                                i + 1
                            ));
                        }
                        rows.push(vec![token.to_string()]);
                    }
                }
                rows
            }
        };
        let header = (header && format.has_columns() && !rows.is_empty()).then(|| rows.remove(0));
        Ok(Data::Table { header, rows })
    }

    /// Writes the data in `format`.
    pub fn write(&self, format: Format) -> Vec<u8> {
        match self {
            Data::Json(v) => {
                let mut out = serde_json::to_vec(v).expect("JSON values serialise");
                out.push(b'\n');
                out
            }
            Data::Table { header, rows } => match format {
                Format::Arff => {
                    let mut out: Vec<u8> =
                        header.iter().flatten().flat_map(|h| h.bytes()).collect();
                    out.extend(csv_rows(rows, b','));
                    out
                }
                Format::Csv | Format::Tsv => {
                    let delimiter = if format == Format::Csv { b',' } else { b'\t' };
                    csv_rows(header.iter().chain(rows), delimiter)
                }
                _ => {
                    let mut out = String::new();
                    for r in header.iter().chain(rows) {
                        out.push_str(&r.join(" "));
                        out.push('\n');
                    }
                    out.into_bytes()
                }
            },
        }
    }

    /// Every number it holds, in reading order: the numeric cells of its rows (a cell a program
    /// wrote as `nan`, `inf` or `-inf` included), or every number of a JSON document.
    pub fn numbers(&self) -> Vec<f64> {
        fn walk(v: &serde_json::Value, out: &mut Vec<f64>) {
            match v {
                serde_json::Value::Number(n) => out.extend(n.as_f64()),
                serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
                serde_json::Value::Object(o) => o.values().for_each(|x| walk(x, out)),
                _ => {}
            }
        }
        let mut out = Vec::new();
        match self {
            Data::Json(v) => walk(v, &mut out),
            Data::Table { rows, .. } => {
                for c in rows.iter().flatten() {
                    // A cell that starts with a sign reads as a number, `-inf` and `+nan`
                    // included; the unsigned words need saying.
                    let word = matches!(
                        c.trim().to_ascii_lowercase().as_str(),
                        "nan" | "inf" | "infinity"
                    );
                    let special = word.then(|| c.trim().parse().ok()).flatten();
                    out.extend(special.or_else(|| number(c)));
                }
            }
        }
        out
    }

    /// How many rows (or top-level array elements) it has.
    pub fn len(&self) -> usize {
        match self {
            Data::Table { rows, .. } => rows.len(),
            Data::Json(serde_json::Value::Array(a)) => a.len(),
            Data::Json(_) => 1,
        }
    }

    /// Whether it has no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Rows written as delimited text.
fn csv_rows<'a>(rows: impl IntoIterator<Item = &'a Vec<String>>, delimiter: u8) -> Vec<u8> {
    let mut w = csv::WriterBuilder::new()
        .flexible(true)
        .delimiter(delimiter)
        .from_writer(Vec::new());
    for r in rows {
        // Writing to memory cannot fail.
        w.write_record(r).expect("rows are written to memory");
    }
    w.into_inner().expect("rows are written to memory")
}

/// Reads an ARFF file: the header up to and including `@data` as one cell, then the rows.
fn parse_arff(text: &str) -> Result<Data, String> {
    let is = |line: &str, keyword: &str| {
        line.trim_start()
            .get(..keyword.len())
            .is_some_and(|w| w.eq_ignore_ascii_case(keyword))
    };
    let mut lines = text.split_inclusive('\n').enumerate();
    let mut header = String::new();
    let mut attributes = 0;
    loop {
        let Some((_, line)) = lines.next() else {
            return Err(
                "no `@data` line: an ARFF file declares `@relation` and its \
                        `@attribute`s, then `@data`, then the rows"
                    .to_string(),
            );
        };
        header.push_str(line);
        if is(line, "@attribute") {
            attributes += 1;
        }
        if is(line, "@data") {
            break;
        }
    }
    if !header.ends_with('\n') {
        header.push('\n');
    }
    let mut rows = Vec::new();
    for (i, line) in lines {
        let line = line.trim();
        if line.is_empty() || line.starts_with('%') {
            continue;
        }
        let at = |what: String| format!("line {}: {what}", i + 1);
        if let Some(inner) = line.strip_prefix('{') {
            let inner = inner
                .strip_suffix('}')
                .ok_or_else(|| at("a sparse row `{index value, ...}` has no closing `}`".into()))?;
            let mut row = vec!["0".to_string(); attributes];
            for pair in inner.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                let (index, value) = pair
                    .split_once(char::is_whitespace)
                    .ok_or_else(|| at(format!("`{pair}` is not `index value`")))?;
                let cell = index
                    .parse::<usize>()
                    .ok()
                    .and_then(|k| row.get_mut(k))
                    .ok_or_else(|| {
                        at(format!(
                            "`{index}` is no attribute index (0 to {}, from the header's \
                             {attributes} `@attribute` lines)",
                            attributes.saturating_sub(1)
                        ))
                    })?;
                *cell = value.trim().to_string();
            }
            rows.push(row);
        } else {
            let mut reader = csv::ReaderBuilder::new()
                .has_headers(false)
                .flexible(true)
                .from_reader(line.as_bytes());
            for r in reader.records() {
                let r = r.map_err(|e| at(e.to_string()))?;
                rows.push(r.iter().map(|c| c.trim().to_string()).collect());
            }
        }
    }
    Ok(Data::Table {
        header: Some(vec![header]),
        rows,
    })
}

/// Two cells compared: numerically within `tol` when both are numbers, else as text.
pub fn cell_cmp(a: &str, b: &str, tol: f64) -> Option<Ordering> {
    match (number(a), number(b)) {
        (Some(x), Some(y)) => x.approx_cmp(&y, tol),
        _ => Some(a.trim().cmp(b.trim())),
    }
}

/// Two rows compared cell by cell, then by length; unordered (NaN) counts as unequal.
pub fn row_cmp(a: &[String], b: &[String], tol: f64) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        match cell_cmp(x, y, tol) {
            Some(Ordering::Equal) => {}
            Some(o) => return o,
            None => return x.cmp(y),
        }
    }
    a.len().cmp(&b.len())
}

/// Two JSON values equal, numbers within `tol`.
pub fn json_eq(a: &serde_json::Value, b: &serde_json::Value, tol: f64) -> bool {
    use serde_json::Value as V;
    match (a, b) {
        // Every JSON number reads as an f64 (serde_json without arbitrary precision).
        (V::Number(x), V::Number(y)) => x
            .as_f64()
            .zip(y.as_f64())
            .is_some_and(|(x, y)| x.approx_eq(&y, tol)),
        (V::Array(x), V::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| json_eq(x, y, tol))
        }
        (V::Object(x), V::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w, tol)))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_numbers_of_a_table_or_a_document_are_read_in_order() {
        let t = Data::parse(
            b"a,1.5,x\nb,nan,-inf\n2,INF,-3\n-Infinity,+nan,infinity\n",
            Format::Csv,
            false,
        )
        .unwrap();
        let n = t.numbers();
        assert_eq!(n.len(), 9, "{n:?}");
        assert_eq!(n[0], 1.5);
        assert!(n[1].is_nan());
        assert_eq!(n[2..6], [f64::NEG_INFINITY, 2.0, f64::INFINITY, -3.0]);
        assert_eq!(n[6], f64::NEG_INFINITY);
        assert!(n[7].is_nan());
        assert_eq!(n[8], f64::INFINITY);
        let j = Data::parse(
            br#"{"a": [1, "x", 2.5], "b": {"c": -4}}"#,
            Format::Json,
            false,
        )
        .unwrap();
        assert_eq!(j.numbers(), [1.0, 2.5, -4.0]);
        let header = Data::parse(b"h1,2\n7,8\n", Format::Csv, true).unwrap();
        assert_eq!(header.numbers(), [7.0, 8.0]);
    }

    fn table(d: &Data) -> (&Option<Vec<String>>, &Vec<Vec<String>>) {
        match d {
            Data::Table { header, rows } => (header, rows),
            Data::Json(_) => panic!("not a table"),
        }
    }

    #[test]
    fn csv_reads_quotes_and_keeps_the_header_apart() {
        let d = Data::parse(b"name,x\n\"a, b\",1.5\nc,2\n", Format::Csv, true).unwrap();
        let (h, rows) = table(&d);
        assert_eq!(h.as_deref(), Some(&["name".to_string(), "x".into()][..]));
        assert_eq!(
            rows,
            &[
                vec!["a, b".to_string(), "1.5".into()],
                vec!["c".into(), "2".into()]
            ]
        );
        assert_eq!(d.len(), 2);
        assert_eq!(
            String::from_utf8(d.write(Format::Csv)).unwrap(),
            "name,x\n\"a, b\",1.5\nc,2\n"
        );
        let tsv = Data::parse(b"a\t1\nb\t2\n", Format::Tsv, false).unwrap();
        assert_eq!(table(&tsv).1[1], ["b", "2"]);
        assert_eq!(
            String::from_utf8(tsv.write(Format::Tsv)).unwrap(),
            "a\t1\nb\t2\n"
        );
    }

    #[test]
    fn numbers_are_one_per_row_and_anything_else_is_named() {
        let d = Data::parse(b"1 2\n 3.5\n\n-4e2\n", Format::Numbers, true).unwrap();
        assert_eq!(table(&d).0, &None, "numbers have no header");
        assert_eq!(d.len(), 4);
        assert_eq!(
            String::from_utf8(d.write(Format::Numbers)).unwrap(),
            "1\n2\n3.5\n-4e2\n"
        );
        let err = Data::parse(b"1\n2 x\n", Format::Numbers, false).unwrap_err();
        assert!(err.contains("line 2: `x` is not a number"), "{err}");
        let lines = Data::parse(b"a b\nc\n", Format::Lines, true).unwrap();
        assert_eq!(
            table(&lines),
            (&None, &vec![vec!["a b".to_string()], vec!["c".into()]])
        );
        assert!(Data::parse(b"\xff", Format::Lines, false)
            .unwrap_err()
            .contains("UTF-8"));
        assert!(Data::parse(b"{", Format::Json, false)
            .unwrap_err()
            .contains("not JSON"));
        let empty = Data::parse(b"", Format::Csv, true).unwrap();
        assert!(empty.is_empty());
        assert!(!d.is_empty());
    }

    const ARFF: &str = "% weather\n@RELATION weather\n\n@attribute outlook {sunny, rainy}\n\
                        @attribute temperature numeric\n@attribute humidity NUMERIC\n@data\n\
                        sunny, 85, 85\n% a comment row\n\n{1 64.5, 0 rainy}\n'rainy', 70,\n";

    #[test]
    fn arff_keeps_its_header_whole_and_reads_sparse_rows_as_dense() {
        let d = Data::parse(ARFF.as_bytes(), Format::Arff, false).unwrap();
        let Data::Table { header, rows } = &d else {
            panic!("{d:?}")
        };
        let header = header.as_ref().unwrap();
        assert_eq!(header.len(), 1);
        assert!(header[0].starts_with("% weather\n@RELATION"), "{header:?}");
        assert!(header[0].ends_with("@data\n"), "{header:?}");
        let cells = |r: &[&str]| r.iter().map(|c| c.to_string()).collect::<Vec<_>>();
        assert_eq!(
            rows,
            &vec![
                cells(&["sunny", "85", "85"]),
                cells(&["rainy", "64.5", "0"]),
                cells(&["'rainy'", "70", ""]),
            ]
        );
        assert_eq!(d.numbers(), vec![85.0, 85.0, 64.5, 0.0, 70.0]);
        // Written back: the header as it was, the rows dense; read again, the same.
        let written = String::from_utf8(d.write(Format::Arff)).unwrap();
        assert!(written.starts_with(&header[0]), "{written}");
        assert!(
            written.ends_with("@data\nsunny,85,85\nrainy,64.5,0\n'rainy',70,\n"),
            "{written}"
        );
        assert_eq!(
            Data::parse(written.as_bytes(), Format::Arff, false).unwrap(),
            d
        );
    }

    #[test]
    fn arff_without_data_or_with_a_bad_sparse_row_is_refused_by_line() {
        let err = |text: &str| Data::parse(text.as_bytes(), Format::Arff, false).unwrap_err();
        assert!(err("@relation r\n@attribute a numeric\n1\n").starts_with("no `@data` line"));
        let head = "@relation r\n@attribute a numeric\n@attribute b numeric\n@data\n";
        let e = err(&format!("{head}{{2 1.0}}\n"));
        assert_eq!(
            e,
            "line 5: `2` is no attribute index (0 to 1, from the header's 2 `@attribute` lines)"
        );
        assert_eq!(
            err(&format!("{head}1,2\n{{0 1.0\n")),
            "line 6: a sparse row `{index value, ...}` has no closing `}`"
        );
        assert_eq!(
            err(&format!("{head}{{0}}\n")),
            "line 5: `0` is not `index value`"
        );
        // Without a final newline, the header still ends its line.
        let d = Data::parse(b"@relation r\n@data", Format::Arff, false).unwrap();
        assert_eq!(
            String::from_utf8(d.write(Format::Arff)).unwrap(),
            "@relation r\n@data\n"
        );
    }

    #[test]
    fn files_are_named_by_their_format() {
        let names = [
            Format::Csv,
            Format::Tsv,
            Format::Lines,
            Format::Numbers,
            Format::Json,
            Format::Arff,
        ]
        .map(Format::extension);
        assert_eq!(names, ["csv", "tsv", "txt", "txt", "json", "arff"]);
    }

    #[test]
    fn a_cell_is_a_number_only_when_it_looks_like_one() {
        assert_eq!(number(" 2.5 "), Some(2.5));
        assert_eq!(number("-1e3"), Some(-1000.0));
        assert_eq!(number(".5"), Some(0.5));
        assert_eq!(number("+7"), Some(7.0));
        assert_eq!(number("inf"), None);
        assert_eq!(number("nan"), None);
        assert_eq!(number("12 apples"), None);
        assert_eq!(number(""), None);
        assert_eq!(cell(15.0), "15");
        assert_eq!(cell(-0.0), "0");
        assert_eq!(cell(123456789012345.0), "123456789012345");
        assert_eq!(cell(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(cell(-0.25), "-0.25");
        assert_eq!(cell(1e20), "100000000000000000000");
        assert_eq!(cell(f64::INFINITY), "inf");
    }

    #[test]
    fn cells_and_rows_compare_numerically_within_the_tolerance() {
        assert_eq!(cell_cmp("1.0", "1", 0.0), Some(Ordering::Equal));
        assert_eq!(cell_cmp("1.0000001", "1", 1e-6), Some(Ordering::Equal));
        assert_eq!(cell_cmp("1.0001", "1", 1e-6), Some(Ordering::Greater));
        assert_eq!(cell_cmp("b", "a", 1.0), Some(Ordering::Greater));
        assert_eq!(cell_cmp(" a", "a ", 0.0), Some(Ordering::Equal));
        let r = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            row_cmp(&r(&["a", "2"]), &r(&["a", "2.0"]), 0.0),
            Ordering::Equal
        );
        assert_eq!(
            row_cmp(&r(&["a", "2"]), &r(&["a", "3"]), 0.0),
            Ordering::Less
        );
        assert_eq!(row_cmp(&r(&["a"]), &r(&["a", "3"]), 0.0), Ordering::Less);
        assert_eq!(row_cmp(&r(&["b"]), &r(&["a", "3"]), 0.0), Ordering::Greater);
    }

    #[test]
    fn json_compares_numbers_within_the_tolerance_and_the_rest_exactly() {
        let v = |s: &str| serde_json::from_str::<serde_json::Value>(s).unwrap();
        assert!(json_eq(
            &v(r#"{"a":[1,2.0000001]}"#),
            &v(r#"{"a":[1.0,2]}"#),
            1e-6
        ));
        assert!(!json_eq(
            &v(r#"{"a":[1,2.1]}"#),
            &v(r#"{"a":[1.0,2]}"#),
            1e-6
        ));
        assert!(!json_eq(&v(r#"{"a":1}"#), &v(r#"{"b":1}"#), 1e-6));
        assert!(!json_eq(&v(r#"{"a":1}"#), &v(r#"{"a":1,"b":2}"#), 1e-6));
        assert!(!json_eq(&v("[1,2]"), &v("[1]"), 1e-6));
        assert!(json_eq(&v(r#""x""#), &v(r#""x""#), 0.0));
        assert!(!json_eq(&v(r#""x""#), &v(r#""y""#), 0.0));
        let d = Data::Json(v("[1,2,3]"));
        assert_eq!(d.len(), 3);
        assert_eq!(Data::Json(v("{}")).len(), 1);
        assert_eq!(d.write(Format::Json), b"[1,2,3]\n");
    }
}
