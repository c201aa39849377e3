//! Finding the inputs and streaming their lines, with every bad line accounted for.
//!
//! Logs come from processes that crash, are killed mid-line or run a newer version, so a bad
//! line is normal: it is skipped, counted and listed (file and line) in a short warning summary.
//! Nothing is loaded whole: each file is read by one reader, a line at a time through a large
//! buffer (decompressing `.gz` and `.zst` as a stream), into batches of about a mebibyte that
//! [`scan`] hands to parsing threads through a bounded queue; a line longer than [`MAX_LINE`]
//! is skipped (and counted) without being held.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// The longest line kept, in bytes. invite writes lines far shorter (inputs are truncated to
/// 512 characters each); a longer line is damage, and holding it could exhaust memory.
pub const MAX_LINE: usize = 16 << 20;

/// A batch is handed on once it holds this many bytes of lines, or [`BATCH_LINES`] lines.
const BATCH_BYTES: usize = 1 << 20;
const BATCH_LINES: usize = 1024;

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

/// How a file is compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// Not at all.
    Plain,
    /// gzip, one member or several (as `cat a.gz b.gz` and log rotation make).
    Gzip,
    /// Zstandard, one frame or several.
    Zstd,
}

impl Compression {
    /// What a file's name says: `.gz`, `.zst`; `None` for any other name.
    pub fn of_name(path: &Path) -> Option<Compression> {
        match path.extension()?.to_str()? {
            "gz" => Some(Compression::Gzip),
            "zst" | "zstd" => Some(Compression::Zstd),
            _ => None,
        }
    }

    /// What a file's first bytes say.
    pub fn sniff(head: &[u8]) -> Compression {
        if head.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Compression::Zstd
        } else {
            Compression::Plain
        }
    }
}

/// Whether a file in a directory is a log to read: `*.jsonl`, `*.json` or `*.log`, perhaps
/// rotated (`.1`, `.2`, ...) and perhaps compressed (`.gz`, `.zst`).
pub fn is_log_name(name: &str) -> bool {
    let name = [".gz", ".zst", ".zstd"]
        .iter()
        .find_map(|x| name.strip_suffix(x))
        .unwrap_or(name);
    // A rotated log's number: `invite.jsonl.3`.
    let name = match name.rsplit_once('.') {
        Some((base, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => base,
        _ => name,
    };
    [".jsonl", ".json", ".log"]
        .iter()
        .any(|x| name.len() > x.len() && name.ends_with(x))
}

/// What a directory holds that [`is_log_name`] names, in its subdirectories too. Symbolic
/// links to directories are not followed (they may loop); links to files are.
fn logs_under(dir: &Path, found: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: cannot list the directory: {e}", dir.display()))?;
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            logs_under(&path, found)?;
        } else if entry.file_name().to_str().is_some_and(is_log_name) && path.is_file() {
            found.push(path);
        }
    }
    Ok(())
}

const DIRECTORY_LOGS: &str = "*.jsonl, *.json or *.log, plain or .gz or .zst";

/// Adds one existing path: a file as it is, a directory as the logs under it.
fn add_path(p: &str, path: &Path, inputs: &mut Vec<Input>) -> Result<(), String> {
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => format!("{p}: no such file or directory"),
        _ => format!("{p}: {e}"),
    })?;
    if meta.is_dir() {
        let mut found = Vec::new();
        logs_under(path, &mut found)?;
        if found.is_empty() {
            return Err(format!(
                "{p}: the directory holds no log ({DIRECTORY_LOGS}, in it or below)"
            ));
        }
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
                 a directory of logs, or - for standard input"
            ));
        }
        inputs.push(Input::File(path.to_path_buf()));
    }
    Ok(())
}

/// Expands the command line's paths: files as given, directories to the logs under them (see
/// [`is_log_name`]), a pattern (`'logs/*/invite*.jsonl*'`, for a shell that passed it
/// unexpanded) to the paths it matches, `-` to standard input. A path that does not exist is an
/// error naming it. Each file is read once however many paths name it, and the inputs are
/// sorted by name, so that nothing depends on the order they were given in.
pub fn resolve(paths: &[String]) -> Result<Vec<Input>, String> {
    let mut inputs = Vec::new();
    let mut stdin = false;
    for p in paths {
        if p == "-" {
            stdin = true;
            continue;
        }
        let path = Path::new(p);
        let pattern = p.contains(['*', '?', '[']);
        if !pattern || path.symlink_metadata().is_ok() {
            add_path(p, path, &mut inputs)?;
            continue;
        }
        let matches = glob::glob(p).map_err(|e| {
            format!(
                "{p}: not a valid pattern ({e}); quote a pattern to pass it whole, or escape \
                 a literal `*`, `?` or `[` as `[*]`, `[?]`, `[[]`"
            )
        })?;
        let mut any = false;
        for m in matches {
            let m = m.map_err(|e| format!("{p}: {e}"))?;
            any = true;
            add_path(&m.display().to_string(), &m, &mut inputs)?;
        }
        if !any {
            return Err(format!("{p}: no file matches the pattern"));
        }
    }
    // One name per file: the same file given twice, or through a directory and by name, is
    // read once.
    let mut named: Vec<(String, PathBuf, Input)> = inputs
        .into_iter()
        .map(|i| {
            let Input::File(p) = &i else {
                unreachable!("files only")
            };
            let real = std::fs::canonicalize(p).unwrap_or_else(|_| p.clone());
            (i.name(), real, i)
        })
        .collect();
    named.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    let mut seen = std::collections::HashSet::new();
    let mut inputs: Vec<Input> = named
        .into_iter()
        .filter(|(_, real, _)| seen.insert(real.clone()))
        .map(|(_, _, i)| i)
        .collect();
    if stdin {
        inputs.push(Input::Stdin);
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

/// A line handed to a parser.
#[derive(Clone, Copy, Debug)]
pub enum Line<'a> {
    /// Its text, without the newline; never empty or only blanks.
    Text(&'a [u8]),
    /// A line over [`MAX_LINE`] bytes: its length, read past and not held.
    TooLong(u64),
}

/// Counts the bytes read from a file, before decompression: the progress bar's measure.
struct Counted<R> {
    inner: R,
    read: Arc<AtomicU64>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Why a file could not be read to its end: fatal (it cannot be opened, a disk error) or the
/// damage of a compressed file, after which the other files are still read.
enum Stop {
    Fatal(String),
    Damaged(String),
}

/// Opens an input, decompressing it as its name or, for any other name, its first bytes say.
fn open(
    input: &Input,
    name: &str,
    read: Arc<AtomicU64>,
) -> Result<(Box<dyn BufRead + Send>, Compression), Stop> {
    let raw: Box<dyn Read + Send> = match input {
        Input::File(p) => {
            Box::new(File::open(p).map_err(|e| Stop::Fatal(format!("{name}: cannot open: {e}")))?)
        }
        Input::Stdin => Box::new(std::io::stdin()),
    };
    let mut raw = BufReader::with_capacity(256 << 10, Counted { inner: raw, read });
    let head = loop {
        match raw.fill_buf() {
            Ok(head) => break head,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Stop::Fatal(format!("{name}: {e}"))),
        }
    };
    let sniffed = Compression::sniff(head);
    let named = match input {
        Input::File(p) => Compression::of_name(p),
        Input::Stdin => None,
    };
    let compression = match named {
        Some(c) if c != sniffed && !head.is_empty() => {
            let (what, magic, tool) = match c {
                Compression::Gzip => ("gzip", "1f 8b", "gzip"),
                _ => ("zstd", "28 b5 2f fd", "zstd"),
            };
            return Err(Stop::Damaged(format!(
                "{name}: not {what}: it does not start with {what}'s magic bytes ({magic}); \
                 rename it if it is not compressed, or compress it again with `{tool}`"
            )));
        }
        Some(c) => c,
        None => sniffed,
    };
    let reader: Box<dyn BufRead + Send> = match compression {
        Compression::Plain => Box::new(raw),
        Compression::Gzip => Box::new(BufReader::with_capacity(
            1 << 20,
            flate2::bufread::MultiGzDecoder::new(raw),
        )),
        #[cfg(feature = "zstd")]
        Compression::Zstd => {
            let decoder = zstd::stream::read::Decoder::with_buffer(raw)
                .map_err(|e| Stop::Fatal(format!("{name}: cannot start decompressing: {e}")))?;
            Box::new(BufReader::with_capacity(1 << 20, decoder))
        }
        #[cfg(not(feature = "zstd"))]
        Compression::Zstd => {
            return Err(Stop::Fatal(format!(
                "{name}: a zstd log, and this `invite` was built without zstd; install it with \
                 `cargo install invite-mt-cli --features zstd` (the default), or decompress the \
                 log with `zstd -d` first"
            )))
        }
    };
    Ok((reader, compression))
}

/// Lines of one file, handed on in batches.
struct Batch {
    /// The input's index.
    input: usize,
    /// The lines' text, one after the other.
    text: Vec<u8>,
    /// Each line: its number, and where its text is (or, for a line too long, its length).
    lines: Vec<(u64, Span)>,
}

#[derive(Clone, Copy)]
enum Span {
    At(u32, u32),
    TooLong(u64),
}

impl Batch {
    fn new(input: usize) -> Batch {
        Batch {
            input,
            text: Vec::with_capacity(BATCH_BYTES + 4096),
            lines: Vec::new(),
        }
    }

    fn full(&self) -> bool {
        self.text.len() >= BATCH_BYTES || self.lines.len() >= BATCH_LINES
    }

    fn push(&mut self, line: u64, text: &[u8]) {
        let start = self.text.len() as u32;
        self.text.extend_from_slice(text);
        self.lines
            .push((line, Span::At(start, self.text.len() as u32)));
    }

    fn each(
        &self,
        mut f: impl FnMut(u64, Line) -> Result<(), String>,
    ) -> Result<(), (u64, String)> {
        for &(n, span) in &self.lines {
            let line = match span {
                Span::At(a, b) => Line::Text(&self.text[a as usize..b as usize]),
                Span::TooLong(len) => Line::TooLong(len),
            };
            f(n, line).map_err(|e| (n, e))?;
        }
        Ok(())
    }
}

/// What reading a file met besides its lines.
#[derive(Default)]
struct Ends {
    /// Files without a line.
    empty: Vec<String>,
    /// Compressed files damaged or not compressed as named: the message for each.
    damaged: Vec<String>,
}

/// Docker's json-file driver splits a line longer than 16 KiB into entries of which only the
/// last ends in a newline: the pieces of each stream, joined until then, become one entry again.
#[derive(Default)]
struct DockerPieces {
    /// Per stream: the first piece's line number and the text so far.
    pending: HashMap<String, (u64, String)>,
}

#[derive(serde::Deserialize)]
struct DockerEntry {
    log: String,
    #[serde(default)]
    stream: String,
}

/// `{"log":"...` of a Docker entry whose text does not end in a newline: a piece of a longer
/// line. Only the prefix and the escaped newline before `","stream":"` are looked at.
fn docker_piece(line: &[u8]) -> bool {
    const HEAD: &[u8] = b"{\"log\":\"";
    const STREAM: &[u8] = b"\",\"stream\":\"";
    if !line.starts_with(HEAD) {
        return false;
    }
    // Inside the JSON string every quote is escaped, so the first unescaped `","stream":"` ends
    // it; a `"` preceded by a backslash is one of its characters.
    let mut from = HEAD.len();
    let end = loop {
        let Some(at) = line[from..].windows(STREAM.len()).position(|w| w == STREAM) else {
            return false;
        };
        let at = from + at;
        let slashes = line[..at].iter().rev().take_while(|&&b| b == b'\\').count();
        if slashes % 2 == 0 {
            break at;
        }
        from = at + 1;
    };
    let value = &line[HEAD.len()..end];
    // Ends with the escape `\n`: an `n` after an odd number of backslashes.
    let Some(before) = value.strip_suffix(b"n") else {
        return true;
    };
    let slashes = before.iter().rev().take_while(|&&b| b == b'\\').count();
    slashes % 2 == 0
}

/// What [`DockerPieces::take`] made of a line.
enum Taken {
    /// A piece, held until its line is whole.
    Held,
    /// The line as it is.
    Same,
    /// The pieces of a line joined, as one Docker entry, at the first piece's line number.
    Joined(u64, Vec<u8>),
    /// Pieces that add up to more than [`MAX_LINE`] bytes: the first's number and their length.
    TooLong(u64, u64),
}

/// One Docker entry holding `text`.
fn docker_entry(text: &str) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({ "log": text })).expect("a string serialises")
}

impl DockerPieces {
    fn take(&mut self, n: u64, line: &[u8]) -> Taken {
        if !line.starts_with(b"{\"log\":\"") {
            return Taken::Same;
        }
        let piece = docker_piece(line);
        if !piece && self.pending.is_empty() {
            return Taken::Same;
        }
        let Ok(entry) = serde_json::from_slice::<DockerEntry>(line) else {
            return Taken::Same;
        };
        if piece {
            let (first, text) = self
                .pending
                .entry(entry.stream.clone())
                .or_insert_with(|| (n, String::new()));
            text.push_str(&entry.log);
            if text.len() > MAX_LINE {
                let (first, len) = (*first, text.len() as u64);
                self.pending.remove(&entry.stream);
                return Taken::TooLong(first, len);
            }
            return Taken::Held;
        }
        match self.pending.remove(&entry.stream) {
            Some((first, mut text)) => {
                text.push_str(&entry.log);
                Taken::Joined(first, docker_entry(&text))
            }
            None => Taken::Same,
        }
    }

    /// The pieces still held at the end of the file, each stream's as an entry of its own.
    fn rest(&mut self) -> Vec<(u64, Vec<u8>)> {
        let mut rest: Vec<(u64, Vec<u8>)> = self
            .pending
            .drain()
            .map(|(_, (first, text))| (first, docker_entry(&text)))
            .collect();
        rest.sort();
        rest
    }
}

/// Reads one input to its end, or until `sink` returns `false`, handing its lines on in
/// batches. A compressed file found damaged is noted in `ends` (its lines before the damage
/// are handed on); `Err` is for an input that cannot be read at all.
fn read_input(
    index: usize,
    input: &Input,
    name: &str,
    progress: &Mutex<Progress>,
    ends: &Mutex<Ends>,
    sink: &mut dyn FnMut(Batch) -> bool,
) -> Result<(), String> {
    let read = Arc::new(AtomicU64::new(0));
    let (mut reader, compression) = match open(input, name, read.clone()) {
        Ok(r) => r,
        Err(Stop::Fatal(e)) => return Err(e),
        Err(Stop::Damaged(e)) => {
            lock(ends).damaged.push(e);
            return Ok(());
        }
    };
    let mut shown = 0u64;
    let mut advance = || {
        let now = read.load(Ordering::Relaxed);
        lock(progress).advance(now - shown);
        shown = now;
    };
    let mut batch = Batch::new(index);
    let (mut line, mut bytes) = (0u64, 0u64);
    let mut docker = DockerPieces::default();
    let result = loop {
        // Read straight into the batch: each line is copied once, from the reader's buffer.
        let start = batch.text.len();
        let (n, cut) = match read_line_bounded(&mut reader, &mut batch.text, MAX_LINE) {
            Ok(read) => read,
            Err(e) => break Err(e),
        };
        if n == 0 {
            break Ok(());
        }
        line += 1;
        bytes += n as u64;
        if cut {
            batch.lines.push((line, Span::TooLong(n as u64)));
        } else {
            let mut end = batch.text.len();
            while end > start && matches!(batch.text[end - 1], b'\n' | b'\r') {
                end -= 1;
            }
            let text = &batch.text[start..end];
            if text.iter().all(u8::is_ascii_whitespace) {
                batch.text.truncate(start);
                continue;
            }
            match docker.take(line, text) {
                Taken::Same => {
                    batch.text.truncate(end);
                    batch.lines.push((line, Span::At(start as u32, end as u32)));
                }
                Taken::Held => batch.text.truncate(start),
                Taken::Joined(first, entry) => {
                    batch.text.truncate(start);
                    batch.push(first, &entry);
                }
                Taken::TooLong(first, len) => {
                    batch.text.truncate(start);
                    batch.lines.push((first, Span::TooLong(len)));
                }
            }
        }
        if batch.full() {
            advance();
            if !sink(std::mem::replace(&mut batch, Batch::new(index))) {
                return Ok(());
            }
        }
    };
    for (first, entry) in docker.rest() {
        batch.push(first, &entry);
    }
    advance();
    // The lines before any damage count.
    if !batch.lines.is_empty() && !sink(batch) {
        return Ok(());
    }
    match result {
        Ok(()) => {
            if bytes == 0 {
                lock(ends).empty.push(name.to_string());
            }
            Ok(())
        }
        Err(e) if compression != Compression::Plain => {
            let what = if compression == Compression::Gzip {
                "gzip"
            } else {
                "zstd"
            };
            lock(ends).damaged.push(format!(
                "{name}: not {what}, or truncated ({e}); its first {line} line(s) were read, \
                 the rest of it is lost"
            ));
            Ok(())
        }
        Err(e) => Err(format!("{name}: {e}")),
    }
}

/// A mutex's value, also after a thread panicked holding it (the panic is reported anyway).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// What [`scan`] read besides the lines: each thread's state, and the files empty or damaged.
pub struct Scanned<S> {
    /// The state of each parsing thread, to be merged.
    pub states: Vec<S>,
    /// Files without a line, by name.
    pub empty: Vec<String>,
    /// Compressed files that are not as compressed as named, or damaged: a message each.
    pub damaged: Vec<String>,
}

/// The number of parsing threads when none is asked for: one per core.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Reads every input, each by one reader thread, and has `threads` threads call `each` on the
/// lines in batches, each with a state of its own made by `make`; the states are returned for
/// the caller to merge, which must not depend on which thread saw which line. With one thread
/// everything happens on the calling thread. The queue between readers and parsers holds two
/// batches a thread, so memory stays bounded whatever the inputs' size.
///
/// `each` returning `Err` stops the reading; so does an input that cannot be read. Of several
/// such errors met before everything stopped, the first by input and line is returned.
/// Shows a progress bar on a terminal once reading has taken more than a second.
pub fn scan<S: Send>(
    inputs: &[Input],
    threads: usize,
    make: impl Fn() -> S + Sync,
    each: impl Fn(&mut S, Line, &Location) -> Result<(), String> + Sync,
) -> Result<Scanned<S>, String> {
    let names: Vec<String> = inputs.iter().map(Input::name).collect();
    let progress = Mutex::new(Progress::new(total_size(inputs)));
    let ends = Mutex::new(Ends::default());
    let errors: Mutex<Vec<(usize, u64, String)>> = Mutex::new(Vec::new());
    let stop = AtomicBool::new(false);
    let fail = |input: usize, line: u64, e: String| {
        lock(&errors).push((input, line, e));
        stop.store(true, Ordering::Relaxed);
    };
    let parse = |state: &mut S, batch: &Batch| {
        let file = &names[batch.input];
        if let Err((line, e)) = batch.each(|line, text| each(state, text, &Location { file, line }))
        {
            fail(batch.input, line, e);
        }
    };
    let states = if threads <= 1 {
        let mut state = make();
        for (i, input) in inputs.iter().enumerate() {
            let mut sink = |batch: Batch| {
                parse(&mut state, &batch);
                !stop.load(Ordering::Relaxed)
            };
            if let Err(e) = read_input(i, input, &names[i], &progress, &ends, &mut sink) {
                fail(i, 0, e);
            }
            if stop.load(Ordering::Relaxed) {
                break;
            }
        }
        vec![state]
    } else {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Batch>(2 * threads);
        let rx = Mutex::new(rx);
        let next = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..threads.min(inputs.len()) {
                let tx = tx.clone();
                let (next, stop, names, progress, ends) = (&next, &stop, &names, &progress, &ends);
                let fail = &fail;
                s.spawn(move || loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= inputs.len() || stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let mut sink = |batch: Batch| tx.send(batch).is_ok();
                    if let Err(e) = read_input(i, &inputs[i], &names[i], progress, ends, &mut sink)
                    {
                        fail(i, 0, e);
                    }
                });
            }
            drop(tx);
            let workers: Vec<_> = (0..threads)
                .map(|_| {
                    let (rx, stop, make, parse) = (&rx, &stop, &make, &parse);
                    s.spawn(move || {
                        let mut state = make();
                        loop {
                            let batch = lock(rx).recv();
                            let Ok(batch) = batch else { break };
                            // After an error the queue is only drained, so readers end.
                            if !stop.load(Ordering::Relaxed) {
                                parse(&mut state, &batch);
                            }
                        }
                        state
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        })
    };
    lock(&progress).finish();
    let mut errors = errors.into_inner().unwrap_or_else(|e| e.into_inner());
    errors.sort();
    if let Some((_, _, e)) = errors.into_iter().next() {
        return Err(e);
    }
    let mut ends = ends.into_inner().unwrap_or_else(|e| e.into_inner());
    ends.empty.sort();
    ends.damaged.sort();
    Ok(Scanned {
        states,
        empty: ends.empty,
        damaged: ends.damaged,
    })
}

fn total_size(inputs: &[Input]) -> u64 {
    inputs
        .iter()
        .filter_map(|i| match i {
            Input::File(p) => std::fs::metadata(p).ok().map(|m| m.len()),
            Input::Stdin => None,
        })
        .sum()
}

/// Calls `each` with every non-empty line (without its newline) of every input, in order, and
/// `too_long` with the place and length of every line over [`MAX_LINE`] bytes instead; then
/// `empty_file` with each input without a line, and `damaged` with the message for each
/// compressed input found damaged. Either of the first two returning `Err` stops the reading
/// with that error. One thread: for readers that keep their findings in order.
pub fn for_each_line(
    inputs: &[Input],
    mut each: impl FnMut(&[u8], &Location) -> Result<(), String>,
    mut too_long: impl FnMut(&Location, u64) -> Result<(), String>,
    mut empty_file: impl FnMut(&str),
    mut damaged: impl FnMut(&str),
) -> Result<(), String> {
    let progress = Mutex::new(Progress::new(total_size(inputs)));
    let ends = Mutex::new(Ends::default());
    let mut failed = None;
    for (i, input) in inputs.iter().enumerate() {
        let name = input.name();
        let mut sink = |batch: Batch| {
            let done = batch.each(|line, text| {
                let at = Location { file: &name, line };
                match text {
                    Line::Text(t) => each(t, &at),
                    Line::TooLong(n) => too_long(&at, n),
                }
            });
            match done {
                Ok(()) => true,
                Err((_, e)) => {
                    failed = Some(e);
                    false
                }
            }
        };
        read_input(i, input, &name, &progress, &ends, &mut sink)?;
        if let Some(e) = failed {
            return Err(e);
        }
    }
    lock(&progress).finish();
    let ends = ends.into_inner().unwrap_or_else(|e| e.into_inner());
    ends.empty.iter().for_each(|e| empty_file(e));
    ends.damaged.iter().for_each(|e| damaged(e));
    Ok(())
}

/// Reads one line, newline included, onto the end of `buf`, keeping at most `max` bytes of it.
/// Returns the bytes consumed (0 at the end of the input) and whether the line was longer than
/// `max`, in which case `buf` is left as it was and the rest of the line is read past, not kept.
fn read_line_bounded(
    reader: &mut (impl BufRead + ?Sized),
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<(usize, bool)> {
    let start = buf.len();
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
        let (take, ends) = match memchr::memchr(b'\n', chunk) {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        if !cut {
            if buf.len() - start + take > max {
                cut = true;
                buf.truncate(start);
                // What the long line took is not held on to.
                buf.shrink_to(start + BATCH_BYTES);
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
    #[cfg(not(feature = "zstd"))]
    #[test]
    fn a_zstd_log_without_the_feature_says_how_to_read_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.jsonl.zst");
        std::fs::write(&path, [0x28, 0xb5, 0x2f, 0xfd, 0, 0]).unwrap();
        let opened = open(&Input::File(path), "run.jsonl.zst", Arc::default());
        let Err(Stop::Fatal(why)) = opened else {
            panic!("a zstd log opened without zstd");
        };
        assert!(why.contains("built without zstd"), "{why}");
        assert!(
            why.contains("--features zstd") && why.contains("zstd -d"),
            "{why}"
        );
    }

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
    fn logs_are_known_by_their_names_rotated_and_compressed_too() {
        for name in [
            "invite.jsonl",
            "a.json",
            "app.log",
            "invite.jsonl.gz",
            "invite.jsonl.zst",
            "invite.jsonl.3",
            "app.log.2.gz",
        ] {
            assert!(is_log_name(name), "{name}");
        }
        for name in [
            ".jsonl",
            "notes.txt",
            "invite.jsonl.bak",
            "a.gz",
            "jsonl",
            "x.log.1a",
        ] {
            assert!(!is_log_name(name), "{name}");
        }
        assert_eq!(Compression::sniff(&[0x1f, 0x8b, 8]), Compression::Gzip);
        assert_eq!(
            Compression::sniff(&[0x28, 0xb5, 0x2f, 0xfd]),
            Compression::Zstd
        );
        assert_eq!(Compression::sniff(b"{\"kind\""), Compression::Plain);
        assert_eq!(Compression::sniff(&[]), Compression::Plain);
    }

    #[test]
    fn a_docker_entry_without_its_newline_is_a_piece() {
        let entry = |log: &str| format!(r#"{{"log":{log},"stream":"stdout","time":"t"}}"#);
        assert!(!docker_piece(entry(r#""whole\n""#).as_bytes()));
        assert!(docker_piece(entry(r#""a piece""#).as_bytes()));
        // An escaped backslash before `n` is no newline.
        assert!(docker_piece(entry(r#""ends in \\n""#).as_bytes()));
        assert!(!docker_piece(entry(r#""ends in \\\n""#).as_bytes()));
        // A quote and the stream's key inside the text do not end it.
        assert!(docker_piece(
            entry(r#""say \",\"stream\":\"x\n then more""#).as_bytes()
        ));
        assert!(!docker_piece(b"{\"kind\":\"test\"}"));
        // Pieces of each stream are joined, and a line of another stream between them is
        // handed on as it is.
        let mut pieces = DockerPieces::default();
        let e = |log: &str, stream: &str| {
            format!(
                r#"{{"log":{},"stream":"{stream}"}}"#,
                serde_json::to_string(log).unwrap()
            )
        };
        assert!(matches!(
            pieces.take(1, e("ab", "stdout").as_bytes()),
            Taken::Held
        ));
        assert!(matches!(
            pieces.take(2, e("x\n", "stderr").as_bytes()),
            Taken::Same
        ));
        match pieces.take(3, e("cd\n", "stdout").as_bytes()) {
            Taken::Joined(1, entry) => {
                assert_eq!(entry, br#"{"log":"abcd\n"}"#.to_vec())
            }
            _ => panic!("not joined"),
        }
        assert!(matches!(
            pieces.take(4, e("tail", "stdout").as_bytes()),
            Taken::Held
        ));
        assert_eq!(pieces.rest(), vec![(4, br#"{"log":"tail"}"#.to_vec())]);
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
            |e| panic!("{e}"),
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
            |e| panic!("{e}"),
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
        use rustix::fs::{mknodat, FileType, Mode, CWD};
        mknodat(CWD, &fifo, FileType::Fifo, Mode::RUSR | Mode::WUSR, 0).unwrap();
        assert_eq!(
            resolve(&[fifo.display().to_string()]).unwrap(),
            vec![Input::File(fifo)]
        );
    }
}
