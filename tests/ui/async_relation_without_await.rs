#[invite::metamorphic(fetch(x) == result)]
async fn fetch(x: u32) -> u32 {
    x
}

fn main() {}
