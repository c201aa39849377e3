#[invite::metamorphic(result = total(xs))]
fn total(xs: &[f64]) -> f64 {
    xs.iter().sum()
}

fn main() {}
