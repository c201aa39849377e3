//! The instrumented functions the sampled-call benchmarks call: trivial work, so that what is
//! measured is the sampling, not the function.

#![allow(dead_code)]

#[invite::in_vivo(test = holds)]
pub fn probe(x: u64) -> u64 {
    x.wrapping_add(1)
}

fn holds(x: &u64) -> bool {
    probe(*x) == x.wrapping_add(1)
}

/// A site with three tests: one fork serves them all.
#[invite::in_vivo(test = holds3, test = is_odd_or_even, test = grows)]
pub fn probe3(x: u64) -> u64 {
    x.wrapping_add(1)
}

fn holds3(x: &u64) -> bool {
    probe3(*x) == x.wrapping_add(1)
}

fn is_odd_or_even(x: &u64) -> bool {
    probe3(*x) % 2 != x % 2
}

fn grows(x: &u64) -> bool {
    *x == u64::MAX || probe3(*x) > *x
}
