//! The sandbox: a test can change nothing outside its process. Each hostile test below really
//! tries its side effect against a real file, socket, process or shared mapping of the program;
//! the assertions check both the `blocked` record and that the target is unchanged.

use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::sync::OnceLock;
use std::time::Duration;

use crate::support::{self, scenario, scenario_dir};
use invite::record::Outcome::*;

const WAIT: Duration = Duration::from_secs(20);
const CONFIG: &str = "default_rho = 1.0\nmax_overhead = 1.0";

/// What the program has open when the hostile tests run.
struct Fixture {
    log: std::fs::File,
    listener: std::net::TcpListener,
    shared: *mut u64,
    /// A shared mapping the program made read-only: a test must still read its contents.
    read_only: *const u64,
}

// SAFETY: the raw pointer is to a process-wide shared mapping that lives until exit.
unsafe impl Sync for Fixture {}
// SAFETY: as for Sync: the mapping lives until exit, and every access is a plain read or write.
unsafe impl Send for Fixture {}

static FIXTURE: OnceLock<Fixture> = OnceLock::new();

fn fixture() -> &'static Fixture {
    FIXTURE.get().expect("set up by the scenario")
}

fn set_up() {
    let dir = scenario_dir();
    std::fs::write(dir.join("keep.txt"), "original").unwrap();
    let log = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(dir.join("app.log"))
        .unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    // Two pages, the value on the second: a copy of the first page alone would lose it.
    let shared = shared_pages(8192);
    // SAFETY: the mapping just made is two pages long.
    let shared = unsafe {
        let p = shared.cast::<u64>().add(4096 / 8);
        *p = 7;
        p
    };
    let read_only = shared_pages(4096).cast::<u64>();
    // SAFETY: the page just made: filled, then made read-only; checked.
    unsafe {
        *read_only = 5;
        assert_eq!(libc::mprotect(read_only.cast(), 4096, libc::PROT_READ), 0);
    }
    let read_only = read_only as *const u64;
    assert!(FIXTURE
        .set(Fixture {
            log,
            listener,
            shared,
            read_only,
        })
        .is_ok());
}

/// A fresh shared anonymous mapping, readable and writable.
fn shared_pages(len: usize) -> *mut libc::c_void {
    // SAFETY: a new mapping at an address the kernel chooses; checked for failure.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    assert_ne!(p, libc::MAP_FAILED);
    p
}

#[invite::in_vivo(
    test = writes_to_an_open_file,
    test = creates_a_file,
    test = renames_and_unlinks,
    test = connects_out,
    test = signals_the_program,
    test = stores_into_shared_memory,
    test = reads_read_only_shared_memory,
    test = runs_a_program,
    test = sets_up_io_uring,
    test = takes_the_sigsys_handler,
    test = computes_reads_prints_and_uses_threads,
    test = uses_kernel_objects_of_its_own,
)]
fn process(x: u64) -> u64 {
    x * 3
}

fn writes_to_an_open_file(_: &u64) -> bool {
    (&fixture().log).write_all(b"written by a test\n").is_ok()
}

fn creates_a_file(_: &u64) -> bool {
    std::fs::write(scenario_dir().join("created.txt"), "x").is_ok()
}

fn renames_and_unlinks(_: &u64) -> bool {
    let dir = scenario_dir();
    let _ = std::fs::rename(dir.join("keep.txt"), dir.join("moved.txt"));
    std::fs::remove_file(dir.join("keep.txt")).is_ok()
}

fn connects_out(_: &u64) -> bool {
    // The address comes from the program: the test's copy of the listener is a dead descriptor.
    let addr = std::env::var("SANDBOX_LISTENER").unwrap();
    std::net::TcpStream::connect(addr).is_ok()
}

fn signals_the_program(_: &u64) -> bool {
    let program: i32 = std::env::var("SANDBOX_PROGRAM_PID")
        .unwrap()
        .parse()
        .unwrap();
    // SAFETY: a signal that would end the program, were it delivered.
    unsafe { libc::kill(program, libc::SIGTERM) == 0 }
}

fn stores_into_shared_memory(_: &u64) -> bool {
    // SAFETY: the mapping is valid; the store is the side effect under test.
    unsafe {
        // The private copy holds what the program's mapping held, and takes the store.
        let seen = std::ptr::read_volatile(fixture().shared);
        std::ptr::write_volatile(fixture().shared, 99);
        seen == 7 && std::ptr::read_volatile(fixture().shared) == 99
    }
}

fn reads_read_only_shared_memory(_: &u64) -> bool {
    // SAFETY: the mapping is valid and readable.
    unsafe { std::ptr::read_volatile(fixture().read_only) == 5 }
}

fn runs_a_program(_: &u64) -> bool {
    std::process::Command::new("true").status().is_ok()
}

fn sets_up_io_uring(_: &u64) -> bool {
    let mut params = [0u8; 120];
    // SAFETY: io_uring_setup with a zeroed parameter block; the call itself is under test.
    unsafe { libc::syscall(libc::SYS_io_uring_setup, 8, params.as_mut_ptr()) >= 0 }
}

fn takes_the_sigsys_handler(_: &u64) -> bool {
    // SAFETY: ignoring SIGSYS would defeat the sandbox's reporting: the call is under test.
    unsafe { libc::signal(libc::SIGSYS, libc::SIG_IGN) };
    true
}

/// What a test may do: compute, allocate, read files, print (to nowhere) and use threads.
fn computes_reads_prints_and_uses_threads(x: &u64) -> bool {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    println!("a test may print: {}", status.len());
    let v: Vec<u64> = (0..100_000).collect();
    let handle = std::thread::spawn(move || v.iter().sum::<u64>());
    handle.join().unwrap() == 4_999_950_000 && process(*x) == x * 3
}

static OWN_SIGNALS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

extern "C" fn count_own_signal(_: libc::c_int) {
    OWN_SIGNALS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
}

/// What the allow list permits on objects a test makes itself: a pipe, an eventfd, an epoll
/// set, a timer and a memfd, `fcntl` and `ioctl` on them, a signal to itself, and reading its
/// own identity and limits. `Err` names the first call refused.
fn uses_kernel_objects_of_its_own(_: &u64) -> Result<(), String> {
    fn ok(what: &str, r: i64) -> Result<i64, String> {
        if r < 0 {
            Err(format!("{what}: {}", std::io::Error::last_os_error()))
        } else {
            Ok(r)
        }
    }
    // SAFETY: system calls on descriptors made here, with local buffers of the sizes given.
    unsafe {
        let mut pipe = [0i32; 2];
        ok(
            "pipe2",
            libc::pipe2(pipe.as_mut_ptr(), libc::O_CLOEXEC) as i64,
        )?;
        ok(
            "write pipe",
            libc::write(pipe[1], b"abc".as_ptr().cast(), 3) as i64,
        )?;
        let mut queued: libc::c_int = 0;
        ok(
            "FIONREAD",
            libc::ioctl(pipe[0], libc::FIONREAD, &mut queued) as i64,
        )?;
        let flags = ok("F_GETFL", libc::fcntl(pipe[0], libc::F_GETFL) as i64)? as i32;
        ok(
            "F_SETFL",
            libc::fcntl(pipe[0], libc::F_SETFL, flags | libc::O_NONBLOCK) as i64,
        )?;
        let event = ok("eventfd", libc::eventfd(0, libc::EFD_CLOEXEC) as i64)? as i32;
        ok(
            "write eventfd",
            libc::write(event, (&1u64 as *const u64).cast(), 8) as i64,
        )?;
        let epoll = ok(
            "epoll_create1",
            libc::epoll_create1(libc::EPOLL_CLOEXEC) as i64,
        )? as i32;
        let mut ev = libc::epoll_event {
            events: libc::EPOLLIN as u32,
            u64: 1,
        };
        ok(
            "epoll_ctl",
            libc::epoll_ctl(epoll, libc::EPOLL_CTL_ADD, event, &mut ev) as i64,
        )?;
        let mut ready = [libc::epoll_event { events: 0, u64: 0 }; 2];
        let n = ok(
            "epoll_wait",
            libc::epoll_wait(epoll, ready.as_mut_ptr(), 2, 1000) as i64,
        )?;
        let timer = ok(
            "timerfd_create",
            libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_CLOEXEC) as i64,
        )? as i32;
        let mut spec: libc::itimerspec = std::mem::zeroed();
        spec.it_value.tv_nsec = 1_000_000;
        ok(
            "timerfd_settime",
            libc::timerfd_settime(timer, 0, &spec, std::ptr::null_mut()) as i64,
        )?;
        let mut ticks = 0u64;
        ok(
            "read timerfd",
            libc::read(timer, (&mut ticks as *mut u64).cast(), 8) as i64,
        )?;
        let memfd = ok(
            "memfd_create",
            libc::memfd_create(c"own".as_ptr(), libc::MFD_CLOEXEC) as i64,
        )? as i32;
        ok(
            "write memfd",
            libc::pwrite(memfd, b"own".as_ptr().cast(), 3, 0) as i64,
        )?;
        libc::signal(libc::SIGUSR2, count_own_signal as *const () as usize);
        ok("raise", libc::raise(libc::SIGUSR2) as i64)?;
        let mut limit: libc::rlimit = std::mem::zeroed();
        ok(
            "getrlimit",
            libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) as i64,
        )?;
        let ids = (libc::getpid(), libc::getuid(), libc::getppid());
        for fd in [pipe[0], pipe[1], event, epoll, timer, memfd] {
            ok("close", libc::close(fd) as i64)?;
        }
        let signalled = OWN_SIGNALS.load(std::sync::atomic::Ordering::SeqCst);
        if queued == 3 && n == 1 && ticks >= 1 && signalled == 1 && ids.0 > 0 {
            Ok(())
        } else {
            Err(format!(
                "queued {queued}, ready {n}, ticks {ticks}, signals {signalled}, ids {ids:?}"
            ))
        }
    }
}

fn detail(run: &support::Run, test: &str) -> (invite::record::Outcome, String) {
    let t = run.tests_of(test);
    assert_eq!(t.len(), 1, "{test}: {}", run.describe());
    (t[0].outcome, t[0].detail.clone().unwrap_or_default())
}

#[test]
fn every_side_effect_is_blocked_and_leaves_the_program_unchanged() {
    let pid = std::process::id().to_string();
    let run = support::scenario_with(here!(), CONFIG, &[], || {
        std::env::set_var("SANDBOX_PROGRAM_PID", std::process::id().to_string());
        set_up();
        let addr = fixture().listener.local_addr().unwrap();
        std::env::set_var("SANDBOX_LISTENER", addr.to_string());
        assert_eq!(process(5), 15);
        assert!(invite::wait_idle(WAIT));
        let f = fixture();
        // SAFETY: reading the shared mapping set up above.
        assert_eq!(
            // SAFETY: reading the shared mapping set up above.
            unsafe { *f.shared },
            7,
            "a test's store reached the program"
        );
        match f.listener.accept() {
            Err(e) => assert_eq!(e.kind(), std::io::ErrorKind::WouldBlock),
            Ok(_) => panic!("a test connected to the program's listener"),
        }
        println!("program alive");
    });
    let _ = pid;
    run.assert_success();
    assert_eq!(run.stdout, "program alive\n");
    let dir = &run.dir;
    assert_eq!(
        std::fs::read_to_string(dir.join("keep.txt")).unwrap(),
        "original"
    );
    assert!(!dir.join("moved.txt").exists() && !dir.join("created.txt").exists());
    let mut log = String::new();
    std::fs::File::open(dir.join("app.log"))
        .unwrap()
        .read_to_string(&mut log)
        .unwrap();
    assert_eq!(log, "", "a test wrote into the program's open file");

    // The test holds its own read-only copy of the file: the write fails inside the test.
    let (o, d) = detail(&run, "writes_to_an_open_file");
    assert_eq!(o, Fail, "{d}");
    let (o, d) = detail(&run, "creates_a_file");
    assert_eq!(o, Blocked);
    assert!(d.contains("openat(") && d.contains("created.txt"), "{d}");
    let (o, d) = detail(&run, "renames_and_unlinks");
    assert_eq!(o, Blocked);
    assert!(d.contains("rename") && d.contains("keep.txt"), "{d}");
    let (o, d) = detail(&run, "connects_out");
    assert_eq!(o, Blocked);
    assert!(d.contains("socket("), "{d}");
    let (o, d) = detail(&run, "signals_the_program");
    assert_eq!(o, Blocked);
    assert!(d.contains("kill(pid "), "{d}");
    // The mapping became private to the test, with the program's contents: the test read 7 and
    // its store landed in its copy; the program's value is checked above.
    let (o, d) = detail(&run, "stores_into_shared_memory");
    assert_eq!(o, Pass, "{d}");
    // A read-only shared mapping is copied too: its contents stay readable.
    let (o, d) = detail(&run, "reads_read_only_shared_memory");
    assert_eq!(o, Pass, "{d}");
    let (o, d) = detail(&run, "runs_a_program");
    assert_eq!(o, Blocked);
    // Process creation blocks signals first, so the trap becomes a SIGSYS kill.
    assert!(d.contains("a new process") || d.contains("SIGSYS"), "{d}");
    let (o, d) = detail(&run, "sets_up_io_uring");
    assert_eq!(o, Blocked);
    assert!(d.contains("io_uring_setup"), "{d}");
    let (o, d) = detail(&run, "takes_the_sigsys_handler");
    assert_eq!(o, Blocked);
    assert!(d.contains("SIGSYS"), "{d}");
    let (o, d) = detail(&run, "computes_reads_prints_and_uses_threads");
    assert_eq!(o, Pass, "{d}");
    let (o, d) = detail(&run, "uses_kernel_objects_of_its_own");
    assert_eq!(o, Pass, "{d}");
}

#[invite::in_vivo(test = appends_a_line)]
fn tally(x: u64) -> u64 {
    x + 1
}

fn appends_a_line(_: &u64) -> bool {
    (&fixture().log).write_all(b"line from a test\n").is_ok()
}

#[test]
fn sandbox_fork_per_site_allows_side_effects() {
    let config = "default_rho = 1.0\nmax_overhead = 1.0\n\
                  [functions.\"scenarios::sandbox::tally\"]\nsandbox = \"fork\"";
    let run = scenario(here!(), config, || {
        set_up();
        tally(1);
        assert!(invite::wait_idle(WAIT));
    });
    run.assert_success();
    assert_eq!(run.outcomes_of("appends_a_line"), vec![Pass]);
    let log = std::fs::read_to_string(run.dir.join("app.log")).unwrap();
    assert_eq!(
        log, "line from a test\n",
        "with sandbox = \"fork\" the write goes through"
    );
}

/// Makes a system call fail with `errno` in this process from here on (and in everything it
/// forks), as on a kernel that lacks it: the call `nr`, or only its form whose first argument
/// is `first_arg`.
fn make_fail(nr: libc::c_long, first_arg: Option<u32>, errno: i32) {
    const LD_W_ABS: u16 = (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16;
    const JEQ_K: u16 = (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16;
    const RET_K: u16 = (libc::BPF_RET | libc::BPF_K) as u16;
    let insn = |code, jt, jf, k| libc::sock_filter { code, jt, jf, k };
    // seccomp_data: nr at offset 0, the first argument at 16. Without an argument to match,
    // the second comparison is of the number with itself.
    let (offset, value) = match first_arg {
        Some(a) => (16, a),
        None => (0, nr as u32),
    };
    let mut program = [
        insn(LD_W_ABS, 0, 0, 0),
        insn(JEQ_K, 0, 3, nr as u32),
        insn(LD_W_ABS, 0, 0, offset),
        insn(JEQ_K, 0, 1, value),
        insn(RET_K, 0, 0, libc::SECCOMP_RET_ERRNO | errno as u32),
        insn(RET_K, 0, 0, libc::SECCOMP_RET_ALLOW),
    ];
    let fprog = libc::sock_fprog {
        len: program.len() as u16,
        filter: program.as_mut_ptr(),
    };
    // SAFETY: the program lives across the call, which copies it; prctl reads plain values.
    unsafe {
        assert_eq!(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
        assert_eq!(
            libc::prctl(
                libc::PR_SET_SECCOMP,
                libc::SECCOMP_MODE_FILTER,
                &fprog as *const libc::sock_fprog
            ),
            0
        );
    }
}

/// Makes this process look like it runs on a kernel without seccomp filters:
/// `prctl(PR_GET_SECCOMP)` fails with `EINVAL`, as on a kernel built without them.
fn hide_seccomp() {
    make_fail(
        libc::SYS_prctl,
        Some(libc::PR_GET_SECCOMP as u32),
        libc::EINVAL,
    );
    // SAFETY: prctl reads plain values.
    assert_eq!(unsafe { libc::prctl(libc::PR_GET_SECCOMP) }, -1);
}

static TOUCHED_BY_A_TEST: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

#[invite::in_vivo(test = changes_memory_and_a_file)]
fn unfiltered(x: u64) -> u64 {
    x + 1
}

fn changes_memory_and_a_file(_: &u64) -> bool {
    TOUCHED_BY_A_TEST.store(666, std::sync::atomic::Ordering::SeqCst);
    (&fixture().log).write_all(b"line from a test\n").is_ok()
}

#[test]
fn without_seccomp_invite_says_so_once_and_keeps_memory_isolation() {
    let run = scenario(here!(), CONFIG, || {
        set_up();
        hide_seccomp();
        unfiltered(1);
        assert!(invite::wait_idle(WAIT));
        unfiltered(2);
        assert!(invite::wait_idle(WAIT));
        assert_eq!(
            TOUCHED_BY_A_TEST.load(std::sync::atomic::Ordering::SeqCst),
            1
        );
    });
    run.assert_success();
    // Nothing filters the tests: both writes went through; memory stayed the program's own.
    assert_eq!(
        run.outcomes_of("changes_memory_and_a_file"),
        vec![Pass, Pass],
        "{}",
        run.describe()
    );
    let log = std::fs::read_to_string(run.dir.join("app.log")).unwrap();
    assert_eq!(log, "line from a test\n".repeat(2));
    let warning = "this kernel has no seccomp filters; tests run with memory isolation only";
    assert_eq!(run.stderr.matches(warning).count(), 1, "{}", run.stderr);
}

#[invite::in_vivo(test = reads_a_file_by_path, test = computes)]
fn reader_without_proc(x: u64) -> u64 {
    x
}

fn computes(x: &u64) -> bool {
    reader_without_proc(*x) == *x
}

#[test]
fn where_proc_is_not_mounted_a_filtered_test_opens_nothing_and_others_still_run() {
    let run = scenario(here!(), CONFIG, || {
        std::fs::write(scenario_dir().join("keep.txt"), "original").unwrap();
        // SAFETY: plain system calls; unshare needs a single-threaded process, which the
        // scenario's is before invite starts.
        unsafe {
            assert_eq!(
                libc::unshare(libc::CLONE_NEWNS),
                0,
                "unshare: {}",
                std::io::Error::last_os_error()
            );
            assert_eq!(
                libc::mount(
                    c"none".as_ptr(),
                    c"/".as_ptr(),
                    std::ptr::null(),
                    libc::MS_REC | libc::MS_PRIVATE,
                    std::ptr::null(),
                ),
                0
            );
            assert_eq!(libc::umount2(c"/proc".as_ptr(), libc::MNT_DETACH), 0);
        }
        assert!(!std::path::Path::new("/proc/self").exists());
        // The program itself still reads the file.
        assert_eq!(
            std::fs::read_to_string(scenario_dir().join("keep.txt")).unwrap(),
            "original"
        );
        reader_without_proc(1);
        assert!(invite::wait_idle(WAIT));
    });
    run.assert_success();
    let (outcome, why) = detail(&run, "reads_a_file_by_path");
    assert!(
        outcome == Blocked || outcome == Fail,
        "{outcome:?}: {why}\n{}",
        run.describe()
    );
    assert_eq!(detail(&run, "computes").0, Pass, "{}", run.describe());
}

static SIGCHLD_SEEN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

extern "C" fn count_sigchld(_: libc::c_int) {
    SIGCHLD_SEEN.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
}

/// Runs three sampled calls after `setup`, in a program that counts its `SIGCHLD`s, and checks
/// that it heard every run end and that every run's test passed.
fn runs_are_heard_and_tested(name: &str, setup: fn()) {
    let run = scenario(name, CONFIG, || {
        // SAFETY: a handler that only counts.
        unsafe { libc::signal(libc::SIGCHLD, count_sigchld as *const () as usize) };
        setup();
        for runs in 1..=3 {
            reader_without_proc(runs);
            assert!(invite::wait_idle(WAIT));
            // A run's result can be in before the signal of its end has been handled, and two
            // SIGCHLDs pending at once are heard as one: each is waited for before the next run.
            let heard = || SIGCHLD_SEEN.load(std::sync::atomic::Ordering::SeqCst) as u64;
            assert!(
                support::eventually(WAIT, || heard() >= runs),
                "{} SIGCHLDs for {runs} runs",
                heard()
            );
        }
    });
    run.assert_success();
    assert_eq!(
        run.outcomes_of("computes"),
        vec![Pass; 3],
        "{}",
        run.describe()
    );
}

#[test]
fn without_pidfds_runs_are_plain_forks_and_results_still_arrive() {
    // Plain forks are the program's children: its handler hears them end.
    runs_are_heard_and_tested(here!(), || {
        make_fail(libc::SYS_pidfd_open, None, libc::ENOSYS)
    });
}

#[test]
fn a_program_that_adopts_orphans_sees_its_runs_and_results_still_arrive() {
    // Hidden runs leave the launcher and come back to the nearest subreaper: this program.
    runs_are_heard_and_tested(here!(), || {
        // SAFETY: a flag on this process.
        assert_eq!(
            // SAFETY: a flag on this process.
            unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) },
            0
        )
    });
}

#[invite::in_vivo(test = never_starts)]
fn cannot_fork(x: u64) -> u64 {
    x * 3
}

fn never_starts(_: &u64) -> bool {
    true
}

#[test]
fn when_no_process_can_be_made_calls_go_on_untested_and_are_counted_as_fork_failed() {
    let config = format!("{CONFIG}\nstats_interval_ms = 50");
    let run = scenario(here!(), &config, || {
        // Invite's own thread first, then, as on a machine out of processes, every clone this
        // thread makes fails with EAGAIN.
        assert!(invite::init());
        make_fail(libc::SYS_clone, None, libc::EAGAIN);
        let log = scenario_dir().join("log.jsonl");
        let counted = |n: usize| {
            let needle = format!("\"fork_failed\":{n}");
            std::fs::read_to_string(&log).is_ok_and(|l| l.contains(&needle))
        };
        let mut results = Vec::new();
        // Two batches, each seen by a stats record of its own: one warning each.
        for batch in [0..10, 10..20] {
            results.extend(batch.clone().map(cannot_fork));
            let started = std::time::Instant::now();
            while !counted(batch.end as usize) && started.elapsed() < WAIT {
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        assert_eq!(results, (0..20).map(|x| x * 3).collect::<Vec<_>>());
        println!("carried on");
    });
    run.assert_success();
    assert_eq!(run.stdout, "carried on\n", "{}", run.describe());
    let stats = run.final_stats();
    let site = stats
        .sites
        .iter()
        .find(|s| s.site == "scenarios::sandbox::cannot_fork")
        .unwrap();
    assert_eq!(site.runs, 0, "{site:?}");
    assert_eq!(site.sampled, 20, "{site:?}");
    assert_eq!(site.skipped.fork_failed, 20, "{site:?}");
    assert!(run.outcomes_of("never_starts").is_empty());
    // A warning for each stats record that counted more, with the new and the total count. A
    // record usually falls between the batches, but may fall within one on a busy machine.
    let warnings: Vec<(u64, u64)> = run
        .stderr
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("invite: ")?;
            let (new, rest) = rest.split_once(" sampled call")?;
            let (_, rest) = rest.split_once("went untested (")?;
            let (total, _) = rest.split_once(" since start)")?;
            Some((new.parse().ok()?, total.parse().ok()?))
        })
        .collect();
    assert_eq!(
        warnings.len(),
        run.stderr.matches("went untested").count(),
        "{}",
        run.stderr
    );
    assert!(warnings.len() >= 2, "{}", run.stderr);
    let mut so_far = 0;
    for (new, total) in &warnings {
        so_far += new;
        assert!(*new > 0 && *total == so_far, "{warnings:?}\n{}", run.stderr);
    }
    assert_eq!(so_far, 20, "{}", run.stderr);
    assert!(
        warnings.iter().any(|(_, total)| *total == 10),
        "the first batch was seen by a stats record of its own: {}",
        run.stderr
    );
    assert!(run.stderr.contains("fork or pipe failed"), "{}", run.stderr);
}

#[test]
fn runs_that_could_not_be_started_do_not_hold_back_the_ones_that_can() {
    // Until a hidden run is seen reaped, only 1024 are started; a launch that failed started
    // nothing and must not use up one of those places.
    let config = format!("{CONFIG}\nhide_runs = \"always\"");
    let run = scenario(here!(), &config, || {
        assert!(invite::init());
        std::thread::spawn(|| {
            // This thread alone cannot make processes.
            make_fail(libc::SYS_clone, None, libc::EAGAIN);
            for i in 0..1100 {
                cannot_fork(i);
            }
        })
        .join()
        .unwrap();
        for i in 0..3 {
            cannot_fork(i);
            assert!(invite::wait_idle(WAIT));
        }
    });
    run.assert_success();
    let site = run
        .final_stats()
        .sites
        .into_iter()
        .find(|s| s.site == "scenarios::sandbox::cannot_fork")
        .unwrap();
    assert!(site.skipped.fork_failed > 1024, "{site:?}");
    assert_eq!(site.runs, 3, "{site:?}");
    assert_eq!(run.outcomes_of("never_starts"), vec![Pass; 3]);
}

#[invite::in_vivo(test = allocates_a_lot, test = allocates_a_little)]
fn grow(x: u64) -> u64 {
    x
}

/// Within the limit: the limit is what the test process has plus `memory_mb` (256 MiB here).
/// 128 MiB is more than a glibc thread arena keeps in reserve (64 MiB, already counted in the
/// address space), so it takes new address space: a limit without the allowance stops it.
fn allocates_a_little(_: &u64) -> bool {
    let v = vec![1u8; 128 << 20];
    v.iter().step_by(4096).count() == 128 << 8
}

fn allocates_a_lot(_: &u64) -> bool {
    let v = vec![1u8; 512 << 20];
    v.iter().step_by(4096).count() > 0
}

#[test]
fn a_memory_limit_stops_a_greedy_test_only() {
    let run = scenario(
        here!(),
        "default_rho = 1.0\nmax_overhead = 1.0\nmemory_mb = 256",
        || {
            grow(1);
            assert!(invite::wait_idle(WAIT));
            let v = vec![1u8; 256 << 20];
            println!("program allocated {} MiB", v.len() >> 20);
        },
    );
    run.assert_success();
    assert_eq!(run.stdout, "program allocated 256 MiB\n");
    assert_eq!(
        run.outcomes_of("allocates_a_little"),
        vec![Pass],
        "{}",
        run.describe()
    );
    let t = &run.tests_of("allocates_a_lot")[0];
    assert_eq!(t.outcome, Error, "{t:?}");
    assert!(
        t.detail.as_deref().unwrap().contains("SIGABRT"),
        "{:?}",
        t.detail
    );
}

#[test]
fn the_filter_costs_a_test_process_microseconds() {
    // Not a timing threshold: the cost is measured and printed for the record; the assertion
    // is only that installing works and leaves the process able to report.
    let filter = invite_sandbox::seccomp::Filter::build().unwrap();
    let (r, w) = {
        let mut fds = [0; 2];
        // SAFETY: pipe writes two descriptors into `fds`.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        (fds[0], fds[1])
    };
    // SAFETY: the child only installs the filter, writes to the pipe and _exits.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        // SAFETY: moving the pipe to the descriptor the filter allows.
        unsafe { libc::dup2(w, 900) };
        let started = std::time::Instant::now();
        let ok = filter.install(900, -1).is_ok();
        let us = started.elapsed().as_micros() as u64;
        let msg = format!("{ok} {us}");
        let _ = invite_sandbox::fd::write_all(900, msg.as_bytes());
        // SAFETY: leaving without running the test harness's destructors.
        unsafe { libc::_exit(0) };
    }
    // SAFETY: closing our copy of the write end, then reading the child's message.
    unsafe { libc::close(w) };
    let mut out = String::new();
    // SAFETY: the read end was just made by pipe and is owned by the File alone.
    let mut file = unsafe { <std::fs::File as std::os::fd::FromRawFd>::from_raw_fd(r) };
    file.read_to_string(&mut out).unwrap();
    // SAFETY: reaping our own child.
    unsafe { libc::waitpid(pid, std::ptr::null_mut(), 0) };
    let (ok, us) = out.split_once(' ').unwrap();
    assert_eq!(ok, "true", "the filter did not install");
    eprintln!("installing the seccomp filter took {us} µs");
    let _ = file.as_raw_fd();
}

#[invite::in_vivo(test = runs_niced_off_the_callers_cpu)]
fn placed(x: u64) -> u64 {
    x
}

/// Reports the test process's niceness and allowed CPUs against the machine's.
fn runs_niced_off_the_callers_cpu(_: &u64) -> Result<(), String> {
    // SAFETY: getpriority reads this process's niceness; cpu_set_t is plain data.
    let (nice, allowed) = unsafe {
        let nice = libc::getpriority(libc::PRIO_PROCESS, 0);
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set);
        (nice, libc::CPU_COUNT(&set) as usize)
    };
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    if nice < 7 {
        return Err(format!(
            "niceness {nice}, expected at least 7 (nice = 7 in the config)"
        ));
    }
    if cpus > 1 && allowed >= cpus {
        return Err(format!("allowed on all {cpus} CPUs, the caller's included"));
    }
    Ok(())
}

#[test]
fn test_processes_run_niced_and_off_the_callers_cpu() {
    let run = scenario(
        here!(),
        "default_rho = 1.0\nmax_overhead = 1.0\nnice = 7",
        || {
            placed(1);
            assert!(invite::wait_idle(WAIT));
        },
    );
    run.assert_success();
    let t = &run.tests_of("runs_niced_off_the_callers_cpu")[0];
    assert_eq!(t.outcome, Pass, "{:?}", t.detail);
}

#[invite::in_vivo(
    test = reads_a_file_by_path,
    test = reads_its_own_proc_entry,
    test = reads_devices_that_anyone_may_read,
    test = lists_and_opens_relative_to_a_directory,
    test = gets_close_on_exec_only_when_asked,
    test = gets_the_kernels_errors,
    test = opens_files_from_many_threads_at_once,
)]
fn reader(x: u64) -> u64 {
    x
}

fn check(what: &str, ok: bool) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(what.to_string())
    }
}

fn reads_a_file_by_path(_: &u64) -> Result<(), String> {
    let text =
        std::fs::read_to_string(scenario_dir().join("keep.txt")).map_err(|e| e.to_string())?;
    check(&format!("read {text:?}"), text == "original")
}

/// `/proc/self` is the test process, not whoever opened the file for it.
fn reads_its_own_proc_entry(_: &u64) -> Result<(), String> {
    let stat = std::fs::read_to_string("/proc/self/stat").map_err(|e| e.to_string())?;
    let pid = stat.split(' ').next().unwrap_or("");
    check(
        &format!(
            "/proc/self/stat names pid {pid}, not {}",
            std::process::id()
        ),
        pid == std::process::id().to_string(),
    )
}

fn reads_devices_that_anyone_may_read(_: &u64) -> Result<(), String> {
    let mut random = [0u8; 16];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut random))
        .map_err(|e| e.to_string())?;
    let mut zero = [1u8; 4];
    std::fs::File::open("/dev/zero")
        .and_then(|mut f| f.read_exact(&mut zero))
        .map_err(|e| e.to_string())?;
    let null = std::fs::read("/dev/null").map_err(|e| e.to_string())?;
    check(
        "devices read wrong",
        random != [0; 16] && zero == [0; 4] && null.is_empty(),
    )
}

fn lists_and_opens_relative_to_a_directory(_: &u64) -> Result<(), String> {
    let names: Vec<String> = std::fs::read_dir(scenario_dir())
        .map_err(|e| e.to_string())?
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    check(
        &format!("listed {names:?}"),
        names.iter().any(|n| n == "keep.txt"),
    )?;
    let dir = support::scenario_path("");
    // SAFETY: NUL-terminated paths; reading into a local buffer.
    unsafe {
        let d = libc::open(dir.as_ptr(), libc::O_PATH | libc::O_DIRECTORY);
        let fd = libc::openat(d, c"keep.txt".as_ptr(), libc::O_RDONLY);
        let mut b = [0u8; 8];
        let n = libc::read(fd, b.as_mut_ptr().cast(), 8);
        check(
            &format!("openat read {n} bytes"),
            d >= 0 && n == 8 && &b == b"original",
        )
    }
}

fn gets_close_on_exec_only_when_asked(_: &u64) -> Result<(), String> {
    let path = support::scenario_path("keep.txt");
    // SAFETY: a NUL-terminated path; F_GETFD reads descriptor flags.
    unsafe {
        let plain = libc::open(path.as_ptr(), libc::O_RDONLY);
        let cloexec = libc::open(path.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
        let nonblock = libc::open(path.as_ptr(), libc::O_RDONLY | libc::O_NONBLOCK);
        check(
            "descriptor flags differ from what was asked",
            plain >= 0
                && libc::fcntl(plain, libc::F_GETFD) == 0
                && libc::fcntl(cloexec, libc::F_GETFD) == libc::FD_CLOEXEC
                && libc::fcntl(nonblock, libc::F_GETFL) & libc::O_NONBLOCK != 0
                && libc::fcntl(plain, libc::F_GETFL) & libc::O_NONBLOCK == 0,
        )
    }
}

/// Failures are the kernel's own: a missing file, a link not followed, a file not a directory.
fn gets_the_kernels_errors(_: &u64) -> Result<(), String> {
    let errno = |name: &str, flags: i32| {
        let c = support::scenario_path(name);
        // SAFETY: a NUL-terminated path.
        let fd = unsafe { libc::open(c.as_ptr(), flags) };
        (fd, std::io::Error::last_os_error().raw_os_error())
    };
    let missing = errno("missing", libc::O_RDONLY);
    let not_dir = errno("keep.txt", libc::O_RDONLY | libc::O_DIRECTORY);
    let link = errno("link", libc::O_RDONLY | libc::O_NOFOLLOW);
    check(
        &format!("missing {missing:?}, not a directory {not_dir:?}, link {link:?}"),
        missing == (-1, Some(libc::ENOENT))
            && not_dir == (-1, Some(libc::ENOTDIR))
            && link == (-1, Some(libc::ELOOP)),
    )
}

fn opens_files_from_many_threads_at_once(_: &u64) -> Result<(), String> {
    let threads: Vec<_> = (0..4)
        .map(|_| {
            std::thread::spawn(|| {
                (0..50).all(|_| {
                    std::fs::read_to_string(scenario_dir().join("keep.txt"))
                        .is_ok_and(|t| t == "original")
                })
            })
        })
        .collect();
    let all = threads.into_iter().all(|t| t.join().unwrap_or(false));
    check("a concurrent open failed or read the wrong file", all)
}

#[test]
fn a_test_opens_files_by_path_as_it_means_them() {
    let run = scenario(here!(), CONFIG, || {
        let dir = scenario_dir();
        std::fs::write(dir.join("keep.txt"), "original").unwrap();
        std::os::unix::fs::symlink(dir.join("keep.txt"), dir.join("link")).unwrap();
        reader(1);
        assert!(invite::wait_idle(WAIT));
    });
    run.assert_success();
    for test in [
        "reads_a_file_by_path",
        "reads_its_own_proc_entry",
        "reads_devices_that_anyone_may_read",
        "lists_and_opens_relative_to_a_directory",
        "gets_close_on_exec_only_when_asked",
        "gets_the_kernels_errors",
        "opens_files_from_many_threads_at_once",
    ] {
        let (outcome, detail) = detail(&run, test);
        assert_eq!(outcome, Pass, "{test}: {detail}\n{}", run.describe());
    }
}
