//! The box a scene is framed and drawn in, and the clipping of unbounded shapes to it.

use crate::geometry::{Aabb, Cylinder, InfiniteCylinder, Plane};
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
    /// plane's `point` on the wall it draws, so a plane point within two extents of the box
    /// widens it (a billiard table's cushions, a room's walls: the shots of `spin_shots` start
    /// in a quarter of their table). An empty scene gets the unit
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
        let reach = bounds.grown(2.0 * bounds.largest_extent());
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

    /// Return the faces of an infinite cylinder's tube of `sides` sides that lie inside the box
    /// and in front of every plane of `planes` (where balls can be): each a convex polygon,
    /// winding around the outward normal. Nothing pokes out of the room the planes make.
    #[must_use]
    pub fn clip_tube(
        &self,
        cylinder: &InfiniteCylinder,
        planes: &[Plane],
        sides: u16,
    ) -> Vec<Vec<Vec3>> {
        let axis = cylinder.axis;
        // Every point of the tube in the box lies within this reach along the axis of the
        // point of the axis nearest the box's centre
        let middle = cylinder.point + axis * axis.dot(self.center() - cylinder.point);
        let reach = self.radius() + cylinder.radius;
        let (a, b) = (middle - axis * reach, middle + axis * reach);
        let (u, w) = plane_axes(axis);
        let ring = |k: u16| {
            let angle = std::f64::consts::TAU * f64::from(k) / f64::from(sides);
            (u * angle.cos() + w * angle.sin()) * cylinder.radius
        };
        (0..sides)
            .map(|k| {
                let (n0, n1) = (ring(k), ring(k + 1));
                self.clip_convex(vec![a + n0, b + n0, b + n1, a + n1], planes)
            })
            .filter(|face| face.len() >= 3)
            .collect()
    }

    /// Return the part of the convex `polygon` inside the box and in front of every plane of
    /// `planes` (Sutherland and Hodgman); fewer than three vertices when nothing is left.
    #[must_use]
    pub fn clip_convex(&self, mut polygon: Vec<Vec3>, planes: &[Plane]) -> Vec<Vec3> {
        for axis in 0..3 {
            let mut normal = Vec3::ZERO;
            normal[axis] = 1.0;
            // Keep x[axis] >= min[axis], then x[axis] <= max[axis]
            polygon = clip_polygon(&polygon, normal, self.min[axis]);
            polygon = clip_polygon(&polygon, -normal, -self.max[axis]);
        }
        for plane in planes {
            polygon = clip_polygon(&polygon, plane.normal, plane.normal.dot(plane.point));
        }
        polygon
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
        let square = vec![
            center + (-u - v) * half,
            center + (u - v) * half,
            center + (u + v) * half,
            center + (-u + v) * half,
        ];
        self.clip_convex(square, &[])
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
    use crate::geometry::Shape;

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
    fn infinite_cylinders_are_drawn_only_inside_the_room() {
        let scene =
            Scene::parse(include_str!("../../scenes/nehe_room.ron"), "nehe_room.ron").unwrap();
        let clip = Aabb::of_scene(&scene).grown(1.0);
        let planes: Vec<Plane> = scene.planes.iter().map(|p| p.shape).collect();
        let area = |face: &[Vec3]| {
            let n = face.len();
            (1..n - 1)
                .map(|k| (face[k] - face[0]).cross(face[k + 1] - face[0]).length() / 2.0)
                .sum::<Real>()
        };
        let mut areas = Vec::new();
        for c in &scene.cylinders {
            let Cylinder::Infinite(pole) = c.shape else {
                panic!("the room's poles are infinite");
            };
            let faces = clip.clip_tube(&pole, &planes, 40);
            assert!(!faces.is_empty(), "{pole:?} is drawn");
            for p in faces.iter().flatten() {
                assert!(clip.contains(*p), "{p} outside the box");
                for plane in &planes {
                    assert!(plane.signed_distance(*p) >= -1e-9, "{p} behind {plane:?}");
                }
                // On the tube (a polygon of 40 sides, inside the circle)
                let gap = Cylinder::Infinite(pole).point_proximity(*p).distance;
                assert!((-0.01 * pole.radius..=1e-9).contains(&gap), "{p}: {gap}");
            }
            areas.push(faces.iter().map(|f| area(f)).sum::<Real>());
        }
        // The upright pole from the floor (y = -320) to the box's top (321): the side of a
        // 40-gon prism of that height, nothing more
        let side = 40.0 * 2.0 * 60.0 * (std::f64::consts::PI / 40.0).sin();
        assert!(
            (areas[0] / (side * 641.0) - 1.0).abs() < 1e-9,
            "{}",
            areas[0]
        );
        // The pole along z at y = -300 sinks into the floor: less than its full side shows
        let full = 40.0 * 2.0 * 60.0 * (std::f64::consts::PI / 40.0).sin() * 642.0;
        assert!(areas[1] < 0.8 * full, "{} of {full}", areas[1]);
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
