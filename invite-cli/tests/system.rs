//! `invite system`, run as the real binary: what the caller sees of the original invocation,
//! what the relations find, and, judged from outside, that no follow-up changes anything.
//!
//! Every attack is run twice: as a plain script, to show that it does change what the test
//! looks at (so the check can fail), and as a follow-up under `invite system`, after which the
//! test checks from its own side that nothing changed.

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use invite::record::{Outcome, Record};

fn invite(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_invite"))
        .args(args)
        .current_dir(dir)
        .env_remove("INVITE_CONFIG")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The test records of a log, by relation name.
fn verdicts(log: &Path) -> Vec<(String, Outcome, String)> {
    let Ok(text) = std::fs::read_to_string(log) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|l| match Record::from_line(l).unwrap() {
            Record::Test(t) => {
                let replay = t.inputs.get("replay").cloned().unwrap_or_default();
                let detail = t.detail.unwrap_or_default();
                Some((t.test, t.outcome, format!("{detail} | {replay}")))
            }
            _ => None,
        })
        .collect()
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
}

const SORT_SPEC: &str = r#"
command = ["sort", "-n", "{input}"]
input = "data.txt"
format = "numbers"
log = "log.jsonl"

[[relation]]
name = "permuted"
transform = ["permute"]
expect = "equal"

[[relation]]
name = "doubled"
transform = ["multiply 2"]
expect = "multiply 2"

[[relation]]
name = "reversed input"
transform = ["reverse"]
expect = "same rows"

[[relation]]
name = "first dropped"
transform = ["drop 1"]
expect = "subset"

[[relation]]
name = "negated"
transform = ["negate"]
expect = "negate"
"#;

#[test]
fn relations_of_a_real_program_hold_and_a_wrong_one_fails() {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("data.txt"), "3\n1\n2\n10\n-4\n");
    write(&dir.path().join("sort.toml"), SORT_SPEC);
    let out = invite(
        dir.path(),
        &["system", "sort.toml", "--wait", "--seed", "5"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "-4\n1\n2\n3\n10\n");
    let got = verdicts(&dir.path().join("log.jsonl"));
    let outcome = |name: &str| got.iter().find(|g| g.0 == name).unwrap().1;
    for name in ["permuted", "doubled", "reversed input", "first dropped"] {
        assert_eq!(outcome(name), Outcome::Pass, "{name}: {got:?}");
    }
    // Negated numbers sort in the opposite order: `negate` of the sorted output is not it.
    let negated = got.iter().find(|g| g.0 == "negated").unwrap();
    assert_eq!(negated.1, Outcome::Fail);
    assert!(
        negated.2.contains("row 1: expected `4`, got `-10`"),
        "{}",
        negated.2
    );
    assert!(negated
        .2
        .contains("| invite system sort.toml --seed 5 --relation 'negated' --wait"));
    let summary = text(&out.stderr);
    assert!(summary.contains("5 relations: 4 pass, 1 fail"), "{summary}");
    // The report reads the records.
    let report = invite(dir.path(), &["report", "log.jsonl", "--fail-on", "fail"]);
    assert_eq!(report.status.code(), Some(3), "{}", text(&report.stdout));
    let report = text(&report.stdout);
    assert!(
        !report.contains("input   replay"),
        "the replay command is no input: {report}"
    );
    assert!(
        report.contains("replay  invite system sort.toml --seed 5 --relation 'negated' --wait\n"),
        "{report}"
    );
}

#[test]
fn a_failure_of_a_permutation_replays_from_its_record_and_the_spec_seed_fixes_it() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    write(
        &p.join("data.txt"),
        &(1..=40).map(|i| format!("{i}\n")).collect::<String>(),
    );
    // The first row is all the program prints, so a permutation fails unless it keeps the first
    // row in place; the detail names the row it moved there. The spec fixes the seed.
    write(
        &p.join("first.toml"),
        "command = [\"head\", \"-n\", \"1\", \"{input}\"]\ninput = \"data.txt\"\n\
         format = \"numbers\"\nlog = \"log.jsonl\"\nseed = 5\n\
         [[relation]]\nname = \"permuted\"\ntransform = [\"permute\"]\nexpect = \"equal\"\n",
    );
    let out = invite(p, &["system", "first.toml", "--wait"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let got = verdicts(&p.join("log.jsonl"));
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].1, Outcome::Fail, "{got:?}");
    let (detail, replay) = got[0].2.split_once(" | ").unwrap();
    assert_eq!(
        replay, "invite system first.toml --seed 5 --relation 'permuted' --wait",
        "the spec's seed is the invocation's"
    );
    // The printed command, run again, draws the same permutation and reaches the same verdict.
    let args: Vec<&str> = replay
        .trim_start_matches("invite ")
        .split(' ')
        .map(|a| a.trim_matches('\''))
        .collect();
    let out = invite(p, &args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // Another seed, another permutation: another row comes first.
    let out = invite(p, &["system", "first.toml", "--seed", "6", "--wait"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let got = verdicts(&p.join("log.jsonl"));
    assert_eq!(got.len(), 3, "{got:?}");
    assert_eq!(got[1].1, Outcome::Fail, "{got:?}");
    assert_eq!(got[1].2.split_once(" | ").unwrap().0, detail, "{got:?}");
    assert_eq!(got[2].1, Outcome::Fail, "{got:?}");
    assert_ne!(got[2].2.split_once(" | ").unwrap().0, detail, "{got:?}");
}

#[test]
fn the_original_passes_through_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let script = "printf 'out\\n'; printf 'err\\n' >&2; printf 'more\\n'; exit 3\n";
    write(&dir.path().join("s.sh"), script);
    write(
        &dir.path().join("spec.toml"),
        "command = [\"sh\", \"{input}\"]\ninput = \"s.sh\"\nformat = \"lines\"\nlog = \"log.jsonl\"\n\
         [[relation]]\nname = \"same\"\n",
    );
    let direct = Command::new("sh")
        .arg("s.sh")
        .current_dir(dir.path())
        .output()
        .unwrap();
    for wait in [true, false] {
        let args: &[&str] = if wait {
            &["system", "spec.toml", "--wait"]
        } else {
            &["system", "spec.toml"]
        };
        let out = invite(dir.path(), args);
        assert_eq!(out.stdout, direct.stdout);
        assert_eq!(out.status.code(), Some(3));
        let err = text(&out.stderr);
        if wait {
            assert!(
                err.starts_with("err\ninvite system: 1 relation: 1 skipped"),
                "{err}"
            );
        } else {
            assert_eq!(err, "err\n");
        }
    }
    let got = verdicts(&dir.path().join("log.jsonl"));
    assert_eq!(got[0].1, Outcome::Skipped);
    assert!(
        got[0].2.contains("the original ended with exit status 3"),
        "{}",
        got[0].2
    );

    // Killed by a signal: invite ends by the same signal.
    write(&dir.path().join("s.sh"), "kill -TERM $$\n");
    let out = invite(dir.path(), &["system", "spec.toml"]);
    assert_eq!(out.status.signal(), Some(libc::SIGTERM));
    // Extra arguments reach the program.
    write(&dir.path().join("s.sh"), "echo \"$@\"\n");
    let out = invite(dir.path(), &["system", "spec.toml", "--", "a", "b c"]);
    assert_eq!(text(&out.stdout), "a b c\n");
}

#[test]
fn without_wait_invite_returns_before_the_follow_ups() {
    let dir = tempfile::tempdir().unwrap();
    let release = dir.path().join("release");
    // The follow-up (its input has the extra line) waits until the test lets it go.
    write(&dir.path().join("s.sh"), "echo hello\n");
    write(
        &dir.path().join("spec.toml"),
        &format!(
            "command = [\"sh\", \"{{input}}\"]\ninput = \"s.sh\"\nformat = \"lines\"\n\
             log = \"log.jsonl\"\n[[relation]]\nname = \"waits\"\n\
             transform = [\"append while [ ! -e {} ]; do sleep 0.02; done\"]\n",
            release.display()
        ),
    );
    let out = invite(dir.path(), &["system", "spec.toml"]);
    assert!(out.status.success());
    assert_eq!(text(&out.stdout), "hello\n");
    let log = dir.path().join("log.jsonl");
    assert!(
        verdicts(&log).is_empty(),
        "the follow-up cannot have ended yet"
    );
    write(&release, "");
    let deadline = Instant::now() + Duration::from_secs(60);
    while verdicts(&log).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let got = verdicts(&log);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].1, Outcome::Pass, "{:?}", got[0]);
}

#[test]
fn a_bad_spec_is_named_with_its_fix_and_nothing_runs() {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("spec.toml"),
        "command = [\"touch\", \"ran\"]\nformat = \"lines\"\n[[relation]]\nname = \"a\"\nexpect = \"similar\"\n",
    );
    let out = invite(dir.path(), &["system", "spec.toml"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("relation `a`: expect `similar`: unknown expectation"),
        "{err}"
    );
    assert!(!dir.path().join("ran").exists());
    let check = invite(dir.path(), &["system", "spec.toml", "--check"]);
    assert_eq!(check.status.code(), Some(2));
    let out = invite(dir.path(), &["system", "missing.toml"]);
    assert!(
        text(&out.stderr).contains("missing.toml"),
        "{}",
        text(&out.stderr)
    );
    write(&dir.path().join("data.txt"), "1\n");
    write(&dir.path().join("spec.toml"), SORT_SPEC);
    let check = invite(dir.path(), &["system", "spec.toml", "--check"]);
    assert!(check.status.success());
    let out = invite(dir.path(), &["system", "spec.toml", "--relation", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("has no relation `nope`; it has: permuted, doubled"));
}

#[test]
fn a_follow_up_that_hangs_is_killed_at_its_deadline() {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("s.sh"), "echo hello\n");
    // A sleep no other test process runs.
    let sleep = format!("sleep {}", 900_000 + std::process::id());
    write(
        &dir.path().join("spec.toml"),
        &format!(
            "command = [\"sh\", \"{{input}}\"]\ninput = \"s.sh\"\nformat = \"lines\"\n\
             timeout = \"300ms\"\nlog = \"log.jsonl\"\n[[relation]]\nname = \"hangs\"\n\
             transform = [\"append {sleep}\"]\n"
        ),
    );
    let out = invite(dir.path(), &["system", "spec.toml", "--wait"]);
    assert!(out.status.success());
    let got = verdicts(&dir.path().join("log.jsonl"));
    assert_eq!(got[0].1, Outcome::Timeout, "{got:?}");
    assert!(no_process_with(&sleep), "the hung follow-up is gone");
}

/// Whether no process's command line contains `marker`.
fn no_process_with(marker: &str) -> bool {
    let me = std::process::id().to_string();
    std::fs::read_dir("/proc").unwrap().flatten().all(|e| {
        let name = e.file_name().to_string_lossy().into_owned();
        if !name.chars().all(|c| c.is_ascii_digit()) || name == me {
            return true;
        }
        let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        !cmd.contains(marker)
    })
}

/// A sleeping process the attacks aim at, killed when dropped.
struct Victim(std::process::Child);

impl Victim {
    fn new() -> Victim {
        Victim(Command::new("sleep").arg("1000").spawn().unwrap())
    }
    fn pid(&self) -> u32 {
        self.0.id()
    }
    fn alive(&mut self) -> bool {
        self.0.try_wait().unwrap().is_none()
    }
    fn nice(&self) -> i64 {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.pid())).unwrap();
        let after = &stat[stat.rfind(')').unwrap() + 2..];
        after.split(' ').nth(16).unwrap().parse().unwrap()
    }
}

impl Drop for Victim {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// What the host looks at: files in a directory of its own, a process, two sockets.
struct Host {
    dir: tempfile::TempDir,
    victim: Victim,
    tcp: std::net::TcpListener,
    udp: std::net::UdpSocket,
    /// The victim's niceness at the start (the test's own).
    nice: i64,
    /// The System V shared memory segments at the start.
    shm: Vec<String>,
}

/// The ids of the machine's System V shared memory segments.
fn shm_ids() -> Vec<String> {
    let table = std::fs::read_to_string("/proc/sysvipc/shm").unwrap_or_default();
    let mut ids: Vec<String> = table
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().nth(1).map(str::to_string))
        .collect();
    ids.sort();
    ids
}

impl Host {
    fn new() -> Host {
        let dir = tempfile::tempdir().unwrap();
        let tcp = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        tcp.set_nonblocking(true).unwrap();
        let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        udp.set_nonblocking(true).unwrap();
        let victim = Victim::new();
        let h = Host {
            dir,
            nice: victim.nice(),
            victim,
            shm: shm_ids(),
            tcp,
            udp,
        };
        h.reset();
        h
    }

    fn files(&self) -> PathBuf {
        self.dir.path().join("files")
    }

    /// The state every check starts from.
    fn reset(&self) {
        let f = self.files();
        let _ = std::fs::remove_dir_all(&f);
        std::fs::create_dir(&f).unwrap();
        for name in ["keep", "trunc", "mode", "time"] {
            write(&f.join(name), "precious\n");
        }
        std::fs::set_permissions(f.join("mode"), std::fs::Permissions::from_mode(0o644)).unwrap();
    }

    /// What changed, in words; empty when nothing did.
    fn changes(&mut self, marker: &str) -> Vec<String> {
        let f = self.files();
        let mut changed = Vec::new();
        let mut names: Vec<String> = std::fs::read_dir(&f)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        if names != ["keep", "mode", "time", "trunc"] {
            changed.push(format!("files now {names:?}"));
        }
        for name in ["keep", "trunc"] {
            if std::fs::read_to_string(f.join(name)).ok().as_deref() != Some("precious\n") {
                changed.push(format!("{name} changed"));
            }
        }
        if let Ok(m) = std::fs::metadata(f.join("mode")) {
            if m.permissions().mode() & 0o777 != 0o644 {
                changed.push("mode changed".into());
            }
        }
        if let Ok(m) = std::fs::metadata(f.join("time")) {
            let age = m.modified().unwrap().elapsed().unwrap_or_default();
            if age > Duration::from_secs(24 * 3600) {
                changed.push("modification time changed".into());
            }
        }
        if !self.victim.alive() {
            changed.push("victim killed".into());
            self.victim = Victim::new();
        } else if self.victim.nice() != self.nice {
            changed.push(format!("victim reniced to {}", self.victim.nice()));
            self.victim = Victim::new();
        }
        if self.tcp.accept().is_ok() {
            changed.push("TCP connection received".into());
        }
        let mut buf = [0u8; 64];
        if self.udp.recv(&mut buf).is_ok() {
            changed.push("UDP datagram received".into());
        }
        let shm = shm_ids();
        if shm != self.shm {
            changed.push("a shared memory segment made".into());
            for id in shm.iter().filter(|id| !self.shm.contains(id)) {
                let _ = Command::new("ipcrm").args(["-m", id]).status();
            }
        }
        if !no_process_with(marker) {
            changed.push("a process left running".into());
            let _ = Command::new("pkill")
                .arg("-9")
                .arg("-f")
                .arg(marker)
                .status();
        }
        changed
    }
}

#[test]
fn no_follow_up_changes_anything_the_host_can_see() {
    let mut host = Host::new();
    let f = host.files();
    let f = f.display();
    let tcp = host.tcp.local_addr().unwrap().port();
    let udp = host.udp.local_addr().unwrap().port();
    let marker = format!("invite-leftover-{}", std::process::id());
    let attacks = [
        format!("echo x > {f}/new"),
        format!("rm -f {f}/keep"),
        format!("mv {f}/keep {f}/moved"),
        format!("ln -s /etc/passwd {f}/link"),
        format!("mkdir {f}/sub"),
        format!("truncate -s 0 {f}/trunc"),
        format!("echo more >> {f}/trunc"),
        format!("chmod 600 {f}/mode"),
        format!("touch -d 2000-01-01 {f}/time"),
        "kill -9 VICTIM".to_string(),
        "renice -n 7 -p VICTIM >/dev/null".to_string(),
        format!("bash -c 'echo hi > /dev/tcp/127.0.0.1/{tcp}'"),
        format!("bash -c 'echo hi > /dev/udp/127.0.0.1/{udp}'"),
        "ipcmk -M 4096 > /dev/null".to_string(),
        // Loops of short sleeps: killing the shell that names the marker leaves no long-lived
        // sleep behind once the check is done.
        format!("setsid sh -c 'while :; do sleep 1; done; echo {marker}' > /dev/null 2>&1 &"),
        format!("(sh -c 'while :; do sleep 1; done; echo {marker}' &) ; sleep 0.01"),
    ];
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("s.sh"), "echo hello\n");
    let mut escaped = Vec::new();
    for attack in &attacks {
        // The victim is replaced when an attack kills it.
        let attack = &attack.replace("VICTIM", &host.victim.pid().to_string());
        // The attack works when nothing stops it.
        host.reset();
        let script = dir.path().join("attack.sh");
        write(&script, &format!("{attack}\n"));
        Command::new("sh").arg(&script).status().unwrap();
        // What the attack started in the background may take a while to show on a busy
        // machine.
        let started = std::time::Instant::now();
        let mut plain = host.changes(&marker);
        while plain.is_empty() && started.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(10));
            plain = host.changes(&marker);
        }
        assert!(
            !plain.is_empty(),
            "`{attack}` changes nothing even unconfined"
        );

        // As a follow-up it changes nothing.
        host.reset();
        let spec = format!(
            "command = [\"sh\", \"{{input}}\"]\ninput = \"s.sh\"\nformat = \"lines\"\n\
             log = \"log.jsonl\"\n[[relation]]\nname = \"attack\"\n\
             transform = [\"append echo ATTACKING\", \"append {}\", \"append true\"]\n",
            attack.replace('\\', "\\\\").replace('"', "\\\"")
        );
        write(&dir.path().join("spec.toml"), &spec);
        let out = invite(dir.path(), &["system", "spec.toml", "--wait"]);
        assert_eq!(text(&out.stdout), "hello\n", "`{attack}`");
        std::thread::sleep(Duration::from_millis(50));
        let confined = host.changes(&marker);
        // The follow-up did run, up to the attack: its output has the extra line.
        let last = verdicts(&dir.path().join("log.jsonl")).pop().unwrap();
        assert!(last.2.contains("got `ATTACKING`"), "`{attack}`: {last:?}");
        if !confined.is_empty() {
            escaped.push(format!("`{attack}`: {confined:?}"));
        }
    }
    assert!(
        escaped.is_empty(),
        "follow-ups changed what the host sees:\n{}",
        escaped.join("\n")
    );
}

#[test]
fn a_follow_up_writes_nothing_to_the_callers_streams() {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("s.sh"), "echo hello\n");
    write(
        &dir.path().join("spec.toml"),
        "command = [\"sh\", \"{input}\"]\ninput = \"s.sh\"\nformat = \"lines\"\nlog = \"log.jsonl\"\n\
         [[relation]]\nname = \"loud\"\n\
         transform = [\"append echo LEAK; echo LEAK >&2; echo LEAK > /dev/tty; echo LEAK > /proc/$PPID/fd/1\"]\n",
    );
    let out = invite(dir.path(), &["system", "spec.toml", "--wait"]);
    assert_eq!(text(&out.stdout), "hello\n");
    assert!(!text(&out.stderr).contains("LEAK"), "{}", text(&out.stderr));
    let got = verdicts(&dir.path().join("log.jsonl"));
    // Its own output differs from the original's, and it exits with an error: the relation
    // fails, visibly, in the log.
    assert!(got[0].1.is_failure(), "{got:?}");
    assert!(got[0].2.contains("LEAK"), "{got:?}");
}

/// A copy of the worked examples, to run them where their logs cannot litter the tree.
fn examples() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/system");
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), dir.path().join(e.file_name())).unwrap();
    }
    dir
}

#[test]
fn the_worked_example_of_a_third_party_program_holds() {
    if Command::new("datamash").arg("--version").output().is_err() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must install Debian's datamash (.ci/run does)"
        );
        eprintln!("datamash is not installed: skipping its example (apt-get install datamash)");
        return;
    }
    let dir = examples();
    let out = invite(dir.path(), &["system", "datamash.toml", "--wait"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "3.9628571428571,7.8\n");
    let got = verdicts(&dir.path().join("system-log.jsonl"));
    assert_eq!(got.len(), 4);
    assert!(got.iter().all(|g| g.1 == Outcome::Pass), "{got:?}");
}

#[test]
fn the_worked_example_with_a_planted_defect_is_caught_and_its_fix_passes() {
    let dir = examples();
    let out = invite(dir.path(), &["system", "colmean.toml", "--wait"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let log = dir.path().join("system-log.jsonl");
    let outcome = |got: &[(String, Outcome, String)], name: &str| {
        got.iter().rev().find(|g| g.0 == name).unwrap().1
    };
    let got = verdicts(&log);
    // Scaling cannot see a skipped row; reversing and duplicating the rows can.
    assert_eq!(outcome(&got, "readings scaled"), Outcome::Pass);
    assert_eq!(outcome(&got, "rows reversed"), Outcome::Fail, "{got:?}");
    assert_eq!(outcome(&got, "rows duplicated"), Outcome::Fail);
    let fixed = std::fs::read_to_string(dir.path().join("colmean"))
        .unwrap()
        .replace("NR > 1", "NR >= 1");
    write(&dir.path().join("colmean"), &fixed);
    invite(dir.path(), &["system", "colmean.toml", "--wait"]);
    let got = verdicts(&log);
    assert_eq!(got.len(), 6);
    assert!(got[3..].iter().all(|g| g.1 == Outcome::Pass), "{got:?}");
}

#[test]
fn the_nondeterministic_worked_example_is_caught_statistically_and_its_fix_passes() {
    let dir = examples();
    // A fixed invocation seed fixes every run's seed: the verdicts are the same on every run.
    let run = || {
        invite(
            dir.path(),
            &["system", "bootstrap.toml", "--seed", "7", "--wait"],
        )
    };
    let out = run();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let log = dir.path().join("system-log.jsonl");
    let got = verdicts(&log);
    let outcome = |name: &str| got.iter().find(|g| g.0 == name).unwrap();
    // Reversing moves the value the defect never draws; scaling cannot see it.
    let reversed = outcome("data reversed");
    assert_eq!(reversed.1, Outcome::Fail, "{got:?}");
    assert!(
        reversed.2.starts_with(
            "the follow-up against the original: Welch's t-test, 30 runs per side, claim: the \
             same mean; left mean 1"
        ),
        "{got:?}"
    );
    assert!(reversed.2.contains("(0.0001 over 3 checks)"), "{got:?}");
    assert_eq!(outcome("data times ten").1, Outcome::Pass, "{got:?}");
    let fixed = std::fs::read_to_string(dir.path().join("bootstrap"))
        .unwrap()
        .replace("int(rand() * (NR - 1))", "int(rand() * NR)");
    write(&dir.path().join("bootstrap"), &fixed);
    run();
    let got = verdicts(&log);
    assert_eq!(got.len(), 6);
    // A statistical relation that holds says no more than one that holds run by run.
    assert!(
        got[3..]
            .iter()
            .all(|g| g.1 == Outcome::Pass && g.2.starts_with(" | ")),
        "{got:?}"
    );
}

#[test]
fn every_number_of_the_output_is_a_check_and_a_failed_control_is_not_a_failure() {
    let dir = tempfile::tempdir().unwrap();
    // A count of the runs in the relation's own directory: the follow-up always prints 1, the
    // original 2 and the control 0 (the runs go in that order), so the unchanged program
    // differs from itself.
    let count = "echo >> \"$TMPDIR/n\"; echo $(( $(wc -l < \"$TMPDIR/n\") % 3 ))";
    write(
        &dir.path().join("spec.toml"),
        &format!(
            "command = [\"sh\", \"-c\", {count:?}]\nformat = \"numbers\"\nlog = \"log.jsonl\"\n\
             [[relation]]\nname = \"controlled\"\n\
             statistical = {{ runs = 10, alpha = 0.05, control = true }}\n"
        ),
    );
    write(
        &dir.path().join("pair.toml"),
        "command = [\"sh\", \"-c\", \"echo 5 $(expr {seed} % 1000)\"]\nformat = \"numbers\"\n\
         log = \"log.jsonl\"\n[[relation]]\nname = \"pair\"\nexpect = \"multiply 3\"\n\
         statistical = { runs = 10, alpha = 0.05 }\n",
    );
    invite(
        dir.path(),
        &["system", "pair.toml", "--seed", "1", "--wait"],
    );
    invite(
        dir.path(),
        &["system", "spec.toml", "--seed", "1", "--wait"],
    );
    let got = verdicts(&dir.path().join("log.jsonl"));
    assert_eq!(got.len(), 2, "{got:?}");
    // Two numbers per run; the first (5 against 15) fails; each is judged at half the level.
    assert_eq!(got[0].1, Outcome::Fail, "{got:?}");
    assert!(
        got[0]
            .2
            .starts_with("number 1 of 2: the follow-up against the original: "),
        "{got:?}"
    );
    assert!(got[0].2.contains("(0.05 over 2 checks)"), "{got:?}");
    assert_eq!(got[1].1, Outcome::Inconclusive, "{got:?}");
    assert!(got[1].2.starts_with("the control failed"), "{got:?}");
}

#[test]
fn every_statistical_run_has_a_seed_of_its_own_and_the_invocation_seed_fixes_them_all() {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("data.txt"), "1\n2\n");
    // The program prints its seed: the original gets the invocation's, each run its own. The
    // follow-up's seeds cannot be twice the original's, so the relation fails and its detail
    // shows both samples.
    write(
        &dir.path().join("spec.toml"),
        "command = [\"echo\", \"{seed}\"]\nformat = \"numbers\"\nlog = \"log.jsonl\"\n\
         [[relation]]\nname = \"seeds\"\nexpect = \"multiply 2\"\n\
         statistical = { runs = 40, alpha = 0.05 }\n",
    );
    let out = invite(
        dir.path(),
        &["system", "spec.toml", "--seed", "42", "--wait"],
    );
    assert_eq!(text(&out.stdout), "42\n");
    invite(
        dir.path(),
        &["system", "spec.toml", "--seed", "42", "--wait"],
    );
    invite(
        dir.path(),
        &["system", "spec.toml", "--seed", "43", "--wait"],
    );
    let got = verdicts(&dir.path().join("log.jsonl"));
    assert_eq!(got.len(), 3, "{got:?}");
    assert_eq!(got[0].1, Outcome::Fail, "{got:?}");
    let detail = |i: usize| got[i].2.split(" | ").next().unwrap().to_string();
    // Seeds spread over 64 bits: no side is constant.
    assert!(!detail(0).contains("sd 0;"), "{got:?}");
    assert!(detail(0).contains("40 runs per side"), "{got:?}");
    assert_eq!(detail(0), detail(1));
    assert_ne!(detail(0), detail(2));
}

#[test]
fn a_spec_without_a_log_writes_where_invite_toml_says() {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("data.txt"), "2\n1\n");
    write(
        &dir.path().join("spec.toml"),
        "command = [\"sort\", \"-n\", \"{input}\"]\ninput = \"data.txt\"\nformat = \"numbers\"\n\
         [[relation]]\nname = \"permuted\"\ntransform = [\"permute\"]\nexpect = \"equal\"\n",
    );
    let config = dir.path().join("settings.toml");
    write(&config, "log = \"from-config.jsonl\"\n");
    let run = |config: &Path| {
        Command::new(env!("CARGO_BIN_EXE_invite"))
            .args(["system", "spec.toml", "--wait"])
            .current_dir(dir.path())
            .env("INVITE_CONFIG", config)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let out = run(&config);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let got = verdicts(&dir.path().join("from-config.jsonl"));
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].1, Outcome::Pass);
    // A broken invite.toml is said, and the defaults are used.
    write(&config, "log = 3\n");
    let out = run(&config);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("(using the defaults)"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(verdicts(&dir.path().join("invite-log.jsonl")).len(), 1);
}

#[test]
fn an_arff_file_is_transformed_below_its_header_and_compared_by_rows() {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("weather.arff"),
        "% warm days\n@relation weather\n@attribute outlook {sunny,rainy}\n\
         @attribute temperature numeric\n@attribute humidity numeric\n@data\n\
         sunny,85,85\nrainy,64,65\nsunny,72,90\nrainy,75,80\n",
    );
    // The program keeps the header and the rows warmer than 70: an ARFF filter.
    write(
        &dir.path().join("spec.toml"),
        r#"command = ["awk", "-F", ",", "/^@data/ { print; d = 1; next } !d || $2 + 0 > 70", "{input}"]
input = "weather.arff"
format = "arff"
log = "log.jsonl"

[[relation]]
name = "rows permuted"
transform = ["permute"]
expect = "same rows"

[[relation]]
name = "humidity doubled"
transform = ["column 3 multiply 2"]
expect = "column 3 multiply 2"

[[relation]]
name = "reversed, expected unchanged"
transform = ["reverse"]
expect = "equal"
"#,
    );
    let out = invite(
        dir.path(),
        &["system", "spec.toml", "--wait", "--seed", "3"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).ends_with("@data\nsunny,85,85\nsunny,72,90\nrainy,75,80\n"),
        "{}",
        text(&out.stdout)
    );
    let got = verdicts(&dir.path().join("log.jsonl"));
    let outcome = |name: &str| got.iter().find(|g| g.0 == name).unwrap();
    assert_eq!(outcome("rows permuted").1, Outcome::Pass, "{got:?}");
    assert_eq!(outcome("humidity doubled").1, Outcome::Pass, "{got:?}");
    let reversed = outcome("reversed, expected unchanged");
    assert_eq!(reversed.1, Outcome::Fail, "{got:?}");
    assert!(
        reversed
            .2
            .contains("row 1: expected `sunny,85,85`, got `rainy,75,80`"),
        "{}",
        reversed.2
    );
    // `--relation` runs that relation alone.
    let out = invite(
        dir.path(),
        &[
            "system",
            "spec.toml",
            "--wait",
            "--relation",
            "humidity doubled",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let again = verdicts(&dir.path().join("log.jsonl"));
    assert_eq!(again.len(), got.len() + 1, "{again:?}");
    assert_eq!(again.last().unwrap().0, "humidity doubled");
}

#[test]
fn a_ranking_expectation_judges_the_order_of_the_rows() {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("data.txt"),
        "apple\nbanana\ncherry\ndate\n",
    );
    // `sort` ranks the same items the same whatever their order; `cat` keeps the order given.
    let spec = |program: &str| {
        format!(
            "command = [\"{program}\", \"{{input}}\"]\ninput = \"data.txt\"\nformat = \"lines\"\n\
             log = \"log.jsonl\"\n\
             [[relation]]\nname = \"reversed\"\ntransform = [\"reverse\"]\n\
             expect = \"ranking footrule 0.1\"\n\
             [[relation]]\nname = \"top kept\"\ntransform = [\"reverse\"]\n\
             expect = \"ranking differently 0 top 25%\"\n"
        )
    };
    write(&dir.path().join("spec.toml"), &spec("sort"));
    invite(dir.path(), &["system", "spec.toml", "--wait"]);
    write(&dir.path().join("spec.toml"), &spec("cat"));
    invite(dir.path(), &["system", "spec.toml", "--wait"]);
    let got = verdicts(&dir.path().join("log.jsonl"));
    let outcomes: Vec<Outcome> = got.iter().map(|g| g.1).collect();
    assert_eq!(
        outcomes,
        [Outcome::Pass, Outcome::Pass, Outcome::Fail, Outcome::Fail],
        "{got:?}"
    );
    assert!(
        got[2]
            .2
            .starts_with("the rankings differ: footrule 1 over 4 and 4 items, above the limit 0.1"),
        "{got:?}"
    );
}

#[test]
fn a_statistical_relation_on_rows_is_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("data.txt"), "1\n2\n");
    let spec = |relation: &str| {
        format!(
            "command = [\"sort\", \"{{input}}\"]\ninput = \"data.txt\"\nformat = \"numbers\"\n\
             [[relation]]\nname = \"r\"\ntransform = [\"reverse\"]\n{relation}\n"
        )
    };
    for (relation, says) in [
        (
            "expect = \"same rows\"\nstatistical = {}",
            "relation `r`: a statistical relation compares the numbers of many runs",
        ),
        (
            "statistical = { test = \"anova\" }",
            "relation `r`: statistical: unknown statistical test `anova`",
        ),
        (
            "statistical = { runs = 2 }",
            "relation `r`: statistical: `runs = 2` is out of range",
        ),
        (
            "expect = \"less\"\nstatistical = { test = \"ks\" }",
            "compares two samples for sameness only",
        ),
        ("statistical = { rounds = 3 }", "unknown field `rounds`"),
    ] {
        write(&dir.path().join("spec.toml"), &spec(relation));
        let out = invite(dir.path(), &["system", "spec.toml", "--check"]);
        assert_eq!(out.status.code(), Some(2), "{relation}");
        assert!(
            text(&out.stderr).contains(says),
            "{relation}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn a_follow_up_holds_no_capability_and_stops_at_its_file_size_limit() {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("s.sh"), "echo hello\n");
    // The follow-up prints its permitted, effective, bounding and ambient capability sets, then
    // tries to write 2 MiB where 1 is allowed.
    let caps = "echo $(grep -E '^Cap(Prm|Eff|Bnd|Amb)' /proc/self/status | cut -f2)";
    let big = "head -c 2097152 /dev/zero > $TMPDIR/big; echo wrote $(wc -c < $TMPDIR/big)";
    write(
        &dir.path().join("spec.toml"),
        &format!(
            "command = [\"sh\", \"{{input}}\"]\ninput = \"s.sh\"\nformat = \"lines\"\n\
             log = \"log.jsonl\"\nfile_mb = 1\n[[relation]]\nname = \"caps\"\n\
             transform = [\"drop 1\", \"append {caps}\"]\n[[relation]]\nname = \"big\"\n\
             transform = [\"drop 1\", \"append {big}\"]\n"
        ),
    );
    invite(dir.path(), &["system", "spec.toml", "--wait"]);
    let got = verdicts(&dir.path().join("log.jsonl"));
    let caps = &got.iter().find(|g| g.0 == "caps").unwrap().2;
    let printed = caps
        .split("got `")
        .nth(1)
        .and_then(|r| r.split('`').next())
        .unwrap();
    let sets: Vec<&str> = printed.split(' ').collect();
    let zero = "0000000000000000";
    assert_eq!(sets.len(), 4, "{caps}");
    assert_eq!(
        [sets[0], sets[1], sets[3]],
        [zero; 3],
        "permitted, effective, ambient: {caps}"
    );
    if rustix::process::geteuid().is_root() {
        assert_eq!(
            sets[2], zero,
            "a root caller's follow-up loses the bounding set: {caps}"
        );
    }
    // The write stops at 1 MiB (SIGXFSZ ends `head`; the shell carries on).
    let big = &got.iter().find(|g| g.0 == "big").unwrap().2;
    assert!(big.contains("got `wrote 1048576`"), "{big}");
}

#[test]
fn the_users_own_steps_comparisons_and_setup_run_in_the_sandbox() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    write(&p.join("data.txt"), "3\n1\n2\n");
    write(&p.join("double.sh"), "awk '{ print $1 * 2 }'\n");
    write(&p.join("same.sh"), "cmp -s \"$1\" \"$2\"\n");
    write(&p.join("broken.sh"), "exit 2\n");
    // Follow-ups (INVITE=off) need what their setup made; the original needs nothing.
    let spec = |setup: &str| {
        format!(
            "command = [\"sh\", \"-c\", \"[ \\\"$INVITE\\\" != off ] || [ -e \\\"$TMPDIR/ready\\\" ] \
             || exit 9; sort -n \\\"$1\\\"\", \"sh\", \"{{input}}\"]\n\
             input = \"data.txt\"\nformat = \"numbers\"\nlog = \"log.jsonl\"\n\
             setup = [\"sh\", \"-c\", \"{setup}\"]\n\
             [[relation]]\nname = \"doubled by a script\"\ntransform = [\"run sh double.sh\"]\n\
             expect = \"multiply 2\"\n\
             [[relation]]\nname = \"same by cmp\"\ntransform = [\"reverse\"]\n\
             expect = \"run sh same.sh {{original}} {{followup}}\"\n\
             [[relation]]\nname = \"differs by cmp\"\ntransform = [\"negate\"]\n\
             expect = \"run sh same.sh {{original}} {{followup}}\"\n\
             [[relation]]\nname = \"broken comparison\"\n\
             expect = \"run sh broken.sh {{original}} {{followup}}\"\n"
        )
    };
    write(&p.join("spec.toml"), &spec(": > $TMPDIR/ready"));
    let out = invite(p, &["system", "spec.toml", "--wait"]);
    assert_eq!(text(&out.stdout), "1\n2\n3\n");
    let got = verdicts(&p.join("log.jsonl"));
    let outcomes: Vec<(&str, Outcome)> = got.iter().map(|g| (g.0.as_str(), g.1)).collect();
    assert_eq!(
        outcomes,
        [
            ("doubled by a script", Outcome::Pass),
            ("same by cmp", Outcome::Pass),
            ("differs by cmp", Outcome::Fail),
            ("broken comparison", Outcome::Error),
        ],
        "{got:?}"
    );
    assert!(got[2]
        .2
        .contains("`sh same.sh {original} {followup}` said the outputs differ"));
    assert!(
        got[3].2.contains("ended with exit status 2"),
        "{}",
        got[3].2
    );

    // A setup that fails fails every follow-up, saying so.
    std::fs::remove_file(p.join("log.jsonl")).unwrap();
    write(&p.join("spec.toml"), &spec("echo no >&2; exit 3"));
    invite(p, &["system", "spec.toml", "--wait"]);
    let got = verdicts(&p.join("log.jsonl"));
    assert_eq!(got.len(), 4);
    for g in &got {
        assert_eq!(g.1, Outcome::Error, "{g:?}");
        assert!(
            g.2.starts_with("setup ended with exit status 3: no"),
            "{g:?}"
        );
    }
}

/// Prints what the invocation sees of its place: its seed, `$INVITE`, niceness, address-space
/// limit, whether `touch` works on its own temporary directory, and, for the original only
/// (where `$INVITE` is not `off`), the caller's standard input.
const SELF_DESCRIBING: &str = r#"
echo "seed $1"
echo "invite ${INVITE:-unset}"
echo "nice $(nice)"
echo "vmem $(ulimit -v)"
own=${TMPDIR:-.}
if touch "$own/touched" 2>/dev/null; then echo "touch works"; else echo "touch refused"; fi
if : > "$own/created" 2>/dev/null; then echo "create works"; else echo "create refused"; fi
if [ "${INVITE:-}" != off ]; then echo "stdin $(cat)"; fi
cat "$2"
"#;

#[test]
fn the_original_reads_the_callers_stdin_and_a_follow_up_runs_niced_limited_and_off() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    write(&p.join("data.txt"), "row\n");
    write(&p.join("describe.sh"), SELF_DESCRIBING);
    // Holds when both the remade original and the follow-up ran in the sandbox as the spec says.
    write(
        &p.join("check.sh"),
        "for f in \"$1\" \"$2\"; do\n\
         for want in 'seed 42' 'invite off' 'nice 7' 'vmem 524288' 'touch refused' \
         'create works' row; do\n\
         grep -qx \"$want\" \"$f\" || { echo \"$f lacks $want\" >&2; exit 1; }\n\
         done\n\
         ! grep -q '^stdin' \"$f\" || exit 1\n\
         done\n",
    );
    // The tear-down, also in the sandbox, cannot write beside the caller's files.
    let teardown = ": > escaped-by-teardown";
    write(
        &p.join("spec.toml"),
        &format!(
            "command = [\"sh\", \"describe.sh\", \"{{seed}}\", \"{{input}}\"]\n\
             input = \"data.txt\"\nformat = \"lines\"\nlog = \"log.jsonl\"\n\
             nice = 7\nmemory_mb = 512\n\
             teardown = [\"sh\", \"-c\", \"{teardown}\"]\n\
             [[relation]]\nname = \"sandboxed as specified\"\n\
             expect = \"run sh check.sh {{original}} {{followup}}\"\n\
             [[relation]]\nname = \"the same output made again\"\nexpect = \"equal\"\n"
        ),
    );
    let out = Command::new(env!("CARGO_BIN_EXE_invite"))
        .args(["system", "spec.toml", "--seed", "42", "--wait"])
        .current_dir(p)
        .env_remove("INVITE_CONFIG")
        .env_remove("INVITE")
        .env_remove("TMPDIR")
        .stdin(std::fs::File::open(p.join("data.txt")).unwrap())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let original = text(&out.stdout);
    // The original ran as the user would: the caller's stdin, not off, touch working.
    for want in ["seed 42", "invite unset", "touch works", "stdin row", "row"] {
        assert!(original.lines().any(|l| l == want), "{want}: {original}");
    }
    assert!(!original.contains("nice 7"), "{original}");
    let got = verdicts(&p.join("log.jsonl"));
    let outcomes: Vec<(&str, Outcome)> = got.iter().map(|g| (g.0.as_str(), g.1)).collect();
    assert_eq!(
        outcomes,
        [
            ("sandboxed as specified", Outcome::Pass),
            ("the same output made again", Outcome::Pass),
        ],
        "{got:?}"
    );
    assert!(!p.join("escaped-by-teardown").exists());
    // Unconfined, the same tear-down does write there.
    Command::new("sh")
        .args(["-c", teardown])
        .current_dir(p)
        .status()
        .unwrap();
    assert!(p.join("escaped-by-teardown").exists());
}

#[test]
fn a_statistical_follow_up_is_transformed_again_for_each_run() {
    let dir = tempfile::tempdir().unwrap();
    let numbers: String = (1..=10).map(|n| format!("{n}\n")).collect();
    write(&dir.path().join("data.txt"), &numbers);
    // The program prints its input's first row: always 1 for the original; for the permuted
    // follow-up, whichever row each run's permutation put first.
    write(
        &dir.path().join("spec.toml"),
        "command = [\"head\", \"-n\", \"1\", \"{input}\"]\ninput = \"data.txt\"\n\
         format = \"numbers\"\nlog = \"log.jsonl\"\n\
         [[relation]]\nname = \"first row\"\ntransform = [\"permute\"]\nexpect = \"equal\"\n\
         statistical = { runs = 30, alpha = 0.05 }\n",
    );
    let out = invite(
        dir.path(),
        &["system", "spec.toml", "--seed", "3", "--wait"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let got = verdicts(&dir.path().join("log.jsonl"));
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].1, Outcome::Fail, "{got:?}");
    // One side constant (the original's), the other spread: one permutation for all runs would
    // make both constant.
    let detail = got[0].2.split(" | ").next().unwrap();
    assert_eq!(detail.matches("sd 0;").count(), 1, "{detail}");
}

#[test]
fn on_failure_notifies_or_aborts_and_sandbox_none_lets_a_follow_up_write() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    write(&p.join("data.txt"), "3\n1\n2\n");
    // Sorted negated numbers are not the negated sorted ones: the relation fails. A follow-up
    // (INVITE=off) also leaves a file beside the caller's.
    let spec = |extra: &str| {
        format!(
            "command = [\"sh\", \"-c\", \"[ \\\"$INVITE\\\" != off ] || (: > written-by-follow-up) 2>/dev/null; \
             sort -n \\\"$1\\\"\", \"sh\", \"{{input}}\"]\n\
             input = \"data.txt\"\nformat = \"numbers\"\nlog = \"log.jsonl\"\n{extra}\n\
             [[relation]]\nname = \"negated\"\ntransform = [\"negate\"]\nexpect = \"negate\"\n"
        )
    };
    let notice = "invite: spec / negated fail: ";
    write(&p.join("spec.toml"), &spec(""));
    let out = invite(p, &["system", "spec.toml", "--wait"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!text(&out.stderr).contains(notice), "{}", text(&out.stderr));
    assert!(!p.join("written-by-follow-up").exists());

    write(&p.join("spec.toml"), &spec("on_failure = \"notify\""));
    let out = invite(p, &["system", "spec.toml", "--wait"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains(notice), "{err}");
    assert!(
        err.contains("replay: invite system spec.toml --seed "),
        "{err}"
    );

    write(&p.join("spec.toml"), &spec("on_failure = \"abort\""));
    let out = invite(p, &["system", "spec.toml", "--wait"]);
    assert_eq!(
        out.status.signal(),
        Some(libc::SIGABRT),
        "{}",
        text(&out.stderr)
    );
    // The verdict was logged before the abort.
    let got = verdicts(&p.join("log.jsonl"));
    assert_eq!(got.last().map(|g| g.1), Some(Outcome::Fail), "{got:?}");

    write(&p.join("spec.toml"), &spec("sandbox = \"none\""));
    let out = invite(p, &["system", "spec.toml", "--wait"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(p.join("written-by-follow-up").exists());
}

/// Live processes whose command line is exactly `cmdline` (arguments joined by spaces).
fn processes_running(cmdline: &str) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| {
            let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            String::from_utf8_lossy(&cmd)
                .trim_end_matches('\0')
                .replace('\0', " ")
                == cmdline
        })
        .count()
}

#[test]
fn follow_ups_run_in_parallel_up_to_parallel_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let release = dir.path().join("release");
    write(&dir.path().join("s.sh"), "echo hello\n");
    // Four follow-ups, each waiting (in a loop of short sleeps only it runs) until released. The
    // sleep's digits end in this process's id: another copy of this suite running on the
    // machine at the same time sleeps for other lengths.
    let sleep = |i: usize| format!("sleep 0.0{i}17{}", std::process::id());
    let relations: String = (0..4)
        .map(|i| {
            format!(
                "[[relation]]\nname = \"waits {i}\"\n\
                 transform = [\"append while [ ! -e {} ]; do {}; done\"]\n",
                release.display(),
                sleep(i)
            )
        })
        .collect();
    write(
        &dir.path().join("spec.toml"),
        &format!(
            "command = [\"sh\", \"{{input}}\"]\ninput = \"s.sh\"\nformat = \"lines\"\n\
             log = \"log.jsonl\"\nparallel = 2\n{relations}"
        ),
    );
    let out = invite(dir.path(), &["system", "spec.toml"]);
    assert!(out.status.success());
    // Which follow-ups are waiting, by the sleep only each of them runs: two at once, never more.
    let waiting = || -> Vec<usize> {
        (0..4)
            .filter(|i| processes_running(&sleep(*i)) > 0)
            .collect()
    };
    let mut most = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    while most.len() < 2 && Instant::now() < deadline {
        let now = waiting();
        assert!(
            now.len() <= 2,
            "more than `parallel` follow-ups at once: {now:?}"
        );
        if now.len() > most.len() {
            most = now;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    // Watch a while longer: the limit must hold while they wait.
    let watch_until = Instant::now() + Duration::from_millis(500);
    while Instant::now() < watch_until {
        let now = waiting();
        assert!(
            now.len() <= 2,
            "more than `parallel` follow-ups at once: {now:?}"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    write(&release, "");
    let log = dir.path().join("log.jsonl");
    let deadline = Instant::now() + Duration::from_secs(60);
    while verdicts(&log).len() < 4 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(most.len(), 2, "never two follow-ups at once: {most:?}");
    let got = verdicts(&log);
    assert_eq!(got.len(), 4, "{got:?}");
    assert!(got.iter().all(|g| g.1 == Outcome::Pass), "{got:?}");
}

/// Makes the process that runs it see a kernel without Landlock: `landlock_create_ruleset`
/// fails with `ENOSYS` from here on, in it and everything it starts. For `pre_exec`.
// The test builds a kernel without Landlock for one process: a raw seccomp filter.
#[allow(unsafe_code)]
fn without_landlock() -> std::io::Result<()> {
    let insn = |code: u32, jt, jf, k| libc::sock_filter {
        code: code as u16,
        jt,
        jf,
        k,
    };
    let mut program = [
        // The system call's number, at offset 0 of seccomp_data.
        insn(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, 0, 0, 0),
        insn(
            libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K,
            0,
            1,
            libc::SYS_landlock_create_ruleset as u32,
        ),
        insn(
            libc::BPF_RET | libc::BPF_K,
            0,
            0,
            libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32,
        ),
        insn(libc::BPF_RET | libc::BPF_K, 0, 0, libc::SECCOMP_RET_ALLOW),
    ];
    let fprog = libc::sock_fprog {
        len: program.len() as u16,
        filter: program.as_mut_ptr(),
    };
    // SAFETY: prctl reads the program, which lives across the call.
    let installed = unsafe {
        libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
            && libc::prctl(
                libc::PR_SET_SECCOMP,
                libc::SECCOMP_MODE_FILTER,
                &fprog as *const libc::sock_fprog,
            ) == 0
    };
    if installed {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[test]
#[allow(unsafe_code)]
fn without_landlock_every_relation_is_an_error_that_says_so_and_nothing_runs() {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    write(&p.join("data.txt"), "3\n1\n2\n");
    write(&p.join("sort.toml"), SORT_SPEC);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_invite"));
    cmd.args(["system", "sort.toml", "--wait"])
        .current_dir(p)
        .env_remove("INVITE_CONFIG")
        .stdin(Stdio::null());
    // SAFETY: the hook makes two prctl calls and allocates nothing.
    unsafe { cmd.pre_exec(without_landlock) };
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    // The original runs as ever.
    assert_eq!(text(&out.stdout), "1\n2\n3\n");
    let got = verdicts(&p.join("log.jsonl"));
    assert_eq!(got.len(), 5, "{got:?}");
    for g in &got {
        assert_eq!(g.1, Outcome::Error, "{g:?}");
        assert!(
            g.2.starts_with("follow-ups not run: this kernel's Landlock ABI is 0"),
            "{g:?}"
        );
        assert!(g.2.contains("sandbox = \"none\""), "{g:?}");
    }
}

#[test]
fn an_output_file_is_read_from_the_original_and_made_by_each_follow_up_in_its_own_place() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    write(&p.join("data.txt"), "3\n1\n2\n");
    write(
        &p.join("spec.toml"),
        "command = [\"sh\", \"-c\", \"sort -n \\\"$1\\\" > \\\"$2\\\"; echo done\", \"sh\", \
         \"{input}\", \"{output}\"]\n\
         input = \"data.txt\"\noutput = \"sorted.txt\"\nformat = \"numbers\"\nlog = \"log.jsonl\"\n\
         [[relation]]\nname = \"permuted\"\ntransform = [\"permute\"]\nexpect = \"equal\"\n\
         [[relation]]\nname = \"negated\"\ntransform = [\"negate\"]\nexpect = \"negate\"\n",
    );
    let out = invite(p, &["system", "spec.toml", "--wait"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // The original wrote where the spec says, and its stdout passed through.
    assert_eq!(text(&out.stdout), "done\n");
    assert_eq!(
        std::fs::read_to_string(p.join("sorted.txt")).unwrap(),
        "1\n2\n3\n"
    );
    let got = verdicts(&p.join("log.jsonl"));
    let outcomes: Vec<(&str, Outcome)> = got.iter().map(|g| (g.0.as_str(), g.1)).collect();
    // The files were compared, not stdout (the same "done" on both sides): sorting negated
    // numbers reverses them.
    assert_eq!(
        outcomes,
        [("permuted", Outcome::Pass), ("negated", Outcome::Fail)],
        "{got:?}"
    );
    assert!(
        got[1].2.contains("row 1: expected `-1`, got `-3`"),
        "{got:?}"
    );
    // The follow-ups wrote their own outputs elsewhere: the caller's file is the original's.
    assert_eq!(
        std::fs::read_to_string(p.join("sorted.txt")).unwrap(),
        "1\n2\n3\n"
    );
}

#[test]
fn the_timeout_holds_for_the_setup_and_the_users_own_steps_too() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    write(&p.join("data.txt"), "3\n1\n2\n");
    let spec = |setup: &str, step: &str| {
        format!(
            "command = [\"sort\", \"-n\", \"{{input}}\"]\ninput = \"data.txt\"\n\
             format = \"numbers\"\nlog = \"log.jsonl\"\ntimeout = \"300ms\"\n{setup}\n\
             [[relation]]\nname = \"stepped\"\ntransform = [\"{step}\"]\nexpect = \"equal\"\n"
        )
    };
    let verdict = |spec: String| {
        let _ = std::fs::remove_file(p.join("log.jsonl"));
        write(&p.join("spec.toml"), &spec);
        let out = invite(p, &["system", "spec.toml", "--wait"]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let got = verdicts(&p.join("log.jsonl"));
        assert_eq!(got.len(), 1, "{got:?}");
        (got[0].1, got[0].2.clone())
    };
    // A quick step and no setup: the relation holds within the deadline (one that leaves it
    // room on a busy machine).
    let quick = spec("", "run cat").replace("timeout = \"300ms\"", "timeout = \"5s\"");
    assert_eq!(verdict(quick).0, Outcome::Pass);
    // A setup that hangs, and a step that hangs, are each killed at the deadline.
    let (outcome, detail) = verdict(spec("setup = [\"sleep\", \"30\"]", "run cat"));
    assert_eq!(outcome, Outcome::Timeout, "{detail}");
    assert!(
        detail.contains("`sleep 30` ran past the deadline of 300ms"),
        "{detail}"
    );
    let (outcome, detail) = verdict(spec("", "run sleep 30"));
    assert_eq!(outcome, Outcome::Timeout, "{detail}");
    assert!(
        detail.contains("`sleep 30` ran past the deadline"),
        "{detail}"
    );
    // A tear-down that hangs, and a comparison command that hangs, likewise; with a deadline
    // that leaves the other steps room on a busy machine. The tear-down hangs only after a
    // follow-up, whose input has the appended row; after the original's run again it ends.
    let roomy = |setup: &str, expect: &str| {
        spec(setup, "append 99")
            .replace("timeout = \"300ms\"", "timeout = \"3s\"")
            .replace("expect = \"equal\"", &format!("expect = \"{expect}\""))
    };
    let hang = p.join("hang.sh");
    write(&hang, "grep -q 99 \"$1\" && sleep 31\nexit 0\n");
    let teardown = format!("teardown = [\"sh\", \"{}\", \"{{input}}\"]", hang.display());
    let (outcome, detail) = verdict(roomy(&teardown, "superset"));
    assert_eq!(outcome, Outcome::Timeout, "{detail}");
    assert!(detail.contains("ran past the deadline of 3s"), "{detail}");
    assert!(detail.contains("hang.sh"), "{detail}");
    // Without the hang the same relation holds: the timeout is the tear-down's.
    write(&hang, "exit 3\n");
    let (outcome, detail) = verdict(roomy(&teardown, "superset"));
    assert_eq!(
        outcome,
        Outcome::Pass,
        "a tear-down that fails leaves the verdict: {detail}"
    );
    let compare = p.join("compare.sh");
    write(&compare, "sleep 32\n");
    let expect = format!("run sh {} {{original}} {{followup}}", compare.display());
    let (outcome, detail) = verdict(roomy("", &expect));
    assert_eq!(outcome, Outcome::Timeout, "{detail}");
    assert!(detail.contains("compare.sh"), "{detail}");
    assert!(detail.contains("ran past the deadline of 3s"), "{detail}");
}
