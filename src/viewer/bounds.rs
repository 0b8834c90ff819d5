//! The box a scene is framed and drawn in, and the clipping of unbounded shapes to it.

use crate::geometry::{Aabb, Cylinder, Plane};
use crate::math::{Real, Vec3};
use crate::scene::Scene;

/// The viewer's uses of a box: framing, the camera's reach, and clipping unbounded shapes.
impl Aabb {
    /// Grow the box to hold `p`.
    pub fn include(&mut self, p: Vec3) {
        self.min = self.min.min(p);
        self.max = self.max.max(p);
    }

    /// Return the box of the scene's balls and finite shapes.
    ///
    /// Planes and infinite cylinders do not bound, with one exception: scene files put a
    /// plane's `point` on the wall it draws, so a plane point within one extent of the box
    /// widens it (a billiard table's cushions, a room's walls). An empty scene gets the unit
    /// box around the origin; every axis is at least 2% of the largest extent thick.
    #[must_use]
    pub fn of_scene(scene: &Scene) -> Self {
        let mut bounds: Option<Self> = None;
        let mut add = |min: Vec3, max: Vec3| match &mut bounds {
            Some(b) => {
                b.include(min);
                b.include(max);
            }
            None => bounds = Some(Self { min, max }),
        };
        for ball in &scene.balls {
            add(
                ball.position - Vec3::splat(ball.radius),
                ball.position + Vec3::splat(ball.radius),
            );
        }
        for cylinder in &scene.cylinders {
            if let Cylinder::Capped(c) = cylinder.shape {
                let r = Vec3::splat(c.radius);
                add(c.a.min(c.b) - r, c.a.max(c.b) + r);
            }
        }
        for polygon in &scene.polygons {
            for &v in polygon.shape.vertices() {
                add(v, v);
            }
        }
        let mut bounds = bounds.unwrap_or_else(|| {
            // Nothing finite: the unbounded shapes' reference points, else the unit box
            let mut b = Self {
                min: -Vec3::ONE,
                max: Vec3::ONE,
            };
            for p in &scene.planes {
                b.include(p.shape.point);
            }
            for c in &scene.cylinders {
                if let Cylinder::Infinite(c) = c.shape {
                    b.include(c.point);
                }
            }
            b
        });
        let reach = bounds.grown(bounds.largest_extent());
        for plane in &scene.planes {
            if reach.contains(plane.shape.point) {
                bounds.include(plane.shape.point);
            }
        }
        bounds.thickened(0.02)
    }

    /// Return the centre.
    #[must_use]
    pub fn center(&self) -> Vec3 {
        (self.min + self.max) * 0.5
    }

    /// Return the size along each axis.
    #[must_use]
    pub fn size(&self) -> Vec3 {
        self.max - self.min
    }

    /// Return the largest size along an axis.
    #[must_use]
    pub fn largest_extent(&self) -> Real {
        self.size().max_element()
    }

    /// Return half the diagonal: the radius of the sphere around the box.
    #[must_use]
    pub fn radius(&self) -> Real {
        self.size().length() * 0.5
    }

    /// Return the eight corners.
    #[must_use]
    pub fn corners(&self) -> [Vec3; 8] {
        let (a, b) = (self.min, self.max);
        [
            Vec3::new(a.x, a.y, a.z),
            Vec3::new(b.x, a.y, a.z),
            Vec3::new(a.x, b.y, a.z),
            Vec3::new(b.x, b.y, a.z),
            Vec3::new(a.x, a.y, b.z),
            Vec3::new(b.x, a.y, b.z),
            Vec3::new(a.x, b.y, b.z),
            Vec3::new(b.x, b.y, b.z),
        ]
    }

    /// Return the box grown by `margin` on every side.
    #[must_use]
    pub fn grown(&self, margin: Real) -> Self {
        Self {
            min: self.min - Vec3::splat(margin),
            max: self.max + Vec3::splat(margin),
        }
    }

    /// Return the box with every axis at least `fraction` of the largest extent thick.
    #[must_use]
    pub fn thickened(&self, fraction: Real) -> Self {
        let least = self.largest_extent().max(Real::MIN_POSITIVE) * fraction;
        let half = (least - self.size()).max(Vec3::ZERO) * 0.5;
        Self {
            min: self.min - half,
            max: self.max + half,
        }
    }

    /// Return true when `p` is inside or on the box.
    #[must_use]
    pub fn contains(&self, p: Vec3) -> bool {
        p.cmpge(self.min).all() && p.cmple(self.max).all()
    }

    /// Return the part of the line through `point` along `direction` inside the box, as its
    /// two end points, or `None` when the line misses it.
    ///
    /// The slab method (Kay and Kajiya); `direction` need not be unit length but must not be
    /// zero.
    #[must_use]
    pub fn clip_line(&self, point: Vec3, direction: Vec3) -> Option<(Vec3, Vec3)> {
        let (mut t0, mut t1) = (Real::NEG_INFINITY, Real::INFINITY);
        for axis in 0..3 {
            let (p, d) = (point[axis], direction[axis]);
            let (lo, hi) = (self.min[axis], self.max[axis]);
            if d.abs() < 1e-300 {
                // Parallel to the slab: inside it or never
                if p < lo || p > hi {
                    return None;
                }
                continue;
            }
            let (a, b) = ((lo - p) / d, (hi - p) / d);
            t0 = t0.max(a.min(b));
            t1 = t1.min(a.max(b));
        }
        (t0 <= t1).then(|| (point + direction * t0, point + direction * t1))
    }

    /// Return the part of `plane` inside the box: a convex polygon whose vertices wind
    /// counter-clockwise around the plane's normal, or an empty list when the plane misses
    /// the box.
    ///
    /// A square on the plane larger than the box is clipped against the box's six faces
    /// (Sutherland and Hodgman).
    #[must_use]
    pub fn clip_plane(&self, plane: &Plane) -> Vec<Vec3> {
        let (u, v) = plane_axes(plane.normal);
        let center = self.center() - plane.normal * plane.signed_distance(self.center());
        let half = self.radius() * 2.0 + 1e-9;
        let mut polygon = vec![
            center + (-u - v) * half,
            center + (u - v) * half,
            center + (u + v) * half,
            center + (-u + v) * half,
        ];
        for axis in 0..3 {
            let mut normal = Vec3::ZERO;
            normal[axis] = 1.0;
            // Keep x[axis] >= min[axis], then x[axis] <= max[axis]
            polygon = clip_polygon(&polygon, normal, self.min[axis]);
            polygon = clip_polygon(&polygon, -normal, -self.max[axis]);
        }
        polygon
    }
}

/// Return two unit axes spanning the plane of `normal` (unit), with `u × v = normal`, the
/// first along the world axis most parallel to the plane, so that grids line up with the
/// world's axes.
#[must_use]
pub(crate) fn plane_axes(normal: Vec3) -> (Vec3, Vec3) {
    let abs = normal.abs();
    let axis = if abs.x <= abs.y && abs.x <= abs.z {
        Vec3::X
    } else if abs.z <= abs.y {
        Vec3::Z
    } else {
        Vec3::Y
    };
    let u = (axis - normal * normal.dot(axis)).normalize();
    (u, normal.cross(u))
}

/// Keep the part of a convex `polygon` where `normal · x >= offset`.
fn clip_polygon(polygon: &[Vec3], normal: Vec3, offset: Real) -> Vec<Vec3> {
    let mut out = Vec::with_capacity(polygon.len() + 1);
    for (i, &a) in polygon.iter().enumerate() {
        let b = polygon[(i + 1) % polygon.len()];
        let (da, db) = (normal.dot(a) - offset, normal.dot(b) - offset);
        if da >= 0.0 {
            out.push(a);
        }
        if (da >= 0.0) != (db >= 0.0) {
            out.push(a + (b - a) * (da / (da - db)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube() -> Aabb {
        Aabb {
            min: -Vec3::ONE,
            max: Vec3::ONE,
        }
    }

    #[test]
    fn a_plane_through_a_cube_clips_to_its_face_square() {
        // The plane y = 0.5 cuts the cube [-1, 1]³ in the square x, z ∈ [-1, 1]
        let plane = Plane::new(Vec3::new(0.0, 0.5, 0.0), Vec3::Y).unwrap();
        let polygon = cube().clip_plane(&plane);
        assert_eq!(polygon.len(), 4, "{polygon:?}");
        for p in &polygon {
            assert!((p.y - 0.5).abs() < 1e-12);
            assert!((p.x.abs() - 1.0).abs() < 1e-12 && (p.z.abs() - 1.0).abs() < 1e-12);
        }
        // Counter-clockwise around the normal
        let turn = (polygon[1] - polygon[0]).cross(polygon[2] - polygon[1]);
        assert!(turn.dot(Vec3::Y) > 0.0);
    }

    #[test]
    fn a_plane_outside_the_box_clips_to_nothing() {
        let plane = Plane::new(Vec3::new(0.0, 3.0, 0.0), Vec3::Y).unwrap();
        assert!(cube().clip_plane(&plane).is_empty());
    }

    #[test]
    fn a_diagonal_plane_through_the_centre_gives_a_hexagon() {
        let plane = Plane::new(Vec3::ZERO, Vec3::ONE).unwrap();
        assert_eq!(cube().clip_plane(&plane).len(), 6);
    }

    #[test]
    fn a_line_along_a_diagonal_crosses_from_corner_to_corner() {
        let (a, b) = cube().clip_line(Vec3::ZERO, Vec3::ONE).unwrap();
        assert!((a + Vec3::ONE).length() < 1e-12 && (b - Vec3::ONE).length() < 1e-12);
        assert!(
            cube()
                .clip_line(Vec3::new(0.0, 2.0, 0.0), Vec3::X)
                .is_none()
        );
    }

    #[test]
    fn scene_bounds_take_the_walls_of_the_nehe_room() {
        let scene =
            Scene::parse(include_str!("../../scenes/nehe_room.ron"), "nehe_room.ron").unwrap();
        let b = Aabb::of_scene(&scene);
        // Walls at ±320 and the floor at -320 widen the balls' box; the top is the balls'
        assert_eq!(b.min, Vec3::new(-320.0, -320.0, -320.0));
        assert_eq!(b.max, Vec3::new(320.0, 320.0, 320.0));
    }

    #[test]
    fn a_far_plane_point_does_not_stretch_the_bounds() {
        let scene = Scene::parse(
            "Scene(dt: 0.01, balls: [(pos: (0.0, 1.0, 0.0), radius: 0.5)],
             planes: [(point: (1000.0, 0.0, 0.0), normal: (0.0, 1.0, 0.0))])",
            "far.ron",
        )
        .unwrap();
        let b = Aabb::of_scene(&scene);
        assert!(b.max.x < 1.0, "{b:?}");
    }
}
