//! Cutting a run's child off from everything it shares with the program, before any test runs.
//!
//! A fork copies memory but shares the rest: every descriptor the child inherits points at the
//! program's own open file description (its offset, its flags, its locks, the data queued on its
//! pipes and sockets), and every shared mapping is the program's memory. The seccomp allow list
//! (`sandbox::policy`) only lets a test use what it holds, so what it holds must be its own:
//!
//! - a regular file or directory is opened again, read-only, at the same offset: a new open file
//!   description, so reads work and move nothing of the program's;
//! - anything else (sockets, pipes, eventfd, epoll, timers, signalfd, inotify, pidfds, terminals,
//!   devices, a memfd opened for writing) is replaced by a dead descriptor, an `O_PATH` open of
//!   `/dev/null` on which every read, write, ioctl and poll fails with `EBADF`;
//! - every shared mapping is replaced, at the same address and with the same protection, by a
//!   private copy of its contents, so no store, `mprotect`, `madvise` or `userfaultfd` can reach
//!   the program's pages (mappings larger than [`COPY_LIMIT`] become inaccessible instead).
//!
//! Numbers stay where they were, so a struct that owns a `File` or a `TcpStream` still holds a
//! valid descriptor, and the test fails (or reads its private copy) instead of stealing the
//! program's data.

use std::os::fd::RawFd;

/// A shared mapping larger than this is not copied (the copy would double its memory in every
/// run) but made inaccessible: a test that reads it ends with `SIGSEGV`, as an error.
pub const COPY_LIMIT: usize = 256 << 20;

/// A regular file or directory opened again: its number and the program's offset in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reopened {
    pub fd: RawFd,
    pub offset: i64,
}

/// Replaces every open descriptor except 0–2 and `keep`, as described in the module docs, and
/// returns the files opened again. Standard input and output are expected to be `/dev/null`.
///
/// Processes forked afterwards share these new descriptions with each other, so each test
/// process calls [`reopen_again`] to get its own, at the program's offsets.
pub fn descriptors(keep: &[RawFd]) -> Vec<Reopened> {
    let mut reopened = Vec::new();
    let dead = dead_descriptor();
    let fds: Vec<RawFd> = match std::fs::read_dir("/proc/self/fd") {
        Ok(dir) => dir
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse().ok())
            .collect(),
        // No /proc: fall back to every number up to the soft limit.
        Err(_) => (0..open_max()).collect(),
    };
    for fd in fds {
        if fd <= 2 || keep.contains(&fd) || Some(fd) == dead {
            continue;
        }
        // SAFETY: an all-zero stat is a valid buffer for fstat to fill.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: fstat writes into `st`; a closed number (read_dir's own) fails with EBADF.
        if unsafe { libc::fstat(fd, &mut st) } != 0 {
            continue;
        }
        let kind = st.st_mode & libc::S_IFMT;
        // SAFETY: lseek with SEEK_CUR and 0 reads the offset without moving it.
        let offset = unsafe { libc::lseek(fd, 0, libc::SEEK_CUR) };
        let replaced = match kind {
            libc::S_IFREG | libc::S_IFDIR if !writable_memfd(fd) => reopen(fd, offset),
            _ => false,
        };
        if replaced {
            reopened.push(Reopened { fd, offset });
        } else if let Some(dead) = dead {
            // SAFETY: dup2 onto a number this process holds; the old description is released
            // by this process only (the program keeps its own reference).
            unsafe { libc::dup2(dead, fd) };
        } else {
            // SAFETY: as above; without a dead descriptor, closing is the harmless choice.
            unsafe { libc::close(fd) };
        }
    }
    if let Some(dead) = dead {
        // SAFETY: closing the template; its duplicates stay.
        unsafe { libc::close(dead) };
    }
    reopened
}

/// In a test process: opens each file of [`descriptors`] once more, at the program's offset, so
/// that no test moves an offset another test of the same call starts from. A file that cannot
/// be opened again keeps the run's description.
pub fn reopen_again(files: &[Reopened]) {
    for f in files {
        reopen(f.fd, f.offset);
    }
}

/// An `O_PATH` descriptor of `/dev/null`: holding it does nothing, using it fails with `EBADF`.
pub fn dead_descriptor() -> Option<RawFd> {
    // SAFETY: open with a static C string; O_PATH opens neither for reading nor writing.
    let fd = unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
    (fd >= 0).then_some(fd)
}

fn open_max() -> RawFd {
    // SAFETY: sysconf has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_OPEN_MAX) };
    n.clamp(64, 65_536) as RawFd
}

/// Whether `fd` is a memfd opened for writing (its contents are the program's shared memory).
fn writable_memfd(fd: RawFd) -> bool {
    // SAFETY: F_GETFL reads this descriptor's flags.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 || flags & libc::O_ACCMODE == libc::O_RDONLY {
        return false;
    }
    std::fs::read_link(format!("/proc/self/fd/{fd}"))
        .is_ok_and(|p| p.as_os_str().as_encoded_bytes().starts_with(b"/memfd:"))
}

/// Opens the file behind `fd` again, read-only, at `offset`, and puts the new open file
/// description at `fd`. False if it cannot (the file is not readable to us, say).
fn reopen(fd: RawFd, offset: i64) -> bool {
    let path = format!("/proc/self/fd/{fd}\0");
    // A directory opens read-only like a file; O_NONBLOCK keeps a leased file from stalling us.
    let flags = libc::O_RDONLY | libc::O_CLOEXEC | libc::O_NOCTTY | libc::O_NONBLOCK;
    // SAFETY: `path` is NUL-terminated; O_NOATIME keeps the program's file times as they are
    // where we own the file, and is dropped where we do not (EPERM).
    let mut new = unsafe { libc::open(path.as_ptr().cast(), flags | libc::O_NOATIME) };
    if new < 0 {
        // SAFETY: as above.
        new = unsafe { libc::open(path.as_ptr().cast(), flags) };
    }
    if new < 0 {
        return false;
    }
    // SAFETY: lseek moves our new description only; dup2 and close act on descriptors we hold.
    unsafe {
        if offset > 0 {
            libc::lseek(new, offset, libc::SEEK_SET);
        }
        let ok = libc::dup2(new, fd) == fd;
        libc::close(new);
        ok
    }
}

/// One line of `/proc/self/maps` that is a shared mapping.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SharedMapping {
    pub start: usize,
    pub end: usize,
    pub prot: libc::c_int,
}

/// The shared mappings listed in a `/proc/<pid>/maps` text.
pub fn shared_mappings(maps: &str) -> Vec<SharedMapping> {
    maps.lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let (range, perms) = (fields.next()?, fields.next()?.as_bytes());
            if perms.len() < 4 || perms[3] != b's' {
                return None;
            }
            let (a, b) = range.split_once('-')?;
            let (start, end) = (
                usize::from_str_radix(a, 16).ok()?,
                usize::from_str_radix(b, 16).ok()?,
            );
            let mut prot = libc::PROT_NONE;
            for (i, bit) in [libc::PROT_READ, libc::PROT_WRITE, libc::PROT_EXEC]
                .into_iter()
                .enumerate()
            {
                if perms[i] != b'-' {
                    prot |= bit;
                }
            }
            (end > start).then_some(SharedMapping { start, end, prot })
        })
        .collect()
}

/// Replaces every shared mapping of this process by a private copy, in place.
pub fn privatize_shared_mappings() {
    privatize_shared_mappings_except(&[]);
}

/// [`privatize_shared_mappings`], but for the mappings inside `keep` (start, end): the
/// worker of pure sites keeps its ring shared.
pub fn privatize_shared_mappings_except(keep: &[(usize, usize)]) {
    let Ok(maps) = std::fs::read_to_string("/proc/self/maps") else {
        return;
    };
    for m in shared_mappings(&maps) {
        if keep.iter().any(|&(a, b)| m.start >= a && m.end <= b) {
            continue;
        }
        if !privatize(m) {
            seal(m);
        }
    }
}

/// Copies one shared mapping into private memory and moves the copy over it.
fn privatize(m: SharedMapping) -> bool {
    let len = m.end - m.start;
    if len > COPY_LIMIT {
        return false;
    }
    // SAFETY: a fresh private anonymous mapping; checked for failure.
    let copy = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if copy == libc::MAP_FAILED {
        return false;
    }
    if m.prot & libc::PROT_READ != 0 {
        // process_vm_readv on ourselves copies what it can and stops at a page that faults
        // (a file truncated under its mapping, device memory), where a plain copy would raise
        // SIGBUS in the child; what it cannot read stays zero.
        let local = libc::iovec {
            iov_base: copy,
            iov_len: len,
        };
        let remote = libc::iovec {
            iov_base: m.start as *mut libc::c_void,
            iov_len: len,
        };
        // SAFETY: both iovecs describe mappings of this process of `len` bytes.
        unsafe { libc::process_vm_readv(libc::getpid(), &local, 1, &remote, 1, 0) };
    }
    // SAFETY: MREMAP_FIXED moves our private copy over the shared mapping's range, unmapping
    // the shared pages from this process only; the program's mapping is untouched.
    let moved = unsafe {
        libc::mremap(
            copy,
            len,
            len,
            libc::MREMAP_MAYMOVE | libc::MREMAP_FIXED,
            m.start as *mut libc::c_void,
        )
    };
    if moved == libc::MAP_FAILED {
        // SAFETY: releasing the copy we made.
        unsafe { libc::munmap(copy, len) };
        return false;
    }
    // SAFETY: restoring the mapping's protection on our private copy.
    unsafe { libc::mprotect(m.start as *mut libc::c_void, len, m.prot) };
    true
}

/// Replaces a shared mapping by an inaccessible private one (same addresses, no contents).
fn seal(m: SharedMapping) {
    // SAFETY: MAP_FIXED over a range this process maps; the program's mapping is untouched.
    unsafe {
        libc::mmap(
            m.start as *mut libc::c_void,
            m.end - m.start,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
            -1,
            0,
        )
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A shared mapping too large to copy becomes inaccessible in the child, and the
    /// program's contents stay as they were.
    #[test]
    fn a_shared_mapping_beyond_the_copy_limit_is_sealed() {
        let len = COPY_LIMIT + 4096;
        // SAFETY: a fresh shared anonymous mapping (untouched pages cost nothing), checked.
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
        let first = p.cast::<u64>();
        // SAFETY: the first word of the mapping made above.
        unsafe { *first = 7 };
        // SAFETY: the child reads its own maps and leaves through _exit.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            privatize_shared_mappings();
            let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
            let start = format!("{:x}-", p as usize);
            // Sealed whole: one inaccessible range from the first byte to the last.
            let whole = format!("{:x}-{:x} ---p", p as usize, p as usize + len);
            let code = match maps.lines().find(|l| l.starts_with(&start)) {
                Some(line) if line.starts_with(&whole) => 0,
                Some(_) => 1,
                None => 2,
            };
            // SAFETY: _exit is async-signal-safe.
            unsafe { libc::_exit(code) };
        }
        let mut status = 0;
        // SAFETY: waiting for the child forked above.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        assert!(libc::WIFEXITED(status), "{status:#x}");
        assert_eq!(libc::WEXITSTATUS(status), 0, "1: not sealed, 2: not found");
        // SAFETY: the program's mapping is still its own.
        assert_eq!(unsafe { *first }, 7);
        // SAFETY: releasing the mapping made above.
        unsafe { libc::munmap(p, len) };
    }

    /// What `descriptors` made of each kind, checked in a forked child (it rewrites the whole
    /// descriptor table): the exit code names the first check that failed, 0 if none.
    #[test]
    fn each_kind_of_descriptor_is_reopened_or_made_dead_at_its_number() {
        let dir = std::env::temp_dir().join(format!("invite-detach-{}", std::process::id()));
        std::fs::write(&dir, b"0123456789").unwrap();
        let path = std::ffi::CString::new(dir.to_str().unwrap()).unwrap();
        // SAFETY: the child makes system calls only and leaves through _exit.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            // SAFETY: this is the forked child `detach_in_child` needs.
            let code = unsafe { detach_in_child(&path) };
            // SAFETY: _exit is async-signal-safe.
            unsafe { libc::_exit(code) };
        }
        let mut status = 0;
        // SAFETY: `pid` is our child.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        let _ = std::fs::remove_file(&dir);
        assert!(libc::WIFEXITED(status), "status {status}");
        assert_eq!(libc::WEXITSTATUS(status), 0, "check number that failed");
    }

    /// # Safety
    /// Only in a forked child of the test.
    unsafe fn detach_in_child(path: &std::ffi::CStr) -> i32 {
        // SAFETY: per the contract, this runs in a forked child of the test, whose raw calls
        // act on descriptors and memory of its own.
        unsafe {
            let mut byte = [0u8; 1];
            let read_one =
                |fd: RawFd, buf: &mut [u8; 1]| libc::read(fd, buf.as_mut_ptr().cast(), 1);
            let file = libc::open(path.as_ptr(), libc::O_RDWR);
            libc::lseek(file, 4, libc::SEEK_SET);
            let memfd = libc::memfd_create(c"detach".as_ptr(), 0);
            libc::write(memfd, b"secret".as_ptr().cast(), 6);
            libc::lseek(memfd, 0, libc::SEEK_SET);
            // The same memory opened read-only: not writable, so reopened like a file.
            let own_path = std::ffi::CString::new(format!("/proc/self/fd/{memfd}")).unwrap();
            let memfd_read = libc::open(own_path.as_ptr(), libc::O_RDONLY);
            let mut pipe = [0; 2];
            libc::pipe(pipe.as_mut_ptr());
            libc::write(pipe[1], b"x".as_ptr().cast(), 1);
            if file < 3 || memfd < 3 || memfd_read < 3 || pipe[0] < 3 {
                return 1;
            }
            let open_before = std::fs::read_dir("/proc/self/fd").map_or(0, |d| d.count());
            let reopened = descriptors(&[]);
            // The file: a new read-only description at the same number and offset (other tests'
            // files, open in the test binary at the fork, may be in the list too).
            let own = Reopened {
                fd: file,
                offset: 4,
            };
            if !reopened.contains(&own)
                || !reopened.iter().any(|r| r.fd == memfd_read)
                || reopened
                    .iter()
                    .any(|r| [memfd, pipe[0], pipe[1]].contains(&r.fd))
            {
                return 2;
            }
            if libc::fcntl(file, libc::F_GETFL) & libc::O_ACCMODE != libc::O_RDONLY {
                return 3;
            }
            if read_one(file, &mut byte) != 1 || byte != *b"4" {
                return 4;
            }
            // The writable memfd and the pipe: still open at their numbers, but dead.
            for fd in [memfd, pipe[0], pipe[1]] {
                let flags = libc::fcntl(fd, libc::F_GETFL);
                if flags < 0 || flags & libc::O_PATH == 0 {
                    return 5;
                }
                if read_one(fd, &mut byte) != -1 || *libc::__errno_location() != libc::EBADF {
                    return 6;
                }
            }
            // The template of the dead descriptors is not left behind.
            if std::fs::read_dir("/proc/self/fd").map_or(0, |d| d.count()) != open_before {
                return 7;
            }
            0
        }
    }

    #[test]
    fn the_fallback_scan_covers_at_least_the_lowest_numbers() {
        assert!(open_max() >= 64);
        assert!(open_max() <= 65_536);
    }

    #[test]
    fn shared_mappings_are_read_from_maps_with_their_protection() {
        let maps = "\
7f0000000000-7f0000001000 rw-s 00000000 00:01 1234 /dev/zero (deleted)
7f0000002000-7f0000004000 r--p 00000000 08:01 99 /usr/lib/libc.so.6
7f0000005000-7f0000006000 -w-s 00000000 00:05 7 /memfd:x (deleted)
7f0000007000-7f0000008000 ---s 00000000 00:05 8 /SYSV00000000 (deleted)
7f0000009000-7f000000a000 r-xs 00000000 00:05 9 /data
bad line
";
        let got = shared_mappings(maps);
        assert_eq!(
            got,
            vec![
                SharedMapping {
                    start: 0x7f00_0000_0000,
                    end: 0x7f00_0000_1000,
                    prot: libc::PROT_READ | libc::PROT_WRITE
                },
                SharedMapping {
                    start: 0x7f00_0000_5000,
                    end: 0x7f00_0000_6000,
                    prot: libc::PROT_WRITE
                },
                SharedMapping {
                    start: 0x7f00_0000_7000,
                    end: 0x7f00_0000_8000,
                    prot: libc::PROT_NONE
                },
                SharedMapping {
                    start: 0x7f00_0000_9000,
                    end: 0x7f00_0000_a000,
                    prot: libc::PROT_READ | libc::PROT_EXEC
                },
            ]
        );
    }
}
