//! Impact flashes and trails, in the spirit of NeHe's explosions, and the rings that show a
//! ball's spin.
//!
//! A flash starts at a contact point of the stepper's events, grows and fades over half a
//! second of frames; at most [`MAX_FLASHES`] live at once (the oldest give way). A trail keeps a
//! ball's recent centres, including where it was at each of its collisions, so a bounce shows
//! as a corner and a ball that passed through something as a straight line.

use std::collections::VecDeque;

use macroquad::color::Color;
use macroquad::math::Vec3 as V3;
use macroquad::models::draw_line_3d;

use super::camera::OrbitCamera;
use super::render::{Batch, billboard, mix, rgba, v3};
use crate::math::{Quat, Real, Vec3, normalize_or};
use crate::sim::CollisionEvent;

/// Most flashes alive at once.
pub(crate) const MAX_FLASHES: usize = 256;
/// How long a flash lives, in seconds of frames.
const FLASH_LIFE: f32 = 0.5;

/// One flash.
#[derive(Clone, Copy, Debug)]
struct Flash {
    point: Vec3,
    /// The radius of the ball that hit: the flash's scale.
    size: Real,
    color: [f32; 3],
    /// Seconds since it started; negative before it starts.
    age: f32,
}

/// The live flashes.
#[derive(Debug, Default)]
pub(crate) struct Flashes {
    live: VecDeque<Flash>,
}

impl Flashes {
    /// Start a flash at `event`'s contact point in `delay` seconds (`>= 0`), scaled to the
    /// ball's `radius`, tinted with its `color`.
    pub fn add(&mut self, event: &CollisionEvent, radius: Real, color: [f32; 3], delay: f32) {
        if self.live.len() == MAX_FLASHES {
            self.live.pop_front();
        }
        self.live.push_back(Flash {
            point: event.point,
            size: radius,
            color: mix(color, [1.0, 0.62, 0.2], 0.6),
            age: -delay,
        });
    }

    /// Age the flashes by `seconds` (the started ones only when `started_only`: while the
    /// drawing stands still, what it has not reached waits) and drop the spent ones.
    pub fn age(&mut self, seconds: f32, started_only: bool) {
        for flash in &mut self.live {
            if flash.age >= 0.0 || !started_only {
                flash.age += seconds;
            }
        }
        self.live.retain(|f| f.age < FLASH_LIFE);
    }

    /// Forget every flash.
    pub fn clear(&mut self) {
        self.live.clear();
    }

    /// Return how many flashes are alive.
    #[cfg(test)]
    #[must_use]
    pub fn len(&self) -> usize {
        self.live.len()
    }

    /// Add the flashes as camera-facing glows to `batch` (the glow material).
    pub fn draw(&self, camera: &OrbitCamera, height: Real, batch: &mut Batch) {
        let (right, up, forward) = camera.axes();
        let (right, up) = (v3(right), v3(up));
        // Back to front: each glow writes depth where it shows
        let eye = camera.eye();
        let mut order: Vec<&Flash> = self.live.iter().filter(|f| f.age >= 0.0).collect();
        order.sort_by(|a, b| {
            b.point
                .distance_squared(eye)
                .total_cmp(&a.point.distance_squared(eye))
        });
        for flash in order {
            let t = flash.age / FLASH_LIFE;
            // At least a few pixels wide, whatever the scale of the scene
            let floor = camera.pixel_size(flash.point, height) * 6.0;
            let half = (flash.size.max(floor) * Real::from(1.0 + 2.5 * t)) as f32;
            let alpha = (1.0 - t) * (1.0 - t);
            // Towards the eye, so the ball it came from does not hide it
            let center = v3(flash.point) - v3(forward) * half * 0.5;
            let color = rgba(flash.color, alpha);
            batch.quad(billboard(center, half, right, up), [color; 4], -v3(forward));
        }
    }
}

/// The trails of every ball.
#[derive(Debug)]
pub(crate) struct Trails {
    points: Vec<VecDeque<Vec3>>,
    /// Points kept per ball.
    length: usize,
}

impl Trails {
    /// Trails for `balls` balls, each `length` points long (at least 2).
    #[must_use]
    pub fn new(balls: usize, length: usize) -> Self {
        Self {
            points: vec![VecDeque::new(); balls],
            length: length.max(2),
        }
    }

    /// Forget every point.
    pub fn clear(&mut self) {
        self.points.iter_mut().for_each(VecDeque::clear);
    }

    /// Add a point to ball `i`'s trail.
    pub fn push(&mut self, i: usize, point: Vec3) {
        let trail = &mut self.points[i];
        if trail.back() == Some(&point) {
            return;
        }
        if trail.len() == self.length {
            trail.pop_front();
        }
        trail.push_back(point);
    }

    /// Add the trails as camera-facing ribbons to `batch` (the flat material), each ending at
    /// the ball's drawn position; `balls` gives per ball the drawn centre, radius and colour,
    /// `passed` the centres at the contacts of the drawn step that the drawing has passed,
    /// by ball (in scene order) then time.
    pub fn draw(
        &self,
        balls: impl Iterator<Item = (Vec3, Real, [f32; 3])>,
        passed: impl Iterator<Item = (usize, Vec3)>,
        camera: &OrbitCamera,
        height: Real,
        batch: &mut Batch,
    ) {
        let eye = camera.eye();
        let mut passed = passed.peekable();
        for (i, (trail, (now, radius, color))) in self.points.iter().zip(balls).enumerate() {
            let corners = std::iter::from_fn(|| passed.next_if(|p| p.0 == i).map(|p| p.1));
            let points: Vec<Vec3> = (trail.iter().copied())
                .chain(corners)
                .chain(std::iter::once(now))
                .collect();
            let n = points.len() - 1;
            if n == 0 {
                continue;
            }
            let width = (radius * 0.35).max(camera.pixel_size(now, height) * 1.2);
            let alpha = |k: usize| 0.75 * (k as f32 / n as f32).powf(1.5);
            for (k, pair) in points.windows(2).enumerate() {
                let (a, b) = (pair[0], pair[1]);
                // Across the segment, in the plane facing the eye
                let side = normalize_or((b - a).cross(eye - a), Vec3::ZERO) * width;
                let (from, to) = (rgba(color, alpha(k)), rgba(color, alpha(k + 1)));
                batch.quad(
                    [v3(a - side), v3(a + side), v3(b + side), v3(b - side)],
                    [from, from, to, to],
                    V3::Z,
                );
            }
        }
    }
}

/// Draw the equator and a meridian of a ball turned by `orientation`, just outside its surface,
/// as lines with the material in use: the ball's near half hides their far half, and their
/// turning shows the spin.
pub(crate) fn spin_rings(center: Vec3, radius: Real, orientation: Quat) {
    const SEGMENTS: u32 = 48;
    let color = Color::new(0.08, 0.08, 0.1, 0.85);
    let r = radius * 1.004;
    for (u, w) in [(Vec3::X, Vec3::Y), (Vec3::X, Vec3::Z)] {
        let at = |k: u32| {
            let angle = std::f64::consts::TAU * Real::from(k) / Real::from(SEGMENTS);
            v3(center + orientation * (u * angle.cos() + w * angle.sin()) * r)
        };
        for k in 0..SEGMENTS {
            draw_line_3d(at(k), at(k + 1), color);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toi::PairKind;

    #[test]
    fn at_most_256_flashes_live_and_they_fade_out() {
        let event = CollisionEvent {
            a: hecs::Entity::DANGLING,
            b: hecs::Entity::DANGLING,
            kind: PairKind::BallPlane,
            time: 0.0,
            point: Vec3::ZERO,
            normal: Vec3::Y,
            impulse: 1.0,
        };
        let mut flashes = Flashes::default();
        for _ in 0..1000 {
            flashes.add(&event, 1.0, [1.0, 1.0, 1.0], 0.0);
        }
        assert_eq!(flashes.len(), MAX_FLASHES);
        flashes.age(FLASH_LIFE * 0.5, false);
        assert_eq!(flashes.len(), MAX_FLASHES);
        flashes.age(FLASH_LIFE * 0.5, false);
        assert_eq!(flashes.len(), 0);
        // A flash that waits for the drawing does not start while it stands still
        flashes.add(&event, 1.0, [1.0, 1.0, 1.0], 0.2);
        flashes.age(1.0, true);
        assert_eq!(flashes.len(), 1);
        flashes.age(0.2 + FLASH_LIFE + 0.01, false);
        assert_eq!(flashes.len(), 0);
    }

    #[test]
    fn a_trail_keeps_its_last_points() {
        let mut trails = Trails::new(1, 3);
        for k in 0..5 {
            trails.push(0, Vec3::splat(f64::from(k)));
        }
        trails.push(0, Vec3::splat(4.0));
        let kept: Vec<f64> = trails.points[0].iter().map(|p| p.x).collect();
        assert_eq!(kept, vec![2.0, 3.0, 4.0]);
    }
}
