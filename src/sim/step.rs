//! The stepper: advance a world by `dt`, resolving every collision in time order.
//!
//! One step, in the order of the design:
//! 1. Gather: copy the balls out of the [`World`] into arrays, and read the static shapes.
//! 2. Gravity: every ball awake flies on the parabola `x0 + v t + g t²/2`, exactly, until a
//!    contact changes its course. A ball in a resting contact (touching something it does not
//!    leave, pressed in by gravity, or landing slower than the rest speed) instead takes the
//!    rest of the step's gravity as a velocity at once and goes straight for the rest of the
//!    step (NeHe's kick), so that piles rest at the level of velocities; the next step lets it
//!    fall again. A ball lying alone on a rough plane instead slides, rolls or stands there
//!    in closed form, its changes of state events of the calendar (see `step/surface.rs`).
//! 3. Neighbourhoods: each ball is listed in the cell of a grid sized to the balls that holds
//!    its centre (see `neighbours`). Under gravity, small clusters of balls at rest on each
//!    other and on shapes are solved together with the step's gravity (see `step/cluster.rs`;
//!    a pushed ball takes its kick at once); where a pushing contact would not hold through
//!    the step, the step goes in halves instead (see `step/parts.rs`).
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
//! With an exact strategy, a ball's path holds across steps (the [`Path`] component) and so do
//! its predictions: they look past the step's end (straight paths without a bound, parabolas
//! to the end of the epoch's last step), events after it wait in the calendar, and each ball
//! keeps its earliest event only (a stale one sends the ball to look again). Under gravity this
//! holds only after a calm step, one in which nothing rested, moved on a surface, slept, was
//! stopped by the budget or declined a contact it may meet again: a step that is not calm
//! leaves no clock in the world, so the step after it starts afresh, as under gravity before.
//! A step that goes on from one whose paths held reads the world, compares each ball with what
//! it wrote (bit for bit), predicts only the balls that changed, and goes on from the calendar
//! it kept. Anything else (a spawn, a despawn, a changed static, radius or
//! configuration, a sleeper, a new epoch of the paths' clock) starts afresh, as a new stepper
//! does; either way the results are the same bits.
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
//! cost next to nothing until something hits them (see [`sleep`](super::sleep)). A ball with
//! more than [`ELASTIC_AFTER`] collisions in one step is in an inelastic collapse and takes its
//! limit, so that it cannot collide without end. An impact of restitution 0 of a ball that
//! touches others (balls or statics) is one impact of all that touch, on what each has earned,
//! with Coulomb's friction where they have it (see `step/crowd.rs`): a crowd at restitution 0
//! ends moving as one.
//!
//! A budget of resolved collisions per step ([`StepConfig::max_events_per_step`]) bounds the
//! work of any step without letting anything pass through: once it is spent, each later contact
//! stops its moving balls where they touch. A stopped ball stands still for the rest of the step
//! (it is predicted again as a still ball, so balls heading for it stop against it too) and ends
//! it at rest: its velocity and spin are zero in the world, the velocity it has. Every such
//! contact stops at least one moving ball, so at most one per ball follows the budget. Stopped
//! balls lose the rest of the step's time, their kinetic energy and their momentum.
//! [`StepStats::events_cap_hits`] counts the contacts met past it, [`StepStats::stopped`] the balls
//! that stopped, [`StepStats::energy_stopped`] and [`StepStats::momentum_stopped`] what they
//! lost.

mod cluster;
mod crowd;
mod kept;
mod pairs;
mod parts;
mod predict;
mod resolve;
mod surface;
mod world;

use kept::{Kept, Start};
use pairs::Pairs;
use parts::Whole;
use predict::Asking;

use std::num::NonZeroU64;

use hecs::{Entity, World};

use super::bodies::{Balls, Motion, NONE, permute};
use super::calendar::{Calendar, Happening, NEVER, Next, Other};
use super::components::{Path, Sleep};
use super::config::{StepConfig, StepError};
use super::events::{StepReport, StepStats};
use super::neighbours::{Neighbours, SMALL_WORLD};
use super::sleep::Islands;
use super::statics::Static;
use crate::math::{Real, Vec3};
use crate::toi::ToiStrategy;

/// Collisions of one ball in one step after which it is in an inelastic collapse: a ball wedged
/// or squeezed with a restitution below 1 collides ever faster, without end. Its impacts then
/// take the collapse's limit (McNamara and Young 1994), perfectly inelastic, as one impact of
/// the crowd touching it (`step/crowd.rs`), elastic contacts included; where no crowd takes it,
/// pair by pair. A sampled search's crowd is what lies within the pair's gap. No collapse is
/// made elastic (as the TC model does). Resting contacts are inelastic whatever the count.
const ELASTIC_AFTER: u32 = 64;

/// Collisions of one ball in one step within which an approach that an impact made meets no
/// rest speed: where a ball lands on another resting on the floor, the impacts that follow at
/// that instant between the two and the floor are Newton's at any step length (the default
/// rest speed `2 |g| dt` swallowed them: under a ball three times the lander's mass from `dt`
/// 1/60, under one of its mass from 1/4). Beyond, a run of impacts is a crowd's collapse
/// beginning, and the rest speed ends it (without this bound the Galton board and the resting
/// pile took 13 times as many collisions).
const MADE_WITHIN: u32 = 8;

/// Lengths, relative to a ball's radius (or a pair's radii), within the rounding of positions:
/// gaps and overlaps that are a touch, hops and rolls that are none.
const ROUNDING: Real = 1e-12;

/// True when `speed` over `dt` takes a ball of `radius` beyond the rounding of positions.
#[inline]
fn goes_beyond_rounding(speed: Real, dt: Real, radius: Real) -> bool {
    speed * dt > ROUNDING * radius
}

/// The height of a hop, relative to the radii of the pair, below which it is none and the
/// contact rests: far below anything a position shows, yet above what the rounding of a run of
/// impacts leaves (an elastic ball left hopping 6e-12 of its radius high on a slope, 3e-7 s a
/// hop, ran out the budget).
const HOP: Real = 1e-9;

/// Steps of an epoch of the paths' clock at most: past `EPOCH_STEPS · dt` every path starts anew
/// where its ball is, at time 0, so that the clock's rounding stays within a few dozen times that
/// of a single step's times.
const EPOCH_STEPS: u32 = 64;

/// The end of the last step of an epoch of steps of `dt`, on the paths' clock, where curved
/// predictions stop looking: a clock within the epoch is below `EPOCH_STEPS · dt`, so its step
/// ends by `(EPOCH_STEPS + 1) · dt`.
fn epoch_end(dt: Real) -> Real {
    Real::from(EPOCH_STEPS + 1) * dt
}

/// Steps a [`World`] of balls and static shapes.
///
/// The stepper owns no simulation state: every step reads the world and writes it back, so a
/// user can change anything between steps (spawn, despawn, set velocities, switch strategy).
/// It keeps its buffers between steps to avoid allocating, the report of the last step, and,
/// where paths hold across steps, its predictions: a cache, checked against the world at each
/// step, so that a fresh stepper continues a run bit for bit.
/// Sleep state lives in each ball's [`Sleep`] component, with fingerprints that wake a sleeper
/// when the user edits it, what it rests on, or the configuration (see
/// [`sleep`](super::sleep)).
///
/// A budget of resolved collisions ([`StepConfig::max_events_per_step`]) bounds the work of a
/// step without letting anything pass through anything: once it is spent, each later contact
/// stops its moving balls where they touch, for the rest of the step, and they end it at rest
/// (velocity and spin zero). [`StepStats::events_cap_hits`] counts the contacts met past it,
/// [`StepStats::stopped`] the balls that lost time, [`StepStats::energy_stopped`] the kinetic
/// energy they lost and [`StepStats::momentum_stopped`] their momentum.
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
    /// What goes on from one step to the next where paths hold.
    kept: Kept,
    /// Who asks about a pair, and the pairs this step met.
    pairs: Pairs,
    /// The balls the spent budget stopped, and the pushes to take back from them.
    budget: Budget,
    /// The bookkeeping of sleeping islands.
    sleep: SleepBook,
    /// Lists reused from step to step to avoid allocating.
    scratch: Scratch,
}

/// One step as its stages see it, passed to them by reference: its times on the paths' clock,
/// how far its predictions look, its rest speed, and the strategy that answers its queries.
struct Step<'s, S: ?Sized> {
    /// When the step begins, on the paths' clock (see [`Path`]).
    t0: Real,
    /// When it ends.
    t1: Real,
    /// How far predictions look: the step's end, or, where paths hold, past it (see
    /// [`Stepper::step_with`]).
    horizon: Real,
    /// Its length.
    dt: Real,
    /// Its rest speed (see [`StepConfig::rest_speed_for`]).
    rest_speed: Real,
    /// What answers its queries.
    strategy: &'s S,
}

/// What the budget of resolved collisions leaves in a step: the balls it stopped, and who
/// pushed whom with gravity paid in advance.
#[derive(Debug, Default)]
struct Budget {
    /// The balls stopped in this step after the budget ran out: they end it at rest.
    stopped: Vec<u32>,
    /// Pairs of balls (pusher, pushed) of this step's contacts that left the second owing what
    /// it was pushed with (see `Motion::Pushed`); sorted once the budget runs out.
    pushes: Vec<(u32, u32)>,
    /// `pushes` is sorted.
    pushes_sorted: bool,
}

/// Sleep's bookkeeping: this step's links, the islands they join, the sleepers recorded.
#[derive(Debug, Default)]
struct SleepBook {
    /// Pairs of balls that touched in this step: they join islands.
    links: Vec<(u32, u32)>,
    /// The islands of balls that rest on each other.
    islands: Islands,
    /// Scratch: the balls of sleeping islands with what their `Sleep` recorded.
    sleepers: Vec<Sleeper>,
    /// Per ball, the size of the island it sleeps in at the end of the step.
    island_size: Vec<u32>,
}

/// Scratch lists of a step, kept to avoid allocating.
#[derive(Debug, Default)]
struct Scratch {
    /// Candidates of a prediction.
    found: Vec<Other>,
    /// Balls without a [`Path`] component, to be given one.
    pathless: Vec<(Entity, Path)>,
    /// Balls without an [`AngularVelocity`](super::AngularVelocity) that a contact with
    /// friction set spinning, to be given one (and an orientation).
    spinless: Vec<(Entity, Vec3)>,
    /// Balls without a [`Sleep`] component, to be given one.
    sleepless: Vec<(Entity, Sleep)>,
    /// The balls whose centre ended behind a plane or inside a cylinder.
    escaped: Vec<u32>,
    /// Per ball: its Z-order key, then its place in memory.
    keys: Vec<u64>,
    /// Scratch of `permute`.
    done: Vec<u64>,
    /// The projection of resting clusters.
    clusters: cluster::Clusters,
    /// Inelastic impacts in crowds.
    crowd: crowd::Crowd,
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
        // A clone of the mode: a built-in's parameters, or a custom strategy's `Arc`
        let strategy = self.config.strategy.clone();
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
        self.step_in_parts(world, dt, strategy, 0)?;
        Ok(&self.report)
    }

    /// Advance `world` by `dt` in one step, or, where `may_halve` and its resting clusters
    /// would outrun it, change nothing and return [`Whole::Halve`].
    fn step_whole<S: ToiStrategy + ?Sized>(
        &mut self,
        world: &mut World,
        dt: Real,
        strategy: &S,
        may_halve: bool,
    ) -> Result<Whole, StepError> {
        let gravity = self.config.gravity;
        let start = self
            .kept
            .begin(world, dt, gravity, strategy.misses_are_certain());
        let continued = self.gather_world(world, start)?;
        let keep_paths = self.kept.keeps;
        let (t0, t1) = (self.kept.clock, self.kept.clock + dt);
        // Where paths hold, predictions look past the step's end and wait for the next steps:
        // straight ones without a bound, curved ones to the end of the epoch's last step
        let horizon = match (keep_paths, gravity == Vec3::ZERO) {
            (false, _) => t1,
            (true, true) => Real::INFINITY,
            (true, false) => epoch_end(dt),
        };
        let step = Step {
            t0,
            t1,
            horizon,
            dt,
            rest_speed: self.config.rest_speed_for(dt),
            strategy,
        };
        self.prepare(&step)?;
        if self.predict_first(&step, continued) == Whole::Halve && may_halve {
            return Ok(Whole::Halve);
        }
        self.run_events(&step);
        self.finish(world, &step)?;
        Ok(Whole::Done)
    }

    /// Clear what the last step reported and met, set every ball awake falling, and check the
    /// balls' range for the step.
    fn prepare<S: ToiStrategy + ?Sized>(&mut self, step: &Step<'_, S>) -> Result<(), StepError> {
        self.report.events.clear();
        self.report.stats = StepStats::default();
        self.sleep.links.clear();
        self.pairs.declined_may_meet = false;
        self.pairs.rested_at_start = false;
        self.budget.pushes.clear();
        self.budget.pushes_sorted = false;
        // Exact flight: every ball awake falls on a parabola until something holds it up
        let gravity = self.config.gravity;
        if gravity != Vec3::ZERO {
            for (body, rest) in self.balls.body.iter_mut().zip(&self.balls.rest) {
                if !rest.asleep() {
                    body.path.acceleration = gravity;
                }
            }
        }
        match self.out_of_range(step.dt) {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }

    /// The step's first predictions: of the balls that changed where the step goes on from
    /// the last one's calendar (`continued`), otherwise of every ball, in a new calendar and
    /// broadphase, after projecting the resting clusters.
    fn predict_first<S: ToiStrategy + ?Sized>(
        &mut self,
        step: &Step<'_, S>,
        continued: bool,
    ) -> Whole {
        let keep_paths = self.kept.keeps;
        if continued {
            self.predict_changed(step);
        } else {
            // Events after the step wait in buckets of a step's width
            let width = if keep_paths { step.dt } else { 0.0 };
            self.calendar.clear(width, 2 * self.balls.len());
            self.build_broadphase(step.dt, keep_paths);
            // Only in steps that start afresh: a cluster that rests in a kept step makes it not
            // calm, and the next step projects it
            if self.config.gravity != Vec3::ZERO
                && !keep_paths
                && self.project_resting(step) == Whole::Halve
            {
                return Whole::Halve;
            }
            self.predict_all(step);
        }
        Whole::Done
    }

    /// The event loop: pop the calendar's events in time order until the step's end, and
    /// meet each (a crossing, a turn on a surface, a contact resolved or, past the budget,
    /// stopped).
    fn run_events<S: ToiStrategy + ?Sized>(&mut self, step: &Step<'_, S>) {
        let keep_paths = self.kept.keeps;
        let cap = self
            .config
            .max_events_per_step
            .unwrap_or(1000 + 100 * self.balls.len());
        let mut resolved = 0usize;
        self.budget.stopped.clear();
        loop {
            let earliest = keep_paths.then_some(self.kept.earliest.as_slice());
            let event = match self
                .calendar
                .pop_until(&self.balls.counter, step.t1, earliest)
            {
                None => break,
                Some(Next::Event(event)) => event,
                Some(Next::Again { ball, time }) => {
                    self.predict(step, ball as usize, time, Asking::Again);
                    continue;
                }
            };
            let (i, now) = (event.a() as usize, event.time);
            match event.happening() {
                Happening::Crossing {
                    grid,
                    axis,
                    step: towards,
                } => {
                    let (g, axis, towards) = (grid as usize, axis as usize, i64::from(towards));
                    self.cross(step, i, g, axis, towards, now);
                }
                Happening::Turn => self.turn(step, i, now),
                Happening::Contact(other) if resolved >= cap => {
                    self.stop_pair(step, i, other, now);
                }
                Happening::Contact(other) => {
                    if self.resolve(step, i, other, now) {
                        resolved += 1;
                    } else {
                        // Not a contact after all: look for the next meeting without it
                        self.look_again(step, i, other, now);
                    }
                }
            }
        }
    }

    /// End the step: advance the balls to its end, bring the stopped ones to rest, refuse it
    /// if anything is not finite, settle sleep, measure, note what goes on into the next step,
    /// and write the world back.
    fn finish<S: ToiStrategy + ?Sized>(
        &mut self,
        world: &mut World,
        step: &Step<'_, S>,
    ) -> Result<(), StepError> {
        let (t1, keep_paths) = (step.t1, self.kept.keeps);
        // Paths that hold across steps stay as they began; the others end here, as do those
        // on a surface (their spin turns with them)
        for i in 0..self.balls.len() {
            if !keep_paths || self.balls.on_surface(i) {
                self.balls.advance(i, t1);
            }
        }
        self.kept.changed_balls.clear();
        for &i in &self.budget.stopped {
            // At rest from the step's end, as a new stepper reads it from the world; the next
            // step predicts it afresh
            self.balls
                .restart_with(i as usize, t1, Vec3::ZERO, Vec3::ZERO);
            self.kept.changed_balls.push(i);
        }
        self.report.stats.stopped = self.budget.stopped.len() as u64;
        // Nothing non-finite reaches the world: such a step is refused whole
        if let Some(error) = self.non_finite(step.dt) {
            self.report = StepReport::default();
            return Err(error);
        }
        self.settle(step.dt, t1);
        self.report.stats.measure_contacts(
            &self.balls,
            t1,
            &self.statics,
            &self.pairs.contacts,
            &mut self.scratch.escaped,
        );
        // Sleep changes paths at the step's end, and wakes whole islands: predictions go on
        // only among balls awake
        let calm = self.config.gravity == Vec3::ZERO || self.calm(t1);
        let goes_on = keep_paths
            && calm
            && self.report.stats.sleeping == 0
            && self.balls.rest.iter().all(|r| r.woke_from.is_none());
        self.kept.end(goes_on, t1, step.dt);
        // A step under gravity that was not calm leaves no clock: the next starts afresh
        let until = if calm { t1 } else { Real::INFINITY };
        self.scatter(world, t1, step.dt, until);
        Ok(())
    }

    /// True when every ball ends the step awake and in free flight under gravity: none rested,
    /// moved on a surface, was stopped by the budget, slept or woke in the step, none changed
    /// course as a kept step ended, no resting cluster met a contact at its start, and no pair
    /// declined in it may meet again. After such a step the paths hold into the next (see
    /// [`Path`]). `t1` is the step's end.
    fn calm(&self, t1: Real) -> bool {
        let gravity = self.config.gravity;
        let balls = &self.balls;
        self.budget.stopped.is_empty()
            && !self.pairs.declined_may_meet
            && !self.pairs.rested_at_start
            && (0..balls.len()).all(|i| {
                let (material, rest) = (&balls.material[i], &balls.rest[i]);
                let path = &balls.body[i].path;
                // A kept path that changed course as the step ended was predicted in this
                // step, as of the next one's start: a new stepper would meet its touches there
                let at_the_end = self.kept.keeps && path.time == t1;
                path.acceleration == gravity
                    && !at_the_end
                    && material.motion == Motion::Free
                    && material.resting_hits == 0
                    && material.surface == NONE
                    && !rest.asleep()
                    && rest.woke_from.is_none()
            })
    }

    /// Update the sleep clocks and put to sleep or wake whole islands, at `t_end`.
    fn settle(&mut self, dt: Real, t_end: Real) {
        let Some(config) = self.config.sleep else {
            return;
        };
        let limit = config.speed.unwrap_or(self.config.gravity.length() * dt);
        let (balls, heights) = (&mut self.balls, &mut self.sleep.islands.heights);
        heights.clear();
        for i in 0..balls.len() {
            let body = &balls.body[i];
            let end = balls.end(i, t_end);
            heights.push(-end.dot(self.config.gravity));
            // A spinning ball's surface moves, and a ball that ends the step going moves on
            // (its way over the step may end where it began): neither is still
            let path = &body.path;
            let turning = body.radius * balls.material[i].spin.length();
            let going = path.velocity_at(t_end).length();
            let speed = (end.distance(balls.start[i]) / dt).max(turning).max(going);
            // On a surface its motion, exact, says whether it stands: rolling or sliding, or
            // pulled down a slope, it is not still however long the step; nor is a ball that
            // ends it in flight, which nothing holds against its acceleration
            let flies = path.acceleration != Vec3::ZERO
                && !balls.on_surface(i)
                && !balls.material[i].motion.kicked();
            // (a roll of a step within the rounding of positions is none: a ball left rolling at
            // 1e-16 by the rounding of a solve stands)
            let rolls = goes_beyond_rounding(going, dt, body.radius);
            // The drift allowed holds over the sleep time, which a step as long takes whole: it
            // is not still where it took the ball, or would take it at its end speed, beyond
            // that drift (at dt 1 a slide at 5 was under the default limit `|g| dt`, and slept
            // after one step). Shorter steps are held to it by `observe`, step after step
            let reach = config.drift * body.radius;
            let leaves =
                dt >= config.time && (end.distance(balls.start[i]) > reach || going * dt > reach);
            let stands = !balls.rest[i].footing.moves()
                && !flies
                && !leaves
                && (!balls.on_surface(i) || (!rolls && path.acceleration == Vec3::ZERO));
            let speed = if stands { speed } else { Real::INFINITY };
            let rest = &mut balls.rest[i];
            rest.observe(end, speed, limit, reach, dt);
        }
        let entities = &balls.entity;
        self.sleep.islands.settle(
            config.time,
            &mut balls.rest,
            |i| entities[i].to_bits(),
            &self.sleep.links,
        );
        for i in 0..balls.len() {
            // A sleeper holds still, turning no more (held in resting contacts, a turning
            // sleeper would drive its neighbours by friction while its own change is thrown
            // away)
            if balls.rest[i].asleep() {
                balls.restart_with(i, t_end, Vec3::ZERO, Vec3::ZERO);
                balls.material[i].spin = Vec3::ZERO;
            }
        }
        self.report.stats.sleeping = balls.rest.iter().filter(|r| r.asleep()).count() as u64;
    }

    /// Size the grids for this step, order the balls along them (not where paths hold: see
    /// [`Stepper::sort_spatially`]), and list balls and statics.
    fn build_broadphase(&mut self, dt: Real, keep_paths: bool) {
        self.neighbours
            .plan(&self.balls.body, &self.balls.start, dt);
        self.sort_spatially(keep_paths);
        self.neighbours
            .list(&self.balls.body, &self.balls.start, &mut self.statics, dt);
        let n = self.balls.len();
        self.kept.earliest.clear();
        self.kept.earliest.resize(n, NEVER);
        self.pairs.begin(n);
        for i in 0..n {
            let body = &self.balls.body[i];
            let asleep = self.balls.rest[i].asleep();
            let long = self.neighbours.roams(i)
                || (!asleep
                    && self
                        .neighbours
                        .outruns_order_cell(body, self.balls.start[i], dt));
            self.pairs.long.push(long);
        }
    }

    /// Reorder the balls along a Z-order curve of their cells, so that neighbours in space are
    /// neighbours in memory (a small world keeps the world's order). The key includes the
    /// gathered index, so the order is the same whatever order the sort starts from (last
    /// step's, which makes it nearly sorted already).
    ///
    /// Where paths hold across steps (`keep_paths`), the balls keep the world's order instead:
    /// simultaneous events are ordered by the balls' places in memory, and a stepper that takes
    /// the world over mid-epoch must find the same order as one that has stepped it all along.
    fn sort_spatially(&mut self, keep_paths: bool) {
        let n = self.balls.len();
        let sorts = n > SMALL_WORLD && !keep_paths;
        if self.kept.order.len() != n || !sorts {
            self.kept.order.clear();
            self.kept.order.extend(0..n as u32);
        }
        // A small world fits in the cache in any order
        if !sorts {
            return;
        }
        let mut keys = std::mem::take(&mut self.scratch.keys);
        keys.clear();
        keys.extend(
            self.balls
                .start
                .iter()
                .map(|&position| self.neighbours.z_order(position)),
        );
        self.kept.order.sort_by_key(|&w| (keys[w as usize], w));
        self.scratch.keys = keys;
        let order = &self.kept.order;
        let balls = &mut self.balls;
        let done = &mut self.scratch.done;
        permute(&mut balls.entity, order, done);
        permute(&mut balls.body, order, done);
        permute(&mut balls.material, order, done);
        permute(&mut balls.rest, order, done);
        permute(&mut balls.start, order, done);
    }
}
