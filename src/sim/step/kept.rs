//! What a stepper keeps from one step to the next where paths hold (its clock, calendar,
//! order and each ball's earliest event), and the decision at a step's start to go on from
//! it or start afresh.

use hecs::World;

use super::world::clock_of;
use crate::math::{Real, Vec3};
use crate::sim::calendar::Key;

/// What goes on from one step to the next where paths hold across steps: a cache, checked
/// against the world at each step's start, so that a fresh stepper meets the same events.
#[derive(Debug, Default)]
pub(super) struct Kept {
    /// The last step completed with paths that hold, and left its calendar, cells and order
    /// to the next (a cache: a fresh stepper rebuilds them and meets the same events).
    pub(super) left: bool,
    /// Paths hold across steps in the current step (an exact strategy; under gravity, after a
    /// calm step).
    pub(super) keeps: bool,
    /// When the current step began, on the clock of the balls' paths (see
    /// [`Path`](crate::sim::components::Path)).
    pub(super) clock: Real,
    /// The end of the last step completed, on the paths' clock.
    pub(super) last_end: Real,
    /// The length of the last step completed.
    pub(super) last_dt: Real,
    /// Where paths hold: per ball, the key of its earliest event in the calendar (the only one
    /// each ball keeps, with those of other balls that involve it).
    pub(super) earliest: Vec<Key>,
    /// The balls in memory order: gathered index of each.
    pub(super) order: Vec<u32>,
    /// Balls whose paths changed outside the event loop (edited, stopped): they predict
    /// afresh at the start of the next step that continues this one's calendar.
    pub(super) changed_balls: Vec<u32>,
    /// The fingerprint of this step's statics and configuration (see
    /// [`change`](crate::sim::change)).
    pub(super) surroundings: u64,
}

/// How a step starts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Start {
    /// Going on from what the last step kept, at the world's clock, if the world is as the
    /// last step left it.
    GoOn(Real),
    /// Afresh, at the world's clock where paths hold.
    Afresh(Option<Real>),
}

impl Kept {
    /// Decide, at the start of a step of `dt` in `world` under `gravity`, whether paths hold in
    /// it (`exact`: the strategy's misses are certain) and whether it may go on from what the
    /// last step kept or starts afresh. What the last step left goes on only if this one
    /// completes; predictions made for curved paths looked as far as the epoch of that step's
    /// `dt`, and the world's clock must be where that step ended.
    pub(super) fn begin(&mut self, world: &World, dt: Real, gravity: Vec3, exact: bool) -> Start {
        // Under gravity paths hold only after a calm step, one that left the world a clock
        let clock = clock_of(world, dt);
        let keeps = exact && (gravity == Vec3::ZERO || clock.is_some());
        let clock = clock.filter(|_| keeps);
        self.keeps = keeps;
        let left = std::mem::take(&mut self.left);
        let same_epoch = gravity == Vec3::ZERO || dt == self.last_dt;
        match clock {
            Some(clock) if left && keeps && same_epoch && clock == self.last_end => {
                Start::GoOn(clock)
            }
            _ => Start::Afresh(clock),
        }
    }

    /// Close a step of `dt` that ended at `t_end`: what it leaves goes on into the next step
    /// when `goes_on`.
    pub(super) fn end(&mut self, goes_on: bool, t_end: Real, dt: Real) {
        self.left = goes_on;
        self.last_end = t_end;
        self.last_dt = dt;
    }
}
