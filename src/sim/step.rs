//! The stepper: advance a world by `dt`, resolving every collision in time order.
//!
//! One step, in the order of the design:
//! 1. Gather: copy the balls out of the [`World`] into arrays, and read the static shapes.
//! 2. Gravity: `v += g dt` for every ball, once per step (NeHe's order: paths are straight
//!    lines within a step; a ball thrown sideways moves on a polyline of straight steps, not on
//!    a parabola).
//! 3. Broad phase: each ball's swept path over the step goes into a spatial hash.
//! 4. Predict: every candidate pair gets a time-of-impact query; hits go into a min-heap of
//!    events, each tagged with the collision counters of its balls.
//! 5. Resolve: pop the earliest event, drop it if a counter has moved on (the ball has collided
//!    since it was predicted), advance just those balls to its time (each ball keeps its own
//!    clock), apply the impulse, and predict again for those balls only. Repeat until the heap
//!    is empty or the cap on events is reached.
//! 6. Finish: advance every ball to the end of the step, measure, and write back.
//!
//! The cost of a step grows with balls plus collisions, not with balls squared.
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

use std::num::NonZeroU64;

use hecs::{Entity, World};

use super::bodies::{BallBody, BallMaterial, Balls, permute};
use super::broadphase::{Aabb, NONE, Other, SpatialHash};
use super::calendar::{Calendar, Event};
use super::change;
use super::components::{
    Mass, Position, PreviousPosition, Radius, Restitution, Sleep, Velocity, combine_restitution,
};
use super::config::{MAX_LENGTH, StepConfig, StepError};
use super::events::{CollisionEvent, StepReport, StepStats};
use super::response::{Body, Frozen, Supports, approach_speed, resolve};
use super::sleep::{Islands, Rest};
use super::statics::{self, Static};
use crate::geometry::Shape;
use crate::math::{Real, Vec3, positive};
use crate::toi::{MovingBall, PairKind, Toi, ToiStrategy};

/// Most cells a ball's path may cover before it is tested against every ball instead.
const BALL_CELL_LIMIT: usize = 4096;

/// Most cells a finite static shape may cover before it is tested against every ball instead.
const STATIC_CELL_LIMIT: usize = 4096;

/// Collisions of one ball in one step after which, in a step without a rest speed (no gravity
/// by default), its contacts in that step are elastic: the TC model of inelastic collapse
/// (Luding and McNamara, "How to handle the inelastic collapse of a dissipative hard-sphere gas
/// with the TC model", Granular Matter, 1998). A ball wedged with a restitution below 1
/// (between a heavy ball and a wall, say) would otherwise collide ever faster without end;
/// elastic, the wedge lets go after a bounded number of collisions. Energy still never rises.
/// With a rest speed, resting contacts end such sequences instead.
const ELASTIC_AFTER: u32 = 64;

/// Worlds of at most this many balls put everything in one cell: testing every pair's boxes
/// costs less than hashing paths into small cells.
const SMALL_WORLD: usize = 32;

/// Steps a [`World`] of balls and static shapes.
///
/// The stepper owns no simulation state: every step reads the world and writes it back, so a
/// user can change anything between steps (spawn, despawn, set velocities, switch strategy).
/// It keeps its buffers between steps to avoid allocating, and the report of the last step.
/// Sleep state lives in each ball's [`Sleep`] component, with fingerprints that wake a sleeper
/// when the user edits it, what it rests on, or the configuration (see
/// [`sleep`](super::sleep)).
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
    /// Statics tested against every ball (planes, infinite cylinders, huge shapes).
    everywhere: Vec<u32>,
    roaming: Vec<u32>,
    hash: SpatialHash,
    bucket_pool: Vec<u32>,
    calendar: Calendar,
    seen_ball: Vec<u32>,
    seen_static: Vec<u32>,
    stamp: u32,
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
    /// Per ball, its path is longer than a cell, or roams: searched ball by ball.
    long: Vec<bool>,
    /// Per static, its box (empty for those tested everywhere).
    static_boxes: Vec<Aabb>,
    /// The pairs of the first predictions.
    first_pairs: Vec<(u32, Other)>,
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
            if resolved >= cap {
                self.hold(event, dt, strategy);
            } else if self.resolve(event, dt, strategy) {
                resolved += 1;
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
            &self.everywhere,
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

    /// Size the spatial hash for this step and register every path and finite static.
    fn build_broadphase(&mut self, dt: Real) {
        let n = self.balls.len();
        let reach: Real = (0..n)
            .map(|i| 2.0 * self.balls.body[i].radius + self.balls.body[i].velocity.length() * dt)
            .sum::<Real>()
            / n.max(1) as Real;
        // Cells 1.5 times the mean path box: fewer cells per path (about 4.6 instead of 8), at
        // the price of more entries per cell. Measured best between 1.4 and 2 on elastic gases.
        let cell = if n <= SMALL_WORLD {
            None
        } else if reach.is_finite() && reach > 0.0 {
            Some(1.5 * reach)
        } else {
            Some(1.0)
        };
        // About two buckets per registration: a ball's short path covers a few cells, and a
        // small world scans few empty buckets
        self.hash.reset(cell, 2 * n + 8 * self.statics.len());
        self.sort_spatially();
        self.bucket_pool.clear();
        self.pairs.clear();
        self.roaming.clear();
        self.everywhere.clear();
        self.seen_ball.clear();
        self.seen_ball.resize(n, 0);
        self.seen_static.clear();
        self.seen_static.resize(self.statics.len(), 0);
        self.stamp = 0;

        for k in 0..self.statics.len() {
            let start = self.bucket_pool.len();
            let registered = self.statics[k].shape.aabb().and_then(|aabb| {
                self.hash
                    .box_buckets(&aabb, STATIC_CELL_LIMIT, &mut self.bucket_pool)
            });
            if registered.is_some() {
                for &bucket in &self.bucket_pool[start..] {
                    self.hash.insert(bucket, Other::Static(k as u32), 0);
                }
                self.bucket_pool.truncate(start);
            } else {
                self.everywhere.push(k as u32);
                self.statics[k].everywhere = true;
            }
        }

        let balls = &mut self.balls;
        balls.buckets.resize(n, (0, 0));
        balls.roaming.resize(n, false);
        for i in 0..n {
            self.register(i, 0.0, dt);
        }
        self.hash
            .finish_bulk(&self.balls.buckets, &self.bucket_pool);
    }

    /// Reorder the balls along a Z-order curve of their cells, so that neighbours in space are
    /// neighbours in memory (a small world keeps the world's order). The key includes the gathered index, so the order is the same
    /// whatever order the sort starts from (last step's, which makes it nearly sorted already).
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
        keys.extend((0..n).map(|w| self.hash.z_order(self.balls.body[w].position)));
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

    /// Register ball `i`'s path from `now` to `t_end` in the spatial hash.
    fn register(&mut self, i: usize, now: Real, t_end: Real) {
        let balls = &mut self.balls;
        let from = balls.body[i].position + balls.body[i].velocity * (now - balls.body[i].clock);
        let to = from + balls.body[i].velocity * (t_end - now);
        let radius = balls.body[i].radius;
        let start = self.bucket_pool.len();
        match self
            .hash
            .path_buckets(from, to, radius, BALL_CELL_LIMIT, &mut self.bucket_pool)
        {
            Some(_) => {
                balls.roaming[i] = false;
                if !self.hash.is_bulk_open() {
                    for &bucket in &self.bucket_pool[start..] {
                        self.hash
                            .insert(bucket, Other::Ball(i as u32), balls.counter[i]);
                    }
                }
                balls.buckets[i] = (start as u32, (self.bucket_pool.len() - start) as u32);
            }
            None => {
                balls.roaming[i] = true;
                balls.buckets[i] = (start as u32, 0);
                self.roaming.push(i as u32);
            }
        }
    }

    /// Call `visit(other)` once for every ball or static that ball `i`'s registered path may
    /// reach.
    fn candidates(&mut self, i: usize, mut visit: impl FnMut(&mut Self, Other)) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen_ball.fill(0);
            self.seen_static.fill(0);
            self.stamp = 1;
        }
        let stamp = self.stamp;
        let mut found = std::mem::take(&mut self.found);
        found.clear();
        let everything = self.balls.roaming[i];
        if everything {
            found.extend(
                (0..self.balls.len() as u32)
                    .filter(|&j| j as usize != i)
                    .map(Other::Ball),
            );
            found.extend((0..self.statics.len() as u32).map(Other::Static));
        } else {
            let (start, len) = self.balls.buckets[i];
            for &bucket in &self.bucket_pool[start as usize..(start + len) as usize] {
                self.hash.for_each(bucket, |item, entry_stamp| match item {
                    Other::Static(k) => {
                        if self.seen_static[k as usize] != stamp {
                            self.seen_static[k as usize] = stamp;
                            found.push(item);
                        }
                        true
                    }
                    Other::Ball(j) => {
                        let j = j as usize;
                        if entry_stamp != self.balls.counter[j] {
                            return false;
                        }
                        // Itself, or seen
                        if j != i && self.seen_ball[j] != stamp {
                            self.seen_ball[j] = stamp;
                            found.push(item);
                        }
                        true
                    }
                });
            }
            for &j in &self.roaming {
                let j = j as usize;
                if self.balls.roaming[j] && j != i && self.seen_ball[j] != stamp {
                    self.seen_ball[j] = stamp;
                    found.push(Other::Ball(j as u32));
                }
            }
            for &k in &self.everywhere {
                if self.seen_static[k as usize] != stamp {
                    self.seen_static[k as usize] = stamp;
                    found.push(Other::Static(k));
                }
            }
        }
        for &other in &found {
            visit(self, other);
        }
        self.found = found;
    }

    /// Predict ball `i`'s contacts from `now` to `t_end`. On the first pass (`first`), each
    /// pair of balls is asked once, by its lower index.
    fn predict<S: ToiStrategy + ?Sized>(
        &mut self,
        i: usize,
        now: Real,
        t_end: Real,
        strategy: &S,
        first: bool,
    ) {
        let me = self.balls.moving(i, now);
        let my_box = self.balls.path_box(i, now, t_end);
        self.candidates(i, |this, other| {
            let skip = match other {
                Other::Static(k) => {
                    let s = &this.statics[k as usize];
                    s.everywhere && s.shape.misses_box(&my_box)
                }
                Other::Ball(j) => {
                    let j = j as usize;
                    let asked_by_j = first && !this.asks_first(i, j);
                    asked_by_j || !my_box.overlaps(&this.balls.path_box(j, now, t_end))
                }
            };
            if !skip {
                this.ask(i, other, &me, now, t_end, strategy);
            }
        });
    }

    /// Ask `strategy` when ball `i` (as `me`, moving from `now`) meets `other` before `t_end`,
    /// and schedule what it finds. The one place a query is made.
    fn ask<S: ToiStrategy + ?Sized>(
        &mut self,
        i: usize,
        other: Other,
        me: &MovingBall,
        now: Real,
        t_end: Real,
        strategy: &S,
    ) {
        let t_max = t_end - now;
        let toi = match other {
            Other::Static(k) => {
                let s = &self.statics[k as usize];
                // Statics tested everywhere are measured against every ball anyway
                if !s.everywhere {
                    self.pairs.push((i as u32, other));
                }
                s.shape.toi(strategy, me, t_max)
            }
            Other::Ball(j) => {
                self.pairs.push((i as u32, other));
                strategy.ball_ball(me, &self.balls.moving(j as usize, now), t_max)
            }
        };
        self.report.stats.toi_queries += 1;
        self.schedule(i, other, now, t_end, me, toi);
    }

    /// The first predictions of the step, every pair asked once.
    ///
    /// Pairs of short paths (no longer than a cell, so registered in exactly the cells of their
    /// box) are found bucket by bucket: a pair whose boxes overlap is asked in the bucket of
    /// the cell holding the lowest corner of the boxes' overlap, which both registered, and
    /// nowhere else. That reads each bucket once, in order, instead of every ball's buckets
    /// with a deduplication. Long and roaming paths search their candidates as after a
    /// collision. Statics tested everywhere are asked by every short path directly.
    fn predict_all<S: ToiStrategy + ?Sized>(&mut self, dt: Real, strategy: &S) {
        let n = self.balls.len();
        self.long.clear();
        for i in 0..n {
            let b = &self.balls.body[i];
            let to = b.position + b.velocity * dt;
            let asleep = self.balls.rest[i].asleep();
            self.long
                .push(self.balls.roaming[i] || (!asleep && self.hash.pieces(b.position, to) > 1));
        }
        self.static_boxes.clear();
        self.static_boxes.extend(
            self.statics
                .iter()
                .map(|s| s.shape.aabb().unwrap_or_default()),
        );

        let mut first = std::mem::take(&mut self.first_pairs);
        first.clear();
        let (balls, long) = (&self.balls, &self.long);
        let boxes = |i: usize| {
            let b = &balls.body[i];
            Aabb::of_path(b.position, b.position + b.velocity * dt, b.radius)
        };
        let asleep = |i: usize| balls.rest[i].asleep();
        for bucket in 0..self.hash.bucket_count() {
            let entries = self.hash.bulk_entries(bucket);
            for (p, &x) in entries.iter().enumerate() {
                for &y in &entries[p + 1..] {
                    let (x, y) = (Other::unpack(x), Other::unpack(y));
                    // A ball, and a ball or a static
                    let (i, other) = match (x, y) {
                        (Other::Ball(i), other) | (other, Other::Ball(i)) => (i as usize, other),
                        _ => continue,
                    };
                    let (corner, pair) = match other {
                        Other::Static(k) => {
                            let k = k as usize;
                            if long[i] || asleep(i) || !boxes(i).overlaps(&self.static_boxes[k]) {
                                continue;
                            }
                            (
                                boxes(i).min.max(self.static_boxes[k].min),
                                (i as u32, other),
                            )
                        }
                        Other::Ball(j) => {
                            let j = j as usize;
                            if long[i] || long[j] || (asleep(i) && asleep(j)) {
                                continue;
                            }
                            if !boxes(i).overlaps(&boxes(j)) {
                                continue;
                            }
                            // The awake one asks, or the lower index
                            let pair = if asleep(i) || (!asleep(j) && j < i) {
                                (j as u32, Other::Ball(i as u32))
                            } else {
                                (i as u32, other)
                            };
                            (boxes(i).min.max(boxes(j).min), pair)
                        }
                    };
                    if self.hash.bucket_of(corner) as usize == bucket {
                        first.push(pair);
                    }
                }
            }
        }
        for &(a, other) in &first {
            let me = self.balls.moving(a as usize, 0.0);
            self.ask(a as usize, other, &me, 0.0, dt, strategy);
        }
        self.first_pairs = first;
        for i in 0..n {
            if self.long[i] || self.balls.rest[i].asleep() {
                continue;
            }
            let me = self.balls.moving(i, 0.0);
            let b = &self.balls.body[i];
            let my_box = Aabb::of_path(b.position, b.position + b.velocity * dt, b.radius);
            for e in 0..self.everywhere.len() {
                let k = self.everywhere[e];
                if !self.statics[k as usize].shape.misses_box(&my_box) {
                    self.ask(i, Other::Static(k), &me, 0.0, dt, strategy);
                }
            }
        }

        for i in 0..n {
            if self.long[i] {
                self.predict(i, 0.0, dt, strategy, true);
            }
        }
    }

    /// In the first predictions, whether long path `i` asks about ball `j`: pairs of two short
    /// paths are asked bucket by bucket, the others once each, by an awake long path if there
    /// is one (the lower index of two), and never between two sleeping balls.
    fn asks_first(&self, i: usize, j: usize) -> bool {
        let (ai, aj) = (self.balls.rest[i].asleep(), self.balls.rest[j].asleep());
        match (ai, aj) {
            (true, true) => false,
            (true, false) => !self.long[j],
            (false, true) => true,
            (false, false) => !self.long[j] || i < j,
        }
    }

    /// Push the event a query found, if it is one.
    fn schedule(
        &mut self,
        i: usize,
        other: Other,
        now: Real,
        t_end: Real,
        me: &MovingBall,
        toi: Toi,
    ) {
        let time = match toi {
            Toi::Hit(contact) => (now + contact.time).min(t_end),
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
        self.calendar
            .push(time, i as u32, other, &self.balls.counter);
    }

    /// Resolve one event; false when the pair turned out not to be approaching.
    fn resolve<S: ToiStrategy + ?Sized>(
        &mut self,
        event: Event,
        t_end: Real,
        strategy: &S,
    ) -> bool {
        let (i, now) = (event.a as usize, event.time);
        self.balls.advance(i, now);
        let ball = self.balls.ball(i);
        let down = self.config.gravity.normalize_or_zero();
        let me = self.balls.response_body(i, down);

        let other_ball = match event.other() {
            Other::Ball(j) => Some(j as usize),
            Other::Static(_) => None,
        };
        let (proximity, other, kind, entity, restitution) = match event.other() {
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
                }
            }
            None if depth > 0.0 => self.balls.body[i].position += n * depth,
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

        self.register(i, now, t_end);
        self.predict(i, now, t_end, strategy, false);
        if let Some(j) = moved {
            self.register(j, now, t_end);
            self.predict(j, now, t_end, strategy, false);
        }
        true
    }

    /// Hold a contact reached after the budget ran out: its moving balls stop where they touch
    /// and stand still for the rest of the step, keeping their velocity for the next one.
    /// Still balls are predicted again, so balls heading for them stop against them in turn.
    fn hold<S: ToiStrategy + ?Sized>(&mut self, event: Event, t_end: Real, strategy: &S) {
        self.report.stats.events_cap_hits += 1;
        let now = event.time;
        let other = match event.other() {
            Other::Ball(j) => Some(j as usize),
            Other::Static(_) => None,
        };
        let mut stopping = [None; 2];
        for (slot, k) in stopping
            .iter_mut()
            .zip(std::iter::once(event.a as usize).chain(other))
        {
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
        for k in stopping.into_iter().flatten() {
            self.register(k, now, t_end);
            self.predict(k, now, t_end, strategy, false);
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
