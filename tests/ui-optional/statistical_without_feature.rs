// A statistical relation in a build without the `statistical` feature: the error says how to
// turn it on.
#[invite::metamorphic(statistical(runs = 30) => mean(&shuffle(xs)) == result)]
fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

fn shuffle(xs: &[f64]) -> Vec<f64> {
    xs.iter().rev().copied().collect()
}

fn main() {
    mean(&[1.0, 2.0]);
}
