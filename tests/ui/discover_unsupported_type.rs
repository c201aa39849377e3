#[invite::discover]
fn shout(s: String) -> usize {
    s.len()
}

fn main() {}
