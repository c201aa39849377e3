/// An In Vivo test that is an `async fn` returns its verdict when awaited: a number is none.
async fn check(x: &f64) -> f64 {
    *x
}

#[invite::in_vivo(test = check)]
async fn tax(x: f64) -> f64 {
    x * 0.2
}

fn main() {}
