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

mod ball_ball;
mod ball_cylinder;
mod ball_plane;
mod ball_polygon;

pub use ball_ball::ball_ball;
pub use ball_cylinder::{ball_capped_cylinder, ball_cylinder, ball_infinite_cylinder};
pub use ball_plane::ball_plane;
pub use ball_polygon::ball_polygon;

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
