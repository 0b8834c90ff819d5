//! The balls of one step as arrays: what the event loop reads and writes.
//!
//! Gathered from the world at the start of a step and written back at its end. Each ball keeps
//! its own clock: its position is where it was at that time, and it moves on a straight path
//! until its next collision, so a collision advances only the balls it touches.

use hecs::Entity;

use super::response::{Body, FREEZE_AFTER, FREEZE_ALWAYS_AFTER, Frozen, Supports};
use super::sleep::Rest;
use crate::geometry::{Aabb, Ball};
use crate::math::{Real, Vec3};
use crate::toi::MovingBall;

/// No entry.
pub(crate) const NONE: u32 = u32::MAX;

/// A ball's path between two changes of course: where it was at `time` and its velocity since.
///
/// Where the ball is at any later time is computed from these three, never stepped, so a
/// prediction made from a path depends on the path alone: predicting afresh gives the same bits.
/// Paths are straight lines today; exact flight under gravity will make them parabolas, behind
/// the same methods.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Trajectory {
    /// Where the ball was at `time`.
    pub origin: Vec3,
    /// Its velocity since.
    pub velocity: Vec3,
    /// The time of its last change of course, on the stepper's clock (see
    /// [`Path`](super::components::Path)).
    pub time: Real,
}

impl Trajectory {
    /// Return where the ball is at `t` (`t >= time`).
    #[inline]
    #[must_use]
    pub fn at(&self, t: Real) -> Vec3 {
        self.origin + self.velocity * (t - self.time)
    }

    /// Start the path anew at `t` from where it is then, with the same velocity.
    #[inline]
    pub fn restart(&mut self, t: Real) {
        self.origin = self.at(t);
        self.time = t;
    }

    /// Return when the path reaches `x` along `axis`, at `velocity[axis]` (not zero).
    #[inline]
    #[must_use]
    pub fn reaches(&self, axis: usize, x: Real) -> Real {
        self.time + (x - self.origin[axis]) / self.velocity[axis]
    }
}

/// What the broad phase and the queries read of a ball: one cache line.
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
    /// Resting contacts in this step.
    pub resting_hits: u32,
    /// It came to rest in this step against a static shape or a sleeping ball: what a sleeping
    /// island must rest on (a resting contact with a moving ball does not count).
    pub supported: bool,
    /// What it has come to rest against in this step: a place in [`Balls::supports`], or
    /// [`NONE`] (most balls, in most steps, touch nothing).
    pub supports: u32,
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
    /// Collisions and stops in this step (the TC rule counts them).
    pub hits: Vec<u32>,
    /// Sleep state: clocks, islands, what woke.
    pub rest: Vec<Rest>,
    /// Where each ball was at the start of the step.
    pub start: Vec<Vec3>,
    /// The supports of the balls that have any in this step.
    pub supports: Vec<Supports>,
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
        MovingBall::new(b.path.at(now), b.radius, b.path.velocity)
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

    /// The ball as the response sees it, under gravity along `down` (unit, or zero).
    pub fn response_body(&self, i: usize, down: Vec3) -> Body {
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
            velocity: self.body[i].path.velocity,
            inverse_mass: material.inverse_mass,
            supports: self.supports(i),
            frozen,
        }
    }

    /// The box of the ball's path from `now` to `t_end`.
    #[inline]
    pub fn path_box(&self, i: usize, now: Real, t_end: Real) -> Aabb {
        let b = &self.body[i];
        let from = b.path.at(now);
        Aabb::of_path(from, from + b.path.velocity * (t_end - now), b.radius)
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

    /// Start ball `i` on a path with `velocity` at `t_end`, from where it is then.
    #[inline]
    pub fn restart_with(&mut self, i: usize, t_end: Real, velocity: Vec3) {
        let path = &mut self.body[i].path;
        if path.time != t_end {
            path.restart(t_end);
        }
        path.velocity = velocity;
    }

    #[inline]
    pub fn advance(&mut self, i: usize, now: Real) {
        let b = &mut self.body[i];
        b.path.restart(now);
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
