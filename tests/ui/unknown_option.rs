#[invite::metamorphic(total(xs) == result, tolerence = 1e-9)]
fn total(xs: &[f64]) -> f64 {
    xs.iter().sum()
}

fn main() {}
