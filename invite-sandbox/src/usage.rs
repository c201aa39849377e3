//! What this process has used: CPU time (its own and its reaped children's), page faults,
//! resident memory, and what one copy-on-write fault costs it. The caps and the collector
//! charge runs from these.

use std::time::Instant;

/// This process's resident memory in MiB, from /proc (0 when unreadable).
pub fn resident_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// CPU time (user and system, nanoseconds) of this process's children that have been reaped,
/// with their own reaped descendants: what plainly forked test runs consumed.
pub fn children_cpu_ns() -> u64 {
    cpu_ns(libc::RUSAGE_CHILDREN)
}

/// CPU time (user and system, nanoseconds) that `getrusage(who)` reports.
pub fn cpu_ns(who: libc::c_int) -> u64 {
    let usage = rusage(who);
    nanos(usage.ru_utime) + nanos(usage.ru_stime)
}

/// The process's minor page faults and system CPU time (nanoseconds) so far.
pub fn usage() -> (u64, u64) {
    let usage = rusage(libc::RUSAGE_SELF);
    (usage.ru_minflt as u64, nanos(usage.ru_stime))
}

/// How a child ended, and what it used, from `wait4`.
#[derive(Debug, Clone, Copy)]
pub struct Ended {
    /// Its exit status.
    pub status: std::process::ExitStatus,
    /// Its peak resident memory, in MiB.
    pub peak_mib: f64,
    /// The CPU time (user and system) it used, in nanoseconds.
    pub cpu_ns: u64,
}

/// Waits for the child `pid` to end and reaps it (`None` if it is not a child of this
/// process).
pub fn wait_child(pid: libc::pid_t) -> Option<Ended> {
    use std::os::unix::process::ExitStatusExt;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for a child with valid pointers to locals, which live across the call.
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    (reaped == pid).then(|| Ended {
        status: std::process::ExitStatus::from_raw(status),
        peak_mib: usage.ru_maxrss as f64 / 1024.0,
        cpu_ns: nanos(usage.ru_utime) + nanos(usage.ru_stime),
    })
}

fn rusage(who: libc::c_int) -> libc::rusage {
    // SAFETY: an all-zero rusage is a valid value for getrusage to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes into `usage`, which lives across the call.
    unsafe { libc::getrusage(who, &mut usage) };
    usage
}

fn nanos(t: libc::timeval) -> u64 {
    t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1000
}

/// The time of `pages` faults, per fault.
fn per_page(took: std::time::Duration, pages: usize) -> u64 {
    took.as_nanos() as u64 / pages as u64
}

/// Measures what one copy-on-write fault costs this process: forks a child that only waits,
/// writes one byte into each of 64 pages shared with it, and times that. About a millisecond,
/// once, at start-up. Falls back to 0 (no charge) if the fork fails.
pub fn cow_fault_cost_ns() -> u64 {
    const PAGES: usize = 64;
    let mut pages = vec![1u8; PAGES * 4096];
    for p in pages.chunks_mut(4096) {
        p[0] = 2;
    }
    // A raw clone with no exit signal rather than fork: the program's SIGCHLD handler and
    // `waitpid(-1)` never see this child (only waits with `__WALL` do). It skips glibc's fork
    // handlers, which is sound because the child only pauses until it is killed.
    // SAFETY: clone with only an exit signal of 0 and no stack duplicates the process like
    // fork; the child runs nothing but the async-signal-safe pause().
    let pid = unsafe { libc::syscall(libc::SYS_clone, 0, 0, 0, 0, 0) } as libc::pid_t;
    if pid < 0 {
        return 0;
    }
    if pid == 0 {
        loop {
            // SAFETY: pause has no preconditions.
            unsafe { libc::pause() };
        }
    }
    let started = Instant::now();
    for p in pages.chunks_mut(4096) {
        // Volatile, so the compiler cannot merge or drop the writes being timed.
        // SAFETY: `p` is a live, writable page of `pages`.
        unsafe { std::ptr::write_volatile(p.as_mut_ptr(), 3) };
    }
    let cost = per_page(started.elapsed(), PAGES);
    // SAFETY: killing and reaping the child just made (a clone child: hence __WALL).
    unsafe {
        libc::kill(pid, libc::SIGKILL);
        libc::waitpid(pid, std::ptr::null_mut(), libc::__WALL);
    }
    std::hint::black_box(&pages);
    cost
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This process's CPU time by the kernel's precise clock.
    fn process_cpu_ns() -> u64 {
        // SAFETY: an all-zero timespec is valid; clock_gettime writes into it.
        let mut ts: libc::timespec = unsafe { std::mem::zeroed() };
        // SAFETY: `ts` lives across the call.
        unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
        ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
    }

    #[test]
    fn a_copy_on_write_fault_is_measured_per_page() {
        // A fault that copies a 4 KiB page takes far more than 100 ns on any machine (a busy
        // one only makes it slower); a cost not measured, or not divided per page, is less.
        let ns = cow_fault_cost_ns();
        assert!(ns >= 100, "{ns} ns a fault");
    }

    #[test]
    fn cpu_time_is_read_in_nanoseconds_for_the_process_and_its_reaped_children() {
        // 300 ms of CPU, spun here: getrusage sees about what the precise clock sees.
        let (clock0, own0) = (process_cpu_ns(), cpu_ns(libc::RUSAGE_SELF));
        let mut h = 1u64;
        while process_cpu_ns() - clock0 < 300_000_000 {
            h = std::hint::black_box(h.wrapping_mul(31).wrapping_add(7));
        }
        let (clock1, own1) = (process_cpu_ns(), cpu_ns(libc::RUSAGE_SELF));
        let (spun, counted) = (clock1 - clock0, own1.saturating_sub(own0));
        assert!(
            counted >= spun / 2 && counted <= spun * 2,
            "getrusage counted {counted} ns of {spun} ns"
        );
        // A child that spins 200 ms counts among the children once reaped.
        let before = children_cpu_ns();
        // SAFETY: the child only spins on its own CPU clock and leaves with _exit.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            let start = process_cpu_ns();
            while process_cpu_ns() - start < 200_000_000 {}
            // SAFETY: _exit has no preconditions.
            unsafe { libc::_exit(0) };
        }
        assert!(pid > 0, "fork failed");
        // SAFETY: reaping the child just made.
        unsafe { libc::waitpid(pid, std::ptr::null_mut(), 0) };
        let children = children_cpu_ns() - before;
        assert!(
            (100_000_000..=400_000_000).contains(&children),
            "{children} ns for a child that spun 200 ms"
        );
    }

    #[test]
    fn resident_memory_is_read_in_mebibytes_and_grows_with_touched_pages() {
        let before = resident_mib();
        assert!(before > 1.0 && before < 1e6, "{before} MiB");
        let v = vec![1u8; 64 << 20];
        let after = resident_mib();
        std::hint::black_box(&v);
        assert!(after - before >= 48.0, "{before} MiB, then {after} MiB");
    }

    #[test]
    fn times_convert_to_nanoseconds() {
        let t = libc::timeval {
            tv_sec: 2,
            tv_usec: 500,
        };
        assert_eq!(nanos(t), 2_000_500_000);
        assert_eq!(per_page(std::time::Duration::from_micros(128), 64), 2_000);
    }

    #[test]
    fn copy_on_write_faults_are_counted() {
        let before = usage().0;
        let v = vec![1u8; 64 * 4096];
        std::hint::black_box(&v);
        assert!(usage().0 > before);
    }
}
