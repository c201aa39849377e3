#[invite::metamorphic(statistical(test = anova) => unknown_test(xs) == result)]
fn unknown_test(xs: &[f64]) -> f64 {
    xs.iter().sum()
}

#[invite::metamorphic(statistical(runs = 2) => f(x) == result)]
fn f(x: f64) -> f64 {
    x
}

#[invite::metamorphic(statistical(alpha = 1.5) => g(x) == result)]
fn g(x: f64) -> f64 {
    x
}

#[invite::metamorphic(statistical(test = ks) => h(x + 1.0) >= result)]
fn h(x: f64) -> f64 {
    x
}

#[invite::metamorphic(statistical() => k(x) != result)]
fn k(x: f64) -> f64 {
    x
}

#[invite::metamorphic(if result > 0.0 => statistical() => m(x) == result)]
fn m(x: f64) -> f64 {
    x
}

#[invite::metamorphic(statistical(rounds = 30) => n(x) == result)]
fn n(x: f64) -> f64 {
    x
}

#[invite::metamorphic(statistical(runs = 10) n(x) == result)]
fn p(x: f64) -> f64 {
    x
}

#[invite::metamorphic(statistical() => q(x) == vec![result])]
fn q(x: f64) -> Vec<f64> {
    vec![x]
}

fn main() {}
