#[invite::metamorphic(norm((2.0 * x, 2.0 * y)) == 2.0 * result)]
fn norm((x, y): (f64, f64)) -> f64 {
    (x * x + y * y).sqrt()
}

fn main() {}
