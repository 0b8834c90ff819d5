use super::error::{ShapeError, check_finite, check_radius};
use super::{Proximity, Shape};
use crate::math::{Real, Vec3};

/// A solid ball (a sphere and its inside).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ball {
    /// Centre, in world coordinates.
    pub center: Vec3,
    /// Radius, in length units; must be finite and positive.
    pub radius: Real,
}

impl Ball {
    /// Create a ball; see [`Ball::validate`] for the checks a value from outside should pass.
    #[must_use]
    #[inline]
    pub const fn new(center: Vec3, radius: Real) -> Self {
        Self { center, radius }
    }

    /// Check that the centre is finite and the radius finite and positive.
    pub fn validate(&self) -> Result<(), ShapeError> {
        check_finite("center", self.center)?;
        check_radius(self.radius)
    }
}

/// Return the point on the sphere (`center`, `radius`) closest to `point`.
///
/// The result is `center + radius * (point - center) / |point - center|`. For `point == center`
/// every surface point is equally close; the one in the `+x` direction is returned. A point
/// inside the sphere gets the surface point too (not itself): this is the sphere, not the ball.
///
/// ```
/// use toibox::{closest_point_on_sphere, Vec3};
/// let p = closest_point_on_sphere(Vec3::new(1.0, 1.0, 0.0), 2.0, Vec3::new(0.0, 0.0, 7.0));
/// assert!((p - Vec3::new(0.719944, 0.719944, 1.960392)).length() < 1e-6);
/// ```
#[must_use]
#[inline]
pub fn closest_point_on_sphere(center: Vec3, radius: Real, point: Vec3) -> Vec3 {
    let direction = crate::math::normalize_or(point - center, Vec3::X);
    center + direction * radius
}

impl Ball {
    /// Measure `point` against the sphere around this centre of radius `reach`.
    fn measure(&self, point: Vec3, reach: Real) -> Proximity {
        let offset = point - self.center;
        let normal = crate::math::normalize_or(offset, Vec3::X);
        Proximity {
            distance: offset.length() - reach,
            point: self.center + normal * self.radius,
            normal,
        }
    }
}

impl Shape for Ball {
    /// Measure `point` against this ball; the normal points from the centre to `point`, and is
    /// `+x` when they coincide.
    fn point_proximity(&self, point: Vec3) -> Proximity {
        self.measure(point, self.radius)
    }

    /// Measure `ball` against this ball: the gap is `|offset| - (r0 + r1)`, summed first so that
    /// swapping the two balls gives exactly the same number.
    fn proximity(&self, ball: &Ball) -> Proximity {
        self.measure(ball.center, self.radius + ball.radius)
    }
}
