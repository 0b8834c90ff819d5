//! The orbit camera: framing a scene's bounds on start, orbiting, zooming, panning, and
//! NeHe's hook camera that follows a ball.

use macroquad::camera::Camera3D;

use super::render::v3;
use crate::geometry::Aabb;
use crate::math::{Real, Vec3, normalize_or};

/// Vertical field of view, in radians.
const FOVY: Real = 40.0 * std::f64::consts::PI / 180.0;
/// Highest and lowest pitch: never straight up or down, where the view's roll is undefined.
const PITCH_LIMIT: Real = 1.5;
/// A scene axis thinner than this fraction of the largest is a flat scene's: view it face on.
const THIN: Real = 0.15;

/// The camera's orbit: a target, the direction from it to the eye (yaw about the up axis and
/// pitch above the horizon), and the distance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Orbit {
    /// The point looked at.
    pub target: Vec3,
    /// Angle about the up axis, from the front axis towards the side axis, in radians.
    pub yaw: Real,
    /// Angle above the horizon, in radians, within ±[`PITCH_LIMIT`].
    pub pitch: Real,
    /// Distance from the target to the eye, positive.
    pub distance: Real,
}

/// An orbit camera with its frame of reference.
#[derive(Clone, Debug)]
pub(crate) struct OrbitCamera {
    /// Where it looks from now.
    pub orbit: Orbit,
    /// The framing of the whole scene, to come back to.
    pub home: Orbit,
    /// Unit up axis: against gravity, or y without it.
    up: Vec3,
    /// Unit horizontal axis the camera looks along at yaw 0 (from the front).
    front: Vec3,
    /// Unit horizontal axis at yaw 90°.
    side: Vec3,
}

impl OrbitCamera {
    /// Frame `bounds` in a viewport of `aspect` (width over height), with the up axis against
    /// `gravity`.
    ///
    /// A flat scene (an axis thinner than 15% of the largest) is seen face on: from the front
    /// when it is thin front to back (a Galton board, a row of balls), from above at an angle
    /// when it is thin in height (a table); any other scene from a three-quarter view.
    #[must_use]
    pub fn framing(bounds: &Aabb, gravity: Vec3, aspect: Real) -> Self {
        let up = normalize_or(-gravity, Vec3::Y);
        let front = {
            let z = Vec3::Z - up * up.dot(Vec3::Z);
            normalize_or(z, normalize_or(Vec3::X - up * up.dot(Vec3::X), Vec3::X))
        };
        let side = up.cross(front);
        let size = bounds.size();
        let extent = |axis: Vec3| size.dot(axis.abs());
        let largest = extent(up).max(extent(front)).max(extent(side));
        let (yaw, pitch) = if extent(front) < THIN * largest {
            (0.0, 0.12)
        } else if extent(side) < THIN * largest {
            (std::f64::consts::FRAC_PI_2, 0.12)
        } else if extent(up) < THIN * largest {
            (0.0, 0.85)
        } else {
            (0.6, 0.42)
        };
        let mut camera = Self {
            orbit: Orbit {
                target: bounds.center(),
                yaw,
                pitch,
                distance: 1.0,
            },
            home: Orbit {
                target: bounds.center(),
                yaw,
                pitch,
                distance: 1.0,
            },
            up,
            front,
            side,
        };
        camera.orbit.distance = camera.fit_distance(bounds, aspect);
        camera.home = camera.orbit;
        camera
    }

    /// Return the unit direction from the target to the eye.
    #[must_use]
    fn outward(&self) -> Vec3 {
        let Orbit { yaw, pitch, .. } = self.orbit;
        (self.front * yaw.cos() + self.side * yaw.sin()) * pitch.cos() + self.up * pitch.sin()
    }

    /// Return the eye's position.
    #[must_use]
    pub fn eye(&self) -> Vec3 {
        self.orbit.target + self.outward() * self.orbit.distance
    }

    /// Return the camera's unit axes: right, up (on the screen) and forward (into it).
    #[must_use]
    pub fn axes(&self) -> (Vec3, Vec3, Vec3) {
        let forward = -self.outward();
        let right = normalize_or(forward.cross(self.up), self.side);
        (right, right.cross(forward), forward)
    }

    /// Return the world's up axis.
    #[must_use]
    pub fn world_up(&self) -> Vec3 {
        self.up
    }

    /// Return the distance from which the box fits a viewport of `aspect` with a margin,
    /// looking along the current direction at its centre.
    #[must_use]
    pub fn fit_distance(&self, bounds: &Aabb, aspect: Real) -> Real {
        let (right, up, forward) = self.axes();
        let tan_y = (FOVY * 0.5).tan();
        let tan_x = tan_y * aspect;
        let center = bounds.center();
        let needed = bounds
            .corners()
            .iter()
            .map(|&corner| {
                let c = corner - center;
                let depth = c.dot(forward);
                (c.dot(right).abs() / tan_x - depth).max(c.dot(up).abs() / tan_y - depth)
            })
            .fold(0.0, Real::max);
        (needed * 1.08).max(bounds.radius() * 0.1)
    }

    /// Turn the view by a mouse drag of `dx`, `dy` pixels.
    pub fn rotate(&mut self, dx: Real, dy: Real) {
        self.orbit.yaw -= dx * 0.008;
        self.orbit.pitch = (self.orbit.pitch + dy * 0.008).clamp(-PITCH_LIMIT, PITCH_LIMIT);
    }

    /// Zoom by `steps` wheel notches (positive: closer).
    pub fn zoom(&mut self, steps: Real) {
        self.orbit.distance *= 0.88_f64.powf(steps.clamp(-10.0, 10.0));
    }

    /// Move the target with a drag of `dx`, `dy` pixels in a viewport `height` pixels high,
    /// so that the point under the mouse follows it.
    pub fn pan(&mut self, dx: Real, dy: Real, height: Real) {
        let (right, up, _) = self.axes();
        let per_pixel = 2.0 * self.orbit.distance * (FOVY * 0.5).tan() / height.max(1.0);
        self.orbit.target += (-right * dx + up * dy) * per_pixel;
    }

    /// Return the world length of one pixel at the depth of `point` in a viewport `height`
    /// pixels high.
    #[must_use]
    pub fn pixel_size(&self, point: Vec3, height: Real) -> Real {
        let (_, _, forward) = self.axes();
        let depth = (point - self.eye())
            .dot(forward)
            .max(self.orbit.distance * 1e-3);
        2.0 * depth * (FOVY * 0.5).tan() / height.max(1.0)
    }

    /// Return macroquad's camera for a viewport `(x, y, width, height)` in pixels (from the
    /// bottom left), seeing a scene of radius `scene_radius`.
    #[must_use]
    pub fn camera3d(&self, viewport: (i32, i32, i32, i32), scene_radius: Real) -> Camera3D {
        let (_, up, _) = self.axes();
        let distance = self.orbit.distance;
        let (_, _, w, h) = viewport;
        Camera3D {
            position: v3(self.eye()),
            target: v3(self.orbit.target),
            up: v3(up),
            fovy: FOVY as f32,
            aspect: Some(w.max(1) as f32 / h.max(1) as f32),
            viewport: Some(viewport),
            z_near: (distance * 0.01).max(scene_radius * 1e-5) as f32,
            z_far: (distance + scene_radius * 6.0) as f32,
            ..Camera3D::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_framing_shows_every_corner_of_the_box() {
        let bounds = Aabb {
            min: Vec3::new(-320.0, -320.0, -320.0),
            max: Vec3::new(320.0, 320.0, 320.0),
        };
        let camera = OrbitCamera::framing(&bounds, Vec3::new(0.0, -0.05, 0.0), 1.6);
        let (right, up, forward) = camera.axes();
        let tan_y = (FOVY * 0.5).tan();
        for corner in bounds.corners() {
            let c = corner - camera.eye();
            let depth = c.dot(forward);
            assert!(depth > 0.0);
            assert!(c.dot(up).abs() / depth <= tan_y);
            assert!(c.dot(right).abs() / depth <= tan_y * 1.6);
        }
    }

    #[test]
    fn a_board_thin_front_to_back_is_seen_from_the_front() {
        let bounds = Aabb {
            min: Vec3::new(-0.45, 0.0, -0.01),
            max: Vec3::new(0.45, 2.12, 0.01),
        };
        let camera = OrbitCamera::framing(&bounds, Vec3::new(0.0, -9.81, 0.0), 1.6);
        let (_, _, forward) = camera.axes();
        assert!(forward.dot(-Vec3::Z) > 0.95, "{forward}");
    }

    #[test]
    fn panning_and_zooming_move_the_target_and_the_distance() {
        let bounds = Aabb {
            min: -Vec3::ONE,
            max: Vec3::ONE,
        };
        let mut camera = OrbitCamera::framing(&bounds, Vec3::ZERO, 1.0);
        let d = camera.orbit.distance;
        camera.zoom(1.0);
        assert!((camera.orbit.distance - d * 0.88).abs() < 1e-12);
        camera.pan(10.0, 0.0, 100.0);
        assert!(camera.orbit.target.length() > 0.0);
    }
}
