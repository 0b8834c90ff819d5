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

mod ring;

use ring::Ring;

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
    /// The ball's motion on the surface it lies on changes state (see
    /// [`surface`](super::surface)).
    Turn,
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
const TURN: u32 = 1 << 30;
const STATIC: u32 = 2 << 30;
const CROSSING: u32 = 3 << 30;
const INDEX: u32 = (1 << 30) - 1;

impl Happening {
    /// Pack into one `u32`: the kind in the top two bits (contacts with balls, turns, contacts
    /// with statics, then crossings), then the index, so that simultaneous events of one ball
    /// keep a fixed order (events are ordered by time, then by ball, then by this).
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
            Self::Turn => TURN,
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
            TURN => Self::Turn,
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

/// Events a step in each fine bucket, about, and the most fine buckets in a bucket.
const FINE_EVENTS: usize = 8;
const MAX_FINE: usize = 1 << 14;

/// In [`Event::owner`]'s place in `a`: the event is kept for the other ball.
const FOR_B: u32 = 1 << 31;

/// What the calendar gives next.
#[derive(Clone, Copy, Debug)]
pub(super) enum Next {
    /// An event whose balls have not changed course since it was predicted.
    Event(Event),
    /// The earliest event kept for this ball went stale (the other ball changed course): the
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
    /// The ball that asked (and in the top bit, whether the event is kept for the other).
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
        self.a & !FOR_B
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

    /// Return the ball the event is kept for, with its counter when predicted.
    #[inline]
    fn owner(&self) -> (u32, u32) {
        match (self.a & FOR_B != 0, self.happening()) {
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

/// The pending events, in a calendar queue (Paul, "A complexity O(1) priority queue for event
/// driven molecular dynamics simulations", J. Comput. Phys. 221, 2007) where events outlive
/// steps: the earliest in a small min-heap, the rest of the current step in a ring of fine
/// buckets (about `FINE_EVENTS` events each), and later ones in buckets a step wide. A bucket comes into the ring, and a fine bucket into the heap, when the heap runs dry
/// before the step's end, so the heap holds a few events and each event costs O(1) on average.
/// An event in a later bucket is always later than every event in the heap, so events come out
/// in exactly the order of one heap. Where events end with the step (a zero width), every
/// event goes to the heap.
#[derive(Debug, Default)]
pub(super) struct Calendar {
    heap: BinaryHeap<Reverse<Event>>,
    /// Fine buckets from `next_fine` up to the end of bucket `next_coarse - 1`, by fine bucket
    /// modulo their count (a power of two).
    ring: Ring,
    /// Events of buckets from `next_coarse` on, by bucket.
    later: FxHashMap<u64, Vec<Event>>,
    /// Events in `later`.
    later_len: usize,
    /// The width of a fine bucket; zero while every event goes to the heap.
    fine_width: Real,
    /// Fine buckets in a bucket: the ring's length, a power of two (`1 << fine_shift`).
    fine_shift: u32,
    /// Fine buckets before this one are in the heap.
    next_fine: u64,
    /// Buckets before this one are in the ring or the heap.
    next_coarse: u64,
    /// Emptied buckets, to reuse.
    spare: Vec<Vec<Event>>,
    /// Events that went into the ring since the last clear, and the first bucket taken into
    /// the ring since: the rate of events a step that sizes the next ring.
    ringed: usize,
    first_coarse: Option<u64>,
}

impl Calendar {
    /// Add what happens to ball `a` at `time`, as of the balls' collision counters
    /// (`counters[i]` for ball `i`).
    pub fn push(&mut self, time: Real, a: u32, happening: Happening, counters: &[u32]) {
        self.push_for(time, a, happening, counters, false);
    }

    /// Add what happens to ball `a` at `time`, kept for the other ball of the contact when
    /// `for_b` (see [`Next::Again`]).
    pub fn push_for(
        &mut self,
        time: Real,
        a: u32,
        happening: Happening,
        counters: &[u32],
        for_b: bool,
    ) {
        debug_assert!(a < FOR_B);
        let count_b = match happening {
            Happening::Contact(Other::Ball(j)) => counters[j as usize],
            _ => 0,
        };
        let event = Event {
            time,
            a: if for_b { a | FOR_B } else { a },
            b: happening.pack(),
            count_a: counters[a as usize],
            count_b,
        };
        self.insert(event);
    }

    /// Put `event` where its time belongs: the heap, the ring or a later bucket.
    #[inline]
    fn insert(&mut self, event: Event) {
        if self.fine_width > 0.0 {
            let f = self.fine(event.time);
            if f >= self.next_fine {
                if f >> self.fine_shift < self.next_coarse {
                    let slot = (f & self.fine_mask()) as usize;
                    self.ring.push(slot, event);
                    self.ringed += 1;
                } else {
                    let spare = &mut self.spare;
                    self.later
                        .entry(f >> self.fine_shift)
                        .or_insert_with(|| spare.pop().unwrap_or_default())
                        .push(event);
                    self.later_len += 1;
                }
                return;
            }
        }
        self.heap.push(Reverse(event));
    }

    /// Forget every event, and keep later events in buckets of `width` (zero: none, every
    /// event in the heap), each cut into fine buckets enough for the events a step that went
    /// through the ring so far, or for `events` when it has not run two steps. (Only the speed
    /// depends on the count: events come out in the same order whatever it is.)
    pub fn clear(&mut self, width: Real, events: usize) {
        let events = match self.first_coarse {
            Some(first) if self.next_coarse >= first + 2 => {
                self.ringed / (self.next_coarse - first) as usize
            }
            _ => events,
        };
        self.ringed = 0;
        self.first_coarse = None;
        self.heap.clear();
        let buckets: Vec<Vec<Event>> = self.later.drain().map(|(_, bucket)| bucket).collect();
        for bucket in buckets {
            self.recycle(bucket);
        }
        self.later_len = 0;
        // Without buckets (events end with the step, a new calendar each step) no ring
        let buckets = width.is_finite() && width > 0.0;
        let fine = if buckets {
            (events / FINE_EVENTS).next_power_of_two().min(MAX_FINE)
        } else {
            1
        };
        self.fine_shift = fine.trailing_zeros();
        self.ring.reset(fine);
        self.fine_width = if buckets { width / fine as Real } else { 0.0 };
        self.next_fine = 0;
        self.next_coarse = 0;
    }

    /// Return how many events are pending, stale ones included.
    pub fn len(&self) -> usize {
        self.heap.len() + self.ring.len + self.later_len
    }

    /// Keep an emptied bucket to reuse, if it is small (most are: a bucket is a step's
    /// events of a few balls, and a large one would keep its memory for good).
    fn recycle(&mut self, mut bucket: Vec<Event>) {
        if bucket.capacity() <= SMALL_BUCKET && self.spare.len() < MAX_SPARE {
            bucket.clear();
            self.spare.push(bucket);
        }
    }

    /// The fine bucket of `time` (times are not negative).
    #[inline]
    fn fine(&self, time: Real) -> u64 {
        // Far beyond any step, all in one bucket (and room to count past it)
        ((time / self.fine_width) as u64).min(1 << 62)
    }

    #[inline]
    fn fine_mask(&self) -> u64 {
        (1 << self.fine_shift) - 1
    }

    /// Move the next fine bucket into the heap, or, at the end of the ring, the next bucket
    /// with events into the ring, but none after fine bucket `last` (the step's end).
    fn advance(&mut self, last: u64) {
        let ring_end = self.next_coarse << self.fine_shift;
        if self.next_fine < ring_end {
            if self.ring.len == 0 {
                // Nothing left in the ring: skip to its end
                self.next_fine = ring_end;
                return;
            }
            let k = (self.next_fine & self.fine_mask()) as usize;
            self.ring.drain_into(k, &mut self.heap);
            self.next_fine += 1;
            return;
        }
        // The next bucket with events, skipping empty ones (few: buckets are a step wide)
        let after_last = (last >> self.fine_shift) + 1;
        self.first_coarse.get_or_insert(self.next_coarse);
        let b = if self.later.contains_key(&self.next_coarse) {
            self.next_coarse
        } else {
            self.later.keys().copied().min().unwrap_or(after_last)
        }
        .min(after_last);
        self.next_coarse = b;
        self.next_fine = b << self.fine_shift;
        if let Some(mut bucket) = self.later.remove(&b) {
            self.later_len -= bucket.len();
            self.ringed += bucket.len();
            let mask = self.fine_mask();
            for event in bucket.drain(..) {
                let f = self.fine(event.time);
                self.ring.push((f & mask) as usize, event);
            }
            self.recycle(bucket);
            self.next_coarse = b + 1;
        }
    }

    /// Drop the stale events but those that still stand for a ball's earliest (see
    /// [`Calendar::pop_until`]): where events outlive steps, stale ones would otherwise pile
    /// up until their time comes.
    pub fn compact(&mut self, counters: &[u32], earliest: &[Key]) {
        let keep = |event: &Event| {
            event.current(counters) || {
                let (ball, count) = event.owner();
                counters[ball as usize] == count && earliest[ball as usize] == event.key()
            }
        };
        self.heap.retain(|Reverse(event)| keep(event));
        self.ring.retain(keep);
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
    /// With `earliest` (each ball's earliest event, where each ball keeps only its earliest in the
    /// calendar), a stale event that was a ball's earliest gives [`Next::Again`] for it.
    pub fn pop_until(
        &mut self,
        counters: &[u32],
        t_end: Real,
        earliest: Option<&[Key]>,
    ) -> Option<Next> {
        loop {
            let Some(Reverse(event)) = self.heap.peek() else {
                // The heap ran dry: bring in the next fine bucket, unless it is after the end
                if self.fine_width == 0.0 {
                    return None;
                }
                let last = self.fine(t_end);
                if self.next_fine > last {
                    return None;
                }
                self.advance(last);
                continue;
            };
            if event.time > t_end {
                return None;
            }
            let Reverse(event) = self.heap.pop().expect("peeked");
            if event.current(counters) {
                return Some(Next::Event(event));
            }
            if let Some(earliest) = earliest {
                let (ball, count) = event.owner();
                let b = ball as usize;
                if counters[b] == count && earliest[b] == event.key() {
                    return Some(Next::Again {
                        ball,
                        time: event.time,
                    });
                }
            }
        }
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
            Happening::Turn,
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
        // Balls, turns, statics, then crossings
        assert!(all.windows(2).take(5).all(|w| w[0].pack() < w[1].pack()));
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
        calendar.clear(0.1, 64);
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

    /// Events come out in exactly the order of one heap, whatever bucket, fine bucket or heap
    /// they waited in: pushed at random times from now to far ahead, some at equal times,
    /// while popping step by step.
    #[test]
    fn the_buckets_give_the_order_of_one_heap() {
        let counters = [0; 64];
        let mut calendar = Calendar::default();
        let width = 0.25;
        calendar.clear(width, 40);
        // The pending keys, the earliest found by a search
        let mut reference: Vec<Key> = Vec::new();
        // A fixed linear congruential sequence in [0, 1)
        let mut seed = 12_345_u64;
        let mut random = move || {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 11) as Real / (1u64 << 53) as Real
        };
        let mut popped = 0;
        let mut t = 0.0;
        for step in 1..=200 {
            let t_end = step as Real * width;
            let mut now = t;
            loop {
                for _ in 0..(random() * 2.5) as usize {
                    let ahead = match (random() * 10.0) as u32 {
                        0 => 0.0,
                        1 => 1e3 * random(),
                        2..=5 => width * random(),
                        _ => 5.0 * width * random(),
                    };
                    // Times on a coarse grid now and then, so that some are equal
                    let time = if random() < 0.3 {
                        now + (ahead * 64.0).round() / 64.0
                    } else {
                        now + ahead
                    };
                    let a = (random() * 64.0) as u32;
                    let happening = Happening::Contact(Other::Static((random() * 4.0) as u32));
                    calendar.push(time, a, happening, &counters);
                    reference.push(key_of(time, a, happening));
                }
                let Some(Next::Event(event)) = calendar.pop_until(&counters, t_end, None) else {
                    break;
                };
                let first = (0..reference.len())
                    .reduce(|x, y| {
                        if earlier(reference[y], reference[x]) {
                            y
                        } else {
                            x
                        }
                    })
                    .expect("as many events");
                let expected = reference.swap_remove(first);
                assert_eq!(event.key(), expected, "step {step}");
                assert!(event.time <= t_end && event.time >= now);
                now = event.time;
                popped += 1;
            }
            assert!(reference.iter().all(|k| k.0 > t_end));
            assert_eq!(calendar.len(), reference.len());
            t = t_end;
        }
        assert!(popped > 500, "{popped}");
    }

    /// A stale event that was a ball's earliest gives `Again` for it; other stale events are
    /// dropped, and compaction keeps the first kind only.
    #[test]
    fn a_stale_earliest_event_sends_its_ball_to_look_again() {
        let mut counters = [0; 3];
        let mut calendar = Calendar::default();
        calendar.clear(0.0, 0);
        let contact = Happening::Contact(Other::Ball(2));
        // Ball 0 asks about ball 2: kept for ball 2 only (ball 0 keeps an earlier one)
        calendar.push_for(0.5, 0, contact, &counters, true);
        calendar.push_for(
            0.2,
            0,
            Happening::Contact(Other::Static(0)),
            &counters,
            false,
        );
        let earliest = [
            key_of(0.2, 0, Happening::Contact(Other::Static(0))),
            NEVER,
            key_of(0.5, 0, contact),
        ];
        // Ball 0 changes course: both its events go stale
        counters[0] += 1;
        calendar.compact(&counters, &earliest);
        assert_eq!(calendar.len(), 1, "the event kept for ball 2 stays");
        match calendar.pop_until(&counters, 1.0, Some(&earliest)) {
            Some(Next::Again { ball, time }) => assert_eq!((ball, time), (2, 0.5)),
            other => panic!("{other:?}"),
        }
        assert!(
            calendar
                .pop_until(&counters, 1.0, Some(&earliest))
                .is_none()
        );
    }
}
