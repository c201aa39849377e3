#[invite::in_vivo(test = check, rho = 1.5)]
fn total(xs: &[f64]) -> f64 {
    xs.iter().sum()
}

fn check(_: &[f64]) -> bool {
    true
}

fn main() {}
