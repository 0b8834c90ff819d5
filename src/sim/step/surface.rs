//! Balls lying on a plane or a polygon's face: their motion there in closed form (see
//! [`surface`](crate::sim::surface)), its changes of state as events, and falling from it.
//!
//! A ball comes to lie on a plane in a resting contact with it. It moves there in closed form
//! where the plane (or the polygon's face, the ball's centre over it) is what gravity presses
//! it into, it has friction there or the plane is a slope, it rests on nothing else, it pays
//! no gravity in advance (it was not kicked in this step) and it has not left a surface in this
//! step; elsewhere the resting contact holds it step by step, as any other (see
//! [`response`](crate::sim::response)). Its path is a parabola in the plane, so the queries
//! find its contacts with everything else as for any falling ball; its next change of state,
//! or its centre passing over an edge of a polygon, is an event of the calendar
//! ([`Happening::Turn`]). Any other contact takes it off the surface at once, as does an
//! edge; it falls from there, finds the shape again at the same instant and is held step by
//! step for the rest of the step. Each step starts afresh: nothing is kept.

use super::predict::Asking;
use super::{Step, Stepper};
use crate::geometry::{ConvexPolygon, Proximity, StaticShape};
use crate::math::{Real, Vec3};
use crate::sim::bodies::{Ending, Lying, Motion, NONE, Trajectory};
use crate::sim::calendar::Happening;
use crate::sim::components::combine_friction;
use crate::sim::response::land;
use crate::sim::surface::{Surface, SurfaceMotion, after, plan, slopes};
use crate::toi::ToiStrategy;

/// Changes of course of a ball in a step (collisions and changes of state on a surface) after
/// which its motion on a surface goes on step by step: a bound on the events a step spends on
/// it, whatever rounding does to the changes (three follow each other at most, in exact
/// arithmetic: the slip, the speed, the spin about the normal).
const MAX_TURNS: u32 = 16;

impl Stepper {
    /// Put ball `i`, advanced to `now` and in a resting contact `proximity` with static `k`,
    /// on its motion there in closed form, if it can take one (see the module's docs); false
    /// to hold it step by step instead, with nothing changed.
    pub(super) fn lie_on<S: ToiStrategy + ?Sized>(
        &mut self,
        step: &Step<'_, S>,
        i: usize,
        k: usize,
        proximity: &Proximity,
        now: Real,
    ) -> bool {
        let gravity = self.config.gravity;
        let s = &self.statics[k];
        let body = &self.balls.body[i];
        let n = match &s.shape {
            StaticShape::Plane(plane) => plane.normal,
            StaticShape::Polygon(polygon) => match on_face(polygon, proximity, body.path.origin) {
                Some(n) => n,
                None => return false,
            },
            StaticShape::Cylinder(_) => return false,
        };
        let material = &self.balls.material[i];
        let friction = combine_friction(material.friction, s.friction);
        let free = material.motion == Motion::Free
            && material.surface == NONE
            && body.path.acceleration == gravity
            && !self.balls.rest[i].asleep()
            && self.balls.hits[i] < MAX_TURNS;
        // Not pressed in, resting on more than the plane (its supports and touches within 2.6°
        // of the normal, as supports count as the same; a face's own normal is matched to
        // rounding in `on_face`), or frictionless on the level (where holding it step by step
        // is exact: nothing acts along the plane)
        let moves = friction > 0.0 || slopes(gravity, n);
        if !(free && moves && gravity.dot(n) < 0.0 && self.balls.supports(i).only_along(n)) {
            return false;
        }
        let surface = Surface {
            normal: n,
            gravity,
            friction,
            rolling_resistance: material.rolling_resistance,
            radius: body.radius,
        };
        let inverse_mass = material.inverse_mass;
        let (v, w, landing) = land(
            (body.path.velocity, material.spin),
            (body.radius, inverse_mass),
            n,
            friction,
        );
        // Across a slope
        let Some(motion) = plan(v, w, &surface) else {
            return false;
        };

        let place = self.balls.surfaces.len() as u32;
        self.balls.surfaces.push(Lying {
            shape: k as u32,
            surface,
            spin_rate: Vec3::ZERO,
            ends: None,
        });
        self.balls.material[i].surface = place;
        self.balls.material[i].motion = Motion::OnSurface;
        let depth = proximity.depth();
        if depth > 0.0 {
            self.balls.body[i].path.origin += n * depth;
            self.neighbours.relist(i, self.balls.body[i].path.origin);
        }
        let material = &mut self.balls.material[i];
        material.resting_hits += 1;
        self.balls.rest[i].grounded = true;
        self.balls.supports_mut(i).add(n);
        // What the plane gives: the landing, and gravity's push into it to the step's end
        let pressed = -gravity.dot(n) * (step.t1 - now) / inverse_mass;
        let other = (s.entity, s.shape.kind());
        self.record(i, other, now, proximity, landing + pressed);
        self.take_on(step, i, &motion, now);
        true
    }

    /// Change the state of ball `i`'s motion on its surface at `now`, as its last one
    /// foretold: on to the next state in closed form, or off the surface where the next has
    /// none (held step by step for the rest of the step).
    pub(super) fn turn<S: ToiStrategy + ?Sized>(
        &mut self,
        step: &Step<'_, S>,
        i: usize,
        now: Real,
    ) {
        if self.balls.material[i].motion != Motion::OnSurface {
            return;
        }
        let place = self.balls.material[i].surface;
        self.balls.advance(i, now);
        let lying = self.balls.surfaces[place as usize];
        // Past the turns a step allows, held step by step like a busy ball; off a face's edge,
        // or into a state without a closed form, held step by step too
        let busy = self.balls.hits[i] >= MAX_TURNS;
        let next = match lying.ends {
            Some(Ending::Change(change)) if !busy => {
                let (v, w) = after(
                    change,
                    self.balls.body[i].path.velocity,
                    self.balls.material[i].spin,
                    &lying.surface,
                );
                self.balls.body[i].path.velocity = v;
                self.balls.material[i].spin = w;
                plan(v, w, &lying.surface)
            }
            Some(_) => None,
            None => return,
        };
        match next {
            Some(motion) => self.take_on(step, i, &motion, now),
            None => {
                self.balls.leave_surface(i, self.config.gravity);
                self.fall(step, [Some(i), None], now);
            }
        }
    }

    /// Give ball `i`, on a surface and advanced to `now`, the motion `motion` from there:
    /// its path and spin, its next change of state in the calendar if it comes in the step,
    /// and its predictions.
    fn take_on<S: ToiStrategy + ?Sized>(
        &mut self,
        step: &Step<'_, S>,
        i: usize,
        motion: &SurfaceMotion,
        now: Real,
    ) {
        assert_eq!(
            self.balls.material[i].motion,
            Motion::OnSurface,
            "a ball takes on a motion on a surface it lies on"
        );
        let place = self.balls.material[i].surface;
        let path = &mut self.balls.body[i].path;
        path.velocity = motion.velocity;
        path.acceleration = motion.acceleration;
        self.balls.material[i].spin = motion.spin;
        self.balls.bump(i);
        let lying = &mut self.balls.surfaces[place as usize];
        lying.spin_rate = motion.spin_rate;
        // The change of state, or where the face ends, whichever comes first in the step
        let change = motion
            .next
            .map(|(after, change)| (now + after, Ending::Change(change)));
        let off = match &self.statics[lying.shape as usize].shape {
            StaticShape::Polygon(polygon) => off_face(polygon, &self.balls.body[i].path, now)
                .map(|t| (t, Ending::OffFace))
                .filter(|&(t, _)| change.is_none_or(|(c, _)| t < c)),
            _ => None,
        };
        let next = off.or(change).filter(|&(t, _)| t <= step.horizon);
        lying.ends = next.map(|(_, ends)| ends);
        if let Some((time, _)) = next {
            self.calendar
                .push(time, i as u32, Happening::Turn, &self.balls.counter);
        }
        self.predict(step, i, now, Asking::Changed { except: None });
    }

    /// Let the balls of `left` that left a surface at `now` in a contact that then did nothing
    /// fall from there: their paths changed, so they predict again.
    pub(super) fn fall<S: ToiStrategy + ?Sized>(
        &mut self,
        step: &Step<'_, S>,
        left: [Option<usize>; 2],
        now: Real,
    ) {
        for k in left.into_iter().flatten() {
            self.balls.bump(k);
        }
        match left {
            [Some(a), Some(b)] => {
                self.predict(step, a, now, Asking::Changed { except: Some(b) });
                self.predict(step, b, now, Asking::Changed { except: None });
            }
            [Some(k), None] | [None, Some(k)] => {
                self.predict(step, k, now, Asking::Changed { except: None });
            }
            [None, None] => {}
        }
    }
}

/// Return the normal of `polygon`'s face towards a ball centred at `centre` in contact
/// `proximity` with it, when the contact is with the face: its normal is the face's, and the
/// centre lies over the face, not over an edge or beyond.
fn on_face(polygon: &ConvexPolygon, proximity: &Proximity, centre: Vec3) -> Option<Vec3> {
    let normal = polygon.normal();
    let n = if proximity.normal.dot(normal) > 0.0 {
        normal
    } else {
        -normal
    };
    let inside = polygon
        .edges()
        .all(|(a, b)| normal.dot((b - a).cross(centre - a)) > 0.0);
    (proximity.normal.dot(n) > 1.0 - 1e-12 && inside).then_some(n)
}

/// Return when the centre of a ball on `path`, lying on `polygon`'s face, first passes over
/// one of its edges at or after `now`: the outward crossing of each edge's line in the plane.
fn off_face(polygon: &ConvexPolygon, path: &Trajectory, now: Real) -> Option<Real> {
    let normal = polygon.normal();
    polygon
        .edges()
        .filter_map(|(a, b)| {
            // Outward in the plane: the vertices wind counter-clockwise about the normal
            let out = (b - a).cross(normal).normalize();
            let along = |v: Vec3| Vec3::new(v.dot(out), 0.0, 0.0);
            let line = Trajectory {
                origin: along(path.origin - a),
                velocity: along(path.velocity),
                acceleration: along(path.acceleration),
                time: path.time,
            };
            line.crosses(0, 0.0, true, now)
        })
        .min_by(Real::total_cmp)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The unit square in the plane y = 1, wound either way.
    fn square(flip: bool) -> ConvexPolygon {
        let mut v = vec![
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(0.0, 1.0, 1.0),
            Vec3::new(1.0, 1.0, 1.0),
            Vec3::new(1.0, 1.0, 0.0),
        ];
        if flip {
            v.reverse();
        }
        ConvexPolygon::new(v).unwrap()
    }

    #[test]
    fn a_ball_over_the_face_lies_on_it_one_over_an_edge_does_not() {
        for flip in [false, true] {
            let s = square(flip);
            let touch = |centre: Vec3, normal: Vec3| Proximity {
                distance: 0.0,
                point: centre - normal * 0.1,
                normal,
            };
            let above = Vec3::new(0.5, 1.1, 0.5);
            assert_eq!(on_face(&s, &touch(above, Vec3::Y), above), Some(Vec3::Y));
            let below = Vec3::new(0.5, 0.9, 0.5);
            assert_eq!(on_face(&s, &touch(below, -Vec3::Y), below), Some(-Vec3::Y));
            // Over an edge, or touching the edge from beside it
            let edge = Vec3::new(1.0, 1.1, 0.5);
            assert_eq!(on_face(&s, &touch(edge, Vec3::Y), edge), None);
            let beside = Vec3::new(1.05, 1.05, 0.5);
            let slanted = Vec3::new(1.0, 1.0, 0.0).normalize();
            assert_eq!(on_face(&s, &touch(beside, slanted), beside), None);
        }
    }

    #[test]
    fn a_ball_on_the_face_passes_over_the_edge_it_heads_for() {
        // From (0.25, _, 0.5) at 1 along x, slowed by 0.5: x = 0.25 + t - t^2/4 reaches 1 at
        // t = 2 - sqrt(4 - 3) = 1; along z at 2 it passes z = 1 at 0.25; a still ball never
        // does
        let path = |velocity: Vec3, acceleration: Vec3| Trajectory {
            origin: Vec3::new(0.25, 1.1, 0.5),
            velocity,
            acceleration,
            time: 3.0,
        };
        for flip in [false, true] {
            let s = square(flip);
            let t = off_face(&s, &path(Vec3::X, Vec3::X * -0.5), 3.0).unwrap();
            assert!((t - 4.0).abs() < 1e-15, "{t}");
            let t = off_face(&s, &path(Vec3::Z * 2.0, Vec3::ZERO), 3.0).unwrap();
            assert!((t - 3.25).abs() < 1e-15, "{t}");
            let t = off_face(&s, &path(Vec3::ZERO, Vec3::ZERO), 3.0);
            assert!(t.is_none(), "{t:?}");
        }
    }
}
