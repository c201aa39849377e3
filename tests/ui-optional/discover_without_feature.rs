// `#[invite::discover]` in a build without the `discover` feature: the error says how to turn
// it on.
#[invite::discover]
fn sin(x: f64) -> f64 {
    x.sin()
}

fn main() {
    sin(1.0);
}
