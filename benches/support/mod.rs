//! What several benchmarks measure alike.

#![allow(dead_code)]

use std::time::{Duration, Instant};

/// The log's file name inside the directory [`start_invite`] returns.
pub const LOG: &str = "log.jsonl";

/// Starts invite with `settings` (lines of `invite.toml`) and a log in a fresh directory, which
/// lives as long as the returned handle.
pub fn start_invite(settings: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("invite.toml");
    let log = dir.path().join(LOG).display().to_string();
    std::fs::write(&config, format!("{settings}log = {log:?}\n")).expect("config");
    std::env::set_var("INVITE_CONFIG", &config);
    assert!(invite::init(), "invite did not start");
    dir
}

/// The parent's time in a bare `fork()` whose child leaves at once; the child is reaped
/// outside the measurement.
pub fn bare_fork() -> Duration {
    let started = Instant::now();
    // SAFETY: the child calls only _exit.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        // SAFETY: _exit has no preconditions.
        unsafe { libc::_exit(0) };
    }
    let took = started.elapsed();
    assert!(pid > 0, "fork failed");
    // SAFETY: reaping our own child.
    unsafe { libc::waitpid(pid, std::ptr::null_mut(), 0) };
    took
}

/// The same, in microseconds.
pub fn bare_fork_us() -> f64 {
    bare_fork().as_secs_f64() * 1e6
}

pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// TLB shootdown interrupts received so far, summed over CPUs (the `TLB:` row of
/// `/proc/interrupts`, x86 Linux), or `None` where the kernel does not show them.
///
/// A fork write-protects the parent's pages and then flushes the TLB of every CPU that has run
/// one of the parent's threads since it was last told to stop caching them, even an idle one. On
/// a virtual machine an interrupt to an idle (halted) virtual CPU must first wake it, and the
/// fork waits for that: the count says how often a measured operation paid for one.
pub fn tlb_shootdowns() -> Option<u64> {
    let table = std::fs::read_to_string("/proc/interrupts").ok()?;
    let row = table.lines().find(|l| l.trim_start().starts_with("TLB:"))?;
    Some(
        row.split_whitespace()
            .skip(1)
            .map_while(|n| n.parse::<u64>().ok())
            .sum(),
    )
}
