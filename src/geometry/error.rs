use std::fmt;

/// Why a shape could not be built from the given numbers.
///
/// Every variant's message says what is allowed, so it can be shown to a user as it is.
#[derive(Clone, Debug, PartialEq)]
pub enum ShapeError {
    /// A coordinate or a length is NaN or infinite.
    NonFinite {
        /// The parameter at fault (`"radius"`, `"normal"`, `"vertices[2]"`, ...).
        field: String,
    },
    /// A radius is zero or negative.
    NonPositiveRadius {
        /// The value given.
        radius: f64,
    },
    /// A normal or an axis has zero length, so it has no direction.
    ZeroLength {
        /// The parameter at fault (`"normal"`, `"axis"`, `"a..b"`).
        field: String,
    },
    /// A polygon has fewer than three vertices.
    TooFewVertices {
        /// How many were given.
        count: usize,
    },
    /// Two consecutive polygon vertices coincide.
    RepeatedVertex {
        /// The index of the vertex equal to its successor.
        index: usize,
    },
    /// All polygon vertices lie on one line, so the polygon has no area and no normal.
    Collinear,
    /// A polygon vertex lies off the plane of the others.
    NonPlanar {
        /// The index of the vertex farthest from the plane.
        index: usize,
        /// Its distance from the plane.
        distance: f64,
    },
    /// A polygon is not convex (a reflex corner, or an edge that crosses another).
    NonConvex {
        /// The index of a vertex on the wrong side of an edge.
        index: usize,
    },
}

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NonFinite { field } => {
                write!(
                    f,
                    "`{field}` is not a finite number; allowed: finite values"
                )
            }
            Self::NonPositiveRadius { radius } => {
                write!(f, "radius is {radius}; allowed: a finite number > 0")
            }
            Self::ZeroLength { field } => {
                write!(f, "`{field}` has zero length; allowed: a non-zero vector")
            }
            Self::TooFewVertices { count } => write!(
                f,
                "polygon has {count} vertices; allowed: 3 or more, in order around the polygon"
            ),
            Self::RepeatedVertex { index } => write!(
                f,
                "polygon vertex {index} repeats the next one; allowed: distinct consecutive vertices"
            ),
            Self::Collinear => write!(
                f,
                "polygon vertices are collinear; allowed: vertices spanning a plane"
            ),
            Self::NonPlanar { index, distance } => write!(
                f,
                "polygon vertex {index} lies {distance:e} off the plane of the others; allowed: planar vertices"
            ),
            Self::NonConvex { index } => write!(
                f,
                "polygon is not convex at vertex {index}; allowed: a convex polygon with vertices in order"
            ),
        }
    }
}

impl std::error::Error for ShapeError {}

/// Check that every component of `v` is finite.
pub(crate) fn check_finite(field: &str, v: crate::math::Vec3) -> Result<(), ShapeError> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(ShapeError::NonFinite {
            field: field.to_owned(),
        })
    }
}

/// Check that `radius` is finite and positive.
pub(crate) fn check_radius(radius: f64) -> Result<(), ShapeError> {
    if !radius.is_finite() {
        return Err(ShapeError::NonFinite {
            field: "radius".to_owned(),
        });
    }
    if radius <= 0.0 {
        return Err(ShapeError::NonPositiveRadius { radius });
    }
    Ok(())
}

/// Return `v` normalised, or the error for a zero or non-finite vector.
pub(crate) fn unit(field: &str, v: crate::math::Vec3) -> Result<crate::math::Vec3, ShapeError> {
    check_finite(field, v)?;
    // Scale first: the length of a huge finite vector overflows.
    let largest = v.abs().max_element();
    if largest == 0.0 {
        return Err(ShapeError::ZeroLength {
            field: field.to_owned(),
        });
    }
    let scaled = v / largest;
    Ok(scaled / scaled.length())
}
