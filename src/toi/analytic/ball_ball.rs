use super::{falling_hit, hit, overlapping, speed_bound};
use crate::geometry::Shape;
use crate::math::Real;
use crate::toi::bernstein::{Poly, Quadratic3};
use crate::toi::quadratic::entry_time;
use crate::toi::{MovingBall, Toi};

/// Find when `ball` first touches `other`, both moving, within `[0, t_max]`.
///
/// Seed 002's "inflate one, deflate the other": in `other`'s frame, the centre of `ball` moves
/// with the relative velocity and must reach a sphere of the summed radii. The contact's normal
/// points from `other` towards `ball` and its point lies on `other`'s surface; use
/// [`Contact::flipped`](crate::Contact::flipped) for the reversed pair. Balls that move apart,
/// move in parallel or do not move give [`Toi::Miss`]; coincident centres give
/// [`Toi::Overlapping`] with the normal `+x`. Equal accelerations (one gravity) leave the
/// relative motion straight; different ones make the gap a quartic in `t`.
///
/// ```
/// use toibox::{toi::analytic::ball_ball, MovingBall, Vec3};
/// // Unit balls 4 apart, closing at 2 per second: the gap of 2 closes at t = 1.
/// let a = MovingBall::new(Vec3::new(-2.0, 0.0, 0.0), 1.0, Vec3::new(1.0, 0.0, 0.0));
/// let b = MovingBall::new(Vec3::new(2.0, 0.0, 0.0), 1.0, Vec3::new(-1.0, 0.0, 0.0));
/// assert_eq!(ball_ball(&a, &b, 10.0).time(), Some(1.0));
/// ```
#[must_use]
pub fn ball_ball(ball: &MovingBall, other: &MovingBall, t_max: Real) -> Toi {
    let start = other.at(0.0).proximity(&ball.at(0.0));
    if start.overlaps() {
        return overlapping(&start);
    }
    let radius = ball.radius + other.radius;
    if ball.acceleration != other.acceleration {
        let relative = Quadratic3 {
            p: ball.center - other.center,
            q: ball.velocity - other.velocity,
            r: (ball.acceleration - other.acceleration) * 0.5,
        };
        let gap = relative
            .length_squared()
            .add(&Poly::constant(-radius * radius));
        return falling_hit(
            &[[gap]],
            t_max,
            speed_bound(relative.q, relative.r * 2.0, t_max),
            |t| other.at(t).proximity(&ball.at(t)),
        );
    }
    // Relative frame: a point against a sphere of radius r0 + r1
    let s = ball.center - other.center;
    let w = ball.velocity - other.velocity;
    match entry_time(
        w.length_squared(),
        s.dot(w),
        s.length_squared() - radius * radius,
    ) {
        Some(t) if t <= t_max => hit(t, &other.at(t).proximity(&ball.at(t))),
        _ => Toi::Miss,
    }
}
