#[invite::metamorphic(result >= 0.0)]
fn total(xs: impl Iterator<Item = f64>) -> f64 {
    xs.sum()
}

#[invite::metamorphic(result <= 64)]
fn emit(out: &mut impl std::fmt::Write, x: u32) -> usize {
    let _ = write!(out, "{x}");
    1
}

fn main() {}
