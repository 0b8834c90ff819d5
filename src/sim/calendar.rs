//! The calendar: predicted collisions and cell crossings in a min-heap, stale ones dropped when
//! met. Events after the end of a step stay for the next one where paths hold across steps.
//!
//! An event carries the collision counters its balls had when it was predicted; a ball that has
//! changed course since has a higher counter, and its old events are skipped when they come up
//! (lazy invalidation, as in event-driven molecular dynamics), so nothing is ever searched for
//! and removed.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use rustc_hash::FxHashMap;

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

/// The order of events: time, then the asking ball, then what happens (packed).
pub(super) type Key = (Real, u32, u32);

/// A key after every event.
pub(super) const NEVER: Key = (Real::INFINITY, u32::MAX, u32::MAX);

/// True when key `x` comes before key `y`.
#[inline]
pub(super) fn earlier(x: Key, y: Key) -> bool {
    x.0.total_cmp(&y.0)
        .then(x.1.cmp(&y.1))
        .then(x.2.cmp(&y.2))
        .is_lt()
}

/// The capacity of a bucket worth keeping for reuse, and how many are kept.
const SMALL_BUCKET: usize = 8;
const MAX_SPARE: usize = 4096;

/// In [`Event::owner`]'s place in `a`: the event is held for the other ball.
const HELD_FOR_B: u32 = 1 << 31;

/// What the calendar gives next.
#[derive(Clone, Copy, Debug)]
pub(super) enum Next {
    /// An event whose balls have not changed course since it was predicted.
    Event(Event),
    /// The earliest event held for this ball went stale (the other ball changed course): the
    /// ball predicts again at `time`, the events it had after that one having been left out.
    Again {
        /// The ball.
        ball: u32,
        /// When.
        time: Real,
    },
}

/// A predicted collision of ball `a` with a ball or a static shape, or its crossing into the
/// next cell of a grid.
#[derive(Clone, Copy, Debug)]
pub(super) struct Event {
    /// When, on the paths' clock.
    pub time: Real,
    /// The ball that asked (and in the top bit, whether the event is held for the other).
    a: u32,
    /// What happens, packed (see [`Happening::pack`]).
    b: u32,
    count_a: u32,
    count_b: u32,
}

impl Event {
    /// Return the ball that asked.
    #[inline]
    pub fn a(&self) -> u32 {
        self.a & !HELD_FOR_B
    }

    /// Return what happens.
    #[inline]
    pub fn happening(&self) -> Happening {
        Happening::unpack(self.b)
    }

    /// Return the event's place in the order.
    #[inline]
    pub fn key(&self) -> Key {
        (self.time, self.a(), self.b)
    }

    /// Return the ball the event is held for, with its counter when predicted.
    #[inline]
    fn owner(&self) -> (u32, u32) {
        match (self.a & HELD_FOR_B != 0, self.happening()) {
            (true, Happening::Contact(Other::Ball(j))) => (j, self.count_b),
            _ => (self.a(), self.count_a),
        }
    }

    /// True when neither ball has changed course since the event was predicted.
    #[inline]
    fn current(&self, counters: &[u32]) -> bool {
        counters[self.a() as usize] == self.count_a
            && match self.happening() {
                Happening::Contact(Other::Ball(j)) => counters[j as usize] == self.count_b,
                _ => true,
            }
    }
}

/// Return the key of what happens to ball `a` at `time`.
#[inline]
pub(super) fn key_of(time: Real, a: u32, happening: Happening) -> Key {
    (time, a, happening.pack())
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

/// The pending events: those of the current step in a min-heap, and, where events outlive
/// steps, the later ones in buckets of time (a calendar queue of one step's width, after Paul,
/// "A complexity O(1) priority queue for event driven molecular dynamics simulations", J.
/// Comput. Phys. 221, 2007), moved into the heap when their step comes. The heap stays the
/// size of a step's events, however far ahead the predictions reach.
#[derive(Debug, Default)]
pub(super) struct Calendar {
    heap: BinaryHeap<Reverse<Event>>,
    /// Events after the last bucket moved into the heap, by bucket (`time / width`).
    later: FxHashMap<u64, Vec<Event>>,
    /// Events in `later`.
    later_len: usize,
    /// The buckets' width; zero while every event goes to the heap.
    width: Real,
    /// Every bucket up to this one is in the heap (events pushed for them go there).
    drained: u64,
    /// Emptied buckets, to reuse.
    spare: Vec<Vec<Event>>,
}

impl Calendar {
    /// Add what happens to ball `a` at `time`, as of the balls' collision counters
    /// (`counters[i]` for ball `i`).
    pub fn push(&mut self, time: Real, a: u32, happening: Happening, counters: &[u32]) {
        self.push_held(time, a, happening, counters, false);
    }

    /// Add what happens to ball `a` at `time`, held for the other ball of the contact when
    /// `for_b` (see [`Next::Again`]).
    pub fn push_held(
        &mut self,
        time: Real,
        a: u32,
        happening: Happening,
        counters: &[u32],
        for_b: bool,
    ) {
        debug_assert!(a < HELD_FOR_B);
        let count_b = match happening {
            Happening::Contact(Other::Ball(j)) => counters[j as usize],
            _ => 0,
        };
        let event = Event {
            time,
            a: if for_b { a | HELD_FOR_B } else { a },
            b: happening.pack(),
            count_a: counters[a as usize],
            count_b,
        };
        if self.width > 0.0 {
            let b = self.bucket(time);
            if b > self.drained {
                let spare = &mut self.spare;
                self.later
                    .entry(b)
                    .or_insert_with(|| spare.pop().unwrap_or_default())
                    .push(event);
                self.later_len += 1;
                return;
            }
        }
        self.heap.push(Reverse(event));
    }

    /// Forget every event, and keep later events in buckets of `width` (zero: none, every
    /// event in the heap).
    pub fn clear(&mut self, width: Real) {
        self.heap.clear();
        let buckets: Vec<Vec<Event>> = self.later.drain().map(|(_, bucket)| bucket).collect();
        for bucket in buckets {
            self.recycle(bucket);
        }
        self.later_len = 0;
        self.width = if width.is_finite() && width > 0.0 {
            width
        } else {
            0.0
        };
        self.drained = 0;
    }

    /// Return how many events are pending, stale ones included.
    pub fn len(&self) -> usize {
        self.heap.len() + self.later_len
    }

    /// Keep an emptied bucket to reuse, if it is small (most are: a bucket is a step's
    /// events of a few balls, and a large one would keep its memory for good).
    fn recycle(&mut self, mut bucket: Vec<Event>) {
        if bucket.capacity() <= SMALL_BUCKET && self.spare.len() < MAX_SPARE {
            bucket.clear();
            self.spare.push(bucket);
        }
    }

    /// The bucket of `time` (times are not negative).
    #[inline]
    fn bucket(&self, time: Real) -> u64 {
        // Saturates: far beyond any step, all in the last bucket
        (time / self.width) as u64
    }

    /// Move the events up to `t_end` (and a little after, to the end of its bucket) into the
    /// heap.
    pub fn advance_to(&mut self, t_end: Real) {
        if self.width == 0.0 {
            return;
        }
        let last = self.bucket(t_end);
        if last <= self.drained {
            return;
        }
        let take = |calendar: &mut Self, b: u64| {
            if let Some(mut bucket) = calendar.later.remove(&b) {
                calendar.later_len -= bucket.len();
                calendar.heap.extend(bucket.drain(..).map(Reverse));
                calendar.recycle(bucket);
            }
        };
        let first = self.drained + 1;
        if last - first < self.later.len() as u64 {
            for b in first..=last {
                take(self, b);
            }
        } else {
            let due: Vec<u64> = self.later.keys().copied().filter(|&b| b <= last).collect();
            for b in due {
                take(self, b);
            }
        }
        self.drained = last;
    }

    /// Drop the stale events but those that still stand for a ball's earliest (see
    /// [`Calendar::pop_until`]): where events outlive steps, stale ones would otherwise pile
    /// up until their time comes.
    pub fn compact(&mut self, counters: &[u32], held: &[Key]) {
        let keep = |event: &Event| {
            event.current(counters) || {
                let (ball, count) = event.owner();
                counters[ball as usize] == count && held[ball as usize] == event.key()
            }
        };
        self.heap.retain(|Reverse(event)| keep(event));
        self.later.retain(|_, bucket| {
            bucket.retain(keep);
            bucket.shrink_to(SMALL_BUCKET);
            !bucket.is_empty()
        });
        self.later_len = self.later.values().map(Vec::len).sum();
        self.heap.shrink_to(2 * self.heap.len() + 1024);
    }

    /// Remove and return the earliest event at or before `t_end` whose balls have not changed
    /// course since it was predicted, dropping the stale ones before it; `None` when none is
    /// left before `t_end` (later events stay).
    ///
    /// With `held` (each ball's earliest event, where each ball keeps only its earliest in the
    /// calendar), a stale event that was a ball's earliest gives [`Next::Again`] for it.
    pub fn pop_until(
        &mut self,
        counters: &[u32],
        t_end: Real,
        held: Option<&[Key]>,
    ) -> Option<Next> {
        while let Some(Reverse(event)) = self.heap.peek() {
            if event.time > t_end {
                return None;
            }
            let Reverse(event) = self.heap.pop().expect("peeked");
            if event.current(counters) {
                return Some(Next::Event(event));
            }
            if let Some(held) = held {
                let (ball, count) = event.owner();
                let b = ball as usize;
                if counters[b] == count && held[b] == event.key() {
                    return Some(Next::Again {
                        ball,
                        time: event.time,
                    });
                }
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

    fn drain(calendar: &mut Calendar, counters: &[u32], t_end: Real) -> Vec<(Real, u32)> {
        let mut out = Vec::new();
        while let Some(Next::Event(e)) = calendar.pop_until(counters, t_end, None) {
            out.push((e.time, e.a()));
        }
        out
    }

    /// Events after the step wait in buckets and come out in order when their step comes,
    /// however far ahead; events of one time come out by their balls.
    #[test]
    fn later_events_wait_for_their_step() {
        let counters = [0; 8];
        let mut calendar = Calendar::default();
        calendar.clear(0.1);
        calendar.advance_to(0.1);
        let times = [0.35, 0.05, 1e6, 0.12, 0.35, 0.1, 0.25, 7.5];
        for (a, &t) in times.iter().enumerate() {
            let crossing = Happening::Crossing {
                grid: 0,
                axis: 0,
                step: 1,
            };
            calendar.push(t, a as u32, crossing, &counters);
        }
        assert_eq!(calendar.len(), 8);
        assert_eq!(drain(&mut calendar, &counters, 0.1), [(0.05, 1), (0.1, 5)]);
        let mut seen = Vec::new();
        let mut t = 0.1;
        while calendar.len() > 0 && t < 2e6 {
            t += 0.1;
            calendar.advance_to(t);
            for (time, a) in drain(&mut calendar, &counters, t) {
                assert!(
                    time <= t && time > t - 0.1 - 1e-12,
                    "{time} in the step to {t}"
                );
                seen.push((time, a));
            }
            if t > 10.0 && t < 1e6 {
                // A jump far ahead, as after a huge dt
                t = 999_999.95;
            }
        }
        assert_eq!(
            seen,
            [
                (0.12, 3),
                (0.25, 6),
                (0.35, 0),
                (0.35, 4),
                (7.5, 7),
                (1e6, 2)
            ]
        );
    }

    /// A stale event that was a ball's earliest gives `Again` for it; other stale events are
    /// dropped, and compaction keeps the first kind only.
    #[test]
    fn a_stale_earliest_event_sends_its_ball_to_look_again() {
        let mut counters = [0; 3];
        let mut calendar = Calendar::default();
        calendar.clear(0.0);
        let contact = Happening::Contact(Other::Ball(2));
        // Ball 0 asks about ball 2: held for ball 2 only (ball 0 holds an earlier one)
        calendar.push_held(0.5, 0, contact, &counters, true);
        calendar.push_held(
            0.2,
            0,
            Happening::Contact(Other::Static(0)),
            &counters,
            false,
        );
        let held = [
            key_of(0.2, 0, Happening::Contact(Other::Static(0))),
            NEVER,
            key_of(0.5, 0, contact),
        ];
        // Ball 0 changes course: both its events go stale
        counters[0] += 1;
        calendar.compact(&counters, &held);
        assert_eq!(calendar.len(), 1, "the event held for ball 2 stays");
        match calendar.pop_until(&counters, 1.0, Some(&held)) {
            Some(Next::Again { ball, time }) => assert_eq!((ball, time), (2, 0.5)),
            other => panic!("{other:?}"),
        }
        assert!(calendar.pop_until(&counters, 1.0, Some(&held)).is_none());
    }
}
