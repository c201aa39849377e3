#[invite::in_vivo(test = check)]
const fn square(x: u32) -> u32 {
    x * x
}

fn check(_: &u32) -> bool {
    true
}

fn main() {}
