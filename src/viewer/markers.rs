//! The judge's verdicts, drawn: a ball with a fault (it escaped, or passed into or through
//! something) gets a ring around it and the path it took in the step in which the fault was
//! found, both in [`FAULT`]. The path grows with the drawn ball through that step, and the
//! ring shows once the drawing has passed its end. Nothing else in the viewer takes that colour, and the ball keeps
//! its own, so a red ball is never mistaken for a fault.
//!
//! The viewer only draws what [`Judge`](crate::judge::Judge) reports; the paths are the
//! centres before and after the step, which the pane keeps.

use macroquad::math::Vec3 as V3;

use super::camera::OrbitCamera;
use super::render::{Batch, rgba, v3};
use crate::math::{Real, Vec3, normalize_or};

/// The colour of a fault, and of nothing else: a vivid magenta.
pub(crate) const FAULT: [f32; 3] = [1.0, 0.2, 0.85];
/// Segments of a ring.
const RING_SEGMENTS: u16 = 32;
/// A ring's radius: this many ball radii, and at least [`RING_PIXELS`].
const RING_RADII: Real = 1.8;
/// A ring's least radius on the screen, in pixels.
const RING_PIXELS: Real = 9.0;

/// A ball with a fault, as drawn.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Marked {
    /// The ball's drawn centre.
    pub center: Vec3,
    /// Its radius.
    pub radius: Real,
    /// Its path in the step in which the fault was found, as far as the drawing has come.
    pub path: (Vec3, Vec3),
    /// The drawing has passed the end of that step: the ring shows.
    pub ring: bool,
}

/// Add the rings and paths of `marked` balls to `batch` (the flat material), seen by
/// `camera` in a viewport `height` pixels high.
pub(crate) fn draw(marked: &[Marked], camera: &OrbitCamera, height: Real, batch: &mut Batch) {
    let eye = camera.eye();
    let (right, up, _) = camera.axes();
    let pixel = |p: Vec3| camera.pixel_size(p, height);
    let line = rgba(FAULT, 0.7);
    let ring_color = rgba(FAULT, 0.95);
    for m in marked {
        let (a, b) = m.path;
        ribbon(batch, (a, pixel(a)), (b, pixel(b)), eye, line);
        if !m.ring {
            continue;
        }
        let p = pixel(m.center);
        let radius = (m.radius * RING_RADII).max(p * RING_PIXELS);
        let width = (radius * 0.15).max(p * 2.0);
        ring(batch, m.center, radius, width, (right, up), ring_color);
    }
}

/// Add a flat ribbon from `a` to `b` facing `eye`, each end `(point, half width)`.
fn ribbon(batch: &mut Batch, a: (Vec3, Real), b: (Vec3, Real), eye: Vec3, color: [u8; 4]) {
    let side = normalize_or((b.0 - a.0).cross(eye - a.0), Vec3::ZERO);
    let (sa, sb) = (side * a.1, side * b.1);
    batch.quad(
        [v3(a.0 - sa), v3(a.0 + sa), v3(b.0 + sb), v3(b.0 - sb)],
        [color; 4],
        V3::Z,
    );
}

/// Add a camera-facing ring of `radius` (to the middle of its band) and `width` around
/// `center`; `axes` are the camera's unit right and up.
fn ring(
    batch: &mut Batch,
    center: Vec3,
    radius: Real,
    width: Real,
    (right, up): (Vec3, Vec3),
    color: [u8; 4],
) {
    let (inner, outer) = (radius - 0.5 * width, radius + 0.5 * width);
    let at = |k: u16, r: Real| {
        let angle = std::f64::consts::TAU * Real::from(k) / Real::from(RING_SEGMENTS);
        v3(center + (right * angle.cos() + up * angle.sin()) * r)
    };
    let normal = v3(right.cross(up));
    for k in 0..RING_SEGMENTS {
        let quad = [
            at(k, inner),
            at(k, outer),
            at(k + 1, outer),
            at(k + 1, inner),
        ];
        batch.quad(quad, [color; 4], normal);
    }
}
