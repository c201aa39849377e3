/// # Safety
///
/// `xs` must not be empty.
#[invite::metamorphic(first(&xs[1..]) == result)]
unsafe fn first(xs: &[f64]) -> f64 {
    unsafe { *xs.get_unchecked(0) }
}

/// # Safety
///
/// `xs` must not be empty.
#[invite::metamorphic(xs.len() < 2 || unsafe { first_ok(&xs[1..]) } >= result - 1e9)]
unsafe fn first_ok(xs: &[f64]) -> f64 {
    unsafe { *xs.get_unchecked(0) }
}

unsafe fn helper(x: f64) -> f64 {
    x
}

/// # Safety
///
/// `xs` must not be empty.
#[invite::metamorphic(result == helper(result))]
unsafe fn first_helped(xs: &[f64]) -> f64 {
    unsafe { *xs.get_unchecked(0) }
}

fn main() {}
