//! Shapes as plain data, and static queries of a ball against each.
//!
//! Every static shape ([`Ball`], [`Plane`], [`Cylinder`], [`ConvexPolygon`]) answers the same
//! three questions about a ball at one instant, through the [`Shape`] trait: where is its closest
//! point, how far apart are the two surfaces, and do they overlap. The answer to all three is a
//! [`Proximity`], which the time-of-impact strategies sample along a ball's path.
//!
//! Solids and surfaces: a [`Plane`] bounds a solid half-space (a ball belongs on the side its
//! normal points to), cylinders are solid, and a [`ConvexPolygon`] is a two-sided plate of zero
//! thickness.

mod aabb;
mod ball;
mod cylinder;
mod error;
mod plane;
mod polygon;
mod static_shape;

pub(crate) use aabb::Aabb;
pub use ball::{Ball, closest_point_on_sphere};
pub use cylinder::{CappedCylinder, Cylinder, InfiniteCylinder};
pub use error::ShapeError;
pub use plane::Plane;
pub use polygon::ConvexPolygon;
pub use static_shape::StaticShape;

use crate::math::{Real, Vec3};

/// How a ball and a shape stand relative to each other at one instant.
///
/// The same record serves apart, touching and overlapping pairs, so the search strategies can
/// sample it without branching on the shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Proximity {
    /// Signed gap between the two surfaces, in length units: positive when apart, zero when
    /// touching, and minus the penetration depth when overlapping.
    pub distance: Real,
    /// The point of the shape's surface closest to the ball's centre. For a centre inside a
    /// solid shape, the surface point through which the ball is pushed out.
    pub point: Vec3,
    /// Unit normal at `point`, pointing from the shape towards the ball: moving the ball along
    /// it separates the pair.
    pub normal: Vec3,
}

impl Proximity {
    /// Return true when the surfaces touch or overlap (`distance <= 0`).
    #[must_use]
    #[inline]
    pub fn overlaps(&self) -> bool {
        self.distance <= 0.0
    }

    /// Return the penetration depth: `-distance` when overlapping, else zero.
    #[must_use]
    #[inline]
    pub fn depth(&self) -> Real {
        (-self.distance).max(0.0)
    }
}

/// A static shape that a ball can be measured against.
///
/// Implemented by every shape of this module. A shape provides [`Shape::point_proximity`]; the
/// rest follows from it, because a ball of radius `r` stands to a shape as its centre does, less
/// `r`. The time-of-impact strategies are written against [`Shape::proximity`] alone, so a shape
/// that implements this trait can be searched by the sliced strategies without further code.
pub trait Shape {
    /// Return how `point` stands relative to the shape's surface: the closest surface point,
    /// the outward normal there, and the signed distance (negative inside a solid).
    ///
    /// Where the normal is not unique (a point on an axis, at a centre) the shape picks one and
    /// says which in its docs.
    #[must_use]
    fn point_proximity(&self, point: Vec3) -> Proximity;

    /// Return the point of the shape closest to `point`: `point` itself when it lies inside or
    /// on the shape.
    #[must_use]
    fn closest_point(&self, point: Vec3) -> Vec3 {
        let surface = self.point_proximity(point);
        if surface.distance <= 0.0 {
            point
        } else {
            surface.point
        }
    }

    /// Return how `ball` stands relative to this shape.
    ///
    /// The ball's radius must be positive and its centre finite; see [`Proximity`] for the
    /// meaning of each field.
    #[must_use]
    #[inline]
    fn proximity(&self, ball: &Ball) -> Proximity {
        let surface = self.point_proximity(ball.center);
        Proximity {
            distance: surface.distance - ball.radius,
            ..surface
        }
    }

    /// Return the gap between the ball's surface and the shape: zero when they touch or overlap.
    #[must_use]
    fn distance(&self, ball: &Ball) -> Real {
        self.proximity(ball).distance.max(0.0)
    }

    /// Return true when the ball touches or overlaps the shape.
    #[must_use]
    fn overlaps(&self, ball: &Ball) -> bool {
        self.proximity(ball).overlaps()
    }
}

/// Return a length that sets the scale of a query: used to turn relative tolerances into
/// absolute ones.
#[inline]
pub(crate) fn scale_of(lengths: &[Real]) -> Real {
    lengths
        .iter()
        .fold(Real::MIN_POSITIVE, |acc, &x| acc.max(x.abs()))
}
