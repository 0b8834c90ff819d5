//! Exact sweeps: the time of impact in closed form.
//!
//! Each query works in the frame of the other object and reduces the ball to its centre by
//! inflating the other object by the ball's radius (the Minkowski sum): the contact time is when
//! the centre's straight path first enters that inflated set. The set is split into features,
//! each with a closed form (`reference: toi-formulas`):
//! - ball vs ball: a sphere of the summed radii around the other centre;
//! - ball vs plane: the plane pushed out by the radius;
//! - ball vs cylinder: the side (an infinite cylinder of the summed radii), the caps (cap planes
//!   pushed out), and the rims (tori, solved by a safeguarded Newton iteration on the convex
//!   distance function, which never steps past the first root);
//! - ball vs convex polygon: the face (two planes), the edges (infinite cylinders around the
//!   edge lines, kept where the contact projects inside the edge) and the vertices (spheres).
//!
//! Because the inflated set is convex and the path a line, the path enters it once; the earliest
//! valid feature time is that entry. Every query first checks the start: a pair that already
//! touches or overlaps gives [`Toi::Overlapping`].
//!
//! A ball with an acceleration (a parabola; ball against ball only when the two accelerations
//! differ) may enter the inflated set, leave and enter again. Each feature's part of the set is
//! written as polynomial conditions in `t` that hold together inside it (a quadratic for a
//! plane or a face, quartics for a side, an edge or a vertex, degree 8 for a rim), and the
//! earliest time at which all of a part's conditions hold is found by subdivision in the
//! Bernstein basis (`toi::bernstein`): the first entry into the union of the parts, with no
//! tangent touch skipped.

mod ball_ball;
mod ball_cylinder;
mod ball_plane;
mod ball_polygon;

pub use ball_ball::ball_ball;
pub use ball_cylinder::{ball_capped_cylinder, ball_cylinder, ball_infinite_cylinder};
pub use ball_plane::ball_plane;
pub use ball_polygon::ball_polygon;

use super::bernstein::{Poly, first_entry};
use super::{Contact, Toi};
use crate::geometry::Proximity;
use crate::math::{Real, Vec3};

/// Return the overlap found at `t = 0`.
#[inline]
fn overlapping(start: &Proximity) -> Toi {
    Toi::Overlapping(Contact::from_proximity(0.0, start))
}

/// Return a first touch at `time`; the depth is zero by definition (the proximity there is zero
/// up to rounding).
#[inline]
fn hit(time: Real, at_contact: &Proximity) -> Toi {
    Toi::Hit(Contact {
        depth: 0.0,
        ..Contact::from_proximity(time, at_contact)
    })
}

/// Return the part of `v` perpendicular to the unit vector `axis`.
#[inline]
fn reject(v: Vec3, axis: Vec3) -> Vec3 {
    v - axis * v.dot(axis)
}

/// Return the first touch of a ball on a parabola with a shape whose inflated set is the union
/// of `parts`, each a list of conditions `p(t) <= 0` that hold together inside it; the contact
/// is measured by `proximity_at(t)`, and `speed` bounds how fast the gap can close.
///
/// The polynomials of high degree (a rim's is 8) may place a touch early by their rounding; the
/// time found is then carried forward by conservative advancement on the exact gap (step by
/// `gap / speed`, which can never pass the first touch) until a step is below the rounding of
/// time or, after [`TOUCH_AFTER`] steps, the gap below that of the coordinates; a step that
/// would leave the interval proves there is no touch in it.
fn falling_hit<Part: AsRef<[Poly]>>(
    parts: &[Part],
    t_max: Real,
    speed: Real,
    proximity_at: impl Fn(Real) -> Proximity,
) -> Toi {
    let mut first: Option<Real> = None;
    for conditions in parts {
        let until = first.unwrap_or(t_max);
        if until <= 0.0 {
            break;
        }
        if let Some(t) = first_entry(conditions.as_ref(), until) {
            first = Some(first.map_or(t, |f| f.min(t)));
        }
    }
    let Some(mut t) = first else {
        return Toi::Miss;
    };
    let mut at = proximity_at(t);
    for steps in 0..ADVANCE_STEPS {
        // A long advancement that has reached the rounding of the coordinates is at a touch (a
        // ball gliding along a face at a gap of 1e-17 would go on at 1e-17 / speed a step)
        if steps >= TOUCH_AFTER && at.distance <= GAP_ROUNDING * at.point.abs().max_element() {
            break;
        }
        let step = at.distance / speed;
        // Touching, or a step below rounding (a speed of zero gives infinity or NaN)
        if step.is_nan() || step <= 0.0 || t + step == t {
            break;
        }
        // The gap cannot close before t + step: past the interval, there is no touch in it
        if t + step > t_max {
            return Toi::Miss;
        }
        t += step;
        at = proximity_at(t);
    }
    hit(t, &at)
}

/// Most steps of conservative advancement after a polynomial search.
const ADVANCE_STEPS: usize = 1000;

/// Steps of conservative advancement after which a gap within the rounding of the coordinates
/// ends it; shorter ones run until a step is below the rounding of time.
const TOUCH_AFTER: usize = 64;

/// A gap, relative to the largest coordinate of the point it is measured at, within the
/// rounding of computing it.
const GAP_ROUNDING: Real = 4.0 * Real::EPSILON;

/// Return a bound on the speed of a centre `velocity + acceleration t` over `[0, t_max]`.
#[inline]
fn speed_bound(velocity: Vec3, acceleration: Vec3, t_max: Real) -> Real {
    velocity.length() + acceleration.length() * t_max
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// Run `falling_hit` from a polynomial entry at `1e-3` with the gap `gap(t)`; return the
    /// answer and how many gaps it measured.
    fn advance(gap: impl Fn(Real) -> Real) -> (Toi, usize) {
        let parts = [[Poly::new(&[1e-3, -1.0])]];
        let calls = Cell::new(0);
        let toi = falling_hit(&parts, 1.0, 1.0, |t| {
            calls.set(calls.get() + 1);
            Proximity {
                distance: gap(t),
                point: Vec3::ONE,
                normal: Vec3::Y,
            }
        });
        (toi, calls.get())
    }

    #[test]
    fn a_glide_at_a_gap_of_rounding_ends_the_advancement() {
        // Steps of 1e-17 at t = 1e-3 are above the rounding of time (2e-19) for ever
        let (toi, calls) = advance(|_| 1e-17);
        assert_eq!(calls, TOUCH_AFTER + 1);
        let time = toi.time().expect("a touch");
        assert!((time - 1e-3).abs() <= 1e-15, "{time}");
    }

    #[test]
    fn a_gap_above_rounding_is_advanced_to_the_end() {
        // A gap of 1e-9 closing at 1e-3 of the speed bound: 0.37e-9 left after 1,000 steps
        let (toi, calls) = advance(|t| 1e-9 - 1e-3 * (t - 1e-3));
        assert_eq!(calls, ADVANCE_STEPS + 1);
        assert!(toi.time().is_some_and(|t| t > 1e-3 + 6e-7), "{toi:?}");
    }
}
