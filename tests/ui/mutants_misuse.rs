struct Model {
    k: f64,
}

impl Model {
    #[invite::mutants]
    fn predict(&self, x: f64) -> f64 {
        if x < 0.0 { 0.0 } else { self.k * x }
    }
}

#[invite::mutants]
fn first(xs: &[f64]) -> &f64 {
    &xs[0]
}

#[invite::mutants(all)]
fn sign(x: f64) -> f64 {
    if x < 0.0 { -1.0 } else { 1.0 }
}

fn main() {
    let _ = invite::mutants_of!(1 + 2);
}
