//! The calendar of a step: predicted collisions and cell crossings in a min-heap, stale ones
//! dropped when met.
//!
//! An event carries the collision counters its balls had when it was predicted; a ball that has
//! changed course since has a higher counter, and its old events are skipped when they come up
//! (lazy invalidation, as in event-driven molecular dynamics), so nothing is ever searched for
//! and removed.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use crate::math::Real;

/// The other side of a contact, or a candidate for one: a ball or a static shape, by index.
/// Ordered balls first, then by index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Other {
    /// A ball, by its index in the step's arrays.
    Ball(u32),
    /// A static shape, by its index in the step's list of statics.
    Static(u32),
}

/// What an event is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Happening {
    /// The ball touches a ball or a static.
    Contact(Other),
    /// The ball leaves its cell of grid `grid` along `axis` (0, 1, 2) in direction `step` (±1).
    Crossing {
        /// The grid.
        grid: u8,
        /// The axis crossed.
        axis: u8,
        /// +1 or -1.
        step: i8,
    },
}

/// The kind of a packed happening, in its top two bits: in this order at equal times.
const BALL: u32 = 0;
const STATIC: u32 = 2 << 30;
const CROSSING: u32 = 3 << 30;
const INDEX: u32 = (1 << 30) - 1;

impl Happening {
    /// Pack into one `u32`: the kind in the top two bits (contacts with balls, then with
    /// statics, then crossings), then the index, so that simultaneous events keep a fixed
    /// order.
    #[inline]
    fn pack(self) -> u32 {
        match self {
            Self::Contact(Other::Ball(i)) => {
                debug_assert!(i <= INDEX);
                BALL | i
            }
            Self::Contact(Other::Static(k)) => {
                debug_assert!(k <= INDEX);
                STATIC | k
            }
            Self::Crossing { grid, axis, step } => {
                CROSSING | u32::from(grid) << 3 | u32::from(axis) << 1 | u32::from(step > 0)
            }
        }
    }

    /// Unpack what [`Happening::pack`] packed.
    #[inline]
    fn unpack(packed: u32) -> Self {
        let index = packed & INDEX;
        match packed & !INDEX {
            BALL => Self::Contact(Other::Ball(index)),
            STATIC => Self::Contact(Other::Static(index)),
            _ => Self::Crossing {
                grid: (index >> 3) as u8,
                axis: ((index >> 1) & 3) as u8,
                step: if index & 1 == 1 { 1 } else { -1 },
            },
        }
    }
}

/// A predicted collision of ball `a` with a ball or a static shape, or its crossing into the
/// next cell of a grid.
#[derive(Clone, Copy, Debug)]
pub(super) struct Event {
    /// When, from the start of the step.
    pub time: Real,
    /// The ball that asked.
    pub a: u32,
    /// What happens, packed (see [`Happening::pack`]).
    b: u32,
    count_a: u32,
    count_b: u32,
}

impl Event {
    /// Return what happens.
    #[inline]
    pub fn happening(&self) -> Happening {
        Happening::unpack(self.b)
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
    /// Add what happens to ball `a` at `time`, as of the balls' collision counters
    /// (`counters[i]` for ball `i`).
    pub fn push(&mut self, time: Real, a: u32, happening: Happening, counters: &[u32]) {
        let count_b = match happening {
            Happening::Contact(Other::Ball(j)) => counters[j as usize],
            _ => 0,
        };
        self.heap.push(Reverse(Event {
            time,
            a,
            b: happening.pack(),
            count_a: counters[a as usize],
            count_b,
        }));
    }

    /// Remove and return the earliest event whose balls have not collided since it was
    /// predicted, dropping the stale ones before it; `None` when none is left.
    pub fn pop_current(&mut self, counters: &[u32]) -> Option<Event> {
        while let Some(Reverse(event)) = self.heap.pop() {
            let current = counters[event.a as usize] == event.count_a
                && match event.happening() {
                    Happening::Contact(Other::Ball(j)) => counters[j as usize] == event.count_b,
                    _ => true,
                };
            if current {
                return Some(event);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn happenings_pack_and_unpack_in_order() {
        let all = [
            Happening::Contact(Other::Ball(0)),
            Happening::Contact(Other::Ball(INDEX)),
            Happening::Contact(Other::Static(0)),
            Happening::Contact(Other::Static(INDEX)),
            Happening::Crossing {
                grid: 0,
                axis: 2,
                step: -1,
            },
            Happening::Crossing {
                grid: 15,
                axis: 0,
                step: 1,
            },
        ];
        for h in all {
            assert_eq!(Happening::unpack(h.pack()), h);
        }
        // Balls, then statics, then crossings
        assert!(all.windows(2).take(4).all(|w| w[0].pack() < w[1].pack()));
    }
}
