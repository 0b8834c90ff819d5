use super::{falling_hit, hit, overlapping, reject, speed_bound};
use crate::geometry::{CappedCylinder, Cylinder, InfiniteCylinder, Shape, scale_of};
use crate::math::{Real, Vec3};
use crate::toi::bernstein::{Poly, Quadratic3};
use crate::toi::quadratic::{Roots, entry_time, solve};
use crate::toi::{MovingBall, Toi};

/// Relative gap, times the size of the problem, that still counts as a touch when the rim
/// iteration runs out of steps.
const RIM_TOLERANCE: Real = 1e-13;

/// Most Newton steps on a rim. Transversal contacts take a handful; a tangential one halves the
/// time error each step, so 100 steps reach the resolution of any double.
const RIM_MAX_STEPS: usize = 100;

/// Find when `ball` first touches `cylinder`, of either kind, within `[0, t_max]`.
///
/// See [`ball_capped_cylinder`] and [`ball_infinite_cylinder`].
#[must_use]
pub fn ball_cylinder(ball: &MovingBall, cylinder: &Cylinder, t_max: Real) -> Toi {
    match cylinder {
        Cylinder::Capped(c) => ball_capped_cylinder(ball, c, t_max),
        Cylinder::Infinite(c) => ball_infinite_cylinder(ball, c, t_max),
    }
}

/// Find when `ball` first touches the infinite solid `cylinder` within `[0, t_max]`.
///
/// Only the side exists: with `⊥` the part perpendicular to the axis and `m` the centre's offset
/// from the axis point, solve `|m⊥ + t v⊥|² = (R + r)²` for its entry root. Moving along the axis
/// or away from it gives [`Toi::Miss`]; starting in contact gives [`Toi::Overlapping`].
///
/// ```
/// use toibox::{toi::analytic::ball_infinite_cylinder, InfiniteCylinder, MovingBall, Vec3};
/// let pole = InfiniteCylinder::new(Vec3::ZERO, Vec3::Y, 1.0).unwrap();
/// // Radius 1 at x = 5, moving at -1 in x: the centre reaches x = 2 at t = 3.
/// let ball = MovingBall::new(Vec3::new(5.0, 40.0, 0.0), 1.0, Vec3::new(-1.0, 0.0, 0.0));
/// assert_eq!(ball_infinite_cylinder(&ball, &pole, 10.0).time(), Some(3.0));
/// ```
#[must_use]
pub fn ball_infinite_cylinder(ball: &MovingBall, cylinder: &InfiniteCylinder, t_max: Real) -> Toi {
    let start = cylinder.proximity(&ball.at(0.0));
    if start.overlaps() {
        return overlapping(&start);
    }
    let radius = cylinder.radius + ball.radius;
    if !ball.is_straight() {
        let across = ball.path().minus(cylinder.point).reject(cylinder.axis);
        let side = across
            .length_squared()
            .add(&Poly::constant(-radius * radius));
        return falling_hit(
            &[[side]],
            t_max,
            speed_bound(ball.velocity, ball.acceleration, t_max),
            |t| cylinder.proximity(&ball.at(t)),
        );
    }
    let m = reject(ball.center - cylinder.point, cylinder.axis);
    let v = reject(ball.velocity, cylinder.axis);
    match entry_time(
        v.length_squared(),
        m.dot(v),
        m.length_squared() - radius * radius,
    ) {
        Some(t) if t <= t_max => hit(t, &cylinder.proximity(&ball.at(t))),
        _ => Toi::Miss,
    }
}

/// Find when `ball` first touches the capped solid `cylinder` within `[0, t_max]`.
///
/// The centres that touch the cylinder form its Minkowski sum with the ball: the inflated side
/// (radius `R + r`, between the caps), the caps pushed out by `r` (within radius `R`), and two
/// rims (tori of major radius `R` and minor radius `r`). The path enters the infinite inflated
/// cylinder and the slab between the pushed-out caps over two intervals, both in closed form;
/// the contact lies where both hold. If it starts on the side or on a cap, that is the answer.
/// Otherwise it is on a rim: a Newton iteration on the distance to the cylinder, starting where
/// both intervals begin. The distance to a convex solid along a line is convex, so each Newton
/// step lands at or before the first root and the iteration can neither overshoot nor report a
/// contact early (the flat shortcut, a cylinder of radius `R + r` all the way to the pushed-out
/// caps, reports rim contacts early by up to 0.41 `r`).
///
/// Starting in contact gives [`Toi::Overlapping`].
///
/// ```
/// use toibox::{toi::analytic::ball_capped_cylinder, CappedCylinder, MovingBall, Vec3};
/// let can = CappedCylinder::new(Vec3::ZERO, Vec3::new(0.0, 2.0, 0.0), 1.0).unwrap();
/// // Radius 0.5 straight above the top cap at y = 5, falling at 1: touches at y = 2.5, t = 2.5.
/// let ball = MovingBall::new(Vec3::new(0.0, 5.0, 0.0), 0.5, Vec3::new(0.0, -1.0, 0.0));
/// assert_eq!(ball_capped_cylinder(&ball, &can, 10.0).time(), Some(2.5));
/// ```
#[must_use]
pub fn ball_capped_cylinder(ball: &MovingBall, cylinder: &CappedCylinder, t_max: Real) -> Toi {
    let start = cylinder.proximity(&ball.at(0.0));
    if start.overlaps() {
        return overlapping(&start);
    }
    let length = cylinder.length();
    let axis = (cylinder.b - cylinder.a) / length;
    if !ball.is_straight() {
        let parts = capped_parts(ball.path(), cylinder, axis, length, ball.radius);
        return falling_hit(
            &parts,
            t_max,
            speed_bound(ball.velocity, ball.acceleration, t_max),
            |t| cylinder.proximity(&ball.at(t)),
        );
    }
    let offset = ball.center - cylinder.a;
    let m = reject(offset, axis);
    let v = reject(ball.velocity, axis);
    let h0 = offset.dot(axis);
    let vh = ball.velocity.dot(axis);
    let r = ball.radius;

    let Some((side_in, side_out)) = inside_interval(
        v.length_squared(),
        m.dot(v),
        m.length_squared() - (cylinder.radius + r).powi(2),
    ) else {
        return Toi::Miss;
    };
    let Some((slab_in, slab_out)) = slab_interval(h0, vh, -r, length + r) else {
        return Toi::Miss;
    };
    let t_lo = side_in.max(slab_in).max(0.0);
    let t_hi = side_out.min(slab_out).min(t_max);
    // The two intervals do not meet inside [0, t_max]
    if t_lo > t_hi {
        return Toi::Miss;
    }

    // Side: entered through the inflated side between the cap planes
    if t_lo == side_in {
        let h = h0 + vh * t_lo;
        if (0.0..=length).contains(&h) {
            return hit(t_lo, &cylinder.proximity(&ball.at(t_lo)));
        }
    }
    // Cap: entered through a pushed-out cap plane within the cap disc
    if t_lo == slab_in {
        let rho = (m + v * t_lo).length();
        if rho <= cylinder.radius {
            return hit(t_lo, &cylinder.proximity(&ball.at(t_lo)));
        }
    }
    rim_contact(ball, cylinder, t_lo, t_hi)
}

/// The parts of `cylinder` inflated by a ball of radius `r` whose centre follows `path`, each
/// as conditions that hold together inside it: the side between the caps, each cap pushed out
/// by `r` within radius `R`, and each rim (the points within `r` of the cap's circle:
/// `(|y|² + R² - r²)² <= 4 R² |y⊥|²` where `|y|² + R² - r² >= 0`, and a ball of radius
/// `sqrt(r² - R²)` around the cap's centre where it is negative).
fn capped_parts(
    path: Quadratic3,
    cylinder: &CappedCylinder,
    axis: Vec3,
    length: Real,
    r: Real,
) -> Vec<Vec<Poly>> {
    let big = cylinder.radius;
    let height = path.minus(cylinder.a).dot(axis);
    let across = path.minus(cylinder.a).reject(axis).length_squared();
    let minus = |p: &Poly| p.scale(-1.0);
    let below = |k: Real| height.add(&Poly::constant(-k));
    let above = |k: Real| minus(&height).add(&Poly::constant(k));
    let within = |k: Real| across.add(&Poly::constant(-k * k));
    let mut parts = vec![
        vec![within(big + r), above(0.0), below(length)],
        vec![within(big), above(-r), below(0.0)],
        vec![within(big), above(length), below(length + r)],
    ];
    for center in [cylinder.a, cylinder.b] {
        let y = path.minus(center);
        let shifted = y.length_squared().add(&Poly::constant(big * big - r * r));
        let torus = shifted
            .mul(&shifted)
            .add(&y.reject(axis).length_squared().scale(-4.0 * big * big));
        parts.push(vec![minus(&shifted), torus]);
        if r > big {
            parts.push(vec![shifted]);
        }
    }
    parts
}

/// Newton's iteration on `f(t) = distance(centre(t), cylinder) - r` from `t_lo`, where `f > 0`.
///
/// `f` is convex, so its tangent at any `t` lies below it: the next iterate never passes the
/// first root, and a non-negative slope proves that no root follows. The iteration runs until
/// the gap closes or the step falls below the resolution of `t`, so the time is as exact as the
/// closed forms, also for slow, glancing approaches.
fn rim_contact(ball: &MovingBall, cylinder: &CappedCylinder, t_lo: Real, t_hi: Real) -> Toi {
    let mut t = t_lo;
    for _ in 0..RIM_MAX_STEPS {
        let proximity = cylinder.proximity(&ball.at(t));
        if proximity.distance <= 0.0 {
            return hit(t, &proximity);
        }
        let slope = proximity.normal.dot(ball.velocity);
        // Not approaching: the convex distance only grows from here
        if slope >= 0.0 {
            return Toi::Miss;
        }
        let next = t - proximity.distance / slope;
        // Past the interval where contact is possible
        if next > t_hi {
            return Toi::Miss;
        }
        // Converged: the root is within one ulp of t
        if next <= t {
            return hit(t, &proximity);
        }
        t = next;
    }
    // Out of steps, which only a tangential approach can take: a touch if the gap is rounding
    let proximity = cylinder.proximity(&ball.at(t));
    let tolerance = RIM_TOLERANCE * scale_of(&[cylinder.length(), cylinder.radius, ball.radius]);
    if proximity.distance <= tolerance {
        hit(t, &proximity)
    } else {
        Toi::Miss
    }
}

/// Return the times when `|m + t v|² <= ρ²`, given `a = v·v`, `half_b = m·v` and
/// `c = m·m - ρ²`: an interval, possibly unbounded, or none.
fn inside_interval(a: Real, half_b: Real, c: Real) -> Option<(Real, Real)> {
    match solve(a, 2.0 * half_b, c) {
        Roots::Two(t0, t1) if a > 0.0 => Some((t0, t1)),
        Roots::One(t) if a > 0.0 => Some((t, t)),
        // No perpendicular motion: inside always or never
        _ if a == 0.0 && c <= 0.0 => Some((Real::NEG_INFINITY, Real::INFINITY)),
        _ => None,
    }
}

/// Return the times when `lo <= h0 + t vh <= hi`: an interval, possibly unbounded, or none.
fn slab_interval(h0: Real, vh: Real, lo: Real, hi: Real) -> Option<(Real, Real)> {
    if vh == 0.0 {
        return (lo..=hi)
            .contains(&h0)
            .then_some((Real::NEG_INFINITY, Real::INFINITY));
    }
    let (t0, t1) = ((lo - h0) / vh, (hi - h0) / vh);
    Some((t0.min(t1), t0.max(t1)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Vec3;

    #[test]
    fn intervals_of_degenerate_motion() {
        assert_eq!(
            inside_interval(0.0, 0.0, -1.0),
            Some((Real::NEG_INFINITY, Real::INFINITY))
        );
        assert_eq!(inside_interval(0.0, 0.0, 1.0), None);
        assert_eq!(slab_interval(5.0, 0.0, 0.0, 1.0), None);
        assert_eq!(slab_interval(0.5, -2.0, 0.0, 1.0), Some((-0.25, 0.25)));
    }

    #[test]
    fn rim_iteration_lands_on_the_torus() {
        // Cylinder along y from 0 to 2, radius 1; ball of radius 0.5 falling straight down at
        // x = 1.3 (outside the disc, inside R + r): it meets the top rim where the centre is 0.5
        // from the circle point (1, 2, 0): y = 2 + sqrt(0.25 - 0.09) = 2.4.
        let cylinder = CappedCylinder::new(Vec3::ZERO, Vec3::new(0.0, 2.0, 0.0), 1.0).unwrap();
        let ball = MovingBall::new(Vec3::new(1.3, 5.0, 0.0), 0.5, Vec3::new(0.0, -1.0, 0.0));
        let t = ball_capped_cylinder(&ball, &cylinder, 10.0).time().unwrap();
        assert!((t - 2.6).abs() < 1e-12, "t = {t}");
    }
}
