//! The `invite` command's library: reading invite's JSON Lines logs and turning them into
//! findings, tuned sampling rates and regression tests.
//!
//! The command itself (`invite report`, `invite discover`, `invite check-config`) is this package's binary; the
//! runtime that writes the logs is the `invite-mt` crate (imported as `invite`).
#![warn(missing_docs)]

pub mod discover;
pub mod report;
pub mod system;
