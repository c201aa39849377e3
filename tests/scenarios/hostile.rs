//! Hostile tests against the sandbox, checked from the program's side.
//!
//! Each scenario is a fresh program that sets up real things a test could reach (queued bytes
//! on its pipes and sockets, file offsets and flags, locks, timers, shared memory, SysV objects,
//! its own scheduling), runs In Vivo tests that attack them, and then checks each target itself
//! after the run: a record saying `blocked` is not enough. An attack must leave the program
//! unchanged and end `blocked` or `fail` (the call failed inside the test); the few tests
//! marked `Pass` act on what became private to them, which is the point.
//!
//! Each category's site has a pure twin ([`pure_twin!`]) called right after it: the same
//! attacks, as hand-written metamorphic tests that the worker of pure sites runs instead of a
//! fork per call. The program's checks cover both, and each attack is expected to end the same
//! way in both, but where a comment says why the worker's outcome differs and is still safe.

use std::os::fd::{AsRawFd, IntoRawFd};
use std::sync::OnceLock;
use std::time::Duration;

use crate::support::{self, scenario, scenario_dir};
use invite::record::Outcome::{self, *};

const WAIT: Duration = Duration::from_secs(30);
const CONFIG: &str = "default_rho = 1.0\nmax_overhead = 1.0\nchild_cpu_charge = 0.0";

/// Descriptors and memory the program holds while the attacks run.
#[derive(Default)]
struct Fixture {
    pipe_r: i32,
    pipe_w: i32,
    sock_a: i32,
    sock_b: i32,
    file: i32,
    log: i32,
    locked: i32,
    epoll: i32,
    timer: i32,
    event: i32,
    memfd: i32,
    shared: usize,
    write_only: usize,
    shm_id: i32,
    sem_id: i32,
    msg_id: i32,
}

static FIXTURE: OnceLock<Fixture> = OnceLock::new();

fn fx() -> &'static Fixture {
    FIXTURE.get().expect("set up by the scenario")
}

fn program_pid() -> i32 {
    std::env::var("HOSTILE_PROGRAM_PID")
        .expect("set by the scenario")
        .parse()
        .unwrap()
}

/// The result of a raw call, as a test result: `Err` names the call and errno.
fn ok(what: &str, r: i64) -> Result<(), String> {
    if r < 0 {
        Err(format!("{what}: {}", std::io::Error::last_os_error()))
    } else {
        Ok(())
    }
}

fn queued(fd: i32) -> i32 {
    let mut n: libc::c_int = 0;
    // SAFETY: FIONREAD writes an int.
    assert_eq!(unsafe { libc::ioctl(fd, libc::FIONREAD, &mut n) }, 0);
    n
}

fn shared_page(prot: i32) -> usize {
    // SAFETY: a fresh shared anonymous page, checked.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            4096,
            prot,
            libc::MAP_SHARED | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    assert_ne!(p, libc::MAP_FAILED);
    p as usize
}

/// Sets up everything the attacks aim at, in the program.
fn set_up() {
    std::env::set_var("HOSTILE_PROGRAM_PID", std::process::id().to_string());
    let dir = scenario_dir();
    // SAFETY: plain system calls on fresh objects, each result checked.
    unsafe {
        let mut p = [0; 2];
        assert_eq!(libc::pipe2(p.as_mut_ptr(), libc::O_CLOEXEC), 0);
        assert_eq!(libc::write(p[1], b"queued!!".as_ptr().cast(), 8), 8);
        let mut s = [0; 2];
        assert_eq!(
            libc::socketpair(libc::AF_UNIX, libc::SOCK_STREAM, 0, s.as_mut_ptr()),
            0
        );
        assert_eq!(libc::write(s[0], b"hello".as_ptr().cast(), 5), 5);

        std::fs::write(dir.join("data.txt"), "0123456789").unwrap();
        let file = std::fs::File::open(dir.join("data.txt"))
            .unwrap()
            .into_raw_fd();
        assert_eq!(libc::lseek(file, 3, libc::SEEK_SET), 3);
        let log = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(dir.join("app.log"))
            .unwrap()
            .into_raw_fd();
        std::fs::write(dir.join("locked"), "").unwrap();
        let locked = std::fs::File::open(dir.join("locked"))
            .unwrap()
            .into_raw_fd();
        assert_eq!(libc::flock(locked, libc::LOCK_EX), 0);

        let epoll = libc::epoll_create1(libc::EPOLL_CLOEXEC);
        let mut ev = libc::epoll_event {
            events: libc::EPOLLIN as u32,
            u64: 7,
        };
        assert_eq!(
            libc::epoll_ctl(epoll, libc::EPOLL_CTL_ADD, p[0], &mut ev),
            0
        );
        let timer = libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_CLOEXEC);
        let event = libc::eventfd(3, libc::EFD_CLOEXEC);
        let memfd = libc::memfd_create(c"hostile".as_ptr(), libc::MFD_ALLOW_SEALING);
        assert_eq!(libc::write(memfd, b"memfd data".as_ptr().cast(), 10), 10);
        assert!(epoll >= 0 && timer >= 0 && event >= 0 && memfd >= 0);

        let shared = shared_page(libc::PROT_READ | libc::PROT_WRITE);
        *(shared as *mut u64) = 7;
        let write_only = shared_page(libc::PROT_WRITE);
        let shm_id = libc::shmget(libc::IPC_PRIVATE, 4096, libc::IPC_CREAT | 0o600);
        assert!(shm_id >= 0);
        let seg = libc::shmat(shm_id, std::ptr::null(), 0);
        *(seg as *mut u64) = 11;
        let sem_id = libc::semget(libc::IPC_PRIVATE, 1, libc::IPC_CREAT | 0o600);
        let msg_id = libc::msgget(libc::IPC_PRIVATE, libc::IPC_CREAT | 0o600);
        assert!(sem_id >= 0 && msg_id >= 0);
        std::env::set_var("HOSTILE_SEGMENT", (seg as usize).to_string());

        assert!(FIXTURE
            .set(Fixture {
                pipe_r: p[0],
                pipe_w: p[1],
                sock_a: s[0],
                sock_b: s[1],
                file,
                log,
                locked,
                epoll,
                timer,
                event,
                memfd,
                shared,
                write_only,
                shm_id,
                sem_id,
                msg_id,
            })
            .is_ok());
    }
}

/// Removes the SysV objects (they outlive processes).
fn tear_down() {
    let f = fx();
    // SAFETY: removing objects this program created.
    unsafe {
        libc::shmctl(f.shm_id, libc::IPC_RMID, std::ptr::null_mut());
        libc::semctl(f.sem_id, 0, libc::IPC_RMID);
        libc::msgctl(f.msg_id, libc::IPC_RMID, std::ptr::null_mut());
    }
}

/// Declares a category's *pure twin*: a module holding a pure site, `site(x: u64) -> u64`,
/// whose hand-written metamorphic tests are the category's attacks, each a wrapper that calls
/// the In Vivo test of the same name. The worker runs them, one after the other in its
/// executor, where a forked site runs each in a process of its own: the program's checks then
/// show that neither way changes what it sees. A twin's records carry the attack's name, and
/// the twin's site name ends with [`TWIN`]. Options in parentheses after the module's name go
/// into the attribute.
macro_rules! pure_twin {
    ($module:ident $(($($option:tt)*))? { $($attack:ident),+ $(,)? }) => {
        mod $module {
            #[invite::metamorphic(pure, $($($option)*,)? $(test = $attack),+)]
            pub(super) fn site(x: u64) -> u64 {
                x
            }

            $(
                fn $attack(x: &u64, _result: &u64) -> Result<(), String> {
                    super::$attack(x)
                }
            )+
        }
    };
}

/// How the name of every twin's site ends.
const TWIN: &str = "_twin::site";

/// Waits until every attack has run: the forked runs, which `wait_idle` follows, and the
/// worker's calls, which it does not (they take no slot). `shutdown` drains the worker and
/// stops it, so no attack runs after the program's checks.
fn settle() {
    assert!(invite::wait_idle(WAIT));
    invite::shutdown();
}

/// Checks each test's outcome against what it may be, in the forked site's run and in its pure
/// twin's, with `worker` giving other outcomes the twin may have instead (each says why where
/// it is given); prints the table on failure.
fn expect_with(run: &support::Run, expected: &[(&str, &[Outcome])], worker: &[(&str, &[Outcome])]) {
    let mut wrong = Vec::new();
    for (test, allowed) in expected {
        let (twin, forked): (Vec<_>, Vec<_>) = run
            .tests_of(test)
            .into_iter()
            .partition(|t| t.site.ends_with(TWIN));
        let in_worker = worker
            .iter()
            .find(|(t, _)| t == test)
            .map_or(*allowed, |(_, a)| *a);
        for (how, t, allowed) in [("forked", forked, *allowed), ("worker", twin, in_worker)] {
            match t.as_slice() {
                [t] if allowed.contains(&t.outcome) => {}
                [t] => wrong.push(format!(
                    "{test} ({how}): {:?} (expected one of {allowed:?}): {}",
                    t.outcome,
                    t.detail.as_deref().unwrap_or("")
                )),
                _ => wrong.push(format!("{test} ({how}): {} records", t.len())),
            }
        }
    }
    assert!(wrong.is_empty(), "{}\n{}", wrong.join("\n"), run.describe());
}

/// [`expect_with`] where the worker's outcomes are the forked run's.
fn expect(run: &support::Run, expected: &[(&str, &[Outcome])]) {
    expect_with(run, expected, &[]);
}

const DENIED: &[Outcome] = &[Blocked, Fail];
const BLOCKED: &[Outcome] = &[Blocked];

// ---------------------------------------------------------------------------------------------
// Descriptors inherited from the program share its open file descriptions.

#[invite::in_vivo(
    test = steals_queued_pipe_bytes,
    test = steals_socket_bytes,
    test = moves_the_file_offset,
    test = reads_the_file_at_the_programs_offset,
    test = makes_the_pipe_nonblocking,
    test = releases_the_programs_flock,
    test = shuts_the_socket_down,
    test = removes_the_pipe_from_epoll,
    test = arms_the_timer,
    test = drains_the_eventfd,
    test = seals_the_memfd,
    test = resizes_the_pipe,
    test = shrinks_the_socket_buffer,
    test = reads_the_programs_stdin,
)]
fn descriptors_site(x: u64) -> u64 {
    x
}

pure_twin!(descriptors_twin {
    steals_queued_pipe_bytes,
    steals_socket_bytes,
    moves_the_file_offset,
    reads_the_file_at_the_programs_offset,
    makes_the_pipe_nonblocking,
    releases_the_programs_flock,
    shuts_the_socket_down,
    removes_the_pipe_from_epoll,
    arms_the_timer,
    drains_the_eventfd,
    seals_the_memfd,
    resizes_the_pipe,
    shrinks_the_socket_buffer,
    reads_the_programs_stdin,
});

fn steals_queued_pipe_bytes(_: &u64) -> Result<(), String> {
    let mut b = [0u8; 8];
    // SAFETY: reading into a local buffer.
    ok(
        "read",
        unsafe { libc::read(fx().pipe_r, b.as_mut_ptr().cast(), 8) } as i64,
    )
}

/// The program's standard input is a pipe with bytes queued; a test's is `/dev/null`.
fn reads_the_programs_stdin(_: &u64) -> Result<(), String> {
    let mut b = [0u8; 16];
    // SAFETY: reading into a local buffer.
    let n = unsafe { libc::read(0, b.as_mut_ptr().cast(), b.len()) };
    ok("read", n as i64)?;
    if n > 0 {
        return Err(format!("read {n} bytes of the program's standard input"));
    }
    let rdev = |fd: i32| {
        // SAFETY: fstat fills a local stat buffer.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: fstat fills the local stat buffer.
        (unsafe { libc::fstat(fd, &mut st) } == 0)
            .then_some((st.st_mode & libc::S_IFMT, st.st_rdev))
    };
    let null = std::fs::File::open("/dev/null").map_err(|e| e.to_string())?;
    if rdev(0) != rdev(null.as_raw_fd()) {
        return Err(format!("standard input is not /dev/null: {:?}", rdev(0)));
    }
    Ok(())
}

fn steals_socket_bytes(_: &u64) -> Result<(), String> {
    let mut b = [0u8; 5];
    // SAFETY: receiving into a local buffer.
    ok(
        "recv",
        unsafe { libc::recv(fx().sock_b, b.as_mut_ptr().cast(), 5, 0) } as i64,
    )
}

fn moves_the_file_offset(_: &u64) -> Result<(), String> {
    // SAFETY: seeking a descriptor the test holds.
    ok("lseek", unsafe {
        libc::lseek(fx().file, 0, libc::SEEK_END)
    })?;
    let mut b = [0u8; 4];
    // SAFETY: reading into a local buffer.
    ok(
        "read",
        unsafe { libc::read(fx().file, b.as_mut_ptr().cast(), 4) } as i64,
    )
}

/// Allowed: the test reads its own copy of the program's file, from the program's offset.
fn reads_the_file_at_the_programs_offset(_: &u64) -> Result<(), String> {
    let mut b = [0u8; 4];
    // SAFETY: reading into a local buffer.
    let n = unsafe { libc::read(fx().file, b.as_mut_ptr().cast(), 4) };
    if n == 4 && &b == b"3456" {
        Ok(())
    } else {
        Err(format!("read {n} bytes: {:?}", &b[..n.max(0) as usize]))
    }
}

fn makes_the_pipe_nonblocking(_: &u64) -> Result<(), String> {
    // SAFETY: fcntl on a descriptor the test holds.
    ok(
        "fcntl",
        // SAFETY: F_SETFL on an inherited descriptor: what the test attempts.
        unsafe { libc::fcntl(fx().pipe_w, libc::F_SETFL, libc::O_NONBLOCK) } as i64,
    )?;
    let mut on: libc::c_int = 1;
    // SAFETY: FIONBIO reads an int.
    ok(
        "ioctl",
        unsafe { libc::ioctl(fx().sock_a, libc::FIONBIO, &mut on) } as i64,
    )
}

fn releases_the_programs_flock(_: &u64) -> Result<(), String> {
    // SAFETY: flock on a descriptor the test holds.
    ok("flock", unsafe { libc::flock(fx().locked, libc::LOCK_UN) }
        as i64)
}

fn shuts_the_socket_down(_: &u64) -> Result<(), String> {
    // SAFETY: shutdown on a descriptor the test holds.
    ok(
        "shutdown",
        unsafe { libc::shutdown(fx().sock_a, libc::SHUT_RDWR) } as i64,
    )
}

fn removes_the_pipe_from_epoll(_: &u64) -> Result<(), String> {
    // SAFETY: epoll_ctl on a descriptor the test holds.
    let r = unsafe {
        libc::epoll_ctl(
            fx().epoll,
            libc::EPOLL_CTL_DEL,
            fx().pipe_r,
            std::ptr::null_mut(),
        )
    };
    ok("epoll_ctl", r as i64)
}

fn arms_the_timer(_: &u64) -> Result<(), String> {
    let spec = libc::itimerspec {
        it_interval: libc::timespec {
            tv_sec: 1,
            tv_nsec: 0,
        },
        it_value: libc::timespec {
            tv_sec: 1000,
            tv_nsec: 0,
        },
    };
    // SAFETY: arming a timer the test holds.
    let r = unsafe { libc::timerfd_settime(fx().timer, 0, &spec, std::ptr::null_mut()) };
    ok("timerfd_settime", r as i64)
}

fn drains_the_eventfd(_: &u64) -> Result<(), String> {
    let mut v = 0u64;
    // SAFETY: reading 8 bytes into a u64.
    ok(
        "read",
        unsafe { libc::read(fx().event, (&mut v as *mut u64).cast(), 8) } as i64,
    )
}

fn seals_the_memfd(_: &u64) -> Result<(), String> {
    // SAFETY: fcntl on a descriptor the test holds.
    let r = unsafe { libc::fcntl(fx().memfd, libc::F_ADD_SEALS, libc::F_SEAL_WRITE) };
    ok("fcntl(F_ADD_SEALS)", r as i64)
}

fn resizes_the_pipe(_: &u64) -> Result<(), String> {
    // SAFETY: fcntl on a descriptor the test holds.
    ok(
        "fcntl(F_SETPIPE_SZ)",
        unsafe { libc::fcntl(fx().pipe_w, libc::F_SETPIPE_SZ, 4096) } as i64,
    )
}

fn shrinks_the_socket_buffer(_: &u64) -> Result<(), String> {
    let size: libc::c_int = 4096;
    // SAFETY: setsockopt reads an int.
    let r = unsafe {
        libc::setsockopt(
            fx().sock_b,
            libc::SOL_SOCKET,
            libc::SO_RCVBUF,
            (&size as *const libc::c_int).cast(),
            4,
        )
    };
    ok("setsockopt", r as i64)
}

fn rcvbuf(fd: i32) -> i32 {
    let mut v: libc::c_int = 0;
    let mut len: libc::socklen_t = 4;
    // SAFETY: getsockopt writes an int.
    unsafe {
        libc::getsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_RCVBUF,
            (&mut v as *mut libc::c_int).cast(),
            &mut len,
        )
    };
    v
}

#[test]
fn inherited_descriptors_keep_the_programs_data_offsets_flags_and_locks() {
    let run = scenario(here!(), CONFIG, || {
        set_up();
        let f = fx();
        // The program's standard input: a pipe with bytes waiting to be read.
        let mut stdin = [0i32; 2];
        // SAFETY: a new pipe; its read end replaces descriptor 0, which only this program uses.
        unsafe {
            assert_eq!(libc::pipe(stdin.as_mut_ptr()), 0);
            assert_eq!(
                libc::write(stdin[1], b"typed input".as_ptr().cast(), 11),
                11
            );
            assert_eq!(libc::dup2(stdin[0], 0), 0);
        }
        let (pipe_size, buf) = (
            // SAFETY: reading the pipe's size.
            unsafe { libc::fcntl(f.pipe_w, libc::F_GETPIPE_SZ) },
            rcvbuf(f.sock_b),
        );
        descriptors_site(1);
        descriptors_twin::site(1);
        settle();
        tear_down();
        let mut problems = Vec::new();
        let mut check = |ok: bool, what: &str| {
            if !ok {
                problems.push(what.to_string());
            }
        };
        check(queued(f.pipe_r) == 8, "the pipe's queued bytes were taken");
        check(
            queued(f.sock_b) == 5,
            "the socket's queued bytes were taken",
        );
        // SAFETY: reading the program's own descriptors' state.
        unsafe {
            check(
                libc::lseek(f.file, 0, libc::SEEK_CUR) == 3,
                "the file offset moved",
            );
            check(
                libc::fcntl(f.pipe_w, libc::F_GETFL) & libc::O_NONBLOCK == 0,
                "the pipe became non-blocking",
            );
            check(
                libc::fcntl(f.sock_a, libc::F_GETFL) & libc::O_NONBLOCK == 0,
                "the socket became non-blocking",
            );
            let other = std::fs::File::open(scenario_dir().join("locked")).unwrap();
            check(
                libc::flock(other.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) != 0,
                "the program's flock was released",
            );
            check(
                libc::write(f.sock_b, b"x".as_ptr().cast(), 1) == 1 && queued(f.sock_a) == 1,
                "the socket was shut down",
            );
            let mut ev = [libc::epoll_event { events: 0, u64: 0 }; 1];
            check(
                libc::epoll_wait(f.epoll, ev.as_mut_ptr(), 1, 0) == 1,
                "the pipe left the epoll set",
            );
            let mut t: libc::itimerspec = std::mem::zeroed();
            libc::timerfd_gettime(f.timer, &mut t);
            check(t.it_value.tv_sec == 0, "the timer was armed");
            let mut v = 0u64;
            check(
                libc::read(f.event, (&mut v as *mut u64).cast(), 8) == 8 && v == 3,
                "the eventfd was drained",
            );
            check(
                libc::fcntl(f.memfd, libc::F_GET_SEALS) == 0,
                "the memfd was sealed",
            );
            check(
                libc::fcntl(f.pipe_w, libc::F_GETPIPE_SZ) == pipe_size,
                "the pipe was resized",
            );
        }
        check(rcvbuf(f.sock_b) == buf, "the socket's buffer changed");
        check(queued(0) == 11, "the standard input's bytes were taken");
        assert!(problems.is_empty(), "changed: {problems:?}");
        println!("unchanged");
    });
    run.assert_success();
    assert_eq!(run.stdout, "unchanged\n", "{}", run.describe());
    expect_with(
        &run,
        &[
            ("steals_queued_pipe_bytes", DENIED),
            ("steals_socket_bytes", DENIED),
            ("moves_the_file_offset", &[Pass]),
            ("reads_the_file_at_the_programs_offset", &[Pass]),
            ("makes_the_pipe_nonblocking", DENIED),
            ("releases_the_programs_flock", BLOCKED),
            ("shuts_the_socket_down", DENIED),
            ("removes_the_pipe_from_epoll", DENIED),
            ("arms_the_timer", DENIED),
            ("drains_the_eventfd", DENIED),
            ("seals_the_memfd", BLOCKED),
            ("resizes_the_pipe", BLOCKED),
            ("shrinks_the_socket_buffer", BLOCKED),
            // Standard input is `/dev/null`: the read is allowed and finds nothing.
            ("reads_the_programs_stdin", &[Pass]),
        ],
        // The worker's executor opens the program's files again once, not before each test:
        // the test before this one moved the offset of the executor's own copy to the end, so
        // the read finds nothing there. The program's offset is checked above.
        &[("reads_the_file_at_the_programs_offset", &[Pass, Fail])],
    );
}

// ---------------------------------------------------------------------------------------------
// Ways around a rule that looks at descriptor numbers.

#[invite::in_vivo(
    test = dup2s_the_log_over_stdout,
    test = closes_stdout_then_dups_the_log,
    test = takes_the_programs_log_through_its_pidfd,
    test = writes_the_log_directly,
    test = writes_every_descriptor_it_holds,
    test = opens_its_log_again_for_writing,
    test = sends_on_the_programs_socket,
)]
fn writes_site(x: u64) -> u64 {
    x
}

pure_twin!(writes_twin {
    dup2s_the_log_over_stdout,
    closes_stdout_then_dups_the_log,
    takes_the_programs_log_through_its_pidfd,
    writes_the_log_directly,
    writes_every_descriptor_it_holds,
    opens_its_log_again_for_writing,
    sends_on_the_programs_socket,
});

fn dup2s_the_log_over_stdout(_: &u64) -> Result<(), String> {
    // SAFETY: dup2 and write on descriptors the test holds.
    unsafe {
        ok("dup2", libc::dup2(fx().log, 1) as i64)?;
        ok(
            "write",
            libc::write(1, b"via stdout\n".as_ptr().cast(), 11) as i64,
        )?;
    }
    Err("wrote through stdout, into /dev/null or the log".into())
}

fn closes_stdout_then_dups_the_log(_: &u64) -> Result<(), String> {
    // SAFETY: as above.
    unsafe {
        libc::close(1);
        ok(
            "fcntl(F_DUPFD)",
            libc::fcntl(fx().log, libc::F_DUPFD, 1) as i64,
        )?;
        ok(
            "write",
            libc::write(1, b"via F_DUPFD\n".as_ptr().cast(), 12) as i64,
        )
    }
}

fn takes_the_programs_log_through_its_pidfd(_: &u64) -> Result<(), String> {
    // SAFETY: raw system calls; the descriptor they return is the test's.
    unsafe {
        let pidfd = libc::syscall(libc::SYS_pidfd_open, program_pid(), 0);
        ok("pidfd_open", pidfd)?;
        let fd = libc::syscall(libc::SYS_pidfd_getfd, pidfd, fx().log, 0);
        ok("pidfd_getfd", fd)?;
        ok(
            "write",
            libc::write(fd as i32, b"via pidfd\n".as_ptr().cast(), 10) as i64,
        )
    }
}

fn writes_the_log_directly(_: &u64) -> Result<(), String> {
    // SAFETY: write from a static buffer.
    ok(
        "write",
        unsafe { libc::write(fx().log, b"direct\n".as_ptr().cast(), 7) } as i64,
    )
}

/// Writes junk to every descriptor number it holds: the program's, and invite's own.
fn writes_every_descriptor_it_holds(_: &u64) -> Result<(), String> {
    let mut written = 0;
    for fd in 3..1024 {
        // SAFETY: write from a static buffer to whatever the number holds.
        if unsafe { libc::write(fd, b"{\"junk\":1}\n".as_ptr().cast(), 11) } > 0 {
            written += 1;
        }
    }
    Err(format!("{written} descriptors took the junk"))
}

fn opens_its_log_again_for_writing(_: &u64) -> Result<(), String> {
    let path = format!("/proc/self/fd/{}\0", fx().log);
    // SAFETY: open with a NUL-terminated path.
    let fd = unsafe { libc::open(path.as_ptr().cast(), libc::O_WRONLY | libc::O_APPEND) };
    ok("open", fd as i64)?;
    // SAFETY: write from a static buffer.
    ok(
        "write",
        unsafe { libc::write(fd, b"reopened\n".as_ptr().cast(), 9) } as i64,
    )
}

fn sends_on_the_programs_socket(_: &u64) -> Result<(), String> {
    // SAFETY: send from a static buffer.
    ok(
        "send",
        unsafe { libc::send(fx().sock_b, b"spoof".as_ptr().cast(), 5, 0) } as i64,
    )
}

#[test]
fn writes_reach_nothing_of_the_programs_through_any_descriptor_number() {
    let run = scenario(here!(), CONFIG, || {
        set_up();
        writes_site(1);
        writes_twin::site(1);
        settle();
        tear_down();
        let f = fx();
        let log = std::fs::read_to_string(scenario_dir().join("app.log")).unwrap();
        assert_eq!(log, "", "a test wrote into the program's log");
        assert_eq!(queued(f.sock_a), 0, "a test sent on the program's socket");
        assert_eq!(queued(f.pipe_r), 8, "a test wrote into the program's pipe");
        println!("unchanged");
    });
    run.assert_success();
    assert_eq!(run.stdout, "unchanged\n", "{}", run.describe());
    // Nothing forged reached invite's own log: every record parses, one per test and site.
    assert_eq!(run.tests().len(), 2 * 7, "{}", run.describe());
    expect(
        &run,
        &[
            ("dup2s_the_log_over_stdout", DENIED),
            ("closes_stdout_then_dups_the_log", DENIED),
            ("takes_the_programs_log_through_its_pidfd", BLOCKED),
            ("writes_the_log_directly", DENIED),
            // Its junk reaches only its own verdict pipe, so it cannot even report.
            ("writes_every_descriptor_it_holds", &[Error, Fail]),
            ("opens_its_log_again_for_writing", BLOCKED),
            ("sends_on_the_programs_socket", DENIED),
        ],
    );
}

// ---------------------------------------------------------------------------------------------
// Shared memory.

#[invite::in_vivo(
    test = stores_into_shared_memory,
    test = mprotects_then_stores,
    test = stores_into_a_write_only_mapping,
    test = maps_the_memfd_shared,
    test = attaches_the_sysv_segment,
    test = stores_into_the_attached_segment,
    test = punches_a_hole_in_shared_memory,
    test = writes_the_programs_memory,
    test = registers_userfaultfd,
    test = writes_proc_mem,
    test = stores_into_the_programs_file_mapping,
    test = stores_into_the_programs_memfd_mapping,
)]
fn memory_site(x: u64) -> u64 {
    x
}

pure_twin!(memory_twin {
    stores_into_shared_memory,
    mprotects_then_stores,
    stores_into_a_write_only_mapping,
    maps_the_memfd_shared,
    attaches_the_sysv_segment,
    stores_into_the_attached_segment,
    punches_a_hole_in_shared_memory,
    writes_the_programs_memory,
    registers_userfaultfd,
    writes_proc_mem,
    stores_into_the_programs_file_mapping,
    stores_into_the_programs_memfd_mapping,
});

/// Shared mappings the program made before the fork: of a file on disk, and of its memfd.
static PROGRAM_MAPPINGS: OnceLock<(usize, usize)> = OnceLock::new();

/// The program maps `file` and its memfd shared and writable, 4096 bytes each.
fn map_shared(file: i32, memfd: i32) -> (usize, usize) {
    let map = |fd| {
        // SAFETY: a shared mapping of a descriptor the program holds, checked.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                4096,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd,
                0,
            )
        };
        assert_ne!(p, libc::MAP_FAILED, "{}", std::io::Error::last_os_error());
        p as usize
    };
    (map(file), map(memfd))
}

/// Allowed: the file's pages became the test's private copy; flushing them writes nothing.
fn stores_into_the_programs_file_mapping(_: &u64) -> Result<(), String> {
    let (file, _) = *PROGRAM_MAPPINGS.get().unwrap();
    // SAFETY: the program mapped this page before the fork.
    unsafe {
        std::ptr::write_bytes(file as *mut u8, b'T', 4096);
        let _ = libc::msync(file as *mut libc::c_void, 4096, libc::MS_SYNC);
    }
    Ok(())
}

/// Allowed: as above, for the memfd's pages.
fn stores_into_the_programs_memfd_mapping(_: &u64) -> Result<(), String> {
    let (_, memfd) = *PROGRAM_MAPPINGS.get().unwrap();
    // SAFETY: the program mapped this page before the fork.
    unsafe { std::ptr::write_bytes(memfd as *mut u8, b'T', 16) };
    Ok(())
}

/// Allowed: the store lands in the test's private copy.
fn stores_into_shared_memory(_: &u64) -> Result<(), String> {
    // SAFETY: the page is mapped (privately, in the test).
    unsafe { std::ptr::write_volatile(fx().shared as *mut u64, 99) };
    Ok(())
}

fn mprotects_then_stores(_: &u64) -> Result<(), String> {
    let p = fx().shared as *mut libc::c_void;
    // SAFETY: mprotect of a page the test maps, then a store into it.
    unsafe {
        ok(
            "mprotect",
            libc::mprotect(p, 4096, libc::PROT_READ | libc::PROT_WRITE) as i64,
        )?;
        std::ptr::write_volatile((p as *mut u64).add(1), 98);
    }
    Ok(())
}

fn stores_into_a_write_only_mapping(_: &u64) -> Result<(), String> {
    // SAFETY: the page is mapped writable.
    unsafe { std::ptr::write_volatile(fx().write_only as *mut u64, 97) };
    Ok(())
}

fn maps_the_memfd_shared(_: &u64) -> Result<(), String> {
    // SAFETY: mmap of a descriptor the test holds; checked.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            4096,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            fx().memfd,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return ok("mmap", -1);
    }
    // SAFETY: the mapping just made.
    unsafe { std::ptr::write_volatile(p as *mut u8, b'X') };
    Ok(())
}

fn attaches_the_sysv_segment(_: &u64) -> Result<(), String> {
    // SAFETY: shmat of the program's segment id, checked.
    let p = unsafe { libc::shmat(fx().shm_id, std::ptr::null(), 0) };
    if p as isize == -1 {
        return ok("shmat", -1);
    }
    // SAFETY: the segment just attached.
    unsafe { std::ptr::write_volatile(p as *mut u64, 96) };
    Ok(())
}

/// Allowed: the attached segment became a private copy.
fn stores_into_the_attached_segment(_: &u64) -> Result<(), String> {
    let seg: usize = std::env::var("HOSTILE_SEGMENT").unwrap().parse().unwrap();
    // SAFETY: the program attached the segment at this address before the fork.
    unsafe { std::ptr::write_volatile(seg as *mut u64, 95) };
    Ok(())
}

fn punches_a_hole_in_shared_memory(_: &u64) -> Result<(), String> {
    // SAFETY: madvise on a page the test maps.
    ok("madvise", unsafe {
        libc::madvise(fx().shared as *mut libc::c_void, 4096, libc::MADV_REMOVE)
    } as i64)
}

fn writes_the_programs_memory(_: &u64) -> Result<(), String> {
    let v = 94u64;
    let local = libc::iovec {
        iov_base: (&v as *const u64) as *mut libc::c_void,
        iov_len: 8,
    };
    let remote = libc::iovec {
        iov_base: fx().shared as *mut libc::c_void,
        iov_len: 8,
    };
    // SAFETY: both iovecs are valid in their processes; the call is under test.
    ok("process_vm_writev", unsafe {
        libc::process_vm_writev(program_pid(), &local, 1, &remote, 1, 0)
    } as i64)
}

fn registers_userfaultfd(_: &u64) -> Result<(), String> {
    // SAFETY: userfaultfd takes flags only.
    ok("userfaultfd", unsafe {
        libc::syscall(libc::SYS_userfaultfd, 0)
    })
}

fn writes_proc_mem(_: &u64) -> Result<(), String> {
    let path = format!("/proc/{}/mem\0", program_pid());
    // SAFETY: open with a NUL-terminated path.
    let fd = unsafe { libc::open(path.as_ptr().cast(), libc::O_RDWR) };
    ok("open", fd as i64)?;
    let v = 93u64;
    // SAFETY: pwrite from a local value.
    ok(
        "pwrite",
        unsafe { libc::pwrite(fd, (&v as *const u64).cast(), 8, fx().shared as i64) } as i64,
    )
}

#[test]
fn shared_memory_of_the_program_stays_as_it_was() {
    let run = scenario(here!(), CONFIG, || {
        set_up();
        let mapped_file = scenario_dir().join("mapped.bin");
        std::fs::write(&mapped_file, [b'F'; 4096]).unwrap();
        let mapped = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&mapped_file)
            .unwrap();
        let (file_map, memfd_map) = map_shared(mapped.as_raw_fd(), fx().memfd);
        PROGRAM_MAPPINGS.set((file_map, memfd_map)).unwrap();
        memory_site(1);
        memory_twin::site(1);
        settle();
        // The file on disk, the program's view of it, and its memfd through its mapping.
        assert_eq!(std::fs::read(&mapped_file).unwrap(), [b'F'; 4096]);
        // SAFETY: reading the program's own mappings.
        unsafe {
            assert_eq!(
                std::slice::from_raw_parts(file_map as *const u8, 4096),
                [b'F'; 4096]
            );
            assert_eq!(
                std::slice::from_raw_parts(memfd_map as *const u8, 10),
                b"memfd data"
            );
        }
        let f = fx();
        let seg: usize = std::env::var("HOSTILE_SEGMENT").unwrap().parse().unwrap();
        // SAFETY: reading the program's own mappings.
        let (a, b, w, s) = unsafe {
            (
                *(f.shared as *const u64),
                *((f.shared as *const u64).add(1)),
                *(f.write_only as *const u64),
                *(seg as *const u64),
            )
        };
        let mut memfd = [0u8; 10];
        // SAFETY: pread into a local buffer.
        unsafe { libc::pread(f.memfd, memfd.as_mut_ptr().cast(), 10, 0) };
        tear_down();
        assert_eq!(
            (a, b, w, s),
            (7, 0, 0, 11),
            "a test's store reached the program"
        );
        assert_eq!(&memfd, b"memfd data");
        println!("unchanged");
    });
    run.assert_success();
    assert_eq!(run.stdout, "unchanged\n", "{}", run.describe());
    expect(
        &run,
        &[
            ("stores_into_shared_memory", &[Pass]),
            ("mprotects_then_stores", &[Pass]),
            ("stores_into_a_write_only_mapping", &[Pass]),
            ("maps_the_memfd_shared", BLOCKED),
            ("attaches_the_sysv_segment", BLOCKED),
            ("stores_into_the_attached_segment", &[Pass]),
            ("punches_a_hole_in_shared_memory", DENIED),
            ("writes_the_programs_memory", BLOCKED),
            ("registers_userfaultfd", BLOCKED),
            ("writes_proc_mem", BLOCKED),
            ("stores_into_the_programs_file_mapping", &[Pass]),
            ("stores_into_the_programs_memfd_mapping", &[Pass]),
        ],
    );
}

// ---------------------------------------------------------------------------------------------
// Every shared page a test holds, whatever it belongs to.

#[invite::in_vivo(test = stores_into_every_shared_mapping)]
fn every_mapping_site(x: u64) -> u64 {
    x
}

pure_twin!(every_mapping_twin {
    stores_into_every_shared_mapping,
});

/// What [`stores_into_every_shared_mapping`] stores: found in the program's memory, a test's
/// store reached it.
const MARKER: u64 = 0x4d41_524b_4552_2121;

/// The writable shared mappings of this process, as (start, end), from its maps.
fn writable_shared_mappings() -> Vec<(usize, usize)> {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
    maps.lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let (range, perms) = (fields.next()?, fields.next()?);
            if perms != "rw-s" {
                return None;
            }
            let (start, end) = range.split_once('-')?;
            let hex = |h| usize::from_str_radix(h, 16).ok();
            Some((hex(start)?, hex(end)?))
        })
        .collect()
}

/// Allowed where every shared mapping it holds is a private copy: it fills every writable
/// shared mapping it finds with a marker, whatever it belongs to.
fn stores_into_every_shared_mapping(_: &u64) -> Result<(), String> {
    for (start, end) in writable_shared_mappings() {
        for at in (start..end).step_by(8) {
            // SAFETY: the address lies in a writable mapping of this process.
            unsafe { std::ptr::write_volatile(at as *mut u64, MARKER) };
        }
    }
    Ok(())
}

/// The program's writable shared mappings that hold the marker somewhere.
fn marked_shared_mappings() -> Vec<String> {
    writable_shared_mappings()
        .into_iter()
        .filter(|&(start, end)| {
            (start..end).step_by(8).any(|at| {
                // SAFETY: the address lies in a readable mapping of this process.
                unsafe { std::ptr::read_volatile(at as *const u64) == MARKER }
            })
        })
        .map(|(start, end)| format!("{start:x}-{end:x}"))
        .collect()
}

/// A forked test holds no shared page: every one became its private copy. The worker's
/// executor holds none of the program's either: the ring is mapped read-only, and the progress
/// page the program reads is unmapped there (only the supervisor, which runs no test, keeps it).
#[test]
fn no_test_reaches_a_shared_page_of_the_programs() {
    let run = scenario(here!(), CONFIG, || {
        every_mapping_site(1);
        every_mapping_twin::site(1);
        settle();
        let marked = marked_shared_mappings();
        assert!(marked.is_empty(), "a test's marker reached {marked:?}");
        println!("unchanged");
    });
    run.assert_success();
    assert_eq!(run.stdout, "unchanged\n", "{}", run.describe());
    expect(&run, &[("stores_into_every_shared_mapping", &[Pass])]);
}

// ---------------------------------------------------------------------------------------------
// Other processes and kernel objects.

#[invite::in_vivo(
    test = lowers_the_programs_priority,
    test = pins_the_program_to_a_cpu,
    test = lowers_the_programs_limits,
    test = makes_the_program_idle,
    test = sets_the_programs_io_priority,
    test = profiles_the_program,
    test = signals_the_program,
    test = asks_for_sigio_to_the_program,
    test = removes_the_sysv_segment,
    test = operates_the_semaphore,
    test = queues_a_message,
    test = creates_a_posix_queue,
    test = adds_a_key,
    test = sets_an_xattr,
    test = touches_file_times,
    test = changes_the_mode,
    test = renames_the_host,
    test = links_the_data_file,
    test = makes_a_directory,
    test = gives_the_file_away,
    test = takes_a_lease_on_the_programs_file,
    test = loads_a_bpf_map,
    test = mounts_over_the_programs_directory,
    test = truncates_the_data_file,
    test = truncates_and_punches_the_programs_log,
)]
fn kernel_site(x: u64) -> u64 {
    x
}

pure_twin!(kernel_twin {
    lowers_the_programs_priority,
    pins_the_program_to_a_cpu,
    lowers_the_programs_limits,
    makes_the_program_idle,
    sets_the_programs_io_priority,
    profiles_the_program,
    signals_the_program,
    asks_for_sigio_to_the_program,
    removes_the_sysv_segment,
    operates_the_semaphore,
    queues_a_message,
    creates_a_posix_queue,
    adds_a_key,
    sets_an_xattr,
    touches_file_times,
    changes_the_mode,
    renames_the_host,
    links_the_data_file,
    makes_a_directory,
    gives_the_file_away,
    takes_a_lease_on_the_programs_file,
    loads_a_bpf_map,
    mounts_over_the_programs_directory,
    truncates_the_data_file,
    truncates_and_punches_the_programs_log,
});

fn lowers_the_programs_priority(_: &u64) -> Result<(), String> {
    // SAFETY: setpriority takes plain integers.
    ok(
        "setpriority",
        unsafe { libc::setpriority(libc::PRIO_PROCESS, program_pid() as u32, 19) } as i64,
    )
}

fn pins_the_program_to_a_cpu(_: &u64) -> Result<(), String> {
    // SAFETY: a cpu_set_t is plain data.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(0, &mut set);
        ok(
            "sched_setaffinity",
            libc::sched_setaffinity(program_pid(), std::mem::size_of_val(&set), &set) as i64,
        )
    }
}

fn lowers_the_programs_limits(_: &u64) -> Result<(), String> {
    let lim = libc::rlimit {
        rlim_cur: 16,
        rlim_max: 16,
    };
    // SAFETY: prlimit reads `lim`.
    ok("prlimit", unsafe {
        libc::prlimit(
            program_pid(),
            libc::RLIMIT_NOFILE,
            &lim,
            std::ptr::null_mut(),
        )
    } as i64)
}

fn makes_the_program_idle(_: &u64) -> Result<(), String> {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: sched_setscheduler reads `param`.
    ok("sched_setscheduler", unsafe {
        libc::sched_setscheduler(program_pid(), libc::SCHED_IDLE, &param)
    } as i64)
}

fn sets_the_programs_io_priority(_: &u64) -> Result<(), String> {
    // IOPRIO_WHO_PROCESS = 1; class idle (3) << 13.
    // SAFETY: ioprio_set takes plain integers.
    ok("ioprio_set", unsafe {
        libc::syscall(libc::SYS_ioprio_set, 1, program_pid(), 3 << 13)
    })
}

fn profiles_the_program(_: &u64) -> Result<(), String> {
    // A breakpoint-free software event on the program: the attempt is what is under test.
    let mut attr = [0u64; 16];
    attr[0] = 1 | (128 << 32); // PERF_TYPE_SOFTWARE, size 128
                               // SAFETY: perf_event_open reads the attribute block.
    ok("perf_event_open", unsafe {
        libc::syscall(
            libc::SYS_perf_event_open,
            attr.as_ptr(),
            program_pid(),
            -1,
            -1,
            0,
        )
    })
}

fn signals_the_program(_: &u64) -> Result<(), String> {
    // SAFETY: kill takes plain integers.
    ok("kill", unsafe { libc::kill(program_pid(), libc::SIGUSR1) }
        as i64)
}

fn asks_for_sigio_to_the_program(_: &u64) -> Result<(), String> {
    let mut p = [0; 2];
    // SAFETY: a pipe of the test's own, then fcntl on it.
    unsafe {
        ok("pipe", libc::pipe(p.as_mut_ptr()) as i64)?;
        ok(
            "F_SETOWN",
            libc::fcntl(p[0], libc::F_SETOWN, program_pid()) as i64,
        )?;
        ok(
            "F_SETSIG",
            libc::fcntl(p[0], 10 /* F_SETSIG */, libc::SIGUSR1) as i64,
        )?;
        ok(
            "F_SETFL",
            libc::fcntl(p[0], libc::F_SETFL, libc::O_ASYNC) as i64,
        )?;
        ok("write", libc::write(p[1], b"x".as_ptr().cast(), 1) as i64)
    }
}

fn removes_the_sysv_segment(_: &u64) -> Result<(), String> {
    // SAFETY: shmctl IPC_RMID takes no buffer.
    ok(
        "shmctl",
        unsafe { libc::shmctl(fx().shm_id, libc::IPC_RMID, std::ptr::null_mut()) } as i64,
    )
}

fn operates_the_semaphore(_: &u64) -> Result<(), String> {
    let mut op = libc::sembuf {
        sem_num: 0,
        sem_op: 5,
        sem_flg: 0,
    };
    // SAFETY: semop reads one sembuf.
    ok("semop", unsafe { libc::semop(fx().sem_id, &mut op, 1) }
        as i64)
}

fn queues_a_message(_: &u64) -> Result<(), String> {
    let msg: [u64; 2] = [1, 42];
    // SAFETY: msgsnd reads the type and 8 bytes of text.
    ok(
        "msgsnd",
        unsafe { libc::msgsnd(fx().msg_id, msg.as_ptr().cast(), 8, libc::IPC_NOWAIT) } as i64,
    )
}

fn creates_a_posix_queue(_: &u64) -> Result<(), String> {
    let name = queue_name();
    // SAFETY: mq_open with a NUL-terminated name and default attributes.
    let q = unsafe {
        libc::mq_open(
            name.as_ptr(),
            libc::O_CREAT | libc::O_RDWR,
            0o600,
            std::ptr::null_mut::<libc::mq_attr>(),
        )
    };
    ok("mq_open", q as i64)
}

fn adds_a_key(_: &u64) -> Result<(), String> {
    // KEY_SPEC_PROCESS_KEYRING = -2.
    // SAFETY: add_key reads NUL-terminated strings and a payload.
    ok("add_key", unsafe {
        libc::syscall(
            libc::SYS_add_key,
            c"user".as_ptr(),
            c"invite-hostile".as_ptr(),
            b"x".as_ptr(),
            1,
            -2,
        )
    })
}

/// A queue name of this program's own, so that runs never see each other's queues.
fn queue_name() -> std::ffi::CString {
    std::ffi::CString::new(format!("/invite-hostile-{}", program_pid())).unwrap()
}

fn data_path() -> std::ffi::CString {
    support::scenario_path("data.txt")
}

fn sets_an_xattr(_: &u64) -> Result<(), String> {
    // SAFETY: setxattr reads a path, a name and a value.
    ok("setxattr", unsafe {
        libc::setxattr(
            data_path().as_ptr(),
            c"user.invite".as_ptr(),
            b"1".as_ptr().cast(),
            1,
            0,
        )
    } as i64)
}

fn touches_file_times(_: &u64) -> Result<(), String> {
    // SAFETY: utimes with a NUL-terminated path and "now".
    ok(
        "utimes",
        unsafe { libc::utimes(data_path().as_ptr(), std::ptr::null()) } as i64,
    )
}

fn changes_the_mode(_: &u64) -> Result<(), String> {
    // fchmodat2 (452 on both architectures) with AT_FDCWD.
    // SAFETY: the call reads a NUL-terminated path.
    ok("fchmodat2", unsafe {
        libc::syscall(452, libc::AT_FDCWD, data_path().as_ptr(), 0o777, 0)
    })?;
    // SAFETY: as above.
    ok("chmod", unsafe { libc::chmod(data_path().as_ptr(), 0o777) }
        as i64)
}

fn renames_the_host(_: &u64) -> Result<(), String> {
    // SAFETY: unshare and sethostname take flags and a buffer.
    unsafe {
        let _ = libc::unshare(libc::CLONE_NEWUTS);
        ok(
            "sethostname",
            libc::sethostname(b"hostile".as_ptr().cast(), 7) as i64,
        )
    }
}

fn links_the_data_file(_: &u64) -> Result<(), String> {
    let hard = support::scenario_path("hard-link");
    let soft = support::scenario_path("soft-link");
    // SAFETY: link and symlink read two NUL-terminated paths.
    ok(
        "link",
        // SAFETY: link reads two NUL-terminated paths.
        unsafe { libc::link(data_path().as_ptr(), hard.as_ptr()) } as i64,
    )?;
    ok(
        "symlink",
        // SAFETY: symlink reads two NUL-terminated paths.
        unsafe { libc::symlink(data_path().as_ptr(), soft.as_ptr()) } as i64,
    )
}

fn makes_a_directory(_: &u64) -> Result<(), String> {
    let made = support::scenario_path("made");
    // SAFETY: mkdir reads a NUL-terminated path.
    ok("mkdir", unsafe { libc::mkdir(made.as_ptr(), 0o755) } as i64)
}

fn gives_the_file_away(_: &u64) -> Result<(), String> {
    // SAFETY: chown and fchown take a path or descriptor and ids.
    ok("fchown", unsafe { libc::fchown(fx().file, 4321, 4321) }
        as i64)?;
    ok(
        "chown",
        // SAFETY: chown reads a NUL-terminated path.
        unsafe { libc::chown(data_path().as_ptr(), 4321, 4321) } as i64,
    )
}

/// A lease belongs to the open file description, which the program shares: it would outlive
/// the test and make the program's next writer of the file wait for it to break.
fn takes_a_lease_on_the_programs_file(_: &u64) -> Result<(), String> {
    // SAFETY: fcntl on an inherited descriptor.
    ok(
        "F_SETLEASE",
        unsafe { libc::fcntl(fx().file, libc::F_SETLEASE, libc::F_RDLCK) } as i64,
    )
}

fn loads_a_bpf_map(_: &u64) -> Result<(), String> {
    // BPF_MAP_CREATE of a one-entry array: a kernel object that lives while anything holds it.
    let mut attr = [0u32; 30];
    attr[0] = 2; // BPF_MAP_TYPE_ARRAY
    attr[1] = 4; // key size
    attr[2] = 4; // value size
    attr[3] = 1; // entries
                 // SAFETY: bpf reads `attr` of the size given.
    ok("bpf", unsafe {
        libc::syscall(
            libc::SYS_bpf,
            0,
            attr.as_mut_ptr(),
            std::mem::size_of_val(&attr),
        )
    })
}

fn mounts_over_the_programs_directory(_: &u64) -> Result<(), String> {
    let target = support::scenario_path("");
    // SAFETY: mount reads NUL-terminated strings.
    ok("mount", unsafe {
        libc::mount(
            c"invite-hostile".as_ptr(),
            target.as_ptr(),
            c"tmpfs".as_ptr(),
            0,
            std::ptr::null(),
        )
    } as i64)
}

fn truncates_the_data_file(_: &u64) -> Result<(), String> {
    // SAFETY: truncate reads a NUL-terminated path.
    ok(
        "truncate",
        unsafe { libc::truncate(data_path().as_ptr(), 2) } as i64,
    )
}

/// The program's log is open for appending: shrinking it or punching a hole would lose what it
/// wrote.
fn truncates_and_punches_the_programs_log(_: &u64) -> Result<(), String> {
    // SAFETY: ftruncate and fallocate on an inherited descriptor.
    ok("ftruncate", unsafe { libc::ftruncate(fx().log, 0) } as i64)?;
    // SAFETY: fallocate on an inherited descriptor: what the test attempts.
    ok("fallocate", unsafe {
        libc::fallocate(
            fx().log,
            libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
            0,
            4,
        )
    } as i64)
}

/// The mounts the program sees.
fn mounts() -> String {
    std::fs::read_to_string("/proc/self/mountinfo").unwrap()
}

static SIGUSR1_SEEN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

extern "C" fn count_sigusr1(_: libc::c_int) {
    SIGUSR1_SEEN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
}

fn scheduling() -> (i32, usize, u64, i32, i64) {
    // SAFETY: reading this process's own settings into local buffers.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set);
        let mut lim: libc::rlimit = std::mem::zeroed();
        libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim);
        (
            libc::getpriority(libc::PRIO_PROCESS, 0),
            libc::CPU_COUNT(&set) as usize,
            lim.rlim_cur,
            libc::sched_getscheduler(0),
            libc::syscall(libc::SYS_ioprio_get, 1, 0),
        )
    }
}

#[test]
fn other_processes_and_kernel_objects_are_out_of_reach() {
    let run = scenario(here!(), CONFIG, || {
        set_up();
        // SAFETY: a handler that only counts.
        unsafe { libc::signal(libc::SIGUSR1, count_sigusr1 as *const () as usize) };
        let before = scheduling();
        let host_before = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
        let meta = std::fs::metadata(scenario_dir().join("data.txt")).unwrap();
        let mounts_before = mounts();
        // SAFETY: writing the program's own log.
        unsafe { libc::write(fx().log, b"kept\n".as_ptr().cast(), 5) };
        kernel_site(1);
        kernel_twin::site(1);
        settle();
        let f = fx();
        let mut problems = Vec::new();
        if scheduling() != before {
            problems.push(format!("scheduling {before:?} became {:?}", scheduling()));
        }
        if SIGUSR1_SEEN.load(std::sync::atomic::Ordering::Relaxed) != 0 {
            problems.push("the program got SIGUSR1".to_string());
        }
        // SAFETY: reading SysV objects the program owns.
        unsafe {
            let mut ds: libc::shmid_ds = std::mem::zeroed();
            if libc::shmctl(f.shm_id, libc::IPC_STAT, &mut ds) != 0 {
                problems.push("the segment was removed".into());
            }
            if libc::semctl(f.sem_id, 0, libc::GETVAL) != 0 {
                problems.push("the semaphore moved".into());
            }
            let mut mq: libc::msqid_ds = std::mem::zeroed();
            libc::msgctl(f.msg_id, libc::IPC_STAT, &mut mq);
            if mq.msg_qnum != 0 {
                problems.push("a message was queued".into());
            }
            let q = libc::mq_open(queue_name().as_ptr(), libc::O_RDONLY);
            if q >= 0 {
                libc::mq_unlink(queue_name().as_ptr());
                problems.push("a POSIX queue was created".into());
            }
            let mut v = [0u8; 4];
            if libc::getxattr(
                data_path().as_ptr(),
                c"user.invite".as_ptr(),
                v.as_mut_ptr().cast(),
                4,
            ) >= 0
            {
                problems.push("an xattr was set".into());
            }
        }
        let after = std::fs::metadata(scenario_dir().join("data.txt")).unwrap();
        if after.modified().unwrap() != meta.modified().unwrap()
            || after.permissions() != meta.permissions()
        {
            problems.push("the file's times or mode changed".into());
        }
        if std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap() != host_before {
            problems.push("the hostname changed".into());
        }
        {
            use std::os::unix::fs::MetadataExt;
            if (after.nlink(), after.uid(), after.gid()) != (meta.nlink(), meta.uid(), meta.gid()) {
                problems.push("the file's links or owner changed".into());
            }
        }
        if after.len() != meta.len() {
            problems.push("the data file was truncated".into());
        }
        if std::fs::read(scenario_dir().join("app.log")).unwrap() != b"kept\n" {
            problems.push("the program's log was truncated or punched".into());
        }
        for made in ["hard-link", "soft-link", "made"] {
            if std::fs::symlink_metadata(scenario_dir().join(made)).is_ok() {
                problems.push(format!("{made} was made"));
            }
        }
        // SAFETY: fcntl on the program's own descriptor.
        if unsafe { libc::fcntl(f.file, libc::F_GETLEASE) } != libc::F_UNLCK {
            problems.push("the program's file holds a lease".into());
        }
        if mounts() != mounts_before {
            problems.push("the program's mounts changed".into());
        }
        tear_down();
        assert!(problems.is_empty(), "changed: {problems:?}");
        println!("unchanged");
    });
    run.assert_success();
    assert_eq!(run.stdout, "unchanged\n", "{}", run.describe());
    let all: Vec<(&str, &[Outcome])> = [
        "lowers_the_programs_priority",
        "pins_the_program_to_a_cpu",
        "lowers_the_programs_limits",
        "makes_the_program_idle",
        "sets_the_programs_io_priority",
        "profiles_the_program",
        "signals_the_program",
        "asks_for_sigio_to_the_program",
        "removes_the_sysv_segment",
        "operates_the_semaphore",
        "queues_a_message",
        "creates_a_posix_queue",
        "adds_a_key",
        "sets_an_xattr",
        "touches_file_times",
        "changes_the_mode",
        "renames_the_host",
        "links_the_data_file",
        "makes_a_directory",
        "gives_the_file_away",
        "takes_a_lease_on_the_programs_file",
        "loads_a_bpf_map",
        "mounts_over_the_programs_directory",
        "truncates_the_data_file",
        "truncates_and_punches_the_programs_log",
    ]
    .into_iter()
    .map(|t| (t, BLOCKED))
    .collect();
    expect(&run, &all);
    // The blocked record names the call and the program's pid.
    let t = &run.tests_of("lowers_the_programs_priority")[0];
    let pid = run
        .records()
        .into_iter()
        .find_map(|r| match r {
            invite::record::Record::Start(s) => Some(s.instance.pid),
            _ => None,
        })
        .unwrap();
    let d = t.detail.as_deref().unwrap();
    assert!(d.contains(&format!("setpriority(0, pid {pid}")), "{d}");
}

// ---------------------------------------------------------------------------------------------
// Accidents: ordinary In Vivo tests of a struct that owns a file, a connection or a channel.

/// A service as programs write them: it owns its input file, a TCP connection, a Unix stream
/// and a channel, and its test reads from each.
struct Service {
    input: std::fs::File,
    tcp: std::net::TcpStream,
    unix: std::os::unix::net::UnixStream,
    inbox: std::sync::mpsc::Receiver<u64>,
}

static SERVICE: OnceLock<std::sync::Mutex<Service>> = OnceLock::new();

/// A deadline that ends a read a missing filter would leave waiting, with room for the tests
/// that pass on a busy machine.
#[invite::in_vivo(
    timeout_ms = 5000,
    test = reads_its_input_file,
    test = reads_its_connection,
    test = reads_its_unix_stream,
    test = takes_from_its_channel,
)]
fn serve(x: u64) -> u64 {
    x
}

pure_twin!(service_twin(timeout_ms = 5000) {
    reads_its_input_file,
    reads_its_connection,
    reads_its_unix_stream,
    takes_from_its_channel,
});

fn service() -> std::sync::MutexGuard<'static, Service> {
    SERVICE.get().unwrap().lock().unwrap()
}

/// Allowed: the file is the test's own copy, at the program's offset.
fn reads_its_input_file(_: &u64) -> Result<(), String> {
    let mut s = String::new();
    std::io::Read::read_to_string(&mut service().input, &mut s).map_err(|e| e.to_string())?;
    if s == "line two\n" {
        Ok(())
    } else {
        Err(format!("read {s:?}"))
    }
}

fn reads_its_connection(_: &u64) -> Result<(), String> {
    let mut b = [0u8; 4];
    std::io::Read::read_exact(&mut service().tcp, &mut b).map_err(|e| e.to_string())
}

fn reads_its_unix_stream(_: &u64) -> Result<(), String> {
    let mut b = [0u8; 4];
    std::io::Read::read_exact(&mut service().unix, &mut b).map_err(|e| e.to_string())
}

/// The channel is memory, copied by the fork: the test's receive takes from its copy.
fn takes_from_its_channel(_: &u64) -> Result<(), String> {
    let got = service().inbox.try_recv().map_err(|e| e.to_string())?;
    if got == 42 {
        Ok(())
    } else {
        Err(format!("got {got}"))
    }
}

#[test]
fn tests_of_a_struct_that_owns_descriptors_take_nothing_from_it() {
    let run = scenario(here!(), CONFIG, || {
        let dir = scenario_dir();
        std::fs::write(dir.join("input.txt"), "line one\nline two\n").unwrap();
        let mut input = std::fs::File::open(dir.join("input.txt")).unwrap();
        let mut first = [0u8; 9];
        std::io::Read::read_exact(&mut input, &mut first).unwrap();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let mut peer = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (tcp, _) = listener.accept().unwrap();
        std::io::Write::write_all(&mut peer, b"ping").unwrap();
        let (unix, mut unix_peer) = std::os::unix::net::UnixStream::pair().unwrap();
        std::io::Write::write_all(&mut unix_peer, b"pong").unwrap();
        let (tx, inbox) = std::sync::mpsc::channel();
        tx.send(42u64).unwrap();
        assert!(SERVICE
            .set(std::sync::Mutex::new(Service {
                input,
                tcp,
                unix,
                inbox
            }))
            .is_ok());
        serve(1);
        service_twin::site(1);
        settle();
        let mut s = service();
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut s.input, &mut rest).unwrap();
        assert_eq!(rest, "line two\n", "the file's offset moved");
        let mut b = [0u8; 4];
        s.tcp.set_nonblocking(true).unwrap();
        std::io::Read::read_exact(&mut s.tcp, &mut b).expect("the connection's bytes were taken");
        assert_eq!(&b, b"ping");
        s.unix.set_nonblocking(true).unwrap();
        std::io::Read::read_exact(&mut s.unix, &mut b).expect("the stream's bytes were taken");
        assert_eq!(&b, b"pong");
        assert_eq!(
            s.inbox.try_recv(),
            Ok(42),
            "the channel's message was taken"
        );
        println!("unchanged");
    });
    run.assert_success();
    assert_eq!(run.stdout, "unchanged\n", "{}", run.describe());
    expect(
        &run,
        &[
            ("reads_its_input_file", &[Pass]),
            ("reads_its_connection", DENIED),
            ("reads_its_unix_stream", DENIED),
            ("takes_from_its_channel", &[Pass]),
        ],
    );
}

// ---------------------------------------------------------------------------------------------
// Files named by path that others read: FIFOs, terminals, another process's pipes.

/// What the program reads, and holds, while tests try to reach it by path.
struct Named {
    /// A FIFO the program holds open both ways, with bytes queued.
    fifo: i32,
    /// The program's pipe, reachable as `/proc/<pid>/fd/<n>`, with bytes queued.
    pipe_r: i32,
    /// The program's socket, reachable likewise.
    sock: i32,
    /// The program's eventfd with a count of 3, reachable likewise.
    event: i32,
    /// The slave side of a terminal with a line of input queued, and its path.
    tty: i32,
    tty_path: String,
}

static NAMED: OnceLock<Named> = OnceLock::new();

fn named() -> &'static Named {
    NAMED.get().expect("set up by the scenario")
}

/// Opens `path` read-only without blocking and reads what is there.
fn read_path(path: &str) -> Result<usize, String> {
    let c = std::ffi::CString::new(path).unwrap();
    // SAFETY: a NUL-terminated path; reading into a local buffer.
    unsafe {
        let fd = libc::open(
            c.as_ptr(),
            libc::O_RDONLY | libc::O_NONBLOCK | libc::O_NOCTTY,
        );
        ok(&format!("open {path}"), i64::from(fd))?;
        let mut b = [0u8; 64];
        let n = libc::read(fd, b.as_mut_ptr().cast(), b.len());
        ok("read", n as i64)?;
        Ok(n as usize)
    }
}

#[invite::in_vivo(
    test = reads_the_fifo,
    test = reads_the_programs_pipe_through_proc,
    test = reads_the_programs_socket_through_proc,
    test = reads_the_terminal,
    test = opens_the_controlling_terminal,
    test = wakes_the_programs_fifo_writer,
    test = reads_the_fifo_through_a_directory_descriptor,
    test = drains_the_programs_eventfd_through_proc,
)]
fn paths_site(x: u64) -> u64 {
    x
}

pure_twin!(paths_twin {
    reads_the_fifo,
    reads_the_programs_pipe_through_proc,
    reads_the_programs_socket_through_proc,
    reads_the_terminal,
    opens_the_controlling_terminal,
    wakes_the_programs_fifo_writer,
    reads_the_fifo_through_a_directory_descriptor,
    drains_the_programs_eventfd_through_proc,
});

fn reads_the_fifo(_: &u64) -> Result<(), String> {
    read_path(scenario_dir().join("fifo").to_str().unwrap()).map(drop)
}

fn reads_the_programs_pipe_through_proc(_: &u64) -> Result<(), String> {
    read_path(&format!("/proc/{}/fd/{}", program_pid(), named().pipe_r)).map(drop)
}

fn reads_the_programs_socket_through_proc(_: &u64) -> Result<(), String> {
    read_path(&format!("/proc/{}/fd/{}", program_pid(), named().sock)).map(drop)
}

fn drains_the_programs_eventfd_through_proc(_: &u64) -> Result<(), String> {
    read_path(&format!("/proc/{}/fd/{}", program_pid(), named().event)).map(drop)
}

fn reads_the_terminal(_: &u64) -> Result<(), String> {
    read_path(&named().tty_path).map(drop)
}

fn opens_the_controlling_terminal(_: &u64) -> Result<(), String> {
    read_path("/dev/tty").map(drop)
}

/// A blocking open for reading would return at once (a writer waits) and wake the writer.
fn wakes_the_programs_fifo_writer(_: &u64) -> Result<(), String> {
    let path = support::scenario_path("waiting");
    // SAFETY: a NUL-terminated path.
    let fd = unsafe { libc::open(path.as_ptr(), libc::O_RDONLY) };
    ok("open", i64::from(fd))
}

/// The same FIFO, relative to a directory descriptor, through `openat`.
fn reads_the_fifo_through_a_directory_descriptor(_: &u64) -> Result<(), String> {
    let dir = support::scenario_path("");
    // SAFETY: NUL-terminated paths; reading into a local buffer.
    unsafe {
        let d = libc::open(dir.as_ptr(), libc::O_RDONLY | libc::O_DIRECTORY);
        ok("open the directory", i64::from(d))?;
        let fd = libc::openat(d, c"fifo".as_ptr(), libc::O_RDONLY | libc::O_NONBLOCK);
        ok("openat", i64::from(fd))?;
        let mut b = [0u8; 8];
        ok("read", libc::read(fd, b.as_mut_ptr().cast(), 8) as i64)
    }
}

/// Opens the slave side of a new terminal and queues a line of input on it.
fn terminal_with_input() -> (i32, String) {
    // SAFETY: the pty calls on a fresh master, each checked; ptsname_r writes into `name`.
    unsafe {
        let master = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY);
        assert!(master >= 0, "{}", std::io::Error::last_os_error());
        assert_eq!(libc::grantpt(master), 0);
        assert_eq!(libc::unlockpt(master), 0);
        let mut name = [0 as libc::c_char; 64];
        assert_eq!(libc::ptsname_r(master, name.as_mut_ptr(), name.len()), 0);
        let path = std::ffi::CStr::from_ptr(name.as_ptr())
            .to_str()
            .unwrap()
            .to_string();
        let slave = libc::open(name.as_ptr(), libc::O_RDWR | libc::O_NOCTTY);
        assert!(slave >= 0, "{}", std::io::Error::last_os_error());
        assert_eq!(libc::write(master, b"keys\n".as_ptr().cast(), 5), 5);
        // The line discipline delivers the line to the slave side asynchronously.
        for _ in 0..1000 {
            if queued(slave) == 5 {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(queued(slave), 5, "the terminal's input did not arrive");
        // The master stays open for the program's life: closing it would hang the terminal up.
        (slave, path)
    }
}

fn make_fifo(name: &str) -> std::ffi::CString {
    let path = support::scenario_path(name);
    // SAFETY: a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o600) }, 0);
    path
}

#[test]
fn fifos_terminals_and_other_processes_pipes_named_by_path_keep_their_bytes() {
    let run = scenario(here!(), CONFIG, || {
        std::env::set_var("HOSTILE_PROGRAM_PID", std::process::id().to_string());
        let fifo_path = make_fifo("fifo");
        let waiting_path = make_fifo("waiting");
        // SAFETY: plain system calls on fresh objects, each result checked.
        let (fifo, pipe_r, sock, event) = unsafe {
            let fifo = libc::open(fifo_path.as_ptr(), libc::O_RDWR);
            assert!(fifo >= 0);
            assert_eq!(libc::write(fifo, b"fifo!!".as_ptr().cast(), 6), 6);
            let mut p = [0; 2];
            assert_eq!(libc::pipe(p.as_mut_ptr()), 0);
            assert_eq!(libc::write(p[1], b"piped".as_ptr().cast(), 5), 5);
            let mut s = [0; 2];
            assert_eq!(
                libc::socketpair(libc::AF_UNIX, libc::SOCK_STREAM, 0, s.as_mut_ptr()),
                0
            );
            assert_eq!(libc::write(s[0], b"sock".as_ptr().cast(), 4), 4);
            let event = libc::eventfd(3, 0);
            assert!(event >= 0);
            (fifo, p[0], s[1], event)
        };
        let (tty, tty_path) = terminal_with_input();
        assert!(NAMED
            .set(Named {
                fifo,
                pipe_r,
                sock,
                event,
                tty,
                tty_path,
            })
            .is_ok());
        // A writer of the program's, waiting in open(2) for a reader to appear.
        let woken = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let writer = {
            let (woken, path) = (woken.clone(), waiting_path.clone());
            std::thread::spawn(move || {
                // SAFETY: a NUL-terminated path.
                let fd = unsafe { libc::open(path.as_ptr(), libc::O_WRONLY) };
                woken.store(true, std::sync::atomic::Ordering::SeqCst);
                fd
            })
        };
        paths_site(1);
        paths_twin::site(1);
        settle();
        let n = named();
        let mut problems = Vec::new();
        if queued(n.fifo) != 6 {
            problems.push("the FIFO's bytes were taken");
        }
        if queued(n.pipe_r) != 5 {
            problems.push("the pipe's bytes were taken through /proc");
        }
        if queued(n.sock) != 4 {
            problems.push("the socket's bytes were taken through /proc");
        }
        let mut count = 0u64;
        // SAFETY: reading the eventfd's 8-byte count into a local.
        let read = unsafe { libc::read(n.event, (&mut count as *mut u64).cast(), 8) };
        if read != 8 || count != 3 {
            problems.push("the eventfd was drained through /proc");
        }
        if queued(n.tty) != 5 {
            problems.push("the terminal's input was taken");
        }
        if woken.load(std::sync::atomic::Ordering::SeqCst) {
            problems.push("the writer waiting for a reader was woken");
        }
        // Release the writer: the program's own reader arrives.
        // SAFETY: a NUL-terminated path.
        let reader = unsafe { libc::open(waiting_path.as_ptr(), libc::O_RDONLY) };
        assert!(reader >= 0 && writer.join().unwrap() >= 0);
        assert!(problems.is_empty(), "changed: {problems:?}");
        println!("unchanged");
    });
    run.assert_success();
    assert_eq!(run.stdout, "unchanged\n", "{}", run.describe());
    expect(
        &run,
        &[
            ("reads_the_fifo", BLOCKED),
            ("reads_the_programs_pipe_through_proc", BLOCKED),
            ("reads_the_programs_socket_through_proc", DENIED),
            ("reads_the_terminal", BLOCKED),
            ("opens_the_controlling_terminal", BLOCKED),
            ("wakes_the_programs_fifo_writer", BLOCKED),
            ("reads_the_fifo_through_a_directory_descriptor", BLOCKED),
            ("drains_the_programs_eventfd_through_proc", DENIED),
        ],
    );
    let t = &run.tests_of("reads_the_fifo")[0];
    let detail = t.detail.as_deref().unwrap_or("");
    assert!(
        detail.contains("/fifo'") && detail.contains("FIFO"),
        "a refusal names the path and what it is: {detail}"
    );
}
