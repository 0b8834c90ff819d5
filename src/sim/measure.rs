//! Measuring the end of a step from the contacts it met: overlaps and escapes.
//!
//! Nothing here passes over every ball. A pair can end a step overlapping only if a query of
//! the step found it touching or meeting (a query that finds a miss clears its pair until the
//! end of the step, or until a ball changes course and asks again), so the deepest overlap and
//! the escapes are measured over those pairs alone. Kinetic energy and momentum are summed as
//! the balls are written back into the world, a pass the step makes anyway.

use super::bodies::Balls;
use super::calendar::Other;
use super::events::StepStats;
use super::statics::Static;
use crate::geometry::Shape;
use crate::math::Real;

/// A pair a query found touching or meeting, with the collision counters of its balls then.
#[derive(Clone, Copy, Debug)]
pub(super) struct Touching {
    /// The ball that asked.
    pub a: u32,
    /// The other side.
    pub other: Other,
    counts: [u32; 2],
}

impl Touching {
    /// The pair `a`, `other` as of `counters`.
    pub fn new(a: u32, other: Other, counters: &[u32]) -> Self {
        let b = match other {
            Other::Ball(j) => counters[j as usize],
            Other::Static(_) => 0,
        };
        Self {
            a,
            other,
            counts: [counters[a as usize], b],
        }
    }

    /// True while neither ball has changed course since: the query's answer still holds.
    pub fn live(&self, counters: &[u32]) -> bool {
        counters[self.a as usize] == self.counts[0]
            && match self.other {
                Other::Ball(j) => counters[j as usize] == self.counts[1],
                Other::Static(_) => true,
            }
    }
}

impl StepStats {
    /// Measure the deepest overlap and the balls escaped (centre behind a plane or inside a
    /// cylinder) at the end of a step over `contacts`, the pairs whose queries in the step found
    /// them touching or meeting, with the balls where they are at `t_end`. `escaped` is scratch.
    pub(super) fn measure_contacts(
        &mut self,
        balls: &Balls,
        t_end: Real,
        statics: &[Static],
        contacts: &[Touching],
        escaped: &mut Vec<u32>,
    ) {
        let mut deepest: Real = 0.0;
        escaped.clear();
        for &Touching { a: i, other, .. } in contacts {
            let b = balls.ball_at(i as usize, t_end);
            let depth = match other {
                Other::Static(k) => {
                    let (gap, holds_centre) = statics[k as usize].shape.gap(b.center);
                    if holds_centre {
                        escaped.push(i);
                    }
                    b.radius - gap
                }
                Other::Ball(j) => balls.ball_at(j as usize, t_end).proximity(&b).depth(),
            };
            deepest = deepest.max(depth);
        }
        escaped.sort_unstable();
        escaped.dedup();
        self.max_penetration = deepest;
        self.escaped = escaped.len() as u64;
    }
}
