//! Crowds: an inelastic impact of a ball that touches others (balls or static shapes), resolved
//! as one impact of the whole touching cluster.
//!
//! A perfectly inelastic impact (restitution 0) met pair by pair in a crowd collapses without
//! end: a light ball between two heavy ones closing on it bounces between them ever faster
//! (inelastic collapse, McNamara and Young 1994), and a rule that bounds it by elastic
//! impacts (the TC model) turns the collapse into rebounds. Resolved as one impact, the
//! velocities of the balls touching the pair (and those touching them) become the nearest in
//! kinetic energy that close no contact: the projection of `sim::cluster`, Moreau's impact
//! law with restitution 0 on every contact at once. A crowd at restitution 0 ends moving as
//! one, and neither the kinetic energy nor that relative to the centre of mass rises (a
//! projection on a cone that holds every common velocity). Newton's cradle is elastic, so it never comes here: its impacts run pair
//! by pair and it keeps one ball in, one ball out.
//!
//! Under gravity the impact acts on what each ball has earned: a ball going straight after a
//! kick, or pushed by one, has paid `owed (t1 - now)` of its velocity in advance (see
//! `Motion`), and that part is left out. A ball whose earned velocity the impact changes gives
//! back what it paid in advance and falls from there on its parabola (a ball on a surface in
//! closed form leaves it); the others go on as they were. An impact at one instant is exact
//! whatever the paths before and after. Contacts with friction are solved with Coulomb's cone
//! and the spins (see `cluster::project_rough_cluster`), started from the frictionless answer.
//!
//! The same one impact ends an inelastic collapse: a ball past
//! [`ELASTIC_AFTER`](super::ELASTIC_AFTER) changes of course in a step collides perfectly
//! inelastically, the limit of the collapse (its relative speeds go to zero; McNamara and Young
//! 1994), with the crowd touching it, elastic contacts included: a light ball that an elastic
//! heavy one presses into a dead wall takes all the heavy one's speed there, round after round,
//! and the limit is both at rest. Where no crowd takes it, pair by pair (see `ELASTIC_AFTER`).

use super::predict::Asking;
use super::{Step, Stepper};
use crate::geometry::{Ball, Proximity, Shape};
use crate::math::{Real, Vec3, ball_energy};
use crate::sim::bodies::Motion;
use crate::sim::calendar::Other;
use crate::sim::cluster::{
    Contact, RoughBalls, Settled, project_cluster, project_rough_cluster, residual, rough_residual,
};
use crate::sim::components::{combine_friction, combine_restitution};
use crate::sim::supports::HOLD;
use crate::toi::ToiStrategy;

/// Gaps, relative to the radii, within which two balls touch in a crowd.
const TOUCH: Real = 1e-9;

/// Balls in a crowd at most; a larger one is met pair by pair.
const MAX_CROWD: usize = 64;

/// Sweeps of the projection at most (and of its friction, after it).
const SWEEPS: usize = 4096;

/// What a projection may leave closing or parting, relative to the crowd's fastest speed: the
/// exact solve on its pushing contacts loses about the mass ratio's square root in digits (a
/// light ball between two a million times heavier leaves 1e-10 of the speeds).
const TOLERANCE: Real = 1e-9;

/// What became of an impact offered to a crowd (see [`Stepper::resolve_crowd`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum CrowdImpact {
    /// Resolved as one impact of the crowd.
    Resolved,
    /// Not a crowd (the pair does not touch, or a ball is asleep, ...), or its solve did not
    /// settle: nothing changed.
    Declined,
}

/// Scratch of a crowd.
#[derive(Debug, Default)]
pub(super) struct Crowd {
    balls: Vec<u32>,
    /// Per ball: its velocity and spin at the impact, then after it; inverse mass, radius.
    before: Vec<(Vec3, Vec3)>,
    velocity: Vec<Vec3>,
    spin: Vec<Vec3>,
    inverse_mass: Vec<Real>,
    radius: Vec<Real>,
    contacts: Vec<Contact>,
    others: Vec<Other>,
    /// Per contact: its friction, its normal impulse, and its impulse with friction.
    friction: Vec<Real>,
    impulse: Vec<Real>,
    rough_impulse: Vec<Vec3>,
    found: Vec<Other>,
    /// The balls whose velocity or spin the impact changed.
    changed: Vec<u32>,
    /// The gap within which its balls touch, beyond [`TOUCH`] (a length): a sampled search's
    /// in a collapse, else zero.
    slack: Real,
}

impl Crowd {
    /// Stop each ball whose velocity, or the speed of its surface by its spin, is below
    /// `rounding`: the rounding of the crowd's fastest speed, which the solve leaves where it
    /// should be none (a ball stopped in a corner would meet its walls again at that speed,
    /// ever slower, without end).
    fn stop_below(&mut self, rounding: Real) {
        for k in 0..self.velocity.len() {
            if self.velocity[k].length() <= rounding {
                self.velocity[k] = Vec3::ZERO;
            }
            if self.spin[k].length() * self.radius[k] <= rounding {
                self.spin[k] = Vec3::ZERO;
            }
        }
    }

    /// Whether its impact changes a ball's velocity, or the speed of its surface by its spin,
    /// by more than `tolerance`.
    fn moves(&self, tolerance: Real) -> bool {
        let changes = |k: usize| {
            let (v, w) = self.before[k];
            (self.velocity[k] - v).length() > tolerance
                || (self.spin[k] - w).length() * self.radius[k] > tolerance
        };
        (0..self.before.len()).any(changes)
    }
}

impl Stepper {
    /// Resolve the impact of ball `i` and `other` at `now` as one perfectly inelastic impact of
    /// the crowd touching them; where it is not such a crowd nothing changes: the pair does not
    /// touch, or a ball is asleep, a contact has a restitution above 0 (where not
    /// `collapsing`), the pair is all, the crowd is too large, or its solve does not settle.
    pub(super) fn resolve_crowd<S: ToiStrategy + ?Sized>(
        &mut self,
        step: &Step<'_, S>,
        (i, other): (usize, Other),
        now: Real,
        collapsing: bool,
    ) -> CrowdImpact {
        let mut c = std::mem::take(&mut self.scratch.crowd);
        let sampled = !step.strategy.misses_are_certain();
        let found = self.find_crowd(&mut c, (i, other), now, (collapsing, sampled));
        let impact = if found == CrowdImpact::Resolved && !self.project_crowd(&mut c, now, step.t1)
        {
            CrowdImpact::Declined
        } else {
            found
        };
        if impact == CrowdImpact::Resolved {
            self.apply_crowd(step, &mut c, now);
        }
        self.scratch.crowd = c;
        impact
    }

    /// Gather the balls touching `i` and `other` at `now`, and those touching them, with the
    /// contacts among them and with statics: [`CrowdImpact::Resolved`] where they are a crowd
    /// to solve, else declined: the pair does not touch (where not `collapsing` in a world of a
    /// `sampled` search, whose meetings are apart or overlapping), a ball is asleep, a contact
    /// has a restitution (where not `collapsing`), the pair is all, or the crowd grows past
    /// [`MAX_CROWD`].
    fn find_crowd(
        &mut self,
        c: &mut Crowd,
        (i, other): (usize, Other),
        now: Real,
        (collapsing, sampled): (bool, bool),
    ) -> CrowdImpact {
        // The pair itself must touch (balls placed overlapping are met pair by pair). A sampled
        // search meets a pair apart or overlapping: in a collapse its crowd is what lies within
        // that gap
        let me = self.balls.ball_at(i, now);
        c.slack = 0.0;
        if self.touch(&me, other, now, 0.0).is_none() {
            if !(collapsing && sampled) {
                return CrowdImpact::Declined;
            }
            c.slack = self.gap(&me, other, now).abs();
        }
        c.balls.clear();
        c.contacts.clear();
        c.others.clear();
        c.friction.clear();
        c.balls.push(i as u32);
        if let Other::Ball(j) = other {
            c.balls.push(j);
        }
        let mut next = 0;
        while next < c.balls.len() {
            let k = c.balls[next] as usize;
            next += 1;
            if self.balls.rest[k].asleep() {
                return CrowdImpact::Declined;
            }
            if !self.touching_contacts(c, next - 1, now, collapsing) {
                return CrowdImpact::Declined;
            }
            if c.balls.len() > MAX_CROWD {
                return CrowdImpact::Declined;
            }
        }
        if c.contacts.len() > 1 {
            CrowdImpact::Resolved
        } else {
            CrowdImpact::Declined
        }
    }

    /// Add to crowd `c` the contacts of its ball at `place` with the balls and statics it
    /// touches at `now`, each pair of balls once, and the balls it touches; `false` where a
    /// contact has a restitution (where not `collapsing`).
    fn touching_contacts(
        &mut self,
        c: &mut Crowd,
        place: usize,
        now: Real,
        collapsing: bool,
    ) -> bool {
        let k = c.balls[place] as usize;
        let placed = |balls: &[u32], m: usize| balls.iter().position(|&b| b as usize == m);
        self.candidates(k, &mut c.found);
        // A ball listed in more than one grid is found more than once
        c.found.sort_unstable();
        c.found.dedup();
        let me = self.balls.ball_at(k, now);
        for f in 0..c.found.len() {
            let other = c.found[f];
            // Each pair of balls once: from the ball placed first
            if let Other::Ball(m) = other
                && placed(&c.balls, m as usize).is_some_and(|p| p <= place)
            {
                continue;
            }
            let Some((normal, rough, restitution)) = self.touch(&me, other, now, c.slack) else {
                continue;
            };
            let material = &self.balls.material[k];
            // In a collapse every contact touching it takes its limit, elastic ones too
            if !collapsing && combine_restitution(material.restitution, restitution) != 0.0 {
                return false;
            }
            let b = match other {
                Other::Ball(m) => {
                    let m = m as usize;
                    Some(placed(&c.balls, m).unwrap_or_else(|| {
                        c.balls.push(m as u32);
                        c.balls.len() - 1
                    }))
                }
                Other::Static(_) => None,
            };
            c.contacts.push(Contact {
                a: place,
                b,
                normal,
                closing: 0.0,
            });
            c.others.push(other);
            c.friction.push(combine_friction(material.friction, rough));
        }
        true
    }

    /// True when ball `i` touches at `now`, within [`TOUCH`], a ball or static shape that faces
    /// `normal` (unit, towards `i`) from the other side by cosine [`HOLD`]: met along `normal`,
    /// it is wedged between the two.
    pub(super) fn wedged(&mut self, i: usize, normal: Vec3, now: Real) -> bool {
        let mut found = std::mem::take(&mut self.scratch.crowd.found);
        self.candidates(i, &mut found);
        let me = self.balls.ball_at(i, now);
        let wedged = found.iter().any(|&other| {
            other != Other::Ball(i as u32)
                && self
                    .touch(&me, other, now, 0.0)
                    .is_some_and(|(m, _, _)| m.dot(normal) < -HOLD)
        });
        self.scratch.crowd.found = found;
        wedged
    }

    /// Where ball `me` touches `other` at `now`, within [`TOUCH`] or a gap of `slack` (a
    /// length): the normal towards `me`, and the other side's friction and restitution; `None`
    /// where it does not.
    fn touch(&self, me: &Ball, other: Other, now: Real, slack: Real) -> Option<(Vec3, Real, Real)> {
        let (proximity, reach, friction, restitution) = self.proximity(me, other, now);
        (proximity.distance.abs() <= TOUCH * reach + slack).then_some((
            proximity.normal,
            friction,
            restitution,
        ))
    }

    /// The gap between ball `me` and `other` at `now` (negative: overlapping).
    fn gap(&self, me: &Ball, other: Other, now: Real) -> Real {
        self.proximity(me, other, now).0.distance
    }

    /// How ball `me` and `other` lie at `now`: their proximity (the normal towards `me`), the
    /// reach of their radii, and the other side's friction and restitution.
    fn proximity(&self, me: &Ball, other: Other, now: Real) -> (Proximity, Real, Real, Real) {
        match other {
            Other::Ball(m) => {
                let them = self.balls.ball_at(m as usize, now);
                let material = &self.balls.material[m as usize];
                (
                    them.proximity(me),
                    me.radius + them.radius,
                    material.friction,
                    material.restitution,
                )
            }
            Other::Static(s) => {
                let s = &self.statics[s as usize];
                (s.shape.proximity(me), me.radius, s.friction, s.restitution)
            }
        }
    }

    /// Project the crowd's velocities at `now` on its contacts, and with friction its spins
    /// too; false where the sweeps ran out, friction would raise the energy, or it changes no
    /// speed beyond its tolerance (what closes is the rounding of faster balls' speeds). The
    /// impact is then met pair by pair.
    fn project_crowd(&mut self, c: &mut Crowd, now: Real, t1: Real) -> bool {
        let balls = &self.balls;
        // What each ball has earned: a kicked or pushed one has paid `owed (t1 - now)` in advance
        c.before.clear();
        c.before.extend(
            c.balls
                .iter()
                .map(|&k| balls.earned_at(k as usize, now, t1)),
        );
        c.velocity.clear();
        c.velocity.extend(c.before.iter().map(|b| b.0));
        c.spin.clear();
        c.spin.extend(c.before.iter().map(|b| b.1));
        c.inverse_mass.clear();
        c.inverse_mass.extend(
            c.balls
                .iter()
                .map(|&k| balls.material[k as usize].inverse_mass),
        );
        c.radius.clear();
        c.radius
            .extend(c.balls.iter().map(|&k| balls.body[k as usize].radius));
        c.impulse.clear();
        c.impulse.resize(c.contacts.len(), 0.0);
        let speed = c.velocity.iter().map(|v| v.length()).fold(0.0, Real::max);
        let settle = (SWEEPS, TOLERANCE * speed);
        let solved = project_cluster(
            &mut c.velocity,
            &c.inverse_mass,
            &c.contacts,
            &mut c.impulse,
            settle,
        );
        if solved.settled != Settled::Met {
            return false;
        }
        if c.friction.iter().any(|&mu| mu > 0.0) {
            if !self.project_crowd_rough(c, settle) {
                return false;
            }
        } else {
            let left = residual(&c.velocity, &c.inverse_mass, &c.contacts, &c.impulse);
            self.report
                .stats
                .count_solve(solved.sweeps, left, 2.0 * settle.1);
        }
        c.stop_below(Real::EPSILON * speed);
        c.moves(settle.1)
    }

    /// Solve the crowd's impact again with Coulomb's friction and the spins, from its
    /// frictionless impulses; false where it does not settle or the energy would rise.
    fn project_crowd_rough(&mut self, c: &mut Crowd, settle: (usize, Real)) -> bool {
        c.rough_impulse.clear();
        c.rough_impulse.extend(
            c.contacts
                .iter()
                .zip(&c.impulse)
                .map(|(k, &p)| k.normal * p),
        );
        for (k, b) in c.before.iter().enumerate() {
            (c.velocity[k], c.spin[k]) = *b;
        }
        let mut balls = RoughBalls {
            velocity: &mut c.velocity,
            spin: &mut c.spin,
            inverse_mass: &c.inverse_mass,
            radius: &c.radius,
        };
        let solved = project_rough_cluster(
            &mut balls,
            &c.contacts,
            &c.friction,
            &mut c.rough_impulse,
            settle,
        );
        let left = rough_residual(&balls, &c.contacts, &c.friction, &c.rough_impulse);
        let energy = |k: usize, (v, w): (Vec3, Vec3)| {
            ball_energy(c.inverse_mass[k].recip(), c.radius[k], v, w)
        };
        let (mut before, mut after) = (0.0, 0.0);
        for (k, &b) in c.before.iter().enumerate() {
            before += energy(k, b);
            after += energy(k, (c.velocity[k], c.spin[k]));
        }
        let kept = solved.settled == Settled::Met
            && left <= 2.0 * settle.1
            && after <= before * (1.0 + 1e-12);
        if kept {
            for (p, (k, q)) in c
                .impulse
                .iter_mut()
                .zip(c.contacts.iter().zip(&c.rough_impulse))
            {
                *p = q.dot(k.normal);
            }
            self.report
                .stats
                .count_solve(solved.sweeps, left, 2.0 * settle.1);
        } else {
            self.report.stats.contact_solves_left += 1;
        }
        kept
    }

    /// Give the crowd's balls their projected velocities and spins from `now`, report each
    /// contact that pushes, and predict the balls again.
    fn apply_crowd<S: ToiStrategy + ?Sized>(
        &mut self,
        step: &Step<'_, S>,
        c: &mut Crowd,
        now: Real,
    ) {
        for (contact, (&other, &impulse)) in c.contacts.iter().zip(c.others.iter().zip(&c.impulse))
        {
            if impulse <= 0.0 {
                continue;
            }
            let i = c.balls[contact.a] as usize;
            self.report_push(i, other, now, contact.normal, impulse);
        }
        c.changed.clear();
        for (k, &ball) in c.balls.iter().enumerate() {
            let b = ball as usize;
            // Unpushed: its path goes on
            if (c.velocity[k], c.spin[k]) == c.before[k] {
                continue;
            }
            // Sent off what held it, a ball falls again with what it earned: off a surface, or
            // out of a kick or a push, what was paid in advance given back
            self.balls.advance(b, now);
            self.balls.leave_surface(b, self.config.gravity);
            let material = &mut self.balls.material[b];
            if material.motion.kicked() {
                self.balls.body[b].path.acceleration = self.config.gravity;
            }
            if matches!(
                material.motion,
                Motion::Kicked { .. } | Motion::Pushed { .. }
            ) {
                material.motion = Motion::Free;
            }
            self.balls.body[b].path.velocity = c.velocity[k];
            self.balls.material[b].spin = c.spin[k];
            self.balls.bump(b);
            c.changed.push(ball);
        }
        for &ball in &c.changed {
            self.predict(step, ball as usize, now, Asking::Changed { except: None });
        }
    }
}
