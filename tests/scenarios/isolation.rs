//! The host is never changed by a test: its memory, its output, its other threads and its own
//! children. Tests that crash or hang are recorded, never felt. Every hazard of forking a
//! multithreaded process is exercised for real.

use std::io::Write;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};
use std::time::Duration;

use crate::support::{self, child_pids, scenario, scenario_dir, scenario_with};
use invite::record::Outcome::*;

const WAIT: Duration = Duration::from_secs(20);

static SCRIBBLED: AtomicU64 = AtomicU64::new(7);
static SHARED: Mutex<Vec<u64>> = Mutex::new(Vec::new());

#[invite::in_vivo(test = scribble_everywhere)]
fn record_reading(readings: &mut Vec<u64>, x: u64) {
    readings.push(x);
}

/// Changes everything it can reach and prints on every channel.
fn scribble_everywhere(readings: &mut Vec<u64>, x: &u64) {
    SCRIBBLED.store(999, Ordering::SeqCst);
    readings.clear();
    readings.extend([666; 100]);
    SHARED.lock().unwrap().push(666);
    println!("TEST-PRINTED {x}");
    eprintln!("TEST-ERR {x}");
    // SAFETY: writing a static buffer to descriptor 1.
    unsafe { libc::write(1, b"RAW-WRITE\n".as_ptr().cast(), 10) };
}

#[test]
fn parent_memory_statics_and_output_are_untouched_by_hundreds_of_tests() {
    // Every one of the 300 calls must run: on a busy machine the children's CPU time, charged
    // in full, could make the budget refuse a few.
    let config = "default_rho = 1.0\nmax_overhead = 1.0\nchild_cpu_charge = 0.0";
    let run = scenario(here!(), config, || {
        // Unflushed output at fork time: a child that flushed its copy would repeat it.
        print!("before-");
        let mut readings = Vec::new();
        for i in 0..300 {
            record_reading(&mut readings, i);
            assert!(invite::wait_idle(WAIT));
        }
        assert_eq!(readings, (0..300).collect::<Vec<_>>());
        assert_eq!(SCRIBBLED.load(Ordering::SeqCst), 7);
        assert!(SHARED.lock().unwrap().is_empty());
        println!("after");
    });
    run.assert_success();
    assert_eq!(run.stdout, "before-after\n", "{}", run.describe());
    assert!(!run.stderr.contains("TEST-ERR"), "{}", run.stderr);
    let outcomes = run.outcomes_of("scribble_everywhere");
    assert_eq!(outcomes.len(), 300);
    assert!(outcomes.iter().all(|o| *o == Pass));
}

#[invite::in_vivo(
    test = panics,
    test = aborts,
    test = segfaults,
    test = exits,
    test = passes,
    test = overflows_its_stack,
    test = panics_while_unwinding,
    test = catches_the_signal_of_a_host_handler,
    test = panics_again_and_again,
)]
fn hostile(x: u32) -> u32 {
    x + 1
}

/// The test that hangs has a site of its own, with a short deadline: the others, which end by
/// themselves, keep the scenario's, however long a busy machine keeps them waiting for a CPU.
#[invite::in_vivo(test = spins_forever, timeout_ms = 300)]
fn hangs(x: u32) -> u32 {
    x + 1
}

fn panics(x: &u32) -> bool {
    panic!("test panicked on {x}");
}

/// A drop that panics while the first panic unwinds: the process aborts before any verdict,
/// and the first panic's message must still reach the record.
fn panics_while_unwinding(x: &u32) -> bool {
    struct PanicsOnDrop;
    impl Drop for PanicsOnDrop {
        fn drop(&mut self) {
            panic!("second panic while unwinding");
        }
    }
    let _guard = PanicsOnDrop;
    panic!("first panic on {x}");
}

/// The program has a SIGTERM handler; in the test process the signal must have its default
/// action again (the host's handler is not the test's to run), so this test dies of it.
fn catches_the_signal_of_a_host_handler(_: &u32) -> bool {
    // SAFETY: raising a signal in this process.
    unsafe { libc::raise(libc::SIGTERM) };
    true
}

/// Many caught panics, then an abort: the record keeps the first messages, within a bound.
fn panics_again_and_again(_: &u32) -> bool {
    for i in 0..200 {
        let _ = std::panic::catch_unwind(|| panic!("panic number {i}"));
    }
    std::process::abort();
}

extern "C" fn counts_sigterm(_: libc::c_int) {}

fn aborts(_: &u32) -> bool {
    std::process::abort();
}

fn segfaults(_: &u32) -> bool {
    // SAFETY: deliberately not: the point is a real SIGSEGV in the test process.
    unsafe { std::ptr::null_mut::<u8>().write_volatile(1) };
    true
}

fn spins_forever(_: &u32) -> bool {
    loop {
        std::hint::spin_loop();
    }
}

fn exits(_: &u32) -> bool {
    std::process::exit(3);
}

/// Recurses without end, a page a frame: the guard below the stack must stop it.
#[allow(unconditional_recursion)]
fn overflows_its_stack(x: &u32) -> bool {
    let frame = std::hint::black_box([*x as u8; 4096]);
    overflows_its_stack(&u32::from(frame[17])) && frame[0] == 0
}

fn passes(x: &u32) -> bool {
    hostile(*x) == x + 1
}

#[test]
fn crashing_and_hanging_tests_are_recorded_and_the_parent_carries_on() {
    let run = scenario(
        here!(),
        "default_rho = 1.0\nmax_concurrent = 2\nmax_overhead = 1.0\nchild_cpu_charge = 0.0",
        || {
            // SAFETY: installing a handler that does nothing.
            unsafe {
                libc::signal(
                    libc::SIGTERM,
                    counts_sigterm as *const () as libc::sighandler_t,
                )
            };
            assert_eq!(hostile(1), 2);
            assert_eq!(hangs(1), 2);
            assert!(invite::wait_idle(WAIT));
            assert_eq!(hostile(2), 3);
            assert_eq!(hangs(2), 3);
            println!("parent alive");
        },
    );
    run.assert_success();
    assert_eq!(run.stdout, "parent alive\n");
    let detail = |test: &str| {
        let t = &run.tests_of(test)[0];
        (t.outcome, t.detail.clone().unwrap_or_default())
    };
    let (o, d) = detail("panics");
    assert_eq!(o, Error);
    assert!(
        d.contains("test panicked on 1") && d.contains("isolation.rs"),
        "{d}"
    );
    let (o, d) = detail("aborts");
    assert_eq!(o, Error);
    assert!(d.contains("SIGABRT"), "{d}");
    let (o, d) = detail("segfaults");
    assert_eq!(o, Error);
    assert!(d.contains("SIGSEGV"), "{d}");
    let (o, d) = detail("spins_forever");
    assert_eq!(o, Timeout);
    assert!(d.contains("300 ms"), "{d}");
    let (o, d) = detail("exits");
    assert_eq!(o, Error);
    assert!(d.contains("status 3"), "{d}");
    assert!(d.contains("(did the test call process::exit?)"), "{d}");
    let (o, d) = detail("panics_while_unwinding");
    assert_eq!(o, Error);
    assert!(d.contains("first panic on 1"), "{d}");
    assert!(
        d.contains("; then ") && d.contains("second panic while unwinding"),
        "{d}"
    );
    assert!(d.contains("SIGABRT"), "{d}");
    let (o, d) = detail("panics_again_and_again");
    assert_eq!(o, Error);
    assert!(
        d.starts_with("panicked at") && d.contains("panic number 0;"),
        "{d}"
    );
    // Later messages follow the first, in order, until the bound.
    assert!(d.contains("; then ") && d.contains("panic number 1"), "{d}");
    assert!(
        d.len() < 4096 && !d.contains("panic number 199"),
        "{} bytes",
        d.len()
    );
    let (o, d) = detail("catches_the_signal_of_a_host_handler");
    assert_eq!(o, Error);
    assert!(d.contains("SIGTERM"), "{d}");
    let (o, d) = detail("overflows_its_stack");
    assert_eq!(o, Error);
    assert!(d.contains("SIGSEGV"), "{d}");
    // A test that calls the instrumented function itself does not fork again.
    assert!(run.outcomes_of("passes").iter().all(|o| *o == Pass));
    assert_eq!(run.tests().len(), 20, "{}", run.describe());
}

/// A test that allocates and frees in every size class, as most code does.
#[invite::in_vivo(test = allocates_freely, timeout_ms = 10000)]
fn build_index(n: u64) -> u64 {
    n
}

fn allocates_freely(n: &u64) -> bool {
    let tables: Vec<Vec<u64>> = (1..=64).map(|k| (0..k * 37 + *n).collect()).collect();
    let text: String = tables.iter().map(|t| format!("{};", t.len())).collect();
    tables.len() == 64 && text.len() > 64
}

#[test]
fn tests_allocate_freely_while_another_thread_of_the_program_hammers_the_allocator() {
    // Another thread allocates all the time, so a fork often lands while it holds an
    // allocator lock. glibc's fork takes those locks around the copy, so the child's heap is
    // usable: no test may hang on it (a hang would be a timeout). One arena for every thread,
    // so the lock the churning thread holds is the one the test needs.
    let config = "default_rho = 1.0\nmax_overhead = 1.0\nchild_cpu_charge = 0.0";
    let env = [("MALLOC_ARENA_MAX", "1")];
    let run = scenario_with(here!(), config, &env, || {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let churners: Vec<_> = (0..1)
            .map(|t| {
                let stop = std::sync::Arc::clone(&stop);
                std::thread::spawn(move || {
                    let mut keep: Vec<Vec<u8>> = Vec::new();
                    let mut i = t;
                    while !stop.load(Ordering::Relaxed) {
                        // Sizes past the per-thread cache, never touched: the time goes to
                        // the allocator itself, under its lock.
                        keep.push(Vec::with_capacity(2048 + (i * 7919) % 60_000));
                        if keep.len() > 32 {
                            keep.swap_remove(i % 32);
                        }
                        i += 1;
                    }
                })
            })
            .collect();
        for n in 0..40 {
            build_index(n);
            assert!(invite::wait_idle(WAIT));
        }
        stop.store(true, Ordering::Relaxed);
        for c in churners {
            c.join().unwrap();
        }
    });
    run.assert_success();
    let outcomes = run.outcomes_of("allocates_freely");
    assert_eq!(outcomes.len(), 40, "{}", run.describe());
    assert!(outcomes.iter().all(|o| *o == Pass), "{outcomes:?}");
}

static LOCK: Mutex<u64> = Mutex::new(0);

// The timeout leaves a loaded machine time to show the stuck test to the host's check below.
#[invite::in_vivo(test = takes_the_lock, timeout_ms = 3000)]
fn add_to_total(x: u64) -> u64 {
    x * 2
}

fn takes_the_lock(x: &u64) -> bool {
    *LOCK.lock().unwrap() += x;
    true
}

#[test]
fn a_lock_held_by_another_thread_at_fork_times_out_and_the_caller_never_waits() {
    let run = scenario(
        here!(),
        "default_rho = 1.0\nmax_overhead = 1.0\nchild_cpu_charge = 0.0",
        || {
            let (locked_tx, locked_rx) = mpsc::channel();
            let (release_tx, release_rx) = mpsc::channel::<()>();
            let holder = std::thread::spawn(move || {
                let guard = LOCK.lock().unwrap();
                locked_tx.send(()).unwrap();
                release_rx.recv().unwrap();
                drop(guard);
            });
            locked_rx.recv().unwrap();
            assert_eq!(add_to_total(21), 42);
            // The call returned while its test is still stuck on the lock in the child (a
            // loaded machine may take a moment to schedule the new process: it cannot end
            // before its timeout, so it is looked for until then).
            assert!(
                support::eventually(Duration::from_secs(3), || {
                    !support::invite_processes().is_empty()
                }),
                "the caller waited for its test child"
            );
            release_tx.send(()).unwrap();
            holder.join().unwrap();
            assert!(invite::wait_idle(WAIT));
            assert_eq!(*LOCK.lock().unwrap(), 0);
        },
    );
    run.assert_success();
    let t = &run.tests_of("takes_the_lock")[0];
    assert_eq!(t.outcome, Timeout);
    assert!(
        t.detail.as_deref().unwrap().contains("lock"),
        "{:?}",
        t.detail
    );
}

#[invite::in_vivo(test = lingers)]
fn watched(x: u64) -> u64 {
    x
}

/// Stays alive until the host has looked at its run and test process from outside, and says
/// it may go (a file in the scenario's directory), or 20 s have passed.
fn lingers(_: &u64) -> bool {
    let release = scenario_dir().join("release");
    let started = std::time::Instant::now();
    while !release.exists() && started.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(10));
    }
    release.exists()
}

/// A process's name, process group, session and controlling terminal (`tty_nr`), from /proc.
fn identity(pid: i32) -> Option<(String, i32, i32, i32)> {
    let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).ok()?;
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = stat.rfind(')')?;
    // After the name: state, ppid, pgrp, session, tty_nr.
    let fields: Vec<i32> = stat[after + 1..]
        .split_whitespace()
        .skip(2)
        .take(3)
        .map(|f| f.parse().ok())
        .collect::<Option<_>>()?;
    Some((comm.trim_end().to_string(), fields[0], fields[1], fields[2]))
}

#[test]
fn runs_and_tests_are_named_and_leave_the_program_s_session_and_terminal() {
    let run = scenario(
        here!(),
        "default_rho = 1.0\nmax_overhead = 1.0\nchild_cpu_charge = 0.0\ntimeout_ms = 20000",
        || {
            // Give the program a session and a controlling terminal of its own, as a program
            // started from a shell has: a run that stayed in them would get the terminal's
            // signals and could read from it.
            // SAFETY: plain system calls on descriptors this process opens; ptsname_r writes
            // at most the buffer's length.
            let terminal = unsafe {
                assert!(libc::setsid() > 0, "setsid");
                let master = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY);
                assert!(master >= 0, "posix_openpt");
                assert_eq!(libc::grantpt(master), 0);
                assert_eq!(libc::unlockpt(master), 0);
                let mut name = [0 as libc::c_char; 128];
                assert_eq!(libc::ptsname_r(master, name.as_mut_ptr(), name.len()), 0);
                // A session leader's first terminal opened without O_NOCTTY becomes its own.
                let slave = libc::open(name.as_ptr(), libc::O_RDWR);
                assert!(slave >= 0, "open the terminal");
                (master, slave)
            };
            let me = identity(std::process::id() as i32).unwrap();
            assert_ne!(me.3, 0, "the program has a controlling terminal: {me:?}");
            watched(1);
            let mut seen = Vec::new();
            assert!(
                support::eventually(Duration::from_secs(10), || {
                    seen = support::invite_processes()
                        .into_iter()
                        .filter_map(identity)
                        .collect();
                    let names: std::collections::BTreeSet<&str> =
                        seen.iter().map(|p| p.0.as_str()).collect();
                    names == ["invite run", "invite test"].into()
                }),
                "a run named `invite run` and its test process named `invite test`: {seen:?}"
            );
            std::fs::write(scenario_dir().join("release"), "").unwrap();
            for p in &seen {
                assert_ne!(
                    p.1, me.1,
                    "shares the program's process group: {p:?} {me:?}"
                );
                assert_ne!(p.2, me.2, "shares the program's session: {p:?} {me:?}");
                assert_eq!(p.3, 0, "has a controlling terminal: {p:?}");
            }
            assert!(invite::wait_idle(WAIT));
            // SAFETY: closing the descriptors opened above; the hang-up that closing the
            // program's own terminal sends it is ignored.
            unsafe {
                libc::signal(libc::SIGHUP, libc::SIG_IGN);
                libc::close(terminal.1);
                libc::close(terminal.0);
            }
        },
    );
    run.assert_success();
    assert_eq!(run.outcomes_of("lingers"), vec![Pass], "{}", run.describe());
}

/// The CPUs a process may run on, from /proc (`Cpus_allowed_list`).
fn allowed_cpus(pid: i32) -> Option<String> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .map(|v| v.trim().to_string())
}

#[test]
fn a_program_confined_to_one_cpu_keeps_its_runs_and_tests_there() {
    let run = scenario(
        here!(),
        "default_rho = 1.0\nmax_overhead = 1.0\nchild_cpu_charge = 0.0\ntimeout_ms = 20000",
        || {
            // SAFETY: a CPU set on the stack, for this process (an operator's taskset -c 0).
            unsafe {
                let mut set: libc::cpu_set_t = std::mem::zeroed();
                libc::CPU_SET(0, &mut set);
                assert_eq!(
                    libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set),
                    0
                );
            }
            watched(2);
            let mut seen = Vec::new();
            assert!(
                support::eventually(Duration::from_secs(10), || {
                    seen = support::invite_processes()
                        .into_iter()
                        .filter_map(|p| Some((identity(p)?.0, allowed_cpus(p)?)))
                        .collect();
                    seen.iter().any(|p| p.0 == "invite test")
                }),
                "no test process seen: {seen:?}"
            );
            std::fs::write(scenario_dir().join("release"), "").unwrap();
            for p in &seen {
                assert_eq!(p.1, "0", "a process left the program's CPU set: {p:?}");
            }
            assert!(invite::wait_idle(WAIT));
        },
    );
    run.assert_success();
    assert_eq!(run.outcomes_of("lingers"), vec![Pass], "{}", run.describe());
}

/// A deadline short enough for the test that waits on the held lock, long enough for the one
/// that does not on a busy machine.
#[invite::in_vivo(test = prints_a_line, timeout_ms = 3000)]
fn prints(x: u64) -> u64 {
    x
}

fn prints_a_line(x: &u64) -> bool {
    println!("from the test {x}");
    true
}

#[test]
fn a_test_that_prints_while_another_thread_held_stdout_times_out_with_the_hint() {
    let run = scenario(
        here!(),
        "default_rho = 1.0\nmax_overhead = 1.0\nchild_cpu_charge = 0.0",
        || {
            let (locked_tx, locked_rx) = mpsc::channel();
            let (release_tx, release_rx) = mpsc::channel::<()>();
            let holder = std::thread::spawn(move || {
                let out = std::io::stdout();
                let guard = out.lock();
                locked_tx.send(()).unwrap();
                release_rx.recv().unwrap();
                drop(guard);
            });
            locked_rx.recv().unwrap();
            prints(1);
            release_tx.send(()).unwrap();
            holder.join().unwrap();
            assert!(invite::wait_idle(WAIT));
            // With stdout free at the fork, the same test passes.
            prints(2);
            assert!(invite::wait_idle(WAIT));
        },
    );
    run.assert_success();
    let tests = run.tests_of("prints_a_line");
    let outcome_of = |x: &str| {
        tests
            .iter()
            .find(|t| t.inputs["x"] == x)
            .unwrap_or_else(|| panic!("no test of x = {x}: {}", run.describe()))
    };
    let held = outcome_of("1");
    assert_eq!(held.outcome, Timeout, "{held:?}");
    let d = held.detail.as_deref().unwrap_or_default();
    assert!(d.contains("another thread may have held that lock"), "{d}");
    assert_eq!(outcome_of("2").outcome, Pass);
    assert!(!run.stdout.contains("from the test"), "{}", run.stdout);
}

#[invite::in_vivo(test = panics_with_a_message)]
fn hooked(x: u64) -> u64 {
    x
}

fn panics_with_a_message(x: &u64) -> bool {
    panic!("the test's own panic on {x}");
}

#[test]
fn the_programs_panic_hook_never_runs_in_a_test() {
    let run = scenario(here!(), "default_rho = 1.0\nmax_overhead = 1.0", || {
        // A program whose panics must never go unseen: its hook aborts.
        std::panic::set_hook(Box::new(|_| std::process::abort()));
        hooked(7);
        assert!(invite::wait_idle(WAIT));
    });
    run.assert_success();
    let t = &run.tests_of("panics_with_a_message")[0];
    assert_eq!(t.outcome, Error, "{t:?}");
    // Invite's hook took the panic: its message and place, not the program's abort.
    let d = t.detail.as_deref().unwrap_or_default();
    assert!(d.contains("the test's own panic on 7"), "{d}");
    assert!(
        d.contains("panicked at tests/scenarios/isolation.rs:"),
        "{d}"
    );
}

/// An argument whose `Debug` writes a file: formatting runs in the run's child, before the
/// filter (a `Debug` only formats, so it is not confined).
struct Noisy;

impl std::fmt::Debug for Noisy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let _ = std::fs::write(
            scenario_dir().join("written-by-debug"),
            std::process::id().to_string(),
        );
        f.write_str("Noisy")
    }
}

#[invite::in_vivo(test = looks_at_noisy)]
fn takes_noisy(n: &Noisy) -> u64 {
    let _ = n;
    1
}

fn looks_at_noisy(_: &Noisy) -> bool {
    std::fs::write(scenario_dir().join("written-by-test"), "x").is_ok()
}

#[test]
fn an_arguments_debug_runs_in_the_run_unfiltered_and_the_test_filtered() {
    let run = scenario(here!(), "default_rho = 1.0\nmax_overhead = 1.0", || {
        takes_noisy(&Noisy);
        assert!(invite::wait_idle(WAIT));
    });
    run.assert_success();
    let t = &run.tests_of("looks_at_noisy")[0];
    assert_eq!(t.outcome, Blocked, "{t:?}");
    assert_eq!(t.inputs["n"], "Noisy");
    // The file names the process that formatted the argument: not the program.
    let writer: u32 = std::fs::read_to_string(run.dir.join("written-by-debug"))
        .unwrap()
        .parse()
        .unwrap();
    let program = run
        .records()
        .into_iter()
        .find_map(|r| match r {
            invite::record::Record::Start(s) => Some(s.instance.pid),
            _ => None,
        })
        .unwrap();
    assert_ne!(writer, program);
    assert!(!run.dir.join("written-by-test").exists());
}

/// The program's open descriptors and whether each is close-on-exec.
fn descriptors() -> Vec<(i32, bool)> {
    std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        // SAFETY: F_GETFD reads a flag; a descriptor closed meanwhile gives -1.
        .filter_map(|fd| {
            // SAFETY: F_GETFD reads a flag; a descriptor closed meanwhile gives -1.
            let flags = unsafe { libc::fcntl(fd, libc::F_GETFD) };
            (flags >= 0).then_some((fd, flags & libc::FD_CLOEXEC != 0))
        })
        .collect()
}

#[test]
fn every_descriptor_invite_opens_in_the_program_is_close_on_exec() {
    let run = scenario(here!(), "default_rho = 1.0\nmax_overhead = 1.0", || {
        let before = descriptors();
        add_to_total(1);
        assert!(invite::wait_idle(WAIT));
        let opened: Vec<(i32, bool)> = descriptors()
            .into_iter()
            .filter(|d| !before.iter().any(|b| b.0 == d.0))
            .collect();
        // The log at least: a check that saw nothing new would prove nothing.
        assert!(!opened.is_empty(), "invite opened no descriptor");
        let inherited: Vec<_> = opened.iter().filter(|d| !d.1).collect();
        assert!(inherited.is_empty(), "not close-on-exec: {inherited:?}");
    });
    run.assert_success();
}

/// A host that counts SIGCHLDs and reaps every child it can, as a process supervisor does,
/// while invite runs 50 runs one after another; then it forks three children of its own.
/// Prints the SIGCHLDs it counted and the pids it reaped while invite ran, and checks that
/// its own children still reached both.
fn host_that_reaps_any_child() {
    // SAFETY: a handler that only counts, installed before any other thread exists.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = count_sigchld as *const () as usize;
        action.sa_flags = libc::SA_RESTART;
        libc::sigaction(libc::SIGCHLD, &action, std::ptr::null_mut());
    }
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let reaped = std::sync::Arc::new(Mutex::new(Vec::new()));
    let waiter = {
        let (stop, reaped) = (std::sync::Arc::clone(&stop), std::sync::Arc::clone(&reaped));
        std::thread::spawn(move || loop {
            let mut status = 0;
            // SAFETY: waiting for any child of this process.
            let pid = unsafe { libc::waitpid(-1, &mut status, 0) };
            if pid > 0 {
                reaped.lock().unwrap().push(pid);
            } else if stop.load(Ordering::SeqCst) {
                return;
            } else {
                std::thread::sleep(Duration::from_millis(1));
            }
        })
    };
    for i in 0..50 {
        double(i);
        assert!(invite::wait_idle(WAIT));
    }
    let signals = SIGCHLD_SEEN.load(Ordering::SeqCst);
    let during_runs: Vec<i32> = reaped.lock().unwrap().clone();
    let mine: Vec<i32> = (0..3)
        .map(|_| {
            // SAFETY: the child leaves at once through _exit.
            let pid = unsafe { libc::fork() };
            if pid == 0 {
                // SAFETY: _exit never returns.
                unsafe { libc::_exit(0) };
            }
            pid
        })
        .collect();
    assert!(
        support::eventually(Duration::from_secs(10), || mine
            .iter()
            .all(|p| reaped.lock().unwrap().contains(p))),
        "reaped {:?}, not all of the host's {mine:?}",
        reaped.lock().unwrap()
    );
    stop.store(true, Ordering::SeqCst);
    waiter.join().unwrap();
    assert!(
        SIGCHLD_SEEN.load(Ordering::SeqCst) > signals,
        "the host's own SIGCHLD was lost"
    );
    println!("{signals} {}", during_runs.len());
}

#[test]
fn the_hosts_sigchld_handler_and_waitpid_any_see_only_its_own_children() {
    let config = "default_rho = 1.0\nmax_overhead = 1.0\nchild_cpu_charge = 0.0";
    let run = scenario(here!(), config, host_that_reaps_any_child);
    run.assert_success();
    assert_eq!(
        run.stdout,
        "0 0\n",
        "SIGCHLDs and reaped pids while invite ran 50 runs; {}",
        run.describe()
    );
    // Every run was followed to its end although the host reaps any child it can.
    let outcomes = run.outcomes_of("doubles");
    assert_eq!(outcomes, vec![Pass; 50], "{}", run.describe());
}

#[test]
fn with_hide_runs_off_runs_are_plain_children_and_still_followed() {
    let config = "default_rho = 1.0\nmax_overhead = 1.0\nchild_cpu_charge = 0.0\nhide_runs = false";
    let run = scenario(here!(), config, host_that_reaps_any_child);
    run.assert_success();
    let seen: Vec<usize> = run
        .stdout
        .split_whitespace()
        .map(|n| n.parse().unwrap())
        .collect();
    // The host reaped runs (not necessarily every one: the collector reaps too).
    assert!(seen[0] > 0 && seen[1] > 0, "{seen:?}; {}", run.describe());
    // A run the host reaped still reported every test; only an exit status could be lost.
    let outcomes = run.outcomes_of("doubles");
    assert_eq!(outcomes, vec![Pass; 50], "{}", run.describe());
}

#[invite::in_vivo(test = doubles)]
fn double(x: u64) -> u64 {
    x * 2
}

fn doubles(x: &u64) -> bool {
    double(*x) == x + x
}

static SIGCHLD_SEEN: AtomicUsize = AtomicUsize::new(0);

extern "C" fn count_sigchld(_: libc::c_int) {
    SIGCHLD_SEEN.fetch_add(1, Ordering::SeqCst);
}

fn call_and_wait(n: u64) {
    for i in 0..n {
        assert_eq!(double(i), 2 * i);
        assert!(invite::wait_idle(WAIT));
    }
}

#[test]
fn a_host_sigchld_handler_still_gets_every_result_and_its_own_children() {
    let run = scenario(
        here!(),
        "default_rho = 1.0\nmax_overhead = 1.0\nchild_cpu_charge = 0.0",
        || {
            // SAFETY: installing a plain handler that only touches an atomic.
            unsafe {
                libc::signal(
                    libc::SIGCHLD,
                    count_sigchld as *const () as libc::sighandler_t,
                )
            };
            let host_children: Vec<_> = (0..5)
                .map(|i| {
                    std::process::Command::new("sh")
                        .arg("-c")
                        .arg(format!("exit {i}"))
                        .spawn()
                        .unwrap()
                })
                .collect();
            call_and_wait(20);
            for (i, mut c) in host_children.into_iter().enumerate() {
                // Invite never reaped a child of the host: its status is still there to collect.
                assert_eq!(c.wait().unwrap().code(), Some(i as i32));
            }
            assert!(SIGCHLD_SEEN.load(Ordering::SeqCst) > 0);
        },
    );
    run.assert_success();
    let outcomes = run.outcomes_of("doubles");
    assert_eq!(outcomes, vec![Pass; 20], "{}", run.describe());
}

#[test]
fn a_host_that_ignores_sigchld_still_gets_every_result() {
    let run = scenario(
        here!(),
        "default_rho = 1.0\nmax_overhead = 1.0\nchild_cpu_charge = 0.0",
        || {
            // SAFETY: SIG_IGN makes the kernel reap children itself.
            unsafe { libc::signal(libc::SIGCHLD, libc::SIG_IGN) };
            call_and_wait(20);
        },
    );
    run.assert_success();
    assert_eq!(
        run.outcomes_of("doubles"),
        vec![Pass; 20],
        "{}",
        run.describe()
    );
}

#[test]
fn a_host_thread_reaping_with_waitpid_minus_one_loses_no_result() {
    let run = scenario(
        here!(),
        "default_rho = 1.0\nmax_overhead = 1.0\nchild_cpu_charge = 0.0",
        || {
            std::thread::spawn(|| loop {
                let mut status = 0;
                // SAFETY: waitpid with a valid pointer to a local.
                unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) };
                std::thread::sleep(Duration::from_micros(200));
            });
            call_and_wait(20);
        },
    );
    run.assert_success();
    assert_eq!(
        run.outcomes_of("doubles"),
        vec![Pass; 20],
        "{}",
        run.describe()
    );
}

#[test]
fn no_child_is_left_unreaped_after_hundreds_of_runs() {
    let run = scenario(
        here!(),
        "default_rho = 1.0\nmax_overhead = 1.0\nchild_cpu_charge = 0.0\nmax_concurrent = 2",
        || {
            // Hundreds of runs one after the other, then a burst that the caps partly refuse.
            for i in 0..300 {
                double(i);
                assert!(invite::wait_idle(WAIT));
            }
            for i in 0..500 {
                double(i);
            }
            assert!(invite::wait_idle(WAIT));
            // Runs are never the program's children, and none is left running.
            let left = child_pids();
            assert!(
                left.is_empty(),
                "children still present (zombies or alive): {left:?}"
            );
            let running = support::invite_processes();
            assert!(running.is_empty(), "runs still alive: {running:?}");
            println!("{}", invite::wait_idle(Duration::ZERO));
        },
    );
    run.assert_success();
    assert_eq!(run.stdout, "true\n");
    let stats = run.final_stats();
    let site = stats
        .sites
        .iter()
        .find(|s| s.site == "scenarios::isolation::double")
        .unwrap();
    assert!(site.runs >= 300, "{site:?}");
    // Every sampled call either ran or was refused, and each refusal is counted by reason.
    assert_eq!(
        site.runs + site.skipped.concurrency + site.skipped.overhead,
        site.sampled
    );
    assert_eq!(run.tests().len() as u64, site.runs);
}

#[invite::in_vivo(test = reports_and_spins, timeout_ms = 3000)]
fn long_test(x: u64) -> u64 {
    x
}

/// Writes its pids to a file (so this test's sandbox is "fork"), then spins.
fn reports_and_spins(_: &u64) -> bool {
    let dir = scenario_dir();
    // SAFETY: getppid has no preconditions.
    let supervisor = unsafe { libc::getppid() };
    let text = format!("{} {}", std::process::id(), supervisor);
    std::fs::write(dir.join("pids.tmp"), text).unwrap();
    std::fs::rename(dir.join("pids.tmp"), dir.join("pids")).unwrap();
    loop {
        std::hint::spin_loop();
    }
}

#[test]
fn a_killed_program_leaves_no_test_process_behind() {
    let name = here!();
    if std::env::var("INVITE_SCENARIO").as_deref() == Ok(name) {
        long_test(1);
        std::thread::sleep(Duration::from_secs(60));
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("invite.toml");
    let mut f = std::fs::File::create(&config).unwrap();
    writeln!(
        f,
        "default_rho = 1.0\nmax_overhead = 1.0\nchild_cpu_charge = 0.0\nsandbox = \"fork\"\nlog = {:?}",
        dir.path().join("log.jsonl")
    )
    .unwrap();
    let _share = support::side_by_side();
    let mut program = std::process::Command::new(std::env::current_exe().unwrap())
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env("INVITE_SCENARIO", name)
        .env("INVITE_SCENARIO_DIR", dir.path())
        .env("INVITE_CONFIG", &config)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pids = dir.path().join("pids");
    assert!(
        support::eventually(WAIT, || pids.exists()),
        "the test never started"
    );
    let text = std::fs::read_to_string(&pids).unwrap();
    let (test, supervisor) = text.split_once(' ').unwrap();
    let (test, supervisor): (i32, i32) = (test.parse().unwrap(), supervisor.parse().unwrap());
    program.kill().unwrap();
    program.wait().unwrap();
    let gone = |pid: i32| !support::process_exists(pid) || support::process_state(pid) == Some('Z');
    // The run's own deadline (3 s per test + 500 ms) ends the supervisor, and the test
    // process dies with it. The limit here is only a bound on a hang, far beyond that.
    assert!(
        support::eventually(WAIT, || gone(supervisor)),
        "run child {supervisor} outlived the program"
    );
    assert!(
        support::eventually(WAIT, || gone(test)),
        "test process {test} outlived the program"
    );
}

#[invite::in_vivo(test = sleeps_long, timeout_ms = 60000)]
fn slow_to_test(x: u64) -> u64 {
    x
}

fn sleeps_long(_: &u64) -> bool {
    std::thread::sleep(Duration::from_secs(60));
    true
}

#[test]
fn at_exit_running_tests_are_drained_then_killed_and_recorded() {
    let config = "default_rho = 1.0\nmax_overhead = 1.0\nchild_cpu_charge = 0.0\ndrain_ms = 200";
    let run = scenario(here!(), config, || {
        slow_to_test(1);
        println!("main returns");
    });
    run.assert_success();
    assert_eq!(run.stdout, "main returns\n");
    let t = &run.tests_of("sleeps_long")[0];
    assert_eq!(t.outcome, Timeout);
    assert!(
        t.detail.as_deref().unwrap().contains("drain_ms = 200"),
        "{:?}",
        t.detail
    );
    let Some(invite::record::Record::Stop(stop)) = run.records().pop() else {
        panic!(
            "the log does not end with a stop record: {}",
            run.describe()
        );
    };
    assert_eq!((stop.drained, stop.killed), (0, 1));
}

#[invite::in_vivo(test = doubles, test = doubles_again)]
fn double_twice(x: u64) -> u64 {
    x * 2
}

fn doubles_again(x: &u64) -> bool {
    double_twice(*x) == 2 * x
}

#[test]
fn thousands_of_tests_leave_no_zombie() {
    let config =
        "default_rho = 1.0\nmax_overhead = 1.0\nchild_cpu_charge = 0.0\nmax_concurrent = 2";
    let run = scenario(here!(), config, || {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let monitor = {
            let stop = std::sync::Arc::clone(&stop);
            std::thread::spawn(move || {
                let mut most = 0;
                while !stop.load(Ordering::SeqCst) {
                    let zombies = child_pids()
                        .into_iter()
                        .filter(|p| support::process_state(*p) == Some('Z'))
                        .count();
                    most = most.max(zombies);
                    std::thread::sleep(Duration::from_millis(1));
                }
                most
            })
        };
        let open_fds = || std::fs::read_dir("/proc/self/fd").unwrap().count();
        let before = open_fds();
        for i in 0..1000 {
            double_twice(i);
            assert!(invite::wait_idle(WAIT));
        }
        stop.store(true, Ordering::SeqCst);
        let most = monitor.join().unwrap();
        let left = child_pids();
        assert!(left.is_empty(), "children left: {left:?}");
        let running = support::invite_processes();
        assert!(running.is_empty(), "runs still alive: {running:?}");
        // Invite's own descriptors (README: nine, three for following the configuration file,
        // and in this binary, which has pure sites, two for each worker's ring: one worker per
        // slot of `max_concurrent = 2`, up to the CPUs), and not one more for all those runs.
        let workers = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(2);
        let after = open_fds();
        assert!(
            after <= before + 12 + 2 * workers,
            "{before} descriptors open before the runs, {after} after"
        );
        println!("{most}");
    });
    run.assert_success();
    // A child is a zombie between its exit and the collector's reaping: never more than the
    // runs allowed at once, and none at the end.
    let most: usize = run.stdout.trim().parse().unwrap();
    assert!(most <= 2, "{most} zombies at once");
    let t = run.tests();
    assert_eq!(
        t.iter()
            .filter(|t| t.site.ends_with("::double_twice"))
            .count(),
        2000
    );
}

#[test]
fn a_process_the_host_forks_never_starts_runs() {
    let run = scenario(
        here!(),
        "default_rho = 1.0\nmax_overhead = 1.0\nchild_cpu_charge = 0.0",
        || {
            double(1);
            assert!(invite::wait_idle(WAIT));
            // SAFETY: the child only calls the instrumented function and leaves with _exit.
            let pid = unsafe { libc::fork() };
            if pid == 0 {
                for i in 0..100 {
                    double(i);
                }
                // SAFETY: leaving without running the parent's exit handlers.
                unsafe {
                    libc::_exit(if support::invite_processes().is_empty() {
                        0
                    } else {
                        1
                    })
                };
            }
            let mut status = 0;
            // SAFETY: reaping our own child.
            unsafe { libc::waitpid(pid, &mut status, 0) };
            assert!(
                libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
                "the host's child forked"
            );
            println!("{pid}");
        },
    );
    run.assert_success();
    let forked: u32 = run.stdout.trim().parse().unwrap();
    // Only the program's own call was tested; the host's child wrote nothing to the log.
    assert_eq!(run.outcomes_of("doubles"), vec![Pass]);
    assert!(run.tests().iter().all(|t| t.pid != forked));
}

/// The program's pid, as a run's test processes read it from their copy of memory.
static PROGRAM_PID: AtomicUsize = AtomicUsize::new(0);

#[invite::in_vivo(test = run_is_the_programs_child)]
fn triple(x: u64) -> u64 {
    x * 3
}

/// Passes when the test's run (its parent) is a child of the program: a plain fork. A hidden
/// run was adopted elsewhere, and the test fails.
fn run_is_the_programs_child(_: &u64) -> bool {
    // SAFETY: getppid has no preconditions.
    let run = unsafe { libc::getppid() };
    let status = std::fs::read_to_string(format!("/proc/{run}/status")).unwrap_or_default();
    let parent = status
        .lines()
        .find_map(|l| l.strip_prefix("PPid:"))
        .and_then(|v| v.trim().parse::<usize>().ok());
    parent == Some(PROGRAM_PID.load(Ordering::SeqCst))
}

/// Makes `n` sampled calls of `triple`, one after another, each run waited for.
fn triple_and_wait(n: u64) {
    PROGRAM_PID.store(std::process::id() as usize, Ordering::SeqCst);
    for i in 0..n {
        assert_eq!(triple(i), 3 * i);
        assert!(invite::wait_idle(WAIT));
    }
}

/// `hide_runs = "auto"`, with the file sandbox off so that a test reads `/proc` freely.
const AUTO: &str =
    "default_rho = 1.0\nmax_overhead = 1.0\nchild_cpu_charge = 0.0\nsandbox = \"fork\"\nhide_runs = \"auto\"";

#[test]
fn under_auto_a_program_that_handles_no_children_gets_plain_forks() {
    let run = scenario(here!(), AUTO, || {
        triple_and_wait(10);
        // SAFETY: reads the disposition only.
        assert_eq!(
            // SAFETY: reads the disposition only.
            unsafe { libc::signal(libc::SIGCHLD, libc::SIG_DFL) },
            libc::SIG_DFL
        );
    });
    run.assert_success();
    assert_eq!(
        run.outcomes_of("run_is_the_programs_child"),
        vec![Pass; 10],
        "{}",
        run.describe()
    );
}

#[test]
fn under_auto_a_sigchld_handler_never_hears_a_run() {
    let run = scenario(here!(), AUTO, || {
        // SAFETY: a handler that only counts, installed before invite starts.
        unsafe {
            libc::signal(
                libc::SIGCHLD,
                count_sigchld as *const () as libc::sighandler_t,
            )
        };
        triple_and_wait(20);
        println!("{}", SIGCHLD_SEEN.load(Ordering::SeqCst));
    });
    run.assert_success();
    assert_eq!(run.stdout, "0\n", "SIGCHLDs heard; {}", run.describe());
    // Every run was hidden: adopted elsewhere, each test saw a parent that is not the program.
    assert_eq!(
        run.outcomes_of("run_is_the_programs_child"),
        vec![Fail; 20],
        "{}",
        run.describe()
    );
}

#[test]
fn under_auto_a_handler_installed_after_start_hides_the_next_runs() {
    let run = scenario(here!(), AUTO, || {
        triple_and_wait(3);
        // SAFETY: a handler that only counts.
        unsafe {
            libc::signal(
                libc::SIGCHLD,
                count_sigchld as *const () as libc::sighandler_t,
            )
        };
        let before = SIGCHLD_SEEN.load(Ordering::SeqCst);
        triple_and_wait(3);
        println!("{}", SIGCHLD_SEEN.load(Ordering::SeqCst) - before);
    });
    run.assert_success();
    assert_eq!(run.stdout, "0\n", "SIGCHLDs heard; {}", run.describe());
    assert_eq!(
        run.outcomes_of("run_is_the_programs_child"),
        vec![Pass, Pass, Pass, Fail, Fail, Fail],
        "{}",
        run.describe()
    );
}

#[test]
fn under_auto_a_program_with_children_of_its_own_gets_hidden_runs() {
    let run = scenario(here!(), AUTO, || {
        let mut own = std::process::Command::new("sleep")
            .arg("60")
            .spawn()
            .unwrap();
        triple_and_wait(5);
        own.kill().unwrap();
        // Invite never reaped the program's child: its status is still there to collect.
        assert!(own.wait().is_ok());
    });
    run.assert_success();
    assert_eq!(
        run.outcomes_of("run_is_the_programs_child"),
        vec![Fail; 5],
        "{}",
        run.describe()
    );
}

#[test]
fn under_auto_a_program_that_ignores_sigchld_gets_hidden_runs_and_their_results() {
    let run = scenario(here!(), AUTO, || {
        // SAFETY: SIG_IGN makes the kernel reap children itself.
        unsafe { libc::signal(libc::SIGCHLD, libc::SIG_IGN) };
        triple_and_wait(5);
    });
    run.assert_success();
    assert_eq!(
        run.outcomes_of("run_is_the_programs_child"),
        vec![Fail; 5],
        "{}",
        run.describe()
    );
}

/// Every pid the program's reaper thread reaped, in order.
static REAPED: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// A supervisor's reaper: waits for any child, for the program's whole life, from before the
/// program has any.
fn reap_forever() {
    loop {
        let mut status = 0;
        // SAFETY: waitpid writes the status of a child it reaps.
        let pid = unsafe { libc::waitpid(-1, &mut status, 0) };
        if pid > 0 {
            REAPED.lock().unwrap().push(pid);
        } else {
            // No child now (ECHILD): look again soon, as a reaper that polls does.
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

#[test]
fn by_default_a_reaper_that_exists_before_any_child_never_sees_a_run() {
    let config = "default_rho = 1.0\nmax_overhead = 1.0\nchild_cpu_charge = 0.0\n\
                  when_busy = \"wait\"\nsandbox = \"fork\"";
    let run = scenario(here!(), config, || {
        // SIGCHLD keeps its default disposition: the reaper is all the program shows.
        std::thread::spawn(reap_forever);
        // No child of the program's own yet: the first sampled calls come now.
        triple_and_wait(10);
        let own = std::process::Command::new("true").spawn().unwrap().id() as i32;
        assert!(support::eventually(WAIT, || REAPED
            .lock()
            .unwrap()
            .contains(&own)));
        triple_and_wait(10);
        let reaped = REAPED.lock().unwrap().clone();
        let others: Vec<_> = reaped.iter().filter(|&&p| p != own).collect();
        println!("reaped own: {}, others: {others:?}", reaped.contains(&own));
    });
    run.assert_success();
    // The program's reaper reaped its own child and nothing else.
    assert_eq!(
        run.stdout,
        "reaped own: true, others: []\n",
        "{}",
        run.describe()
    );
    // Every run was hidden, from the first sampled call on.
    assert_eq!(
        run.outcomes_of("run_is_the_programs_child"),
        vec![Fail; 20],
        "{}",
        run.describe()
    );
}
