use super::error::{ShapeError, check_finite, unit};
use super::{Proximity, Shape};
use crate::math::{Real, Vec3};

/// A one-sided plane: the boundary of the solid half-space behind it.
///
/// A ball belongs on the side the normal points to. A ball whose centre is behind the plane
/// overlaps the half-space (it is not "on the other side" and free to go on), which is how
/// toibox tells an escaped ball from a legal one. NeHe's planes are two-sided; these are not.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plane {
    /// Any point of the plane.
    pub point: Vec3,
    /// Unit normal, pointing out of the solid half-space to where balls belong.
    pub normal: Vec3,
}

impl Plane {
    /// Create a plane through `point` with the normal `normal`, normalised here.
    ///
    /// Fails when a number is not finite or the normal has zero length.
    pub fn new(point: Vec3, normal: Vec3) -> Result<Self, ShapeError> {
        check_finite("point", point)?;
        let normal = unit("normal", normal)?;
        Ok(Self { point, normal })
    }

    /// Return the signed distance of `point` from the plane: positive on the normal's side.
    #[must_use]
    #[inline]
    pub fn signed_distance(&self, point: Vec3) -> Real {
        self.normal.dot(point - self.point)
    }
}

impl Shape for Plane {
    /// Measure `point` against the half-space: the normal is always the plane's, and the
    /// surface point is the projection of `point` on the plane.
    #[inline]
    fn point_proximity(&self, point: Vec3) -> Proximity {
        debug_assert!(
            self.normal.is_normalized(),
            "plane normal must be unit length"
        );
        let distance = self.signed_distance(point);
        Proximity {
            distance,
            point: point - self.normal * distance,
            normal: self.normal,
        }
    }
}
