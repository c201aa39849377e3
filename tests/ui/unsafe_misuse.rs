/// # Safety
///
/// `xs` must not be empty.
#[invite::metamorphic(result == result)]
unsafe fn first_mut(xs: &mut [f64]) -> f64 {
    unsafe { *xs.get_unchecked(0) }
}

/// # Safety
///
/// `x` must be finite.
#[invite::discover]
unsafe fn scale(x: f64) -> f64 {
    2.0 * x
}

fn main() {}
