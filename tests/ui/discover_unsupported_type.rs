#[invite::discover]
fn norm(p: (f64, f64)) -> f64 {
    p.0.hypot(p.1)
}

fn main() {}
