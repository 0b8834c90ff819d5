use super::{falling_hit, hit, overlapping, reject, speed_bound};
use crate::geometry::{ConvexPolygon, Shape};
use crate::math::Real;
use crate::toi::bernstein::{Poly, Quadratic3};
use crate::toi::quadratic::entry_time;
use crate::toi::{MovingBall, Toi};

/// Find when `ball` first touches the two-sided `polygon` within `[0, t_max]`.
///
/// Fauerby's sweep ("Improved collision detection and response"), taken over every feature:
/// - face: the plane pushed out by `r` towards the ball's side, `t = (|d| - r) / speed towards
///   it`, kept when the contact point projects inside the polygon;
/// - edges: `|((c - p) + t v) × e|² = r² |e|²`, the entry into the infinite cylinder around the
///   edge line, kept when the contact projects inside the edge (parameter in `[0, 1]`);
/// - vertices: a sphere of radius `r` around each.
///
/// The earliest kept time is the contact (not the tutorial shortcut of "hit the plane, take the
/// closest polygon point, sweep back", which reports some contacts late or not at all). The
/// normal points from the polygon to the ball: `±normal` on the face, radial at edges and
/// vertices. Starting in contact gives [`Toi::Overlapping`].
///
/// ```
/// use toibox::{toi::analytic::ball_polygon, ConvexPolygon, MovingBall, Vec3};
/// let triangle = ConvexPolygon::new(vec![
///     Vec3::new(0.0, 0.0, 0.0),
///     Vec3::new(4.0, 0.0, 0.0),
///     Vec3::new(0.0, 4.0, 0.0),
/// ])
/// .unwrap();
/// // Radius 1 above the face at z = 6, moving at -2 in z: the gap of 5 closes at t = 2.5.
/// let ball = MovingBall::new(Vec3::new(1.0, 1.0, 6.0), 1.0, Vec3::new(0.0, 0.0, -2.0));
/// assert_eq!(ball_polygon(&ball, &triangle, 10.0).time(), Some(2.5));
/// ```
#[must_use]
pub fn ball_polygon(ball: &MovingBall, polygon: &ConvexPolygon, t_max: Real) -> Toi {
    let start = polygon.proximity(&ball.at(0.0));
    if start.overlaps() {
        return overlapping(&start);
    }
    if !ball.is_straight() {
        let parts = polygon_parts(ball.path(), polygon, ball.radius);
        return falling_hit(
            &parts,
            t_max,
            speed_bound(ball.velocity, ball.acceleration, t_max),
            |t| polygon.proximity(&ball.at(t)),
        );
    }
    let (c, v, r) = (ball.center, ball.velocity, ball.radius);
    let mut first: Option<Real> = None;
    let mut keep = |t: Real| {
        if t <= t_max && first.is_none_or(|f| t < f) {
            first = Some(t);
        }
    };

    // Face, from the side the ball is on
    let height = polygon.plane_distance(c);
    let closing = -height.signum() * polygon.normal().dot(v);
    if height.abs() > r && closing > 0.0 {
        let t = (height.abs() - r) / closing;
        if polygon.contains_projection(ball.center_at(t)) {
            keep(t);
        }
    }

    // Edges, as infinite cylinders around their lines
    for (a, b) in polygon.edges() {
        let edge = b - a;
        let direction = edge.normalize();
        let m = reject(c - a, direction);
        let w = reject(v, direction);
        if let Some(t) = entry_time(w.length_squared(), m.dot(w), m.length_squared() - r * r) {
            let along = (ball.center_at(t) - a).dot(edge) / edge.length_squared();
            if (0.0..=1.0).contains(&along) {
                keep(t);
            }
        }
    }

    // Vertices, as spheres
    for &p in polygon.vertices() {
        let m = c - p;
        if let Some(t) = entry_time(v.length_squared(), m.dot(v), m.length_squared() - r * r) {
            keep(t);
        }
    }

    match first {
        Some(t) => hit(t, &polygon.proximity(&ball.at(t))),
        None => Toi::Miss,
    }
}

/// The parts of `polygon` inflated by a ball of radius `r` whose centre follows `path`, each
/// as conditions that hold together inside it: the face slab within `r` of the plane over the
/// polygon, each edge's cylinder between its ends, each vertex's ball.
fn polygon_parts(path: Quadratic3, polygon: &ConvexPolygon, r: Real) -> Vec<Vec<Poly>> {
    let normal = polygon.normal();
    let origin = polygon.vertices()[0];
    let height = path.minus(origin).dot(normal);
    let mut face = vec![
        height.add(&Poly::constant(-r)),
        height.scale(-1.0).add(&Poly::constant(-r)),
    ];
    let mut parts = Vec::new();
    for (a, b) in polygon.edges() {
        let edge = b - a;
        let length = edge.length();
        let direction = edge / length;
        let from_a = path.minus(a);
        // Inside the polygon's prism: behind every edge's outward side
        face.push(from_a.dot(edge.cross(normal)));
        let along = from_a.dot(direction);
        let across = (from_a.reject(direction).length_squared()).add(&Poly::constant(-r * r));
        parts.push(vec![
            across,
            along.scale(-1.0),
            along.add(&Poly::constant(-length)),
        ]);
        parts.push(vec![from_a.length_squared().add(&Poly::constant(-r * r))]);
    }
    parts.push(face);
    parts
}
