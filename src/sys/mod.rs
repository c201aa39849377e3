//! The system calls invite makes, each behind a safe function with the reason it is sound.
//! Everything above this module is `#![deny(unsafe_code)]`.

pub(crate) mod bytes;
pub(crate) mod fd;
pub(crate) mod host;
pub(crate) mod process;
pub(crate) mod ring;
pub(crate) mod usage;
