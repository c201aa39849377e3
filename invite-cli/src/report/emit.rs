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
use invite::regression::ShrinkReport;

use super::read;
use super::shipped::{self, Shipped};

/// What `emit` wrote and what it could not.
#[derive(Debug, Default)]
pub struct Emitted {
    /// The Rust source of the module.
    pub source: String,
    /// How many tests the module holds.
    pub tests: usize,
    /// The names of the tests whose inputs can be shrunk (see [`invite::regression()`]).
    pub shrinkable: Vec<String>,
    /// Defects not emitted, each with the reason.
    pub skipped: Vec<String>,
}

/// One defect: the failures of one relation of one site that ended in the same outcome.
#[derive(Clone, Debug)]
pub struct Defect {
    /// How many failing records the logs hold.
    pub count: u64,
    /// How many of them had distinct inputs.
    pub distinct: u64,
    /// The failure with the smallest inputs whose `Debug` text is whole, else the smallest.
    pub smallest: record::Test,
}

/// A defect's identity: site, relation, and the failure's kind.
pub type DefectKey = (String, String, String);

/// The defects of a log, by identity.
pub type Defects = BTreeMap<DefectKey, Defect>;

/// Each site's parameters, name and type as written, and the function's path where the log
/// gives it (a site named at its first call).
pub type Params = BTreeMap<String, SiteShape>;

/// What a regression test needs to know of a site besides its failure.
#[derive(Clone, Debug, Default)]
pub struct SiteShape {
    /// Each parameter's name and type as written.
    pub params: Vec<(String, String)>,
    /// The function's path as the compiler prints it (see `invite::record::SiteInfo::path`).
    pub path: Option<String>,
}

/// Ordering key of a failure's inputs, smallest first: whole before truncated, then fewer
/// top-level elements, then shorter text.
fn input_size(t: &record::Test) -> (bool, usize, usize) {
    let truncated = t.inputs.values().any(|v| v.ends_with("… (truncated)"));
    let elements = t
        .inputs
        .values()
        .map(|v| record::sequence_len(v).unwrap_or(0))
        .sum();
    let chars = t.inputs.values().map(|v| v.chars().count()).sum();
    (truncated, elements, chars)
}

/// Reads the logs and groups their failures into defects.
pub fn defects_from_logs(paths: &[String]) -> Result<(Defects, Params), String> {
    let inputs = read::resolve(paths)?;
    let mut params: Params = BTreeMap::new();
    let mut defects: BTreeMap<DefectKey, Defect> = BTreeMap::new();
    // Distinct inputs per defect, as hashes: a fleet's log may hold millions of failures.
    let mut seen: BTreeSet<(DefectKey, u64)> = BTreeSet::new();
    read::for_each_line(
        &inputs,
        |line, _| {
            let mut take = |line: &[u8]| {
                let Ok(line) = std::str::from_utf8(line) else {
                    return;
                };
                match Record::from_line(line) {
                    Ok(Record::Start(s)) => {
                        for site in s.sites {
                            if let Some(p) = site.params {
                                let path = site.path;
                                params.insert(site.name, SiteShape { params: p, path });
                            }
                        }
                    }
                    Ok(Record::Site(named)) => {
                        let site = named.info;
                        if let Some(p) = site.params {
                            let path = site.path;
                            params.insert(site.name, SiteShape { params: p, path });
                        }
                    }
                    Ok(Record::Test(t)) if t.outcome.is_failure() => {
                        add(&mut defects, &mut seen, t)
                    }
                    _ => {}
                }
            };
            match shipped::unwrap(line) {
                Shipped::Plain => take(line),
                Shipped::Wrapped { records, .. } => records.iter().for_each(|r| take(r.as_bytes())),
            }
            Ok(())
        },
        |_, _| Ok(()),
        |_| {},
        |e| eprintln!("invite report: {e}"),
    )?;
    Ok((defects, params))
}

/// Counts a failure into its defect, keeping the smallest.
fn add(
    defects: &mut BTreeMap<DefectKey, Defect>,
    seen: &mut BTreeSet<(DefectKey, u64)>,
    t: record::Test,
) {
    use std::hash::{Hash, Hasher};
    let key = (t.site.clone(), t.test.clone(), t.outcome.to_string());
    let mut h = std::collections::hash_map::DefaultHasher::new();
    t.inputs.hash(&mut h);
    let fresh = seen.insert((key.clone(), h.finish()));
    match defects.get_mut(&key) {
        Some(d) => {
            d.count += 1;
            d.distinct += u64::from(fresh);
            if input_size(&t) < input_size(&d.smallest) {
                d.smallest = t;
            }
        }
        None => {
            defects.insert(
                key,
                Defect {
                    count: 1,
                    distinct: 1,
                    smallest: t,
                },
            );
        }
    }
}

/// Reads the logs and writes one test per defect.
pub fn from_logs(paths: &[String]) -> Result<Emitted, String> {
    let (defects, params) = defects_from_logs(paths)?;
    Ok(emit(&defects, &params, &BTreeMap::new()))
}

/// The module for `defects`, given each site's parameters, with the inputs that a shrink
/// found (by test name) in place of the logged ones.
pub fn emit(
    defects: &BTreeMap<DefectKey, Defect>,
    params: &Params,
    shrunk: &BTreeMap<String, ShrinkReport>,
) -> Emitted {
    let mut out = Emitted::default();
    let mut body = String::new();
    let mut modules = BTreeSet::new();
    let mut names = BTreeSet::new();
    for d in defects.values() {
        let t = &d.smallest;
        let base = test_name(t);
        let mut name = base.clone();
        let mut n = 1;
        while names.contains(&name) {
            n += 1;
            name = format!("{base}_{n}");
        }
        let shape = params.get(&t.site);
        let test = match one_test(
            t,
            d,
            &name,
            shape.map(|s| s.params.as_slice()),
            shape.and_then(|s| s.path.as_deref()),
            shrunk.get(&name),
        ) {
            Ok(test) => test,
            Err(why) => {
                out.skipped.push(format!(
                    "{} `{}` ({} failures): {why}",
                    t.site, t.test, d.count
                ));
                continue;
            }
        };
        names.insert(name.clone());
        if t.inputs.contains_key("self") {
            modules.insert(test.module.clone());
        }
        if test.shrinkable {
            out.shrinkable.push(name.clone());
        }
        body.push_str(&test.source);
        out.tests += 1;
    }
    let mut src = String::from(
        "// Regression tests written by `invite report --emit-tests` from failures in invite logs,\n\
         // one per defect (site, relation and outcome), on the smallest input found. Each calls\n\
         // an instrumented function with the logged random streams and fails while any of its\n\
         // relations fails. Add this file to the crate that holds the functions\n\
         // (`#[cfg(test)] mod invite_regressions;`).\n\n",
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

/// A test's name: the function's path after the crate, then the words of the relation that
/// are not the function's name, then the outcome unless it is a plain `fail`.
fn test_name(t: &record::Test) -> String {
    // `<app::Knn as Model>::predict` reads as `knn_model_predict`.
    let path: Vec<&str> = t
        .site
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty())
        .skip(1)
        .filter(|w| *w != "as")
        .collect();
    let function = path.last().copied().unwrap_or_default();
    let mut words: Vec<String> = Vec::new();
    for w in t
        .test
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty())
    {
        let w = w.to_lowercase();
        let noise = w == function || w == "invite" || w == "mr" || w == "_";
        if !noise && !words.contains(&w) && words.len() < 5 {
            words.push(w);
        }
    }
    let mut parts: Vec<String> = path.iter().map(|p| p.to_lowercase()).collect();
    parts.extend(words);
    if t.outcome != record::Outcome::Fail {
        parts.push(t.outcome.to_string());
    }
    let name = parts.join("_");
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        format!("defect_{name}")
    } else {
        name
    }
}

struct OneTest {
    module: String,
    source: String,
    shrinkable: bool,
}

fn one_test(
    t: &record::Test,
    d: &Defect,
    name: &str,
    params: Option<&[(String, String)]>,
    path: Option<&str>,
    shrunk: Option<&ShrinkReport>,
) -> Result<OneTest, String> {
    let krate = t
        .site
        .trim_start_matches('<')
        .split("::")
        .next()
        .unwrap_or_default()
        .to_string();
    // The function's path from the test's module: as the compiler printed it where the log
    // says, which reaches a trait impl's method through its trait.
    let full_path = path.map(|p| in_this_crate(p, &krate));
    let segments_of = if t.site.starts_with('<') {
        // `<module::Type as Trait>::method`: the module is the type's path's.
        let inner = t.site.trim_start_matches('<');
        let ty = inner.split(" as ").next().unwrap_or_default();
        let method = t.site.rsplit("::").next().unwrap_or_default();
        format!("{ty}::{method}")
    } else {
        t.site.clone()
    };
    let mut segments: Vec<&str> = segments_of.split("::").collect();
    if segments.len() < 2 || segments.iter().any(|s| !is_ident(s)) {
        return Err(format!(
            "the site name `{}` is not a path to the function (set by `name = ...`?)",
            t.site
        ));
    }
    if t.site.starts_with('<') && full_path.is_none() {
        return Err(format!(
            "`{}` is a trait impl's method, and the log does not give its path (a log of an \
             older version): write its regression test by hand from the failure's inputs and \
             seeds in the report",
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
    // A method's receiver is rebuilt with its type in scope: the module that holds the type
    // (`crate::m` for `crate::m::Type`; a glob import cannot name a type's items).
    let names_type = segments
        .last()
        .is_some_and(|s| s.starts_with(|c: char| c.is_uppercase()));
    let import = if names_type && segments.len() > 1 {
        segments[..segments.len() - 1].join("::")
    } else {
        module.clone()
    };
    // An argument from its exact form, where the log has one (`reference` is `&`, `&mut ` or
    // nothing): whatever the length of its `Debug` text, and whatever its type.
    let exact_value = |pname: &str, reference: &str| -> Option<String> {
        let hex = t.exact.values.get(pname)?;
        let ty = t.exact.types.get(pname)?;
        Some(format!(
            "{reference}invite::exact!({}, {hex:?})",
            in_this_crate(ty, &krate)
        ))
    };
    let mut logged: Vec<String> = Vec::new();
    for (name, _) in params {
        let debug = t
            .inputs
            .get(name)
            .ok_or_else(|| format!("the input `{name}` is missing from the record"))?;
        logged.push(debug.clone());
    }
    // Shrunk inputs replace the logged ones only when they are the same parameters.
    let shown: Vec<String> = match shrunk {
        Some(r) if r.after.len() == params.len() => r.after.clone(),
        _ => logged.clone(),
    };
    let owned: Option<Vec<String>> = if t.inputs.contains_key("self") {
        None
    } else {
        params.iter().map(|(_, ty)| shrink_type(ty)).collect()
    };
    let detail = t.detail.as_deref().unwrap_or("");
    let s = &t.seeds;
    let mut source = format!(
        "/// `{site}`: `{test}` ended `{outcome}` in {count} run{plural} ({distinct} distinct \
         input{dplural}); the smallest at {time} on {host} (pid {pid}, run {run}).\n\
         /// {detail}\n",
        site = t.site,
        test = t.test.replace('\n', " "),
        outcome = t.outcome,
        count = d.count,
        plural = if d.count == 1 { "" } else { "s" },
        distinct = d.distinct,
        dplural = if d.distinct == 1 { "" } else { "s" },
        time = t.time,
        host = t.host,
        pid = t.pid,
        run = t.run,
        detail = one_line(detail),
    );
    if let Some(r) = shrunk.filter(|r| r.after.len() == params.len()) {
        let _ = writeln!(
            source,
            "/// Shrunk by `invite report` in {} tr{}, still failing the same way:",
            r.tries,
            if r.tries == 1 { "y" } else { "ies" },
        );
        for (i, (name, _)) in params.iter().enumerate() {
            let before = size_words(&r.before[i], r.before_len[i]);
            // A long logged value is kept in the note (the test shows only the shrunk one).
            let logged = if before.starts_with('`') {
                String::new()
            } else {
                format!("; logged: {}", one_line(&r.before[i]))
            };
            let after = size_words(&r.after[i], r.after_len[i]);
            let _ = writeln!(source, "/// `{name}` from {before} to {after}{logged}");
        }
    }
    let seeds = format!(
        "    let seeds = invite::record::Seeds {{\n        \
             rng_seed: {:?}.to_string(),\n        \
             rng_stream: {},\n        \
             rng_word_pos: {},\n        \
             test_seed: {},\n    \
         }};\n",
        s.rng_seed, s.rng_stream, s.rng_word_pos, s.test_seed
    );
    let _ = write!(source, "#[test]\nfn {name}() {{\n{seeds}");
    match owned {
        Some(owned) => {
            // Owned inputs in a tuple, which `invite::regression` can shrink.
            let mut values = Vec::new();
            let mut bindings = Vec::new();
            let mut args = Vec::new();
            for (i, ((pname, ty), ty_owned)) in params.iter().zip(&owned).enumerate() {
                values.push(
                    expression(ty_owned, &shown[i])
                        .or_else(|why| exact_value(pname, "").ok_or(why))
                        .map_err(|why| format!("`{pname}`: {why}"))?,
                );
                let mutable = reference_kind(ty) == Some(true);
                bindings.push(if mutable {
                    format!("mut {pname}")
                } else {
                    pname.clone()
                });
                args.push(match reference_kind(ty) {
                    Some(true) => format!("&mut {pname}"),
                    Some(false) => format!("&{pname}"),
                    None => pname.clone(),
                });
            }
            // `(A,)` for one, `(A, B)` for more, as rustfmt writes them.
            let tuple = |items: &[String]| match items {
                [one] => format!("({one},)"),
                _ => format!("({})", items.join(", ")),
            };
            let _ = write!(
                source,
                "    let inputs: {types} = (\n{values}    );\n    \
                 invite::regression(\n        {name:?},\n        {test:?},\n        &seeds,\n        \
                 inputs,\n        |{bindings}| {{\n            \
                 let _ = {module}::{function}({args});\n        }},\n    );\n}}\n\n",
                types = tuple(&owned),
                values = values
                    .iter()
                    .map(|v| format!("        {v},\n"))
                    .collect::<String>(),
                test = t.test,
                bindings = tuple(&bindings),
                args = args.join(", "),
            );
        }
        None => {
            let mut args = Vec::new();
            for (i, (pname, ty)) in params.iter().enumerate() {
                let reference = match reference_kind(ty) {
                    Some(true) => "&mut ",
                    Some(false) => "&",
                    None => "",
                };
                args.push(
                    expression(ty, &shown[i])
                        .or_else(|why| exact_value(pname, reference).ok_or(why))
                        .map_err(|why| format!("`{pname}`: {why}"))?,
                );
            }
            let call = match t.inputs.get("self") {
                Some(receiver) => {
                    let receiver = expression("_", receiver)
                        .or_else(|why| exact_value("self", "").ok_or(why))
                        .map_err(|why| format!("`self`: {why}"))?;
                    // Through the function's path where the log gives it and how the function
                    // takes its receiver: a trait's method needs no trait in scope then.
                    let call = match (&full_path, &t.exact.receiver) {
                        (Some(path), Some(passing)) => {
                            let mut all = vec![format!("{passing}receiver")];
                            all.extend(args.iter().cloned());
                            format!("{path}({})", all.join(", "))
                        }
                        _ => format!("receiver.{function}({})", args.join(", ")),
                    };
                    format!(
                        "        #[allow(unused_mut)]\n        let mut receiver = {receiver};\n        \
                         let _ = {call};\n"
                    )
                }
                None => {
                    let path = full_path
                        .clone()
                        .unwrap_or_else(|| format!("{module}::{function}"));
                    format!("        let _ = {path}({});\n", args.join(", "))
                }
            };
            let _ = write!(
                source,
                "    let checked = invite::check_replaying(&seeds, || {{\n{call}    }});\n    \
                 checked.assert_passed();\n}}\n\n"
            );
        }
    }
    Ok(OneTest {
        module: import,
        source,
        shrinkable: owned_is_some(t, params),
    })
}

/// A path the compiler printed (`<field::Knn as field::Model>::predict`, `alloc::vec::Vec<f64>`)
/// as code in a module of the crate `krate` writes it: the crate as `crate`, the standard
/// library's inner crates as `std`.
fn in_this_crate(path: &str, krate: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut rest = path;
    let mut at_start = true;
    while let Some(c) = rest.chars().next() {
        if at_start {
            let swapped = [(krate, "crate"), ("alloc", "std"), ("core", "std")]
                .into_iter()
                .find(|(from, _)| {
                    !from.is_empty()
                        && rest.starts_with(from)
                        && rest[from.len()..].starts_with("::")
                });
            if let Some((from, to)) = swapped {
                out.push_str(to);
                rest = &rest[from.len()..];
                at_start = false;
                continue;
            }
        }
        at_start = !(c.is_alphanumeric() || c == '_' || c == ':');
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

fn owned_is_some(t: &record::Test, params: &[(String, String)]) -> bool {
    !t.inputs.contains_key("self") && params.iter().all(|(_, ty)| shrink_type(ty).is_some())
}

/// What a shrink did to each input, on one line: `` `[3.0, 1.0]` (2 elements) to `[1.0]` (1
/// element) ``, inputs separated by `; `.
pub fn shrink_summary(r: &ShrinkReport) -> String {
    let mut parts = Vec::new();
    for i in 0..r.before.len().min(r.after.len()) {
        let len = |l: &[Option<usize>]| l.get(i).copied().flatten();
        parts.push(format!(
            "{} to {}",
            size_words(&r.before[i], len(&r.before_len)),
            size_words(&r.after[i], len(&r.after_len))
        ));
    }
    parts.join("; ")
}

/// A value as a shrink's note shows it: its text when short, and its length for a sequence
/// (`` `[1.0, -1.0]` (2 elements) ``, `37 elements`, `` `9` ``).
fn size_words(debug: &str, len: Option<usize>) -> String {
    let short = debug.chars().count() <= 40;
    match (len.or_else(|| record::sequence_len(debug)), short) {
        (Some(n), true) => format!("`{debug}` ({n} element{})", if n == 1 { "" } else { "s" }),
        (Some(n), false) => format!("{n} element{}", if n == 1 { "" } else { "s" }),
        (None, _) => format!("`{}`", one_line(debug)),
    }
}

/// Whether a parameter type is a reference: `Some(true)` for `&mut`, `Some(false)` for `&`.
fn reference_kind(ty: &str) -> Option<bool> {
    let rest = ty.trim().strip_prefix('&')?;
    let rest = strip_lifetime(rest.trim_start());
    Some(rest.starts_with("mut "))
}

fn strip_lifetime(rest: &str) -> &str {
    match rest.strip_prefix('\'') {
        Some(l) => l
            .split_once(char::is_whitespace)
            .map_or("", |(_, t)| t)
            .trim_start(),
        None => rest,
    }
}

/// The owned type a regression test holds for a parameter of type `ty`, when Invite can
/// shrink it: numbers, `bool`, `char`, `String`, and `Vec`, `Option`, `Box`, arrays and tuples
/// of them; a reference holds its referent (`&[T]` a `Vec<T>`, `&str` a `String`).
pub fn shrink_type(ty: &str) -> Option<String> {
    let ty = ty.trim();
    if let Some(rest) = ty.strip_prefix('&') {
        let rest = strip_lifetime(rest.trim_start());
        let rest = rest.strip_prefix("mut ").unwrap_or(rest).trim();
        if rest == "str" {
            return Some("String".into());
        }
        if let Some(elem) = rest.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            if !elem.contains(';') {
                return owned_shrinkable(elem).map(|e| format!("Vec<{e}>"));
            }
        }
        return owned_shrinkable(rest);
    }
    owned_shrinkable(ty)
}

/// `ty` itself when it is an owned type Invite can shrink.
fn owned_shrinkable(ty: &str) -> Option<String> {
    const LEAVES: [&str; 17] = [
        "bool", "char", "String", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32",
        "u64", "u128", "usize", "f32", "f64",
    ];
    let ty = ty.trim();
    if LEAVES.contains(&ty) {
        return Some(ty.to_string());
    }
    for wrapper in ["Vec", "Option", "Box"] {
        if let Some(inner) = ty
            .strip_prefix(wrapper)
            .map(str::trim_start)
            .and_then(|r| r.strip_prefix('<'))
            .and_then(|r| r.strip_suffix('>'))
        {
            return owned_shrinkable(inner).map(|i| format!("{wrapper}<{i}>"));
        }
    }
    if let Some(inner) = ty.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        let (elem, n) = inner.rsplit_once(';')?;
        let n = n.trim();
        n.parse::<usize>().ok()?;
        return owned_shrinkable(elem).map(|e| format!("[{e}; {n}]"));
    }
    if let Some(inner) = ty.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
        let parts = split_top(inner);
        if parts.is_empty() || parts.len() > 8 {
            return None;
        }
        let owned: Option<Vec<String>> = parts.iter().map(|p| owned_shrinkable(p)).collect();
        let owned = owned?;
        return Some(if owned.len() == 1 {
            format!("({},)", owned[0])
        } else {
            format!("({})", owned.join(", "))
        });
    }
    None
}

/// `text` split at its top-level commas (a trailing one is dropped).
fn split_top(text: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut current = String::new();
    for c in text.chars() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut current).trim().to_string());
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if !current.trim().is_empty() {
        parts.push(current.trim().to_string());
    }
    parts
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

    /// Each site's parameters, as a log without paths gives them.
    fn shaped(params: &BTreeMap<String, Vec<(String, String)>>) -> Params {
        params
            .iter()
            .map(|(site, p)| {
                let shape = SiteShape {
                    params: p.clone(),
                    path: None,
                };
                (site.clone(), shape)
            })
            .collect()
    }
    use invite::record::{Outcome, Record, Seeds, SiteInfo, SiteNamed, Test, VERSION};

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
            instance: String::new(),
            service: String::new(),
            version: String::new(),
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
            exact: Default::default(),
            detail: Some("left: 1.0\nright: 2.0".into()),
            seeds: Seeds {
                rng_seed: "ab".repeat(32),
                rng_stream: 3,
                rng_word_pos: 16,
                test_seed: 99,
            },
        }
    }

    /// The defects of `failures`, as the logs' reader groups them.
    fn grouped(failures: &[Test]) -> Defects {
        let mut defects = Defects::new();
        let mut seen = BTreeSet::new();
        for t in failures {
            add(&mut defects, &mut seen, t.clone());
        }
        defects
    }

    #[test]
    fn printed_paths_are_written_from_inside_the_crate() {
        assert_eq!(
            in_this_crate("<app::models::Knn as app::Model>::predict", "app"),
            "<crate::models::Knn as crate::Model>::predict"
        );
        assert_eq!(
            in_this_crate("alloc::vec::Vec<app::Row<core::primitive::f64>>", "app"),
            "std::vec::Vec<crate::Row<std::primitive::f64>>"
        );
        // Only where a path starts: a segment that merely ends in the crate's name stays.
        assert_eq!(
            in_this_crate("myapp::X<zapp::Y>", "app"),
            "myapp::X<zapp::Y>"
        );
        assert_eq!(in_this_crate("app_two::X", "app"), "app_two::X");
        assert_eq!(
            in_this_crate("(app::A, [app::B; 2])", "app"),
            "(crate::A, [crate::B; 2])"
        );
    }

    #[test]
    fn a_trait_method_with_a_long_receiver_is_rebuilt_exactly_and_called_through_its_path() {
        let site = "<app::models::Knn as Model>::predict";
        let mut t = failure(
            site,
            &[
                ("self", "Knn { rows: [… (truncated)"),
                ("q", "[1.0, … (truncated)"),
            ],
            3,
        );
        t.exact.values.insert("self".into(), "00ff".into());
        t.exact
            .types
            .insert("self".into(), "app::models::Knn".into());
        t.exact.values.insert("q".into(), "0100".into());
        t.exact
            .types
            .insert("q".into(), "alloc::vec::Vec<f64>".into());
        t.exact.receiver = Some("&".into());
        let params = Params::from([(
            site.to_string(),
            SiteShape {
                params: vec![("q".to_string(), "&[f64]".to_string())],
                path: Some("<app::models::Knn as app::Model>::predict".to_string()),
            },
        )]);
        let emitted = emit(&grouped(&[t.clone()]), &params, &BTreeMap::new());
        let src = &emitted.source;
        assert_eq!(emitted.tests, 1, "{src} {:?}", emitted.skipped);
        // The receiver's type in scope through the module that holds it, not the type itself.
        assert!(src.contains("use crate::models::*;\n"), "{src}");
        assert!(
            src.contains("let mut receiver = invite::exact!(crate::models::Knn, \"00ff\");"),
            "{src}"
        );
        assert!(
            src.contains(
                "let _ = <crate::models::Knn as crate::Model>::predict(&receiver, \
                 &invite::exact!(std::vec::Vec<f64>, \"0100\"));"
            ),
            "{src}"
        );
        assert!(emitted.shrinkable.is_empty());
        // Without the path (an older log), a trait's method is left for the hand, and says why.
        let older = Params::from([(
            site.to_string(),
            SiteShape {
                params: vec![("q".to_string(), "&[f64]".to_string())],
                path: None,
            },
        )]);
        let emitted = emit(&grouped(&[t]), &older, &BTreeMap::new());
        assert_eq!(emitted.tests, 0);
        assert!(
            emitted.skipped[0].contains("does not give its path"),
            "{:?}",
            emitted.skipped
        );
    }

    #[test]
    fn the_log_gives_each_site_its_parameters_and_path() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log.jsonl");
        let info = |name: &str, path: Option<&str>| SiteInfo {
            name: name.into(),
            file: "src/lib.rs".into(),
            line: 1,
            rho: 1.0,
            tests: vec!["mean(&permute(xs)) == result".into()],
            params: Some(vec![("xs".into(), "&[f64]".into())]),
            path: path.map(str::to_string),
        };
        let start = format!(
            "{{\"kind\":\"start\",\"v\":1,\"time\":\"2026-01-01T00:00:00.000000Z\",\
             \"instance\":{{\"host\":\"h\",\"pid\":7,\"exe\":\"x\",\"id\":\"i\",\
             \"service\":\"s\",\"version\":\"v\"}},\"config_file\":\"\",\"config\":{{}},\
             \"sites\":[{}]}}",
            serde_json::to_string(&info("app::mean", None)).unwrap()
        );
        let named = Record::Site(SiteNamed {
            v: VERSION,
            time: "2026-01-01T00:00:00.000000Z".into(),
            host: "h".into(),
            pid: 7,
            instance: String::new(),
            service: String::new(),
            version: String::new(),
            info: info("<app::K as Model>::f", Some("<app::K as app::Model>::f")),
        });
        let mut lines = vec![start];
        for r in [
            named,
            Record::Test(failure("app::mean", &[("xs", "[1.0]")], 1)),
        ] {
            lines.push(serde_json::to_string(&r).unwrap());
        }
        std::fs::write(&log, lines.join("\n") + "\n").unwrap();
        let (defects, params) = defects_from_logs(&[log.display().to_string()]).unwrap();
        assert_eq!(defects.len(), 1);
        assert_eq!(params["app::mean"].params.len(), 1);
        assert_eq!(params["app::mean"].path, None);
        assert_eq!(
            params["<app::K as Model>::f"].path.as_deref(),
            Some("<app::K as app::Model>::f")
        );
    }

    #[test]
    fn a_defect_becomes_one_test_calling_the_function_on_its_smallest_input_with_its_seeds() {
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
        let defects = grouped(&[
            failure("app::stats::mean", &[("xs", "[1.0, NaN]")], 4),
            failure("app::stats::mean", &[("xs", "[2.0… (truncated)")], 5),
            failure("app::stats::mean", &[("xs", "[2.0]")], 6),
            failure("app::stats::mean", &[("xs", "[2.0]")], 7),
            failure("app::push", &[("self", "Tally { n: 3 }"), ("by", "7")], 9),
            failure("app::reset", &[("self", "Tally { n: 3 }")], 10),
            failure("custom name", &[("xs", "[1.0]")], 6),
            failure("app::gone", &[("x", "1")], 8),
        ]);
        let mean = &defects[&(
            "app::stats::mean".to_string(),
            "mean(&permute(xs)) == result".to_string(),
            "fail".to_string(),
        )];
        assert_eq!((mean.count, mean.distinct), (4, 3));
        assert_eq!(
            mean.smallest.run, 6,
            "the first of the smallest whole inputs"
        );
        let emitted = emit(&defects, &shaped(&params), &BTreeMap::new());
        let src = &emitted.source;
        assert_eq!(emitted.tests, 3, "{src}");
        assert_eq!(emitted.shrinkable, ["stats_mean_permute_xs_result"]);
        assert!(src.contains("fn stats_mean_permute_xs_result() {"), "{src}");
        assert!(
            src.contains("ended `fail` in 4 runs (3 distinct inputs); the smallest at"),
            "{src}"
        );
        assert!(
            src.contains(
                "    let inputs: (Vec<f64>,) = (\n        vec![2.0],\n    );\n    \
                 invite::regression(\n        \"stats_mean_permute_xs_result\",\n        \
                 \"mean(&permute(xs)) == result\",\n        &seeds,\n        inputs,\n        \
                 |(xs,)| {\n            let _ = crate::stats::mean(&xs);\n        },\n    );\n"
            ),
            "{src}"
        );
        assert!(src.contains(&format!("rng_seed: {:?}.to_string(),", "ab".repeat(32))));
        assert!(src.contains("rng_stream: 3,") && src.contains("rng_word_pos: 16,"));
        assert!(src.contains("test_seed: 99,"));
        assert!(src.contains("/// left: 1.0 right: 2.0"), "{src}");
        // A method: its receiver rebuilt from Debug, its module imported for the type, and
        // the call replayed as it is (a receiver cannot be shrunk).
        assert!(src.contains("use crate::*;\n\n"), "{src}");
        assert!(src.contains("let mut receiver = Tally { n: 3 };"), "{src}");
        assert!(src.contains("let _ = receiver.push(7);"), "{src}");
        assert!(src.contains("invite::check_replaying(&seeds, || {"));
        assert!(src.contains("checked.assert_passed();"));
        // A method without parameters is a function like any other, not an older log's site.
        assert!(src.contains("let _ = receiver.reset();"), "{src}");
        assert_eq!(emitted.skipped.len(), 2, "{:?}", emitted.skipped);
        assert!(emitted.skipped[0].contains("does not name the function's parameters"));
        assert!(emitted.skipped[1].contains("not a path"));
    }

    #[test]
    fn only_truncated_inputs_leave_a_defect_unemitted_with_the_reason() {
        let params = BTreeMap::from([(
            "app::mean".to_string(),
            vec![("xs".to_string(), "Vec<f64>".to_string())],
        )]);
        let defects = grouped(&[
            failure("app::mean", &[("xs", "[1.0, 2.0, 3.0… (truncated)")], 1),
            failure("app::mean", &[("xs", "[1.0… (truncated)")], 2),
        ]);
        let d = defects.values().next().unwrap();
        assert_eq!(d.smallest.run, 2);
        let emitted = emit(&defects, &shaped(&params), &BTreeMap::new());
        assert_eq!(emitted.tests, 0);
        assert!(
            emitted.skipped[0].contains("(2 failures): `xs`: its Debug text was truncated"),
            "{:?}",
            emitted.skipped
        );
    }

    #[test]
    fn a_shrink_replaces_the_logged_inputs_and_says_from_what() {
        let params = BTreeMap::from([(
            "app::median".to_string(),
            vec![
                ("xs".to_string(), "&mut Vec<f64>".to_string()),
                ("k".to_string(), "usize".to_string()),
            ],
        )]);
        let defects = grouped(&[failure(
            "app::median",
            &[("xs", "[3.0, 1.0, 4.0, 1.5]"), ("k", "9")],
            1,
        )]);
        let name = "median_mean_permute_xs_result".to_string();
        let report = ShrinkReport {
            test: name.clone(),
            relation: "mean(&permute(xs)) == result".into(),
            before: vec!["[3.0, 1.0, 4.0, 1.5]".into(), "9".into()],
            before_len: vec![Some(4), None],
            after: vec!["[1.0, 2.0]".into(), "1".into()],
            after_len: vec![Some(2), None],
            tries: 31,
            exhausted: false,
        };
        let emitted = emit(
            &defects,
            &shaped(&params),
            &BTreeMap::from([(name, report.clone())]),
        );
        let src = &emitted.source;
        assert!(
            src.contains(
                "/// Shrunk by `invite report` in 31 tries, still failing the same way:\n\
                 /// `xs` from `[3.0, 1.0, 4.0, 1.5]` (4 elements) to `[1.0, 2.0]` (2 elements)\n"
            ),
            "{src}"
        );
        assert!(src.contains("/// `k` from `9` to `1`\n"), "{src}");
        assert_eq!(
            shrink_summary(&report),
            "`[3.0, 1.0, 4.0, 1.5]` (4 elements) to `[1.0, 2.0]` (2 elements); `9` to `1`"
        );
        let long = format!("[{}]", ["1234.5"; 12].join(", "));
        assert_eq!(size_words(&long, Some(12)), "12 elements");
        assert_eq!(size_words("[7]", None), "`[7]` (1 element)");
        assert!(
            src.contains(
                "let inputs: (Vec<f64>, usize) = (\n        vec![1.0, 2.0],\n        1,\n    );"
            ),
            "{src}"
        );
        assert!(src.contains("        |(mut xs, k)| {\n"), "{src}");
        assert!(src.contains("let _ = crate::median(&mut xs, k);"), "{src}");
        // A shrink of other parameters (an older file's) is ignored.
        let mut other = report;
        other.after.pop();
        let emitted = emit(
            &defects,
            &shaped(&params),
            &BTreeMap::from([("median_mean_permute_xs_result".to_string(), other)]),
        );
        assert!(emitted.source.contains("vec![3.0, 1.0, 4.0, 1.5],"));
        assert!(!emitted.source.contains("Shrunk by"));
    }

    #[test]
    fn defects_whose_names_read_alike_get_numbered_names() {
        let params = BTreeMap::from([(
            "app::f".to_string(),
            vec![("x".to_string(), "i64".to_string())],
        )]);
        let mut tests = Vec::new();
        for (i, relation) in ["f(x) == x", "f(x) != x", "f(x) >= x"].iter().enumerate() {
            let mut t = failure("app::f", &[("x", "3")], i as u64 + 1);
            t.test = relation.to_string();
            tests.push(t);
        }
        let emitted = emit(&grouped(&tests), &shaped(&params), &BTreeMap::new());
        assert_eq!(emitted.tests, 3, "{}", emitted.source);
        for name in ["fn f_x() {", "fn f_x_2() {", "fn f_x_3() {"] {
            assert!(emitted.source.contains(name), "{name}: {}", emitted.source);
        }
        assert_eq!(emitted.shrinkable, ["f_x", "f_x_2", "f_x_3"]);
    }

    #[test]
    fn test_names_carry_the_path_the_relation_s_words_and_an_unusual_outcome() {
        let mut t = failure("app::stats::mean", &[], 1);
        assert_eq!(test_name(&t), "stats_mean_permute_xs_result");
        t.test = "mean(&invite::mr::add(xs, 1.5)) == result + 1.5 && a && b && c".into();
        t.outcome = Outcome::Timeout;
        assert_eq!(test_name(&t), "stats_mean_add_xs_1_5_result_timeout");
        t.site = "app::Mean".into();
        t.test = "mean(xs)".into();
        t.outcome = Outcome::Fail;
        assert_eq!(test_name(&t), "mean_mean_xs");
        let mut t = failure("app", &[], 1);
        t.test = "1".into();
        assert_eq!(test_name(&t), "defect_1");
    }

    #[test]
    fn owned_shrinkable_types_and_sequence_lengths_are_read_from_text() {
        for (ty, owned) in [
            ("&[f64]", Some("Vec<f64>")),
            ("&'a [i64]", Some("Vec<i64>")),
            ("&mut [u8]", Some("Vec<u8>")),
            ("&str", Some("String")),
            ("&Vec<f32>", Some("Vec<f32>")),
            ("u64", Some("u64")),
            ("Option<Vec<char>>", Some("Option<Vec<char>>")),
            ("Box<bool>", Some("Box<bool>")),
            ("[f64; 3]", Some("[f64; 3]")),
            ("&[f64; 3]", Some("[f64; 3]")),
            ("(f64, Vec<u8>)", Some("(f64, Vec<u8>)")),
            ("(f64,)", Some("(f64,)")),
            ("(Vec<(u8, i8)>, f64)", Some("(Vec<(u8, i8)>, f64)")),
            (
                "([u8; 3], Option<(f32, bool)>)",
                Some("([u8; 3], Option<(f32, bool)>)"),
            ),
            (
                "(u8, u8, u8, u8, u8, u8, u8, u8)",
                Some("(u8, u8, u8, u8, u8, u8, u8, u8)"),
            ),
            ("(u8, u8, u8, u8, u8, u8, u8, u8, u8)", None),
            ("Vec<&str>", None),
            ("T", None),
            ("[f64; N]", None),
            ("()", None),
            ("HashMap<u8, u8>", None),
        ] {
            assert_eq!(shrink_type(ty).as_deref(), owned, "{ty}");
        }
        assert_eq!(record::sequence_len("[]"), Some(0));
        assert_eq!(record::sequence_len("[1.0]"), Some(1));
        assert_eq!(
            record::sequence_len("[(1, 2), [3, 4], \"a, b\", ',', '\\'', {5, 6}]"),
            Some(6)
        );
        assert_eq!(record::sequence_len("Some(3)"), None);
        assert_eq!(reference_kind("&'a mut Vec<u8>"), Some(true));
        assert_eq!(reference_kind("&[u8]"), Some(false));
        assert_eq!(reference_kind("u8"), None);
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
        let defects = grouped(&[failure("mean", &[], 1), failure("my app::mean", &[], 2)]);
        let emitted = emit(&defects, &shaped(&params), &BTreeMap::new());
        assert_eq!(emitted.tests, 0, "{}", emitted.source);
        assert_eq!(emitted.skipped.len(), 2, "{:?}", emitted.skipped);
        assert!(emitted.skipped.iter().all(|s| s.contains("not a path")));
    }

    #[test]
    fn a_trait_impl_s_method_gets_no_test_and_a_reason_of_its_own() {
        let site = "<app::Mean as Scorer>::score";
        let params = BTreeMap::from([(site.to_string(), Vec::new())]);
        let emitted = emit(
            &grouped(&[failure(site, &[], 1)]),
            &shaped(&params),
            &BTreeMap::new(),
        );
        assert_eq!(emitted.tests, 0, "{}", emitted.source);
        assert!(
            emitted.skipped[0].contains("a trait impl's method"),
            "{:?}",
            emitted.skipped
        );
    }
}
