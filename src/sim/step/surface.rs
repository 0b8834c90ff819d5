//! Balls lying on a plane: their motion there in closed form (see
//! [`surface`](crate::sim::surface)), its changes of state as events, and falling from it.
//!
//! A ball comes to lie on a plane in a resting contact with it. It moves there in closed form
//! where the plane is what gravity presses it into, their friction is above zero, it rests on
//! nothing else, it pays no gravity in advance (it was not kicked in this step) and it has not
//! left a surface in this step; elsewhere the resting contact holds it step by step, as any
//! other (see [`response`](crate::sim::response)). Its path is a parabola in the plane, so
//! the queries find its contacts with everything else as for any falling ball; its next change
//! of state is an event of the calendar ([`Happening::Turn`]). Any other contact takes it off
//! the surface at once; it falls from there, finds the plane again at the same instant and is
//! held step by step for the rest of the step. Each step starts afresh: nothing is kept.

use super::Stepper;
use super::predict::Asking;
use crate::geometry::{Proximity, StaticShape};
use crate::math::{Real, Vec3};
use crate::sim::bodies::{Lying, OnSurface};
use crate::sim::calendar::Happening;
use crate::sim::components::combine_friction;
use crate::sim::response::land;
use crate::sim::surface::{Surface, SurfaceMotion, after, plan};
use crate::toi::ToiStrategy;

impl Stepper {
    /// Put ball `i`, advanced to `now` and in a resting contact `proximity` with static `k`,
    /// on its motion there in closed form, if it can take one (see the module's docs); false
    /// to hold it step by step instead, with nothing changed.
    pub(super) fn lie_on<S: ToiStrategy + ?Sized>(
        &mut self,
        i: usize,
        k: usize,
        proximity: &Proximity,
        now: Real,
        t_end: Real,
        strategy: &S,
    ) -> bool {
        let gravity = self.config.gravity;
        let s = &self.statics[k];
        let StaticShape::Plane(plane) = &s.shape else {
            return false;
        };
        let n = plane.normal;
        let material = &self.balls.material[i];
        let body = &self.balls.body[i];
        let friction = combine_friction(material.friction, s.friction);
        let free = material.surface == OnSurface::No
            && material.owed == Vec3::ZERO
            && !material.kicked
            && body.path.acceleration == gravity
            && !self.balls.rest[i].asleep();
        // Frictionless, not pressed in, or resting on more than the plane
        if !(free && friction > 0.0 && gravity.dot(n) < 0.0 && self.balls.supports(i).only_along(n))
        {
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
            surface,
            spin_rate: Vec3::ZERO,
            change: None,
        });
        self.balls.material[i].surface = OnSurface::Moving(place);
        let depth = proximity.depth();
        if depth > 0.0 {
            self.balls.body[i].path.origin += n * depth;
            self.neighbours.relist(i, self.balls.body[i].path.origin);
        }
        let material = &mut self.balls.material[i];
        material.resting_hits += 1;
        material.supported = true;
        self.balls.supports_mut(i).add(n);
        // What the plane gives: the landing, and gravity's push into it to the step's end
        let pressed = -gravity.dot(n) * (self.step_end - now) / inverse_mass;
        let other = (s.entity, s.shape.kind());
        self.record(i, other, now, proximity, landing + pressed);
        self.take_on(i, &motion, now, t_end, strategy);
        true
    }

    /// Change the state of ball `i`'s motion on its surface at `now`, as its last one
    /// foretold: on to the next state in closed form, or off the surface where the next has
    /// none (held step by step for the rest of the step).
    pub(super) fn turn<S: ToiStrategy + ?Sized>(
        &mut self,
        i: usize,
        now: Real,
        t_end: Real,
        strategy: &S,
    ) {
        let OnSurface::Moving(place) = self.balls.material[i].surface else {
            return;
        };
        self.balls.advance(i, now);
        let lying = self.balls.surfaces[place as usize];
        let Some(change) = lying.change else {
            return;
        };
        let (v, w) = after(
            change,
            self.balls.body[i].path.velocity,
            self.balls.material[i].spin,
            &lying.surface,
        );
        self.balls.body[i].path.velocity = v;
        self.balls.material[i].spin = w;
        match plan(v, w, &lying.surface) {
            Some(motion) => self.take_on(i, &motion, now, t_end, strategy),
            None => {
                self.balls.leave_surface(i, self.config.gravity);
                self.fall([Some(i), None], now, t_end, strategy);
            }
        }
    }

    /// Give ball `i`, on a surface and advanced to `now`, the motion `motion` from there:
    /// its path and spin, its next change of state in the calendar if it comes in the step,
    /// and its predictions.
    fn take_on<S: ToiStrategy + ?Sized>(
        &mut self,
        i: usize,
        motion: &SurfaceMotion,
        now: Real,
        t_end: Real,
        strategy: &S,
    ) {
        let OnSurface::Moving(place) = self.balls.material[i].surface else {
            unreachable!("a ball takes on a motion on a surface it lies on");
        };
        let lying = &mut self.balls.surfaces[place as usize];
        lying.spin_rate = motion.spin_rate;
        lying.change = motion.next.map(|(_, change)| change);
        let path = &mut self.balls.body[i].path;
        path.velocity = motion.velocity;
        path.acceleration = motion.acceleration;
        self.balls.material[i].spin = motion.spin;
        self.balls.bump(i);
        if let Some((after, _)) = motion.next
            && now + after <= t_end
        {
            self.calendar
                .push(now + after, i as u32, Happening::Turn, &self.balls.counter);
        }
        self.predict(i, now, t_end, strategy, Asking::Changed { except: None });
    }

    /// Let the balls of `left` that left a surface at `now` in a contact that then did nothing
    /// fall from there: their paths changed, so they predict again.
    pub(super) fn fall<S: ToiStrategy + ?Sized>(
        &mut self,
        left: [Option<usize>; 2],
        now: Real,
        t_end: Real,
        strategy: &S,
    ) {
        for k in left.into_iter().flatten() {
            self.balls.bump(k);
        }
        match left {
            [Some(a), Some(b)] => {
                self.predict(a, now, t_end, strategy, Asking::Changed { except: Some(b) });
                self.predict(b, now, t_end, strategy, Asking::Changed { except: None });
            }
            [Some(k), None] | [None, Some(k)] => {
                self.predict(k, now, t_end, strategy, Asking::Changed { except: None });
            }
            [None, None] => {}
        }
    }
}
