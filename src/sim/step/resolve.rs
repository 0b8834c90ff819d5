//! Resolving a contact (the impulse, pushing apart an overlap, the event) and holding one after
//! the budget ran out (its moving balls stopped, at rest).

use hecs::Entity;

use super::crowd::CrowdImpact;
use super::predict::Asking;
use super::{ELASTIC_AFTER, HOP, MADE_WITHIN, Step, Stepper};
use crate::geometry::{Proximity, Shape};
use crate::math::{Real, Vec3, ball_energy};
use crate::sim::bodies::{BallMaterial, Motion};
use crate::sim::calendar::Other;
use crate::sim::components::{combine_friction, combine_restitution};
use crate::sim::events::CollisionEvent;
use crate::sim::measure::Touching;
use crate::sim::response::{Body, Response, bounces_end_within, closing, resolve};
use crate::sim::supports::HOLD;
use crate::toi::{PairKind, ToiStrategy};

/// A contact as the response meets it: the ball that asked, what it meets and where, both as
/// bodies of the response.
struct Meeting {
    /// The ball that asked.
    i: usize,
    /// The other ball, where it is one.
    other_ball: Option<usize>,
    /// The static shape, where it is one.
    on_static: Option<usize>,
    /// Where they touch.
    proximity: Proximity,
    /// The ball as the response sees it.
    me: Body,
    /// What it meets as the response sees it.
    other: Body,
    /// The kind of pair, for the event.
    kind: PairKind,
    /// What it meets, for the event.
    entity: Entity,
    /// The restitution of what it meets.
    restitution: Real,
    /// The friction of what it meets.
    friction: Real,
}

/// How a meeting closes: its restitution, the rest speed it is held to, and whether it is a
/// resting contact.
struct Closing {
    /// The restitution of the impact (0 in a collapse).
    e: Real,
    /// A ball of it is in an inelastic collapse (see [`ELASTIC_AFTER`]).
    collapsing: bool,
    /// The rest speed of this contact.
    rest_speed: Real,
    /// A resting contact.
    rests: bool,
}

impl Stepper {
    /// Resolve one event; false when the pair turned out not to be approaching.
    pub(super) fn resolve<S: ToiStrategy + ?Sized>(
        &mut self,
        step: &Step<'_, S>,
        i: usize,
        other: Other,
        now: Real,
    ) -> bool {
        let keeps = self.kept.keeps;
        let mut m = self.meet(step, i, other, now);
        let (other_ball, on_static) = (m.other_ball, m.on_static);
        let Some(Closing {
            e,
            collapsing,
            rest_speed,
            rests,
        }) = self.closing_of(step, &m, now)
        else {
            return false;
        };
        let n = m.proximity.normal;
        // An inelastic impact in a crowd: one impact of all that touch
        let crowd = if e == 0.0 && !rests {
            self.resolve_crowd(step, (i, other), now, collapsing)
        } else {
            CrowdImpact::Declined
        };
        if crowd == CrowdImpact::Resolved {
            return true;
        }
        // (A collapse no crowd takes is met pair by pair at its limit, perfectly inelastic.)
        // Come to rest on a plane or a polygon's face: it moves there in closed form, where it
        // can, from `now` (where paths hold, its path restarts then)
        let restarted = keeps && rests && on_static.is_some();
        if restarted {
            self.balls.advance(i, now);
        }
        if rests
            && let Some(k) = on_static
            && self.lie_on(step, i, k, &m.proximity, now)
        {
            return true;
        }
        // A ball moving on a surface that meets anything else leaves it, and falls from here
        let gravity = self.config.gravity;
        let left =
            [Some(i), other_ball].map(|k| k.filter(|&k| self.balls.leave_surface(k, gravity)));
        let kicks = self.kick_pressed(step, &mut m, rests, now);
        let mu = combine_friction(self.balls.material[i].friction, m.friction);
        let Some(response) = resolve(m.me, m.other, n, (e, mu), rest_speed, rests) else {
            self.fall(step, left, now);
            if restarted {
                self.balls.bump(i);
                self.predict(step, i, now, Asking::Changed { except: None });
            }
            return false;
        };
        let moved = self.apply_response(step, &m, &response, kicks, now);

        self.record(i, (m.entity, m.kind), now, &m.proximity, response.impulse);

        self.predict(step, i, now, Asking::Changed { except: moved });
        if let Some(j) = moved {
            self.predict(step, j, now, Asking::Changed { except: None });
        }
        true
    }

    /// Bring ball `i` and `other` to `now` where their paths restart, and read how they meet.
    fn meet<S: ToiStrategy + ?Sized>(
        &mut self,
        step: &Step<'_, S>,
        i: usize,
        other: Other,
        now: Real,
    ) -> Meeting {
        // Where paths hold, a path restarts only at a change of course, which a stepper taking
        // the world over would see: not for a contact that turns out not to approach. A ball on
        // a surface restarts at once (it leaves the surface, or moves on it, from here): such a
        // step is not calm, so the next starts afresh
        let keeps = self.kept.keeps;
        if !keeps || self.balls.on_surface(i) {
            self.balls.advance(i, now);
        }
        let ball = self.balls.ball_at(i, now);
        let me = self
            .balls
            .response_body(i, now, step.t1, self.config.gravity);

        let (other_ball, on_static) = match other {
            Other::Ball(j) => (Some(j as usize), None),
            Other::Static(k) => (None, Some(k as usize)),
        };
        let (proximity, other, kind, entity, (restitution, friction)) = match other {
            Other::Ball(j) => {
                let j = j as usize;
                if !keeps || self.balls.on_surface(j) {
                    self.balls.advance(j, now);
                }
                (
                    self.balls.ball_at(j, now).proximity(&ball),
                    self.balls
                        .response_body(j, now, step.t1, self.config.gravity),
                    PairKind::BallBall,
                    self.balls.entity[j],
                    (
                        self.balls.material[j].restitution,
                        self.balls.material[j].friction,
                    ),
                )
            }
            Other::Static(k) => {
                let s = &self.statics[k as usize];
                (
                    s.shape.proximity(&ball),
                    Body::SHAPE,
                    s.shape.kind(),
                    s.entity,
                    (s.restitution, s.friction),
                )
            }
        };
        Meeting {
            i,
            other_ball,
            on_static,
            proximity,
            me,
            other,
            kind,
            entity,
            restitution,
            friction,
        }
    }

    /// How meeting `m` closes at `now`; `None` when it does not (neither closing nor pressed
    /// in).
    fn closing_of<S: ToiStrategy + ?Sized>(
        &mut self,
        step: &Step<'_, S>,
        m: &Meeting,
        now: Real,
    ) -> Option<Closing> {
        let (i, other_ball, on_static) = (m.i, m.other_ball, m.on_static);
        let (me, other, restitution) = (&m.me, &m.other, m.restitution);
        // A ball busy beyond ELASTIC_AFTER collisions in this step, with a restitution below
        // 1, is in an inelastic collapse: its impacts take the collapse's limit, perfectly
        // inelastic (with the crowd touching it)
        let busy = |k: usize| self.balls.hits[k] >= ELASTIC_AFTER;
        let combined = combine_restitution(self.balls.material[i].restitution, restitution);
        let collapsing = combined < 1.0 && (busy(i) || other_ball.is_some_and(busy));
        let e = if collapsing { 0.0 } else { combined };
        // Closing, or pressed in by gravity; slower than the rest speed, a resting contact
        let n = m.proximity.normal;
        let theirs = other_ball.map_or((Vec3::ZERO, Vec3::ZERO), |j| {
            (other.velocity, self.balls.body[j].path.acceleration)
        });
        let mine = (me.velocity, self.balls.body[i].path.acceleration);
        let approach = closing(mine, theirs, n, step.rest_speed)?;
        // A resting contact: its bounces end within the step, or, where no acceleration of
        // its own presses a ball into something that holds (a static shape, a sleeper, a ball
        // on its supports), it is slower than the rest speed (the scene's, where set,
        // everywhere)
        let pressing = -(mine.1 - theirs.1).dot(n);
        let lands_on = combined < 1.0 && self.lands_on(step, m, now, (mine.1 - theirs.1, approach));
        // Two balls in flight, owing nothing, meet as they would without gravity: no rest
        // speed. Inelastic ones keep it where either is wedged (in a crowd falling together
        // it ends collapses)
        let gravity = self.config.gravity;
        let flight = other_ball.is_some()
            && mine.1 == gravity
            && theirs.1 == gravity
            && me.owed == Vec3::ZERO
            && other.owed == Vec3::ZERO
            && (combined >= 1.0
                || approach < step.rest_speed
                    && !self.wedged(i, n, now)
                    && other_ball.is_some_and(|j| !self.wedged(j, -n, now)));
        // Thrown at a static shape that gravity does not press it into (a wall, a ceiling), a
        // ball bounces at any speed: no series of bounces ends there. Not where it owes
        // velocity paid in advance, or a ball or shape touching it from the other side drives
        // it (wedged)
        let wall = self.config.rest_speed.is_none()
            && on_static.is_some()
            && pressing <= 0.0
            && gravity.dot(n) >= 0.0
            && me.owed == Vec3::ZERO
            && approach < step.rest_speed
            && !self.wedged(i, n, now);
        let rest_speed = match self.config.rest_speed {
            None if on_static.is_some() && pressing > 0.0 => 0.0,
            None if flight || lands_on || wall => 0.0,
            // An approach an impact in the step made is a real one: no series of bounces
            // under gravity ends it
            None if self.made_here(step, m, now, (approach, pressing)) => 0.0,
            _ => step.rest_speed,
        };
        let series = bounces_end_within(approach, combined, pressing, step.t1 - now);
        // A hop no higher than `HOP` of the radii is none (an elastic ball pressed into
        // a wall would hop there without end, ever more often)
        let reach =
            self.balls.body[i].radius + other_ball.map_or(0.0, |j| self.balls.body[j].radius);
        let unseen = pressing > 0.0 && approach * approach <= 2.0 * pressing * HOP * reach;
        let rests = approach == 0.0 || approach < rest_speed || series || unseen;
        Some(Closing {
            e,
            collapsing,
            rest_speed,
            rests,
        })
    }

    /// True when meeting `m`, closing at `approach` and pressed together at `pressing`, closes
    /// faster, beyond the gravity its balls were paid in advance, than their accelerations
    /// earned since each last changed course in the step and than that gravity: an impact
    /// made the approach. False where a ball of it has not changed course in the step, or has
    /// collided [`MADE_WITHIN`] times in it.
    fn made_here<S: ToiStrategy + ?Sized>(
        &self,
        step: &Step<'_, S>,
        m: &Meeting,
        now: Real,
        (approach, pressing): (Real, Real),
    ) -> bool {
        let changed = |k: usize| {
            let since = self.pairs.changed_in_step(k, step.t0);
            since.filter(|_| self.balls.hits[k] < MADE_WITHIN)
        };
        let Some(mut since) = changed(m.i) else {
            return false;
        };
        if let Some(j) = m.other_ball {
            let Some(other) = changed(j) else {
                return false;
            };
            since = since.max(other);
        }
        // Gravity paid in advance closing the pair
        let paid = (-(m.me.owed - m.other.owed).dot(m.proximity.normal)).max(0.0);
        approach - paid > pressing.max(0.0) * (now - since) + paid + 1e-9 * approach
    }

    /// True when meeting `m`, closing at `approach` and pressed together by `relative`
    /// acceleration at `now`, is a landing: a ball its acceleration presses into the other
    /// (as firmly as a support holds) lands from free flight on what holds like a static
    /// shape.
    fn lands_on<S: ToiStrategy + ?Sized>(
        &self,
        step: &Step<'_, S>,
        m: &Meeting,
        now: Real,
        (relative, approach): (Vec3, Real),
    ) -> bool {
        let (i, other_ball, n, me, other) =
            (m.i, m.other_ball, m.proximity.normal, &m.me, &m.other);
        let pressing = -relative.dot(n);
        // What a ball lands on holds like a static shape where it is no lighter and its own
        // supports or sleep hold it against the push
        let holds = |body: &Body, push: Vec3, lander: &Body| {
            body.inverse_mass <= lander.inverse_mass && body.holds(push)
        };
        // Pressed together along the normal as firmly as a support holds
        let firmly = pressing > HOLD * relative.length();
        // Landing from free flight: no change of course yet in the step, or the approach
        // earned by the pressing since the last one (a series of bounces); not driven by
        // another contact (a ball wedged between two)
        let flies = |k: usize| {
            let since = self.pairs.changed_in_step(k, step.t0);
            since.is_none_or(|since| approach <= pressing * (now - since))
        };
        // The lander is the ball its acceleration presses into the other; what it lands on
        // must hold
        firmly
            && if self.balls.body[i].path.acceleration.dot(n) < 0.0 {
                flies(i) && holds(other, -n, me)
            } else {
                other_ball.is_some_and(flies) && holds(me, n, other)
            }
    }

    /// A resting contact is held by velocities: a ball of meeting `m` that gravity presses
    /// into it gets the rest of the step's gravity at once, as a body of the response, and
    /// goes straight from here. Whether the ball and which other ball were kicked.
    fn kick_pressed<S: ToiStrategy + ?Sized>(
        &self,
        step: &Step<'_, S>,
        m: &mut Meeting,
        rests: bool,
        now: Real,
    ) -> (bool, Option<usize>) {
        let (i, other_ball, n) = (m.i, m.other_ball, m.proximity.normal);
        let acceleration = |k: usize| self.balls.body[k].path.acceleration;
        let presses = |k: usize, into: Vec3| rests && acceleration(k).dot(into) > 0.0;
        let kick_i = presses(i, -n);
        let kick_j = other_ball.filter(|&j| presses(j, n));
        let rest_of_step = step.t1 - now;
        let kick = |k: usize, body: &mut Body| {
            let fall = acceleration(k) * rest_of_step;
            body.owed += fall;
            body.paid = fall;
            body.velocity += fall;
        };
        if kick_i {
            kick(i, &mut m.me);
        }
        if let Some(j) = kick_j {
            kick(j, &mut m.other);
        }
        (kick_i, kick_j)
    }

    /// Apply `response` to meeting `m` at `now`, its balls `kicks` kicked: their velocities,
    /// spins, supports, sleep and overlap. The other ball if it moved (a sleeper that stays
    /// asleep does not).
    fn apply_response<S: ToiStrategy + ?Sized>(
        &mut self,
        step: &Step<'_, S>,
        m: &Meeting,
        response: &Response,
        (kick_i, kick_j): (bool, Option<usize>),
        now: Real,
    ) -> Option<usize> {
        let (i, other_ball, gravity) = (m.i, m.other_ball, self.config.gravity);
        if kick_i {
            self.balls.kick(i, now, step.t1);
        }
        if let Some(j) = kick_j {
            self.balls.kick(j, now, step.t1);
        }
        if self.kept.keeps {
            self.balls.advance(i, now);
            if let Some(j) = other_ball {
                self.balls.advance(j, now);
            }
        }
        if let Some(j) = other_ball {
            self.sleep.links.push((i as u32, j as u32));
        }
        // A sleeping ball holds in a resting contact and sleeps on; a harder hit wakes it, and
        // it falls from here (the asking ball sleeps only when it is a roaming one asking in
        // the first predictions)
        if self.balls.rest[i].asleep() && !response.resting {
            self.balls.rest[i].wake();
            self.balls.body[i].path.acceleration = gravity;
        }
        let moved = other_ball.filter(|&j| {
            let rest = &mut self.balls.rest[j];
            if rest.asleep() && !response.resting {
                rest.wake();
                self.balls.body[j].path.acceleration = gravity;
            }
            !rest.asleep()
        });
        let rest_of_step = step.t1 - now;
        self.balls.body[i].path.velocity = response.velocity_a;
        // Spin that a projection of its resting cluster paid in advance is not earned at a new
        // contact: taken back (its velocity's part, the gravity, the contact owes again)
        self.balls.material[i].spin = response.spin_a;
        self.balls.take_back_spin(i, rest_of_step);
        self.balls.material[i]
            .motion
            .set_owed(owed(response.owed_a, rest_of_step));
        self.balls.bump(i);
        if response.a_rests_on_b {
            self.balls.supports_mut(i).add(m.proximity.normal);
        }
        if response.resting {
            // A sleeping island must rest on a static or on sleepers, never on a moving ball
            let asleep = |k: usize| self.balls.rest[k].asleep();
            let i_grounded = other_ball.is_none_or(asleep);
            let j_grounded = asleep(i);
            self.balls.material[i].resting_hits += 1;
            self.balls.rest[i].grounded |= i_grounded;
            if let Some(j) = other_ball {
                self.balls.material[j].resting_hits += 1;
                self.balls.rest[j].grounded |= j_grounded;
            }
        }
        self.move_other(m, response, moved, rest_of_step);
        moved
    }

    /// Apply `response` to the other ball of meeting `m` where it `moved`, note who pushed
    /// whom, and push apart an overlap (by inverse mass between balls).
    fn move_other(
        &mut self,
        m: &Meeting,
        response: &Response,
        moved: Option<usize>,
        rest_of_step: Real,
    ) {
        let (i, n, depth) = (m.i, m.proximity.normal, m.proximity.depth());
        match moved {
            Some(j) => {
                self.balls.body[j].path.velocity = response.velocity_b;
                self.balls.material[j].spin = response.spin_b;
                self.balls.take_back_spin(j, rest_of_step);
                self.balls.material[j]
                    .motion
                    .set_owed(owed(response.owed_b, rest_of_step));
                self.balls.bump(j);
                // Who pushed whom with gravity paid in advance, for `take_back_pushes`
                let owing = |m: &BallMaterial| matches!(m.motion, Motion::Pushed { .. });
                if owing(&self.balls.material[j]) {
                    self.budget.pushes.push((i as u32, j as u32));
                }
                if owing(&self.balls.material[i]) {
                    self.budget.pushes.push((j as u32, i as u32));
                }
                if response.b_rests_on_a {
                    self.balls.supports_mut(j).add(-n);
                }
                // Push apart an overlap, by inverse mass
                if depth > 0.0 {
                    let (wa, wb) = (m.me.inverse_mass, m.other.inverse_mass);
                    self.balls.body[i].path.origin += n * (depth * wa / (wa + wb));
                    self.balls.body[j].path.origin -= n * (depth * wb / (wa + wb));
                    self.neighbours.relist(j, self.balls.body[j].path.origin);
                    self.neighbours.relist(i, self.balls.body[i].path.origin);
                }
            }
            None if depth > 0.0 => {
                self.balls.body[i].path.origin += n * depth;
                self.neighbours.relist(i, self.balls.body[i].path.origin);
            }
            None => {}
        }
    }

    /// Report a contact of ball `i` with `other` that a projection found pushing at `now`
    /// along `normal` with `impulse`, where `i` touches it; two balls are linked for sleep.
    pub(super) fn report_push(
        &mut self,
        i: usize,
        other: Other,
        now: Real,
        normal: Vec3,
        impulse: Real,
    ) {
        let (entity, kind) = match other {
            Other::Ball(j) => {
                self.sleep.links.push((i as u32, j));
                (self.balls.entity[j as usize], PairKind::BallBall)
            }
            Other::Static(s) => {
                let s = &self.statics[s as usize];
                (s.entity, s.shape.kind())
            }
        };
        let point = self.balls.ball_at(i, now).center - normal * self.balls.body[i].radius;
        let proximity = Proximity {
            distance: 0.0,
            point,
            normal,
        };
        self.record(i, (entity, kind), now, &proximity, impulse);
    }

    /// Report a contact of ball `i` with `other` (an entity of this kind) at `now`, where
    /// `proximity` says, with the normal impulse `impulse`.
    pub(super) fn record(
        &mut self,
        i: usize,
        (other, kind): (Entity, PairKind),
        now: Real,
        proximity: &Proximity,
        impulse: Real,
    ) {
        self.report.stats.count(kind);
        self.report.events.push(CollisionEvent {
            a: self.balls.entity[i],
            b: other,
            kind,
            time: now - self.kept.clock,
            point: proximity.point,
            normal: proximity.normal,
            impulse,
        });
    }

    /// After a contact that turned out not to approach: the pair is left out of predictions
    /// until one of its balls changes course (their paths are as they were), or, where its
    /// paths curve back together, only until it is farthest apart, and asked again from then.
    /// Where each ball keeps only its earliest event, the contact left its balls without one,
    /// so they look again.
    pub(super) fn look_again<S: ToiStrategy + ?Sized>(
        &mut self,
        step: &Step<'_, S>,
        i: usize,
        other: Other,
        now: Real,
    ) {
        // Pressed together with no time left to push them apart: the next step meets them
        // afresh
        let (pressed, after) = self.parting(step, i, other, now);
        self.pairs.declined_may_meet |= pressed || after < step.horizon;
        self.pairs
            .declined
            .push((Touching::new(i as u32, other, &self.balls.counter), after));
        if self.kept.keeps {
            self.predict(step, i, now, Asking::Again);
            if let Other::Ball(j) = other {
                self.predict(step, j as usize, now, Asking::Again);
            }
        } else if after < step.horizon {
            // Every other event of the two is still in the calendar: only this pair is asked
            self.ask(step, i, other, now);
        }
    }

    /// Hold a contact reached after the budget ran out: its moving balls stop where they touch
    /// and end the step at rest there (see [`Stepper::stop`]). Still balls are predicted again,
    /// so balls heading for them stop against them in turn.
    pub(super) fn stop_pair<S: ToiStrategy + ?Sized>(
        &mut self,
        step: &Step<'_, S>,
        i: usize,
        other: Other,
        now: Real,
    ) {
        self.report.stats.events_cap_hits += 1;
        let other = match other {
            Other::Ball(j) => Some(j as usize),
            Other::Static(_) => None,
        };
        let mut stopping = [None; 2];
        for (slot, k) in stopping.iter_mut().zip(std::iter::once(i).chain(other)) {
            if self.stop(k, now, step.t1) {
                *slot = Some(k);
            }
        }
        let [first, second] = stopping;
        if let Some(k) = first {
            self.predict(step, k, now, Asking::Changed { except: second });
        }
        if let Some(k) = second {
            self.predict(step, k, now, Asking::Changed { except: None });
        }
        for k in stopping.into_iter().flatten() {
            self.take_back_pushes(step, k, now);
        }
    }

    /// Take back, at `now`, what ball `k`, stopped, had pushed into the balls it met with gravity
    /// paid in advance, and on down their chains: without its pusher a pushed ball does not earn
    /// what it owes for the rest of the step (it kept it, and a box past its budget gained
    /// 1.8e-4 of its energy). A ball that owes a push of another is taken back too: energy
    /// only goes down.
    fn take_back_pushes<S: ToiStrategy + ?Sized>(
        &mut self,
        step: &Step<'_, S>,
        k: usize,
        now: Real,
    ) {
        if self.budget.pushes.is_empty() {
            return;
        }
        if !self.budget.pushes_sorted {
            self.budget.pushes.sort_unstable();
            self.budget.pushes_sorted = true;
        }
        let mut chain = vec![k as u32];
        while let Some(pusher) = chain.pop() {
            let from = self.budget.pushes.partition_point(|&(p, _)| p < pusher);
            let to = self.budget.pushes.partition_point(|&(p, _)| p <= pusher);
            for x in from..to {
                let j = self.budget.pushes[x].1 as usize;
                let material = &self.balls.material[j];
                let Motion::Pushed { owed } = material.motion else {
                    continue;
                };
                self.balls.advance(j, now);
                self.balls.material[j].motion = Motion::Free;
                self.balls.body[j].path.velocity -= owed * (step.t1 - now);
                self.balls.bump(j);
                self.predict(step, j, now, Asking::Changed { except: None });
                chain.push(j as u32);
            }
        }
    }

    /// Stop ball `k` at `now`, in a step that ends at `t1`: it ends the step at rest where it is,
    /// its velocity and spin zero; the kinetic energy and momentum it had earned then (without the
    /// gravity paid in advance) are added to
    /// [`StepStats::energy_stopped`](crate::StepStats::energy_stopped) and
    /// [`StepStats::momentum_stopped`](crate::StepStats::momentum_stopped). False when it stands
    /// already.
    ///
    /// It keeps no velocity for the next step: the world reports the velocity a ball has, and
    /// it stands. (A kept one started each next step with the contact unresolved: a light ball
    /// jammed under a heavy one reported -1098 while it stood, and ran out the budget again in
    /// every step.)
    fn stop(&mut self, k: usize, now: Real, t1: Real) -> bool {
        let path = &self.balls.body[k].path;
        let still = path.acceleration == Vec3::ZERO && path.velocity == Vec3::ZERO;
        // Already still (where paths hold, its path stays as it began)
        if still && self.kept.keeps {
            return false;
        }
        self.balls.advance(k, now);
        let left = self.balls.leave_surface(k, self.config.gravity);
        if still && !left {
            return false;
        }
        // What it earned: gravity paid in advance for the rest of the step is not
        let (velocity, spin) = self.balls.earned_at(k, now, t1);
        let material = &mut self.balls.material[k];
        material.motion = Motion::Stopped;
        material.spin = Vec3::ZERO;
        let mass = material.inverse_mass.recip();
        let body = &mut self.balls.body[k];
        let stats = &mut self.report.stats;
        stats.energy_stopped += ball_energy(mass, body.radius, velocity, spin);
        stats.momentum_stopped = (stats.momentum_stopped() + mass * velocity).to_array();
        self.budget.stopped.push(k as u32);
        body.path.velocity = Vec3::ZERO;
        body.path.acceleration = Vec3::ZERO;
        self.balls.bump(k);
        true
    }
}

/// What is still owed of `velocity`, as an acceleration paid in advance over the rest of the
/// step (`rest_of_step`).
fn owed(velocity: Vec3, rest_of_step: Real) -> Vec3 {
    if rest_of_step > 0.0 {
        velocity / rest_of_step
    } else {
        Vec3::ZERO
    }
}
