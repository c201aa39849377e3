// `pure` where the worker could not test the function: each is refused on its token.

struct Account {
    balance: f64,
}

impl Account {
    #[invite::metamorphic(pure, self.interest(2.0 * rate) == 2.0 * result)]
    fn interest(&self, rate: f64) -> f64 {
        self.balance * rate
    }
}

#[invite::metamorphic(pure, scale(xs, 1.0) == result)]
fn scale(xs: &mut Vec<f64>, by: f64) -> usize {
    xs.iter_mut().for_each(|x| *x *= by);
    xs.len()
}

#[invite::metamorphic(pure, first(xs) == result)]
fn first(xs: &[f64]) -> &f64 {
    &xs[0]
}

#[invite::metamorphic(pure, total(xs.clone()) == result)]
fn total(xs: impl Iterator<Item = f64> + Clone) -> f64 {
    xs.sum()
}

fn keeps(_: &u64) -> bool {
    true
}

#[invite::metamorphic(pure, id(x) == result)]
#[invite::in_vivo(test = keeps)]
fn id(x: u64) -> u64 {
    x
}

#[invite::metamorphic(pure = 1, twice(x) == result)]
fn twice(x: u64) -> u64 {
    x
}

#[invite::metamorphic(pure, discover = true, halve(2.0 * x) == 2.0 * result)]
fn halve(x: f64) -> f64 {
    x / 2.0
}

fn main() {}
