use super::{hit, overlapping};
use crate::geometry::{Plane, Shape};
use crate::math::Real;
use crate::toi::quadratic::{Roots, solve};
use crate::toi::{MovingBall, Toi};

/// Find when `ball` first touches the one-sided `plane` within `[0, t_max]`.
///
/// `t = (d - r) / -(n·v)` for a centre at signed distance `d > r` moving towards the plane.
/// The plane is the face of a solid half-space: a ball that starts touching it, or anywhere
/// behind it, gives [`Toi::Overlapping`] (NeHe's two-sided test would let a ball that started
/// behind a wall pass through). Moving parallel or away gives [`Toi::Miss`]. Under an
/// acceleration the gap is a quadratic in `t`, and its first root in `[0, t_max]` is the
/// contact (the stable form of the quadratic formula).
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
        // The gap d + v t + a t²/2 first reaches zero at its smallest root in [0, t_max]: the
        // stable quadratic's (a tangent touch is a double root)
        let (v, a) = (
            plane.normal.dot(ball.velocity),
            plane.normal.dot(ball.acceleration),
        );
        let first = match solve(0.5 * a, v, start.distance) {
            Roots::One(t) => Some(t),
            Roots::Two(t0, t1) => Some(if t0 >= 0.0 { t0 } else { t1 }),
            Roots::None | Roots::All => None,
        };
        return match first {
            Some(t) if (0.0..=t_max).contains(&t) => hit(t, &plane.proximity(&ball.at(t))),
            _ => Toi::Miss,
        };
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
