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

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;
use std::fmt;
use std::num::NonZeroU64;

use hecs::{Entity, World};

use super::broadphase::{Aabb, NONE, STATIC_BIT, SpatialHash};
use super::change;
use super::components::{
    Mass, Position, PreviousPosition, Radius, Restitution, Sleep, Velocity, combine_restitution,
};
use super::events::{CollisionEvent, StepReport, StepStats};
use super::response::{
    Body, FREEZE_AFTER, FREEZE_ALWAYS_AFTER, Frozen, Supports, approach_speed, resolve,
};
use super::sleep::{Islands, Rest, SleepConfig};
use crate::geometry::{Ball, ConvexPolygon, Cylinder, Plane, Proximity, Shape};
use crate::math::{Real, Vec3, positive};
use crate::toi::{MovingBall, PairKind, Strategy, Toi, ToiStrategy};

/// Most cells a ball's path may cover before it is tested against every ball instead.
const BALL_CELL_LIMIT: usize = 4096;

/// Most cells a finite static shape may cover before it is tested against every ball instead.
const STATIC_CELL_LIMIT: usize = 4096;

/// Largest coordinate, radius, velocity component, or distance moved along an axis in one step
/// that a ball may have: the sweeps square and multiply lengths and speeds (up to fourth
/// powers), which must stay finite and exact to rounding. Far beyond any scene (scene files
/// allow 1e9).
pub const MAX_LENGTH: Real = 1e50;

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

/// How a [`Stepper`] steps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepConfig {
    /// Acceleration of every ball, in length units per time unit squared. Default
    /// `(0, -9.81, 0)`.
    pub gravity: Vec3,
    /// How times of impact are found. Default [`Strategy::Analytic`]. May change between steps.
    pub strategy: Strategy,
    /// Approach speed below which a contact is resolved as perfectly inelastic, so that balls
    /// come to rest. `None` (the default) uses `2 |gravity| dt`: the speed gravity adds in two
    /// steps, and zero without gravity, so an elastic gas stays exactly elastic.
    pub rest_speed: Option<Real>,
    /// Most collisions resolved in one step. `None` (the default) allows `1000 + 100` per ball.
    /// Past it, contacts stop the balls that reach them for the rest of the step instead of
    /// being resolved (see the [module docs](self)): nothing passes through anything.
    pub max_events_per_step: Option<usize>,
    /// When still balls fall asleep; `None` keeps every ball awake. Default
    /// [`SleepConfig::default`].
    pub sleep: Option<SleepConfig>,
}

impl Default for StepConfig {
    fn default() -> Self {
        Self {
            gravity: Vec3::new(0.0, -9.81, 0.0),
            strategy: Strategy::Analytic,
            rest_speed: None,
            max_events_per_step: None,
            sleep: Some(SleepConfig::default()),
        }
    }
}

/// Why a step was refused. A refused step changes nothing.
#[derive(Clone, Debug, PartialEq)]
pub enum StepError {
    /// `dt` is zero, negative or not finite.
    InvalidDt(Real),
    /// A ball has a value the stepper cannot use.
    InvalidBall {
        /// The ball.
        entity: Entity,
        /// The component at fault (`"position"`, `"radius"`, ...).
        field: &'static str,
        /// What is allowed.
        allowed: &'static str,
    },
    /// A field of the [`StepConfig`] has a value the stepper cannot use.
    InvalidConfig {
        /// The field (`"gravity"`, `"sleep.time"`, ...).
        field: &'static str,
        /// What is allowed.
        allowed: &'static str,
    },
    /// A ball is out of the range the sweeps are exact in: a coordinate, its radius or a
    /// velocity component above [`MAX_LENGTH`], or `dt` so long for its speed that it could
    /// move further than that along an axis (gravity included); or its position or velocity would leave the finite
    /// numbers in this step. The world is left as it was before the step.
    OutOfRange {
        /// The first such ball, in the stepper's order.
        entity: Entity,
        /// `"position"`, `"radius"` or `"velocity"`.
        field: &'static str,
        /// The step that was refused.
        dt: Real,
    },
    /// A static shape has a value the stepper cannot use.
    InvalidStatic {
        /// The shape.
        entity: Entity,
        /// What is wrong and what is allowed.
        reason: &'static str,
    },
}

impl fmt::Display for StepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidDt(dt) => write!(f, "dt is {dt}; allowed: a finite number > 0"),
            Self::InvalidBall {
                entity,
                field,
                allowed,
            } => write!(f, "ball {entity:?} has a bad {field}; allowed: {allowed}"),
            Self::InvalidConfig { field, allowed } => {
                write!(f, "step config has a bad {field}; allowed: {allowed}")
            }
            Self::OutOfRange { entity, field, dt } => write!(
                f,
                "ball {entity:?}: its {field} is out of range in a step of {dt}; allowed: \
                 coordinates, radius, velocity and velocity times dt at most {MAX_LENGTH:e} in \
                 magnitude (the step is refused)"
            ),
            Self::InvalidStatic { entity, reason } => write!(f, "shape {entity:?}: {reason}"),
        }
    }
}

impl std::error::Error for StepError {}

/// A static shape as the stepper keeps it.
#[derive(Clone, Debug)]
pub(super) enum StaticShape {
    Plane(Plane),
    Cylinder(Cylinder),
    Polygon(ConvexPolygon),
}

impl StaticShape {
    fn kind(&self) -> PairKind {
        match self {
            Self::Plane(_) => PairKind::BallPlane,
            Self::Cylinder(_) => PairKind::BallCylinder,
            Self::Polygon(_) => PairKind::BallPolygon,
        }
    }

    fn proximity(&self, ball: &Ball) -> Proximity {
        match self {
            Self::Plane(s) => s.proximity(ball),
            Self::Cylinder(s) => s.proximity(ball),
            Self::Polygon(s) => s.proximity(ball),
        }
    }

    fn toi<S: ToiStrategy + ?Sized>(&self, strategy: &S, ball: &MovingBall, t_max: Real) -> Toi {
        match self {
            Self::Plane(s) => strategy.ball_plane(ball, s, t_max),
            Self::Cylinder(s) => strategy.ball_cylinder(ball, s, t_max),
            Self::Polygon(s) => strategy.ball_polygon(ball, s, t_max),
        }
    }

    /// True when no ball inside `aabb` can touch the shape: the box lies wholly in front of a
    /// plane, by more than rounding. Always false for other shapes.
    #[inline]
    fn misses_box(&self, aabb: &Aabb) -> bool {
        let Self::Plane(plane) = self else {
            return false;
        };
        // The corner deepest along the normal
        let n = plane.normal;
        let corner = Vec3::select(n.cmpgt(Vec3::ZERO), aabb.min, aabb.max);
        let margin = 1e-9 * (1.0 + corner.abs().max_element());
        plane.signed_distance(corner) > margin
    }

    /// The box of a finite shape; `None` for planes and infinite cylinders.
    fn aabb(&self) -> Option<Aabb> {
        match self {
            Self::Plane(_) | Self::Cylinder(Cylinder::Infinite(_)) => None,
            Self::Cylinder(Cylinder::Capped(c)) => Some(Aabb::of_path(c.a, c.b, c.radius)),
            Self::Polygon(p) => {
                let (min, max) = p.vertices().iter().fold(
                    (Vec3::splat(Real::INFINITY), Vec3::splat(Real::NEG_INFINITY)),
                    |(lo, hi), v| (lo.min(*v), hi.max(*v)),
                );
                Some(Aabb { min, max })
            }
        }
    }

    /// The signed distance from `point` to the surface (negative inside), and whether a ball
    /// centred there has its centre behind a plane or inside a cylinder.
    #[inline]
    fn gap(&self, point: Vec3) -> (Real, bool) {
        match self {
            Self::Plane(s) => {
                let gap = s.signed_distance(point);
                (gap, gap < 0.0)
            }
            Self::Cylinder(Cylinder::Infinite(s)) => {
                let gap = s.signed_distance(point);
                (gap, gap < 0.0)
            }
            Self::Cylinder(s) => {
                let gap = s.point_proximity(point).distance;
                (gap, gap < 0.0)
            }
            Self::Polygon(s) => (s.point_proximity(point).distance, false),
        }
    }
}

#[derive(Clone, Debug)]
struct Static {
    entity: Entity,
    shape: StaticShape,
    restitution: Real,
    /// Tested against every ball rather than registered in the spatial hash.
    everywhere: bool,
}

/// What the broad phase and the queries read of a ball: one cache line.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct BallBody {
    position: Vec3,
    velocity: Vec3,
    radius: Real,
    /// The time `position` refers to: each ball keeps its own clock.
    clock: Real,
}

/// What only the response reads of a ball.
#[derive(Clone, Copy, Debug)]
struct BallMaterial {
    inverse_mass: Real,
    restitution: Real,
    /// Resting contacts in this step.
    resting_hits: u32,
    /// What it has come to rest against in this step: a place in [`Balls::supports`], or
    /// [`NONE`] (most balls, in most steps, touch nothing).
    supports: u32,
}

impl BallBody {
    /// Where the ball is at `now` on its current path.
    #[inline]
    fn position_at(&self, now: Real) -> Vec3 {
        self.position + self.velocity * (now - self.clock)
    }
}

/// The balls of one step, as arrays.
#[derive(Debug, Default)]
struct Balls {
    entity: Vec<Entity>,
    /// What the event loop reads and writes, kept together for the cache.
    body: Vec<BallBody>,
    material: Vec<BallMaterial>,
    /// Collisions so far this step; events and registrations made before the last one are
    /// stale. Apart from the bodies so that the broad phase filters without touching them.
    counter: Vec<u32>,
    /// Sleep state: clocks, islands, what woke.
    rest: Vec<Rest>,
    start: Vec<Vec3>,
    /// The registered buckets: a range of the bucket pool.
    buckets: Vec<(u32, u32)>,
    /// The registered path covers too many cells: tested against every ball.
    roaming: Vec<bool>,
    /// The supports of the balls that have any in this step.
    supports: Vec<Supports>,
}

impl Balls {
    fn clear(&mut self) {
        self.entity.clear();
        self.body.clear();
        self.material.clear();
        self.counter.clear();
        self.rest.clear();
        self.start.clear();
        self.buckets.clear();
        self.roaming.clear();
        self.supports.clear();
    }

    fn len(&self) -> usize {
        self.entity.len()
    }

    /// The ball as a moving ball whose `t = 0` is `now`.
    #[inline]
    fn moving(&self, i: usize, now: Real) -> MovingBall {
        let b = &self.body[i];
        MovingBall::new(b.position_at(now), b.radius, b.velocity)
    }

    /// The ball as it stands at its own clock.
    #[inline]
    fn ball(&self, i: usize) -> Ball {
        Ball::new(self.body[i].position, self.body[i].radius)
    }

    /// What ball `i` rests against in this step.
    fn supports(&self, i: usize) -> Supports {
        match self.material[i].supports {
            NONE => Supports::default(),
            k => self.supports[k as usize],
        }
    }

    /// What ball `i` rests against in this step, to be added to.
    fn supports_mut(&mut self, i: usize) -> &mut Supports {
        let place = &mut self.material[i].supports;
        if *place == NONE {
            *place = self.supports.len() as u32;
            self.supports.push(Supports::default());
        }
        &mut self.supports[*place as usize]
    }

    /// The ball as the response sees it, under gravity along `down` (unit, or zero).
    fn response_body(&self, i: usize, down: Vec3) -> Body {
        let material = &self.material[i];
        // A sleeping ball holds in resting contacts; a busy one holds downwards, and a very
        // busy one, or a busy one without gravity, every way
        let hits = material.resting_hits;
        let frozen = if self.rest[i].asleep()
            || hits >= FREEZE_ALWAYS_AFTER
            || (hits >= FREEZE_AFTER && down == Vec3::ZERO)
        {
            Frozen::Always
        } else if hits >= FREEZE_AFTER {
            Frozen::Downward(down)
        } else {
            Frozen::No
        };
        Body {
            velocity: self.body[i].velocity,
            inverse_mass: material.inverse_mass,
            supports: self.supports(i),
            frozen,
        }
    }

    /// The box of the ball's path from `now` to `t_end`.
    #[inline]
    fn path_box(&self, i: usize, now: Real, t_end: Real) -> Aabb {
        let b = &self.body[i];
        let from = b.position_at(now);
        Aabb::of_path(from, from + b.velocity * (t_end - now), b.radius)
    }

    #[inline]
    fn advance(&mut self, i: usize, now: Real) {
        let b = &mut self.body[i];
        b.position = b.position_at(now);
        b.clock = now;
    }

    fn kinetic_energy(&self) -> Real {
        self.body
            .iter()
            .zip(&self.material)
            .map(|(b, m)| 0.5 * b.velocity.length_squared() / m.inverse_mass)
            .sum()
    }

    fn momentum(&self) -> Vec3 {
        self.body
            .iter()
            .zip(&self.material)
            .map(|(b, m)| b.velocity / m.inverse_mass)
            .sum()
    }
}

/// A predicted collision of ball `a` with ball or static `b`.
#[derive(Clone, Copy, Debug)]
struct Event {
    time: Real,
    a: u32,
    /// A ball index, or a static index with [`STATIC_BIT`] set.
    b: u32,
    count_a: u32,
    count_b: u32,
}

impl Event {
    fn key(&self) -> (Real, u32, u32) {
        (self.time, self.a, self.b)
    }
}

impl PartialEq for Event {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Event {}

impl PartialOrd for Event {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Event {
    /// By time, then by indices, so that simultaneous events resolve in a fixed order.
    fn cmp(&self, other: &Self) -> Ordering {
        let (ta, a, b) = self.key();
        let (tb, c, d) = other.key();
        ta.total_cmp(&tb).then(a.cmp(&c)).then(b.cmp(&d))
    }
}

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
    heap: BinaryHeap<Reverse<Event>>,
    seen_ball: Vec<u32>,
    seen_static: Vec<u32>,
    stamp: u32,
    /// Scratch list of candidates.
    found: Vec<u32>,
    /// The balls in memory order: gathered index of each.
    order: Vec<u32>,
    /// The rest speed of the current step.
    rest_speed: Real,
    /// Every pair asked about this step (statics tested everywhere apart): any pair that
    /// overlaps at the end of the step is among them.
    pairs: Vec<(u32, u32)>,
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
    first_pairs: Vec<(u32, u32)>,
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
        self.check_config()?;
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
        while let Some(Reverse(event)) = self.heap.pop() {
            if !self.is_current(&event) {
                continue;
            }
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
        self.measure();
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

    /// Refuse a configuration the stepper cannot use.
    fn check_config(&self) -> Result<(), StepError> {
        let config = &self.config;
        let bad = |field, allowed| Err(StepError::InvalidConfig { field, allowed });
        if !config.gravity.is_finite() {
            return bad("gravity", "finite components");
        }
        if config
            .rest_speed
            .is_some_and(|v| !(v.is_finite() && v >= 0.0))
        {
            return bad("rest_speed", "None, or a finite number >= 0");
        }
        if let Some(sleep) = config.sleep {
            if sleep.speed.is_some_and(|v| !(v.is_finite() && v >= 0.0)) {
                return bad("sleep.speed", "None, or a finite number >= 0");
            }
            if !(sleep.drift.is_finite() && sleep.drift >= 0.0) {
                return bad("sleep.drift", "a finite number >= 0");
            }
            if !positive(sleep.time) {
                return bad("sleep.time", "a finite number > 0");
            }
        }
        Ok(())
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

        self.statics.clear();
        let restitution = |e: Option<&Restitution>| e.map_or(1.0, |e| e.0);
        for (entity, plane, e) in world.query_mut::<(Entity, &Plane, Option<&Restitution>)>() {
            if !(plane.point.is_finite()
                && plane.normal.is_finite()
                && plane.normal.is_normalized())
            {
                return Err(StepError::InvalidStatic {
                    entity,
                    reason: "plane needs a finite point and a unit normal (use Plane::new)",
                });
            }
            self.statics.push(Static {
                entity,
                shape: StaticShape::Plane(*plane),
                restitution: restitution(e),
                everywhere: false,
            });
        }
        for (entity, cylinder, e) in world.query_mut::<(Entity, &Cylinder, Option<&Restitution>)>()
        {
            let valid = match cylinder {
                Cylinder::Capped(c) => {
                    c.a.is_finite() && c.b.is_finite() && c.a != c.b && positive(c.radius)
                }
                Cylinder::Infinite(c) => {
                    c.point.is_finite() && c.axis.is_normalized() && positive(c.radius)
                }
            };
            if !valid {
                return Err(StepError::InvalidStatic {
                    entity,
                    reason: "cylinder needs finite ends or a unit axis, and a radius > 0 \
                             (use CappedCylinder::new or InfiniteCylinder::new)",
                });
            }
            self.statics.push(Static {
                entity,
                shape: StaticShape::Cylinder(*cylinder),
                restitution: restitution(e),
                everywhere: false,
            });
        }
        for (entity, polygon, e) in
            world.query_mut::<(Entity, &ConvexPolygon, Option<&Restitution>)>()
        {
            self.statics.push(Static {
                entity,
                shape: StaticShape::Polygon(polygon.clone()),
                restitution: restitution(e),
                everywhere: false,
            });
        }
        if let Some(s) = self
            .statics
            .iter()
            .find(|s| !(0.0..=1.0).contains(&s.restitution))
        {
            return Err(StepError::InvalidStatic {
                entity: s.entity,
                reason: "restitution must be a number from 0 to 1",
            });
        }
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
                    self.hash.insert(bucket, k as u32 | STATIC_BIT, 0);
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
                        self.hash.insert(bucket, i as u32, balls.counter[i]);
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

    /// Call `visit(other)` once for every ball or static (with [`STATIC_BIT`]) that ball `i`'s
    /// registered path may reach.
    fn candidates(&mut self, i: usize, mut visit: impl FnMut(&mut Self, u32)) {
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
            found.extend((0..self.balls.len() as u32).filter(|&j| j as usize != i));
            found.extend((0..self.statics.len() as u32).map(|k| k | STATIC_BIT));
        } else {
            let (start, len) = self.balls.buckets[i];
            for &bucket in &self.bucket_pool[start as usize..(start + len) as usize] {
                self.hash.for_each(bucket, |item, entry_stamp| {
                    if item & STATIC_BIT != 0 {
                        let k = (item & !STATIC_BIT) as usize;
                        if self.seen_static[k] != stamp {
                            self.seen_static[k] = stamp;
                            found.push(item);
                        }
                        return true;
                    }
                    let j = item as usize;
                    if entry_stamp != self.balls.counter[j] {
                        return false;
                    }
                    // Itself, or seen
                    if j != i && self.seen_ball[j] != stamp {
                        self.seen_ball[j] = stamp;
                        found.push(item);
                    }
                    true
                });
            }
            for &j in &self.roaming {
                let j = j as usize;
                if self.balls.roaming[j] && j != i && self.seen_ball[j] != stamp {
                    self.seen_ball[j] = stamp;
                    found.push(j as u32);
                }
            }
            for &k in &self.everywhere {
                if self.seen_static[k as usize] != stamp {
                    self.seen_static[k as usize] = stamp;
                    found.push(k | STATIC_BIT);
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
        let t_max = t_end - now;
        self.candidates(i, |this, other| {
            let toi = if other & STATIC_BIT != 0 {
                let k = (other & !STATIC_BIT) as usize;
                if !this.statics[k].everywhere {
                    this.pairs.push((i as u32, other));
                } else if this.statics[k].shape.misses_box(&my_box) {
                    return;
                }
                this.statics[k].shape.toi(strategy, &me, t_max)
            } else {
                let j = other as usize;
                let asked_by_j = first && !this.asks_first(i, j);
                if asked_by_j || !my_box.overlaps(&this.balls.path_box(j, now, t_end)) {
                    return;
                }
                this.pairs.push((i as u32, other));
                strategy.ball_ball(&me, &this.balls.moving(j, now), t_max)
            };
            this.report.stats.toi_queries += 1;
            this.schedule(i, other, now, t_end, &me, toi);
        });
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
                    // A ball, and a ball or a static
                    let (i, other) = if x & STATIC_BIT == 0 { (x, y) } else { (y, x) };
                    if i & STATIC_BIT != 0 {
                        continue;
                    }
                    let i = i as usize;
                    let (corner, pair) = if other & STATIC_BIT != 0 {
                        let k = (other & !STATIC_BIT) as usize;
                        if long[i] || asleep(i) || !boxes(i).overlaps(&self.static_boxes[k]) {
                            continue;
                        }
                        (
                            boxes(i).min.max(self.static_boxes[k].min),
                            (i as u32, other),
                        )
                    } else {
                        let j = other as usize;
                        if long[i] || long[j] || (asleep(i) && asleep(j)) {
                            continue;
                        }
                        if !boxes(i).overlaps(&boxes(j)) {
                            continue;
                        }
                        // The awake one asks, or the lower index
                        let pair = if asleep(i) || (!asleep(j) && j < i) {
                            (j as u32, i as u32)
                        } else {
                            (i as u32, j as u32)
                        };
                        (boxes(i).min.max(boxes(j).min), pair)
                    };
                    if self.hash.bucket_of(corner) as usize == bucket {
                        first.push(pair);
                    }
                }
            }
        }
        for &(a, other) in &first {
            let a = a as usize;
            let me = self.balls.moving(a, 0.0);
            let toi = if other & STATIC_BIT != 0 {
                let k = (other & !STATIC_BIT) as usize;
                if !self.statics[k].everywhere {
                    self.pairs.push((a as u32, other));
                }
                self.statics[k].shape.toi(strategy, &me, dt)
            } else {
                self.pairs.push((a as u32, other));
                strategy.ball_ball(&me, &self.balls.moving(other as usize, 0.0), dt)
            };
            self.report.stats.toi_queries += 1;
            self.schedule(a, other, 0.0, dt, &me, toi);
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
                let k = self.everywhere[e] as usize;
                if self.statics[k].shape.misses_box(&my_box) {
                    continue;
                }
                let toi = self.statics[k].shape.toi(strategy, &me, dt);
                self.report.stats.toi_queries += 1;
                self.schedule(i, k as u32 | STATIC_BIT, 0.0, dt, &me, toi);
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
        other: u32,
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
                if other & STATIC_BIT == 0 {
                    if rests {
                        self.balls
                            .supports_mut(other as usize)
                            .touch(-contact.normal);
                    }
                    self.links.push((i as u32, other));
                }
                // Touching or overlapping: a contact now only if approaching
                let other_velocity = if other & STATIC_BIT != 0 {
                    Vec3::ZERO
                } else {
                    self.balls.body[other as usize].velocity
                };
                let closing =
                    approach_speed(me.velocity, other_velocity, contact.normal, self.rest_speed);
                if closing.is_none() {
                    return;
                }
                now
            }
            Toi::Miss => return,
        };
        let count_b = if other & STATIC_BIT != 0 {
            0
        } else {
            self.balls.counter[other as usize]
        };
        self.heap.push(Reverse(Event {
            time,
            a: i as u32,
            b: other,
            count_a: self.balls.counter[i],
            count_b,
        }));
    }

    fn is_current(&self, event: &Event) -> bool {
        self.balls.counter[event.a as usize] == event.count_a
            && (event.b & STATIC_BIT != 0 || self.balls.counter[event.b as usize] == event.count_b)
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

        let other_ball = (event.b & STATIC_BIT == 0).then_some(event.b as usize);
        let (proximity, other, kind, entity, restitution) = match other_ball {
            Some(j) => {
                self.balls.advance(j, now);
                (
                    self.balls.ball(j).proximity(&ball),
                    self.balls.response_body(j, down),
                    PairKind::BallBall,
                    self.balls.entity[j],
                    self.balls.material[j].restitution,
                )
            }
            None => {
                let s = &self.statics[(event.b & !STATIC_BIT) as usize];
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
        let other = (event.b & STATIC_BIT == 0).then_some(event.b as usize);
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

    /// Measure the end state: overlaps, escapes, energy and momentum.
    fn measure(&mut self) {
        let balls = &self.balls;
        let ball = |i: usize| balls.ball(i);
        let mut deepest: Real = 0.0;
        let escaped = &mut self.escaped;
        escaped.clear();
        escaped.resize(balls.len(), false);
        for &k in &self.everywhere {
            let shape = &self.statics[k as usize].shape;
            for (body, escaped) in balls.body.iter().zip(escaped.iter_mut()) {
                let (gap, holds_centre) = shape.gap(body.position);
                *escaped |= holds_centre;
                deepest = deepest.max(body.radius - gap);
            }
        }
        let mut against_static = |i: usize, shape: &StaticShape| {
            let b = ball(i);
            let (gap, holds_centre) = shape.gap(b.center);
            escaped[i] |= holds_centre;
            (b.radius - gap).max(0.0)
        };
        for &(i, other) in &self.pairs {
            let i = i as usize;
            let depth = if other & STATIC_BIT != 0 {
                against_static(i, &self.statics[(other & !STATIC_BIT) as usize].shape)
            } else {
                ball(other as usize).proximity(&ball(i)).depth()
            };
            deepest = deepest.max(depth);
        }
        let stats = &mut self.report.stats;
        stats.max_penetration = deepest;
        stats.escaped = self.escaped.iter().filter(|&&e| e).count() as u64;
        stats.kinetic_energy = self.balls.kinetic_energy();
        stats.momentum = self.balls.momentum().to_array();
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

/// Reorder `items` so that `items[k]` becomes the old `items[order[k]]`, in place: cycle by
/// cycle, with `done` as scratch (a bit per item).
fn permute<T: Copy>(items: &mut [T], order: &[u32], done: &mut Vec<u64>) {
    let n = items.len();
    done.clear();
    done.resize(n.div_ceil(64), 0);
    for start in 0..n {
        if done[start / 64] & (1 << (start % 64)) != 0 {
            continue;
        }
        let first = items[start];
        let mut k = start;
        loop {
            done[k / 64] |= 1 << (k % 64);
            let from = order[k] as usize;
            if from == start {
                items[k] = first;
                break;
            }
            items[k] = items[from];
            k = from;
        }
    }
}
