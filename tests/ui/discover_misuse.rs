#[invite::discover]
fn fill(out: &mut Vec<f64>, x: f64) -> f64 {
    out.push(x);
    x
}

#[invite::discover]
fn log_it(x: f64) {
    let _ = x;
}

#[invite::discover(f(-x) == -result)]
fn odd(x: f64) -> f64 {
    x
}

#[invite::metamorphic(twice(-x) == -result, discover = true)]
#[invite::discover]
fn twice(x: f64) -> f64 {
    2.0 * x
}

fn main() {}
