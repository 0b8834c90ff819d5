use super::error::{ShapeError, check_finite};
use super::{Proximity, Shape, scale_of};
use crate::math::{Real, Vec3, normalize_or};

/// A planar convex polygon: a two-sided plate of zero thickness. A triangle is one.
///
/// Built by [`ConvexPolygon::new`], which checks the vertices; the fields are private so that
/// every value of this type is a valid polygon.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvexPolygon {
    vertices: Vec<Vec3>,
    normal: Vec3,
}

/// Relative tolerance of the planarity and convexity checks, times the polygon's size.
const SHAPE_TOLERANCE: Real = 1e-9;

impl ConvexPolygon {
    /// Create a polygon from its vertices, in order around it (either winding).
    ///
    /// Fails when there are fewer than 3 vertices, a coordinate is not finite, two consecutive
    /// vertices coincide, all vertices are collinear, a vertex lies off the plane of the others
    /// (by more than 1e-9 of the polygon's size), or the polygon is not convex. Collinear
    /// consecutive edges are allowed. The normal follows the winding (right-hand rule).
    pub fn new(vertices: Vec<Vec3>) -> Result<Self, ShapeError> {
        let n = vertices.len();
        if n < 3 {
            return Err(ShapeError::TooFewVertices { count: n });
        }
        for (i, v) in vertices.iter().enumerate() {
            check_finite(&format!("vertices[{i}]"), *v)?;
        }
        for i in 0..n {
            if vertices[i] == vertices[(i + 1) % n] {
                return Err(ShapeError::RepeatedVertex { index: i });
            }
        }

        let centroid = vertices.iter().copied().sum::<Vec3>() / n as Real;
        let size = scale_of(
            &vertices
                .iter()
                .map(|v| (*v - centroid).length())
                .collect::<Vec<_>>(),
        );
        // Newell's normal: twice the area vector, robust for any planar polygon
        let area2: Vec3 = (0..n)
            .map(|i| (vertices[i] - centroid).cross(vertices[(i + 1) % n] - centroid))
            .sum();
        if area2.length() <= 1e-12 * size * size {
            return Err(ShapeError::Collinear);
        }
        let normal = area2.normalize();

        let tolerance = SHAPE_TOLERANCE * size;
        let (index, distance) = vertices
            .iter()
            .map(|v| normal.dot(*v - centroid).abs())
            .enumerate()
            .fold(
                (0, 0.0),
                |best, (i, d)| if d > best.1 { (i, d) } else { best },
            );
        if distance > tolerance {
            return Err(ShapeError::NonPlanar { index, distance });
        }

        for i in 0..n {
            let a = vertices[i];
            let edge = vertices[(i + 1) % n] - a;
            let slack = tolerance * edge.length();
            for (j, v) in vertices.iter().enumerate() {
                if normal.dot(edge.cross(*v - a)) < -slack {
                    return Err(ShapeError::NonConvex { index: j });
                }
            }
        }

        Ok(Self { vertices, normal })
    }

    /// Return the vertices, in the order given.
    #[must_use]
    #[inline]
    pub fn vertices(&self) -> &[Vec3] {
        &self.vertices
    }

    /// Return the unit normal; the vertices wind counter-clockwise around it.
    #[must_use]
    #[inline]
    pub fn normal(&self) -> Vec3 {
        self.normal
    }

    /// Return the edges as pairs of end points, the last one closing the loop.
    pub fn edges(&self) -> impl Iterator<Item = (Vec3, Vec3)> + '_ {
        let n = self.vertices.len();
        (0..n).map(move |i| (self.vertices[i], self.vertices[(i + 1) % n]))
    }

    /// Return the signed distance of `point` from the polygon's plane, positive on the
    /// normal's side.
    #[must_use]
    #[inline]
    pub fn plane_distance(&self, point: Vec3) -> Real {
        self.normal.dot(point - self.vertices[0])
    }

    /// Return true when `point`, projected along the normal onto the plane, falls inside the
    /// polygon or on its boundary.
    ///
    /// The same-side test against every edge (not seed 001's angle sum, which is slower and
    /// fails near the boundary).
    #[must_use]
    pub fn contains_projection(&self, point: Vec3) -> bool {
        self.edges()
            .all(|(a, b)| self.normal.dot((b - a).cross(point - a)) >= 0.0)
    }
}

/// Return the point of the segment `a..b` closest to `point`; the parameter is clamped to
/// `[0, 1]` (seed 001 leaves it unclamped, which matches points beyond the end vertices).
#[must_use]
#[inline]
pub(crate) fn closest_point_on_segment(a: Vec3, b: Vec3, point: Vec3) -> Vec3 {
    let edge = b - a;
    let length2 = edge.length_squared();
    let s = if length2 > 0.0 {
        ((point - a).dot(edge) / length2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    a + edge * s
}

impl Shape for ConvexPolygon {
    /// Measure `point` against the plate: its face when the projection falls inside, else the
    /// nearest edge or vertex. A point in the plate gets the normal on the `+normal` side.
    fn point_proximity(&self, point: Vec3) -> Proximity {
        let height = self.plane_distance(point);
        if self.contains_projection(point) {
            let side = if height >= 0.0 {
                self.normal
            } else {
                -self.normal
            };
            return Proximity {
                distance: height.abs(),
                point: point - self.normal * height,
                normal: side,
            };
        }
        let closest = self
            .edges()
            .map(|(a, b)| closest_point_on_segment(a, b, point))
            .min_by(|x, y| {
                (point - *x)
                    .length_squared()
                    .total_cmp(&(point - *y).length_squared())
            })
            .expect("a polygon has at least three edges");
        let offset = point - closest;
        Proximity {
            distance: offset.length(),
            point: closest,
            normal: normalize_or(offset, self.normal),
        }
    }
}
