//! `invite report --emit-tests`: from a failure in the field back to a test.
//!
//! Every distinct failing test in the logs (site, test and inputs) becomes one `#[test]` that
//! calls the instrumented function on the logged inputs inside
//! [`check_replaying`](invite::check_replaying), with the logged random streams, and asserts that
//! every relation of the call passes: it fails while the defect is there and passes once it is
//! fixed. The inputs are rebuilt from their `Debug` text, guided by each parameter's type as
//! written (from the log's `start` record): `[..]` becomes `vec![..]` for a `Vec`, a string
//! literal gets `.to_string()` for a `String`, `inf` and `NaN` become the float constants, and
//! references take a `&`. Text that was truncated in the log, or a type without `Debug`,
//! cannot be rebuilt: such failures are listed, not emitted.
//!
//! The file is a module of the crate that holds the functions: function paths start at
//! `crate::` (the site name's first segment, the crate's name, is replaced), so the functions
//! must be visible from the module (`pub(crate)` at least); a method's receiver is rebuilt from
//! its `Debug` text, with the site's module glob-imported so that its type is in scope.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use invite::record::{self, Record};

use super::read;

/// What `emit` wrote and what it could not.
#[derive(Debug, Default)]
pub struct Emitted {
    /// The Rust source of the module.
    pub source: String,
    /// How many tests the module holds.
    pub tests: usize,
    /// Failures not emitted, each with the reason.
    pub skipped: Vec<String>,
}

/// Reads the logs and writes one test per distinct failure.
pub fn from_logs(paths: &[String]) -> Result<Emitted, String> {
    let inputs = read::resolve(paths)?;
    let mut params: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    let mut failures: Vec<record::Test> = Vec::new();
    let mut seen = BTreeSet::new();
    read::for_each_line(
        &inputs,
        |line, _| {
            let Ok(line) = std::str::from_utf8(line) else {
                return Ok(());
            };
            match Record::from_line(line) {
                Ok(Record::Start(s)) => {
                    for site in s.sites {
                        if let Some(p) = site.params {
                            params.insert(site.name, p);
                        }
                    }
                }
                Ok(Record::Site(named)) => {
                    let site = named.info;
                    if let Some(p) = site.params {
                        params.insert(site.name, p);
                    }
                }
                Ok(Record::Test(t))
                    if t.outcome.is_failure()
                        && seen.insert((t.site.clone(), t.test.clone(), t.inputs.clone())) =>
                {
                    failures.push(t);
                }
                _ => {}
            }
            Ok(())
        },
        |_, _| Ok(()),
        |_| {},
    )?;
    Ok(emit(&failures, &params))
}

/// The module for `failures`, given each site's parameters.
pub fn emit(
    failures: &[record::Test],
    params: &BTreeMap<String, Vec<(String, String)>>,
) -> Emitted {
    let mut out = Emitted::default();
    let mut body = String::new();
    let mut modules = BTreeSet::new();
    let mut names = BTreeSet::new();
    for t in failures {
        let test = match one_test(t, params.get(&t.site).map(Vec::as_slice)) {
            Ok(test) => test,
            Err(why) => {
                out.skipped
                    .push(format!("{} `{}` (run {}): {why}", t.site, t.test, t.run));
                continue;
            }
        };
        if t.inputs.contains_key("self") {
            modules.insert(test.module.clone());
        }
        let mut name = test.name.clone();
        let mut n = 1;
        while !names.insert(name.clone()) {
            n += 1;
            name = format!("{}_{n}", test.name);
        }
        body.push_str(&test.source.replace("@NAME@", &name));
        out.tests += 1;
    }
    let mut src = String::from(
        "// Regression tests written by `invite report --emit-tests` from failures in invite logs.\n\
         // Each calls an instrumented function on the logged inputs, with the logged random\n\
         // streams, and fails while any of its relations fails. Add this file to the crate that\n\
         // holds the functions (`#[cfg(test)] mod invite_regressions;`).\n\n",
    );
    for m in &modules {
        let _ = writeln!(src, "#[allow(unused_imports)]\nuse {m}::*;");
    }
    if !modules.is_empty() {
        src.push('\n');
    }
    src.push_str(&body);
    out.source = src;
    out
}

struct OneTest {
    name: String,
    module: String,
    source: String,
}

fn one_test(t: &record::Test, params: Option<&[(String, String)]>) -> Result<OneTest, String> {
    if t.site.starts_with('<') {
        return Err(format!(
            "`{}` is a trait impl's method, which needs its trait in scope to be called: \
             write its regression test by hand from the failure's inputs and seeds in the report",
            t.site
        ));
    }
    let mut segments: Vec<&str> = t.site.split("::").collect();
    if segments.len() < 2 || segments.iter().any(|s| !is_ident(s)) {
        return Err(format!(
            "the site name `{}` is not a path to the function (set by `name = ...`?)",
            t.site
        ));
    }
    segments[0] = "crate";
    let params = params.ok_or(
        "the log's start record does not name the function's parameters (a log of an older \
         version)",
    )?;
    let function = segments.pop().unwrap_or_default();
    let module = segments.join("::");
    let mut args = Vec::new();
    for (name, ty) in params {
        let debug = t
            .inputs
            .get(name)
            .ok_or_else(|| format!("the input `{name}` is missing from the record"))?;
        args.push(expression(ty, debug).map_err(|why| format!("`{name}`: {why}"))?);
    }
    let call = match t.inputs.get("self") {
        Some(receiver) => {
            let receiver = expression("_", receiver).map_err(|why| format!("`self`: {why}"))?;
            format!(
                "        #[allow(unused_mut)]\n        let mut receiver = {receiver};\n        \
                 let _ = receiver.{function}({});\n",
                args.join(", ")
            )
        }
        None => format!(
            "        let _ = {module}::{function}({});\n",
            args.join(", ")
        ),
    };
    let detail = t.detail.as_deref().unwrap_or("");
    let s = &t.seeds;
    let source = format!(
        "/// `{site}`: `{test}` ended `{outcome}` at {time} on {host} (pid {pid}, run {run}).\n\
         /// {detail}\n\
         #[test]\n\
         fn @NAME@() {{\n    \
             let seeds = invite::record::Seeds {{\n        \
                 rng_seed: {rng_seed:?}.to_string(),\n        \
                 rng_stream: {stream},\n        \
                 rng_word_pos: {word},\n        \
                 test_seed: {test_seed},\n    \
             }};\n    \
             let checked = invite::check_replaying(&seeds, || {{\n\
             {call}    \
             }});\n    \
             checked.assert_passed();\n\
         }}\n\n",
        site = t.site,
        test = t.test.replace('\n', " "),
        outcome = t.outcome,
        time = t.time,
        host = t.host,
        pid = t.pid,
        run = t.run,
        detail = one_line(detail),
        rng_seed = s.rng_seed,
        stream = s.rng_stream,
        word = s.rng_word_pos,
        test_seed = s.test_seed,
    );
    let name = format!(
        "{}_{}",
        t.site
            .split("::")
            .skip(1)
            .collect::<Vec<_>>()
            .join("_")
            .to_lowercase(),
        t.run
    );
    Ok(OneTest {
        name,
        module,
        source,
    })
}

fn one_line(text: &str) -> String {
    let flat: String = text.replace('\n', " ");
    match flat.char_indices().nth(300) {
        Some((i, _)) => format!("{}…", &flat[..i]),
        None => flat,
    }
}

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

/// A Rust expression of type `ty` (as written in the signature) from its `Debug` text.
pub fn expression(ty: &str, debug: &str) -> Result<String, String> {
    if debug.ends_with("… (truncated)") {
        return Err("its Debug text was truncated in the log".into());
    }
    if debug.starts_with('<') && debug.ends_with("has no Debug>") {
        return Err("its type has no Debug implementation".into());
    }
    let ty = ty.trim();
    if let Some(rest) = ty.strip_prefix('&') {
        let rest = rest.trim_start();
        // A lifetime: `&'a T`.
        let rest = match rest.strip_prefix('\'') {
            Some(l) => l
                .split_once(char::is_whitespace)
                .map_or("", |(_, t)| t)
                .trim_start(),
            None => rest,
        };
        if let Some(inner) = rest.strip_prefix("mut ") {
            return Ok(format!("&mut {}", expression(inner, debug)?));
        }
        if rest == "str" {
            return Ok(debug.to_string());
        }
        return Ok(format!("&{}", expression(rest, debug)?));
    }
    let float = if ty.contains("f32") && !ty.contains("f64") {
        "f32"
    } else {
        "f64"
    };
    let value = with_float_constants(debug, float);
    if ty == "String" {
        return Ok(format!("{value}.to_string()"));
    }
    if ty.starts_with("Vec<") || ty.starts_with("Vec <") {
        return Ok(format!("vec!{value}"));
    }
    Ok(value)
}

/// `Debug` text with `inf`, `-inf` and `NaN` outside string and char literals replaced by the
/// constants of `float`.
fn with_float_constants(text: &str, float: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '"' || c == '\'' {
            // A string or char literal: copied as it is, escapes included.
            let quote = c;
            out.push(c);
            i += 1;
            while i < chars.len() {
                out.push(chars[i]);
                if chars[i] == '\\' && i + 1 < chars.len() {
                    out.push(chars[i + 1]);
                    i += 2;
                    continue;
                }
                i += 1;
                if chars[i - 1] == quote {
                    break;
                }
            }
            continue;
        }
        if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            // Glued to a number or a field access (a letter or `_` before it would have made
            // it part of a longer word).
            let preceded_by_ident =
                start > 0 && (chars[start - 1].is_alphanumeric() || chars[start - 1] == '.');
            match word.as_str() {
                "inf" if !preceded_by_ident => {
                    let _ = write!(out, "{float}::INFINITY");
                }
                "NaN" if !preceded_by_ident => {
                    let _ = write!(out, "{float}::NAN");
                }
                _ => out.push_str(&word),
            }
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use invite::record::{Outcome, Seeds, Test, VERSION};

    #[test]
    fn debug_text_becomes_an_expression_of_the_parameter_type() {
        assert_eq!(expression("&[f64]", "[1.0, 2.5]").unwrap(), "&[1.0, 2.5]");
        assert_eq!(
            expression("&Vec<f64>", "[1.0, inf, -inf, NaN]").unwrap(),
            "&vec![1.0, f64::INFINITY, -f64::INFINITY, f64::NAN]"
        );
        assert_eq!(
            expression("Vec<f32>", "[inf]").unwrap(),
            "vec![f32::INFINITY]"
        );
        assert_eq!(expression("&mut Vec<u8>", "[1]").unwrap(), "&mut vec![1]");
        assert_eq!(expression("&'a [i64]", "[-3]").unwrap(), "&[-3]");
        assert_eq!(
            expression("&str", "\"a \\\"inf\\\" NaN\"").unwrap(),
            "\"a \\\"inf\\\" NaN\""
        );
        assert_eq!(
            expression("String", "\"inf\"").unwrap(),
            "\"inf\".to_string()"
        );
        assert_eq!(expression("f64", "NaN").unwrap(), "f64::NAN");
        assert_eq!(expression("u64", "7").unwrap(), "7");
        assert_eq!(
            expression("Option<(f64, char)>", "Some((inf, 'x'))").unwrap(),
            "Some((f64::INFINITY, 'x'))"
        );
        // Words that merely contain the names are left alone.
        assert_eq!(
            expression("Point", "Point { info: 1.0, NaNs: 2 }").unwrap(),
            "Point { info: 1.0, NaNs: 2 }"
        );
        assert!(expression("&[f64]", "[1.0, 2.0… (truncated)").is_err());
        assert!(expression("Opaque", "<app::Opaque has no Debug>").is_err());
    }

    fn failure(site: &str, inputs: &[(&str, &str)], run: u64) -> Test {
        Test {
            v: VERSION,
            time: "2026-01-01T00:00:00.000000Z".into(),
            host: "h".into(),
            pid: 7,
            site: site.into(),
            test: "mean(&permute(xs)) == result".into(),
            run,
            outcome: Outcome::Fail,
            parent_us: 0,
            duration_us: 0,
            inputs: inputs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            detail: Some("left: 1.0\nright: 2.0".into()),
            seeds: Seeds {
                rng_seed: "ab".repeat(32),
                rng_stream: 3,
                rng_word_pos: 16,
                test_seed: 99,
            },
        }
    }

    #[test]
    fn a_failure_becomes_a_test_calling_the_function_on_its_inputs_with_its_seeds() {
        let params = BTreeMap::from([
            (
                "app::stats::mean".to_string(),
                vec![("xs".to_string(), "&[f64]".to_string())],
            ),
            (
                "app::push".to_string(),
                vec![("by".to_string(), "u64".to_string())],
            ),
            ("app::reset".to_string(), Vec::new()),
        ]);
        let emitted = emit(
            &[
                failure("app::stats::mean", &[("xs", "[1.0, NaN]")], 4),
                failure("app::stats::mean", &[("xs", "[2.0]")], 4),
                failure("app::push", &[("self", "Tally { n: 3 }"), ("by", "7")], 9),
                failure("app::reset", &[("self", "Tally { n: 3 }")], 10),
                failure("app::stats::mean", &[("xs", "[1.0… (truncated)")], 5),
                failure("custom name", &[("xs", "[1.0]")], 6),
                failure("app::gone", &[("x", "1")], 8),
            ],
            &params,
        );
        let src = &emitted.source;
        assert_eq!(emitted.tests, 4, "{src}");
        assert!(src.contains("fn stats_mean_4() {"), "{src}");
        assert!(src.contains("fn stats_mean_4_2() {"), "{src}");
        assert!(
            src.contains("let _ = crate::stats::mean(&[1.0, f64::NAN]);"),
            "{src}"
        );
        assert!(src.contains(&format!("rng_seed: {:?}.to_string(),", "ab".repeat(32))));
        assert!(src.contains("rng_stream: 3,") && src.contains("rng_word_pos: 16,"));
        assert!(src.contains("test_seed: 99,"));
        assert!(src.contains("invite::check_replaying(&seeds, || {"));
        assert!(src.contains("checked.assert_passed();"));
        assert!(src.contains("/// left: 1.0 right: 2.0"), "{src}");
        // A method: its receiver rebuilt from Debug, its module imported for the type.
        assert!(src.contains("use crate::*;\n\n"), "{src}");
        assert!(src.contains("let mut receiver = Tally { n: 3 };"), "{src}");
        assert!(src.contains("let _ = receiver.push(7);"), "{src}");
        // A method without parameters is a function like any other, not an older log's site.
        assert!(src.contains("let _ = receiver.reset();"), "{src}");
        assert_eq!(emitted.skipped.len(), 3, "{:?}", emitted.skipped);
        assert!(emitted.skipped[0].contains("truncated"));
        assert!(emitted.skipped[1].contains("not a path"));
        assert!(emitted.skipped[2].contains("does not name the function's parameters"));
    }

    #[test]
    fn literals_are_copied_whole_and_only_free_standing_special_values_convert() {
        // A string with escaped quotes and a final backslash, then a value outside it.
        assert_eq!(
            expression("(&str, f64)", r#"("a \"q\" \\", inf)"#).unwrap(),
            r#"("a \"q\" \\", f64::INFINITY)"#
        );
        assert_eq!(
            expression("(char, f64)", r"('\'', NaN)").unwrap(),
            r"('\'', f64::NAN)"
        );
        // Inside a literal nothing converts; an unterminated one ending in a backslash is
        // copied, not read past its end.
        assert_eq!(
            expression("T", r#"("x inf NaN", 'n')"#).unwrap(),
            r#"("x inf NaN", 'n')"#
        );
        assert_eq!(expression("T", "\"ab\\").unwrap(), "\"ab\\");
        // Words glued to a number or a dot, or longer words, are not the special values.
        assert_eq!(
            expression(
                "T",
                "T { a: 1.inf, b: x_NaN, c: -inf, d: NaN, e: 2.NaN, f: 3inf }"
            )
            .unwrap(),
            "T { a: 1.inf, b: x_NaN, c: -f64::INFINITY, d: f64::NAN, e: 2.NaN, f: 3inf }"
        );
        // Text that starts like a missing Debug but is not one is a value.
        assert_eq!(expression("T", "<empty>").unwrap(), "<empty>");
        assert_eq!(expression("f64", "inf").unwrap(), "f64::INFINITY");
    }

    #[test]
    fn identifiers_are_letters_or_underscore_then_word_characters() {
        for yes in ["mean", "_x", "mean_v2", "Stats"] {
            assert!(is_ident(yes), "{yes}");
        }
        for no in ["", "1f", "f-g", "my app", "a::b"] {
            assert!(!is_ident(no), "{no}");
        }
    }

    #[test]
    fn a_site_that_is_not_a_module_path_to_a_function_gets_no_test() {
        let params = BTreeMap::from([
            ("mean".to_string(), Vec::new()),
            ("my app::mean".to_string(), Vec::new()),
        ]);
        let emitted = emit(
            &[failure("mean", &[], 1), failure("my app::mean", &[], 2)],
            &params,
        );
        assert_eq!(emitted.tests, 0, "{}", emitted.source);
        assert_eq!(emitted.skipped.len(), 2, "{:?}", emitted.skipped);
        assert!(emitted.skipped.iter().all(|s| s.contains("not a path")));
    }

    #[test]
    fn a_trait_impl_s_method_gets_no_test_and_a_reason_of_its_own() {
        let site = "<app::Mean as Scorer>::score";
        let params = BTreeMap::from([(site.to_string(), Vec::new())]);
        let emitted = emit(&[failure(site, &[], 1)], &params);
        assert_eq!(emitted.tests, 0, "{}", emitted.source);
        assert!(
            emitted.skipped[0].contains("a trait impl's method"),
            "{:?}",
            emitted.skipped
        );
    }
}
