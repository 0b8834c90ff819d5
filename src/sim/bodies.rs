//! The balls of one step as arrays: what the event loop reads and writes.
//!
//! Gathered from the world at the start of a step and written back at its end. Each ball keeps
//! its own clock: its position is where it was at that time, and it moves on its path (a
//! parabola under gravity, a straight line without) until its next collision, so a collision
//! advances only the balls it touches.

use hecs::Entity;

use super::response::{Body, FREEZE_AFTER, FREEZE_ALWAYS_AFTER, Frozen};
use super::sleep::Rest;
use super::supports::Supports;
use super::surface::{Change, Surface};
use crate::geometry::{Aabb, Ball};
use crate::math::{Real, Vec3};
use crate::toi::MovingBall;

/// No entry.
pub(crate) const NONE: u32 = u32::MAX;

/// A ball's path between two changes of course: where it was at `time`, its velocity then, and
/// its constant acceleration since (gravity, what its supports leave of gravity, or zero).
///
/// Where the ball is at any later time is computed from these, never stepped, so a prediction
/// made from a path depends on the path alone: predicting afresh gives the same bits. A path
/// without acceleration is a straight line, computed as one (bit for bit what it was before
/// paths could fall).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Trajectory {
    /// Where the ball was at `time`.
    pub origin: Vec3,
    /// Its velocity at `time`.
    pub velocity: Vec3,
    /// Its acceleration since `time`.
    pub acceleration: Vec3,
    /// The time of its last change of course, on the stepper's clock (see
    /// [`Path`](super::components::Path)).
    pub time: Real,
}

impl Trajectory {
    /// A straight path from `origin` at `velocity` since `time`.
    #[inline]
    #[must_use]
    pub fn straight(origin: Vec3, velocity: Vec3, time: Real) -> Self {
        Self {
            origin,
            velocity,
            acceleration: Vec3::ZERO,
            time,
        }
    }

    /// Return where the ball is at `t` (`t >= time`).
    #[inline]
    #[must_use]
    pub fn at(&self, t: Real) -> Vec3 {
        let s = t - self.time;
        if self.acceleration == Vec3::ZERO {
            self.origin + self.velocity * s
        } else {
            self.origin + self.velocity * s + self.acceleration * (0.5 * s * s)
        }
    }

    /// Return the ball's velocity at `t` (`t >= time`).
    #[inline]
    #[must_use]
    pub fn velocity_at(&self, t: Real) -> Vec3 {
        if self.acceleration == Vec3::ZERO {
            self.velocity
        } else {
            self.velocity + self.acceleration * (t - self.time)
        }
    }

    /// Start the path anew at `t` from where it is then, with its velocity and acceleration
    /// then.
    #[inline]
    pub fn restart(&mut self, t: Real) {
        self.origin = self.at(t);
        self.velocity = self.velocity_at(t);
        self.time = t;
    }

    /// Return the lowest and highest centre of the path from `from` to `to`: its ends, and
    /// the apex on each axis where it falls between them.
    #[inline]
    #[must_use]
    pub fn extent(&self, from: Real, to: Real) -> (Vec3, Vec3) {
        let (a, b) = (self.at(from), self.at(to));
        let (mut low, mut high) = (a.min(b), a.max(b));
        if self.acceleration != Vec3::ZERO {
            for axis in 0..3 {
                let g = self.acceleration[axis];
                // The apex: where the velocity along the axis is zero
                let apex = self.time - self.velocity[axis] / g;
                if g != 0.0 && apex > from && apex < to {
                    let x = self.at(apex)[axis];
                    low[axis] = low[axis].min(x);
                    high[axis] = high[axis].max(x);
                }
            }
        }
        (low, high)
    }

    /// Return the first time at or after `now` at which the path crosses `x` along `axis`
    /// going up (`up`) or down, if it does.
    ///
    /// A straight path crosses once, by the sign of its velocity. A parabola may cross a level
    /// twice, up then down or down then up; the root is the one where the velocity has the
    /// crossing's sign, in the stable form of the quadratic formula that subtracts no nearly
    /// equal numbers (Numerical Recipes 5.6). A path a rounding past the level is crossing now
    /// if it goes on outwards, and is not if it comes back (as a straight one that turns
    /// around never is), so that no ball crosses to and fro at one instant.
    #[inline]
    #[must_use]
    pub fn crosses(&self, axis: usize, x: Real, up: bool, now: Real) -> Option<Real> {
        let (v, g) = (self.velocity[axis], self.acceleration[axis]);
        let sign = if up { 1.0 } else { -1.0 };
        if g == 0.0 {
            return (v * sign > 0.0).then(|| (self.time + (x - self.origin[axis]) / v).max(now));
        }
        let (p, u) = (self.at(now)[axis], self.velocity_at(now)[axis]);
        let beyond = (p - x) * sign >= 0.0;
        let toward = u * sign > 0.0;
        if beyond && toward {
            return Some(now);
        }
        // Moving away, and pushed away
        if !toward && g * sign <= 0.0 {
            return None;
        }
        // (g/2) s² + v s + (origin - x) = 0, and the root where the velocity g s + v has the
        // crossing's sign: (-v + sign √disc) / g
        let c = self.origin[axis] - x;
        let disc = v * v - 2.0 * g * c;
        if disc.is_nan() || disc < 0.0 {
            // Never back below the level: a rounding past it, and going on outwards
            return beyond.then_some(now);
        }
        let root = disc.sqrt() * sign;
        let s = if v * root <= 0.0 {
            (-v + root) / g
        } else {
            2.0 * c / (-v - root)
        };
        Some((self.time + s).max(now))
    }
}

/// What the broad phase and the queries read of a ball: two cache lines (one before paths
/// could fall; unaligned, at 88 bytes, it measured no faster).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub(super) struct BallBody {
    /// Its path since its last change of course; each ball keeps its own clock.
    pub path: Trajectory,
    pub radius: Real,
}

/// What only the response reads of a ball.
#[derive(Clone, Copy, Debug)]
pub(super) struct BallMaterial {
    pub inverse_mass: Real,
    pub restitution: Real,
    /// Coefficient of friction (0: frictionless).
    pub friction: Real,
    /// Angular velocity: only contacts with friction change it.
    pub spin: Vec3,
    /// Rolling resistance (0: rolls for ever).
    pub rolling_resistance: Real,
    /// Resting contacts in this step.
    pub resting_hits: u32,
    /// What it has come to rest against in this step: a place in [`Balls::supports`], or
    /// [`NONE`] (most balls, in most steps, touch nothing).
    pub supports: u32,
    /// Its motion on a surface in this step: a place in [`Balls::surfaces`], or [`NONE`]. It
    /// moves there while its motion is [`Motion::OnSurface`]; a ball that has left its surface
    /// keeps the place, and lies on none again in the step.
    pub surface: u32,
    /// How it moves now.
    pub motion: Motion,
}

/// How a ball moves in this step: one regime at a time.
///
/// A kicked or pushed ball has paid velocity in advance: at `now` its velocity holds
/// `owed (t1 - now)` that it has not yet earned, an acceleration paid until the step's end `t1`
/// (see [`Body::owed`]). Impacts and friction act on what it has earned.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Motion {
    /// On its own path since the step's start or its last change of course (gravity's
    /// parabola, or a line), owing nothing.
    Free,
    /// It took the rest of the step's acceleration as a velocity at once (a kick, or a
    /// projection of its resting cluster) and goes straight: after each contact it owes its
    /// gravity again, less what holds it up takes.
    Kicked {
        /// The acceleration paid in advance that its supports have not taken.
        owed: Vec3,
        /// The angular acceleration paid in advance (see [`Body::owed_spin`]): what a
        /// projection of its resting cluster with friction gave it.
        owed_spin: Vec3,
    },
    /// Pushed along by another ball's prepaid gravity: it owes what it was pushed with (never
    /// zero).
    Pushed {
        /// The acceleration paid in advance.
        owed: Vec3,
    },
    /// It moves on a surface in closed form (see [`surface`](super::surface)): its motion
    /// there is at [`BallMaterial::surface`].
    OnSurface,
    /// The budget stopped it: it ends the step at rest where it is.
    Stopped,
}

impl Motion {
    /// The acceleration it has paid in advance and not yet earned (zero: none).
    #[inline]
    pub fn owed(&self) -> Vec3 {
        match *self {
            Motion::Kicked { owed, .. } | Motion::Pushed { owed } => owed,
            _ => Vec3::ZERO,
        }
    }

    /// The angular acceleration it has paid in advance and not yet earned.
    #[inline]
    pub fn owed_spin(&self) -> Vec3 {
        match *self {
            Motion::Kicked { owed_spin, .. } => owed_spin,
            _ => Vec3::ZERO,
        }
    }

    /// True when it goes straight after a kick.
    #[inline]
    pub fn kicked(&self) -> bool {
        matches!(self, Motion::Kicked { .. })
    }

    /// What it owes now becomes `owed`: a kicked ball stays kicked; any other is pushed where
    /// it owes anything, else free.
    #[inline]
    pub fn set_owed(&mut self, owed: Vec3) {
        match self {
            Motion::Kicked { owed: o, .. } => *o = owed,
            _ if owed != Vec3::ZERO => *self = Motion::Pushed { owed },
            _ => *self = Motion::Free,
        }
    }
}

/// A ball's motion on a plane or a polygon's face in closed form: what its path and spin do
/// not hold.
#[derive(Clone, Copy, Debug)]
pub(super) struct Lying {
    /// The static shape it lies on, by index.
    pub shape: u32,
    /// The plane, as the motion sees it.
    pub surface: Surface,
    /// The rate its spin changes at, since its path's time.
    pub spin_rate: Vec3,
    /// What ends the motion in the step, if anything does.
    pub ends: Option<Ending>,
}

/// What ends a ball's motion on a surface.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ending {
    /// A change of state (see [`plan`](super::surface::plan)).
    Change(Change),
    /// Its centre passes over an edge of the polygon's face it lies on: the face no longer
    /// holds it up alone.
    OffFace,
}

/// The balls of one step, as arrays.
#[derive(Debug, Default)]
pub(super) struct Balls {
    pub entity: Vec<Entity>,
    /// What the event loop reads and writes, kept together for the cache.
    pub body: Vec<BallBody>,
    pub material: Vec<BallMaterial>,
    /// Changes of course since the calendar began (collisions, stops, edits): events predicted
    /// before the last one are stale. Apart from the bodies so that the broad phase filters
    /// without touching them.
    pub counter: Vec<u32>,
    /// Collisions and stops in this step (a collapse is told by them: `ELASTIC_AFTER`).
    pub hits: Vec<u32>,
    /// Sleep state: clocks, islands, what woke.
    pub rest: Vec<Rest>,
    /// Where each ball was at the start of the step.
    pub start: Vec<Vec3>,
    /// The supports of the balls that have any in this step.
    pub supports: Vec<Supports>,
    /// The motions on a surface of the balls that have one in this step.
    pub surfaces: Vec<Lying>,
}

impl Balls {
    pub fn clear(&mut self) {
        self.entity.clear();
        self.body.clear();
        self.material.clear();
        self.counter.clear();
        self.hits.clear();
        self.rest.clear();
        self.start.clear();
        self.supports.clear();
        self.surfaces.clear();
    }

    pub fn len(&self) -> usize {
        self.entity.len()
    }

    /// Count a change of course of ball `k` in this step: its events go stale.
    #[inline]
    pub fn bump(&mut self, k: usize) {
        self.counter[k] += 1;
        self.hits[k] += 1;
    }

    /// The ball as a moving ball whose `t = 0` is `now`.
    #[inline]
    pub fn moving(&self, i: usize, now: Real) -> MovingBall {
        let b = &self.body[i];
        MovingBall::new(b.path.at(now), b.radius, b.path.velocity_at(now))
            .with_acceleration(b.path.acceleration)
    }

    /// What ball `i` rests against in this step.
    pub fn supports(&self, i: usize) -> Supports {
        match self.material[i].supports {
            NONE => Supports::default(),
            k => self.supports[k as usize],
        }
    }

    /// What ball `i` rests against in this step, to be added to.
    pub fn supports_mut(&mut self, i: usize) -> &mut Supports {
        let place = &mut self.material[i].supports;
        if *place == NONE {
            *place = self.supports.len() as u32;
            self.supports.push(Supports::default());
        }
        &mut self.supports[*place as usize]
    }

    /// Take back from ball `i` the spin paid in advance for the `rest` of the step (see
    /// [`Motion::Kicked`]): it keeps what it has earned, and owes nothing more.
    pub fn take_back_spin(&mut self, i: usize, rest: Real) {
        let material = &mut self.material[i];
        if let Motion::Kicked { owed_spin, .. } = &mut material.motion
            && *owed_spin != Vec3::ZERO
        {
            material.spin -= *owed_spin * rest;
            *owed_spin = Vec3::ZERO;
        }
    }

    /// The ball as the response sees it at `now` in a step ending at `t_end`, under `gravity`.
    pub fn response_body(&self, i: usize, now: Real, t_end: Real, gravity: Vec3) -> Body {
        let material = &self.material[i];
        let down = gravity.normalize_or_zero();
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
            velocity: self.body[i].path.velocity_at(now),
            spin: material.spin,
            radius: self.body[i].radius,
            rolling: material.rolling_resistance,
            inverse_mass: material.inverse_mass,
            supports: self.supports(i),
            frozen,
            owed: material.motion.owed() * (t_end - now),
            owed_spin: material.motion.owed_spin() * (t_end - now),
            // A pushed ball owes again only what it was pushed with
            paid: if material.motion.kicked() {
                gravity
            } else {
                material.motion.owed()
            } * (t_end - now),
        }
    }

    /// The box of the ball's path from `now` to `t_end`.
    #[inline]
    pub fn path_box(&self, i: usize, now: Real, t_end: Real) -> Aabb {
        let b = &self.body[i];
        if b.path.acceleration == Vec3::ZERO {
            let from = b.path.at(now);
            return Aabb::of_path(from, from + b.path.velocity * (t_end - now), b.radius);
        }
        let (low, high) = b.path.extent(now, t_end);
        Aabb::of_path(low, high, b.radius)
    }

    /// Return where ball `i` is at `t_end`, the end of the step: its origin when its path
    /// began then (so that a path restarted at the end gives its origin bit for bit).
    #[inline]
    pub fn end(&self, i: usize, t_end: Real) -> Vec3 {
        let path = &self.body[i].path;
        if path.time == t_end {
            path.origin
        } else {
            path.at(t_end)
        }
    }

    /// Return ball `i` where it is at `t_end`.
    #[inline]
    pub fn ball_at(&self, i: usize, t_end: Real) -> Ball {
        Ball::new(self.end(i, t_end), self.body[i].radius)
    }

    /// Start ball `i` on a path with `velocity` and `acceleration` at `t_end`, from where it
    /// is then.
    #[inline]
    pub fn restart_with(&mut self, i: usize, t_end: Real, velocity: Vec3, acceleration: Vec3) {
        let path = &mut self.body[i].path;
        if path.time != t_end {
            path.restart(t_end);
        }
        path.velocity = velocity;
        path.acceleration = acceleration;
    }

    /// Restart ball `i`'s path at `now` from where it is then; a ball moving on a surface
    /// turns its spin on to `now` as well.
    #[inline]
    pub fn advance(&mut self, i: usize, now: Real) {
        let b = &mut self.body[i];
        if self.material[i].motion == Motion::OnSurface {
            let k = self.material[i].surface as usize;
            let turned = self.surfaces[k].spin_rate * (now - b.path.time);
            self.material[i].spin += turned;
        }
        b.path.restart(now);
    }

    /// Return ball `i`'s spin at `now`: a ball moving on a surface turns its spin on.
    #[inline]
    pub fn spin_at(&self, i: usize, now: Real) -> Vec3 {
        let material = &self.material[i];
        if material.motion == Motion::OnSurface {
            let since = now - self.body[i].path.time;
            material.spin + self.surfaces[material.surface as usize].spin_rate * since
        } else {
            material.spin
        }
    }

    /// Return what ball `i` has earned at `now` in a step ending at `t1`: its velocity and spin
    /// less what a kick or a push paid in advance for the rest of the step (`owed (t1 - now)`,
    /// see [`Motion`]); its velocity and spin where it owes nothing.
    #[inline]
    pub fn earned_at(&self, i: usize, now: Real, t1: Real) -> (Vec3, Vec3) {
        let motion = &self.material[i].motion;
        (
            self.body[i].path.velocity_at(now) - motion.owed() * (t1 - now),
            self.spin_at(i, now) - motion.owed_spin() * (t1 - now),
        )
    }

    /// True when ball `i` moves on a surface in closed form.
    #[inline]
    pub fn on_surface(&self, i: usize) -> bool {
        self.material[i].motion == Motion::OnSurface
    }

    /// Take ball `i`, advanced to now, off the surface it moves on: it falls under `gravity`
    /// from here. False when it moves on none.
    #[inline]
    pub fn leave_surface(&mut self, i: usize, gravity: Vec3) -> bool {
        let material = &mut self.material[i];
        if material.motion != Motion::OnSurface {
            return false;
        }
        material.motion = Motion::Free;
        self.body[i].path.acceleration = gravity;
        true
    }

    /// Give ball `i`, at `now`, the velocity its acceleration would add by `t_end` at once, and
    /// a straight path from there (NeHe's kick, for the rest of the step).
    #[inline]
    pub fn kick(&mut self, i: usize, now: Real, t_end: Real) {
        let path = &mut self.body[i].path;
        if path.acceleration != Vec3::ZERO {
            path.restart(now);
            path.velocity += path.acceleration * (t_end - now);
            let motion = &mut self.material[i].motion;
            *motion = Motion::Kicked {
                owed: motion.owed() + path.acceleration,
                owed_spin: motion.owed_spin(),
            };
            path.acceleration = Vec3::ZERO;
        }
    }
}

/// Reorder `items` so that `items[k]` becomes the old `items[order[k]]`, in place: cycle by
/// cycle, with `done` as scratch (a bit per item).
pub(super) fn permute<T: Copy>(items: &mut [T], order: &[u32], done: &mut Vec<u64>) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64;

    fn random_path(rng: &mut Pcg64) -> Trajectory {
        let mut v = || {
            Vec3::new(
                rng.random_range(-3.0..3.0),
                rng.random_range(-3.0..3.0),
                0.0,
            )
        };
        let (origin, velocity, acceleration) = (v(), v(), v() * 4.0);
        Trajectory {
            origin,
            velocity,
            acceleration,
            time: 0.5,
        }
    }

    #[test]
    fn a_falling_path_walks_through_its_cells_one_crossing_at_a_time() {
        // Random parabolas, cells of 0.37 along x: from the cell of its start, a ball takes the
        // earliest crossing up or down again and again until the end; at each crossing it is on
        // the boundary, the times never go back, and at the end it is in the cell it reached
        let side = 0.37;
        let mut rng = Pcg64::seed_from_u64(7);
        for case in 0..2000 {
            let path = random_path(&mut rng);
            let (start, end) = (path.time, path.time + 2.0);
            let mut cell = (path.origin.x / side).floor() as i64;
            let (mut now, mut crossings) = (start, 0);
            loop {
                let up = path.crosses(0, (cell + 1) as Real * side, true, now);
                let down = path.crosses(0, cell as Real * side, false, now);
                let next = [up.map(|t| (t, 1)), down.map(|t| (t, -1))]
                    .into_iter()
                    .flatten()
                    .filter(|&(t, _)| t <= end)
                    .min_by(|a, b| a.0.total_cmp(&b.0));
                let Some((t, step)) = next else { break };
                assert!(t >= now, "case {case}: back from {now} to {t}");
                let x = path.at(t).x;
                let boundary = if step > 0 { cell + 1 } else { cell } as Real * side;
                assert!(
                    (x - boundary).abs() < 1e-12,
                    "case {case}: at {x}, not {boundary}"
                );
                cell += step;
                now = t;
                crossings += 1;
                assert!(crossings < 100, "case {case}: to and fro at {t}");
            }
            let x = path.at(end).x;
            let (low, high) = (cell as Real * side, (cell + 1) as Real * side);
            assert!(
                x >= low - 1e-12 && x <= high + 1e-12,
                "case {case}: ended at {x} in cell {cell} ({low} to {high})"
            );
        }
    }

    #[test]
    fn a_crossing_a_rounding_behind_is_now_only_when_going_on_outwards() {
        // At the level, moving up through it: crossing now; moving back down: no upward
        // crossing until gravity turns it (never, under gravity down)
        let up = Trajectory {
            origin: Vec3::new(1.0, 0.0, 0.0),
            velocity: Vec3::new(1.0, 0.0, 0.0),
            acceleration: Vec3::new(-9.81, 0.0, 0.0),
            time: 0.0,
        };
        assert_eq!(up.crosses(0, 1.0, true, 0.0), Some(0.0));
        // It comes back down through the level at 2 v / g
        let back = up.crosses(0, 1.0, false, 0.0).unwrap();
        assert!((back - 2.0 / 9.81).abs() < 1e-15, "{back}");
        let down = Trajectory {
            velocity: Vec3::new(-1.0, 0.0, 0.0),
            ..up
        };
        assert_eq!(down.crosses(0, 1.0, true, 0.0), None);
        assert_eq!(down.crosses(0, 1.0, false, 0.0), Some(0.0));
    }

    #[test]
    fn the_extent_of_a_falling_path_holds_every_point_of_it() {
        let mut rng = Pcg64::seed_from_u64(11);
        for case in 0..500 {
            let path = random_path(&mut rng);
            let (from, to) = (0.7, 0.7 + rng.random_range(0.0..2.0));
            let (low, high) = path.extent(from, to);
            for k in 0..=200 {
                let p = path.at(from + (to - from) * k as Real / 200.0);
                assert!(
                    p.cmpge(low - 1e-12).all() && p.cmple(high + 1e-12).all(),
                    "case {case}: {p} outside {low} to {high}"
                );
            }
        }
    }
}
