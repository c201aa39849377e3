//! Where log lines go, and what happens when they cannot go there.
//!
//! The log is opened without blocking and must be a regular file (or `-`, standard error): a
//! FIFO or a device named by mistake would otherwise hang or flood the program. Lines are
//! written in whole batches; a batch the file does not take (a full disk, a file size limit)
//! is cut back out of the file, so no record is ever torn, and kept to be written again at the
//! next flush, up to [`KEEP_LIMIT`] bytes. Each kind of error is reported once on stderr, and
//! the failures and lost records are counted in every `stats` record.

use std::fs::{File, OpenOptions};
use std::io::Write;

/// How much unwritten log a failing sink keeps for later; older records beyond it are dropped
/// (and counted).
pub const KEEP_LIMIT: usize = 4 << 20;

enum Target {
    File(File),
    Stderr,
    /// No log: a check started without a configuration file (results go to the caller).
    Discard,
}

/// The log's destination, with its error accounting.
pub(crate) struct LogSink {
    target: Target,
    name: String,
    /// Flushes that failed.
    pub errors: u64,
    /// Records dropped because the kept backlog outgrew [`KEEP_LIMIT`].
    pub lost: u64,
    /// Error kinds already reported on stderr.
    reported: Vec<std::io::ErrorKind>,
}

impl LogSink {
    /// A sink that keeps nothing.
    pub fn discard() -> LogSink {
        LogSink {
            target: Target::Discard,
            name: "(none)".to_string(),
            errors: 0,
            lost: 0,
            reported: Vec::new(),
        }
    }

    /// Opens `target` for appending: `-` is standard error, anything else must be (or become)
    /// a regular file.
    pub fn open(target: &str) -> std::io::Result<LogSink> {
        let target_kind = if target == "-" {
            Target::Stderr
        } else {
            // Look first: opening a FIFO without a reader fails with a bare ENXIO.
            if let Ok(meta) = std::fs::metadata(target) {
                if !meta.is_file() {
                    return Err(not_regular(meta.file_type()));
                }
            }
            let mut options = OpenOptions::new();
            options.create(true).append(true);
            #[cfg(invite_linux)]
            std::os::unix::fs::OpenOptionsExt::custom_flags(
                &mut options,
                invite_sandbox::fd::NONBLOCKING_OPEN_FLAGS,
            );
            let file = options.open(target)?;
            let kind = file.metadata()?.file_type();
            if !kind.is_file() {
                return Err(not_regular(kind));
            }
            Target::File(file)
        };
        Ok(LogSink {
            target: target_kind,
            name: target.to_string(),
            errors: 0,
            lost: 0,
            reported: Vec::new(),
        })
    }

    /// Writes the complete lines in `pending` and empties it; on failure leaves them there
    /// (bounded by [`KEEP_LIMIT`]) for the next call.
    pub fn write_lines(&mut self, pending: &mut Vec<u8>) {
        if pending.is_empty() {
            return;
        }
        let result = match &mut self.target {
            Target::File(f) => write_whole(f, pending),
            Target::Stderr => std::io::stderr().lock().write_all(pending),
            Target::Discard => Ok(()),
        };
        match result {
            Ok(()) => pending.clear(),
            Err(e) => {
                self.errors += 1;
                if !self.reported.contains(&e.kind()) {
                    self.reported.push(e.kind());
                    let name = &self.name;
                    crate::diag::say(crate::diag::Level::Warn, "log write", || {
                        format!(
                            "cannot write the log `{name}`: {e}; records are kept (up to {} MiB) \
                             and written once it works again; `log_errors` in stats counts this",
                            KEEP_LIMIT >> 20
                        )
                    });
                }
                self.lost += trim_to(pending, KEEP_LIMIT);
            }
        }
    }
}

/// Appends `records` to the log `target` (a regular file, or `-` for standard error) in one
/// write, whole or not at all, as the collector writes its batches: for writers outside a
/// running program, such as `invite system`.
pub fn append(target: &str, records: &[crate::record::Record]) -> std::io::Result<()> {
    let mut batch = Vec::new();
    for r in records {
        batch.extend_from_slice(r.to_line().as_bytes());
        batch.push(b'\n');
    }
    match &mut LogSink::open(target)?.target {
        Target::File(f) => write_whole(f, &batch),
        Target::Stderr => std::io::stderr().lock().write_all(&batch),
        Target::Discard => Ok(()),
    }
}

fn not_regular(kind: std::fs::FileType) -> std::io::Error {
    std::io::Error::other(format!(
        "it is {}, not a regular file; name a file, or \"-\" for stderr",
        crate::config::describe_file_type(kind)
    ))
}

/// Appends all of `bytes` or nothing: a write cut short is cut back out of the file, unless
/// another process appended meanwhile, when the torn tail is ended with a newline so that the
/// next record starts on a line of its own (readers skip the torn line).
fn write_whole(f: &mut File, bytes: &[u8]) -> std::io::Result<()> {
    let before = f.metadata()?.len();
    let mut done = 0;
    while done < bytes.len() {
        match f.write(&bytes[done..]) {
            Ok(0) => {
                undo(f, before, done);
                return Err(std::io::ErrorKind::WriteZero.into());
            }
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                undo(f, before, done);
                return Err(e);
            }
        }
    }
    Ok(())
}

fn undo(f: &mut File, before: u64, written: usize) {
    if written == 0 {
        return;
    }
    match f.metadata() {
        Ok(m) if m.len() == before + written as u64 => {
            let _ = f.set_len(before);
        }
        _ => {
            let _ = f.write(b"\n");
        }
    }
}

/// Drops whole lines from the front of `pending` until it fits in `limit`; returns how many.
fn trim_to(pending: &mut Vec<u8>, limit: usize) -> u64 {
    let mut dropped = 0;
    let mut cut = 0;
    while pending.len() - cut > limit {
        match pending[cut..].iter().position(|&b| b == b'\n') {
            Some(i) => {
                cut += i + 1;
                dropped += 1;
            }
            None => {
                cut = pending.len();
                dropped += 1;
            }
        }
    }
    pending.drain(..cut);
    dropped
}

#[cfg(test)]
// The tests fork and signal processes of their own to set up what the code must survive.
#[allow(unsafe_code)]
mod tests {
    use super::*;

    #[test]
    fn a_backlog_loses_whole_oldest_lines_only() {
        let mut p = b"aaaa\nbbbb\ncccc\n".to_vec();
        assert_eq!(trim_to(&mut p, 100), 0);
        assert_eq!(p, b"aaaa\nbbbb\ncccc\n");
        assert_eq!(trim_to(&mut p, 10), 1);
        assert_eq!(p, b"bbbb\ncccc\n");
        assert_eq!(trim_to(&mut p, 4), 2);
        assert!(p.is_empty());
        // A last line without its newline counts as one line too.
        let mut torn = b"aaaa\nbb".to_vec();
        assert_eq!(trim_to(&mut torn, 0), 2);
        assert!(torn.is_empty());
    }

    fn read_only(path: &std::path::Path) -> LogSink {
        LogSink {
            target: Target::File(File::open(path).unwrap()),
            name: "test".into(),
            errors: 0,
            lost: 0,
            reported: Vec::new(),
        }
    }

    #[test]
    fn a_refused_batch_is_kept_counted_and_trimmed_to_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        std::fs::write(&path, "").unwrap();
        // Writes to a read-only descriptor fail: the sink must keep the lines.
        let mut sink = read_only(&path);
        let line = vec![b'x'; 1023];
        let mut pending = Vec::new();
        for _ in 0..(KEEP_LIMIT / 1024 + 3) {
            pending.extend_from_slice(&line);
            pending.push(b'\n');
        }
        sink.write_lines(&mut pending);
        assert_eq!(sink.errors, 1);
        assert_eq!(
            sink.lost, 3,
            "whole oldest lines beyond the limit are dropped and counted"
        );
        assert_eq!(pending.len(), KEEP_LIMIT);
        sink.write_lines(&mut pending);
        assert_eq!((sink.errors, sink.lost), (2, 3));
        assert_eq!(pending.len(), KEEP_LIMIT, "kept for the next flush");
    }

    #[test]
    fn a_write_cut_short_is_cut_back_out_of_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        std::fs::write(&path, "a\n").unwrap();
        // A child process with a 10-byte file size limit appends a longer batch: the kernel
        // writes 8 bytes and refuses the rest.
        // SAFETY: the child blocks a signal, sets its own limit, writes and leaves with _exit.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            // SAFETY: as above: this process's own signal mask, limit and descriptors.
            let code = unsafe {
                let mut set: libc::sigset_t = std::mem::zeroed();
                libc::sigemptyset(&mut set);
                libc::sigaddset(&mut set, libc::SIGXFSZ);
                libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
                let lim = libc::rlimit {
                    rlim_cur: 10,
                    rlim_max: libc::RLIM_INFINITY,
                };
                libc::setrlimit(libc::RLIMIT_FSIZE, &lim);
                let mut f = OpenOptions::new().append(true).open(&path).unwrap();
                i32::from(write_whole(&mut f, b"0123456789abcdef\n").is_err())
            };
            // SAFETY: leaving the child without running the harness.
            unsafe { libc::_exit(code) };
        }
        let mut status = 0;
        // SAFETY: reaping our own child.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        assert_eq!(
            libc::WEXITSTATUS(status),
            1,
            "the write must report its failure"
        );
        assert_eq!(
            std::fs::read(&path).unwrap(),
            b"a\n",
            "the torn part was not removed"
        );
    }

    #[test]
    fn a_torn_tail_after_another_writer_is_ended_not_truncated() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        // Our batch started at 2 and wrote 3 bytes, but another process appended meanwhile:
        // its record must stay, and ours is ended with a newline.
        std::fs::write(&path, "a\n{\"other\":1}\nxyz").unwrap();
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        undo(&mut f, 2, 3);
        assert_eq!(std::fs::read(&path).unwrap(), b"a\n{\"other\":1}\nxyz\n");
        // Alone, the same torn tail is cut back out.
        std::fs::write(&path, "a\nxyz").unwrap();
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        undo(&mut f, 2, 3);
        assert_eq!(std::fs::read(&path).unwrap(), b"a\n");
        // Nothing written: nothing to undo.
        undo(&mut f, 2, 0);
        assert_eq!(std::fs::read(&path).unwrap(), b"a\n");
    }

    #[test]
    fn only_regular_files_or_stderr_are_accepted() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo with a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = LogSink::open(fifo.to_str().unwrap()).err().unwrap();
        assert!(e.to_string().contains("a FIFO"), "{e}");
        let e = LogSink::open("/dev/null").err().unwrap();
        assert!(e.to_string().contains("a device"), "{e}");
        assert!(LogSink::open("-").is_ok());
        let file = dir.path().join("log.jsonl");
        let mut sink = LogSink::open(file.to_str().unwrap()).unwrap();
        let mut lines = b"{\"a\":1}\n".to_vec();
        sink.write_lines(&mut lines);
        assert!(lines.is_empty());
        assert_eq!(std::fs::read(&file).unwrap(), b"{\"a\":1}\n");
        assert_eq!((sink.errors, sink.lost), (0, 0));
    }
}
