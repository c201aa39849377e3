trait Scorer {
    #[invite::metamorphic(self.score(xs) == result)]
    fn score(&self, xs: &[f64]) -> f64;
}

fn main() {}
