#[invite::in_vivo(test = check)]
fn total(xs: &[f64]) -> f64 {
    xs.iter().sum()
}

fn check(xs: &[f64]) -> usize {
    xs.len()
}

fn main() {}
