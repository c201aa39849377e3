// A value of a type Invite cannot shrink: the error says how to make it shrinkable.
#[derive(Clone, Debug)]
struct Reading {
    celsius: f64,
}

fn main() {
    let r = Reading { celsius: 21.5 };
    let _ = invite::shrink::minimize(r, 100, |r| r.celsius > 20.0);
}
