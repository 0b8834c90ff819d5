use super::{falling_hit, hit, overlapping, speed_bound};
use crate::geometry::{Plane, Shape};
use crate::math::Real;
use crate::toi::bernstein::Poly;
use crate::toi::{MovingBall, Toi};

/// Find when `ball` first touches the one-sided `plane` within `[0, t_max]`.
///
/// `t = (d - r) / -(n·v)` for a centre at signed distance `d > r` moving towards the plane.
/// The plane is the face of a solid half-space: a ball that starts touching it, or anywhere
/// behind it, gives [`Toi::Overlapping`] (NeHe's two-sided test would let a ball that started
/// behind a wall pass through). Moving parallel or away gives [`Toi::Miss`]. Under an
/// acceleration the gap is a quadratic in `t`, and its first root is the contact.
///
/// ```
/// use toibox::{toi::analytic::ball_plane, MovingBall, Plane, Vec3};
/// let floor = Plane::new(Vec3::ZERO, Vec3::Y).unwrap();
/// // Radius 1, centre 5 above, falling at 2: the gap of 4 closes at t = 2.
/// let ball = MovingBall::new(Vec3::new(0.0, 5.0, 0.0), 1.0, Vec3::new(3.0, -2.0, 0.0));
/// assert_eq!(ball_plane(&ball, &floor, 10.0).time(), Some(2.0));
/// ```
#[must_use]
pub fn ball_plane(ball: &MovingBall, plane: &Plane, t_max: Real) -> Toi {
    let start = plane.proximity(&ball.at(0.0));
    if start.overlaps() {
        return overlapping(&start);
    }
    if !ball.is_straight() {
        let gap =
            (ball.path().minus(plane.point).dot(plane.normal)).add(&Poly::constant(-ball.radius));
        return falling_hit(
            &[vec![gap]],
            t_max,
            speed_bound(ball.velocity, ball.acceleration, t_max),
            |t| plane.proximity(&ball.at(t)),
        );
    }
    let approach = -plane.normal.dot(ball.velocity);
    // Parallel or moving away
    if approach <= 0.0 {
        return Toi::Miss;
    }
    let t = start.distance / approach;
    if t > t_max {
        return Toi::Miss;
    }
    hit(t, &plane.proximity(&ball.at(t)))
}
