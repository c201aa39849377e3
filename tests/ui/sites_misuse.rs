#[invite::sites]
fn not_a_block() {}

struct S;

#[invite::sites(S)]
impl S {}

fn main() {}
