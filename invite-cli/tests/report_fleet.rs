//! `invite report` on a fleet's logs as pipelines ship them: inside Docker, logcli and
//! OpenTelemetry Collector lines, compressed, under directories and patterns; failures counted
//! once across instances; the test rate shared by the fleet and written for it to reload; and
//! the same report whatever the number of threads or the order of the files.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use invite::record::{
    Instance, Outcome, OutcomeCounts, Record, Seeds, SiteInfo, SiteStats, SkipCounts, Start, Stats,
    Stop, Test,
};
use serde_json::Value;

fn invite(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_invite"))
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn json_report(args: &[&str]) -> Value {
    let mut all = vec!["report", "--format", "json"];
    all.extend_from_slice(args);
    let out = invite(&all);
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

const SITE: &str = "app::f";
const A: &str = "f(&permute(xs)) == result";
const B: &str = "Self::check";

/// Member `k` of a fleet: `app-k`, pid 100 + k, running `version`.
struct Member {
    k: u32,
    version: &'static str,
}

impl Member {
    fn id(&self) -> String {
        format!("app-{}", self.k)
    }

    fn pid(&self) -> u32 {
        100 + self.k
    }

    fn start(&self) -> String {
        Record::Start(Start {
            v: 1,
            time: format!("2026-11-22T10:00:0{}.000000Z", self.k % 10),
            instance: Instance {
                host: format!("node-{}", self.k),
                pid: self.pid(),
                exe: "/bin/app".into(),
                id: self.id(),
                service: "checkout".into(),
                version: self.version.into(),
            },
            config_file: "invite.toml".into(),
            config: serde_json::json!({"default_rho": 0.5}),
            sites: vec![SiteInfo {
                name: SITE.into(),
                file: "src/lib.rs".into(),
                line: 10,
                rho: 0.5,
                tests: vec![A.into(), B.into()],
                params: None,
                path: None,
            }],
            shard: Some(format!("{}/3", self.k)),
        })
        .to_line()
    }

    fn test(&self, test: &str, run: u64, outcome: Outcome, minute: u64) -> String {
        let mut inputs = BTreeMap::new();
        inputs.insert("xs".to_string(), format!("[{run}.0, {}.5]", self.k));
        Record::Test(Test {
            v: 1,
            time: format!(
                "2026-11-22T{:02}:{:02}:{:02}.{:06}Z",
                10 + minute / 60,
                minute % 60,
                run % 60,
                self.k
            ),
            host: format!("node-{}", self.k),
            pid: self.pid(),
            instance: self.id(),
            service: "checkout".into(),
            version: self.version.into(),
            site: SITE.into(),
            test: test.into(),
            run,
            outcome,
            parent_us: 100,
            duration_us: 10 + run % 50,
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

    fn stats(&self, calls: u64, elapsed: f64) -> String {
        Record::Stats(Stats {
            v: 1,
            time: "2026-11-22T10:09:00.000000Z".into(),
            host: format!("node-{}", self.k),
            pid: self.pid(),
            instance: self.id(),
            service: "checkout".into(),
            version: self.version.into(),
            elapsed_s: elapsed,
            is_final: true,
            cow_faults: 0,
            cow_share: 0.0,
            children_share: 0.0,
            resident_mib: 0.0,
            log_errors: 0,
            log_lost: 0,
            sites: vec![SiteStats {
                site: SITE.into(),
                rho: 0.5,
                calls,
                sampled: 10,
                skipped: SkipCounts::default(),
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

    fn stop(&self) -> String {
        Record::Stop(Stop {
            v: 1,
            time: "2026-11-22T10:09:30.000000Z".into(),
            host: format!("node-{}", self.k),
            pid: self.pid(),
            instance: self.id(),
            service: "checkout".into(),
            version: self.version.into(),
            drained: 0,
            killed: 0,
        })
        .to_line()
    }

    /// Three runs of the two tests; the defect (A fails) in run 2, at minute `minute`.
    fn log(&self, minute: u64) -> Vec<String> {
        vec![
            self.start(),
            self.test(A, 1, Outcome::Pass, minute),
            self.test(B, 1, Outcome::Pass, minute),
            self.test(A, 2, Outcome::Fail, minute),
            self.test(B, 2, Outcome::Pass, minute),
            self.test(A, 3, Outcome::Pass, minute),
            self.test(B, 3, Outcome::Pass, minute),
            self.stats(100, 10.0),
            self.stop(),
        ]
    }
}

fn lines(records: &[String]) -> String {
    records.iter().map(|r| format!("{r}\n")).collect()
}

fn write(dir: &Path, name: &str, content: &[u8]) -> PathBuf {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(&p, content).unwrap();
    p
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn zstd(bytes: &[u8]) -> Vec<u8> {
    zstd::encode_all(bytes, 1).unwrap()
}

fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

fn docker(line: &str) -> String {
    format!(
        r#"{{"log":{},"stream":"stdout","time":"2026-11-22T10:00:00.000000001Z"}}"#,
        quoted(&format!("{line}\n"))
    )
}

fn logcli(line: &str) -> String {
    format!(
        r#"{{"labels":{{"app":"checkout","pod":"p"}},"line":{},"timestamp":"2026-11-22T10:00:00Z"}}"#,
        quoted(line)
    )
}

/// One `ExportLogsServiceRequest`: the records as `tracing` events (the record in the
/// `invite.record` attribute, a message in the body), then `other` lines of the program.
fn collector(records: &[String], other: &[&str]) -> String {
    let mut logs: Vec<String> = records
        .iter()
        .map(|r| {
            format!(
                r#"{{"timeUnixNano":"1795000000000000000","severityText":"ERROR","body":{{"stringValue":"fail in app::f"}},"attributes":[{{"key":"invite.record","value":{{"stringValue":{}}}}},{{"key":"fingerprint","value":{{"stringValue":"0123"}}}}]}}"#,
                quoted(r)
            )
        })
        .collect();
    logs.extend(other.iter().map(|o| {
        format!(
            r#"{{"timeUnixNano":"1","body":{{"stringValue":{}}},"attributes":[]}}"#,
            quoted(o)
        )
    }));
    format!(
        r#"{{"resourceLogs":[{{"resource":{{"attributes":[{{"key":"service.name","value":{{"stringValue":"checkout"}}}}]}},"scopeLogs":[{{"scope":{{"name":"invite"}},"logRecords":[{}]}}]}}]}}"#,
        logs.join(",")
    )
}

/// The report without what says where it was read from: comparable between inputs.
fn findings(mut r: Value) -> Value {
    r["input"] = Value::Null;
    r
}

#[test]
fn records_shipped_by_docker_logcli_and_the_collector_read_as_the_log_itself() {
    let dir = tempfile::tempdir().unwrap();
    let one = Member {
        k: 1,
        version: "1.0.0",
    };
    let two = Member {
        k: 2,
        version: "1.0.0",
    };
    let three = Member {
        k: 3,
        version: "1.1.0",
    };
    let plain = write(
        dir.path(),
        "plain/all.jsonl",
        lines(&[one.log(1), two.log(2), three.log(3)].concat()).as_bytes(),
    );
    let expected = findings(json_report(&[plain.to_str().unwrap()]));

    // Member 1 through Docker, with the program's own lines between; a record longer than
    // Docker's 16 KiB split into pieces, each an entry of its own.
    let mut docker_lines: Vec<String> = Vec::new();
    for (i, r) in one.log(1).iter().enumerate() {
        docker_lines.push(docker(r));
        if i == 2 {
            docker_lines.push(docker("GET /health 200"));
            docker_lines.push(docker(r#"{"level":"info","msg":"json, but no record"}"#));
        }
    }
    let mut long = one.test(B, 4, Outcome::Pass, 1);
    long = long.replace(
        "\"xs\":\"[4.0, 1.5]\"",
        &format!("\"xs\":\"[{}]\"", "7.0, ".repeat(8000)),
    );
    assert!(long.len() > 32 << 10);
    let pieces: Vec<&str> = [
        &long[..16 << 10],
        &long[16 << 10..32 << 10],
        &long[32 << 10..],
    ]
    .into_iter()
    .collect();
    for (i, piece) in pieces.iter().enumerate() {
        let text = if i == pieces.len() - 1 {
            format!("{piece}\n")
        } else {
            piece.to_string()
        };
        docker_lines.push(format!(
            r#"{{"log":{},"stream":"stdout","time":"t"}}"#,
            quoted(&text)
        ));
        if i == 0 {
            // stderr's line between stdout's pieces is its own.
            docker_lines.push(r#"{"log":"warning: slow\n","stream":"stderr","time":"t"}"#.into());
        }
    }
    write(
        dir.path(),
        "shipped/docker.log",
        lines(&docker_lines).as_bytes(),
    );
    // Member 2 through logcli.
    let loki: Vec<String> = two.log(2).iter().map(|r| logcli(r)).collect();
    write(dir.path(), "shipped/loki.jsonl", lines(&loki).as_bytes());
    // Member 3 through the Collector: two requests, the first with two other lines.
    let log3 = three.log(3);
    let otel = [
        collector(&log3[..4], &["listening on :8080", "ready"]),
        collector(&log3[4..], &[]),
    ];
    write(dir.path(), "shipped/otel.json", lines(&otel).as_bytes());

    let shipped = json_report(&[dir.path().join("shipped").to_str().unwrap()]);
    assert_eq!(shipped["input"]["bad_lines"], 0, "{}", shipped["input"]);
    // Docker: 2 lines and a stderr line; the Collector: 2.
    assert_eq!(shipped["input"]["other_lines"], 5, "{}", shipped["input"]);
    assert_eq!(shipped["input"]["files"], 3);
    // The long record joined again: one more pass of B, in member 1.
    let mut with_long = expected.clone();
    let site = &shipped["sites"][0];
    assert_eq!(site["tests"], 19, "{site}");
    with_long["sites"][0]["tests"] = site["tests"].clone();
    assert_eq!(shipped["sites"][0]["outcomes"]["pass"], 16);
    let drop_site = |mut r: Value| {
        r["sites"] = Value::Null;
        r["timeline"] = Value::Null;
        r["instances"][0]["tests"] = Value::Null;
        r["instances"][0]["outcomes"] = Value::Null;
        r["instances"][0]["overhead_share"] = Value::Null;
        r["versions"] = Value::Null;
        r
    };
    assert_eq!(drop_site(findings(shipped.clone())), drop_site(with_long));
    // Without the long record, the same report as the plain log's.
    let docker_short: Vec<String> = docker_lines[..docker_lines.len() - 4].to_vec();
    write(
        dir.path(),
        "shipped/docker.log",
        lines(&docker_short).as_bytes(),
    );
    let shipped = json_report(&[dir.path().join("shipped").to_str().unwrap()]);
    assert_eq!(findings(shipped), expected);

    // A line that holds no record is never a bad line; one that holds a damaged record is.
    let damaged = docker(&one.stop()[..40]);
    write(
        dir.path(),
        "shipped/docker.log",
        lines(&[damaged]).as_bytes(),
    );
    let out = invite(&["report", dir.path().join("shipped").to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("skipped 1 line(s): 1 bad"), "{err}");
    assert!(err.contains("docker.log:1: truncated record"), "{err}");
}

#[test]
fn only_other_lines_is_no_record_and_says_what_to_ship() {
    let dir = tempfile::tempdir().unwrap();
    let log = write(
        dir.path(),
        "app.log",
        lines(&[docker("started"), docker("GET / 200")]).as_bytes(),
    );
    let out = invite(&["report", log.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("no valid invite record in"), "{err}");
    assert!(
        err.contains("2 shipped log line(s) of the program"),
        "{err}"
    );
    assert!(err.contains("invite.record"), "{err}");
}

#[test]
fn gzip_and_zstd_logs_are_read_as_streams() {
    let dir = tempfile::tempdir().unwrap();
    let one = Member {
        k: 1,
        version: "1.0.0",
    };
    let two = Member {
        k: 2,
        version: "1.0.0",
    };
    let three = Member {
        k: 3,
        version: "1.0.0",
    };
    let all = lines(&[one.log(1), two.log(2), three.log(3)].concat());
    let plain = write(dir.path(), "plain.jsonl", all.as_bytes());
    let expected = findings(json_report(&[plain.to_str().unwrap()]));

    // Two gzip members one after the other, as `cat a.gz b.gz` makes; a zstd file; and a gzip
    // file without the extension, known by its first bytes.
    let mut two_members = gzip(lines(&one.log(1)).as_bytes());
    two_members.extend(gzip(lines(&two.log(2)).as_bytes()));
    let c = dir.path().join("c");
    write(&c, "one-two.jsonl.gz", &two_members);
    write(
        &c,
        "three.jsonl.zst",
        &zstd(lines(&three.log(3)).as_bytes()),
    );
    let r = json_report(&[c.to_str().unwrap()]);
    assert_eq!(findings(r.clone()), expected);
    assert_eq!(r["input"]["files"], 2);
    assert_eq!(r["input"]["damaged_files"], 0);
    let sniffed = write(dir.path(), "unnamed", &gzip(all.as_bytes()));
    assert_eq!(
        findings(json_report(&[sniffed.to_str().unwrap()])),
        expected
    );
}

#[test]
fn a_damaged_compressed_file_is_named_and_the_other_files_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let one = Member {
        k: 1,
        version: "1.0.0",
    };
    let two = Member {
        k: 2,
        version: "1.0.0",
    };
    let good = write(
        dir.path(),
        "good.jsonl.gz",
        &gzip(lines(&one.log(1)).as_bytes()),
    );
    let mut gz = gzip(lines(&two.log(2)).as_bytes());
    gz.truncate(gz.len() / 2);
    let cut = write(dir.path(), "cut.jsonl.gz", &gz);
    let not_gzip = write(dir.path(), "plain.jsonl.gz", lines(&two.log(2)).as_bytes());
    let mut zst = zstd(lines(&two.log(2)).as_bytes());
    zst.truncate(zst.len() - 3);
    let cut_zst = write(dir.path(), "cut.jsonl.zst", &zst);
    let mut flipped = gzip(lines(&two.log(2)).as_bytes());
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0xff;
    flipped[middle + 1] ^= 0xff;
    let corrupt = write(dir.path(), "corrupt.jsonl.gz", &flipped);
    let paths: Vec<&str> = [&good, &cut, &not_gzip, &cut_zst, &corrupt]
        .iter()
        .map(|p| p.to_str().unwrap())
        .collect();
    let mut args = vec!["report", "--format", "json"];
    args.extend(&paths);
    let out = invite(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    for (name, what) in [
        ("cut.jsonl.gz", "not gzip, or truncated"),
        ("corrupt.jsonl.gz", "not gzip, or truncated"),
        ("cut.jsonl.zst", "not zstd, or truncated"),
    ] {
        let line = err
            .lines()
            .find(|l| l.contains(name))
            .unwrap_or_else(|| panic!("{name} not named: {err}"));
        assert!(line.contains(what), "{line}");
        assert!(line.contains("line(s) were read"), "{line}");
    }
    let line = err.lines().find(|l| l.contains("plain.jsonl.gz")).unwrap();
    assert!(
        line.contains("not gzip: it does not start with gzip's magic bytes"),
        "{line}"
    );
    assert!(line.contains("rename it if it is not compressed"), "{line}");
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["input"]["damaged_files"], 4);
    assert_eq!(r["input"]["files"], 5);
    // Member 1 whole; of member 2 at most what came before the damage.
    let instances = r["instances"].as_array().unwrap();
    let first = instances.iter().find(|i| i["instance"] == "app-1").unwrap();
    assert_eq!(first["tests"], 6);
    assert_eq!(first["stopped"], true);
}

#[test]
fn directories_and_patterns_find_logs_at_any_depth_once_each() {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    let members: Vec<Member> = (1..=4)
        .map(|k| Member {
            k,
            version: "1.0.0",
        })
        .collect();
    write(
        &logs,
        "a/invite.jsonl",
        lines(&members[0].log(1)).as_bytes(),
    );
    write(
        &logs,
        "a/invite.jsonl.1.gz",
        &gzip(lines(&members[1].log(1)).as_bytes()),
    );
    write(
        &logs,
        "b/deep/invite.log.zst",
        &zstd(lines(&members[2].log(1)).as_bytes()),
    );
    write(
        &logs,
        "b/export.json",
        lines(&[collector(&members[3].log(1), &[])]).as_bytes(),
    );
    write(&logs, "b/notes.txt", b"not a log");
    write(&logs, "b/backup.jsonl.bak", b"not a log either");
    let r = json_report(&[logs.to_str().unwrap()]);
    assert_eq!(r["input"]["files"], 4);
    assert_eq!(r["instances"].as_array().unwrap().len(), 4);
    // A pattern the shell did not expand, and a file named twice: read once.
    let pattern = format!("{}/*/invite*.jsonl*", logs.display());
    let named = logs.join("a/invite.jsonl");
    let r = json_report(&[&pattern, named.to_str().unwrap()]);
    assert_eq!(r["input"]["files"], 2, "{}", r["input"]);
    assert_eq!(r["instances"].as_array().unwrap().len(), 2);
    assert_eq!(r["sites"][0]["tests"], 12);
    // Nothing matches, or the pattern is not one: the path and the fix.
    let nothing = format!("{}/*/nothing*.jsonl", logs.display());
    let out = invite(&["report", &nothing]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains(&format!("{nothing}: no file matches the pattern")),
        "{}",
        text(&out.stderr)
    );
    let broken = format!("{}/[a", logs.display());
    let out = invite(&["report", &broken]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("not a valid pattern"),
        "{}",
        text(&out.stderr)
    );
    // A directory without a log says which names it looked for.
    let empty = dir.path().join("empty");
    write(&empty, "notes.txt", b"");
    let out = invite(&["report", empty.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("holds no log (*.jsonl, *.json or *.log"));
}

/// Three instances meeting the same defect, two on version 1.0.0 and one on 1.1.0, the last of
/// them a restart of member 1 under a new id: in files of their own.
fn fleet(dir: &Path) -> Vec<PathBuf> {
    let members = [
        Member {
            k: 1,
            version: "1.0.0",
        },
        Member {
            k: 2,
            version: "1.0.0",
        },
        Member {
            k: 3,
            version: "1.1.0",
        },
    ];
    members
        .iter()
        .zip([5u64, 2, 9])
        .map(|(m, minute)| {
            write(
                dir,
                &format!("{}.jsonl", m.id()),
                lines(&m.log(minute)).as_bytes(),
            )
        })
        .collect()
}

#[test]
fn a_defect_met_by_three_instances_of_two_versions_is_one_row() {
    let dir = tempfile::tempdir().unwrap();
    fleet(dir.path());
    let logs = dir.path().to_str().unwrap();
    let r = json_report(&[logs]);
    let rows = r["fleet_failures"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{rows:?}");
    let row = &rows[0];
    assert_eq!(row["site"], SITE);
    assert_eq!(row["test"], A);
    assert_eq!(row["outcome"], "fail");
    assert_eq!(row["failures"], 3);
    assert_eq!(row["instances"], 3);
    assert_eq!(row["versions"], serde_json::json!(["1.0.0", "1.1.0"]));
    // Run 2 at minute 2 (member 2) is the first, at minute 9 (member 3) the last.
    assert_eq!(row["first"], "2026-11-22T10:02:02.000002Z");
    assert_eq!(row["last"], "2026-11-22T10:09:02.000003Z");
    assert_eq!(
        row["fingerprint"],
        invite::record::fingerprint(SITE, A, Outcome::Fail)
    );
    // The instances, each with its service, version and shard.
    let instances = r["instances"].as_array().unwrap();
    let names: Vec<&str> = instances
        .iter()
        .map(|i| i["instance"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["app-1", "app-2", "app-3"]);
    for (i, (version, shard)) in
        instances
            .iter()
            .zip([("1.0.0", "1/3"), ("1.0.0", "2/3"), ("1.1.0", "3/3")])
    {
        assert_eq!(i["service"], "checkout");
        assert_eq!(i["version"], version);
        assert_eq!(i["shard"], shard);
        assert_eq!(i["tests"], 6);
        // 3 runs at 100 µs over 10 s.
        assert!(
            (i["overhead_share"].as_f64().unwrap() - 3e-5).abs() < 1e-12,
            "{i}"
        );
    }
    let versions = r["versions"].as_array().unwrap();
    assert_eq!(versions.len(), 2);
    assert_eq!(
        (
            versions[0]["version"].as_str(),
            versions[0]["instances"].as_u64()
        ),
        (Some("1.0.0"), Some(2))
    );
    assert_eq!(
        (
            versions[1]["version"].as_str(),
            versions[1]["instances"].as_u64()
        ),
        (Some("1.1.0"), Some(1))
    );
    assert_eq!(versions[1]["outcomes"]["fail"], 1);

    let out = invite(&["report", logs, "--width", "100"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    let fleet = &report[report
        .find("Failures across instances (by fingerprint)")
        .unwrap_or_else(|| panic!("{report}"))..];
    let fingerprint = row["fingerprint"].as_str().unwrap();
    assert!(
        fleet.contains(&format!("{fingerprint}  {SITE}: {A}: fail\n  3 failures in 3 instances, 2026-11-22 10:02:02 to 2026-11-22 10:09:02 UTC\n  versions 1.0.0, 1.1.0\n")),
        "{report}"
    );
    assert!(report.contains("\nInstances\n"), "{report}");
    assert!(report.contains("\nServices and versions\n"), "{report}");
    for name in ["app-1", "app-2", "app-3"] {
        assert!(report.contains(name), "{report}");
    }

    let out = invite(&["report", "--format", "html", logs]);
    let html = text(&out.stdout);
    let table = &html[html.find("<table id=\"fleet-failures\">").unwrap()..];
    let table = &table[..table.find("</table>").unwrap()];
    assert_eq!(table.matches("<tr>").count(), 2, "{table}");
    assert!(
        table.contains(&format!("<code>{fingerprint}</code>")),
        "{table}"
    );
    assert!(table.contains("<td class=\"n\">3</td><td class=\"n\">3</td><td>2026-11-22 10:02:02</td><td>2026-11-22 10:09:02</td><td>1.0.0, 1.1.0</td>"), "{table}");
    assert!(html.contains("<table id=\"instances\">"));

    // One instance: none of the fleet's sections.
    let one = dir.path().join("app-1.jsonl");
    let out = invite(&["report", one.to_str().unwrap()]);
    let report = text(&out.stdout);
    assert!(
        report.starts_with("Invite report: 9 records from 1 file, 1 instance\n"),
        "{report}"
    );
    for section in ["across instances", "\nInstances\n", "Services and versions"] {
        assert!(!report.contains(section), "{section}: {report}");
    }
    let out = invite(&["report", "--format", "html", one.to_str().unwrap()]);
    let html = text(&out.stdout);
    assert!(!html.contains("fleet-failures") && !html.contains("id=\"instances\""));
}

#[test]
fn old_logs_without_instance_names_are_grouped_by_host_and_pid() {
    let dir = tempfile::tempdir().unwrap();
    let m = Member {
        k: 1,
        version: "1.0.0",
    };
    let old: Vec<String> = m
        .log(1)
        .iter()
        .map(|r| {
            let mut v: Value = serde_json::from_str(r).unwrap();
            let o = v.as_object_mut().unwrap();
            for key in ["service", "version", "shard"] {
                o.remove(key);
            }
            if o["kind"] == "start" {
                let i = o["instance"].as_object_mut().unwrap();
                for key in ["id", "service", "version"] {
                    i.remove(key);
                }
            } else {
                o.remove("instance");
            }
            v.to_string()
        })
        .collect();
    let log = write(dir.path(), "old.jsonl", lines(&old).as_bytes());
    let r = json_report(&[log.to_str().unwrap()]);
    let instances = r["instances"].as_array().unwrap();
    assert_eq!(instances.len(), 1, "{instances:?}");
    assert_eq!(instances[0]["instance"], "node-1-101");
    assert_eq!(instances[0]["tests"], 6);
    assert_eq!(instances[0]["stopped"], true);
    assert_eq!(instances[0]["service"], "");
    assert_eq!(r["fleet_failures"][0]["versions"], serde_json::json!([]));
    assert_eq!(r["fleet_failures"][0]["instances"], 1);
}

#[test]
fn the_test_rate_is_shared_by_the_instances() {
    let dir = tempfile::tempdir().unwrap();
    fleet(dir.path());
    let logs = dir.path().to_str().unwrap();
    // Each instance: 10 calls/s, 2 tests a run. 60 tests a minute for one process:
    // 60 / (60 × 10 × 2) = 0.05; shared by the 3 instances of the logs, a third of it.
    let rho = |extra: &[&str]| {
        let mut args = vec![logs, "--target-tests-per-min", "60"];
        args.extend(extra);
        let r = json_report(&args);
        let t = &r["tuning"];
        (
            t["instances"].as_u64().unwrap(),
            t["sites"][0]["rho"].as_f64().unwrap(),
            t["sites"][0]["projected_fleet_tests_per_min"]
                .as_f64()
                .unwrap(),
        )
    };
    let (n, by_logs, fleet_rate) = rho(&[]);
    assert_eq!((n, by_logs), (3, 0.0166));
    assert!((fleet_rate - 59.76).abs() < 1e-9, "{fleet_rate}");
    assert_eq!(rho(&["--instances", "1"]).1, 0.05);
    assert_eq!(rho(&["--instances", "10"]).1, 0.005);
    let out = invite(&["report", logs, "--target-tests-per-min", "60"]);
    let report = text(&out.stdout);
    assert!(
        report.contains("Tuning for 60 tests/min per site across 3 instances"),
        "{report}"
    );
    assert!(
        report
            .contains("rho = 0.0166  # ~20 tests/min each, ~60 in all, 0.002% overhead (now 0.5)"),
        "{report}"
    );
    for bad in ["0", "-1", "many"] {
        let arg = format!("--instances={bad}");
        let out = invite(&["report", logs, "--target-tests-per-min", "60", &arg]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(
            text(&out.stderr).contains("1 or more"),
            "{}",
            text(&out.stderr)
        );
    }
    let out = invite(&["report", logs, "--instances", "3"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--target-tests-per-min"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn the_tuned_rates_are_written_whole_for_the_fleet_and_check_config_accepts_them() {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    fleet(&logs);
    let logs = logs.to_str().unwrap();
    let config = dir.path().join("tuned.toml");
    let write_config = |extra: &[&str]| {
        let mut args = vec![
            "report",
            logs,
            "--target-tests-per-min",
            "60",
            "--write-config",
            config.to_str().unwrap(),
        ];
        args.extend(extra);
        invite(&args)
    };
    let out = write_config(&[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains(&format!(
            "wrote the rho of 1 site(s) to {}",
            config.display()
        )),
        "{}",
        text(&out.stderr)
    );
    let written = std::fs::read_to_string(&config).unwrap();
    assert!(
        written.contains("[functions.\"app::f\"]\nrho = 0.0166  #"),
        "{written}"
    );
    let parsed: toml::Table = toml::from_str(&written).unwrap();
    assert_eq!(
        parsed["functions"]["app::f"]["rho"].as_float(),
        Some(0.0166)
    );
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&config).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o644, "readable by the fleet");
    let check = invite(&["check-config", config.to_str().unwrap()]);
    assert!(check.status.success(), "{}", text(&check.stderr));
    assert!(
        text(&check.stdout).contains("ok (1 site entries)"),
        "{}",
        text(&check.stdout)
    );
    // Written again for another fleet size, in place; nothing else is left in the directory.
    let out = write_config(&["--instances", "1"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let written = std::fs::read_to_string(&config).unwrap();
    assert!(written.contains("rho = 0.05  #"), "{written}");
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 2, "{left:?}");
    // A file written by hand is left alone, and the report says so and how to go on.
    std::fs::write(&config, "default_rho = 0.01\n").unwrap();
    let out = write_config(&[]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("was not written by --write-config"), "{err}");
    assert!(
        err.contains("name a new file, or remove this one first"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(&config).unwrap(),
        "default_rho = 0.01\n"
    );
    // Without a target there is nothing to write.
    let out = invite(&["report", logs, "--write-config", config.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--target"),
        "{}",
        text(&out.stderr)
    );
}

/// Many instances over many files, plain and compressed and shipped, with failures enough to
/// choose among and bad lines enough to list only some: the input of a parallel read.
fn many(dir: &Path) -> Vec<String> {
    let mut paths = Vec::new();
    for f in 0..8u32 {
        let mut records = Vec::new();
        for k in 0..4 {
            let m = Member {
                k: f * 4 + k,
                version: if k % 2 == 0 { "1.0.0" } else { "1.1.0" },
            };
            records.push(m.start());
            for run in 1..=700u64 {
                let outcome = match (run * 7 + u64::from(k)) % 23 {
                    0 => Outcome::Fail,
                    1 => Outcome::Error,
                    _ => Outcome::Pass,
                };
                records.push(m.test(A, run, outcome, run % 90));
                records.push(m.test(B, run, Outcome::Pass, run % 90));
                if run % 97 == 0 {
                    records.push(format!(
                        "{{\"kind\":\"test\",\"v\":1,\"site\":\"cut {f} {k} {run}"
                    ));
                }
            }
            records.push(m.stats(7000, 100.0));
            records.push(m.stop());
        }
        let body = lines(&records);
        let path = match f % 4 {
            0 => write(dir, &format!("f{f}.jsonl"), body.as_bytes()),
            1 => write(dir, &format!("f{f}.jsonl.gz"), &gzip(body.as_bytes())),
            2 => write(dir, &format!("f{f}.jsonl.zst"), &zstd(body.as_bytes())),
            _ => {
                let shipped: Vec<String> = records.iter().map(|r| docker(r)).collect();
                write(dir, &format!("f{f}.log"), lines(&shipped).as_bytes())
            }
        };
        paths.push(path.display().to_string());
    }
    paths
}

#[test]
fn the_report_is_the_same_whatever_the_threads_and_the_order_of_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let paths = many(dir.path());
    let run = |threads: &str, paths: &[String]| {
        let mut args = vec![
            "report",
            "--format",
            "json",
            "--target-tests-per-min",
            "100",
            "--threads",
            threads,
        ];
        args.extend(paths.iter().map(String::as_str));
        let out = invite(&args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        (out.stdout, out.stderr)
    };
    let (one, one_err) = run("1", &paths);
    let (four, four_err) = run("4", &paths);
    let r: Value = serde_json::from_slice(&one).unwrap();
    assert_eq!(r["instances"].as_array().unwrap().len(), 32);
    assert_eq!(r["input"]["bad_lines"], 8 * 4 * 7);
    assert_eq!(r["sites"][0]["tests"], 8 * 4 * 1400);
    assert!(
        text(&one_err).contains("… and 214 more"),
        "{}",
        text(&one_err)
    );
    assert!(one == four, "--threads 1 and 4 differ");
    assert_eq!(text(&one_err), text(&four_err));
    let mut reversed = paths.clone();
    reversed.reverse();
    reversed.rotate_left(3);
    let (shuffled, shuffled_err) = run("3", &reversed);
    assert!(one == shuffled, "the order of the files changed the report");
    assert_eq!(text(&one_err), text(&shuffled_err));
}
