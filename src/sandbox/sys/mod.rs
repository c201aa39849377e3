//! The sandbox's low layer: the raw system work of a run, between the fork and its `_exit`,
//! where nothing may allocate behind a lock another thread held, and every call must pass the
//! test filter. Launching runs hidden from the program's child handling (`launch`), making a
//! run's memory and descriptors its own (`detach`), the filter's installation and its SIGSYS
//! handler (`seccomp`), the supervisor's open broker (`broker`), the frames on the verdict
//! pipe (`wire`), and the run's and test processes' own calls (`run`). Each raw call is behind
//! a safe function with the reason it is sound; the rest of the sandbox is
//! `#![deny(unsafe_code)]`.

pub mod broker;
pub mod detach;
pub mod entry;
pub mod launch;
pub mod run;
pub mod seccomp;
pub mod wire;
