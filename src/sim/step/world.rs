//! The world in and out: gathering the balls and statics at the start of a step (checking
//! their values, waking edited sleepers), the range checks, and writing the balls back.

use hecs::{Entity, World};

use super::Sleeper;
use super::{EPOCH_STEPS, Start, Stepper};
use crate::math::{Real, Vec3, positive, spin_energy, turned};
use crate::sim::bodies::{BallBody, BallMaterial, Motion, NONE, Trajectory};
use crate::sim::change;
use crate::sim::components::{
    AngularVelocity, Friction, Mass, Orientation, Path, Position, PreviousPosition, Radius,
    Restitution, RollingResistance, Sleep, Velocity,
};
use crate::sim::config::{BallField, MAX_LENGTH, StepError};
use crate::sim::sleep::{Footing, Rest};
use crate::sim::statics;

impl Stepper {
    /// Read the world at a step's start: going on from what the last step kept where `start`
    /// allows it and the world is as that step left it, afresh otherwise. True when it goes on.
    pub(super) fn gather_world(
        &mut self,
        world: &mut World,
        start: Start,
    ) -> Result<bool, StepError> {
        match start {
            Start::GoOn(clock) => {
                let goes_on = self.gather_kept(world, clock)?;
                if !goes_on {
                    self.gather(world, Some(clock))?;
                }
                Ok(goes_on)
            }
            Start::Afresh(clock) => {
                self.gather(world, clock)?;
                Ok(false)
            }
        }
    }

    /// The error for the first ball beyond [`MAX_LENGTH`]: a coordinate, its radius, a velocity
    /// component, or the distance it may move in the step along an axis, gravity included.
    pub(super) fn out_of_range(&self, dt: Real) -> Option<StepError> {
        self.first_fault(dt, |body, start, _| {
            let fall = body.path.acceleration * dt;
            if start.abs().max_element() > MAX_LENGTH {
                Some(BallField::Position)
            } else if body.radius > MAX_LENGTH {
                Some(BallField::Radius)
            } else if body
                .path
                .velocity
                .abs()
                .max_element()
                .max((body.path.velocity + fall).abs().max_element())
                .max(((body.path.velocity + fall * 0.5) * dt).abs().max_element())
                > MAX_LENGTH
            {
                Some(BallField::Velocity)
            } else {
                None
            }
        })
    }

    /// The error for the first ball whose position or velocity left the finite numbers in this
    /// step (a `dt` too long for its speed, or values near the largest numbers), if any.
    pub(super) fn non_finite(&self, dt: Real) -> Option<StepError> {
        self.first_fault(dt, |body, _, end| {
            if !end.is_finite() {
                Some(BallField::Position)
            } else if !body.path.velocity.is_finite() {
                Some(BallField::Velocity)
            } else {
                None
            }
        })
    }

    /// [`StepError::OutOfRange`] for the first ball in which `fault` finds a field at fault,
    /// given its body, where it began the step and where it ends it.
    pub(super) fn first_fault(
        &self,
        dt: Real,
        fault: impl Fn(&BallBody, Vec3, Vec3) -> Option<BallField>,
    ) -> Option<StepError> {
        let balls = &self.balls;
        let t_end = self.kept.clock + dt;
        (0..balls.len()).find_map(|i| {
            let end = balls.end(i, t_end);
            fault(&balls.body[i], balls.start[i], end).map(|field| StepError::OutOfRange {
                entity: balls.entity[i],
                field,
                dt,
            })
        })
    }

    /// Copy the balls and statics out of the world, checking their values, and set the clock
    /// of the step. Given the world's `clock` ([`clock_of`], where paths hold: an exact
    /// strategy, and under gravity a world that holds a clock), the balls' [`Path`]s hold, each
    /// while it falls under the configured gravity; otherwise, and when an epoch ends, every
    /// path starts where its ball is, at time 0.
    pub(super) fn gather(
        &mut self,
        world: &mut World,
        clock: Option<Real>,
    ) -> Result<(), StepError> {
        let gravity = self.config.gravity;
        let keep = clock.is_some();
        let clock = clock.unwrap_or(0.0);
        let mut went_on = false;
        self.kept.clock = clock;
        self.kept.changed_balls.clear();
        let balls = &mut self.balls;
        balls.clear();
        self.sleep.sleepers.clear();
        let n = world.len() as usize;
        balls.entity.reserve_exact(n);
        balls.body.reserve_exact(n);
        balls.material.reserve_exact(n);
        balls.counter.reserve_exact(n);
        balls.hits.reserve_exact(n);
        balls.rest.reserve_exact(n);
        balls.start.reserve_exact(n);
        for ball in world.query_mut::<Gathered<'_>>() {
            let checked = check_ball(ball)?;
            let (entity, p, v, r, m, _, _, _, _, sleep, path) = ball;
            let restitution = checked.restitution;
            // Its path goes on while the world still puts the ball where the path does
            let path = match path.filter(|q| keep && goes_on(q, clock, p, v, gravity)) {
                Some(q) => {
                    went_on = true;
                    q.trajectory()
                }
                None => Trajectory::straight(p.0, v.0, clock),
            };
            balls.entity.push(entity);
            balls.body.push(BallBody { path, radius: r.0 });
            balls.material.push(material_of(&checked, m));
            balls.counter.push(0);
            balls.hits.push(0);
            // Sleeping off: every ball awake, with a stopped clock
            let sleep = sleep
                .copied()
                .filter(|_| self.config.sleep.is_some())
                .unwrap_or_default();
            let mut rest = rest_of(&sleep);
            // Its velocity, spin, gravity or own components edited: it wakes, its island after
            // the step
            if rest.asleep()
                && (v.0 != Vec3::ZERO
                    || checked.spin != Vec3::ZERO
                    || sleep.gravity != self.config.gravity
                    || sleep.written != change::ball(p.0, r.0, m.0, restitution))
            {
                rest.wake();
            }
            if let Some(island) = rest.island.or(rest.woke_from) {
                self.sleep.sleepers.push(Sleeper {
                    island,
                    ball: balls.rest.len() as u32,
                    island_size: sleep.island_size,
                    surroundings: sleep.surroundings,
                });
            }
            balls.rest.push(rest);
            balls.start.push(p.0);
        }
        // No path went on: a new epoch, so that the same balls step the same whatever the clock
        if !went_on && clock != 0.0 {
            self.kept.clock = 0.0;
            for body in &mut balls.body {
                body.path.time = 0.0;
            }
        }

        self.kept.surroundings = self.gather_statics(world)?;
        self.wake_changed_islands();
        Ok(())
    }

    /// Copy the statics out of the world, checking their values; return the fingerprint of
    /// them and the configuration (see [`change::surroundings`]).
    fn gather_statics(&mut self, world: &mut World) -> Result<u64, StepError> {
        statics::gather(world, &mut self.statics)?;
        Ok(change::surroundings(
            self.statics
                .iter()
                .map(|s| (&s.shape, s.restitution, s.friction)),
            &self.config,
        ))
    }

    /// Read the world again for a step that goes on from the last one's calendar, cells and
    /// order, where paths hold: the balls must be the same entities in the same order, none
    /// asleep, the statics and the configuration as they were; the world's `clock` is where the
    /// last step ended (see [`Kept::begin`](super::Kept::begin)). A ball whose path no longer
    /// holds (its position, velocity or path not what the stepper wrote, bit for bit) starts a
    /// new path and is listed in `changed_balls`, to predict afresh; a new mass or restitution
    /// is taken as it is.
    /// False, with the arrays in no particular state, when the step must start afresh.
    pub(super) fn gather_kept(
        &mut self,
        world: &mut World,
        clock: Real,
    ) -> Result<bool, StepError> {
        let gravity = self.config.gravity;
        let surroundings = self.gather_statics(world)?;
        if surroundings != self.kept.surroundings {
            return Ok(false);
        }
        self.kept.clock = clock;
        self.sleep.sleepers.clear();
        let balls = &mut self.balls;
        balls.supports.clear();
        balls.surfaces.clear();
        let mut w = 0;
        for ball in world.query_mut::<Gathered<'_>>() {
            let checked = check_ball(ball)?;
            let (entity, p, v, r, m, _, _, _, _, sleep, path) = ball;
            let restitution = checked.restitution;
            if balls.entity.get(w) != Some(&entity) {
                return Ok(false);
            }
            let sleep = sleep
                .copied()
                .filter(|_| self.config.sleep.is_some())
                .unwrap_or_default();
            if sleep.asleep() || sleep.woken_from.is_some() {
                return Ok(false);
            }
            let body = &mut balls.body[w];
            let material = &mut balls.material[w];
            if r.0 != body.radius {
                return Ok(false);
            }
            // A new mass or restitution leaves the path, and so the predictions, as they were:
            // a new stepper keeps the path too
            let same = path
                .is_some_and(|q| goes_on(q, clock, p, v, gravity) && q.trajectory() == body.path);
            if !same {
                body.path = Trajectory::straight(p.0, v.0, clock);
                self.kept.changed_balls.push(w as u32);
            }
            material.inverse_mass = 1.0 / m.0;
            material.restitution = restitution;
            material.friction = checked.friction;
            material.rolling_resistance = checked.rolling_resistance;
            material.spin = checked.spin;
            material.supports = NONE;
            material.resting_hits = 0;
            material.surface = NONE;
            material.motion = Motion::Free;
            balls.hits[w] = 0;
            balls.rest[w] = rest_of(&sleep);
            balls.start[w] = p.0;
            w += 1;
        }
        Ok(w == balls.len())
    }

    /// Wake the sleepers whose statics or configuration changed, and whole the islands that
    /// lost a ball since the last step.
    pub(super) fn wake_changed_islands(&mut self) {
        let rests = &mut self.balls.rest;
        for s in &self.sleep.sleepers {
            if s.surroundings != self.kept.surroundings {
                rests[s.ball as usize].wake();
            }
        }
        self.sleep
            .sleepers
            .sort_unstable_by_key(|s| (s.island, s.ball));
        for island in self.sleep.sleepers.chunk_by(|a, b| a.island == b.island) {
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

    /// Count the balls of each sleeping island into `island_size`, per ball.
    pub(super) fn count_islands(&mut self) {
        let rests = &self.balls.rest;
        self.sleep.island_size.clear();
        self.sleep.island_size.resize(rests.len(), 0);
        self.sleep.sleepers.clear();
        self.sleep
            .sleepers
            .extend(rests.iter().enumerate().filter_map(|(i, r)| {
                r.island.map(|island| Sleeper {
                    island,
                    ball: i as u32,
                    island_size: 0,
                    surroundings: 0,
                })
            }));
        self.sleep.sleepers.sort_unstable_by_key(|s| s.island);
        for island in self.sleep.sleepers.chunk_by(|a, b| a.island == b.island) {
            for s in island {
                self.sleep.island_size[s.ball as usize] = island.len() as u32;
            }
        }
    }

    /// Write positions, velocities and paths back as of `t_end`, through the order they were
    /// gathered in, each path with `until` as the clock it holds at (infinite: it does not hold).
    pub(super) fn scatter(&mut self, world: &mut World, t_end: Real, dt: Real, until: Real) {
        self.count_islands();
        let query = world.query_mut::<(
            Entity,
            &mut Position,
            &mut Velocity,
            &Radius,
            &Mass,
            Option<&Restitution>,
            Option<&mut AngularVelocity>,
            Option<&mut Orientation>,
            Option<&mut PreviousPosition>,
            Option<&mut Sleep>,
            Option<&mut Path>,
        )>();
        let mut rank = std::mem::take(&mut self.scratch.keys);
        rank.clear();
        rank.resize(self.kept.order.len(), 0);
        for (k, &w) in self.kept.order.iter().enumerate() {
            rank[w as usize] = k as u64;
        }
        self.scratch.sleepless.clear();
        // Energy and momentum of what is written, in the pass that writes it
        let (mut energy, mut momentum) = (0.0, Vec3::ZERO);
        for (k, (entity, p, v, r, m, e, spin, orientation, previous, sleep, path)) in
            query.into_iter().enumerate()
        {
            let i = rank[k] as usize;
            debug_assert_eq!(entity, self.balls.entity[i], "same query, same order");
            let body = &self.balls.body[i].path;
            p.0 = self.balls.end(i, t_end);
            v.0 = body.velocity_at(t_end);
            let written = Path {
                origin: body.origin,
                velocity: body.velocity,
                acceleration: body.acceleration,
                time: body.time,
                until,
            };
            match path {
                Some(path) => *path = written,
                None => self.scratch.pathless.push((entity, written)),
            }
            energy += 0.5 * m.0 * v.0.length_squared();
            // Only contacts with friction change a spin: a ball that gained one gets the
            // components; the orientation turns at the spin the step ends with
            let spin_now = self.balls.material[i].spin;
            match spin {
                Some(w) => w.0 = spin_now,
                None if spin_now != Vec3::ZERO => self.scratch.spinless.push((entity, spin_now)),
                None => {}
            }
            if spin_now != Vec3::ZERO || orientation.is_some() {
                energy += spin_energy(m.0, r.0, spin_now);
                if let Some(orientation) = orientation {
                    orientation.0 = turned(orientation.0, spin_now, dt);
                }
            }
            momentum += m.0 * v.0;
            if let Some(previous) = previous {
                previous.0 = self.balls.start[i];
            }
            let state = self.sleep_state(i, p, r, m, e);
            match sleep {
                Some(sleep) => *sleep = state,
                None if self.config.sleep.is_some() => self.scratch.sleepless.push((entity, state)),
                None => {}
            }
        }
        self.scratch.keys = rank;
        self.report.stats.kinetic_energy = energy;
        self.report.stats.momentum = momentum.to_array();
        self.insert_missing(world);
    }

    /// The [`Sleep`] component of ball `i` at the step's end, written at position `p` with
    /// its radius, mass and restitution.
    fn sleep_state(
        &self,
        i: usize,
        p: &Position,
        r: &Radius,
        m: &Mass,
        e: Option<&Restitution>,
    ) -> Sleep {
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
            state.surroundings = self.kept.surroundings;
            state.island_size = self.sleep.island_size[i];
        }
        state
    }

    /// Give the balls the components the step found missing: a [`Sleep`], a [`Path`], a spin
    /// and an orientation.
    fn insert_missing(&mut self, world: &mut World) {
        for (entity, state) in self.scratch.sleepless.drain(..) {
            world
                .insert_one(entity, state)
                .expect("the entity was just stepped");
        }
        for (entity, path) in self.scratch.pathless.drain(..) {
            world
                .insert_one(entity, path)
                .expect("the entity was just stepped");
        }
        for (entity, spin) in self.scratch.spinless.drain(..) {
            world
                .insert(entity, (AngularVelocity(spin), Orientation::default()))
                .expect("the entity was just stepped");
        }
    }
}

/// What the stepper reads of a ball.
type Gathered<'a> = (
    Entity,
    &'a Position,
    &'a Velocity,
    &'a Radius,
    &'a Mass,
    Option<&'a Restitution>,
    Option<&'a Friction>,
    Option<&'a RollingResistance>,
    Option<&'a AngularVelocity>,
    Option<&'a Sleep>,
    Option<&'a Path>,
);

/// A ball's material as checked: restitution, friction, rolling resistance and spin.
struct Checked {
    restitution: Real,
    friction: Real,
    rolling_resistance: Real,
    spin: Vec3,
}

/// Check a ball's values, as the stepper reads them; return its material.
#[inline]
fn check_ball(ball: Gathered<'_>) -> Result<Checked, StepError> {
    let (entity, p, v, r, m, e, f, c, spin, _, _) = ball;
    let bad = |field| StepError::InvalidBall { entity, field };
    if !p.0.is_finite() {
        return Err(bad(BallField::Position));
    }
    if !v.0.is_finite() {
        return Err(bad(BallField::Velocity));
    }
    if !positive(r.0) {
        return Err(bad(BallField::Radius));
    }
    if !positive(m.0) {
        return Err(bad(BallField::Mass));
    }
    let restitution = e.map_or(1.0, |e| e.0);
    if !(0.0..=1.0).contains(&restitution) {
        return Err(bad(BallField::Restitution));
    }
    if spin.is_some_and(|w| !(w.0.is_finite() && w.0.abs().max_element() <= MAX_LENGTH)) {
        return Err(bad(BallField::Spin));
    }
    let at_least_zero = |x: Real| x.is_finite() && x >= 0.0;
    let friction = f.map_or(0.0, |f| f.0);
    if !at_least_zero(friction) {
        return Err(bad(BallField::Friction));
    }
    let rolling_resistance = c.map_or(0.0, |c| c.0);
    if !at_least_zero(rolling_resistance) {
        return Err(bad(BallField::RollingResistance));
    }
    Ok(Checked {
        restitution,
        friction,
        rolling_resistance,
        spin: spin.map_or(Vec3::ZERO, |w| w.0),
    })
}

/// The sleep state of a ball as its `Sleep` component gives it.
fn rest_of(sleep: &Sleep) -> Rest {
    Rest {
        still_for: if sleep.still_for.is_finite() {
            sleep.still_for
        } else {
            0.0
        },
        anchor: sleep.anchor,
        island: sleep.island,
        woke_from: sleep.woken_from,
        grounded: false,
        footing: Footing::Held,
    }
}

/// The paths' clock: the end of the last step, as the first path of the world that has one
/// gives it (new balls have none), if it lies within an epoch of steps of `dt`. A step under
/// gravity that was not calm leaves none (an infinite `until`).
pub(super) fn clock_of(world: &World, dt: Real) -> Option<Real> {
    world
        .query::<&Path>()
        .iter()
        .map(|path| path.until)
        .find(|t| !t.is_nan())
        .filter(|&t| t.is_finite() && (0.0..EPOCH_STEPS as Real * dt).contains(&t))
}

/// True when path `q` goes on at `clock` under `gravity`: it falls under that gravity, and
/// the world puts the ball where the path does, with the path's velocity, bit for bit.
fn goes_on(q: &Path, clock: Real, p: &Position, v: &Velocity, gravity: Vec3) -> bool {
    q.until == clock
        && q.time <= clock
        && q.acceleration == gravity
        && q.velocity_at(clock) == v.0
        && q.at(clock) == p.0
}

/// The material of a ball as `checked`, of mass `m`, with nothing met yet in the step.
fn material_of(checked: &Checked, m: &Mass) -> BallMaterial {
    BallMaterial {
        inverse_mass: 1.0 / m.0,
        restitution: checked.restitution,
        friction: checked.friction,
        rolling_resistance: checked.rolling_resistance,
        spin: checked.spin,
        supports: NONE,
        resting_hits: 0,
        surface: NONE,
        motion: Motion::Free,
    }
}
