struct Model {
    k: f64,
}

impl Model {
    #[invite::mutants]
    fn predict(&mut self, x: f64) -> f64 {
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


macro_rules! register {
    ($x:expr) => {
        $x
    };
}

#[invite::mutants]
fn registered(x: f64) -> f64 {
    register!(x) + 1.0
}

#[invite::discover]
#[invite::mutants]
fn below(x: f64) -> f64 {
    if x < 0.0 { 0.0 } else { x }
}

#[invite::metamorphic(shifted(x + 1.0) >= result, mutants = true)]
fn shifted(x: f64) -> f64 {
    if x < 0.0 { 0.0 } else { x }
}

struct Knn;

impl Knn {
    #[invite::discover(mutants = true)]
    fn predict(self: Box<Self>, q: f64) -> f64 {
        if q < 0.0 { 0.0 } else { q }
    }
}

fn main() {
    let _ = invite::mutants_of!(1 + 2);
}
