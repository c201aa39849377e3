//! The system calls of [Invite](https://docs.rs/invite-mt)'s sandbox, each behind a safe
//! function with the reason it is sound: everything that uses `unsafe` in the workspace.
//!
//! A sampled call of an instrumented function forks a *run*; each test of the call runs in a
//! process forked from the run. This crate makes those processes and keeps what they do to
//! themselves:
//!
//! - [`launch`] forks a run that the program's own child handling (a SIGCHLD handler, a
//!   `waitpid(-1)`) never sees, followed through a pidfd ([`process`]);
//! - [`detach`] gives the run private copies of every descriptor and shared mapping it
//!   inherited;
//! - [`policy`] is the allow list a test process runs under, [`bpf`] compiles it to a compact
//!   classic-BPF program, and [`seccomp`] installs it with a `SIGSYS` handler that reports a
//!   denied call instead of running it;
//! - [`broker`] opens files by path for a test process, outside the test, read-only;
//! - [`run`] holds the calls a run and its test processes make on themselves;
//! - [`ring`] is the lock-free shared ring that callers write calls of pure functions into;
//! - [`confine`] confines a whole program between `fork` and `exec` (Landlock, limits,
//!   capabilities, a filter), for a runner of whole programs;
//! - [`fd`], [`usage`], [`host`] and [`bytes`] are the runtime's own descriptors, resource
//!   usage, host facts and raw byte views.
//!
//! The crate is Linux-only; on any other target it is empty. It has no dependency on the rest
//! of Invite: the runtime (`invite-mt`) and the command (`invite-mt-cli`) use it, and nothing
//! in it knows about sites, relations or logs.
#![cfg(target_os = "linux")]
// The one crate of the workspace where `unsafe` is allowed: each block says why it is sound.
#![allow(unsafe_code)]
// A low layer: not every helper has a user on every configuration of the runtime.
#![allow(missing_docs)]

pub mod bpf;
pub mod broker;
pub mod bytes;
pub mod confine;
pub mod detach;
pub mod fd;
pub mod host;
pub mod launch;
pub mod policy;
pub mod process;
pub mod ring;
pub mod run;
pub mod seccomp;
pub mod usage;
