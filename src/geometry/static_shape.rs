//! Any static shape as one value: what a world's planes, cylinders and polygons have in common.

use super::{Aabb, ConvexPolygon, Cylinder, Plane, Proximity, Shape};
use crate::math::Vec3;

/// A plane, a cylinder or a convex polygon: one of the static shapes a world holds.
///
/// Answers the [`Shape`] questions by asking the shape it holds.
#[derive(Clone, Debug, PartialEq)]
pub enum StaticShape {
    /// A one-sided [`Plane`].
    Plane(Plane),
    /// A capped or infinite [`Cylinder`].
    Cylinder(Cylinder),
    /// A [`ConvexPolygon`].
    Polygon(ConvexPolygon),
}

impl StaticShape {
    /// Return the box of a finite shape; `None` for planes and infinite cylinders.
    pub(crate) fn aabb(&self) -> Option<Aabb> {
        match self {
            Self::Plane(_) | Self::Cylinder(Cylinder::Infinite(_)) => None,
            Self::Cylinder(Cylinder::Capped(c)) => Some(Aabb::of_path(c.a, c.b, c.radius)),
            Self::Polygon(p) => Aabb::of_points(p.vertices().iter().copied()),
        }
    }
}

impl Shape for StaticShape {
    #[inline]
    fn point_proximity(&self, point: Vec3) -> Proximity {
        match self {
            Self::Plane(s) => s.point_proximity(point),
            Self::Cylinder(s) => s.point_proximity(point),
            Self::Polygon(s) => s.point_proximity(point),
        }
    }

    #[inline]
    fn proximity(&self, ball: &super::Ball) -> Proximity {
        match self {
            Self::Plane(s) => s.proximity(ball),
            Self::Cylinder(s) => s.proximity(ball),
            Self::Polygon(s) => s.proximity(ball),
        }
    }
}

impl From<Plane> for StaticShape {
    fn from(plane: Plane) -> Self {
        Self::Plane(plane)
    }
}

impl From<Cylinder> for StaticShape {
    fn from(cylinder: Cylinder) -> Self {
        Self::Cylinder(cylinder)
    }
}

impl From<ConvexPolygon> for StaticShape {
    fn from(polygon: ConvexPolygon) -> Self {
        Self::Polygon(polygon)
    }
}
