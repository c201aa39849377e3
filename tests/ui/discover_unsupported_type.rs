struct Point {
    x: f64,
    y: f64,
}

#[invite::discover]
fn norm(p: Point) -> f64 {
    p.x.hypot(p.y)
}

fn main() {}
