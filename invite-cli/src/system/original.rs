//! The original invocation: run exactly as the user would run it, its standard output copied
//! through as it comes (and kept, when it is what the relations compare), its standard error
//! and exit status untouched.

use std::io::{Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// The most output kept for comparison; beyond it the original still runs untouched, and its
/// relations are not checked.
pub const MAX_KEPT: usize = 256 << 20;

/// How the original invocation ended.
pub struct Ended {
    /// Its exit status.
    pub status: ExitStatus,
    /// Its standard output, when it was asked for and fitted in [`MAX_KEPT`].
    pub stdout: Option<Vec<u8>>,
    /// Its wall time, from spawn to exit.
    pub wall: Duration,
}

/// Runs `argv` with `stdin` (inherited when `None`); keeps its standard output when `keep`.
pub fn run(argv: &[String], stdin: Option<std::fs::File>, keep: bool) -> std::io::Result<Ended> {
    let mut cmd = Command::new(&argv[0]);
    cmd.args(&argv[1..]);
    if let Some(f) = stdin {
        cmd.stdin(f);
    }
    if keep {
        cmd.stdout(Stdio::piped());
    }
    let started = Instant::now();
    let mut child = cmd.spawn()?;
    // While the program runs, the terminal's interrupt and quit keys are its business: invite
    // waits for it and then ends the way it ended.
    let previous = ignore_interrupts();
    let mut kept = None;
    if let Some(mut out) = child.stdout.take() {
        kept = copy_through(&mut out);
        // A reader that stopped (`| head`) leaves the pipe closed under the program, which gets
        // SIGPIPE on its next write, as it would have without invite.
        drop(out);
    }
    let status = child.wait();
    restore_interrupts(previous);
    Ok(Ended {
        status: status?,
        stdout: kept,
        wall: started.elapsed(),
    })
}

/// Copies `from` to standard output as it comes, unbuffered; the copy, unless it grew beyond
/// [`MAX_KEPT`] or standard output stopped taking it.
fn copy_through(from: &mut impl Read) -> Option<Vec<u8>> {
    let mut out = std::io::stdout().lock();
    let mut kept = Some(Vec::new());
    let mut buf = vec![0u8; 64 << 10];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return None,
        };
        if out.write_all(&buf[..n]).and_then(|()| out.flush()).is_err() {
            return None;
        }
        if let Some(k) = &mut kept {
            if k.len() + n > MAX_KEPT {
                kept = None;
            } else {
                k.extend_from_slice(&buf[..n]);
            }
        }
    }
    kept
}

type Handlers = [libc::sighandler_t; 2];

fn ignore_interrupts() -> Handlers {
    // SAFETY: SIG_IGN is a valid disposition; the previous ones are restored afterwards.
    unsafe {
        [
            libc::signal(libc::SIGINT, libc::SIG_IGN),
            libc::signal(libc::SIGQUIT, libc::SIG_IGN),
        ]
    }
}

fn restore_interrupts(previous: Handlers) {
    // SAFETY: restores the dispositions `ignore_interrupts` replaced.
    unsafe {
        libc::signal(libc::SIGINT, previous[0]);
        libc::signal(libc::SIGQUIT, previous[1]);
    }
}

/// Ends this process the way the original ended: with its exit code, or killed by its signal.
pub fn exit_like(status: ExitStatus) -> std::process::ExitCode {
    if let Some(sig) = status.signal() {
        // SAFETY: the default disposition is restored and the signal raised on this process,
        // which then ends as the program did (a core dump included, where it made one).
        unsafe {
            libc::signal(sig, libc::SIG_DFL);
            libc::raise(sig);
        }
        return std::process::ExitCode::from(128 + sig as u8);
    }
    std::process::ExitCode::from(status.code().unwrap_or(1) as u8)
}

/// The exit status in words, for the log.
pub fn describe(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(c), _) => format!("exit status {c}"),
        (None, Some(s)) => format!("signal {s}"),
        _ => "an unknown status".into(),
    }
}
