struct Counter {
    n: u64,
}

impl Counter {
    #[invite::metamorphic(self.add(by * 2) == result + by)]
    fn add(&mut self, by: u64) -> u64 {
        self.n += by;
        self.n
    }
}

fn main() {
    let _ = Counter { n: 0 }.add(1);
}
