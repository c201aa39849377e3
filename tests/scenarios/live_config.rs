//! Live configuration and fleet shares: a changed `invite.toml` is applied while the program runs
//! (edited in place, renamed over, swapped as a Kubernetes ConfigMap swaps it, or on
//! `invite::reload()`), a file that cannot be used leaves the last good settings in force with
//! one message, and a member of a fleet tests only its share of the (site, test) pairs.

use std::time::Duration;

use crate::support::{self, scenario, scenario_dir, scenario_with};
use invite::record::Record;

const WAIT: Duration = Duration::from_secs(60);

/// Every call tested, and calls wait for the caps rather than going on untested: whether a
/// call is tested depends on its site's ρ alone.
const EVERY_CALL: &str = "max_concurrent = 4\nmax_overhead = 1.0\nchild_cpu_charge = 0.0\n\
                          when_busy = \"wait\"";

#[invite::metamorphic(tripled(x + 1) == result + 3)]
fn tripled(x: u64) -> u64 {
    3 * x
}

#[invite::metamorphic(
    four_ways(x + 1) == result + 1,
    four_ways(x + 2) == result + 2,
    four_ways(x + 3) == result + 3,
    four_ways(x + 4) == result + 4,
)]
fn four_ways(x: u64) -> u64 {
    x
}

const TRIPLED: &str = "scenarios::live_config::tripled";
const FOUR_WAYS: &str = "scenarios::live_config::four_ways";

/// The scenario's configuration file as the harness wrote it, with `more` in place of what the
/// scenario set: the log and deadlines stay.
fn config_with(more: &str) -> String {
    let dir = scenario_dir();
    let every_call = if more.contains("max_concurrent") {
        EVERY_CALL.replace("max_concurrent = 4\n", "")
    } else {
        EVERY_CALL.to_string()
    };
    format!(
        "log = {:?}\ntimeout_ms = 30000\ndrain_ms = 30000\n{every_call}\n{more}\n",
        dir.join("log.jsonl").display().to_string()
    )
}

/// Tests of `tripled` so far in this process.
fn tested() -> u64 {
    invite::outcomes()
        .site(TRIPLED)
        .map_or(0, |s| s.counts().total())
}

/// Calls `tripled` until one more call than before is tested; false after [`WAIT`].
fn calls_until_tested() -> bool {
    let before = tested();
    support::eventually(WAIT, || {
        tripled(7);
        invite::wait_idle(WAIT);
        tested() > before
    })
}

fn config_records(run: &support::Run) -> Vec<invite::record::ConfigChange> {
    run.records()
        .into_iter()
        .filter_map(|r| match r {
            Record::Config(c) => Some(c),
            _ => None,
        })
        .collect()
}

#[test]
fn a_file_replaced_while_the_program_runs_is_applied_without_a_restart() {
    let site_off = format!("[functions.\"{TRIPLED}\"]\nrho = 0.0");
    let run = scenario(here!(), &format!("{EVERY_CALL}\n{site_off}"), || {
        for i in 0..50 {
            tripled(i);
        }
        invite::wait_idle(WAIT);
        println!("before: {}", tested());
        let path = scenario_dir().join("invite.toml");
        support::replace_atomically(
            &path,
            &config_with(&format!(
                "max_concurrent = 3\n[functions.\"{TRIPLED}\"]\nrho = 1.0"
            )),
        );
        println!("tested after the change: {}", calls_until_tested());
    });
    run.assert_success();
    assert_eq!(
        run.stdout,
        "before: 0\ntested after the change: true\n",
        "{}",
        run.describe()
    );
    let changes = config_records(&run);
    assert_eq!(changes.len(), 1, "{}", run.describe());
    let c = &changes[0];
    assert!(c.applied && c.error.is_none(), "{c:?}");
    assert_eq!(
        c.changed,
        vec![
            "max_concurrent".to_string(),
            format!("functions.\"{TRIPLED}\".rho")
        ]
    );
    assert_eq!(c.hash.len(), 16, "{c:?}");
    assert_eq!(c.config["max_concurrent"], 3);
    assert!(
        !c.instance.is_empty() && c.instance == instance_of(&run),
        "{c:?}"
    );
    // The operator is told once what changed.
    let said: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("applied: max_concurrent"))
        .collect();
    assert_eq!(said.len(), 1, "{}", run.stderr);
}

/// The instance the start record names.
fn instance_of(run: &support::Run) -> String {
    run.records()
        .into_iter()
        .find_map(|r| match r {
            Record::Start(s) => Some(s.instance.id),
            _ => None,
        })
        .expect("a start record")
}

#[test]
fn a_configmap_s_symlink_swap_is_applied() {
    let run = scenario(here!(), EVERY_CALL, || {
        // Before invite starts: the program's configuration is a ConfigMap volume.
        let root = scenario_dir().join("config");
        let mut map = support::ConfigMap::new(
            root.clone(),
            &config_with(&format!("[functions.\"{TRIPLED}\"]\nrho = 0.0")),
        );
        std::env::set_var("INVITE_CONFIG", root.join("invite.toml"));
        assert!(invite::init());
        for i in 0..50 {
            tripled(i);
        }
        invite::wait_idle(WAIT);
        println!("before: {}", tested());
        map.update(&config_with(&format!(
            "[functions.\"{TRIPLED}\"]\nrho = 1.0"
        )));
        println!("tested after the swap: {}", calls_until_tested());
    });
    run.assert_success();
    assert_eq!(
        run.stdout,
        "before: 0\ntested after the swap: true\n",
        "{}",
        run.describe()
    );
    let changes = config_records(&run);
    assert_eq!(changes.len(), 1, "{}", run.describe());
    assert!(changes[0].applied, "{:?}", changes[0]);
    assert!(
        changes[0].file.ends_with("config/invite.toml"),
        "{:?}",
        changes[0]
    );
}

#[test]
fn a_file_that_cannot_be_used_leaves_the_last_good_settings_and_is_said_once() {
    let on = format!("[functions.\"{TRIPLED}\"]\nrho = 1.0");
    let run = scenario(here!(), &format!("{EVERY_CALL}\n{on}"), || {
        assert!(calls_until_tested(), "invite runs on the good file");
        let path = scenario_dir().join("invite.toml");
        let good = std::fs::read_to_string(&path).unwrap();
        let mut steps = Vec::new();
        let mut tried = |what: &str, break_it: &dyn Fn()| {
            break_it();
            // Asked again and again: one message for the same bad file.
            for _ in 0..3 {
                assert!(invite::reload());
                assert!(calls_until_tested());
            }
            steps.push(format!("{what}: still tested {}", calls_until_tested()));
        };
        tried("stops parsing", &|| {
            support::replace_atomically(&path, "default_rho = [\n")
        });
        tried("a wrong value", &|| {
            support::replace_atomically(&path, &config_with(&format!("max_concurrent = 999\n{on}")))
        });
        tried("a directory", &|| {
            std::fs::remove_file(&path).unwrap();
            std::fs::create_dir(&path).unwrap();
        });
        tried("a fifo", &|| {
            std::fs::remove_dir(&path).unwrap();
            let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
            // SAFETY: a valid path; mkfifo only creates the file.
            assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        });
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, good).unwrap();
        assert!(invite::reload());
        for s in steps {
            println!("{s}");
        }
    });
    run.assert_success();
    assert_eq!(
        run.stdout,
        "stops parsing: still tested true\na wrong value: still tested true\n\
         a directory: still tested true\na fifo: still tested true\n",
        "{}",
        run.describe()
    );
    let refused: Vec<_> = config_records(&run)
        .into_iter()
        .filter(|c| !c.applied)
        .collect();
    assert_eq!(refused.len(), 4, "{}", run.describe());
    let errors: Vec<String> = refused.iter().map(|c| c.error.clone().unwrap()).collect();
    assert!(
        errors[0].contains("invite.toml:1:16: unclosed array, expected `]`"),
        "{errors:?}"
    );
    assert!(
        errors[1].contains("key `max_concurrent`: expected at most 256"),
        "{errors:?}"
    );
    assert!(
        errors[2].contains("it is a directory, not a regular file"),
        "{errors:?}"
    );
    assert!(
        errors[3].contains("it is a FIFO, not a regular file"),
        "{errors:?}"
    );
    for (c, e) in refused.iter().zip(&errors) {
        // The configuration in force is still the good one.
        assert_eq!(c.config["functions"][TRIPLED]["rho"], 1.0, "{c:?}");
        // Said once, and as `invite check-config` says it.
        let said = run
            .stderr
            .lines()
            .filter(|l| l.contains(e.lines().next().unwrap()))
            .count();
        assert_eq!(said, 1, "{e}\n{}", run.stderr);
    }
}

#[test]
fn reload_without_a_file_says_so() {
    let run = scenario(here!(), EVERY_CALL, || {
        println!("{}", invite::reload());
    });
    run.assert_success();
    assert_eq!(run.stdout, "true\n");
    let run = support::scenario_unconfigured(here!(), || {
        println!("{}", invite::reload());
    });
    run.assert_success();
    assert_eq!(run.stdout, "false\n");
}

/// Runs `four_ways` many times as member `member` of a fleet of `size` rotating every second,
/// and gives, for each test record, its period and its test.
fn member_run(name: &str, member: u64, size: u64) -> (support::Run, Vec<(u64, String)>) {
    let shard = format!("{member}/{size}");
    let config = format!(
        "{EVERY_CALL}\nfleet = {{ size = 9, member = 0, rotate = 1 }}\n\
                          [functions.\"{FOUR_WAYS}\"]\nrho = 1.0"
    );
    let run = scenario_with(name, &config, &[("INVITE_SHARD", &shard)], || {
        // Three periods' worth of calls, at least.
        let started = std::time::Instant::now();
        while started.elapsed() < Duration::from_millis(3500) {
            four_ways(1);
            invite::wait_idle(WAIT);
        }
    });
    run.assert_success();
    let tests = run
        .tests()
        .into_iter()
        .map(|t| {
            let at = humantime::parse_rfc3339(&t.time).unwrap();
            let secs = at.duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
            (secs, t.test)
        })
        .collect();
    (run, tests)
}

#[test]
fn members_of_a_fleet_test_each_pair_once_per_period_and_the_environment_wins() {
    let (a, of_a) = member_run(here!(), 0, 2);
    let (b, of_b) = member_run(here!(), 1, 2);
    let tests: Vec<&str> = [&a, &b]
        .iter()
        .flat_map(|r| r.tests())
        .map(|t| t.test)
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .map(|t| Box::leak(t.into_boxed_str()) as &str)
        .collect();
    assert_eq!(tests.len(), 4, "every pair was tested by somebody");
    for (member, records) in [(0, &of_a), (1, &of_b)] {
        assert!(!records.is_empty());
        for (period, test) in records {
            assert_eq!(
                invite::fleet::owner(2, FOUR_WAYS, test, *period),
                member,
                "member {member} tested `{test}` in period {period}, which is another's"
            );
        }
    }
    // INVITE_SHARD won over the file's `fleet`, and the start record says so.
    for (run, shard) in [(&a, "0/2"), (&b, "1/2")] {
        let start = run.records().into_iter().find_map(|r| match r {
            Record::Start(s) => Some(s),
            _ => None,
        });
        assert_eq!(start.unwrap().shard.as_deref(), Some(shard));
    }
}

#[test]
fn a_bad_shard_or_instance_name_is_said_once_and_the_program_runs_on() {
    let config = format!("{EVERY_CALL}\n[functions.\"{TRIPLED}\"]\nrho = 1.0");
    for (var, value, says) in [
        ("INVITE_SHARD", "8/8", "member 8 is outside a fleet of 8"),
        ("INVITE_SHARD", "0/0", "a fleet of 0 members"),
        (
            "INVITE_SHARD",
            "-1/4",
            "the member `-1` is not a whole number",
        ),
        ("INVITE_INSTANCE", "web\u{1b}[2J\n0", "control character"),
    ] {
        let run = scenario_with(here!(), &config, &[(var, value)], || {
            tripled(1);
            invite::wait_idle(WAIT);
            println!("tested {}", tested());
        });
        run.assert_success();
        assert_eq!(
            run.stdout,
            "tested 1\n",
            "{var}={value:?}: {}",
            run.describe()
        );
        let lines: Vec<&str> = run
            .stderr
            .lines()
            .filter(|l| l.starts_with("invite:"))
            .collect();
        assert_eq!(lines.len(), 1, "{var}={value:?}: {}", run.stderr);
        assert!(
            lines[0].contains(var) && lines[0].contains(says),
            "{}",
            lines[0]
        );
        assert!(
            !lines[0].contains('\u{1b}'),
            "control characters are escaped"
        );
        let start = run.records().into_iter().find_map(|r| match r {
            Record::Start(s) => Some(s),
            _ => None,
        });
        let start = start.unwrap();
        assert_eq!(start.shard, None, "{var}={value:?}");
        assert!(
            start.instance.id.chars().all(|c| !c.is_control()) && !start.instance.id.is_empty(),
            "{:?}",
            start.instance.id
        );
    }
}

/// Creates a file beside the scenario's configuration: a side effect the sandbox denies.
fn creates_a_file(_: &u64) -> Result<(), String> {
    std::fs::write(scenario_dir().join("made-by-a-test"), "x").map_err(|e| e.to_string())
}

#[invite::in_vivo(test = creates_a_file)]
fn guarded(x: u64) -> u64 {
    x
}

/// The same test on a pure site, which the worker of pure sites runs.
#[invite::metamorphic(pure, test = creates_a_file_too)]
fn guarded_pure(x: u64) -> u64 {
    x
}

fn creates_a_file_too(x: &u64, _: &u64) -> Result<(), String> {
    creates_a_file(x)
}

const GUARDED: &str = "scenarios::live_config::guarded";
const GUARDED_PURE: &str = "scenarios::live_config::guarded_pure";

#[test]
fn a_reload_never_widens_a_site_s_sandbox_or_memory() {
    let on = format!("[functions.\"{GUARDED}\"]\nrho = 1.0");
    let on_pure = format!("[functions.\"{GUARDED_PURE}\"]\nrho = 1.0");
    let run = scenario(here!(), &format!("{EVERY_CALL}\n{on}\n{on_pure}"), || {
        guarded(1);
        guarded_pure(1);
        assert!(invite::wait_idle(WAIT));
        let path = scenario_dir().join("invite.toml");
        let widened = "sandbox = \"fork\"\nmemory_mb = 2048";
        support::replace_atomically(
            &path,
            &config_with(&format!(
                "memory_mb = 4096\n{on}\n{widened}\n{on_pure}\n{widened}"
            )),
        );
        assert!(invite::reload());
        for x in 2..6 {
            guarded(x);
            guarded_pure(x);
            assert!(invite::wait_idle(WAIT));
        }
        // The worker's calls are drained before the program looks.
        invite::shutdown();
        // From the program's side: no test made the file.
        println!("made: {}", scenario_dir().join("made-by-a-test").exists());
    });
    run.assert_success();
    assert_eq!(run.stdout, "made: false\n", "{}", run.describe());
    for test in ["creates_a_file", "creates_a_file_too"] {
        let outcomes = run.outcomes_of(test);
        assert_eq!(outcomes.len(), 5, "{test}: {}", run.describe());
        assert!(
            outcomes
                .iter()
                .all(|o| *o == invite::record::Outcome::Blocked),
            "{test}: {outcomes:?}"
        );
    }
    let changes = config_records(&run);
    assert_eq!(changes.len(), 1, "{}", run.describe());
    let c = &changes[0];
    assert!(c.applied, "the rest of the file is applied: {c:?}");
    assert_eq!(
        c.at_restart,
        vec![
            "memory_mb".to_string(),
            format!("functions.\"{GUARDED}\".sandbox"),
            format!("functions.\"{GUARDED}\".memory_mb"),
            format!("functions.\"{GUARDED_PURE}\".sandbox"),
            format!("functions.\"{GUARDED_PURE}\".memory_mb"),
        ],
        "{c:?}"
    );
    assert!(
        c.config["functions"][GUARDED].get("sandbox").is_none(),
        "{c:?}"
    );
    let said: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("take effect at the next start"))
        .collect();
    assert_eq!(said.len(), 1, "one line: {}", run.stderr);
    assert!(
        said[0].contains(&format!("functions.\"{GUARDED}\".sandbox")),
        "{}",
        said[0]
    );
}

/// The `config` records written to the scenario's log so far, read from inside the scenario.
fn config_records_so_far() -> Vec<serde_json::Value> {
    let log = std::fs::read_to_string(scenario_dir().join("log.jsonl")).unwrap_or_default();
    log.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|r| r["kind"] == "config")
        .collect()
}

#[test]
fn a_file_rewritten_in_place_is_applied_once_it_has_settled() {
    let on = format!("[functions.\"{TRIPLED}\"]\nrho = 1.0");
    let run = scenario(here!(), &format!("{EVERY_CALL}\n{on}"), || {
        assert!(calls_until_tested());
        let path = scenario_dir().join("invite.toml");
        let whole = config_with(&format!("max_concurrent = 2\n{on}"));
        let (first, rest) = whole.split_at(whole.find("[functions").unwrap());
        // As `echo >` and editors that write in place do: truncate, then write, in two steps,
        // the first of which parses on its own (with no `[functions]`).
        let mut file = std::fs::File::create(&path).unwrap();
        std::io::Write::write_all(&mut file, first.as_bytes()).unwrap();
        std::io::Write::write_all(&mut file, rest.as_bytes()).unwrap();
        drop(file);
        let applied = || config_records_so_far().iter().any(|r| r["applied"] == true);
        assert!(support::eventually(WAIT, applied), "applied");
        // Still tested: the site's entry was never dropped.
        assert!(calls_until_tested());
    });
    run.assert_success();
    let changes = config_records(&run);
    let applied: Vec<_> = changes.iter().filter(|c| c.applied).collect();
    assert_eq!(applied.len(), 1, "applied once, whole: {}", run.describe());
    assert_eq!(applied[0].changed, vec!["max_concurrent".to_string()]);
    assert_eq!(applied[0].config["functions"][TRIPLED]["rho"], 1.0);
    // Had the collector looked between the truncation and the write (a loaded machine), the
    // empty file it saw is refused, never applied.
    for c in changes.iter().filter(|c| !c.applied) {
        let e = c.error.as_deref().unwrap_or_default();
        assert!(e.contains("the file is empty"), "{e}");
    }
}

#[test]
fn a_site_sampled_and_then_turned_off_keeps_its_counts_in_the_final_stats() {
    // Every sampled call is refused by the overhead cap (no run), and then the site is
    // turned off: the final record still counts what it sampled, as the metrics do.
    // `four_ways` is on and never called; the other sites are off and never called.
    let off_after = |rho: &str| {
        format!(
            "max_overhead = 0.0\n[functions.\"{TRIPLED}\"]\nrho = {rho}\n\
             [functions.\"{FOUR_WAYS}\"]\nrho = 1.0"
        )
    };
    let run = scenario(here!(), &off_after("1.0"), || {
        for i in 0..5 {
            tripled(i);
        }
        let path = scenario_dir().join("invite.toml");
        support::replace_atomically(
            &path,
            &config_with(&off_after("0.0")).replace("max_overhead = 1.0\n", ""),
        );
        assert!(support::eventually(WAIT, || !config_records_so_far().is_empty()));
        tripled(9);
    });
    run.assert_success();
    let stats = run.final_stats();
    let site = stats
        .sites
        .iter()
        .find(|s| s.site == TRIPLED)
        .unwrap_or_else(|| panic!("{TRIPLED} missing from the final stats\n{}", run.describe()));
    assert!(
        site.sampled > 0 && (site.rho, site.runs) == (0.0, 0),
        "{site:?}"
    );
    assert_eq!(site.skipped.overhead, site.sampled, "{site:?}");
    // A site on is listed though never called; one off and never called is not.
    let listed: Vec<&str> = stats.sites.iter().map(|s| s.site.as_str()).collect();
    assert!(listed.contains(&FOUR_WAYS), "{listed:?}");
    assert!(
        !listed.contains(&"scenarios::live_config::guarded"),
        "{listed:?}"
    );
}
