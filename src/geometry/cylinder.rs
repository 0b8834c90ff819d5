use super::error::{ShapeError, check_finite, check_radius, unit};
use super::{Proximity, Shape};
use crate::math::{Real, Vec3, any_orthonormal, normalize_or};

/// A solid cylinder with flat caps, from end point `a` to end point `b`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CappedCylinder {
    /// Centre of the first cap.
    pub a: Vec3,
    /// Centre of the second cap; must differ from `a`.
    pub b: Vec3,
    /// Radius, finite and positive.
    pub radius: Real,
}

/// A solid cylinder of infinite length, as in NeHe's Lesson 30.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InfiniteCylinder {
    /// Any point of the axis.
    pub point: Vec3,
    /// Unit direction of the axis.
    pub axis: Vec3,
    /// Radius, finite and positive.
    pub radius: Real,
}

/// Either kind of cylinder; the time-of-impact strategies take this.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Cylinder {
    /// Finite, with flat caps.
    Capped(CappedCylinder),
    /// Infinite, no caps.
    Infinite(InfiniteCylinder),
}

impl CappedCylinder {
    /// Create a capped cylinder from `a` to `b` with the given radius.
    ///
    /// Fails when a number is not finite, the radius is not positive, or `a == b`.
    pub fn new(a: Vec3, b: Vec3, radius: Real) -> Result<Self, ShapeError> {
        check_finite("a", a)?;
        check_finite("b", b)?;
        check_radius(radius)?;
        unit("a..b", b - a)?;
        Ok(Self { a, b, radius })
    }

    /// Return the length of the axis from `a` to `b`.
    #[must_use]
    #[inline]
    pub fn length(&self) -> Real {
        (self.b - self.a).length()
    }
}

impl InfiniteCylinder {
    /// Create an infinite cylinder around the line through `point` along `axis` (normalised here).
    ///
    /// Fails when a number is not finite, the radius is not positive, or the axis is zero.
    pub fn new(point: Vec3, axis: Vec3, radius: Real) -> Result<Self, ShapeError> {
        check_finite("point", point)?;
        check_radius(radius)?;
        let axis = unit("axis", axis)?;
        Ok(Self {
            point,
            axis,
            radius,
        })
    }

    /// Return the signed distance from `point` to the side: negative inside. The same value as
    /// [`Shape::point_proximity`]'s `distance`, without the normal and the surface point.
    #[must_use]
    #[inline]
    pub fn signed_distance(&self, point: Vec3) -> Real {
        let m = point - self.point;
        (m - self.axis * m.dot(self.axis)).length() - self.radius
    }
}

impl From<CappedCylinder> for Cylinder {
    fn from(c: CappedCylinder) -> Self {
        Self::Capped(c)
    }
}

impl From<InfiniteCylinder> for Cylinder {
    fn from(c: InfiniteCylinder) -> Self {
        Self::Infinite(c)
    }
}

impl Shape for CappedCylinder {
    /// Measure `point` against the solid: side, caps or rims, whichever is nearest.
    ///
    /// A point on the axis gets an arbitrary radial direction; a point inside goes out through
    /// the nearest of side and caps.
    fn point_proximity(&self, point: Vec3) -> Proximity {
        let length = self.length();
        let axis = (self.b - self.a) / length;
        let m = point - self.a;
        let h = m.dot(axis);
        let radial = m - axis * h;
        let rho = radial.length();
        let out = if rho > 0.0 {
            radial / rho
        } else {
            any_orthonormal(axis)
        };

        let beyond_a = h < 0.0;
        let beyond_b = h > length;
        if beyond_a || beyond_b {
            let (cap_center, cap_normal, excess) = if beyond_a {
                (self.a, -axis, -h)
            } else {
                (self.b, axis, h - length)
            };
            if rho <= self.radius {
                // Cap face
                return surface(cap_center + radial, cap_normal, excess);
            }
            // Rim circle
            let rim = cap_center + out * self.radius;
            let offset = point - rim;
            let distance = offset.length();
            return surface(rim, normalize_or(offset, out), distance);
        }
        if rho >= self.radius {
            // Side
            return surface(
                self.a + axis * h + out * self.radius,
                out,
                rho - self.radius,
            );
        }
        // Inside: leave through the nearest face
        let to_side = self.radius - rho;
        let to_a = h;
        let to_b = length - h;
        if to_side <= to_a && to_side <= to_b {
            surface(self.a + axis * h + out * self.radius, out, -to_side)
        } else if to_a <= to_b {
            surface(self.a + radial, -axis, -to_a)
        } else {
            surface(self.b + radial, axis, -to_b)
        }
    }
}

impl Shape for InfiniteCylinder {
    /// Measure `point` against the solid; a point on the axis gets an arbitrary radial direction.
    #[inline]
    fn point_proximity(&self, point: Vec3) -> Proximity {
        debug_assert!(
            self.axis.is_normalized(),
            "cylinder axis must be unit length"
        );
        let m = point - self.point;
        let h = m.dot(self.axis);
        let radial = m - self.axis * h;
        let rho = radial.length();
        let out = if rho > 0.0 {
            radial / rho
        } else {
            any_orthonormal(self.axis)
        };
        surface(
            self.point + self.axis * h + out * self.radius,
            out,
            rho - self.radius,
        )
    }
}

impl Shape for Cylinder {
    #[inline]
    fn point_proximity(&self, point: Vec3) -> Proximity {
        match self {
            Self::Capped(c) => c.point_proximity(point),
            Self::Infinite(c) => c.point_proximity(point),
        }
    }
}

#[inline]
fn surface(point: Vec3, normal: Vec3, distance: Real) -> Proximity {
    Proximity {
        distance,
        point,
        normal,
    }
}
