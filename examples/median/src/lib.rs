//! Medians of sensor batches. The median has a defect a careful reader may miss: at an even
//! length it returns the upper of the two middle elements instead of their mean. Every result
//! is still one of the readings, and three of its four relations hold; negating the readings
//! must negate the median, and that one fails on every batch whose two middle readings differ.

use invite::mr::{add, multiply, negate, permute};

/// The median of `xs` (which must not be empty).
#[invite::metamorphic(
    median(&permute(xs)) == result,
    median(&add(xs, 10.0)) == result + 10.0,
    median(&multiply(xs, 2.0)) == result * 2.0,
    median(&negate(xs)) == -result,
)]
pub fn median(xs: &[f64]) -> f64 {
    let mut sorted = xs.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

#[cfg(test)]
mod invite_regressions;
