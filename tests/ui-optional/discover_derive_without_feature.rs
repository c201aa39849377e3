#[derive(Clone, invite::Discoverable)]
struct Point {
    x: f64,
    y: f64,
}

fn main() {}
