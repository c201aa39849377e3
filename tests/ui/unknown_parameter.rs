#[invite::metamorphic(total(&ys) == result)]
fn total(xs: &[f64]) -> f64 {
    xs.iter().sum()
}

fn main() {}
