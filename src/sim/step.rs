//! The stepper: advance a world by `dt`, resolving every collision in time order.
//!
//! One step, in the order of the design:
//! 1. Gather: copy the balls out of the [`World`] into arrays, and read the static shapes.
//! 2. Gravity: `v += g dt` for every ball, once per step (NeHe's order: paths are straight
//!    lines within a step; a ball thrown sideways moves on a polyline of straight steps, not on
//!    a parabola).
//! 3. Neighbourhoods: each ball is listed in the cell of a grid sized to the balls that holds
//!    its centre (see `neighbours`).
//! 4. Predict: each ball asks about the balls and statics in the cells around its own; hits
//!    go into the calendar, each tagged with the collision counters of its balls, and so does
//!    each ball's crossing out of its cell.
//! 5. Resolve: pop the earliest event, drop it if a counter has moved on (the ball has collided
//!    since it was predicted). A crossing moves the ball to the next cell and asks about what
//!    came within reach. A contact advances just its balls to its time (each ball keeps its
//!    own clock), applies the impulse, and predicts again for those balls only. Repeat until
//!    the calendar is empty.
//! 6. Finish: advance every ball to the end of the step, measure, and write back.
//!
//! The cost of a step grows with balls plus collisions and cell crossings, not with balls
//! squared, and the work per collision does not grow with speed.
//!
//! Bad input: a step with a bad `dt`, a ball or shape with a value the stepper cannot use
//! (not finite, a radius or mass not above zero, a restitution outside 0 to 1), or a ball out
//! of the range the sweeps are exact in ([`MAX_LENGTH`]) is refused with a [`StepError`] and
//! changes nothing; so is a step after which a position or velocity would not be finite.
//! Balls that already overlap (placed so by hand) are pushed apart only by a contact between
//! them, that is when they approach each other: two balls on one spot with one velocity move
//! together. Far from the origin a coordinate's rounding grows, and exactness is to that
//! rounding: balls of radius 1e-6 at coordinates of 1e9 step with overlaps of a few times
//! 1.2e-7.
//!
//! Contacts at one instant are resolved one after the other, in a fixed order (by time, then by
//! the balls' places in memory), each with its own impulse. That keeps momentum and energy and
//! makes chains come out right (Newton's cradle: one ball in, one ball out), but a ball that
//! strikes two others at exactly the same instant in a symmetric arrangement leaves
//! asymmetrically, as if one had been struck a moment before the other.
//!
//! Resting contact: a pair that touches but does not approach produces no event; an approach
//! slower than the rest speed is resolved as perfectly inelastic; a ball that comes to rest on a
//! support holds up the balls that come to rest on it at the same instant (see
//! [`response`](super::response)). Balls that have stayed still for a while fall asleep and
//! cost next to nothing until something hits them (see [`sleep`](super::sleep)). Without a rest
//! speed (no gravity, by default), a ball with more than [`ELASTIC_AFTER`] collisions in one
//! step collides elastically for the rest of it (the TC model), so that a ball wedged with a
//! restitution below 1 cannot collide without end.
//!
//! A budget of resolved collisions per step ([`StepConfig::max_events_per_step`]) bounds the
//! work of any step without letting anything pass through: once it is spent, each later contact
//! stops its moving balls where they touch. A stopped ball stands still for the rest of the step
//! (it is predicted again as a still ball, so balls heading for it stop against it too) and keeps
//! its velocity, so the next step resolves the contact at its start. Every such contact stops at
//! least one moving ball, so at most one per ball follows the budget. Stopped balls lose the rest
//! of the step's time; energy and momentum are untouched. [`StepStats::events_cap_hits`] counts
//! the contacts held and [`StepStats::stopped`] the balls that stopped.

use std::cmp::Ordering;
use std::num::NonZeroU64;

use hecs::{Entity, World};

use super::bodies::{BallBody, BallMaterial, Balls, NONE, permute};
use super::calendar::{Calendar, Happening, Other};
use super::change;
use super::components::{
    Mass, Position, PreviousPosition, Radius, Restitution, Sleep, Velocity, combine_restitution,
};
use super::config::{MAX_LENGTH, StepConfig, StepError};
use super::events::{CollisionEvent, StepReport, StepStats};
use super::neighbours::{Around, Neighbours, SMALL_WORLD};
use super::response::{Body, Frozen, Supports, approach_speed, resolve};
use super::sleep::{Islands, Rest};
use super::statics::{self, Static};
use crate::geometry::Shape;
use crate::math::{Real, Vec3, positive};
use crate::toi::{MovingBall, PairKind, Toi, ToiStrategy};

/// Collisions of one ball in one step after which, in a step without a rest speed (no gravity
/// by default), its contacts in that step are elastic: the TC model of inelastic collapse
/// (Luding and McNamara, "How to handle the inelastic collapse of a dissipative hard-sphere gas
/// with the TC model", Granular Matter, 1998). A ball wedged with a restitution below 1
/// (between a heavy ball and a wall, say) would otherwise collide ever faster without end;
/// elastic, the wedge lets go after a bounded number of collisions. Energy still never rises.
/// With a rest speed, resting contacts end such sequences instead.
const ELASTIC_AFTER: u32 = 64;

/// Steps a [`World`] of balls and static shapes.
///
/// The stepper owns no simulation state: every step reads the world and writes it back, so a
/// user can change anything between steps (spawn, despawn, set velocities, switch strategy).
/// It keeps its buffers between steps to avoid allocating, and the report of the last step.
/// Sleep state lives in each ball's [`Sleep`] component, with fingerprints that wake a sleeper
/// when the user edits it, what it rests on, or the configuration (see
/// [`sleep`](super::sleep)).
///
/// A budget of resolved collisions ([`StepConfig::max_events_per_step`]) bounds the work of a
/// step without letting anything pass through anything: once it is spent, each later contact
/// stops its moving balls where they touch, for the rest of the step. They keep their
/// velocities, so the next step resolves those contacts at its start; energy and momentum are
/// untouched. [`StepStats::events_cap_hits`] counts the contacts held and
/// [`StepStats::stopped`] the balls that lost time.
///
/// ```
/// use toibox::{BallDef, Plane, StepConfig, Stepper, Vec3};
///
/// let mut world = hecs::World::new();
/// world.spawn((Plane::new(Vec3::ZERO, Vec3::Y).unwrap(),));
/// let ball = BallDef::new(Vec3::new(0.0, 1.0, 0.0), 0.5)
///     .velocity(Vec3::new(0.0, -1.0, 0.0))
///     .spawn(&mut world);
///
/// let mut stepper = Stepper::new(StepConfig { gravity: Vec3::ZERO, ..StepConfig::default() });
/// let report = stepper.step(&mut world, 1.0).unwrap();
/// // The gap of 0.5 closes at t = 0.5; the ball bounces back up for the other half.
/// assert_eq!(report.events.len(), 1);
/// assert_eq!(report.events[0].time, 0.5);
/// let y = world.get::<&toibox::Position>(ball).unwrap().0.y;
/// assert!((y - 1.0).abs() < 1e-15);
/// ```
#[derive(Debug, Default)]
pub struct Stepper {
    /// How it steps; may be changed between steps.
    pub config: StepConfig,
    report: StepReport,
    balls: Balls,
    statics: Vec<Static>,
    neighbours: Neighbours,
    calendar: Calendar,
    /// Per ball, when in the step it last changed course (a count of changes; 0: not since the
    /// step began). Decides which ball of a pair asks.
    changed: Vec<u32>,
    changes: u32,
    /// Per ball, its path over the step is longer than a cell of the memory order, or roams.
    long: Vec<bool>,
    /// Scratch list of candidates.
    found: Vec<Other>,
    /// The balls in memory order: gathered index of each.
    order: Vec<u32>,
    /// The rest speed of the current step.
    rest_speed: Real,
    /// Every pair asked about this step (statics tested everywhere apart): any pair that
    /// overlaps at the end of the step is among them.
    pairs: Vec<(u32, Other)>,
    /// Per ball: its centre ended behind a plane or inside a cylinder.
    escaped: Vec<bool>,
    /// Pairs of balls that touched in this step: they join islands.
    links: Vec<(u32, u32)>,
    islands: Islands,
    /// Balls without a [`Sleep`] component, to be given one.
    sleepless: Vec<(Entity, Sleep)>,
    /// Per ball, scratch: its Z-order key, then its place in memory.
    keys: Vec<u64>,
    /// Scratch of `permute`.
    done: Vec<u64>,
    /// The balls stopped in this step after the budget ran out, with the velocity each keeps.
    stopped: Vec<(u32, Vec3)>,
    /// The fingerprint of this step's statics and configuration (see [`change`]).
    surroundings: u64,
    /// Scratch: the balls of sleeping islands with what their `Sleep` recorded.
    sleepers: Vec<Sleeper>,
    /// Per ball, the size of the island it sleeps in at the end of the step.
    island_size: Vec<u32>,
}

/// A ball of a sleeping island (asleep, or woken in this step) as its `Sleep` recorded it.
#[derive(Clone, Copy, Debug)]
struct Sleeper {
    island: NonZeroU64,
    ball: u32,
    island_size: u32,
    surroundings: u64,
}

impl Stepper {
    /// Create a stepper with `config`.
    #[must_use]
    pub fn new(config: StepConfig) -> Self {
        Self {
            config,
            ..Self::default()
        }
    }

    /// Return what the last step did.
    #[must_use]
    pub fn report(&self) -> &StepReport {
        &self.report
    }

    /// Advance `world` by `dt` with the configured strategy; see the module docs for the order
    /// of work. A refused step (bad `dt`, a ball or shape with bad values) changes nothing.
    pub fn step(&mut self, world: &mut World, dt: Real) -> Result<&StepReport, StepError> {
        let strategy = self.config.strategy;
        self.step_with(world, dt, &strategy)
    }

    /// Advance `world` by `dt` with a strategy of the caller's own.
    pub fn step_with<S: ToiStrategy + ?Sized>(
        &mut self,
        world: &mut World,
        dt: Real,
        strategy: &S,
    ) -> Result<&StepReport, StepError> {
        if !(dt.is_finite() && dt > 0.0) {
            return Err(StepError::InvalidDt(dt));
        }
        self.config.check()?;
        self.gather(world)?;
        self.report.events.clear();
        self.report.stats = StepStats::default();
        self.links.clear();

        let gravity = self.config.gravity;
        self.rest_speed = self
            .config
            .rest_speed
            .unwrap_or(2.0 * gravity.length() * dt);
        for (body, rest) in self.balls.body.iter_mut().zip(&mut self.balls.rest) {
            if !rest.asleep() {
                body.velocity += gravity * dt;
            }
        }
        if let Some(error) = self.out_of_range(dt) {
            return Err(error);
        }

        self.build_broadphase(dt);
        self.predict_all(dt, strategy);

        let cap = self
            .config
            .max_events_per_step
            .unwrap_or(1000 + 100 * self.balls.len());
        let mut resolved = 0usize;
        self.stopped.clear();
        while let Some(event) = self.calendar.pop_current(&self.balls.counter) {
            let (i, now) = (event.a as usize, event.time);
            match event.happening() {
                Happening::Crossing { grid, axis, step } => {
                    let (g, axis, step) = (grid as usize, axis as usize, i64::from(step));
                    self.cross(i, g, axis, step, now, dt, strategy);
                }
                Happening::Contact(other) if resolved >= cap => {
                    self.hold(i, other, now, dt, strategy);
                }
                Happening::Contact(other) => {
                    if self.resolve(i, other, now, dt, strategy) {
                        resolved += 1;
                    }
                }
            }
        }

        for i in 0..self.balls.len() {
            self.balls.advance(i, dt);
        }
        for &(i, velocity) in &self.stopped {
            self.balls.body[i as usize].velocity = velocity;
        }
        self.report.stats.stopped = self.stopped.len() as u64;
        // Nothing non-finite reaches the world: such a step is refused whole
        if let Some(error) = self.non_finite(dt) {
            self.report = StepReport::default();
            return Err(error);
        }
        self.settle(dt);
        self.report.stats.measure(
            &self.balls,
            &self.statics,
            &self.neighbours.everywhere,
            &self.pairs,
            &mut self.escaped,
        );
        self.scatter(world);
        Ok(&self.report)
    }

    /// The error for the first ball beyond [`MAX_LENGTH`]: a coordinate, its radius, a velocity
    /// component, or the distance it may move in the step along an axis, with gravity applied.
    fn out_of_range(&self, dt: Real) -> Option<StepError> {
        self.first_fault(dt, |body| {
            if body.position.abs().max_element() > MAX_LENGTH {
                Some("position")
            } else if body.radius > MAX_LENGTH {
                Some("radius")
            } else if body
                .velocity
                .abs()
                .max_element()
                .max((body.velocity * dt).abs().max_element())
                > MAX_LENGTH
            {
                Some("velocity")
            } else {
                None
            }
        })
    }

    /// The error for the first ball whose position or velocity left the finite numbers in this
    /// step (a `dt` too long for its speed, or values near the largest numbers), if any.
    fn non_finite(&self, dt: Real) -> Option<StepError> {
        self.first_fault(dt, |body| {
            if !body.position.is_finite() {
                Some("position")
            } else if !body.velocity.is_finite() {
                Some("velocity")
            } else {
                None
            }
        })
    }

    /// [`StepError::OutOfRange`] for the first ball in which `fault` finds a field at fault.
    fn first_fault(
        &self,
        dt: Real,
        fault: impl Fn(&BallBody) -> Option<&'static str>,
    ) -> Option<StepError> {
        let balls = &self.balls;
        (0..balls.len()).find_map(|i| {
            fault(&balls.body[i]).map(|field| StepError::OutOfRange {
                entity: balls.entity[i],
                field,
                dt,
            })
        })
    }

    /// Update the sleep clocks and put to sleep or wake whole islands.
    fn settle(&mut self, dt: Real) {
        let Some(config) = self.config.sleep else {
            return;
        };
        let limit = config.speed.unwrap_or(self.config.gravity.length() * dt);
        let balls = &mut self.balls;
        for i in 0..balls.len() {
            let body = &balls.body[i];
            let speed = body.position.distance(balls.start[i]) / dt;
            let rest = &mut balls.rest[i];
            rest.observe(body.position, speed, limit, config.drift * body.radius, dt);
            rest.grounded = balls.material[i].resting_hits > 0;
        }
        let entities = &balls.entity;
        self.islands.settle(
            config.time,
            &mut balls.rest,
            |i| entities[i].to_bits(),
            &self.links,
        );
        for (body, rest) in balls.body.iter_mut().zip(&balls.rest) {
            if rest.asleep() {
                body.velocity = Vec3::ZERO;
            }
        }
        self.report.stats.sleeping = balls.rest.iter().filter(|r| r.asleep()).count() as u64;
    }

    /// Copy the balls and statics out of the world, checking their values.
    fn gather(&mut self, world: &mut World) -> Result<(), StepError> {
        let balls = &mut self.balls;
        balls.clear();
        self.sleepers.clear();
        let n = world.len() as usize;
        balls.entity.reserve_exact(n);
        balls.body.reserve_exact(n);
        balls.material.reserve_exact(n);
        balls.counter.reserve_exact(n);
        balls.rest.reserve_exact(n);
        balls.start.reserve_exact(n);
        for (entity, p, v, r, m, e, sleep) in world.query_mut::<(
            Entity,
            &Position,
            &Velocity,
            &Radius,
            &Mass,
            Option<&Restitution>,
            Option<&Sleep>,
        )>() {
            let bad = |field, allowed| StepError::InvalidBall {
                entity,
                field,
                allowed,
            };
            if !p.0.is_finite() {
                return Err(bad("position", "finite coordinates"));
            }
            if !v.0.is_finite() {
                return Err(bad("velocity", "finite components"));
            }
            if !positive(r.0) {
                return Err(bad("radius", "a finite number > 0"));
            }
            if !positive(m.0) {
                return Err(bad("mass", "a finite number > 0"));
            }
            let restitution = e.map_or(1.0, |e| e.0);
            if !(0.0..=1.0).contains(&restitution) {
                return Err(bad("restitution", "a number from 0 to 1"));
            }
            balls.entity.push(entity);
            balls.body.push(BallBody {
                position: p.0,
                velocity: v.0,
                radius: r.0,
                clock: 0.0,
            });
            balls.material.push(BallMaterial {
                inverse_mass: 1.0 / m.0,
                restitution,
                supports: NONE,
                resting_hits: 0,
            });
            balls.counter.push(0);
            // Sleeping off: every ball awake, with a stopped clock
            let sleep = sleep
                .copied()
                .filter(|_| self.config.sleep.is_some())
                .unwrap_or_default();
            let mut rest = Rest {
                still_for: if sleep.still_for.is_finite() {
                    sleep.still_for
                } else {
                    0.0
                },
                anchor: sleep.anchor,
                island: sleep.island,
                woke_from: sleep.woken_from,
                grounded: false,
            };
            // Its velocity, gravity or own components edited: it wakes, its island after the step
            if rest.asleep()
                && (v.0 != Vec3::ZERO
                    || sleep.gravity != self.config.gravity
                    || sleep.written != change::ball(p.0, r.0, m.0, restitution))
            {
                rest.wake();
            }
            if let Some(island) = rest.island.or(rest.woke_from) {
                self.sleepers.push(Sleeper {
                    island,
                    ball: balls.rest.len() as u32,
                    island_size: sleep.island_size,
                    surroundings: sleep.surroundings,
                });
            }
            balls.rest.push(rest);
            balls.start.push(p.0);
        }

        statics::gather(world, &mut self.statics)?;
        self.surroundings = change::surroundings(
            self.statics.iter().map(|s| (&s.shape, s.restitution)),
            &self.config,
        );
        self.wake_changed_islands();
        Ok(())
    }

    /// Wake the sleepers whose statics or configuration changed, and whole the islands that
    /// lost a ball since the last step.
    fn wake_changed_islands(&mut self) {
        let rests = &mut self.balls.rest;
        for s in &self.sleepers {
            if s.surroundings != self.surroundings {
                rests[s.ball as usize].wake();
            }
        }
        self.sleepers.sort_unstable_by_key(|s| (s.island, s.ball));
        for island in self.sleepers.chunk_by(|a, b| a.island == b.island) {
            if island
                .iter()
                .any(|s| s.island_size as usize != island.len())
            {
                for s in island {
                    rests[s.ball as usize].wake();
                }
            }
        }
    }

    /// Size the grids for this step, order the balls along them, and list balls and statics.
    fn build_broadphase(&mut self, dt: Real) {
        self.neighbours.plan(&self.balls.body, dt);
        self.sort_spatially();
        self.neighbours
            .list(&self.balls.body, &mut self.statics, dt);
        self.pairs.clear();
        let n = self.balls.len();
        self.changed.clear();
        self.changed.resize(n, 0);
        self.changes = 0;
        self.long.clear();
        for i in 0..n {
            let body = &self.balls.body[i];
            let asleep = self.balls.rest[i].asleep();
            let long = self.neighbours.roams(i)
                || (!asleep && self.neighbours.outruns_order_cell(body, dt));
            self.long.push(long);
        }
    }

    /// Reorder the balls along a Z-order curve of their cells, so that neighbours in space are
    /// neighbours in memory (a small world keeps the world's order). The key includes the
    /// gathered index, so the order is the same whatever order the sort starts from (last
    /// step's, which makes it nearly sorted already).
    fn sort_spatially(&mut self) {
        let n = self.balls.len();
        if self.order.len() != n || n <= SMALL_WORLD {
            self.order.clear();
            self.order.extend(0..n as u32);
        }
        // A small world fits in the cache in any order
        if n <= SMALL_WORLD {
            return;
        }
        let mut keys = std::mem::take(&mut self.keys);
        keys.clear();
        keys.extend(
            self.balls
                .body
                .iter()
                .map(|body| self.neighbours.z_order(body)),
        );
        self.order.sort_by_key(|&w| (keys[w as usize], w));
        self.keys = keys;
        let order = &self.order;
        let balls = &mut self.balls;
        let done = &mut self.done;
        permute(&mut balls.entity, order, done);
        permute(&mut balls.body, order, done);
        permute(&mut balls.material, order, done);
        permute(&mut balls.rest, order, done);
        permute(&mut balls.start, order, done);
    }

    /// Predict ball `i`'s contacts from `now` to `t_end` with everything near it but `except`
    /// (which predicts next), and its cell crossings. In the first predictions of a step
    /// (`first`) each pair is asked once; after a change of course, `i` is the ball that
    /// changed last.
    fn predict<S: ToiStrategy + ?Sized>(
        &mut self,
        i: usize,
        now: Real,
        t_end: Real,
        strategy: &S,
        first: bool,
        except: Option<usize>,
    ) {
        if !first {
            self.changes += 1;
            self.changed[i] = self.changes;
        }
        let mut found = std::mem::take(&mut self.found);
        found.clear();
        if self.neighbours.roams(i) {
            found.extend(
                (0..self.balls.len() as u32)
                    .filter(|&j| j as usize != i)
                    .map(Other::Ball),
            );
            found.extend((0..self.statics.len() as u32).map(Other::Static));
        } else {
            for g in self.neighbours.grids_of(i) {
                self.neighbours
                    .for_each(i, g, Around::All, |other| found.push(other));
            }
            found.extend(self.neighbours.roaming.iter().map(|&j| Other::Ball(j)));
            found.extend(self.neighbours.everywhere.iter().map(|&k| Other::Static(k)));
        }
        self.ask_all(i, &mut found, now, t_end, strategy, first, except);
        self.found = found;
        for g in self.neighbours.grids_of(i) {
            self.schedule_crossing(i, g, now, t_end);
        }
    }

    /// Ask about each of `found` for ball `i` from `now` to `t_end`, in order (balls, then
    /// statics, by index), but for what its path box cannot reach, for `except` (which asks in
    /// turn), and in the first predictions (`first`) for the pairs the other ball asks. The
    /// order is fixed because resting contacts keep the first touches they meet.
    #[allow(clippy::too_many_arguments)]
    fn ask_all<S: ToiStrategy + ?Sized>(
        &mut self,
        i: usize,
        found: &mut [Other],
        now: Real,
        t_end: Real,
        strategy: &S,
        first: bool,
        except: Option<usize>,
    ) {
        found.sort_unstable();
        let my_box = self.balls.path_box(i, now, t_end);
        for &other in found.iter() {
            let skip = match other {
                Other::Static(k) => {
                    let s = &self.statics[k as usize];
                    s.everywhere && s.shape.misses_box(&my_box)
                }
                Other::Ball(j) => {
                    let j = j as usize;
                    (first && self.asker(i, j) != i)
                        || except == Some(j)
                        || !my_box.overlaps(&self.balls.path_box(j, now, t_end))
                }
            };
            if !skip {
                self.ask(i, other, now, t_end, strategy);
            }
        }
    }

    /// Ask `strategy` when ball `i` meets `other` before `t_end`, and schedule what it finds at
    /// `now` or later. The one place a query is made.
    ///
    /// The query starts where the later of the two balls last changed course (its clock), not
    /// at `now`: a prediction depends on the two paths only, never on when it was asked, so
    /// asking again (a crossing, a fresh stepper) gives the same bits.
    fn ask<S: ToiStrategy + ?Sized>(
        &mut self,
        i: usize,
        other: Other,
        now: Real,
        t_end: Real,
        strategy: &S,
    ) {
        let (toi, from, me) = match other {
            Other::Static(k) => {
                let from = self.balls.body[i].clock;
                let me = self.balls.moving(i, from);
                let s = &self.statics[k as usize];
                // Statics tested everywhere are measured against every ball anyway
                if !s.everywhere {
                    self.pairs.push((i as u32, other));
                }
                (s.shape.toi(strategy, &me, t_end - from), from, me)
            }
            Other::Ball(j) => {
                let j = j as usize;
                let (a, b) = match self.asker(i, j) {
                    k if k == i => (i, j),
                    _ => (j, i),
                };
                let from = self.balls.body[a].clock.max(self.balls.body[b].clock);
                let me = self.balls.moving(a, from);
                self.pairs.push((a as u32, Other::Ball(b as u32)));
                let toi = strategy.ball_ball(&me, &self.balls.moving(b, from), t_end - from);
                self.report.stats.toi_queries += 1;
                self.schedule(a, Other::Ball(b as u32), from, now, t_end, &me, toi);
                return;
            }
        };
        self.report.stats.toi_queries += 1;
        self.schedule(i, other, from, now, t_end, &me, toi);
    }

    /// The first predictions of the step: every ball awake asks about what is near it, each
    /// pair once.
    fn predict_all<S: ToiStrategy + ?Sized>(&mut self, dt: Real, strategy: &S) {
        for i in 0..self.balls.len() {
            if !self.balls.rest[i].asleep() {
                self.predict(i, 0.0, dt, strategy, true, None);
            }
        }
    }

    /// Return which of balls `i` and `j` asks about their pair: the one that changed course
    /// last in the step; of two that have not changed course since it began, the one awake,
    /// then the one whose path is long (longer than a cell of the memory order, or roaming),
    /// then the lower index. Events are ordered by their asker at equal times, so this rule
    /// fixes the order in which simultaneous contacts are resolved, whoever met the pair first.
    fn asker(&self, i: usize, j: usize) -> usize {
        match self.changed[i].cmp(&self.changed[j]) {
            Ordering::Greater => i,
            Ordering::Less => j,
            Ordering::Equal => {
                let key = |k: usize| (self.balls.rest[k].asleep(), !self.long[k], k);
                if key(i) < key(j) { i } else { j }
            }
        }
    }

    /// Schedule ball `i`'s next crossing out of its cell of grid `g`, if it happens before
    /// `t_end`.
    fn schedule_crossing(&mut self, i: usize, g: usize, now: Real, t_end: Real) {
        let body = &self.balls.body[i];
        if let Some((time, axis, step)) = self.neighbours.next_crossing(i, g, body, now, t_end) {
            let happening = Happening::Crossing {
                grid: g as u8,
                axis: axis as u8,
                step: step as i8,
            };
            self.calendar
                .push(time, i as u32, happening, &self.balls.counter);
        }
    }

    /// Move ball `i` into the next cell of grid `g` at `now`, ask about the balls and statics
    /// that have come within reach, and schedule its next crossing.
    #[allow(clippy::too_many_arguments)]
    fn cross<S: ToiStrategy + ?Sized>(
        &mut self,
        i: usize,
        g: usize,
        axis: usize,
        step: i64,
        now: Real,
        t_end: Real,
        strategy: &S,
    ) {
        self.neighbours.cross(i, g, axis, step);
        let mut found = std::mem::take(&mut self.found);
        found.clear();
        self.neighbours
            .for_each(i, g, Around::Slab { axis, step }, |other| found.push(other));
        self.ask_all(i, &mut found, now, t_end, strategy, false, None);
        self.found = found;
        self.schedule_crossing(i, g, now, t_end);
    }

    /// Push the event a query from `from` found, if it is one, at `now` or later. A touch at
    /// `from` before `now` was met when the pair was asked at `from`, and is not met again.
    #[allow(clippy::too_many_arguments)]
    fn schedule(
        &mut self,
        i: usize,
        other: Other,
        from: Real,
        now: Real,
        t_end: Real,
        me: &MovingBall,
        toi: Toi,
    ) {
        let time = match toi {
            Toi::Hit(contact) => (from + contact.time).clamp(now, t_end),
            Toi::Overlapping(_) if from < now => return,
            Toi::Overlapping(contact) => {
                // Touches are read only by resting contacts, which need a rest speed above zero
                let rests = self.rest_speed > 0.0;
                if rests {
                    self.balls.supports_mut(i).touch(contact.normal);
                }
                let other_velocity = match other {
                    Other::Ball(j) => {
                        if rests {
                            self.balls.supports_mut(j as usize).touch(-contact.normal);
                        }
                        self.links.push((i as u32, j));
                        self.balls.body[j as usize].velocity
                    }
                    Other::Static(_) => Vec3::ZERO,
                };
                // Touching or overlapping: a contact now only if approaching
                let closing =
                    approach_speed(me.velocity, other_velocity, contact.normal, self.rest_speed);
                if closing.is_none() {
                    return;
                }
                now
            }
            Toi::Miss => return,
        };
        self.calendar.push(
            time,
            i as u32,
            Happening::Contact(other),
            &self.balls.counter,
        );
    }

    /// Resolve one event; false when the pair turned out not to be approaching.
    fn resolve<S: ToiStrategy + ?Sized>(
        &mut self,
        i: usize,
        other: Other,
        now: Real,
        t_end: Real,
        strategy: &S,
    ) -> bool {
        self.balls.advance(i, now);
        let ball = self.balls.ball(i);
        let down = self.config.gravity.normalize_or_zero();
        let me = self.balls.response_body(i, down);

        let other_ball = match other {
            Other::Ball(j) => Some(j as usize),
            Other::Static(_) => None,
        };
        let (proximity, other, kind, entity, restitution) = match other {
            Other::Ball(j) => {
                let j = j as usize;
                self.balls.advance(j, now);
                (
                    self.balls.ball(j).proximity(&ball),
                    self.balls.response_body(j, down),
                    PairKind::BallBall,
                    self.balls.entity[j],
                    self.balls.material[j].restitution,
                )
            }
            Other::Static(k) => {
                let s = &self.statics[k as usize];
                let body = Body {
                    velocity: Vec3::ZERO,
                    inverse_mass: 0.0,
                    supports: Supports::EVERYWHERE,
                    frozen: Frozen::Always,
                };
                (
                    s.shape.proximity(&ball),
                    body,
                    s.shape.kind(),
                    s.entity,
                    s.restitution,
                )
            }
        };

        // Without a rest speed, a ball busy beyond ELASTIC_AFTER collisions in this step collides
        // elastically for the rest of it (the TC model): wedged, it would collide without end
        let busy = |k: usize| self.balls.counter[k] >= ELASTIC_AFTER;
        let e = if self.rest_speed == 0.0 && (busy(i) || other_ball.is_some_and(busy)) {
            1.0
        } else {
            combine_restitution(self.balls.material[i].restitution, restitution)
        };
        let Some(response) = resolve(me, other, proximity.normal, e, self.rest_speed) else {
            return false;
        };
        let n = proximity.normal;
        let depth = proximity.depth();
        if let Some(j) = other_ball {
            self.links.push((i as u32, j as u32));
        }
        // A sleeping ball holds in a resting contact and sleeps on; a harder hit wakes it (the
        // asking ball sleeps only when it is a roaming one asking in the first predictions)
        if self.balls.rest[i].asleep() && !response.resting {
            self.balls.rest[i].wake();
        }
        let moved = other_ball.filter(|&j| {
            let rest = &mut self.balls.rest[j];
            if rest.asleep() && !response.resting {
                rest.wake();
            }
            !rest.asleep()
        });
        self.balls.body[i].velocity = response.velocity_a;
        self.balls.counter[i] += 1;
        if response.a_rests_on_b {
            self.balls.supports_mut(i).add(proximity.normal);
        }
        if response.resting {
            self.balls.material[i].resting_hits += 1;
            if let Some(j) = other_ball {
                self.balls.material[j].resting_hits += 1;
            }
        }
        match moved {
            Some(j) => {
                self.balls.body[j].velocity = response.velocity_b;
                self.balls.counter[j] += 1;
                if response.b_rests_on_a {
                    self.balls.supports_mut(j).add(-n);
                }
                // Push apart an overlap, by inverse mass
                if depth > 0.0 {
                    let (wa, wb) = (me.inverse_mass, other.inverse_mass);
                    self.balls.body[i].position += n * (depth * wa / (wa + wb));
                    self.balls.body[j].position -= n * (depth * wb / (wa + wb));
                    self.neighbours.relist(j, self.balls.body[j].position);
                    self.neighbours.relist(i, self.balls.body[i].position);
                }
            }
            None if depth > 0.0 => {
                self.balls.body[i].position += n * depth;
                self.neighbours.relist(i, self.balls.body[i].position);
            }
            None => {}
        }

        self.report.stats.count(kind);
        self.report.events.push(CollisionEvent {
            a: self.balls.entity[i],
            b: entity,
            kind,
            time: now,
            point: proximity.point,
            normal: n,
            impulse: response.impulse,
        });

        self.predict(i, now, t_end, strategy, false, moved);
        if let Some(j) = moved {
            self.predict(j, now, t_end, strategy, false, None);
        }
        true
    }

    /// Hold a contact reached after the budget ran out: its moving balls stop where they touch
    /// and stand still for the rest of the step, keeping their velocity for the next one.
    /// Still balls are predicted again, so balls heading for them stop against them in turn.
    fn hold<S: ToiStrategy + ?Sized>(
        &mut self,
        i: usize,
        other: Other,
        now: Real,
        t_end: Real,
        strategy: &S,
    ) {
        self.report.stats.events_cap_hits += 1;
        let other = match other {
            Other::Ball(j) => Some(j as usize),
            Other::Static(_) => None,
        };
        let mut stopping = [None; 2];
        for (slot, k) in stopping.iter_mut().zip(std::iter::once(i).chain(other)) {
            self.balls.advance(k, now);
            let velocity = self.balls.body[k].velocity;
            // Already still
            if velocity == Vec3::ZERO {
                continue;
            }
            self.stopped.push((k as u32, velocity));
            self.balls.body[k].velocity = Vec3::ZERO;
            self.balls.counter[k] += 1;
            *slot = Some(k);
        }
        let [first, second] = stopping;
        if let Some(k) = first {
            self.predict(k, now, t_end, strategy, false, second);
        }
        if let Some(k) = second {
            self.predict(k, now, t_end, strategy, false, None);
        }
    }

    /// Count the balls of each sleeping island into `island_size`, per ball.
    fn count_islands(&mut self) {
        let rests = &self.balls.rest;
        self.island_size.clear();
        self.island_size.resize(rests.len(), 0);
        self.sleepers.clear();
        self.sleepers
            .extend(rests.iter().enumerate().filter_map(|(i, r)| {
                r.island.map(|island| Sleeper {
                    island,
                    ball: i as u32,
                    island_size: 0,
                    surroundings: 0,
                })
            }));
        self.sleepers.sort_unstable_by_key(|s| s.island);
        for island in self.sleepers.chunk_by(|a, b| a.island == b.island) {
            for s in island {
                self.island_size[s.ball as usize] = island.len() as u32;
            }
        }
    }

    /// Write positions and velocities back, through the order they were gathered in.
    fn scatter(&mut self, world: &mut World) {
        self.count_islands();
        let query = world.query_mut::<(
            Entity,
            &mut Position,
            &mut Velocity,
            &Radius,
            &Mass,
            Option<&Restitution>,
            Option<&mut PreviousPosition>,
            Option<&mut Sleep>,
        )>();
        let mut rank = std::mem::take(&mut self.keys);
        rank.clear();
        rank.resize(self.order.len(), 0);
        for (k, &w) in self.order.iter().enumerate() {
            rank[w as usize] = k as u64;
        }
        self.sleepless.clear();
        for (w, (entity, p, v, r, m, e, previous, sleep)) in query.into_iter().enumerate() {
            let i = rank[w] as usize;
            debug_assert_eq!(entity, self.balls.entity[i], "same query, same order");
            p.0 = self.balls.body[i].position;
            v.0 = self.balls.body[i].velocity;
            if let Some(previous) = previous {
                previous.0 = self.balls.start[i];
            }
            let rest = &self.balls.rest[i];
            let mut state = Sleep {
                still_for: rest.still_for,
                anchor: rest.anchor,
                island: rest.island,
                woken_from: None,
                gravity: self.config.gravity,
                ..Sleep::default()
            };
            if rest.asleep() {
                let restitution = e.map_or(1.0, |e| e.0);
                state.written = change::ball(p.0, r.0, m.0, restitution);
                state.surroundings = self.surroundings;
                state.island_size = self.island_size[i];
            }
            match sleep {
                Some(sleep) => *sleep = state,
                None if self.config.sleep.is_some() => self.sleepless.push((entity, state)),
                None => {}
            }
        }
        self.keys = rank;
        for (entity, state) in self.sleepless.drain(..) {
            world
                .insert_one(entity, state)
                .expect("the entity was just stepped");
        }
    }
}
