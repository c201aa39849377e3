#[invite::sites]
trait Fetch {
    fn base(&self) -> f64;

    #[invite::metamorphic(result >= 0.0)]
    async fn fetch(&self, k: f64) -> f64 {
        self.base() * k
    }
}

fn main() {}
