//! The original invocation: run exactly as the user would run it, with the caller's standard
//! streams (invite never reads or relays them) and its exit status passed on.

use std::os::unix::process::ExitStatusExt;
use std::process::{Command, ExitStatus};
use std::time::{Duration, Instant};

use invite_sandbox::confine::ignore_interrupts;

/// How the original invocation ended.
pub struct Ended {
    /// Its exit status.
    pub status: ExitStatus,
    /// Its wall time, from spawn to exit.
    pub wall: Duration,
}

/// Runs `argv` with `stdin` (the caller's when `None`).
pub fn run(argv: &[String], stdin: Option<std::fs::File>) -> std::io::Result<Ended> {
    let mut cmd = Command::new(&argv[0]);
    cmd.args(&argv[1..]);
    if let Some(f) = stdin {
        cmd.stdin(f);
    }
    let started = Instant::now();
    let mut child = cmd.spawn()?;
    // While the program runs, the terminal's interrupt and quit keys are its business: invite
    // waits for it and then ends the way it ended.
    let previous = ignore_interrupts();
    let status = child.wait();
    previous.restore();
    Ok(Ended {
        status: status?,
        wall: started.elapsed(),
    })
}

/// Ends this process the way the original ended: with its exit code, or killed by its signal.
pub fn exit_like(status: ExitStatus) -> std::process::ExitCode {
    if let Some(sig) = status.signal() {
        // The process then ends as the program did (a core dump included, where it made one).
        invite_sandbox::confine::raise_default(sig);
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
