//! `invite report` and `invite check-config`, run as the real binary on hand-built logs.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use invite::record::{
    Instance, Outcome, OutcomeCounts, Record, Seeds, SiteInfo, SiteStats, SkipCounts, Start, Stats,
    Stop, Test,
};
use serde_json::Value;

fn invite(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_invite"))
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    if let Some(bytes) = stdin {
        input.write_all(bytes).unwrap();
    }
    drop(input);
    child.wait_with_output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn start(pid: u32, sites: &[(&str, &[&str])]) -> String {
    Record::Start(Start {
        v: 1,
        time: "2026-11-22T10:00:00.000000Z".into(),
        instance: Instance {
            host: "h".into(),
            pid,
            exe: "/bin/app".into(),
            id: String::new(),
            service: String::new(),
            version: String::new(),
        },
        config_file: "invite.toml".into(),
        config: serde_json::json!({"default_rho": 0.5}),
        sites: sites
            .iter()
            .map(|(name, tests)| SiteInfo {
                name: name.to_string(),
                file: "src/lib.rs".into(),
                line: 10,
                rho: 0.5,
                tests: tests.iter().map(|t| t.to_string()).collect(),
                params: None,
                path: None,
            })
            .collect(),
        shard: None,
    })
    .to_line()
}

fn test(pid: u32, site: &str, test: &str, run: u64, outcome: Outcome, us: u64) -> String {
    let mut inputs = BTreeMap::new();
    inputs.insert("xs".to_string(), format!("[{run}.0]"));
    Record::Test(Test {
        v: 1,
        time: format!("2026-11-22T10:0{}:00.000000Z", run % 10),
        host: "h".into(),
        pid,
        instance: String::new(),
        service: String::new(),
        version: String::new(),
        site: site.into(),
        test: test.into(),
        run,
        outcome,
        parent_us: 100,
        duration_us: us,
        inputs,
        exact: Default::default(),
        detail: (outcome != Outcome::Pass).then(|| format!("detail of run {run}")),
        seeds: Seeds {
            rng_seed: "ab".repeat(32),
            rng_stream: 0,
            rng_word_pos: 8,
            test_seed: run,
        },
    })
    .to_line()
}

fn stats(pid: u32, site: &str, calls: u64, elapsed: f64) -> String {
    Record::Stats(Stats {
        v: 1,
        time: "2026-11-22T10:09:00.000000Z".into(),
        host: "h".into(),
        pid,
        instance: String::new(),
        service: String::new(),
        version: String::new(),
        elapsed_s: elapsed,
        is_final: true,
        cow_faults: 0,
        cow_share: 0.0,
        children_share: 0.0,
        resident_mib: 0.0,
        log_errors: 0,
        log_lost: 0,
        sites: vec![SiteStats {
            site: site.into(),
            rho: 0.5,
            calls,
            sampled: 10,
            skipped: SkipCounts {
                concurrency: 4,
                overhead: 3,
                disabled: 0,
                fork_failed: 0,
                dedup: 2,
                ring_full: 0,
                unrun: 0,
                unhidden: 0,
            },
            runs: 3,
            tests: 6,
            outcomes: OutcomeCounts::default(),
            mean_test_us: 0.0,
            mean_parent_us: 100.0,
            wait_us: 0,
            mean_wait_us: 0.0,
            tests_per_sec: 0.0,
            overhead_share: 0.0,
            run_share: 0.0,
        }],
    })
    .to_line()
}

fn stop(pid: u32) -> String {
    Record::Stop(Stop {
        v: 1,
        time: "2026-11-22T10:09:30.000000Z".into(),
        host: "h".into(),
        pid,
        instance: String::new(),
        service: String::new(),
        version: String::new(),
        drained: 0,
        killed: 0,
    })
    .to_line()
}

const A: &str = "f(&permute(xs)) == result";
const B: &str = "Self::check";

/// One instance, three runs of a two-test site: 3 pass, 1 fail, 1 error, 1 timeout.
fn instance_log(pid: u32) -> String {
    [
        start(pid, &[("app::f", &[A, B])]),
        test(pid, "app::f", A, 1, Outcome::Pass, 10),
        test(pid, "app::f", B, 1, Outcome::Pass, 20),
        test(pid, "app::f", A, 2, Outcome::Fail, 30),
        test(pid, "app::f", B, 2, Outcome::Pass, 40),
        test(pid, "app::f", A, 3, Outcome::Error, 50),
        test(pid, "app::f", B, 3, Outcome::Timeout, 2000),
        stats(pid, "app::f", 100, 10.0),
        stop(pid),
    ]
    .join("\n")
        + "\n"
}

fn write(dir: &Path, name: &str, content: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, content).unwrap();
    p
}

fn json_report(args: &[&str]) -> Value {
    let mut all = vec!["report", "--format", "json"];
    all.extend_from_slice(args);
    let out = invite(&all, None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_text_report_notes_the_sites_whose_callers_waited_and_no_other() {
    let dir = tempfile::tempdir().unwrap();
    let waited = stats(2, "app::g", 100, 10.0).replace(
        r#""wait_us":0,"mean_wait_us":0.0"#,
        r#""wait_us":2500000,"mean_wait_us":25000.0"#,
    );
    assert!(waited.contains("2500000"), "{waited}");
    let log = instance_log(1)
        + &[
            start(2, &[("app::g", &[A])]),
            test(2, "app::g", A, 1, Outcome::Pass, 10),
            waited,
            stop(2),
        ]
        .join("\n")
        + "\n";
    let log = write(dir.path(), "a.jsonl", log.as_bytes());
    let out = invite(&["report", log.to_str().unwrap(), "--width", "200"], None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    let notes: Vec<&str> = report
        .lines()
        .filter(|l| l.contains("callers waited for the caps"))
        .collect();
    assert_eq!(notes.len(), 1, "{report}");
    assert!(notes[0].trim_start().starts_with("app::g: "), "{report}");
    // 2.5 s of waiting over the two instances' 20 s of wall time.
    assert!(notes[0].contains(" 12.50% of the time"), "{report}");
}

#[test]
fn counts_match_a_hand_built_log() {
    let dir = tempfile::tempdir().unwrap();
    let log = write(dir.path(), "a.jsonl", instance_log(1).as_bytes());
    let r = json_report(&[log.to_str().unwrap()]);
    let site = &r["sites"][0];
    assert_eq!(site["site"], "app::f");
    assert_eq!(site["runs"], 3);
    assert_eq!(site["tests"], 6);
    assert_eq!(site["outcomes"]["pass"], 3);
    assert_eq!(site["outcomes"]["fail"], 1);
    assert_eq!(site["outcomes"]["error"], 1);
    assert_eq!(site["outcomes"]["timeout"], 1);
    assert_eq!(site["calls"], 100);
    assert_eq!(site["skipped"]["concurrency"], 4);
    assert_eq!(site["skipped"]["overhead"], 3);
    // 3 runs at 100 µs each over 10 s of wall time.
    assert_eq!(site["parent_us_per_run"], 100.0);
    assert!((site["overhead_share"].as_f64().unwrap() - 3e-5).abs() < 1e-12);
    // The instance's share: the same callers' time over its own wall time.
    let instance = &r["instances"][0]["overhead_share"];
    assert!(
        (instance.as_f64().unwrap() - 3e-5).abs() < 1e-12,
        "{instance}"
    );
    assert!((site["tests_per_sec"].as_f64().unwrap() - 0.6).abs() < 1e-12);
    assert_eq!(site["calls_per_sec"], 10.0);
    let a = site["per_test"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["test"] == A)
        .unwrap();
    assert_eq!(a["runs"], 3);
    assert_eq!(a["duration_us"]["median"], 30);
    assert_eq!(a["failures_total"], 2);
    let first = &a["failures"][0];
    assert_eq!(first["outcome"], "fail");
    assert_eq!(first["detail"], "detail of run 2");
    assert_eq!(first["inputs"]["xs"], "[2.0]");
    assert_eq!(first["seeds"]["test_seed"], 2);
    assert_eq!(first["pid"], 1);
    assert_eq!(r["instances"][0]["stopped"], true);
}

/// Lines of a text report wider than `width`, but for the seed, which is pasted whole.
fn too_wide(report: &str, width: usize) -> Vec<&str> {
    let seed = "ab".repeat(32);
    report
        .lines()
        .filter(|l| l.chars().count() > width && l.trim() != seed)
        .collect()
}

/// The widest line of a text report, the seed to paste left out.
fn widest(report: &str) -> usize {
    let seed = "ab".repeat(32);
    report
        .lines()
        .filter(|l| l.trim() != seed)
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0)
}

/// Text without its whitespace: wrapped text and the text it wraps read the same.
fn squeezed(text: &str) -> String {
    text.split_whitespace().collect()
}

#[test]
fn the_text_report_keeps_to_its_width_whatever_the_names() {
    let site =
        "a_rather_long_crate_name::deeply::nested::module::path::to::a_function_with_a_long_name";
    let relation = "a_function_with_a_long_name(&invite::mr::multiply(&invite::mr::permute(xs), \
                    2.0), scale * 2.0) == result * 2.0 + offset * 0.0";
    let log = [
        start(7, &[(site, &[relation, A])]),
        test(7, site, relation, 1, Outcome::Fail, 10),
        test(7, site, A, 1, Outcome::Pass, 20),
        test(7, site, relation, 2, Outcome::Timeout, 30),
        stats(7, site, 100, 10.0),
        stop(7),
    ]
    .join("\n")
        + "\n";
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "long.jsonl", log.as_bytes());
    // Not on a terminal and no --width: 100 columns.
    for (width, arg) in [(100, None), (80, Some("80")), (40, Some("40"))] {
        let mut args = vec!["report", path.to_str().unwrap()];
        args.extend(arg.iter().flat_map(|w| ["--width", w]));
        let out = invite(&args, None);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let report = text(&out.stdout);
        assert_eq!(too_wide(&report, width), Vec::<&str>::new(), "{report}");
        // Nothing is cut: the names are whole in the tables, the relation in its failures.
        let outcomes = &report[..report.find("\nSampling").unwrap()];
        assert!(squeezed(outcomes).contains(&squeezed(relation)), "{report}");
        assert!(squeezed(outcomes).contains(site), "{report}");
    }
}

#[test]
fn a_width_below_40_or_not_a_number_is_refused_with_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let log = write(dir.path(), "a.jsonl", instance_log(1).as_bytes());
    let log = log.to_str().unwrap();
    for bad in ["39", "0", "-3", "wide", "", "4O"] {
        let out = invite(&["report", log, &format!("--width={bad}")], None);
        assert_eq!(out.status.code(), Some(2), "{bad}: {}", text(&out.stderr));
        let err = text(&out.stderr);
        assert!(err.contains("--width"), "{bad}: {err}");
        assert!(err.contains("40 or more"), "{bad}: {err}");
        assert!(out.stdout.is_empty(), "{bad}: {}", text(&out.stdout));
    }
    let out = invite(&["report", log, "--width", "40"], None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    assert_eq!(too_wide(&report, 40), Vec::<&str>::new(), "{report}");
    assert!(widest(&report) == 40, "{report}");
}

/// A site's two relations that start alike, each failing: under the first a 300-element vector,
/// a token of 300 characters and a long detail; under the second, the clue, a vector of two.
fn clue_log(site: &str, up: &str, down: &str) -> String {
    let failing = |test: &str, run: u64, inputs: &[(&str, String)], detail: &str| {
        Record::Test(Test {
            v: 1,
            time: format!("2026-11-22T10:0{run}:00.000000Z"),
            host: "h".into(),
            pid: 1,
            instance: String::new(),
            service: String::new(),
            version: String::new(),
            site: site.into(),
            test: test.into(),
            run,
            outcome: Outcome::Fail,
            parent_us: 100,
            duration_us: 10,
            inputs: inputs
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
            exact: Default::default(),
            detail: Some(detail.into()),
            seeds: Seeds {
                rng_seed: "ab".repeat(32),
                rng_stream: 0,
                rng_word_pos: 8,
                test_seed: run,
            },
        })
        .to_line()
    };
    [
        start(1, &[(site, &[up, down])]),
        failing(
            up,
            1,
            &[("xs", long_vector()), ("label", long_token())],
            &format!(
                "{}\nleft != right",
                "the median moved by more than the shift; ".repeat(8)
            ),
        ),
        failing(down, 2, &[("xs", "[1.0, 3.0]".into())], "3.0 != 1.0"),
        stats(1, site, 100, 10.0),
        stop(1),
    ]
    .join("\n")
        + "\n"
}

/// A 300-element vector's `Debug` text.
fn long_vector() -> String {
    format!("{:?}", (0..300).map(|i| i as f64 + 0.5).collect::<Vec<_>>())
}

/// A string input with no space in 300 characters.
fn long_token() -> String {
    format!("{:?}", "x".repeat(300))
}

const UP: &str = "median(&invite::mr::add(xs, 1.0)) == result + 1.0";
const DOWN: &str = "median(&invite::mr::add(xs, -1.0)) == result - 1.0";

#[test]
fn a_failure_s_inputs_and_relation_are_printed_whole_at_any_width() {
    let dir = tempfile::tempdir().unwrap();
    let log = write(
        dir.path(),
        "clue.jsonl",
        clue_log("stats::median", UP, DOWN).as_bytes(),
    );
    for width in ["40", "60", "100", "250"] {
        let out = invite(&["report", log.to_str().unwrap(), "--width", width], None);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let report = text(&out.stdout);
        let w: usize = width.parse().unwrap();
        assert_eq!(too_wide(&report, w), Vec::<&str>::new(), "{report}");
        // The vector whole, its length shown, wrapped under its label.
        let lines: Vec<&str> = report.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.starts_with("    input   xs (len 300) = [0.5,"))
            .unwrap_or_else(|| panic!("{report}"));
        let mut pieces = vec![&lines[at][12..]];
        pieces.extend(
            lines[at + 1..]
                .iter()
                .map_while(|l| l.strip_prefix(&" ".repeat(12))),
        );
        assert_eq!(
            pieces.join(" "),
            format!("xs (len 300) = {}", long_vector()),
            "{report}"
        );
        assert!(
            report.contains("    input   xs (len 2) = [1.0, 3.0]\n"),
            "{report}"
        );
        // The token longer than any line, split over lines, nothing left out.
        assert!(
            squeezed(&report).contains(&format!("label={}", long_token())),
            "{report}"
        );
        // The two relations told apart: each whole in the table and in its failures.
        let (outcomes, failures) = report.split_at(report.find("\nFailures\n").unwrap());
        let outcomes = &outcomes[..outcomes.find("\nSampling").unwrap()];
        for relation in [UP, DOWN] {
            assert!(squeezed(outcomes).contains(&squeezed(relation)), "{report}");
            let heading = format!("stats::median:{}(1failing)", squeezed(relation));
            assert!(squeezed(failures).contains(&heading), "{report}");
        }
    }
}

/// Runs the command with its standard output on a terminal of `columns` columns and `COLUMNS`
/// set to `env_columns` (unset for `None`); what the terminal received.
// A terminal for the command to print to: a pseudo-terminal pair from openpty.
#[allow(unsafe_code)]
fn on_a_terminal(args: &[&str], columns: u16, env_columns: Option<&str>) -> String {
    use std::io::Read;
    use std::os::fd::{FromRawFd, OwnedFd};
    let (mut leader, mut follower) = (0, 0);
    let size = libc::winsize {
        ws_row: 50,
        ws_col: columns,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: openpty writes two fresh descriptors into the integers; the size is only read.
    let made = unsafe {
        libc::openpty(
            &mut leader,
            &mut follower,
            std::ptr::null_mut(),
            std::ptr::null(),
            &size,
        )
    };
    assert_eq!(made, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors were just created and are owned here alone.
    let (leader, follower) =
        unsafe { (OwnedFd::from_raw_fd(leader), OwnedFd::from_raw_fd(follower)) };
    let mut command = Command::new(env!("CARGO_BIN_EXE_invite"));
    command
        .args(args)
        .env("NO_COLOR", "1")
        .env_remove("COLUMNS")
        .stdin(Stdio::null())
        .stdout(Stdio::from(follower))
        .stderr(Stdio::piped());
    if let Some(c) = env_columns {
        command.env("COLUMNS", c);
    }
    let child = command.spawn().unwrap();
    // The command holds the terminal's other end until dropped: then the child is its last
    // holder, and reading ends (EIO) once the child has exited.
    drop(command);
    let mut shown = Vec::new();
    let _ = std::fs::File::from(leader).read_to_end(&mut shown);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&shown).replace("\r\n", "\n")
}

#[test]
fn the_width_is_the_terminal_s_else_100() {
    let dir = tempfile::tempdir().unwrap();
    let log = write(
        dir.path(),
        "clue.jsonl",
        clue_log("stats::median", UP, DOWN).as_bytes(),
    );
    let args = ["report", log.to_str().unwrap()];
    // Each width is used to the full: the 300-element vector fills its lines to a few columns
    // of it.
    let fills = |report: &str, width: usize| {
        assert_eq!(too_wide(report, width), Vec::<&str>::new(), "{report}");
        assert!(widest(report) > width - 8, "{width}: {report}");
    };
    let piped = invite(&args, None);
    assert!(piped.status.success(), "{}", text(&piped.stderr));
    fills(&text(&piped.stdout), 100);
    // On a terminal: the window's width; `COLUMNS` before it when it is a number.
    fills(&on_a_terminal(&args, 57, None), 57);
    fills(&on_a_terminal(&args, 57, Some("70")), 70);
    fills(&on_a_terminal(&args, 57, Some("wide")), 57);
    // A terminal narrower than the narrowest report gets the narrowest report.
    fills(&on_a_terminal(&args, 20, None), 40);
    // --width wins.
    let mut wide = args.to_vec();
    wide.extend(["--width", "120"]);
    fills(&on_a_terminal(&wide, 57, Some("70")), 120);
}

#[test]
fn instances_in_several_files_are_merged() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "one.jsonl", instance_log(1).as_bytes());
    write(dir.path(), "two.jsonl", instance_log(2).as_bytes());
    write(dir.path(), "notes.txt", b"not a log");
    let r = json_report(&[dir.path().to_str().unwrap()]);
    assert_eq!(r["input"]["files"], 2);
    assert_eq!(r["instances"].as_array().unwrap().len(), 2);
    let site = &r["sites"][0];
    assert_eq!(site["runs"], 6);
    assert_eq!(site["outcomes"]["pass"], 6);
    assert_eq!(site["calls"], 200);
    assert_eq!(site["sampled"], 20);
    assert_eq!(site["skipped"]["concurrency"], 8);
    // 200 calls over 20 s of instance time: still 10 calls a second per process.
    assert_eq!(site["calls_per_sec"], 10.0);
}

#[test]
fn bad_lines_are_skipped_counted_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = instance_log(1).into_bytes();
    bytes.extend_from_slice(b"{\"kind\":\"test\",\"v\":1,\"site\":\"app::f\",\"te\n"); // line 10
    bytes.extend_from_slice(b"\xff\xfe\x00garbage\n"); // line 11
    bytes.extend_from_slice(b"{\"kind\":\"heartbeat\",\"v\":2}\n"); // line 12
    bytes.extend_from_slice(b"[1, 2, 3]\n"); // line 13
    let mut future =
        serde_json::from_str::<Value>(&test(1, "app::f", A, 4, Outcome::Pass, 5)).unwrap();
    future["added_in_v2"] = serde_json::json!({"x": 1});
    bytes.extend_from_slice(format!("{future}\n").as_bytes()); // line 14: accepted
    let log = write(dir.path(), "a.jsonl", &bytes);
    let empty = write(dir.path(), "empty.jsonl", b"");
    let out = invite(
        &[
            "report",
            "--format",
            "json",
            log.to_str().unwrap(),
            empty.to_str().unwrap(),
        ],
        None,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("skipped 4 line(s): 3 bad, 1 of unknown kinds"),
        "{err}"
    );
    assert!(err.contains("a.jsonl:10: truncated record"), "{err}");
    assert!(err.contains("a.jsonl:11: invalid UTF-8"), "{err}");
    assert!(
        err.contains("a.jsonl:12: unknown record kind `heartbeat`"),
        "{err}"
    );
    assert!(err.contains("a.jsonl:13: not a JSON record"), "{err}");
    assert!(err.contains("empty.jsonl is empty"), "{err}");
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["input"]["bad_lines"], 3);
    assert_eq!(r["input"]["unknown_kinds"], 1);
    assert_eq!(r["sites"][0]["tests"], 7);
}

#[test]
fn strict_stops_at_the_first_bad_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = instance_log(1).into_bytes();
    bytes.extend_from_slice(b"{oops\n");
    let log = write(dir.path(), "a.jsonl", &bytes);
    let out = invite(&["report", "--strict", log.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("a.jsonl:10: not a JSON record"),
        "{}",
        text(&out.stderr)
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn strict_stops_at_a_record_of_a_known_kind_that_is_malformed() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = instance_log(1).into_bytes();
    bytes.extend_from_slice(b"{\"kind\":\"test\",\"v\":1}\n");
    let log = write(dir.path(), "a.jsonl", &bytes);
    let out = invite(&["report", "--strict", log.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("a.jsonl:10: test record without `site`")
            && text(&out.stderr).contains("(--strict stops at the first bad line)"),
        "{}",
        text(&out.stderr)
    );
    assert!(out.stdout.is_empty());
    // Without --strict the line is skipped and counted.
    let out = invite(&["report", log.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn no_valid_record_or_a_missing_path_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let junk = write(dir.path(), "junk.jsonl", b"\x00\x01\x02\nnot json\n");
    let out = invite(&["report", junk.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("no valid invite record in"),
        "{}",
        text(&out.stderr)
    );
    // Junk, not shipped lines of the program: no word of shipping.
    assert!(
        !text(&out.stderr).contains("shipped log line"),
        "{}",
        text(&out.stderr)
    );
    let out = invite(&["report", "/no/such/dir/log.jsonl"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("/no/such/dir/log.jsonl: no such file or directory"));
}

#[test]
fn fail_on_gates_ci_after_writing_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let log = write(dir.path(), "a.jsonl", instance_log(7).as_bytes());
    let log = log.to_str().unwrap();
    // The log holds one fail, one error and one timeout, all at app::f.
    let out = invite(&["report", log, "--fail-on", "fail,error"], None);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("app::f"),
        "the report is still written"
    );
    assert!(
        text(&out.stderr).contains("1 fail, 1 error at 1 site(s) (--fail-on fail,error)"),
        "{}",
        text(&out.stderr)
    );
    let out = invite(&["report", log, "--fail-on", "blocked,inconclusive"], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = invite(&["report", log, "--fail-on", "timeout"], None);
    assert_eq!(out.status.code(), Some(3));
    assert!(text(&out.stderr).contains("1 timeout at 1 site(s)"));
    let out = invite(&["report", log], None);
    assert_eq!(out.status.code(), Some(0));
    let out = invite(&["report", log, "--fail-on", "failed"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("`failed` is not an outcome; use pass, fail, error"),
        "{}",
        text(&out.stderr)
    );
}

fn invite_in(dir: &Path, config: Option<&Path>, args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_invite"));
    cmd.args(args).current_dir(dir).env("NO_COLOR", "1");
    match config {
        Some(c) => cmd.env("INVITE_CONFIG", c),
        None => cmd.env_remove("INVITE_CONFIG"),
    };
    cmd.output().unwrap()
}

#[test]
fn without_paths_the_report_reads_the_log_the_configuration_names() {
    let dir = tempfile::tempdir().unwrap();
    // No configuration: the default log file.
    let out = invite_in(dir.path(), None, &["report"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("invite-log.jsonl: no such file or directory"),
        "{}",
        text(&out.stderr)
    );
    write(dir.path(), "invite-log.jsonl", instance_log(3).as_bytes());
    let out = invite_in(dir.path(), None, &["report", "--format", "json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["sites"][0]["tests"], 6);
    // ./invite.toml names another log.
    write(dir.path(), "invite.toml", b"log = \"app.jsonl\"\n");
    write(
        dir.path(),
        "app.jsonl",
        (instance_log(4) + &instance_log(5)).as_bytes(),
    );
    let out = invite_in(dir.path(), None, &["report", "--format", "json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["sites"][0]["tests"], 12);
    // $INVITE_CONFIG wins over ./invite.toml.
    let other = write(dir.path(), "other.toml", b"log = \"invite-log.jsonl\"\n");
    let out = invite_in(dir.path(), Some(&other), &["report", "--format", "json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["sites"][0]["tests"], 6);
    // A configuration that logs to stderr names no file; a broken one is reported.
    let stderr_log = write(dir.path(), "stderr.toml", b"log = \"-\"\n");
    let out = invite_in(dir.path(), Some(&stderr_log), &["report"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("writes to stderr; name the log file"));
    let broken = write(dir.path(), "broken.toml", b"lgo = 1\n");
    let out = invite_in(dir.path(), Some(&broken), &["report"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("lgo"), "{}", text(&out.stderr));
}

#[test]
fn standard_input_is_read_with_a_dash() {
    let out = invite(
        &["report", "--format", "json", "-"],
        Some(instance_log(7).as_bytes()),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["instances"][0]["pid"], 7);
}

#[test]
fn tuning_prints_ready_to_paste_lines() {
    let dir = tempfile::tempdir().unwrap();
    let log = write(dir.path(), "a.jsonl", instance_log(1).as_bytes());
    // 10 calls/s, 100 µs a run, 2 tests a run. 1% overhead: 0.01 / (10 × 1e-4) = 10, capped
    // at 1. 60 tests a minute: 60 / (60 × 10 × 2) = 0.05.
    let out = invite(
        &[
            "report",
            log.to_str().unwrap(),
            "--target-tests-per-min",
            "60",
        ],
        None,
    );
    assert!(out.status.success());
    let report = text(&out.stdout);
    assert!(
        report.contains(
            "[functions.\"app::f\"]\nrho = 0.05  # ~60 tests/min, 0.005% overhead (now 0.5)"
        ),
        "{report}"
    );
    let r = json_report(&[log.to_str().unwrap(), "--target-overhead", "0.01"]);
    assert_eq!(r["tuning"]["sites"][0]["rho"], 1.0);
    // Above 1, zero and below are not a share of wall time; exactly 1 is.
    for bad in ["5", "0", "-0.5", "x"] {
        let arg = format!("--target-overhead={bad}");
        let out = invite(&["report", log.to_str().unwrap(), &arg], None);
        assert_eq!(out.status.code(), Some(2), "--target-overhead {bad}");
        let err = text(&out.stderr);
        assert!(
            err.contains("at most 1") || err.contains("not a number"),
            "{err}"
        );
    }
    for bad in ["0", "-1", "inf"] {
        let arg = format!("--target-tests-per-min={bad}");
        let out = invite(&["report", log.to_str().unwrap(), &arg], None);
        assert_eq!(out.status.code(), Some(2), "{arg}");
        assert!(
            text(&out.stderr).contains("above 0"),
            "{}",
            text(&out.stderr)
        );
    }
    let out = invite(
        &["report", log.to_str().unwrap(), "--target-overhead", "1"],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

fn keys(v: &Value) -> Vec<String> {
    v.as_object().unwrap().keys().cloned().collect()
}

#[test]
fn json_schema_is_stable() {
    let dir = tempfile::tempdir().unwrap();
    let log = write(dir.path(), "a.jsonl", instance_log(1).as_bytes());
    let r = json_report(&[log.to_str().unwrap(), "--target-overhead", "0.01"]);
    assert_eq!(r["schema"], "invite-report/1");
    assert_eq!(
        keys(&r),
        [
            "fleet_failures",
            "input",
            "instances",
            "schema",
            "sites",
            "timeline",
            "tuning",
            "versions"
        ]
    );
    assert_eq!(
        keys(&r["input"]),
        [
            "bad_lines",
            "damaged_files",
            "empty_files",
            "files",
            "other_lines",
            "records",
            "unknown_kinds"
        ]
    );
    assert_eq!(
        keys(&r["instances"][0]),
        [
            "elapsed_s",
            "exe",
            "first",
            "host",
            "instance",
            "last",
            "outcomes",
            "overhead_share",
            "pid",
            "service",
            "shard",
            "stopped",
            "tests",
            "version"
        ]
    );
    assert_eq!(
        keys(&r["fleet_failures"][0]),
        [
            "failures",
            "fingerprint",
            "first",
            "instances",
            "last",
            "outcome",
            "site",
            "test",
            "versions"
        ]
    );
    assert_eq!(
        keys(&r["versions"][0]),
        ["instances", "outcomes", "service", "tests", "version"]
    );
    let site = &r["sites"][0];
    assert_eq!(
        keys(site),
        [
            "calls",
            "calls_per_sec",
            "duration_us",
            "file",
            "line",
            "outcomes",
            "overhead_share",
            "parent_us_per_run",
            "per_test",
            "rho",
            "runs",
            "sampled",
            "site",
            "skipped",
            "tests",
            "tests_per_sec",
            "wait_share"
        ]
    );
    assert_eq!(
        keys(&site["outcomes"]),
        [
            "blocked",
            "error",
            "fail",
            "inconclusive",
            "pass",
            "skipped",
            "timeout"
        ]
    );
    assert_eq!(
        keys(&site["skipped"]),
        [
            "concurrency",
            "dedup",
            "disabled",
            "fork_failed",
            "overhead"
        ]
    );
    assert_eq!(keys(&site["duration_us"]), ["mean", "median", "p95"]);
    assert_eq!(
        keys(&site["per_test"][0]),
        [
            "duration_us",
            "failures",
            "failures_total",
            "outcomes",
            "runs",
            "test"
        ]
    );
    assert_eq!(keys(&r["timeline"][0]), ["minute", "outcomes"]);
    assert_eq!(
        keys(&r["tuning"]),
        [
            "instances",
            "sites",
            "target_overhead",
            "target_tests_per_min"
        ]
    );
    assert_eq!(
        keys(&r["tuning"]["sites"][0]),
        [
            "current_rho",
            "note",
            "projected_fleet_tests_per_min",
            "projected_overhead",
            "projected_tests_per_min",
            "rho",
            "site"
        ]
    );
}

const HOSTILE: &str = "<script>document.title='pwned'</script><img src=x onerror=alert(1)>";

fn hostile_log() -> String {
    let site = format!("app::{HOSTILE}");
    [
        start(1, &[(&site, &[HOSTILE])]),
        test(1, &site, HOSTILE, 1, Outcome::Fail, 10).replace("detail of run 1", HOSTILE),
        stats(1, &site, 100, 10.0),
    ]
    .join("\n")
}

/// The HTML report of the hostile log, written in `dir`.
fn hostile_html(dir: &Path) -> String {
    let log = write(dir, "a.jsonl", hostile_log().as_bytes());
    let args = [
        "report",
        "--format",
        "html",
        "--target-overhead",
        "0.01",
        log.to_str().unwrap(),
    ];
    let out = invite(&args, None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
}

#[test]
fn html_escapes_every_logged_string() {
    let dir = tempfile::tempdir().unwrap();
    let html = hostile_html(dir.path());
    assert!(!html.contains("<script"), "raw script tag in the report");
    assert!(!html.contains("<img"), "raw img tag in the report");
    assert!(html.contains("&lt;script&gt;document.title=&#39;pwned&#39;&lt;/script&gt;"));
    for id in ["outcomes", "timeline", "overhead"] {
        assert!(
            html.contains(&format!("<svg id=\"{id}\"")),
            "chart {id} missing"
        );
    }
}

#[test]
fn the_text_report_shows_failures_up_to_the_limit_and_counts_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let log = [
        start(1, &[("app::f", &[A])]),
        test(1, "app::f", A, 1, Outcome::Fail, 10),
        test(1, "app::f", A, 2, Outcome::Fail, 10),
        test(1, "app::f", A, 3, Outcome::Fail, 10),
    ]
    .join("\n");
    let log = write(dir.path(), "a.jsonl", log.as_bytes());
    let shown = |n: &str| {
        let out = invite(&["report", "--failures", n, log.to_str().unwrap()], None);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let report = text(&out.stdout);
        let details = report.matches("detail of run ").count();
        (details, report)
    };
    let (one, report) = shown("1");
    assert_eq!(one, 1, "{report}");
    assert!(report.contains("and 2 more"), "{report}");
    let (all, report) = shown("3");
    assert_eq!(all, 3, "{report}");
    assert!(!report.contains("more"), "{report}");
}

/// The page holds what the text report holds: gaps on a real time axis, the skipped calls, the
/// tuning projections and the count of failures left out.
#[test]
fn html_shows_the_time_axis_the_skips_the_projections_and_what_was_cut() {
    let dir = tempfile::tempdir().unwrap();
    // Failures at 10:01, 10:02 and 10:05 (nothing at 10:03 and 10:04).
    let log = [
        start(1, &[("app::f", &[A])]),
        test(1, "app::f", A, 1, Outcome::Fail, 10),
        test(1, "app::f", A, 2, Outcome::Fail, 10),
        test(1, "app::f", A, 5, Outcome::Fail, 10),
        stats(1, "app::f", 100, 10.0),
    ]
    .join("\n");
    let log = write(dir.path(), "a.jsonl", log.as_bytes());
    let args = [
        "report",
        "--format",
        "html",
        "--failures",
        "1",
        "--target-overhead",
        "0.01",
        log.to_str().unwrap(),
    ];
    let out = invite(&args, None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let html = text(&out.stdout);
    let timeline = &html[html.find("<svg id=\"timeline\"").unwrap()..];
    let timeline = &timeline[..timeline.find("</svg>").unwrap()];
    assert_eq!(
        timeline.matches("<rect").count(),
        3,
        "one bar per minute with tests"
    );
    assert!(timeline.contains("tests per 1 min"), "{timeline}");
    // Five minutes, 10:01 to 10:05: the bar of 10:05 stands four slots right of 10:01's.
    let xs: Vec<f64> = timeline
        .match_indices("<rect x=\"")
        .map(|(i, m)| {
            let rest = &timeline[i + m.len()..];
            rest[..rest.find('"').unwrap()].parse().unwrap()
        })
        .collect();
    let slot = xs[1] - xs[0];
    assert!((xs[2] - xs[0] - 4.0 * slot).abs() < 0.5, "{xs:?}");
    // Five slots fill the plot, 40 to 750 px, and a tick stands on each bin edge.
    assert!((slot - 710.0 / 5.0).abs() < 0.5, "{xs:?}");
    let ticks: Vec<f64> = elements(&html, "timeline", "line")
        .iter()
        .map(|t| attr(t, "x1"))
        .collect();
    let edges: Vec<f64> = (0..=5).map(|i| 40.0 + i as f64 * 142.0).collect();
    assert_eq!(ticks.len(), edges.len(), "{ticks:?}");
    assert!(
        ticks.iter().zip(&edges).all(|(t, e)| (t - e).abs() < 0.5),
        "{ticks:?}"
    );
    assert!(timeline.contains("2026-11-22 10:01"), "{timeline}");
    // Each bar is titled with its own bin's time.
    assert!(
        timeline.contains("<title>2026-11-22 10:05 UTC, 1 min: 1 fail</title>"),
        "{timeline}"
    );
    // The skipped calls of the site, each reason in its column.
    let skips = &html[html.find("<table id=\"skips\"").unwrap()..];
    let skips = &skips[..skips.find("</table>").unwrap()];
    let row = &skips[skips.find("<th>app::f</th>").unwrap()..];
    let cells: Vec<&str> = row
        .split("<td class=\"n\">")
        .skip(1)
        .map(|c| &c[..c.find('<').unwrap()])
        .collect();
    assert_eq!(
        cells,
        ["100", "10", "3", "4", "3", "0", "0", "2", "0", "0", "0"],
        "{row}"
    );
    // The projections of the tuning.
    let projections = &html[html.find("<table id=\"projections\"").unwrap()..];
    let projections = &projections[..projections.find("</table>").unwrap()];
    assert!(projections.contains("<th>app::f</th>"), "{projections}");
    assert!(projections.contains("projected tests/min"), "{projections}");
    assert!(html.contains("Tuning for overhead 1%"), "{html}");
    // One failure shown, two counted.
    assert_eq!(html.matches("<div class=\"failure\"><p>fail at").count(), 1);
    assert!(html.contains("… and 2 more"), "{html}");
    assert!(
        !html.contains("could not be read"),
        "no test at an unreadable time"
    );
    chart_geometry_holds(&html);
    outcomes_chart_holds(&html);
    // A test at a time that cannot be read is counted under the chart, not drawn.
    let odd =
        test(1, "app::f", A, 1, Outcome::Pass, 10).replace("2026-11-22T10:01", "20x6-11-22T10:01");
    let log = [
        start(1, &[("app::f", &[A])]),
        test(1, "app::f", A, 2, Outcome::Pass, 10),
        odd,
    ]
    .join("\n");
    let log = write(dir.path(), "b.jsonl", log.as_bytes());
    let out = invite(&["report", "--format", "html", log.to_str().unwrap()], None);
    let html = text(&out.stdout);
    assert!(
        html.contains("<p>1 test(s) at times that could not be read"),
        "{html}"
    );
}

/// The number in attribute `name` of an SVG element's text.
fn attr(element: &str, name: &str) -> f64 {
    let key = format!(" {name}=\"");
    let rest = &element[element
        .find(&key)
        .unwrap_or_else(|| panic!("{name} in {element}"))
        + key.len()..];
    rest[..rest.find('"').unwrap()].parse().unwrap()
}

/// The elements `<tag ...` inside the chart `id`.
fn elements<'a>(html: &'a str, id: &str, tag: &str) -> Vec<&'a str> {
    let chart = &html[html.find(&format!("<svg id=\"{id}\"")).unwrap()..];
    let chart = &chart[..chart.find("</svg>").unwrap()];
    chart
        .match_indices(&format!("<{tag} "))
        .map(|(i, _)| &chart[i..i + chart[i..].find('>').unwrap()])
        .collect()
}

/// The outcomes chart: one row per site, each row's segments side by side from the label
/// column, the busiest site's row spanning the whole bar width, and each segment filled with
/// its outcome's colour, which the legend shows by the outcome's name and no other outcome
/// shares.
fn outcomes_chart_holds(html: &str) {
    let (label_w, bar_w, row) = (260.0, 480.0, 22.0);
    let svg = elements(html, "outcomes", "svg")[0];
    let chart = &html[html.find("<svg id=\"outcomes\"").unwrap()..];
    let chart = &chart[..chart.find("</svg>").unwrap()];
    let mut rows: Vec<(f64, f64)> = Vec::new(); // (y, where the next segment starts)
    let mut fills: std::collections::BTreeMap<String, String> = Default::default();
    for piece in chart.split("<rect ").skip(1) {
        let rect = &format!(" {}", &piece[..piece.find("</rect>").unwrap()]);
        let (x, y, w) = (attr(rect, "x"), attr(rect, "y"), attr(rect, "width"));
        match rows.last_mut() {
            Some((ry, next)) if *ry == y => {
                assert!((x - *next).abs() < 0.2, "segments side by side: {rect}");
                *next = x + w;
            }
            _ => {
                assert!(
                    (x - label_w).abs() < 0.01,
                    "a row starts after the labels: {rect}"
                );
                assert!((y - (5.0 + rows.len() as f64 * row)).abs() < 0.01, "{rect}");
                rows.push((y, x + w));
            }
        }
        let fill = rect[rect.find("fill=\"").unwrap() + 6..]
            .split('"')
            .next()
            .unwrap();
        let outcome = rect
            .rsplit(' ')
            .next()
            .unwrap()
            .trim_end_matches("</title>");
        assert!(fill.len() == 7 && fill.starts_with('#'), "{rect}");
        let known = fills
            .entry(outcome.to_string())
            .or_insert_with(|| fill.to_string());
        assert_eq!(known, fill, "one colour per outcome");
        let legend = format!("style=\"background:{fill}\"></i>{outcome}</span>");
        assert!(
            html.contains(&legend),
            "the legend names {outcome} in {fill}"
        );
    }
    // The legend shows every outcome, each in a colour of its own.
    let legend = &html[html.find("<p class=\"legend\">").expect("a legend")..];
    let legend: Vec<&str> = legend[..legend.find("</p>").unwrap()]
        .split("style=\"background:")
        .skip(1)
        .map(|p| &p[..7])
        .collect();
    assert_eq!(legend.len(), 7, "{legend:?}");
    let distinct: std::collections::BTreeSet<&&str> = legend.iter().collect();
    assert_eq!(distinct.len(), 7, "{legend:?}");
    assert!(legend.iter().all(|c| c.starts_with('#')), "{legend:?}");
    assert!(
        (attr(svg, "height") - (row * rows.len() as f64 + 10.0)).abs() < 0.01,
        "{svg}"
    );
    let widest = rows.iter().map(|r| r.1 - label_w).fold(0.0, f64::max);
    assert!(
        (widest - bar_w).abs() < 0.3,
        "the busiest site spans the bar: {widest}"
    );
}

/// Bars stay inside the timeline's plot and the tallest fills it; ticks stand on its baseline;
/// every ρ dot of the overhead chart lies on its site's line, inside the plot.
fn chart_geometry_holds(html: &str) {
    let (left, right, top, base) = (40.0, 750.0, 10.0, 170.0);
    let bars = elements(html, "timeline", "rect");
    for bar in &bars {
        let (x, y, w, h) = (
            attr(bar, "x"),
            attr(bar, "y"),
            attr(bar, "width"),
            attr(bar, "height"),
        );
        assert!(x >= left && x + w <= right + 0.1, "{bar}");
        assert!(y >= top - 0.1 && (y + h - base).abs() < 0.2, "{bar}");
    }
    let tallest = bars.iter().map(|b| attr(b, "height")).fold(0.0, f64::max);
    assert!(
        (tallest - (base - top)).abs() < 0.2,
        "the busiest bin fills the plot: {tallest}"
    );
    let ticks = elements(html, "timeline", "line");
    assert!(ticks.len() >= 2);
    for tick in &ticks {
        assert!((attr(tick, "y1") - base).abs() < 0.1, "{tick}");
        assert!((left..=right + 0.1).contains(&attr(tick, "x1")), "{tick}");
    }
    let (left, right, top, base) = (60.0, 750.0, 10.0, 230.0);
    let lines: Vec<&str> = elements(html, "overhead", "line")
        .into_iter()
        .filter(|l| !l.contains("stroke-dasharray"))
        .collect();
    let dots = elements(html, "overhead", "circle");
    assert!(!lines.is_empty() && !dots.is_empty(), "{html}");
    let inside = |x: f64, y: f64| (left..=right).contains(&x) && (top..=base).contains(&y);
    for line in &lines {
        let (x1, y1, x2, y2) = (
            attr(line, "x1"),
            attr(line, "y1"),
            attr(line, "x2"),
            attr(line, "y2"),
        );
        assert!(inside(x1, y1) && inside(x2, y2), "{line}");
        assert!(
            (x1 - left).abs() < 0.1 && (x2 - right).abs() < 0.1,
            "lines span the axis: {line}"
        );
        for dot in &dots {
            let (cx, cy) = (attr(dot, "cx"), attr(dot, "cy"));
            assert!(inside(cx, cy), "{dot}");
            let on_line = y1 + (cx - x1) / (x2 - x1) * (y2 - y1);
            assert!((cy - on_line).abs() < 0.5, "{dot} is off {line}");
        }
    }
    let target = elements(html, "overhead", "line")
        .into_iter()
        .find(|l| l.contains("stroke-dasharray"))
        .expect("the target line");
    assert!((top..=base).contains(&attr(target, "y1")), "{target}");
}

/// Chromium's command, or `None` (said on stderr) where it is not installed; CI must have it.
fn chromium() -> Option<&'static str> {
    let browser = ["chromium", "chromium-browser"].into_iter().find(|b| {
        Command::new(b)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if browser.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must install Debian's chromium (.ci/run does)"
        );
        eprintln!(
            "chromium is not installed: skipping the browser check (apt-get install chromium)"
        );
    }
    browser
}

/// The live DOM of `page` once headless Chromium has loaded it in a window `width` px wide and
/// 800 high, with a profile of its own in `dir`.
fn dump_dom(browser: &str, dir: &Path, page: &Path, width: u32) -> String {
    let profile = dir.join("profile");
    let dom = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
        ])
        .arg(format!("--window-size={width},800"))
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    text(&dom.stdout)
}

/// Renders the hostile report in headless Chromium and reads back the live DOM: the charts are
/// there, the page title is untouched and the hostile strings are text, not elements.
#[test]
fn html_renders_in_a_real_browser() {
    let Some(browser) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let page = write(
        dir.path(),
        "report.html",
        hostile_html(dir.path()).as_bytes(),
    );
    let dom = dump_dom(browser, dir.path(), &page, 1280);
    assert!(
        dom.contains("<title>Invite report</title>"),
        "title changed or page not rendered:\n{dom}"
    );
    assert_eq!(dom.matches("<svg").count(), 3, "{dom}");
    assert!(dom.contains("<rect"), "no bars were drawn");
    assert!(
        !dom.contains("<script") && !dom.contains("<img"),
        "hostile markup became elements"
    );
    assert!(
        dom.contains("&lt;script&gt;"),
        "hostile text not shown as text"
    );
}

/// Measures the laid-out page from within: how wide it scrolls with every input closed and then
/// opened, where the failures, the first chart and the first table stand, and which elements
/// reach past the window. The report has no script of its own: the test adds this one to a copy.
const PROBE: &str = r##"<script>
(function () {
  const top = (e) => e.getBoundingClientRect().top;
  const past = () => Array.from(document.querySelectorAll("body *"))
    .filter((e) => e.getBoundingClientRect().right > innerWidth + 0.5)
    .map((e) => e.tagName + (e.id ? "#" + e.id : "")).slice(0, 8).join(" ");
  const failures = document.getElementById("failures")
    || Array.from(document.querySelectorAll("h2")).find((h) => h.textContent === "Failures");
  const table = document.querySelector("table");
  const details = document.querySelectorAll("details");
  const m = { innerWidth, innerHeight, details: details.length };
  m.closedWidth = document.documentElement.scrollWidth;
  m.closedPast = past();
  details.forEach((d) => { d.open = true; });
  m.openWidth = document.documentElement.scrollWidth;
  m.openPast = past();
  m.failuresTop = top(failures);
  m.chartTop = top(document.querySelector("svg"));
  m.tableTop = top(table);
  m.failuresFirst = Boolean(failures.compareDocumentPosition(table) & Node.DOCUMENT_POSITION_FOLLOWING);
  const out = document.createElement("pre");
  out.id = "probe";
  out.textContent = JSON.stringify(m);
  document.body.appendChild(out);
})();
</script>"##;

/// Failures with a 300-element vector, a 300-character token, a long detail and relations
/// longer than a line, in a 1,280 px window: the page does not scroll sideways, closed or with
/// every input opened; the failures come first, in the first screen, above the charts and
/// tables; each long input opens onto its whole text.
#[test]
fn the_html_report_fits_1280_px_and_shows_the_failures_first() {
    let Some(browser) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let site =
        "a_rather_long_crate_name::deeply::nested::module::path::to::a_function_with_a_long_name";
    // A relation with no space in it over 200 characters, and two that start alike.
    let up = format!(
        "median(&invite::mr::add(&invite::mr::permute(&invite::mr::scale(xs,{})),1.0))==result+1.0",
        "2.0*".repeat(40)
    );
    let down = format!("{up}-2.0");
    let log = write(
        dir.path(),
        "clue.jsonl",
        clue_log(site, &up, &down).as_bytes(),
    );
    let args = [
        "report",
        "--format",
        "html",
        "--target-overhead",
        "0.01",
        log.to_str().unwrap(),
    ];
    let out = invite(&args, None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let html = text(&out.stdout);
    assert!(!html.contains("<script"), "the report itself has no script");
    let page = write(
        dir.path(),
        "report.html",
        html.replace("</body>", &format!("{PROBE}</body>"))
            .as_bytes(),
    );
    let dom = dump_dom(browser, dir.path(), &page, 1280);
    let probe = &dom[dom
        .find("<pre id=\"probe\">")
        .unwrap_or_else(|| panic!("the probe did not run:\n{dom}"))
        + "<pre id=\"probe\">".len()..];
    let probe = probe[..probe.find("</pre>").unwrap()]
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
    let m: Value = serde_json::from_str(&probe).unwrap();
    assert_eq!(m["innerWidth"], 1280, "the window is not 1280 px wide: {m}");
    for state in ["closed", "open"] {
        assert!(
            m[format!("{state}Width")].as_u64().unwrap() <= 1280,
            "{state}: the page scrolls sideways; past the window: {}\n{m}",
            m[format!("{state}Past")]
        );
    }
    assert_eq!(m["failuresFirst"], true, "{m}");
    let at = |k: &str| m[k].as_f64().unwrap();
    assert!(
        at("failuresTop") < at("innerHeight"),
        "failures below the fold: {m}"
    );
    assert!(at("failuresTop") < at("chartTop"), "{m}");
    assert!(at("failuresTop") < at("tableTop"), "{m}");
    // The long vector and the long token each a click from their whole text; the short clue
    // shown as it is.
    assert_eq!(m["details"], 2, "{m}");
    let summary = format!(
        "<summary><code>xs (len 300) = {}…</code></summary>",
        &long_vector()[..100]
    );
    assert!(dom.contains(&summary), "{dom}");
    assert!(
        dom.contains(&format!("<pre>{}</pre>", long_vector())),
        "{dom}"
    );
    assert!(
        dom.contains(&format!("<pre>{}</pre>", long_token())),
        "{dom}"
    );
    assert!(
        dom.contains("<code>xs (len 2) = [1.0, 3.0]</code>"),
        "{dom}"
    );
    // Both relations in full.
    for relation in [&up, &down] {
        assert!(
            dom.contains(&format!("<code>{}</code>", relation.replace('&', "&amp;"))),
            "{dom}"
        );
    }
}

#[test]
fn check_config_uses_the_runtime_messages_and_compares_with_a_log() {
    let dir = tempfile::tempdir().unwrap();
    let good = write(dir.path(), "good.toml", b"default_rho = 0.1\n[functions.\"app::f\"]\nrho = 0.2\n[functions.\"app::g\"]\nrho = 0.2\n[functions.\"other::f\"]\nrho = 0.2\n");
    let out = invite(&["check-config", good.to_str().unwrap()], None);
    assert!(out.status.success());
    assert!(text(&out.stdout).contains("good.toml: ok (3 site entries)"));

    let bad = write(dir.path(), "bad.toml", b"default_rho = 1.5\n");
    let out = invite(&["check-config", bad.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("bad.toml:1:15: key `default_rho`: expected a number from 0.0 to 1.0"),
        "{err}"
    );

    let log = write(dir.path(), "a.jsonl", instance_log(1).as_bytes());
    let out = invite(
        &[
            "check-config",
            good.to_str().unwrap(),
            "--log",
            log.to_str().unwrap(),
        ],
        None,
    );
    assert!(out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("[functions.\"app::g\"] matches no site"),
        "{err}"
    );
    assert!(
        err.contains("[functions.\"other::f\"] matches no site")
            && err.contains("did you mean \"app::f\"?"),
        "{err}"
    );
    assert!(!err.contains("\"app::f\"] matches"), "{err}");
}

/// A `site` record: a site the runtime named at its first call, with its parameters.
fn site_named(pid: u32, name: &str) -> String {
    serde_json::json!({
        "kind": "site", "v": 1, "time": "2026-11-22T10:00:01.000000Z", "host": "h", "pid": pid,
        "info": {"name": name, "file": "w.rs", "line": 3, "rho": 1.0, "tests": [A],
                 "params": [["xs", "&[f64]"]]},
    })
    .to_string()
}

#[test]
fn a_site_named_after_start_up_counts_for_check_config_and_emitted_tests() {
    let dir = tempfile::tempdir().unwrap();
    let name = "app::Floats::sum";
    let lines = [
        start(9, &[]),
        site_named(9, name),
        test(9, name, A, 1, Outcome::Fail, 30),
    ];
    let log = write(
        dir.path(),
        "late.jsonl",
        (lines.join("\n") + "\n").as_bytes(),
    );
    let config = write(
        dir.path(),
        "late.toml",
        format!("[functions.\"{name}\"]\nrho = 0.5\n").as_bytes(),
    );
    let out = invite(
        &[
            "check-config",
            config.to_str().unwrap(),
            "--log",
            log.to_str().unwrap(),
        ],
        None,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        !text(&out.stderr).contains("matches no site"),
        "{}",
        text(&out.stderr)
    );
    // The failure's parameters come from the site record: a test is emitted for it.
    let out = invite(
        &["report", log.to_str().unwrap(), "--emit-tests", "-"],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout).matches("#[test]").count(),
        1,
        "{}",
        text(&out.stdout)
    );
}

/// A log whose site records its parameters, as the runtime writes them, with one failure.
fn emittable_log(dir: &Path) -> PathBuf {
    let mut start: Value = serde_json::from_str(&start(9, &[("app::f", &[A])])).unwrap();
    start["sites"][0]["params"] = serde_json::json!([["xs", "&[f64]"]]);
    let lines = [
        start.to_string(),
        test(9, "app::f", A, 1, Outcome::Pass, 10),
        test(9, "app::f", A, 2, Outcome::Fail, 30),
    ];
    write(dir, "field.jsonl", (lines.join("\n") + "\n").as_bytes())
}

#[test]
fn emit_tests_writes_the_regression_tests_beside_the_report_or_alone_to_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let log = emittable_log(dir.path());
    let log = log.to_str().unwrap();
    let file = dir.path().join("invite_regressions.rs");

    // To a file: the tests go there, and the report is printed as usual.
    let out = invite(
        &["report", log, "--emit-tests", file.to_str().unwrap()],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let source = std::fs::read_to_string(&file).unwrap();
    assert_eq!(source.matches("#[test]").count(), 1, "{source}");
    assert!(source.contains("invite::regression("), "{source}");
    assert!(
        text(&out.stdout).contains("app::f"),
        "{}",
        text(&out.stdout)
    );
    assert!(
        text(&out.stderr).contains("wrote 1 regression test(s)"),
        "{}",
        text(&out.stderr)
    );
    // Outside a package, the inputs cannot be shrunk, and the command says so.
    assert!(
        text(&out.stderr).contains("inputs not shrunk: no Cargo.toml above"),
        "{}",
        text(&out.stderr)
    );
    let out = invite(
        &[
            "report",
            log,
            "--emit-tests",
            file.to_str().unwrap(),
            "--no-shrink",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        !text(&out.stderr).contains("not shrunk"),
        "{}",
        text(&out.stderr)
    );
    let out = invite(&["report", log, "--no-shrink"], None);
    assert_eq!(out.status.code(), Some(2), "--no-shrink alone is refused");
    assert!(
        text(&out.stderr).contains("--emit-tests"),
        "{}",
        text(&out.stderr)
    );

    // To stdout: the tests alone, no report around them.
    let out = invite(&["report", log, "--emit-tests", "-"], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), source);

    // A file that cannot be written is an error, and no report follows it.
    let out = invite(
        &[
            "report",
            log,
            "--emit-tests",
            "/nonexistent-dir/regressions.rs",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("cannot write"),
        "{}",
        text(&out.stderr)
    );
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
}

#[test]
fn emit_tests_writes_one_test_per_defect_on_its_smallest_input() {
    let dir = tempfile::tempdir().unwrap();
    let log = emittable_log(dir.path());
    // The logged failure again, on a later run of the same inputs, and in another log; and a
    // failure on other inputs.
    let mut again: Value =
        serde_json::from_str(&test(9, "app::f", A, 2, Outcome::Fail, 30)).unwrap();
    again["run"] = 7.into();
    // Another defect: the same relation ending in an error, on a longer input.
    let mut longer: Value =
        serde_json::from_str(&test(9, "app::f", A, 4, Outcome::Error, 30)).unwrap();
    longer["inputs"]["xs"] = Value::from("[1.0, 2.0, 3.0]");
    let mut more = std::fs::read_to_string(&log).unwrap();
    more.push_str(&format!(
        "{again}\n{}\n{longer}\n",
        test(9, "app::f", A, 3, Outcome::Fail, 30)
    ));
    std::fs::write(&log, more).unwrap();
    // The same failures logged by another process of the program.
    let copy = dir.path().join("again.jsonl");
    let other = std::fs::read_to_string(&log)
        .unwrap()
        .replace("\"pid\":9,", "\"pid\":10,");
    assert!(other.contains("\"pid\":10,"));
    std::fs::write(&copy, other).unwrap();
    let out = invite(
        &[
            "report",
            log.to_str().unwrap(),
            copy.to_str().unwrap(),
            "--emit-tests",
            "-",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let source = text(&out.stdout);
    // Six failures of one relation (two distinct inputs) are one test, on the smallest input
    // (a tie: the first logged); the error is another.
    assert_eq!(source.matches("#[test]").count(), 2, "{source}");
    assert!(
        source.contains("ended `fail` in 6 runs (2 distinct inputs)"),
        "{source}"
    );
    assert!(
        source.contains("ended `error` in 2 runs (1 distinct input)"),
        "{source}"
    );
    assert!(
        source.contains("vec![2.0],") && !source.contains("vec![3.0],"),
        "{source}"
    );
    assert!(
        source.contains("fn f_permute_xs_result_error()"),
        "{source}"
    );
    assert!(
        text(&out.stderr).contains("wrote 2 regression test(s), one per defect, for 8 failure(s)"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn failures_whose_inputs_cannot_be_rebuilt_are_listed_on_stderr_not_emitted() {
    let dir = tempfile::tempdir().unwrap();
    let log = emittable_log(dir.path());
    // A failure of another kind whose input was longer than the log keeps: its defect has no
    // input to rebuild. (A truncated input beside a whole one of the same defect is passed
    // over for the whole one.)
    let mut cut: Value =
        serde_json::from_str(&test(9, "app::f", A, 3, Outcome::Timeout, 30)).unwrap();
    cut["inputs"]["xs"] = Value::from("[1.0, 2.0… (truncated)");
    let mut text_of_log = std::fs::read_to_string(&log).unwrap();
    text_of_log.push_str(&(cut.to_string() + "\n"));
    std::fs::write(&log, text_of_log).unwrap();
    let out = invite(
        &["report", log.to_str().unwrap(), "--emit-tests", "-"],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let source = text(&out.stdout);
    assert_eq!(source.matches("#[test]").count(), 1, "{source}");
    let err = text(&out.stderr);
    let listed: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("  not emitted: "))
        .collect();
    assert_eq!(listed.len(), 1, "{err}");
    assert!(listed[0].contains("app::f"), "{err}");
    assert!(listed[0].contains("truncated"), "{err}");
}

#[test]
fn the_gate_counts_only_the_sites_whose_tests_ended_in_a_gated_outcome() {
    let dir = tempfile::tempdir().unwrap();
    let quiet = test(7, "app::g", A, 1, Outcome::Pass, 10);
    let log = write(
        dir.path(),
        "a.jsonl",
        (instance_log(7) + &quiet + "\n").as_bytes(),
    );
    let out = invite(
        &["report", log.to_str().unwrap(), "--fail-on", "fail"],
        None,
    );
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("1 fail at 1 site(s)"),
        "{}",
        text(&out.stderr)
    );
}

/// Runs the command with its stdout on `stdout`.
fn invite_to(args: &[&str], stdout: Stdio) -> Output {
    Command::new(env!("CARGO_BIN_EXE_invite"))
        .args(args)
        .env("NO_COLOR", "1")
        .stdout(stdout)
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

#[test]
fn a_reader_that_went_away_is_not_an_error_but_a_full_disk_is() {
    let dir = tempfile::tempdir().unwrap();
    let log = write(dir.path(), "a.jsonl", instance_log(7).as_bytes());
    let log = log.to_str().unwrap();
    // A pipe whose reading end is closed before the command writes: `invite report | head`.
    let (read, write_end) = rustix::pipe::pipe().unwrap();
    drop(read);
    let out = invite_to(&["report", log], Stdio::from(write_end));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    // /dev/full: every write fails with ENOSPC.
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = invite_to(&["report", log], Stdio::from(full));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("cannot write the report"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn colour_is_on_only_when_asked_or_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let log = write(dir.path(), "a.jsonl", instance_log(1).as_bytes());
    let report = |choice: &str| {
        let arg = format!("--color={choice}");
        let out = invite(&["report", log.to_str().unwrap(), &arg], None);
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    assert!(report("always").contains("\x1b["));
    assert!(!report("never").contains("\x1b["));
    // Standard output is a pipe here, and NO_COLOR is set.
    assert!(!report("auto").contains("\x1b["));
}

#[test]
fn check_config_says_when_every_entry_names_a_site_of_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let log = write(dir.path(), "a.jsonl", instance_log(1).as_bytes());
    let log = log.to_str().unwrap();
    let good = write(
        dir.path(),
        "good.toml",
        b"[functions.\"app::f\"]\nrho = 0.1\n",
    );
    let out = invite(
        &["check-config", good.to_str().unwrap(), "--log", log],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("every [functions] entry names a site"),
        "{}",
        text(&out.stdout)
    );
    let typo = write(
        dir.path(),
        "typo.toml",
        b"[functions.\"app::g\"]\nrho = 0.1\n",
    );
    let out = invite(
        &["check-config", typo.to_str().unwrap(), "--log", log],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("matches no site"),
        "{}",
        text(&out.stderr)
    );
    assert!(
        !text(&out.stdout).contains("every [functions] entry"),
        "{}",
        text(&out.stdout)
    );
    let no_start = write(dir.path(), "b.jsonl", b"{}\n");
    let out = invite(
        &[
            "check-config",
            good.to_str().unwrap(),
            "--log",
            no_start.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("no start record"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn the_outcomes_chart_stacks_each_site_s_outcomes_in_their_colours() {
    let dir = tempfile::tempdir().unwrap();
    // One site with passes, a failure, an error and a timeout.
    let log = write(dir.path(), "a.jsonl", instance_log(1).as_bytes());
    let out = invite(&["report", "--format", "html", log.to_str().unwrap()], None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let html = text(&out.stdout);
    assert!(html.matches("<rect ").count() >= 4, "{html}");
    outcomes_chart_holds(&html);
    // The site's table row: runs, a count per outcome, then the four cost columns.
    let row = &html[html.find("<tr><th>app::f</th>").expect("the site's row")..];
    let row = &row[..row.find("</tr>").unwrap()];
    assert_eq!(row.matches("<td").count(), 1 + 7 + 4, "{row}");
    // It has failures, so the page does not say it has none.
    assert!(!html.contains("No failures."), "{html}");
}
