//! Frames on the pipes from a test process to its supervisor and from a run to the collector.
//!
//! A frame is a little-endian `u32` length followed by that many bytes of JSON. Writers use
//! plain `write(2)` on a raw descriptor: no lock, no buffered stream, nothing a forked child could
//! find held by a thread that no longer exists.

use std::collections::BTreeMap;
use std::os::fd::RawFd;

use serde::{Deserialize, Serialize};

use crate::record::Outcome;

/// Frames larger than this mark a corrupted stream.
const MAX_FRAME: usize = 4 << 20;

/// The most bytes of text one verdict or panic message carries: a whole run's frame (every
/// test's detail) stays far below the 4 MiB a frame may hold, however long a test's message.
pub const DETAIL_MAX: usize = 16 << 10;

/// `text`, cut at [`DETAIL_MAX`] bytes (on a character boundary) and marked as cut.
pub fn bounded(mut text: String) -> String {
    if text.len() <= DETAIL_MAX {
        return text;
    }
    let total = text.len();
    let mut cut = DETAIL_MAX;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    text.truncate(cut);
    text.push_str(&format!("… (truncated: {total} bytes in all)"));
    text
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "lowercase")]
pub enum Frame {
    /// The run's arguments as `Debug` text, sent once before any test.
    Inputs { inputs: BTreeMap<String, String> },
    /// A panic, sent from the panic hook before unwinding (or aborting) begins.
    Panic { message: String },
    /// The sandbox stopped a side effect (sent from a signal handler, then the process leaves).
    Blocked { detail: String },
    /// A test process's verdict, to its supervisor.
    Verdict {
        outcome: Outcome,
        detail: Option<String>,
        duration_us: u64,
    },
    /// One finished test of a run, to the collector.
    Test {
        index: usize,
        outcome: Outcome,
        duration_us: u64,
        detail: Option<String>,
    },
    /// Every test of the run has reported. `cpu_ns`: the CPU time the run and its test
    /// processes used, for the overhead budget when the run is not the program's own child
    /// (a hidden run's time never reaches the program's `RUSAGE_CHILDREN`).
    Done { cpu_ns: u64 },
    /// A pure site's worker (see `sandbox::worker`), executor to supervisor: the next tests
    /// are those of the call whose entry starts at `pos` in the ring.
    Begin { pos: u64 },
    /// Executor to supervisor: nothing is waiting at `pos` in the ring; wake me when there is.
    Idle { pos: u64 },
    /// Executor to supervisor: the function's result on the worker's copy differs from the
    /// caller's, so the call's remaining tests are inconclusive.
    Impure { detail: String },
    /// Executor to supervisor: every test of the call has reported; `cpu_ns` is the
    /// executor's CPU time so far.
    Finished { cpu_ns: u64 },
    /// Supervisor to collector: a call the worker tested, all its tests reported.
    Called(Box<Called>),
}

/// What the collector needs to record a worker's call as it records a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Call {
    pub run: u64,
    /// The site's address in the program, checked against the registered sites.
    pub site: u64,
    /// When the call was sampled, in nanoseconds since the Unix epoch.
    pub time_ns: u64,
    pub seeds: crate::record::Seeds,
    pub tests: u64,
    pub parent_ns: u64,
    /// The ring position after the call's entry.
    pub next: u64,
}

/// A call the worker tested: what its caller wrote, the arguments as `Debug` text, and each
/// test's outcome.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Called {
    pub call: Call,
    pub inputs: BTreeMap<String, String>,
    /// Each test run: its index, outcome, duration and detail.
    pub tests: Vec<(usize, Outcome, u64, Option<String>)>,
    /// The function gave another result on the worker's copy than the caller's.
    pub impure: bool,
    /// The CPU time the worker's processes used since the last report.
    pub cpu_ns: u64,
}

impl Frame {
    pub fn encode(&self) -> Vec<u8> {
        let body = serde_json::to_vec(self).expect("frames are always serialisable");
        let mut out = Vec::with_capacity(4 + body.len());
        out.extend_from_slice(&(body.len() as u32).to_le_bytes());
        out.extend_from_slice(&body);
        out
    }
}

pub use invite_sandbox::fd::write_all;

pub fn send(fd: RawFd, frame: &Frame) -> std::io::Result<()> {
    write_all(fd, &frame.encode())
}

/// Reassembles frames from whatever pieces the pipe delivers.
#[derive(Debug, Default)]
pub struct FrameReader {
    buf: Vec<u8>,
    corrupt: bool,
}

impl FrameReader {
    pub fn feed(&mut self, bytes: &[u8]) {
        if !self.corrupt {
            self.buf.extend_from_slice(bytes);
        }
    }

    /// Whether a malformed frame ended the stream.
    pub fn corrupt(&self) -> bool {
        self.corrupt
    }

    /// The next complete frame, if one has arrived. A malformed frame ends the stream.
    pub fn next_frame(&mut self) -> Option<Frame> {
        if self.corrupt || self.buf.len() < 4 {
            return None;
        }
        let len = u32::from_le_bytes(self.buf[..4].try_into().expect("four bytes")) as usize;
        if len > MAX_FRAME {
            self.corrupt = true;
            return None;
        }
        if self.buf.len() < 4 + len {
            return None;
        }
        let frame = serde_json::from_slice(&self.buf[4..4 + len]);
        self.buf.drain(..4 + len);
        match frame {
            Ok(f) => Some(f),
            Err(_) => {
                self.corrupt = true;
                None
            }
        }
    }

    /// Reads what the descriptor has now without blocking. Returns `true` at end of file.
    pub fn read_available(&mut self, fd: RawFd) -> bool {
        let mut chunk = [0u8; 16 * 1024];
        loop {
            match invite_sandbox::fd::read_raw(fd, &mut chunk) {
                Ok(0) => return true,
                Ok(n) => self.feed(&chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return false,
                Err(_) => return true,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_survive_being_split_anywhere() {
        let frames = vec![
            Frame::Inputs {
                inputs: [("xs".to_string(), "[1.0]".to_string())].into(),
            },
            Frame::Test {
                index: 2,
                outcome: Outcome::Fail,
                duration_us: 9,
                detail: Some("x".into()),
            },
            Frame::Done { cpu_ns: 12 },
        ];
        let bytes: Vec<u8> = frames.iter().flat_map(|f| f.encode()).collect();
        for step in 1..bytes.len() {
            let mut r = FrameReader::default();
            let mut got = Vec::new();
            for piece in bytes.chunks(step) {
                r.feed(piece);
                while let Some(f) = r.next_frame() {
                    got.push(f);
                }
            }
            assert_eq!(got, frames, "split every {step} bytes");
        }
    }

    #[test]
    fn garbage_ends_the_stream_instead_of_allocating() {
        let mut r = FrameReader::default();
        r.feed(&Frame::Done { cpu_ns: 1 }.encode());
        assert_eq!(r.next_frame(), Some(Frame::Done { cpu_ns: 1 }));
        assert!(!r.corrupt());
        r.feed(&[0xff, 0xff, 0xff, 0x7f, 1, 2, 3]);
        assert_eq!(r.next_frame(), None);
        assert!(r.corrupt());
        r.feed(&Frame::Done { cpu_ns: 0 }.encode());
        assert_eq!(r.next_frame(), None);
        // A frame of the right length that is not JSON ends it too.
        let mut r = FrameReader::default();
        r.feed(&[2, 0, 0, 0, b'{', b'{']);
        assert_eq!(r.next_frame(), None);
        assert!(r.corrupt());
    }

    #[test]
    fn a_long_text_is_cut_on_a_character_boundary_and_says_so() {
        let short = "é".repeat(10);
        assert_eq!(bounded(short.clone()), short);
        let exact = "x".repeat(DETAIL_MAX);
        assert_eq!(bounded(exact.clone()), exact);
        // Two-byte characters, one straddling the limit.
        let long = format!("x{}", "é".repeat(DETAIL_MAX));
        let cut = bounded(long.clone());
        let kept = cut.split('…').next().unwrap();
        assert_eq!(kept.len(), DETAIL_MAX - 1);
        assert!(long.starts_with(kept));
        assert!(
            cut.ends_with(&format!("… (truncated: {} bytes in all)", long.len())),
            "{}",
            &cut[cut.len() - 60..]
        );
    }
}
