//! No test process outlives its deadline or the program, whatever it tries. Checked from the
//! outside: the processes themselves are looked up in /proc after the program is gone.

use std::time::{Duration, Instant};

use crate::support::{self, scenario, scenario_dir};
use invite::record::Outcome::*;

const CONFIG: &str = "default_rho = 1.0\nmax_overhead = 1.0\nchild_cpu_charge = 0.0";

#[invite::in_vivo(
    test = clears_its_death_signal,
    test = kills_its_supervisor,
    test = leaves_the_session,
    test = moves_to_another_process_group,
)]
fn escape_site(x: u64) -> u64 {
    x
}

/// The tests that hang, on a site with a short deadline of its own: the others keep the
/// scenario's, so that a busy machine cannot turn their verdict into a timeout.
#[invite::in_vivo(
    timeout_ms = 300,
    test = ignores_its_alarm_and_spins,
    test = blocks_every_signal_and_spins,
)]
fn spin_site(x: u64) -> u64 {
    x
}

fn clears_its_death_signal(_: &u64) -> bool {
    // SAFETY: prctl with plain integers; the call is under test.
    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, 0) == 0 }
}

fn kills_its_supervisor(_: &u64) -> bool {
    // SAFETY: kill with plain integers; the call is under test.
    unsafe { libc::kill(libc::getppid(), libc::SIGKILL) == 0 }
}

fn leaves_the_session(_: &u64) -> bool {
    // SAFETY: setsid takes nothing.
    unsafe { libc::setsid() >= 0 }
}

fn moves_to_another_process_group(_: &u64) -> bool {
    // SAFETY: setpgid with plain integers.
    unsafe { libc::setpgid(0, 0) == 0 }
}

fn ignores_its_alarm_and_spins(_: &u64) -> bool {
    // SAFETY: ignoring a signal in this process.
    unsafe { libc::signal(libc::SIGALRM, libc::SIG_IGN) };
    let mut x = 0u64;
    loop {
        x = std::hint::black_box(x.wrapping_add(1));
    }
}

fn blocks_every_signal_and_spins(_: &u64) -> bool {
    // SAFETY: a full mask for this thread.
    unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_SETMASK, &all, std::ptr::null_mut());
    }
    let mut x = 0u64;
    loop {
        x = std::hint::black_box(x.wrapping_add(1));
    }
}

#[test]
fn a_test_cannot_escape_its_supervisor_or_its_deadline() {
    let run = scenario(here!(), CONFIG, || {
        escape_site(1);
        assert!(invite::wait_idle(Duration::from_secs(30)));
        spin_site(1);
        assert!(invite::wait_idle(Duration::from_secs(30)));
        // Every run and test process is gone.
        assert!(
            support::eventually(Duration::from_secs(5), || support::invite_processes()
                .is_empty()),
            "processes left: {:?}",
            support::invite_processes()
        );
        println!("no children");
    });
    run.assert_success();
    assert_eq!(run.stdout, "no children\n", "{}", run.describe());
    for (test, outcome) in [
        ("clears_its_death_signal", Blocked),
        ("kills_its_supervisor", Blocked),
        ("leaves_the_session", Blocked),
        ("moves_to_another_process_group", Blocked),
        ("ignores_its_alarm_and_spins", Timeout),
        ("blocks_every_signal_and_spins", Timeout),
    ] {
        assert_eq!(
            run.outcomes_of(test),
            vec![outcome],
            "{test}: {}",
            run.describe()
        );
    }
}

#[invite::in_vivo(
    timeout_ms = 60000,
    test = sleeps_a_minute,
    test = sleeps_in_threads,
    test = spins_with_signals_blocked,
)]
fn long_site(x: u64) -> u64 {
    x
}

fn sleeps_a_minute(_: &u64) -> bool {
    std::thread::sleep(Duration::from_secs(60));
    true
}

fn sleeps_in_threads(_: &u64) -> bool {
    let t: Vec<_> = (0..4)
        .map(|_| std::thread::spawn(|| std::thread::sleep(Duration::from_secs(60))))
        .collect();
    t.into_iter().all(|h| h.join().is_ok())
}

fn spins_with_signals_blocked(x: &u64) -> bool {
    blocks_every_signal_and_spins(x)
}

fn alive(pid: i32) -> bool {
    support::process_exists(pid) && support::process_state(pid) != Some('Z')
}

#[test]
fn when_the_program_is_killed_its_tests_die_with_it() {
    // This program handles no children: its runs are plain forks.
    dies_with_the_program(here!(), CONFIG);
}

#[test]
fn when_the_program_is_killed_its_hidden_runs_and_their_tests_die_with_it() {
    let config = format!("{CONFIG}\nhide_runs = \"always\"");
    dies_with_the_program(here!(), &config);
}

/// Kills the program while a run's tests would live a minute, and checks that they end at once.
fn dies_with_the_program(name: &str, config: &str) {
    let run = scenario(name, config, || {
        // Three sampled calls at once would exceed the default concurrency on small machines:
        // one call runs all three long tests, one after the other in the same run.
        long_site(1);
        let me = std::process::id() as i32;
        assert!(support::eventually(Duration::from_secs(10), || {
            support::invite_processes().len() >= 2
        }));
        let pids: Vec<String> = support::invite_processes()
            .iter()
            .map(|p| p.to_string())
            .collect();
        std::fs::write(scenario_dir().join("pids"), pids.join(" ")).unwrap();
        // SAFETY: the program ends itself as a crash or an operator's kill -9 would.
        unsafe { libc::kill(me, libc::SIGKILL) };
    });
    assert_eq!(run.signal(), Some(libc::SIGKILL), "{}", run.describe());
    let pids: Vec<i32> = std::fs::read_to_string(run.dir.join("pids"))
        .unwrap()
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    assert!(pids.len() >= 2, "a run and its test process: {pids:?}");
    let started = Instant::now();
    // The tests would live a minute; the program's death must end them at once. The bound is
    // far below the tests' own deadline and far above any scheduling delay.
    let gone = support::eventually(Duration::from_secs(10), || pids.iter().all(|&p| !alive(p)));
    eprintln!(
        "processes of the killed program gone after {:?}",
        started.elapsed()
    );
    assert!(
        gone,
        "still alive: {:?}",
        pids.iter().filter(|&&p| alive(p)).collect::<Vec<_>>()
    );
}
