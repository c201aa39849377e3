//! `invite discover`, run as the real binary on logs of observation records made by the
//! library's own observer, as a program's child makes them.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use invite::discover::{observe, Kind, Observation, Signature, Transform, Value};
use invite::record::{self, Record, Seeds};
use serde_json::Value as Json;

fn invite(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_invite"))
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

const SIGNATURE: &str = "fn sin(x: f64) -> f64";

/// Observations of `sin` on `n` distinct inputs.
fn sine_observations(n: usize) -> Vec<Observation> {
    observations_as(SIGNATURE, n)
}

/// Observations of `sin` declared as `signature`.
fn observations_as(signature: &str, n: usize) -> Vec<Observation> {
    let sig = Signature::parse(signature, &[Kind::Float], Kind::Float).unwrap();
    let transforms = Transform::all(&sig);
    let mut call = |v: &[Value]| Some(Value::Float(v[0].number()?.sin()));
    (0..n)
        .map(|i| {
            let x = (i as f64 * 0.618_033_988_7) % 1.0 * 18.0 - 9.0;
            observe(
                &sig,
                &transforms,
                vec![Value::Float(x)],
                &mut call,
                i as u64,
            )
            .unwrap()
        })
        .collect()
}

fn line(site: &str, signature: &str, run: u64, observation: Observation) -> String {
    Record::Observation(record::Observation {
        v: record::VERSION,
        time: "2026-11-22T10:00:00.000000Z".into(),
        host: "h".into(),
        pid: 7,
        instance: String::new(),
        service: String::new(),
        version: String::new(),
        site: site.into(),
        signature: signature.into(),
        run,
        duration_us: 900,
        seeds: Seeds {
            rng_seed: "00".repeat(32),
            rng_stream: 0,
            rng_word_pos: 0,
            test_seed: run,
        },
        observation,
    })
    .to_line()
}

fn log_of(lines: &[String]) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new()
        .suffix(".jsonl")
        .tempfile()
        .unwrap();
    for l in lines {
        writeln!(f, "{l}").unwrap();
    }
    f
}

fn sine_log(n: usize) -> tempfile::NamedTempFile {
    let lines: Vec<String> = sine_observations(n)
        .into_iter()
        .enumerate()
        .map(|(i, o)| line("app::sin", SIGNATURE, i as u64 + 1, o))
        .collect();
    log_of(&lines)
}

fn path(f: &tempfile::NamedTempFile) -> &str {
    f.path().to_str().unwrap()
}

#[test]
fn json_names_site_relation_inputs_and_detects() {
    let log = sine_log(40);
    let out = invite(&["discover", "--all", path(&log), "--format", "json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let found: Vec<Json> = serde_json::from_slice(&out.stdout).unwrap();
    let odd = found
        .iter()
        .find(|p| p["relation"] == "sin(-x) == -result")
        .unwrap_or_else(|| panic!("{}", text(&out.stdout)));
    assert_eq!(odd["site"], "app::sin");
    assert_eq!(odd["inputs"], 40);
    assert_eq!(odd["held"], 40);
    assert!(odd["detects"].as_u64().unwrap() > 0, "{odd}");
    assert!(found.iter().all(|p| p["detects"].as_u64().unwrap() > 0));
}

#[test]
fn by_default_the_representative_set_is_printed_and_what_it_leaves_out_counted() {
    let log = sine_log(40);
    let relations = |args: &[&str]| -> Vec<String> {
        let out = invite(&[&["discover", path(&log), "--format", "json"], args].concat());
        assert!(out.status.success(), "{}", text(&out.stderr));
        // Beside JSON, what was left out is said on stderr.
        assert_eq!(
            text(&out.stderr).contains("more relation(s) left out"),
            args.is_empty(),
            "{}",
            text(&out.stderr)
        );
        let found: Vec<Json> = serde_json::from_slice(&out.stdout).unwrap();
        found
            .iter()
            .map(|p| p["relation"].as_str().unwrap().to_string())
            .collect()
    };
    let (shown, all) = (relations(&[]), relations(&["--all"]));
    assert!(
        !shown.is_empty() && shown.len() < all.len(),
        "{shown:?}\n{all:?}"
    );
    assert!(shown.iter().all(|r| all.contains(r)), "{shown:?}\n{all:?}");
    let out = invite(&["discover", path(&log)]);
    let plain = text(&out.stdout);
    assert!(
        plain.starts_with(&format!("app::sin: {} relation(s)\n", shown.len())),
        "{plain}"
    );
    assert!(
        plain.ends_with(&format!(
            "note: app::sin: {} more relation(s) left out, each catching no wrong output on no \
             input that those shown do not; --all shows them\n",
            all.len() - shown.len()
        )),
        "{plain}"
    );
    let out = invite(&["discover", "--all", path(&log)]);
    assert!(
        !text(&out.stdout).contains("left out"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn rust_prints_the_attribute_ready_to_paste_and_text_the_evidence() {
    let log = sine_log(40);
    let out = invite(&["discover", "--all", path(&log), "--format", "rust"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let rust = text(&out.stdout);
    assert!(
        rust.starts_with("// app::sin\n#[invite::metamorphic(\n"),
        "{rust}"
    );
    assert!(rust.contains("\n    sin(-x) == -result,\n"), "{rust}");
    assert!(rust.ends_with(")]\n"), "{rust}");

    let out = invite(&["discover", "--all", path(&log)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let plain = text(&out.stdout);
    assert!(plain.starts_with("app::sin: "), "{plain}");
    assert!(
        plain.contains("    sin(-x) == -result,\n        // held 40/40 on 40 distinct inputs"),
        "{plain}"
    );
}

#[test]
fn too_few_distinct_inputs_propose_nothing_and_say_what_to_do() {
    let log = sine_log(40);
    let out = invite(&["discover", path(&log), "--min-inputs", "50"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let plain = text(&out.stdout);
    assert!(
        plain.contains(
            "note: app::sin: 40 observation(s) of 40 distinct input(s), fewer than --min-inputs 50"
        ),
        "{plain}"
    );
    assert!(!plain.contains("sin(-x)"), "{plain}");
    // Repeated inputs count once.
    let one = sine_observations(1).remove(0);
    let lines: Vec<String> = (0..40)
        .map(|i| line("app::sin", SIGNATURE, i, one.clone()))
        .collect();
    let log = log_of(&lines);
    let out = invite(&["discover", path(&log), "--format", "json"]);
    assert_eq!(text(&out.stdout).trim(), "[]");
    assert!(
        text(&out.stderr).contains("40 observation(s) of 1 distinct input(s)"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn without_the_flag_thirty_distinct_inputs_are_needed() {
    let out = invite(&["discover", path(&sine_log(29))]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let plain = text(&out.stdout);
    assert!(
        plain.contains(
            "note: app::sin: 29 observation(s) of 29 distinct input(s), fewer than --min-inputs 30"
        ),
        "{plain}"
    );
    assert!(!plain.contains("sin(-x)"), "{plain}");
    let out = invite(&["discover", "--all", path(&sine_log(30))]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let plain = text(&out.stdout);
    assert!(
        plain.contains("    sin(-x) == -result,\n        // held 30/30 on 30 distinct inputs"),
        "{plain}"
    );
}

#[test]
fn a_log_without_observations_or_a_missing_one_is_an_error_that_says_why() {
    let log = log_of(&[r#"{"kind":"stop","v":1,"time":"t","host":"h","pid":1}"#.to_string()]);
    let out = invite(&["discover", path(&log)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("no observation records in"),
        "{}",
        text(&out.stderr)
    );
    assert!(text(&out.stderr).contains("#[invite::discover]"));

    let out = invite(&["discover", "/nonexistent/log.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("/nonexistent/log.jsonl: no such file or directory"));

    let out = invite(&["discover", path(&log), "--min-inputs", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("expected a whole number of 1 or more, got `0`"));
}

#[test]
fn malformed_and_foreign_observations_are_left_out_with_a_note() {
    let mut lines: Vec<String> = sine_observations(40)
        .into_iter()
        .enumerate()
        .map(|(i, o)| line("app::sin", SIGNATURE, i as u64, o))
        .collect();
    lines.insert(3, r#"{"kind":"observation","site":"app::sin"}"#.to_string());
    // Made by another version: its follow-ups are of other transformations.
    let mut foreign = sine_observations(1).remove(0);
    foreign.follow.truncate(2);
    lines.push(line("app::sin", SIGNATURE, 99, foreign));
    let log = log_of(&lines);
    let out = invite(&["discover", "--all", path(&log), "--format", "json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains(&format!(
            "skipped 1 malformed observation record(s); the first: {}:4:",
            path(&log)
        )),
        "{err}"
    );
    assert!(
        err.contains("app::sin: left out 1 observation(s) recorded by another version"),
        "{err}"
    );
    let found: Vec<Json> = serde_json::from_slice(&out.stdout).unwrap();
    assert!(found
        .iter()
        .any(|p| p["relation"] == "sin(-x) == -result" && p["inputs"] == 40));
}

#[test]
fn sites_are_kept_apart_and_report_counts_observations_as_passed_runs() {
    let mut lines: Vec<String> = sine_observations(40)
        .into_iter()
        .enumerate()
        .map(|(i, o)| line("app::sin", SIGNATURE, i as u64, o))
        .collect();
    // The same function under another site and name: proposed there in its own words.
    lines.extend(
        observations_as("fn wave(t: f64) -> f64", 40)
            .into_iter()
            .enumerate()
            .map(|(i, o)| line("app::wave", "fn wave(t: f64) -> f64", i as u64, o)),
    );
    let log = log_of(&lines);
    let out = invite(&["discover", "--all", path(&log), "--format", "json"]);
    let found: Vec<Json> = serde_json::from_slice(&out.stdout).unwrap();
    assert!(found
        .iter()
        .any(|p| p["site"] == "app::wave" && p["relation"] == "wave(-t) == -result"));
    assert!(found
        .iter()
        .any(|p| p["site"] == "app::sin" && p["relation"] == "sin(-x) == -result"));

    let out = invite(&["report", path(&log), "--format", "json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["input"]["unknown_kinds"], 0, "{report}");
    assert_eq!(report["input"]["records"], 80, "{report}");
    let wave = report["sites"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["site"] == "app::wave")
        .unwrap();
    assert_eq!(
        wave["per_test"][0]["test"],
        "discover fn wave(t: f64) -> f64"
    );
    assert_eq!(wave["per_test"][0]["outcomes"]["pass"], 40, "{wave}");
}

#[test]
fn only_observation_lines_are_read_and_a_clean_log_gets_no_note() {
    let mut lines: Vec<String> = sine_observations(40)
        .into_iter()
        .enumerate()
        .map(|(i, o)| line("app::sin", SIGNATURE, i as u64, o))
        .collect();
    // Damage in records of other kinds is the report's business, not discovery's.
    lines.push("not json at all".into());
    lines.push(r#"{"kind":"test","site":"app::sin""#.into());
    let log = log_of(&lines);
    let out = invite(&["discover", "--all", path(&log), "--format", "json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "", "a clean log gets no note");
}

#[test]
fn exactly_enough_inputs_that_propose_nothing_say_no_relation_held() {
    // A function with no relation: a hash of its input, of either sign.
    let sig = Signature::parse("fn hash(x: f64) -> f64", &[Kind::Float], Kind::Float).unwrap();
    let transforms = Transform::all(&sig);
    let mut call = |v: &[Value]| {
        let x = v[0].number()?;
        Some(Value::Float(
            ((x * 12.9898 + 78.233).sin() * 43_758.545_3).fract(),
        ))
    };
    let lines: Vec<String> = (0..30)
        .map(|i| {
            let x = i as f64 * 0.731 + 0.1;
            let o = observe(&sig, &transforms, vec![Value::Float(x)], &mut call, i).unwrap();
            line("app::hash", "fn hash(x: f64) -> f64", i, o)
        })
        .collect();
    let log = log_of(&lines);
    let out = invite(&["discover", path(&log), "--min-inputs", "30"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "note: app::hash: 30 observation(s) of 30 distinct input(s); no candidate relation held \
         on all of them and caught a wrong output\n"
    );
}

#[test]
fn a_reader_that_goes_away_is_no_error_but_a_full_disk_is() {
    let log = sine_log(40);
    let mut child = Command::new(env!("CARGO_BIN_EXE_invite"))
        .args(["discover", path(&log)])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Nobody reads the proposals: writing them fails with a broken pipe.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "");

    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_invite"))
        .args(["discover", path(&log)])
        .stdin(Stdio::null())
        .stdout(full)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("invite discover: cannot write the proposals: "),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_relation_that_failed_on_one_kind_of_input_is_shown_apart_as_a_suspected_defect() {
    // A median wrong for even lengths: the upper middle element alone.
    let signature = "fn median(xs: &[f64]) -> f64";
    let sig = Signature::parse(signature, &[Kind::FloatSeq], Kind::Float).unwrap();
    let transforms = Transform::all(&sig);
    let mut call = |v: &[Value]| {
        let mut xs = v[0].elements()?;
        xs.sort_by(f64::total_cmp);
        xs.get(xs.len() / 2).copied().map(Value::Float)
    };
    let lines: Vec<String> = (0..90u32)
        .map(|i| {
            let xs = (0..1 + i % 6)
                .map(|j| f64::from((i * 31 + j * 17) % 23) * 0.5 - 4.0)
                .collect();
            let o = observe(
                &sig,
                &transforms,
                vec![Value::FloatSeq(xs)],
                &mut call,
                i.into(),
            )
            .unwrap();
            line("app::median", signature, i.into(), o)
        })
        .collect();
    let log = log_of(&lines);
    let out = invite(&["discover", path(&log)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let plain = text(&out.stdout);
    let apart = plain
        .split("\nsuspected defects: ")
        .nth(1)
        .unwrap_or_else(|| panic!("{plain}"));
    assert!(
        apart.contains("app::median: median(&invite::mr::negate(xs)) == -result\n    held on all "),
        "{plain}"
    );
    assert!(
        apart.contains("with an even length of `xs`; smallest: xs = ["),
        "{plain}"
    );
    // Not among the relations to paste.
    let proposals = plain.split("\nsuspected defects: ").next().unwrap();
    assert!(!proposals.contains("negate(xs)) == -result"), "{plain}");
    // Beside JSON, a note says where to see them.
    let out = invite(&["discover", path(&log), "--format", "json"]);
    assert!(
        text(&out.stderr).contains(" suspected defect(s): relations that held on most inputs"),
        "{}",
        text(&out.stderr)
    );
    assert!(!text(&out.stdout).contains("negate(xs)) == -result"));
}

#[test]
fn each_signature_of_a_site_gets_its_own_representative_set() {
    // One site recorded under two signatures (a redeploy renamed the parameter): the evidence
    // of one says nothing of the other's relations.
    let mut lines: Vec<String> = observations_as("fn sin(x: f64) -> f64", 40)
        .into_iter()
        .enumerate()
        .map(|(i, o)| line("app::sin", "fn sin(x: f64) -> f64", i as u64, o))
        .collect();
    lines.extend(
        observations_as("fn sin(t: f64) -> f64", 40)
            .into_iter()
            .enumerate()
            .map(|(i, o)| line("app::sin", "fn sin(t: f64) -> f64", 100 + i as u64, o)),
    );
    let log = log_of(&lines);
    let out = invite(&["discover", path(&log), "--format", "rust"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let rust = text(&out.stdout);
    let shown = |param: &str| {
        rust.lines()
            .filter(|l| l.trim_start().starts_with("sin(") && l.contains(param))
            .count()
    };
    assert!(shown("(x") + shown(" x") > 0, "{rust}");
    assert!(shown("(t") + shown(" t") > 0, "{rust}");
    assert_eq!(
        text(&out.stderr)
            .matches("more relation(s) left out")
            .count(),
        2,
        "{}",
        text(&out.stderr)
    );
}
