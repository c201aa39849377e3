//! The code a pure site's entry names: a function pointer, written by the caller as a number
//! and called in the worker (see `sandbox::worker`).

use crate::sandbox::worker::Runner;

/// The number a caller writes for its site's runner.
pub fn runner_address(runner: Runner) -> u64 {
    runner as usize as u64
}

/// The runner a caller wrote with [`runner_address`].
///
/// Only for a number read from the ring, which only the program writes (the worker maps it
/// read-only), next to the address of a site registered in this binary: the runner is code of
/// that same binary, and the worker is a fork of the program, so the code is at the same
/// address here.
pub fn runner_at(address: u64) -> Runner {
    // SAFETY: see above: `address` came from `runner_address` of a `Runner` in this binary,
    // whose code is mapped at the same place in every fork of the program.
    unsafe { std::mem::transmute::<usize, Runner>(address as usize) }
}
