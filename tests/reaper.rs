//! Hidden runs rely on whoever adopts them to reap them. Under an adopter that never does, the
//! zombies stop piling up once invite sees it: with the default `hide_runs = "always"` later
//! calls are not tested (a plain fork could reach the program's own child handling), and said
//! so, with the fix.
//!
//! The test process makes itself the child subreaper of the scenario and reaps nothing while it
//! runs, as a PID 1 that never waits would; the scenario counts the zombies it leaves with that
//! adopter, from the adopter's side of /proc. One test per binary: being a subreaper is a
//! property of the whole test process.
//!
//! Linux only: the portable build (`--cfg invite_portable`) has no sandbox to test.
// A test stands in for a program, hostile ones included: it forks, signals, maps memory and
// opens descriptors the way programs do, with raw system calls (each with the reason it is sound).
#![allow(unsafe_code)]
#![cfg(not(invite_portable))]

mod support;

use std::time::{Duration, Instant};

use support::scenario;

#[invite::metamorphic(twice(x) == x * 2)]
fn twice(x: u64) -> u64 {
    x * 2
}

/// Zombies whose parent is `adopter`.
fn zombies_of(adopter: i32) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return false;
            };
            let Some(after) = stat.rfind(')') else {
                return false;
            };
            let mut fields = stat[after + 1..].split_whitespace();
            fields.next() == Some("Z") && fields.next() == Some(adopter.to_string().as_str())
        })
        .count()
}

fn calls_for(span: Duration, from: u64) -> u64 {
    let started = Instant::now();
    let mut i = from;
    while started.elapsed() < span {
        twice(i);
        i += 1;
        std::thread::sleep(Duration::from_millis(2));
    }
    i - from
}

#[test]
fn under_an_adopter_that_never_reaps_runs_stop_leaving_zombies() {
    if std::env::var_os("INVITE_SCENARIO").is_none() {
        // SAFETY: prctl with PR_SET_CHILD_SUBREAPER only sets a flag of this process.
        assert_eq!(
            // SAFETY: a flag of this process.
            unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) },
            0
        );
    }
    // Runs hidden from the start (the default), although this program handles no children.
    let config = "default_rho = 1.0\nmax_concurrent = 2\nmax_overhead = 1.0\nwhen_busy = \"wait\"";
    let run = scenario(here!(), config, || {
        // SAFETY: getppid has no preconditions.
        let adopter = unsafe { libc::getppid() };
        // Runs until invite has had time to see that nobody reaps, and its verdict.
        let grace = invite::__private::sandbox::GRACE;
        let first = calls_for(grace + Duration::from_millis(1500), 0);
        let before = zombies_of(adopter);
        let second = calls_for(Duration::from_secs(1), first);
        assert!(invite::wait_idle(Duration::from_secs(20)));
        let after = zombies_of(adopter);
        println!("{first} {before} {second} {after}");
    });
    // Whatever happened, the zombies adopted here are reaped now.
    // SAFETY: waitpid on any child, without blocking.
    while unsafe { libc::waitpid(-1, std::ptr::null_mut(), libc::WNOHANG) } > 0 {}
    run.assert_success();
    let figures: Vec<u64> = run
        .stdout
        .split_whitespace()
        .map(|n| n.parse().unwrap())
        .collect();
    let [first, before, second, after] = figures[..] else {
        panic!("{}", run.describe())
    };
    assert!(
        before > 0,
        "the setup left no zombie: the adopter reaped ({})",
        run.describe()
    );
    assert!(
        before <= invite::__private::sandbox::UNCONFIRMED,
        "{before} zombies: more runs were hidden than may be before the adopter is known"
    );
    assert!(first > 0 && second > 0);
    assert_eq!(
        after,
        before,
        "runs after the verdict left zombies ({})",
        run.describe()
    );
    let tests = run.tests_of("twice(x) == x * 2").len() as u64;
    let stats = run.final_stats();
    let site = stats
        .sites
        .iter()
        .find(|s| s.site.ends_with("twice"))
        .unwrap();
    // Every call is tested until the verdict, none after: none is lost uncounted.
    assert_eq!(tests + site.skipped.unhidden, first + second, "{site:?}");
    assert!(
        site.skipped.unhidden >= second,
        "no call after the verdict is tested: {site:?}"
    );
    assert!(tests > 0, "{site:?}");
    eprintln!("{first} calls left {before} zombies; {second} calls after the verdict, none");
    assert!(
        run.stderr
            .contains("Sampled calls are no longer tested (counted as unhidden"),
        "{}",
        run.stderr
    );
    assert_eq!(
        run.stderr.matches("were still unreaped zombies").count(),
        1,
        "{}",
        run.stderr
    );
}
