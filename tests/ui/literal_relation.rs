#[invite::metamorphic(total(xs) == result, 42)]
fn total(xs: &[f64]) -> f64 {
    xs.iter().sum()
}

fn main() {}
