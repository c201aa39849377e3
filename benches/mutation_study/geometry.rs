//! Relations for 2D geometry computed by the `kurbo` crate (0.13.1): distances, a point's
//! distance to a segment, the overlap of two boxes, a polygon's area, perimeter and winding
//! number, a cubic Bézier's length and bounding box and a quadratic's length; and a driver
//! that calls them as a program would, every call sampled, each run awaited, then the outcomes
//! read back in process. The test fails when any relation failed, errored or timed out: that
//! is how a mutant counts as killed by invite. A panic of the program's own call is caught
//! and ignored, so that only what invite's tests saw counts.
//!
//! Each function takes plain numbers (a point is two, a box four, a polygon's vertices are
//! interleaved in one slice), the signatures relation discovery takes. The relations were
//! written from geometry (congruences, similarities, orientation, bounds), before any mutant
//! was looked at. The run script (`run --geometry` beside this file) places this file into a
//! scratch workspace with the crate.

// The run script rewrites the attributes: a set that leaves some helpers unused is no fault,
// nor are the crate's own lints on this harness.
#![allow(dead_code, unused_imports, missing_docs)]

mod common;

use common::{call, Inputs, Study};
use invite::mr::{add, multiply, negate, rotate};
use kurbo::{
    BezPath, CubicBez, Line, ParamCurveArclen, ParamCurveExtrema, ParamCurveNearest, Point,
    QuadBez, Rect, Shape,
};

/// The accuracy asked of the arc lengths: far below the relations' tolerance.
const ACCURACY: f64 = 1e-10;

/// Distance, computed here without the crate.
fn dist(ax: f64, ay: f64, bx: f64, by: f64) -> f64 {
    (ax - bx).hypot(ay - by)
}

/// The vertices in the other order, the first kept first.
fn backwards(points: &[f64]) -> Vec<f64> {
    let pairs: Vec<&[f64]> = points.chunks_exact(2).collect();
    let mut out = Vec::with_capacity(points.len());
    if let Some((first, rest)) = pairs.split_first() {
        out.extend_from_slice(first);
        for p in rest.iter().rev() {
            out.extend_from_slice(p);
        }
    }
    out
}

/// The same polygon, starting at its second vertex.
fn cycled(points: &[f64]) -> Vec<f64> {
    if points.len() < 4 {
        return points.to_vec();
    }
    let mut out = points[2..].to_vec();
    out.extend_from_slice(&points[..2]);
    out
}

/// Mirrored in the y axis: every x negated.
fn mirrored(points: &[f64]) -> Vec<f64> {
    points
        .iter()
        .enumerate()
        .map(|(i, &v)| if i % 2 == 0 { -v } else { v })
        .collect()
}

fn xs(points: &[f64]) -> impl Iterator<Item = f64> + '_ {
    points.iter().step_by(2).copied()
}

fn ys(points: &[f64]) -> impl Iterator<Item = f64> + '_ {
    points.iter().skip(1).step_by(2).copied()
}

fn lo(v: impl Iterator<Item = f64>) -> f64 {
    v.fold(f64::INFINITY, f64::min)
}

fn hi(v: impl Iterator<Item = f64>) -> f64 {
    v.fold(f64::NEG_INFINITY, f64::max)
}

/// The area of the vertices' bounding box.
fn box_area(points: &[f64]) -> f64 {
    (hi(xs(points)) - lo(xs(points))) * (hi(ys(points)) - lo(ys(points)))
}

/// The length of the open polyline through the points.
fn polyline(points: &[f64]) -> f64 {
    points
        .chunks_exact(2)
        .zip(points.chunks_exact(2).skip(1))
        .map(|(a, b)| dist(a[0], a[1], b[0], b[1]))
        .sum()
}

/// The closed polygon through interleaved vertices (a last odd coordinate is ignored).
fn polygon(points: &[f64]) -> BezPath {
    let mut path = BezPath::new();
    let mut vertices = points.chunks_exact(2);
    if let Some(first) = vertices.next() {
        path.move_to((first[0], first[1]));
        for v in vertices {
            path.line_to((v[0], v[1]));
        }
        path.close_path();
    }
    path
}

#[invite::metamorphic(
    distance(bx, by, ax, ay) == result,
    distance(ax + 3.5, ay - 2.0, bx + 3.5, by - 2.0) == result,
    distance(2.0 * ax, 2.0 * ay, 2.0 * bx, 2.0 * by) == 2.0 * result,
    distance(-ay, ax, -by, bx) == result,
    distance(-ax, ay, -bx, by) == result,
    distance(ax, ay, ax, ay) == 0.0,
    result >= (ax - bx).abs(),
    result >= (ay - by).abs(),
    result <= (ax - bx).abs() + (ay - by).abs(),
)]
pub fn distance(ax: f64, ay: f64, bx: f64, by: f64) -> f64 {
    Point::new(ax, ay).distance(Point::new(bx, by))
}

#[invite::metamorphic(
    segment_distance(px, py, bx, by, ax, ay) == result,
    segment_distance(px + 3.5, py - 2.0, ax + 3.5, ay - 2.0, bx + 3.5, by - 2.0) == result,
    segment_distance(2.0 * px, 2.0 * py, 2.0 * ax, 2.0 * ay, 2.0 * bx, 2.0 * by) == 2.0 * result,
    segment_distance(-py, px, -ay, ax, -by, bx) == result,
    segment_distance(-px, py, -ax, ay, -bx, by) == result,
    segment_distance(ax, ay, ax, ay, bx, by) == 0.0,
    segment_distance((ax + bx) / 2.0, (ay + by) / 2.0, ax, ay, bx, by) == 0.0,
    result >= 0.0,
    result <= dist(px, py, ax, ay),
    result <= dist(px, py, bx, by),
    if dist(ax, ay, bx, by) > 0.0 =>
        result >= ((bx - ax) * (py - ay) - (by - ay) * (px - ax)).abs() / dist(ax, ay, bx, by),
)]
pub fn segment_distance(px: f64, py: f64, ax: f64, ay: f64, bx: f64, by: f64) -> f64 {
    let line = Line::new((ax, ay), (bx, by));
    line.nearest(Point::new(px, py), ACCURACY).distance_sq.sqrt()
}

#[allow(clippy::too_many_arguments)]
#[invite::metamorphic(
    overlap_area(bx0, by0, bx1, by1, ax0, ay0, ax1, ay1) == result,
    overlap_area(ax0 + 3.5, ay0 - 2.0, ax1 + 3.5, ay1 - 2.0, bx0 + 3.5, by0 - 2.0, bx1 + 3.5, by1 - 2.0)
        == result,
    overlap_area(2.0 * ax0, 2.0 * ay0, 2.0 * ax1, 2.0 * ay1, 2.0 * bx0, 2.0 * by0, 2.0 * bx1, 2.0 * by1)
        == 4.0 * result,
    overlap_area(-ay1, ax0, -ay0, ax1, -by1, bx0, -by0, bx1) == result,
    overlap_area(-ax1, ay0, -ax0, ay1, -bx1, by0, -bx0, by1) == result,
    overlap_area(ax0, ay0, ax1, ay1, ax0, ay0, ax1, ay1) == (ax1 - ax0) * (ay1 - ay0),
    result >= 0.0,
    result <= (ax1 - ax0) * (ay1 - ay0),
    result <= (bx1 - bx0) * (by1 - by0),
    if ax1 <= bx0 => result == 0.0,
)]
pub fn overlap_area(
    ax0: f64,
    ay0: f64,
    ax1: f64,
    ay1: f64,
    bx0: f64,
    by0: f64,
    bx1: f64,
    by1: f64,
) -> f64 {
    Rect::new(ax0, ay0, ax1, ay1)
        .intersect(Rect::new(bx0, by0, bx1, by1))
        .area()
}

#[invite::metamorphic(
    polygon_area(&add(points, 3.5)) == result,
    polygon_area(&multiply(points, 2.0)) == 4.0 * result,
    polygon_area(&rotate(points)) == result,
    polygon_area(&negate(points)) == result,
    polygon_area(&mirrored(points)) == -result,
    polygon_area(&backwards(points)) == -result,
    polygon_area(&cycled(points)) == result,
    result.abs() <= box_area(points),
    polygon_area(&points[..4.min(points.len())]) == 0.0,
)]
pub fn polygon_area(points: &[f64]) -> f64 {
    polygon(points).area()
}

#[invite::metamorphic(
    polygon_perimeter(&add(points, 3.5)) == result,
    polygon_perimeter(&multiply(points, 2.0)) == 2.0 * result,
    polygon_perimeter(&rotate(points)) == result,
    polygon_perimeter(&mirrored(points)) == result,
    polygon_perimeter(&backwards(points)) == result,
    polygon_perimeter(&cycled(points)) == result,
    result >= polyline(points),
    if points.len() >= 4 => result >= 2.0 * dist(points[0], points[1], points[2], points[3]),
)]
pub fn polygon_perimeter(points: &[f64]) -> f64 {
    polygon(points).perimeter(ACCURACY)
}

#[invite::metamorphic(
    winding(px + 3.5, py - 2.0, &add_pairs(points, 3.5, -2.0)) == result,
    winding(2.0 * px, 2.0 * py, &multiply(points, 2.0)) == result,
    winding(-py, px, &rotate(points)) == result,
    winding(-px, py, &mirrored(points)) == -result,
    winding(px, py, &backwards(points)) == -result,
    winding(px, py, &cycled(points)) == result,
    winding(hi(xs(points)) + 1.0, py, points) == 0,
    winding(px, lo(ys(points)) - 1.0, points) == 0,
    2 * result.unsigned_abs() as usize <= points.len(),
)]
pub fn winding(px: f64, py: f64, points: &[f64]) -> i32 {
    polygon(points).winding(Point::new(px, py))
}

/// Every vertex moved by `(dx, dy)`.
fn add_pairs(points: &[f64], dx: f64, dy: f64) -> Vec<f64> {
    points
        .iter()
        .enumerate()
        .map(|(i, &v)| if i % 2 == 0 { v + dx } else { v + dy })
        .collect()
}

#[allow(clippy::too_many_arguments)]
#[invite::metamorphic(
    cubic_length(x3, y3, x2, y2, x1, y1, x0, y0) == result,
    cubic_length(x0 + 3.5, y0 - 2.0, x1 + 3.5, y1 - 2.0, x2 + 3.5, y2 - 2.0, x3 + 3.5, y3 - 2.0)
        == result,
    cubic_length(2.0 * x0, 2.0 * y0, 2.0 * x1, 2.0 * y1, 2.0 * x2, 2.0 * y2, 2.0 * x3, 2.0 * y3)
        == 2.0 * result,
    cubic_length(-y0, x0, -y1, x1, -y2, x2, -y3, x3) == result,
    cubic_length(-x0, y0, -x1, y1, -x2, y2, -x3, y3) == result,
    result >= dist(x0, y0, x3, y3),
    result <= polyline(&[x0, y0, x1, y1, x2, y2, x3, y3]),
    cubic_length(x0, y0, x0, y0, x3, y3, x3, y3) <= dist(x0, y0, x3, y3) * 1.0000001,
)]
pub fn cubic_length(x0: f64, y0: f64, x1: f64, y1: f64, x2: f64, y2: f64, x3: f64, y3: f64) -> f64 {
    CubicBez::new((x0, y0), (x1, y1), (x2, y2), (x3, y3)).arclen(ACCURACY)
}

#[allow(clippy::too_many_arguments)]
#[invite::metamorphic(
    cubic_bounds(x3, y3, x2, y2, x1, y1, x0, y0) == result,
    cubic_bounds(x0 + 3.5, y0 - 2.0, x1 + 3.5, y1 - 2.0, x2 + 3.5, y2 - 2.0, x3 + 3.5, y3 - 2.0)
        == add_pairs(&result, 3.5, -2.0),
    cubic_bounds(2.0 * x0, 2.0 * y0, 2.0 * x1, 2.0 * y1, 2.0 * x2, 2.0 * y2, 2.0 * x3, 2.0 * y3)
        == multiply(&result, 2.0),
    cubic_bounds(-x0, y0, -x1, y1, -x2, y2, -x3, y3)
        == vec![-result[2], result[1], -result[0], result[3]],
    result[0] <= x0.min(x3) && result[2] >= x0.max(x3),
    result[1] <= y0.min(y3) && result[3] >= y0.max(y3),
    result[0] >= x0.min(x1).min(x2).min(x3) && result[2] <= x0.max(x1).max(x2).max(x3),
    result[1] >= y0.min(y1).min(y2).min(y3) && result[3] <= y0.max(y1).max(y2).max(y3),
    cubic_bounds(x0, y0, x0, y0, x3, y3, x3, y3)
        == vec![x0.min(x3), y0.min(y3), x0.max(x3), y0.max(y3)],
)]
pub fn cubic_bounds(
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
    x2: f64,
    y2: f64,
    x3: f64,
    y3: f64,
) -> Vec<f64> {
    let curve = CubicBez::new((x0, y0), (x1, y1), (x2, y2), (x3, y3));
    let b = ParamCurveExtrema::bounding_box(&curve);
    vec![b.x0, b.y0, b.x1, b.y1]
}

#[invite::metamorphic(
    quad_length(x2, y2, x1, y1, x0, y0) == result,
    quad_length(x0 + 3.5, y0 - 2.0, x1 + 3.5, y1 - 2.0, x2 + 3.5, y2 - 2.0) == result,
    quad_length(2.0 * x0, 2.0 * y0, 2.0 * x1, 2.0 * y1, 2.0 * x2, 2.0 * y2) == 2.0 * result,
    quad_length(-y0, x0, -y1, x1, -y2, x2) == result,
    quad_length(-x0, y0, -x1, y1, -x2, y2) == result,
    result >= dist(x0, y0, x2, y2),
    result <= polyline(&[x0, y0, x1, y1, x2, y2]),
    quad_length(x0, y0, (x0 + x2) / 2.0, (y0 + y2) / 2.0, x2, y2) == dist(x0, y0, x2, y2),
)]
pub fn quad_length(x0: f64, y0: f64, x1: f64, y1: f64, x2: f64, y2: f64) -> f64 {
    QuadBez::new((x0, y0), (x1, y1), (x2, y2)).arclen(ACCURACY)
}

/// Random shapes for the driver.
trait Shapes {
    /// A simple polygon: vertices at increasing angles around a centre, at random radii.
    fn star(&mut self, vertices: usize) -> Vec<f64>;
    /// A box `[x0, y0, x1, y1]` with `x0 < x1`, `y0 < y1`.
    fn rect(&mut self) -> [f64; 4];
}

impl Shapes for Inputs {
    fn star(&mut self, vertices: usize) -> Vec<f64> {
        let (cx, cy) = (self.float(-20.0, 20.0), self.float(-20.0, 20.0));
        let mut angles: Vec<f64> = (0..vertices)
            .map(|_| self.float(0.0, std::f64::consts::TAU))
            .collect();
        angles.sort_by(f64::total_cmp);
        let clockwise = self.next() % 2 == 0;
        if clockwise {
            angles.reverse();
        }
        angles
            .iter()
            .flat_map(|&a| {
                let r = self.float(2.0, 20.0);
                [cx + r * a.cos(), cy + r * a.sin()]
            })
            .collect()
    }

    fn rect(&mut self) -> [f64; 4] {
        let (x, y) = (self.float(-20.0, 20.0), self.float(-20.0, 20.0));
        [x, y, x + self.float(0.5, 25.0), y + self.float(0.5, 25.0)]
    }
}

#[test]
fn relations_hold_on_live_calls() {
    let study = Study::start(3, 9);
    let rounds = study.rounds;
    let mut draw = Inputs(study.seed);
    // A few shapes a person would try first, then random ones.
    call(|| {
        distance(0.0, 0.0, 3.0, 4.0);
    });
    call(|| {
        segment_distance(1.0, 1.0, 0.0, 0.0, 2.0, 0.0);
    });
    call(|| {
        overlap_area(0.0, 0.0, 2.0, 2.0, 1.0, 1.0, 3.0, 3.0);
    });
    call(|| {
        polygon_area(&[0.0, 0.0, 4.0, 0.0, 4.0, 3.0]);
    });
    call(|| {
        polygon_perimeter(&[0.0, 0.0, 4.0, 0.0, 4.0, 3.0]);
    });
    call(|| {
        winding(1.0, 1.0, &[0.0, 0.0, 4.0, 0.0, 0.0, 4.0]);
    });
    call(|| {
        cubic_length(0.0, 0.0, 1.0, 2.0, 3.0, 2.0, 4.0, 0.0);
    });
    call(|| {
        cubic_bounds(0.0, 0.0, 1.0, 2.0, 3.0, -2.0, 4.0, 0.0);
    });
    call(|| {
        quad_length(0.0, 0.0, 1.0, 2.0, 2.0, 0.0);
    });
    for _ in 0..rounds {
        for _ in 0..4 {
            let v = draw.vector(8, -30.0, 30.0);
            call(|| {
                distance(v[0], v[1], v[2], v[3]);
            });
            // A point off the segment, and one near its middle.
            call(|| {
                segment_distance(v[4], v[5], v[0], v[1], v[2], v[3]);
            });
            let t = draw.float(0.2, 0.8);
            let (nx, ny) = (draw.float(-0.5, 0.5), draw.float(-0.5, 0.5));
            call(|| {
                segment_distance(
                    v[0] + t * (v[2] - v[0]) + nx,
                    v[1] + t * (v[3] - v[1]) + ny,
                    v[0],
                    v[1],
                    v[2],
                    v[3],
                );
            });
            let a = draw.rect();
            let mut b = draw.rect();
            // Half the pairs overlap for sure: the second box starts inside the first.
            if draw.next() % 2 == 0 {
                let (w, h) = (b[2] - b[0], b[3] - b[1]);
                b[0] = draw.float(a[0], a[2]);
                b[1] = draw.float(a[1], a[3]);
                b[2] = b[0] + w;
                b[3] = b[1] + h;
            }
            call(|| {
                overlap_area(a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]);
            });
            let n = 3 + (draw.next() % 6) as usize;
            let shape = draw.star(n);
            call(|| {
                polygon_area(&shape);
            });
            call(|| {
                polygon_perimeter(&shape);
            });
            // A point near the centre of the vertices (inside, mostly) and one anywhere.
            let cx = xs(&shape).sum::<f64>() / n as f64;
            let cy = ys(&shape).sum::<f64>() / n as f64;
            call(|| {
                winding(cx, cy, &shape);
            });
            let (qx, qy) = (draw.float(-40.0, 40.0), draw.float(-40.0, 40.0));
            call(|| {
                winding(qx, qy, &shape);
            });
            call(|| {
                cubic_length(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
            });
            call(|| {
                cubic_bounds(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
            });
            call(|| {
                quad_length(v[0], v[1], v[2], v[3], v[4], v[5]);
            });
        }
    }

    study.finish();
}
