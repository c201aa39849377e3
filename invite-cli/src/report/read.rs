//! Finding the inputs and streaming their lines, with every bad line accounted for.
//!
//! Logs come from processes that crash, are killed mid-line or run a newer version, so a bad
//! line is normal: it is skipped, counted and listed (file and line) in a short warning summary.
//! Nothing is loaded whole: lines are read one at a time through a large buffer, and a line
//! longer than [`MAX_LINE`] is skipped (and counted) without being held.

use std::fs::File;
use std::io::{BufRead, BufReader, IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The longest line kept, in bytes. invite writes lines far shorter (inputs are truncated to
/// 512 characters each); a longer line is damage, and holding it could exhaust memory.
pub const MAX_LINE: usize = 16 << 20;

/// One input: a file, or standard input (`-`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A log file.
    File(PathBuf),
    /// Standard input.
    Stdin,
}

impl Input {
    /// How messages name it.
    pub fn name(&self) -> String {
        match self {
            Input::File(p) => p.display().to_string(),
            Input::Stdin => "<stdin>".to_string(),
        }
    }
}

/// Expands the command line's paths: files as given, directories to their `*.jsonl` files
/// (sorted), `-` to standard input. A path that does not exist is an error naming it.
pub fn resolve(paths: &[String]) -> Result<Vec<Input>, String> {
    let mut inputs = Vec::new();
    for p in paths {
        if p == "-" {
            inputs.push(Input::Stdin);
            continue;
        }
        let path = Path::new(p);
        let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => format!("{p}: no such file or directory"),
            _ => format!("{p}: {e}"),
        })?;
        if meta.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(path)
                .map_err(|e| format!("{p}: cannot list the directory: {e}"))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.extension().is_some_and(|x| x == "jsonl") && f.is_file())
                .collect();
            if found.is_empty() {
                return Err(format!("{p}: the directory holds no *.jsonl log"));
            }
            found.sort();
            inputs.extend(found.into_iter().map(Input::File));
        } else if meta.is_file() {
            inputs.push(Input::File(path.to_path_buf()));
        } else {
            use std::os::unix::fs::FileTypeExt;
            // A device or socket never ends (`/dev/zero`) or is not a log; a FIFO is a stream
            // that a program may be writing a log into, as standard input may be.
            if !meta.file_type().is_fifo() {
                return Err(format!(
                    "{p}: not a log file or directory (a device or socket); pass a regular file, \
                     a directory of *.jsonl logs, or - for standard input"
                ));
            }
            inputs.push(Input::File(path.to_path_buf()));
        }
    }
    Ok(inputs)
}

/// Where a line came from.
#[derive(Clone, Debug)]
pub struct Location<'a> {
    /// The file's name.
    pub file: &'a str,
    /// The 1-based line number.
    pub line: u64,
}

/// Calls `each` with every non-empty line (without its newline) of every input, in order, and
/// `too_long` with the place and length of every line over [`MAX_LINE`] bytes instead.
/// Either returning `Err` stops the reading with that error. Shows a progress bar on a terminal
/// once reading has taken more than a second.
pub fn for_each_line(
    inputs: &[Input],
    mut each: impl FnMut(&[u8], &Location) -> Result<(), String>,
    mut too_long: impl FnMut(&Location, u64) -> Result<(), String>,
    mut empty_file: impl FnMut(&str),
) -> Result<(), String> {
    let total: u64 = inputs
        .iter()
        .filter_map(|i| match i {
            Input::File(p) => std::fs::metadata(p).ok().map(|m| m.len()),
            Input::Stdin => None,
        })
        .sum();
    let mut progress = Progress::new(total);
    for input in inputs {
        let name = input.name();
        let reader: Box<dyn Read> = match input {
            Input::File(p) => {
                Box::new(File::open(p).map_err(|e| format!("{}: cannot open: {e}", p.display()))?)
            }
            Input::Stdin => Box::new(std::io::stdin().lock()),
        };
        let mut reader = BufReader::with_capacity(1 << 20, reader);
        let mut buf = Vec::with_capacity(4096);
        let mut line = 0u64;
        let mut bytes_in_file = 0u64;
        loop {
            buf.clear();
            let (n, cut) = read_line_bounded(&mut reader, &mut buf, MAX_LINE)
                .map_err(|e| format!("{name}: {e}"))?;
            if n == 0 {
                break;
            }
            line += 1;
            bytes_in_file += n as u64;
            progress.advance(n as u64);
            if cut {
                too_long(&Location { file: &name, line }, n as u64)?;
                continue;
            }
            let mut text = &buf[..];
            while let [rest @ .., b'\n' | b'\r'] = text {
                text = rest;
            }
            if text.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            each(text, &Location { file: &name, line })?;
        }
        if bytes_in_file == 0 {
            empty_file(&name);
        }
    }
    progress.finish();
    Ok(())
}

/// Reads one line, newline included, into `buf`, keeping at most `max` bytes of it. Returns the
/// bytes consumed (0 at the end of the input) and whether the line was longer than `max`, in
/// which case `buf` is left empty and the rest of the line is read past, not kept.
fn read_line_bounded(
    reader: &mut impl BufRead,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<(usize, bool)> {
    let mut consumed = 0;
    let mut cut = false;
    loop {
        let chunk = match reader.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok((consumed, cut));
        }
        let (take, ends) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        if !cut {
            if buf.len() + take > max {
                cut = true;
                *buf = Vec::new();
            } else {
                buf.extend_from_slice(&chunk[..take]);
            }
        }
        reader.consume(take);
        consumed += take;
        if ends {
            return Ok((consumed, cut));
        }
    }
}

/// A progress bar on stderr, only on a terminal, only after the first second.
struct Progress {
    total: u64,
    done: u64,
    started: Instant,
    bar: Option<indicatif::ProgressBar>,
    tty: bool,
    since_check: u64,
}

impl Progress {
    fn new(total: u64) -> Progress {
        Progress::shown(total, std::io::stderr().is_terminal(), Instant::now())
    }

    /// A progress over `total` bytes (0: unknown), shown if `tty`, reading since `started`.
    fn shown(total: u64, tty: bool, started: Instant) -> Progress {
        Progress {
            total,
            done: 0,
            started,
            bar: None,
            tty,
            since_check: 0,
        }
    }

    fn advance(&mut self, n: u64) {
        self.done += n;
        self.since_check += n;
        if !self.tty || self.since_check < (1 << 20) {
            return;
        }
        self.since_check = 0;
        match &self.bar {
            Some(bar) => bar.set_position(self.done),
            None if self.started.elapsed().as_secs() >= 1 => {
                let bar = if self.total > 0 {
                    indicatif::ProgressBar::new(self.total)
                } else {
                    indicatif::ProgressBar::new_spinner()
                };
                bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
                if let Ok(style) = indicatif::ProgressStyle::with_template(
                    "{bar:40} {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
                ) {
                    bar.set_style(style);
                }
                bar.set_position(self.done);
                self.bar = Some(bar);
            }
            None => {}
        }
    }

    fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_expand_to_their_logs_and_missing_paths_are_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("b.jsonl"), "").unwrap();
        std::fs::write(dir.path().join("a.jsonl"), "").unwrap();
        std::fs::write(dir.path().join("notes.txt"), "").unwrap();
        let got = resolve(&[dir.path().display().to_string(), "-".into()]).unwrap();
        assert_eq!(
            got,
            vec![
                Input::File(dir.path().join("a.jsonl")),
                Input::File(dir.path().join("b.jsonl")),
                Input::Stdin
            ]
        );
        let err = resolve(&["/no/such/log.jsonl".into()]).unwrap_err();
        assert_eq!(err, "/no/such/log.jsonl: no such file or directory");
    }

    #[test]
    fn lines_keep_their_numbers_and_lose_their_newlines() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("x.jsonl");
        std::fs::write(&f, "one\r\n\n  \nfour\nfive-without-newline").unwrap();
        let empty = dir.path().join("empty.jsonl");
        std::fs::write(&empty, "").unwrap();
        let mut seen = Vec::new();
        let mut empties = Vec::new();
        for_each_line(
            &[Input::File(f.clone()), Input::File(empty.clone())],
            |l, loc| {
                assert_eq!(loc.file, f.display().to_string());
                seen.push((String::from_utf8_lossy(l).into_owned(), loc.line));
                Ok(())
            },
            |loc, n| panic!("line {} of {n} bytes called too long", loc.line),
            |name| empties.push(name.to_string()),
        )
        .unwrap();
        assert_eq!(
            seen,
            vec![
                ("one".into(), 1),
                ("four".into(), 4),
                ("five-without-newline".into(), 5)
            ]
        );
        assert_eq!(empties, [empty.display().to_string()]);
        assert_eq!(Input::Stdin.name(), "<stdin>");
    }

    /// Every line `reader` gives under `bound`: its text, the bytes it took, and whether it
    /// was cut.
    fn every_line(mut reader: impl BufRead, bound: usize) -> Vec<(String, usize, bool)> {
        let mut buf = Vec::new();
        let mut got = Vec::new();
        loop {
            buf.clear();
            let (n, cut) = read_line_bounded(&mut reader, &mut buf, bound).unwrap();
            if n == 0 {
                return got;
            }
            got.push((String::from_utf8_lossy(&buf).into_owned(), n, cut));
        }
    }

    #[test]
    fn a_line_over_the_bound_is_skipped_whole_and_reported_with_its_length() {
        let text = b"short\n0123456789abc\n0123456789\nlast-without-newline";
        // A reader with a tiny buffer, so that lines span several fills.
        assert_eq!(
            every_line(BufReader::with_capacity(4, &text[..]), 11),
            vec![
                ("short\n".to_string(), 6, false),
                (String::new(), 14, true),
                ("0123456789\n".to_string(), 11, false),
                (String::new(), 20, true),
            ]
        );
    }

    /// A reader whose every other fill is interrupted by a signal, as a pipe's may be.
    struct Interrupted<R> {
        inner: R,
        interrupt: bool,
    }

    impl<R: Read> Read for Interrupted<R> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.interrupt = !self.interrupt;
            if self.interrupt {
                return Err(std::io::ErrorKind::Interrupted.into());
            }
            self.inner.read(buf)
        }
    }

    #[test]
    fn a_read_interrupted_by_a_signal_is_retried_and_other_errors_end_the_reading() {
        let reader = Interrupted {
            inner: &b"one\ntwo\n"[..],
            interrupt: false,
        };
        let got = every_line(BufReader::with_capacity(2, reader), 100);
        let lines: Vec<&str> = got.iter().map(|(line, _, _)| line.as_str()).collect();
        assert_eq!(lines, ["one\n", "two\n"]);

        struct Broken;
        impl Read for Broken {
            fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
                Err(std::io::ErrorKind::InvalidData.into())
            }
        }
        let err = read_line_bounded(&mut BufReader::new(Broken), &mut Vec::new(), 100).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
    }

    #[test]
    fn progress_shows_on_a_terminal_after_a_second_and_a_mebibyte() {
        const MIB: u64 = 1 << 20;
        let long_ago = Instant::now() - std::time::Duration::from_secs(2);
        // Not a terminal: never, however long and much.
        let mut off = Progress::shown(10 * MIB, false, long_ago);
        off.advance(4 * MIB);
        assert!(off.bar.is_none());
        // Just begun: not yet, even past a mebibyte.
        let mut early = Progress::shown(10 * MIB, true, Instant::now());
        early.advance(2 * MIB);
        assert!(early.bar.is_none());

        let mut p = Progress::shown(10 * MIB, true, long_ago);
        p.advance(MIB - 1);
        assert!(p.bar.is_none(), "looked before a mebibyte was read");
        p.advance(1);
        let bar = p
            .bar
            .clone()
            .expect("shown at one mebibyte, after a second");
        assert_eq!((bar.length(), bar.position()), (Some(10 * MIB), MIB));
        // Between looks the bar is left alone; at the next mebibyte it catches up.
        p.advance(10);
        assert_eq!(bar.position(), MIB);
        p.advance(MIB);
        assert_eq!(bar.position(), 2 * MIB + 10);
        p.finish();
        assert!(p.bar.is_none() && bar.is_finished());

        // Standard input has no size: a spinner, without a length.
        let mut spinner = Progress::shown(0, true, long_ago);
        spinner.advance(MIB);
        let bar = spinner.bar.clone().expect("shown");
        assert_eq!((bar.length(), bar.position()), (None, MIB));
    }

    #[test]
    fn for_each_line_hands_over_long_lines_to_their_own_callback() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("x.jsonl");
        let long = "x".repeat(MAX_LINE + 1);
        std::fs::write(&f, format!("a\n{long}\nb\n")).unwrap();
        let mut seen = Vec::new();
        let mut long_lines = Vec::new();
        for_each_line(
            &[Input::File(f)],
            |l, loc| {
                seen.push((l.to_vec(), loc.line));
                Ok(())
            },
            |loc, n| {
                long_lines.push((loc.line, n));
                Ok(())
            },
            |_| {},
        )
        .unwrap();
        assert_eq!(seen, vec![(b"a".to_vec(), 1), (b"b".to_vec(), 3)]);
        assert_eq!(long_lines, vec![(2, MAX_LINE as u64 + 2)]);
    }

    #[test]
    fn devices_and_sockets_are_refused_by_name_and_fifos_taken() {
        let err = resolve(&["/dev/zero".into()]).unwrap_err();
        assert!(err.starts_with("/dev/zero: not a log file"), "{err}");
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("collector.jsonl");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        let err = resolve(&[socket.display().to_string()]).unwrap_err();
        assert!(
            err.starts_with(&format!("{}: not a log file", socket.display())),
            "{err}"
        );
        // A directory holding one hands over its regular logs and leaves the socket out.
        std::fs::write(dir.path().join("run.jsonl"), "").unwrap();
        assert_eq!(
            resolve(&[dir.path().display().to_string()]).unwrap(),
            vec![Input::File(dir.path().join("run.jsonl"))]
        );
        let fifo = dir.path().join("live.jsonl");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo reads a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert_eq!(
            resolve(&[fifo.display().to_string()]).unwrap(),
            vec![Input::File(fifo)]
        );
    }
}
