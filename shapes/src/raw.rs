//! `unsafe fn` and `extern "C" fn`: the only shapes that need `unsafe_code`.

use invite::mr::multiply;

use crate::off_by;

/// The first element, unchecked.
///
/// # Safety
///
/// `xs` must not be empty.
#[invite::metamorphic(
    // SAFETY: the sampled call's slice is not empty, nor is its double.
    unsafe { first_unchecked(&multiply(xs, 2.0)) } == 2.0 * result,
    // SAFETY: as above; a guard makes the precondition explicit.
    if xs.len() > 1 => unsafe { first_unchecked(&xs[..1]) } == result,
)]
pub unsafe fn first_unchecked(xs: &[f64]) -> f64 {
    // SAFETY: the caller promises a non-empty slice.
    unsafe { *xs.get_unchecked(0) + off_by("invite_shapes::raw::first_unchecked") }
}

/// `x` scaled by `k`, callable from C.
#[invite::metamorphic(c_scale(2.0 * x, k) == 2.0 * result)]
pub extern "C" fn c_scale(x: f64, k: f64) -> f64 {
    k * x + off_by("invite_shapes::raw::c_scale")
}
