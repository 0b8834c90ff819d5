//! Crowds: an inelastic impact between balls that touch others, resolved as one impact of the
//! whole touching cluster.
//!
//! A perfectly inelastic impact (restitution 0) met pair by pair in a crowd collapses without
//! end: a light ball between two heavy ones closing on it bounces between them ever faster
//! (inelastic collapse, McNamara and Young 1994), and the TC rule that bounds it turns the
//! collapse into elastic rebounds. Resolved as one impact, the velocities of the balls touching
//! the pair (and those touching them) become the nearest in kinetic energy that close no
//! contact: the projection of `sim::cluster`, Moreau's impact law with restitution 0 on every
//! contact at once. A crowd at restitution 0 ends moving as one, and neither the kinetic energy
//! nor that relative to the centre of mass rises (a projection on a cone that holds every
//! common velocity). Newton's cradle is elastic, so it never comes here: its impacts run pair
//! by pair and it keeps one ball in, one ball out.
//!
//! Built for worlds without gravity and frictionless contacts so far: under gravity the resting
//! contacts of the event loop (kicks, owed gravity, supports) meet crowds, and a contact with
//! friction rubs pair by pair; both wait for the contact solve planned in ARCHITECTURE.md.

use super::predict::Asking;
use super::{Step, Stepper};
use crate::geometry::Shape;
use crate::math::{Real, Vec3};
use crate::sim::calendar::Other;
use crate::sim::cluster::{Contact, Settled, project_cluster, residual};
use crate::sim::components::{combine_friction, combine_restitution};
use crate::toi::ToiStrategy;

/// Gaps, relative to the radii, within which two balls touch in a crowd.
const TOUCH: Real = 1e-9;

/// Balls in a crowd at most; a larger one is met pair by pair.
const MAX_CROWD: usize = 64;

/// Sweeps of the projection at most.
const SWEEPS: usize = 4096;

/// What a projection may leave closing or parting, relative to the crowd's fastest speed: the
/// exact solve on its pushing contacts loses about the mass ratio's square root in digits (a
/// light ball between two a million times heavier leaves 1e-10 of the speeds).
const TOLERANCE: Real = 1e-9;

/// Scratch of a crowd.
#[derive(Debug, Default)]
pub(super) struct Crowd {
    balls: Vec<u32>,
    velocity: Vec<Vec3>,
    inverse_mass: Vec<Real>,
    contacts: Vec<Contact>,
    others: Vec<Other>,
    impulse: Vec<Real>,
    found: Vec<Other>,
    /// The balls whose velocity the impact changed.
    changed: Vec<u32>,
}

impl Stepper {
    /// Resolve the inelastic impact of balls `i` and `j` at `now` as one impact of the crowd
    /// touching them; false (nothing changed) where it is not such a crowd: gravity, a contact
    /// with friction or restitution, or no ball but the pair.
    pub(super) fn resolve_crowd<S: ToiStrategy + ?Sized>(
        &mut self,
        step: &Step<'_, S>,
        (i, j): (usize, usize),
        now: Real,
    ) -> bool {
        if self.config.gravity != Vec3::ZERO {
            return false;
        }
        let mut c = std::mem::take(&mut self.scratch.crowd);
        let found = self.find_crowd(&mut c, (i, j), now) && self.project_crowd(&mut c);
        if found {
            self.apply_crowd(step, &mut c, now);
        }
        self.scratch.crowd = c;
        found
    }

    /// Gather the balls touching `i` and `j` at `now`, and those touching them, with the
    /// contacts among them and with statics; false where the pair overlaps beyond a touch, a
    /// contact has friction or restitution, the crowd is the pair alone, or it grows past
    /// [`MAX_CROWD`].
    fn find_crowd(&mut self, c: &mut Crowd, (i, j): (usize, usize), now: Real) -> bool {
        // The pair itself must touch (balls placed overlapping are pushed apart pair by pair)
        let (a, b) = (self.balls.ball_at(i, now), self.balls.ball_at(j, now));
        if a.proximity(&b).distance.abs() > TOUCH * (a.radius + b.radius) {
            return false;
        }
        c.balls.clear();
        c.contacts.clear();
        c.others.clear();
        c.balls.extend([i as u32, j as u32]);
        let place = |balls: &[u32], k: usize| balls.iter().position(|&b| b as usize == k);
        let mut next = 0;
        while next < c.balls.len() {
            let k = c.balls[next] as usize;
            next += 1;
            self.candidates(k, &mut c.found);
            // A ball listed in more than one grid is found more than once
            c.found.sort_unstable();
            c.found.dedup();
            let me = self.balls.ball_at(k, now);
            for f in 0..c.found.len() {
                let other = c.found[f];
                let (proximity, reach, rough, restitution) = match other {
                    Other::Ball(m) => {
                        let m = m as usize;
                        // Each pair once: from the ball placed first
                        if place(&c.balls, m).is_some_and(|p| p < next) {
                            continue;
                        }
                        let them = self.balls.ball_at(m, now);
                        let material = &self.balls.material[m];
                        (
                            them.proximity(&me),
                            me.radius + them.radius,
                            material.friction,
                            material.restitution,
                        )
                    }
                    Other::Static(s) => {
                        let s = &self.statics[s as usize];
                        (s.shape.proximity(&me), me.radius, s.friction, s.restitution)
                    }
                };
                if proximity.distance.abs() > TOUCH * reach {
                    continue;
                }
                let material = &self.balls.material[k];
                if combine_friction(material.friction, rough) != 0.0
                    || combine_restitution(material.restitution, restitution) != 0.0
                    || self.balls.rest[k].asleep()
                {
                    return false;
                }
                let b = match other {
                    Other::Ball(m) => {
                        let m = m as usize;
                        if self.balls.rest[m].asleep() {
                            return false;
                        }
                        Some(place(&c.balls, m).unwrap_or_else(|| {
                            c.balls.push(m as u32);
                            c.balls.len() - 1
                        }))
                    }
                    Other::Static(_) => None,
                };
                c.contacts.push(Contact {
                    a: next - 1,
                    b,
                    normal: proximity.normal,
                    closing: 0.0,
                });
                c.others.push(other);
            }
            if c.balls.len() > MAX_CROWD {
                return false;
            }
        }
        c.balls.len() > 2 || c.contacts.len() > 1
    }

    /// Project the crowd's velocities on its contacts; false where the sweeps ran out (the
    /// impact is then met pair by pair).
    fn project_crowd(&mut self, c: &mut Crowd) -> bool {
        let balls = &self.balls;
        c.velocity.clear();
        c.velocity.extend(
            c.balls
                .iter()
                .map(|&k| balls.body[k as usize].path.velocity),
        );
        c.inverse_mass.clear();
        c.inverse_mass.extend(
            c.balls
                .iter()
                .map(|&k| balls.material[k as usize].inverse_mass),
        );
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
        let left = residual(&c.velocity, &c.inverse_mass, &c.contacts, &c.impulse);
        self.report.stats.count_solve(solved.sweeps, left);
        true
    }

    /// Give the crowd's balls their projected velocities from `now`, report each contact that
    /// pushes, and predict the balls again.
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
            if c.velocity[k] == self.balls.body[b].path.velocity {
                continue;
            }
            self.balls.advance(b, now);
            self.balls.body[b].path.velocity = c.velocity[k];
            self.balls.bump(b);
            c.changed.push(ball);
        }
        for &ball in &c.changed {
            self.predict(step, ball as usize, now, Asking::Changed { except: None });
        }
    }
}
