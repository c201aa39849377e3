//! Points of the plane as `(x0, y0, x1, y1, ...)`: the bounds a Bézier curve keeps by its
//! control points. `invite::mr` offers them to relations; discovery judges the properties it
//! proposes with the same functions, so a proposal and its pasted text agree.

/// The distance between the points `(ax, ay)` and `(bx, by)`: a bound on a curve's length, or
/// on a point's distance to a shape.
pub fn distance(ax: f64, ay: f64, bx: f64, by: f64) -> f64 {
    (ax - bx).hypot(ay - by)
}

/// The length of the path through the points `(x0, y0, x1, y1, ...)` in order: a Bézier
/// curve is no longer than its control polygon. An odd element out, which belongs to no point,
/// is passed over.
pub fn path_length(points: &[f64]) -> f64 {
    let whole: Vec<&[f64]> = points.chunks_exact(2).collect();
    whole
        .windows(2)
        .map(|w| distance(w[0][0], w[0][1], w[1][0], w[1][1]))
        .sum()
}

/// Whether every point of `points` (`(x0, y0, x1, y1, ...)`) lies in the smallest box that
/// holds the points of `of`, edges included: a Bézier curve, and so its bounding box, lies
/// within its control points' box. False when either holds an odd element out or `of` no
/// point. A point may stray past an edge by rounding, [`BOX_ROUNDING`] of the largest
/// coordinate's magnitude: a curve evaluated at its end can land an ulp beyond the end itself.
pub fn in_box(points: &[f64], of: &[f64]) -> bool {
    if !points.len().is_multiple_of(2) || !of.len().is_multiple_of(2) || of.is_empty() {
        return false;
    }
    let largest = of
        .iter()
        .chain(points)
        .fold(0.0, |m: f64, c| m.max(c.abs()));
    let slack = BOX_ROUNDING * largest;
    let span = |c: usize| {
        let axis = of.iter().skip(c).step_by(2).copied();
        let lo = axis.clone().fold(f64::INFINITY, f64::min);
        (lo - slack, axis.fold(f64::NEG_INFINITY, f64::max) + slack)
    };
    let (x, y) = (span(0), span(1));
    points
        .chunks_exact(2)
        .all(|p| (x.0..=x.1).contains(&p[0]) && (y.0..=y.1).contains(&p[1]))
}

/// How far, relative to the largest coordinate, [`in_box`] lets a point stray past an edge.
pub const BOX_ROUNDING: f64 = 1e-12;
