//! The calendar of predicted collisions: a min-heap of events, stale ones dropped when met.
//!
//! An event carries the collision counters its balls had when it was predicted; a ball that has
//! collided since has a higher counter, and its old events are skipped when they come up (lazy
//! invalidation, as in event-driven molecular dynamics), so nothing is ever searched for and
//! removed.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use super::broadphase::Other;
use crate::math::Real;

/// A predicted collision of ball `a` with a ball or a static shape.
#[derive(Clone, Copy, Debug)]
pub(super) struct Event {
    /// When, from the start of the step.
    pub time: Real,
    /// The ball that asked.
    pub a: u32,
    /// The other side, packed (see [`Other::pack`]).
    b: u32,
    count_a: u32,
    count_b: u32,
}

impl Event {
    /// Return the other side of the contact.
    #[inline]
    pub fn other(&self) -> Other {
        Other::unpack(self.b)
    }

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
    /// By time, then by indices (balls before statics), so that simultaneous events resolve in
    /// a fixed order.
    fn cmp(&self, other: &Self) -> Ordering {
        let (ta, a, b) = self.key();
        let (tb, c, d) = other.key();
        ta.total_cmp(&tb).then(a.cmp(&c)).then(b.cmp(&d))
    }
}

/// The pending events of a step.
#[derive(Debug, Default)]
pub(super) struct Calendar {
    heap: BinaryHeap<Reverse<Event>>,
}

impl Calendar {
    /// Add the collision of ball `a` with `other` at `time`, as of the balls' collision counters
    /// (`counters[i]` for ball `i`).
    pub fn push(&mut self, time: Real, a: u32, other: Other, counters: &[u32]) {
        let count_b = match other {
            Other::Ball(j) => counters[j as usize],
            Other::Static(_) => 0,
        };
        self.heap.push(Reverse(Event {
            time,
            a,
            b: other.pack(),
            count_a: counters[a as usize],
            count_b,
        }));
    }

    /// Remove and return the earliest event whose balls have not collided since it was
    /// predicted, dropping the stale ones before it; `None` when none is left.
    pub fn pop_current(&mut self, counters: &[u32]) -> Option<Event> {
        while let Some(Reverse(event)) = self.heap.pop() {
            let current = counters[event.a as usize] == event.count_a
                && match event.other() {
                    Other::Ball(j) => counters[j as usize] == event.count_b,
                    Other::Static(_) => true,
                };
            if current {
                return Some(event);
            }
        }
        None
    }
}
