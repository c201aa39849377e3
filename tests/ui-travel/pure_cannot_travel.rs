// A `pure` site's parameters and result cross to the worker: a type that cannot is named.

#[derive(Clone, Debug, PartialEq)]
struct Reading {
    value: f64,
}

#[invite::metamorphic(pure, calibrate(r) == result)]
fn calibrate(r: &Reading) -> f64 {
    r.value * 2.0
}

fn main() {}
