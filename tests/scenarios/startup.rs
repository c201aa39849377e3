//! Hazards of start-up and of the log: a configuration or log path that names a FIFO or a
//! device, an oversized configuration, and a log that stops taking writes. The program must run
//! on unchanged, be told once, and lose no record it could keep.

use std::time::Duration;

use crate::support::{scenario, scenario_dir, scenario_with};
use invite::record::Outcome;

const CONFIG: &str = "default_rho = 1.0\nmax_overhead = 1.0\nchild_cpu_charge = 0.0";

#[invite::metamorphic(double(x + 1) == result + 2)]
fn double(x: u64) -> u64 {
    2 * x
}

fn body() {
    for x in 0..3 {
        double(x);
    }
    invite::wait_idle(Duration::from_secs(20));
    println!("ran");
}

fn mkfifo(path: &std::path::Path) {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo with a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// Runs `body` with `INVITE_CONFIG` pointing at `config_path`; the program must finish normally
/// (a FIFO read would hang it until the scenario's bound) and say `message` once.
fn rejected_config(name: &str, config_path: &str, message: &str) {
    let run = scenario_with(name, CONFIG, &[("INVITE_CONFIG", config_path)], body);
    run.assert_success();
    assert_eq!(run.stdout, "ran\n");
    assert_eq!(
        run.stderr.matches(message).count(),
        1,
        "expected one `{message}` on stderr:\n{}",
        run.stderr
    );
    assert!(run.log.is_empty(), "invite stayed off");
}

#[test]
fn a_passing_scenario_leaves_no_files_behind() {
    let dir = {
        let run = scenario(here!(), CONFIG, || {
            body();
            std::fs::write(scenario_dir().join("left-behind"), b"x").unwrap();
        });
        run.assert_success();
        assert!(run.dir.join("left-behind").exists());
        assert!(!run.log.is_empty());
        run.dir.clone()
    };
    assert!(!dir.exists(), "{} is still there", dir.display());
}

#[test]
fn a_fifo_as_configuration_is_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("invite.toml");
    if std::env::var("INVITE_SCENARIO").is_err() {
        mkfifo(&fifo);
    }
    rejected_config(here!(), fifo.to_str().unwrap(), "not a regular file");
}

#[test]
fn a_device_as_configuration_is_refused_without_reading_it() {
    rejected_config(here!(), "/dev/zero", "not a regular file");
}

#[test]
fn an_oversized_configuration_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("invite.toml");
    if std::env::var("INVITE_SCENARIO").is_err() {
        let line = "# padding padding padding padding padding padding padding padding\n";
        std::fs::write(&big, line.repeat((2 << 20) / line.len())).unwrap();
    }
    rejected_config(here!(), big.to_str().unwrap(), "larger than 1024 KiB");
}

#[test]
fn a_fifo_as_log_is_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("log.fifo");
    if std::env::var("INVITE_SCENARIO").is_err() {
        mkfifo(&fifo);
    }
    let config = format!("{CONFIG}\nlog = {:?}", fifo.to_str().unwrap());
    // The scenario's own `log` line comes first; the later key would be a duplicate, so the
    // configuration is written whole here.
    let path = dir.path().join("invite.toml");
    if std::env::var("INVITE_SCENARIO").is_err() {
        std::fs::write(&path, &config).unwrap();
    }
    let run = scenario_with(
        here!(),
        CONFIG,
        &[("INVITE_CONFIG", path.to_str().unwrap())],
        body,
    );
    run.assert_success();
    assert_eq!(run.stdout, "ran\n");
    assert_eq!(
        run.stderr.matches("a FIFO, not a regular file").count(),
        1,
        "{}",
        run.stderr
    );
}

#[test]
fn a_log_that_stops_taking_writes_loses_no_record_and_tears_none() {
    let run = scenario(here!(), CONFIG, || {
        double(1);
        assert!(invite::wait_idle(Duration::from_secs(20)));
        // Let the collector write what it has, then cap the file where it stands: every
        // later append fails with EFBIG, as on a full disk.
        std::thread::sleep(Duration::from_millis(300));
        let log = scenario_dir().join("log.jsonl");
        let size = std::fs::metadata(&log).unwrap().len();
        let cap = |soft: u64| {
            // SAFETY: an all-zero rlimit is a valid value.
            let mut lim: libc::rlimit = unsafe { std::mem::zeroed() };
            // SAFETY: reading and setting this process's own file size limit.
            unsafe {
                libc::getrlimit(libc::RLIMIT_FSIZE, &mut lim);
                lim.rlim_cur = soft;
                assert_eq!(libc::setrlimit(libc::RLIMIT_FSIZE, &lim), 0);
            }
            lim.rlim_max
        };
        let max = cap(size);
        for x in 0..20 {
            double(x);
            assert!(invite::wait_idle(Duration::from_secs(20)));
        }
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(std::fs::metadata(&log).unwrap().len(), size, "the cap held");
        // Space returns.
        cap(max);
        for x in 0..5 {
            double(x);
        }
        assert!(invite::wait_idle(Duration::from_secs(20)));
        println!("ran");
    });
    run.assert_success();
    assert_eq!(run.stdout, "ran\n");
    // Every line is a whole record.
    let tests = run.tests();
    let stats = run.final_stats();
    let runs: u64 = stats.sites.iter().map(|s| s.runs).sum();
    assert_eq!(
        tests.len() as u64,
        runs,
        "a record was lost: {}",
        run.describe()
    );
    // The first call and the twenty during the outage each ran alone; the last five may be
    // cut by the concurrency cap.
    assert!(runs >= 21, "{}", run.describe());
    assert!(tests.iter().all(|t| t.outcome == Outcome::Pass));
    assert!(stats.log_errors > 0, "the failures were not counted");
    assert_eq!(stats.log_lost, 0);
    assert_eq!(
        run.stderr.matches("cannot write the log").count(),
        1,
        "one report per kind of error:\n{}",
        run.stderr
    );
}
