#[invite::in_vivo()]
fn total(xs: &[f64]) -> f64 {
    xs.iter().sum()
}

fn main() {}
