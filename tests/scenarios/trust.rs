//! No test changes another test's verdict, checked from the program's side, in the worker of
//! pure sites and on the fork path alike.
//!
//! Each scenario runs hostile tests beside correct ones: a test that writes every kind of
//! global a process has, one that writes forged frames to every descriptor it holds, one that
//! returns a 10 MiB message, one that reads the program's live memory through `/proc`. The
//! program then checks, from its own side, that every correct relation passed, that each call's
//! records were written once, that the hostile tests ended as they must, and that nothing the
//! tests wrote reached the program. Every scenario runs twice: with the sites in the worker
//! (their default, as `pure`) and with `isolation = "fork"` for each.

use std::cell::Cell;
use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering::Relaxed};
use std::time::Duration;

use crate::support::{scenario, Run};
use invite::record::Outcome::{self, *};

const EVERY_CALL: &str = "default_rho = 1.0\nmax_concurrent = 2\nmax_overhead = 1.0\n\
                          child_cpu_charge = 0.0\nseed = 11\nwhen_busy = \"wait\"";

const WAIT: Duration = Duration::from_secs(30);

/// Calls of each site in a scenario.
const CALLS: u64 = 12;

/// `EVERY_CALL`, with every site of this suite forked instead of sent to the worker.
fn forked() -> String {
    let mut config = EVERY_CALL.to_string();
    for site in [
        "poisoner", "scaled", "forger", "square", "talker", "spy", "doubled",
    ] {
        config.push_str(&format!(
            "\n[functions.\"scenarios::trust::{site}\"]\nisolation = \"fork\""
        ));
    }
    config
}

/// The scenario's configuration for each path.
fn config(worker: bool) -> String {
    if worker {
        EVERY_CALL.to_string()
    } else {
        forked()
    }
}

/// Checks that `site`'s test `test` was recorded `calls` times, each with an outcome of
/// `allowed`; returns those records' details.
fn each(run: &Run, site: &str, test: &str, calls: u64, allowed: &[Outcome]) -> Vec<String> {
    let site = format!("scenarios::trust::{site}");
    let records: Vec<_> = run
        .tests()
        .into_iter()
        .filter(|t| t.site == site && t.test.ends_with(test))
        .collect();
    assert_eq!(
        records.len() as u64,
        calls,
        "{site} / {test}: each call recorded once\n{}",
        run.describe()
    );
    for t in &records {
        assert!(
            allowed.contains(&t.outcome),
            "{site} / {test}: {:?} (expected one of {allowed:?}): {}\n{}",
            t.outcome,
            t.detail.as_deref().unwrap_or(""),
            run.describe()
        );
    }
    records
        .into_iter()
        .map(|t| t.detail.unwrap_or_default())
        .collect()
}

/// In the program: the calls went where the scenario sent them (the worker's processes live
/// while it runs, and only then).
fn went_where_sent(worker: bool) {
    if worker {
        let both = || crate::pure::workers().len() == 2;
        assert!(
            crate::support::eventually(WAIT, both),
            "the worker's supervisor and executor"
        );
    } else {
        assert_eq!(
            crate::pure::workers().len(),
            0,
            "no worker: every call forked"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// One test's writes never reach another's.

static POISON: AtomicU64 = AtomicU64::new(0);
static LEAKED: AtomicPtr<u64> = AtomicPtr::new(std::ptr::null_mut());
thread_local! {
    static LOCAL: Cell<u64> = const { Cell::new(0) };
}

/// The state every test must start from: as the program holds it.
fn untouched() -> bool {
    POISON.load(Relaxed) == 0 && LOCAL.with(Cell::get) == 0 && LEAKED.load(Relaxed).is_null()
}

/// Writes every kind of global a process has, then passes.
fn poisons(_: &u64, _: &u64) -> bool {
    POISON.store(1, Relaxed);
    LOCAL.with(|l| l.set(1));
    LEAKED.store(Box::into_raw(Box::new(7)), Relaxed);
    true
}

fn sees_the_start(_: &u64, _: &u64) -> bool {
    untouched()
}

#[invite::metamorphic(pure, test = poisons, test = sees_the_start)]
fn poisoner(x: u64) -> u64 {
    x
}

/// Pure as the program uses it: `POISON` is 0 for the program's whole life.
#[invite::metamorphic(pure, scaled(x * 2) == result * 2, test = sees_the_start)]
fn scaled(x: u64) -> u64 {
    x * (1 + POISON.load(Relaxed))
}

fn one_test_s_writes_reach_no_other_test(worker: bool, name: &str) {
    let run = scenario(name, &config(worker), || {
        for x in 1..=CALLS {
            assert_eq!(poisoner(x), x);
            assert_eq!(scaled(x), x);
        }
        went_where_sent(worker);
        invite::shutdown();
        assert!(untouched(), "the program's own globals are as they were");
    });
    run.assert_success();
    each(&run, "poisoner", "poisons", CALLS, &[Pass]);
    // Within a call too: the call's second test starts where its first did.
    each(&run, "poisoner", "sees_the_start", CALLS, &[Pass]);
    each(&run, "scaled", "result * 2", CALLS, &[Pass]);
    each(&run, "scaled", "sees_the_start", CALLS, &[Pass]);
    assert!(!run.stderr.contains("not pure"), "{}", run.stderr);
}

#[test]
fn one_test_s_writes_reach_no_other_test_in_the_worker() {
    one_test_s_writes_reach_no_other_test(true, here!());
}

#[test]
fn one_test_s_writes_reach_no_other_test_forked() {
    one_test_s_writes_reach_no_other_test(false, here!());
}

// ---------------------------------------------------------------------------------------------
// No test can forge a verdict, its own excepted.

/// A frame as the sandbox's channels carry them: a little-endian length, then JSON.
fn frame(json: &str) -> Vec<u8> {
    let mut bytes = (json.len() as u32).to_le_bytes().to_vec();
    bytes.extend_from_slice(json.as_bytes());
    bytes
}

/// Every frame a run, a test process or the worker sends, forged: another test failed, a call
/// finished, a site impure, a whole call reported, garbage.
fn forgeries() -> Vec<u8> {
    let mut all = Vec::new();
    for json in [
        r#"{"t":"verdict","outcome":"fail","detail":"FORGED","duration_us":1}"#,
        r#"{"t":"test","index":0,"outcome":"fail","duration_us":1,"detail":"FORGED"}"#,
        r#"{"t":"test","index":1,"outcome":"error","duration_us":1,"detail":"FORGED"}"#,
        r#"{"t":"impure","detail":"FORGED: it is not pure"}"#,
        r#"{"t":"finished","cpu_ns":1}"#,
        r#"{"t":"done","cpu_ns":1}"#,
        r#"{"t":"begin","pos":0}"#,
    ] {
        all.extend(frame(json));
    }
    all
}

/// Writes forged frames to every descriptor number it may hold, then garbage, then passes.
fn forges(_: &u64, _: &u64) -> bool {
    let forged = forgeries();
    for fd in 0..1024 {
        // SAFETY: writes from a live buffer; a number that is not open fails with EBADF.
        unsafe {
            libc::write(fd, forged.as_ptr().cast(), forged.len());
            libc::write(fd, [0xffu8; 64].as_ptr().cast(), 64);
        }
    }
    true
}

/// Fails with the text the worker marks an impure call with: a failure, and nothing more.
fn claims_impurity(_: &u64, _: &u64) -> Result<(), String> {
    Err("\u{0}impure\u{0}FORGED: it is not pure".into())
}

#[invite::metamorphic(pure, test = forges, test = claims_impurity)]
fn forger(x: u64) -> u64 {
    x
}

#[invite::metamorphic(pure, square(x + 1) == result + 2 * x + 1, square(x * 2) == result * 4)]
fn square(x: u64) -> u64 {
    x * x
}

fn no_test_forges_another_s_verdict(worker: bool, name: &str) {
    let run = scenario(name, &config(worker), || {
        for x in 1..=CALLS {
            assert_eq!(forger(x), x);
            assert_eq!(square(x), x * x);
        }
        went_where_sent(worker);
        invite::shutdown();
    });
    run.assert_success();
    // Its own verdict is all a test can spoil: the frames it wrote on its own channel make it
    // `error`, never a verdict of the test's choosing, and nothing else.
    for own in each(&run, "forger", "forges", CALLS, &[Error]) {
        assert!(own.contains("wrote on its verdict channel itself"), "{own}");
    }
    // A test's own failure, whatever its text: never the call's impurity.
    each(&run, "forger", "claims_impurity", CALLS, &[Fail]);
    each(&run, "square", "2 * x + 1", CALLS, &[Pass]);
    each(&run, "square", "result * 4", CALLS, &[Pass]);
    assert!(
        run.tests()
            .iter()
            .all(|t| t.outcome != Fail || t.test.ends_with("claims_impurity")),
        "{}",
        run.describe()
    );
    assert!(!run.stderr.contains("FORGED"), "{}", run.stderr);
    let forged = |l: &String| l.contains("FORGED") && !l.contains("claims_impurity");
    assert!(!run.log.iter().any(forged));
    assert!(!run.stderr.contains("not pure"), "{}", run.stderr);
}

#[test]
fn no_test_forges_another_s_verdict_in_the_worker() {
    no_test_forges_another_s_verdict(true, here!());
}

#[test]
fn no_test_forges_another_s_verdict_forked() {
    no_test_forges_another_s_verdict(false, here!());
}

// ---------------------------------------------------------------------------------------------
// A long message is the test's outcome, cut and marked.

/// Fails with a 10 MiB message, as a long `Debug` dump does.
fn fails_at_length(x: &u64, _: &u64) -> Result<(), String> {
    Err(format!("{x}:{}", "y".repeat(10 << 20)))
}

/// Panics with a 10 MiB message.
fn panics_at_length(_: &u64, _: &u64) {
    panic!("{}", "z".repeat(10 << 20));
}

#[invite::metamorphic(pure, test = fails_at_length, test = panics_at_length, talker(x) == result)]
fn talker(x: u64) -> u64 {
    x
}

fn a_long_message_is_the_test_s_outcome_cut_and_marked(worker: bool, name: &str) {
    let run = scenario(name, &config(worker), || {
        for x in 1..=4 {
            assert_eq!(talker(x), x);
        }
        went_where_sent(worker);
        invite::shutdown();
    });
    run.assert_success();
    for detail in each(&run, "talker", "fails_at_length", 4, &[Fail]) {
        assert!(
            detail.contains("yyyy"),
            "{}",
            &detail[..80.min(detail.len())]
        );
        assert!(detail.len() < 64 << 10, "cut: {} bytes", detail.len());
        assert!(detail.contains("truncated"), "marked");
    }
    for detail in each(&run, "talker", "panics_at_length", 4, &[Error]) {
        assert!(
            detail.contains("zzzz"),
            "{}",
            &detail[..80.min(detail.len())]
        );
        assert!(detail.len() < 64 << 10, "cut: {} bytes", detail.len());
        assert!(detail.contains("truncated"), "marked");
    }
    each(&run, "talker", "talker(x) == result", 4, &[Pass]);
}

#[test]
fn a_long_message_is_the_test_s_outcome_cut_and_marked_in_the_worker() {
    a_long_message_is_the_test_s_outcome_cut_and_marked(true, here!());
}

#[test]
fn a_long_message_is_the_test_s_outcome_cut_and_marked_forked() {
    a_long_message_is_the_test_s_outcome_cut_and_marked(false, here!());
}

// ---------------------------------------------------------------------------------------------
// No test reads another process's /proc entries.

/// The program's pid, and a value it changes after its worker was forked.
static PROGRAM: AtomicU64 = AtomicU64::new(0);
static CHANGED_LATER: AtomicU64 = AtomicU64::new(1);

/// Reads `/proc/<program>/<entry>`: `Err` if it could.
fn reads_the_programs(entry: &str) -> Result<(), String> {
    let path = format!("/proc/{}/{entry}", PROGRAM.load(Relaxed));
    match std::fs::read(&path) {
        Ok(bytes) => Err(format!("read {} bytes of {path}", bytes.len())),
        Err(_) => match std::fs::read_dir(&path) {
            Ok(_) => Err(format!("listed {path}")),
            Err(e) => Err(format!("{path}: {e}")),
        },
    }
}

fn reads_proc_mem(_: &u64, _: &u64) -> Result<(), String> {
    let path = format!("/proc/{}/mem", PROGRAM.load(Relaxed));
    let file = std::fs::File::open(&path).map_err(|e| format!("{path}: {e}"))?;
    let mut value = [0u8; 8];
    let at = CHANGED_LATER.as_ptr() as u64;
    std::os::unix::fs::FileExt::read_exact_at(&file, &mut value, at)
        .map_err(|e| format!("pread: {e}"))?;
    Err(format!("read the live value {}", u64::from_ne_bytes(value)))
}

fn reads_proc_environ(_: &u64, _: &u64) -> Result<(), String> {
    reads_the_programs("environ")
}

fn reads_proc_maps(_: &u64, _: &u64) -> Result<(), String> {
    reads_the_programs("maps")
}

fn lists_proc_fd(_: &u64, _: &u64) -> Result<(), String> {
    reads_the_programs("fd")
}

/// A test's own `/proc/self` is its own to read.
fn reads_its_own_status(_: &u64, _: &u64) -> Result<(), String> {
    std::fs::read_to_string("/proc/self/status")
        .map(drop)
        .map_err(|e| e.to_string())
}

#[invite::metamorphic(
    pure,
    test = reads_proc_mem,
    test = reads_proc_environ,
    test = reads_proc_maps,
    test = lists_proc_fd,
    test = reads_its_own_status,
)]
fn spy(x: u64) -> u64 {
    x
}

#[invite::metamorphic(pure, doubled(x + 1) == result + 2)]
fn doubled(x: u64) -> u64 {
    2 * x
}

fn no_test_opens_another_process_s_proc_entries(worker: bool, name: &str) {
    let run = scenario(name, &config(worker), || {
        PROGRAM.store(u64::from(std::process::id()), Relaxed);
        // The worker is forked at the first call; the value changes after.
        assert_eq!(doubled(1), 2);
        CHANGED_LATER.store(2, Relaxed);
        for x in 1..=3 {
            assert_eq!(spy(x), x);
        }
        went_where_sent(worker);
        invite::shutdown();
    });
    run.assert_success();
    for entry in [
        "reads_proc_mem",
        "reads_proc_environ",
        "reads_proc_maps",
        "lists_proc_fd",
    ] {
        for detail in each(&run, "spy", entry, 3, &[Blocked]) {
            assert!(
                detail.contains("another process's entry in /proc"),
                "{detail}"
            );
        }
    }
    each(&run, "spy", "reads_its_own_status", 3, &[Pass]);
    each(&run, "doubled", "result + 2", 1, &[Pass]);
}

#[test]
fn no_test_opens_another_process_s_proc_entries_in_the_worker() {
    no_test_opens_another_process_s_proc_entries(true, here!());
}

#[test]
fn no_test_opens_another_process_s_proc_entries_forked() {
    no_test_opens_another_process_s_proc_entries(false, here!());
}

// ---------------------------------------------------------------------------------------------
// The worker's own failures, and its deadlines, are told apart from a test's.

/// A value whose reading back panics for 13: a fault in the program's own `Travel` code, which
/// the executor runs (no test does).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Fragile(u64);

impl invite::Travel for Fragile {
    fn put(&self, out: &mut Vec<u8>) {
        self.0.put(out);
    }

    fn take(input: &mut &[u8]) -> Option<Self> {
        let v = u64::take(input)?;
        assert_ne!(v, 13, "Fragile cannot be read back at 13");
        // At 15, bytes that are not a value.
        (v != 15).then_some(Fragile(v))
    }
}

#[invite::metamorphic(pure, fragile(&Fragile(x.0)) == result)]
fn fragile(x: &Fragile) -> u64 {
    x.0
}

#[test]
fn a_panic_reading_a_call_back_is_the_worker_s_error_with_its_message() {
    let run = scenario(here!(), EVERY_CALL, || {
        for v in [12, 13, 14, 15] {
            assert_eq!(fragile(&Fragile(v)), v);
        }
        went_where_sent(true);
        invite::shutdown();
    });
    run.assert_success();
    let records = run.tests_of("fragile(&Fragile(x.0)) == result");
    assert_eq!(
        records.len(),
        4,
        "each call recorded once: {}",
        run.describe()
    );
    let (failed, passed): (Vec<_>, Vec<_>) = records.iter().partition(|t| t.outcome != Pass);
    // The call at 15, whose bytes did not read back: an error that says so.
    let (garbled, failed): (Vec<_>, Vec<_>) = failed.into_iter().partition(|t| {
        t.detail
            .as_deref()
            .is_some_and(|d| d.contains("could not read the call's arguments back"))
    });
    assert_eq!(garbled.len(), 1, "{}", run.describe());
    assert_eq!(garbled[0].outcome, Error);
    // The call at 13 (whose values never came back, so its inputs are not known): the
    // executor's panic, with its message.
    assert_eq!(failed.len(), 1, "{}", run.describe());
    let detail = failed[0].detail.clone().unwrap_or_default();
    assert_eq!(failed[0].outcome, Error, "{detail}");
    assert!(
        detail.contains("Fragile cannot be read back at 13"),
        "the executor's panic message: {detail}"
    );
    // The calls around it, 12 before and 14 after (the worker came back), were tested.
    let mut seen: Vec<String> = passed.iter().map(|t| t.inputs["x"].clone()).collect();
    seen.sort();
    assert_eq!(seen, ["Fragile(12)", "Fragile(14)"], "{}", run.describe());
}

/// Never returns: the test's deadline ends it.
fn hangs(_: &u64, _: &u64) -> bool {
    loop {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[invite::metamorphic(pure, timeout_ms = 800, test = hangs)]
fn short_deadline(x: u64) -> u64 {
    x
}

#[invite::metamorphic(pure, timeout_ms = 2500, test = hangs)]
fn long_deadline(x: u64) -> u64 {
    x
}

#[test]
fn a_hanging_test_ends_at_its_own_deadline_before_the_worker_s_backstop() {
    // The scenario's own deadline, which the harness adds, would override the sites'.
    let config = format!("{EVERY_CALL}\ntimeout_ms = 800\ndrain_ms = 30000");
    let run = scenario(here!(), &config, || {
        short_deadline(1);
        long_deadline(1);
        went_where_sent(true);
        invite::shutdown();
    });
    run.assert_success();
    for (test_ms, site) in [(800, "short_deadline"), (2500, "long_deadline")] {
        let site = format!("scenarios::trust::{site}");
        let t: Vec<_> = run.tests().into_iter().filter(|t| t.site == site).collect();
        assert_eq!(t.len(), 1, "{}", run.describe());
        let detail = t[0].detail.clone().unwrap_or_default();
        assert_eq!(t[0].outcome, Timeout, "{detail}");
        // The test process's deadline, not the supervisor's backstop for the executor.
        assert!(
            detail.contains(&format!("killed after its deadline of {test_ms} ms")),
            "{site}: {detail}"
        );
        assert!(
            !detail.contains("did not finish reading"),
            "{site}: {detail}"
        );
    }
}
