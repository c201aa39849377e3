//! What several benchmarks measure alike.

#![allow(dead_code)]

use std::time::{Duration, Instant};

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
