//! Each configuration key's value takes effect: for every key, a scenario whose outcome differs
//! from what the default gives. (That every default is the README's is pinned by a unit test of
//! the configuration module.)

use std::time::Duration;

use crate::support::{self, scenario, scenario_dir, scenario_unconfigured, scenario_with};
use invite::record::Outcome::*;
use invite::record::Record;

const WAIT: Duration = Duration::from_secs(60);
const EVERY_CALL: &str =
    "default_rho = 1.0\nmax_concurrent = 8\nmax_overhead = 1.0\nchild_cpu_charge = 0.0";

#[invite::metamorphic(doubled(x + 1) == result + 2)]
fn doubled(x: u64) -> u64 {
    2 * x
}

#[test]
fn enabled_false_tests_nothing_where_true_tests_every_call() {
    let body = || {
        for i in 0..5 {
            doubled(i);
        }
        assert!(invite::wait_idle(WAIT));
        println!("{}", invite::outcomes().total().total());
    };
    let on = scenario(here!(), &format!("{EVERY_CALL}\nenabled = true"), body);
    on.assert_success();
    assert_eq!(on.stdout, "5\n", "{}", on.describe());
    let off = scenario(here!(), &format!("{EVERY_CALL}\nenabled = false"), body);
    off.assert_success();
    assert_eq!(off.stdout, "0\n", "{}", off.describe());
    assert!(off.log.is_empty(), "{}", off.describe());
}

/// Follow-ups at 1000 and beyond hang, as a test stuck on a lock would.
#[invite::metamorphic(sleepy(x + 1000) == result + 1000)]
fn sleepy(x: u64) -> u64 {
    if x >= 1000 {
        std::thread::sleep(Duration::from_secs(60));
    }
    x
}

#[invite::metamorphic(sleepy_too(x + 1000) == result + 1000)]
fn sleepy_too(x: u64) -> u64 {
    sleepy(x)
}

/// Whether a timeout's detail names a deadline of `ms`: the test's, when its supervisor killed
/// it, or the run's, when the machine was too busy for the supervisor to act in time.
fn names_the_deadline(detail: &str, ms: u64) -> bool {
    // Killed by its supervisor, a test that slept says it was waiting: it used no CPU time.
    let killed = detail.contains(&format!("deadline of {ms} ms"));
    (killed && detail.contains("it was waiting, not computing"))
        || detail.contains(&format!("passed its deadline ({ms} ms per test)"))
}

#[test]
fn timeout_ms_is_each_test_s_deadline_and_a_site_may_set_its_own() {
    let config = format!(
        "{EVERY_CALL}\ntimeout_ms = 300\n\
         [functions.\"scenarios::config_keys::sleepy_too\"]\ntimeout_ms = 250"
    );
    let run = scenario(here!(), &config, || {
        sleepy(1);
        sleepy_too(1);
        assert!(invite::wait_idle(WAIT));
    });
    run.assert_success();
    let global = &run.tests_of("sleepy(x + 1000) == result + 1000")[0];
    assert_eq!(global.outcome, Timeout, "{global:?}");
    let d = global.detail.as_deref().unwrap_or_default();
    assert!(names_the_deadline(d, 300), "{d}");
    let own = &run.tests_of("sleepy_too(x + 1000) == result + 1000")[0];
    assert_eq!(own.outcome, Timeout, "{own:?}");
    let d = own.detail.as_deref().unwrap_or_default();
    assert!(names_the_deadline(d, 250), "{d}");
}

/// The stats records in the scenario's log so far, the final one excluded.
fn periodic_stats() -> usize {
    let log = std::fs::read_to_string(scenario_dir().join("log.jsonl")).unwrap_or_default();
    log.lines()
        .filter(|l| matches!(Record::from_line(l), Ok(Record::Stats(s)) if !s.is_final))
        .count()
}

#[test]
fn stats_interval_ms_sets_how_often_stats_are_written() {
    // At the default of ten seconds, three records would take thirty: the wait below gives up
    // long before. At 50 ms they come at once.
    let run = scenario(
        here!(),
        &format!("{EVERY_CALL}\nstats_interval_ms = 50"),
        || {
            doubled(1);
            let three = support::eventually(Duration::from_secs(15), || periodic_stats() >= 3);
            println!("{three}");
        },
    );
    run.assert_success();
    assert_eq!(run.stdout, "true\n", "{}", run.describe());
}

#[invite::metamorphic(drawn(x + 1) >= 0)]
fn drawn(x: u64) -> u64 {
    use rand::Rng;
    x + invite::rng().random_range(0..1000)
}

#[test]
fn a_seed_makes_sampling_and_test_streams_repeat() {
    let name = here!();
    let body = || {
        for i in 0..100 {
            drawn(i);
            assert!(invite::wait_idle(WAIT));
        }
    };
    let sampled = |seed: u64| {
        let config = format!("default_rho = 0.3\nmax_overhead = 1.0\nseed = {seed}");
        let run = scenario(name, &config, body);
        run.assert_success();
        run.tests()
            .iter()
            .map(|t| {
                (
                    t.inputs["x"].clone(),
                    t.seeds.rng_seed.clone(),
                    t.seeds.test_seed,
                )
            })
            .collect::<Vec<_>>()
    };
    let first = sampled(7);
    assert!(
        (10..=60).contains(&first.len()),
        "about 30 of 100 calls: {first:?}"
    );
    assert_eq!(sampled(7), first, "the same seed samples the same calls");
    assert_ne!(sampled(8), first, "another seed samples others");
}

#[test]
fn log_dash_writes_the_records_to_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("invite.toml");
    std::fs::write(&config, format!("{EVERY_CALL}\nlog = \"-\"\n")).unwrap();
    let config = config.display().to_string();
    let run = scenario_with(here!(), "", &[("INVITE_CONFIG", &config)], || {
        doubled(4);
        assert!(invite::wait_idle(WAIT));
    });
    run.assert_success();
    assert!(run.log.is_empty(), "no log file: {}", run.describe());
    let tests: Vec<_> = run
        .stderr
        .lines()
        .filter_map(|l| match Record::from_line(l) {
            Ok(Record::Test(t)) => Some(t),
            _ => None,
        })
        .collect();
    assert_eq!(tests.len(), 1, "{}", run.stderr);
    assert_eq!(tests[0].test, "doubled(x + 1) == result + 2");
    assert_eq!(tests[0].outcome, Pass);
}

#[test]
fn without_invite_config_the_working_directory_s_invite_toml_is_read() {
    // No $INVITE_CONFIG, and the scenario's directory as the working directory. Invite reads
    // its configuration at the first instrumented call, so the file written here is found.
    let run = scenario_unconfigured(here!(), || {
        std::fs::write(
            "invite.toml",
            format!("{EVERY_CALL}\nlog = \"log.jsonl\"\n"),
        )
        .unwrap();
        doubled(4);
        assert!(invite::wait_idle(WAIT));
    });
    run.assert_success();
    assert_eq!(
        run.outcomes_of("doubled(x + 1) == result + 2"),
        vec![Pass],
        "{}",
        run.describe()
    );
}

#[invite::metamorphic(never_sampled(x + 1) == result + 1)]
fn never_sampled(x: u64) -> u64 {
    x
}

/// Slow on odd inputs, which only its follow-ups get: each run stays alive for 30 ms.
#[invite::metamorphic(slow_on_odd(x + 1) == result + 2)]
fn slow_on_odd(x: u64) -> u64 {
    if x % 2 == 1 {
        std::thread::sleep(Duration::from_millis(30));
    }
    2 * x
}

#[test]
fn a_site_at_rho_zero_is_not_counted_and_stats_describe_the_process() {
    // The children's CPU time is charged (and reported) in full; the overhead cap is off.
    let config =
        "default_rho = 1.0\nmax_concurrent = 8\nmax_overhead = 1.0\nchild_cpu_charge = 1.0\n\
                  [functions.\"scenarios::config_keys::never_sampled\"]\nrho = 0.0";
    let run = scenario(here!(), config, || {
        for i in 0..1000 {
            never_sampled(i);
        }
        // One at a time: no call finds the slots taken, so every one is sampled.
        // While each run is alive the program writes to 64 pages it shares with it.
        let mut pages = vec![0u8; 64 * 4096];
        for i in 0..20 {
            slow_on_odd(2 * i);
            for page in pages.chunks_mut(4096) {
                // SAFETY: a write within the slice.
                unsafe { std::ptr::write_volatile(&mut page[0], i as u8 + 1) };
            }
            assert!(invite::wait_idle(WAIT));
        }
    });
    run.assert_success();
    let stats = run.final_stats();
    let site = |name: &str| {
        let name = format!("scenarios::config_keys::{name}");
        stats.sites.iter().find(|s| s.site == name)
    };
    assert!(
        site("never_sampled").is_none_or(|s| s.calls == 0 && s.runs == 0),
        "{stats:?}"
    );
    // Every call of a site at ρ = 1 is a sampling point; the last interval is not yet counted.
    let slow = site("slow_on_odd").unwrap();
    assert!((19..=20).contains(&slow.calls), "{slow:?}");
    assert_eq!(slow.runs, 20, "{slow:?}");
    // Twenty forks: the program's own writes fault on shared pages, the children use CPU, and
    // the program has a resident size.
    assert!(stats.cow_faults > 0, "{stats:?}");
    assert!(stats.children_share > 0.0, "{stats:?}");
    assert!((1.0..24_576.0).contains(&stats.resident_mib), "{stats:?}");
}

#[test]
fn the_configuration_is_read_once_and_the_start_record_says_what_took_effect() {
    let run = scenario(here!(), EVERY_CALL, || {
        println!("{}", std::process::id());
        doubled(1);
        assert!(invite::wait_idle(WAIT));
        // Changed on disk after start-up: nothing changes for this process.
        let config = std::env::var("INVITE_CONFIG").unwrap();
        std::fs::write(&config, "enabled = false\ndefault_rho = 0.0\n").unwrap();
        doubled(2);
        assert!(invite::wait_idle(WAIT));
    });
    run.assert_success();
    assert_eq!(
        run.outcomes_of("doubled(x + 1) == result + 2"),
        vec![Pass, Pass],
        "{}",
        run.describe()
    );
    let start = run
        .records()
        .into_iter()
        .find_map(|r| match r {
            Record::Start(s) => Some(s),
            _ => None,
        })
        .unwrap();
    assert_eq!(start.instance.pid.to_string(), run.stdout.trim());
    assert_eq!(start.instance.host, invite::record::hostname());
    let exe = std::env::current_exe().unwrap();
    assert_eq!(start.instance.exe, exe.display().to_string());
    assert_eq!(start.config["default_rho"], 1.0);
    assert_eq!(start.config["max_concurrent"], 8);
    let site = start
        .sites
        .iter()
        .find(|s| s.name == "scenarios::config_keys::doubled")
        .unwrap();
    assert_eq!(
        (site.file.as_str(), site.line),
        ("tests/scenarios/config_keys.rs", 16)
    );
    assert_eq!(site.rho, 1.0);
    assert_eq!(site.tests, ["doubled(x + 1) == result + 2"]);
}

#[test]
fn the_log_is_appended_to_never_truncated() {
    const EARLIER: &str = r#"{"v":1,"kind":"an earlier run's line"}"#;
    let run = scenario(here!(), EVERY_CALL, || {
        // The log exists before invite opens it, at the first instrumented call.
        std::fs::write(scenario_dir().join("log.jsonl"), format!("{EARLIER}\n")).unwrap();
        doubled(4);
        assert!(invite::wait_idle(WAIT));
    });
    run.assert_success();
    assert_eq!(run.log[0], EARLIER, "{}", run.describe());
    let tests: Vec<_> = run.log[1..]
        .iter()
        .filter_map(|l| match Record::from_line(l) {
            Ok(Record::Test(t)) => Some(t.outcome),
            _ => None,
        })
        .collect();
    assert_eq!(tests, vec![Pass], "{}", run.describe());
}

#[test]
fn an_empty_invite_config_counts_as_unset() {
    let run = scenario_with(here!(), "", &[("INVITE_CONFIG", "")], || {
        std::env::set_current_dir(scenario_dir()).unwrap();
        std::fs::write(
            "invite.toml",
            format!("{EVERY_CALL}\nlog = \"log.jsonl\"\n"),
        )
        .unwrap();
        doubled(4);
        assert!(invite::wait_idle(WAIT));
    });
    run.assert_success();
    assert_eq!(
        run.outcomes_of("doubled(x + 1) == result + 2"),
        vec![Pass],
        "{}",
        run.describe()
    );
}

/// Off by a hundredth: a relation tolerant to 2% holds, one at the default 1e-6 does not.
#[invite::metamorphic(rough(x * 2.0) == result * 2.0)]
fn rough(x: f64) -> f64 {
    if x > 10.0 {
        x * 1.01
    } else {
        x
    }
}

#[invite::metamorphic(exact_rough(x * 2.0) == result * 2.0)]
fn exact_rough(x: f64) -> f64 {
    rough(x)
}

#[test]
fn a_site_s_tolerance_is_used_by_its_relations() {
    let config =
        format!("{EVERY_CALL}\n[functions.\"scenarios::config_keys::rough\"]\ntolerance = 0.02");
    let run = scenario(here!(), &config, || {
        rough(8.0);
        exact_rough(8.0);
        assert!(invite::wait_idle(WAIT));
    });
    run.assert_success();
    let t = &run.tests_of("rough(x * 2.0) == result * 2.0")[0];
    assert_eq!(t.outcome, Pass, "{t:?}");
    assert!(
        t.detail
            .as_deref()
            .unwrap_or_default()
            .contains("tolerance 2e-2"),
        "{t:?}"
    );
    assert_eq!(
        run.outcomes_of("exact_rough(x * 2.0) == result * 2.0"),
        vec![Fail]
    );
}

#[invite::in_vivo(test = allocates)]
fn greedy(x: u64) -> u64 {
    x
}

#[invite::in_vivo(test = allocates)]
fn greedy_too(x: u64) -> u64 {
    x
}

/// 512 MiB: beyond a 256 MiB allowance, and fine without one.
fn allocates(_: &u64) -> bool {
    let v = vec![1u8; 512 << 20];
    v.iter().step_by(1 << 20).count() == 512
}

#[test]
fn a_site_s_memory_mb_limits_its_tests_only() {
    let config = format!(
        "{EVERY_CALL}\ntimeout_ms = 60000\n\
         [functions.\"scenarios::config_keys::greedy\"]\nmemory_mb = 256"
    );
    let run = scenario(here!(), &config, || {
        greedy(1);
        greedy_too(1);
        assert!(invite::wait_idle(WAIT));
    });
    run.assert_success();
    let outcomes: Vec<_> = run
        .tests()
        .iter()
        .map(|t| (t.site.clone(), t.outcome))
        .collect();
    assert!(
        outcomes.contains(&("scenarios::config_keys::greedy".to_string(), Error)),
        "{outcomes:?}"
    );
    assert!(
        outcomes.contains(&("scenarios::config_keys::greedy_too".to_string(), Pass)),
        "{outcomes:?}"
    );
}

#[invite::in_vivo(test = anything, dedup = true)]
fn remembered(x: u64) -> u64 {
    x
}

fn anything(_: &u64) -> bool {
    true
}

/// Calls `remembered` with 300 distinct states, as the scenario `name`, and returns the calls
/// the filter took for seen.
fn false_seen(name: &str, config: &str) -> u64 {
    let run = scenario(name, config, || {
        for i in 0..300 {
            remembered(i);
            assert!(invite::wait_idle(WAIT));
        }
    });
    run.assert_success();
    let stats = run.final_stats();
    let site = stats
        .sites
        .iter()
        .find(|s| s.site == "scenarios::config_keys::remembered")
        .unwrap();
    assert_eq!(site.runs + site.skipped.dedup, 300, "{site:?}");
    site.skipped.dedup
}

#[test]
fn a_small_filter_takes_new_states_for_seen_ones() {
    // With the default 1 MiB, 300 states are told apart (a false seen has a chance of about
    // 1e-28); a 64-byte filter, one block, fills up within a few hundred.
    let name = here!();
    assert_eq!(false_seen(name, EVERY_CALL), 0);
    let global = false_seen(name, &format!("{EVERY_CALL}\ndedup_bytes = 64"));
    assert!(global > 100, "{global} of 300 taken for seen");
    let site = false_seen(
        name,
        &format!(
            "{EVERY_CALL}\n[functions.\"scenarios::config_keys::remembered\"]\ndedup_bytes = 64"
        ),
    );
    assert!(site > 100, "{site} of 300 taken for seen");
}

/// A test that spends 50 ms of CPU time, however long that takes on a busy machine.
#[invite::in_vivo(test = burns_cpu)]
fn busy(x: u64) -> u64 {
    x
}

/// This thread's CPU time.
fn thread_cpu() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec it is given.
    assert_eq!(
        // SAFETY: clock_gettime writes the timespec it is given.
        unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) },
        0
    );
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// The CPU time each test of `busy` spends, at least.
const BURN: Duration = Duration::from_millis(50);

fn burns_cpu(x: &u64) -> bool {
    let started = thread_cpu();
    let mut h = *x;
    while thread_cpu() - started < BURN {
        h = h.wrapping_mul(6364136223846793005).wrapping_add(1);
    }
    std::hint::black_box(h);
    true
}

/// Calls of `busy` per scenario.
const BUSY_CALLS: u64 = 5;

/// [`BUSY_CALLS`] calls, each waited for, as the scenario `name`: how many were tested, and
/// the test children's CPU time the collector charged to the overhead budget.
fn charged(name: &str, charge: &str, hide_runs: bool) -> (u64, Duration) {
    // No cap refuses a call: every call is tested, whatever the charge, and what is judged is
    // what the budget was charged, which a busy machine does not change (a test's CPU time is
    // its CPU time however long it waited for a CPU).
    let config = format!(
        "default_rho = 1.0\nmax_overhead = 1.0\nmax_concurrent = 8\nwhen_busy = \"wait\"\n\
         hide_runs = {hide_runs}\nchild_cpu_charge = {charge}"
    );
    let run = scenario(name, &config, || {
        for i in 0..BUSY_CALLS {
            busy(i);
            assert!(invite::wait_idle(WAIT));
        }
    });
    run.assert_success();
    let stats = run.final_stats();
    let site = stats
        .sites
        .iter()
        .find(|s| s.site == "scenarios::config_keys::busy")
        .unwrap();
    let charged = Duration::from_secs_f64(stats.children_share * stats.elapsed_s);
    (site.runs, charged)
}

#[test]
fn child_cpu_charge_counts_the_tests_cpu_time_against_max_overhead() {
    // Runs hidden from the program's child handling report their own time; plain forks' time
    // is the program's children's: both are charged.
    let name = here!();
    let spent = BURN * BUSY_CALLS as u32;
    for hide_runs in [true, false] {
        let (runs, full) = charged(name, "1.0", hide_runs);
        assert_eq!(runs, BUSY_CALLS, "hide_runs = {hide_runs}");
        // Each test's CPU time, and its run's own besides (a few milliseconds at most).
        assert!(
            full >= spent && full < spent * 4,
            "charged {full:?} for tests that spent {spent:?} (hide_runs = {hide_runs})"
        );
        let (runs, half) = charged(name, "0.5", hide_runs);
        assert_eq!(runs, BUSY_CALLS, "hide_runs = {hide_runs}");
        assert!(
            half >= spent / 2 && half < spent * 2,
            "charged {half:?} at a half share (hide_runs = {hide_runs})"
        );
        let (runs, none) = charged(name, "0.0", hide_runs);
        assert_eq!(runs, BUSY_CALLS, "hide_runs = {hide_runs}");
        assert_eq!(none, Duration::ZERO, "hide_runs = {hide_runs}");
    }
}
